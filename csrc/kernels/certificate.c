/* Residuals of the KKT certificate (wbcpy/qp/kkt.py): natural residuals of bounds and rows, and the
 * componentwise stationarity error. A NaN anywhere makes the residual NaN (the certificate fails). */
#include <float.h>
#include <math.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "kernels.h"

/* absolute floor of the componentwise scales (entries whose every term is exactly zero) */
#define WK_FLOOR 1e-300

/* running maximum that keeps a NaN */
static inline double nan_max(double best, double v)
{
    return (isnan(v) || v > best) ? v : best;
}

static inline double clip_max_min(double x, double lo, double hi)
{
    double y = x > lo ? x : lo;
    return y < hi ? y : hi;
}

/* natural_residual(x, t, scale, lb, ub, z_box) -> (residual, max scale)
 *
 * max_i |x_i − clip(x_i − D_i t_i, lb_i, ub_i)| / (1 + |x_i|), D_i = (1 + |x_i|) / scale_i (lb, ub None:
 * unbounded). When the backend's bound multipliers z_box (None: not reported) are all zero, the answer
 * claims that no bound is active: the test is then max(|t_i|/scale_i, the relative bound violations).
 * Also returns max_i scale_i (0 for n = 0), the stationarity scale of the certificate. */
double wk_natural_core(Py_ssize_t n, const double *x, const double *t, const double *s, const double *lb,
                       const double *ub, const double *zb, double *smax_out)
{
    int interior = zb != NULL && (lb != NULL || ub != NULL);
    for (Py_ssize_t i = 0; interior && i < n; i++)
        interior = zb[i] == 0.0;
    double worst = 0.0, smax = 0.0;
    for (Py_ssize_t i = 0; i < n; i++) {
        double ax = 1.0 + fabs(x[i]), si = s[i] + WK_FLOOR, rho;
        smax = nan_max(smax, s[i]);
        if (interior || (lb == NULL && ub == NULL)) {
            rho = fabs(t[i]) / si;
            if (interior && lb != NULL)
                rho = nan_max(rho, (lb[i] - x[i]) / ax);
            if (interior && ub != NULL)
                rho = nan_max(rho, (x[i] - ub[i]) / ax);
        } else {
            double step = x[i] - ax / si * t[i];
            double z = isnan(step) ? NAN : clip_max_min(step, lb ? lb[i] : -INFINITY, ub ? ub[i] : INFINITY);
            rho = fabs(x[i] - z) / ax;
        }
        if (!isfinite(x[i]))
            rho = NAN; /* a non-finite point never passes, also where no term above reads x */
        worst = nan_max(worst, rho);
    }
    *smax_out = smax;
    return worst;
}

/* the optional bound vectors (lb, ub, z_box) of the box certificates, at args[0..2] */
static int box_args(PyObject *const *args, Py_ssize_t n, const double **lb, const double **ub, const double **zb)
{
    int none;
    *lb = wk_vector_or_none(args[0], n, 0, "lb", &none);
    if (*lb == NULL && !none)
        return -1;
    *ub = wk_vector_or_none(args[1], n, 0, "ub", &none);
    if (*ub == NULL && !none)
        return -1;
    *zb = wk_vector_or_none(args[2], n, 0, "z_box", &none);
    return (*zb == NULL && !none) ? -1 : 0;
}

PyObject *wk_natural_residual(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (wk_nargs(nargs, 6, "natural_residual") < 0)
        return NULL;
    Py_ssize_t n = wk_length(args[0], "x");
    const double *x = n < 0 ? NULL : wk_vector(args[0], n, 0, "x");
    const double *t = x ? wk_vector(args[1], n, 0, "t") : NULL;
    const double *s = t ? wk_vector(args[2], n, 0, "scale") : NULL;
    const double *lb, *ub, *zb;
    if (s == NULL || box_args(args + 3, n, &lb, &ub, &zb) < 0)
        return NULL;
    double smax, worst = wk_natural_core(n, x, t, s, lb, ub, zb, &smax);
    return Py_BuildValue("dd", worst, smax);
}

