"""The gradient reducer of DistributedDataParallel: buckets of flattened gradients, each reduced across the
process group as soon as its last gradient is ready, in bucket order (every rank starts the same
collectives in the same order, as MPI requires), by the default average or a communication hook.
With grads_as_views (gradient_as_bucket_view) .grad is a view into the bucket, so the reduced gradients
are not copied; with static_graph the parameters without a gradient are found in the first iteration only
and marked ready at the start of every later backward."""
from __future__ import annotations

import time

_FIRST_BUCKET_BYTES = 1024 * 1024


class _Bucket:
    __slots__ = ("index", "params", "indices", "offsets", "flat", "pending", "ready", "work")

    def __init__(self, index, params, indices, dtype) -> None:
        from ... import empty
        self.index, self.params, self.indices = index, params, indices
        self.offsets, n = [], 0
        for p in params:
            self.offsets.append(n)
            n += p.numel()
        self.flat = empty(n, dtype=dtype, device=params[0].device)  # the backend of the params' device
        self.pending = len(params)
        self.ready = [False] * len(params)
        self.work = None  # a Work (default reduction) or the Future a comm hook returned

    def view(self, slot: int):
        p = self.params[slot]
        return self.flat[self.offsets[slot]:self.offsets[slot] + p.numel()]


class Reducer:
    """Buckets params (of one dtype each, in reverse order, the first up to 1 MB, then bucket_bytes_cap) and
    reduces their gradients over process_group."""

    def __init__(self, params: list, bucket_bytes_cap: int, process_group, grads_as_views: bool = False,
                 static_graph: bool = False) -> None:
        self.params, self.group = params, process_group
        self.grads_as_views, self.static_graph = grads_as_views, static_graph
        self.static_unused = None    # static graph, after its first iteration: the parameters this rank never uses
        self.static_used = None      # ... and, per parameter, whether any rank uses it
        self.buckets, self.where = [], {}
        open_by_dtype = {}
        for i in reversed(range(len(params))):
            p = params[i]
            members, size = open_by_dtype.get(p.dtype, ([], 0))
            cap = min(_FIRST_BUCKET_BYTES, bucket_bytes_cap) if not self.buckets else bucket_bytes_cap
            members.append(i)
            size += p.numel() * p.element_size()
            if size >= cap:
                self._close(members, p.dtype)
                open_by_dtype.pop(p.dtype, None)
            else:
                open_by_dtype[p.dtype] = (members, size)
        for dtype, (members, _) in open_by_dtype.items():
            self._close(members, dtype)
        self.comm_hook = None        # (state, hook) from register_comm_hook
        self.next_bucket = 0         # buckets below it have started their reduction this iteration
        self.divisor_work = None     # Join: the all-reduce counting the ranks still training
        self.static_world_size = True
        self.last_wait_s = 0.0       # how long the end of the last backward waited for the reductions

    def _close(self, members, dtype) -> None:
        b = len(self.buckets)
        self.buckets.append(_Bucket(b, [self.params[i] for i in members], members, dtype))
        for slot, i in enumerate(members):
            self.where[i] = (b, slot)

    # ---- one iteration ----

    def mark_ready(self, index: int, grad) -> None:
        """Copies parameter index's gradient (plus what .grad holds) into its bucket; starts the reduction of
        every bucket, in order, whose gradients are all in."""
        from ... import no_grad
        b, slot = self.where[index]
        bucket = self.buckets[b]
        if bucket.ready[slot]:
            raise RuntimeError("Expected to mark a variable ready only once. This error is caused by one of the "
                               "following reasons: a parameter used in several reentrant backward passes, or "
                               "the same parameter marked ready twice in one iteration.")
        p, view = bucket.params[slot], bucket.view(slot)
        with no_grad():
            if p.grad is not None and _shares(p.grad, view):  # a bucket view accumulates in place
                view.add_(grad.reshape(-1))
            else:
                view.copy_((grad if p.grad is None else p.grad + grad).reshape(-1))
            if self.grads_as_views:  # autograd keeps this gradient apart instead of adding it into the bucket
                p.grad = None
        bucket.ready[slot] = True
        bucket.pending -= 1
        self._launch_ready()

    def _launch_ready(self) -> None:
        while self.next_bucket < len(self.buckets) and self.buckets[self.next_bucket].pending == 0:
            self._launch(self.buckets[self.next_bucket])
            self.next_bucket += 1

    def _launch(self, bucket: _Bucket) -> None:
        from ... import distributed as dist
        if self.comm_hook is not None:
            state, hook = self.comm_hook
            grad_bucket = dist.GradBucket(bucket.index, bucket.flat, bucket.params, bucket.offsets,
                                          bucket.index == len(self.buckets) - 1)
            fut = hook(state, grad_bucket)
            if not isinstance(fut, _future_type()):
                raise RuntimeError(f"Communication hook: the hook must return a torch.futures.Future "
                                   f"(nabla.futures.Future), got {type(fut).__name__}")
            bucket.work = fut
            return
        if not bucket.flat.is_floating_point():
            op = dist.ReduceOp.SUM
        elif self.divisor_work is not None and not self.static_world_size:
            bucket.flat.div_(self.divisor_work.result()[0].item())  # the ranks still training
            op = dist.ReduceOp.SUM
        else:
            op = dist.ReduceOp.AVG
        bucket.work = dist.all_reduce(bucket.flat, op=op, group=self.group, async_op=True)

    def prepare_backward(self) -> None:
        """At the first gradient of a backward: a static graph's unused parameters are ready at once."""
        for i in self.static_unused or ():
            b, s = self.where[i]
            self._fill_unused(self.buckets[b], s)
        self._launch_ready()

    def _fill_unused(self, bucket: _Bucket, s: int) -> None:
        """A parameter without a gradient this backward contributes its .grad (or zeros)."""
        from ... import no_grad
        p, view = bucket.params[s], bucket.view(s)
        with no_grad():
            if p.grad is None:
                view.zero_()
            elif not _shares(p.grad, view):
                view.copy_(p.grad.reshape(-1))
        bucket.ready[s] = True
        bucket.pending -= 1

    def finish(self, find_unused: bool, param_names) -> None:
        """At the end of backward: fills what unused parameters contribute, starts what is left, waits for
        every bucket and writes the reduced gradients to .grad."""
        from ... import distributed as dist, no_grad
        missing = [(b, s) for b, bucket in enumerate(self.buckets) for s, r in enumerate(bucket.ready) if not r]
        first_static = self.static_graph and self.static_unused is None
        find_unused = find_unused or first_static
        if missing and self.static_graph and not first_static:
            self.reset()
            raise RuntimeError("Your training graph has changed in this iteration, e.g., one parameter is used in "
                               "first iteration, but then got unused in the second iteration. this is not "
                               "compatible with static_graph set to True.")
        if missing and not find_unused:
            lost = [param_names.get(id(self.buckets[b].params[s]), "?") for b, s in missing]
            self.reset()
            raise RuntimeError(
                "Expected to have finished reduction in the prior iteration before starting a new one. This "
                "error indicates that your module has parameters that were not used in producing loss. You "
                "can enable unused parameter detection by passing the keyword argument "
                "`find_unused_parameters=True` to `torch.nn.parallel.DistributedDataParallel`. Parameters "
                f"which did not receive grad for rank {dist.get_rank(self.group)}: {', '.join(lost)}")
        used = self.local_used_map() if find_unused else None
        for b, s in missing:
            self._fill_unused(self.buckets[b], s)
        self._launch_ready()
        if used is not None:
            dist.all_reduce(used, op=dist.ReduceOp.MAX, group=self.group)
            used = used.tolist()
        if first_static:  # the search is not repeated: later backwards mark these ready at their start
            self.static_unused = [self.buckets[b].indices[s] for b, s in missing]
            self.static_used = used
        elif self.static_graph:
            used = self.static_used
        with no_grad():
            self.last_wait_s = 0.0
            for bucket in self.buckets:
                t0 = time.perf_counter()
                self._wait(bucket)
                self.last_wait_s += time.perf_counter() - t0
                for slot, (p, i) in enumerate(zip(bucket.params, bucket.indices)):
                    if used is not None and not used[i] and p.grad is None:
                        continue  # unused on every rank: its .grad stays None, as PyTorch's
                    view = bucket.view(slot).view(p.shape)
                    if self.grads_as_views:
                        if p.grad is None or not _shares(p.grad, view):
                            p.grad = view
                    elif p.grad is None:
                        p.grad = view.clone()
                    else:
                        p.grad.copy_(view)
        self.reset()

    def _wait(self, bucket: _Bucket) -> None:
        if isinstance(bucket.work, _future_type()):
            value = bucket.work.wait()
            out = value[0] if isinstance(value, (list, tuple)) else value
            if not hasattr(out, "numel") or out.numel() != bucket.flat.numel():
                raise RuntimeError(f"Communication hook: the future of bucket {bucket.index} must hold a tensor "
                                   f"of {bucket.flat.numel()} elements, got {out!r:.80}")
            if out is not bucket.flat:
                bucket.flat.copy_(out.reshape(-1))
        else:
            bucket.work.wait()

    def local_used_map(self):
        """1 for each parameter whose gradient this rank computed this iteration."""
        from ... import int32, zeros
        used = zeros(len(self.params), dtype=int32, device=self.params[0].device)
        for i in range(len(self.params)):
            b, s = self.where[i]
            if self.buckets[b].ready[s]:
                used[i] = 1
        return used

    def shadow(self, find_unused: bool) -> None:
        """On a joined rank: the collectives of one backward of the ranks still training, with zero gradients."""
        from ... import distributed as dist, int32, zeros
        for bucket in self.buckets:
            bucket.flat.zero_()
            self._launch(bucket)
        for bucket in self.buckets:
            self._wait(bucket)
        if find_unused:
            unused = zeros(len(self.params), dtype=int32, device=self.params[0].device)
            dist.all_reduce(unused, op=dist.ReduceOp.MAX, group=self.group)
        self.reset()

    def reset(self) -> None:
        for bucket in self.buckets:
            bucket.work = None
            bucket.pending = len(bucket.params)
            bucket.ready = [False] * len(bucket.params)
        self.next_bucket = 0
        self.divisor_work = None


def _shares(grad, view) -> bool:
    """True when grad is the bucket's view (the same memory)."""
    return grad.data_ptr() == view.data_ptr()


def _future_type():
    from ...futures import Future
    return Future
