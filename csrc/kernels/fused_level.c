/* A hierarchy level built, solved and certified in one call (wbcpy.qp.level_solver's compiled path).
 *
 * The level ‖A x − y‖² + Σ r x² with lb ≤ x ≤ ub and the inequality rows lo ≤ C x ≤ hi of the levels
 * above, on x = x̄ + Z w, is what the Python path makes of it (wbcpy.qp.level_qp.build_level), in its two
 * common shapes:
 *
 * - no null space (Z None) and no rows: H = AᵀA + diag r, g = Aᵀ(A x̄ − y) + r∘x̄ and the bounds
 *   lb − x̄ ≤ w ≤ ub − x̄, checked by the box certificate (kkt.certify_box);
 * - on a null space: H and g of level_equations (on AZ = A Z), the rows lo − C x̄ ≤ C Z w ≤ hi − C x̄ and
 *   the bounds as rows lb − x̄ ≤ Z w ≤ ub − x̄, each block as kept_rows keeps it (rows bounded on neither
 *   side dropped, rows shorter than 1e-9 dropped after checking x̄ against them), checked by the rows
 *   certificate (kkt._certify_rows).
 *
 * DAQP's C solver (a cold start, as daqp_solve) solves it. These are the functions of the Python path on
 * the same numbers in the same order, so the answer is the same bit for bit, without the StdQP, the
 * backend's inputs and the certificate objects between them. Whatever the Python path would not accept
 * as it is — a failed solve, a non-finite answer, a certificate that is not strict, a constant row that
 * x̄ violates, no row left — returns None, and the caller takes the Python path, which decides
 * (refinement, fallbacks, rescue, the infeasibility report). */
#include <float.h>
#include <math.h>
#include <string.h>

#include "kernels.h"

static int all_finite(Py_ssize_t n, const double *v)
{
    for (Py_ssize_t i = 0; i < n; i++)
        if (!isfinite(v[i]))
            return 0;
    return 1;
}

/* the level's inequality rows in w, as build_level stacks them: the stack block (C Z, lo − C x̄, hi − C x̄;
 * C NULL data: none) then the bound block (Z, lb − x̄, ub − x̄; lb and ub NULL: none), each kept as
 * kept_rows keeps it. Rows into M (row-major, k columns), sides into l / h, source indices into c_rows /
 * b_rows with their counts; -1 when a constant row is violated. CZ and Cx are scratch (mc × k, mc). */
static int level_rows(const wk_mat *C, const double *lo, const double *hi, const wk_mat *Z, const double *xbar,
                      const double *lb, const double *ub, double *CZ, double *Cx, double *M, double *l,
                      double *h, npy_intp *c_rows, Py_ssize_t *nc, npy_intp *b_rows, Py_ssize_t *nb)
{
    Py_ssize_t k = Z->cols;
    *nc = *nb = 0;
    if (C->data) {
        wk_matmul(C, Z, CZ);
        wk_mat CZm = {CZ, C->rows, k, k, 1};
        const double *v = NULL;
        if (xbar) {
            wk_mat X = {(double *)xbar, C->cols, 1, 1, 1};
            wk_matmul(C, &X, Cx);
            v = Cx;
        }
        if ((*nc = wk_kept_core(&CZm, v, lo, hi, 1, c_rows)) < 0)
            return -1;
        wk_kept_copy(&CZm, v, lo, hi, c_rows, *nc, M, l, h);
    }
    if (lb || ub) {
        if ((*nb = wk_kept_core(Z, xbar, lb, ub, 1, b_rows)) < 0)
            return -1;
        wk_kept_copy(Z, xbar, lb, ub, b_rows, *nb, M + *nc * k, l + *nc, h + *nc);
    }
    return 0;
}

typedef struct {
    double primal, dual, smax;
    int ok;
} verdict;

/* (lo, hi) sides at args[0..1] of m rows, each None or a vector; -1 with an exception set */
static int optional_sides(PyObject *const *args, Py_ssize_t m, const char *names[2], const double **lo,
                          const double **hi)
{
    int none;
    *lo = wk_vector_or_none(args[0], m, 0, names[0], &none);
    if (*lo == NULL && !none)
        return -1;
    *hi = wk_vector_or_none(args[1], m, 0, names[1], &none);
    return (*hi == NULL && !none) ? -1 : 0;
}

