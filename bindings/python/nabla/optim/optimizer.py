"""optim.Optimizer: param groups, per-parameter state, zero_grad, state_dict / load_state_dict
and step hooks, as PyTorch's. Subclasses implement step() with one C call per param group
(the list ops, `foreach`: every parameter of the group updated in that call)."""
from __future__ import annotations

import copy
from collections import OrderedDict, defaultdict
from itertools import chain
from typing import Any, Callable, Iterable

from .._lib import error, ffi, lib
from .._tensor import Tensor
from ..nn._grad_mode import no_grad
from ..nn.modules.module import RemovableHandle

__all__ = ["Optimizer", "required"]


class _Required:
    def __repr__(self) -> str:
        return "<required parameter>"


required = _Required()
_set_grad = lib.nb_set_grad_enabled


def _enable_grad():
    import contextlib
    import nabla
    ctx = getattr(nabla, "enable_grad", None)
    return ctx() if ctx is not None else contextlib.nullcontext()


def _handles(tensors: list | None):
    return ffi.NULL if tensors is None else ffi.new("nb_tensor*[]", [t._h for t in tensors])


def with_grads(params: list) -> tuple[list, list]:
    """The parameters that have a gradient, and those gradients (each .grad read once)."""
    ps, gs = [], []
    for p in params:
        g = p.grad
        if g is not None:
            ps.append(p)
            gs.append(g)
    return ps, gs


def list_call(fn, lists: list, steps: list | None, *args) -> None:
    """Calls the list op fn once over parallel lists of tensors (None: a NULL list), with the per-tensor
    step counts when given. A group whose parameters live on several devices is split by device: the op
    checks every tensor before it writes any, so the first call changed nothing."""
    n = len(lists[0])
    if n == 0:
        return
    arrays = [_handles(ts) for ts in lists]
    counts = () if steps is None else (ffi.new("int64_t[]", steps),)
    status = fn(*arrays, *counts, n, *args)
    if status == lib.NB_ERR_DEVICE and len({p.device for p in lists[0]}) > 1:
        by_device: dict = {}
        for i, p in enumerate(lists[0]):
            by_device.setdefault(p.device, []).append(i)
        for idx in by_device.values():
            list_call(fn, [None if ts is None else [ts[i] for i in idx] for ts in lists],
                    None if steps is None else [steps[i] for i in idx], *args)
        return
    if status:
        raise error(status)


