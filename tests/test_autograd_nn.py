"""Gradients of the nn ops (nabla.nn.functional): finite-difference gradcheck in
float64 over attribute variants and non-contiguous inputs, gradgradcheck for the
losses and poolings, float32 gradients against PyTorch, and the backward kernels'
own checks."""
import re

import numpy as np
import pytest

import nabla as nb
import nabla.nn.functional as F
from nabla.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(1234)


def leaf(*shape, low=None, high=None):
    a = RNG.uniform(low, high, shape) if low is not None else RNG.standard_normal(shape)
    return nb.tensor(a, dtype=nb.float64, requires_grad=True)


def ints(a):
    return nb.tensor(np.asarray(a, dtype=np.int64))


# ---- convolutions ----

@pytest.mark.parametrize("kw", [
    dict(),
    dict(stride=2, padding=1),
    dict(stride=(2, 1), padding=(1, 2), dilation=(1, 2), groups=2),
    dict(padding="same", dilation=2),
    dict(padding=(1, 0), dilation=(2, 1), groups=2),  # stride 1: the input gradient as a forward convolution
])
def test_conv2d_gradcheck(kw):
    x, w, b = leaf(2, 4, 5, 4), leaf(2, 4 // kw.get("groups", 1), 3, 2), leaf(2)
    assert gradcheck(lambda x, w, b: F.conv2d(x, w, b, **kw), (x, w, b))


def test_conv2d_gradcheck_noncontiguous_and_1x1():
    x, w = leaf(1, 3, 4, 5), leaf(2, 3, 1, 1)
    assert gradcheck(lambda x, w: F.conv2d(x.transpose(2, 3), w), (x, w))  # 1x1 direct path, strided input
    x2, w2 = leaf(1, 2, 5, 5), leaf(2, 2, 2, 3)
    assert gradcheck(lambda x, w: F.conv2d(x[:, :, ::2, 1:], w.transpose(2, 3)), (x2, w2))


@pytest.mark.parametrize("kw", [dict(), dict(stride=2, padding=1, dilation=2), dict(padding="same", groups=2)])
def test_conv1d_gradcheck(kw):
    x, w, b = leaf(2, 4, 7), leaf(3 * kw.get("groups", 1), 4 // kw.get("groups", 1), 2), leaf(3 * kw.get("groups", 1))
    assert gradcheck(lambda x, w, b: F.conv1d(x, w, b, **kw), (x, w, b))


@pytest.mark.parametrize("kw", [dict(), dict(stride=2, padding=1, output_padding=1), dict(stride=(1, 2), groups=2,
                                                                                         dilation=(2, 1))])
def test_conv_transpose2d_gradcheck(kw):
    g = kw.get("groups", 1)
    x, w, b = leaf(2, 4, 3, 3), leaf(4, 2 // g * g // g, 2, 3), leaf(2 // g * g)
    w = leaf(4, 2, 2, 3) if g == 1 else leaf(4, 1, 2, 3)
    b = leaf(2 if g == 1 else 2)
    assert gradcheck(lambda x, w, b: F.conv_transpose2d(x, w, b, **kw), (x, w, b))


def test_conv_grad_of_grad_is_refused():
    x, w = leaf(1, 2, 4, 4), leaf(2, 2, 3, 3)
    y = F.conv2d(x, w).sum()
    gx, = nb.autograd.grad(y, [x], create_graph=True)
    with pytest.raises(NotImplementedError, match="ConvolutionBackward0.*once differentiable"):
        gx.sum().backward()


# ---- pooling ----

POOLS = [
    ("max", lambda x: F.max_pool2d(x, 2)),
    ("max_pad_dil_ceil", lambda x: F.max_pool2d(x, 3, stride=2, padding=1, dilation=1, ceil_mode=True)),
    ("max_dilation", lambda x: F.max_pool2d(x, 2, stride=1, dilation=2)),
    ("avg", lambda x: F.avg_pool2d(x, 2)),
    ("avg_pad_ceil", lambda x: F.avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True)),
    ("avg_exclude_pad", lambda x: F.avg_pool2d(x, 3, stride=2, padding=1, count_include_pad=False)),
    ("avg_divisor", lambda x: F.avg_pool2d(x, (2, 3), stride=(1, 2), divisor_override=5)),
    ("adaptive", lambda x: F.adaptive_avg_pool2d(x, (3, 2))),
    ("adaptive_up", lambda x: F.adaptive_avg_pool2d(x, 7)),
]


@pytest.mark.parametrize("name,fn", POOLS, ids=[p[0] for p in POOLS])
def test_pool_gradcheck(name, fn):
    x = nb.tensor(RNG.permutation(2 * 2 * 5 * 6).reshape(2, 2, 5, 6) / 7.0, requires_grad=True)  # distinct maxima
    assert gradcheck(fn, (x,))
    assert gradcheck(lambda t: fn(t.transpose(2, 3)), (x,))


@pytest.mark.parametrize("name,fn", [p for p in POOLS if not p[0].startswith("max")],
                         ids=[p[0] for p in POOLS if not p[0].startswith("max")])
def test_avg_pool_gradgradcheck(name, fn):
    assert gradgradcheck(fn, (leaf(1, 2, 5, 6),))


def test_max_pool2d_returns_indices_and_gradient():
    x = leaf(1, 1, 4, 4)
    y, idx = F.max_pool2d(x, 2, return_indices=True)
    y.sum().backward()
    g = x.grad.numpy().reshape(-1)
    assert sorted(np.nonzero(g)[0].tolist()) == sorted(idx.numpy().reshape(-1).tolist())


# ---- normalization ----

def test_layer_norm_gradcheck():
    x, w, b = leaf(3, 2, 4), leaf(2, 4), leaf(2, 4)
    assert gradcheck(lambda x, w, b: F.layer_norm(x, (2, 4), w, b), (x, w, b))
    assert gradcheck(lambda x: F.layer_norm(x.transpose(0, 2), (3,)), (x,))
    assert gradcheck(lambda x, b: F.layer_norm(x, (4,), None, b[0]), (x, b))


@pytest.mark.parametrize("shape", [(4, 3), (3, 2, 5), (2, 3, 2, 3)])
def test_batch_norm_training_gradcheck(shape):
    x, w, b = leaf(*shape), leaf(shape[1]), leaf(shape[1])
    assert gradcheck(lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True), (x, w, b))
    assert gradcheck(lambda x: F.batch_norm(x, None, None, training=True), (x,))


def test_batch_norm_training_updates_running_stats_without_differentiating_them():
    x, w = leaf(4, 3, 2), leaf(3)
    rm, rv = nb.zeros(3, dtype=nb.float64), nb.ones(3, dtype=nb.float64)
    F.batch_norm(x, rm, rv, w, None, training=True, momentum=0.5).sum().backward()
    assert not rm.requires_grad and rm.grad is None
    np.testing.assert_allclose(rm.numpy(), 0.5 * x.detach().numpy().mean(axis=(0, 2)))
    assert x.grad is not None and w.grad is not None


def test_batch_norm_eval_gradcheck_and_gradgradcheck():
    rm, rv = nb.tensor(RNG.standard_normal(3)), nb.tensor(RNG.uniform(0.5, 2, 3))
    x, w, b = leaf(2, 3, 4), leaf(3), leaf(3)
    fn = lambda x, w, b: F.batch_norm(x, rm, rv, w, b, training=False)  # noqa: E731
    assert gradcheck(fn, (x, w, b))
    assert gradgradcheck(fn, (x, w, b))


@pytest.mark.parametrize("groups", [1, 2, 4])
def test_group_norm_gradcheck(groups):
    x, w, b = leaf(2, 4, 3), leaf(4), leaf(4)
    assert gradcheck(lambda x, w, b: F.group_norm(x, groups, w, b), (x, w, b))
    assert gradcheck(lambda x: F.group_norm(x.transpose(0, 0), groups), (x,))


def test_norm_grad_of_grad_is_refused():
    x, w = leaf(3, 4), leaf(4)
    gx, = nb.autograd.grad(F.layer_norm(x, (4,), w).pow(2).sum(), [x], create_graph=True)
    with pytest.raises(NotImplementedError, match="NativeLayerNormBackward0"):
        gx.sum().backward()


# ---- losses ----

REDUCTIONS = ["mean", "sum", "none"]


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("kw", [dict(), dict(ignore_index=1), dict(weight=True), dict(label_smoothing=0.3),
                                dict(weight=True, ignore_index=0, label_smoothing=0.2)])
def test_cross_entropy_gradcheck_and_gradgradcheck(reduction, kw):
    kw = dict(kw)
    if kw.pop("weight", False):
        kw["weight"] = nb.tensor(RNG.uniform(0.5, 2, 4))
    x, t = leaf(3, 4), ints([0, 1, 3])
    fn = lambda x: F.cross_entropy(x, t, reduction=reduction, **kw)  # noqa: E731
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy_spatial_unbatched_and_probabilities(reduction):
    x, t = leaf(2, 3, 2, 2), ints(RNG.integers(0, 3, (2, 2, 2)))
    assert gradgradcheck(lambda x: F.cross_entropy(x.transpose(2, 3), t, reduction=reduction), (x,))
    x1 = leaf(5)
    assert gradgradcheck(lambda x: F.cross_entropy(x, ints(2), reduction=reduction), (x1,))
    xp, p = leaf(2, 3, 2), leaf(2, 3, 2, low=0.0, high=1.0)
    w = nb.tensor(RNG.uniform(0.5, 2, 3))
    fn = lambda x, p: F.cross_entropy(x, p, weight=w, reduction=reduction, label_smoothing=0.1)  # noqa: E731
    assert gradcheck(fn, (xp, p))
    assert gradgradcheck(fn, (xp, p))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_nll_loss_gradcheck_and_gradgradcheck(reduction):
    x, t, w = leaf(4, 3), ints([2, 0, 1, 2]), nb.tensor(RNG.uniform(0.5, 2, 3))
    fn = lambda x: F.nll_loss(x, t, weight=w, ignore_index=0, reduction=reduction)  # noqa: E731
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))
    xs = leaf(2, 3, 2)
    assert gradcheck(lambda x: F.nll_loss(x, ints([[0, 2], [1, 1]]).to(nb.uint8), reduction=reduction), (xs,))


