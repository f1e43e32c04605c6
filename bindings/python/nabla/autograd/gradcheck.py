"""gradcheck / gradgradcheck: analytical gradients against central finite
differences, in float64, as PyTorch's checks do."""
from __future__ import annotations

from .._tensor import Tensor
from .engine import grad as _grad
from .grad_mode import no_grad


class GradcheckError(RuntimeError):
    """A gradient disagreed with its finite-difference estimate."""


def _as_tuple(x) -> tuple:
    return x if isinstance(x, tuple) else tuple(x) if isinstance(x, list) else (x,)


def _differentiable(inputs) -> list:
    return [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]


def _outputs(func, inputs) -> tuple:
    return tuple(o for o in _as_tuple(func(*inputs)) if isinstance(o, Tensor) and o.is_floating_point())


def _numerical(func, inputs, wrt: int, eps: float) -> list:
    """columns[k][o] = d out_o / d inputs[wrt].flat[k], a vector over out_o's elements."""
    x = inputs[wrt]
    with no_grad():
        base = x.detach().clone().reshape(-1)
    columns = []
    for k in range(x.numel()):
        cols = []
        for sign in (1.0, -1.0):
            with no_grad():
                pert = base.clone()
                pert[k] = base[k].item() + sign * eps
            args = list(inputs)  # perturbed inputs stay leaves that require grad (gradgradcheck needs it)
            args[wrt] = pert.reshape(x.shape).detach().requires_grad_(x.requires_grad)
            cols.append([o.detach().double().reshape(-1).numpy().copy() for o in _outputs(func, args)])
        columns.append([(p - m) / (2 * eps) for p, m in zip(*cols)])
    return columns


def _analytical(func, inputs, wrt_list, create_graph=False) -> dict:
    """rows[(o, j)][i] = d out_o[j] / d inputs[i] (flattened), through vector-Jacobian products."""
    import numpy as np

    import nabla

    outs = _outputs(func, inputs)
    rows = {}
    for o, out in enumerate(outs):
        for j in range(out.numel()):
            seed = nabla.zeros(out.shape, dtype=out.dtype)
            seed.view(-1)[j] = 1.0
            if not out.requires_grad:
                rows[(o, j)] = {i: np.zeros(inputs[i].numel()) for i in wrt_list}
                continue
            gs = _grad(out, [inputs[i] for i in wrt_list], seed, retain_graph=True, allow_unused=True)
            rows[(o, j)] = {i: (np.zeros(inputs[i].numel()) if g is None else g.double().reshape(-1).numpy())
                            for i, g in zip(wrt_list, gs)}
    return rows


def gradcheck(func, inputs, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True, **_ignored) -> bool:
    """True when the gradients of func at inputs match finite differences (inputs
    that require grad should be float64)."""
    import numpy as np

    inputs = _as_tuple(inputs)
    wrt = _differentiable(inputs)
    if not wrt:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of the them "
                         "have requires_grad=True.")
    analytical = _analytical(func, inputs, wrt)
    for i in wrt:
        numerical = _numerical(func, inputs, i, eps)
        for (o, j), row in analytical.items():
            a = row[i]
            n = np.array([numerical[k][o][j] for k in range(inputs[i].numel())])
            if not np.allclose(a, n, rtol=rtol, atol=atol, equal_nan=True):
                msg = (f"Jacobian mismatch for output {o} with respect to input {i},\n"
                       f"numerical:{n}\nanalytical:{a}\n")
                if raise_exception:
                    raise GradcheckError(msg)
                return False
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
                  raise_exception: bool = True, **_ignored) -> bool:
    """gradcheck of the first derivatives (computed with create_graph=True)."""
    import nabla

    inputs = _as_tuple(inputs)
    wrt = _differentiable(inputs)
    outs = _outputs(func, inputs)
    if grad_outputs is None:
        gen = nabla.Generator().manual_seed(0)
        grad_outputs = tuple(nabla.randn(o.shape, dtype=o.dtype, generator=gen).requires_grad_() for o in outs)
    grad_outputs = _as_tuple(grad_outputs)
    n_in = len(inputs)

    def first_derivative(*args):
        xs, gos = args[:n_in], args[n_in:]
        outs = _outputs(func, xs)
        diff = [(o, g) for o, g in zip(outs, gos) if o.requires_grad]
        gs = _grad([o for o, _ in diff], [xs[i] for i in wrt], [g for _, g in diff], create_graph=True,
                   allow_unused=True)
        return tuple(g for g in gs if g is not None)

    return gradcheck(first_derivative, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
