"""One rank of the overlap test (tests/test_distributed_overlap.py): does a bucket's all-reduce, started from
a gradient hook, complete while backward still computes? Bucket 0 (the head's gradients) is ready first;
then the wide first layer's weight gradient takes tens of milliseconds with no MPI call on this rank. A
probe on that gradient asks bucket 0's Work is_completed() (which never calls MPI itself); without a
progress thread MPI moves the request only inside the waits at the end of backward. Prints, on rank 0,
one JSON list: per iteration, whether every rank saw bucket 0 complete."""
from __future__ import annotations

import json

import nabla as nb
import nabla.distributed as dist
from nabla import nn

dist.init_process_group()
nb.manual_seed(0)
model = nn.Sequential(nn.Linear(1024, 1024), nn.Tanh(), nn.Linear(1024, 64), nn.Tanh(), nn.Linear(64, 10))
ddp = nn.parallel.DistributedDataParallel(model, bucket_cap_mb=0.25)
assert [len(b.params) for b in ddp._buckets] == [4, 2], "bucket 0 must hold the head, bucket 1 the wide layer"
seen = []


def probe(grad):
    work = ddp._buckets[0].work
    seen.append(work is not None and work.is_completed())


model[0].weight.register_hook(probe)  # runs after DDP's hook: bucket 1 is not complete yet, nothing started
x, y = nb.randn(512, 1024), nb.randint(0, 10, (512,))
everyone = []
for _ in range(8):
    seen.clear()
    dist.barrier()
    nb.nn.functional.cross_entropy(ddp(x), y).backward()
    flag = nb.tensor([1 if seen == [True] else 0])
    dist.all_reduce(flag, op=dist.ReduceOp.MIN)
    everyone.append(bool(flag.item()))
if dist.get_rank() == 0:
    print(json.dumps(everyone))
dist.destroy_process_group()
