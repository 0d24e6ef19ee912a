/* wbcpy._kernels: the compiled inner loops of wbcpy's control step.
 *
 * Each kernel replaces a few dozen NumPy calls on tiny arrays (where NumPy's per-call overhead, not the
 * arithmetic, is the cost) by one C call. Kernels take NumPy float64 arrays, check their types and shapes
 * (TypeError / ValueError: they are internal, the callers pass arrays they built) and write results into
 * arrays the caller owns: no allocation on the hot path. Matrices may have any strides (Pinocchio hands
 * out column-major views); vectors must be contiguous. Every array must be in native byte order and
 * aligned, and an output must not overlap another argument: args.c checks all of it, in one place
 * (TypeError / ValueError otherwise; tests/kernels/test_kernel_fuzz.py tries every layout).
 *
 * BLAS and LAPACK come from SciPy (scipy.linalg.cython_blas / cython_lapack capsules, Fortran calling
 * convention: column-major, arguments by pointer), loaded by the first kernel that needs them
 * (wk_load_lapack), so that importing wbcpy does not import SciPy.
 */
#ifndef WBCPY_KERNELS_H
#define WBCPY_KERNELS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define PY_ARRAY_UNIQUE_SYMBOL wbcpy_kernels_ARRAY_API
#ifndef WBCPY_KERNELS_MODULE
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>

/* ---------------------------------------------------------------------------------- strided matrices */

/* A read-only (or writable) view of a 2-D float64 array: element (i, j) is data[i * rs + j * cs]. */
typedef struct {
    double *data;
    Py_ssize_t rows, cols, rs, cs;
} wk_mat;

#define WK_AT(m, i, j) ((m).data[(i) * (m).rs + (j) * (m).cs])

/* row[0..8) are all ±0 (a contiguous row): one test on the eight bit patterns ORed, which costs less than
 * eight floating-point comparisons (a NaN is not zero, as for a == 0.0) */
static inline uint64_t wk_bits(const double *p)
{
    uint64_t b;
    memcpy(&b, p, sizeof(b));
    return b;
}

static inline int wk_zero8(const double *row)
{
    uint64_t any = wk_bits(row) | wk_bits(row + 1) | wk_bits(row + 2) | wk_bits(row + 3) | wk_bits(row + 4) |
                   wk_bits(row + 5) | wk_bits(row + 6) | wk_bits(row + 7);
    return (any << 1) == 0;
}

/* The Gram matrix H = AᵀA (n × n, row-major) is summed row by row into H's upper triangle, then mirrored.
 * wk_gram_add_span: row's products over the columns a ≤ i ≤ j < b (stride cs), zero entries skipped;
 * wk_gram_add_gathered: the products of a row's nnz nonzero entries val at the ascending columns idx. Both add
 * the same nonzero products in the same order, so the two give the same bits. */
static inline void wk_gram_add_span(double *H, int n, const double *row, Py_ssize_t cs, int a, int b)
{
    for (int i = a; i < b; i++) {
        double v = row[i * cs];
        if (v == 0.0)
            continue;
        double *h = H + (Py_ssize_t)i * n;
        if (cs == 1) { /* (a contiguous row: the same sums, vectorised) */
            for (int j = i; j < b; j++)
                h[j] += v * row[j];
        } else {
            for (int j = i; j < b; j++)
                h[j] += v * row[j * cs];
        }
    }
}

static inline void wk_gram_add_gathered(double *H, int n, const int *idx, const double *val, int nnz)
{
    for (int p = 0; p < nnz; p++) {
        double v = val[p], *h = H + (Py_ssize_t)idx[p] * n;
        for (int q = p; q < nnz; q++)
            h[idx[q]] += v * val[q];
    }
}

/* H's lower triangle from its upper one (n × n, row-major) */
static inline void wk_mirror_upper(double *H, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            H[j * n + i] = H[i * n + j];
}

/* Argument checks. `n`, `rows`, `cols` < 0 accept any size. On failure: NULL / -1 with an exception set. */
double *wk_vector(PyObject *o, Py_ssize_t n, int writable, const char *name);
double *wk_vector_or_none(PyObject *o, Py_ssize_t n, int writable, const char *name, int *missing);
int wk_matrix(PyObject *o, Py_ssize_t rows, Py_ssize_t cols, int writable, const char *name, wk_mat *out);
int wk_matrix_or_none(PyObject *o, Py_ssize_t rows, Py_ssize_t cols, const char *name, wk_mat *out);
Py_ssize_t wk_length(PyObject *o, const char *name);
/* n in-range indices (0 <= i < bound), a contiguous intp vector */
const npy_intp *wk_index(PyObject *o, Py_ssize_t n, Py_ssize_t bound, const char *name);
/* wk_index that also admits -1 ("absent") when `absent` is nonzero */
const npy_intp *wk_index_or_absent(PyObject *o, Py_ssize_t n, Py_ssize_t bound, int absent, const char *name);
/* the length of a 1-D intp array (native, aligned), or -1 with an exception set */
Py_ssize_t wk_index_length(PyObject *o, const char *name);
/* a contiguous native int32 vector of n entries */
int *wk_int_vector(PyObject *o, Py_ssize_t n, const char *name);
/* 0 when o is an ndim-D array of element type `type` (NPY_DOUBLE, NPY_INTP, NPY_INT), native byte order and
 * aligned (any strides); -1 with TypeError / ValueError set otherwise */
