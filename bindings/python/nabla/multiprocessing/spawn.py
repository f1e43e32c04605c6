"""multiprocessing.spawn: runs fn(i, *args) in nprocs fresh processes (torch.multiprocessing.spawn)."""
from __future__ import annotations

import multiprocessing
import traceback

__all__ = ["spawn", "start_processes", "ProcessContext", "ProcessRaisedException", "ProcessExitedException"]


class ProcessRaisedException(Exception):
    """A spawned process raised: the message carries its traceback."""

    def __init__(self, msg: str, error_index: int, error_pid: int) -> None:
        super().__init__(msg)
        self.error_index, self.pid = error_index, error_pid


class ProcessExitedException(Exception):
    """A spawned process exited with a non-zero code without raising in Python (a signal, os._exit)."""

    def __init__(self, msg: str, error_index: int, error_pid: int, exit_code: int, signal_name=None) -> None:
        super().__init__(msg)
        self.error_index, self.pid, self.exit_code, self.signal_name = error_index, error_pid, exit_code, signal_name


def _run_process(fn, i: int, args: tuple, error_queue) -> None:
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass
    except Exception:  # noqa: BLE001 - reported to the parent with its traceback
        error_queue.put(traceback.format_exc())
        raise SystemExit(1)


class ProcessContext:
    """The spawned processes; join() waits for them and raises what the first failed one raised."""

    def __init__(self, processes: list, error_queues: list) -> None:
        self.processes, self.error_queues = processes, error_queues

    def pids(self) -> list:
        return [p.pid for p in self.processes]

    def join(self, timeout=None) -> bool:
        """True when every process finished; raises for the first that failed (terminating the others)."""
        for i, p in enumerate(self.processes):
            p.join(timeout)
            if p.exitcode is None:
                return False
            if p.exitcode != 0:
                for other in self.processes:
                    if other.is_alive():
                        other.terminate()
                if not self.error_queues[i].empty():
                    msg = self.error_queues[i].get()
                    raise ProcessRaisedException(f"\n\n-- Process {i} terminated with the following error:\n{msg}",
                                                 i, p.pid)
                raise ProcessExitedException(f"process {i} terminated with exit code {p.exitcode}", i, p.pid,
                                             p.exitcode)
        return True


def start_processes(fn, args=(), nprocs: int = 1, join: bool = True, daemon: bool = False,
                    start_method: str = "spawn"):
    ctx = multiprocessing.get_context(start_method)
    processes, queues = [], []
    for i in range(nprocs):
        q = ctx.SimpleQueue()
        p = ctx.Process(target=_run_process, args=(fn, i, tuple(args), q), daemon=daemon)
        p.start()
        processes.append(p)
        queues.append(q)
    context = ProcessContext(processes, queues)
    if not join:
        return context
    while not context.join():
        pass
    return None


def spawn(fn, args=(), nprocs: int = 1, join: bool = True, daemon: bool = False, start_method: str = "spawn"):
    """Runs fn(i, *args) for i in range(nprocs), each in a new process; join waits and re-raises failures."""
    return start_processes(fn, args, nprocs, join, daemon, start_method)
