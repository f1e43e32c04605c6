"""Errors (C messages, .status / .status_name, devices, CUDA on a machine
without it) and memory (allocator statistics, prompt release, views keeping
storage alive, threads)."""
from __future__ import annotations

import gc
import re
import threading
from contextlib import contextmanager

import numpy as np
import pytest

import nabla

# status codes from include/nabla.h
NB_ERR = {"NB_ERR_INVALID_ARGUMENT": 1, "NB_ERR_SHAPE": 2, "NB_ERR_DTYPE": 3, "NB_ERR_DEVICE": 4,
          "NB_ERR_INDEX": 5, "NB_ERR_OUT_OF_MEMORY": 6, "NB_ERR_NOT_IMPLEMENTED": 7}


@pytest.mark.parametrize("call, exc, status_name, message", [
    (lambda: nabla.zeros(2).view(3), RuntimeError, "NB_ERR_SHAPE",
     "view: shape '[3]' is invalid for input of size 2"),
    (lambda: nabla.zeros(2, 3).transpose(0, 5), IndexError, "NB_ERR_INDEX",
     "transpose: dimension out of range (expected to be in range of [-2, 1], but got 5)"),
    (lambda: nabla.arange(6).select(0, 7), IndexError, "NB_ERR_INDEX",
     "select: index 7 is out of bounds for dimension 0 with size 6"),
    (lambda: nabla.zeros(2, -3), RuntimeError, "NB_ERR_INVALID_ARGUMENT",
     "zeros: trying to create tensor with negative dimension -3: [2, -3]"),
    (lambda: nabla.arange(0, 5, 0), RuntimeError, "NB_ERR_INVALID_ARGUMENT", "arange: step must be nonzero"),
    (lambda: nabla.zeros(3, 4).copy_(nabla.ones(5)), RuntimeError, "NB_ERR_SHAPE",
     "copy_: source shape [5] cannot be broadcast to destination shape [3, 4]"),
    (lambda: nabla.zeros(2).item(), RuntimeError, "NB_ERR_INVALID_ARGUMENT",
     "item: a Tensor with 2 elements cannot be converted to Scalar"),
    (lambda: nabla.zeros(2).expand(3), RuntimeError, "NB_ERR_SHAPE", "expand: the expanded size of the tensor (3)"),
    (lambda: nabla.zeros(2, device="cpu:1"), RuntimeError, "NB_ERR_DEVICE", "cpu device index must be 0"),
    (lambda: nabla.zeros(3).expand(2, 3).zero_(), RuntimeError, "NB_ERR_INVALID_ARGUMENT",
     "refers to a single memory location"),
])
def test_exceptions_carry_c_message_and_status(call, exc, status_name, message):
    with pytest.raises(exc) as info:
        call()
    e = info.value
    assert message in str(e)
    assert e.status_name == status_name
    assert e.status == NB_ERR[status_name] and isinstance(e.status, int)


def test_error_messages_do_not_leak_between_calls():
    with pytest.raises(RuntimeError) as first:
        nabla.zeros(2).view(3)
    with pytest.raises(IndexError) as second:
        nabla.zeros(4)[9]
    assert "view" in str(first.value) and "index 9" in str(second.value)
    assert "view" not in str(second.value)
    assert nabla.zeros(2).view(2, 1).shape == (2, 1)  # a later success works normally


@pytest.mark.parametrize("spec", ["tpu", "mps", "gpu", "", "CPU", " cpu", "cuda:x", "cpu:-1", "cuda:0:1", "cuda:-1"])
def test_unknown_device_strings_raise(spec):
    with pytest.raises(RuntimeError):
        nabla.device(spec)
    with pytest.raises(RuntimeError):
        nabla.zeros(2, device=spec)


