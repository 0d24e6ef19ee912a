/* A hierarchy level built, solved and certified in one call (wbcpy.qp.level_solver's compiled path).
 *
 * The level ‖A x − y‖² + Σ r x² with lb ≤ x ≤ ub and the inequality rows lo ≤ C x ≤ hi of the levels
 * above, on x = x̄ + Z w, is what the Python path makes of it (wbcpy.qp.level_qp.build_level), in its two
 * common shapes:
 *
 * - no null space (Z None) and no rows: H = AᵀA + diag r, g = Aᵀ(A x̄ − y) + r∘x̄ and the bounds
 *   lb − x̄ ≤ w ≤ ub − x̄, checked by the box certificate (kkt.certify_box);
 * - on a null space: H and g of level_equations (on AZ = A Z), the rows lo − C x̄ ≤ C Z w ≤ hi − C x̄ and
 *   the bounds as rows lb − x̄ ≤ Z w ≤ ub − x̄, each block as kept_rows keeps it (rows bounded on neither
 *   side dropped, rows shorter than 1e-9 dropped after checking x̄ against them), checked by the rows
 *   certificate (kkt._certify_rows).
 *
 * DAQP's C solver (a cold start, as daqp_solve) solves it. Two answers come before DAQP's where the caller
 * asks for them, both certified as DAQP's is: the unconstrained minimiser by pivoted Cholesky
 * (cholesky_minimiser: where the level's last answer had no active constraint) and the least-squares
 * minimiser by QR (unconstrained_minimiser: after DAQP crawled); they are the compiled path's own, and a
 * caller that asks for neither gets DAQP's answer. These are the functions of the Python path on
 * the same numbers in the same order, so DAQP's answer is the same bit for bit, without the StdQP, the
 * backend's inputs and the certificate objects between them: wk_level_build is level_equations' (A Z,
 * e, H from the most frequent diagonal weight, g), C Z and C x̄ come from one pass over C with the
 * numbers of the two products project and matmul give, and kept_rows' length test is left out only
 * where wk_rows_longer (the same norms) shows it would drop no row. A certificate that fails its strict test is
 * tried again with kkt.py's rounding allowance on the magnitudes the level was formed from
 * (level_qp._LeastSquares.magnitude; kkt._marginal_dual_error): passing there is "marginal", which an exact
 * backend's answer is accepted with (level_solver._loose); the caller is told (the flag in the result).
 * Whatever the Python path would not accept as it is — a failed solve, a non-finite answer, a certificate
 * that fails both tests, a constant row that x̄ violates, no row left — returns None, and the caller takes
 * the Python path, which decides (refinement, fallbacks, rescue, the infeasibility report). */
#include <float.h>
#include <math.h>
#include <string.h>

#include "kernels.h"

/* DAQP iterations from which an unconstrained, marginal answer is polished by the least-squares minimiser
 * (polish): an ordinary level takes 1–5, proximal iterations crawling along weak directions 40–160 */
#define SLOW_ITERATIONS 10
/* DAQP's zero_tol of the second run on an answer that fails its certificate (retry_pass) */
#define RETRY_ZERO_TOL 1e-14
/* the smallest pivot² / max diag H of the Cholesky minimiser (cholesky_minimiser): its answer is then
 * resolved to about ε/CHOLESKY_PIVOT relative; weaker directions (weights over many decades: a weak posture
 * under a strong hand task) are left to DAQP's iterations and the least-squares minimiser's QR */
#define CHOLESKY_PIVOT 1e-9
/* the norm up to which wk_kept_core (drop) treats a row as constant on the free directions (kept_rows) */
#define CONSTANT_ROW 1e-9
/* the most primal-dual active-set iterations of box_active_set before the level goes to DAQP */
#define BOX_ITERATIONS 6

static int all_finite(Py_ssize_t n, const double *v)
{
    for (Py_ssize_t i = 0; i < n; i++)
        if (!isfinite(v[i]))
            return 0;
    return 1;
}

/* the level's inequality rows in w, as build_level stacks them: the stack block (C Z, lo − C x̄, hi − C x̄;
 * C NULL data: none) then the bound block (Z, lb − x̄, ub − x̄; lb and ub NULL: none), each kept as
 * kept_rows keeps it. Rows into M (row-major, k columns), sides into l / h, source indices into c_rows /
 * b_rows with their counts; -1 when a constant row is violated. CZ and Cx are scratch (mc × k, mc). */
static int level_rows(const wk_mat *C, const double *lo, const double *hi, const wk_mat *Z, const double *xbar,
                      const double *lb, const double *ub, double *CZ, double *Cx, double *M, double *l,
                      double *h, npy_intp *c_rows, Py_ssize_t *nc, npy_intp *b_rows, Py_ssize_t *nb)
{
    Py_ssize_t k = Z->cols;
    *nc = *nb = 0;
    if (C->data) {
        wk_matmul_vec(C, Z, xbar, CZ, Cx); /* (C Z and C x̄ of two products, in one pass over C) */
        wk_mat CZm = {CZ, C->rows, k, k, 1};
        const double *v = xbar ? Cx : NULL;
        /* (rows all longer than kept_rows' constant-row length: its test would drop none, and is left
         * out; rows_longer forms the same norms, four rows at a time) */
        int drop = !wk_rows_longer(&CZm, CONSTANT_ROW);
        if ((*nc = wk_kept_core(&CZm, v, lo, hi, drop, c_rows)) < 0)
            return -1;
        wk_kept_copy(&CZm, v, lo, hi, c_rows, *nc, M, l, h);
    }
    if (lb || ub) {
        if ((*nb = wk_kept_core(Z, xbar, lb, ub, 1, b_rows)) < 0)
            return -1;
        wk_kept_copy(Z, xbar, lb, ub, b_rows, *nb, M + *nc * k, l + *nc, h + *nc);
    }
    return 0;
}

