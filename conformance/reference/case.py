"""The case format, written: tensors rounded once to their dtype and stored as
little-endian hex, arguments in the order of the C parameters, and the float64
vector-Jacobian products by finite differences. See conformance/README.md."""
from __future__ import annotations

import zlib
from typing import Callable

import numpy as np

ABI = "0.1"  # the ABI version a case needs, by default

NP = {"f32": np.float32, "f64": np.float64, "f16": np.float16, "i8": np.int8, "i16": np.int16,
      "i32": np.int32, "i64": np.int64, "u8": np.uint8, "bool": np.bool_}
FLOATS = ("f32", "f64", "f16", "bf16")
INTS = ("i8", "i16", "i32", "i64", "u8")


def rng(case_id: str) -> np.random.Generator:
    """The one generator of a case, seeded by its id, so adding a case changes no other."""
    return np.random.default_rng(zlib.crc32(case_id.encode()))


def _bf16_bits(x: np.ndarray) -> np.ndarray:
    """float64 -> bfloat16 bit patterns, rounded to nearest even through float32."""
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    nan = np.isnan(np.asarray(x, np.float32))
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(nan, np.uint16(0x7FC0), r)


def round_to(x, dt: str) -> np.ndarray:
    """x as the values dtype `dt` holds: float64 for floats, int64 for integers, bool for bool."""
    x = np.asarray(x)
    if dt == "bf16":
        bits = _bf16_bits(x).astype(np.uint32) << 16
        return bits.view(np.float32).astype(np.float64)
    if dt in FLOATS:
        return x.astype(NP[dt]).astype(np.float64)
    if dt == "bool":
        return x.astype(bool)
    return x.astype(NP[dt]).astype(np.int64)


def to_bytes(x, dt: str) -> bytes:
    x = np.asarray(x)
    if dt == "bf16":
        return _bf16_bits(x).astype("<u2").tobytes()
    return np.ascontiguousarray(x.astype(NP[dt]).astype(np.dtype(NP[dt]).newbyteorder("<"))).tobytes()


def f64_hex(v: float) -> str:
    return np.array(v, "<f8").tobytes()[::-1].hex()  # the bit pattern, big-endian text


def tensor_text(dt: str, x) -> str:
    x = np.asarray(x)
    shape = ",".join(str(d) for d in x.shape) or "-"
    data = to_bytes(x, dt).hex() or "-"
    return f"{dt} {shape} {data}"


# ---- arguments, in the order of the C parameters ----

def T(name):  return f"t {name}"            # a tensor declared with `in`
def OUT(name): return f"out {name}"         # nb_tensor** receiving a result
def F64(v):   return f"f64 {f64_hex(float(v))}"
def I32(v):   return f"i32 {int(v)}"
def I64(v):   return f"i64 {int(v)}"
def U64(v):   return f"u64 {int(v)}"
def I64S(vs): return "i64s " + (",".join(str(int(v)) for v in vs) or "-")
def TS(names): return "ts " + ",".join(names)  # const nb_tensor* const*; `_` is NULL
def GEN(name): return f"gen {name}"          # nb_generator* declared with `generator`
def GENOUT(name): return f"genout {name}"    # nb_generator** receiving a generator
def U64OUT(name): return f"u64out {name}"    # uint64_t* receiving a value
NULL = "null"


class Case:
    """One case: its lines, and the rounded float64 values of its inputs."""

    def __init__(self, case_id: str, call: str, kind: str, tol: str | None = None, abi: str = ABI,
                 needs: tuple[str, ...] = ()):
        assert kind in ("forward", "grad", "error", "abi"), kind
        self.id, self.call, self.kind = case_id, call, kind
        self.lines = [f"case {case_id}", f"call {call}", f"abi {abi}", f"kind {kind}"]
        if tol:
            self.lines.append(f"tol {tol}")
        self.lines += [f"needs {n}" for n in needs]
        self.values: dict[str, np.ndarray] = {}
        self.dtypes: dict[str, str] = {}

    def input(self, name: str, dt: str, x) -> np.ndarray:
        v = round_to(x, dt)
        self.values[name], self.dtypes[name] = v, dt
        self.lines.append(f"in {name} {tensor_text(dt, v)}")
        return v

    def generator(self, name: str, seed: int, offset: int = 0) -> None:
        self.lines.append(f"generator {name} {seed} {offset}")

    def args(self, *args: str) -> None:
        self.lines += [f"arg {a}" for a in args]

    def expect(self, name: str, dt: str, x) -> None:
        self.lines.append(f"expect {name} {tensor_text(dt, round_to(x, dt))}")

    def expect_u64(self, name: str, v: int) -> None:
        self.lines.append(f"expect {name} u64 {int(v)}")

    def expect_gen(self, name: str, seed: int, offset: int) -> None:
        self.lines.append(f"expect {name} gen {int(seed)} {int(offset)}")

    def line(self, text: str) -> None:
        self.lines.append(text)

    def text(self) -> str:
        """The case's lines; a case with half-precision tensors needs that dtype (a binding
        without it skips the case)."""
        used = {f.split(" ")[2] for f in self.lines
                if f.split(" ")[0] in ("in", "expect", "grad_output", "expect_grad") and len(f.split(" ")) == 5}
        needs = [f"needs {dt}" for dt in ("f16", "bf16") if dt in used and f"needs {dt}" not in self.lines]
        at = 5 if len(self.lines) > 4 and self.lines[4].startswith("tol ") else 4
        return "\n".join(self.lines[:at] + needs + self.lines[at:] + ["end"]) + "\n"


# ---- vector-Jacobian products of the float64 reference ----

def vjp(fn: Callable[..., dict], values: dict[str, np.ndarray], wrt: list[str],
        upstream: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """d/dx of sum_k <upstream_k, fn(values)_k> for each x in wrt: the fourth-order central
    difference D(h) = (-f(x+2h) + 8 f(x+h) - 8 f(x-h) + f(x-2h)) / 12h, Richardson-extrapolated
    as (16 D(h/2) - D(h)) / 15 with h = 4e-3 max(1, |x|): about 1e-12 relative for smooth
    functions. Inputs stay 2h = 0.008 |x| away from kinks."""
    def phi(vals):
        outs = fn(**vals)
        return sum(float(np.sum(np.asarray(outs[k], np.float64) * g)) for k, g in upstream.items())

    def d(x, name, idx, h):
        f = []
        for step in (2, 1, -1, -2):
            xv = x.copy()
            xv[idx] += step * h
            f.append(phi({**values, name: xv}))
        return (-f[0] + 8 * f[1] - 8 * f[2] + f[3]) / (12 * h)

    grads = {}
    for name in wrt:
        x = values[name]
        g = np.zeros(x.shape, np.float64)
        for idx in np.ndindex(*x.shape):
            h = 4e-3 * max(1.0, abs(float(x[idx])))
            g[idx] = (16 * d(x, name, idx, h / 2) - d(x, name, idx, h)) / 15
        grads[name] = g
    return grads
