"""The Python runner: every case through nabla's cffi binding (`nabla._lib`), calling
the C ABI functions themselves, never the Tensor or nn layers."""
from __future__ import annotations

import ctypes

from casefile import DTYPES, Tensor, compare, f64_from_hex

from nabla._lib import ffi, lib

CODE_TO_DTYPE = {code: name for name, (code, _, _) in DTYPES.items()}
SENTINEL = 0x5EB7  # planted in out-parameters; an error must leave it there
U64_SENTINEL = 0xDEADBEEF


class Failure(Exception):
    pass


def _message() -> str:
    return ffi.string(lib.nb_last_error_message()).decode("utf-8", "replace")


def _check(status: int, what: str) -> None:
    if status != lib.NB_OK:
        raise Failure(f"{what}: {ffi.string(lib.nb_status_name(status)).decode()}: {_message()}")


def live_tensors() -> int:
    stats = ffi.new("nb_memory_stats*")
    stats.struct_size = ffi.sizeof("nb_memory_stats")
    _check(lib.nb_memory_stats_get(lib.NB_CPU, 0, stats), "nb_memory_stats_get")
    return stats.live_tensors


def read_tensor(h) -> Tensor:
    """A tensor's dtype, shape and row-major bytes, copied to the host."""
    dtype = CODE_TO_DTYPE[lib.nb_tensor_dtype(h)]
    shape = [lib.nb_tensor_shape(h)[i] for i in range(lib.nb_tensor_ndim(h))]
    nbytes = lib.nb_tensor_numel(h) * DTYPES[dtype][1]
    buf = ffi.new("char[]", max(nbytes, 1))
    _check(lib.nb_tensor_copy_to_host(h, buf, nbytes), "nb_tensor_copy_to_host")
    return Tensor.raw(dtype, shape, ffi.buffer(buf, nbytes)[:])


