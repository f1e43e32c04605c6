"""ExponentialFamily, ContinuousBernoulli and VonMises against torch.distributions (float64, and float32
where noted): the Bregman entropy and KL of the exponential families, which classes are exponential
families, log_prob / cdf / icdf / entropy / mean / variance and their gradients, rsample as icdf of
the generator's uniforms, sample statistics with a seed, expand, supports and argument validation,
and the KL pairs PyTorch registers for ContinuousBernoulli."""
from __future__ import annotations

import math

import numpy as np
import pytest

import nabla
import nabla.distributions as D

torch = pytest.importorskip("torch")
TD = torch.distributions
RNG = np.random.default_rng(19)

POS = RNG.uniform(0.5, 3.0, (2, 3))
REAL = RNG.standard_normal((2, 3))
# probs across (0, 1), two inside PyTorch's Taylor region (0.499, 0.501] around 1/2
CB_PROBS = np.array([[0.03, 0.2, 0.4999], [0.5005, 0.7, 0.97]])


def _pair(np_value, grad=False):
    ours = nabla.tensor(np_value).requires_grad_(grad)
    theirs = torch.tensor(np_value).requires_grad_(grad)
    return ours, theirs


def _close(ours, theirs, rtol=1e-9, atol=1e-12):
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=rtol, atol=atol)


# name, params, which are exponential families in both libraries
EXP_CASES = [
    ("Normal", (REAL, POS)), ("Exponential", (POS,)), ("Gamma", (POS, POS + 1)), ("Beta", (POS, POS + 0.5)),
    ("Dirichlet", (POS,)), ("Bernoulli", (CB_PROBS,)), ("ContinuousBernoulli", (CB_PROBS,)), ("Poisson", (POS,)),
]


def test_exponential_families_are_the_ones_torch_has():
    names = [n for n in D.__all__ if isinstance(getattr(D, n), type) and issubclass(getattr(D, n), D.Distribution)]
    assert "ExponentialFamily" in names and len(names) > 40
    for name in names:
        assert issubclass(getattr(D, name), D.ExponentialFamily) == issubclass(getattr(TD, name),
                                                                               TD.ExponentialFamily), name


