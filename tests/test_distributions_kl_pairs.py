"""kl_divergence between different families (and the same-family pairs added with them) against
torch.distributions.kl_divergence: float64 (rtol 1e-9, atol 1e-10) and float32 (rtol 1e-4), equal and broadcast batch
shapes, the infinite pairs (shaped by p's batch, as PyTorch returns them) and the support checks; the
float64 gradients of the closed forms; TransformedDistribution pairs, whose transforms compare by value as
PyTorch's do; and nabla's registry covering every pair in PyTorch's."""
from __future__ import annotations

import numpy as np
import pytest

import nabla
import nabla.distributions as D

torch = pytest.importorskip("torch")
TD = torch.distributions
RNG = np.random.default_rng(11)

REAL = RNG.standard_normal((2, 3))
REAL2 = RNG.standard_normal((2, 3))
POS = RNG.uniform(0.5, 3.0, (2, 3))
POS2 = RNG.uniform(0.5, 3.0, (2, 3))
PROBS = RNG.uniform(0.1, 0.9, (2, 3))
COUNTS = np.array([[1.0, 4.0, 7.0], [2.0, 3.0, 10.0]])
ALPHA = np.array([[0.5, 1.0, 1.5], [2.0, 2.5, 4.0]])            # <= 1, <= 2 and above: Pareto's moment checks
LOW = np.array([[0.1, -0.2, 0.3], [0.0, 0.25, 0.5]])             # some below 0, some above q's Pareto scale
HIGH = np.array([[0.6, 0.7, 1.2], [0.4, 1.0, 0.9]])              # one past 1
SMALL_SCALE = np.array([[0.05, 0.2, 0.5], [0.01, 0.3, 0.1]])
WIDE_LOW = np.array([[-0.5, 0.2, 0.0], [-1.0, 0.0, -0.1]])       # Beta against these: two inside [0, 1]'s cover
WIDE_HIGH = np.array([[1.5, 1.0, 0.8], [2.0, 1.0, 1.0]])

# (p family, p args), (q family, q args), what torch gives on the equal-shape batch: finite, inf or mixed
PAIRS = [
    (("Normal", (REAL, POS)), ("Gumbel", (REAL2, POS2)), "finite"),
    (("Normal", (REAL, POS)), ("Laplace", (REAL2, POS2)), "finite"),
    (("Laplace", (REAL, POS)), ("Normal", (REAL2, POS2)), "finite"),
    (("Gumbel", (REAL, POS)), ("Normal", (REAL2, POS2)), "finite"),
    (("Bernoulli", (PROBS,)), ("Poisson", (POS,)), "finite"),
    (("Cauchy", (REAL, POS)), ("Cauchy", (REAL2, POS2)), "finite"),
    (("Gumbel", (REAL, POS)), ("Gumbel", (REAL2, POS2)), "finite"),
    (("HalfNormal", (POS,)), ("HalfNormal", (POS2,)), "finite"),
    (("Pareto", (POS, POS2)), ("Pareto", (POS2, POS)), "mixed"),
    (("Geometric", (PROBS,)), ("Geometric", (PROBS[::-1].copy(),)), "finite"),
    (("Exponential", (POS,)), ("Gamma", (POS2, POS)), "finite"),
    (("Exponential", (POS,)), ("Gumbel", (REAL * 0.3, POS2)), "finite"),
    (("Exponential", (POS,)), ("Normal", (REAL, POS2)), "finite"),
    (("Gamma", (POS, POS2)), ("Exponential", (POS,)), "finite"),
    (("Gamma", (POS, POS2)), ("Gumbel", (REAL * 0.3, POS)), "finite"),
    (("Gamma", (POS, POS2)), ("Normal", (REAL, POS)), "finite"),
    (("Pareto", (POS, ALPHA)), ("Exponential", (POS2,)), "mixed"),
    (("Pareto", (POS, ALPHA)), ("Gamma", (POS2, POS)), "mixed"),
    (("Pareto", (POS, ALPHA)), ("Normal", (REAL, POS2)), "mixed"),
    (("Beta", (POS, POS2)), ("Exponential", (POS,)), "finite"),
    (("Beta", (POS, POS2)), ("Gamma", (POS2, POS)), "finite"),
    (("Beta", (POS, POS2)), ("Normal", (REAL, POS)), "finite"),
    (("Beta", (POS, POS2)), ("Uniform", (WIDE_LOW, WIDE_HIGH)), "mixed"),
    (("Uniform", (LOW, HIGH)), ("Beta", (POS, POS2)), "mixed"),
    (("Uniform", (LOW, HIGH)), ("Exponential", (POS,)), "mixed"),
    (("Uniform", (LOW, HIGH)), ("Gamma", (POS, POS2)), "mixed"),
    (("Uniform", (LOW, HIGH)), ("Gumbel", (REAL, POS)), "finite"),
    (("Uniform", (LOW, HIGH)), ("Normal", (REAL, POS)), "finite"),
    (("Uniform", (LOW, HIGH)), ("Pareto", (SMALL_SCALE, POS)), "mixed"),
    (("Beta", (POS, POS2)), ("Pareto", (POS, POS2)), "inf"),
    (("Poisson", (POS,)), ("Bernoulli", (PROBS,)), "inf"),
    (("Poisson", (POS,)), ("Binomial", (COUNTS, PROBS)), "inf"),
] + [((p, pa), (q, qa), "inf") for p, pa in (("Exponential", (POS,)), ("Gamma", (POS, POS2)))
     for q, qa in (("Beta", (POS, POS2)), ("Pareto", (POS, POS2)), ("Uniform", (LOW, HIGH)))] + [
    ((p, pa), (q, qa), "inf") for p, pa in (("Gumbel", (REAL, POS)), ("Laplace", (REAL, POS)), ("Normal", (REAL, POS)))
    for q, qa in (("Beta", (POS, POS2)), ("Exponential", (POS,)), ("Gamma", (POS, POS2)), ("Pareto", (POS, POS2)),
                  ("Uniform", (LOW, HIGH)))] + [
    (("Pareto", (POS, POS2)), (q, qa), "inf") for q, qa in (("Beta", (POS, POS2)), ("Uniform", (LOW, HIGH)))]

