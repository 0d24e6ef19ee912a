/* The affine set x = x̄ + Z w of a hierarchy level (wbcpy/qp/nullspace.py): new rows fix directions.
 *
 * nullspace_update(S, f, Z, xbar, rank_tol) -> (Z', xbar', rank, residual)
 *
 * Rows S (m × n) are scaled to unit length (rows shorter than 1e-12·max(1, longest) are dropped), then
 * M = (S Z)ᵀ (k × m) is factorised by column-pivoted Householder QR (pivoted_qr for small matrices,
 * LAPACK dgeqp3 otherwise), M P = Q R; Q stays in reflector form and is applied where needed (apply_q).
 * The rank is the number of |R_ii| above rank_tol. With targets f (S x = f: equality
 * constraints) x̄ moves by the least change within the free directions that meets them,
 * x̄' = x̄ + Z Q₁ u with R₁ᵀ u = (f − S x̄)[P]; the rows that R₁ does not span must then be met already
 * (else `residual` reports by how much they are not: the equalities are inconsistent). Without f the
 * rows are ones x̄ satisfies (the optimality of a higher level). Z' = Z Q₂ spans what is left free
 * (Q₂ = Q [0; I], Q₁ u = Q [u; 0]).
 *
 * Z None is the identity (k = n), xbar None is 0. Z' / xbar' are new arrays, or the arguments themselves
 * when they do not change. residual is 0 unless the equalities are inconsistent: then the largest
 * violation (relative test: > 1e-9 (1 + max |f|) on the normalised rows), nothing else is meaningful.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "kernels.h"

typedef struct {
    double *rows; /* normalised rows (mb × n, row-major) */
    double *f;    /* their targets (mb), or NULL */
    double fmax;  /* max |f| of the normalised rows */
    Py_ssize_t mb;
} unit_rows;

/* the rows of S scaled to unit norm, tiny ones dropped; returns -1 (no memory), 0, or 1 when every row
 * is tiny while a target is not (above 1e-9 (1 + |f|): an inconsistent equation 0 = f; *bad holds
 * max |f|) */
static int normalise(const wk_mat *S, const double *f, unit_rows *out, double *bad)
{
    Py_ssize_t m = S->rows, n = S->cols;
    double *norms = PyMem_Malloc((size_t)(m > 0 ? m : 1) * sizeof(double));
    out->rows = PyMem_Malloc((size_t)(m * n > 0 ? m * n : 1) * sizeof(double));
    out->f = f ? PyMem_Malloc((size_t)(m > 0 ? m : 1) * sizeof(double)) : NULL;
    if (norms == NULL || out->rows == NULL || (f && out->f == NULL)) {
        PyMem_Free(norms);
        PyErr_NoMemory();
        return -1;
    }
    double longest = 0.0, fmax_all = 0.0;
    for (Py_ssize_t i = 0; i < m; i++) {
        double s = 0.0;
        for (Py_ssize_t j = 0; j < n; j++)
            s += WK_AT(*S, i, j) * WK_AT(*S, i, j);
        norms[i] = sqrt(s);
        longest = norms[i] > longest ? norms[i] : longest;
        if (f && fabs(f[i]) > fmax_all)
            fmax_all = fabs(f[i]);
    }
    double floor = 1e-12 * (longest > 1.0 ? longest : 1.0);
    Py_ssize_t mb = 0;
    out->fmax = 0.0;
    for (Py_ssize_t i = 0; i < m; i++) {
        if (!(norms[i] > floor))
            continue;
        double inv = 1.0 / norms[i]; /* (one division per row) */
        for (Py_ssize_t j = 0; j < n; j++)
            out->rows[mb * n + j] = WK_AT(*S, i, j) * inv;
        if (f) {
            out->f[mb] = f[i] / norms[i];
            out->fmax = fabs(out->f[mb]) > out->fmax ? fabs(out->f[mb]) : out->fmax;
        }
        mb++;
    }
    PyMem_Free(norms);
    out->mb = mb;
    if (mb == 0 && f && fmax_all > 1e-9 * (1.0 + fmax_all)) {
        *bad = fmax_all;
        return 1;
    }
    return 0;
}

/* a new (rows × cols) C-ordered float64 array */
static PyArrayObject *new_matrix(Py_ssize_t rows, Py_ssize_t cols)
{
    npy_intp dims[2] = {rows, cols};
    return (PyArrayObject *)PyArray_SimpleNew(2, dims, NPY_DOUBLE);
}

static PyArrayObject *new_vector(Py_ssize_t n)
{
    npy_intp dims[1] = {n};
    return (PyArrayObject *)PyArray_SimpleNew(1, dims, NPY_DOUBLE);
}

typedef struct {
    double *M, *tau, *work, *e, *u, *vn;
    int *jpvt, lwork; /* (work NULL: the small-matrix path, no LAPACK) */
} qr_work;

static void qr_free(qr_work *w)
{
    PyMem_Free(w->M);
    PyMem_Free(w->tau);
    PyMem_Free(w->work);
    PyMem_Free(w->e);
    PyMem_Free(w->u);
    PyMem_Free(w->jpvt);
    PyMem_Free(w->vn);
}

/* up to this many entries of M (k × mb) the QR is written out (pivoted_qr, then wy_basis or
 * apply_small_q); above, LAPACK's blocked dgeqp3 / dormqr. Measured with the OpenBLAS of SciPy's wheels
 * (µs, LAPACK → written out): 6 × 9: 1.6 → 0.7; 12 × 38: 6.9 → 5.3; 18 × 50: 13.3 → 11.3;
 * 40 × 100: 70 → 68. */
#define SMALL_QR 4096
/* Q₂ by the compact WY form (one matrix product) from this many multiply-adds of that product on */
#define WY_MIN_WORK 4096.0

