"""DistributedDataParallel: data parallelism across processes over nabla.distributed.

As PyTorch's: parameters and buffers are broadcast from rank 0 at construction; gradients are gathered
into buckets (about bucket_cap_mb each, the first 1 MB, in reverse parameter order, which is roughly the
order backward produces them), and each bucket's all-reduce (average) starts asynchronously from the
parameters' gradient hooks as soon as its last gradient is ready, so communication overlaps the rest of
backward; the end of backward waits for them and writes the averaged gradients to .grad.
"""
from __future__ import annotations

import contextlib

from ..modules.module import Module

_FIRST_BUCKET_BYTES = 1024 * 1024
_NOT_INIT = ("Default process group has not been initialized, please make sure to call init_process_group "
             "(nabla.distributed.init_process_group) before creating DistributedDataParallel.")


class _Bucket:
    __slots__ = ("params", "indices", "offsets", "flat", "pending", "work", "ready")

    def __init__(self, params, indices, dtype) -> None:
        from ... import empty
        self.params, self.indices = params, indices
        self.offsets, n = [], 0
        for p in params:
            self.offsets.append(n)
            n += p.numel()
        self.flat = empty(n, dtype=dtype, device=params[0].device)  # the backend of the params' device
        self.pending = len(params)
        self.work = None
        self.ready = [False] * len(params)