/* box_certificate(AZ, e0, r, Z, xbar, x, lb, ub, z_box) -> (residual, max scale, t, scale): the
 * least-squares gradient of ls_gradient and the natural residual of natural_residual, in one pass */
PyObject *wk_box_certificate(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    wk_mat AZ, Z;
    const double *e0, *r, *xbar, *x, *lb, *ub, *zb;
    if (wk_nargs(nargs, 9, "box_certificate") < 0 || wk_ls_args(args, &AZ, &e0, &r, &Z, &xbar, &x) < 0)
        return NULL;
    Py_ssize_t n = AZ.cols;
    if (box_args(args + 6, n, &lb, &ub, &zb) < 0)
        return NULL;
    npy_intp dims[1] = {n};
    PyArrayObject *to = (PyArrayObject *)PyArray_SimpleNew(1, dims, NPY_DOUBLE);
    PyArrayObject *so = to ? (PyArrayObject *)PyArray_SimpleNew(1, dims, NPY_DOUBLE) : NULL;
    if (so == NULL || wk_ls_gradient_core(&AZ, e0, r, &Z, xbar, x, PyArray_DATA(to), PyArray_DATA(so)) < 0) {
        Py_XDECREF(to);
        Py_XDECREF(so);
        return NULL;
    }
    double smax, worst = wk_natural_core(n, x, PyArray_DATA(to), PyArray_DATA(so), lb, ub, zb, &smax);
    return Py_BuildValue("(ddNN)", worst, smax, to, so);
}

/* strong_entries(v, tau) -> the indices i with |v_i| > tau (an intp array; NaN is not above), or None when
 * there is none: the strongly active constraints of a level's multipliers (wbcpy.qp.hierarchy) */
PyObject *wk_strong_entries(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (wk_nargs(nargs, 2, "strong_entries") < 0)
        return NULL;
    Py_ssize_t n = wk_length(args[0], "v");
    const double *v = n < 0 ? NULL : wk_vector(args[0], n, 0, "v");
    double tau = v ? PyFloat_AsDouble(args[1]) : -1.0;
    if (v == NULL || (tau == -1.0 && PyErr_Occurred()))
        return NULL;
    Py_ssize_t count = 0;
    for (Py_ssize_t i = 0; i < n; i++)
        count += fabs(v[i]) > tau;
    if (count == 0)
        Py_RETURN_NONE;
    npy_intp dims[1] = {count};
    PyArrayObject *out = (PyArrayObject *)PyArray_SimpleNew(1, dims, NPY_INTP);
    if (out == NULL)
        return NULL;
    npy_intp *idx = PyArray_DATA(out);
    for (Py_ssize_t i = 0, k = 0; i < n; i++)
        if (fabs(v[i]) > tau)
            idx[k++] = i;
    return (PyObject *)out;
}

/* bounds_gap(lb, ub) -> float: min_i (ub_i − lb_i) (inf for n = 0; NaN when a bound is NaN) */
PyObject *wk_bounds_gap(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (wk_nargs(nargs, 2, "bounds_gap") < 0)
        return NULL;
    Py_ssize_t n = wk_length(args[0], "lb");
    const double *lb = n < 0 ? NULL : wk_vector(args[0], n, 0, "lb");
    const double *ub = lb ? wk_vector(args[1], n, 0, "ub") : NULL;
    if (ub == NULL)
        return NULL;
    double gap = INFINITY;
    for (Py_ssize_t i = 0; i < n; i++) {
        double d = ub[i] - lb[i];
        if (isnan(d) || d < gap)
            gap = d;
        if (isnan(gap))
            break;
    }
    return PyFloat_FromDouble(gap);
}

/* all_finite(x) -> bool: every entry of the 1-D float64 array x (any stride) is finite */
PyObject *wk_all_finite(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (wk_nargs(nargs, 1, "all_finite") < 0)
        return NULL;
    PyObject *o = args[0];
    if (wk_checked_array(o, NPY_DOUBLE, 1, "x") < 0)
        return NULL;
    PyArrayObject *a = (PyArrayObject *)o;
    const char *p = PyArray_DATA(a);
    npy_intp n = PyArray_DIM(a, 0), stride = PyArray_STRIDE(a, 0);
    for (npy_intp i = 0; i < n; i++, p += stride)
        if (!isfinite(*(const double *)p))
            Py_RETURN_FALSE;
    Py_RETURN_TRUE;
}

