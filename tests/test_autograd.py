"""The autograd core: engine semantics, grad modes, hooks, versions, custom
functions, errors, threads and memory. Formulas of individual op families are
checked in the test_autograd_<family>.py files."""
import gc
import threading

import numpy as np
import pytest

import nabla
from nabla.autograd import Function, gradcheck, gradgradcheck, once_differentiable

F64 = nabla.float64


def leaf(*shape, seed=0, dtype=F64, positive=False):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if positive:
        a = np.abs(a) + 0.5
    return nabla.tensor(a, dtype=dtype, requires_grad=True)


def live_tensors() -> int:
    gc.collect()
    return nabla.memory.stats()["live_tensors"]


# ---- leaves, requires_grad, grad_fn ----

def test_leaf_flags_and_grad_fn_names():
    x = leaf(3)
    assert x.requires_grad and x.is_leaf and x.grad_fn is None and x.grad is None
    y = x * 2
    assert y.requires_grad and not y.is_leaf and y.grad_fn.name() == "MulBackward0"
    (fn, nr), (other, _) = y.grad_fn.next_functions
    assert fn.name() == "AccumulateGrad" and nr == 0 and other is None  # the scalar needs no gradient
    assert repr(y).endswith("grad_fn=<MulBackward0>)")
    assert repr(x).endswith("requires_grad=True)")


def test_integer_tensors_cannot_require_grad():
    with pytest.raises(RuntimeError, match="floating point"):
        nabla.arange(3).requires_grad_()


def test_requires_grad_cannot_be_turned_off_on_a_non_leaf():
    y = leaf(2) * 2
    with pytest.raises(RuntimeError, match="leaf variables"):
        y.requires_grad_(False)


def test_results_of_integer_ops_do_not_require_grad():
    x = leaf(4)
    assert not (x > 0).requires_grad
    assert not x.argmax().requires_grad


# ---- backward ----

def test_backward_accumulates_into_leaves():
    x = leaf(3)
    (x * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.detach().numpy())
    (x * 3).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.detach().numpy() + 3)


def test_gradient_of_a_broadcast_input_is_reduced_to_its_shape():
    a, b = leaf(2, 3), leaf(3, seed=1)
    (a * b).sum().backward()
    np.testing.assert_allclose(b.grad.numpy(), a.detach().numpy().sum(0))
    assert a.grad.shape == (2, 3) and b.grad.shape == (3,)


def test_shared_subexpression_gets_the_sum_of_its_gradients():
    x = leaf(3)
    y = x.exp()
    (y * y + y).sum().backward()
    e = np.exp(x.detach().numpy())
    np.testing.assert_allclose(x.grad.numpy(), 2 * e * e + e)


def test_backward_with_gradient_argument_and_dtype_cast():
    x = leaf(2, 2, dtype=nabla.float32)
    y = x * 2
    y.backward(nabla.ones(2, 2, dtype=F64))
    assert x.grad.dtype == nabla.float32
    np.testing.assert_allclose(x.grad.numpy(), 2.0)


def test_backward_on_a_non_scalar_needs_a_gradient():
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        (leaf(3) * 2).backward()


def test_gradient_of_wrong_shape_or_dtype_is_refused():
    y = leaf(3) * 2
    with pytest.raises(RuntimeError, match=r"Mismatch in shape: grad_output\[0\] has a shape of \[2\]"):
        y.backward(nabla.ones(2, dtype=F64))
    with pytest.raises(RuntimeError, match="floating point"):
        y.backward(nabla.ones(3, dtype=nabla.int64))


def test_backward_through_a_tensor_that_does_not_require_grad():
    with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
        nabla.ones(2).sum().backward()


def test_second_backward_needs_retain_graph():
    x = leaf(3)
    y = (x.exp() * 2).sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), 4 * np.exp(x.detach().numpy()))
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()


def test_grad_leaves_dot_grad_untouched_and_reports_unused_inputs():
    x, z = leaf(3), leaf(3, seed=1)
    y = (x * x).sum()
    (gx,) = nabla.autograd.grad(y, x, retain_graph=True)
    np.testing.assert_allclose(gx.numpy(), 2 * x.detach().numpy())
    assert x.grad is None
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        nabla.autograd.grad(y, [x, z], retain_graph=True)
    gx, gz = nabla.autograd.grad(y, [x, z], allow_unused=True, retain_graph=True)
    assert gz is None
    gx, gz = nabla.autograd.grad(y, [x, z], materialize_grads=True)
    np.testing.assert_allclose(gz.numpy(), 0.0)


