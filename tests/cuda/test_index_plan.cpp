// test_index_plan.cpp: host-side pieces of the CUDA index family
// (src/cuda/index_plan.h): the device error word's message, status and truncation,
// index range rules with and without wrapping, launch shapes for empty, small
// and huge iterations. Host-only: needs no GPU and no nvcc.
#include <cstdio>
#include <cstring>

#include "../../src/cuda/index_plan.h"

#include "plan_check.h"

int main() {
    using namespace nbcuda;
    char buf[256] = "untouched";
    DevError e;
    std::memset(&e, 0, sizeof e);
    CHECK(!dev_error_message(e, buf, sizeof buf));
    CHECK(std::strcmp(buf, "untouched") == 0);

    e.flag = 1;
    dev_error_fill(&e, "index_select", 0, 7, 5);
    CHECK(dev_error_message(e, buf, sizeof buf));
    CHECK(std::strcmp(buf, "index_select: index 7 is out of bounds for dimension 0 with size 5") == 0);
    dev_error_fill(&e, "gather", 2, -9, 4);
    CHECK(dev_error_message(e, buf, sizeof buf));
    CHECK(std::strcmp(buf, "gather: index -9 is out of bounds for dimension 2 with size 4") == 0);
    // a long name is cut to the word's size, never overrun
    dev_error_fill(&e, "a_very_long_operator_name_that_does_not_fit_at_all", 0, 1, 1);
    CHECK(std::strlen(e.op) == sizeof e.op - 1);
    dev_error_fill(&e, nullptr, 0, 1, 1);
    CHECK(e.op[0] == 0);
    CHECK(dev_error_status(e) == NB_ERR_INDEX);

    // an integer division by zero: the kernel's code names the op; the CPU's error and status
    std::memset(&e, 0, sizeof e);
    e.flag = kDevErrorZeroDivision;
    e.dim = NB_BK_DIV_FLOOR;
    CHECK(dev_error_message(e, buf, sizeof buf));
    CHECK(std::strcmp(buf, "div: ZeroDivisionError (integer division by zero)") == 0);
    CHECK(dev_error_status(e) == NB_ERR_INVALID_ARGUMENT);
    e.dim = NB_BK_REMAINDER;
    CHECK(dev_error_message(e, buf, sizeof buf));
    CHECK(std::strcmp(buf, "remainder: ZeroDivisionError (integer division by zero)") == 0);
    e.dim = NB_BK_FMOD;
    CHECK(dev_error_message(e, buf, sizeof buf));
    CHECK(std::strcmp(buf, "fmod: ZeroDivisionError (integer division by zero)") == 0);

    CHECK(index_in_range(0, 5, false) && index_in_range(4, 5, false));
    CHECK(!index_in_range(5, 5, false) && !index_in_range(-1, 5, false));
    CHECK(index_in_range(-1, 5, true) && index_in_range(-5, 5, true));
    CHECK(!index_in_range(-6, 5, true) && !index_in_range(0, 0, true));
    CHECK(!index_in_range(INT64_MIN, INT64_MAX, true));

    CHECK(index_launch(0).blocks == 0);
    CHECK(index_launch(-3).blocks == 0);
    CHECK(index_launch(1).blocks == 1 && index_launch(1).threads == kIndexThreads);
    CHECK(index_launch(kIndexThreads).blocks == 1);
    CHECK(index_launch(kIndexThreads + 1).blocks == 2);
    CHECK(index_launch(int64_t(1) << 40).blocks == kIndexMaxBlocks);

    std::printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
