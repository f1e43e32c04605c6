// abi.generated.d.ts: TypeScript types of the nabla C ABI as koffi binds it. GENERATED
// from abi/nabla.json by abi/gen.py (abi/gen_node.py); do not edit.

/** An address (koffi 3 passes pointers as BigInt). */
export type Pointer = bigint;
/** A function registered with koffi.register (its slot is released with koffi.unregister). */
export type RegisteredCallback = unknown;

export declare const VERSION: readonly [number, number, number];
export declare const MAX_DIMS: number;

/** A status code: NB_OK or one of NB_ERR_*. */
export type nb_status = number;

/** An n-dimensional array: storage + dtype + shape + strides (elements) + offset. Atomically refcounted; views share storage. */
export type nb_tensor = Pointer & { readonly __nb_tensor?: never };

/** An ordered queue of device work (a CUDA stream; on CPU every operation is already complete). Atomically refcounted (nb_stream_retain / nb_stream_release); default streams live as long as the process. The current stream is per thread and per device. */
export type nb_stream = Pointer & { readonly __nb_stream?: never };

/** A marker in a stream's work, for waiting, ordering streams and timing (a CUDA event; on CPU it records the host clock). Atomically refcounted. */
export type nb_event = Pointer & { readonly __nb_event?: never };

/** A random number generator: a seed and an offset into its Philox-4x32-10 stream. Each op reserves a run of blocks from the offset and element i of its result is computed from block offset + i / k alone (k = 4 for values from 32 bits, 2 for values from 64), keyed by the seed, so results do not depend on the thread count or the device (the convention is in src/ops/philox.h). Thread-safe; not refcounted; NULL wherever a generator is taken means the process default generator. */
export type nb_generator = Pointer & { readonly __nb_generator?: never };

/** Releases memory handed to nb_tensor_from_external; called once, on whichever thread drops the last reference. */
export type nb_deleter_fn = (payload: Pointer | null) => void;

/** Allocator counters. Set struct_size to sizeof(nb_memory_stats) before the call; fields are only ever appended. */
export interface nb_memory_stats {
  /** size of the struct the caller allocated */
  struct_size: number;
  /** padding; zero */
  reserved0: number;
  /** bytes in live blocks (rounded to their size class) */
  allocated_bytes: number | bigint;
  /** maximum of allocated_bytes since start or nb_memory_reset_peak */
  peak_allocated_bytes: number | bigint;
  /** bytes held in free lists, ready for reuse */
  cached_bytes: number | bigint;
  /** allocations served */
  alloc_count: number | bigint;
  /** blocks returned */
  free_count: number | bigint;
  /** allocations that reached the system allocator */
  system_alloc_count: number | bigint;
  /** blocks given back to the system allocator */
  system_free_count: number | bigint;
  /** nb_tensor objects alive */
  live_tensors: number | bigint;
  /** storages alive */
  live_storages: number | bigint;
  /** bytes obtained from the system or device (allocated + cached) */
  reserved_bytes: number | bigint;
  /** maximum of reserved_bytes */
  peak_reserved_bytes: number | bigint;
  /** allocated bytes plus freed blocks still awaiting work on other streams */
  active_bytes: number | bigint;
  /** maximum of active_bytes */
  peak_active_bytes: number | bigint;
  /** bytes callers asked for, before rounding (device allocators) */
  requested_bytes: number | bigint;
  /** maximum of requested_bytes */
  peak_requested_bytes: number | bigint;
  /** free bytes in segments that also hold live blocks (fragmentation) */
  inactive_split_bytes: number | bigint;
  /** segments reserved from the device */
  segment_count: number | bigint;
  /** allocations that had to release the cache and retry */
  alloc_retries: number | bigint;
  /** allocations that failed for lack of memory */
  oom_count: number | bigint;
  /** the largest cached free block */
  largest_free_block: number | bigint;
}

/** Called on the calling thread before work that may take long; returns a token for the matching end call (a binding releases its interpreter lock here). */
export type nb_blocking_begin_fn = () => Pointer | null;

/** Called on the same thread after that work with the token begin returned. */
export type nb_blocking_end_fn = (token: Pointer | null) => void;

/** A node of the autograd graph (a tensor's grad_fn): the backward of one recorded op. Refcounted with nb_node_retain / nb_node_release. */
export type nb_node = Pointer & { readonly __nb_node?: never };

/** A tensor hook: sees the gradient computed for a tensor during backward; may store a new reference in *replacement to use instead. Returns NB_OK or a status (message through nb_set_error), which aborts the backward pass. Runs on the thread that runs backward. */
export type nb_grad_hook_fn = (payload: Pointer | null, grad: nb_tensor | null, replacement: Pointer | null) => number;

/** A post-accumulate-grad hook: sees the leaf t (borrowed) right after its gradient was accumulated into .grad during backward. Returns NB_OK or a status (message through nb_set_error), which aborts the backward pass. Runs on the thread that runs backward. */
export type nb_post_accumulate_hook_fn = (payload: Pointer | null, t: nb_tensor | null) => number;

/** A profiler stack source: writes the calling thread's call stack into buf as text, one frame per line (separated by '\n'), innermost first, NUL-terminated within cap bytes, and returns the full length without the NUL (as snprintf does; the core calls again with a larger buffer when it did not fit); a negative value or 0: no stack. Called on the thread that calls an op, at the op's start, while a session with NB_PROFILE_STACK runs; ops it calls itself are recorded without a stack. */
export type nb_stack_source_fn = (payload: Pointer | null, buf: Pointer | null, cap: number | bigint) => number | bigint;

/** A saved-tensor pack hook: sees each tensor an autograd node saves while its hooks are pushed (borrowed) and stores in *packed what the node keeps instead (retain t to keep the tensor itself). Returns NB_OK or a status (message through nb_set_error), which fails the op that saved it. Tensors saved while it runs are not packed again. */
export type nb_saved_pack_fn = (payload: Pointer | null, t: nb_tensor | null, packed: Pointer | null) => number;

/** A saved-tensor unpack hook: stores in *out a new reference to the tensor that *packed stands for. Called each time backward reads the saved tensor, on the thread running backward; a status aborts the backward pass. */
export type nb_saved_unpack_fn = (payload: Pointer | null, packed: Pointer | null, out: Pointer | null) => number;

/** Frees a value a pack hook returned, when the node that saved it lets go of its saved tensors. */
export type nb_saved_free_fn = (payload: Pointer | null, packed: Pointer | null) => void;

/** The backward of a custom function: given the gradients of its outputs (never NULL; zeros for outputs that got none), stores a new reference (or leaves NULL for none) in each grad_inputs[i]. Returns NB_OK or a status with a message set through nb_set_error. Runs on the thread that runs backward. */
export type nb_custom_backward_fn = (payload: Pointer | null, n_grad_outputs: number, grad_outputs: Pointer | null, n_grad_inputs: number, grad_inputs: Pointer | null) => number;

/** Receives a warning (UTF-8 text, valid during the call) on the thread that raised it. Returns NB_OK, or a status (message through nb_set_error) that turns the warning into an error: the call that warned fails with it. */
export type nb_warning_fn = (payload: Pointer | null, message: Pointer | null) => number;

/** A safetensors file opened by nb_load or nb_load_buffer: its header read and checked, its tensors read one by one on request. Released with nb_checkpoint_release; not shared between threads without a lock. */
export type nb_checkpoint = Pointer & { readonly __nb_checkpoint?: never };

/** A communicator: a group of processes that run collectives together (MPI for CPU tensors, NCCL for CUDA tensors; see docs/distributed.md). Refcounted with nb_comm_retain / nb_comm_release; a released (destroyed) communicator is refused by every function. Any thread may use it. */
export type nb_comm = Pointer & { readonly __nb_comm?: never };

/** An asynchronous collective or point-to-point transfer in flight: nb_work_wait, nb_work_test, then nb_work_release. Until it completes, the tensors it reads or writes must not be changed or read by the caller. */
export type nb_work = Pointer & { readonly __nb_work?: never };

export declare const CONSTANTS: {
  /** Status codes (nb_status). 0 is success; values are explicit and append-only. */
  readonly "status": { readonly NB_OK: 0; readonly NB_ERR_INVALID_ARGUMENT: 1; readonly NB_ERR_SHAPE: 2; readonly NB_ERR_DTYPE: 3; readonly NB_ERR_DEVICE: 4; readonly NB_ERR_INDEX: 5; readonly NB_ERR_OUT_OF_MEMORY: 6; readonly NB_ERR_NOT_IMPLEMENTED: 7; readonly NB_ERR_AUTOGRAD: 8; readonly NB_ERR_BACKEND: 9; readonly NB_ERR_ABI_VERSION: 10; readonly NB_ERR_INTERNAL: 11; readonly NB_ERR_LINALG: 12 };
  /** Element types (int32_t dtype codes). */
  readonly "dtype": { readonly NB_F32: 0; readonly NB_F64: 1; readonly NB_F16: 2; readonly NB_BF16: 3; readonly NB_I8: 4; readonly NB_I16: 5; readonly NB_I32: 6; readonly NB_I64: 7; readonly NB_U8: 8; readonly NB_BOOL: 9 };
  /** Device types (int32_t); the values equal DLPack's DLDeviceType. */
  readonly "device": { readonly NB_CPU: 1; readonly NB_CUDA: 2; readonly NB_CUDA_HOST: 3 };
  /** Rounding modes of nb_div (int32_t). */
  readonly "rounding": { readonly NB_ROUND_NONE: 0; readonly NB_ROUND_TRUNC: 1; readonly NB_ROUND_FLOOR: 2 };
  /** How a loss reduces over its elements (int32_t). */
  readonly "reduction": { readonly NB_REDUCTION_NONE: 0; readonly NB_REDUCTION_MEAN: 1; readonly NB_REDUCTION_SUM: 2 };
  /** Padding modes of nb_pad (int32_t). */
  readonly "pad_mode": { readonly NB_PAD_CONSTANT: 0; readonly NB_PAD_REFLECT: 1; readonly NB_PAD_REPLICATE: 2; readonly NB_PAD_CIRCULAR: 3 };
  /** Reductions of nb_scatter_reduce (int32_t); PyTorch's reduce strings. */
  readonly "scatter_reduce": { readonly NB_SCATTER_SUM: 0; readonly NB_SCATTER_PROD: 1; readonly NB_SCATTER_MEAN: 2; readonly NB_SCATTER_AMAX: 3; readonly NB_SCATTER_AMIN: 4 };
  /** What nb_linalg_qr returns (int32_t); PyTorch's mode strings. */
  readonly "qr_mode": { readonly NB_QR_REDUCED: 0; readonly NB_QR_COMPLETE: 1; readonly NB_QR_R: 2 };
  /** Sentinel arguments, named for C code that would otherwise write bare numbers. */
  readonly "defaults": { readonly NB_DTYPE_DEFAULT: -1; readonly NB_DEVICE_CURRENT: -1; readonly NB_IGNORE_INDEX: -100 };
  /** Flags of nb_event_create (int32_t bits). */
  readonly "event": { readonly NB_EVENT_DEFAULT: 0; readonly NB_EVENT_TIMING: 1; readonly NB_EVENT_BLOCKING: 2 };
  /** Flags of nb_profiler_start (int32_t bits). */
  readonly "profiler": { readonly NB_PROFILE_SHAPES: 1; readonly NB_PROFILE_MEMORY: 2; readonly NB_PROFILE_CUDA: 4; readonly NB_PROFILE_STACK: 8 };
  /** How a reduction collective combines the ranks' values (int32_t; PyTorch's ReduceOp numbering). */
  readonly "reduce_op": { readonly NB_REDUCE_OP_SUM: 0; readonly NB_REDUCE_OP_AVG: 1; readonly NB_REDUCE_OP_PRODUCT: 2; readonly NB_REDUCE_OP_MIN: 3; readonly NB_REDUCE_OP_MAX: 4; readonly NB_REDUCE_OP_BAND: 5; readonly NB_REDUCE_OP_BOR: 6; readonly NB_REDUCE_OP_BXOR: 7 };
  /** What one operation of nb_comm_batch_isend_irecv does (int32_t). */
  readonly "p2p": { readonly NB_P2P_SEND: 0; readonly NB_P2P_RECV: 1 };
};

/** A pointer parameter's direction and length (a count, a parameter's name, or a word). */
export type PointerInfo = readonly ['in' | 'out' | 'inout', number | string];
/** One function's description: [returns, [[C type, name], ...], group, differentiable, pointers]. */
export type FunctionInfo = readonly [string, ReadonlyArray<readonly [string, string]>, string, boolean,
                                     { readonly [param: string]: PointerInfo }];
export declare const FUNCTIONS: { readonly [name: string]: FunctionInfo };
export declare const CALLBACKS: { readonly [name: string]: readonly [string, ReadonlyArray<readonly [string, string]>] };

