"""weight_norm / remove_weight_norm (the hook form): weight = g * v / ||v||, recomputed before each forward."""
from __future__ import annotations

__all__ = ["weight_norm", "remove_weight_norm"]


def _norm_except_dim(v, dim):
    dims = [d for d in range(v.dim()) if d != (dim % v.dim())] if dim is not None else list(range(v.dim()))
    if dim is None:
        return v.norm()
    shape = [1] * v.dim()
    shape[dim] = -1
    return (v * v).sum(dims).sqrt().reshape(shape)


class _WeightNorm:
    def __init__(self, name: str, dim) -> None:
        self.name, self.dim = name, dim

    def compute_weight(self, module):
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return v * (g / _norm_except_dim(v, self.dim))

    def __call__(self, module, inputs) -> None:
        module.__dict__[self.name] = self.compute_weight(module)  # a plain attribute, not a parameter


def weight_norm(module, name: str = "weight", dim=0):
    """Replaces module.<name> by <name>_g (magnitude) and <name>_v (direction) Parameters."""
    import nabla
    fn = _WeightNorm(name, dim)
    weight = getattr(module, name)
    del module._parameters[name]
    module.register_parameter(name + "_g", nabla.nn.Parameter(_norm_except_dim(weight, dim).detach().clone()))
    module.register_parameter(name + "_v", nabla.nn.Parameter(weight.detach().clone()))
    module.__dict__[name] = fn.compute_weight(module)
    handle = module.register_forward_pre_hook(fn)
    module.__dict__.setdefault("_weight_norm_hooks", {})[name] = (fn, handle)
    return module


def remove_weight_norm(module, name: str = "weight"):
    """Folds <name>_g and <name>_v back into one <name> Parameter."""
    import nabla
    hooks = module.__dict__.get("_weight_norm_hooks", {})
    if name not in hooks:
        raise ValueError(f"weight_norm of '{name}' not found in {module}")
    fn, handle = hooks.pop(name)
    weight = fn.compute_weight(module)
    handle.remove()
    del module._parameters[name + "_g"], module._parameters[name + "_v"]
    module.__dict__.pop(name, None)
    module.register_parameter(name, nabla.nn.Parameter(weight.detach()))
    return module
