"""Optimizers: several steps of each against its update formula in NumPy float64
(weight decay, momentum, Nesterov, amsgrad, maximize, centered), and against
torch.optim; param groups, state_dict round trips, zero_grad, strided and
half-precision parameters, argument errors; clip_grad_norm_ / clip_grad_value_."""
from __future__ import annotations

import math

import numpy as np
import pytest

import nabla
import nabla.nn as nn
import nabla.optim as optim

RNG = np.random.default_rng(7)
STEPS = 5


def _set_grad(p, g: np.ndarray) -> None:
    p.grad = nabla.tensor(g, dtype=p.dtype)


def _run(opt_cls, kwargs, dtype=nabla.float64, shape=(3, 4)):
    """Runs STEPS steps with fixed random gradients; returns (initial value, gradients, final value)."""
    p0 = RNG.standard_normal(shape)
    grads = [RNG.standard_normal(shape) for _ in range(STEPS)]
    p = nn.Parameter(nabla.tensor(p0, dtype=dtype))
    opt = opt_cls([p], **kwargs)
    for g in grads:
        _set_grad(p, g)
        opt.step()
    return p0, grads, p.numpy().astype(np.float64), opt


# ---- NumPy references (PyTorch's documented algorithms) ----

def ref_sgd(p, grads, lr, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False, maximize=False):
    buf = None
    for g in grads:
        g = -g if maximize else g
        g = g + weight_decay * p
        if momentum:
            buf = g.copy() if buf is None else momentum * buf + (1 - dampening) * g
            g = g + momentum * buf if nesterov else buf
        p = p - lr * g
    return p


def ref_adam(p, grads, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, amsgrad=False, maximize=False,
             decoupled=False):
    m = np.zeros_like(p)
    v = np.zeros_like(p)
    vmax = np.zeros_like(p)
    for t, g in enumerate(grads, 1):
        g = -g if maximize else g
        if decoupled:
            p = p * (1 - lr * weight_decay)
        else:
            g = g + weight_decay * p
        m = betas[0] * m + (1 - betas[0]) * g
        v = betas[1] * v + (1 - betas[1]) * g * g
        bc1, bc2 = 1 - betas[0] ** t, 1 - betas[1] ** t
        if amsgrad:
            vmax = np.maximum(vmax, v)
            denom = np.sqrt(vmax) / math.sqrt(bc2) + eps
        else:
            denom = np.sqrt(v) / math.sqrt(bc2) + eps
        p = p - lr / bc1 * m / denom
    return p


def ref_rmsprop(p, grads, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0.0, momentum=0.0, centered=False):
    sq = np.zeros_like(p)
    ga = np.zeros_like(p)
    buf = np.zeros_like(p)
    for g in grads:
        g = g + weight_decay * p
        sq = alpha * sq + (1 - alpha) * g * g
        if centered:
            ga = alpha * ga + (1 - alpha) * g
            avg = np.sqrt(sq - ga * ga) + eps
        else:
            avg = np.sqrt(sq) + eps
        if momentum > 0:
            buf = momentum * buf + g / avg
            p = p - lr * buf
        else:
            p = p - lr * g / avg
    return p


def ref_adagrad(p, grads, lr=1e-2, lr_decay=0.0, weight_decay=0.0, initial_accumulator_value=0.0, eps=1e-10):
    s = np.full_like(p, initial_accumulator_value)
    for t, g in enumerate(grads, 1):
        g = g + weight_decay * p
        clr = lr / (1 + (t - 1) * lr_decay)
        s = s + g * g
        p = p - clr * g / (np.sqrt(s) + eps)
    return p


CASES = [
    (optim.SGD, dict(lr=0.1), ref_sgd),
    (optim.SGD, dict(lr=0.1, momentum=0.9, weight_decay=0.01), ref_sgd),
    (optim.SGD, dict(lr=0.05, momentum=0.8, dampening=0.3, maximize=True), ref_sgd),
    (optim.SGD, dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.1), ref_sgd),
    (optim.Adam, dict(lr=0.01), ref_adam),
    (optim.Adam, dict(lr=0.01, betas=(0.8, 0.9), weight_decay=0.1, amsgrad=True), ref_adam),
    (optim.Adam, dict(lr=0.01, maximize=True, eps=1e-3), ref_adam),
    (optim.AdamW, dict(lr=0.01, weight_decay=0.1), lambda p, g, **k: ref_adam(p, g, decoupled=True, **k)),
    (optim.AdamW, dict(lr=0.01, amsgrad=True), lambda p, g, **k: ref_adam(p, g, decoupled=True, weight_decay=1e-2, **k)),
    (optim.RMSprop, dict(lr=0.01), ref_rmsprop),
    (optim.RMSprop, dict(lr=0.01, momentum=0.9, centered=True, weight_decay=0.1), ref_rmsprop),
    (optim.Adagrad, dict(lr=0.1, lr_decay=0.01, weight_decay=0.1, initial_accumulator_value=0.5), ref_adagrad),
]


