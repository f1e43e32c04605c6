"""Functions that take a list of tensors (cat and its aliases, stack, meshgrid,
linalg.multi_dot) reject an empty list, a bare tensor, None and non-tensor
elements with PyTorch 2.13's exception class and message (torch.cat([]) is a
ValueError there; stack([]) a RuntimeError)."""
from __future__ import annotations

import pytest

import nabla

CALLS = {
    "cat_empty": lambda m: m.cat([]),
    "cat_empty_tuple": lambda m: m.cat(()),
    "cat_empty_dim": lambda m: m.cat([], dim=1),
    "cat_empty_out": lambda m: m.cat([], out=m.empty(0)),
    "concat_empty": lambda m: m.concat([]),
    "concatenate_empty": lambda m: m.concatenate([]),
    "stack_empty": lambda m: m.stack([]),
    "stack_empty_dim": lambda m: m.stack([], 1),
    "meshgrid_empty": lambda m: m.meshgrid(indexing="ij"),
    "multi_dot_empty": lambda m: m.linalg.multi_dot([]),
    "cat_tensor": lambda m: m.cat(m.ones(2)),
    "cat_none": lambda m: m.cat(None),
    "stack_tensor": lambda m: m.stack(m.ones(2)),
    "stack_none": lambda m: m.stack(None),
    "cat_ints": lambda m: m.cat([1, 2]),
    "cat_second_not_a_tensor": lambda m: m.cat([m.ones(1), 2.0]),
    "stack_ints": lambda m: m.stack([1]),
}

EXPECTED = {
    "cat_empty": (ValueError, "torch.cat(): expected a non-empty list of Tensors"),
    "cat_empty_tuple": (ValueError, "torch.cat(): expected a non-empty list of Tensors"),
    "cat_empty_dim": (ValueError, "torch.cat(): expected a non-empty list of Tensors"),
    "cat_empty_out": (ValueError, "torch.cat(): expected a non-empty list of Tensors"),
    "concat_empty": (ValueError, "torch.cat(): expected a non-empty list of Tensors"),
    "concatenate_empty": (ValueError, "torch.cat(): expected a non-empty list of Tensors"),
    "stack_empty": (RuntimeError, "stack expects a non-empty TensorList"),
    "stack_empty_dim": (RuntimeError, "stack expects a non-empty TensorList"),
    "meshgrid_empty": (RuntimeError, "meshgrid expects a non-empty TensorList"),
    "multi_dot_empty": (RuntimeError, "multi_dot(): expected at least 2 tensors but got 0"),
    "cat_tensor": (TypeError, "cat(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor"),
    "cat_none": (TypeError, "cat(): argument 'tensors' (position 1) must be tuple of Tensors, not NoneType"),
    "stack_tensor": (TypeError, "stack(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor"),
    "stack_none": (TypeError, "stack(): argument 'tensors' (position 1) must be tuple of Tensors, not NoneType"),
    "cat_ints": (TypeError, "expected Tensor as element 0 in argument 0, but got int"),
    "cat_second_not_a_tensor": (TypeError, "expected Tensor as element 1 in argument 0, but got float"),
    "stack_ints": (TypeError, "expected Tensor as element 0 in argument 0, but got int"),
}


def _raised(module, name):
    with pytest.raises(Exception) as info:
        CALLS[name](module)
    return type(info.value), str(info.value)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_bad_tensor_list_raises_pytorchs_error(name):
    assert _raised(nabla, name) == EXPECTED[name]


@pytest.mark.parametrize("name", sorted(CALLS))
def test_expectations_are_pytorchs(name):
    torch = pytest.importorskip("torch")
    assert _raised(torch, name) == EXPECTED[name]
