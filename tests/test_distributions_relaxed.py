"""RelaxedBernoulli, RelaxedOneHotCategorical (and their logit / log bases), LogisticNormal,
OneHotCategoricalStraightThrough and MixtureSameFamily against torch.distributions (float64):
log_prob, cdf, moments and their gradients, shapes and expand, sample supports and statistics,
rsample gradients, argument errors."""
from __future__ import annotations

import numpy as np
import pytest

import nabla
import nabla.distributions as D

torch = pytest.importorskip("torch")
TD = torch.distributions
RNG = np.random.default_rng(9)

TEMP = np.array([0.6])
PROBS = RNG.uniform(0.1, 0.9, (2, 3))
SIMPLEX = RNG.dirichlet(np.ones(4), size=2)
LOC, SCALE = RNG.standard_normal((2, 3)), RNG.uniform(0.5, 2.0, (2, 3))

# name, params, values in the support
CASES = [
    ("RelaxedBernoulli", (TEMP, PROBS), RNG.uniform(0.05, 0.95, (4, 2, 3))),
    ("LogitRelaxedBernoulli", (TEMP, PROBS), RNG.standard_normal((4, 2, 3))),
    ("RelaxedOneHotCategorical", (TEMP, SIMPLEX), RNG.dirichlet(np.ones(4), size=(3, 2))),
    ("ExpRelaxedCategorical", (TEMP, SIMPLEX), np.log(RNG.dirichlet(np.ones(4), size=(3, 2)))),
    ("LogisticNormal", (LOC, SCALE), RNG.dirichlet(np.ones(4), size=(3, 2))),
]


def _class(lib, name):
    """The class by torch's name; the logit / log bases live in their modules, not at the top."""
    if lib is nabla:
        return getattr(nabla.distributions.relaxed, name)
    module = {"LogitRelaxedBernoulli": TD.relaxed_bernoulli, "ExpRelaxedCategorical": TD.relaxed_categorical}
    return getattr(module.get(name, TD), name)


def _build(lib, name, params):
    ts = [(nabla.tensor(p) if lib is nabla else torch.tensor(p)).requires_grad_() for p in params]
    return _class(lib, name)(*ts), ts


@pytest.mark.parametrize("name,params,values", CASES, ids=[c[0] for c in CASES])
def test_log_prob_and_gradients_match_torch(name, params, values):
    ours, op = _build(nabla, name, params)
    theirs, tp = _build(torch, name, params)
    assert ours.batch_shape == theirs.batch_shape and ours.event_shape == theirs.event_shape
    out, ref = ours.log_prob(nabla.tensor(values)), theirs.log_prob(torch.tensor(values))
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-10, atol=1e-12)
    out.sum().backward()
    ref.sum().backward()
    for o, t in zip(op, tp):
        np.testing.assert_allclose(o.grad.numpy(), t.grad.numpy(), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name,params,values", CASES, ids=[c[0] for c in CASES])
def test_rsample_support_shape_and_gradient(name, params, values):
    nabla.manual_seed(0)
    ours, op = _build(nabla, name, params)
    theirs, _ = _build(torch, name, params)
    s = ours.rsample((500,))
    assert tuple(s.shape) == (500,) + tuple(theirs.batch_shape) + tuple(theirs.event_shape)
    assert bool(theirs.support.check(torch.tensor(s.detach().numpy())).all())
    s.pow(2).sum().backward()
    assert all(t.grad is not None and np.all(np.isfinite(t.grad.numpy())) for t in op)
    shape = (5,) + tuple(theirs.batch_shape)
    e = ours.expand(shape)
    assert e.batch_shape == shape and tuple(e.sample().shape) == shape + tuple(theirs.event_shape)


def test_relaxed_bernoulli_statistics_follow_the_concrete_law():
    """P(X > 1/2) = probs for every temperature (the logistic noise is symmetric)."""
    nabla.manual_seed(1)
    s = D.RelaxedBernoulli(nabla.tensor([0.3]), nabla.tensor([0.2, 0.7])).sample((40000,)).numpy()
    np.testing.assert_allclose((s > 0.5).mean(0), [0.2, 0.7], atol=0.015)


def test_relaxed_one_hot_argmax_is_categorical():
    nabla.manual_seed(2)
    p = np.array([0.1, 0.2, 0.3, 0.4])
    s = D.RelaxedOneHotCategorical(nabla.tensor([0.5]), nabla.tensor(p)).sample((40000,)).numpy()
    np.testing.assert_allclose(np.bincount(s.argmax(-1), minlength=4) / 40000, p, atol=0.015)


def test_straight_through_passes_gradients_to_probs():
    p = nabla.tensor(SIMPLEX, requires_grad=True)
    s = D.OneHotCategoricalStraightThrough(p).rsample((3,))
    assert tuple(s.shape) == (3, 2, 4) and np.all(s.detach().numpy().sum(-1) == 1)
    w = nabla.tensor(RNG.standard_normal((3, 2, 4)))
    (s * w).sum().backward()
    tp = torch.tensor(SIMPLEX, requires_grad=True)
    d = TD.OneHotCategoricalStraightThrough(tp)
    t = d.rsample((3,))
    (t * torch.tensor(w.numpy())).sum().backward()
    np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), rtol=1e-10)


