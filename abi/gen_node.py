"""The Node.js binding's declarations, derived from the ABI manifest (see abi/gen.py).

Two files under bindings/node/lib/:
- abi.generated.js: the constants, the koffi type declarations (handles, callbacks,
  structs) and one koffi prototype per C function, plus a table of every
  function's parameters that the JavaScript layer and the conformance runner
  marshal from;
- abi.generated.d.ts: TypeScript types for all of it.

How C types cross into JavaScript (the rule is by type, never by function name,
so entries added to the manifest need no change here):
- handles (nb_tensor*, nb_node*, ...) are BigInt addresses (koffi 3); NULL is null;
- every other pointer parameter is a C array the caller passes as a typed array, its
  direction and length in the function's "pointers" (FUNCTIONS' fifth column):
  `const int64_t*` a BigInt64Array or a plain array, `int32_t*` an Int32Array of
  one element for an out-value, `nb_tensor**` a BigUint64Array with one slot per
  handle written, `const nb_tensor* const*` a BigUint64Array of addresses;
- structs are JavaScript objects copied in and out (`_Inout_`): they start with
  struct_size, which the caller sets;
- callbacks are functions registered once with koffi.register; they get the
  payload as a BigInt, so one registration can serve every closure;
- a type the manifest does not declare (an external struct such as DLPack's)
  travels as void*.
"""
from __future__ import annotations

import json
import re

INTS = {"int8_t", "int16_t", "int32_t", "uint8_t", "uint16_t", "uint32_t", "nb_status", "int", "size_t"}
INTS64 = {"int64_t", "uint64_t"}
FLOATS = {"double", "float"}
ARRAY_TS = {"int8_t": "Int8Array", "uint8_t": "Uint8Array", "int16_t": "Int16Array", "uint16_t": "Uint16Array",
            "int32_t": "Int32Array", "uint32_t": "Uint32Array", "nb_status": "Int32Array",
            "int64_t": "BigInt64Array", "uint64_t": "BigUint64Array", "double": "Float64Array",
            "float": "Float32Array"}

_PTR = re.compile(r"^(const\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*((?:\*\s*(?:const\s*)?)*)$")


def parse(ctype: str) -> tuple[bool, str, int]:
    """'const nb_tensor* const*' -> (True, 'nb_tensor', 2): const base, base name, pointer depth."""
    m = _PTR.match(ctype.strip())
    if not m:
        raise ValueError(f"gen_node: cannot parse C type {ctype!r}")
    return bool(m.group(1)), m.group(2), m.group(3).count("*")


class Types:
    """The manifest's named types by kind."""

    def __init__(self, m: dict):
        self.kind = {t["name"]: t["kind"] for t in m["types"]}
        self.alias = {t["name"]: t["type"] for t in m["types"] if t["kind"] == "alias"}

    def resolve(self, name: str) -> str:
        while name in self.alias:
            name = self.alias[name]
        return name

    def known(self, name: str) -> bool:
        base = self.resolve(name)
        return base in INTS | INTS64 | FLOATS | {"void", "char"} or base in self.kind

    def koffi(self, ctype: str, param: bool) -> str:
        """The type as written in a koffi prototype."""
        const, base, depth = parse(ctype)
        if not self.known(base):
            return "void*" if depth else ctype  # an external struct travels as an address
        if self.kind.get(base) == "callback":
            return f"{base}*" if depth == 0 else ctype
        if param and depth == 1 and not const and self.kind.get(base) == "struct":
            return f"_Inout_ {ctype}"
        if param and base == "char" and depth == 2:  # koffi marshals a string array / a string out-value
            return "const char**" if ctype.replace(" ", "").endswith("*const*") else "_Out_ const char**"
        return ctype

    def ts(self, ctype: str, returned: bool) -> str:
        """The TypeScript type of a parameter (or of a returned value)."""
        const, base, depth = parse(ctype)
        rbase = self.resolve(base)
        kind = self.kind.get(base)
        if depth == 0:
            if rbase == "void":
                return "void"
            if kind == "callback":
                return "RegisteredCallback | null"
            if rbase in INTS64:
                return "number | bigint"
            return "number"
        if kind == "handle":
            return f"{base} | null" if depth == 1 else "BigUint64Array | null"
        if rbase == "char" and depth == 1 and const:
            return "string | null"
        if rbase == "char" and depth == 2 and not returned:
            return "string[]" if ctype.replace(" ", "").endswith("*const*") else "[string | null]"
        if returned:
            return "Pointer | null"
        if kind == "struct" and depth == 1:
            return f"Partial<{base}>"
        if depth == 1 and rbase in ARRAY_TS:
            arr = ARRAY_TS[rbase]
            if const:
                elem = "number | bigint" if rbase in INTS64 else "number"
                return f"{arr} | ArrayLike<{elem}> | null"
            return arr
        return "ArrayBufferView | ArrayBuffer | Pointer | null"