def _pos(*shape):
    return leaf(*shape, low=0.1, high=0.9)


POINTWISE = [
    ("mse", lambda x, t, r: F.mse_loss(x, t, reduction=r), leaf, leaf),
    ("mse_weighted", lambda x, t, r: F.mse_loss(x, t, reduction=r, weight=nb.tensor(np.arange(1.0, 7.0).reshape(2, 3))),
     leaf, leaf),
    ("l1", lambda x, t, r: F.l1_loss(x, t, reduction=r), leaf, leaf),
    ("l1_weighted", lambda x, t, r: F.l1_loss(x, t, reduction=r, weight=nb.tensor(np.arange(1.0, 7.0).reshape(2, 3))),
     leaf, leaf),
    ("smooth_l1", lambda x, t, r: F.smooth_l1_loss(x, t, reduction=r, beta=0.5), leaf, leaf),
    ("smooth_l1_beta0", lambda x, t, r: F.smooth_l1_loss(x, t, reduction=r, beta=0.0), leaf, leaf),
    ("huber", lambda x, t, r: F.huber_loss(x, t, reduction=r, delta=0.6), leaf, leaf),
    ("huber_weighted", lambda x, t, r: F.huber_loss(x, t, reduction=r, delta=0.6,
                                                    weight=nb.tensor(np.arange(1.0, 7.0).reshape(2, 3))), leaf, leaf),
    ("bce", lambda x, t, r: F.binary_cross_entropy(x, t, reduction=r), _pos, _pos),
    ("bce_weighted", lambda x, t, r: F.binary_cross_entropy(x, t, weight=nb.tensor([1.0, 2.0, 0.5]), reduction=r),
     _pos, _pos),
    ("bce_logits", lambda x, t, r: F.binary_cross_entropy_with_logits(x, t, reduction=r), leaf, _pos),
    ("bce_logits_pos_weight", lambda x, t, r: F.binary_cross_entropy_with_logits(
        x, t, weight=nb.tensor([[1.0], [3.0]]), pos_weight=nb.tensor([1.0, 2.0, 0.5]), reduction=r), leaf, _pos),
    ("kl_div", lambda x, t, r: F.kl_div(x, t, reduction=r), leaf, _pos),
    ("kl_div_log_target", lambda x, t, r: F.kl_div(x, t, reduction=r, log_target=True), leaf, leaf),
]


