"""torch 2.13's public names against nabla's, per namespace, with the names left out on
purpose (each rule says why). `python tests/api_coverage.py` prints the markdown table that
docs/coverage.md holds; tests/test_coverage.py keeps the numbers from falling."""
from __future__ import annotations

import importlib
import re
import sys
import types

# namespace -> (torch object path, nabla object path); a path ending in a class names the class
NAMESPACES = {
    "torch": ("torch", "nabla"),
    "torch.Tensor": ("torch:Tensor", "nabla:Tensor"),
    "torch.nn": ("torch.nn", "nabla.nn"),
    "torch.nn.functional": ("torch.nn.functional", "nabla.nn.functional"),
    "torch.nn.init": ("torch.nn.init", "nabla.nn.init"),
    "torch.nn.utils": ("torch.nn.utils", "nabla.nn.utils"),
    "torch.optim": ("torch.optim", "nabla.optim"),
    "torch.optim.lr_scheduler": ("torch.optim.lr_scheduler", "nabla.optim.lr_scheduler"),
    "torch.special": ("torch.special", "nabla.special"),
    "torch.distributions": ("torch.distributions", "nabla.distributions"),
    "torch.linalg": ("torch.linalg", "nabla.linalg"),
    "torch.cuda": ("torch.cuda", "nabla.cuda"),
    "torch.distributed": ("torch.distributed", "nabla.distributed"),
}

