"""Lazy modules: layers whose input size is read from the first input. Each holds
UninitializedParameter / UninitializedBuffer placeholders until its first forward, where a
forward pre-hook materializes them with the input's size, runs reset_parameters and turns the
module into its eager class (LazyLinear -> Linear, ...), as PyTorch's LazyModuleMixin does."""
from __future__ import annotations

from ..._tensor import Tensor
from .._grad_mode import no_grad
from ..parameter import UninitializedBuffer, UninitializedParameter, is_lazy
from .conv import Conv1d, Conv2d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from .linear import Linear
from .normalization import BatchNorm1d, BatchNorm2d
from .volumetric import BatchNorm3d, Conv3d

__all__ = ["LazyModuleMixin", "LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConvTranspose1d",
           "LazyConvTranspose2d", "LazyConv3d", "LazyConvTranspose3d", "LazyBatchNorm1d", "LazyBatchNorm2d",
           "LazyBatchNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d",
           "LazyInstanceNorm3d"]


class LazyModuleMixin:
    """Materializes the module's placeholders from its first input, then becomes cls_to_become."""

    cls_to_become = None

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._watch_first_input()

    def _watch_first_input(self) -> None:
        self._initialize_hook = self.register_forward_pre_hook(_infer_parameters, with_kwargs=True)

    def has_uninitialized_params(self) -> bool:
        return any(is_lazy(t) for t in list(self._parameters.values()) + list(self._buffers.values()))

    def initialize_parameters(self, *args, **kwargs) -> None:
        raise NotImplementedError(f"initialize_parameters is not implemented for {type(self).__name__}")


def _infer_parameters(module, args, kwargs=None):
    module.initialize_parameters(*args, **(kwargs or {}))
    if module.has_uninitialized_params():
        raise RuntimeError(f"module {type(module).__name__} has not been fully initialized")
    module._initialize_hook.remove()
    del module._initialize_hook
    if module.cls_to_become is not None:
        module.__class__ = module.cls_to_become


class LazyLinear(LazyModuleMixin, Linear):
    """Linear whose in_features is the last dim of the first input."""

    cls_to_become = Linear

    def __init__(self, out_features: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor, *args, **kwargs) -> None:
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()


class _LazyConvMixin(LazyModuleMixin):
    def _lazy_init(self, out_channels: int, bias: bool, device, dtype) -> None:
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor, *args, **kwargs) -> None:
        if not self.has_uninitialized_params():
            return
        n = len(self.kernel_size)
        if input.dim() not in (n + 1, n + 2):
            raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to {type(self).__name__}, "
                               f"but got input of size: {input.shape}")
        self.in_channels = input.shape[1] if input.dim() == n + 2 else input.shape[0]
        if self.in_channels % self.groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        with no_grad():
            if self.transposed:
                shape = (self.in_channels, self.out_channels // self.groups, *self.kernel_size)
            else:
                shape = (self.out_channels, self.in_channels // self.groups, *self.kernel_size)
            self.weight.materialize(shape)
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()


def _lazy_conv(name: str, base, transposed: bool):
    def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, *rest, device=None, dtype=None,
                 **kwargs) -> None:
        names = (("output_padding", "groups", "bias", "dilation", "padding_mode") if transposed else
                 ("dilation", "groups", "bias", "padding_mode"))
        options = dict(zip(names, rest), **kwargs)
        bias = options.pop("bias", True)
        base.__init__(self, 0, 0, kernel_size, stride, padding, bias=False, **options)
        self._lazy_init(out_channels, bias, device, dtype)
        self._watch_first_input()

    cls = type(name, (_LazyConvMixin, base), {"__init__": __init__, "cls_to_become": base,
                                              "__doc__": f"{base.__name__} whose in_channels is read from the "
                                                         f"first input."})
    cls.__module__ = __name__
    return cls


LazyConv1d = _lazy_conv("LazyConv1d", Conv1d, False)
LazyConv2d = _lazy_conv("LazyConv2d", Conv2d, False)
LazyConvTranspose1d = _lazy_conv("LazyConvTranspose1d", ConvTranspose1d, True)
LazyConvTranspose2d = _lazy_conv("LazyConvTranspose2d", ConvTranspose2d, True)
LazyConv3d = _lazy_conv("LazyConv3d", Conv3d, False)
LazyConvTranspose3d = _lazy_conv("LazyConvTranspose3d", ConvTranspose3d, True)


class _LazyNormMixin(LazyModuleMixin):
    def _lazy_init(self, device, dtype) -> None:
        if self.affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            self.bias = UninitializedParameter(device=device, dtype=dtype)
        if self.track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        """PyTorch's _NormBase.reset_parameters: running stats 0 / 1, weight 1, bias 0."""
        if self.has_uninitialized_params() or self.num_features == 0:
            return
        with no_grad():
            if self.track_running_stats:
                self.running_mean.zero_()
                self.running_var.fill_(1)
                if getattr(self, "num_batches_tracked", None) is not None:
                    self.num_batches_tracked.zero_()
            if self.affine:
                self.weight.fill_(1)
                self.bias.zero_()

    def initialize_parameters(self, input: Tensor, *args, **kwargs) -> None:
        if not self.has_uninitialized_params():
            return
        self.num_features = input.shape[1] if input.dim() > 1 else input.shape[0]
        with no_grad():
            for name in ("weight", "bias"):
                if is_lazy(getattr(self, name, None)):
                    getattr(self, name).materialize((self.num_features,))
            for name in ("running_mean", "running_var"):
                if is_lazy(self._buffers.get(name)):
                    self._buffers[name].materialize((self.num_features,))
            self.reset_parameters()


def _lazy_norm(name: str, base, affine: bool, track: bool):
    def __init__(self, eps: float = 1e-5, momentum=0.1, affine: bool = affine, track_running_stats: bool = track,
                 device=None, dtype=None) -> None:
        base.__init__(self, 0, eps, momentum, affine, track_running_stats)
        self._lazy_init(device, dtype)
        self._watch_first_input()

    cls = type(name, (_LazyNormMixin, base), {"__init__": __init__, "cls_to_become": base,
                                              "__doc__": f"{base.__name__} whose num_features is read from the "
                                                         f"first input."})
    cls.__module__ = __name__
    return cls


LazyBatchNorm1d = _lazy_norm("LazyBatchNorm1d", BatchNorm1d, True, True)
LazyBatchNorm2d = _lazy_norm("LazyBatchNorm2d", BatchNorm2d, True, True)
LazyBatchNorm3d = _lazy_norm("LazyBatchNorm3d", BatchNorm3d, True, True)
LazyInstanceNorm1d = _lazy_norm("LazyInstanceNorm1d", InstanceNorm1d, True, True)
LazyInstanceNorm2d = _lazy_norm("LazyInstanceNorm2d", InstanceNorm2d, True, True)
LazyInstanceNorm3d = _lazy_norm("LazyInstanceNorm3d", InstanceNorm3d, True, True)
