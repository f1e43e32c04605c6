"""Argument checks shared by the optimizers (PyTorch's messages)."""
from __future__ import annotations


def check_lr(lr) -> None:
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")


def check_eps(eps) -> None:
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")


def check_weight_decay(weight_decay) -> None:
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


def check_momentum(momentum) -> None:
    if not 0.0 <= momentum:
        raise ValueError(f"Invalid momentum value: {momentum}")


def check_betas(betas) -> None:
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")


def unsupported(name: str, **flags) -> None:
    for flag, value in flags.items():
        if value:
            raise NotImplementedError(f"{name}: {flag}=True is not supported (each step is already one C call "
                                      "per param group)")
