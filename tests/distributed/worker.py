"""One rank of tests/test_distributed.py: runs every check under mpiexec and writes its results to
$NABLA_DIST_OUT/rank<r>.json as [category, name, ok, message] rows (the test reads them).
NABLA_DIST_DEVICE=cuda runs the same checks on CUDA tensors over the nccl backend
(tests/test_distributed_nccl.py)."""
from __future__ import annotations

import copy
import os
import sys

import numpy as np

import nabla as nb
import nabla.distributed as dist
from nabla import nn

sys.path.insert(0, os.path.dirname(__file__))
import batch_p2p  # noqa: E402
import checks  # noqa: E402
import ddp_extras  # noqa: E402
import ddp_views  # noqa: E402
from checks import check  # noqa: E402
from ddp_extras import Branchy  # noqa: E402

DEV = os.environ.get("NABLA_DIST_DEVICE", "cpu")
dist.init_process_group("nccl" if DEV == "cuda" else "mpi")
R, N = dist.get_rank(), dist.get_world_size()
DTYPES = ["float32", "float64", "float16", "bfloat16", "int8", "int16", "int32", "int64", "uint8", "bool"]
FLOATS = {"float32", "float64", "float16", "bfloat16"}
OPS = {"SUM": np.sum, "PRODUCT": np.prod, "MIN": np.min, "MAX": np.max, "AVG": np.mean}


def data(dtype, rank, shape=(3, 4)):
    """Rank r's small integer-valued values (exact in every dtype), as a nabla tensor and as float64 NumPy."""
    a = (np.arange(np.prod(shape)).reshape(shape) % 5 + rank + 1).astype(np.float64)
    if dtype == "bool":
        a = (a % 2 == 0).astype(np.float64)
    t = nb.from_numpy(a).to(getattr(nb, dtype))
    return t.to(DEV), t.to(nb.float64).numpy()


def sync():
    if DEV == "cuda":
        nb.cuda.synchronize()


def as_np(t):
    return t.to(nb.float64).cpu().numpy()


def zeros(*shape, dtype):
    return nb.zeros(*shape, dtype=getattr(nb, dtype), device=DEV)


def ones(*shape, dtype=nb.float32):
    return nb.ones(*shape, dtype=dtype, device=DEV)


def same(got, want, dtype, op="SUM"):
    want = np.asarray(want, dtype=np.float64)
    if dtype == "bool":
        want = want != 0
    # AVG is rounded once to the dtype; compare through the dtype's own rounding
    want_t = nb.from_numpy(np.ascontiguousarray(want).astype(np.float64)).to(getattr(nb, dtype)).to(nb.float64).numpy()
    np.testing.assert_array_equal(as_np(got), want_t)


def ref_reduce(op, dtype, shape=(3, 4)):
    stack = np.stack([data(dtype, r, shape)[1] for r in range(N)])
    if dtype == "bool":
        return stack.max(0) if op in ("SUM", "MAX") else stack.min(0)
    out = OPS[op](stack, axis=0)
    if dtype in ("int8", "int16", "int32", "int64", "uint8"):  # wraps as the dtype does
        out = out.astype(np.int64).astype(getattr(np, dtype))
    return out


# ---- every collective x every dtype vs NumPy ----

