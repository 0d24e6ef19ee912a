/* The damped least-squares (Levenberg–Marquardt) IK search of wbcpy.ik, compiled: the loop of
 * wbcpy.ik.dls._solve_from (its NumPy code is the definition: dls_step, pose_error and the accept rule;
 * tests/kernels/test_kernel_dls.py checks this kernel against it), with the kinematics from a Python
 * callable (Pinocchio through the chain: the only Python work left per iteration).
 *
 * dls_search(fk, q_try, R_d, p_d, lo, hi, acc, mode, phase, max_iter) -> (status, iterations, err, q)
 *
 * fk(q_try) returns (M, J) at q_try: M the 4×4 homogeneous tip pose (or an object whose `homogeneous` is
 * one: a pin.SE3), J the 6×n Jacobian (float64, any strides, not overlapping q_try or acc; fk must not
 * write q_try or acc). The search state lives in the caller's float64 vector acc (7n + 25 entries):
 *
 *     q (n) | J (6n, row-major) | R (9, row-major) | p (3) | e (6) | err | lam | tol | tol_pause | lam0
 *     | lam_min | max_step
 *
 * the accepted configuration, its Jacobian and tip pose, the pose error e = (p_d − p, log₃(R_d Rᵀ)) masked
 * by mode (0 FULL, 1 XYZ: rotation rows 0, 2 ANG: position rows 0), err = ‖e‖ and the damping λ; tol,
 * tol_pause, lam0 (the damping a start begins with), lam_min and max_step are read only.
 *
 * First, by phase:
 *   1 — q_try is a start: fk(q_try) is accepted as it is, λ = lam0;
 *   2 — new target, warm start: e and err are recomputed at the accepted pose, λ = min(λ, lam0);
 *   0 — q_try holds the step a previous call proposed (status 0 or 4): nothing.
 * Then iterations, at most max_iter, each as one pass of _solve_from's loop: when err ≥ tol and λ ≤ 1e6
 * (else status 1 — converged, or err NaN — or 2, stuck), the step Δq of dls_step (rows of the mode; joints
 * at a limit that Δq pushes outwards dropped, re-solved once; scaled to max|Δq| ≤ max_step) gives
 * q_try = clip(q + Δq, lo, hi) — status 3 when max|Δq| < 1e-14 (it counts as an iteration, as in
 * _solve_from) or the damped system is singular (non-finite entries only) — and fk(q_try)
 * is accepted when its error is below err (λ halves, not below lam_min) or rejected (λ triples).
 * The search also returns, with status 4 and the next step proposed in q_try, after an iteration that
 * leaves err < tol_pause (a caller with a budget per control step pauses there; tol_pause ≤ tol never
 * pauses). Status 0: max_iter iterations were used, the next step proposed in q_try. err and q (a new
 * array) are the accepted point's ‖e‖ and configuration.
 */
#include <math.h>
#include <string.h>

#include "kernels.h"

#define DLS_LAMBDA_MAX 1e6
#define DLS_TINY_STEP 1e-14

enum { DLS_STEP = 0, DLS_DONE = 1, DLS_STUCK = 2, DLS_NO_STEP = 3, DLS_PAUSE = 4 };

/* the views of acc (see the file comment) */
typedef struct {
    double *q, *J, *R, *p, *e, *err, *lam;
    double tol, tol_pause, lam0, lam_min, max_step;
} dls_state;

static dls_state state_of(double *acc, Py_ssize_t n)
{
    dls_state s;
    s.q = acc;
    s.J = acc + n;
    s.R = acc + 7 * n;
    s.p = s.R + 9;
    s.e = s.p + 3;
    s.err = s.e + 6;
    s.lam = s.err + 1;
    s.tol = s.lam[1];
    s.tol_pause = s.lam[2];
    s.lam0 = s.lam[3];
    s.lam_min = s.lam[4];
    s.max_step = s.lam[5];
    return s;
}

/* e = (p_d − p, log₃(R_d Rᵀ)) masked by mode, for R (strided 3×3) and p; returns ‖e‖ */
static double pose_error(const wk_mat *Rd, const double *pd, const wk_mat *R, const double *p, int mode,
                         double *e)
{
    for (int i = 0; i < 3; i++)
        e[i] = mode == 2 ? 0.0 : pd[i] - p[i];
    if (mode == 1)
        e[3] = e[4] = e[5] = 0.0;
    else
        wk_log3_of_product(Rd, R, 1, e + 3);
    double sum = 0.0;
    for (int i = 0; i < 6; i++)
        sum += e[i] * e[i];
    return sqrt(sum);
}

