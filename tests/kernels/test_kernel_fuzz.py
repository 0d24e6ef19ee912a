"""Every ``wbcpy._kernels`` entry point against its definition, over array layouts (issue 27).

Hypothesis picks a kernel, random well-formed arguments, and one change to one argument: a byte-swapped,
misaligned, strided, reversed (negative stride), Fortran-ordered, 0-d or other-dtype array, NaN or ±inf
entries, or an output that overlaps an input in memory. The kernel must then either raise TypeError,
ValueError or IndexError, or give the answer of its definition on the same values:

* a NumPy formula written here (the kernels with a closed form: laws, products, gaps, residual scales,
  bounds, column splits, level equations, ...), computed on native copies of the arguments;
* for the kernels whose definition is an algorithm (null-space updates, certificates, DAQP calls, row
  pinning, the IK search; each checked against NumPy / SciPy / daqp.solve in ``test_kernels.py``,
  ``test_kernel_dls.py`` and the QP tests), the
  kernel's own answer on native, aligned, contiguous copies of the same values: a layout never changes an
  answer.

Non-finite entries follow each kernel's contract: ``nullspace_update`` refuses them (ValueError); the
others must answer as on native copies of the same values (their NaN contracts — a NaN residual, a
failed finiteness test, products that skip A's exact zeros — are tested case by case in
``test_kernels.py`` and ``test_kernel_probes.py``). The run is bounded (1,500 examples, seconds).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pinocchio as pin
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wbcpy import _kernels as kernels
from wbcpy.qp.backends import daqp_direct

BAD_ARGUMENT = (TypeError, ValueError, IndexError)
IDX = np.intp


@dataclass
class Spec:
    """How to call one kernel: clean arguments, its definition, the arguments it writes in place."""

    make: Callable[[np.random.Generator], list[Any]]
    oracle: Callable[[list[Any]], Any] | None = None  # None: the kernel on native contiguous copies
    outputs: tuple[int, ...] = ()
    finite_only: bool = False
    needs_daqp: bool = False
    skip_args: tuple[int, ...] = field(default_factory=tuple)  # arrays not to mutate (e.g. settings)


def _spd(rng: np.random.Generator, n: int) -> np.ndarray:
    M = rng.standard_normal((n + 1, n))
    return M.T @ M + np.eye(n)


# ---------------------------------------------------------------------------------------- definitions
def _state_copy(a: list[Any]) -> Any:
    x, n, limit = a
    ok = type(x) is np.ndarray and x.dtype == np.float64 and x.ndim == 1 and x.shape[0] == n
    return x.copy() if ok and bool(np.all(np.abs(x) <= limit)) else None


def _frame_acceleration(a: list[Any]) -> Any:
    R, t, v, acc = a
    w, dw = v[3:], acc[3:]
    return np.r_[R @ (acc[:3] + np.cross(dw, t) + np.cross(w, v[:3] + np.cross(w, t))), R @ dw]


def _swing_args(rng: np.random.Generator) -> list[Any]:
    t0, Ts = rng.uniform(0, 2), rng.uniform(0.1, 1)
    ends = np.r_[t0, Ts, rng.standard_normal(6), rng.uniform(-3, 3), rng.uniform(-3, 3)]
    return [np.eye(4), np.zeros(6), np.zeros(6), ends, rng.uniform(0, 0.1), t0 + rng.uniform(-0.2, 1.2) * Ts]


def _swing(a: list[Any]) -> Any:
    """The swinging sole: minimum jerk m = 10s³ − 15s⁴ + 6s⁵ and bump 64 s³(1 − s)³, expanded."""
    M, _vel, _acc, e, h, t = a
    t0, T, pa, d, ya, dyaw = e[0], e[1], e[2:5], e[5:8], e[8], e[9]
    s = min(max((t - t0) / T, 0.0), 1.0)
    m, dm = 10 * s**3 - 15 * s**4 + 6 * s**5, 30 * s**2 - 60 * s**3 + 30 * s**4
    ddm = 60 * s - 180 * s**2 + 120 * s**3
    z, dz = 64 * (s**3 - 3 * s**4 + 3 * s**5 - s**6), 64 * (3 * s**2 - 12 * s**3 + 15 * s**4 - 6 * s**5)
    ddz = 64 * (6 * s - 36 * s**2 + 60 * s**3 - 30 * s**4)
    out = M.copy()
    c, sn = np.cos(ya + m * dyaw), np.sin(ya + m * dyaw)
    out[:3, :3] = [[c, -sn, 0.0], [sn, c, 0.0], [0.0, 0.0, 1.0]]
    out[:3, 3] = pa + m * d + [0.0, 0.0, h * z]
    vel = np.r_[dm / T * d + [0.0, 0.0, h * dz / T], 0.0, 0.0, dyaw * dm / T]
    acc = np.r_[ddm / T**2 * d + [0.0, 0.0, h * ddz / T**2], 0.0, 0.0, dyaw * ddm / T**2]
    return None, [out, vel, acc]


def _dcm_args(rng: np.random.Generator) -> list[Any]:
    rows = int(rng.integers(1, 4))
    table = rng.standard_normal((rows, 10))
    table[1:, 1] = table[1:, 0] + rng.uniform(0.1, 1, rows - 1)  # (t_b after t_a)
    k = int(rng.integers(0, rows))
    t = rng.uniform(0, 1) if k == 0 else table[k, 0] + rng.uniform(0, 1) * (table[k, 1] - table[k, 0])
    return [table, k, rng.uniform(2, 5), t, rng.uniform(0.5, 1)]


def _dcm(a: list[Any]) -> Any:
    """The LIPM plan at t: a linear-ZMP segment, or the start phase's cubic DCM (x = ξ − ξ̇/ω + ξ̈/ω² − ξ⃛/ω³
    + E₀ e^{−ωt}); ẋ = ω (ξ − x), ẍ = ω² (x − p)."""
    table, k, w, t, zc = a
    r = table[k]
    if k == 0:
        c = r[:8].reshape(2, 4)  # (a0..a3 per axis)
        xi = c[:, 0] + c[:, 1] * t + c[:, 2] * t**2 + c[:, 3] * t**3
        d1 = c[:, 1] + 2 * c[:, 2] * t + 3 * c[:, 3] * t**2
        d2, d3 = 2 * c[:, 2] + 6 * c[:, 3] * t, 6 * c[:, 3]
        p = xi - d1 / w
        x = xi - d1 / w + d2 / w**2 - d3 / w**3 + r[8:10] * np.exp(-w * t)
    else:
        ta, tb, ax = r[0], r[1], r[2:].reshape(2, 4)  # (p_a, ṗ, C, E per axis)
        p = ax[:, 0] + ax[:, 1] * (t - ta)
        grow = ax[:, 2] * np.exp(w * (t - tb))
        xi, x = p + ax[:, 1] / w + grow, p + 0.5 * grow + ax[:, 3] * np.exp(-w * (t - ta))
    return np.r_[x, zc, w * (xi - x), 0.0, w * w * (x - p), 0.0, p, xi]


def _frame_pose(a: list[Any]) -> Any:
    R, p, Rt, t = a
    H = np.eye(4)
    H[:3, :3], H[:3, 3] = R @ Rt, p + R @ t
    return H


def _frame_jacobian(a: list[Any]) -> Any:
    J, R, p, t, columns = a
    pf = p + R @ t
    out = np.zeros_like(J)
    out[3:, columns] = J[3:, columns]
    out[:3, columns] = J[:3, columns] - np.cross(pf, J[3:, columns].T).T
    return out


def _frame_jacobian_args(r: np.random.Generator) -> list[Any]:
    n = int(r.integers(1, 7))
    columns = np.flatnonzero(r.random(n) < 0.6).astype(IDX)
    return [r.standard_normal((6, n)), pin.SE3.Random().rotation, _vec(r, 3), _vec(r, 3), columns]


def _level_copy_args(r: np.random.Generator) -> list[Any]:
    m = int(r.integers(0, 6))
    return [r.standard_normal((m, int(r.integers(1, 6)))), r.standard_normal(m)]


def _normalize_blocks(a: list[Any]) -> Any:
    q, blocks, tol = a
    norms = [float(np.linalg.norm(q[s : s + n])) for s, n in blocks]
    for (s, n), nb in zip(blocks, norms, strict=True):
        if not abs(nb - 1.0) <= tol:
            return (int(s), int(n), nb), [q]
    for (s, n), nb in zip(blocks, norms, strict=True):
        q[s : s + n] /= nb
    return None, [q]


def _clip(x: np.ndarray, lo: Any, hi: Any) -> np.ndarray:
    return np.maximum(np.minimum(x, hi), lo)


def _velocity_limits(a: list[Any]) -> Any:
    q, qi, P, k, _lb, _ub = a
    kq = np.where(qi >= 0, k * q[np.maximum(qi, 0)], 0.0)
    return None, [_clip(P[0] - kq, -P[2], 0.0), _clip(P[1] - kq, 0.0, P[2])]


def _vector_law(a: list[Any]) -> Any:
    _out, target, x, rate, kp, kd, c = a
    return None, [kp * (target - x) - (0.0 if rate is None else kd * rate) + c]


def _joint_law(a: list[Any]) -> Any:
    _out, target, q, qi, v, vi, kp, kd, c = a
    return None, [kp * (target - q[qi]) - (0.0 if v is None else kd * v[vi]) + c]


def _log3(a: list[Any]) -> Any:
    R, _w = a
    return None, [pin.log3(R)]


def _transform_error(a: list[Any]) -> Any:
    (M,) = a
    if not np.all(np.isfinite(M[:3])):
        return (np.inf, 0.0)  # (documented: inf, and det 0)
    R = M[:3, :3]
    return (float(np.abs(R.T @ R - np.eye(3)).max()), float(np.linalg.det(R)))


def _weighted_rows(a: list[Any]) -> Any:
    _A_out, _y_out, J, target, bias, sw = a
    s = np.ones(J.shape[0]) if sw is None else sw
    b = 0.0 if bias is None else bias
    return None, [s[:, None] * J, s * (target - b)]


def _bounds_gap(a: list[Any]) -> Any:
    lb, ub = a
    d = ub - lb
    return np.inf if d.size == 0 else (np.nan if np.isnan(d).any() else float(d.min()))


def _scaled_error(a: list[Any]) -> Any:
    r, s, c = a
    return float(np.max(np.abs(r) / (s * (1 + c) + 1e-300), initial=0.0))


def _split_columns(a: list[Any]) -> Any:
    M, free, fixed, values = a
    return (M[:, free], M[:, fixed] @ values)


def _level_equations(a: list[Any]) -> Any:
    A, y, r, Z, xbar = a
    AZ = A @ Z
    e = A @ xbar - y
    return (AZ, e, AZ.T @ AZ + Z.T @ np.diag(r) @ Z, AZ.T @ e + Z.T @ (r * xbar))


def _lift_clip(a: list[Any]) -> Any:
    Z, w, xbar, lb, ub = a
    return np.clip(xbar + Z @ w, lb, ub)


def _regulariser_inert(a: list[Any]) -> Any:
    r, Z = a
    return bool(np.abs(r[:, None] * Z).max(initial=0.0) <= 1e-9 * r.max(initial=0.0))


def _in_box(a: list[Any]) -> Any:
    y, lo, hi = a
    return not bool(np.any((y < lo) | (y > hi)))


def _point_outside(a: list[Any]) -> Any:
    """x outside its bounds or rows beyond tol (1 + |side|) / tol (1 + |C x|): wbcpy.qp.hierarchy's check
    of a level with every direction fixed, written with NumPy (each row's product summed in order, as
    the kernel does: a different rounding could flip a decision on a boundary)."""
    x, lb, ub, C, lo, hi, tol = a
    with np.errstate(invalid="ignore", over="ignore"):
        if lb is not None and bool((x < lb - tol * (1.0 + np.abs(lb))).any()):
            return True
        if ub is not None and bool((x > ub + tol * (1.0 + np.abs(ub))).any()):
            return True
        if C is None:
            return False
        for k in range(C.shape[0]):
            c = 0.0
            for j in range(x.shape[0]):
                c += float(C[k, j]) * float(x[j])
            slack = tol * (1.0 + abs(c))
            if c < lo[k] - slack or c > hi[k] + slack:
                return True
    return False


def _point_outside_args(r: np.random.Generator) -> list[Any]:
    """A point, its bounds (or None) and rows (or None), each side inside or 0.1 outside at random."""
    n, m = int(r.integers(1, 6)), int(r.integers(0, 5))
    x = r.uniform(-1, 1, n)
    lb = None if r.random() < 0.3 else x - r.choice([-0.1, 0.5], n, p=[0.1, 0.9])
    ub = None if r.random() < 0.3 else x + r.choice([-0.1, 0.5], n, p=[0.1, 0.9])
    if r.random() < 0.3:
        return [x, lb, ub, None, None, None, 1e-9]
    C = r.standard_normal((m, n))
    c = C @ x
    lo, hi = c - r.choice([-0.1, 0.5], m, p=[0.1, 0.9]), c + r.choice([-0.1, 0.5], m, p=[0.1, 0.9])
    return [x, lb, ub, C, lo, hi, 1e-9]


def _strong_entries(a: list[Any]) -> Any:
    v, tau = a
    idx = np.flatnonzero(np.abs(v) > tau)
    return idx if idx.size else None


# ---------------------------------------------------------------------------------------- arguments
def _joint_limits_args(rng: np.random.Generator) -> list[Any]:
    n = int(rng.integers(1, 6))
    qi = rng.permutation(n).astype(IDX)
    qi[rng.random(n) < 0.3] = -1
    P = np.vstack([-np.ones(n), np.ones(n), rng.uniform(0.5, 2, n), rng.uniform(5, 20, n),
                   rng.uniform(0, 10, n) * (rng.random(n) < 0.5), rng.uniform(0, 10, n)])  # fmt: skip
    return [rng.uniform(-1.2, 1.2, n), rng.uniform(-2, 2, n), qi, P, 0.01]


def _velocity_limits_args(rng: np.random.Generator) -> list[Any]:
    n = int(rng.integers(1, 6))
    qi = rng.permutation(n).astype(IDX)
    qi[rng.random(n) < 0.3] = -1
    P = np.vstack([-rng.uniform(0, 2, n), rng.uniform(0, 2, n), rng.uniform(0.5, 2, n)])
    return [rng.uniform(-1.2, 1.2, n), qi, P, 0.5, np.zeros(n), np.zeros(n)]


def _pose_law_args(rng: np.random.Generator) -> list[Any]:
    n = int(rng.integers(1, 8))
    Md, M = pin.SE3.Random(), pin.SE3.Random()
    return [np.zeros(6), np.zeros(6), Md.rotation.copy(), Md.translation.copy(), M.rotation.copy(),
            M.translation.copy(), rng.standard_normal((6, n)), rng.standard_normal(n), rng.uniform(1, 9, 6),
            rng.uniform(1, 9, 6), rng.standard_normal(6)]  # fmt: skip


def _joint_law_args(rng: np.random.Generator) -> list[Any]:
    n, nq = int(rng.integers(1, 6)), int(rng.integers(6, 9))
    qi, vi = rng.choice(nq, n, replace=False).astype(IDX), rng.choice(nq - 1, n, replace=False).astype(IDX)
    rate = rng.random() < 0.7
    return [np.zeros(n), rng.standard_normal(n), rng.standard_normal(nq), qi,
            rng.standard_normal(nq - 1) if rate else None, vi if rate else None, rng.uniform(1, 9, n),
            rng.uniform(1, 9, n) if rate else None, rng.standard_normal(n)]  # fmt: skip


def _vector_law_args(rng: np.random.Generator) -> list[Any]:
    n = int(rng.integers(1, 7))
    rate = rng.random() < 0.7
    kd = rng.uniform(1, 9, n) if rate else None
    rates = rng.standard_normal(n) if rate else None
    return [np.zeros(n), rng.standard_normal(n), rng.standard_normal(n), rates, rng.uniform(1, 9, n), kd,
            rng.standard_normal(n)]  # fmt: skip


def _ls_args(rng: np.random.Generator, with_z: bool) -> tuple[list[Any], int]:
    m, n = int(rng.integers(1, 7)), int(rng.integers(1, 7))
    if with_z and rng.random() < 0.5:
        k = int(rng.integers(1, n + 1))
        Z = np.linalg.qr(rng.standard_normal((n, n)))[0][:, :k]
        return [rng.standard_normal((m, k)), rng.standard_normal(m), rng.uniform(0, 1e-3, n), Z,
                rng.standard_normal(n)], k  # fmt: skip
    return [rng.standard_normal((m, n)), rng.standard_normal(m), rng.uniform(0, 1e-3, n), None, None], n


def _box_certificate_args(rng: np.random.Generator) -> list[Any]:
    a, k = _ls_args(rng, True)
    lb = -rng.uniform(0.1, 1, k)
    return [*a, rng.uniform(-1, 1, k), lb, -lb, None if rng.random() < 0.5 else np.zeros(k)]


def _rows_certificate_args(rng: np.random.Generator) -> list[Any]:
    a, k = _ls_args(rng, True)
    p = int(rng.integers(1, 5))
    return [*a, rng.uniform(-1, 1, k), rng.standard_normal((p, k)), -np.ones(p), np.ones(p),
            rng.standard_normal(p), 0.5]  # fmt: skip


def _rows_residual_args(rng: np.random.Generator) -> list[Any]:
    p, n = int(rng.integers(1, 5)), int(rng.integers(1, 6))
    C, x, z = rng.standard_normal((p, n)), rng.uniform(-1, 1, n), rng.standard_normal(p)
    return [C, -np.ones(p), np.ones(p), x, z, rng.standard_normal(n), rng.uniform(0.1, 1, n)]


def _nullspace_args(rng: np.random.Generator) -> list[Any]:
    n = int(rng.integers(2, 7))
    m = int(rng.integers(1, n))
    S = rng.standard_normal((m, n))
    x0 = rng.standard_normal(n)
    with_f = rng.random() < 0.6
    return [S, S @ x0 if with_f else None, None, None, 1e-9]


def _kept_rows_args(rng: np.random.Generator) -> list[Any]:
    m, k = int(rng.integers(1, 6)), int(rng.integers(1, 5))
    M = rng.standard_normal((m, k))
    M[rng.random(m) < 0.3] = 0.0
    lo, hi = -rng.uniform(0.5, 1, m), rng.uniform(0.5, 1, m)
    lo[rng.random(m) < 0.2] = -np.inf
    return [M, rng.uniform(-0.1, 0.1, m), lo, hi, bool(rng.random() < 0.5)]


def _selection_matrix(rng: np.random.Generator) -> np.ndarray:
    m, n = int(rng.integers(1, 6)), int(rng.integers(2, 7))
    A = rng.standard_normal((m, n))
    for i in range(m):
        if rng.random() < 0.6:
            A[i] = 0.0
            A[i, rng.integers(n)] = rng.uniform(0.5, 2)
    return A


def _pin_rows_args(rng: np.random.Generator) -> list[Any]:
    A = _selection_matrix(rng)
    n = A.shape[1]
    return [A, n, rng.standard_normal(n), [], None, None, None]


def _split_bounds_args(rng: np.random.Generator) -> list[Any]:
    n = int(rng.integers(1, 7))
    lb = rng.uniform(-1, 0, n)
    ub = lb + rng.uniform(0, 1, n) * (rng.random(n) < 0.7)
    return [lb, ub, 1e-12]


def _split_columns_args(rng: np.random.Generator) -> list[Any]:
    m, n = int(rng.integers(1, 5)), int(rng.integers(2, 7))
    perm = rng.permutation(n).astype(IDX)
    nf = int(rng.integers(0, n + 1))
    return [rng.standard_normal((m, n)), perm[:nf].copy(), perm[nf:].copy(), rng.standard_normal(n - nf)]


def _level_equations_args(rng: np.random.Generator) -> list[Any]:
    m, n = int(rng.integers(1, 7)), int(rng.integers(1, 7))
    k = int(rng.integers(1, n + 1))
    Z = np.linalg.qr(rng.standard_normal((n, n)))[0][:, :k]  # (the kernel's contract: orthonormal columns)
    return [
        rng.standard_normal((m, n)),
        rng.standard_normal(m),
        rng.uniform(0, 1, n),
        Z,
        rng.standard_normal(n),
    ]


def _dynamics_rows_args(rng: np.random.Generator) -> list[Any]:
    nv, mw = int(rng.integers(2, 7)), int(rng.integers(0, 4))
    perm = rng.permutation(nv).astype(IDX)
    nu = int(rng.integers(0, nv))
    return [_spd(rng, nv), rng.standard_normal(nv), rng.standard_normal((mw, nv)), rng.standard_normal(mw),
            np.sort(perm[:nu]), np.sort(perm[nu:]), nv + mw + int(rng.integers(0, 2))]  # fmt: skip


def _daqp_args(rng: np.random.Generator) -> list[Any]:
    n, mc = int(rng.integers(1, 6)), int(rng.integers(0, 4))
    ms = int(rng.integers(0, n + 1))
    A = rng.standard_normal((mc, n))
    x0 = rng.standard_normal(n)
    mid = np.concatenate((x0[:ms], A @ x0))
    w = rng.uniform(0.1, 1, ms + mc)
    return [_spd(rng, n), rng.standard_normal(n), A, mid + w, mid - w, np.zeros(ms + mc, dtype=np.intc),
            daqp_direct.settings_vector({})]  # fmt: skip


def _fused_args(rng: np.random.Generator) -> list[Any]:
    m, n = int(rng.integers(1, 7)), int(rng.integers(1, 7))
    lb = -rng.uniform(0.1, 2, n)
    return [rng.standard_normal((m, n)), rng.standard_normal(m), rng.uniform(1e-9, 1e-6, n), None, None, None,
            None, None, lb, -lb, daqp_direct.settings_vector({}), 1e-6, None, True]  # fmt: skip


def _planar_fk(q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Tip pose (4×4) and Jacobian (6×n) of a planar arm with unit links about z, in closed form."""
    angles = np.cumsum(q)
    with np.errstate(
        invalid="ignore"
    ):  # (a fuzzed infinite limit makes q infinite: NaN pose, as the kernel sees)
        c, s = np.cos(angles), np.sin(angles)
    H = np.eye(4)
    H[:2, :2] = [[c[-1], -s[-1]], [s[-1], c[-1]]]
    H[:2, 3] = c.sum(), s.sum()
    J = np.zeros((6, q.size))
    J[0] = -np.cumsum(s[::-1])[::-1]
    J[1] = np.cumsum(c[::-1])[::-1]
    J[5] = 1.0
    return H, J


