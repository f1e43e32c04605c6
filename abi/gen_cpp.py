"""include/nabla.hpp: a header-only C++17 API over nabla.h, derived from the ABI manifest
(see abi/gen.py, which writes and checks it).

Every function returning nb_status whose parameters all map to C++ becomes a free
function in namespace nabla (`nb_` dropped; `nb_tensor_` dropped too unless an op has the
name), and a method of nabla::Tensor when its first parameter is a tensor input. The
mapping is by C type and by the manifest's pointer directions and lengths only:

  const nb_tensor*, nb_tensor*        const Tensor& (an empty Tensor is NULL)
  T* const* [in: n]                   const std::vector<Tensor>&, n filled in
  const int64_t* [in: n or N]         IntList ({1, 2}, a vector, or one integer, repeated
                                      to a fixed length N); n filled in
  const int64_t* [in: scalar-optional]  std::optional<int64_t>
  nb_tensor** [out: 1]                returned: a Tensor, or a std::tuple of them; an op that
                                      only writes its first tensor (nb_uniform_) returns it
  numbers, nb_generator*              themselves
Anything else (strings, buffers, callbacks, other handles) is left to nabla.h.
Trailing parameters take PyTorch's default when their name has one (DEFAULTS)."""
from __future__ import annotations

import re

DEFAULTS = {  # parameter name -> C++ default, applied to a trailing run of parameters
    "dst": "{}", "gen": "nullptr", "alpha": "1.0", "keepdim": "0", "dtype": "NB_DTYPE_DEFAULT",
    "reduction": "NB_REDUCTION_MEAN", "ignore_index": "NB_IGNORE_INDEX", "label_smoothing": "0.0",
    "bias": "{}", "device_type": "NB_CPU", "device_index": "0", "copy": "0", "retain_graph": "0",
    "create_graph": "0", "non_blocking": "0", "rounding_mode": "NB_ROUND_NONE", "dims": "{}", "dim?": "std::nullopt",
}
NUMBERS = {"int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "double",
           "float", "size_t"}
KEYWORDS = {"and", "or", "not", "xor", "bitand", "bitor", "compl", "new", "delete", "default", "template", "class",
            "register", "operator", "union", "this", "not_eq", "and_eq", "or_eq", "xor_eq", "export", "friend"}
# Tensor members written by hand (below): no generated method of these names.
MEMBERS = {"get", "release", "defined", "ndim", "shape", "numel", "dtype", "item", "grad", "backward",
           "requires_grad", "requires_grad_", "set_grad", "zero_grad", "retain", "to_vector"}


def _ident(name: str) -> str:
    return name + "_" if name in KEYWORDS else name


class Param:
    """One C parameter and how it crosses into C++."""

    def __init__(self, kind: str, ctype: str, name: str, length=None):
        self.kind, self.ctype, self.name, self.length = kind, ctype, name, length


def plan(fn: dict, handles: set[str]) -> list[Param] | None:
    """The C parameters of fn as Param kinds, or None when one does not map to C++."""
    if fn["returns"] != "nb_status":
        return None
    ptrs = fn.get("pointers", {})
    counted = {spec[1] for spec in ptrs.values() if spec[0] == "in" and isinstance(spec[1], str)}
    out = []
    for ctype, name in fn["params"]:
        spec = ptrs.get(name)
        flat = ctype.replace(" ", "")
        if name in counted and ctype in NUMBERS:
            out.append(Param("count", ctype, name))
        elif ctype in ("const nb_tensor*", "nb_tensor*"):
            out.append(Param("tensor", ctype, name))
        elif flat in ("constnb_tensor*const*", "nb_tensor*const*") and spec and spec[0] == "in":
            out.append(Param("tensors", ctype, name, spec[1]))
        elif ctype == "const int64_t*" and spec == ["in", "scalar-optional"]:
            out.append(Param("optint", ctype, name))
        elif ctype == "const int64_t*" and spec and spec[0] == "in":
            out.append(Param("ints", ctype, name, spec[1]))
        elif ctype == "nb_tensor**" and spec == ["out", 1]:
            out.append(Param("result", ctype, name))
        elif ctype == "nb_generator*":
            out.append(Param("generator", ctype, name))
        elif ctype in NUMBERS:
            out.append(Param("number", ctype, name))
        else:
            return None
    for p in out:  # an array whose count is shared with another array (nb_backward) is not mapped
        if p.kind in ("tensors", "ints") and isinstance(p.length, str):
            if sum(1 for q in out if q.kind in ("tensors", "ints") and q.length == p.length) > 1:
                return None
    return out


