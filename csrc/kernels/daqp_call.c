/* DAQP's C solver called directly: daqp_quadprog in the daqp Python module's own shared object.
 *
 * The daqp Python wrapper does Python-level work before and after the solver itself on every call
 * (argument conversion, output arrays, the info dictionary; its cost: docs/benchmarks.md). wbcpy's DAQP
 * backend hands its already validated float64 arrays to the same C function instead.
 *
 * DAQP's C API (api.h, types.h) passes structs; they are declared below as DAQP 0.11 defines them. The
 * backend binds only to a daqp release known to have this layout (wbcpy.qp.backends.daqp_direct), and the
 * binding checks it: daqp_default_settings must write DAQP 0.11's defaults at these offsets and nothing
 * beyond them. Otherwise, or where dlopen does not exist, the wrapper is used. */
#include "kernels.h"

#ifndef _WIN32
#include <dlfcn.h>
#endif
#include <limits.h>
#include <math.h>
#include <string.h>

typedef struct {
    int n, m, ms; /* variables, constraints (bounds first), bounds */
    double *H, *f, *A, *bupper, *blower;
    int *sense;
    int *break_points;
    int nh;
    int problem_type;
} daqp_problem;

typedef struct {
    double primal_tol, dual_tol, zero_tol, pivot_tol, progress_tol;
    int cycle_tol, iter_limit;
    double fval_bound, eps_prox, eta_prox, rho_soft, rel_subopt, abs_subopt, sing_tol, refactor_tol,
        time_limit, w_soft;
    int eq_reduction, presolve;
} daqp_settings;

typedef struct {
    double *x, *lam, fval, soft_slack;
    int exitflag, iter, nodes;
    double solve_time, setup_time;
} daqp_result;

/* the settings' fields in struct order (the order of daqp_defaults() and of daqp_solve's settings) */
#define N_SETTINGS WK_DAQP_SETTINGS

typedef void (*quadprog_t)(daqp_result *, daqp_problem *, daqp_settings *);
typedef void (*defaults_t)(daqp_settings *);
static quadprog_t quadprog = NULL;
static defaults_t defaults = NULL;

static void to_array(const daqp_settings *s, double *v)
{
    const double d[N_SETTINGS] = {s->primal_tol, s->dual_tol, s->zero_tol, s->pivot_tol, s->progress_tol,
                                  s->cycle_tol, s->iter_limit, s->fval_bound, s->eps_prox, s->eta_prox,
                                  s->rho_soft, s->rel_subopt, s->abs_subopt, s->sing_tol, s->refactor_tol,
                                  s->time_limit, s->w_soft, s->eq_reduction, s->presolve};
    memcpy(v, d, sizeof(d));
}

static void from_array(const double *v, daqp_settings *s)
{
    s->primal_tol = v[0], s->dual_tol = v[1], s->zero_tol = v[2], s->pivot_tol = v[3];
    s->progress_tol = v[4], s->cycle_tol = (int)v[5], s->iter_limit = (int)v[6], s->fval_bound = v[7];
    s->eps_prox = v[8], s->eta_prox = v[9], s->rho_soft = v[10], s->rel_subopt = v[11];
    s->abs_subopt = v[12], s->sing_tol = v[13], s->refactor_tol = v[14], s->time_limit = v[15];
    s->w_soft = v[16], s->eq_reduction = (int)v[17], s->presolve = (int)v[18];
}

/* 0 when the settings' integer fields (cycle_tol, iter_limit, eq_reduction, presolve) are whole numbers in
 * int's range and the others are not NaN; -1 with ValueError set otherwise (a NaN cast to int is undefined) */
int wk_daqp_settings_ok(const double *v)
{
    static const int int_fields[] = {5, 6, 17, 18};
    for (int i = 0; i < N_SETTINGS; i++) {
        if (isnan(v[i])) {
            PyErr_Format(PyExc_ValueError, "daqp settings: entry %d is NaN", i);
            return -1;
        }
    }
    for (int i = 0; i < 4; i++) {
        double x = v[int_fields[i]];
        if (!(x >= INT_MIN && x <= INT_MAX) || x != floor(x)) {
            PyErr_Format(PyExc_ValueError, "daqp settings: entry %d must be a whole number in int's range", int_fields[i]);
            return -1;
        }
    }
    return 0;
}