def _js(x) -> str:
    return json.dumps(x, ensure_ascii=False)


def _prototype(t: Types, fn: dict, name: str | None = None) -> str:
    params = ", ".join(f"{t.koffi(ctype, True)} {pname}" for ctype, pname in fn["params"])
    return f"{t.koffi(fn['returns'], False)} {name or fn['name']}({params})"


def _ts_name(name: str) -> str:
    return name if name not in {"default", "function", "in", "new", "delete", "var", "class"} else name + "_"


def js(m: dict) -> str:
    t = Types(m)
    major, minor, patch = m["version"]
    fns = m["functions"] + m["ops"]
    out = [
        "// abi.generated.js: the nabla C ABI for koffi. GENERATED from abi/nabla.json by",
        "// abi/gen.py (abi/gen_node.py); do not edit. `python abi/gen.py write` refreshes it.",
        "'use strict';",
        "",
        f"const VERSION = Object.freeze([{major}, {minor}, {patch}]);",
        f"const MAX_DIMS = {m['max_dims']};",
        "",
        "// Constants by group ({status: {NB_OK: 0, ...}, dtype: {...}, ...}).",
        "const CONSTANTS = Object.freeze({",
    ]
    for g in m["constants"]:
        vals = ", ".join(f"{n}: {v}" for n, v, _ in g["values"])
        out.append(f"  {_js(g['group'])}: Object.freeze({{{vals}}}),")
    out += ["});", "",
            "// Every function: [returns, [[C type, name], ...], group, differentiable,",
            "// {pointer parameter: [direction, length]}] (see docs/bindings.md).",
            "const FUNCTIONS = Object.freeze({"]
    for fn in fns:
        row = [fn["returns"], fn["params"], fn.get("group", ""), bool(fn.get("differentiable")),
               fn.get("pointers", {})]
        out.append(f"  {fn['name']}: {_js(row)},")
    out += ["});", "",
            "// Callback types: [returns, [[C type, name], ...]].",
            "const CALLBACKS = Object.freeze({"]
    for ty in m["types"]:
        if ty["kind"] == "callback":
            out.append(f"  {ty['name']}: {_js([ty['returns'], ty['params']])},")
    out += ["});", "",
            "/** Declares the types and binds every function of `lib` (a koffi library). Call once:",
            " *  koffi registers type names process-wide. A function the library lacks (an older",
            " *  minor version) is left undefined and its name listed in `missing`. */",
            "function declare(koffi, lib) {",
            "  const missing = [];",
            "  const bind = (name, prototype) => {",
            "    try { return lib.func(prototype); } catch (e) { missing.push(name); return undefined; }",
            "  };",
            "  const types = {};"]
    for ty in m["types"]:
        name, kind = ty["name"], ty["kind"]
        if kind == "alias":
            out.append(f"  types.{name} = koffi.alias('{name}', '{ty['type']}');")
        elif kind == "handle":
            out.append(f"  types.{name} = koffi.opaque('{name}');")
        elif kind == "callback":
            out.append(f"  types.{name} = koffi.proto('{_prototype(t, ty, name)}');")
        elif kind == "struct":
            fields = ", ".join(f"{fname}: '{t.koffi(ftype, False)}'" for ftype, fname, _ in ty["fields"])
            out.append(f"  types.{name} = koffi.struct('{name}', {{{fields}}});")
        else:
            raise ValueError(f"gen_node: unknown type kind {kind!r} for {name}")
    out.append("  const fn = {};")
    for fn in fns:
        out.append(f"  fn.{fn['name']} = bind('{fn['name']}', '{_prototype(t, fn)}');")
    out += ["  return { types, fn, missing };", "}", "",
            "module.exports = { VERSION, MAX_DIMS, CONSTANTS, FUNCTIONS, CALLBACKS, declare };", ""]
    return "\n".join(out)


