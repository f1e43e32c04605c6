// train_mlp.cpp: train_mlp.c's MLP through nabla.hpp (C++17): two spirals, 2 -> 32 -> 32 -> 2 with
// tanh, cross-entropy, Adam, 400 steps, at least 97% accuracy; saved, reloaded, the same accuracy.
//     g++ -std=c++17 train_mlp.cpp $(python -m nabla.config --cflags --libs) -o train_mlp_cpp
#include <nabla.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

namespace nb = nabla;
using Data = std::pair<nb::Tensor, nb::Tensor>;
constexpr int64_t N = 256;

static Data spirals() {  // class i % 2 at angle theta + pi (i % 2), noise from xorshift64* as train_mlp.c
    static uint64_t s = 0x9E3779B97F4A7C15ull;
    auto noise = [] { s ^= s >> 12, s ^= s << 25, s ^= s >> 27; return 0.03 * (((s * 0x2545F4914F6CDD1Dull) >> 11) * 0x1p-53 - 0.5); };
    std::vector<float> x;
    std::vector<int64_t> y;
    for (int64_t i = 0; i < N; i++) {
        const double t = double(i / 2) / (N / 2), theta = (3.5 * t + i % 2) * 3.14159265358979;
        x.insert(x.end(), {float(t * std::cos(theta) + noise()), float(t * std::sin(theta) + noise())});
        y.push_back(i % 2);
    }
    return {nb::from_vector(x, {N, 2}), nb::from_vector(y, {N})};
}

static nb::Tensor fc(const nb::TensorDict& p, const std::string& name, const nb::Tensor& x) {
    return nb::linear(x, p.at(name + ".weight"), p.at(name + ".bias"));
}
static nb::Tensor forward(const nb::TensorDict& p, const nb::Tensor& x) {
    return fc(p, "fc3", nb::tanh(fc(p, "fc2", nb::tanh(fc(p, "fc1", x)))));
}
static double accuracy(const nb::TensorDict& p, const Data& d) {
    nb::NoGradGuard no_grad;
    return (forward(p, d.first).argmax(1) == d.second).sum().item() / N;
}

int main() try {
    const bool quick = std::getenv("NB_TEST_QUICK") != nullptr;  // valgrind: 40 steps, the loss need only fall
    const Data train = spirals(), test = spirals();
    nb::manual_seed(0);
    nb::TensorDict p;
    for (auto [name, out, in] : {std::tuple{"fc1", 32, 2}, {"fc2", 32, 32}, {"fc3", 2, 32}}) {
        const double bound = 1 / std::sqrt(double(in));  // nn.Linear's init
        p[std::string(name) + ".weight"] = nb::empty({out, in}, NB_F32).uniform_(-bound, bound).requires_grad_();
        p[std::string(name) + ".bias"] = nb::empty({out}, NB_F32).uniform_(-bound, bound).requires_grad_();
    }
    std::vector<nb::Tensor> params;
    for (const auto& [name, t] : p) params.push_back(t);
    nb::optim::Adam opt(params, 0.02);
    double first = 0, last = 0;
    for (int step = 1; step <= (quick ? 40 : 400); step++) {
        const auto loss = nb::cross_entropy(forward(p, train.first), train.second);
        last = loss.item(), first = step == 1 ? last : first;
        opt.zero_grad();
        loss.backward();
        opt.step();
        if (step % 100 == 0 || step == 1) std::printf("step %3d  loss %.4f\n", step, last);
    }
    const double acc = accuracy(p, train), acc_test = accuracy(p, test), required = quick ? 0 : 0.97;
    std::printf("loss %.4f -> %.4f; accuracy %.1f%% training, %.1f%% held out\n", first, last, 100 * acc, 100 * acc_test);

    const std::string path = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") + "/train_mlp_cpp_" +
                             std::to_string(getpid()) + ".safetensors";
    nb::save(path, p, {{"steps", "400"}});
    const double acc_loaded = accuracy(nb::load(path), test);
    std::remove(path.c_str());
    std::printf("reloaded: %.1f%% held out\n", 100 * acc_loaded);
    return acc >= required && acc_test >= required && last < first && acc_loaded == acc_test ? 0 : 1;
} catch (const nb::Error& e) {
    std::fprintf(stderr, "%s: %s\n", e.status_name(), e.what());
    return 1;
}
