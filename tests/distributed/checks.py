"""The record of one rank's checks (worker.py, surface.py): @check(category, name) runs a function and records
[category, name, ok, traceback]; write() saves the rows to $NABLA_DIST_OUT/rank<r>.json for the test to read."""
from __future__ import annotations

import json
import os
import traceback

RESULTS = []


def check(category, name):
    def run(fn):
        try:
            fn()
            RESULTS.append([category, name, True, ""])
        except Exception:
            RESULTS.append([category, name, False, traceback.format_exc()])
        return fn
    return run


def write(rank: int) -> None:
    with open(os.path.join(os.environ["NABLA_DIST_OUT"], f"rank{rank}.json"), "w") as f:
        json.dump(RESULTS, f)
