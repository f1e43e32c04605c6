"""Gradients of the indexing ops (gather, scatter, scatter with a value,
scatter_add, index_select, index_add, masked_fill, masked_select, take_along_dim,
advanced indexing and index_put) and of Python's getitem / setitem: finite
differences in float64 over random, broadcast and non-contiguous inputs, the
in-place forms, second derivatives, and a float32 comparison with PyTorch."""
from __future__ import annotations

import numpy as np
import pytest

import nabla
from nabla.autograd import gradcheck, gradgradcheck


def leaf(rng, *shape):
    return nabla.tensor(rng.standard_normal(shape)).requires_grad_()


def idx(a):
    return nabla.tensor(np.asarray(a, dtype=np.int64))


# ---- gather / scatter ----

@pytest.mark.parametrize("dim", [0, 1, -1])
def test_gather(rng, dim):
    x = leaf(rng, 3, 4)
    index = idx(rng.integers(0, x.shape[dim], (2, 3)))  # smaller than x, with repeats
    assert gradcheck(lambda x: nabla.gather(x, dim, index), (x,))
    assert gradgradcheck(lambda x: nabla.gather(x, dim, index), (x,))


def test_gather_non_contiguous_and_3d(rng):
    x = leaf(rng, 4, 3)
    index = idx([[0, 1, 1], [2, 0, 1]])
    assert gradcheck(lambda x: x.t().gather(1, index), (x,))
    x3, i3 = leaf(rng, 2, 3, 4), idx(rng.integers(0, 3, (2, 5, 4)))
    assert gradcheck(lambda x: x.gather(1, i3), (x3,))


def test_gather_accumulates_duplicates(rng):
    x = leaf(rng, 4)
    nabla.gather(x, 0, idx([1, 1, 3, 1])).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0, 3, 0, 1])


def test_empty_indices(rng):
    x = leaf(rng, 3, 4)
    x.gather(1, nabla.zeros((3, 0), dtype=nabla.int64)).sum().backward()
    x[nabla.tensor([], dtype=nabla.int64)].sum().backward()
    x.index_select(0, nabla.tensor([], dtype=nabla.int64)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros((3, 4)))


def test_scatter_src_and_self(rng):
    x, src = leaf(rng, 3, 4), leaf(rng, 2, 4)
    index = idx([[0, 2, 1, 0], [2, 1, 0, 1]])  # unique per column: the gradient is well defined
    assert gradcheck(lambda x, s: nabla.scatter(x, 0, index, s), (x, src))
    assert gradgradcheck(lambda x, s: nabla.scatter(x, 0, index, s), (x, src))


def test_scatter_src_larger_than_index(rng):
    x, src = leaf(rng, 3, 5), leaf(rng, 3, 4)
    index = idx([[4, 0], [1, 2]])
    assert gradcheck(lambda x, s: x.scatter(1, index, s), (x, src))


def test_scatter_value(rng):
    x = leaf(rng, 3, 4)
    index = idx([[0, 2, 1, 0], [0, 1, 0, 1]])  # duplicates: the value lands once per place
    value = nabla.tensor(0.7, dtype=nabla.float64).requires_grad_()
    assert gradcheck(lambda x: x.scatter(0, index, 2.5), (x,))
    assert gradcheck(lambda x, v: nabla.scatter(x, 0, index, value=v), (x, value))
    y = nabla.scatter(x, 0, index, value=value)
    y.backward(nabla.ones(y.shape, dtype=nabla.float64))
    assert value.grad.item() == 7.0  # seven distinct places
    assert y.grad_fn.name() == "ScatterBackward1"


def test_scatter_add(rng):
    x, src = leaf(rng, 3, 4), leaf(rng, 3, 4)
    index = idx([[0, 2, 1, 0], [2, 2, 0, 1]])  # duplicates accumulate
    assert gradcheck(lambda x, s: nabla.scatter_add(x, 0, index, s), (x, src))
    assert gradgradcheck(lambda x, s: nabla.scatter_add(x, 0, index[:2], s), (x, src))
    assert gradcheck(lambda x, s: x.scatter_add(1, index[:, :2], s.t()), (x, leaf(rng, 4, 3)))


def test_scatter_in_place_on_a_non_leaf(rng):
    def f(x, s):
        y = x * 1
        y.scatter_(0, idx([[1, 0, 2, 0]]), s)
        y.scatter_add_(1, idx([[0, 0], [3, 1], [2, 2]]), s.expand(3, 4)[:, :2])
        return y
    assert gradcheck(f, (leaf(rng, 3, 4), leaf(rng, 1, 4)))
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        leaf(rng, 3, 4).scatter_(0, idx([[0]]), leaf(rng, 1, 1))


