"""Gradients of the cases tests/fuzz/fuzz_abi.c found wrong (see tests/c/test_fuzz_regressions.c),
checked against PyTorch."""
import numpy as np
import pytest
import torch

import nabla
import nabla.nn.functional as NF


def _pair(values, dtype=np.float32):
    a = np.asarray(values, dtype=dtype)
    return nabla.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)


def test_repeat_with_a_zero_count_gives_zero_gradient():
    n, t = _pair(np.arange(2).reshape(1, 1, 2) + 1.0)
    n.repeat(2, 3, 0, 0).sum().backward()
    t.repeat(2, 3, 0, 0).sum().backward()
    assert tuple(n.grad.shape) == tuple(t.grad.shape)
    np.testing.assert_array_equal(n.grad.numpy(), t.grad.numpy())


@pytest.mark.parametrize("dim", [0, 5, 64, -1])
def test_cat_of_empty_1d_tensors_only(dim):
    n, t = _pair(np.zeros(0))
    n2, t2 = _pair(np.zeros(0))
    yn, yt = nabla.cat([n, n2], dim=dim), torch.cat([t, t2], dim=dim)
    assert tuple(yn.shape) == tuple(yt.shape)
    yn.sum().backward()
    yt.sum().backward()
    assert tuple(n.grad.shape) == tuple(t.grad.shape) == (0,)


@pytest.mark.parametrize("reduction", ["sum", "mean", "batchmean", "none"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div_with_a_broadcast_target(reduction, log_target):
    x = np.array([0.3, -0.2], dtype=np.float32)
    tv = np.array([[0.25], [0.75]], dtype=np.float32)
    if log_target:
        tv = np.log(tv)
    xn, xt = _pair(x)
    tn, tt = _pair(tv)
    yn = NF.kl_div(xn, tn, reduction=reduction, log_target=log_target)
    yt = torch.nn.functional.kl_div(xt, tt, reduction=reduction, log_target=log_target)
    np.testing.assert_allclose(yn.detach().numpy(), yt.detach().numpy(), rtol=1e-5, atol=1e-6)
    yn.sum().backward()
    yt.sum().backward()
    assert tuple(xn.grad.shape) == (2,)
    np.testing.assert_allclose(xn.grad.numpy(), xt.grad.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(tn.grad.numpy(), tt.grad.numpy(), rtol=1e-5, atol=1e-6)
