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
static const char* const NAMES[] = {"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias", "fc3.weight", "fc3.bias"};

static Data spirals() {  // class i % 2 at angle theta + pi (i % 2), noise from xorshift64* as train_mlp.c
    static uint64_t s = 0x9E3779B97F4A7C15ull;
    auto noise = [] { s ^= s >> 12, s ^= s << 25, s ^= s >> 27; return 0.03 * (((s * 0x2545F4914F6CDD1Dull) >> 11) * 0x1p-53 - 0.5); };
    std::vector<float> x;
    std::vector<int64_t> y;
    for (int64_t i = 0; i < N; i++) {
        const double t = double(i / 2) / (N / 2), theta = (3.5 * t + i % 2) * 3.14159265358979;
        x.push_back(float(t * std::cos(theta) + noise()));
        x.push_back(float(t * std::sin(theta) + noise()));
        y.push_back(i % 2);
    }
    return {nb::from_vector(x, {N, 2}), nb::from_vector(y, {N})};
}

static nb::Tensor forward(const std::vector<nb::Tensor>& p, const nb::Tensor& x) {
    return nb::linear(nb::tanh(nb::linear(nb::tanh(nb::linear(x, p[0], p[1])), p[2], p[3])), p[4], p[5]);
}

static double accuracy(const std::vector<nb::Tensor>& p, const Data& d) {
    nb::NoGradGuard no_grad;
    return (forward(p, d.first).argmax(1) == d.second).sum().item() / N;
}

int main() try {
    const bool quick = std::getenv("NB_TEST_QUICK") != nullptr;  // valgrind: 40 steps, the loss need only fall
    const Data train = spirals(), test = spirals();
    nb::manual_seed(0);
    std::vector<nb::Tensor> p;
    for (std::vector<int64_t> shape : {std::vector<int64_t>{32, 2}, {32}, {32, 32}, {32}, {2, 32}, {2}}) {
        const double bound = 1 / std::sqrt(p.size() < 2 ? 2.0 : 32.0);  // nn.Linear's init
        p.push_back(nb::empty(shape, NB_F32));
        p.back().uniform_(-bound, bound);
        p.back().requires_grad_();
    }
    nb::optim::Adam opt(p, 0.02);
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

    nb::TensorDict weights;
    for (size_t i = 0; i < p.size(); i++) weights[NAMES[i]] = p[i];
    const std::string path = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") + "/train_mlp_cpp_" +
                             std::to_string(getpid()) + ".safetensors";
    nb::save(path, weights, {{"steps", "400"}});
    const nb::TensorDict loaded = nb::load(path);
    std::remove(path.c_str());
    std::vector<nb::Tensor> q;
    for (const char* name : NAMES) q.push_back(loaded.at(name));
    const double acc_loaded = accuracy(q, test);
    std::printf("reloaded: %.1f%% held out\n", 100 * acc_loaded);
    return acc >= required && acc_test >= required && last < first && acc_loaded == acc_test ? 0 : 1;
} catch (const nb::Error& e) {
    std::fprintf(stderr, "%s: %s\n", e.status_name(), e.what());
    return 1;
}
