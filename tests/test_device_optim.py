"""The optimizers' update steps and clip_grad_norm_ on every device (the `device`
fixture: CPU always, CUDA when there is one), against PyTorch on the CPU: SGD
(momentum, dampening, nesterov, weight decay, maximize), Adam / AdamW (amsgrad),
RMSprop (centered, momentum) and Adagrad (lr decay), three steps each on float32
and float64 parameters of two shapes, including a strided one; clip_grad_norm_ for
norm types 2, 1, inf, 0 (PyTorch's: the count of gradients with a non-zero entry) and 3,
returning the norm on the gradients' device. The list calls (one per param group): a
group of several parameters of different shapes and dtypes (float16 / bfloat16 included),
strided, empty and 0-dim ones, one without a gradient, over four steps against torch;
bad input in the last tensor changes nothing; a group spanning devices; clip_grad_norm_
and clip_grad_value_ over such a list, and clip_grad_norm_ on a device queued behind
earlier work without waiting for it (no host synchronisation)."""
from __future__ import annotations

import numpy as np
import pytest

import nabla
from nabla._lib import ffi, lib

torch = pytest.importorskip("torch")

OPTIMIZERS = {
    "sgd": ("SGD", dict(lr=0.1)),
    "sgd_momentum": ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.1, weight_decay=0.01)),
    "sgd_nesterov": ("SGD", dict(lr=0.05, momentum=0.8, nesterov=True, maximize=True)),
    "adam": ("Adam", dict(lr=0.01)),
    "adam_l2_amsgrad": ("Adam", dict(lr=0.01, weight_decay=0.1, amsgrad=True)),
    "adamw": ("AdamW", dict(lr=0.01, weight_decay=0.05, maximize=True)),
    "rmsprop": ("RMSprop", dict(lr=0.01)),
    "rmsprop_centered": ("RMSprop", dict(lr=0.01, centered=True, momentum=0.5, weight_decay=0.01)),
    "adagrad": ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.02)),
}
DTYPES = {"float32": (nabla.float32, torch.float32, 1e-5), "float64": (nabla.float64, torch.float64, 1e-12)}
# A mixed group: (shape, dtype, strided, tolerance against torch in float32 / float64 on the CPU).
GROUP = [((4, 3), "float32", False, 1e-5), ((3, 5), "float64", True, 1e-12), ((0, 2), "float32", False, 0),
         ((), "float64", False, 1e-12), ((6,), "float16", False, 2e-2), ((2, 3), "bfloat16", True, 6e-2),
         ((5,), "float32", False, 0)]


def _train(lib, name, dtype, device, steps=3):
    cls, kwargs = OPTIMIZERS[name]
    rng = np.random.default_rng(3)
    kw = {"device": device} if lib is nabla else {}
    a = lib.tensor(rng.standard_normal((4, 3)), dtype=dtype, **kw).requires_grad_(True)
    b = lib.tensor(rng.standard_normal((3, 5)), dtype=dtype, **kw).t().requires_grad_(True)  # strided
    opt = getattr(lib.optim, cls)([a, b], **kwargs)
    for s in range(steps):
        opt.zero_grad()
        ((a.sum(0) - 1) ** 2).sum().backward()
        ((b * (s + 1)).sin().sum()).backward()
        opt.step()
    return a, b