/* rows_residual(C, lo, hi, x, z, t, scale) -> (residual, max scale)
 *
 * The rows lo ≤ C x ≤ hi with multipliers z: adds Cᵀz to the stationarity residual t and |C|ᵀ|z| to its
 * scale (in place), then returns max scale and max_i |c_i − clip(c_i + κ_i z_i, lo_i, hi_i)| / (1 + |c_i|),
 * c = C x, κ_i = (1 + |c_i|) max_j |C_ij| / scale_j: feasibility, the sign of each multiplier and
 * complementarity in one number (see wbcpy.qp.kkt._certify_rows). */
/* the rows' chunk processed with one stack buffer (C x and the scales' reciprocals) */
#define ROWS_CHUNK 64
/* rows shorter than this take the plain loop of rows_core (the reciprocals do not pay off) */
#define ROWS_SHORT 16

/* p_j = |a_j| inv_j for the n entries of a row a (stride cs) into p, their maximum into *best (≥ 0);
 * nonzero when a p_j is NaN. The maximum does not depend on the order it is taken in: SSE2 takes it two
 * entries at a time on contiguous rows, four independent chains elsewhere. */
static int products_max(const double *a, Py_ssize_t cs, Py_ssize_t n, const double *inv, double *p,
                        double *best)
{
    Py_ssize_t j = 0;
    double b[4] = {0.0, 0.0, 0.0, 0.0};
    int nan = 0;
#ifdef __SSE2__
    if (cs == 1) {
        const __m128d magnitude = _mm_castsi128_pd(_mm_set1_epi64x(0x7fffffffffffffffLL));
        __m128d b0 = _mm_setzero_pd(), b1 = _mm_setzero_pd(), unordered = _mm_setzero_pd();
        for (; j + 4 <= n; j += 4) {
            __m128d p0 = _mm_mul_pd(_mm_and_pd(_mm_loadu_pd(a + j), magnitude), _mm_loadu_pd(inv + j));
            __m128d p1 = _mm_mul_pd(_mm_and_pd(_mm_loadu_pd(a + j + 2), magnitude), _mm_loadu_pd(inv + j + 2));
            _mm_storeu_pd(p + j, p0);
            _mm_storeu_pd(p + j + 2, p1);
            unordered = _mm_or_pd(unordered, _mm_cmpunord_pd(p0, p1));
            b0 = _mm_max_pd(b0, p0);
            b1 = _mm_max_pd(b1, p1);
        }
        nan = _mm_movemask_pd(unordered) != 0;
        _mm_storeu_pd(b, b0);
        _mm_storeu_pd(b + 2, b1);
    }
#endif
    for (; j + 4 <= n; j += 4) {
        for (int q = 0; q < 4; q++) {
            double v = fabs(a[(j + q) * cs]) * inv[j + q];
            p[j + q] = v;
            nan |= v != v;
            b[q] = v > b[q] ? v : b[q];
        }
    }
    for (; j < n; j++) {
        double v = fabs(a[j * cs]) * inv[j];
        p[j] = v;
        nan |= v != v;
        b[0] = v > b[0] ? v : b[0];
    }
    double b01 = b[0] > b[1] ? b[0] : b[1], b23 = b[2] > b[3] ? b[2] : b[3];
    *best = b01 > b23 ? b01 : b23;
    return nan;
}

/* max_j |a_j| / sf_j over a row a (stride cs, n entries), NaN when a quotient is NaN: the value of the
 * plain loop of divisions, which it does only where they can matter. The products p_j = |a_j| inv_j
 * (inv_j = 1/sf_j; scratch p, n entries) are within 3 units of rounding u of the quotients q_j, so the
 * largest quotient's product is at least max p (1 − 8 ε) (ε = 2u) and only the entries with p_j above
 * that are divided. Outside [1e-290, 1e290] (overflow or subnormal products, an all-zero row) and
 * without reciprocals (inv NULL) every entry is divided. */
