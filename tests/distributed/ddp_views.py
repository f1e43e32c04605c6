"""ReduceOp.PREMUL_SUM against NumPy for every dtype, and DDP's gradient_as_bucket_view and static_graph against
single-process training in float64; run by worker.py on every rank (NABLA_DIST_DEVICE=cuda: the nccl backend)."""
from __future__ import annotations

import numpy as np

import nabla as nb
import nabla.distributed as dist
from nabla import nn
from ddp_extras import DEV, Branchy, data, grad_diff, loss_of, make_model

DTYPES = ["float32", "float64", "float16", "bfloat16", "int8", "int16", "int32", "int64", "uint8"]


def rank_values(dtype, rank, shape=(3, 4)):
    """Rank r's small integers (1..8: their premultiplied sums are exact in every dtype)."""
    a = (np.arange(np.prod(shape)).reshape(shape) % 5 + rank + 1).astype(np.float64)
    return nb.from_numpy(a).to(getattr(nb, dtype)).to(DEV), a


def in_dtype(values, dtype):
    """values (float64) rounded to dtype, back in float64."""
    return nb.from_numpy(np.asarray(values, dtype=np.float64)).to(getattr(nb, dtype)).to(nb.float64).numpy()


def got(t):
    return t.to(nb.float64).cpu().numpy()


def register_premul(check, R, N):
    for dtype in DTYPES:
        factor = 2.5 if dtype in ("float32", "float64", "float16", "bfloat16") else 3

        @check("premul_sum", f"all_reduce-{dtype}")
        def _(dtype=dtype, factor=factor):
            t, _ = rank_values(dtype, R)
            dist.all_reduce(t, op=dist._make_nccl_premul_sum(factor))
            want = sum(rank_values(dtype, r)[1] * factor for r in range(N))
            if dtype == "int8" or dtype == "uint8":
                want = want.astype(np.int64).astype(getattr(np, dtype))  # wraps as the dtype does
            np.testing.assert_array_equal(got(t), in_dtype(want, dtype))

    @check("premul_sum", "factor-rounded-to-the-dtype-then-multiplied")
    def _():
        third = 1 / 3
        t, mine = rank_values("float64", R)
        dist.all_reduce(t, op=dist._make_nccl_premul_sum(third))
        np.testing.assert_allclose(got(t), sum(rank_values("float64", r)[1] for r in range(N)) * third, rtol=1e-15)
        h, _ = rank_values("float16", R)
        dist.all_reduce(h, op=dist._make_nccl_premul_sum(third))
        f16_third = np.float16(third).astype(np.float64)  # as NCCL: the factor in the dtype, each product rounded
        terms = [in_dtype(rank_values("float16", r)[1] * f16_third, "float16") for r in range(N)]
        np.testing.assert_allclose(got(h), in_dtype(sum(terms), "float16"), rtol=2 ** -10 * N)

    @check("premul_sum", "tensor-factor-async-reduce-and-reduce_scatter")
    def _():
        op = dist._make_nccl_premul_sum(nb.tensor([0.5], dtype=nb.float64, device=DEV))
        assert op == dist.ReduceOp.PREMUL_SUM and int(op) == int(dist.ReduceOp.PREMUL_SUM)
        t, mine = rank_values("float32", R)
        dist.reduce(t, dst=N - 1, op=op, async_op=True).wait()
        total = sum(rank_values("float32", r)[1] for r in range(N)) * 0.5
        np.testing.assert_array_equal(got(t), total if R == N - 1 else mine)  # other ranks keep their tensor
        x = nb.arange(2 * N, dtype=nb.float64, device=DEV) + R
        before = got(x)
        out = nb.zeros(2, dtype=nb.float64, device=DEV)
        dist.reduce_scatter_tensor(out, x, op=dist._make_nccl_premul_sum(4.0))
        full = sum(np.arange(2 * N) + r for r in range(N)) * 4.0
        np.testing.assert_array_equal(got(out), full[2 * R:2 * R + 2])
        np.testing.assert_array_equal(got(x), before)  # reduce_scatter leaves its input alone

    @check("premul_sum", "errors")
    def _():
        for dtype, op, text in (("int32", dist._make_nccl_premul_sum(0.5), "needs an integral factor, got 0.5"),
                                ("bool", dist._make_nccl_premul_sum(2.0), "bool tensors"),
                                ("float32", dist.ReduceOp.PREMUL_SUM, "needs its factor")):
            t = nb.ones(2, dtype=getattr(nb, dtype), device=DEV)
            try:
                dist.all_reduce(t, op=op)
                raise AssertionError(f"{dtype} {op} was accepted")
            except (TypeError, ValueError) as e:
                assert text in str(e), e


