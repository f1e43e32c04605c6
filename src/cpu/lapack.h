/* lapack.h: the LAPACK routines (and BLAS's trsm) nabla calls, from the scipy-openblas32 library
 * (symbols prefixed scipy_, 32-bit integers, Fortran calling convention: every
 * argument by address, the lengths of character arguments appended). Matrices
 * are column-major. */
#ifndef NABLA_CPU_LAPACK_H_
#define NABLA_CPU_LAPACK_H_

#include <stddef.h>

typedef int nb_lapack_int;

#define NB_LAPACK_DECLARE(P, T)                                                                          \
    void scipy_##P##getrf_(const nb_lapack_int* m, const nb_lapack_int* n, T* a, const nb_lapack_int* lda, \
                           nb_lapack_int* ipiv, nb_lapack_int* info);                                    \
    void scipy_##P##getri_(const nb_lapack_int* n, T* a, const nb_lapack_int* lda, const nb_lapack_int* ipiv, \
                           T* work, const nb_lapack_int* lwork, nb_lapack_int* info);                    \
    void scipy_##P##getrs_(const char* trans, const nb_lapack_int* n, const nb_lapack_int* nrhs, const T* a, \
                           const nb_lapack_int* lda, const nb_lapack_int* ipiv, T* b, const nb_lapack_int* ldb, \
                           nb_lapack_int* info, size_t trans_len);                                       \
    void scipy_##P##potrf_(const char* uplo, const nb_lapack_int* n, T* a, const nb_lapack_int* lda,      \
                           nb_lapack_int* info, size_t uplo_len);                                        \
    void scipy_##P##geqrf_(const nb_lapack_int* m, const nb_lapack_int* n, T* a, const nb_lapack_int* lda, \
                           T* tau, T* work, const nb_lapack_int* lwork, nb_lapack_int* info);            \
    void scipy_##P##orgqr_(const nb_lapack_int* m, const nb_lapack_int* n, const nb_lapack_int* k, T* a,  \
                           const nb_lapack_int* lda, const T* tau, T* work, const nb_lapack_int* lwork,   \
                           nb_lapack_int* info);                                                         \
    void scipy_##P##syevd_(const char* jobz, const char* uplo, const nb_lapack_int* n, T* a,              \
                           const nb_lapack_int* lda, T* w, T* work, const nb_lapack_int* lwork,           \
                           nb_lapack_int* iwork, const nb_lapack_int* liwork, nb_lapack_int* info,        \
                           size_t jobz_len, size_t uplo_len);                                            \
    void scipy_##P##gesdd_(const char* jobz, const nb_lapack_int* m, const nb_lapack_int* n, T* a,        \
                           const nb_lapack_int* lda, T* s, T* u, const nb_lapack_int* ldu, T* vt,         \
                           const nb_lapack_int* ldvt, T* work, const nb_lapack_int* lwork,                \
                           nb_lapack_int* iwork, nb_lapack_int* info, size_t jobz_len);            \
    void scipy_##P##sytrf_(const char* uplo, const nb_lapack_int* n, T* a, const nb_lapack_int* lda,      \
                           nb_lapack_int* ipiv, T* work, const nb_lapack_int* lwork, nb_lapack_int* info, \
                           size_t uplo_len);                                                             \
    void scipy_##P##sytrs_(const char* uplo, const nb_lapack_int* n, const nb_lapack_int* nrhs, const T* a, \
                           const nb_lapack_int* lda, const nb_lapack_int* ipiv, T* b, const nb_lapack_int* ldb, \
                           nb_lapack_int* info, size_t uplo_len);                                        \
    void scipy_##P##trsm_(const char* side, const char* uplo, const char* transa, const char* diag,      \
                          const nb_lapack_int* m, const nb_lapack_int* n, const T* alpha, const T* a,     \
                          const nb_lapack_int* lda, T* b, const nb_lapack_int* ldb, size_t side_len,      \
                          size_t uplo_len, size_t transa_len, size_t diag_len);

NB_LAPACK_DECLARE(s, float)
NB_LAPACK_DECLARE(d, double)

#endif /* NABLA_CPU_LAPACK_H_ */
