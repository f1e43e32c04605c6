"""Saved-tensor hooks (torch.autograd.graph.saved_tensors_hooks, save_on_cpu,
disable_saved_tensors_hooks) against PyTorch: which tensors are packed, the
gradients, what happens on in-place writes, nesting, errors and memory."""
import gc

import numpy as np
import pytest

import nabla
import nabla.autograd.graph as ngraph

torch = pytest.importorskip("torch")


def _pair(lib, values):
    return lib.tensor(np.asarray(values, dtype=np.float64), requires_grad=True)


def _counting_hooks():
    """(calls, pack, unpack): hooks that keep the tensor and count their calls."""
    calls = {"pack": 0, "unpack": 0}

    def pack(t):
        calls["pack"] += 1
        return t

    def unpack(t):
        calls["unpack"] += 1
        return t

    return calls, pack, unpack


def _run(lib, build, hooks=True):
    """Runs build(lib, x, w) -> loss under counting hooks; returns grads and the counts."""
    graph = lib.autograd.graph
    x = _pair(lib, [0.5, -1.0, 2.0, 0.25])
    w = _pair(lib, [1.5, 0.25, -0.5, 3.0])
    calls, pack, unpack = _counting_hooks()
    if hooks:
        with graph.saved_tensors_hooks(pack, unpack):
            loss = build(lib, x, w)
    else:
        loss = build(lib, x, w)
    loss.backward()
    return x.grad.detach().numpy(), w.grad.detach().numpy(), calls


GRAPHS = {
    "mul_exp": lambda lib, x, w: (x * w).exp().sum(),
    "sin_tanh": lambda lib, x, w: (x.sin() + w.tanh()).sum(),
    "matmul": lambda lib, x, w: (x.reshape(2, 2) @ w.reshape(2, 2)).pow(2).sum(),
    "softmax": lambda lib, x, w: (lib.softmax(x * w, 0) * w).sum(),
    "div_log": lambda lib, x, w: (x / (w * w + 1)).abs().log1p().sum(),
}


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_hooks_see_saved_tensors_and_gradients_match(name):
    build = GRAPHS[name]
    gx, gw, calls = _run(nabla, build)
    tx, tw, tcalls = _run(torch, build)
    np.testing.assert_allclose(gx, tx, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(gw, tw, rtol=1e-12, atol=1e-12)
    assert calls["pack"] > 0
    assert calls["unpack"] == calls["pack"]
    # Which tensors a formula saves is an implementation choice; the count stays close to PyTorch's.
    assert abs(calls["pack"] - tcalls["pack"]) <= 2, (calls, tcalls)


def test_a_packed_copy_is_used_in_backward_and_skips_the_version_check():
    def build(lib):
        x = _pair(lib, [0.5, -1.0, 2.0])
        w = _pair(lib, [1.5, 0.25, -0.5])
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t.clone(), lambda t: t):
            y = (x * w).sum()
        with lib.no_grad():
            w.mul_(2)  # w was saved as a copy: backward uses the old values
        y.backward()
        return x.grad.numpy()

    np.testing.assert_array_equal(build(nabla), build(torch))
    np.testing.assert_array_equal(build(nabla), [1.5, 0.25, -0.5])


def test_unpack_may_return_a_different_tensor():
    def build(lib):
        x = _pair(lib, [1.0, 2.0, 3.0])
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t * 0 + 10):
            y = x.exp().sum()  # exp saves its result; backward gets 10 everywhere
        y.backward()
        return x.grad.numpy()

    np.testing.assert_array_equal(build(nabla), build(torch))


def test_nested_hooks_innermost_applies():
    seen = []
    x = _pair(nabla, [1.0, 2.0])
    with ngraph.saved_tensors_hooks(lambda t: seen.append("outer") or t, lambda t: t):
        with ngraph.saved_tensors_hooks(lambda t: seen.append("inner") or t, lambda t: t):
            a = x.exp()
        b = a.sin()
    assert seen == ["inner", "outer"]
    b.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.cos(np.exp([1.0, 2.0])) * np.exp([1.0, 2.0]), rtol=1e-12)


def test_save_on_cpu_gives_the_same_gradients():
    def build(lib):
        x = _pair(lib, [0.5, -1.0, 2.0, 0.25])
        with lib.autograd.graph.save_on_cpu():
            y = (x.tanh() * x).exp().sum()
        y.backward()
        return x.grad.numpy()

    np.testing.assert_allclose(build(nabla), build(torch), rtol=1e-12)


def test_custom_function_saves_go_through_the_hooks():
    counts, pack, unpack = _counting_hooks()

    def run(lib):
        class Cube(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x ** 3

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return 3 * x * x * g

        x = _pair(lib, [1.0, -2.0])
        with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = Cube.apply(x).sum()
        y.backward()
        return x.grad.numpy()

    np.testing.assert_allclose(run(nabla), [3.0, 12.0])
    assert counts == {"pack": 1, "unpack": 1}
    counts.update(pack=0, unpack=0)
    run(torch)
    assert counts == {"pack": 1, "unpack": 1}


def test_errors_match_pytorch():
    for lib in (nabla, torch):
        graph = lib.autograd.graph
        x = _pair(lib, [1.0, 2.0])

        def bad_pack(t):
            raise ValueError("pack refused")

        with pytest.raises(ValueError, match="pack refused"):
            with graph.saved_tensors_hooks(bad_pack, lambda t: t):
                x.exp()

        with graph.saved_tensors_hooks(lambda t: t, lambda t: 3):
            y = x.exp().sum()
        with pytest.raises(TypeError, match="unpack_hook expected to be a Tensor"):
            y.backward()

        with graph.disable_saved_tensors_hooks("hooks are off here"):
            with pytest.raises(RuntimeError, match="hooks are off here"):
                with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                    pass
        with graph.saved_tensors_hooks(lambda t: t, lambda t: t):  # allowed again after the context
            pass


def _live():
    gc.collect()
    s = nabla.memory.stats()
    return s["live_tensors"], s["live_storages"], s["allocated_bytes"]


def test_packed_values_and_hooks_are_freed_with_the_graph():
    x = _pair(nabla, [1.0, 2.0, 3.0])

    def step(backward):
        with ngraph.saved_tensors_hooks(lambda t: t.clone(), lambda t: t):
            pair = ngraph._current_hooks()
            y = (x * x).exp().sum()
        assert ngraph._current_hooks() is None
        assert len(pair.values) >= 2
        if backward:
            y.backward()
            assert not pair.values  # backward without retain_graph frees them
        del y
        assert not pair.values  # ... and so does dropping the graph

    step(True)
    before = _live()
    for i in range(50):
        step(i % 2 == 0)
    step(False)
    assert _live() == before
