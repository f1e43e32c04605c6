"""DLPack exchange from Python: the protocol (__dlpack__, __dlpack_device__,
from_dlpack) with NumPy and PyTorch, capsule names and ownership, both
lifetimes, bad capsules, copy/device/stream arguments."""
from __future__ import annotations

import ctypes
import gc
import threading
import weakref

import numpy as np
import pytest

import nabla
from nabla._dlpack import DLDeviceType
from nabla._lib import lib

from conftest import NP_OF

_GetName = ctypes.pythonapi.PyCapsule_GetName
_GetName.restype, _GetName.argtypes = ctypes.c_char_p, [ctypes.py_object]


def capsule_name(capsule) -> str:
    return _GetName(capsule).decode()


def live_tensors() -> int:
    gc.collect()
    return nabla.memory.stats()["live_tensors"]


# ---- NumPy ----

@pytest.mark.parametrize("dtype", list(NP_OF), ids=str)
def test_numpy_round_trip_shares_memory_both_ways(dtype):
    a = np.arange(12).reshape(3, 4).astype(NP_OF[dtype])
    t = nabla.from_dlpack(a)
    assert t.dtype is dtype and t.shape == (3, 4) and t.data_ptr() == a.ctypes.data
    b = np.from_dlpack(t)
    assert b.ctypes.data == a.ctypes.data and b.dtype == a.dtype
    t[1, 2] = 1  # write through nabla, read through NumPy
    assert a[1, 2] == 1 and b[1, 2] == 1
    a[2, 3] = 0  # write through NumPy, read through nabla
    assert t[2, 3].item() == 0


def test_numpy_strided_and_zero_dim_and_empty_views():
    a = np.arange(24, dtype=np.float32).reshape(4, 6)
    v = a.T[1:, ::2]
    t = nabla.from_dlpack(v)
    assert t.stride() == tuple(s // 4 for s in v.strides)
    np.testing.assert_array_equal(t.numpy(), v)
    back = t.numpy()
    assert back.strides == v.strides and back.ctypes.data == v.ctypes.data
    z = nabla.from_dlpack(np.full((), 2.5))
    assert z.shape == () and z.item() == 2.5
    e = nabla.from_dlpack(np.zeros((0, 3), np.int32))
    assert e.shape == (0, 3) and e.numel() == 0


def test_negative_numpy_strides_are_refused():
    with pytest.raises(RuntimeError, match="negative strides"):
        nabla.from_dlpack(np.arange(4.0)[::-1])


# ---- PyTorch ----

def test_torch_round_trip_every_dtype_including_bfloat16_and_bool():
    torch = pytest.importorskip("torch")
    for name in ("float32", "float64", "float16", "bfloat16", "int8", "int16", "int32", "int64", "uint8", "bool"):
        x = torch.arange(6).reshape(2, 3).to(getattr(torch, name))
        t = nabla.from_dlpack(x)
        assert t.dtype is getattr(nabla, name) and t.data_ptr() == x.data_ptr(), name
        y = torch.from_dlpack(t)
        assert y.dtype == x.dtype and y.data_ptr() == x.data_ptr(), name
        assert y.tolist() == x.tolist() == t.tolist(), name
    x = torch.zeros(3, 4)
    t = nabla.from_dlpack(x)
    t[0, 1] = 5.0
    assert x[0, 1].item() == 5.0
    x[2, 3] = -1.0
    assert t[2, 3].item() == -1.0


def test_torch_strided_views_both_directions():
    torch = pytest.importorskip("torch")
    x = torch.arange(30.0).reshape(5, 6)
    v = x.t()[1:4, ::2]
    t = nabla.from_dlpack(v)
    assert t.stride() == v.stride() and t.tolist() == v.tolist()
    n = nabla.arange(30.0).reshape(5, 6).transpose(0, 1)[::2]
    y = torch.from_dlpack(n)
    assert y.stride() == n.stride() and y.tolist() == n.tolist() and y.data_ptr() == n.data_ptr()


def test_producer_dropped_first_keeps_memory_until_nabla_lets_go():
    a = np.arange(1000, dtype=np.float64)
    alive = weakref.ref(a)
    t = nabla.from_dlpack(a)
    del a
    gc.collect()
    assert alive() is not None  # the producer's struct holds it
    assert t.sum().item() == sum(range(1000))
    del t
    gc.collect()
    assert alive() is None  # nabla's release ran NumPy's deleter


def test_consumer_dropped_first_releases_nabla_memory():
    before = live_tensors()
    t = nabla.arange(100.0)
    n = np.from_dlpack(t)
    del t
    assert n[99] == 99.0  # the export keeps the tensor
    assert live_tensors() == before + 1
    del n
    assert live_tensors() == before


def test_deleter_runs_safely_from_another_thread():
    torch = pytest.importorskip("torch")
    held = [nabla.from_dlpack(torch.full((64,), float(i))) for i in range(32)]
    arrays = [np.ones(8) * i for i in range(32)]
    alive = [weakref.ref(a) for a in arrays]
    held += [nabla.from_dlpack(a) for a in arrays]
    del arrays

    def drop():
        while held:
            held.pop()

    threads = [threading.Thread(target=drop) for _ in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    gc.collect()
    assert all(r() is None for r in alive)


# ---- capsules ----

def test_capsule_names_follow_max_version_and_are_marked_used():
    t = nabla.ones(3)
    legacy = t.__dlpack__()
    assert capsule_name(legacy) == "dltensor"
    versioned = t.__dlpack__(max_version=(1, 0))
    assert capsule_name(versioned) == "dltensor_versioned"
    assert capsule_name(t.__dlpack__(max_version=(0, 8))) == "dltensor"
    u = nabla.from_dlpack(versioned)
    assert capsule_name(versioned) == "used_dltensor_versioned"
    assert u.data_ptr() == t.data_ptr()
    nabla.from_dlpack(legacy)
    assert capsule_name(legacy) == "used_dltensor"


def test_bad_capsules_raise_clear_errors():
    t = nabla.ones(3)
    c = t.__dlpack__(max_version=(1, 0))
    nabla.from_dlpack(c)
    with pytest.raises(RuntimeError, match="already consumed"):
        nabla.from_dlpack(c)
    new = ctypes.pythonapi.PyCapsule_New
    new.restype, new.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    other = new(ctypes.c_void_p(1), b"not_a_tensor", None)
    with pytest.raises(RuntimeError, match="expected the name 'dltensor_versioned' or 'dltensor', got 'not_a_tensor'"):
        nabla.from_dlpack(other)
    with pytest.raises(TypeError, match="expected a DLPack capsule"):
        nabla.from_dlpack([1, 2, 3])


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32),
                ("ndim", ctypes.c_int32), ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class _DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]


