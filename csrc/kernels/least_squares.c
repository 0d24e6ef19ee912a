/* Least-squares levels: weighted task rows, the normal equations H = AᵀA + diag r, g = −Aᵀy, and the
 * gradient of the least-squares cost with its componentwise scale (the KKT certificate's stationarity
 * test, wbcpy/qp/kkt.py). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"


/* below this many multiply-adds the loops beat a BLAS call */
#define WK_BLAS_MIN_WORK 4096
/* nonzero entries gathered per pass of apply_gathered */
#define WK_GATHER 64
/* entries of an output row kept in registers by apply_gathered and wk_tmatvec */
#define WK_BLOCK 8


/* scratch memory: a stack buffer when it is small enough, else the heap */
typedef struct {
    double stack[256];
    double *data;
} wk_scratch;

static double *scratch_get(wk_scratch *s, Py_ssize_t n)
{
    s->data = n <= 256 ? s->stack : PyMem_Malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
    if (s->data == NULL)
        PyErr_NoMemory();
    return s->data;
}

static void scratch_free(wk_scratch *s)
{
    if (s->data != NULL && s->data != s->stack)
        PyMem_Free(s->data);
    s->data = NULL;
}

/* weighted_rows(A_out, y_out, J, target, bias, sw): A_out = diag(sw) J, y_out = sw ∘ (target − bias); A_out
 * and J both None: the targets only (a task whose rows are constant) */
PyObject *wk_weighted_rows(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (wk_nargs(nargs, 6, "weighted_rows") < 0 || wk_disjoint_outputs(args, nargs, 1u | 1u << 1, "weighted_rows") < 0)
        return NULL;
    wk_mat A = {NULL, 0, 0, 0, 0}, J = {NULL, 0, 0, 0, 0};
    int rows = args[0] != Py_None;
    if (rows != (args[2] != Py_None)) {
        PyErr_SetString(PyExc_TypeError, "weighted_rows: A_out and J are both arrays or both None");
        return NULL;
    }
    if (rows && wk_matrix(args[0], -1, -1, 1, "A_out", &A) < 0)
        return NULL;
    Py_ssize_t m = rows ? A.rows : wk_length(args[1], "y_out"), n = A.cols;
    double *y = m < 0 ? NULL : wk_vector(args[1], m, 1, "y_out");
    if (y == NULL || (rows && wk_matrix(args[2], m, n, 0, "J", &J) < 0))
        return NULL;
    int no_bias, no_sw;
    const double *target = wk_vector(args[3], m, 0, "target");
    const double *bias = target ? wk_vector_or_none(args[4], m, 0, "bias", &no_bias) : NULL;
    const double *sw = (target && (bias || no_bias)) ? wk_vector_or_none(args[5], m, 0, "sw", &no_sw) : NULL;
    if (target == NULL || (bias == NULL && !no_bias) || (sw == NULL && !no_sw))
        return NULL;
    for (Py_ssize_t i = 0; i < m; i++) {
        double s = no_sw ? 1.0 : sw[i];
        for (Py_ssize_t j = 0; rows && j < n; j++)
            WK_AT(A, i, j) = s * WK_AT(J, i, j);
        y[i] = s * (target[i] - (no_bias ? 0.0 : bias[i]));
    }
    Py_RETURN_NONE;
}

/* more than a quarter of A's entries are nonzero (the density above which BLAS wins over loops that skip
 * zeros); stops counting as soon as that is settled */
static int dense(const wk_mat *A)
{
    Py_ssize_t nnz = 0, quarter = A->rows * A->cols;
    for (Py_ssize_t i = 0; i < A->rows; i++) {
        const double *row = A->data + i * A->rs;
        for (Py_ssize_t j = 0; j < A->cols;) {
            if (A->cs == 1 && j + 8 <= A->cols && wk_zero8(row + j)) { /* (eight zeros skipped at once) */
                j += 8;
                continue;
            }
            nnz += row[j * A->cs] != 0.0;
            j++;
        }
        if (4 * nnz > quarter)
            return 1;
    }
    return 0;
}

Py_ssize_t wk_single_entry(const wk_mat *A, Py_ssize_t i)
{
    Py_ssize_t col = -1, j = 0, n = A->cols;
    const double *row = A->data + i * A->rs;
    while (j < n) {
        if (A->cs == 1 && j + 8 <= n && wk_zero8(row + j)) { /* (contiguous row: eight zeros skipped at once) */
            j += 8;
            continue;
        }
        Py_ssize_t end = (A->cs == 1 && j + 8 <= n) ? j + 8 : j + 1;
        for (; j < end; j++) {
            if (row[j * A->cs] != 0.0) {
                if (col >= 0)
                    return -2;
                col = j;
            }
        }
    }
    return col;
}

/* H (n×n, row-major) = AᵀA: BLAS dgemm when the product is large and A dense (more than a quarter of its
 * entries nonzero), else loops over one triangle that skip A's zeros, mirrored. A row with few nonzero
 * entries (a Jacobian row of one limb, a selection row) is gathered first and only the products of its
 * nonzero entries are added; a row mostly nonzero runs the contiguous loop. Each entry of H is the sum of
 * the same nonzero products in the same order (rows in order) either way: the same bits for finite A. */
