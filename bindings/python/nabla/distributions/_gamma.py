"""Standard gamma samples with reparameterised gradients (what Gamma, Beta and Dirichlet
rsample from). Samples: Marsaglia and Tsang's method run with nabla ops on the parameters'
device. Gradient: the implicit one, dx/dalpha = -(dP(alpha, x)/dalpha) / p(x; alpha), with
the regularised incomplete gamma P from nabla's igamma kernel, on the same device."""
from __future__ import annotations



def _nb():
    import nabla
    return nabla


def standard_gamma_grad(alpha, x):
    """d x / d alpha for x ~ Gamma(alpha, 1) held at its quantile: -(dP(alpha, x)/dalpha) / p(x; alpha),
    in float64 with P = igamma (nabla's kernel) differentiated in alpha by a central difference."""
    nb = _nb()
    alpha, x = alpha.detach().double(), x.detach().double()
    h = (1e-5 * alpha.clamp(min=1.0)).minimum(alpha / 2)
    dp = (nb.igamma(alpha + h, x) - nb.igamma(alpha - h, x)) / (2 * h)
    log_pdf = (alpha - 1) * x.log() - x - nb.lgamma(alpha)
    return -dp / log_pdf.exp()


def _sample(alpha):
    """Gamma(alpha, 1) samples of alpha's shape (no gradient), by Marsaglia and Tsang."""
    nb = _nb()
    small = alpha < 1
    a = nb.where(small, alpha + 1, alpha)  # alpha < 1: sample alpha + 1, then scale by U^(1/alpha)
    d = a - 1 / 3
    c = 1 / nb.sqrt(9 * d)
    result = nb.zeros_like(alpha)
    done = nb.zeros_like(alpha, dtype=nb.bool)
    for _ in range(64):  # the acceptance rate is above 95%: 64 rounds leave nothing undrawn
        x = nb.randn(alpha.shape, dtype=alpha.dtype, device=alpha.device)
        v = (1 + c * x) ** 3
        u = nb.rand(alpha.shape, dtype=alpha.dtype, device=alpha.device)
        ok = (v > 0) & (nb.log(u) < 0.5 * x * x + d - d * v + d * nb.log(nb.where(v > 0, v, nb.ones_like(v))))
        take = ok & ~done
        result = nb.where(take, d * v, result)
        done = done | ok
        if bool(done.all()):
            break
    u = nb.rand(alpha.shape, dtype=alpha.dtype, device=alpha.device)
    boost = nb.where(small, u ** (1 / nb.where(small, alpha, nb.ones_like(alpha))), nb.ones_like(alpha))
    tiny = nb.finfo(alpha.dtype).tiny
    return (result * boost).clamp(min=tiny)


_function = []


def standard_gamma(alpha):
    """Gamma(alpha, 1) samples of alpha's shape, differentiable in alpha (implicit reparameterisation)."""
    if not _function:
        from ..autograd import Function

        class StandardGamma(Function):
            @staticmethod
            def forward(ctx, concentration):
                x = _sample(concentration)
                ctx.save_for_backward(concentration, x)
                return x

            @staticmethod
            def backward(ctx, grad):
                concentration, x = ctx.saved_tensors
                return grad * standard_gamma_grad(concentration, x).to(grad.dtype)

        _function.append(StandardGamma)
    return _function[0].apply(alpha)