def _cpp_type(p: Param) -> str:
    return {"tensor": "const Tensor&", "tensors": "const std::vector<Tensor>&", "ints": "IntList",
            "optint": "std::optional<int64_t>", "generator": "nb_generator*"}.get(p.kind, p.ctype)


def _default(fn: dict, p: Param) -> str | None:
    if p.kind == "optint":
        return DEFAULTS["dim?"]
    if p.name == "weight" and p.kind == "tensor" and any(n == "reduction" for _, n in fn["params"]):
        return "{}"  # a loss's optional class weights
    if p.name == "dtype" and not ("(-1" in fn["doc"] or "NB_DTYPE_DEFAULT" in fn["doc"]):
        # an op without the sentinel: a factory takes the default dtype, a conversion has none
        takes_tensor = any(q.kind in ("tensor", "tensors") for q in _plan_cache[fn["name"]])
        return None if takes_tensor else "nb_get_default_dtype()"
    if p.name in ("device_type", "device_index", "copy") and any(q.kind == "tensor" for q in _plan_cache[fn["name"]]):
        return None  # a conversion states where to (PyTorch's to(dtype) keeps the device; this has no "keep")
    d = DEFAULTS.get(p.name)
    if d == "{}" and p.kind not in ("tensor", "ints"):
        return None
    if p.kind == "ints" and p.name != "dims":
        return None
    return d


_plan_cache: dict[str, list[Param]] = {}


def _signature(fn: dict, params: list[Param], skip_first: bool = False) -> str:
    _plan_cache[fn["name"]] = params
    shown = [p for p in params if p.kind not in ("count", "result")]
    defaults = [None] * len(shown)
    for i in range(len(shown) - 1, -1, -1):  # defaults form a trailing run
        d = _default(fn, shown[i])
        if d is None:
            break
        defaults[i] = d
    parts = [f"{_cpp_type(p)} {_ident(p.name)}" + (f" = {d}" if d else "") for p, d in zip(shown, defaults)]
    return ", ".join(parts[1:] if skip_first else parts)


def _in_place(fn: dict, params: list[Param]) -> bool:
    """An op that writes its first tensor and returns nothing (nb_uniform_): returns that tensor, as
    PyTorch's in-place methods return self, so that calls chain."""
    return (fn["name"].endswith("_") and not any(p.kind == "result" for p in params) and bool(params)
            and params[0].kind == "tensor" and params[0].ctype == "nb_tensor*")


def _returns(fn: dict, params: list[Param]) -> str:
    n = sum(1 for p in params if p.kind == "result")
    if n == 0:
        return "Tensor" if _in_place(fn, params) else "void"
    return "Tensor" if n == 1 else f"std::tuple<{', '.join(['Tensor'] * n)}>"


def _body(fn: dict, params: list[Param]) -> list[str]:
    lines, args = [], []
    results = [p for p in params if p.kind == "result"]
    for p in params:
        name = _ident(p.name)
        if p.kind == "tensor":
            args.append(f"{name}.get()")
        elif p.kind == "tensors":
            lines.append(f"    const auto {name}_h = detail::handles({name});")
            args.append(f"{name}_h.data()")
        elif p.kind == "ints":
            if isinstance(p.length, int):
                lines.append(f'    {name}.fixed({p.length}, "{fn["name"]}", "{p.name}");')
            args.append(f"{name}.data()")
        elif p.kind == "optint":
            args.append(f"{name} ? &*{name} : nullptr")
        elif p.kind == "count":
            src = next(q for q in params if q.kind in ("tensors", "ints") and q.length == p.name)
            size = f"{_ident(src.name)}.size()"
            args.append(f"static_cast<{p.ctype}>({size})")
        elif p.kind == "result":
            args.append(f"&{name}_out")
        else:
            args.append(name)
    if results:
        lines.append("    " + "; ".join(f"nb_tensor* {_ident(p.name)}_out = nullptr" for p in results) + ";")
    lines.append(f"    detail::check({fn['name']}({', '.join(args)}));")
    if _in_place(fn, params):
        lines.append(f"    return {_ident(params[0].name)};")
    if len(results) == 1:
        lines.append(f"    return Tensor({_ident(results[0].name)}_out);")
    elif results:
        lines.append("    return {" + ", ".join(f"Tensor({_ident(p.name)}_out)" for p in results) + "};")
    return lines


