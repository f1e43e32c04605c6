"""out= tensors of another shape: resized as PyTorch's resize_output does (a UserWarning
when they had elements, none when empty), the dtype rules of each op family, in-place
ops that must fit, warnings turned into errors, and Tensor.resize_. Every case is run
on nabla and on PyTorch and the two must agree."""
import warnings

import numpy as np
import pytest

import nabla

torch = pytest.importorskip("torch")

RESIZED = "An output with one or more elements was resized"


def x23(L, dtype="float32"):
    return (L.arange(6, dtype=getattr(L, dtype)).reshape(2, 3) - 2) / (3 if "float" in dtype else 1)


# (name, call(L, out)): every family with an out= argument
OPS = [
    ("add", lambda L, o: L.add(x23(L), 2.5, out=o)),
    ("mul_int", lambda L, o: L.mul(x23(L, "int64"), 3, out=o)),
    ("exp", lambda L, o: L.exp(x23(L), out=o)),
    ("neg", lambda L, o: L.neg(x23(L), out=o)),
    ("eq", lambda L, o: L.eq(x23(L), 0, out=o)),
    ("where", lambda L, o: L.where(x23(L) > 0, x23(L), L.zeros(3), out=o)),
    ("clamp", lambda L, o: L.clamp(x23(L), -0.2, 0.4, out=o)),
    ("clamp_tensor", lambda L, o: L.clamp(x23(L), L.zeros(3), out=o)),
    ("nan_to_num", lambda L, o: L.nan_to_num(x23(L), out=o)),
    ("round_decimals", lambda L, o: L.round(x23(L), decimals=1, out=o)),
    ("sum", lambda L, o: L.sum(x23(L), 1, out=o)),
    ("mean", lambda L, o: L.mean(x23(L), 0, keepdim=True, out=o)),
    ("prod", lambda L, o: L.prod(x23(L), 1, out=o)),
    ("amax", lambda L, o: L.amax(x23(L), 1, out=o)),
    ("argmax", lambda L, o: L.argmax(x23(L), 1, out=o)),
    ("var", lambda L, o: L.var(x23(L), 1, out=o)),
    ("std", lambda L, o: L.std(x23(L), 0, out=o)),
    ("logsumexp", lambda L, o: L.logsumexp(x23(L), 1, out=o)),
    ("norm", lambda L, o: L.norm(x23(L), dim=1, out=o)),
    ("all", lambda L, o: L.all(x23(L) > -1, 1, out=o)),
    ("cumsum", lambda L, o: L.cumsum(x23(L), 1, out=o)),
    ("softmax", lambda L, o: L.softmax(x23(L), 1, out=o)),
    ("log_softmax", lambda L, o: L.log_softmax(x23(L), 0, out=o)),
    ("matmul", lambda L, o: L.matmul(x23(L), x23(L).t(), out=o)),
    ("mm", lambda L, o: L.mm(x23(L).t(), x23(L), out=o)),
    ("addmm", lambda L, o: L.addmm(L.ones(2, 2), x23(L), x23(L).t(), out=o)),
    ("mv", lambda L, o: L.mv(x23(L), L.ones(3), out=o)),
    ("dot", lambda L, o: L.dot(L.ones(3), L.arange(3.0), out=o)),
    ("outer", lambda L, o: L.outer(L.ones(3), L.arange(2.0), out=o)),
    ("cat", lambda L, o: L.cat([x23(L), x23(L)], 1, out=o)),
    ("stack", lambda L, o: L.stack([x23(L), x23(L)], out=o)),
    ("tril", lambda L, o: L.tril(x23(L), out=o)),
    ("gather", lambda L, o: L.gather(x23(L), 1, L.tensor([[2, 0], [1, 1]]), out=o)),
    ("index_select", lambda L, o: L.index_select(x23(L), 1, L.tensor([2, 0]), out=o)),
    ("masked_select", lambda L, o: L.masked_select(x23(L), x23(L) > 0, out=o)),
    ("nonzero", lambda L, o: L.nonzero(x23(L), out=o)),
    ("scatter", lambda L, o: L.scatter(x23(L), 1, L.tensor([[2], [0]]), 7.0, out=o)),
    ("index_add", lambda L, o: L.index_add(x23(L), 1, L.tensor([0, 2]), L.ones(2, 2), out=o)),
]
OPS_BY_NAME = dict(OPS)


