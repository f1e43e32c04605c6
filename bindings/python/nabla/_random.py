"""Random numbers with PyTorch's names and signatures: generators (nabla.Generator,
manual_seed, seed, initial_seed, get_rng_state, ...), random factories (rand, randn,
randint, randperm and their _like forms), in-place fills (Tensor.uniform_, normal_,
random_, bernoulli_), bernoulli, multinomial and normal.

A generator is a seed plus an offset into a Philox-4x32-10 stream (src/ops/philox.h):
the numbers depend only on the seed and on the sequence of calls, never on the
thread count, and the same seed gives the same numbers on every device. They are
not the numbers PyTorch draws for that seed (PyTorch's CPU generator is mt19937).
"""
from __future__ import annotations

import numbers
import os

import numpy as np

from . import _dtype, _device
from ._factory import _finish, empty
from ._lib import error, ffi, lib
from ._size import size_args
from ._tensor import Tensor, _call, _new_object, _out

_NULL = ffi.NULL
_U64_MAX = (1 << 64) - 1
_I64_MIN, _I64_MAX = -(1 << 63), (1 << 63) - 1
_DEFAULT_SEED = 67280421310721  # PyTorch's default seed, also the C default generator's
_FLOAT_CODES = (lib.NB_F32, lib.NB_F64, lib.NB_F16, lib.NB_BF16)
_CPU = (lib.NB_CPU, 0)
# random_() without `to`: the largest integer the dtype holds exactly (PyTorch's bounds)
_RANDOM_MAX = {lib.NB_F32: 1 << 24, lib.NB_F64: 1 << 53, lib.NB_F16: 1 << 11, lib.NB_BF16: 1 << 8,
               lib.NB_I8: 127, lib.NB_I16: (1 << 15) - 1, lib.NB_I32: (1 << 31) - 1, lib.NB_I64: _I64_MAX,
               lib.NB_U8: 255, lib.NB_BOOL: 1}


def _check_status(status: int) -> None:
    if status:
        raise error(status)


def _seed_value(seed) -> int:
    """PyTorch's seed rule: an integer in [-2**63, 2**64 - 1], negatives taken modulo 2**64."""
    if isinstance(seed, Tensor):
        seed = seed.item()
    if not isinstance(seed, numbers.Real):
        raise TypeError(f"manual_seed(): seed must be an int, not {type(seed).__name__}")
    seed = int(seed)
    if not _I64_MIN <= seed <= _U64_MAX:
        raise ValueError(f"Overflow when unpacking long long: seed {seed} is outside [-2**63, 2**64 - 1]")
    return seed & _U64_MAX


class Generator:
    """A random number generator: a seed and a position in its Philox stream.

    Generator(device='cpu'). The same class serves every device (the numbers are
    computed the same way everywhere); `device` is recorded for PyTorch code that reads it.
    """

    __slots__ = ("_g", "_owned", "device", "__weakref__")

    def __init__(self, device="cpu") -> None:
        self._owned = False
        self.device = _device.device(device)
        out = ffi.new("nb_generator*[1]")
        _check_status(lib.nb_generator_create(_DEFAULT_SEED, out))
        self._g = out[0]
        self._owned = True

    @classmethod
    def _default(cls) -> "Generator":
        g = object.__new__(cls)
        g._g, g._owned, g.device = lib.nb_default_generator(), False, _device.CPU
        return g

    def __del__(self, _release=lib.nb_generator_release) -> None:
        if getattr(self, "_owned", False):
            _release(self._g)

    def manual_seed(self, seed) -> "Generator":
        """Sets the seed and rewinds the stream; returns self."""
        _check_status(lib.nb_generator_manual_seed(self._g, _seed_value(seed)))
        return self

    def seed(self) -> int:
        """Seeds from the operating system's entropy; returns the new seed."""
        s = int.from_bytes(os.urandom(8), "little") & _I64_MAX
        self.manual_seed(s)
        return s

    def initial_seed(self) -> int:
        """The seed this generator was last seeded with."""
        out = ffi.new("uint64_t[1]")
        _check_status(lib.nb_generator_seed(self._g, out))
        return int(out[0])

    def get_state(self) -> Tensor:
        """The state as a uint8 tensor of 16 bytes: seed and offset, little-endian uint64 each."""
        seed, offset = ffi.new("uint64_t[1]"), ffi.new("uint64_t[1]")
        _check_status(lib.nb_generator_get_state(self._g, seed, offset))
        raw = np.array([seed[0], offset[0]], dtype="<u8").view(np.uint8)
        return _call(lib.nbpy_tensor_from_host, ffi.from_buffer(raw), (16,), 1, lib.NB_U8, *_CPU)

    def set_state(self, new_state) -> "Generator":
        """Restores a state from get_state (the stream then replays the same numbers); returns self."""
        if not isinstance(new_state, Tensor):
            raise TypeError(f"expected a nabla.ByteTensor (uint8 tensor), but got {type(new_state).__name__}")
        if new_state.dtype is not _dtype.uint8:
            raise TypeError(f"RNG state must be a nabla.ByteTensor (uint8), got dtype {new_state.dtype}")
        if new_state.numel() != 16:
            raise RuntimeError("Expected an RNG state of 16 bytes (seed and offset) but found the input RNG state "
                               f"size to be {new_state.numel()}")
        seed, offset = (int(v) for v in new_state.numpy(force=True).reshape(16).view("<u8"))
        _check_status(lib.nb_generator_set_state(self._g, seed, offset))
        return self

    def __repr__(self) -> str:
        return f"<nabla.Generator device={self.device} initial_seed={self.initial_seed()}>"


