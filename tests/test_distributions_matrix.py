"""LowRankMultivariateNormal, Wishart and LKJCholesky against torch.distributions (float64, float32 where
noted): log_prob, entropy, mean, mode, variance, the covariance / precision / Cholesky views and their
gradients, broadcast batch shapes, sample statistics with a seed, rsample gradients in expectation,
expand, supports, argument validation, and the KL divergences PyTorch has for them."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import nabla
import nabla.distributions as D

torch = pytest.importorskip("torch")
TD = torch.distributions
RNG = np.random.default_rng(23)

LOC = RNG.standard_normal((2, 4))
W = RNG.standard_normal((4, 2))          # broadcast against loc's batch
DIAG = RNG.uniform(0.5, 2.0, (2, 4))
A = RNG.standard_normal((2, 3, 3))
COV3 = A @ A.transpose(0, 2, 1) + np.eye(3)
DF = np.array([2.5, 6.0])                # 2.5: between p - 1 and p, where singular samples are possible


def _pairs(*arrays, grad=True):
    ours = [nabla.tensor(a).requires_grad_(grad) for a in arrays]
    theirs = [torch.tensor(a).requires_grad_(grad) for a in arrays]
    return ours, theirs


def _close(ours, theirs, rtol=1e-9, atol=1e-11):
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=rtol, atol=atol)


def _grads_match(ours_out, theirs_out, ours_in, theirs_in, rtol=1e-7, project=lambda g: g):
    g = RNG.standard_normal(tuple(theirs_out.shape))
    (ours_out * nabla.tensor(g)).sum().backward()
    (theirs_out * torch.tensor(g)).sum().backward()
    for a, b in zip(ours_in, theirs_in):
        if b.grad is None:  # an input the view does not use
            assert a.grad is None or not bool(a.grad.any())
        else:
            np.testing.assert_allclose(project(a.grad.numpy()), project(b.grad.numpy()), rtol=rtol, atol=1e-10)


LOWRANK_VIEWS = ["log_prob", "entropy", "mean", "mode", "variance", "stddev", "scale_tril", "covariance_matrix",
                 "precision_matrix"]


@pytest.mark.parametrize("view", LOWRANK_VIEWS)
def test_lowrank_matches_torch(view):
    ours_in, theirs_in = _pairs(LOC, W, DIAG)
    ours, theirs = D.LowRankMultivariateNormal(*ours_in), TD.LowRankMultivariateNormal(*theirs_in)
    assert ours.batch_shape == theirs.batch_shape == (2,) and ours.event_shape == (4,)
    if view == "log_prob":
        x = RNG.standard_normal((3, 2, 4))
        a, b = ours.log_prob(nabla.tensor(x)), theirs.log_prob(torch.tensor(x))
    elif view == "entropy":
        a, b = ours.entropy(), theirs.entropy()
    else:
        a, b = getattr(ours, view), getattr(theirs, view)
    _close(a, b)
    _grads_match(a, b, ours_in, theirs_in)


def test_lowrank_in_float32():
    ours = D.LowRankMultivariateNormal(*[nabla.tensor(a.astype(np.float32)) for a in (LOC, W, DIAG)])
    theirs = TD.LowRankMultivariateNormal(*[torch.tensor(a.astype(np.float32)) for a in (LOC, W, DIAG)])
    x = RNG.standard_normal((3, 2, 4)).astype(np.float32)
    a = ours.log_prob(nabla.tensor(x))
    assert a.dtype == nabla.float32
    np.testing.assert_allclose(a.numpy(), theirs.log_prob(torch.tensor(x)).numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(ours.entropy().numpy(), theirs.entropy().numpy(), rtol=1e-5)


def test_lowrank_samples_and_rsample_gradients():
    loc, W_, d = [nabla.tensor(a[0] if a.ndim == 2 and a.shape[0] == 2 else a).requires_grad_() for a in
                  (LOC, W, DIAG)]
    dist = D.LowRankMultivariateNormal(loc, W_, d)
    nabla.manual_seed(0)
    n = 40000
    x = dist.rsample((n,))
    assert tuple(x.shape) == (n, 4) and x.requires_grad
    xs = x.detach().numpy()
    np.testing.assert_allclose(xs.mean(0), LOC[0], atol=4 * np.sqrt(dist.variance.detach().numpy().max() / n))
    np.testing.assert_allclose(np.cov(xs.T), dist.covariance_matrix.detach().numpy(), atol=0.1)
    # E[sum x^2] = |loc|^2 + |W|^2 + sum d: its gradient is 2 loc, 2 W, 1 (in expectation)
    (x.pow(2).sum() / n).backward()
    np.testing.assert_allclose(loc.grad.numpy(), 2 * LOC[0], atol=0.06)
    np.testing.assert_allclose(W_.grad.numpy(), 2 * W, atol=0.1)
    np.testing.assert_allclose(d.grad.numpy(), np.ones(4), atol=0.06)
    assert not dist.sample().requires_grad


def test_lowrank_expand_and_validation():
    dist = D.LowRankMultivariateNormal(*[nabla.tensor(a) for a in (LOC, W, DIAG)])
    wide = dist.expand((3, 2))
    theirs = TD.LowRankMultivariateNormal(*[torch.tensor(a) for a in (LOC, W, DIAG)]).expand((3, 2))
    assert wide.batch_shape == (3, 2) and tuple(wide.cov_factor.shape) == (3, 2, 4, 2)
    x = RNG.standard_normal((3, 2, 4))
    _close(wide.log_prob(nabla.tensor(x)), theirs.log_prob(torch.tensor(x)))
    assert tuple(wide.sample((5,)).shape) == (5, 3, 2, 4)
    assert repr(D.LowRankMultivariateNormal.arg_constraints["cov_diag"]) == "IndependentConstraint(GreaterThan(" \
        "lower_bound=0.0), 1)"
    assert D.LowRankMultivariateNormal.support is D.constraints.real_vector
    with pytest.raises(ValueError, match="loc must be at least one-dimensional"):
        D.LowRankMultivariateNormal(nabla.tensor(0.0), nabla.tensor(W), nabla.tensor(DIAG))
    with pytest.raises(ValueError, match="cov_factor must be at least two-dimensional"):
        D.LowRankMultivariateNormal(nabla.tensor(LOC), nabla.tensor(DIAG[0]), nabla.tensor(DIAG))
    with pytest.raises(ValueError, match="cov_factor must be a batch of matrices with shape 4 x m"):
        D.LowRankMultivariateNormal(nabla.tensor(LOC), nabla.tensor(W.T), nabla.tensor(DIAG))
    with pytest.raises(ValueError, match="cov_diag must be a batch of vectors"):
        D.LowRankMultivariateNormal(nabla.tensor(LOC), nabla.tensor(W), nabla.tensor(DIAG[:, :3]))
    with pytest.raises(ValueError, match="Incompatible batch shapes"):
        D.LowRankMultivariateNormal(nabla.tensor(LOC), nabla.tensor(np.ones((3, 4, 2))), nabla.tensor(DIAG))
    with pytest.raises(ValueError, match="cov_diag"):
        bad = DIAG.copy()
        bad[0, 0] = -100.0  # the capacitance stays positive definite: the constraint is what refuses it
        D.LowRankMultivariateNormal(nabla.tensor(LOC), nabla.tensor(W), nabla.tensor(bad), validate_args=True)


def _mvn(lib, loc, cov):
    return lib.distributions.MultivariateNormal((nabla if lib is nabla else torch).tensor(loc),
                                                covariance_matrix=(nabla if lib is nabla else torch).tensor(cov))


B = RNG.standard_normal((4, 4))
COV4 = B @ B.T + np.eye(4)


@pytest.mark.parametrize("pair", ["lowrank-lowrank", "mvn-lowrank", "lowrank-mvn"])
def test_lowrank_kl_matches_torch(pair):
    ours_in, theirs_in = _pairs(LOC, np.broadcast_to(W, (2, 4, 2)).copy(), DIAG)
    q_args = (LOC[::-1].copy() * 0.5, RNG.standard_normal((2, 4, 3)), DIAG[::-1].copy())

    def build(lib, side, args):
        if side == "mvn":
            return _mvn(lib, LOC[0] + 0.3, COV4)
        return lib.distributions.LowRankMultivariateNormal(*args)

    first, second = pair.split("-")
    ours_p = build(nabla, first, ours_in) if first == "lowrank" else build(nabla, first, None)
    theirs_p = build(torch, first, theirs_in) if first == "lowrank" else build(torch, first, None)
    if second == "lowrank":
        ours_q = D.LowRankMultivariateNormal(*(ours_in if first == "mvn" else [nabla.tensor(a) for a in q_args]))
        theirs_q = TD.LowRankMultivariateNormal(*(theirs_in if first == "mvn" else [torch.tensor(a) for a in q_args]))
    else:
        ours_q, theirs_q = build(nabla, "mvn", None), build(torch, "mvn", None)
    a, b = D.kl_divergence(ours_p, ours_q), TD.kl_divergence(theirs_p, theirs_q)
    _close(a, b, rtol=1e-8, atol=1e-10)
    assert bool((a > 0).all())
    _grads_match(a, b, ours_in, theirs_in)
    if pair == "lowrank-mvn":  # cov_diag's batch wider than cov_factor's, which PyTorch fails to expand
        wide = D.LowRankMultivariateNormal(nabla.tensor(LOC), nabla.tensor(W), nabla.tensor(DIAG))
        full = TD.LowRankMultivariateNormal(torch.tensor(LOC), torch.tensor(W).expand(2, 4, 2), torch.tensor(DIAG))
        _close(D.kl_divergence(wide, ours_q), TD.kl_divergence(full, theirs_q), rtol=1e-8, atol=1e-10)
    other = D.LowRankMultivariateNormal(nabla.zeros(3), nabla.ones(3, 1), nabla.ones(3))
    with pytest.raises(ValueError, match="different event shapes"):
        D.kl_divergence(ours_p, other)


WISHART_VIEWS = ["log_prob", "entropy", "mean", "mode", "variance", "scale_tril", "covariance_matrix",
                 "precision_matrix"]


@pytest.mark.parametrize("given", ["covariance_matrix", "precision_matrix", "scale_tril"])
@pytest.mark.parametrize("view", WISHART_VIEWS)
def test_wishart_matches_torch(given, view):
    matrix = {"covariance_matrix": COV3, "precision_matrix": np.linalg.inv(COV3),
              "scale_tril": np.linalg.cholesky(COV3)}[given]
    ours_in, theirs_in = _pairs(DF + 1.5, matrix)
    ours = D.Wishart(ours_in[0], **{given: ours_in[1]})
    theirs = TD.Wishart(theirs_in[0], **{given: theirs_in[1]})
    assert ours.batch_shape == (2,) and ours.event_shape == (3, 3)
    if view == "log_prob":
        X = RNG.standard_normal((4, 2, 3, 3))
        X = X @ X.transpose(0, 1, 3, 2) + np.eye(3)
        a, b = ours.log_prob(nabla.tensor(X)), theirs.log_prob(torch.tensor(X))
    elif view == "entropy":
        a, b = ours.entropy(), theirs.entropy()
    else:
        a, b = getattr(ours, view), getattr(theirs, view)
    _close(a, b, rtol=1e-8, atol=1e-9)
    if view != "mode":
        # a scale_tril's upper triangle is never read: nabla gives it no gradient, PyTorch's cholesky_solve does
        _grads_match(a, b, ours_in, theirs_in, rtol=1e-6, project=np.tril if given == "scale_tril" else lambda g: g)


def test_wishart_bregman_entropy_and_kl_match_torch():
    ours_in, theirs_in = _pairs(DF + 2, COV3)
    ours, theirs = D.Wishart(ours_in[0], ours_in[1]), TD.Wishart(theirs_in[0], theirs_in[1])
    _close(D.ExponentialFamily.entropy(ours), theirs.entropy(), rtol=1e-8)
    q_o = D.Wishart(nabla.tensor(DF + 3), scale_tril=nabla.tensor(np.linalg.cholesky(COV3[::-1].copy())))
    q_t = TD.Wishart(torch.tensor(DF + 3), scale_tril=torch.tensor(np.linalg.cholesky(COV3[::-1].copy())))
    a, b = D.kl_divergence(q_o, ours), TD.kl_divergence(q_t, theirs)
    _close(a, b, rtol=1e-8, atol=1e-10)
    _grads_match(a, b, ours_in, theirs_in, rtol=1e-6)


def test_wishart_samples_and_rsample_gradient():
    df = nabla.tensor([4.0, 9.0]).double().requires_grad_()
    cov = nabla.tensor(COV3)
    dist = D.Wishart(df, covariance_matrix=cov)
    nabla.manual_seed(3)
    n = 20000
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # df > p: no sample may be singular
        x = dist.rsample((n,))
    assert tuple(x.shape) == (n, 2, 3, 3) and bool(D.constraints.positive_definite.check(x).all())
    se = np.sqrt(dist.variance.detach().numpy() / n)
    assert np.all(np.abs(x.detach().mean(0).numpy() - dist.mean.detach().numpy()) < 4.5 * se)
    # E[X] = df * Sigma: the expected gradient of sum X in df is sum Sigma
    (x.sum() / n).backward()
    np.testing.assert_allclose(df.grad.numpy(), COV3.sum(axis=(1, 2)), rtol=0.05)


def test_wishart_redraws_singular_samples_with_a_warning():
    dist = D.Wishart(4.0, covariance_matrix=nabla.tensor(COV3))
    real = dist._bartlett_sampling
    calls = []

    def first_singular(sample_shape=()):
        x = real(sample_shape)
        calls.append(1)
        return x * 0 if len(calls) == 1 else x  # the first draw: all zero, not positive definite

    dist._bartlett_sampling = first_singular
    with pytest.warns(UserWarning, match="Singular sample detected"):
        x = dist.rsample((3,))
    assert len(calls) == 2 and bool(D.constraints.positive_definite.check(x).all())
    calls.clear()
    dist._bartlett_sampling = lambda sample_shape=(): calls.append(1) or real(sample_shape) * 0
    with pytest.warns(UserWarning, match="Singular sample detected"):
        x = dist.rsample((3,), max_try_correction=2)
    assert len(calls) == 3 and not bool(D.constraints.positive_definite.check(x).any())


def test_wishart_expand_and_validation():
    dist = D.Wishart(3.0, covariance_matrix=nabla.tensor(COV3))
    assert dist.batch_shape == (2,) and dist.df.shape == ()
    wide = dist.expand((4, 2))
    theirs = TD.Wishart(3.0, covariance_matrix=torch.tensor(COV3)).expand((4, 2))
    assert wide.batch_shape == (4, 2) and tuple(wide.sample().shape) == (4, 2, 3, 3)
    _close(wide.log_prob(nabla.tensor(COV3)), theirs.log_prob(torch.tensor(COV3)))
    _close(wide.entropy(), theirs.entropy())
    assert D.Wishart.support is D.constraints.positive_definite
    assert repr(dist.arg_constraints["df"]) == repr(theirs.arg_constraints["df"])
    with pytest.warns(UserWarning, match="Low df values detected"):
        D.Wishart(nabla.tensor(DF), nabla.tensor(COV3))
    with pytest.raises(ValueError, match="Exactly one of covariance_matrix or precision_matrix or scale_tril"):
        D.Wishart(4.0, nabla.tensor(COV3), scale_tril=nabla.tensor(COV3))
    with pytest.raises(ValueError, match="Exactly one"):
        D.Wishart(4.0)
    with pytest.raises(ValueError, match="at least two-dimensional"):
        D.Wishart(4.0, nabla.tensor([1.0, 2.0]))
    with pytest.raises(ValueError, match="expected to be greater than ndim - 1 = 2"):
        D.Wishart(2.0, nabla.tensor(COV3))
    with pytest.raises(ValueError, match="covariance_matrix"):
        D.Wishart(4.0, -nabla.tensor(COV3), validate_args=True)


@pytest.mark.parametrize("dim", [2, 4])
def test_lkj_cholesky_log_prob_matches_torch(dim):
    conc = np.array([0.5, 1.0, 3.0])
    ours_c, theirs_c = _pairs(conc)
    ours, theirs = D.LKJCholesky(dim, ours_c[0]), TD.LKJCholesky(dim, theirs_c[0])
    assert ours.batch_shape == (3,) and ours.event_shape == (dim, dim)
    torch.manual_seed(0)
    value = theirs.sample((5,))
    a, b = ours.log_prob(nabla.tensor(value.numpy())), theirs.log_prob(value)
    _close(a, b)
    _grads_match(a, b, ours_c, theirs_c)


@pytest.mark.parametrize("conc", [0.5, 1.0, 3.0])
def test_lkj_cholesky_samples_are_correlation_factors_with_the_lkj_marginals(conc):
    dim, n = 5, 20000
    dist = D.LKJCholesky(dim, conc)
    nabla.manual_seed(2)
    L = dist.sample((n,))
    assert tuple(L.shape) == (n, dim, dim) and bool(D.constraints.corr_cholesky.check(L).all())
    corr = (L @ L.mT).numpy()
    np.testing.assert_allclose(np.diagonal(corr, axis1=1, axis2=2), 1.0, atol=1e-6)
    i, j = np.tril_indices(dim, -1)
    off = corr[:, i, j]
    # LKJ is exchangeable: every correlation has (r + 1) / 2 ~ Beta(b, b), b = conc - 1 + dim / 2.
    # (PyTorch's sampler, Beta(k - 1/2, .) for row k, fails this from the third row on.)
    b = conc - 1 + dim / 2
    np.testing.assert_allclose(off.var(0), 1 / (2 * b + 1), rtol=0.04)
    assert np.all(np.abs(off.mean(0)) < 4 * np.sqrt(off.var(0) / n))


def test_lkj_cholesky_expand_and_validation():
    dist = D.LKJCholesky(3, nabla.tensor([1.0, 2.0]))
    wide = dist.expand((4, 2))
    assert wide.batch_shape == (4, 2) and tuple(wide.sample().shape) == (4, 2, 3, 3)
    theirs = TD.LKJCholesky(3, torch.tensor([1.0, 2.0])).expand((4, 2))
    torch.manual_seed(1)
    v = theirs.sample()
    _close(wide.log_prob(nabla.tensor(v.numpy())), theirs.log_prob(v), rtol=2e-6, atol=1e-6)
    assert D.LKJCholesky.support is D.constraints.corr_cholesky and not D.LKJCholesky.has_rsample
    assert D.LKJCholesky(2).batch_shape == ()
    with pytest.raises(ValueError, match="greater than or equal to 2. Found dim=1"):
        D.LKJCholesky(1)
    with pytest.raises(ValueError, match="concentration"):
        D.LKJCholesky(3, nabla.tensor([-1.0]), validate_args=True)
    with pytest.raises(ValueError, match="support"):
        dist.log_prob(nabla.ones(2, 3, 3))
