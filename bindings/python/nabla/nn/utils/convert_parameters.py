"""parameters_to_vector / vector_to_parameters: all parameters as one flat vector and back."""
from __future__ import annotations

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters):
    """The parameters flattened and concatenated (one vector, differentiable)."""
    import nabla
    return nabla.cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec, parameters) -> None:
    """Copies consecutive slices of vec into the parameters' data (no gradient recorded)."""
    import nabla
    if not isinstance(vec, nabla.Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    offset = 0
    with nabla.no_grad():
        for p in parameters:
            n = p.numel()
            p.copy_(vec[offset:offset + n].view_as(p))
            offset += n