@pytest.mark.filterwarnings("ignore:reduction. 'mean' divides")
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name,fn,mk_x,mk_t", POINTWISE, ids=[p[0] for p in POINTWISE])
def test_pointwise_loss_gradcheck_and_gradgradcheck(name, fn, mk_x, mk_t, reduction):
    x, t = mk_x(2, 3), mk_t(2, 3)
    f = lambda x, t: fn(x, t, reduction)  # noqa: E731
    assert gradcheck(f, (x, t))
    assert gradgradcheck(f, (x, t))
    xt = mk_x(3, 2)  # non-contiguous input
    assert gradcheck(lambda x, t: fn(x.t(), t, reduction), (xt, t))


def test_broadcast_regression_target_gradient_is_reduced():
    x, t = leaf(3, 4), leaf(4)
    with pytest.warns(UserWarning):
        assert gradcheck(lambda x, t: F.mse_loss(x, t), (x, t))
        assert gradcheck(lambda x, t: F.l1_loss(x, t, reduction="sum"), (x, t))


def test_loss_weight_gradient_is_not_implemented():
    x, t, w = leaf(2, 3), _pos(2, 3), _pos(2, 3)
    loss = F.binary_cross_entropy(_pos(2, 3), t, weight=w)
    with pytest.raises(NotImplementedError, match="derivative for 'weight' is not implemented"):
        loss.backward()
    w2 = leaf(3)
    with pytest.raises(NotImplementedError, match="derivative for 'weight'"):
        F.cross_entropy(x, ints([0, 2]), weight=w2).backward()


