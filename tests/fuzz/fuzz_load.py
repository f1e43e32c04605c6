#!/usr/bin/env python3
"""Fuzzes nabla.load (the C ABI's nb_load_buffer, and nb_load for a fifth of the inputs,
written to a file) with mutated safetensors files and nabla.from_dlpack with
arrays and capsules of random layouts (tests/fuzz/README.md).

    python tests/fuzz/fuzz_load.py --seed 1 --seconds 10

Each input either loads (every tensor is then read in full and, for DLPack,
compared with its source) or raises the exception PyTorch raises for it
(RuntimeError from nabla.load; BufferError, TypeError, ValueError or
RuntimeError from from_dlpack). Anything else, a crash included, is a
violation. At the end no nabla tensor is left alive. Exit 1 on a violation."""
from __future__ import annotations

import argparse
import gc
import io
import json
import os
import random
import shutil
import struct
import sys
import tempfile
import time

import numpy as np

import nabla

DTYPES = [nabla.float32, nabla.float64, nabla.float16, nabla.bfloat16, nabla.int8, nabla.int16, nabla.int32,
          nabla.int64, nabla.uint8, nabla.bool]
NP_DTYPES = [np.float32, np.float64, np.float16, np.int8, np.int16, np.int32, np.int64, np.uint8, np.bool_]
ODD_INTS = [0, 1, -1, 2, 3, 7, 255, 2**31 - 1, 2**31, 2**32, 2**53, 2**62, 2**63 - 1, 2**63, 2**64, -2**63, 10**30]