@pytest.mark.parametrize("opt_cls,kwargs,ref", CASES, ids=[f"{c.__name__}-{i}" for i, (c, _, _) in enumerate(CASES)])
def test_steps_match_the_update_formula_float64(opt_cls, kwargs, ref):
    p0, grads, got, _ = _run(opt_cls, kwargs)
    np.testing.assert_allclose(got, ref(p0, grads, **kwargs), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("opt_cls,kwargs,ref", CASES, ids=[f"{c.__name__}-{i}" for i, (c, _, _) in enumerate(CASES)])
def test_steps_match_the_update_formula_float32(opt_cls, kwargs, ref):
    p0, grads, got, _ = _run(opt_cls, kwargs, dtype=nabla.float32)
    want = ref(p0.astype(np.float32).astype(np.float64), [g.astype(np.float32).astype(np.float64) for g in grads],
               **kwargs)
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("opt_cls,kwargs,ref", CASES[1:2] + CASES[5:6] + CASES[10:11])
def test_large_parameters_split_across_threads_give_the_same_result(opt_cls, kwargs, ref):
    p0, grads, got, _ = _run(opt_cls, kwargs, shape=(300, 700))
    np.testing.assert_allclose(got, ref(p0, grads, **kwargs), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name,kwargs", [("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.1)),
                                         ("Adam", dict(lr=0.01, amsgrad=True, weight_decay=0.1)),
                                         ("AdamW", dict(lr=0.01)),
                                         ("RMSprop", dict(lr=0.01, momentum=0.5, centered=True)),
                                         ("Adagrad", dict(lr=0.1, lr_decay=0.1))])
