"""The ABI manifest, the public header and the installed library agree."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import cffi
import pytest

import nabla
from nabla import config

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "abi"))
import gen  # noqa: E402

MANIFEST = gen.load()
HEADER = (ROOT / "include" / "nabla.h").read_text()


def test_generated_files_are_fresh():
    result = subprocess.run([sys.executable, str(ROOT / "abi" / "gen.py"), "check"], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_installed_header_is_the_repository_header():
    assert (config.INCLUDE_DIR / "nabla.h").read_text() == HEADER


def test_header_declares_exactly_the_manifest_functions():
    declared = set(re.findall(r"^NB_API [^(]*?\b(nb_\w+)\(", HEADER, flags=re.M))
    assert declared == gen.exported_symbols(MANIFEST)


@pytest.mark.skipif(shutil.which("nm") is None, reason="nm (binutils) is not installed")
def test_library_exports_exactly_the_manifest_functions():
    lib_path = config.LIB_DIR / "libnabla.so"
    out = subprocess.run(["nm", "-D", "--defined-only", str(lib_path)], capture_output=True, text=True, check=True)
    exported = {line.split()[-1] for line in out.stdout.splitlines() if line.split()[1:2] == ["T"]}
    expected = gen.exported_symbols(MANIFEST)
    assert exported - expected == set(), "exported but not in abi/nabla.json"
    assert expected - exported == set(), "in abi/nabla.json but not exported"


def test_python_binding_sees_every_function_and_constant():
    lib = nabla._lib
    for name in gen.exported_symbols(MANIFEST):
        assert hasattr(lib, name), name
    for group in MANIFEST["constants"]:
        for name, value, _ in group["values"]:
            assert getattr(lib, name) == value, name


def test_header_has_no_constructs_ffi_generators_choke_on():
    body = re.sub(r"/\*.*?\*/", "", HEADER, flags=re.S)
    for pattern in (r"\benum\b", r"\binline\b", r"_Complex", r":\s*\d+\s*;", r"\bbool\b"):
        assert not re.search(pattern, body), pattern


def test_header_parses_with_cffi_after_preprocessing(tmp_path):
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler to preprocess the header")
    stripped = "\n".join(line for line in HEADER.splitlines() if not line.startswith("#include"))
    src = tmp_path / "h.h"
    src.write_text(stripped)
    pre = subprocess.run([cc, "-E", "-P", "-DNB_API=", str(src)], capture_output=True, text=True, check=True).stdout
    ffi = cffi.FFI()
    ffi.cdef(pre)  # raises on anything cffi cannot parse
    declared = {key.split(" ", 1)[1] for key in ffi._parser._declarations if key.startswith("function ")}
    assert declared == gen.exported_symbols(MANIFEST)


@pytest.mark.parametrize("compiler,flags", [("cc", ["-std=c11", "-pedantic", "-Wall", "-Wextra", "-Werror"]),
                                            ("c++", ["-std=c++11", "-Wall", "-Wextra", "-Werror"])])
def test_header_compiles_standalone(tmp_path, compiler, flags):
    exe = shutil.which(compiler)
    if exe is None:
        pytest.skip(f"{compiler} is not installed")
    src = tmp_path / ("t.c" if compiler == "cc" else "t.cpp")
    src.write_text('#include "nabla.h"\nint main(void) { return NB_VERSION_MAJOR * 0; }\n')
    subprocess.run([exe, *flags, f"-I{config.INCLUDE_DIR}", "-c", str(src), "-o", str(tmp_path / "t.o")],
                   check=True, capture_output=True)


def test_version_query_matches_the_manifest():
    major, minor, patch = MANIFEST["version"]
    assert nabla._lib.nb_version() == major * 10000 + minor * 100 + patch
    assert nabla.__version__ == f"{major}.{minor}.{patch}"


def test_status_names_cover_every_status_constant():
    lib, ffi = nabla._lib, nabla._ffi
    statuses = next(g for g in MANIFEST["constants"] if g["group"] == "status")["values"]
    for name, value, _ in statuses:
        assert ffi.string(lib.nb_status_name(value)).decode() == name
    assert ffi.string(lib.nb_status_name(len(statuses))).decode() == "NB_UNKNOWN_STATUS"


def test_the_manifest_is_found_without_a_checkout():
    """--abidir names the manifest a binding generator reads (installed beside the package by meson.build,
    the checkout's abi/ in an editable install): the same functions and ops, and the struct layouts."""
    abidir = Path(subprocess.run([sys.executable, "-m", "nabla.config", "--abidir"], capture_output=True, text=True,
                                 check=True).stdout.strip())
    there = gen.load(abidir / "nabla.json")
    assert [f["name"] for f in there["functions"] + there["ops"]] == [f["name"] for f in MANIFEST["functions"] +
                                                                        MANIFEST["ops"]]
    import json
    lock = json.loads((abidir / "abi_lock.json").read_text())
    assert {"DLTensor", "DLManagedTensorVersioned", "nb_memory_stats"} <= set(lock["structs"])
    meson = (ROOT / "meson.build").read_text()
    assert "install_data('abi/nabla.json', 'abi/abi_lock.json'" in meson and "install_subdir('abi/ops'" in meson