def train(view: bool, static: bool, X, Y, mine, steps=3, model=None, set_to_none=True, **kw):
    """steps of DDP training (SGD) on this rank's rows; returns (model, ddp, grads after each step)."""
    model = make_model(0) if model is None else model
    ddp = nn.parallel.DistributedDataParallel(model, bucket_cap_mb=0.001, gradient_as_bucket_view=view,
                                              static_graph=static, **kw)
    opt = nb.optim.SGD(model.parameters(), lr=0.1)
    grads = []
    for k in range(steps):
        opt.zero_grad(set_to_none=set_to_none)
        loss_of(ddp, X[k][mine], Y[k][mine]).backward()
        grads.append([None if p.grad is None else p.grad.clone() for p in model.parameters()])
        opt.step()
    return model, ddp, grads


def register_ddp(check, R, N):
    batches = [data(20 + k, 8 * N) for k in range(3)]
    X, Y = [b[0] for b in batches], [b[1] for b in batches]
    mine = slice(R * 8, (R + 1) * 8)

    def reference():
        ref, opt, grads = make_model(0), None, []
        opt = nb.optim.SGD(ref.parameters(), lr=0.1)
        for k in range(3):
            opt.zero_grad()
            loss_of(ref, X[k], Y[k]).backward()
            grads.append([p.grad.clone() for p in ref.parameters()])
            opt.step()
        return grads

    def assert_same(grads, want, tol):
        for k, (gs, ws) in enumerate(zip(grads, want)):
            diff = max(float((g - w).abs().max()) for g, w in zip(gs, ws))
            assert diff <= tol, (k, diff)

    for set_to_none in (True, False):
        @check("ddp_views", f"gradient_as_bucket_view-set_to_none={set_to_none}")
        def _(set_to_none=set_to_none):
            model, ddp, grads = train(True, False, X, Y, mine, set_to_none=set_to_none)
            assert_same(grads, reference(), 1e-12)
            _, _, plain = train(False, False, X, Y, mine, set_to_none=set_to_none)
            assert_same(grads, plain, 0.0)  # the same values as without views
            for i, p in enumerate(model.parameters()):  # every parameter requires grad: reducer index i
                b, s = ddp.reducer.where[i]
                assert p.grad.data_ptr() == ddp._buckets[b].view(s).data_ptr(), "grad is not the bucket's view"
            assert ddp._get_ddp_logging_data()["gradient_as_bucket_view"] is True

    @check("ddp_views", "gradient_as_bucket_view-no_sync-accumulates")
    def _():
        model, ref = make_model(0), make_model(0)
        ddp = nn.parallel.DistributedDataParallel(model, bucket_cap_mb=0.001, gradient_as_bucket_view=True)
        for k in range(2):  # the second backward accumulates into the views of the first
            with ddp.no_sync():
                loss_of(ddp, X[0][mine], Y[0][mine]).backward()
            loss_of(ddp, X[1][mine], Y[1][mine]).backward()
            for x, y in ((X[0], Y[0]), (X[1], Y[1])):
                loss_of(ref, x, y).backward()
            assert grad_diff(model, ref) < 1e-12, (k, grad_diff(model, ref))

    @check("ddp_views", "static_graph-searches-once")
    def _():
        nb.manual_seed(0)
        model = Branchy().double().to(DEV)
        ref = Branchy().double().to(DEV)
        ref.load_state_dict(model.state_dict())
        ddp = nn.parallel.DistributedDataParallel(model, static_graph=True, bucket_cap_mb=0.0001)
        searches = []
        used_map = ddp.reducer.local_used_map
        ddp.reducer.local_used_map = lambda: searches.append(1) or used_map()
        x = X[0][:, :4].contiguous()
        use_b = R % 2 == 1
        for k in range(3):
            for m in (model, ref):
                m.zero_grad()
            ddp(x[mine], use_b).pow(2).mean().backward()
            total = sum(ref(x[r * 8:(r + 1) * 8], r % 2 == 1).pow(2).mean() for r in range(N)) / N
            total.backward()
            for (name, p), q in zip(model.named_parameters(), ref.parameters()):
                if name.startswith("never"):
                    assert p.grad is None and q.grad is None, (k, name)
                else:
                    assert float((p.grad - q.grad).abs().max()) < 1e-12, (k, name)
        assert len(searches) == 1, searches
        assert ddp._get_ddp_logging_data()["static_graph"] is True

    @check("ddp_views", "static_graph-and-views-equal-the-plain-run")
    def _():
        _, _, both = train(True, True, X, Y, mine)
        assert_same(both, reference(), 1e-12)


def register(check, R, N):
    register_premul(check, R, N)
    register_ddp(check, R, N)