int wk_gram_blas(const wk_mat *A)
{
    return (double)A->rows * (double)A->cols * (double)A->cols >= WK_BLAS_MIN_WORK && dense(A);
}

void wk_gram(const wk_mat *A, double *H)
{
    int m = (int)A->rows, n = (int)A->cols;
    if (wk_gram_blas(A)) {
        /* Aᵀ A by dgemm (not dsyrk: OpenBLAS runs dsyrk on its thread pool from small sizes on, whose
         * spinning workers cost more than the product at these sizes; dgemm stays on one thread below
         * 2.6e5 multiply-adds) */
        wk_mat At = {A->data, n, m, A->cs, A->rs};
        wk_matmul_dense(&At, A, H);
        return;
    }
    int stack_idx[256];
    double stack_val[256];
    int *idx = n <= 256 ? stack_idx : malloc((size_t)n * sizeof(int));
    double *val = n <= 256 ? stack_val : malloc((size_t)n * sizeof(double));
    int gather = idx != NULL && val != NULL; /* (without scratch: the contiguous loop for every row) */
    memset(H, 0, (size_t)n * (size_t)n * sizeof(double));
    for (int k = 0; k < m; k++) {
        const double *row = A->data + (Py_ssize_t)k * A->rs;
        int nnz = 0;
        for (int i = 0; gather && i < n;) {
            if (A->cs == 1 && i + 8 <= n && wk_zero8(row + i)) { /* (eight zeros skipped at once) */
                i += 8;
                continue;
            }
            int end = (A->cs == 1 && i + 8 <= n) ? i + 8 : i + 1;
            for (; i < end; i++) {
                double a = row[i * A->cs];
                idx[nnz] = i;
                val[nnz] = a;
                nnz += a != 0.0;
            }
        }
        if (gather && 2 * nnz <= n) /* (few nonzero entries: their products only) */
            wk_gram_add_gathered(H, n, idx, val, nnz);
        else
            wk_gram_add_span(H, n, row, A->cs, 0, n);
    }
    if (idx != stack_idx)
        free(idx);
    if (val != stack_val)
        free(val);
    wk_mirror_upper(H, n);
}

void wk_rows_dot(const wk_mat *M, const double *x, const double *init, double *out)
{
    Py_ssize_t m = M->rows, n = M->cols, rs = M->rs, cs = M->cs, i = 0;
    for (; n >= 16 && i + 4 <= m; i += 4) { /* (four independent sums: their additions overlap) */
        const double *r0 = M->data + i * rs, *r1 = r0 + rs, *r2 = r1 + rs, *r3 = r2 + rs;
        double s0 = init ? init[i] : 0.0, s1 = init ? init[i + 1] : 0.0;
        double s2 = init ? init[i + 2] : 0.0, s3 = init ? init[i + 3] : 0.0;
        for (Py_ssize_t j = 0; j < n; j++) {
            double xj = x[j];
            s0 += r0[j * cs] * xj;
            s1 += r1[j * cs] * xj;
            s2 += r2[j * cs] * xj;
            s3 += r3[j * cs] * xj;
        }
        out[i] = s0, out[i + 1] = s1, out[i + 2] = s2, out[i + 3] = s3;
    }
    for (; i < m; i++) {
        const double *row = M->data + i * rs;
        double s = init ? init[i] : 0.0;
        for (Py_ssize_t j = 0; j < n; j++)
            s += row[j * cs] * x[j];
        out[i] = s;
    }
}

int wk_rows_longer(const wk_mat *M, double floor)
{
    Py_ssize_t m = M->rows, n = M->cols, rs = M->rs, cs = M->cs, i = 0;
    for (; i + 4 <= m; i += 4) { /* (four rows' sums interleaved, each in j order) */
        const double *r0 = M->data + i * rs, *r1 = r0 + rs, *r2 = r1 + rs, *r3 = r2 + rs;
        double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
        for (Py_ssize_t j = 0; j < n; j++) {
            s0 += r0[j * cs] * r0[j * cs];
            s1 += r1[j * cs] * r1[j * cs];
            s2 += r2[j * cs] * r2[j * cs];
            s3 += r3[j * cs] * r3[j * cs];
        }
        if (sqrt(s0) <= floor || sqrt(s1) <= floor || sqrt(s2) <= floor || sqrt(s3) <= floor)
            return 0;
    }
    for (; i < m; i++) {
        const double *row = M->data + i * rs;
        double s = 0.0;
        for (Py_ssize_t j = 0; j < n; j++)
            s += row[j * cs] * row[j * cs];
        if (sqrt(s) <= floor)
            return 0;
    }
    return 1;
}

/* t[j] += Σ_i M_ij v_i and (s not NULL) s[j] += Σ_i |M_ij||v_i|, sums in i order (the rounding of one
 * pass per row adding into t and s); skip: the rows with v_i = 0 left out. Contiguous rows of M: t and s
 * in blocks of WK_BLOCK entries held in registers over all rows (loaded and stored once per block) */
