"""Autocast: the dtype every op category runs in under nabla.autocast("cpu") against
torch.autocast("cpu") for the same calls, the weight-cast cache, nesting, threads, the
decorator and aliases, gradients, PyTorch's warnings and errors, and a bf16 training run
of the transformer example reaching the float32 loss."""
from __future__ import annotations

import sys
import threading
import warnings
from pathlib import Path

import numpy as np
import pytest

import nabla as nb
from nabla._lib import lib
from nabla.profiler import profile

torch = pytest.importorskip("torch")


def calls(T, dt):
    """name -> a call of that op, written once for nabla and PyTorch (T is the module)."""
    F = T.nn.functional
    r = np.random.default_rng(0)

    def t(*shape, lo=-1.0, hi=1.0):
        return T.from_numpy(r.uniform(lo, hi, shape).astype(np.float32)).to(dt)

    a, b, v, b3 = t(4, 4), t(4, 4), t(4), t(2, 4, 4)
    x4, w4, x3, w3 = t(1, 2, 5, 5), t(3, 2, 3, 3), t(1, 2, 5), t(3, 2, 3)
    pos, prob = t(4, 4, lo=0.5, hi=1.5), t(4, 4, lo=0.1, hi=0.9)
    tgt = T.from_numpy(np.array([0, 1, 2, 3]))
    spd = (a @ a.T + 4 * T.eye(4).to(dt)) if dt != T.bfloat16 else None
    return {
        "lower": {
            "matmul": lambda: a @ b, "mm": lambda: T.mm(a, b), "bmm": lambda: T.bmm(b3, b3),
            "addmm": lambda: T.addmm(a, a, b), "baddbmm": lambda: T.baddbmm(b3, b3, b3),
            "linear": lambda: F.linear(a, b, v), "conv1d": lambda: F.conv1d(x3, w3),
            "conv2d": lambda: F.conv2d(x4, w4), "conv_transpose2d": lambda: F.conv_transpose2d(x4, w4.transpose(0, 1)),
            "scaled_dot_product_attention": lambda: F.scaled_dot_product_attention(b3, b3, b3)},
        "fp32": {
            "prod": lambda: a.prod(), "nll_loss": lambda: F.nll_loss(a, tgt), "cross_entropy": lambda: F.cross_entropy(a, tgt),
            "mse_loss": lambda: F.mse_loss(a, b), "l1_loss": lambda: F.l1_loss(a, b),
            "smooth_l1_loss": lambda: F.smooth_l1_loss(a, b), "huber_loss": lambda: F.huber_loss(a, b),
            "binary_cross_entropy": lambda: F.binary_cross_entropy(prob, prob),
            "binary_cross_entropy_with_logits": lambda: F.binary_cross_entropy_with_logits(a, prob),
            "kl_div": lambda: F.kl_div(a, prob, reduction="batchmean")},
        "fp32 (linalg, float32 inputs)": {
            "linalg.inv": lambda: T.linalg.inv(spd), "linalg.solve": lambda: T.linalg.solve(spd, a),
            "linalg.cholesky": lambda: T.linalg.cholesky(spd), "linalg.qr": lambda: T.linalg.qr(spd)[0],
            "linalg.eigh": lambda: T.linalg.eigh(spd)[0], "linalg.svd": lambda: T.linalg.svd(spd)[1],
            "linalg.det": lambda: T.linalg.det(spd)},
        "as is": {
            "mv": lambda: T.mv(a, v), "dot": lambda: T.dot(v, v), "outer": lambda: T.outer(v, v),
            "exp": lambda: a.exp(), "log": lambda: pos.log(), "pow": lambda: pos.pow(pos), "rsqrt": lambda: pos.rsqrt(),
            "softplus": lambda: F.softplus(a), "layer_norm": lambda: F.layer_norm(a, (4,)),
            "group_norm": lambda: F.group_norm(x4, 2), "sum": lambda: a.sum(), "mean": lambda: a.mean(),
            "cumsum": lambda: a.cumsum(0), "softmax": lambda: a.softmax(-1), "log_softmax": lambda: a.log_softmax(-1),
            "logsumexp": lambda: a.logsumexp(-1), "norm": lambda: a.norm(), "relu": lambda: a.relu(),
            "gelu": lambda: F.gelu(a), "tanh": lambda: a.tanh(), "add": lambda: a + b, "mul": lambda: a * b,
            "max_pool2d": lambda: F.max_pool2d(x4, 2), "avg_pool2d": lambda: F.avg_pool2d(x4, 2),
            "atan2": lambda: T.atan2(a, b), "amax": lambda: a.amax()},
    }


