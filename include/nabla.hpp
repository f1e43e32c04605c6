// nabla.hpp: the nabla C ABI as header-only C++17: an RAII Tensor, ops as functions and
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

    // ---- the ops whose first argument is a tensor (generated; see the free functions) ----
    Tensor view(IntList shape) const;
    Tensor reshape(IntList shape) const;
    Tensor permute(IntList dims = {}) const;
    Tensor transpose(int64_t dim0, int64_t dim1) const;
    Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
    Tensor slice(int64_t dim, int64_t start, int64_t end, int64_t step) const;
    Tensor select(int64_t dim, int64_t index) const;
    Tensor expand(IntList shape) const;
    Tensor squeeze(IntList dims = {}) const;
    Tensor unsqueeze(int64_t dim) const;
    Tensor flatten(int64_t start_dim, int64_t end_dim) const;
    Tensor contiguous() const;
    Tensor clone() const;
    Tensor to(int32_t dtype, int32_t device_type, int32_t device_index, int32_t copy) const;
    Tensor copy_(const Tensor& src) const;
    Tensor resize_(IntList shape) const;
    void resize_output(IntList shape) const;
    Tensor share_memory_() const;
    Tensor pin_memory() const;
    Tensor to_v2(int32_t dtype, int32_t device_type, int32_t device_index, int32_t copy, int32_t non_blocking = 0) const;
    Tensor copy_v2_(const Tensor& src, int32_t non_blocking = 0) const;
    void set_requires_grad(int32_t requires_grad) const;
    Tensor get_grad() const;
    void retain_grad() const;
    Tensor detach() const;
    Tensor detach_() const;
    void remove_hook(int64_t id) const;
    Tensor amp_update_scale_(const Tensor& growth_tracker, const Tensor& found_inf, double growth_factor, double backoff_factor, int64_t growth_interval) const;
    Tensor scaled_dot_product_attention(const Tensor& k, const Tensor& v, const Tensor& attn_mask, double dropout_p, int32_t is_causal, double scale, nb_generator* gen = nullptr) const;
    Tensor add(const Tensor& b, double alpha = 1.0, const Tensor& dst = {}) const;
    Tensor sub(const Tensor& b, double alpha = 1.0, const Tensor& dst = {}) const;
    Tensor mul(const Tensor& b, const Tensor& dst = {}) const;
    Tensor div(const Tensor& b, int32_t rounding_mode = NB_ROUND_NONE, const Tensor& dst = {}) const;
    Tensor floor_divide(const Tensor& b, const Tensor& dst = {}) const;
    Tensor remainder(const Tensor& b, const Tensor& dst = {}) const;
    Tensor fmod(const Tensor& b, const Tensor& dst = {}) const;
    Tensor pow(const Tensor& b, const Tensor& dst = {}) const;
    Tensor maximum(const Tensor& b, const Tensor& dst = {}) const;
    Tensor minimum(const Tensor& b, const Tensor& dst = {}) const;
    Tensor atan2(const Tensor& b, const Tensor& dst = {}) const;
    Tensor igamma(const Tensor& b, const Tensor& dst = {}) const;
    Tensor igammac(const Tensor& b, const Tensor& dst = {}) const;
    Tensor nextafter(const Tensor& b, const Tensor& dst = {}) const;
    Tensor eq(const Tensor& b, const Tensor& dst = {}) const;
    Tensor ne(const Tensor& b, const Tensor& dst = {}) const;
    Tensor lt(const Tensor& b, const Tensor& dst = {}) const;
    Tensor le(const Tensor& b, const Tensor& dst = {}) const;
    Tensor gt(const Tensor& b, const Tensor& dst = {}) const;
    Tensor ge(const Tensor& b, const Tensor& dst = {}) const;
    Tensor logical_and(const Tensor& b, const Tensor& dst = {}) const;
    Tensor logical_or(const Tensor& b, const Tensor& dst = {}) const;
    Tensor logical_xor(const Tensor& b, const Tensor& dst = {}) const;
    Tensor bitwise_and(const Tensor& b, const Tensor& dst = {}) const;
    Tensor bitwise_or(const Tensor& b, const Tensor& dst = {}) const;
    Tensor bitwise_xor(const Tensor& b, const Tensor& dst = {}) const;
    Tensor bitwise_left_shift(const Tensor& b, const Tensor& dst = {}) const;
    Tensor bitwise_right_shift(const Tensor& b, const Tensor& dst = {}) const;
    Tensor gather(int64_t dim, const Tensor& index) const;
    Tensor scatter(int64_t dim, const Tensor& index, const Tensor& src, const Tensor& dst = {}) const;
    Tensor scatter_value(int64_t dim, const Tensor& index, const Tensor& value, const Tensor& dst = {}) const;
    Tensor scatter_add(int64_t dim, const Tensor& index, const Tensor& src, const Tensor& dst = {}) const;
    Tensor scatter_reduce(int64_t dim, const Tensor& index, const Tensor& src, int32_t reduce, int32_t include_self, const Tensor& dst = {}) const;
    Tensor index_select(int64_t dim, const Tensor& index) const;
    Tensor index_add(int64_t dim, const Tensor& index, const Tensor& source, double alpha = 1.0, const Tensor& dst = {}) const;
    Tensor masked_fill(const Tensor& mask, const Tensor& value, const Tensor& dst = {}) const;
    Tensor masked_select(const Tensor& mask) const;
    Tensor nonzero() const;
    Tensor take_along_dim(const Tensor& indices, int64_t dim, int32_t has_dim) const;
    Tensor one_hot(int64_t num_classes) const;
    Tensor index(const std::vector<Tensor>& indices) const;
    Tensor index_put(const std::vector<Tensor>& indices, const Tensor& values, int32_t accumulate, const Tensor& dst = {}) const;
    Tensor matmul(const Tensor& b, const Tensor& dst = {}) const;
    Tensor mm(const Tensor& b, const Tensor& dst = {}) const;
    Tensor bmm(const Tensor& b, const Tensor& dst = {}) const;
    Tensor mv(const Tensor& v, const Tensor& dst = {}) const;
    Tensor dot(const Tensor& b, const Tensor& dst = {}) const;
    Tensor outer(const Tensor& b, const Tensor& dst = {}) const;
    Tensor addmm(const Tensor& mat1, const Tensor& mat2, double beta, double alpha = 1.0, const Tensor& dst = {}) const;
    Tensor baddbmm(const Tensor& batch1, const Tensor& batch2, double beta, double alpha = 1.0, const Tensor& dst = {}) const;
    Tensor linear(const Tensor& weight, const Tensor& bias = {}, const Tensor& dst = {}) const;
    Tensor linalg_inv() const;
    Tensor linalg_solve(const Tensor& B, int32_t left) const;
    Tensor linalg_det() const;
    std::tuple<Tensor, Tensor> linalg_slogdet() const;
    Tensor linalg_cholesky(int32_t upper) const;
    std::tuple<Tensor, Tensor> linalg_qr(int32_t mode) const;
    std::tuple<Tensor, Tensor> linalg_eigh(int32_t upper) const;
    std::tuple<Tensor, Tensor, Tensor> linalg_svd(int32_t full_matrices) const;
    std::tuple<Tensor, Tensor> linalg_inv_ex() const;
    std::tuple<Tensor, Tensor> linalg_solve_ex(const Tensor& B, int32_t left) const;
    std::tuple<Tensor, Tensor> linalg_cholesky_ex(int32_t upper) const;
    Tensor linalg_solve_triangular(const Tensor& B, int32_t upper, int32_t left, int32_t unitriangular) const;
    std::tuple<Tensor, Tensor, Tensor> linalg_ldl_factor_ex(int32_t hermitian) const;
    Tensor linalg_ldl_solve(const Tensor& pivots, const Tensor& B, int32_t hermitian) const;
    Tensor conv1d(const Tensor& weight, const Tensor& bias, int64_t stride, int64_t padding_left, int64_t padding_right, int64_t dilation, int64_t groups, const Tensor& dst = {}) const;
    Tensor conv2d(const Tensor& weight, const Tensor& bias, IntList stride, IntList padding, IntList dilation, int64_t groups, const Tensor& dst = {}) const;
    Tensor conv_transpose2d(const Tensor& weight, const Tensor& bias, IntList stride, IntList padding, IntList output_padding, IntList dilation, int64_t groups, const Tensor& dst = {}) const;
    std::tuple<Tensor, Tensor> max_pool2d(IntList kernel_size, IntList stride, IntList padding, IntList dilation, int32_t ceil_mode, const Tensor& dst = {}) const;
    Tensor avg_pool2d(IntList kernel_size, IntList stride, IntList padding, int32_t ceil_mode, int32_t count_include_pad, int64_t divisor_override, const Tensor& dst = {}) const;
    Tensor adaptive_avg_pool2d(IntList output_size, const Tensor& dst = {}) const;
    Tensor layer_norm(IntList normalized_shape, const Tensor& weight, const Tensor& bias, double eps, const Tensor& dst = {}) const;
    Tensor batch_norm(const Tensor& running_mean, const Tensor& running_var, const Tensor& weight, const Tensor& bias, int32_t training, double momentum, double eps, const Tensor& dst = {}) const;
    Tensor group_norm(int64_t num_groups, const Tensor& weight, const Tensor& bias, double eps, const Tensor& dst = {}) const;
    Tensor nll_loss(const Tensor& target, const Tensor& weight = {}, int64_t ignore_index = NB_IGNORE_INDEX, int32_t reduction = NB_REDUCTION_MEAN, const Tensor& dst = {}) const;
    Tensor cross_entropy(const Tensor& target, const Tensor& weight = {}, int64_t ignore_index = NB_IGNORE_INDEX, int32_t reduction = NB_REDUCTION_MEAN, double label_smoothing = 0.0, const Tensor& dst = {}) const;
    Tensor mse_loss(const Tensor& target, const Tensor& weight = {}, int32_t reduction = NB_REDUCTION_MEAN, const Tensor& dst = {}) const;
    Tensor l1_loss(const Tensor& target, const Tensor& weight = {}, int32_t reduction = NB_REDUCTION_MEAN, const Tensor& dst = {}) const;
    Tensor smooth_l1_loss(const Tensor& target, int32_t reduction, double beta, const Tensor& dst = {}) const;
    Tensor huber_loss(const Tensor& target, const Tensor& weight, int32_t reduction, double delta, const Tensor& dst = {}) const;
    Tensor binary_cross_entropy(const Tensor& target, const Tensor& weight = {}, int32_t reduction = NB_REDUCTION_MEAN, const Tensor& dst = {}) const;
    Tensor binary_cross_entropy_with_logits(const Tensor& target, const Tensor& weight, const Tensor& pos_weight, int32_t reduction = NB_REDUCTION_MEAN, const Tensor& dst = {}) const;
    Tensor kl_div(const Tensor& target, int32_t reduction, int32_t log_target, const Tensor& dst = {}) const;
    Tensor embedding(const Tensor& indices, int64_t padding_idx, const Tensor& dst = {}) const;
    Tensor pad(IntList pad, int32_t mode, double value, const Tensor& dst = {}) const;
    Tensor conv2d_backward_input(const Tensor& weight, IntList input_size, IntList stride, IntList padding, IntList dilation, int64_t groups, const Tensor& dst = {}) const;
    Tensor conv2d_backward_weight(const Tensor& input, IntList kernel_size, IntList stride, IntList padding, IntList dilation, int64_t groups, const Tensor& dst = {}) const;
    Tensor max_pool2d_backward(const Tensor& indices, IntList input_size, const Tensor& dst = {}) const;
    Tensor avg_pool2d_backward(IntList input_size, IntList kernel_size, IntList stride, IntList padding, int32_t count_include_pad, int64_t divisor_override, const Tensor& dst = {}) const;
    Tensor adaptive_avg_pool2d_backward(IntList input_size, const Tensor& dst = {}) const;
    std::tuple<Tensor, Tensor, Tensor> layer_norm_backward(const Tensor& input, IntList normalized_shape, const Tensor& weight, double eps, const Tensor& dst = {}) const;
    std::tuple<Tensor, Tensor, Tensor> batch_norm_backward(const Tensor& input, const Tensor& weight, double eps, const Tensor& dst = {}) const;
    std::tuple<Tensor, Tensor, Tensor> group_norm_backward(const Tensor& input, int64_t num_groups, const Tensor& weight, double eps, const Tensor& dst = {}) const;
    Tensor embedding_dense_backward(const Tensor& indices, int64_t num_weights, int64_t padding_idx, int32_t scale_grad_by_freq, const Tensor& dst = {}) const;
    Tensor gelu_backward(const Tensor& input, int32_t approximate_tanh, const Tensor& dst = {}) const;
    void sgd_step(const Tensor& grad, const Tensor& momentum_buffer, double lr, double momentum, double dampening, double weight_decay, int32_t nesterov, int32_t maximize, int32_t init_buffer) const;
    void adam_step(const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq, const Tensor& max_exp_avg_sq, int64_t step, double lr, double beta1, double beta2, double eps, double weight_decay, int32_t decoupled_weight_decay, int32_t amsgrad, int32_t maximize) const;
    void rmsprop_step(const Tensor& grad, const Tensor& square_avg, const Tensor& grad_avg, const Tensor& momentum_buffer, double lr, double alpha, double eps, double weight_decay, double momentum, int32_t centered, int32_t maximize) const;
    void adagrad_step(const Tensor& grad, const Tensor& state_sum, int64_t step, double lr, double lr_decay, double eps, double weight_decay, int32_t maximize) const;
    Tensor uniform_(double from, double to, nb_generator* gen = nullptr) const;
    Tensor normal_(double mean, double std, nb_generator* gen = nullptr) const;
    Tensor random_(int64_t low, int64_t high_inclusive, nb_generator* gen = nullptr) const;
    Tensor bernoulli(nb_generator* gen = nullptr, const Tensor& dst = {}) const;
    Tensor multinomial(int64_t num_samples, int32_t replacement, nb_generator* gen = nullptr, const Tensor& dst = {}) const;
    Tensor dropout(double p, int32_t train, nb_generator* gen = nullptr, const Tensor& dst = {}) const;
    Tensor sum(IntList dims = {}, int32_t keepdim = 0, int32_t dtype = NB_DTYPE_DEFAULT, const Tensor& dst = {}) const;
    Tensor mean(IntList dims = {}, int32_t keepdim = 0, int32_t dtype = NB_DTYPE_DEFAULT, const Tensor& dst = {}) const;
    Tensor prod(IntList dims = {}, int32_t keepdim = 0, int32_t dtype = NB_DTYPE_DEFAULT, const Tensor& dst = {}) const;
    Tensor amax(IntList dims = {}, int32_t keepdim = 0, const Tensor& dst = {}) const;
    Tensor amin(IntList dims = {}, int32_t keepdim = 0, const Tensor& dst = {}) const;
    std::tuple<Tensor, Tensor> max_dim(int64_t dim, int32_t keepdim, const Tensor& dst_values, const Tensor& dst_indices) const;
    std::tuple<Tensor, Tensor> min_dim(int64_t dim, int32_t keepdim, const Tensor& dst_values, const Tensor& dst_indices) const;
    Tensor argmax(std::optional<int64_t> dim = std::nullopt, int32_t keepdim = 0, const Tensor& dst = {}) const;
    Tensor argmin(std::optional<int64_t> dim = std::nullopt, int32_t keepdim = 0, const Tensor& dst = {}) const;
    Tensor var(IntList dims, double correction, int32_t keepdim = 0, const Tensor& dst = {}) const;
    Tensor std(IntList dims, double correction, int32_t keepdim = 0, const Tensor& dst = {}) const;
    Tensor norm(double p, IntList dims = {}, int32_t keepdim = 0, int32_t dtype = NB_DTYPE_DEFAULT, const Tensor& dst = {}) const;
    Tensor logsumexp(IntList dims = {}, int32_t keepdim = 0, const Tensor& dst = {}) const;
    Tensor all(IntList dims = {}, int32_t keepdim = 0, const Tensor& dst = {}) const;
    Tensor any(IntList dims = {}, int32_t keepdim = 0, const Tensor& dst = {}) const;
    Tensor cumsum(int64_t dim, int32_t dtype = NB_DTYPE_DEFAULT, const Tensor& dst = {}) const;
    Tensor cumprod(int64_t dim, int32_t dtype = NB_DTYPE_DEFAULT, const Tensor& dst = {}) const;
    Tensor softmax(int64_t dim, int32_t dtype = NB_DTYPE_DEFAULT, const Tensor& dst = {}) const;
    Tensor log_softmax(int64_t dim, int32_t dtype = NB_DTYPE_DEFAULT, const Tensor& dst = {}) const;
    Tensor flip(IntList dims = {}) const;
    Tensor roll(IntList shifts, IntList dims = {}) const;
    Tensor repeat(IntList repeats) const;
    Tensor tril(int64_t diagonal, const Tensor& dst = {}) const;
    Tensor triu(int64_t diagonal, const Tensor& dst = {}) const;
    std::tuple<Tensor, Tensor> sort(int64_t dim, int32_t descending, int32_t stable) const;
    Tensor argsort(int64_t dim, int32_t descending, int32_t stable) const;
    Tensor searchsorted(const Tensor& values, int32_t right, int32_t out_int32) const;
    std::tuple<Tensor, Tensor> topk(int64_t k, int64_t dim, int32_t largest, int32_t sorted) const;
    std::tuple<Tensor, Tensor, Tensor> unique(int32_t sorted) const;
    std::tuple<Tensor, Tensor, Tensor> unique_dim(int64_t dim, int32_t sorted) const;
    std::tuple<Tensor, Tensor, Tensor> unique_consecutive(int64_t dim, int32_t has_dim) const;
    Tensor softmax_backward(const Tensor& output, int64_t dim, const Tensor& dst = {}) const;
    Tensor log_softmax_backward(const Tensor& output, int64_t dim, const Tensor& dst = {}) const;
    Tensor exp(const Tensor& dst = {}) const;
    Tensor exp2(const Tensor& dst = {}) const;
    Tensor expm1(const Tensor& dst = {}) const;
    Tensor log(const Tensor& dst = {}) const;
    Tensor log2(const Tensor& dst = {}) const;
    Tensor log10(const Tensor& dst = {}) const;
    Tensor log1p(const Tensor& dst = {}) const;
    Tensor sqrt(const Tensor& dst = {}) const;
    Tensor rsqrt(const Tensor& dst = {}) const;
    Tensor sin(const Tensor& dst = {}) const;
    Tensor cos(const Tensor& dst = {}) const;
    Tensor tan(const Tensor& dst = {}) const;
    Tensor asin(const Tensor& dst = {}) const;
    Tensor acos(const Tensor& dst = {}) const;
    Tensor atan(const Tensor& dst = {}) const;
    Tensor sinh(const Tensor& dst = {}) const;
    Tensor cosh(const Tensor& dst = {}) const;
    Tensor tanh(const Tensor& dst = {}) const;
    Tensor sigmoid(const Tensor& dst = {}) const;
    Tensor erf(const Tensor& dst = {}) const;
    Tensor erfc(const Tensor& dst = {}) const;
    Tensor reciprocal(const Tensor& dst = {}) const;
    Tensor silu(const Tensor& dst = {}) const;
    Tensor gelu(int32_t approximate_tanh, const Tensor& dst = {}) const;
    Tensor leaky_relu(double negative_slope, const Tensor& dst = {}) const;
    Tensor elu(double alpha = 1.0, const Tensor& dst = {}) const;
    Tensor softplus(double beta, double threshold, const Tensor& dst = {}) const;
    Tensor neg(const Tensor& dst = {}) const;
    Tensor abs(const Tensor& dst = {}) const;
    Tensor sign(const Tensor& dst = {}) const;
    Tensor relu(const Tensor& dst = {}) const;
    Tensor square(const Tensor& dst = {}) const;
    Tensor floor(const Tensor& dst = {}) const;
    Tensor ceil(const Tensor& dst = {}) const;
    Tensor round(const Tensor& dst = {}) const;
    Tensor trunc(const Tensor& dst = {}) const;
    Tensor bitwise_not(const Tensor& dst = {}) const;
    Tensor logical_not(const Tensor& dst = {}) const;
    Tensor isnan(const Tensor& dst = {}) const;
    Tensor isinf(const Tensor& dst = {}) const;
    Tensor isfinite(const Tensor& dst = {}) const;
    Tensor nan_to_num(double nan, double posinf, double neginf, const Tensor& dst = {}) const;
    Tensor clamp(double min, double max, const Tensor& dst = {}) const;
    Tensor where(const Tensor& a, const Tensor& b, const Tensor& dst = {}) const;

private:
    nb_tensor* h_ = nullptr;
};

namespace detail {
inline std::vector<nb_tensor*> handles(const std::vector<Tensor>& ts) {
    std::vector<nb_tensor*> h;
    h.reserve(ts.size());
    for (const auto& t : ts) h.push_back(t.get());
    return h;
}
}  // namespace detail

// ---- every mapped function of the manifest ----

