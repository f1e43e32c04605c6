"""nabla.save / nabla.load: safetensors files both ways with the `safetensors`
package, every dtype, nested checkpoints, atomic writes, and clear errors for
truncated or corrupt files."""
from __future__ import annotations

import io
import json
import os
import struct

import numpy as np
import pytest

import nabla
import nabla.nn as nn
import nabla.optim as optim

DTYPES = [nabla.float32, nabla.float64, nabla.float16, nabla.bfloat16, nabla.int64, nabla.int32, nabla.int16,
          nabla.int8, nabla.uint8, nabla.bool]


def _sample(dtype):
    t = nabla.arange(-6, 6).reshape(3, 4)
    return (t > 0) if dtype == nabla.bool else t.to(dtype)


def test_round_trip_every_dtype_shape_and_view(tmp_path):
    tensors = {d.name: _sample(d) for d in DTYPES}
    tensors["empty"] = nabla.zeros(0, 3)
    tensors["scalar"] = nabla.tensor(2.5)
    tensors["view"] = nabla.arange(12.0).reshape(3, 4).T[1:]  # strided: saved as its values
    path = tmp_path / "t.safetensors"
    nabla.save(tensors, path)
    back = nabla.load(path)
    assert list(back) == list(tensors)
    for k, v in tensors.items():
        assert back[k].dtype == v.dtype and back[k].shape == v.shape
        np.testing.assert_array_equal(back[k].float().numpy(), v.float().numpy())


def test_single_tensor_and_nested_checkpoint(tmp_path):
    t = nabla.randn(4, 5)
    nabla.save(t, tmp_path / "one", format="safetensors")
    back = nabla.load(tmp_path / "one")
    assert isinstance(back, nabla.Tensor)
    np.testing.assert_array_equal(back.numpy(), t.numpy())
    ckpt = {"epoch": 3, "lr": 0.1, "best": float("inf"), "name": "run", "done": None, "shape": (2, 3),
            "model": {"w": nabla.ones(2)}, "hist": [nabla.zeros(1), 1.5], 7: "int key"}
    buf = io.BytesIO()
    nabla.save(ckpt, buf, format="safetensors")
    buf.seek(0)
    back = nabla.load(buf)
    assert back["epoch"] == 3 and back["best"] == float("inf") and back["shape"] == (2, 3) and back[7] == "int key"
    assert back["done"] is None and back["name"] == "run" and back["hist"][1] == 1.5
    np.testing.assert_array_equal(back["model"]["w"].numpy(), [1.0, 1.0])
    with pytest.raises(TypeError, match="cannot save an object of type object"):
        nabla.save({"x": object()}, io.BytesIO(), format="safetensors")


def test_model_and_optimizer_checkpoint_reloads(tmp_path):
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 2))
    opt = optim.Adam(model.parameters(), lr=0.01)
    for p in model.parameters():
        p.grad = nabla.ones(*p.shape)
    opt.step()
    nabla.save({"model": model.state_dict(), "optim": opt.state_dict()}, tmp_path / "ckpt.safetensors")
    ckpt = nabla.load(tmp_path / "ckpt.safetensors")
    model2 = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 2))
    model2.load_state_dict(ckpt["model"])
    opt2 = optim.Adam(model2.parameters(), lr=0.5)
    opt2.load_state_dict(ckpt["optim"])
    assert opt2.param_groups[0]["lr"] == 0.01 and opt2.param_groups[0]["betas"] == (0.9, 0.999)
    for (k, a), b in zip(model.state_dict().items(), model2.state_dict().values()):
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=k)
    st = opt2.state[next(iter(model2.parameters()))]
    assert st["step"] == 1 and st["exp_avg"].shape == (4, 3)


