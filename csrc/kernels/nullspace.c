/* The affine set x = x̄ + Z w of a hierarchy level (wbcpy/qp/nullspace.py): new rows fix directions.
 *
 * nullspace_update(S, f, Z, xbar, rank_tol) -> (Z', xbar', rank, residual)
 *
 * Rows S (m × n) are scaled to unit length (rows shorter than 1e-12·max(1, longest) are dropped), then
 * M = (S Z)ᵀ (k × m) is factorised by column-pivoted Householder QR (pivoted_qr for small matrices,
 * LAPACK dgeqp3 otherwise), M P = Q R; Q stays in reflector form and is applied where needed: by the
 * compact WY form Q = I − V T Vᵀ through BLAS once Q₂ is large enough (wy_factor), by the reflectors one
 * by one otherwise (apply_q).
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
 * Entries must be finite (ValueError otherwise, also for a row whose norm overflows a double); a row
 * whose sum of squares overflows is measured scaled by its largest entry.
 *
 * One call allocates one workspace (on the stack when small). The sums of a single vector run in four
 * partial sums, a reflector's dot products eight columns side by side, so that additions do not wait for
 * each other; without Z the normalised rows are M itself and their squared norms (the pivoting's
 * starting values) are 1, so equal ones are taken in row order. Results differ from a left-to-right sum
 * in the last bits only.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "kernels.h"

/* up to this many entries of M (k × mb) the QR is written out (pivoted_qr, then the WY form or the
 * reflectors); above, LAPACK's blocked dgeqp3 / dormqr. */
#define SMALL_QR 4096
/* Q₂ by the compact WY form (BLAS) from this many multiply-adds (k · kk · min(k, mb)) on, when at least
 * half as many directions are left (kk) as there are reflectors (its Gram matrix costs p² k); by the
 * reflectors one by one otherwise */
#define WY_MIN_WORK 2048.0

/* ------------------------------------------------------------------------------------ small kernels */

/* Σ x_j² of n entries x[j · stride] in four partial sums (independent chains) */
static double strided_sum_squares(const double *x, Py_ssize_t n, Py_ssize_t stride)
{
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    Py_ssize_t a = 0;
    for (; a + 4 <= n; a += 4) {
        const double *y = x + a * stride;
        s0 += y[0] * y[0];
        s1 += y[stride] * y[stride];
        s2 += y[2 * stride] * y[2 * stride];
        s3 += y[3 * stride] * y[3 * stride];
    }
    for (; a < n; a++)
        s0 += x[a * stride] * x[a * stride];
    return (s0 + s1) + (s2 + s3);
}

/* Σ x_j y_j of n contiguous entries in four partial sums (independent chains); dot(x, x, n) is Σ x_j² */
static double dot(const double *x, const double *y, Py_ssize_t n)
{
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    Py_ssize_t a = 0;
    for (; a + 4 <= n; a += 4) {
        s0 += x[a] * y[a];
        s1 += x[a + 1] * y[a + 1];
        s2 += x[a + 2] * y[a + 2];
        s3 += x[a + 3] * y[a + 3];
    }
    for (; a < n; a++)
        s0 += x[a] * y[a];
    return (s0 + s1) + (s2 + s3);
}

/* vᵀc = c[i] + Σ_{a>i} v[a] c[a] for a reflector v stored below row i (its unit entry at row i implicit)
 * and a column c of k rows, in four partial sums */
static double reflector_dot(const double *v, int k, int i, const double *c)
{
    return c[i] + dot(v + i + 1, c + i + 1, k - i - 1);
}

/* reflector_dot for the eight columns c0 + j·ld (j < 8) at once, one sum each in row order (eight
 * independent chains) */
static void reflector_dots8(const double *v, int k, int i, const double *c0, int ld, double s[8])
{
    const double *c1 = c0 + ld, *c2 = c1 + ld, *c3 = c2 + ld, *c4 = c3 + ld, *c5 = c4 + ld, *c6 = c5 + ld,
                 *c7 = c6 + ld;
    double a0 = c0[i], a1 = c1[i], a2 = c2[i], a3 = c3[i], a4 = c4[i], a5 = c5[i], a6 = c6[i], a7 = c7[i];
    for (int a = i + 1; a < k; a++) {
        double va = v[a];
        a0 += va * c0[a];
        a1 += va * c1[a];
        a2 += va * c2[a];
        a3 += va * c3[a];
        a4 += va * c4[a];
        a5 += va * c5[a];
        a6 += va * c6[a];
        a7 += va * c7[a];
    }
    s[0] = a0, s[1] = a1, s[2] = a2, s[3] = a3, s[4] = a4, s[5] = a5, s[6] = a6, s[7] = a7;
}

