"""nabla.distributed's stores (TCPStore, FileStore, HashStore, PrefixStore) against torch.distributed's in one
process, their blocking semantics across two processes, and init_process_group's init_method / store
rendezvous under mpiexec with 2 and 4 ranks."""
from __future__ import annotations

import datetime
import os
import subprocess
import sys
import textwrap
import threading
import time

import pytest

import nabla.distributed as dist
from test_distributed import HAVE_MPI, HERE, MPIEXEC

needs_mpi = pytest.mark.skipif(not HAVE_MPI, reason="mpich is not installed (pip install mpich, in the test extra)")
SECOND = datetime.timedelta(seconds=1)


def _script(d, tmp):
    """The same calls on torch.distributed or nabla.distributed; every result and error, in order."""
    out = []

    def attempt(fn):
        try:
            out.append(fn())
        except Exception as e:  # noqa: BLE001 - the error is the result
            out.append((isinstance(e, RuntimeError), str(e).split("\n")[0]))

    s = d.TCPStore("127.0.0.1", 0, 1, True, timeout=SECOND)
    attempt(s.num_keys)
    s.set("a", "x")
    attempt(lambda: (s.get("a"), s.num_keys(), s.add("c", 3), s.add("c", -5), s.get("c")))
    attempt(lambda: (s.compare_set("a", "x", "y"), s.compare_set("a", "zz", "w"), s.get("a"),
                     s.compare_set("new", "", "v"), s.compare_set("new2", "q", "v"), s.check(["new2"])))
    attempt(lambda: (s.check(["a"]), s.check(["a", "nope"]), s.delete_key("a"), s.delete_key("a"), s.num_keys()))
    attempt(lambda: s.get("missing"))
    attempt(lambda: s.wait(["missing", "c"], datetime.timedelta(milliseconds=300)))
    s.append("ap", "x")
    s.append("ap", b"\x00\xff")
    s.multi_set(["m1", "m2"], ["1", b"2"])
    attempt(lambda: (s.get("ap"), s.multi_get(["ap", "m2"]), s.timeout, s.host))
    s.wait(["m1"])
    h = d.HashStore()
    p = d.PrefixStore("pre", h)
    p.set("z", "1")
    attempt(lambda: (p.get("z"), h.get("pre/z"), p.num_keys(), h.num_keys(), p.underlying_store is h,
                     p.add("n", 2), h.get("pre/n")))
    f = d.FileStore(str(tmp / f"file-{d.__name__}"), 1)
    attempt(lambda: (f.num_keys(), f.set("k", "v"), f.num_keys(), f.delete_key("k"), f.num_keys(),
                     f.compare_set("k", "", "v"), f.get("k"), f.add("n", 4), f.add("n", -1), f.check(["n"])))
    f.set_timeout(datetime.timedelta(milliseconds=200))
    attempt(lambda: f.get("nope"))
    return out


def test_stores_match_torch(tmp_path):
    tdist = pytest.importorskip("torch.distributed")
    theirs, ours = _script(tdist, tmp_path), _script(dist, tmp_path)
    assert len(theirs) == len(ours)
    for t, o in zip(theirs, ours):
        assert t == o


def test_a_get_blocks_until_another_thread_sets_the_key():
    s = dist.TCPStore("127.0.0.1", 0, is_master=True, timeout=datetime.timedelta(seconds=10))
    client = dist.TCPStore("127.0.0.1", s.port, timeout=datetime.timedelta(seconds=10))
    threading.Timer(0.3, lambda: s.set("late", "here")).start()
    t0 = time.monotonic()
    assert client.get("late") == b"here"
    assert 0.25 <= time.monotonic() - t0 < 5


def _child(code: str, timeout=60):
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=timeout)