# Pairs whose support check indexes the result with a mask of one side's batch shape: PyTorch raises when
# the other side alone is wider, so there both sides are expanded to the common shape first.
MASK_OF = {("Pareto", "Exponential"): "p", ("Pareto", "Gamma"): "p", ("Pareto", "Normal"): "p",
           ("Uniform", "Beta"): "p", ("Uniform", "Exponential"): "p", ("Uniform", "Gamma"): "p",
           ("Beta", "Uniform"): "q"}
LAYOUTS = ("same", "p_wide", "q_wide")
TOL = {"float64": dict(rtol=1e-9, atol=1e-10), "float32": dict(rtol=1e-4, atol=1e-5)}


def _args(args, layout: str, side: str):
    """The (2, 3) parameters, or their first row, (3,), on the side that broadcasts."""
    narrow = (layout == "p_wide" and side == "q") or (layout == "q_wide" and side == "p")
    return tuple(a[0] if narrow else a for a in args)


def _make(lib, name: str, args, dtype: str, shape=None):
    mod, tensor = (D, nabla.tensor) if lib == "nabla" else (TD, torch.tensor)
    ts = [tensor(np.asarray(a, dtype=dtype)) for a in args]
    if shape is not None:
        ts = [t.expand(shape) for t in ts]
    return getattr(mod, name)(*ts)


def _kl(lib, p, q, dtype, layout, shape=None):
    (pn, pa), (qn, qa) = p, q
    kl = D.kl_divergence if lib == "nabla" else TD.kl_divergence
    return kl(_make(lib, pn, _args(pa, layout, "p"), dtype, shape),
              _make(lib, qn, _args(qa, layout, "q"), dtype, shape))


def _ids(case):
    return f"{case[0][0]}-{case[1][0]}"


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("p,q,kind", PAIRS, ids=[_ids(c) for c in PAIRS])
def test_kl_pair_matches_torch(p, q, kind, dtype, layout):
    ours = _kl("nabla", p, q, dtype, layout)
    side = MASK_OF.get((p[0], q[0]))
    if side is not None and layout == {"p": "q_wide", "q": "p_wide"}[side]:
        with pytest.raises(IndexError):
            _kl("torch", p, q, dtype, layout)
        theirs = _kl("torch", p, q, dtype, layout, shape=(2, 3))
    else:
        theirs = _kl("torch", p, q, dtype, layout)
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert str(ours.dtype).split(".")[-1] == dtype
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), **TOL[dtype])
    if layout == "same":
        finite = np.isfinite(theirs.numpy())
        assert {"finite": finite.all(), "inf": (~finite).all(), "mixed": finite.any() and not finite.all()}[kind]


def test_transformed_pairs_reduce_to_their_bases_and_refuse_other_transforms():
    for lib, mod, tensor in (("nabla", D, nabla.tensor), ("torch", TD, torch.tensor)):
        loc, scale = tensor(REAL), tensor(POS)
        exp_p = mod.TransformedDistribution(mod.Normal(loc, scale), [mod.ExpTransform()])
        exp_q = mod.TransformedDistribution(mod.Normal(loc * 0.5, scale + 1), [mod.ExpTransform()])
        if lib == "nabla":
            ours = D.kl_divergence(exp_p, exp_q)
            ours_log = D.kl_divergence(D.LogNormal(loc, scale), D.LogNormal(loc * 0.5, scale + 1))
        else:
            np.testing.assert_allclose(ours.numpy(), TD.kl_divergence(exp_p, exp_q).numpy(), rtol=1e-12)
            np.testing.assert_allclose(ours_log.numpy(), ours.numpy(), rtol=1e-12)
        sig_q = mod.TransformedDistribution(mod.Normal(loc, scale), [mod.SigmoidTransform()])
        with pytest.raises(NotImplementedError):
            mod.kl_divergence(exp_p, sig_q)