for dtype in DTYPES:
    for op in OPS:
        if op == "AVG" and dtype not in FLOATS:
            continue

        @check("all_reduce", f"{op}-{dtype}")
        def _(op=op, dtype=dtype):
            t, _ = data(dtype, R)
            dist.all_reduce(t, op=getattr(dist.ReduceOp, op))
            same(t, ref_reduce(op, dtype), dtype, op)

    @check("all_reduce", f"strided-async-{dtype}")
    def _(dtype=dtype):
        t, _ = data(dtype, R, (4, 3))
        v = t.t()  # a transposed (non-contiguous) view, reduced in place
        work = dist.all_reduce(v, op=dist.ReduceOp.MAX, async_op=True)
        assert work.wait() is True
        sync()  # on CUDA wait() only orders the current stream: is_completed() asks the device, as torch's
        assert work.is_completed()
        same(t, ref_reduce("MAX", dtype, (4, 3)), dtype)

    @check("broadcast", dtype)
    def _(dtype=dtype):
        root = N - 1
        t, _ = data(dtype, R)
        base, _ = data(dtype, R, (3, 8))
        s = base[:, ::2]  # strided
        dist.broadcast(t, src=root)
        dist.broadcast(s, src=root, async_op=True).wait()
        same(t, data(dtype, root)[1], dtype)
        same(s, data(dtype, root, (3, 8))[1][:, ::2], dtype)

    @check("reduce", dtype)
    def _(dtype=dtype):
        t, mine = data(dtype, R)
        dist.reduce(t, dst=1, op=dist.ReduceOp.MAX)
        same(t, ref_reduce("MAX", dtype) if R == 1 else mine, dtype)

    @check("all_gather", dtype)
    def _(dtype=dtype):
        t, _ = data(dtype, R, (2, 3))
        outs = [zeros(2, 3, dtype=dtype) for _ in range(N)]
        dist.all_gather(outs, t)
        whole = zeros(N * 2, 3, dtype=dtype)
        dist.all_gather_into_tensor(whole, t.t().contiguous().t(), async_op=True).wait()
        for r in range(N):
            same(outs[r], data(dtype, r, (2, 3))[1], dtype)
        same(whole, np.concatenate([data(dtype, r, (2, 3))[1] for r in range(N)]), dtype)

    @check("reduce_scatter", dtype)
    def _(dtype=dtype):
        full, _ = data(dtype, R, (N * 2, 3))
        out = zeros(2, 3, dtype=dtype)
        dist.reduce_scatter_tensor(out, full, op=dist.ReduceOp.MIN)
        same(out, ref_reduce("MIN", dtype, (N * 2, 3))[R * 2:(R + 1) * 2], dtype)
        out2 = zeros(2, 3, dtype=dtype)
        dist.reduce_scatter(out2, list(full.chunk(N)), op=dist.ReduceOp.MAX)
        same(out2, ref_reduce("MAX", dtype, (N * 2, 3))[R * 2:(R + 1) * 2], dtype)

    @check("gather_scatter", dtype)
    def _(dtype=dtype):
        t, _ = data(dtype, R, (2, 2))
        root = 0
        lst = [zeros(2, 2, dtype=dtype) for _ in range(N)] if R == root else None
        dist.gather(t, lst, dst=root)
        if R == root:
            for r in range(N):
                same(lst[r], data(dtype, r, (2, 2))[1], dtype)
        out = zeros(2, 2, dtype=dtype)
        src = [data(dtype, 10 + r, (2, 2))[0] for r in range(N)] if R == root else None
        dist.scatter(out, src, src=root)
        same(out, data(dtype, 10 + R, (2, 2))[1], dtype)

    @check("all_to_all", dtype)
    def _(dtype=dtype):
        inp, a = data(dtype, R, (N * 2, 3))
        out = zeros(N * 2, 3, dtype=dtype)
        dist.all_to_all_single(out, inp)
        want = np.concatenate([data(dtype, s, (N * 2, 3))[1][R * 2:(R + 1) * 2] for s in range(N)])
        same(out, want, dtype)
        # uneven: rank s sends s + 1 + r rows to rank r
        ins = [data(dtype, R * 100 + r, (R + 1 + r, 2))[0] for r in range(N)]
        outs = [zeros(s + 1 + R, 2, dtype=dtype) for s in range(N)]
        dist.all_to_all(outs, ins)
        for s in range(N):
            same(outs[s], data(dtype, s * 100 + R, (s + 1 + R, 2))[1], dtype)
        flat_in = nb.cat(ins)
        flat_out = zeros(sum(s + 1 + R for s in range(N)), 2, dtype=dtype)
        dist.all_to_all_single(flat_out, flat_in, [s + 1 + R for s in range(N)], [R + 1 + r for r in range(N)])
        same(flat_out, np.concatenate([data(dtype, s * 100 + R, (s + 1 + R, 2))[1] for s in range(N)]), dtype)

    @check("send_recv", dtype)
    def _(dtype=dtype):
        nxt, prv = (R + 1) % N, (R - 1) % N
        t, _ = data(dtype, R)
        got = zeros(4, 3, dtype=dtype).t()  # strided receive buffer
        if R % 2 == 0:
            dist.send(t, dst=nxt, tag=7)
            assert dist.recv(got, src=prv, tag=7) == prv
        else:
            assert dist.recv(got, src=prv, tag=7) == prv
            dist.send(t, dst=nxt, tag=7)
        same(got, data(dtype, prv)[1], dtype)
        works = [dist.isend(t, dst=nxt, tag=3), dist.irecv(got, src=prv, tag=3)]
        for w in works:
            w.wait()
        same(got, data(dtype, prv)[1], dtype)


