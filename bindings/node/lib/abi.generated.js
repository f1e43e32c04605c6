// abi.generated.js: the nabla C ABI for koffi. GENERATED from abi/nabla.json by
// abi/gen.py (abi/gen_node.py); do not edit. `python abi/gen.py write` refreshes it.
'use strict';

const VERSION = Object.freeze([0, 1, 0]);
const MAX_DIMS = 16;

// Constants by group ({status: {NB_OK: 0, ...}, dtype: {...}, ...}).
const CONSTANTS = Object.freeze({
  "status": Object.freeze({NB_OK: 0, NB_ERR_INVALID_ARGUMENT: 1, NB_ERR_SHAPE: 2, NB_ERR_DTYPE: 3, NB_ERR_DEVICE: 4, NB_ERR_INDEX: 5, NB_ERR_OUT_OF_MEMORY: 6, NB_ERR_NOT_IMPLEMENTED: 7, NB_ERR_AUTOGRAD: 8, NB_ERR_BACKEND: 9, NB_ERR_ABI_VERSION: 10, NB_ERR_INTERNAL: 11, NB_ERR_LINALG: 12}),
  "dtype": Object.freeze({NB_F32: 0, NB_F64: 1, NB_F16: 2, NB_BF16: 3, NB_I8: 4, NB_I16: 5, NB_I32: 6, NB_I64: 7, NB_U8: 8, NB_BOOL: 9}),
  "device": Object.freeze({NB_CPU: 1, NB_CUDA: 2, NB_CUDA_HOST: 3}),
  "rounding": Object.freeze({NB_ROUND_NONE: 0, NB_ROUND_TRUNC: 1, NB_ROUND_FLOOR: 2}),
  "reduction": Object.freeze({NB_REDUCTION_NONE: 0, NB_REDUCTION_MEAN: 1, NB_REDUCTION_SUM: 2}),
  "pad_mode": Object.freeze({NB_PAD_CONSTANT: 0, NB_PAD_REFLECT: 1, NB_PAD_REPLICATE: 2, NB_PAD_CIRCULAR: 3}),
  "scatter_reduce": Object.freeze({NB_SCATTER_SUM: 0, NB_SCATTER_PROD: 1, NB_SCATTER_MEAN: 2, NB_SCATTER_AMAX: 3, NB_SCATTER_AMIN: 4}),
  "qr_mode": Object.freeze({NB_QR_REDUCED: 0, NB_QR_COMPLETE: 1, NB_QR_R: 2}),
  "defaults": Object.freeze({NB_DTYPE_DEFAULT: -1, NB_DEVICE_CURRENT: -1, NB_IGNORE_INDEX: -100}),
  "event": Object.freeze({NB_EVENT_DEFAULT: 0, NB_EVENT_TIMING: 1, NB_EVENT_BLOCKING: 2}),
  "profiler": Object.freeze({NB_PROFILE_SHAPES: 1, NB_PROFILE_MEMORY: 2, NB_PROFILE_CUDA: 4, NB_PROFILE_STACK: 8}),
  "reduce_op": Object.freeze({NB_REDUCE_OP_SUM: 0, NB_REDUCE_OP_AVG: 1, NB_REDUCE_OP_PRODUCT: 2, NB_REDUCE_OP_MIN: 3, NB_REDUCE_OP_MAX: 4, NB_REDUCE_OP_BAND: 5, NB_REDUCE_OP_BOR: 6, NB_REDUCE_OP_BXOR: 7}),
  "p2p": Object.freeze({NB_P2P_SEND: 0, NB_P2P_RECV: 1}),
});

