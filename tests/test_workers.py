"""Processes: nabla.multiprocessing (tensors cross through shared memory; writes
in a child are seen by the parent) and DataLoader workers (order, seeds,
worker info, persistent workers, failures re-raised, killed workers and
timeouts reported instead of hanging, nothing left behind at shutdown)."""
from __future__ import annotations

import gc
import os
import random
import signal
import time

import numpy as np
import pytest

import nabla
import nabla.multiprocessing as mp
from nabla.utils.data import DataLoader, Dataset, IterableDataset, TensorDataset, get_worker_info


def children() -> set[int]:
    """Live child processes of this process (zombies excluded)."""
    me, out = os.getpid(), set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == me and fields[0] != "Z":
                out.add(int(entry))
    return out


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def shm_entries() -> set[str]:
    return set(os.listdir("/dev/shm")) if os.path.isdir("/dev/shm") else set()


def _counting(check_fds: bool):
    from multiprocessing import resource_tracker
    resource_tracker.ensure_running()  # the standard module's helper process lives as long as we do
    gc.collect()
    before = (children(), shm_entries(), open_fds())
    yield
    gc.collect()
    deadline = time.monotonic() + 5
    while children() - before[0] and time.monotonic() < deadline:
        time.sleep(0.02)
    assert children() - before[0] == set(), "orphan worker processes"
    assert shm_entries() - before[1] == set(), "shared-memory segments left in /dev/shm"
    if check_fds:
        assert open_fds() <= before[2], "descriptors leaked in the main process"


@pytest.fixture
def leaves_nothing_behind():
    """Counts child processes, /dev/shm segments and open descriptors before and after."""
    yield from _counting(check_fds=True)


@pytest.fixture
def leaves_no_process_or_segment():
    """As leaves_nothing_behind, without descriptors: multiprocessing's own queues and
    fd-sharing listener thread stay open for the life of the process."""
    yield from _counting(check_fds=False)


# ---- shared memory and nabla.multiprocessing ----

def test_share_memory_moves_the_storage_of_every_view():
    t = nabla.arange(6.0)
    v = t[2:]
    assert not t.is_shared()
    assert v.share_memory_() is v
    assert t.is_shared() and v.is_shared() and t.tolist() == [0, 1, 2, 3, 4, 5]
    t[3] = 30
    assert v[1].item() == 30
    assert nabla.ones(2).share_memory_().share_memory_().is_shared()  # idempotent


def _child_writes(q_in, q_out):
    t = q_in.get()
    t.add_(1)  # in place: the parent's tensor
    q_out.put(t[1:])  # a view goes back through shared memory as well
    q_in.get()  # a sender stays alive until the receiver has taken its descriptors


def test_write_in_a_child_is_seen_by_the_parent(leaves_no_process_or_segment):
    ctx = mp.get_context("fork")
    q_in, q_out = ctx.Queue(), ctx.Queue()
    t = nabla.zeros(1000)
    p = ctx.Process(target=_child_writes, args=(q_in, q_out))
    p.start()
    q_in.put(t)
    back = q_out.get(timeout=30)
    q_in.put("done")
    p.join(30)
    assert p.exitcode == 0
    assert t.is_shared() and t.sum().item() == 1000
    back[0] = 5  # the child's view maps the same memory
    assert t[1].item() == 5
    for q in (q_in, q_out):
        q.close()
        q.join_thread()


def _child_fills(conn):
    t = conn.recv()
    t.fill_(7)
    conn.send(nabla.full((3,), 2.0))
    conn.recv()  # stay alive until the parent has the tensor
    conn.close()


def test_spawn_context_and_pipes(leaves_no_process_or_segment):
    ctx = mp.get_context("spawn")
    parent, child = ctx.Pipe()
    p = ctx.Process(target=_child_fills, args=(child,))
    p.start()
    t = nabla.zeros(4, dtype=nabla.int32)
    parent.send(t)
    made = parent.recv()
    parent.send("done")
    p.join(60)
    parent.close()
    child.close()
    assert p.exitcode == 0
    assert t.tolist() == [7, 7, 7, 7] and made.tolist() == [2.0, 2.0, 2.0] and made.is_shared()


def test_drop_in_names_and_sharing_strategy():
    assert mp.Process is not None and mp.Queue is not None and mp.get_context is not None
    assert mp.get_sharing_strategy() == "file_descriptor"
    assert mp.get_all_sharing_strategies() == {"file_descriptor"}
    with pytest.raises(ValueError):
        mp.set_sharing_strategy("file_system")


# ---- DataLoader workers ----

class Images(Dataset):
    def __init__(self, n: int) -> None:
        self.x = nabla.arange(n * 4, dtype=nabla.float32).reshape(n, 2, 2)

    def __len__(self) -> int:
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], i


class WhoAmI(Dataset):
    """Each sample says which worker made it and with what seeds."""

    def __len__(self) -> int:
        return 8

    def __getitem__(self, i):
        info = get_worker_info()
        return {"id": info.id, "num_workers": info.num_workers, "seed": info.seed, "py": random.random(),
                "nb": nabla.rand(1).item(), "np": float(np.random.rand()), "init": _INIT_CALLS[:]}


_INIT_CALLS: list = []


def _init(worker_id: int) -> None:
    _INIT_CALLS.append(worker_id)


