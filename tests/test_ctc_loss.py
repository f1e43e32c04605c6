"""F.ctc_loss / nn.CTCLoss against PyTorch: padded and concatenated targets, unequal input
and target lengths, repeated labels, empty targets, every reduction, impossible alignments
(inf, or 0 with zero_infinity), unbatched input, float64; gradients to the logits through
log_softmax; PyTorch's errors."""
from __future__ import annotations

import numpy as np
import pytest

import nabla

torch = pytest.importorskip("torch")


def _run(lib, logits, targets, in_lens, tgt_lens, dtype="float32", **kw):
    x = lib.tensor(logits, dtype=getattr(lib, dtype), requires_grad=True)
    tg = lib.tensor(targets, dtype=lib.int64)
    il = lib.tensor(in_lens, dtype=lib.int64) if isinstance(in_lens, list) else in_lens
    tl = lib.tensor(tgt_lens, dtype=lib.int64) if isinstance(tgt_lens, list) else tgt_lens
    loss = lib.nn.functional.ctc_loss(x.log_softmax(-1), tg, il, tl, **kw)
    (loss.sum() if loss.dim() else loss).backward()
    return loss.detach().numpy(), x.grad.numpy()


def _compare(logits, targets, in_lens, tgt_lens, dtype="float32", rtol=1e-5, **kw):
    ours = _run(nabla, logits, targets, in_lens, tgt_lens, dtype, **kw)
    theirs = _run(torch, logits, targets, in_lens, tgt_lens, dtype, **kw)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=rtol, atol=rtol)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=rtol, atol=rtol)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_padded_targets_unequal_lengths(reduction, dtype, rng):
    t, n, c = 12, 4, 6
    logits = rng.standard_normal((t, n, c))
    targets = rng.integers(1, c, (n, 5))
    targets[1, :3] = [2, 2, 3]  # a repeated label needs a blank between
    _compare(logits, targets, [12, 9, 7, 12], [5, 3, 0, 4], dtype, 1e-5 if dtype == "float32" else 1e-10,
             reduction=reduction)


def test_concatenated_targets_and_a_nonzero_blank(rng):
    t, n, c = 10, 3, 5
    logits = rng.standard_normal((t, n, c))
    lens = [3, 1, 4]
    flat = rng.integers(0, c - 1, sum(lens))  # labels 0..3, blank 4
    _compare(logits, flat, [10, 6, 10], lens, blank=c - 1)


def test_impossible_alignments_give_inf_or_zero(rng):
    t, n, c = 4, 2, 4
    logits = rng.standard_normal((t, n, c))
    targets = np.array([[1, 1, 1, 1], [1, 2, 0, 0]])  # 1,1,1,1 needs 7 frames
    for zero_infinity in (False, True):
        ours = _run(nabla, logits, targets, [4, 4], [4, 2], reduction="none", zero_infinity=zero_infinity)
        theirs = _run(torch, logits, targets, [4, 4], [4, 2], reduction="none", zero_infinity=zero_infinity)
        np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-5)
        if zero_infinity:
            np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-5, atol=1e-6)
    assert np.isinf(_run(nabla, logits, targets, [4, 4], [4, 2], reduction="none")[0][0])


def test_unbatched_and_module(rng):
    logits = rng.standard_normal((7, 5))
    target = np.array([1, 3, 3])
    ours = nabla.nn.CTCLoss(blank=0)(nabla.tensor(logits).log_softmax(-1), nabla.tensor(target), 7, 3)
    theirs = torch.nn.CTCLoss(blank=0)(torch.tensor(logits).log_softmax(-1), torch.tensor(target), (7,), (3,))
    np.testing.assert_allclose(ours.item(), theirs.item(), rtol=1e-10)
    lp = rng.standard_normal((6, 2, 4))
    ours = nabla.nn.CTCLoss(reduction="sum")(nabla.tensor(lp).log_softmax(-1), nabla.tensor([[1, 2], [3, 3]]),
                                             (6, 5), (2, 2))
    theirs = torch.nn.CTCLoss(reduction="sum")(torch.tensor(lp).log_softmax(-1), torch.tensor([[1, 2], [3, 3]]),
                                               (6, 5), (2, 2))
    np.testing.assert_allclose(ours.item(), theirs.item(), rtol=1e-10)


def test_bad_input_raises_like_torch():
    lp = nabla.zeros(5, 2, 4).log_softmax(-1)
    tg = nabla.tensor([[1, 2], [1, 1]])
    with pytest.raises(RuntimeError, match="input_lengths to have value at most 5"):
        nabla.nn.functional.ctc_loss(lp, tg, [6, 5], [2, 2])
    with pytest.raises(RuntimeError, match="blank must be in label range"):
        nabla.nn.functional.ctc_loss(lp, tg, [5, 5], [2, 2], blank=4)
    with pytest.raises(RuntimeError, match="size at least 3 at dimension 1"):
        nabla.nn.functional.ctc_loss(lp, tg, [5, 5], [3, 2])
    with pytest.raises(ValueError, match="is not a valid value for reduction"):
        nabla.nn.functional.ctc_loss(lp, tg, [5, 5], [2, 2], reduction="avg")
    with pytest.raises(RuntimeError, match="not implemented for 'Half'"):
        nabla.nn.functional.ctc_loss(lp.half(), tg, [5, 5], [2, 2])


def test_on_every_device_matches_torch(device, rng):
    t, n, c = 9, 3, 5
    logits = rng.standard_normal((t, n, c))
    targets = np.array([[1, 2, 2], [3, 0, 0], [4, 1, 0]])
    x = nabla.tensor(logits, device=device, requires_grad=True)
    loss = nabla.nn.functional.ctc_loss(x.log_softmax(-1), nabla.tensor(targets, device=device), [9, 8, 5], [3, 1, 2])
    loss.backward()
    tx = torch.tensor(logits, requires_grad=True)
    tloss = torch.nn.functional.ctc_loss(tx.log_softmax(-1), torch.tensor(targets), [9, 8, 5], [3, 1, 2])
    tloss.backward()
    assert loss.device.type == device and x.grad.device.type == device
    np.testing.assert_allclose(loss.item(), tloss.item(), rtol=1e-5)
    np.testing.assert_allclose(x.grad.cpu().numpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-6)