/* the squared norm of col[i:k] */
static double tail_norm2(const double *col, int i, int k)
{
    double s = 0.0;
    for (int a = i; a < k; a++)
        s += col[a] * col[a];
    return s;
}

/* H_i = I − τ v vᵀ (v = [1; v(i+1:)], rows i… of k) applied to the nc ≤ 4 columns col[0…nc−1] (col[j] for
 * j ≥ nc repeats col[0]): their dot products run side by side, each in its own order (the same rounding
 * as one column alone) */
static void reflect(const double *v, int k, int i, double tau, double *const col[4], int nc)
{
    double s0 = col[0][i], s1 = col[1][i], s2 = col[2][i], s3 = col[3][i];
    for (int a = i + 1; a < k; a++) {
        double va = v[a];
        s0 += va * col[0][a];
        s1 += va * col[1][a];
        s2 += va * col[2][a];
        s3 += va * col[3][a];
    }
    double sv[4] = {s0 * tau, s1 * tau, s2 * tau, s3 * tau};
    for (int j = 0; j < nc; j++) {
        double *cj = col[j], sj = sv[j];
        cj[i] -= sj;
        for (int a = i + 1; a < k; a++)
            cj[a] -= sj * v[a];
    }
}

/* up to four columns c, c+1, … (below c1) of the column-major array X (k rows) as reflect takes them */
static int column_group(double *X, int k, int c, int c1, double *col[4])
{
    int nc = c1 - c < 4 ? c1 - c : 4;
    for (int j = 0; j < 4; j++)
        col[j] = X + (size_t)(c + (j < nc ? j : 0)) * k;
    return nc;
}

/* H_i applied to columns c0 … c1−1 of M (v = [1; M(i+1:, i)], τ) */
static void reflect_columns(double *M, int k, int i, double tau, int c0, int c1)
{
    double *col[4];
    for (int c = c0; c < c1; c += 4)
        reflect(M + (size_t)i * k, k, i, tau, col, column_group(M, k, c, c1, col));
}

/* Column-pivoted Householder QR of the column-major k × mb array M, in place (LAPACK dgeqp3's output
 * convention, unblocked, as its dlaqp2): step i moves the column with the largest norm below row i (the
 * first of equal ones) to position i (jpvt, 1-based, records the order) and reflects it onto R_ii e_i
 * with H_i = I − τ_i v vᵀ, v = [1; M(i+1:, i)] (dlarfg: R_ii = −sign(α)‖x‖). The partial norms are
 * downdated, and recomputed when cancellation has eaten half their digits (dlaqp2's test). */
static void pivoted_qr(double *M, int k, int mb, int *jpvt, double *tau, double *vn, double *vn0)
{
    int kmin = k < mb ? k : mb;
    const double tol = sqrt(DBL_EPSILON);
    for (int c = 0; c < mb; c++) {
        jpvt[c] = c + 1;
        vn[c] = vn0[c] = tail_norm2(M + (size_t)c * k, 0, k);
    }
    for (int i = 0; i < kmin; i++) {
        int best = i;
        for (int c = i + 1; c < mb; c++)
            if (vn[c] > vn[best])
                best = c;
        if (best != i) {
            double *p = M + (size_t)i * k, *q = M + (size_t)best * k;
            for (int a = 0; a < k; a++) {
                double t = p[a];
                p[a] = q[a];
                q[a] = t;
            }
            int t = jpvt[i];
            jpvt[i] = jpvt[best];
            jpvt[best] = t;
            vn[best] = vn[i], vn0[best] = vn0[i];
        }
        double *v = M + (size_t)i * k, alpha = v[i], tail = tail_norm2(v, i + 1, k);
        tau[i] = 0.0;
        if (tail != 0.0) {
            double beta = -copysign(sqrt(alpha * alpha + tail), alpha), scale = 1.0 / (alpha - beta);
            tau[i] = (beta - alpha) / beta;
            for (int a = i + 1; a < k; a++)
                v[a] *= scale;
            v[i] = beta;
            reflect_columns(M, k, i, tau[i], i + 1, mb);
        }
        for (int c = i + 1; c < mb; c++) { /* the norms below row i + 1 */
            double r = M[(size_t)c * k + i];
            vn[c] -= r * r;
            if (!(vn[c] > tol * vn0[c]))
                vn[c] = vn0[c] = tail_norm2(M + (size_t)c * k, i + 1, k);
        }
    }
}

/* M (k × mb, column-major) = (rows Z)ᵀ, then its pivoted QR (R in the upper triangle, Q as reflectors) */
static int factorise(const unit_rows *r, const wk_mat *Z, Py_ssize_t n, int k, qr_work *w)
{
    int mb = (int)r->mb, kmin = k < mb ? k : mb, info = 0, small = (size_t)k * (size_t)mb <= SMALL_QR;
    w->M = PyMem_Calloc((size_t)k * (size_t)mb + 1, sizeof(double));
    w->tau = PyMem_Calloc((size_t)kmin + 1, sizeof(double));
    w->jpvt = PyMem_Calloc((size_t)mb + 1, sizeof(int));
    w->vn = PyMem_Calloc(2 * (size_t)mb + 1, sizeof(double));
    /* workspace: dgeqp3 needs 3 mb + 1 (blocked: 2 mb + (mb + 1) nb), dormqr n nb for n columns; with
     * nb = 64 both run blocked, and no workspace query is needed */
    w->lwork = small ? 0 : 2 * mb + (mb + 1) * 64 + (k + 1) * 64 + 64;
    w->work = small ? NULL : PyMem_Malloc((size_t)w->lwork * sizeof(double));
    if (w->M == NULL || w->tau == NULL || w->jpvt == NULL || w->vn == NULL || (!small && w->work == NULL)) {
        PyErr_NoMemory();
        return -1;
    }
    /* the column-major k × mb array M = (rows Z)ᵀ is the row-major mb × k array rows Z */
    if (Z->data) {
        wk_mat R = {r->rows, mb, n, n, 1};
        wk_matmul(&R, Z, w->M);
    } else {
        memcpy(w->M, r->rows, (size_t)mb * (size_t)n * sizeof(double));
    }
    if (small) {
        pivoted_qr(w->M, k, mb, w->jpvt, w->tau, w->vn, w->vn + mb);
        return 0;
    }
    int lda = k > 1 ? k : 1;
    wk_dgeqp3(&k, &mb, w->M, &lda, w->jpvt, w->tau, w->work, &w->lwork, &info);
    if (info != 0) {
        PyErr_Format(PyExc_ArithmeticError, "dgeqp3 failed (info %d)", info);
        return -1;
    }
    return 0;
}

