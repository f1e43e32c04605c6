"""CUDA kernels beside PyTorch on the same GPU, in one run: elementwise and
reduction bandwidth as a fraction of each library's measured device-to-device
copy, host time per launch, GEMM TFLOP/s, fused attention TFLOP/s, the fused
nn kernels (softmax, layer/batch/group norm, cross_entropy and their backward,
random fills, dropout) in the same units, and the optimizer step and
clip_grad_norm_ over a GPT-2-small-sized parameter list (nabla's multi-tensor
kernels against PyTorch's fused AdamW and foreach norm), and convolution TFLOP/s;
the half-precision attention and convolution also with NABLA_TENSOR_CORES=0 (the
"nabla (CUDA cores)" column). Prints "no CUDA device" and exits 0 without one.

Targets: contiguous elementwise and reductions >= 0.9x of copy bandwidth
(counting bytes read and written once each); host time per op <= PyTorch's;
GEMM >= 1.0x PyTorch's TFLOP/s; optimizer step and clipping >= 1.0x PyTorch's."""
from __future__ import annotations

import os
import sys
import time

from harness import try_import

import nabla

N = 1 << 26  # 64M elements: 256 MiB per float32 tensor
ITERS = 20


def device_seconds(lib, fn, iters=ITERS):
    """Mean device time per call, from events around `iters` queued calls."""
    fn()
    lib.cuda.synchronize()
    start, end = lib.cuda.Event(enable_timing=True), lib.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(iters):
        fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / 1e3 / iters


def wall_seconds(lib, fn, iters=ITERS):
    """Mean wall time per call with the device drained before and after (for
    copies, which nabla runs synchronously, so events on a stream miss them)."""
    fn()
    lib.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(iters):
        fn()
    lib.cuda.synchronize()
    return (time.perf_counter() - t0) / iters


def host_seconds(lib, fn, iters=20000):
    """Mean host time per call for tiny tensors (the launch path, no sync inside)."""
    for _ in range(100):
        fn()
    lib.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(iters):
        fn()
    dt = time.perf_counter() - t0
    lib.cuda.synchronize()
    return dt / iters