# (rule, reason): names matching a rule are not counted (the scope, or things nabla does not do by design)
LEFT_OUT = [
    (r"sparse|coalesce|indices|crow_|ccol_|_csr|_csc|_bsr|_bsc|to_dense|dense_dim|smm|sspaddmm|spmm$|^saddmm$|"
     r"^values$|^values_copy$",
     "sparse tensors: nabla tensors are strided only"),
    (r"^jagged$|^to_padded_tensor$|^nested", "nested (jagged) tensors: a prototype layout in PyTorch"),
    (r"^index$", "first-class dimensions (functorch.dim binds Tensor.index)"),
    (r"_notes$|^common_args$|^multi_dim_common$|^BroadcastingList",
     "docstring templates and TorchScript type hints of PyTorch's own source, not API"),
    (r"complex|cfloat|cdouble|chalf|conj|imag|^real$|angle|polar|view_as_real|resolve_neg|is_neg|^H$|^mH$|adjoint|"
     r"^fft|stft|istft|^vdot$|^eig$|^eigvals$",
     "complex numbers (and the FFTs and the general eigendecomposition that need them): nabla has no complex dtypes"),
    (r"quant|^q_|qint|quint|qscheme|int_repr|choose_qparams|fbgemm|per_channel|per_tensor|^fake_",
     "quantized tensors"),
    (r"named|refine_names|rename|align_to|align_as|^names$|^name$", "named tensors (a prototype in PyTorch)"),
    (r"Storage$|storage|^UntypedStorage|^TypedStorage|^StorageBase$|^set_$",
     "storage objects: nabla shares memory through views and DLPack, it has no Storage classes"),
    (r"mkldnn|miopen|cudnn_|vulkan|xpu|mps|mtia|hpu|ipu|maia|xla|lazy_|privateuse|^hip",
     "other backends' kernels and device types: nabla's devices are CPU and CUDA"),
    (r"float8|float4|^bits?$|^bits|uint[1-7]$|^int[1-7]$|uint16|uint32|uint64|complex32|^e4m3|^e5m2|^hash_tensor$",
     "dtypes nabla does not have (its ten are listed in DESIGN 5; hash_tensor's result is uint64)"),
    (r"^Script|^Graph|^Node$|^Block$|^Value$|^Use$|Type$|^Argument|^FunctionSchema|^CompilationUnit|^Code$|"
     r"^ConcreteModuleType|^FileCheck|^JITException|^AliasDb|^CallStack|^ErrorReport|^ExecutionPlan|"
     r"^GraphExecutorState|^Gradient$|^IODescriptor|^InferredType|^LiteScriptModule|^StaticModule|^TracingState|"
     r"^CompleteArgumentSpec|^ArgumentSpec|^Capsule|^DeepCopyMemoTable|^LoggerBase|^LockingLogger|^NoopLogger|"
     r"^AggregationType|^BenchmarkConfig|^BenchmarkExecutionStats|^OperatorInfo|^Tag$|^ThroughputBenchmark|"
     r"^PyTorchFile|^DispatchKey|^ExcludeDispatchKeyGuard|^DisableTorchFunction|^Deserialization|"
     r"^Serialization|^ScriptObject|^import_ir_module|^parse_ir|^parse_schema|^unify_type_list|^merge_type|"
     r"^fork$|^wait$|^_jit|^classproperty|^set_anomaly|^autocast_|^clear_autocast|^get_autocast|"
     r"^is_autocast|^set_autocast|^DispatchKeySet|^BufferDict|^USE_|^TYPE_CHECKING|^vmap$|^cond$|^while_loop|"
     r"^export$|^compiler$|^fx$|^library$|^ops$|^overrides$|^package$|^hub$|^profiler$|^classes$|^func$|"
     r"^sym_|^Sym|^unravel_index|^associative_scan|^scan$|^map$|^set_vital|^vitals|^has_|^is_anomaly|"
     r"^set_flush_denormal|^get_device_module|^use_deterministic|^are_deterministic|^deterministic|"
     r"^is_deterministic|^set_deterministic|^get_deterministic|^set_warn_always|^is_warn_always|^promote_types|"
     r"^result_type|^can_cast|^set_printoptions|^typename|^is_storage|^init_num_threads|^get_num_interop|"
     r"^set_num_interop|^compiled_with_cxx11_abi|^from_file|^frombuffer|^seed$|^version$|"
     r"^parse_type_comment$|^PRIVATE_OPS$|^AVG$|^SUM$|^prepare_multiprocessing_environment$",
     "TorchScript / FX / dispatcher machinery, and process-wide switches of PyTorch's own runtime "
     "(nabla.jit and nabla.compile are identities; nabla runs eagerly)"),
    (r"^native_|^fused_|^slow_conv|^thnn_|^batch_norm_|^cudnn|^segment_reduce|^affine_grid_generator|"
     r"^conv_tbc|^grouped_mm|^scaled_mm|^scaled_grouped_mm|^constant_pad_nd|^embedding_renorm_|^_|^slice_inverse$",
     "ATen kernels exposed under torch.* that programs reach through the public ops"),
    (r"^MemPool$|^use_mem_pool$|^CUDAPluggableAllocator$|^change_current_allocator$",
     "user-made CUDA memory pools and swapping in another allocator: nabla's caching allocator keeps one pool "
     "per stream, chosen by the stream the work runs on, and its C ABI has no slot for a foreign allocator"),
    (r"^PYTORCH_RELEASES_CODE_CC$", "the table of which GPUs each PyTorch release's wheels were built for"),
    (r"^Callable$|^Optional$|^Any$|^Literal$|^TypeVar$|^ParamSpec$|^Self$|^SupportsFloat$|^TypedDict$|^cast$|"
     r"^override$|^partial$|^wraps$|^ref$|^inf$|^Tensor$|^DType$|^ScalingType$|^SwizzleType$|"
     r"^handle_torch_function$|^has_torch_function|^boolean_dispatch$|^assert_int_or_pair$|^factory_kwargs$",
     "re-exported helpers of PyTorch's own source (typing, functools, __torch_function__ dispatch)"),
    (r"^shrink_group$|^ProcessGroupGloo$",
     "distributed fault recovery and per-engine group classes: shrink_group rebuilds a group without dead ranks, "
     "but nabla's MPI engine stops every rank when one fails (MPI_Abort); nabla's gloo runs on MPI, and its one "
     "ProcessGroup serves every backend"),
]
# Rules for the top-level torch namespace only (the same names elsewhere, as nn.functional's, count)
LEFT_OUT_TOP_LEVEL = [
    (r"^embedding_bag$|^ctc_loss$|^grid_sampler|^lstm$|^gru$|^rnn_tanh$|^rnn_relu$|^lstm_cell$|^gru_cell$|"
     r"^rnn_tanh_cell$|^rnn_relu_cell$",
     "torch.* only: ATen's entries with their internal signatures (enum arguments, extra outputs), which "
     "programs reach through nn.functional and the nn modules, both in nabla"),
    (r"^ModuleDict$|^ParameterDict$",
     "torch.* only: TorchScript's C++ module containers (nn.ModuleDict and nn.ParameterDict are in nabla)"),
]
_RULES = [(re.compile(p), reason) for p, reason in LEFT_OUT]
_TOP_RULES = [(re.compile(p), reason) for p, reason in LEFT_OUT_TOP_LEVEL]