# ---- embedding and pad ----

def test_embedding_gradcheck_and_padding_idx():
    w = leaf(5, 3)
    idx = ints([[0, 2, 2], [4, 1, 2]])
    assert gradcheck(lambda w: F.embedding(idx, w), (w,))
    assert gradcheck(lambda w: F.embedding(idx.to(nb.int32).t(), w), (w,))
    F.embedding(idx, w, padding_idx=2).sum().backward()
    g = w.grad.numpy()
    np.testing.assert_array_equal(g[2], 0.0)
    np.testing.assert_array_equal(g[:, 0], [1.0, 1.0, 0.0, 0.0, 1.0])
    F.embedding(idx, w, padding_idx=-1).sum().backward()  # -1 is the last row
    np.testing.assert_array_equal(w.grad.numpy()[4], 1.0)


@pytest.mark.parametrize("mode,pad", [("constant", (1, 2, 0, 1)), ("constant", (-1, 2, 1, -1)), ("reflect", (2, 1, 1, 2)),
                                      ("replicate", (2, 3, 1, 0)), ("circular", (2, 1, 1, 2)),
                                      ("circular", (-1, 2, 0, 1)), ("reflect", (1, 2, 0, 0, 0, 0))])
def test_pad_gradcheck(mode, pad):
    x = leaf(1, 2, 3, 4)
    assert gradcheck(lambda x: F.pad(x, pad, mode=mode), (x,))
    assert gradcheck(lambda x: F.pad(x.transpose(2, 3).transpose(2, 3)[:, :, :, :], pad, mode=mode), (x,))


def test_constant_pad_gradgradcheck():
    assert gradgradcheck(lambda x: F.pad(x, (1, -1, 2, 0), value=3.0), (leaf(2, 3, 3),))


# ---- against PyTorch, float32 ----