@check("misc", "barrier-objects-groups")
def _():
    dist.barrier()
    dist.barrier(async_op=True).wait()
    objs = [None] * N
    dist.all_gather_object(objs, {"rank": R, "text": "x" * R})
    assert objs == [{"rank": r, "text": "x" * r} for r in range(N)], objs
    lst = [1, "two", (3,)] if R == 0 else [None, None, None]
    dist.broadcast_object_list(lst, src=0)
    assert lst == [1, "two", (3,)]
    evens = dist.new_group([r for r in range(N) if r % 2 == 0])
    if R % 2 == 0:
        t = nb.tensor([float(R)], device=DEV)
        dist.all_reduce(t, group=evens)
        assert t.item() == sum(r for r in range(N) if r % 2 == 0)
        assert dist.get_world_size(evens) == (N + 1) // 2 and dist.get_rank(evens) == R // 2
        dist.broadcast(t, src=0, group=evens)
    else:
        assert evens is dist.GroupMember.NON_GROUP_MEMBER and dist.get_rank(evens) == -1
    g = dist.new_group()
    dist.destroy_process_group(g)
    try:
        dist.all_reduce(ones(1), group=g)
        raise AssertionError("a collective on a destroyed group ran")
    except ValueError as e:
        assert "destroyed" in str(e), e


@check("errors", "debug-mode-mismatch")
def _():
    os.environ["NABLA_DISTRIBUTED_DEBUG"] = "DETAIL"
    g = dist.new_group()  # a communicator made now checks every call across ranks
    del os.environ["NABLA_DISTRIBUTED_DEBUG"]
    try:
        dist.all_reduce(ones(3 + (R == 1)), group=g)
        raise AssertionError("mismatched shapes went through")
    except RuntimeError as e:
        assert "all_reduce: tensor mismatch: rank 1 passed a float32 tensor of shape [4] while rank 0 passed a " \
               "float32 tensor of shape [3]" in str(e), e
    try:
        if R == 0:
            dist.all_reduce(ones(2), group=g)
        else:
            dist.broadcast(ones(2), src=0, group=g)
        raise AssertionError("mismatched collectives went through")
    except RuntimeError as e:
        assert "collective mismatch: rank 1 called broadcast while rank 0 called all_reduce" in str(e), e
    try:
        dist.all_reduce(ones(2, dtype=nb.float64 if R else nb.float32), group=g)
        raise AssertionError("mismatched dtypes went through")
    except RuntimeError as e:
        assert "rank 1 passed a float64 tensor of shape [2] while rank 0 passed a float32 tensor" in str(e), e
    t = ones(2)
    dist.all_reduce(t, group=g)  # still usable
    assert t.tolist() == [N, N]


@check("errors", "bad-arguments")
def _():
    for call, cls, text in [
        (lambda: dist.all_reduce(ones(2, dtype=nb.int32), op=dist.ReduceOp.AVG), RuntimeError,
         "ReduceOp.AVG is not supported for int32"),
        (lambda: dist.broadcast(ones(2), src=N), ValueError, f"Global rank {N} is not part of group"),
        (lambda: dist.all_gather_into_tensor(ones(3), ones(2)), RuntimeError, "must hold"),
        (lambda: dist.send(ones(2), dst=R), RuntimeError, "it is the rank of the current process"),
        (lambda: dist.all_reduce([1, 2]), TypeError, "Expected parameter `tensor` of type nabla.Tensor"),
        (lambda: dist.init_process_group(), ValueError, "twice"),
    ]:
        try:
            call()
            raise AssertionError(f"no error, expected {text}")
        except cls as e:
            assert text in str(e), e


# ---- DistributedDataParallel ----

def make_model(seed):
    nb.manual_seed(seed)
    return nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 3)).double().to(DEV)


def batch(k, per_rank=8):
    g = np.random.default_rng(k)
    X = g.standard_normal((per_rank * N, 6))
    Y = g.standard_normal((per_rank * N, 3))
    return nb.from_numpy(X).to(DEV), nb.from_numpy(Y).to(DEV)


def max_diff(a, b):
    return max(float((p.grad - q.grad).abs().max()) for p, q in zip(a.parameters(), b.parameters()))


