"""Indexing through tensors: gather, scatter, scatter_add, index_select,
index_add, take_along_dim, masked_fill, masked_select, nonzero, one_hot, and
advanced indexing (t[idx], t[mask], t[[0, 2]], t[:, idx], t[i, j], mixes with
slices/None/ints/Ellipsis) with assignment, against NumPy (np.take_along_axis,
np.put_along_axis, fancy indexing with the separated-indices rule) over random
shapes, every dim, non-contiguous inputs and several dtypes; every error path
with its message; PyTorch where installed."""
from __future__ import annotations

import numpy as np
import pytest

import nabla

from test_shape import DTYPES, LAYOUTS, NP, check, make, rand, random_shape, values

SOME_DTYPES = [nabla.float32, nabla.float64, nabla.float16, nabla.bfloat16, nabla.int8, nabla.int64, nabla.uint8,
               nabla.bool]
IDX_DTYPES = [nabla.int64, nabla.int32]


def idx_tensor(a, dtype=nabla.int64, layout="contiguous"):
    return make(np.asarray(a, np.int64), dtype, layout)


# ---- gather / scatter ----

@pytest.mark.parametrize("dtype", SOME_DTYPES, ids=str)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_gather_matches_take_along_axis(dtype, layout, rng):
    for trial in range(25):
        ndim = int(rng.integers(1, 4))
        shape = random_shape(rng, ndim, 1, 5)
        a = rand(rng, shape, dtype)
        t = make(a, dtype, layout)
        dim = int(rng.integers(-ndim, ndim))
        ishape = [int(rng.integers(0 if trial % 7 == 0 else 1, s + 1)) for s in shape]  # no larger than a
        ishape[dim] = int(rng.integers(0, 6))
        idx = rng.integers(0, shape[dim], ishape)
        sub = tuple(slice(None) if d == dim % ndim else slice(0, ishape[d]) for d in range(ndim))
        want = np.take_along_axis(a[sub], idx, axis=dim)
        it = idx_tensor(idx, IDX_DTYPES[trial % 2], LAYOUTS[(trial + 1) % 3])
        check(nabla.gather(t, dim, it), want, dtype)
        check(t.gather(dim, it), want, dtype)


def test_gather_zero_dim_and_errors():
    check(nabla.gather(nabla.tensor(5.), 0, nabla.tensor(0)), np.float32(5.))
    check(nabla.gather(nabla.tensor([5., 6.]), 0, nabla.tensor(1)), np.float32(6.))
    x = nabla.arange(6.).view(2, 3)
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with size 2"):
        x.gather(0, nabla.tensor([[5]]))
    with pytest.raises(IndexError, match="index -1 is out of bounds for dimension 1 with size 3"):
        x.gather(1, nabla.tensor([[0, -1]]))
    with pytest.raises(RuntimeError, match="Index tensor must have the same number of dimensions as input tensor"):
        x.gather(0, nabla.tensor([0]))
    with pytest.raises(RuntimeError, match=r"Size does not match at dimension 1 expected index \[1, 4\] to be no "
                                           r"larger than self \[2, 3\] apart from dimension 0"):
        x.gather(0, nabla.zeros(1, 4, dtype=nabla.int64))
    with pytest.raises(RuntimeError, match="Expected dtype int32 or int64 for index"):
        x.gather(0, nabla.zeros(1, 1))
    with pytest.raises(IndexError, match="(?i)dimension out of range"):
        x.gather(2, nabla.zeros(1, 1, dtype=nabla.int64))


def scatter_case(rng, ndim, unique):
    shape = random_shape(rng, ndim, 1, 5)
    dim = int(rng.integers(-ndim, ndim))
    ishape = [int(rng.integers(1, s + 1)) for s in shape]
    ishape[dim] = int(rng.integers(1, shape[dim] + 1)) if unique else int(rng.integers(1, 7))
    if unique:  # distinct targets along dim for every other position
        idx = np.argsort(rng.random(ishape[:dim % ndim] + [shape[dim]] + ishape[dim % ndim + 1:]), axis=dim)
        idx = np.take(idx, range(ishape[dim]), axis=dim)
    else:
        idx = rng.integers(0, shape[dim], ishape)
    return shape, dim, idx