def _short_names(m: dict) -> dict[str, str]:
    """C++ names: nb_ dropped; nb_tensor_ dropped too unless that would shadow an op's name."""
    ops = {fn["name"][3:] for fn in m["ops"]}
    names = {}
    for fn in m["functions"] + m["ops"]:
        short = fn["name"][3:]
        if fn["name"].startswith("nb_tensor_") and fn["name"][10:] not in ops:
            short = fn["name"][10:]
        names[fn["name"]] = _ident(short)
    return names


def _mapped(m: dict) -> list[tuple[dict, list[Param], str]]:
    handles = {t["name"] for t in m["types"] if t["kind"] == "handle"}
    names, seen, out = _short_names(m), set(), []
    for fn in m["functions"] + m["ops"]:
        params = plan(fn, handles)
        name = names[fn["name"]]
        if params is None or name in seen or name in MEMBERS:
            continue
        seen.add(name)
        out.append((fn, params, name))
    return out


PRELUDE = r'''// nabla.hpp: the nabla C ABI as header-only C++17: an RAII Tensor, ops as functions and
// methods with PyTorch's defaults, operators, exceptions, a no-grad guard, optimizers and
// checkpoints.
//
// GENERATED from abi/nabla.json by abi/gen.py (abi/gen_cpp.py); do not edit. Every op of the
// manifest whose parameters map to C++ is here; the rest is in nabla.h, which this includes.
//
//     g++ -std=c++17 prog.cpp $(python -m nabla.config --cflags --libs) -o prog
#ifndef NABLA_HPP_
#define NABLA_HPP_

#include "nabla.h"

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace nabla {

/** A failed call: the C status and the thread's message (nb_last_error_message()). */
class Error : public std::runtime_error {
public:
    Error(nb_status status, const std::string& message) : std::runtime_error(message), status_(status) {}
    nb_status status() const noexcept { return status_; }
    const char* status_name() const noexcept { return nb_status_name(status_); }

private:
    nb_status status_;
};

namespace detail {
inline void check(nb_status status) {
    if (status != NB_OK) throw Error(status, nb_last_error_message());
}
}  // namespace detail

/** An int64_t array argument: {1, 2}, a std::vector, or one integer (repeated to an op's
 *  fixed length, as PyTorch's kernel_size=3 means (3, 3)). Default-constructed: not given. */
class IntList {
public:
    IntList() = default;
    IntList(std::initializer_list<int64_t> v) : v_(v), given_(true) {}
    IntList(const std::vector<int64_t>& v) : v_(v), given_(true) {}
    IntList(int64_t v) : v_{v}, given_(true), one_(true) {}
    const int64_t* data() const noexcept { return given_ ? v_.data() : nullptr; }
    std::size_t size() const noexcept { return v_.size(); }
    void fixed(std::size_t n, const char* fn, const char* arg) {
        if (!given_) return;
        if (one_) v_.assign(n, v_[0]);
        if (v_.size() != n) {
            throw Error(NB_ERR_INVALID_ARGUMENT, std::string(fn) + ": " + arg + " must have " + std::to_string(n) +
                                                     " elements, got " + std::to_string(v_.size()));
        }
    }

private:
    std::vector<int64_t> v_;
    bool given_ = false, one_ = false;
};

'''