typedef struct {
    double primal, dual, smax;
    int ok, marginal, retried;
} verdict;

/* a built level: its data (A, y, r, Z, x̄ and what the kernel made of them: AZ, e = A x̄ − y, H; the rows
 * M w of DAQP between l and h: mr rows, of them the first mr bounds on w when not on_z), the settings
 * and tolerance, and scratch (t, s: k; scratch: rows of A; mag: k) */
typedef struct {
    const wk_mat *A, *AZ, *Z;
    const Py_ssize_t *lo, *hi; /* (the rows' nonzero ranges of a finite A without Z: wk_row_ranges; else NULL) */
    const double *y, *r, *xbar, *e;
    double *H, *g, *M, *l, *h;
    Py_ssize_t k, mr;
    int on_z;
    double tol;
    const double *settings;
    double *t, *s, *scratch, *mag;
} level;

/* the magnitudes the level's gradient H w + g was formed from, per entry of w (into out, k entries;
 * scratch: m entries), as level_qp._LeastSquares.magnitude: without Z, |A|ᵀ(|A||w| + |A||x̄| + |y|) +
 * r∘(|w| + |x̄|); with Z (whose tiny entries are noise), the same bound for every entry:
 * Σ_k ‖A_k‖(‖A_k‖‖w‖₁ + |A_k||x̄| + |y_k|) + Σ_i r_i(‖w‖₁ + |x̄_i|). */
static void level_magnitude(const wk_mat *A, const double *y, const double *r, int on_z, const double *xbar,
                            const double *w, Py_ssize_t k, double *scratch, double *out)
{
    Py_ssize_t m = A->rows, n = A->cols;
    double w1 = 0.0;
    for (Py_ssize_t j = 0; j < k; j++)
        w1 += fabs(w[j]);
    for (Py_ssize_t i = 0; i < m; i++) {
        double aw = 0.0, ax = 0.0, norm2 = 0.0;
        for (Py_ssize_t j = 0; j < n; j++) {
            double a = fabs(WK_AT(*A, i, j));
            norm2 += a * a;
            if (!on_z)
                aw += a * fabs(w[j]);
            if (xbar)
                ax += a * fabs(xbar[j]);
        }
        double norm = sqrt(norm2);
        scratch[i] = on_z ? norm * (norm * w1 + ax + fabs(y[i])) : aw + ax + fabs(y[i]);
    }
    if (on_z) {
        double total = 0.0;
        for (Py_ssize_t i = 0; i < m; i++)
            total += scratch[i];
        for (Py_ssize_t j = 0; j < n; j++)
            total += r[j] * (w1 + (xbar ? fabs(xbar[j]) : 0.0));
        for (Py_ssize_t j = 0; j < k; j++)
            out[j] = total;
        return;
    }
    for (Py_ssize_t j = 0; j < n; j++) {
        double acc = 0.0;
        for (Py_ssize_t i = 0; i < m; i++)
            acc += scratch[i] * fabs(WK_AT(*A, i, j));
        out[j] = acc + r[j] * (fabs(w[j]) + (xbar ? fabs(xbar[j]) : 0.0));
    }
}

/* (lo, hi) sides at args[0..1] of m rows, each None or a vector; -1 with an exception set */
static int optional_sides(PyObject *const *args, Py_ssize_t m, const char *names[2], const double **lo,
                          const double **hi)
{
    int none;
    *lo = wk_vector_or_none(args[0], m, 0, names[0], &none);
    if (*lo == NULL && !none)
        return -1;
    *hi = wk_vector_or_none(args[1], m, 0, names[1], &none);
    return (*hi == NULL && !none) ? -1 : 0;
}

/* the number of nonzero entries of lam[0..m) (DAQP's working set at its answer) */
static Py_ssize_t active(const double *lam, Py_ssize_t m)
{
    Py_ssize_t count = 0;
    for (Py_ssize_t i = 0; i < m; i++)
        count += lam[i] != 0.0;
    return count;
}

/* a tuple of items[0..n) that takes over their references; when one is NULL (a failed allocation, its error
 * set) or the tuple cannot be made: NULL, every reference released */
