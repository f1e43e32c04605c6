"""Training on the GPU, nabla beside PyTorch eager on the same device, in one run.

Workloads (the same code runs with either framework):
  - GPT-style decoder: 6 layers, d=512, 8 heads, seq 256, batch 16, causal attention
    through F.scaled_dot_product_attention, AdamW; float32 and bfloat16 autocast;
  - ResNet-18-style CNN: batch 64 of 32x32 images, BatchNorm, SGD with momentum;
  - MLP 784-1024-1024-10, batch 512, Adam.
For each: throughput (target >= 1.0x PyTorch eager), the host time to issue one step
(without waiting for the device) against the step's device time — the host running
ahead of the GPU, as in the PyTorch paper's Figure 1 — the host time per op launch
(issue time / ops in a step, ops counted by nabla's profiler), and the driver
allocations after the first steps (target: none, the caching allocator serves all).

    python bench/bench_cuda_train.py            (prints "no CUDA device" and exits 0 without one)
    python bench/bench_cuda_train.py --smoke    (tiny shapes, 2 steps: checks the code runs)"""
from __future__ import annotations

import argparse
import contextlib
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import try_import  # noqa: E402

import nabla  # noqa: E402

FULL = {"gpt": dict(layers=6, d=512, heads=8, seq=256, batch=16, vocab=8192),
        "resnet": dict(batch=64, size=32, width=64, blocks=(2, 2, 2, 2)),
        "mlp": dict(batch=512, hidden=1024), "steps": 20, "warmup": 3}
SMOKE = {"gpt": dict(layers=1, d=32, heads=2, seq=16, batch=2, vocab=64),
         "resnet": dict(batch=2, size=8, width=8, blocks=(1, 1)),
         "mlp": dict(batch=8, hidden=32), "steps": 2, "warmup": 1}


def gpt(fw, layers, d, heads, seq, batch, vocab):
    nn, F = fw.nn, fw.nn.functional

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
            self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
            self.fc, self.out = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

        def forward(self, x):
            b, t, _ = x.shape
            q, k, v = self.qkv(self.ln1(x)).view(b, t, 3, heads, d // heads).permute(2, 0, 3, 1, 4).unbind(0)
            a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.proj(a.transpose(1, 2).reshape(b, t, d))
            return x + self.out(F.gelu(self.fc(self.ln2(x))))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(seq, d)
            self.blocks = nn.Sequential(*[Block() for _ in range(layers)])
            self.ln, self.head = nn.LayerNorm(d), nn.Linear(d, vocab, bias=False)

        def forward(self, idx):
            x = self.tok(idx) + self.pos(fw.arange(idx.shape[1], device=idx.device))
            return self.head(self.ln(self.blocks(x)))

    model = GPT().to("cuda")
    opt = fw.optim.AdamW(model.parameters(), lr=3e-4)
    idx = fw.randint(0, vocab, (batch, seq + 1), device="cuda")
    x, y = idx[:, :-1], idx[:, 1:]

    def loss_fn():
        return F.cross_entropy(model(x).reshape(-1, vocab), y.reshape(-1))
    return model, opt, loss_fn, batch * seq


def resnet(fw, batch, size, width, blocks):
    nn, F = fw.nn, fw.nn.functional

    class Basic(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.c1, self.b1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout)
            self.c2, self.b2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False), nn.BatchNorm2d(cout)
            self.down = (nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))
                         if stride != 1 or cin != cout else nn.Identity())

        def forward(self, x):
            return F.relu(self.b2(self.c2(F.relu(self.b1(self.c1(x))))) + self.down(x))

    layers, cin = [nn.Conv2d(3, width, 3, 1, 1, bias=False), nn.BatchNorm2d(width), nn.ReLU()], width
    for stage, n in enumerate(blocks):
        cout = width * 2 ** stage
        for i in range(n):
            layers.append(Basic(cin, cout, 2 if i == 0 and stage > 0 else 1))
            cin = cout
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(cin, 10)]
    model = nn.Sequential(*layers).to("cuda")
    opt = fw.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4)
    x = fw.randn(batch, 3, size, size, device="cuda")
    y = fw.randint(0, 10, (batch,), device="cuda")
    return model, opt, lambda: F.cross_entropy(model(x), y), batch