def test_grad_with_respect_to_a_non_leaf():
    x = leaf(3)
    h = x * 3
    y = (h * h).sum()
    (gh,) = nabla.autograd.grad(y, h)
    np.testing.assert_allclose(gh.numpy(), 2 * h.detach().numpy())


def test_backward_inputs_restricts_accumulation():
    x, z = leaf(2), leaf(2, seed=1)
    (x * z).sum().backward(inputs=[x])
    np.testing.assert_allclose(x.grad.numpy(), z.detach().numpy())
    assert z.grad is None


# ---- higher order ----

def test_second_derivative_through_create_graph():
    x = leaf(4)
    y = (x ** 3).sum()
    (g,) = nabla.autograd.grad(y, x, create_graph=True)
    assert g.requires_grad
    (gg,) = nabla.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(gg.numpy(), 6 * x.detach().numpy(), rtol=1e-12)


def test_third_derivative_of_tanh():
    x = leaf(3)
    y = x.tanh()
    (g1,) = nabla.autograd.grad(y.sum(), x, create_graph=True)
    (g2,) = nabla.autograd.grad(g1.sum(), x, create_graph=True)
    (g3,) = nabla.autograd.grad(g2.sum(), x)
    t = np.tanh(x.detach().numpy())
    np.testing.assert_allclose(g3.numpy(), -2 * (1 - t * t) * (1 - 3 * t * t), rtol=1e-10)


def test_backward_create_graph_puts_a_graph_in_dot_grad():
    x = leaf(2)
    (x * x).sum().backward(create_graph=True)
    assert x.grad.requires_grad
    x.grad.sum().backward()  # d/dx sum(2x) = 2, accumulated onto the first gradient
    np.testing.assert_allclose(x.grad.detach().numpy(), 2 * x.detach().numpy() + 2)


# ---- grad modes ----

def test_no_grad_enable_grad_and_set_grad_enabled():
    x = leaf(2)
    with nabla.no_grad():
        assert not nabla.is_grad_enabled()
        assert not (x * 2).requires_grad
        with nabla.enable_grad():
            assert (x * 2).requires_grad
    assert nabla.is_grad_enabled()
    nabla.set_grad_enabled(False)
    assert not (x * 2).requires_grad
    nabla.set_grad_enabled(True)
    with nabla.set_grad_enabled(False):
        assert not nabla.is_grad_enabled()
    assert nabla.is_grad_enabled()


def test_no_grad_as_decorator_and_inference_mode():
    x = leaf(2)

    @nabla.no_grad()
    def f(t):
        return t * 2

    assert not f(x).requires_grad and nabla.is_grad_enabled()
    with nabla.inference_mode():
        assert nabla.is_inference_mode_enabled() and not (x * 2).requires_grad
    assert not nabla.is_inference_mode_enabled()


def test_grad_mode_is_per_thread():
    seen = []
    with nabla.no_grad():
        t = threading.Thread(target=lambda: seen.append(nabla.is_grad_enabled()))
        t.start()
        t.join()
    assert seen == [True]


def test_detach_shares_data_and_version():
    x = leaf(3)
    d = x.detach()
    assert not d.requires_grad and d.data_ptr() == x.data_ptr()
    d.add_(1)
    assert x._version == d._version == 1


# ---- in-place and versions ----

def test_in_place_on_a_leaf_is_refused_outside_no_grad():
    x = leaf(3)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad is being used in an in-place"):
        x.mul_(2)
    with nabla.no_grad():
        x.mul_(2)
    assert x.is_leaf


def test_modified_saved_tensor_fails_backward_naming_op_and_versions():
    x = leaf(3)
    y = x.exp()
    y.add_(1)
    with pytest.raises(RuntimeError, match=r"output 0 of ExpBackward0, is at version 1; expected version 0"):
        y.sum().backward()


def test_in_place_ops_extend_the_graph():
    x = leaf(3)
    y = x * 2
    y.mul_(y)  # the old y is saved (cloned) for the gradient
    y.exp_()
    y.sum().backward()
    v = 2 * x.detach().numpy()
    np.testing.assert_allclose(x.grad.numpy(), np.exp(v * v) * 2 * v * 2)


def test_out_argument_with_grad_is_refused():
    x = leaf(2)
    with pytest.raises(RuntimeError, match="out=... arguments don't support automatic differentiation"):
        nabla.exp(x, out=nabla.empty(2, dtype=F64))


torch = None


