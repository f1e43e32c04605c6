"""nn.Module hooks against torch's: full backward hooks and their pre-hooks (values, replacement,
non-tensor and non-requiring inputs), the global hooks of nn.modules.module (order, always_call,
registration hooks) and the errors torch raises."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import nabla as nb

torch = pytest.importorskip("torch")


def arr(t):
    """A copy: torch accumulates .grad in place into the very buffer a hook was shown."""
    return None if t is None else t.detach().numpy().copy()


def same(a, b, tol=1e-5):
    if a is None or b is None:
        return a is None and b is None
    return np.allclose(arr(a), arr(b), rtol=tol, atol=tol)


class Scale(object):  # a module with a tensor, a non-tensor and a second tensor input, in both libraries
    @staticmethod
    def make(m):
        class ScaleMul(m.nn.Module):
            def forward(self, x, k, y):
                return x * k + y.sin(), (x * y).sum()
        return ScaleMul()


def run_full_hooks(m, x_np, y_np, y_requires=True, replace=False):
    mod = Scale.make(m)
    seen = []

    def pre(module, grad_output):
        seen.append(("pre", [arr(g) for g in grad_output]))
        return (grad_output[0] * 2, grad_output[1])

    def hook(module, grad_input, grad_output):
        seen.append(("full", [arr(g) for g in grad_input], [arr(g) for g in grad_output]))
        if replace:
            return tuple(None if g is None else g + 1 for g in grad_input)
        return None

    mod.register_full_backward_pre_hook(pre)
    mod.register_full_backward_hook(hook)
    x = m.tensor(x_np, requires_grad=True)
    y = m.tensor(y_np, requires_grad=y_requires)
    a, b = mod(x, 3.0, y)
    (a.sum() + 2 * b).backward()
    return seen, arr(x.grad), arr(y.grad)


@pytest.mark.parametrize("y_requires", [True, False])
@pytest.mark.parametrize("replace", [False, True])
def test_full_backward_hooks_match_torch(y_requires, replace):
    rng = np.random.default_rng(0)
    x_np, y_np = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    got = run_full_hooks(nb, x_np, y_np, y_requires, replace)
    want = run_full_hooks(torch, x_np, y_np, y_requires, replace)
    (gkind, gpre), (tkind, tpre) = got[0][0], want[0][0]
    assert gkind == tkind == "pre" and all(np.allclose(a, b) for a, b in zip(gpre, tpre))
    gfull, tfull = got[0][1], want[0][1]
    assert len(gfull[1]) == len(tfull[1]) == 3  # x, the float (None), y
    for a, b in zip(gfull[1] + gfull[2], tfull[1] + tfull[2]):
        assert (a is None and b is None) or np.allclose(a, b)
    assert np.allclose(got[1], want[1])
    assert (got[2] is None) == (want[2] is None)
    if got[2] is not None:
        assert np.allclose(got[2], want[2])


def test_full_backward_hook_on_linear_and_removal():
    def grads(m):
        m.manual_seed(0)
        lin = m.nn.Linear(5, 3)
        lin.weight.data.copy_(m.tensor(np.arange(15.0).reshape(3, 5) / 10, dtype=m.float32))
        lin.bias.data.copy_(m.tensor([0.5, -1.0, 2.0], dtype=m.float32))
        seen = []
        h = lin.register_full_backward_hook(lambda mod, gi, go: seen.append((arr(gi[0]), arr(go[0]))))
        x = m.tensor(np.linspace(-1, 1, 10).reshape(2, 5), dtype=m.float32, requires_grad=True)
        (lin(x) ** 2).sum().backward()
        h.remove()
        lin(x).sum().backward()
        return seen

    got, want = grads(nb), grads(torch)
    assert len(got) == len(want) == 1
    assert np.allclose(got[0][0], want[0][0], atol=1e-6) and np.allclose(got[0][1], want[0][1], atol=1e-6)


def test_hook_without_any_input_requiring_grad_fires_from_the_outputs():
    lin = nb.nn.Linear(3, 2)
    seen = []
    lin.register_full_backward_hook(lambda mod, gi, go: seen.append((gi, go[0].shape)))
    with pytest.warns(UserWarning, match="no inputs require gradients"):
        lin(nb.randn(4, 3)).sum().backward()
    assert seen == [((None,), nb.Size([4, 2]))]
    lin.register_full_backward_hook(lambda mod, gi, go: (nb.ones(4, 3),))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match="should always return None"):
            lin(nb.randn(4, 3)).sum().backward()


def test_wrong_number_of_gradients_from_a_hook_raises():
    lin = nb.nn.Linear(3, 2)
    lin.register_full_backward_hook(lambda mod, gi, go: (gi[0], gi[0]))
    with pytest.raises(RuntimeError, match="invalid number of grad_input, got 2, but expected 1"):
        lin(nb.randn(4, 3, requires_grad=True)).sum().backward()
    lin = nb.nn.Linear(3, 2)
    lin.register_full_backward_pre_hook(lambda mod, go: (go[0], go[0]))
    with pytest.raises(RuntimeError, match="invalid number of grad_output, got 2, but expected 1"):
        lin(nb.randn(4, 3, requires_grad=True)).sum().backward()


def test_regular_and_full_backward_hooks_do_not_mix():
    for m in (nb, torch):
        lin = m.nn.Linear(2, 2)
        lin.register_full_backward_hook(lambda *a: None)
        with pytest.raises(RuntimeError, match="Cannot use both regular backward hooks and full backward hooks"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                lin.register_backward_hook(lambda *a: None)


def trace_global_hooks(m):
    mm = m.nn.modules.module
    log = []
    handles = [
        mm.register_module_forward_pre_hook(lambda mod, args: log.append(("gpre", type(mod).__name__))),
        mm.register_module_forward_hook(lambda mod, args, out: log.append(("gpost", type(mod).__name__))),
        mm.register_module_full_backward_hook(lambda mod, gi, go: log.append(("gback", type(mod).__name__))),
    ]
    try:
        net = m.nn.Sequential(m.nn.Linear(2, 3), m.nn.Tanh())
        net[0].register_forward_pre_hook(lambda mod, args: log.append(("pre", "Linear")))
        net[0].register_forward_hook(lambda mod, args, out: log.append(("post", "Linear")))
        net(m.ones(1, 2, requires_grad=True)).sum().backward()
    finally:
        for h in handles:
            h.remove()
    net(m.ones(1, 2)).sum()  # removed: nothing more is logged
    return log


def test_global_hooks_run_in_torchs_order():
    assert trace_global_hooks(nb) == trace_global_hooks(torch)


def test_global_always_call_hook_runs_when_forward_raises():
    def run(m):
        class Boom(m.nn.Module):
            def forward(self, x):
                raise KeyError("boom")
        log = []
        h = m.nn.modules.module.register_module_forward_hook(lambda mod, a, out: log.append(out), always_call=True)
        try:
            with pytest.raises(KeyError):
                Boom()(m.ones(1))
        finally:
            h.remove()
        return log

    assert run(nb) == run(torch) == [None]


def test_registration_hooks_can_replace_what_is_registered():
    def run(m):
        mm = m.nn.modules.module
        log = []
        hs = [mm.register_module_parameter_registration_hook(lambda mod, n, p: log.append(("param", n))),
              mm.register_module_buffer_registration_hook(
                  lambda mod, n, b: (log.append(("buffer", n)), b * 0 + 7)[1]),
              mm.register_module_module_registration_hook(lambda mod, n, sub: log.append(("module", n)))]
        try:
            net = m.nn.Module()
            net.lin = m.nn.Linear(1, 1)
            net.register_buffer("stat", m.ones(2))
            net.add_module("act", m.nn.ReLU())
        finally:
            for h in hs:
                h.remove()
        return log, net.stat.tolist()

    assert run(nb) == run(torch)
