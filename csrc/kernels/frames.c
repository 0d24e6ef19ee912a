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
 * it is J̇q̇ of the frame (the bias of a frame task's rows). */
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
