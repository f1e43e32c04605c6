"""Shared fixtures for the Python frontend tests.

PyTorch is an optional reference: tests that compare with it call
pytest.importorskip("torch"); everything else checks against NumPy or
hand-computed values, so the suite means something without torch.
"""
from __future__ import annotations

import numpy as np
import pytest

import nabla


@pytest.fixture(autouse=True)
def _restore_default_dtype():
    """Every test starts and ends with the default float dtype it found (float32)."""
    before = nabla.get_default_dtype()
    yield
    nabla.set_default_dtype(before)


@pytest.fixture(params=[1, 2], ids=["1thread", "2threads"])
def threads(request):
    """The test runs on 1 and on 2 CPU threads (nabla.set_num_threads), restored after."""
    before = nabla.get_num_threads()
    nabla.set_num_threads(request.param)
    yield request.param
    nabla.set_num_threads(before)


@pytest.fixture
def rng():
    return np.random.default_rng(20240611)


# nabla dtype <-> NumPy dtype for the types both have.
NP_OF = {
    nabla.float32: np.float32, nabla.float64: np.float64, nabla.float16: np.float16,
    nabla.int8: np.int8, nabla.int16: np.int16, nabla.int32: np.int32, nabla.int64: np.int64,
    nabla.uint8: np.uint8, nabla.bool: np.bool_,
}


@pytest.fixture
def assert_matches():
    """assert_matches(t, a, strides=True): t has a's shape, dtype and exact values
    (NaN compared as NaN) and, when strides is set, NumPy's strides in elements
    on every dim of size > 1 (the only dims whose stride NumPy pins down)."""

    def check(t, a, strides: bool = True):
        a = np.asarray(a)
        assert isinstance(t, nabla.Tensor)
        assert tuple(t.shape) == a.shape
        assert isinstance(t.shape, nabla.Size)
        assert t.dtype in NP_OF and np.dtype(NP_OF[t.dtype]) == a.dtype, (t.dtype, a.dtype)
        got = t.numpy()
        assert got.dtype == a.dtype
        np.testing.assert_array_equal(got, a)
        if strides and a.size:
            ours = t.stride()
            assert len(ours) == a.ndim
            want = tuple(s // a.itemsize for s in a.strides)
            for d in range(a.ndim):
                if a.shape[d] > 1:
                    assert ours[d] == want[d], (d, ours, want, a.shape)

    return check


# Every device the suite runs on: CPU always, CUDA when a device is there.
DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(
    not nabla.cuda.is_available(), reason="no CUDA device"))]


@pytest.fixture(params=DEVICES)
def device(request):
    """The device a device-parameterised test runs on ("cpu", "cuda")."""
    return request.param


def pytest_configure(config):
    config.addinivalue_line("markers", "cuda_device: runs only where a CUDA device is (added from the skip reason)")


def pytest_collection_modifyitems(config, items):
    """Every test that needs a CUDA device carries the `cuda_device` keyword, so
    `-k cuda` (tools/cuda_emu_check.sh, tools/gpu_check.sh) selects it even when
    neither its name nor its parameters say cuda."""
    for item in items:
        if any("no CUDA" in str(m.kwargs.get("reason", "")) for m in item.iter_markers("skipif")):
            item.add_marker(pytest.mark.cuda_device)
