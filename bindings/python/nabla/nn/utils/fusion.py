"""Folding an eval-mode BatchNorm into the convolution or linear layer before it."""
from __future__ import annotations

import copy

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights"]


def _nb():
    import nabla
    return nabla


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose: bool = False):
    """(weight, bias) Parameters of the convolution that computes conv then bn (running statistics)."""
    nb = _nb()
    if conv_b is None:
        conv_b = nb.zeros_like(bn_rm)
    if bn_w is None:
        bn_w = nb.ones_like(bn_rm)
    if bn_b is None:
        bn_b = nb.zeros_like(bn_rm)
    bn_var_rsqrt = nb.rsqrt(bn_rv + bn_eps)
    shape = [1] * conv_w.dim()
    shape[1 if transpose else 0] = -1
    fused_w = conv_w * (bn_w * bn_var_rsqrt).reshape(shape)
    fused_b = (conv_b - bn_rm) * bn_var_rsqrt * bn_w + bn_b
    return nb.nn.Parameter(fused_w.detach(), conv_w.requires_grad), nb.nn.Parameter(fused_b.detach(),
                                                                                    conv_b.requires_grad)


def fuse_conv_bn_eval(conv, bn, transpose: bool = False):
    """A copy of conv (eval mode) that also applies bn."""
    if conv.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused = copy.deepcopy(conv)
    fused.weight, fused.bias = fuse_conv_bn_weights(fused.weight, fused.bias, bn.running_mean, bn.running_var,
                                                    bn.eps, bn.weight, bn.bias, transpose)
    return fused


def fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    nb = _nb()
    if linear_b is None:
        linear_b = nb.zeros_like(bn_rm)
    bn_scale = bn_w * nb.rsqrt(bn_rv + bn_eps)
    fused_w = linear_w * bn_scale.unsqueeze(-1)
    fused_b = (linear_b - bn_rm) * bn_scale + bn_b
    return nb.nn.Parameter(fused_w.detach(), linear_w.requires_grad), nb.nn.Parameter(fused_b.detach(),
                                                                                      linear_b.requires_grad)


def fuse_linear_bn_eval(linear, bn):
    if linear.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused = copy.deepcopy(linear)
    fused.weight, fused.bias = fuse_linear_bn_weights(fused.weight, fused.bias, bn.running_mean, bn.running_var,
                                                      bn.eps, bn.weight, bn.bias)
    return fused
