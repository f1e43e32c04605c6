"""with_modules: every nn.Module call as a range "nn.Module: <Class>_<n>" around the ops it runs,
named as torch.profiler names module calls (n counts the distinct instances of the class in the
session, in the order they are first called). Global module forward hooks open and close the
ranges; a range opened before a session ends is closed only if it was recorded."""
from __future__ import annotations

import threading

from .._lib import lib


class ModuleRanges:
    def __init__(self) -> None:
        self._names: dict[int, str] = {}
        self._alive: list = []            # the modules named, so their ids stay theirs until remove()
        self._per_class: dict[str, int] = {}
        self._local = threading.local()
        self._handles: list = []

    def install(self) -> None:
        from ..nn.modules import module  # nn sits beside the profiler; bound when a session asks for it
        self._handles = [module.register_module_forward_pre_hook(self._enter),
                         module.register_module_forward_hook(self._exit, always_call=True)]

    def remove(self) -> None:
        for h in self._handles:
            h.remove()
        self._handles = []
        self._names.clear()
        self._alive.clear()
        self._per_class.clear()

    def _name(self, mod) -> str:
        name = self._names.get(id(mod))
        if name is None:
            cls = type(mod).__name__
            n = self._per_class.get(cls, 0)
            self._per_class[cls] = n + 1
            name = self._names[id(mod)] = f"nn.Module: {cls}_{n}"
            self._alive.append(mod)
        return name

    def _stack(self) -> list:
        st = getattr(self._local, "opened", None)
        if st is None:
            st = self._local.opened = []
        return st

    def _enter(self, mod, args) -> None:
        self._stack().append(lib.nb_profiler_range_push(self._name(mod).encode()) == lib.NB_OK)

    def _exit(self, mod, args, output) -> None:
        st = self._stack()
        if st and st.pop():
            lib.nb_profiler_range_pop()
