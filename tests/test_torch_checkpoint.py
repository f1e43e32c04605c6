"""PyTorch's checkpoint format in nabla.save / nabla.load, against torch 2.13 in both
directions: torch.save -> nabla.load (zip and legacy formats, shared storages and views,
parameters, dtypes, map_location, weights_only's allowlist and its extensions) and
nabla.save -> torch.load; whole objects (a model, argparse.Namespace, NumPy arrays) with
weights_only=False; a PyTorch state dict loaded into a nabla model in a process where torch
cannot be imported; safetensors still chosen by name, flag or contents."""
from __future__ import annotations

import argparse
import io
import pickle
import subprocess
import sys
from collections import OrderedDict

import numpy as np
import pytest

import nabla
import nabla.nn as nn

torch = pytest.importorskip("torch")

DTYPES = ["float32", "float64", "float16", "bfloat16", "int8", "int16", "int32", "int64", "uint8", "bool"]


def _np(t):
    return t.detach().float().numpy() if t.dtype in (nabla.bfloat16,) else t.detach().numpy()


def _tnp(t):
    return t.detach().float().numpy() if t.dtype == torch.bfloat16 else t.detach().numpy()


def _torch_bytes(obj, **kw) -> io.BytesIO:
    b = io.BytesIO()
    torch.save(obj, b, **kw)
    b.seek(0)
    return b


def _nabla_bytes(obj, **kw) -> io.BytesIO:
    b = io.BytesIO()
    nabla.save(obj, b, **kw)
    b.seek(0)
    return b


