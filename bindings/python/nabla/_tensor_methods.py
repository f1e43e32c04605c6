"""Every Tensor method that is not in the class body of _tensor.py, bound here under torch's names.

The code lives with the torch function it belongs to (Tensor.softmax calls _reduce.softmax); the
ops made from a table (_binary, _unary, _linalg, tril_ / triu_ in _shape) build their methods and
operators there and hand them over in TENSOR_METHODS. Nothing else sets attributes on Tensor, and
no name is bound twice (tests/test_package_layout.py checks both).
"""
from __future__ import annotations

from .autograd import engine as _engine, graph as _graph
from . import (_aliases, _binary, _build_extra, _composite, _dlpack, _dtype, _factory, _histogram, _indexing, _layout,
               _legacy, _linalg, _math_extra, _random, _reduce, _scan_select, _shape, _special, _tensor_compat,
               _tensor_extra, _torch_linalg_legacy, _torch_spellings, _unary,
               _unique, cuda, linalg)
from ._size import size_args
from ._tensor import Tensor


def _bind(methods: dict) -> None:
    for name, fn in methods.items():
        if name in Tensor.__dict__:
            raise RuntimeError(f"Tensor.{name} is bound twice")
        setattr(Tensor, name, fn)


def _functions(module, names: str) -> dict:
    """Functions whose first parameter is the tensor, bound as they are: Tensor.<name> is module.<name>."""
    return {name: getattr(module, name) for name in names.split()}


def _method(fn, name: str):
    """Tensor.<name>(*args) = fn(self, *args), named and documented as fn."""
    def method(self, *args, **kwargs):
        return fn(self, *args, **kwargs)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = fn.__doc__
    return method


def _inplace(fn, name: str):
    """Tensor.<name>_: self.copy_(fn(self, ...)) (autograd records the copy)."""
    def method(self, *args, **kwargs):
        return self.copy_(fn(self, *args, **kwargs))
    method.__name__ = name + "_"
    return method


def _conversion(name: str, dtype: _dtype.dtype):
    def convert(self: Tensor) -> Tensor:
        return self.to(dtype)
    convert.__name__ = convert.__qualname__ = name
    convert.__doc__ = f"self.to({dtype!r})"
    return convert


def _scan_inplace(name: str, fn):
    def method_(self, dim, *, dtype=None):
        fn(self, dim, dtype=self.dtype if dtype is None else dtype, out=self)
        return self
    method_.__name__ = method_.__qualname__ = name + "_"
    return method_


# ---- construction, conversions, indexing, interop (torch.Tensor's own) ----

_bind({"__new__": staticmethod(_factory.tensor_new), "copy_": _factory.tensor_copy_, "type": _legacy.tensor_type})
_bind(_functions(_factory, "new_empty new_zeros new_ones new_full new_tensor"))
_bind({"grad_fn": property(_graph.tensor_grad_fn), "backward": _engine.tensor_backward,
       "register_hook": _graph.tensor_register_hook,
       "register_post_accumulate_grad_hook": _graph.tensor_register_post_accumulate_grad_hook})

_bind({name: _conversion(name, dt) for name, dt in (
    ("float", _dtype.float32), ("double", _dtype.float64), ("half", _dtype.float16), ("bfloat16", _dtype.bfloat16),
    ("char", _dtype.int8), ("short", _dtype.int16), ("int", _dtype.int32), ("long", _dtype.int64),
    ("byte", _dtype.uint8), ("bool", _dtype.bool_))})
_bind({"__getitem__": _indexing.tensor_getitem, "__setitem__": _indexing.setitem})
_bind(_functions(_dlpack, "__dlpack__ __dlpack_device__ numpy __array__ share_memory_ is_shared"))
_bind({"pin_memory": cuda._pin_memory, "is_pinned": cuda._is_pinned, "record_stream": cuda._record_stream})

# ---- pointwise: add, sub, ..., exp, log, ... with their in-place forms and operators ----

_bind(_binary.TENSOR_METHODS)
_bind(_unary.TENSOR_METHODS)
_bind({
    "round": lambda self, decimals=0: _unary.round(self, decimals=decimals),
    "__pos__": lambda self: self,
    "nan_to_num": lambda self, nan=0.0, posinf=None, neginf=None: _unary.nan_to_num(self, nan, posinf, neginf),
    "nan_to_num_": lambda self, nan=0.0, posinf=None, neginf=None: _unary.nan_to_num(self, nan, posinf, neginf,
                                                                                      out=self),
    "where": lambda self, condition, other: _unary.where(condition, self, other),
})
_clamp = lambda self, min=None, max=None: _unary.clamp(self, min, max)  # noqa: E731
_clamp_ = lambda self, min=None, max=None: _unary.clamp(self, min, max, out=self)  # noqa: E731
_bind({"clamp": _clamp, "clip": _clamp, "clamp_": _clamp_, "clip_": _clamp_})

# ---- reductions and scans (_reduce, _scan_select) ----