def test_steps_match_torch_optim(name, kwargs):
    torch = pytest.importorskip("torch")
    p0 = RNG.standard_normal((4, 5)).astype(np.float32)
    ours = nn.Parameter(nabla.tensor(p0))
    theirs = torch.nn.Parameter(torch.from_numpy(p0.copy()))
    o1, o2 = getattr(optim, name)([ours], **kwargs), getattr(torch.optim, name)([theirs], **kwargs)
    for _ in range(STEPS):
        g = RNG.standard_normal((4, 5)).astype(np.float32)
        _set_grad(ours, g)
        theirs.grad = torch.from_numpy(g)
        o1.step()
        o2.step()
    np.testing.assert_allclose(ours.numpy(), theirs.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_strided_and_half_precision_parameters():
    base = nabla.tensor(RNG.standard_normal((4, 3)))
    p = nn.Parameter(base.T)  # a transposed view: the C step writes through a copy
    assert not p.is_contiguous()
    g = RNG.standard_normal((3, 4))
    want = ref_sgd(base.numpy().T.copy(), [g], lr=0.5)
    opt = optim.SGD([p], lr=0.5)
    _set_grad(p, g)
    opt.step()
    np.testing.assert_allclose(p.numpy(), want, rtol=1e-14)
    np.testing.assert_allclose(base.numpy(), want.T, rtol=1e-14)  # written back into the shared storage
    for dtype in (nabla.float16, nabla.bfloat16):
        p = nn.Parameter(nabla.ones(8, dtype=dtype))
        opt = optim.Adam([p], lr=0.1)
        _set_grad(p, np.ones(8))
        opt.step()
        assert p.dtype == dtype and opt.state[p]["exp_avg"].dtype == dtype
        np.testing.assert_allclose(p.float().numpy(), 0.9, rtol=1e-2)


def test_step_bumps_the_parameter_version():
    p = nn.Parameter(nabla.ones(3))
    before = p._version
    opt = optim.SGD([p], lr=0.1)
    _set_grad(p, np.ones(3))
    opt.step()
    assert p._version > before


def test_param_groups_have_their_own_options_and_skip_missing_grads():
    a, b, c = (nn.Parameter(nabla.ones(2, dtype=nabla.float64)) for _ in range(3))
    opt = optim.SGD([{"params": [a]}, {"params": [b, c], "lr": 1.0}], lr=0.1, momentum=0.0)
    assert opt.param_groups[1]["momentum"] == 0.0 and opt.param_groups[0]["lr"] == 0.1
    _set_grad(a, np.ones(2))
    _set_grad(b, np.ones(2))
    c.grad = None
    opt.step()
    np.testing.assert_allclose(a.numpy(), 0.9)
    np.testing.assert_allclose(b.numpy(), 0.0)
    np.testing.assert_allclose(c.numpy(), 1.0)
    opt.zero_grad()
    assert a.grad is None and b.grad is None
    _set_grad(a, np.ones(2))
    opt.zero_grad(set_to_none=False)
    np.testing.assert_array_equal(a.grad.numpy(), 0.0)
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
        opt.add_param_group({"params": [a]})


def test_state_dict_round_trip_continues_identically():
    torch = pytest.importorskip("torch")
    p0 = RNG.standard_normal((3, 3))
    grads = [RNG.standard_normal((3, 3)) for _ in range(6)]
    p = nn.Parameter(nabla.tensor(p0))
    opt = optim.Adam([p], lr=0.01, amsgrad=True)
    for g in grads[:3]:
        _set_grad(p, g)
        opt.step()
    sd = opt.state_dict()
    assert sd["param_groups"][0]["params"] == [0] and set(sd["state"][0]) == {"step", "exp_avg", "exp_avg_sq",
                                                                              "max_exp_avg_sq"}
    assert sd["state"][0]["step"].item() == 3.0
    # the layout is PyTorch's: torch.optim loads it (tensors converted)
    tp = torch.nn.Parameter(torch.from_numpy(p.numpy().copy()))
    topt = torch.optim.Adam([tp], lr=0.01, amsgrad=True)
    topt.load_state_dict({"state": {0: {k: torch.from_numpy(v.numpy().copy()) for k, v in sd["state"][0].items()}},
                          "param_groups": sd["param_groups"]})
    q = nn.Parameter(nabla.tensor(p.numpy()))
    opt2 = optim.Adam([q], lr=0.5)
    opt2.load_state_dict(sd)
    assert opt2.param_groups[0]["lr"] == 0.01
    for g in grads[3:]:
        _set_grad(p, g)
        _set_grad(q, g)
        tp.grad = torch.from_numpy(g)
        opt.step()
        opt2.step()
        topt.step()
    np.testing.assert_array_equal(q.numpy(), p.numpy())
    np.testing.assert_allclose(tp.detach().numpy(), p.numpy(), rtol=1e-12)


def test_step_hooks_and_closure():
    p = nn.Parameter(nabla.zeros(1))
    opt = optim.SGD([p], lr=1.0)
    seen = []
    h = opt.register_step_pre_hook(lambda o, a, k: seen.append("pre"))
    opt.register_step_post_hook(lambda o, a, k: seen.append("post"))

    def closure():
        _set_grad(p, np.array([2.0]))
        return 42.0

    assert opt.step(closure) == 42.0
    assert seen == ["pre", "post"] and p.item() == -2.0
    h.remove()
    opt.step()
    assert seen == ["pre", "post", "post"]


def test_argument_errors_match_pytorch():
    p = [nn.Parameter(nabla.ones(1))]
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        optim.SGD(p, lr=-1)
    with pytest.raises(ValueError, match="Nesterov momentum requires a momentum and zero dampening"):
        optim.SGD(p, lr=0.1, nesterov=True)
    with pytest.raises(ValueError, match="Invalid beta parameter at index 1: 1.0"):
        optim.Adam(p, betas=(0.9, 1.0))
    with pytest.raises(ValueError, match="Invalid epsilon value: -0.1"):
        optim.AdamW(p, eps=-0.1)
    with pytest.raises(ValueError, match="optimizer got an empty parameter list"):
        optim.Adam([])
    with pytest.raises(TypeError, match="should be an iterable of Tensors or dicts"):
        optim.Adam(nabla.ones(2))
    q = nn.Parameter(nabla.ones(2, 3))
    with pytest.raises(RuntimeError, match="assigned grad has data of a different size"):
        q.grad = nabla.ones(3, 2)  # the grad setter checks first, as PyTorch's does


def test_step_kernels_check_their_operands():
    """The C steps name the op and the offending operand (status and message)."""
    from nabla._lib import ffi, lib
    p, m, v = nabla.ones(2, 3), nabla.zeros(2, 3), nabla.zeros(2, 3)
    for g, msg in [(nabla.ones(3, 2), "adam_step: expected 'grad' of the param's shape [2, 3], but got [3, 2]"),
                   (nabla.ones(2, 3, dtype=nabla.float64),
                    "adam_step: expected 'grad' to have the param's dtype float32, but got float64")]:
        status = lib.nb_adam_step(p._h, g._h, m._h, v._h, ffi.NULL, 1, 0.1, 0.9, 0.999, 1e-8, 0.0, 0, 0, 0)
        assert status != 0 and ffi.string(lib.nb_last_error_message()).decode() == msg
    status = lib.nb_adam_step(p._h, p._h, m._h, v._h, ffi.NULL, 0, 0.1, 0.9, 0.999, 1e-8, 0.0, 0, 0, 0)
    assert status == lib.NB_ERR_INVALID_ARGUMENT
    assert ffi.string(lib.nb_last_error_message()) == b"adam_step: step must be >= 1, got 0"
    status = lib.nb_sgd_step(p._h, p._h, ffi.NULL, 0.1, 0.9, 0.0, 0.0, 0, 0, 1)
    assert ffi.string(lib.nb_last_error_message()) == b"sgd_step: momentum 0.9 needs a momentum_buffer"
    i = nabla.ones(2, 3, dtype=nabla.int64)
    assert lib.nb_adagrad_step(i._h, i._h, i._h, 1, 0.1, 0.0, 1e-10, 0.0, 0) == lib.NB_ERR_DTYPE
    assert ffi.string(lib.nb_last_error_message()) == b"adagrad_step: not implemented for 'int64'"
    np.testing.assert_array_equal(p.numpy(), 1.0)  # nothing written on failure


def test_step_outside_the_optimizer_refuses_to_write_a_leaf_that_requires_grad():
    from nabla._lib import ffi, lib
    p = nn.Parameter(nabla.ones(2))
    g, buf = nabla.ones(2), nabla.zeros(2)
    assert lib.nb_sgd_step(p._h, g._h, buf._h, 0.1, 0.0, 0.0, 0.0, 0, 0, 0) != 0
    with nabla.no_grad():
        assert lib.nb_sgd_step(p._h, g._h, buf._h, 0.1, 0.0, 0.0, 0.0, 0, 0, 0) == 0
    np.testing.assert_allclose(p.detach().numpy(), 0.9)


# ---- gradient clipping ----

def test_clip_grad_norm_matches_numpy_and_torch():
    torch = pytest.importorskip("torch")
    gs = [RNG.standard_normal((3, 4)).astype(np.float32), RNG.standard_normal(5).astype(np.float32)]
    for norm_type in (2.0, 1.0, 3.0, float("inf")):
        ps = [nn.Parameter(nabla.zeros(*g.shape)) for g in gs]
        for p, g in zip(ps, gs):
            p.grad = nabla.tensor(g)
        tps = [torch.nn.Parameter(torch.zeros(*g.shape)) for g in gs]
        for p, g in zip(tps, gs):
            p.grad = torch.from_numpy(g.copy())
        total = nn.utils.clip_grad_norm_(ps, max_norm=1.0, norm_type=norm_type)
        ttotal = torch.nn.utils.clip_grad_norm_(tps, max_norm=1.0, norm_type=norm_type)
        flat = np.concatenate([g.ravel() for g in gs]).astype(np.float64)
        want = np.abs(flat).max() if math.isinf(norm_type) else (np.abs(flat) ** norm_type).sum() ** (1 / norm_type)
        assert total.dtype == nabla.float32 and total.dim() == 0
        np.testing.assert_allclose(total.item(), want, rtol=1e-5)
        np.testing.assert_allclose(total.item(), ttotal.item(), rtol=1e-5)
        for p, tp in zip(ps, tps):
            np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), rtol=1e-5)
    p = nn.Parameter(nabla.zeros(2))
    p.grad = nabla.tensor([0.3, 0.4])
    assert abs(nn.utils.clip_grad_norm_(p, 10.0).item() - 0.5) < 1e-6
    np.testing.assert_allclose(p.grad.numpy(), [0.3, 0.4], rtol=1e-6)  # under max_norm: unchanged
    p.grad = nabla.tensor([float("inf"), 1.0])
    with pytest.raises(RuntimeError, match="non-finite"):
        nn.utils.clip_grad_norm_(p, 1.0, error_if_nonfinite=True)
    assert nn.utils.clip_grad_norm_([], 1.0).item() == 0.0


def test_clip_grad_value_and_get_total_norm():
    p = nn.Parameter(nabla.zeros(3))
    p.grad = nabla.tensor([-2.0, 0.5, 3.0])
    nn.utils.clip_grad_value_([p], 1.0)
    np.testing.assert_array_equal(p.grad.numpy(), [-1.0, 0.5, 1.0])
    total = nn.utils.get_total_norm([nabla.tensor([3.0]), nabla.tensor([4.0])])
    assert total.item() == 5.0
