"""nabla.distributions against torch.distributions on the same parameters: log_prob,
entropy, mean, variance, cdf/icdf, shapes, expand, KL divergences and gradients of all
of these; samples by their statistics (nabla draws other numbers than PyTorch for a seed)
with fixed tolerances; rsample gradients against PyTorch's pathwise rules; argument and
support validation messages against PyTorch's."""
from __future__ import annotations

import numpy as np
import pytest

import nabla
import nabla.distributions as D

torch = pytest.importorskip("torch")
TD = torch.distributions
RNG = np.random.default_rng(11)

POS = RNG.uniform(0.5, 3.0, (2, 3))
POS2 = RNG.uniform(0.5, 3.0, (2, 3))
REAL = RNG.standard_normal((2, 3))
PROBS = RNG.uniform(0.1, 0.9, (2, 3))
SIMPLEX = RNG.dirichlet(np.ones(4), 2)
A = RNG.standard_normal((3, 3))
COV = A @ A.T + 3 * np.eye(3)

# name, constructor args (arrays become float64 tensors with grad), whether rsample exists
CASES = [
    ("Normal", (REAL, POS)),
    ("Uniform", (REAL, REAL + POS)),
    ("Exponential", (POS,)),
    ("Laplace", (REAL, POS)),
    ("Gamma", (POS, POS2)),
    ("Beta", (POS, POS2)),
    ("Dirichlet", (POS,)),
    ("Bernoulli", (PROBS,)),
    ("Bernoulli_logits", (REAL,)),
    ("Categorical", (SIMPLEX,)),
    ("Categorical_logits", (REAL,)),
    ("OneHotCategorical", (SIMPLEX,)),
    ("MultivariateNormal", (REAL, COV)),
    ("MultivariateNormal_tril", (REAL, np.linalg.cholesky(COV))),
    ("LogNormal", (REAL, POS)),
]


def _build(lib, name: str, args, grad: bool = True):
    dist = lib.distributions if lib is nabla else TD
    ts = [(nabla.tensor(a) if lib is nabla else torch.tensor(a)).requires_grad_(grad) for a in args]
    base, _, kind = name.partition("_")
    cls = getattr(dist, base)
    if kind == "logits":
        return cls(logits=ts[0]), ts
    if kind == "tril":
        return cls(ts[0], scale_tril=ts[1]), ts
    return cls(*ts), ts


def _values(name: str, d_torch):
    """Points to evaluate at: torch's own samples, so they are in the support."""
    torch.manual_seed(3)
    return d_torch.sample((4,)).detach().numpy()


def _close(a, b, rtol=1e-9, atol=1e-10):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=rtol, atol=atol)


