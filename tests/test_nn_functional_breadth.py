"""The nn.functional forms written as compositions (margin and likelihood losses, shrink / prelu /
rrelu activations and their in-place spellings, unfold / fold, pdist, bilinear, local_response_norm,
lp_pool, channel_shuffle, affine_grid / grid_sample, conv_transpose1d, max_unpool, embedding_bag)
against torch 2.13 on the same inputs: values, shapes, dtypes and input gradients in float64 and
float32, strided and empty inputs, and the exception type and message of bad input."""
from __future__ import annotations

import numpy as np
import pytest

import nabla
import nabla.nn.functional as F
from torch_reference import Const, convert_args

torch = pytest.importorskip("torch")
TF = torch.nn.functional
RNG = np.random.default_rng(23)
TOL = {np.float64: dict(rtol=1e-9, atol=1e-10), np.float32: dict(rtol=2e-5, atol=2e-5)}


def _x(*shape):
    return RNG.standard_normal(shape)


def _convert(v, dtype, to_torch: bool, leaves: list):
    if isinstance(v, dict):
        return {k: _convert(e, dtype, to_torch, leaves) for k, e in v.items()}
    return convert_args(v, dtype, to_torch, leaves)


def check(fn: str, *args, dtypes=(np.float64, np.float32), grad: bool = True, tol=None, **kwargs):
    """F.fn(*args, **kwargs) in nabla and torch: same shape, dtype, values and input gradients."""
    for dtype in dtypes:
        ours_leaves, their_leaves = [], []
        ours = getattr(F, fn)(*_convert(args, dtype, False, ours_leaves), **_convert(kwargs, dtype, False,
                                                                                     ours_leaves))
        theirs = getattr(TF, fn)(*_convert(args, dtype, True, their_leaves), **_convert(kwargs, dtype, True,
                                                                                      their_leaves))
        t = tol or TOL[dtype]
        assert tuple(ours.shape) == tuple(theirs.shape), (fn, ours.shape, theirs.shape)
        assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), **t)
        if not grad or not theirs.requires_grad:
            continue
        g = RNG.standard_normal(tuple(theirs.shape)).astype(dtype)
        (ours * nabla.tensor(g)).sum().backward()
        (theirs * torch.from_numpy(g)).sum().backward()
        for o, r in zip(ours_leaves, their_leaves):
            if r.grad is None:
                assert o.grad is None or not np.any(o.grad.numpy())
            else:
                assert o.grad is not None, fn
                np.testing.assert_allclose(o.grad.numpy(), r.grad.numpy(), **t)


def raises_like(fn: str, *args, **kwargs):
    """nabla raises the exception class torch raises, with the same message."""
    with pytest.raises(Exception) as theirs:
        getattr(TF, fn)(*_convert(args, np.float32, True, []), **kwargs)
    with pytest.raises(theirs.type) as ours:
        getattr(F, fn)(*_convert(args, np.float32, False, []), **kwargs)
    assert str(ours.value) == str(theirs.value).replace("torch.Size", "nabla.Size")


SIGNS = Const(np.where(RNG.random(6) > 0.5, 1.0, -1.0))
SIGNS_MAT = Const(np.where(RNG.random((4, 3)) > 0.5, 1.0, -1.0))
LABELS = Const((RNG.random((4, 5)) > 0.5).astype(np.float64))
COUNTS = Const(RNG.integers(0, 6, (4, 3)).astype(np.float64))

