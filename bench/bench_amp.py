"""Mixed precision on the CPU: one training step (forward under autocast, backward, SGD step) of
an MLP in float32 and under bfloat16 autocast, nabla beside torch.autocast("cpu") in one process
(timed in alternation, best round of each, as bench_gemm)."""
from __future__ import annotations

from harness import interleaved_settled, per_call_seconds, print_table, try_import

import nabla


def step_fn(T, width: int, depth: int, batch: int, autocast: bool):
    T.manual_seed(0)
    layers = []
    for _ in range(depth):
        layers += [T.nn.Linear(width, width), T.nn.ReLU()]
    model = T.nn.Sequential(*layers, T.nn.Linear(width, 10))
    opt = T.optim.SGD(model.parameters(), lr=1e-3)
    x, y = T.randn(batch, width), T.randint(0, 10, (batch,))

    def step():
        opt.zero_grad()
        with T.autocast("cpu", dtype=T.bfloat16, enabled=autocast):
            loss = T.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss
    return step


def main() -> None:
    torch = try_import("torch")
    rows = []
    for width, depth, batch in ((256, 3, 64), (1024, 3, 256)):
        for autocast in (False, True):
            name = f"MLP {depth}x{width}, batch {batch}, " + ("bf16 autocast" if autocast else "float32")
            fns = {"nabla": step_fn(nabla, width, depth, batch, autocast)}
            if torch:
                fns["torch"] = step_fn(torch, width, depth, batch, autocast)
                times = interleaved_settled(fns, rounds=7, batch_seconds=0.1)
            else:
                times = {"nabla": per_call_seconds(fns["nabla"], min_time=0.5, repeats=3)}
            rows.append((name, times))
    print_table("training step under CPU autocast", rows, unit="ms", scale=1e3, columns=("nabla", "torch"))


if __name__ == "__main__":
    main()
