"""Started by nabla.distributed.run under mpiexec: sets torchrun's per-process variables (RANK, LOCAL_RANK)
from the process manager's (PMI_RANK, MPI_LOCALRANKID), then becomes the training command."""
from __future__ import annotations

import os
import sys


def main() -> None:
    rank = os.environ.get("PMI_RANK") or os.environ.get("OMPI_COMM_WORLD_RANK") or "0"
    local = os.environ.get("MPI_LOCALRANKID") or os.environ.get("OMPI_COMM_WORLD_LOCAL_RANK") or rank
    os.environ["RANK"] = rank
    os.environ["LOCAL_RANK"] = local
    os.environ.setdefault("WORLD_SIZE", os.environ.get("PMI_SIZE", "1"))
    cmd = sys.argv[1:]
    os.execvp(cmd[0], cmd)


if __name__ == "__main__":
    main()