LOSSES = [
    ("margin_ranking_loss", (_x(6), _x(6), SIGNS), {}),
    ("margin_ranking_loss", (_x(6), _x(6), SIGNS), {"margin": 0.5, "reduction": "none"}),
    ("hinge_embedding_loss", (_x(4, 3), SIGNS_MAT), {"margin": 0.7}),
    ("hinge_embedding_loss", (_x(4, 3), SIGNS_MAT), {"reduction": "sum"}),
    ("cosine_embedding_loss", (_x(6, 4), _x(6, 4), SIGNS), {"margin": 0.2}),
    ("cosine_embedding_loss", (_x(6, 4), _x(6, 4), SIGNS), {"reduction": "none"}),
    ("cosine_embedding_loss", (_x(4), _x(4), Const(np.array(-1.0))), {}),
    ("soft_margin_loss", (_x(4, 3), SIGNS_MAT), {}),
    ("soft_margin_loss", (_x(4, 3), SIGNS_MAT), {"reduction": "none"}),
    ("multilabel_soft_margin_loss", (_x(4, 5), LABELS), {}),
    ("multilabel_soft_margin_loss", (_x(4, 5), LABELS), {"weight": Const(np.abs(_x(5))), "reduction": "none"}),
    ("multi_margin_loss", (_x(6, 4), RNG.integers(0, 4, 6)), {}),
    ("multi_margin_loss", (_x(6, 4), RNG.integers(0, 4, 6)), {"p": 2, "margin": 0.6, "reduction": "sum"}),
    ("multi_margin_loss", (_x(6, 4), RNG.integers(0, 4, 6)), {"weight": Const(np.abs(_x(4))), "reduction": "none"}),
    ("multi_margin_loss", (_x(4), np.array(2)), {}),
    ("multilabel_margin_loss", (_x(3, 5), np.array([[3, 0, -1, 1, 2], [1, 2, 3, 4, 0], [-1, 1, 1, 1, 1]])), {}),
    ("multilabel_margin_loss", (_x(3, 5), np.array([[4, 4, -1, 0, 0], [0, -1, 2, 2, 2], [2, 1, -1, 0, 0]])),
     {"reduction": "none"}),
    ("multilabel_margin_loss", (_x(4), np.array([1, 3, -1, 0])), {}),
    ("triplet_margin_loss", (_x(5, 4), _x(5, 4), _x(5, 4)), {}),
    ("triplet_margin_loss", (_x(5, 4), _x(5, 4), _x(5, 4)), {"p": 1, "swap": True, "margin": 2.0,
                                                            "reduction": "none"}),
    ("triplet_margin_with_distance_loss", (_x(5, 4), _x(5, 4), _x(5, 4)), {}),
    ("triplet_margin_with_distance_loss", (_x(5, 4), _x(5, 4), _x(5, 4)), {"swap": True, "reduction": "sum"}),
    ("poisson_nll_loss", (_x(4, 3), COUNTS), {}),
    ("poisson_nll_loss", (np.abs(_x(4, 3)) + 0.1, COUNTS), {"log_input": False, "full": True, "reduction": "none"}),
    ("poisson_nll_loss", (_x(4, 3), COUNTS), {"full": True, "reduction": "sum"}),
    ("gaussian_nll_loss", (_x(4, 3), _x(4, 3), np.abs(_x(4, 3))), {}),
    ("gaussian_nll_loss", (_x(4, 3), _x(4, 3), np.abs(_x(4, 1))), {"full": True, "reduction": "none"}),
    ("gaussian_nll_loss", (_x(4, 3), _x(4, 3), np.abs(_x(4)) * 1e-8), {"reduction": "sum"}),
]


@pytest.mark.parametrize("fn,args,kwargs", LOSSES, ids=[f"{c[0]}-{i}" for i, c in enumerate(LOSSES)])
def test_losses_match_torch(fn, args, kwargs):
    check(fn, *args, **kwargs)


def test_triplet_margin_with_custom_distance():
    a, p, n = _x(5, 4), _x(5, 4), _x(5, 4)
    for dtype in (np.float64,):
        ours = F.triplet_margin_with_distance_loss(
            *(nabla.tensor(v) for v in (a, p, n)), distance_function=lambda u, v: 1 - F.cosine_similarity(u, v),
            margin=0.3)
        theirs = TF.triplet_margin_with_distance_loss(
            *(torch.from_numpy(v) for v in (a, p, n)), distance_function=lambda u, v: 1 - TF.cosine_similarity(u, v),
            margin=0.3)
        np.testing.assert_allclose(ours.item(), theirs.item(), **TOL[dtype])


def test_loss_legacy_reduction_arguments_warn():
    x, y = nabla.tensor(_x(4, 3)), nabla.tensor(np.sign(_x(4, 3)))
    with pytest.warns(UserWarning, match="reduction='sum'"):
        out = F.soft_margin_loss(x, y, size_average=False)
    assert out.dim() == 0


@pytest.mark.parametrize("fn,args,kwargs", [
    ("multi_margin_loss", (_x(3, 4), np.array([0, 1, 2])), {"p": 3}),
    ("multi_margin_loss", (_x(3, 4), np.array([0, 1, 7])), {}),
    ("gaussian_nll_loss", (_x(4, 3), _x(4, 3), _x(4, 3) - 10), {}),
    ("gaussian_nll_loss", (_x(4, 3), _x(4, 3), np.abs(_x(2, 2))), {}),
    ("margin_ranking_loss", (_x(3), _x(3), _x(3, 1)), {}),
    ("soft_margin_loss", (_x(3), _x(3)), {"reduction": "avg"}),
    ("triplet_margin_with_distance_loss", (_x(3, 2), _x(3, 2), _x(3, 2)), {"margin": -1.0}),
])
def test_loss_errors_match_torch(fn, args, kwargs):
    raises_like(fn, *args, **kwargs)


