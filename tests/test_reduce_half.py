"""float16 / bfloat16 reductions read their input as it is, widening blocks of it
to float32 inside the kernels: every layout the engine hands a kernel (rows,
columns, strided, runs longer than one widening block, empty) must give the
float64 result of the same values rounded once into the dtype."""
from __future__ import annotations

import numpy as np
import pytest
from capability_runs import arrays_per_level

import nabla

torch = pytest.importorskip("torch")

DTYPES = [(nabla.bfloat16, torch.bfloat16), (nabla.float16, torch.float16)]
# (shape, dim, transpose first): row runs, columns (outputs contiguous), middle
# dims, a transposed (non-contiguous) view, runs longer than the 4096-element
# widening buffer, and an empty reduced dim.
CASES = [
    ((1000,), None, False), ((37, 300), 1, False), ((300, 37), 0, False), ((5, 64, 33), 1, False),
    ((3, 9000), 1, False), ((9000, 3), 0, False), ((5000, 7), 0, False), ((70, 1500), 0, False),
    ((64, 100), 1, True), ((100, 64), 0, True), ((0, 3), 0, False), ((20000,), None, False),
    ((1000, 16), 0, False), ((6, 41, 48), 1, False), ((3, 1037), 1, False),
]


def _values(shape, dt):
    """Exactly representable values (so the float64 reference sees what the kernel sees)."""
    a = np.random.default_rng(sum(shape) + 7).standard_normal(shape).astype(np.float32)
    t = torch.from_numpy(a).to(dt)
    return t, t.double().numpy()


def _check(got, ref64, dt):
    exp = torch.from_numpy(np.asarray(ref64, dtype=np.float64)).to(dt).double().numpy()
    # the float32 accumulation may sit a rounding away from the float64 value
    eps = 2.0 ** -7 if dt == torch.bfloat16 else 2.0 ** -10
    np.testing.assert_allclose(got, exp, rtol=2 * eps, atol=1e-6)


@pytest.mark.parametrize("ndt,tdt", DTYPES)
@pytest.mark.parametrize("shape,dim,transpose", CASES)
@pytest.mark.parametrize("op", ["sum", "mean", "amax", "amin", "std"])
def test_half_reduction_matches_float64(ndt, tdt, shape, dim, transpose, op):
    t, a = _values(shape, tdt)
    x = nabla.from_dlpack(t) if hasattr(nabla, "from_dlpack") else nabla.tensor(t.float().numpy()).to(ndt)
    assert x.dtype == ndt
    if transpose:
        x, a = x.t(), a.T
    if 0 in a.shape and op in ("amax", "amin"):
        return
    ref = {"sum": np.sum, "mean": np.mean, "amax": np.max, "amin": np.min,
           "std": lambda v, axis=None: np.std(v, axis=axis, ddof=1)}[op](a, axis=dim)
    got = getattr(x, op)() if dim is None else getattr(x, op)(dim)
    assert got.dtype == ndt
    with np.errstate(invalid="ignore"):
        _check(got.double().numpy(), ref, tdt)


@pytest.mark.parametrize("ndt,tdt", DTYPES)
@pytest.mark.parametrize("shape,dim,transpose", [c for c in CASES if 0 not in c[0]])
def test_half_argmax_first_index(ndt, tdt, shape, dim, transpose):
    t, a = _values(shape, tdt)
    x = nabla.tensor(t.float().numpy()).to(ndt)
    if transpose:
        x, a = x.t(), a.T
    got = x.argmax() if dim is None else x.argmax(dim)
    np.testing.assert_array_equal(got.numpy(), np.argmax(a, axis=dim))


_SUMS = r"""
import numpy as np, nabla, sys
rng = np.random.default_rng(11)
out = []
for dt in (nabla.bfloat16, nabla.float16):
    for shape, dim in (((20011,), None), ((7, 3001), 1), ((1003, 16), 0), ((517, 37), 0), ((901, 5), 0), ((4, 33, 80), 1)):
        x = nabla.from_numpy(rng.standard_normal(shape).astype(np.float32)).to(dt)
        out.append((x.sum(dtype=nabla.float32) if dim is None else x.sum(dim, dtype=nabla.float32)).numpy())
        out.append((x.mean() if dim is None else x.mean(dim)).float().numpy())
np.savez(sys.argv[1], *out)
"""


def test_half_sums_agree_across_instruction_sets():
    """The AVX-512 float16 / bfloat16 sums add in the portable loops' order: equal bit for bit, and
    within float32 accumulation of the float64 sum."""
    res = arrays_per_level(_SUMS)
    assert len(res["avx512"]) == 24
    for level in ("avx2", "default"):
        for g, w in zip(res[level], res["avx512"]):
            np.testing.assert_array_equal(g, w)


def test_half_sum_to_float32_matches_float64():
    rng = np.random.default_rng(5)
    for ndt, tdt in DTYPES:
        for shape, dim in (((50021,), None), ((3, 4099), 1), ((2050, 24), 0), ((700, 9), 0)):
            t = torch.from_numpy(rng.standard_normal(shape).astype(np.float32)).to(tdt)
            x = nabla.from_dlpack(t)
            got = (x.sum(dtype=nabla.float32) if dim is None else x.sum(dim, dtype=nabla.float32)).numpy()
            ref = t.double().numpy().sum(axis=dim)
            # float32 lanes over blocks of 128, block sums in double: a few float32 roundings
            np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-4)
