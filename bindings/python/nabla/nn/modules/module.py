"""nn.Module: the base class of every layer and model, with PyTorch's registration,
traversal, state_dict, mode, conversion and hook machinery."""
from __future__ import annotations

import itertools
import warnings
from collections import OrderedDict, namedtuple
from typing import Callable, Iterator

from ..._tensor import Tensor
from .. import _grad_mode
from ...utils.hooks import BackwardHook, HookDict, RemovableHandle
from ..parameter import Buffer, Parameter

__all__ = ["Module", "RemovableHandle", "register_module_forward_pre_hook", "register_module_forward_hook",
           "register_module_full_backward_pre_hook", "register_module_full_backward_hook",
           "register_module_backward_hook", "register_module_parameter_registration_hook",
           "register_module_buffer_registration_hook", "register_module_module_registration_hook"]

_setattr = object.__setattr__


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


_HookDict = HookDict

# torch.nn.modules.module's global hooks: every module's calls (and registrations) run them, before
# the module's own. _global_any holds every global hook's id, so the call path tests one dict.
_global_any: dict = HookDict()
_global_forward_pre_hooks: dict = HookDict()
_global_forward_hooks: dict = HookDict()
_global_forward_hooks_with_kwargs: dict = {}
_global_forward_hooks_always_called: dict = {}
_global_backward_pre_hooks: dict = HookDict()
_global_backward_hooks: dict = HookDict()
_global_is_full_backward_hook: bool | None = None
_global_parameter_registration_hooks: dict = HookDict()
_global_buffer_registration_hooks: dict = HookDict()
_global_module_registration_hooks: dict = HookDict()


def _register_global(registry: dict, hook, *extra: dict) -> RemovableHandle:
    handle = RemovableHandle(registry, _global_any, *extra)
    registry[handle.id] = hook
    _global_any[handle.id] = True
    return handle


def register_module_forward_pre_hook(hook) -> RemovableHandle:
    """hook(module, args) -> None or new args, before every module's forward (and its own pre-hooks)."""
    return _register_global(_global_forward_pre_hooks, hook)


def register_module_forward_hook(hook, *, with_kwargs: bool = False, always_call: bool = False) -> RemovableHandle:
    """hook(module, args, output) -> None or a new output, after every module's forward (before its own hooks);
    always_call: also when forward raises (output None)."""
    handle = _register_global(_global_forward_hooks, hook, _global_forward_hooks_with_kwargs,
                              _global_forward_hooks_always_called)
    if with_kwargs:
        _global_forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle


def _set_global_backward_kind(full: bool) -> None:
    global _global_is_full_backward_hook
    if _global_is_full_backward_hook is not None and _global_is_full_backward_hook != full:
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks as a global "
                           "Module hook. Please use only one of them.")
    _global_is_full_backward_hook = full


def register_module_full_backward_pre_hook(hook) -> RemovableHandle:
    """hook(module, grad_output) -> None or a new grad_output, for every module."""
    return _register_global(_global_backward_pre_hooks, hook)


def register_module_full_backward_hook(hook) -> RemovableHandle:
    """hook(module, grad_input, grad_output) -> None or a new grad_input, for every module."""
    _set_global_backward_kind(True)
    return _register_global(_global_backward_hooks, hook)


def register_module_backward_hook(hook) -> RemovableHandle:
    """Deprecated in torch; nabla runs it as a full backward hook (what it was meant to give)."""
    _set_global_backward_kind(False)
    return _register_global(_global_backward_hooks, hook)


def register_module_parameter_registration_hook(hook) -> RemovableHandle:
    """hook(module, name, param) -> None or a replacement, whenever a module registers a parameter."""
    return _register_global(_global_parameter_registration_hooks, hook)


def register_module_buffer_registration_hook(hook) -> RemovableHandle:
    """hook(module, name, buffer) -> None or a replacement, whenever a module registers a buffer."""
    return _register_global(_global_buffer_registration_hooks, hook)


def register_module_module_registration_hook(hook) -> RemovableHandle:
    """hook(module, name, submodule) -> None or a replacement, whenever a module registers a submodule."""
    return _register_global(_global_module_registration_hooks, hook)


def _run_registration_hooks(registry: dict, module, name: str, value):
    for hook in list(registry.values()):
        out = hook(module, name, value)
        if out is not None:
            value = out
    return value


def _addindent(s: str, n: int) -> str:
    lines = s.split("\n")
    if len(lines) == 1:
        return s
    return lines[0] + "\n" + "\n".join(" " * n + line for line in lines[1:])