/** The C functions, bound by koffi. */
export interface Functions {
  /** The library's version as MAJOR*10000 + MINOR*100 + PATCH (compare with NB_VERSION_NUMBER). */
  nb_version(): number;
  /** The library's version as "MAJOR.MINOR.PATCH"; static storage. */
  nb_version_string(): string | null;
  /** The BLAS library nabla uses and its build configuration; static storage. */
  nb_blas_info(): string | null;
  /** The message of this thread's last failed call ("" if none); valid until the thread's next failing call. */
  nb_last_error_message(): string | null;
  /** The status of this thread's last failed call (NB_OK if none). */
  nb_last_error_status(): number;
  /** Resets this thread's last status and message. */
  nb_clear_error(): void;
  /** Installs process-wide hooks called around work big enough to be worth another thread's time (large copies and kernels); NULL removes them. The work between the two calls touches no caller-owned object. */
  nb_set_blocking_hooks(begin: RegisteredCallback | null, end: RegisteredCallback | null): void;
  /** Sets the number of CPU threads for nabla's kernels, GEMM included (process-wide; OMP_NUM_THREADS sets the start value). */
  nb_set_num_threads(n: number): number;
  /** The number of CPU threads kernels use. */
  nb_get_num_threads(): number;
  /** The constant's name ("NB_ERR_SHAPE"), or "NB_UNKNOWN_STATUS"; static storage. */
  nb_status_name(status: number): string | null;
  /** Bytes per element, or -1 for an unknown code. */
  nb_dtype_size(dtype: number): number | bigint;
  /** "float32", "int64", ...; NULL for an unknown code. */
  nb_dtype_name(dtype: number): string | null;
  /** 1 for f32, f64, f16, bf16; 0 otherwise (unknown codes included). */
  nb_dtype_is_floating(dtype: number): number;
  /** PyTorch's promote_types: the smallest dtype both convert to safely; -1 for an unknown code. */
  nb_promote_dtypes(a: number, b: number): number;
  /** The dtype a binary op of a and b computes in (categories bool < integer < float; dimensioned tensors outrank 0-dim ones, which outrank scalars); -1 for a bad handle. */
  nb_result_dtype(a: nb_tensor | null, b: nb_tensor | null): number;
  /** Sets the floating dtype that scalar floats promote to (float32 at start); process-wide. */
  nb_set_default_dtype(dtype: number): number;
  /** The default floating dtype. */
  nb_get_default_dtype(): number;
  /** "cpu", "cuda", "cuda_host"; NULL for an unknown code. */
  nb_device_type_name(device_type: number): string | null;
  /** Number of usable devices of a type (1 for CPU; 0 for CUDA when no driver, device or plugin is present). */
  nb_device_count(device_type: number, out: Int32Array): number;
  /** Why a device type cannot be used ("" when it can); static storage. */
  nb_device_unavailable_reason(device_type: number): string | null;
  /** Adds a reference. NULL-safe. */
  nb_tensor_retain(t: nb_tensor | null): void;
  /** Drops a reference; the last one frees the tensor (and its storage when no view remains). NULL-safe. Handles are never silently reused: a released tensor's object stays quarantined (its memory not given to any other object) for at least the next 4096 handle releases on the releasing thread, so a stale handle passed to any function fails with NB_ERR_INVALID_ARGUMENT ("... is not a live nabla tensor: it was released") instead of reaching a newer tensor. A release of an already released handle changes nothing and is reported through the warning channel (nb_set_warning_handler; stderr without one), keeping the thread's last error. The same rule holds for nb_stream_release, nb_event_release and nb_generator_release. */
  nb_tensor_release(t: nb_tensor | null): void;
  /** Current reference count (for tests and debugging); -1 for an invalid handle. */
  nb_tensor_refcount(t: nb_tensor | null): number | bigint;
  /** Number of dimensions; -1 (and a last error) for an invalid handle. */
  nb_tensor_ndim(t: nb_tensor | null): number;
  /** ndim sizes, owned by the tensor; NULL for an invalid handle. */
  nb_tensor_shape(t: nb_tensor | null): Pointer | null;
  /** ndim strides in elements, owned by the tensor; NULL for an invalid handle. */
  nb_tensor_strides(t: nb_tensor | null): Pointer | null;
  /** dtype code; -1 for an invalid handle. */
  nb_tensor_dtype(t: nb_tensor | null): number;
  /** device type; -1 for an invalid handle. */
  nb_tensor_device_type(t: nb_tensor | null): number;
  /** device ordinal (0 for CPU); -1 for an invalid handle. */
  nb_tensor_device_index(t: nb_tensor | null): number;
  /** Number of elements; -1 for an invalid handle. */
  nb_tensor_numel(t: nb_tensor | null): number | bigint;
  /** 1 when row-major contiguous (size-1 dims ignored), else 0; -1 for an invalid handle. */
  nb_tensor_is_contiguous(t: nb_tensor | null): number;
  /** Address of the first element (storage base + offset); NULL for an invalid handle. */
  nb_tensor_data_ptr(t: nb_tensor | null): Pointer | null;
  /** Offset of the first element in the storage, in elements; -1 for an invalid handle. */
  nb_tensor_storage_offset(t: nb_tensor | null): number | bigint;
  /** Bytes of the underlying storage; -1 for an invalid handle. */
  nb_tensor_storage_nbytes(t: nb_tensor | null): number | bigint;
  /** Base address of the storage (shared by all views of it); NULL for an invalid handle. */
  nb_tensor_storage_data_ptr(t: nb_tensor | null): Pointer | null;
  /** Version counter shared by a base and its views; in-place writes increment it. -1 for an invalid handle. */
  nb_tensor_version(t: nb_tensor | null): number | bigint;
  /** A new contiguous tensor with uninitialised contents. */
  nb_empty(shape: BigInt64Array | ArrayLike<number | bigint> | null, ndim: number, dtype: number, device_type: number, device_index: number, out: BigUint64Array | null): number;
  /** A new tensor filled with 0. */
  nb_zeros(shape: BigInt64Array | ArrayLike<number | bigint> | null, ndim: number, dtype: number, device_type: number, device_index: number, out: BigUint64Array | null): number;
  /** A new tensor filled with 1. */
  nb_ones(shape: BigInt64Array | ArrayLike<number | bigint> | null, ndim: number, dtype: number, device_type: number, device_index: number, out: BigUint64Array | null): number;
  /** A new tensor filled with value converted to dtype (float16/bfloat16 round to nearest even). */
  nb_full(shape: BigInt64Array | ArrayLike<number | bigint> | null, ndim: number, value: number, dtype: number, device_type: number, device_index: number, out: BigUint64Array | null): number;
  /** As nb_full with an exact 64-bit integer value. */
  nb_full_int(shape: BigInt64Array | ArrayLike<number | bigint> | null, ndim: number, value: number | bigint, dtype: number, device_type: number, device_index: number, out: BigUint64Array | null): number;
  /** 1-D values start, start+step, ... excluding end; ceil((end-start)/step) elements. */
  nb_arange(start: number, end: number, step: number, dtype: number, device_type: number, device_index: number, out: BigUint64Array | null): number;
  /** 1-D, steps values evenly spaced from start to end inclusive. */
  nb_linspace(start: number, end: number, steps: number | bigint, dtype: number, device_type: number, device_index: number, out: BigUint64Array | null): number;
  /** A 2-D [n, m] tensor with ones on the diagonal. */
  nb_eye(n: number | bigint, m: number | bigint, dtype: number, device_type: number, device_index: number, out: BigUint64Array | null): number;
  /** A new tensor holding a copy of row-major host data of the given dtype. */
  nb_tensor_from_host(data: ArrayBufferView | ArrayBuffer | Pointer | null, shape: BigInt64Array | ArrayLike<number | bigint> | null, ndim: number, dtype: number, device_type: number, device_index: number, out: BigUint64Array | null): number;
  /** Wraps external memory without copying. strides (elements) may be NULL for row-major. deleter(payload) runs when the last reference goes; on failure it is not called and the caller keeps ownership. */
  nb_tensor_from_external(data: ArrayBufferView | ArrayBuffer | Pointer | null, shape: BigInt64Array | ArrayLike<number | bigint> | null, strides: BigInt64Array | ArrayLike<number | bigint> | null, ndim: number, dtype: number, device_type: number, device_index: number, deleter: RegisteredCallback | null, payload: ArrayBufferView | ArrayBuffer | Pointer | null, out: BigUint64Array | null): number;
  /** A 0-dim CPU tensor holding a language scalar (fvalue for floating dtypes, ivalue otherwise), marked as a wrapped number: it yields to tensors in type promotion and may combine with tensors on any device. */
  nb_scalar(fvalue: number, ivalue: number | bigint, dtype: number, out: BigUint64Array | null): number;
  /** A view with a new shape (one size may be -1); fails if the strides cannot express it. */
  nb_tensor_view(t: nb_tensor | null, shape: BigInt64Array | ArrayLike<number | bigint> | null, ndim: number, out: BigUint64Array | null): number;
  /** As nb_tensor_view when possible, otherwise a contiguous copy. */
  nb_tensor_reshape(t: nb_tensor | null, shape: BigInt64Array | ArrayLike<number | bigint> | null, ndim: number, out: BigUint64Array | null): number;
  /** A view with dimensions reordered; dims is a permutation (negative values count from the end). */
  nb_tensor_permute(t: nb_tensor | null, dims: BigInt64Array | ArrayLike<number | bigint> | null, ndim: number, out: BigUint64Array | null): number;
  /** A view with two dimensions swapped. */
  nb_tensor_transpose(t: nb_tensor | null, dim0: number | bigint, dim1: number | bigint, out: BigUint64Array | null): number;
  /** A view of length elements of dim from start (start may be negative). */
  nb_tensor_narrow(t: nb_tensor | null, dim: number | bigint, start: number | bigint, length: number | bigint, out: BigUint64Array | null): number;
  /** A view of dim with Python slice semantics (negative start/end count from the end, out-of-range bounds clamp); step > 0. */
  nb_tensor_slice(t: nb_tensor | null, dim: number | bigint, start: number | bigint, end: number | bigint, step: number | bigint, out: BigUint64Array | null): number;
  /** A view with dim removed at index (negative counts from the end). */
  nb_tensor_select(t: nb_tensor | null, dim: number | bigint, index: number | bigint, out: BigUint64Array | null): number;
  /** A broadcast view (stride 0) to shape; -1 keeps a size; new leading dims may be added. */
  nb_tensor_expand(t: nb_tensor | null, shape: BigInt64Array | ArrayLike<number | bigint> | null, ndim: number, out: BigUint64Array | null): number;
  /** A view without size-1 dims: all of them when dims is NULL, else those listed that have size 1. */
  nb_tensor_squeeze(t: nb_tensor | null, dims: BigInt64Array | ArrayLike<number | bigint> | null, ndims: number, out: BigUint64Array | null): number;
  /** A view with a size-1 dim inserted at dim (in [-ndim-1, ndim]). */
  nb_tensor_unsqueeze(t: nb_tensor | null, dim: number | bigint, out: BigUint64Array | null): number;
  /** Dims start_dim..end_dim merged into one (a view when strides allow, else a copy). */
  nb_tensor_flatten(t: nb_tensor | null, start_dim: number | bigint, end_dim: number | bigint, out: BigUint64Array | null): number;
  /** A view of t's storage with explicit shape, strides and offset (elements); must stay inside the storage. */
  nb_tensor_as_strided(t: nb_tensor | null, shape: BigInt64Array | ArrayLike<number | bigint> | null, strides: BigInt64Array | ArrayLike<number | bigint> | null, ndim: number, storage_offset: number | bigint, out: BigUint64Array | null): number;
  /** t itself (a new reference) when contiguous, else a contiguous copy. */
  nb_tensor_contiguous(t: nb_tensor | null, out: BigUint64Array | null): number;
  /** A copy with its own storage, laid out in t's memory order (a dense input keeps its strides; PyTorch's preserve_format). */
  nb_tensor_clone(t: nb_tensor | null, out: BigUint64Array | null): number;
  /** t converted to dtype and device (strides kept as by nb_tensor_clone); returns t itself when nothing changes and copy is 0. */
  nb_tensor_to(t: nb_tensor | null, dtype: number, device_type: number, device_index: number, copy: number, out: BigUint64Array | null): number;
  /** Writes src into dst, broadcasting src to dst's shape and converting dtype (float16/bfloat16 round to nearest even). Bumps dst's version. */
  nb_tensor_copy_(dst: nb_tensor | null, src: nb_tensor | null): number;
  /** Writes t's elements, row-major in t's dtype, to host memory of nbytes (must equal numel * element size). */
  nb_tensor_copy_to_host(t: nb_tensor | null, dst: ArrayBufferView | ArrayBuffer | Pointer | null, nbytes: number | bigint): number;
  /** The value of a one-element tensor as a double. */
  nb_tensor_item_double(t: nb_tensor | null, out: Float64Array): number;
  /** The value of a one-element integer or bool tensor as an exact int64 (floats truncate toward zero). */
  nb_tensor_item_int(t: nb_tensor | null, out: BigInt64Array): number;
  /** PyTorch's resize_: gives t the shape with contiguous strides at its offset, growing its storage (bytes kept, every view follows) when it is too small; a tensor that already has the shape is unchanged. External memory cannot grow; a tensor that requires grad cannot be resized. */
  nb_tensor_resize_(t: nb_tensor | null, shape: BigInt64Array | ArrayLike<number | bigint> | null, ndim: number): number;
  /** PyTorch's resize_output, the rule for out= tensors: nothing when t has the shape; otherwise a warning when t had elements (see nb_set_warning_handler), then nb_tensor_resize_. Every op with a dst parameter applies it to a dst that is not one of its inputs. */
  nb_tensor_resize_output(t: nb_tensor | null, shape: BigInt64Array | ArrayLike<number | bigint> | null, ndim: number): number;
  /** Exports t through DLPack: *out receives a DLManagedTensorVersioned* (include/nabla/dlpack.h; void* here so this header stays free of C enums) that keeps t's memory alive until its deleter runs; the consumer calls the deleter once, from any thread. device_type -1 keeps t's device, otherwise the tensor goes to (device_type, device_index). copy: 1 always copies, 0 never (fails with NB_ERR_DEVICE when the device differs), -1 copies only to change device. flags carry DLPACK_FLAG_BITMASK_IS_COPIED for a copy and DLPACK_FLAG_BITMASK_READ_ONLY for a shared read-only tensor. Strides are always set; data points at the first element and byte_offset is 0. */
  nb_tensor_to_dlpack_versioned(t: nb_tensor | null, device_type: number, device_index: number, copy: number, out: ArrayBufferView | ArrayBuffer | Pointer | null): number;
  /** As nb_tensor_to_dlpack_versioned, producing the legacy DLManagedTensor* (no version, no flags); a read-only tensor can only be exported this way as a copy. */
  nb_tensor_to_dlpack(t: nb_tensor | null, device_type: number, device_index: number, copy: number, out: ArrayBufferView | ArrayBuffer | Pointer | null): number;
  /** Wraps a DLManagedTensorVersioned* without copying. On success nabla owns it and calls its deleter when the last reference goes, on whichever thread that is; on failure the caller keeps it. A major version other than 1 fails with NB_ERR_ABI_VERSION; DLPACK_FLAG_BITMASK_READ_ONLY makes the tensor read-only. Takes every nabla dtype (bool as kDLBool 8 bits, bfloat16 as kDLBfloat 16) on cpu, cuda and cuda_host; NULL strides mean row-major; negative strides are refused. */
  nb_tensor_from_dlpack_versioned(managed: ArrayBufferView | ArrayBuffer | Pointer | null, out: BigUint64Array | null): number;
  /** As nb_tensor_from_dlpack_versioned for the legacy DLManagedTensor*. */
  nb_tensor_from_dlpack(managed: ArrayBufferView | ArrayBuffer | Pointer | null, out: BigUint64Array | null): number;
  /** 1 when t's memory was imported read-only (every in-place write into it, and every op given it as dst, fails with NB_ERR_INVALID_ARGUMENT), else 0; -1 for an invalid handle. */
  nb_tensor_is_readonly(t: nb_tensor | null): number;
  /** Moves t's storage (so every view of it) into shared memory that another process can map through nb_tensor_shared_fd; the values are kept. A no-op when already shared; cpu tensors only. Not safe while another thread uses the same storage. */
  nb_tensor_share_memory_(t: nb_tensor | null): number;
  /** 1 when t's storage is in shared memory, else 0; -1 for an invalid handle. */
  nb_tensor_is_shared(t: nb_tensor | null): number;
  /** The file descriptor behind a shared tensor's storage (an anonymous memfd of at least nb_tensor_storage_nbytes bytes). It stays owned by the storage and open while it lives: dup it to keep it longer. */
  nb_tensor_shared_fd(t: nb_tensor | null, out: Int32Array): number;
  /** A new contiguous cpu tensor in shared memory, uninitialised. */
  nb_empty_shared(shape: BigInt64Array | ArrayLike<number | bigint> | null, ndim: number, dtype: number, out: BigUint64Array | null): number;
  /** Maps the storage of nbytes that another process shared through fd (see nb_tensor_shared_fd) and views it with shape, strides and storage_offset (elements), which must stay inside nbytes. The tensor keeps its own duplicate of fd; the caller still owns fd. Writes on either side are seen by the other. */
  nb_tensor_from_shared_fd(fd: number, nbytes: number | bigint, shape: BigInt64Array | ArrayLike<number | bigint> | null, strides: BigInt64Array | ArrayLike<number | bigint> | null, ndim: number, storage_offset: number | bigint, dtype: number, readonly: number, out: BigUint64Array | null): number;
  /** Fills the counters of a device's allocator (fields up to out->struct_size). NB_CUDA_HOST (device_index ignored) reads the pinned host memory pool: zeros before its first allocation and on machines without CUDA. */
  nb_memory_stats_get(device_type: number, device_index: number, out: Partial<nb_memory_stats>): number;
  /** Resets peak_allocated_bytes to the current allocated_bytes (NB_CUDA_HOST: of the pinned host memory pool). */
  nb_memory_reset_peak(device_type: number, device_index: number): number;
  /** Returns cached free blocks to the system: the shared lists and the calling thread's cache (another live thread keeps at most 8 MiB cached until it exits). */
  nb_memory_empty_cache(device_type: number, device_index: number): number;
  /** The segments and blocks of a device's caching allocator as JSON (PyTorch's snapshot field names: address, total_size, stream, segment_type, blocks with size, requested_size, state). Writes at most cap bytes including a terminating NUL (buf may be NULL when cap is 0) and the full length, without the NUL, to *needed. */
  nb_memory_snapshot(device_type: number, device_index: number, buf: ArrayBufferView | ArrayBuffer | Pointer | null, cap: number | bigint, needed: BigInt64Array): number;
  /** Marks t's memory as used by work on stream: when the last reference goes, the memory is reused only after the work queued on stream so far has finished. A no-op on CPU. */
  nb_tensor_record_stream(t: nb_tensor | null, stream: nb_stream | null): number;
  /** A copy of the CPU tensor t in page-locked (pinned) host memory, which non-blocking copies to and from CUDA need; t itself (a new reference) when already pinned. */
  nb_tensor_pin_memory(t: nb_tensor | null, out: BigUint64Array | null): number;
  /** 1 when t's memory is pinned host memory, else 0; -1 for an invalid handle. */
  nb_tensor_is_pinned(t: nb_tensor | null): number;
  /** As nb_tensor_to; with non_blocking, a same-dtype copy between pinned host memory and a CUDA device is queued on the current stream and the call returns at once (a device-to-host result is then allocated in pinned memory); otherwise the copy completes before the call returns. */
  nb_tensor_to_v2(t: nb_tensor | null, dtype: number, device_type: number, device_index: number, copy: number, non_blocking: number, out: BigUint64Array | null): number;
  /** As nb_tensor_copy_; with non_blocking, a same-dtype contiguous copy between pinned host memory and a CUDA device is queued on the current stream and the call returns at once. */
  nb_tensor_copy_v2_(dst: nb_tensor | null, src: nb_tensor | null, non_blocking: number): number;
  /** A new stream on a device (index -1: the current device). Lower priority numbers run first (nb_stream_priority_range); 0 is the default. On CPU a stream exists but every operation on it is already complete. */
  nb_stream_create(device_type: number, device_index: number, priority: number, out: BigUint64Array | null): number;
  /** A stream object over a native stream made outside nabla (a cudaStream_t of another library, e.g. PyTorch's or CuPy's; NULL is the legacy default stream; index -1: the current device): nabla queues work on it and waits on it but never destroys it, so the caller keeps the native stream alive while the object is used. On CPU native must be NULL. */
  nb_stream_from_native(device_type: number, device_index: number, native: ArrayBufferView | ArrayBuffer | Pointer | null, out: BigUint64Array | null): number;
  /** Adds a reference. NULL-safe. */
  nb_stream_retain(s: nb_stream | null): void;
  /** Drops a reference; the last one destroys the stream after its queued work. NULL-safe; default streams are never destroyed. A released handle is refused, and a double release warned about, as for nb_tensor_release. */
  nb_stream_release(s: nb_stream | null): void;
  /** The device's default stream (a new reference). */
  nb_stream_default(device_type: number, device_index: number, out: BigUint64Array | null): number;
  /** The calling thread's current stream on a device (a new reference): the default stream until nb_stream_set_current. */
  nb_stream_current(device_type: number, device_index: number, out: BigUint64Array | null): number;
  /** Makes s the calling thread's current stream on its device; work nabla queues for that device from this thread goes there. */
  nb_stream_set_current(s: nb_stream | null): number;
  /** Waits until the work queued on s has finished; reports an error that asynchronous work on s raised since the last synchronisation. */
  nb_stream_synchronize(s: nb_stream | null): number;
  /** Sets *done to 1 when all work queued on s has finished, else 0; never waits. */
  nb_stream_query(s: nb_stream | null, done: Int32Array): number;
  /** Work queued on s after this call waits for e (host does not wait). An event never recorded is complete. */
  nb_stream_wait_event(s: nb_stream | null, e: nb_event | null): number;
  /** Work queued on s after this call waits for the work queued on other so far (host does not wait). */
  nb_stream_wait_stream(s: nb_stream | null, other: nb_stream | null): number;
  /** The backend's handle (a cudaStream_t; NULL for CUDA's default stream and on CPU). */
  nb_stream_native_handle(s: nb_stream | null): Pointer | null;
  /** A number unique to the stream within its device (0 for the default stream); -1 for an invalid handle. */
  nb_stream_id(s: nb_stream | null): number | bigint;
  /** The stream's device type; -1 for an invalid handle. */
  nb_stream_device_type(s: nb_stream | null): number;
  /** The stream's device index; -1 for an invalid handle. */
  nb_stream_device_index(s: nb_stream | null): number;
  /** The stream's priority (0 for default streams and on CPU). */
  nb_stream_priority(s: nb_stream | null): number;
  /** The priorities streams may have: from least (0) to greatest (a negative number on CUDA; 0 on CPU). */
  nb_stream_priority_range(device_type: number, least: Int32Array, greatest: Int32Array): number;
  /** A new event on a device (index -1: the current device); flags are NB_EVENT_* bits. */
  nb_event_create(device_type: number, device_index: number, flags: number, out: BigUint64Array | null): number;
  /** Adds a reference. NULL-safe. */
  nb_event_retain(e: nb_event | null): void;
  /** Drops a reference; the last one destroys the event. NULL-safe. A released handle is refused, and a double release warned about, as for nb_tensor_release. */
  nb_event_release(e: nb_event | null): void;
  /** Captures the work queued on s so far (NULL: the current stream of e's device); e completes when it has finished. */
  nb_event_record(e: nb_event | null, s: nb_stream | null): number;
  /** Sets *done to 1 when the work e captured has finished (or e was never recorded), else 0; never waits. */
  nb_event_query(e: nb_event | null, done: Int32Array): number;
  /** Waits until the work e captured has finished. */
  nb_event_synchronize(e: nb_event | null): number;
  /** Milliseconds between two recorded, completed events created with NB_EVENT_TIMING. */
  nb_event_elapsed_time(start: nb_event | null, end: nb_event | null, ms: Float64Array): number;
  /** The backend's handle (a cudaEvent_t; NULL on CPU). */
  nb_event_native_handle(e: nb_event | null): Pointer | null;
  /** Starts a profiling session (process-wide): every op call from then on is recorded per thread with its name and host start/end time, plus what the NB_PROFILE_* flags ask for. Fails when a session is already running. Events of the previous session are dropped. */
  nb_profiler_start(flags: number): number;
  /** Ends the session and keeps its events for nb_profiler_events (waits for the device events of CUDA ops). Fails when no session runs. */
  nb_profiler_stop(): number;
  /** The running session's NB_PROFILE_* flags; 0 when none runs (also 0 for a session started with no flags: use it as a flag set, not a state). */
  nb_profiler_enabled(): number;
  /** The last stopped session as JSON: {"events": [{"kind": "op"|"range"|"memory", "name", "tid", "ts_ns", "dur_ns", "device": "cpu:0", optional "shapes", "dtypes", "stack" (list of strings, innermost frame first), "bytes" (negative: freed), "addr", "device_ts_us", "device_dur_us", "stream"}], "duration_ns"}; times in ns from the session's start. Writes at most cap bytes including a terminating NUL (buf may be NULL when cap is 0) and the full length, without the NUL, to *needed. */
  nb_profiler_events(buf: ArrayBufferView | ArrayBuffer | Pointer | null, cap: number | bigint, needed: BigInt64Array): number;
  /** Opens a user range on the calling thread (recorded when a session runs; copied). Ranges nest, up to 256 deep. */
  nb_profiler_range_push(name: string | null): number;
  /** Closes the calling thread's innermost range; fails when none is open. */
  nb_profiler_range_pop(): number;
  /** Sets the process-wide stack source that sessions started with NB_PROFILE_STACK call at each op's start (a frontend reports its language's call stack); the text is kept with the op event and written as its "stack" (a list of lines) by nb_profiler_events. fn NULL clears it. destroy(payload) (may be NULL) runs once the source is replaced or cleared and no call to it is in progress. */
  nb_profiler_set_stack_source(fn: RegisteredCallback | null, payload: ArrayBufferView | ArrayBuffer | Pointer | null, destroy: RegisteredCallback | null): number;
  /** Turns autocast on or off for ops on a device type (NB_CPU or NB_CUDA) on the calling thread. While on, an op whose manifest entry has an "autocast" policy casts its floating-point inputs on that device (float64 excepted) first: "lower" to the autocast dtype, "fp32" to float32, "promote" to the widest of them; ops it calls run without autocast, and so does backward. */
  nb_autocast_set_enabled(device_type: number, enabled: number): number;
  /** 1 when autocast is on for the device type on the calling thread, else 0. */
  nb_autocast_is_enabled(device_type: number): number;
  /** The low-precision dtype of a device type's autocast on the calling thread: NB_BF16 or NB_F16 (defaults: bfloat16 on CPU, float16 on CUDA). */
  nb_autocast_set_dtype(device_type: number, dtype: number): number;
  /** The calling thread's autocast dtype for a device type (-1 for a device type without autocast). */
  nb_autocast_get_dtype(device_type: number): number;
  /** Whether casts of leaf tensors that require grad (the weights) are cached on the calling thread until nb_autocast_clear_cache, so a weight is cast once per autocast region. On by default. */
  nb_autocast_set_cache_enabled(enabled: number): void;
  /** 1 when the calling thread caches autocast weight casts. */
  nb_autocast_is_cache_enabled(): number;
  /** Counts entering an autocast region on the calling thread; returns the new depth. */
  nb_autocast_increment_nesting(): number;
  /** Counts leaving an autocast region; returns the new depth (never below 0). A frontend clears the cache when it reaches 0. */
  nb_autocast_decrement_nesting(): number;
  /** Releases the calling thread's cached weight casts. */
  nb_autocast_clear_cache(): void;
  /** The calling thread's current device index of a type (0 at start). */
  nb_device_current(device_type: number, out: Int32Array): number;
  /** Sets the calling thread's current device of a type; index -1 means the current one is kept. */
  nb_device_set_current(device_type: number, device_index: number): number;
  /** Waits until all work queued on the device, on every stream, has finished; reports errors of asynchronous work. */
  nb_device_synchronize(device_type: number, device_index: number): number;
  /** The device's free and total memory as its driver reports them. */
  nb_device_memory_info(device_type: number, device_index: number, free_bytes: BigInt64Array, total_bytes: BigInt64Array): number;
  /** The device's properties as one JSON object with PyTorch's field names (name, major, minor, total_memory, multi_processor_count, warp_size, L2_cache_size, uuid, ...); index -1: the current device. CUDA only. Writes at most cap bytes including a terminating NUL (buf may be NULL when cap is 0) and the full length, without the NUL, to *needed. */
  nb_device_properties(device_type: number, device_index: number, buf: ArrayBufferView | ArrayBuffer | Pointer | null, cap: number | bigint, needed: BigInt64Array): number;
  /** Sets this thread's last error (for callbacks that report a failure to the library); returns status. */
  nb_set_error(status: number, message: string | null): number;
  /** Installs the process-wide handler of warnings (PyTorch's TORCH_WARN: an out= tensor resized, ...); NULL restores the default, which prints them to stderr. */
  nb_set_warning_handler(fn: RegisteredCallback | null, payload: ArrayBufferView | ArrayBuffer | Pointer | null): void;
  /** 1 when operations on this thread record the autograd graph (grad mode), else 0. */
  nb_grad_enabled(): number;
  /** Turns grad mode on or off for this thread; returns the previous setting (no_grad / enable_grad). */
  nb_set_grad_enabled(enabled: number): number;
  /** 1 inside inference mode on this thread. */
  nb_inference_mode_enabled(): number;
  /** Inference mode on or off for this thread (grad mode is off inside it); returns the previous setting. */
  nb_set_inference_mode(enabled: number): number;
  /** 1 when anomaly detection is on (process-wide). */
  nb_anomaly_mode_enabled(): number;
  /** Anomaly detection: backward fails with NB_ERR_AUTOGRAD naming the node whose gradient contains NaN. Returns the previous setting. */
  nb_set_anomaly_mode(enabled: number): number;
  /** 1 if gradients are computed for t (a leaf marked so, or the result of a recorded op), 0 if not, -1 for an invalid handle. */
  nb_tensor_requires_grad(t: nb_tensor | null): number;
  /** Marks a leaf as requiring grad (floating dtypes only); fails for non-leaves when turning it off. */
  nb_tensor_set_requires_grad(t: nb_tensor | null, requires_grad: number): number;
  /** 1 if t has no grad_fn (created by the user or with grad off), 0 if it is the result of a recorded op, -1 for an invalid handle. */
  nb_tensor_is_leaf(t: nb_tensor | null): number;
  /** *grad = a new reference to t's accumulated gradient (leaves, or non-leaves after nb_tensor_retain_grad), or NULL when there is none. */
  nb_tensor_get_grad(t: nb_tensor | null, grad: BigUint64Array | null): number;
  /** Replaces t's gradient (NULL clears it); grad must match t's shape, dtype and device. */
  nb_tensor_set_grad(t: nb_tensor | null, grad: nb_tensor | null): number;
  /** Keeps the gradient of a non-leaf after backward (a no-op for leaves). */
  nb_tensor_retain_grad(t: nb_tensor | null): number;
  /** 1 after nb_tensor_retain_grad on a non-leaf, else 0; -1 for an invalid handle. */
  nb_tensor_retains_grad(t: nb_tensor | null): number;
  /** A new tensor sharing t's storage (and version counter) with no autograd history. */
  nb_tensor_detach(t: nb_tensor | null, out: BigUint64Array | null): number;
  /** Cuts t from the graph in place: it becomes a leaf that does not require grad. */
  nb_tensor_detach_(t: nb_tensor | null): number;
  /** *out = a new reference to the node that produced t, or NULL for a leaf. */
  nb_tensor_grad_fn(t: nb_tensor | null, out: BigUint64Array | null): number;
  /** Which output of its grad_fn t is (0 for leaves); -1 for an invalid handle. */
  nb_tensor_output_nr(t: nb_tensor | null): number;
  /** Takes a reference to a node (NULL-safe). */
  nb_node_retain(node: nb_node | null): void;
  /** Drops a reference to a node (NULL-safe); the graph behind it goes when the last one does. */
  nb_node_release(node: nb_node | null): void;
  /** The node's name, as PyTorch names them ("MulBackward0", "AccumulateGrad"); NULL for NULL. */
  nb_node_name(node: nb_node | null): string | null;
  /** How many inputs the node's op had (its next functions); -1 for NULL. */
  nb_node_num_next(node: nb_node | null): number;
  /** The node input i's gradient flows to (a new reference, or NULL when that input needs none) and which of its outputs it is. */
  nb_node_next(node: nb_node | null, i: number, next: BigUint64Array | null, input_nr: Int32Array): number;
  /** Adds a hook that sees (and may replace) t's gradient during backward; t must require grad. destroy(payload) runs when the hook is removed or its tensor/node goes, on that thread. *id identifies it for nb_tensor_remove_hook. */
  nb_tensor_register_hook(t: nb_tensor | null, fn: RegisteredCallback | null, payload: ArrayBufferView | ArrayBuffer | Pointer | null, destroy: RegisteredCallback | null, id: BigInt64Array): number;
  /** Removes a hook added by nb_tensor_register_hook or nb_tensor_register_post_accumulate_grad_hook (a no-op when it is already gone). */
  nb_tensor_remove_hook(t: nb_tensor | null, id: number | bigint): number;
  /** Adds a hook called with t after backward accumulated t's gradient into .grad (not by nb_autograd_grad); t must be a leaf that requires grad. Hooks run in registration order, after the tensor hooks and the accumulation. destroy(payload) runs when the hook is removed or t goes. *id identifies it for nb_tensor_remove_hook. */
  nb_tensor_register_post_accumulate_grad_hook(t: nb_tensor | null, fn: RegisteredCallback | null, payload: ArrayBufferView | ArrayBuffer | Pointer | null, destroy: RegisteredCallback | null, id: BigInt64Array): number;
  /** For an in-place change a binding makes outside nabla's ops (PyTorch's in-place view ops t_, squeeze_, as_strided_, ...): while grad mode is on, refuses a leaf that requires grad and a view of a leaf that requires grad with PyTorch's messages (prefixed by op); then increments t's version counter, as an in-place op does. */
  nb_tensor_mark_inplace(t: nb_tensor | null, op: string | null): number;
  /** Pushes saved-tensor hooks for this thread (torch.autograd.graph.saved_tensors_hooks): until the matching pop, every tensor an autograd node saves goes through pack, and backward reads it back through unpack; the innermost push applies. free_packed (may be NULL) frees each packed value; destroy(payload) (may be NULL) runs once the hooks are popped and no graph saved with them remains. Saved tensors kept through hooks are not checked against in-place writes. Fails with NB_ERR_AUTOGRAD while hooks are disabled (nb_saved_tensors_hooks_disable). */
  nb_saved_tensors_hooks_push(pack: RegisteredCallback | null, unpack: RegisteredCallback | null, free_packed: RegisteredCallback | null, payload: ArrayBufferView | ArrayBuffer | Pointer | null, destroy: RegisteredCallback | null): number;
  /** Pops this thread's innermost saved-tensor hooks; NB_ERR_AUTOGRAD when none are pushed. */
  nb_saved_tensors_hooks_pop(): number;
  /** Forbids saved-tensor hooks on this thread: later pushes fail with NB_ERR_AUTOGRAD and this message (torch.autograd.graph.disable_saved_tensors_hooks); fails with the message itself when hooks are pushed already. NULL allows them again. */
  nb_saved_tensors_hooks_disable(message: string | null): number;
  /** The message saved-tensor hooks are disabled with on this thread, or NULL when they are allowed. */
  nb_saved_tensors_hooks_disabled_message(): string | null;
  /** Computes the gradients of outputs[n] (seeded with grad_outputs[i], or 1 for one-element outputs when grad_outputs or its entry is NULL) and accumulates them into the leaves' .grad. Without retain_graph the saved tensors of the graph are freed; create_graph records the backward pass itself for higher-order gradients. */
  nb_backward(outputs: BigUint64Array | null, grad_outputs: BigUint64Array | null, n: number, retain_graph: number, create_graph: number): number;
  /** PyTorch's t.backward(gradient, retain_graph, create_graph): nb_backward of the one tensor t, seeded with grad (NULL: 1, for a one-element t). */
  nb_tensor_backward(t: nb_tensor | null, grad: nb_tensor | null, retain_graph: number, create_graph: number): number;
  /** The gradients of outputs with respect to inputs[n_inputs], written as new references to grads[n_inputs] (NULL for an input the outputs do not depend on, which is an error unless allow_unused); .grad fields are left untouched. */
  nb_autograd_grad(outputs: BigUint64Array | null, grad_outputs: BigUint64Array | null, n: number, inputs: BigUint64Array | null, n_inputs: number, retain_graph: number, create_graph: number, allow_unused: number, grads: BigUint64Array | null): number;
  /** Records a custom function: outputs (computed by the caller with grad mode off) get a node named name whose backward calls fn(payload, ...). non_differentiable[n_outputs] (may be NULL) marks outputs that get no history. Nothing is recorded when grad mode is off or no input requires grad; destroy(payload) then runs at once. */
  nb_autograd_function_record(name: string | null, inputs: BigUint64Array | null, n_inputs: number, outputs: BigUint64Array | null, n_outputs: number, non_differentiable: Int32Array | ArrayLike<number> | null, fn: RegisteredCallback | null, payload: ArrayBufferView | ArrayBuffer | Pointer | null, destroy: RegisteredCallback | null): number;
  /** Writes n named tensors (any device, any layout; stored contiguous, little-endian) and n_meta string pairs of metadata to path in the safetensors format, which PyTorch's and the safetensors package's readers take. Names are unique UTF-8, not "__metadata__". The file is written beside path under a temporary name, flushed and renamed over path, so a failure leaves the old file as it was. */
  nb_save(path: string | null, names: string[], tensors: BigUint64Array | null, n: number | bigint, meta_keys: string[], meta_values: string[], n_meta: number | bigint): number;
  /** nb_save into memory: sets *needed to the file's size in bytes and, when buf is non-NULL, writes the file to buf (cap must be at least *needed). Call with buf NULL to size the buffer. */
  nb_save_buffer(names: string[], tensors: BigUint64Array | null, n: number | bigint, meta_keys: string[], meta_values: string[], n_meta: number | bigint, buf: ArrayBufferView | ArrayBuffer | Pointer | null, cap: number | bigint, needed: BigInt64Array): number;
  /** Opens a safetensors file: reads its header and checks every entry (dtype, shape, sizes without overflow, offsets inside the data section, no overlaps, unique names) before any tensor is made; errors name the file and the tensor. Tensor bytes are read later, one tensor at a time (nb_checkpoint_tensor), so memory holds one copy of what is asked for. The file stays open until nb_checkpoint_release. */
  nb_load(path: string | null, out: BigUint64Array | null): number;
  /** nb_load over a file already in memory (nbytes bytes); name (NULL: "the buffer") stands for it in messages. data is borrowed: it must stay valid and unchanged until nb_checkpoint_release. */
  nb_load_buffer(data: ArrayBufferView | ArrayBuffer | Pointer | null, nbytes: number | bigint, name: string | null, out: BigUint64Array | null): number;
  /** The number of tensors, in header order; -1 (and the last error) for a bad handle. */
  nb_checkpoint_count(ck: nb_checkpoint | null): number | bigint;
  /** The name of tensor i (0 <= i < count), valid until nb_checkpoint_release; NULL (and the last error) for a bad handle or index. */
  nb_checkpoint_name(ck: nb_checkpoint | null, i: number | bigint): string | null;
  /** Reads tensor i into a new contiguous CPU tensor. */
  nb_checkpoint_tensor(ck: nb_checkpoint | null, i: number | bigint, out: BigUint64Array | null): number;
  /** Reads the tensor called name into a new contiguous CPU tensor; NB_ERR_INDEX when there is none. */
  nb_checkpoint_get(ck: nb_checkpoint | null, name: string | null, out: BigUint64Array | null): number;
  /** The number of __metadata__ pairs; -1 (and the last error) for a bad handle. */
  nb_checkpoint_metadata_count(ck: nb_checkpoint | null): number | bigint;
  /** Metadata pair i (UTF-8, valid until nb_checkpoint_release). */
  nb_checkpoint_metadata(ck: nb_checkpoint | null, i: number | bigint, key: [string | null], value: [string | null]): number;
  /** Closes the file and frees the checkpoint; tensors read from it stay valid. NULL-safe; a double release is warned about, as for nb_tensor_release. */
  nb_checkpoint_release(ck: nb_checkpoint | null): void;
  /** NB_OK when the MPI library can be loaded: library (NULL: $NABLA_MPI_LIBRARY, else libmpi_abi.so.1 from the loader's search path), an MPI-5 standard ABI library such as the `mpich` wheel's. Otherwise NB_ERR_BACKEND with what was tried and how to install MPI. The first successful load stays for the process. */
  nb_comm_available(library: string | null): number;
  /** Initialises MPI (with MPI_THREAD_MULTIPLE when the library offers it; calls are serialised otherwise) unless the caller already did, and returns a communicator over a duplicate of MPI_COMM_WORLD. Collective over all processes. timeout_s bounds every later wait: a collective that does not complete in time fails with NB_ERR_BACKEND and leaves the communicator unusable. With NABLA_DISTRIBUTED_DEBUG=DETAIL (or TORCH_DISTRIBUTED_DEBUG=DETAIL) in the environment, every collective first checks that all ranks called the same collective with the same root, dtype and shape, failing on every rank with a message that names the mismatch. */
  nb_comm_init_mpi(library: string | null, timeout_s: number, out: BigUint64Array | null): number;
  /** A sub-group: the ranks of parent that pass the same color, ordered by key then parent rank (MPI_Comm_split). Collective over parent. A negative color makes the caller a non-member: *out is set to NULL. */
  nb_comm_split(parent: nb_comm | null, color: number, key: number, out: BigUint64Array | null): number;
  /** The caller's rank in c; -1 (and the last error) for a bad handle. */
  nb_comm_rank(c: nb_comm | null): number;
  /** The number of ranks in c; -1 (and the last error) for a bad handle. */
  nb_comm_size(c: nb_comm | null): number;
  /** Sets how long later waits on c last before failing (positive seconds). */
  nb_comm_set_timeout(c: nb_comm | null, timeout_s: number): number;
  /** Adds a reference. NULL-safe. */
  nb_comm_retain(c: nb_comm | null): void;
  /** Drops a reference; the last one frees the MPI communicator (not collective). NULL-safe; a released handle is refused, and a double release warned about, as for nb_tensor_release. */
  nb_comm_release(c: nb_comm | null): void;
  /** Shuts MPI down (MPI_Finalize) if nabla's loader started it and nobody did yet; call once at process exit after the last collective. Fails, leaving MPI running, after a collective timed out (exit the process instead). NB_OK when MPI was never loaded. */
  nb_comm_finalize(): number;
  /** Stops every process of c's job with exit code `code` (MPI_Abort); returns only if that fails. */
  nb_comm_abort(c: nb_comm | null, code: number): number;
  /** Replaces t, on every rank, by the reduction (NB_REDUCE_OP_*) of all ranks' t. float16 and bfloat16 are reduced in float32 and rounded once. When work is NULL the call waits for completion (and fails after the communicator's timeout); otherwise it starts the transfer and stores a work handle in *work. CPU tensors of any dtype and layout; a tensor written to is updated in place (through a contiguous copy when it is strided or of another wire dtype). */
  nb_comm_all_reduce(c: nb_comm | null, t: nb_tensor | null, op: number, work: BigUint64Array | null): number;
  /** Copies root's t into t on every other rank. When work is NULL the call waits for completion (and fails after the communicator's timeout); otherwise it starts the transfer and stores a work handle in *work. CPU tensors of any dtype and layout; a tensor written to is updated in place (through a contiguous copy when it is strided or of another wire dtype). */
  nb_comm_broadcast(c: nb_comm | null, t: nb_tensor | null, root: number, work: BigUint64Array | null): number;
  /** As nb_comm_all_reduce, but only root's t receives the result; the others' t are left as they were. When work is NULL the call waits for completion (and fails after the communicator's timeout); otherwise it starts the transfer and stores a work handle in *work. CPU tensors of any dtype and layout; a tensor written to is updated in place (through a contiguous copy when it is strided or of another wire dtype). */
  nb_comm_reduce(c: nb_comm | null, t: nb_tensor | null, root: number, op: number, work: BigUint64Array | null): number;
  /** Concatenates every rank's input, in rank order, into output on every rank; output holds size times input's elements, of input's dtype (PyTorch's all_gather_into_tensor). When work is NULL the call waits for completion (and fails after the communicator's timeout); otherwise it starts the transfer and stores a work handle in *work. CPU tensors of any dtype and layout; a tensor written to is updated in place (through a contiguous copy when it is strided or of another wire dtype). */
  nb_comm_all_gather(c: nb_comm | null, output: nb_tensor | null, input: nb_tensor | null, work: BigUint64Array | null): number;
  /** As nb_comm_all_gather into n == size tensors, each of input's element count and dtype: outputs[r] receives rank r's input. When work is NULL the call waits for completion (and fails after the communicator's timeout); otherwise it starts the transfer and stores a work handle in *work. CPU tensors of any dtype and layout; a tensor written to is updated in place (through a contiguous copy when it is strided or of another wire dtype). */
  nb_comm_all_gather_list(c: nb_comm | null, outputs: BigUint64Array | null, n: number, input: nb_tensor | null, work: BigUint64Array | null): number;
  /** Reduces every rank's input (size times output's elements) and gives rank r the r-th equal piece in output (PyTorch's reduce_scatter_tensor). When work is NULL the call waits for completion (and fails after the communicator's timeout); otherwise it starts the transfer and stores a work handle in *work. CPU tensors of any dtype and layout; a tensor written to is updated in place (through a contiguous copy when it is strided or of another wire dtype). */
  nb_comm_reduce_scatter(c: nb_comm | null, output: nb_tensor | null, input: nb_tensor | null, op: number, work: BigUint64Array | null): number;
  /** Concatenates every rank's input, in rank order, into output on root (size times input's elements); output is ignored elsewhere and may be NULL. When work is NULL the call waits for completion (and fails after the communicator's timeout); otherwise it starts the transfer and stores a work handle in *work. CPU tensors of any dtype and layout; a tensor written to is updated in place (through a contiguous copy when it is strided or of another wire dtype). */
  nb_comm_gather(c: nb_comm | null, output: nb_tensor | null, input: nb_tensor | null, root: number, work: BigUint64Array | null): number;
  /** Gives rank r the r-th equal piece of root's input (size times output's elements) in output; input is ignored elsewhere and may be NULL. When work is NULL the call waits for completion (and fails after the communicator's timeout); otherwise it starts the transfer and stores a work handle in *work. CPU tensors of any dtype and layout; a tensor written to is updated in place (through a contiguous copy when it is strided or of another wire dtype). */
  nb_comm_scatter(c: nb_comm | null, output: nb_tensor | null, input: nb_tensor | null, root: number, work: BigUint64Array | null): number;
  /** Rank r sends the r-th piece of input (split along dim 0 by input_splits, in rows; NULL: size equal pieces) to every rank and receives theirs into the pieces of output (output_splits); n_splits is the group size, or 0 when both are NULL, in rank order (PyTorch's all_to_all_single). When work is NULL the call waits for completion (and fails after the communicator's timeout); otherwise it starts the transfer and stores a work handle in *work. CPU tensors of any dtype and layout; a tensor written to is updated in place (through a contiguous copy when it is strided or of another wire dtype). */
  nb_comm_all_to_all(c: nb_comm | null, output: nb_tensor | null, input: nb_tensor | null, output_splits: BigInt64Array | ArrayLike<number | bigint> | null, input_splits: BigInt64Array | ArrayLike<number | bigint> | null, n_splits: number, work: BigUint64Array | null): number;
  /** Sends t to rank dst, matched by a nb_comm_recv with the same tag. When work is NULL the call waits for completion (and fails after the communicator's timeout); otherwise it starts the transfer and stores a work handle in *work. CPU tensors of any dtype and layout; a tensor written to is updated in place (through a contiguous copy when it is strided or of another wire dtype). */
  nb_comm_send(c: nb_comm | null, t: nb_tensor | null, dst: number, tag: number, work: BigUint64Array | null): number;
  /** Receives into t what rank src sent with tag (the same element count and dtype). When work is NULL the call waits for completion (and fails after the communicator's timeout); otherwise it starts the transfer and stores a work handle in *work. CPU tensors of any dtype and layout; a tensor written to is updated in place (through a contiguous copy when it is strided or of another wire dtype). */
  nb_comm_recv(c: nb_comm | null, t: nb_tensor | null, src: number, tag: number, work: BigUint64Array | null): number;
  /** Starts n sends and receives as one batch (PyTorch's batch_isend_irecv): operation i sends tensors[i] to (kinds[i] == NB_P2P_SEND) or receives it from (NB_P2P_RECV) rank peers[i], with tag tags[i] (tags NULL: 0). On NCCL every operation goes into one ncclGroupStart/ncclGroupEnd, so a ring of sends and receives cannot deadlock; on MPI each is a nonblocking request. One work handle covers them all (its wait finishes every operation, in order, and reports the first failure); when work is NULL the call waits for completion (and fails after the communicator's timeout). Tensors of any dtype and layout; a received tensor is updated in place. */
  nb_comm_batch_isend_irecv(c: nb_comm | null, n: number, kinds: Int32Array | ArrayLike<number> | null, tensors: BigUint64Array | null, peers: Int32Array | ArrayLike<number> | null, tags: Int32Array | ArrayLike<number> | null, work: BigUint64Array | null): number;
  /** Completes once every rank of c has called it. When work is NULL the call waits for completion (and fails after the communicator's timeout); otherwise it starts the transfer and stores a work handle in *work. CPU tensors of any dtype and layout; a tensor written to is updated in place (through a contiguous copy when it is strided or of another wire dtype). */
  nb_comm_barrier(c: nb_comm | null, work: BigUint64Array | null): number;
  /** Waits until the work completes (or the communicator's timeout passes) and reports its result; later calls report the same result. */
  nb_work_wait(w: nb_work | null): number;
  /** Sets *done to 1 when the work has completed (then reports its result, as nb_work_wait), else 0; never waits. nabla's progress thread moves asynchronous work along while the caller computes (MPI advances a transfer only inside MPI calls); NABLA_DISTRIBUTED_PROGRESS=0 switches it off, and then only waits and tests move it. */
  nb_work_test(w: nb_work | null, done: Int32Array): number;
  /** Frees a work handle, first waiting for it when it has not completed (its error, if any, is dropped). NULL-safe. */
  nb_work_release(w: nb_work | null): void;
  /** NB_OK when NCCL can be loaded: library (NULL: $NABLA_NCCL_LIBRARY, else libnccl.so.2 from the loader's search path); stores its version (e.g. 22703 for 2.27.3) in *version when version is non-NULL. Otherwise NB_ERR_BACKEND with what was tried and how to install NCCL. */
  nb_comm_nccl_available(library: string | null, version: Int32Array): number;
  /** A communicator over NCCL for CUDA tensors on device device_index (-1: the current CUDA device), with bootstrap's ranks (an MPI communicator: rank 0 makes NCCL's unique id and bootstrap broadcasts it). Collective over bootstrap; NCCL from library (NULL: as nb_comm_nccl_available). On it every collective and point-to-point call takes contiguous or strided tensors on that device, queues its work on the calling thread's current stream and returns without waiting for the device; a work handle's wait makes the current stream wait for it (the host does not block), and barrier first waits for the device. Reductions run in the tensor's dtype (int16 in int32); ReduceOp BAND, BOR and BXOR are refused. NCCL has no tags: sends to a peer match its receives in order. A failure NCCL reports asynchronously (ncclCommGetAsyncError) is returned by the next wait, test, blocking call or barrier on it, and the communicator is refused from then on. A watchdog thread (PyTorch's) watches every queued call: one still running after the communicator's timeout (nb_comm_set_timeout), or an asynchronous NCCL error, aborts the communicator (ncclCommAbort), and every pending or later call on it fails with NB_ERR_BACKEND naming the call, the rank and the time it ran. With TORCH_NCCL_BLOCKING_WAIT=1 (or NABLA_NCCL_BLOCKING_WAIT=1) set when the communicator is made, a wait (and a blocking call) blocks the host until the device finished the work or the timeout passed. */
  nb_comm_init_nccl(bootstrap: nb_comm | null, library: string | null, device_index: number, out: BigUint64Array | null): number;
  /** Gradient unscaling for mixed precision (PyTorch's _amp_foreach_non_finite_check_and_unscale_): multiplies each of the n floating-point gradients in place by inv_scale (a 1-element float32 tensor) and sets found_inf (a 1-element float32 tensor, not cleared) to 1 when any of them holds an inf or NaN. All tensors on one device; nothing is read back to the host, so a device queues the work. Bad input changes no gradient. */
  nb_amp_foreach_non_finite_check_and_unscale_(grads: BigUint64Array | null, n: number, found_inf: nb_tensor | null, inv_scale: nb_tensor | null): number;
  /** The loss scale's update (PyTorch's _amp_update_scale_), in place on the device: when found_inf is non-zero, scale *= backoff_factor and growth_tracker = 0; else growth_tracker + 1 successful steps, and at growth_interval of them scale *= growth_factor (kept when that overflows) and growth_tracker = 0. scale and found_inf: 1-element float32 tensors; growth_tracker: 1-element int32. */
  nb_amp_update_scale_(scale: nb_tensor | null, growth_tracker: nb_tensor | null, found_inf: nb_tensor | null, growth_factor: number, backoff_factor: number, growth_interval: number | bigint): number;
  /** softmax(q k^T * scale + mask) v for q [..., L, E], k [..., S, E], v [..., S, Ev]; attn_mask NULL, bool (true = attend) or float (added); is_causal masks keys after each query; scale NaN = 1/sqrt(E); dropout on the weights from gen (NULL = default generator). */
  nb_scaled_dot_product_attention(q: nb_tensor | null, k: nb_tensor | null, v: nb_tensor | null, attn_mask: nb_tensor | null, dropout_p: number, is_causal: number, scale: number, gen: nb_generator | null, out: BigUint64Array | null): number;
  /** a + alpha * b, broadcast, with PyTorch's type promotion (bool: logical or). dst/out by convention. */
  nb_add(a: nb_tensor | null, b: nb_tensor | null, alpha: number, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** a - alpha * b (not for bool operands). dst/out by convention. */
  nb_sub(a: nb_tensor | null, b: nb_tensor | null, alpha: number, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** a * b (bool: logical and). dst/out by convention. */
  nb_mul(a: nb_tensor | null, b: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** a / b: true division (integers give the default float dtype) or rounded by NB_ROUND_TRUNC / NB_ROUND_FLOOR; integer division by zero fails. dst/out by convention. */
  nb_div(a: nb_tensor | null, b: nb_tensor | null, rounding_mode: number, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** floor(a / b), Python's //. dst/out by convention. */
  nb_floor_divide(a: nb_tensor | null, b: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** a - b * floor(a / b): the sign of b, Python's %. dst/out by convention. */
  nb_remainder(a: nb_tensor | null, b: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** C's fmod: the sign of a. dst/out by convention. */
  nb_fmod(a: nb_tensor | null, b: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** a ** b; for integers a negative scalar exponent fails and negative tensor exponents give 0 (except for bases 1 and -1), as in PyTorch. dst/out by convention. */
  nb_pow(a: nb_tensor | null, b: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** Elementwise max; NaN propagates. dst/out by convention. */
  nb_maximum(a: nb_tensor | null, b: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** Elementwise min; NaN propagates. dst/out by convention. */
  nb_minimum(a: nb_tensor | null, b: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** atan2(a, b) in radians (integers give the default float dtype). dst/out by convention. */
  nb_atan2(a: nb_tensor | null, b: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** The regularised lower incomplete gamma function P(a, b) (torch.special.gammainc), floating inputs only, float64-accurate; NaN where a < 0 or b < 0. Differentiable in b only, as PyTorch. dst/out by convention. */
  nb_igamma(a: nb_tensor | null, b: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** The regularised upper incomplete gamma function Q(a, b) = 1 - P(a, b) (torch.special.gammaincc), computed without the cancellation. dst/out by convention. */
  nb_igammac(a: nb_tensor | null, b: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** The next value after a toward b in the result dtype (floating only; float16 and bfloat16 step in their own precision). dst/out by convention. */
  nb_nextafter(a: nb_tensor | null, b: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** a == b as bool, compared in the promoted dtype. dst/out by convention. */
  nb_eq(a: nb_tensor | null, b: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** a != b as bool, compared in the promoted dtype. dst/out by convention. */
  nb_ne(a: nb_tensor | null, b: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** a < b as bool, compared in the promoted dtype. dst/out by convention. */
  nb_lt(a: nb_tensor | null, b: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** a <= b as bool, compared in the promoted dtype. dst/out by convention. */
  nb_le(a: nb_tensor | null, b: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** a > b as bool, compared in the promoted dtype. dst/out by convention. */
  nb_gt(a: nb_tensor | null, b: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** a >= b as bool, compared in the promoted dtype. dst/out by convention. */
  nb_ge(a: nb_tensor | null, b: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** (a != 0) and (b != 0) as bool. dst/out by convention. */
  nb_logical_and(a: nb_tensor | null, b: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** (a != 0) or (b != 0) as bool. dst/out by convention. */
  nb_logical_or(a: nb_tensor | null, b: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** (a != 0) xor (b != 0) as bool. dst/out by convention. */
  nb_logical_xor(a: nb_tensor | null, b: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** a & b on integer and bool tensors. dst/out by convention. */
  nb_bitwise_and(a: nb_tensor | null, b: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** a | b on integer and bool tensors. dst/out by convention. */
  nb_bitwise_or(a: nb_tensor | null, b: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** a ^ b on integer and bool tensors. dst/out by convention. */
  nb_bitwise_xor(a: nb_tensor | null, b: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** a << b on integers (shifts past the width give 0). dst/out by convention. */
  nb_bitwise_left_shift(a: nb_tensor | null, b: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** a >> b on integers, arithmetic for signed types. dst/out by convention. */
  nb_bitwise_right_shift(a: nb_tensor | null, b: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** out[i][j] = x[index[i][j]][j] (dim 0): index (int64 or int32) has x's ndim and is no larger than x apart from dim; out has index's shape. */
  nb_gather(x: nb_tensor | null, dim: number | bigint, index: nb_tensor | null, out: BigUint64Array | null): number;
  /** A copy of x with x[index[i][j]][j] = src[i][j] (dim 0); src has x's dtype. Duplicate indices: the last write wins. dst/out by convention. */
  nb_scatter(x: nb_tensor | null, dim: number | bigint, index: nb_tensor | null, src: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** nb_scatter with a 0-dim value (converted to x's dtype) in place of src. dst/out by convention. */
  nb_scatter_value(x: nb_tensor | null, dim: number | bigint, index: nb_tensor | null, value: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** A copy of x with x[index[i][j]][j] += src[i][j] (dim 0); duplicates accumulate. dst/out by convention. */
  nb_scatter_add(x: nb_tensor | null, dim: number | bigint, index: nb_tensor | null, src: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** PyTorch's scatter_reduce: a copy of x with each src[i][j] reduced into x[index[i][j]][j] (dim 0) by reduce (NB_SCATTER_*); src has x's dtype and index's rank. include_self 0: the places that receive values start from the reduction's identity instead of x's value (mean then counts only the values received); places that receive nothing keep x's value. dst/out by convention. */
  nb_scatter_reduce(x: nb_tensor | null, dim: number | bigint, index: nb_tensor | null, src: nb_tensor | null, reduce: number, include_self: number, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** The entries of x at the positions of the 1-D int64/int32 index along dim. */
  nb_index_select(x: nb_tensor | null, dim: number | bigint, index: nb_tensor | null, out: BigUint64Array | null): number;
  /** A copy of x with x.select(dim, index[i]) += alpha * source.select(dim, i); duplicates accumulate. dst/out by convention. */
  nb_index_add(x: nb_tensor | null, dim: number | bigint, index: nb_tensor | null, source: nb_tensor | null, alpha: number, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** x with the elements where the bool mask (broadcast) is true set to the 0-dim value (converted to x's dtype). dst/out by convention. */
  nb_masked_fill(x: nb_tensor | null, mask: nb_tensor | null, value: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** The 1-D tensor of the elements of x (broadcast with the bool mask) where mask is true, in row-major order. */
  nb_masked_select(x: nb_tensor | null, mask: nb_tensor | null, out: BigUint64Array | null): number;
  /** The [n, ndim] int64 coordinates of the nonzero elements of x in row-major order (NaN counts as nonzero). */
  nb_nonzero(x: nb_tensor | null, out: BigUint64Array | null): number;
  /** Gathers along dim after broadcasting x and the int64 indices apart from dim; with has_dim 0, along the flattened x. */
  nb_take_along_dim(x: nb_tensor | null, indices: nb_tensor | null, dim: number | bigint, has_dim: number, out: BigUint64Array | null): number;
  /** The int64 one-hot encoding of the int64 class values x: shape x.shape + [num_classes]; num_classes -1 infers max + 1. */
  nb_one_hot(x: nb_tensor | null, num_classes: number | bigint, out: BigUint64Array | null): number;
  /** Advanced indexing x[indices]: one entry per leading dim, NULL for a full slice, else an int64/int32 index or a bool/uint8 mask (one dim per mask dim). Index tensors broadcast together; their shape replaces the indexed dims, or leads the result when a full slice separates them (NumPy's rule). Negative indices count from the end. */
  nb_index(x: nb_tensor | null, indices: BigUint64Array | null, n: number, out: BigUint64Array | null): number;
  /** x[indices] = values (broadcast to the indexing result; x's dtype), or += with accumulate; duplicate indices without accumulate: the last write wins. Indices as in nb_index. dst/out by convention. */
  nb_index_put(x: nb_tensor | null, indices: BigUint64Array | null, n: number, values: nb_tensor | null, accumulate: number, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** torch.matmul: 1-D @ 1-D is a dot product (0-dim result), 2-D @ 2-D a matrix product, a 1-D operand gains a size-1 dim that is removed from the result, and batch dims (all but the last two) broadcast. Both operands must have the same dtype (no promotion); float16/bfloat16 accumulate in float32, integers wrap, bool is not supported. dst/out by convention; dst must have the result's shape and the operands' dtype. */
  nb_matmul(a: nb_tensor | null, b: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** Matrix product of two 2-D tensors [n, m] @ [m, p] -> [n, p], same dtype. dst/out by convention; dst must have the result's shape and the operands' dtype. */
  nb_mm(a: nb_tensor | null, b: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** Batched matrix product [b, n, m] @ [b, m, p] -> [b, n, p] (no broadcasting), same dtype. dst/out by convention; dst must have the result's shape and the operands' dtype. */
  nb_bmm(a: nb_tensor | null, b: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** Matrix-vector product [n, m] @ [m] -> [n], same dtype. dst/out by convention; dst must have the result's shape and the operands' dtype. */
  nb_mv(a: nb_tensor | null, v: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** Dot product of two 1-D tensors of equal length and dtype -> 0-dim. dst/out by convention; dst must have the result's shape and the operands' dtype. */
  nb_dot(a: nb_tensor | null, b: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** Outer product of two 1-D tensors [n], [m] -> [n, m], computed as an elementwise product: dtypes promote, bool is allowed. dst/out by convention; dst has shape [n, m] and any dtype the result casts to. */
  nb_outer(a: nb_tensor | null, b: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** beta * input + alpha * (mat1 @ mat2), input broadcast to [n, p]; beta == 0 ignores input (NaN included). Integer dtypes truncate alpha and beta. dst/out by convention; dst must have the result's shape and the operands' dtype. */
  nb_addmm(input: nb_tensor | null, mat1: nb_tensor | null, mat2: nb_tensor | null, beta: number, alpha: number, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** beta * input + alpha * bmm(batch1, batch2), input broadcast to [b, n, p]; beta == 0 ignores input. Integer dtypes truncate alpha and beta. dst/out by convention; dst must have the result's shape and the operands' dtype. */
  nb_baddbmm(input: nb_tensor | null, batch1: nb_tensor | null, batch2: nb_tensor | null, beta: number, alpha: number, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** torch.nn.functional.linear: matmul(input [*, in], weight.t()) with weight [out, in] (or [in]) plus bias (NULL for none) broadcast to the result; one dtype for all. dst/out by convention; dst must have the result's shape and the operands' dtype. */
  nb_linear(input: nb_tensor | null, weight: nb_tensor | null, bias: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** The inverse of each square float32/float64 matrix of A [..., n, n] (LU with partial pivoting). A singular matrix fails with NB_ERR_LINALG naming the zero diagonal element of U (and the batch element). */
  nb_linalg_inv(A: nb_tensor | null, out: BigUint64Array | null): number;
  /** X with A X = B (left 1) or X A = B (left 0) for square A [..., n, n]; B is [..., n, k] (left) or [..., k, n], or a vector [..., n] when 1-D or shaped like A without its last dim (PyTorch's rule); batch dims broadcast. A singular A fails with NB_ERR_LINALG. */
  nb_linalg_solve(A: nb_tensor | null, B: nb_tensor | null, left: number, out: BigUint64Array | null): number;
  /** The determinant of each square matrix of A [..., n, n], from its LU factors (0 for a singular one). */
  nb_linalg_det(A: nb_tensor | null, out: BigUint64Array | null): number;
  /** The sign (-1, 0 or 1) and log|det| (-inf for a singular matrix) of each square matrix of A. */
  nb_linalg_slogdet(A: nb_tensor | null, sign: BigUint64Array | null, logabsdet: BigUint64Array | null): number;
  /** The Cholesky factor L (A = L L^T; upper 1: U with A = U^T U) of each symmetric positive-definite matrix of A, read from its lower triangle (upper 1: the upper one); the other triangle of the result is zero. A matrix that is not positive-definite fails with NB_ERR_LINALG naming the leading minor. */
  nb_linalg_cholesky(A: nb_tensor | null, upper: number, out: BigUint64Array | null): number;
  /** A [..., m, n] = Q R (Householder, LAPACK's signs) with Q orthonormal and R upper triangular; mode NB_QR_REDUCED, NB_QR_COMPLETE or NB_QR_R (Q then empty). Differentiable in modes reduced and complete (the latter when m <= n), as in PyTorch. */
  nb_linalg_qr(A: nb_tensor | null, mode: number, Q: BigUint64Array | null, R: BigUint64Array | null): number;
  /** Eigenvalues (ascending, [..., n]) and, when eigenvectors is non-NULL, orthonormal eigenvectors (the columns of [..., n, n]) of each symmetric matrix of A, read from its lower triangle (upper 1: the upper one). No convergence fails with NB_ERR_LINALG. */
  nb_linalg_eigh(A: nb_tensor | null, upper: number, eigenvalues: BigUint64Array | null, eigenvectors: BigUint64Array | null): number;
  /** A [..., m, n] = U diag(S) Vh (divide and conquer): S [..., k] descending with k = min(m, n), U [..., m, k] and Vh [..., k, n] (full_matrices: [..., m, m] and [..., n, n]); U and Vh both NULL: singular values only. An empty matrix has identity U / Vh, as in PyTorch. */
  nb_linalg_svd(A: nb_tensor | null, full_matrices: number, U: BigUint64Array | null, S: BigUint64Array | null, Vh: BigUint64Array | null): number;
  /** nb_linalg_inv without failing on the values: info (int32, A's batch shape) is 0, or for a singular matrix the position of the zero diagonal element of U, whose inverse then holds the infinities and NaNs of solving A X = I from its LU factors (as PyTorch's inv_ex). */
  nb_linalg_inv_ex(A: nb_tensor | null, inverse: BigUint64Array | null, info: BigUint64Array | null): number;
  /** nb_linalg_solve without failing on the values: info (int32, the broadcast batch shape) is 0, or for a singular A the position of the zero diagonal element of U (the result then holds infinities and NaNs). */
  nb_linalg_solve_ex(A: nb_tensor | null, B: nb_tensor | null, left: number, result: BigUint64Array | null, info: BigUint64Array | null): number;
  /** nb_linalg_cholesky without failing on the values: info (int32, A's batch shape) is 0, or the order of the leading minor that is not positive-definite (the factor then holds LAPACK's partial work). */
  nb_linalg_cholesky_ex(A: nb_tensor | null, upper: number, L: BigUint64Array | null, info: BigUint64Array | null): number;
  /** X with A X = B (left 1) or X A = B (left 0), reading only the upper (upper 1) or lower triangle of A [..., n, n] (unitriangular 1: ones assumed on its diagonal); B is [..., n, k] (left) or [..., k, n], batch dims broadcast. A zero on the diagonal gives infinities and NaNs, not an error (BLAS trsm, as PyTorch). */
  nb_linalg_solve_triangular(A: nb_tensor | null, B: nb_tensor | null, upper: number, left: number, unitriangular: number, out: BigUint64Array | null): number;
  /** The Bunch-Kaufman factorization A = L D L^T of each symmetric float32/float64 matrix of A [..., n, n], read from its lower triangle (LAPACK's sytrf, lower; hermitian is the same for real dtypes): LD [..., n, n] holds L below the diagonal and the 1x1 / 2x2 blocks of D on and next to it (zero above), pivots (int32 [..., n]) LAPACK's 1-based interchanges (negative for a 2x2 block), info (int32, A's batch shape) 0 or the position of a zero diagonal block of D, as PyTorch's ldl_factor_ex. */
  nb_linalg_ldl_factor_ex(A: nb_tensor | null, hermitian: number, LD: BigUint64Array | null, pivots: BigUint64Array | null, info: BigUint64Array | null): number;
  /** X with A X = B from nb_linalg_ldl_factor_ex's LD [..., n, n] and pivots [..., n] (any integer dtype) of A (LAPACK's sytrs); B is [..., n, k] of LD's dtype, batch dims broadcast. */
  nb_linalg_ldl_solve(LD: nb_tensor | null, pivots: nb_tensor | null, B: nb_tensor | null, hermitian: number, out: BigUint64Array | null): number;
  /** 1-D convolution (cross-correlation) of input [N, C_in, L] with weight [C_out, C_in / groups, kW] plus optional bias [C_out]; zero padding may differ on the two sides (PyTorch's padding='same'). Floating dtypes; input, weight and bias share one dtype. dst/out by convention. */
  nb_conv1d(input: nb_tensor | null, weight: nb_tensor | null, bias: nb_tensor | null, stride: number | bigint, padding_left: number | bigint, padding_right: number | bigint, dilation: number | bigint, groups: number | bigint, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** 2-D convolution of input [N, C_in, H, W] with weight [C_out, C_in / groups, kH, kW] plus optional bias [C_out]. stride[2] and dilation[2] are (H, W); padding[4] is (top, left, bottom, right), zeros. Floating dtypes; input, weight and bias share one dtype. dst/out by convention. */
  nb_conv2d(input: nb_tensor | null, weight: nb_tensor | null, bias: nb_tensor | null, stride: BigInt64Array | ArrayLike<number | bigint> | null, padding: BigInt64Array | ArrayLike<number | bigint> | null, dilation: BigInt64Array | ArrayLike<number | bigint> | null, groups: number | bigint, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** Transposed 2-D convolution of input [N, C_in, H, W] with weight [C_in, C_out / groups, kH, kW] plus optional bias [C_out]; stride, padding, output_padding and dilation are (H, W) pairs; output size (in - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1. dst/out by convention. */
  nb_conv_transpose2d(input: nb_tensor | null, weight: nb_tensor | null, bias: nb_tensor | null, stride: BigInt64Array | ArrayLike<number | bigint> | null, padding: BigInt64Array | ArrayLike<number | bigint> | null, output_padding: BigInt64Array | ArrayLike<number | bigint> | null, dilation: BigInt64Array | ArrayLike<number | bigint> | null, groups: number | bigint, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** Max pooling over input [N, C, H, W] (floating); (H, W) pairs, stride NULL meaning kernel_size, dilation NULL meaning 1; padding counts as -inf and NaN wins. When indices is not NULL it receives an int64 tensor of the argmax positions, flat within each input plane (h * W + w). dst/out by convention. */
  nb_max_pool2d(input: nb_tensor | null, kernel_size: BigInt64Array | ArrayLike<number | bigint> | null, stride: BigInt64Array | ArrayLike<number | bigint> | null, padding: BigInt64Array | ArrayLike<number | bigint> | null, dilation: BigInt64Array | ArrayLike<number | bigint> | null, ceil_mode: number, indices: BigUint64Array | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** Average pooling over input [N, C, H, W] (floating); (H, W) pairs, stride NULL meaning kernel_size. The divisor is divisor_override when non-zero, else the window size with (count_include_pad) or without the zero padding. dst/out by convention. */
  nb_avg_pool2d(input: nb_tensor | null, kernel_size: BigInt64Array | ArrayLike<number | bigint> | null, stride: BigInt64Array | ArrayLike<number | bigint> | null, padding: BigInt64Array | ArrayLike<number | bigint> | null, ceil_mode: number, count_include_pad: number, divisor_override: number | bigint, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** Adaptive average pooling of input [N, C, H, W] to output_size[2] = (OH, OW): cell i averages rows floor(i * H / OH) to ceil((i + 1) * H / OH), likewise columns. dst/out by convention. */
  nb_adaptive_avg_pool2d(input: nb_tensor | null, output_size: BigInt64Array | ArrayLike<number | bigint> | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** Layer normalization over the trailing dims normalized_shape[ndim]: (x - mean) / sqrt(var + eps) (biased variance) times weight plus bias, both optional and shaped normalized_shape, in the input's dtype. dst/out by convention. */
  nb_layer_norm(input: nb_tensor | null, normalized_shape: BigInt64Array | ArrayLike<number | bigint> | null, ndim: number, weight: nb_tensor | null, bias: nb_tensor | null, eps: number, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** Batch normalization of input [N, C, *] per channel. training: batch statistics (biased variance), and running_mean / running_var (optional, C elements) are updated in place as (1 - momentum) * running + momentum * batch stat (unbiased variance). Otherwise the running stats (required) are used. weight and bias optional [C]. dst/out by convention. */
  nb_batch_norm(input: nb_tensor | null, running_mean: nb_tensor | null, running_var: nb_tensor | null, weight: nb_tensor | null, bias: nb_tensor | null, training: number, momentum: number, eps: number, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** Group normalization of input [N, C, *]: statistics over each of num_groups groups of C / num_groups channels (and all positions) per item, then per-channel weight and bias (optional [C]). dst/out by convention. */
  nb_group_norm(input: nb_tensor | null, num_groups: number | bigint, weight: nb_tensor | null, bias: nb_tensor | null, eps: number, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** Negative log-likelihood of log-probabilities input [C], [N, C] or [N, C, d1, ...] at class-index target (int64 or uint8; [], [N] or [N, d1, ...]), times weight[class] (optional [C]); targets equal to ignore_index count nothing. reduction: NB_REDUCTION_NONE, _MEAN (divided by the summed weights) or _SUM. Out-of-range targets fail with NB_ERR_INDEX. dst/out by convention. */
  nb_nll_loss(input: nb_tensor | null, target: nb_tensor | null, weight: nb_tensor | null, ignore_index: number | bigint, reduction: number, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** Cross entropy of logits input (class dim 1, or 0 when unbatched) against class indices (as nb_nll_loss on log_softmax) or, for a floating target shaped like the input, class probabilities (mean divides by the number of positions). label_smoothing in [0, 1] mixes in the uniform distribution as PyTorch does. reduction: NB_REDUCTION_NONE, _MEAN or _SUM. dst/out by convention. */
  nb_cross_entropy(input: nb_tensor | null, target: nb_tensor | null, weight: nb_tensor | null, ignore_index: number | bigint, reduction: number, label_smoothing: number, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** (input - target)^2, broadcast, times weight (optional, the input's shape; the mean then divides by the summed weights), in the promoted floating dtype; reduction NB_REDUCTION_NONE / _MEAN / _SUM. dst/out by convention. */
  nb_mse_loss(input: nb_tensor | null, target: nb_tensor | null, weight: nb_tensor | null, reduction: number, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** |input - target|, broadcast, times weight (optional, the input's shape; the mean then divides by the summed weights); reduction NB_REDUCTION_NONE / _MEAN / _SUM. dst/out by convention. */
  nb_l1_loss(input: nb_tensor | null, target: nb_tensor | null, weight: nb_tensor | null, reduction: number, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** 0.5 z^2 / beta where z = |input - target| < beta, else z - 0.5 beta (beta >= 0; 0 gives L1); reduction NB_REDUCTION_NONE / _MEAN / _SUM. dst/out by convention. */
  nb_smooth_l1_loss(input: nb_tensor | null, target: nb_tensor | null, reduction: number, beta: number, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** 0.5 z^2 where z = |input - target| < delta, else delta (z - 0.5 delta) (delta > 0), times weight (optional, the input's shape; the mean divides by the element count); reduction NB_REDUCTION_NONE / _MEAN / _SUM. dst/out by convention. */
  nb_huber_loss(input: nb_tensor | null, target: nb_tensor | null, weight: nb_tensor | null, reduction: number, delta: number, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** -weight (target log(input) + (1 - target) log(1 - input)) with the logs clamped at -100; input in [0, 1], target of the input's shape and dtype, weight (optional) broadcast to it; reduction NB_REDUCTION_NONE / _MEAN / _SUM. dst/out by convention. */
  nb_binary_cross_entropy(input: nb_tensor | null, target: nb_tensor | null, weight: nb_tensor | null, reduction: number, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** -weight (pos_weight target log(sigmoid(x)) + (1 - target) log(1 - sigmoid(x))), computed stably from the logits x; target of the input's shape, weight and pos_weight (optional) broadcast; reduction NB_REDUCTION_NONE / _MEAN / _SUM. dst/out by convention. */
  nb_binary_cross_entropy_with_logits(input: nb_tensor | null, target: nb_tensor | null, weight: nb_tensor | null, pos_weight: nb_tensor | null, reduction: number, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** Pointwise KL divergence with input as log-probabilities: target (log(target) - input), 0 where target is 0; with log_target, exp(target) (target - input). Broadcast; reduction NB_REDUCTION_NONE / _MEAN / _SUM ('batchmean' is sum / batch size). dst/out by convention. */
  nb_kl_div(input: nb_tensor | null, target: nb_tensor | null, reduction: number, log_target: number, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** Rows of weight [num_embeddings, dim] (any dtype) at indices (int64 or int32, any shape): output indices.shape + [dim]. Indices out of range fail with NB_ERR_INDEX. padding_idx (negative for none) only affects the gradient. dst/out by convention. */
  nb_embedding(weight: nb_tensor | null, indices: nb_tensor | null, padding_idx: number | bigint, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** Pads the last npad / 2 dims by pad = (last before, last after, second-to-last before, ...) as PyTorch's F.pad. mode NB_PAD_CONSTANT (value, converted to the dtype; negative pads crop), NB_PAD_REFLECT, NB_PAD_REPLICATE or NB_PAD_CIRCULAR (these three: the last 1-3 dims of a tensor with one or two more dims). Any dtype. dst/out by convention. */
  nb_pad(input: nb_tensor | null, pad: BigInt64Array | ArrayLike<number | bigint> | null, npad: number, mode: number, value: number, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** Gradient of nb_conv2d with respect to its input [N, C, H, W] (input_size = (H, W)), from grad_output [N, C_out, OH, OW] and weight [C_out, C / groups, kH, kW]; attributes as nb_conv2d (padding[4]). Computed as a transposed convolution (col2im). dst/out by convention. */
  nb_conv2d_backward_input(grad_output: nb_tensor | null, weight: nb_tensor | null, input_size: BigInt64Array | ArrayLike<number | bigint> | null, stride: BigInt64Array | ArrayLike<number | bigint> | null, padding: BigInt64Array | ArrayLike<number | bigint> | null, dilation: BigInt64Array | ArrayLike<number | bigint> | null, groups: number | bigint, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** Gradient of nb_conv2d with respect to its weight [C_out, C / groups, kH, kW] (kernel_size = (kH, kW)), from grad_output [N, C_out, OH, OW] and input [N, C, H, W]; attributes as nb_conv2d. One GEMM over im2col(input) per image tile. dst/out by convention. */
  nb_conv2d_backward_weight(grad_output: nb_tensor | null, input: nb_tensor | null, kernel_size: BigInt64Array | ArrayLike<number | bigint> | null, stride: BigInt64Array | ArrayLike<number | bigint> | null, padding: BigInt64Array | ArrayLike<number | bigint> | null, dilation: BigInt64Array | ArrayLike<number | bigint> | null, groups: number | bigint, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** Gradient of nb_max_pool2d with respect to its input [N, C, H, W] (input_size = (H, W)): grad_output [N, C, OH, OW] summed into the argmax positions indices (int64, as nb_max_pool2d returns them). dst/out by convention. */
  nb_max_pool2d_backward(grad_output: nb_tensor | null, indices: nb_tensor | null, input_size: BigInt64Array | ArrayLike<number | bigint> | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** Gradient of nb_avg_pool2d with respect to its input [N, C, H, W] (input_size = (H, W)) from grad_output [N, C, OH, OW]; attributes as nb_avg_pool2d (stride NULL meaning kernel_size; ceil_mode is implied by OH, OW). dst/out by convention. */
  nb_avg_pool2d_backward(grad_output: nb_tensor | null, input_size: BigInt64Array | ArrayLike<number | bigint> | null, kernel_size: BigInt64Array | ArrayLike<number | bigint> | null, stride: BigInt64Array | ArrayLike<number | bigint> | null, padding: BigInt64Array | ArrayLike<number | bigint> | null, count_include_pad: number, divisor_override: number | bigint, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** Gradient of nb_adaptive_avg_pool2d with respect to its input [N, C, H, W] (input_size = (H, W)) from grad_output [N, C, OH, OW]. dst/out by convention. */
  nb_adaptive_avg_pool2d_backward(grad_output: nb_tensor | null, input_size: BigInt64Array | ArrayLike<number | bigint> | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** Gradients of nb_layer_norm from grad_output (the input's shape), recomputing the statistics of input: the input gradient into dst/out (by convention; out NULL and dst NULL: not computed), and when not NULL grad_weight and grad_bias (shaped normalized_shape, as if weight and bias were given). weight optional. */
  nb_layer_norm_backward(grad_output: nb_tensor | null, input: nb_tensor | null, normalized_shape: BigInt64Array | ArrayLike<number | bigint> | null, ndim: number, weight: nb_tensor | null, eps: number, grad_weight: BigUint64Array | null, grad_bias: BigUint64Array | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** Gradients of nb_batch_norm in training mode (batch statistics, recomputed from input [N, C, *]) from grad_output (the input's shape): the input gradient into dst/out (by convention; both NULL: not computed), and when not NULL grad_weight and grad_bias ([C]). weight optional [C]. */
  nb_batch_norm_backward(grad_output: nb_tensor | null, input: nb_tensor | null, weight: nb_tensor | null, eps: number, grad_weight: BigUint64Array | null, grad_bias: BigUint64Array | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** Gradients of nb_group_norm from grad_output (the input's shape), recomputing the statistics of input [N, C, *]: the input gradient into dst/out (by convention; both NULL: not computed), and when not NULL grad_weight and grad_bias ([C]). weight optional [C]. */
  nb_group_norm_backward(grad_output: nb_tensor | null, input: nb_tensor | null, num_groups: number | bigint, weight: nb_tensor | null, eps: number, grad_weight: BigUint64Array | null, grad_bias: BigUint64Array | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** Gradient of nb_embedding with respect to its weight: [num_weights, dim] in grad_output's (float) dtype, the rows of grad_output [*indices.shape, dim] summed into the rows their indices (int64 or int32) name, in index order; the padding_idx row (negative for none) stays zero; with scale_grad_by_freq each row's terms are divided by how often its index occurs. On CUDA one deterministic kernel after a stable sort of the indices; an index out of range fails with NB_ERR_INDEX (on a device at the next synchronising call). Differentiable in grad_output (the rows gathered back, frequency scaling ignored, as PyTorch). dst/out by convention. */
  nb_embedding_dense_backward(grad_output: nb_tensor | null, indices: nb_tensor | null, num_weights: number | bigint, padding_idx: number | bigint, scale_grad_by_freq: number, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** The gradient of nb_gelu at input from the output gradient (PyTorch's gelu_backward), fused: grad_output * (Phi(x) + x phi(x)), or the derivative of the tanh approximation when approximate_tanh is 1. Floating inputs, broadcast together and promoted; float16 / bfloat16 compute in float32. dst/out by convention. */
  nb_gelu_backward(grad_output: nb_tensor | null, input: nb_tensor | null, approximate_tanh: number, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** One SGD step in place, PyTorch's formula: g = grad (negated with maximize) + weight_decay * param; with momentum != 0, buf = g when init_buffer (the first step) else momentum * buf + (1 - dampening) * g, and g = g + momentum * buf (nesterov) or buf; param -= lr * g. momentum_buffer (param's shape and dtype) may be NULL when momentum is 0. Floating dtypes; strided operands work through a copy. Bumps the versions of what it writes. */
  nb_sgd_step(param: nb_tensor | null, grad: nb_tensor | null, momentum_buffer: nb_tensor | null, lr: number, momentum: number, dampening: number, weight_decay: number, nesterov: number, maximize: number, init_buffer: number): number;
  /** One Adam (AdamW with decoupled_weight_decay) step in place at step >= 1 (already counted), PyTorch's formula: weight decay scales param by 1 - lr * weight_decay (decoupled) or adds weight_decay * param to the gradient; exp_avg lerps to g by 1 - beta1, exp_avg_sq = beta2 * exp_avg_sq + (1 - beta2) g^2; with amsgrad, max_exp_avg_sq (else may be NULL) keeps the running maximum and is used instead; param -= lr / (1 - beta1^step) * exp_avg / (sqrt(v) / sqrt(1 - beta2^step) + eps). All operands share param's shape and dtype. */
  nb_adam_step(param: nb_tensor | null, grad: nb_tensor | null, exp_avg: nb_tensor | null, exp_avg_sq: nb_tensor | null, max_exp_avg_sq: nb_tensor | null, step: number | bigint, lr: number, beta1: number, beta2: number, eps: number, weight_decay: number, decoupled_weight_decay: number, amsgrad: number, maximize: number): number;
  /** One RMSprop step in place, PyTorch's formula: square_avg = alpha * square_avg + (1 - alpha) g^2; centered: grad_avg lerps to g by 1 - alpha and avg = sqrt(square_avg - grad_avg^2) + eps, else sqrt(square_avg) + eps; with momentum > 0, buf = momentum * buf + g / avg and param -= lr * buf, else param -= lr * g / avg. grad_avg and momentum_buffer may be NULL when unused. */
  nb_rmsprop_step(param: nb_tensor | null, grad: nb_tensor | null, square_avg: nb_tensor | null, grad_avg: nb_tensor | null, momentum_buffer: nb_tensor | null, lr: number, alpha: number, eps: number, weight_decay: number, momentum: number, centered: number, maximize: number): number;
  /** One Adagrad step in place at step >= 1 (already counted), PyTorch's formula: clr = lr / (1 + (step - 1) lr_decay); state_sum += g^2; param -= clr * g / (sqrt(state_sum) + eps). */
  nb_adagrad_step(param: nb_tensor | null, grad: nb_tensor | null, state_sum: nb_tensor | null, step: number | bigint, lr: number, lr_decay: number, eps: number, weight_decay: number, maximize: number): number;
  /** nb_sgd_step over count parameters at once (PyTorch's fused / foreach SGD): params[i] with grads[i] and momentum_buffers[i] (the list may be NULL when momentum is 0); init_buffer applies to every buffer. Same formula and messages as nb_sgd_step; dtypes may differ between parameters (each parameter's state has its dtype); all tensors on one device. Every tensor is checked before any is written, so bad input changes nothing. */
  nb_sgd_step_list(params: BigUint64Array | null, grads: BigUint64Array | null, momentum_buffers: BigUint64Array | null, count: number | bigint, lr: number, momentum: number, dampening: number, weight_decay: number, nesterov: number, maximize: number, init_buffer: number): number;
  /** nb_adam_step over count parameters at once (PyTorch's _fused_adam_: each parameter has its own step count, steps[i] >= 1, already counted); max_exp_avg_sqs may be NULL without amsgrad. Same formula and messages as nb_adam_step; dtypes may differ between parameters; all tensors on one device; every tensor is checked before any is written. */
  nb_adam_step_list(params: BigUint64Array | null, grads: BigUint64Array | null, exp_avgs: BigUint64Array | null, exp_avg_sqs: BigUint64Array | null, max_exp_avg_sqs: BigUint64Array | null, steps: BigInt64Array | ArrayLike<number | bigint> | null, count: number | bigint, lr: number, beta1: number, beta2: number, eps: number, weight_decay: number, decoupled_weight_decay: number, amsgrad: number, maximize: number): number;
  /** nb_rmsprop_step over count parameters at once; grad_avgs may be NULL unless centered, momentum_buffers unless momentum > 0. Same formula and messages as nb_rmsprop_step; dtypes may differ between parameters; all tensors on one device; every tensor is checked before any is written. */
  nb_rmsprop_step_list(params: BigUint64Array | null, grads: BigUint64Array | null, square_avgs: BigUint64Array | null, grad_avgs: BigUint64Array | null, momentum_buffers: BigUint64Array | null, count: number | bigint, lr: number, alpha: number, eps: number, weight_decay: number, momentum: number, centered: number, maximize: number): number;
  /** nb_adagrad_step over count parameters at once, each at its own step count steps[i] >= 1 (already counted). Same formula and messages as nb_adagrad_step; dtypes may differ between parameters; all tensors on one device; every tensor is checked before any is written. */
  nb_adagrad_step_list(params: BigUint64Array | null, grads: BigUint64Array | null, state_sums: BigUint64Array | null, steps: BigInt64Array | ArrayLike<number | bigint> | null, count: number | bigint, lr: number, lr_decay: number, eps: number, weight_decay: number, maximize: number): number;
  /** The norm of order norm_type (> 0, 0 or inf) of all n tensors taken together, as a 0-dim tensor of the first one's dtype (float32 for none); when max_norm / (norm + 1e-6) < 1 every tensor is multiplied by it in place (PyTorch's clip_grad_norm_; max_norm = inf only measures). A non-finite norm fails with error_if_nonfinite. On a device the norm and the scaling stay there (a few multi-tensor launches, nothing read back) unless error_if_nonfinite, which reads the norm. */
  nb_clip_grad_norm_(grads: BigUint64Array | null, n: number, max_norm: number, norm_type: number, error_if_nonfinite: number, out: BigUint64Array | null): number;
  /** Clamps every element of the n floating-point tensors to [-clip_value, clip_value] in place (PyTorch's clip_grad_value_; NaN stays NaN). All tensors on one device; a device runs it without reading anything back. */
  nb_clip_grad_value_(grads: BigUint64Array | null, n: number, clip_value: number): number;
  /** A new generator with the given seed and offset 0; release it with nb_generator_release. */
  nb_generator_create(seed: number | bigint, out: BigUint64Array | null): number;
  /** Frees a generator made by nb_generator_create. NULL-safe; does nothing to the default generator. A released handle is refused, and a double release warned about, as for nb_tensor_release. */
  nb_generator_release(gen: nb_generator | null): void;
  /** The process default generator (seed 67280421310721 at start, as PyTorch's); static, never released. */
  nb_default_generator(): nb_generator | null;
  /** Seeds the default generator (offset back to 0). */
  nb_manual_seed(seed: number | bigint): number;
  /** Sets the seed and rewinds the offset to 0 (gen NULL: the default generator). */
  nb_generator_manual_seed(gen: nb_generator | null, seed: number | bigint): number;
  /** The generator's seed (PyTorch's initial_seed). */
  nb_generator_seed(gen: nb_generator | null, out: BigUint64Array): number;
  /** The whole state: seed and offset (in Philox blocks of 4 x 32 bits). Restoring it with nb_generator_set_state replays the same numbers. */
  nb_generator_get_state(gen: nb_generator | null, seed: BigUint64Array, offset: BigUint64Array): number;
  /** Restores a state from nb_generator_get_state. */
  nb_generator_set_state(gen: nb_generator | null, seed: number | bigint, offset: number | bigint): number;
  /** Uniform values on [0, 1) in a floating dtype (float16/bfloat16 get values exact in their precision). gen NULL means the default generator. dst/out by convention; dst's shape, dtype and device must match the request. */
  nb_rand(shape: BigInt64Array | ArrayLike<number | bigint> | null, ndim: number, dtype: number, device_type: number, device_index: number, gen: nb_generator | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** Standard normal values (Box-Muller) in a floating dtype (float16/bfloat16 computed as float32 and rounded). gen NULL means the default generator. dst/out by convention; dst's shape, dtype and device must match the request. */
  nb_randn(shape: BigInt64Array | ArrayLike<number | bigint> | null, ndim: number, dtype: number, device_type: number, device_index: number, gen: nb_generator | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** Integers uniform on [low, high) in any dtype that holds both bounds exactly (floats: within +-2^mantissa digits). gen NULL means the default generator. dst/out by convention; dst's shape, dtype and device must match the request. */
  nb_randint(low: number | bigint, high: number | bigint, shape: BigInt64Array | ArrayLike<number | bigint> | null, ndim: number, dtype: number, device_type: number, device_index: number, gen: nb_generator | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** A random permutation of 0 .. n-1 (Fisher-Yates on the generator's stream), 1-D. gen NULL means the default generator. dst/out by convention; dst's shape, dtype and device must match the request. */
  nb_randperm(n: number | bigint, dtype: number, device_type: number, device_index: number, gen: nb_generator | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** Fills a floating tensor in place with values uniform on [from, to) (from <= to, both finite). Bumps t's version. gen NULL means the default generator. */
  nb_uniform_(t: nb_tensor | null, from: number, to: number, gen: nb_generator | null): number;
  /** Fills a floating tensor in place with normal values (std >= 0). Bumps t's version. gen NULL means the default generator. */
  nb_normal_(t: nb_tensor | null, mean: number, std: number, gen: nb_generator | null): number;
  /** Fills t in place with integers uniform on [low, high_inclusive] (inclusive, so a dtype's whole range is expressible; PyTorch's random_(from, to) is [from, to - 1]). Bumps t's version. gen NULL means the default generator. */
  nb_random_(t: nb_tensor | null, low: number | bigint, high_inclusive: number | bigint, gen: nb_generator | null): number;
  /** 1 with probability p[i], else 0, in p's shape and (floating) dtype; every p[i] must be in [0, 1]. With dst non-NULL, p broadcasts to dst's shape and the 0/1 values take dst's dtype; dst/out otherwise by convention. gen NULL means the default generator. */
  nb_bernoulli(p: nb_tensor | null, gen: nb_generator | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** 1 with probability p (in [0, 1]), else 0, in any dtype. gen NULL means the default generator. dst/out by convention; dst's shape, dtype and device must match the request. */
  nb_bernoulli_scalar(p: number, shape: BigInt64Array | ArrayLike<number | bigint> | null, ndim: number, dtype: number, device_type: number, device_index: number, gen: nb_generator | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** int64 category indices drawn from each row of probs (1-D [k] or 2-D [rows, k]; non-negative finite weights, not necessarily normalised, each row summing > 0): shape [num_samples] or [rows, num_samples]. Without replacement, num_samples <= k and zero-weight categories come only after every positive one. gen NULL means the default generator. dst/out by convention. */
  nb_multinomial(probs: nb_tensor | null, num_samples: number | bigint, replacement: number, gen: nb_generator | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** Training (train != 0): each element of a floating x is zeroed with probability p and the rest are scaled by 1/(1-p), so the expectation is kept; p = 1 gives zeros (x * 0). The keep mask is bernoulli(1 - p) from the same stream. Not training: x itself (a new reference), or a copy into dst. dst must have x's shape and a floating dtype (dst == x is in-place). gen NULL means the default generator. Differentiable: the gradient is go times the same scaled mask (the identity when not training or p = 0). */
  nb_dropout(x: nb_tensor | null, p: number, train: number, gen: nb_generator | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** Sum over dims[ndims] (negative dims wrap, no duplicates; ndims 0 = every dim, and dims may then be NULL), keepdim keeps them as size 1. dtype (-1: default; else out's dtype when dst is given) is the result dtype, the input is cast to it first. Integer and bool inputs give int64 by default. float32 sums are pairwise in float inside 128-element blocks and accumulate in double; float64 sums are pairwise; float16/bfloat16 accumulate as float32 and round once. The sum of nothing is 0. dst/out by convention; dst must have the result's shape and dtype. */
  nb_sum(t: nb_tensor | null, dims: BigInt64Array | ArrayLike<number | bigint> | null, ndims: number, keepdim: number, dtype: number, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** Mean over dims[ndims] (negative dims wrap, no duplicates; ndims 0 = every dim, and dims may then be NULL), keepdim keeps them as size 1. dtype (-1: default; else out's dtype when dst is given) is the result dtype, the input is cast to it first. Floating point only (an integer input needs a floating dtype). Accumulates as nb_sum; the mean of nothing is NaN. dst/out by convention; dst must have the result's shape and dtype. */
  nb_mean(t: nb_tensor | null, dims: BigInt64Array | ArrayLike<number | bigint> | null, ndims: number, keepdim: number, dtype: number, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** Product over dims[ndims] (negative dims wrap, no duplicates; ndims 0 = every dim, and dims may then be NULL), keepdim keeps them as size 1. dtype (-1: default; else out's dtype when dst is given) is the result dtype, the input is cast to it first. Integer and bool inputs give int64 by default (wrapping); floats multiply in double. The product of nothing is 1. dst/out by convention; dst must have the result's shape and dtype. */
  nb_prod(t: nb_tensor | null, dims: BigInt64Array | ArrayLike<number | bigint> | null, ndims: number, keepdim: number, dtype: number, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** Maximum over dims[ndims] (negative dims wrap, no duplicates; ndims 0 = every dim, and dims may then be NULL), keepdim keeps them as size 1; the input's dtype; NaN propagates. Reducing an empty dim fails (no identity). dst/out by convention; dst must have the result's shape and dtype. */
  nb_amax(t: nb_tensor | null, dims: BigInt64Array | ArrayLike<number | bigint> | null, ndims: number, keepdim: number, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** Minimum over dims[ndims] (negative dims wrap, no duplicates; ndims 0 = every dim, and dims may then be NULL), keepdim keeps them as size 1; the input's dtype; NaN propagates. Reducing an empty dim fails (no identity). dst/out by convention; dst must have the result's shape and dtype. */
  nb_amin(t: nb_tensor | null, dims: BigInt64Array | ArrayLike<number | bigint> | null, ndims: number, keepdim: number, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** PyTorch's max(t, dim, keepdim): two results, the maximum values along dim (the input's dtype) into *values and their int64 indices into *indices (the first occurrence; a NaN wins and propagates). dst_values / dst_indices, when non-NULL, receive the results (out=) and the matching out pointer may then be NULL. Reducing an empty dim fails. */
  nb_max_dim(t: nb_tensor | null, dim: number | bigint, keepdim: number, dst_values: nb_tensor | null, dst_indices: nb_tensor | null, values: BigUint64Array | null, indices: BigUint64Array | null): number;
  /** PyTorch's min(t, dim, keepdim): two results, the minimum values along dim (the input's dtype) into *values and their int64 indices into *indices (the first occurrence; a NaN wins and propagates). dst_values / dst_indices, when non-NULL, receive the results (out=) and the matching out pointer may then be NULL. Reducing an empty dim fails. */
  nb_min_dim(t: nb_tensor | null, dim: number | bigint, keepdim: number, dst_values: nb_tensor | null, dst_indices: nb_tensor | null, values: BigUint64Array | null, indices: BigUint64Array | null): number;
  /** int64 index of the first maximum along *dim, or into the flattened tensor when dim is NULL (keepdim then gives all dims size 1); a NaN counts as the maximum. Not for bool; an empty reduction fails. dst/out by convention; dst must have the result's shape and dtype. */
  nb_argmax(t: nb_tensor | null, dim: BigInt64Array | ArrayLike<number | bigint> | null, keepdim: number, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** int64 index of the first minimum along *dim, or into the flattened tensor when dim is NULL (keepdim then gives all dims size 1); a NaN counts as the minimum. Not for bool; an empty reduction fails. dst/out by convention; dst must have the result's shape and dtype. */
  nb_argmin(t: nb_tensor | null, dim: BigInt64Array | ArrayLike<number | bigint> | null, keepdim: number, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** Variance over dims[ndims] (negative dims wrap, no duplicates; ndims 0 = every dim, and dims may then be NULL), keepdim keeps them as size 1, dividing by max(0, N - correction) (1: unbiased, 0: population). Floating point only; computed in double with a stable (blocked two-pass / Welford + Chan) update. dst/out by convention; dst must have the result's shape and dtype. */
  nb_var(t: nb_tensor | null, dims: BigInt64Array | ArrayLike<number | bigint> | null, ndims: number, correction: number, keepdim: number, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** Standard deviation over dims[ndims] (negative dims wrap, no duplicates; ndims 0 = every dim, and dims may then be NULL), keepdim keeps them as size 1, dividing by max(0, N - correction) (1: unbiased, 0: population). Floating point only; computed in double with a stable (blocked two-pass / Welford + Chan) update. dst/out by convention; dst must have the result's shape and dtype. */
  nb_std(t: nb_tensor | null, dims: BigInt64Array | ArrayLike<number | bigint> | null, ndims: number, correction: number, keepdim: number, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** Vector p-norm over dims[ndims] (negative dims wrap, no duplicates; ndims 0 = every dim, and dims may then be NULL), keepdim keeps them as size 1: p = 2 (Frobenius over every dim), 1, INFINITY (max |x|), -INFINITY (min |x|), 0 (count of non-zeros) or any other p ((sum |x|^p)^(1/p)). Floating point input; dtype (-1: the input's) is the result dtype. The inf / negative norms of an empty reduction fail. dst/out by convention; dst must have the result's shape and dtype. */
  nb_norm(t: nb_tensor | null, p: number, dims: BigInt64Array | ArrayLike<number | bigint> | null, ndims: number, keepdim: number, dtype: number, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** log(sum(exp(x))) over dims[ndims] (negative dims wrap, no duplicates; ndims 0 = every dim, and dims may then be NULL), keepdim keeps them as size 1, computed stably (max shifted, in double). Integer inputs give the default float dtype; the result of nothing is -inf. dst/out by convention; dst must have the result's shape and dtype. */
  nb_logsumexp(t: nb_tensor | null, dims: BigInt64Array | ArrayLike<number | bigint> | null, ndims: number, keepdim: number, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** Whether every element is non-zero over dims[ndims] (negative dims wrap, no duplicates; ndims 0 = every dim, and dims may then be NULL), keepdim keeps them as size 1: bool (uint8 for uint8 input, as PyTorch). True for nothing. dst/out by convention; dst must have the result's shape and dtype. */
  nb_all(t: nb_tensor | null, dims: BigInt64Array | ArrayLike<number | bigint> | null, ndims: number, keepdim: number, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** Whether any element is non-zero over dims[ndims] (negative dims wrap, no duplicates; ndims 0 = every dim, and dims may then be NULL), keepdim keeps them as size 1: bool (uint8 for uint8 input, as PyTorch). False for nothing. dst/out by convention; dst must have the result's shape and dtype. */
  nb_any(t: nb_tensor | null, dims: BigInt64Array | ArrayLike<number | bigint> | null, ndims: number, keepdim: number, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** Cumulative sum along dim (same shape). dtype (-1: default; else out's dtype when dst is given) is the result dtype, integers and bool give int64 by default; floats accumulate in double and each output is rounded once. dst may be t itself (in place). dst/out by convention; dst must have the result's shape and dtype. */
  nb_cumsum(t: nb_tensor | null, dim: number | bigint, dtype: number, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** Cumulative product along dim (same shape). dtype (-1: default; else out's dtype when dst is given) is the result dtype, integers and bool give int64 by default; floats accumulate in double and each output is rounded once. dst may be t itself (in place). dst/out by convention; dst must have the result's shape and dtype. */
  nb_cumprod(t: nb_tensor | null, dim: number | bigint, dtype: number, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** exp(x) / sum(exp(x)) along dim, computed stably (max shifted). dtype (-1: the input's) casts the input first and must be floating point; float16 / bfloat16 compute in float32 and round once. dst may be t itself (in place). dst/out by convention; dst must have the result's shape and dtype. */
  nb_softmax(t: nb_tensor | null, dim: number | bigint, dtype: number, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** x - log(sum(exp(x))) along dim, computed stably (max shifted). dtype (-1: the input's) casts the input first and must be floating point; float16 / bfloat16 compute in float32 and round once. dst may be t itself (in place). dst/out by convention; dst must have the result's shape and dtype. */
  nb_log_softmax(t: nb_tensor | null, dim: number | bigint, dtype: number, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** Concatenates n tensors along dim (PyTorch's torch.cat): shapes must match except along dim; the dtype is the promotion of all inputs; 1-D empty tensors are skipped (PyTorch's legacy rule). dst/out by convention. */
  nb_cat(tensors: BigUint64Array | null, n: number, dim: number | bigint, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** Stacks n tensors of one shape along a new dim (in [-ndim-1, ndim]). dst/out by convention. */
  nb_stack(tensors: BigUint64Array | null, n: number, dim: number | bigint, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** A copy of x with the order of elements reversed along each of dims (no duplicates). */
  nb_flip(x: nb_tensor | null, dims: BigInt64Array | ArrayLike<number | bigint> | null, ndims: number, out: BigUint64Array | null): number;
  /** A copy of x with elements shifted circularly by shifts[i] along dims[i]; with ndims 0 and one shift, along the flattened tensor. */
  nb_roll(x: nb_tensor | null, shifts: BigInt64Array | ArrayLike<number | bigint> | null, nshifts: number, dims: BigInt64Array | ArrayLike<number | bigint> | null, ndims: number, out: BigUint64Array | null): number;
  /** Tensor.repeat: x tiled repeats[i] times along each dim (n >= x's ndim; extra leading repeats add dims). */
  nb_repeat(x: nb_tensor | null, repeats: BigInt64Array | ArrayLike<number | bigint> | null, n: number, out: BigUint64Array | null): number;
  /** The lower triangle of the last two dims (elements with col - row <= diagonal), zeros elsewhere. dst/out by convention. */
  nb_tril(x: nb_tensor | null, diagonal: number | bigint, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** The upper triangle of the last two dims (elements with col - row >= diagonal), zeros elsewhere. dst/out by convention. */
  nb_triu(x: nb_tensor | null, diagonal: number | bigint, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** Sorts x along dim: *values (x's dtype) and *indices (int64). The sort is always stable; NaN orders above every number (last ascending, first descending), as in PyTorch. */
  nb_sort(x: nb_tensor | null, dim: number | bigint, descending: number, stable: number, values: BigUint64Array | null, indices: BigUint64Array | null): number;
  /** The int64 indices that sort x along dim (the indices of nb_sort). */
  nb_argsort(x: nb_tensor | null, dim: number | bigint, descending: number, stable: number, out: BigUint64Array | null): number;
  /** For each element of values, its insertion point in sorted_sequence's last dim (sorted ascending) that keeps it sorted: the count of elements below it (< value; <= with right), by binary search. sorted_sequence is 1-d (one line for all values) or has values' leading dims; same dtype (not bool) and device. *out: int64 (int32 with out_int32), shaped as values. NaN values go last, as in PyTorch. */
  nb_searchsorted(sorted_sequence: nb_tensor | null, values: nb_tensor | null, right: number, out_int32: number, out: BigUint64Array | null): number;
  /** The k largest (or smallest) elements along dim and their int64 indices, always sorted; ties keep the earlier index first. */
  nb_topk(x: nb_tensor | null, k: number | bigint, dim: number | bigint, largest: number, sorted: number, values: BigUint64Array | null, indices: BigUint64Array | null): number;
  /** The distinct values of the flattened x, sorted (every NaN is distinct, as in PyTorch); inverse (x's shape, int64: each element's position in values) and counts (int64) are computed only when their pointers are non-NULL. */
  nb_unique(x: nb_tensor | null, sorted: number, values: BigUint64Array | null, inverse: BigUint64Array | null, counts: BigUint64Array | null): number;
  /** PyTorch's unique(dim=): the distinct slices of x along dim, sorted lexicographically (by the first element that is < or >; slices holding NaN equal no other); inverse (int64 [x.shape[dim]]: each slice's position in values) and counts (int64) are computed only when their pointers are non-NULL. A zero-sized dim other than dim is an error, as in PyTorch. */
  nb_unique_dim(x: nb_tensor | null, dim: number | bigint, sorted: number, values: BigUint64Array | null, inverse: BigUint64Array | null, counts: BigUint64Array | null): number;
  /** PyTorch's unique_consecutive: x with each run of equal consecutive elements (has_dim 0: of the flattened x; else slices along dim) reduced to one; inverse (int64, x's shape, or [x.shape[dim]] with a dim) and counts (int64) are computed only when their pointers are non-NULL. */
  nb_unique_consecutive(x: nb_tensor | null, dim: number | bigint, has_dim: number, values: BigUint64Array | null, inverse: BigUint64Array | null, counts: BigUint64Array | null): number;
  /** The gradient of softmax along dim from its result output and the output gradient (PyTorch's _softmax_backward_data): output * (grad_output - sum(grad_output * output, dim)), fused. grad_output and output have one shape and one floating dtype (the result's); float16 / bfloat16 compute in float32. dst/out by convention; dst must have the result's shape and dtype. */
  nb_softmax_backward(grad_output: nb_tensor | null, output: nb_tensor | null, dim: number | bigint, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** The gradient of log_softmax along dim from its result output and the output gradient (PyTorch's _log_softmax_backward_data): grad_output - exp(output) * sum(grad_output, dim), fused. Shapes, dtypes and dst as nb_softmax_backward. */
  nb_log_softmax_backward(grad_output: nb_tensor | null, output: nb_tensor | null, dim: number | bigint, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** e^x, elementwise (integers compute in the default float dtype). dst/out by convention. */
  nb_exp(x: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** 2^x, elementwise (integers compute in the default float dtype). dst/out by convention. */
  nb_exp2(x: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** e^x - 1, elementwise (integers compute in the default float dtype). dst/out by convention. */
  nb_expm1(x: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** natural log, elementwise (integers compute in the default float dtype). dst/out by convention. */
  nb_log(x: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** log base 2, elementwise (integers compute in the default float dtype). dst/out by convention. */
  nb_log2(x: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** log base 10, elementwise (integers compute in the default float dtype). dst/out by convention. */
  nb_log10(x: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** log(1 + x), elementwise (integers compute in the default float dtype). dst/out by convention. */
  nb_log1p(x: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** square root, elementwise (integers compute in the default float dtype). dst/out by convention. */
  nb_sqrt(x: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** 1 / sqrt(x), elementwise (integers compute in the default float dtype). dst/out by convention. */
  nb_rsqrt(x: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** sine, elementwise (integers compute in the default float dtype). dst/out by convention. */
  nb_sin(x: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** cosine, elementwise (integers compute in the default float dtype). dst/out by convention. */
  nb_cos(x: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** tangent, elementwise (integers compute in the default float dtype). dst/out by convention. */
  nb_tan(x: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** arcsine, elementwise (integers compute in the default float dtype). dst/out by convention. */
  nb_asin(x: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** arccosine, elementwise (integers compute in the default float dtype). dst/out by convention. */
  nb_acos(x: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** arctangent, elementwise (integers compute in the default float dtype). dst/out by convention. */
  nb_atan(x: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** hyperbolic sine, elementwise (integers compute in the default float dtype). dst/out by convention. */
  nb_sinh(x: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** hyperbolic cosine, elementwise (integers compute in the default float dtype). dst/out by convention. */
  nb_cosh(x: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** hyperbolic tangent, elementwise (integers compute in the default float dtype). dst/out by convention. */
  nb_tanh(x: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** 1 / (1 + e^-x), elementwise (integers compute in the default float dtype). dst/out by convention. */
  nb_sigmoid(x: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** error function, elementwise (integers compute in the default float dtype). dst/out by convention. */
  nb_erf(x: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** 1 - erf(x), elementwise (integers compute in the default float dtype). dst/out by convention. */
  nb_erfc(x: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** 1 / x, elementwise (integers compute in the default float dtype). dst/out by convention. */
  nb_reciprocal(x: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** x * sigmoid(x), elementwise (integers compute in the default float dtype). dst/out by convention. */
  nb_silu(x: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** GELU: x * Phi(x), or its tanh approximation when approximate_tanh is 1. dst/out by convention. */
  nb_gelu(x: nb_tensor | null, approximate_tanh: number, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** x if x > 0 else negative_slope * x (floating dtypes). dst/out by convention. */
  nb_leaky_relu(x: nb_tensor | null, negative_slope: number, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** x if x > 0 else alpha * (e^x - 1). dst/out by convention. */
  nb_elu(x: nb_tensor | null, alpha: number, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** log(1 + e^(beta x)) / beta, or x where beta x > threshold. dst/out by convention. */
  nb_softplus(x: nb_tensor | null, beta: number, threshold: number, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** -x, elementwise. dst/out by convention. */
  nb_neg(x: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** |x|, elementwise. dst/out by convention. */
  nb_abs(x: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** -1, 0 or 1 (NaN stays NaN), elementwise. dst/out by convention. */
  nb_sign(x: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** max(x, 0), elementwise. dst/out by convention. */
  nb_relu(x: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** x * x, elementwise. dst/out by convention. */
  nb_square(x: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** round toward -inf (integers unchanged), elementwise. dst/out by convention. */
  nb_floor(x: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** round toward +inf, elementwise. dst/out by convention. */
  nb_ceil(x: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** round half to even, elementwise. dst/out by convention. */
  nb_round(x: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** round toward zero, elementwise. dst/out by convention. */
  nb_trunc(x: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** ~x on integers, not on bool, elementwise. dst/out by convention. */
  nb_bitwise_not(x: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** x == 0 as bool, elementwise. dst/out by convention. */
  nb_logical_not(x: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** NaN test as bool, elementwise. dst/out by convention. */
  nb_isnan(x: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** infinity test as bool, elementwise. dst/out by convention. */
  nb_isinf(x: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** finite test as bool, elementwise. dst/out by convention. */
  nb_isfinite(x: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** Replaces NaN, +inf and -inf in floating tensors by the given values. dst/out by convention. */
  nb_nan_to_num(x: nb_tensor | null, nan: number, posinf: number, neginf: number, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** min(max(x, min), max); pass -inf / +inf for a missing bound. dst/out by convention. */
  nb_clamp(x: nb_tensor | null, min: number, max: number, dst: nb_tensor | null, out: BigUint64Array | null): number;
  /** a where the bool condition holds, else b; the three broadcast, a and b promote. dst/out by convention. */
  nb_where(condition: nb_tensor | null, a: nb_tensor | null, b: nb_tensor | null, dst: nb_tensor | null, out: BigUint64Array | null): number;
}

export declare function declare(koffi: unknown, lib: unknown): { types: Record<string, unknown>; fn: Functions; missing: string[] };