# ---- index_select / index_add / take_along_dim ----

@pytest.mark.parametrize("dim", [0, 1])
def test_index_select(rng, dim):
    x = leaf(rng, 3, 4)
    index = idx([2, 0, 2])
    assert gradcheck(lambda x: nabla.index_select(x, dim, index), (x,))
    assert gradgradcheck(lambda x: nabla.index_select(x, dim, index), (x,))
    assert gradcheck(lambda x: nabla.index_select(x.t(), dim, index), (leaf(rng, 4, 3),))


@pytest.mark.parametrize("alpha", [1.0, -2.5])
def test_index_add(rng, alpha):
    x, src = leaf(rng, 3, 4), leaf(rng, 3, 3)
    index = idx([2, 0, 2])
    fn = lambda x, s: x.index_add(1, index, s, alpha=alpha)  # noqa: E731
    assert gradcheck(fn, (x, src))
    assert gradgradcheck(fn, (x, src))

    def inplace(x, s):
        y = x * 1
        return y.index_add_(0, idx([1, 1, 0]), s.t(), alpha=alpha)
    assert gradcheck(inplace, (x, leaf(rng, 4, 3)))


def test_take_along_dim(rng):
    x = leaf(rng, 3, 4)
    assert gradcheck(lambda x: nabla.take_along_dim(x, idx([[0], [3], [1]]), 1), (x,))
    assert gradcheck(lambda x: nabla.take_along_dim(x, idx([[0, 2, 2, 1]]), 0), (x,))  # broadcast indices
    assert gradcheck(lambda x: nabla.take_along_dim(x, idx([[[1]], [[2]]]), 0), (leaf(rng, 3, 1, 2),))
    assert gradcheck(lambda x: nabla.take_along_dim(x, idx([0, 5, 5, 11])), (x,))  # flattened
    assert gradgradcheck(lambda x: nabla.take_along_dim(x.t(), idx([[0], [2], [1], [0]]), 1), (x,))


# ---- masks ----

def test_masked_fill(rng):
    x = leaf(rng, 3, 4)
    mask = nabla.tensor(rng.random((3, 4)) < 0.5)
    row = nabla.tensor([True, False, False, True])
    assert gradcheck(lambda x: x.masked_fill(mask, 1.5), (x,))
    assert gradcheck(lambda x: x.t().masked_fill(mask.t(), -1.0), (x,))
    assert gradcheck(lambda x: x.masked_fill(row, 0.0), (x,))  # a broadcast mask
    value = nabla.tensor(0.5, dtype=nabla.float64).requires_grad_()
    assert gradcheck(lambda x, v: x.masked_fill(mask, v), (x, value))
    assert gradgradcheck(lambda x, v: x.masked_fill(mask, v), (x, value))
    y = x.masked_fill(row, value)
    y.sum().backward()
    assert value.grad.item() == 6.0


def test_masked_fill_broadcasts_x(rng):
    """A mask larger than x broadcasts x too: the gradient is summed back."""
    x = leaf(rng, 3, 1)
    mask = nabla.tensor(rng.random((3, 4)) < 0.5)
    assert gradcheck(lambda x: nabla.masked_fill(x, mask, 2.0), (x,))


def test_masked_fill_in_place(rng):
    def f(x):
        y = x * 2
        y.masked_fill_(nabla.tensor([[True], [False], [True]]), 3.0)
        return y
    assert gradcheck(f, (leaf(rng, 3, 4),))


def test_masked_select(rng):
    x = leaf(rng, 3, 4)
    mask = nabla.tensor(rng.random((3, 4)) < 0.5)
    assert gradcheck(lambda x: nabla.masked_select(x, mask), (x,))
    assert gradgradcheck(lambda x: nabla.masked_select(x, mask), (x,))
    assert gradcheck(lambda x: nabla.masked_select(x, nabla.tensor([True, False, True, True])), (x,))
    assert gradcheck(lambda x: nabla.masked_select(x, mask), (leaf(rng, 3, 1),))  # x broadcast
    assert gradcheck(lambda x: x.t().masked_select(mask.t()), (x,))


def test_masked_select_0_dim(rng):
    x = leaf(rng)
    for m in (True, False):
        assert gradcheck(lambda x: nabla.masked_select(x, nabla.tensor(m)), (x,))