def test_workers_give_the_main_process_batches_in_order(leaves_nothing_behind):
    ds = Images(50)
    single = [(x.tolist(), i.tolist()) for x, i in DataLoader(ds, batch_size=8)]
    loader = DataLoader(ds, batch_size=8, num_workers=2, prefetch_factor=3)
    multi = []
    for x, i in loader:
        assert x.is_shared() and x.shape[1:] == (2, 2) and x.dtype is nabla.float32 and i.dtype is nabla.int64
        multi.append((x.tolist(), i.tolist()))
    assert multi == single
    assert get_worker_info() is None


def test_worker_info_seeds_and_init_fn(leaves_nothing_behind):
    g = nabla.Generator().manual_seed(3)
    out = list(DataLoader(WhoAmI(), batch_size=2, num_workers=2, worker_init_fn=_init, generator=g))
    by_worker = {}
    for batch in out:
        by_worker.setdefault(batch["id"][0].item(), []).append(batch)
    assert set(by_worker) == {0, 1}
    seeds = {w: b[0]["seed"][0].item() for w, b in by_worker.items()}
    assert seeds[1] == seeds[0] + 1  # base_seed + worker_id, as in PyTorch
    for w, batches in by_worker.items():
        assert all(b["num_workers"][0].item() == 2 for b in batches)
        assert [t.tolist() for t in batches[0]["init"]] == [[w, w]]  # worker_init_fn ran once, in this worker
    draws = [b[k].tolist() for b in out for k in ("py", "nb", "np")]
    assert len({tuple(d) for d in draws}) == len(draws)  # workers are seeded differently
    again = list(DataLoader(WhoAmI(), batch_size=2, num_workers=2, generator=nabla.Generator().manual_seed(3)))
    assert [b["nb"].tolist() for b in again] == [b["nb"].tolist() for b in out]  # reproducible from the generator
    assert _INIT_CALLS == []  # only the workers ran it


class Split(IterableDataset):
    def __iter__(self):
        info = get_worker_info()
        start, step = (0, 1) if info is None else (info.id, info.num_workers)
        return iter(range(start, 10, step))


def test_iterable_dataset_split_across_workers(leaves_nothing_behind):
    got = sorted(sum((b.tolist() for b in DataLoader(Split(), batch_size=3, num_workers=2)), []))
    assert got == list(range(10))


def test_persistent_workers_survive_epochs_and_partial_epochs(leaves_nothing_behind):
    loader = DataLoader(Images(40), batch_size=4, num_workers=2, persistent_workers=True)
    it = iter(loader)
    pids = {p.pid for p in it._workers}
    next(it)  # abandon the epoch after one batch
    for _ in range(2):
        epoch = [i.tolist() for _, i in loader]
        assert sum(epoch, []) == list(range(40))
        assert {p.pid for p in loader._iterator._workers} == pids
    del it, loader


class Fails(Dataset):
    def __len__(self) -> int:
        return 8

    def __getitem__(self, i):
        if i == 5:
            raise ValueError(f"bad sample {i}")
        return i


def test_exception_in_a_worker_is_reraised_with_its_traceback(leaves_nothing_behind):
    loader = DataLoader(Fails(), batch_size=2, num_workers=2)
    with pytest.raises(ValueError) as info:
        list(loader)
    msg = str(info.value)
    assert msg.startswith("Caught ValueError in DataLoader worker process 0.\nOriginal Traceback (most recent call last):")
    assert "in __getitem__" in msg and "ValueError: bad sample 5" in msg


class KilledAt(Dataset):
    def __len__(self) -> int:
        return 8

    def __getitem__(self, i):
        if i == 4:
            os.kill(os.getpid(), signal.SIGKILL)
        return i


def test_worker_killed_by_a_signal_is_a_clear_error_not_a_hang(leaves_nothing_behind):
    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid \d+\) is killed by signal: Killed"):
        list(DataLoader(KilledAt(), batch_size=2, num_workers=2))
    assert time.monotonic() - t0 < 10


class Numbers(Dataset):
    def __len__(self) -> int:
        return 64

    def __getitem__(self, i):
        return i


def test_worker_killed_from_outside_is_always_reported_as_killed(leaves_nothing_behind):
    """SIGKILL to a worker whose result already waits in its channel: the next task sent
    to it meets a broken pipe, which must surface as the worker's death, every time."""
    t0 = time.monotonic()
    for k in range(20):
        it = iter(DataLoader(Numbers(), batch_size=1, num_workers=2, prefetch_factor=2))
        assert next(it) == 0
        victim = it._workers[k % 2]
        if k % 2:
            time.sleep(0.01)  # the workers fill their channels before the kill
        os.kill(victim.pid, signal.SIGKILL)
        with pytest.raises(RuntimeError, match=rf"^DataLoader worker \(pid {victim.pid}\) is killed by signal: "
                                               r"Killed\.$"):
            for _ in it:
                pass
        del it
    assert time.monotonic() - t0 < 10


class Slow(Dataset):
    def __len__(self) -> int:
        return 4

    def __getitem__(self, i):
        if i == 2:
            time.sleep(3)
        return i


def test_timeout(leaves_nothing_behind):
    with pytest.raises(RuntimeError, match=r"DataLoader timed out after 0.3 seconds"):
        list(DataLoader(Slow(), batch_size=1, num_workers=1, timeout=0.3))


def test_batches_outlive_the_workers_and_free_their_memory(leaves_nothing_behind):
    ds = TensorDataset(nabla.arange(64.0).reshape(16, 4))
    kept = [b[0] for b in DataLoader(ds, batch_size=4, num_workers=2)]
    assert nabla.cat(kept).tolist() == ds.tensors[0].tolist()
    del kept
