"""torch.distributions.transforms: bijections y = t(x) with an inverse t.inv and log |dy/dx|
(log_abs_det_jacobian), for TransformedDistribution and the biject_to / transform_to registries.
The base, composition and elementwise transforms live in _transforms_elementwise, the structured
ones (simplex, matrices, shapes, pieces) in _transforms_structured."""
from ._transforms_elementwise import (AbsTransform, AffineTransform, ComposeTransform, ExpTransform,  # noqa: F401
                                      PowerTransform, SigmoidTransform, SoftplusTransform, TanhTransform,
                                      Transform, identity_transform)
from ._transforms_structured import (CatTransform, CorrCholeskyTransform,  # noqa: F401
                                     CumulativeDistributionTransform, IndependentTransform, LowerCholeskyTransform,
                                     PositiveDefiniteTransform, ReshapeTransform, SoftmaxTransform, StackTransform,
                                     StickBreakingTransform)

__all__ = ["AbsTransform", "AffineTransform", "CatTransform", "ComposeTransform", "CorrCholeskyTransform",
           "CumulativeDistributionTransform", "ExpTransform", "IndependentTransform", "LowerCholeskyTransform",
           "PositiveDefiniteTransform", "PowerTransform", "ReshapeTransform", "SigmoidTransform",
           "SoftmaxTransform", "SoftplusTransform", "StackTransform", "StickBreakingTransform", "TanhTransform",
           "Transform", "identity_transform"]
