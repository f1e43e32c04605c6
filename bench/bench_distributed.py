"""nabla.distributed against PyTorch's CPU backend (gloo), in the same 2 processes:

1. all_reduce (float32, sum) bus bandwidth by message size: busbw = 2 (n - 1) / n * bytes / time;
2. a DistributedDataParallel training step (forward, backward with the bucketed all-reduce, Adam step):
   MLP 784-256-256-10 at batch 512 per process, and a small CNN (two 3x3 convs, 32 and 64 channels, on
   28x28, batch 64 per process); throughput in samples per second over both processes;
3. overlap, for nabla and for torch (gloo): the DDP step beside the same step without communication
   (no_sync) and the all-reduce of all gradients alone; overlap = (local + comm - step) / comm is the part
   of the communication hidden behind backward (NABLA_DISTRIBUTED_PROGRESS=0 switches nabla's progress
   thread off, to see what it brings).

    python bench/bench_distributed.py            (starts 2 processes through mpiexec, one thread each)

The all-reduce table keeps each framework's best round; the DDP tables alternate the frameworks in short
rounds and report medians (BENCH_ROUNDS, 7 by default)."""
from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import time

import numpy as np

SIZES = [1 << k for k in (10, 12, 14, 16, 18, 20, 22, 24)]  # bytes


def best_time(fn, iters: int, rounds: int = 3, barrier=None) -> float:
    best = float("inf")
    for _ in range(rounds):
        if barrier:
            barrier()
        t0 = time.perf_counter()
        for _ in range(iters):
            fn()
        best = min(best, (time.perf_counter() - t0) / iters)
    return best


def agree(seconds: float, reduce_max) -> float:
    """The slowest rank's time: a collective is as fast as its last participant."""
    return reduce_max(seconds)