void wk_tmatvec(const wk_mat *M, const double *v, int skip, double *t, double *s)
{
    Py_ssize_t m = M->rows, k = M->cols, j = 0;
    for (; M->cs == 1 && k >= 2 * WK_BLOCK && j + WK_BLOCK <= k; j += WK_BLOCK) { /* (short rows: below) */
        double at[WK_BLOCK], as[WK_BLOCK];
        for (int q = 0; q < WK_BLOCK; q++) {
            at[q] = t[j + q];
            as[q] = s ? s[j + q] : 0.0;
        }
        for (Py_ssize_t i = 0; i < m; i++) {
            double vi = v[i], ai = fabs(vi);
            if (skip && vi == 0.0)
                continue;
            const double *restrict row = M->data + i * M->rs + j;
            for (int q = 0; q < WK_BLOCK; q++)
                at[q] += row[q] * vi;
            if (s)
                for (int q = 0; q < WK_BLOCK; q++)
                    as[q] += fabs(row[q]) * ai;
        }
        for (int q = 0; q < WK_BLOCK; q++) {
            t[j + q] = at[q];
            if (s)
                s[j + q] = as[q];
        }
    }
    for (Py_ssize_t i = 0; i < m && j < k; i++) { /* (the columns left: one pass per row) */
        double vi = v[i], ai = fabs(vi);
        if (skip && vi == 0.0)
            continue;
        if (s) {
            for (Py_ssize_t c = j; c < k; c++) {
                double a = WK_AT(*M, i, c);
                t[c] += a * vi;
                s[c] += fabs(a) * ai;
            }
        } else {
            for (Py_ssize_t c = j; c < k; c++)
                t[c] += WK_AT(*M, i, c) * vi;
        }
    }
}

int wk_ls_gradient_core(const wk_mat *AZ, const double *e0, const double *r, const wk_mat *Z, const double *xbar,
                        const double *w, double *t, double *scale)
{
    Py_ssize_t m = AZ->rows, k = AZ->cols, n = Z->data ? Z->rows : k;
    wk_scratch s;
    double *e = scratch_get(&s, m + n);
    if (e == NULL)
        return -1;
    double *u = e + m;
    wk_rows_dot(AZ, w, e0, e);
    for (Py_ssize_t j = 0; j < k; j++)
        t[j] = scale[j] = 0.0;
    wk_tmatvec(AZ, e, 0, t, scale);
    if (r != NULL) {
        if (Z->data)
            wk_rows_dot(Z, w, NULL, u);
        for (Py_ssize_t i = 0; i < n; i++) {
            double x = Z->data ? u[i] : w[i];
            u[i] = r[i] * (xbar == NULL ? x : x + xbar[i]);
        }
        if (Z->data) {
            wk_tmatvec(Z, u, 1, t, scale);
        } else {
            for (Py_ssize_t j = 0; j < k; j++) {
                t[j] += u[j];
                scale[j] += fabs(u[j]);
            }
        }
    }
    scratch_free(&s);
    return 0;
}

int wk_ls_args(PyObject *const *args, wk_mat *AZ, const double **e0, const double **r, wk_mat *Z,
               const double **xbar, const double **w)
{
    if (wk_matrix(args[0], -1, -1, 0, "AZ", AZ) < 0 || wk_matrix_or_none(args[3], -1, AZ->cols, "Z", Z) < 0)
        return -1;
    Py_ssize_t n = Z->data ? Z->rows : AZ->cols;
    int no_r, no_x;
    *e0 = wk_vector(args[1], AZ->rows, 0, "e0");
    if (*e0 == NULL)
        return -1;
    *r = wk_vector_or_none(args[2], n, 0, "r", &no_r);
    if (*r == NULL && !no_r)
        return -1;
    *xbar = wk_vector_or_none(args[4], n, 0, "xbar", &no_x);
    if (*xbar == NULL && !no_x)
        return -1;
    *w = wk_vector(args[5], AZ->cols, 0, "w");
    return *w == NULL ? -1 : 0;
}

/* ls_gradient(AZ, e0, r, Z, xbar, w) -> (t, scale): with e = AZ w + e0 and u = r∘(Z w + x̄) (Z None: the
 * identity, x̄ None: 0), t = AZᵀe + Zᵀu and scale = |AZ|ᵀ|e| + |Z|ᵀ|u| (r None: no u), new arrays. */
PyObject *wk_ls_gradient(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    wk_mat AZ, Z;
    const double *e0, *r, *xbar, *w;
    if (wk_nargs(nargs, 6, "ls_gradient") < 0 || wk_ls_args(args, &AZ, &e0, &r, &Z, &xbar, &w) < 0)
        return NULL;
    npy_intp dims[1] = {AZ.cols};
    PyArrayObject *to = (PyArrayObject *)PyArray_SimpleNew(1, dims, NPY_DOUBLE);
    PyArrayObject *so = to ? (PyArrayObject *)PyArray_SimpleNew(1, dims, NPY_DOUBLE) : NULL;
    if (so == NULL || wk_ls_gradient_core(&AZ, e0, r, &Z, xbar, w, PyArray_DATA(to), PyArray_DATA(so)) < 0) {
        Py_XDECREF(to);
        Py_XDECREF(so);
        return NULL;
    }
    return Py_BuildValue("(NN)", to, so);
}