def _torch_cases(torch):
    TF = torch.nn.functional
    t_idx = np.array([0, 3, 1, 2, 1])
    rm, rv = RNG.standard_normal(4).astype(np.float32), RNG.uniform(0.5, 2, 4).astype(np.float32)
    w4 = np.array([1.0, 2.0, 0.5, 1.5], np.float32)
    return [
        ("conv2d", [(2, 4, 9, 8), (6, 2, 3, 3), (6,)],
         lambda m, x, w, b: m.conv2d(x, w, b, stride=2, padding=1, groups=2)),
        ("conv2d_stride1", [(2, 4, 7, 6), (6, 2, 3, 2), (6,)],
         lambda m, x, w, b: m.conv2d(x, w, b, padding=(1, 2), dilation=(2, 1), groups=2)),
        ("conv1d", [(2, 3, 10), (4, 3, 3), (4,)], lambda m, x, w, b: m.conv1d(x, w, b, padding=2, dilation=2)),
        ("conv_transpose2d", [(2, 4, 5, 5), (4, 3, 3, 3), (3,)],
         lambda m, x, w, b: m.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1)),
        ("max_pool2d", [(2, 3, 8, 8)], lambda m, x: m.max_pool2d(x, 3, 2, 1)),
        ("avg_pool2d", [(2, 3, 8, 8)], lambda m, x: m.avg_pool2d(x, 3, 2, 1, count_include_pad=False)),
        ("adaptive_avg_pool2d", [(2, 3, 8, 7)], lambda m, x: m.adaptive_avg_pool2d(x, (3, 3))),
        ("layer_norm", [(4, 5, 6), (6,), (6,)], lambda m, x, w, b: m.layer_norm(x, (6,), w, b)),
        ("batch_norm", [(5, 4, 3), (4,), (4,)], lambda m, x, w, b: m.batch_norm(x, None, None, w, b, training=True)),
        ("batch_norm_eval", [(5, 4, 3), (4,), (4,)],
         lambda m, x, w, b: m.batch_norm(x, m.__tensor(rm), m.__tensor(rv), w, b, training=False)),
        ("group_norm", [(3, 4, 5), (4,), (4,)], lambda m, x, w, b: m.group_norm(x, 2, w, b)),
        ("nll_loss", [(5, 4)], lambda m, x: m.nll_loss(x, m.__tensor(t_idx), ignore_index=1)),
        ("cross_entropy", [(5, 4)], lambda m, x: m.cross_entropy(x, m.__tensor(t_idx), weight=m.__tensor(w4),
                                                                 label_smoothing=0.1)),
        ("cross_entropy_probs", [(5, 4), (5, 4)], lambda m, x, p: m.cross_entropy(x, p.abs() / 4.0)),
        ("mse_loss", [(5, 4), (5, 4)], lambda m, x, t: m.mse_loss(x, t)),
        ("l1_loss", [(5, 4), (5, 4)], lambda m, x, t: m.l1_loss(x, t, reduction="sum")),
        ("smooth_l1_loss", [(5, 4), (5, 4)], lambda m, x, t: m.smooth_l1_loss(x, t, beta=0.5)),
        ("huber_loss", [(5, 4), (5, 4)], lambda m, x, t: m.huber_loss(x, t, delta=0.5)),
        ("binary_cross_entropy", [(5, 4), (5, 4)], lambda m, x, t: m.binary_cross_entropy(x.sigmoid(), t.sigmoid())),
        ("binary_cross_entropy_with_logits", [(5, 4), (5, 4)],
         lambda m, x, t: m.binary_cross_entropy_with_logits(x, t.sigmoid(), pos_weight=m.__tensor(w4))),
        ("kl_div", [(5, 4), (5, 4)], lambda m, x, t: m.kl_div(x, t.sigmoid(), reduction="sum")),
        ("embedding", [(6, 3)], lambda m, w: m.embedding(m.__tensor(np.array([[0, 5], [2, 2]])), w, padding_idx=2)),
        ("pad", [(2, 3, 4, 5)], lambda m, x: m.pad(x, (1, 2, 2, 1), mode="reflect")),
    ]


def test_gradients_match_pytorch_float32():
    torch = pytest.importorskip("torch")

    class NbMod:
        def __getattr__(self, name):
            return getattr(F, name)
        __tensor = staticmethod(nb.tensor)

    class TorchMod:
        def __getattr__(self, name):
            return getattr(torch.nn.functional, name)
        __tensor = staticmethod(torch.tensor)

    NbMod._NbMod__tensor = NbMod.__dict__["_NbMod__tensor"]
    for name, shapes, fn in _torch_cases(torch):
        arrays = [RNG.standard_normal(s).astype(np.float32) for s in shapes]
        xs = [nb.tensor(a, requires_grad=True) for a in arrays]
        ts = [torch.tensor(a, requires_grad=True) for a in arrays]
        nb_mod, t_mod = NbMod(), TorchMod()
        y = fn(_Proxy(nb_mod, nb.tensor), *xs)
        yt = fn(_Proxy(t_mod, torch.tensor), *ts)
        seed = RNG.standard_normal(tuple(yt.shape)).astype(np.float32)
        y.backward(nb.tensor(seed))
        yt.backward(torch.tensor(seed))
        np.testing.assert_allclose(y.detach().numpy(), yt.detach().numpy(), rtol=1e-4, atol=1e-5, err_msg=name)
        for i, (a, t) in enumerate(zip(xs, ts)):
            assert (a.grad is None) == (t.grad is None), f"{name}: input {i}"
            if t.grad is None:
                continue
            np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=1e-4, atol=1e-4,
                                       err_msg=f"{name}: input {i}")


