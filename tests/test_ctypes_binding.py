"""A raw-FFI binding generated from the manifest alone (conformance/ctypes_binding.py: ctypes,
no cffi, no nabla package) runs the whole conformance suite, in a process where importing
nabla or cffi fails."""
from __future__ import annotations

import ctypes
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CONFORMANCE = ROOT / "conformance"
sys.path.insert(0, str(CONFORMANCE))
import ctypes_binding  # noqa: E402

# Runs conformance/run.py --ctypes with nabla and cffi made unimportable.
NO_NABLA = ("import runpy, sys; sys.modules['nabla'] = None; sys.modules['cffi'] = None; "
            f"sys.argv = ['run.py', '--ctypes'] + sys.argv[1:]; "
            f"runpy.run_path({str(CONFORMANCE / 'run.py')!r}, run_name='__main__')")


def _config(*args: str) -> str:
    return subprocess.run([sys.executable, "-m", "nabla.config", *args], capture_output=True, text=True,
                          check=True).stdout.strip()


@pytest.fixture(scope="module")
def env() -> dict:
    """The library and the manifest as an out-of-tree binding finds them (no checkout paths)."""
    libdirs = [f[2:] for f in shlex.split(_config("--libs")) if f.startswith("-L")]
    return {**os.environ, "NABLA_LIB": _config("--libdir"), "NABLA_ABIDIR": _config("--abidir"),
            # scipy-openblas32 may live in another site directory than libnabla's rpath expects
            "LD_LIBRARY_PATH": os.pathsep.join(libdirs + [os.environ.get("LD_LIBRARY_PATH", "")])}


def test_ctypes_runner_passes_the_conformance_suite(env):
    r = subprocess.run([sys.executable, "-c", NO_NABLA], cwd=CONFORMANCE, env=env, capture_output=True,
                       text=True, timeout=300)
    lines = r.stdout.strip().splitlines()
    assert lines, r.stderr
    m = re.fullmatch(r"(\d+) passed, (\d+) failed, (\d+) skipped", lines[-1])
    assert m, r.stdout[-3000:] + r.stderr[-3000:]
    passed, failed, skipped = map(int, m.groups())
    fails = [ln for ln in lines if ln.startswith("FAIL")]
    assert r.returncode == 0 and failed == 0, "\n".join(fails[:30]) + r.stderr[-2000:]
    assert passed > 1000
    assert all("needs cuda" in ln or "no CUDA" in ln for ln in lines if ln.startswith("SKIP"))


def test_every_function_gets_a_prototype_from_the_manifest(env, monkeypatch):
    for k in ("NABLA_LIB", "NABLA_ABIDIR"):
        monkeypatch.setenv(k, env[k])
    nb = ctypes_binding.Binding.load()
    assert nb.missing == []
    proto = nb.lib.nb_tensor_from_host.argtypes
    assert proto[1]._type_ is ctypes.c_int64 and proto[6]._type_ is ctypes.c_void_p  # shape [in: ndim]; out [out: 1]
    assert nb.lib.nb_load.argtypes[0] is ctypes.c_char_p  # path [in: string]
    assert nb.lib.nb_argmax.argtypes[1]._type_ is ctypes.c_int64  # dim [in: scalar-optional]
    stats = nb.structs["nb_memory_stats"]()  # laid out as abi_lock.json records
    assert ctypes.sizeof(stats) == nb.layouts["nb_memory_stats"]["size"]
    stats.struct_size = ctypes.sizeof(stats)
    assert nb.lib.nb_memory_stats_get(nb.constants["NB_CPU"], 0, stats) == nb.constants["NB_OK"]
    assert stats.live_tensors >= 0 and stats.struct_size == ctypes.sizeof(stats)
    # DLPack's structs from dlpack.json's field types, at the sizes and offsets abi_lock.json measured
    assert set(nb.dlpack) >= {"DLTensor", "DLManagedTensor", "DLManagedTensorVersioned"}
    assert ctypes.sizeof(nb.dlpack["DLTensor"]) == nb.layouts["DLTensor"]["size"]
    assert nb.dlpack["DLManagedTensorVersioned"].dl_tensor.offset == \
        nb.layouts["DLManagedTensorVersioned"]["offsets"]["dl_tensor"]


def test_a_pointer_without_direction_and_length_is_refused(env, monkeypatch):
    monkeypatch.setenv("NABLA_LIB", env["NABLA_LIB"])
    nb = ctypes_binding.Binding.load()
    with pytest.raises(ValueError, match="without direction and length"):
        nb.ctype("const int64_t*", None)
    assert nb.ctype("const int64_t*", ["in", "scalar-optional"])._type_ is not None