/* C += a B_l (row l of B) for the k entries of C's row */
static inline void add_row(double *restrict c, double a, const wk_mat *B, Py_ssize_t l, int k)
{
    if (B->cs == 1) { /* (contiguous rows of B: a loop the compiler vectorises) */
        const double *restrict b = B->data + l * B->rs;
        for (int j = 0; j < k; j++)
            c[j] += a * b[j];
    } else {
        for (int j = 0; j < k; j++)
            c[j] += a * WK_AT(*B, l, j);
    }
}


/* c += Σ_q a_q B_{l_q} over the nq gathered entries, in q order for every entry of c (the rounding of nq
 * add_row calls), B with contiguous rows: c in blocks of WK_BLOCK entries held in registers while the
 * entries are added, so that c is loaded and stored once per block, not once per entry */
static void apply_gathered(double *restrict c, const double *a, const Py_ssize_t *l, int nq, const wk_mat *B,
                           int k)
{
    int j = 0;
    for (; j + WK_BLOCK <= k; j += WK_BLOCK) {
        double acc[WK_BLOCK];
        for (int t = 0; t < WK_BLOCK; t++)
            acc[t] = c[j + t];
        for (int q = 0; q < nq; q++) {
            const double *restrict b = B->data + l[q] * B->rs + j;
            double aq = a[q];
            for (int t = 0; t < WK_BLOCK; t++)
                acc[t] += aq * b[t];
        }
        for (int t = 0; t < WK_BLOCK; t++)
            c[j + t] = acc[t];
    }
    for (int q = 0; q < nq && j < k; q++) { /* (the last k − j entries: one short loop per entry) */
        const double *restrict b = B->data + l[q] * B->rs;
        double aq = a[q];
        for (int t = j; t < k; t++)
            c[t] += aq * b[t];
    }
}

/* Σ_q a_q x_{at_q} added to *sx in q order (x NULL: nothing) */
static inline void gathered_dot(const double *a, const Py_ssize_t *at, int nq, const double *x, double *sx)
{
    for (int q = 0; x && q < nq; q++)
        *sx += a[q] * x[at[q]];
}

/* C_i += A_il B_l over the nonzero A_il of row i, in l order, and (x not NULL) *ax = Σ_l A_il x_l over the
 * same entries from 0 (the numbers of the product A x as a one-column B). Contiguous rows of A and of B
 * and k ≥ WK_BLOCK: eight zeros skipped per test (zero8), the nonzero entries gathered without a branch
 * per entry and added by apply_gathered; otherwise one add_row per nonzero entry (four zeros skipped per
 * test on contiguous rows). The count of nonzero entries met; the first one's column in *first (-1:
 * none). */
static Py_ssize_t add_sparse_row(const wk_mat *A, Py_ssize_t i, const wk_mat *B, double *c, int k,
                                 Py_ssize_t *first, const double *x, double *ax)
{
    Py_ssize_t n = A->cols, nnz = 0, l = 0;
    double sx = 0.0;
    *first = -1;
    if (A->cs == 1 && B->cs == 1 && k >= WK_BLOCK) {
        const double *row = A->data + i * A->rs;
        double a[WK_GATHER];
        Py_ssize_t at[WK_GATHER];
        int nq = 0;
        while (l < n) {
            if (l + 8 <= n && wk_zero8(row + l)) {
                l += 8;
                continue;
            }
            for (Py_ssize_t end = l + 8 <= n ? l + 8 : n; l < end; l++) { /* (no branch per entry) */
                a[nq] = row[l];
                at[nq] = l;
                nq += row[l] != 0.0;
            }
            if (nq > 0 && *first < 0)
                *first = at[0];
            if (nq > WK_GATHER - 8) {
                apply_gathered(c, a, at, nq, B, k);
                gathered_dot(a, at, nq, x, &sx);
                nnz += nq;
                nq = 0;
            }
        }
        if (nq > 0) {
            apply_gathered(c, a, at, nq, B, k);
            gathered_dot(a, at, nq, x, &sx);
        }
        if (x)
            *ax = sx;
        return nnz + nq;
    }
    if (A->cs == 1) {
        const double *row = A->data + i * A->rs;
        for (; l + 4 <= n; l += 4) {
            if ((row[l] == 0.0) & (row[l + 1] == 0.0) & (row[l + 2] == 0.0) & (row[l + 3] == 0.0))
                continue;
            for (Py_ssize_t t = l; t < l + 4; t++)
                if (row[t] != 0.0) {
                    add_row(c, row[t], B, t, k);
                    sx += x ? row[t] * x[t] : 0.0;
                    *first = nnz++ ? *first : t;
                }
        }
    }
    for (; l < n; l++) {
        double a = WK_AT(*A, i, l);
        if (a != 0.0) {
            add_row(c, a, B, l, k);
            sx += x ? a * x[l] : 0.0;
            *first = nnz++ ? *first : l;
        }
    }
    if (x)
        *ax = sx;
    return nnz;
}

