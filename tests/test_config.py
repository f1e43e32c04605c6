"""`python -m nabla.config` and the installed layout it points at."""
from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import nabla
import nabla.config


def run_config(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "nabla.config", *args], capture_output=True, text=True,
                          timeout=60)


def test_cflags_and_libs():
    r = run_config("--cflags", "--libs")
    assert r.returncode == 0, r.stderr
    flags = shlex.split(r.stdout)
    includes = [f[2:] for f in flags if f.startswith("-I")]
    libdirs = [f[2:] for f in flags if f.startswith("-L")]
    assert len(includes) == 1 and len(libdirs) == 1
    inc, lib = Path(includes[0]), Path(libdirs[0])
    assert inc.is_absolute() and inc.is_dir() and (inc / "nabla.h").is_file()
    assert lib.is_absolute() and lib.is_dir() and (lib / "libnabla.so").is_file()
    assert "-lnabla" in flags
    rpaths = [f.split(",", 2)[2] for f in flags if f.startswith("-Wl,-rpath,")]
    assert rpaths == [str(lib)]
    # --cflags alone is only the include path; the order of the output follows the flags
    assert run_config("--cflags").stdout.split() == [f"-I{inc}"]


def test_directory_queries_agree_with_the_module():
    r = run_config("--includedir", "--libdir", "--pkgconfigdir", "--version")
    assert r.returncode == 0, r.stderr
    inc, lib, pc, version = r.stdout.split()
    assert Path(inc) == nabla.config.INCLUDE_DIR and Path(lib) == nabla.config.LIB_DIR
    assert Path(pc) == Path(lib) / "pkgconfig"
    assert version == nabla.__version__


def test_no_arguments_prints_usage_and_fails():
    r = run_config()
    assert r.returncode != 0
    assert "usage" in (r.stdout + r.stderr).lower()


def test_installed_files():
    inc, lib = nabla.config.INCLUDE_DIR, nabla.config.LIB_DIR
    header = (inc / "nabla.h").read_text()
    assert "nb_tensor_release" in header and "NB_VERSION_MAJOR" in header
    assert (lib / "libnabla.so").stat().st_size > 0
    pc = (lib / "pkgconfig" / "nabla.pc").read_text()
    fields = dict(re.findall(r"^(\w+):\s*(.*)$", pc, re.M))
    assert fields["Name"] == "nabla"
    assert fields["Version"] == nabla.__version__
    assert "-lnabla" in fields["Libs"] and "-I" in fields["Cflags"]


def test_installed_header_matches_the_library_version():
    header = (nabla.config.INCLUDE_DIR / "nabla.h").read_text()
    parts = [int(re.search(rf"#define NB_VERSION_{p} (\d+)", header).group(1)) for p in ("MAJOR", "MINOR", "PATCH")]
    assert ".".join(map(str, parts)) == nabla.__version__
    number = int(re.search(r"#define NB_VERSION_NUMBER (\d+)", header).group(1))
    assert number == parts[0] * 10000 + parts[1] * 100 + parts[2]


def test_version_matches_the_c_library():
    from nabla._lib import ffi, lib
    c_version = ffi.string(lib.nb_version_string()).decode()
    assert nabla.__version__ == c_version
    assert re.fullmatch(r"\d+\.\d+\.\d+", c_version)
    major, minor, patch = map(int, c_version.split("."))
    assert lib.nb_version() == major * 10000 + minor * 100 + patch


def test_pkg_config_resolves_the_installed_paths():
    exe = shutil.which("pkg-config")
    if exe is None:
        pytest.skip("pkg-config is not installed")
    env = {**os.environ, "PKG_CONFIG_PATH": str(nabla.config.LIB_DIR / "pkgconfig")}
    r = subprocess.run([exe, "--cflags", "--libs", "nabla"], capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    flags = shlex.split(r.stdout)
    inc = next(Path(f[2:]) for f in flags if f.startswith("-I"))
    lib = next(Path(f[2:]) for f in flags if f.startswith("-L"))
    assert inc.resolve() == nabla.config.INCLUDE_DIR.resolve()
    assert lib.resolve() == nabla.config.LIB_DIR.resolve()
