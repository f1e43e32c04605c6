"""Released handles through the raw ABI: a stale tensor handle is refused, never
aliased by a tensor made after it, and a double release arrives as a UserWarning."""
from __future__ import annotations

import pytest

import nabla
from nabla._lib import ffi, lib


def _new_handle(value: float):
    out = ffi.new("nb_tensor**")
    shape = ffi.new("int64_t[1]", [8])
    assert lib.nb_full(shape, 1, value, lib.NB_F32, lib.NB_CPU, 0, out) == lib.NB_OK
    return out[0]


def _add_status(a, b):
    out = ffi.new("nb_tensor**")
    st = lib.nb_add(a, b, 1.0, ffi.NULL, out)
    if st == lib.NB_OK:
        lib.nb_tensor_release(out[0])
    return st


def test_stale_handle_is_refused_after_new_tensors_are_made():
    a = _new_handle(1.0)
    gone = _new_handle(2.0)
    lib.nb_tensor_release(gone)
    made = [nabla.ones(8) + 1 for _ in range(500)]  # the Python frontend churns handles too
    assert all(ffi.cast("intptr_t", t._h) != ffi.cast("intptr_t", gone) for t in made)
    assert _add_status(gone, a) == lib.NB_ERR_INVALID_ARGUMENT
    message = ffi.string(lib.nb_last_error_message()).decode()
    assert "add: tensor 'a' is not a live nabla tensor: it was released" in message
    lib.nb_tensor_release(a)


def test_double_release_warns():
    h = _new_handle(3.0)
    lib.nb_tensor_release(h)
    with pytest.warns(UserWarning, match=r"nb_tensor_release: tensor .* was already released \(double release"):
        lib.nb_tensor_release(h)