TENSOR = r'''
/** One reference to an nb_tensor: copying retains, destruction releases. An empty Tensor
 *  passes as NULL (an optional argument not given). */
class Tensor {
public:
    Tensor() noexcept = default;
    /** Adopts a reference (as every nb_tensor** result hands out). */
    explicit Tensor(nb_tensor* handle) noexcept : h_(handle) {}
    Tensor(const Tensor& other) noexcept : h_(other.h_) { if (h_) nb_tensor_retain(h_); }
    Tensor(Tensor&& other) noexcept : h_(std::exchange(other.h_, nullptr)) {}
    Tensor& operator=(Tensor other) noexcept { std::swap(h_, other.h_); return *this; }
    ~Tensor() { if (h_) nb_tensor_release(h_); }

    nb_tensor* get() const noexcept { return h_; }
    /** Gives up the reference without releasing it. */
    nb_tensor* release() noexcept { return std::exchange(h_, nullptr); }
    bool defined() const noexcept { return h_ != nullptr; }
    explicit operator bool() const noexcept { return defined(); }

    int32_t ndim() const noexcept { return nb_tensor_ndim(h_); }
    std::vector<int64_t> shape() const {
        const int64_t* s = nb_tensor_shape(h_);
        return std::vector<int64_t>(s, s + ndim());
    }
    int64_t numel() const noexcept { return nb_tensor_numel(h_); }
    int32_t dtype() const noexcept { return nb_tensor_dtype(h_); }
    /** The value of a one-element tensor. */
    template <typename T = double>
    T item() const {
        if constexpr (std::is_floating_point_v<T>) {
            double v = 0;
            detail::check(nb_tensor_item_double(h_, &v));
            return static_cast<T>(v);
        } else {
            int64_t v = 0;
            detail::check(nb_tensor_item_int(h_, &v));
            return static_cast<T>(v);
        }
    }
    /** The elements, row-major, converted to T's dtype. */
    template <typename T>
    std::vector<T> to_vector() const;

    bool requires_grad() const noexcept { return nb_tensor_requires_grad(h_) != 0; }
    Tensor& requires_grad_(bool on = true) { detail::check(nb_tensor_set_requires_grad(h_, on)); return *this; }
    /** The accumulated gradient, or an empty Tensor. */
    Tensor grad() const {
        nb_tensor* g = nullptr;
        detail::check(nb_tensor_get_grad(h_, &g));
        return Tensor(g);
    }
    void set_grad(const Tensor& g) { detail::check(nb_tensor_set_grad(h_, g.get())); }
    void zero_grad() { set_grad(Tensor()); }
    void backward(const Tensor& gradient = {}, bool retain_graph = false, bool create_graph = false) const {
        detail::check(nb_tensor_backward(h_, gradient.get(), retain_graph, create_graph));
    }

    Tensor& operator+=(const Tensor& b);
    Tensor& operator-=(const Tensor& b);
    Tensor& operator*=(const Tensor& b);
    Tensor& operator/=(const Tensor& b);

    // ---- the ops whose first argument is a tensor (generated; see the free functions) ----'''

