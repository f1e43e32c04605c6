"""The last of torch.nn's layers against torch 2.13 on the same inputs: fractional max pooling
(the same _random_samples: values, flat indices, gradients), LPPool3d, MaxUnpool3d,
AdaptiveLogSoftmaxWithLoss, SyncBatchNorm in one process, DataParallel's wrapping, CrossMapLRN2d
and Container; reprs and PyTorch's errors."""
from __future__ import annotations

import numpy as np
import pytest

import nabla
from torch_reference import check_module

torch = pytest.importorskip("torch")
F, TF = nabla.nn.functional, torch.nn.functional
RNG = np.random.default_rng(53)


def _pair(a, grad=True):
    return nabla.tensor(a).requires_grad_(grad), torch.tensor(a).requires_grad_(grad)


FRACTIONAL = [
    (2, (2, 5, 7), 3, dict(output_size=(3, 4))),
    (2, (3, 6, 9), (2, 3), dict(output_ratio=(0.5, 0.6))),
    (3, (2, 2, 5, 6, 7), 2, dict(output_size=(3, 3, 4))),
    (3, (2, 6, 5, 7), (2, 1, 3), dict(output_ratio=0.5)),
]


@pytest.mark.parametrize("nd,shape,k,kw", FRACTIONAL, ids=[str(i) for i in range(len(FRACTIONAL))])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_fractional_max_pool_matches_torch(nd, shape, k, kw, dtype):
    x = RNG.standard_normal(shape).astype(dtype)
    x.reshape(-1)[:4] = 2.5  # ties: the first maximum in scan order wins
    n = 1 if len(shape) == nd + 1 else shape[0]
    u = RNG.random((n, shape[-nd - 1], nd)).astype(dtype)
    ours, theirs = _pair(x)
    fn, tfn = getattr(F, f"fractional_max_pool{nd}d"), getattr(TF, f"fractional_max_pool{nd}d")
    y, i = fn(ours, k, return_indices=True, _random_samples=nabla.tensor(u), **kw)
    ty, ti = tfn(theirs, k, return_indices=True, _random_samples=torch.tensor(u), **kw)
    np.testing.assert_array_equal(y.detach().numpy(), ty.detach().numpy())
    np.testing.assert_array_equal(i.numpy(), ti.numpy())
    assert y.dtype == ours.dtype and i.dtype == nabla.int64
    g = RNG.standard_normal(tuple(ty.shape)).astype(dtype)
    y.backward(nabla.tensor(g))
    ty.backward(torch.tensor(g))
    np.testing.assert_array_equal(ours.grad.numpy(), theirs.grad.numpy())
    m = getattr(nabla.nn, f"FractionalMaxPool{nd}d")(k, _random_samples=nabla.tensor(u), **kw)
    tm = getattr(torch.nn, f"FractionalMaxPool{nd}d")(k, _random_samples=torch.tensor(u), **kw)
    assert repr(m) == repr(tm)
    np.testing.assert_array_equal(m(nabla.tensor(x)).numpy(), tm(torch.tensor(x)).numpy())


def test_fractional_max_pool_draws_its_own_samples():
    nabla.manual_seed(3)
    x = nabla.tensor(RNG.standard_normal((4, 3, 9, 9)))
    a, b = F.fractional_max_pool2d(x, 2, output_size=5), F.fractional_max_pool2d(x, 2, output_size=5)
    assert tuple(a.shape) == (4, 3, 5, 5)
    assert not np.array_equal(a.numpy(), b.numpy())  # fresh windows per call
    # every output is the max of some 2 x 2 window of its plane
    windows = F.max_pool2d(x, 2, stride=1).numpy()
    for v, w in zip(a.numpy().reshape(12, -1), windows.reshape(12, -1)):
        assert np.isin(v, w).all()