@pytest.mark.parametrize("dtype", SOME_DTYPES, ids=str)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_scatter_matches_put_along_axis(dtype, layout, rng):
    for trial in range(25):
        ndim = int(rng.integers(1, 4))
        shape, dim, idx = scatter_case(rng, ndim, unique=trial % 2 == 0)
        a, src = rand(rng, shape, dtype), rand(rng, idx.shape, dtype)
        t, st = make(a, dtype, layout), make(src, dtype, LAYOUTS[trial % 3])
        it = idx_tensor(idx, IDX_DTYPES[trial % 2])
        sub = tuple(slice(0, s) for s in idx.shape)
        want = a.copy()
        np.put_along_axis(want[tuple(slice(None) if d == dim % ndim else sub[d] for d in range(ndim))], idx, src,
                          axis=dim)  # duplicates: the last write wins, in both
        check(nabla.scatter(t, dim, it, st), want, dtype)
        before = values(t).copy()
        check(t.scatter(dim, it, st), want, dtype)
        np.testing.assert_array_equal(values(t), before)  # out of place
        c = t.clone()
        assert c.scatter_(dim, it, st) is c
        check(c, want, dtype)
        # a value instead of src
        wantv = a.copy()
        np.put_along_axis(wantv[tuple(slice(None) if d == dim % ndim else sub[d] for d in range(ndim))], idx,
                          np.asarray(1, NP[dtype]), axis=dim)
        check(t.scatter(dim, it, 1), wantv, dtype)
        check(nabla.scatter(t, dim, it, value=1), wantv, dtype)
        check(t.clone().scatter_(dim, it, value=1), wantv, dtype)


@pytest.mark.parametrize("dtype", [nabla.float32, nabla.float64, nabla.int32, nabla.int64, nabla.int8, nabla.uint8,
                                   nabla.float16, nabla.bfloat16], ids=str)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_scatter_add_matches_add_at(dtype, layout, rng):
    for trial in range(25):
        ndim = int(rng.integers(1, 4))
        shape, dim, idx = scatter_case(rng, ndim, unique=False)
        a, src = (rand(rng, shape, dtype) % 8).astype(NP[dtype]), (rand(rng, idx.shape, dtype) % 8).astype(NP[dtype])
        t, st = make(a, dtype, layout), make(src, dtype, LAYOUTS[trial % 3])
        want = a.astype(np.int64)
        pos = np.indices(idx.shape)
        pos[dim % ndim] = idx
        np.add.at(want, tuple(pos), src.astype(np.int64))
        want = want.astype(NP[dtype])  # wraps like the integer kernels
        check(nabla.scatter_add(t, dim, idx_tensor(idx), st), want, dtype)
        c = t.clone()
        c.scatter_add_(dim, idx_tensor(idx, nabla.int32), st)
        check(c, want, dtype)


def test_scatter_large_parallel_and_bool():
    rng = np.random.default_rng(3)
    a = np.zeros((400, 300), np.float32)
    idx = rng.integers(0, 400, (500, 300))
    src = rng.integers(0, 5, (500, 300)).astype(np.float32)
    want = a.copy()
    np.add.at(want, (idx, np.arange(300)[None, :].repeat(500, 0)), src)
    check(nabla.tensor(a).scatter_add(0, nabla.tensor(idx), nabla.tensor(src)), want)
    b = nabla.zeros(3, dtype=nabla.bool).scatter_add(0, nabla.tensor([0, 0, 2]), nabla.tensor([True, True, False]))
    assert b.tolist() == [True, False, False]


def test_scatter_errors():
    x = nabla.zeros(2, 3)
    i = nabla.tensor([[1, 0]])
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with size 2"):
        x.scatter(0, nabla.tensor([[5]]), 1.)
    with pytest.raises(RuntimeError, match=r"scatter\(\): Expected self.dtype to be equal to src.dtype"):
        x.scatter(0, i, nabla.ones(1, 2, dtype=nabla.float64))
    with pytest.raises(RuntimeError, match=r"Expected index \[1, 4\] to be no larger than self \[2, 3\] apart from "
                                           r"dimension 0 and to be no larger size than src \[1, 4\]"):
        x.scatter(0, nabla.zeros(1, 4, dtype=nabla.int64), nabla.ones(1, 4))
    with pytest.raises(RuntimeError, match=r"to be no larger size than src \[1, 1\]"):
        x.scatter(0, i, nabla.ones(1, 1))
    with pytest.raises(RuntimeError, match="same number of dimensions as src tensor"):
        x.scatter(0, i, nabla.ones(2))
    with pytest.raises(RuntimeError, match="same number of dimensions as self tensor"):
        x.scatter(0, nabla.tensor([0]), 1.)
    with pytest.raises(RuntimeError, match="Expected dtype int32 or int64 for index"):
        x.scatter_add(0, nabla.zeros(1, 1), nabla.ones(1, 1))
    with pytest.raises(RuntimeError, match="reduce argument must be either add or multiply."):
        x.scatter(0, i, 1., reduce="mean")
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        nabla.zeros(1, 3).expand(2, 3).scatter_(0, i, 1.)
    before = x.clone()
    with pytest.raises(IndexError):  # a failed in-place op writes nothing
        x.scatter_(0, nabla.tensor([[1, 0, 7]]), nabla.ones(1, 3))
    check(x, before.numpy())


# ---- index_select / index_add / take_along_dim ----