/* DAQP 0.11's defaults (constants.h; daqp_default_settings) */
static const double DEFAULTS_0_11[N_SETTINGS] = {1e-6, 1e-12, 1e-11, 1e-8, 1e-14, 10, 10000, 1e30, -1e-6,
                                                 -1.0, 1e-6, 0.0, 0.0, 3.7e-11, 1e-9, 0.0, 0.0, 0.0, 1.0};

/* The binding is published once: the two pointers are written together under bind_lock, by the first
 * successful daqp_bind, and never change afterwards (a later daqp_bind returns True at once). Readers load
 * them atomically, so a solve running in another thread (without the GIL) never sees a half-made binding. */
static PyThread_type_lock bind_lock = NULL;

static quadprog_t bound_quadprog(void)
{
    return __atomic_load_n(&quadprog, __ATOMIC_ACQUIRE);
}

/* the layout check: DAQP 0.11's defaults at our offsets, and nothing written past our struct */
static int same_layout(defaults_t d)
{
    union {
        daqp_settings s;
        double pad[4 * N_SETTINGS];
    } probe;
    memset(&probe, 0, sizeof(probe));
    d(&probe.s);
    double got[N_SETTINGS];
    to_array(&probe.s, got);
    int same = memcmp(got, DEFAULTS_0_11, sizeof(got)) == 0;
    const unsigned char *tail = (const unsigned char *)&probe + sizeof(daqp_settings);
    for (size_t i = 0; same && i < sizeof(probe) - sizeof(daqp_settings); i++)
        same = tail[i] == 0;
    return same;
}

/* daqp_bind(path) -> bool: bind to daqp_quadprog in the (already loaded) shared object at path, after
 * checking its settings layout; False, unbound, when the symbols or the layout differ; True at once when
 * a binding was published before */
