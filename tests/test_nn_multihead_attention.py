"""nn.MultiheadAttention and F.multi_head_attention_forward against PyTorch with
the same weights: every constructor option, every mask form, weights returned or
not, outputs and gradients in float32 and float64; error messages."""
from __future__ import annotations

import numpy as np
import pytest

import nabla
import nabla.nn as nn
import nabla.nn.functional as F
from torch_reference import Const, check_module

torch = pytest.importorskip("torch")
RNG = np.random.default_rng(11)
L, S, N, E, H = 4, 5, 3, 8, 2


def _x(*shape):
    return RNG.standard_normal(shape)


def _bool_attn_mask(l, s):
    m = RNG.random((l, s)) < 0.3
    m[:, 0] = False  # no row fully masked
    return m


def _kpm_bool():
    m = np.zeros((N, S), dtype=bool)
    m[1, -2:] = True
    m[2, 1] = True
    return m


CONFIGS = [
    {},
    {"bias": False},
    {"add_bias_kv": True},
    {"add_zero_attn": True},
    {"add_bias_kv": True, "add_zero_attn": True, "bias": False},
    {"kdim": 6, "vdim": 3},
    {"kdim": 6, "vdim": 3, "add_bias_kv": True, "add_zero_attn": True},
]


def _pair(**kw):
    return nn.MultiheadAttention(E, H, **kw), torch.nn.MultiheadAttention(E, H, **kw)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()) or "default")
def test_options_outputs_and_gradients_match_pytorch(cfg, dtype):
    kdim, vdim = cfg.get("kdim", E), cfg.get("vdim", E)
    q, k, v = _x(L, N, E), _x(S, N, kdim), _x(S, N, vdim)
    ours, theirs = _pair(**cfg)
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert repr(ours) == repr(theirs)
    for kwargs in [{}, {"need_weights": False}, {"average_attn_weights": False},
                   {"attn_mask": _bool_attn_mask(L, S), "key_padding_mask": _kpm_bool()},
                   {"attn_mask": Const(np.where(_bool_attn_mask(L, S), -np.inf, 0.5 * _x(L, S))),
                    "key_padding_mask": Const(np.where(_kpm_bool(), -np.inf, 0.0)), "need_weights": False}]:
        check_module(ours, theirs, q, k, v, dtype=dtype, **kwargs)


@pytest.mark.parametrize("cfg", [{}, {"add_zero_attn": True, "add_bias_kv": True}])
def test_self_attention_batch_first_and_unbatched(cfg):
    x = _x(N, L, E)
    ours, theirs = _pair(batch_first=True, **cfg)
    check_module(ours, theirs, x, x, x)
    check_module(ours, theirs, x, x, x, need_weights=False, key_padding_mask=Const(np.zeros((N, L), dtype=bool)))
    kv = _x(N, S, E)
    check_module(ours, theirs, x, kv, kv, key_padding_mask=_kpm_bool())  # key is value: packed kv product
    u = _x(L, E)
    check_module(ours, theirs, u, u, u, attn_mask=_bool_attn_mask(L, L))
    check_module(ours, theirs, u, _x(S, E), _x(S, E), key_padding_mask=np.array([False, True, False, False, True]),
                 need_weights=False)
    ours, theirs = _pair(**cfg)  # sequence-first, unbatched
    check_module(ours, theirs, u, u, u, average_attn_weights=False)


def test_3d_attn_mask_and_is_causal():
    q = _x(L, N, E)
    ours, theirs = _pair()
    m3 = np.where(RNG.random((N * H, L, L)) < 0.3, -np.inf, 0.0)
    m3[..., 0] = 0.0
    check_module(ours, theirs, q, q, q, attn_mask=Const(m3))
    check_module(ours, theirs, q, q, q, attn_mask=Const(m3), need_weights=False)
    causal = np.triu(np.ones((L, L), dtype=bool), 1)
    for kw in [{"need_weights": False}, {"need_weights": True}, {"key_padding_mask": np.zeros((N, L), bool)}]:
        check_module(ours, theirs, q, q, q, attn_mask=causal, is_causal=True, **kw)
    u = _x(L, E)
    check_module(ours, theirs, u, u, u, attn_mask=Const(m3[:H]))


