"""The float32 convolution kernels of every instruction-set level.

On x86-64 nabla runs float32 convolutions (forward and weight gradient at any
stride up to 8, input gradient at stride 1) through direct register-tiled
kernels built for AVX-512 and for AVX2, chosen at run time;
NABLA_CPU_CAPABILITY=avx512|avx2|default caps the choice ("default": the
im2col + OpenBLAS path). Each level runs in a child process over awkward
geometries (channel counts that are not multiples of the tiles, padding beyond
the kernel, dilation, groups, strides, one-pixel images, strided inputs) and is
compared with the float64 path, itself tested against NumPy in
test_nn_functional.py; max pooling is checked against a NumPy reference in the
same children, since its interior and border columns take different loops."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import nabla
import nabla.nn.functional as F

# (N, C, H, W, O, kh, kw, padding, dilation, groups[, stride])
GEOMETRIES = [
    (2, 3, 9, 11, 5, 3, 3, (1, 1), (1, 1), 1),
    (1, 1, 28, 28, 32, 3, 3, (0, 0), (1, 1), 1),
    (3, 4, 7, 6, 6, 2, 5, (0, 2), (2, 1), 2),
    (2, 16, 5, 5, 20, 5, 5, (2, 2), (1, 1), 4),
    (1, 8, 1, 40, 9, 1, 7, (0, 3), (1, 2), 1),
    (2, 5, 6, 6, 70, 3, 3, (3, 3), (1, 1), 1),
    (2, 2, 4, 1, 3, 3, 1, (1, 0), (1, 1), 1),
    (4, 32, 13, 13, 64, 3, 3, (1, 1), (1, 1), 1),
    (2, 6, 11, 12, 10, 3, 3, (1, 1), (1, 1), 1, (2, 2)),
    (2, 4, 9, 13, 8, 1, 1, (0, 0), (1, 1), 2, (2, 3)),
    (1, 3, 14, 10, 5, 5, 3, (2, 0), (2, 1), 1, (3, 2)),
    (2, 8, 7, 7, 16, 4, 4, (1, 2), (1, 1), 4, (2, 2)),
    (1, 2, 70, 40, 9, 3, 3, (1, 1), (1, 1), 1),  # more output rows than one kernel call takes
]

CHILD = r"""
import json, sys
import numpy as np
import nabla
import nabla.nn.functional as F
rng = np.random.default_rng(7)
out = []
for (N, C, H, W, O, kh, kw, pad, dil, groups, *stride) in json.loads(sys.argv[1]):
    stride = stride[0] if stride else 1
    x = rng.standard_normal((N, C, H, W)).astype(np.float32)
    w = rng.standard_normal((O, C // groups, kh, kw)).astype(np.float32)
    b = rng.standard_normal(O).astype(np.float32)
    xt = nabla.tensor(np.ascontiguousarray(x.transpose(0, 1, 3, 2))).transpose(2, 3).requires_grad_()
    wt, bt = nabla.tensor(w, requires_grad=True), nabla.tensor(b)
    y = F.conv2d(xt, wt, bt, stride, pad, dil, groups)
    gy = rng.standard_normal(tuple(y.shape)).astype(np.float32)
    y.backward(nabla.tensor(gy))
    out.append({k: v.tolist() for k, v in dict(x=x, w=w, b=b, gy=gy, y=y.detach().numpy(), gx=xt.grad.numpy(),
                                                 gw=wt.grad.numpy()).items()})
p = rng.standard_normal((3, 4, 11, 9)).astype(np.float32)
p[0, 0, 1, 1] = np.nan
pools = []
for (k, s, pad, dil, ceil) in [(2, 2, 0, 1, False), (3, 2, 1, 1, True), (3, 1, 1, 2, False), ((2, 3), (1, 2), (1, 1), 1, False)]:
    v, i = F.max_pool2d(nabla.tensor(p), k, s, pad, dil, ceil, return_indices=True)
    pools.append(dict(args=[k, s, pad, dil, ceil], v=v.numpy().tolist(), i=i.numpy().tolist()))
json.dump(dict(convs=out, pool=p.tolist(), pools=pools), sys.stdout)
"""


def run_level(level: str) -> dict:
    env = dict(os.environ, NABLA_CPU_CAPABILITY=level)
    result = subprocess.run([sys.executable, "-c", CHILD, json.dumps(GEOMETRIES)], capture_output=True, text=True,
                            env=env, timeout=300)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def max_pool_ref(x, k, s, pad, dil, ceil):
    """float64 NumPy max_pool2d with PyTorch's output size, NaN propagation and first-max indices."""
    pair = lambda v: (v, v) if isinstance(v, int) else tuple(v)
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = pair(k), pair(s), pair(pad), pair(dil)
    N, C, H, W = x.shape

    def size(n, k, s, p, d):
        num = n + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil else 0)
        o = num // s + 1
        return o - 1 if ceil and (o - 1) * s >= n + p else o
    OH, OW = size(H, kh, sh, ph, dh), size(W, kw, sw, pw, dw)
    v, idx = np.empty((N, C, OH, OW)), np.empty((N, C, OH, OW), np.int64)
    for n in range(N):
        for c in range(C):
            for oh in range(OH):
                for ow in range(OW):
                    taps = [(ih, iw) for ih in range(oh * sh - ph, oh * sh - ph + kh * dh, dh)
                            for iw in range(ow * sw - pw, ow * sw - pw + kw * dw, dw) if 0 <= ih < H and 0 <= iw < W]
                    best, bi = -np.inf, taps[0][0] * W + taps[0][1]
                    for ih, iw in taps:
                        val = x[n, c, ih, iw]
                        if val > best or np.isnan(val):
                            best, bi = val, ih * W + iw
                    v[n, c, oh, ow], idx[n, c, oh, ow] = best, bi
    return v, idx


@pytest.mark.parametrize("level", ["avx512", "avx2", "default"])
def test_conv2d_and_its_gradients_at_every_level(level):
    got = run_level(level)
    for geom, case in zip(GEOMETRIES, got["convs"]):
        N, C, H, W, O, kh, kw, pad, dil, groups, *stride = geom
        a = {k: np.asarray(v, dtype=np.float64) for k, v in case.items()}
        x = nabla.tensor(a["x"], requires_grad=True)
        w = nabla.tensor(a["w"], requires_grad=True)
        y = F.conv2d(x, w, nabla.tensor(a["b"]), stride[0] if stride else 1, pad, dil, groups)
        y.backward(nabla.tensor(a["gy"]))
        k = C // groups * kh * kw
        tol = 3e-6 * np.sqrt(k) * 4
        for name, want in (("y", y.detach()), ("gx", x.grad), ("gw", w.grad)):
            want = want.numpy()
            scale = 1.0 + np.abs(want).max()
            np.testing.assert_allclose(a[name], want, rtol=tol, atol=tol * scale, err_msg=f"{level} {geom} {name}")


@pytest.mark.parametrize("level", ["avx512", "default"])
def test_max_pool2d_interior_and_border_columns(level):
    got = run_level(level)
    x = np.asarray(got["pool"], dtype=np.float64)
    for case in got["pools"]:
        v, i = max_pool_ref(x, *case["args"])
        np.testing.assert_allclose(np.asarray(case["v"]), v, rtol=1e-7, err_msg=str(case["args"]))
        np.testing.assert_array_equal(np.asarray(case["i"]), i, err_msg=str(case["args"]))


def test_unknown_capability_name_is_ignored():
    env = dict(os.environ, NABLA_CPU_CAPABILITY="sse9")
    code = ("import nabla, nabla.nn.functional as F; x = nabla.ones(1, 2, 5, 5); w = nabla.ones(3, 2, 3, 3); "
            "print(F.conv2d(x, w, padding=1)[0, 0].sum().item())")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    assert float(result.stdout) == 2 * (4 * 4 + 4 * 6 * 3 + 9 * 9)  # corners 4 taps, edges 6, interior 9


@pytest.mark.parametrize("level", ["avx512", "default"])
def test_weight_gradient_is_identical_from_run_to_run(level):
    """Per-thread partial sums are merged in a fixed order and every thread sums the same images on every call
    (static scheduling), so two threads give the same bits each time."""
    code = ("import numpy as np, nabla, nabla.nn.functional as F\n"
            "nabla.set_num_threads(2)\n"
            "rng = np.random.default_rng(5)\n"
            "x = nabla.tensor(rng.standard_normal((7, 8, 15, 15)).astype(np.float32))\n"
            "w0 = rng.standard_normal((16, 8, 3, 3)).astype(np.float32)\n"
            "gy = nabla.tensor(rng.standard_normal((7, 16, 7, 7)).astype(np.float32))\n"
            "seen = set()\n"
            "for _ in range(12):\n"
            "    w = nabla.tensor(w0, requires_grad=True)\n"
            "    F.conv2d(x, w, stride=2).backward(gy)\n"
            "    seen.add(w.grad.numpy().tobytes())\n"
            "print(len(seen))\n")
    env = dict(os.environ, NABLA_CPU_CAPABILITY=level)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "1"
