/* lapack_kernels.h: one matrix at a time, column-major, in place: the steps of
 * nabla's linear algebra (lapack.c) written once for float and double. Included
 * twice by lapack.c, with T (the element type) and P (LAPACK's prefix, s or d)
 * defined. Each returns LAPACK's info (> 0: the routine's failure at that
 * position), or -1 when workspace could not be allocated. */
#define LK_CAT2(a, b) a##b
#define LK_CAT(a, b) LK_CAT2(a, b)
#define LK(name) LK_CAT(name##_, P)                  /* this file's functions: lu_s, lu_d, ... */
#define LAPACK(name) LK_CAT(LK_CAT(scipy_, P), name) /* the library's: scipy_sgetrf_, ... */

/* Workspace of the size a query (lwork = -1) reported in *w. */
static T* LK(workspace)(T w, nb_lapack_int* lwork) {
    *lwork = (nb_lapack_int)w > 1 ? (nb_lapack_int)w : 1;
    return malloc(sizeof(T) * (size_t)*lwork);
}

static int LK(lu)(nb_lapack_int n, T* a, nb_lapack_int* ipiv) {
    nb_lapack_int info = 0;
    if (n > 0) LAPACK(getrf_)(&n, &n, a, &n, ipiv, &info);
    return info;
}

/* a = a^-1 (info > 0: U(info, info) is exactly zero). */
static int LK(inv)(nb_lapack_int n, T* a, nb_lapack_int* ipiv) {
    nb_lapack_int info = LK(lu)(n, a, ipiv), lwork = -1;
    if (info != 0 || n == 0) return info;
    T query;
    LAPACK(getri_)(&n, a, &n, ipiv, &query, &lwork, &info);
    T* work = LK(workspace)(query, &lwork);
    if (work == NULL) return -1;
    LAPACK(getri_)(&n, a, &n, ipiv, work, &lwork, &info);
    free(work);
    return info;
}

/* b (n x nrhs) = a^-1 b; a is left factored. always: a singular a is solved too (the
 * infinities and NaNs of PyTorch's _ex functions), its info still returned. */
static int LK(solve)(nb_lapack_int n, nb_lapack_int nrhs, T* a, nb_lapack_int* ipiv, T* b, bool always) {
    nb_lapack_int info = LK(lu)(n, a, ipiv), info2 = 0;
    if ((info != 0 && !always) || n == 0 || nrhs == 0) return info;
    LAPACK(getrs_)("N", &n, &nrhs, a, &n, ipiv, b, &n, &info2, 1);
    return info;
}

/* a = L D L^T in place, Bunch-Kaufman (sytrf, lower): L below the diagonal, D's blocks on
 * and next to it; info > 0: D(info, info) is exactly zero (the factorization still completes). */
static int LK(ldl)(nb_lapack_int n, T* a, nb_lapack_int* ipiv) {
    nb_lapack_int info = 0, lwork = -1;
    if (n == 0) return 0;
    T query;
    LAPACK(sytrf_)("L", &n, a, &n, ipiv, &query, &lwork, &info, 1);
    T* work = LK(workspace)(query, &lwork);
    if (work == NULL) return -1;
    LAPACK(sytrf_)("L", &n, a, &n, ipiv, work, &lwork, &info, 1);
    free(work);
    return info;
}

/* b (n x nrhs) = A^-1 b from ldl's factors of A (sytrs, lower). */
static void LK(ldl_solve)(nb_lapack_int n, nb_lapack_int nrhs, const T* ld, const nb_lapack_int* ipiv, T* b) {
    nb_lapack_int info = 0;
    if (n > 0 && nrhs > 0) LAPACK(sytrs_)("L", &n, &nrhs, ld, &n, ipiv, b, &n, &info, 1);
}

/* b (m x n, leading dim m) = op^-1 b (side 'L') or b op^-1 (side 'R'), op the triangle
 * uplo of a (unit: ones on its diagonal). No check for zeros on the diagonal (BLAS). */
static void LK(trsolve)(char side, char uplo, bool unit, nb_lapack_int m, nb_lapack_int n, const T* a, T* b) {
    if (m == 0 || n == 0) return;
    const T one = 1;
    const nb_lapack_int lda = side == 'L' ? m : n;
    const char s[2] = {side, 0}, u[2] = {uplo, 0};
    LAPACK(trsm_)(s, u, "N", unit ? "U" : "N", &m, &n, &one, a, &lda, b, &m, 1, 1, 1, 1);
}

/* det and log|det| with its sign, from the LU factors (a singular matrix: 0, 0, -inf). */
static void LK(det)(nb_lapack_int n, T* a, nb_lapack_int* ipiv, T* det, T* sign, T* logabs) {
    const int info = LK(lu)(n, a, ipiv);
    T d = 1, s = 1, l = 0;
    for (nb_lapack_int i = 0; i < n; i++) {
        const T u = a[i + (int64_t)i * n];
        d *= ipiv[i] != i + 1 ? -u : u;
        if (ipiv[i] != i + 1) s = -s;
        if (u < 0) s = -s;
        l += (T)log(fabs((double)u));
    }
    if (info > 0) s = 0, l = -(T)INFINITY;
    *det = d, *sign = s, *logabs = l;
}