class DistributedDataParallel(Module):
    """DistributedDataParallel(module, device_ids=None, ..., bucket_cap_mb=25, find_unused_parameters=False):
    each process holds a replica; backward averages the gradients across the process group."""

    def __init__(self, module: Module, device_ids=None, output_device=None, dim: int = 0,
                 broadcast_buffers: bool = True, process_group=None, bucket_cap_mb=None,
                 find_unused_parameters: bool = False, check_reduction: bool = False,
                 gradient_as_bucket_view: bool = False, static_graph: bool = False, **kwargs) -> None:
        super().__init__()
        from ... import distributed as dist
        if process_group is None and not dist.is_initialized():
            raise ValueError(_NOT_INIT)
        self.module = module
        self.device_ids = device_ids
        self.output_device = output_device
        self.dim = dim
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = static_graph
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        object.__setattr__(self, "process_group", process_group if process_group is not None else dist.group.WORLD)
        self.bucket_bytes_cap = int((25 if bucket_cap_mb is None else bucket_cap_mb) * 1024 * 1024)
        self._params = [p for p in module.parameters() if p.requires_grad]
        if not self._params:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have any parameter "
                               "that requires a gradient.")
        self._sync_module_states()
        self._build_buckets()
        self._hooks = [p.register_hook(self._make_hook(i)) for i, p in enumerate(self._params)]
        self._in_backward = False

    # ---- construction ----

    def _sync_module_states(self) -> None:
        from ... import distributed as dist, no_grad
        with no_grad():
            for t in list(self.module.parameters()) + list(self.module.buffers()):
                dist.broadcast(t.data, src=dist.get_global_rank(self.process_group, 0), group=self.process_group)

    def _build_buckets(self) -> None:
        """Buckets of one dtype each, filled in reverse parameter order up to the cap (the first up to 1 MB)."""
        self._buckets, self._where = [], {}
        open_by_dtype = {}
        for i in reversed(range(len(self._params))):
            p = self._params[i]
            members, size = open_by_dtype.get(p.dtype, ([], 0))
            cap = min(_FIRST_BUCKET_BYTES, self.bucket_bytes_cap) if not self._buckets else self.bucket_bytes_cap
            members.append(i)
            size += p.numel() * p.element_size()
            if size >= cap:
                self._close(members, p.dtype)
                open_by_dtype.pop(p.dtype, None)
            else:
                open_by_dtype[p.dtype] = (members, size)
        for dtype, (members, _) in open_by_dtype.items():
            self._close(members, dtype)

    def _close(self, members, dtype) -> None:
        b = len(self._buckets)
        self._buckets.append(_Bucket([self._params[i] for i in members], members, dtype))
        for slot, i in enumerate(members):
            self._where[i] = (b, slot)

    # ---- backward ----

    def _make_hook(self, index: int):
        def hook(grad):
            if self.require_backward_grad_sync:
                self._enter_backward()
                self._mark_ready(index, grad)
            return None
        return hook

    def _enter_backward(self) -> None:
        """The first hook of a backward pass queues the wait for the buckets at its end."""
        if not self._in_backward:
            from ...autograd._callbacks import queue_callback
            self._in_backward = True
            queue_callback(self._finish_backward)

    def _mark_ready(self, index: int, grad) -> None:
        from ... import no_grad
        b, slot = self._where[index]
        bucket = self._buckets[b]
        if bucket.ready[slot]:  # a second gradient for the same parameter in one backward
            raise RuntimeError("Expected to mark a variable ready only once. This error is caused by one of the "
                               "following reasons: a parameter used in several reentrant backward passes, or "
                               "the same parameter marked ready twice in one iteration.")
        p = bucket.params[slot]
        with no_grad():
            view = bucket.flat[bucket.offsets[slot]:bucket.offsets[slot] + p.numel()]
            acc = grad if p.grad is None else p.grad + grad  # .grad after this accumulation
            view.copy_(acc.reshape(-1))
        bucket.ready[slot] = True
        bucket.pending -= 1
        if bucket.pending == 0:
            self._launch(bucket)
        else:  # MPI moves nonblocking collectives along only when called
            for other in self._buckets:
                if other.work is not None:
                    other.work.is_completed()
                    break

    def _launch(self, bucket: _Bucket) -> None:
        from ... import distributed as dist
        bucket.work = dist.all_reduce(bucket.flat, op=dist.ReduceOp.AVG if bucket.flat.is_floating_point()
                                      else dist.ReduceOp.SUM, group=self.process_group, async_op=True)

    def _finish_backward(self) -> None:
        from ... import distributed as dist, no_grad, zeros, int32
        self._in_backward = False
        missing = [(b, s) for b, bucket in enumerate(self._buckets) for s, r in enumerate(bucket.ready) if not r]
        used = None
        if missing:
            if not self.find_unused_parameters:
                self._reset()
                names = {id(p): n for n, p in self.module.named_parameters()}
                lost = [names.get(id(self._buckets[b].params[s]), "?") for b, s in missing]
                raise RuntimeError(
                    "Expected to have finished reduction in the prior iteration before starting a new one. This "
                    "error indicates that your module has parameters that were not used in producing loss. You "
                    "can enable unused parameter detection by passing the keyword argument "
                    "`find_unused_parameters=True` to `torch.nn.parallel.DistributedDataParallel`. Parameters "
                    f"which did not receive grad for rank {dist.get_rank(self.process_group)}: {', '.join(lost)}")
            with no_grad():
                for b, s in missing:  # a locally unused parameter contributes its .grad (or zeros)
                    bucket = self._buckets[b]
                    p = bucket.params[s]
                    view = bucket.flat[bucket.offsets[s]:bucket.offsets[s] + p.numel()]
                    if p.grad is None:
                        view.zero_()
                    else:
                        view.copy_(p.grad.reshape(-1))
            used = zeros(len(self._params), dtype=int32, device=self._params[0].device)
            for i in range(len(self._params)):
                b, s = self._where[i]
                if self._buckets[b].ready[s]:
                    used[i] = 1
            used_work = dist.all_reduce(used, op=dist.ReduceOp.MAX, group=self.process_group, async_op=True)
            for bucket in self._buckets:
                if bucket.work is None:
                    self._launch(bucket)
            used_work.wait()
            used = used.tolist()
        with no_grad():
            for bucket in self._buckets:
                bucket.work.wait()
                for slot, (p, i) in enumerate(zip(bucket.params, bucket.indices)):
                    if used is not None and not used[i] and p.grad is None:
                        continue  # unused on every rank: its .grad stays None, as PyTorch's
                    view = bucket.flat[bucket.offsets[slot]:bucket.offsets[slot] + p.numel()].view(p.shape)
                    if p.grad is None:
                        p.grad = view.clone()
                    else:
                        p.grad.copy_(view)
        self._reset()

    def _reset(self) -> None:
        for bucket in self._buckets:
            bucket.work = None
            bucket.pending = len(bucket.params)
            bucket.ready = [False] * len(bucket.params)
        self._in_backward = False

    # ---- forward and the rest of PyTorch's surface ----

    def forward(self, *inputs, **kwargs):
        if self.broadcast_buffers and self.require_forward_param_sync and len(list(self.module.buffers())):
            from ... import distributed as dist, no_grad
            with no_grad():
                for buf in self.module.buffers():
                    dist.broadcast(buf, src=dist.get_global_rank(self.process_group, 0), group=self.process_group)
        return self.module(*inputs, **kwargs)

    @contextlib.contextmanager
    def no_sync(self):
        """Inside the block, backward accumulates gradients locally without communication; the first backward
        after it averages the accumulated gradients."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old

    def join(self, *args, **kwargs):
        raise NotImplementedError("DistributedDataParallel.join (uneven inputs) is not supported by nabla")

    def _get_ddp_logging_data(self) -> dict:
        return {"bucket_sizes": [b.flat.numel() * b.flat.element_size() for b in self._buckets],
                "num_buckets": len(self._buckets)}
