/* The Cholesky factor H = UᵀU of a small symmetric positive definite matrix and the solve H x = b with it
 * (the box level's free block H_FF, wbcpy.qp's compiled level: fused_level.c).
 *
 * Storage: the n × n array W holds H's lower triangle row-major, which is U's upper triangle column-major
 * (U(p, i) = W[i n + p], p ≤ i: column i of U is the contiguous W[i n .. i n + i]), the memory LAPACK's
 * dpotrf('U') reads and writes. Up to WK_CHOLESKY_OWN the factor is this file's: U(j, i) = (H(j, i) −
 * Σ_{p<j} U(p, j) U(p, i)) / U(j, j), each sum a dot product of two contiguous columns, four target columns
 * per pass over column j (dpotrf, on these orders, spends more on its per-call and per-block set-up than on
 * the n³/6 multiply-adds). Above it LAPACK's dpotrf and BLAS' dtrsv, whose blocked kernels then cost less.
 * The dot products run over pairs (an SSE2 register where there is one, two doubles otherwise): the even and
 * odd terms summed apart, then added. */
#include <math.h>

#include "kernels.h"

#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
typedef __m128d pair;
static inline pair pair_zero(void) { return _mm_setzero_pd(); }
static inline pair pair_load(const double *p) { return _mm_loadu_pd(p); }
static inline pair pair_fma(pair s, pair a, pair b) { return _mm_add_pd(s, _mm_mul_pd(a, b)); }
static inline double pair_sum(pair s) { return _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s))); }
/* x[0..2) −= a b[0..2) */
static inline void pair_axpy(double *x, double a, const double *b)
{
    _mm_storeu_pd(x, _mm_sub_pd(_mm_loadu_pd(x), _mm_mul_pd(_mm_set1_pd(a), _mm_loadu_pd(b))));
}
#else
typedef struct {
    double lo, hi;
} pair;
static inline pair pair_zero(void) { return (pair){0.0, 0.0}; }
static inline pair pair_load(const double *p) { return (pair){p[0], p[1]}; }
static inline pair pair_fma(pair s, pair a, pair b) { return (pair){s.lo + a.lo * b.lo, s.hi + a.hi * b.hi}; }
static inline double pair_sum(pair s) { return s.lo + s.hi; }
static inline void pair_axpy(double *x, double a, const double *b)
{
    x[0] -= a * b[0];
    x[1] -= a * b[1];
}
#endif

/* Σ_{p<m} a_p b_p: even and odd terms apart (pairs), then the odd last term */
static inline double dot(const double *a, const double *b, Py_ssize_t m)
{
    pair s = pair_zero();
    Py_ssize_t p = 0;
    for (; p + 1 < m; p += 2)
        s = pair_fma(s, pair_load(a + p), pair_load(b + p));
    double r = pair_sum(s);
    return p < m ? r + a[p] * b[p] : r;
}

/* row j of U on the columns i .. i+3, from the dot products of column j (c, its first j entries) with theirs */
static inline void four_columns(const double *c, Py_ssize_t j, double inv, double *a, Py_ssize_t n)
{
    double *b = a + n, *e = b + n, *f = e + n;
    pair sa = pair_zero(), sb = pair_zero(), se = pair_zero(), sf = pair_zero();
    Py_ssize_t p = 0;
    for (; p + 1 < j; p += 2) {
        pair cp = pair_load(c + p);
        sa = pair_fma(sa, cp, pair_load(a + p));
        sb = pair_fma(sb, cp, pair_load(b + p));
        se = pair_fma(se, cp, pair_load(e + p));
        sf = pair_fma(sf, cp, pair_load(f + p));
    }
    double ra = pair_sum(sa), rb = pair_sum(sb), re = pair_sum(se), rf = pair_sum(sf);
    if (p < j) {
        ra += c[p] * a[p], rb += c[p] * b[p], re += c[p] * e[p], rf += c[p] * f[p];
    }
    a[j] = (a[j] - ra) * inv, b[j] = (b[j] - rb) * inv, e[j] = (e[j] - re) * inv, f[j] = (f[j] - rf) * inv;
}

/* the same for the columns i, i+1 */
static inline void two_columns(const double *c, Py_ssize_t j, double inv, double *a, Py_ssize_t n)
{
    double *b = a + n;
    pair sa = pair_zero(), sb = pair_zero();
    Py_ssize_t p = 0;
    for (; p + 1 < j; p += 2) {
        pair cp = pair_load(c + p);
        sa = pair_fma(sa, cp, pair_load(a + p));
        sb = pair_fma(sb, cp, pair_load(b + p));
    }
    double ra = pair_sum(sa), rb = pair_sum(sb);
    if (p < j) {
        ra += c[p] * a[p], rb += c[p] * b[p];
    }
    a[j] = (a[j] - ra) * inv, b[j] = (b[j] - rb) * inv;
}

