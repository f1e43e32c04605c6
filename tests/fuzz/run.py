#!/usr/bin/env python3
"""Builds and runs nabla's fuzzers (tests/fuzz/README.md).

    python tests/fuzz/run.py                     the CI seeds: about 40 s in all
    python tests/fuzz/run.py --seconds 600       the long run (same seeds, more time each)
    python tests/fuzz/run.py --seeds 7 --episode 123 --verbose   replay one episode
    options: --exclude cat_out,huge_dims,... (known-bug input families; see fuzz.h),
             --no-load (C ABI fuzzer only), --keep DIR (leave the built fuzzer there)

The C fuzzer (fuzz_abi.c and friends) is built against the installed libnabla with
nabla.config's flags; its op table is generated from abi/ops/*.json first. Then
fuzz_load.py mutates safetensors files for nabla.load and DLPack capsules for
nabla.from_dlpack. Exit status 0 only when every run finished without a violation
or crash."""
from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
SOURCES = ["fuzz_abi.c", "fuzz_gen.c", "fuzz_dlpack.c"]
CI_SEEDS = [1, 2, 3]
CI_EPISODES = 20000  # per seed in CI (tests/test_fuzz.py, tools/sanitize.sh): a few seconds each
CFLAGS = ["-std=c11", "-O1", "-g", "-Wall", "-Wextra", "-Werror"]


def build(out_dir: Path, cc: str = "cc", extra: list[str] | None = None, libs: list[str] | None = None) -> Path:
    """Generates fuzz_calls.inc and compiles the fuzzer into out_dir; returns the executable."""
    subprocess.run([sys.executable, str(HERE / "gen_calls.py"), str(out_dir / "fuzz_calls.inc")], check=True)
    if libs is None:
        libs = shlex.split(subprocess.run([sys.executable, "-m", "nabla.config", "--cflags", "--libs"],
                                          capture_output=True, text=True, check=True).stdout)
    exe = out_dir / "fuzz_abi"
    cmd = [cc, *CFLAGS, *(extra or []), f"-I{out_dir}", f"-I{HERE}", *[str(HERE / s) for s in SOURCES], *libs,
           "-lm", "-lpthread", "-o", str(exe)]
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"building the fuzzer failed: {shlex.join(cmd)}\n{result.stdout}{result.stderr}")
    return exe


def known_bugs() -> str:
    """The families listed in known_bugs.txt (left out while their fixes are unmerged)."""
    lines = (HERE / "known_bugs.txt").read_text().splitlines()
    return ",".join(line.split()[0] for line in lines if line.strip() and not line.startswith("#"))


def exclude_args(exclude: str | None = None) -> list[str]:
    """fuzz_abi's --exclude for EXCLUDE (default: $NB_FUZZ_EXCLUDE, else known_bugs.txt; "none": nothing)."""
    if exclude is None:
        exclude = os.environ.get("NB_FUZZ_EXCLUDE", known_bugs())
    return [] if exclude in ("", "none") else ["--exclude", exclude]


def run_abi(exe: Path, seed: int, seconds: float, args) -> int:
    cmd = [str(exe), "--seed", str(seed), "--seconds", str(seconds)]
    if args.episode is not None:
        cmd += ["--episode", str(args.episode)]
    cmd += exclude_args(args.exclude)
    if args.verbose:
        cmd.append("--verbose")
    print("+ " + shlex.join(cmd), flush=True)
    code = subprocess.run(cmd, timeout=seconds + 300).returncode
    if code != 0:
        print(f"fuzz_abi seed {seed}: exit status {code}", flush=True)
    return code


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=30, help="C ABI fuzzer time, split over the seeds")
    p.add_argument("--load-seconds", type=float, default=None, help="nabla.load/DLPack fuzzer time (default: "
                   "a third of --seconds)")
    p.add_argument("--seeds", default=",".join(map(str, CI_SEEDS)))
    p.add_argument("--episode", type=int, default=None, help="replay this episode of each seed only")
    p.add_argument("--exclude", default=None, help="known-bug input families to leave out, comma-separated, or "
                   "none (default: $NB_FUZZ_EXCLUDE, else tests/fuzz/known_bugs.txt)")
    p.add_argument("--no-load", action="store_true", help="skip fuzz_load.py")
    p.add_argument("--verbose", action="store_true")
    p.add_argument("--keep", type=Path, default=None, help="build the fuzzer into this folder and keep it")
    args = p.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",") if s]
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        out_dir = args.keep or Path(tmp)
        out_dir.mkdir(parents=True, exist_ok=True)
        exe = build(out_dir, cc=shutil.which("cc") or "gcc")
        for seed in seeds:
            failed += run_abi(exe, seed, args.seconds / len(seeds), args) != 0
    if not args.no_load and args.episode is None:
        load_seconds = args.load_seconds if args.load_seconds is not None else args.seconds / 3
        for seed in seeds:
            cmd = [sys.executable, str(HERE / "fuzz_load.py"), "--seed", str(seed), "--seconds",
                   str(load_seconds / len(seeds))]
            print("+ " + shlex.join(cmd), flush=True)
            failed += subprocess.run(cmd, timeout=load_seconds + 300).returncode != 0
    print("fuzz: " + ("FAILED" if failed else "ok"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
