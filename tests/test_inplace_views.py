"""The in-place view ops (t_, transpose_, swapdims_, swapaxes_, squeeze_, unsqueeze_,
as_strided_) and Tensor.register_post_accumulate_grad_hook, against torch on the same
inputs: shape, strides, offset, values, version counter, storage shared with earlier
views, gradients through autograd and the errors torch raises."""
from __future__ import annotations

import numpy as np
import pytest

import nabla

torch = pytest.importorskip("torch")


def pair(shape, layout="contiguous", seed=0):
    """The same values as a nabla and a torch float64 tensor, laid out alike."""
    a = np.random.default_rng(seed).standard_normal(shape)
    n, t = nabla.tensor(a), torch.tensor(a)
    if layout == "transposed" and len(shape) >= 2:
        dims = tuple(range(len(shape) - 1, -1, -1))
        a = np.ascontiguousarray(a.transpose(dims))
        n, t = nabla.tensor(a).permute(dims), torch.tensor(a).permute(dims)
    elif layout == "stepped" and len(shape) >= 1:
        n, t = n[..., ::2], t[..., ::2]
    return n, t


def same(n, t):
    assert tuple(n.shape) == tuple(t.shape)
    assert n.stride() == t.stride()
    assert n.storage_offset() == t.storage_offset()
    np.testing.assert_array_equal(n.numpy(), t.numpy())


CASES = [
    ((2, 3), "t_", ()), ((4,), "t_", ()), ((), "t_", ()),
    ((2, 3, 4), "transpose_", (0, 2)), ((2, 3, 4), "transpose_", (-1, 0)), ((2, 3), "transpose_", (1, 1)),
    ((2, 3, 4), "swapdims_", (1, 2)), ((2, 3, 4), "swapaxes_", (0, -2)),
    ((1, 3, 1, 2), "squeeze_", ()), ((1, 3, 1, 2), "squeeze_", (2,)), ((1, 3, 1, 2), "squeeze_", (-4,)),
    ((1, 3, 1, 2), "squeeze_", (1,)), ((1, 3, 1, 2), "squeeze_", ((0, 2),)), ((1, 3, 1, 2), "squeeze_", ([0, 1],)),
    ((1,), "squeeze_", ()), ((2, 3), "squeeze_", ()),
    ((2, 3), "unsqueeze_", (0,)), ((2, 3), "unsqueeze_", (2,)), ((2, 3), "unsqueeze_", (-1,)), ((), "unsqueeze_", (0,)),
    ((3, 4), "as_strided_", ((2, 2), (1, 2))), ((3, 4), "as_strided_", ((2, 3), (4, 1), 1)),
    ((3, 4), "as_strided_", ((6,), (2,), 0)),
]


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped"])
@pytest.mark.parametrize("shape,op,args", CASES)
def test_inplace_view_matches_torch(shape, op, args, layout):
    n, t = pair(shape, layout)
    n_earlier, t_earlier = (x.as_strided(x.shape, x.stride(), x.storage_offset()) for x in (n, t))
    rn, rt = getattr(n, op)(*args), getattr(t, op)(*args)
    assert rn is n and rt is t
    same(n, t)
    assert n._version == t._version == 1
    assert n_earlier._version == t_earlier._version  # the counter is shared with every view
    same(n_earlier, t_earlier)                        # an earlier view keeps its own shape
    n.mul_(2)                                         # the storage is still shared
    t.mul_(2)
    same(n_earlier, t_earlier)


def test_chained_ops_and_earlier_views():
    n, t = pair((2, 1, 3))
    vn, vt = n[0], t[0]
    for x, v in ((n, vn), (t, vt)):
        x.squeeze_(1).t_().unsqueeze_(0).transpose_(0, 2).swapaxes_(1, 2)
    same(n, t)
    same(vn, vt)
    assert n._version == t._version == vn._version == vt._version == 5


def test_as_strided_offset_defaults_to_the_tensors_own():
    n, t = pair((4, 5))
    n, t = n[1:, 1:], t[1:, 1:]
    n.as_strided_((2, 2), (1, 5))
    t.as_strided_((2, 2), (1, 5))
    same(n, t)
    assert n.storage_offset() == 6


