"""nabla.special: torch.special's functions over nabla's ops and the compositions of _special."""
from __future__ import annotations

import math

from .._special import digamma, erfinv, logit, mvlgamma as multigammaln, polygamma, sinc, xlogy
from .._special import lgamma as gammaln
from .._binary import igamma as gammainc, igammac as gammaincc  # noqa: F401
from ._polynomials import *  # noqa: F401,F403 - chebyshev_polynomial_t, hermite_polynomial_h, legendre_polynomial_p, ...
from ._polynomials import __all__ as _polynomials_all
from ._bessel import i0, i0e, i1, i1e, modified_bessel_i0, modified_bessel_i1  # noqa: F401
from ._bessel_jy import airy_ai, bessel_j0, bessel_j1, bessel_y0, bessel_y1  # noqa: F401
from ._bessel_k import (modified_bessel_k0, modified_bessel_k1, scaled_modified_bessel_k0,  # noqa: F401
                        scaled_modified_bessel_k1)
from ._erfcx_zeta import erfcx, zeta  # noqa: F401

__all__ = ["digamma", "entr", "erf", "erfc", "erfinv", "exp2", "expit", "expm1", "gammainc", "gammaincc", "gammaln", "log1p", "log_ndtr",
           "log_softmax", "logit", "logsumexp", "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round",
           "sinc", "softmax", "xlog1py", "xlogy", "i0", "i0e", "i1", "i1e", "modified_bessel_i0",
           "modified_bessel_i1", "airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_k0",
           "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "erfcx",
           "zeta"] + _polynomials_all

psi = digamma


def _nb():
    import nabla
    return nabla


def erf(input, *, out=None):
    return _nb().erf(input, out=out)


def erfc(input, *, out=None):
    return _nb().erfc(input, out=out)


def expit(input, *, out=None):
    return _nb().sigmoid(input, out=out)


def exp2(input, *, out=None):
    return _nb().exp2(input, out=out)


def expm1(input, *, out=None):
    return _nb().expm1(input, out=out)


def log1p(input, *, out=None):
    return _nb().log1p(input, out=out)


def round(input, *, decimals: int = 0, out=None):  # noqa: A001 - torch.special's name
    return _nb().round(input, decimals=decimals, out=out)


def logsumexp(input, dim, keepdim: bool = False, *, out=None):
    return _nb().logsumexp(input, dim, keepdim, out=out)


def softmax(input, dim, *, dtype=None):
    return _nb().softmax(input, dim, dtype=dtype)


def log_softmax(input, dim, *, dtype=None):
    return _nb().log_softmax(input, dim, dtype=dtype)


def xlog1py(input, other, *, out=None):
    """input * log1p(other), 0 where input == 0."""
    nb = _nb()
    x = input if isinstance(input, nb.Tensor) else nb.tensor(input)
    y = other if isinstance(other, nb.Tensor) else nb.tensor(other)
    r = x * nb.log1p(nb.where(x == 0, nb.zeros_like(y), y))
    return r if out is None else out.copy_(r)


def ndtr(input, *, out=None):
    """The standard normal CDF: (1 + erf(x / sqrt 2)) / 2."""
    nb = _nb()
    r = 0.5 * nb.erfc(-input / math.sqrt(2))
    return r if out is None else out.copy_(r)


def ndtri(input, *, out=None):
    """The standard normal quantile: sqrt(2) erfinv(2p - 1)."""
    r = math.sqrt(2) * erfinv(2 * input - 1)
    return r if out is None else out.copy_(r)


def log_ndtr(input, *, out=None):
    """log of the standard normal CDF."""
    nb = _nb()
    r = nb.log(ndtr(input))
    return r if out is None else out.copy_(r)


def entr(input, *, out=None):
    """-x log x for x > 0, 0 at 0, -inf below."""
    nb = _nb()
    r = -xlogy(input, input)
    r = nb.where(input < 0, nb.full_like(r, -math.inf), r)
    return r if out is None else out.copy_(r)