inline void last_error_status();
inline void set_num_threads(int32_t n);
inline void set_default_dtype(int32_t dtype = nb_get_default_dtype());
inline Tensor empty(IntList shape, int32_t dtype = nb_get_default_dtype(), int32_t device_type = NB_CPU, int32_t device_index = 0);
inline Tensor zeros(IntList shape, int32_t dtype = nb_get_default_dtype(), int32_t device_type = NB_CPU, int32_t device_index = 0);
inline Tensor ones(IntList shape, int32_t dtype = nb_get_default_dtype(), int32_t device_type = NB_CPU, int32_t device_index = 0);
inline Tensor full(IntList shape, double value, int32_t dtype = nb_get_default_dtype(), int32_t device_type = NB_CPU, int32_t device_index = 0);
inline Tensor full_int(IntList shape, int64_t value, int32_t dtype = nb_get_default_dtype(), int32_t device_type = NB_CPU, int32_t device_index = 0);
inline Tensor arange(double start, double end, double step, int32_t dtype = nb_get_default_dtype(), int32_t device_type = NB_CPU, int32_t device_index = 0);
inline Tensor linspace(double start, double end, int64_t steps, int32_t dtype = nb_get_default_dtype(), int32_t device_type = NB_CPU, int32_t device_index = 0);
inline Tensor eye(int64_t n, int64_t m, int32_t dtype = nb_get_default_dtype(), int32_t device_type = NB_CPU, int32_t device_index = 0);
inline Tensor scalar(double fvalue, int64_t ivalue, int32_t dtype = nb_get_default_dtype());
inline Tensor view(const Tensor& t, IntList shape);
inline Tensor reshape(const Tensor& t, IntList shape);
inline Tensor permute(const Tensor& t, IntList dims = {});
inline Tensor transpose(const Tensor& t, int64_t dim0, int64_t dim1);
inline Tensor narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length);
inline Tensor slice(const Tensor& t, int64_t dim, int64_t start, int64_t end, int64_t step);
inline Tensor select(const Tensor& t, int64_t dim, int64_t index);
inline Tensor expand(const Tensor& t, IntList shape);
inline Tensor squeeze(const Tensor& t, IntList dims = {});
inline Tensor unsqueeze(const Tensor& t, int64_t dim);
inline Tensor flatten(const Tensor& t, int64_t start_dim, int64_t end_dim);
inline Tensor contiguous(const Tensor& t);
inline Tensor clone(const Tensor& t);
inline Tensor to(const Tensor& t, int32_t dtype, int32_t device_type, int32_t device_index, int32_t copy);
inline Tensor copy_(const Tensor& dst, const Tensor& src);
inline Tensor resize_(const Tensor& t, IntList shape);
inline void resize_output(const Tensor& t, IntList shape);
inline Tensor share_memory_(const Tensor& t);
inline Tensor empty_shared(IntList shape, int32_t dtype = nb_get_default_dtype());
inline void memory_reset_peak(int32_t device_type = NB_CPU, int32_t device_index = 0);
inline void memory_empty_cache(int32_t device_type = NB_CPU, int32_t device_index = 0);
inline Tensor pin_memory(const Tensor& t);
inline Tensor to_v2(const Tensor& t, int32_t dtype, int32_t device_type, int32_t device_index, int32_t copy, int32_t non_blocking = 0);
inline Tensor copy_v2_(const Tensor& dst, const Tensor& src, int32_t non_blocking = 0);
inline void profiler_start(int32_t flags);
inline void profiler_stop();
inline void profiler_range_pop();
inline void autocast_set_enabled(int32_t device_type, int32_t enabled);
inline void autocast_set_dtype(int32_t device_type = NB_CPU, int32_t dtype = nb_get_default_dtype());
inline void device_set_current(int32_t device_type = NB_CPU, int32_t device_index = 0);
inline void device_synchronize(int32_t device_type = NB_CPU, int32_t device_index = 0);
inline void set_requires_grad(const Tensor& t, int32_t requires_grad);
inline Tensor get_grad(const Tensor& t);
inline void retain_grad(const Tensor& t);
inline Tensor detach(const Tensor& t);
inline Tensor detach_(const Tensor& t);
inline void remove_hook(const Tensor& t, int64_t id);
inline void saved_tensors_hooks_pop();
inline void comm_finalize();
inline void amp_foreach_non_finite_check_and_unscale_(const std::vector<Tensor>& grads, const Tensor& found_inf, const Tensor& inv_scale);
inline Tensor amp_update_scale_(const Tensor& scale, const Tensor& growth_tracker, const Tensor& found_inf, double growth_factor, double backoff_factor, int64_t growth_interval);
inline Tensor scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& attn_mask, double dropout_p, int32_t is_causal, double scale, nb_generator* gen = nullptr);
inline Tensor add(const Tensor& a, const Tensor& b, double alpha = 1.0, const Tensor& dst = {});
inline Tensor sub(const Tensor& a, const Tensor& b, double alpha = 1.0, const Tensor& dst = {});
inline Tensor mul(const Tensor& a, const Tensor& b, const Tensor& dst = {});
inline Tensor div(const Tensor& a, const Tensor& b, int32_t rounding_mode = NB_ROUND_NONE, const Tensor& dst = {});
inline Tensor floor_divide(const Tensor& a, const Tensor& b, const Tensor& dst = {});
inline Tensor remainder(const Tensor& a, const Tensor& b, const Tensor& dst = {});
inline Tensor fmod(const Tensor& a, const Tensor& b, const Tensor& dst = {});
inline Tensor pow(const Tensor& a, const Tensor& b, const Tensor& dst = {});
inline Tensor maximum(const Tensor& a, const Tensor& b, const Tensor& dst = {});
inline Tensor minimum(const Tensor& a, const Tensor& b, const Tensor& dst = {});
inline Tensor atan2(const Tensor& a, const Tensor& b, const Tensor& dst = {});
inline Tensor igamma(const Tensor& a, const Tensor& b, const Tensor& dst = {});
inline Tensor igammac(const Tensor& a, const Tensor& b, const Tensor& dst = {});
inline Tensor nextafter(const Tensor& a, const Tensor& b, const Tensor& dst = {});
inline Tensor eq(const Tensor& a, const Tensor& b, const Tensor& dst = {});
inline Tensor ne(const Tensor& a, const Tensor& b, const Tensor& dst = {});
inline Tensor lt(const Tensor& a, const Tensor& b, const Tensor& dst = {});
inline Tensor le(const Tensor& a, const Tensor& b, const Tensor& dst = {});
inline Tensor gt(const Tensor& a, const Tensor& b, const Tensor& dst = {});
inline Tensor ge(const Tensor& a, const Tensor& b, const Tensor& dst = {});
inline Tensor logical_and(const Tensor& a, const Tensor& b, const Tensor& dst = {});
inline Tensor logical_or(const Tensor& a, const Tensor& b, const Tensor& dst = {});
inline Tensor logical_xor(const Tensor& a, const Tensor& b, const Tensor& dst = {});
inline Tensor bitwise_and(const Tensor& a, const Tensor& b, const Tensor& dst = {});
inline Tensor bitwise_or(const Tensor& a, const Tensor& b, const Tensor& dst = {});
inline Tensor bitwise_xor(const Tensor& a, const Tensor& b, const Tensor& dst = {});
inline Tensor bitwise_left_shift(const Tensor& a, const Tensor& b, const Tensor& dst = {});
inline Tensor bitwise_right_shift(const Tensor& a, const Tensor& b, const Tensor& dst = {});
inline Tensor gather(const Tensor& x, int64_t dim, const Tensor& index);
inline Tensor scatter(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src, const Tensor& dst = {});
inline Tensor scatter_value(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& value, const Tensor& dst = {});
inline Tensor scatter_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src, const Tensor& dst = {});
inline Tensor scatter_reduce(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src, int32_t reduce, int32_t include_self, const Tensor& dst = {});
inline Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index);
inline Tensor index_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source, double alpha = 1.0, const Tensor& dst = {});
inline Tensor masked_fill(const Tensor& x, const Tensor& mask, const Tensor& value, const Tensor& dst = {});
inline Tensor masked_select(const Tensor& x, const Tensor& mask);
inline Tensor nonzero(const Tensor& x);
inline Tensor take_along_dim(const Tensor& x, const Tensor& indices, int64_t dim, int32_t has_dim);
inline Tensor one_hot(const Tensor& x, int64_t num_classes);
inline Tensor index(const Tensor& x, const std::vector<Tensor>& indices);
inline Tensor index_put(const Tensor& x, const std::vector<Tensor>& indices, const Tensor& values, int32_t accumulate, const Tensor& dst = {});
inline Tensor matmul(const Tensor& a, const Tensor& b, const Tensor& dst = {});
inline Tensor mm(const Tensor& a, const Tensor& b, const Tensor& dst = {});
inline Tensor bmm(const Tensor& a, const Tensor& b, const Tensor& dst = {});
inline Tensor mv(const Tensor& a, const Tensor& v, const Tensor& dst = {});
inline Tensor dot(const Tensor& a, const Tensor& b, const Tensor& dst = {});
inline Tensor outer(const Tensor& a, const Tensor& b, const Tensor& dst = {});
inline Tensor addmm(const Tensor& input, const Tensor& mat1, const Tensor& mat2, double beta, double alpha = 1.0, const Tensor& dst = {});
inline Tensor baddbmm(const Tensor& input, const Tensor& batch1, const Tensor& batch2, double beta, double alpha = 1.0, const Tensor& dst = {});
inline Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = {}, const Tensor& dst = {});
inline Tensor linalg_inv(const Tensor& A);
inline Tensor linalg_solve(const Tensor& A, const Tensor& B, int32_t left);
inline Tensor linalg_det(const Tensor& A);
inline std::tuple<Tensor, Tensor> linalg_slogdet(const Tensor& A);
inline Tensor linalg_cholesky(const Tensor& A, int32_t upper);
inline std::tuple<Tensor, Tensor> linalg_qr(const Tensor& A, int32_t mode);
inline std::tuple<Tensor, Tensor> linalg_eigh(const Tensor& A, int32_t upper);
inline std::tuple<Tensor, Tensor, Tensor> linalg_svd(const Tensor& A, int32_t full_matrices);
inline std::tuple<Tensor, Tensor> linalg_inv_ex(const Tensor& A);
inline std::tuple<Tensor, Tensor> linalg_solve_ex(const Tensor& A, const Tensor& B, int32_t left);
inline std::tuple<Tensor, Tensor> linalg_cholesky_ex(const Tensor& A, int32_t upper);
inline Tensor linalg_solve_triangular(const Tensor& A, const Tensor& B, int32_t upper, int32_t left, int32_t unitriangular);
inline std::tuple<Tensor, Tensor, Tensor> linalg_ldl_factor_ex(const Tensor& A, int32_t hermitian);
inline Tensor linalg_ldl_solve(const Tensor& LD, const Tensor& pivots, const Tensor& B, int32_t hermitian);
inline Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias, int64_t stride, int64_t padding_left, int64_t padding_right, int64_t dilation, int64_t groups, const Tensor& dst = {});
inline Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntList stride, IntList padding, IntList dilation, int64_t groups, const Tensor& dst = {});
inline Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntList stride, IntList padding, IntList output_padding, IntList dilation, int64_t groups, const Tensor& dst = {});
inline std::tuple<Tensor, Tensor> max_pool2d(const Tensor& input, IntList kernel_size, IntList stride, IntList padding, IntList dilation, int32_t ceil_mode, const Tensor& dst = {});
inline Tensor avg_pool2d(const Tensor& input, IntList kernel_size, IntList stride, IntList padding, int32_t ceil_mode, int32_t count_include_pad, int64_t divisor_override, const Tensor& dst = {});
inline Tensor adaptive_avg_pool2d(const Tensor& input, IntList output_size, const Tensor& dst = {});
inline Tensor layer_norm(const Tensor& input, IntList normalized_shape, const Tensor& weight, const Tensor& bias, double eps, const Tensor& dst = {});
inline Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight, const Tensor& bias, int32_t training, double momentum, double eps, const Tensor& dst = {});
inline Tensor group_norm(const Tensor& input, int64_t num_groups, const Tensor& weight, const Tensor& bias, double eps, const Tensor& dst = {});
inline Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight = {}, int64_t ignore_index = NB_IGNORE_INDEX, int32_t reduction = NB_REDUCTION_MEAN, const Tensor& dst = {});
inline Tensor cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight = {}, int64_t ignore_index = NB_IGNORE_INDEX, int32_t reduction = NB_REDUCTION_MEAN, double label_smoothing = 0.0, const Tensor& dst = {});
inline Tensor mse_loss(const Tensor& input, const Tensor& target, const Tensor& weight = {}, int32_t reduction = NB_REDUCTION_MEAN, const Tensor& dst = {});
inline Tensor l1_loss(const Tensor& input, const Tensor& target, const Tensor& weight = {}, int32_t reduction = NB_REDUCTION_MEAN, const Tensor& dst = {});
inline Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, int32_t reduction, double beta, const Tensor& dst = {});
inline Tensor huber_loss(const Tensor& input, const Tensor& target, const Tensor& weight, int32_t reduction, double delta, const Tensor& dst = {});
inline Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight = {}, int32_t reduction = NB_REDUCTION_MEAN, const Tensor& dst = {});
inline Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target, const Tensor& weight, const Tensor& pos_weight, int32_t reduction = NB_REDUCTION_MEAN, const Tensor& dst = {});
inline Tensor kl_div(const Tensor& input, const Tensor& target, int32_t reduction, int32_t log_target, const Tensor& dst = {});
inline Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx, const Tensor& dst = {});
inline Tensor pad(const Tensor& input, IntList pad, int32_t mode, double value, const Tensor& dst = {});
inline Tensor conv2d_backward_input(const Tensor& grad_output, const Tensor& weight, IntList input_size, IntList stride, IntList padding, IntList dilation, int64_t groups, const Tensor& dst = {});
inline Tensor conv2d_backward_weight(const Tensor& grad_output, const Tensor& input, IntList kernel_size, IntList stride, IntList padding, IntList dilation, int64_t groups, const Tensor& dst = {});
inline Tensor max_pool2d_backward(const Tensor& grad_output, const Tensor& indices, IntList input_size, const Tensor& dst = {});
inline Tensor avg_pool2d_backward(const Tensor& grad_output, IntList input_size, IntList kernel_size, IntList stride, IntList padding, int32_t count_include_pad, int64_t divisor_override, const Tensor& dst = {});
inline Tensor adaptive_avg_pool2d_backward(const Tensor& grad_output, IntList input_size, const Tensor& dst = {});
inline std::tuple<Tensor, Tensor, Tensor> layer_norm_backward(const Tensor& grad_output, const Tensor& input, IntList normalized_shape, const Tensor& weight, double eps, const Tensor& dst = {});
inline std::tuple<Tensor, Tensor, Tensor> batch_norm_backward(const Tensor& grad_output, const Tensor& input, const Tensor& weight, double eps, const Tensor& dst = {});
inline std::tuple<Tensor, Tensor, Tensor> group_norm_backward(const Tensor& grad_output, const Tensor& input, int64_t num_groups, const Tensor& weight, double eps, const Tensor& dst = {});
inline Tensor embedding_dense_backward(const Tensor& grad_output, const Tensor& indices, int64_t num_weights, int64_t padding_idx, int32_t scale_grad_by_freq, const Tensor& dst = {});
inline Tensor gelu_backward(const Tensor& grad_output, const Tensor& input, int32_t approximate_tanh, const Tensor& dst = {});
inline void sgd_step(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer, double lr, double momentum, double dampening, double weight_decay, int32_t nesterov, int32_t maximize, int32_t init_buffer);
inline void adam_step(const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq, const Tensor& max_exp_avg_sq, int64_t step, double lr, double beta1, double beta2, double eps, double weight_decay, int32_t decoupled_weight_decay, int32_t amsgrad, int32_t maximize);
inline void rmsprop_step(const Tensor& param, const Tensor& grad, const Tensor& square_avg, const Tensor& grad_avg, const Tensor& momentum_buffer, double lr, double alpha, double eps, double weight_decay, double momentum, int32_t centered, int32_t maximize);
inline void adagrad_step(const Tensor& param, const Tensor& grad, const Tensor& state_sum, int64_t step, double lr, double lr_decay, double eps, double weight_decay, int32_t maximize);
inline Tensor clip_grad_norm_(const std::vector<Tensor>& grads, double max_norm, double norm_type, int32_t error_if_nonfinite);
inline void clip_grad_value_(const std::vector<Tensor>& grads, double clip_value);
inline void manual_seed(uint64_t seed);
inline void generator_manual_seed(nb_generator* gen, uint64_t seed);
inline void generator_set_state(nb_generator* gen, uint64_t seed, uint64_t offset);
inline Tensor rand(IntList shape, int32_t dtype, int32_t device_type, int32_t device_index, nb_generator* gen = nullptr, const Tensor& dst = {});
inline Tensor randn(IntList shape, int32_t dtype, int32_t device_type, int32_t device_index, nb_generator* gen = nullptr, const Tensor& dst = {});
inline Tensor randint(int64_t low, int64_t high, IntList shape, int32_t dtype, int32_t device_type, int32_t device_index, nb_generator* gen = nullptr, const Tensor& dst = {});
inline Tensor randperm(int64_t n, int32_t dtype, int32_t device_type, int32_t device_index, nb_generator* gen = nullptr, const Tensor& dst = {});
inline Tensor uniform_(const Tensor& t, double from, double to, nb_generator* gen = nullptr);
inline Tensor normal_(const Tensor& t, double mean, double std, nb_generator* gen = nullptr);
inline Tensor random_(const Tensor& t, int64_t low, int64_t high_inclusive, nb_generator* gen = nullptr);
inline Tensor bernoulli(const Tensor& p, nb_generator* gen = nullptr, const Tensor& dst = {});
inline Tensor bernoulli_scalar(double p, IntList shape, int32_t dtype, int32_t device_type, int32_t device_index, nb_generator* gen = nullptr, const Tensor& dst = {});
inline Tensor multinomial(const Tensor& probs, int64_t num_samples, int32_t replacement, nb_generator* gen = nullptr, const Tensor& dst = {});
inline Tensor dropout(const Tensor& x, double p, int32_t train, nb_generator* gen = nullptr, const Tensor& dst = {});
inline Tensor sum(const Tensor& t, IntList dims = {}, int32_t keepdim = 0, int32_t dtype = NB_DTYPE_DEFAULT, const Tensor& dst = {});
inline Tensor mean(const Tensor& t, IntList dims = {}, int32_t keepdim = 0, int32_t dtype = NB_DTYPE_DEFAULT, const Tensor& dst = {});
inline Tensor prod(const Tensor& t, IntList dims = {}, int32_t keepdim = 0, int32_t dtype = NB_DTYPE_DEFAULT, const Tensor& dst = {});
inline Tensor amax(const Tensor& t, IntList dims = {}, int32_t keepdim = 0, const Tensor& dst = {});
inline Tensor amin(const Tensor& t, IntList dims = {}, int32_t keepdim = 0, const Tensor& dst = {});
inline std::tuple<Tensor, Tensor> max_dim(const Tensor& t, int64_t dim, int32_t keepdim, const Tensor& dst_values, const Tensor& dst_indices);
inline std::tuple<Tensor, Tensor> min_dim(const Tensor& t, int64_t dim, int32_t keepdim, const Tensor& dst_values, const Tensor& dst_indices);
inline Tensor argmax(const Tensor& t, std::optional<int64_t> dim = std::nullopt, int32_t keepdim = 0, const Tensor& dst = {});
inline Tensor argmin(const Tensor& t, std::optional<int64_t> dim = std::nullopt, int32_t keepdim = 0, const Tensor& dst = {});
inline Tensor var(const Tensor& t, IntList dims, double correction, int32_t keepdim = 0, const Tensor& dst = {});
inline Tensor std(const Tensor& t, IntList dims, double correction, int32_t keepdim = 0, const Tensor& dst = {});
inline Tensor norm(const Tensor& t, double p, IntList dims = {}, int32_t keepdim = 0, int32_t dtype = NB_DTYPE_DEFAULT, const Tensor& dst = {});
inline Tensor logsumexp(const Tensor& t, IntList dims = {}, int32_t keepdim = 0, const Tensor& dst = {});
inline Tensor all(const Tensor& t, IntList dims = {}, int32_t keepdim = 0, const Tensor& dst = {});
inline Tensor any(const Tensor& t, IntList dims = {}, int32_t keepdim = 0, const Tensor& dst = {});
inline Tensor cumsum(const Tensor& t, int64_t dim, int32_t dtype = NB_DTYPE_DEFAULT, const Tensor& dst = {});
inline Tensor cumprod(const Tensor& t, int64_t dim, int32_t dtype = NB_DTYPE_DEFAULT, const Tensor& dst = {});
inline Tensor softmax(const Tensor& t, int64_t dim, int32_t dtype = NB_DTYPE_DEFAULT, const Tensor& dst = {});
inline Tensor log_softmax(const Tensor& t, int64_t dim, int32_t dtype = NB_DTYPE_DEFAULT, const Tensor& dst = {});
inline Tensor cat(const std::vector<Tensor>& tensors, int64_t dim, const Tensor& dst = {});
inline Tensor stack(const std::vector<Tensor>& tensors, int64_t dim, const Tensor& dst = {});
inline Tensor flip(const Tensor& x, IntList dims = {});
inline Tensor roll(const Tensor& x, IntList shifts, IntList dims = {});
inline Tensor repeat(const Tensor& x, IntList repeats);
inline Tensor tril(const Tensor& x, int64_t diagonal, const Tensor& dst = {});
inline Tensor triu(const Tensor& x, int64_t diagonal, const Tensor& dst = {});
inline std::tuple<Tensor, Tensor> sort(const Tensor& x, int64_t dim, int32_t descending, int32_t stable);
inline Tensor argsort(const Tensor& x, int64_t dim, int32_t descending, int32_t stable);
inline Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& values, int32_t right, int32_t out_int32);
inline std::tuple<Tensor, Tensor> topk(const Tensor& x, int64_t k, int64_t dim, int32_t largest, int32_t sorted);
inline std::tuple<Tensor, Tensor, Tensor> unique(const Tensor& x, int32_t sorted);
inline std::tuple<Tensor, Tensor, Tensor> unique_dim(const Tensor& x, int64_t dim, int32_t sorted);
inline std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& x, int64_t dim, int32_t has_dim);
inline Tensor softmax_backward(const Tensor& grad_output, const Tensor& output, int64_t dim, const Tensor& dst = {});
inline Tensor log_softmax_backward(const Tensor& grad_output, const Tensor& output, int64_t dim, const Tensor& dst = {});
inline Tensor exp(const Tensor& x, const Tensor& dst = {});
inline Tensor exp2(const Tensor& x, const Tensor& dst = {});
inline Tensor expm1(const Tensor& x, const Tensor& dst = {});
inline Tensor log(const Tensor& x, const Tensor& dst = {});
inline Tensor log2(const Tensor& x, const Tensor& dst = {});
inline Tensor log10(const Tensor& x, const Tensor& dst = {});
inline Tensor log1p(const Tensor& x, const Tensor& dst = {});
inline Tensor sqrt(const Tensor& x, const Tensor& dst = {});
inline Tensor rsqrt(const Tensor& x, const Tensor& dst = {});
inline Tensor sin(const Tensor& x, const Tensor& dst = {});
inline Tensor cos(const Tensor& x, const Tensor& dst = {});
inline Tensor tan(const Tensor& x, const Tensor& dst = {});
inline Tensor asin(const Tensor& x, const Tensor& dst = {});
inline Tensor acos(const Tensor& x, const Tensor& dst = {});
inline Tensor atan(const Tensor& x, const Tensor& dst = {});
inline Tensor sinh(const Tensor& x, const Tensor& dst = {});
inline Tensor cosh(const Tensor& x, const Tensor& dst = {});
inline Tensor tanh(const Tensor& x, const Tensor& dst = {});
inline Tensor sigmoid(const Tensor& x, const Tensor& dst = {});
inline Tensor erf(const Tensor& x, const Tensor& dst = {});
inline Tensor erfc(const Tensor& x, const Tensor& dst = {});
inline Tensor reciprocal(const Tensor& x, const Tensor& dst = {});
inline Tensor silu(const Tensor& x, const Tensor& dst = {});
inline Tensor gelu(const Tensor& x, int32_t approximate_tanh, const Tensor& dst = {});
inline Tensor leaky_relu(const Tensor& x, double negative_slope, const Tensor& dst = {});
inline Tensor elu(const Tensor& x, double alpha = 1.0, const Tensor& dst = {});
inline Tensor softplus(const Tensor& x, double beta, double threshold, const Tensor& dst = {});
inline Tensor neg(const Tensor& x, const Tensor& dst = {});
inline Tensor abs(const Tensor& x, const Tensor& dst = {});
inline Tensor sign(const Tensor& x, const Tensor& dst = {});
inline Tensor relu(const Tensor& x, const Tensor& dst = {});
inline Tensor square(const Tensor& x, const Tensor& dst = {});
inline Tensor floor(const Tensor& x, const Tensor& dst = {});
inline Tensor ceil(const Tensor& x, const Tensor& dst = {});
inline Tensor round(const Tensor& x, const Tensor& dst = {});
inline Tensor trunc(const Tensor& x, const Tensor& dst = {});
inline Tensor bitwise_not(const Tensor& x, const Tensor& dst = {});
inline Tensor logical_not(const Tensor& x, const Tensor& dst = {});
inline Tensor isnan(const Tensor& x, const Tensor& dst = {});
inline Tensor isinf(const Tensor& x, const Tensor& dst = {});
inline Tensor isfinite(const Tensor& x, const Tensor& dst = {});
inline Tensor nan_to_num(const Tensor& x, double nan, double posinf, double neginf, const Tensor& dst = {});
inline Tensor clamp(const Tensor& x, double min, double max, const Tensor& dst = {});
inline Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b, const Tensor& dst = {});