def _dls_search_args(rng: np.random.Generator) -> list[Any]:
    n = int(rng.integers(1, 5))
    H = _planar_fk(rng.uniform(-1, 1, n))[0]
    acc = np.zeros(7 * n + 25)
    acc[7 * n + 20 :] = [1e-8, 1e-4, 1e-2, 1e-6, 0.5]  # tol, tol_pause, lam0, lam_min, max_step
    return [_planar_fk, rng.uniform(-1, 1, n), H[:3, :3].copy(), H[:3, 3].copy(), -np.full(n, 1.5),
            np.full(n, 1.5), acc, int(rng.integers(0, 3)), 1, int(rng.integers(0, 6))]  # fmt: skip


def _unit(rng: np.random.Generator) -> list[Any]:
    q = rng.standard_normal(7)
    q[:4] /= np.linalg.norm(q[:4]) * (1 + rng.uniform(-1e-8, 1e-8))
    q[5:7] /= np.linalg.norm(q[5:7])
    return [q, np.array([[0, 4], [5, 2]], dtype=IDX), 1e-6]


def _vec(rng: np.random.Generator, n: int | None = None) -> np.ndarray:
    return rng.standard_normal(int(rng.integers(0, 7)) if n is None else n)


SPECS: dict[str, Spec] = {
    "state_copy": Spec(lambda r: [_vec(r, 4), 4, 10.0], _state_copy),
    "normalize_blocks": Spec(_unit, _normalize_blocks, outputs=(0,)),
    "joint_limits": Spec(_joint_limits_args),
    "velocity_limits": Spec(_velocity_limits_args, _velocity_limits, outputs=(4, 5)),
    "log3": Spec(lambda r: [pin.exp3(r.uniform(-1.5, 1.5, 3)), np.zeros(3)], _log3, outputs=(1,)),
    "pose_law": Spec(_pose_law_args, outputs=(0, 1)),
    "vector_law": Spec(_vector_law_args, _vector_law, outputs=(0,)),
    "joint_law": Spec(_joint_law_args, _joint_law, outputs=(0,)),
    "transform_error": Spec(lambda r: [pin.SE3.Random().homogeneous], _transform_error),
    "frame_classical_acceleration": Spec(
        lambda r: [pin.SE3.Random().rotation, _vec(r, 3), _vec(r, 6), _vec(r, 6)], _frame_acceleration
    ),
    "swing_sample": Spec(_swing_args, _swing, outputs=(0, 1, 2)),
    "dcm_sample": Spec(_dcm_args, _dcm),
    "frame_pose": Spec(
        lambda r: [pin.SE3.Random().rotation, _vec(r, 3), pin.SE3.Random().rotation, _vec(r, 3)], _frame_pose
    ),
    "frame_jacobian": Spec(_frame_jacobian_args, _frame_jacobian),
    "level_copy": Spec(_level_copy_args, lambda a: (a[0].copy(), a[1].copy())),
    "weighted_rows": Spec(
        lambda r: (
            lambda m, n: [
                np.zeros((m, n)),
                np.zeros(m),
                r.standard_normal((m, n)),
                r.standard_normal(m),
                r.standard_normal(m),
                r.uniform(0, 2, m),
            ]
        )(int(r.integers(1, 6)), int(r.integers(1, 6))),
        _weighted_rows,
        outputs=(0, 1),
    ),
    "ls_gradient": Spec(lambda r: (lambda a, k: [*a, r.standard_normal(k)])(*_ls_args(r, True))),
    "natural_residual": Spec(
        lambda r: (
            lambda n: [
                r.uniform(-1, 1, n),
                r.standard_normal(n),
                r.uniform(0.1, 1, n),
                -np.ones(n),
                np.ones(n),
                None,
            ]
        )(int(r.integers(1, 6)))
    ),
    "rows_excess": Spec(
        lambda r: (
            lambda m, n: [r.standard_normal((m, n)), -np.ones(m), np.ones(m), r.uniform(-1, 1, n), 1e-9]
        )(int(r.integers(1, 5)), int(r.integers(1, 5)))
    ),
    "box_certificate": Spec(_box_certificate_args),
    "rows_certificate": Spec(_rows_certificate_args),
    "bounds_gap": Spec(lambda r: (lambda lb: [lb, lb + r.uniform(0, 1, lb.size)])(_vec(r)), _bounds_gap),
    "all_finite": Spec(lambda r: [_vec(r)], lambda a: bool(np.isfinite(a[0]).all())),
    "rows_residual": Spec(_rows_residual_args, outputs=(5, 6)),
    "scaled_error": Spec(
        lambda r: (lambda n: [r.standard_normal(n), r.uniform(0.1, 1, n), 0.5])(int(r.integers(0, 6))),
        _scaled_error,
    ),
    "nullspace_update": Spec(_nullspace_args, finite_only=True),
    "kept_rows": Spec(_kept_rows_args),
    "pin_rows": Spec(_pin_rows_args),
    "split_bounds": Spec(_split_bounds_args),
    "split_columns": Spec(_split_columns_args, _split_columns),
    "level_equations": Spec(_level_equations_args, _level_equations),
    "matmul": Spec(
        lambda r: (lambda m, n, k: [r.standard_normal((m, n)), r.standard_normal((n, k))])(
            int(r.integers(1, 6)), int(r.integers(1, 6)), int(r.integers(1, 6))
        ),
        lambda a: a[0] @ a[1],
    ),
    "lift_clip": Spec(
        lambda r: (
            lambda n, k: [
                r.standard_normal((n, k)),
                r.standard_normal(k),
                r.standard_normal(n),
                -np.ones(n),
                np.ones(n),
            ]
        )(int(r.integers(1, 6)), int(r.integers(1, 6))),
        _lift_clip,
    ),
    "regulariser_inert": Spec(
        lambda r: (
            lambda n: [
                r.uniform(0, 1, n) * (r.random(n) < 0.5),
                r.standard_normal((n, 3)) * (r.random((n, 1)) < 0.5),
            ]
        )(int(r.integers(1, 6))),
        _regulariser_inert,
    ),
    "dynamics_rows": Spec(_dynamics_rows_args),
    "in_box": Spec(
        lambda r: (lambda n: [r.uniform(-1.2, 1.2, n), -np.ones(n), np.ones(n)])(int(r.integers(0, 6))),
        _in_box,
    ),
    "point_outside": Spec(_point_outside_args, _point_outside),
    "strong_entries": Spec(lambda r: [_vec(r), 0.5], _strong_entries),
    "_cholesky_solve": Spec(  # (its NumPy-oracle tests, ill-conditioned and refused: test_cholesky_solve.py)
        lambda r: (lambda n: [_spd(r, n), r.standard_normal(n), 1e-9])(int(r.integers(1, 9))),
        lambda a: np.linalg.solve(a[0], a[1]),
    ),
    "dls_search": Spec(_dls_search_args, outputs=(1, 6)),  # (its NumPy oracle: test_kernel_dls.py)
    "daqp_solve": Spec(_daqp_args, needs_daqp=True, skip_args=(6,)),
    "fused_level": Spec(_fused_args, needs_daqp=True, skip_args=(10,)),
}
KERNEL_NAMES = sorted(SPECS)