static double row_sigma(const double *a, Py_ssize_t cs, Py_ssize_t n, const double *sf, const double *inv,
                        double *p)
{
    double sigma = 0.0;
    if (inv == NULL) {
        for (Py_ssize_t j = 0; j < n; j++) {
            double weight = fabs(a[j * cs]) / sf[j];
            sigma = (isnan(weight) || weight > sigma) ? weight : sigma;
        }
        return sigma;
    }
    double best;
    if (products_max(a, cs, n, inv, p, &best))
        return NAN;
    if (!(best >= 1e-290 && best <= 1e290))
        return row_sigma(a, cs, n, sf, NULL, p);
    double cut = best * (1.0 - 8.0 * DBL_EPSILON);
    for (Py_ssize_t j = 0; j < n; j++) {
        if (p[j] >= cut) {
            double weight = fabs(a[j * cs]) / sf[j];
            sigma = weight > sigma ? weight : sigma;
        }
    }
    return sigma;
}

double wk_rows_core(const wk_mat *C, const double *lo, const double *hi, const double *x, const double *z,
                    double *t, double *s, double *smax_out)
{
    Py_ssize_t m = C->rows, n = C->cols;
    wk_tmatvec(C, z, 1, t, s);
    double worst = 0.0, smax = 0.0;
    for (Py_ssize_t j = 0; j < n; j++)
        smax = nan_max(smax, s[j]);
    if (n < ROWS_SHORT) { /* (short rows: C x and the divisions in one pass per row) */
        for (Py_ssize_t i = 0; i < m; i++) {
            double c = 0.0, sigma = 0.0;
            for (Py_ssize_t j = 0; j < n; j++) {
                double a = WK_AT(*C, i, j);
                c += a * x[j];
                double weight = fabs(a) / (s[j] + WK_FLOOR);
                sigma = (isnan(weight) || weight > sigma) ? weight : sigma;
            }
            double ac = 1.0 + fabs(c), w = c + sigma * ac * z[i];
            double clipped = isnan(w) ? NAN : clip_max_min(w, lo[i], hi[i]);
            worst = nan_max(worst, fabs(c - clipped) / ac);
        }
        *smax_out = smax;
        return worst;
    }
    /* the scales with their floor and (when they fit the stack buffer) their reciprocals */
    double stack[3 * ROWS_CHUNK], cx[ROWS_CHUNK];
    double *sf = n <= ROWS_CHUNK ? stack : PyMem_Malloc((size_t)(3 * n) * sizeof(double));
    double *inv = sf ? sf + n : NULL, *p = sf ? sf + 2 * n : NULL;
    int finite = 1;
    for (Py_ssize_t j = 0; sf && j < n; j++) {
        sf[j] = s[j] + WK_FLOOR;
        inv[j] = 1.0 / sf[j];
        finite &= isfinite(inv[j]) && inv[j] > 0.0;
    }
    if (!finite)
        inv = NULL; /* (a scale 0, negative, infinite or NaN: every entry divided) */
    for (Py_ssize_t i0 = 0; i0 < m; i0 += ROWS_CHUNK) {
        Py_ssize_t rows = m - i0 < ROWS_CHUNK ? m - i0 : ROWS_CHUNK;
        wk_mat part = {C->data + i0 * C->rs, rows, n, C->rs, C->cs};
        wk_rows_dot(&part, x, NULL, cx);
        for (Py_ssize_t r = 0; r < rows; r++) {
            Py_ssize_t i = i0 + r;
            const double *a = C->data + i * C->rs;
            double sigma;
            if (sf) {
                sigma = row_sigma(a, C->cs, n, sf, inv, p);
            } else { /* (no memory for the reciprocals: every entry divided, as row_sigma's last loop) */
                sigma = 0.0;
                for (Py_ssize_t j = 0; j < n; j++) {
                    double weight = fabs(a[j * C->cs]) / (s[j] + WK_FLOOR);
                    sigma = (isnan(weight) || weight > sigma) ? weight : sigma;
                }
            }
            double c = cx[r], ac = 1.0 + fabs(c), w = c + sigma * ac * z[i];
            double clipped = isnan(w) ? NAN : clip_max_min(w, lo[i], hi[i]);
            worst = nan_max(worst, fabs(c - clipped) / ac);
        }
    }
    if (sf != stack)
        PyMem_Free(sf);
    *smax_out = smax;
    return worst;
}

