"""nabla.amp.GradScaler against torch.amp.GradScaler("cpu"): the same scale, growth tracker,
skipped steps and parameters, step by step, with infs and NaNs injected; the fused
unscale op on every float dtype and layout; PyTorch's errors."""
from __future__ import annotations

import pickle

import numpy as np
import pytest

import nabla as nb
from nabla._lib import ffi, lib
from nabla.profiler import profile

torch = pytest.importorskip("torch")

OPTIMIZERS = [("SGD", dict(lr=0.1, momentum=0.9)), ("Adam", dict(lr=0.01)), ("AdamW", dict(lr=0.01)),
              ("RMSprop", dict(lr=0.01)), ("Adagrad", dict(lr=0.1))]


def run(lib_, opt_name, opt_kw, inject, steps=12):
    rng = np.random.default_rng(0)
    w1 = lib_.nn.Parameter(lib_.from_numpy(rng.standard_normal((4, 3)).astype(np.float32)))
    w2 = lib_.nn.Parameter(lib_.from_numpy(rng.standard_normal(3).astype(np.float32)))
    x = lib_.from_numpy(rng.standard_normal((5, 4)).astype(np.float32))
    opt = getattr(lib_.optim, opt_name)([w1, w2], **opt_kw)
    amp = nb.amp if lib_ is nb else torch.amp
    scaler = amp.GradScaler("cpu", init_scale=2.0 ** 10, growth_interval=3)
    trace = []
    for i in range(steps):
        opt.zero_grad()
        loss = ((x @ w1) * w2).pow(2).sum()
        scaler.scale(loss).backward()
        if i in inject:
            w1.grad[1, 2] = inject[i]
        scaler.step(opt)
        scaler.update()
        trace.append((scaler.get_scale(), scaler._get_growth_tracker(),
                      w1.detach().numpy().copy(), w2.detach().numpy().copy()))
    return trace, scaler


@pytest.mark.parametrize("opt_name,opt_kw", OPTIMIZERS)
def test_matches_torch_with_injected_infs(opt_name, opt_kw):
    inject = {2: float("inf"), 3: float("nan"), 7: float("-inf")}
    ours, scaler = run(nb, opt_name, opt_kw, inject)
    theirs, tscaler = run(torch, opt_name, opt_kw, inject)
    # float32 parameters after up to 12 steps of sums each library orders its own way
    # (and by its thread count): a few float32 ulps of the largest value apart
    for i, ((s, g, a1, a2), (ts, tg, b1, b2)) in enumerate(zip(ours, theirs)):
        assert (s, g) == (ts, tg), f"step {i}"
        np.testing.assert_allclose(a1, b1, rtol=1e-5, atol=1e-6, err_msg=f"step {i}")
        np.testing.assert_allclose(a2, b2, rtol=1e-5, atol=1e-6, err_msg=f"step {i}")
    # skipped steps leave the parameters exactly as they were
    for i in inject:
        assert np.array_equal(ours[i][2], ours[i - 1][2])
    assert scaler.state_dict() == tscaler.state_dict()
    assert [t[0] for t in ours][:5] == [1024.0, 1024.0, 512.0, 256.0, 256.0]


