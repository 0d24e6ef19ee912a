/* The unconstrained minimiser of a hierarchy level in least-squares form (fused_level's first try on a
 * level whose optimum had no active constraint the last time, after DAQP needed many proximal iterations
 * for it).
 *
 * The level's cost ‖A (x̄ + Z w) − y‖² + Σ_i r_i (x̄ + Z w)_i² is ‖R w − d‖² with R = [A Z; diag(√r) Z] and
 * d = [y − A x̄; −√r ∘ x̄] (Z = I and x̄ = 0 when absent). R is factorised by column-pivoted Householder QR
 * (LAPACK dgeqp3), R P = Q [R₁₁ R₁₂; 0 R₂₂], Qᵀd by dormqr, and w = P [R₁₁⁻¹ (Qᵀd)₁; 0] with the rank the
 * number of |R_ii| > RANK_TOL·|R_00|: a basic minimiser. A semidefinite level (rank < k) has a set of
 * them, and with w_ref the one nearest it is taken (nearest_minimiser): the constraints decide among them
 * (a contact scene's wrench split within the friction cones), and the level's last answer w_ref met them. The QR works on R, not on
 * H = RᵀR, so its error grows with cond(R), not cond(R)² — the point where the weights span many decades
 * (cond H ~ 1e12). Whether w meets the level's constraints, and is therefore its optimum, the caller's
 * certificate decides. */
#include <math.h>
#include <string.h>

#include "kernels.h"

/* relative size of R's diagonal below which a direction counts as free (rank decision) */
#define RANK_TOL 1e-12

/* The minimiser nearest w_ref: the minimisers are w + N v with N = P [−R₁₁⁻¹R₁₂; I] (the p = k − rank free
 * directions of R), and v = argmin ‖w + N v − w_ref‖ solves (NᵀN) v = Nᵀ(w_ref − w) (Cholesky; NᵀN ⪰ I).
 * w is moved in place: 1, or -1 with MemoryError set. */