/* C = A B by BLAS dgemm when the product is large enough and both matrices are C- or F-ordered; 0 when it
 * is not (nothing written) */
static int blas_product(const wk_mat *A, const wk_mat *B, double *C)
{
    int m = (int)A->rows, n = (int)A->cols, k = (int)B->cols;
    int a_c = A->cs == 1 && A->rs == n, a_f = A->rs == 1 && A->cs == m;
    int b_c = B->cs == 1 && B->rs == k, b_f = B->rs == 1 && B->cs == n;
    if (!((double)m * n * k >= WK_BLAS_MIN_WORK && (a_c || a_f) && (b_c || b_f) && m > 0 && n > 0 && k > 0))
        return 0;
    /* row-major C = A B is column-major Cᵀ = Bᵀ Aᵀ: a C-ordered matrix is its transpose in column-major,
     * an F-ordered one itself ('T') */
    char tb = b_c ? 'N' : 'T', ta = a_c ? 'N' : 'T';
    int ldb = b_c ? (k > 1 ? k : 1) : (n > 1 ? n : 1), lda = a_c ? (n > 1 ? n : 1) : (m > 1 ? m : 1);
    int ldc = k > 1 ? k : 1;
    double one = 1.0, zero = 0.0;
    wk_dgemm(&tb, &ta, &k, &m, &n, &one, B->data, &ldb, A->data, &lda, &zero, C, &ldc);
    return 1;
}

/* C = A B of wk_matmul and, with pattern (m entries), wk_single_entry's answer for every row of A, and
 * with x (n entries) Ax = A x as wk_matmul gives it for x as a one-column matrix: all from the same pass
 * over A's entries */
static void matmul_pattern(const wk_mat *A, const wk_mat *B, double *C, Py_ssize_t *pattern, const double *x,
                           double *Ax)
{
    int m = (int)A->rows, k = (int)B->cols;
    /* the loops skip A's zeros (selection rows, cone rows) and win below a density of about a quarter;
     * a product that turns out denser is left to BLAS as soon as that is known */
    Py_ssize_t cap = A->rows * A->cols, nnz = 0, first;
    memset(C, 0, (size_t)m * (size_t)k * sizeof(double));
    for (int i = 0; i < m; i++) {
        Py_ssize_t row = add_sparse_row(A, i, B, C + (Py_ssize_t)i * k, k, &first, x, Ax ? Ax + i : NULL);
        nnz += row;
        if (pattern)
            pattern[i] = row == 0 ? -1 : row == 1 ? first : -2;
        if (4 * nnz > cap && blas_product(A, B, C)) {
            for (Py_ssize_t r = i + 1; pattern && r < m; r++)
                pattern[r] = wk_single_entry(A, r);
            if (x) { /* (the rest of A x by the loops of a one-column product) */
                wk_mat X = {(double *)x, A->cols, 1, 1, 1};
                wk_mat rest = {A->data + (i + 1) * A->rs, m - i - 1, A->cols, A->rs, A->cs};
                wk_matmul(&rest, &X, Ax + i + 1);
            }
            return;
        }
    }
}

void wk_matmul_vec(const wk_mat *A, const wk_mat *B, const double *x, double *C, double *Ax)
{
    matmul_pattern(A, B, C, NULL, x, Ax);
}

void wk_matmul(const wk_mat *A, const wk_mat *B, double *C)
{
    matmul_pattern(A, B, C, NULL, NULL, NULL);
}

void wk_matmul_dense(const wk_mat *A, const wk_mat *B, double *C)
{
    if (!blas_product(A, B, C))
        wk_matmul(A, B, C);
}

/* C = A B for strided A (m × n) and B (n × k) as a new C-ordered array */
static PyArrayObject *product(const wk_mat *A, const wk_mat *B)
{
    npy_intp dims[2] = {A->rows, B->cols};
    PyArrayObject *out = (PyArrayObject *)PyArray_SimpleNew(2, dims, NPY_DOUBLE);
    if (out != NULL)
        wk_matmul(A, B, PyArray_DATA(out));
    return out;
}

/* the most frequent value of d[0..n) among the first four distinct values met (ties: the first met) */
static double frequent_value(const double *d, Py_ssize_t n)
{
    double value[4];
    Py_ssize_t count[4] = {0, 0, 0, 0};
    int distinct = 0;
    for (Py_ssize_t l = 0; l < n; l++) {
        int q = 0;
        while (q < distinct && value[q] != d[l])
            q++;
        if (q == distinct && distinct < 4)
            value[distinct++] = d[l];
        if (q < distinct)
            count[q]++;
    }
    int best = 0;
    for (int q = 1; q < distinct; q++)
        best = count[q] > count[best] ? q : best;
    return distinct ? value[best] : 0.0;
}