def _mixtures(lib, event: bool):
    t = nabla.tensor if lib is nabla else torch.tensor
    mix = lib.distributions.Categorical(t(PROBS))
    if event:
        comp = lib.distributions.Independent(lib.distributions.Normal(t(LOC[..., None] * np.ones(2)),
                                                                      t(SCALE[..., None] * np.ones(2))), 1)
    else:
        comp = lib.distributions.Normal(t(LOC), t(SCALE))
    return lib.distributions.MixtureSameFamily(mix, comp)


@pytest.mark.parametrize("event", [False, True])
def test_mixture_same_family_matches_torch(event):
    ours, theirs = _mixtures(nabla, event), _mixtures(torch, event)
    assert ours.batch_shape == theirs.batch_shape and ours.event_shape == theirs.event_shape
    x = RNG.standard_normal((4,) + tuple(theirs.batch_shape) + tuple(theirs.event_shape))
    np.testing.assert_allclose(ours.log_prob(nabla.tensor(x)).numpy(), theirs.log_prob(torch.tensor(x)).numpy(),
                               rtol=1e-10)
    for m in ("mean", "variance"):
        np.testing.assert_allclose(getattr(ours, m).numpy(), getattr(theirs, m).numpy(), rtol=1e-10)
    if not event:
        np.testing.assert_allclose(ours.cdf(nabla.tensor(x)).numpy(), theirs.cdf(torch.tensor(x)).numpy(),
                                   rtol=1e-10)
    nabla.manual_seed(3)
    s = ours.sample((40000,)).numpy()
    assert s.shape == (40000,) + tuple(theirs.batch_shape) + tuple(theirs.event_shape)
    sd = np.sqrt(theirs.variance.numpy() / 40000)
    assert np.all(np.abs(s.mean(0) - theirs.mean.numpy()) < 5 * sd)
    e = ours.expand((3, 2))
    assert e.batch_shape == (3, 2) and tuple(e.sample().shape) == (3, 2) + tuple(theirs.event_shape)


def test_mixture_argument_errors_as_torch():
    for lib in (torch, nabla):
        t = nabla.tensor if lib is nabla else torch.tensor
        with pytest.raises(ValueError, match="Categorical"):
            lib.distributions.MixtureSameFamily(lib.distributions.Normal(t([0.0]), t([1.0])),
                                                lib.distributions.Normal(t([0.0]), t([1.0])))
        with pytest.raises(ValueError, match="does not equal"):
            lib.distributions.MixtureSameFamily(lib.distributions.Categorical(t([0.5, 0.5])),
                                                lib.distributions.Normal(t([0.0, 1.0, 2.0]), t([1.0, 1.0, 1.0])))
    with pytest.raises(ValueError, match="Either `probs` or `logits`"):
        D.RelaxedBernoulli(nabla.tensor([0.5]))
