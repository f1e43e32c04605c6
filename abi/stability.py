#!/usr/bin/env python3
"""The ABI lock: what nabla promises binary users, and the check that a build keeps it.

    python abi/stability.py write    regenerate abi/abi_lock.json from the manifest and the installed header
    python abi/stability.py check    compare the manifest, the installed header and libnabla.so with the lock

abi/abi_lock.json records every exported function (signature, ownership of what it
hands out, the version it appeared in), every struct's size and field offsets
(measured by compiling a probe against the installed header, DLPack's structs
included), and every constant. `check` prints a diff of any change. Before 1.0 a
change is acknowledged by running `write` in the same commit; from 1.0 on, `write`
refuses a lock that removes a function or changes a signature, struct layout or
constant unless the major version went up, and `check` fails on such a change.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import gen  # noqa: E402

LOCK = HERE / "abi_lock.json"
HANDLES = ("nb_tensor", "nb_stream", "nb_event", "nb_generator", "nb_node")
# DLPack's structs (include/nabla/dlpack.h): their layout is part of the exchange.
DLPACK_STRUCTS = {"DLPackVersion": ["major", "minor"], "DLDevice": ["device_type", "device_id"],
                  "DLDataType": ["code", "bits", "lanes"],
                  "DLTensor": ["data", "device", "ndim", "dtype", "shape", "strides", "byte_offset"],
                  "DLManagedTensor": ["dl_tensor", "manager_ctx", "deleter"],
                  "DLManagedTensorVersioned": ["version", "manager_ctx", "deleter", "flags", "dl_tensor"]}


def ownership(fn: dict) -> str:
    """Who owns what the function hands out, from its signature and the ABI's conventions."""
    handed = []
    for ctype, name in fn["params"]:
        base = ctype.rstrip("*").strip()
        if ctype.endswith("**") and base in HANDLES:
            verb = {"nb_generator": "nb_generator_release"}.get(base, f"{base}_release")
            handed.append(f"{name}: new reference ({verb})")
        elif ctype == "void**":
            handed.append(f"{name}: DLPack managed tensor owned by the caller (call its deleter)")
    ret = fn["returns"]
    if ret in ("const char*",):
        handed.append("returns: borrowed string owned by the library")
    elif ret.endswith("*") and ret.rstrip("*").strip().replace("const ", "") in HANDLES:
        handed.append("returns: borrowed handle (not released by the caller)")
    elif ret.endswith("*"):
        handed.append("returns: borrowed pointer, valid while the object it came from lives")
    return "; ".join(handed) or "nothing"


def _signature(fn: dict) -> str:
    return f"{fn['returns']} {fn['name']}({gen._param_list(fn['params'])})"


def installed_paths() -> tuple[Path, Path]:
    """The installed header directory and libnabla.so, from nabla.config."""
    def cfg(flag):
        return subprocess.run([sys.executable, "-m", "nabla.config", flag], capture_output=True, text=True,
                              check=True).stdout.strip()
    return Path(cfg("--includedir")), Path(cfg("--libdir")) / "libnabla.so"


def struct_layouts(m: dict, include_dir: Path) -> dict:
    """{struct: {"size": n, "offsets": {field: offset}}}, measured by compiling a probe."""
    structs = {t["name"]: [f[1] for f in t["fields"]] for t in m["types"] if t["kind"] == "struct"}
    dlpack = (include_dir / "nabla" / "dlpack.h").exists()
    if dlpack:
        structs.update(DLPACK_STRUCTS)
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        raise RuntimeError("no C compiler to measure struct layouts")
    lines = ["#include <stddef.h>", "#include <stdio.h>", "#include <nabla.h>"]
    lines += ["#include <nabla/dlpack.h>"] if dlpack else []
    lines.append("int main(void) {")
    for name, fields in structs.items():
        lines.append(f'    printf("{name} size %zu\\n", sizeof({name}));')
        lines += [f'    printf("{name} {f} %zu\\n", offsetof({name}, {f}));' for f in fields]
    lines += ["    return 0;", "}"]
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = Path(tmp) / "probe.c", Path(tmp) / "probe"
        src.write_text("\n".join(lines) + "\n")
        subprocess.run([cc, "-std=c11", f"-I{include_dir}", str(src), "-o", str(exe)], check=True,
                       capture_output=True, text=True)
        out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout
    layouts: dict = {}
    for line in out.splitlines():
        name, field, value = line.split()
        entry = layouts.setdefault(name, {"size": 0, "offsets": {}})
        if field == "size":
            entry["size"] = int(value)
        else:
            entry["offsets"][field] = int(value)
    return layouts


def current(include_dir: Path, previous: dict | None) -> dict:
    """The lock as the manifest and the installed header describe the ABI now."""
    m = gen.load()
    version = ".".join(str(v) for v in m["version"])
    since = {name: f["since"] for name, f in (previous or {}).get("functions", {}).items()}
    functions = {}
    for fn in m["functions"] + m["ops"]:
        functions[fn["name"]] = {"signature": _signature(fn), "ownership": ownership(fn),
                                 "since": since.get(fn["name"], version)}
    return {
        "version": version,
        "functions": dict(sorted(functions.items())),
        "structs": struct_layouts(m, include_dir),
        "types": {t["name"]: _type_text(t) for t in m["types"] if t["kind"] != "struct"},
        "constants": {name: value for g in m["constants"] for name, value, _ in g["values"]}
        | {"NB_MAX_DIMS": m["max_dims"]},
    }