/* C := Q C = H_0 H_1 … C for the column-major k × ncols array C (the reflectors of M, last one first),
 * four columns at a time: their dot products run side by side (each in its own order, as one column
 * alone would: the same rounding) */
static void apply_small_q(const qr_work *w, int k, int mb, double *C, int ncols)
{
    int kmin = k < mb ? k : mb;
    double *col[4];
    for (int c0 = 0; c0 < ncols; c0 += 4) {
        int nc = column_group(C, k, c0, ncols, col);
        for (int i = kmin - 1; i >= 0; i--)
            if (w->tau[i] != 0.0)
                reflect(w->M + (size_t)i * k, k, i, w->tau[i], col, nc);
    }
}

/* C := Q C for the column-major k × ncols array C; 0, or -1 with an exception set (dormqr failed) */
static int apply_q(qr_work *w, int k, int mb, double *C, int ncols)
{
    char side = 'L', trans = 'N';
    int kmin = k < mb ? k : mb, lda = k > 1 ? k : 1, info = 0;
    if (ncols == 0 || kmin == 0)
        return 0;
    if (w->work == NULL) {
        apply_small_q(w, k, mb, C, ncols);
        return 0;
    }
    wk_dormqr(&side, &trans, &k, &ncols, &kmin, w->M, &lda, w->tau, C, &lda, w->work, &w->lwork, &info);
    if (info != 0) {
        PyErr_Format(PyExc_ArithmeticError, "dormqr failed (info %d)", info);
        return -1;
    }
    return 0;
}

/* the move of x̄ in w-space: R₁ᵀ u = ep[:rank]; returns the inconsistency of the other rows (0 if met) */
static double move(const unit_rows *r, qr_work *w, int k, int rank, const double *e)
{
    int mb = (int)r->mb;
    double worst = 0.0;
    for (int i = 0; i < rank; i++) {
        double s = e[w->jpvt[i] - 1];
        for (int j = 0; j < i; j++)
            s -= w->M[j + (size_t)i * k] * w->u[j];
        w->u[i] = s / w->M[i + (size_t)i * k];
    }
    for (int l = rank; l < mb; l++) {
        double s = -e[w->jpvt[l] - 1];
        for (int j = 0; j < rank && j < k; j++)
            s += w->M[j + (size_t)l * k] * w->u[j];
        worst = fabs(s) > worst ? fabs(s) : worst;
    }
    return worst > 1e-9 * (1.0 + r->fmax) ? worst : 0.0;
}

/* x̄ + Z Q₁ u as a new array (Z NULL data: the identity); Q₁ u = Q [u; 0] */
static PyArrayObject *moved_point(const double *xbar, const wk_mat *Z, qr_work *w, Py_ssize_t n, int k,
                                  int mb, int rank)
{
    double *step = PyMem_Calloc((size_t)k + 1, sizeof(double));
    if (step == NULL)
        return (PyArrayObject *)PyErr_NoMemory();
    memcpy(step, w->u, (size_t)rank * sizeof(double));
    PyArrayObject *out = NULL;
    if (apply_q(w, k, mb, step, 1) == 0 && (out = new_vector(n)) != NULL) {
        double *x = PyArray_DATA(out);
        for (Py_ssize_t l = 0; l < n; l++) {
            double s = xbar ? xbar[l] : 0.0;
            if (Z->data) {
                for (int i = 0; i < k; i++)
                    s += WK_AT(*Z, l, i) * step[i];
            } else {
                s += step[l];
            }
            x[l] = s;
        }
    }
    PyMem_Free(step);
    return out;
}

/* Q₂ = Q [0; I] (k × kk, kk = k − rank, row-major, into P) by the compact WY form of the reflectors,
 * Q = I − V T Vᵀ (LAPACK dlarft: V the unit lower trapezoidal reflectors, T upper triangular):
 * Q₂ = [0; I] − V (T V₂ᵀ) with V₂ the rows rank… of V. The product with V is one matrix product (BLAS
 * when large), where applying the reflectors one by one is kmin rank-1 updates. 0, or -1 (no memory). */