default_generator = Generator._default()


def manual_seed(seed) -> Generator:
    """Seeds the default generator; returns it."""
    return default_generator.manual_seed(seed)


def seed() -> int:
    """Seeds the default generator non-deterministically; returns the seed."""
    return default_generator.seed()


def initial_seed() -> int:
    """The default generator's seed."""
    return default_generator.initial_seed()


def get_rng_state() -> Tensor:
    """The default generator's state (a uint8 tensor)."""
    return default_generator.get_state()


def set_rng_state(new_state: Tensor) -> None:
    """Restores the default generator's state."""
    default_generator.set_state(new_state)


# ---- argument helpers ----

def _gen(generator, fname: str):
    if generator is None:
        return _NULL
    if isinstance(generator, Generator):
        return generator._g
    raise TypeError(f"{fname}(): argument 'generator' must be nabla.Generator, not {type(generator).__name__}")


def _need_float(code: int, fname: str) -> None:
    if code not in _FLOAT_CODES:
        raise NotImplementedError(f'"{fname}" not implemented for \'{_dtype.BY_CODE[code].name}\' '
                                  "(it needs a floating point dtype)")


def _dtype_code(dtype, default: int) -> int:
    return default if dtype is None else _dtype.check(dtype).code


def _int64(value, name: str, fname: str) -> int:
    if isinstance(value, Tensor):
        value = value.item()
    if isinstance(value, numbers.Integral):
        value = int(value)
    elif isinstance(value, numbers.Real):
        value = int(value)
    else:
        raise TypeError(f"{fname}(): argument '{name}' must be int, not {type(value).__name__}")
    if not _I64_MIN <= value <= _I64_MAX:
        raise RuntimeError(f"{fname}(): {name}={value} does not fit in int64")
    return value


def _size(args: tuple, size, fname: str) -> tuple:
    if size is not None:
        if args:
            raise TypeError(f"{fname}() got multiple values for argument 'size'")
        args = (size,)
    if not args:
        raise TypeError(f"{fname}() missing 1 required positional argument: 'size'")
    if len(args) == 1 and args[0].__class__ is tuple and all(s.__class__ is int for s in args[0]):
        return args[0]
    return size_args(args, fname)


def _create(fname: str, twin, raw, lead: tuple, shape: tuple, code: int, generator, out, device,
            requires_grad: bool):
    """A random creation op: twin(*lead, shape, ndim, dtype, device, gen, NULL), or raw(..., out) for out=."""
    g = _gen(generator, fname)
    if out is not None:
        h = _out(out, fname)
        dt, di = ((lib.nb_tensor_device_type(h), lib.nb_tensor_device_index(h)) if device is None
                  else _device.resolve(device))
        _check_status(raw(*lead, shape, len(shape), code, dt, di, g, h, _NULL))
        return out
    dt, di = _device.resolve(device)
    return _finish(_call(twin, *lead, shape, len(shape), code, dt, di, g, _NULL), requires_grad)