def _doc(text: str, indent: str = "") -> str:
    return f"{indent}/** {text.replace('*/', '* /')} */"


def dts(m: dict) -> str:
    t = Types(m)
    fns = m["functions"] + m["ops"]
    out = [
        "// abi.generated.d.ts: TypeScript types of the nabla C ABI as koffi binds it. GENERATED",
        "// from abi/nabla.json by abi/gen.py (abi/gen_node.py); do not edit.",
        "",
        "/** An address (koffi 3 passes pointers as BigInt). */",
        "export type Pointer = bigint;",
        "/** A function registered with koffi.register (its slot is released with koffi.unregister). */",
        "export type RegisteredCallback = unknown;",
        "",
        "export declare const VERSION: readonly [number, number, number];",
        "export declare const MAX_DIMS: number;",
        "",
    ]
    for ty in m["types"]:
        name, kind = ty["name"], ty["kind"]
        out.append(_doc(ty["doc"]))
        if kind == "alias":
            out.append(f"export type {name} = {t.ts(ty['type'], True)};")
        elif kind == "handle":
            out.append(f"export type {name} = Pointer & {{ readonly __{name}?: never }};")
        elif kind == "callback":
            params = ", ".join(f"{_ts_name(p)}: {_cb_ts(t, c)}" for c, p in ty["params"])
            out.append(f"export type {name} = ({params}) => {t.ts(ty['returns'], True)};")
        elif kind == "struct":
            out.append(f"export interface {name} {{")
            for ftype, fname, fdoc in ty["fields"]:
                out.append(_doc(fdoc, "  "))
                out.append(f"  {fname}: {t.ts(ftype, True)};")
            out.append("}")
        out.append("")
    out.append("export declare const CONSTANTS: {")
    for g in m["constants"]:
        out.append(_doc(g["doc"], "  "))
        vals = "; ".join(f"readonly {n}: {v}" for n, v, _ in g["values"])
        out.append(f"  readonly {_js(g['group'])}: {{ {vals} }};")
    out += ["};", "",
            "/** A pointer parameter's direction and length (a count, a parameter's name, or a word). */",
            "export type PointerInfo = readonly ['in' | 'out' | 'inout', number | string];",
            "/** One function's description: [returns, [[C type, name], ...], group, differentiable, pointers]. */",
            "export type FunctionInfo = readonly [string, ReadonlyArray<readonly [string, string]>, string, boolean,",
            "                                     { readonly [param: string]: PointerInfo }];",
            "export declare const FUNCTIONS: { readonly [name: string]: FunctionInfo };",
            "export declare const CALLBACKS: { readonly [name: string]: readonly [string, ReadonlyArray<readonly [string, string]>] };",
            "",
            "/** The C functions, bound by koffi. */",
            "export interface Functions {"]
    for fn in fns:
        out.append(_doc(fn["doc"], "  "))
        params = ", ".join(f"{_ts_name(p)}: {t.ts(c, False)}" for c, p in fn["params"])
        out.append(f"  {fn['name']}({params}): {t.ts(fn['returns'], True)};")
    out += ["}", "",
            "export declare function declare(koffi: unknown, lib: unknown): { types: Record<string, unknown>; fn: Functions; missing: string[] };",
            ""]
    return "\n".join(out)


def _cb_ts(t: Types, ctype: str) -> str:
    """Callback arguments arrive from koffi as numbers, or pointers as BigInt (null for NULL)."""
    _, base, depth = parse(ctype)
    return t.ts(ctype, True) if depth == 0 or t.kind.get(base) == "handle" and depth == 1 else "Pointer | null"
