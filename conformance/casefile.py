"""Reading case files and comparing values: the part of a runner that does not
touch nabla, in the Python standard library only (README.md is the spec)."""
from __future__ import annotations

import math
import struct
from pathlib import Path

DTYPES = {  # case name -> (NB_* code, element size, struct format; None: decoded by hand)
    "f32": (0, 4, "f"), "f64": (1, 8, "d"), "f16": (2, 2, "e"), "bf16": (3, 2, None), "i8": (4, 1, "b"),
    "i16": (5, 2, "h"), "i32": (6, 4, "i"), "i64": (7, 8, "q"), "u8": (8, 1, "B"), "bool": (9, 1, "?"),
}
FLOATS = ("f32", "f64", "f16", "bf16")
# (precision in bits, minimum exponent) of each float dtype, for ulp
FORMAT = {"f32": (24, -126), "f64": (53, -1022), "f16": (11, -14), "bf16": (8, -126)}
# tolerance class -> dtype -> (rtol, atol); "exact" compares bits, "correctly_rounded" allows 1 ulp
TOLERANCE = {
    "transcendental": {"f64": (1e-13, 1e-15), "f32": (4e-6, 1e-6), "f16": (2e-3, 1e-5), "bf16": (1.6e-2, 1e-4)},
    "accumulate": {"f64": (1e-10, 1e-12), "f32": (1e-4, 1e-5), "f16": (1e-2, 1e-3), "bf16": (5e-2, 1e-2)},
}


class Tensor:
    """A tensor of a case: dtype name, shape and little-endian bytes."""

    def __init__(self, dtype: str, shape: str, data: str):
        self.dtype = dtype
        self.shape = [] if shape == "-" else [int(s) for s in shape.split(",")]
        self.data = b"" if data == "-" else bytes.fromhex(data)

    @classmethod
    def raw(cls, dtype: str, shape: list[int], data: bytes) -> "Tensor":
        t = cls(dtype, "-", "-")
        t.shape, t.data = list(shape), bytes(data)
        return t

    def values(self) -> list:
        code, size, fmt = DTYPES[self.dtype]
        n = len(self.data) // size
        if fmt is None:  # bfloat16: the top half of a float32
            return list(struct.unpack(f"<{n}f", b"".join(b"\0\0" + self.data[2 * i:2 * i + 2] for i in range(n))))
        return list(struct.unpack(f"<{n}{fmt}", self.data))


def read_cases(path: Path) -> list[dict]:
    """Cases of one file as dicts: id, call, abi, kind, tol, needs, inputs, generators,
    args [(kind, value)], expects, grad_outputs, requires_grad, expect_grads, status."""
    cases, case = [], None
    for raw in path.read_text().splitlines():
        if not raw or raw.startswith("#"):
            continue
        key, _, rest = raw.partition(" ")
        f = rest.split(" ")
        if key == "case":
            case = {"id": rest, "tol": None, "needs": [], "inputs": {}, "generators": {}, "args": [],
                    "expects": [], "grad_outputs": {}, "requires_grad": [], "expect_grads": {}, "status": "NB_OK", "device": None,
                    "consumes": []}
        elif key in ("call", "abi", "kind", "tol", "status", "device"):
            case[key] = rest
        elif key in ("needs", "consumes", "requires_grad"):
            case[key].append(rest)
        elif key == "in":
            case["inputs"][f[0]] = Tensor(*f[1:4])
        elif key == "generator":
            case["generators"][f[0]] = (int(f[1]), int(f[2]))
        elif key == "arg":
            case["args"].append((f[0], f[1] if len(f) > 1 else None))
        elif key == "expect":  # name then: a tensor, `u64 V`, `gen SEED OFFSET` or `notnull`
            case["expects"].append((f[0], f[1:]))
        elif key == "grad_output":
            case["grad_outputs"][f[0]] = Tensor(*f[1:4])
        elif key == "expect_grad":
            case["expect_grads"][f[0]] = Tensor(*f[1:4])
        elif key == "end":
            cases.append(case)
        else:
            raise ValueError(f"{path}: unknown line {raw[:40]!r}")
    return cases


def f64_from_hex(text: str) -> float:
    return struct.unpack(">d", bytes.fromhex(text))[0]


def ulp(x: float, dtype: str) -> float:
    digits, emin = FORMAT[dtype]
    e = math.frexp(x)[1] - 1 if x != 0 else emin
    return math.ldexp(1.0, max(e, emin) - (digits - 1))


def compare(got: Tensor, want: Tensor, tol: str) -> str | None:
    """None when got matches want under the tolerance class, else why not."""
    if got.dtype != want.dtype:
        return f"dtype {got.dtype}, expected {want.dtype}"
    if got.shape != want.shape:
        return f"shape {got.shape}, expected {want.shape}"
    if want.dtype not in FLOATS or tol == "exact":
        if want.dtype in FLOATS:  # bits, except that any NaN matches any NaN
            bad = [i for i, (g, w) in enumerate(zip(got.values(), want.values()))
                   if not (math.isnan(g) and math.isnan(w)) and struct.pack("<d", g) != struct.pack("<d", w)]
        else:
            bad = [i for i, (g, w) in enumerate(zip(got.values(), want.values())) if g != w]
        return _mismatch(got, want, bad)
    bad = []
    for i, (g, w) in enumerate(zip(got.values(), want.values())):
        if math.isnan(w) or math.isinf(w) or math.isnan(g) or math.isinf(g):
            ok = (math.isnan(g) and math.isnan(w)) or g == w
        elif tol == "correctly_rounded":
            ok = abs(g - w) <= ulp(w, want.dtype)
        else:
            rtol, atol = TOLERANCE[tol][want.dtype]
            ok = abs(g - w) <= atol + rtol * abs(w)
        if not ok:
            bad.append(i)
    return _mismatch(got, want, bad)


def _mismatch(got: Tensor, want: Tensor, bad: list[int]) -> str | None:
    if not bad:
        return None
    i = bad[0]
    return f"{len(bad)} of {len(want.values())} elements differ; first at flat index {i}: " \
           f"got {got.values()[i]!r}, expected {want.values()[i]!r}"
