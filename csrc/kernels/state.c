/* Robot states: the validated copy of a configuration or velocity vector. */
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
    PyArrayObject *copy = (PyArrayObject *)PyArray_NewCopy(a, NPY_CORDER);
    if (copy == NULL)
        return NULL;
    const double *x = (const double *)PyArray_DATA(copy);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!(x[i] <= limit && x[i] >= -limit)) { /* (false for NaN) */
            Py_DECREF(copy);
            Py_RETURN_NONE;
        }
    }
    return (PyObject *)copy;
}