/* max_i |r_i| / (scale_i (1 + c) + floor) */
double wk_scaled_core(Py_ssize_t n, const double *r, const double *s, double c)
{
    double worst = 0.0;
    for (Py_ssize_t i = 0; i < n; i++)
        worst = nan_max(worst, fabs(r[i]) / (s[i] * (1.0 + c) + WK_FLOOR));
    return worst;
}

/* rows lo ≤ M x ≤ hi at args[0..2], M over n columns (n < 0: any) and named `name` */
static int sided_rows(PyObject *const *args, Py_ssize_t n, const char *name, wk_mat *M, const double **lo,
                      const double **hi)
{
    if (wk_matrix(args[0], -1, n, 0, name, M) < 0)
        return -1;
    *lo = wk_vector(args[1], M->rows, 0, "lo");
    *hi = *lo ? wk_vector(args[2], M->rows, 0, "hi") : NULL;
    return *hi == NULL ? -1 : 0;
}

/* the rows (C, lo, hi, z) of the rows certificates at args[0..3], C over n columns */
static int rows_args(PyObject *const *args, Py_ssize_t n, wk_mat *C, const double **lo, const double **hi,
                     const double **z)
{
    if (sided_rows(args, n, "C", C, lo, hi) < 0)
        return -1;
    *z = wk_vector(args[3], C->rows, 0, "z");
    return *z == NULL ? -1 : 0;
}

PyObject *wk_rows_residual(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (wk_nargs(nargs, 7, "rows_residual") < 0 || wk_disjoint_outputs(args, nargs, 1u << 5 | 1u << 6, "rows_residual") < 0)
        return NULL;
    wk_mat C;
    const double *lo, *hi;
    if (sided_rows(args, -1, "C", &C, &lo, &hi) < 0)
        return NULL;
    const double *x = wk_vector(args[3], C.cols, 0, "x");
    const double *z = x ? wk_vector(args[4], C.rows, 0, "z") : NULL;
    double *t = z ? wk_vector(args[5], C.cols, 1, "t") : NULL;
    double *s = t ? wk_vector(args[6], C.cols, 1, "scale") : NULL;
    if (s == NULL)
        return NULL;
    double smax, worst = wk_rows_core(&C, lo, hi, x, z, t, s, &smax);
    return Py_BuildValue("dd", worst, smax);
}

/* rows_certificate(AZ, e0, r, Z, xbar, x, C, lo, hi, z, c) -> (dual, compl, max scale, t, scale): the
 * least-squares gradient (ls_gradient), the rows' terms and residual (rows_residual) and the
 * componentwise stationarity error with the rounding allowance c (scaled_error), in one pass */
PyObject *wk_rows_certificate(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    wk_mat AZ, Z, C;
    const double *e0, *r, *xbar, *x, *lo, *hi, *z;
    if (wk_nargs(nargs, 11, "rows_certificate") < 0 || wk_ls_args(args, &AZ, &e0, &r, &Z, &xbar, &x) < 0)
        return NULL;
    Py_ssize_t n = AZ.cols;
    double c = PyFloat_AsDouble(args[10]);
    if (rows_args(args + 6, n, &C, &lo, &hi, &z) < 0 || PyErr_Occurred())
        return NULL;
    npy_intp dims[1] = {n};
    PyArrayObject *to = (PyArrayObject *)PyArray_SimpleNew(1, dims, NPY_DOUBLE);
    PyArrayObject *so = to ? (PyArrayObject *)PyArray_SimpleNew(1, dims, NPY_DOUBLE) : NULL;
    if (so == NULL || wk_ls_gradient_core(&AZ, e0, r, &Z, xbar, x, PyArray_DATA(to), PyArray_DATA(so)) < 0) {
        Py_XDECREF(to);
        Py_XDECREF(so);
        return NULL;
    }
    double *t = PyArray_DATA(to), *s = PyArray_DATA(so), smax;
    double compl = wk_rows_core(&C, lo, hi, x, z, t, s, &smax);
    double dual = wk_scaled_core(n, t, s, c);
    return Py_BuildValue("(dddNN)", dual, compl, smax, to, so);
}