/* H (k × k) = Σ_i σ_i G_iᵀG_i over the rows of G (R × k, row-major), σ_i = +1 for the first npos rows and
 * −1 for the others; G2: scratch of R × k entries (used when some σ_i = −1). All σ_i = +1: wk_gram. */
static void signed_gram(const double *G, Py_ssize_t R, Py_ssize_t k, Py_ssize_t npos, double *G2, double *H)
{
    wk_mat Gm = {(double *)G, R, k, k, 1};
    if (npos == R) {
        wk_gram(&Gm, H);
        return;
    }
    memcpy(G2, G, (size_t)(npos * k) * sizeof(double));
    for (Py_ssize_t i = npos * k; i < R * k; i++)
        G2[i] = -G[i];
    wk_mat Gt = {(double *)G, k, R, 1, k}, G2m = {G2, R, k, k, 1};
    wk_matmul_dense(&Gt, &G2m, H);
}

/* H = (AZ)ᵀAZ + Zᵀ diag(r) Z on a null space Z (n × k, orthonormal columns); pattern: wk_single_entry's
 * answer per row of A; scratch: 2 n + m + 2 (m + n) k entries.
 *
 * A row of A with one nonzero entry a, at column l (a selection row: joint-task rows, regulariser rows),
 * has the row a Z_l in AZ: its term a² Z_lᵀZ_l joins the diagonal weights, d = r + Σ a² per column, and
 * H = Σ_dense (AZ_i)ᵀAZ_i + Σ_l d_l Z_lᵀZ_l. With c the most frequent weight (frequent_value) and
 * ZᵀZ = I, Σ_l d_l Z_lᵀZ_l = c I + Σ_{d_l ≠ c} (d_l − c) Z_lᵀZ_l: H = c I + G₊ᵀG₊ − G₋ᵀG₋ with
 * G₊ = [the other rows of AZ; √(d_l − c) Z_l for d_l > c] and G₋ = [√(c − d_l) Z_l for d_l < c]. c is
 * taken when it leaves fewer rows than c = 0 (G = [the other rows; √d_l Z_l for d_l > 0]): a contact
 * scene's task level (3 COM rows, 32 posture rows of weight w², 6 base regulariser rows and 12 wrench
 * columns without weight) has 3 + 6 + 12 = 21 rows instead of 3 + 38 (and 73 without the folding);
 * a uniform d has none but the other rows. The rounding of ZᵀZ = I (a few ε) enters H as c·O(ε), the
 * rounding the Gram matrix of the √d_l Z_l rows has too; the certificate, formed from A Z and Z, not
 * from H, judges the answer either way. */
static void level_hessian(const wk_mat *A, const wk_mat *AZ, const wk_mat *Z, const double *r,
                          const Py_ssize_t *pattern, double *scratch, double *H)
{
    Py_ssize_t m = A->rows, n = A->cols, k = Z->cols;
    double *d = scratch, *G = d + n, *G2 = G + (m + n) * k;
    memcpy(d, r, (size_t)n * sizeof(double));
    for (Py_ssize_t i = 0; i < m; i++) {
        if (pattern[i] >= 0) {
            double a = WK_AT(*A, i, pattern[i]);
            d[pattern[i]] += a * a;
        }
    }
    double c = frequent_value(d, n);
    Py_ssize_t zeros = 0, other = 0, npos = 0;
    for (Py_ssize_t l = 0; l < n; l++) {
        zeros += !(d[l] > 0.0);
        other += d[l] != c;
    }
    if (!(c > 0.0) || other >= n - zeros)
        c = 0.0; /* (the plain rows √d_l Z_l, d_l > 0, and no G₋) */
    Py_ssize_t rows = 0;
    for (Py_ssize_t i = 0; i < m; i++) {
        if (pattern[i] == -2) {
            for (Py_ssize_t j = 0; j < k; j++)
                G[rows * k + j] = WK_AT(*AZ, i, j);
            rows++;
        }
    }
    for (int sign = 1; sign >= (c > 0.0 ? -1 : 1); sign -= 2) { /* (the rows of G₊, then those of G₋) */
        for (Py_ssize_t l = 0; l < n; l++) {
            double w = sign > 0 ? d[l] - c : c - d[l];
            if (!(w > 0.0))
                continue;
            double s = sqrt(w);
            for (Py_ssize_t j = 0; j < k; j++)
                G[rows * k + j] = s * WK_AT(*Z, l, j);
            rows++;
        }
        if (sign > 0)
            npos = rows;
    }
    signed_gram(G, rows, k, npos, G2, H);
    if (c != 0.0)
        for (Py_ssize_t j = 0; j < k; j++)
            H[j * k + j] += c;
}