# ---- advanced indexing: getitem ----

GETITEMS = [
    lambda x: x[idx([0, 2, 2])],                       # repeats accumulate
    lambda x: x[idx([-1, 0])],                         # negative indices
    lambda x: x[[1, 0]],                               # a list
    lambda x: x[:, [3, 1, 1]],                         # after a full slice
    lambda x: x[idx([0, 2]), idx([1, 1])],             # two indices, paired
    lambda x: x[idx([[0], [2]]), idx([1, 3])],         # broadcast indices
    lambda x: x[idx([0, 2]), 1:3],                     # index then slice
    lambda x: x[1:, idx([2, 0])],                      # slice then index
    lambda x: x[..., idx([0, 0])],                     # ellipsis
    lambda x: x[None, idx([1]), ::2],                  # None and a step
    lambda x: x[1, idx([3, 0])],                       # an int counts as a view, not an index
    lambda x: x[x.detach() > 0],                       # a full bool mask (masked_select path)
    lambda x: x[nabla.tensor([True, False, True])],    # a mask over the leading dim
    lambda x: x[:, nabla.tensor([True, False, True, True])],
    lambda x: x[nabla.tensor([True, False, True]), idx([0, 3])],
    lambda x: x.t()[idx([3, 0])],                      # a non-contiguous source
    lambda x: x[1:3][idx([1])][:, 2:],
    lambda x: x[nabla.tensor(True)],                   # a 0-dim mask adds a dim
]


@pytest.mark.parametrize("k", range(len(GETITEMS)))
def test_getitem(rng, k):
    assert gradcheck(GETITEMS[k], (leaf(rng, 3, 4),))


def test_getitem_3d_non_adjacent_indices(rng):
    """Indices separated by a slice lead the result (NumPy's rule)."""
    x = leaf(rng, 3, 2, 4)
    assert gradcheck(lambda x: x[idx([0, 2, 2]), :, idx([1, 3, 1])], (x,))
    assert gradcheck(lambda x: x[:, idx([1, 0]), idx([[3], [0]])], (x,))


def test_getitem_second_derivative(rng):
    x = leaf(rng, 3, 4)
    assert gradgradcheck(lambda x: x[idx([0, 2, 2]), idx([1, 1, 3])] * x[0, idx([1, 2, 3])], (x,))
    assert gradgradcheck(lambda x: x[x.detach() > 0] ** 2, (x,))


# ---- index_put and setitem ----

@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put(rng, accumulate):
    x = leaf(rng, 3, 4)
    rows = (idx([0, 2]),)
    assert gradcheck(lambda x, v: x.index_put(rows, v, accumulate=accumulate), (x, leaf(rng, 2, 4)))
    assert gradcheck(lambda x, v: x.index_put(rows, v, accumulate=accumulate), (x, leaf(rng, 4)))  # broadcast
    both = (idx([0, 2, 1]), idx([3, 3, 0]))
    assert gradcheck(lambda x, v: x.index_put(both, v, accumulate=accumulate), (x, leaf(rng, 3)))
    assert gradgradcheck(lambda x, v: x.index_put(rows, v * v, accumulate=accumulate), (x, leaf(rng, 2, 4)))
    mask = (nabla.tensor(rng.random((3, 4)) < 0.5),)
    n = int(mask[0].sum().item())
    assert gradcheck(lambda x, v: x.index_put(mask, v, accumulate=accumulate), (x, leaf(rng, n)))


def test_index_put_duplicates_accumulate(rng):
    x, v = leaf(rng, 4), leaf(rng, 3)
    x.index_put((idx([1, 1, 2]),), v, accumulate=True).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1, 1, 1, 1])
    np.testing.assert_array_equal(v.grad.numpy(), [1, 1, 1])


def test_setitem_on_a_non_leaf(rng):
    def tensor_index(x, v):
        y = x * 1
        y[idx([0, 2])] = v
        return y

    def mask_fill(x):
        y = x * 1
        y[y.detach() > 0] = 0.0  # the masked_fill_ path
        return y

    def mask_values(x, v):
        y = x * 1
        y[nabla.tensor([True, False, True])] = v
        return y

    def columns(x):
        y = x * 1
        y[:, [0, 1]] = 2.0
        return y

    x = leaf(rng, 3, 4)
    assert gradcheck(tensor_index, (x, leaf(rng, 4)))
    assert gradcheck(mask_fill, (x,))
    assert gradcheck(mask_values, (x, leaf(rng, 2, 4)))
    assert gradcheck(columns, (x,))
    assert gradgradcheck(tensor_index, (x, leaf(rng, 4)))