@pytest.mark.parametrize("dtype", SOME_DTYPES, ids=str)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_index_select_matches_take(dtype, layout, rng):
    for trial in range(25):
        ndim = int(rng.integers(1, 4))
        shape = random_shape(rng, ndim, 1 if trial % 5 else 0, 5)
        a = rand(rng, shape, dtype)
        t = make(a, dtype, layout)
        dim = int(rng.integers(-ndim, ndim))
        idx = rng.integers(0, max(shape[dim], 1), int(rng.integers(0, 7))) if shape[dim] else np.zeros(0, np.int64)
        it = idx_tensor(idx, IDX_DTYPES[trial % 2], LAYOUTS[trial % 3])
        check(nabla.index_select(t, dim, it), np.take(a, idx, axis=dim), dtype)
    check(nabla.arange(6.).view(2, 3).index_select(0, nabla.tensor(1)), [[3., 4., 5.]])
    check(nabla.tensor(5.).index_select(0, nabla.tensor([0])), np.float32(5.))


def test_index_select_errors():
    x = nabla.zeros(2, 3)
    with pytest.raises(IndexError, match="index 3 is out of bounds for dimension 1 with size 3"):
        x.index_select(1, nabla.tensor([0, 3]))
    with pytest.raises(IndexError, match="index -1 is out of bounds"):
        x.index_select(0, nabla.tensor([-1]))
    with pytest.raises(IndexError, match="Index is supposed to be a vector"):
        x.index_select(0, nabla.tensor([[0]]))
    with pytest.raises(RuntimeError, match="Expected dtype int32 or int64 for index"):
        x.index_select(0, nabla.tensor([0.]))


@pytest.mark.parametrize("dtype", [nabla.float32, nabla.float64, nabla.int32, nabla.int64, nabla.int16, nabla.uint8,
                                   nabla.float16, nabla.bfloat16], ids=str)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_index_add_matches_add_at(dtype, layout, rng):
    for trial in range(20):
        ndim = int(rng.integers(1, 4))
        shape = random_shape(rng, ndim, 1, 5)
        dim = int(rng.integers(-ndim, ndim))
        idx = rng.integers(0, shape[dim], int(rng.integers(0, 7)))
        sshape = list(shape)
        sshape[dim] = len(idx)
        a, src = (rand(rng, shape, dtype) % 8).astype(NP[dtype]), (rand(rng, sshape, dtype) % 8).astype(NP[dtype])
        alpha = int(rng.integers(-2, 3))
        want = np.moveaxis(a.astype(np.int64).copy(), dim, 0)
        np.add.at(want, idx, alpha * np.moveaxis(src.astype(np.int64), dim, 0))
        want = np.moveaxis(want, 0, dim).astype(NP[dtype])
        t, st = make(a, dtype, layout), make(src, dtype, LAYOUTS[trial % 3])
        check(nabla.index_add(t, dim, idx_tensor(idx, IDX_DTYPES[trial % 2]), st, alpha=alpha), want, dtype)
        c = t.clone()
        assert c.index_add_(dim, idx_tensor(idx), st, alpha=alpha) is c
        check(c, want, dtype)


def test_index_add_alpha_and_errors():
    x = nabla.arange(6.).view(2, 3)
    check(x.index_add(0, nabla.tensor([0]), nabla.ones(1, 3), alpha=1.5), [[1.5, 2.5, 3.5], [3., 4., 5.]])
    with pytest.raises(RuntimeError, match=r"Number of indices \(3\) should be equal to source.size\(dim\): \(2\), "
                                           "for dim: 0"):
        x.index_add(0, nabla.tensor([0, 1, 1]), nabla.ones(2, 3))
    with pytest.raises(RuntimeError, match=r"self \(float32\) and source \(float64\) must have the same scalar type"):
        x.index_add(0, nabla.tensor([0]), nabla.ones(1, 3, dtype=nabla.float64))
    with pytest.raises(RuntimeError, match=r"source tensor shape must match self tensor shape, excluding the "
                                           r"specified dimension. Got self.shape = \[2, 3\] source.shape = \[1, 4\]"):
        x.index_add(0, nabla.tensor([0]), nabla.ones(1, 4))
    with pytest.raises(IndexError, match="index 2 is out of bounds for dimension 0 with size 2"):
        x.index_add_(0, nabla.tensor([2]), nabla.ones(1, 3))
    with pytest.raises(RuntimeError, match="alpha must not be a floating point number"):
        nabla.zeros(3, dtype=nabla.int64).index_add(0, nabla.tensor([0]), nabla.ones(1, dtype=nabla.int64), alpha=1.5)
    check(x, np.arange(6., dtype=np.float32).reshape(2, 3))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_take_along_dim_matches_numpy(layout, rng):
    for trial in range(30):
        ndim = int(rng.integers(1, 4))
        shape = random_shape(rng, ndim, 1, 5)
        a = rand(rng, shape, nabla.float64)
        t = make(a, nabla.float64, layout)
        dim = int(rng.integers(-ndim, ndim))
        ishape = [s if rng.random() < 0.6 else 1 for s in shape]  # broadcast both ways
        ishape[dim] = int(rng.integers(0, 5))
        ashape_b = [1 if rng.random() < 0.3 and d != dim % ndim else s for d, s in enumerate(shape)]
        a_b = a[tuple(slice(0, s) for s in ashape_b)]
        idx = rng.integers(0, shape[dim], ishape)
        want = np.take_along_axis(a_b, idx, axis=dim)
        check(nabla.take_along_dim(make(a_b, nabla.float64, layout), nabla.tensor(idx), dim), want)
        flat = rng.integers(0, a.size, int(rng.integers(0, 8)))
        check(t.take_along_dim(nabla.tensor(flat)), np.take_along_axis(a.ravel(), flat, 0))


