/* Feedback laws of wbcpy.controllers evaluated at the robot's state (the reference bindings' hot path).
 *
 * Pose error e = (p_d − p, log₃(R_d Rᵀ)) (world axes at the tip: the errors of CartesianPD), then
 * reference = K_p e − K_d ẋ + c with ẋ = J v (the acceleration laws) or without the rate term (the
 * velocity laws); c holds the feed-forward part fixed when the target was set.
 */
#include <math.h>

#include "kernels.h"

/* w = log(R) for a rotation matrix R (row-major 3×3): axis × angle, angle in [0, π].
 *
 * With c = cos θ = (tr R − 1)/2 and s·a = vee(R − Rᵀ)/2 (s = sin θ ≥ 0), θ = atan2(s, c). Away from π the
 * axis comes from the skew part, w = (θ/s)·vee(R − Rᵀ)/2 (θ/s → 1 as θ → 0). Near π the skew part
 * vanishes, and the axis comes from the symmetric part instead: (R + Rᵀ)/2 − c I = (1 − c) a aᵀ, whose
 * column with the largest diagonal entry gives a up to sign; the sign is the skew part's. */
static void log3_rowmajor(const double *R, double *w)
{
    double vx = 0.5 * (R[7] - R[5]), vy = 0.5 * (R[2] - R[6]), vz = 0.5 * (R[3] - R[1]);
    double c = 0.5 * (R[0] + R[4] + R[8] - 1.0);
    c = c > 1.0 ? 1.0 : (c < -1.0 ? -1.0 : c);
    double s = sqrt(vx * vx + vy * vy + vz * vz);
    double theta = atan2(s, c);
    if (c > -0.9) {
        double f = s > 0.0 ? theta / s : 1.0;
        w[0] = f * vx;
        w[1] = f * vy;
        w[2] = f * vz;
        return;
    }
    double B[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            B[3 * i + j] = 0.5 * (R[3 * i + j] + R[3 * j + i]) - (i == j ? c : 0.0);
    int k = 0;
    if (B[4] > B[3 * k + k])
        k = 1;
    if (B[8] > B[3 * k + k])
        k = 2;
    double norm = sqrt(B[3 * k + k] * (1.0 - c));
    double a[3] = {B[k] / norm, B[3 + k] / norm, B[6 + k] / norm};
    if (a[0] * vx + a[1] * vy + a[2] * vz < 0.0)
        theta = -theta;
    w[0] = theta * a[0];
    w[1] = theta * a[1];
    w[2] = theta * a[2];
}

void wk_log3_of_product(const wk_mat *A, const wk_mat *B, int transpose_b, double *w)
{
    double R[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double sum = 0.0;
            for (int k = 0; k < 3; k++)
                sum += WK_AT(*A, i, k) * (transpose_b ? WK_AT(*B, j, k) : WK_AT(*B, k, j));
            R[3 * i + j] = sum;
        }
    log3_rowmajor(R, w);
}

PyObject *wk_log3(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (wk_nargs(nargs, 2, "log3") < 0 || wk_disjoint_outputs(args, nargs, 1u << 1, "log3") < 0)
        return NULL;
    wk_mat R, E;
    double eye[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    if (wk_matrix(args[0], 3, 3, 0, "R", &R) < 0)
        return NULL;
    double *w = wk_vector(args[1], 3, 1, "w");
    if (w == NULL)
        return NULL;
    E.data = eye;
    E.rows = E.cols = 3;
    E.rs = 3;
    E.cs = 1;
    wk_log3_of_product(&R, &E, 0, w);
    Py_RETURN_NONE;
}

/* out[i] = kp[i] e[i] − kd[i] rate[i] + c[i] (rate or kd NULL: no rate term) */
static void combine(double *out, const double *e, const double *rate, const double *kp, const double *kd,
                    const double *c, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++)
        out[i] = kp[i] * e[i] + c[i] - (rate && kd ? kd[i] * rate[i] : 0.0);
}

/* the optional rate inputs (J, v, kd) of a law: all given, or all None */
static int rate_args(PyObject *a, PyObject *b, PyObject *c, const char *func)
{
    int given = (a != Py_None) + (b != Py_None) + (c != Py_None);
    if (given != 0 && given != 3) {
        PyErr_Format(PyExc_TypeError, "%s: the rate inputs and kd are all given or all None", func);
        return -1;
    }
    return given;
}

PyObject *wk_pose_law(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (wk_nargs(nargs, 11, "pose_law") < 0 || wk_disjoint_outputs(args, nargs, 1u | 1u << 1, "pose_law") < 0)
        return NULL;
    int rate = rate_args(args[6], args[7], args[9], "pose_law");
    if (rate < 0)
        return NULL;
    double *out = wk_vector(args[0], 6, 1, "out");
    double *e = out ? wk_vector(args[1], 6, 1, "error") : NULL;
    wk_mat Rd, R, J;
    double pd_buf[3];
    const double *pd;
    if (e == NULL)
        return NULL;
    if (args[3] == Py_None) { /* Rd is the target's 4×4 homogeneous matrix: its blocks */
        if (wk_matrix(args[2], 4, 4, 0, "Md", &Rd) < 0)
            return NULL;
        for (int i = 0; i < 3; i++)
            pd_buf[i] = WK_AT(Rd, i, 3);
        Rd.rows = Rd.cols = 3;
        pd = pd_buf;
    } else {
        if (wk_matrix(args[2], 3, 3, 0, "Rd", &Rd) < 0)
            return NULL;
        pd = wk_vector(args[3], 3, 0, "pd");
    }
    if (pd == NULL)
        return NULL;
    double p_buf[3];
    const double *p;
    if (args[5] == Py_None) { /* R is the 4×4 homogeneous matrix of the pose: its blocks */
        wk_mat M;
        if (wk_matrix(args[4], 4, 4, 0, "M", &M) < 0)
            return NULL;
        for (int i = 0; i < 3; i++)
            p_buf[i] = WK_AT(M, i, 3);
        R = M;
        R.rows = R.cols = 3;
        p = p_buf;
    } else {
        if (wk_matrix(args[4], 3, 3, 0, "R", &R) < 0)
            return NULL;
        p = wk_vector(args[5], 3, 0, "p");
    }
    if (p == NULL || wk_matrix_or_none(args[6], 6, -1, "J", &J) < 0)
        return NULL;
    int none;
    const double *v = wk_vector_or_none(args[7], J.cols, 0, "v", &none);
    const double *kp = (none || v) ? wk_vector(args[8], 6, 0, "kp") : NULL;
    const double *kd = kp ? wk_vector_or_none(args[9], 6, 0, "kd", &none) : NULL;
    const double *c = (kp && (none || kd)) ? wk_vector(args[10], 6, 0, "const") : NULL;
    if (c == NULL)
        return NULL;
    for (int i = 0; i < 3; i++)
        e[i] = pd[i] - p[i];
    wk_log3_of_product(&Rd, &R, 1, e + 3);
    double xdot[6];
    if (rate) {
        for (int i = 0; i < 6; i++) {
            double sum = 0.0;
            for (Py_ssize_t j = 0; j < J.cols; j++)
                sum += WK_AT(J, i, j) * v[j];
            xdot[i] = sum;
        }
    }
    combine(out, e, rate ? xdot : NULL, kp, kd, c, 6);
    Py_RETURN_NONE;
}

PyObject *wk_vector_law(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (wk_nargs(nargs, 7, "vector_law") < 0 || wk_disjoint_outputs(args, nargs, 1u, "vector_law") < 0)
        return NULL;
    int rate = rate_args(args[3], args[5], args[5], "vector_law");
    Py_ssize_t n = rate < 0 ? -1 : wk_length(args[0], "out");
    if (n < 0)
        return NULL;
    double *out = wk_vector(args[0], n, 1, "out");
    const double *target = out ? wk_vector(args[1], n, 0, "target") : NULL;
    const double *x = target ? wk_vector(args[2], n, 0, "x") : NULL;
    const double *r = (x && rate) ? wk_vector(args[3], n, 0, "rate") : NULL;
    const double *kp = (x && (!rate || r)) ? wk_vector(args[4], n, 0, "kp") : NULL;
    const double *kd = (kp && rate) ? wk_vector(args[5], n, 0, "kd") : NULL;
    const double *c = (kp && (!rate || kd)) ? wk_vector(args[6], n, 0, "const") : NULL;
    if (c == NULL)
        return NULL;
    double e[64], *err = n <= 64 ? e : PyMem_Malloc(n * sizeof(double));
    if (err == NULL)
        return PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < n; i++)
        err[i] = target[i] - x[i];
    combine(out, err, r, kp, kd, c, n);
    if (err != e)
        PyMem_Free(err);
    Py_RETURN_NONE;
}