def cases(lib, dev):
    a = lib.rand(N, device=dev)
    b = lib.rand(N, device=dev)
    m = lib.rand(8192, N // 8192, device=dev)
    row = lib.rand(N // 8192, device=dev)
    h = a.to(lib.float16)
    dst = lib.empty(N, device=dev)
    f4 = N * 4
    return {  # name: (fn, bytes moved)
        "copy (reference)": (lambda: dst.copy_(a), 2 * f4),
        "a + b": (lambda: a + b, 3 * f4),
        "a * 2.0": (lambda: a * 2.0, 2 * f4),
        "exp(a)": (lambda: lib.exp(a), 2 * f4),
        "a > b (bool out)": (lambda: a > b, 2 * f4 + N),
        "m + row (broadcast)": (lambda: m + row, 2 * f4),
        "m.t() * 2 (strided)": (lambda: m.t() * 2.0, 2 * f4),
        "f16 a + a": (lambda: h + h, 3 * N * 2),
        "a.sum()": (lambda: a.sum(), f4),
        "m.sum(1) (inner)": (lambda: m.sum(1), f4),
        "m.sum(0) (outer)": (lambda: m.sum(0), f4),
        "a.amax()": (lambda: a.amax(), f4),
        "m.var(1)": (lambda: m.var(1), f4),
    }


def nn_cases(lib, dev):
    """The fused nn kernels (bytes: each tensor read or written once): softmax, the norms and cross_entropy
    over 8192 rows of 8192 (activations of a large model), random fills, and their backward passes."""
    F = lib.nn.functional
    R, D = 8192, 8192
    x = lib.randn(R, D, device=dev)
    w, b = lib.ones(D, device=dev), lib.zeros(D, device=dev)
    x4 = lib.randn(64, 256, 64, 64, device=dev)  # 256 MiB, [N, C, H, W]
    t = lib.randint(0, D, (R,), device=dev)
    xg = x.detach().requires_grad_(True)
    go = lib.ones(R, D, device=dev)
    ce = F.cross_entropy(xg, t)
    ln = F.layer_norm(xg, (D,), w, b)
    f4 = R * D * 4
    return {
        "softmax(x, 1)": (lambda: lib.softmax(x, 1), 2 * f4),
        "layer_norm": (lambda: F.layer_norm(x, (D,), w, b), 2 * f4),
        "layer_norm backward": (lambda: lib.autograd.grad(ln, [xg], go, retain_graph=True), 3 * f4),
        "batch_norm (train)": (lambda: F.batch_norm(x4, None, None, training=True), 2 * x4.numel() * 4),
        "group_norm 32 groups": (lambda: F.group_norm(x4, 32), 2 * x4.numel() * 4),
        "cross_entropy (mean)": (lambda: F.cross_entropy(x, t), f4),
        "cross_entropy backward": (lambda: lib.autograd.grad(ce, [xg], retain_graph=True), 2 * f4),
        "rand (float32)": (lambda: lib.rand(R, D, device=dev), f4),
        "randn (float32)": (lambda: lib.randn(R, D, device=dev), f4),
        "dropout p=0.1": (lambda: F.dropout(x, 0.1, training=True), 2 * f4),
    }


def gemm_rows(lib, results):
    """TFLOP/s of square products: float32 exactly (no TF32 in either library) and bfloat16."""
    for n, dtype in ((4096, "float32"), (8192, "float32"), (4096, "bfloat16"), (8192, "bfloat16")):
        dt = getattr(lib, dtype)
        x, y = lib.randn(n, n, device="cuda").to(dt), lib.randn(n, n, device="cuda").to(dt)
        s = device_seconds(lib, lambda: x @ y, iters=10)
        results.setdefault(f"gemm {n}^3 {dtype} (TFLOP/s)", {})[lib.__name__] = 2 * n ** 3 / s / 1e12


ATTENTION_SIZES = ((1024, 16, 4), (2048, 16, 2), (4096, 8, 2))  # (seq, heads, batch)


def attention_rows(lib, results, sizes=ATTENTION_SIZES, column=None):
    """TFLOP/s of causal scaled_dot_product_attention, forward and forward+backward,
    d=64, float16/bfloat16 (causal: half of the 4 B H L^2 d forward FLOPs count;
    the backward is 2.5x the forward, as FlashAttention counts), in column (the library's name)."""
    f, column = lib.nn.functional, column or lib.__name__
    for seq, heads, batch in sizes:
        for dtype in ("float16", "bfloat16"):
            dt = getattr(lib, dtype)
            q, k, v = (lib.randn(batch, heads, seq, 64, device="cuda").to(dt).requires_grad_(True) for _ in range(3))
            go = lib.randn(batch, heads, seq, 64, device="cuda").to(dt)
            flops = 4 * batch * heads * seq * seq * 64 / 2

            def fwd():
                with lib.no_grad():
                    f.scaled_dot_product_attention(q, k, v, is_causal=True)

            def fwd_bwd():
                f.scaled_dot_product_attention(q, k, v, is_causal=True).backward(go)

            name = f"sdpa causal L={seq} H={heads} B={batch} d=64 {dtype}"
            results.setdefault(f"{name} fwd (TFLOP/s)", {})[column] = flops / device_seconds(lib, fwd, 5) / 1e12
            results.setdefault(f"{name} fwd+bwd (TFLOP/s)", {})[column] = (
                3.5 * flops / device_seconds(lib, fwd_bwd, 5) / 1e12)


def gpt2_params(lib):
    """GPT-2 small's parameter shapes (12 layers, d 768, vocabulary 50257: 124M values, 148 tensors)."""
    d, shapes = 768, [(50257, 768), (1024, 768)]
    for _ in range(12):
        shapes += [(d,), (d,), (3 * d, d), (3 * d,), (d, d), (d,), (d,), (d,), (4 * d, d), (4 * d,), (d, 4 * d), (d,)]
    shapes += [(d,), (d,)]
    ps = [lib.randn(*s, device="cuda").requires_grad_() for s in shapes]
    for p in ps:
        p.grad = lib.randn(*p.shape, device="cuda") * 1e-3
    return ps


def optim_rows(lib, results):
    """Device time of one AdamW step and one clip_grad_norm_ over GPT-2 small's parameters, and the host time
    to issue the step (nothing waits for the device in either library)."""
    ps = gpt2_params(lib)
    fused = {"fused": True} if lib.__name__ == "torch" else {}
    opt = lib.optim.AdamW(ps, lr=1e-4, **fused)
    results.setdefault("AdamW step, GPT-2 small (device)", {})[lib.__name__] = device_seconds(lib, opt.step, iters=10)
    results.setdefault("AdamW step, GPT-2 small (host)", {})[lib.__name__] = host_seconds(lib, opt.step, iters=50)
    clip = lambda: lib.nn.utils.clip_grad_norm_(ps, 1e9)  # noqa: E731 - measures without scaling
    results.setdefault("clip_grad_norm_, GPT-2 small (device)", {})[lib.__name__] = device_seconds(lib, clip, iters=10)
    del opt, ps


CONV_SIZES = (  # (N, C, H=W, O, k, groups)
    (32, 64, 56, 64, 3, 1),
    (32, 256, 14, 256, 3, 1),
    (32, 128, 28, 128, 1, 1),
    (32, 128, 56, 128, 3, 128),  # depthwise
)


def conv_rows(lib, results, sizes=CONV_SIZES, dtypes=("float32", "bfloat16"), column=None):
    """TFLOP/s of conv2d (stride 1, "same" padding), forward and forward + both gradients
    (the backward counts twice the forward's 2 N O H W C/groups k^2 FLOPs), in column."""
    f, column = lib.nn.functional, column or lib.__name__
    for n, c, hw, o, k, groups in sizes:
        for dtype in dtypes:
            dt = getattr(lib, dtype)
            x = lib.randn(n, c, hw, hw, device="cuda").to(dt).requires_grad_(True)
            w = lib.randn(o, c // groups, k, k, device="cuda").to(dt).requires_grad_(True)
            go = lib.randn(n, o, hw, hw, device="cuda").to(dt)
            flops = 2 * n * o * hw * hw * (c // groups) * k * k

            def fwd():
                with lib.no_grad():
                    f.conv2d(x, w, padding=k // 2, groups=groups)

            def fwd_bwd():
                f.conv2d(x, w, padding=k // 2, groups=groups).backward(go)

            name = f"conv2d N={n} C={c} {hw}x{hw} O={o} k={k} g={groups} {dtype}"
            results.setdefault(f"{name} fwd (TFLOP/s)", {})[column] = flops / device_seconds(lib, fwd, 5) / 1e12
            results.setdefault(f"{name} fwd+bwd (TFLOP/s)", {})[column] = (
                3 * flops / device_seconds(lib, fwd_bwd, 5) / 1e12)


def main() -> int:
    if not nabla.cuda.is_available():
        print("no CUDA device")
        return 0
    torch = try_import("torch")
    libs = {"nabla": nabla}
    if torch is not None and torch.cuda.is_available():
        libs["torch"] = torch
    results = {}
    for name, lib in libs.items():
        cs = cases(lib, "cuda")
        copy_s = wall_seconds(lib, cs["copy (reference)"][0])
        copy_bw = cs["copy (reference)"][1] / copy_s
        for case, (fn, nbytes) in cs.items():
            try:
                s = copy_s if case == "copy (reference)" else device_seconds(lib, fn)
            except Exception as e:  # noqa: BLE001 - an op missing on the device is reported, not fatal
                print(f"{name}: {case} failed: {e!r}")
                continue
            results.setdefault(case, {})[name] = (nbytes / s / 1e9, nbytes / s / copy_bw)
        x, y = lib.rand(8, device="cuda"), lib.rand(8, device="cuda")
        results.setdefault("host time per a + b (8 elements)", {})[name] = host_seconds(lib, lambda: x + y)
        del cs
        for case, (fn, nbytes) in nn_cases(lib, "cuda").items():
            try:
                s = device_seconds(lib, fn, iters=10)
            except Exception as e:  # noqa: BLE001 - an op missing on the device is reported, not fatal
                print(f"{name}: {case} failed: {e!r}")
                continue
            results.setdefault(case, {})[name] = (nbytes / s / 1e9, nbytes / s / copy_bw)
        try:
            gemm_rows(lib, results)
        except Exception as e:  # noqa: BLE001 - a missing dtype path is reported, not fatal
            print(f"{name}: gemm failed: {e!r}")
        try:
            attention_rows(lib, results)
        except Exception as e:  # noqa: BLE001 - reported, not fatal
            print(f"{name}: attention failed: {e!r}")
        try:
            optim_rows(lib, results)
        except Exception as e:  # noqa: BLE001 - reported, not fatal
            print(f"{name}: optimizer step failed: {e!r}")
        try:
            conv_rows(lib, results)
        except Exception as e:  # noqa: BLE001 - reported, not fatal
            print(f"{name}: conv failed: {e!r}")
        if lib is nabla:  # the half kernels again on the CUDA cores, to see what the tensor cores bring
            os.environ["NABLA_TENSOR_CORES"] = "0"
            try:
                attention_rows(lib, results, column="nabla (CUDA cores)")
                conv_rows(lib, results, dtypes=("bfloat16",), column="nabla (CUDA cores)")
            except Exception as e:  # noqa: BLE001 - reported, not fatal
                print(f"{name}: CUDA-core half kernels failed: {e!r}")
            finally:
                del os.environ["NABLA_TENSOR_CORES"]
    print(f"GPU kernels, {N} elements (GB/s, fraction of that library's measured copy bandwidth), GEMM TFLOP/s")
    for case, row in results.items():
        cells = []
        for name, v in row.items():
            if isinstance(v, tuple):
                cells.append(f"{name} {v[0]:7.1f} GB/s {v[1]:5.2f}x")
            elif "TFLOP" in case:
                cells.append(f"{name} {v:7.1f}")
            else:
                cells.append(f"{name} {v * 1e6:7.2f} us")
        if "nabla" in row and "torch" in row:  # speed ratio: > 1 means nabla is faster
            n, t = row["nabla"], row["torch"]
            speed = n[0] / t[0] if isinstance(n, tuple) else n / t if "TFLOP" in case else t / n
            cells.append(f"nabla/torch speed {speed:5.2f}")
        print(f"  {case:56s} " + "   ".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