@pytest.mark.parametrize("legacy", [False, True], ids=["zip", "legacy"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_torch_save_of_every_dtype_loads_in_nabla(dtype, legacy):
    t = (torch.arange(-3, 9).reshape(3, 4) % 5).to(getattr(torch, dtype))
    obj = {"t": t, "strided": t.t()[1:], "scalar": t[1, 2]}
    back = nabla.load(_torch_bytes(obj, _use_new_zipfile_serialization=not legacy))
    for k, v in obj.items():
        assert back[k].dtype is getattr(nabla, dtype)
        assert tuple(back[k].shape) == tuple(v.shape) and tuple(back[k].stride()) == tuple(v.stride())
        np.testing.assert_array_equal(_np(back[k]), _tnp(v))


@pytest.mark.parametrize("legacy", [False, True], ids=["zip", "legacy"])
def test_shared_storages_and_views_stay_shared(legacy):
    base = torch.arange(12.0)
    obj = {"base": base, "view": base.view(3, 4)[:, 1], "again": base}
    back = nabla.load(_torch_bytes(obj, _use_new_zipfile_serialization=not legacy))
    assert back["base"] is back["again"]
    back["base"][1] = 100.0
    assert back["view"].tolist() == [100.0, 5.0, 9.0]
    assert back["view"].storage_offset() == 1 and back["view"].stride() == (4,)


def test_nabla_save_is_read_by_torch_load_with_views_shared():
    x = nabla.arange(12.0).view(3, 4)
    obj = {"x": x, "col": x[:, 1], "p": nn.Parameter(nabla.ones(2)), "n": 3, "f": 0.5, "s": "text",
           "dtype": nabla.float16, "size": x.shape, "dev": nabla.device("cpu"), "nested": [(1, nabla.tensor([True]))],
           "od": OrderedDict(a=nabla.zeros(1))}
    back = torch.load(_nabla_bytes(obj))  # weights_only=True: only PyTorch's allowlist is used
    np.testing.assert_array_equal(back["x"].numpy(), x.numpy())
    back["x"][0, 1] = -1.0
    assert back["col"].tolist() == [-1.0, 5.0, 9.0]
    assert isinstance(back["p"], torch.nn.Parameter) and back["p"].requires_grad
    assert (back["n"], back["f"], back["s"]) == (3, 0.5, "text")
    assert back["dtype"] is torch.float16 and back["size"] == torch.Size([3, 4]) and back["dev"] == torch.device("cpu")
    assert back["nested"][0][1].dtype == torch.bool and isinstance(back["od"], OrderedDict)


@pytest.mark.parametrize("dtype", DTYPES)
def test_nabla_save_of_every_dtype_round_trips_through_torch(dtype):
    t = (nabla.arange(-3, 9).reshape(3, 4) % 5).to(getattr(nabla, dtype))
    back = torch.load(_nabla_bytes({"t": t.t()}))["t"]
    assert back.dtype == getattr(torch, dtype) and back.stride() == (1, 4)
    np.testing.assert_array_equal(_tnp(back), _np(t.t()))
    again = nabla.load(_torch_bytes(back))
    np.testing.assert_array_equal(_np(again), _np(t.t()))


def test_model_state_dict_and_optimizer_state_move_between_torch_and_nabla():
    tm = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
    topt = torch.optim.Adam(tm.parameters())
    tm(torch.randn(3, 4)).sum().backward()
    topt.step()
    ckpt = {"model": tm.state_dict(), "optimizer": topt.state_dict(), "epoch": 7}
    back = nabla.load(_torch_bytes(ckpt))
    m = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    m.load_state_dict(back["model"])
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    np.testing.assert_allclose(m(nabla.tensor(x)).detach().numpy(), tm(torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-6)
    assert back["epoch"] == 7 and back["optimizer"]["param_groups"][0]["lr"] == 0.001
    np.testing.assert_array_equal(back["optimizer"]["state"][0]["exp_avg"].numpy(),
                                  topt.state_dict()["state"][0]["exp_avg"].numpy())
    # and back: a nabla state dict loads into the torch model
    tm2 = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
    tm2.load_state_dict(torch.load(_nabla_bytes(m.state_dict())))
    np.testing.assert_array_equal(tm2(torch.tensor(x)).detach().numpy(), tm(torch.tensor(x)).detach().numpy())


def test_weights_only_refuses_other_globals_as_torch_and_safe_globals_admit_them():
    ns = argparse.Namespace(lr=0.1, epochs=3)
    for data in (_torch_bytes({"args": ns}), _nabla_bytes({"args": ns})):
        raw = data.getvalue()
        with pytest.raises(pickle.UnpicklingError, match="Weights only load failed.*argparse.Namespace"):
            nabla.load(io.BytesIO(raw))
        with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
            torch.load(io.BytesIO(raw))
        with nabla.serialization.safe_globals([argparse.Namespace]):
            assert nabla.load(io.BytesIO(raw))["args"] == ns
        with pytest.raises(pickle.UnpicklingError):
            nabla.load(io.BytesIO(raw))
        nabla.serialization.add_safe_globals([argparse.Namespace])
        try:
            assert nabla.serialization.get_safe_globals() == [argparse.Namespace]
            assert nabla.load(io.BytesIO(raw))["args"] == ns
        finally:
            nabla.serialization.clear_safe_globals()
        assert nabla.load(io.BytesIO(raw), weights_only=False)["args"] == ns


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)
        self.drop = nn.Dropout(0.1)

    def forward(self, x):
        return self.drop(self.fc(x))


def test_whole_objects_round_trip_with_weights_only_false(tmp_path):
    """What word_language_model and others save: the model object, args, NumPy arrays, an epoch number."""
    model = Net()
    arr = np.arange(6).reshape(2, 3)
    path = tmp_path / "model.pt"
    nabla.save({"model": model, "args": argparse.Namespace(lr=0.5), "arr": arr, "epoch": 4}, path)
    back = nabla.load(path, weights_only=False)
    x = nabla.randn(4, 3)
    model.eval()
    back["model"].eval()
    np.testing.assert_array_equal(back["model"](x).detach().numpy(), model(x).detach().numpy())
    assert [n for n, _ in back["model"].named_parameters()] == ["fc.weight", "fc.bias"]
    assert back["args"].lr == 0.5 and back["epoch"] == 4
    np.testing.assert_array_equal(back["arr"], arr)
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        nabla.load(path)
    # torch reads it too when nabla is importable (the classes are nabla's)
    assert isinstance(torch.load(path, weights_only=False)["model"], Net)


def test_a_torch_module_object_loads_as_its_nabla_namesake():
    tm = torch.nn.Linear(3, 2)
    back = nabla.load(_torch_bytes(tm), weights_only=False)
    assert isinstance(back, nn.Linear)
    x = np.ones((1, 3), np.float32)
    np.testing.assert_allclose(back(nabla.tensor(x)).detach().numpy(), tm(torch.tensor(x)).detach().numpy(), rtol=1e-6)


def test_map_location_forms():
    b = _torch_bytes({"w": torch.ones(2)}).getvalue()
    assert nabla.load(io.BytesIO(b), map_location="cpu")["w"].device.type == "cpu"
    assert nabla.load(io.BytesIO(b), map_location=nabla.device("cpu"))["w"].device.type == "cpu"
    assert nabla.load(io.BytesIO(b), map_location={"cpu": "cpu"})["w"].device.type == "cpu"
    seen = []
    nabla.load(io.BytesIO(b), map_location=lambda storage, loc: seen.append(loc))
    assert seen == ["cpu"]
    if not nabla.cuda.is_available():
        with pytest.raises(RuntimeError, match="CUDA is not available"):
            nabla.load(io.BytesIO(b), map_location="cuda")


def test_huggingface_style_bin_loads_without_torch(tmp_path):
    """A pytorch_model.bin (torch.save of a state dict) loads into a nabla model where torch cannot be imported."""
    tm = torch.nn.Sequential(torch.nn.Embedding(10, 4), torch.nn.LayerNorm(4), torch.nn.Linear(4, 3))
    sd = tm.state_dict()
    path = tmp_path / "pytorch_model.bin"
    torch.save(sd, path)
    expected = tm(torch.tensor([[1, 2, 3]])).detach().numpy()
    np.save(tmp_path / "expected.npy", expected)
    code = f"""
import sys
sys.modules['torch'] = None  # any import of torch now fails
import numpy as np, nabla, nabla.nn as nn
m = nn.Sequential(nn.Embedding(10, 4), nn.LayerNorm(4), nn.Linear(4, 3))
m.load_state_dict(nabla.load({str(path)!r}))
out = m(nabla.tensor([[1, 2, 3]])).detach().numpy()
np.testing.assert_allclose(out, np.load({str(tmp_path / 'expected.npy')!r}), rtol=1e-5, atol=1e-6)
assert 'torch' not in [k for k, v in sys.modules.items() if v is not None]
print('ok')
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


def test_safetensors_is_chosen_by_name_flag_or_contents(tmp_path):
    st = pytest.importorskip("safetensors.numpy")
    nabla.save({"a": nabla.ones(2)}, tmp_path / "x.safetensors")
    assert st.load_file(str(tmp_path / "x.safetensors"))["a"].tolist() == [1.0, 1.0]
    buf = _nabla_bytes({"a": nabla.ones(2)}, format="safetensors")
    assert buf.getvalue()[:4] != b"PK\x03\x04"
    assert nabla.load(buf)["a"].tolist() == [1.0, 1.0]
    nabla.save({"a": nabla.ones(2)}, tmp_path / "x.pt")
    assert (tmp_path / "x.pt").read_bytes()[:4] == b"PK\x03\x04"
    (tmp_path / "renamed.pt").write_bytes((tmp_path / "x.safetensors").read_bytes())
    assert nabla.load(tmp_path / "renamed.pt")["a"].tolist() == [1.0, 1.0]  # contents decide, not the name
    with pytest.raises(ValueError, match="format must be 'torch' or 'safetensors'"):
        nabla.save({}, io.BytesIO(), format="onnx")


def test_a_safetensors_header_length_ending_in_0x80_is_not_taken_for_a_pickle():
    """Found by tests/fuzz/fuzz_load.py: a header of 128 bytes starts the file with 0x80, a pickle's first byte."""
    for pad in range(200):
        buf = _nabla_bytes({"a" * (1 + pad): nabla.ones(1)}, format="safetensors")
        if buf.getvalue()[0] == 0x80:
            assert nabla.load(buf)["a" * (1 + pad)].tolist() == [1.0]
            return
    pytest.fail("no header of 128 bytes was produced")  # the keys above cover lengths 56..255


def test_corrupt_torch_checkpoints_raise_clear_errors(tmp_path):
    good = _torch_bytes({"w": torch.arange(4.0)}).getvalue()
    with pytest.raises(RuntimeError, match="nabla.load: not a valid PyTorch zip checkpoint"):
        nabla.load(io.BytesIO(good[:40]))
    import zipfile
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w") as z:
        z.writestr("archive/data.pkl", zipfile.ZipFile(io.BytesIO(good)).read("archive/data.pkl"))
    with pytest.raises(RuntimeError, match="has no record archive/data/0"):
        nabla.load(io.BytesIO(b.getvalue()))
    cplx = _torch_bytes({"c": torch.ones(2, dtype=torch.complex64)})
    with pytest.raises(pickle.UnpicklingError, match="ComplexFloatStorage is not supported"):
        nabla.load(cplx)