@pytest.mark.parametrize("name,params", [c for c in EXP_CASES if c[0] != "Poisson"], ids=lambda c: str(c)[:20])
def test_bregman_entropy_matches_the_closed_form_and_torch(name, params):
    ours = getattr(D, name)(*[nabla.tensor(p) for p in params])
    theirs = getattr(TD, name)(*[torch.tensor(p) for p in params])
    try:
        ref = TD.ExponentialFamily.entropy(theirs)
    except NotImplementedError:  # Beta and Dirichlet give no carrier measure in either library
        with pytest.raises(NotImplementedError):
            D.ExponentialFamily.entropy(ours)
        return
    bregman = D.ExponentialFamily.entropy(ours)
    _close(bregman, ref, rtol=1e-8, atol=1e-10)
    _close(bregman, ours.entropy(), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("name,params", EXP_CASES, ids=[c[0] for c in EXP_CASES])
def test_bregman_kl_matches_torch_and_its_gradient(name, params):
    shift = [p * 0.7 + 0.1 if name not in ("Bernoulli", "ContinuousBernoulli") else p * 0.9 + 0.05 for p in params]
    op, tp = zip(*[_pair(p) for p in params])  # p's natural parameters are detached: q carries the gradient
    oq, tq = zip(*[_pair(p, grad=True) for p in shift])
    ours = D.kl._kl_expfamily_expfamily(getattr(D, name)(*op), getattr(D, name)(*oq))
    theirs = TD.kl._kl_expfamily_expfamily(getattr(TD, name)(*tp), getattr(TD, name)(*tq))
    _close(ours, theirs, rtol=1e-8, atol=1e-10)
    ours.sum().backward()
    theirs.sum().backward()
    for a, b in zip(oq, tq):
        _close(a.grad, b.grad, rtol=1e-7, atol=1e-10)


def test_bregman_kl_refuses_two_families():
    with pytest.raises(NotImplementedError, match="different exponential families"):
        D.kl._kl_expfamily_expfamily(D.Normal(0.0, 1.0), D.Exponential(1.0))
    with pytest.raises(NotImplementedError):
        D.kl_divergence(D.Normal(0.0, 1.0), D.Poisson(1.0))


@pytest.mark.parametrize("param", ["probs", "logits"])
@pytest.mark.parametrize("method", ["log_prob", "cdf", "icdf", "entropy", "mean", "variance", "stddev"])
def test_continuous_bernoulli_matches_torch(param, method):
    raw = CB_PROBS if param == "probs" else np.log(CB_PROBS / (1 - CB_PROBS))
    o, t = _pair(raw, grad=True)
    ours, theirs = D.ContinuousBernoulli(**{param: o}), TD.ContinuousBernoulli(**{param: t})
    values = RNG.uniform(0.02, 0.98, (4, 2, 3))
    if method in ("log_prob", "cdf", "icdf"):
        vo, vt = _pair(values)
        a, b = getattr(ours, method)(vo), getattr(theirs, method)(vt)
    else:
        a = ours.entropy() if method == "entropy" else getattr(ours, method)
        b = theirs.entropy() if method == "entropy" else getattr(theirs, method)
    _close(a, b, rtol=1e-9, atol=1e-12)
    g = RNG.standard_normal(tuple(b.shape))
    (a * nabla.tensor(g)).sum().backward()
    (b * torch.tensor(g)).sum().backward()
    _close(o.grad, t.grad, rtol=1e-7, atol=1e-10)


def test_continuous_bernoulli_in_float32():
    p = CB_PROBS.astype(np.float32)
    ours, theirs = D.ContinuousBernoulli(nabla.tensor(p)), TD.ContinuousBernoulli(torch.tensor(p))
    v = RNG.uniform(0.02, 0.98, (3, 2, 3)).astype(np.float32)
    for a, b in [(ours.log_prob(nabla.tensor(v)), theirs.log_prob(torch.tensor(v))),
                 (ours.entropy(), theirs.entropy()), (ours.mean, theirs.mean), (ours.variance, theirs.variance)]:
        assert a.dtype == nabla.float32
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=2e-5, atol=2e-6)


def test_continuous_bernoulli_rsample_is_icdf_of_uniforms_with_gradient():
    o, t = _pair(CB_PROBS, grad=True)
    dist = D.ContinuousBernoulli(o)
    nabla.manual_seed(5)
    x = dist.rsample((3,))
    nabla.manual_seed(5)
    u = nabla.rand((3, 2, 3), dtype=nabla.float64)
    ref = TD.ContinuousBernoulli(t).icdf(torch.tensor(u.numpy()))
    _close(x, ref)
    x.sum().backward()
    ref.sum().backward()
    _close(o.grad, t.grad, rtol=1e-7, atol=1e-10)
    assert dist.has_rsample and not dist.sample().requires_grad


def test_continuous_bernoulli_sample_statistics():
    probs = np.array([0.1, 0.4999, 0.8])
    dist = D.ContinuousBernoulli(nabla.tensor(probs))
    nabla.manual_seed(0)
    s = dist.sample((20000,))
    assert tuple(s.shape) == (20000, 3) and bool(((s >= 0) & (s <= 1)).all())
    se = np.sqrt(dist.variance.numpy() / 20000)
    assert np.all(np.abs(s.mean(0).numpy() - dist.mean.numpy()) < 4 * se)
    np.testing.assert_allclose(s.var(0).numpy(), dist.variance.numpy(), rtol=0.05)