class Module:
    """Base class for all neural network modules; subclasses set parameters and
    submodules as attributes in __init__ and compute in forward()."""

    training: bool
    _version = 1

    def __init__(self, *args, **kwargs) -> None:
        if args or kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() takes no arguments")
        _setattr(self, "training", True)
        _setattr(self, "_parameters", {})
        _setattr(self, "_buffers", {})
        _setattr(self, "_non_persistent_buffers_set", set())
        _setattr(self, "_modules", {})
        _setattr(self, "_forward_hooks", _HookDict())
        _setattr(self, "_forward_hooks_with_kwargs", {})
        _setattr(self, "_forward_hooks_always_called", {})
        _setattr(self, "_forward_pre_hooks", _HookDict())
        _setattr(self, "_forward_pre_hooks_with_kwargs", {})
        _setattr(self, "_backward_pre_hooks", _HookDict())
        _setattr(self, "_backward_hooks", _HookDict())
        _setattr(self, "_is_full_backward_hook", None)

    forward: Callable

    def forward(self, *input):  # noqa: F811 - the documented placeholder
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    # ---- calling ----

    def __call__(self, *args, **kwargs):
        if not (self._forward_hooks or self._forward_pre_hooks or self._backward_hooks or self._backward_pre_hooks
                or _global_any):
            return self.forward(*args, **kwargs)
        return self._call_with_hooks(args, kwargs)

    def _call_with_hooks(self, args, kwargs):
        """torch's _call_impl: global then own forward pre-hooks, the backward hooks' input side,
        forward, global then own forward hooks, the backward hooks' output side. The always-called
        forward hooks run, with output None, when anything in between raises."""
        fwd_hooks = [(i, h, _global_forward_hooks_with_kwargs, _global_forward_hooks_always_called)
                     for i, h in _global_forward_hooks.items()]
        fwd_hooks += [(i, h, self._forward_hooks_with_kwargs, self._forward_hooks_always_called)
                      for i, h in self._forward_hooks.items()]
        always_called = set()
        try:
            for hook_id, hook in [*_global_forward_pre_hooks.items(), *self._forward_pre_hooks.items()]:
                if hook_id in self._forward_pre_hooks_with_kwargs:
                    result = hook(self, args, kwargs)
                    if result is not None:
                        if not (isinstance(result, tuple) and len(result) == 2):
                            raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, "
                                               f"new_kwargs), but got {result}.")
                        args, kwargs = result
                else:
                    result = hook(self, args)
                    if result is not None:
                        args = result if isinstance(result, tuple) else (result,)
            bw_hook = None
            full, pre = self._backward_hook_lists()
            if full or pre:
                bw_hook = BackwardHook(self, full, pre)
                args = bw_hook.setup_input_hook(args)
            output = self.forward(*args, **kwargs)
            for hook_id, hook, with_kwargs, always in fwd_hooks:
                result = hook(self, args, kwargs, output) if hook_id in with_kwargs else hook(self, args, output)
                if hook_id in always:
                    always_called.add(hook_id)
                if result is not None:
                    output = result
            if bw_hook is not None:
                if not isinstance(output, (Tensor, tuple)):
                    warnings.warn("For backward hooks to be called, module output should be a Tensor or a tuple "
                                  f"of Tensors but received {type(output)}", stacklevel=2)
                output = bw_hook.setup_output_hook(output)
            return output
        except Exception:
            for hook_id, hook, with_kwargs, always in fwd_hooks:
                if hook_id in always and hook_id not in always_called:
                    try:
                        hook(self, args, kwargs, None) if hook_id in with_kwargs else hook(self, args, None)
                    except Exception as exc:  # noqa: BLE001 - torch warns and re-raises the first error
                        warnings.warn(f"module forward hook with ``always_call=True`` raised an exception that "
                                      f"was silenced as another error was raised in forward: {exc}", stacklevel=2)
            raise

    def _backward_hook_lists(self) -> tuple[list, list]:
        full = [*_global_backward_hooks.values(), *self._backward_hooks.values()]
        pre = [*_global_backward_pre_hooks.values(), *self._backward_pre_hooks.values()]
        return full, pre

    def register_forward_pre_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False) -> RemovableHandle:
        """hook(module, args) -> None or new args; with_kwargs: hook(module, args, kwargs) -> None or (args, kwargs)."""
        handle = RemovableHandle(self._forward_pre_hooks, self._forward_pre_hooks_with_kwargs)
        self._forward_pre_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False) -> RemovableHandle:
        """hook(module, args, output) -> None or a new output; with_kwargs: hook(module, args, kwargs, output)."""
        handle = RemovableHandle(self._forward_hooks, self._forward_hooks_with_kwargs,
                                 self._forward_hooks_always_called)
        self._forward_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)
        return handle

    def _set_backward_kind(self, full: bool) -> None:
        if self._is_full_backward_hook is not None and self._is_full_backward_hook != full:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a single Module. "
                               "Please use only one of them.")
        _setattr(self, "_is_full_backward_hook", full)

    def register_full_backward_pre_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """hook(module, grad_output) -> None or a new grad_output, when the gradients of the module's
        outputs are known (before grad_input is computed)."""
        handle = RemovableHandle(self._backward_pre_hooks)
        self._backward_pre_hooks[handle.id] = hook
        if prepend:
            self._backward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """hook(module, grad_input, grad_output) -> None or a new grad_input, when the gradients of the
        module's tensor inputs are known (grad_input has None for non-tensor or non-requiring inputs)."""
        self._set_backward_kind(True)
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        if prepend:
            self._backward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_backward_hook(self, hook) -> RemovableHandle:
        """Deprecated in torch; nabla runs it as a full backward hook (what it was meant to give)."""
        self._set_backward_kind(False)
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        return handle

    # ---- registration ----

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Adds a parameter (or None) under name."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        self._check_name(name, "parameter")
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is None:
            self._parameters[name] = None
        elif not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{type(param).__name__}' object to parameter '{name}' "
                            "(nabla.nn.Parameter or None required)")
        else:
            self._parameters[name] = _run_registration_hooks(_global_parameter_registration_hooks, self, name, param)

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Adds a buffer (state that is not a parameter, such as running statistics) under name."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        self._check_name(name, "buffer")
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{type(tensor).__name__}' object to buffer '{name}' "
                            "(nabla Tensor or None required)")
        if isinstance(tensor, Buffer):
            persistent = tensor.persistent
        if tensor is not None:
            tensor = _run_registration_hooks(_global_buffer_registration_hooks, self, name, tensor)
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name: str, module: Module | None) -> None:
        """Adds a child module under name (accessible as an attribute)."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        self._check_name(name, "module")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if module is not None:
            module = _run_registration_hooks(_global_module_registration_hooks, self, name, module)
        self._modules[name] = module

    register_module = add_module

    @staticmethod
    def _check_name(name, kind: str) -> None:
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {type(name).__name__}")
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain "."')

    def __getattr__(self, name: str):
        d = self.__dict__
        if "_parameters" in d:
            p = d["_parameters"]
            if name in p:
                return p[name]
            b = d["_buffers"]
            if name in b:
                return b[name]
            m = d["_modules"]
            if name in m:
                return m[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value) -> None:
        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._remove_from(name, d, params, "_parameters")
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{type(value).__name__}' as parameter '{name}' "
                                "(nabla.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        elif isinstance(value, Module):
            if "_modules" not in d:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._remove_from(name, d, params, "_modules")
            d["_modules"][name] = _run_registration_hooks(_global_module_registration_hooks, self, name, value)
        elif "_modules" in d and name in d["_modules"]:
            if value is not None:
                raise TypeError(f"cannot assign '{type(value).__name__}' as child module '{name}' "
                                "(nabla.nn.Module or None expected)")
            d["_modules"][name] = value
        elif isinstance(value, Buffer) or ("_buffers" in d and name in d["_buffers"]):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{type(value).__name__}' as buffer '{name}' "
                                "(nabla.Tensor or None expected)")
            if isinstance(value, Buffer):
                self._remove_from(name, d, params, "_buffers")
                self.register_buffer(name, value, value.persistent)
            else:
                d["_buffers"][name] = value
        else:
            _setattr(self, name, value)

    @staticmethod
    def _remove_from(name: str, d: dict, params, keep: str) -> None:
        """Drops name from the instance dict and from the registries other than `keep`: re-assigning a
        parameter, buffer or submodule keeps its position there (parameters() and state_dict() order)."""
        d.pop(name, None)
        if params is not None:
            for key in ("_parameters", "_buffers", "_modules"):
                if key != keep:
                    d[key].pop(name, None)
            if keep != "_buffers":
                d["_non_persistent_buffers_set"].discard(name)

    def __delattr__(self, name: str) -> None:
        d = self.__dict__
        for key in ("_parameters", "_buffers", "_modules"):
            if key in d and name in d[key]:
                del d[key][name]
                d["_non_persistent_buffers_set"].discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        keys = list(object.__dir__(self)) + list(self._parameters) + list(self._modules) + list(self._buffers)
        return sorted(k for k in set(keys) if not k[0].isdigit())

    def __setstate__(self, state):
        self.__dict__.update(state)
        for name in ("_backward_pre_hooks", "_backward_hooks"):  # saved before these existed
            if name not in self.__dict__:
                _setattr(self, name, _HookDict())
        if "_is_full_backward_hook" not in self.__dict__:
            _setattr(self, "_is_full_backward_hook", None)

    # ---- traversal ----

    def _named_members(self, get_members, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
        memo = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for k, v in get_members(module):
                if v is None or (remove_duplicate and id(v) in memo):
                    continue
                if remove_duplicate:
                    memo.add(id(v))
                yield (module_prefix + ("." if module_prefix else "") + k, v)

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple[str, Parameter]]:
        """(name, parameter) pairs, recursively with dotted names ('0.weight')."""
        return self._named_members(lambda m: m._parameters.items(), prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        return self._named_members(lambda m: m._buffers.items(), prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def named_children(self) -> Iterator[tuple[str, Module]]:
        memo = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in memo:
                memo.add(id(module))
                yield name, module

    def children(self) -> Iterator[Module]:
        for _, m in self.named_children():
            yield m

    def named_modules(self, memo: set | None = None, prefix: str = "", remove_duplicate: bool = True):
        """(name, module) for this module ('' or prefix) and every descendant."""
        if memo is None:
            memo = set()
        if id(self) in memo:
            return
        if remove_duplicate:
            memo.add(id(self))
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            yield from module.named_modules(memo, prefix + ("." if prefix else "") + name, remove_duplicate)

    def modules(self) -> Iterator[Module]:
        for _, m in self.named_modules():
            yield m

    def get_submodule(self, target: str) -> Module:
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if item not in mod._modules:
                raise AttributeError(f"{mod._get_name()} has no attribute `{item}`")
            mod = mod._modules[item]
        return mod

    def get_parameter(self, target: str) -> Parameter:
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if name not in mod._parameters:
            raise AttributeError(f"{mod._get_name()} has no parameter `{name}`")
        return mod._parameters[name]

    def get_buffer(self, target: str) -> Tensor:
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if name not in mod._buffers:
            raise AttributeError(f"{mod._get_name()} has no buffer `{name}`")
        return mod._buffers[name]

    # ---- state ----

    def _save_to_state_dict(self, destination: dict, prefix: str, keep_vars: bool) -> None:
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars else _detached(p)
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = b if keep_vars else _detached(b)

    def state_dict(self, *args, destination=None, prefix: str = "", keep_vars: bool = False) -> dict:
        """An OrderedDict of every parameter and persistent buffer by dotted name (tensors share storage)."""
        if args:  # PyTorch's deprecated positional form (destination, prefix, keep_vars)
            destination = args[0]
            prefix = args[1] if len(args) > 1 else prefix
            keep_vars = args[2] if len(args) > 2 else keep_vars
        if destination is None:
            destination = OrderedDict()
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        return destination

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs, assign=False) -> None:
        local = {k: v for k, v in itertools.chain(self._parameters.items(), self._buffers.items())
                 if v is not None and k not in self._non_persistent_buffers_set}
        for name, param in local.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            value = state_dict[key]
            if not isinstance(value, Tensor):
                error_msgs.append(f'While copying the parameter named "{key}", expected nabla.Tensor or '
                                  f"Tensor-like object from checkpoint but received {type(value)}")
                continue
            if value.shape != param.shape:
                error_msgs.append(f"size mismatch for {key}: copying a param with shape {value.shape} from "
                                  f"checkpoint, the shape in current model is {param.shape}.")
                continue
            try:
                if assign:
                    if name in self._parameters:
                        self._parameters[name] = value if isinstance(value, Parameter) else \
                            Parameter(value, _grad_mode.requires_grad(param))
                    else:
                        self._buffers[name] = value
                else:
                    with _grad_mode.no_grad():
                        param.copy_(value)
            except Exception as ex:
                error_msgs.append(f'While copying the parameter named "{key}", whose dimensions in the model are '
                                  f"{param.shape} and whose dimensions in the checkpoint are {value.shape}, an "
                                  f"exception occurred : {ex.args}.")
        if strict:
            for key in state_dict:
                if key.startswith(prefix):
                    input_name = key[len(prefix):].split(".", 1)
                    if input_name[0] not in self._modules and input_name[0] not in local:
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict: bool = True, assign: bool = False):
        """Copies parameters and buffers from state_dict; with strict, missing and unexpected keys are errors.
        Shape mismatches are always errors. Returns (missing_keys, unexpected_keys)."""
        if not hasattr(state_dict, "keys") or not hasattr(state_dict, "__getitem__"):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing, unexpected, errors = [], [], []

        def load(module, prefix=""):
            module._load_from_state_dict(state_dict, prefix, {}, True, missing, unexpected, errors, assign)
            for name, child in module._modules.items():
                if child is not None:
                    load(child, prefix + name + ".")

        load(self)
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected)))
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in missing)))
        if errors:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                self._get_name(), "\n\t".join(errors)))
        return _IncompatibleKeys(missing, unexpected)

    # ---- modes and conversion ----

    def train(self, mode: bool = True) -> Module:
        """Sets training mode here and in every descendant (Dropout and BatchNorm behave differently)."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for m in self.modules():
            _setattr(m, "training", mode)
        return self

    def eval(self) -> Module:
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Clears every parameter's .grad (sets it to None, or zeroes it)."""
        for p in self.parameters():
            if getattr(p, "grad", None) is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                p.grad.zero_()

    def apply(self, fn: Callable[[Module], None]) -> Module:
        """Calls fn on every descendant (children first), then on self."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def _apply(self, fn: Callable[[Tensor], Tensor]) -> Module:
        """Converts every parameter and buffer with fn; parameters keep their identity (their handle is swapped),
        so optimizers built before the conversion still hold them."""
        for module in self.modules():
            for name, p in module._parameters.items():
                if p is None:
                    continue
                new = fn(p)
                if new is p:
                    continue
                grad = getattr(p, "grad", None)
                _swap_handle(p, Parameter(new, _grad_mode.requires_grad(p)))
                if grad is not None:
                    p.grad = fn(grad)
            for name, b in module._buffers.items():
                if b is not None:
                    module._buffers[name] = fn(b)
        return self

    def to(self, *args, **kwargs) -> Module:
        """to(device), to(dtype), to(device, dtype), to(tensor): floating parameters and buffers take the dtype."""
        dtype, device = kwargs.pop("dtype", None), kwargs.pop("device", None)
        kwargs.pop("non_blocking", None)
        fmt = kwargs.pop("memory_format", None)
        if kwargs:
            raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
        from ..._dtype import dtype as _dtype_cls
        for a in args:
            if isinstance(a, _dtype_cls):
                dtype = a
            elif isinstance(a, Tensor):
                dtype, device = a.dtype, a.device
            else:
                device = a
        if dtype is not None and not dtype.is_floating_point:
            raise TypeError(f"nn.Module.to only accepts floating point or complex dtypes, but got desired dtype={dtype}")

        def convert(t: Tensor) -> Tensor:
            kw = {}
            if device is not None:
                kw["device"] = device
            if dtype is not None and t.is_floating_point():
                kw["dtype"] = dtype
            if fmt is not None and t.dim() in (4, 5):  # as PyTorch: only 4-d and 5-d tensors take a format
                kw["memory_format"] = fmt
            return t.to(**kw) if kw else t

        return self._apply(convert)

    def float(self) -> Module:
        from ... import float32
        return self._apply(lambda t: t.to(float32) if t.is_floating_point() else t)

    def double(self) -> Module:
        from ... import float64
        return self._apply(lambda t: t.to(float64) if t.is_floating_point() else t)

    def half(self) -> Module:
        from ... import float16
        return self._apply(lambda t: t.to(float16) if t.is_floating_point() else t)

    def bfloat16(self) -> Module:
        from ... import bfloat16
        return self._apply(lambda t: t.to(bfloat16) if t.is_floating_point() else t)

    def cpu(self) -> Module:
        return self._apply(lambda t: t.to("cpu"))

    def cuda(self, device=None) -> Module:
        return self._apply(lambda t: t.cuda(device))

    def share_memory(self) -> Module:
        """Moves every parameter and buffer into shared memory (for worker processes, Hogwild)."""
        for t in list(self.parameters()) + list(self.buffers()):
            t.share_memory_()
        return self

    # ---- printing ----

    def _get_name(self) -> str:
        return type(self).__name__

    def extra_repr(self) -> str:
        """The layer's settings, shown inside its repr."""
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({key}): " + _addindent(repr(module), 2) for key, module in self._modules.items()]
        lines = extra_lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"


def _detached(t: Tensor) -> Tensor:
    if hasattr(t, "detach"):
        return t.detach()
    return t


def _swap_handle(a: Tensor, b: Tensor) -> None:
    """Exchanges the C tensors behind two Python tensors (PyTorch's `param.data = new`)."""
    a._h, b._h = b._h, a._h
    a._shape = b._shape = None