EPILOGUE = r'''
// ---- scalars, host data, operators ----

template <typename T> struct dtype_of;
template <> struct dtype_of<float> { static constexpr int32_t value = NB_F32; };
template <> struct dtype_of<double> { static constexpr int32_t value = NB_F64; };
template <> struct dtype_of<int32_t> { static constexpr int32_t value = NB_I32; };
template <> struct dtype_of<int64_t> { static constexpr int32_t value = NB_I64; };
template <> struct dtype_of<uint8_t> { static constexpr int32_t value = NB_U8; };

/** A Python-style number: a 0-dim wrapped scalar that yields to tensors in type promotion. */
inline Tensor scalar(double v) {
    nb_tensor* out = nullptr;
    detail::check(nb_scalar(v, 0, NB_F64, &out));
    return Tensor(out);
}

/** A tensor holding a copy of row-major host data. */
template <typename T>
Tensor from_vector(const std::vector<T>& data, IntList shape) {
    const auto n = static_cast<int32_t>(shape.size());
    nb_tensor* out = nullptr;
    detail::check(nb_tensor_from_host(data.data(), shape.data(), n, dtype_of<T>::value, NB_CPU, 0, &out));
    return Tensor(out);
}

template <typename T>
std::vector<T> Tensor::to_vector() const {
    Tensor t = nabla::to(*this, dtype_of<T>::value, NB_CPU, 0, 0);
    std::vector<T> v(static_cast<std::size_t>(t.numel()));
    detail::check(nb_tensor_copy_to_host(t.get(), v.data(), static_cast<int64_t>(v.size() * sizeof(T))));
    return v;
}

inline Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
inline Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
inline Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
inline Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
inline Tensor operator-(const Tensor& a) { return neg(a); }
inline Tensor operator+(const Tensor& a, double b) { return add(a, scalar(b)); }
inline Tensor operator-(const Tensor& a, double b) { return sub(a, scalar(b)); }
inline Tensor operator*(const Tensor& a, double b) { return mul(a, scalar(b)); }
inline Tensor operator/(const Tensor& a, double b) { return div(a, scalar(b)); }
inline Tensor operator+(double a, const Tensor& b) { return add(scalar(a), b); }
inline Tensor operator-(double a, const Tensor& b) { return sub(scalar(a), b); }
inline Tensor operator*(double a, const Tensor& b) { return mul(scalar(a), b); }
inline Tensor operator/(double a, const Tensor& b) { return div(scalar(a), b); }
inline Tensor operator==(const Tensor& a, const Tensor& b) { return eq(a, b); }
inline Tensor operator!=(const Tensor& a, const Tensor& b) { return ne(a, b); }
inline Tensor operator<(const Tensor& a, const Tensor& b) { return lt(a, b); }
inline Tensor operator>(const Tensor& a, const Tensor& b) { return gt(a, b); }
inline Tensor& Tensor::operator+=(const Tensor& b) { nabla::add(*this, b, 1.0, *this); return *this; }
inline Tensor& Tensor::operator-=(const Tensor& b) { nabla::sub(*this, b, 1.0, *this); return *this; }
inline Tensor& Tensor::operator*=(const Tensor& b) { nabla::mul(*this, b, *this); return *this; }
inline Tensor& Tensor::operator/=(const Tensor& b) { nabla::div(*this, b, NB_ROUND_NONE, *this); return *this; }

// ---- grad mode ----

/** Turns gradient recording off for its scope (PyTorch's torch::NoGradGuard). */
class NoGradGuard {
public:
    NoGradGuard() noexcept : prev_(nb_set_grad_enabled(0)) {}
    ~NoGradGuard() { nb_set_grad_enabled(prev_); }
    NoGradGuard(const NoGradGuard&) = delete;
    NoGradGuard& operator=(const NoGradGuard&) = delete;

private:
    int32_t prev_;
};

/** Runs f with gradient recording off; returns what f returns. */
template <typename F>
auto no_grad(F&& f) -> decltype(f()) {
    NoGradGuard guard;
    return f();
}

// ---- optimizers over the fused steps of the C ABI (nb_sgd_step, nb_adam_step) ----

namespace optim {

/** Steps read each parameter's .grad (nb_tensor_backward accumulates it) and run unrecorded. */
class Optimizer {
public:
    explicit Optimizer(std::vector<Tensor> params) : params_(std::move(params)) {}
    virtual ~Optimizer() = default;
    void zero_grad() {
        for (auto& p : params_) p.zero_grad();
    }
    void step() {
        NoGradGuard guard;
        ++steps_;
        for (std::size_t i = 0; i < params_.size(); i++) {
            Tensor g = params_[i].grad();
            if (g) update(i, g);
        }
    }
    const std::vector<Tensor>& params() const noexcept { return params_; }

protected:
    virtual void update(std::size_t i, const Tensor& grad) = 0;
    Tensor buffer_like(const Tensor& p) { return zeros(p.shape(), p.dtype(), nb_tensor_device_type(p.get()), 0); }
    std::vector<Tensor> params_;
    int64_t steps_ = 0;
};

/** PyTorch's SGD (momentum, dampening, weight decay, nesterov). */
class SGD : public Optimizer {
public:
    SGD(std::vector<Tensor> params, double lr, double momentum = 0, double dampening = 0,
        double weight_decay = 0, bool nesterov = false)
        : Optimizer(std::move(params)), lr_(lr), momentum_(momentum), dampening_(dampening),
          weight_decay_(weight_decay), nesterov_(nesterov), buf_(params_.size()) {}

private:
    void update(std::size_t i, const Tensor& g) override {
        const bool init = momentum_ != 0 && !buf_[i];
        if (init) buf_[i] = buffer_like(params_[i]);
        detail::check(nb_sgd_step(params_[i].get(), g.get(), buf_[i].get(), lr_, momentum_, dampening_,
                                  weight_decay_, nesterov_, 0, init));
    }
    double lr_, momentum_, dampening_, weight_decay_;
    bool nesterov_;
    std::vector<Tensor> buf_;
};

/** PyTorch's Adam (and AdamW with decoupled weight decay). */
class Adam : public Optimizer {
public:
    Adam(std::vector<Tensor> params, double lr = 1e-3, double beta1 = 0.9, double beta2 = 0.999,
         double eps = 1e-8, double weight_decay = 0, bool decoupled_weight_decay = false)
        : Optimizer(std::move(params)), lr_(lr), beta1_(beta1), beta2_(beta2), eps_(eps),
          weight_decay_(weight_decay), decoupled_(decoupled_weight_decay), m_(params_.size()), v_(params_.size()) {}

private:
    void update(std::size_t i, const Tensor& g) override {
        if (!m_[i]) m_[i] = buffer_like(params_[i]), v_[i] = buffer_like(params_[i]);
        detail::check(nb_adam_step(params_[i].get(), g.get(), m_[i].get(), v_[i].get(), nullptr, steps_, lr_,
                                   beta1_, beta2_, eps_, weight_decay_, decoupled_, 0, 0));
    }
    double lr_, beta1_, beta2_, eps_, weight_decay_;
    bool decoupled_;
    std::vector<Tensor> m_, v_;
};

}  // namespace optim

// ---- checkpoints (safetensors, nb_save / nb_load) ----

using TensorDict = std::map<std::string, Tensor>;

/** Writes named tensors and string metadata to a safetensors file. */
inline void save(const std::string& path, const TensorDict& tensors,
                 const std::map<std::string, std::string>& metadata = {}) {
    std::vector<const char*> names, keys, values;
    std::vector<nb_tensor*> handles;
    for (const auto& [name, t] : tensors) names.push_back(name.c_str()), handles.push_back(t.get());
    for (const auto& [k, v] : metadata) keys.push_back(k.c_str()), values.push_back(v.c_str());
    detail::check(nb_save(path.c_str(), names.data(), handles.data(), static_cast<int64_t>(handles.size()),
                          keys.data(), values.data(), static_cast<int64_t>(keys.size())));
}

/** Reads every tensor of a safetensors file. */
inline TensorDict load(const std::string& path) {
    nb_checkpoint* ck = nullptr;
    detail::check(nb_load(path.c_str(), &ck));
    TensorDict out;
    nb_status st = NB_OK;
    for (int64_t i = 0; st == NB_OK && i < nb_checkpoint_count(ck); i++) {
        nb_tensor* t = nullptr;
        st = nb_checkpoint_tensor(ck, i, &t);
        if (st == NB_OK) out.emplace(nb_checkpoint_name(ck, i), Tensor(t));
    }
    nb_checkpoint_release(ck);
    detail::check(st);
    return out;
}

}  // namespace nabla

#endif  // NABLA_HPP_
'''


