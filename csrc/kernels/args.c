/* Argument checks shared by the kernels, in one place: every array a kernel reads or writes passes here.
 *
 * Accepted: numpy arrays of the exact element type (float64, intp or int32), in native byte order, aligned
 * (data and strides multiples of the element size), with the number of dimensions asked for; vectors
 * contiguous; matrices with any strides (negative too). Anything else — a byte-swapped or misaligned
 * array, a 0-d array, another dtype — raises TypeError or ValueError naming the argument: the kernels read
 * raw memory and must never see bytes they would misread. Outputs must not overlap any other argument
 * (wk_disjoint_outputs), so that no kernel reads an input it has already overwritten. */
#include <math.h>

#include "kernels.h"

/* an array of element type `type` with `ndim` dimensions, native byte order and aligned; else NULL with
 * TypeError (not an array, wrong type or rank) or ValueError (byte order, alignment) set */
static PyArrayObject *typed_array(PyObject *o, int type, int ndim, const char *tname, const char *name)
{
    if (!PyArray_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s: expected a numpy array, got %.100s", name, Py_TYPE(o)->tp_name);
        return NULL;
    }
    PyArrayObject *a = (PyArrayObject *)o;
    if (PyArray_TYPE(a) != type || PyArray_NDIM(a) != ndim) {
        PyErr_Format(PyExc_TypeError, "%s: expected a %d-D %s array, got a %d-D %.50s array", name, ndim, tname,
                     PyArray_NDIM(a), PyArray_DESCR(a)->typeobj->tp_name);
        return NULL;
    }
    if (!PyArray_ISNOTSWAPPED(a)) {
        PyErr_Format(PyExc_ValueError, "%s: expected native byte order, got a byte-swapped array", name);
        return NULL;
    }
    if (!PyArray_ISALIGNED(a)) {
        PyErr_Format(PyExc_ValueError, "%s: the array is not aligned (data or strides)", name);
        return NULL;
    }
    return a;
}

static PyArrayObject *float_array(PyObject *o, int ndim, int writable, const char *name)
{
    PyArrayObject *a = typed_array(o, NPY_DOUBLE, ndim, "float64", name);
    if (a == NULL)
        return NULL;
    if (writable && !PyArray_ISWRITEABLE(a)) {
        PyErr_Format(PyExc_ValueError, "%s: the array is read-only", name);
        return NULL;
    }
    for (int d = 0; writable && d < ndim; d++) {
        if (PyArray_DIM(a, d) > 1 && PyArray_STRIDE(a, d) == 0) {
            PyErr_Format(PyExc_ValueError, "%s: an output with a zero stride (entries sharing memory)", name);
            return NULL;
        }
    }
    return a;
}

double *wk_vector(PyObject *o, Py_ssize_t n, int writable, const char *name)
{
    PyArrayObject *a = float_array(o, 1, writable, name);
    if (a == NULL)
        return NULL;
    if (!PyArray_IS_C_CONTIGUOUS(a)) {
        PyErr_Format(PyExc_ValueError, "%s: expected a contiguous vector", name);
        return NULL;
    }
    if (n >= 0 && PyArray_DIM(a, 0) != n) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zd entries, got %zd", name, n,
                     (Py_ssize_t)PyArray_DIM(a, 0));
        return NULL;
    }
    return (double *)PyArray_DATA(a);
}

double *wk_vector_or_none(PyObject *o, Py_ssize_t n, int writable, const char *name, int *missing)
{
    *missing = (o == Py_None);
    return *missing ? NULL : wk_vector(o, n, writable, name);
}

int wk_matrix(PyObject *o, Py_ssize_t rows, Py_ssize_t cols, int writable, const char *name, wk_mat *out)
{
    PyArrayObject *a = float_array(o, 2, writable, name);
    if (a == NULL)
        return -1;
    Py_ssize_t r = PyArray_DIM(a, 0), c = PyArray_DIM(a, 1);
    if ((rows >= 0 && r != rows) || (cols >= 0 && c != cols)) {
        PyErr_Format(PyExc_ValueError, "%s: expected shape (%zd, %zd), got (%zd, %zd)", name, rows, cols, r, c);
        return -1;
    }
    npy_intp s0 = PyArray_STRIDE(a, 0), s1 = PyArray_STRIDE(a, 1);
    if (s0 % (npy_intp)sizeof(double) || s1 % (npy_intp)sizeof(double)) {
        PyErr_Format(PyExc_ValueError, "%s: unaligned strides", name);
        return -1;
    }
    out->data = (double *)PyArray_DATA(a);
    out->rows = r;
    out->cols = c;
    out->rs = s0 / (npy_intp)sizeof(double);
    out->cs = s1 / (npy_intp)sizeof(double);
    return 0;
}

int wk_matrix_or_none(PyObject *o, Py_ssize_t rows, Py_ssize_t cols, const char *name, wk_mat *out)
{
    if (o == Py_None) {
        out->data = NULL;
        out->rows = out->cols = out->rs = out->cs = 0;
        return 0;
    }
    return wk_matrix(o, rows, cols, 0, name, out);
}