def _float_code(dtype, out, fname: str) -> int:
    if dtype is None:
        code = out.dtype.code if isinstance(out, Tensor) else _dtype.get_default_dtype().code
    else:
        code = _dtype.check(dtype).code
    _need_float(code, fname)
    return code


# ---- factories ----

def _float_factory(fname: str, twin, raw, doc: str):
    """rand / randn: f(*size, size=None, generator=None, out=None, dtype=None, device=None, ...).
    The common call (int sizes, default dtype and generator, CPU) goes straight to the C twin."""
    default = _dtype._default
    default_device = _device._default
    cpu = lib.NB_CPU

    def factory(*args, size=None, generator=None, out=None, dtype=None, layout=None, device=None,
                requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
        if (size is None and generator is None and out is None and dtype is None and device is None and args
                and default_device.device is None):
            for a in args:
                if a.__class__ is not int:
                    break
            else:
                h = twin(args, len(args), default[0].code, cpu, 0, _NULL, _NULL)
                if h:
                    t = _new_object(Tensor)
                    t._h, t._shape = h, None
                    return _finish(t, requires_grad) if requires_grad else t
                raise error(lib.nb_last_error_status())
        shape = _size(args, size, fname)
        return _create(fname, twin, raw, (), shape, _float_code(dtype, out, fname), generator, out, device,
                       requires_grad)

    factory.__name__ = factory.__qualname__ = fname
    factory.__doc__ = doc
    return factory


rand = _float_factory("rand", lib.nbpy_rand, lib.nb_rand,
                      "rand(*size, generator=None, out=None, dtype=None, device=None) -> Tensor: uniform on [0, 1).")
randn = _float_factory("randn", lib.nbpy_randn, lib.nb_randn,
                       "randn(*size, generator=None, out=None, dtype=None, device=None) -> Tensor: standard normal.")


def randint(*args, size=None, low=None, high=None, generator=None, out=None, dtype=None, layout=None, device=None,
            requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """Integers uniform on [low, high): randint(high, size) or randint(low, high, size); int64 by default."""
    if (size is None and low is None and high is None and generator is None and out is None and dtype is None
            and device is None and _device._default.device is None and not requires_grad
            and (len(args) == 2 or len(args) == 3)):
        shape, lo, hi = args[-1], (0 if len(args) == 2 else args[0]), args[-2]
        if (shape.__class__ is tuple and lo.__class__ is int and hi.__class__ is int
                and _I64_MIN <= lo <= _I64_MAX and _I64_MIN <= hi <= _I64_MAX):
            for s in shape:
                if s.__class__ is not int:
                    break
            else:
                return _call(lib.nbpy_randint, lo, hi, shape, len(shape), lib.NB_I64, lib.NB_CPU, 0, _NULL, _NULL)
    pos = list(args)
    if size is None:
        if not pos:
            raise TypeError("randint() missing required argument 'size' (a tuple of ints)")
        size = pos.pop()
    if len(pos) > 2:
        raise TypeError(f"randint() takes at most 3 positional arguments ({len(args)} given)")
    if len(pos) == 2:
        if low is not None or high is not None:
            raise TypeError("randint() got multiple values for 'low' or 'high'")
        low, high = pos
    elif len(pos) == 1:
        if high is None:
            high = pos[0]
        elif low is None:
            low = pos[0]
        else:
            raise TypeError("randint() got multiple values for 'low' or 'high'")
    if high is None:
        raise TypeError("randint() missing required argument 'high'")
    if isinstance(size, numbers.Integral) or not hasattr(size, "__iter__"):
        raise TypeError(f"randint(): argument 'size' must be tuple of ints, not {type(size).__name__}")
    shape = size_args((size,), "randint")
    lo, hi = _int64(0 if low is None else low, "low", "randint"), _int64(high, "high", "randint")
    if dtype is None:
        code = out.dtype.code if isinstance(out, Tensor) else lib.NB_I64
    else:
        code = _dtype.check(dtype).code
    return _create("randint", lib.nbpy_randint, lib.nb_randint, (lo, hi), shape, code, generator, out, device,
                   requires_grad)


def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad: bool = False,
             pin_memory: bool = False) -> Tensor:
    """A random permutation of 0 .. n-1 (int64 by default)."""
    n = _int64(n, "n", "randperm")
    g = _gen(generator, "randperm")
    if dtype is None:
        code = out.dtype.code if isinstance(out, Tensor) else lib.NB_I64
    else:
        code = _dtype.check(dtype).code
    if out is not None:
        h = _out(out, "randperm")
        dt, di = ((lib.nb_tensor_device_type(h), lib.nb_tensor_device_index(h)) if device is None
                  else _device.resolve(device))
        _check_status(lib.nb_randperm(n, code, dt, di, g, h, _NULL))
        return out
    dt, di = _device.resolve(device)
    return _finish(_call(lib.nbpy_randperm, n, code, dt, di, g, _NULL), requires_grad)


def _like_args(input, fname: str, dtype, device):
    if not isinstance(input, Tensor):
        raise TypeError(f"{fname}(): argument 'input' must be Tensor, not {type(input).__name__}")
    return input.shape, input.dtype if dtype is None else dtype, input.device if device is None else device


def rand_like(input: Tensor, *, generator=None, dtype=None, layout=None, device=None, requires_grad: bool = False,
              memory_format=None) -> Tensor:
    """rand with input's shape, dtype and device."""
    shape, dt, dev = _like_args(input, "rand_like", dtype, device)
    return rand(shape, generator=generator, dtype=dt, device=dev, requires_grad=requires_grad)


def randn_like(input: Tensor, *, generator=None, dtype=None, layout=None, device=None, requires_grad: bool = False,
               memory_format=None) -> Tensor:
    """randn with input's shape, dtype and device."""
    shape, dt, dev = _like_args(input, "randn_like", dtype, device)
    return randn(shape, generator=generator, dtype=dt, device=dev, requires_grad=requires_grad)


def randint_like(input: Tensor, low=0, high=None, *, generator=None, dtype=None, layout=None, device=None,
                 requires_grad: bool = False, memory_format=None) -> Tensor:
    """randint with input's shape, dtype and device: randint_like(x, high) or randint_like(x, low, high)."""
    if high is None:
        low, high = 0, low
    shape, dt, dev = _like_args(input, "randint_like", dtype, device)
    return randint(low, high, tuple(shape), generator=generator, dtype=dt, device=dev, requires_grad=requires_grad)


# ---- in-place fills ----

def _self_check(self, fname: str) -> None:
    if not isinstance(self, Tensor):
        raise TypeError(f"{fname}(): expected a Tensor, got {type(self).__name__}")


def _uniform_(self: Tensor, *args, generator=None, **kwargs) -> Tensor:
    """Fills self with values uniform on [from, to): uniform_(from=0, to=1)."""
    a, b = _two_args(args, kwargs, ("from", "to"), (0.0, 1.0), "uniform_")
    _need_float(lib.nb_tensor_dtype(self._h), "uniform_")
    _check_status(lib.nb_uniform_(self._h, float(a), float(b), _gen(generator, "uniform_")))
    return self


def _normal_(self: Tensor, mean=0.0, std=1.0, *, generator=None) -> Tensor:
    """Fills self with normal values of the given mean and std."""
    _need_float(lib.nb_tensor_dtype(self._h), "normal_")
    _check_status(lib.nb_normal_(self._h, float(mean), float(std), _gen(generator, "normal_")))
    return self


def _two_args(args: tuple, kwargs: dict, names: tuple, defaults: tuple, fname: str) -> list:
    """(from, to)-style arguments given by position or by name ('from' is a keyword in Python)."""
    if len(args) > 2:
        raise TypeError(f"{fname}() takes at most 2 arguments ({len(args)} given)")
    values = list(args) + list(defaults[len(args):])
    for i, name in enumerate(names):
        if name in kwargs:
            if i < len(args):
                raise TypeError(f"{fname}() got multiple values for argument '{name}'")
            values[i] = kwargs.pop(name)
    if kwargs:
        raise TypeError(f"{fname}() got an unexpected keyword argument '{next(iter(kwargs))}'")
    return values


def _random_(self: Tensor, *args, generator=None, **kwargs) -> Tensor:
    """random_() / random_(to) / random_(from, to): integers on [from, to - 1]; without `to`,
    up to the largest integer the dtype holds exactly (2**24 for float32, the maximum for ints)."""
    if len(args) == 1 and "to" not in kwargs and "from" not in kwargs:
        args = (0, args[0])
    low, to = _two_args(args, kwargs, ("from", "to"), (0, None), "random_")
    low = _int64(low, "from", "random_")
    code = lib.nb_tensor_dtype(self._h)
    if to is None:
        high = _RANDOM_MAX[code]
    else:
        to = _int64(to, "to", "random_")
        if low >= to:
            raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={to}")
        high = to - 1
    _check_status(lib.nb_random_(self._h, low, high, _gen(generator, "random_")))
    return self


def _bernoulli_(self: Tensor, p=0.5, *, generator=None) -> Tensor:
    """Fills self with 1 with probability p (a number, or a tensor broadcast to self), else 0."""
    g = _gen(generator, "bernoulli_")
    if isinstance(p, Tensor):
        _need_float(lib.nb_tensor_dtype(p._h), "bernoulli_")
        _check_status(lib.nb_bernoulli(p._h, g, self._h, _NULL))
        return self
    shape = self.shape
    h = self._h
    _check_status(lib.nb_bernoulli_scalar(_prob(p, "bernoulli_"), shape, len(shape), lib.nb_tensor_dtype(h),
                                   lib.nb_tensor_device_type(h), lib.nb_tensor_device_index(h), g, h, _NULL))
    return self


def _prob(p, fname: str) -> float:
    if not isinstance(p, numbers.Real):
        raise TypeError(f"{fname}(): argument 'p' must be a float or a Tensor, not {type(p).__name__}")
    p = float(p)
    if not 0.0 <= p <= 1.0:
        raise RuntimeError(f"{fname} expects p to be in [0, 1], but got p={p}")
    return p


def bernoulli(input: Tensor, p=None, *, generator=None, out=None) -> Tensor:
    """1 with probability input[i] (or p, when given, in input's shape and dtype), else 0."""
    _self_check(input, "bernoulli")
    g = _gen(generator, "bernoulli")
    dst = _NULL
    if out is not None:  # PyTorch's random ops resize out= without a warning
        dst = _out(out, "bernoulli")
        out.resize_(input.shape)
    if p is None:
        _need_float(lib.nb_tensor_dtype(input._h), "bernoulli")
        if out is None:
            return _call(lib.nbpy_bernoulli, input._h, g, _NULL)
        _check_status(lib.nb_bernoulli(input._h, g, dst, _NULL))
        return out
    if isinstance(p, Tensor):  # bernoulli(input, p_tensor): p in input's shape
        target = empty(input.shape, dtype=input.dtype, device=input.device) if out is None else out
        return _bernoulli_(target, p, generator=generator)
    shape, h = input.shape, input._h
    dt, di = lib.nb_tensor_device_type(h), lib.nb_tensor_device_index(h)
    code = lib.nb_tensor_dtype(h) if out is None else lib.nb_tensor_dtype(dst)
    args = (_prob(p, "bernoulli"), shape, len(shape), code, dt, di, g)
    if out is None:
        return _call(lib.nbpy_bernoulli_scalar, *args, _NULL)
    _check_status(lib.nb_bernoulli_scalar(*args, dst, _NULL))
    return out


def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *, generator=None, out=None) -> Tensor:
    """int64 indices sampled from the rows of input (1-D or 2-D non-negative weights)."""
    _self_check(input, "multinomial")
    n = _int64(num_samples, "num_samples", "multinomial")
    g = _gen(generator, "multinomial")
    if out is None:
        return _call(lib.nbpy_multinomial, input._h, n, 1 if replacement else 0, g, _NULL)
    _check_status(lib.nb_multinomial(input._h, n, 1 if replacement else 0, g, _out(out, "multinomial"), _NULL))
    return out


def normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None, device=None,
           requires_grad: bool = False) -> Tensor:
    """normal(mean_tensor, std_tensor), normal(mean_tensor, std=1.0), normal(mean, std_tensor), or
    normal(mean, std, size): values mean + std * N(0, 1), broadcast over the tensor arguments."""
    mt, st = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not mt and not st:
        if size is None:
            raise TypeError("normal(): with a float mean and std, 'size' is required")
        shape = size_args((size,), "normal")
        if out is not None:
            target = out.resize_(shape)  # without a warning, as PyTorch's random ops
        else:
            code = _float_code(dtype, None, "normal")
            target = empty(shape, dtype=_dtype.BY_CODE[code], device=device)
        _normal_(target, mean, std, generator=generator)
        return _finish(target, requires_grad)
    if size is not None:
        raise TypeError("normal(): 'size' is only taken with a float mean and std")
    dtypes = [t.dtype for t in (mean, std) if isinstance(t, Tensor)]
    for d in dtypes:
        _need_float(d.code, "normal")
    result_dtype = dtypes[0] if len(dtypes) == 1 else _dtype.BY_CODE[lib.nb_promote_dtypes(dtypes[0].code,
                                                                                              dtypes[1].code)]
    if st:
        if bool((std < 0).numpy(force=True).any()):
            raise RuntimeError("normal expects all elements of std >= 0.0")
    elif not float(std) >= 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    ref = mean if mt else std
    shape = np.broadcast_shapes(tuple(mean.shape), tuple(std.shape)) if mt and st else tuple(ref.shape)
    z = randn(shape, generator=generator, dtype=result_dtype, device=ref.device)
    # numbers as 0-dim tensors of the result dtype (they yield to z in promotion, as scalars do)
    std = std if st else _scalar_tensor(float(std), result_dtype)
    mean = mean if mt else _scalar_tensor(float(mean), result_dtype)
    result = z * std + mean
    return result if out is None else out.copy_(result)


