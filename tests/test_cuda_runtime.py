"""nabla.cuda: on a machine without a GPU, is_available() is False, the memory
counters read 0 as PyTorch's do, and every request that needs a device raises
RuntimeError with the reason. With a GPU, streams, events, copies, pinned memory
and the caching allocator's statistics. Plus the memory picture."""
from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import nabla
from nabla import memory_viz
from nabla._memory_summary import summary_table

cuda = nabla.cuda
HAS_CUDA = cuda.is_available()
needs_cuda = pytest.mark.skipif(not HAS_CUDA, reason="no CUDA device")
no_cuda = pytest.mark.skipif(HAS_CUDA, reason="checks the machine without CUDA")


@no_cuda
def test_unavailable_reports_why():
    assert cuda.is_available() is False
    assert cuda.device_count() == 0
    assert cuda.unavailable_reason() != ""


@no_cuda
@pytest.mark.parametrize("request_", [
    lambda: cuda.current_device(), lambda: cuda.set_device(0), lambda: cuda.synchronize(),
    lambda: cuda.Stream(), lambda: cuda.Event(), lambda: cuda.Event(enable_timing=True),
    lambda: cuda.current_stream(), lambda: cuda.default_stream(), lambda: cuda.mem_get_info(),
    lambda: cuda.memory_snapshot(), lambda: cuda.memory_summary(), lambda: cuda.reset_peak_memory_stats(),
    lambda: cuda.device(0).__enter__(), lambda: nabla.zeros(2, device="cuda"), lambda: nabla.ones(2).cuda(),
    lambda: nabla.ones(2).to("cuda"), lambda: nabla.ones(2).to("cuda:0", non_blocking=True),
    lambda: nabla.ones(2).pin_memory(), lambda: nabla.empty(3, device="cuda:1"),
], ids=["current_device", "set_device", "synchronize", "Stream", "Event", "Event_timing", "current_stream",
        "default_stream", "mem_get_info", "memory_snapshot", "memory_summary", "reset_peak", "device_ctx",
        "zeros", "cuda", "to", "to_non_blocking", "pin_memory", "empty_index1"])
def test_cuda_requests_raise_the_clear_error(request_):
    with pytest.raises(RuntimeError, match="CUDA is not available|pinned memory needs CUDA") as info:
        request_()
    assert cuda.unavailable_reason() in str(info.value)


@no_cuda
def test_memory_counters_read_zero_like_pytorch():
    assert cuda.memory_allocated() == 0
    assert cuda.max_memory_allocated() == 0
    assert cuda.memory_reserved() == 0
    assert cuda.max_memory_reserved() == 0
    assert cuda.memory_stats() == {}
    cuda.empty_cache()  # a no-op, as in PyTorch
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        assert torch.cuda.memory_allocated() == cuda.memory_allocated()
        assert dict(torch.cuda.memory_stats()) == cuda.memory_stats()


def test_no_op_contexts_and_cpu_paths():
    with cuda.stream(None) as s:
        assert s is None
    with cuda.device(None), cuda.device(-1):
        pass
    x = nabla.arange(6, dtype=nabla.float32)
    assert x.is_pinned() is False
    y = x.to(nabla.float64, non_blocking=True)
    np.testing.assert_array_equal(y.numpy(), np.arange(6.0))
    z = nabla.zeros(6)
    assert z.copy_(x, non_blocking=True) is z
    np.testing.assert_array_equal(z.numpy(), np.arange(6.0, dtype=np.float32))


def test_stream_type_errors():
    with pytest.raises(ValueError, match="Expected a cuda device"):
        cuda.synchronize("cpu")


# ---- with a GPU ----

@needs_cuda
def test_streams_and_events_order_and_time_work():
    s = cuda.Stream()
    assert s != cuda.default_stream() and s.cuda_stream != 0
    start, end = cuda.Event(enable_timing=True), cuda.Event(enable_timing=True)
    with cuda.stream(s):
        assert cuda.current_stream() == s
        start.record()
        a = nabla.full((1 << 22,), 1.5, device="cuda")
        b = a + a
        end.record()
    assert cuda.current_stream() == cuda.default_stream()
    cuda.default_stream().wait_event(end)
    end.synchronize()
    assert end.query() and s.query()
    assert start.elapsed_time(end) > 0
    assert b[-1].item() == 3.0
    with pytest.raises(RuntimeError, match="enable_timing"):
        cuda.Event().elapsed_time(end)


@needs_cuda
def test_copies_pinned_memory_and_non_blocking():
    x = nabla.arange(1 << 20, dtype=nabla.float32)
    p = x.pin_memory()
    assert p.is_pinned() and not x.is_pinned()
    d = p.to("cuda", non_blocking=True)
    back = d.to("cpu", non_blocking=True)
    assert back.is_pinned()
    cuda.synchronize()
    np.testing.assert_array_equal(back.numpy(), x.numpy())
    np.testing.assert_array_equal(d.cpu().numpy(), x.numpy())


@needs_cuda
def test_allocator_statistics_snapshot_and_summary():
    cuda.empty_cache()
    cuda.reset_peak_memory_stats()
    base = cuda.memory_allocated()
    t = nabla.empty(1 << 20, device="cuda")  # 4 MiB
    assert cuda.memory_allocated() == base + (4 << 20)
    assert cuda.memory_reserved() >= cuda.memory_allocated()
    stats = cuda.memory_stats()
    before = stats["num_device_alloc"]
    del t
    for _ in range(100):
        nabla.empty(1 << 20, device="cuda")
    assert cuda.memory_stats()["num_device_alloc"] == before  # the cache serves the loop
    assert cuda.max_memory_allocated() >= base + (4 << 20)
    segments = cuda.memory_snapshot()
    assert segments and {"address", "total_size", "stream", "segment_type", "blocks"} <= set(segments[0])
    table = cuda.memory_summary()
    assert "Allocated memory" in table and len({len(line) for line in table.splitlines()}) == 1
    free, total = cuda.mem_get_info()
    assert 0 < free <= total


