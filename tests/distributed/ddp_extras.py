"""DDP communication hooks and Join (uneven inputs), run by worker.py on every rank: gradients against the
same training in one process in float64. NABLA_DIST_DEVICE=cuda runs them on CUDA (the nccl backend)."""
from __future__ import annotations

import os

import numpy as np

import nabla as nb
import nabla.distributed as dist
from nabla import nn
from nabla.distributed.algorithms import Join
from nabla.distributed.algorithms.ddp_comm_hooks import default_hooks as hooks
from nabla.futures import Future, collect_all

DEV = os.environ.get("NABLA_DIST_DEVICE", "cpu")


def make_model(seed, norm=False):
    nb.manual_seed(seed)
    layers = [nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 3)]
    if norm:
        layers.insert(1, nn.BatchNorm1d(16))
    return nn.Sequential(*layers).double().to(DEV)


def data(k, rows):
    g = np.random.default_rng(k)
    return nb.from_numpy(g.standard_normal((rows, 6))).to(DEV), nb.from_numpy(g.standard_normal((rows, 3))).to(DEV)


def loss_of(model, x, y):
    return ((model(x) - y) ** 2).mean()


def grad_diff(model, ref):
    return max(float((p.grad - q.grad).abs().max()) for p, q in zip(model.parameters(), ref.parameters()))


class Branchy(nn.Module):
    """A model whose ranks use different branches (a or b) and never use one layer."""

    def __init__(self):
        super().__init__()
        self.shared = nn.Linear(4, 4)
        self.a = nn.Linear(4, 2)
        self.b = nn.Linear(4, 2)
        self.never = nn.Linear(4, 2)

    def forward(self, x, use_b):
        h = self.shared(x).tanh()
        return self.b(h) if use_b else self.a(h)


