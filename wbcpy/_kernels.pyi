"""Type stubs of the compiled kernels (C sources in ``csrc/kernels``; see ``kernels.h`` for the contract).

Every array argument is a float64 numpy array (vectors contiguous, matrices any strides; index arrays
intp); outputs are written in place into arrays the caller owns unless a function returns new ones.
Wrong types or shapes raise TypeError / ValueError: these are internal routines.
"""

from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

_F = NDArray[np.float64]
_I = NDArray[np.intp]

def state_copy(x: object, n: int, limit: float) -> _F | None: ...
def normalize_blocks(q: _F, blocks: _I, tol: float) -> tuple[int, int, float] | None: ...
def joint_limits(q: _F, v: _F, q_index: _I, params: _F, dt: float) -> tuple[_F, _F]: ...
def velocity_limits(q: _F, q_index: _I, params: _F, k: float, lb: _F, ub: _F) -> None: ...
def log3(R: _F, w: _F) -> None: ...
def transform_error(M: _F) -> tuple[float, float]: ...
def pose_law(
    out: _F,
    error: _F,
    Rd: _F,
    pd: _F | None,
    R: _F,
    p: _F | None,
    J: _F | None,
    v: _F | None,
    kp: _F,
    kd: _F | None,
    const: _F,
) -> None: ...
def vector_law(out: _F, target: _F, x: _F, rate: _F | None, kp: _F, kd: _F | None, const: _F) -> None: ...
def joint_law(
    out: _F,
    target: _F,
    q: _F,
    q_index: _I,
    v: _F | None,
    v_index: _I | None,
    kp: _F,
    kd: _F | None,
    const: _F,
) -> None: ...
def weighted_rows(
    A_out: _F | None, y_out: _F, J: _F | None, target: _F, bias: _F | None, sw: _F | None
) -> None: ...
def level_equations(A: _F, y: _F, r: _F, Z: _F | None, xbar: _F | None) -> tuple[_F, _F, _F, _F]: ...
def matmul(A: _F, B: _F) -> _F: ...
def lift_clip(Z: _F | None, w: _F, xbar: _F | None, lb: _F | None, ub: _F | None) -> _F: ...
def regulariser_inert(r: _F, Z: _F | None) -> bool: ...
def ls_gradient(AZ: _F, e0: _F, r: _F | None, Z: _F | None, xbar: _F | None, w: _F) -> tuple[_F, _F]: ...
def natural_residual(
    x: _F, t: _F, scale: _F, lb: _F | None, ub: _F | None, z_box: _F | None
) -> tuple[float, float]: ...
def box_certificate(
    AZ: _F,
    e0: _F,
    r: _F | None,
    Z: _F | None,
    xbar: _F | None,
    x: _F,
    lb: _F | None,
    ub: _F | None,
    z_box: _F | None,
) -> tuple[float, float, _F, _F]: ...
def rows_certificate(
    AZ: _F, e0: _F, r: _F | None, Z: _F | None, xbar: _F | None, x: _F, C: _F, lo: _F, hi: _F, z: _F, c: float
) -> tuple[float, float, float, _F, _F]: ...
def rows_residual(C: _F, lo: _F, hi: _F, x: _F, z: _F, t: _F, scale: _F) -> tuple[float, float]: ...
def scaled_error(r: _F, scale: _F, c: float) -> float: ...
def rows_excess(M: _F, lo: _F, hi: _F, x: _F, tol: float) -> float: ...
def point_outside(
    x: _F, lb: _F | None, ub: _F | None, C: _F | None, lo: _F | None, hi: _F | None, tol: float
) -> bool: ...
def bounds_gap(lb: _F, ub: _F) -> float: ...
def all_finite(x: _F) -> bool: ...
def nullspace_update(
    S: _F, f: _F | None, Z: _F | None, xbar: _F | None, rank_tol: float
) -> tuple[_F | None, _F | None, int, float]: ...
def pin_rows(
    A: _F, k: int, xbar: _F | None, blocks: list[_F], C: _F | None, lo: _F | None, hi: _F | None
) -> tuple[_I, _I, _F, _F, _F, _F | None, _F | None, _F | None] | None: ...
def split_bounds(
    lb: _F, ub: _F, fix_tol: float
) -> tuple[_I, _I, _F, _F, _F, bool, bool] | tuple[None, _I]: ...
def split_columns(M: _F, free: _I, fixed: _I, values: _F) -> tuple[_F, _F]: ...
def kept_rows(M: _F, v: _F | None, lo: _F, hi: _F, drop_constant: bool) -> tuple[_F, _F, _F, _I] | None: ...
def dynamics_rows(M: _F, h: _F, J: _F, acc: _F, u: _I, a: _I, n: int) -> tuple[_F, _F, _F, _F]: ...
def in_box(y: _F, lo: _F, hi: _F) -> bool: ...
def daqp_bind(path: str) -> bool: ...
def daqp_defaults() -> _F: ...
def daqp_solve(
    H: _F, f: _F, A: _F, bupper: _F, blower: _F, sense: NDArray[np.intc], settings: _F
) -> tuple[_F, _F, int, int]: ...
def strong_entries(v: _F, tau: float) -> _I | None: ...
def fused_level(
    A: _F,
    y: _F,
    r: _F,
    Z: _F | None,
    xbar: _F | None,
    C: _F | None,
    lo: _F | None,
    hi: _F | None,
    lb: _F | None,
    ub: _F | None,
    settings: _F,
    tol: float,
    ls_start: _F | None,
    chol_first: bool | NDArray[np.int8],
) -> (
    tuple[_F, _F | None, _F | None, float, float, float, _I | None, _I | None, int, int, _F, int, int, int]
    | None
): ...
def dls_search(
    fk: Callable[[_F], tuple[object, _F]],
    q_try: _F,
    R_d: _F,
    p_d: _F,
    lo: _F,
    hi: _F,
    acc: _F,
    mode: int,
    phase: int,
    max_iter: int,
) -> tuple[int, int, float, _F]: ...
def frame_classical_acceleration(R: _F, t: _F, v: _F, a: _F) -> _F: ...
def swing_sample(M: _F, vel: _F, acc: _F, ends: _F | None, h: float, t: float) -> None: ...
