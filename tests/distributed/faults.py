"""Fault scenarios for tests/test_distributed.py, one per run: python faults.py <scenario>."""
import sys
import time
import datetime

import nabla as nb
import nabla.distributed as dist

scenario = sys.argv[1]
dist.init_process_group("mpi", timeout=datetime.timedelta(seconds=2))
rank = dist.get_rank()
if scenario == "timeout":  # rank 1 never joins: rank 0's all_reduce must fail after 2 s
    if rank == 1:
        time.sleep(8)
        sys.exit(0)
    t0 = time.monotonic()
    try:
        dist.all_reduce(nb.ones(4))
    except dist.DistBackendError as e:
        print(f"rank 0 failed after {time.monotonic() - t0:.1f} s: {e}", flush=True)
        try:
            dist.all_reduce(nb.ones(4))
        except dist.DistBackendError as e2:
            print(f"then: {e2}", flush=True)
        sys.exit(3)
elif scenario == "raise":  # rank 1 raises; rank 0 waits in a collective with a long timeout
    dist.GroupMember.WORLD and nb  # noqa
    if rank == 1:
        raise ValueError("rank 1 failed on purpose")
    dist.monitored_barrier(timeout=datetime.timedelta(seconds=60))
    print("rank 0 was not stopped", flush=True)
