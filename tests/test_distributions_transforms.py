"""torch.distributions.transforms, constraints and the biject_to / transform_to registries: every
transform's forward, inverse, log |det J| and shapes against torch in float64 (batched inputs),
gradients through them, caching, the functor transforms (Cat, Stack, Independent, Reshape,
CumulativeDistribution), constraint checks, and which transform each registry picks."""
from __future__ import annotations

import numpy as np
import pytest

import nabla
from nabla.distributions import constraints as C
from nabla.distributions import transforms as T

torch = pytest.importorskip("torch")
TD = torch.distributions

RNG = np.random.default_rng(0)
VEC = RNG.standard_normal((3, 6))
MAT = RNG.standard_normal((2, 4, 4))
POS = RNG.uniform(0.2, 3.0, (3, 5))


def _pair(name, *args, **kw):
    return getattr(T, name)(*args, **kw), getattr(TD.transforms, name)(*args, **kw)


def _close(a, b, rtol=1e-10, atol=1e-12):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=rtol, atol=atol)


# (transform name, constructor args, input)
CASES = [
    ("ExpTransform", (), VEC), ("SigmoidTransform", (), VEC), ("TanhTransform", (), VEC),
    ("SoftplusTransform", (), VEC), ("PowerTransform", (2.5,), POS), ("AffineTransform", (0.5, -2.0), VEC),
    ("SoftmaxTransform", (), VEC), ("StickBreakingTransform", (), VEC), ("CorrCholeskyTransform", (), VEC),
    ("LowerCholeskyTransform", (), MAT), ("PositiveDefiniteTransform", (), MAT),
    ("ReshapeTransform", ((6,), (2, 3)), VEC),
]


@pytest.mark.parametrize("name,args,x", CASES, ids=[c[0] for c in CASES])
def test_transform_matches_torch(name, args, x):
    ours, theirs = _pair(name, *args)
    nx = nabla.tensor(x, requires_grad=True)
    tx = torch.tensor(x, requires_grad=True)
    y, ty = ours(nx), theirs(tx)
    _close(y, ty)
    assert tuple(ours.forward_shape(x.shape)) == tuple(theirs.forward_shape(x.shape))
    assert tuple(ours.inverse_shape(tuple(ty.shape))) == tuple(theirs.inverse_shape(ty.shape))
    _close(ours.inv(y), theirs.inv(ty), rtol=1e-6, atol=1e-10)  # torch's PowerTransform holds 2.5 in float32
    if ours.bijective:
        _close(ours.inv(y), nx, rtol=1e-9, atol=1e-10)
    assert ours.domain.event_dim == theirs.domain.event_dim
    assert ours.codomain.event_dim == theirs.codomain.event_dim
    assert ours.bijective == theirs.bijective
    assert bool(ours.codomain.check(y.detach()).all())
    if name in ("SoftmaxTransform", "LowerCholeskyTransform", "PositiveDefiniteTransform"):
        with pytest.raises(NotImplementedError):
            theirs.log_abs_det_jacobian(tx, ty)
        return
    ladj, tladj = ours.log_abs_det_jacobian(nx, y), theirs.log_abs_det_jacobian(tx, ty)
    _close(ladj, tladj)
    g = RNG.standard_normal(tuple(ty.shape))
    (y * nabla.tensor(g)).sum().backward()
    (ty * torch.tensor(g)).sum().backward()
    _close(nx.grad, tx.grad)


def test_stick_breaking_jacobian_against_finite_differences():
    """log |det J| of R^3 -> simplex, from the Jacobian of the first 3 outputs (the last is 1 - sum)."""
    t = T.StickBreakingTransform()
    x = np.array([0.3, -1.2, 0.7])
    h = 1e-6
    jac = np.stack([(t(nabla.tensor(x + h * e)).numpy() - t(nabla.tensor(x - h * e)).numpy())[:3] / (2 * h)
                    for e in np.eye(3)], axis=1)
    got = t.log_abs_det_jacobian(nabla.tensor(x), t(nabla.tensor(x))).item()
    assert abs(got - np.log(abs(np.linalg.det(jac)))) < 1e-7