def _legacy_capsule(device_type=1, code=2, bits=32, lanes=1):
    """A hand-made "dltensor" capsule (no deleter) over a small buffer."""
    buf = (ctypes.c_float * 4)()
    shape = (ctypes.c_int64 * 1)(4)
    m = _DLManagedTensor()
    m.dl_tensor = _DLTensor(ctypes.addressof(buf), device_type, 0, 1, _DLDataType(code, bits, lanes), shape, None, 0)
    new = ctypes.pythonapi.PyCapsule_New
    new.restype, new.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    return new(ctypes.addressof(m), b"dltensor", None), (buf, shape, m)


def test_unsupported_dtype_or_device_is_refused_and_the_capsule_keeps_ownership():
    capsule, keep = _legacy_capsule(code=5, bits=64)  # complex64
    with pytest.raises(RuntimeError, match=r"unsupported DLPack dtype \(code 5: complex, 64 bits, 1 lanes\)"):
        nabla.from_dlpack(capsule)
    assert capsule_name(capsule) == "dltensor"
    capsule, keep = _legacy_capsule(device_type=4)
    with pytest.raises(RuntimeError, match=r"unsupported DLPack device type 4 \(OpenCL\)"):
        nabla.from_dlpack(capsule)
    capsule, keep = _legacy_capsule()  # a good one, made by hand, with NULL strides
    t = nabla.from_dlpack(capsule)
    assert t.shape == (4,) and t.stride() == (1,) and t.data_ptr() == ctypes.addressof(keep[0])
    del t


_DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