BAD = [((2, 3), "transpose_", (0, 5)), ((2, 3), "swapdims_", (-3, 0)), ((2, 3), "unsqueeze_", (4,)),
       ((2, 3), "unsqueeze_", (-4,)), ((2, 3), "squeeze_", (2,)), ((2, 3), "squeeze_", ((0, 7),)),
       ((2, 3, 4), "t_", ()), ((2, 3), "as_strided_", ((2, 3), (1,))), ((2, 3), "transpose_", (0.5, 1)),
       ((2, 3), "unsqueeze_", ("a",))]


@pytest.mark.parametrize("shape,op,args", BAD)
def test_bad_arguments_raise_what_torch_raises_and_change_nothing(shape, op, args):
    n, t = pair(shape)
    with pytest.raises(Exception) as et:
        getattr(t, op)(*args)
    with pytest.raises(et.type):
        getattr(n, op)(*args)
    same(n, t)
    assert n._version == t._version == 0


def test_as_strided_out_of_the_storage_raises():
    n, t = pair((2, 3))
    with pytest.raises(RuntimeError):
        t.as_strided_((3, 3), (3, 1))
    with pytest.raises(RuntimeError):
        n.as_strided_((3, 3), (3, 1))
    same(n, t)


# ---- autograd ----

OPS = [("t_", ()), ("transpose_", (0, 1)), ("swapdims_", (1, 0)), ("unsqueeze_", (1,)), ("squeeze_", ()),
       ("as_strided_", ((3, 2), (1, 3)))]


def grads(mod, op, args, body):
    a = mod.tensor(np.arange(6.0).reshape(2, 3) / 7, requires_grad=True)
    body(mod, a, op, args)
    return a.grad.numpy()


@pytest.mark.parametrize("op,args", OPS)
def test_gradient_through_a_non_leaf(op, args):
    def body(mod, a, op, args):
        y = a * 2
        getattr(y, op)(*args)
        assert y.requires_grad and not y.is_leaf
        w = mod.tensor(np.arange(1.0, 7.0)).reshape(y.shape)
        (y * w).sum().backward()
    np.testing.assert_allclose(grads(nabla, op, args, body), grads(torch, op, args, body))


@pytest.mark.parametrize("op,args", OPS[:3])
def test_gradient_through_earlier_views_and_views_of_non_leaves(op, args):
    def body(mod, a, op, args):
        y = (a * 2).unsqueeze(0)
        before = y.transpose(1, 2)
        row = y[0]  # a view of y
        getattr(row, op)(*args)
        w = mod.tensor(np.arange(1.0, 7.0))
        ((before.reshape(-1) * w).sum() + (row.reshape(-1) * w ** 2).sum() + (y.reshape(-1) * w).sum()).backward()
    np.testing.assert_allclose(grads(nabla, op, args, body), grads(torch, op, args, body))


def test_user_example_t_then_sum():
    def body(mod, a, op, args):
        y = a * 2
        y.t_()
        y.sum().backward()
    np.testing.assert_array_equal(grads(nabla, "t_", (), body), grads(torch, "t_", (), body))


@pytest.mark.parametrize("op,args", OPS)
def test_leaf_that_requires_grad_is_refused(op, args):
    for mod in (torch, nabla):
        a = mod.ones(2, 3, requires_grad=True)
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place "
                                               "operation"):
            getattr(a, op)(*args)
        assert tuple(a.shape) == (2, 3) and a._version == 0
        with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad is being used in an "
                                               "in-place operation"):
            getattr(a[...], op)(*args)


def test_under_no_grad_a_leaf_stays_a_leaf_that_requires_grad():
    out = []
    for mod in (torch, nabla):
        a = mod.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
        with mod.no_grad():
            a.t_()
        assert a.is_leaf and a.requires_grad and tuple(a.shape) == (3, 2) and a._version == 1
        (a * mod.tensor(np.arange(6.0)).reshape(3, 2)).sum().backward()
        out.append(a.grad.numpy())
    np.testing.assert_array_equal(out[0], out[1])


def test_leaf_without_grad_stays_a_leaf():
    for mod in (torch, nabla):
        x = mod.ones(2, 3)
        x.t_()
        assert x.is_leaf and not x.requires_grad and x.grad_fn is None


# ---- register_post_accumulate_grad_hook ----

def mlp_params(mod):
    rng = np.random.default_rng(3)
    return [mod.tensor(rng.standard_normal(s) / 2, requires_grad=True) for s in ((5, 4), (5,), (2, 5), (2,))]