def test_continuous_bernoulli_shapes_expand_and_validation():
    dist = D.ContinuousBernoulli(logits=nabla.tensor([0.3, -1.0]))
    assert dist.batch_shape == (2,) and dist.event_shape == () and dist.param_shape == (2,)
    wide = dist.expand((4, 2))
    assert wide.batch_shape == (4, 2) and wide._lims == dist._lims
    _close(wide.log_prob(nabla.tensor(0.3)), TD.ContinuousBernoulli(logits=torch.tensor([0.3, -1.0])).expand(
        (4, 2)).log_prob(torch.tensor(0.3)), rtol=2e-6)
    assert D.ContinuousBernoulli(0.3).batch_shape == ()
    assert repr(D.ContinuousBernoulli.support) == "Interval(lower_bound=0.0, upper_bound=1.0)"
    assert D.ContinuousBernoulli.arg_constraints["logits"] is D.constraints.real
    with pytest.raises(ValueError, match="Either `probs` or `logits`"):
        D.ContinuousBernoulli(probs=0.3, logits=0.1)
    with pytest.raises(ValueError, match="probs has invalid values"):
        D.ContinuousBernoulli(nabla.tensor([1.5]), validate_args=True)
    with pytest.raises(ValueError, match="support"):
        D.ContinuousBernoulli(nabla.tensor([0.3]), validate_args=True).log_prob(nabla.tensor([1.2]))


KL_CB = [
    ("ContinuousBernoulli", (CB_PROBS,), "ContinuousBernoulli", (CB_PROBS[::-1].copy(),)),
    ("Beta", (POS, POS + 1), "ContinuousBernoulli", (CB_PROBS,)),
    ("Uniform", (np.full((2, 3), 0.1), np.full((2, 3), 0.8)), "ContinuousBernoulli", (CB_PROBS,)),
    ("Uniform", (np.full((2, 3), -0.1), np.full((2, 3), 0.8)), "ContinuousBernoulli", (CB_PROBS,)),
    ("ContinuousBernoulli", (CB_PROBS,), "Exponential", (POS,)),
    ("ContinuousBernoulli", (CB_PROBS,), "Normal", (REAL, POS)),
    ("ContinuousBernoulli", (CB_PROBS,), "Uniform", (np.full((2, 3), -0.5), REAL + 3)),
    ("ContinuousBernoulli", (CB_PROBS,), "Uniform", (np.full((2, 3), 0.1), np.full((2, 3), 2.0))),
    ("ContinuousBernoulli", (CB_PROBS,), "Pareto", (POS, POS)),
    ("Exponential", (POS,), "ContinuousBernoulli", (CB_PROBS,)),
    ("Gamma", (POS, POS), "ContinuousBernoulli", (CB_PROBS,)),
    ("Gumbel", (REAL, POS), "ContinuousBernoulli", (CB_PROBS,)),
    ("Laplace", (REAL, POS), "ContinuousBernoulli", (CB_PROBS,)),
    ("Normal", (REAL, POS), "ContinuousBernoulli", (CB_PROBS,)),
    ("Pareto", (POS, POS), "ContinuousBernoulli", (CB_PROBS,)),
]


@pytest.mark.parametrize("p_name,p_params,q_name,q_params", KL_CB, ids=[f"{c[0]}-{c[2]}" for c in KL_CB])
def test_continuous_bernoulli_kl_pairs_match_torch(p_name, p_params, q_name, q_params):
    op, tp = zip(*[_pair(p, grad=True) for p in p_params])
    oq, tq = zip(*[_pair(q) for q in q_params])
    ours = D.kl_divergence(getattr(D, p_name)(*op), getattr(D, q_name)(*oq))
    theirs = TD.kl_divergence(getattr(TD, p_name)(*tp), getattr(TD, q_name)(*tq))
    _close(ours, theirs, rtol=1e-8, atol=1e-10)
    finite = np.isfinite(theirs.detach().numpy())
    if not finite.any():
        return
    mask = finite.astype(np.float64)
    (ours * nabla.tensor(mask)).sum().backward()
    (theirs * torch.tensor(mask)).sum().backward()
    for a, b in zip(op, tp):
        _close(a.grad, b.grad, rtol=1e-7, atol=1e-10)