def test_mismatched_mask_types_warn_like_pytorch():
    ours = nn.MultiheadAttention(E, H)
    x = nabla.tensor(_x(L, N, E).astype(np.float32))
    with pytest.warns(UserWarning, match="Support for mismatched key_padding_mask and attn_mask is deprecated"):
        ours(x, x, x, key_padding_mask=nabla.zeros(N, L, dtype=nabla.bool), attn_mask=nabla.zeros(L, L))


def test_functional_form_with_static_keys_and_separate_weights():
    hd = E // H
    q, k, v = _x(L, N, E), _x(S, N, E), _x(S, N, E)
    w_in, b_in, w_out, b_out = _x(3 * E, E), _x(3 * E), _x(E, E), _x(E)
    sk, sv = _x(N * H, S + 1, hd), _x(N * H, S + 1, hd)
    wq, wk, wv = _x(E, E), _x(E, 6), _x(E, 3)
    cases = [
        ((q, k, v, E, H, w_in, b_in, None, None, False, 0.0, w_out, b_out), {"static_k": sk, "static_v": sv}),
        ((q, k, v, E, H, w_in, b_in, _x(1, 1, E), _x(1, 1, E), True, 0.0, w_out, b_out),
         {"attn_mask": _bool_attn_mask(L, S)}),
        ((q, _x(S, N, 6), _x(S, N, 3), E, H, None, b_in, None, None, False, 0.0, w_out, None),
         {"use_separate_proj_weight": True, "q_proj_weight": wq, "k_proj_weight": wk, "v_proj_weight": wv,
          "need_weights": False}),
        ((q, k, v, E, H, w_in, None, None, None, True, 0.5, w_out, b_out),
         {"training": False, "key_padding_mask": _kpm_bool(), "average_attn_weights": False}),
    ]
    for args, kwargs in cases:
        ours = F.multi_head_attention_forward(*[nabla.tensor(a) if isinstance(a, np.ndarray) else a for a in args],
                                              **{n: nabla.tensor(a) if isinstance(a, np.ndarray) else a
                                                 for n, a in kwargs.items()})
        ref = torch.nn.functional.multi_head_attention_forward(
            *[torch.from_numpy(a) if isinstance(a, np.ndarray) else a for a in args],
            **{n: torch.from_numpy(a) if isinstance(a, np.ndarray) else a for n, a in kwargs.items()})
        for o, r in zip(ours, ref):
            if r is None:
                assert o is None
            else:
                np.testing.assert_allclose(o.numpy(), r.numpy(), rtol=1e-9, atol=1e-10)


def test_dropout_applies_only_in_training():
    nabla.manual_seed(0)
    mha = nn.MultiheadAttention(E, H, dropout=0.5)
    x = nabla.tensor(_x(L, N, E).astype(np.float32))
    _, w = mha(x, x, x, average_attn_weights=False)
    w = w.detach().numpy()
    assert (w == 0).mean() > 0.2 and np.allclose(w[w > 0].max() <= 2.0, True)
    mha.eval()
    _, w = mha(x, x, x, average_attn_weights=False)
    np.testing.assert_allclose(w.detach().numpy().sum(-1), 1.0, rtol=1e-5)


def test_initialisation_follows_pytorch():
    mha = nn.MultiheadAttention(16, 4, add_bias_kv=True, kdim=5)
    assert mha.in_proj_weight is None and tuple(mha.k_proj_weight.shape) == (16, 5)
    assert tuple(mha.bias_k.shape) == (1, 1, 16) and mha.bias_k.requires_grad
    assert not np.any(mha.in_proj_bias.detach().numpy()) and not np.any(mha.out_proj.bias.detach().numpy())
    assert isinstance(mha.out_proj, nn.Linear) and type(mha.out_proj).__name__ == "NonDynamicallyQuantizableLinear"
    plain = nn.MultiheadAttention(16, 4)
    assert plain.bias_k is None and plain.bias_v is None and plain.add_zero_attn is False