def test_files_interoperate_with_the_safetensors_package(tmp_path):
    st = pytest.importorskip("safetensors.numpy")
    ours = {"w": nabla.randn(3, 2), "i": nabla.arange(5), "h": nabla.ones(2, dtype=nabla.float16),
            "b": nabla.tensor([True, False])}
    nabla.save(ours, tmp_path / "a.safetensors", metadata={"format": "pt"})
    theirs = st.load_file(str(tmp_path / "a.safetensors"))
    for k, v in ours.items():
        np.testing.assert_array_equal(theirs[k], v.numpy())
    arrays = {"x": np.arange(6, dtype=np.float64).reshape(2, 3), "y": np.array([1, 2], dtype=np.int32),
              "z": np.zeros((0, 2), dtype=np.float32), "u": np.array([7], dtype=np.uint8)}
    st.save_file(arrays, str(tmp_path / "b.safetensors"), metadata={"k": "v"})
    back = nabla.load(tmp_path / "b.safetensors")
    for k, v in arrays.items():
        np.testing.assert_array_equal(back[k].numpy(), v)
        assert back[k].numpy().dtype == v.dtype


def test_bfloat16_interoperates_with_torch_safetensors(tmp_path):
    torch = pytest.importorskip("torch")
    st = pytest.importorskip("safetensors.torch")
    t = torch.tensor([1.5, -2.25, 3e38], dtype=torch.bfloat16)
    st.save_file({"t": t}, str(tmp_path / "bf.safetensors"))
    back = nabla.load(tmp_path / "bf.safetensors")["t"]
    assert back.dtype == nabla.bfloat16
    np.testing.assert_array_equal(back.float().numpy(), t.float().numpy())
    nabla.save({"t": back}, tmp_path / "bf2.safetensors")
    assert torch.equal(st.load_file(str(tmp_path / "bf2.safetensors"))["t"], t)


def test_save_is_atomic(tmp_path, monkeypatch):
    path = tmp_path / "ckpt.safetensors"
    nabla.save({"a": nabla.ones(3)}, path)
    good = path.read_bytes()

    def crash(*args):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError, match="disk full"):
        nabla.save({"a": nabla.zeros(1000)}, path)
    assert path.read_bytes() == good  # the old checkpoint is intact
    assert os.listdir(tmp_path) == ["ckpt.safetensors"]  # and no temporary file is left behind


def _corrupt_cases(good: bytes):
    n = struct.unpack_from("<Q", good)[0]
    header = json.loads(good[8:8 + n])

    def with_header(h):
        text = json.dumps(h).encode()
        return struct.pack("<Q", len(text)) + text + good[8 + n:]

    bad_offsets = dict(header, a={**header["a"], "data_offsets": [0, 4]})
    bad_dtype = dict(header, a={**header["a"], "dtype": "F8"})
    past_end = dict(header, a={**header["a"], "data_offsets": [8, 20]})
    return [
        (good[:5], "fewer than the 8-byte header length"),
        (good[:20], "exceeds the file size"),
        (good[:-4], "truncated"),
        (struct.pack("<Q", 2 ** 40) + good[8:], "too large"),
        (good[:8] + b"x" + good[9:], "not valid JSON"),
        (with_header(bad_offsets), "do not hold its 12 bytes"),
        (with_header(bad_dtype), "invalid entry"),
        (with_header(past_end), "ends at byte 20"),
        (with_header([1, 2]), "not a JSON object"),
        (with_header({"__metadata__": 5}), "__metadata__ is 5, not a JSON object"),  # found by tests/fuzz/fuzz_load.py
        (with_header(dict(header, a={**header["a"], "shape": [2 ** 64, 0]})), "Storage size calculation overflowed"),
        (with_header(dict(header, a={**header["a"], "shape": [1] * 17})), "17 dims"),
        (with_header(dict(header, a={**header["a"], "data_offsets": [0, float("inf")]})), "expected [begin, end] integers"),
    ]


def test_truncated_or_corrupt_files_raise_clear_errors(tmp_path):
    buf = io.BytesIO()
    nabla.save({"a": nabla.ones(3)}, buf, format="safetensors")
    for data, why in _corrupt_cases(buf.getvalue()):
        path = tmp_path / "bad.safetensors"
        path.write_bytes(data)
        with pytest.raises(RuntimeError, match="is not a valid safetensors file") as e:
            nabla.load(path)
        assert why in str(e.value), (why, str(e.value))