LOC = np.array([[0.3, -2.5, 3.0], [1.0, 0.0, -1.2]])
KAPPA = np.array([[0.05, 1.0, 3.7], [3.8, 12.0, 40.0]])  # both sides of the Bessel fits' switch at 3.75


@pytest.mark.parametrize("dtype,rtol", [(np.float64, 1e-9), (np.float32, 2e-6)])
def test_von_mises_matches_torch(dtype, rtol):
    lo, lt = _pair(LOC.astype(dtype), grad=True)
    ko, kt = _pair(KAPPA.astype(dtype), grad=True)
    ours, theirs = D.VonMises(lo, ko), TD.VonMises(lt, kt)
    v = (RNG.uniform(-3 * math.pi, 3 * math.pi, (4, 2, 3))).astype(dtype)
    for a, b in [(ours.log_prob(nabla.tensor(v)), theirs.log_prob(torch.tensor(v))), (ours.mean, theirs.mean),
                 (ours.mode, theirs.mode), (ours.variance, theirs.variance)]:
        assert a.dtype == (nabla.float64 if dtype == np.float64 else nabla.float32)
        _close(a, b, rtol=rtol, atol=rtol * 1e-3)
    (ours.log_prob(nabla.tensor(v)).sum() + ours.variance.sum()).backward()
    (theirs.log_prob(torch.tensor(v)).sum() + theirs.variance.sum()).backward()
    _close(lo.grad, lt.grad, rtol=rtol * 10, atol=rtol * 1e-2)
    _close(ko.grad, kt.grad, rtol=rtol * 10, atol=rtol * 1e-2)


@pytest.mark.parametrize("dtype", [nabla.float64, nabla.float32])
def test_von_mises_sample_statistics(dtype):
    loc = nabla.tensor([0.5, -3.0, 2.0], dtype=dtype)
    kappa = nabla.tensor([0.01, 1.0, 8.0], dtype=dtype)
    dist = D.VonMises(loc, kappa)
    nabla.manual_seed(1)
    s = dist.sample((20000,))
    assert s.dtype == dtype and tuple(s.shape) == (20000, 3) and not s.requires_grad
    assert bool(((s >= -math.pi) & (s < math.pi)).all())
    c, si = nabla.cos(s).double().mean(0), nabla.sin(s).double().mean(0)
    resultant = (c * c + si * si).sqrt().numpy()
    np.testing.assert_allclose(1 - resultant, dist.variance.double().numpy(), atol=0.015)
    angle = nabla.atan2(si, c).numpy()[1:]  # the first is nearly uniform: its mean angle is noise
    assert np.all(np.abs(np.angle(np.exp(1j * (angle - loc.double().numpy()[1:])))) < 0.05)


def test_von_mises_shapes_expand_and_validation():
    dist = D.VonMises(nabla.tensor([0.0, 1.0]), nabla.tensor(2.0))
    assert dist.batch_shape == (2,) and dist.event_shape == () and not dist.has_rsample
    wide = dist.expand((3, 2))
    assert wide.batch_shape == (3, 2) and tuple(wide.sample().shape) == (3, 2)
    _close(wide.log_prob(nabla.tensor(0.5)),
           TD.VonMises(torch.tensor([0.0, 1.0]), torch.tensor(2.0)).expand((3, 2)).log_prob(torch.tensor(0.5)),
           rtol=2e-6)
    assert D.VonMises.support is D.constraints.real
    assert D.VonMises.arg_constraints["concentration"] is D.constraints.positive
    with pytest.raises(NotImplementedError):
        dist.rsample()
    with pytest.raises(ValueError, match="concentration"):
        D.VonMises(nabla.tensor([0.0]), nabla.tensor([-1.0]), validate_args=True)