/* the same for four columns */
static void reflector_dots4(const double *v, int k, int i, const double *c0, int ld, double s[4])
{
    const double *c1 = c0 + ld, *c2 = c1 + ld, *c3 = c2 + ld;
    double a0 = c0[i], a1 = c1[i], a2 = c2[i], a3 = c3[i];
    for (int a = i + 1; a < k; a++) {
        double va = v[a];
        a0 += va * c0[a];
        a1 += va * c1[a];
        a2 += va * c2[a];
        a3 += va * c3[a];
    }
    s[0] = a0, s[1] = a1, s[2] = a2, s[3] = a3;
}

/* s_j = reflector_dot(v, k, i, C + j·ld) for j < n: eight columns at a time, then four, then one */
static void reflector_dots(const double *v, int k, int i, const double *C, int ld, int n, double *s)
{
    int j = 0;
    for (; j + 8 <= n; j += 8)
        reflector_dots8(v, k, i, C + (size_t)j * ld, ld, s + j);
    for (; j + 4 <= n; j += 4)
        reflector_dots4(v, k, i, C + (size_t)j * ld, ld, s + j);
    for (; j < n; j++)
        s[j] = reflector_dot(v, k, i, C + (size_t)j * ld);
}

/* H_i = I − τ v vᵀ (v = [1; v(i+1:)], rows i… of k) applied to the ncols columns of the column-major
 * array C (k rows each); s: scratch for ncols dot products */
static void reflect_columns(const double *v, int k, int i, double tau, double *C, int ncols, double *s)
{
    reflector_dots(v, k, i, C, k, ncols, s);
    int c = 0;
    for (; c + 4 <= ncols; c += 4) {
        double *c0 = C + (size_t)c * k, *c1 = c0 + k, *c2 = c1 + k, *c3 = c2 + k;
        double t0 = tau * s[c], t1 = tau * s[c + 1], t2 = tau * s[c + 2], t3 = tau * s[c + 3];
        c0[i] -= t0;
        c1[i] -= t1;
        c2[i] -= t2;
        c3[i] -= t3;
        for (int a = i + 1; a < k; a++) {
            double va = v[a];
            c0[a] -= t0 * va;
            c1[a] -= t1 * va;
            c2[a] -= t2 * va;
            c3[a] -= t3 * va;
        }
    }
    for (; c < ncols; c++) {
        double *cj = C + (size_t)c * k, t = tau * s[c];
        cj[i] -= t;
        for (int a = i + 1; a < k; a++)
            cj[a] -= t * v[a];
    }
}

/* d[c] −= Σ_{l<nl} coef[l] X[l·ld + c] (c < len): a combination of rows of X, four rows per pass over d
 * (each pass one vectorised loop over c) */
static void subtract_rows(double *d, const double *coef, const double *X, int nl, int ld, int len)
{
    int l = 0;
    for (; l + 4 <= nl; l += 4) {
        const double *x0 = X + (size_t)l * ld, *x1 = x0 + ld, *x2 = x1 + ld, *x3 = x2 + ld;
        double g0 = coef[l], g1 = coef[l + 1], g2 = coef[l + 2], g3 = coef[l + 3];
        for (int c = 0; c < len; c++)
            d[c] -= (g0 * x0[c] + g1 * x1[c]) + (g2 * x2[c] + g3 * x3[c]);
    }
    if (l + 2 <= nl) {
        const double *x0 = X + (size_t)l * ld, *x1 = x0 + ld;
        double g0 = coef[l], g1 = coef[l + 1];
        for (int c = 0; c < len; c++)
            d[c] -= g0 * x0[c] + g1 * x1[c];
        l += 2;
    }
    if (l < nl) {
        const double *x0 = X + (size_t)l * ld;
        double g0 = coef[l];
        for (int c = 0; c < len; c++)
            d[c] -= g0 * x0[c];
    }
}