def test_take_along_dim_errors():
    x = nabla.arange(6.).view(2, 3)
    with pytest.raises(RuntimeError, match="input and indices should have the same number of dimensions, but got 2 "
                                           "dimensions for input, and 1 dimensions for indices"):
        x.take_along_dim(nabla.tensor([0]), 0)
    with pytest.raises(RuntimeError, match="dtype of indices should be Long but got int32"):
        x.take_along_dim(nabla.tensor([[0]], dtype=nabla.int32), 0)
    with pytest.raises(IndexError, match="^take_along_dim: index 7 is out of bounds for dimension 0 with size 6"):
        x.take_along_dim(nabla.tensor([7]))
    with pytest.raises(IndexError, match="^take_along_dim: index -4 is out of bounds for dimension 1 with size 3"):
        x.take_along_dim(nabla.tensor([[-4], [0]]), 1)


# ---- masks ----

@pytest.mark.parametrize("dtype", SOME_DTYPES, ids=str)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_masked_fill_select_nonzero_match_numpy(dtype, layout, rng):
    for trial in range(20):
        ndim = int(rng.integers(0, 4))
        shape = random_shape(rng, ndim, 0 if trial % 6 == 0 else 1, 5)
        a = rand(rng, shape, dtype)
        t = make(a, dtype, layout)
        mshape = tuple(s if rng.random() < 0.7 else 1 for s in shape)[int(rng.integers(0, ndim + 1)):]
        m = rng.random(mshape) < 0.5
        mt = make(m, nabla.bool, LAYOUTS[trial % 3])
        fill = np.asarray(7, NP[dtype]) if dtype is not nabla.bool else np.asarray(True)
        check(nabla.masked_fill(t, mt, 7), np.where(m, fill, a), dtype)
        check(t.masked_fill(mt, nabla.tensor(7.)), np.where(m, fill, a), dtype)
        ab, mb = np.broadcast_arrays(a, m)
        check(nabla.masked_select(t, mt), ab[mb], dtype)
        if np.broadcast_shapes(mshape, shape) == shape:  # in place, the mask may not grow the tensor
            c = t.clone()
            assert c.masked_fill_(mt, 7) is c
            check(c, np.where(m, fill, a), dtype)
        check(nabla.nonzero(t), np.argwhere(a), nabla.int64)
        if ndim:
            for got, want in zip(t.nonzero(as_tuple=True), np.nonzero(a)):
                check(got, want, nabla.int64)


def test_nonzero_counts_nan_and_negative_zero():
    t = nabla.tensor([0., -0., float("nan"), 1e-30, -2.])
    assert nabla.nonzero(t).tolist() == [[2], [3], [4]]
    assert nabla.nonzero(nabla.tensor(3)).shape == (1, 0) and nabla.nonzero(nabla.tensor(0)).shape == (0, 0)
    assert [x.tolist() for x in nabla.nonzero(nabla.tensor(3.), as_tuple=True)] == [[0]]
    big = np.random.default_rng(1).random((300, 400)) < 0.3
    np.testing.assert_array_equal(nabla.tensor(big).nonzero().numpy(), np.argwhere(big))
    np.testing.assert_array_equal(nabla.tensor(big.T).t().nonzero().numpy(), np.argwhere(big))
    x = np.random.default_rng(2).standard_normal((300, 400))
    np.testing.assert_array_equal(nabla.tensor(x).masked_select(nabla.tensor(big)).numpy(), x[big])