Py_ssize_t wk_length(PyObject *o, const char *name)
{
    PyArrayObject *a = float_array(o, 1, 0, name);
    return a == NULL ? -1 : (Py_ssize_t)PyArray_DIM(a, 0);
}

int wk_checked_array(PyObject *o, int type, int ndim, const char *name)
{
    const char *tname = type == NPY_DOUBLE ? "float64" : type == NPY_INTP ? "intp" : "int32";
    return typed_array(o, type, ndim, tname, name) == NULL ? -1 : 0;
}

Py_ssize_t wk_index_length(PyObject *o, const char *name)
{
    PyArrayObject *a = typed_array(o, NPY_INTP, 1, "intp", name);
    return a == NULL ? -1 : (Py_ssize_t)PyArray_DIM(a, 0);
}

const npy_intp *wk_index(PyObject *o, Py_ssize_t n, Py_ssize_t bound, const char *name)
{
    return wk_index_or_absent(o, n, bound, 0, name);
}

const npy_intp *wk_index_or_absent(PyObject *o, Py_ssize_t n, Py_ssize_t bound, int absent, const char *name)
{
    PyArrayObject *a = typed_array(o, NPY_INTP, 1, "intp", name);
    if (a == NULL)
        return NULL;
    if (!PyArray_IS_C_CONTIGUOUS(a)) {
        PyErr_Format(PyExc_ValueError, "%s: expected a contiguous 1-D intp array", name);
        return NULL;
    }
    if (PyArray_DIM(a, 0) != n) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zd indices, got %zd", name, n, (Py_ssize_t)PyArray_DIM(a, 0));
        return NULL;
    }
    const npy_intp *idx = (const npy_intp *)PyArray_DATA(a);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (idx[i] < (absent ? -1 : 0) || idx[i] >= bound) {
            PyErr_Format(PyExc_IndexError, "%s: index %zd out of range [%d, %zd)", name, (Py_ssize_t)idx[i],
                         absent ? -1 : 0, bound);
            return NULL;
        }
    }
    return idx;
}

int *wk_int_vector(PyObject *o, Py_ssize_t n, const char *name)
{
    PyArrayObject *a = typed_array(o, NPY_INT, 1, "int32", name);
    if (a == NULL)
        return NULL;
    if (!PyArray_IS_C_CONTIGUOUS(a) || PyArray_DIM(a, 0) != n) {
        PyErr_Format(PyExc_ValueError, "%s: expected a contiguous int32 vector of %zd entries", name, n);
        return NULL;
    }
    return (int *)PyArray_DATA(a);
}

/* the bytes [*lo, *hi) an array spans (an empty range for an empty array or a non-array) */
static void extent(PyObject *o, const char **lo, const char **hi)
{
    *lo = *hi = NULL;
    if (!PyArray_Check(o))
        return;
    PyArrayObject *a = (PyArrayObject *)o;
    const char *start = PyArray_BYTES(a), *end = start;
    for (int d = 0; d < PyArray_NDIM(a); d++) {
        npy_intp n = PyArray_DIM(a, d), s = PyArray_STRIDE(a, d);
        if (n == 0)
            return;
        if (s < 0)
            start += s * (n - 1);
        else
            end += s * (n - 1);
    }
    *lo = start;
    *hi = end + PyArray_ITEMSIZE(a);
}

int wk_disjoint_outputs(PyObject *const *args, Py_ssize_t nargs, unsigned outputs, const char *func)
{
    const char *lo[32], *hi[32]; /* (each argument's extent, taken once) */
    Py_ssize_t n = nargs < 32 ? nargs : 32;
    for (Py_ssize_t j = 0; j < n; j++)
        extent(args[j], &lo[j], &hi[j]);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!(outputs >> i & 1u) || lo[i] == NULL)
            continue;
        for (Py_ssize_t j = 0; j < n; j++) {
            if (j != i && lo[j] != NULL && lo[i] < hi[j] && lo[j] < hi[i]) {
                PyErr_Format(PyExc_ValueError, "%s: output argument %zd overlaps argument %zd in memory", func, i, j);
                return -1;
            }
        }
    }
    return 0;
}

int wk_finite(const wk_mat *M, const double *v, Py_ssize_t n, const char *name)
{
    int ok = 1;
    for (Py_ssize_t i = 0; M != NULL && M->data != NULL && ok && i < M->rows; i++)
        for (Py_ssize_t j = 0; ok && j < M->cols; j++)
            ok = isfinite(WK_AT(*M, i, j));
    for (Py_ssize_t i = 0; v != NULL && ok && i < n; i++)
        ok = isfinite(v[i]);
    if (!ok)
        PyErr_Format(PyExc_ValueError, "%s: NaN or inf entry", name);
    return ok ? 0 : -1;
}

int wk_nargs(Py_ssize_t nargs, Py_ssize_t expected, const char *func)
{
    if (nargs != expected) {
        PyErr_Format(PyExc_TypeError, "%s() takes %zd arguments (%zd given)", func, expected, nargs);
        return -1;
    }
    return 0;
}