def test_every_array_kernel_is_fuzzed() -> None:
    """Every entry point except the binding calls (daqp_bind, daqp_defaults: no arrays in)."""
    public = {n for n in dir(kernels) if not n.startswith("_") and callable(getattr(kernels, n))}
    assert public - set(SPECS) == {"daqp_bind", "daqp_defaults"}


# ---------------------------------------------------------------------------------------- mutations
def _misaligned(x: np.ndarray) -> np.ndarray:
    buf = np.zeros(x.nbytes + x.itemsize + 1, dtype=np.uint8)
    out = np.ndarray(x.shape, dtype=x.dtype, buffer=buf, offset=1)
    out[...] = x
    return out


def _strided(x: np.ndarray) -> np.ndarray:
    big = np.zeros((*x.shape[:-1], 2 * x.shape[-1] + 1) if x.ndim else (), dtype=x.dtype)
    if x.ndim == 0:
        return x
    view = big[..., 1::2]
    view[...] = x
    return view


def _reversed(x: np.ndarray) -> np.ndarray:
    if x.ndim == 0:
        return x
    return x[::-1].copy()[::-1]


def _fortran(x: np.ndarray) -> np.ndarray:
    return np.asfortranarray(x)


def _zero_d(x: np.ndarray) -> np.ndarray:
    return np.array(x.flat[0] if x.size else 0, dtype=x.dtype)


