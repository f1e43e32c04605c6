"""igamma / igammac / nextafter on the device against the CPU kernels: same values (float64 within
a few ulp of the CPU, the half types after one rounding), broadcast and strided operands."""
from __future__ import annotations

import numpy as np
import pytest

import nabla as nb

DTYPES = ["float64", "float32", "float16", "bfloat16"]


def _operands(dtype):
    rng = np.random.default_rng(4)
    a = nb.from_numpy(rng.uniform(0.05, 30.0, (7, 5))).to(getattr(nb, dtype))
    x = nb.from_numpy(rng.uniform(0.0, 40.0, (5, 7))).to(getattr(nb, dtype)).t()  # strided
    edge = nb.tensor([0.0, 1.0, float("inf"), float("nan"), 2.5]).to(getattr(nb, dtype))  # broadcast row
    return a, x, edge


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ["igamma", "igammac", "nextafter"])
def test_device_matches_cpu(device, dtype, op):
    fn = getattr(nb, op)
    a, x, edge = _operands(dtype)
    for p, q in ((a, x), (a, edge), (edge, x)):
        want = fn(p, q)
        got = fn(p.to(device), q.to(device))
        assert got.device.type == device and got.dtype == want.dtype and got.shape == want.shape
        g, w = got.cpu().double().numpy(), want.double().numpy()
        if op == "nextafter" or dtype != "float64":
            np.testing.assert_array_equal(g, w)
        else:
            np.testing.assert_allclose(g, w, rtol=1e-14, atol=0)


def test_device_errors_name_the_op(device):
    a = nb.ones(3, device=device)
    with pytest.raises(RuntimeError, match="igamma"):
        nb.igamma(a, nb.ones(4, device=device))
    if device == "cuda":
        with pytest.raises(RuntimeError):
            nb.igamma(a, nb.ones(3))  # operands on two devices