def worker() -> None:
    import torch
    import torch.distributed as tdist

    import nabla as nb
    import nabla.distributed as dist

    torch.set_num_threads(1)
    dist.init_process_group("mpi")
    rank, n = dist.get_rank(), dist.get_world_size()
    tdist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{os.environ.get('BENCH_PORT', '29511')}",
                             rank=rank, world_size=n)

    def nb_max(x):
        t = nb.tensor([x], dtype=nb.float64)
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        return t.item()

    rows = []
    for size in SIZES:
        count = size // 4
        a, b = nb.ones(count), torch.ones(count)
        iters = max(3, min(200, (1 << 22) // size))
        for _ in range(2):
            dist.all_reduce(a)
            tdist.all_reduce(b)
        tn = agree(best_time(lambda: dist.all_reduce(a), iters, barrier=dist.barrier), nb_max)
        tt = agree(best_time(lambda: tdist.all_reduce(b), iters, barrier=tdist.barrier), nb_max)
        bus = 2 * (n - 1) / n * size
        rows.append((size, tn, tt, bus / tn / 1e9, bus / tt / 1e9))
    if rank == 0:
        print(f"all_reduce float32 sum, {n} processes: bus bandwidth (GB/s) and time per call")
        print(f"{'bytes':>10} {'nabla us':>10} {'gloo us':>10} {'nabla GB/s':>11} {'gloo GB/s':>10} {'nabla/gloo':>10}")
        for size, tn, tt, bn, bt in rows:
            print(f"{size:>10} {tn * 1e6:>10.1f} {tt * 1e6:>10.1f} {bn:>11.2f} {bt:>10.2f} {tt / tn:>9.2f}x")

    def mlp(fw):
        nn = fw.nn
        return nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10))

    def cnn(fw):
        nn = fw.nn
        return nn.Sequential(nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(),
                             nn.MaxPool2d(2), nn.Flatten(), nn.Linear(64 * 14 * 14, 128), nn.ReLU(),
                             nn.Linear(128, 10))

    def ddp_parts(fw, make, batch, shape):
        """A DDP training step, the same step without communication (no_sync) and the all-reduce of every
        gradient alone (one flat tensor), for framework fw."""
        fw.manual_seed(0)
        model = fw.nn.parallel.DistributedDataParallel(make(fw))
        opt = fw.optim.Adam(model.parameters(), lr=1e-4)
        rng = np.random.default_rng(rank)
        x = fw.tensor(rng.standard_normal((batch, *shape)).astype(np.float32))
        y = fw.tensor(rng.integers(0, 10, batch))

        def step(sync=True):
            with (contextlib.nullcontext() if sync else model.no_sync()):
                loss = fw.nn.functional.cross_entropy(model(x), y)
                opt.zero_grad()
                loss.backward()
            opt.step()
        flat = fw.cat([p.detach().reshape(-1) for p in model.parameters()])
        coll = dist if fw is nb else tdist
        parts = {"step": step, "local": lambda: step(False), "comm": lambda: coll.all_reduce(flat)}
        if fw is nb:  # the communication the step did not hide: DDP's wait at the end of backward
            def exposed():
                step()
                return model.reducer.last_wait_s
            parts["exposed"] = exposed
        return parts

    rounds = int(os.environ.get("BENCH_ROUNDS", "7"))
    results = []
    for name, make, batch, shape, iters in (("MLP 784-256-256-10", mlp, 512, (784,), 10),
                                            ("CNN 28x28 conv32-conv64", cnn, 64, (1, 28, 28), 4)):
        parts = {"nabla": ddp_parts(nb, make, batch, shape), "torch": ddp_parts(torch, make, batch, shape)}
        for p in parts.values():
            for fn in p.values():
                fn()
        times = {(fw, k): [] for fw in parts for k in parts[fw]}
        for _ in range(rounds):  # alternate frameworks and parts in short rounds; medians of the rounds
            for fw, p in parts.items():
                for k, fn in p.items():
                    if k == "exposed":  # the rank that finished backward last: no waiting for a slower one
                        dist.barrier()
                        t = -agree(-float(np.mean([fn() for _ in range(iters)])), nb_max)
                    else:
                        t = best_time(fn, iters, rounds=1, barrier=dist.barrier if fw == "nabla" else tdist.barrier)
                        t = agree(t, nb_max)
                    times[(fw, k)].append(t)
        results.append((name, batch, {key: float(np.median(v)) for key, v in times.items()}))
    if rank == 0:
        print(f"\nDDP training step (forward, backward + gradient all-reduce, Adam), {n} processes, 1 thread each;"
              f" medians of {rounds} rounds; throughput over all processes")
        print(f"{'model':<26} {'batch/proc':>10} {'nabla ms':>9} {'torch ms':>9} {'nabla/s':>9} {'torch/s':>9}"
              f" {'nabla/torch':>11}")
        for name, batch, m in results:
            tn, tt = m[("nabla", "step")], m[("torch", "step")]
            print(f"{name:<26} {batch:>10} {tn * 1e3:>9.2f} {tt * 1e3:>9.2f} {n * batch / tn:>9.0f}"
                  f" {n * batch / tt:>9.0f} {tt / tn:>10.2f}x")
        print("\noverlap: the DDP step beside the same step without communication (no_sync: forward, backward, "
              "Adam) and the all-reduce of every gradient alone; overlap = (local + comm - step) / comm; exposed: "
              "how long nabla's DDP waited for the all-reduces at the end of backward on the rank that finished "
              "backward last, hidden = 1 - exposed / comm")
        print(f"{'model':<26} {'':<6} {'step ms':>8} {'local ms':>9} {'comm ms':>8} {'overlap':>8} {'exposed ms':>11}"
              f" {'hidden':>7}")
        for name, _, m in results:
            for fw in ("nabla", "torch"):
                step, local, comm = m[(fw, "step")], m[(fw, "local")], m[(fw, "comm")]
                overlap = (local + comm - step) / comm if comm > 0 else 0.0
                extra = ""
                if (fw, "exposed") in m:
                    exposed = m[(fw, "exposed")]
                    extra = f" {exposed * 1e3:>11.2f} {max(0.0, 1 - exposed / comm):>6.0%}"
                print(f"{name:<26} {fw if fw == 'nabla' else 'gloo':<6} {step * 1e3:>8.2f} {local * 1e3:>9.2f}"
                      f" {comm * 1e3:>8.2f} {overlap:>7.0%}{extra}")
    tdist.destroy_process_group()
    dist.destroy_process_group()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("-n", type=int, default=2, help="processes")
    args = parser.parse_args()
    if args.worker:
        worker()
        return 0
    from nabla.distributed import _mpi
    env = dict(os.environ, OMP_NUM_THREADS="1", BENCH_PORT=str(29500 + os.getpid() % 1000))
    return subprocess.call([_mpi.mpiexec(), "-n", str(args.n), sys.executable, __file__, "--worker"], env=env)


if __name__ == "__main__":
    sys.exit(main())
