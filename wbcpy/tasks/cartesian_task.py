"""Cartesian task (``type: cart``): motion of a tip frame relative to a root frame, 6 rows.

Task variable (linear over angular, root axes): with world positions p_t, p_r, world angular velocities
ω_t, ω_r, classical origin velocities v_t, v_r and R_r the root's world rotation,

.. math::

    \\dot x_{lin} = R_r^T\\,(v_t - v_r - ω_r × d), \\quad d = p_t - p_r
        \\qquad(= \\tfrac{d}{dt}\\,R_r^T d, \\text{ the tip origin's velocity in root coordinates})

    \\dot x_{ang} = R_r^T\\,(ω_t - ω_r).

With world-aligned frame Jacobians J = [J_lin; J_ang] and classical biases b = J̇q̇ (RobotModel's),

.. math::

    A = R^T \\begin{bmatrix}
        J_{t,lin} - J_{r,lin} + [d]_× J_{r,ang} \\\\
        J_{t,ang} - J_{r,ang} \\end{bmatrix},
    \\quad
    \\text{bias} = R^T \\begin{bmatrix}
        b_{t,lin} - b_{r,lin} - b_{r,ang} × d - 2 ω_r × (v_t - v_r) + ω_r × (ω_r × d) \\\\
        b_{t,ang} - b_{r,ang} - ω_r × ω_t \\end{bmatrix},

so ``A q̈ + bias`` is the time derivative of the relative twist (the ω_r× terms vanish for a fixed root).
The rows are stored in ``ref_frame`` axes (R = R_ref; the root-axes rows rotated by R_refᵀR_r), which is
where references and weights are given. The cost activation·Σ_k w_k (row_k)² in ref axes equals the
root-axes cost with the full weight matrix R_rel diag(w) R_relᵀ per 3×3 block (R_rel = R_rootᵀ R_ref):
no diagonal approximation, and a zero weight frees exactly that ref-frame axis.

At the velocity level the rows are the same A (``A q̇`` is the relative twist above) and there is no
bias: y = the reference twist.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pinocchio as pin
from numpy.typing import NDArray

from ..errors import ConfigError, ConfigKeyError, UnknownNameError
from .config import TaskConfig
from .fields import frame_field
from .references import CartesianReference
from .registry import TaskType, register_task_type
from .task import Task

if TYPE_CHECKING:
    from ..model.robot_model import RobotModel

_LWA = pin.ReferenceFrame.LOCAL_WORLD_ALIGNED


def _cross(a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.float64]:
    """a × b for 3-vectors (cheaper than ``np.cross`` on tiny arrays)."""
    a0, a1, a2 = a
    b0, b1, b2 = b
    return np.array((a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0))


class CartesianTask(Task):
    """Track a 6-D acceleration of ``tip`` relative to ``root`` (any two frames of the robot).

    Attributes:
        root, tip, ref_frame: frame names (resolved defaults).
        root_id, tip_id, ref_id: their Pinocchio frame indices.
        root_fixed: True when the root frame does not move (attached to the universe).
    """

    type = "cart"
    config_fields = (
        frame_field("root", doc="root frame (default: the robot's base link)"),
        frame_field("tip", required=True, doc="the frame whose motion relative to root is tracked"),
        frame_field("ref_frame", doc="frame whose axes references and weights are given in (default: root)"),
    )

    def __init__(
        self, robot: RobotModel, config: TaskConfig, prefix: str = "", level: str = "acceleration"
    ) -> None:
        """Resolve the frames.

        Raises:
            ConfigKeyError: an unknown root, tip or ref_frame (field named).
            ConfigError: tip and root are the same frame.
        """
        root = config.root or robot.root_link
        ref = config.ref_frame or root
        ids = {}
        for key, name in (("root", root), ("tip", config.tip), ("ref_frame", ref)):
            try:
                ids[key] = robot.frame_id(name)
            except UnknownNameError:
                raise ConfigKeyError(
                    f"{prefix}{key}", "frame", name, robot.frame_names, preferred=robot.link_names
                ) from None
        if ids["tip"] == ids["root"]:
            raise ConfigError(f"{prefix}tip", f"tip and root are the same frame ({root!r})")
        super().__init__(robot, config, level)
        frames = robot.model.frames
        self.root, self.tip, self.ref_frame = root, str(config.tip), ref
        self.root_id, self.tip_id, self.ref_id = ids["root"], ids["tip"], ids["ref_frame"]
        self.root_fixed = frames[self.root_id].parentJoint == 0
        ref_fixed = frames[self.ref_id].parentJoint == 0
        rot = frames[self.ref_id].placement.rotation.copy() if ref_fixed else None
        self._ref_rot_const: NDArray[np.float64] | None = rot
        self._ref_identity = rot is not None and np.array_equal(rot, np.eye(3))
        self._direct = self.root_fixed and self._ref_identity  # rows = world-aligned frame Jacobian
        nv = robot.nv
        self._Aw = np.zeros((6, nv))
        self._bw = np.zeros(6)

    # ------------------------------------------------------------------ rows
    def compute(self) -> None:
        """Fill :attr:`A` and :attr:`bias` (ref-frame axes) for the robot's current state."""
        self._src = None
        robot = self.robot
        if self._velocity:  # no bias at the velocity level (it stays zero)
            Jt, bt = robot.frame_jacobian_view(self.tip_id), None
        else:
            Jt, bt = robot.frame_jacobian_bias_view(self.tip_id)
        if self.root_fixed:
            Aw, bw = Jt, bt
        else:
            Aw, bw = self._moving_root_rows(Jt, bt)
        if self._ref_identity:
            np.copyto(self._A, Aw)
            if bw is not None:
                np.copyto(self._bias, bw)
            return
        if self._ref_rot_const is not None:
            Rt = self._ref_rot_const.T
        else:
            Rt = robot.frame_placement_view(self.ref_id).rotation.T
        A = self._A
        np.matmul(Rt, Aw[:3], out=A[:3])
        np.matmul(Rt, Aw[3:], out=A[3:])
        if bw is not None:
            b = self._bias
            b[:3] = Rt @ bw[:3]
            b[3:] = Rt @ bw[3:]

    def fill_rows(self, A_out: NDArray[np.float64], y_out: NDArray[np.float64]) -> None:
        """Write the weighted rows of the current state into ``A_out``/``y_out`` (see :meth:`write_rows`).

        Fixed root with world-aligned ref_frame axes (the common case: a frame relative to the world or
        to a fixed base): the rows are the robot's cached frame Jacobian and bias, written straight into
        the level's buffer (the rows with a positive weight); :attr:`A` and :attr:`bias` are built from
        them only when read.
        """
        if not self._direct:
            self.compute()
            self.write_rows(A_out, y_out)
            return
        if self._velocity:
            J, b = self.robot.frame_jacobian_view(self.tip_id), self._bias  # (zero)
            self._src = (J, None)
        else:
            J, b = self.robot.frame_jacobian_bias_view(self.tip_id)
            self._src = (J, b)
        self._write_rows_from(J, b, A_out, y_out)

    def _moving_root_rows(
        self, Jt: NDArray[np.float64], bt: NDArray[np.float64] | None
    ) -> tuple[NDArray[np.float64], NDArray[np.float64] | None]:
        """World-axes rows and bias of the relative motion for a moving root (rows only when ``bt`` is
        None: the velocity level)."""
        robot = self.robot
        if bt is None:
            Jr, br = robot.frame_jacobian_view(self.root_id), None
        else:
            Jr, br = robot.frame_jacobian_bias_view(self.root_id)
        d = (
            robot.frame_placement_view(self.tip_id).translation
            - robot.frame_placement_view(self.root_id).translation
        )
        Aw = self._Aw
        np.subtract(Jt, Jr, out=Aw)
        Aw[:3] += pin.skew(d) @ Jr[3:]
        if bt is None or br is None:  # (both or neither)
            return Aw, None
        v = robot.v_view
        vt = Jt @ v
        vr = Jr @ v
        wr = vr[3:]
        bw = self._bw
        bw[:3] = (
            bt[:3]
            - br[:3]
            - _cross(br[3:], d)
            - 2.0 * _cross(wr, vt[:3] - vr[:3])
            + _cross(wr, _cross(wr, d))
        )
        bw[3:] = bt[3:] - br[3:] - _cross(wr, vt[3:])
        return Aw, bw

    # ------------------------------------------------------------------ current relative motion
    def pose(self) -> pin.SE3:
        """Current placement of the tip in the root frame (``root_M_tip``)."""
        robot = self.robot
        return robot.frame_placement_view(self.root_id).actInv(robot.frame_placement_view(self.tip_id))

    def twist(self) -> NDArray[np.float64]:
        """Current relative twist (6) in root axes: (d/dt of the tip position in root coordinates,
        ω_tip − ω_root).

        From the cached world-aligned frame Jacobians (the ones the task's rows use): with the tip's
        twist J_t v = (v_t, ω_t), the root's (v_r, ω_r), d = p_t − p_r and the root rotation R_r,
        (R_rᵀ (v_t − v_r − ω_r × d), R_rᵀ (ω_t − ω_r)).
        """
        robot = self.robot
        v = robot.v_view
        vt = robot.frame_jacobian_view(self.tip_id) @ v
        Rt = robot.frame_placement_view(self.root_id).rotation.T
        if self.root_fixed:
            lin, ang = vt[:3], vt[3:]
        else:
            vr = robot.frame_jacobian_view(self.root_id) @ v
            d = (
                robot.frame_placement_view(self.tip_id).translation
                - robot.frame_placement_view(self.root_id).translation
            )
            lin = vt[:3] - vr[:3] - _cross(vr[3:], d)
            ang = vt[3:] - vr[3:]
        twist: NDArray[np.float64] = np.concatenate((Rt @ lin, Rt @ ang))
        return twist

    def root_to_ref_rotation(self) -> NDArray[np.float64]:
        """Rotation R_refᵀ R_root (3×3) that maps root-axes vectors into ref_frame axes."""
        robot = self.robot
        R_ref: NDArray[np.float64] = robot.frame_placement(self.ref_id).rotation
        R_root: NDArray[np.float64] = robot.frame_placement(self.root_id).rotation
        return R_ref.T @ R_root

    def to_ref_axes(self, vec6: NDArray[np.float64]) -> NDArray[np.float64]:
        """Rotate a 6-vector (linear over angular) from root axes into ref_frame axes."""
        vec = np.asarray(vec6, dtype=float)
        if self.ref_id == self.root_id:
            return vec.copy()
        R = self.root_to_ref_rotation()
        return np.concatenate((R @ vec[:3], R @ vec[3:]))


register_task_type(
    TaskType(
        "cart",
        CartesianTask,
        CartesianReference,
        rows=6,
        target="pose",
        velocity_field="twist",
        unit="m|rad",
    )
)