class Optimizer:
    """Base class of the optimizers: params is an iterable of tensors or of dicts (param groups)."""

    def __init__(self, params: Iterable, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self._optimizer_step_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_step_post_hooks: OrderedDict = OrderedDict()
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, but "
                            f"got {type(params).__name__}")
        self.state: defaultdict = defaultdict(dict)
        self.param_groups: list[dict] = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)

    def __repr__(self) -> str:
        s = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            s += f"\nParameter Group {i}"
            for key in sorted(group):
                if key != "params":
                    s += f"\n    {key}: {group[key]}"
        return s + "\n)"

    def add_param_group(self, param_group: dict) -> None:
        """Adds a group of parameters with its own options (missing ones take the defaults)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering of "
                            "tensors in sets will change between runs. Please use a list instead.")
        else:
            param_group["params"] = list(params)
        for p in param_group["params"]:
            if not isinstance(p, Tensor):
                raise TypeError(f"optimizer can only optimize Tensors, but one of the params is {type(p).__name__}")
            if not getattr(p, "is_leaf", True):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)
        params = param_group["params"]
        if len(params) != len({id(p) for p in params}):
            import warnings
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will "
                          "cause an error", stacklevel=3)
        seen = {id(p) for group in self.param_groups for p in group["params"]}
        if any(id(p) in seen for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Sets every parameter's .grad to None (default) or zeroes it."""
        for group in self.param_groups:
            for p in group["params"]:
                g = p.grad
                if g is not None:
                    if set_to_none:
                        p.grad = None
                    else:
                        with no_grad():
                            g.zero_()

    def _closure(self, closure: Callable | None):
        if closure is None:
            return None
        with _enable_grad():
            return closure()

    def step(self, closure: Callable | None = None):
        raise NotImplementedError

    # ---- hooks ----

    def register_step_pre_hook(self, hook: Callable) -> RemovableHandle:
        """hook(optimizer, args, kwargs) runs before each step."""
        handle = RemovableHandle(self._optimizer_step_pre_hooks)
        self._optimizer_step_pre_hooks[handle.id] = hook
        return handle

    def register_step_post_hook(self, hook: Callable) -> RemovableHandle:
        """hook(optimizer, args, kwargs) runs after each step."""
        handle = RemovableHandle(self._optimizer_step_post_hooks)
        self._optimizer_step_post_hooks[handle.id] = hook
        return handle

    def __init_subclass__(cls, **kwargs):
        """Wraps each subclass's step so that the step hooks run around it (when there are any)."""
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if step is None or getattr(step, "_hooked", False):
            return

        def hooked(self, *args, **kwargs):
            prev = _set_grad(0)  # updates write into leaves that require grad: no graph, as in PyTorch
            try:
                if not (self._optimizer_step_pre_hooks or self._optimizer_step_post_hooks):
                    return step(self, *args, **kwargs)
                for hook in list(self._optimizer_step_pre_hooks.values()):
                    result = hook(self, args, kwargs)
                    if result is not None:
                        args, kwargs = result
                out = step(self, *args, **kwargs)
                for hook in list(self._optimizer_step_post_hooks.values()):
                    hook(self, args, kwargs)
                return out
            finally:
                _set_grad(prev)

        hooked._hooked = True
        hooked.__doc__, hooked.__name__ = step.__doc__, "step"
        cls.step = hooked

    # ---- state ----

    def state_dict(self) -> dict:
        """{'state': {index: {...}}, 'param_groups': [{..., 'params': [indices]}]}: PyTorch's layout, with
        parameters numbered in group order."""
        index: dict = {}
        start = 0
        groups = []
        for group in self.param_groups:
            ids = list(range(start, start + len(group["params"])))
            for p, i in zip(group["params"], ids):
                index.setdefault(id(p), i)
            start += len(group["params"])
            packed = {k: v for k, v in group.items() if k != "params"}
            packed["params"] = ids
            groups.append(packed)
        state = {index[id(p)]: self._export_state(v) for p, v in self.state.items() if id(p) in index}
        return {"state": state, "param_groups": groups}

    def _export_state(self, state: dict) -> dict:
        """A parameter's state as PyTorch stores it (the step count as a float tensor)."""
        out = {}
        for k, v in state.items():
            if k == "step" and not isinstance(v, Tensor):
                from .._factory import tensor
                from .._dtype import float32
                v = tensor(float(v), dtype=float32)
            out[k] = v
        return out

    def load_state_dict(self, state_dict: dict) -> None:
        """Restores options and per-parameter state saved by state_dict() (tensors are copied, cast to the
        parameter's dtype for floating state)."""
        state_dict = dict(state_dict)
        groups, saved_groups = self.param_groups, state_dict["param_groups"]
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        param_lens = (len(g["params"]) for g in groups)
        saved_lens = (len(g["params"]) for g in saved_groups)
        if any(p_len != s_len for p_len, s_len in zip(param_lens, saved_lens)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                             "optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))
        state: defaultdict = defaultdict(dict)
        for k, v in state_dict["state"].items():
            key = int(k) if isinstance(k, str) else k
            if key in id_map:
                param = id_map[key]
                state[param] = {name: self._import_state(param, name, value) for name, value in v.items()}
            else:
                state[k] = v
        new_groups = []
        for group, saved in zip(groups, saved_groups):
            g = {k: copy.deepcopy(v) if not isinstance(v, Tensor) else v for k, v in saved.items() if k != "params"}
            g["params"] = group["params"]
            new_groups.append(g)
        self.state = state
        self.param_groups = new_groups

    @staticmethod
    def _import_state(param: Tensor, name: str, value):
        if name == "step":
            return int(value.item()) if isinstance(value, Tensor) else int(value)
        if isinstance(value, Tensor):
            if value.is_floating_point():
                return value.to(dtype=param.dtype, device=param.device, copy=True)
            return value.to(device=param.device, copy=True)
        return copy.deepcopy(value)
