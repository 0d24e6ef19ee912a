/* Frame quantities from the kinematics of the frame's parent joint.
 *
 * A frame f fixed on the body of joint i, at t (joint axes) from the joint origin; the joint's world
 * rotation R, its spatial velocity v = (ν, ω) and acceleration a = (α, ω̇) in joint axes at the joint
 * origin (Pinocchio's data.oMi[i].rotation, data.v[i], data.a[i]). In world axes at the frame origin
 * (LOCAL_WORLD_ALIGNED), rotation commuting with the cross product:
 *
 *     velocity      (R (ν + ω × t), R ω)
 *     spatial acc.  (R (α + ω̇ × t), R ω̇)
 *     classical     spatial + (ω_w × v_w, 0) = (R (α + ω̇ × t + ω × (ν + ω × t)), R ω̇)
 *
 * the last being the acceleration of the frame origin and the frame's angular acceleration, Pinocchio's
 * getFrameClassicalAcceleration(model, data, f, LOCAL_WORLD_ALIGNED): after forwardKinematics(q, v, 0)
 * it is J̇q̇ of the frame (the bias of a frame task's rows).
 *
 * With the joint's world position p and the frame's rotation Rt in the joint, the frame's world placement
 * is (R Rt, p + R t) (Pinocchio's oMi[i] * frame.placement). Its Jacobian in world axes at the frame
 * origin p_f = p + R t, from Pinocchio's joint Jacobians data.J (column j: the motion of DOF j's axis in
 * world axes, linear part at the world origin, over the angular part ω_j), is column by column
 * (J_v,j − p_f × ω_j, ω_j) on the DOFs that support the joint, zero on the others: Pinocchio's
 * getFrameJacobian(model, data, f, LOCAL_WORLD_ALIGNED). */
#include "kernels.h"

static void cross(const double *u, const double *w, double *out)
{
    out[0] = u[1] * w[2] - u[2] * w[1];
    out[1] = u[2] * w[0] - u[0] * w[2];
    out[2] = u[0] * w[1] - u[1] * w[0];
}

PyObject *wk_frame_classical_acceleration(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (wk_nargs(nargs, 4, "frame_classical_acceleration") < 0)
        return NULL;
    wk_mat R;
    if (wk_matrix(args[0], 3, 3, 0, "R", &R) < 0)
        return NULL;
    const double *t = wk_vector(args[1], 3, 0, "t");
    const double *v = t ? wk_vector(args[2], 6, 0, "v") : NULL;
    const double *a = v ? wk_vector(args[3], 6, 0, "a") : NULL;
    if (a == NULL)
        return NULL;
    npy_intp d[1] = {6};
    PyArrayObject *res = (PyArrayObject *)PyArray_SimpleNew(1, d, NPY_DOUBLE);
    if (res == NULL)
        return NULL;
    double *out = (double *)PyArray_DATA(res);
    double wt[3], vt[3], wvt[3], lin[3];
    const double *w = v + 3, *wd = a + 3;
    cross(w, t, wt); /* ω × t */
    for (int k = 0; k < 3; k++)
        vt[k] = v[k] + wt[k]; /* ν + ω × t: the frame origin's velocity, joint axes */
    cross(w, vt, wvt);
    cross(wd, t, lin); /* ω̇ × t */
    for (int k = 0; k < 3; k++)
        lin[k] += a[k] + wvt[k];
    for (int i = 0; i < 3; i++) {
        double sl = 0.0, sa = 0.0;
        for (int k = 0; k < 3; k++) {
            sl += WK_AT(R, i, k) * lin[k];
            sa += WK_AT(R, i, k) * wd[k];
        }
        out[i] = sl;
        out[3 + i] = sa;
    }
    return (PyObject *)res;
}

/* p_f = p + R t, the sums in Pinocchio's order (R t first) */
static void frame_origin(const wk_mat *R, const double *p, const double *t, double *pf)
{
    for (int i = 0; i < 3; i++)
        pf[i] = p[i] + (WK_AT(*R, i, 0) * t[0] + WK_AT(*R, i, 1) * t[1] + WK_AT(*R, i, 2) * t[2]);
}

PyObject *wk_frame_pose(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (wk_nargs(nargs, 4, "frame_pose") < 0)
        return NULL;
    wk_mat R, Rt;
    if (wk_matrix(args[0], 3, 3, 0, "R", &R) < 0)
        return NULL;
    const double *p = wk_vector(args[1], 3, 0, "p");
    if (p == NULL || wk_matrix(args[2], 3, 3, 0, "Rt", &Rt) < 0)
        return NULL;
    const double *t = wk_vector(args[3], 3, 0, "t");
    if (t == NULL)
        return NULL;
    npy_intp d[2] = {4, 4};
    PyArrayObject *res = (PyArrayObject *)PyArray_SimpleNew(2, d, NPY_DOUBLE);
    if (res == NULL)
        return NULL;
    double *out = (double *)PyArray_DATA(res), pf[3];
    frame_origin(&R, p, t, pf);
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++)
            out[4 * i + j] = WK_AT(R, i, 0) * WK_AT(Rt, 0, j) + WK_AT(R, i, 1) * WK_AT(Rt, 1, j) +
                             WK_AT(R, i, 2) * WK_AT(Rt, 2, j);
        out[4 * i + 3] = pf[i];
        out[12 + i] = 0.0;
    }
    out[15] = 1.0;
    return (PyObject *)res;
}

PyObject *wk_frame_jacobian(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (wk_nargs(nargs, 5, "frame_jacobian") < 0)
        return NULL;
    wk_mat J, R;
    if (wk_matrix(args[0], 6, -1, 0, "J", &J) < 0 || wk_matrix(args[1], 3, 3, 0, "R", &R) < 0)
        return NULL;
    const double *p = wk_vector(args[2], 3, 0, "p");
    const double *t = p ? wk_vector(args[3], 3, 0, "t") : NULL;
    if (t == NULL)
        return NULL;
    Py_ssize_t k = wk_index_length(args[4], "columns");
    const npy_intp *cols = k < 0 ? NULL : wk_index(args[4], k, J.cols, "columns");
    if (cols == NULL)
        return NULL;
    npy_intp d[2] = {6, J.cols};
    PyArrayObject *res = (PyArrayObject *)PyArray_ZEROS(2, d, NPY_DOUBLE, 0);
    if (res == NULL)
        return NULL;
    double *out = (double *)PyArray_DATA(res), pf[3], w[3], pw[3];
    Py_ssize_t n = J.cols;
    frame_origin(&R, p, t, pf);
    for (Py_ssize_t c = 0; c < k; c++) {
        Py_ssize_t j = cols[c];
        for (int i = 0; i < 3; i++)
            w[i] = WK_AT(J, 3 + i, j);
        cross(pf, w, pw);
        for (int i = 0; i < 3; i++) {
            out[i * n + j] = WK_AT(J, i, j) - pw[i];
            out[(3 + i) * n + j] = w[i];
        }
    }
    return (PyObject *)res;
}