@pytest.mark.parametrize("name,args", CASES, ids=[c[0] for c in CASES])
def test_log_prob_entropy_moments_and_their_gradients_match_torch(name, args):
    ours, ts_o = _build(nabla, name, args)
    theirs, ts_t = _build(torch, name, args)
    assert tuple(ours.batch_shape) == tuple(theirs.batch_shape)
    assert tuple(ours.event_shape) == tuple(theirs.event_shape)
    v = _values(name, theirs)
    lp_o, lp_t = ours.log_prob(nabla.tensor(v)), theirs.log_prob(torch.tensor(v))
    _close(lp_o, lp_t)
    tol = dict(rtol=1e-7, atol=1e-9)
    total_o, total_t = lp_o.sum(), lp_t.sum()
    if name not in ("Categorical", "Categorical_logits", "OneHotCategorical"):  # nan mean/variance there
        _close(ours.mean, theirs.mean)
        _close(ours.variance, theirs.variance, **tol)
        total_o, total_t = total_o + ours.mean.sum() + ours.variance.sum(), \
            total_t + theirs.mean.sum() + theirs.variance.sum()
    if name != "Uniform":
        _close(ours.entropy(), theirs.entropy(), **tol)
        total_o, total_t = total_o + ours.entropy().sum(), total_t + theirs.entropy().sum()
    total_o.backward()
    total_t.backward()
    for a, b in zip(ts_o, ts_t):
        _close(a.grad, b.grad, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name,args", CASES, ids=[c[0] for c in CASES])
def test_sample_shapes_and_statistics(name, args):
    ours, _ = _build(nabla, name, args, grad=False)
    theirs, _ = _build(torch, name, args, grad=False)
    nabla.manual_seed(1)
    for shape in ((), (5,), (2, 7)):
        assert tuple(ours.sample(shape).shape) == tuple(theirs.sample(shape).shape)
    n = 20000
    s = ours.sample((n,)).numpy()
    if name.startswith("Categorical"):  # compare category frequencies with probs
        freq = np.stack([(s == k).mean(0) for k in range(theirs.probs.shape[-1])], -1)
        np.testing.assert_allclose(freq, theirs.probs.numpy(), atol=0.02)
        return
    if ours.support is not None and not D.constraints.is_dependent(ours.support):
        assert bool(ours.support.check(nabla.tensor(s)).all())
    mean, std = theirs.mean.numpy(), theirs.stddev.numpy()
    if name == "LogNormal":  # heavy tails: check log(x) ~ Normal(loc, scale)
        s, mean, std = np.log(s), theirs.loc.numpy(), theirs.scale.numpy()
    np.testing.assert_array_less(np.abs(s.mean(0) - mean), 6 * std / np.sqrt(n) + 1e-12)
    np.testing.assert_allclose(s.std(0), std, rtol=0.06)


@pytest.mark.parametrize("name,args", [c for c in CASES if c[0] in (
    "Normal", "Uniform", "Exponential", "Laplace", "MultivariateNormal")], ids=lambda c: str(c)[:20])
def test_location_scale_rsample_gradients_are_pathwise(name, args):
    """For x = T(eps; theta), d mean(x)/d theta over many draws approaches d E[x]/d theta (PyTorch's mean)."""
    ours, ts_o = _build(nabla, name, args)
    theirs, ts_t = _build(torch, name, args)
    nabla.manual_seed(2)
    assert ours.has_rsample and theirs.has_rsample
    ours.rsample((40000,)).mean(0).sum().backward()
    theirs.mean.sum().backward()
    for a, b in zip(ts_o, ts_t):
        expected = np.zeros(a.shape) if b.grad is None else b.grad.numpy()  # the mean does not use a scale
        np.testing.assert_allclose(a.grad.numpy(), expected, rtol=0.05, atol=0.03)


def test_gamma_rsample_gradient_matches_torchs_implicit_rule():
    """dx/dalpha of a gamma sample equals torch._standard_gamma_grad at the same (alpha, x)."""
    alpha = nabla.tensor(np.array([0.3, 0.9, 1.0, 2.5, 7.0, 40.0]), requires_grad=True)
    nabla.manual_seed(4)
    x = D.Gamma(alpha, nabla.ones(6)).rsample()
    x.sum().backward()
    expected = torch._standard_gamma_grad(torch.tensor(alpha.detach().numpy()), torch.tensor(x.detach().numpy()))
    np.testing.assert_allclose(alpha.grad.numpy(), expected.numpy(), rtol=1e-4, atol=1e-7)


@pytest.mark.parametrize("name,args", [c for c in CASES if c[0] in ("Gamma", "Beta", "Dirichlet")],
                         ids=lambda c: str(c)[:10])
def test_gamma_family_rsample_gradients_are_unbiased(name, args):
    ours, ts_o = _build(nabla, name, args)
    theirs, ts_t = _build(torch, name, args)
    nabla.manual_seed(5)
    ours.rsample((20000,)).mean(0).sum().backward()
    theirs.mean.sum().backward()
    for a, b in zip(ts_o, ts_t):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=0.08, atol=0.01)


KL_PAIRS = [("Normal", (REAL, POS), (REAL * 0.5, POS2)), ("Bernoulli", (PROBS,), (PROBS[::-1].copy(),)),
            ("Categorical", (SIMPLEX,), (SIMPLEX[::-1].copy(),)),
            ("OneHotCategorical", (SIMPLEX,), (SIMPLEX[::-1].copy(),)),
            ("Uniform", (REAL, REAL + POS), (REAL - 1, REAL + POS + 1)), ("Beta", (POS, POS2), (POS2, POS)),
            ("Gamma", (POS, POS2), (POS2, POS)), ("Dirichlet", (POS,), (POS2,)), ("Exponential", (POS,), (POS2,)),
            ("Laplace", (REAL, POS), (REAL * 2, POS2)),
            ("MultivariateNormal", (REAL, COV), (REAL * 0.3, COV + np.eye(3)))]


@pytest.mark.parametrize("name,p_args,q_args", KL_PAIRS, ids=[k[0] for k in KL_PAIRS])
def test_kl_divergence_and_its_gradient_match_torch(name, p_args, q_args):
    (p_o, tp_o), (q_o, tq_o) = _build(nabla, name, p_args), _build(nabla, name, q_args)
    (p_t, tp_t), (q_t, tq_t) = _build(torch, name, p_args), _build(torch, name, q_args)
    k_o, k_t = D.kl_divergence(p_o, q_o), TD.kl_divergence(p_t, q_t)
    _close(k_o, k_t, rtol=1e-7, atol=1e-9)
    k_o.sum().backward()
    k_t.sum().backward()
    for a, b in zip(tp_o + tq_o, tp_t + tq_t):
        _close(a.grad, b.grad, rtol=1e-6, atol=1e-8)