class _Proxy:
    """The functional module of one library, plus its tensor constructor as `__tensor`."""

    def __init__(self, mod, make):
        self._mod, self._make = mod, make

    def __getattr__(self, name):
        if name.endswith("__tensor"):
            return self._make
        return getattr(self._mod, name)


# ---- the backward kernels' own checks ----

def test_backward_kernels_check_their_arguments():
    from nabla._lib import ffi, lib
    from nabla._tensor import _call

    go, w, x64 = nb.zeros(1, 2, 3, 3), nb.zeros(2, 1, 3, 3), nb.zeros(1, 1, 5, 5, dtype=nb.float64)
    idx, x4 = nb.full((1, 2, 3, 3), 99, dtype=nb.int64), nb.zeros(1, 2, 3, 4)
    with pytest.raises(RuntimeError, match="conv2d_backward_input: grad_output .* is larger"):
        _call(lib.nbpy_conv2d_backward_input, go._h, w._h, [4, 4], [1, 1], [0, 0, 0, 0], [1, 1], 1, ffi.NULL)
    with pytest.raises(RuntimeError, match="conv2d_backward_weight: grad_output type"):
        _call(lib.nbpy_conv2d_backward_weight, go._h, x64._h, [3, 3], [1, 1], [0, 0, 0, 0], [1, 1], 1, ffi.NULL)
    with pytest.raises(IndexError, match="max_pool2d_backward: index 99 is out of range"):
        _call(lib.nbpy_max_pool2d_backward, go._h, idx._h, [6, 6], ffi.NULL)
    # avg_pool2d_backward: grad_output must be the forward's output (3 x 3 for 6 x 6, kernel 2; 4 x 4 for 7 x 7
    # in ceil_mode), else its kernel would silently spread a gradient of the wrong shape
    with pytest.raises(RuntimeError, match=re.escape(
            "avg_pool2d_backward: grad_output [1, 2, 3, 3] does not fit the output of avg_pool2d on an input of 8 x 8 "
            "with kernel (2, 2), stride (2, 2) and padding (0, 0): its last two sizes must be 4 x 4")):
        _call(lib.nbpy_avg_pool2d_backward, go._h, [8, 8], [2, 2], ffi.NULL, [0, 0], 1, 0, ffi.NULL)
    with pytest.raises(RuntimeError, match=re.escape("its last two sizes must be 2 x 2, or 3 x 3 with ceil_mode")):
        _call(lib.nbpy_avg_pool2d_backward, x4._h, [5, 5], [2, 2], ffi.NULL, [0, 0], 1, 0, ffi.NULL)
    for size in ([6, 6], [7, 7], [6, 7]):  # the floor-mode and the ceil-mode output sizes are both 3
        g = _call(lib.nbpy_avg_pool2d_backward, go._h, size, [2, 2], ffi.NULL, [0, 0], 1, 0, ffi.NULL)
        assert tuple(g.shape) == (1, 2, *size)
    with pytest.raises(RuntimeError, match="layer_norm_backward: grad_output .* must have the input's shape"):
        _call(lib.nbpy_layer_norm_backward, go._h, x4._h, [4], 1, ffi.NULL, 1e-5, ffi.NULL, ffi.NULL, ffi.NULL)
    with pytest.raises(RuntimeError, match="group_norm_backward: num_groups=3 must be positive and divide"):
        _call(lib.nbpy_group_norm_backward, go._h, go._h, 3, ffi.NULL, 1e-5, ffi.NULL, ffi.NULL, ffi.NULL)