/* scaled_error(r, scale, c) -> float: max_i |r_i| / (scale_i (1 + c) + floor), the componentwise
 * stationarity error with the rounding allowance c (wbcpy.qp.kkt._dual_error, first step). */
PyObject *wk_scaled_error(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (wk_nargs(nargs, 3, "scaled_error") < 0)
        return NULL;
    Py_ssize_t n = wk_length(args[0], "r");
    const double *r = n < 0 ? NULL : wk_vector(args[0], n, 0, "r");
    const double *s = r ? wk_vector(args[1], n, 0, "scale") : NULL;
    double c = s ? PyFloat_AsDouble(args[2]) : 0.0;
    if (s == NULL || PyErr_Occurred())
        return NULL;
    return PyFloat_FromDouble(wk_scaled_core(n, r, s, c));
}

/* M x, |M||x| and max |M_ij| of row i (into *c, *mag, *big): a contiguous row in four partial sums
 * (independent chains), its all-zero groups of four entries skipped (cone and contact rows are sparse);
 * a strided one entry by entry */
static void row_terms(const wk_mat *M, Py_ssize_t i, const double *x, double *c, double *mag, double *big)
{
    const double *a = M->data + i * M->rs;
    Py_ssize_t n = M->cols, j = 0;
    double c0 = 0.0, c1 = 0.0, c2 = 0.0, c3 = 0.0, m0 = 0.0, m1 = 0.0, m2 = 0.0, m3 = 0.0, b = *big;
    if (M->cs == 1) {
        for (; j + 4 <= n; j += 4) {
            const double *q = a + j, *y = x + j;
            if (q[0] == 0.0 && q[1] == 0.0 && q[2] == 0.0 && q[3] == 0.0)
                continue;
            c0 += q[0] * y[0], c1 += q[1] * y[1], c2 += q[2] * y[2], c3 += q[3] * y[3];
            m0 += fabs(q[0]) * fabs(y[0]), m1 += fabs(q[1]) * fabs(y[1]);
            m2 += fabs(q[2]) * fabs(y[2]), m3 += fabs(q[3]) * fabs(y[3]);
            double g = fmax(fmax(fabs(q[0]), fabs(q[1])), fmax(fabs(q[2]), fabs(q[3])));
            b = g > b ? g : b;
        }
    }
    for (; j < n; j++) {
        double e = a[j * M->cs];
        c0 += e * x[j];
        m0 += fabs(e) * fabs(x[j]);
        b = fabs(e) > b ? fabs(e) : b;
    }
    *c = (c0 + c1) + (c2 + c3), *mag = (m0 + m1) + (m2 + m3), *big = b;
}

/* rows_excess(M, lo, hi, x, tol) -> float: the largest excess of lo ≤ M x ≤ hi beyond its tolerance (≤ 0:
 * every row holds; an equality is lo = hi; infinite sides never bind), judged against the rows' data: row
 * i's excess is max(lo_i − c_i, c_i − hi_i) − tol (1 + |side|) − ρ (|M||x|)_i with c = M x and ρ = 8(n + 1)ε
 * the rounding allowance of the certificates, and the answer's own excess is ε m ‖x‖₂ − tol (1 + the
 * largest finite |side|), m the largest |M_ij| (an answer whose rounding alone exceeds the tolerance on the
 * data's scale is beyond what the rows resolve: kkt.oversized). The final check of a hierarchy's answer. */