// Every function: [returns, [[C type, name], ...], group, differentiable,
// {pointer parameter: [direction, length]}] (see docs/bindings.md).
const FUNCTIONS = Object.freeze({
  nb_version: ["uint32_t", [], "version", false, {}],
  nb_version_string: ["const char*", [], "version", false, {}],
  nb_blas_info: ["const char*", [], "version", false, {}],
  nb_last_error_message: ["const char*", [], "errors", false, {}],
  nb_last_error_status: ["nb_status", [], "errors", false, {}],
  nb_clear_error: ["void", [], "errors", false, {}],
  nb_set_blocking_hooks: ["void", [["nb_blocking_begin_fn", "begin"], ["nb_blocking_end_fn", "end"]], "threads", false, {}],
  nb_set_num_threads: ["nb_status", [["int32_t", "n"]], "threads", false, {}],
  nb_get_num_threads: ["int32_t", [], "threads", false, {}],
  nb_status_name: ["const char*", [["nb_status", "status"]], "errors", false, {}],
  nb_dtype_size: ["int64_t", [["int32_t", "dtype"]], "dtype", false, {}],
  nb_dtype_name: ["const char*", [["int32_t", "dtype"]], "dtype", false, {}],
  nb_dtype_is_floating: ["int32_t", [["int32_t", "dtype"]], "dtype", false, {}],
  nb_promote_dtypes: ["int32_t", [["int32_t", "a"], ["int32_t", "b"]], "dtype", false, {}],
  nb_result_dtype: ["int32_t", [["const nb_tensor*", "a"], ["const nb_tensor*", "b"]], "dtype", false, {}],
  nb_set_default_dtype: ["nb_status", [["int32_t", "dtype"]], "dtype", false, {}],
  nb_get_default_dtype: ["int32_t", [], "dtype", false, {}],
  nb_device_type_name: ["const char*", [["int32_t", "device_type"]], "device", false, {}],
  nb_device_count: ["nb_status", [["int32_t", "device_type"], ["int32_t*", "out"]], "device", false, {"out": ["out", 1]}],
  nb_device_unavailable_reason: ["const char*", [["int32_t", "device_type"]], "device", false, {}],
  nb_tensor_retain: ["void", [["nb_tensor*", "t"]], "lifetime", false, {}],
  nb_tensor_release: ["void", [["nb_tensor*", "t"]], "lifetime", false, {}],
  nb_tensor_refcount: ["int64_t", [["const nb_tensor*", "t"]], "lifetime", false, {}],
  nb_tensor_ndim: ["int32_t", [["const nb_tensor*", "t"]], "metadata", false, {}],
  nb_tensor_shape: ["const int64_t*", [["const nb_tensor*", "t"]], "metadata", false, {}],
  nb_tensor_strides: ["const int64_t*", [["const nb_tensor*", "t"]], "metadata", false, {}],
  nb_tensor_dtype: ["int32_t", [["const nb_tensor*", "t"]], "metadata", false, {}],
  nb_tensor_device_type: ["int32_t", [["const nb_tensor*", "t"]], "metadata", false, {}],
  nb_tensor_device_index: ["int32_t", [["const nb_tensor*", "t"]], "metadata", false, {}],
  nb_tensor_numel: ["int64_t", [["const nb_tensor*", "t"]], "metadata", false, {}],
  nb_tensor_is_contiguous: ["int32_t", [["const nb_tensor*", "t"]], "metadata", false, {}],
  nb_tensor_data_ptr: ["void*", [["const nb_tensor*", "t"]], "metadata", false, {}],
  nb_tensor_storage_offset: ["int64_t", [["const nb_tensor*", "t"]], "metadata", false, {}],
  nb_tensor_storage_nbytes: ["int64_t", [["const nb_tensor*", "t"]], "metadata", false, {}],
  nb_tensor_storage_data_ptr: ["void*", [["const nb_tensor*", "t"]], "metadata", false, {}],
  nb_tensor_version: ["int64_t", [["const nb_tensor*", "t"]], "metadata", false, {}],
  nb_empty: ["nb_status", [["const int64_t*", "shape"], ["int32_t", "ndim"], ["int32_t", "dtype"], ["int32_t", "device_type"], ["int32_t", "device_index"], ["nb_tensor**", "out"]], "creation", false, {"shape": ["in", "ndim"], "out": ["out", 1]}],
  nb_zeros: ["nb_status", [["const int64_t*", "shape"], ["int32_t", "ndim"], ["int32_t", "dtype"], ["int32_t", "device_type"], ["int32_t", "device_index"], ["nb_tensor**", "out"]], "creation", false, {"shape": ["in", "ndim"], "out": ["out", 1]}],
  nb_ones: ["nb_status", [["const int64_t*", "shape"], ["int32_t", "ndim"], ["int32_t", "dtype"], ["int32_t", "device_type"], ["int32_t", "device_index"], ["nb_tensor**", "out"]], "creation", false, {"shape": ["in", "ndim"], "out": ["out", 1]}],
  nb_full: ["nb_status", [["const int64_t*", "shape"], ["int32_t", "ndim"], ["double", "value"], ["int32_t", "dtype"], ["int32_t", "device_type"], ["int32_t", "device_index"], ["nb_tensor**", "out"]], "creation", false, {"shape": ["in", "ndim"], "out": ["out", 1]}],
  nb_full_int: ["nb_status", [["const int64_t*", "shape"], ["int32_t", "ndim"], ["int64_t", "value"], ["int32_t", "dtype"], ["int32_t", "device_type"], ["int32_t", "device_index"], ["nb_tensor**", "out"]], "creation", false, {"shape": ["in", "ndim"], "out": ["out", 1]}],
  nb_arange: ["nb_status", [["double", "start"], ["double", "end"], ["double", "step"], ["int32_t", "dtype"], ["int32_t", "device_type"], ["int32_t", "device_index"], ["nb_tensor**", "out"]], "creation", false, {"out": ["out", 1]}],
  nb_linspace: ["nb_status", [["double", "start"], ["double", "end"], ["int64_t", "steps"], ["int32_t", "dtype"], ["int32_t", "device_type"], ["int32_t", "device_index"], ["nb_tensor**", "out"]], "creation", false, {"out": ["out", 1]}],
  nb_eye: ["nb_status", [["int64_t", "n"], ["int64_t", "m"], ["int32_t", "dtype"], ["int32_t", "device_type"], ["int32_t", "device_index"], ["nb_tensor**", "out"]], "creation", false, {"out": ["out", 1]}],
  nb_tensor_from_host: ["nb_status", [["const void*", "data"], ["const int64_t*", "shape"], ["int32_t", "ndim"], ["int32_t", "dtype"], ["int32_t", "device_type"], ["int32_t", "device_index"], ["nb_tensor**", "out"]], "creation", false, {"data": ["in", "numel(shape, ndim) * itemsize(dtype)"], "shape": ["in", "ndim"], "out": ["out", 1]}],
  nb_tensor_from_external: ["nb_status", [["void*", "data"], ["const int64_t*", "shape"], ["const int64_t*", "strides"], ["int32_t", "ndim"], ["int32_t", "dtype"], ["int32_t", "device_type"], ["int32_t", "device_index"], ["nb_deleter_fn", "deleter"], ["void*", "payload"], ["nb_tensor**", "out"]], "creation", false, {"data": ["in", "opaque"], "shape": ["in", "ndim"], "strides": ["in", "ndim"], "payload": ["in", "opaque"], "out": ["out", 1]}],
  nb_scalar: ["nb_status", [["double", "fvalue"], ["int64_t", "ivalue"], ["int32_t", "dtype"], ["nb_tensor**", "out"]], "creation", false, {"out": ["out", 1]}],
  nb_tensor_view: ["nb_status", [["const nb_tensor*", "t"], ["const int64_t*", "shape"], ["int32_t", "ndim"], ["nb_tensor**", "out"]], "views", true, {"shape": ["in", "ndim"], "out": ["out", 1]}],
  nb_tensor_reshape: ["nb_status", [["const nb_tensor*", "t"], ["const int64_t*", "shape"], ["int32_t", "ndim"], ["nb_tensor**", "out"]], "views", true, {"shape": ["in", "ndim"], "out": ["out", 1]}],
  nb_tensor_permute: ["nb_status", [["const nb_tensor*", "t"], ["const int64_t*", "dims"], ["int32_t", "ndim"], ["nb_tensor**", "out"]], "views", true, {"dims": ["in", "ndim"], "out": ["out", 1]}],
  nb_tensor_transpose: ["nb_status", [["const nb_tensor*", "t"], ["int64_t", "dim0"], ["int64_t", "dim1"], ["nb_tensor**", "out"]], "views", true, {"out": ["out", 1]}],
  nb_tensor_narrow: ["nb_status", [["const nb_tensor*", "t"], ["int64_t", "dim"], ["int64_t", "start"], ["int64_t", "length"], ["nb_tensor**", "out"]], "views", true, {"out": ["out", 1]}],
  nb_tensor_slice: ["nb_status", [["const nb_tensor*", "t"], ["int64_t", "dim"], ["int64_t", "start"], ["int64_t", "end"], ["int64_t", "step"], ["nb_tensor**", "out"]], "views", true, {"out": ["out", 1]}],
  nb_tensor_select: ["nb_status", [["const nb_tensor*", "t"], ["int64_t", "dim"], ["int64_t", "index"], ["nb_tensor**", "out"]], "views", true, {"out": ["out", 1]}],
  nb_tensor_expand: ["nb_status", [["const nb_tensor*", "t"], ["const int64_t*", "shape"], ["int32_t", "ndim"], ["nb_tensor**", "out"]], "views", true, {"shape": ["in", "ndim"], "out": ["out", 1]}],
  nb_tensor_squeeze: ["nb_status", [["const nb_tensor*", "t"], ["const int64_t*", "dims"], ["int32_t", "ndims"], ["nb_tensor**", "out"]], "views", true, {"dims": ["in", "ndims"], "out": ["out", 1]}],
  nb_tensor_unsqueeze: ["nb_status", [["const nb_tensor*", "t"], ["int64_t", "dim"], ["nb_tensor**", "out"]], "views", true, {"out": ["out", 1]}],
  nb_tensor_flatten: ["nb_status", [["const nb_tensor*", "t"], ["int64_t", "start_dim"], ["int64_t", "end_dim"], ["nb_tensor**", "out"]], "views", true, {"out": ["out", 1]}],
  nb_tensor_as_strided: ["nb_status", [["const nb_tensor*", "t"], ["const int64_t*", "shape"], ["const int64_t*", "strides"], ["int32_t", "ndim"], ["int64_t", "storage_offset"], ["nb_tensor**", "out"]], "views", true, {"shape": ["in", "ndim"], "strides": ["in", "ndim"], "out": ["out", 1]}],
  nb_tensor_contiguous: ["nb_status", [["const nb_tensor*", "t"], ["nb_tensor**", "out"]], "views", true, {"out": ["out", 1]}],
  nb_tensor_clone: ["nb_status", [["const nb_tensor*", "t"], ["nb_tensor**", "out"]], "views", true, {"out": ["out", 1]}],
  nb_tensor_to: ["nb_status", [["const nb_tensor*", "t"], ["int32_t", "dtype"], ["int32_t", "device_type"], ["int32_t", "device_index"], ["int32_t", "copy"], ["nb_tensor**", "out"]], "copy", true, {"out": ["out", 1]}],
  nb_tensor_copy_: ["nb_status", [["nb_tensor*", "dst"], ["const nb_tensor*", "src"]], "copy", true, {}],
  nb_tensor_copy_to_host: ["nb_status", [["const nb_tensor*", "t"], ["void*", "dst"], ["int64_t", "nbytes"]], "copy", false, {"dst": ["out", "nbytes"]}],
  nb_tensor_item_double: ["nb_status", [["const nb_tensor*", "t"], ["double*", "out"]], "copy", false, {"out": ["out", 1]}],
  nb_tensor_item_int: ["nb_status", [["const nb_tensor*", "t"], ["int64_t*", "out"]], "copy", false, {"out": ["out", 1]}],
  nb_tensor_resize_: ["nb_status", [["nb_tensor*", "t"], ["const int64_t*", "shape"], ["int32_t", "ndim"]], "copy", false, {"shape": ["in", "ndim"]}],
  nb_tensor_resize_output: ["nb_status", [["nb_tensor*", "t"], ["const int64_t*", "shape"], ["int32_t", "ndim"]], "copy", false, {"shape": ["in", "ndim"]}],
  nb_tensor_to_dlpack_versioned: ["nb_status", [["const nb_tensor*", "t"], ["int32_t", "device_type"], ["int32_t", "device_index"], ["int32_t", "copy"], ["void**", "out"]], "dlpack", false, {"out": ["out", 1]}],
  nb_tensor_to_dlpack: ["nb_status", [["const nb_tensor*", "t"], ["int32_t", "device_type"], ["int32_t", "device_index"], ["int32_t", "copy"], ["void**", "out"]], "dlpack", false, {"out": ["out", 1]}],
  nb_tensor_from_dlpack_versioned: ["nb_status", [["void*", "managed"], ["nb_tensor**", "out"]], "dlpack", false, {"managed": ["in", "opaque"], "out": ["out", 1]}],
  nb_tensor_from_dlpack: ["nb_status", [["void*", "managed"], ["nb_tensor**", "out"]], "dlpack", false, {"managed": ["in", "opaque"], "out": ["out", 1]}],
  nb_tensor_is_readonly: ["int32_t", [["const nb_tensor*", "t"]], "dlpack", false, {}],
  nb_tensor_share_memory_: ["nb_status", [["nb_tensor*", "t"]], "shared memory", false, {}],
  nb_tensor_is_shared: ["int32_t", [["const nb_tensor*", "t"]], "shared memory", false, {}],
  nb_tensor_shared_fd: ["nb_status", [["const nb_tensor*", "t"], ["int32_t*", "out"]], "shared memory", false, {"out": ["out", 1]}],
  nb_empty_shared: ["nb_status", [["const int64_t*", "shape"], ["int32_t", "ndim"], ["int32_t", "dtype"], ["nb_tensor**", "out"]], "shared memory", false, {"shape": ["in", "ndim"], "out": ["out", 1]}],
  nb_tensor_from_shared_fd: ["nb_status", [["int32_t", "fd"], ["int64_t", "nbytes"], ["const int64_t*", "shape"], ["const int64_t*", "strides"], ["int32_t", "ndim"], ["int64_t", "storage_offset"], ["int32_t", "dtype"], ["int32_t", "readonly"], ["nb_tensor**", "out"]], "shared memory", false, {"shape": ["in", "ndim"], "strides": ["in", "ndim"], "out": ["out", 1]}],
  nb_memory_stats_get: ["nb_status", [["int32_t", "device_type"], ["int32_t", "device_index"], ["nb_memory_stats*", "out"]], "memory", false, {"out": ["inout", 1]}],
  nb_memory_reset_peak: ["nb_status", [["int32_t", "device_type"], ["int32_t", "device_index"]], "memory", false, {}],
  nb_memory_empty_cache: ["nb_status", [["int32_t", "device_type"], ["int32_t", "device_index"]], "memory", false, {}],
  nb_memory_snapshot: ["nb_status", [["int32_t", "device_type"], ["int32_t", "device_index"], ["char*", "buf"], ["int64_t", "cap"], ["int64_t*", "needed"]], "memory", false, {"buf": ["out", "cap"], "needed": ["out", 1]}],
  nb_tensor_record_stream: ["nb_status", [["nb_tensor*", "t"], ["nb_stream*", "stream"]], "memory", false, {}],
  nb_tensor_pin_memory: ["nb_status", [["const nb_tensor*", "t"], ["nb_tensor**", "out"]], "memory", false, {"out": ["out", 1]}],
  nb_tensor_is_pinned: ["int32_t", [["const nb_tensor*", "t"]], "memory", false, {}],
  nb_tensor_to_v2: ["nb_status", [["const nb_tensor*", "t"], ["int32_t", "dtype"], ["int32_t", "device_type"], ["int32_t", "device_index"], ["int32_t", "copy"], ["int32_t", "non_blocking"], ["nb_tensor**", "out"]], "memory", true, {"out": ["out", 1]}],
  nb_tensor_copy_v2_: ["nb_status", [["nb_tensor*", "dst"], ["const nb_tensor*", "src"], ["int32_t", "non_blocking"]], "memory", true, {}],
  nb_stream_create: ["nb_status", [["int32_t", "device_type"], ["int32_t", "device_index"], ["int32_t", "priority"], ["nb_stream**", "out"]], "stream", false, {"out": ["out", 1]}],
  nb_stream_from_native: ["nb_status", [["int32_t", "device_type"], ["int32_t", "device_index"], ["void*", "native"], ["nb_stream**", "out"]], "stream", false, {"native": ["in", "opaque"], "out": ["out", 1]}],
  nb_stream_retain: ["void", [["nb_stream*", "s"]], "stream", false, {}],
  nb_stream_release: ["void", [["nb_stream*", "s"]], "stream", false, {}],
  nb_stream_default: ["nb_status", [["int32_t", "device_type"], ["int32_t", "device_index"], ["nb_stream**", "out"]], "stream", false, {"out": ["out", 1]}],
  nb_stream_current: ["nb_status", [["int32_t", "device_type"], ["int32_t", "device_index"], ["nb_stream**", "out"]], "stream", false, {"out": ["out", 1]}],
  nb_stream_set_current: ["nb_status", [["nb_stream*", "s"]], "stream", false, {}],
  nb_stream_synchronize: ["nb_status", [["nb_stream*", "s"]], "stream", false, {}],
  nb_stream_query: ["nb_status", [["nb_stream*", "s"], ["int32_t*", "done"]], "stream", false, {"done": ["out", 1]}],
  nb_stream_wait_event: ["nb_status", [["nb_stream*", "s"], ["nb_event*", "e"]], "stream", false, {}],
  nb_stream_wait_stream: ["nb_status", [["nb_stream*", "s"], ["nb_stream*", "other"]], "stream", false, {}],
  nb_stream_native_handle: ["void*", [["const nb_stream*", "s"]], "stream", false, {}],
  nb_stream_id: ["int64_t", [["const nb_stream*", "s"]], "stream", false, {}],
  nb_stream_device_type: ["int32_t", [["const nb_stream*", "s"]], "stream", false, {}],
  nb_stream_device_index: ["int32_t", [["const nb_stream*", "s"]], "stream", false, {}],
  nb_stream_priority: ["int32_t", [["const nb_stream*", "s"]], "stream", false, {}],
  nb_stream_priority_range: ["nb_status", [["int32_t", "device_type"], ["int32_t*", "least"], ["int32_t*", "greatest"]], "stream", false, {"least": ["out", 1], "greatest": ["out", 1]}],
  nb_event_create: ["nb_status", [["int32_t", "device_type"], ["int32_t", "device_index"], ["int32_t", "flags"], ["nb_event**", "out"]], "event", false, {"out": ["out", 1]}],
  nb_event_retain: ["void", [["nb_event*", "e"]], "event", false, {}],
  nb_event_release: ["void", [["nb_event*", "e"]], "event", false, {}],
  nb_event_record: ["nb_status", [["nb_event*", "e"], ["nb_stream*", "s"]], "event", false, {}],
  nb_event_query: ["nb_status", [["nb_event*", "e"], ["int32_t*", "done"]], "event", false, {"done": ["out", 1]}],
  nb_event_synchronize: ["nb_status", [["nb_event*", "e"]], "event", false, {}],
  nb_event_elapsed_time: ["nb_status", [["nb_event*", "start"], ["nb_event*", "end"], ["double*", "ms"]], "event", false, {"ms": ["out", 1]}],
  nb_event_native_handle: ["void*", [["const nb_event*", "e"]], "event", false, {}],
  nb_profiler_start: ["nb_status", [["int32_t", "flags"]], "profiler", false, {}],
  nb_profiler_stop: ["nb_status", [], "profiler", false, {}],
  nb_profiler_enabled: ["int32_t", [], "profiler", false, {}],
  nb_profiler_events: ["nb_status", [["char*", "buf"], ["int64_t", "cap"], ["int64_t*", "needed"]], "profiler", false, {"buf": ["out", "cap"], "needed": ["out", 1]}],
  nb_profiler_range_push: ["nb_status", [["const char*", "name"]], "profiler", false, {"name": ["in", "string"]}],
  nb_profiler_range_pop: ["nb_status", [], "profiler", false, {}],
  nb_profiler_set_stack_source: ["nb_status", [["nb_stack_source_fn", "fn"], ["void*", "payload"], ["nb_deleter_fn", "destroy"]], "profiler", false, {"payload": ["in", "opaque"]}],
  nb_autocast_set_enabled: ["nb_status", [["int32_t", "device_type"], ["int32_t", "enabled"]], "autocast", false, {}],
  nb_autocast_is_enabled: ["int32_t", [["int32_t", "device_type"]], "autocast", false, {}],
  nb_autocast_set_dtype: ["nb_status", [["int32_t", "device_type"], ["int32_t", "dtype"]], "autocast", false, {}],
  nb_autocast_get_dtype: ["int32_t", [["int32_t", "device_type"]], "autocast", false, {}],
  nb_autocast_set_cache_enabled: ["void", [["int32_t", "enabled"]], "autocast", false, {}],
  nb_autocast_is_cache_enabled: ["int32_t", [], "autocast", false, {}],
  nb_autocast_increment_nesting: ["int32_t", [], "autocast", false, {}],
  nb_autocast_decrement_nesting: ["int32_t", [], "autocast", false, {}],
  nb_autocast_clear_cache: ["void", [], "autocast", false, {}],
  nb_device_current: ["nb_status", [["int32_t", "device_type"], ["int32_t*", "out"]], "device runtime", false, {"out": ["out", 1]}],
  nb_device_set_current: ["nb_status", [["int32_t", "device_type"], ["int32_t", "device_index"]], "device runtime", false, {}],
  nb_device_synchronize: ["nb_status", [["int32_t", "device_type"], ["int32_t", "device_index"]], "device runtime", false, {}],
  nb_device_memory_info: ["nb_status", [["int32_t", "device_type"], ["int32_t", "device_index"], ["int64_t*", "free_bytes"], ["int64_t*", "total_bytes"]], "device runtime", false, {"free_bytes": ["out", 1], "total_bytes": ["out", 1]}],
  nb_device_properties: ["nb_status", [["int32_t", "device_type"], ["int32_t", "device_index"], ["char*", "buf"], ["int64_t", "cap"], ["int64_t*", "needed"]], "device runtime", false, {"buf": ["out", "cap"], "needed": ["out", 1]}],
  nb_set_error: ["nb_status", [["int32_t", "status"], ["const char*", "message"]], "errors", false, {"message": ["in", "string"]}],
  nb_set_warning_handler: ["void", [["nb_warning_fn", "fn"], ["void*", "payload"]], "errors", false, {"payload": ["in", "opaque"]}],
  nb_grad_enabled: ["int32_t", [], "autograd", false, {}],
  nb_set_grad_enabled: ["int32_t", [["int32_t", "enabled"]], "autograd", false, {}],
  nb_inference_mode_enabled: ["int32_t", [], "autograd", false, {}],
  nb_set_inference_mode: ["int32_t", [["int32_t", "enabled"]], "autograd", false, {}],
  nb_anomaly_mode_enabled: ["int32_t", [], "autograd", false, {}],
  nb_set_anomaly_mode: ["int32_t", [["int32_t", "enabled"]], "autograd", false, {}],
  nb_tensor_requires_grad: ["int32_t", [["const nb_tensor*", "t"]], "autograd", false, {}],
  nb_tensor_set_requires_grad: ["nb_status", [["nb_tensor*", "t"], ["int32_t", "requires_grad"]], "autograd", false, {}],
  nb_tensor_is_leaf: ["int32_t", [["const nb_tensor*", "t"]], "autograd", false, {}],
  nb_tensor_get_grad: ["nb_status", [["const nb_tensor*", "t"], ["nb_tensor**", "grad"]], "autograd", false, {"grad": ["out", 1]}],
  nb_tensor_set_grad: ["nb_status", [["nb_tensor*", "t"], ["const nb_tensor*", "grad"]], "autograd", false, {}],
  nb_tensor_retain_grad: ["nb_status", [["nb_tensor*", "t"]], "autograd", false, {}],
  nb_tensor_retains_grad: ["int32_t", [["const nb_tensor*", "t"]], "autograd", false, {}],
  nb_tensor_detach: ["nb_status", [["const nb_tensor*", "t"], ["nb_tensor**", "out"]], "autograd", false, {"out": ["out", 1]}],
  nb_tensor_detach_: ["nb_status", [["nb_tensor*", "t"]], "autograd", false, {}],
  nb_tensor_grad_fn: ["nb_status", [["const nb_tensor*", "t"], ["nb_node**", "out"]], "autograd", false, {"out": ["out", 1]}],
  nb_tensor_output_nr: ["int32_t", [["const nb_tensor*", "t"]], "autograd", false, {}],
  nb_node_retain: ["void", [["nb_node*", "node"]], "autograd", false, {}],
  nb_node_release: ["void", [["nb_node*", "node"]], "autograd", false, {}],
  nb_node_name: ["const char*", [["const nb_node*", "node"]], "autograd", false, {}],
  nb_node_num_next: ["int32_t", [["const nb_node*", "node"]], "autograd", false, {}],
  nb_node_next: ["nb_status", [["const nb_node*", "node"], ["int32_t", "i"], ["nb_node**", "next"], ["int32_t*", "input_nr"]], "autograd", false, {"next": ["out", 1], "input_nr": ["out", 1]}],
  nb_tensor_register_hook: ["nb_status", [["nb_tensor*", "t"], ["nb_grad_hook_fn", "fn"], ["void*", "payload"], ["nb_deleter_fn", "destroy"], ["int64_t*", "id"]], "autograd", false, {"payload": ["in", "opaque"], "id": ["out", 1]}],
  nb_tensor_remove_hook: ["nb_status", [["nb_tensor*", "t"], ["int64_t", "id"]], "autograd", false, {}],
  nb_tensor_register_post_accumulate_grad_hook: ["nb_status", [["nb_tensor*", "t"], ["nb_post_accumulate_hook_fn", "fn"], ["void*", "payload"], ["nb_deleter_fn", "destroy"], ["int64_t*", "id"]], "autograd", false, {"payload": ["in", "opaque"], "id": ["out", 1]}],
  nb_tensor_mark_inplace: ["nb_status", [["nb_tensor*", "t"], ["const char*", "op"]], "autograd", false, {"op": ["in", "string"]}],
  nb_saved_tensors_hooks_push: ["nb_status", [["nb_saved_pack_fn", "pack"], ["nb_saved_unpack_fn", "unpack"], ["nb_saved_free_fn", "free_packed"], ["void*", "payload"], ["nb_deleter_fn", "destroy"]], "autograd", false, {"payload": ["in", "opaque"]}],
  nb_saved_tensors_hooks_pop: ["nb_status", [], "autograd", false, {}],
  nb_saved_tensors_hooks_disable: ["nb_status", [["const char*", "message"]], "autograd", false, {"message": ["in", "string"]}],
  nb_saved_tensors_hooks_disabled_message: ["const char*", [], "autograd", false, {}],
  nb_backward: ["nb_status", [["nb_tensor* const*", "outputs"], ["nb_tensor* const*", "grad_outputs"], ["int32_t", "n"], ["int32_t", "retain_graph"], ["int32_t", "create_graph"]], "autograd", false, {"outputs": ["in", "n"], "grad_outputs": ["in", "n"]}],
  nb_tensor_backward: ["nb_status", [["nb_tensor*", "t"], ["nb_tensor*", "grad"], ["int32_t", "retain_graph"], ["int32_t", "create_graph"]], "autograd", false, {}],
  nb_autograd_grad: ["nb_status", [["nb_tensor* const*", "outputs"], ["nb_tensor* const*", "grad_outputs"], ["int32_t", "n"], ["nb_tensor* const*", "inputs"], ["int32_t", "n_inputs"], ["int32_t", "retain_graph"], ["int32_t", "create_graph"], ["int32_t", "allow_unused"], ["nb_tensor**", "grads"]], "autograd", false, {"outputs": ["in", "n"], "grad_outputs": ["in", "n"], "inputs": ["in", "n_inputs"], "grads": ["out", "n_inputs"]}],
  nb_autograd_function_record: ["nb_status", [["const char*", "name"], ["const nb_tensor* const*", "inputs"], ["int32_t", "n_inputs"], ["nb_tensor* const*", "outputs"], ["int32_t", "n_outputs"], ["const int32_t*", "non_differentiable"], ["nb_custom_backward_fn", "fn"], ["void*", "payload"], ["nb_deleter_fn", "destroy"]], "autograd", false, {"name": ["in", "string"], "inputs": ["in", "n_inputs"], "outputs": ["in", "n_outputs"], "non_differentiable": ["in", "n_outputs"], "payload": ["in", "opaque"]}],
  nb_save: ["nb_status", [["const char*", "path"], ["const char* const*", "names"], ["nb_tensor* const*", "tensors"], ["int64_t", "n"], ["const char* const*", "meta_keys"], ["const char* const*", "meta_values"], ["int64_t", "n_meta"]], "checkpoint", false, {"path": ["in", "string"], "names": ["in", "n"], "tensors": ["in", "n"], "meta_keys": ["in", "n_meta"], "meta_values": ["in", "n_meta"]}],
  nb_save_buffer: ["nb_status", [["const char* const*", "names"], ["nb_tensor* const*", "tensors"], ["int64_t", "n"], ["const char* const*", "meta_keys"], ["const char* const*", "meta_values"], ["int64_t", "n_meta"], ["void*", "buf"], ["int64_t", "cap"], ["int64_t*", "needed"]], "checkpoint", false, {"names": ["in", "n"], "tensors": ["in", "n"], "meta_keys": ["in", "n_meta"], "meta_values": ["in", "n_meta"], "buf": ["out", "cap"], "needed": ["out", 1]}],
  nb_load: ["nb_status", [["const char*", "path"], ["nb_checkpoint**", "out"]], "checkpoint", false, {"path": ["in", "string"], "out": ["out", 1]}],
  nb_load_buffer: ["nb_status", [["const void*", "data"], ["int64_t", "nbytes"], ["const char*", "name"], ["nb_checkpoint**", "out"]], "checkpoint", false, {"data": ["in", "nbytes"], "name": ["in", "string"], "out": ["out", 1]}],
  nb_checkpoint_count: ["int64_t", [["const nb_checkpoint*", "ck"]], "checkpoint", false, {}],
  nb_checkpoint_name: ["const char*", [["const nb_checkpoint*", "ck"], ["int64_t", "i"]], "checkpoint", false, {}],
  nb_checkpoint_tensor: ["nb_status", [["const nb_checkpoint*", "ck"], ["int64_t", "i"], ["nb_tensor**", "out"]], "checkpoint", false, {"out": ["out", 1]}],
  nb_checkpoint_get: ["nb_status", [["const nb_checkpoint*", "ck"], ["const char*", "name"], ["nb_tensor**", "out"]], "checkpoint", false, {"name": ["in", "string"], "out": ["out", 1]}],
  nb_checkpoint_metadata_count: ["int64_t", [["const nb_checkpoint*", "ck"]], "checkpoint", false, {}],
  nb_checkpoint_metadata: ["nb_status", [["const nb_checkpoint*", "ck"], ["int64_t", "i"], ["const char**", "key"], ["const char**", "value"]], "checkpoint", false, {"key": ["out", 1], "value": ["out", 1]}],
  nb_checkpoint_release: ["void", [["nb_checkpoint*", "ck"]], "checkpoint", false, {}],
  nb_comm_available: ["nb_status", [["const char*", "library"]], "distributed", false, {"library": ["in", "string"]}],
  nb_comm_init_mpi: ["nb_status", [["const char*", "library"], ["double", "timeout_s"], ["nb_comm**", "out"]], "distributed", false, {"library": ["in", "string"], "out": ["out", 1]}],
  nb_comm_split: ["nb_status", [["nb_comm*", "parent"], ["int32_t", "color"], ["int32_t", "key"], ["nb_comm**", "out"]], "distributed", false, {"out": ["out", 1]}],
  nb_comm_rank: ["int32_t", [["const nb_comm*", "c"]], "distributed", false, {}],
  nb_comm_size: ["int32_t", [["const nb_comm*", "c"]], "distributed", false, {}],
  nb_comm_set_timeout: ["nb_status", [["nb_comm*", "c"], ["double", "timeout_s"]], "distributed", false, {}],
  nb_comm_retain: ["void", [["nb_comm*", "c"]], "distributed", false, {}],
  nb_comm_release: ["void", [["nb_comm*", "c"]], "distributed", false, {}],
  nb_comm_finalize: ["nb_status", [], "distributed", false, {}],
  nb_comm_abort: ["nb_status", [["nb_comm*", "c"], ["int32_t", "code"]], "distributed", false, {}],
  nb_comm_all_reduce: ["nb_status", [["nb_comm*", "c"], ["nb_tensor*", "t"], ["int32_t", "op"], ["nb_work**", "work"]], "distributed", false, {"work": ["out", 1]}],
  nb_comm_broadcast: ["nb_status", [["nb_comm*", "c"], ["nb_tensor*", "t"], ["int32_t", "root"], ["nb_work**", "work"]], "distributed", false, {"work": ["out", 1]}],
  nb_comm_reduce: ["nb_status", [["nb_comm*", "c"], ["nb_tensor*", "t"], ["int32_t", "root"], ["int32_t", "op"], ["nb_work**", "work"]], "distributed", false, {"work": ["out", 1]}],
  nb_comm_all_gather: ["nb_status", [["nb_comm*", "c"], ["nb_tensor*", "output"], ["const nb_tensor*", "input"], ["nb_work**", "work"]], "distributed", false, {"work": ["out", 1]}],
  nb_comm_all_gather_list: ["nb_status", [["nb_comm*", "c"], ["nb_tensor* const*", "outputs"], ["int32_t", "n"], ["const nb_tensor*", "input"], ["nb_work**", "work"]], "distributed", false, {"outputs": ["in", "n"], "work": ["out", 1]}],
  nb_comm_reduce_scatter: ["nb_status", [["nb_comm*", "c"], ["nb_tensor*", "output"], ["const nb_tensor*", "input"], ["int32_t", "op"], ["nb_work**", "work"]], "distributed", false, {"work": ["out", 1]}],
  nb_comm_gather: ["nb_status", [["nb_comm*", "c"], ["nb_tensor*", "output"], ["const nb_tensor*", "input"], ["int32_t", "root"], ["nb_work**", "work"]], "distributed", false, {"work": ["out", 1]}],
  nb_comm_scatter: ["nb_status", [["nb_comm*", "c"], ["nb_tensor*", "output"], ["const nb_tensor*", "input"], ["int32_t", "root"], ["nb_work**", "work"]], "distributed", false, {"work": ["out", 1]}],
  nb_comm_all_to_all: ["nb_status", [["nb_comm*", "c"], ["nb_tensor*", "output"], ["const nb_tensor*", "input"], ["const int64_t*", "output_splits"], ["const int64_t*", "input_splits"], ["int32_t", "n_splits"], ["nb_work**", "work"]], "distributed", false, {"output_splits": ["in", "n_splits"], "input_splits": ["in", "n_splits"], "work": ["out", 1]}],
  nb_comm_send: ["nb_status", [["nb_comm*", "c"], ["const nb_tensor*", "t"], ["int32_t", "dst"], ["int32_t", "tag"], ["nb_work**", "work"]], "distributed", false, {"work": ["out", 1]}],
  nb_comm_recv: ["nb_status", [["nb_comm*", "c"], ["nb_tensor*", "t"], ["int32_t", "src"], ["int32_t", "tag"], ["nb_work**", "work"]], "distributed", false, {"work": ["out", 1]}],
  nb_comm_batch_isend_irecv: ["nb_status", [["nb_comm*", "c"], ["int32_t", "n"], ["const int32_t*", "kinds"], ["nb_tensor* const*", "tensors"], ["const int32_t*", "peers"], ["const int32_t*", "tags"], ["nb_work**", "work"]], "distributed", false, {"kinds": ["in", "n"], "tensors": ["in", "n"], "peers": ["in", "n"], "tags": ["in", "n"], "work": ["out", 1]}],
  nb_comm_barrier: ["nb_status", [["nb_comm*", "c"], ["nb_work**", "work"]], "distributed", false, {"work": ["out", 1]}],
  nb_work_wait: ["nb_status", [["nb_work*", "w"]], "distributed", false, {}],
  nb_work_test: ["nb_status", [["nb_work*", "w"], ["int32_t*", "done"]], "distributed", false, {"done": ["out", 1]}],
  nb_work_release: ["void", [["nb_work*", "w"]], "distributed", false, {}],
  nb_comm_nccl_available: ["nb_status", [["const char*", "library"], ["int32_t*", "version"]], "distributed", false, {"library": ["in", "string"], "version": ["out", "scalar-optional"]}],
  nb_comm_init_nccl: ["nb_status", [["nb_comm*", "bootstrap"], ["const char*", "library"], ["int32_t", "device_index"], ["nb_comm**", "out"]], "distributed", false, {"library": ["in", "string"], "out": ["out", 1]}],
  nb_amp_foreach_non_finite_check_and_unscale_: ["nb_status", [["nb_tensor* const*", "grads"], ["int32_t", "n"], ["nb_tensor*", "found_inf"], ["const nb_tensor*", "inv_scale"]], "ops: amp", false, {"grads": ["in", "n"]}],
  nb_amp_update_scale_: ["nb_status", [["nb_tensor*", "scale"], ["nb_tensor*", "growth_tracker"], ["const nb_tensor*", "found_inf"], ["double", "growth_factor"], ["double", "backoff_factor"], ["int64_t", "growth_interval"]], "ops: amp", false, {}],
  nb_scaled_dot_product_attention: ["nb_status", [["const nb_tensor*", "q"], ["const nb_tensor*", "k"], ["const nb_tensor*", "v"], ["const nb_tensor*", "attn_mask"], ["double", "dropout_p"], ["int32_t", "is_causal"], ["double", "scale"], ["nb_generator*", "gen"], ["nb_tensor**", "out"]], "ops: attention", true, {"out": ["out", 1]}],
  nb_add: ["nb_status", [["const nb_tensor*", "a"], ["const nb_tensor*", "b"], ["double", "alpha"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: binary", true, {"out": ["out", 1]}],
  nb_sub: ["nb_status", [["const nb_tensor*", "a"], ["const nb_tensor*", "b"], ["double", "alpha"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: binary", true, {"out": ["out", 1]}],
  nb_mul: ["nb_status", [["const nb_tensor*", "a"], ["const nb_tensor*", "b"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: binary", true, {"out": ["out", 1]}],
  nb_div: ["nb_status", [["const nb_tensor*", "a"], ["const nb_tensor*", "b"], ["int32_t", "rounding_mode"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: binary", true, {"out": ["out", 1]}],
  nb_floor_divide: ["nb_status", [["const nb_tensor*", "a"], ["const nb_tensor*", "b"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: binary", false, {"out": ["out", 1]}],
  nb_remainder: ["nb_status", [["const nb_tensor*", "a"], ["const nb_tensor*", "b"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: binary", true, {"out": ["out", 1]}],
  nb_fmod: ["nb_status", [["const nb_tensor*", "a"], ["const nb_tensor*", "b"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: binary", true, {"out": ["out", 1]}],
  nb_pow: ["nb_status", [["const nb_tensor*", "a"], ["const nb_tensor*", "b"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: binary", true, {"out": ["out", 1]}],
  nb_maximum: ["nb_status", [["const nb_tensor*", "a"], ["const nb_tensor*", "b"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: binary", true, {"out": ["out", 1]}],
  nb_minimum: ["nb_status", [["const nb_tensor*", "a"], ["const nb_tensor*", "b"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: binary", true, {"out": ["out", 1]}],
  nb_atan2: ["nb_status", [["const nb_tensor*", "a"], ["const nb_tensor*", "b"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: binary", true, {"out": ["out", 1]}],
  nb_igamma: ["nb_status", [["const nb_tensor*", "a"], ["const nb_tensor*", "b"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: binary", true, {"out": ["out", 1]}],
  nb_igammac: ["nb_status", [["const nb_tensor*", "a"], ["const nb_tensor*", "b"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: binary", true, {"out": ["out", 1]}],
  nb_nextafter: ["nb_status", [["const nb_tensor*", "a"], ["const nb_tensor*", "b"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: binary", false, {"out": ["out", 1]}],
  nb_eq: ["nb_status", [["const nb_tensor*", "a"], ["const nb_tensor*", "b"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: binary", false, {"out": ["out", 1]}],
  nb_ne: ["nb_status", [["const nb_tensor*", "a"], ["const nb_tensor*", "b"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: binary", false, {"out": ["out", 1]}],
  nb_lt: ["nb_status", [["const nb_tensor*", "a"], ["const nb_tensor*", "b"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: binary", false, {"out": ["out", 1]}],
  nb_le: ["nb_status", [["const nb_tensor*", "a"], ["const nb_tensor*", "b"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: binary", false, {"out": ["out", 1]}],
  nb_gt: ["nb_status", [["const nb_tensor*", "a"], ["const nb_tensor*", "b"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: binary", false, {"out": ["out", 1]}],
  nb_ge: ["nb_status", [["const nb_tensor*", "a"], ["const nb_tensor*", "b"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: binary", false, {"out": ["out", 1]}],
  nb_logical_and: ["nb_status", [["const nb_tensor*", "a"], ["const nb_tensor*", "b"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: binary", false, {"out": ["out", 1]}],
  nb_logical_or: ["nb_status", [["const nb_tensor*", "a"], ["const nb_tensor*", "b"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: binary", false, {"out": ["out", 1]}],
  nb_logical_xor: ["nb_status", [["const nb_tensor*", "a"], ["const nb_tensor*", "b"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: binary", false, {"out": ["out", 1]}],
  nb_bitwise_and: ["nb_status", [["const nb_tensor*", "a"], ["const nb_tensor*", "b"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: binary", false, {"out": ["out", 1]}],
  nb_bitwise_or: ["nb_status", [["const nb_tensor*", "a"], ["const nb_tensor*", "b"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: binary", false, {"out": ["out", 1]}],
  nb_bitwise_xor: ["nb_status", [["const nb_tensor*", "a"], ["const nb_tensor*", "b"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: binary", false, {"out": ["out", 1]}],
  nb_bitwise_left_shift: ["nb_status", [["const nb_tensor*", "a"], ["const nb_tensor*", "b"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: binary", false, {"out": ["out", 1]}],
  nb_bitwise_right_shift: ["nb_status", [["const nb_tensor*", "a"], ["const nb_tensor*", "b"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: binary", false, {"out": ["out", 1]}],
  nb_gather: ["nb_status", [["const nb_tensor*", "x"], ["int64_t", "dim"], ["const nb_tensor*", "index"], ["nb_tensor**", "out"]], "ops: index", true, {"out": ["out", 1]}],
  nb_scatter: ["nb_status", [["const nb_tensor*", "x"], ["int64_t", "dim"], ["const nb_tensor*", "index"], ["const nb_tensor*", "src"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: index", true, {"out": ["out", 1]}],
  nb_scatter_value: ["nb_status", [["const nb_tensor*", "x"], ["int64_t", "dim"], ["const nb_tensor*", "index"], ["const nb_tensor*", "value"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: index", true, {"out": ["out", 1]}],
  nb_scatter_add: ["nb_status", [["const nb_tensor*", "x"], ["int64_t", "dim"], ["const nb_tensor*", "index"], ["const nb_tensor*", "src"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: index", true, {"out": ["out", 1]}],
  nb_scatter_reduce: ["nb_status", [["const nb_tensor*", "x"], ["int64_t", "dim"], ["const nb_tensor*", "index"], ["const nb_tensor*", "src"], ["int32_t", "reduce"], ["int32_t", "include_self"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: index", true, {"out": ["out", 1]}],
  nb_index_select: ["nb_status", [["const nb_tensor*", "x"], ["int64_t", "dim"], ["const nb_tensor*", "index"], ["nb_tensor**", "out"]], "ops: index", true, {"out": ["out", 1]}],
  nb_index_add: ["nb_status", [["const nb_tensor*", "x"], ["int64_t", "dim"], ["const nb_tensor*", "index"], ["const nb_tensor*", "source"], ["double", "alpha"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: index", true, {"out": ["out", 1]}],
  nb_masked_fill: ["nb_status", [["const nb_tensor*", "x"], ["const nb_tensor*", "mask"], ["const nb_tensor*", "value"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: index", true, {"out": ["out", 1]}],
  nb_masked_select: ["nb_status", [["const nb_tensor*", "x"], ["const nb_tensor*", "mask"], ["nb_tensor**", "out"]], "ops: index", true, {"out": ["out", 1]}],
  nb_nonzero: ["nb_status", [["const nb_tensor*", "x"], ["nb_tensor**", "out"]], "ops: index", false, {"out": ["out", 1]}],
  nb_take_along_dim: ["nb_status", [["const nb_tensor*", "x"], ["const nb_tensor*", "indices"], ["int64_t", "dim"], ["int32_t", "has_dim"], ["nb_tensor**", "out"]], "ops: index", true, {"out": ["out", 1]}],
  nb_one_hot: ["nb_status", [["const nb_tensor*", "x"], ["int64_t", "num_classes"], ["nb_tensor**", "out"]], "ops: index", false, {"out": ["out", 1]}],
  nb_index: ["nb_status", [["const nb_tensor*", "x"], ["const nb_tensor* const*", "indices"], ["int32_t", "n"], ["nb_tensor**", "out"]], "ops: index", true, {"indices": ["in", "n"], "out": ["out", 1]}],
  nb_index_put: ["nb_status", [["const nb_tensor*", "x"], ["const nb_tensor* const*", "indices"], ["int32_t", "n"], ["const nb_tensor*", "values"], ["int32_t", "accumulate"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: index", true, {"indices": ["in", "n"], "out": ["out", 1]}],
  nb_matmul: ["nb_status", [["const nb_tensor*", "a"], ["const nb_tensor*", "b"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: linalg", true, {"out": ["out", 1]}],
  nb_mm: ["nb_status", [["const nb_tensor*", "a"], ["const nb_tensor*", "b"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: linalg", true, {"out": ["out", 1]}],
  nb_bmm: ["nb_status", [["const nb_tensor*", "a"], ["const nb_tensor*", "b"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: linalg", true, {"out": ["out", 1]}],
  nb_mv: ["nb_status", [["const nb_tensor*", "a"], ["const nb_tensor*", "v"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: linalg", true, {"out": ["out", 1]}],
  nb_dot: ["nb_status", [["const nb_tensor*", "a"], ["const nb_tensor*", "b"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: linalg", true, {"out": ["out", 1]}],
  nb_outer: ["nb_status", [["const nb_tensor*", "a"], ["const nb_tensor*", "b"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: linalg", true, {"out": ["out", 1]}],
  nb_addmm: ["nb_status", [["const nb_tensor*", "input"], ["const nb_tensor*", "mat1"], ["const nb_tensor*", "mat2"], ["double", "beta"], ["double", "alpha"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: linalg", true, {"out": ["out", 1]}],
  nb_baddbmm: ["nb_status", [["const nb_tensor*", "input"], ["const nb_tensor*", "batch1"], ["const nb_tensor*", "batch2"], ["double", "beta"], ["double", "alpha"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: linalg", true, {"out": ["out", 1]}],
  nb_linear: ["nb_status", [["const nb_tensor*", "input"], ["const nb_tensor*", "weight"], ["const nb_tensor*", "bias"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: linalg", true, {"out": ["out", 1]}],
  nb_linalg_inv: ["nb_status", [["const nb_tensor*", "A"], ["nb_tensor**", "out"]], "ops: linalg_decomp", true, {"out": ["out", 1]}],
  nb_linalg_solve: ["nb_status", [["const nb_tensor*", "A"], ["const nb_tensor*", "B"], ["int32_t", "left"], ["nb_tensor**", "out"]], "ops: linalg_decomp", true, {"out": ["out", 1]}],
  nb_linalg_det: ["nb_status", [["const nb_tensor*", "A"], ["nb_tensor**", "out"]], "ops: linalg_decomp", true, {"out": ["out", 1]}],
  nb_linalg_slogdet: ["nb_status", [["const nb_tensor*", "A"], ["nb_tensor**", "sign"], ["nb_tensor**", "logabsdet"]], "ops: linalg_decomp", true, {"sign": ["out", 1], "logabsdet": ["out", 1]}],
  nb_linalg_cholesky: ["nb_status", [["const nb_tensor*", "A"], ["int32_t", "upper"], ["nb_tensor**", "out"]], "ops: linalg_decomp", true, {"out": ["out", 1]}],
  nb_linalg_qr: ["nb_status", [["const nb_tensor*", "A"], ["int32_t", "mode"], ["nb_tensor**", "Q"], ["nb_tensor**", "R"]], "ops: linalg_decomp", true, {"Q": ["out", 1], "R": ["out", 1]}],
  nb_linalg_eigh: ["nb_status", [["const nb_tensor*", "A"], ["int32_t", "upper"], ["nb_tensor**", "eigenvalues"], ["nb_tensor**", "eigenvectors"]], "ops: linalg_decomp", true, {"eigenvalues": ["out", 1], "eigenvectors": ["out", 1]}],
  nb_linalg_svd: ["nb_status", [["const nb_tensor*", "A"], ["int32_t", "full_matrices"], ["nb_tensor**", "U"], ["nb_tensor**", "S"], ["nb_tensor**", "Vh"]], "ops: linalg_decomp", true, {"U": ["out", 1], "S": ["out", 1], "Vh": ["out", 1]}],
  nb_linalg_inv_ex: ["nb_status", [["const nb_tensor*", "A"], ["nb_tensor**", "inverse"], ["nb_tensor**", "info"]], "ops: linalg_decomp", true, {"inverse": ["out", 1], "info": ["out", 1]}],
  nb_linalg_solve_ex: ["nb_status", [["const nb_tensor*", "A"], ["const nb_tensor*", "B"], ["int32_t", "left"], ["nb_tensor**", "result"], ["nb_tensor**", "info"]], "ops: linalg_decomp", true, {"result": ["out", 1], "info": ["out", 1]}],
  nb_linalg_cholesky_ex: ["nb_status", [["const nb_tensor*", "A"], ["int32_t", "upper"], ["nb_tensor**", "L"], ["nb_tensor**", "info"]], "ops: linalg_decomp", true, {"L": ["out", 1], "info": ["out", 1]}],
  nb_linalg_solve_triangular: ["nb_status", [["const nb_tensor*", "A"], ["const nb_tensor*", "B"], ["int32_t", "upper"], ["int32_t", "left"], ["int32_t", "unitriangular"], ["nb_tensor**", "out"]], "ops: linalg_decomp", true, {"out": ["out", 1]}],
  nb_linalg_ldl_factor_ex: ["nb_status", [["const nb_tensor*", "A"], ["int32_t", "hermitian"], ["nb_tensor**", "LD"], ["nb_tensor**", "pivots"], ["nb_tensor**", "info"]], "ops: linalg_decomp", false, {"LD": ["out", 1], "pivots": ["out", 1], "info": ["out", 1]}],
  nb_linalg_ldl_solve: ["nb_status", [["const nb_tensor*", "LD"], ["const nb_tensor*", "pivots"], ["const nb_tensor*", "B"], ["int32_t", "hermitian"], ["nb_tensor**", "out"]], "ops: linalg_decomp", false, {"out": ["out", 1]}],
  nb_conv1d: ["nb_status", [["const nb_tensor*", "input"], ["const nb_tensor*", "weight"], ["const nb_tensor*", "bias"], ["int64_t", "stride"], ["int64_t", "padding_left"], ["int64_t", "padding_right"], ["int64_t", "dilation"], ["int64_t", "groups"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: nn", true, {"out": ["out", 1]}],
  nb_conv2d: ["nb_status", [["const nb_tensor*", "input"], ["const nb_tensor*", "weight"], ["const nb_tensor*", "bias"], ["const int64_t*", "stride"], ["const int64_t*", "padding"], ["const int64_t*", "dilation"], ["int64_t", "groups"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: nn", true, {"stride": ["in", 2], "padding": ["in", 4], "dilation": ["in", 2], "out": ["out", 1]}],
  nb_conv_transpose2d: ["nb_status", [["const nb_tensor*", "input"], ["const nb_tensor*", "weight"], ["const nb_tensor*", "bias"], ["const int64_t*", "stride"], ["const int64_t*", "padding"], ["const int64_t*", "output_padding"], ["const int64_t*", "dilation"], ["int64_t", "groups"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: nn", true, {"stride": ["in", 2], "padding": ["in", 2], "output_padding": ["in", 2], "dilation": ["in", 2], "out": ["out", 1]}],
  nb_max_pool2d: ["nb_status", [["const nb_tensor*", "input"], ["const int64_t*", "kernel_size"], ["const int64_t*", "stride"], ["const int64_t*", "padding"], ["const int64_t*", "dilation"], ["int32_t", "ceil_mode"], ["nb_tensor**", "indices"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: nn", true, {"kernel_size": ["in", 2], "stride": ["in", 2], "padding": ["in", 2], "dilation": ["in", 2], "indices": ["out", 1], "out": ["out", 1]}],
  nb_avg_pool2d: ["nb_status", [["const nb_tensor*", "input"], ["const int64_t*", "kernel_size"], ["const int64_t*", "stride"], ["const int64_t*", "padding"], ["int32_t", "ceil_mode"], ["int32_t", "count_include_pad"], ["int64_t", "divisor_override"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: nn", true, {"kernel_size": ["in", 2], "stride": ["in", 2], "padding": ["in", 2], "out": ["out", 1]}],
  nb_adaptive_avg_pool2d: ["nb_status", [["const nb_tensor*", "input"], ["const int64_t*", "output_size"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: nn", true, {"output_size": ["in", 2], "out": ["out", 1]}],
  nb_layer_norm: ["nb_status", [["const nb_tensor*", "input"], ["const int64_t*", "normalized_shape"], ["int32_t", "ndim"], ["const nb_tensor*", "weight"], ["const nb_tensor*", "bias"], ["double", "eps"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: nn", true, {"normalized_shape": ["in", "ndim"], "out": ["out", 1]}],
  nb_batch_norm: ["nb_status", [["const nb_tensor*", "input"], ["nb_tensor*", "running_mean"], ["nb_tensor*", "running_var"], ["const nb_tensor*", "weight"], ["const nb_tensor*", "bias"], ["int32_t", "training"], ["double", "momentum"], ["double", "eps"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: nn", true, {"out": ["out", 1]}],
  nb_group_norm: ["nb_status", [["const nb_tensor*", "input"], ["int64_t", "num_groups"], ["const nb_tensor*", "weight"], ["const nb_tensor*", "bias"], ["double", "eps"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: nn", true, {"out": ["out", 1]}],
  nb_nll_loss: ["nb_status", [["const nb_tensor*", "input"], ["const nb_tensor*", "target"], ["const nb_tensor*", "weight"], ["int64_t", "ignore_index"], ["int32_t", "reduction"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: nn", true, {"out": ["out", 1]}],
  nb_cross_entropy: ["nb_status", [["const nb_tensor*", "input"], ["const nb_tensor*", "target"], ["const nb_tensor*", "weight"], ["int64_t", "ignore_index"], ["int32_t", "reduction"], ["double", "label_smoothing"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: nn", true, {"out": ["out", 1]}],
  nb_mse_loss: ["nb_status", [["const nb_tensor*", "input"], ["const nb_tensor*", "target"], ["const nb_tensor*", "weight"], ["int32_t", "reduction"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: nn", true, {"out": ["out", 1]}],
  nb_l1_loss: ["nb_status", [["const nb_tensor*", "input"], ["const nb_tensor*", "target"], ["const nb_tensor*", "weight"], ["int32_t", "reduction"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: nn", true, {"out": ["out", 1]}],
  nb_smooth_l1_loss: ["nb_status", [["const nb_tensor*", "input"], ["const nb_tensor*", "target"], ["int32_t", "reduction"], ["double", "beta"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: nn", true, {"out": ["out", 1]}],
  nb_huber_loss: ["nb_status", [["const nb_tensor*", "input"], ["const nb_tensor*", "target"], ["const nb_tensor*", "weight"], ["int32_t", "reduction"], ["double", "delta"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: nn", true, {"out": ["out", 1]}],
  nb_binary_cross_entropy: ["nb_status", [["const nb_tensor*", "input"], ["const nb_tensor*", "target"], ["const nb_tensor*", "weight"], ["int32_t", "reduction"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: nn", true, {"out": ["out", 1]}],
  nb_binary_cross_entropy_with_logits: ["nb_status", [["const nb_tensor*", "input"], ["const nb_tensor*", "target"], ["const nb_tensor*", "weight"], ["const nb_tensor*", "pos_weight"], ["int32_t", "reduction"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: nn", true, {"out": ["out", 1]}],
  nb_kl_div: ["nb_status", [["const nb_tensor*", "input"], ["const nb_tensor*", "target"], ["int32_t", "reduction"], ["int32_t", "log_target"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: nn", true, {"out": ["out", 1]}],
  nb_embedding: ["nb_status", [["const nb_tensor*", "weight"], ["const nb_tensor*", "indices"], ["int64_t", "padding_idx"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: nn", true, {"out": ["out", 1]}],
  nb_pad: ["nb_status", [["const nb_tensor*", "input"], ["const int64_t*", "pad"], ["int32_t", "npad"], ["int32_t", "mode"], ["double", "value"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: nn", true, {"pad": ["in", "npad"], "out": ["out", 1]}],
  nb_conv2d_backward_input: ["nb_status", [["const nb_tensor*", "grad_output"], ["const nb_tensor*", "weight"], ["const int64_t*", "input_size"], ["const int64_t*", "stride"], ["const int64_t*", "padding"], ["const int64_t*", "dilation"], ["int64_t", "groups"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: nn_backward", false, {"input_size": ["in", 2], "stride": ["in", 2], "padding": ["in", 4], "dilation": ["in", 2], "out": ["out", 1]}],
  nb_conv2d_backward_weight: ["nb_status", [["const nb_tensor*", "grad_output"], ["const nb_tensor*", "input"], ["const int64_t*", "kernel_size"], ["const int64_t*", "stride"], ["const int64_t*", "padding"], ["const int64_t*", "dilation"], ["int64_t", "groups"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: nn_backward", false, {"kernel_size": ["in", 2], "stride": ["in", 2], "padding": ["in", 4], "dilation": ["in", 2], "out": ["out", 1]}],
  nb_max_pool2d_backward: ["nb_status", [["const nb_tensor*", "grad_output"], ["const nb_tensor*", "indices"], ["const int64_t*", "input_size"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: nn_backward", false, {"input_size": ["in", 2], "out": ["out", 1]}],
  nb_avg_pool2d_backward: ["nb_status", [["const nb_tensor*", "grad_output"], ["const int64_t*", "input_size"], ["const int64_t*", "kernel_size"], ["const int64_t*", "stride"], ["const int64_t*", "padding"], ["int32_t", "count_include_pad"], ["int64_t", "divisor_override"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: nn_backward", false, {"input_size": ["in", 2], "kernel_size": ["in", 2], "stride": ["in", 2], "padding": ["in", 2], "out": ["out", 1]}],
  nb_adaptive_avg_pool2d_backward: ["nb_status", [["const nb_tensor*", "grad_output"], ["const int64_t*", "input_size"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: nn_backward", false, {"input_size": ["in", 2], "out": ["out", 1]}],
  nb_layer_norm_backward: ["nb_status", [["const nb_tensor*", "grad_output"], ["const nb_tensor*", "input"], ["const int64_t*", "normalized_shape"], ["int32_t", "ndim"], ["const nb_tensor*", "weight"], ["double", "eps"], ["nb_tensor**", "grad_weight"], ["nb_tensor**", "grad_bias"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: nn_backward", false, {"normalized_shape": ["in", "ndim"], "grad_weight": ["out", 1], "grad_bias": ["out", 1], "out": ["out", 1]}],
  nb_batch_norm_backward: ["nb_status", [["const nb_tensor*", "grad_output"], ["const nb_tensor*", "input"], ["const nb_tensor*", "weight"], ["double", "eps"], ["nb_tensor**", "grad_weight"], ["nb_tensor**", "grad_bias"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: nn_backward", false, {"grad_weight": ["out", 1], "grad_bias": ["out", 1], "out": ["out", 1]}],
  nb_group_norm_backward: ["nb_status", [["const nb_tensor*", "grad_output"], ["const nb_tensor*", "input"], ["int64_t", "num_groups"], ["const nb_tensor*", "weight"], ["double", "eps"], ["nb_tensor**", "grad_weight"], ["nb_tensor**", "grad_bias"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: nn_backward", false, {"grad_weight": ["out", 1], "grad_bias": ["out", 1], "out": ["out", 1]}],
  nb_embedding_dense_backward: ["nb_status", [["const nb_tensor*", "grad_output"], ["const nb_tensor*", "indices"], ["int64_t", "num_weights"], ["int64_t", "padding_idx"], ["int32_t", "scale_grad_by_freq"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: nn_backward", true, {"out": ["out", 1]}],
  nb_gelu_backward: ["nb_status", [["const nb_tensor*", "grad_output"], ["const nb_tensor*", "input"], ["int32_t", "approximate_tanh"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: nn_backward", true, {"out": ["out", 1]}],
  nb_sgd_step: ["nb_status", [["nb_tensor*", "param"], ["const nb_tensor*", "grad"], ["nb_tensor*", "momentum_buffer"], ["double", "lr"], ["double", "momentum"], ["double", "dampening"], ["double", "weight_decay"], ["int32_t", "nesterov"], ["int32_t", "maximize"], ["int32_t", "init_buffer"]], "ops: optim", false, {}],
  nb_adam_step: ["nb_status", [["nb_tensor*", "param"], ["const nb_tensor*", "grad"], ["nb_tensor*", "exp_avg"], ["nb_tensor*", "exp_avg_sq"], ["nb_tensor*", "max_exp_avg_sq"], ["int64_t", "step"], ["double", "lr"], ["double", "beta1"], ["double", "beta2"], ["double", "eps"], ["double", "weight_decay"], ["int32_t", "decoupled_weight_decay"], ["int32_t", "amsgrad"], ["int32_t", "maximize"]], "ops: optim", false, {}],
  nb_rmsprop_step: ["nb_status", [["nb_tensor*", "param"], ["const nb_tensor*", "grad"], ["nb_tensor*", "square_avg"], ["nb_tensor*", "grad_avg"], ["nb_tensor*", "momentum_buffer"], ["double", "lr"], ["double", "alpha"], ["double", "eps"], ["double", "weight_decay"], ["double", "momentum"], ["int32_t", "centered"], ["int32_t", "maximize"]], "ops: optim", false, {}],
  nb_adagrad_step: ["nb_status", [["nb_tensor*", "param"], ["const nb_tensor*", "grad"], ["nb_tensor*", "state_sum"], ["int64_t", "step"], ["double", "lr"], ["double", "lr_decay"], ["double", "eps"], ["double", "weight_decay"], ["int32_t", "maximize"]], "ops: optim", false, {}],
  nb_sgd_step_list: ["nb_status", [["nb_tensor* const*", "params"], ["const nb_tensor* const*", "grads"], ["nb_tensor* const*", "momentum_buffers"], ["int64_t", "count"], ["double", "lr"], ["double", "momentum"], ["double", "dampening"], ["double", "weight_decay"], ["int32_t", "nesterov"], ["int32_t", "maximize"], ["int32_t", "init_buffer"]], "ops: optim", false, {"params": ["in", "count"], "grads": ["in", "count"], "momentum_buffers": ["in", "count"]}],
  nb_adam_step_list: ["nb_status", [["nb_tensor* const*", "params"], ["const nb_tensor* const*", "grads"], ["nb_tensor* const*", "exp_avgs"], ["nb_tensor* const*", "exp_avg_sqs"], ["nb_tensor* const*", "max_exp_avg_sqs"], ["const int64_t*", "steps"], ["int64_t", "count"], ["double", "lr"], ["double", "beta1"], ["double", "beta2"], ["double", "eps"], ["double", "weight_decay"], ["int32_t", "decoupled_weight_decay"], ["int32_t", "amsgrad"], ["int32_t", "maximize"]], "ops: optim", false, {"params": ["in", "count"], "grads": ["in", "count"], "exp_avgs": ["in", "count"], "exp_avg_sqs": ["in", "count"], "max_exp_avg_sqs": ["in", "count"], "steps": ["in", "count"]}],
  nb_rmsprop_step_list: ["nb_status", [["nb_tensor* const*", "params"], ["const nb_tensor* const*", "grads"], ["nb_tensor* const*", "square_avgs"], ["nb_tensor* const*", "grad_avgs"], ["nb_tensor* const*", "momentum_buffers"], ["int64_t", "count"], ["double", "lr"], ["double", "alpha"], ["double", "eps"], ["double", "weight_decay"], ["double", "momentum"], ["int32_t", "centered"], ["int32_t", "maximize"]], "ops: optim", false, {"params": ["in", "count"], "grads": ["in", "count"], "square_avgs": ["in", "count"], "grad_avgs": ["in", "count"], "momentum_buffers": ["in", "count"]}],
  nb_adagrad_step_list: ["nb_status", [["nb_tensor* const*", "params"], ["const nb_tensor* const*", "grads"], ["nb_tensor* const*", "state_sums"], ["const int64_t*", "steps"], ["int64_t", "count"], ["double", "lr"], ["double", "lr_decay"], ["double", "eps"], ["double", "weight_decay"], ["int32_t", "maximize"]], "ops: optim", false, {"params": ["in", "count"], "grads": ["in", "count"], "state_sums": ["in", "count"], "steps": ["in", "count"]}],
  nb_clip_grad_norm_: ["nb_status", [["nb_tensor* const*", "grads"], ["int32_t", "n"], ["double", "max_norm"], ["double", "norm_type"], ["int32_t", "error_if_nonfinite"], ["nb_tensor**", "out"]], "ops: optim", false, {"grads": ["in", "n"], "out": ["out", 1]}],
  nb_clip_grad_value_: ["nb_status", [["nb_tensor* const*", "grads"], ["int32_t", "n"], ["double", "clip_value"]], "ops: optim", false, {"grads": ["in", "n"]}],
  nb_generator_create: ["nb_status", [["uint64_t", "seed"], ["nb_generator**", "out"]], "ops: random", false, {"out": ["out", 1]}],
  nb_generator_release: ["void", [["nb_generator*", "gen"]], "ops: random", false, {}],
  nb_default_generator: ["nb_generator*", [], "ops: random", false, {}],
  nb_manual_seed: ["nb_status", [["uint64_t", "seed"]], "ops: random", false, {}],
  nb_generator_manual_seed: ["nb_status", [["nb_generator*", "gen"], ["uint64_t", "seed"]], "ops: random", false, {}],
  nb_generator_seed: ["nb_status", [["nb_generator*", "gen"], ["uint64_t*", "out"]], "ops: random", false, {"out": ["out", 1]}],
  nb_generator_get_state: ["nb_status", [["nb_generator*", "gen"], ["uint64_t*", "seed"], ["uint64_t*", "offset"]], "ops: random", false, {"seed": ["out", 1], "offset": ["out", 1]}],
  nb_generator_set_state: ["nb_status", [["nb_generator*", "gen"], ["uint64_t", "seed"], ["uint64_t", "offset"]], "ops: random", false, {}],
  nb_rand: ["nb_status", [["const int64_t*", "shape"], ["int32_t", "ndim"], ["int32_t", "dtype"], ["int32_t", "device_type"], ["int32_t", "device_index"], ["nb_generator*", "gen"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: random", false, {"shape": ["in", "ndim"], "out": ["out", 1]}],
  nb_randn: ["nb_status", [["const int64_t*", "shape"], ["int32_t", "ndim"], ["int32_t", "dtype"], ["int32_t", "device_type"], ["int32_t", "device_index"], ["nb_generator*", "gen"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: random", false, {"shape": ["in", "ndim"], "out": ["out", 1]}],
  nb_randint: ["nb_status", [["int64_t", "low"], ["int64_t", "high"], ["const int64_t*", "shape"], ["int32_t", "ndim"], ["int32_t", "dtype"], ["int32_t", "device_type"], ["int32_t", "device_index"], ["nb_generator*", "gen"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: random", false, {"shape": ["in", "ndim"], "out": ["out", 1]}],
  nb_randperm: ["nb_status", [["int64_t", "n"], ["int32_t", "dtype"], ["int32_t", "device_type"], ["int32_t", "device_index"], ["nb_generator*", "gen"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: random", false, {"out": ["out", 1]}],
  nb_uniform_: ["nb_status", [["nb_tensor*", "t"], ["double", "from"], ["double", "to"], ["nb_generator*", "gen"]], "ops: random", false, {}],
  nb_normal_: ["nb_status", [["nb_tensor*", "t"], ["double", "mean"], ["double", "std"], ["nb_generator*", "gen"]], "ops: random", false, {}],
  nb_random_: ["nb_status", [["nb_tensor*", "t"], ["int64_t", "low"], ["int64_t", "high_inclusive"], ["nb_generator*", "gen"]], "ops: random", false, {}],
  nb_bernoulli: ["nb_status", [["const nb_tensor*", "p"], ["nb_generator*", "gen"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: random", false, {"out": ["out", 1]}],
  nb_bernoulli_scalar: ["nb_status", [["double", "p"], ["const int64_t*", "shape"], ["int32_t", "ndim"], ["int32_t", "dtype"], ["int32_t", "device_type"], ["int32_t", "device_index"], ["nb_generator*", "gen"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: random", false, {"shape": ["in", "ndim"], "out": ["out", 1]}],
  nb_multinomial: ["nb_status", [["const nb_tensor*", "probs"], ["int64_t", "num_samples"], ["int32_t", "replacement"], ["nb_generator*", "gen"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: random", false, {"out": ["out", 1]}],
  nb_dropout: ["nb_status", [["const nb_tensor*", "x"], ["double", "p"], ["int32_t", "train"], ["nb_generator*", "gen"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: random", true, {"out": ["out", 1]}],
  nb_sum: ["nb_status", [["const nb_tensor*", "t"], ["const int64_t*", "dims"], ["int32_t", "ndims"], ["int32_t", "keepdim"], ["int32_t", "dtype"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: reduce", true, {"dims": ["in", "ndims"], "out": ["out", 1]}],
  nb_mean: ["nb_status", [["const nb_tensor*", "t"], ["const int64_t*", "dims"], ["int32_t", "ndims"], ["int32_t", "keepdim"], ["int32_t", "dtype"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: reduce", true, {"dims": ["in", "ndims"], "out": ["out", 1]}],
  nb_prod: ["nb_status", [["const nb_tensor*", "t"], ["const int64_t*", "dims"], ["int32_t", "ndims"], ["int32_t", "keepdim"], ["int32_t", "dtype"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: reduce", true, {"dims": ["in", "ndims"], "out": ["out", 1]}],
  nb_amax: ["nb_status", [["const nb_tensor*", "t"], ["const int64_t*", "dims"], ["int32_t", "ndims"], ["int32_t", "keepdim"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: reduce", true, {"dims": ["in", "ndims"], "out": ["out", 1]}],
  nb_amin: ["nb_status", [["const nb_tensor*", "t"], ["const int64_t*", "dims"], ["int32_t", "ndims"], ["int32_t", "keepdim"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: reduce", true, {"dims": ["in", "ndims"], "out": ["out", 1]}],
  nb_max_dim: ["nb_status", [["const nb_tensor*", "t"], ["int64_t", "dim"], ["int32_t", "keepdim"], ["nb_tensor*", "dst_values"], ["nb_tensor*", "dst_indices"], ["nb_tensor**", "values"], ["nb_tensor**", "indices"]], "ops: reduce", true, {"values": ["out", 1], "indices": ["out", 1]}],
  nb_min_dim: ["nb_status", [["const nb_tensor*", "t"], ["int64_t", "dim"], ["int32_t", "keepdim"], ["nb_tensor*", "dst_values"], ["nb_tensor*", "dst_indices"], ["nb_tensor**", "values"], ["nb_tensor**", "indices"]], "ops: reduce", true, {"values": ["out", 1], "indices": ["out", 1]}],
  nb_argmax: ["nb_status", [["const nb_tensor*", "t"], ["const int64_t*", "dim"], ["int32_t", "keepdim"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: reduce", false, {"dim": ["in", "scalar-optional"], "out": ["out", 1]}],
  nb_argmin: ["nb_status", [["const nb_tensor*", "t"], ["const int64_t*", "dim"], ["int32_t", "keepdim"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: reduce", false, {"dim": ["in", "scalar-optional"], "out": ["out", 1]}],
  nb_var: ["nb_status", [["const nb_tensor*", "t"], ["const int64_t*", "dims"], ["int32_t", "ndims"], ["double", "correction"], ["int32_t", "keepdim"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: reduce", true, {"dims": ["in", "ndims"], "out": ["out", 1]}],
  nb_std: ["nb_status", [["const nb_tensor*", "t"], ["const int64_t*", "dims"], ["int32_t", "ndims"], ["double", "correction"], ["int32_t", "keepdim"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: reduce", true, {"dims": ["in", "ndims"], "out": ["out", 1]}],
  nb_norm: ["nb_status", [["const nb_tensor*", "t"], ["double", "p"], ["const int64_t*", "dims"], ["int32_t", "ndims"], ["int32_t", "keepdim"], ["int32_t", "dtype"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: reduce", true, {"dims": ["in", "ndims"], "out": ["out", 1]}],
  nb_logsumexp: ["nb_status", [["const nb_tensor*", "t"], ["const int64_t*", "dims"], ["int32_t", "ndims"], ["int32_t", "keepdim"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: reduce", true, {"dims": ["in", "ndims"], "out": ["out", 1]}],
  nb_all: ["nb_status", [["const nb_tensor*", "t"], ["const int64_t*", "dims"], ["int32_t", "ndims"], ["int32_t", "keepdim"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: reduce", false, {"dims": ["in", "ndims"], "out": ["out", 1]}],
  nb_any: ["nb_status", [["const nb_tensor*", "t"], ["const int64_t*", "dims"], ["int32_t", "ndims"], ["int32_t", "keepdim"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: reduce", false, {"dims": ["in", "ndims"], "out": ["out", 1]}],
  nb_cumsum: ["nb_status", [["const nb_tensor*", "t"], ["int64_t", "dim"], ["int32_t", "dtype"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: reduce", true, {"out": ["out", 1]}],
  nb_cumprod: ["nb_status", [["const nb_tensor*", "t"], ["int64_t", "dim"], ["int32_t", "dtype"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: reduce", true, {"out": ["out", 1]}],
  nb_softmax: ["nb_status", [["const nb_tensor*", "t"], ["int64_t", "dim"], ["int32_t", "dtype"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: reduce", true, {"out": ["out", 1]}],
  nb_log_softmax: ["nb_status", [["const nb_tensor*", "t"], ["int64_t", "dim"], ["int32_t", "dtype"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: reduce", true, {"out": ["out", 1]}],
  nb_cat: ["nb_status", [["const nb_tensor* const*", "tensors"], ["int32_t", "n"], ["int64_t", "dim"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: shape", true, {"tensors": ["in", "n"], "out": ["out", 1]}],
  nb_stack: ["nb_status", [["const nb_tensor* const*", "tensors"], ["int32_t", "n"], ["int64_t", "dim"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: shape", true, {"tensors": ["in", "n"], "out": ["out", 1]}],
  nb_flip: ["nb_status", [["const nb_tensor*", "x"], ["const int64_t*", "dims"], ["int32_t", "ndims"], ["nb_tensor**", "out"]], "ops: shape", true, {"dims": ["in", "ndims"], "out": ["out", 1]}],
  nb_roll: ["nb_status", [["const nb_tensor*", "x"], ["const int64_t*", "shifts"], ["int32_t", "nshifts"], ["const int64_t*", "dims"], ["int32_t", "ndims"], ["nb_tensor**", "out"]], "ops: shape", true, {"shifts": ["in", "nshifts"], "dims": ["in", "ndims"], "out": ["out", 1]}],
  nb_repeat: ["nb_status", [["const nb_tensor*", "x"], ["const int64_t*", "repeats"], ["int32_t", "n"], ["nb_tensor**", "out"]], "ops: shape", true, {"repeats": ["in", "n"], "out": ["out", 1]}],
  nb_tril: ["nb_status", [["const nb_tensor*", "x"], ["int64_t", "diagonal"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: shape", true, {"out": ["out", 1]}],
  nb_triu: ["nb_status", [["const nb_tensor*", "x"], ["int64_t", "diagonal"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: shape", true, {"out": ["out", 1]}],
  nb_sort: ["nb_status", [["const nb_tensor*", "x"], ["int64_t", "dim"], ["int32_t", "descending"], ["int32_t", "stable"], ["nb_tensor**", "values"], ["nb_tensor**", "indices"]], "ops: shape", true, {"values": ["out", 1], "indices": ["out", 1]}],
  nb_argsort: ["nb_status", [["const nb_tensor*", "x"], ["int64_t", "dim"], ["int32_t", "descending"], ["int32_t", "stable"], ["nb_tensor**", "out"]], "ops: shape", false, {"out": ["out", 1]}],
  nb_searchsorted: ["nb_status", [["const nb_tensor*", "sorted_sequence"], ["const nb_tensor*", "values"], ["int32_t", "right"], ["int32_t", "out_int32"], ["nb_tensor**", "out"]], "ops: shape", false, {"out": ["out", 1]}],
  nb_topk: ["nb_status", [["const nb_tensor*", "x"], ["int64_t", "k"], ["int64_t", "dim"], ["int32_t", "largest"], ["int32_t", "sorted"], ["nb_tensor**", "values"], ["nb_tensor**", "indices"]], "ops: shape", true, {"values": ["out", 1], "indices": ["out", 1]}],
  nb_unique: ["nb_status", [["const nb_tensor*", "x"], ["int32_t", "sorted"], ["nb_tensor**", "values"], ["nb_tensor**", "inverse"], ["nb_tensor**", "counts"]], "ops: shape", false, {"values": ["out", 1], "inverse": ["out", 1], "counts": ["out", 1]}],
  nb_unique_dim: ["nb_status", [["const nb_tensor*", "x"], ["int64_t", "dim"], ["int32_t", "sorted"], ["nb_tensor**", "values"], ["nb_tensor**", "inverse"], ["nb_tensor**", "counts"]], "ops: shape", false, {"values": ["out", 1], "inverse": ["out", 1], "counts": ["out", 1]}],
  nb_unique_consecutive: ["nb_status", [["const nb_tensor*", "x"], ["int64_t", "dim"], ["int32_t", "has_dim"], ["nb_tensor**", "values"], ["nb_tensor**", "inverse"], ["nb_tensor**", "counts"]], "ops: shape", false, {"values": ["out", 1], "inverse": ["out", 1], "counts": ["out", 1]}],
  nb_softmax_backward: ["nb_status", [["const nb_tensor*", "grad_output"], ["const nb_tensor*", "output"], ["int64_t", "dim"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: softmax_backward", true, {"out": ["out", 1]}],
  nb_log_softmax_backward: ["nb_status", [["const nb_tensor*", "grad_output"], ["const nb_tensor*", "output"], ["int64_t", "dim"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: softmax_backward", true, {"out": ["out", 1]}],
  nb_exp: ["nb_status", [["const nb_tensor*", "x"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: unary", true, {"out": ["out", 1]}],
  nb_exp2: ["nb_status", [["const nb_tensor*", "x"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: unary", true, {"out": ["out", 1]}],
  nb_expm1: ["nb_status", [["const nb_tensor*", "x"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: unary", true, {"out": ["out", 1]}],
  nb_log: ["nb_status", [["const nb_tensor*", "x"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: unary", true, {"out": ["out", 1]}],
  nb_log2: ["nb_status", [["const nb_tensor*", "x"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: unary", true, {"out": ["out", 1]}],
  nb_log10: ["nb_status", [["const nb_tensor*", "x"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: unary", true, {"out": ["out", 1]}],
  nb_log1p: ["nb_status", [["const nb_tensor*", "x"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: unary", true, {"out": ["out", 1]}],
  nb_sqrt: ["nb_status", [["const nb_tensor*", "x"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: unary", true, {"out": ["out", 1]}],
  nb_rsqrt: ["nb_status", [["const nb_tensor*", "x"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: unary", true, {"out": ["out", 1]}],
  nb_sin: ["nb_status", [["const nb_tensor*", "x"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: unary", true, {"out": ["out", 1]}],
  nb_cos: ["nb_status", [["const nb_tensor*", "x"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: unary", true, {"out": ["out", 1]}],
  nb_tan: ["nb_status", [["const nb_tensor*", "x"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: unary", true, {"out": ["out", 1]}],
  nb_asin: ["nb_status", [["const nb_tensor*", "x"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: unary", true, {"out": ["out", 1]}],
  nb_acos: ["nb_status", [["const nb_tensor*", "x"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: unary", true, {"out": ["out", 1]}],
  nb_atan: ["nb_status", [["const nb_tensor*", "x"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: unary", true, {"out": ["out", 1]}],
  nb_sinh: ["nb_status", [["const nb_tensor*", "x"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: unary", true, {"out": ["out", 1]}],
  nb_cosh: ["nb_status", [["const nb_tensor*", "x"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: unary", true, {"out": ["out", 1]}],
  nb_tanh: ["nb_status", [["const nb_tensor*", "x"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: unary", true, {"out": ["out", 1]}],
  nb_sigmoid: ["nb_status", [["const nb_tensor*", "x"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: unary", true, {"out": ["out", 1]}],
  nb_erf: ["nb_status", [["const nb_tensor*", "x"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: unary", true, {"out": ["out", 1]}],
  nb_erfc: ["nb_status", [["const nb_tensor*", "x"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: unary", true, {"out": ["out", 1]}],
  nb_reciprocal: ["nb_status", [["const nb_tensor*", "x"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: unary", true, {"out": ["out", 1]}],
  nb_silu: ["nb_status", [["const nb_tensor*", "x"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: unary", true, {"out": ["out", 1]}],
  nb_gelu: ["nb_status", [["const nb_tensor*", "x"], ["int32_t", "approximate_tanh"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: unary", true, {"out": ["out", 1]}],
  nb_leaky_relu: ["nb_status", [["const nb_tensor*", "x"], ["double", "negative_slope"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: unary", true, {"out": ["out", 1]}],
  nb_elu: ["nb_status", [["const nb_tensor*", "x"], ["double", "alpha"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: unary", true, {"out": ["out", 1]}],
  nb_softplus: ["nb_status", [["const nb_tensor*", "x"], ["double", "beta"], ["double", "threshold"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: unary", true, {"out": ["out", 1]}],
  nb_neg: ["nb_status", [["const nb_tensor*", "x"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: unary", true, {"out": ["out", 1]}],
  nb_abs: ["nb_status", [["const nb_tensor*", "x"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: unary", true, {"out": ["out", 1]}],
  nb_sign: ["nb_status", [["const nb_tensor*", "x"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: unary", true, {"out": ["out", 1]}],
  nb_relu: ["nb_status", [["const nb_tensor*", "x"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: unary", true, {"out": ["out", 1]}],
  nb_square: ["nb_status", [["const nb_tensor*", "x"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: unary", true, {"out": ["out", 1]}],
  nb_floor: ["nb_status", [["const nb_tensor*", "x"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: unary", true, {"out": ["out", 1]}],
  nb_ceil: ["nb_status", [["const nb_tensor*", "x"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: unary", true, {"out": ["out", 1]}],
  nb_round: ["nb_status", [["const nb_tensor*", "x"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: unary", true, {"out": ["out", 1]}],
  nb_trunc: ["nb_status", [["const nb_tensor*", "x"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: unary", true, {"out": ["out", 1]}],
  nb_bitwise_not: ["nb_status", [["const nb_tensor*", "x"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: unary", false, {"out": ["out", 1]}],
  nb_logical_not: ["nb_status", [["const nb_tensor*", "x"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: unary", false, {"out": ["out", 1]}],
  nb_isnan: ["nb_status", [["const nb_tensor*", "x"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: unary", false, {"out": ["out", 1]}],
  nb_isinf: ["nb_status", [["const nb_tensor*", "x"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: unary", false, {"out": ["out", 1]}],
  nb_isfinite: ["nb_status", [["const nb_tensor*", "x"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: unary", false, {"out": ["out", 1]}],
  nb_nan_to_num: ["nb_status", [["const nb_tensor*", "x"], ["double", "nan"], ["double", "posinf"], ["double", "neginf"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: unary", true, {"out": ["out", 1]}],
  nb_clamp: ["nb_status", [["const nb_tensor*", "x"], ["double", "min"], ["double", "max"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: unary", true, {"out": ["out", 1]}],
  nb_where: ["nb_status", [["const nb_tensor*", "condition"], ["const nb_tensor*", "a"], ["const nb_tensor*", "b"], ["nb_tensor*", "dst"], ["nb_tensor**", "out"]], "ops: unary", true, {"out": ["out", 1]}],
});

// Callback types: [returns, [[C type, name], ...]].
const CALLBACKS = Object.freeze({
  nb_deleter_fn: ["void", [["void*", "payload"]]],
  nb_blocking_begin_fn: ["void*", []],
  nb_blocking_end_fn: ["void", [["void*", "token"]]],
  nb_grad_hook_fn: ["nb_status", [["void*", "payload"], ["const nb_tensor*", "grad"], ["nb_tensor**", "replacement"]]],
  nb_post_accumulate_hook_fn: ["nb_status", [["void*", "payload"], ["nb_tensor*", "t"]]],
  nb_stack_source_fn: ["int64_t", [["void*", "payload"], ["char*", "buf"], ["int64_t", "cap"]]],
  nb_saved_pack_fn: ["nb_status", [["void*", "payload"], ["const nb_tensor*", "t"], ["void**", "packed"]]],
  nb_saved_unpack_fn: ["nb_status", [["void*", "payload"], ["void*", "packed"], ["nb_tensor**", "out"]]],
  nb_saved_free_fn: ["void", [["void*", "payload"], ["void*", "packed"]]],
  nb_custom_backward_fn: ["nb_status", [["void*", "payload"], ["int32_t", "n_grad_outputs"], ["nb_tensor* const*", "grad_outputs"], ["int32_t", "n_grad_inputs"], ["nb_tensor**", "grad_inputs"]]],
  nb_warning_fn: ["nb_status", [["void*", "payload"], ["const char*", "message"]]],
});

/** Declares the types and binds every function of `lib` (a koffi library). Call once:
 *  koffi registers type names process-wide. A function the library lacks (an older
 *  minor version) is left undefined and its name listed in `missing`. */
function declare(koffi, lib) {
  const missing = [];
  const bind = (name, prototype) => {
    try { return lib.func(prototype); } catch (e) { missing.push(name); return undefined; }
  };
  const types = {};
  types.nb_status = koffi.alias('nb_status', 'int32_t');
  types.nb_tensor = koffi.opaque('nb_tensor');
  types.nb_stream = koffi.opaque('nb_stream');
  types.nb_event = koffi.opaque('nb_event');
  types.nb_generator = koffi.opaque('nb_generator');
  types.nb_deleter_fn = koffi.proto('void nb_deleter_fn(void* payload)');
  types.nb_memory_stats = koffi.struct('nb_memory_stats', {struct_size: 'uint32_t', reserved0: 'uint32_t', allocated_bytes: 'int64_t', peak_allocated_bytes: 'int64_t', cached_bytes: 'int64_t', alloc_count: 'int64_t', free_count: 'int64_t', system_alloc_count: 'int64_t', system_free_count: 'int64_t', live_tensors: 'int64_t', live_storages: 'int64_t', reserved_bytes: 'int64_t', peak_reserved_bytes: 'int64_t', active_bytes: 'int64_t', peak_active_bytes: 'int64_t', requested_bytes: 'int64_t', peak_requested_bytes: 'int64_t', inactive_split_bytes: 'int64_t', segment_count: 'int64_t', alloc_retries: 'int64_t', oom_count: 'int64_t', largest_free_block: 'int64_t'});
  types.nb_blocking_begin_fn = koffi.proto('void* nb_blocking_begin_fn()');
  types.nb_blocking_end_fn = koffi.proto('void nb_blocking_end_fn(void* token)');
  types.nb_node = koffi.opaque('nb_node');
  types.nb_grad_hook_fn = koffi.proto('nb_status nb_grad_hook_fn(void* payload, const nb_tensor* grad, nb_tensor** replacement)');
  types.nb_post_accumulate_hook_fn = koffi.proto('nb_status nb_post_accumulate_hook_fn(void* payload, nb_tensor* t)');
  types.nb_stack_source_fn = koffi.proto('int64_t nb_stack_source_fn(void* payload, char* buf, int64_t cap)');
  types.nb_saved_pack_fn = koffi.proto('nb_status nb_saved_pack_fn(void* payload, const nb_tensor* t, void** packed)');
  types.nb_saved_unpack_fn = koffi.proto('nb_status nb_saved_unpack_fn(void* payload, void* packed, nb_tensor** out)');
  types.nb_saved_free_fn = koffi.proto('void nb_saved_free_fn(void* payload, void* packed)');
  types.nb_custom_backward_fn = koffi.proto('nb_status nb_custom_backward_fn(void* payload, int32_t n_grad_outputs, nb_tensor* const* grad_outputs, int32_t n_grad_inputs, nb_tensor** grad_inputs)');
  types.nb_warning_fn = koffi.proto('nb_status nb_warning_fn(void* payload, const char* message)');
  types.nb_checkpoint = koffi.opaque('nb_checkpoint');
  types.nb_comm = koffi.opaque('nb_comm');
  types.nb_work = koffi.opaque('nb_work');
  const fn = {};
  fn.nb_version = bind('nb_version', 'uint32_t nb_version()');
  fn.nb_version_string = bind('nb_version_string', 'const char* nb_version_string()');
  fn.nb_blas_info = bind('nb_blas_info', 'const char* nb_blas_info()');
  fn.nb_last_error_message = bind('nb_last_error_message', 'const char* nb_last_error_message()');
  fn.nb_last_error_status = bind('nb_last_error_status', 'nb_status nb_last_error_status()');
  fn.nb_clear_error = bind('nb_clear_error', 'void nb_clear_error()');
  fn.nb_set_blocking_hooks = bind('nb_set_blocking_hooks', 'void nb_set_blocking_hooks(nb_blocking_begin_fn* begin, nb_blocking_end_fn* end)');
  fn.nb_set_num_threads = bind('nb_set_num_threads', 'nb_status nb_set_num_threads(int32_t n)');
  fn.nb_get_num_threads = bind('nb_get_num_threads', 'int32_t nb_get_num_threads()');
  fn.nb_status_name = bind('nb_status_name', 'const char* nb_status_name(nb_status status)');
  fn.nb_dtype_size = bind('nb_dtype_size', 'int64_t nb_dtype_size(int32_t dtype)');
  fn.nb_dtype_name = bind('nb_dtype_name', 'const char* nb_dtype_name(int32_t dtype)');
  fn.nb_dtype_is_floating = bind('nb_dtype_is_floating', 'int32_t nb_dtype_is_floating(int32_t dtype)');
  fn.nb_promote_dtypes = bind('nb_promote_dtypes', 'int32_t nb_promote_dtypes(int32_t a, int32_t b)');
  fn.nb_result_dtype = bind('nb_result_dtype', 'int32_t nb_result_dtype(const nb_tensor* a, const nb_tensor* b)');
  fn.nb_set_default_dtype = bind('nb_set_default_dtype', 'nb_status nb_set_default_dtype(int32_t dtype)');
  fn.nb_get_default_dtype = bind('nb_get_default_dtype', 'int32_t nb_get_default_dtype()');
  fn.nb_device_type_name = bind('nb_device_type_name', 'const char* nb_device_type_name(int32_t device_type)');
  fn.nb_device_count = bind('nb_device_count', 'nb_status nb_device_count(int32_t device_type, int32_t* out)');
  fn.nb_device_unavailable_reason = bind('nb_device_unavailable_reason', 'const char* nb_device_unavailable_reason(int32_t device_type)');
  fn.nb_tensor_retain = bind('nb_tensor_retain', 'void nb_tensor_retain(nb_tensor* t)');
  fn.nb_tensor_release = bind('nb_tensor_release', 'void nb_tensor_release(nb_tensor* t)');
  fn.nb_tensor_refcount = bind('nb_tensor_refcount', 'int64_t nb_tensor_refcount(const nb_tensor* t)');
  fn.nb_tensor_ndim = bind('nb_tensor_ndim', 'int32_t nb_tensor_ndim(const nb_tensor* t)');
  fn.nb_tensor_shape = bind('nb_tensor_shape', 'const int64_t* nb_tensor_shape(const nb_tensor* t)');
  fn.nb_tensor_strides = bind('nb_tensor_strides', 'const int64_t* nb_tensor_strides(const nb_tensor* t)');
  fn.nb_tensor_dtype = bind('nb_tensor_dtype', 'int32_t nb_tensor_dtype(const nb_tensor* t)');
  fn.nb_tensor_device_type = bind('nb_tensor_device_type', 'int32_t nb_tensor_device_type(const nb_tensor* t)');
  fn.nb_tensor_device_index = bind('nb_tensor_device_index', 'int32_t nb_tensor_device_index(const nb_tensor* t)');
  fn.nb_tensor_numel = bind('nb_tensor_numel', 'int64_t nb_tensor_numel(const nb_tensor* t)');
  fn.nb_tensor_is_contiguous = bind('nb_tensor_is_contiguous', 'int32_t nb_tensor_is_contiguous(const nb_tensor* t)');
  fn.nb_tensor_data_ptr = bind('nb_tensor_data_ptr', 'void* nb_tensor_data_ptr(const nb_tensor* t)');
  fn.nb_tensor_storage_offset = bind('nb_tensor_storage_offset', 'int64_t nb_tensor_storage_offset(const nb_tensor* t)');
  fn.nb_tensor_storage_nbytes = bind('nb_tensor_storage_nbytes', 'int64_t nb_tensor_storage_nbytes(const nb_tensor* t)');
  fn.nb_tensor_storage_data_ptr = bind('nb_tensor_storage_data_ptr', 'void* nb_tensor_storage_data_ptr(const nb_tensor* t)');
  fn.nb_tensor_version = bind('nb_tensor_version', 'int64_t nb_tensor_version(const nb_tensor* t)');
  fn.nb_empty = bind('nb_empty', 'nb_status nb_empty(const int64_t* shape, int32_t ndim, int32_t dtype, int32_t device_type, int32_t device_index, nb_tensor** out)');
  fn.nb_zeros = bind('nb_zeros', 'nb_status nb_zeros(const int64_t* shape, int32_t ndim, int32_t dtype, int32_t device_type, int32_t device_index, nb_tensor** out)');
  fn.nb_ones = bind('nb_ones', 'nb_status nb_ones(const int64_t* shape, int32_t ndim, int32_t dtype, int32_t device_type, int32_t device_index, nb_tensor** out)');
  fn.nb_full = bind('nb_full', 'nb_status nb_full(const int64_t* shape, int32_t ndim, double value, int32_t dtype, int32_t device_type, int32_t device_index, nb_tensor** out)');
  fn.nb_full_int = bind('nb_full_int', 'nb_status nb_full_int(const int64_t* shape, int32_t ndim, int64_t value, int32_t dtype, int32_t device_type, int32_t device_index, nb_tensor** out)');
  fn.nb_arange = bind('nb_arange', 'nb_status nb_arange(double start, double end, double step, int32_t dtype, int32_t device_type, int32_t device_index, nb_tensor** out)');
  fn.nb_linspace = bind('nb_linspace', 'nb_status nb_linspace(double start, double end, int64_t steps, int32_t dtype, int32_t device_type, int32_t device_index, nb_tensor** out)');
  fn.nb_eye = bind('nb_eye', 'nb_status nb_eye(int64_t n, int64_t m, int32_t dtype, int32_t device_type, int32_t device_index, nb_tensor** out)');
  fn.nb_tensor_from_host = bind('nb_tensor_from_host', 'nb_status nb_tensor_from_host(const void* data, const int64_t* shape, int32_t ndim, int32_t dtype, int32_t device_type, int32_t device_index, nb_tensor** out)');
  fn.nb_tensor_from_external = bind('nb_tensor_from_external', 'nb_status nb_tensor_from_external(void* data, const int64_t* shape, const int64_t* strides, int32_t ndim, int32_t dtype, int32_t device_type, int32_t device_index, nb_deleter_fn* deleter, void* payload, nb_tensor** out)');
  fn.nb_scalar = bind('nb_scalar', 'nb_status nb_scalar(double fvalue, int64_t ivalue, int32_t dtype, nb_tensor** out)');
  fn.nb_tensor_view = bind('nb_tensor_view', 'nb_status nb_tensor_view(const nb_tensor* t, const int64_t* shape, int32_t ndim, nb_tensor** out)');
  fn.nb_tensor_reshape = bind('nb_tensor_reshape', 'nb_status nb_tensor_reshape(const nb_tensor* t, const int64_t* shape, int32_t ndim, nb_tensor** out)');
  fn.nb_tensor_permute = bind('nb_tensor_permute', 'nb_status nb_tensor_permute(const nb_tensor* t, const int64_t* dims, int32_t ndim, nb_tensor** out)');
  fn.nb_tensor_transpose = bind('nb_tensor_transpose', 'nb_status nb_tensor_transpose(const nb_tensor* t, int64_t dim0, int64_t dim1, nb_tensor** out)');
  fn.nb_tensor_narrow = bind('nb_tensor_narrow', 'nb_status nb_tensor_narrow(const nb_tensor* t, int64_t dim, int64_t start, int64_t length, nb_tensor** out)');
  fn.nb_tensor_slice = bind('nb_tensor_slice', 'nb_status nb_tensor_slice(const nb_tensor* t, int64_t dim, int64_t start, int64_t end, int64_t step, nb_tensor** out)');
  fn.nb_tensor_select = bind('nb_tensor_select', 'nb_status nb_tensor_select(const nb_tensor* t, int64_t dim, int64_t index, nb_tensor** out)');
  fn.nb_tensor_expand = bind('nb_tensor_expand', 'nb_status nb_tensor_expand(const nb_tensor* t, const int64_t* shape, int32_t ndim, nb_tensor** out)');
  fn.nb_tensor_squeeze = bind('nb_tensor_squeeze', 'nb_status nb_tensor_squeeze(const nb_tensor* t, const int64_t* dims, int32_t ndims, nb_tensor** out)');
  fn.nb_tensor_unsqueeze = bind('nb_tensor_unsqueeze', 'nb_status nb_tensor_unsqueeze(const nb_tensor* t, int64_t dim, nb_tensor** out)');
  fn.nb_tensor_flatten = bind('nb_tensor_flatten', 'nb_status nb_tensor_flatten(const nb_tensor* t, int64_t start_dim, int64_t end_dim, nb_tensor** out)');
  fn.nb_tensor_as_strided = bind('nb_tensor_as_strided', 'nb_status nb_tensor_as_strided(const nb_tensor* t, const int64_t* shape, const int64_t* strides, int32_t ndim, int64_t storage_offset, nb_tensor** out)');
  fn.nb_tensor_contiguous = bind('nb_tensor_contiguous', 'nb_status nb_tensor_contiguous(const nb_tensor* t, nb_tensor** out)');
  fn.nb_tensor_clone = bind('nb_tensor_clone', 'nb_status nb_tensor_clone(const nb_tensor* t, nb_tensor** out)');
  fn.nb_tensor_to = bind('nb_tensor_to', 'nb_status nb_tensor_to(const nb_tensor* t, int32_t dtype, int32_t device_type, int32_t device_index, int32_t copy, nb_tensor** out)');
  fn.nb_tensor_copy_ = bind('nb_tensor_copy_', 'nb_status nb_tensor_copy_(nb_tensor* dst, const nb_tensor* src)');
  fn.nb_tensor_copy_to_host = bind('nb_tensor_copy_to_host', 'nb_status nb_tensor_copy_to_host(const nb_tensor* t, void* dst, int64_t nbytes)');
  fn.nb_tensor_item_double = bind('nb_tensor_item_double', 'nb_status nb_tensor_item_double(const nb_tensor* t, double* out)');
  fn.nb_tensor_item_int = bind('nb_tensor_item_int', 'nb_status nb_tensor_item_int(const nb_tensor* t, int64_t* out)');
  fn.nb_tensor_resize_ = bind('nb_tensor_resize_', 'nb_status nb_tensor_resize_(nb_tensor* t, const int64_t* shape, int32_t ndim)');
  fn.nb_tensor_resize_output = bind('nb_tensor_resize_output', 'nb_status nb_tensor_resize_output(nb_tensor* t, const int64_t* shape, int32_t ndim)');
  fn.nb_tensor_to_dlpack_versioned = bind('nb_tensor_to_dlpack_versioned', 'nb_status nb_tensor_to_dlpack_versioned(const nb_tensor* t, int32_t device_type, int32_t device_index, int32_t copy, void** out)');
  fn.nb_tensor_to_dlpack = bind('nb_tensor_to_dlpack', 'nb_status nb_tensor_to_dlpack(const nb_tensor* t, int32_t device_type, int32_t device_index, int32_t copy, void** out)');
  fn.nb_tensor_from_dlpack_versioned = bind('nb_tensor_from_dlpack_versioned', 'nb_status nb_tensor_from_dlpack_versioned(void* managed, nb_tensor** out)');
  fn.nb_tensor_from_dlpack = bind('nb_tensor_from_dlpack', 'nb_status nb_tensor_from_dlpack(void* managed, nb_tensor** out)');
  fn.nb_tensor_is_readonly = bind('nb_tensor_is_readonly', 'int32_t nb_tensor_is_readonly(const nb_tensor* t)');
  fn.nb_tensor_share_memory_ = bind('nb_tensor_share_memory_', 'nb_status nb_tensor_share_memory_(nb_tensor* t)');
  fn.nb_tensor_is_shared = bind('nb_tensor_is_shared', 'int32_t nb_tensor_is_shared(const nb_tensor* t)');
  fn.nb_tensor_shared_fd = bind('nb_tensor_shared_fd', 'nb_status nb_tensor_shared_fd(const nb_tensor* t, int32_t* out)');
  fn.nb_empty_shared = bind('nb_empty_shared', 'nb_status nb_empty_shared(const int64_t* shape, int32_t ndim, int32_t dtype, nb_tensor** out)');
  fn.nb_tensor_from_shared_fd = bind('nb_tensor_from_shared_fd', 'nb_status nb_tensor_from_shared_fd(int32_t fd, int64_t nbytes, const int64_t* shape, const int64_t* strides, int32_t ndim, int64_t storage_offset, int32_t dtype, int32_t readonly, nb_tensor** out)');
  fn.nb_memory_stats_get = bind('nb_memory_stats_get', 'nb_status nb_memory_stats_get(int32_t device_type, int32_t device_index, _Inout_ nb_memory_stats* out)');
  fn.nb_memory_reset_peak = bind('nb_memory_reset_peak', 'nb_status nb_memory_reset_peak(int32_t device_type, int32_t device_index)');
  fn.nb_memory_empty_cache = bind('nb_memory_empty_cache', 'nb_status nb_memory_empty_cache(int32_t device_type, int32_t device_index)');
  fn.nb_memory_snapshot = bind('nb_memory_snapshot', 'nb_status nb_memory_snapshot(int32_t device_type, int32_t device_index, char* buf, int64_t cap, int64_t* needed)');
  fn.nb_tensor_record_stream = bind('nb_tensor_record_stream', 'nb_status nb_tensor_record_stream(nb_tensor* t, nb_stream* stream)');
  fn.nb_tensor_pin_memory = bind('nb_tensor_pin_memory', 'nb_status nb_tensor_pin_memory(const nb_tensor* t, nb_tensor** out)');
  fn.nb_tensor_is_pinned = bind('nb_tensor_is_pinned', 'int32_t nb_tensor_is_pinned(const nb_tensor* t)');
  fn.nb_tensor_to_v2 = bind('nb_tensor_to_v2', 'nb_status nb_tensor_to_v2(const nb_tensor* t, int32_t dtype, int32_t device_type, int32_t device_index, int32_t copy, int32_t non_blocking, nb_tensor** out)');
  fn.nb_tensor_copy_v2_ = bind('nb_tensor_copy_v2_', 'nb_status nb_tensor_copy_v2_(nb_tensor* dst, const nb_tensor* src, int32_t non_blocking)');
  fn.nb_stream_create = bind('nb_stream_create', 'nb_status nb_stream_create(int32_t device_type, int32_t device_index, int32_t priority, nb_stream** out)');
  fn.nb_stream_from_native = bind('nb_stream_from_native', 'nb_status nb_stream_from_native(int32_t device_type, int32_t device_index, void* native, nb_stream** out)');
  fn.nb_stream_retain = bind('nb_stream_retain', 'void nb_stream_retain(nb_stream* s)');
  fn.nb_stream_release = bind('nb_stream_release', 'void nb_stream_release(nb_stream* s)');
  fn.nb_stream_default = bind('nb_stream_default', 'nb_status nb_stream_default(int32_t device_type, int32_t device_index, nb_stream** out)');
  fn.nb_stream_current = bind('nb_stream_current', 'nb_status nb_stream_current(int32_t device_type, int32_t device_index, nb_stream** out)');
  fn.nb_stream_set_current = bind('nb_stream_set_current', 'nb_status nb_stream_set_current(nb_stream* s)');
  fn.nb_stream_synchronize = bind('nb_stream_synchronize', 'nb_status nb_stream_synchronize(nb_stream* s)');
  fn.nb_stream_query = bind('nb_stream_query', 'nb_status nb_stream_query(nb_stream* s, int32_t* done)');
  fn.nb_stream_wait_event = bind('nb_stream_wait_event', 'nb_status nb_stream_wait_event(nb_stream* s, nb_event* e)');
  fn.nb_stream_wait_stream = bind('nb_stream_wait_stream', 'nb_status nb_stream_wait_stream(nb_stream* s, nb_stream* other)');
  fn.nb_stream_native_handle = bind('nb_stream_native_handle', 'void* nb_stream_native_handle(const nb_stream* s)');
  fn.nb_stream_id = bind('nb_stream_id', 'int64_t nb_stream_id(const nb_stream* s)');
  fn.nb_stream_device_type = bind('nb_stream_device_type', 'int32_t nb_stream_device_type(const nb_stream* s)');
  fn.nb_stream_device_index = bind('nb_stream_device_index', 'int32_t nb_stream_device_index(const nb_stream* s)');
  fn.nb_stream_priority = bind('nb_stream_priority', 'int32_t nb_stream_priority(const nb_stream* s)');
  fn.nb_stream_priority_range = bind('nb_stream_priority_range', 'nb_status nb_stream_priority_range(int32_t device_type, int32_t* least, int32_t* greatest)');
  fn.nb_event_create = bind('nb_event_create', 'nb_status nb_event_create(int32_t device_type, int32_t device_index, int32_t flags, nb_event** out)');
  fn.nb_event_retain = bind('nb_event_retain', 'void nb_event_retain(nb_event* e)');
  fn.nb_event_release = bind('nb_event_release', 'void nb_event_release(nb_event* e)');
  fn.nb_event_record = bind('nb_event_record', 'nb_status nb_event_record(nb_event* e, nb_stream* s)');
  fn.nb_event_query = bind('nb_event_query', 'nb_status nb_event_query(nb_event* e, int32_t* done)');
  fn.nb_event_synchronize = bind('nb_event_synchronize', 'nb_status nb_event_synchronize(nb_event* e)');
  fn.nb_event_elapsed_time = bind('nb_event_elapsed_time', 'nb_status nb_event_elapsed_time(nb_event* start, nb_event* end, double* ms)');
  fn.nb_event_native_handle = bind('nb_event_native_handle', 'void* nb_event_native_handle(const nb_event* e)');
  fn.nb_profiler_start = bind('nb_profiler_start', 'nb_status nb_profiler_start(int32_t flags)');
  fn.nb_profiler_stop = bind('nb_profiler_stop', 'nb_status nb_profiler_stop()');
  fn.nb_profiler_enabled = bind('nb_profiler_enabled', 'int32_t nb_profiler_enabled()');
  fn.nb_profiler_events = bind('nb_profiler_events', 'nb_status nb_profiler_events(char* buf, int64_t cap, int64_t* needed)');
  fn.nb_profiler_range_push = bind('nb_profiler_range_push', 'nb_status nb_profiler_range_push(const char* name)');
  fn.nb_profiler_range_pop = bind('nb_profiler_range_pop', 'nb_status nb_profiler_range_pop()');
  fn.nb_profiler_set_stack_source = bind('nb_profiler_set_stack_source', 'nb_status nb_profiler_set_stack_source(nb_stack_source_fn* fn, void* payload, nb_deleter_fn* destroy)');
  fn.nb_autocast_set_enabled = bind('nb_autocast_set_enabled', 'nb_status nb_autocast_set_enabled(int32_t device_type, int32_t enabled)');
  fn.nb_autocast_is_enabled = bind('nb_autocast_is_enabled', 'int32_t nb_autocast_is_enabled(int32_t device_type)');
  fn.nb_autocast_set_dtype = bind('nb_autocast_set_dtype', 'nb_status nb_autocast_set_dtype(int32_t device_type, int32_t dtype)');
  fn.nb_autocast_get_dtype = bind('nb_autocast_get_dtype', 'int32_t nb_autocast_get_dtype(int32_t device_type)');
  fn.nb_autocast_set_cache_enabled = bind('nb_autocast_set_cache_enabled', 'void nb_autocast_set_cache_enabled(int32_t enabled)');
  fn.nb_autocast_is_cache_enabled = bind('nb_autocast_is_cache_enabled', 'int32_t nb_autocast_is_cache_enabled()');
  fn.nb_autocast_increment_nesting = bind('nb_autocast_increment_nesting', 'int32_t nb_autocast_increment_nesting()');
  fn.nb_autocast_decrement_nesting = bind('nb_autocast_decrement_nesting', 'int32_t nb_autocast_decrement_nesting()');
  fn.nb_autocast_clear_cache = bind('nb_autocast_clear_cache', 'void nb_autocast_clear_cache()');
  fn.nb_device_current = bind('nb_device_current', 'nb_status nb_device_current(int32_t device_type, int32_t* out)');
  fn.nb_device_set_current = bind('nb_device_set_current', 'nb_status nb_device_set_current(int32_t device_type, int32_t device_index)');
  fn.nb_device_synchronize = bind('nb_device_synchronize', 'nb_status nb_device_synchronize(int32_t device_type, int32_t device_index)');
  fn.nb_device_memory_info = bind('nb_device_memory_info', 'nb_status nb_device_memory_info(int32_t device_type, int32_t device_index, int64_t* free_bytes, int64_t* total_bytes)');
  fn.nb_device_properties = bind('nb_device_properties', 'nb_status nb_device_properties(int32_t device_type, int32_t device_index, char* buf, int64_t cap, int64_t* needed)');
  fn.nb_set_error = bind('nb_set_error', 'nb_status nb_set_error(int32_t status, const char* message)');
  fn.nb_set_warning_handler = bind('nb_set_warning_handler', 'void nb_set_warning_handler(nb_warning_fn* fn, void* payload)');
  fn.nb_grad_enabled = bind('nb_grad_enabled', 'int32_t nb_grad_enabled()');
  fn.nb_set_grad_enabled = bind('nb_set_grad_enabled', 'int32_t nb_set_grad_enabled(int32_t enabled)');
  fn.nb_inference_mode_enabled = bind('nb_inference_mode_enabled', 'int32_t nb_inference_mode_enabled()');
  fn.nb_set_inference_mode = bind('nb_set_inference_mode', 'int32_t nb_set_inference_mode(int32_t enabled)');
  fn.nb_anomaly_mode_enabled = bind('nb_anomaly_mode_enabled', 'int32_t nb_anomaly_mode_enabled()');
  fn.nb_set_anomaly_mode = bind('nb_set_anomaly_mode', 'int32_t nb_set_anomaly_mode(int32_t enabled)');
  fn.nb_tensor_requires_grad = bind('nb_tensor_requires_grad', 'int32_t nb_tensor_requires_grad(const nb_tensor* t)');
  fn.nb_tensor_set_requires_grad = bind('nb_tensor_set_requires_grad', 'nb_status nb_tensor_set_requires_grad(nb_tensor* t, int32_t requires_grad)');
  fn.nb_tensor_is_leaf = bind('nb_tensor_is_leaf', 'int32_t nb_tensor_is_leaf(const nb_tensor* t)');
  fn.nb_tensor_get_grad = bind('nb_tensor_get_grad', 'nb_status nb_tensor_get_grad(const nb_tensor* t, nb_tensor** grad)');
  fn.nb_tensor_set_grad = bind('nb_tensor_set_grad', 'nb_status nb_tensor_set_grad(nb_tensor* t, const nb_tensor* grad)');
  fn.nb_tensor_retain_grad = bind('nb_tensor_retain_grad', 'nb_status nb_tensor_retain_grad(nb_tensor* t)');
  fn.nb_tensor_retains_grad = bind('nb_tensor_retains_grad', 'int32_t nb_tensor_retains_grad(const nb_tensor* t)');
  fn.nb_tensor_detach = bind('nb_tensor_detach', 'nb_status nb_tensor_detach(const nb_tensor* t, nb_tensor** out)');
  fn.nb_tensor_detach_ = bind('nb_tensor_detach_', 'nb_status nb_tensor_detach_(nb_tensor* t)');
  fn.nb_tensor_grad_fn = bind('nb_tensor_grad_fn', 'nb_status nb_tensor_grad_fn(const nb_tensor* t, nb_node** out)');
  fn.nb_tensor_output_nr = bind('nb_tensor_output_nr', 'int32_t nb_tensor_output_nr(const nb_tensor* t)');
  fn.nb_node_retain = bind('nb_node_retain', 'void nb_node_retain(nb_node* node)');
  fn.nb_node_release = bind('nb_node_release', 'void nb_node_release(nb_node* node)');
  fn.nb_node_name = bind('nb_node_name', 'const char* nb_node_name(const nb_node* node)');
  fn.nb_node_num_next = bind('nb_node_num_next', 'int32_t nb_node_num_next(const nb_node* node)');
  fn.nb_node_next = bind('nb_node_next', 'nb_status nb_node_next(const nb_node* node, int32_t i, nb_node** next, int32_t* input_nr)');
  fn.nb_tensor_register_hook = bind('nb_tensor_register_hook', 'nb_status nb_tensor_register_hook(nb_tensor* t, nb_grad_hook_fn* fn, void* payload, nb_deleter_fn* destroy, int64_t* id)');
  fn.nb_tensor_remove_hook = bind('nb_tensor_remove_hook', 'nb_status nb_tensor_remove_hook(nb_tensor* t, int64_t id)');
  fn.nb_tensor_register_post_accumulate_grad_hook = bind('nb_tensor_register_post_accumulate_grad_hook', 'nb_status nb_tensor_register_post_accumulate_grad_hook(nb_tensor* t, nb_post_accumulate_hook_fn* fn, void* payload, nb_deleter_fn* destroy, int64_t* id)');
  fn.nb_tensor_mark_inplace = bind('nb_tensor_mark_inplace', 'nb_status nb_tensor_mark_inplace(nb_tensor* t, const char* op)');
  fn.nb_saved_tensors_hooks_push = bind('nb_saved_tensors_hooks_push', 'nb_status nb_saved_tensors_hooks_push(nb_saved_pack_fn* pack, nb_saved_unpack_fn* unpack, nb_saved_free_fn* free_packed, void* payload, nb_deleter_fn* destroy)');
  fn.nb_saved_tensors_hooks_pop = bind('nb_saved_tensors_hooks_pop', 'nb_status nb_saved_tensors_hooks_pop()');
  fn.nb_saved_tensors_hooks_disable = bind('nb_saved_tensors_hooks_disable', 'nb_status nb_saved_tensors_hooks_disable(const char* message)');
  fn.nb_saved_tensors_hooks_disabled_message = bind('nb_saved_tensors_hooks_disabled_message', 'const char* nb_saved_tensors_hooks_disabled_message()');
  fn.nb_backward = bind('nb_backward', 'nb_status nb_backward(nb_tensor* const* outputs, nb_tensor* const* grad_outputs, int32_t n, int32_t retain_graph, int32_t create_graph)');
  fn.nb_tensor_backward = bind('nb_tensor_backward', 'nb_status nb_tensor_backward(nb_tensor* t, nb_tensor* grad, int32_t retain_graph, int32_t create_graph)');
  fn.nb_autograd_grad = bind('nb_autograd_grad', 'nb_status nb_autograd_grad(nb_tensor* const* outputs, nb_tensor* const* grad_outputs, int32_t n, nb_tensor* const* inputs, int32_t n_inputs, int32_t retain_graph, int32_t create_graph, int32_t allow_unused, nb_tensor** grads)');
  fn.nb_autograd_function_record = bind('nb_autograd_function_record', 'nb_status nb_autograd_function_record(const char* name, const nb_tensor* const* inputs, int32_t n_inputs, nb_tensor* const* outputs, int32_t n_outputs, const int32_t* non_differentiable, nb_custom_backward_fn* fn, void* payload, nb_deleter_fn* destroy)');
  fn.nb_save = bind('nb_save', 'nb_status nb_save(const char* path, const char** names, nb_tensor* const* tensors, int64_t n, const char** meta_keys, const char** meta_values, int64_t n_meta)');
  fn.nb_save_buffer = bind('nb_save_buffer', 'nb_status nb_save_buffer(const char** names, nb_tensor* const* tensors, int64_t n, const char** meta_keys, const char** meta_values, int64_t n_meta, void* buf, int64_t cap, int64_t* needed)');
  fn.nb_load = bind('nb_load', 'nb_status nb_load(const char* path, nb_checkpoint** out)');
  fn.nb_load_buffer = bind('nb_load_buffer', 'nb_status nb_load_buffer(const void* data, int64_t nbytes, const char* name, nb_checkpoint** out)');
  fn.nb_checkpoint_count = bind('nb_checkpoint_count', 'int64_t nb_checkpoint_count(const nb_checkpoint* ck)');
  fn.nb_checkpoint_name = bind('nb_checkpoint_name', 'const char* nb_checkpoint_name(const nb_checkpoint* ck, int64_t i)');
  fn.nb_checkpoint_tensor = bind('nb_checkpoint_tensor', 'nb_status nb_checkpoint_tensor(const nb_checkpoint* ck, int64_t i, nb_tensor** out)');
  fn.nb_checkpoint_get = bind('nb_checkpoint_get', 'nb_status nb_checkpoint_get(const nb_checkpoint* ck, const char* name, nb_tensor** out)');
  fn.nb_checkpoint_metadata_count = bind('nb_checkpoint_metadata_count', 'int64_t nb_checkpoint_metadata_count(const nb_checkpoint* ck)');
  fn.nb_checkpoint_metadata = bind('nb_checkpoint_metadata', 'nb_status nb_checkpoint_metadata(const nb_checkpoint* ck, int64_t i, _Out_ const char** key, _Out_ const char** value)');
  fn.nb_checkpoint_release = bind('nb_checkpoint_release', 'void nb_checkpoint_release(nb_checkpoint* ck)');
  fn.nb_comm_available = bind('nb_comm_available', 'nb_status nb_comm_available(const char* library)');
  fn.nb_comm_init_mpi = bind('nb_comm_init_mpi', 'nb_status nb_comm_init_mpi(const char* library, double timeout_s, nb_comm** out)');
  fn.nb_comm_split = bind('nb_comm_split', 'nb_status nb_comm_split(nb_comm* parent, int32_t color, int32_t key, nb_comm** out)');
  fn.nb_comm_rank = bind('nb_comm_rank', 'int32_t nb_comm_rank(const nb_comm* c)');
  fn.nb_comm_size = bind('nb_comm_size', 'int32_t nb_comm_size(const nb_comm* c)');
  fn.nb_comm_set_timeout = bind('nb_comm_set_timeout', 'nb_status nb_comm_set_timeout(nb_comm* c, double timeout_s)');
  fn.nb_comm_retain = bind('nb_comm_retain', 'void nb_comm_retain(nb_comm* c)');
  fn.nb_comm_release = bind('nb_comm_release', 'void nb_comm_release(nb_comm* c)');
  fn.nb_comm_finalize = bind('nb_comm_finalize', 'nb_status nb_comm_finalize()');
  fn.nb_comm_abort = bind('nb_comm_abort', 'nb_status nb_comm_abort(nb_comm* c, int32_t code)');
  fn.nb_comm_all_reduce = bind('nb_comm_all_reduce', 'nb_status nb_comm_all_reduce(nb_comm* c, nb_tensor* t, int32_t op, nb_work** work)');
  fn.nb_comm_broadcast = bind('nb_comm_broadcast', 'nb_status nb_comm_broadcast(nb_comm* c, nb_tensor* t, int32_t root, nb_work** work)');
  fn.nb_comm_reduce = bind('nb_comm_reduce', 'nb_status nb_comm_reduce(nb_comm* c, nb_tensor* t, int32_t root, int32_t op, nb_work** work)');
  fn.nb_comm_all_gather = bind('nb_comm_all_gather', 'nb_status nb_comm_all_gather(nb_comm* c, nb_tensor* output, const nb_tensor* input, nb_work** work)');
  fn.nb_comm_all_gather_list = bind('nb_comm_all_gather_list', 'nb_status nb_comm_all_gather_list(nb_comm* c, nb_tensor* const* outputs, int32_t n, const nb_tensor* input, nb_work** work)');
  fn.nb_comm_reduce_scatter = bind('nb_comm_reduce_scatter', 'nb_status nb_comm_reduce_scatter(nb_comm* c, nb_tensor* output, const nb_tensor* input, int32_t op, nb_work** work)');
  fn.nb_comm_gather = bind('nb_comm_gather', 'nb_status nb_comm_gather(nb_comm* c, nb_tensor* output, const nb_tensor* input, int32_t root, nb_work** work)');
  fn.nb_comm_scatter = bind('nb_comm_scatter', 'nb_status nb_comm_scatter(nb_comm* c, nb_tensor* output, const nb_tensor* input, int32_t root, nb_work** work)');
  fn.nb_comm_all_to_all = bind('nb_comm_all_to_all', 'nb_status nb_comm_all_to_all(nb_comm* c, nb_tensor* output, const nb_tensor* input, const int64_t* output_splits, const int64_t* input_splits, int32_t n_splits, nb_work** work)');
  fn.nb_comm_send = bind('nb_comm_send', 'nb_status nb_comm_send(nb_comm* c, const nb_tensor* t, int32_t dst, int32_t tag, nb_work** work)');
  fn.nb_comm_recv = bind('nb_comm_recv', 'nb_status nb_comm_recv(nb_comm* c, nb_tensor* t, int32_t src, int32_t tag, nb_work** work)');
  fn.nb_comm_batch_isend_irecv = bind('nb_comm_batch_isend_irecv', 'nb_status nb_comm_batch_isend_irecv(nb_comm* c, int32_t n, const int32_t* kinds, nb_tensor* const* tensors, const int32_t* peers, const int32_t* tags, nb_work** work)');
  fn.nb_comm_barrier = bind('nb_comm_barrier', 'nb_status nb_comm_barrier(nb_comm* c, nb_work** work)');
  fn.nb_work_wait = bind('nb_work_wait', 'nb_status nb_work_wait(nb_work* w)');
  fn.nb_work_test = bind('nb_work_test', 'nb_status nb_work_test(nb_work* w, int32_t* done)');
  fn.nb_work_release = bind('nb_work_release', 'void nb_work_release(nb_work* w)');
  fn.nb_comm_nccl_available = bind('nb_comm_nccl_available', 'nb_status nb_comm_nccl_available(const char* library, int32_t* version)');
  fn.nb_comm_init_nccl = bind('nb_comm_init_nccl', 'nb_status nb_comm_init_nccl(nb_comm* bootstrap, const char* library, int32_t device_index, nb_comm** out)');
  fn.nb_amp_foreach_non_finite_check_and_unscale_ = bind('nb_amp_foreach_non_finite_check_and_unscale_', 'nb_status nb_amp_foreach_non_finite_check_and_unscale_(nb_tensor* const* grads, int32_t n, nb_tensor* found_inf, const nb_tensor* inv_scale)');
  fn.nb_amp_update_scale_ = bind('nb_amp_update_scale_', 'nb_status nb_amp_update_scale_(nb_tensor* scale, nb_tensor* growth_tracker, const nb_tensor* found_inf, double growth_factor, double backoff_factor, int64_t growth_interval)');
  fn.nb_scaled_dot_product_attention = bind('nb_scaled_dot_product_attention', 'nb_status nb_scaled_dot_product_attention(const nb_tensor* q, const nb_tensor* k, const nb_tensor* v, const nb_tensor* attn_mask, double dropout_p, int32_t is_causal, double scale, nb_generator* gen, nb_tensor** out)');
  fn.nb_add = bind('nb_add', 'nb_status nb_add(const nb_tensor* a, const nb_tensor* b, double alpha, nb_tensor* dst, nb_tensor** out)');
  fn.nb_sub = bind('nb_sub', 'nb_status nb_sub(const nb_tensor* a, const nb_tensor* b, double alpha, nb_tensor* dst, nb_tensor** out)');
  fn.nb_mul = bind('nb_mul', 'nb_status nb_mul(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out)');
  fn.nb_div = bind('nb_div', 'nb_status nb_div(const nb_tensor* a, const nb_tensor* b, int32_t rounding_mode, nb_tensor* dst, nb_tensor** out)');
  fn.nb_floor_divide = bind('nb_floor_divide', 'nb_status nb_floor_divide(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out)');
  fn.nb_remainder = bind('nb_remainder', 'nb_status nb_remainder(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out)');
  fn.nb_fmod = bind('nb_fmod', 'nb_status nb_fmod(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out)');
  fn.nb_pow = bind('nb_pow', 'nb_status nb_pow(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out)');
  fn.nb_maximum = bind('nb_maximum', 'nb_status nb_maximum(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out)');
  fn.nb_minimum = bind('nb_minimum', 'nb_status nb_minimum(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out)');
  fn.nb_atan2 = bind('nb_atan2', 'nb_status nb_atan2(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out)');
  fn.nb_igamma = bind('nb_igamma', 'nb_status nb_igamma(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out)');
  fn.nb_igammac = bind('nb_igammac', 'nb_status nb_igammac(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out)');
  fn.nb_nextafter = bind('nb_nextafter', 'nb_status nb_nextafter(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out)');
  fn.nb_eq = bind('nb_eq', 'nb_status nb_eq(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out)');
  fn.nb_ne = bind('nb_ne', 'nb_status nb_ne(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out)');
  fn.nb_lt = bind('nb_lt', 'nb_status nb_lt(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out)');
  fn.nb_le = bind('nb_le', 'nb_status nb_le(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out)');
  fn.nb_gt = bind('nb_gt', 'nb_status nb_gt(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out)');
  fn.nb_ge = bind('nb_ge', 'nb_status nb_ge(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out)');
  fn.nb_logical_and = bind('nb_logical_and', 'nb_status nb_logical_and(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out)');
  fn.nb_logical_or = bind('nb_logical_or', 'nb_status nb_logical_or(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out)');
  fn.nb_logical_xor = bind('nb_logical_xor', 'nb_status nb_logical_xor(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out)');
  fn.nb_bitwise_and = bind('nb_bitwise_and', 'nb_status nb_bitwise_and(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out)');
  fn.nb_bitwise_or = bind('nb_bitwise_or', 'nb_status nb_bitwise_or(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out)');
  fn.nb_bitwise_xor = bind('nb_bitwise_xor', 'nb_status nb_bitwise_xor(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out)');
  fn.nb_bitwise_left_shift = bind('nb_bitwise_left_shift', 'nb_status nb_bitwise_left_shift(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out)');
  fn.nb_bitwise_right_shift = bind('nb_bitwise_right_shift', 'nb_status nb_bitwise_right_shift(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out)');
  fn.nb_gather = bind('nb_gather', 'nb_status nb_gather(const nb_tensor* x, int64_t dim, const nb_tensor* index, nb_tensor** out)');
  fn.nb_scatter = bind('nb_scatter', 'nb_status nb_scatter(const nb_tensor* x, int64_t dim, const nb_tensor* index, const nb_tensor* src, nb_tensor* dst, nb_tensor** out)');
  fn.nb_scatter_value = bind('nb_scatter_value', 'nb_status nb_scatter_value(const nb_tensor* x, int64_t dim, const nb_tensor* index, const nb_tensor* value, nb_tensor* dst, nb_tensor** out)');
  fn.nb_scatter_add = bind('nb_scatter_add', 'nb_status nb_scatter_add(const nb_tensor* x, int64_t dim, const nb_tensor* index, const nb_tensor* src, nb_tensor* dst, nb_tensor** out)');
  fn.nb_scatter_reduce = bind('nb_scatter_reduce', 'nb_status nb_scatter_reduce(const nb_tensor* x, int64_t dim, const nb_tensor* index, const nb_tensor* src, int32_t reduce, int32_t include_self, nb_tensor* dst, nb_tensor** out)');
  fn.nb_index_select = bind('nb_index_select', 'nb_status nb_index_select(const nb_tensor* x, int64_t dim, const nb_tensor* index, nb_tensor** out)');
  fn.nb_index_add = bind('nb_index_add', 'nb_status nb_index_add(const nb_tensor* x, int64_t dim, const nb_tensor* index, const nb_tensor* source, double alpha, nb_tensor* dst, nb_tensor** out)');
  fn.nb_masked_fill = bind('nb_masked_fill', 'nb_status nb_masked_fill(const nb_tensor* x, const nb_tensor* mask, const nb_tensor* value, nb_tensor* dst, nb_tensor** out)');
  fn.nb_masked_select = bind('nb_masked_select', 'nb_status nb_masked_select(const nb_tensor* x, const nb_tensor* mask, nb_tensor** out)');
  fn.nb_nonzero = bind('nb_nonzero', 'nb_status nb_nonzero(const nb_tensor* x, nb_tensor** out)');
  fn.nb_take_along_dim = bind('nb_take_along_dim', 'nb_status nb_take_along_dim(const nb_tensor* x, const nb_tensor* indices, int64_t dim, int32_t has_dim, nb_tensor** out)');
  fn.nb_one_hot = bind('nb_one_hot', 'nb_status nb_one_hot(const nb_tensor* x, int64_t num_classes, nb_tensor** out)');
  fn.nb_index = bind('nb_index', 'nb_status nb_index(const nb_tensor* x, const nb_tensor* const* indices, int32_t n, nb_tensor** out)');
  fn.nb_index_put = bind('nb_index_put', 'nb_status nb_index_put(const nb_tensor* x, const nb_tensor* const* indices, int32_t n, const nb_tensor* values, int32_t accumulate, nb_tensor* dst, nb_tensor** out)');
  fn.nb_matmul = bind('nb_matmul', 'nb_status nb_matmul(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out)');
  fn.nb_mm = bind('nb_mm', 'nb_status nb_mm(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out)');
  fn.nb_bmm = bind('nb_bmm', 'nb_status nb_bmm(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out)');
  fn.nb_mv = bind('nb_mv', 'nb_status nb_mv(const nb_tensor* a, const nb_tensor* v, nb_tensor* dst, nb_tensor** out)');
  fn.nb_dot = bind('nb_dot', 'nb_status nb_dot(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out)');
  fn.nb_outer = bind('nb_outer', 'nb_status nb_outer(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out)');
  fn.nb_addmm = bind('nb_addmm', 'nb_status nb_addmm(const nb_tensor* input, const nb_tensor* mat1, const nb_tensor* mat2, double beta, double alpha, nb_tensor* dst, nb_tensor** out)');
  fn.nb_baddbmm = bind('nb_baddbmm', 'nb_status nb_baddbmm(const nb_tensor* input, const nb_tensor* batch1, const nb_tensor* batch2, double beta, double alpha, nb_tensor* dst, nb_tensor** out)');
  fn.nb_linear = bind('nb_linear', 'nb_status nb_linear(const nb_tensor* input, const nb_tensor* weight, const nb_tensor* bias, nb_tensor* dst, nb_tensor** out)');
  fn.nb_linalg_inv = bind('nb_linalg_inv', 'nb_status nb_linalg_inv(const nb_tensor* A, nb_tensor** out)');
  fn.nb_linalg_solve = bind('nb_linalg_solve', 'nb_status nb_linalg_solve(const nb_tensor* A, const nb_tensor* B, int32_t left, nb_tensor** out)');
  fn.nb_linalg_det = bind('nb_linalg_det', 'nb_status nb_linalg_det(const nb_tensor* A, nb_tensor** out)');
  fn.nb_linalg_slogdet = bind('nb_linalg_slogdet', 'nb_status nb_linalg_slogdet(const nb_tensor* A, nb_tensor** sign, nb_tensor** logabsdet)');
  fn.nb_linalg_cholesky = bind('nb_linalg_cholesky', 'nb_status nb_linalg_cholesky(const nb_tensor* A, int32_t upper, nb_tensor** out)');
  fn.nb_linalg_qr = bind('nb_linalg_qr', 'nb_status nb_linalg_qr(const nb_tensor* A, int32_t mode, nb_tensor** Q, nb_tensor** R)');
  fn.nb_linalg_eigh = bind('nb_linalg_eigh', 'nb_status nb_linalg_eigh(const nb_tensor* A, int32_t upper, nb_tensor** eigenvalues, nb_tensor** eigenvectors)');
  fn.nb_linalg_svd = bind('nb_linalg_svd', 'nb_status nb_linalg_svd(const nb_tensor* A, int32_t full_matrices, nb_tensor** U, nb_tensor** S, nb_tensor** Vh)');
  fn.nb_linalg_inv_ex = bind('nb_linalg_inv_ex', 'nb_status nb_linalg_inv_ex(const nb_tensor* A, nb_tensor** inverse, nb_tensor** info)');
  fn.nb_linalg_solve_ex = bind('nb_linalg_solve_ex', 'nb_status nb_linalg_solve_ex(const nb_tensor* A, const nb_tensor* B, int32_t left, nb_tensor** result, nb_tensor** info)');
  fn.nb_linalg_cholesky_ex = bind('nb_linalg_cholesky_ex', 'nb_status nb_linalg_cholesky_ex(const nb_tensor* A, int32_t upper, nb_tensor** L, nb_tensor** info)');
  fn.nb_linalg_solve_triangular = bind('nb_linalg_solve_triangular', 'nb_status nb_linalg_solve_triangular(const nb_tensor* A, const nb_tensor* B, int32_t upper, int32_t left, int32_t unitriangular, nb_tensor** out)');
  fn.nb_linalg_ldl_factor_ex = bind('nb_linalg_ldl_factor_ex', 'nb_status nb_linalg_ldl_factor_ex(const nb_tensor* A, int32_t hermitian, nb_tensor** LD, nb_tensor** pivots, nb_tensor** info)');
  fn.nb_linalg_ldl_solve = bind('nb_linalg_ldl_solve', 'nb_status nb_linalg_ldl_solve(const nb_tensor* LD, const nb_tensor* pivots, const nb_tensor* B, int32_t hermitian, nb_tensor** out)');
  fn.nb_conv1d = bind('nb_conv1d', 'nb_status nb_conv1d(const nb_tensor* input, const nb_tensor* weight, const nb_tensor* bias, int64_t stride, int64_t padding_left, int64_t padding_right, int64_t dilation, int64_t groups, nb_tensor* dst, nb_tensor** out)');
  fn.nb_conv2d = bind('nb_conv2d', 'nb_status nb_conv2d(const nb_tensor* input, const nb_tensor* weight, const nb_tensor* bias, const int64_t* stride, const int64_t* padding, const int64_t* dilation, int64_t groups, nb_tensor* dst, nb_tensor** out)');
  fn.nb_conv_transpose2d = bind('nb_conv_transpose2d', 'nb_status nb_conv_transpose2d(const nb_tensor* input, const nb_tensor* weight, const nb_tensor* bias, const int64_t* stride, const int64_t* padding, const int64_t* output_padding, const int64_t* dilation, int64_t groups, nb_tensor* dst, nb_tensor** out)');
  fn.nb_max_pool2d = bind('nb_max_pool2d', 'nb_status nb_max_pool2d(const nb_tensor* input, const int64_t* kernel_size, const int64_t* stride, const int64_t* padding, const int64_t* dilation, int32_t ceil_mode, nb_tensor** indices, nb_tensor* dst, nb_tensor** out)');
  fn.nb_avg_pool2d = bind('nb_avg_pool2d', 'nb_status nb_avg_pool2d(const nb_tensor* input, const int64_t* kernel_size, const int64_t* stride, const int64_t* padding, int32_t ceil_mode, int32_t count_include_pad, int64_t divisor_override, nb_tensor* dst, nb_tensor** out)');
  fn.nb_adaptive_avg_pool2d = bind('nb_adaptive_avg_pool2d', 'nb_status nb_adaptive_avg_pool2d(const nb_tensor* input, const int64_t* output_size, nb_tensor* dst, nb_tensor** out)');
  fn.nb_layer_norm = bind('nb_layer_norm', 'nb_status nb_layer_norm(const nb_tensor* input, const int64_t* normalized_shape, int32_t ndim, const nb_tensor* weight, const nb_tensor* bias, double eps, nb_tensor* dst, nb_tensor** out)');
  fn.nb_batch_norm = bind('nb_batch_norm', 'nb_status nb_batch_norm(const nb_tensor* input, nb_tensor* running_mean, nb_tensor* running_var, const nb_tensor* weight, const nb_tensor* bias, int32_t training, double momentum, double eps, nb_tensor* dst, nb_tensor** out)');
  fn.nb_group_norm = bind('nb_group_norm', 'nb_status nb_group_norm(const nb_tensor* input, int64_t num_groups, const nb_tensor* weight, const nb_tensor* bias, double eps, nb_tensor* dst, nb_tensor** out)');
  fn.nb_nll_loss = bind('nb_nll_loss', 'nb_status nb_nll_loss(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight, int64_t ignore_index, int32_t reduction, nb_tensor* dst, nb_tensor** out)');
  fn.nb_cross_entropy = bind('nb_cross_entropy', 'nb_status nb_cross_entropy(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight, int64_t ignore_index, int32_t reduction, double label_smoothing, nb_tensor* dst, nb_tensor** out)');
  fn.nb_mse_loss = bind('nb_mse_loss', 'nb_status nb_mse_loss(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight, int32_t reduction, nb_tensor* dst, nb_tensor** out)');
  fn.nb_l1_loss = bind('nb_l1_loss', 'nb_status nb_l1_loss(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight, int32_t reduction, nb_tensor* dst, nb_tensor** out)');
  fn.nb_smooth_l1_loss = bind('nb_smooth_l1_loss', 'nb_status nb_smooth_l1_loss(const nb_tensor* input, const nb_tensor* target, int32_t reduction, double beta, nb_tensor* dst, nb_tensor** out)');
  fn.nb_huber_loss = bind('nb_huber_loss', 'nb_status nb_huber_loss(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight, int32_t reduction, double delta, nb_tensor* dst, nb_tensor** out)');
  fn.nb_binary_cross_entropy = bind('nb_binary_cross_entropy', 'nb_status nb_binary_cross_entropy(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight, int32_t reduction, nb_tensor* dst, nb_tensor** out)');
  fn.nb_binary_cross_entropy_with_logits = bind('nb_binary_cross_entropy_with_logits', 'nb_status nb_binary_cross_entropy_with_logits(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight, const nb_tensor* pos_weight, int32_t reduction, nb_tensor* dst, nb_tensor** out)');
  fn.nb_kl_div = bind('nb_kl_div', 'nb_status nb_kl_div(const nb_tensor* input, const nb_tensor* target, int32_t reduction, int32_t log_target, nb_tensor* dst, nb_tensor** out)');
  fn.nb_embedding = bind('nb_embedding', 'nb_status nb_embedding(const nb_tensor* weight, const nb_tensor* indices, int64_t padding_idx, nb_tensor* dst, nb_tensor** out)');
  fn.nb_pad = bind('nb_pad', 'nb_status nb_pad(const nb_tensor* input, const int64_t* pad, int32_t npad, int32_t mode, double value, nb_tensor* dst, nb_tensor** out)');
  fn.nb_conv2d_backward_input = bind('nb_conv2d_backward_input', 'nb_status nb_conv2d_backward_input(const nb_tensor* grad_output, const nb_tensor* weight, const int64_t* input_size, const int64_t* stride, const int64_t* padding, const int64_t* dilation, int64_t groups, nb_tensor* dst, nb_tensor** out)');
  fn.nb_conv2d_backward_weight = bind('nb_conv2d_backward_weight', 'nb_status nb_conv2d_backward_weight(const nb_tensor* grad_output, const nb_tensor* input, const int64_t* kernel_size, const int64_t* stride, const int64_t* padding, const int64_t* dilation, int64_t groups, nb_tensor* dst, nb_tensor** out)');
  fn.nb_max_pool2d_backward = bind('nb_max_pool2d_backward', 'nb_status nb_max_pool2d_backward(const nb_tensor* grad_output, const nb_tensor* indices, const int64_t* input_size, nb_tensor* dst, nb_tensor** out)');
  fn.nb_avg_pool2d_backward = bind('nb_avg_pool2d_backward', 'nb_status nb_avg_pool2d_backward(const nb_tensor* grad_output, const int64_t* input_size, const int64_t* kernel_size, const int64_t* stride, const int64_t* padding, int32_t count_include_pad, int64_t divisor_override, nb_tensor* dst, nb_tensor** out)');
  fn.nb_adaptive_avg_pool2d_backward = bind('nb_adaptive_avg_pool2d_backward', 'nb_status nb_adaptive_avg_pool2d_backward(const nb_tensor* grad_output, const int64_t* input_size, nb_tensor* dst, nb_tensor** out)');
  fn.nb_layer_norm_backward = bind('nb_layer_norm_backward', 'nb_status nb_layer_norm_backward(const nb_tensor* grad_output, const nb_tensor* input, const int64_t* normalized_shape, int32_t ndim, const nb_tensor* weight, double eps, nb_tensor** grad_weight, nb_tensor** grad_bias, nb_tensor* dst, nb_tensor** out)');
  fn.nb_batch_norm_backward = bind('nb_batch_norm_backward', 'nb_status nb_batch_norm_backward(const nb_tensor* grad_output, const nb_tensor* input, const nb_tensor* weight, double eps, nb_tensor** grad_weight, nb_tensor** grad_bias, nb_tensor* dst, nb_tensor** out)');
  fn.nb_group_norm_backward = bind('nb_group_norm_backward', 'nb_status nb_group_norm_backward(const nb_tensor* grad_output, const nb_tensor* input, int64_t num_groups, const nb_tensor* weight, double eps, nb_tensor** grad_weight, nb_tensor** grad_bias, nb_tensor* dst, nb_tensor** out)');
  fn.nb_embedding_dense_backward = bind('nb_embedding_dense_backward', 'nb_status nb_embedding_dense_backward(const nb_tensor* grad_output, const nb_tensor* indices, int64_t num_weights, int64_t padding_idx, int32_t scale_grad_by_freq, nb_tensor* dst, nb_tensor** out)');
  fn.nb_gelu_backward = bind('nb_gelu_backward', 'nb_status nb_gelu_backward(const nb_tensor* grad_output, const nb_tensor* input, int32_t approximate_tanh, nb_tensor* dst, nb_tensor** out)');
  fn.nb_sgd_step = bind('nb_sgd_step', 'nb_status nb_sgd_step(nb_tensor* param, const nb_tensor* grad, nb_tensor* momentum_buffer, double lr, double momentum, double dampening, double weight_decay, int32_t nesterov, int32_t maximize, int32_t init_buffer)');
  fn.nb_adam_step = bind('nb_adam_step', 'nb_status nb_adam_step(nb_tensor* param, const nb_tensor* grad, nb_tensor* exp_avg, nb_tensor* exp_avg_sq, nb_tensor* max_exp_avg_sq, int64_t step, double lr, double beta1, double beta2, double eps, double weight_decay, int32_t decoupled_weight_decay, int32_t amsgrad, int32_t maximize)');
  fn.nb_rmsprop_step = bind('nb_rmsprop_step', 'nb_status nb_rmsprop_step(nb_tensor* param, const nb_tensor* grad, nb_tensor* square_avg, nb_tensor* grad_avg, nb_tensor* momentum_buffer, double lr, double alpha, double eps, double weight_decay, double momentum, int32_t centered, int32_t maximize)');
  fn.nb_adagrad_step = bind('nb_adagrad_step', 'nb_status nb_adagrad_step(nb_tensor* param, const nb_tensor* grad, nb_tensor* state_sum, int64_t step, double lr, double lr_decay, double eps, double weight_decay, int32_t maximize)');
  fn.nb_sgd_step_list = bind('nb_sgd_step_list', 'nb_status nb_sgd_step_list(nb_tensor* const* params, const nb_tensor* const* grads, nb_tensor* const* momentum_buffers, int64_t count, double lr, double momentum, double dampening, double weight_decay, int32_t nesterov, int32_t maximize, int32_t init_buffer)');
  fn.nb_adam_step_list = bind('nb_adam_step_list', 'nb_status nb_adam_step_list(nb_tensor* const* params, const nb_tensor* const* grads, nb_tensor* const* exp_avgs, nb_tensor* const* exp_avg_sqs, nb_tensor* const* max_exp_avg_sqs, const int64_t* steps, int64_t count, double lr, double beta1, double beta2, double eps, double weight_decay, int32_t decoupled_weight_decay, int32_t amsgrad, int32_t maximize)');
  fn.nb_rmsprop_step_list = bind('nb_rmsprop_step_list', 'nb_status nb_rmsprop_step_list(nb_tensor* const* params, const nb_tensor* const* grads, nb_tensor* const* square_avgs, nb_tensor* const* grad_avgs, nb_tensor* const* momentum_buffers, int64_t count, double lr, double alpha, double eps, double weight_decay, double momentum, int32_t centered, int32_t maximize)');
  fn.nb_adagrad_step_list = bind('nb_adagrad_step_list', 'nb_status nb_adagrad_step_list(nb_tensor* const* params, const nb_tensor* const* grads, nb_tensor* const* state_sums, const int64_t* steps, int64_t count, double lr, double lr_decay, double eps, double weight_decay, int32_t maximize)');
  fn.nb_clip_grad_norm_ = bind('nb_clip_grad_norm_', 'nb_status nb_clip_grad_norm_(nb_tensor* const* grads, int32_t n, double max_norm, double norm_type, int32_t error_if_nonfinite, nb_tensor** out)');
  fn.nb_clip_grad_value_ = bind('nb_clip_grad_value_', 'nb_status nb_clip_grad_value_(nb_tensor* const* grads, int32_t n, double clip_value)');
  fn.nb_generator_create = bind('nb_generator_create', 'nb_status nb_generator_create(uint64_t seed, nb_generator** out)');
  fn.nb_generator_release = bind('nb_generator_release', 'void nb_generator_release(nb_generator* gen)');
  fn.nb_default_generator = bind('nb_default_generator', 'nb_generator* nb_default_generator()');
  fn.nb_manual_seed = bind('nb_manual_seed', 'nb_status nb_manual_seed(uint64_t seed)');
  fn.nb_generator_manual_seed = bind('nb_generator_manual_seed', 'nb_status nb_generator_manual_seed(nb_generator* gen, uint64_t seed)');
  fn.nb_generator_seed = bind('nb_generator_seed', 'nb_status nb_generator_seed(nb_generator* gen, uint64_t* out)');
  fn.nb_generator_get_state = bind('nb_generator_get_state', 'nb_status nb_generator_get_state(nb_generator* gen, uint64_t* seed, uint64_t* offset)');
  fn.nb_generator_set_state = bind('nb_generator_set_state', 'nb_status nb_generator_set_state(nb_generator* gen, uint64_t seed, uint64_t offset)');
  fn.nb_rand = bind('nb_rand', 'nb_status nb_rand(const int64_t* shape, int32_t ndim, int32_t dtype, int32_t device_type, int32_t device_index, nb_generator* gen, nb_tensor* dst, nb_tensor** out)');
  fn.nb_randn = bind('nb_randn', 'nb_status nb_randn(const int64_t* shape, int32_t ndim, int32_t dtype, int32_t device_type, int32_t device_index, nb_generator* gen, nb_tensor* dst, nb_tensor** out)');
  fn.nb_randint = bind('nb_randint', 'nb_status nb_randint(int64_t low, int64_t high, const int64_t* shape, int32_t ndim, int32_t dtype, int32_t device_type, int32_t device_index, nb_generator* gen, nb_tensor* dst, nb_tensor** out)');
  fn.nb_randperm = bind('nb_randperm', 'nb_status nb_randperm(int64_t n, int32_t dtype, int32_t device_type, int32_t device_index, nb_generator* gen, nb_tensor* dst, nb_tensor** out)');
  fn.nb_uniform_ = bind('nb_uniform_', 'nb_status nb_uniform_(nb_tensor* t, double from, double to, nb_generator* gen)');
  fn.nb_normal_ = bind('nb_normal_', 'nb_status nb_normal_(nb_tensor* t, double mean, double std, nb_generator* gen)');
  fn.nb_random_ = bind('nb_random_', 'nb_status nb_random_(nb_tensor* t, int64_t low, int64_t high_inclusive, nb_generator* gen)');
  fn.nb_bernoulli = bind('nb_bernoulli', 'nb_status nb_bernoulli(const nb_tensor* p, nb_generator* gen, nb_tensor* dst, nb_tensor** out)');
  fn.nb_bernoulli_scalar = bind('nb_bernoulli_scalar', 'nb_status nb_bernoulli_scalar(double p, const int64_t* shape, int32_t ndim, int32_t dtype, int32_t device_type, int32_t device_index, nb_generator* gen, nb_tensor* dst, nb_tensor** out)');
  fn.nb_multinomial = bind('nb_multinomial', 'nb_status nb_multinomial(const nb_tensor* probs, int64_t num_samples, int32_t replacement, nb_generator* gen, nb_tensor* dst, nb_tensor** out)');
  fn.nb_dropout = bind('nb_dropout', 'nb_status nb_dropout(const nb_tensor* x, double p, int32_t train, nb_generator* gen, nb_tensor* dst, nb_tensor** out)');
  fn.nb_sum = bind('nb_sum', 'nb_status nb_sum(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, int32_t dtype, nb_tensor* dst, nb_tensor** out)');
  fn.nb_mean = bind('nb_mean', 'nb_status nb_mean(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, int32_t dtype, nb_tensor* dst, nb_tensor** out)');
  fn.nb_prod = bind('nb_prod', 'nb_status nb_prod(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, int32_t dtype, nb_tensor* dst, nb_tensor** out)');
  fn.nb_amax = bind('nb_amax', 'nb_status nb_amax(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, nb_tensor* dst, nb_tensor** out)');
  fn.nb_amin = bind('nb_amin', 'nb_status nb_amin(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, nb_tensor* dst, nb_tensor** out)');
  fn.nb_max_dim = bind('nb_max_dim', 'nb_status nb_max_dim(const nb_tensor* t, int64_t dim, int32_t keepdim, nb_tensor* dst_values, nb_tensor* dst_indices, nb_tensor** values, nb_tensor** indices)');
  fn.nb_min_dim = bind('nb_min_dim', 'nb_status nb_min_dim(const nb_tensor* t, int64_t dim, int32_t keepdim, nb_tensor* dst_values, nb_tensor* dst_indices, nb_tensor** values, nb_tensor** indices)');
  fn.nb_argmax = bind('nb_argmax', 'nb_status nb_argmax(const nb_tensor* t, const int64_t* dim, int32_t keepdim, nb_tensor* dst, nb_tensor** out)');
  fn.nb_argmin = bind('nb_argmin', 'nb_status nb_argmin(const nb_tensor* t, const int64_t* dim, int32_t keepdim, nb_tensor* dst, nb_tensor** out)');
  fn.nb_var = bind('nb_var', 'nb_status nb_var(const nb_tensor* t, const int64_t* dims, int32_t ndims, double correction, int32_t keepdim, nb_tensor* dst, nb_tensor** out)');
  fn.nb_std = bind('nb_std', 'nb_status nb_std(const nb_tensor* t, const int64_t* dims, int32_t ndims, double correction, int32_t keepdim, nb_tensor* dst, nb_tensor** out)');
  fn.nb_norm = bind('nb_norm', 'nb_status nb_norm(const nb_tensor* t, double p, const int64_t* dims, int32_t ndims, int32_t keepdim, int32_t dtype, nb_tensor* dst, nb_tensor** out)');
  fn.nb_logsumexp = bind('nb_logsumexp', 'nb_status nb_logsumexp(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, nb_tensor* dst, nb_tensor** out)');
  fn.nb_all = bind('nb_all', 'nb_status nb_all(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, nb_tensor* dst, nb_tensor** out)');
  fn.nb_any = bind('nb_any', 'nb_status nb_any(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, nb_tensor* dst, nb_tensor** out)');
  fn.nb_cumsum = bind('nb_cumsum', 'nb_status nb_cumsum(const nb_tensor* t, int64_t dim, int32_t dtype, nb_tensor* dst, nb_tensor** out)');
  fn.nb_cumprod = bind('nb_cumprod', 'nb_status nb_cumprod(const nb_tensor* t, int64_t dim, int32_t dtype, nb_tensor* dst, nb_tensor** out)');
  fn.nb_softmax = bind('nb_softmax', 'nb_status nb_softmax(const nb_tensor* t, int64_t dim, int32_t dtype, nb_tensor* dst, nb_tensor** out)');
  fn.nb_log_softmax = bind('nb_log_softmax', 'nb_status nb_log_softmax(const nb_tensor* t, int64_t dim, int32_t dtype, nb_tensor* dst, nb_tensor** out)');
  fn.nb_cat = bind('nb_cat', 'nb_status nb_cat(const nb_tensor* const* tensors, int32_t n, int64_t dim, nb_tensor* dst, nb_tensor** out)');
  fn.nb_stack = bind('nb_stack', 'nb_status nb_stack(const nb_tensor* const* tensors, int32_t n, int64_t dim, nb_tensor* dst, nb_tensor** out)');
  fn.nb_flip = bind('nb_flip', 'nb_status nb_flip(const nb_tensor* x, const int64_t* dims, int32_t ndims, nb_tensor** out)');
  fn.nb_roll = bind('nb_roll', 'nb_status nb_roll(const nb_tensor* x, const int64_t* shifts, int32_t nshifts, const int64_t* dims, int32_t ndims, nb_tensor** out)');
  fn.nb_repeat = bind('nb_repeat', 'nb_status nb_repeat(const nb_tensor* x, const int64_t* repeats, int32_t n, nb_tensor** out)');
  fn.nb_tril = bind('nb_tril', 'nb_status nb_tril(const nb_tensor* x, int64_t diagonal, nb_tensor* dst, nb_tensor** out)');
  fn.nb_triu = bind('nb_triu', 'nb_status nb_triu(const nb_tensor* x, int64_t diagonal, nb_tensor* dst, nb_tensor** out)');
  fn.nb_sort = bind('nb_sort', 'nb_status nb_sort(const nb_tensor* x, int64_t dim, int32_t descending, int32_t stable, nb_tensor** values, nb_tensor** indices)');
  fn.nb_argsort = bind('nb_argsort', 'nb_status nb_argsort(const nb_tensor* x, int64_t dim, int32_t descending, int32_t stable, nb_tensor** out)');
  fn.nb_searchsorted = bind('nb_searchsorted', 'nb_status nb_searchsorted(const nb_tensor* sorted_sequence, const nb_tensor* values, int32_t right, int32_t out_int32, nb_tensor** out)');
  fn.nb_topk = bind('nb_topk', 'nb_status nb_topk(const nb_tensor* x, int64_t k, int64_t dim, int32_t largest, int32_t sorted, nb_tensor** values, nb_tensor** indices)');
  fn.nb_unique = bind('nb_unique', 'nb_status nb_unique(const nb_tensor* x, int32_t sorted, nb_tensor** values, nb_tensor** inverse, nb_tensor** counts)');
  fn.nb_unique_dim = bind('nb_unique_dim', 'nb_status nb_unique_dim(const nb_tensor* x, int64_t dim, int32_t sorted, nb_tensor** values, nb_tensor** inverse, nb_tensor** counts)');
  fn.nb_unique_consecutive = bind('nb_unique_consecutive', 'nb_status nb_unique_consecutive(const nb_tensor* x, int64_t dim, int32_t has_dim, nb_tensor** values, nb_tensor** inverse, nb_tensor** counts)');
  fn.nb_softmax_backward = bind('nb_softmax_backward', 'nb_status nb_softmax_backward(const nb_tensor* grad_output, const nb_tensor* output, int64_t dim, nb_tensor* dst, nb_tensor** out)');
  fn.nb_log_softmax_backward = bind('nb_log_softmax_backward', 'nb_status nb_log_softmax_backward(const nb_tensor* grad_output, const nb_tensor* output, int64_t dim, nb_tensor* dst, nb_tensor** out)');
  fn.nb_exp = bind('nb_exp', 'nb_status nb_exp(const nb_tensor* x, nb_tensor* dst, nb_tensor** out)');
  fn.nb_exp2 = bind('nb_exp2', 'nb_status nb_exp2(const nb_tensor* x, nb_tensor* dst, nb_tensor** out)');
  fn.nb_expm1 = bind('nb_expm1', 'nb_status nb_expm1(const nb_tensor* x, nb_tensor* dst, nb_tensor** out)');
  fn.nb_log = bind('nb_log', 'nb_status nb_log(const nb_tensor* x, nb_tensor* dst, nb_tensor** out)');
  fn.nb_log2 = bind('nb_log2', 'nb_status nb_log2(const nb_tensor* x, nb_tensor* dst, nb_tensor** out)');
  fn.nb_log10 = bind('nb_log10', 'nb_status nb_log10(const nb_tensor* x, nb_tensor* dst, nb_tensor** out)');
  fn.nb_log1p = bind('nb_log1p', 'nb_status nb_log1p(const nb_tensor* x, nb_tensor* dst, nb_tensor** out)');
  fn.nb_sqrt = bind('nb_sqrt', 'nb_status nb_sqrt(const nb_tensor* x, nb_tensor* dst, nb_tensor** out)');
  fn.nb_rsqrt = bind('nb_rsqrt', 'nb_status nb_rsqrt(const nb_tensor* x, nb_tensor* dst, nb_tensor** out)');
  fn.nb_sin = bind('nb_sin', 'nb_status nb_sin(const nb_tensor* x, nb_tensor* dst, nb_tensor** out)');
  fn.nb_cos = bind('nb_cos', 'nb_status nb_cos(const nb_tensor* x, nb_tensor* dst, nb_tensor** out)');
  fn.nb_tan = bind('nb_tan', 'nb_status nb_tan(const nb_tensor* x, nb_tensor* dst, nb_tensor** out)');
  fn.nb_asin = bind('nb_asin', 'nb_status nb_asin(const nb_tensor* x, nb_tensor* dst, nb_tensor** out)');
  fn.nb_acos = bind('nb_acos', 'nb_status nb_acos(const nb_tensor* x, nb_tensor* dst, nb_tensor** out)');
  fn.nb_atan = bind('nb_atan', 'nb_status nb_atan(const nb_tensor* x, nb_tensor* dst, nb_tensor** out)');
  fn.nb_sinh = bind('nb_sinh', 'nb_status nb_sinh(const nb_tensor* x, nb_tensor* dst, nb_tensor** out)');
  fn.nb_cosh = bind('nb_cosh', 'nb_status nb_cosh(const nb_tensor* x, nb_tensor* dst, nb_tensor** out)');
  fn.nb_tanh = bind('nb_tanh', 'nb_status nb_tanh(const nb_tensor* x, nb_tensor* dst, nb_tensor** out)');
  fn.nb_sigmoid = bind('nb_sigmoid', 'nb_status nb_sigmoid(const nb_tensor* x, nb_tensor* dst, nb_tensor** out)');
  fn.nb_erf = bind('nb_erf', 'nb_status nb_erf(const nb_tensor* x, nb_tensor* dst, nb_tensor** out)');
  fn.nb_erfc = bind('nb_erfc', 'nb_status nb_erfc(const nb_tensor* x, nb_tensor* dst, nb_tensor** out)');
  fn.nb_reciprocal = bind('nb_reciprocal', 'nb_status nb_reciprocal(const nb_tensor* x, nb_tensor* dst, nb_tensor** out)');
  fn.nb_silu = bind('nb_silu', 'nb_status nb_silu(const nb_tensor* x, nb_tensor* dst, nb_tensor** out)');
  fn.nb_gelu = bind('nb_gelu', 'nb_status nb_gelu(const nb_tensor* x, int32_t approximate_tanh, nb_tensor* dst, nb_tensor** out)');
  fn.nb_leaky_relu = bind('nb_leaky_relu', 'nb_status nb_leaky_relu(const nb_tensor* x, double negative_slope, nb_tensor* dst, nb_tensor** out)');
  fn.nb_elu = bind('nb_elu', 'nb_status nb_elu(const nb_tensor* x, double alpha, nb_tensor* dst, nb_tensor** out)');
  fn.nb_softplus = bind('nb_softplus', 'nb_status nb_softplus(const nb_tensor* x, double beta, double threshold, nb_tensor* dst, nb_tensor** out)');
  fn.nb_neg = bind('nb_neg', 'nb_status nb_neg(const nb_tensor* x, nb_tensor* dst, nb_tensor** out)');
  fn.nb_abs = bind('nb_abs', 'nb_status nb_abs(const nb_tensor* x, nb_tensor* dst, nb_tensor** out)');
  fn.nb_sign = bind('nb_sign', 'nb_status nb_sign(const nb_tensor* x, nb_tensor* dst, nb_tensor** out)');
  fn.nb_relu = bind('nb_relu', 'nb_status nb_relu(const nb_tensor* x, nb_tensor* dst, nb_tensor** out)');
  fn.nb_square = bind('nb_square', 'nb_status nb_square(const nb_tensor* x, nb_tensor* dst, nb_tensor** out)');
  fn.nb_floor = bind('nb_floor', 'nb_status nb_floor(const nb_tensor* x, nb_tensor* dst, nb_tensor** out)');
  fn.nb_ceil = bind('nb_ceil', 'nb_status nb_ceil(const nb_tensor* x, nb_tensor* dst, nb_tensor** out)');
  fn.nb_round = bind('nb_round', 'nb_status nb_round(const nb_tensor* x, nb_tensor* dst, nb_tensor** out)');
  fn.nb_trunc = bind('nb_trunc', 'nb_status nb_trunc(const nb_tensor* x, nb_tensor* dst, nb_tensor** out)');
  fn.nb_bitwise_not = bind('nb_bitwise_not', 'nb_status nb_bitwise_not(const nb_tensor* x, nb_tensor* dst, nb_tensor** out)');
  fn.nb_logical_not = bind('nb_logical_not', 'nb_status nb_logical_not(const nb_tensor* x, nb_tensor* dst, nb_tensor** out)');
  fn.nb_isnan = bind('nb_isnan', 'nb_status nb_isnan(const nb_tensor* x, nb_tensor* dst, nb_tensor** out)');
  fn.nb_isinf = bind('nb_isinf', 'nb_status nb_isinf(const nb_tensor* x, nb_tensor* dst, nb_tensor** out)');
  fn.nb_isfinite = bind('nb_isfinite', 'nb_status nb_isfinite(const nb_tensor* x, nb_tensor* dst, nb_tensor** out)');
  fn.nb_nan_to_num = bind('nb_nan_to_num', 'nb_status nb_nan_to_num(const nb_tensor* x, double nan, double posinf, double neginf, nb_tensor* dst, nb_tensor** out)');
  fn.nb_clamp = bind('nb_clamp', 'nb_status nb_clamp(const nb_tensor* x, double min, double max, nb_tensor* dst, nb_tensor** out)');
  fn.nb_where = bind('nb_where', 'nb_status nb_where(const nb_tensor* condition, const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out)');
  return { types, fn, missing };
}

module.exports = { VERSION, MAX_DIMS, CONSTANTS, FUNCTIONS, CALLBACKS, declare };
