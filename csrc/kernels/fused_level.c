/* A hierarchy level built, solved and certified in one call (wbcpy.qp.level_solver's compiled path).
 *
 * The level ‖A x − y‖² + Σ r x² with lb ≤ x ≤ ub on x = x̄ + Z w is what the Python path makes of it
 * (wbcpy.qp.level_qp.build_level), in its two common shapes:
 *
 * - no null space (Z None): H = AᵀA + diag r, g = Aᵀ(A x̄ − y) + r∘x̄ and the bounds lb − x̄ ≤ w ≤ ub − x̄,
 *   checked by the box certificate (kkt.certify_box);
 * - on a null space without inequality rows of the levels above: H and g of level_equations (on AZ = A Z),
 *   the bounds as the rows lb − x̄ ≤ Z w ≤ ub − x̄ (kept_rows: rows bounded on neither side dropped, rows
 *   of Z shorter than 1e-9 dropped after checking x̄ against them), checked by the rows certificate
 *   (kkt._certify_rows).
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

/* The bounds as rows of Z, as kept_rows keeps them: the kept rows (nk × k, row-major) in C, their sides
 * minus x̄ in lo / hi and their indices in rows; returns nk, or -1 when a constant row is violated. */
static Py_ssize_t bound_rows(const wk_mat *Z, const double *xbar, const double *lb, const double *ub, double *C,
                             double *lo, double *hi, npy_intp *rows)
{
    Py_ssize_t nk = 0, k = Z->cols;
    for (Py_ssize_t i = 0; i < Z->rows; i++) {
        if (isinf(lb[i]) && lb[i] < 0 && isinf(ub[i]) && ub[i] > 0)
            continue;
        double s = 0.0, v = xbar ? xbar[i] : 0.0;
        for (Py_ssize_t j = 0; j < k; j++)
            s += WK_AT(*Z, i, j) * WK_AT(*Z, i, j);
        if (sqrt(s) <= 1e-9) {
            double tl = 1e-9 * (1.0 + (isfinite(lb[i]) ? fabs(lb[i]) : 0.0));
            double th = 1e-9 * (1.0 + (isfinite(ub[i]) ? fabs(ub[i]) : 0.0));
            if (v < lb[i] - tl || v > ub[i] + th)
                return -1;
            continue;
        }
        for (Py_ssize_t j = 0; j < k; j++)
            C[nk * k + j] = WK_AT(*Z, i, j);
        lo[nk] = lb[i] - v;
        hi[nk] = ub[i] - v;
        rows[nk++] = i;
    }
    return nk;
}

typedef struct {
    double primal, dual, smax;
    int ok;
} verdict;

/* fused_level(A, y, r, Z, xbar, lb, ub, settings, tol)
 *   -> (w, z, t, primal, dual, max scale, b_rows, exitflag, iterations) or None
 *
 * w the answer; without Z: z None, t = H w + g (least-squares form), b_rows None; with Z: z the rows'
 * multipliers, t None, b_rows the indices of the bounds kept as rows. primal, dual and max scale are the
 * certificate's (residuals, stationarity scale minus 1). */
