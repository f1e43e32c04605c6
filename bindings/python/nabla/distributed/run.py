"""python -m nabla.distributed.run --nproc-per-node N script.py [args]: torchrun's interface on one machine,
on top of the mpiexec that comes with the `mpich` wheel. Each process gets RANK, LOCAL_RANK, WORLD_SIZE,
LOCAL_WORLD_SIZE, MASTER_ADDR and MASTER_PORT, as torchrun sets them. For several machines run mpiexec
with a host file (docs/distributed.md)."""
from __future__ import annotations

import argparse
import os
import subprocess
import sys

from . import _mpi


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m nabla.distributed.run",
                                description="Starts N copies of a training script joined by MPI "
                                            "(torchrun's interface).")
    p.add_argument("--nproc-per-node", "--nproc_per_node", default="1",
                   help="processes to start: a number, 'cpu' or 'auto' (one per CPU core)")
    p.add_argument("--nnodes", default="1", help="only 1: for several machines use mpiexec with a host file")
    p.add_argument("--node-rank", "--node_rank", type=int, default=0)
    p.add_argument("--master-addr", "--master_addr", default="127.0.0.1")
    p.add_argument("--master-port", "--master_port", type=int, default=29500)
    p.add_argument("--standalone", action="store_true", help="accepted for torchrun compatibility")
    p.add_argument("--mpiexec", default=None, help="the mpiexec to use (default: the mpich wheel's)")
    p.add_argument("-m", "--module", action="store_true", help="run the script argument as a module (python -m)")
    p.add_argument("--no-python", "--no_python", action="store_true", help="run the script as an executable")
    p.add_argument("training_script")
    p.add_argument("training_script_args", nargs=argparse.REMAINDER)
    return p


def _nproc(value: str) -> int:
    if value in ("cpu", "auto"):
        return os.cpu_count() or 1
    n = int(value)
    if n < 1:
        raise SystemExit(f"--nproc-per-node must be at least 1, got {n}")
    return n


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    if str(args.nnodes) not in ("1", "1:1"):
        raise SystemExit("nabla.distributed.run starts processes on one machine; for several machines use "
                         "mpiexec with a host file, "
                         "`mpiexec -f hosts -n N python script.py` (see docs/distributed.md)")
    n = _nproc(args.nproc_per_node)
    mpiexec = args.mpiexec or _mpi.mpiexec()
    if mpiexec is None:
        raise SystemExit(f"nabla.distributed.run: mpiexec not found; {_mpi.INSTALL_HINT}")
    python = [sys.executable, "-u", "-m"] if args.module else [sys.executable, "-u"]
    target = [args.training_script] if args.no_python else [*python, args.training_script]
    env = dict(os.environ, WORLD_SIZE=str(n), LOCAL_WORLD_SIZE=str(n), MASTER_ADDR=args.master_addr,
               MASTER_PORT=str(args.master_port), GROUP_RANK="0", NODE_RANK="0")
    if n > 1 and "OMP_NUM_THREADS" not in env:  # as torchrun: N processes x all cores would oversubscribe
        env["OMP_NUM_THREADS"] = "1"
        print("Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your "
              "system being overloaded, please further tune the variable for optimal performance in your "
              "application as needed.", file=sys.stderr)
    lib = _mpi.library()
    if lib and "NABLA_MPI_LIBRARY" not in env:
        env["NABLA_MPI_LIBRARY"] = lib
    cmd = [mpiexec, "-n", str(n), sys.executable, "-m", "nabla.distributed._rank_env", *target,
           *args.training_script_args]
    try:
        return subprocess.call(cmd, env=env)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
