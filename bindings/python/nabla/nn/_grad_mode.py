"""The no-grad context the toolkit runs its in-place updates under (optimizers, init,
load_state_dict), as PyTorch's do."""
from __future__ import annotations

import contextlib

from .. import _tensor


def no_grad():
    import nabla
    ctx = getattr(nabla, "no_grad", None)
    return ctx() if ctx is not None else contextlib.nullcontext()


def requires_grad(t) -> bool:
    return bool(getattr(t, "requires_grad", False))


def has_autograd() -> bool:
    return hasattr(_tensor.Tensor, "requires_grad_")