def _crafted_capsule(shape, strides=None, byte_offset=0, data=True, ndim=None, dtype=(2, 32, 1)):
    """A hand-made "dltensor" capsule over 16 floats whose numbers a producer chose freely; returns the capsule,
    the list its deleter appends to, and what must stay alive meanwhile."""
    buf = (ctypes.c_float * 16)()
    calls = []
    deleter = _DELETER(lambda p: calls.append(p))
    c_shape = (ctypes.c_int64 * max(len(shape), 1))(*shape)
    c_strides = (ctypes.c_int64 * len(strides))(*strides) if strides is not None else None
    m = _DLManagedTensor()
    m.dl_tensor = _DLTensor(ctypes.addressof(buf) if data else None, 1, 0, len(shape) if ndim is None else ndim,
                            _DLDataType(*dtype), c_shape, c_strides, byte_offset)
    m.deleter = ctypes.cast(deleter, ctypes.c_void_p)
    new = ctypes.pythonapi.PyCapsule_New
    new.restype, new.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    return new(ctypes.addressof(m), b"dltensor", None), calls, (buf, c_shape, c_strides, m, deleter)


@pytest.mark.parametrize("kwargs, message", [
    (dict(shape=(2, 2), strides=(3, 2**63 - 1)), "reach past 2^63 - 1 bytes"),
    (dict(shape=(2, 2), strides=(2**62, 1)), "reach past 2^63 - 1 bytes"),
    (dict(shape=(4,), byte_offset=2**64 - 4), "wraps the data pointer"),
    (dict(shape=(4,), byte_offset=2**63), "byte_offset 9223372036854775808 does not fit int64"),
    (dict(shape=(4,), byte_offset=2**63 - 8), "does not fit int64"),
    (dict(shape=(-4,)), "negative dimension -4"),
    (dict(shape=(2**63 - 1, 0, 6)), "Storage size calculation overflowed"),
    (dict(shape=(2**62, 4)), "overflows int64"),
    (dict(shape=(4,), data=False), "data is NULL"),
    (dict(shape=(4,), ndim=-1), "-1 dims"),
    (dict(shape=(4,), ndim=17), "17 dims"),
    (dict(shape=(4,), dtype=(2, 12, 1)), "12 bits"),
    (dict(shape=(4,), dtype=(0, 32, 0)), "0 lanes"),
    (dict(shape=(4,), dtype=(200, 32, 1)), "code 200"),
], ids=["strides_overflow", "bytes_overflow", "byte_offset_wraps", "byte_offset_past_int64",
                                  "byte_offset_plus_extent_past_int64", "negative_shape", "huge_beside_zero",
        "numel_overflow", "null_data", "negative_ndim", "too_many_dims", "bits", "lanes", "code"])
def test_untrusted_structs_are_refused_and_the_capsule_keeps_ownership(kwargs, message):
    """strides {3, INT64_MAX} and a byte_offset that wraps the pointer to before the buffer were accepted
    (reads out of bounds). Each bad number is refused with a message; the capsule is not consumed and its
    deleter is not called (it stays the producer's)."""
    capsule, calls, keep = _crafted_capsule(**kwargs)
    with pytest.raises(RuntimeError) as info:
        nabla.from_dlpack(capsule)
    assert message in str(info.value) and str(info.value).startswith("from_dlpack: ")
    assert capsule_name(capsule) == "dltensor" and calls == []


def test_valid_crafted_structs_still_import_and_release_once():
    capsule, calls, keep = _crafted_capsule(shape=(0, 3), strides=(2**63 - 1, 2**63 - 1), data=False)
    t = nabla.from_dlpack(capsule)  # no element: NULL data and any strides address nothing
    assert t.shape == (0, 3) and t.storage_offset() == 0 and capsule_name(capsule) == "used_dltensor"
    del t
    gc.collect()
    assert len(calls) == 1
    capsule, calls, keep = _crafted_capsule(shape=(2, 4), strides=(8, 2), byte_offset=4)  # ends at the last float
    keep[0][15] = 7.0
    t = nabla.from_dlpack(capsule)
    assert t[1, 3].item() == 7.0 and t.data_ptr() == ctypes.addressof(keep[0]) + 4
    del t
    gc.collect()
    assert len(calls) == 1


def test_unsupported_torch_dtype_is_refused():
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError, match="unsupported DLPack dtype"):
        nabla.from_dlpack(torch.zeros(2, dtype=torch.complex64))


