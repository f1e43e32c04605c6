"""DistributedDataParallel: data parallelism across processes over nabla.distributed.

As PyTorch's: parameters and buffers are broadcast from rank 0 at construction; gradients are gathered
into buckets (about bucket_cap_mb each, the first 1 MB, in reverse parameter order, which is roughly the
order backward produces them), and each bucket's all-reduce (average, or a registered communication hook)
starts asynchronously from the parameters' gradient hooks as soon as its gradients are ready, so
communication overlaps the rest of backward (nabla's progress thread moves it along); the end of backward
waits for them and writes the averaged gradients to .grad. join() lets ranks run different numbers of
iterations (nabla.distributed.algorithms.Join). gradient_as_bucket_view=True leaves .grad as views into the
buckets (no copy after the all-reduce); static_graph=True looks for unused parameters in the first
iteration only.
"""
from __future__ import annotations

import contextlib
import inspect

from ...distributed.algorithms.join import Join, Joinable, JoinHook
from ..modules.module import Module
from ._reducer import Reducer

_NOT_INIT = ("Default process group has not been initialized, please make sure to call init_process_group "
             "(nabla.distributed.init_process_group) before creating DistributedDataParallel.")


class DistributedDataParallel(Module, Joinable):
    """DistributedDataParallel(module, device_ids=None, ..., bucket_cap_mb=25, find_unused_parameters=False):
    each process holds a replica; backward averages the gradients across the process group."""

    def __init__(self, module: Module, device_ids=None, output_device=None, dim: int = 0,
                 broadcast_buffers: bool = True, process_group=None, bucket_cap_mb=None,
                 find_unused_parameters: bool = False, check_reduction: bool = False,
                 gradient_as_bucket_view: bool = False, static_graph: bool = False, **kwargs) -> None:
        super().__init__()
        Joinable.__init__(self)
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
        self._sync_module_states(0)
        object.__setattr__(self, "reducer", Reducer(self._params, self.bucket_bytes_cap, self.process_group,
                                                    gradient_as_bucket_view, static_graph))
        object.__setattr__(self, "logger", dist.Logger(self.reducer))
        self.logger.set_construction_data_and_log(type(module).__name__, device_ids, output_device,
                                                  broadcast_buffers, False, static_graph)
        self._hooks = [p.register_hook(self._make_hook(i)) for i, p in enumerate(self._params)]
        self._in_backward = False
        self._pending = []  # Join: all-reduces of the forward pass nobody waits on, kept until backward ends

    @property
    def _buckets(self):
        return self.reducer.buckets

    # ---- construction and model sync ----

    def _sync_module_states(self, src_group_rank: int, buffers_only: bool = False) -> None:
        from ... import distributed as dist, no_grad
        tensors = list(self.module.buffers()) if buffers_only else \
            list(self.module.parameters()) + list(self.module.buffers())
        src = dist.get_global_rank(self.process_group, src_group_rank)
        with no_grad():
            for t in tensors:
                dist.broadcast(t.data, src=src, group=self.process_group)

    def _find_common_rank(self, candidate: bool) -> int:
        """The highest group rank among those that pass candidate=True (the authoritative copy under Join)."""
        from ... import distributed as dist, tensor
        rank = tensor([dist.get_rank(self.process_group) if candidate else -1], device=self.join_device)
        dist.all_reduce(rank, op=dist.ReduceOp.MAX, group=self.process_group)
        if rank.item() == -1:
            raise ValueError("BUG! Expected rank_cond to be true for at least one process.")
        return int(rank.item())

    def _sync_buffers(self, joined: bool = False) -> None:
        if not (self.broadcast_buffers and self.require_forward_param_sync and any(True for _ in self.module.buffers())):
            return
        src = self._find_common_rank(not joined) if self._join_config.enable else 0
        self._sync_module_states(src, buffers_only=True)

    # ---- backward ----

    def _make_hook(self, index: int):
        def hook(grad):
            if self.require_backward_grad_sync:
                self._enter_backward()
                try:
                    self.reducer.mark_ready(index, grad)
                except BaseException:  # backward fails and drops its callbacks: start the next one clean
                    self.reducer.reset()
                    self._in_backward = False
                    raise
            return None
        return hook

    def _enter_backward(self) -> None:
        """The first hook of a backward pass queues the wait for the buckets at its end."""
        if not self._in_backward:
            from ...autograd._callbacks import queue_callback
            self._in_backward = True
            queue_callback(self._finish_backward)
            self.reducer.prepare_backward()

    def _finish_backward(self) -> None:
        self._in_backward = False
        try:
            names = {id(p): n for n, p in self.module.named_parameters()}
            self.reducer.finish(self.find_unused_parameters, names)
            self.logger.set_runtime_stats_and_log()
        finally:  # a failed hook or wait leaves the next iteration a clean start
            self.reducer.reset()
            self._drain_pending()

    def _drain_pending(self) -> None:
        pending, self._pending = self._pending, []
        for work in pending:
            work.wait()

    # ---- communication hooks ----

    def register_comm_hook(self, state, hook) -> None:
        """Reduces each bucket with hook(state, bucket: GradBucket) -> Future of the reduced bucket instead of the
        default average (nabla.distributed.algorithms.ddp_comm_hooks has torch's default hooks)."""
        from ... import distributed as dist
        from ...futures import Future
        if not callable(hook):
            raise TypeError("Communication hook must be callable.")
        sig = inspect.signature(hook)
        params = list(sig.parameters.values())
        if len(params) >= 2 and not _annotated_as(params[1].annotation, dist.GradBucket):
            raise ValueError("Communication hook: bucket annotation should be dist.GradBucket.")
        if not _annotated_as(sig.return_annotation, Future):
            raise ValueError("Communication hook: return annotation should be torch.futures.Future[torch.Tensor].")
        if self.reducer.comm_hook is not None:
            raise RuntimeError("register_comm_hook or register_builtin_comm_hook can only be called once.")
        self.reducer.comm_hook = (state, hook)
        self.logger._set_comm_hook_name(getattr(hook, "__qualname__", repr(hook)))

    def register_builtin_comm_hook(self, comm_hook_type) -> None:
        """BuiltinCommHookType.ALLREDUCE or FP16_COMPRESS, on the DDP's process group."""
        from ...distributed import BuiltinCommHookType
        from ...distributed.algorithms.ddp_comm_hooks import default_hooks
        hooks = {BuiltinCommHookType.ALLREDUCE: default_hooks.allreduce_hook,
                 BuiltinCommHookType.FP16_COMPRESS: default_hooks.fp16_compress_hook}
        if comm_hook_type not in hooks:
            raise ValueError(f"Unknown built-in DDP comm hook type {comm_hook_type!r}")
        self.register_comm_hook(self.process_group, hooks[comm_hook_type])

    # ---- forward and the rest of PyTorch's surface ----

    def forward(self, *inputs, **kwargs):
        from ... import distributed as dist, is_grad_enabled, ones, zeros
        self._drain_pending()  # an iteration without backward (evaluation) leaves them here
        work = Join.notify_join_context(self)
        if work is not None:
            self.reducer.divisor_work = work
            self._pending.append(work)
        self._sync_buffers()
        if self._join_config.enable:  # tells the joined ranks whether this backward reduces gradients
            sync = self.require_backward_grad_sync and is_grad_enabled()
            flag = ones(1, device=self.join_device) if sync else zeros(1, device=self.join_device)
            self._pending.append(dist.all_reduce(flag, group=self.process_group, async_op=True))
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

    def join(self, divide_by_initial_world_size: bool = True, enable: bool = True,
             throw_on_early_termination: bool = False) -> Join:
        """A context manager for uneven inputs: a rank that runs out of batches shadows the others' all-reduces
        with zero gradients until all have finished; gradients are divided by the initial world size
        (divide_by_initial_world_size=True, the default) or by the number of ranks still training."""
        self.logger._set_uneven_input_join()
        return Join([self], enable, throw_on_early_termination,
                    divide_by_initial_world_size=divide_by_initial_world_size)

    def join_hook(self, **kwargs) -> JoinHook:
        return _DDPJoinHook(self, kwargs.get("divide_by_initial_world_size", True))

    @property
    def join_device(self):
        """The parameters' device: the join collectives run on the group's backend for it."""
        from ... import device
        params = self.reducer.params
        return params[0].device if params else device("cpu")

    @property
    def join_process_group(self):
        return self.process_group

    def _get_ddp_logging_data(self) -> dict:
        return self.logger._get_ddp_logging_data()


