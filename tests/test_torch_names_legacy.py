"""The torch.* and Tensor names kept for old and ATen-level code, against torch: lu / lu_unpack /
lu_solve / triangular_solve / geqrf / ormqr, the removed linear-algebra functions and their
messages, svd_lowrank / pca_lowrank, and the small names (dim_order, is_set_to, index,
module_load, as_subclass, resize, as_strided_scatter, norm_except_dim, empty_permuted,
unfold_copy, convolution, set_default_tensor_type, the exception classes)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import nabla as nb

torch = pytest.importorskip("torch")


@pytest.fixture
def rng():
    return np.random.default_rng(7)


def both(x):
    return nb.tensor(x), torch.tensor(x)


def close(a, b, tol=1e-10):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)


@pytest.fixture(autouse=True)
def quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's deprecation notes for lu and triangular_solve
        yield


@pytest.mark.parametrize("shape", [(4, 4), (2, 4, 3), (3, 3, 5), (2, 1, 2, 2)])
def test_lu_and_lu_unpack_match_torch(rng, shape):
    a, t = both(rng.standard_normal(shape))
    for x, y in zip(nb.lu(a), torch.lu(t)):
        close(x, y)
    LU, piv, info = nb.lu(a, get_infos=True)
    assert info.dtype == nb.int32 and info.tolist() == torch.lu(t, get_infos=True)[2].tolist()
    r, s = nb.lu_unpack(LU, piv), torch.lu_unpack(*torch.lu(t))
    assert type(r).__name__ == "lu_unpack" and r._fields == ("P", "L", "U")
    for x, y in zip(r, s):
        close(x, y)
    close(r.P @ r.L @ r.U, t)
    for flag in ("unpack_data", "unpack_pivots"):
        for x, y in zip(nb.lu_unpack(LU, piv, **{flag: False}), torch.lu_unpack(*torch.lu(t), **{flag: False})):
            assert tuple(x.shape) == tuple(y.shape)


def test_lu_of_a_singular_matrix_reports_info_as_torch():
    a, t = both(np.zeros((3, 3)))
    assert nb.lu(a, get_infos=True)[2].item() == torch.lu(t, get_infos=True)[2].item() == 1


def test_lu_solve_and_triangular_solve_match_torch(rng):
    S, B = rng.standard_normal((2, 4, 4)), rng.standard_normal((2, 4, 3))
    (a, t), (b, u) = both(S), both(B)
    close(nb.lu_solve(b, *nb.lu(a)), torch.lu_solve(u, *torch.lu(t)))
    close(b.lu_solve(*a.lu()), torch.lu_solve(u, *torch.lu(t)))
    for upper in (True, False):
        for transpose in (True, False):
            for unit in (True, False):
                r = nb.triangular_solve(b, a, upper, transpose, unit)
                s = torch.triangular_solve(u, t, upper, transpose, unit)
                assert type(r).__name__ == "triangular_solve"
                close(r.solution, s.solution, 1e-8)
                close(r.cloned_coefficient, s.cloned_coefficient)
    r = b.triangular_solve(a)
    close(r.solution, torch.triangular_solve(u, t).solution, 1e-8)


def test_triangular_solve_gradient_matches_torch(rng):
    S = np.triu(rng.standard_normal((3, 3))) + 3 * np.eye(3)
    a, t = both(S)
    b, u = both(rng.standard_normal((3, 2)))
    for x in (a, t, b, u):
        x.requires_grad_()
    nb.triangular_solve(b, a).solution.square().sum().backward()
    torch.triangular_solve(u, t).solution.square().sum().backward()
    close(a.grad.triu(), t.grad.triu(), 1e-9)
    close(b.grad, u.grad, 1e-9)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (2, 6, 4), (0, 3)])
def test_geqrf_and_ormqr_match_torch(rng, shape):
    a, t = both(rng.standard_normal(shape))
    g, h = nb.geqrf(a), torch.geqrf(t)
    assert type(g).__name__ == "geqrf" and tuple(g.tau.shape) == tuple(h.tau.shape)
    close(g.a, h.a)
    close(g.tau, h.tau)
    m = shape[-2]
    if m == 0:
        return
    for left in (True, False):
        for transpose in (True, False):
            other_shape = shape[:-2] + ((m, 3) if left else (2, m))
            c, d = both(rng.standard_normal(other_shape))
            close(nb.ormqr(g.a, g.tau, c, left, transpose), torch.ormqr(h.a, h.tau, d, left, transpose))
    close(a.geqrf().a, h.a)


def test_geqrf_float32_and_its_refusals(rng):
    a, t = both(rng.standard_normal((4, 3)).astype(np.float32))
    close(nb.geqrf(a).a, torch.geqrf(t).a, 1e-5)
    with pytest.raises(NotImplementedError, match="derivative for 'geqrf' is not implemented"):
        nb.geqrf(a.requires_grad_())
    with pytest.raises(RuntimeError, match="2 or more dimensions"):
        nb.geqrf(nb.ones(3))


def test_ormqr_gradient_matches_torch(rng):
    g = nb.geqrf(nb.tensor(rng.standard_normal((4, 3))))
    h_a, h_tau = torch.tensor(g.a.numpy()), torch.tensor(g.tau.numpy())  # the same factors in both
    c, d = both(rng.standard_normal((4, 2)))
    c.requires_grad_(), d.requires_grad_()
    nb.ormqr(g.a, g.tau, c, transpose=True).sin().sum().backward()
    torch.ormqr(h_a, h_tau, d, transpose=True).sin().sum().backward()
    close(c.grad, d.grad, 1e-9)


@pytest.mark.parametrize("name,args", [("solve", 2), ("lstsq", 2), ("symeig", 1), ("matrix_rank", 1)])
def test_removed_functions_raise_torch_messages(name, args):
    a, t = both(np.eye(3))
    with pytest.raises(RuntimeError) as theirs:
        getattr(torch, name)(*[t] * args)
    with pytest.raises(RuntimeError) as ours:
        getattr(nb, name)(*[a] * args)
    assert str(ours.value) == str(theirs.value)
    if name != "matrix_rank":
        with pytest.raises(RuntimeError) as method:
            getattr(a, name)(*[a] * (args - 1))
        assert str(method.value) == str(theirs.value)


@pytest.mark.parametrize("m,n,rank", [(20, 8, 3), (8, 20, 2), (15, 15, 6)])
def test_svd_lowrank_recovers_a_low_rank_matrix(rng, m, n, rank):
    A = rng.standard_normal((m, rank)) @ rng.standard_normal((rank, n))
    a, t = both(A)
    U, S, V = nb.svd_lowrank(a, q=6)
    assert tuple(U.shape) == (m, 6) and tuple(S.shape) == (6,) and tuple(V.shape) == (n, 6)
    close(U @ nb.diag_embed(S) @ V.mT, t, 1e-9)
    close(S[:rank], torch.svd_lowrank(t, q=6)[1][:rank], 1e-9)
    M = rng.standard_normal((1, n))
    U, S, V = nb.svd_lowrank(a, q=rank + 1, M=nb.tensor(M))
    close(U @ nb.diag_embed(S) @ V.mT, torch.tensor(A - M), 1e-9)


def test_pca_lowrank_centres_and_matches_torch_directions(rng):
    X = rng.standard_normal((30, 3)) @ rng.standard_normal((3, 5)) + rng.standard_normal(5)
    a, t = both(X)
    U, S, V = nb.pca_lowrank(a, q=3)
    _, S_t, V_t = torch.pca_lowrank(t, q=3)
    close(S, S_t, 1e-9)
    overlap = np.abs(V.numpy().T @ V_t.numpy())  # the same directions, up to sign
    np.testing.assert_allclose(overlap, np.eye(3), atol=1e-8)
    with pytest.raises(ValueError, match=r"q\(=9\) must be non-negative integer and not greater than"):
        nb.pca_lowrank(a, q=9)
    with pytest.raises(ValueError, match=r"niter\(=-1\) must be non-negative integer"):
        nb.pca_lowrank(a, niter=-1)


def test_small_tensor_names_match_torch(rng):
    a, t = both(rng.standard_normal((3, 4, 5)))
    for x, y in ((a, t), (a.transpose(0, 2), t.transpose(0, 2)), (a[:, ::2], t[:, ::2])):
        assert x.dim_order() == y.dim_order()
    assert a.is_set_to(a) == t.is_set_to(t) and a.is_set_to(a.clone()) == t.is_set_to(t.clone())
    assert a.is_set_to(a[1:]) == t.is_set_to(t[1:])
    assert a.is_inference() is t.is_inference() is False and nb.is_inference(a) is False
    assert nb.is_distributed(a) == torch.is_distributed(t)
    assert a.grad_dtype == a.dtype and str(t.grad_dtype) == "torch.float64"
    assert a.volatile is False
    z, w = both(np.array([0.0, 1.0, 0.0, 2.0]))
    assert z.nonzero_static(size=3).tolist() == w.nonzero_static(size=3).tolist()


def test_module_load_and_as_subclass(rng):
    p, q = both(rng.standard_normal(3))
    src, tsrc = both(rng.standard_normal(3))
    r, s = p.module_load(src), q.module_load(tsrc)
    close(p, q)
    assert not r.requires_grad and r.data_ptr() == p.data_ptr()
    assert p.module_load(src, assign=True).data_ptr() == src.data_ptr()

    class Mine(nb.Tensor):
        pass

    x = nb.ones(2, requires_grad=True)
    y = (x * 3).as_subclass(Mine)
    assert type(y) is Mine and y.requires_grad
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    with pytest.raises(TypeError, match="subclass of torch.Tensor"):
        x.as_subclass(int)


def test_resize_reinforce_and_their_messages():
    a, t = both(np.arange(6.0))
    with pytest.warns(UserWarning, match="non-inplace resize is deprecated"):
        r = a.resize(2, 3)
    close(r, t.resize(2, 3))
    with pytest.warns(UserWarning, match="non-inplace resize_as is deprecated"):
        assert tuple(a.resize_as(nb.ones(3, 2)).shape) == (3, 2)
    with pytest.raises(RuntimeError) as theirs:
        t.reinforce(1)
    with pytest.raises(RuntimeError) as ours:
        a.reinforce(1)
    assert str(ours.value) == str(theirs.value)


def test_as_strided_scatter_values_and_gradients(rng):
    a, t = both(rng.standard_normal((4, 4)))
    b, u = both(rng.standard_normal((2, 2)))
    a.requires_grad_(), b.requires_grad_()
    r = nb.as_strided_scatter(a, b, (2, 2), (4, 1), 5)
    close(r, torch.as_strided_scatter(t, u, (2, 2), (4, 1), 5))
    close(a.as_strided_scatter(b, (2, 2), (1, 4)), t.as_strided_scatter(u, (2, 2), (1, 4)))
    (r * r).sum().backward()
    # d/da: 2r where a is kept, 0 where src replaced it; d/db: 2b (torch 2.13's input gradient is
    # not this, so the reference is worked out here)
    expected = 2 * r.detach().numpy()
    expected[1:3, 1:3] = 0
    np.testing.assert_allclose(a.grad.numpy(), expected, rtol=1e-12)
    np.testing.assert_allclose(b.grad.numpy(), 2 * b.detach().numpy(), rtol=1e-12)


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_norm_except_dim_values_and_gradient(rng, dim):
    a, t = both(rng.standard_normal((3, 4, 2)))
    a.requires_grad_(), t.requires_grad_()
    r, s = nb.norm_except_dim(a, 2, dim), torch.norm_except_dim(t, 2, dim)
    assert tuple(r.shape) == tuple(s.shape)
    close(r, s)
    r.sum().backward()
    s.sum().backward()
    close(a.grad, t.grad)


def test_empty_permuted_unfold_copy_and_as_strided_(rng):
    for layout in ((0, 1, 2), (2, 0, 1), (0, 2, 1)):
        assert nb.empty_permuted((2, 3, 4), layout).stride() == torch.empty_permuted((2, 3, 4), layout).stride()
    with pytest.raises(RuntimeError, match="physical_layout"):
        nb.empty_permuted((2, 3), (0, 0))
    a, t = both(rng.standard_normal((3, 7)))
    r, s = nb.unfold_copy(a, 1, 3, 2), torch.unfold_copy(t, 1, 3, 2)
    assert r.is_contiguous() and r.stride() == s.stride()
    close(r, s)
    x, y = a.clone(), t.clone()
    assert nb.as_strided_(x, (2, 2), (1, 7), 1) is x
    torch.as_strided_(y, (2, 2), (1, 7), 1)
    close(x, y)


@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("spatial", [1, 2, 3])
def test_convolution_entry_matches_torch(rng, spatial, transposed):
    x_shape = (2, 4) + (5,) * spatial
    w_shape = ((4, 3) if transposed else (6, 2)) + (3,) * spatial
    groups = 1 if transposed else 2
    (x, tx), (w, tw), (b, tb) = both(rng.standard_normal(x_shape)), both(rng.standard_normal(w_shape)), \
        both(rng.standard_normal(3 if transposed else 6))
    stride, padding, dilation, out_pad = [2] * spatial, [1] * spatial, [1] * spatial, [1 if transposed else 0] * spatial
    r = nb.convolution(x, w, b, stride, padding, dilation, transposed, out_pad, groups)
    s = torch.convolution(tx, tw, tb, stride, padding, dilation, transposed, out_pad, groups)
    close(r, s, 1e-9)


def test_default_tensor_type_exceptions_and_aliases():
    before = nb.get_default_dtype()
    try:
        with pytest.warns(UserWarning, match="set_default_tensor_type\\(\\) is deprecated"):
            nb.set_default_tensor_type(nb.DoubleTensor)
        assert nb.get_default_dtype() == nb.float64 and nb.ones(1).dtype == nb.float64
        nb.set_default_tensor_type("torch.FloatTensor")
        assert nb.get_default_dtype() == nb.float32
        with pytest.raises(TypeError, match="only floating-point types are supported as the default type"):
            nb.set_default_tensor_type(nb.LongTensor)
    finally:
        nb.set_default_dtype(before)
    assert issubclass(nb.AcceleratorError, RuntimeError) and nb.cuda.AcceleratorError is nb.AcceleratorError
    assert issubclass(nb.FatalError, Exception) and not issubclass(nb.FatalError, RuntimeError)
    assert nb.GradScaler is nb.amp.GradScaler and nb.Future is nb.futures.Future
    assert nb.thread_safe_generator() is None
    assert nb.get_file_path("nabla").endswith("nabla")
    x = nb.arange(3.0)
    assert nb.from_dlpack(nb.to_dlpack(x)).tolist() == [0.0, 1.0, 2.0]