def test_with_cache_returns_the_cached_inverse():
    t = T.ExpTransform().with_cache(1)
    x = nabla.tensor([0.5, 1.0])
    y = t(x)
    assert t.inv(y) is x and t(x) is y
    assert T.ExpTransform().with_cache(0) == T.ExpTransform()
    a = T.AffineTransform(1.0, 2.0).with_cache(1)
    assert a._cache_size == 1 and a.scale == 2.0
    assert T.ComposeTransform([T.ExpTransform(), a]).with_cache(1).parts[0]._cache_size == 1


def test_independent_transform_sums_the_log_det():
    ours, theirs = T.IndependentTransform(T.ExpTransform(), 1), TD.transforms.IndependentTransform(
        TD.transforms.ExpTransform(), 1)
    x, tx = nabla.tensor(VEC), torch.tensor(VEC)
    _close(ours.log_abs_det_jacobian(x, ours(x)), theirs.log_abs_det_jacobian(tx, theirs(tx)))
    assert ours.domain.event_dim == 1 and ours.codomain.event_dim == 1
    with pytest.raises(ValueError, match="Too few dimensions"):
        T.IndependentTransform(T.ExpTransform(), 2)(nabla.tensor([1.0]))


def test_reshape_transform_errors_as_torch():
    with pytest.raises(ValueError, match="different numbers of elements"):
        T.ReshapeTransform((2, 3), (5,))
    with pytest.raises(ValueError, match="Shape mismatch"):
        T.ReshapeTransform((6,), (2, 3)).forward_shape((4, 5))


def test_cat_and_stack_transforms_match_torch():
    x = RNG.standard_normal((4, 5))
    ours = T.CatTransform([T.ExpTransform(), T.identity_transform, T.SigmoidTransform()], dim=1, lengths=[2, 2, 1])
    theirs = TD.transforms.CatTransform([TD.transforms.ExpTransform(), TD.transforms.identity_transform,
                                         TD.transforms.SigmoidTransform()], dim=1, lengths=[2, 2, 1])
    nx, tx = nabla.tensor(x), torch.tensor(x)
    _close(ours(nx), theirs(tx))
    _close(ours.inv(ours(nx)), nx)
    _close(ours.log_abs_det_jacobian(nx, ours(nx)), theirs.log_abs_det_jacobian(tx, theirs(tx)))
    with pytest.raises(AssertionError, match="must equal length 5"):
        ours(nabla.ones(4, 3))
    ours = T.StackTransform([T.ExpTransform(), T.TanhTransform()], dim=1)
    theirs = TD.transforms.StackTransform([TD.transforms.ExpTransform(), TD.transforms.TanhTransform()], dim=1)
    x = RNG.standard_normal((3, 2))
    nx, tx = nabla.tensor(x), torch.tensor(x)
    _close(ours(nx), theirs(tx))
    _close(ours.log_abs_det_jacobian(nx, ours(nx)), theirs.log_abs_det_jacobian(tx, theirs(tx)))
    assert bool(ours.codomain.check(ours(nx)).all())


def test_cumulative_distribution_transform():
    ours = T.CumulativeDistributionTransform(nabla.distributions.Normal(0.5, 2.0))
    theirs = TD.transforms.CumulativeDistributionTransform(TD.Normal(0.5, 2.0))
    x = RNG.standard_normal(5)
    nx, tx = nabla.tensor(x), torch.tensor(x)
    _close(ours(nx), theirs(tx))
    _close(ours.inv(ours(nx)), nx, rtol=1e-8)
    _close(ours.log_abs_det_jacobian(nx, ours(nx)), theirs.log_abs_det_jacobian(tx, theirs(tx)))


