"""Adafactor and Muon against torch.optim step by step (matrices, vectors, 3-D and 0-dim parameters,
float32 and float64, weight decay, maximize, param groups), state_dict round trips through torch's
optimizers, argument errors; SparseAdam's refusal of dense gradients; swap_in_optimizer_params_and_state."""
from __future__ import annotations

import numpy as np
import pytest

import nabla
import nabla.nn as nn
import nabla.optim as optim

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(11)
STEPS = 6
TORCH_DTYPE = {nabla.float32: torch.float32, nabla.float64: torch.float64}


def _pair(shapes, dtype):
    """Parameters with the same random values in nabla and torch."""
    values = [RNG.standard_normal(s) for s in shapes]
    ours = [nn.Parameter(nabla.tensor(v, dtype=dtype)) for v in values]
    theirs = [torch.nn.Parameter(torch.tensor(v, dtype=TORCH_DTYPE[dtype])) for v in values]
    return ours, theirs


def _step_both(o1, o2, ours, theirs, steps=STEPS, scale=1.0):
    for _ in range(steps):
        for a, b in zip(ours, theirs):
            g = RNG.standard_normal(tuple(a.shape)) * scale
            a.grad = nabla.tensor(g, dtype=a.dtype)
            b.grad = torch.tensor(g, dtype=b.dtype)
        o1.step()
        o2.step()


def _close(ours, theirs, rtol, atol):
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=rtol, atol=atol)


def _groups(params, options):
    return [dict(params=[p], **o) for p, o in zip(params, options)]


TOL = {nabla.float32: (2e-5, 2e-6), nabla.float64: (1e-12, 1e-13)}
SHAPES = [(4, 5), (7,), (2, 3, 4), ()]


@pytest.mark.parametrize("dtype", [nabla.float32, nabla.float64])
@pytest.mark.parametrize("kwargs", [{}, dict(lr=0.1, weight_decay=0.05), dict(maximize=True, d=1.5),
                                    dict(eps=(1e-6, 1e-2), beta2_decay=-0.5), dict(foreach=True)])
def test_adafactor_steps_match_torch(dtype, kwargs):
    ours, theirs = _pair(SHAPES, dtype)
    o1, o2 = optim.Adafactor(ours, **kwargs), torch.optim.Adafactor(theirs, **kwargs)
    _step_both(o1, o2, ours, theirs)
    _close(ours, theirs, *TOL[dtype])


def test_adafactor_tiny_gradients_hit_the_eps1_floor_as_torch():
    ours, theirs = _pair([(3, 4), (5,)], nabla.float32)
    o1, o2 = optim.Adafactor(ours, lr=0.5), torch.optim.Adafactor(theirs, lr=0.5)
    _step_both(o1, o2, ours, theirs, scale=1e-6)
    _close(ours, theirs, *TOL[nabla.float32])


def test_adafactor_param_groups_keep_their_options_and_skip_missing_grads():
    ours, theirs = _pair([(3, 4), (6,), (2, 2)], nabla.float64)
    options = [dict(lr=0.05), dict(weight_decay=0.1, maximize=True), dict(d=2.0)]
    o1, o2 = optim.Adafactor(_groups(ours, options)), torch.optim.Adafactor(_groups(theirs, options))
    _step_both(o1, o2, ours, theirs, steps=2)
    ours[2].grad, theirs[2].grad = None, None
    o1.step()
    o2.step()
    _close(ours, theirs, *TOL[nabla.float64])
    assert len(o1.state) == 3 and o1.state[ours[0]]["step"] == 3 and o1.state[ours[2]]["step"] == 2


def _to_torch_state(sd):
    return {"state": {k: {n: torch.from_numpy(v.numpy().copy()) for n, v in s.items()} for k, s in sd["state"].items()},
            "param_groups": sd["param_groups"]}


def _to_nabla_state(sd):
    return {"state": {k: {n: nabla.tensor(v.numpy()) for n, v in s.items()} for k, s in sd["state"].items()},
            "param_groups": sd["param_groups"]}


@pytest.mark.parametrize("name, kwargs, shapes, keys", [
    ("Adafactor", dict(lr=0.1, weight_decay=0.01), [(3, 4), (5,)], [{"step", "row_var", "col_var"},
                                                                    {"step", "variance"}]),
    ("Muon", dict(lr=0.02), [(4, 3), (3, 5)], [{"momentum_buffer"}] * 2)])
