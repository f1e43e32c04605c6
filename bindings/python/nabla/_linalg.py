"""Matrix products: nabla.matmul / mm / bmm / mv / dot / outer / addmm / baddbmm /
linear, the matching Tensor methods, addmm_ / baddbmm_, and the @ operator.

As in PyTorch, matrix products need operands of one dtype (no promotion; outer,
an elementwise product, promotes). `a @= b` rebinds `a` to a new tensor, as it
does for PyTorch tensors (which have no in-place matmul)."""
from __future__ import annotations

from ._lib import error, ffi, lib
from ._tensor import Tensor, _new_object, _checked, _out

_NULL = ffi.NULL
_matmul_twin = lib.nbpy_matmul


def _handle(x, fname: str, arg: str, position: int):
    if isinstance(x, Tensor):
        return x._h
    raise TypeError(f"{fname}(): argument '{arg}' (position {position}) must be Tensor, not {type(x).__name__}")




def _number(x, fname: str, arg: str) -> float:
    if isinstance(x, (Tensor, complex, str)) or not hasattr(x, "__float__"):
        raise TypeError(f"{fname}(): argument '{arg}' must be Number, not {type(x).__name__}")
    return float(x)


_result = _checked  # a Tensor for a returned handle; NULL raises the call's error


def _into(status: int, out: Tensor) -> Tensor:
    if status:
        raise error(status)
    return out


TENSOR_METHODS: dict = {}  # Tensor.<name> (and <name>_) of the products; _tensor_methods binds them


def _two(name: str, twin, raw, second: str, doc: str):
    """nabla.<name>(input, other, *, out=None) and Tensor.<name>(other) for a two-operand product."""

    def fn(input, other, *, out=None):
        a = _handle(input, name, "input", 1)
        b = _handle(other, name, second, 2)
        if out is None:
            return _result(twin(a, b, _NULL))
        return _into(raw(a, b, _out(out, name), _NULL), out)

    def method(self, other):
        return _result(twin(self._h, _handle(other, name, second, 1), _NULL))

    fn.__name__ = fn.__qualname__ = method.__name__ = name
    fn.__doc__ = method.__doc__ = doc
    globals()[name] = fn
    TENSOR_METHODS[name] = method
    return fn


_two("matmul", lib.nbpy_matmul, lib.nb_matmul, "other",
     "matmul(input, other, *, out=None) -> Tensor: torch.matmul (dot, matrix-vector, matrix and batched "
     "products with broadcast batch dims).")
_two("mm", lib.nbpy_mm, lib.nb_mm, "mat2", "mm(input, mat2, *, out=None) -> Tensor: [n, m] @ [m, p].")
_two("bmm", lib.nbpy_bmm, lib.nb_bmm, "mat2", "bmm(input, mat2, *, out=None) -> Tensor: [b, n, m] @ [b, m, p].")
_two("mv", lib.nbpy_mv, lib.nb_mv, "vec", "mv(input, vec, *, out=None) -> Tensor: [n, m] @ [m].")
_two("dot", lib.nbpy_dot, lib.nb_dot, "tensor", "dot(input, tensor, *, out=None) -> Tensor: 0-dim dot product "
     "of two 1-D tensors.")
_two("outer", lib.nbpy_outer, lib.nb_outer, "vec2", "outer(input, vec2, *, out=None) -> Tensor: [n] x [m] -> "
     "[n, m] (dtypes promote).")
ger = outer


def _add_product(name: str, twin, raw, second: str, third: str, doc: str):
    """nabla.<name>(input, m1, m2, *, beta=1, alpha=1, out=None), Tensor.<name> and Tensor.<name>_."""

    def fn(input, m1, m2, *, beta=1, alpha=1, out=None):
        c = _handle(input, name, "input", 1)
        a = _handle(m1, name, second, 2)
        b = _handle(m2, name, third, 3)
        fb, fa = _number(beta, name, "beta"), _number(alpha, name, "alpha")
        if out is None:
            return _result(twin(c, a, b, fb, fa, _NULL))
        return _into(raw(c, a, b, fb, fa, _out(out, name), _NULL), out)

    def method(self, m1, m2, *, beta=1, alpha=1):
        return fn(self, m1, m2, beta=beta, alpha=alpha)

    def method_(self, m1, m2, *, beta=1, alpha=1):
        a = _handle(m1, name + "_", second, 1)
        b = _handle(m2, name + "_", third, 2)
        return _into(raw(self._h, a, b, _number(beta, name + "_", "beta"), _number(alpha, name + "_", "alpha"),
                         self._h, _NULL), self)

    fn.__name__ = fn.__qualname__ = method.__name__ = name
    method_.__name__ = name + "_"
    fn.__doc__ = method.__doc__ = doc
    globals()[name] = fn
    TENSOR_METHODS[name], TENSOR_METHODS[name + "_"] = method, method_
    return fn


_add_product("addmm", lib.nbpy_addmm, lib.nb_addmm, "mat1", "mat2",
             "addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None) -> Tensor: beta * input + alpha * (mat1 @ mat2).")
_add_product("baddbmm", lib.nbpy_baddbmm, lib.nb_baddbmm, "batch1", "batch2",
             "baddbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None) -> Tensor: "
             "beta * input + alpha * bmm(batch1, batch2).")


def linear(input, weight, bias=None, *, out=None):
    """linear(input, weight, bias=None) -> Tensor: input @ weight.T + bias (torch.nn.functional.linear)."""
    x = _handle(input, "linear", "input", 1)
    w = _handle(weight, "linear", "weight", 2)
    b = _NULL if bias is None else _handle(bias, "linear", "bias", 3)
    if out is None:
        return _result(lib.nbpy_linear(x, w, b, _NULL))
    return _into(lib.nb_linear(x, w, b, _out(out, "linear"), _NULL), out)


def _matmul_operator(self, other):
    if other.__class__ is not Tensor and not isinstance(other, Tensor):
        return NotImplemented
    h = _matmul_twin(self._h, other._h, _NULL)
    if not h:
        raise error(lib.nb_last_error_status())
    t = _new_object(Tensor)
    t._h = h
    t._shape = None
    return t


def _rmatmul_operator(self, other):
    if not isinstance(other, Tensor):
        return NotImplemented
    return _result(_matmul_twin(other._h, self._h, _NULL))


__all__ = ["matmul", "mm", "bmm", "mv", "dot", "outer", "ger", "addmm", "baddbmm", "linear"]
