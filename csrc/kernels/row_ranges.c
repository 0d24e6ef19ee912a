/* Least-squares products over each row's nonzero range: the Gram matrix AᵀA, Aᵀv (with |A|ᵀ|v|) and A x of
 * a level whose rows touch few columns each (a limb's Jacobian rows, a selection row of a posture task).
 *
 * Row i of A is zero outside [lo_i, hi_i) (wk_row_ranges). Each sum below is the sum of wk_gram, wk_tmatvec,
 * wk_rows_dot over the same nonzero products in the same order: the terms left out are exact zeros, whose
 * addition changes no sum (from +0, adding ±0 stays +0). That holds while every entry is finite (0·inf is
 * not a zero): wk_row_ranges says whether A is, and the callers check the vectors, taking the plain
 * kernels otherwise. The same numbers, without the passes over the zeros. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"

int wk_finite_vector(Py_ssize_t n, const double *v)
{
    for (Py_ssize_t i = 0; i < n; i++)
        if (!isfinite(v[i]))
            return 0;
    return 1;
}

int wk_row_ranges(const wk_mat *A, Py_ssize_t *lo, Py_ssize_t *hi)
{
    Py_ssize_t m = A->rows, n = A->cols;
    for (Py_ssize_t i = 0; i < m; i++) {
        const double *row = A->data + i * A->rs;
        Py_ssize_t a = 0, b = n;
        while (A->cs == 1 && a + 8 <= n && wk_zero8(row + a)) /* (eight zeros skipped at once) */
            a += 8;
        while (a < n && row[a * A->cs] == 0.0) /* (NaN is not zero: it is in the range) */
            a++;
        while (A->cs == 1 && b - 8 >= a && wk_zero8(row + b - 8))
            b -= 8;
        while (b > a && row[(b - 1) * A->cs] == 0.0)
            b--;
        lo[i] = a < b ? a : 0;
        hi[i] = a < b ? b : 0;
        for (Py_ssize_t j = a; j < b; j++)
            if (!isfinite(row[j * A->cs]))
                return 0;
    }
    return 1;
}

void wk_gram_ranged(const wk_mat *A, const Py_ssize_t *lo, const Py_ssize_t *hi, double *H)
{
    int m = (int)A->rows, n = (int)A->cols;
    /* the ranges' total length bounds the number of nonzero entries: at most a quarter of A's entries, A is
     * not dense (wk_gram_blas's test, settled without its count) */
    Py_ssize_t spans = 0;
    for (Py_ssize_t i = 0; i < A->rows; i++)
        spans += hi[i] - lo[i];
    if (4 * spans > A->rows * A->cols && wk_gram_blas(A)) { /* (wk_gram's BLAS product: the same call) */
        wk_gram(A, H);
        return;
    }
    int stack_idx[256];
    double stack_val[256];
    int *idx = n <= 256 ? stack_idx : malloc((size_t)n * sizeof(int));
    double *val = n <= 256 ? stack_val : malloc((size_t)n * sizeof(double));
    if (idx == NULL || val == NULL) { /* (without scratch: wk_gram, which has its own way) */
        if (idx != stack_idx)
            free(idx);
        if (val != stack_val)
            free(val);
        wk_gram(A, H);
        return;
    }
    for (int i = 0; i < n; i++) /* (the upper triangle, which the products write; the mirror writes the rest) */
        memset(H + (Py_ssize_t)i * n + i, 0, (size_t)(n - i) * sizeof(double));
    for (int k = 0; k < m; k++) {
        const double *row = A->data + (Py_ssize_t)k * A->rs;
        int a = (int)lo[k], b = (int)hi[k], nnz = 0;
        for (int i = a; i < b; i++) { /* (wk_gram's gather, over the range) */
            double v = row[i * A->cs];
            idx[nnz] = i;
            val[nnz] = v;
            nnz += v != 0.0;
        }
        if (2 * nnz <= n) /* (few nonzero entries: their products only, as wk_gram) */
            wk_gram_add_gathered(H, n, idx, val, nnz);
        else /* (wk_gram's contiguous loop, to the end of the range) */
            wk_gram_add_span(H, n, row, A->cs, a, b);
    }
    if (idx != stack_idx)
        free(idx);
    if (val != stack_val)
        free(val);
    wk_mirror_upper(H, n);
}

void wk_tmatvec_ranged(const wk_mat *M, const double *v, const Py_ssize_t *lo, const Py_ssize_t *hi, double *t,
                       double *s)
{
    for (Py_ssize_t i = 0; i < M->rows; i++) {
        double vi = v[i], ai = fabs(vi);
        const double *row = M->data + i * M->rs;
        if (s) {
            for (Py_ssize_t c = lo[i]; c < hi[i]; c++) {
                double a = row[c * M->cs];
                t[c] += a * vi;
                s[c] += fabs(a) * ai;
            }
        } else {
            for (Py_ssize_t c = lo[i]; c < hi[i]; c++)
                t[c] += row[c * M->cs] * vi;
        }
    }
}

void wk_rows_dot_ranged(const wk_mat *M, const double *x, const double *init, const Py_ssize_t *lo,
                        const Py_ssize_t *hi, double *out)
{
    for (Py_ssize_t i = 0; i < M->rows; i++) {
        const double *row = M->data + i * M->rs;
        double s = init ? init[i] : 0.0;
        for (Py_ssize_t j = lo[i]; j < hi[i]; j++)
            s += row[j * M->cs] * x[j];
        out[i] = s;
    }
}

int wk_ls_gradient_ranged(const wk_mat *A, const double *e0, const double *r, const double *xbar, const double *w,
                          const Py_ssize_t *lo, const Py_ssize_t *hi, double *t, double *scale)
{
    Py_ssize_t m = A->rows, k = A->cols;
    double stack[256], *e = m <= 256 ? stack : PyMem_Malloc((size_t)m * sizeof(double));
    if (e == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    wk_rows_dot_ranged(A, w, e0, lo, hi, e); /* (w finite: the caller's check) */
    int finite = wk_finite_vector(m, e);
    for (Py_ssize_t j = 0; j < k; j++)
        t[j] = scale[j] = 0.0;
    if (finite)
        wk_tmatvec_ranged(A, e, lo, hi, t, scale);
    else /* (an overflow: 0·inf is NaN in the plain sums) */
        wk_tmatvec(A, e, 0, t, scale);
    for (Py_ssize_t j = 0; r != NULL && j < k; j++) { /* (wk_ls_gradient_core without Z) */
        double u = r[j] * (xbar == NULL ? w[j] : w[j] + xbar[j]);
        t[j] += u;
        scale[j] += fabs(u);
    }
    if (e != stack)
        PyMem_Free(e);
    return 0;
}
