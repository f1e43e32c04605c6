"""Data-parallel training of the demo CNN (examples/demo.py) with DistributedDataParallel.

    python -m nabla.distributed.run --nproc-per-node 2 examples/ddp_train.py     (2 processes)
    mpiexec -n 2 python examples/ddp_train.py                                    (the same, by hand)
    python examples/ddp_train.py                                                 (1 process)

Each process trains on its share of every global batch (DistributedSampler); DDP averages the gradients,
so every replica takes the step one process would take on the whole batch, and the held-out accuracy
matches the single-process run's. The code is PyTorch's DDP idiom with `nabla` for `torch`."""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import nabla as nb  # noqa: E402
import nabla.distributed as dist  # noqa: E402
import nabla.nn.functional as F  # noqa: E402
from demo import DigitsCNN, evaluate, load_digits  # noqa: E402
from nabla.nn.parallel import DistributedDataParallel as DDP  # noqa: E402
from nabla.utils.data import DataLoader, DistributedSampler, TensorDataset  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--batch-size", type=int, default=32, help="global batch, split across the processes")
    args = parser.parse_args()
    dist.init_process_group("mpi")
    rank, world = dist.get_rank(), dist.get_world_size()
    if args.batch_size % world:
        raise SystemExit(f"--batch-size {args.batch_size} must be a multiple of the {world} processes")

    nb.manual_seed(0)  # the same split on every rank
    images, labels = load_digits()
    perm = nb.randperm(labels.shape[0])
    test_idx, train_idx = perm[:360], perm[360:]
    train_set = TensorDataset(images[train_idx], labels[train_idx])
    sampler = DistributedSampler(train_set, shuffle=True, seed=1)
    loader = DataLoader(train_set, batch_size=args.batch_size // world, sampler=sampler)
    nb.manual_seed(rank)  # different initial weights and dropout per rank: DDP broadcasts rank 0's weights
    model = DDP(DigitsCNN())
    opt = nb.optim.Adam(model.parameters(), lr=2e-3)
    sched = nb.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=args.epochs * len(loader))
    if rank == 0:
        print(f"{world} process(es), global batch {args.batch_size}, {len(loader)} steps per epoch")
    start = time.perf_counter()
    for epoch in range(1, args.epochs + 1):
        sampler.set_epoch(epoch)
        model.train()
        for x, y in loader:
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        if rank == 0:
            acc = evaluate(model.module, images[test_idx], labels[test_idx])
            print(f"epoch {epoch:2d}: loss {loss.item():.4f}  held-out accuracy {acc:.2%}  "
                  f"({time.perf_counter() - start:.1f} s)", flush=True)
    # the replicas stayed identical
    flat = nb.cat([p.detach().reshape(-1) for p in model.parameters()])
    copies = [nb.empty_like(flat) for _ in range(world)]
    dist.all_gather(copies, flat)
    assert all(nb.equal(c, copies[0]) for c in copies), "replicas diverged"
    if rank == 0:
        print(f"final held-out accuracy {evaluate(model.module, images[test_idx], labels[test_idx]):.2%}; "
              f"replicas identical across the {world} process(es)")
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
