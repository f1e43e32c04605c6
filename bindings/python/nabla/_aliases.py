"""torch.* names that are other spellings of what nabla already has: the functional layers
PyTorch also exposes at top level (torch.conv2d, torch.layer_norm, ...), the in-place
functions torch.exp_(t) = t.exp_(), and small compositions (broadcast_to, atleast_Nd,
h/v/dstack, nansum, nanmean, frac, hypot, heaviside, sgn, deg2rad, logspace, kron, ...)."""
from __future__ import annotations

import math

from ._tensor import Tensor

_FUNCTIONAL = ("conv1d", "conv2d", "conv3d", "conv_transpose3d", "max_pool3d",
               "conv_transpose2d", "layer_norm", "group_norm", "batch_norm", "instance_norm",
               "embedding", "max_pool1d", "max_pool2d", "avg_pool1d", "adaptive_avg_pool1d", "adaptive_max_pool1d",
               "celu", "selu", "cosine_similarity", "pairwise_distance", "binary_cross_entropy_with_logits",
               "kl_div", "pixel_shuffle", "pixel_unshuffle", "prelu", "hardshrink", "rrelu", "threshold",
               "alpha_dropout", "feature_dropout", "dropout", "feature_alpha_dropout", "bilinear", "channel_shuffle",
               "native_channel_shuffle", "conv_transpose1d", "pdist", "rms_norm", "rrelu_",
               "threshold_", "celu_", "selu_")
_INPLACE = ("abs_", "acos_", "arccos_", "asin_", "arcsin_", "atan_", "arctan_", "ceil_", "clamp_", "clip_", "cos_",
            "cosh_", "erf_", "erfc_", "exp_", "exp2_", "expm1_", "fix_", "floor_", "log_", "log10_", "log1p_",
            "log2_", "neg_", "negative_", "reciprocal_", "relu_", "round_", "rsqrt_", "sigmoid_", "sin_", "sinh_",
            "sqrt_", "square_", "tan_", "tanh_", "trunc_", "fill_", "zero_", "detach_", "logit_", "nan_to_num_",
            "index_put_", "selu_", "celu_", "clamp_min_", "clamp_max_", "acosh_", "arccosh_", "asinh_", "arcsinh_",
            "atanh_", "arctanh_", "deg2rad_", "rad2deg_", "frac_", "gcd_", "lcm_", "ldexp_", "sinc_", "xlogy_", "i0_", "addmv_",
            "resize_as_")


def _nb():
    import nabla
    return nabla


def broadcast_to(input: Tensor, size) -> Tensor:
    return input.expand(*size) if not isinstance(size, int) else input.expand(size)


def _atleast(n: int):
    def atleast(*tensors):
        ts = tensors[0] if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)) else tensors
        out = []
        for t in ts:
            if n >= 1 and t.dim() == 0:
                t = t.reshape(1)
            if n >= 2 and t.dim() == 1:
                t = t.unsqueeze(0)
            if n >= 3 and t.dim() == 2:
                t = t.unsqueeze(-1)
            out.append(t)
        return out[0] if len(out) == 1 else tuple(out)
    atleast.__name__ = f"atleast_{n}d"
    atleast.__doc__ = f"Each tensor viewed with at least {n} dims."
    return atleast


atleast_1d, atleast_2d, atleast_3d = _atleast(1), _atleast(2), _atleast(3)


def hstack(tensors, *, out=None) -> Tensor:
    ts = atleast_1d(*tensors)
    ts = ts if isinstance(ts, tuple) else (ts,)
    r = _nb().cat(ts, 0 if ts[0].dim() == 1 else 1)
    return r if out is None else out.copy_(r)


def vstack(tensors, *, out=None) -> Tensor:
    ts = atleast_2d(*tensors)
    r = _nb().cat(ts if isinstance(ts, tuple) else (ts,), 0)
    return r if out is None else out.copy_(r)


row_stack = vstack


def dstack(tensors, *, out=None) -> Tensor:
    ts = atleast_3d(*tensors)
    r = _nb().cat(ts if isinstance(ts, tuple) else (ts,), 2)
    return r if out is None else out.copy_(r)


def column_stack(tensors, *, out=None) -> Tensor:
    ts = [t.reshape(-1, 1) if t.dim() <= 1 else t for t in tensors]
    r = _nb().cat(ts, 1)
    return r if out is None else out.copy_(r)


