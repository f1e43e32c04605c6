"""nabla.onnx: the import path of torch.onnx. nabla has no ONNX exporter: export() raises
RuntimeError saying so; is_in_onnx_export() is False (model code branches on it)."""
from __future__ import annotations

__all__ = ["export", "is_in_onnx_export", "OnnxExporterError"]


class OnnxExporterError(RuntimeError):
    """Raised when a model cannot be exported to ONNX (with nabla: always)."""


def export(model, args=(), f=None, *a, **kw):
    """Not available in nabla: raises OnnxExporterError (a RuntimeError). Export with PyTorch instead: load
    the state_dict nabla.save wrote into the same model written with torch and call torch.onnx.export."""
    raise OnnxExporterError("onnx.export: ONNX export is not available in nabla (it runs eagerly and records no "
                            "graph to export); save the weights with nabla.save and export the PyTorch twin of "
                            "the model with torch.onnx.export")


def is_in_onnx_export() -> bool:
    """False: nabla never traces a model for ONNX."""
    return False