static int wy_basis(const qr_work *w, int k, int mb, int rank, double *P)
{
    int kmin = k < mb ? k : mb, kk = k - rank;
    double *V = PyMem_Calloc((size_t)k * kmin + 1, sizeof(double)); /* column-major k × kmin */
    double *T = PyMem_Calloc((size_t)kmin * kmin + 1, sizeof(double)); /* row-major, upper */
    double *W = PyMem_Malloc(((size_t)kmin * kk + 1) * sizeof(double)); /* row-major kmin × kk */
    double *u = PyMem_Malloc(((size_t)kmin + 1) * sizeof(double));
    if (V == NULL || T == NULL || W == NULL || u == NULL) {
        PyMem_Free(V);
        PyMem_Free(T);
        PyMem_Free(W);
        PyMem_Free(u);
        PyErr_NoMemory();
        return -1;
    }
    for (int j = 0; j < kmin; j++) {
        double *v = V + (size_t)j * k;
        const double *mj = w->M + (size_t)j * k;
        v[j] = 1.0;
        for (int a = j + 1; a < k; a++)
            v[a] = mj[a];
    }
    for (int i = 0; i < kmin; i++) { /* T[0:i, i] = −τ_i T[0:i, 0:i] (V[:, 0:i]ᵀ v_i), T_ii = τ_i */
        const double *vi = V + (size_t)i * k;
        double tau = w->tau[i];
        for (int l = 0; l < i; l++) { /* u = V[i:, 0:i]ᵀ v_i[i:]: dot products of contiguous columns */
            const double *vl = V + (size_t)l * k;
            double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
            int a = i;
            for (; a + 4 <= k; a += 4) { /* (four partial sums: independent chains) */
                s0 += vl[a] * vi[a];
                s1 += vl[a + 1] * vi[a + 1];
                s2 += vl[a + 2] * vi[a + 2];
                s3 += vl[a + 3] * vi[a + 3];
            }
            for (; a < k; a++)
                s0 += vl[a] * vi[a];
            u[l] = (s0 + s1) + (s2 + s3);
        }
        for (int j = 0; j < i; j++) {
            double s = 0.0;
            for (int l = j; l < i; l++)
                s += T[j * kmin + l] * u[l];
            T[j * kmin + i] = -tau * s;
        }
        T[i * kmin + i] = tau;
    }
    for (int j = 0; j < kmin; j++) { /* W = T V₂ᵀ, row j as a sum of rows of V₂ᵀ (contiguous) */
        double *wj = W + (size_t)j * kk;
        for (int c = 0; c < kk; c++)
            wj[c] = 0.0;
        for (int l = j; l < kmin; l++) {
            double t = T[j * kmin + l];
            const double *v2 = V + (size_t)l * k + rank;
            for (int c = 0; c < kk; c++)
                wj[c] += t * v2[c];
        }
    }
    wk_mat Vm = {V, k, kmin, 1, k}, Wm = {W, kmin, kk, kk, 1};
    wk_matmul_dense(&Vm, &Wm, P);
    for (Py_ssize_t i = 0; i < (Py_ssize_t)k * kk; i++)
        P[i] = -P[i];
    for (int c = 0; c < kk; c++)
        P[(size_t)(rank + c) * kk + c] += 1.0;
    PyMem_Free(V);
    PyMem_Free(T);
    PyMem_Free(W);
    PyMem_Free(u);
    return 0;
}

/* Q₂ = Q [0; I] (k × kk, row-major, into P) by applying the reflectors to [0; I] (LAPACK's dormqr, or
 * apply_small_q); 0, or -1 with an exception set */
