"""nabla.jit: torch.jit's names for code that calls them. nabla runs eagerly and has no
TorchScript compiler, so script and trace return what they are given (a module keeps
running in Python), is_scripting() and is_tracing() are False, and the annotations
(Final, ignore, unused, export, annotate) are identities."""
from __future__ import annotations

from typing import Final  # noqa: F401 - torch.jit.Final is typing.Final

__all__ = ["script", "trace", "trace_module", "is_scripting", "is_tracing", "ignore", "unused", "export", "annotate",
           "Final", "ScriptModule", "ScriptFunction", "fork", "wait", "freeze", "optimize_for_inference", "save",
           "load", "interface", "Attribute"]


def script(obj, optimize=None, _frames_up: int = 0, _rcb=None, example_inputs=None):
    """obj itself: nabla does not compile TorchScript (the module or function runs eagerly)."""
    return obj


def trace(func, example_inputs=None, *args, **kwargs):
    """func itself: nabla records no trace; calls run eagerly."""
    return func


def trace_module(mod, inputs, *args, **kwargs):
    return mod


def is_scripting() -> bool:
    return False


def is_tracing() -> bool:
    return False


def ignore(drop=False, **kwargs):
    if callable(drop):
        return drop
    return lambda fn: fn


def unused(fn):
    return fn


def export(fn):
    return fn


def interface(obj):
    return obj


def annotate(the_type, the_value):
    return the_value


def Attribute(value, type):  # noqa: N802,A002 - torch.jit's names
    return value


class _Future:
    def __init__(self, value) -> None:
        self._value = value

    def wait(self):
        return self._value


def fork(func, *args, **kwargs):
    """Runs func now (nabla has no TorchScript thread pool); wait() returns its result."""
    return _Future(func(*args, **kwargs))


def wait(future):
    return future.wait()


def freeze(mod, preserved_attrs=None, optimize_numerics: bool = True):
    return mod


def optimize_for_inference(mod, other_methods=None):
    return mod


def save(m, f, _extra_files=None):
    raise RuntimeError("jit.save: nabla has no TorchScript archives; save the state_dict with nabla.save")


def load(f, map_location=None, _extra_files=None):
    raise RuntimeError("jit.load: nabla cannot load TorchScript archives; load a state_dict with nabla.load")


def _script_class(name: str):
    from ..nn import Module
    return type(name, (Module,), {"__doc__": f"torch.jit.{name}'s name (nabla modules are never scripted)."})


ScriptModule = _script_class("ScriptModule")
ScriptFunction = type("ScriptFunction", (), {"__doc__": "torch.jit.ScriptFunction's name."})