/** The status of this thread's last failed call (NB_OK if none). */
inline void last_error_status() {
    detail::check(nb_last_error_status());
}
/** Sets the number of CPU threads for nabla's kernels, GEMM included (process-wide; OMP_NUM_THREADS sets the start value). */
inline void set_num_threads(int32_t n) {
    detail::check(nb_set_num_threads(n));
}
/** Sets the floating dtype that scalar floats promote to (float32 at start); process-wide. */
inline void set_default_dtype(int32_t dtype) {
    detail::check(nb_set_default_dtype(dtype));
}
/** A new contiguous tensor with uninitialised contents. */
inline Tensor empty(IntList shape, int32_t dtype, int32_t device_type, int32_t device_index) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_empty(shape.data(), static_cast<int32_t>(shape.size()), dtype, device_type, device_index, &out_out));
    return Tensor(out_out);
}
/** A new tensor filled with 0. */
inline Tensor zeros(IntList shape, int32_t dtype, int32_t device_type, int32_t device_index) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_zeros(shape.data(), static_cast<int32_t>(shape.size()), dtype, device_type, device_index, &out_out));
    return Tensor(out_out);
}
/** A new tensor filled with 1. */
inline Tensor ones(IntList shape, int32_t dtype, int32_t device_type, int32_t device_index) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_ones(shape.data(), static_cast<int32_t>(shape.size()), dtype, device_type, device_index, &out_out));
    return Tensor(out_out);
}
/** A new tensor filled with value converted to dtype (float16/bfloat16 round to nearest even). */
inline Tensor full(IntList shape, double value, int32_t dtype, int32_t device_type, int32_t device_index) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_full(shape.data(), static_cast<int32_t>(shape.size()), value, dtype, device_type, device_index, &out_out));
    return Tensor(out_out);
}
/** As nb_full with an exact 64-bit integer value. */
inline Tensor full_int(IntList shape, int64_t value, int32_t dtype, int32_t device_type, int32_t device_index) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_full_int(shape.data(), static_cast<int32_t>(shape.size()), value, dtype, device_type, device_index, &out_out));
    return Tensor(out_out);
}
/** 1-D values start, start+step, ... excluding end; ceil((end-start)/step) elements. */
inline Tensor arange(double start, double end, double step, int32_t dtype, int32_t device_type, int32_t device_index) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_arange(start, end, step, dtype, device_type, device_index, &out_out));
    return Tensor(out_out);
}
/** 1-D, steps values evenly spaced from start to end inclusive. */
inline Tensor linspace(double start, double end, int64_t steps, int32_t dtype, int32_t device_type, int32_t device_index) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_linspace(start, end, steps, dtype, device_type, device_index, &out_out));
    return Tensor(out_out);
}
/** A 2-D [n, m] tensor with ones on the diagonal. */
inline Tensor eye(int64_t n, int64_t m, int32_t dtype, int32_t device_type, int32_t device_index) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_eye(n, m, dtype, device_type, device_index, &out_out));
    return Tensor(out_out);
}
/** A 0-dim CPU tensor holding a language scalar (fvalue for floating dtypes, ivalue otherwise), marked as a wrapped number: it yields to tensors in type promotion and may combine with tensors on any device. */
inline Tensor scalar(double fvalue, int64_t ivalue, int32_t dtype) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_scalar(fvalue, ivalue, dtype, &out_out));
    return Tensor(out_out);
}
/** A view with a new shape (one size may be -1); fails if the strides cannot express it. */
inline Tensor view(const Tensor& t, IntList shape) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_tensor_view(t.get(), shape.data(), static_cast<int32_t>(shape.size()), &out_out));
    return Tensor(out_out);
}
/** As nb_tensor_view when possible, otherwise a contiguous copy. */
inline Tensor reshape(const Tensor& t, IntList shape) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_tensor_reshape(t.get(), shape.data(), static_cast<int32_t>(shape.size()), &out_out));
    return Tensor(out_out);
}
/** A view with dimensions reordered; dims is a permutation (negative values count from the end). */
inline Tensor permute(const Tensor& t, IntList dims) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_tensor_permute(t.get(), dims.data(), static_cast<int32_t>(dims.size()), &out_out));
    return Tensor(out_out);
}
/** A view with two dimensions swapped. */
inline Tensor transpose(const Tensor& t, int64_t dim0, int64_t dim1) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_tensor_transpose(t.get(), dim0, dim1, &out_out));
    return Tensor(out_out);
}
/** A view of length elements of dim from start (start may be negative). */
inline Tensor narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_tensor_narrow(t.get(), dim, start, length, &out_out));
    return Tensor(out_out);
}
/** A view of dim with Python slice semantics (negative start/end count from the end, out-of-range bounds clamp); step > 0. */
inline Tensor slice(const Tensor& t, int64_t dim, int64_t start, int64_t end, int64_t step) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_tensor_slice(t.get(), dim, start, end, step, &out_out));
    return Tensor(out_out);
}
/** A view with dim removed at index (negative counts from the end). */
inline Tensor select(const Tensor& t, int64_t dim, int64_t index) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_tensor_select(t.get(), dim, index, &out_out));
    return Tensor(out_out);
}
/** A broadcast view (stride 0) to shape; -1 keeps a size; new leading dims may be added. */
inline Tensor expand(const Tensor& t, IntList shape) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_tensor_expand(t.get(), shape.data(), static_cast<int32_t>(shape.size()), &out_out));
    return Tensor(out_out);
}
/** A view without size-1 dims: all of them when dims is NULL, else those listed that have size 1. */
inline Tensor squeeze(const Tensor& t, IntList dims) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_tensor_squeeze(t.get(), dims.data(), static_cast<int32_t>(dims.size()), &out_out));
    return Tensor(out_out);
}
/** A view with a size-1 dim inserted at dim (in [-ndim-1, ndim]). */
inline Tensor unsqueeze(const Tensor& t, int64_t dim) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_tensor_unsqueeze(t.get(), dim, &out_out));
    return Tensor(out_out);
}
/** Dims start_dim..end_dim merged into one (a view when strides allow, else a copy). */
inline Tensor flatten(const Tensor& t, int64_t start_dim, int64_t end_dim) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_tensor_flatten(t.get(), start_dim, end_dim, &out_out));
    return Tensor(out_out);
}
/** t itself (a new reference) when contiguous, else a contiguous copy. */
inline Tensor contiguous(const Tensor& t) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_tensor_contiguous(t.get(), &out_out));
    return Tensor(out_out);
}
/** A copy with its own storage, laid out in t's memory order (a dense input keeps its strides; PyTorch's preserve_format). */
inline Tensor clone(const Tensor& t) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_tensor_clone(t.get(), &out_out));
    return Tensor(out_out);
}
/** t converted to dtype and device (strides kept as by nb_tensor_clone); returns t itself when nothing changes and copy is 0. */
inline Tensor to(const Tensor& t, int32_t dtype, int32_t device_type, int32_t device_index, int32_t copy) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_tensor_to(t.get(), dtype, device_type, device_index, copy, &out_out));
    return Tensor(out_out);
}
/** Writes src into dst, broadcasting src to dst's shape and converting dtype (float16/bfloat16 round to nearest even). Bumps dst's version. */
inline Tensor copy_(const Tensor& dst, const Tensor& src) {
    detail::check(nb_tensor_copy_(dst.get(), src.get()));
    return dst;
}
/** PyTorch's resize_: gives t the shape with contiguous strides at its offset, growing its storage (bytes kept, every view follows) when it is too small; a tensor that already has the shape is unchanged. External memory cannot grow; a tensor that requires grad cannot be resized. */
inline Tensor resize_(const Tensor& t, IntList shape) {
    detail::check(nb_tensor_resize_(t.get(), shape.data(), static_cast<int32_t>(shape.size())));
    return t;
}
/** PyTorch's resize_output, the rule for out= tensors: nothing when t has the shape; otherwise a warning when t had elements (see nb_set_warning_handler), then nb_tensor_resize_. Every op with a dst parameter applies it to a dst that is not one of its inputs. */
inline void resize_output(const Tensor& t, IntList shape) {
    detail::check(nb_tensor_resize_output(t.get(), shape.data(), static_cast<int32_t>(shape.size())));
}
/** Moves t's storage (so every view of it) into shared memory that another process can map through nb_tensor_shared_fd; the values are kept. A no-op when already shared; cpu tensors only. Not safe while another thread uses the same storage. */
inline Tensor share_memory_(const Tensor& t) {
    detail::check(nb_tensor_share_memory_(t.get()));
    return t;
}
/** A new contiguous cpu tensor in shared memory, uninitialised. */
inline Tensor empty_shared(IntList shape, int32_t dtype) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_empty_shared(shape.data(), static_cast<int32_t>(shape.size()), dtype, &out_out));
    return Tensor(out_out);
}
/** Resets peak_allocated_bytes to the current allocated_bytes (NB_CUDA_HOST: of the pinned host memory pool). */
inline void memory_reset_peak(int32_t device_type, int32_t device_index) {
    detail::check(nb_memory_reset_peak(device_type, device_index));
}
/** Returns cached free blocks to the system: the shared lists and the calling thread's cache (another live thread keeps at most 8 MiB cached until it exits). */
inline void memory_empty_cache(int32_t device_type, int32_t device_index) {
    detail::check(nb_memory_empty_cache(device_type, device_index));
}
/** A copy of the CPU tensor t in page-locked (pinned) host memory, which non-blocking copies to and from CUDA need; t itself (a new reference) when already pinned. */
inline Tensor pin_memory(const Tensor& t) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_tensor_pin_memory(t.get(), &out_out));
    return Tensor(out_out);
}
/** As nb_tensor_to; with non_blocking, a same-dtype copy between pinned host memory and a CUDA device is queued on the current stream and the call returns at once (a device-to-host result is then allocated in pinned memory); otherwise the copy completes before the call returns. */
inline Tensor to_v2(const Tensor& t, int32_t dtype, int32_t device_type, int32_t device_index, int32_t copy, int32_t non_blocking) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_tensor_to_v2(t.get(), dtype, device_type, device_index, copy, non_blocking, &out_out));
    return Tensor(out_out);
}
/** As nb_tensor_copy_; with non_blocking, a same-dtype contiguous copy between pinned host memory and a CUDA device is queued on the current stream and the call returns at once. */
inline Tensor copy_v2_(const Tensor& dst, const Tensor& src, int32_t non_blocking) {
    detail::check(nb_tensor_copy_v2_(dst.get(), src.get(), non_blocking));
    return dst;
}
/** Starts a profiling session (process-wide): every op call from then on is recorded per thread with its name and host start/end time, plus what the NB_PROFILE_* flags ask for. Fails when a session is already running. Events of the previous session are dropped. */
inline void profiler_start(int32_t flags) {
    detail::check(nb_profiler_start(flags));
}
/** Ends the session and keeps its events for nb_profiler_events (waits for the device events of CUDA ops). Fails when no session runs. */
inline void profiler_stop() {
    detail::check(nb_profiler_stop());
}
/** Closes the calling thread's innermost range; fails when none is open. */
inline void profiler_range_pop() {
    detail::check(nb_profiler_range_pop());
}
/** Turns autocast on or off for ops on a device type (NB_CPU or NB_CUDA) on the calling thread. While on, an op whose manifest entry has an "autocast" policy casts its floating-point inputs on that device (float64 excepted) first: "lower" to the autocast dtype, "fp32" to float32, "promote" to the widest of them; ops it calls run without autocast, and so does backward. */
inline void autocast_set_enabled(int32_t device_type, int32_t enabled) {
    detail::check(nb_autocast_set_enabled(device_type, enabled));
}
/** The low-precision dtype of a device type's autocast on the calling thread: NB_BF16 or NB_F16 (defaults: bfloat16 on CPU, float16 on CUDA). */
inline void autocast_set_dtype(int32_t device_type, int32_t dtype) {
    detail::check(nb_autocast_set_dtype(device_type, dtype));
}
/** Sets the calling thread's current device of a type; index -1 means the current one is kept. */
inline void device_set_current(int32_t device_type, int32_t device_index) {
    detail::check(nb_device_set_current(device_type, device_index));
}
/** Waits until all work queued on the device, on every stream, has finished; reports errors of asynchronous work. */
inline void device_synchronize(int32_t device_type, int32_t device_index) {
    detail::check(nb_device_synchronize(device_type, device_index));
}
/** Marks a leaf as requiring grad (floating dtypes only); fails for non-leaves when turning it off. */
inline void set_requires_grad(const Tensor& t, int32_t requires_grad) {
    detail::check(nb_tensor_set_requires_grad(t.get(), requires_grad));
}
/** *grad = a new reference to t's accumulated gradient (leaves, or non-leaves after nb_tensor_retain_grad), or NULL when there is none. */
inline Tensor get_grad(const Tensor& t) {
    nb_tensor* grad_out = nullptr;
    detail::check(nb_tensor_get_grad(t.get(), &grad_out));
    return Tensor(grad_out);
}
/** Keeps the gradient of a non-leaf after backward (a no-op for leaves). */
inline void retain_grad(const Tensor& t) {
    detail::check(nb_tensor_retain_grad(t.get()));
}
/** A new tensor sharing t's storage (and version counter) with no autograd history. */
inline Tensor detach(const Tensor& t) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_tensor_detach(t.get(), &out_out));
    return Tensor(out_out);
}
/** Cuts t from the graph in place: it becomes a leaf that does not require grad. */
inline Tensor detach_(const Tensor& t) {
    detail::check(nb_tensor_detach_(t.get()));
    return t;
}
/** Removes a hook added by nb_tensor_register_hook or nb_tensor_register_post_accumulate_grad_hook (a no-op when it is already gone). */
inline void remove_hook(const Tensor& t, int64_t id) {
    detail::check(nb_tensor_remove_hook(t.get(), id));
}
/** Pops this thread's innermost saved-tensor hooks; NB_ERR_AUTOGRAD when none are pushed. */
inline void saved_tensors_hooks_pop() {
    detail::check(nb_saved_tensors_hooks_pop());
}
/** Shuts MPI down (MPI_Finalize) if nabla's loader started it and nobody did yet; call once at process exit after the last collective. Fails, leaving MPI running, after a collective timed out (exit the process instead). NB_OK when MPI was never loaded. */
inline void comm_finalize() {
    detail::check(nb_comm_finalize());
}
/** Gradient unscaling for mixed precision (PyTorch's _amp_foreach_non_finite_check_and_unscale_): multiplies each of the n floating-point gradients in place by inv_scale (a 1-element float32 tensor) and sets found_inf (a 1-element float32 tensor, not cleared) to 1 when any of them holds an inf or NaN. All tensors on one device; nothing is read back to the host, so a device queues the work. Bad input changes no gradient. */
inline void amp_foreach_non_finite_check_and_unscale_(const std::vector<Tensor>& grads, const Tensor& found_inf, const Tensor& inv_scale) {
    const auto grads_h = detail::handles(grads);
    detail::check(nb_amp_foreach_non_finite_check_and_unscale_(grads_h.data(), static_cast<int32_t>(grads.size()), found_inf.get(), inv_scale.get()));
}
/** The loss scale's update (PyTorch's _amp_update_scale_), in place on the device: when found_inf is non-zero, scale *= backoff_factor and growth_tracker = 0; else growth_tracker + 1 successful steps, and at growth_interval of them scale *= growth_factor (kept when that overflows) and growth_tracker = 0. scale and found_inf: 1-element float32 tensors; growth_tracker: 1-element int32. */
inline Tensor amp_update_scale_(const Tensor& scale, const Tensor& growth_tracker, const Tensor& found_inf, double growth_factor, double backoff_factor, int64_t growth_interval) {
    detail::check(nb_amp_update_scale_(scale.get(), growth_tracker.get(), found_inf.get(), growth_factor, backoff_factor, growth_interval));
    return scale;
}
/** softmax(q k^T * scale + mask) v for q [..., L, E], k [..., S, E], v [..., S, Ev]; attn_mask NULL, bool (true = attend) or float (added); is_causal masks keys after each query; scale NaN = 1/sqrt(E); dropout on the weights from gen (NULL = default generator). */
inline Tensor scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& attn_mask, double dropout_p, int32_t is_causal, double scale, nb_generator* gen) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_scaled_dot_product_attention(q.get(), k.get(), v.get(), attn_mask.get(), dropout_p, is_causal, scale, gen, &out_out));
    return Tensor(out_out);
}
/** a + alpha * b, broadcast, with PyTorch's type promotion (bool: logical or). dst/out by convention. */
inline Tensor add(const Tensor& a, const Tensor& b, double alpha, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_add(a.get(), b.get(), alpha, dst.get(), &out_out));
    return Tensor(out_out);
}
/** a - alpha * b (not for bool operands). dst/out by convention. */
inline Tensor sub(const Tensor& a, const Tensor& b, double alpha, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_sub(a.get(), b.get(), alpha, dst.get(), &out_out));
    return Tensor(out_out);
}
/** a * b (bool: logical and). dst/out by convention. */
inline Tensor mul(const Tensor& a, const Tensor& b, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_mul(a.get(), b.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** a / b: true division (integers give the default float dtype) or rounded by NB_ROUND_TRUNC / NB_ROUND_FLOOR; integer division by zero fails. dst/out by convention. */
inline Tensor div(const Tensor& a, const Tensor& b, int32_t rounding_mode, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_div(a.get(), b.get(), rounding_mode, dst.get(), &out_out));
    return Tensor(out_out);
}
/** floor(a / b), Python's //. dst/out by convention. */
inline Tensor floor_divide(const Tensor& a, const Tensor& b, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_floor_divide(a.get(), b.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** a - b * floor(a / b): the sign of b, Python's %. dst/out by convention. */
inline Tensor remainder(const Tensor& a, const Tensor& b, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_remainder(a.get(), b.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** C's fmod: the sign of a. dst/out by convention. */
inline Tensor fmod(const Tensor& a, const Tensor& b, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_fmod(a.get(), b.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** a ** b; for integers a negative scalar exponent fails and negative tensor exponents give 0 (except for bases 1 and -1), as in PyTorch. dst/out by convention. */
inline Tensor pow(const Tensor& a, const Tensor& b, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_pow(a.get(), b.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** Elementwise max; NaN propagates. dst/out by convention. */
inline Tensor maximum(const Tensor& a, const Tensor& b, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_maximum(a.get(), b.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** Elementwise min; NaN propagates. dst/out by convention. */
inline Tensor minimum(const Tensor& a, const Tensor& b, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_minimum(a.get(), b.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** atan2(a, b) in radians (integers give the default float dtype). dst/out by convention. */
inline Tensor atan2(const Tensor& a, const Tensor& b, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_atan2(a.get(), b.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** The regularised lower incomplete gamma function P(a, b) (torch.special.gammainc), floating inputs only, float64-accurate; NaN where a < 0 or b < 0. Differentiable in b only, as PyTorch. dst/out by convention. */
inline Tensor igamma(const Tensor& a, const Tensor& b, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_igamma(a.get(), b.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** The regularised upper incomplete gamma function Q(a, b) = 1 - P(a, b) (torch.special.gammaincc), computed without the cancellation. dst/out by convention. */
inline Tensor igammac(const Tensor& a, const Tensor& b, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_igammac(a.get(), b.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** The next value after a toward b in the result dtype (floating only; float16 and bfloat16 step in their own precision). dst/out by convention. */
inline Tensor nextafter(const Tensor& a, const Tensor& b, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_nextafter(a.get(), b.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** a == b as bool, compared in the promoted dtype. dst/out by convention. */
inline Tensor eq(const Tensor& a, const Tensor& b, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_eq(a.get(), b.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** a != b as bool, compared in the promoted dtype. dst/out by convention. */
inline Tensor ne(const Tensor& a, const Tensor& b, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_ne(a.get(), b.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** a < b as bool, compared in the promoted dtype. dst/out by convention. */
inline Tensor lt(const Tensor& a, const Tensor& b, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_lt(a.get(), b.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** a <= b as bool, compared in the promoted dtype. dst/out by convention. */
inline Tensor le(const Tensor& a, const Tensor& b, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_le(a.get(), b.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** a > b as bool, compared in the promoted dtype. dst/out by convention. */
inline Tensor gt(const Tensor& a, const Tensor& b, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_gt(a.get(), b.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** a >= b as bool, compared in the promoted dtype. dst/out by convention. */
inline Tensor ge(const Tensor& a, const Tensor& b, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_ge(a.get(), b.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** (a != 0) and (b != 0) as bool. dst/out by convention. */
inline Tensor logical_and(const Tensor& a, const Tensor& b, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_logical_and(a.get(), b.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** (a != 0) or (b != 0) as bool. dst/out by convention. */
inline Tensor logical_or(const Tensor& a, const Tensor& b, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_logical_or(a.get(), b.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** (a != 0) xor (b != 0) as bool. dst/out by convention. */
inline Tensor logical_xor(const Tensor& a, const Tensor& b, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_logical_xor(a.get(), b.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** a & b on integer and bool tensors. dst/out by convention. */
inline Tensor bitwise_and(const Tensor& a, const Tensor& b, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_bitwise_and(a.get(), b.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** a | b on integer and bool tensors. dst/out by convention. */
inline Tensor bitwise_or(const Tensor& a, const Tensor& b, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_bitwise_or(a.get(), b.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** a ^ b on integer and bool tensors. dst/out by convention. */
inline Tensor bitwise_xor(const Tensor& a, const Tensor& b, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_bitwise_xor(a.get(), b.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** a << b on integers (shifts past the width give 0). dst/out by convention. */
inline Tensor bitwise_left_shift(const Tensor& a, const Tensor& b, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_bitwise_left_shift(a.get(), b.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** a >> b on integers, arithmetic for signed types. dst/out by convention. */
inline Tensor bitwise_right_shift(const Tensor& a, const Tensor& b, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_bitwise_right_shift(a.get(), b.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** out[i][j] = x[index[i][j]][j] (dim 0): index (int64 or int32) has x's ndim and is no larger than x apart from dim; out has index's shape. */
inline Tensor gather(const Tensor& x, int64_t dim, const Tensor& index) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_gather(x.get(), dim, index.get(), &out_out));
    return Tensor(out_out);
}
/** A copy of x with x[index[i][j]][j] = src[i][j] (dim 0); src has x's dtype. Duplicate indices: the last write wins. dst/out by convention. */
inline Tensor scatter(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_scatter(x.get(), dim, index.get(), src.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** nb_scatter with a 0-dim value (converted to x's dtype) in place of src. dst/out by convention. */
inline Tensor scatter_value(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& value, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_scatter_value(x.get(), dim, index.get(), value.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** A copy of x with x[index[i][j]][j] += src[i][j] (dim 0); duplicates accumulate. dst/out by convention. */
inline Tensor scatter_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_scatter_add(x.get(), dim, index.get(), src.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** PyTorch's scatter_reduce: a copy of x with each src[i][j] reduced into x[index[i][j]][j] (dim 0) by reduce (NB_SCATTER_*); src has x's dtype and index's rank. include_self 0: the places that receive values start from the reduction's identity instead of x's value (mean then counts only the values received); places that receive nothing keep x's value. dst/out by convention. */
inline Tensor scatter_reduce(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src, int32_t reduce, int32_t include_self, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_scatter_reduce(x.get(), dim, index.get(), src.get(), reduce, include_self, dst.get(), &out_out));
    return Tensor(out_out);
}
/** The entries of x at the positions of the 1-D int64/int32 index along dim. */
inline Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_index_select(x.get(), dim, index.get(), &out_out));
    return Tensor(out_out);
}
/** A copy of x with x.select(dim, index[i]) += alpha * source.select(dim, i); duplicates accumulate. dst/out by convention. */
inline Tensor index_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source, double alpha, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_index_add(x.get(), dim, index.get(), source.get(), alpha, dst.get(), &out_out));
    return Tensor(out_out);
}
/** x with the elements where the bool mask (broadcast) is true set to the 0-dim value (converted to x's dtype). dst/out by convention. */
inline Tensor masked_fill(const Tensor& x, const Tensor& mask, const Tensor& value, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_masked_fill(x.get(), mask.get(), value.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** The 1-D tensor of the elements of x (broadcast with the bool mask) where mask is true, in row-major order. */
inline Tensor masked_select(const Tensor& x, const Tensor& mask) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_masked_select(x.get(), mask.get(), &out_out));
    return Tensor(out_out);
}
/** The [n, ndim] int64 coordinates of the nonzero elements of x in row-major order (NaN counts as nonzero). */
inline Tensor nonzero(const Tensor& x) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_nonzero(x.get(), &out_out));
    return Tensor(out_out);
}
/** Gathers along dim after broadcasting x and the int64 indices apart from dim; with has_dim 0, along the flattened x. */
inline Tensor take_along_dim(const Tensor& x, const Tensor& indices, int64_t dim, int32_t has_dim) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_take_along_dim(x.get(), indices.get(), dim, has_dim, &out_out));
    return Tensor(out_out);
}
/** The int64 one-hot encoding of the int64 class values x: shape x.shape + [num_classes]; num_classes -1 infers max + 1. */
inline Tensor one_hot(const Tensor& x, int64_t num_classes) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_one_hot(x.get(), num_classes, &out_out));
    return Tensor(out_out);
}
/** Advanced indexing x[indices]: one entry per leading dim, NULL for a full slice, else an int64/int32 index or a bool/uint8 mask (one dim per mask dim). Index tensors broadcast together; their shape replaces the indexed dims, or leads the result when a full slice separates them (NumPy's rule). Negative indices count from the end. */
inline Tensor index(const Tensor& x, const std::vector<Tensor>& indices) {
    const auto indices_h = detail::handles(indices);
    nb_tensor* out_out = nullptr;
    detail::check(nb_index(x.get(), indices_h.data(), static_cast<int32_t>(indices.size()), &out_out));
    return Tensor(out_out);
}
/** x[indices] = values (broadcast to the indexing result; x's dtype), or += with accumulate; duplicate indices without accumulate: the last write wins. Indices as in nb_index. dst/out by convention. */
inline Tensor index_put(const Tensor& x, const std::vector<Tensor>& indices, const Tensor& values, int32_t accumulate, const Tensor& dst) {
    const auto indices_h = detail::handles(indices);
    nb_tensor* out_out = nullptr;
    detail::check(nb_index_put(x.get(), indices_h.data(), static_cast<int32_t>(indices.size()), values.get(), accumulate, dst.get(), &out_out));
    return Tensor(out_out);
}
/** torch.matmul: 1-D @ 1-D is a dot product (0-dim result), 2-D @ 2-D a matrix product, a 1-D operand gains a size-1 dim that is removed from the result, and batch dims (all but the last two) broadcast. Both operands must have the same dtype (no promotion); float16/bfloat16 accumulate in float32, integers wrap, bool is not supported. dst/out by convention; dst must have the result's shape and the operands' dtype. */
inline Tensor matmul(const Tensor& a, const Tensor& b, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_matmul(a.get(), b.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** Matrix product of two 2-D tensors [n, m] @ [m, p] -> [n, p], same dtype. dst/out by convention; dst must have the result's shape and the operands' dtype. */
inline Tensor mm(const Tensor& a, const Tensor& b, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_mm(a.get(), b.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** Batched matrix product [b, n, m] @ [b, m, p] -> [b, n, p] (no broadcasting), same dtype. dst/out by convention; dst must have the result's shape and the operands' dtype. */
inline Tensor bmm(const Tensor& a, const Tensor& b, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_bmm(a.get(), b.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** Matrix-vector product [n, m] @ [m] -> [n], same dtype. dst/out by convention; dst must have the result's shape and the operands' dtype. */
inline Tensor mv(const Tensor& a, const Tensor& v, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_mv(a.get(), v.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** Dot product of two 1-D tensors of equal length and dtype -> 0-dim. dst/out by convention; dst must have the result's shape and the operands' dtype. */
inline Tensor dot(const Tensor& a, const Tensor& b, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_dot(a.get(), b.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** Outer product of two 1-D tensors [n], [m] -> [n, m], computed as an elementwise product: dtypes promote, bool is allowed. dst/out by convention; dst has shape [n, m] and any dtype the result casts to. */
inline Tensor outer(const Tensor& a, const Tensor& b, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_outer(a.get(), b.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** beta * input + alpha * (mat1 @ mat2), input broadcast to [n, p]; beta == 0 ignores input (NaN included). Integer dtypes truncate alpha and beta. dst/out by convention; dst must have the result's shape and the operands' dtype. */
inline Tensor addmm(const Tensor& input, const Tensor& mat1, const Tensor& mat2, double beta, double alpha, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_addmm(input.get(), mat1.get(), mat2.get(), beta, alpha, dst.get(), &out_out));
    return Tensor(out_out);
}
/** beta * input + alpha * bmm(batch1, batch2), input broadcast to [b, n, p]; beta == 0 ignores input. Integer dtypes truncate alpha and beta. dst/out by convention; dst must have the result's shape and the operands' dtype. */
inline Tensor baddbmm(const Tensor& input, const Tensor& batch1, const Tensor& batch2, double beta, double alpha, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_baddbmm(input.get(), batch1.get(), batch2.get(), beta, alpha, dst.get(), &out_out));
    return Tensor(out_out);
}
/** torch.nn.functional.linear: matmul(input [*, in], weight.t()) with weight [out, in] (or [in]) plus bias (NULL for none) broadcast to the result; one dtype for all. dst/out by convention; dst must have the result's shape and the operands' dtype. */
inline Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_linear(input.get(), weight.get(), bias.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** The inverse of each square float32/float64 matrix of A [..., n, n] (LU with partial pivoting). A singular matrix fails with NB_ERR_LINALG naming the zero diagonal element of U (and the batch element). */
inline Tensor linalg_inv(const Tensor& A) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_linalg_inv(A.get(), &out_out));
    return Tensor(out_out);
}
/** X with A X = B (left 1) or X A = B (left 0) for square A [..., n, n]; B is [..., n, k] (left) or [..., k, n], or a vector [..., n] when 1-D or shaped like A without its last dim (PyTorch's rule); batch dims broadcast. A singular A fails with NB_ERR_LINALG. */
inline Tensor linalg_solve(const Tensor& A, const Tensor& B, int32_t left) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_linalg_solve(A.get(), B.get(), left, &out_out));
    return Tensor(out_out);
}
/** The determinant of each square matrix of A [..., n, n], from its LU factors (0 for a singular one). */
inline Tensor linalg_det(const Tensor& A) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_linalg_det(A.get(), &out_out));
    return Tensor(out_out);
}
/** The sign (-1, 0 or 1) and log|det| (-inf for a singular matrix) of each square matrix of A. */
inline std::tuple<Tensor, Tensor> linalg_slogdet(const Tensor& A) {
    nb_tensor* sign_out = nullptr; nb_tensor* logabsdet_out = nullptr;
    detail::check(nb_linalg_slogdet(A.get(), &sign_out, &logabsdet_out));
    return {Tensor(sign_out), Tensor(logabsdet_out)};
}
/** The Cholesky factor L (A = L L^T; upper 1: U with A = U^T U) of each symmetric positive-definite matrix of A, read from its lower triangle (upper 1: the upper one); the other triangle of the result is zero. A matrix that is not positive-definite fails with NB_ERR_LINALG naming the leading minor. */
inline Tensor linalg_cholesky(const Tensor& A, int32_t upper) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_linalg_cholesky(A.get(), upper, &out_out));
    return Tensor(out_out);
}
/** A [..., m, n] = Q R (Householder, LAPACK's signs) with Q orthonormal and R upper triangular; mode NB_QR_REDUCED, NB_QR_COMPLETE or NB_QR_R (Q then empty). Differentiable in modes reduced and complete (the latter when m <= n), as in PyTorch. */
inline std::tuple<Tensor, Tensor> linalg_qr(const Tensor& A, int32_t mode) {
    nb_tensor* Q_out = nullptr; nb_tensor* R_out = nullptr;
    detail::check(nb_linalg_qr(A.get(), mode, &Q_out, &R_out));
    return {Tensor(Q_out), Tensor(R_out)};
}
/** Eigenvalues (ascending, [..., n]) and, when eigenvectors is non-NULL, orthonormal eigenvectors (the columns of [..., n, n]) of each symmetric matrix of A, read from its lower triangle (upper 1: the upper one). No convergence fails with NB_ERR_LINALG. */
inline std::tuple<Tensor, Tensor> linalg_eigh(const Tensor& A, int32_t upper) {
    nb_tensor* eigenvalues_out = nullptr; nb_tensor* eigenvectors_out = nullptr;
    detail::check(nb_linalg_eigh(A.get(), upper, &eigenvalues_out, &eigenvectors_out));
    return {Tensor(eigenvalues_out), Tensor(eigenvectors_out)};
}
/** A [..., m, n] = U diag(S) Vh (divide and conquer): S [..., k] descending with k = min(m, n), U [..., m, k] and Vh [..., k, n] (full_matrices: [..., m, m] and [..., n, n]); U and Vh both NULL: singular values only. An empty matrix has identity U / Vh, as in PyTorch. */
inline std::tuple<Tensor, Tensor, Tensor> linalg_svd(const Tensor& A, int32_t full_matrices) {
    nb_tensor* U_out = nullptr; nb_tensor* S_out = nullptr; nb_tensor* Vh_out = nullptr;
    detail::check(nb_linalg_svd(A.get(), full_matrices, &U_out, &S_out, &Vh_out));
    return {Tensor(U_out), Tensor(S_out), Tensor(Vh_out)};
}
/** nb_linalg_inv without failing on the values: info (int32, A's batch shape) is 0, or for a singular matrix the position of the zero diagonal element of U, whose inverse then holds the infinities and NaNs of solving A X = I from its LU factors (as PyTorch's inv_ex). */
inline std::tuple<Tensor, Tensor> linalg_inv_ex(const Tensor& A) {
    nb_tensor* inverse_out = nullptr; nb_tensor* info_out = nullptr;
    detail::check(nb_linalg_inv_ex(A.get(), &inverse_out, &info_out));
    return {Tensor(inverse_out), Tensor(info_out)};
}
/** nb_linalg_solve without failing on the values: info (int32, the broadcast batch shape) is 0, or for a singular A the position of the zero diagonal element of U (the result then holds infinities and NaNs). */
inline std::tuple<Tensor, Tensor> linalg_solve_ex(const Tensor& A, const Tensor& B, int32_t left) {
    nb_tensor* result_out = nullptr; nb_tensor* info_out = nullptr;
    detail::check(nb_linalg_solve_ex(A.get(), B.get(), left, &result_out, &info_out));
    return {Tensor(result_out), Tensor(info_out)};
}
/** nb_linalg_cholesky without failing on the values: info (int32, A's batch shape) is 0, or the order of the leading minor that is not positive-definite (the factor then holds LAPACK's partial work). */
inline std::tuple<Tensor, Tensor> linalg_cholesky_ex(const Tensor& A, int32_t upper) {
    nb_tensor* L_out = nullptr; nb_tensor* info_out = nullptr;
    detail::check(nb_linalg_cholesky_ex(A.get(), upper, &L_out, &info_out));
    return {Tensor(L_out), Tensor(info_out)};
}
/** X with A X = B (left 1) or X A = B (left 0), reading only the upper (upper 1) or lower triangle of A [..., n, n] (unitriangular 1: ones assumed on its diagonal); B is [..., n, k] (left) or [..., k, n], batch dims broadcast. A zero on the diagonal gives infinities and NaNs, not an error (BLAS trsm, as PyTorch). */
inline Tensor linalg_solve_triangular(const Tensor& A, const Tensor& B, int32_t upper, int32_t left, int32_t unitriangular) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_linalg_solve_triangular(A.get(), B.get(), upper, left, unitriangular, &out_out));
    return Tensor(out_out);
}
/** The Bunch-Kaufman factorization A = L D L^T of each symmetric float32/float64 matrix of A [..., n, n], read from its lower triangle (LAPACK's sytrf, lower; hermitian is the same for real dtypes): LD [..., n, n] holds L below the diagonal and the 1x1 / 2x2 blocks of D on and next to it (zero above), pivots (int32 [..., n]) LAPACK's 1-based interchanges (negative for a 2x2 block), info (int32, A's batch shape) 0 or the position of a zero diagonal block of D, as PyTorch's ldl_factor_ex. */
inline std::tuple<Tensor, Tensor, Tensor> linalg_ldl_factor_ex(const Tensor& A, int32_t hermitian) {
    nb_tensor* LD_out = nullptr; nb_tensor* pivots_out = nullptr; nb_tensor* info_out = nullptr;
    detail::check(nb_linalg_ldl_factor_ex(A.get(), hermitian, &LD_out, &pivots_out, &info_out));
    return {Tensor(LD_out), Tensor(pivots_out), Tensor(info_out)};
}
/** X with A X = B from nb_linalg_ldl_factor_ex's LD [..., n, n] and pivots [..., n] (any integer dtype) of A (LAPACK's sytrs); B is [..., n, k] of LD's dtype, batch dims broadcast. */
inline Tensor linalg_ldl_solve(const Tensor& LD, const Tensor& pivots, const Tensor& B, int32_t hermitian) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_linalg_ldl_solve(LD.get(), pivots.get(), B.get(), hermitian, &out_out));
    return Tensor(out_out);
}
/** 1-D convolution (cross-correlation) of input [N, C_in, L] with weight [C_out, C_in / groups, kW] plus optional bias [C_out]; zero padding may differ on the two sides (PyTorch's padding='same'). Floating dtypes; input, weight and bias share one dtype. dst/out by convention. */
inline Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias, int64_t stride, int64_t padding_left, int64_t padding_right, int64_t dilation, int64_t groups, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_conv1d(input.get(), weight.get(), bias.get(), stride, padding_left, padding_right, dilation, groups, dst.get(), &out_out));
    return Tensor(out_out);
}
/** 2-D convolution of input [N, C_in, H, W] with weight [C_out, C_in / groups, kH, kW] plus optional bias [C_out]. stride[2] and dilation[2] are (H, W); padding[4] is (top, left, bottom, right), zeros. Floating dtypes; input, weight and bias share one dtype. dst/out by convention. */
inline Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntList stride, IntList padding, IntList dilation, int64_t groups, const Tensor& dst) {
    stride.fixed(2, "nb_conv2d", "stride");
    padding.fixed(4, "nb_conv2d", "padding");
    dilation.fixed(2, "nb_conv2d", "dilation");
    nb_tensor* out_out = nullptr;
    detail::check(nb_conv2d(input.get(), weight.get(), bias.get(), stride.data(), padding.data(), dilation.data(), groups, dst.get(), &out_out));
    return Tensor(out_out);
}
/** Transposed 2-D convolution of input [N, C_in, H, W] with weight [C_in, C_out / groups, kH, kW] plus optional bias [C_out]; stride, padding, output_padding and dilation are (H, W) pairs; output size (in - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1. dst/out by convention. */
inline Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntList stride, IntList padding, IntList output_padding, IntList dilation, int64_t groups, const Tensor& dst) {
    stride.fixed(2, "nb_conv_transpose2d", "stride");
    padding.fixed(2, "nb_conv_transpose2d", "padding");
    output_padding.fixed(2, "nb_conv_transpose2d", "output_padding");
    dilation.fixed(2, "nb_conv_transpose2d", "dilation");
    nb_tensor* out_out = nullptr;
    detail::check(nb_conv_transpose2d(input.get(), weight.get(), bias.get(), stride.data(), padding.data(), output_padding.data(), dilation.data(), groups, dst.get(), &out_out));
    return Tensor(out_out);
}
/** Max pooling over input [N, C, H, W] (floating); (H, W) pairs, stride NULL meaning kernel_size, dilation NULL meaning 1; padding counts as -inf and NaN wins. When indices is not NULL it receives an int64 tensor of the argmax positions, flat within each input plane (h * W + w). dst/out by convention. */
inline std::tuple<Tensor, Tensor> max_pool2d(const Tensor& input, IntList kernel_size, IntList stride, IntList padding, IntList dilation, int32_t ceil_mode, const Tensor& dst) {
    kernel_size.fixed(2, "nb_max_pool2d", "kernel_size");
    stride.fixed(2, "nb_max_pool2d", "stride");
    padding.fixed(2, "nb_max_pool2d", "padding");
    dilation.fixed(2, "nb_max_pool2d", "dilation");
    nb_tensor* indices_out = nullptr; nb_tensor* out_out = nullptr;
    detail::check(nb_max_pool2d(input.get(), kernel_size.data(), stride.data(), padding.data(), dilation.data(), ceil_mode, &indices_out, dst.get(), &out_out));
    return {Tensor(indices_out), Tensor(out_out)};
}
/** Average pooling over input [N, C, H, W] (floating); (H, W) pairs, stride NULL meaning kernel_size. The divisor is divisor_override when non-zero, else the window size with (count_include_pad) or without the zero padding. dst/out by convention. */
inline Tensor avg_pool2d(const Tensor& input, IntList kernel_size, IntList stride, IntList padding, int32_t ceil_mode, int32_t count_include_pad, int64_t divisor_override, const Tensor& dst) {
    kernel_size.fixed(2, "nb_avg_pool2d", "kernel_size");
    stride.fixed(2, "nb_avg_pool2d", "stride");
    padding.fixed(2, "nb_avg_pool2d", "padding");
    nb_tensor* out_out = nullptr;
    detail::check(nb_avg_pool2d(input.get(), kernel_size.data(), stride.data(), padding.data(), ceil_mode, count_include_pad, divisor_override, dst.get(), &out_out));
    return Tensor(out_out);
}
/** Adaptive average pooling of input [N, C, H, W] to output_size[2] = (OH, OW): cell i averages rows floor(i * H / OH) to ceil((i + 1) * H / OH), likewise columns. dst/out by convention. */
inline Tensor adaptive_avg_pool2d(const Tensor& input, IntList output_size, const Tensor& dst) {
    output_size.fixed(2, "nb_adaptive_avg_pool2d", "output_size");
    nb_tensor* out_out = nullptr;
    detail::check(nb_adaptive_avg_pool2d(input.get(), output_size.data(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** Layer normalization over the trailing dims normalized_shape[ndim]: (x - mean) / sqrt(var + eps) (biased variance) times weight plus bias, both optional and shaped normalized_shape, in the input's dtype. dst/out by convention. */
inline Tensor layer_norm(const Tensor& input, IntList normalized_shape, const Tensor& weight, const Tensor& bias, double eps, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_layer_norm(input.get(), normalized_shape.data(), static_cast<int32_t>(normalized_shape.size()), weight.get(), bias.get(), eps, dst.get(), &out_out));
    return Tensor(out_out);
}
/** Batch normalization of input [N, C, *] per channel. training: batch statistics (biased variance), and running_mean / running_var (optional, C elements) are updated in place as (1 - momentum) * running + momentum * batch stat (unbiased variance). Otherwise the running stats (required) are used. weight and bias optional [C]. dst/out by convention. */
inline Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight, const Tensor& bias, int32_t training, double momentum, double eps, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_batch_norm(input.get(), running_mean.get(), running_var.get(), weight.get(), bias.get(), training, momentum, eps, dst.get(), &out_out));
    return Tensor(out_out);
}
/** Group normalization of input [N, C, *]: statistics over each of num_groups groups of C / num_groups channels (and all positions) per item, then per-channel weight and bias (optional [C]). dst/out by convention. */
inline Tensor group_norm(const Tensor& input, int64_t num_groups, const Tensor& weight, const Tensor& bias, double eps, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_group_norm(input.get(), num_groups, weight.get(), bias.get(), eps, dst.get(), &out_out));
    return Tensor(out_out);
}
/** Negative log-likelihood of log-probabilities input [C], [N, C] or [N, C, d1, ...] at class-index target (int64 or uint8; [], [N] or [N, d1, ...]), times weight[class] (optional [C]); targets equal to ignore_index count nothing. reduction: NB_REDUCTION_NONE, _MEAN (divided by the summed weights) or _SUM. Out-of-range targets fail with NB_ERR_INDEX. dst/out by convention. */
inline Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t ignore_index, int32_t reduction, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_nll_loss(input.get(), target.get(), weight.get(), ignore_index, reduction, dst.get(), &out_out));
    return Tensor(out_out);
}
/** Cross entropy of logits input (class dim 1, or 0 when unbatched) against class indices (as nb_nll_loss on log_softmax) or, for a floating target shaped like the input, class probabilities (mean divides by the number of positions). label_smoothing in [0, 1] mixes in the uniform distribution as PyTorch does. reduction: NB_REDUCTION_NONE, _MEAN or _SUM. dst/out by convention. */
inline Tensor cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t ignore_index, int32_t reduction, double label_smoothing, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_cross_entropy(input.get(), target.get(), weight.get(), ignore_index, reduction, label_smoothing, dst.get(), &out_out));
    return Tensor(out_out);
}
/** (input - target)^2, broadcast, times weight (optional, the input's shape; the mean then divides by the summed weights), in the promoted floating dtype; reduction NB_REDUCTION_NONE / _MEAN / _SUM. dst/out by convention. */
inline Tensor mse_loss(const Tensor& input, const Tensor& target, const Tensor& weight, int32_t reduction, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_mse_loss(input.get(), target.get(), weight.get(), reduction, dst.get(), &out_out));
    return Tensor(out_out);
}
/** |input - target|, broadcast, times weight (optional, the input's shape; the mean then divides by the summed weights); reduction NB_REDUCTION_NONE / _MEAN / _SUM. dst/out by convention. */
inline Tensor l1_loss(const Tensor& input, const Tensor& target, const Tensor& weight, int32_t reduction, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_l1_loss(input.get(), target.get(), weight.get(), reduction, dst.get(), &out_out));
    return Tensor(out_out);
}
/** 0.5 z^2 / beta where z = |input - target| < beta, else z - 0.5 beta (beta >= 0; 0 gives L1); reduction NB_REDUCTION_NONE / _MEAN / _SUM. dst/out by convention. */
inline Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, int32_t reduction, double beta, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_smooth_l1_loss(input.get(), target.get(), reduction, beta, dst.get(), &out_out));
    return Tensor(out_out);
}
/** 0.5 z^2 where z = |input - target| < delta, else delta (z - 0.5 delta) (delta > 0), times weight (optional, the input's shape; the mean divides by the element count); reduction NB_REDUCTION_NONE / _MEAN / _SUM. dst/out by convention. */
inline Tensor huber_loss(const Tensor& input, const Tensor& target, const Tensor& weight, int32_t reduction, double delta, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_huber_loss(input.get(), target.get(), weight.get(), reduction, delta, dst.get(), &out_out));
    return Tensor(out_out);
}
/** -weight (target log(input) + (1 - target) log(1 - input)) with the logs clamped at -100; input in [0, 1], target of the input's shape and dtype, weight (optional) broadcast to it; reduction NB_REDUCTION_NONE / _MEAN / _SUM. dst/out by convention. */
inline Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight, int32_t reduction, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_binary_cross_entropy(input.get(), target.get(), weight.get(), reduction, dst.get(), &out_out));
    return Tensor(out_out);
}
/** -weight (pos_weight target log(sigmoid(x)) + (1 - target) log(1 - sigmoid(x))), computed stably from the logits x; target of the input's shape, weight and pos_weight (optional) broadcast; reduction NB_REDUCTION_NONE / _MEAN / _SUM. dst/out by convention. */
inline Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target, const Tensor& weight, const Tensor& pos_weight, int32_t reduction, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_binary_cross_entropy_with_logits(input.get(), target.get(), weight.get(), pos_weight.get(), reduction, dst.get(), &out_out));
    return Tensor(out_out);
}
/** Pointwise KL divergence with input as log-probabilities: target (log(target) - input), 0 where target is 0; with log_target, exp(target) (target - input). Broadcast; reduction NB_REDUCTION_NONE / _MEAN / _SUM ('batchmean' is sum / batch size). dst/out by convention. */
inline Tensor kl_div(const Tensor& input, const Tensor& target, int32_t reduction, int32_t log_target, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_kl_div(input.get(), target.get(), reduction, log_target, dst.get(), &out_out));
    return Tensor(out_out);
}
/** Rows of weight [num_embeddings, dim] (any dtype) at indices (int64 or int32, any shape): output indices.shape + [dim]. Indices out of range fail with NB_ERR_INDEX. padding_idx (negative for none) only affects the gradient. dst/out by convention. */
inline Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_embedding(weight.get(), indices.get(), padding_idx, dst.get(), &out_out));
    return Tensor(out_out);
}
/** Pads the last npad / 2 dims by pad = (last before, last after, second-to-last before, ...) as PyTorch's F.pad. mode NB_PAD_CONSTANT (value, converted to the dtype; negative pads crop), NB_PAD_REFLECT, NB_PAD_REPLICATE or NB_PAD_CIRCULAR (these three: the last 1-3 dims of a tensor with one or two more dims). Any dtype. dst/out by convention. */
inline Tensor pad(const Tensor& input, IntList pad, int32_t mode, double value, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_pad(input.get(), pad.data(), static_cast<int32_t>(pad.size()), mode, value, dst.get(), &out_out));
    return Tensor(out_out);
}
/** Gradient of nb_conv2d with respect to its input [N, C, H, W] (input_size = (H, W)), from grad_output [N, C_out, OH, OW] and weight [C_out, C / groups, kH, kW]; attributes as nb_conv2d (padding[4]). Computed as a transposed convolution (col2im). dst/out by convention. */
inline Tensor conv2d_backward_input(const Tensor& grad_output, const Tensor& weight, IntList input_size, IntList stride, IntList padding, IntList dilation, int64_t groups, const Tensor& dst) {
    input_size.fixed(2, "nb_conv2d_backward_input", "input_size");
    stride.fixed(2, "nb_conv2d_backward_input", "stride");
    padding.fixed(4, "nb_conv2d_backward_input", "padding");
    dilation.fixed(2, "nb_conv2d_backward_input", "dilation");
    nb_tensor* out_out = nullptr;
    detail::check(nb_conv2d_backward_input(grad_output.get(), weight.get(), input_size.data(), stride.data(), padding.data(), dilation.data(), groups, dst.get(), &out_out));
    return Tensor(out_out);
}
/** Gradient of nb_conv2d with respect to its weight [C_out, C / groups, kH, kW] (kernel_size = (kH, kW)), from grad_output [N, C_out, OH, OW] and input [N, C, H, W]; attributes as nb_conv2d. One GEMM over im2col(input) per image tile. dst/out by convention. */
inline Tensor conv2d_backward_weight(const Tensor& grad_output, const Tensor& input, IntList kernel_size, IntList stride, IntList padding, IntList dilation, int64_t groups, const Tensor& dst) {
    kernel_size.fixed(2, "nb_conv2d_backward_weight", "kernel_size");
    stride.fixed(2, "nb_conv2d_backward_weight", "stride");
    padding.fixed(4, "nb_conv2d_backward_weight", "padding");
    dilation.fixed(2, "nb_conv2d_backward_weight", "dilation");
    nb_tensor* out_out = nullptr;
    detail::check(nb_conv2d_backward_weight(grad_output.get(), input.get(), kernel_size.data(), stride.data(), padding.data(), dilation.data(), groups, dst.get(), &out_out));
    return Tensor(out_out);
}
/** Gradient of nb_max_pool2d with respect to its input [N, C, H, W] (input_size = (H, W)): grad_output [N, C, OH, OW] summed into the argmax positions indices (int64, as nb_max_pool2d returns them). dst/out by convention. */
inline Tensor max_pool2d_backward(const Tensor& grad_output, const Tensor& indices, IntList input_size, const Tensor& dst) {
    input_size.fixed(2, "nb_max_pool2d_backward", "input_size");
    nb_tensor* out_out = nullptr;
    detail::check(nb_max_pool2d_backward(grad_output.get(), indices.get(), input_size.data(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** Gradient of nb_avg_pool2d with respect to its input [N, C, H, W] (input_size = (H, W)) from grad_output [N, C, OH, OW]; attributes as nb_avg_pool2d (stride NULL meaning kernel_size; ceil_mode is implied by OH, OW). dst/out by convention. */
inline Tensor avg_pool2d_backward(const Tensor& grad_output, IntList input_size, IntList kernel_size, IntList stride, IntList padding, int32_t count_include_pad, int64_t divisor_override, const Tensor& dst) {
    input_size.fixed(2, "nb_avg_pool2d_backward", "input_size");
    kernel_size.fixed(2, "nb_avg_pool2d_backward", "kernel_size");
    stride.fixed(2, "nb_avg_pool2d_backward", "stride");
    padding.fixed(2, "nb_avg_pool2d_backward", "padding");
    nb_tensor* out_out = nullptr;
    detail::check(nb_avg_pool2d_backward(grad_output.get(), input_size.data(), kernel_size.data(), stride.data(), padding.data(), count_include_pad, divisor_override, dst.get(), &out_out));
    return Tensor(out_out);
}
/** Gradient of nb_adaptive_avg_pool2d with respect to its input [N, C, H, W] (input_size = (H, W)) from grad_output [N, C, OH, OW]. dst/out by convention. */
inline Tensor adaptive_avg_pool2d_backward(const Tensor& grad_output, IntList input_size, const Tensor& dst) {
    input_size.fixed(2, "nb_adaptive_avg_pool2d_backward", "input_size");
    nb_tensor* out_out = nullptr;
    detail::check(nb_adaptive_avg_pool2d_backward(grad_output.get(), input_size.data(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** Gradients of nb_layer_norm from grad_output (the input's shape), recomputing the statistics of input: the input gradient into dst/out (by convention; out NULL and dst NULL: not computed), and when not NULL grad_weight and grad_bias (shaped normalized_shape, as if weight and bias were given). weight optional. */
inline std::tuple<Tensor, Tensor, Tensor> layer_norm_backward(const Tensor& grad_output, const Tensor& input, IntList normalized_shape, const Tensor& weight, double eps, const Tensor& dst) {
    nb_tensor* grad_weight_out = nullptr; nb_tensor* grad_bias_out = nullptr; nb_tensor* out_out = nullptr;
    detail::check(nb_layer_norm_backward(grad_output.get(), input.get(), normalized_shape.data(), static_cast<int32_t>(normalized_shape.size()), weight.get(), eps, &grad_weight_out, &grad_bias_out, dst.get(), &out_out));
    return {Tensor(grad_weight_out), Tensor(grad_bias_out), Tensor(out_out)};
}
/** Gradients of nb_batch_norm in training mode (batch statistics, recomputed from input [N, C, *]) from grad_output (the input's shape): the input gradient into dst/out (by convention; both NULL: not computed), and when not NULL grad_weight and grad_bias ([C]). weight optional [C]. */
inline std::tuple<Tensor, Tensor, Tensor> batch_norm_backward(const Tensor& grad_output, const Tensor& input, const Tensor& weight, double eps, const Tensor& dst) {
    nb_tensor* grad_weight_out = nullptr; nb_tensor* grad_bias_out = nullptr; nb_tensor* out_out = nullptr;
    detail::check(nb_batch_norm_backward(grad_output.get(), input.get(), weight.get(), eps, &grad_weight_out, &grad_bias_out, dst.get(), &out_out));
    return {Tensor(grad_weight_out), Tensor(grad_bias_out), Tensor(out_out)};
}
/** Gradients of nb_group_norm from grad_output (the input's shape), recomputing the statistics of input [N, C, *]: the input gradient into dst/out (by convention; both NULL: not computed), and when not NULL grad_weight and grad_bias ([C]). weight optional [C]. */
inline std::tuple<Tensor, Tensor, Tensor> group_norm_backward(const Tensor& grad_output, const Tensor& input, int64_t num_groups, const Tensor& weight, double eps, const Tensor& dst) {
    nb_tensor* grad_weight_out = nullptr; nb_tensor* grad_bias_out = nullptr; nb_tensor* out_out = nullptr;
    detail::check(nb_group_norm_backward(grad_output.get(), input.get(), num_groups, weight.get(), eps, &grad_weight_out, &grad_bias_out, dst.get(), &out_out));
    return {Tensor(grad_weight_out), Tensor(grad_bias_out), Tensor(out_out)};
}
/** Gradient of nb_embedding with respect to its weight: [num_weights, dim] in grad_output's (float) dtype, the rows of grad_output [*indices.shape, dim] summed into the rows their indices (int64 or int32) name, in index order; the padding_idx row (negative for none) stays zero; with scale_grad_by_freq each row's terms are divided by how often its index occurs. On CUDA one deterministic kernel after a stable sort of the indices; an index out of range fails with NB_ERR_INDEX (on a device at the next synchronising call). Differentiable in grad_output (the rows gathered back, frequency scaling ignored, as PyTorch). dst/out by convention. */
inline Tensor embedding_dense_backward(const Tensor& grad_output, const Tensor& indices, int64_t num_weights, int64_t padding_idx, int32_t scale_grad_by_freq, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_embedding_dense_backward(grad_output.get(), indices.get(), num_weights, padding_idx, scale_grad_by_freq, dst.get(), &out_out));
    return Tensor(out_out);
}
/** The gradient of nb_gelu at input from the output gradient (PyTorch's gelu_backward), fused: grad_output * (Phi(x) + x phi(x)), or the derivative of the tanh approximation when approximate_tanh is 1. Floating inputs, broadcast together and promoted; float16 / bfloat16 compute in float32. dst/out by convention. */
inline Tensor gelu_backward(const Tensor& grad_output, const Tensor& input, int32_t approximate_tanh, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_gelu_backward(grad_output.get(), input.get(), approximate_tanh, dst.get(), &out_out));
    return Tensor(out_out);
}
/** One SGD step in place, PyTorch's formula: g = grad (negated with maximize) + weight_decay * param; with momentum != 0, buf = g when init_buffer (the first step) else momentum * buf + (1 - dampening) * g, and g = g + momentum * buf (nesterov) or buf; param -= lr * g. momentum_buffer (param's shape and dtype) may be NULL when momentum is 0. Floating dtypes; strided operands work through a copy. Bumps the versions of what it writes. */
inline void sgd_step(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer, double lr, double momentum, double dampening, double weight_decay, int32_t nesterov, int32_t maximize, int32_t init_buffer) {
    detail::check(nb_sgd_step(param.get(), grad.get(), momentum_buffer.get(), lr, momentum, dampening, weight_decay, nesterov, maximize, init_buffer));
}
/** One Adam (AdamW with decoupled_weight_decay) step in place at step >= 1 (already counted), PyTorch's formula: weight decay scales param by 1 - lr * weight_decay (decoupled) or adds weight_decay * param to the gradient; exp_avg lerps to g by 1 - beta1, exp_avg_sq = beta2 * exp_avg_sq + (1 - beta2) g^2; with amsgrad, max_exp_avg_sq (else may be NULL) keeps the running maximum and is used instead; param -= lr / (1 - beta1^step) * exp_avg / (sqrt(v) / sqrt(1 - beta2^step) + eps). All operands share param's shape and dtype. */
inline void adam_step(const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq, const Tensor& max_exp_avg_sq, int64_t step, double lr, double beta1, double beta2, double eps, double weight_decay, int32_t decoupled_weight_decay, int32_t amsgrad, int32_t maximize) {
    detail::check(nb_adam_step(param.get(), grad.get(), exp_avg.get(), exp_avg_sq.get(), max_exp_avg_sq.get(), step, lr, beta1, beta2, eps, weight_decay, decoupled_weight_decay, amsgrad, maximize));
}
/** One RMSprop step in place, PyTorch's formula: square_avg = alpha * square_avg + (1 - alpha) g^2; centered: grad_avg lerps to g by 1 - alpha and avg = sqrt(square_avg - grad_avg^2) + eps, else sqrt(square_avg) + eps; with momentum > 0, buf = momentum * buf + g / avg and param -= lr * buf, else param -= lr * g / avg. grad_avg and momentum_buffer may be NULL when unused. */
inline void rmsprop_step(const Tensor& param, const Tensor& grad, const Tensor& square_avg, const Tensor& grad_avg, const Tensor& momentum_buffer, double lr, double alpha, double eps, double weight_decay, double momentum, int32_t centered, int32_t maximize) {
    detail::check(nb_rmsprop_step(param.get(), grad.get(), square_avg.get(), grad_avg.get(), momentum_buffer.get(), lr, alpha, eps, weight_decay, momentum, centered, maximize));
}
/** One Adagrad step in place at step >= 1 (already counted), PyTorch's formula: clr = lr / (1 + (step - 1) lr_decay); state_sum += g^2; param -= clr * g / (sqrt(state_sum) + eps). */
inline void adagrad_step(const Tensor& param, const Tensor& grad, const Tensor& state_sum, int64_t step, double lr, double lr_decay, double eps, double weight_decay, int32_t maximize) {
    detail::check(nb_adagrad_step(param.get(), grad.get(), state_sum.get(), step, lr, lr_decay, eps, weight_decay, maximize));
}
/** The norm of order norm_type (> 0, 0 or inf) of all n tensors taken together, as a 0-dim tensor of the first one's dtype (float32 for none); when max_norm / (norm + 1e-6) < 1 every tensor is multiplied by it in place (PyTorch's clip_grad_norm_; max_norm = inf only measures). A non-finite norm fails with error_if_nonfinite. On a device the norm and the scaling stay there (a few multi-tensor launches, nothing read back) unless error_if_nonfinite, which reads the norm. */
inline Tensor clip_grad_norm_(const std::vector<Tensor>& grads, double max_norm, double norm_type, int32_t error_if_nonfinite) {
    const auto grads_h = detail::handles(grads);
    nb_tensor* out_out = nullptr;
    detail::check(nb_clip_grad_norm_(grads_h.data(), static_cast<int32_t>(grads.size()), max_norm, norm_type, error_if_nonfinite, &out_out));
    return Tensor(out_out);
}
/** Clamps every element of the n floating-point tensors to [-clip_value, clip_value] in place (PyTorch's clip_grad_value_; NaN stays NaN). All tensors on one device; a device runs it without reading anything back. */
inline void clip_grad_value_(const std::vector<Tensor>& grads, double clip_value) {
    const auto grads_h = detail::handles(grads);
    detail::check(nb_clip_grad_value_(grads_h.data(), static_cast<int32_t>(grads.size()), clip_value));
}
/** Seeds the default generator (offset back to 0). */
inline void manual_seed(uint64_t seed) {
    detail::check(nb_manual_seed(seed));
}
/** Sets the seed and rewinds the offset to 0 (gen NULL: the default generator). */
inline void generator_manual_seed(nb_generator* gen, uint64_t seed) {
    detail::check(nb_generator_manual_seed(gen, seed));
}
/** Restores a state from nb_generator_get_state. */
inline void generator_set_state(nb_generator* gen, uint64_t seed, uint64_t offset) {
    detail::check(nb_generator_set_state(gen, seed, offset));
}
/** Uniform values on [0, 1) in a floating dtype (float16/bfloat16 get values exact in their precision). gen NULL means the default generator. dst/out by convention; dst's shape, dtype and device must match the request. */
inline Tensor rand(IntList shape, int32_t dtype, int32_t device_type, int32_t device_index, nb_generator* gen, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_rand(shape.data(), static_cast<int32_t>(shape.size()), dtype, device_type, device_index, gen, dst.get(), &out_out));
    return Tensor(out_out);
}
/** Standard normal values (Box-Muller) in a floating dtype (float16/bfloat16 computed as float32 and rounded). gen NULL means the default generator. dst/out by convention; dst's shape, dtype and device must match the request. */
inline Tensor randn(IntList shape, int32_t dtype, int32_t device_type, int32_t device_index, nb_generator* gen, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_randn(shape.data(), static_cast<int32_t>(shape.size()), dtype, device_type, device_index, gen, dst.get(), &out_out));
    return Tensor(out_out);
}
/** Integers uniform on [low, high) in any dtype that holds both bounds exactly (floats: within +-2^mantissa digits). gen NULL means the default generator. dst/out by convention; dst's shape, dtype and device must match the request. */
inline Tensor randint(int64_t low, int64_t high, IntList shape, int32_t dtype, int32_t device_type, int32_t device_index, nb_generator* gen, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_randint(low, high, shape.data(), static_cast<int32_t>(shape.size()), dtype, device_type, device_index, gen, dst.get(), &out_out));
    return Tensor(out_out);
}
/** A random permutation of 0 .. n-1 (Fisher-Yates on the generator's stream), 1-D. gen NULL means the default generator. dst/out by convention; dst's shape, dtype and device must match the request. */
inline Tensor randperm(int64_t n, int32_t dtype, int32_t device_type, int32_t device_index, nb_generator* gen, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_randperm(n, dtype, device_type, device_index, gen, dst.get(), &out_out));
    return Tensor(out_out);
}
/** Fills a floating tensor in place with values uniform on [from, to) (from <= to, both finite). Bumps t's version. gen NULL means the default generator. */
inline Tensor uniform_(const Tensor& t, double from, double to, nb_generator* gen) {
    detail::check(nb_uniform_(t.get(), from, to, gen));
    return t;
}
/** Fills a floating tensor in place with normal values (std >= 0). Bumps t's version. gen NULL means the default generator. */
inline Tensor normal_(const Tensor& t, double mean, double std, nb_generator* gen) {
    detail::check(nb_normal_(t.get(), mean, std, gen));
    return t;
}
/** Fills t in place with integers uniform on [low, high_inclusive] (inclusive, so a dtype's whole range is expressible; PyTorch's random_(from, to) is [from, to - 1]). Bumps t's version. gen NULL means the default generator. */
inline Tensor random_(const Tensor& t, int64_t low, int64_t high_inclusive, nb_generator* gen) {
    detail::check(nb_random_(t.get(), low, high_inclusive, gen));
    return t;
}
/** 1 with probability p[i], else 0, in p's shape and (floating) dtype; every p[i] must be in [0, 1]. With dst non-NULL, p broadcasts to dst's shape and the 0/1 values take dst's dtype; dst/out otherwise by convention. gen NULL means the default generator. */
inline Tensor bernoulli(const Tensor& p, nb_generator* gen, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_bernoulli(p.get(), gen, dst.get(), &out_out));
    return Tensor(out_out);
}
/** 1 with probability p (in [0, 1]), else 0, in any dtype. gen NULL means the default generator. dst/out by convention; dst's shape, dtype and device must match the request. */
inline Tensor bernoulli_scalar(double p, IntList shape, int32_t dtype, int32_t device_type, int32_t device_index, nb_generator* gen, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_bernoulli_scalar(p, shape.data(), static_cast<int32_t>(shape.size()), dtype, device_type, device_index, gen, dst.get(), &out_out));
    return Tensor(out_out);
}
/** int64 category indices drawn from each row of probs (1-D [k] or 2-D [rows, k]; non-negative finite weights, not necessarily normalised, each row summing > 0): shape [num_samples] or [rows, num_samples]. Without replacement, num_samples <= k and zero-weight categories come only after every positive one. gen NULL means the default generator. dst/out by convention. */
inline Tensor multinomial(const Tensor& probs, int64_t num_samples, int32_t replacement, nb_generator* gen, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_multinomial(probs.get(), num_samples, replacement, gen, dst.get(), &out_out));
    return Tensor(out_out);
}
/** Training (train != 0): each element of a floating x is zeroed with probability p and the rest are scaled by 1/(1-p), so the expectation is kept; p = 1 gives zeros (x * 0). The keep mask is bernoulli(1 - p) from the same stream. Not training: x itself (a new reference), or a copy into dst. dst must have x's shape and a floating dtype (dst == x is in-place). gen NULL means the default generator. Differentiable: the gradient is go times the same scaled mask (the identity when not training or p = 0). */
inline Tensor dropout(const Tensor& x, double p, int32_t train, nb_generator* gen, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_dropout(x.get(), p, train, gen, dst.get(), &out_out));
    return Tensor(out_out);
}
/** Sum over dims[ndims] (negative dims wrap, no duplicates; ndims 0 = every dim, and dims may then be NULL), keepdim keeps them as size 1. dtype (-1: default; else out's dtype when dst is given) is the result dtype, the input is cast to it first. Integer and bool inputs give int64 by default. float32 sums are pairwise in float inside 128-element blocks and accumulate in double; float64 sums are pairwise; float16/bfloat16 accumulate as float32 and round once. The sum of nothing is 0. dst/out by convention; dst must have the result's shape and dtype. */
inline Tensor sum(const Tensor& t, IntList dims, int32_t keepdim, int32_t dtype, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_sum(t.get(), dims.data(), static_cast<int32_t>(dims.size()), keepdim, dtype, dst.get(), &out_out));
    return Tensor(out_out);
}
/** Mean over dims[ndims] (negative dims wrap, no duplicates; ndims 0 = every dim, and dims may then be NULL), keepdim keeps them as size 1. dtype (-1: default; else out's dtype when dst is given) is the result dtype, the input is cast to it first. Floating point only (an integer input needs a floating dtype). Accumulates as nb_sum; the mean of nothing is NaN. dst/out by convention; dst must have the result's shape and dtype. */
inline Tensor mean(const Tensor& t, IntList dims, int32_t keepdim, int32_t dtype, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_mean(t.get(), dims.data(), static_cast<int32_t>(dims.size()), keepdim, dtype, dst.get(), &out_out));
    return Tensor(out_out);
}
/** Product over dims[ndims] (negative dims wrap, no duplicates; ndims 0 = every dim, and dims may then be NULL), keepdim keeps them as size 1. dtype (-1: default; else out's dtype when dst is given) is the result dtype, the input is cast to it first. Integer and bool inputs give int64 by default (wrapping); floats multiply in double. The product of nothing is 1. dst/out by convention; dst must have the result's shape and dtype. */
inline Tensor prod(const Tensor& t, IntList dims, int32_t keepdim, int32_t dtype, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_prod(t.get(), dims.data(), static_cast<int32_t>(dims.size()), keepdim, dtype, dst.get(), &out_out));
    return Tensor(out_out);
}
/** Maximum over dims[ndims] (negative dims wrap, no duplicates; ndims 0 = every dim, and dims may then be NULL), keepdim keeps them as size 1; the input's dtype; NaN propagates. Reducing an empty dim fails (no identity). dst/out by convention; dst must have the result's shape and dtype. */
inline Tensor amax(const Tensor& t, IntList dims, int32_t keepdim, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_amax(t.get(), dims.data(), static_cast<int32_t>(dims.size()), keepdim, dst.get(), &out_out));
    return Tensor(out_out);
}
/** Minimum over dims[ndims] (negative dims wrap, no duplicates; ndims 0 = every dim, and dims may then be NULL), keepdim keeps them as size 1; the input's dtype; NaN propagates. Reducing an empty dim fails (no identity). dst/out by convention; dst must have the result's shape and dtype. */
inline Tensor amin(const Tensor& t, IntList dims, int32_t keepdim, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_amin(t.get(), dims.data(), static_cast<int32_t>(dims.size()), keepdim, dst.get(), &out_out));
    return Tensor(out_out);
}
/** PyTorch's max(t, dim, keepdim): two results, the maximum values along dim (the input's dtype) into *values and their int64 indices into *indices (the first occurrence; a NaN wins and propagates). dst_values / dst_indices, when non-NULL, receive the results (out=) and the matching out pointer may then be NULL. Reducing an empty dim fails. */
inline std::tuple<Tensor, Tensor> max_dim(const Tensor& t, int64_t dim, int32_t keepdim, const Tensor& dst_values, const Tensor& dst_indices) {
    nb_tensor* values_out = nullptr; nb_tensor* indices_out = nullptr;
    detail::check(nb_max_dim(t.get(), dim, keepdim, dst_values.get(), dst_indices.get(), &values_out, &indices_out));
    return {Tensor(values_out), Tensor(indices_out)};
}
/** PyTorch's min(t, dim, keepdim): two results, the minimum values along dim (the input's dtype) into *values and their int64 indices into *indices (the first occurrence; a NaN wins and propagates). dst_values / dst_indices, when non-NULL, receive the results (out=) and the matching out pointer may then be NULL. Reducing an empty dim fails. */
inline std::tuple<Tensor, Tensor> min_dim(const Tensor& t, int64_t dim, int32_t keepdim, const Tensor& dst_values, const Tensor& dst_indices) {
    nb_tensor* values_out = nullptr; nb_tensor* indices_out = nullptr;
    detail::check(nb_min_dim(t.get(), dim, keepdim, dst_values.get(), dst_indices.get(), &values_out, &indices_out));
    return {Tensor(values_out), Tensor(indices_out)};
}
/** int64 index of the first maximum along *dim, or into the flattened tensor when dim is NULL (keepdim then gives all dims size 1); a NaN counts as the maximum. Not for bool; an empty reduction fails. dst/out by convention; dst must have the result's shape and dtype. */
inline Tensor argmax(const Tensor& t, std::optional<int64_t> dim, int32_t keepdim, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_argmax(t.get(), dim ? &*dim : nullptr, keepdim, dst.get(), &out_out));
    return Tensor(out_out);
}
/** int64 index of the first minimum along *dim, or into the flattened tensor when dim is NULL (keepdim then gives all dims size 1); a NaN counts as the minimum. Not for bool; an empty reduction fails. dst/out by convention; dst must have the result's shape and dtype. */
inline Tensor argmin(const Tensor& t, std::optional<int64_t> dim, int32_t keepdim, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_argmin(t.get(), dim ? &*dim : nullptr, keepdim, dst.get(), &out_out));
    return Tensor(out_out);
}
/** Variance over dims[ndims] (negative dims wrap, no duplicates; ndims 0 = every dim, and dims may then be NULL), keepdim keeps them as size 1, dividing by max(0, N - correction) (1: unbiased, 0: population). Floating point only; computed in double with a stable (blocked two-pass / Welford + Chan) update. dst/out by convention; dst must have the result's shape and dtype. */
inline Tensor var(const Tensor& t, IntList dims, double correction, int32_t keepdim, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_var(t.get(), dims.data(), static_cast<int32_t>(dims.size()), correction, keepdim, dst.get(), &out_out));
    return Tensor(out_out);
}
/** Standard deviation over dims[ndims] (negative dims wrap, no duplicates; ndims 0 = every dim, and dims may then be NULL), keepdim keeps them as size 1, dividing by max(0, N - correction) (1: unbiased, 0: population). Floating point only; computed in double with a stable (blocked two-pass / Welford + Chan) update. dst/out by convention; dst must have the result's shape and dtype. */
inline Tensor std(const Tensor& t, IntList dims, double correction, int32_t keepdim, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_std(t.get(), dims.data(), static_cast<int32_t>(dims.size()), correction, keepdim, dst.get(), &out_out));
    return Tensor(out_out);
}
/** Vector p-norm over dims[ndims] (negative dims wrap, no duplicates; ndims 0 = every dim, and dims may then be NULL), keepdim keeps them as size 1: p = 2 (Frobenius over every dim), 1, INFINITY (max |x|), -INFINITY (min |x|), 0 (count of non-zeros) or any other p ((sum |x|^p)^(1/p)). Floating point input; dtype (-1: the input's) is the result dtype. The inf / negative norms of an empty reduction fail. dst/out by convention; dst must have the result's shape and dtype. */
inline Tensor norm(const Tensor& t, double p, IntList dims, int32_t keepdim, int32_t dtype, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_norm(t.get(), p, dims.data(), static_cast<int32_t>(dims.size()), keepdim, dtype, dst.get(), &out_out));
    return Tensor(out_out);
}
/** log(sum(exp(x))) over dims[ndims] (negative dims wrap, no duplicates; ndims 0 = every dim, and dims may then be NULL), keepdim keeps them as size 1, computed stably (max shifted, in double). Integer inputs give the default float dtype; the result of nothing is -inf. dst/out by convention; dst must have the result's shape and dtype. */
inline Tensor logsumexp(const Tensor& t, IntList dims, int32_t keepdim, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_logsumexp(t.get(), dims.data(), static_cast<int32_t>(dims.size()), keepdim, dst.get(), &out_out));
    return Tensor(out_out);
}
/** Whether every element is non-zero over dims[ndims] (negative dims wrap, no duplicates; ndims 0 = every dim, and dims may then be NULL), keepdim keeps them as size 1: bool (uint8 for uint8 input, as PyTorch). True for nothing. dst/out by convention; dst must have the result's shape and dtype. */
inline Tensor all(const Tensor& t, IntList dims, int32_t keepdim, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_all(t.get(), dims.data(), static_cast<int32_t>(dims.size()), keepdim, dst.get(), &out_out));
    return Tensor(out_out);
}
/** Whether any element is non-zero over dims[ndims] (negative dims wrap, no duplicates; ndims 0 = every dim, and dims may then be NULL), keepdim keeps them as size 1: bool (uint8 for uint8 input, as PyTorch). False for nothing. dst/out by convention; dst must have the result's shape and dtype. */
inline Tensor any(const Tensor& t, IntList dims, int32_t keepdim, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_any(t.get(), dims.data(), static_cast<int32_t>(dims.size()), keepdim, dst.get(), &out_out));
    return Tensor(out_out);
}
/** Cumulative sum along dim (same shape). dtype (-1: default; else out's dtype when dst is given) is the result dtype, integers and bool give int64 by default; floats accumulate in double and each output is rounded once. dst may be t itself (in place). dst/out by convention; dst must have the result's shape and dtype. */
inline Tensor cumsum(const Tensor& t, int64_t dim, int32_t dtype, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_cumsum(t.get(), dim, dtype, dst.get(), &out_out));
    return Tensor(out_out);
}
/** Cumulative product along dim (same shape). dtype (-1: default; else out's dtype when dst is given) is the result dtype, integers and bool give int64 by default; floats accumulate in double and each output is rounded once. dst may be t itself (in place). dst/out by convention; dst must have the result's shape and dtype. */
inline Tensor cumprod(const Tensor& t, int64_t dim, int32_t dtype, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_cumprod(t.get(), dim, dtype, dst.get(), &out_out));
    return Tensor(out_out);
}
/** exp(x) / sum(exp(x)) along dim, computed stably (max shifted). dtype (-1: the input's) casts the input first and must be floating point; float16 / bfloat16 compute in float32 and round once. dst may be t itself (in place). dst/out by convention; dst must have the result's shape and dtype. */
inline Tensor softmax(const Tensor& t, int64_t dim, int32_t dtype, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_softmax(t.get(), dim, dtype, dst.get(), &out_out));
    return Tensor(out_out);
}
/** x - log(sum(exp(x))) along dim, computed stably (max shifted). dtype (-1: the input's) casts the input first and must be floating point; float16 / bfloat16 compute in float32 and round once. dst may be t itself (in place). dst/out by convention; dst must have the result's shape and dtype. */
inline Tensor log_softmax(const Tensor& t, int64_t dim, int32_t dtype, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_log_softmax(t.get(), dim, dtype, dst.get(), &out_out));
    return Tensor(out_out);
}
/** Concatenates n tensors along dim (PyTorch's torch.cat): shapes must match except along dim; the dtype is the promotion of all inputs; 1-D empty tensors are skipped (PyTorch's legacy rule). dst/out by convention. */
inline Tensor cat(const std::vector<Tensor>& tensors, int64_t dim, const Tensor& dst) {
    const auto tensors_h = detail::handles(tensors);
    nb_tensor* out_out = nullptr;
    detail::check(nb_cat(tensors_h.data(), static_cast<int32_t>(tensors.size()), dim, dst.get(), &out_out));
    return Tensor(out_out);
}
/** Stacks n tensors of one shape along a new dim (in [-ndim-1, ndim]). dst/out by convention. */
inline Tensor stack(const std::vector<Tensor>& tensors, int64_t dim, const Tensor& dst) {
    const auto tensors_h = detail::handles(tensors);
    nb_tensor* out_out = nullptr;
    detail::check(nb_stack(tensors_h.data(), static_cast<int32_t>(tensors.size()), dim, dst.get(), &out_out));
    return Tensor(out_out);
}
/** A copy of x with the order of elements reversed along each of dims (no duplicates). */
inline Tensor flip(const Tensor& x, IntList dims) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_flip(x.get(), dims.data(), static_cast<int32_t>(dims.size()), &out_out));
    return Tensor(out_out);
}
/** A copy of x with elements shifted circularly by shifts[i] along dims[i]; with ndims 0 and one shift, along the flattened tensor. */
inline Tensor roll(const Tensor& x, IntList shifts, IntList dims) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_roll(x.get(), shifts.data(), static_cast<int32_t>(shifts.size()), dims.data(), static_cast<int32_t>(dims.size()), &out_out));
    return Tensor(out_out);
}
/** Tensor.repeat: x tiled repeats[i] times along each dim (n >= x's ndim; extra leading repeats add dims). */
inline Tensor repeat(const Tensor& x, IntList repeats) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_repeat(x.get(), repeats.data(), static_cast<int32_t>(repeats.size()), &out_out));
    return Tensor(out_out);
}
/** The lower triangle of the last two dims (elements with col - row <= diagonal), zeros elsewhere. dst/out by convention. */
inline Tensor tril(const Tensor& x, int64_t diagonal, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_tril(x.get(), diagonal, dst.get(), &out_out));
    return Tensor(out_out);
}
/** The upper triangle of the last two dims (elements with col - row >= diagonal), zeros elsewhere. dst/out by convention. */
inline Tensor triu(const Tensor& x, int64_t diagonal, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_triu(x.get(), diagonal, dst.get(), &out_out));
    return Tensor(out_out);
}
/** Sorts x along dim: *values (x's dtype) and *indices (int64). The sort is always stable; NaN orders above every number (last ascending, first descending), as in PyTorch. */
inline std::tuple<Tensor, Tensor> sort(const Tensor& x, int64_t dim, int32_t descending, int32_t stable) {
    nb_tensor* values_out = nullptr; nb_tensor* indices_out = nullptr;
    detail::check(nb_sort(x.get(), dim, descending, stable, &values_out, &indices_out));
    return {Tensor(values_out), Tensor(indices_out)};
}
/** The int64 indices that sort x along dim (the indices of nb_sort). */
inline Tensor argsort(const Tensor& x, int64_t dim, int32_t descending, int32_t stable) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_argsort(x.get(), dim, descending, stable, &out_out));
    return Tensor(out_out);
}
/** For each element of values, its insertion point in sorted_sequence's last dim (sorted ascending) that keeps it sorted: the count of elements below it (< value; <= with right), by binary search. sorted_sequence is 1-d (one line for all values) or has values' leading dims; same dtype (not bool) and device. *out: int64 (int32 with out_int32), shaped as values. NaN values go last, as in PyTorch. */
inline Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& values, int32_t right, int32_t out_int32) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_searchsorted(sorted_sequence.get(), values.get(), right, out_int32, &out_out));
    return Tensor(out_out);
}
/** The k largest (or smallest) elements along dim and their int64 indices, always sorted; ties keep the earlier index first. */
inline std::tuple<Tensor, Tensor> topk(const Tensor& x, int64_t k, int64_t dim, int32_t largest, int32_t sorted) {
    nb_tensor* values_out = nullptr; nb_tensor* indices_out = nullptr;
    detail::check(nb_topk(x.get(), k, dim, largest, sorted, &values_out, &indices_out));
    return {Tensor(values_out), Tensor(indices_out)};
}
/** The distinct values of the flattened x, sorted (every NaN is distinct, as in PyTorch); inverse (x's shape, int64: each element's position in values) and counts (int64) are computed only when their pointers are non-NULL. */
inline std::tuple<Tensor, Tensor, Tensor> unique(const Tensor& x, int32_t sorted) {
    nb_tensor* values_out = nullptr; nb_tensor* inverse_out = nullptr; nb_tensor* counts_out = nullptr;
    detail::check(nb_unique(x.get(), sorted, &values_out, &inverse_out, &counts_out));
    return {Tensor(values_out), Tensor(inverse_out), Tensor(counts_out)};
}
/** PyTorch's unique(dim=): the distinct slices of x along dim, sorted lexicographically (by the first element that is < or >; slices holding NaN equal no other); inverse (int64 [x.shape[dim]]: each slice's position in values) and counts (int64) are computed only when their pointers are non-NULL. A zero-sized dim other than dim is an error, as in PyTorch. */
inline std::tuple<Tensor, Tensor, Tensor> unique_dim(const Tensor& x, int64_t dim, int32_t sorted) {
    nb_tensor* values_out = nullptr; nb_tensor* inverse_out = nullptr; nb_tensor* counts_out = nullptr;
    detail::check(nb_unique_dim(x.get(), dim, sorted, &values_out, &inverse_out, &counts_out));
    return {Tensor(values_out), Tensor(inverse_out), Tensor(counts_out)};
}
/** PyTorch's unique_consecutive: x with each run of equal consecutive elements (has_dim 0: of the flattened x; else slices along dim) reduced to one; inverse (int64, x's shape, or [x.shape[dim]] with a dim) and counts (int64) are computed only when their pointers are non-NULL. */
inline std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& x, int64_t dim, int32_t has_dim) {
    nb_tensor* values_out = nullptr; nb_tensor* inverse_out = nullptr; nb_tensor* counts_out = nullptr;
    detail::check(nb_unique_consecutive(x.get(), dim, has_dim, &values_out, &inverse_out, &counts_out));
    return {Tensor(values_out), Tensor(inverse_out), Tensor(counts_out)};
}
/** The gradient of softmax along dim from its result output and the output gradient (PyTorch's _softmax_backward_data): output * (grad_output - sum(grad_output * output, dim)), fused. grad_output and output have one shape and one floating dtype (the result's); float16 / bfloat16 compute in float32. dst/out by convention; dst must have the result's shape and dtype. */
inline Tensor softmax_backward(const Tensor& grad_output, const Tensor& output, int64_t dim, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_softmax_backward(grad_output.get(), output.get(), dim, dst.get(), &out_out));
    return Tensor(out_out);
}
/** The gradient of log_softmax along dim from its result output and the output gradient (PyTorch's _log_softmax_backward_data): grad_output - exp(output) * sum(grad_output, dim), fused. Shapes, dtypes and dst as nb_softmax_backward. */
inline Tensor log_softmax_backward(const Tensor& grad_output, const Tensor& output, int64_t dim, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_log_softmax_backward(grad_output.get(), output.get(), dim, dst.get(), &out_out));
    return Tensor(out_out);
}
/** e^x, elementwise (integers compute in the default float dtype). dst/out by convention. */
inline Tensor exp(const Tensor& x, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_exp(x.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** 2^x, elementwise (integers compute in the default float dtype). dst/out by convention. */
inline Tensor exp2(const Tensor& x, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_exp2(x.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** e^x - 1, elementwise (integers compute in the default float dtype). dst/out by convention. */
inline Tensor expm1(const Tensor& x, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_expm1(x.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** natural log, elementwise (integers compute in the default float dtype). dst/out by convention. */
inline Tensor log(const Tensor& x, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_log(x.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** log base 2, elementwise (integers compute in the default float dtype). dst/out by convention. */
inline Tensor log2(const Tensor& x, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_log2(x.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** log base 10, elementwise (integers compute in the default float dtype). dst/out by convention. */
inline Tensor log10(const Tensor& x, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_log10(x.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** log(1 + x), elementwise (integers compute in the default float dtype). dst/out by convention. */
inline Tensor log1p(const Tensor& x, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_log1p(x.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** square root, elementwise (integers compute in the default float dtype). dst/out by convention. */
inline Tensor sqrt(const Tensor& x, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_sqrt(x.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** 1 / sqrt(x), elementwise (integers compute in the default float dtype). dst/out by convention. */
inline Tensor rsqrt(const Tensor& x, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_rsqrt(x.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** sine, elementwise (integers compute in the default float dtype). dst/out by convention. */
inline Tensor sin(const Tensor& x, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_sin(x.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** cosine, elementwise (integers compute in the default float dtype). dst/out by convention. */
inline Tensor cos(const Tensor& x, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_cos(x.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** tangent, elementwise (integers compute in the default float dtype). dst/out by convention. */
inline Tensor tan(const Tensor& x, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_tan(x.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** arcsine, elementwise (integers compute in the default float dtype). dst/out by convention. */
inline Tensor asin(const Tensor& x, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_asin(x.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** arccosine, elementwise (integers compute in the default float dtype). dst/out by convention. */
inline Tensor acos(const Tensor& x, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_acos(x.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** arctangent, elementwise (integers compute in the default float dtype). dst/out by convention. */
inline Tensor atan(const Tensor& x, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_atan(x.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** hyperbolic sine, elementwise (integers compute in the default float dtype). dst/out by convention. */
inline Tensor sinh(const Tensor& x, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_sinh(x.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** hyperbolic cosine, elementwise (integers compute in the default float dtype). dst/out by convention. */
inline Tensor cosh(const Tensor& x, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_cosh(x.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** hyperbolic tangent, elementwise (integers compute in the default float dtype). dst/out by convention. */
inline Tensor tanh(const Tensor& x, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_tanh(x.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** 1 / (1 + e^-x), elementwise (integers compute in the default float dtype). dst/out by convention. */
inline Tensor sigmoid(const Tensor& x, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_sigmoid(x.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** error function, elementwise (integers compute in the default float dtype). dst/out by convention. */
inline Tensor erf(const Tensor& x, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_erf(x.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** 1 - erf(x), elementwise (integers compute in the default float dtype). dst/out by convention. */
inline Tensor erfc(const Tensor& x, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_erfc(x.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** 1 / x, elementwise (integers compute in the default float dtype). dst/out by convention. */
inline Tensor reciprocal(const Tensor& x, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_reciprocal(x.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** x * sigmoid(x), elementwise (integers compute in the default float dtype). dst/out by convention. */
inline Tensor silu(const Tensor& x, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_silu(x.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** GELU: x * Phi(x), or its tanh approximation when approximate_tanh is 1. dst/out by convention. */
inline Tensor gelu(const Tensor& x, int32_t approximate_tanh, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_gelu(x.get(), approximate_tanh, dst.get(), &out_out));
    return Tensor(out_out);
}
/** x if x > 0 else negative_slope * x (floating dtypes). dst/out by convention. */
inline Tensor leaky_relu(const Tensor& x, double negative_slope, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_leaky_relu(x.get(), negative_slope, dst.get(), &out_out));
    return Tensor(out_out);
}
/** x if x > 0 else alpha * (e^x - 1). dst/out by convention. */
inline Tensor elu(const Tensor& x, double alpha, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_elu(x.get(), alpha, dst.get(), &out_out));
    return Tensor(out_out);
}
/** log(1 + e^(beta x)) / beta, or x where beta x > threshold. dst/out by convention. */
inline Tensor softplus(const Tensor& x, double beta, double threshold, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_softplus(x.get(), beta, threshold, dst.get(), &out_out));
    return Tensor(out_out);
}
/** -x, elementwise. dst/out by convention. */
inline Tensor neg(const Tensor& x, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_neg(x.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** |x|, elementwise. dst/out by convention. */
inline Tensor abs(const Tensor& x, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_abs(x.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** -1, 0 or 1 (NaN stays NaN), elementwise. dst/out by convention. */
inline Tensor sign(const Tensor& x, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_sign(x.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** max(x, 0), elementwise. dst/out by convention. */
inline Tensor relu(const Tensor& x, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_relu(x.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** x * x, elementwise. dst/out by convention. */
inline Tensor square(const Tensor& x, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_square(x.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** round toward -inf (integers unchanged), elementwise. dst/out by convention. */
inline Tensor floor(const Tensor& x, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_floor(x.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** round toward +inf, elementwise. dst/out by convention. */
inline Tensor ceil(const Tensor& x, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_ceil(x.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** round half to even, elementwise. dst/out by convention. */
inline Tensor round(const Tensor& x, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_round(x.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** round toward zero, elementwise. dst/out by convention. */
inline Tensor trunc(const Tensor& x, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_trunc(x.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** ~x on integers, not on bool, elementwise. dst/out by convention. */
inline Tensor bitwise_not(const Tensor& x, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_bitwise_not(x.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** x == 0 as bool, elementwise. dst/out by convention. */
inline Tensor logical_not(const Tensor& x, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_logical_not(x.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** NaN test as bool, elementwise. dst/out by convention. */
inline Tensor isnan(const Tensor& x, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_isnan(x.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** infinity test as bool, elementwise. dst/out by convention. */
inline Tensor isinf(const Tensor& x, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_isinf(x.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** finite test as bool, elementwise. dst/out by convention. */
inline Tensor isfinite(const Tensor& x, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_isfinite(x.get(), dst.get(), &out_out));
    return Tensor(out_out);
}
/** Replaces NaN, +inf and -inf in floating tensors by the given values. dst/out by convention. */
inline Tensor nan_to_num(const Tensor& x, double nan, double posinf, double neginf, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_nan_to_num(x.get(), nan, posinf, neginf, dst.get(), &out_out));
    return Tensor(out_out);
}
/** min(max(x, min), max); pass -inf / +inf for a missing bound. dst/out by convention. */
inline Tensor clamp(const Tensor& x, double min, double max, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_clamp(x.get(), min, max, dst.get(), &out_out));
    return Tensor(out_out);
}
/** a where the bool condition holds, else b; the three broadcast, a and b promote. dst/out by convention. */
inline Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b, const Tensor& dst) {
    nb_tensor* out_out = nullptr;
    detail::check(nb_where(condition.get(), a.get(), b.get(), dst.get(), &out_out));
    return Tensor(out_out);
}

inline Tensor Tensor::view(IntList shape) const { return nabla::view(*this, shape); }
inline Tensor Tensor::reshape(IntList shape) const { return nabla::reshape(*this, shape); }
inline Tensor Tensor::permute(IntList dims) const { return nabla::permute(*this, dims); }
inline Tensor Tensor::transpose(int64_t dim0, int64_t dim1) const { return nabla::transpose(*this, dim0, dim1); }
inline Tensor Tensor::narrow(int64_t dim, int64_t start, int64_t length) const { return nabla::narrow(*this, dim, start, length); }
inline Tensor Tensor::slice(int64_t dim, int64_t start, int64_t end, int64_t step) const { return nabla::slice(*this, dim, start, end, step); }
inline Tensor Tensor::select(int64_t dim, int64_t index) const { return nabla::select(*this, dim, index); }
inline Tensor Tensor::expand(IntList shape) const { return nabla::expand(*this, shape); }
inline Tensor Tensor::squeeze(IntList dims) const { return nabla::squeeze(*this, dims); }
inline Tensor Tensor::unsqueeze(int64_t dim) const { return nabla::unsqueeze(*this, dim); }
inline Tensor Tensor::flatten(int64_t start_dim, int64_t end_dim) const { return nabla::flatten(*this, start_dim, end_dim); }
inline Tensor Tensor::contiguous() const { return nabla::contiguous(*this); }
inline Tensor Tensor::clone() const { return nabla::clone(*this); }
inline Tensor Tensor::to(int32_t dtype, int32_t device_type, int32_t device_index, int32_t copy) const { return nabla::to(*this, dtype, device_type, device_index, copy); }
inline Tensor Tensor::copy_(const Tensor& src) const { return nabla::copy_(*this, src); }
inline Tensor Tensor::resize_(IntList shape) const { return nabla::resize_(*this, shape); }
inline void Tensor::resize_output(IntList shape) const { nabla::resize_output(*this, shape); }
inline Tensor Tensor::share_memory_() const { return nabla::share_memory_(*this); }
inline Tensor Tensor::pin_memory() const { return nabla::pin_memory(*this); }
inline Tensor Tensor::to_v2(int32_t dtype, int32_t device_type, int32_t device_index, int32_t copy, int32_t non_blocking) const { return nabla::to_v2(*this, dtype, device_type, device_index, copy, non_blocking); }
inline Tensor Tensor::copy_v2_(const Tensor& src, int32_t non_blocking) const { return nabla::copy_v2_(*this, src, non_blocking); }
inline void Tensor::set_requires_grad(int32_t requires_grad) const { nabla::set_requires_grad(*this, requires_grad); }
inline Tensor Tensor::get_grad() const { return nabla::get_grad(*this); }
inline void Tensor::retain_grad() const { nabla::retain_grad(*this); }
inline Tensor Tensor::detach() const { return nabla::detach(*this); }
inline Tensor Tensor::detach_() const { return nabla::detach_(*this); }
inline void Tensor::remove_hook(int64_t id) const { nabla::remove_hook(*this, id); }
inline Tensor Tensor::amp_update_scale_(const Tensor& growth_tracker, const Tensor& found_inf, double growth_factor, double backoff_factor, int64_t growth_interval) const { return nabla::amp_update_scale_(*this, growth_tracker, found_inf, growth_factor, backoff_factor, growth_interval); }
inline Tensor Tensor::scaled_dot_product_attention(const Tensor& k, const Tensor& v, const Tensor& attn_mask, double dropout_p, int32_t is_causal, double scale, nb_generator* gen) const { return nabla::scaled_dot_product_attention(*this, k, v, attn_mask, dropout_p, is_causal, scale, gen); }
inline Tensor Tensor::add(const Tensor& b, double alpha, const Tensor& dst) const { return nabla::add(*this, b, alpha, dst); }
inline Tensor Tensor::sub(const Tensor& b, double alpha, const Tensor& dst) const { return nabla::sub(*this, b, alpha, dst); }
inline Tensor Tensor::mul(const Tensor& b, const Tensor& dst) const { return nabla::mul(*this, b, dst); }
inline Tensor Tensor::div(const Tensor& b, int32_t rounding_mode, const Tensor& dst) const { return nabla::div(*this, b, rounding_mode, dst); }
inline Tensor Tensor::floor_divide(const Tensor& b, const Tensor& dst) const { return nabla::floor_divide(*this, b, dst); }
inline Tensor Tensor::remainder(const Tensor& b, const Tensor& dst) const { return nabla::remainder(*this, b, dst); }
inline Tensor Tensor::fmod(const Tensor& b, const Tensor& dst) const { return nabla::fmod(*this, b, dst); }
inline Tensor Tensor::pow(const Tensor& b, const Tensor& dst) const { return nabla::pow(*this, b, dst); }
inline Tensor Tensor::maximum(const Tensor& b, const Tensor& dst) const { return nabla::maximum(*this, b, dst); }
inline Tensor Tensor::minimum(const Tensor& b, const Tensor& dst) const { return nabla::minimum(*this, b, dst); }
inline Tensor Tensor::atan2(const Tensor& b, const Tensor& dst) const { return nabla::atan2(*this, b, dst); }
inline Tensor Tensor::igamma(const Tensor& b, const Tensor& dst) const { return nabla::igamma(*this, b, dst); }
inline Tensor Tensor::igammac(const Tensor& b, const Tensor& dst) const { return nabla::igammac(*this, b, dst); }
inline Tensor Tensor::nextafter(const Tensor& b, const Tensor& dst) const { return nabla::nextafter(*this, b, dst); }
inline Tensor Tensor::eq(const Tensor& b, const Tensor& dst) const { return nabla::eq(*this, b, dst); }
inline Tensor Tensor::ne(const Tensor& b, const Tensor& dst) const { return nabla::ne(*this, b, dst); }
inline Tensor Tensor::lt(const Tensor& b, const Tensor& dst) const { return nabla::lt(*this, b, dst); }
inline Tensor Tensor::le(const Tensor& b, const Tensor& dst) const { return nabla::le(*this, b, dst); }
inline Tensor Tensor::gt(const Tensor& b, const Tensor& dst) const { return nabla::gt(*this, b, dst); }
inline Tensor Tensor::ge(const Tensor& b, const Tensor& dst) const { return nabla::ge(*this, b, dst); }
inline Tensor Tensor::logical_and(const Tensor& b, const Tensor& dst) const { return nabla::logical_and(*this, b, dst); }
inline Tensor Tensor::logical_or(const Tensor& b, const Tensor& dst) const { return nabla::logical_or(*this, b, dst); }
inline Tensor Tensor::logical_xor(const Tensor& b, const Tensor& dst) const { return nabla::logical_xor(*this, b, dst); }
inline Tensor Tensor::bitwise_and(const Tensor& b, const Tensor& dst) const { return nabla::bitwise_and(*this, b, dst); }
inline Tensor Tensor::bitwise_or(const Tensor& b, const Tensor& dst) const { return nabla::bitwise_or(*this, b, dst); }
inline Tensor Tensor::bitwise_xor(const Tensor& b, const Tensor& dst) const { return nabla::bitwise_xor(*this, b, dst); }
inline Tensor Tensor::bitwise_left_shift(const Tensor& b, const Tensor& dst) const { return nabla::bitwise_left_shift(*this, b, dst); }
inline Tensor Tensor::bitwise_right_shift(const Tensor& b, const Tensor& dst) const { return nabla::bitwise_right_shift(*this, b, dst); }
inline Tensor Tensor::gather(int64_t dim, const Tensor& index) const { return nabla::gather(*this, dim, index); }
inline Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Tensor& src, const Tensor& dst) const { return nabla::scatter(*this, dim, index, src, dst); }
inline Tensor Tensor::scatter_value(int64_t dim, const Tensor& index, const Tensor& value, const Tensor& dst) const { return nabla::scatter_value(*this, dim, index, value, dst); }
inline Tensor Tensor::scatter_add(int64_t dim, const Tensor& index, const Tensor& src, const Tensor& dst) const { return nabla::scatter_add(*this, dim, index, src, dst); }
inline Tensor Tensor::scatter_reduce(int64_t dim, const Tensor& index, const Tensor& src, int32_t reduce, int32_t include_self, const Tensor& dst) const { return nabla::scatter_reduce(*this, dim, index, src, reduce, include_self, dst); }
inline Tensor Tensor::index_select(int64_t dim, const Tensor& index) const { return nabla::index_select(*this, dim, index); }
inline Tensor Tensor::index_add(int64_t dim, const Tensor& index, const Tensor& source, double alpha, const Tensor& dst) const { return nabla::index_add(*this, dim, index, source, alpha, dst); }
inline Tensor Tensor::masked_fill(const Tensor& mask, const Tensor& value, const Tensor& dst) const { return nabla::masked_fill(*this, mask, value, dst); }
inline Tensor Tensor::masked_select(const Tensor& mask) const { return nabla::masked_select(*this, mask); }
inline Tensor Tensor::nonzero() const { return nabla::nonzero(*this); }
inline Tensor Tensor::take_along_dim(const Tensor& indices, int64_t dim, int32_t has_dim) const { return nabla::take_along_dim(*this, indices, dim, has_dim); }
inline Tensor Tensor::one_hot(int64_t num_classes) const { return nabla::one_hot(*this, num_classes); }
inline Tensor Tensor::index(const std::vector<Tensor>& indices) const { return nabla::index(*this, indices); }
inline Tensor Tensor::index_put(const std::vector<Tensor>& indices, const Tensor& values, int32_t accumulate, const Tensor& dst) const { return nabla::index_put(*this, indices, values, accumulate, dst); }
inline Tensor Tensor::matmul(const Tensor& b, const Tensor& dst) const { return nabla::matmul(*this, b, dst); }
inline Tensor Tensor::mm(const Tensor& b, const Tensor& dst) const { return nabla::mm(*this, b, dst); }
inline Tensor Tensor::bmm(const Tensor& b, const Tensor& dst) const { return nabla::bmm(*this, b, dst); }
inline Tensor Tensor::mv(const Tensor& v, const Tensor& dst) const { return nabla::mv(*this, v, dst); }
inline Tensor Tensor::dot(const Tensor& b, const Tensor& dst) const { return nabla::dot(*this, b, dst); }
inline Tensor Tensor::outer(const Tensor& b, const Tensor& dst) const { return nabla::outer(*this, b, dst); }
inline Tensor Tensor::addmm(const Tensor& mat1, const Tensor& mat2, double beta, double alpha, const Tensor& dst) const { return nabla::addmm(*this, mat1, mat2, beta, alpha, dst); }
inline Tensor Tensor::baddbmm(const Tensor& batch1, const Tensor& batch2, double beta, double alpha, const Tensor& dst) const { return nabla::baddbmm(*this, batch1, batch2, beta, alpha, dst); }
inline Tensor Tensor::linear(const Tensor& weight, const Tensor& bias, const Tensor& dst) const { return nabla::linear(*this, weight, bias, dst); }
inline Tensor Tensor::linalg_inv() const { return nabla::linalg_inv(*this); }
inline Tensor Tensor::linalg_solve(const Tensor& B, int32_t left) const { return nabla::linalg_solve(*this, B, left); }
inline Tensor Tensor::linalg_det() const { return nabla::linalg_det(*this); }
inline std::tuple<Tensor, Tensor> Tensor::linalg_slogdet() const { return nabla::linalg_slogdet(*this); }
inline Tensor Tensor::linalg_cholesky(int32_t upper) const { return nabla::linalg_cholesky(*this, upper); }
inline std::tuple<Tensor, Tensor> Tensor::linalg_qr(int32_t mode) const { return nabla::linalg_qr(*this, mode); }
inline std::tuple<Tensor, Tensor> Tensor::linalg_eigh(int32_t upper) const { return nabla::linalg_eigh(*this, upper); }
inline std::tuple<Tensor, Tensor, Tensor> Tensor::linalg_svd(int32_t full_matrices) const { return nabla::linalg_svd(*this, full_matrices); }
inline std::tuple<Tensor, Tensor> Tensor::linalg_inv_ex() const { return nabla::linalg_inv_ex(*this); }
inline std::tuple<Tensor, Tensor> Tensor::linalg_solve_ex(const Tensor& B, int32_t left) const { return nabla::linalg_solve_ex(*this, B, left); }
inline std::tuple<Tensor, Tensor> Tensor::linalg_cholesky_ex(int32_t upper) const { return nabla::linalg_cholesky_ex(*this, upper); }
inline Tensor Tensor::linalg_solve_triangular(const Tensor& B, int32_t upper, int32_t left, int32_t unitriangular) const { return nabla::linalg_solve_triangular(*this, B, upper, left, unitriangular); }
inline std::tuple<Tensor, Tensor, Tensor> Tensor::linalg_ldl_factor_ex(int32_t hermitian) const { return nabla::linalg_ldl_factor_ex(*this, hermitian); }
inline Tensor Tensor::linalg_ldl_solve(const Tensor& pivots, const Tensor& B, int32_t hermitian) const { return nabla::linalg_ldl_solve(*this, pivots, B, hermitian); }
inline Tensor Tensor::conv1d(const Tensor& weight, const Tensor& bias, int64_t stride, int64_t padding_left, int64_t padding_right, int64_t dilation, int64_t groups, const Tensor& dst) const { return nabla::conv1d(*this, weight, bias, stride, padding_left, padding_right, dilation, groups, dst); }
inline Tensor Tensor::conv2d(const Tensor& weight, const Tensor& bias, IntList stride, IntList padding, IntList dilation, int64_t groups, const Tensor& dst) const { return nabla::conv2d(*this, weight, bias, stride, padding, dilation, groups, dst); }
inline Tensor Tensor::conv_transpose2d(const Tensor& weight, const Tensor& bias, IntList stride, IntList padding, IntList output_padding, IntList dilation, int64_t groups, const Tensor& dst) const { return nabla::conv_transpose2d(*this, weight, bias, stride, padding, output_padding, dilation, groups, dst); }
inline std::tuple<Tensor, Tensor> Tensor::max_pool2d(IntList kernel_size, IntList stride, IntList padding, IntList dilation, int32_t ceil_mode, const Tensor& dst) const { return nabla::max_pool2d(*this, kernel_size, stride, padding, dilation, ceil_mode, dst); }
inline Tensor Tensor::avg_pool2d(IntList kernel_size, IntList stride, IntList padding, int32_t ceil_mode, int32_t count_include_pad, int64_t divisor_override, const Tensor& dst) const { return nabla::avg_pool2d(*this, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, dst); }
inline Tensor Tensor::adaptive_avg_pool2d(IntList output_size, const Tensor& dst) const { return nabla::adaptive_avg_pool2d(*this, output_size, dst); }
inline Tensor Tensor::layer_norm(IntList normalized_shape, const Tensor& weight, const Tensor& bias, double eps, const Tensor& dst) const { return nabla::layer_norm(*this, normalized_shape, weight, bias, eps, dst); }
inline Tensor Tensor::batch_norm(const Tensor& running_mean, const Tensor& running_var, const Tensor& weight, const Tensor& bias, int32_t training, double momentum, double eps, const Tensor& dst) const { return nabla::batch_norm(*this, running_mean, running_var, weight, bias, training, momentum, eps, dst); }
inline Tensor Tensor::group_norm(int64_t num_groups, const Tensor& weight, const Tensor& bias, double eps, const Tensor& dst) const { return nabla::group_norm(*this, num_groups, weight, bias, eps, dst); }
inline Tensor Tensor::nll_loss(const Tensor& target, const Tensor& weight, int64_t ignore_index, int32_t reduction, const Tensor& dst) const { return nabla::nll_loss(*this, target, weight, ignore_index, reduction, dst); }
inline Tensor Tensor::cross_entropy(const Tensor& target, const Tensor& weight, int64_t ignore_index, int32_t reduction, double label_smoothing, const Tensor& dst) const { return nabla::cross_entropy(*this, target, weight, ignore_index, reduction, label_smoothing, dst); }
inline Tensor Tensor::mse_loss(const Tensor& target, const Tensor& weight, int32_t reduction, const Tensor& dst) const { return nabla::mse_loss(*this, target, weight, reduction, dst); }
inline Tensor Tensor::l1_loss(const Tensor& target, const Tensor& weight, int32_t reduction, const Tensor& dst) const { return nabla::l1_loss(*this, target, weight, reduction, dst); }
inline Tensor Tensor::smooth_l1_loss(const Tensor& target, int32_t reduction, double beta, const Tensor& dst) const { return nabla::smooth_l1_loss(*this, target, reduction, beta, dst); }
inline Tensor Tensor::huber_loss(const Tensor& target, const Tensor& weight, int32_t reduction, double delta, const Tensor& dst) const { return nabla::huber_loss(*this, target, weight, reduction, delta, dst); }
inline Tensor Tensor::binary_cross_entropy(const Tensor& target, const Tensor& weight, int32_t reduction, const Tensor& dst) const { return nabla::binary_cross_entropy(*this, target, weight, reduction, dst); }
inline Tensor Tensor::binary_cross_entropy_with_logits(const Tensor& target, const Tensor& weight, const Tensor& pos_weight, int32_t reduction, const Tensor& dst) const { return nabla::binary_cross_entropy_with_logits(*this, target, weight, pos_weight, reduction, dst); }
inline Tensor Tensor::kl_div(const Tensor& target, int32_t reduction, int32_t log_target, const Tensor& dst) const { return nabla::kl_div(*this, target, reduction, log_target, dst); }
inline Tensor Tensor::embedding(const Tensor& indices, int64_t padding_idx, const Tensor& dst) const { return nabla::embedding(*this, indices, padding_idx, dst); }
inline Tensor Tensor::pad(IntList pad, int32_t mode, double value, const Tensor& dst) const { return nabla::pad(*this, pad, mode, value, dst); }
inline Tensor Tensor::conv2d_backward_input(const Tensor& weight, IntList input_size, IntList stride, IntList padding, IntList dilation, int64_t groups, const Tensor& dst) const { return nabla::conv2d_backward_input(*this, weight, input_size, stride, padding, dilation, groups, dst); }
inline Tensor Tensor::conv2d_backward_weight(const Tensor& input, IntList kernel_size, IntList stride, IntList padding, IntList dilation, int64_t groups, const Tensor& dst) const { return nabla::conv2d_backward_weight(*this, input, kernel_size, stride, padding, dilation, groups, dst); }
inline Tensor Tensor::max_pool2d_backward(const Tensor& indices, IntList input_size, const Tensor& dst) const { return nabla::max_pool2d_backward(*this, indices, input_size, dst); }
inline Tensor Tensor::avg_pool2d_backward(IntList input_size, IntList kernel_size, IntList stride, IntList padding, int32_t count_include_pad, int64_t divisor_override, const Tensor& dst) const { return nabla::avg_pool2d_backward(*this, input_size, kernel_size, stride, padding, count_include_pad, divisor_override, dst); }
inline Tensor Tensor::adaptive_avg_pool2d_backward(IntList input_size, const Tensor& dst) const { return nabla::adaptive_avg_pool2d_backward(*this, input_size, dst); }
inline std::tuple<Tensor, Tensor, Tensor> Tensor::layer_norm_backward(const Tensor& input, IntList normalized_shape, const Tensor& weight, double eps, const Tensor& dst) const { return nabla::layer_norm_backward(*this, input, normalized_shape, weight, eps, dst); }
inline std::tuple<Tensor, Tensor, Tensor> Tensor::batch_norm_backward(const Tensor& input, const Tensor& weight, double eps, const Tensor& dst) const { return nabla::batch_norm_backward(*this, input, weight, eps, dst); }
inline std::tuple<Tensor, Tensor, Tensor> Tensor::group_norm_backward(const Tensor& input, int64_t num_groups, const Tensor& weight, double eps, const Tensor& dst) const { return nabla::group_norm_backward(*this, input, num_groups, weight, eps, dst); }
inline Tensor Tensor::embedding_dense_backward(const Tensor& indices, int64_t num_weights, int64_t padding_idx, int32_t scale_grad_by_freq, const Tensor& dst) const { return nabla::embedding_dense_backward(*this, indices, num_weights, padding_idx, scale_grad_by_freq, dst); }
inline Tensor Tensor::gelu_backward(const Tensor& input, int32_t approximate_tanh, const Tensor& dst) const { return nabla::gelu_backward(*this, input, approximate_tanh, dst); }
inline void Tensor::sgd_step(const Tensor& grad, const Tensor& momentum_buffer, double lr, double momentum, double dampening, double weight_decay, int32_t nesterov, int32_t maximize, int32_t init_buffer) const { nabla::sgd_step(*this, grad, momentum_buffer, lr, momentum, dampening, weight_decay, nesterov, maximize, init_buffer); }
inline void Tensor::adam_step(const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq, const Tensor& max_exp_avg_sq, int64_t step, double lr, double beta1, double beta2, double eps, double weight_decay, int32_t decoupled_weight_decay, int32_t amsgrad, int32_t maximize) const { nabla::adam_step(*this, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, step, lr, beta1, beta2, eps, weight_decay, decoupled_weight_decay, amsgrad, maximize); }
inline void Tensor::rmsprop_step(const Tensor& grad, const Tensor& square_avg, const Tensor& grad_avg, const Tensor& momentum_buffer, double lr, double alpha, double eps, double weight_decay, double momentum, int32_t centered, int32_t maximize) const { nabla::rmsprop_step(*this, grad, square_avg, grad_avg, momentum_buffer, lr, alpha, eps, weight_decay, momentum, centered, maximize); }
inline void Tensor::adagrad_step(const Tensor& grad, const Tensor& state_sum, int64_t step, double lr, double lr_decay, double eps, double weight_decay, int32_t maximize) const { nabla::adagrad_step(*this, grad, state_sum, step, lr, lr_decay, eps, weight_decay, maximize); }
inline Tensor Tensor::uniform_(double from, double to, nb_generator* gen) const { return nabla::uniform_(*this, from, to, gen); }
inline Tensor Tensor::normal_(double mean, double std, nb_generator* gen) const { return nabla::normal_(*this, mean, std, gen); }
inline Tensor Tensor::random_(int64_t low, int64_t high_inclusive, nb_generator* gen) const { return nabla::random_(*this, low, high_inclusive, gen); }
inline Tensor Tensor::bernoulli(nb_generator* gen, const Tensor& dst) const { return nabla::bernoulli(*this, gen, dst); }
inline Tensor Tensor::multinomial(int64_t num_samples, int32_t replacement, nb_generator* gen, const Tensor& dst) const { return nabla::multinomial(*this, num_samples, replacement, gen, dst); }
inline Tensor Tensor::dropout(double p, int32_t train, nb_generator* gen, const Tensor& dst) const { return nabla::dropout(*this, p, train, gen, dst); }
inline Tensor Tensor::sum(IntList dims, int32_t keepdim, int32_t dtype, const Tensor& dst) const { return nabla::sum(*this, dims, keepdim, dtype, dst); }
inline Tensor Tensor::mean(IntList dims, int32_t keepdim, int32_t dtype, const Tensor& dst) const { return nabla::mean(*this, dims, keepdim, dtype, dst); }
inline Tensor Tensor::prod(IntList dims, int32_t keepdim, int32_t dtype, const Tensor& dst) const { return nabla::prod(*this, dims, keepdim, dtype, dst); }
inline Tensor Tensor::amax(IntList dims, int32_t keepdim, const Tensor& dst) const { return nabla::amax(*this, dims, keepdim, dst); }
inline Tensor Tensor::amin(IntList dims, int32_t keepdim, const Tensor& dst) const { return nabla::amin(*this, dims, keepdim, dst); }
inline std::tuple<Tensor, Tensor> Tensor::max_dim(int64_t dim, int32_t keepdim, const Tensor& dst_values, const Tensor& dst_indices) const { return nabla::max_dim(*this, dim, keepdim, dst_values, dst_indices); }
inline std::tuple<Tensor, Tensor> Tensor::min_dim(int64_t dim, int32_t keepdim, const Tensor& dst_values, const Tensor& dst_indices) const { return nabla::min_dim(*this, dim, keepdim, dst_values, dst_indices); }
inline Tensor Tensor::argmax(std::optional<int64_t> dim, int32_t keepdim, const Tensor& dst) const { return nabla::argmax(*this, dim, keepdim, dst); }
inline Tensor Tensor::argmin(std::optional<int64_t> dim, int32_t keepdim, const Tensor& dst) const { return nabla::argmin(*this, dim, keepdim, dst); }
inline Tensor Tensor::var(IntList dims, double correction, int32_t keepdim, const Tensor& dst) const { return nabla::var(*this, dims, correction, keepdim, dst); }
inline Tensor Tensor::std(IntList dims, double correction, int32_t keepdim, const Tensor& dst) const { return nabla::std(*this, dims, correction, keepdim, dst); }
inline Tensor Tensor::norm(double p, IntList dims, int32_t keepdim, int32_t dtype, const Tensor& dst) const { return nabla::norm(*this, p, dims, keepdim, dtype, dst); }
inline Tensor Tensor::logsumexp(IntList dims, int32_t keepdim, const Tensor& dst) const { return nabla::logsumexp(*this, dims, keepdim, dst); }
inline Tensor Tensor::all(IntList dims, int32_t keepdim, const Tensor& dst) const { return nabla::all(*this, dims, keepdim, dst); }
inline Tensor Tensor::any(IntList dims, int32_t keepdim, const Tensor& dst) const { return nabla::any(*this, dims, keepdim, dst); }
inline Tensor Tensor::cumsum(int64_t dim, int32_t dtype, const Tensor& dst) const { return nabla::cumsum(*this, dim, dtype, dst); }
inline Tensor Tensor::cumprod(int64_t dim, int32_t dtype, const Tensor& dst) const { return nabla::cumprod(*this, dim, dtype, dst); }
inline Tensor Tensor::softmax(int64_t dim, int32_t dtype, const Tensor& dst) const { return nabla::softmax(*this, dim, dtype, dst); }
inline Tensor Tensor::log_softmax(int64_t dim, int32_t dtype, const Tensor& dst) const { return nabla::log_softmax(*this, dim, dtype, dst); }
inline Tensor Tensor::flip(IntList dims) const { return nabla::flip(*this, dims); }
inline Tensor Tensor::roll(IntList shifts, IntList dims) const { return nabla::roll(*this, shifts, dims); }
inline Tensor Tensor::repeat(IntList repeats) const { return nabla::repeat(*this, repeats); }
inline Tensor Tensor::tril(int64_t diagonal, const Tensor& dst) const { return nabla::tril(*this, diagonal, dst); }
inline Tensor Tensor::triu(int64_t diagonal, const Tensor& dst) const { return nabla::triu(*this, diagonal, dst); }
inline std::tuple<Tensor, Tensor> Tensor::sort(int64_t dim, int32_t descending, int32_t stable) const { return nabla::sort(*this, dim, descending, stable); }
inline Tensor Tensor::argsort(int64_t dim, int32_t descending, int32_t stable) const { return nabla::argsort(*this, dim, descending, stable); }
inline Tensor Tensor::searchsorted(const Tensor& values, int32_t right, int32_t out_int32) const { return nabla::searchsorted(*this, values, right, out_int32); }
inline std::tuple<Tensor, Tensor> Tensor::topk(int64_t k, int64_t dim, int32_t largest, int32_t sorted) const { return nabla::topk(*this, k, dim, largest, sorted); }
inline std::tuple<Tensor, Tensor, Tensor> Tensor::unique(int32_t sorted) const { return nabla::unique(*this, sorted); }
inline std::tuple<Tensor, Tensor, Tensor> Tensor::unique_dim(int64_t dim, int32_t sorted) const { return nabla::unique_dim(*this, dim, sorted); }
inline std::tuple<Tensor, Tensor, Tensor> Tensor::unique_consecutive(int64_t dim, int32_t has_dim) const { return nabla::unique_consecutive(*this, dim, has_dim); }
inline Tensor Tensor::softmax_backward(const Tensor& output, int64_t dim, const Tensor& dst) const { return nabla::softmax_backward(*this, output, dim, dst); }
inline Tensor Tensor::log_softmax_backward(const Tensor& output, int64_t dim, const Tensor& dst) const { return nabla::log_softmax_backward(*this, output, dim, dst); }
inline Tensor Tensor::exp(const Tensor& dst) const { return nabla::exp(*this, dst); }
inline Tensor Tensor::exp2(const Tensor& dst) const { return nabla::exp2(*this, dst); }
inline Tensor Tensor::expm1(const Tensor& dst) const { return nabla::expm1(*this, dst); }
inline Tensor Tensor::log(const Tensor& dst) const { return nabla::log(*this, dst); }
inline Tensor Tensor::log2(const Tensor& dst) const { return nabla::log2(*this, dst); }
inline Tensor Tensor::log10(const Tensor& dst) const { return nabla::log10(*this, dst); }
inline Tensor Tensor::log1p(const Tensor& dst) const { return nabla::log1p(*this, dst); }
inline Tensor Tensor::sqrt(const Tensor& dst) const { return nabla::sqrt(*this, dst); }
inline Tensor Tensor::rsqrt(const Tensor& dst) const { return nabla::rsqrt(*this, dst); }
inline Tensor Tensor::sin(const Tensor& dst) const { return nabla::sin(*this, dst); }
inline Tensor Tensor::cos(const Tensor& dst) const { return nabla::cos(*this, dst); }
inline Tensor Tensor::tan(const Tensor& dst) const { return nabla::tan(*this, dst); }
inline Tensor Tensor::asin(const Tensor& dst) const { return nabla::asin(*this, dst); }
inline Tensor Tensor::acos(const Tensor& dst) const { return nabla::acos(*this, dst); }
inline Tensor Tensor::atan(const Tensor& dst) const { return nabla::atan(*this, dst); }
inline Tensor Tensor::sinh(const Tensor& dst) const { return nabla::sinh(*this, dst); }
inline Tensor Tensor::cosh(const Tensor& dst) const { return nabla::cosh(*this, dst); }
inline Tensor Tensor::tanh(const Tensor& dst) const { return nabla::tanh(*this, dst); }
inline Tensor Tensor::sigmoid(const Tensor& dst) const { return nabla::sigmoid(*this, dst); }
inline Tensor Tensor::erf(const Tensor& dst) const { return nabla::erf(*this, dst); }
inline Tensor Tensor::erfc(const Tensor& dst) const { return nabla::erfc(*this, dst); }
inline Tensor Tensor::reciprocal(const Tensor& dst) const { return nabla::reciprocal(*this, dst); }
inline Tensor Tensor::silu(const Tensor& dst) const { return nabla::silu(*this, dst); }
inline Tensor Tensor::gelu(int32_t approximate_tanh, const Tensor& dst) const { return nabla::gelu(*this, approximate_tanh, dst); }
inline Tensor Tensor::leaky_relu(double negative_slope, const Tensor& dst) const { return nabla::leaky_relu(*this, negative_slope, dst); }
inline Tensor Tensor::elu(double alpha, const Tensor& dst) const { return nabla::elu(*this, alpha, dst); }
inline Tensor Tensor::softplus(double beta, double threshold, const Tensor& dst) const { return nabla::softplus(*this, beta, threshold, dst); }
inline Tensor Tensor::neg(const Tensor& dst) const { return nabla::neg(*this, dst); }
inline Tensor Tensor::abs(const Tensor& dst) const { return nabla::abs(*this, dst); }
inline Tensor Tensor::sign(const Tensor& dst) const { return nabla::sign(*this, dst); }
inline Tensor Tensor::relu(const Tensor& dst) const { return nabla::relu(*this, dst); }
inline Tensor Tensor::square(const Tensor& dst) const { return nabla::square(*this, dst); }
inline Tensor Tensor::floor(const Tensor& dst) const { return nabla::floor(*this, dst); }
inline Tensor Tensor::ceil(const Tensor& dst) const { return nabla::ceil(*this, dst); }
inline Tensor Tensor::round(const Tensor& dst) const { return nabla::round(*this, dst); }
inline Tensor Tensor::trunc(const Tensor& dst) const { return nabla::trunc(*this, dst); }
inline Tensor Tensor::bitwise_not(const Tensor& dst) const { return nabla::bitwise_not(*this, dst); }
inline Tensor Tensor::logical_not(const Tensor& dst) const { return nabla::logical_not(*this, dst); }
inline Tensor Tensor::isnan(const Tensor& dst) const { return nabla::isnan(*this, dst); }
inline Tensor Tensor::isinf(const Tensor& dst) const { return nabla::isinf(*this, dst); }
inline Tensor Tensor::isfinite(const Tensor& dst) const { return nabla::isfinite(*this, dst); }
inline Tensor Tensor::nan_to_num(double nan, double posinf, double neginf, const Tensor& dst) const { return nabla::nan_to_num(*this, nan, posinf, neginf, dst); }
inline Tensor Tensor::clamp(double min, double max, const Tensor& dst) const { return nabla::clamp(*this, min, max, dst); }
inline Tensor Tensor::where(const Tensor& a, const Tensor& b, const Tensor& dst) const { return nabla::where(*this, a, b, dst); }

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
