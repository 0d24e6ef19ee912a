/* The rows of the equations of motion over x = (q̈, w) of an inverse-dynamics scene
 * (wbcpy.scenes.contact_constraints): M q̈ + h = Sᵀτ + J_cᵀ w split into its unactuated rows u (equalities,
 * with the rigid contacts J_c q̈ = −a_c) and its actuated rows a (the torques τ = T x + h_a). */
#include "kernels.h"

#include <string.h>

static const npy_intp *dof_index(PyObject *o, Py_ssize_t nv, const char *name, Py_ssize_t *count)
{
    *count = wk_index_length(o, name);
    return *count < 0 ? NULL : wk_index(o, *count, nv, name);
}

/* out[j] = M[i, j] for j < cols: one copy when the row is contiguous, else entry by entry */
static void copy_row(const wk_mat *M, Py_ssize_t i, double *out)
{
    const double *src = M->data + i * M->rs;
    if (M->cs == 1) {
        memcpy(out, src, (size_t)M->cols * sizeof(double));
        return;
    }
    for (Py_ssize_t j = 0; j < M->cols; j++)
        out[j] = src[j * M->cs];
}

/* a new (rows × cols) array, or a vector of `rows` entries when cols < 0, uninitialised: every entry is
 * written (the rows' columns past nv + rows(J) are zeroed with them) */
static PyArrayObject *empty(Py_ssize_t rows, Py_ssize_t cols)
{
    npy_intp d[2] = {rows, cols};
    return (PyArrayObject *)PyArray_EMPTY(cols < 0 ? 1 : 2, d, NPY_DOUBLE, 0);
}

/* row[from:n] = 0 */
static void zero_tail(double *row, Py_ssize_t from, Py_ssize_t n)
{
    for (Py_ssize_t j = from; j < n; j++)
        row[j] = 0.0;
}

/* dynamics_rows(M, h, J, acc, u, a, n) -> (E, f, T, h_a), new arrays
 *
 * With nv DOFs, mw = rows(J) contact rows and n ≥ nv + mw columns (q̈, then the wrenches):
 *     E = [M_u, −J_uᵀ; J, 0] ((|u| + mw) × n),  f = [−h_u; −acc],
 *     T = [M_a, −J_aᵀ] (|a| × n),               h_a = h[a],
 * M_u = M[u, :], J_u = J[:, u] (u, a: intp indices of the unactuated and actuated DOFs). */
PyObject *wk_dynamics_rows(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (wk_nargs(nargs, 7, "dynamics_rows") < 0)
        return NULL;
    wk_mat M, J;
    if (wk_matrix(args[0], -1, -1, 0, "M", &M) < 0)
        return NULL;
    Py_ssize_t nv = M.rows, nu, na;
    if (M.cols != nv) {
        PyErr_SetString(PyExc_ValueError, "M: expected a square matrix");
        return NULL;
    }
    if (wk_matrix(args[2], -1, nv, 0, "J", &J) < 0)
        return NULL;
    Py_ssize_t mw = J.rows;
    const double *h = wk_vector(args[1], nv, 0, "h");
    const double *acc = h ? wk_vector(args[3], mw, 0, "acc") : NULL;
    const npy_intp *u = acc ? dof_index(args[4], nv, "u", &nu) : NULL;
    const npy_intp *a = u ? dof_index(args[5], nv, "a", &na) : NULL;
    Py_ssize_t n = a ? PyLong_AsSsize_t(args[6]) : -1;
    if (a == NULL || (n == -1 && PyErr_Occurred()))
        return NULL;
    if (n < nv + mw) {
        PyErr_SetString(PyExc_ValueError, "dynamics_rows: n must be at least nv + rows(J)");
        return NULL;
    }
    PyArrayObject *Eo = empty(nu + mw, n), *fo = empty(nu + mw, -1), *To = empty(na, n), *ho = empty(na, -1);
    if (Eo == NULL || fo == NULL || To == NULL || ho == NULL) {
        Py_XDECREF(Eo);
        Py_XDECREF(fo);
        Py_XDECREF(To);
        Py_XDECREF(ho);
        return NULL;
    }
    double *E = PyArray_DATA(Eo), *f = PyArray_DATA(fo), *T = PyArray_DATA(To), *ha = PyArray_DATA(ho);
    for (Py_ssize_t i = 0; i < nu; i++) { /* M_u q̈ − J_uᵀ w = −h_u */
        double *row = E + i * n;
        copy_row(&M, u[i], row);
        for (Py_ssize_t k = 0; k < mw; k++)
            row[nv + k] = -WK_AT(J, k, u[i]);
        zero_tail(row, nv + mw, n);
        f[i] = -h[u[i]];
    }
    for (Py_ssize_t k = 0; k < mw; k++) { /* J q̈ = −a_c */
        copy_row(&J, k, E + (nu + k) * n);
        zero_tail(E + (nu + k) * n, nv, n);
        f[nu + k] = -acc[k];
    }
    for (Py_ssize_t i = 0; i < na; i++) { /* τ_a = M_a q̈ − J_aᵀ w + h_a */
        double *row = T + i * n;
        copy_row(&M, a[i], row);
        for (Py_ssize_t k = 0; k < mw; k++)
            row[nv + k] = -WK_AT(J, k, a[i]);
        zero_tail(row, nv + mw, n);
        ha[i] = h[a[i]];
    }
    return Py_BuildValue("NNNN", Eo, fo, To, ho);
}
