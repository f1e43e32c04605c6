"""Learning-rate schedulers: each against its closed form and against
torch.optim.lr_scheduler step by step; state_dict; ReduceLROnPlateau."""
from __future__ import annotations

import math

import numpy as np
import pytest

import nabla
import nabla.nn as nn
import nabla.optim as optim
from nabla.optim import lr_scheduler as S

EPOCHS = 25


def _opt(lr=0.1, cls=optim.SGD, **kw):
    p = nn.Parameter(nabla.zeros(1))
    p.grad = None  # steps change nothing: only the schedule is under test
    return cls([p], lr=lr, **kw)


def _lrs(sched, n=EPOCHS):
    out = [sched.get_last_lr()[0]]
    for _ in range(n):
        sched.optimizer.step()
        sched.step()
        out.append(sched.get_last_lr()[0])
    return out


CLOSED = [
    (lambda o: S.StepLR(o, step_size=3, gamma=0.5), lambda e: 0.1 * 0.5 ** (e // 3)),
    (lambda o: S.MultiStepLR(o, milestones=[2, 5, 5, 9], gamma=0.1),
     lambda e: 0.1 * 0.1 ** sum(m <= e for m in [2, 5, 5, 9])),
    (lambda o: S.ExponentialLR(o, gamma=0.9), lambda e: 0.1 * 0.9 ** e),
    (lambda o: S.CosineAnnealingLR(o, T_max=10, eta_min=0.01),
     lambda e: 0.01 + (0.1 - 0.01) * (1 + math.cos(math.pi * e / 10)) / 2),
    (lambda o: S.LambdaLR(o, lambda e: 1 / (1 + e)), lambda e: 0.1 / (1 + e)),
    (lambda o: S.LinearLR(o, start_factor=0.25, total_iters=4), lambda e: 0.1 * (0.25 + 0.75 * min(e, 4) / 4)),
]


@pytest.mark.parametrize("make,closed", CLOSED, ids=["step", "multistep", "exponential", "cosine", "lambda", "linear"])
def test_schedule_matches_its_closed_form(make, closed):
    lrs = _lrs(make(_opt()))
    np.testing.assert_allclose(lrs, [closed(e) for e in range(EPOCHS + 1)], rtol=1e-12, atol=1e-15)


TORCH = [
    ("StepLR", dict(step_size=4, gamma=0.3)),
    ("MultiStepLR", dict(milestones=[3, 7], gamma=0.5)),
    ("ExponentialLR", dict(gamma=0.95)),
    ("CosineAnnealingLR", dict(T_max=7, eta_min=0.001)),  # past T_max: PyTorch's recursive form keeps cycling
    ("LinearLR", dict(start_factor=0.5, end_factor=0.9, total_iters=6)),
    ("OneCycleLR", dict(max_lr=1.0, total_steps=EPOCHS + 1)),
    ("OneCycleLR", dict(max_lr=0.5, total_steps=EPOCHS + 1, anneal_strategy="linear", three_phase=True)),
]


@pytest.mark.parametrize("name,kwargs", TORCH, ids=[f"{n}-{i}" for i, (n, _) in enumerate(TORCH)])
@pytest.mark.parametrize("opt_name", ["SGD", "Adam"])
def test_schedule_matches_torch(name, kwargs, opt_name):
    torch = pytest.importorskip("torch")
    extra = {"momentum": 0.9} if opt_name == "SGD" else {}
    ours = getattr(S, name)(_opt(cls=getattr(optim, opt_name), **extra), **kwargs)
    topt = getattr(torch.optim, opt_name)([torch.nn.Parameter(torch.zeros(1))], lr=0.1, **extra)
    theirs = getattr(torch.optim.lr_scheduler, name)(topt, **kwargs)
    for _ in range(EPOCHS):
        np.testing.assert_allclose(ours.get_last_lr(), theirs.get_last_lr(), rtol=1e-12)
        if name == "OneCycleLR":
            key = "momentum" if opt_name == "SGD" else "betas"
            np.testing.assert_allclose(np.ravel(ours.optimizer.param_groups[0][key]),
                                       np.ravel(topt.param_groups[0][key]), rtol=1e-12)
        ours.optimizer.step()
        topt.step()
        ours.step()
        theirs.step()


def test_scheduler_state_dict_round_trip():
    sched = S.StepLR(_opt(), step_size=2, gamma=0.5)
    for _ in range(5):
        sched.step()
    sd = sched.state_dict()
    assert "optimizer" not in sd and sd["last_epoch"] == 5
    other = S.StepLR(_opt(), step_size=2, gamma=0.5)
    other.load_state_dict(sd)
    assert other.last_epoch == 5 and other.get_last_lr() == sched.get_last_lr()
    with pytest.raises(TypeError, match="is not an Optimizer"):
        S.StepLR(object(), 1)


def test_reduce_lr_on_plateau_matches_torch():
    torch = pytest.importorskip("torch")
    metrics = [1.0, 0.9, 0.9, 0.9, 0.9, 0.89999, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.4, 0.4, 0.4]
    ours = S.ReduceLROnPlateau(_opt(), patience=2, factor=0.5, cooldown=1, min_lr=0.02)
    topt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=0.1)
    theirs = torch.optim.lr_scheduler.ReduceLROnPlateau(topt, patience=2, factor=0.5, cooldown=1, min_lr=0.02)
    for m in metrics:
        ours.step(m)
        theirs.step(m)
        assert ours.get_last_lr() == pytest.approx(theirs.get_last_lr(), rel=1e-12)
    assert ours.get_last_lr()[0] < 0.1
    mx = S.ReduceLROnPlateau(_opt(), mode="max", patience=0, threshold=0.1, threshold_mode="abs")
    mx.step(1.0)
    mx.step(1.05)  # not better by 0.1
    assert mx.get_last_lr()[0] == pytest.approx(0.01)
    with pytest.raises(ValueError, match="Factor should be < 1.0."):
        S.ReduceLROnPlateau(_opt(), factor=1.0)