_bind({name: _method(getattr(_reduce, name), name) for name in (
    "sum mean prod amax amin max min argmax argmin var std norm logsumexp all any cumsum cumprod softmax "
    "log_softmax").split()})
_bind({"cumsum_": _scan_inplace("cumsum", _reduce.cumsum), "cumprod_": _scan_inplace("cumprod", _reduce.cumprod)})
_bind(_functions(_scan_select, "logcumsumexp cummax cummin kthvalue median nanmedian mode aminmax index_copy index_fill "
                               "index_reduce masked_scatter take put select_scatter slice_scatter diagonal_scatter"))
_bind({fn.__name__ + "_": _inplace(fn, fn.__name__) for fn in (
    _scan_select.index_copy, _scan_select.index_fill, _scan_select.index_reduce, _scan_select.masked_scatter,
    _scan_select.put)})

# ---- shape, indexing and sorting ops (_shape) ----

_movedim = lambda self, source, destination: _shape.movedim(self, source, destination)  # noqa: E731
_bind(_shape.TENSOR_METHODS)
_bind({
    "tril": lambda self, diagonal=0: _shape.tril(self, diagonal),
    "triu": lambda self, diagonal=0: _shape.triu(self, diagonal),
    "split": lambda self, split_size, dim=0: _shape.split(self, split_size, dim),
    "tensor_split": lambda self, indices_or_sections, dim=0: _shape.tensor_split(self, indices_or_sections, dim),
    "chunk": lambda self, chunks, dim=0: _shape.chunk(self, chunks, dim),
    "unbind": lambda self, dim=0: _shape.unbind(self, dim),
    "flip": lambda self, *dims: _shape.flip(self, dims[0] if len(dims) == 1 and not hasattr(dims[0], "__index__")
                                            else dims),
    "fliplr": _shape.fliplr,
    "flipud": _shape.flipud,
    "roll": lambda self, shifts, dims=None: _shape.roll(self, shifts, dims),
    "repeat": _shape._repeat,
    "tile": lambda self, *dims: _shape.tile(self, size_args(dims, "tile")),
    "movedim": _movedim,
    "moveaxis": _movedim,
    "gather": lambda self, dim, index: _shape.gather(self, dim, index),
    "scatter": lambda self, dim, index, src=None, *, value=None, reduce=None: _shape._scatter(
        "scatter", self, dim, index, src, value, None, reduce),
    "scatter_": lambda self, dim, index, src=None, *, value=None, reduce=None: _shape._scatter(
        "scatter_", self, dim, index, src, value, self, reduce),
    "scatter_add": lambda self, dim, index, src: _shape._scatter_add(self, dim, index, src),
    "scatter_add_": lambda self, dim, index, src: _shape._scatter_add(self, dim, index, src, self),
    "scatter_reduce": lambda self, dim, index, src, reduce, *, include_self=True: _shape._scatter_reduce(
        "scatter_reduce", self, dim, index, src, reduce, include_self),
    "scatter_reduce_": lambda self, dim, index, src, reduce, *, include_self=True: _shape._scatter_reduce(
        "scatter_reduce_", self, dim, index, src, reduce, include_self, self),
    "index_select": lambda self, dim, index: _shape.index_select(self, dim, index),
    "index_add": lambda self, dim, index, source, *, alpha=1: _shape._index_add(self, dim, index, source, alpha),
    "index_add_": lambda self, dim, index, source, *, alpha=1: _shape._index_add(self, dim, index, source, alpha,
                                                                                  self),
    "index_put": lambda self, indices, values, accumulate=False: _shape._index_put(self, indices, values,
                                                                                    accumulate, False),
    "index_put_": lambda self, indices, values, accumulate=False: _shape._index_put(self, indices, values,
                                                                                     accumulate, True),
    "take_along_dim": lambda self, indices, dim=None: _shape.take_along_dim(self, indices, dim),
    "masked_fill": lambda self, mask, value: _shape.masked_fill(self, mask, value),
    "masked_fill_": _shape._masked_fill_,
    "masked_select": lambda self, mask: _shape.masked_select(self, mask),
    "nonzero": lambda self, *, as_tuple=False: _shape.nonzero(self, as_tuple=as_tuple),
    "argwhere": _shape.argwhere,
    "count_nonzero": lambda self, dim=None: _shape.count_nonzero(self, dim),
    "sort": lambda self, dim=-1, descending=False, stable=False: _shape.sort(self, dim, descending, stable),
    "argsort": lambda self, dim=-1, descending=False, stable=False: _shape.argsort(self, dim, descending, stable),
    "msort": _shape.msort,
    "topk": lambda self, k, dim=-1, largest=True, sorted=True: _shape.topk(self, k, dim, largest, sorted),
    "unique": lambda self, sorted=True, return_inverse=False, return_counts=False, dim=None: _unique.unique(
        self, sorted, return_inverse, return_counts, dim),
    "unique_consecutive": lambda self, return_inverse=False, return_counts=False, dim=None:
        _unique.unique_consecutive(self, return_inverse, return_counts, dim),
})

