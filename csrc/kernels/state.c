/* Robot states: the validated copy of a configuration or velocity vector, and its unit blocks. */
#include <math.h>
#include <string.h>

#include "kernels.h"

PyObject *wk_state_copy(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (wk_nargs(nargs, 3, "state_copy") < 0)
        return NULL;
    PyObject *o = args[0];
    Py_ssize_t n = PyLong_AsSsize_t(args[1]);
    double limit = PyFloat_AsDouble(args[2]);
    if (PyErr_Occurred())
        return NULL;
    if (!PyArray_CheckExact(o))
        Py_RETURN_NONE;
    PyArrayObject *a = (PyArrayObject *)o;
    if (PyArray_TYPE(a) != NPY_DOUBLE || PyArray_NDIM(a) != 1 || PyArray_DIM(a, 0) != n)
        Py_RETURN_NONE;
    /* a new native-order, aligned, contiguous float64 copy (a byte-swapped or misaligned x is converted
     * here, once: its values, not its bytes; a contiguous native one, the usual state, is copied as bytes) */
    PyArrayObject *copy;
    if (PyArray_IS_C_CONTIGUOUS(a) && PyArray_ISALIGNED(a) && PyArray_ISNOTSWAPPED(a)) {
        npy_intp d[1] = {n};
        copy = (PyArrayObject *)PyArray_SimpleNew(1, d, NPY_DOUBLE);
        if (copy == NULL)
            return NULL;
        memcpy(PyArray_DATA(copy), PyArray_DATA(a), (size_t)n * sizeof(double));
    } else {
        copy = (PyArrayObject *)PyArray_FROM_OTF(
            o, NPY_DOUBLE, NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED | NPY_ARRAY_NOTSWAPPED | NPY_ARRAY_ENSURECOPY);
        if (copy == NULL)
            return NULL;
    }
    const double *x = (const double *)PyArray_DATA(copy);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!(x[i] <= limit && x[i] >= -limit)) { /* (false for NaN) */
            Py_DECREF(copy);
            Py_RETURN_NONE;
        }
    }
    return (PyObject *)copy;
}

/* normalize_blocks(q, blocks, tol) -> None, or (start, length, norm) of the first bad block
 *
 * Renormalise in place the unit blocks of a configuration (quaternions, cos/sin pairs): `blocks` is a
 * (k, 2) intp array of (start, length). Every block must have |norm − 1| ≤ tol; when one has not, q is
 * left unchanged and that block is returned. */
PyObject *wk_normalize_blocks(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (wk_nargs(nargs, 3, "normalize_blocks") < 0)
        return NULL;
    Py_ssize_t n = wk_length(args[0], "q");
    double *q = n < 0 ? NULL : wk_vector(args[0], n, 1, "q");
    double tol = q ? PyFloat_AsDouble(args[2]) : 0.0;
    if (q == NULL || PyErr_Occurred() || wk_checked_array(args[1], NPY_INTP, 2, "blocks") < 0 ||
        wk_disjoint_outputs(args, nargs, 1u, "normalize_blocks") < 0)
        return NULL;
    PyObject *b = args[1];
    if (PyArray_DIM((PyArrayObject *)b, 1) != 2 || !PyArray_IS_C_CONTIGUOUS((PyArrayObject *)b)) {
        PyErr_SetString(PyExc_TypeError, "normalize_blocks: blocks must be a contiguous (k, 2) intp array");
        return NULL;
    }
    Py_ssize_t k = PyArray_DIM((PyArrayObject *)b, 0);
    const npy_intp *bl = PyArray_DATA((PyArrayObject *)b);
    double norms[64], *nb = k <= 64 ? norms : PyMem_Malloc((size_t)k * sizeof(double));
    if (nb == NULL)
        return PyErr_NoMemory();
    PyObject *out = NULL;
    for (Py_ssize_t j = 0; j < k; j++) {
        npy_intp start = bl[2 * j], len = bl[2 * j + 1];
        if (start < 0 || len < 0 || start > n || len > n - start) { /* (no overflow) */
            PyErr_SetString(PyExc_IndexError, "normalize_blocks: a block lies outside q");
            goto done;
        }
        double s = 0.0;
        for (npy_intp i = start; i < start + len; i++)
            s += q[i] * q[i];
        nb[j] = sqrt(s);
        if (!(fabs(nb[j] - 1.0) <= tol)) {
            out = Py_BuildValue("(nnd)", (Py_ssize_t)start, (Py_ssize_t)len, nb[j]);
            goto done;
        }
    }
    for (Py_ssize_t j = 0; j < k; j++)
        for (npy_intp i = bl[2 * j]; i < bl[2 * j] + bl[2 * j + 1]; i++)
            q[i] /= nb[j];
    out = Py_None;
    Py_INCREF(out);
done:
    if (nb != norms)
        PyMem_Free(nb);
    return out;
}
