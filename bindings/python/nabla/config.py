"""Build flags for C programs that link the installed libnabla.

    cc prog.c $(python -m nabla.config --cflags --libs) -o prog

--libs includes an rpath, so the program runs without LD_LIBRARY_PATH. --abidir is
where a binding generator finds the ABI manifest without a checkout; --pkgconfigdir
holds nabla.pc, for build systems that find the library without Python.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
INCLUDE_DIR = PACKAGE_DIR / "include"
LIB_DIR = PACKAGE_DIR / "lib"
# Installed beside the package; an editable install of a checkout reads the checkout's abi/.
ABI_DIR = PACKAGE_DIR / "abi" if (PACKAGE_DIR / "abi" / "nabla.json").is_file() else PACKAGE_DIR.parents[2] / "abi"


def cflags() -> str:
    return f"-I{INCLUDE_DIR}"


def _openblas_dir() -> str | None:
    try:
        import scipy_openblas32
        return scipy_openblas32.get_lib_dir()
    except ImportError:
        return None


def libs() -> str:
    flags = f"-L{LIB_DIR} -lnabla -Wl,-rpath,{LIB_DIR}"
    openblas = _openblas_dir()
    if openblas and not (PACKAGE_DIR.parent / "scipy_openblas32" / "lib").is_dir():
        # scipy-openblas32 lives in another site directory than nabla, where libnabla's
        # own rpath cannot see it: link it into the program so it is loaded first.
        flags += f" -L{openblas} -Wl,--no-as-needed -lscipy_openblas -Wl,--as-needed -Wl,-rpath,{openblas}"
    return flags


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m nabla.config", description=__doc__.splitlines()[0])
    parser.add_argument("--cflags", action="store_true", help="compiler flags (include path)")
    parser.add_argument("--libs", action="store_true", help="linker flags (library, rpath)")
    parser.add_argument("--includedir", action="store_true", help="the directory holding nabla.h")
    parser.add_argument("--libdir", action="store_true", help="the directory holding libnabla.so")
    parser.add_argument("--pkgconfigdir", action="store_true", help="the directory holding nabla.pc")
    parser.add_argument("--abidir", action="store_true", help="the directory holding the ABI manifest (nabla.json, "
                        "ops/*.json), abi_lock.json (struct sizes and offsets, DLPack's included) and dlpack.json "
                        "(DLPack's field types, enums and flags)")
    parser.add_argument("--version", action="store_true", help="the library's version")
    args = parser.parse_args(argv)
    out = []
    if args.cflags:
        out.append(cflags())
    if args.libs:
        out.append(libs())
    if args.includedir:
        out.append(str(INCLUDE_DIR))
    if args.libdir:
        out.append(str(LIB_DIR))
    if args.pkgconfigdir:
        out.append(str(LIB_DIR / "pkgconfig"))
    if args.abidir:
        out.append(str(ABI_DIR))
    if args.version:
        from ._lib import ffi, lib
        out.append(ffi.string(lib.nb_version_string()).decode())
    if not out:
        parser.print_help()
        return 2
    print(" ".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