PyObject *wk_joint_law(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (wk_nargs(nargs, 9, "joint_law") < 0 || wk_disjoint_outputs(args, nargs, 1u, "joint_law") < 0)
        return NULL;
    int rate = rate_args(args[4], args[5], args[7], "joint_law");
    Py_ssize_t n = rate < 0 ? -1 : wk_length(args[0], "out");
    Py_ssize_t nq = n < 0 ? -1 : wk_length(args[2], "q");
    if (nq < 0)
        return NULL;
    double *out = wk_vector(args[0], n, 1, "out");
    const double *target = out ? wk_vector(args[1], n, 0, "target") : NULL;
    const double *q = target ? wk_vector(args[2], nq, 0, "q") : NULL;
    const npy_intp *qi = q ? wk_index(args[3], n, nq, "q_index") : NULL;
    if (qi == NULL)
        return NULL;
    const double *v = NULL, *kd = NULL;
    const npy_intp *vi = NULL;
    if (rate) {
        Py_ssize_t nv = wk_length(args[4], "v");
        v = nv < 0 ? NULL : wk_vector(args[4], nv, 0, "v");
        vi = v ? wk_index(args[5], n, nv, "v_index") : NULL;
        kd = vi ? wk_vector(args[7], n, 0, "kd") : NULL;
        if (kd == NULL)
            return NULL;
    }
    const double *kp = wk_vector(args[6], n, 0, "kp");
    const double *c = kp ? wk_vector(args[8], n, 0, "const") : NULL;
    if (c == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (qi[i] < 0 || (vi && vi[i] < 0)) {
            PyErr_SetString(PyExc_IndexError, "joint_law: every index must be >= 0");
            return NULL;
        }
    }
    for (Py_ssize_t i = 0; i < n; i++)
        out[i] = kp[i] * (target[i] - q[qi[i]]) + c[i] - (rate ? kd[i] * v[vi[i]] : 0.0);
    Py_RETURN_NONE;
}