def _other_dtype(x: np.ndarray) -> np.ndarray:
    return x.astype(np.float32 if x.dtype == np.float64 else np.int64 if x.dtype != np.int64 else np.int32)


LAYOUTS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "byte-swapped": lambda x: x.astype(x.dtype.newbyteorder()),
    "misaligned": _misaligned,
    "strided": _strided,
    "reversed": _reversed,
    "fortran": _fortran,
    "0-d": _zero_d,
    "other dtype": _other_dtype,
}
MUTATIONS = [*LAYOUTS, "nan", "inf", "-inf", "overlap"]


def _native(a: Any) -> Any:
    if isinstance(a, np.ndarray):
        return np.array(a, dtype=a.dtype.newbyteorder("="), order="C")
    if isinstance(a, list):
        return [_native(b) for b in a]
    return a


def _answer(spec: Spec, name: str, args: list[Any]) -> Any:
    """(return value, written outputs) of the kernel on these arguments."""
    ret = getattr(kernels, name)(*args)
    return ret, [np.array(args[i]) for i in spec.outputs]


def _expected(spec: Spec, name: str, args: list[Any], finite: bool = True) -> Any:
    """The definition on native copies of the same values (finite False: the kernel on those copies)."""
    native = _native(args)
    if spec.oracle is None or not finite:
        return _answer(spec, name, native)
    out = spec.oracle(native)
    if spec.outputs:
        return out
    return out, []