def test_unscale_then_clip_like_torch():
    rng = np.random.default_rng(1)
    grads_np = [np.asarray(rng.standard_normal(s) * 1000, dtype=np.float32) for s in ((3, 4), (5,), ())]
    res = []
    for lib_, amp in ((nb, nb.amp), (torch, torch.amp)):
        ps = [lib_.nn.Parameter(lib_.zeros(g.shape)) for g in grads_np]
        for p, g in zip(ps, grads_np):
            p.grad = lib_.from_numpy(g.copy())
        opt = lib_.optim.SGD(ps, lr=1.0)
        s = amp.GradScaler("cpu", init_scale=256.0)
        s.scale(lib_.ones(()))
        s.unscale_(opt)
        unscaled = [p.grad.numpy().copy() for p in ps]
        norm = lib_.nn.utils.clip_grad_norm_(ps, 1.0)
        res.append((unscaled, float(norm), [p.grad.numpy().copy() for p in ps]))
    for a, b in zip(res[0][0], res[1][0]):
        np.testing.assert_array_equal(a, b)  # unscaling: bit for bit
    assert res[0][1] == pytest.approx(res[1][1], rel=1e-6)
    for a, b in zip(res[0][2], res[1][2]):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_unscale_is_one_fused_call_whatever_the_parameter_count():
    ps = [nb.nn.Parameter(nb.ones(3)) for _ in range(20)]
    for p in ps:
        p.grad = nb.ones(3)
    opt = nb.optim.SGD(ps, lr=0.1)
    s = nb.amp.GradScaler("cpu")
    s.scale(nb.ones(()))
    with profile() as prof:
        s.unscale_(opt)
    counts = {e.key: e.count for e in prof.key_averages()}
    assert counts["nabla::amp_foreach_non_finite_check_and_unscale_"] == 1
    assert sum(counts.values()) < 10  # no per-parameter work beside the fused op


def _fused(grads, inv):
    found = nb.zeros(1)
    inv_t = nb.full((1,), inv)
    status = lib.nb_amp_foreach_non_finite_check_and_unscale_(ffi.new("nb_tensor*[]", [g._h for g in grads]),
                                                               len(grads), found._h, inv_t._h)
    return status, found


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_fused_unscale_every_float_dtype_and_layout(dtype, layout):
    rng = np.random.default_rng(2)
    base = rng.standard_normal((6, 5)).astype(np.float32)
    for bad in (None, float("inf"), float("nan")):
        v = base.copy()
        if bad is not None:
            v[3, 1] = bad
        g = nb.from_numpy(v).to(getattr(nb, dtype))
        tg = torch.from_numpy(v).to(getattr(torch, dtype))
        if layout == "transposed":
            g, tg = g.t(), tg.t()
        status, found = _fused([g, nb.ones(2, dtype=getattr(nb, dtype))], 0.125)
        assert status == 0
        tfound = torch.zeros(1)
        torch._amp_foreach_non_finite_check_and_unscale_([tg], tfound, torch.full((1,), 0.125))
        assert found.item() == tfound.item() == (0.0 if bad is None else 1.0)
        np.testing.assert_array_equal(g.float().numpy(), tg.float().numpy())
    # found_inf is never cleared by a clean pass
    found, g, one = nb.ones(1), nb.ones(2), nb.ones(1)
    lib.nb_amp_foreach_non_finite_check_and_unscale_(ffi.new("nb_tensor*[]", [g._h]), 1, found._h, one._h)
    assert found.item() == 1.0


def test_update_scale_op_matches_torch():
    for found_seq in ([0, 0, 0, 1, 0, 0, 0], [1, 1, 0, 0, 0, 0]):
        s, t = nb.full((1,), 3.0e38), nb.zeros(1, dtype=nb.int32)
        ts, tt = torch.full((1,), 3.0e38), torch.zeros(1, dtype=torch.int32)
        for f in found_seq:
            assert lib.nb_amp_update_scale_(s._h, t._h, nb.full((1,), float(f))._h, 2.0, 0.5, 3) == 0
            torch._amp_update_scale_(ts, tt, torch.full((1,), float(f)), 2.0, 0.5, 3)
            assert (s.item(), t.item()) == (ts.item(), tt.item())  # growth that overflows keeps the scale