/* The Cholesky factor in the lower (or upper) triangle, zeros in the other. */
static int LK(cholesky)(nb_lapack_int n, T* a, bool upper) {
    nb_lapack_int info = 0;
    if (n > 0) LAPACK(potrf_)(upper ? "U" : "L", &n, a, &n, &info, 1);
    for (nb_lapack_int j = 0; j < n; j++)
        for (nb_lapack_int i = 0; i < n; i++)
            if (upper ? i > j : i < j) a[i + (int64_t)j * n] = 0;
    return info;
}

/* a (m x n) = QR: R in the upper triangle of a's first k = min(m, n) rows (the rest
 * zeroed by the caller's copy), Q (m x qcols, qcols = k or m) in q when non-NULL. */
static int LK(qr)(nb_lapack_int m, nb_lapack_int n, T* a, T* q, nb_lapack_int qcols) {
    const nb_lapack_int k = m < n ? m : n, lda = m > 1 ? m : 1;
    nb_lapack_int info = 0, lwork = -1;
    T* tau = malloc(sizeof(T) * (size_t)(k > 0 ? k : 1));
    if (tau == NULL) return -1;
    T query;
    if (k > 0) {
        LAPACK(geqrf_)(&m, &n, a, &lda, tau, &query, &lwork, &info);
        T* work = LK(workspace)(query, &lwork);
        if (work == NULL) return free(tau), -1;
        LAPACK(geqrf_)(&m, &n, a, &lda, tau, work, &lwork, &info);
        free(work);
    }
    if (q != NULL && info == 0) {
        for (nb_lapack_int j = 0; j < qcols; j++)  /* the reflectors, then orgqr turns them into Q */
            for (nb_lapack_int i = 0; i < m; i++) q[i + (int64_t)j * m] = j < n ? a[i + (int64_t)j * m] : 0;
        if (qcols > 0 && m > 0) {
            lwork = -1;
            LAPACK(orgqr_)(&m, &qcols, &k, q, &lda, tau, &query, &lwork, &info);
            T* work = LK(workspace)(query, &lwork);
            if (work == NULL) return free(tau), -1;
            LAPACK(orgqr_)(&m, &qcols, &k, q, &lda, tau, work, &lwork, &info);
            free(work);
        }
    }
    free(tau);
    return info;
}

/* Eigenvalues (ascending) into w and, with vectors, the eigenvectors into a's columns;
 * only the upper or lower triangle of a is read. */
static int LK(eigh)(nb_lapack_int n, T* a, T* w, bool vectors, bool upper) {
    if (n == 0) return 0;
    nb_lapack_int info = 0, lwork = -1, liwork = -1, iquery;
    T query;
    const char* jobz = vectors ? "V" : "N";
    const char* uplo = upper ? "U" : "L";
    LAPACK(syevd_)(jobz, uplo, &n, a, &n, w, &query, &lwork, &iquery, &liwork, &info, 1, 1);
    T* work = LK(workspace)(query, &lwork);
    liwork = iquery > 1 ? iquery : 1;
    nb_lapack_int* iwork = malloc(sizeof(nb_lapack_int) * (size_t)liwork);
    if (work == NULL || iwork == NULL) return free(work), free(iwork), -1;
    LAPACK(syevd_)(jobz, uplo, &n, a, &n, w, work, &lwork, iwork, &liwork, &info, 1, 1);
    free(work);
    free(iwork);
    return info;
}

/* a (m x n, destroyed) = U diag(s) Vt; jobz 'S' (U m x k, Vt k x n), 'A' (m x m, n x n)
 * or 'N' (s only). */
static int LK(svd)(nb_lapack_int m, nb_lapack_int n, T* a, T* s, T* u, T* vt, char jobz) {
    const nb_lapack_int k = m < n ? m : n;
    if (k == 0) return 0;
    const nb_lapack_int ldu = m, ldvt = jobz == 'A' ? n : k;
    nb_lapack_int info = 0, lwork = -1;
    nb_lapack_int* iwork = malloc(sizeof(nb_lapack_int) * (size_t)(8 * k));
    if (iwork == NULL) return -1;
    T query, dummy = 0;
    const char job[2] = {jobz, 0};
    LAPACK(gesdd_)(job, &m, &n, a, &m, s, u ? u : &dummy, &ldu, vt ? vt : &dummy, &ldvt, &query, &lwork, iwork,
                   &info, 1);
    T* work = LK(workspace)(query, &lwork);
    if (work == NULL) return free(iwork), -1;
    LAPACK(gesdd_)(job, &m, &n, a, &m, s, u ? u : &dummy, &ldu, vt ? vt : &dummy, &ldvt, work, &lwork, iwork,
                   &info, 1);
    free(work);
    free(iwork);
    return info;
}

#undef LK
#undef LAPACK