def test_state_dict_round_trip_through_torch(name, kwargs, shapes, keys):
    ours, theirs = _pair(shapes, nabla.float32)
    o1, o2 = getattr(optim, name)(ours, **kwargs), getattr(torch.optim, name)(theirs, **kwargs)
    _step_both(o1, o2, ours, theirs, steps=3)
    sd, tsd = o1.state_dict(), o2.state_dict()
    assert [set(sd["state"][i]) for i in range(len(shapes))] == keys
    assert sd["param_groups"] == tsd["param_groups"]
    for i in range(len(shapes)):
        for k, v in tsd["state"][i].items():
            assert tuple(sd["state"][i][k].shape) == tuple(v.shape), k
    # our state continues in torch's optimizer, torch's in ours
    theirs2 = [torch.nn.Parameter(torch.from_numpy(p.detach().numpy().copy())) for p in ours]
    ours2 = [nn.Parameter(nabla.tensor(p.detach().numpy())) for p in theirs]
    t2, n2 = getattr(torch.optim, name)(theirs2), getattr(optim, name)(ours2)
    t2.load_state_dict(_to_torch_state(sd))
    n2.load_state_dict(_to_nabla_state(tsd))
    assert n2.param_groups[0]["lr"] == kwargs["lr"]
    both = [ours, theirs, ours2, theirs2]
    for _ in range(2):
        for i, shape in enumerate(shapes):
            g = RNG.standard_normal(shape)
            for k, ps in enumerate(both):
                ps[i].grad = (nabla if k % 2 == 0 else torch).tensor(g, dtype=ps[i].dtype)
        for o in (o1, o2, n2, t2):
            o.step()
    rtol, atol = (2e-5, 2e-6) if name == "Adafactor" else (5e-3, 5e-4)
    _close(ours, theirs2, rtol, atol)
    _close(ours2, theirs, rtol, atol)


MUON_TOL = (0, 2e-3)  # the Newton-Schulz iteration runs in bfloat16: updates of size lr differ in the last bits


@pytest.mark.parametrize("dtype", [nabla.float32, nabla.float64])
@pytest.mark.parametrize("kwargs", [{}, dict(lr=0.02, weight_decay=0.0, nesterov=False),
                                    dict(lr=0.01, adjust_lr_fn="match_rms_adamw", momentum=0.9),
                                    dict(lr=0.01, ns_steps=3, ns_coefficients=(2.0, -1.5, 0.5), eps=1e-5)])
def test_muon_steps_match_torch(dtype, kwargs):
    ours, theirs = _pair([(6, 4), (3, 8), (5, 5)], dtype)
    o1, o2 = optim.Muon(ours, **kwargs), torch.optim.Muon(theirs, **kwargs)
    _step_both(o1, o2, ours, theirs, steps=4)
    _close(ours, theirs, *MUON_TOL)
    assert ours[0].dtype == dtype


def test_muon_update_is_orthogonalised():
    p = nn.Parameter(nabla.zeros(8, 4))
    p.grad = nabla.tensor(RNG.standard_normal((8, 4)), dtype=nabla.float32)
    optim.Muon([p], lr=1.0, weight_decay=0.0, momentum=0.0, nesterov=False).step()
    s = np.linalg.svd(p.detach().numpy() / np.sqrt(2.0), compute_uv=False)
    assert np.all((s > 0.5) & (s < 1.5)), s


def test_muon_param_groups_match_torch():
    ours, theirs = _pair([(4, 4), (2, 6)], nabla.float32)
    options = [dict(lr=0.05, weight_decay=0.0), dict(nesterov=False, momentum=0.5)]
    o1, o2 = optim.Muon(_groups(ours, options)), torch.optim.Muon(_groups(theirs, options))
    _step_both(o1, o2, ours, theirs, steps=3)
    _close(ours, theirs, *MUON_TOL)


def _same_error(make_ours, make_theirs):
    with pytest.raises(Exception) as theirs:
        make_theirs()
    with pytest.raises(type(theirs.value), match=None) as ours:
        make_ours()
    assert str(ours.value) == str(theirs.value).replace("torch.Size", "nabla.Size")


@pytest.mark.parametrize("name, kwargs", [
    ("Adafactor", dict(lr=-1.0)), ("Adafactor", dict(beta2_decay=0.5)), ("Adafactor", dict(eps=(-1.0, 1e-3))),
    ("Adafactor", dict(eps=(None, -1.0))), ("Adafactor", dict(d=0.5)), ("Adafactor", dict(weight_decay=-0.1)),
    ("Muon", dict(lr=-1.0)), ("Muon", dict(momentum=-0.5)), ("Muon", dict(weight_decay=-1.0)),
    ("Muon", dict(adjust_lr_fn="spectral")), ("SparseAdam", dict(lr=0.0)), ("SparseAdam", dict(eps=0.0)),
    ("SparseAdam", dict(betas=(1.0, 0.9))), ("SparseAdam", dict(betas=(0.9, -0.1)))])
