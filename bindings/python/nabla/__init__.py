"""nabla: a tensor runtime in C and CUDA behind one stable C ABI.

The Python frontend follows PyTorch's names and semantics, so
`import nabla as torch` runs PyTorch code wherever nabla has the feature.
"""
from __future__ import annotations

import operator as _operator

from ._lib import OutOfMemoryError, ffi as _ffi, lib as _lib
from . import _warnings  # noqa: F401 - routes the library's warnings to Python's warnings module
from ._dtype import (dtype, float32, float64, float16, bfloat16, int8, int16, int32, int64, uint8,
                     get_default_dtype, set_default_dtype, promote_types, can_cast)
from ._dtype import bool_ as bool  # noqa: A001 - PyTorch's name
from ._device import device, get_default_device, set_default_device
from ._size import Size
from ._tensor import Tensor
from . import _tensor_methods  # noqa: F401 - binds every Tensor method defined outside the class body
from ._factory import (tensor, as_tensor, empty, zeros, ones, full, arange, linspace, eye,
                       empty_like, zeros_like, ones_like, full_like)
from ._functional import (reshape, permute, transpose, swapaxes, swapdims, squeeze, unsqueeze, flatten, unflatten,
                          narrow, select, as_strided, clone, numel, is_tensor, is_floating_point, result_type)
from ._binary import *  # noqa: F401,F403 - add, sub, mul, div, eq, ... and the operators
from ._unary import *  # noqa: F401,F403 - exp, log, sqrt, clamp, where, ... and -t, abs(t), ~t
from ._random import *  # noqa: F401,F403 - Generator, manual_seed, rand, randn, randint, normal, ...
from ._random_counts import binomial, poisson  # noqa: F401
from ._shape import *  # noqa: F401,F403 - cat, stack, gather, sort, ... and their Tensor methods
from ._unique import *  # noqa: F401,F403 - unique, unique_consecutive
from ._reduce import *  # noqa: F401,F403 - sum, mean, max, argmax, var, norm, cumsum, softmax, ...
from ._reduce import _log_softmax_backward_data, _softmax_backward_data  # noqa: F401 - torch's private names
from ._linalg import *  # noqa: F401,F403 - matmul, mm, bmm, addmm, linear, ... and @
from . import amp, autograd, cuda, linalg, memory, nn, optim, profiler, utils
from . import cpu  # noqa: E402 - nabla.cpu.amp
from .amp.autocast_mode import (autocast, is_autocast_enabled, set_autocast_enabled, get_autocast_dtype,  # noqa: F401
                                set_autocast_dtype, is_autocast_cache_enabled, set_autocast_cache_enabled,
                                clear_autocast_cache, autocast_increment_nesting, autocast_decrement_nesting,
                                is_autocast_available)
cuda.amp = amp.cuda_amp
from .linalg import det, inverse, logdet, slogdet  # noqa: F401 - PyTorch's top-level names
from .autograd.grad_mode import (no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled,
                                 is_inference_mode_enabled)
from ._checkpoint import save, load
from ._composite import *  # noqa: F401,F403 - einsum, diag, diagonal, repeat_interleave, diff, lerp, allclose, ...
from ._composite import arctanh, arcsinh, arccosh  # noqa: F401
from ._special import *  # noqa: F401,F403 - lgamma, digamma, erfinv, xlogy, logit, ... and their methods
from . import special  # noqa: F401
from ._scan_select import *  # noqa: F401,F403 - logcumsumexp, cummax, median, index_copy, take, slice_scatter, ...
from ._math_extra import *  # noqa: F401,F403 - gcd, ldexp, frexp, cross, cdist, tensordot, addmv, cov, trapezoid, ...
from ._build_extra import *  # noqa: F401,F403 - block_diag, vander, windows, histc, searchsorted, hsplit, asarray, ...
from ._histogram import *  # noqa: F401,F403 - histogram, histogramdd
from ._gradient import *  # noqa: F401,F403 - gradient
from ._layout import *  # noqa: F401,F403 - layout, strided, memory_format and the formats
from ._tensor_extra import *  # noqa: F401,F403 - empty_strided; Tensor.exponential_, fill_diagonal_, new, apply_, ...
from ._torch_linalg_legacy import *  # noqa: F401,F403 - lu, lu_unpack, lu_solve, triangular_solve, geqrf, ormqr
from ._lowrank import svd_lowrank, pca_lowrank  # noqa: F401
from ._lobpcg import lobpcg  # noqa: F401
from ._tensor_compat import *  # noqa: F401,F403 - is_inference, as_strided_scatter, norm_except_dim, convolution, ...
from ._torch_spellings import *  # noqa: F401,F403 - the *_copy forms, t, inner, cholesky_solve, qr, svd, pinverse, ...
from ._finfo import finfo, iinfo
from ._precision import set_float32_matmul_precision, get_float32_matmul_precision
from ._legacy import CPU_TYPES as _LEGACY_TYPES, set_default_tensor_type
from . import accelerator, backends, distributions, futures, jit, multiprocessing, onnx, testing  # noqa: E402
from ._lib import AcceleratorError, DeviceUnavailableError, FatalError  # noqa: F401
from ._streams import Event, Stream  # noqa: F401 - torch.Stream / torch.Event
from .amp import GradScaler  # noqa: F401 - torch.GradScaler is torch.amp.GradScaler
from .futures import Future  # noqa: F401
from ._dlpack import from_dlpack, from_numpy

def set_num_threads(n: int) -> None:
    """Sets the number of CPU threads used by nabla's kernels and GEMM."""
    status = _lib.nb_set_num_threads(_operator.index(n))  # `int` is nabla.int here
    if status:
        from ._lib import error
        raise error(status)


def get_num_threads() -> int:
    """The number of CPU threads used by nabla's kernels."""
    return _lib.nb_get_num_threads()

from . import cuda, memory

float = float32  # noqa: A001
double = float64
half = float16
short = int16
int = int32  # noqa: A001
long = int64

globals().update(_LEGACY_TYPES)  # LongTensor, FloatTensor, ... (legacy constructors)

from . import _aliases  # noqa: E402
_aliases.install(globals())  # torch.conv2d, torch.exp_, broadcast_to, hstack, nansum, ... (never over a name nabla has)

import math as _math

pi, e, inf, nan = _math.pi, _math.e, _math.inf, _math.nan


def compile(model=None, *, fullgraph: bool = False, dynamic=None, backend="inductor", mode=None, options=None,
            disable: bool = False):
    """model itself: nabla runs eagerly and has no graph compiler. Works as torch.compile(model) and as the
    decorator @torch.compile / @torch.compile(mode=...)."""
    if model is None:
        return lambda fn: fn
    return model

__version__ = _ffi.string(_lib.nb_version_string()).decode()