def reference(name):
    r = OPS_BY_NAME[name](torch, None)
    return r


def run(L, name, shape, dtype):
    """(outcome, out): outcome is ('ok', warnings, shape) or (exception type, message)."""
    out = L.zeros(shape, dtype=getattr(L, dtype)) if shape else L.zeros((), dtype=getattr(L, dtype))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            r = OPS_BY_NAME[name](L, out)
        except Exception as e:  # noqa: BLE001 - compared with PyTorch's
            return (type(e), str(e)), out
    assert r is out
    resized = [str(w.message) for w in caught if RESIZED in str(w.message)]
    return ("ok", len(resized), tuple(out.shape)), out


@pytest.mark.parametrize("name", [n for n, _ in OPS])
@pytest.mark.parametrize("shape", [(5,), (0,), (2, 7, 1), "right"])
def test_shapes_like_pytorch(name, shape):
    want = reference(name)
    dtype = str(want.dtype).split(".")[1]
    shape = tuple(want.shape) if shape == "right" else shape
    (t, tout), (n, nout) = run(torch, name, shape, dtype), run(nabla, name, shape, dtype)
    assert n == t
    if t[0] == "ok":
        np.testing.assert_allclose(nout.numpy().astype(np.float64), tout.numpy().astype(np.float64),
                                   rtol=1e-6, atol=1e-6)
        assert nout.is_contiguous()


@pytest.mark.parametrize("name", [n for n, _ in OPS])
@pytest.mark.parametrize("dtype", ["float64", "float16", "int32", "int64", "bool"])
def test_dtype_rules_like_pytorch(name, dtype):
    shape = tuple(reference(name).shape)
    (t, _), (n, _) = run(torch, name, shape, dtype), run(nabla, name, shape, dtype)
    assert n[0] == t[0], (n, t)  # accepted by both, or the same exception type
    if t[0] != "ok":
        assert dtype_words(n[1]) == dtype_words(t[1]) or n[1].endswith(t[1].replace("torch.", "")), (n[1], t[1])


def dtype_words(message: str) -> str:
    """PyTorch's message with nabla's op prefix dropped and dtype names spelled PyTorch's way."""
    message = message.split(": ", 1)[1] if message.split(": ", 1)[0].isidentifier() else message
    for mine, theirs in (("float32", "Float"), ("float64", "Double"), ("float16", "Half"), ("int32", "Int"),
                         ("int64", "Long"), ("bool", "Bool")):
        message = message.replace(f"type {mine}", f"type {theirs}")
    return message


EXACT = [  # PyTorch's message for an out= of the wrong dtype, after nabla's "op: " prefix
    (lambda L, o: L.neg(L.ones(3), out=o), "float64", "Found dtype Double but expected Float"),
    (lambda L, o: L.where(L.ones(3) > 0, L.ones(3), L.zeros(3), out=o), "int64", "Expected out type to be Float but got Long"),
    (lambda L, o: L.nan_to_num(L.ones(3), out=o), "float16", "dtype of out: Half should be same as input: Float"),
    (lambda L, o: L.gather(L.ones(3), 0, L.tensor([0]), out=o), "int32",
     "Expected out tensor to have dtype float, but got int instead"),
    (lambda L, o: L.argmax(L.ones(3, 2), 1, out=o), "int32", "Expected out tensor to have dtype long int, but got int instead"),
    (lambda L, o: L.mean(L.ones(3, 2), 1, out=o), "int64", "result type Float can't be cast to the desired output type Long"),
    (lambda L, o: L.var(L.ones(3, 2), 1, out=o), "bool", "result type Float can't be cast to the desired output type Bool"),
    (lambda L, o: L.logsumexp(L.ones(3, 2), 1, out=o), "int64",
     "logsumexp(): Expected floating point type for result tensor, but got: Long"),
    (lambda L, o: L.index_select(L.ones(3), 0, L.tensor([0]), out=o), "float64",
     "index_select(): self and result must have the same scalar type"),
    (lambda L, o: L.sort(L.ones(3), out=(o, L.empty(3, dtype=L.int64))), "float64",
     "Expected out tensor to have dtype float, but got double instead"),
    (lambda L, o: L.cumsum(L.ones(3), 0, out=o), "bool", "\"cumsum_out_cpu\" not implemented for 'Bool'"),
]