@pytest.mark.parametrize("call,exc,msg", [
    (lambda: F.fractional_max_pool2d(nabla.ones(1, 1, 4, 4), 2), ValueError,
     "requires specifying either an output_size or an output_ratio"),
    (lambda: F.fractional_max_pool2d(nabla.ones(1, 1, 4, 4), 3, output_size=3), RuntimeError,
     "pool height 3 too large relative to input height 4"),
    (lambda: F.fractional_max_pool3d(nabla.ones(4, 4), 2, output_size=2), RuntimeError, "Expected 4D or 5D"),
    (lambda: nabla.nn.FractionalMaxPool2d(2), ValueError, "requires specifying either an output size"),
    (lambda: nabla.nn.FractionalMaxPool2d(2, 3, 0.5), ValueError, "only one of output_size and output_ratio"),
    (lambda: nabla.nn.FractionalMaxPool3d(2, output_ratio=1.5), ValueError, "output_ratio must be between 0 and 1"),
    (lambda: nabla.nn.FractionalMaxPool3d(0, output_size=2), ValueError, "kernel_size must be greater than 0"),
])
def test_fractional_errors(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call()


def test_fractional_errors_match_torch_types():
    for lib in (nabla, torch):
        with pytest.raises(RuntimeError):
            lib.nn.functional.fractional_max_pool2d(lib.ones(1, 1, 4, 4), 3, output_size=3)


@pytest.mark.parametrize("name,args,kwargs,shape", [
    ("LPPool3d", (2, 2), {}, (2, 3, 4, 5, 4)),
    ("LPPool3d", (1.5, (2, 1, 2)), {"stride": 1, "ceil_mode": True}, (3, 4, 3, 5)),
    ("CrossMapLRN2d", (3,), {"alpha": 0.1, "beta": 0.6, "k": 2}, (2, 6, 3, 3)),
    ("CrossMapLRN2d", (4,), {}, (1, 9, 2, 2)),
    ("CrossMapLRN2d", (7,), {"alpha": 0.5}, (2, 3, 2, 2)),
])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_modules_match_torch(name, args, kwargs, shape, dtype):
    ours, theirs = getattr(nabla.nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
    assert repr(ours) == repr(theirs)
    check_module(ours, theirs, np.abs(RNG.standard_normal(shape)) + 0.1, dtype=dtype)


def test_cross_map_lrn2d_rejects_3d():
    with pytest.raises(ValueError, match="CrossMapLRN2d: Expected input to be 4D, got 3D instead."):
        nabla.nn.CrossMapLRN2d(3)(nabla.ones(2, 3, 4))


def test_max_unpool3d_module():
    x = torch.randn(2, 3, 4, 6, 5)
    y, idx = torch.nn.MaxPool3d(2, return_indices=True)(x)
    ours, theirs = nabla.nn.MaxUnpool3d(2), torch.nn.MaxUnpool3d(2)
    assert repr(ours) == repr(theirs)
    out = ours(nabla.tensor(y.numpy()), nabla.tensor(idx.numpy()), output_size=[4, 6, 5])
    np.testing.assert_array_equal(out.numpy(), theirs(y, idx, output_size=[4, 6, 5]).numpy())
    with pytest.raises(RuntimeError, match="Found an invalid max index"):
        ours(nabla.tensor(y.numpy()), nabla.tensor(idx.numpy()) + 1000)


def _asm_pair(dtype=torch.float64, **kw):
    torch.manual_seed(0)
    theirs = torch.nn.AdaptiveLogSoftmaxWithLoss(8, 20, [4, 10, 15], **kw).to(dtype)
    ours = nabla.nn.AdaptiveLogSoftmaxWithLoss(8, 20, [4, 10, 15], **kw).double()
    ours.load_state_dict({k: nabla.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    return ours, theirs


@pytest.mark.parametrize("kw", [{}, {"div_value": 2.0, "head_bias": True}])
def test_adaptive_log_softmax_matches_torch(kw):
    ours, theirs = _asm_pair(**kw)
    assert repr(ours) == repr(theirs)
    assert sorted(ours.state_dict()) == sorted(theirs.state_dict())
    x, t = RNG.standard_normal((9, 8)), np.array([0, 3, 4, 9, 10, 14, 15, 19, 2])
    ox, tx = _pair(x)
    out, ref = ours(ox, nabla.tensor(t)), theirs(tx, torch.tensor(t))
    np.testing.assert_allclose(out.output.detach().numpy(), ref.output.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(out.loss.item(), ref.loss.item(), rtol=1e-12)
    out.loss.backward()
    ref.loss.backward()
    np.testing.assert_allclose(ox.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)
    named = dict(ours.named_parameters())
    for n, p in theirs.named_parameters():
        np.testing.assert_allclose(named[n].grad.numpy(), p.grad.numpy(), rtol=1e-10, atol=1e-12, err_msg=n)
    np.testing.assert_allclose(ours.log_prob(nabla.tensor(x)).detach().numpy(),
                               theirs.log_prob(torch.tensor(x)).detach().numpy(), rtol=1e-12)
    np.testing.assert_array_equal(ours.predict(nabla.tensor(x)).numpy(), theirs.predict(torch.tensor(x)).numpy())
    one = ours(nabla.tensor(x[0]), nabla.tensor(t[1]))
    assert one.output.dim() == 0
    np.testing.assert_allclose(one.output.item(), theirs(tx[0], torch.tensor(t[1])).output.item(), rtol=1e-12)


@pytest.mark.parametrize("call,exc", [
    (lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, []), ValueError),
    (lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [5, 3]), ValueError),
    (lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [10]), ValueError),
    (lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4])(lib.ones(3, 8), lib.tensor([0, 1, 12])), RuntimeError),
    (lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4])(lib.ones(3, 8), lib.tensor([0, 1])), RuntimeError),
    (lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4])(lib.ones(3, 8), lib.zeros(3, 2).long()), RuntimeError),
])
def test_adaptive_log_softmax_errors_match_torch(call, exc):
    with pytest.raises(exc) as theirs:
        call(torch)
    with pytest.raises(exc) as ours:
        call(nabla)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("train", [True, False])
