#!/usr/bin/env python3
"""Runs nabla's conformance suite.

    python conformance/run.py             the Python runner (nabla's cffi binding, ABI functions only)
    python conformance/run.py --c         build conformance/c/runner.c against the installed library, run it
    python conformance/run.py --node      the JavaScript runner (bindings/node/conformance/runner.js)
    python conformance/run.py --ctypes    ctypes, declared from the manifest alone (ctypes_binding.py; no nabla package)
    options: --device cpu|cuda, --filter TEXT (ids containing TEXT), --cases DIR, --valgrind (with --c)

One line per case, then `N passed, N failed, N skipped`; exit status 1 on any failure."""
from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from casefile import read_cases  # noqa: E402


def run_c(args) -> int:
    """Compiles the C runner (C11 + libc) with nabla.config's flags and runs it."""
    flags = subprocess.run([sys.executable, "-m", "nabla.config", "--cflags", "--libs"], capture_output=True,
                           text=True, check=True).stdout.split()
    with tempfile.TemporaryDirectory() as tmp:
        exe = Path(tmp) / "nb_conformance"
        cmd = ["cc", "-std=c11", "-O1", "-Wall", "-Wextra", "-Werror", str(HERE / "c" / "runner.c"), *flags, "-lm",
               "-o", str(exe)]
        built = subprocess.run(cmd, capture_output=True, text=True)
        if built.returncode != 0:
            print(f"building the C runner failed: {shlex.join(cmd)}\n{built.stderr}", file=sys.stderr)
            return 2
        argv = [str(exe), "--device", args.device, "--filter", args.filter]
        if args.valgrind:  # every case's calls, error paths included, checked for leaks and invalid accesses
            argv = ["valgrind", "-q", "--error-exitcode=99", "--leak-check=full",
                    "--errors-for-leak-kinds=definite,indirect"] + argv
        argv += [str(p) for p in sorted(args.cases.glob("*.txt"))]
        return subprocess.run(argv).returncode


def run_node(args) -> int:
    """Runs the Node.js binding's runner; it finds libnabla through this interpreter."""
    runner = HERE.parent / "bindings" / "node" / "conformance" / "runner.js"
    env = {**os.environ, "NABLA_PYTHON": sys.executable}
    argv = ["node", str(runner), "--device", args.device, "--filter", args.filter, str(args.cases)]
    return subprocess.run(argv, env=env).returncode


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--c", action="store_true", help="run the C runner instead of the Python one")
    p.add_argument("--node", action="store_true", help="run the Node.js runner (needs npm ci in bindings/node)")
    p.add_argument("--ctypes", action="store_true", help="run the ctypes runner (a binding generated from the "
                   "manifest alone: NABLA_LIB, NABLA_ABIDIR)")
    p.add_argument("--device", choices=["cpu", "cuda"], default="cpu", help="where inputs live (default cpu)")
    p.add_argument("--filter", default="", help="only cases whose id contains this text")
    p.add_argument("--cases", type=Path, default=HERE / "cases", help="the folder of case files")
    p.add_argument("--valgrind", action="store_true", help="with --c: run the C runner under valgrind")
    args = p.parse_args(argv)
    if args.c:
        return run_c(args)
    if args.node:
        return run_node(args)
    if args.ctypes:
        from ctypes_runner import Runner
    else:
        from pyrunner import Runner
    runner = Runner(args.device)
    passed = failed = skipped = 0
    for path in sorted(args.cases.glob("*.txt")):
        for case in read_cases(path):
            if args.filter and args.filter not in case["id"]:
                continue
            verdict, why = runner.run(case)
            print(f"{verdict} {case['id']}" + (f": {why}" if why else ""), flush=True)
            passed += verdict == "PASS"
            failed += verdict == "FAIL"
            skipped += verdict == "SKIP"
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