def _resolve(path: str):
    module, _, attr = path.partition(":")
    obj = importlib.import_module(module)
    return getattr(obj, attr) if attr else obj


def left_out_reason(name: str, ns: str = "") -> str | None:
    for rule, reason in _RULES + (_TOP_RULES if ns == "torch" else []):
        if rule.search(name):
            return reason
    return None


def public_names(obj) -> set:
    """The public names of a torch module or class: submodules and names of other libraries excluded."""
    names = set()
    is_class = isinstance(obj, type)
    for n in dir(obj):
        if n.startswith("_"):
            continue
        try:
            v = getattr(obj, n)
        except Exception:  # noqa: BLE001 - a lazy attribute that fails to load is not part of the surface
            continue
        if isinstance(v, types.ModuleType):
            continue
        module = getattr(v, "__module__", None)
        if not is_class and isinstance(module, str) and not module.startswith("torch"):
            continue
        names.add(n)
    return names


def coverage() -> dict:
    """namespace -> (names nabla has, names counted, names left out, the missing names)."""
    result = {}
    for ns, (tpath, npath) in NAMESPACES.items():
        theirs, ours = _resolve(tpath), _resolve(npath)
        names = public_names(theirs)
        counted = {n for n in names if left_out_reason(n, ns) is None}
        have = {n for n in counted if hasattr(ours, n)}
        result[ns] = (len(have), len(counted), len(names) - len(counted), sorted(counted - have))
    return result


def table(cov: dict) -> str:
    lines = ["| namespace | nabla has | torch 2.13 names counted | coverage | left out by rule |",
             "|---|---:|---:|---:|---:|"]
    for ns, (have, total, out, _) in cov.items():
        lines.append(f"| `{ns}` | {have} | {total} | {100.0 * have / max(total, 1):.1f}% | {out} |")
    return "\n".join(lines)


_INTRO = """# nabla against torch 2.13's public API

Measured by `tests/api_coverage.py` (`python tests/api_coverage.py --doc > docs/coverage.md`
rewrites this page; `tests/test_coverage.py` keeps each namespace at or above the coverage
recorded in its floors). A name counts when torch 2.13 exposes it publicly in the namespace
(submodules and re-exports of other libraries aside) and no rule below leaves it out; nabla
"has" it when the matching nabla namespace has the attribute. Having a name is not the same
as matching every argument: each one's behaviour is tested against PyTorch in the suites.
"""

_BY_DESIGN = """Also by design:

- `nabla.jit.script` / `trace` and `nabla.compile` return what they are given (nabla runs
  eagerly); `nabla.onnx.export` raises `OnnxExporterError` (a `RuntimeError`).
- `nabla.cuda.manual_seed` seeds nabla's one generator (shared by every device) when a GPU is
  present and does nothing without one, as PyTorch's queued call does on such a machine.
- `nabla.distributed` runs CPU tensors over MPI (backend "mpi", and "gloo" by that name) and CUDA
  tensors over NCCL ("nccl"), both found at run time (docs/distributed.md).
- `nabla.backends` switches (`cudnn.benchmark`, `cuda.matmul.allow_tf32`, ...) are recorded and
  read back; nabla's kernels do not change with them.
- `Tensor.type()` returns PyTorch's strings (`'torch.FloatTensor'`), so code comparing them runs.
"""


def document(cov: dict) -> str:
    rules = ["| rule (a regular expression, abbreviated) | why |", "|---|---|"]
    for pattern, reason in LEFT_OUT + LEFT_OUT_TOP_LEVEL:
        short = pattern if len(pattern) <= 70 else pattern[:70] + "..."
        rules.append(f"| `{short.replace('|', ' / ')}` | {reason} |")
    missing = [f"- `{ns}` ({len(m)}): " + ", ".join(m) for ns, (_, _, _, m) in cov.items()]
    return "\n".join([_INTRO, table(cov), "", "## Left out on purpose", "",
                      "Every name a rule matches is out of the count, for the reason given.", "", *rules, "",
                      _BY_DESIGN, "## Still missing (counted, not yet in nabla)", "", *missing, ""])


if __name__ == "__main__":
    cov = coverage()
    if "--doc" in sys.argv:
        print(document(cov), end="")
        sys.exit(0)
    print(table(cov))
    if "--missing" in sys.argv:
        for ns, (_, _, _, missing) in cov.items():
            print(f"\n{ns} missing ({len(missing)}): {', '.join(missing)}")
