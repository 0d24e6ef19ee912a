/* Argument checks shared by the kernels: float64 vectors and strided matrices, index arrays, arity. */
#include "kernels.h"

static PyArrayObject *float_array(PyObject *o, int ndim, int writable, const char *name)
{
    if (!PyArray_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s: expected a numpy array, got %.100s", name, Py_TYPE(o)->tp_name);
        return NULL;
    }
    PyArrayObject *a = (PyArrayObject *)o;
    if (PyArray_TYPE(a) != NPY_DOUBLE || PyArray_NDIM(a) != ndim) {
        PyErr_Format(PyExc_TypeError, "%s: expected a %d-D float64 array", name, ndim);
        return NULL;
    }
    if (writable && !PyArray_ISWRITEABLE(a)) {
        PyErr_Format(PyExc_ValueError, "%s: the array is read-only", name);
        return NULL;
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

const npy_intp *wk_index(PyObject *o, Py_ssize_t n, Py_ssize_t bound, const char *name)
{
    if (!PyArray_Check(o) || PyArray_TYPE((PyArrayObject *)o) != NPY_INTP ||
        PyArray_NDIM((PyArrayObject *)o) != 1 || !PyArray_IS_C_CONTIGUOUS((PyArrayObject *)o)) {
        PyErr_Format(PyExc_TypeError, "%s: expected a contiguous 1-D intp array", name);
        return NULL;
    }
    PyArrayObject *a = (PyArrayObject *)o;
    if (PyArray_DIM(a, 0) != n) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zd indices, got %zd", name, n, (Py_ssize_t)PyArray_DIM(a, 0));
        return NULL;
    }
    const npy_intp *idx = (const npy_intp *)PyArray_DATA(a);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (idx[i] < -1 || idx[i] >= bound) {
            PyErr_Format(PyExc_IndexError, "%s: index %zd out of range [-1, %zd)", name, (Py_ssize_t)idx[i], bound);
            return NULL;
        }
    }
    return idx;
}

int wk_nargs(Py_ssize_t nargs, Py_ssize_t expected, const char *func)
{
    if (nargs != expected) {
        PyErr_Format(PyExc_TypeError, "%s() takes %zd arguments (%zd given)", func, expected, nargs);
        return -1;
    }
    return 0;
}
