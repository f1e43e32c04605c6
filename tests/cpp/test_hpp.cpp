// test_hpp.cpp: nabla.hpp's contracts: RAII references, errors as nabla::Error, defaults,
// operators, the no-grad guard, fixed-length arrays, optimizers and checkpoints.
#include <nabla.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>

namespace nb = nabla;
static int passed = 0, failed = 0;
#define CHECK(cond)                                                             \
    do {                                                                        \
        if (cond) passed++;                                                     \
        else failed++, std::printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); \
    } while (0)

static int64_t live() {
    nb_memory_stats s;
    std::memset(&s, 0, sizeof s);
    s.struct_size = sizeof s;
    nb_memory_stats_get(NB_CPU, 0, &s);
    return s.live_tensors;
}

int main() {
    const int64_t base = live();
    {
        nb::Tensor a = nb::from_vector(std::vector<float>{1, 2, 3, 4}, {2, 2});
        CHECK(nb_tensor_refcount(a.get()) == 1);
        nb::Tensor b = a;  // copy = retain
        CHECK(nb_tensor_refcount(a.get()) == 2 && b.get() == a.get());
        nb::Tensor c = std::move(b);  // move: no new reference
        CHECK(!b && nb_tensor_refcount(a.get()) == 2);
        c = nb::Tensor();  // assignment releases
        CHECK(nb_tensor_refcount(a.get()) == 1);

        // operators, scalars, defaults (sum over every dim, argmax of the flattened tensor)
        const auto v = ((a + a) * 2.0 - 1.0).to_vector<float>();
        CHECK(v == (std::vector<float>{3, 7, 11, 15}));
        CHECK(a.sum().item() == 10 && nb::sum(a, {1}).to_vector<float>() == (std::vector<float>{3, 7}));
        CHECK(a.argmax().item<int64_t>() == 3 && a.argmax(0).to_vector<int64_t>() == (std::vector<int64_t>{1, 1}));
        CHECK(a.shape() == (std::vector<int64_t>{2, 2}) && a.ndim() == 2 && a.numel() == 4);
        auto [values, indices] = nb::sort(nb::from_vector(std::vector<float>{3, 1, 2}, {3}), 0, 0, 0);
        CHECK(values.to_vector<float>() == (std::vector<float>{1, 2, 3}) && indices.to_vector<int64_t>()[0] == 1);
        CHECK(nb::cat({a, a}, 0).shape() == (std::vector<int64_t>{4, 2}));
        nb::Tensor d = a.clone();
        d += a;  // in place through dst
        CHECK(d.to_vector<float>() == (std::vector<float>{2, 4, 6, 8}));

        // errors: the status and the C message, nothing leaks
        bool threw = false;
        try {
            nb::matmul(a, nb::from_vector(std::vector<float>{1, 2, 3}, {3}));
        } catch (const nb::Error& e) {
            threw = e.status() == NB_ERR_SHAPE && std::strstr(e.what(), "matmul") != nullptr;
        }
        CHECK(threw);
        threw = false;
        try {  // a fixed-length array with the wrong length: refused before the call
            nb::max_pool2d(nb::zeros({1, 1, 4, 4}), {2, 2, 2}, 2, 0, 1, 0);
        } catch (const nb::Error& e) {
            threw = e.status() == NB_ERR_INVALID_ARGUMENT && std::strstr(e.what(), "kernel_size must have 2") != nullptr;
        }
        CHECK(threw);
        auto [pooled, where] = nb::max_pool2d(nb::ones({1, 1, 4, 4}), 2, 2, 0, 1, 0);  // one integer: (2, 2)
        CHECK(pooled.shape() == (std::vector<int64_t>{1, 1, 2, 2}) && where.defined());

        // autograd, the no-grad guard, an optimizer step
        nb::Tensor w = nb::from_vector(std::vector<float>{1, -2}, {2}).requires_grad_();
        (w * w).sum().backward();
        CHECK(w.grad().to_vector<float>() == (std::vector<float>{2, -4}));
        {
            nb::NoGradGuard guard;
            CHECK(!(w * w).requires_grad() && nb_grad_enabled() == 0);
        }
        CHECK(nb_grad_enabled() == 1 && (w * w).requires_grad());
        CHECK(!nb::no_grad([&] { return w * 3.0; }).requires_grad());
        {
            nb::NoGradGuard guard;  // an update by hand, in place on a leaf
            nb::Tensor before = w.clone();
            w -= w.grad() * 0.25;
            CHECK(w.to_vector<float>() == (std::vector<float>{0.5f, -1}));
            w.set_grad(nb::Tensor());
            nb_tensor_copy_(w.get(), before.get());
        }
        (w * w).sum().backward();
        nb::optim::SGD sgd({w}, 0.5);
        sgd.step();  // w -= 0.5 * grad
        CHECK(w.to_vector<float>() == (std::vector<float>{0, 0}));
        sgd.zero_grad();
        CHECK(!w.grad());

        // a checkpoint round trip with metadata
        const std::string path = "test_hpp.safetensors";
        nb::save(path, {{"a", a}, {"w", w}}, {{"note", "hi"}});
        nb::TensorDict back = nb::load(path);
        std::remove(path.c_str());
        CHECK(back.size() == 2 && back.at("a").to_vector<float>() == a.to_vector<float>());
        threw = false;
        try {
            nb::load(path);
        } catch (const nb::Error& e) {
            threw = e.status() != NB_OK && std::strlen(e.what()) > 0;
        }
        CHECK(threw);
    }
    nb_memory_empty_cache(NB_CPU, 0);
    CHECK(live() == base);  // every Tensor released its reference
    std::printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