def _same(got: Any, want: Any) -> bool:
    if got is None or want is None:
        return got is None and want is None
    if isinstance(got, (tuple, list)):
        return (isinstance(want, (tuple, list)) and len(got) == len(want)
                and all(_same(g, w) for g, w in zip(got, want, strict=True)))  # fmt: skip
    if isinstance(got, (bool, np.bool_)):
        return bool(got) == bool(want)
    g, w = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    return g.shape == w.shape and bool(np.allclose(g, w, rtol=1e-9, atol=1e-11, equal_nan=True))


def _overlap(args: list[Any], spec: Spec, rng: np.random.Generator) -> bool:
    """Place one output and one other array argument in one buffer, overlapping; False when impossible."""
    arrays = [
        i for i, a in enumerate(args) if isinstance(a, np.ndarray) and a.size and i not in spec.skip_args
    ]
    outs = [i for i in spec.outputs if isinstance(args[i], np.ndarray) and args[i].size]
    if not outs or len(arrays) < 2:
        return False
    o = outs[int(rng.integers(len(outs)))]
    others = [i for i in arrays if i != o and args[i].dtype == args[o].dtype]
    if not others:
        return False
    i = others[int(rng.integers(len(others)))]
    so, si = args[o].size, args[i].size
    shift = int(rng.integers(max(1, so + si - 1))) - (
        si - 1
    )  # start of i relative to o: they share ≥ 1 entry
    start = max(0, -shift)
    buf = np.zeros(start + max(so, shift + start + si) + 1, dtype=args[o].dtype)
    out = buf[start : start + so].reshape(args[o].shape)
    inp = buf[start + shift : start + shift + si].reshape(args[i].shape)
    out[...] = args[o]
    inp[...] = args[i]
    args[o], args[i] = out, inp
    return True


