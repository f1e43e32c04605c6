/* test_fuzz_regressions.c: minimised reproducers of what tests/fuzz/fuzz_abi.c found,
 * one test each, named for the call that crashed. */
#include "nbtest.h"

/* linalg.solve with autograd recorded read B's shape before validating it. */
TEST(test_solve_with_a_null_operand_and_grad) {
    int64_t s[2] = {2, 2};
    nb_tensor *a = NULL, *r = NULL, *info = NULL;
    CHECK_OK(nb_ones(s, 2, NB_F32, NB_CPU, 0, &a));
    CHECK_OK(nb_tensor_set_requires_grad(a, 1));
    CHECK_STATUS(nb_linalg_solve_ex(a, NULL, 1, &r, &info), NB_ERR_INVALID_ARGUMENT, "NULL");
    CHECK_STATUS(nb_linalg_solve(a, NULL, 0, &r), NB_ERR_INVALID_ARGUMENT, "NULL");
    CHECK_STATUS(nb_linalg_solve(NULL, a, 1, &r), NB_ERR_INVALID_ARGUMENT, "NULL");
    CHECK(r == NULL && info == NULL);
    nb_tensor_release(a);
}

int main(int argc, char** argv) {
    NBT_BEGIN(argc, argv);
    RUN(test_solve_with_a_null_operand_and_grad);
    return NBT_END();
}
