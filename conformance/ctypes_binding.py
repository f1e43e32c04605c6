"""A raw-FFI binding of libnabla for Python's ctypes, generated at load time from the ABI
manifest alone: no cffi, no nabla Python package, no header. Every prototype comes from
the C types of the manifest and, for every pointer parameter, its direction and length
(the manifest's "pointers", docs/bindings.md); DLPack's structs from dlpack.json, and
every struct's layout is checked against abi_lock.json.

    from ctypes_binding import Binding
    nb = Binding.load()              # NABLA_LIB / NABLA_ABIDIR, pkg-config, or the checkout's build/
    nb.lib.nb_add(a, b, 1.0, None, out)
"""
from __future__ import annotations

import ctypes
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parent.parent
SCALARS = {"int8_t": ctypes.c_int8, "int16_t": ctypes.c_int16, "int32_t": ctypes.c_int32, "int64_t": ctypes.c_int64,
           "uint8_t": ctypes.c_uint8, "uint16_t": ctypes.c_uint16, "uint32_t": ctypes.c_uint32,
           "uint64_t": ctypes.c_uint64, "double": ctypes.c_double, "float": ctypes.c_float,
           "size_t": ctypes.c_size_t, "int": ctypes.c_int, "char": ctypes.c_char}
_TYPE = re.compile(r"^(const\s+)?([A-Za-z_]\w*)\s*((?:\*\s*(?:const\s*)?)*)$")


def parse(ctype: str) -> tuple[bool, str, int, bool]:
    """'const nb_tensor* const*' -> (const base, 'nb_tensor', depth 2, pointer itself const)."""
    m = _TYPE.match(ctype.strip())
    if not m:
        raise ValueError(f"cannot parse C type {ctype!r}")
    stars = m.group(3).replace(" ", "")
    return bool(m.group(1)), m.group(2), stars.count("*"), "*const*" in stars


def load_manifest(abidir: Path) -> dict:
    """nabla.json with every abi/ops/<family>.json appended, as abi/gen.py merges them."""
    m = json.loads((abidir / "nabla.json").read_text(encoding="utf-8"))
    for family in sorted((abidir / "ops").glob("*.json")):
        m["ops"] += json.loads(family.read_text(encoding="utf-8"))["ops"]
    return m


def _pkg_config_libdir() -> Path | None:
    if shutil.which("pkg-config") is None:
        return None
    r = subprocess.run(["pkg-config", "--variable=libdir", "nabla"], capture_output=True, text=True)
    return Path(r.stdout.strip()) if r.returncode == 0 and r.stdout.strip() else None


def find_library() -> Path:
    """NABLA_LIB (a file or a directory), then pkg-config's nabla.pc, then the checkout's build/."""
    env = os.environ.get("NABLA_LIB")
    candidates = [Path(env)] if env else []
    libdir = _pkg_config_libdir()
    candidates += [libdir] if libdir else []
    candidates += [CHECKOUT / "build", CHECKOUT / "builddir"]
    for c in candidates:
        lib = c / "libnabla.so" if c.is_dir() else c
        if lib.is_file():
            return lib
    raise OSError("libnabla.so not found: set NABLA_LIB, or PKG_CONFIG_PATH to the directory of nabla.pc")


def find_abidir(lib: Path) -> Path:
    """NABLA_ABIDIR, then abi/ beside an installed library (site-packages/nabla/abi), then the checkout's."""
    env = os.environ.get("NABLA_ABIDIR")
    for c in ([Path(env)] if env else []) + [lib.resolve().parent.parent / "abi", CHECKOUT / "abi"]:
        if (c / "nabla.json").is_file():
            return c
    raise OSError("the ABI manifest (nabla.json) was not found: set NABLA_ABIDIR")