def test_device_objects():
    assert nabla.device("cpu") == nabla.device(nabla.device("cpu")) and nabla.device("cpu").index is None
    assert nabla.device("cuda:1") == nabla.device("cuda", 1) == nabla.device(1)
    assert hash(nabla.device("cuda:1")) == hash(nabla.device("cuda", 1))
    assert nabla.device("cuda") != nabla.device("cuda:0") and nabla.device("cpu") != "cpu"
    with pytest.raises(RuntimeError):
        nabla.device("cuda:0", 1)
    with pytest.raises(RuntimeError):
        nabla.device(-1)
    with pytest.raises(TypeError):
        nabla.device(3.5)
    t = nabla.zeros(2, device="cpu:0")
    assert t.device == nabla.device("cpu") and t.is_cpu and not t.is_cuda
    assert nabla.zeros(2, device=nabla.device("cpu")).device.type == "cpu"


@pytest.fixture
def no_cuda():
    if nabla.cuda.is_available():
        pytest.skip("CUDA is available here; these tests check the CPU-only behaviour")


def test_cuda_reports_unavailable(no_cuda):
    assert nabla.cuda.device_count() == 0
    assert nabla.cuda.is_available() is False
    assert nabla.cuda.unavailable_reason() != ""


@pytest.mark.parametrize("call", [
    lambda: nabla.zeros(2, device="cuda"), lambda: nabla.ones(2, device="cuda:0"),
    lambda: nabla.empty(2, device=nabla.device("cuda", 0)), lambda: nabla.tensor([1.0], device="cuda"),
    lambda: nabla.arange(3, device="cuda"), lambda: nabla.eye(2, device="cuda"),
    lambda: nabla.full((2,), 1.0, device="cuda"), lambda: nabla.linspace(0, 1, 3, device="cuda"),
    lambda: nabla.zeros_like(nabla.zeros(2), device="cuda"), lambda: nabla.zeros(2).cuda(),
    lambda: nabla.zeros(2).cuda(0), lambda: nabla.zeros(2).to("cuda"), lambda: nabla.zeros(2).to("cuda:0", nabla.float64),
    lambda: nabla.memory.stats("cuda"),
])
def test_cuda_requests_raise_runtime_error_mentioning_cuda(call, no_cuda):
    with pytest.raises(RuntimeError, match="CUDA") as info:
        call()
    assert getattr(info.value, "status_name", "NB_ERR_DEVICE") == "NB_ERR_DEVICE"


# ---- memory ----