def mlp(fw, batch, hidden):
    nn, F = fw.nn, fw.nn.functional
    model = nn.Sequential(nn.Linear(784, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                          nn.Linear(hidden, 10)).to("cuda")
    opt = fw.optim.Adam(model.parameters(), lr=1e-3)
    x = fw.randn(batch, 784, device="cuda")
    y = fw.randint(0, 10, (batch,), device="cuda")
    return model, opt, lambda: F.cross_entropy(model(x), y), batch


def workloads(cfg):
    return [("GPT 6x512, seq 256, AdamW, f32", "tokens/s", lambda fw: gpt(fw, **cfg["gpt"]), None),
            ("GPT 6x512, seq 256, AdamW, bf16 autocast", "tokens/s", lambda fw: gpt(fw, **cfg["gpt"]), "bfloat16"),
            ("ResNet-18-style, 32x32, SGD-momentum", "images/s", lambda fw: resnet(fw, **cfg["resnet"]), None),
            ("MLP 784-1024-1024-10, Adam", "samples/s", lambda fw: mlp(fw, **cfg["mlp"]), None)]


def measure(fw, make, amp, cfg):
    """{throughput, issue_s, step_s, new_device_allocs} for one framework and workload."""
    fw.manual_seed(0)
    model, opt, loss_fn, per_step = make(fw)
    autocast = (lambda: fw.autocast("cuda", dtype=getattr(fw, amp))) if amp else contextlib.nullcontext

    def step():
        with autocast():
            loss = loss_fn()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        return loss

    for _ in range(cfg["warmup"]):
        loss = step()
    fw.cuda.synchronize()
    if not math.isfinite(loss.item()):
        raise RuntimeError(f"{fw.__name__}: the loss is not finite")
    allocs0 = fw.cuda.memory_stats().get("num_device_alloc", 0)
    issue = []
    t0 = time.perf_counter()
    for _ in range(cfg["steps"]):
        t = time.perf_counter()
        step()
        issue.append(time.perf_counter() - t)  # the host is free again: the device may still be busy
    fw.cuda.synchronize()
    step_s = (time.perf_counter() - t0) / cfg["steps"]
    return {"throughput": per_step / step_s, "issue_s": sorted(issue)[len(issue) // 2], "step_s": step_s,
            "new_device_allocs": fw.cuda.memory_stats().get("num_device_alloc", 0) - allocs0,
            "step": step}


def ops_per_step(step) -> int:
    """nabla ops called in one step, from nabla's profiler."""
    with nabla.profiler.profile(activities=[nabla.profiler.ProfilerActivity.CPU]) as prof:
        step()
    return sum(e.count for e in prof.key_averages())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--smoke", action="store_true", help="tiny shapes and 2 steps: check that the code runs")
    args = parser.parse_args(argv)
    if not nabla.cuda.is_available():
        print(f"no CUDA device: {nabla.cuda.unavailable_reason()}")
        return 0
    cfg = SMOKE if args.smoke else FULL
    torch = try_import("torch")
    fws = [nabla] + ([torch] if torch is not None and torch.cuda.is_available() else [])
    print(f"training on {nabla.cuda.get_device_name()}: {cfg['steps']} steps after {cfg['warmup']} warm-up steps")
    for name, unit, make, amp in workloads(cfg):
        rows = {}
        for fw in fws:
            try:
                rows[fw.__name__] = measure(fw, make, amp, cfg)
            except Exception as e:  # noqa: BLE001 - a workload that fails is reported, not fatal
                print(f"  {fw.__name__}: {name} failed: {e!r}")
        if "nabla" not in rows:
            continue
        n = rows["nabla"]
        ops = ops_per_step(n["step"])
        print(f"\n{name}")
        for fwname, r in rows.items():
            print(f"  {fwname:6s} {r['throughput']:12.0f} {unit}  step {r['step_s'] * 1e3:8.2f} ms  "
                  f"host issue {r['issue_s'] * 1e3:8.2f} ms ({r['issue_s'] / r['step_s']:4.0%} of the step)  "
                  f"driver allocations after warm-up {r['new_device_allocs']}")
        print(f"  nabla: {ops} ops a step, host time per op launch {n['issue_s'] / ops * 1e6:.2f} us")
        if "torch" in rows:
            print(f"  nabla/torch throughput {n['throughput'] / rows['torch']['throughput']:.2f} (target >= 1.0)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