# ---- the memory picture ----

SNAPSHOT = {"device": "cuda:0", "segments": [
    {"address": 0x7f0000000000, "total_size": 2 << 20, "stream": 0, "segment_type": "small", "blocks": [
        {"address": 0x7f0000000000, "size": 512, "requested_size": 100, "state": "active_allocated"},
        {"address": 0x7f0000000200, "size": 1024, "requested_size": 0, "state": "inactive"},
        {"address": 0x7f0000000600, "size": (2 << 20) - 1536, "requested_size": 0, "state": "active_pending_free"}]},
    {"address": 0x7f0001000000, "total_size": 20 << 20, "stream": 0x55aa, "segment_type": "large", "blocks": [
        {"address": 0x7f0001000000, "size": 20 << 20, "requested_size": 0, "state": "inactive"}]},
]}


def test_memory_picture_draws_every_block_and_the_summary():
    svg = memory_viz.render_svg(SNAPSHOT)
    root = ET.fromstring(svg)  # well-formed
    titles = [t.text for t in root.iter("{http://www.w3.org/2000/svg}title")]
    assert len(titles) == 4
    assert any(t.startswith("active_allocated 512 B") and "requested 100" in t for t in titles)
    assert "2 segments, 4 blocks" in svg
    assert "1.0 KiB fragmented inside used segments" in svg  # the free block in the split segment
    assert "largest free block 20.0 MiB" in svg
    assert "stream 0x55aa" in svg and "url(#pending)" in svg
    page = memory_viz.render_html(SNAPSHOT["segments"])  # the list form of memory_snapshot()
    assert page.startswith("<!DOCTYPE html>") and "<script" not in page


def test_memory_picture_command(tmp_path):
    src = tmp_path / "snap.json"
    src.write_text(json.dumps(SNAPSHOT))
    for name in ("out.html", "out.svg"):
        out = tmp_path / name
        r = subprocess.run([sys.executable, "-m", "nabla.memory_viz", str(src), "-o", str(out)],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        assert "<svg" in out.read_text()


def test_summary_table_lines_up():
    table = summary_table({"allocated_bytes.all.current": 3 << 20, "allocated_bytes.all.peak": 5 << 30,
                           "num_ooms": 2, "allocation.all.allocated": 7}, 1)
    lines = table.splitlines()
    assert len({len(line) for line in lines}) == 1
    assert "device ID 1" in table and "CUDA OOMs: 2" in table
    assert "3.00 MiB" in table and "5.00 GiB" in table


@needs_cuda
def test_external_stream_wraps_a_native_stream_without_owning_it():
    owner = cuda.Stream()
    ext = cuda.ExternalStream(owner.cuda_stream)
    assert ext.cuda_stream == owner.cuda_stream and ext != owner  # a second object over the same queue
    with cuda.stream(ext):
        x = nabla.full((1 << 16,), 2.0, device="cuda")
        y = x * x
    del ext  # the native stream stays: its owner still uses it
    with cuda.stream(owner):
        z = y + 1.0
    owner.synchronize()
    assert z.min().item() == 5.0
    legacy = cuda.ExternalStream(0)
    assert legacy.cuda_stream == 0
    legacy.synchronize()


@needs_cuda
def test_dlpack_consumer_stream_waits_for_the_producers_current_stream():
    producer, consumer = cuda.Stream(), cuda.Stream()
    with cuda.stream(producer):
        a = nabla.ones(1 << 20, device="cuda")
        for _ in range(10):
            a = a * 1.0 + 1.0
        capsule = a.__dlpack__(stream=consumer.cuda_stream, max_version=(1, 0))
    with cuda.stream(consumer):  # ordered after the producer's work by the handshake, no host sync
        b = nabla.from_dlpack(capsule) * 2.0
    consumer.synchronize()
    assert b.min().item() == 22.0 and b.max().item() == 22.0


def test_external_stream_on_a_machine_without_cuda_raises_the_reason():
    if HAS_CUDA:
        pytest.skip("checks the machine without CUDA")
    with pytest.raises(RuntimeError):
        cuda.ExternalStream(0)


@no_cuda
def test_device_properties_without_cuda():
    assert cuda.is_bf16_supported() is False
    for request_ in (cuda.get_device_properties, cuda.get_device_name, cuda.get_device_capability):
        with pytest.raises(RuntimeError):
            request_()


@needs_cuda
def test_device_properties_match_the_driver():
    p = cuda.get_device_properties(0)
    assert isinstance(p.name, str) and p.name
    assert cuda.get_device_name() == cuda.get_device_name("cuda:0") == p.name
    assert cuda.get_device_capability(0) == (p.major, p.minor) and p.major >= 3
    free, total = cuda.mem_get_info(0)
    assert p.total_memory == total >= free > 0
    assert p.multi_processor_count > 0 and p.warp_size == 32 and p.L2_cache_size > 0
    assert len(p.uuid) == 32 and f"name='{p.name}'" in repr(p)
    assert cuda.is_bf16_supported() is True
    assert cuda.is_bf16_supported(including_emulation=False) is (p.major >= 8)
    with pytest.raises(RuntimeError):
        cuda.get_device_properties(cuda.device_count())
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():  # the same device seen by PyTorch
        tp = torch.cuda.get_device_properties(0)
        assert (tp.name, tp.major, tp.minor, tp.multi_processor_count) == (p.name, p.major, p.minor,
                                                                          p.multi_processor_count)
