/* Joint limits as bounds over one control step: q̈ (acceleration scene) and q̇ (velocity scene).
 *
 * The formulas, their order and their clipping are documented in wbcpy/scenes/joint_limits.py and
 * wbcpy/scenes/velocity_limits.py; this is their per-DOF loop.
 */
#include <math.h>

#include "kernels.h"

/* min(x, hi) then max(·, lo): the clipping of the Python formulas (lo wins when lo > hi) */
static inline double clip(double x, double lo, double hi)
{
    double y = x < hi ? x : hi;
    return y > lo ? y : lo;
}

/* upper bound of q̈ from the braking (viability) stage: the next velocity must still stop within the
 * distance d at deceleration a (a = 0: the stage is off) */
static inline double braking(double a, double d, double rate, double idt2)
{
    if (!(a > 0.0))
        return INFINITY;
    double s = 2.0 * a * d * idt2 + a * a;
    return sqrt(s > 0.0 ? s : 0.0) - a - rate;
}

/* joint_limits(q, v, q_index, params, dt) -> (lb, ub), two new arrays (nv) */
PyObject *wk_joint_limits(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (wk_nargs(nargs, 5, "joint_limits") < 0)
        return NULL;
    Py_ssize_t nq = wk_length(args[0], "q");
    Py_ssize_t nv = wk_length(args[1], "v");
    if (nq < 0 || nv < 0)
        return NULL;
    const double *q = wk_vector(args[0], nq, 0, "q");
    const double *v = wk_vector(args[1], nv, 0, "v");
    const npy_intp *qi = q && v ? wk_index_or_absent(args[2], nv, nq, 1, "q_index") : NULL;
    wk_mat P;
    if (qi == NULL || wk_matrix(args[3], 6, nv, 0, "params", &P) < 0)
        return NULL;
    double dt = PyFloat_AsDouble(args[4]);
    if (PyErr_Occurred())
        return NULL;
    npy_intp dn[1] = {nv};
    PyObject *lbo = PyArray_SimpleNew(1, dn, NPY_DOUBLE), *ubo = lbo ? PyArray_SimpleNew(1, dn, NPY_DOUBLE) : NULL;
    if (ubo == NULL) {
        Py_XDECREF(lbo);
        return NULL;
    }
    double *lb = PyArray_DATA((PyArrayObject *)lbo), *ub = PyArray_DATA((PyArrayObject *)ubo);
    double idt = 1.0 / dt, idt2 = idt * idt;
    for (Py_ssize_t j = 0; j < nv; j++) {
        double qmin = WK_AT(P, 0, j), qmax = WK_AT(P, 1, j), vmax = WK_AT(P, 2, j), amax = WK_AT(P, 3, j);
        double rate = v[j] * idt, p = qi[j] >= 0 ? q[qi[j]] : 0.0;
        /* acceleration ∩ velocity: u = upper bound of q̈, w = upper bound of −q̈ */
        double u1 = clip(vmax * idt - rate, -amax, amax), w1 = clip(vmax * idt + rate, -amax, amax);
        /* ∩ position over one step, clipped into the interval so far */
        double d_up = qmax - p, d_low = p - qmin;
        double u2 = clip(2.0 * (d_up - v[j] * dt) * idt2, -w1, u1);
        double w2 = clip(2.0 * (d_low + v[j] * dt) * idt2, -u1, w1);
        /* ∩ braking, clipped into the position interval */
        double u3 = clip(braking(WK_AT(P, 4, j), d_up, rate, idt2), -w2, u2);
        double w3 = clip(braking(WK_AT(P, 5, j), d_low, -rate, idt2), -u2, w2);
        lb[j] = -w3;
        ub[j] = u3 > -w3 ? u3 : -w3;
    }
    return Py_BuildValue("(NN)", lbo, ubo);
}

PyObject *wk_velocity_limits(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (wk_nargs(nargs, 6, "velocity_limits") < 0 ||
        wk_disjoint_outputs(args, nargs, 1u << 4 | 1u << 5, "velocity_limits") < 0)
        return NULL;
    Py_ssize_t nq = wk_length(args[0], "q");
    Py_ssize_t nv = wk_length(args[4], "lb");
    if (nq < 0 || nv < 0)
        return NULL;
    const double *q = wk_vector(args[0], nq, 0, "q");
    const npy_intp *qi = q ? wk_index_or_absent(args[1], nv, nq, 1, "q_index") : NULL;
    wk_mat P;
    if (qi == NULL || wk_matrix(args[2], 3, nv, 0, "params", &P) < 0)
        return NULL;
    double k = PyFloat_AsDouble(args[3]);
    if (PyErr_Occurred())
        return NULL;
    double *lb = wk_vector(args[4], nv, 1, "lb");
    double *ub = lb ? wk_vector(args[5], nv, 1, "ub") : NULL;
    if (ub == NULL)
        return NULL;
    for (Py_ssize_t j = 0; j < nv; j++) {
        double kq = qi[j] >= 0 ? k * q[qi[j]] : 0.0, vmax = WK_AT(P, 2, j);
        lb[j] = clip(WK_AT(P, 0, j) - kq, -vmax, 0.0);
        ub[j] = clip(WK_AT(P, 1, j) - kq, 0.0, vmax);
    }
    Py_RETURN_NONE;
}

/* in_box(y, lo, hi) -> bool: no entry of y below lo or above hi (three float64 vectors of one length;
 * a NaN entry compares neither below nor above: as clip(y, lo, hi) == y bytewise, which leaves NaN) */
PyObject *wk_in_box(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (wk_nargs(nargs, 3, "in_box") < 0)
        return NULL;
    const double *y = wk_vector(args[0], -1, 0, "y");
    Py_ssize_t n = y ? PyArray_DIM((PyArrayObject *)args[0], 0) : 0;
    const double *lo = y ? wk_vector(args[1], n, 0, "lo") : NULL;
    const double *hi = lo ? wk_vector(args[2], n, 0, "hi") : NULL;
    if (hi == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++)
        if (y[i] < lo[i] || y[i] > hi[i])
            Py_RETURN_FALSE;
    Py_RETURN_TRUE;
}