def test_errors():
    status, _ = _fused([nb.ones(2, dtype=nb.int64)], 0.5)
    assert status == lib.NB_ERR_DTYPE
    assert "gradients must be floating point, but gradient 0 is int64" in ffi.string(lib.nb_last_error_message()).decode()
    g, f64, one = nb.ones(3), nb.zeros(1, dtype=nb.float64), nb.ones(1)
    st = lib.nb_amp_foreach_non_finite_check_and_unscale_(ffi.new("nb_tensor*[]", [g._h]), 1, f64._h, one._h)
    assert st == lib.NB_ERR_DTYPE and "found_inf must be a float32 tensor" in \
        ffi.string(lib.nb_last_error_message()).decode()
    assert g.numpy().tolist() == [1, 1, 1]
    scale, tracker, zero = nb.ones(1), nb.zeros(1, dtype=nb.int32), nb.zeros(1)
    assert lib.nb_amp_update_scale_(scale._h, tracker._h, zero._h, 0.5, 0.5, 1) == lib.NB_ERR_INVALID_ARGUMENT
    assert "expected growth_factor > 1" in ffi.string(lib.nb_last_error_message()).decode()

    p = nb.nn.Parameter(nb.ones(2))
    opt = nb.optim.SGD([p], lr=0.1)
    s = nb.amp.GradScaler("cpu")
    with pytest.raises(AssertionError, match="Attempted step but _scale is None"):
        s.step(opt)
    s.scale(p.sum()).backward()
    s.unscale_(opt)
    with pytest.raises(RuntimeError, match="unscale_\\(\\) has already been called"):
        s.unscale_(opt)
    s.step(opt)
    with pytest.raises(RuntimeError, match="unscale_\\(\\) is being called after step\\(\\)"):
        s.unscale_(opt)
    with pytest.raises(RuntimeError, match="Closure use is not currently supported"):
        s.step(opt, closure=lambda: 0)
    s.update()
    p16 = nb.nn.Parameter(nb.ones(2, dtype=nb.float16))
    p16.grad = nb.ones(2, dtype=nb.float16)
    with pytest.raises(ValueError, match="Attempting to unscale FP16 gradients."):
        s.unscale_(nb.optim.SGD([p16], lr=0.1))
    with pytest.raises(RuntimeError, match="The source state dict is empty"):
        nb.amp.GradScaler("cpu").load_state_dict({})


def test_state_dict_pickle_and_disabled():
    s = nb.amp.GradScaler("cpu", init_scale=64.0, growth_interval=5)
    s.scale(nb.ones(()))
    s2 = nb.amp.GradScaler("cpu")
    s2.load_state_dict(s.state_dict())
    assert s2.get_scale() == 64.0 and s2.get_growth_interval() == 5
    s3 = pickle.loads(pickle.dumps(s))
    assert s3.get_scale() == 64.0
    off = nb.amp.GradScaler("cpu", enabled=False)
    t = nb.ones(2)
    assert off.scale(t) is t and off.state_dict() == {} and off.get_scale() == 1.0
    if not nb.cuda.is_available():
        with pytest.warns(UserWarning, match="CUDA is not available"):
            assert not nb.amp.GradScaler().is_enabled()


def test_device_gradients_match_the_cpu(device):
    """On a device the fused op and the update run as queued ops: same results as on the CPU."""
    v = np.array([[1.0, np.inf, 3.0], [4.0, 5.0, 6.0]], dtype=np.float32)
    res = []
    for dev in ("cpu", device):
        g = nb.from_numpy(v.copy()).to(dev).t()  # strided, so the CPU takes the op path too
        found, inv = nb.zeros(1, device=dev), nb.full((1,), 0.5, device=dev)
        assert lib.nb_amp_foreach_non_finite_check_and_unscale_(ffi.new("nb_tensor*[]", [g._h]), 1, found._h,
                                                                 inv._h) == 0
        scale, tracker = nb.full((1,), 8.0, device=dev), nb.full((1,), 2, dtype=nb.int32, device=dev)
        assert lib.nb_amp_update_scale_(scale._h, tracker._h, found._h, 2.0, 0.5, 3) == 0
        zero = nb.zeros(1, device=dev)
        assert lib.nb_amp_update_scale_(scale._h, tracker._h, zero._h, 2.0, 0.5, 1) == 0
        res.append((g.cpu().numpy().tolist(), found.item(), scale.item(), tracker.item()))
    assert res[0] == res[1]
    assert res[0][1:] == (1.0, 8.0, 0)