def test_mask_errors():
    x = nabla.zeros(2, 3)
    with pytest.raises(RuntimeError, match="masked_fill_ only supports boolean masks, but got mask with dtype int64"):
        x.masked_fill(nabla.tensor([1, 0, 1]), 1.)
    with pytest.raises(RuntimeError, match=r"masked_fill_ only supports a 0-dimensional value tensor, but got tensor "
                                           r"with 1 dimension\(s\)."):
        x.masked_fill(nabla.tensor([True, False, True]), nabla.tensor([1., 2.]))
    with pytest.raises(RuntimeError, match=r"output with shape \[3\] doesn't match the broadcast shape \[2, 3\]"):
        nabla.zeros(3).masked_fill_(nabla.zeros(2, 3, dtype=nabla.bool), 1.)
    with pytest.raises(RuntimeError, match="must match"):
        x.masked_fill(nabla.zeros(4, dtype=nabla.bool), 1.)
    with pytest.raises(RuntimeError, match="expected BoolTensor for mask"):
        x.masked_select(nabla.zeros(2, 3))
    check(nabla.zeros(3, dtype=nabla.int64).masked_fill(nabla.tensor([True, False, True]), 2.5), [2, 0, 2],
          nabla.int64)
    check(nabla.zeros(3).masked_fill(nabla.tensor([[True, False, True]]), 2.5), [[2.5, 0., 2.5]])


def test_one_hot():
    F = nabla.nn.functional
    x = np.array([[0, 2], [1, 4]])
    check(F.one_hot(nabla.tensor(x)), np.eye(5, dtype=np.int64)[x], nabla.int64)
    check(F.one_hot(nabla.tensor(x), 7), np.eye(7, dtype=np.int64)[x], nabla.int64)
    check(F.one_hot(nabla.tensor(3)), np.eye(4, dtype=np.int64)[3], nabla.int64)
    check(F.one_hot(nabla.zeros(0, dtype=nabla.int64), 3), np.zeros((0, 3), np.int64), nabla.int64)
    check(F.one_hot(nabla.tensor(x).t()), np.eye(5, dtype=np.int64)[x.T], nabla.int64)
    with pytest.raises(RuntimeError, match="Class values must be smaller than num_classes."):
        F.one_hot(nabla.tensor([3]), 2)
    with pytest.raises(RuntimeError, match="Class values must be non-negative."):
        F.one_hot(nabla.tensor([-1]))
    with pytest.raises(RuntimeError, match="Can not infer total number of classes from empty tensor."):
        F.one_hot(nabla.zeros(0, dtype=nabla.int64))
    with pytest.raises(RuntimeError, match="one_hot is only applicable to index tensor of type LongTensor"):
        F.one_hot(nabla.tensor([1.]))
    assert "one_hot" in F.__all__


# ---- advanced indexing ----

def torch_rule_numpy(a, items):
    """a[items] with PyTorch's rule: ints select first (they never count as advanced
    indices), then NumPy's fancy indexing over what is left."""
    pass1, pass2 = [], []
    for item in items:
        if isinstance(item, np.ndarray) and item.dtype == bool and item.ndim == 0:
            pass1.append(None)  # a 0-dim mask indexes a new dim of size 1
            pass2.append(np.array([bool(item)]))
        elif isinstance(item, np.ndarray):
            k = item.ndim if item.dtype == bool else 1
            pass1 += [slice(None)] * k
            pass2.append(item)
        elif isinstance(item, int):
            pass1.append(item)
        elif item is None:
            pass1.append(None)
            pass2.append(slice(None))
        elif item is Ellipsis:
            pass1.append(Ellipsis)
            pass2.append(Ellipsis)
        else:
            pass1.append(item)
            pass2.append(slice(None))
    view = a[tuple(pass1)]
    return view, tuple(pass2)


def random_advanced_index(rng, shape):
    """A random mix of index arrays, masks, ints, slices, None and Ellipsis for this shape."""
    ndim = len(shape)
    items, d = [], 0
    ell = rng.random() < 0.2
    while d < ndim:
        if ell and rng.random() < 0.3:
            items.append(Ellipsis)
            ell = False
            d = ndim - int(rng.integers(0, ndim - d + 1))
            if d >= ndim:
                break
        r = rng.random()
        size = shape[d]
        if r < 0.3 and size:
            items.append(rng.integers(-size, size, tuple(int(s) for s in rng.integers(1, 4, int(rng.integers(0, 3))))))
            d += 1
        elif r < 0.45:
            k = int(rng.integers(1, min(2, ndim - d) + 1))
            items.append(rng.random(shape[d:d + k]) < 0.5)
            d += k
        elif r < 0.55 and size:
            items.append(int(rng.integers(-size, size)))
            d += 1
        elif r < 0.65:
            items.append(None)
        elif r < 0.7:
            items.append(np.array(rng.random() < 0.7))
        else:
            items.append(slice(None) if rng.random() < 0.5 else slice(int(rng.integers(0, 2)), None, int(rng.integers(1, 3))))
            d += 1
        if rng.random() < 0.3:
            break
    return items