def test_bad_inputs_name_the_problem():
    mha = nn.MultiheadAttention(E, H)
    x = nabla.ones(L, N, E)
    with pytest.raises(AssertionError, match="For batched \\(3-D\\) `query`, expected `key` and `value` to be 3-D but "
                                             "found 2-D and 3-D tensors respectively"):
        mha(x, nabla.ones(S, E), x)
    with pytest.raises(AssertionError, match="query should be unbatched 2D or batched 3D tensor but received 4-D"):
        mha(nabla.ones(1, L, N, E), x, x)
    with pytest.raises(AssertionError, match="was expecting embedding dimension of 8, but got 6"):
        mha(nabla.ones(L, N, 6), nabla.ones(L, N, 6), nabla.ones(L, N, 6))
    with pytest.raises(RuntimeError, match=r"The shape of the 2D attn_mask is nabla.Size\(\[4, 3\]\), but should be "
                                           r"\(4, 4\)."):
        mha(x, x, x, attn_mask=nabla.zeros(L, 3))
    with pytest.raises(RuntimeError, match=r"The shape of the 3D attn_mask is nabla.Size\(\[2, 4, 4\]\), but should "
                                           r"be \(6, 4, 4\)."):
        mha(x, x, x, attn_mask=nabla.zeros(2, L, L))
    with pytest.raises(AssertionError, match="Expected key_padded_mask.shape\\[1\\] to be 4, but got 3"):
        mha(x, x, x, key_padding_mask=nabla.zeros(N, 3, dtype=nabla.bool))
    with pytest.raises(AssertionError, match="only bool and floating types of key_padding_mask are supported"):
        mha(x, x, x, key_padding_mask=nabla.zeros(N, L, dtype=nabla.int64))
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        mha(x, x, x, is_causal=True)
    with pytest.raises(AssertionError, match="key shape nabla.Size\\(\\[4, 3, 8\\]\\) does not match value shape"):
        mha(x, x, nabla.ones(S, N, E))
    sep = nn.MultiheadAttention(E, H, kdim=6, vdim=3)
    with pytest.raises(AssertionError,
                       match=r"expecting key weights shape of \(8, 5\), but got nabla.Size\(\[8, 6\]\)"):
        sep(x, nabla.ones(S, N, 5), nabla.ones(S, N, 3))
    with pytest.raises(AssertionError, match="embed_dim must be divisible by num_heads"):
        nn.MultiheadAttention(10, 3)
    with pytest.raises(ValueError, match="embed_dim and num_heads must be greater than 0"):
        nn.MultiheadAttention(0, 1)
    with pytest.raises(AssertionError, match="bias_k is set but bias_v is None"):
        F.multi_head_attention_forward(x, x, x, E, H, mha.in_proj_weight, None, nabla.zeros(1, 1, E), None, False,
                                       0.0, mha.out_proj.weight, None)
    with pytest.raises(AssertionError, match="expecting static_k.size\\(0\\) of 6, but got 5"):
        F.multi_head_attention_forward(x, x, x, E, H, mha.in_proj_weight, None, None, None, False, 0.0,
                                       mha.out_proj.weight, None, static_k=nabla.zeros(5, L, E // H))


def test_gradcheck_and_strided_inputs():
    mha = nn.MultiheadAttention(4, 2, add_bias_kv=True, add_zero_attn=True, kdim=3, vdim=5).double()
    q, k, v = (nabla.tensor(_x(*s), requires_grad=True) for s in ((3, 2, 4), (4, 2, 3), (4, 2, 5)))
    kpm = nabla.tensor(np.array([[False, False, True, False], [False] * 4]))
    assert nabla.autograd.gradcheck(lambda q, k, v: mha(q, k, v, key_padding_mask=kpm)[0], (q, k, v))
    assert nabla.autograd.gradcheck(lambda q, k, v: mha(q, k, v, need_weights=False)[0], (q, k, v))
    assert nabla.autograd.gradgradcheck(lambda q: mha(q, k, v)[1], (q,))
    # transposed and sliced views give what their contiguous copies give
    base = nabla.tensor(_x(2, 6, 3, 4))
    qs = base[1, ::2].transpose(0, 1)  # [3, 3, 4] with strides of a view
    ks = nabla.tensor(_x(4, 3, 3)).transpose(0, 1)  # [N=3, S=4, kdim]
    vs = nabla.tensor(_x(4, 3, 10)).transpose(0, 1)[:, :, ::2]
    mha = nn.MultiheadAttention(4, 2, kdim=3, vdim=5, batch_first=True).double()
    with nabla.no_grad():
        strided = mha(qs, ks, vs)
        dense = mha(qs.contiguous(), ks.contiguous(), vs.contiguous())
    for a, b in zip(strided, dense):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12, atol=1e-14)
