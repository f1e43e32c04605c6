"""Host overhead of the tensor basics: creating a small tensor, a view op, item().

The figure is time per call from Python (lower is better); the target is a
nabla/torch ratio of at most 1.0."""
from __future__ import annotations

from harness import per_call_seconds, print_table, try_import

import nabla
import numpy as np


def cases(torch):
    nb_x = nabla.zeros(2, 4)
    np_x = np.zeros((2, 4), dtype=np.float32)
    nb_s = nabla.tensor(3.0)
    np_s = np.float32(3.0)
    t_x = torch.zeros(2, 4) if torch else None
    t_s = torch.tensor(3.0) if torch else None

    def case(name, nb_fn, torch_fn, np_fn):
        fns = {"nabla": nb_fn, "numpy": np_fn}
        if torch:
            fns["torch"] = torch_fn
        return name, fns

    T = torch
    return [
        case("empty(8)", lambda: nabla.empty(8), lambda: T.empty(8), lambda: np.empty(8, np.float32)),
        case("zeros(8)", lambda: nabla.zeros(8), lambda: T.zeros(8), lambda: np.zeros(8, np.float32)),
        case("ones(2, 4)", lambda: nabla.ones(2, 4), lambda: T.ones(2, 4), lambda: np.ones((2, 4), np.float32)),
        case("full((8,), 1.5)", lambda: nabla.full((8,), 1.5), lambda: T.full((8,), 1.5),
             lambda: np.full((8,), 1.5, np.float32)),
        case("arange(8)", lambda: nabla.arange(8), lambda: T.arange(8), lambda: np.arange(8)),
        case("tensor([1., 2., 3.])", lambda: nabla.tensor([1.0, 2.0, 3.0]), lambda: T.tensor([1.0, 2.0, 3.0]),
             lambda: np.array([1.0, 2.0, 3.0], np.float32)),
        case("x.view(8)", lambda: nb_x.view(8), lambda: t_x.view(8), lambda: np_x.reshape(8)),
        case("x.transpose(0, 1)", lambda: nb_x.transpose(0, 1), lambda: t_x.transpose(0, 1),
             lambda: np_x.swapaxes(0, 1)),
        case("x[1]", lambda: nb_x[1], lambda: t_x[1], lambda: np_x[1]),
        case("x[:, 1:3]", lambda: nb_x[:, 1:3], lambda: t_x[:, 1:3], lambda: np_x[:, 1:3]),
        case("x.unsqueeze(0)", lambda: nb_x.unsqueeze(0), lambda: t_x.unsqueeze(0), lambda: np_x[None]),
        case("x.shape", lambda: nb_x.shape, lambda: t_x.shape, lambda: np_x.shape),
        case("s.item()", lambda: nb_s.item(), lambda: t_s.item(), lambda: np_s.item()),
        case("x.clone()", lambda: nb_x.clone(), lambda: t_x.clone(), lambda: np_x.copy()),
    ]


def main() -> None:
    torch = try_import("torch")
    rows = []
    for name, fns in cases(torch):
        rows.append((name, {k: per_call_seconds(f) for k, f in fns.items()}))
    print_table("Tensor basics: host time per call from Python", rows)
    if not torch:
        print("\n(PyTorch not installed: `pip install torch==2.13.0` to compare)")


if __name__ == "__main__":
    main()
