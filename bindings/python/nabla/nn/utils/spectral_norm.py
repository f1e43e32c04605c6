"""spectral_norm / remove_spectral_norm (the hook form): weight = weight_orig / sigma, sigma the
largest singular value of weight_orig reshaped to [size(dim), -1], estimated by PyTorch's power
iteration on the buffers weight_u / weight_v (updated in place before each training forward)."""
from __future__ import annotations

__all__ = ["spectral_norm", "remove_spectral_norm", "SpectralNorm"]


def _nb():
    import nabla
    return nabla


class SpectralNorm:
    """The forward pre-hook that recomputes module.<name> from <name>_orig, <name>_u and <name>_v."""

    _version: int = 1

    def __init__(self, name: str = "weight", n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12) -> None:
        self.name, self.dim = name, dim
        if n_power_iterations <= 0:
            raise ValueError(f"Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.n_power_iterations, self.eps = n_power_iterations, eps

    def reshape_weight_to_matrix(self, weight):
        """weight with dim moved first, as [size(dim), -1]."""
        mat = weight
        if self.dim != 0:
            mat = mat.permute(self.dim, *[d for d in range(mat.dim()) if d != self.dim])
        return mat.reshape(mat.shape[0], -1)

    def compute_weight(self, module, do_power_iteration: bool):
        nb = _nb()
        F = nb.nn.functional
        weight = getattr(module, self.name + "_orig")
        u, v = getattr(module, self.name + "_u"), getattr(module, self.name + "_v")
        mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with nb.no_grad():
                for _ in range(self.n_power_iterations):
                    v.copy_(F.normalize(nb.mv(mat.t(), u), dim=0, eps=self.eps))
                    u.copy_(F.normalize(nb.mv(mat, v), dim=0, eps=self.eps))
                u, v = u.clone(), v.clone()  # autograd sees these values, not later in-place updates
        sigma = nb.dot(u, nb.mv(mat, v))
        return weight / sigma

    def remove(self, module) -> None:
        nb = _nb()
        with nb.no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        for suffix in ("", "_u", "_v", "_orig"):
            delattr(module, self.name + suffix)
        module.register_parameter(self.name, nb.nn.Parameter(weight.detach()))

    def __call__(self, module, inputs) -> None:
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    @staticmethod
    def apply(module, name: str, n_power_iterations: int, dim: int, eps: float) -> "SpectralNorm":
        nb = _nb()
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters.get(name)
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        if isinstance(weight, nb.nn.UninitializedParameter):
            raise ValueError("The module passed to `SpectralNorm` can't have uninitialized parameters. Make sure to "
                             "run the dummy forward before applying spectral normalization")
        with nb.no_grad():
            h, w = fn.reshape_weight_to_matrix(weight).shape
            u = nb.nn.functional.normalize(weight.new_empty(h).normal_(0, 1), dim=0, eps=fn.eps)
            v = nb.nn.functional.normalize(weight.new_empty(w).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, name)
        module.register_parameter(name + "_orig", weight)
        setattr(module, name, weight.detach())
        module.register_buffer(name + "_u", u)
        module.register_buffer(name + "_v", v)
        module.register_forward_pre_hook(fn)
        return fn


def spectral_norm(module, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12, dim=None):
    """Normalizes module.<name> by its spectral norm before every forward (ConvTranspose*d: dim 1, else 0)."""
    nb = _nb()
    if dim is None:
        transposed = (nb.nn.ConvTranspose1d, nb.nn.ConvTranspose2d, nb.nn.ConvTranspose3d)
        dim = 1 if isinstance(module, transposed) else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module, name: str = "weight"):
    """Folds <name>_orig / sigma back into one <name> Parameter and drops the hook and buffers."""
    for key, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"spectral_norm of '{name}' not found in {module}")