static int nearest_minimiser(const double *R, int rows, int k, int rank, const int *jpvt, const double *w_ref,
                             double *w)
{
    int p = k - rank;
    double *N = PyMem_Calloc((size_t)k * (size_t)p + (size_t)p * (size_t)p + 2 * (size_t)k, sizeof(double));
    if (N == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    double *G = N + (size_t)k * (size_t)p, *b = G + (size_t)p * (size_t)p, *t = b + k;
    for (int j = 0; j < p; j++) { /* column j of N (row-major k × p): −R₁₁⁻¹ R₁₂[:, j] over the pivots */
        for (int i = rank - 1; i >= 0; i--) {
            double s = -R[(size_t)(rank + j) * (size_t)rows + (size_t)i];
            for (int l = i + 1; l < rank; l++)
                s -= R[(size_t)l * (size_t)rows + (size_t)i] * t[l];
            t[i] = s / R[(size_t)i * (size_t)rows + (size_t)i];
        }
        for (int i = 0; i < rank; i++)
            N[(size_t)(jpvt[i] - 1) * (size_t)p + (size_t)j] = t[i];
        N[(size_t)(jpvt[rank + j] - 1) * (size_t)p + (size_t)j] = 1.0;
    }
    for (int a = 0; a < p; a++) {
        double s = 0.0;
        for (int i = 0; i < k; i++)
            s += N[(size_t)i * (size_t)p + (size_t)a] * (w_ref[i] - w[i]);
        b[a] = s;
        for (int c = 0; c <= a; c++) {
            double g = 0.0;
            for (int i = 0; i < k; i++)
                g += N[(size_t)i * (size_t)p + (size_t)a] * N[(size_t)i * (size_t)p + (size_t)c];
            G[a * p + c] = g;
        }
    }
    for (int a = 0; a < p; a++) { /* G = L Lᵀ in place (lower triangle) */
        for (int c = 0; c <= a; c++) {
            double s = G[a * p + c];
            for (int l = 0; l < c; l++)
                s -= G[a * p + l] * G[c * p + l];
            G[a * p + c] = a == c ? sqrt(s) : s / G[c * p + c];
        }
    }
    for (int a = 0; a < p; a++) { /* L y = b, then Lᵀ v = y (into b) */
        double s = b[a];
        for (int l = 0; l < a; l++)
            s -= G[a * p + l] * b[l];
        b[a] = s / G[a * p + a];
    }
    for (int a = p - 1; a >= 0; a--) {
        double s = b[a];
        for (int l = a + 1; l < p; l++)
            s -= G[l * p + a] * b[l];
        b[a] = s / G[a * p + a];
    }
    for (int i = 0; i < k; i++)
        for (int a = 0; a < p; a++)
            w[i] += N[(size_t)i * (size_t)p + (size_t)a] * b[a];
    PyMem_Free(N);
    return 1;
}

int wk_level_minimiser(const wk_mat *AZ, const double *e, const double *r, const wk_mat *Z, const double *xbar,
                       const double *w_ref, double *w)
{
    int m = (int)AZ->rows, k = (int)AZ->cols, n = Z->data ? (int)Z->rows : k, rows = m + n;
    if (k == 0)
        return 1;
    int lwork = 2 * k + (k + 1) * 64 + 64, info = 0;
    size_t nd = (size_t)rows * (size_t)k + (size_t)rows + (size_t)k + (size_t)lwork;
    double *R = PyMem_Calloc(nd, sizeof(double));
    int *jpvt = PyMem_Calloc((size_t)k, sizeof(int));
    if (R == NULL || jpvt == NULL) {
        PyMem_Free(R);
        PyMem_Free(jpvt);
        PyErr_NoMemory();
        return -1;
    }
    double *d = R + (size_t)rows * (size_t)k, *tau = d + rows, *work = tau + k;
    for (int j = 0; j < k; j++) { /* column-major: R[i + j rows] */
        double *col = R + (size_t)j * (size_t)rows;
        for (int i = 0; i < m; i++)
            col[i] = WK_AT(*AZ, i, j);
        for (int i = 0; i < n; i++) {
            double s = sqrt(r[i]);
            col[m + i] = s * (Z->data ? WK_AT(*Z, i, j) : (double)(i == j));
        }
    }
    for (int i = 0; i < m; i++)
        d[i] = -e[i];
    for (int i = 0; i < n; i++)
        d[m + i] = xbar ? -sqrt(r[i]) * xbar[i] : 0.0;
    int lda = rows > 1 ? rows : 1, kmin = k < rows ? k : rows, one = 1;
    char side = 'L', trans = 'T';
    wk_dgeqp3(&rows, &k, R, &lda, jpvt, tau, work, &lwork, &info);
    if (info == 0)
        wk_dormqr(&side, &trans, &rows, &one, &kmin, R, &lda, tau, d, &lda, work, &lwork, &info);
    int solved = 0;
    if (info == 0) {
        double top = fabs(R[0]);
        int rank = 0;
        while (rank < kmin && fabs(R[(size_t)rank * (size_t)rows + (size_t)rank]) > RANK_TOL * top)
            rank++;
        for (int i = rank - 1; i >= 0; i--) { /* R₁₁ u = (Qᵀd)₁, into d */
            double s = d[i];
            for (int j = i + 1; j < rank; j++)
                s -= R[(size_t)j * (size_t)rows + (size_t)i] * d[j];
            d[i] = s / R[(size_t)i * (size_t)rows + (size_t)i];
        }
        for (int j = 0; j < k; j++)
            w[j] = 0.0;
        for (int i = 0; i < rank; i++)
            w[jpvt[i] - 1] = d[i];
        solved = 1;
        if (w_ref != NULL && rank < k)
            solved = nearest_minimiser(R, rows, k, rank, jpvt, w_ref, w);
    }
    PyMem_Free(jpvt);
    PyMem_Free(R);
    return solved;
}