static int applied_basis(qr_work *w, int k, int mb, int rank, double *P)
{
    int kk = k - rank;
    double *Q2 = PyMem_Calloc((size_t)k * (size_t)kk + 1, sizeof(double)); /* column-major */
    if (Q2 == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (int c = 0; c < kk; c++)
        Q2[(size_t)c * k + rank + c] = 1.0;
    int st = apply_q(w, k, mb, Q2, kk);
    for (int a = 0; st == 0 && a < k; a++)
        for (int c = 0; c < kk; c++)
            P[(size_t)a * kk + c] = Q2[(size_t)c * k + a];
    PyMem_Free(Q2);
    return st;
}

/* Z Q₂ (n × (k − rank)) as a new array; Q₂ = Q [0; I] (the trailing columns of Q): by the compact WY form
 * on the written-out path once its matrix product is worth BLAS, by the reflectors one by one otherwise */
static PyArrayObject *shrunk_basis(const wk_mat *Z, qr_work *w, Py_ssize_t n, int k, int mb, int rank)
{
    int kk = k - rank, kmin = k < mb ? k : mb;
    PyArrayObject *out = new_matrix(n, kk);
    if (out == NULL)
        return NULL;
    double *Q2 = Z->data ? PyMem_Malloc(((size_t)k * kk + 1) * sizeof(double)) : PyArray_DATA(out);
    if (Q2 == NULL) {
        Py_DECREF(out);
        return (PyArrayObject *)PyErr_NoMemory();
    }
    int wy = w->work == NULL && (double)k * kk * kmin >= WY_MIN_WORK;
    if ((wy ? wy_basis(w, k, mb, rank, Q2) : applied_basis(w, k, mb, rank, Q2)) < 0) {
        if (Z->data)
            PyMem_Free(Q2);
        Py_DECREF(out);
        return NULL;
    }
    if (Z->data) {
        wk_mat Q2m = {Q2, k, kk, kk, 1};
        wk_matmul_dense(Z, &Q2m, PyArray_DATA(out));
        PyMem_Free(Q2);
    }
    return out;
}

static PyObject *result(PyObject *Z, PyObject *xbar, int rank, double residual)
{
    return Py_BuildValue("OOid", Z, xbar, rank, residual);
}

PyObject *wk_nullspace_update(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (wk_nargs(nargs, 5, "nullspace_update") < 0 || wk_load_lapack() < 0)
        return NULL;
    wk_mat S, Z;
    if (wk_matrix(args[0], -1, -1, 0, "S", &S) < 0 || wk_matrix_or_none(args[2], S.cols, -1, "Z", &Z) < 0)
        return NULL;
    Py_ssize_t m = S.rows, n = S.cols;
    int no_f, no_x;
    const double *f = wk_vector_or_none(args[1], m, 0, "f", &no_f);
    const double *xbar = (f || no_f) ? wk_vector_or_none(args[3], n, 0, "xbar", &no_x) : NULL;
    double rank_tol = PyFloat_AsDouble(args[4]);
    if ((!f && !no_f) || (!xbar && !no_x) || PyErr_Occurred())
        return NULL;
    /* the contract: finite data only (an inf entry used to drop every row, a NaN row was dropped silently) */
    if (wk_finite(&S, f, m, "nullspace_update: S or f") < 0 || wk_finite(&Z, xbar, n, "nullspace_update: Z or xbar") < 0)
        return NULL;
    if (!(rank_tol >= 0.0 && rank_tol < INFINITY)) {
        PyErr_SetString(PyExc_ValueError, "nullspace_update: rank_tol must be finite and >= 0");
        return NULL;
    }
    int k = (int)(Z.data ? Z.cols : n);
    if (k == 0 && no_f)
        return result(args[2], args[3], 0, 0.0);
    unit_rows r = {NULL, NULL, 0.0, 0};
    qr_work w = {NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0};
    PyObject *out = NULL;
    double bad = 0.0;
    int st = normalise(&S, f, &r, &bad);
    if (st < 0)
        goto done;
    if (st > 0 || r.mb == 0) {
        out = result(args[2], args[3], 0, bad);
        goto done;
    }
    /* e = f − S x̄ on the normalised rows */
    w.e = PyMem_Malloc((size_t)r.mb * sizeof(double));
    w.u = PyMem_Malloc((size_t)(r.mb + k + 1) * sizeof(double));
    if (w.e == NULL || w.u == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    double emax = 0.0;
    for (Py_ssize_t i = 0; f && i < r.mb; i++) {
        double s = r.f[i];
        for (Py_ssize_t j = 0; xbar && j < n; j++)
            s -= r.rows[i * n + j] * xbar[j];
        w.e[i] = s;
        emax = fabs(s) > emax ? fabs(s) : emax;
    }
    if (k == 0) { /* every direction fixed: the equalities must hold at x̄ */
        out = result(args[2], args[3], 0, emax > 1e-9 * (1.0 + r.fmax) ? emax : 0.0);
        goto done;
    }
    if (factorise(&r, &Z, n, k, &w) < 0)
        goto done;
    int kmin = k < (int)r.mb ? k : (int)r.mb, rank = 0;
    for (int i = 0; i < kmin; i++)
        rank += fabs(w.M[i + (size_t)i * k]) > rank_tol;
    double residual = f ? move(&r, &w, k, rank, w.e) : 0.0;
    PyObject *Znew = args[2], *xnew = args[3];
    Py_INCREF(Znew);
    Py_INCREF(xnew);
    if (f && rank) {
        Py_DECREF(xnew);
        xnew = (PyObject *)moved_point(xbar, &Z, &w, n, k, (int)r.mb, rank);
    }
    if (rank && xnew) {
        Py_DECREF(Znew);
        Znew = (PyObject *)shrunk_basis(&Z, &w, n, k, (int)r.mb, rank);
    }
    if (Znew && xnew)
        out = result(Znew, xnew, rank, residual);
    Py_XDECREF(Znew);
    Py_XDECREF(xnew);
done:
    PyMem_Free(r.rows);
    PyMem_Free(r.f);
    qr_free(&w);
    return out;
}

/* kept_rows(M, v, lo, hi, drop_constant) -> (M_kept, lo − v, hi − v, rows) or None
 *
 * The inequality rows lo ≤ M w + v ≤ hi of a level in its free directions w (M = C Z or Z, v = C x̄ or
 * x̄; v None: 0). Rows bounded on neither side are dropped; with drop_constant, rows of M shorter than
 * 1e-9 are constant on the free directions: dropped after checking that v meets them within
 * 1e-9 (1 + |side|), or None when one does not (the level is infeasible). */
Py_ssize_t wk_kept_core(const wk_mat *M, const double *v, const double *lo, const double *hi, int drop,
                        npy_intp *keep)
{
    Py_ssize_t nk = 0, k = M->cols;
    for (Py_ssize_t i = 0; i < M->rows; i++) {
        double l = lo ? lo[i] : -INFINITY, h = hi ? hi[i] : INFINITY;
        if (isinf(l) && l < 0 && isinf(h) && h > 0)
            continue;
        if (drop) {
            double s = 0.0;
            for (Py_ssize_t j = 0; j < k; j++)
                s += WK_AT(*M, i, j) * WK_AT(*M, i, j);
            if (sqrt(s) <= 1e-9) {
                double vi = v ? v[i] : 0.0;
                double tl = 1e-9 * (1.0 + (isfinite(l) ? fabs(l) : 0.0));
                double th = 1e-9 * (1.0 + (isfinite(h) ? fabs(h) : 0.0));
                if (vi < l - tl || vi > h + th)
                    return -1;
                continue;
            }
        }
        keep[nk++] = i;
    }
    return nk;
}

void wk_kept_copy(const wk_mat *M, const double *v, const double *lo, const double *hi, const npy_intp *keep,
                  Py_ssize_t nk, double *Mk, double *l, double *h)
{
    Py_ssize_t k = M->cols;
    for (Py_ssize_t r = 0; r < nk; r++) {
        Py_ssize_t i = keep[r];
        for (Py_ssize_t j = 0; j < k; j++)
            Mk[r * k + j] = WK_AT(*M, i, j);
        double vi = v ? v[i] : 0.0;
        l[r] = (lo ? lo[i] : -INFINITY) - vi;
        h[r] = (hi ? hi[i] : INFINITY) - vi;
    }
}

PyObject *wk_kept_rows(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (wk_nargs(nargs, 5, "kept_rows") < 0)
        return NULL;
    wk_mat M;
    if (wk_matrix(args[0], -1, -1, 0, "M", &M) < 0)
        return NULL;
    Py_ssize_t m = M.rows, k = M.cols;
    int no_v;
    const double *v = wk_vector_or_none(args[1], m, 0, "v", &no_v);
    const double *lo = (v || no_v) ? wk_vector(args[2], m, 0, "lo") : NULL;
    const double *hi = lo ? wk_vector(args[3], m, 0, "hi") : NULL;
    int drop = hi ? PyObject_IsTrue(args[4]) : -1;
    if (drop < 0)
        return NULL;
    npy_intp *keep = PyMem_Malloc((size_t)(m > 0 ? m : 1) * sizeof(npy_intp));
    if (keep == NULL)
        return PyErr_NoMemory();
    Py_ssize_t nk = wk_kept_core(&M, v, lo, hi, drop, keep);
    if (nk < 0) {
        PyMem_Free(keep);
        Py_RETURN_NONE;
    }
    npy_intp dims[1] = {nk};
    PyArrayObject *Mk = new_matrix(nk, k), *l = new_vector(nk), *h = new_vector(nk);
    PyArrayObject *rows = (PyArrayObject *)PyArray_SimpleNew(1, dims, NPY_INTP);
    PyObject *out = NULL;
    if (Mk && l && h && rows) {
        wk_kept_copy(&M, v, lo, hi, keep, nk, PyArray_DATA(Mk), PyArray_DATA(l), PyArray_DATA(h));
        memcpy(PyArray_DATA(rows), keep, (size_t)nk * sizeof(npy_intp));
        out = PyTuple_Pack(4, (PyObject *)Mk, (PyObject *)l, (PyObject *)h, (PyObject *)rows);
    }
    Py_XDECREF(Mk);
    Py_XDECREF(l);
    Py_XDECREF(h);
    Py_XDECREF(rows);
    PyMem_Free(keep);
    return out;
}

/* selection_rows(A) -> (columns, other_rows)
 *
 * The rows of A with exactly one nonzero entry (a multiple of a unit row: A x = A x* then fixes that
 * variable), as the sorted distinct columns they select, and the indices of the rows with two or more
 * nonzero entries. Rows without any, and single-entry rows no longer than 1e-12 max(1, the longest row)
 * (rounding noise, which the null space drops too), are in neither. */
PyObject *wk_selection_rows(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (wk_nargs(nargs, 1, "selection_rows") < 0)
        return NULL;
    wk_mat A;
    if (wk_matrix(args[0], -1, -1, 0, "A", &A) < 0)
        return NULL;
    Py_ssize_t m = A.rows, n = A.cols;
    char *selected = PyMem_Calloc((size_t)n + 1, 1);
    npy_intp *others = PyMem_Malloc((size_t)(m > 0 ? m : 1) * sizeof(npy_intp));
    if (selected == NULL || others == NULL) {
        PyMem_Free(selected);
        PyMem_Free(others);
        return PyErr_NoMemory();
    }
    /* a row counts when its norm exceeds 1e-12 max(1, the longest row's): the rows the null space keeps */
    double longest = 0.0;
    for (Py_ssize_t i = 0; i < m; i++) {
        double s = 0.0;
        for (Py_ssize_t j = 0; j < n; j++)
            s += WK_AT(A, i, j) * WK_AT(A, i, j);
        longest = s > longest ? s : longest;
    }
    double floor = 1e-12 * (sqrt(longest) > 1.0 ? sqrt(longest) : 1.0);
    Py_ssize_t n_other = 0, n_sel = 0;
    for (Py_ssize_t i = 0; i < m; i++) {
        Py_ssize_t col = wk_single_entry(&A, i);
        if (col >= 0 && fabs(WK_AT(A, i, col)) > floor) {
            n_sel += !selected[col];
            selected[col] = 1;
        } else if (col == -2) {
            others[n_other++] = i;
        }
    }
    npy_intp dc[1] = {n_sel}, dr[1] = {n_other};
    PyArrayObject *cols = (PyArrayObject *)PyArray_SimpleNew(1, dc, NPY_INTP);
    PyArrayObject *rows = (PyArrayObject *)PyArray_SimpleNew(1, dr, NPY_INTP);
    PyObject *out = NULL;
    if (cols && rows) {
        npy_intp *c = PyArray_DATA(cols), k = 0;
        for (Py_ssize_t j = 0; j < n; j++)
            if (selected[j])
                c[k++] = j;
        memcpy(PyArray_DATA(rows), others, (size_t)n_other * sizeof(npy_intp));
        out = PyTuple_Pack(2, (PyObject *)cols, (PyObject *)rows);
    }
    Py_XDECREF(cols);
    Py_XDECREF(rows);
    PyMem_Free(selected);
    PyMem_Free(others);
    return out;
}

/* gather the columns `cols` (n_cols of them) of the strided M into a new row-major array */
static PyArrayObject *gather_columns(const wk_mat *M, const npy_intp *cols, Py_ssize_t n_cols)
{
    PyArrayObject *out = new_matrix(M->rows, n_cols);
    if (out == NULL)
        return NULL;
    double *d = PyArray_DATA(out);
    for (Py_ssize_t i = 0; i < M->rows; i++)
        for (Py_ssize_t j = 0; j < n_cols; j++)
            d[i * n_cols + j] = WK_AT(*M, i, cols[j]);
    return out;
}

/* pin_rows(A, k, xbar, blocks, C, lo, hi) -> None or (cols, kept, values, xbar_kept, rows, C_kept, lo_kept,
 *                                                    hi_kept)
 *
 * The data of wbcpy.qp.pinning.pin_selected in one pass: the variables the selection rows of A pin
 * (selection_rows), or None when there are none or when the variables left would span more than half
 * of the k free directions; else the pinned columns, the kept ones, the pinned values x̄[cols] (x̄ None:
 * 0), x̄[kept], the rows to impose on the kept variables (every block of the list `blocks`, then the
 * other rows of A, restricted to the kept columns), and for the stacked inequality rows lo ≤ C x ≤ hi
 * (all three None: no rows) C[:, kept] and the sides lo − s, hi − s with s = C[:, cols] x̄[cols]. */
PyObject *wk_pin_rows(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (wk_nargs(nargs, 7, "pin_rows") < 0)
        return NULL;
    PyObject *sel = wk_selection_rows(self, args, 1);
    if (sel == NULL)
        return NULL;
    PyArrayObject *cols = (PyArrayObject *)PyTuple_GET_ITEM(sel, 0);
    PyArrayObject *others = (PyArrayObject *)PyTuple_GET_ITEM(sel, 1);
    wk_mat A, C;
    wk_matrix(args[0], -1, -1, 0, "A", &A);
    Py_ssize_t n = A.cols, n_cols = PyArray_DIM(cols, 0), k = PyLong_AsSsize_t(args[1]);
    if (k < 0 && PyErr_Occurred()) {
        Py_DECREF(sel);
        return NULL;
    }
    if (n_cols == 0 || 2 * (n - n_cols) > k) {
        Py_DECREF(sel);
        Py_RETURN_NONE;
    }
    int no_x;
    const double *xbar = wk_vector_or_none(args[2], n, 0, "xbar", &no_x);
    if ((xbar == NULL && !no_x) || !PyList_Check(args[3]) || wk_matrix_or_none(args[4], -1, n, "C", &C) < 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "pin_rows: blocks must be a list of matrices");
        Py_DECREF(sel);
        return NULL;
    }
    const double *lo = C.data ? wk_vector(args[5], C.rows, 0, "lo") : NULL;
    const double *hi = lo ? wk_vector(args[6], C.rows, 0, "hi") : NULL;
    if (C.data && hi == NULL) {
        Py_DECREF(sel);
        return NULL;
    }
    const npy_intp *c = PyArray_DATA(cols), *o = PyArray_DATA(others);
    Py_ssize_t n_kept = n - n_cols, n_other = PyArray_DIM(others, 0), n_blocks = PyList_GET_SIZE(args[3]);
    npy_intp dk[1] = {n_kept}, dc[1] = {n_cols};
    PyArrayObject *kept = (PyArrayObject *)PyArray_SimpleNew(1, dk, NPY_INTP);
    PyArrayObject *values = new_vector(n_cols), *xkept = new_vector(n_kept);
    PyObject *out = NULL, *rows = NULL, *Ck = Py_None, *lk = Py_None, *hk = Py_None;
    Py_INCREF(Py_None);
    Py_INCREF(Py_None);
    Py_INCREF(Py_None);
    (void)dc;
    if (kept == NULL || values == NULL || xkept == NULL)
        goto done;
    npy_intp *kp = PyArray_DATA(kept);
    for (Py_ssize_t j = 0, a = 0, b = 0; j < n; j++) {
        if (a < n_cols && c[a] == j)
            ((double *)PyArray_DATA(values))[a++] = no_x ? 0.0 : xbar[j];
        else {
            kp[b] = j;
            ((double *)PyArray_DATA(xkept))[b++] = no_x ? 0.0 : xbar[j];
        }
    }
    /* the rows to impose on the kept variables: the blocks, then A's other rows */
    Py_ssize_t m = n_other;
    for (Py_ssize_t b = 0; b < n_blocks; b++) {
        wk_mat Bm;
        if (wk_matrix(PyList_GET_ITEM(args[3], b), -1, n, 0, "block", &Bm) < 0)
            goto done;
        m += Bm.rows;
    }
    rows = (PyObject *)new_matrix(m, n_kept);
    if (rows == NULL)
        goto done;
    double *rd = PyArray_DATA((PyArrayObject *)rows);
    Py_ssize_t r = 0;
    for (Py_ssize_t b = 0; b < n_blocks; b++) {
        wk_mat Bm;
        wk_matrix(PyList_GET_ITEM(args[3], b), -1, n, 0, "block", &Bm);
        for (Py_ssize_t i = 0; i < Bm.rows; i++, r++)
            for (Py_ssize_t j = 0; j < n_kept; j++)
                rd[r * n_kept + j] = WK_AT(Bm, i, kp[j]);
    }
    for (Py_ssize_t i = 0; i < n_other; i++, r++)
        for (Py_ssize_t j = 0; j < n_kept; j++)
            rd[r * n_kept + j] = WK_AT(A, o[i], kp[j]);
    if (C.data) {
        Py_DECREF(Ck);
        Py_DECREF(lk);
        Py_DECREF(hk);
        Ck = (PyObject *)gather_columns(&C, kp, n_kept);
        lk = (PyObject *)new_vector(C.rows);
        hk = (PyObject *)new_vector(C.rows);
        if (Ck == NULL || lk == NULL || hk == NULL)
            goto done;
        double *l = PyArray_DATA((PyArrayObject *)lk), *h = PyArray_DATA((PyArrayObject *)hk);
        const double *v = PyArray_DATA(values);
        for (Py_ssize_t i = 0; i < C.rows; i++) {
            double acc = 0.0;
            for (Py_ssize_t j = 0; j < n_cols; j++)
                acc += WK_AT(C, i, c[j]) * v[j];
            l[i] = lo[i] - acc;
            h[i] = hi[i] - acc;
        }
    }
    out = PyTuple_Pack(8, (PyObject *)cols, (PyObject *)kept, (PyObject *)values, (PyObject *)xkept, rows, Ck,
                       lk, hk);
done:
    Py_XDECREF(kept);
    Py_XDECREF(values);
    Py_XDECREF(xkept);
    Py_XDECREF(rows);
    Py_XDECREF(Ck);
    Py_XDECREF(lk);
    Py_XDECREF(hk);
    Py_DECREF(sel);
    return out;
}

/* split_bounds(lb, ub, fix_tol) -> (free, fixed, values, lb_free, ub_free, lb_open, ub_open) or
 * (None, bad): the variables that bounds with ub − lb ≤ fix_tol fix (values (lb + ub)/2), the others
 * with their bounds, and whether every free lower / upper bound is infinite; or the indices of the
 * inconsistent bounds (lb > ub, NaN, +inf lower or −inf upper bound). */
PyObject *wk_split_bounds(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (wk_nargs(nargs, 3, "split_bounds") < 0)
        return NULL;
    Py_ssize_t n = wk_length(args[0], "lb");
    const double *lb = n < 0 ? NULL : wk_vector(args[0], n, 0, "lb");
    const double *ub = lb ? wk_vector(args[1], n, 0, "ub") : NULL;
    double tol = ub ? PyFloat_AsDouble(args[2]) : 0.0;
    if (ub == NULL || PyErr_Occurred())
        return NULL;
    npy_intp *idx = PyMem_Malloc((size_t)(n > 0 ? n : 1) * sizeof(npy_intp) * 2);
    if (idx == NULL)
        return PyErr_NoMemory();
    npy_intp *fix = idx + n;
    Py_ssize_t n_bad = 0, n_fix = 0, n_free = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        double d = ub[i] - lb[i];
        if (!(d >= 0.0) || (isinf(lb[i]) && lb[i] > 0) || (isinf(ub[i]) && ub[i] < 0))
            idx[n_bad++] = i;
    }
    PyObject *out = NULL;
    if (n_bad) {
        npy_intp dims[1] = {n_bad};
        PyArrayObject *bad = (PyArrayObject *)PyArray_SimpleNew(1, dims, NPY_INTP);
        if (bad) {
            memcpy(PyArray_DATA(bad), idx, (size_t)n_bad * sizeof(npy_intp));
            out = Py_BuildValue("(ON)", Py_None, bad);
        }
        PyMem_Free(idx);
        return out;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (ub[i] - lb[i] <= tol)
            fix[n_fix++] = i;
        else
            idx[n_free++] = i;
    }
    npy_intp df[1] = {n_free}, dx[1] = {n_fix};
    PyArrayObject *free = (PyArrayObject *)PyArray_SimpleNew(1, df, NPY_INTP);
    PyArrayObject *fixed = (PyArrayObject *)PyArray_SimpleNew(1, dx, NPY_INTP);
    PyArrayObject *values = new_vector(n_fix), *lbf = new_vector(n_free), *ubf = new_vector(n_free);
    if (free && fixed && values && lbf && ubf) {
        int lb_open = 1, ub_open = 1;
        for (Py_ssize_t k = 0; k < n_free; k++) {
            npy_intp i = idx[k];
            ((npy_intp *)PyArray_DATA(free))[k] = i;
            ((double *)PyArray_DATA(lbf))[k] = lb[i];
            ((double *)PyArray_DATA(ubf))[k] = ub[i];
            lb_open &= isinf(lb[i]) && lb[i] < 0;
            ub_open &= isinf(ub[i]) && ub[i] > 0;
        }
        for (Py_ssize_t k = 0; k < n_fix; k++) {
            npy_intp i = fix[k];
            ((npy_intp *)PyArray_DATA(fixed))[k] = i;
            ((double *)PyArray_DATA(values))[k] = 0.5 * (lb[i] + ub[i]);
        }
        out = Py_BuildValue("(OOOOOOO)", free, fixed, values, lbf, ubf, lb_open ? Py_True : Py_False,
                            ub_open ? Py_True : Py_False);
    }
    Py_XDECREF(free);
    Py_XDECREF(fixed);
    Py_XDECREF(values);
    Py_XDECREF(lbf);
    Py_XDECREF(ubf);
    PyMem_Free(idx);
    return out;
}