@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 5), (2, 3, 2, 2, 2)])
def test_sync_batch_norm_is_batch_norm_in_one_process(train, shape):
    ours, theirs = nabla.nn.SyncBatchNorm(3, momentum=0.3), torch.nn.SyncBatchNorm(3, momentum=0.3)
    assert repr(ours) == repr(theirs)
    check_module(ours, theirs, RNG.standard_normal(shape), train=train)
    if train:
        np.testing.assert_allclose(ours.running_mean.numpy(), theirs.running_mean.numpy(), rtol=1e-12)
        np.testing.assert_allclose(ours.running_var.numpy(), theirs.running_var.numpy(), rtol=1e-12)
    with pytest.raises(ValueError, match=r"expected at least 2D input \(got 1D input\)"):
        ours(nabla.ones(3))


def test_convert_sync_batchnorm_keeps_parameters_and_stats():
    net = nabla.nn.Sequential(nabla.nn.Conv2d(2, 3, 1), nabla.nn.BatchNorm2d(3),
                              nabla.nn.Sequential(nabla.nn.BatchNorm1d(3)))
    net[1].running_mean.fill_(0.5)
    net.eval()
    tnet = torch.nn.Sequential(torch.nn.Conv2d(2, 3, 1), torch.nn.BatchNorm2d(3),
                               torch.nn.Sequential(torch.nn.BatchNorm1d(3)))
    conv = nabla.nn.SyncBatchNorm.convert_sync_batchnorm(net)
    tconv = torch.nn.SyncBatchNorm.convert_sync_batchnorm(tnet)
    assert repr(conv) == repr(tconv)
    assert type(conv[1]) is nabla.nn.SyncBatchNorm and type(conv[2][0]) is nabla.nn.SyncBatchNorm
    assert conv[1].weight is net[1].weight and not conv[1].training
    np.testing.assert_array_equal(conv[1].running_mean.numpy(), np.full(3, 0.5))
    assert sorted(conv.state_dict()) == sorted(tconv.state_dict())


def test_data_parallel_wraps_the_module():
    inner, tinner = nabla.nn.Linear(3, 2), torch.nn.Linear(3, 2)
    dp, tdp = nabla.nn.DataParallel(inner), torch.nn.DataParallel(tinner)
    assert dp.module is inner and repr(dp) == repr(tdp)
    assert list(dp.state_dict()) == list(tdp.state_dict()) == ["module.weight", "module.bias"]
    check_module(dp, tdp, RNG.standard_normal((4, 3)))
    assert nabla.nn.DataParallel is nabla.nn.parallel.DataParallel


def test_container_is_deprecated_module_holder():
    with pytest.warns(FutureWarning, match="nn.Container` is deprecated"):
        c = nabla.nn.Container(a=nabla.nn.Linear(2, 3), b=nabla.nn.ReLU())
    with pytest.warns(FutureWarning):
        tc = torch.nn.Container(a=torch.nn.Linear(2, 3), b=torch.nn.ReLU())
    assert repr(c) == repr(tc)
    assert [n for n, _ in c.named_children()] == ["a", "b"]