ACTIVATIONS = [
    ("hardshrink", (_x(4, 5),), {}),
    ("hardshrink", (_x(4, 5)[:, ::2],), {"lambd": 1.1}),
    ("softshrink", (_x(4, 5),), {}),
    ("softshrink", (_x(3, 4).T,), {"lambd": 0.2}),
    ("prelu", (_x(2, 3, 4), np.abs(_x(3))), {}),
    ("prelu", (_x(2, 3, 4), np.abs(_x(1))), {}),
    ("prelu", (_x(5), np.abs(_x(1))), {}),
    ("rrelu", (_x(4, 5),), {}),
    ("rrelu", (_x(4, 5),), {"lower": 0.05, "upper": 0.5, "training": False}),
    ("hardshrink", (np.zeros((0, 3)),), {}),
    ("softshrink", (np.array(0.7),), {}),
]


@pytest.mark.parametrize("fn,args,kwargs", ACTIVATIONS, ids=[f"{c[0]}-{i}" for i, c in enumerate(ACTIVATIONS)])
def test_activations_match_torch(fn, args, kwargs):
    check(fn, *args, **kwargs)


@pytest.mark.parametrize("fn,args", [("elu_", (0.7,)), ("celu_", (1.3,)), ("relu_", ()), ("selu_", ()),
                                     ("leaky_relu_", (0.2,)), ("hardtanh_", (-0.5, 0.6)), ("threshold_", (0.1, -3.0)),
                                     ("rrelu_", (0.1, 0.3))])
def test_inplace_activations_write_their_input(fn, args):
    a = _x(3, 4)
    ours, theirs = nabla.tensor(a), torch.from_numpy(a.copy())
    r = getattr(F, fn)(ours, *args)
    getattr(TF, fn)(theirs, *args)
    assert r is ours
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12, atol=1e-12)


def test_activation_errors_match_torch():
    raises_like("softshrink", _x(3), lambd=-1.0)
    raises_like("prelu", _x(2, 3), Const(_x(2)))


def test_rrelu_training_slopes_lie_in_range():
    x = nabla.tensor(-np.abs(_x(2000)) - 0.1)
    y = F.rrelu(x, 0.1, 0.3, training=True)
    slopes = (y / x).numpy()
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3 and slopes.std() > 0.03
    pos = nabla.tensor(np.abs(_x(10)))
    np.testing.assert_array_equal(F.rrelu(pos, training=True).numpy(), pos.numpy())


def test_gumbel_softmax_soft_and_straight_through():
    nabla.manual_seed(0)
    logits = nabla.tensor(_x(50, 4), requires_grad=True)
    y = F.gumbel_softmax(logits, tau=0.5)
    np.testing.assert_allclose(y.sum(-1).detach().numpy(), np.ones(50), rtol=1e-12)
    h = F.gumbel_softmax(logits, hard=True, dim=-1)
    hv = h.detach().numpy()
    assert set(np.unique(hv)) <= {0.0, 1.0} and np.all(hv.sum(-1) == 1)
    (h * nabla.tensor(_x(50, 4))).sum().backward()
    assert logits.grad is not None and np.any(logits.grad.numpy())
    # the argmax favours the largest logit: with tau small, a dominant logit wins almost always
    wins = F.gumbel_softmax(nabla.tensor(np.tile([8.0, 0.0, 0.0], (200, 1))), hard=True).numpy()[:, 0].mean()
    assert wins > 0.95


@pytest.mark.parametrize("fn", ["alpha_dropout", "feature_alpha_dropout"])
def test_alpha_dropout_keeps_mean_and_variance(fn):
    nabla.manual_seed(1)
    x = nabla.tensor(_x(400, 50, 2))
    assert getattr(F, fn)(x, 0.3, training=False) is x
    y = getattr(F, fn)(x, 0.3, training=True).numpy()
    assert abs(y.mean()) < 0.05 and abs(y.std() - 1) < 0.05
    # each unit is either a * x + b_keep or the constant a * (-alpha) + b_keep ... (the dropped value)
    alpha, p = 1.7580993408473766, 0.3
    a = 1 / np.sqrt((alpha ** 2 * p + 1) * (1 - p))
    dropped = np.isclose(y, -alpha * a + alpha * a * p)
    kept = np.isclose(y, a * x.numpy() + alpha * a * p)
    assert np.all(dropped | kept) and abs(dropped.mean() - p) < 0.03
    if fn == "feature_alpha_dropout":  # whole channels drop together
        assert np.all(dropped.all(-1) == dropped.any(-1))
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        getattr(F, fn)(x, 1.5, True)


