"""Emit the C source of the cffi API-mode extension nabla._C.

    python build_cffi.py MANIFEST.json OUT.c

The cdef comes from the ABI manifest (abi/gen.py), the compiled code includes
the real header, so the two are checked against each other by the C compiler.
"""
import sys
from pathlib import Path

import cffi


def main(manifest: str, out: str) -> None:
    sys.path.insert(0, str(Path(manifest).resolve().parent))
    import gen  # abi/gen.py

    ffi = cffi.FFI()
    ffi.cdef(gen.cdef(gen.load(Path(manifest))))
    ffi.set_source("nabla._C", '#include "nabla.h"')
    ffi.emit_c_code(out)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