def dtype_name(x):
    return str(x.dtype).split(".")[-1]


def table(low: str):
    rows = []
    for in_dt in ("float32", "bfloat16", "float16"):
        ours_calls, theirs_calls = calls(nb, getattr(nb, in_dt)), calls(torch, getattr(torch, in_dt))
        for cat, ops in ours_calls.items():
            if "linalg" in cat and in_dt != "float32":
                continue
            for name, fn in ops.items():
                with nb.autocast("cpu", dtype=getattr(nb, low)):
                    ours = dtype_name(fn())
                with torch.autocast("cpu", dtype=getattr(torch, low)):
                    theirs = dtype_name(theirs_calls[cat][name]())
                rows.append((cat, name, in_dt, ours, theirs))
    return rows


@pytest.mark.parametrize("low", ["bfloat16", "float16"])
def test_every_op_category_runs_in_the_dtype_torch_chooses(low):
    rows = table(low)
    wrong = [r for r in rows if r[3] != r[4]]
    assert wrong == [], wrong
    by_cat = {}
    for cat, name, in_dt, ours, _ in rows:
        by_cat.setdefault((cat, in_dt), set()).add(ours)
    assert by_cat[("lower", "float32")] == {low}
    assert by_cat[("fp32", "bfloat16")] == {"float32"} and by_cat[("fp32", "float16")] == {"float32"}
    assert by_cat[("as is", "float32")] == {"float32"} and by_cat[("as is", "bfloat16")] == {"bfloat16"}


def test_promote_float64_and_out_variants_as_torch():
    def run(T):
        a32, a16, a64 = T.ones(2, 3), T.ones(2, 3, dtype=T.bfloat16), T.ones(3, 2, dtype=T.float64)
        with T.autocast("cpu"):
            out = [T.cat([a32, a16]), T.stack([a16, a32]), a64.t() @ a64,  # float64 is never cast
                   T.matmul(a32, a32.t(), out=T.empty(2, 2))]               # out= runs as written
            with pytest.raises(RuntimeError, match="expected m1 and m2 to have the same dtype"):
                a32 @ a64                                                    # bf16 @ float64
        return [dtype_name(x) for x in out]
    assert run(nb) == run(torch) == ["float32", "float32", "float64", "float32"]


def test_gradients_reach_float32_weights_and_match_manual_casts():
    nb.manual_seed(0)
    lin = nb.nn.Linear(8, 4)
    x = nb.randn(3, 8)
    with nb.autocast("cpu"):
        y = lin(x)
        loss = nb.nn.functional.mse_loss(y, nb.zeros(3, 4))
    assert y.dtype == nb.bfloat16 and loss.dtype == nb.float32
    loss.backward()
    assert lin.weight.grad.dtype == nb.float32
    w, b = lin.weight.detach().clone().requires_grad_(), lin.bias.detach().clone().requires_grad_()
    y2 = nb.nn.functional.linear(x.bfloat16(), w.bfloat16(), b.bfloat16())
    nb.nn.functional.mse_loss(y2.float(), nb.zeros(3, 4)).backward()
    assert np.array_equal(lin.weight.grad.numpy(), w.grad.numpy())
    assert np.array_equal(lin.bias.grad.numpy(), b.grad.numpy())


def count_casts(fn):
    """Casts of float32 tensors (the bf16 kernels make casts of their own, of bf16 tensors)."""
    with profile(record_shapes=True) as prof:
        fn()
    return sum(e.name == "nabla::tensor_to" and e.input_dtypes == ["float32"] for e in prof.events())


def test_weight_casts_are_cached_for_the_region():
    w = nb.randn(4, 4, requires_grad=True)   # a weight: cached
    x = nb.randn(4, 4)                        # an activation: cast each time

    def region(cache=None):
        kw = {} if cache is None else {"cache_enabled": cache}
        with nb.autocast("cpu", **kw):
            for _ in range(3):
                x @ w
    assert count_casts(region) == 3 + 1
    assert count_casts(region) == 3 + 1      # the outermost exit dropped the cache: cast again
    assert count_casts(lambda: region(False)) == 3 + 3
    with nb.autocast("cpu"):
        x @ w
        with nb.autocast("cpu"):
            pass                              # an inner exit keeps the cache
        assert count_casts(lambda: x @ w) == 1
    assert lib.nb_autocast_increment_nesting() == 1 and lib.nb_autocast_decrement_nesting() == 0