def _torch():
    return pytest.importorskip("torch")


def _both(fn, *arrays):
    """fn(lib, *leaves) run in nabla and PyTorch; returns the leaves' gradients of both."""
    t = _torch()
    out = []
    for lib in (nabla, t):
        leaves = [lib.tensor(a, dtype=lib.float64, requires_grad=True) for a in arrays]
        fn(lib, *leaves).sum().backward()
        out.append([np.zeros(a.shape) if x.grad is None else x.grad.numpy() for x, a in zip(leaves, arrays)])
    return out


@pytest.mark.parametrize("case", ["setitem_row", "mul_view", "two_views", "base_then_view", "zero_region",
                                  "view_of_view"])
def test_in_place_through_views_matches_pytorch(case):
    rng = np.random.default_rng(7)
    a, w = rng.standard_normal((3, 4)), rng.standard_normal(4)

    def fn(lib, x, v):
        y = x * 2
        if case == "setitem_row":
            y[1] = v * 3
        elif case == "mul_view":
            y[:, 1:3].mul_(y[:, 0:2].detach() + 1)
            y[0].mul_(v)
        elif case == "two_views":
            r0, c1 = y[0], y[:, 1]
            r0.add_(v)
            c1.mul_(3)
            return (y * y) + r0.sum() + c1.sum()
        elif case == "base_then_view":
            r = y[2]
            y.exp_()
            return r * v
        elif case == "zero_region":
            y[:, 2].zero_()
        elif case == "view_of_view":
            y.T[1:3][0].mul_(v[:3])
        return y * y

    (ga, gw), (ta, tw) = _both(fn, a, w)
    np.testing.assert_allclose(ga, ta, rtol=1e-12)
    np.testing.assert_allclose(gw, tw, rtol=1e-12)


def test_building_a_tensor_from_slices_of_graph_values():
    w = leaf(3)
    out = nabla.zeros(2, 3, dtype=F64)
    out[0] = w * 2
    out[1] = w.exp()
    assert out.requires_grad and out.grad_fn.name() == "CopySlices"
    out.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), 2 + np.exp(w.detach().numpy()))


def test_in_place_through_a_view_of_a_leaf_is_refused():
    x = leaf(2, 2)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        x[0].mul_(2)


# ---- hooks and retain_grad ----

def test_hooks_replace_the_gradient_and_can_be_removed():
    x = leaf(3)
    h = x.register_hook(lambda g: g * 10)
    (x * 1).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 10.0)
    h.remove()
    x.grad = None
    (x * 1).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 1.0)


def test_retain_grad_sees_the_hooked_gradient():
    x = leaf(2)
    y = x * 2
    y.retain_grad()
    y.register_hook(lambda g: g * 3)
    (y * y).sum().backward()
    np.testing.assert_allclose(y.grad.numpy(), 3 * 2 * y.detach().numpy())
    np.testing.assert_allclose(x.grad.numpy(), 3 * 2 * y.detach().numpy() * 2)


def test_grad_of_non_leaf_without_retain_warns():
    y = leaf(2) * 2
    y.sum().backward()
    with pytest.warns(UserWarning, match="not a leaf"):
        assert y.grad is None


def test_exception_in_a_hook_surfaces_with_its_traceback():
    x = leaf(2)

    def bad(g):
        raise KeyError("from the hook")

    x.register_hook(bad)
    with pytest.raises(KeyError, match="from the hook") as info:
        (x * 2).sum().backward()
    assert any(entry.name == "bad" for entry in info.traceback)


def test_assigning_grad_checks_shape_and_type():
    x = leaf(3)
    with pytest.raises(RuntimeError, match="different size"):
        x.grad = nabla.zeros(2, dtype=F64)
    with pytest.raises(RuntimeError, match="different type"):
        x.grad = nabla.zeros(3)
    with pytest.raises(TypeError):
        x.grad = 3
    x.grad = nabla.ones(3, dtype=F64)
    del x.grad
    assert x.grad is None


# ---- custom functions ----

class Cube(Function):
    @staticmethod
    def forward(ctx, x, scale):
        ctx.save_for_backward(x)
        ctx.scale = scale
        return x * x * x * scale

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 3 * x * x * ctx.scale * g, None


def test_custom_function_gradient_and_needs_input_grad():
    x = leaf(4)
    y = Cube.apply(x, 2.0)
    assert y.grad_fn.name() == "CubeBackward"
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 6 * x.detach().numpy() ** 2)
    assert gradcheck(lambda t: Cube.apply(t, 0.5), (leaf(3, seed=2),))
    assert gradgradcheck(lambda t: Cube.apply(t, 0.5), (leaf(3, seed=3),))