def test_optimizer_in_backward_matches_torch_step_by_step():
    lr = 0.1
    rng = np.random.default_rng(4)
    data = [(rng.standard_normal((8, 4)), rng.standard_normal((8, 2))) for _ in range(5)]
    runs = {}
    for mod in (torch, nabla):
        params = mlp_params(mod)

        def step(p):
            p.add_(p.grad, alpha=-lr)
            p.grad = None

        for p in params:
            p.register_post_accumulate_grad_hook(step)
        history = []
        for x, y in data:
            w1, b1, w2, b2 = params
            h = mod.tanh(mod.tensor(x) @ w1.T + b1)
            loss = ((h @ w2.T + b2 - mod.tensor(y)) ** 2).mean()
            loss.backward()
            assert all(p.grad is None for p in params)
            history.append([p.detach().numpy().copy() for p in params])
        runs[mod] = history
    for got, want in zip(runs[nabla], runs[torch]):
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


def test_hook_sees_the_accumulated_grad_of_a_leaf_used_twice():
    seen = {}
    for mod in (torch, nabla):
        x = mod.tensor([0.5, -1.0, 2.0], requires_grad=True)
        calls = []
        x.register_post_accumulate_grad_hook(lambda p, x=x, calls=calls: calls.append((p is x, p.grad.numpy().copy())))
        (x * x + x.sin()).sum().backward()   # two uses: one call, after both gradients were summed
        (x * 3).sum().backward()             # accumulates into the existing .grad
        seen[mod] = calls
    assert len(seen[nabla]) == len(seen[torch]) == 2
    for (same_n, gn), (same_t, gt) in zip(seen[nabla], seen[torch]):
        assert same_n and same_t
        np.testing.assert_allclose(gn, gt)


def test_hook_order_removal_and_autograd_grad():
    for mod in (torch, nabla):
        x = mod.ones(3, requires_grad=True)
        order = []
        x.register_hook(lambda g: order.append("pre"))
        h1 = x.register_post_accumulate_grad_hook(lambda p: order.append("post1"))
        x.register_post_accumulate_grad_hook(lambda p: order.append("post2"))
        x.sum().backward()
        assert order == ["pre", "post1", "post2"]
        h1.remove()
        order.clear()
        x.sum().backward()
        assert order == ["pre", "post2"]
        order.clear()
        mod.autograd.grad(x.sum(), x)  # accumulates nothing: no post hook
        assert "post2" not in order


def test_hook_registration_errors_and_return_values():
    for mod in (torch, nabla):
        a = mod.ones(3, requires_grad=True)
        with pytest.raises(RuntimeError, match="post accumulate grad hooks cannot be registered on non-leaf tensors"):
            (a * 2).register_post_accumulate_grad_hook(lambda p: None)
        with pytest.raises(RuntimeError, match="cannot register a hook on a tensor that doesn't require gradient"):
            mod.ones(3).register_post_accumulate_grad_hook(lambda p: None)
        h = a.register_post_accumulate_grad_hook(lambda p: 5)
        with pytest.raises(TypeError, match="expected Variable, but hook returned 'int'"):
            a.sum().backward()
        h.remove()
        h = a.register_post_accumulate_grad_hook(lambda p: p * 1)
        with pytest.raises(RuntimeError, match="Tensor post accumulate grad hooks should return None"):
            a.sum().backward()
        h.remove()
        a.grad = None
        a.register_post_accumulate_grad_hook(lambda p: p.add_(p.grad, alpha=-0.5))  # returns p itself: fine
        a.sum().backward()
        assert a.tolist() == [0.5, 0.5, 0.5]


def test_hook_dies_with_its_tensor():
    import gc
    import weakref
    x = nabla.ones(3, requires_grad=True)
    hook = type("Hook", (), {"__call__": lambda self, p: None})()
    x.register_post_accumulate_grad_hook(hook)
    ref = weakref.ref(hook)
    del hook, x
    gc.collect()
    assert ref() is None


def test_a_hook_may_remove_itself():
    for mod in (torch, nabla):
        x = mod.ones(3, requires_grad=True)
        calls = []
        handles = []

        def once(p):
            calls.append(1)
            handles[0].remove()

        handles.append(x.register_post_accumulate_grad_hook(once))
        x.register_post_accumulate_grad_hook(lambda p: calls.append(2))
        x.sum().backward()
        x.sum().backward()
        assert calls == [1, 2, 2]
