#!/usr/bin/env python3
"""Derive nabla's public artefacts from the ABI manifest (abi/nabla.json).

    python abi/gen.py write    regenerate include/nabla.h, include/nabla.hpp (C++), docs/abi.md, the
                               Node.js declarations (bindings/node/lib/abi.generated.*) and abi/dlpack.json,
                               reformat the manifest
    python abi/gen.py check    exit 1 if any of them is stale
    python abi/gen.py cdef     print the cffi cdef

The manifest is the single source of truth: the header, the cffi declarations
and the docs table cannot disagree because they are all printed from it.

A function entry: group, name, returns, params ([type, name] pairs), pointers and
doc; an op entry adds "differentiable". "pointers" maps every pointer parameter
that is not a handle to [direction, length] (see POINTER_RULES below and
docs/bindings.md); `check` refuses an entry without them. An elementwise op with backend kernels adds
"ew_kernels" (the kernel names it launches, e.g. div's three rounding modes) and
"ew_bool" when they write bool; they become the NB_BK_* codes of
src/core/ew_codes.h, binary kernels first.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = ROOT / "abi" / "nabla.json"
OPS_DIR = ROOT / "abi" / "ops"  # one file per op family: {"family": ..., "ops": [...]}
HEADER = ROOT / "include" / "nabla.h"
DOCS = ROOT / "docs" / "abi.md"
DISPATCH_C = ROOT / "src" / "autograd" / "dispatch.c"
DISPATCH_H = ROOT / "src" / "autograd" / "dispatch.h"
EW_CODES = ROOT / "src" / "core" / "ew_codes.h"
NODE_JS = ROOT / "bindings" / "node" / "lib" / "abi.generated.js"
NODE_DTS = ROOT / "bindings" / "node" / "lib" / "abi.generated.d.ts"
HEADER_CPP = ROOT / "include" / "nabla.hpp"
DLPACK_H = ROOT / "include" / "nabla" / "dlpack.h"
DLPACK_JSON = ROOT / "abi" / "dlpack.json"


def load(path: Path = MANIFEST) -> dict:
    """The manifest with the ops of every family file (abi/ops/*.json) appended, in file order."""
    with open(path, encoding="utf-8") as f:
        m = json.load(f)
    ops_dir = path.parent / "ops"
    for family_file in sorted(ops_dir.glob("*.json")) if ops_dir.is_dir() else ():
        with open(family_file, encoding="utf-8") as f:
            family = json.load(f)
        for op in family["ops"]:
            m["ops"].append({"group": f"ops: {family['family']}", **op})
    return m


# ---- pointer parameters: direction and length ----

POINTER_RULES = """A pointer parameter is every parameter whose C type has a `*`, except a handle
(`nb_tensor*`, `const nb_node*`, ...: an opaque value) and a callback (`nb_deleter_fn`).
Each has "pointers": {name: [direction, length]}.
direction: "in" (read by the callee), "out" (written by the callee), "inout" (both; a
struct whose struct_size the caller sets). In a callback type the callee is the callback.
length, counted in elements of the pointee (bytes for void*):
  an integer            a fixed count (1: one value or one handle slot; kernel_size: 2)
  a parameter's name    that integer parameter's value (shape and strides: "ndim")
  an expression         of parameters with numel(shape, ndim) and itemsize(dtype)
  "string"              a NUL-terminated UTF-8 string
  "scalar-optional"     one value, or NULL for none (nb_argmax's dim)
  "opaque"              an address passed through unread (payloads, DLPack capsules)"""

POINTER_DIRECTIONS = ("in", "out", "inout")
POINTER_WORDS = ("string", "scalar-optional", "opaque")
_LENGTH_FUNCS = ("numel", "itemsize")
_INT_TYPES = ("int32_t", "int64_t", "size_t", "uint32_t", "uint64_t")


def handle_types(m: dict) -> set[str]:
    return {t["name"] for t in m["types"] if t["kind"] == "handle"}


def is_pointer_param(ctype: str, handles: set[str]) -> bool:
    """Whether a parameter needs a "pointers" entry: a pointer that is not a handle value."""
    if "*" not in ctype:
        return False
    base = re.sub(r"\bconst\b|\*", " ", ctype).split()[0]
    return not (base in handles and ctype.count("*") == 1)


def pointer_errors(m: dict) -> list[str]:
    """Every pointer parameter without a valid direction and length, as messages."""
    handles = handle_types(m)
    constants = {n for g in m["constants"] for n, _, _ in g["values"]} | {"NB_MAX_DIMS"}
    errors = []
    entries = m["functions"] + m["ops"] + [t for t in m["types"] if t["kind"] == "callback"]
    for fn in entries:
        params = dict((n, t) for t, n in fn["params"])
        want = [n for t, n in fn["params"] if is_pointer_param(t, handles)]
        given = fn.get("pointers", {})
        name = fn["name"]
        for extra in set(given) - set(want):
            errors.append(f"{name}: pointers names {extra!r}, not a pointer parameter")
        for pname in want:
            spec = given.get(pname)
            if not (isinstance(spec, list) and len(spec) == 2):
                errors.append(f"{name}: pointer parameter {pname!r} needs [direction, length]")
                continue
            direction, length = spec
            ctype = params[pname]
            if direction not in POINTER_DIRECTIONS:
                errors.append(f"{name}: {pname}: direction {direction!r} is not one of {POINTER_DIRECTIONS}")
            elif direction != "in" and (ctype.startswith("const ") and ctype.count("*") == 1
                                        or ctype.replace(" ", "").endswith("*const*")):
                errors.append(f"{name}: {pname}: {ctype} cannot be {direction!r}")
            if isinstance(length, bool) or isinstance(length, int):
                if isinstance(length, bool) or length < 1:
                    errors.append(f"{name}: {pname}: length {length!r} must be at least 1")
            elif not isinstance(length, str):
                errors.append(f"{name}: {pname}: length {length!r} must be an integer or a string")
            elif length in POINTER_WORDS or length in constants:
                pass
            elif length in params:
                if params[length] not in _INT_TYPES:
                    errors.append(f"{name}: {pname}: length {length!r} is a {params[length]}, not an integer")
            else:
                idents = re.findall(r"[A-Za-z_][A-Za-z0-9_]*", length)
                unknown = [i for i in idents if i not in params and i not in _LENGTH_FUNCS and i not in constants]
                if not idents or unknown or not re.fullmatch(r"[A-Za-z0-9_(), *+]+", length):
                    errors.append(f"{name}: {pname}: length {length!r} names no parameter or constant"
                                  + (f" ({', '.join(unknown)})" if unknown else ""))
    return errors


def pointer_length(fn: dict, pname: str):
    """The length of the pointer parameter pname ([direction, length][1])."""
    return fn["pointers"][pname][1]


def _load_parts(path: Path = MANIFEST) -> tuple[dict, dict[Path, dict]]:
    with open(path, encoding="utf-8") as f:
        core = json.load(f)
    ops_dir = path.parent / "ops"
    families = {}
    for family_file in sorted(ops_dir.glob("*.json")) if ops_dir.is_dir() else ():
        with open(family_file, encoding="utf-8") as f:
            families[family_file] = json.load(f)
    return core, families


def _param_list(params: list) -> str:
    if not params:
        return "void"
    return ", ".join(_decl(ctype, name) for ctype, name in params)


def _decl(ctype: str, name: str) -> str:
    return f"{ctype} {name}"


def _constants(m: dict) -> list[str]:
    out = []
    for group in m["constants"]:
        out.append(f"/* {group['doc']} */")
        width = max(len(n) for n, _, _ in group["values"])
        for name, value, doc in group["values"]:
            text = str(value) if value >= 0 else f"({value})"  # a negative value stays one token in expressions
            out.append(f"#define {name.ljust(width)} {text}  /* {doc} */")
        out.append("")
    return out


def _types(m: dict, for_cffi: bool) -> list[str]:
    out = []
    for t in m["types"]:
        out.append(f"/* {t['doc']} */")
        kind = t["kind"]
        if kind == "alias":
            out.append(f"typedef {t['type']} {t['name']};")
        elif kind == "handle":
            out.append(f"typedef struct {t['name']} {t['name']};")
        elif kind == "callback":
            out.append(f"typedef {t['returns']} (*{t['name']})({_param_list(t['params'])});")
        elif kind == "struct":
            out.append(f"typedef struct {t['name']} {{")
            for ctype, name, doc in t["fields"]:
                out.append(f"    {_decl(ctype, name)};" + ("" if for_cffi else f"  /* {doc} */"))
            out.append(f"}} {t['name']};")
        else:
            raise ValueError(f"unknown type kind {kind!r} for {t['name']}")
        out.append("")
    return out


def _functions(m: dict, prefix: str, with_docs: bool) -> list[str]:
    out, group = [], None
    for fn in m["functions"] + m["ops"]:
        if with_docs and fn.get("group") != group:
            group = fn.get("group")
            out.append(f"/* ---- {group} ---- */")
        if with_docs:
            out.append(f"/* {fn['doc']} */")
        out.append(f"{prefix}{fn['returns']} {fn['name']}({_param_list(fn['params'])});")
        if with_docs:
            out.append("")
    return out


def header(m: dict) -> str:
    major, minor, patch = m["version"]
    lines = [
        "/* nabla.h: the public C ABI of nabla, a tensor runtime.",
        " *",
        " * GENERATED from abi/nabla.json by abi/gen.py: edit the manifest, then run",
        " * `python abi/gen.py write`. Pure C11; parseable by cffi and FFI generators.",
        " *",
        " * Conventions: every fallible function returns nb_status (0 = NB_OK) and puts a",
        " * message naming the function and its arguments in nb_last_error_message(),",
        " * per thread; on failure out-parameters are untouched. Tensor inputs are",
        " * borrowed; every tensor handed out is a new reference the caller releases with",
        " * nb_tensor_release(). Shapes and strides are int64_t, strides in elements.",
        " * \"dst/out by convention\": with dst NULL the op writes a new tensor to *out; with dst",
        " * non-NULL the result goes into dst (PyTorch's out=, in place when dst is an input) and",
        " * *out, which may then be NULL, receives a new reference to dst.",
        " */",
        "#ifndef NABLA_H_",
        "#define NABLA_H_",
        "",
        "#include <stddef.h>",
        "#include <stdint.h>",
        "",
        "/* FFI generators may predefine NB_API as empty. */",
        "#ifndef NB_API",
        "#  if defined(_WIN32)",
        "#    if defined(NB_BUILDING_LIBRARY)",
        "#      define NB_API __declspec(dllexport)",
        "#    else",
        "#      define NB_API __declspec(dllimport)",
        "#    endif",
        "#  elif defined(__GNUC__)",
        "#    define NB_API __attribute__((visibility(\"default\")))",
        "#  else",
        "#    define NB_API",
        "#  endif",
        "#endif",
        "",
        "#ifdef __cplusplus",
        'extern "C" {',
        "#endif",
        "",
        f"#define NB_VERSION_MAJOR {major}",
        f"#define NB_VERSION_MINOR {minor}",
        f"#define NB_VERSION_PATCH {patch}",
        f"#define NB_VERSION_NUMBER {major * 10000 + minor * 100 + patch}",
        "",
        "/* Maximum number of dimensions of a tensor. */",
        f"#define NB_MAX_DIMS {m['max_dims']}",
        "",
    ]
    lines += _constants(m)
    lines += _types(m, for_cffi=False)
    lines += _functions(m, "NB_API ", with_docs=True)
    lines += ["#ifdef __cplusplus", "}", "#endif", "", "#endif /* NABLA_H_ */", ""]
    return "\n".join(lines)


def cdef(m: dict) -> str:
    """Declarations for cffi.FFI.cdef: the header minus preprocessor logic."""
    lines = [f"#define NB_VERSION_MAJOR {m['version'][0]}",
             f"#define NB_MAX_DIMS {m['max_dims']}"]
    for group in m["constants"]:
        lines += [f"#define {name} {value}" for name, value, _ in group["values"]]
    lines += _types(m, for_cffi=True)
    lines += _functions(m, "", with_docs=False)
    return "\n".join(lines) + "\n"


def exported_symbols(m: dict) -> set[str]:
    return {fn["name"] for fn in m["functions"] + m["ops"]}


# The manifest's one wording for the dst/out rule, which docs/abi.md states once (Conventions).
_DST_OUT = re.compile(r"\s*dst/out by convention\.|(?<=[.;] )dst/out by convention; |dst/out otherwise by convention")

DOCS_CONVENTIONS = """## Conventions

- **Status and message.** Every fallible function returns `nb_status` (`NB_OK` is 0). On failure
  the thread's `nb_last_error_message()` names the function and the values involved, the
  out-parameters are left untouched and nothing leaks.
- **Ownership.** Tensor arguments are borrowed. Every handle a function hands out (`nb_tensor**`,
  `nb_checkpoint**`, ...) is a new reference that the caller releases (`nb_tensor_release`, ...).
  Released handles are never silently reused (see `nb_tensor_release`).
- **`dst` and `out`.** An op with the parameters `nb_tensor* dst, nb_tensor** out` computes a
  new tensor into `*out` when `dst` is NULL. With `dst` non-NULL the result is written into
  `dst` (PyTorch's `out=`; in place when `dst` is one of the inputs, resized by PyTorch's
  resize_output rule otherwise) and `*out`, which may then be NULL, receives a new reference
  to `dst`. The manifest says "dst/out by convention" for it; rows below state only what an op
  adds (a required shape or dtype of `dst`).
- **Sentinels.** `NB_DTYPE_DEFAULT` asks for an op's default dtype, `NB_DEVICE_CURRENT` for the
  current device, `NB_IGNORE_INDEX` is PyTorch's default `ignore_index`; NULL for an optional
  tensor or array argument means "not given".
- **Pointers.** Every pointer parameter that is not a handle has a direction (`in`, `out`,
  `inout`) and a length in the manifest's `pointers`: another parameter (`shape` with `ndim`), a
  fixed count (`stride[2]`), `string`, `scalar-optional` or `opaque`; `docs/bindings.md` has the
  details. Signatures below show them as `[in: ndim]`.
"""


def _row_doc(doc: str) -> str:
    """An entry's doc without the dst/out rule, which the Conventions state once."""
    return _DST_OUT.sub("", doc).replace("dst/out (by convention; ", "dst/out (").strip()


def _doc_params(fn: dict) -> str:
    """The parameter list with each pointer's direction and length: `const int64_t* shape [in: ndim]`."""
    ptrs = fn.get("pointers", {})
    parts = [_decl(t, n) + (f" [{ptrs[n][0]}: {ptrs[n][1]}]" if n in ptrs else "") for t, n in fn["params"]]
    return ", ".join(parts) or "void"


def docs(m: dict) -> str:
    major, minor, patch = m["version"]
    lines = [
        "# The nabla C ABI",
        "",
        f"Version {major}.{minor}.{patch}. Generated from `abi/nabla.json` by `abi/gen.py`;",
        "do not edit by hand. The design is in [architecture.md](architecture.md); a walk",
        "through training from C is in [c_guide.md](c_guide.md).",
        "",
        DOCS_CONVENTIONS,
        "## Constants",
        "",
    ]
    for group in m["constants"]:
        lines += [f"**{group['group']}** — {group['doc']}", "", "| name | value | meaning |", "|---|---|---|"]
        lines += [f"| `{n}` | {v} | {d} |" for n, v, d in group["values"]]
        lines.append("")
    lines += ["## Types", "", "| name | kind | meaning |", "|---|---|---|"]
    lines += [f"| `{t['name']}` | {t['kind']} | {t['doc']} |" for t in m["types"]]
    lines += ["", "## Functions", ""]
    groups: dict[str, list] = {}
    for fn in m["functions"] + m["ops"]:
        groups.setdefault(fn.get("group", "op"), []).append(fn)
    for group, fns in groups.items():
        lines += [f"### {group}", ""]
        for fn in fns:
            sig = f"{fn['returns']} {fn['name']}({_doc_params(fn)})"
            lines += [f"- `{sig}`", "  " + _row_doc(fn["doc"])]
        lines.append("")
    lines += [f"{len(m['functions'])} functions, {len(m['ops'])} ops.", ""]
    return "\n".join(lines)


def manifest_text(m: dict) -> str:
    """The manifest in its canonical layout: one constant, type or function a line."""
    def one(x) -> str:
        return json.dumps(x, ensure_ascii=False)

    def items(xs: list, indent: str) -> str:
        return ",\n".join(indent + one(x) for x in xs)

    groups = []
    for g in m["constants"]:
        head = {k: v for k, v in g.items() if k != "values"}
        groups.append(f"    {one(head)[:-1]}, \"values\": [\n{items(g['values'], '      ')}\n    ]}}")
    parts = [
        f'  "name": {one(m["name"])}',
        f'  "version": {one(m["version"])}',
        f'  "max_dims": {one(m["max_dims"])}',
        '  "constants": [\n' + ",\n".join(groups) + "\n  ]",
    ]
    for key in ("types", "functions", "ops"):
        parts.append(f'  "{key}": [\n{items(m[key], "    ")}\n  ]' if m[key] else f'  "{key}": []')
    return "{\n" + ",\n".join(parts) + "\n}\n"


def family_text(family: dict) -> str:
    ops = ",\n".join("    " + json.dumps(op, ensure_ascii=False) for op in family["ops"])
    return f'{{\n  "family": {json.dumps(family["family"])},\n  "ops": [\n{ops}\n  ]\n}}\n'


# ---- the autograd dispatch layer ----
#
# Every op of the op table that takes a tensor, and every core function marked
# differentiable, gets its public symbol here. Each refuses to write into a
# read-only tensor (a DLPack import); a differentiable one runs its forward
# formula nb_agf_<op> (src/autograd/formulas/) when grad mode is on and a tensor
# argument requires grad, and its implementation nbi_<op> otherwise; a
# non-differentiable one refuses to write into a tensor that requires grad.

_TENSOR_IN = ("const nb_tensor*",)
_TENSOR_LIST = "const nb_tensor* const*"


def dispatched(m: dict) -> list[dict]:
    """The functions whose public symbol the dispatch layer defines."""
    out = []
    for fn in m["functions"]:
        if fn.get("differentiable"):
            out.append(fn)
    for fn in m["ops"]:
        if any(t in (_TENSOR_IN[0], "nb_tensor*", _TENSOR_LIST) for t, _ in fn["params"]):
            out.append(fn)
    return out


def _inner(name: str) -> str:
    return "nbi_" + name[3:]


def _forward(name: str) -> str:
    return "nb_agf_" + name[3:]


def _requires_terms(fn: dict, writable_only: bool = False) -> list[str]:
    terms = []
    for ctype, pname in fn["params"]:
        if ctype == "nb_tensor*":
            terms.append(f"nb_ag_requires({pname})")
        elif not writable_only and ctype == _TENSOR_IN[0]:
            terms.append(f"nb_ag_requires({pname})")
        elif not writable_only and ctype == _TENSOR_LIST:
            terms.append(f"nb_ag_requires_any({pname}, {pointer_length(fn, pname)})")
    return terms


def dispatch_header(m: dict) -> str:
    lines = ["/* dispatch.h: prototypes of the op implementations (nbi_*) and forward formulas",
             " * (nb_agf_*) behind the public symbols of dispatch.c. Generated by abi/gen.py. */",
             "#ifndef NABLA_DISPATCH_H_", "#define NABLA_DISPATCH_H_", "", '#include "nabla.h"', ""]
    for fn in dispatched(m):
        params = _param_list(fn["params"])
        lines.append(f"__attribute__((visibility(\"hidden\"))) {fn['returns']} {_inner(fn['name'])}({params});")
        if fn.get("differentiable"):
            lines.append(f"__attribute__((visibility(\"hidden\"))) {fn['returns']} {_forward(fn['name'])}({params});")
    lines += ["", "#endif /* NABLA_DISPATCH_H_ */", ""]
    return "\n".join(lines)


def _profiled_inputs(fn: dict) -> tuple[str, str]:
    """The tensors an op's profiler record describes: its tensor inputs, else its first tensor list."""
    singles = [p for t, p in fn["params"] if t == _TENSOR_IN[0]]
    if singles:
        return "(const nb_tensor* const[]){" + ", ".join(singles) + "}", str(len(singles))
    for t, p in fn["params"]:
        if t == _TENSOR_LIST:
            return p, pointer_length(fn, p)
    return "NULL", "0"


def _profiled_result(fn: dict) -> str:
    """The C expression of the tensor an op wrote or returned, for the profiler's "out_shape":
    dst when given, else the first returned tensor, else the one tensor an in-place op writes."""
    written = [p for t, p in fn["params"] if t == "nb_tensor*"]
    returned = [p for t, p in fn["params"] if t == "nb_tensor**"]
    if returned:
        ret = f"({returned[0]} ? *{returned[0]} : NULL)"
        return f"(st != NB_OK ? NULL : dst ? dst : {ret})" if "dst" in written else f"(st != NB_OK ? NULL : {ret})"
    return written[0] if len(written) == 1 else "NULL"


_AC_POLICIES = {"lower": "NB_AC_LOWER", "fp32": "NB_AC_FP32", "promote": "NB_AC_PROMOTE"}


def autocast_policy(fn: dict, device: str) -> str:
    """An op's autocast policy on a device type ("cpu" or "cuda"): "lower", "fp32", "promote" or
    "" (none). The manifest's "autocast" is one policy for both, or {"cpu": ..., "cuda": ...}."""
    p = fn.get("autocast") or ""
    if isinstance(p, dict):
        unknown = set(p) - {"cpu", "cuda"}
        if unknown:
            raise ValueError(f"{fn['name']}: autocast device types are cpu and cuda, not {sorted(unknown)}")
        p = p.get(device, "")
    if p and p not in _AC_POLICIES:
        raise ValueError(f"{fn['name']}: unknown autocast policy {p!r}")
    return p


def _autocast_entry(fn: dict) -> list[str]:
    """nba_<op>: the op with its inputs cast by its autocast policy; nbc_<op>: it or nbd_<op>."""
    params, short = fn["params"], fn["name"][3:]
    singles = [p for t, p in params if t == _TENSOR_IN[0]]
    if len(singles) > 8:
        raise ValueError(f"{fn['name']}: autocast takes at most 8 tensor inputs")
    lst = next(((p, pointer_length(fn, p)) for t, p in params if t == _TENSOR_LIST), None)
    dst = " || ".join(f"{p} != NULL" for t, p in params if t == "nb_tensor*") or "false"
    ins = ("(const nb_tensor* const[]){" + ", ".join(singles) + "}") if singles else "NULL"
    cast_args = []
    for t, p in params:
        if t == _TENSOR_IN[0]:
            cast_args.append(f"ac.t[{singles.index(p)}]")
        elif lst and p == lst[0]:
            cast_args.append("ac.list")
        else:
            cast_args.append(p)
    pol = [_AC_POLICIES.get(autocast_policy(fn, d), "NB_AC_NONE") for d in ("cpu", "cuda")]
    args = ", ".join(p for _, p in params)
    return [f"static nb_status nba_{short}({_param_list(params)}) {{",
            "    nb_ac_frame ac;",
            f'    nb_status st = nb_ac_begin(&ac, "{short}", {pol[0]}, {pol[1]}, {ins}, {len(singles)}, '
            f"{lst[0] if lst else 'NULL'}, {lst[1] if lst else '0'}, {dst});",
            "    if (st != NB_OK || !ac.active) return st != NB_OK ? st : " + f"nbd_{short}({args});",
            f"    st = nbd_{short}({', '.join(cast_args)});",
            "    nb_ac_end(&ac);",
            "    return st;",
            "}", "",
            f"static inline nb_status nbc_{short}({_param_list(params)}) {{",
            f"    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_{short}({args});",
            f"    return nbd_{short}({args});",
            "}", ""]


def dispatch_source(m: dict) -> str:
    lines = ["/* dispatch.c: the public entry points of the ops (see abi/gen.py). Generated; do not edit.",
             " * Each public symbol records a profiler event when a session runs (one relaxed load",
             " * otherwise) around nbd_<op>: the read-only checks, then autograd or the implementation. */",
             '#include "autograd.h"', '#include "../core/autocast.h"', '#include "../core/profiler.h"', ""]
    for fn in dispatched(m):
        params = fn["params"]
        if fn["returns"] != "nb_status":
            raise ValueError(f"{fn['name']}: a dispatched function returns nb_status")
        args = ", ".join(p for _, p in params)
        short = fn["name"][3:]
        lines.append(f"static inline nb_status nbd_{short}({_param_list(params)}) {{")
        for ctype, pname in params:  # one read-only check for every tensor a function writes
            if ctype == "nb_tensor*":
                lines.append(f"    if (NB_UNLIKELY(nb_ag_readonly({pname}))) "
                             f"return nb_readonly_error(\"{short}\", \"{pname}\");")
        if fn.get("differentiable"):
            cond = " || ".join(_requires_terms(fn)) or "false"
            lines.append(f"    if (NB_UNLIKELY(!nb_ag_disabled && ({cond})))")
            lines.append(f"        return {_forward(fn['name'])}({args});")
        else:
            targets = _requires_terms(fn, writable_only=True)
            if targets:
                lines.append(f"    if (NB_UNLIKELY(!nb_ag_disabled && ({' || '.join(targets)})))")
                lines.append(f'        return nb_ag_nondifferentiable_write("{short}");')
        lines.append(f"    return {_inner(fn['name'])}({args});")
        lines += ["}", ""]
        call = "nbd_" + short
        if fn.get("autocast"):
            lines += _autocast_entry(fn)
            call = "nbc_" + short
        ins, n = _profiled_inputs(fn)
        lines += [f"NB_API nb_status {fn['name']}({_param_list(params)}) {{",
                  "    if (nb_prof_active()) {",
                  f'        int64_t prof = nb_prof_op_begin("{short}", {ins}, {n});',
                  f"        nb_status st = {call}({args});",
                  f"        nb_prof_op_end(prof, st, {_profiled_result(fn)});",
                  "        return st;",
                  "    }",
                  f"    return {call}({args});",
                  "}", ""]
    return "\n".join(lines)


# ---- elementwise kernel codes ----
#
# Each op's "ew_kernels" names the kernels it launches on a backend; a name
# shared by two ops (div's floor mode and floor_divide) is one code. Binary
# kernels (ops with two tensor inputs) take the codes below NB_BK_NUM_BINARY,
# so adding a binary op renumbers the unary codes only through this file, which
# the core, the CPU descriptors and the CUDA kernel tables all include.


def ew_kernels(m: dict) -> tuple[list[str], list[str], set[str]]:
    """(binary kernel names, unary kernel names, names that write bool), in manifest order."""
    groups: dict[int, list[str]] = {1: [], 2: []}
    boolean: set[str] = set()
    for fn in m["ops"]:
        names = fn.get("ew_kernels")
        if not names:
            continue
        nin = sum(1 for ctype, _ in fn["params"] if ctype == _TENSOR_IN[0])
        if nin not in groups:
            raise ValueError(f"{fn['name']}: ew_kernels need one or two tensor inputs, not {nin}")
        for k in names:
            if k in groups[3 - nin]:
                raise ValueError(f"{fn['name']}: kernel {k!r} is both unary and binary")
            if k not in groups[nin]:
                groups[nin].append(k)
            if fn.get("ew_bool"):
                boolean.add(k)
    return groups[2], groups[1], boolean


def ew_codes_header(m: dict) -> str:
    binary, unary, boolean = ew_kernels(m)
    code = lambda k: "NB_BK_" + k.upper()  # noqa: E731
    lines = ["/* ew_codes.h: the elementwise kernel codes (nb_bk_ew.op, nb_ew_op.code). GENERATED from the",
             ' * "ew_kernels" of abi/ops/{binary,unary}.json by abi/gen.py; do not edit. Binary kernels come first,',
             " * then unary ones. C and C++ (the CUDA plugin includes it through backend.h). */",
             "#ifndef NABLA_EW_CODES_H_", "#define NABLA_EW_CODES_H_", "",
             "enum {", "    NB_BK_NONE = -1, /* an op without backend kernels */"]
    lines += [f"    {code(k)} = {i}," for i, k in enumerate(binary)]
    lines.append(f"    NB_BK_NUM_BINARY = {len(binary)},")
    lines += [f"    {code(k)} = {len(binary) + i}," for i, k in enumerate(unary)]
    lines += [f"    NB_BK_NUM_OPS = {len(binary) + len(unary)}", "};", "",
              "/* X(NAME) for every binary / unary kernel, in code order: kernel tables are built from",
              " * these and static_assert their length against NB_BK_NUM_BINARY / NB_BK_NUM_OPS. */"]
    for macro, names in (("NB_BK_BINARY", binary), ("NB_BK_UNARY", unary)):
        lines.append(f"#define {macro}(X) \\")
        for i in range(0, len(names), 8):
            chunk = " ".join(f"X({k.upper()})" for k in names[i:i + 8])
            lines.append(f"    {chunk}" + (" \\" if i + 8 < len(names) else ""))
    lines += ["", "/* Whether a kernel writes bool (comparisons, logical ops, predicates). */",
              "#define NB_BK_IS_BOOL(op) \\"]
    bool_codes = [code(k) for k in binary + unary if k in boolean]
    for i in range(0, len(bool_codes), 4):
        chunk = " || ".join(f"(op) == {c}" for c in bool_codes[i:i + 4])
        first = i == 0
        last = i + 4 >= len(bool_codes)
        lines.append(("    (" if first else "     || ") + chunk + (")" if last else " \\"))
    lines += ["", "#endif /* NABLA_EW_CODES_H_ */", ""]
    return "\n".join(lines)


# ---- DLPack, machine-readable ----
#
# nb_tensor_to_dlpack* hand out DLPack's structs (include/nabla/dlpack.h, void* in nabla.h so that
# header stays free of enums). abi/dlpack.json, installed with the manifest, gives a binding
# their field types, enums and flags; abi_lock.json gives each struct's measured size and offsets.

_DL_STRUCT = re.compile(r"typedef struct(?: \w+)? \{(.*?)\} (\w+);", re.S)
_DL_ENUM = re.compile(r"typedef enum(?: : \w+)? \{(.*?)\} (\w+);", re.S)


def dlpack_description(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"#ifdef __cplusplus\ntypedef enum : int32_t \{\n#else\n(typedef enum \{)\n#endif", r"\1", text)
    structs = {}
    for body, name in _DL_STRUCT.findall(text):
        fields = []
        for decl in filter(None, (d.strip() for d in body.split(";"))):
            fn = re.fullmatch(r"void \(\*(\w+)\)\((.*)\)", decl)
            if fn:  # a function pointer: void (*deleter)(struct X* self)
                fields.append([f"void (*)({fn.group(2).replace('struct ', '')})", fn.group(1)])
            else:
                ctype, fname = decl.rsplit(" ", 1)
                fields.append([ctype.strip(), fname])
        structs[name] = fields
    enums = {}
    for body, name in _DL_ENUM.findall(text):
        enums[name] = {k: int(v.rstrip("U")) for k, v in re.findall(r"(\w+) = (\d+U?)", body)}
    defines = dict(re.findall(r"#define (DLPACK_(?:MAJOR|MINOR)_VERSION) (\d+)", text))
    flags = {k: 1 << int(v) for k, v in re.findall(r"#define (DLPACK_FLAG_BITMASK_\w+) \(1UL << (\d+)UL\)", text)}
    desc = {"header": "nabla/dlpack.h",
            "doc": "DLPack's structs as nb_tensor_to_dlpack / nb_tensor_to_dlpack_versioned hand them out (void* in "
                   "nabla.h). Field types here; each struct's size and field offsets in abi_lock.json (structs).",
            "version": [int(defines["DLPACK_MAJOR_VERSION"]), int(defines["DLPACK_MINOR_VERSION"])],
            "enum_type": "int32_t", "enums": enums, "flags": flags, "structs": structs}
    lines = ["{"]
    items = list(desc.items())
    for i, (k, v) in enumerate(items):
        end = "," if i + 1 < len(items) else ""
        if k in ("enums", "structs"):
            inner = ",\n".join(f"    {json.dumps(n)}: {json.dumps(x)}" for n, x in v.items())
            lines.append(f'  "{k}": {{\n{inner}\n  }}{end}')
        else:
            lines.append(f"  {json.dumps(k)}: {json.dumps(v)}{end}")
    return "\n".join(lines) + "\n}\n"


def _outputs(m: dict) -> dict[Path, str]:
    errors = pointer_errors(m)
    if errors:
        raise SystemExit("abi/gen.py: pointer parameters without a valid direction and length:\n  "
                         + "\n  ".join(errors))
    core, families = _load_parts()
    out = {MANIFEST: manifest_text(core), HEADER: header(m), DOCS: docs(m),
           DISPATCH_H: dispatch_header(m), DISPATCH_C: dispatch_source(m), EW_CODES: ew_codes_header(m)}
    out.update({path: family_text(family) for path, family in families.items()})
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import gen_node  # the Node.js binding's koffi declarations and TypeScript types
    out.update({NODE_JS: gen_node.js(m), NODE_DTS: gen_node.dts(m)})
    import gen_cpp  # the header-only C++ API
    out[HEADER_CPP] = gen_cpp.hpp(m)
    out[DLPACK_JSON] = dlpack_description(DLPACK_H.read_text(encoding="utf-8"))
    return out


def main(argv: list[str]) -> int:
    cmd = argv[1] if len(argv) > 1 else "check"
    m = load()
    if cmd == "cdef":
        sys.stdout.write(cdef(m))
        return 0
    if cmd == "write":
        for path, text in _outputs(m).items():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        return 0
    if cmd == "check":
        stale = [str(p.relative_to(ROOT)) for p, text in _outputs(m).items()
                 if not p.exists() or p.read_text(encoding="utf-8") != text]
        if stale:
            print("stale (run `python abi/gen.py write`):", ", ".join(stale))
            return 1
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
