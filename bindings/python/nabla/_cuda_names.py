"""The names of torch.cuda that nabla.cuda takes from its subject modules, by module.

nabla.cuda lists them in its __all__ (so that `from nabla.cuda import *` has them) and looks each
up on first use: the subject modules import nabla.cuda, so it cannot import them itself."""

SUBJECT_NAMES: dict[str, tuple[str, ...]] = {
    "_cuda_graphs": (
        "CUDAGraph", "graph", "graph_pool_handle", "make_graphed_callables",
    ),
    "_cuda_info": (
        "get_arch_list", "get_gencode_flags", "is_tf32_supported", "can_device_access_peer", "cudart",
        "check_error", "CudaError", "cudaStatus", "DeferredCudaCallError", "current_blas_handle",
        "current_solver_handle", "get_stream_from_external", "set_sync_debug_mode", "get_sync_debug_mode",
        "is_current_stream_capturing", "DEVICE_REQUIREMENT", "GreenContext",
    ),
    "_cuda_memory": (
        "memory_stats_as_nested_dict", "reset_accumulated_memory_stats", "memory_cached",
        "max_memory_cached", "reset_max_memory_cached", "caching_allocator_alloc",
        "caching_allocator_delete", "caching_allocator_enable", "caching_allocator_disabled",
        "get_allocator_backend", "set_per_process_memory_fraction", "get_per_process_memory_fraction",
        "host_memory_stats", "host_memory_stats_as_nested_dict", "reset_accumulated_host_memory_stats",
        "reset_peak_host_memory_stats", "ipc_collect",
    ),
    "_cuda_nvml": (
        "device_memory_used", "memory_usage", "utilization", "temperature", "power_draw", "clock_rate",
        "list_gpu_processes",
    ),
}
