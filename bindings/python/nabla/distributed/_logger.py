"""Logger: what DistributedDataParallel records about itself (torch.distributed.Logger), read back with
ddp._get_ddp_logging_data()."""
from __future__ import annotations


class Logger:
    """The logging data of one DDP instance: its construction arguments, buckets and runtime choices."""

    def __init__(self, reducer) -> None:
        self._reducer = reducer
        self._data = {"comm_hook": "", "join_uneven_inputs": False, "static_graph": False, "iteration": 0}

    def set_construction_data_and_log(self, module_name: str, device_ids, output_device, broadcast_buffers: bool,
                                      has_sync_bn: bool = False, static_graph: bool = False) -> None:
        from . import distributed_c10d as c10d
        r = self._reducer
        self._data.update(module_name=module_name, device_ids=list(device_ids or []), output_device=output_device,
                          broadcast_buffers=broadcast_buffers, has_sync_bn=has_sync_bn, static_graph=static_graph,
                          world_size=c10d.get_world_size(r.group), rank=c10d.get_rank(r.group),
                          backend_name=c10d.get_backend(r.group), num_parameter_tensors=len(r.params),
                          total_parameter_size_bytes=sum(p.numel() * p.element_size() for p in r.params),
                          dtypes=sorted({str(p.dtype).split(".")[-1] for p in r.params}),
                          gradient_as_bucket_view=r.grads_as_views)

    def set_runtime_stats_and_log(self) -> None:
        self._data["iteration"] += 1

    def set_error_and_log(self, error: str) -> None:
        self._data["error"] = error

    def _set_comm_hook_name(self, name: str) -> None:
        self._data["comm_hook"] = name

    def _set_static_graph(self) -> None:
        self._data["static_graph"] = True

    def _set_uneven_input_join(self) -> None:
        self._data["join_uneven_inputs"] = True

    def _get_ddp_logging_data(self) -> dict:
        buckets = self._reducer.buckets
        return {**self._data, "bucket_sizes": [b.flat.numel() * b.flat.element_size() for b in buckets],
                "num_buckets": len(buckets)}