def test_setitem_on_leaves_is_refused_and_through_views_rebases(rng):
    x = leaf(rng, 3, 4)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        x[idx([0])] = 1.0
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        x[x.detach() > 0] = 1.0
    y = x * 2
    y[0][idx([1])] = 1.0      # index_put through a view: the base's history is rebased
    y[idx([0, 2]), 1:3] = 0.0  # the slice is applied as a view first
    (y * y).sum().backward()
    expected = 8 * x.detach().numpy()
    expected[0, 1] = 0.0
    expected[[0, 2], 1:3] = 0.0
    np.testing.assert_allclose(x.grad.numpy(), expected)


def test_saved_index_modified_in_place(rng):
    x = leaf(rng, 3, 4)
    index = idx([0, 1])
    y = nabla.index_select(x, 0, index)
    index.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_backward_twice_without_retain_graph(rng):
    x = leaf(rng, 3, 4)
    y = x[idx([0, 2])].sum()
    y.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()


def test_node_names(rng):
    x = leaf(rng, 3, 4)
    i2 = idx([[0, 1]])
    assert x.gather(1, i2).grad_fn.name() == "GatherBackward0"
    assert x.index_select(0, idx([0])).grad_fn.name() == "IndexSelectBackward0"
    assert x[idx([0])].grad_fn.name() == "IndexBackward0"
    assert x.index_put((idx([0]),), nabla.zeros(4, dtype=nabla.float64)).grad_fn.name() == "IndexPutBackward0"
    assert x.masked_fill(x > 0, 1.0).grad_fn.name() == "MaskedFillBackward0"
    assert x.masked_select(x > 0).grad_fn.name() == "MaskedSelectBackward0"
    assert x.scatter_add(1, i2, x[:1, :2]).grad_fn.name() == "ScatterAddBackward0"


# ---- against PyTorch (float32) ----

def test_against_torch(rng):
    torch = pytest.importorskip("torch")
    xa = rng.standard_normal((3, 4)).astype(np.float32)
    sa = rng.standard_normal((2, 4)).astype(np.float32)
    ia = np.array([[0, 2, 1, 0], [2, 1, 0, 1]])
    ma = rng.random((3, 4)) < 0.5
    cases = [
        lambda m, x, s: m.gather(x, 1, m.tensor(ia[:, :3])),
        lambda m, x, s: m.scatter(x, 0, m.tensor(ia), s),
        lambda m, x, s: m.scatter_add(x, 0, m.tensor(ia), s),
        lambda m, x, s: x.scatter(0, m.tensor(ia), 1.5),
        lambda m, x, s: m.index_select(x, 1, m.tensor([3, 0, 3])),
        lambda m, x, s: x.index_add(0, m.tensor([2, 2]), s, alpha=0.5),
        lambda m, x, s: x.masked_fill(m.tensor(ma), -1.0),
        lambda m, x, s: m.masked_select(x, m.tensor(ma)),
        lambda m, x, s: m.take_along_dim(x, m.tensor([[0], [3], [1]]), 1),
        lambda m, x, s: m.take_along_dim(x, m.tensor([1, 11])),
        lambda m, x, s: x[m.tensor([0, 2, 2]), 1:] * s[:1, 1:],
        lambda m, x, s: x[:, m.tensor([[3], [0]])],
        lambda m, x, s: x[m.tensor(ma)],
        lambda m, x, s: x.index_put((m.tensor([0, 2]),), s),
        lambda m, x, s: x.index_put((m.tensor([0, 0]), m.tensor([1, 1])), s[0, :2], accumulate=True),
    ]
    for k, case in enumerate(cases):
        xn, sn = nabla.tensor(xa).requires_grad_(), nabla.tensor(sa).requires_grad_()
        xt, st = torch.tensor(xa).requires_grad_(), torch.tensor(sa).requires_grad_()
        yn, yt = case(nabla, xn, sn), case(torch, xt, st)
        go = rng.standard_normal(tuple(yt.shape)).astype(np.float32)
        yn.backward(nabla.tensor(go))
        yt.backward(torch.tensor(go))
        for a, b in ((xn, xt), (sn, st)):
            assert (a.grad is None) == (b.grad is None), k
            if a.grad is not None:
                np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-5, atol=1e-6, err_msg=str(k))