/* split_columns(M, free, fixed, values) -> (M[:, free], M[:, fixed] values): the free variables'
 * columns of M and what the fixed ones contribute to M x, new arrays */
PyObject *wk_split_columns(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (wk_nargs(nargs, 4, "split_columns") < 0)
        return NULL;
    wk_mat M;
    if (wk_matrix(args[0], -1, -1, 0, "M", &M) < 0)
        return NULL;
    Py_ssize_t nf = wk_index_length(args[1], "free"), nx = nf < 0 ? -1 : wk_index_length(args[2], "fixed");
    if (nx < 0)
        return NULL;
    const npy_intp *free = wk_index(args[1], nf, M.cols, "free");
    const npy_intp *fixed = free ? wk_index(args[2], nx, M.cols, "fixed") : NULL;
    const double *values = fixed ? wk_vector(args[3], nx, 0, "values") : NULL;
    if (values == NULL)
        return NULL;
    PyArrayObject *Mf = gather_columns(&M, free, nf), *shift = Mf ? new_vector(M.rows) : NULL;
    if (shift == NULL) {
        Py_XDECREF(Mf);
        return NULL;
    }
    double *s = PyArray_DATA(shift);
    for (Py_ssize_t i = 0; i < M.rows; i++) {
        double acc = 0.0;
        for (Py_ssize_t j = 0; j < nx; j++)
            acc += WK_AT(M, i, fixed[j]) * values[j];
        s[i] = acc;
    }
    return Py_BuildValue("(NN)", Mf, shift);
}