int wk_checked_array(PyObject *o, int type, int ndim, const char *name);
/* 0 when no argument args[i] with bit i of `outputs` set overlaps another array argument in memory;
 * -1 with ValueError set otherwise (outputs written while inputs are read must not alias them) */
int wk_disjoint_outputs(PyObject *const *args, Py_ssize_t nargs, unsigned outputs, const char *func);
int wk_nargs(Py_ssize_t nargs, Py_ssize_t expected, const char *func);
/* 0 when every entry of the matrix M (NULL or no data: none) and of v[0..n) (NULL: none) is finite; -1 with
 * ValueError naming `name` otherwise */
int wk_finite(const wk_mat *M, const double *v, Py_ssize_t n, const char *name);

/* ---------------------------------------------------------------------------------- BLAS / LAPACK */

typedef void (*wk_dgemm_t)(char *ta, char *tb, int *m, int *n, int *k, double *alpha, double *a, int *lda,
                           double *b, int *ldb, double *beta, double *c, int *ldc);
typedef void (*wk_dgeqp3_t)(int *m, int *n, double *a, int *lda, int *jpvt, double *tau, double *work,
                            int *lwork, int *info);

typedef void (*wk_dormqr_t)(char *side, char *trans, int *m, int *n, int *k, double *a, int *lda, double *tau,
                            double *c, int *ldc, double *work, int *lwork, int *info);

typedef void (*wk_dtrsv_t)(char *uplo, char *trans, char *diag, int *n, double *a, int *lda, double *x, int *incx);
typedef void (*wk_dtrsm_t)(char *side, char *uplo, char *transa, char *diag, int *m, int *n, double *alpha, double *a,
                           int *lda, double *b, int *ldb);
typedef void (*wk_dgemv_t)(char *trans, int *m, int *n, double *alpha, double *a, int *lda, double *x, int *incx,
                           double *beta, double *y, int *incy);
typedef void (*wk_dpotrf_t)(char *uplo, int *n, double *a, int *lda, int *info);
typedef void (*wk_dpotrs_t)(char *uplo, int *n, int *nrhs, double *a, int *lda, double *b, int *ldb, int *info);

extern wk_dgemm_t wk_dgemm;
extern wk_dtrsv_t wk_dtrsv;
extern wk_dtrsm_t wk_dtrsm;
extern wk_dgemv_t wk_dgemv;
extern wk_dgeqp3_t wk_dgeqp3;
extern wk_dormqr_t wk_dormqr;
extern wk_dpotrf_t wk_dpotrf;
extern wk_dpotrs_t wk_dpotrs;
/* load the routines above (once; later calls return at once): 0, or -1 with an ImportError set */
int wk_load_lapack(void);

/* ---------------------------------------------------------------------------------- kernels */

