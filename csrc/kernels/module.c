/* Module definition of wbcpy._kernels and the BLAS / LAPACK routines taken from SciPy. */
#define WBCPY_KERNELS_MODULE
#include "kernels.h"

wk_dgemm_t wk_dgemm = NULL;
wk_dtrsv_t wk_dtrsv = NULL;
wk_dtrsm_t wk_dtrsm = NULL;
wk_dgemv_t wk_dgemv = NULL;
wk_dgeqp3_t wk_dgeqp3 = NULL;
wk_dormqr_t wk_dormqr = NULL;
wk_dpotrf_t wk_dpotrf = NULL;
wk_dpotrs_t wk_dpotrs = NULL;

/* The function pointer published by a Cython module in its __pyx_capi__ dict (a capsule per function). */
static void *capsule_function(PyObject *capi, const char *name)
{
    PyObject *cap = PyDict_GetItemString(capi, name); /* borrowed */
    if (cap == NULL || !PyCapsule_CheckExact(cap)) {
        PyErr_Format(PyExc_ImportError, "wbcpy._kernels: SciPy does not export %s", name);
        return NULL;
    }
    return PyCapsule_GetPointer(cap, PyCapsule_GetName(cap));
}

static PyObject *module_capi(const char *module)
{
    PyObject *mod = PyImport_ImportModule(module);
    if (mod == NULL)
        return NULL;
    PyObject *capi = PyObject_GetAttrString(mod, "__pyx_capi__");
    Py_DECREF(mod);
    if (capi != NULL && !PyDict_Check(capi)) {
        Py_DECREF(capi);
        PyErr_Format(PyExc_ImportError, "wbcpy._kernels: %s.__pyx_capi__ is not a dict", module);
        return NULL;
    }
    return capi;
}

int wk_load_lapack(void)
{
    if (wk_dgemm != NULL && wk_dtrsv != NULL && wk_dtrsm != NULL && wk_dgemv != NULL && wk_dgeqp3 != NULL &&
        wk_dormqr != NULL && wk_dpotrf != NULL && wk_dpotrs != NULL)
        return 0;
    PyObject *blas = module_capi("scipy.linalg.cython_blas");
    if (blas == NULL)
        return -1;
    wk_dgemm = (wk_dgemm_t)capsule_function(blas, "dgemm");
    wk_dtrsv = (wk_dtrsv_t)capsule_function(blas, "dtrsv");
    wk_dtrsm = (wk_dtrsm_t)capsule_function(blas, "dtrsm");
    wk_dgemv = (wk_dgemv_t)capsule_function(blas, "dgemv");
    Py_DECREF(blas);
    if (wk_dgemm == NULL || wk_dtrsv == NULL || wk_dtrsm == NULL || wk_dgemv == NULL)
        return -1;
    PyObject *lapack = module_capi("scipy.linalg.cython_lapack");
    if (lapack == NULL)
        return -1;
    wk_dgeqp3 = (wk_dgeqp3_t)capsule_function(lapack, "dgeqp3");
    wk_dormqr = (wk_dormqr_t)capsule_function(lapack, "dormqr");
    wk_dpotrf = (wk_dpotrf_t)capsule_function(lapack, "dpotrf");
    wk_dpotrs = (wk_dpotrs_t)capsule_function(lapack, "dpotrs");
    Py_DECREF(lapack);
    return (wk_dgeqp3 == NULL || wk_dormqr == NULL || wk_dpotrf == NULL || wk_dpotrs == NULL) ? -1 : 0;
}

#define KERNEL(name, doc) {#name, (PyCFunction)(void (*)(void))wk_##name, METH_FASTCALL, doc}