/* y = A⁻¹ b for the m×m A (row-major, m ≤ 6, overwritten) by Gaussian elimination with partial pivoting, as
 * np.linalg.solve (LAPACK dgesv) does: A = J_f J_fᵀ + λ² I is positive definite in exact arithmetic, but
 * with joints dropped and λ at its minimum its rounding can make a Cholesky pivot negative where LU goes
 * on. -1 when a pivot is zero or not finite (np.linalg.solve would raise: non-finite entries only) */
static int solve_small(double *A, int m, const double *b, double *y)
{
    for (int i = 0; i < m; i++)
        y[i] = b[i];
    for (int k = 0; k < m; k++) {
        int p = k;
        for (int i = k + 1; i < m; i++)
            if (fabs(A[i * m + k]) > fabs(A[p * m + k]))
                p = i;
        double d = A[p * m + k];
        if (d == 0.0 || !isfinite(d))
            return -1;
        if (p != k) {
            for (int j = 0; j < m; j++) {
                double t = A[k * m + j];
                A[k * m + j] = A[p * m + j];
                A[p * m + j] = t;
            }
            double t = y[k];
            y[k] = y[p];
            y[p] = t;
        }
        for (int i = k + 1; i < m; i++) {
            double f = A[i * m + k] / d;
            for (int j = k + 1; j < m; j++)
                A[i * m + j] -= f * A[k * m + j];
            y[i] -= f * y[k];
        }
    }
    for (int i = m - 1; i >= 0; i--) {
        double s = y[i];
        for (int j = i + 1; j < m; j++)
            s -= A[i * m + j] * y[j];
        y[i] = s / A[i * m + i];
    }
    return 0;
}

/* Δq = J_fᵀ (J_f J_fᵀ + λ² I)⁻¹ e over the rows [r0, r0 + m) of the accepted J and e, J_f = J with the
 * columns of `free` == 0 zeroed; -1 when the damped system cannot be factored */
static int damped_step(const dls_state *s, Py_ssize_t n, int r0, int m, const double *free, double *dq)
{
    double A[36], y[6];
    const double *J = s->J + (Py_ssize_t)r0 * n;
    for (int i = 0; i < m; i++)
        for (int k = 0; k <= i; k++) {
            double sum = 0.0;
            for (Py_ssize_t j = 0; j < n; j++)
                sum += J[i * n + j] * free[j] * J[k * n + j] * free[j];
            A[i * m + k] = A[k * m + i] = sum + (i == k ? *s->lam * *s->lam : 0.0);
        }
    if (solve_small(A, m, s->e + r0, y) < 0)
        return -1;
    for (Py_ssize_t j = 0; j < n; j++) {
        double sum = 0.0;
        for (int i = 0; i < m; i++)
            sum += J[i * n + j] * free[j] * y[i];
        dq[j] = sum;
    }
    return 0;
}

/* the step of dls_step into q_try (status 0), or status 3 */
static int propose(const dls_state *s, Py_ssize_t n, int mode, const double *lo, const double *hi, double *q_try,
                   double *work)
{
    int r0 = mode == 2 ? 3 : 0, m = mode == 0 ? 6 : 3;
    double *free = work, *dq = work + n;
    for (Py_ssize_t j = 0; j < n; j++)
        free[j] = 1.0;
    for (int pass = 0; pass < 2; pass++) { /* active set: drop joints blocked at a limit, re-solve once */
        if (damped_step(s, n, r0, m, free, dq) < 0)
            return DLS_NO_STEP;
        int blocked = 0;
        for (Py_ssize_t j = 0; j < n; j++) {
            const double *q = s->q;
            if ((q[j] <= lo[j] && dq[j] < 0.0) || (q[j] >= hi[j] && dq[j] > 0.0)) {
                free[j] = 0.0;
                dq[j] = 0.0;
                blocked = 1;
            }
        }
        if (!blocked)
            break;
    }
    double big = 0.0;
    for (Py_ssize_t j = 0; j < n; j++)
        big = fabs(dq[j]) > big ? fabs(dq[j]) : big;
    if (big > s->max_step)
        for (Py_ssize_t j = 0; j < n; j++)
            dq[j] *= s->max_step / big;
    if (big < DLS_TINY_STEP)
        return DLS_NO_STEP;
    for (Py_ssize_t j = 0; j < n; j++) { /* np.clip: max with lo, then min with hi */
        double x = s->q[j] + dq[j];
        x = x < lo[j] ? lo[j] : x;
        q_try[j] = x > hi[j] ? hi[j] : x;
    }
    return DLS_STEP;
}