def broadcastable(items):
    arrays = [x for x in items if isinstance(x, np.ndarray) and x.dtype != bool]
    masks = [np.nonzero(x)[0] for x in items if isinstance(x, np.ndarray) and x.dtype == bool and x.ndim]
    try:
        np.broadcast_shapes(*(x.shape for x in arrays), *(m.shape for m in masks))
        return True
    except ValueError:
        return False


def as_nabla_index(items, idx_dtype):
    out = []
    for x in items:
        if isinstance(x, np.ndarray):
            out.append(nabla.tensor(x) if x.dtype == bool else nabla.tensor(x, dtype=idx_dtype))
        else:
            out.append(x)
    return tuple(out)


@pytest.mark.parametrize("dtype", [nabla.float32, nabla.int64, nabla.bool, nabla.float16, nabla.int8], ids=str)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_getitem_and_setitem_match_numpy(dtype, layout, rng):
    done = 0
    while done < 60:
        ndim = int(rng.integers(1, 5))
        shape = random_shape(rng, ndim, 1, 5)
        items = random_advanced_index(rng, shape)
        if not any(isinstance(x, np.ndarray) for x in items) or not broadcastable(items):
            continue
        a = rand(rng, shape, dtype)
        view, rest = torch_rule_numpy(a, items)
        try:
            want = view[rest]
        except IndexError:
            continue
        done += 1
        t = make(a, dtype, layout)
        index = as_nabla_index(items, IDX_DTYPES[done % 2])
        got = t[index if len(index) != 1 or done % 2 else index[0]]
        check(got, want, dtype)
        # assignment: a scalar, then values of the result's shape (duplicates: the last write wins)
        exp = a.copy()
        v2, r2 = torch_rule_numpy(exp, items)
        vals = rand(rng, want.shape, dtype)
        v2[r2] = vals
        t2 = make(a, dtype, layout)
        t2[index] = make(vals, dtype)
        check(t2, exp, dtype)
        exp = a.copy()
        v3, r3 = torch_rule_numpy(exp, items)
        v3[r3] = np.asarray(3, NP[dtype])
        t3 = make(a, dtype, layout)
        t3[index] = 3
        check(t3, exp, dtype)


@pytest.mark.parametrize("idx", [
    ([0, 2],), (np.array([[1], [0]]), slice(None)), (slice(None), [3, 0, 0]), ([0, 1], [2, 3]),
    ([[0], [1]], [1, 2, 3]), ([0, 2], slice(None), [1, 1]), (slice(None), [0, 1], [2, 3]),
    (Ellipsis, [0, 1]), ([1, 0], Ellipsis, [0, 4]), (None, [0, 1], None), ([0, 1], None, [1, 2]),
    (np.array([True, False, True]),), (np.array([True, False, True]), [0, 3]), (slice(1, None), np.array([1, 3])),
    (np.ones((3, 4), bool),), (np.zeros((3, 4), bool),), (np.zeros((3, 4, 5), bool),), (np.array(1),),
    ([],), ([-1, -3],), (1, [0, 2]), (slice(None), 1, [0, 2]), ([[0, 1], [1, 2]], 1),
])
def test_getitem_fixed_expressions(idx, rng):
    a = rng.standard_normal((3, 4, 5))
    t = make(a, nabla.float64, "transposed")
    items = tuple(np.asarray(x, np.int64 if x == [] else None) if isinstance(x, list) else x for x in idx)
    view, rest = torch_rule_numpy(a, items)
    want = view[rest]
    check(t[as_nabla_index(items, nabla.int64)], want)
    check(t[idx if len(idx) > 1 else idx[0]], want)  # lists and arrays as given


def test_pytorch_rule_for_ints_beside_advanced_indices():
    t = nabla.zeros(3, 4, 5)
    assert t[0, :, [1, 2]].shape == (4, 2)  # NumPy would give (2, 4)
    assert t[[0], :, [1, 2]].shape == (2, 4)
    assert t[:, 0, [1, 2]].shape == (3, 2)


def test_bool_scalars_and_zero_dim():
    s = nabla.tensor(5.)
    assert s[True].tolist() == [5.] and s[False].shape == (0,)
    assert s[nabla.tensor(True)].tolist() == [5.]
    x = nabla.arange(6.).view(2, 3)
    assert x[True].shape == (1, 2, 3) and x[False].shape == (0, 2, 3)
    assert x[None, True, 1].shape == (1, 1, 3)
    assert x[nabla.tensor(1)].tolist() == [3., 4., 5.]
    x[True] = 1.
    assert x.tolist() == [[1.] * 3] * 2
    x[x > 0] = nabla.tensor([0., 1., 2., 3., 4., 5.])
    assert x.tolist() == [[0., 1., 2.], [3., 4., 5.]]