@contextmanager
def no_gc():
    """Counts must move without the cycle collector's help (and it must not free stale objects meanwhile)."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def live():
    s = nabla.memory.stats()
    return s["live_tensors"], s["live_storages"]


def test_stats_fields():
    s = nabla.memory.stats()
    assert set(s) >= {"allocated_bytes", "peak_allocated_bytes", "cached_bytes", "alloc_count", "free_count",
                      "system_alloc_count", "system_free_count", "live_tensors", "live_storages"}
    assert all(isinstance(v, int) and v >= 0 for v in s.values())
    assert s["peak_allocated_bytes"] >= s["allocated_bytes"]
    assert nabla.memory.stats("cpu").keys() == s.keys()


def test_many_tensors_return_to_baseline():
    with no_gc():
        base = nabla.memory.stats()
        for i in range(100_000):
            t = nabla.zeros(4)
            if i % 1000 == 0:
                v = t.view(2, 2)[1]
                assert v.tolist() == [0.0, 0.0]
        del t, v
        after = nabla.memory.stats()
    assert (after["live_tensors"], after["live_storages"]) == (base["live_tensors"], base["live_storages"])
    assert after["allocated_bytes"] == base["allocated_bytes"]
    assert after["alloc_count"] - base["alloc_count"] == after["free_count"] - base["free_count"] >= 100_000


def test_dropping_last_reference_frees_at_once():
    with no_gc():
        tensors0, storages0 = live()
        t = nabla.ones(1000, 1000)
        allocated = nabla.memory.stats()["allocated_bytes"]
        assert live() == (tensors0 + 1, storages0 + 1)
        v = t[10]
        assert live() == (tensors0 + 2, storages0 + 1)  # a view: a new tensor, the same storage
        del v
        assert live() == (tensors0 + 1, storages0 + 1)
        del t
        assert live() == (tensors0, storages0)
        assert nabla.memory.stats()["allocated_bytes"] <= allocated - 4_000_000


def test_views_keep_base_storage_alive(rng):
    a = rng.standard_normal((50, 40))
    with no_gc():
        tensors0, storages0 = live()
        base = nabla.tensor(a)
        view = base.t()[3:7, ::5]
        del base
        assert live() == (tensors0 + 2, storages0 + 1)  # the view and its base (PyTorch's ._base)
        np.testing.assert_array_equal(view.numpy(), a.T[3:7, ::5])
        view[0, 0] = 123.0  # still writable memory
        assert view[0, 0].item() == 123.0
        deeper = view[1]
        del view
        np.testing.assert_array_equal(deeper.numpy(), a.T[4, ::5])
        del deeper
        assert live() == (tensors0, storages0)


def test_backward_frees_each_gradient_once_its_node_has_run():
    """A chain of 32 products: backward must hold only the few gradients in flight, not
    one per node until the pass ends (as PyTorch's engine)."""
    n, rows, cols = 32, 256, 1024  # float32: 1 MiB per gradient
    w = nabla.eye(cols) * 0.5  # needs no gradient: each product's backward makes a new one for its input
    x = nabla.randn(rows, cols, requires_grad=True)
    y = x
    for _ in range(n):
        y = y @ w
    y = y.sum()
    nabla.memory.reset_peak()
    before = nabla.memory.stats()["allocated_bytes"]
    y.backward()
    extra = nabla.memory.stats()["peak_allocated_bytes"] - before
    assert extra <= 4 * rows * cols * 4, f"backward of {n} products held {extra / 2**20:.1f} MiB at its peak"
    np.testing.assert_allclose(x.grad.numpy(), np.full((rows, cols), 0.5 ** n, np.float32))


def test_peak_and_cache_controls():
    nabla.memory.reset_peak()
    s = nabla.memory.stats()
    assert s["peak_allocated_bytes"] == s["allocated_bytes"]
    t = nabla.empty(256, 1024)
    assert nabla.memory.stats()["peak_allocated_bytes"] >= s["allocated_bytes"] + 256 * 1024 * 4
    del t
    nabla.memory.empty_cache()
    assert nabla.memory.stats()["cached_bytes"] == 0


def test_a_full_cache_makes_room_by_returning_its_largest_blocks():
    """The global free lists hold at most 512 MiB. A block freed past that returns the largest cached
    blocks of other classes to the system, so that a tensor re-created in a loop keeps reusing its block
    after a dead big tensor's block filled the cache (before: every iteration allocated from the system)."""
    mib = 1 << 20
    nabla.memory.empty_cache()
    big = nabla.empty(400 * mib, dtype=nabla.uint8)  # a 448 MiB block
    del big
    s0 = nabla.memory.stats()
    assert s0["cached_bytes"] >= 448 * mib
    ptrs = set()
    for _ in range(4):
        t = nabla.empty(100 * mib, dtype=nabla.uint8)  # a 112 MiB block: 448 + 112 > 512
        ptrs.add(t.data_ptr())
        del t
    s1 = nabla.memory.stats()
    assert len(ptrs) == 1, "the 112 MiB block was not reused"
    assert s1["system_free_count"] > s0["system_free_count"], "the 448 MiB block was not returned"
    assert 112 * mib <= s1["cached_bytes"] < 448 * mib
    nabla.memory.empty_cache()
    assert nabla.memory.stats()["cached_bytes"] == 0


def test_threads_create_view_and_drop_concurrently():
    errors = []
    n_threads, iters = 4, 1500

    def work(k):
        try:
            rng = np.random.default_rng(k)
            for i in range(iters):
                n = int(rng.integers(1, 40))
                a = rng.standard_normal((n, 3))
                t = nabla.tensor(a)
                v = t.t()[:, ::2]
                np.testing.assert_array_equal(v.numpy(), a.T[:, ::2])
                s = nabla.arange(k * 1000 + i, k * 1000 + i + 6).view(2, 3).T.contiguous()
                assert s.tolist() == (np.arange(6).reshape(2, 3).T + k * 1000 + i).tolist()
                v.fill_(float(k))
                assert float(t[0, 0]) == float(k)
                if i % 50 == 0:  # errors are per thread: the message names this thread's shape
                    with pytest.raises(RuntimeError, match=re.escape(f"input of size {k + 7}")):
                        nabla.zeros(k + 7).view(k + 8)
                del t, v, s
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    with no_gc():
        before = live()
        threads = [threading.Thread(target=work, args=(k,)) for k in range(n_threads)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        assert not errors, errors[0]
        assert live() == before


def test_num_threads_round_trip():
    before = nabla.get_num_threads()
    try:
        nabla.set_num_threads(1)
        assert nabla.get_num_threads() == 1
        a = nabla.ones(1 << 17)
        b = a + a  # big enough to take the parallel path, now on one thread
        assert b[0].item() == 2.0 and b[-1].item() == 2.0
    finally:
        nabla.set_num_threads(before)
    with pytest.raises(RuntimeError, match="positive"):
        nabla.set_num_threads(0)


# ---- the storage-size rule: a 0 in the shape does not excuse a huge dim ----

HUGE_BESIDE_ZERO = [(2**63 - 1, 6, 0, 6), (4, 2**63 - 1, 0), (0, 2**62, 4)]


@pytest.mark.parametrize("shape", HUGE_BESIDE_ZERO)
def test_huge_dims_beside_a_zero_fail_at_creation_like_pytorch(shape):
    """These shapes were created (numel 0); reducing the 0 away then segfaulted (mean) or reported numel -4
    and storage_nbytes -16 (sum, keepdim). PyTorch refuses them when the tensor is made."""
    torch = pytest.importorskip("torch")
    for L in (torch, nabla):
        with pytest.raises(RuntimeError, match="calculation overflowed"):
            L.empty(*shape, dtype=L.float64)
    with pytest.raises(RuntimeError, match=re.escape(f"empty: Storage size calculation overflowed with sizes="
                                                      f"[{', '.join(map(str, shape))}]")):
        nabla.empty(*shape)


@pytest.mark.parametrize("make", [
    lambda s: nabla.zeros(s),
    lambda s: nabla.ones(s, dtype=nabla.int8),
    lambda s: nabla.full(s, 2.0),
    lambda s: nabla.empty(0).view(s),
    lambda s: nabla.empty(0).reshape(s),
    lambda s: nabla.empty(0).resize_(s),
    lambda s: nabla.zeros(1).expand(s),
    lambda s: nabla.as_strided(nabla.zeros(1), s, (0,) * len(s)),
], ids=["zeros", "ones", "full", "view", "reshape", "resize_", "expand", "as_strided"])
def test_every_path_that_makes_a_shape_applies_the_rule(make):
    for shape in ((4, 2**63 - 1, 0), (0, 2**62, 4)):
        with pytest.raises(RuntimeError, match="Storage size calculation overflowed"):
            make(shape)


def test_the_item_size_counts_and_legal_empty_shapes_reduce_cleanly():
    with pytest.raises(RuntimeError, match="Storage size calculation overflowed"):
        nabla.empty(2**61, 0, dtype=nabla.float64)  # 2^61 items fit int64, their 2^64 bytes do not
    assert nabla.empty(2**61, 0, dtype=nabla.int8).numel() == 0
    e = nabla.empty(2**60, 0)  # 2^62 bytes if it had elements
    for call in (lambda: e.sum(1), lambda: e.sum(1, keepdim=True), lambda: e.mean(1)):
        with pytest.raises(nabla.OutOfMemoryError, match="out of memory allocating 4611686018427387904 bytes"):
            call()
    torch = pytest.importorskip("torch")
    for L in (torch, nabla):
        r = L.empty(3, 0, 5).sum(1, keepdim=True)
        assert tuple(r.shape) == (3, 1, 5) and r.numel() == 15 and r.tolist() == [[[0.0] * 5]] * 3


def test_an_index_into_a_size_zero_dim_is_out_of_range_like_pytorch():
    torch = pytest.importorskip("torch")
    for L in (torch, nabla):
        x = L.empty(2, 0, 3)
        for call in (lambda: x[:, 0], lambda: x[:, L.tensor([0])], lambda: x.select(1, 0)):
            with pytest.raises(IndexError, match="out of (bounds|range)"):
                call()