CONSTRAINTS = [
    ("real", lambda c: c.real), ("positive", lambda c: c.positive), ("nonnegative", lambda c: c.nonnegative),
    ("greater_than", lambda c: c.greater_than(1.5)), ("less_than", lambda c: c.less_than(-2.0)),
    ("unit_interval", lambda c: c.unit_interval), ("interval", lambda c: c.interval(-1.0, 3.0)),
    ("half_open_interval", lambda c: c.half_open_interval(0.0, 2.0)), ("simplex", lambda c: c.simplex),
    ("real_vector", lambda c: c.real_vector), ("corr_cholesky", lambda c: c.corr_cholesky),
    ("lower_cholesky", lambda c: c.lower_cholesky), ("positive_definite", lambda c: c.positive_definite),
    ("cat", lambda c: c.cat([c.positive, c.real], 0, [2, 1])), ("stack", lambda c: c.stack([c.positive, c.unit_interval], 1)),
]


@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
@pytest.mark.parametrize("name,make", CONSTRAINTS, ids=[c[0] for c in CONSTRAINTS])
def test_registries_pick_torchs_transform(registry, name, make):
    ours_reg, theirs_reg = getattr(nabla.distributions, registry), getattr(TD, registry)
    try:
        theirs = theirs_reg(make(TD.constraints))
    except NotImplementedError:
        with pytest.raises(NotImplementedError, match="Cannot transform"):
            ours_reg(make(C))
        return
    ours = ours_reg(make(C))
    assert type(ours).__name__ == type(theirs).__name__
    shape = {"simplex": (3, 4), "corr_cholesky": (3, 6), "lower_cholesky": (2, 3, 3),
             "positive_definite": (2, 3, 3), "cat": (3, 2), "stack": (4, 2)}.get(name, (3, 4))
    x = RNG.standard_normal(shape)
    y, ty = ours(nabla.tensor(x)), theirs(torch.tensor(x))
    _close(y, ty)
    assert bool(make(C).check(y).all())
    np.testing.assert_array_equal(make(C).check(y).numpy(), make(TD.constraints).check(ty).numpy())


def test_registry_register_and_errors():
    reg = nabla.distributions.constraint_registry.ConstraintRegistry()
    with pytest.raises(NotImplementedError, match="Cannot transform _Real constraints"):
        reg(C.real)
    reg.register(C.real, lambda c: T.ExpTransform())
    assert isinstance(reg(C.real), T.ExpTransform)
    with pytest.raises(TypeError, match="Expected constraint"):
        reg.register(3, lambda c: None)


@pytest.mark.parametrize("name,value", [
    ("lower_triangular", MAT), ("lower_cholesky", MAT), ("square", MAT), ("symmetric", MAT + MAT.swapaxes(-1, -2)),
    ("positive_semidefinite", MAT @ MAT.swapaxes(-1, -2)), ("positive_definite", MAT @ MAT.swapaxes(-1, -2)),
    ("corr_cholesky", np.eye(3)[None].repeat(2, 0)), ("simplex", np.array([[0.2, 0.8], [0.5, 0.6]])),
])
def test_constraint_checks_match_torch(name, value):
    np.testing.assert_array_equal(getattr(C, name).check(nabla.tensor(value)).numpy(),
                                  getattr(TD.constraints, name).check(torch.tensor(value)).numpy())
    assert getattr(C, name).event_dim == getattr(TD.constraints, name).event_dim


def test_multinomial_and_mixture_constraints():
    v = np.array([[1.0, 2.0, 0.0], [3.0, 2.0, 1.0]])
    np.testing.assert_array_equal(C.multinomial(4).check(nabla.tensor(v)).numpy(),
                                  TD.constraints.multinomial(4).check(torch.tensor(v)).numpy())
    m, tm = C.MixtureSameFamilyConstraint(C.positive), TD.constraints.MixtureSameFamilyConstraint(
        TD.constraints.positive)
    w = np.array([1.0, -1.0, 2.0])
    np.testing.assert_array_equal(m.check(nabla.tensor(w)).numpy(), tm.check(torch.tensor(w)).numpy())