static int own_factor(double *W, Py_ssize_t n, double floor)
{
    for (Py_ssize_t j = 0; j < n; j++) {
        double *c = W + j * n;
        double d = c[j] - dot(c, c, j); /* (the pivot²: H(j, j) − Σ_{p<j} U(p, j)²) */
        if (!(d > 0.0 && d >= floor))
            return 1;
        d = sqrt(d);
        c[j] = d;
        double inv = 1.0 / d;
        Py_ssize_t i = j + 1;
        for (; i + 3 < n; i += 4)
            four_columns(c, j, inv, W + i * n, n);
        if (i + 1 < n) {
            two_columns(c, j, inv, W + i * n, n);
            i += 2;
        }
        if (i < n)
            W[i * n + j] = (W[i * n + j] - dot(c, W + i * n, j)) * inv;
    }
    return 0;
}

int wk_cholesky(double *W, Py_ssize_t n, double floor)
{
    if (n <= WK_CHOLESKY_OWN)
        return own_factor(W, n, floor);
    int f = (int)n, info = 0;
    char upper = 'U';
    wk_dpotrf(&upper, &f, W, &f, &info);
    if (info != 0)
        return 1;
    for (Py_ssize_t a = 0; a < n; a++)
        if (!(W[a * n + a] * W[a * n + a] >= floor))
            return 1;
    return 0;
}

void wk_cholesky_solve(const double *W, Py_ssize_t n, double *x)
{
    if (n > WK_CHOLESKY_OWN) {
        int f = (int)n, one = 1;
        char upper = 'U', no = 'N', tr = 'T';
        wk_dtrsv(&upper, &tr, &no, &f, (double *)W, &f, x, &one);
        wk_dtrsv(&upper, &no, &no, &f, (double *)W, &f, x, &one);
        return;
    }
    for (Py_ssize_t a = 0; a < n; a++) /* Uᵀ z = b: z_a = (b_a − Σ_{p<a} U(p, a) z_p) / U(a, a) */
        x[a] = (x[a] - dot(W + a * n, x, a)) / W[a * n + a];
    for (Py_ssize_t a = n - 1; a >= 0; a--) { /* U x = z, by columns: x_a = z_a / U(a, a), then z_p −= U(p, a) x_a */
        const double *col = W + a * n;
        double xa = x[a] /= col[a];
        Py_ssize_t p = 0;
        for (; p + 1 < a; p += 2)
            pair_axpy(x + p, xa, col + p);
        if (p < a)
            x[p] -= xa * col[p];
    }
}

/* _cholesky_solve(H, b, floor) -> x (a new array), or None when wk_cholesky refuses H: the solution of
 * H x = b by the Cholesky factor of the symmetric positive definite H, of which only the lower triangle is
 * read (H any layout, n × n; b: n): the test entry point of wk_cholesky and wk_cholesky_solve */
PyObject *wk_cholesky_solve_py(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    wk_mat H;
    if (wk_nargs(nargs, 3, "_cholesky_solve") < 0 || wk_matrix(args[0], -1, -1, 0, "H", &H) < 0)
        return NULL;
    if (H.rows != H.cols) {
        PyErr_Format(PyExc_ValueError, "_cholesky_solve: H must be square, got %zd x %zd", H.rows, H.cols);
        return NULL;
    }
    Py_ssize_t n = H.rows;
    const double *b = wk_vector(args[1], n, 0, "b");
    double floor = b ? PyFloat_AsDouble(args[2]) : -1.0;
    if (b == NULL || (floor == -1.0 && PyErr_Occurred()) || (n > WK_CHOLESKY_OWN && wk_load_lapack() < 0))
        return NULL;
    npy_intp dims[1] = {n};
    PyArrayObject *xo = (PyArrayObject *)PyArray_SimpleNew(1, dims, NPY_DOUBLE);
    double *W = PyMem_Malloc((size_t)(n * n + 1) * sizeof(double));
    if (xo == NULL || W == NULL) {
        Py_XDECREF(xo);
        PyMem_Free(W);
        return W == NULL ? PyErr_NoMemory() : NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        for (Py_ssize_t j = 0; j <= i; j++)
            W[i * n + j] = WK_AT(H, i, j);
    double *x = PyArray_DATA(xo);
    memcpy(x, b, (size_t)n * sizeof(double));
    int refused = wk_cholesky(W, n, floor);
    if (!refused)
        wk_cholesky_solve(W, n, x);
    PyMem_Free(W);
    if (refused) {
        Py_DECREF(xo);
        Py_RETURN_NONE;
    }
    return (PyObject *)xo;
}