@pytest.mark.parametrize("call, dtype, message", EXACT)
def test_messages_are_pytorchs(call, dtype, message):
    for L in (torch, nabla):
        with pytest.raises((RuntimeError, NotImplementedError)) as info:
            call(L, L.zeros(3, dtype=getattr(L, dtype)))
        assert str(info.value).endswith(message)
        assert type(info.value) is NotImplementedError or type(info.value) is RuntimeError


def test_cat_out_dtype_is_a_type_error():
    for L in (torch, nabla):
        with pytest.raises(TypeError, match="input types can't be cast to the desired output type Long"):
            L.cat([L.ones(2), L.ones(2)], out=L.zeros(4, dtype=L.int64))


def test_pairs_sort_topk_max():
    for L in (torch, nabla):
        x = L.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]])
        v, i = L.zeros(5), L.zeros(5, dtype=L.int64)
        with pytest.warns(UserWarning, match=RESIZED):
            L.sort(x, 1, out=(v, i))
        assert tuple(v.shape) == tuple(i.shape) == (2, 3)
        v, i = L.zeros(0), L.zeros(0, dtype=L.int64)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            L.topk(x, 2, out=(v, i))
            assert v.tolist() == [[3.0, 2.0], [5.0, 4.0]] and i.tolist() == [[0, 2], [1, 2]]
            v, i = L.zeros(0), L.zeros(0, dtype=L.int64)
            L.max(x, 1, keepdim=True, out=(v, i))
            assert v.tolist() == [[3.0], [5.0]] and i.tolist() == [[0], [1]]
        with pytest.raises(RuntimeError, match="Expected out tensor to have dtype long int, but got int instead"):
            L.max(x, 1, out=(L.zeros(2), L.zeros(2, dtype=L.int32)))


def test_random_ops_resize_without_warning():
    for L in (torch, nabla):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            for call, shape in ((lambda o: L.rand(2, 3, out=o), (2, 3)), (lambda o: L.randn(4, out=o), (4,)),
                                (lambda o: L.normal(0.0, 1.0, (3, 2), out=o), (3, 2)),
                                (lambda o: L.bernoulli(L.full((2, 2), 0.5), out=o), (2, 2))):
                out = L.zeros(7)
                call(out)
                assert tuple(out.shape) == shape
            out = L.zeros(7, dtype=L.int64)
            L.randperm(5, out=out)
            assert sorted(out.tolist()) == [0, 1, 2, 3, 4]
            L.randint(0, 3, (2, 2), out=out)
            assert tuple(out.shape) == (2, 2)


def test_in_place_and_aliased_out_must_fit():
    for L in (torch, nabla):
        a = L.ones(3)
        for call in (lambda: a.add_(L.ones(2, 3)), lambda: L.add(a, L.ones(2, 3), out=a),
                     lambda: L.mul(L.ones(2, 3), a, out=a)):
            with pytest.raises(RuntimeError, match=r"output with shape \[3\] doesn't match the broadcast shape \[2, 3\]"):
                call()
        assert tuple(a.shape) == (3,)


def test_resized_view_grows_the_shared_storage():
    for L in (torch, nabla):
        base = L.arange(4.0)
        view = base[2:]
        with pytest.warns(UserWarning, match=RESIZED):
            L.neg(L.ones(3, 2), out=view)
        assert tuple(view.shape) == (3, 2) and view.storage_offset() == 2 and view.is_contiguous()
        assert base.tolist() == [0.0, 1.0, -1.0, -1.0] and view.tolist() == [[-1.0] * 2] * 3
        base = L.zeros(10)  # a view inside a big enough storage writes into it in place
        with pytest.warns(UserWarning, match=RESIZED):
            L.add(L.ones(3, 2), 1, out=base[2:4])
        assert base.tolist() == [0, 0, 2, 2, 2, 2, 2, 2, 0, 0]