static PyMethodDef methods[] = {
    KERNEL(state_copy, "state_copy(x, n, limit) -> copy of x, or None\n\n"
                       "A contiguous copy of x when x is a float64 ndarray of shape (n,) whose entries all lie in "
                       "[-limit, limit] (NaN does not); None otherwise (the caller then reports why)."),
    KERNEL(normalize_blocks, "normalize_blocks(q, blocks, tol) -> None or (start, length, norm)\n\n"
                             "Renormalise q's unit blocks ((k, 2) intp starts and lengths) in place; the first "
                             "block off unit norm by more than tol is returned instead (q unchanged)."),
    KERNEL(joint_limits, "joint_limits(q, v, q_index, params, dt) -> (lb, ub)\n\n"
                         "Bounds on joint accelerations over one step (wbcpy.scenes.joint_limits): "
                         "params rows qmin, qmax, vmax, amax, brake_upper, brake_lower (6 x nv); new arrays."),
    KERNEL(velocity_limits, "velocity_limits(q, q_index, params, k, lb, ub)\n\n"
                            "Bounds on joint velocities over one step (wbcpy.scenes.velocity_limits): params rows "
                            "k qmin, k qmax, vmax (3 x nv)."),
    KERNEL(log3, "log3(R, w)\n\nw = log(R) (axis times angle) of a 3x3 rotation R."),
    KERNEL(pose_law, "pose_law(out, error, Rd, pd, R, p, J, v, kp, kd, const)\n\n"
                     "error = (pd - p, log3(Rd R^T)); out = kp*error - kd*(J v) + const (J, v, kd None: no rate "
                     "term; p None: R is the pose's 4x4 homogeneous matrix; pd None: Rd is the target's)."),
    KERNEL(vector_law, "vector_law(out, target, x, rate, kp, kd, const)\n\n"
                       "out = kp*(target - x) - kd*rate + const (rate, kd None: no rate term)."),
    KERNEL(joint_law, "joint_law(out, target, q, q_index, v, v_index, kp, kd, const)\n\n"
                      "out = kp*(target - q[q_index]) - kd*v[v_index] + const (v, v_index, kd None: no rate "
                      "term)."),
    KERNEL(transform_error, "transform_error(M) -> (max |R^T R - I|, det R) of the 3x3 block of a rotation or "
                            "rigid transform (inf when an entry of its first three rows is not finite)."),
    KERNEL(weighted_rows, "weighted_rows(A_out, y_out, J, target, bias, sw)\n\n"
                          "A_out = sw[:, None] * J, y_out = sw * (target - bias) (sw, bias None: 1, 0; A_out, J None: "
                          "y_out only)."),
    KERNEL(ls_gradient, "ls_gradient(AZ, e0, r, Z, xbar, w) -> (t, scale)\n\n"
                        "Gradient of 1/2 |AZ w + e0|^2 + 1/2 sum r (Z w + xbar)^2 and its componentwise scale."),
    KERNEL(natural_residual, "natural_residual(x, t, scale, lb, ub, z_box) -> (residual, max scale)\n\n"
                             "max |x - clip(x - D t, lb, ub)| / (1 + |x|), D = (1 + |x|) / scale; with bound "
                             "multipliers z_box all zero, max(|t| / scale, relative bound violations)."),
    KERNEL(rows_excess, "rows_excess(M, lo, hi, x, tol) -> max excess of lo <= M x <= hi beyond "
                        "tol (1 + |M||x| + |side|) (<= 0: every row holds)."),
    KERNEL(point_outside, "point_outside(x, lb, ub, C, lo, hi, tol) -> True when x is below lb - tol (1 + |lb|) "
                          "or above ub + tol (1 + |ub|), or C x below lo - tol (1 + |C x|) or above hi + tol "
                          "(1 + |C x|) (lb, ub, C may be None; NaN: neither)."),
    KERNEL(box_certificate, "box_certificate(AZ, e0, r, Z, xbar, x, lb, ub, z_box) -> (residual, max scale, t, "
                            "scale): ls_gradient and natural_residual in one pass."),
    KERNEL(rows_certificate, "rows_certificate(AZ, e0, r, Z, xbar, x, C, lo, hi, z, c) -> (dual, compl, max scale, "
                             "t, scale): ls_gradient, rows_residual and scaled_error in one pass."),
    KERNEL(bounds_gap, "bounds_gap(lb, ub) -> min(ub - lb) (inf when empty, NaN with a NaN bound)."),
    KERNEL(all_finite, "all_finite(x) -> True when every entry of the float64 vector x is finite."),
    KERNEL(rows_residual, "rows_residual(C, lo, hi, x, z, t, scale) -> (residual, max scale)\n\n"
                          "Adds C^T z to t and |C|^T |z| to scale; returns the rows' natural residual."),
    KERNEL(scaled_error, "scaled_error(r, scale, c) -> float\n\n"
                         "max |r| / (scale (1 + c) + 1e-300): the componentwise stationarity error."),
    KERNEL(nullspace_update, "nullspace_update(S, f, Z, xbar, rank_tol) -> (Z', xbar', rank, residual)\n\n"
                             "Fix the directions of the rows S (unit-normalised, pivoted QR of (S Z)^T): Z' = Z Q2; "
                             "with targets f, xbar moves to meet S x = f (residual > 0: inconsistent)."),
    KERNEL(kept_rows, "kept_rows(M, v, lo, hi, drop_constant) -> (M_kept, lo - v, hi - v, rows) or None\n\n"
                      "Rows bounded on at least one side; with drop_constant, rows of M that vanish are dropped "
                      "once v meets them (None when one does not)."),
    KERNEL(pin_rows, "pin_rows(A, k, xbar, blocks, C) -> None or (cols, kept, values, xbar_kept, rows, C_kept, "
                     "C_shift): the variables A's selection rows pin and the kept variables' problem data."),
    KERNEL(split_bounds, "split_bounds(lb, ub, fix_tol) -> (free, fixed, values, lb_free, ub_free, lb_open, "
                         "ub_open) or (None, bad): the variables bounds fix, or the inconsistent bounds."),
    KERNEL(split_columns, "split_columns(M, free, fixed, values) -> (M[:, free], M[:, fixed] @ values)."),
    KERNEL(level_equations, "level_equations(A, y, r, Z, xbar) -> (AZ, e, H, g)\n\n"
                            "A level |A x - y|^2 + sum r x^2 on x = xbar + Z w: AZ = A Z, e = A xbar - y, "
                            "H = AZ^T AZ + Z^T diag(r) Z, g = AZ^T e + Z^T (r xbar)."),
    {"matmul", (PyCFunction)(void (*)(void))wk_matmul_py, METH_FASTCALL,
     "matmul(A, B) -> A B, a new array (BLAS for large dense A; loops that skip A's zeros otherwise)."},
    KERNEL(lift_clip, "lift_clip(Z, w, xbar, lb, ub) -> clip(xbar + Z w, lb, ub), a new array."),
    KERNEL(regulariser_inert, "regulariser_inert(r, Z) -> max |r_i Z_ij| <= 1e-9 max r (True for r = 0)."),
    KERNEL(dynamics_rows, "dynamics_rows(M, h, J, acc, u, a, n) -> (E, f, T, h_a): E = [M_u, -J_u^T; J, 0], "
                          "f = [-h_u; -acc], T = [M_a, -J_a^T], h_a = h[a] (n columns, new arrays)."),
    KERNEL(in_box, "in_box(y, lo, hi) -> True when no entry of y lies below lo or above hi (NaN: neither)."),
    KERNEL(daqp_bind, "daqp_bind(path) -> bool: bind daqp_quadprog of the loaded shared object at path (DAQP "
                      "0.11's C API; its settings layout checked). The binding is published once, under a lock: "
                      "after a successful call, later calls return True and change nothing."),
    KERNEL(daqp_defaults, "daqp_defaults() -> the bound DAQP's default settings (float64, struct order)."),
    KERNEL(daqp_solve, "daqp_solve(H, f, A, bupper, blower, sense, settings) -> (x, lam, exitflag, iterations)"
                       "\n\nDAQP's daqp_quadprog on the arrays as given (as daqp.solve without a warm start)."),
    KERNEL(strong_entries, "strong_entries(v, tau) -> the indices i with |v_i| > tau, or None when there is none."),
    KERNEL(fused_level, "fused_level(A, y, r, Z, xbar, C, lo, hi, lb, ub, settings, tol, ls_start) -> (w, z, t, "
                        "primal, dual, max scale, c_rows, b_rows, exitflag, iterations, x, marginal, retried, active) "
                        "or None\n\nA hierarchy level built, solved by DAQP (cold; ls_start not None: its unconstrained "
                        "least-squares minimiser nearest ls_start tried first) and certified as the Python path does; None when that "
                        "path must decide."),
    KERNEL(dls_search, "dls_search(fk, q_try, R_d, p_d, lo, hi, acc, mode, phase, max_iter) -> (status, iterations, "
                       "err, q)"
                       "\n\nThe damped least-squares IK search of wbcpy.ik.dls on the state acc, kinematics from "
                       "fk(q) -> (M, J), at most max_iter iterations; status 0/4: a step proposed in q_try (4: "
                       "below the pause tolerance), 1 converged, 2 stuck, 3 no step; err and q (a new array): the accepted "
                       "point. See csrc/kernels/dls.c."),
    KERNEL(frame_classical_acceleration,
           "frame_classical_acceleration(R, t, v, a) -> the frame's classical acceleration (6, world axes at the "
           "frame origin, linear then angular; a new array) from its parent joint's world rotation R (3x3), the "
           "frame's offset t (joint axes) and the joint's spatial velocity v and acceleration a (6, joint axes: "
           "linear then angular), as Pinocchio's getFrameClassicalAcceleration (LOCAL_WORLD_ALIGNED)."),
    KERNEL(swing_sample, "swing_sample(M, vel, acc, ends, h, t)\n\nThe swinging sole of a WalkingPattern at time t: its "
                         "placement into M's first three rows, its velocity and acceleration (6 each, world axes) "
                         "into vel and acc, from ends = (t0, Ts, p_a (3), p_b - p_a (3), yaw_a, dyaw) and the apex h "
                         "(ends None: the buffers checked only; see csrc/kernels/pattern_samples.c)."),
    KERNEL(dcm_sample, "dcm_sample(table, k, w, t, z) -> (COM position, velocity, acceleration, ZMP, DCM) of a "
                       "WalkingPattern's plan at time t on row k of its table (0: the start phase), a new array "
                       "of 13 (see csrc/kernels/pattern_samples.c)."),
    KERNEL(frame_pose, "frame_pose(R, p, Rt, t) -> the frame's world placement as a 4x4 homogeneous matrix (a new "
                       "array) from its parent joint's world rotation R and position p and the frame's rotation Rt "
                       "and offset t in the joint: [[R Rt, p + R t], [0, 0, 0, 1]]."),
    KERNEL(frame_jacobian, "frame_jacobian(J, R, p, t, columns) -> the frame's Jacobian (6 x nv, world axes at the "
                           "frame origin p_f = p + R t, linear then angular; a new array) from Pinocchio's joint "
                           "Jacobians J (6 x nv): columns (J_v - p_f x w, w) on the given DOFs, zero elsewhere, as "
                           "Pinocchio's getFrameJacobian (LOCAL_WORLD_ALIGNED)."),
    KERNEL(level_copy, "level_copy(A, y) -> (A, y) copied into new contiguous arrays in one call."),
    /* (a test entry point, private: the package's caller is the box level, which calls wk_cholesky itself) */
    {"_cholesky_solve", (PyCFunction)(void (*)(void))wk_cholesky_solve_py, METH_FASTCALL,
     "_cholesky_solve(H, b, floor) -> x (a new array) or None\n\nThe solution of H x = b by the upper Cholesky factor "
     "H = U^T U of the symmetric positive definite H (only its lower triangle is read); None when a pivot^2 is not "
     "positive and at least floor (the box level's test, csrc/kernels/cholesky.c)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    "wbcpy._kernels",
    "Compiled inner loops of wbcpy's control step (see csrc/kernels/kernels.h).",
    -1,
    methods,
};

PyMODINIT_FUNC PyInit__kernels(void)
{
    import_array();
    return PyModule_Create(&module); /* (BLAS / LAPACK: loaded by the first kernel that needs them) */
}
