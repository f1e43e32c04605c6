"""nabla.testing: assert_close with PyTorch's default tolerances per dtype."""
from __future__ import annotations

import numpy as np

__all__ = ["assert_close", "assert_allclose"]

# (rtol, atol) by dtype name, PyTorch's defaults
_TOLERANCES = {"float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5), "float32": (1.3e-6, 1e-5),
               "float64": (1e-7, 1e-7)}


def _nb():
    import nabla
    return nabla


def _as_tensor(x, like=None):
    nb = _nb()
    if isinstance(x, nb.Tensor):
        return x
    if like is not None and isinstance(x, (int, float, bool)):
        return nb.tensor(x, dtype=like.dtype)
    return nb.tensor(x)


def assert_close(actual, expected, *, allow_subclasses: bool = True, rtol=None, atol=None, equal_nan: bool = False,
                 check_device: bool = True, check_dtype: bool = True, check_layout: bool = True,
                 check_stride: bool = False, msg=None) -> None:
    """Raises AssertionError unless actual and expected (tensors, numbers or nested sequences / mappings of them)
    match in shape, dtype, device and values within rtol * |expected| + atol."""
    nb = _nb()
    if (rtol is None) != (atol is None):
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, but got no {'rtol' if rtol is None else 'atol'}.")
    if isinstance(expected, dict):
        if not isinstance(actual, dict) or set(actual) != set(expected):
            raise AssertionError(msg or f"The mappings differ in keys: {sorted(map(str, actual))} vs "
                                        f"{sorted(map(str, expected))}")
        for k in expected:
            assert_close(actual[k], expected[k], rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=check_device,
                         check_dtype=check_dtype, msg=msg)
        return
    if isinstance(expected, (list, tuple)) and not isinstance(actual, nb.Tensor):
        if len(actual) != len(expected):
            raise AssertionError(msg or f"The length of the sequences mismatch: {len(actual)} != {len(expected)}")
        for a, e in zip(actual, expected):
            assert_close(a, e, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=check_device,
                         check_dtype=check_dtype, msg=msg)
        return
    scalar = not isinstance(actual, nb.Tensor) and not isinstance(expected, nb.Tensor)
    a = _as_tensor(actual)
    e = _as_tensor(expected)
    if scalar and type(actual) is not type(expected) and check_dtype:
        raise AssertionError(msg or f"The values for attribute 'type' do not match: {type(actual)} != "
                                    f"{type(expected)}.")
    if tuple(a.shape) != tuple(e.shape):
        raise AssertionError(msg or f"The values for attribute 'shape' do not match: {a.shape} != {e.shape}.")
    if check_device and a.device != e.device:
        raise AssertionError(msg or f"The values for attribute 'device' do not match: {a.device} != {e.device}.")
    if check_dtype and a.dtype is not e.dtype and not scalar:
        raise AssertionError(msg or f"The values for attribute 'dtype' do not match: {a.dtype} != {e.dtype}.")
    if rtol is None:
        rtol, atol = (max(_TOLERANCES.get(a.dtype.name, (0.0, 0.0))[0], _TOLERANCES.get(e.dtype.name, (0, 0))[0]),
                      max(_TOLERANCES.get(a.dtype.name, (0.0, 0.0))[1], _TOLERANCES.get(e.dtype.name, (0, 0))[1]))
        if scalar and isinstance(expected, float):
            rtol, atol = _TOLERANCES["float64"]
    x = a.detach().to(nb.float64).numpy(force=True)
    y = e.detach().to(nb.float64).numpy(force=True)
    bad = ~np.isclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan)
    if bad.any():
        diff = np.abs(x - y)
        diff = np.where(np.isfinite(diff), diff, np.inf)
        worst = int(np.argmax(np.where(bad, diff, -1)))
        rel = diff / np.maximum(np.abs(y), np.finfo(np.float64).tiny)
        kind = "Scalars" if x.ndim == 0 else "Tensor-likes"
        raise AssertionError(msg or (
            f"{kind} are not close!\n\nMismatched elements: {int(bad.sum())} / {bad.size} "
            f"({100.0 * bad.sum() / bad.size:.1f}%)\nGreatest absolute difference: {float(diff[bad].max())} at index "
            f"{np.unravel_index(worst, x.shape) if x.ndim else ()} (up to {atol} allowed)\nGreatest relative difference: "
            f"{float(rel[bad].max())} (up to {rtol} allowed)"))


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan: bool = True, msg: str = "") -> None:
    """The deprecated form of assert_close (no dtype check, nan equal to nan)."""
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_dtype=False, msg=msg or None)