def test_non_contiguous_out_is_written_in_place_when_it_fits():
    for L in (torch, nabla):
        out = L.zeros(3, 2).t()
        L.add(L.ones(2, 3), 1, out=out)
        assert out.stride() == (1, 2) and out.tolist() == [[2.0] * 3] * 2


def test_external_memory_cannot_grow():
    for L in (torch, nabla):
        out = L.from_numpy(np.zeros(2, np.float32))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(RuntimeError, match="Trying to resize storage that is not resizable"):
                L.neg(L.ones(3), out=out)
            small = L.from_numpy(np.zeros(5, np.float32))
            L.neg(L.ones(3), out=small)  # shrinking stays inside the array
            assert small.tolist() == [-1.0] * 3


def test_warning_as_error_fails_the_call_and_points_at_the_caller():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = nabla.zeros(5)
        with pytest.raises(UserWarning, match=RESIZED):
            nabla.exp(nabla.zeros(2), out=out)
        assert tuple(out.shape) == (5,)
    with pytest.warns(UserWarning, match=RESIZED) as record:
        nabla.exp(nabla.zeros(2), out=nabla.zeros(5))
    assert record[0].filename == __file__


def test_out_with_autograd_is_still_refused():
    x = nabla.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="out="):
        nabla.exp(x, out=nabla.zeros(5))


def test_resize_():
    for L in (torch, nabla):
        t = L.arange(6.0)
        assert t.resize_(2, 2) is t and tuple(t.shape) == (2, 2) and t.tolist() == [[0.0, 1.0], [2.0, 3.0]]
        t.resize_((3, 3))
        assert tuple(t.shape) == (3, 3) and t.flatten()[:6].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
        t.resize_(0)
        assert t.numel() == 0
        t = L.ones(2, 3).t()
        t.resize_(3, 2)  # the same shape keeps its strides
        assert t.stride() == (1, 3)
        t.resize_as_(L.ones(6))
        assert t.stride() == (1,)
        with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
            L.ones(2, requires_grad=True).resize_(3)
        with pytest.raises(RuntimeError):
            L.ones(2).resize_(-1)


OVERLAP = ("unsupported operation: some elements of the input tensor and the written-to tensor refer to a single "
           "memory location")


@pytest.mark.parametrize("call", [
    lambda L, a, b: L.cat([a, b], out=a),
    lambda L, a, b: L.cat([b, a], 1, out=a),
    lambda L, a, b: L.stack([a, b], out=a),
    lambda L, a, b: L.cat([a, b], out=a.view(6)),
], ids=["cat_first", "cat_second", "stack", "cat_view_of_out"])
def test_cat_refuses_an_out_that_overlaps_an_input_like_pytorch(call):
    """cat([a, b], out=a) resized a before it read a's shape: a heap overflow or a hang. PyTorch refuses it
    (after resizing a, so its stack then trips over a's new shape; nabla refuses first and leaves a as it was)."""
    for L in (torch, nabla):
        a, b = L.arange(6.0).reshape(2, 3), L.ones(2, 3)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(RuntimeError) as info:
                call(L, a, b)
        assert OVERLAP in str(info.value) or (L is torch and "stack expects each tensor" in str(info.value))
        if L is nabla:
            assert OVERLAP in str(info.value)
            assert a.shape == (2, 3) and a.tolist() == [[0, 1, 2], [3, 4, 5]]


def test_cat_refuses_overlap_even_when_out_fits_like_pytorch():
    for L in (torch, nabla):
        flat = L.zeros(12)
        half = flat[3:9]
        for call in (lambda: L.cat([half, half], out=flat), lambda: L.cat([half], out=flat[:6])):
            with pytest.raises(RuntimeError, match=OVERLAP):
                call()
        assert L.cat([flat[:3], flat[3:6]], out=flat[6:]).tolist() == [0.0] * 6  # disjoint memory is fine


