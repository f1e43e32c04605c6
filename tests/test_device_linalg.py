"""The LAPACK-backed linalg ops on every device (the `device` fixture): on CUDA they
run on the host and their results come back to the device (lapack_device.h). Against
PyTorch on the CPU: results, batches, gradients computed through the device, the
errors (LinAlgError naming the batch element, shapes, dtypes) unchanged, inputs on
two devices refused, and results that live on the inputs' device."""
from __future__ import annotations

import numpy as np
import pytest

import nabla

torch = pytest.importorskip("torch")

TOL = {"float32": 2e-4, "float64": 1e-10}


def spd(n, batch=(), seed=0):
    """Well-conditioned symmetric positive definite matrices."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((*batch, n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def pair(arr, dtype, device, grad=False):
    ours = nabla.tensor(arr, dtype=getattr(nabla, dtype), device=device, requires_grad=grad)
    theirs = torch.tensor(arr, dtype=getattr(torch, dtype), requires_grad=grad)
    return ours, theirs


def close(ours, theirs, dtype, device):
    assert ours.device.type == device
    np.testing.assert_allclose(ours.detach().cpu().numpy(), theirs.detach().numpy(), rtol=TOL[dtype],
                               atol=TOL[dtype])


# name: (nabla fn, torch fn, inputs(batch) -> list of arrays); each output compared
OPS = {
    "inv": (lambda L, a: L.inv(a), lambda L, a: L.inv(a), lambda b: [spd(4, b)]),
    "det": (lambda L, a: L.det(a), lambda L, a: L.det(a), lambda b: [spd(3, b) - 2 * np.eye(3)]),
    "slogdet": (lambda L, a: L.slogdet(a), lambda L, a: L.slogdet(a), lambda b: [spd(3, b) - 4 * np.eye(3)]),
    "cholesky": (lambda L, a: L.cholesky(a), lambda L, a: L.cholesky(a), lambda b: [spd(5, b)]),
    "cholesky_upper": (lambda L, a: L.cholesky(a, upper=True), lambda L, a: L.cholesky(a, upper=True),
                       lambda b: [spd(5, b)]),
    "solve": (lambda L, a, c: L.solve(a, c), lambda L, a, c: L.solve(a, c),
              lambda b: [spd(4, b), np.random.default_rng(1).standard_normal((*b, 4, 2))]),
    "solve_right": (lambda L, a, c: L.solve(a, c, left=False), lambda L, a, c: L.solve(a, c, left=False),
                    lambda b: [spd(4, b), np.random.default_rng(1).standard_normal((*b, 3, 4))]),
    "solve_triangular": (lambda L, a, c: L.solve_triangular(a, c, upper=False),
                         lambda L, a, c: L.solve_triangular(a, c, upper=False),
                         lambda b: [np.tril(spd(4, b)), np.random.default_rng(2).standard_normal((*b, 4, 3))]),
    "eigh_values": (lambda L, a: L.eigh(a)[0], lambda L, a: L.eigh(a)[0], lambda b: [spd(4, b)]),
    "qr_r_abs": (lambda L, a: L.qr(a)[1].abs(), lambda L, a: L.qr(a)[1].abs(),
                 lambda b: [np.random.default_rng(3).standard_normal((*b, 5, 3))]),
    "svd_values": (lambda L, a: L.svd(a)[1], lambda L, a: L.svd(a)[1],
                   lambda b: [np.random.default_rng(4).standard_normal((*b, 4, 6))]),
}


@pytest.mark.parametrize("batch", [(), (2, 3)], ids=["single", "batched"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(OPS))
def test_ops_and_gradients_match_torch(device, name, dtype, batch):
    fn, tfn, make = OPS[name]
    arrays = make(batch)
    pairs = [pair(a, dtype, device, grad=True) for a in arrays]
    got = fn(nabla.linalg, *[p[0] for p in pairs])
    want = tfn(torch.linalg, *[p[1] for p in pairs])
    got, want = (got, want) if isinstance(want, torch.Tensor) else (list(got), list(want))
    outs = [got] if isinstance(want, torch.Tensor) else got
    wants = [want] if isinstance(want, torch.Tensor) else want
    for o, w in zip(outs, wants):
        close(o, w, dtype, device)
    # a gradient through the op, computed with the device's tensors
    seed = np.random.default_rng(5).standard_normal(tuple(wants[-1].shape))
    (outs[-1] * nabla.tensor(seed, dtype=getattr(nabla, dtype), device=device)).sum().backward()
    (wants[-1] * torch.tensor(seed, dtype=getattr(torch, dtype))).sum().backward()
    for p in pairs:
        assert p[0].grad.device.type == device
        np.testing.assert_allclose(p[0].grad.cpu().numpy(), p[1].grad.numpy(), rtol=50 * TOL[dtype],
                                   atol=50 * TOL[dtype])


def test_ex_forms_return_info_on_the_device(device):
    a = np.stack([spd(3), np.zeros((3, 3))])  # the second one is singular / not positive definite
    x, t = pair(a, "float64", device)
    for ours, theirs in ((nabla.linalg.inv_ex(x), torch.linalg.inv_ex(t)),
                         (nabla.linalg.cholesky_ex(x), torch.linalg.cholesky_ex(t))):
        assert ours.info.device.type == device and ours[0].device.type == device
        assert ours.info.cpu().tolist() == theirs.info.tolist()
        np.testing.assert_allclose(ours[0][0].cpu().numpy(), theirs[0][0].numpy(), rtol=1e-10, atol=1e-12)


def test_errors_are_the_cpu_ones(device):
    singular = nabla.zeros(2, 3, 3, dtype=nabla.float64, device=device)
    with pytest.raises(nabla.linalg.LinAlgError, match=r"linalg.inv: \(Batch element 0\): "
                       r"The diagonal element 1 is zero, the inversion could not be completed"):
        nabla.linalg.inv(singular)
    with pytest.raises(RuntimeError, match="must be batches of square matrices"):
        nabla.linalg.det(nabla.zeros(2, 3, device=device))
    with pytest.raises(RuntimeError, match="Low precision dtypes not supported"):
        nabla.linalg.inv(nabla.eye(2, dtype=nabla.float16, device=device))
    out = nabla.linalg.inv(nabla.eye(3, dtype=nabla.float64, device=device))
    assert out.device.type == device  # and the device stays usable after the errors


@pytest.mark.skipif(not nabla.cuda.is_available(), reason="no CUDA device")
def test_inputs_on_two_devices_are_refused():
    a = nabla.eye(3, dtype=nabla.float64, device="cuda")
    b = nabla.ones(3, 2, dtype=nabla.float64)
    with pytest.raises(RuntimeError, match="linalg.solve: expected all tensors to be on the same device, "
                                           "but found cuda:0 and cpu:0"):
        nabla.linalg.solve(a, b)
