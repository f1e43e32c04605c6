"""Optimizer steps on the CPU: nabla's list calls (one C call per param group), the same
update as one C call per parameter (how nabla's optimizers ran before the list ops), and
PyTorch, in one process. Rows: the optimizer step alone, and whole training steps
(forward, backward, step) of bench_train's MLP (Adam, batch 1 and 32) and transformer
encoder (AdamW), where the per-call host overhead of the step shows.

Target: the list step at least as fast as the per-parameter one (ratio list/per-param
<= 1.0), and the training steps' nabla/torch ratios no worse than before. On the CPU the
step is bound by memory bandwidth, so the list call gains the per-call overhead (about
a microsecond per parameter) and one parallel region instead of one per large tensor;
the launches it saves on a GPU are measured by bench_cuda.py."""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

from bench_train import mlp_step, transformer_step  # noqa: E402
from harness import against_torch, interleaved  # noqa: E402

import nabla  # noqa: E402
from nabla._factory import zeros_like  # noqa: E402
from nabla._lib import error, ffi, lib  # noqa: E402


def per_param_step(opt) -> None:
    """Adam / AdamW as one nb_adam_step per parameter (the update before the list ops)."""
    for group in opt.param_groups:
        b1, b2 = group["betas"]
        for p in group["params"]:
            if p.grad is None:
                continue
            st = opt.state[p]
            if not st:
                st.update(step=0, exp_avg=zeros_like(p), exp_avg_sq=zeros_like(p))
            st["step"] += 1
            status = lib.nb_adam_step(p._h, p.grad._h, st["exp_avg"]._h, st["exp_avg_sq"]._h, ffi.NULL, st["step"],
                                      group["lr"], b1, b2, group["eps"], group["weight_decay"],
                                      int(group["decoupled_weight_decay"]), 0, 0)
            if status:
                raise error(status)


def with_per_param_steps(make):
    """make(nabla) with its optimizer's step replaced by per_param_step (found through the closure)."""
    def build(fw):
        step = make(fw)
        opt = next(c.cell_contents for c in step.__closure__ if hasattr(c.cell_contents, "param_groups"))
        opt.step = lambda: (nabla.set_grad_enabled(False), per_param_step(opt), nabla.set_grad_enabled(True))
        return step
    return build


def step_only(make):
    """Only the optimizer step of make's workload (gradients from one backward)."""
    def build(fw):
        step = make(fw)
        step()
        return next(c.cell_contents for c in step.__closure__ if hasattr(c.cell_contents, "param_groups")).step
    return build


WORKLOADS = [
    ("MLP Adam step only (6 tensors)", lambda fw: mlp_step(fw, 1), step_only),
    ("Transformer AdamW step only (28 tensors)", transformer_step, step_only),
    ("MLP Adam train step, batch 1", lambda fw: mlp_step(fw, 1), None),
    ("MLP Adam train step, batch 32", lambda fw: mlp_step(fw, 32), None),
    ("Transformer AdamW train step, 16x64", transformer_step, None),
]


def main(window: float = 0.25, rounds: int = 8) -> None:
    torch, quick, _ = against_torch("bench_optim", None)  # --threads N, --quick
    if quick:
        window, rounds = 0.05, 2
    print("\n## optimizer steps (us per step; ratios: lower time is better)\n")
    print(f"| {'workload':<42} | {'list':>9} | {'per-param':>9} | {'torch':>9} | list/per-param | list/torch |")
    print("|" + "-" * 44 + "|" + "-" * 11 + "|" + "-" * 11 + "|" + "-" * 11 + "|----------------|------------|")
    for name, make, wrap in WORKLOADS:
        w = wrap or (lambda m: m)
        fns = {"list": w(make)(nabla), "per-param": (step_only(with_per_param_steps(make)) if wrap
                                                     else with_per_param_steps(make))(nabla)}
        if torch is not None:
            fns["torch"] = w(make)(torch)
        best = interleaved(fns, window, rounds)
        t = best.get("torch", float("nan"))
        print(f"| {name:<42} | {best['list'] * 1e6:>9.1f} | {best['per-param'] * 1e6:>9.1f} | {t * 1e6:>9.1f} | "
              f"{best['list'] / best['per-param']:>14.2f} | {best['list'] / t:>10.2f} |", flush=True)


if __name__ == "__main__":
    main()