/* accept (q_try, M, J) into the state: copies of the configuration, Jacobian, pose and error */
static void accept(dls_state *s, Py_ssize_t n, const double *q_try, const wk_mat *M, const wk_mat *J,
                   const double *e, double err)
{
    for (Py_ssize_t j = 0; j < n; j++)
        s->q[j] = q_try[j];
    for (int i = 0; i < 6; i++)
        for (Py_ssize_t j = 0; j < n; j++)
            s->J[i * n + j] = WK_AT(*J, i, j);
    for (int i = 0; i < 3; i++) {
        for (int k = 0; k < 3; k++)
            s->R[3 * i + k] = WK_AT(*M, i, k);
        s->p[i] = WK_AT(*M, i, 3);
    }
    for (int i = 0; i < 6; i++)
        s->e[i] = e[i];
    *s->err = err;
}

/* the status of the state after an accept/reject: 1 converged (or NaN), 2 stuck, else the next step in q_try
 * (0, or 4 when err is below tol_pause) or 3 (no step) */
static int next_step(const dls_state *s, Py_ssize_t n, int mode, const double *lo, const double *hi, double *q_try,
                     double *work)
{
    if (!(*s->err >= s->tol))
        return DLS_DONE;
    if (!(*s->lam <= DLS_LAMBDA_MAX))
        return DLS_STUCK;
    int status = propose(s, n, mode, lo, hi, q_try, work);
    return status == DLS_STEP && *s->err < s->tol_pause ? DLS_PAUSE : status;
}

/* fk(q_try): its pose M and Jacobian J (borrowed from *keep, *keep_h: the caller releases them); 0, or -1
 * with an exception set */
static int evaluate(PyObject *fk, PyObject *const *args, Py_ssize_t n, PyObject **keep, PyObject **keep_h,
                    wk_mat *M, wk_mat *J)
{
    PyObject *res = PyObject_CallOneArg(fk, args[1]);
    *keep = res;
    *keep_h = NULL;
    if (res == NULL)
        return -1;
    if (!PyTuple_Check(res) || PyTuple_GET_SIZE(res) != 2) {
        PyErr_SetString(PyExc_TypeError, "dls_search: fk(q) must return a tuple (M, J)");
        return -1;
    }
    PyObject *m = PyTuple_GET_ITEM(res, 0);
    static PyObject *name = NULL; /* "homogeneous", interned once (under the GIL) */
    if (name == NULL && (name = PyUnicode_InternFromString("homogeneous")) == NULL)
        return -1;
    PyObject *h = PyArray_Check(m) ? (Py_INCREF(m), m) : PyObject_GetAttr(m, name);
    *keep_h = h;
    if (h == NULL || wk_matrix(h, 4, 4, 0, "M", M) < 0 || wk_matrix(PyTuple_GET_ITEM(res, 1), 6, n, 0, "J", J) < 0)
        return -1;
    PyObject *all[4] = {args[1], args[6], h, PyTuple_GET_ITEM(res, 1)};
    return wk_disjoint_outputs(all, 4, 3u, "dls_search: fk's results and q_try, acc");
}

/* one evaluation of q_try: accept (phase 1: as a start, λ = lam0) or reject it; 0, or -1 with an exception */
static int evaluate_and_accept(PyObject *fk, PyObject *const *args, dls_state *s, Py_ssize_t n, const wk_mat *Rd,
                               const double *pd, int mode, int start, const double *q_try)
{
    PyObject *res, *h;
    wk_mat M, J;
    int rc = evaluate(fk, args, n, &res, &h, &M, &J);
    if (rc == 0) {
        double e[6], p[3] = {WK_AT(M, 0, 3), WK_AT(M, 1, 3), WK_AT(M, 2, 3)};
        double err = pose_error(Rd, pd, &M, p, mode, e);
        if (start || err < *s->err) {
            accept(s, n, q_try, &M, &J, e, err);
            *s->lam = start ? s->lam0 : (0.5 * *s->lam > s->lam_min ? 0.5 * *s->lam : s->lam_min);
        } else {
            *s->lam *= 3.0;
        }
    }
    Py_XDECREF(h);
    Py_XDECREF(res);
    return rc;
}

