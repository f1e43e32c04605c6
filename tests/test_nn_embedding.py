"""nn.Embedding and F.embedding against PyTorch: padding_idx, max_norm (rows
renormalised in place), norm_type, scale_grad_by_freq, from_pretrained;
outputs, weight gradients, repr and error messages."""
from __future__ import annotations

import numpy as np
import pytest

import nabla
import nabla.nn as nn
import nabla.nn.functional as F
from torch_reference import check_module, copy_weights

torch = pytest.importorskip("torch")
RNG = np.random.default_rng(3)
IDX = np.array([[1, 0, 4, 4], [4, 2, 2, 4]])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("kw", [{}, {"padding_idx": 0}, {"padding_idx": -1}, {"scale_grad_by_freq": True},
                                {"scale_grad_by_freq": True, "padding_idx": 2},
                                {"max_norm": 1.5}, {"max_norm": 1.0, "norm_type": 1.0},
                                {"max_norm": 0.5, "norm_type": float("inf"), "scale_grad_by_freq": True}],
                         ids=lambda kw: ",".join(f"{k}={v}" for k, v in kw.items()) or "plain")
def test_embedding_matches_pytorch(kw, dtype):
    ours, theirs = nn.Embedding(6, 3, **kw), torch.nn.Embedding(6, 3, **kw)
    assert repr(ours) == repr(theirs)
    with torch.no_grad():
        theirs.weight.mul_(2.0)  # most rows above max_norm
    for idx in (IDX, IDX[0], np.array(3), np.zeros((0, 2), dtype=np.int64)):
        check_module(ours, theirs, idx, dtype=dtype)
        # max_norm rewrote the same rows of both weights
        np.testing.assert_allclose(ours.weight.detach().numpy(), theirs.weight.detach().numpy(), rtol=1e-6)


def test_max_norm_renormalises_only_referenced_rows_in_place_without_grad():
    w = nabla.tensor(RNG.standard_normal((5, 4)) * 3, requires_grad=True)
    before = w.detach().numpy().copy()
    version = w._version
    out = F.embedding(nabla.tensor([[1, 3], [3, 3]]), w, max_norm=1.0)
    after = w.detach().numpy()
    norms = np.linalg.norm(after, axis=1)
    np.testing.assert_allclose(norms[[1, 3]], 1.0, rtol=1e-6)
    np.testing.assert_array_equal(after[[0, 2, 4]], before[[0, 2, 4]])
    assert w._version > version and w.grad_fn is None and w.is_leaf
    np.testing.assert_array_equal(out.detach().numpy()[0, 1], after[3])
    out.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy()[[1, 3]], [[1.0] * 4, [3.0] * 4])
    small = nabla.tensor(np.full((3, 2), 0.1))
    F.embedding(nabla.tensor([0, 1]), small, max_norm=1.0)
    np.testing.assert_array_equal(small.numpy(), np.full((3, 2), 0.1))  # rows under max_norm are untouched
    # int32 indices and an empty batch
    F.embedding(nabla.tensor([2], dtype=nabla.int32), w, max_norm=1.0)
    assert abs(np.linalg.norm(w.detach().numpy()[2]) - 1.0) < 1e-6
    assert tuple(F.embedding(nabla.zeros(0, dtype=nabla.int64), w, max_norm=1.0).shape) == (0, 4)


def test_scale_grad_by_freq_gradient_and_double_backward():
    wn = RNG.standard_normal((4, 2))
    results = []
    for lib_, tensor in ((nabla, nabla.tensor), (torch, torch.tensor)):
        w = tensor(wn, requires_grad=True)
        idx = tensor([1, 1, 1, 3, 0])
        out = lib_.nn.functional.embedding(idx, w, scale_grad_by_freq=True, padding_idx=0)
        (g,) = lib_.autograd.grad((out * out).sum(), w, create_graph=True)
        (gg,) = lib_.autograd.grad((g * g).sum(), w)
        results.append((out.detach().numpy(), g.detach().numpy(), gg.numpy()))
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)
    np.testing.assert_allclose(results[0][1], [[0, 0], 2 * wn[1], [0, 0], 2 * wn[3]], rtol=1e-12)
    with nabla.no_grad():  # no graph: the plain lookup
        w = nabla.tensor(wn, requires_grad=True)
        assert F.embedding(nabla.tensor([1]), w, scale_grad_by_freq=True).grad_fn is None


def test_from_pretrained_shares_and_freezes():
    base = nabla.tensor(RNG.standard_normal((3, 2)).astype(np.float32))
    emb = nn.Embedding.from_pretrained(base)
    assert not emb.weight.requires_grad and emb.weight.data_ptr() == base.data_ptr()
    emb = nn.Embedding.from_pretrained(base, freeze=False, padding_idx=1, max_norm=2.0, scale_grad_by_freq=True)
    theirs = torch.nn.Embedding.from_pretrained(torch.from_numpy(base.numpy().copy()), freeze=False, padding_idx=1,
                                                max_norm=2.0, scale_grad_by_freq=True)
    assert repr(emb) == repr(theirs) and emb.weight.requires_grad
    check_module(emb, theirs, np.array([0, 1, 1, 2]), dtype=np.float32)
    # the pretrained rows are kept: the padding row is not zeroed
    np.testing.assert_array_equal(emb.weight.detach().numpy()[1], base.numpy()[1])


def test_default_init_and_state_dict_round_trip():
    emb = nn.Embedding(1000, 8, padding_idx=-3)
    assert emb.padding_idx == 997 and not np.any(emb.weight.detach().numpy()[997])
    theirs = torch.nn.Embedding(1000, 8, padding_idx=997)
    copy_weights(emb, theirs)
    np.testing.assert_array_equal(emb.weight.detach().numpy(), theirs.weight.detach().numpy())


def test_bad_arguments_name_the_problem():
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        nn.Embedding(4, 2, padding_idx=4)
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        nn.Embedding(4, 2, padding_idx=-5)
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        F.embedding(nabla.tensor([0]), nabla.ones(4, 2), padding_idx=9)
    with pytest.raises(AssertionError, match="Shape of weight does not match num_embeddings and embedding_dim"):
        nn.Embedding(4, 2, _weight=nabla.ones(3, 2))
    with pytest.raises(AssertionError, match="Embeddings parameter is expected to be 2-dimensional"):
        nn.Embedding.from_pretrained(nabla.ones(3))
    with pytest.raises(RuntimeError, match="embedding: expected indices of dtype int64 or int32, but got float32"):
        F.embedding(nabla.tensor([1.0]), nabla.ones(4, 2), max_norm=1.0)
    with pytest.raises(RuntimeError, match="embedding: expected indices of dtype int64 or int32, but got float32"):
        F.embedding(nabla.tensor([1.0]), nabla.ones(4, 2))
    with pytest.raises(IndexError, match=r"embedding: index out of range in self \(index 7, num_embeddings 4\)"):
        F.embedding(nabla.tensor([1, 7]), nabla.ones(4, 2), max_norm=1.0)
    with pytest.raises(IndexError, match=r"embedding: index out of range in self \(index -1, num_embeddings 4\)"):
        F.embedding(nabla.tensor([-1, 2]), nabla.ones(4, 2), max_norm=1.0)
    with pytest.raises(RuntimeError, match=r"embedding: 'weight' must be 2-D, but got weight of size \[4\]"):
        F.embedding(nabla.tensor([1]), nabla.ones(4), max_norm=1.0)
    with pytest.raises(TypeError, match="embedding\\(\\): argument 'weight' \\(position 2\\) must be Tensor"):
        F.embedding(nabla.tensor([1]), [[1.0]])