@pytest.mark.parametrize("dtype", sorted(DTYPES))
@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_steps_match_torch(device, name, dtype):
    nd, td, tol = DTYPES[dtype]
    ours = _train(nabla, name, nd, device)
    theirs = _train(torch, name, td, "cpu")
    for x, y in zip(ours, theirs):
        assert x.device.type == device and x.dtype == nd
        np.testing.assert_allclose(x.detach().cpu().numpy(), y.detach().numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("norm_type", [2.0, 1.0, float("inf"), 0.0, 3.0])
def test_clip_grad_norm_matches_torch(device, norm_type):
    def run(lib, dev):
        kw = {"device": dev} if lib is nabla else {}
        ps = [lib.tensor(np.linspace(-2, 3, 12).reshape(3, 4), **kw).requires_grad_(True),
              lib.tensor(np.array([0.0, 5.0, -1.0]), **kw).requires_grad_(True),
              lib.tensor(np.zeros(2), **kw).requires_grad_(True)]  # no contribution (L0: not counted)
        (ps[0] ** 2).sum().backward()
        (ps[1] * 3).sum().backward()
        (ps[2] * 0).sum().backward()
        total = lib.nn.utils.clip_grad_norm_(ps, max_norm=1.5, norm_type=norm_type)
        return total, [p.grad for p in ps]

    total, grads = run(nabla, device)
    ttotal, tgrads = run(torch, "cpu")
    assert total.device.type == device
    np.testing.assert_allclose(float(total), float(ttotal), rtol=1e-12)
    for g, tg in zip(grads, tgrads):
        np.testing.assert_allclose(g.cpu().numpy(), tg.numpy(), rtol=1e-12, atol=1e-12)


def test_bad_input(device):
    p = nabla.zeros(3, device=device, requires_grad=True)
    p.grad = nabla.ones(3, device=device)
    if device != "cpu":
        p2 = nabla.zeros(3, requires_grad=True)
        p2.grad = nabla.ones(3)
        with pytest.raises(RuntimeError, match="same device"):
            nabla.nn.utils.clip_grad_norm_([p, p2], 1.0)
    with pytest.raises(RuntimeError, match="non-finite"):
        p.grad = nabla.tensor([1.0, float("inf"), 0.0], device=device)
        nabla.nn.utils.clip_grad_norm_([p], 1.0, error_if_nonfinite=True)


def _group(lib, device, seed=5):
    """GROUP's parameters with gradients (the last one has none: skipped); halves are float32 for torch."""
    rng = np.random.default_rng(seed)
    ps = []
    for i, (shape, dt, strided, _) in enumerate(GROUP):
        dtype = getattr(lib, dt) if lib is nabla else getattr(torch, dt if "16" not in dt else "float32")
        kw = {"device": device} if lib is nabla else {}
        full = shape[::-1] if strided else shape
        x = lib.tensor(rng.standard_normal(full), dtype=dtype, **kw)
        p = (x.t() if strided else x).detach().requires_grad_(True)
        if i < len(GROUP) - 1:
            p.grad = lib.tensor(rng.standard_normal(p.shape), dtype=dtype, **kw)
        ps.append(p)
    return ps


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_mixed_group_trajectory_matches_torch(device, name):
    cls, kwargs = OPTIMIZERS[name]
    ours, theirs = _group(nabla, device), _group(torch, "cpu")
    opt, topt = getattr(nabla.optim, cls)(ours, **kwargs), getattr(torch.optim, cls)(theirs, **kwargs)
    for _ in range(4):
        opt.step()
        topt.step()
    for p, t, (shape, dt, _, tol) in zip(ours, theirs, GROUP):
        assert p.shape == tuple(shape) and p.dtype == getattr(nabla, dt) and p.device.type == device
        np.testing.assert_allclose(p.detach().float().cpu().numpy(), t.detach().float().numpy(), rtol=tol, atol=tol)


def test_list_call_changes_nothing_on_bad_input(device):
    ps = _group(nabla, device)[:4]
    opt = nabla.optim.Adam(ps, lr=0.1)
    opt.step()
    opt.state[ps[3]]["exp_avg_sq"] = nabla.zeros(2, dtype=nabla.float64, device=device)  # the last tensor's state
    before = [p.detach().cpu().numpy().copy() for p in ps]
    with pytest.raises(RuntimeError, match=r"adam_step_list: expected 'exp_avg_sqs\[3\]' of the param's shape"):
        opt.step()
    for p, b in zip(ps, before):
        np.testing.assert_array_equal(p.detach().cpu().numpy(), b)
    assert all(opt.state[p]["step"] == 1 for p in ps)


def test_group_spanning_devices(device):
    if device == "cpu":
        pytest.skip("needs a second device")
    ps = [nabla.ones(3, device=device, requires_grad=True), nabla.ones(2, requires_grad=True)]
    for p in ps:
        p.grad = nabla.full(p.shape, 2.0, device=p.device)
    nabla.optim.SGD(ps, lr=0.25, momentum=0.5).step()
    for p in ps:
        np.testing.assert_array_equal(p.detach().cpu().numpy(), 0.5)
    other = ps[1].grad[:1]  # kept alive while its handle is in use
    params, grads = ffi.new("nb_tensor*[]", [ps[0]._h]), ffi.new("nb_tensor*[]", [other._h])
    with nabla.no_grad():
        assert lib.nb_sgd_step_list(params, grads, ffi.NULL, 1, 0.1, 0, 0, 0, 0, 0, 0) == lib.NB_ERR_DEVICE
    assert "sgd_step_list: expected all tensors to be on the same device" in ffi.string(
        lib.nb_last_error_message()).decode()


@pytest.mark.parametrize("norm_type,picks", [(2.0, [0, 1, 2, 3]), (float("inf"), [0, 1, 3])])  # torch: no inf
def test_clip_over_a_mixed_list_matches_torch(device, norm_type, picks):                          # norm of []
    ours, theirs = _group(nabla, device), _group(torch, "cpu")  # f32 first: the norm's dtype
    ours, theirs = [ours[i] for i in picks], [theirs[i] for i in picks]
    total = nabla.nn.utils.clip_grad_norm_(ours, 0.5, norm_type)
    ttotal = torch.nn.utils.clip_grad_norm_(theirs, 0.5, norm_type, foreach=False)
    assert total.device.type == device and total.dtype == nabla.float32
    np.testing.assert_allclose(float(total), float(ttotal), rtol=1e-6)
    for p, t in zip(ours, theirs):
        np.testing.assert_allclose(p.grad.cpu().numpy(), t.grad.numpy(), rtol=1e-6, atol=1e-7)
    nabla.nn.utils.clip_grad_value_(ours, 0.01)
    torch.nn.utils.clip_grad_value_(theirs, 0.01)
    for p, t in zip(ours, theirs):
        np.testing.assert_allclose(p.grad.cpu().numpy(), t.grad.numpy(), rtol=1e-6)


def test_clip_grad_norm_does_not_wait_for_the_device(device):
    """clip_grad_norm_ queued behind a long computation returns while it still runs: a host read of the norm
    (a synchronisation) would have waited for it. error_if_nonfinite needs the norm, so it waits."""
    if device == "cpu":
        pytest.skip("a device's stream")
    emulated = "emulated" in nabla.cuda.get_device_name()
    n, reps = (96, 6) if emulated else (4096, 40)
    a = nabla.randn(n, n, device=device)
    p = nabla.zeros(3, device=device, requires_grad=True)

    def clip_behind_work(**kw):
        p.grad = nabla.tensor([3.0, 0.0, 4.0], device=device)
        nabla.cuda.synchronize()
        b = a
        for _ in range(reps):
            b = b @ a / n
        done = nabla.cuda.Event()
        done.record()
        total = nabla.nn.utils.clip_grad_norm_([p], 1.0, **kw)
        return total, done.query()

    for _ in range(3):  # the work may, rarely, finish first
        total, finished = clip_behind_work()
        if not finished:
            break
    assert not finished, "clip_grad_norm_ waited for the work queued before it"
    assert total.device.type == device
    np.testing.assert_allclose(float(total), 5.0, rtol=1e-6)
    np.testing.assert_allclose(p.grad.cpu().numpy(), np.array([3.0, 0.0, 4.0]) / (5.0 + 1e-6), rtol=1e-6)
    assert clip_behind_work(error_if_nonfinite=True)[1]


def test_many_tensors_and_long_ones(device):
    """More tensors than one launch takes (24 with five operands, 64 with one) and tensors of several
    16K-element chunks, through Adam with amsgrad and clip_grad_norm_ of orders 2 and 0."""
    rng = np.random.default_rng(9)
    shapes = [(int(rng.integers(1, 40)),) for _ in range(70)] + [(40000,), (3, 16385)]
    values = [rng.standard_normal(s) for s in shapes]
    grads = [rng.standard_normal(s) * (i % 5 != 0) for i, s in enumerate(shapes)]  # some all zero (L0)

    def run(lib, dev):
        kw = {"device": dev} if lib is nabla else {}
        ps = [lib.tensor(v, dtype=lib.float32, **kw).requires_grad_(True) for v in values]
        for p, g in zip(ps, grads):
            p.grad = lib.tensor(g, dtype=lib.float32, **kw)
        opt = lib.optim.Adam(ps, lr=0.01, amsgrad=True)
        opt.step()
        opt.step()
        norms = [lib.nn.utils.clip_grad_norm_(ps, 1.0, norm_type=t) for t in (0.0, 2.0)]
        return ps, norms

    (ours, norms), (theirs, tnorms) = run(nabla, device), run(torch, "cpu")
    for n, t in zip(norms, tnorms):
        np.testing.assert_allclose(float(n), float(t), rtol=1e-5)
    for p, t in zip(ours, theirs):
        np.testing.assert_allclose(p.detach().cpu().numpy(), t.detach().numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(p.grad.cpu().numpy(), t.grad.numpy(), rtol=1e-5, atol=1e-7)
