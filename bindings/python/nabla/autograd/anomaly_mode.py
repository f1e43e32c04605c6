"""Anomaly detection: backward fails naming the node whose gradient has NaN."""
from __future__ import annotations

from .._lib import lib


def set_detect_anomaly(mode: bool, check_nan: bool = True):
    """Turns anomaly detection on or off (process-wide); usable as a context manager."""
    return _Anomaly(mode and check_nan)


def is_anomaly_enabled() -> bool:
    return bool(lib.nb_anomaly_mode_enabled())


class _Anomaly:
    def __init__(self, mode: bool) -> None:
        self._prev = lib.nb_set_anomaly_mode(bool(mode))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        lib.nb_set_anomaly_mode(self._prev)
        return False


class detect_anomaly:
    """Context manager (and decorator) enabling anomaly detection inside."""

    def __init__(self, check_nan: bool = True) -> None:
        self._check_nan = check_nan

    def __enter__(self):
        self._prev = lib.nb_set_anomaly_mode(bool(self._check_nan))
        return self

    def __exit__(self, *exc):
        lib.nb_set_anomaly_mode(self._prev)
        return False

    def __call__(self, func):
        import functools

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with detect_anomaly(self._check_nan):
                return func(*args, **kwargs)
        return wrapper
