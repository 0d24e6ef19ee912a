/* Samples of a wbcpy.locomotion.WalkingPattern at one time: its COM / DCM / ZMP plan (dcm_sample) and its
 * swinging sole (swing_sample). Each is the arithmetic of the pattern's Python formulas in the same order
 * (libm's exp, cos, sin and pow as Python's math and ** call them): the same numbers.
 *
 * The swinging sole moves from its last placement a to its footstep b over the single-support phase [t_0, t_0 + T_s]:
 * with s = (t − t_0)/T_s clamped to [0, 1], the minimum-jerk blend m(s) = 10s³ − 15s⁴ + 6s⁵ and the bump
 * z(s) = 64 u³, u = s(1 − s) (apex 1 at s = ½), the position is p_a + m (p_b − p_a) plus the height h·z,
 * the yaw ψ_a + m Δψ; velocities and accelerations by the chain rule (1/T_s, 1/T_s² per derivative), linear
 * over angular in world axes (the formulas of profiles.min_jerk, profiles.bump and the pattern's swing).
 *
 * The plan (wbcpy/locomotion/_dcm.py, in closed form): on a linear ZMP segment [t_a, t_b] per axis
 * p = p_a + ṗ (t − t_a), ξ = p + ṗ/ω + C e^{ω(t − t_b)}, x = p + ½ C e^{ω(t − t_b)} + E e^{−ω(t − t_a)}; in the
 * start phase the cubic DCM ξ = a0 + a1 t + a2 t² + a3 t³, p = ξ − ξ̇/ω and
 * x = ξ − ξ̇/ω + ξ̈/ω² − ξ⃛/ω³ + E₀ e^{−ω t}; then ẋ = ω (ξ − x), ẍ = ω² (x − p). */
#include <math.h>
#include <string.h>

#include "kernels.h"

/* libm's pow, called as Python's float ** int calls it (the compiler would turn pow(x, 2.0) into x·x, which
 * may differ from it in the last bit) */
static double (*volatile power)(double, double) = pow;

/* swing_sample(M, vel, acc, ends, h, t)
 *
 * ends = (t_0, T_s, p_a (3), p_b − p_a (3), ψ_a, Δψ) (10 entries, T_s > 0); writes M's first three rows
 * [[R_z(ψ), p]] (its last row left as it is), vel and acc (6 each); ends None: the buffers are checked (as
 * for writing) and nothing is written. */
PyObject *wk_swing_sample(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (wk_nargs(nargs, 6, "swing_sample") < 0)
        return NULL;
    wk_mat M;
    if (wk_matrix(args[0], 4, 4, 1, "M", &M) < 0)
        return NULL;
    double *vel = wk_vector(args[1], 6, 1, "vel");
    double *acc = vel ? wk_vector(args[2], 6, 1, "acc") : NULL;
    if (acc == NULL || wk_disjoint_outputs(args, nargs, 7u, "swing_sample") < 0)
        return NULL;
    if (args[3] == Py_None) /* (the buffers checked only) */
        Py_RETURN_NONE;
    const double *e = wk_vector(args[3], 10, 0, "ends");
    double h = e ? PyFloat_AsDouble(args[4]) : 0.0;
    double t = (e && !PyErr_Occurred()) ? PyFloat_AsDouble(args[5]) : 0.0;
    if (e == NULL || PyErr_Occurred())
        return NULL;
    double t0 = e[0], Ts = e[1], ax = e[2], ay = e[3], az = e[4], dx = e[5], dy = e[6], dz_ = e[7];
    double ya = e[8], dyaw = e[9];
    double s = (t - t0) / Ts;
    s = s > 0.0 ? (s < 1.0 ? s : 1.0) : 0.0; /* (clamped into [0, 1]; t and ends are the caller's finite numbers) */
    double s2 = s * s; /* (min_jerk's Horner forms) */
    double m = s2 * s * (10.0 + s * (6.0 * s - 15.0));
    double dm = s2 * (30.0 + s * (30.0 * s - 60.0));
    double ddm = s * (60.0 + s * (120.0 * s - 180.0));
    double u = s * (1.0 - s), du = 1.0 - 2.0 * s, ddu = -2.0; /* (bump's) */
    double z = 64.0 * power(u, 3.0);
    double dz = 192.0 * power(u, 2.0) * du;
    double ddz = 64.0 * (6.0 * u * power(du, 2.0) + 3.0 * power(u, 2.0) * ddu);
    double T2 = power(Ts, 2.0);
    double v1 = dm / Ts, a1 = ddm / T2;
    vel[0] = v1 * dx, vel[1] = v1 * dy, vel[2] = v1 * dz_ + h * dz / Ts;
    vel[3] = 0.0, vel[4] = 0.0, vel[5] = dyaw * dm / Ts;
    acc[0] = a1 * dx, acc[1] = a1 * dy, acc[2] = a1 * dz_ + h * ddz / T2;
    acc[3] = 0.0, acc[4] = 0.0, acc[5] = dyaw * ddm / T2;
    double yaw = ya + m * dyaw, c = cos(yaw), sn = sin(yaw);
    const double row[3][4] = {{c, -sn, 0.0, ax + m * dx}, {sn, c, 0.0, ay + m * dy}, {0.0, 0.0, 1.0, az + m * dz_ + h * z}};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++)
            WK_AT(M, i, j) = row[i][j];
    Py_RETURN_NONE;
}