def _inject(args: list[Any], spec: Spec, value: float, rng: np.random.Generator) -> bool:
    floats = [i for i, a in enumerate(args) if isinstance(a, np.ndarray) and a.dtype == np.float64 and a.size
              and i not in spec.outputs and i not in spec.skip_args]  # fmt: skip
    if not floats:
        return False
    i = floats[int(rng.integers(len(floats)))]
    args[i] = args[i].copy()
    args[i].flat[int(rng.integers(args[i].size))] = value
    return True


def _mutate(args: list[Any], spec: Spec, mutation: str, rng: np.random.Generator) -> bool:
    if mutation == "overlap":
        return _overlap(args, spec, rng)
    if mutation in ("nan", "inf", "-inf"):
        return _inject(args, spec, float(mutation), rng)
    arrays = [i for i, a in enumerate(args) if isinstance(a, np.ndarray) and i not in spec.skip_args]
    if not arrays:
        return False
    i = arrays[int(rng.integers(len(arrays)))]
    args[i] = LAYOUTS[mutation](args[i])
    return True


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(KERNEL_NAMES), mutation=st.sampled_from(MUTATIONS), seed=st.integers(0, 2**32 - 1)
)
def test_kernels_answer_their_definition_or_refuse(name: str, mutation: str, seed: int) -> None:
    spec = SPECS[name]
    if spec.needs_daqp and not daqp_direct.bound():
        return
    rng = np.random.default_rng(seed)
    pin.seed(seed % 2**31)
    args = spec.make(rng)
    clean = _expected(spec, name, args)
    assert _same(_answer(spec, name, _native(args)), clean), "the clean call differs from the definition"
    if not _mutate(args, spec, mutation, rng):
        return
    want_error = spec.finite_only and mutation in ("nan", "inf", "-inf")
    try:
        finite = mutation not in ("nan", "inf", "-inf")
        before = _expected(spec, name, args, finite) if not want_error else None
    except BAD_ARGUMENT:
        before = "refused"  # (the definition itself refuses the values, e.g. a 0-d array)
    try:
        got = _answer(spec, name, args)
    except BAD_ARGUMENT:
        return
    assert not want_error, f"{name} accepted a non-finite entry ({mutation})"
    assert before != "refused", f"{name} accepted arguments its definition refuses ({mutation})"
    assert _same(got, before), f"{name} ({mutation}): {got!r} != {before!r}"


@pytest.mark.parametrize("name", KERNEL_NAMES)
def test_clean_calls_equal_their_definition(name: str) -> None:
    spec = SPECS[name]
    if spec.needs_daqp and not daqp_direct.bound():
        pytest.skip("this daqp release is not bound directly")
    for seed in range(20):
        rng = np.random.default_rng(seed)
        args = spec.make(rng)
        assert _same(_answer(spec, name, _native(args)), _expected(spec, name, args)), seed