class Fuzzer:
    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.seed = seed
        self.violations = 0
        self.inputs = 0
        self.loaded = 0
        self.tmpdir = tempfile.mkdtemp(prefix="fuzz_load_")

    def violation(self, what: str, detail: str) -> None:
        self.violations += 1
        print(f"VIOLATION seed={self.seed} input={self.inputs} {what}: {detail}", file=sys.stderr, flush=True)

    # ---- safetensors ----

    def random_checkpoint(self) -> bytes:
        r = self.rng
        obj = {}
        for i in range(r.randint(0, 4)):
            shape = [r.choice([0, 1, 2, 3, 5]) for _ in range(r.randint(0, 3))]
            t = nabla.arange(int(np.prod(shape)) if shape else 1, dtype=nabla.float32).reshape(shape)
            obj[f"t{i}"] = t.to(r.choice(DTYPES))
        if r.random() < 0.3:
            obj = {"model": obj, "step": [r.randint(0, 9)], "nested": (obj.get("t0"),) if obj else ()}
        buf = io.BytesIO()
        nabla.save(obj, buf, format="safetensors")
        return buf.getvalue()

    def mutate_header(self, data: bytes) -> bytes:
        r = self.rng
        (n,) = struct.unpack_from("<Q", data, 0)
        header = json.loads(data[8:8 + n])
        body = data[8 + n:]
        keys = [k for k in header if k != "__metadata__"]
        choice = r.randrange(7)
        if keys and choice == 0:
            header[r.choice(keys)]["shape"] = [r.choice(ODD_INTS) for _ in range(r.randint(0, 4))]
        elif keys and choice == 1:
            header[r.choice(keys)]["data_offsets"] = [r.choice(ODD_INTS), r.choice(ODD_INTS)]
        elif keys and choice == 2:
            header[r.choice(keys)]["dtype"] = r.choice(["F32", "F8_E4M3", "C64", "U16", "", 7, None, "BOOL", "BF16"])
        elif keys and choice == 3:
            header[r.choice(keys)] = r.choice([None, [], "x", 3, {}, {"dtype": "F32"}])
        elif choice == 4:
            meta = header.setdefault("__metadata__", {})
            meta["nabla.structure"] = r.choice(['{"t": "missing"}', "[", '{"__tensor__": 3}', "null", '"x"',
                                                '{"a": {"__tuple__": 5}}', json.dumps([["t0"]] * 3)])
        elif choice == 5:
            header = r.choice([[], "x", 3, None, {"__metadata__": 5}])
        else:
            header["x" * r.randint(0, 3)] = {"dtype": "F32", "shape": [r.choice(ODD_INTS)],
                                              "data_offsets": [0, r.choice(ODD_INTS)]}
        text = json.dumps(header).encode()
        hn = len(text) if r.random() < 0.9 else r.choice(ODD_INTS) % 2**64
        return struct.pack("<Q", hn) + text + body

    def mutate_bytes(self, data: bytes) -> bytes:
        r = self.rng
        b = bytearray(data)
        for _ in range(r.randint(1, 4)):
            op = r.randrange(4)
            if op == 0 and b:
                b[r.randrange(len(b))] = r.randrange(256)
            elif op == 1 and b:
                del b[r.randrange(len(b)):]
            elif op == 2:
                b[r.randrange(len(b) + 1):0] = bytes(r.randrange(256) for _ in range(r.randint(1, 8)))
            elif b:
                i = r.randrange(len(b))
                b[i] ^= 1 << r.randrange(8)
        return bytes(b)

    def load_one(self) -> None:
        data = self.random_checkpoint()
        if self.rng.random() < 0.5:
            data = self.mutate_header(data)
        if self.rng.random() < 0.5:
            data = self.mutate_bytes(data)
        self.inputs += 1
        source = io.BytesIO(data)
        if self.rng.random() < 0.2:  # a path: the C loader's pread path instead of its buffer path
            source = os.path.join(self.tmpdir, "input.safetensors")
            with open(source, "wb") as f:
                f.write(data)
        try:
            obj = nabla.load(source)
        except RuntimeError as e:
            if not str(e).startswith("nabla.load"):
                self.violation("nabla.load", f"RuntimeError without the op's name: {e}")
            return
        except Exception as e:  # noqa: BLE001 - any other class is the finding
            self.violation("nabla.load", f"{type(e).__name__}: {e} (file {data[:200]!r})")
            return
        self.loaded += 1
        self.read_all(obj)

    def read_all(self, obj) -> None:
        if isinstance(obj, nabla.Tensor):
            obj.to(nabla.float64).sum().item()
        elif isinstance(obj, dict):
            for v in obj.values():
                self.read_all(v)
        elif isinstance(obj, (list, tuple)):
            for v in obj:
                self.read_all(v)

    # ---- DLPack from Python ----

    def random_array(self) -> np.ndarray:
        r = self.rng
        shape = [r.choice([0, 1, 2, 3, 4]) for _ in range(r.randint(0, 4))]
        a = np.arange(int(np.prod(shape)) if shape else 1).reshape(shape).astype(r.choice(NP_DTYPES))
        if a.ndim >= 1 and r.random() < 0.3:
            a = a[::r.choice([1, 2, -1])]
        if a.ndim >= 2 and r.random() < 0.3:
            a = a.T
        if r.random() < 0.1:
            a = np.broadcast_to(a, (2, *a.shape))
        if r.random() < 0.2:
            a.flags.writeable = False
        if r.random() < 0.1 and a.ndim >= 1:  # a view whose strides are not a multiple of the item size
            raw = np.zeros(a.size * a.itemsize + 1, np.uint8)[1:]
            a = raw.view(a.dtype) if a.itemsize == 1 else a
        return a

    def dlpack_one(self) -> None:
        r = self.rng
        self.inputs += 1
        a = self.random_array()
        source = a
        how = r.randrange(4)
        try:
            if how == 0:
                t = nabla.from_dlpack(a)
            elif how == 1:
                t = nabla.from_numpy(a)
            elif how == 2:
                cap = a.__dlpack__()  # legacy capsule; consuming it twice must fail cleanly
                t = nabla.from_dlpack(cap)
                try:
                    nabla.from_dlpack(cap)
                    self.violation("from_dlpack", "a used capsule was consumed again")
                except (ValueError, RuntimeError, TypeError, BufferError):
                    pass
            else:
                t = nabla.from_dlpack(r.choice([None, 3, "x", object(), b"xx", [1, 2]]))
                self.violation("from_dlpack", "accepted a non-DLPack object")
                return
        except (BufferError, TypeError, ValueError, RuntimeError):
            return
        except Exception as e:  # noqa: BLE001
            self.violation("from_dlpack", f"{type(e).__name__}: {e} (array {a.dtype} {a.shape} {a.strides})")
            return
        self.loaded += 1
        got = t.to(nabla.float64).numpy()
        if got.shape != source.shape or not np.array_equal(got, source.astype(np.float64), equal_nan=True):
            self.violation("from_dlpack", f"values differ for {a.dtype} {a.shape} strides {a.strides}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--seconds", type=float, default=10)
    p.add_argument("--inputs", type=int, default=0, help="stop after this many inputs instead (the same inputs on "
                   "every machine)")
    args = p.parse_args(argv)
    gc.collect()
    live0 = nabla.memory.stats()["live_tensors"]
    f = Fuzzer(args.seed)
    start = time.monotonic()
    while (f.inputs < args.inputs) if args.inputs else (time.monotonic() - start < args.seconds):
        if f.rng.random() < 0.7:
            f.load_one()
        else:
            f.dlpack_one()
    elapsed = time.monotonic() - start
    gc.collect()
    live = nabla.memory.stats()["live_tensors"]
    if live != live0:
        f.violation("end", f"{live - live0} nabla tensors still alive")
    shutil.rmtree(f.tmpdir, ignore_errors=True)
    print(f"seed {args.seed}: {f.inputs} inputs ({f.loaded} accepted), {f.violations} violations, "
          f"{f.inputs / max(elapsed, 1e-9):.0f} inputs/s")
    return 1 if f.violations else 0


if __name__ == "__main__":
    sys.exit(main())
