"""NumPy interop: from_numpy, as_tensor, numpy() and __array__ share memory
(PyTorch's semantics and messages); read-only arrays give read-only tensors,
and every writer in the ABI refuses those."""
from __future__ import annotations

import ctypes
import gc
import sys
import threading
import weakref
from pathlib import Path

import numpy as np
import pytest

import nabla
from nabla._lib import ffi, lib

from conftest import NP_OF

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "abi"))
import gen  # noqa: E402


@pytest.mark.parametrize("dtype", list(NP_OF), ids=str)
def test_from_numpy_shares_memory_and_keeps_the_array_alive(dtype):
    a = np.arange(10).astype(NP_OF[dtype])
    alive = weakref.ref(a)
    t = nabla.from_numpy(a)
    assert t.dtype is dtype and t.data_ptr() == a.ctypes.data
    t[3] = 0
    assert a[3] == 0
    del a
    gc.collect()
    assert alive() is not None
    assert t[3].item() == 0
    del t
    gc.collect()
    assert alive() is None


def test_from_numpy_views_zero_dim_and_empty_and_a_release_on_another_thread():
    a = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    for v in (a.T, a[:, 1:, ::2], np.asfortranarray(a), a[1], a[:, :0]):
        t = nabla.from_numpy(v)
        assert t.shape == v.shape and t.stride() == tuple(s // 4 for s in v.strides)
        assert t.tolist() == v.tolist() and (v.size == 0 or t.data_ptr() == v.ctypes.data)
    z = nabla.from_numpy(np.full((), 7, np.int16))
    assert z.shape == () and z.dtype is nabla.int16 and z.item() == 7
    b = np.arange(5.0)
    alive = weakref.ref(b)
    t = nabla.from_numpy(b)
    del b
    done = threading.Event()
    holder = [t]
    del t

    def drop():  # nabla's last reference goes on a thread that does not hold the GIL yet
        holder.clear()
        done.set()
    threading.Thread(target=drop).start()
    assert done.wait(10)
    gc.collect()
    assert alive() is None


def test_numpy_shares_memory_with_the_tensor_and_keeps_it_alive():
    t = nabla.arange(12, dtype=nabla.float32).reshape(3, 4)
    v = t.transpose(0, 1)[1:]
    n = v.numpy()
    assert n.ctypes.data == v.data_ptr()
    assert n.strides == tuple(4 * s for s in v.stride())  # strided, like PyTorch
    n[0, 0] = 100
    assert t[0, 1].item() == 100
    del t, v
    gc.collect()
    assert n[0, 0] == 100 and n.tolist() == [[100, 5, 9], [2, 6, 10], [3, 7, 11]]


def test_numpy_of_empty_zero_dim_half_and_bool_tensors():
    e = nabla.zeros(3, 0, 2).transpose(0, 2)
    n = e.numpy()
    assert n.shape == (2, 0, 3) and n.dtype == np.float32 and n.size == 0
    z = nabla.tensor(2.5, dtype=nabla.float16)
    n = z.numpy()
    assert n.shape == () and n.dtype == np.float16 and n[()] == 2.5
    b = nabla.tensor([True, False, True])[::2]
    n = b.numpy()
    assert n.dtype == np.bool_ and n.tolist() == [True, True] and n.strides == (2,)
    n[1] = False  # shared, as every numpy() result
    assert b.tolist() == [True, False]


class _PyBuffer(ctypes.Structure):
    _fields_ = [("buf", ctypes.c_void_p), ("obj", ctypes.py_object), ("len", ctypes.c_ssize_t),
                ("itemsize", ctypes.c_ssize_t), ("readonly", ctypes.c_int), ("ndim", ctypes.c_int),
                ("format", ctypes.c_char_p), ("shape", ctypes.c_void_p), ("strides", ctypes.c_void_p),
                ("suboffsets", ctypes.c_void_p), ("internal", ctypes.c_void_p)]


def test_numpy_buffer_gives_strides_only_to_consumers_that_take_them():
    """The buffer behind numpy() (nabla._capsule.TensorBuffer) under the buffer protocol's
    requests: PyBUF_SIMPLE 0, PyBUF_ND 8, PyBUF_STRIDES 0x18, PyBUF_WRITABLE 1."""
    get, release = ctypes.pythonapi.PyObject_GetBuffer, ctypes.pythonapi.PyBuffer_Release
    get.argtypes, release.argtypes = [ctypes.py_object, ctypes.POINTER(_PyBuffer), ctypes.c_int], [ctypes.POINTER(_PyBuffer)]
    t = nabla.arange(6, dtype=nabla.float32).reshape(2, 3)
    for flags, has_shape, has_strides in ((0, False, False), (8, True, False), (0x18, True, True)):
        view = _PyBuffer()
        get(t.numpy().base.obj, ctypes.byref(view), flags)
        assert (view.len, view.ndim, bool(view.shape), bool(view.strides)) == (24, 2, has_shape, has_strides)
        release(ctypes.byref(view))
    transposed = t.t().numpy().base.obj
    for flags in (0, 8):  # row-major bytes would misread a transposed tensor
        with pytest.raises(BufferError, match="not contiguous"):
            get(transposed, ctypes.byref(_PyBuffer()), flags)
    view = _PyBuffer()
    get(transposed, ctypes.byref(view), 0x18)
    release(ctypes.byref(view))
    a = np.ones(3, np.float32)
    a.flags.writeable = False
    with pytest.raises(BufferError, match="read-only"):
        get(nabla.from_numpy(a).numpy().base.obj, ctypes.byref(_PyBuffer()), 0x18 | 1)


def test_asarray_and_array_protocol():
    t = nabla.arange(6, dtype=nabla.int32)
    a = np.asarray(t)
    assert a.ctypes.data == t.data_ptr() and a.dtype == np.int32
    c = np.array(t)  # np.array copies by default
    assert c.ctypes.data != t.data_ptr() and c.tolist() == list(range(6))
    f = np.asarray(t, dtype=np.float64)
    assert f.dtype == np.float64 and f.tolist() == list(range(6))
    with pytest.raises(ValueError):
        np.asarray(t, dtype=np.float64, copy=False)
    assert np.asarray(t, copy=False).ctypes.data == t.data_ptr()
    assert np.array(t, copy=True).ctypes.data != t.data_ptr()


def test_as_tensor_shares_when_it_can_and_copies_when_it_must():
    a = np.arange(4, dtype=np.float64)
    s = nabla.as_tensor(a)
    assert s.data_ptr() == a.ctypes.data
    c = nabla.as_tensor(a, dtype=nabla.float32)
    assert c.dtype is nabla.float32 and c.data_ptr() != a.ctypes.data
    r = nabla.as_tensor(a[::-1])
    assert r.tolist() == [3, 2, 1, 0] and r.data_ptr() != a.ctypes.data
    assert nabla.as_tensor([1, 2]).tolist() == [1, 2]


def test_from_numpy_errors_match_pytorch():
    with pytest.raises(TypeError, match=r"expected np.ndarray \(got list\)"):
        nabla.from_numpy([1, 2])
    with pytest.raises(TypeError, match="can't convert np.ndarray of type numpy.object_"):
        nabla.from_numpy(np.array([object()]))
    with pytest.raises(ValueError, match="At least one stride in the given numpy array is negative"):
        nabla.from_numpy(np.arange(3.0)[::-1])
    with pytest.raises(ValueError, match="byte order"):
        nabla.from_numpy(np.arange(3, dtype=">i4"))
    odd = np.ndarray((2,), dtype=np.int16, buffer=np.zeros(8, np.uint8), strides=(3,))
    with pytest.raises(ValueError, match="strides not a multiple of the element byte size"):
        nabla.from_numpy(odd)


def test_numpy_refuses_bfloat16_and_requires_grad(monkeypatch):
    with pytest.raises(TypeError, match="Got unsupported ScalarType BFloat16"):
        nabla.ones(2, dtype=nabla.bfloat16).numpy()
    # Autograd's flag: PyTorch's message, whichever way requires_grad is provided.
    monkeypatch.setattr(nabla.Tensor, "requires_grad", property(lambda self: True), raising=False)
    with pytest.raises(RuntimeError, match=r"Can't call numpy\(\) on Tensor that requires grad. "
                                           r"Use tensor.detach\(\).numpy\(\) instead."):
        nabla.ones(2).numpy()


# ---- read-only ----

def read_only(shape=(2, 2), dtype=np.float32):
    a = np.ones(shape, dtype)
    a.flags.writeable = False
    return nabla.from_numpy(a), a


def test_read_only_array_gives_a_read_only_tensor():
    t, a = read_only()
    assert lib.nb_tensor_is_readonly(t._h) == 1
    assert not t.numpy().flags.writeable
    with pytest.raises(RuntimeError, match="read-only"):
        t.add_(1)
    with pytest.raises(RuntimeError, match="read-only"):
        t[0] = 5
    with pytest.raises(RuntimeError, match="read-only"):
        t.copy_(nabla.zeros(2, 2))
    with pytest.raises(RuntimeError, match="read-only"):
        t.uniform_()
    with pytest.raises(RuntimeError, match="read-only"):
        nabla.add(nabla.ones(2, 2), 1, out=t)
    with pytest.raises(RuntimeError, match="read-only"):
        t[1:].zero_()  # views share the flag
    with pytest.raises(BufferError, match="read-only"):
        t.__dlpack__()  # the legacy struct cannot say read-only
    assert (t + 1).sum().item() == 8 and a.sum() == 4  # reading works; nothing was written
    w = t.clone()
    w.add_(1)
    assert lib.nb_tensor_is_readonly(w._h) == 0 and w.sum().item() == 8


def _probe_args(fn: dict, target: str, ro, keep: list) -> list:
    """Valid-looking arguments for fn with ro in the parameter `target`."""
    w = nabla.ones(2, 2)
    idx = nabla.zeros(2, 2, dtype=nabla.int64)
    mask = nabla.ones(2, 2, dtype=nabla.bool)
    keep += [w, idx, mask]
    args = []
    for ctype, name in fn["params"]:
        if name == target:
            v = ro._h
        elif ctype == "nb_tensor*":
            v = ffi.NULL
        elif ctype == "const nb_tensor*":
            v = (idx if "ind" in name else mask if name == "mask" else w)._h
        elif ctype in ("const nb_tensor* const*", "nb_tensor* const*"):
            v = ffi.new("nb_tensor*[]", [(idx if "ind" in name else w)._h] * 2)
        elif name in ("device_index", "low"):
            v = 0
        elif ctype in ("int32_t", "int64_t", "uint64_t"):
            v = 1
        elif ctype == "double":
            v = 0.5
        elif ctype == "nb_tensor**":
            v = ffi.new("nb_tensor*[1]")
        elif ctype == "const int64_t*":
            v = ffi.new("int64_t[]", [1] * 4)
        elif ctype == "const double*":
            v = ffi.new("double[]", [1.0] * 4)
        elif ctype in ("nb_generator*", "nb_comm*", "nb_work**"):  # a destination is checked before these
            v = ffi.NULL
        else:
            raise KeyError(ctype)
        keep.append(v)
        args.append(v)
    return args


WRITERS = [(fn["name"], name) for fn in gen.load()["functions"] + gen.load()["ops"]
           for ctype, name in fn["params"] if ctype == "nb_tensor*"
           and fn["name"] not in ("nb_tensor_retain", "nb_tensor_release", "nb_tensor_share_memory_")
           and fn.get("group") != "autograd"  # requires_grad, .grad, hooks: metadata, not the tensor's memory
           and fn["name"] != "nb_tensor_record_stream"]


def test_every_writer_is_covered():
    assert len(WRITERS) > 100  # every op with a dst, copy_, the in-place random fills, batch_norm's running stats


@pytest.mark.parametrize("name,target", WRITERS, ids=[f"{n}:{t}" for n, t in WRITERS])
def test_every_function_that_writes_refuses_a_read_only_tensor(name, target):
    fn = next(f for f in gen.load()["functions"] + gen.load()["ops"] if f["name"] == name)
    ro, a = read_only()
    keep = []
    status = getattr(lib, name)(*_probe_args(fn, target, ro, keep))
    message = ffi.string(lib.nb_last_error_message()).decode()
    assert status == lib.NB_ERR_INVALID_ARGUMENT and "read-only" in message, (status, message)
    assert (a == 1).all() and ro._version == 0