def test_kl_of_outside_support_is_inf_and_unknown_pairs_raise():
    assert D.kl_divergence(D.Uniform(0.0, 2.0), D.Uniform(0.5, 1.0)).item() == float("inf")
    p = D.Independent(D.Normal(nabla.zeros(2, 3), nabla.ones(2, 3)), 1)
    q = D.Independent(D.Normal(nabla.ones(2, 3), nabla.ones(2, 3)), 1)
    assert tuple(D.kl_divergence(p, q).shape) == (2,)
    np.testing.assert_allclose(D.kl_divergence(p, q).numpy(), 1.5, rtol=1e-6)
    with pytest.raises(NotImplementedError, match="No KL"):
        D.kl_divergence(D.Normal(0.0, 1.0), D.Cauchy(0.0, 1.0))


def test_cdf_and_icdf_match_torch():
    u = np.array([0.05, 0.3, 0.5, 0.9])
    for name, args in (("Normal", (0.3, 1.7)), ("Laplace", (0.3, 1.7)), ("Exponential", (1.3,)),
                       ("Uniform", (-1.0, 2.0))):
        o = getattr(D, name)(*[nabla.tensor(a, dtype=nabla.float64) for a in args])
        t = getattr(TD, name)(*[torch.tensor(a, dtype=torch.float64) for a in args])
        _close(o.icdf(nabla.tensor(u)), t.icdf(torch.tensor(u)), rtol=1e-7)
        x = t.icdf(torch.tensor(u)).numpy()
        _close(o.cdf(nabla.tensor(x)), t.cdf(torch.tensor(x)), rtol=1e-7)


TRANSFORMS = [("exp", lambda m: [m.ExpTransform()]), ("affine", lambda m: [m.AffineTransform(1.5, -2.0)]),
              ("sigmoid", lambda m: [m.SigmoidTransform()]), ("tanh", lambda m: [m.TanhTransform()]),
              ("softplus", lambda m: [m.SoftplusTransform()]),
              ("compose", lambda m: [m.ComposeTransform([m.AffineTransform(0.2, 0.5), m.TanhTransform()])]),
              ("affine_then_exp", lambda m: [m.AffineTransform(0.1, 3.0), m.ExpTransform()])]


@pytest.mark.parametrize("name,make", TRANSFORMS, ids=[t[0] for t in TRANSFORMS])
def test_transformed_distribution_matches_torch(name, make):
    loc, scale = nabla.tensor(REAL, requires_grad=True), nabla.tensor(POS, requires_grad=True)
    tloc, tscale = torch.tensor(REAL, requires_grad=True), torch.tensor(POS, requires_grad=True)
    ours = D.TransformedDistribution(D.Normal(loc, scale), make(D.transforms))
    theirs = TD.TransformedDistribution(TD.Normal(tloc, tscale), make(TD.transforms))
    torch.manual_seed(0)
    v = theirs.sample((3,)).numpy()
    lo, lt = ours.log_prob(nabla.tensor(v)), theirs.log_prob(torch.tensor(v))
    _close(lo, lt, rtol=1e-6, atol=1e-8)
    lo.sum().backward()
    lt.sum().backward()
    _close(loc.grad, tloc.grad, rtol=1e-5, atol=1e-7)
    _close(scale.grad, tscale.grad, rtol=1e-5, atol=1e-7)
    assert tuple(ours.rsample((5,)).shape) == (5, 2, 3)


def test_tanh_squashed_policy_as_in_rl_code():
    """The SAC pattern: Normal -> rsample -> tanh, log_prob corrected by the transform."""
    mu, log_std = nabla.zeros(4, 2, requires_grad=True), nabla.zeros(4, 2, requires_grad=True)
    dist = D.TransformedDistribution(D.Normal(mu, log_std.exp()), [D.TanhTransform(cache_size=1)])
    a = dist.rsample()
    lp = dist.log_prob(a).sum(-1)
    assert tuple(lp.shape) == (4,) and bool((a.abs() < 1).all())
    (lp.mean() + a.pow(2).mean()).backward()
    assert mu.grad is not None and log_std.grad is not None