SPATIAL = [
    ("unfold", (_x(2, 3, 6, 7), 3), {}),
    ("unfold", (_x(2, 3, 6, 7), (2, 3)), {"dilation": (2, 1), "padding": 1, "stride": (2, 3)}),
    ("unfold", (_x(3, 5, 5), 2), {"stride": 2}),
    ("unfold", (_x(2, 6, 7, 3).transpose(0, 3, 1, 2), 2), {}),
    ("fold", (_x(2, 27, 20), (6, 7), 3), {}),
    ("fold", (_x(2, 18, 9), (6, 7), (2, 3)), {"dilation": (2, 1), "padding": 1, "stride": (2, 3)}),
    ("fold", (_x(8, 12), (4, 5), 2), {"stride": 1, "padding": 0}),
    ("pdist", (_x(5, 3),), {}),
    ("pdist", (_x(5, 3),), {"p": 1}),
    ("pdist", (_x(4, 3),), {"p": 3.5}),
    ("bilinear", (_x(5, 3), _x(5, 4), _x(2, 3, 4), _x(2)), {}),
    ("bilinear", (_x(2, 5, 3), _x(2, 5, 4), _x(6, 3, 4)), {}),
    ("local_response_norm", (_x(2, 6, 5), 3), {}),
    ("local_response_norm", (_x(2, 5, 4, 3), 4), {"alpha": 0.1, "beta": 0.5, "k": 2.0}),
    ("local_response_norm", (_x(1, 4, 2, 3, 2), 2), {"alpha": 0.3}),
    ("lp_pool1d", (np.abs(_x(2, 3, 9)), 2, 3), {}),
    ("lp_pool1d", (np.abs(_x(2, 3, 9)), 1.5, 2), {"stride": 1}),
    ("lp_pool2d", (np.abs(_x(2, 3, 6, 6)), 2, 2), {}),
    ("lp_pool2d", (np.abs(_x(2, 3, 7, 6)), 3, (3, 2)), {"stride": (2, 1), "ceil_mode": True}),
    ("channel_shuffle", (_x(2, 6, 3, 2), 3), {}),
    ("channel_shuffle", (_x(2, 4, 5), 2), {}),
    ("conv_transpose1d", (_x(2, 4, 7), _x(4, 3, 3)), {}),
    ("conv_transpose1d", (_x(2, 4, 7), _x(4, 3, 3), _x(6)), {"stride": 2, "padding": 1, "output_padding": 1,
                                                             "groups": 2, "dilation": 2}),
    ("conv_transpose1d", (_x(4, 7), _x(4, 2, 2)), {}),
]


@pytest.mark.parametrize("fn,args,kwargs", SPATIAL, ids=[f"{c[0]}-{i}" for i, c in enumerate(SPATIAL)])
def test_spatial_ops_match_torch(fn, args, kwargs):
    check(fn, *args, **kwargs)


def test_fold_inverts_unfold_counts():
    x = nabla.ones(1, 2, 5, 5)
    counts = F.fold(F.unfold(x, 3, padding=1), (5, 5), 3, padding=1)
    ref = TF.fold(TF.unfold(torch.ones(1, 2, 5, 5), 3, padding=1), (5, 5), 3, padding=1)
    np.testing.assert_array_equal(counts.numpy(), ref.numpy())


@pytest.mark.parametrize("fn,args,kwargs", [
    ("unfold", (_x(2, 3, 2, 2), 3), {}),
    ("fold", (_x(2, 27, 19), (6, 7), 3), {}),
    ("pdist", (_x(3),), {}),
    ("channel_shuffle", (_x(2, 5, 3), 2), {}),
    ("local_response_norm", (_x(3, 2), 2), {}),
])
def test_spatial_errors_match_torch(fn, args, kwargs):
    raises_like(fn, *args, **kwargs)


@pytest.mark.parametrize("fn", ["upsample_nearest", "upsample_bilinear"])
def test_upsample_aliases_warn_and_match(fn):
    a = _x(1, 2, 3, 4)
    with pytest.warns(UserWarning, match=f"`nn.functional.{fn}` is deprecated"):
        ours = getattr(F, fn)(nabla.tensor(a), scale_factor=2)
    theirs = getattr(TF, fn)(torch.from_numpy(a), scale_factor=2)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("size", [(2, 3, 4, 5), (2, 1, 1, 6), (2, 3, 2, 4, 3)])