/* transform_error(M) -> (err, det): for a 3×3 rotation or a 3×4 / 4×4 rigid transform M, err =
 * max |RᵀR − I| of its top-left 3×3 block R (inf when an entry of the first three rows is not finite)
 * and det R (the validation of targets: wbcpy._validation.check_homogeneous). */
PyObject *wk_transform_error(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (wk_nargs(nargs, 1, "transform_error") < 0)
        return NULL;
    wk_mat M;
    if (wk_matrix(args[0], -1, -1, 0, "M", &M) < 0)
        return NULL;
    if (M.rows < 3 || M.cols < 3 || M.rows > 4 || M.cols > 4) {
        PyErr_SetString(PyExc_ValueError, "transform_error: expected a 3x3, 3x4 or 4x4 matrix");
        return NULL;
    }
    double R[9];
    int finite = 1;
    for (int i = 0; i < 3; i++)
        for (Py_ssize_t j = 0; j < M.cols; j++) {
            double a = WK_AT(M, i, j);
            finite &= isfinite(a) != 0;
            if (j < 3)
                R[3 * i + j] = a;
        }
    if (!finite)
        return Py_BuildValue("dd", INFINITY, 0.0);
    double err = 0.0;
    for (int a = 0; a < 3; a++)
        for (int b = a; b < 3; b++) {
            double s = R[a] * R[b] + R[3 + a] * R[3 + b] + R[6 + a] * R[6 + b] - (a == b ? 1.0 : 0.0);
            err = fabs(s) > err ? fabs(s) : err;
        }
    double det = R[0] * (R[4] * R[8] - R[5] * R[7]) - R[1] * (R[3] * R[8] - R[5] * R[6]) +
                 R[2] * (R[3] * R[7] - R[4] * R[6]);
    return Py_BuildValue("dd", err, det);
}