def register(check, R, N):
    X, Y = data(10, 8 * N)
    mine = slice(R * 8, (R + 1) * 8)

    def reference():
        ref = make_model(0)
        loss_of(ref, X, Y).backward()
        return ref

    scale = max(float(p.grad.abs().max()) for p in reference().parameters())
    for name, hook, tol in (("allreduce_hook", hooks.allreduce_hook, 1e-12),
                            ("fp16_compress_hook", hooks.fp16_compress_hook, 2e-3),
                            ("bf16_compress_hook", hooks.bf16_compress_hook, 2e-2),
                            ("fp16_compress_wrapper", hooks.fp16_compress_wrapper(hooks.allreduce_hook), 2e-3),
                            ("bf16_compress_wrapper", hooks.bf16_compress_wrapper(hooks.allreduce_hook), 2e-2)):
        @check("comm_hooks", name)
        def _(hook=hook, tol=tol):
            model = make_model(0)
            ddp = nn.parallel.DistributedDataParallel(model, bucket_cap_mb=0.001)
            ddp.register_comm_hook(None, hook)
            for _ in range(2):  # the hook stays registered across iterations
                for p in model.parameters():
                    p.grad = None
                loss_of(ddp, X[mine], Y[mine]).backward()
                diff = grad_diff(model, reference())
                assert diff <= tol * scale, (diff, tol * scale)
                assert diff > 0 or tol < 1e-6, "a compressing hook left the gradients exact: it did not run"

    @check("comm_hooks", "grad-bucket-interface")
    def _():
        model = make_model(0)
        local = make_model(0)
        loss_of(local, X[mine], Y[mine]).backward()
        local_grads = {id(p): q.grad for p, q in zip(model.parameters(), local.parameters())}
        ddp = nn.parallel.DistributedDataParallel(model, bucket_cap_mb=0.001)
        seen = []

        def hook(state, bucket: dist.GradBucket) -> Future:
            assert state == "my-state"
            for p, g in zip(bucket.parameters(), bucket.gradients()):
                assert g.shape == p.shape and float((g - local_grads[id(p)]).abs().max()) < 1e-12
            assert bucket.buffer().numel() == sum(p.numel() for p in bucket.parameters())
            seen.append((bucket.index(), bucket.is_last()))
            out = bucket.buffer().clone()
            dist.all_reduce(out)  # blocking, handed back through a completed future
            fut = Future()
            fut.set_result(out / N)
            return fut

        ddp.register_comm_hook("my-state", hook)
        loss_of(ddp, X[mine], Y[mine]).backward()
        n = len(ddp._buckets)
        assert n > 1 and sorted(seen) == [(i, i == n - 1) for i in range(n)], seen
        assert grad_diff(model, reference()) < 1e-12
        for bad, cls, text in ((lambda: ddp.register_comm_hook(None, hooks.allreduce_hook), RuntimeError,
                                "can only be called once"),
                               (lambda: nn.parallel.DistributedDataParallel(make_model(0)).register_comm_hook(None, 3),
                                TypeError, "must be callable")):
            try:
                bad()
                raise AssertionError(f"no error, expected {text}")
            except cls as e:
                assert text in str(e), e
        wrong = nn.parallel.DistributedDataParallel(make_model(0))
        wrong.register_comm_hook(None, lambda state, bucket: bucket.buffer())
        for _ in range(2):  # the failed backward leaves no state behind: the second fails the same way
            try:
                loss_of(wrong, X[mine], Y[mine]).backward()
                raise AssertionError("a hook that returned a tensor went unnoticed")
            except RuntimeError as e:
                assert "must return a torch.futures.Future" in str(e), e

    @check("comm_hooks", "builtin-and-futures")
    def _():
        model = make_model(0)
        ddp = nn.parallel.DistributedDataParallel(model, bucket_cap_mb=0.001)
        ddp.register_builtin_comm_hook(dist.BuiltinCommHookType.FP16_COMPRESS)
        loss_of(ddp, X[mine], Y[mine]).backward()
        assert 0 < grad_diff(model, reference()) <= 2e-3 * scale
        t = nb.full((3,), float(R + 1), device=DEV)
        fut = dist.all_reduce(t, async_op=True).get_future()
        chained = fut.then(lambda f: f.value()[0] * 2)
        assert chained.wait().tolist() == [N * (N + 1)] * 3 and fut.done()
        assert fut.value()[0] is t
        u = nb.ones(2, device=DEV)
        both = collect_all([dist.all_reduce(u, async_op=True).get_future(), Future()])
        both._upstreams[1].set_result(None)
        assert [f.value() for f in both.wait()][0][0].tolist() == [N, N]

    # ---- Join: rank r has 2 + r batches ----

    def join_reference(divide_by_initial, steps):
        """Single-process SGD on the ranks' batches: iteration i averages the ranks that still have one."""
        ref = make_model(0)
        opt = nb.optim.SGD(ref.parameters(), lr=0.1)
        for i in range(steps):
            active = [r for r in range(N) if i < 2 + r]
            opt.zero_grad()
            total = sum(loss_of(ref, *data(100 * i + r, 8)) for r in active)
            (total / (N if divide_by_initial else len(active))).backward()
            opt.step()
        return ref

    def train_joined(ddp, model, divide_by_initial=True, **kw):
        opt = nb.optim.SGD(model.parameters(), lr=0.1)
        with ddp.join(divide_by_initial_world_size=divide_by_initial, **kw):
            for i in range(2 + R):
                opt.zero_grad()
                loss_of(ddp, *data(100 * i + R, 8)).backward()
                opt.step()

    for divide in (True, False):
        @check("join", f"uneven-inputs-divide_by_initial_world_size={divide}")
        def _(divide=divide):
            model = make_model(0)
            ddp = nn.parallel.DistributedDataParallel(model, bucket_cap_mb=0.001)
            train_joined(ddp, model, divide)
            ref = join_reference(divide, 2 + N - 1)
            diff = max(float((p - q).abs().max()) for p, q in zip(model.parameters(), ref.parameters()))
            assert diff < 1e-12, diff
            # the group is still in step: a collective after the context manager matches on every rank
            t = nb.ones(1, device=DEV)
            dist.all_reduce(t)
            assert t.item() == N

    @check("join", "uneven-inputs-with-a-comm-hook-and-unused-parameters")
    def _():
        model = make_model(0)
        ddp = nn.parallel.DistributedDataParallel(model, bucket_cap_mb=0.001, find_unused_parameters=True)
        ddp.register_comm_hook(None, hooks.allreduce_hook)
        train_joined(ddp, model)
        ref = join_reference(True, 2 + N - 1)
        diff = max(float((p - q).abs().max()) for p, q in zip(model.parameters(), ref.parameters()))
        assert diff < 1e-12, diff

    @check("join", "buffers-end-equal-on-every-rank")
    def _():
        model = make_model(0, norm=True)
        ddp = nn.parallel.DistributedDataParallel(model)
        train_joined(ddp, model)
        for t in list(model.parameters()) + list(model.buffers()):
            everyone = [None] * N
            dist.all_gather_object(everyone, t.detach().to(nb.float64).cpu().numpy().tolist())
            assert all(e == everyone[0] for e in everyone)

    @check("join", "throw_on_early_termination")
    def _():
        model = make_model(0)
        ddp = nn.parallel.DistributedDataParallel(model)
        try:
            train_joined(ddp, model, throw_on_early_termination=True)
            raise AssertionError("no rank raised")
        except RuntimeError as e:
            want = "exhausted all inputs" if R == 0 else "Detected at least one rank that exhausted inputs"
            assert want in str(e), e
        t = nb.ones(1, device=DEV)
        dist.all_reduce(t)  # still in step
        assert t.item() == N

    @check("join", "errors")
    def _():
        try:
            Join([])
            raise AssertionError("no error")
        except ValueError as e:
            assert "requires at least one joinable" in str(e)
        model = make_model(0)
        ddp = nn.parallel.DistributedDataParallel(model)
        with ddp.join(enable=False):  # disabled: no collectives of its own
            loss_of(ddp, X[mine], Y[mine]).backward()
        assert grad_diff(model, reference()) < 1e-12