def _annotated_as(annotation, cls) -> bool:
    """True for no annotation, cls, cls[...] or their spelling as a string (postponed annotations)."""
    if annotation is inspect.Parameter.empty:
        return True
    if isinstance(annotation, str):
        return annotation.split("[")[0].split(".")[-1] == cls.__name__
    return annotation is cls or getattr(annotation, "__origin__", None) is cls


class _DDPJoinHook(JoinHook):
    """What a joined rank does for DDP: each iteration the others still run, the collectives of their forward
    (buffer broadcast, whether to sync) and backward (zeros for every bucket); at the end every rank takes the
    model of the highest rank among the last to join."""

    def __init__(self, ddp: DistributedDataParallel, divide_by_initial_world_size: bool) -> None:
        self.ddp = ddp
        ddp.reducer.static_world_size = divide_by_initial_world_size

    def main_hook(self) -> None:
        from ... import distributed as dist, zeros
        ddp = self.ddp
        ddp._drain_pending()
        ddp._sync_buffers(joined=True)
        flag = zeros(1, device=ddp.join_device)
        dist.all_reduce(flag, group=ddp.process_group)
        if flag.item() != 0:  # some rank still training reduces gradients in this backward
            ddp.reducer.shadow(ddp.find_unused_parameters)

    def post_hook(self, is_last_joiner: bool) -> None:
        ddp = self.ddp
        ddp.reducer.static_world_size = True
        ddp._sync_module_states(ddp._find_common_rank(is_last_joiner))