def test_independent_matches_torch():
    o = D.Independent(D.Normal(nabla.tensor(REAL), nabla.tensor(POS)), 1)
    t = TD.Independent(TD.Normal(torch.tensor(REAL), torch.tensor(POS)), 1)
    assert (tuple(o.batch_shape), tuple(o.event_shape)) == (tuple(t.batch_shape), tuple(t.event_shape)) == ((2,), (3,))
    _close(o.log_prob(nabla.tensor(REAL * 2)), t.log_prob(torch.tensor(REAL * 2)))
    _close(o.entropy(), t.entropy())
    assert repr(o).startswith("Independent(Normal(loc: ")


@pytest.mark.parametrize("name,args", [c for c in CASES if not c[0].startswith("LogNormal")],
                         ids=lambda c: str(c)[:20])
def test_expand_matches_torch(name, args):
    ours, _ = _build(nabla, name, args, grad=False)
    theirs, _ = _build(torch, name, args, grad=False)
    shape = (5,) + tuple(theirs.batch_shape)
    eo, et = ours.expand(shape), theirs.expand(shape)
    assert tuple(eo.batch_shape) == tuple(et.batch_shape) and tuple(eo.event_shape) == tuple(et.event_shape)
    v = et.sample().numpy()
    _close(eo.log_prob(nabla.tensor(v)), et.log_prob(torch.tensor(v)))


BAD = [("Normal", (0.0, -1.0)), ("Exponential", (0.0,)), ("Gamma", (-1.0, 1.0)), ("Beta", (1.0, 0.0)),
       ("Laplace", (0.0, 0.0)), ("Bernoulli", (1.5,))]


@pytest.mark.parametrize("name,args", BAD, ids=[b[0] for b in BAD])
def test_invalid_parameters_raise_torchs_value_error(name, args):
    with pytest.raises(ValueError) as ours:
        getattr(D, name)(*args)
    with pytest.raises(ValueError) as theirs:
        getattr(TD, name)(*args)
    assert str(ours.value) == str(theirs.value).replace("torch.Size", "nabla.Size")


def test_invalid_arguments_and_samples_raise_as_torch():
    with pytest.raises(ValueError, match="Either `probs` or `logits` must be specified, but not both."):
        D.Bernoulli()
    with pytest.raises(ValueError, match="Either `probs` or `logits` must be specified"):
        D.Categorical(probs=nabla.ones(2), logits=nabla.ones(2))
    with pytest.raises(ValueError, match="Uniform is not defined when low>= high"):
        D.Uniform(1.0, 0.0)
    with pytest.raises(ValueError, match="Exactly one of covariance_matrix or precision_matrix or scale_tril"):
        D.MultivariateNormal(nabla.zeros(2))
    with pytest.raises(ValueError) as ours:
        D.Exponential(nabla.tensor(2.0)).log_prob(nabla.tensor(-1.0))
    with pytest.raises(ValueError) as theirs:
        TD.Exponential(torch.tensor(2.0)).log_prob(torch.tensor(-1.0))
    assert str(ours.value) == str(theirs.value)
    with pytest.raises(ValueError, match="The value argument to log_prob must be a Tensor"):
        D.Normal(0.0, 1.0).log_prob(0.5)
    D.Normal(0.0, 1.0, validate_args=False).log_prob(nabla.tensor(0.5))
    assert np.isnan(D.Normal(0.0, -1.0, validate_args=False).entropy().item())


def test_repr_matches_torch():
    for name, args in (("Normal", (0.0, 1.0)), ("Gamma", (2.0, 3.0)), ("Beta", (2.0, 3.0))):
        assert repr(getattr(D, name)(*args)) == repr(getattr(TD, name)(*args))
    o = D.Normal(nabla.zeros(2), nabla.ones(2))
    assert repr(o) == "Normal(loc: nabla.Size([2]), scale: nabla.Size([2]))"


def test_precision_matrix_form_matches_torch():
    prec = np.linalg.inv(COV)
    o = D.MultivariateNormal(nabla.tensor(REAL), precision_matrix=nabla.tensor(prec))
    t = TD.MultivariateNormal(torch.tensor(REAL), precision_matrix=torch.tensor(prec))
    _close(o.log_prob(nabla.tensor(REAL * 0.1)), t.log_prob(torch.tensor(REAL * 0.1)), rtol=1e-8)
    _close(o.covariance_matrix, t.covariance_matrix, rtol=1e-8)
    _close(o.entropy(), t.entropy(), rtol=1e-8)


def test_float32_parameters_keep_their_dtype():
    d = D.Normal(nabla.zeros(3), nabla.ones(3))
    assert d.sample().dtype is nabla.float32 and d.log_prob(nabla.zeros(3)).dtype is nabla.float32
    g = D.Gamma(nabla.ones(3), nabla.ones(3))
    assert g.rsample().dtype is nabla.float32