# ---- matrix products and linear algebra (_linalg, linalg, _math_extra, _torch_spellings) ----

_bind(_linalg.TENSOR_METHODS)
_bind({
    "ger": _linalg.TENSOR_METHODS["outer"],
    "__matmul__": _linalg._matmul_operator,
    "__rmatmul__": _linalg._rmatmul_operator,
    "__imatmul__": _linalg._matmul_operator,  # not in place: `a @= b` rebinds a, as with PyTorch tensors
    "det": lambda self: linalg.det(self),
    "logdet": lambda self: linalg.logdet(self),
    "slogdet": lambda self: linalg.slogdet(self),
    "inverse": lambda self: linalg.inv(self),
    "cholesky": lambda self, upper=False: linalg.cholesky(self, upper=upper),
    "matrix_exp": lambda self: linalg.matrix_exp(self),
    "orgqr": lambda self, input2: linalg.householder_product(self, input2),
})
_bind(_functions(_math_extra, "gcd lcm ldexp frexp dist renorm cross addmv addr addbmm matrix_power cov corrcoef"))
_bind({fn.__name__ + "_": _inplace(fn, fn.__name__) for fn in (
    _math_extra.gcd, _math_extra.lcm, _math_extra.ldexp, _math_extra.renorm, _math_extra.addmv, _math_extra.addr,
    _math_extra.addbmm)})
_bind(_torch_linalg_legacy.TENSOR_METHODS)
_bind(_tensor_compat.TENSOR_METHODS)
_bind(_functions(_torch_spellings, "inner cholesky_solve cholesky_inverse qr svd pinverse narrow_copy unsafe_split "
                                   "unsafe_chunk unsafe_split_with_sizes"))

# ---- composites: diagonal, lerp, special functions, the remaining small ops ----

_bind(_functions(_composite, "diagonal diag diag_embed trace repeat_interleave diff lerp isclose allclose equal "
                             "addcmul addcdiv atanh asinh acosh clamp_min clamp_max"))
_bind({
    "unfold": _composite._unfold,
    "arctanh": _composite.atanh,
    "arcsinh": _composite.asinh,
    "arccosh": _composite.acosh,
    "lerp_": lambda self, end, weight: self.copy_(_composite.lerp(self, end, weight)),
    "addcmul_": lambda self, tensor1, tensor2, *, value=1: self.copy_(
        _composite.addcmul(self, tensor1, tensor2, value=value)),
    "addcdiv_": lambda self, tensor1, tensor2, *, value=1: self.copy_(
        _composite.addcdiv(self, tensor1, tensor2, value=value)),
})
_bind(_functions(_special, "lgamma digamma erfinv logit xlogy logaddexp logaddexp2 mvlgamma sinc"))
_bind({"polygamma": lambda self, n: _special.polygamma(n, self)})
_bind({name + "_": _inplace(getattr(_special, name), name) for name in "lgamma digamma erfinv logit xlogy sinc".split()})
_bind(_functions(_histogram, "histogram"))
_bind(_functions(_build_extra, "rot90 diagflat histc bincount hsplit vsplit dsplit split_with_sizes ravel "
                               "positive i0"))
_bind({"sum_to_size": _build_extra._sum_to_size, "get_device": _build_extra._get_device})
_bind(_functions(_aliases, "broadcast_to nansum nanmean frac hypot heaviside sgn deg2rad rad2deg signbit isposinf "
                           "isneginf isreal fmax fmin copysign float_power kron is_nonzero is_same_size is_signed"))
_bind({name + "_": _inplace(Tensor.__dict__[name], name) for name in (
    "acosh asinh atanh arccosh arcsinh arctanh deg2rad rad2deg frac clamp_min clamp_max copysign hypot heaviside "
    "sgn i0").split()})

# ---- random fills and sampling (_random, _tensor_extra) ----

_bind({"uniform_": _random._uniform_, "normal_": _random._normal_, "random_": _random._random_,
       "bernoulli_": _random._bernoulli_, "bernoulli": _random._bernoulli_method,
       "multinomial": _random._multinomial_method})
_bind(_functions(_tensor_extra, "exponential_ cauchy_ geometric_ log_normal_ fill_diagonal_ new apply_ map_ map2_ "
                                "new_empty_strided mvlgamma_ polygamma_ float_power_"))
_bind({
    "layout": property(lambda self: _layout.strided, doc="torch.strided: nabla's only layout"),
    "is_meta": property(lambda self: False, doc="False: nabla has no meta device"),
    "is_nested": property(lambda self: False, doc="False: nabla has no nested tensors"),
    "const_data_ptr": lambda self: self.data_ptr(),
    "is_distributed": lambda self: False,
    "hardshrink": lambda self, lambd=0.5: _nn_functional().hardshrink(self, lambd),
    "prelu": lambda self, weight: _nn_functional().prelu(self, weight),
})


def _nn_functional():
    """nabla.nn.functional, which holds hardshrink and prelu: a layer above this one, reached at call time."""
    from .nn import functional
    return functional
