/* The arrays a scene hands out with each new level: its rows A and targets y copied from the scene's
 * buffers (which the next update overwrites) in one call. */
#include "kernels.h"

PyObject *wk_level_copy(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (wk_nargs(nargs, 2, "level_copy") < 0)
        return NULL;
    wk_mat A;
    if (wk_matrix(args[0], -1, -1, 0, "A", &A) < 0)
        return NULL;
    const double *y = wk_vector(args[1], A.rows, 0, "y");
    if (y == NULL)
        return NULL;
    npy_intp da[2] = {A.rows, A.cols}, dy[1] = {A.rows};
    PyArrayObject *Ac = (PyArrayObject *)PyArray_SimpleNew(2, da, NPY_DOUBLE);
    PyArrayObject *yc = Ac == NULL ? NULL : (PyArrayObject *)PyArray_SimpleNew(1, dy, NPY_DOUBLE);
    if (yc == NULL) {
        Py_XDECREF(Ac);
        return NULL;
    }
    double *a = (double *)PyArray_DATA(Ac), *b = (double *)PyArray_DATA(yc);
    for (Py_ssize_t i = 0; i < A.rows; i++) {
        for (Py_ssize_t j = 0; j < A.cols; j++)
            a[i * A.cols + j] = WK_AT(A, i, j);
        b[i] = y[i];
    }
    return Py_BuildValue("(NN)", Ac, yc);
}