def hpp(m: dict) -> str:
    mapped = _mapped(m)
    methods = [(fn, params, name) for fn, params, name in mapped if params and params[0].kind == "tensor"]
    lines = [PRELUDE, TENSOR]
    for fn, params, name in methods:
        lines.append(f"    {_returns(fn, params)} {name}({_signature(fn, params, skip_first=True)}) const;")
    lines += ["", "private:", "    nb_tensor* h_ = nullptr;", "};", "",
              "namespace detail {",
              "inline std::vector<nb_tensor*> handles(const std::vector<Tensor>& ts) {",
              "    std::vector<nb_tensor*> h;",
              "    h.reserve(ts.size());",
              "    for (const auto& t : ts) h.push_back(t.get());",
              "    return h;",
              "}",
              "}  // namespace detail", "",
              "// ---- every mapped function of the manifest ----", ""]
    for fn, params, name in mapped:
        lines.append(f"inline {_returns(fn, params)} {name}({_signature(fn, params)});")
    lines.append("")
    for fn, params, name in mapped:
        doc = re.sub(r"\s+", " ", fn["doc"]).replace("*/", "* /")
        lines.append(f"/** {doc} */")
        lines.append(f"inline {_returns(fn, params)} {name}({_no_defaults(_signature(fn, params))}) {{")
        lines += _body(fn, params)
        lines.append("}")
    lines.append("")
    for fn, params, name in methods:
        shown = [p for p in params if p.kind not in ("count", "result")]
        sig = _no_defaults(_signature(fn, params, skip_first=True))
        args = ", ".join(["*this"] + [_ident(p.name) for p in shown[1:]])
        ret = "" if _returns(fn, params) == "void" else "return "
        lines.append(f"inline {_returns(fn, params)} Tensor::{name}({sig}) const {{ {ret}nabla::{name}({args}); }}")
    lines.append(EPILOGUE)
    return "\n".join(lines)


def _no_defaults(sig: str) -> str:
    """A signature without its defaults (they are on the declaration)."""
    return re.sub(r" = [^,]*(?=,|$)", "", sig)