PyObject *wk_state_copy(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *wk_normalize_blocks(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *wk_joint_limits(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *wk_velocity_limits(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *wk_log3(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *wk_pose_law(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *wk_vector_law(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *wk_joint_law(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *wk_transform_error(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *wk_weighted_rows(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *wk_ls_gradient(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *wk_natural_residual(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *wk_rows_residual(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *wk_scaled_error(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *wk_bounds_gap(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *wk_rows_excess(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *wk_point_outside(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *wk_box_certificate(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *wk_rows_certificate(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *wk_all_finite(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *wk_nullspace_update(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *wk_kept_rows(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *wk_pin_rows(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *wk_split_bounds(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *wk_split_columns(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *wk_level_equations(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *wk_matmul_py(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *wk_lift_clip(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *wk_regulariser_inert(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *wk_dynamics_rows(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *wk_in_box(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *wk_daqp_bind(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *wk_daqp_defaults(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *wk_daqp_solve(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *wk_fused_level(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *wk_strong_entries(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *wk_dls_search(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *wk_frame_classical_acceleration(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *wk_swing_sample(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *wk_dcm_sample(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *wk_frame_pose(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *wk_frame_jacobian(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *wk_level_copy(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *wk_cholesky_solve_py(PyObject *self, PyObject *const *args, Py_ssize_t nargs);

/* cholesky.c: H = UᵀU of a symmetric positive definite n × n H in place, W holding H's lower triangle row-major
 * (U's upper triangle column-major, as LAPACK's dpotrf('U') reads it); the rest of W is not read. 0, or 1
 * (refused; W then partly overwritten) when a pivot² (the diagonal entry H(j, j) − Σ_{p<j} U(p, j)² at its
 * turn) is not positive and at least floor (NaN is neither). Orders above WK_CHOLESKY_OWN go to LAPACK
 * (dpotrf, then the same pivot test on its factor), which must be loaded (wk_load_lapack). */
#define WK_CHOLESKY_OWN 48
int wk_cholesky(double *W, Py_ssize_t n, double floor);
/* x = H⁻¹ x by the factor wk_cholesky left in W: Uᵀ z = x, then U x = z */
void wk_cholesky_solve(const double *W, Py_ssize_t n, double *x);

/* the column of row i's only nonzero entry in A; -1 for a row of zeros, -2 for two nonzero entries or more */
Py_ssize_t wk_single_entry(const wk_mat *A, Py_ssize_t i);

/* H (n×n, row-major, both triangles) = AᵀA of a strided A (m × n) */
void wk_gram(const wk_mat *A, double *H);
/* 1 when wk_gram forms AᵀA by BLAS (a large product of a dense A), 0 when by its loops */
int wk_gram_blas(const wk_mat *A);

/* row_ranges.c: the products of least squares over each row's nonzero range [lo_i, hi_i) — the same sums as
 * the plain kernels (the terms left out are exact zeros) while the entries they meet are finite */
/* 1 when v[0..n) is finite */
int wk_finite_vector(Py_ssize_t n, const double *v);
/* each row's nonzero range into lo, hi (m entries each; a row of zeros: [0, 0)); 1 when the entries in the
 * ranges are finite (A is), 0 otherwise (then the ranges are not to be used) */
int wk_row_ranges(const wk_mat *A, Py_ssize_t *lo, Py_ssize_t *hi);
/* wk_gram(A, H) over the ranges of a finite A */
void wk_gram_ranged(const wk_mat *A, const Py_ssize_t *lo, const Py_ssize_t *hi, double *H);
/* wk_tmatvec(M, v, 0, t, s) over the ranges of a finite M, for a finite v */
void wk_tmatvec_ranged(const wk_mat *M, const double *v, const Py_ssize_t *lo, const Py_ssize_t *hi, double *t,
                       double *s);
/* wk_rows_dot(M, x, init, out) over the ranges of a finite M, for a finite x */
void wk_rows_dot_ranged(const wk_mat *M, const double *x, const double *init, const Py_ssize_t *lo,
                        const Py_ssize_t *hi, double *out);
/* wk_ls_gradient_core(A, e0, r, NULL Z, xbar, w, t, scale) over the ranges of a finite A, for a finite w */
int wk_ls_gradient_ranged(const wk_mat *A, const double *e0, const double *r, const double *xbar, const double *w,
                          const Py_ssize_t *lo, const Py_ssize_t *hi, double *t, double *scale);
/* the least-squares gradient t and its scale of wk_ls_gradient (r, xbar NULL: absent); 0, or -1 (no memory) */
int wk_ls_gradient_core(const wk_mat *AZ, const double *e0, const double *r, const wk_mat *Z, const double *xbar,
                        const double *w, double *t, double *scale);
/* the arguments (AZ, e0, r, Z, xbar, w) of the least-squares kernels: 0, or -1 with an exception set */
int wk_ls_args(PyObject *const *args, wk_mat *AZ, const double **e0, const double **r, wk_mat *Z,
               const double **xbar, const double **w);
/* out[i] = init[i] + Σ_j M_ij x_j for every row of M (init NULL: 0; init may be out), each sum in j order
 * from its initial value: the rounding of one plain loop per row, four rows interleaved */
void wk_rows_dot(const wk_mat *M, const double *x, const double *init, double *out);
/* 1 when every row of M has sqrt(Σ_j M_ij²) > floor (NaN counts as longer), the sum in j order from 0 as
 * wk_kept_core forms it; 0 otherwise */
int wk_rows_longer(const wk_mat *M, double floor);
/* t[j] += Σ_i M_ij v_i and (s not NULL) s[j] += Σ_i |M_ij||v_i|, in i order; skip: rows with v_i = 0 left out */
void wk_tmatvec(const wk_mat *M, const double *v, int skip, double *t, double *s);
/* C (m × k, row-major) = A B of strided A (m × n) and B (n × k): loops that skip A's zeros, BLAS dgemm when
 * A turns out dense (more than a quarter nonzero) and the product is large and contiguous */
void wk_matmul(const wk_mat *A, const wk_mat *B, double *C);
/* wk_matmul(A, B) into C and, with x (A->cols entries; NULL: none), A x into Ax (m), as wk_matmul gives it
 * for x as a one-column matrix, from the same pass over A's entries */
void wk_matmul_vec(const wk_mat *A, const wk_mat *B, const double *x, double *C, double *Ax);
/* wk_matmul for an A known to be dense: BLAS whenever the product is large and contiguous */
void wk_matmul_dense(const wk_mat *A, const wk_mat *B, double *C);

/* the arguments (A, y, r, Z, xbar) of the level kernels at args[0..4] (Z, xbar: None → NULL data / NULL);
 * 0, or -1 with an exception set */
int wk_level_args(PyObject *const *args, wk_mat *A, const double **y, const double **r, wk_mat *Z,
                  const double **xbar);
/* AZ = A Z (into AZ, m × k row-major; not written when Z->data is NULL: the identity, AZ = A), e = A x̄ − y,
 * H = (AZ)ᵀAZ + Zᵀ diag(r) Z and g = (AZ)ᵀe + Zᵀ(r∘x̄) of level_equations (xbar NULL: 0), into the
 * caller's arrays; lo, hi (NULL: none): the ranges of wk_row_ranges of a finite A, used without Z; 0, or -1
 * with MemoryError set */
int wk_level_build(const wk_mat *A, const wk_mat *Z, const double *y, const double *r, const double *xbar,
                   const Py_ssize_t *lo, const Py_ssize_t *hi, double *AZ, double *e, double *H, double *g);
/* the natural residual of natural_residual (lb, ub, zb NULL: absent); its max scale in *smax_out */
double wk_natural_core(Py_ssize_t n, const double *x, const double *t, const double *s, const double *lb,
                       const double *ub, const double *zb, double *smax_out);
/* the rows' residual of rows_residual (adds Cᵀz to t, |C|ᵀ|z| to s); its max scale in *smax_out */
double wk_rows_core(const wk_mat *C, const double *lo, const double *hi, const double *x, const double *z,
                    double *t, double *s, double *smax_out);
/* max_i |r_i| / (s_i (1 + c) + floor): the stationarity error of scaled_error */
double wk_scaled_core(Py_ssize_t n, const double *r, const double *s, double c);
/* the rows lo ≤ M w + v ≤ hi that kept_rows keeps (lo, hi, v NULL: −inf, +inf, 0; drop: drop the rows
 * of M shorter than 1e-9 after checking v against them): their count, indices in keep; -1 when a
 * dropped row's v violates its sides */
Py_ssize_t wk_kept_core(const wk_mat *M, const double *v, const double *lo, const double *hi, int drop,
                        npy_intp *keep);
/* the kept rows of wk_kept_core copied: M's rows (nk × cols, row-major) and their sides minus v */
void wk_kept_copy(const wk_mat *M, const double *v, const double *lo, const double *hi, const npy_intp *keep,
                  Py_ssize_t nk, double *Mk, double *l, double *h);
/* x (n) = clip(x̄ + Z w, lb, ub) of lift_clip, w of k entries (Z->data NULL: identity, k = n; xbar, lb, ub
 * NULL: 0, unbounded) */
void wk_lift_clip_core(const wk_mat *Z, Py_ssize_t n, Py_ssize_t k, const double *w, const double *xbar,
                       const double *lb, const double *ub, double *x);
/* the unconstrained least-squares minimiser w (k) of a level ‖AZ w + e‖² + Σ r (Z w + x̄)² (level_minimiser.c),
 * the one nearest w_ref (NULL: a basic one) when there are several: 1, 0 when LAPACK failed, -1 with
 * MemoryError set */
int wk_level_minimiser(const wk_mat *AZ, const double *e, const double *r, const wk_mat *Z, const double *xbar,
                       const double *w_ref, double *w);
/* the DAQP settings vector (struct order, daqp_call.c): its length and the index of zero_tol */
#define WK_DAQP_SETTINGS 19
#define WK_DAQP_ZERO_TOL 2

/* DAQP's solver on raw arrays (daqp_call.c): its exit flag; needs a bound DAQP, not the GIL */
int wk_daqp_run(int n, int m, int ms, double *H, const double *f, const double *A, const double *bu,
                const double *bl, int *sense, const double *settings, double *x, double *lam, int *iterations);
/* 0 when DAQP settings (struct order) can be converted to DAQP's struct; -1 with ValueError set otherwise */
int wk_daqp_settings_ok(const double *settings);
/* nonzero, with RuntimeError set, while DAQP is not bound (daqp_bind) */
int wk_daqp_not_bound(const char *func);

/* SO(3) logarithm of R = A Bᵀ (3×3, strided), written to w[0..2] (rad, axis × angle). */
void wk_log3_of_product(const wk_mat *A, const wk_mat *B, int transpose_b, double *w);

#endif