# ---- protocol arguments ----

def test_dlpack_device_and_copy_and_dl_device():
    t = nabla.arange(4.0)
    assert t.__dlpack_device__() == (DLDeviceType.kDLCPU, 0)
    c = np.from_dlpack(t, copy=True)
    assert c.ctypes.data != t.data_ptr()
    c[0] = 9
    assert t[0].item() == 0
    same = np.from_dlpack(t, copy=False)
    assert same.ctypes.data == t.data_ptr()
    assert nabla.from_dlpack(t, copy=True).data_ptr() != t.data_ptr()
    assert nabla.from_dlpack(t, device="cpu").data_ptr() == t.data_ptr()
    capsule = t.__dlpack__(max_version=(1, 0), dl_device=(DLDeviceType.kDLCPU, 0), copy=False)
    assert nabla.from_dlpack(capsule).data_ptr() == t.data_ptr()
    with pytest.raises(BufferError):
        t.__dlpack__(max_version=(1, 0), dl_device=(DLDeviceType.kDLOpenCL, 0))


def test_copy_false_to_another_device_is_a_buffer_error():
    t = nabla.arange(4.0)
    with pytest.raises(BufferError):
        t.__dlpack__(max_version=(1, 0), dl_device=(DLDeviceType.kDLCUDA, 0), copy=False)


def test_stream_rules_on_cpu():
    t = nabla.ones(2)
    t.__dlpack__(stream=None)
    with pytest.raises(ValueError, match="stream must be None"):
        t.__dlpack__(stream=1)
    with pytest.raises(TypeError, match="stream must be"):
        t.__dlpack__(stream="default")


@pytest.mark.skipif(not nabla.cuda.is_available(), reason="no CUDA device")
def test_stream_rules_on_cuda():
    t = nabla.ones(4, device="cuda")
    assert t.__dlpack_device__() == (DLDeviceType.kDLCUDA, 0)
    for stream in (None, -1, 1, 2):
        back = nabla.from_dlpack(t.__dlpack__(stream=stream, max_version=(1, 0)))
        assert back.data_ptr() == t.data_ptr() and back.device == t.device
    with pytest.raises(ValueError, match="ambiguous"):
        t.__dlpack__(stream=0)
    with pytest.raises(ValueError):
        t.__dlpack__(stream=-2)
    host = np.from_dlpack(t, device="cpu")
    np.testing.assert_array_equal(host, np.ones(4, np.float32))


def test_utils_dlpack_module_matches_pytorch_names():
    from nabla.utils.dlpack import from_dlpack, to_dlpack
    t = nabla.arange(3)
    capsule = to_dlpack(t)
    assert capsule_name(capsule) == "dltensor"
    assert from_dlpack(capsule).tolist() == [0, 1, 2]


def test_requires_grad_tensor_is_not_exported(monkeypatch):
    monkeypatch.setattr(nabla.Tensor, "requires_grad", property(lambda self: True), raising=False)
    with pytest.raises(RuntimeError, match="Can't export tensors that require gradient, use tensor.detach()"):
        nabla.ones(2).__dlpack__()


def test_export_cost_does_not_touch_the_data():
    big = nabla.empty(64 << 20, dtype=nabla.uint8)
    assert lib.nb_tensor_version(big._h) == 0
    out = nabla.from_dlpack(big)
    assert out.data_ptr() == big.data_ptr() and out.numel() == 64 << 20


def test_exported_memory_cannot_move_while_a_consumer_holds_it():
    """resize_ and share_memory_ would move the bytes a DLPack consumer points at: both are refused
    until the export is released, then work."""
    t = nabla.zeros(4)
    view = np.from_dlpack(t)
    with pytest.raises(RuntimeError, match="exported through DLPack"):
        t.resize_(1000)
    with pytest.raises(RuntimeError, match="exported through DLPack"):
        t.share_memory_()
    view[0] = 7.0
    assert t[0].item() == 7.0
    del view
    gc.collect()
    t.resize_(1000)
    assert tuple(t.shape) == (1000,) and t[0].item() == 7.0
    t.resize_(2)  # shrinking never moves the bytes
    cap = t.__dlpack__()
    t.resize_(1)
    del cap
    gc.collect()