# out= ops whose out tensor (a view of the input's memory, of another shape) would have to be resized
OVERLAPPING = {
    "add": lambda L, a, o: L.add(a, 1.0, out=o),
    "exp": lambda L, a, o: L.exp(a, out=o),
    "sum": lambda L, a, o: L.sum(a, 1, out=o),
    "amax": lambda L, a, o: L.amax(a, 1, out=o),
    "var": lambda L, a, o: L.var(a, 1, out=o),
    "softmax": lambda L, a, o: L.softmax(a, 1, out=o),
    "cumsum": lambda L, a, o: L.cumsum(a, 1, out=o),
    "tril": lambda L, a, o: L.tril(a, out=o),
    "mm": lambda L, a, o: L.mm(a, a.t(), out=o),
    "matmul": lambda L, a, o: L.matmul(a, a.t(), out=o),
    "scatter": lambda L, a, o: L.scatter(a, 1, L.tensor([[2], [0]]), 7.0, out=o),
    "index_add": lambda L, a, o: L.index_add(a, 1, L.tensor([0, 2]), L.ones(2, 2), out=o),
}


@pytest.mark.parametrize("name", list(OVERLAPPING))
def test_out_that_must_grow_while_it_overlaps_an_input_is_refused(name):
    """Resizing an out tensor that is or overlaps an input changes the input under the op (or moves the memory
    it reads): every family refuses it before the warning, the resize or any write. PyTorch refuses the
    TensorIterator ops (add, exp) the same way and computes the others; nabla refuses them all."""
    a = nabla.arange(6.0).reshape(2, 3)
    out = a.view(6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no resize warning either: refused first
        with pytest.raises(RuntimeError, match=OVERLAP) as info:
            OVERLAPPING[name](nabla, a, out)
    assert str(info.value).startswith(name)
    assert out.shape == (6,) and a.tolist() == [[0, 1, 2], [3, 4, 5]]
    # the same call with an out tensor of its own works and matches PyTorch
    want = OVERLAPPING[name](torch, torch.arange(6.0).reshape(2, 3), torch.empty(0))
    got = OVERLAPPING[name](nabla, a, nabla.empty(0))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


def test_scatter_into_its_own_index_tensor_is_refused():
    """The indices were checked at their old shape: writing through the resized index tensor went out of bounds."""
    x, idx, src = nabla.zeros(5, dtype=nabla.int64), nabla.zeros(2, dtype=nabla.int64), nabla.ones(2, dtype=nabla.int64)
    with pytest.raises(RuntimeError, match=OVERLAP):
        nabla.scatter(x, 0, idx, src, out=idx)
    with pytest.raises(RuntimeError, match=OVERLAP):
        nabla.index_add(x, 0, idx, src, out=idx)
    assert idx.tolist() == [0, 0] and x.tolist() == [0] * 5


def test_out_sharing_the_storage_but_not_the_memory_is_resized_like_pytorch():
    for L in (torch, nabla):
        flat = L.zeros(12)
        head, tail = flat[:3], flat[6:8]
        head.copy_(L.arange(3.0))
        with pytest.warns(UserWarning, match=RESIZED):
            L.add(head, head, out=tail)
        assert tail.shape == (3,) and tail.storage_offset() == 6 and tail.tolist() == [0.0, 2.0, 4.0]


@pytest.mark.parametrize("dtype", ["int8", "uint8", "bool", "float64"])
def test_out_resize_of_an_empty_view_at_the_storage_end_like_pytorch(dtype):
    """An empty as_strided view may start at the end of its storage; growing it (out=) checks the extent with
    overflow-checked arithmetic for 1-byte dtypes too (an offset near 2^63 used to slip through and segfault)."""
    results = []
    for L in (torch, nabla):
        base = L.zeros(4, dtype=getattr(L, dtype))
        view = L.as_strided(base, (0,), (1,), 4)
        x = L.tensor([1, 0, 1]).to(getattr(L, dtype))
        L.maximum(x, x, out=view)
        assert view.storage_offset() == 4 and view.shape == (3,)
        results.append(view.tolist())
    assert results[0] == results[1]
    base = nabla.zeros(4, dtype=getattr(nabla, dtype))
    with pytest.raises(RuntimeError, match="storage offset 9223372036854775805 is out of bounds for a storage of 4"):
        nabla.as_strided(base, (0,), (1,), 2**63 - 3)  # PyTorch takes any offset without elements