def test_argument_errors_match_torch(name, kwargs):
    _same_error(lambda: getattr(optim, name)([nn.Parameter(nabla.zeros(2, 2))], **kwargs),
                lambda: getattr(torch.optim, name)([torch.nn.Parameter(torch.zeros(2, 2))], **kwargs))


@pytest.mark.parametrize("shape", [(3,), (2, 2, 2), ()])
def test_muon_refuses_parameters_that_are_not_matrices(shape):
    _same_error(lambda: optim.Muon([nn.Parameter(nabla.zeros(shape))]),
                lambda: torch.optim.Muon([torch.nn.Parameter(torch.zeros(shape))]))


@pytest.mark.parametrize("kwargs", [dict(ns_steps=100), dict(ns_coefficients=(1.0, 2.0))])
def test_muon_step_errors_match_torch(kwargs):
    def run(lib, o):
        p = o.nn.Parameter(lib.ones(2, 3))
        p.grad = lib.ones(2, 3)
        o.optim.Muon([p], **kwargs).step()
    _same_error(lambda: run(nabla, nabla), lambda: run(torch, torch))


def test_sparse_adam_refuses_dense_gradients_as_torch():
    def run(lib, o):
        p = o.nn.Parameter(lib.ones(3))
        opt = o.optim.SparseAdam([p], lr=0.1)
        assert opt.step(lambda: 1.5) == 1.5  # no gradient yet: nothing to refuse
        p.grad = lib.ones(3)
        opt.step()
    _same_error(lambda: run(nabla, nabla), lambda: run(torch, torch))
    assert optim.SparseAdam([nn.Parameter(nabla.zeros(2))]).defaults == dict(lr=1e-3, betas=(0.9, 0.999), eps=1e-8,
                                                                               maximize=False)


def test_swap_in_steps_other_params_and_state_then_restores():
    p = nn.Parameter(nabla.tensor([1.0, 2.0]))
    opt = optim.SGD([p], lr=0.1, momentum=0.9)
    p.grad = nabla.tensor([1.0, 1.0])
    opt.step()
    own_buf = opt.state[p]["momentum_buffer"].clone()
    q = nn.Parameter(nabla.tensor([5.0, 5.0]))
    sd = opt.state_dict()
    sd = {"state": {0: {"momentum_buffer": nabla.tensor([0.0, 0.0])}},
          "param_groups": [dict(sd["param_groups"][0], lr=1.0)]}
    q.grad = nabla.tensor([1.0, -1.0])
    with optim.swap_in_optimizer_params_and_state(opt, {"w": q}, sd):
        assert opt.param_groups[0]["params"] == [q] and opt.param_groups[0]["lr"] == 1.0
        opt.step()
    np.testing.assert_allclose(q.detach().numpy(), [4.0, 6.0])
    np.testing.assert_allclose(sd["state"][0]["momentum_buffer"].numpy(), [1.0, -1.0])  # in-place edit persists
    assert opt.param_groups[0]["params"][0] is p and opt.param_groups[0]["lr"] == 0.1
    np.testing.assert_array_equal(opt.state[p]["momentum_buffer"].numpy(), own_buf.numpy())


@pytest.mark.parametrize("mutate, message", [
    (lambda sd: sd.update(param_groups=sd["param_groups"] * 2), "different number of parameter groups"),
    (lambda sd: sd["param_groups"][0].update(extra=1), "Keys only in swap-in: ['extra']"),
    (lambda sd: sd["state"].update({7: {}}), "got extra keys [7]"),
    (lambda sd: sd.update(state=[]), "got list"),
    (lambda sd: sd["param_groups"][0].update(params=[0, 1]), "group 0 has a different number of params")])
def test_swap_in_errors_match_torch(mutate, message):
    def run(lib, o):
        p = o.nn.Parameter(lib.ones(2))
        opt = o.optim.SGD([p], lr=0.1, momentum=0.9)
        p.grad = lib.ones(2)
        opt.step()
        sd = opt.state_dict()
        mutate(sd)
        with o.optim.swap_in_optimizer_params_and_state(opt, {"w": lib.zeros(2)}, sd):
            pass
    _same_error(lambda: run(nabla, nabla), lambda: run(torch, torch))
    with pytest.raises(RuntimeError) as e:
        run(nabla, nabla)
    assert message in str(e.value)