static PyObject *steal_tuple(PyObject **items, Py_ssize_t n)
{
    PyObject *t = PyTuple_New(n);
    int ok = t != NULL;
    for (Py_ssize_t i = 0; ok && i < n; i++)
        ok = items[i] != NULL;
    if (!ok) {
        for (Py_ssize_t i = 0; i < n; i++)
            Py_XDECREF(items[i]);
        Py_XDECREF(t);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        PyTuple_SET_ITEM(t, i, items[i]);
    return t;
}

/* an index array of the first n entries of idx (None for n < 0) */
static PyObject *indices(const npy_intp *idx, Py_ssize_t n)
{
    if (n < 0)
        Py_RETURN_NONE;
    npy_intp d[1] = {n};
    PyArrayObject *o = (PyArrayObject *)PyArray_SimpleNew(1, d, NPY_INTP);
    if (o != NULL)
        memcpy(PyArray_DATA(o), idx, (size_t)n * sizeof(npy_intp));
    return (PyObject *)o;
}

/* the second test of a certificate that failed its strict one (kkt._dual_error step 2, certify_box's
 * marginal test): the rounding allowance c·(s + the magnitudes the level was formed from). t and s are the
 * stationarity residual and its scale (with the rows' Cᵀz, |C|ᵀ|z| added); l, h the bounds (box case);
 * the verdict is updated (marginal 1 when it passes). */
static void marginal_test(const wk_mat *A, const double *y, const double *r, int on_z, const double *xbar,
                          const double *w, Py_ssize_t k, const double *t, double *s, const double *l,
                          const double *h, double c, double tol, double *scratch, double *mag, verdict *v)
{
    level_magnitude(A, y, r, on_z, xbar, w, k, scratch, mag);
    if (on_z) {
        double dual = 0.0;
        for (Py_ssize_t j = 0; j < k; j++) {
            double d = fabs(t[j]) / (s[j] + c * (s[j] + mag[j]) + 1e-300);
            dual = (d > dual || isnan(d)) ? d : dual;
        }
        v->dual = dual;
        v->ok = dual <= tol && v->primal <= tol;
    } else {
        for (Py_ssize_t j = 0; j < k; j++)
            mag[j] = s[j] + c / (1.0 + c) * (s[j] + mag[j]);
        double smax;
        double worst = wk_natural_core(k, w, t, mag, l, h, NULL, &smax) / (1.0 + c);
        v->primal = v->dual = worst;
        v->ok = worst <= tol;
    }
    v->marginal = v->ok;
}

/* kkt.oversized on the level: w is beyond what the level's data resolve when the rounding of the products
 * it enters, ε·m·‖w‖₂ (m the largest entry of H — on its diagonal: H is semidefinite — and, on a null
 * space, of the rows M), exceeds tol·(1 + the largest finite |g|, l, h). The relative tests of the
 * certificate grow with the answer: this one is judged against the data alone, so that a point far out
 * along a free direction of a semidefinite level (DAQP's factorisation of its singular H) is refused. */
static int oversized(const level *lv, const double *w)
{
    Py_ssize_t k = lv->k, mr = lv->mr;
    double m = 0.0, ww = 0.0;
    for (Py_ssize_t j = 0; j < k; j++) {
        double d = lv->H[j * k + j];
        m = d > m ? d : m;
        ww += w[j] * w[j];
    }
    if (lv->on_z)
        for (Py_ssize_t i = 0; i < mr * k; i++) {
            double a = fabs(lv->M[i]);
            m = a > m ? a : m;
        }
    double rounding = DBL_EPSILON * m * sqrt(ww);
    if (rounding <= lv->tol) /* (the data scale is ≥ 1: the usual case needs no look at the data) */
        return 0;
    double data = 0.0;
    for (Py_ssize_t j = 0; j < k; j++)
        data = fabs(lv->g[j]) > data ? fabs(lv->g[j]) : data;
    for (Py_ssize_t i = 0; i < mr; i++) {
        if (isfinite(lv->l[i]) && fabs(lv->l[i]) > data)
            data = fabs(lv->l[i]);
        if (isfinite(lv->h[i]) && fabs(lv->h[i]) > data)
            data = fabs(lv->h[i]);
    }
    return !(rounding <= lv->tol * (1.0 + data));
}

/* the certificate of w (multipliers lam) on the level, strict then marginal (marginal_test), then the
 * bound on the answer (oversized), into *v: 0, or -1 with an exception set */
static int certify_level(const level *lv, const double *w, const double *lam, verdict *v)
{
    Py_ssize_t k = lv->k;
    if (!all_finite(k, w)) {
        v->ok = 0;
        return 0;
    }
    if (lv->lo ? wk_ls_gradient_ranged(lv->A, lv->e, lv->r, lv->xbar, w, lv->lo, lv->hi, lv->t, lv->s) < 0
               : wk_ls_gradient_core(lv->AZ, lv->e, lv->r, lv->Z, lv->xbar, w, lv->t, lv->s) < 0)
        return -1;
    double c = 8.0 * (double)(k + 1) * DBL_EPSILON / lv->tol; /* (the rounding allowance of kkt.py) */
    if (lv->on_z) {
        wk_mat Mm = {lv->M, lv->mr, k, k, 1};
        v->primal = wk_rows_core(&Mm, lv->l, lv->h, w, lam, lv->t, lv->s, &v->smax);
        v->dual = wk_scaled_core(k, lv->t, lv->s, c);
        v->ok = v->dual <= lv->tol && v->primal <= lv->tol;
    } else {
        double worst = wk_natural_core(k, w, lv->t, lv->s, lv->l, lv->h, lam, &v->smax);
        v->primal = v->dual = worst / (1.0 + c);
        v->ok = worst <= lv->tol * (1.0 + c) && v->primal <= lv->tol;
    }
    v->marginal = 0;
    if (!v->ok)
        marginal_test(lv->A, lv->y, lv->r, lv->on_z, lv->xbar, w, k, lv->t, lv->s, lv->l, lv->h, c, lv->tol,
                      lv->scratch, lv->mag, v);
    if (v->ok && oversized(lv, w))
        v->ok = v->marginal = 0;
    return 0;
}

/* The level's unconstrained least-squares minimiser nearest w_ref (wk_level_minimiser: QR of
 * R = [A Z; diag(√r) Z]; w_ref: the level's last answer) with zero multipliers, certified: when it meets the level's rows and bounds it is the optimum, and the
 * verdict says so (retried = 2); otherwise v->ok stays 0 and DAQP solves the level. The caller asks for it
 * where the level's optimum had no active constraint last time and DAQP needed many proximal iterations
 * for it (weights over twelve decades: DAQP's proximal weight √zero_tol·max diag H against curvatures
 * 1e-12 of it, 100+ iterations), where one QR costs less. 0, or -1 with an exception set. */
static int unconstrained_minimiser(const level *lv, const double *w_ref, double *w, double *lam, verdict *v)
{
    int got = wk_level_minimiser(lv->AZ, lv->e, lv->r, lv->Z, lv->xbar, w_ref, w);
    if (got <= 0)
        return got;
    memset(lam, 0, (size_t)lv->mr * sizeof(double));
    if (certify_level(lv, w, lam, v) < 0)
        return -1;
    v->retried = v->ok ? 2 : 0;
    return 0;
}

/* Pᵀ W P = L Lᵀ, pivoted Cholesky of the symmetric k × k W in place (complete pivoting on the diagonal, as
 * LAPACK's dpstrf: the largest remaining diagonal entry first; stops at the first one ≤ tol), L in W's lower
 * triangle, row-major: the memory of dpstrf's upper factor U = Lᵀ, column-major (U(i, j) = W[i + j k]).
 * piv: the 1-based original index at each position (dpstrf's); c: k doubles of scratch. Returns the rank.
 * Each step's trailing update W_il −= c_i c_l runs over contiguous rows (c: L's column j), where dpstf2
 * calls dgemv per column (cheaper on the 32 × 32 Talos contact level: docs/benchmarks.md). */
static int pivoted_cholesky(double *W, Py_ssize_t k, double tol, int *piv, double *c)
{
    for (Py_ssize_t j = 0; j < k; j++)
        piv[j] = (int)j + 1;
    for (Py_ssize_t j = 0; j < k; j++) {
        Py_ssize_t p = j;
        double best = W[j * k + j];
        for (Py_ssize_t i = j + 1; i < k; i++)
            if (W[i * k + i] > best) {
                best = W[i * k + i];
                p = i;
            }
        if (!(best > tol))
            return (int)j;
        if (p != j) { /* (a symmetric swap of j and p on the lower triangle) */
            double t;
            for (Py_ssize_t l = 0; l < j; l++) {
                t = W[j * k + l], W[j * k + l] = W[p * k + l], W[p * k + l] = t;
            }
            for (Py_ssize_t l = j + 1; l < p; l++) {
                t = W[l * k + j], W[l * k + j] = W[p * k + l], W[p * k + l] = t;
            }
            for (Py_ssize_t l = p + 1; l < k; l++) {
                t = W[l * k + j], W[l * k + j] = W[l * k + p], W[l * k + p] = t;
            }
            t = W[j * k + j], W[j * k + j] = W[p * k + p], W[p * k + p] = t;
            int q = piv[j];
            piv[j] = piv[p], piv[p] = q;
        }
        double d = sqrt(best);
        W[j * k + j] = d;
        for (Py_ssize_t i = j + 1; i < k; i++)
            c[i] = W[i * k + j] /= d;
        for (Py_ssize_t i = j + 1; i < k; i++) {
            double ci = c[i], *row = W + i * k;
            for (Py_ssize_t l = j + 1; l <= i; l++)
                row[l] -= ci * c[l];
        }
    }
    return (int)k;
}

/* The level's unconstrained minimiser nearest w = 0 (x nearest x̄) by pivoted Cholesky, with zero
 * multipliers, certified: when it meets the level's rows and bounds and passes the certificate (strict, or
 * marginal as DAQP's answers may) it is an optimum (a KKT point of a convex QP), and the verdict says so
 * (retried = 3); otherwise v->ok stays 0 and DAQP solves the level.
 *
 * Pᵀ H P = Uᵀ U (pivoted_cholesky, as LAPACK's dpstrf; U = [U11 U12] of rank r). Pivots² up to
 * k ε max diag H are H's null directions, exact zeros in floating point; every other pivot² must be at
 * least CHOLESKY_PIVOT · max diag H, else the level is DAQP's (the certificate, relative to the level's
 * scale, could not tell a direction of curvature 1e-12 of it set to the least norm from its optimum). In
 * u = Pᵀ w the minimisers are u = [u₁ − B t; t] with U11ᵀU11 u₁ = −(Pᵀg)₁, B = U11⁻¹U12 and t free (H's
 * null directions: a contact level's internal forces, on which only the level below has a cost); the one
 * nearest 0 has (I + BᵀB) t = Bᵀu₁ (dpotrf, dpotrs), the point DAQP's proximal iterations from 0 approach.
 * DAQP's answer, when no constraint is active, is this point (up to rounding), at the cost of its full
 * setup (the product of every row with the inverse factor and its working-set loop): on the Talos contact
 * level the whole call is cheaper this way than with DAQP (docs/benchmarks.md). The caller asks for it
 * where the level's optimum had no active constraint last time (a robot standing or swaying on flat feet: its
 * friction cones and torque limits are not touched). Scratch W: 2k² + 4k doubles. 0, or -1 with an
 * exception set. */
static int cholesky_minimiser(const level *lv, double *W, double *w, double *lam, verdict *v)
{
    Py_ssize_t k = lv->k;
    const double *g = lv->g;
    double *U = W, *BG = U + k * k, *work = BG + k * k, *u = work + 2 * k;
    int *piv = (int *)(u + k), n = (int)k, rank = 0, info = 0, one = 1;
    char upper = 'U'; /* (U column-major: U(i, j) = U[i + j k]; H row-major is H column-major, symmetric) */
    double hmax = 0.0;
    for (Py_ssize_t j = 0; j < k; j++)
        hmax = lv->H[j * k + j] > hmax ? lv->H[j * k + j] : hmax;
    if (!(hmax > 0.0) || !isfinite(hmax))
        return 0;
    memcpy(U, lv->H, (size_t)(k * k) * sizeof(double));
    rank = pivoted_cholesky(U, k, (double)k * DBL_EPSILON * hmax, piv, work);
    Py_ssize_t r = rank, d = k - r;
    for (Py_ssize_t i = 0; i < r; i++) /* (a weak direction the factor would resolve only to cond·ε: DAQP's) */
        if (!(U[i + i * k] * U[i + i * k] >= CHOLESKY_PIVOT * hmax))
            return 0;
    int ri = rank, di = (int)d, inc = 1;
    char no = 'N', tr = 'T', left = 'L';
    double plus = 1.0, minus = -1.0, zero = 0.0;
    for (Py_ssize_t i = 0; i < r; i++)
        u[i] = -g[piv[i] - 1];
    if (r > 0) { /* U11ᵀ z = −(Pᵀg)₁, then U11 u₁ = z */
        wk_dtrsv(&upper, &tr, &no, &ri, U, &n, u, &inc);
        wk_dtrsv(&upper, &no, &no, &ri, U, &n, u, &inc);
    }
    if (d > 0) {
        double *B = BG, *G = BG + r * d, *t = u + r; /* (B r × d and G d × d, column-major) */
        for (Py_ssize_t c = 0; c < d; c++)
            memcpy(B + c * r, U + (r + c) * k, (size_t)r * sizeof(double));
        for (Py_ssize_t a = 0; a < d * d; a++)
            G[a] = 0.0;
        for (Py_ssize_t a = 0; a < d; a++)
            G[a + a * d] = 1.0;
        if (r > 0) {
            wk_dtrsm(&left, &upper, &no, &no, &ri, &di, &plus, U, &n, B, &ri); /* B = U11⁻¹ U12 */
            wk_dgemm(&tr, &no, &di, &di, &ri, &plus, B, &ri, B, &ri, &plus, G, &di); /* G = I + BᵀB */
            wk_dgemv(&tr, &ri, &di, &plus, B, &ri, u, &inc, &zero, t, &inc);          /* t = Bᵀu₁ */
        } else {
            for (Py_ssize_t c = 0; c < d; c++)
                t[c] = 0.0;
        }
        wk_dpotrf(&upper, &di, G, &di, &info);
        if (info != 0)
            return 0;
        wk_dpotrs(&upper, &di, &one, G, &di, t, &di, &info);
        if (info != 0)
            return 0;
        if (r > 0)
            wk_dgemv(&no, &ri, &di, &minus, B, &ri, t, &inc, &plus, u, &inc); /* u₁ −= B t */
    }
    for (Py_ssize_t j = 0; j < k; j++)
        w[piv[j] - 1] = u[j];
    memset(lam, 0, (size_t)lv->mr * sizeof(double));
    if (certify_level(lv, w, lam, v) < 0)
        return -1;
    if (!v->ok) /* (a marginal pass is accepted, as it is for DAQP's answer: level_solver._loose) */
        *v = (verdict){0.0, 0.0, 0.0, 0, 0, 0};
    else
        v->retried = 3;
    return 0;
}

/* The box level's answer by primal-dual active-set iterations from a guessed working set (the answer's
 * working set of the last call: a walking robot's joint limits stay active over many steps), for a level
 * without null space (x = w, the bounds l ≤ w ≤ h): the variables of the set are fixed at their bounds, the
 * others are the minimiser of the level with those fixed, H_FF w_F = −(g_F + H_FW w_W), by the Cholesky
 * factor of H_FF (wk_cholesky, wk_cholesky_solve; every pivot² at least CHOLESKY_PIVOT · max diag H,
 * as cholesky_minimiser asks of its pivots; otherwise the level is refused). Then a free variable beyond a bound joins the set at that bound and a
 * fixed one whose gradient t_i = (H w + g)_i pulls it into the box (t_i < 0 at its lower bound, > 0 at its
 * upper one) leaves it. When nothing changes the point goes to the certificate (certify_level: the
 * natural residual of the box, which holds exactly at a KKT point), which decides as for DAQP's answer; a
 * set still changing after BOX_ITERATIONS leaves the level to DAQP. ``set`` (k entries: −1 lower, +1 upper, 0 free; a side without a finite bound is
 * free) is the guess on entry. lam: t_i on the set, 0 elsewhere. Scratch R: k² + 3k doubles. 0 (v->ok
 * says whether it answered; retried = 4, or 3 when no bound is fixed: the unconstrained minimiser), 1 when
 * H_FF is refused (singular, or a pivot below that test: the caller may take cholesky_minimiser, which
 * resolves H's null directions), or -1 with an exception set. */
static int box_active_set(const level *lv, const signed char *guess, double *R, double *w, double *lam, verdict *v)
{
    Py_ssize_t k = lv->k;
    const double *H = lv->H, *g = lv->g, *l = lv->l, *h = lv->h;
    double *U = R, *u = R + k * k;
    int *F = (int *)(u + k);
    signed char *set = (signed char *)(u + 2 * k);
    double hmax = 0.0;
    for (Py_ssize_t j = 0; j < k; j++) {
        hmax = H[j * k + j] > hmax ? H[j * k + j] : hmax;
        set[j] = (guess[j] < 0 && isfinite(l[j])) ? -1 : (guess[j] > 0 && isfinite(h[j])) ? 1 : 0;
    }
    if (!(hmax > 0.0) || !isfinite(hmax))
        return 0;
    for (int iteration = 0; iteration < BOX_ITERATIONS; iteration++) {
        int f = 0;
        for (Py_ssize_t j = 0; j < k; j++) {
            if (set[j])
                w[j] = set[j] < 0 ? l[j] : h[j];
            else
                F[f++] = (int)j;
        }
        for (int a = 0; a < f; a++) { /* (H_FF, and u = −(g_F + H_FW w_W)) */
            const double *row = H + F[a] * k;
            double b = -g[F[a]];
            for (Py_ssize_t j = 0; j < k; j++)
                if (set[j])
                    b -= row[j] * w[j];
            u[a] = b;
            for (int q = 0; q <= a; q++)
                U[a * f + q] = row[F[q]];
        }
        if (f > 0) { /* (H_FF = Uᵀ U: its lower triangle row-major is U column-major, as wk_cholesky reads it) */
            if (wk_cholesky(U, f, CHOLESKY_PIVOT * hmax))
                return 1;
            wk_cholesky_solve(U, f, u);
            for (int a = 0; a < f; a++)
                w[F[a]] = u[a];
        }
        int changed = 0;
        for (Py_ssize_t j = 0; j < k; j++) {
            if (!set[j]) {
                signed char side = w[j] < l[j] ? -1 : w[j] > h[j] ? 1 : 0;
                set[j] = side;
                changed |= side != 0;
                lam[j] = 0.0;
                continue;
            }
            double t = g[j];
            for (Py_ssize_t q = 0; q < k; q++)
                t += H[j * k + q] * w[q];
            lam[j] = t;
            if ((set[j] < 0 && t < 0.0) || (set[j] > 0 && t > 0.0)) {
                set[j] = 0;
                lam[j] = 0.0;
                changed = 1;
            }
        }
        if (!changed)
            break;
        if (iteration + 1 == BOX_ITERATIONS)
            return 0;
    }
    for (Py_ssize_t j = 0; j < k; j++)
        if (!isfinite(w[j]))
            return 0;
    if (certify_level(lv, w, lam, v) < 0)
        return -1;
    int fixed = 0;
    for (Py_ssize_t j = 0; j < k; j++)
        fixed |= set[j] != 0;
    if (!v->ok)
        *v = (verdict){0.0, 0.0, 0.0, 0, 0, 0};
    else
        v->retried = fixed ? 4 : 3; /* (no bound fixed: the unconstrained minimiser by Cholesky) */
    return 0;
}

/* the working set of the box level's answer w (multipliers lam) into set: the side of each bound with a
 * nonzero multiplier (the nearer bound), 0 elsewhere */
static void write_working_set(Py_ssize_t k, const double *w, const double *lam, const double *l, const double *h,
                              signed char *set)
{
    for (Py_ssize_t j = 0; j < k; j++)
        set[j] = lam[j] == 0.0 ? 0 : (fabs(w[j] - l[j]) <= fabs(h[j] - w[j]) ? -1 : 1);
}

/* DAQP's answer w (no active constraint, certified only within rounding, after SLOW_ITERATIONS or more
 * proximal iterations: it crawls along the level's weak directions) replaced by the unconstrained
 * least-squares minimiser nearest it when that passes the certificate (retried = 2; the caller then
 * tries it first next time). 0, or -1 with an exception set. */
static int polish(const level *lv, double *w, double *lam, verdict *v)
{
    Py_ssize_t k = lv->k;
    double *w2 = PyMem_Malloc((size_t)(k + lv->mr + 1) * sizeof(double));
    if (w2 == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    double *lam2 = w2 + k;
    verdict v2 = {0.0, 0.0, 0.0, 0, 0, 0};
    int rc = unconstrained_minimiser(lv, w, w2, lam2, &v2);
    if (rc == 0 && v2.ok) {
        memcpy(w, w2, (size_t)k * sizeof(double));
        memcpy(lam, lam2, (size_t)lv->mr * sizeof(double));
        *v = v2;
    }
    PyMem_Free(w2);
    return rc;
}

/* A second, cold DAQP run on the same level with zero_tol lowered to RETRY_ZERO_TOL, for an answer that
 * failed its certificate. DAQP treats Cholesky pivots below zero_tol·max diag(H) as singular and
 * regularises those directions proximally with ε ≥ √zero_tol·max diag(H) (daqp 0.11, utils.c), so a level
 * whose weights span many decades (cond H ~ 1e12: a weak posture task under a strong hand task) gets its
 * weak directions barely moved from 0 and fails the certificate; with the lower threshold they are
 * factorised as they are. w and lam are replaced when DAQP reports an optimum with finite numbers (1),
 * else left as they were (0); the caller certifies the result as any answer. */
static int retry_pass(const level *lv, int *sense, double *w, double *lam, int *iterations)
{
    Py_ssize_t k = lv->k, mr = lv->mr;
    double settings[WK_DAQP_SETTINGS], *buf = PyMem_Malloc((size_t)(k + mr + 1) * sizeof(double));
    if (buf == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    memcpy(settings, lv->settings, sizeof(settings));
    settings[WK_DAQP_ZERO_TOL] = RETRY_ZERO_TOL;
    double *w2 = buf, *lam2 = buf + k;
    memset(sense, 0, (size_t)mr * sizeof(int));
    int it = 0, flag;
    Py_BEGIN_ALLOW_THREADS
    flag = wk_daqp_run((int)k, (int)mr, lv->on_z ? 0 : (int)k, lv->H, lv->g, lv->on_z ? lv->M : NULL, lv->h, lv->l,
                       sense, settings, w2, lam2, &it);
    Py_END_ALLOW_THREADS
    int used = flag > 0 && all_finite(k, w2) && all_finite(mr, lam2);
    if (used) {
        memcpy(w, w2, (size_t)k * sizeof(double));
        memcpy(lam, lam2, (size_t)mr * sizeof(double));
        *iterations += it;
    }
    PyMem_Free(buf);
    return used;
}

/* fused_level(A, y, r, Z, xbar, C, lo, hi, lb, ub, settings, tol, ls_start, chol_first)
 *   -> (w, z, t, primal, dual, max scale, c_rows, b_rows, exitflag, iterations, x, marginal, retried, active) or None
 *
 * w the answer; without Z (C and its sides None, lb and ub given): z None, t = H w + g (least-squares
 * form), c_rows and b_rows None; with Z: z the rows' multipliers, t None, c_rows / b_rows the indices of
 * the stack rows and of the bounds kept as rows (None: that block is absent). primal, dual and max scale
 * are the certificate's (residuals, stationarity scale minus 1); marginal 1 when it passed only with the
 * rounding allowance of the magnitudes; retried 1 when w is the answer of the second run (retry_pass), 2
 * when it is the unconstrained least-squares minimiser tried first (ls_start, the point it is taken
 * nearest to among several, or None: not tried; unconstrained_minimiser), 3 when it is the unconstrained
 * minimiser by pivoted Cholesky tried first (chol_first true; cholesky_minimiser; before the least-squares
 * minimiser when both are asked for), 4 when it is the answer of primal-dual active-set iterations from a
 * working set (chol_first an int8 array of n entries on a level without Z: −1 at the lower bound, +1 at
 * the upper one, 0 free; box_active_set, then the Cholesky minimiser when the set is empty and H_FF was
 * refused; the answer's working set is written back into it, zeros when the call returns None);
 * active the size of DAQP's final working set (nonzero multipliers); x = clip(x̄ + Z w, lb, ub), the next point (lift_clip). */
PyObject *wk_fused_level(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (wk_nargs(nargs, 14, "fused_level") < 0 || wk_daqp_not_bound("fused_level") || wk_load_lapack() < 0)
        return NULL;
    wk_mat A, Z, C;
    const double *y, *r, *xbar;
    if (wk_level_args(args, &A, &y, &r, &Z, &xbar) < 0 || wk_matrix_or_none(args[5], -1, A.cols, "C", &C) < 0)
        return NULL;
    Py_ssize_t m = A.rows, n = A.cols, k = Z.data ? Z.cols : n, mc = C.data ? C.rows : 0;
    const double *lo, *hi, *lb, *ub;
    if (optional_sides(args + 6, mc, (const char *[]){"lo", "hi"}, &lo, &hi) < 0 ||
        optional_sides(args + 8, n, (const char *[]){"lb", "ub"}, &lb, &ub) < 0)
        return NULL;
    const double *settings = wk_vector(args[10], 19, 0, "settings");
    double tol = settings ? PyFloat_AsDouble(args[11]) : -1.0;
    if (settings == NULL || wk_daqp_settings_ok(settings) < 0 || (tol == -1.0 && PyErr_Occurred()))
        return NULL;
    int on_z = Z.data != NULL, none;
    const double *ls_start = wk_vector_or_none(args[12], on_z ? Z.cols : n, 0, "ls_start", &none);
    if (ls_start == NULL && !none)
        return NULL;
    signed char *guess = NULL; /* (chol_first given as the box level's working set: box_active_set) */
    int chol_first;
    if (PyArray_Check(args[13])) {
        PyArrayObject *ga = (PyArrayObject *)args[13];
        if (on_z || PyArray_TYPE(ga) != NPY_INT8 || PyArray_NDIM(ga) != 1 || PyArray_DIM(ga, 0) != n ||
            !PyArray_IS_C_CONTIGUOUS(ga) || !PyArray_ISWRITEABLE(ga)) {
            PyErr_SetString(PyExc_ValueError, "fused_level: a working set chol_first is a writable int8 array of "
                                              "n entries, on a level without Z");
            return NULL;
        }
        /* (an int8 vector has no byte order or alignment to check; it is written: it overlaps no input) */
        if (wk_disjoint_outputs(args, nargs, 1u << 13, "fused_level (the working set chol_first)") < 0)
            return NULL;
        guess = PyArray_DATA(ga);
        chol_first = 1;
    } else if ((chol_first = PyObject_IsTrue(args[13])) < 0) {
        return NULL;
    }
    if (C.data && (lo == NULL || hi == NULL)) {
        PyErr_SetString(PyExc_ValueError, "fused_level: rows C need both sides");
        return NULL;
    }
    if (!on_z && (C.data || lb == NULL || ub == NULL)) {
        PyErr_SetString(PyExc_ValueError, "fused_level: without Z, bounds on both sides and no rows C");
        return NULL;
    }
    if (n + mc > INT_MAX / 2) {
        PyErr_SetString(PyExc_ValueError, "fused_level: too large");
        return NULL;
    }
    Py_ssize_t mr = on_z ? mc + n : n; /* (most rows DAQP may see) */
    npy_intp dk[1] = {k};
    PyArrayObject *wo = (PyArrayObject *)PyArray_SimpleNew(1, dk, NPY_DOUBLE);
    PyArrayObject *to = (wo && !on_z) ? (PyArrayObject *)PyArray_SimpleNew(1, dk, NPY_DOUBLE) : NULL;
    /* one block: the doubles, then the kept rows' indices (mr + 1), the rows' ranges (without Z: 2m) and DAQP's
     * senses (mr + 1) */
    size_t nd = (size_t)(2 * m + 3 * k * k + 8 * k + 3 * mr) + (on_z ? (size_t)(m * k + mr * k + mc * k + mc) : 0);
    size_t bytes = nd * sizeof(double) + (size_t)(mr + 1) * (sizeof(npy_intp) + sizeof(int)) +
                   (on_z ? 0 : (size_t)(2 * m) * sizeof(Py_ssize_t)); /* (then the rows' ranges, without Z) */
    double *buf = (wo && (to || on_z)) ? PyMem_Malloc(bytes) : NULL;
    PyObject *out = NULL;
    if (buf == NULL) {
        if (wo != NULL && (to || on_z))
            PyErr_NoMemory();
        goto done;
    }
    npy_intp *idx = (npy_intp *)(buf + nd);
    Py_ssize_t *rlo = on_z ? NULL : (Py_ssize_t *)(idx + mr + 1), *rhi = rlo ? rlo + m : NULL;
    int *sense = (int *)(idx + mr + 1 + (on_z ? 0 : 2 * m));
    memset(sense, 0, (size_t)(mr + 1) * sizeof(int)); /* (0: an inequality) */
    if (rlo && !wk_row_ranges(&A, rlo, rhi)) /* (a non-finite A: the plain sums) */
        rlo = rhi = NULL;
    double *e = buf, *H = e + m, *g = H + k * k, *s = g + k, *l = s + k, *h = l + mr, *lam = h + mr;
    double *mag = lam + mr, *scratch = mag + k, *AZd = scratch + m, *M = AZd + (on_z ? m * k : 0), *CZ = M + (on_z ? mr * k : 0), *Cx = CZ + mc * k;
    double *R = Cx + mc, *w = PyArray_DATA(wo), *t = to ? PyArray_DATA(to) : R + 2 * k * k + 4 * k; /* (t: scratch on a null space; R: scratch of cholesky_minimiser) */
    wk_mat AZ = on_z ? (wk_mat){AZd, m, k, k, 1} : A;
    if (wk_level_build(&A, &Z, y, r, xbar, rlo, rhi, AZd, e, H, g) < 0)
        goto done;
    Py_ssize_t rows = n, nc = 0, nb = 0;
    if (on_z) {
        if (level_rows(&C, lo, hi, &Z, xbar, lb, ub, CZ, Cx, M, l, h, idx, &nc, idx + mc, &nb) < 0)
            rows = -1;
        else
            rows = nc + nb;
    } else {
        for (Py_ssize_t i = 0; i < n; i++) {
            l[i] = xbar ? lb[i] - xbar[i] : lb[i];
            h[i] = xbar ? ub[i] - xbar[i] : ub[i];
        }
    }
    verdict v = {0.0, 0.0, 0.0, 0, 0, 0};
    int iterations = 0, flag = 0;
    level lv = {&A, &AZ, &Z, rlo, rhi, y, r, xbar, e, H, g, M, l, h, k, on_z ? rows : n, on_z, tol, settings, t, s,
                scratch, mag};
    /* (the Cholesky minimiser first: where it settles the level, H is well conditioned and it is the cheaper
     * of the two; the QR where it refuses a weak direction) */
    int empty = 1;
    for (Py_ssize_t j = 0; guess && j < n; j++)
        empty &= guess[j] == 0;
    int refused = 1; /* (box_active_set refused H_FF, or was not tried) */
    if (guess && rows > 0 && (refused = box_active_set(&lv, guess, R, w, lam, &v)) < 0)
        goto done;
    if (chol_first && empty && refused && rows > 0 && cholesky_minimiser(&lv, R, w, lam, &v) < 0)
        goto done;
    if (!v.ok && ls_start && rows > 0 && unconstrained_minimiser(&lv, ls_start, w, lam, &v) < 0)
        goto done;
    if (v.ok) {
        flag = 1; /* (DAQP's "optimal") */
    } else if (rows > 0) {
        Py_BEGIN_ALLOW_THREADS
        flag = wk_daqp_run((int)k, (int)rows, on_z ? 0 : (int)n, H, g, on_z ? M : NULL, h, l, sense, settings,
                           w, lam, &iterations);
        Py_END_ALLOW_THREADS
        if (flag > 0 && all_finite(k, w) && certify_level(&lv, w, lam, &v) < 0)
            goto done;
        if (v.ok && v.marginal && iterations >= SLOW_ITERATIONS && active(lam, rows) == 0 &&
            polish(&lv, w, lam, &v) < 0)
            goto done;
    }
    if (flag > 0 && !v.ok && rows > 0 && lv.settings[WK_DAQP_ZERO_TOL] > RETRY_ZERO_TOL) {
        int used = retry_pass(&lv, sense, w, lam, &iterations);
        if (used < 0 || (used > 0 && certify_level(&lv, w, lam, &v) < 0))
            goto done;
        v.retried = used;
    }
    if (guess && v.ok)
        write_working_set(n, w, lam, l, h, guess);
    else if (guess)
        memset(guess, 0, (size_t)n);
    if (!v.ok) {
        out = Py_None;
        Py_INCREF(out);
        goto done;
    }
    npy_intp dn[1] = {n};
    PyArrayObject *xo = (PyArrayObject *)PyArray_SimpleNew(1, dn, NPY_DOUBLE);
    if (xo == NULL)
        goto done;
    wk_lift_clip_core(&Z, n, k, w, xbar, lb, ub, PyArray_DATA(xo));
    if (on_z) {
        npy_intp dz[1] = {rows};
        PyArrayObject *zo = (PyArrayObject *)PyArray_SimpleNew(1, dz, NPY_DOUBLE);
        if (zo == NULL) {
            Py_DECREF(xo);
            goto done;
        }
        memcpy(PyArray_DATA(zo), lam, (size_t)rows * sizeof(double));
        PyObject *items[14] = {(PyObject *)wo, (PyObject *)zo, Py_NewRef(Py_None), PyFloat_FromDouble(v.primal),
                               PyFloat_FromDouble(v.dual), PyFloat_FromDouble(v.smax), indices(idx, C.data ? nc : -1),
                               indices(idx + mc, (lb || ub) ? nb : -1), PyLong_FromLong(flag),
                               PyLong_FromLong(iterations), (PyObject *)xo, PyLong_FromLong(v.marginal),
                               PyLong_FromLong(v.retried), PyLong_FromSsize_t(active(lam, rows))};
        out = steal_tuple(items, 14);
    } else {
        PyObject *items[14] = {(PyObject *)wo, Py_NewRef(Py_None), (PyObject *)to, PyFloat_FromDouble(v.primal),
                               PyFloat_FromDouble(v.dual), PyFloat_FromDouble(v.smax), Py_NewRef(Py_None),
                               Py_NewRef(Py_None), PyLong_FromLong(flag), PyLong_FromLong(iterations),
                               (PyObject *)xo, PyLong_FromLong(v.marginal), PyLong_FromLong(v.retried),
                               PyLong_FromSsize_t(active(lam, rows))};
        out = steal_tuple(items, 14);
        to = NULL; /* (taken over by the tuple, or released) */
    }
    wo = NULL;
done:
    PyMem_Free(buf);
    Py_XDECREF(wo);
    Py_XDECREF(to);
    return out;
}