class Runner:
    def __init__(self, device: str):
        self.device = lib.NB_CUDA if device == "cuda" else lib.NB_CPU
        v = lib.nb_version()
        self.version = (v // 10000, v // 100 % 100)
        count = ffi.new("int32_t*")
        self.has_cuda = lib.nb_device_count(lib.NB_CUDA, count) == lib.NB_OK and count[0] > 0

    # ---- one case ----
    def run(self, case: dict) -> tuple[str, str]:
        major, minor = (int(x) for x in case["abi"].split("."))
        if major != self.version[0] or minor > self.version[1]:
            return "SKIP", f"needs ABI {case['abi']}, the library has {self.version[0]}.{self.version[1]}"
        for need in case["needs"]:
            if need == "cuda" and not self.has_cuda:
                return "SKIP", "needs cuda: " + ffi.string(lib.nb_device_unavailable_reason(lib.NB_CUDA)).decode()
            if need not in ("cuda", "f16", "bf16"):  # this binding has both half types
                return "SKIP", f"needs {need}: not supported by this runner"
        if self.device == lib.NB_CUDA and not self.has_cuda:
            return "SKIP", "no CUDA device"
        baseline = live_tensors()
        self.case_device = {"cuda": lib.NB_CUDA, "cpu": lib.NB_CPU}.get(case["device"], self.device)
        self.owned: list = []  # handles to release
        self.gens: dict = {}
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
                lib.nb_tensor_release(h)
            for name, g in self.gens.items():
                if name not in case["consumes"]:
                    lib.nb_generator_release(g)
            lib.nb_clear_error()
        leaked = live_tensors() - baseline
        if verdict == "PASS" and leaked:
            return "FAIL", f"{leaked} tensors still alive after every handle was released"
        return verdict, why

    def tensor(self, t: Tensor, device=None):
        shape = ffi.new("int64_t[]", t.shape or [0])
        out = ffi.new("nb_tensor*[1]")
        data = ffi.new("char[]", t.data or b"\0")
        _check(lib.nb_tensor_from_host(data, shape, len(t.shape), DTYPES[t.dtype][0],
                                       self.case_device if device is None else device, 0, out),
               "nb_tensor_from_host")
        self.owned.append(out[0])
        return out[0]

    def call_case(self, case: dict) -> None:
        inputs = {name: self.tensor(t) for name, t in case["inputs"].items()}
        for name, (seed, offset) in case["generators"].items():
            g = ffi.new("nb_generator*[1]")
            _check(lib.nb_generator_create(seed, g), "nb_generator_create")
            self.gens[name] = g[0]
            _check(lib.nb_generator_set_state(g[0], seed, offset), "nb_generator_set_state")
        for name in case["requires_grad"]:
            _check(lib.nb_tensor_set_requires_grad(inputs[name], 1), "nb_tensor_set_requires_grad")
        args, slots = self.build_args(case, inputs)
        fn = getattr(lib, case["call"], None)
        if fn is None:
            raise Failure(f"the library has no {case['call']}")
        ret = fn(*args)
        status = ret if isinstance(ret, int) else lib.NB_OK
        for kind, slot in slots.values():  # results we now own
            if kind == "out" and slot[0] not in (ffi.NULL, ffi.cast("nb_tensor*", SENTINEL)):
                self.owned.append(slot[0])
            if kind == "genout" and slot[0] not in (ffi.NULL, ffi.cast("nb_generator*", SENTINEL)):
                self.gens[slots_name(slots, slot)] = slot[0]
        if case["kind"] == "error":
            if (status == lib.NB_OK and case["status"] in ("NB_ERR_INDEX", "NB_ERR_INVALID_ARGUMENT")
                    and self.case_device == lib.NB_CUDA):
                # a kernel's out-of-range index or zero divisor arrives at the next synchronisation
                return self.check_error(case, lib.nb_device_synchronize(lib.NB_CUDA, 0), {})
            return self.check_error(case, status, slots)
        _check(status, case["call"])
        if case["kind"] == "grad":
            return self.check_grads(case, inputs, slots)
        for name, spec in case["expects"]:
            self.check_expect(case, name, spec, inputs, slots, ret)

    def build_args(self, case, inputs):
        args, slots = [], {}
        for kind, value in case["args"]:
            if kind == "t":
                args.append(inputs[value])
            elif kind == "null":
                args.append(ffi.NULL)
            elif kind == "f64":
                args.append(f64_from_hex(value))
            elif kind in ("i32", "i64", "u64"):
                args.append(int(value))
            elif kind == "i64s":
                args.append(ffi.new("int64_t[]", [] if value == "-" else [int(v) for v in value.split(",")] or [0]))
            elif kind == "ts":
                args.append(ffi.new("nb_tensor*[]", [ffi.NULL if n == "_" else inputs[n] for n in value.split(",")]))
            elif kind == "gen":
                args.append(self.gens[value])
            elif kind in ("out", "genout", "u64out"):
                ctype = {"out": "nb_tensor*[1]", "genout": "nb_generator*[1]", "u64out": "uint64_t[1]"}[kind]
                slot = ffi.new(ctype)
                slot[0] = U64_SENTINEL if kind == "u64out" else ffi.cast(ctype.split("[")[0], SENTINEL)
                slots[value] = (kind, slot)
                args.append(slot)
            else:
                raise Failure(f"unknown argument kind {kind}")
        return args, slots

    def check_error(self, case, status, slots) -> None:
        want = getattr(lib, case["status"])
        if status != want:
            got = ffi.string(lib.nb_status_name(status)).decode()
            raise Failure(f"status {got}, expected {case['status']}" + (f" ({_message()})" if status else ""))
        if lib.nb_last_error_status() != want:
            raise Failure("nb_last_error_status() disagrees with the returned status")
        if not _message():
            raise Failure("empty error message")
        for name, (kind, slot) in slots.items():
            untouched = slot[0] == U64_SENTINEL if kind == "u64out" else int(ffi.cast("uintptr_t", slot[0])) == SENTINEL
            if not untouched:
                raise Failure(f"out-parameter {name} was written although the call failed")

    def resolve(self, name, inputs, slots):
        if name in slots:
            return slots[name][1][0]
        if name in inputs:
            return inputs[name]
        raise Failure(f"the case names no output or input {name}")

    def check_expect(self, case, name, spec, inputs, slots, ret) -> None:
        if spec[0] == "u64":
            got = slots[name][1][0]
            if got != int(spec[1]):
                raise Failure(f"{name} = {got}, expected {spec[1]}")
        elif spec[0] == "gen":
            g = lib.nb_default_generator() if name == "default" else self.gens.get(name) or slots[name][1][0]
            seed, offset = ffi.new("uint64_t*"), ffi.new("uint64_t*")
            _check(lib.nb_generator_get_state(g, seed, offset), "nb_generator_get_state")
            if (seed[0], offset[0]) != (int(spec[1]), int(spec[2])):
                raise Failure(f"generator {name} at (seed {seed[0]}, offset {offset[0]}), expected "
                              f"({spec[1]}, {spec[2]})")
        elif spec[0] == "notnull":
            if ret == ffi.NULL:
                raise Failure(f"{case['call']} returned NULL")
        else:
            h = self.resolve(name, inputs, slots)
            why = compare(read_tensor(h), Tensor(*spec[:3]), case["tol"])
            if why:
                raise Failure(f"{name}: {why}")

    def check_grads(self, case, inputs, slots) -> None:
        outs = [self.resolve(n, inputs, slots) for n in case["grad_outputs"]]
        gouts = [self.tensor(t) for t in case["grad_outputs"].values()]
        wrt = [inputs[n] for n in case["requires_grad"]]
        grads = ffi.new("nb_tensor*[]", len(wrt))
        _check(lib.nb_autograd_grad(ffi.new("nb_tensor*[]", outs), ffi.new("nb_tensor*[]", gouts), len(outs),
                                    ffi.new("nb_tensor*[]", wrt), len(wrt), 0, 0, 1, grads), "nb_autograd_grad")
        for i in range(len(wrt)):
            if grads[i] != ffi.NULL:
                self.owned.append(grads[i])
        for i, name in enumerate(case["requires_grad"]):
            want = case["expect_grads"][name]
            if grads[i] == ffi.NULL:  # unused input: a zero gradient
                got = Tensor.raw(want.dtype, want.shape, bytes(len(want.data)))
            else:
                got = read_tensor(grads[i])
            why = compare(got, want, case["tol"])
            if why:
                raise Failure(f"gradient of {name}: {why}")

    # ---- ABI-level procedures (README, "ABI-level cases") ----
    def abi_version(self, case) -> None:
        v = lib.nb_version()
        text = ffi.string(lib.nb_version_string()).decode()
        if text != f"{v // 10000}.{v // 100 % 100}.{v % 100}":
            raise Failure(f"nb_version_string() {text!r} disagrees with nb_version() {v}")
        major, minor = (int(x) for x in case["abi"].split("."))
        if v // 10000 != major or v // 100 % 100 < minor:
            raise Failure(f"version {text} does not serve ABI {case['abi']}")

    def abi_refcount(self, case) -> None:
        base = live_tensors()
        x = self.tensor(case["inputs"]["x"])
        self.expect_live(base + 1, "after creating x")
        self.expect_refcount(x, 1)
        lib.nb_tensor_retain(x)
        self.expect_refcount(x, 2)
        lib.nb_tensor_release(x)
        self.expect_refcount(x, 1)
        v = ffi.new("nb_tensor*[1]")
        _check(lib.nb_tensor_unsqueeze(x, 0, v), "nb_tensor_unsqueeze")
        self.expect_live(base + 2, "after a view of x")
        self.owned.remove(x)
        lib.nb_tensor_release(x)  # the view keeps the memory alive
        got = read_tensor(v[0])
        want = case["inputs"]["x"]
        if got.data != want.data:
            lib.nb_tensor_release(v[0])
            raise Failure("a view read different values once its base was released")
        lib.nb_tensor_release(v[0])
        self.expect_live(base, "after releasing x and its view")

    def abi_refcount_autograd(self, case) -> None:
        base = live_tensors()
        x = self.tensor(case["inputs"]["x"])
        _check(lib.nb_tensor_set_requires_grad(x, 1), "nb_tensor_set_requires_grad")
        y, s = ffi.new("nb_tensor*[1]"), ffi.new("nb_tensor*[1]")
        _check(lib.nb_exp(x, ffi.NULL, y), "nb_exp")
        self.owned.append(y[0])
        _check(lib.nb_sum(y[0], ffi.NULL, 0, 0, -1, ffi.NULL, s), "nb_sum")
        self.owned.append(s[0])
        _check(lib.nb_backward(ffi.new("nb_tensor*[]", [s[0]]), ffi.NULL, 1, 0, 0), "nb_backward")
        g = ffi.new("nb_tensor*[1]")
        _check(lib.nb_tensor_get_grad(x, g), "nb_tensor_get_grad")
        if g[0] == ffi.NULL:
            raise Failure("x has no gradient after backward")
        lib.nb_tensor_release(g[0])
        for h in (s[0], y[0], x):
            self.owned.remove(h)
            lib.nb_tensor_release(h)
        self.expect_live(base, "after releasing x, its graph and its gradient")

    def abi_error(self, case) -> None:
        a = self.tensor(case["inputs"]["a"])
        b = self.tensor(case["inputs"]["b"])
        out = ffi.new("nb_tensor*[1]", [ffi.cast("nb_tensor*", SENTINEL)])
        status = lib.nb_add(a, b, 1.0, ffi.NULL, out)
        want = getattr(lib, case["status"])
        if status != want or lib.nb_last_error_status() != want:
            raise Failure(f"status {status} / last {lib.nb_last_error_status()}, expected {want}")
        if int(ffi.cast("uintptr_t", out[0])) != SENTINEL:
            raise Failure("out-parameter written by a failed call")
        if not _message():
            raise Failure("empty error message")
        if ffi.string(lib.nb_status_name(status)).decode() != case["status"]:
            raise Failure(f"nb_status_name({status}) is not {case['status']}")
        lib.nb_clear_error()
        if lib.nb_last_error_status() != lib.NB_OK or _message():
            raise Failure("nb_clear_error left a status or a message")

    def abi_dlpack(self, case) -> None:
        versioned = case["variant"] if "variant" in case else "versioned" in case["id"]
        export = getattr(lib, "nb_tensor_to_dlpack_versioned" if versioned else "nb_tensor_to_dlpack", None)
        import_ = getattr(lib, "nb_tensor_from_dlpack_versioned" if versioned else "nb_tensor_from_dlpack", None)
        if export is None or import_ is None:
            raise Failure("the library has no DLPack functions")
        base = live_tensors()
        xt = case["inputs"]["x"]
        x = self.tensor(xt, lib.NB_CPU)
        m = ffi.new("void*[1]")
        _check(export(x, -1, -1, 0, m), export.__name__)
        dl = _dl_tensor(int(ffi.cast("uintptr_t", m[0])), versioned)
        if versioned and dl.version != (1, int(case["dlpack_minor"]) if "dlpack_minor" in case else dl.version[1]):
            raise Failure(f"DLPack version {dl.version}")
        data_ptr = int(ffi.cast("uintptr_t", lib.nb_tensor_data_ptr(x)))
        if dl.data != data_ptr or dl.shape != xt.shape or dl.device != (1, 0):
            raise Failure(f"exported DLTensor: data {dl.data:#x} vs {data_ptr:#x}, shape {dl.shape}, device {dl.device}")
        if dl.dtype != _DL_DTYPE[xt.dtype]:
            raise Failure(f"exported dtype {dl.dtype}, expected {_DL_DTYPE[xt.dtype]}")
        y = ffi.new("nb_tensor*[1]")
        _check(import_(m[0], y), import_.__name__)
        self.owned.append(y[0])
        if int(ffi.cast("uintptr_t", lib.nb_tensor_data_ptr(y[0]))) != data_ptr:
            raise Failure("the round trip copied the memory")
        self.owned.remove(x)
        lib.nb_tensor_release(x)
        if read_tensor(y[0]).data != xt.data:
            raise Failure("values changed in the round trip")
        self.owned.remove(y[0])
        lib.nb_tensor_release(y[0])
        self.expect_live(base, "after releasing both ends (the deleter ran)")

    def expect_live(self, n, when) -> None:
        if live_tensors() != n:
            raise Failure(f"{live_tensors()} live tensors {when}, expected {n}")

    def expect_refcount(self, h, n) -> None:
        if lib.nb_tensor_refcount(h) != n:
            raise Failure(f"refcount {lib.nb_tensor_refcount(h)}, expected {n}")


def slots_name(slots, slot):
    return next(name for name, (_, s) in slots.items() if s is slot)


# ---- DLPack structs, read with ctypes (include/nabla/dlpack.h, the DLPack spec) ----
_DL_DTYPE = {"f32": (2, 32, 1), "f64": (2, 64, 1), "f16": (2, 16, 1), "bf16": (4, 16, 1), "i8": (0, 8, 1),
             "i16": (0, 16, 1), "i32": (0, 32, 1), "i64": (0, 64, 1), "u8": (1, 8, 1), "bool": (6, 8, 1)}


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32),
                ("ndim", ctypes.c_int32), ("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class _Versioned(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p), ("flags", ctypes.c_uint64), ("dl_tensor", _DLTensor)]


class _Legacy(ctypes.Structure):
    _fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]


class _DLView:
    def __init__(self, t: _DLTensor, version):
        self.data = (t.data or 0) + t.byte_offset
        self.shape = [t.shape[i] for i in range(t.ndim)]
        self.device = (t.device_type, t.device_id)
        self.dtype = (t.code, t.bits, t.lanes)
        self.version = version


def _dl_tensor(address: int, versioned: bool) -> _DLView:
    if versioned:
        m = _Versioned.from_address(address)
        return _DLView(m.dl_tensor, (m.major, m.minor))
    return _DLView(_Legacy.from_address(address).dl_tensor, None)
