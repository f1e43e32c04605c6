// plan_check.h: the CHECK macro and counters shared by the host-only planning
// tests in tests/cuda (built with g++ by tests/test_cuda_build.py).
#ifndef NABLA_TESTS_CUDA_PLAN_CHECK_H_
#define NABLA_TESTS_CUDA_PLAN_CHECK_H_

#include <cstdio>

static int passed, failed;

#define CHECK(cond)                                                        \
    do {                                                                   \
        if (cond) {                                                        \
            passed++;                                                      \
        } else {                                                           \
            failed++;                                                      \
            std::printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);    \
        }                                                                  \
    } while (0)

#endif  // NABLA_TESTS_CUDA_PLAN_CHECK_H_