@check("ddp", "grads-equal-single-process")
def _():
    model = make_model(seed=R)  # different on each rank: DDP broadcasts rank 0's
    ref = make_model(seed=0)
    ddp = nn.parallel.DistributedDataParallel(model, bucket_cap_mb=0.001)  # several buckets
    assert len(ddp._buckets) > 1 and ddp.module is model
    for p, q in zip(model.parameters(), ref.parameters()):
        assert nb.equal(p, q)
    X, Y = batch(0)
    ((ddp(X[R * 8:(R + 1) * 8]) - Y[R * 8:(R + 1) * 8]) ** 2).mean().backward()
    ((ref(X) - Y) ** 2).mean().backward()
    assert max_diff(model, ref) < 1e-12, max_diff(model, ref)
    # a second step with the optimizer keeps the replicas equal to the single-process model
    for m in (model, ref):
        opt = nb.optim.SGD(m.parameters(), lr=0.1)
        opt.step()
        opt.zero_grad()
    X, Y = batch(1)
    ((ddp(X[R * 8:(R + 1) * 8]) - Y[R * 8:(R + 1) * 8]) ** 2).mean().backward()
    ((ref(X) - Y) ** 2).mean().backward()
    assert max_diff(model, ref) < 1e-12, max_diff(model, ref)
    sd = ddp.module.state_dict()
    bare = make_model(seed=5)
    bare.load_state_dict(sd)
    assert all(nb.equal(sd[k], v) for k, v in bare.state_dict().items())
    assert set(ddp.state_dict()) == {"module." + k for k in sd}


@check("ddp", "no_sync-accumulates")
def _():
    model, ref = make_model(0), make_model(0)
    ddp = nn.parallel.DistributedDataParallel(model)
    X1, Y1 = batch(2)
    X2, Y2 = batch(3)
    with ddp.no_sync():
        ((ddp(X1[R * 8:(R + 1) * 8]) - Y1[R * 8:(R + 1) * 8]) ** 2).mean().backward()
    local = [p.grad.clone() for p in model.parameters()]
    ((ddp(X2[R * 8:(R + 1) * 8]) - Y2[R * 8:(R + 1) * 8]) ** 2).mean().backward()
    ((ref(X1) - Y1) ** 2).mean().backward()
    ((ref(X2) - Y2) ** 2).mean().backward()
    assert max_diff(model, ref) < 1e-12, max_diff(model, ref)
    # inside no_sync the gradient stayed local (rank-specific)
    mine = make_model(0)
    ((mine(X1[R * 8:(R + 1) * 8]) - Y1[R * 8:(R + 1) * 8]) ** 2).mean().backward()
    assert max(float((a - p.grad).abs().max()) for a, p in zip(local, mine.parameters())) < 1e-12


@check("ddp", "unused-parameters")
def _():
    nb.manual_seed(0)
    model = Branchy().double().to(DEV)
    ref = copy.deepcopy(model)
    ddp = nn.parallel.DistributedDataParallel(model, find_unused_parameters=True)
    X, _ = batch(4)
    X = X[:, :4].contiguous()
    use_b = R % 2 == 1  # rank 0 uses branch a, rank 1 branch b
    ddp(X[R * 8:(R + 1) * 8], use_b).pow(2).mean().backward()
    # single process: the mean over ranks of each rank's loss
    total = sum(ref(X[r * 8:(r + 1) * 8], r % 2 == 1).pow(2).mean() for r in range(N)) / N
    total.backward()
    for (name, p), q in zip(model.named_parameters(), ref.parameters()):
        if name.startswith("never"):
            assert p.grad is None and q.grad is None, name
        else:
            assert float((p.grad - q.grad).abs().max()) < 1e-12, name
    strict = nn.parallel.DistributedDataParallel(Branchy().double().to(DEV))
    try:
        strict(X[:8], False).sum().backward()
        raise AssertionError("unused parameters went unnoticed")
    except RuntimeError as e:
        assert "find_unused_parameters=True" in str(e) and "never.weight" in str(e), e


@check("ddp", "float32-buckets-and-sampler")
def _():
    model, ref = make_model(0).float(), make_model(0).float()
    ddp = nn.parallel.DistributedDataParallel(model)
    X, Y = batch(5)
    X, Y = X.float(), Y.float()
    ((ddp(X[R * 8:(R + 1) * 8]) - Y[R * 8:(R + 1) * 8]) ** 2).mean().backward()
    ((ref(X) - Y) ** 2).mean().backward()
    assert max_diff(model, ref) < 1e-5
    sampler = nb.utils.data.DistributedSampler(range(10), shuffle=True, seed=3)
    sampler.set_epoch(2)
    mine = list(sampler)
    everyone = [None] * N
    dist.all_gather_object(everyone, mine)
    flat = sorted(i for part in everyone for i in part)
    assert set(flat) == set(range(10)) and len(flat) == sampler.total_size


batch_p2p.register(check, R, N, DTYPES, data, zeros, same, sync)
ddp_extras.register(check, R, N)
ddp_views.register(check, R, N)

checks.write(R)
dist.destroy_process_group()
sys.exit(0)