/* ------------------------------------------------------------------------------------- the workspace */

typedef struct {
    double *norms; /* m: the rows' norms */
    double *rows;  /* the normalised rows (mb × n, row-major); M itself when Z is None */
    double *f;     /* their targets (mb), or NULL */
    double *M;     /* (rows Z)ᵀ, column-major k × mb, then its QR: R above the diagonal, reflectors below */
    double *tau, *vn, *vn0, *e, *u, *step, *dots, *V, *G, *W, *Q2, *work;
    int *jpvt;
    double fmax;   /* max |f| of the normalised rows */
    Py_ssize_t mb; /* rows kept */
    int lwork;     /* LAPACK's workspace (0 when the QR is always written out) */
    int small;     /* this call's QR is written out */
    void *block;
} ns_work;

/* a small call's workspace lives on the stack (this many doubles), a larger one in one heap block */
#define NS_STACK 1024

/* one block for every array of a call with m rows, n columns, k free directions (mb ≤ m rows kept): the
 * stack buffer `local` (NS_STACK doubles) when it is large enough, else the heap (w->block, freed by the
 * caller); 0, or -1 (no memory) */
static int ns_alloc(ns_work *w, Py_ssize_t m, Py_ssize_t n, int k, int with_z, int with_f, double *local)
{
    size_t mm = (size_t)m, nn = (size_t)n, kd = (size_t)k, p = kd < mm ? kd : mm;
    /* dgeqp3 needs 3 mb + 1 (blocked: 2 mb + (mb + 1) nb), dormqr n nb for n columns; with nb = 64 both
     * run blocked, and no workspace query is needed */
    w->lwork = kd * mm > SMALL_QR ? (int)(2 * mm + (mm + 1) * 64 + (kd + 1) * 64 + 64) : 0;
    size_t sizes[16] = {
        mm,                       /* norms */
        with_z ? mm * nn : 0,     /* rows */
        with_f ? mm : 0,          /* f */
        kd * mm,                  /* M (Z None: k = n, the rows) */
        p,                        /* tau */
        mm,                       /* vn */
        mm,                       /* vn0 */
        mm,                       /* e */
        p,                        /* u */
        kd,                       /* step */
        mm + kd,                  /* dots: one per column of a reflection */
        kd * p,                   /* V */
        p * p,                    /* G */
        p * (kd + 1),             /* W: p × (k − rank + 1) */
        kd * kd,                  /* Q2: k × (k − rank) */
        (size_t)w->lwork,         /* work */
    };
    size_t total = 0;
    for (int i = 0; i < 16; i++)
        total += sizes[i];
    size_t bytes = total * sizeof(double) + (mm + 1) * sizeof(int);
    double *d = bytes <= NS_STACK * sizeof(double) ? local : PyMem_Malloc(bytes);
    w->block = d == local ? NULL : d;
    if (d == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    double **ptr[16] = {&w->norms, &w->rows, &w->f,  &w->M, &w->tau, &w->vn, &w->vn0, &w->e,
                        &w->u,     &w->step, &w->dots, &w->V, &w->G,   &w->W,  &w->Q2,  &w->work};
    for (int i = 0; i < 16; i++) {
        *ptr[i] = sizes[i] ? d : NULL;
        d += sizes[i];
    }
    if (!with_z)
        w->rows = w->M;
    w->jpvt = (int *)d;
    return 0;
}

/* ----------------------------------------------------------------------------------------- the rows */

/* the norm of row i of S, or −1 when an entry is NaN or infinite (a sum of squares that overflows is
 * taken again with the row scaled by its largest entry) */
static double row_norm(const wk_mat *S, Py_ssize_t i)
{
    const double *x = S->data + i * S->rs;
    Py_ssize_t n = S->cols, cs = S->cs;
    double s = cs == 1 ? dot(x, x, n) : strided_sum_squares(x, n, cs); /* (the same sums) */
    if (isfinite(s))
        return sqrt(s);
    double big = 0.0, t = 0.0;
    for (Py_ssize_t j = 0; j < n; j++) {
        double a = fabs(x[j * cs]);
        if (!isfinite(a))
            return -1.0;
        big = a > big ? a : big;
    }
    for (Py_ssize_t j = 0; j < n; j++)
        t += (x[j * cs] / big) * (x[j * cs] / big);
    return big * sqrt(t);
}

/* row i of S divided by its norm r into out (by one division when 1/r is a normal number) */
static void scaled_row(const wk_mat *S, Py_ssize_t i, double r, double *out)
{
    const double *x = S->data + i * S->rs;
    Py_ssize_t n = S->cols, cs = S->cs;
    double inv = 1.0 / r;
    if (inv >= DBL_MIN && cs == 1) {
        for (Py_ssize_t j = 0; j < n; j++)
            out[j] = x[j] * inv;
    } else if (inv >= DBL_MIN) {
        for (Py_ssize_t j = 0; j < n; j++)
            out[j] = x[j * cs] * inv;
    } else {
        for (Py_ssize_t j = 0; j < n; j++)
            out[j] = x[j * cs] / r;
    }
}

/* the rows of S scaled to unit norm, tiny ones dropped, into w->rows (w->mb of them, targets w->f), and
 * their squared norms after scaling into w->vn0 (the QR's column norms when Z is None); -1 with
 * ValueError (a NaN or inf entry, or a row whose norm overflows), 0, or 1 when every row is tiny while a
 * target is not (above 1e-9 (1 + |f|): an inconsistent equation 0 = f; *bad holds max |f|) */
static int normalise(const wk_mat *S, const double *f, ns_work *w, double *bad)
{
    Py_ssize_t m = S->rows, n = S->cols, mb = 0;
    double longest = 0.0, fmax_all = 0.0;
    for (Py_ssize_t i = 0; i < m; i++) {
        double r = row_norm(S, i);
        if (!(r >= 0.0 && r < INFINITY)) {
            PyErr_SetString(PyExc_ValueError, r < 0.0 ? "nullspace_update: S or f: NaN or inf entry"
                                                      : "nullspace_update: a row of S is too long (its norm "
                                                        "overflows a double)");
            return -1;
        }
        w->norms[i] = r;
        longest = r > longest ? r : longest;
        if (f && fabs(f[i]) > fmax_all)
            fmax_all = fabs(f[i]);
    }
    double floor = 1e-12 * (longest > 1.0 ? longest : 1.0);
    w->fmax = 0.0;
    for (Py_ssize_t i = 0; i < m; i++) {
        if (!(w->norms[i] > floor))
            continue;
        double *out = w->rows + mb * n;
        scaled_row(S, i, w->norms[i], out);
        w->vn0[mb] = 1.0; /* (the norm of the scaled row, to rounding) */
        if (f) {
            w->f[mb] = f[i] / w->norms[i];
            w->fmax = fabs(w->f[mb]) > w->fmax ? fabs(w->f[mb]) : w->fmax;
        }
        mb++;
    }
    w->mb = mb;
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

/* -------------------------------------------------------------------------------------------- the QR */

/* Column-pivoted Householder QR of the column-major k × mb array M, in place (LAPACK dgeqp3's output
 * convention, unblocked, as its dlaqp2): step i moves the column with the largest norm below row i (the
 * first of equal ones) to position i (jpvt, 1-based, records the order) and reflects it onto R_ii e_i
 * with H_i = I − τ_i v vᵀ, v = [1; M(i+1:, i)] (dlarfg: R_ii = −sign(α)‖x‖). vn0 holds the columns'
 * squared norms on entry. The partial norms are downdated, and recomputed when cancellation has eaten
 * half their digits (dlaqp2's test). */
static void pivoted_qr(double *M, int k, int mb, int *jpvt, double *tau, double *vn, double *vn0, double *dots)
{
    int kmin = k < mb ? k : mb;
    const double tol = sqrt(DBL_EPSILON);
    for (int c = 0; c < mb; c++) {
        jpvt[c] = c + 1;
        vn[c] = vn0[c];
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
        double *v = M + (size_t)i * k, alpha = v[i], tail = dot(v + i + 1, v + i + 1, k - i - 1);
        tau[i] = 0.0;
        if (tail != 0.0) {
            double beta = -copysign(sqrt(alpha * alpha + tail), alpha), scale = 1.0 / (alpha - beta);
            tau[i] = (beta - alpha) / beta;
            for (int a = i + 1; a < k; a++)
                v[a] *= scale;
            v[i] = beta;
            reflect_columns(v, k, i, tau[i], M + (size_t)(i + 1) * k, mb - i - 1, dots);
        }
        for (int c = i + 1; c < mb; c++) { /* the norms below row i + 1 */
            double r = M[(size_t)c * k + i];
            vn[c] -= r * r;
            if (!(vn[c] > tol * vn0[c]))
                vn[c] = vn0[c] = dot(M + (size_t)c * k + i + 1, M + (size_t)c * k + i + 1, k - i - 1);
        }
    }
}

/* M (k × mb, column-major) = (rows Z)ᵀ, then its pivoted QR (R in the upper triangle, Q as reflectors);
 * 0, or -1 with an exception set (dgeqp3 failed) */
static int factorise(const wk_mat *Z, Py_ssize_t n, int k, ns_work *w)
{
    int mb = (int)w->mb, info = 0;
    w->small = (size_t)k * (size_t)mb <= SMALL_QR;
    /* the column-major k × mb array M = (rows Z)ᵀ is the row-major mb × k array rows Z; without Z the
     * rows are M already, and vn0 their squared norms */
    if (Z->data) {
        wk_mat R = {w->rows, mb, n, n, 1};
        wk_matmul(&R, Z, w->M);
        for (int c = 0; c < mb; c++)
            w->vn0[c] = dot(w->M + (size_t)c * k, w->M + (size_t)c * k, k);
    }
    if (w->small) {
        pivoted_qr(w->M, k, mb, w->jpvt, w->tau, w->vn, w->vn0, w->dots);
        return 0;
    }
    int lda = k > 1 ? k : 1;
    memset(w->jpvt, 0, (size_t)mb * sizeof(int)); /* (dgeqp3: 0 = a free column) */
    wk_dgeqp3(&k, &mb, w->M, &lda, w->jpvt, w->tau, w->work, &w->lwork, &info);
    if (info != 0) {
        PyErr_Format(PyExc_ArithmeticError, "dgeqp3 failed (info %d)", info);
        return -1;
    }
    return 0;
}

/* C := Q C = H_0 H_1 … C for the column-major k × ncols array C; 0, or -1 with an exception set (dormqr
 * failed). Written out: the reflectors one by one, last first, each on the columns it changes (column
 * c of [0; I] below row rank + c … is untouched by the reflectors after it: `first` > 0 says C is
 * [0; I] from row `first` on, so that reflector j starts at column j − first) */
static int apply_q(ns_work *w, int k, int mb, double *C, int ncols, int first)
{
    char side = 'L', trans = 'N';
    int kmin = k < mb ? k : mb, lda = k > 1 ? k : 1, info = 0;
    if (ncols == 0 || kmin == 0)
        return 0;
    if (w->small) {
        for (int i = kmin - 1; i >= 0; i--) {
            int c0 = first > 0 && i > first ? i - first : 0;
            if (w->tau[i] != 0.0 && c0 < ncols)
                reflect_columns(w->M + (size_t)i * k, k, i, w->tau[i], C + (size_t)c0 * k, ncols - c0, w->dots);
        }
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
static double move(ns_work *w, int k, int rank, const double *e)
{
    int mb = (int)w->mb;
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
    return worst > 1e-9 * (1.0 + w->fmax) ? worst : 0.0;
}

/* ------------------------------------------------------------------------ the compact WY form of Q */

/* Q = H_0 ⋯ H_{p−1} = I − V T Vᵀ (LAPACK dlarft, forward and columnwise) for the p = min(k, mb) reflectors
 * (V: k × p, unit lower trapezoidal, T: p × p upper triangular), without forming T: its inverse is
 * T⁻¹ = diag(1/τ) + striu(VᵀV) (the inverse of dlarft's recurrence T[0:i, i] = −τ_i T[0:i, 0:i] V[:, 0:i]ᵀ v_i;
 * Joffrain et al., "Accumulating Householder transformations, revisited", 2006), so that products with T
 * are triangular solves. wy_factor copies V out of M and forms G = VᵀV (dgemm); wy_solve then gives
 * X = T [y, V₂ᵀ] (p × (1 + kk), row-major; V₂ = rows rank… of V, kk = k − rank, y = V[0:rank, :]ᵀ u or 0)
 * by back substitution, rows of 1 + kk entries at a time:
 *     X_i = τ_i (B_i − Σ_{l>i} G_il X_l),   X_i = 0 when τ_i = 0 (that reflector is the identity).
 * Then Q [u; 0] = [u; 0] − V X[:, 0] and Q₂ = Q [0; I] = [0; I] − V X[:, 1:] (one dgemm). Used once the
 * products are large enough for BLAS (WY_MIN_WORK), where the reflectors one by one would be p rank-1
 * updates of every column. */
static void wy_factor(ns_work *w, int k, int p)
{
    double *V = w->V, one = 1.0, zero = 0.0;
    for (int j = 0; j < p; j++) {
        double *vj = V + (size_t)j * k;
        const double *mj = w->M + (size_t)j * k;
        memset(vj, 0, (size_t)j * sizeof(double));
        vj[j] = 1.0;
        memcpy(vj + j + 1, mj + j + 1, (size_t)(k - j - 1) * sizeof(double));
    }
    char tr = 'T', no = 'N';
    wk_dgemm(&tr, &no, &p, &p, &k, &one, V, &k, V, &k, &zero, w->G, &p);
}

/* rows i_hi − 1 … i_lo of the back substitution X_i = τ_i (B_i − Σ_{i<l<i_hi} G_il X_l) in place (X holds
 * B there; rows from i_hi on are already subtracted) */
static void wy_solve_rows(ns_work *w, int p, int ld, int i_lo, int i_hi)
{
    double *X = w->W;
    for (int i = i_hi - 1; i >= i_lo; i--) {
        double *xi = X + (size_t)i * ld, tau = w->tau[i];
        if (tau == 0.0) {
            memset(xi, 0, (size_t)ld * sizeof(double));
            continue;
        }
        subtract_rows(xi, w->G + (size_t)i * p + i + 1, xi + ld, i_hi - i - 1, ld, ld);
        for (int c = 0; c < ld; c++)
            xi[c] *= tau;
    }
}

/* X = T [y, V₂ᵀ] into w->W (see wy_factor); y from u when x̄ moves (with_u), else 0. From p = 8 reflectors on
 * the system is solved in two halves: the lower one, then one dgemm takes it out of the upper one's
 * right-hand sides, then the upper one. */
static void wy_solve(ns_work *w, int k, int p, int rank, int with_u)
{
    const double *V = w->V, *u = w->u;
    int ld = k - rank + 1, h = p >= 8 ? p / 2 : 0, rest = p - h;
    double *X = w->W;
    for (int i = 0; i < p; i++) { /* B_i = [y_i, V[rank:, i]], y = V[0:rank, :]ᵀ u */
        double *xi = X + (size_t)i * ld;
        const double *vi = V + (size_t)i * k;
        xi[0] = with_u && i < rank ? u[i] + dot(vi + i + 1, u + i + 1, rank - i - 1) : 0.0;
        memcpy(xi + 1, vi + rank, (size_t)(ld - 1) * sizeof(double));
    }
    wy_solve_rows(w, p, ld, h, p);
    if (h > 0) { /* column-major: X[0:h]ᵀ (ld × h) −= X[h:]ᵀ (ld × rest) G[0:h, h:]ᵀ */
        char no = 'N', tr = 'T';
        double one = 1.0, minus_one = -1.0;
        wk_dgemm(&no, &tr, &ld, &h, &rest, &minus_one, X + (size_t)h * ld, &ld, w->G + (size_t)h * p, &p, &one, X,
                 &ld);
        wy_solve_rows(w, p, ld, 0, h);
    }
}

/* Q [u; 0] = [u; 0] − V X[:, 0] into step (k entries): the combination of V's columns four at a time over
 * all k rows (V is zero above its diagonal) */
static void wy_step(ns_work *w, int k, int p, int rank, double *step)
{
    int ld = k - rank + 1;
    double *z = w->dots;
    for (int j = 0; j < p; j++)
        z[j] = w->W[(size_t)j * ld];
    memcpy(step, w->u, (size_t)rank * sizeof(double));
    memset(step + rank, 0, (size_t)(k - rank) * sizeof(double));
    subtract_rows(step, z, w->V, p, k, k);
}

/* Q₂ = [0; I] − V X[:, 1:] into P (k × kk, row-major): Pᵀ = [0; I]ᵀ − X[:, 1:]ᵀ Vᵀ, one dgemm */
static void wy_basis(ns_work *w, int k, int p, int rank, double *P)
{
    int kk = k - rank, ld = kk + 1;
    double zero = 0.0, minus_one = -1.0;
    char tr = 'T', no = 'N';
    wk_dgemm(&no, &tr, &kk, &k, &p, &minus_one, w->W + 1, &ld, w->V, &k, &zero, P, &kk);
    for (int c = 0; c < kk; c++)
        P[(size_t)(rank + c) * kk + c] += 1.0;
}

/* ------------------------------------------------------------------------------------------ the results */

/* x̄ + Z Q₁ u as a new array (Z NULL data: the identity); Q₁ u = Q [u; 0], by the WY form when it is built
 * (wy), by the reflectors otherwise */
static PyArrayObject *moved_point(const double *xbar, const wk_mat *Z, ns_work *w, Py_ssize_t n, int k, int rank,
                                  int wy)
{
    double *step = w->step;
    int p = k < (int)w->mb ? k : (int)w->mb;
    if (wy) {
        wy_step(w, k, p, rank, step);
    } else {
        memcpy(step, w->u, (size_t)rank * sizeof(double));
        memset(step + rank, 0, (size_t)(k - rank) * sizeof(double));
        if (apply_q(w, k, (int)w->mb, step, 1, 0) < 0)
            return NULL;
    }
    PyArrayObject *out = new_vector(n);
    if (out == NULL)
        return NULL;
    double *x = PyArray_DATA(out);
    for (Py_ssize_t l = 0; l < n; l++) {
        double s = 0.0;
        if (!Z->data)
            s = step[l];
        else if (Z->cs == 1)
            s = dot(Z->data + l * Z->rs, step, k);
        else
            for (int i = 0; i < k; i++)
                s += WK_AT(*Z, l, i) * step[i];
        x[l] = xbar ? xbar[l] + s : s;
    }
    return out;
}

/* Z Q₂ (n × (k − rank)) as a new array; Q₂ = Q [0; I] (the trailing columns of Q): by the WY form when it
 * is built (wy), else by the reflectors one by one (LAPACK's dormqr above SMALL_QR) */
static PyArrayObject *shrunk_basis(const wk_mat *Z, ns_work *w, Py_ssize_t n, int k, int rank, int wy)
{
    int mb = (int)w->mb, kk = k - rank, p = k < mb ? k : mb;
    PyArrayObject *out = new_matrix(n, kk);
    if (out == NULL)
        return NULL;
    double *Q2 = w->Q2;
    wk_mat Q2m = {Q2, k, kk, kk, 1}; /* row-major k × kk */
    if (wy) {
        wy_basis(w, k, p, rank, Z->data ? Q2 : PyArray_DATA(out));
    } else {
        memset(Q2, 0, (size_t)k * kk * sizeof(double)); /* column-major [0; I] */
        for (int c = 0; c < kk; c++)
            Q2[(size_t)c * k + rank + c] = 1.0;
        if (apply_q(w, k, mb, Q2, kk, rank) < 0) {
            Py_DECREF(out);
            return NULL;
        }
        Q2m = (wk_mat){Q2, k, kk, 1, k}; /* column-major */
        if (!Z->data) {
            double *P = PyArray_DATA(out);
            for (int a = 0; a < k; a++)
                for (int c = 0; c < kk; c++)
                    P[(size_t)a * kk + c] = Q2[(size_t)c * k + a];
        }
    }
    if (Z->data)
        wk_matmul_dense(Z, &Q2m, PyArray_DATA(out));
    return out;
}

static PyObject *result(PyObject *Z, PyObject *xbar, int rank, double residual)
{
    return Py_BuildValue("OOid", Z, xbar, rank, residual);
}

/* the factorisation and its results, once the arguments are checked and the rows normalised */
static PyObject *update(PyObject *const *args, const wk_mat *Z, const double *f, const double *xbar, Py_ssize_t n,
                        int k, double rank_tol, ns_work *w)
{
    double emax = 0.0;
    for (Py_ssize_t i = 0; f && i < w->mb; i++) { /* e = f − S x̄ on the normalised rows */
        double s = w->f[i] - (xbar ? dot(w->rows + i * n, xbar, n) : 0.0);
        w->e[i] = s;
        emax = fabs(s) > emax ? fabs(s) : emax;
    }
    if (k == 0) /* every direction fixed: the equalities must hold at x̄ */
        return result(args[2], args[3], 0, emax > 1e-9 * (1.0 + w->fmax) ? emax : 0.0);
    if (factorise(Z, n, k, w) < 0)
        return NULL;
    int p = k < (int)w->mb ? k : (int)w->mb, rank = 0;
    for (int i = 0; i < p; i++)
        rank += fabs(w->M[i + (size_t)i * k]) > rank_tol;
    double residual = f ? move(w, k, rank, w->e) : 0.0;
    /* the WY form once Q₂'s products are worth BLAS */
    int wy = rank && w->small && 2 * (k - rank) >= p && (double)k * (k - rank) * p >= WY_MIN_WORK;
    if (wy) {
        wy_factor(w, k, p);
        wy_solve(w, k, p, rank, f != NULL);
    }
    PyObject *Znew = args[2], *xnew = args[3], *out = NULL;
    Py_INCREF(Znew);
    Py_INCREF(xnew);
    if (f && rank) {
        Py_DECREF(xnew);
        xnew = (PyObject *)moved_point(xbar, Z, w, n, k, rank, wy);
    }
    if (rank && xnew) {
        Py_DECREF(Znew);
        Znew = (PyObject *)shrunk_basis(Z, w, n, k, rank, wy);
    }
    if (Znew && xnew)
        out = result(Znew, xnew, rank, residual);
    Py_XDECREF(Znew);
    Py_XDECREF(xnew);
    return out;
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
    /* the contract: finite data only (an inf entry would drop every row, a NaN row would vanish silently);
     * S is checked while its rows are measured (normalise) */
    if (wk_finite(NULL, f, m, "nullspace_update: S or f") < 0)
        return NULL;
    if (!(rank_tol >= 0.0 && rank_tol < INFINITY)) {
        PyErr_SetString(PyExc_ValueError, "nullspace_update: rank_tol must be finite and >= 0");
        return NULL;
    }
    int k = (int)(Z.data ? Z.cols : n);
    ns_work w;
    double local[NS_STACK];
    if (ns_alloc(&w, m, n, k, Z.data != NULL, f != NULL, local) < 0)
        return NULL;
    PyObject *out = NULL;
    double bad = 0.0;
    int st = normalise(&S, f, &w, &bad);
    if (st < 0 || wk_finite(&Z, xbar, n, "nullspace_update: Z or xbar") < 0)
        goto done;
    if (k == 0 && no_f)
        out = result(args[2], args[3], 0, 0.0);
    else if (st > 0 || w.mb == 0)
        out = result(args[2], args[3], 0, bad);
    else
        out = update(args, &Z, f, xbar, n, k, rank_tol, &w);
done:
    PyMem_Free(w.block);
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

/* selection_rows(A) -> (columns, other_rows), new arrays
 *
 * The rows of A with exactly one nonzero entry (a multiple of a unit row: A x = A x* then fixes that
 * variable), as the sorted distinct columns they select, and the indices of the rows with two or more
 * nonzero entries. Rows without any, and single-entry rows no longer than 1e-12 max(1, the longest row)
 * (rounding noise, which the null space drops too), are in neither. */
static PyObject *selection_rows(wk_mat A)
{
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
    wk_mat A, C;
    if (wk_nargs(nargs, 7, "pin_rows") < 0 || wk_matrix(args[0], -1, -1, 0, "A", &A) < 0)
        return NULL;
    Py_ssize_t k = PyLong_AsSsize_t(args[1]);
    if (k < 0 && PyErr_Occurred())
        return NULL;
    Py_ssize_t single = 0; /* (no row with a single nonzero entry: no selection row, the common case) */
    for (Py_ssize_t i = 0; i < A.rows && !single; i++)
        single = wk_single_entry(&A, i) >= 0;
    if (!single)
        Py_RETURN_NONE;
    PyObject *sel = selection_rows(A);
    if (sel == NULL)
        return NULL;
    PyArrayObject *cols = (PyArrayObject *)PyTuple_GET_ITEM(sel, 0);
    PyArrayObject *others = (PyArrayObject *)PyTuple_GET_ITEM(sel, 1);
    Py_ssize_t n = A.cols, n_cols = PyArray_DIM(cols, 0);
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