def _scalar_tensor(value: float, dtype: _dtype.dtype) -> Tensor:
    return _call(lib.nbpy_full, (), 0, value, dtype.code, *_CPU)


def _bernoulli_method(self: Tensor, p=None, *, generator=None) -> Tensor:
    return bernoulli(self, p, generator=generator)


def _multinomial_method(self: Tensor, num_samples: int, replacement: bool = False, *, generator=None) -> Tensor:
    return multinomial(self, num_samples, replacement, generator=generator)


for _name, _fn in (("uniform_", _uniform_), ("normal_", _normal_), ("random_", _random_),
                   ("bernoulli_", _bernoulli_), ("bernoulli", _bernoulli_method),
                   ("multinomial", _multinomial_method)):
    _fn.__name__ = _fn.__qualname__ = _name


def dropout(input: Tensor, p: float, train: bool, *, generator=None) -> Tensor:
    """nabla.dropout(input, p, train) (torch.dropout): zeroes elements with probability p and
    scales the rest by 1 / (1 - p) when train is true; p = 1 gives zeros. See nn.functional.dropout."""
    _self_check(input, "dropout")
    if not isinstance(p, numbers.Real) or not 0.0 <= float(p) <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not train:
        return input
    return _call(lib.nbpy_dropout, input._h, float(p), 1, _gen(generator, "dropout"), _NULL)