/* one axis of the start phase at t (cubic a[0..3], homogeneous term E, decay e^{−ω t}): x, ξ, p */
static void start_axis(const double *a, double E, double w, double t, double decay, double *x, double *xi, double *p)
{
    double v = a[0] + t * (a[1] + t * (a[2] + t * a[3]));
    double d1 = a[1] + t * (2.0 * a[2] + 3.0 * a[3] * t);
    double d2 = 2.0 * a[2] + 6.0 * a[3] * t;
    double d3 = 6.0 * a[3];
    double xp = v - d1 / w + d2 / power(w, 2.0) - d3 / power(w, 3.0);
    *x = xp + E * decay;
    *xi = v;
    *p = v - d1 / w;
}

/* dcm_sample(table, k, w, t, z) -> (x, y, z, ẋ, ẏ, 0, ẍ, ÿ, 0, p_x, p_y, ξ_x, ξ_y), a new array
 *
 * table: the plan's rows of 10 floats, row 0 the start phase (a0..a3 of x, a0..a3 of y, E₀ of x and y), row
 * k ≥ 1 a segment (t_a, t_b, then per axis p_a, ṗ, C, E); w = ω (1/s), z the COM height (m). */
PyObject *wk_dcm_sample(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (wk_nargs(nargs, 5, "dcm_sample") < 0)
        return NULL;
    wk_mat T;
    if (wk_matrix(args[0], -1, 10, 0, "table", &T) < 0)
        return NULL;
    Py_ssize_t k = PyLong_AsSsize_t(args[1]);
    double w = PyFloat_AsDouble(args[2]), t = PyFloat_AsDouble(args[3]), z = PyFloat_AsDouble(args[4]);
    if (PyErr_Occurred())
        return NULL;
    if (k < 0 || k >= T.rows) {
        PyErr_SetString(PyExc_IndexError, "dcm_sample: k outside the table");
        return NULL;
    }
    double r[10], x[2], xi[2], p[2];
    for (int j = 0; j < 10; j++)
        r[j] = WK_AT(T, k, j);
    if (k == 0) {
        double decay = exp(-w * t);
        for (int j = 0; j < 2; j++)
            start_axis(r + 4 * j, r[8 + j], w, t, decay, x + j, xi + j, p + j);
    } else {
        double ta = r[0], tb = r[1], grow = exp(w * (t - tb)), decay = exp(-w * (t - ta));
        for (int j = 0; j < 2; j++) {
            const double *a = r + 2 + 4 * j; /* (p_a, ṗ, C, E) */
            p[j] = a[0] + a[1] * (t - ta);
            xi[j] = p[j] + a[1] / w + a[2] * grow;
            x[j] = p[j] + 0.5 * a[2] * grow + a[3] * decay;
        }
    }
    npy_intp d[1] = {13};
    PyArrayObject *o = (PyArrayObject *)PyArray_SimpleNew(1, d, NPY_DOUBLE);
    if (o == NULL)
        return NULL;
    double ww = w * w, *v = PyArray_DATA(o);
    const double out[13] = {x[0], x[1], z, w * (xi[0] - x[0]), w * (xi[1] - x[1]), 0.0, ww * (x[0] - p[0]),
                            ww * (x[1] - p[1]), 0.0, p[0], p[1], xi[0], xi[1]};
    memcpy(v, out, sizeof(out));
    return (PyObject *)o;
}
