"""The float32 matmul precision PyTorch scripts set ('highest', 'high', 'medium'). nabla records
it; its GEMMs compute in full float32 whatever it says (a precision hint, never a contract)."""
from __future__ import annotations

_VALUES = ("highest", "high", "medium")
_current = ["highest"]


def get() -> str:
    return _current[0]


def set(precision: str) -> None:  # noqa: A001 - the module's verb
    if precision not in _VALUES:
        raise RuntimeError(f"Invalid precision {precision!r}: expected one of {', '.join(_VALUES)}")
    _current[0] = precision


def set_float32_matmul_precision(precision: str) -> None:
    """Sets the float32 matmul precision hint ('highest', 'high' or 'medium')."""
    set(precision)


def get_float32_matmul_precision() -> str:
    """The float32 matmul precision hint ('highest' unless set)."""
    return get()