def dropout_(input: Tensor, p: float, train: bool, *, generator=None) -> Tensor:
    """dropout in place (the input is overwritten and returned)."""
    _self_check(input, "dropout_")
    if not isinstance(p, numbers.Real) or not 0.0 <= float(p) <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if train:
        _check_status(lib.nb_dropout(input._h, float(p), 1, _gen(generator, "dropout_"), input._h, _NULL))
    return input


__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed", "get_rng_state",
           "set_rng_state", "rand", "randn", "randint", "randperm", "rand_like", "randn_like", "randint_like",
           "bernoulli", "multinomial", "normal", "dropout", "dropout_", "thread_safe_generator"]


def thread_safe_generator():
    """The generator random transforms should draw from: None (the default generator) in the main
    process and in DataLoader workers, which are processes in nabla (PyTorch returns a thread-local
    generator only in its thread workers)."""
    return None


def functional_dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """nn.functional.dropout: zeroes each element with probability p and scales the others by
    1 / (1 - p), so the expectation is unchanged (p = 1 gives zeros); the input itself when not
    training. Draws from the default generator (nabla.manual_seed makes it reproducible)."""
    if not isinstance(p, numbers.Real) or not 0.0 <= float(p) <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    return dropout_(input, p, training) if inplace else dropout(input, p, training)


functional_dropout.__name__ = functional_dropout.__qualname__ = "dropout"