def test_halfcauchy_pair_goes_through_cauchy_as_in_torch():
    ours = D.kl_divergence(D.HalfCauchy(nabla.tensor(POS)), D.HalfCauchy(nabla.tensor(POS2)))
    theirs = TD.kl_divergence(TD.HalfCauchy(torch.tensor(POS)), TD.HalfCauchy(torch.tensor(POS2)))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)


def test_registry_covers_every_pair_torch_registers():
    names = lambda registry: {(p.__name__, q.__name__) for p, q in registry}  # noqa: E731
    missing = names(TD.kl._KL_REGISTRY) - names(D.kl._KL_REGISTRY)
    assert not missing, f"KL pairs torch has and nabla lacks: {sorted(missing)}"


@pytest.mark.parametrize("chain", ["affine", "power_affine", "inverse"])
def test_transformed_pair_with_equal_parameterised_transforms_matches_torch(chain):
    """Transforms built apart compare by value, as PyTorch's do, so the pair reduces to its bases."""
    def transforms(mod, tensor, shift):
        scale, power = tensor(POS + shift), tensor(POS2 + shift)
        return {"affine": [mod.AffineTransform(tensor(REAL), scale)],
                "power_affine": [mod.ExpTransform(), mod.PowerTransform(power), mod.AffineTransform(0.5, 2.0)],
                "inverse": [mod.AffineTransform(1.0, scale).inv]}[chain]
    results = []
    for mod, tensor in ((D, nabla.tensor), (TD, torch.tensor)):
        p = mod.TransformedDistribution(mod.Normal(tensor(REAL), tensor(POS)), transforms(mod, tensor, 0.0))
        q = mod.TransformedDistribution(mod.Normal(tensor(REAL2), tensor(POS2)), transforms(mod, tensor, 0.0))
        results.append(mod.kl_divergence(p, q).numpy())
        other = mod.TransformedDistribution(mod.Normal(tensor(REAL2), tensor(POS2)), transforms(mod, tensor, 0.5))
        with pytest.raises(NotImplementedError):
            mod.kl_divergence(p, other)
    np.testing.assert_allclose(results[0], results[1], rtol=1e-12)


GRAD_PAIRS = [c for c in PAIRS if c[2] == "finite"]


@pytest.mark.parametrize("p,q,kind", GRAD_PAIRS, ids=[_ids(c) for c in GRAD_PAIRS])
def test_closed_form_gradients_match_torch(p, q, kind):
    """float64 gradients to every parameter; atol 1e-9 covers trigamma's last digits under cancellation."""
    grads = []
    for lib, tensor in (("nabla", nabla.tensor), ("torch", torch.tensor)):
        (pn, pa), (qn, qa) = p, q
        mod = D if lib == "nabla" else TD
        ts = [tensor(np.asarray(a, dtype="float64")).requires_grad_() for a in pa + qa]
        kl = mod.kl_divergence(getattr(mod, pn)(*ts[:len(pa)]), getattr(mod, qn)(*ts[len(pa):]))
        kl.sum().backward()
        grads.append([t.grad.numpy() for t in ts])
    for ours, theirs in zip(*grads):
        np.testing.assert_allclose(ours, theirs, rtol=1e-8, atol=1e-9)


@pytest.mark.parametrize("name", ["InverseGamma", "Kumaraswamy", "LogNormal", "Weibull", "HalfCauchy"])
def test_pairs_torch_reaches_through_transformed_distribution(name):
    """torch builds these as TransformedDistributions, so its rule for those answers: the bases' KL when the
    transform chains are equal (always for LogNormal, InverseGamma and HalfCauchy), NotImplementedError if not."""
    args = (POS, POS2) if name != "HalfCauchy" else (POS,)
    for q_args, shape in ((args, (2, 3)), (tuple(a[0] for a in args[::-1]), None)):
        out = []
        for mod, tensor in ((D, nabla.tensor), (TD, torch.tensor)):
            p, q = getattr(mod, name)(*map(tensor, args)), getattr(mod, name)(*map(tensor, q_args))
            try:
                out.append(mod.kl_divergence(p, q).numpy())
            except NotImplementedError:
                out.append(None)
        assert (out[0] is None) == (out[1] is None)
        if out[1] is not None:
            np.testing.assert_allclose(out[0], out[1], **TOL["float64"])
            assert out[0].shape == out[1].shape
        if shape is not None:
            assert out[1] is not None and out[1].shape == shape
