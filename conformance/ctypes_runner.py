"""The ctypes runner: every case through ctypes_binding.py, a binding generated from the
ABI manifest alone (no cffi, no nabla package). Each case argument is marshalled by the
C parameter's direction and length in the manifest, never by the function's name.

    python conformance/run.py --ctypes
"""
from __future__ import annotations

import ctypes

from casefile import DTYPES, Tensor, compare, f64_from_hex
from ctypes_binding import Binding, parse

CODE_TO_DTYPE = {code: name for name, (code, _, _) in DTYPES.items()}
SENTINEL = 0x5EB7  # planted in out-parameters; an error must leave it there
U64_SENTINEL = 0xDEADBEEF
_DL_DTYPE = {"f32": (2, 32, 1), "f64": (2, 64, 1), "f16": (2, 16, 1), "bf16": (4, 16, 1), "i8": (0, 8, 1),
             "i16": (0, 16, 1), "i32": (0, 32, 1), "i64": (0, 64, 1), "u8": (1, 8, 1), "bool": (6, 8, 1)}


class Failure(Exception):
    pass


class Runner:
    def __init__(self, device: str, binding: Binding | None = None):
        self.nb = binding or Binding.load()
        self.lib, self.C = self.nb.lib, self.nb.constants
        self.device = self.C["NB_CUDA"] if device == "cuda" else self.C["NB_CPU"]
        v = self.lib.nb_version()
        self.version = (v // 10000, v // 100 % 100)
        if self.version[0] != self.nb.manifest["version"][0]:
            raise OSError(f"libnabla has ABI major {self.version[0]}, the manifest {self.nb.manifest['version'][0]}")
        count = ctypes.c_int32()
        self.has_cuda = self.lib.nb_device_count(self.C["NB_CUDA"], count) == 0 and count.value > 0

    # ---- helpers ----
    def message(self) -> str:
        return (self.lib.nb_last_error_message() or b"").decode("utf-8", "replace")

    def check(self, status: int, what: str) -> None:
        if status != 0:
            raise Failure(f"{what}: {self.lib.nb_status_name(status).decode()}: {self.message()}")

    def live_tensors(self) -> int:
        stats = self.nb.structs["nb_memory_stats"]()
        stats.struct_size = ctypes.sizeof(stats)
        self.check(self.lib.nb_memory_stats_get(self.C["NB_CPU"], 0, stats), "nb_memory_stats_get")
        return stats.live_tensors

    def read_tensor(self, h) -> Tensor:
        lib = self.lib
        dtype = CODE_TO_DTYPE[lib.nb_tensor_dtype(h)]
        shape = lib.nb_tensor_shape(h)[:lib.nb_tensor_ndim(h)]
        nbytes = lib.nb_tensor_numel(h) * DTYPES[dtype][1]
        buf = ctypes.create_string_buffer(max(nbytes, 1))
        self.check(lib.nb_tensor_copy_to_host(h, buf, nbytes), "nb_tensor_copy_to_host")
        return Tensor.raw(dtype, shape, buf.raw[:nbytes])

    def tensor(self, t: Tensor, device=None):
        out = ctypes.c_void_p()
        data = ctypes.create_string_buffer(t.data or b"\0", max(len(t.data), 1))
        shape = (ctypes.c_int64 * max(len(t.shape), 1))(*t.shape)
        self.check(self.lib.nb_tensor_from_host(data, shape, len(t.shape), DTYPES[t.dtype][0],
                                                self.case_device if device is None else device, 0,
                                                ctypes.byref(out)), "nb_tensor_from_host")
        self.owned.append(out.value)
        return out.value

    def handles(self, hs):
        return (ctypes.c_void_p * max(len(hs), 1))(*hs)

    # ---- one case ----
    def run(self, case: dict) -> tuple[str, str]:
        major, minor = (int(x) for x in case["abi"].split("."))
        if major != self.version[0] or minor > self.version[1]:
            return "SKIP", f"needs ABI {case['abi']}, the library has {self.version[0]}.{self.version[1]}"
        for need in case["needs"]:
            if need == "cuda" and not self.has_cuda:
                return "SKIP", "needs cuda: " + self.lib.nb_device_unavailable_reason(self.C["NB_CUDA"]).decode()
            if need not in ("cuda", "f16", "bf16"):  # half types cross as bytes
                return "SKIP", f"needs {need}: not supported by this runner"
        if self.device == self.C["NB_CUDA"] and not self.has_cuda:
            return "SKIP", "no CUDA device"
        baseline = self.live_tensors()
        self.case_device = {"cuda": self.C["NB_CUDA"], "cpu": self.C["NB_CPU"]}.get(case["device"], self.device)
        self.owned, self.gens = [], {}
        try:
            if case["kind"] == "abi":
                getattr(self, "abi_" + case["call"])(case)
            else:
                self.call_case(case)
            verdict, why = "PASS", ""
        except Failure as e:
            verdict, why = "FAIL", str(e)
        finally:
            for h in self.owned:
                self.lib.nb_tensor_release(h)
            for name, g in self.gens.items():
                if name not in case["consumes"]:
                    self.lib.nb_generator_release(g)
            self.lib.nb_clear_error()
        leaked = self.live_tensors() - baseline
        if verdict == "PASS" and leaked:
            return "FAIL", f"{leaked} tensors still alive after every handle was released"
        return verdict, why

    def call_case(self, case: dict) -> None:
        lib = self.lib
        inputs = {name: self.tensor(t) for name, t in case["inputs"].items()}
        for name, (seed, offset) in case["generators"].items():
            g = ctypes.c_void_p()
            self.check(lib.nb_generator_create(seed, ctypes.byref(g)), "nb_generator_create")
            self.gens[name] = g.value
            self.check(lib.nb_generator_set_state(g, seed, offset), "nb_generator_set_state")
        for name in case["requires_grad"]:
            self.check(lib.nb_tensor_set_requires_grad(inputs[name], 1), "nb_tensor_set_requires_grad")
        fn = self.nb.functions.get(case["call"])
        if fn is None or case["call"] in self.nb.missing:
            raise Failure(f"the library has no {case['call']}")
        args, slots = self.build_args(fn, case, inputs)
        ret = getattr(lib, case["call"])(*args)
        status = ret if fn["returns"] == "nb_status" else 0
        types = {p: t for t, p in fn["params"]}
        for name, (kind, slot, pname) in slots.items():  # handles we now own
            h = slot[0]
            if kind == "handle" and h not in (None, 0, SENTINEL):
                if parse(types[pname])[1] == "nb_generator":
                    self.gens[name] = h
                else:
                    self.owned.append(h)
        if case["kind"] == "error":
            if status == 0 and case["status"] in ("NB_ERR_INDEX", "NB_ERR_INVALID_ARGUMENT") and self.case_device == self.C["NB_CUDA"]:
                return self.check_error(case, lib.nb_device_synchronize(self.C["NB_CUDA"], 0), {})
            return self.check_error(case, status, slots)
        self.check(status, case["call"])
        if case["kind"] == "grad":
            return self.check_grads(case, inputs, slots)
        for name, spec in case["expects"]:
            self.check_expect(case, name, spec, inputs, slots, ret)

    def build_args(self, fn: dict, case: dict, inputs: dict):
        """The C arguments, each marshalled by its parameter's type, direction and length."""
        params, pointers = fn["params"], fn.get("pointers", {})
        if len(case["args"]) != len(params):
            raise Failure(f"{len(case['args'])} arguments for {len(params)} parameters")
        args, slots = [], {}
        for (ctype, pname), (kind, value) in zip(params, case["args"]):
            spec = pointers.get(pname)
            if kind == "null":
                args.append(None)
            elif spec is None:  # a value: a handle or a number
                if kind == "t":
                    args.append(inputs[value])
                elif kind == "gen":
                    args.append(self.gens[value])
                elif kind == "f64":
                    args.append(f64_from_hex(value))
                elif kind in ("i32", "i64", "u64"):
                    args.append(int(value))
                else:
                    raise Failure(f"argument {pname} ({ctype}): a value, not {kind}")
            elif spec[0] == "in":
                if kind == "i64s":
                    args.append(self.nb.array(ctype, [] if value == "-" else [int(v) for v in value.split(",")]))
                elif kind == "ts":
                    args.append(self.nb.array(ctype, [None if n == "_" else inputs[n] for n in value.split(",")]))
                else:
                    raise Failure(f"argument {pname} ({ctype}, in): an array, not {kind}")
            else:  # out: a slot of the declared length, planted with a sentinel
                if kind not in ("out", "genout", "u64out") or spec[1] != 1:
                    raise Failure(f"argument {pname} ({ctype}, {spec}): not an out-slot of one ({kind})")
                slot = self.nb.slot(ctype, 1, U64_SENTINEL if kind == "u64out" else SENTINEL)
                slots[value] = ("value" if kind == "u64out" else "handle", slot, pname)
                args.append(slot)
        return args, slots

    def check_error(self, case, status, slots) -> None:
        want = self.C[case["status"]]
        if status != want:
            got = self.lib.nb_status_name(status).decode()
            raise Failure(f"status {got}, expected {case['status']}" + (f" ({self.message()})" if status else ""))
        if self.lib.nb_last_error_status() != want:
            raise Failure("nb_last_error_status() disagrees with the returned status")
        if not self.message():
            raise Failure("empty error message")
        for name, (kind, slot, _) in slots.items():
            if slot[0] != (U64_SENTINEL if kind == "value" else SENTINEL):
                raise Failure(f"out-parameter {name} was written although the call failed")

    def resolve(self, name, inputs, slots):
        if name in slots:
            return slots[name][1][0]
        if name in inputs:
            return inputs[name]
        raise Failure(f"the case names no output or input {name}")

    def check_expect(self, case, name, spec, inputs, slots, ret) -> None:
        if spec[0] == "u64":
            if slots[name][1][0] != int(spec[1]):
                raise Failure(f"{name} = {slots[name][1][0]}, expected {spec[1]}")
        elif spec[0] == "gen":
            g = self.lib.nb_default_generator() if name == "default" else self.gens.get(name) or slots[name][1][0]
            seed, offset = ctypes.c_uint64(), ctypes.c_uint64()
            self.check(self.lib.nb_generator_get_state(g, seed, offset), "nb_generator_get_state")
            if (seed.value, offset.value) != (int(spec[1]), int(spec[2])):
                raise Failure(f"generator {name} at ({seed.value}, {offset.value}), expected ({spec[1]}, {spec[2]})")
        elif spec[0] == "notnull":
            if not ret:
                raise Failure(f"{case['call']} returned NULL")
        else:
            why = compare(self.read_tensor(self.resolve(name, inputs, slots)), Tensor(*spec[:3]), case["tol"])
            if why:
                raise Failure(f"{name}: {why}")

    def check_grads(self, case, inputs, slots) -> None:
        outs = [self.resolve(n, inputs, slots) for n in case["grad_outputs"]]
        gouts = [self.tensor(t) for t in case["grad_outputs"].values()]
        wrt = [inputs[n] for n in case["requires_grad"]]
        grads = (ctypes.c_void_p * max(len(wrt), 1))()
        self.check(self.lib.nb_autograd_grad(self.handles(outs), self.handles(gouts), len(outs), self.handles(wrt),
                                             len(wrt), 0, 0, 1, grads), "nb_autograd_grad")
        self.owned += [g for g in grads[:len(wrt)] if g]
        for i, name in enumerate(case["requires_grad"]):
            want = case["expect_grads"][name]
            got = (self.read_tensor(grads[i]) if grads[i]  # an unused input: a zero gradient
                   else Tensor.raw(want.dtype, want.shape, bytes(len(want.data))))
            why = compare(got, want, case["tol"])
            if why:
                raise Failure(f"gradient of {name}: {why}")

    # ---- ABI-level procedures (README, "ABI-level cases") ----
    def abi_version(self, case) -> None:
        v = self.lib.nb_version()
        text = self.lib.nb_version_string().decode()
        if text != f"{v // 10000}.{v // 100 % 100}.{v % 100}":
            raise Failure(f"nb_version_string() {text!r} disagrees with nb_version() {v}")
        major, minor = (int(x) for x in case["abi"].split("."))
        if v // 10000 != major or v // 100 % 100 < minor:
            raise Failure(f"version {text} does not serve ABI {case['abi']}")

    def abi_refcount(self, case) -> None:
        lib, base = self.lib, self.live_tensors()
        x = self.tensor(case["inputs"]["x"])
        self.expect(self.live_tensors(), base + 1, "live tensors after creating x")
        self.expect(lib.nb_tensor_refcount(x), 1, "refcount")
        lib.nb_tensor_retain(x)
        self.expect(lib.nb_tensor_refcount(x), 2, "refcount after retain")
        lib.nb_tensor_release(x)
        self.expect(lib.nb_tensor_refcount(x), 1, "refcount after release")
        v = ctypes.c_void_p()
        self.check(lib.nb_tensor_unsqueeze(x, 0, ctypes.byref(v)), "nb_tensor_unsqueeze")
        self.owned.append(v.value)
        self.expect(self.live_tensors(), base + 2, "live tensors after a view of x")
        self.owned.remove(x)
        lib.nb_tensor_release(x)  # the view keeps the memory alive
        if self.read_tensor(v.value).data != case["inputs"]["x"].data:
            raise Failure("a view read different values once its base was released")
        self.owned.remove(v.value)
        lib.nb_tensor_release(v.value)
        self.expect(self.live_tensors(), base, "live tensors after releasing x and its view")

    def abi_refcount_autograd(self, case) -> None:
        lib, base = self.lib, self.live_tensors()
        x = self.tensor(case["inputs"]["x"])
        self.check(lib.nb_tensor_set_requires_grad(x, 1), "nb_tensor_set_requires_grad")
        y, s, g = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_void_p()
        self.check(lib.nb_exp(x, None, ctypes.byref(y)), "nb_exp")
        self.owned.append(y.value)
        self.check(lib.nb_sum(y, None, 0, 0, -1, None, ctypes.byref(s)), "nb_sum")
        self.owned.append(s.value)
        self.check(lib.nb_backward(self.handles([s.value]), None, 1, 0, 0), "nb_backward")
        self.check(lib.nb_tensor_get_grad(x, ctypes.byref(g)), "nb_tensor_get_grad")
        if not g.value:
            raise Failure("x has no gradient after backward")
        lib.nb_tensor_release(g)
        for h in (s.value, y.value, x):
            self.owned.remove(h)
            lib.nb_tensor_release(h)
        self.expect(self.live_tensors(), base, "live tensors after releasing x, its graph and its gradient")

    def abi_error(self, case) -> None:
        lib = self.lib
        a, b = self.tensor(case["inputs"]["a"]), self.tensor(case["inputs"]["b"])
        out = ctypes.c_void_p(SENTINEL)
        status = lib.nb_add(a, b, 1.0, None, ctypes.byref(out))
        want = self.C[case["status"]]
        if status != want or lib.nb_last_error_status() != want:
            raise Failure(f"status {status} / last {lib.nb_last_error_status()}, expected {want}")
        if out.value != SENTINEL:
            raise Failure("out-parameter written by a failed call")
        if not self.message():
            raise Failure("empty error message")
        if lib.nb_status_name(status).decode() != case["status"]:
            raise Failure(f"nb_status_name({status}) is not {case['status']}")
        lib.nb_clear_error()
        if lib.nb_last_error_status() != 0 or self.message():
            raise Failure("nb_clear_error left a status or a message")

    def abi_dlpack(self, case) -> None:
        """Export and import through DLPack, reading the capsule through dlpack.json's structs."""
        lib, nb = self.lib, self.nb
        versioned = case["variant"] if "variant" in case else "versioned" in case["id"]
        suffix = "_versioned" if versioned else ""
        base, xt = self.live_tensors(), case["inputs"]["x"]
        x = self.tensor(xt, self.C["NB_CPU"])
        m = ctypes.c_void_p()
        self.check(getattr(lib, "nb_tensor_to_dlpack" + suffix)(x, -1, -1, 0, ctypes.byref(m)), "to_dlpack")
        managed = nb.dlpack["DLManagedTensorVersioned" if versioned else "DLManagedTensor"].from_address(m.value)
        if versioned and managed.version.major != 1:
            raise Failure(f"DLPack major {managed.version.major}")
        t = managed.dl_tensor
        data, shape = (t.data or 0) + t.byte_offset, t.shape[:t.ndim]
        device, dtype = (t.device.device_type, t.device.device_id), (t.dtype.code, t.dtype.bits, t.dtype.lanes)
        data_ptr = lib.nb_tensor_data_ptr(x) or 0
        if data != data_ptr or shape != xt.shape or device != (1, 0) or dtype != _DL_DTYPE[xt.dtype]:
            raise Failure(f"exported DLTensor: data {data:#x} vs {data_ptr:#x}, shape {shape}, "
                          f"device {device}, dtype {dtype}")
        y = ctypes.c_void_p()
        self.check(getattr(lib, "nb_tensor_from_dlpack" + suffix)(m, ctypes.byref(y)), "from_dlpack")
        self.owned.append(y.value)
        if (lib.nb_tensor_data_ptr(y) or 0) != data_ptr:
            raise Failure("the round trip copied the memory")
        self.owned.remove(x)
        lib.nb_tensor_release(x)
        if self.read_tensor(y.value).data != xt.data:
            raise Failure("values changed in the round trip")
        self.owned.remove(y.value)
        lib.nb_tensor_release(y)
        self.expect(self.live_tensors(), base, "live tensors after releasing both ends (the deleter ran)")

    def expect(self, got, want, what) -> None:
        if got != want:
            raise Failure(f"{what}: {got}, expected {want}")