def _file_with(header: dict, data: bytes) -> bytes:
    text = json.dumps(header).encode()
    return struct.pack("<Q", len(text)) + text + data


@pytest.mark.parametrize("entry, why", [
    ({"dtype": "F64", "shape": [2**63 - 1, 6, 0, 6], "data_offsets": [0, 0]}, "Storage size calculation overflowed"),
    ({"dtype": "F32", "shape": [4, 2**63 - 1, 0], "data_offsets": [0, 0]}, "Storage size calculation overflowed"),
    ({"dtype": "I8", "shape": [2**63, 0], "data_offsets": [0, 0]}, "Storage size calculation overflowed"),
    ({"dtype": "F32", "shape": [2**64 + 3], "data_offsets": [0, 16]}, "Storage size calculation overflowed"),
    ({"dtype": "F32", "shape": [1.5], "data_offsets": [0, 4]}, "expected a list of integers"),
    ({"dtype": "F32", "shape": [True], "data_offsets": [0, 4]}, "expected a list of integers"),
    ({"dtype": "F32", "shape": 4, "data_offsets": [0, 16]}, "expected a list of integers"),
    ({"dtype": "F32", "shape": [1] * 17, "data_offsets": [0, 4]}, "17 dims"),
    ({"dtype": "F32", "shape": [1], "data_offsets": [0, 4, 8]}, "expected [begin, end] integers"),
    ({"dtype": "F32", "shape": [1], "data_offsets": ["0", "4"]}, "expected [begin, end] integers"),
    ({"dtype": "F32", "shape": [1], "data_offsets": [-4, 0]}, "do not hold its 4 bytes"),
    ({"dtype": "F32", "shape": [1], "data_offsets": [2**64, 2**64 + 4]}, "ends at byte 18446744073709551620"),
], ids=["huge_beside_zero", "huge_middle", "dim_2_63", "dim_2_64", "float_dim", "bool_dim", "shape_not_list",
        "too_many_dims", "three_offsets", "string_offsets", "negative_offset", "offset_past_2_64"])
def test_crafted_headers_fail_naming_the_file_and_the_tensor(tmp_path, entry, why):
    """A checkpoint is untrusted input: a shape with a 0 and a huge dim used to make a tensor that crashed later,
    a dim >= 2^63 raised a bare 'OverflowError: int too big to convert'. The safetensors package refuses these
    files too."""
    path = tmp_path / "crafted.safetensors"
    path.write_bytes(_file_with({"evil": entry}, bytes(16)))
    with pytest.raises(RuntimeError, match="is not a valid safetensors file") as e:
        nabla.load(path)
    assert why in str(e.value) and "'evil'" in str(e.value) and "crafted.safetensors" in str(e.value), str(e.value)
    safetensors_numpy = pytest.importorskip("safetensors.numpy")
    with pytest.raises(Exception):  # noqa: B017 - its own SafetensorError (or a JSON/type error)
        safetensors_numpy.load_file(str(path))


def test_overlapping_data_offsets_are_refused(tmp_path):
    path = tmp_path / "overlap.safetensors"
    header = {"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
              "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}}
    path.write_bytes(_file_with(header, bytes(16)))
    with pytest.raises(RuntimeError, match=r"tensors 'a' and 'b' overlap: data_offsets \[0, 8\] and \[4, 12\]"):
        nabla.load(path)
    # empty tensors occupy no bytes: they may share an offset with anything
    header = {"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
              "e": {"dtype": "F32", "shape": [0, 3], "data_offsets": [4, 4]}}
    path.write_bytes(_file_with(header, bytes(8)))
    loaded = nabla.load(path)
    assert loaded["a"].tolist() == [0.0, 0.0] and loaded["e"].shape == (0, 3)


def test_bad_metadata_is_a_clear_error(tmp_path):
    path = tmp_path / "meta.safetensors"
    path.write_bytes(_file_with({"__metadata__": ["not", "a", "dict"]}, b""))
    with pytest.raises(RuntimeError, match="__metadata__ is"):
        nabla.load(path)