def _type_text(t: dict) -> str:
    if t["kind"] == "alias":
        return f"typedef {t['type']} {t['name']}"
    if t["kind"] == "handle":
        return f"typedef struct {t['name']} {t['name']}"
    return f"typedef {t['returns']} (*{t['name']})({gen._param_list(t['params'])})"


def diff(old: dict, new: dict) -> tuple[list[str], list[str]]:
    """(every change as a line, the breaking ones): removals and changed signatures,
    layouts, types or constant values break; additions do not."""
    lines, breaking = [], []
    for section in ("functions", "structs", "types", "constants"):
        a, b = old.get(section, {}), new.get(section, {})
        for name in sorted(set(a) | set(b)):
            if name not in b:
                msg = f"- {section[:-1]} {name}: removed"
                lines.append(msg)
                breaking.append(msg)
            elif name not in a:
                lines.append(f"+ {section[:-1]} {name}: added ({_short(b[name])})")
            elif _key(section, a[name]) != _key(section, b[name]):
                msg = f"~ {section[:-1]} {name}: {_short(a[name])} -> {_short(b[name])}"
                lines.append(msg)
                breaking.append(msg)
            elif a[name] != b[name]:
                lines.append(f"~ {section[:-1]} {name}: {_short(a[name])} -> {_short(b[name])} (not breaking)")
    return lines, breaking


_POINTEE_CONST = re.compile(r"\bconst\s+(?=[A-Za-z_][A-Za-z0-9_]*\s*\*)")


def _abi_signature(signature: str) -> str:
    """A signature as the calling convention sees it. A const on what a pointer parameter points to
    (`const nb_tensor* const*` -> `nb_tensor* const*`) passes the same address in the same register:
    binaries built against either declaration call the other unchanged. Only C sources that pass a
    pointer to const may need a cast, so such a change is reported, not refused."""
    return _POINTEE_CONST.sub("", signature)


def _key(section: str, entry):
    """The part of an entry whose change breaks binaries (not docs, ownership text, `since`, or a const on a
    pointee)."""
    return _abi_signature(entry["signature"]) if section == "functions" else entry


def _short(entry) -> str:
    return entry["signature"] if isinstance(entry, dict) and "signature" in entry else json.dumps(entry)


def exported_symbols(lib: Path) -> set[str]:
    out = subprocess.run(["nm", "-D", "--defined-only", str(lib)], capture_output=True, text=True, check=True).stdout
    return {line.split()[-1] for line in out.splitlines() if re.match(r"^[0-9a-f]+ T ", line)}


def header_functions(include_dir: Path) -> dict[str, str]:
    """name -> declaration text of every NB_API function in the installed header."""
    text = (include_dir / "nabla.h").read_text()
    return {m.group(2): " ".join(m.group(0).replace("NB_API ", "").rstrip(";").split())
            for m in re.finditer(r"NB_API ([^;(]*?)\b(nb_\w+)\(([^)]*)\);", text)}


def major(version: str) -> int:
    return int(version.split(".")[0])


def check(lock: dict, now: dict, lib: Path | None, include_dir: Path) -> list[str]:
    """Problems: differences from the lock, and a header or library that disagree with it."""
    problems = []
    changes, breaking = diff(lock, now)
    if changes:
        problems.append("the ABI differs from abi/abi_lock.json:\n  " + "\n  ".join(changes))
        if major(now["version"]) >= 1 and major(lock["version"]) == major(now["version"]) and breaking:
            problems.append(f"breaking changes within major version {major(now['version'])}: "
                            + "; ".join(breaking))
        else:
            problems.append("acknowledge the change: python abi/stability.py write (and commit abi/abi_lock.json)")
    declared = header_functions(include_dir)
    for name, entry in lock["functions"].items():
        if name not in declared:
            problems.append(f"the installed header does not declare {name}")
        elif declared[name] != entry["signature"]:
            problems.append(f"the installed header declares {declared[name]!r}, the lock {entry['signature']!r}")
    if lib is not None:
        exported = {s for s in exported_symbols(lib) if s.startswith("nb_")}
        for name in sorted(set(lock["functions"]) - exported):
            problems.append(f"{lib.name} does not export {name}")
        for name in sorted(exported - set(lock["functions"])):
            problems.append(f"{lib.name} exports {name}, which the lock does not list")
    return problems


def write(lock_path: Path, now: dict, old: dict | None) -> list[str]:
    if old is not None and major(now["version"]) >= 1 and major(old["version"]) == major(now["version"]):
        _, breaking = diff(old, now)
        if breaking:
            return [f"refusing to write: breaking changes within major version {major(now['version'])} "
                    "(bump NB_VERSION_MAJOR in abi/nabla.json):"] + breaking
    lock_path.write_text(json.dumps(now, indent=1, sort_keys=False) + "\n")
    return []


def main(argv=None) -> int:
    args = sys.argv[1:] if argv is None else argv
    cmd = args[0] if args else "check"
    include_dir, lib = installed_paths()
    old = json.loads(LOCK.read_text()) if LOCK.exists() else None
    now = current(include_dir, old)
    if cmd == "write":
        problems = write(LOCK, now, old)
    elif cmd == "check":
        if old is None:
            print("no abi/abi_lock.json: run python abi/stability.py write")
            return 1
        problems = check(old, now, lib if shutil.which("nm") else None, include_dir)
    else:
        print(__doc__)
        return 2
    for p in problems:
        print(p)
    if not problems:
        print(f"ABI {now['version']}: {len(now['functions'])} functions, {len(now['structs'])} structs, "
              f"{len(now['constants'])} constants match abi/abi_lock.json")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
