"""Profiler overhead: the 8-element add from Python with the profiler off (before and after a
session, in the same process), on, and on with shapes and memory; PyTorch's the same way.

Off must cost nothing measurable: each entry point reads one word and branches."""
from __future__ import annotations

from harness import per_call_seconds, print_table, try_import

import nabla
from nabla.profiler import profile


def main() -> None:
    torch = try_import("torch")
    a, b = nabla.ones(8), nabla.ones(8)
    rows = []
    t = (torch.ones(8), torch.ones(8)) if torch else None

    def measure(name, nb_prof=None, t_prof=None):
        times = {}
        if nb_prof is not None:
            nb_prof.__enter__()
        # under a profiler both record about as many events (a session's memory grows with them)
        min_time = 0.2 if nb_prof is None else 0.05
        times["nabla"] = per_call_seconds(lambda: a + b, min_time=min_time)
        if nb_prof is not None:
            nb_prof.__exit__(None, None, None)
        if torch:
            if t_prof is not None:
                t_prof.__enter__()
            times["torch"] = per_call_seconds(lambda: t[0] + t[1], min_time=min_time)
            if t_prof is not None:
                t_prof.__exit__(None, None, None)
        rows.append((name, times))

    measure("a + b, profiler off (before)")
    measure("a + b, profiler on", profile(), torch.profiler.profile() if torch else None)
    measure("a + b, on, shapes + memory", profile(record_shapes=True, profile_memory=True),
            torch.profiler.profile(record_shapes=True, profile_memory=True) if torch else None)
    measure("a + b, profiler off (after)")
    print_table("profiler overhead (8-element add)", rows, columns=("nabla", "torch"))


if __name__ == "__main__":
    main()