int wk_level_build(const wk_mat *A, const wk_mat *Z, const double *y, const double *r, const double *xbar,
                   const Py_ssize_t *lo, const Py_ssize_t *hi, double *AZd, double *e, double *H, double *g)
{
    lo = Z->data ? NULL : lo; /* (the rows' ranges serve the level without Z) */
    Py_ssize_t m = A->rows, n = A->cols, k = Z->data ? Z->cols : n;
    size_t words = (size_t)(m + 2 * n) + (Z->data ? (size_t)(2 * (m + n) * k) : 0);
    double stack[256]; /* (small levels: no allocation) */
    double *scratch = words <= 256 ? stack : PyMem_Malloc(words * sizeof(double));
    if (scratch == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t *pattern = (Py_ssize_t *)(scratch + n); /* (m entries; u: the first n) */
    double *u = scratch, *hs = scratch + n + m;
    wk_mat AZ = *A;
    if (Z->data) {
        matmul_pattern(A, Z, AZd, pattern, NULL, NULL);
        AZ = (wk_mat){AZd, m, k, k, 1};
    }
    for (Py_ssize_t i = 0; i < m; i++)
        e[i] = -y[i];
    if (xbar && Z->data) { /* (A x̄ on A's pattern: a selection row's one entry, the other rows whole) */
        for (Py_ssize_t i = 0; i < m; i++) {
            if (pattern[i] >= 0) {
                e[i] += WK_AT(*A, i, pattern[i]) * xbar[pattern[i]];
            } else if (pattern[i] == -2) {
                wk_mat row = {A->data + i * A->rs, 1, n, A->rs, A->cs};
                wk_rows_dot(&row, xbar, e + i, e + i);
            }
        }
    } else if (xbar && lo && wk_finite_vector(n, xbar)) {
        wk_rows_dot_ranged(A, xbar, e, lo, hi, e);
    } else if (xbar) {
        wk_rows_dot(A, xbar, e, e);
    }
    if (!Z->data) { /* AᵀA + diag(r) */
        if (lo)
            wk_gram_ranged(A, lo, hi, H);
        else
            wk_gram(A, H);
        for (Py_ssize_t j = 0; j < k; j++)
            H[j * k + j] += r[j];
    } else {
        level_hessian(A, &AZ, Z, r, pattern, hs, H);
    }
    for (Py_ssize_t j = 0; j < k; j++)
        g[j] = 0.0;
    if (lo && wk_finite_vector(m, e))
        wk_tmatvec_ranged(&AZ, e, lo, hi, g, NULL);
    else
        wk_tmatvec(&AZ, e, 0, g, NULL);
    if (xbar) {
        for (Py_ssize_t l = 0; l < n; l++)
            u[l] = r[l] * xbar[l];
        if (Z->data) {
            wk_tmatvec(Z, u, 1, g, NULL);
        } else {
            for (Py_ssize_t l = 0; l < n; l++)
                if (u[l] != 0.0)
                    g[l] += u[l];
        }
    }
    if (scratch != stack)
        PyMem_Free(scratch);
    return 0;
}

int wk_level_args(PyObject *const *args, wk_mat *A, const double **y, const double **r, wk_mat *Z,
                  const double **xbar)
{
    if (wk_matrix(args[0], -1, -1, 0, "A", A) < 0 || wk_matrix_or_none(args[3], A->cols, -1, "Z", Z) < 0)
        return -1;
    int no_x;
    *y = wk_vector(args[1], A->rows, 0, "y");
    *r = *y ? wk_vector(args[2], A->cols, 0, "r") : NULL;
    *xbar = *r ? wk_vector_or_none(args[4], A->cols, 0, "xbar", &no_x) : NULL;
    return (*r == NULL || (*xbar == NULL && !no_x)) ? -1 : 0;
}

/* level_equations(A, y, r, Z, xbar) -> (AZ, e, H, g)
 *
 * A hierarchy level ‖A x − y‖² + Σ r x² on the affine set x = x̄ + Z w (Z None: the identity, x̄ None: 0)
 * as a QP in w: AZ = A Z (A itself when Z is None), e = A x̄ − y, H = (AZ)ᵀAZ + Zᵀ diag(r) Z and
 * g = (AZ)ᵀe + Zᵀ(r∘x̄), the common factor 2 dropped; on a null space H comes from level_hessian
 * (selection rows folded into the diagonal weights). New arrays. */
PyObject *wk_level_equations(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (wk_nargs(nargs, 5, "level_equations") < 0 || wk_load_lapack() < 0)
        return NULL;
    wk_mat A, Z;
    const double *y, *r, *xbar;
    if (wk_level_args(args, &A, &y, &r, &Z, &xbar) < 0)
        return NULL;
    Py_ssize_t m = A.rows, k = Z.data ? Z.cols : A.cols;
    PyObject *AZo;
    if (Z.data) {
        npy_intp dz[2] = {m, k};
        AZo = PyArray_SimpleNew(2, dz, NPY_DOUBLE);
        if (AZo == NULL)
            return NULL;
    } else {
        AZo = args[0];
        Py_INCREF(AZo);
    }
    npy_intp de[1] = {m}, dg[1] = {k}, dh[2] = {k, k};
    PyArrayObject *eo = (PyArrayObject *)PyArray_SimpleNew(1, de, NPY_DOUBLE);
    PyArrayObject *Ho = (PyArrayObject *)PyArray_SimpleNew(2, dh, NPY_DOUBLE);
    PyArrayObject *go = (PyArrayObject *)PyArray_SimpleNew(1, dg, NPY_DOUBLE);
    if (eo == NULL || Ho == NULL || go == NULL) {
        Py_XDECREF(eo);
        Py_XDECREF(Ho);
        Py_XDECREF(go);
        Py_DECREF(AZo);
        return NULL;
    }
    double *AZd = Z.data ? PyArray_DATA((PyArrayObject *)AZo) : NULL;
    if (wk_level_build(&A, &Z, y, r, xbar, NULL, NULL, AZd, PyArray_DATA(eo), PyArray_DATA(Ho), PyArray_DATA(go)) <
        0) {
        Py_DECREF(eo);
        Py_DECREF(Ho);
        Py_DECREF(go);
        Py_DECREF(AZo);
        return NULL;
    }
    PyObject *out = PyTuple_Pack(4, AZo, (PyObject *)eo, (PyObject *)Ho, (PyObject *)go);
    Py_DECREF(AZo);
    Py_DECREF(eo);
    Py_DECREF(Ho);
    Py_DECREF(go);
    return out;
}

/* lift_clip(Z, w, xbar, lb, ub) -> x = clip(x̄ + Z w, lb, ub) as a new array (Z None: identity, x̄ None:
 * 0, lb / ub None: unbounded) */
PyObject *wk_lift_clip(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (wk_nargs(nargs, 5, "lift_clip") < 0)
        return NULL;
    wk_mat Z;
    Py_ssize_t k = wk_length(args[1], "w");
    if (k < 0 || wk_matrix_or_none(args[0], -1, k, "Z", &Z) < 0)
        return NULL;
    Py_ssize_t n = Z.data ? Z.rows : k;
    int no_x, no_lb, no_ub;
    const double *w = wk_vector(args[1], k, 0, "w");
    const double *xbar = w ? wk_vector_or_none(args[2], n, 0, "xbar", &no_x) : NULL;
    if (w == NULL || (xbar == NULL && !no_x))
        return NULL;
    const double *lb = wk_vector_or_none(args[3], n, 0, "lb", &no_lb);
    if (lb == NULL && !no_lb)
        return NULL;
    const double *ub = wk_vector_or_none(args[4], n, 0, "ub", &no_ub);
    if (ub == NULL && !no_ub)
        return NULL;
    npy_intp dims[1] = {n};
    PyArrayObject *xo = (PyArrayObject *)PyArray_SimpleNew(1, dims, NPY_DOUBLE);
    if (xo != NULL)
        wk_lift_clip_core(&Z, n, k, w, xbar, lb, ub, PyArray_DATA(xo));
    return (PyObject *)xo;
}

void wk_lift_clip_core(const wk_mat *Z, Py_ssize_t n, Py_ssize_t k, const double *w, const double *xbar,
                       const double *lb, const double *ub, double *x)
{
    if (Z->data)
        wk_rows_dot(Z, w, xbar, x);
    for (Py_ssize_t i = 0; i < n; i++) {
        double s;
        if (Z->data)
            s = x[i];
        else
            s = (xbar ? xbar[i] : 0.0) + w[i];
        if (lb && s < lb[i]) /* (np.maximum, then np.minimum: NaN stays NaN) */
            s = lb[i];
        if (ub && s > ub[i])
            s = ub[i];
        x[i] = s;
    }
}

/* regulariser_inert(r, Z) -> bool: the regulariser r has no curvature along the columns of Z
 * (max |r_i Z_ij| ≤ 1e-9 max r; True when r is all zero or Z has no column; False for Z None) */
PyObject *wk_regulariser_inert(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (wk_nargs(nargs, 2, "regulariser_inert") < 0)
        return NULL;
    Py_ssize_t n = wk_length(args[0], "r");
    wk_mat Z;
    const double *r = n < 0 ? NULL : wk_vector(args[0], n, 0, "r");
    if (r == NULL || wk_matrix_or_none(args[1], n, -1, "Z", &Z) < 0)
        return NULL;
    double rmax = 0.0;
    int any = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        any |= r[i] != 0.0;
        rmax = r[i] > rmax ? r[i] : rmax;
    }
    if (!any || (Z.data && Z.cols == 0))
        Py_RETURN_TRUE;
    if (Z.data == NULL)
        Py_RETURN_FALSE;
    double worst = 0.0;
    for (Py_ssize_t i = 0; i < n; i++)
        for (Py_ssize_t j = 0; j < Z.cols; j++) {
            double a = fabs(r[i] * WK_AT(Z, i, j));
            worst = a > worst ? a : worst;
        }
    return PyBool_FromLong(worst <= 1e-9 * rmax);
}

/* matmul(A, B) -> A B, a new array (BLAS for large dense A, loops skipping A's zeros otherwise) */
PyObject *wk_matmul_py(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (wk_nargs(nargs, 2, "matmul") < 0 || wk_load_lapack() < 0)
        return NULL;
    wk_mat A, B;
    if (wk_matrix(args[0], -1, -1, 0, "A", &A) < 0 || wk_matrix(args[1], A.cols, -1, 0, "B", &B) < 0)
        return NULL;
    return (PyObject *)product(&A, &B);
}
