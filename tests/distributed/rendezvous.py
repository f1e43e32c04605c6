"""One rank of the init_method / store tests (tests/test_distributed_stores.py): init_process_group with the
init method in argv[1] ("store" passes a TCPStore as store=), then every rank writes a key to the default
group's store and reads every other rank's; rank r writes its line to argv[2] + f".{r}"."""
from __future__ import annotations

import datetime
import os
import sys

import nabla as nb
import nabla.distributed as dist

method, out = sys.argv[1], sys.argv[2]
rank, size = int(os.environ["PMI_RANK"]), int(os.environ["PMI_SIZE"])
timeout = datetime.timedelta(seconds=20)
if method == "store":
    store = dist.TCPStore("127.0.0.1", int(os.environ["MASTER_PORT"]), size, rank == 0, timeout=timeout)
    dist.init_process_group("mpi", store=store, rank=rank, world_size=size, timeout=timeout)
else:
    dist.init_process_group("mpi", init_method=method, rank=rank, world_size=size, timeout=timeout)
store = dist.distributed_c10d._get_default_store()
store.set(f"hello/{rank}", f"from {rank}")
got = [store.get(f"hello/{r}").decode() for r in range(size)]
total = store.add("count", rank + 1)
dist.barrier()
t = nb.ones(1)
dist.all_reduce(t)
with open(f"{out}.{rank}", "w") as f:
    f.write(f"{got} {int(t.item())} {int(store.get('count'))} {total > 0}")
dist.destroy_process_group()