PyObject *wk_fused_level(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (wk_nargs(nargs, 9, "fused_level") < 0 || wk_daqp_not_bound("fused_level") || wk_load_lapack() < 0)
        return NULL;
    wk_mat A, Z;
    if (wk_matrix(args[0], -1, -1, 0, "A", &A) < 0 || wk_matrix_or_none(args[3], A.cols, -1, "Z", &Z) < 0)
        return NULL;
    Py_ssize_t m = A.rows, n = A.cols, k = Z.data ? Z.cols : n;
    int no_x;
    const double *y = wk_vector(args[1], m, 0, "y");
    const double *r = y ? wk_vector(args[2], n, 0, "r") : NULL;
    const double *xbar = r ? wk_vector_or_none(args[4], n, 0, "xbar", &no_x) : NULL;
    if (r == NULL || (xbar == NULL && !no_x))
        return NULL;
    const double *lb = wk_vector(args[5], n, 0, "lb");
    const double *ub = lb ? wk_vector(args[6], n, 0, "ub") : NULL;
    const double *settings = ub ? wk_vector(args[7], 19, 0, "settings") : NULL;
    double tol = settings ? PyFloat_AsDouble(args[8]) : -1.0;
    if (settings == NULL || (tol == -1.0 && PyErr_Occurred()))
        return NULL;
    if (n > INT_MAX / 2) {
        PyErr_SetString(PyExc_ValueError, "fused_level: too many variables");
        return NULL;
    }
    int on_z = Z.data != NULL;
    npy_intp dk[1] = {k}, dn[1] = {n};
    PyArrayObject *wo = (PyArrayObject *)PyArray_SimpleNew(1, dk, NPY_DOUBLE);
    PyArrayObject *to = wo ? (PyArrayObject *)PyArray_SimpleNew(1, dk, NPY_DOUBLE) : NULL;
    PyArrayObject *ro = to ? (PyArrayObject *)PyArray_SimpleNew(1, dn, NPY_INTP) : NULL; /* (kept rows) */
    size_t nd = (size_t)(m + k * k + 2 * k + 3 * n) + (on_z ? (size_t)(m * k + n * k) : 0);
    double *buf = ro ? PyMem_Malloc((nd > 0 ? nd : 1) * sizeof(double)) : NULL;
    int *sense = buf ? PyMem_Calloc(n > 0 ? (size_t)n : 1, sizeof(int)) : NULL; /* (0: an inequality) */
    PyObject *out = NULL;
    if (sense == NULL) {
        if (ro != NULL)
            PyErr_NoMemory();
        goto done;
    }
    double *e = buf, *H = e + m, *g = H + k * k, *s = g + k, *lo = s + k, *hi = lo + n, *lam = hi + n;
    double *AZd = lam + n, *Cd = AZd + (on_z ? m * k : 0), *w = PyArray_DATA(wo), *t = PyArray_DATA(to);
    wk_mat AZ = A;
    if (on_z) {
        wk_matmul(&A, &Z, AZd);
        AZ = (wk_mat){AZd, m, k, k, 1};
    }
    if (wk_level_terms(&A, &AZ, &Z, y, r, xbar, e, H, g) < 0)
        goto done;
    Py_ssize_t rows = n;
    if (on_z) {
        rows = bound_rows(&Z, xbar, lb, ub, Cd, lo, hi, PyArray_DATA(ro));
    } else {
        for (Py_ssize_t i = 0; i < n; i++) {
            lo[i] = no_x ? lb[i] : lb[i] - xbar[i];
            hi[i] = no_x ? ub[i] : ub[i] - xbar[i];
        }
    }
    verdict v = {0.0, 0.0, 0.0, 0};
    int iterations = 0, flag = 0;
    if (rows > 0) {
        Py_BEGIN_ALLOW_THREADS
        flag = wk_daqp_run((int)k, (int)rows, on_z ? 0 : (int)n, H, g, on_z ? Cd : NULL, hi, lo, sense, settings,
                           w, lam, &iterations);
        Py_END_ALLOW_THREADS
    }
    if (flag > 0 && all_finite(k, w)) {
        if (wk_ls_gradient_core(&AZ, e, r, &Z, xbar, w, t, s) < 0)
            goto done;
        double c = 8.0 * (double)(k + 1) * DBL_EPSILON / tol; /* (the rounding allowance of kkt.py) */
        if (on_z) {
            wk_mat C = {Cd, rows, k, k, 1};
            v.primal = wk_rows_core(&C, lo, hi, w, lam, t, s, &v.smax);
            v.dual = wk_scaled_core(k, t, s, c);
            v.ok = v.dual <= tol && v.primal <= tol;
        } else {
            double worst = wk_natural_core(k, w, t, s, lo, hi, lam, &v.smax);
            v.primal = v.dual = worst / (1.0 + c);
            v.ok = worst <= tol * (1.0 + c) && v.primal <= tol;
        }
    }
    if (!v.ok) {
        out = Py_None;
        Py_INCREF(out);
        goto done;
    }
    if (on_z) {
        npy_intp dz[1] = {rows};
        PyArrayObject *zo = (PyArrayObject *)PyArray_SimpleNew(1, dz, NPY_DOUBLE);
        PyArrayObject *bo = zo ? (PyArrayObject *)PyArray_SimpleNew(1, dz, NPY_INTP) : NULL;
        if (bo == NULL) {
            Py_XDECREF(zo);
            goto done;
        }
        memcpy(PyArray_DATA(zo), lam, (size_t)rows * sizeof(double));
        memcpy(PyArray_DATA(bo), PyArray_DATA(ro), (size_t)rows * sizeof(npy_intp));
        out = Py_BuildValue("(NNOdddNii)", wo, zo, Py_None, v.primal, v.dual, v.smax, bo, flag, iterations);
    } else {
        out = Py_BuildValue("(NONdddOii)", wo, Py_None, to, v.primal, v.dual, v.smax, Py_None, flag, iterations);
    }
    wo = NULL; /* (stolen by the tuple) */
    if (!on_z)
        to = NULL;
done:
    PyMem_Free(sense);
    PyMem_Free(buf);
    Py_XDECREF(wo);
    Py_XDECREF(to);
    Py_XDECREF(ro);
    return out;
}