@pytest.mark.parametrize("kind", ["tcp", "file"])
def test_two_processes_share_a_store(kind, tmp_path):
    timeout = datetime.timedelta(seconds=20)
    if kind == "tcp":
        store = dist.TCPStore("127.0.0.1", 0, 2, True, timeout=timeout, wait_for_workers=False)
        make = f"dist.TCPStore('127.0.0.1', {store.port}, 2, False, timeout=datetime.timedelta(seconds=20))"
    else:
        path = str(tmp_path / "store")
        store = dist.FileStore(path, 2)
        make = f"dist.FileStore({path!r}, 2)"
    result = {}

    def run():
        result["proc"] = _child(f"""
            import datetime
            import nabla.distributed as dist
            s = {make}
            s.set("from_child", "1")
            print(s.get("from_parent").decode(), s.add("counter", 10))
            s.wait(["done"])
            try:
                s.wait(["never"], datetime.timedelta(milliseconds=200))
            except dist.DistStoreError as e:
                print("timeout", "never" in str(e))
            print(s.compare_set("cas", "", "child"))
        """)

    thread = threading.Thread(target=run)
    thread.start()
    assert store.get("from_child") == b"1"  # blocks until the child got there
    store.add("counter", 1)
    store.set("from_parent", "hello")
    store.wait(["counter"])
    time.sleep(0.2)
    store.set("done", "")
    thread.join(60)
    proc = result["proc"]
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.split("\n")
    assert lines[0].split()[0] == "hello" and int(lines[0].split()[1]) in (10, 11)
    assert lines[1] == "timeout True" and lines[2] == "b'child'"
    assert int(store.get("counter")) == 11
    assert store.compare_set("cas", "", "parent") == b"child"


def test_store_errors():
    with pytest.raises(dist.DistNetworkError, match=r"timed out after 300ms while trying to connect"):
        dist.TCPStore("127.0.0.1", _free_port(), timeout=datetime.timedelta(milliseconds=300))
    s = dist.HashStore()
    with pytest.raises(TypeError, match="store value must be str or bytes"):
        s.set("k", 3.5)
    s.set("text", "abc")
    with pytest.raises(dist.DistStoreError, match="is not an integer"):
        s.add("text", 1)
    with pytest.raises(ValueError, match="2 keys but 1 values"):
        s.multi_set(["a", "b"], ["1"])
    with pytest.raises(TypeError, match="timedelta"):
        s.set_timeout(5)
    with pytest.raises(dist.DistStoreError, match="Timed out after 0 seconds waiting for clients. 1/2"):
        dist.TCPStore("127.0.0.1", 0, 2, True, timeout=datetime.timedelta(milliseconds=300))


def _free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@needs_mpi
@pytest.mark.parametrize("n", [2, 4])
@pytest.mark.parametrize("method", ["env://", "tcp", "file", "store"])
def test_init_process_group_rendezvous(method, n, tmp_path):
    port = _free_port()
    init = {"tcp": f"tcp://127.0.0.1:{port}", "file": f"file://{tmp_path}/rdv"}.get(method, method)
    out = tmp_path / "out"
    env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), OMP_NUM_THREADS="1")
    proc = subprocess.run([MPIEXEC, "-n", str(n), sys.executable, str(HERE / "rendezvous.py"), init, str(out)],
                          capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    want = f"{[f'from {r}' for r in range(n)]} {n} {n * (n + 1) // 2} True"
    assert [(tmp_path / f"out.{r}").read_text() for r in range(n)] == [want] * n


@needs_mpi
def test_init_method_errors():
    code = textwrap.dedent("""
        import os, nabla.distributed as dist
        for kw in ({"init_method": "foo://x"}, {"init_method": "env://", "store": dist.HashStore()}):
            try:
                dist.init_process_group("mpi", **kw)
            except (ValueError, RuntimeError) as e:  # torch: RuntimeError for an unknown scheme
                print("ERR", e)
            assert not dist.is_initialized()
        os.environ.pop("MASTER_ADDR", None)
        try:
            dist.init_process_group("mpi", init_method="env://")
        except ValueError as e:
            print("ERR", e)
        dist.init_process_group("mpi")
        try:
            dist.distributed_c10d._get_default_store()
        except RuntimeError as e:
            print("ERR", e)
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "ERR No rendezvous handler for foo://" in proc.stdout
    assert "ERR Cannot specify both init_method and store." in proc.stdout
    assert "environment variable MASTER_ADDR expected, but not set" in proc.stdout
    assert "the default process group has no store" in proc.stdout
