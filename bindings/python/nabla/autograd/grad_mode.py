"""Grad mode: no_grad, enable_grad, set_grad_enabled and inference_mode, each a
context manager and a decorator, as in PyTorch. The state lives in libnabla,
per thread, so every frontend sees the same switch."""
from __future__ import annotations

import functools

from .._lib import lib

_set_grad = lib.nb_set_grad_enabled


def is_grad_enabled() -> bool:
    return bool(lib.nb_grad_enabled())


def is_inference_mode_enabled() -> bool:
    return bool(lib.nb_inference_mode_enabled())


class _DecoratorContextManager:
    """A context manager that also decorates functions (a fresh instance per call)."""

    def __call__(self, func):
        if not callable(func):
            raise TypeError(f"{type(self).__name__} expects a callable to decorate, got {type(func).__name__}")

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return wrapper

    def clone(self):
        return type(self)()


class no_grad(_DecoratorContextManager):
    """Operations inside record no graph: results do not require grad."""
    __slots__ = ("_prev",)

    def __enter__(self):
        self._prev = _set_grad(0)

    def __exit__(self, *exc):
        _set_grad(self._prev)
        return False


class enable_grad(_DecoratorContextManager):
    """Turns grad mode back on inside no_grad."""
    __slots__ = ("_prev",)

    def __enter__(self):
        self._prev = _set_grad(1)

    def __exit__(self, *exc):
        _set_grad(self._prev)
        return False


class set_grad_enabled(_DecoratorContextManager):
    """set_grad_enabled(mode): sets grad mode at once (a plain call works) and
    restores the previous one when used as a context manager."""

    def __init__(self, mode: bool) -> None:
        self._mode = bool(mode)
        self._prev = _set_grad(self._mode)

    def clone(self):
        return type(self)(self._mode)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        _set_grad(self._prev)
        return False


class inference_mode(_DecoratorContextManager):
    """Like no_grad, for code that will never need gradients (inference_mode(False) turns it off)."""

    def __init__(self, mode: bool = True) -> None:
        self._mode = bool(mode)

    def clone(self):
        return type(self)(self._mode)

    def __call__(self, func):
        if isinstance(func, bool):  # @inference_mode(False) style misuse is PyTorch's error too
            raise TypeError("inference_mode expects a callable to decorate")
        return super().__call__(func)

    def __enter__(self):
        self._prev = lib.nb_set_inference_mode(self._mode)

    def __exit__(self, *exc):
        lib.nb_set_inference_mode(self._prev)
        return False