def test_affine_grid_matches_torch(size, align_corners):
    theta = _x(2, 2, 3) if len(size) == 4 else _x(2, 3, 4)
    check("affine_grid", theta, size, align_corners=align_corners)


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_matches_torch(mode, padding_mode, align_corners):
    grid = RNG.uniform(-1.6, 1.6, (2, 4, 5, 2))
    grid[0, 0, 0] = [1.0, -1.0]  # on the edge
    check("grid_sample", _x(2, 3, 5, 6), grid if mode == "bilinear" else Const(grid), mode=mode,
          padding_mode=padding_mode, align_corners=align_corners)


def test_grid_sample_of_affine_grid_identity_is_the_input():
    x = nabla.tensor(_x(1, 2, 4, 5))
    theta = nabla.tensor(np.array([[[1.0, 0, 0], [0, 1.0, 0]]]))
    y = F.grid_sample(x, F.affine_grid(theta, (1, 2, 4, 5), align_corners=False), align_corners=False)
    np.testing.assert_allclose(y.numpy(), x.numpy(), rtol=1e-12, atol=1e-12)


UNPOOL = [((2, 3, 8), {"kernel_size": 2}), ((2, 3, 9), {"kernel_size": 3, "stride": 2, "padding": 1}),
          ((2, 3, 6, 8), {"kernel_size": 2}), ((2, 3, 7, 7), {"kernel_size": 3, "stride": 2, "padding": 1}),
          ((2, 3, 6, 7), {"kernel_size": 2, "output_size": (6, 7)}), ((3, 9), {"kernel_size": 2, "output_size": [9]})]


@pytest.mark.parametrize("shape,kwargs", UNPOOL)
def test_max_unpool_inverts_max_pool(shape, kwargs):
    nd = 2 if len(shape) == 4 else 1
    a = _x(*shape)
    pool = (TF.max_pool1d, TF.max_pool2d)[nd - 1]
    pool_args = {k: v for k, v in kwargs.items() if k != "output_size"}
    y, idx = pool(torch.from_numpy(a), return_indices=True, **pool_args)
    check(f"max_unpool{nd}d", y.numpy(), Const(idx.numpy()), **kwargs)


def test_max_unpool_rejects_bad_output_size():
    y, idx = TF.max_pool2d(torch.randn(1, 1, 4, 4), 2, return_indices=True)
    with pytest.raises(ValueError, match="invalid output_size"):
        F.max_unpool2d(nabla.tensor(y.numpy()), nabla.tensor(idx.numpy()), 2, output_size=(9, 9))


WEIGHT = _x(10, 4)
BAGS = [
    (np.array([1, 2, 4, 5, 4, 3, 2, 9]), np.array([0, 4]), {}),
    (np.array([1, 2, 4, 5, 4, 3, 2, 9]), np.array([0, 3, 3, 8]), {"include_last_offset": True}),
    (np.array([1, 2, 4, 5, 4, 3, 2, 9]), np.array([0, 2, 2, 5]), {"padding_idx": 4}),
    (np.array([[1, 2, 4], [4, 3, 2]]), None, {}),
    (np.array([[1, 2, 4], [4, 4, 2]]), None, {"padding_idx": 4}),
]


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("case", range(len(BAGS)))
def test_embedding_bag_matches_torch(mode, case):
    idx, offsets, kwargs = BAGS[case]
    check("embedding_bag", idx, WEIGHT, Const(offsets) if offsets is not None else None, mode=mode, **kwargs)


def test_embedding_bag_per_sample_weights():
    idx, offsets = np.array([1, 2, 4, 5, 4, 3]), np.array([0, 2, 2])
    check("embedding_bag", idx, WEIGHT, Const(offsets), mode="sum", per_sample_weights=_x(6))
    with pytest.raises(NotImplementedError, match="per_sample_weights is only supported for mode='sum'"):
        F.embedding_bag(nabla.tensor(idx), nabla.tensor(WEIGHT), nabla.tensor(offsets),
                        per_sample_weights=nabla.tensor(_x(6)))
    with pytest.raises(ValueError, match="offsets has to be a 1D Tensor but got None"):
        F.embedding_bag(nabla.tensor(idx), nabla.tensor(WEIGHT))