class Binding:
    """The library with every manifest function's argtypes and restype set."""

    def __init__(self, lib_path: Path, abidir: Path):
        self.manifest = load_manifest(abidir)
        lock = abidir / "abi_lock.json"
        self.layouts = json.loads(lock.read_text())["structs"] if lock.is_file() else {}
        # RTLD_GLOBAL | RTLD_NODELETE: the library stays mapped while its thread pool lives.
        self.lib = ctypes.CDLL(str(lib_path), mode=os.RTLD_GLOBAL | getattr(os, "RTLD_NODELETE", 0x1000))
        kinds = {t["name"]: t for t in self.manifest["types"]}
        self.handles = {n for n, t in kinds.items() if t["kind"] == "handle"}
        self.aliases = {n: t["type"] for n, t in kinds.items() if t["kind"] == "alias"}
        self.structs = {n: self._struct(t) for n, t in kinds.items() if t["kind"] == "struct"}
        self.callbacks: dict = {}
        self.callbacks.update({n: self._callback(t) for n, t in kinds.items() if t["kind"] == "callback"})
        self.constants = {n: v for g in self.manifest["constants"] for n, v, _ in g["values"]}
        self.functions = {fn["name"]: fn for fn in self.manifest["functions"] + self.manifest["ops"]}
        dlpack = abidir / "dlpack.json"
        self.dlpack = self._dlpack(json.loads(dlpack.read_text())) if dlpack.is_file() else {}
        self.missing = []
        for name, fn in self.functions.items():
            try:
                f = getattr(self.lib, name)
            except AttributeError:  # a function newer than the library
                self.missing.append(name)
                continue
            f.restype = self.ctype(fn["returns"], None, returned=True)
            f.argtypes = [self.ctype(t, fn.get("pointers", {}).get(p)) for t, p in fn["params"]]

    @classmethod
    def load(cls) -> "Binding":
        lib = find_library()
        return cls(lib, find_abidir(lib))

    def resolve(self, name: str) -> str:
        while name in self.aliases:
            name = self.aliases[name]
        return name

    def ctype(self, ctype: str, spec: list | None, returned: bool = False):
        """The ctypes type of a parameter (spec: its [direction, length]) or of a return value."""
        const, base, depth, _ = parse(ctype)
        base = self.resolve(base)
        if depth == 0:
            if base == "void":
                return None
            if base in self.callbacks:
                return self.callbacks[base]
            return SCALARS[base]
        if base in self.handles and depth == 1:
            return ctypes.c_void_p  # a handle is an opaque value
        if returned:  # borrowed memory the library owns: a string, a shape, an address
            if base == "char" and depth == 1:
                return ctypes.c_char_p
            return ctypes.POINTER(SCALARS[base]) if base in SCALARS and depth == 1 else ctypes.c_void_p
        if spec is None:
            raise ValueError(f"{ctype}: a pointer parameter without direction and length in the manifest")
        direction, length = spec
        if length == "string":
            return ctypes.c_char_p
        if length == "opaque" or base == "void" and depth == 1:
            return ctypes.c_void_p  # memory or an address: a buffer, a payload, a DLPack capsule
        if depth == 2 and (base in self.handles or base == "void"):
            return ctypes.POINTER(ctypes.c_void_p)  # an array of handles, in or out
        if depth == 2 and base == "char":
            return ctypes.POINTER(ctypes.c_char_p)  # strings in, or a borrowed string out
        if depth == 1 and base in self.structs:
            return ctypes.POINTER(self.structs[base])
        if depth == 1 and base in SCALARS:
            return ctypes.POINTER(SCALARS[base])
        raise ValueError(f"no ctypes mapping for {ctype} ({direction}, {length})")

    def _struct(self, t: dict):
        fields = [(name, SCALARS[self.resolve(ctype)]) for ctype, name, _ in t["fields"]]
        return self._checked(type(t["name"], (ctypes.Structure,), {"_fields_": fields}))

    def _dlpack(self, desc: dict) -> dict:
        """DLPack's structs as ctypes Structures, from dlpack.json's field types; their layout
        must be the one abi_lock.json measured."""
        out: dict = {}
        for name, fields in desc["structs"].items():
            def ftype(ctype: str):
                if ctype in out:
                    return out[ctype]
                if ctype in desc["enums"]:
                    return SCALARS[desc["enum_type"]]
                if "(" in ctype or ctype == "void*":
                    return ctypes.c_void_p  # a function pointer or an address
                if ctype.endswith("*"):
                    return ctypes.POINTER(SCALARS[ctype[:-1]])
                return SCALARS[ctype]
            out[name] = self._checked(type(name, (ctypes.Structure,),
                                           {"_fields_": [(f, ftype(c)) for c, f in fields]}))
        return out

    def _checked(self, cls):
        layout = self.layouts.get(cls.__name__)
        if layout and (ctypes.sizeof(cls) != layout["size"]
                       or any(getattr(cls, f).offset != o for f, o in layout["offsets"].items())):
            raise OSError(f"{cls.__name__}: the layout differs from abi_lock.json")
        return cls

    def _callback(self, t: dict):
        return ctypes.CFUNCTYPE(self.ctype(t["returns"], None, returned=True),
                                *[self.ctype(c, t.get("pointers", {}).get(p)) for c, p in t["params"]])

    # ---- values ----
    def array(self, ctype: str, values: list):
        """An `in` array for a parameter of type ctype (numbers, or handles with None for NULL)."""
        const, base, depth, _ = parse(ctype)
        elem = ctypes.c_void_p if depth == 2 else SCALARS[self.resolve(base)]
        return (elem * max(len(values), 1))(*values)

    def slot(self, ctype: str, length: int = 1, fill=0):
        """An `out` slot of `length` elements for a T** or number pointer, planted with fill."""
        const, base, depth, _ = parse(ctype)
        elem = ctypes.c_void_p if depth == 2 else SCALARS[self.resolve(base)]
        return (elem * length)(*([fill] * length))