def test_custom_function_ctx_flags():
    seen = {}

    class Split(Function):
        @staticmethod
        def forward(ctx, a, b):
            seen["needs"] = ctx.needs_input_grad
            idx = (a > 0).to(nabla.int64)
            ctx.mark_non_differentiable(idx)
            return a + b, idx

        @staticmethod
        @once_differentiable
        def backward(ctx, g, gidx):
            return g, g

    a, b = leaf(3), nabla.ones(3, dtype=F64)
    s, idx = Split.apply(a, b)
    assert seen["needs"] == (True, False) and not idx.requires_grad
    s.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), 1.0)


def test_custom_function_errors_surface():
    class Bad(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            raise ValueError("boom in backward")

    class WrongCount(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g, g

    with pytest.raises(ValueError, match="boom in backward"):
        Bad.apply(leaf(2)).sum().backward()
    with pytest.raises(RuntimeError, match="incorrect number of gradients"):
        WrongCount.apply(leaf(2)).sum().backward()


def test_custom_function_detects_modified_saved_tensor():
    x = leaf(3)
    w = x * 1
    y = Cube.apply(w, 1.0)
    with nabla.no_grad():
        w.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


# ---- anomaly mode ----

def test_anomaly_mode_names_the_node_that_made_nan():
    x = nabla.tensor([0.0, 1.0], dtype=F64, requires_grad=True)
    with nabla.autograd.detect_anomaly():
        y = x.sqrt() * 0  # d sqrt at 0 is inf; times 0 gives nan
        with pytest.raises(RuntimeError, match="Function 'SqrtBackward0' returned nan values"):
            y.sum().backward()
    assert not nabla.autograd.is_anomaly_enabled()


# ---- gradcheck of the elementwise and view formulas ----

UNARY = ["exp", "exp2", "expm1", "sin", "cos", "tan", "atan", "sinh", "cosh", "tanh", "sigmoid", "erf", "erfc",
         "neg", "abs", "square", "silu", "reciprocal"]
POSITIVE = ["log", "log2", "log10", "log1p", "sqrt", "rsqrt"]
UNIT = ["asin", "acos"]


@pytest.mark.parametrize("name", UNARY + POSITIVE + UNIT)
def test_unary_gradcheck_and_gradgradcheck(name):
    x = leaf(2, 3, positive=name in POSITIVE)
    if name in UNIT:
        x = nabla.tensor(np.linspace(-0.8, 0.8, 6).reshape(2, 3), dtype=F64, requires_grad=True)
    fn = getattr(nabla, name)
    assert gradcheck(lambda t: fn(t.T), (x,))  # non-contiguous input
    assert gradgradcheck(fn, (x,))


@pytest.mark.parametrize("name,kwargs", [("relu", {}), ("gelu", {}), ("gelu", {"approximate": "tanh"}),
                                         ("leaky_relu", {"negative_slope": 0.1}), ("elu", {}), ("softplus", {}),
                                         ("silu", {})])
def test_activation_gradcheck(name, kwargs):
    x = nabla.tensor([[-1.5, -0.3, 0.2], [0.7, 1.1, -2.2]], dtype=F64, requires_grad=True)
    fn = getattr(nabla.nn.functional, name)
    assert gradcheck(lambda t: fn(t, **kwargs), (x,))
    assert gradgradcheck(lambda t: fn(t, **kwargs), (x,))


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "pow", "maximum", "minimum", "atan2", "remainder",
                                "fmod"])
def test_binary_gradcheck_with_broadcasting(op):
    a = leaf(2, 3, positive=True)
    b = leaf(3, seed=5, positive=True)
    fn = getattr(nabla, op)
    assert gradcheck(fn, (a, b))
    assert gradcheck(lambda x, y: fn(x.T, y), (a, b.reshape(3, 1).detach().requires_grad_()))  # strided
    if op not in ("remainder", "fmod", "maximum", "minimum"):
        assert gradgradcheck(fn, (a, b))


def test_binary_with_python_scalars_and_alpha():
    x = leaf(3, positive=True)
    assert gradcheck(lambda t: nabla.add(t, t * t, alpha=2.5), (x,))
    assert gradcheck(lambda t: 2.0 ** t + t ** 3 - 1 / t, (x,))