def test_setitem_details():
    x = nabla.zeros(2, 3)
    x[[0, 1]] = nabla.ones(1, 1, 2, 3)  # leading size-1 dims of the value are dropped
    assert x.tolist() == [[1.] * 3] * 2
    x[:, [0, 2]] = [7, 8]  # lists convert to x's dtype
    assert x.tolist() == [[7., 1., 8.], [7., 1., 8.]]
    x[[0, 0, 0], [1, 1, 1]] = nabla.tensor([4., 5., 6.])  # duplicates: the last write wins
    assert x[0, 1].item() == 6.
    i = nabla.zeros(4, dtype=nabla.int64)
    i[[1, 2]] = nabla.tensor([2.9, 3.9])  # value dtype converted
    assert i.tolist() == [0, 2, 3, 0]
    v = nabla.arange(5)
    v[v[:2] + 2] = v[3:]  # index and value tensors that alias the target are read first
    assert v.tolist() == [0, 1, 3, 4, 4]
    y = nabla.arange(12.).view(3, 4)
    w = y.t()
    w[[0, 3], 1:] = -1.
    assert y.tolist() == [[0., 1., 2., 3.], [-1., 5., 6., -1.], [-1., 9., 10., -1.]]
    before = y._version
    y[[0]] = 0.
    assert y._version > before


def test_index_put_accumulate(rng):
    for dtype in (nabla.float32, nabla.int64, nabla.int8, nabla.float16):
        a = (rand(rng, (4, 5), dtype) % 5).astype(NP[dtype])
        rows, cols = rng.integers(0, 4, 12), rng.integers(0, 5, 12)
        vals = (rand(rng, 12, dtype) % 5).astype(NP[dtype])
        want = a.astype(np.int64)
        np.add.at(want, (rows, cols), vals.astype(np.int64))
        t = make(a, dtype, "transposed")
        r = t.index_put((nabla.tensor(rows), nabla.tensor(cols)), make(vals, dtype), accumulate=True)
        check(r, want.astype(NP[dtype]), dtype)
        check(t, a, dtype)  # out of place
        t.index_put_((nabla.tensor(rows), nabla.tensor(cols)), make(vals, dtype), True)
        check(t, want.astype(NP[dtype]), dtype)
        want2 = a.copy()
        want2[rows] = 1
        check(nabla.index_put(make(a, dtype), (nabla.tensor(rows),), nabla.tensor(1, dtype=dtype)), want2, dtype)
    m = nabla.zeros(3, 3)
    m.index_put_((None, nabla.tensor([0, 0])), nabla.tensor(1.), accumulate=True)
    assert m.tolist() == [[2., 0., 0.]] * 3


def test_advanced_indexing_errors():
    x = nabla.zeros(3, 4)
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with size 3"):
        x[[0, 5]]
    with pytest.raises(IndexError, match="index -5 is out of bounds for dimension 1 with size 4"):
        x[:, nabla.tensor([-5])]
    with pytest.raises(IndexError, match="index 3 is out of bounds for dimension 0 with size 3"):
        x[[3]] = 1.
    with pytest.raises(IndexError, match=r"The shape of the mask \[2\] at index 0 does not match the shape of the "
                                         r"indexed tensor \[3, 4\] at index 0"):
        x[nabla.tensor([True, False])]
    with pytest.raises(IndexError, match=r"shape mismatch: indexing tensors could not be broadcast together with "
                                         r"shapes \[2\], \[3\]"):
        x[[0, 1], [0, 1, 2]]
    with pytest.raises(IndexError, match="too many indices for tensor of dimension 2"):
        x[[0], [0], [0]]
    with pytest.raises(IndexError, match="tensors used as indices must be long, int, byte or bool tensors"):
        x[nabla.tensor([1.])]
    with pytest.raises(IndexError, match="tensors used as indices must be long, int, byte or bool tensors"):
        x[[0.5]]
    with pytest.raises(IndexError, match="tensors used as indices must be long, int, byte or bool tensors"):
        x[nabla.tensor([0], dtype=nabla.int16)]
    with pytest.raises(RuntimeError, match=r"shape mismatch: value tensor of shape \[3\] cannot be broadcast to "
                                           r"indexing result of shape \[2, 4\]"):
        x[[0, 1]] = nabla.ones(3)
    with pytest.raises(RuntimeError, match="Index put requires the source and destination dtypes match, got float32 "
                                           "for the destination and float64 for the source."):
        x.index_put_((nabla.tensor([0]),), nabla.ones(4, dtype=nabla.float64))
    with pytest.raises(ValueError, match="step must be greater than zero"):
        x[::-1, [0]]
    before = x.clone()
    with pytest.raises(IndexError):
        x[[0, 1, 9]] = 5.  # nothing written
    check(x, before.numpy())
    with pytest.raises(IndexError):
        nabla.zeros(0, 3)[[0]]


