#!/usr/bin/env python3
"""Writes nabla's conformance cases from a NumPy float64 reference.

    python conformance/generate.py            write conformance/cases/*.txt and c/calls.inc, print coverage
    python conformance/generate.py --check    exit 1 if a written file is stale or an op lacks cases
    python conformance/generate.py --coverage print the coverage report only

Runners never import this: the case files are the suite. Each case draws its
inputs from its own generator, seeded by its id, so cases are reproducible one by
one. Needs NumPy only."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "abi"))

import gen as abi_gen  # noqa: E402  (abi/gen.py)
from reference import (abi_cases, binary, calls, index, linalg, linalg_decomp, nn, nn_backward, optim,  # noqa: E402
                       random_ops, reduce, shape, softmax_backward, unary)

FAMILIES = [unary, binary, reduce, softmax_backward, shape, index, linalg, linalg_decomp, nn, nn_backward, optim,
            random_ops, abi_cases]
CASES_DIR = HERE / "cases"
# Ops that no valid call can make fail: their only errors come from a released handle,
# which a case cannot pass without undefined behaviour.
CANNOT_FAIL = {"nb_manual_seed", "nb_generator_manual_seed", "nb_generator_set_state"}
CALLS_INC = HERE / "c" / "calls.inc"


def build() -> dict[Path, str]:
    files = {}
    for module in FAMILIES:
        fam = module.cases()
        files[CASES_DIR / f"{fam.name}.txt"] = fam.text()
    files[CALLS_INC] = calls.c_source(abi_gen.load())
    return files


def coverage(files: dict[Path, str]) -> tuple[list[str], list[str]]:
    """Report lines and problems: every op needs forward cases, gradient cases when
    differentiable, and an error case when it can fail (returns nb_status)."""
    counts: dict[str, dict[str, int]] = {}
    for path, text in files.items():
        if path.suffix != ".txt":
            continue
        call = kind = None
        for line in text.splitlines():
            if line.startswith("call "):
                call = line[5:]
            elif line.startswith("kind "):
                kind = line[5:]
            elif line == "end":
                counts.setdefault(call, {}).setdefault(kind, 0)
                counts[call][kind] += 1
    m = abi_gen.load()
    lines, problems, family = [], [], None
    lines.append(f"{'op':34} {'forward':>7} {'grad':>5} {'error':>5}")
    for op in m["ops"]:
        if op["group"] != family:
            family = op["group"]
            lines.append(f"-- {family}")
        c = counts.get(op["name"], {})
        fwd, grad, err = c.get("forward", 0), c.get("grad", 0), c.get("error", 0)
        need_grad = op.get("differentiable", False)
        need_err = op["returns"] == "nb_status" and op["name"] not in CANNOT_FAIL
        lines.append(f"{op['name']:34} {fwd:7} {grad if need_grad else '-':>5} {err if need_err else '-':>5}")
        if fwd == 0:
            problems.append(f"{op['name']}: no forward case")
        if need_grad and grad == 0:
            problems.append(f"{op['name']}: differentiable but no gradient case")
        if need_err and err == 0:
            problems.append(f"{op['name']}: no error case")
    abi = {k: v for k, v in counts.items() if not k.startswith("nb_")}
    lines.append("-- ABI-level: " + ", ".join(f"{k} {sum(v.values())}" for k, v in sorted(abi.items())))
    total = sum(sum(v.values()) for v in counts.values())
    kinds = {}
    for v in counts.values():
        for k, n in v.items():
            kinds[k] = kinds.get(k, 0) + n
    lines.append(f"{len(m['ops'])} ops, {total} cases (" + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())) + ")")
    return lines, problems


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--check", action="store_true", help="fail if the written files are stale or coverage is short")
    p.add_argument("--coverage", action="store_true", help="print the coverage report, write nothing")
    args = p.parse_args(argv)
    files = build()
    report, problems = coverage(files)
    print("\n".join(report))
    for msg in problems:
        print("coverage:", msg)
    if args.check:
        stale = [str(path.relative_to(ROOT)) for path, text in files.items()
                 if not path.exists() or path.read_text() != text]
        for s in stale:
            print("stale:", s, "(run python conformance/generate.py)")
        return 1 if stale or problems else 0
    if not args.coverage:
        for path, text in files.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