def test_clamp_where_nan_to_num():
    x = nabla.tensor([-2.0, -0.5, 0.3, 1.7], dtype=F64, requires_grad=True)
    assert gradcheck(lambda t: t.clamp(-1, 1), (x,))
    y = leaf(4, seed=3)
    assert gradcheck(lambda a, b: nabla.where(a > 0, a, b), (x, y))
    assert gradcheck(lambda a: nabla.nan_to_num(a), (x,))


def test_views_gradcheck():
    x = leaf(2, 3, 4)
    assert gradcheck(lambda t: t.permute(2, 0, 1).reshape(4, 6), (x,))
    assert gradcheck(lambda t: t.transpose(0, 2)[1:3, ::2, 0], (x,))
    assert gradcheck(lambda t: t.unsqueeze(1).expand(2, 5, 3, 4), (x,))
    assert gradcheck(lambda t: t.narrow(2, 1, 2).squeeze().flatten(), (x,))
    assert gradcheck(lambda t: t.select(1, 2).contiguous().clone(), (x,))
    assert gradcheck(lambda t: t.as_strided((3, 2), (1, 3)), (leaf(6),))
    assert gradgradcheck(lambda t: t.transpose(0, 2)[1:3, ::2, 0], (x,))


def test_to_dtype_and_copy_():
    x = leaf(3)
    y = x.float() * 2
    y.sum().backward()
    assert x.grad.dtype == F64
    np.testing.assert_allclose(x.grad.numpy(), 2.0)
    z = nabla.zeros(3, dtype=F64)
    w = leaf(3, seed=4)
    z.copy_(w * 3)
    z.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), 3.0)


def test_sum_and_mean_gradcheck():
    x = leaf(2, 3, 4)
    assert gradcheck(lambda t: t.sum(dim=(0, 2)), (x,))
    assert gradcheck(lambda t: t.mean(dim=1, keepdim=True), (x,))
    assert gradgradcheck(lambda t: (t * t).mean(), (x,))


# ---- threads and memory ----

def test_four_threads_each_running_their_own_backward():
    w = leaf(8)
    errors = []

    def work(seed):
        try:
            x = leaf(8, seed=seed)
            for _ in range(50):
                ((x * w).tanh() * x).sum().backward()
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    expected = sum(50 * leaf(8, seed=s).detach().numpy() ** 2 * (1 - np.tanh(
        leaf(8, seed=s).detach().numpy() * w.detach().numpy()) ** 2) for s in range(4))
    np.testing.assert_allclose(w.grad.numpy(), expected, rtol=1e-9)


def test_memory_returns_to_baseline_after_many_training_steps():
    w = leaf(16, 8)
    x = nabla.randn(4, 16, dtype=F64)

    def step():
        loss = (x.sum(1, keepdim=True) * w.sum(0)).tanh().mean()
        loss.backward()
        with nabla.no_grad():
            w.sub_(w.grad * 0.01)
        w.grad = None

    step()
    base = live_tensors()
    for _ in range(1000):
        step()
    assert live_tensors() == base


def test_dropping_the_output_frees_the_graph():
    x = leaf(64)
    base = live_tensors()
    y = x.exp().sin().exp()  # saved tensors: alive while y is
    assert live_tensors() > base
    del y
    assert live_tensors() == base


def test_a_long_chain_releases_without_recursion():
    x = leaf(2)
    y = x
    for _ in range(100000):
        y = y * 1.0
    del y  # a recursive release would overflow the C stack
    gc.collect()


def test_relu_gradient_passes_where_the_result_is_nan_fused_or_recorded():
    """ReluBackward0 is PyTorch's threshold_backward(grad, result, 0): zero where result <= 0, so a NaN result
    passes the gradient; the fused kernel (plain backward) and the recorded ops (create_graph) agree."""
    for create_graph in (False, True):
        x = nabla.tensor([float("nan"), -1.0, 0.0, 2.0, -0.0], requires_grad=True)
        (g,) = nabla.autograd.grad(nabla.relu(x), x, nabla.tensor([1.0, 2.0, 3.0, 4.0, 5.0]),
                                   create_graph=create_graph)
        assert g.tolist() == [1.0, 0.0, 0.0, 4.0, 0.0], create_graph
    x = nabla.tensor([[0.5, -2.0], [3.0, -1.0]], dtype=nabla.float64, requires_grad=True)
    (g,) = nabla.autograd.grad(nabla.relu(x).square().sum(), x, create_graph=True)
    g.sum().backward()
    assert x.grad.tolist() == [[2.0, 0.0], [2.0, 0.0]]