def test_nesting_disabling_decorator_threads_and_aliases():
    a = nb.randn(3, 3)
    with nb.autocast("cpu"):
        with nb.autocast("cpu", enabled=False):
            assert not nb.is_autocast_enabled("cpu") and (a @ a).dtype == nb.float32
        with nb.autocast("cpu", dtype=nb.float16):
            assert (a @ a).dtype == nb.float16
        assert (a @ a).dtype == nb.bfloat16 and nb.get_autocast_dtype("cpu") == nb.bfloat16
        seen = []
        th = threading.Thread(target=lambda: seen.append((nb.is_autocast_enabled("cpu"), (a @ a).dtype)))
        th.start()
        th.join()
        assert seen == [(False, nb.float32)]  # per thread, as PyTorch
    assert not nb.is_autocast_enabled("cpu") and not nb.is_autocast_enabled()

    @nb.autocast("cpu")
    def f(x):
        return x @ x
    assert f(a).dtype == nb.bfloat16 and (a @ a).dtype == nb.float32
    import nabla.cpu.amp
    import nabla.cuda.amp
    with nb.cpu.amp.autocast():
        assert (a @ a).dtype == nb.bfloat16
    with nb.amp.autocast("cpu", dtype=nb.float16):
        assert (a @ a).dtype == nb.float16
    assert nabla.cuda.amp.autocast is nb.cuda.amp.autocast and nb.cuda.amp.GradScaler is nb.amp.GradScaler


def test_backward_runs_without_autocast():
    x = nb.randn(4, 4, requires_grad=True)
    with nb.autocast("cpu"):
        y = (x @ x).float().sum()
        y.backward()   # inside the region: the backward ops keep the forward's dtypes
    assert x.grad.dtype == nb.float32


def test_bad_input_as_torch():
    with pytest.raises(RuntimeError, match="device type at start of device string: foo"):
        nb.autocast("foo")
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
        nb.autocast(1)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with nb.autocast("cpu", dtype=nb.float64):
            assert not nb.is_autocast_enabled("cpu")
    assert "CPU Autocast only supports dtypes of torch.bfloat16, torch.float16" in str(w[0].message)
    if not nb.cuda.is_available():
        with pytest.warns(UserWarning, match="CUDA is not available"):
            with nb.autocast("cuda"):
                assert not nb.is_autocast_enabled("cuda")
    assert lib.nb_autocast_set_dtype(lib.NB_CPU, lib.NB_F64) == lib.NB_ERR_DTYPE
    assert lib.nb_autocast_set_enabled(99, 1) == lib.NB_ERR_DEVICE


def test_bf16_training_reaches_the_float32_loss():
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))
    import char_transformer
    f32 = char_transformer.main(steps=25, context=16, sample=False)
    bf16 = char_transformer.main(steps=25, context=16, autocast="bfloat16", sample=False)
    print(f"loss after 25 steps: float32 {f32:.4f}, bf16 autocast {bf16:.4f}")
    assert bf16 < 3.6 and f32 < 3.6       # both learn (the loss starts at ln 61 = 4.1)
    assert abs(bf16 - f32) < 0.05


@pytest.mark.skipif(not nb.cuda.is_available(), reason="no CUDA device (the CPU lists are checked above)")
def test_cuda_lists_on_the_device():
    """CUDA's lists (fp32 for softmax, sum, exp; float16 by default) differ from the CPU's."""
    a = nb.randn(4, 4, device="cuda")
    with nb.autocast("cuda"):
        assert (a @ a).dtype == nb.float16 and nb.mv(a, a[0]).dtype == nb.float16
        h = a.half()
        assert h.softmax(-1).dtype == nb.float32 and h.sum().dtype == nb.float32 and h.exp().dtype == nb.float32
        assert h.relu().dtype == nb.float16
        assert (a.cpu() @ a.cpu()).dtype == nb.float32   # the CPU's autocast is off
    with nb.cuda.amp.autocast(dtype=nb.bfloat16):
        assert (a @ a).dtype == nb.bfloat16