def nansum(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    nb = _nb()
    x = nb.where(nb.isnan(input), nb.zeros_like(input), input)
    return x.sum(dim, keepdim=keepdim, dtype=dtype) if dim is not None else x.sum(dtype=dtype)


def nanmean(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    nb = _nb()
    count = (~nb.isnan(input)).sum(dim, keepdim=keepdim) if dim is not None else (~nb.isnan(input)).sum()
    return nansum(input, dim, keepdim, dtype=dtype) / count


def frac(input: Tensor) -> Tensor:
    return input - input.trunc()


def hypot(input: Tensor, other) -> Tensor:
    return (input * input + other * other).sqrt()


def heaviside(input: Tensor, values) -> Tensor:
    nb = _nb()
    values = values if isinstance(values, Tensor) else nb.tensor(values, dtype=input.dtype)
    return nb.where(input == 0, values.expand_as(input) if values.dim() else values,
                    (input > 0).to(input.dtype))


def sgn(input: Tensor) -> Tensor:
    return input.sign()


def deg2rad(input: Tensor) -> Tensor:
    return input * (math.pi / 180.0)


def rad2deg(input: Tensor) -> Tensor:
    return input * (180.0 / math.pi)


def signbit(input: Tensor) -> Tensor:
    nb = _nb()
    if not input.dtype.is_floating_point:
        return input < 0
    return (input < 0) | ((input == 0) & (1.0 / nb.where(input == 0, input, nb.ones_like(input)) < 0))


def isposinf(input: Tensor) -> Tensor:
    return input == math.inf


def isneginf(input: Tensor) -> Tensor:
    return input == -math.inf


def isreal(input: Tensor) -> Tensor:
    return _nb().ones_like(input, dtype=_nb().bool)


def fmax(input: Tensor, other: Tensor) -> Tensor:
    nb = _nb()
    return nb.where(nb.isnan(input), other, nb.where(nb.isnan(other), input, nb.maximum(input, other)))


def fmin(input: Tensor, other: Tensor) -> Tensor:
    nb = _nb()
    return nb.where(nb.isnan(input), other, nb.where(nb.isnan(other), input, nb.minimum(input, other)))


def copysign(input: Tensor, other) -> Tensor:
    nb = _nb()
    other = other if isinstance(other, Tensor) else nb.tensor(float(other))
    return input.abs() * nb.where(signbit(other), -nb.ones_like(other), nb.ones_like(other))


def float_power(input: Tensor, exponent) -> Tensor:
    nb = _nb()
    exponent = exponent.double() if isinstance(exponent, Tensor) else exponent
    return input.double().pow(exponent) if isinstance(input, Tensor) else nb.tensor(float(input)).pow(exponent)


def logspace(start, end, steps: int, base: float = 10.0, *, dtype=None, device=None,
             requires_grad: bool = False) -> Tensor:
    nb = _nb()
    r = base ** nb.linspace(start, end, steps, dtype=nb.float64, device=device)
    r = r.to(dtype or nb.get_default_dtype())
    return r.requires_grad_(True) if requires_grad else r


def kron(input: Tensor, other: Tensor) -> Tensor:
    """The Kronecker product: block (i, j) of the result is input[i, j] * other."""
    nd = max(input.dim(), other.dim())
    a = input.reshape((1,) * (nd - input.dim()) + tuple(input.shape))
    b = other.reshape((1,) * (nd - other.dim()) + tuple(other.shape))
    a_sh = [s for n in a.shape for s in (n, 1)]
    b_sh = [s for n in b.shape for s in (1, n)]
    out = a.reshape(a_sh) * b.reshape(b_sh)
    return out.reshape([x * y for x, y in zip(a.shape, b.shape)])


def detach(input: Tensor) -> Tensor:
    return input.detach()


def fill(input: Tensor, value) -> Tensor:
    return _nb().full_like(input, value)


def is_nonzero(input: Tensor) -> bool:
    if input.numel() != 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input.item())


def is_same_size(input: Tensor, other: Tensor) -> bool:
    return tuple(input.shape) == tuple(other.shape)


def is_signed(input: Tensor) -> bool:
    return input.dtype.is_signed


_COMPOSED = ("broadcast_to", "atleast_1d", "atleast_2d", "atleast_3d", "hstack", "vstack", "row_stack", "dstack",
             "column_stack", "nansum", "nanmean", "frac", "hypot", "heaviside", "sgn", "deg2rad", "rad2deg",
             "signbit", "isposinf", "isneginf", "isreal", "fmax", "fmin", "copysign", "float_power", "logspace",
             "kron", "detach", "fill", "is_nonzero", "is_same_size", "is_signed")
def install(namespace: dict) -> list:
    """Adds the aliases nabla lacks to the package namespace (never replacing a name it has); returns them."""
    nb = _nb()
    F = nb.nn.functional
    added = []
    if "newaxis" not in namespace:  # torch.newaxis, NumPy's spelling of None in indexing
        namespace["newaxis"] = None
        added.append("newaxis")
    for name in _COMPOSED:
        if name not in namespace:
            namespace[name] = globals()[name]
            added.append(name)
    for name in _FUNCTIONAL:
        if name not in namespace and hasattr(F, name):
            namespace[name] = getattr(F, name)
            added.append(name)
    for name in _INPLACE:
        if name not in namespace and hasattr(Tensor, name):
            def inplace(input, *args, _name=name, **kwargs):
                return getattr(input, _name)(*args, **kwargs)
            inplace.__name__ = name
            inplace.__doc__ = f"input.{name}(...)"
            namespace[name] = inplace
            added.append(name)
    return added