/* an index array of the first n entries of idx (None for n < 0) */
static PyObject *indices(const npy_intp *idx, Py_ssize_t n)
{
    if (n < 0)
        Py_RETURN_NONE;
    npy_intp d[1] = {n};
    PyArrayObject *o = (PyArrayObject *)PyArray_SimpleNew(1, d, NPY_INTP);
    if (o != NULL)
        memcpy(PyArray_DATA(o), idx, (size_t)n * sizeof(npy_intp));
    return (PyObject *)o;
}

/* fused_level(A, y, r, Z, xbar, C, lo, hi, lb, ub, settings, tol)
 *   -> (w, z, t, primal, dual, max scale, c_rows, b_rows, exitflag, iterations, x) or None
 *
 * w the answer; without Z (C and its sides None, lb and ub given): z None, t = H w + g (least-squares
 * form), c_rows and b_rows None; with Z: z the rows' multipliers, t None, c_rows / b_rows the indices of
 * the stack rows and of the bounds kept as rows (None: that block is absent). primal, dual and max scale
 * are the certificate's (residuals, stationarity scale minus 1); x = clip(x̄ + Z w, lb, ub), the next point
 * (lift_clip). */
PyObject *wk_fused_level(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (wk_nargs(nargs, 12, "fused_level") < 0 || wk_daqp_not_bound("fused_level") || wk_load_lapack() < 0)
        return NULL;
    wk_mat A, Z, C;
    const double *y, *r, *xbar;
    if (wk_level_args(args, &A, &y, &r, &Z, &xbar) < 0 || wk_matrix_or_none(args[5], -1, A.cols, "C", &C) < 0)
        return NULL;
    Py_ssize_t m = A.rows, n = A.cols, k = Z.data ? Z.cols : n, mc = C.data ? C.rows : 0;
    const double *lo, *hi, *lb, *ub;
    if (optional_sides(args + 6, mc, (const char *[]){"lo", "hi"}, &lo, &hi) < 0 ||
        optional_sides(args + 8, n, (const char *[]){"lb", "ub"}, &lb, &ub) < 0)
        return NULL;
    const double *settings = wk_vector(args[10], 19, 0, "settings");
    double tol = settings ? PyFloat_AsDouble(args[11]) : -1.0;
    if (settings == NULL || wk_daqp_settings_ok(settings) < 0 || (tol == -1.0 && PyErr_Occurred()))
        return NULL;
    int on_z = Z.data != NULL;
    if (C.data && (lo == NULL || hi == NULL)) {
        PyErr_SetString(PyExc_ValueError, "fused_level: rows C need both sides");
        return NULL;
    }
    if (!on_z && (C.data || lb == NULL || ub == NULL)) {
        PyErr_SetString(PyExc_ValueError, "fused_level: without Z, bounds on both sides and no rows C");
        return NULL;
    }
    if (n + mc > INT_MAX / 2) {
        PyErr_SetString(PyExc_ValueError, "fused_level: too large");
        return NULL;
    }
    Py_ssize_t mr = on_z ? mc + n : n; /* (most rows DAQP may see) */
    npy_intp dk[1] = {k};
    PyArrayObject *wo = (PyArrayObject *)PyArray_SimpleNew(1, dk, NPY_DOUBLE);
    PyArrayObject *to = wo ? (PyArrayObject *)PyArray_SimpleNew(1, dk, NPY_DOUBLE) : NULL;
    size_t nd = (size_t)(m + k * k + 2 * k + 3 * mr) + (on_z ? (size_t)(m * k + mr * k + mc * k + mc) : 0);
    double *buf = to ? PyMem_Malloc((nd > 0 ? nd : 1) * sizeof(double)) : NULL;
    npy_intp *idx = buf ? PyMem_Malloc((size_t)(mr + 1) * sizeof(npy_intp)) : NULL;
    int *sense = idx ? PyMem_Calloc((size_t)(mr + 1), sizeof(int)) : NULL; /* (0: an inequality) */
    PyObject *out = NULL;
    if (sense == NULL) {
        if (to != NULL)
            PyErr_NoMemory();
        goto done;
    }
    double *e = buf, *H = e + m, *g = H + k * k, *s = g + k, *l = s + k, *h = l + mr, *lam = h + mr;
    double *AZd = lam + mr, *M = AZd + (on_z ? m * k : 0), *CZ = M + (on_z ? mr * k : 0), *Cx = CZ + mc * k;
    double *w = PyArray_DATA(wo), *t = PyArray_DATA(to);
    wk_mat AZ = A;
    if (on_z) {
        wk_matmul(&A, &Z, AZd);
        AZ = (wk_mat){AZd, m, k, k, 1};
    }
    if (wk_level_terms(&A, &AZ, &Z, y, r, xbar, e, H, g) < 0)
        goto done;
    Py_ssize_t rows = n, nc = 0, nb = 0;
    if (on_z) {
        if (level_rows(&C, lo, hi, &Z, xbar, lb, ub, CZ, Cx, M, l, h, idx, &nc, idx + mc, &nb) < 0)
            rows = -1;
        else
            rows = nc + nb;
    } else {
        for (Py_ssize_t i = 0; i < n; i++) {
            l[i] = xbar ? lb[i] - xbar[i] : lb[i];
            h[i] = xbar ? ub[i] - xbar[i] : ub[i];
        }
    }
    verdict v = {0.0, 0.0, 0.0, 0};
    int iterations = 0, flag = 0;
    if (rows > 0) {
        Py_BEGIN_ALLOW_THREADS
        flag = wk_daqp_run((int)k, (int)rows, on_z ? 0 : (int)n, H, g, on_z ? M : NULL, h, l, sense, settings,
                           w, lam, &iterations);
        Py_END_ALLOW_THREADS
    }
    if (flag > 0 && all_finite(k, w)) {
        if (wk_ls_gradient_core(&AZ, e, r, &Z, xbar, w, t, s) < 0)
            goto done;
        double c = 8.0 * (double)(k + 1) * DBL_EPSILON / tol; /* (the rounding allowance of kkt.py) */
        if (on_z) {
            wk_mat Mm = {M, rows, k, k, 1};
            v.primal = wk_rows_core(&Mm, l, h, w, lam, t, s, &v.smax);
            v.dual = wk_scaled_core(k, t, s, c);
            v.ok = v.dual <= tol && v.primal <= tol;
        } else {
            double worst = wk_natural_core(k, w, t, s, l, h, lam, &v.smax);
            v.primal = v.dual = worst / (1.0 + c);
            v.ok = worst <= tol * (1.0 + c) && v.primal <= tol;
        }
    }
    if (!v.ok) {
        out = Py_None;
        Py_INCREF(out);
        goto done;
    }
    npy_intp dn[1] = {n};
    PyArrayObject *xo = (PyArrayObject *)PyArray_SimpleNew(1, dn, NPY_DOUBLE);
    if (xo == NULL)
        goto done;
    wk_lift_clip_core(&Z, n, k, w, xbar, lb, ub, PyArray_DATA(xo));
    if (on_z) {
        npy_intp dz[1] = {rows};
        PyArrayObject *zo = (PyArrayObject *)PyArray_SimpleNew(1, dz, NPY_DOUBLE);
        if (zo == NULL) {
            Py_DECREF(xo);
            goto done;
        }
        memcpy(PyArray_DATA(zo), lam, (size_t)rows * sizeof(double));
        out = Py_BuildValue("(NNOdddNNiiN)", wo, zo, Py_None, v.primal, v.dual, v.smax,
                            indices(idx, C.data ? nc : -1), indices(idx + mc, (lb || ub) ? nb : -1), flag,
                            iterations, xo);
    } else {
        out = Py_BuildValue("(NONdddOOiiN)", wo, Py_None, to, v.primal, v.dual, v.smax, Py_None, Py_None, flag,
                            iterations, xo);
        to = NULL; /* (stolen by the tuple) */
    }
    wo = NULL;
done:
    PyMem_Free(sense);
    PyMem_Free(idx);
    PyMem_Free(buf);
    Py_XDECREF(wo);
    Py_XDECREF(to);
    return out;
}
