"""torch.cuda's CUDA graph names. nabla has no graph capture: it runs eagerly, queueing each
kernel as it is called. Capturing therefore raises RuntimeError saying so (CUDAGraph(),
graph(...), graph_pool_handle(), as PyTorch's builds without CUDA graphs do), while
make_graphed_callables, whose result is only ever called, returns the callables unchanged on a
GPU: the program computes the same values, without the replay speed-up. Without a GPU it raises,
as PyTorch's CPU build does."""
from __future__ import annotations

from ._cuda_names import SUBJECT_NAMES
from .cuda import _require

__all__ = list(SUBJECT_NAMES["_cuda_graphs"])

_NO_GRAPHS = "CUDA graphs are not supported by nabla: it runs eagerly and cannot capture a stream's work"


class CUDAGraph:
    """A captured CUDA graph; raises RuntimeError (nabla cannot capture)."""

    def __init__(self, keep_graph: bool = False) -> None:
        raise RuntimeError(_NO_GRAPHS)


class graph:
    """with nabla.cuda.graph(g): capture; raises RuntimeError (nabla cannot capture)."""

    def __init__(self, cuda_graph, pool=None, stream=None, capture_error_mode: str = "global",
                 enable_annotations: bool = False, check_input_liveness: bool = False) -> None:
        raise RuntimeError(_NO_GRAPHS)


def graph_pool_handle():
    """A memory pool shared by captured graphs; raises RuntimeError (nabla cannot capture)."""
    raise RuntimeError(_NO_GRAPHS)


def make_graphed_callables(callables, sample_args, num_warmup_iters: int = 3, allow_unused_input: bool = False,
                           pool=None):
    """callables as given (a module, a function or a tuple of them): nabla runs them eagerly."""
    _require()
    return callables