/* the integer argument o in [0, hi] (mode, phase, max_iter); -1 with an exception set otherwise */
static Py_ssize_t bounded_int(PyObject *o, Py_ssize_t hi, const char *name)
{
    Py_ssize_t v = PyLong_AsSsize_t(o);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (v < 0 || v > hi) {
        PyErr_Format(PyExc_ValueError, "dls_search: %s must be in [0, %zd], got %zd", name, hi, v);
        return -1;
    }
    return v;
}

PyObject *wk_dls_search(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (wk_nargs(nargs, 10, "dls_search") < 0 || wk_disjoint_outputs(args, nargs, 1u << 1 | 1u << 6, "dls_search") < 0)
        return NULL;
    if (!PyCallable_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "dls_search: fk must be callable");
        return NULL;
    }
    int mode = (int)bounded_int(args[7], 2, "mode");
    int phase = mode < 0 ? -1 : (int)bounded_int(args[8], 2, "phase");
    Py_ssize_t max_iter = phase < 0 ? -1 : bounded_int(args[9], PY_SSIZE_T_MAX, "max_iter");
    Py_ssize_t n = max_iter < 0 ? -1 : wk_length(args[1], "q_try");
    if (n < 0)
        return NULL;
    if (n < 1 || n > 4096) {
        PyErr_Format(PyExc_ValueError, "dls_search: expected 1 to 4096 joints, got %zd", n);
        return NULL;
    }
    double *q_try = wk_vector(args[1], n, 1, "q_try");
    wk_mat Rd;
    if (q_try == NULL || wk_matrix(args[2], 3, 3, 0, "R_d", &Rd) < 0)
        return NULL;
    const double *pd = wk_vector(args[3], 3, 0, "p_d");
    const double *lo = pd ? wk_vector(args[4], n, 0, "lo") : NULL;
    const double *hi = lo ? wk_vector(args[5], n, 0, "hi") : NULL;
    double *acc = hi ? wk_vector(args[6], 7 * n + 25, 1, "acc") : NULL;
    if (acc == NULL)
        return NULL;
    double buf[128], *work = n <= 64 ? buf : PyMem_Malloc(2 * (size_t)n * sizeof(double));
    if (work == NULL)
        return PyErr_NoMemory();
    dls_state s = state_of(acc, n);
    int status = DLS_STEP, failed = 0;
    if (phase == 2) { /* the accepted pose against the new target */
        wk_mat R = {s.R, 3, 3, 3, 1};
        *s.err = pose_error(&Rd, pd, &R, s.p, mode, s.e);
        *s.lam = *s.lam < s.lam0 ? *s.lam : s.lam0;
        status = next_step(&s, n, mode, lo, hi, q_try, work);
    } else if (phase == 1) {
        failed = evaluate_and_accept(args[0], args, &s, n, &Rd, pd, mode, 1, q_try) < 0;
        status = failed ? 0 : next_step(&s, n, mode, lo, hi, q_try, work);
    }
    Py_ssize_t it = 0; /* a search paused on entry still takes one iteration */
    while (!failed && (status == DLS_STEP || (status == DLS_PAUSE && it == 0)) && it < max_iter) {
        it++;
        failed = evaluate_and_accept(args[0], args, &s, n, &Rd, pd, mode, 0, q_try) < 0;
        status = failed ? 0 : next_step(&s, n, mode, lo, hi, q_try, work);
    }
    if (status == DLS_NO_STEP && it < max_iter)
        it++;
    if (work != buf)
        PyMem_Free(work);
    if (failed)
        return NULL;
    npy_intp dim = (npy_intp)n;
    PyObject *q = PyArray_SimpleNew(1, &dim, NPY_DOUBLE);
    if (q == NULL)
        return NULL;
    memcpy(PyArray_DATA((PyArrayObject *)q), s.q, (size_t)n * sizeof(double));
    return Py_BuildValue("(indN)", status, it, *s.err, q);
}