PyObject *wk_rows_excess(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (wk_nargs(nargs, 5, "rows_excess") < 0)
        return NULL;
    wk_mat M;
    const double *lo, *hi;
    if (sided_rows(args, -1, "M", &M, &lo, &hi) < 0)
        return NULL;
    const double *x = wk_vector(args[3], M.cols, 0, "x");
    double tol = x ? PyFloat_AsDouble(args[4]) : 0.0;
    if (x == NULL || PyErr_Occurred())
        return NULL;
    double rho = 8.0 * (double)(M.cols + 1) * DBL_EPSILON, worst = -INFINITY, mmax = 0.0, data = 0.0, xx = 0.0;
    for (Py_ssize_t j = 0; j < M.cols; j++)
        xx += x[j] * x[j];
    for (Py_ssize_t i = 0; i < M.rows; i++) {
        double c, mag;
        row_terms(&M, i, x, &c, &mag, &mmax);
        double slack = tol + rho * mag;
        double below = (lo[i] - c) - slack - tol * fabs(lo[i]);
        double above = (c - hi[i]) - slack - tol * fabs(hi[i]);
        worst = nan_max(worst, below > above ? below : above);
        if (isfinite(lo[i]) && fabs(lo[i]) > data)
            data = fabs(lo[i]);
        if (isfinite(hi[i]) && fabs(hi[i]) > data)
            data = fabs(hi[i]);
    }
    if (M.rows)
        worst = nan_max(worst, DBL_EPSILON * mmax * sqrt(xx) - tol * (1.0 + data));
    return PyFloat_FromDouble(M.rows ? worst : 0.0);
}

/* point_outside(x, lb, ub, C, lo, hi, tol) -> bool: True when the point x lies outside its bounds or rows
 * beyond the tolerance: x_i < lb_i − tol (1 + |lb_i|), x_i > ub_i + tol (1 + |ub_i|), or, with c = C x,
 * c_k < lo_k − tol (1 + |c_k|) or c_k > hi_k + tol (1 + |c_k|). lb, ub and C may be None (C None: lo and
 * hi are not read); a NaN compares neither way, infinite sides never bind. The check of a hierarchy level
 * whose every direction higher levels fixed (wbcpy.qp.hierarchy._check_point). */
PyObject *wk_point_outside(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (wk_nargs(nargs, 7, "point_outside") < 0)
        return NULL;
    const double *x = wk_vector(args[0], -1, 0, "x");
    if (x == NULL)
        return NULL;
    Py_ssize_t n = PyArray_DIM((PyArrayObject *)args[0], 0);
    int no_lb, no_ub;
    const double *lb = wk_vector_or_none(args[1], n, 0, "lb", &no_lb);
    if (lb == NULL && !no_lb)
        return NULL;
    const double *ub = wk_vector_or_none(args[2], n, 0, "ub", &no_ub);
    if (ub == NULL && !no_ub)
        return NULL;
    wk_mat C;
    if (wk_matrix_or_none(args[3], -1, n, "C", &C) < 0)
        return NULL;
    const double *lo = NULL, *hi = NULL;
    if (args[3] != Py_None) {
        lo = wk_vector(args[4], C.rows, 0, "lo");
        hi = lo ? wk_vector(args[5], C.rows, 0, "hi") : NULL;
        if (hi == NULL)
            return NULL;
    }
    double tol = PyFloat_AsDouble(args[6]);
    if (PyErr_Occurred())
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (lb != NULL && x[i] < lb[i] - tol * (1.0 + fabs(lb[i])))
            Py_RETURN_TRUE;
        if (ub != NULL && x[i] > ub[i] + tol * (1.0 + fabs(ub[i])))
            Py_RETURN_TRUE;
    }
    if (lo == NULL)
        Py_RETURN_FALSE;
    for (Py_ssize_t k = 0; k < C.rows; k++) {
        double c = 0.0;
        for (Py_ssize_t j = 0; j < n; j++)
            c += WK_AT(C, k, j) * x[j];
        double slack = tol * (1.0 + fabs(c));
        if (c < lo[k] - slack || c > hi[k] + slack)
            Py_RETURN_TRUE;
    }
    Py_RETURN_FALSE;
}
