"""The standard QP handed to backends, what they return, and the KKT certificate every answer must pass.

A backend sees one :class:`StdQP` over the free variables::

    minimise ½ xᵀHx + gᵀx   s.t.   A x = b,   lbC ≤ C x ≤ ubC,   lb ≤ x ≤ ub

and returns a :class:`RawResult` with x and, when it has them, the multipliers (y, z, z_box) in this
convention: at a KKT point

    H x + g + Aᵀ y + Cᵀ z + z_box = 0,

with z_i ≥ 0 when the upper side of row i is active, z_i ≤ 0 when the lower side is (same for z_box).

:func:`certify` decides whether an answer is an optimum: a convex QP's KKT conditions are sufficient, so
an answer that passes them is optimal whatever the backend that produced it. Every test is
**componentwise** (each residual against the magnitudes that meet in that very entry), so a problem whose
task weights span many orders of magnitude cannot hide an error in its weak directions behind the scale
of its strong ones:

* stationarity: |(Hx + g + Aᵀy + Cᵀz + z_box)_i| ≤ tol · (|g_i| + (|H||x|)_i + (|Aᵀ||y|)_i + …);
* primal feasibility: each violation ≤ tol · (1 + (|C||x|)_i + |bound_i|);
* dual feasibility and complementarity: a multiplier whose term is significant in the stationarity
  scale must sit on an active side with the matching sign;
* resolution: the multipliers' terms may not be so large that their rounding alone exceeds the
  tolerance on the gradient's own scale (terms that cancel each other at a vertex whose active rows are
  dependent to rounding would make the relative stationarity test pass anything; ``unresolved``);
* a bound on the answer, judged against the problem's data (``oversized``): the rounding of the
  products the answer enters, ε·m·‖x‖₂ with m the largest entry of H, A and C, may not exceed the
  tolerance on the scale of the data, tol·(1 + the largest finite |g|, |b|, side or bound). Every test
  above is relative to the magnitudes of the answer's own terms, so a point far out along a direction
  the level leaves free (a semidefinite level whose optimal set is unbounded, answered by a
  factorisation of its singular Hessian) would pass them all while its products carry no digit of the
  data; the levels below would then lose their rows and the hard constraints to cancellation.

For a QP with bounds only, the natural residual x − clip(x − (Hx + g), lb, ub) is zero exactly at the
optimum (it measures stationarity, feasibility and the signs of the bound multipliers at once) and needs
no multiplier from the backend: :func:`certify_box` uses it componentwise.

The exact refinement of an inexact answer on its active set and the accurate cost are in
:mod:`wbcpy.qp.refine`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, TypeAlias

import numpy as np
import scipy.sparse as sp

from .._kernels import natural_residual as _natural_residual
from .._kernels import rows_residual as _rows_residual
from .._kernels import scaled_error as _scaled_error

#: a dense float64 array or a scipy sparse matrix (CSC preferred)
Matrix: TypeAlias = np.ndarray | sp.spmatrix | sp.sparray


class LeastSquares(Protocol):
    """Least-squares form of a QP's cost: H = RᵀR, g = −Rᵀd (see :class:`StdQP`)."""

    def rows(self) -> tuple[np.ndarray, np.ndarray]:
        """(R, d)."""
        ...  # pragma: no cover - protocol

    def gradient(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(H x + g, its componentwise scale), computed as Rᵀ(R x − d)."""
        ...  # pragma: no cover - protocol

    def box_certificate(self, x: np.ndarray, lb: np.ndarray | None, ub: np.ndarray | None,
                        z_box: np.ndarray | None) -> tuple[float, float, np.ndarray, np.ndarray]:  # fmt: skip
        """(natural residual, max scale, H x + g, its scale) of bounds lb ≤ x ≤ ub (see
        :func:`certify_box`)."""
        ...  # pragma: no cover - protocol

    def rows_certificate(self, x: np.ndarray, C: np.ndarray, lo: np.ndarray, hi: np.ndarray, z: np.ndarray,
                         c: float) -> tuple[float, float, float, np.ndarray, np.ndarray]:  # fmt: skip
        """(strict stationarity error with allowance c, rows' residual, max scale, H x + g + Cᵀz, its
        scale) of rows lo ≤ C x ≤ hi with multipliers z (see :func:`_certify_rows`)."""
        ...  # pragma: no cover - protocol


#: absolute floor of the componentwise scales (entries whose every term is exactly zero)
_FLOOR = 1e-300
_EPS = float(np.finfo(np.float64).eps)


class StdQP:
    """A validated QP over the free variables: H, g; A x = b; lbC ≤ C x ≤ ubC; lb ≤ x ≤ ub.

    H/A/C are dense arrays or CSC matrices; missing blocks are None; bounds may hold ±inf.

    Attributes:
        mag: optional callable x ↦ the magnitudes of the terms H x + g was formed from (before
            cancellation in forming H and g): entries that cancelled down to rounding noise are judged
            against them.
        ls: optional least-squares form of the cost (:class:`LeastSquares`: ``rows()`` gives ``(R, d)``
            with H = RᵀR and g = −Rᵀd, built only when needed; ``gradient(x)`` gives H x + g in that
            form); used by the certificate and by :func:`refine` for accuracy.
    """

    __slots__ = ("A", "C", "H", "b", "g", "lb", "lbC", "ls", "mag", "sparse", "ub", "ubC")

    def __init__(self, H: Matrix, g: np.ndarray, A: Matrix | None = None, b: np.ndarray | None = None,
                 C: Matrix | None = None, lbC: np.ndarray | None = None, ubC: np.ndarray | None = None,
                 lb: np.ndarray | None = None, ub: np.ndarray | None = None, sparse: bool = False,
                 ls: LeastSquares | None = None,
                 mag: Callable[[np.ndarray], np.ndarray] | None = None) -> None:  # fmt: skip
        self.H, self.g, self.A, self.b, self.C, self.lbC, self.ubC = H, g, A, b, C, lbC, ubC
        self.lb, self.ub, self.sparse, self.ls, self.mag = lb, ub, sparse, ls, mag

    @property
    def n(self) -> int:
        """Number of variables."""
        return int(self.g.shape[0])

    @property
    def meq(self) -> int:
        """Number of equality rows."""
        return 0 if self.A is None else self.A.shape[0]

    @property
    def mc(self) -> int:
        """Number of inequality rows."""
        return 0 if self.C is None else self.C.shape[0]

    @property
    def has_bounds(self) -> bool:
        """True when a bound vector is present."""
        return self.lb is not None or self.ub is not None

    def dense(self) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
        """H, A, C as dense arrays."""
        A, C = self.A, self.C
        return as_dense(self.H), (None if A is None else as_dense(A)), (None if C is None else as_dense(C))

    def full_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """``(lb, ub)`` with ±inf filled in for a missing side."""
        n = self.n
        lb = self.lb if self.lb is not None else np.full(n, -np.inf)
        ub = self.ub if self.ub is not None else np.full(n, np.inf)
        return lb, ub


def as_dense(M: Matrix) -> np.ndarray:
    """M as a dense array (M itself when it is one)."""
    if isinstance(M, np.ndarray):
        return M
    return np.asarray(M.toarray())


@dataclass(slots=True)
class RawResult:
    """What a backend adapter returns (multipliers in this module's convention; None when not reported).

    Attributes:
        x: the solution, or None when the backend failed.
        ok: the backend reports success.
        status: its status text.
        iterations: its iteration count, when reported.
        y, z, z_box: multipliers of equalities, inequality rows and bounds.
        inaccurate: the backend stopped early but x may still be refined into a certified optimum.
    """

    x: np.ndarray | None
    ok: bool
    status: str
    iterations: int | None = None
    y: np.ndarray | None = None
    z: np.ndarray | None = None
    z_box: np.ndarray | None = None
    inaccurate: bool = False


@dataclass(slots=True)
class Certificate:
    """Outcome of :func:`certify`.

    Attributes:
        ok: every KKT condition holds within tolerance.
        primal: largest primal violation relative to its componentwise scale.
        dual: largest stationarity residual relative to its componentwise scale.
        complementarity: largest relative complementarity / sign violation.
        z_box, z: bound and row multipliers of the certified point (for carrying active constraints;
            a box certificate leaves ``z_box`` None and keeps ``gradient``, whose negative is the bound
            multipliers on the bounds x sits at).
        dual_scale: 1 + the largest magnitude met in stationarity (for "strongly active" thresholds).
        marginal: stationarity holds only within the rounding allowance of the problem's formation
            (see :func:`_dual_error`): a more accurate method (:func:`refine`) may still do better.
        gradient: H x + g of a box certificate (None otherwise).
        unresolved: the residuals pass but the multipliers are beyond what double precision resolves
            (see :func:`certify`): ``ok`` is False.
        oversized: the residuals pass but the answer is so large that its own rounding exceeds the
            tolerance on the scale of the problem's data (see :func:`oversized`): ``ok`` is False.
    """

    ok: bool
    primal: float
    dual: float
    complementarity: float
    z_box: np.ndarray | None
    z: np.ndarray | None
    dual_scale: float
    marginal: bool = False
    gradient: np.ndarray | None = None
    unresolved: bool = False
    oversized: bool = False


def _mat_abs_dot(M: Matrix, v: np.ndarray) -> np.ndarray:
    """|M| |v| for a dense or sparse M."""
    out: np.ndarray = abs(M) @ np.abs(v) if sp.issparse(M) else np.abs(M) @ np.abs(v)
    return out


def _finite_abs(v: np.ndarray) -> np.ndarray:
    """|v| with infinite entries (absent sides) counted as 0."""
    a: np.ndarray = np.abs(v)
    a[~np.isfinite(a)] = 0.0
    return a


def _violation(v: np.ndarray, lo: np.ndarray | None, hi: np.ndarray | None, scale: np.ndarray) -> float:
    """Largest of (lo − v)_i / s_i and (v − hi)_i / s_i with s = scale + |finite bound| (0 if feasible)."""
    worst = 0.0
    with np.errstate(invalid="ignore"):
        if lo is not None:
            worst = max(worst, float(np.max((lo - v) / (scale + _finite_abs(lo)), initial=0.0)))
        if hi is not None:
            worst = max(worst, float(np.max((v - hi) / (scale + _finite_abs(hi)), initial=0.0)))
    return worst


def _sign_error(mult: np.ndarray, v: np.ndarray, lo: np.ndarray | None, hi: np.ndarray | None,
                scale_v: np.ndarray, rel_mult: np.ndarray) -> float:  # fmt: skip
    """Relative violation of dual feasibility and complementarity of multipliers ``mult`` on values ``v``.

    ``rel_mult`` is each multiplier's stationarity term relative to the stationarity scale of the
    variables it touches; a negligible one is ignored. Otherwise the side its sign names must be active:
    the slack to that side relative to ``scale_v`` is the error (∞ when that side is absent).
    """
    n = v.shape[0]
    up = hi - v if hi is not None else np.full(n, np.inf)
    dn = v - lo if lo is not None else np.full(n, np.inf)
    slack = np.where(mult > 0.0, up, dn)
    with np.errstate(invalid="ignore", over="ignore"):
        rel_slack = np.abs(slack) / scale_v
    return float(np.max(np.minimum(rel_mult, rel_slack), initial=0.0))


def _dual_error(r: np.ndarray, scale: np.ndarray, tol: float, q: StdQP | None = None,
                x: np.ndarray | None = None) -> tuple[float, bool]:  # fmt: skip
    """(error, marginal): max_i |r_i| / (scale_i + ρ_i/tol), the stationarity error of entry i relative to
    the magnitudes met in it, with a rounding allowance ρ_i tried in three steps.

    1. ρ_i = c·scale_i (c = 8(n + 1)ε): componentwise. Passing here is a strict certificate.
    2. ρ_i = c·(scale_i + m_i), m the magnitudes H and g were *formed* from (``q.mag``: projections onto a
       null space cancel entries down to noise, very unequal weights make strong rows' rounding swamp
       weak rows), still componentwise.

    Passing only at step 2 is ``marginal``: the answer is optimal up to what double precision
    resolves in this problem, and a more accurate method (:func:`refine`, least-squares QR) may do
    better. Componentwise first: weights spanning many orders of magnitude cannot hide an error in a
    weak entry behind a strong one unless rounding makes it invisible.
    """
    c = 8.0 * (r.shape[0] + 1) * _EPS / tol
    err = _scaled_error(r, scale, c)
    if err <= tol:
        return err, False
    return _marginal_dual_error(r, scale, c, q, x), True


def _marginal_dual_error(r: np.ndarray, scale: np.ndarray, c: float, q: StdQP | None,
                         x: np.ndarray | None) -> float:  # fmt: skip
    """Step 2 of :func:`_dual_error`: the allowance c·(scale + the magnitudes H and g were formed from)."""
    mag = scale + (q.mag(x) if q is not None and x is not None and q.mag is not None else 0.0)
    return float(np.max(np.abs(r) / (scale + c * mag + _FLOOR), initial=0.0))


def _gradient(H: Matrix, g: np.ndarray, x: np.ndarray, q: StdQP | None) -> tuple[np.ndarray, np.ndarray]:
    """Hx + g and its componentwise scale. In least-squares form (H = RᵀR, g = −Rᵀd, from ``q.ls``) the
    gradient is Rᵀ(Rx − d) with scale |Rᵀ||Rx − d|: the residuals of rows that are met vanish, so a weak
    row's error is not drowned by the size of strong rows' terms (|H||x| would be)."""
    if q is not None and q.ls is not None:
        return q.ls.gradient(x)
    t: np.ndarray = H @ x
    scale = _mat_abs_dot(H, x)
    scale += np.abs(g)
    t += g
    return t, scale


def certify_box(H: Matrix, g: np.ndarray, x: np.ndarray, lb: np.ndarray | None, ub: np.ndarray | None,
                tol: float, q: StdQP | None = None,
                z_box: np.ndarray | None = None) -> Certificate:  # fmt: skip
    """Certificate of a QP with bounds only (or none); the bound multipliers are implied by x.

    With t = Hx + g (least-squares form when ``q`` has one) and its componentwise scale s: a free
    variable needs t_i = 0, one at its lower bound t_i ≥ 0 (the cost grows inwards), one at its upper
    bound t_i ≤ 0. All of it, and feasibility, is the natural residual of the scaled projected gradient

        ρ_i = |x_i − clip(x_i − D_i t_i, lb_i, ub_i)| / (1 + |x_i|),   D_i = (1 + |x_i|) / s_i,

    which is |t_i|/s_i for a free variable (gradient units, componentwise), the relative distance to the
    box for an infeasible one, and 0 at an active bound with the right sign — a wrong sign gives
    min(|t_i|/s_i, relative box width): neither the box nor the size of the weights can hide an error.
    max ρ ≤ tol·(1 + c) (c: the rounding allowance of :func:`_dual_error`) is a strict certificate; a
    second test with the magnitudes H and g were formed from is ``marginal``. The gradient is kept in
    ``gradient``: the bound multipliers are −t on the bounds x sits at.

    When the backend reports bound multipliers ``z_box`` that are all zero (it claims no active bound),
    the test is |t_i|/s_i and feasibility (a false claim fails it). One compiled pass
    (:func:`wbcpy._kernels.natural_residual`).
    """
    ls = None if q is None else q.ls
    c = 8.0 * (x.shape[0] + 1) * _EPS / tol
    if ls is None:
        t, scale = _gradient(H, g, x, q)
        err, smax = _natural_residual(x, t, scale, lb, ub, z_box)
    else:  # (the gradient in least-squares form and the residual: one compiled pass)
        err, smax, t, scale = ls.box_certificate(x, lb, ub, z_box)
    marginal = False
    if not err <= tol * (1.0 + c) and q is not None and q.mag is not None:
        marginal = True
        err = _natural_residual(x, t, scale + c / (1.0 + c) * (scale + q.mag(x)), lb, ub, None)[0]
    err /= 1.0 + c
    return Certificate(err <= tol, err, err, 0.0, None, None, 1.0 + smax, marginal, t)


def _certify_rows(q: StdQP, C: np.ndarray, lo: np.ndarray, hi: np.ndarray, x: np.ndarray, z: np.ndarray,
                  tol: float) -> Certificate:  # fmt: skip
    """:func:`certify` for rows lbC ≤ C x ≤ ubC only (a hierarchy level over a null space), in few steps.

    Stationarity r = t + Cᵀz against the componentwise scale s + |Cᵀ||z| (as :func:`_dual_error`).
    Feasibility, the sign of each z_i and complementarity are one natural residual per row,
    |c_i − clip(c_i + κ_i z_i, lbC_i, ubC_i)| / (1 + |c_i|) with c = C x and κ_i = (1 + |c_i|)·σ_i, σ_i =
    max_j |C_ij| / s_j the weight row i's multiplier has in stationarity: 0 when z_i = 0 and the row is
    feasible, or when z_i names the side the row sits at; otherwise the relative slack or the multiplier's
    relative size, whichever is smaller. A certificate that passes stationarity only within the rounding
    allowance (``marginal``) judges the multipliers' weights σ_i on that same allowance's scale: a
    multiplier below the rounding of the terms stationarity was accepted with names no side (at a
    degenerate vertex of an ill-conditioned level its sign is rounding).
    """
    ls = q.ls
    c = 8.0 * (x.shape[0] + 1) * _EPS / tol
    if ls is None:
        t, scale = _gradient(q.H, q.g, x, q)
        compl, smax = _rows_residual(C, lo, hi, x, z, t, scale)  # (adds Cᵀz to t, |C|ᵀ|z| to scale first)
        dual, marginal = _dual_error(t, scale, tol, q, x)
    else:  # (gradient, rows and the strict stationarity test: one compiled pass)
        dual, compl, smax, t, scale = ls.rows_certificate(x, C, lo, hi, z, c)
        marginal = not dual <= tol
        if marginal:
            dual = _marginal_dual_error(t, scale, c, q, x)
    if marginal and not compl <= tol:
        mag = scale + (q.mag(x) if q.mag is not None else 0.0)
        compl = _natural_rows_residual(C, lo, hi, x, z, scale + c * mag)
    ok = dual <= tol and compl <= tol
    return Certificate(ok, compl, dual, compl, None, z, 1.0 + smax, marginal)


def _natural_rows_residual(C: np.ndarray, lo: np.ndarray, hi: np.ndarray, x: np.ndarray, z: np.ndarray,
                           scale: np.ndarray) -> float:  # fmt: skip
    """max_i |c_i − clip(c_i + κ_i z_i, lo_i, hi_i)| / (1 + |c_i|) with c = C x, κ_i = (1 + |c_i|)·σ_i and
    σ_i = max_j |C_ij| / scale_j (:func:`_certify_rows`' residual on a given stationarity scale)."""
    cx = C @ x
    sigma = (np.abs(C) / (scale + _FLOOR)).max(axis=1, initial=0.0)
    kappa = (1.0 + np.abs(cx)) * sigma
    with np.errstate(invalid="ignore"):
        r = np.abs(cx - np.clip(cx + kappa * z, lo, hi)) / (1.0 + np.abs(cx))
    return float(np.max(r, initial=0.0))


def certify(q: StdQP, x: np.ndarray, y: np.ndarray | None, z: np.ndarray | None, z_box: np.ndarray | None,
            tol: float) -> Certificate:  # fmt: skip
    """Full KKT certificate of (x, y, z, z_box) for ``q`` (see the module docstring); missing multipliers
    count as zero.

    A certificate whose multipliers are beyond what double precision resolves fails (``unresolved``):
    when the rounding of the multiplier terms alone, ρ·max_i (|Aᵀ||y| + |Cᵀ||z| + |z_box|)_i with
    ρ = 8(n + 1)ε, exceeds the tolerance on the gradient's own scale, tol·(1 + max_i s_i) (s the
    componentwise scale of H x + g), those terms cancel each other down to the gradient and the relative
    stationarity test measures nothing. An active-set backend reports such multipliers at a vertex whose
    active rows are dependent to rounding (multipliers of 1e13 over rows tight at a point far from the
    level's optimum can pass with a relative residual of 1e-14)."""
    cert = _certify(q, x, y, z, z_box, tol)
    if cert.ok and (y is not None or z is not None) and _unresolved(q, x, cert, tol):
        cert.ok = False
        cert.unresolved = True
    if cert.ok and oversized(q, x, tol):
        cert.ok = False
        cert.oversized = True
    return cert


def oversized(q: StdQP, x: np.ndarray, tol: float) -> bool:
    """True when x is beyond what the problem's data resolve: the rounding of the products it enters,
    ε·m·‖x‖₂ (m the largest |entry| of H, A and C; H is positive semidefinite, so its largest entry is on
    its diagonal), exceeds ``tol``·(1 + the largest finite |g|, |b|, side or bound).

    Every other test of the certificate is relative to the magnitudes of the answer's own terms, which
    grow with the answer: this one is judged against the data alone. It is what lets a semidefinite
    level's answer be trusted when the backend factorised a Hessian that is singular to rounding (a
    point ~1e18 along a free direction passes the relative tests)."""
    if not x.size:
        return False
    m = _matrix_scale(q)
    rounding = _EPS * m * math.sqrt(float(x @ x))
    if rounding <= tol:  # (the data scale is ≥ 1: the usual case needs no look at the data)
        return False
    return not rounding <= tol * (1.0 + _data_scale(q))


def _matrix_scale(q: StdQP) -> float:
    """The largest |entry| of the QP's matrices H, A and C (H's on its diagonal: it is semidefinite)."""
    m = float(np.max(q.H.diagonal(), initial=0.0))
    for M in (q.A, q.C):
        if M is not None and M.shape[0] and M.shape[1]:
            data = M.data if sp.issparse(M) else M
            m = max(m, float(np.max(np.abs(data), initial=0.0)))
    return m


def _data_scale(q: StdQP) -> float:
    """The largest finite |entry| of the QP's vectors: g, b, the rows' sides and the bounds."""
    out = 0.0
    for v in (q.g, q.b, q.lbC, q.ubC, q.lb, q.ub):
        if v is not None and v.size:
            a = np.abs(v)
            out = max(out, float(np.max(a, where=np.isfinite(a), initial=0.0)))
    return out


def _unresolved(q: StdQP, x: np.ndarray, cert: Certificate, tol: float) -> bool:
    """The multiplier terms of ``cert`` beyond double precision (see :func:`certify`); the gradient's scale
    is computed only when the certificate's own scale is that large (|scale| > tol/ρ, ~1e7)."""
    rho = 8.0 * (x.shape[0] + 1) * _EPS
    smax = cert.dual_scale - 1.0
    if rho * smax <= tol:
        return False
    _t, gscale = _gradient(q.H, q.g, x, q)
    return bool(rho * smax > tol * (1.0 + float(np.max(gscale, initial=0.0))))


def _certify(q: StdQP, x: np.ndarray, y: np.ndarray | None, z: np.ndarray | None, z_box: np.ndarray | None,
             tol: float) -> Certificate:  # fmt: skip
    """:func:`certify` without the resolution test of its multipliers."""
    if q.A is None and not q.sparse:  # (a hierarchy level: bounds only, or rows only, in few steps)
        fast = _level_certificate(q, x, z, z_box, tol)
        if fast is not None:
            return fast
    r, scale = _gradient(q.H, q.g, x, q)
    primal = _equalities_term(q, x, y, r, scale)
    rows = None
    if q.C is not None and q.mc:
        cx = q.C @ x
        cscale = 1.0 + _mat_abs_dot(q.C, x)
        primal = max(primal, _violation(cx, q.lbC, q.ubC, cscale))
        if z is not None:
            r += q.C.T @ z
            scale += _mat_abs_dot(q.C.T, z)
            rows = (cx, cscale)
    if q.has_bounds:
        primal = max(primal, _violation(x, q.lb, q.ub, 1.0 + np.abs(x)))
        if z_box is not None:
            r += z_box
            scale += np.abs(z_box)
    dual, marginal = _dual_error(r, scale, tol, q, x)
    scale += _FLOOR
    compl = _complementarity(q, x, z, z_box, rows, scale)
    ok = primal <= tol and dual <= tol and compl <= tol  # (False for NaN)
    return Certificate(ok, primal, dual, compl, z_box, z, 1.0 + float(np.max(scale, initial=0.0)), marginal)


def _level_certificate(q: StdQP, x: np.ndarray, z: np.ndarray | None, z_box: np.ndarray | None,
                       tol: float) -> Certificate | None:  # fmt: skip
    """:func:`certify` of a dense QP without equalities that has bounds only (:func:`certify_box`) or rows
    only (:func:`_certify_rows`); None for any other structure."""
    C = q.C
    if C is None:
        return certify_box(q.H, q.g, x, q.lb, q.ub, tol, q, z_box)
    lo, hi = q.lbC, q.ubC
    if q.lb is None and q.ub is None and z is not None and lo is not None and hi is not None:
        return _certify_rows(q, C, lo, hi, x, z, tol)
    return None


def _equalities_term(
    q: StdQP, x: np.ndarray, y: np.ndarray | None, r: np.ndarray, scale: np.ndarray
) -> float:
    """Add Aᵀy to the stationarity residual r (and its scale); return the equalities' violation."""
    if q.A is None or not q.meq:
        return 0.0
    if y is not None:
        r += q.A.T @ y
        scale += _mat_abs_dot(q.A.T, y)
    return _violation(q.A @ x, q.b, q.b, 1.0 + _mat_abs_dot(q.A, x))


def _complementarity(q: StdQP, x: np.ndarray, z: np.ndarray | None, z_box: np.ndarray | None,
                     rows: tuple[np.ndarray, np.ndarray] | None, scale: np.ndarray) -> float:  # fmt: skip
    """Largest sign / complementarity error of the row and bound multipliers (see :func:`_sign_error`)."""
    compl = 0.0
    C = q.C
    if rows is not None and z is not None and C is not None:
        # row i's stationarity terms |z_i||C_ij| against the scale of each column j it touches
        absC = np.abs(as_dense(C))
        rel = np.abs(z) * (absC / scale).max(axis=1, initial=0.0)
        compl = _sign_error(z, rows[0], q.lbC, q.ubC, rows[1], rel)
    if z_box is not None and q.has_bounds:
        compl = max(compl, _sign_error(z_box, x, q.lb, q.ub, 1.0 + np.abs(x), np.abs(z_box) / scale))
    return compl
