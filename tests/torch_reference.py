"""Runs a nabla module and its PyTorch twin on the same inputs with the same
weights and compares outputs and gradients (imported by the nn test files)."""
from __future__ import annotations

import numpy as np
import pytest

import nabla

TOL = {np.float32: dict(rtol=1e-5, atol=1e-5), np.float64: dict(rtol=1e-9, atol=1e-10)}


def copy_weights(ours, theirs) -> None:
    """Loads a PyTorch module's parameters and buffers into ours, by name."""
    ours.load_state_dict({k: nabla.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})


class Const:
    """An input array that is converted but never requires grad (a float mask, say)."""

    def __init__(self, array: np.ndarray) -> None:
        self.array = array


def _convert(x, dtype, grad: bool, cache: dict, to_torch: bool):
    """np arrays -> tensors (floats cast to dtype and, with grad, requiring it); tuples recursively; the same
    array object always maps to the same tensor, so identity-based paths (self-attention) match."""
    torch = pytest.importorskip("torch")
    if isinstance(x, (tuple, list)):
        return type(x)(_convert(v, dtype, grad, cache, to_torch) for v in x)
    if isinstance(x, dict):
        return {k: _convert(v, dtype, grad, cache, to_torch) for k, v in x.items()}
    if isinstance(x, Const):
        return _convert(x.array, dtype, False, cache, to_torch)
    if not isinstance(x, np.ndarray):
        return x
    key = (id(x), to_torch)
    if key not in cache:
        a = x.astype(dtype) if x.dtype.kind == "f" else x
        t = torch.from_numpy(a.copy()) if to_torch else nabla.tensor(a.copy())
        if grad and x.dtype.kind == "f":
            t.requires_grad_(True)
        cache[key] = t
    return cache[key]


def convert_args(v, dtype, to_torch: bool, leaves: list, grad: bool = True):
    """np arrays (nested in lists / tuples) -> fresh tensors, floats cast to dtype and, with grad, requiring it
    (collected in leaves); Const arrays never require grad; anything else passes through."""
    torch = pytest.importorskip("torch")
    if isinstance(v, (list, tuple)):
        return type(v)(convert_args(e, dtype, to_torch, leaves, grad) for e in v)
    g = grad and not isinstance(v, Const)
    a = v.array if isinstance(v, Const) else v
    if not isinstance(a, np.ndarray):
        return a
    a = a.astype(dtype) if a.dtype.kind == "f" else a
    t = torch.from_numpy(a.copy()) if to_torch else nabla.tensor(a.copy())
    if g and a.dtype.kind == "f":
        t.requires_grad_(True)
        leaves.append(t)
    return t


def flatten(out) -> list:
    """The tensors of a (possibly nested) output, None kept in place."""
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in flatten(o)]
    return [out]


def _leaves(cache: dict, to_torch: bool) -> list:
    return [t for (i, tt), t in cache.items() if tt == to_torch and t.requires_grad]


def check_module(ours, theirs, *args, dtype=np.float64, train: bool = False, grad: bool = True, seed: int = 0,
                 tol: dict | None = None, **kwargs):
    """Copies theirs' weights into ours (both cast to dtype), calls both with args / kwargs, compares every output
    tensor, then backpropagates the same random upstream gradients and compares the gradients of the inputs and of
    every parameter. Returns (our outputs, their outputs)."""
    torch = pytest.importorskip("torch")
    tol = tol or TOL[dtype]
    theirs = theirs.double() if dtype == np.float64 else theirs.float()
    ours = ours.double() if dtype == np.float64 else ours.float()
    copy_weights(ours, theirs)
    ours.train(train)
    theirs.train(train)
    cache: dict = {}
    out = ours(*_convert(args, dtype, grad, cache, False), **_convert(kwargs, dtype, grad, cache, False))
    ref = theirs(*_convert(args, dtype, grad, cache, True), **_convert(kwargs, dtype, grad, cache, True))
    outs, refs = flatten(out), flatten(ref)
    assert len(outs) == len(refs)
    for o, r in zip(outs, refs):
        if r is None:
            assert o is None
            continue
        assert tuple(o.shape) == tuple(r.shape), (o.shape, r.shape)
        np.testing.assert_allclose(o.detach().numpy(), r.detach().numpy(), **tol)
    if not grad:
        return out, ref
    rng = np.random.default_rng(seed)
    loss_o, loss_r = None, None
    for o, r in zip(outs, refs):
        if r is not None and r.requires_grad:
            g = rng.standard_normal(tuple(r.shape)).astype(dtype)
            lo, lr = (o * nabla.tensor(g)).sum(), (r * torch.from_numpy(g)).sum()
            loss_o, loss_r = (lo, lr) if loss_o is None else (loss_o + lo, loss_r + lr)
    if loss_r is None:
        return out, ref
    loss_o.backward()
    loss_r.backward()
    pairs = list(zip(_leaves(cache, False), _leaves(cache, True)))
    named = dict(ours.named_parameters())
    pairs += [(named[n], p) for n, p in theirs.named_parameters()]
    for o, r in pairs:
        if r.grad is None:
            assert o.grad is None or not np.any(o.grad.numpy()), "a gradient where PyTorch has none"
            continue
        assert o.grad is not None, "no gradient where PyTorch has one"
        np.testing.assert_allclose(o.grad.numpy(), r.grad.numpy(), **tol)
    return out, ref