def test_error_paths_and_results_do_not_leak():
    import gc
    x = nabla.arange(12.).view(3, 4)
    bad = nabla.tensor([0, 7])
    failing = [
        lambda: x[bad], lambda: x.__setitem__((slice(None), bad), 1.), lambda: x.gather(1, bad.view(1, 2)),
        lambda: x.scatter_(1, bad.view(1, 2), 1.), lambda: x.scatter_add(1, bad.view(1, 2), x[:1, :2]),
        lambda: x.index_select(1, bad), lambda: x.index_add_(1, bad, x[:, :2]), lambda: x[nabla.tensor([True])],
        lambda: x[[0, 1], [0, 1, 2]], lambda: x.index_put_((bad,), nabla.tensor(1.)),
        lambda: x.masked_fill(nabla.zeros(5, dtype=nabla.bool), 1.), lambda: x.take_along_dim(bad.view(1, 2), 1),
        lambda: nabla.cat([x, nabla.zeros(2, 5)]), lambda: nabla.stack([x, x[:2]]), lambda: x.topk(9),
        lambda: nabla.nn.functional.one_hot(bad, 3),
    ]
    working = [
        lambda: x[nabla.tensor([2, 0])], lambda: x[x > 3], lambda: x.sort(), lambda: nabla.unique(x, True, True, True),
        lambda: x.nonzero(), lambda: x.topk(2), lambda: nabla.cat([x, x]), lambda: x.scatter(1, bad.view(1, 2) % 4, 1.),
        lambda: x.repeat(2, 2), lambda: x.roll((1, 1), (0, 1)), lambda: x.tril(), lambda: x[[0, 1], 1:, None],
    ]

    def live():
        gc.collect()
        return nabla.memory.stats()["live_tensors"], nabla.memory.stats()["live_storages"]

    for f in failing + working:  # warm caches (wrapped scalars, ...)
        try:
            f()
        except (IndexError, RuntimeError):
            pass
    before = live()
    for _ in range(3):
        for f in failing:
            with pytest.raises((IndexError, RuntimeError)):
                f()
        for f in working:
            f()
    assert live() == before


def test_against_pytorch(rng):
    torch = pytest.importorskip("torch")
    a = rng.standard_normal((4, 5, 6)).astype(np.float32)
    t, p = nabla.tensor(a), torch.tensor(a)
    it = lambda x: nabla.tensor(np.asarray(x))  # noqa: E731
    pt = lambda x: torch.tensor(np.asarray(x))  # noqa: E731
    idx = rng.integers(0, 4, (3, 5, 6))
    mask = rng.random((4, 5)) < 0.5
    cases = [
        (t.gather(0, it(idx)), p.gather(0, pt(idx))),
        (t.index_select(2, it([5, 0, 5])), p.index_select(2, pt([5, 0, 5]))),
        (t.masked_select(it(mask)[..., None]), p.masked_select(pt(mask)[..., None])),
        (t.masked_fill(it(mask)[..., None], -1.), p.masked_fill(pt(mask)[..., None], -1.)),
        (t.nonzero(), p.nonzero()), ((t > 0).nonzero(), (p > 0).nonzero()),
        (t.take_along_dim(it(idx[:, :1, :]), 0), p.take_along_dim(pt(idx[:, :1, :]), 0)),
        (t[it(mask)], p[pt(mask)]), (t[0, :, [1, 2]], p[0, :, [1, 2]]), (t[[0, 1], :, [1, 2]], p[[0, 1], :, [1, 2]]),
        (t[..., it([0, -1])], p[..., pt([0, -1])]), (t[None, it([[0], [1]]), 1:, it([2, 3])], p[None, pt([[0], [1]]), 1:, pt([2, 3])]),
        (t[True], p[True]), (t[it(mask), 2], p[pt(mask), 2]),
        (t.scatter(1, it(idx[:1, :2, :]), 9.), p.scatter(1, pt(idx[:1, :2, :]), 9.)),
        (t.index_add(1, it([0, 0, 4]), t[:, :3] * 2, alpha=0.5), p.index_add(1, pt([0, 0, 4]), p[:, :3] * 2, alpha=0.5)),
        (nabla.nn.functional.one_hot(it(idx)), torch.nn.functional.one_hot(pt(idx))),
    ]
    for ours, theirs in cases:
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    t2, p2 = t.clone(), p.clone()
    t2[it(mask)] = 0.
    p2[pt(mask)] = 0.
    t2[:, [0, 2], 1] = nabla.tensor([5., 6.])
    p2[:, [0, 2], 1] = torch.tensor([5., 6.])
    np.testing.assert_array_equal(t2.numpy(), p2.numpy())
    for got, want in zip(t.nonzero(as_tuple=True), p.nonzero(as_tuple=True)):
        np.testing.assert_array_equal(got.numpy(), want.numpy())