PyObject *wk_daqp_bind(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (wk_nargs(nargs, 1, "daqp_bind") < 0)
        return NULL;
    const char *path = PyUnicode_AsUTF8(args[0]);
    if (path == NULL)
        return NULL;
#ifdef _WIN32
    (void)path;
    Py_RETURN_FALSE;
#else
    if (bind_lock == NULL) { /* (created under the GIL, which this function holds until here) */
        bind_lock = PyThread_allocate_lock();
        if (bind_lock == NULL)
            return PyErr_NoMemory();
    }
    if (bound_quadprog() != NULL)
        Py_RETURN_TRUE;
    int ok = 0;
    Py_BEGIN_ALLOW_THREADS
    PyThread_acquire_lock(bind_lock, WAIT_LOCK);
    if (bound_quadprog() != NULL) {
        ok = 1;
    } else {
        void *lib = dlopen(path, RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
        quadprog_t q = lib ? (quadprog_t)dlsym(lib, "daqp_quadprog") : NULL;
        defaults_t d = lib ? (defaults_t)dlsym(lib, "daqp_default_settings") : NULL;
        if (q != NULL && d != NULL && same_layout(d)) {
            __atomic_store_n(&defaults, d, __ATOMIC_RELEASE);
            __atomic_store_n(&quadprog, q, __ATOMIC_RELEASE); /* published last: readers test this one */
            ok = 1;
        }
    }
    PyThread_release_lock(bind_lock);
    Py_END_ALLOW_THREADS
    return PyBool_FromLong(ok);
#endif
}

/* daqp_quadprog on raw arrays (the problem of daqp_solve; settings in struct order): DAQP's exit flag, the
 * answer in x and lam (lam NULL when m = 0), the iteration count in *iterations. DAQP must be bound; the
 * GIL is not needed. */
int wk_daqp_run(int n, int m, int ms, double *H, const double *f, const double *A, const double *bu,
                const double *bl, int *sense, const double *settings, double *x, double *lam, int *iterations)
{
    daqp_problem p = {n, m, ms, H, (double *)f, (double *)A, m ? (double *)bu : NULL, m ? (double *)bl : NULL,
                      m ? sense : NULL, NULL, 0, 0};
    daqp_settings s;
    from_array(settings, &s);
    daqp_result r;
    memset(&r, 0, sizeof(r));
    r.x = x;
    r.lam = m ? lam : NULL;
    bound_quadprog()(&r, &p, &s);
    *iterations = r.iter;
    return r.exitflag;
}

/* nonzero, with RuntimeError set, while daqp_bind has not bound DAQP */
int wk_daqp_not_bound(const char *func)
{
    if (bound_quadprog() != NULL)
        return 0;
    PyErr_Format(PyExc_RuntimeError, "%s: DAQP is not bound (daqp_bind)", func);
    return 1;
}

/* daqp_defaults() -> the bound DAQP's default settings as a float64 array (struct order) */
PyObject *wk_daqp_defaults(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (wk_nargs(nargs, 0, "daqp_defaults") < 0)
        return NULL;
    if (wk_daqp_not_bound("daqp_defaults"))
        return NULL;
    daqp_settings s;
    __atomic_load_n(&defaults, __ATOMIC_ACQUIRE)(&s);
    npy_intp dims[1] = {N_SETTINGS};
    PyArrayObject *out = (PyArrayObject *)PyArray_SimpleNew(1, dims, NPY_DOUBLE);
    if (out != NULL)
        to_array(&s, PyArray_DATA(out));
    return (PyObject *)out;
}

/* DAQP reads H and A row-major and dense: rows of `cols` consecutive doubles, one after the other */
static int contiguous(const wk_mat *M, const char *name)
{
    if (M->rows > 0 && M->cols > 0 && !((M->cols == 1 || M->cs == 1) && (M->rows == 1 || M->rs == M->cols))) {
        PyErr_Format(PyExc_ValueError, "%s: expected a C-contiguous matrix", name);
        return -1;
    }
    return 0;
}

/* daqp_solve(H, f, A, bupper, blower, sense, settings) -> (x, lam, exitflag, iterations)
 *
 * min ½ xᵀHx + fᵀx s.t. blower ≤ [I_ms 0; A] x ≤ bupper (the first ms = m − rows(A) constraints bound
 * x_0 … x_ms−1), sense as DAQP's (5: equality); settings in struct order (daqp_defaults). As
 * daqp.solve without a warm start; the GIL is released during the solve. */
PyObject *wk_daqp_solve(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (wk_nargs(nargs, 7, "daqp_solve") < 0)
        return NULL;
    if (wk_daqp_not_bound("daqp_solve"))
        return NULL;
    wk_mat H, A;
    if (wk_matrix(args[0], -1, -1, 0, "H", &H) < 0 || contiguous(&H, "H") < 0)
        return NULL;
    Py_ssize_t n = H.rows;
    if (H.cols != n) {
        PyErr_SetString(PyExc_ValueError, "H: expected a square matrix");
        return NULL;
    }
    if (wk_matrix(args[2], -1, n, 0, "A", &A) < 0 || contiguous(&A, "A") < 0)
        return NULL;
    const double *f = wk_vector(args[1], n, 0, "f");
    if (f == NULL)
        return NULL;
    PyArrayObject *bu_o = (PyArrayObject *)args[3];
    Py_ssize_t m = PyArray_Check(args[3]) ? PyArray_SIZE(bu_o) : -1;
    const double *bu = wk_vector(args[3], -1, 0, "bupper");
    const double *bl = bu ? wk_vector(args[4], m, 0, "blower") : NULL;
    int *sense = bl ? wk_int_vector(args[5], m, "sense") : NULL;
    const double *opts = sense ? wk_vector(args[6], N_SETTINGS, 0, "settings") : NULL;
    if (opts == NULL || wk_daqp_settings_ok(opts) < 0)
        return NULL;
    Py_ssize_t ms = m - A.rows;
    if (ms < 0 || ms > n || n > INT_MAX || m > INT_MAX) {
        PyErr_SetString(PyExc_ValueError, "daqp_solve: need rows(A) <= size(bupper) <= n + rows(A)");
        return NULL;
    }
    npy_intp dn[1] = {n}, dm[1] = {m};
    /* zeros: DAQP leaves x and lam unwritten on some failures (no uninitialised memory handed out) */
    PyArrayObject *xo = (PyArrayObject *)PyArray_ZEROS(1, dn, NPY_DOUBLE, 0);
    PyArrayObject *lo = (PyArrayObject *)PyArray_ZEROS(1, dm, NPY_DOUBLE, 0);
    if (xo == NULL || lo == NULL) {
        Py_XDECREF(xo);
        Py_XDECREF(lo);
        return NULL;
    }
    int iterations, flag;
    Py_BEGIN_ALLOW_THREADS
    flag = wk_daqp_run((int)n, (int)m, (int)ms, H.data, f, A.rows ? A.data : NULL, bu, bl, sense, opts,
                       PyArray_DATA(xo), m ? PyArray_DATA(lo) : NULL, &iterations);
    Py_END_ALLOW_THREADS
    return Py_BuildValue("NNii", xo, lo, flag, iterations);
}
