"""set_default_device / get_default_device and `with nabla.device(...)` as PyTorch's: factories
without device= follow the default (per thread), explicit devices and *_like factories do not,
existing tensors stay where they are, and nn modules build their parameters there."""
from __future__ import annotations

import threading

import pytest

import nabla


@pytest.fixture(autouse=True)
def _reset():
    yield
    nabla.set_default_device(None)


def _made_without_device():
    return [nabla.zeros(2), nabla.ones(2, 3), nabla.empty(1), nabla.full((2,), 3.0), nabla.arange(4),
            nabla.linspace(0, 1, 5), nabla.eye(2), nabla.tensor([1.0, 2.0]), nabla.rand(2), nabla.randn(2),
            nabla.randint(0, 5, (3,)), nabla.randperm(4), nabla.nn.Linear(3, 2).weight]


def test_the_default_is_the_cpu():
    assert nabla.get_default_device() == nabla.device("cpu")
    assert all(t.device.type == "cpu" for t in _made_without_device())


def test_factories_follow_the_default_device(device):
    nabla.set_default_device(device)
    assert nabla.get_default_device().type == device
    if device == "cuda":
        assert nabla.get_default_device() == nabla.device("cuda", nabla.cuda.current_device())
    assert all(t.device.type == device for t in _made_without_device())
    assert nabla.zeros(2, device="cpu").device.type == "cpu"  # an explicit device wins
    x = nabla.zeros(2, device="cpu")
    assert nabla.zeros_like(x).device.type == "cpu"  # *_like follow their input
    nabla.set_default_device(None)
    assert nabla.zeros(1).device.type == "cpu"


def test_device_as_a_context_manager_nests_and_restores(device):
    with nabla.device(device):
        assert nabla.ones(1).device.type == device
        with nabla.device("cpu"):
            assert nabla.ones(1).device.type == "cpu"
        assert nabla.ones(1).device.type == device
    assert nabla.ones(1).device.type == "cpu"


def test_the_default_is_per_thread(device):
    nabla.set_default_device(device)
    seen = []
    t = threading.Thread(target=lambda: seen.append(nabla.zeros(1).device.type))
    t.start()
    t.join()
    assert seen == ["cpu"] and nabla.zeros(1).device.type == device


def test_bad_devices_raise_like_torch():
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda device type"):
        nabla.set_default_device("tpu")
    with pytest.raises(TypeError):
        nabla.set_default_device(1.5)
    assert nabla.get_default_device().type == "cpu"
