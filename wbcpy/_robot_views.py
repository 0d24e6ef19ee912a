"""No-copy accessors of a :class:`~wbcpy.robot.RobotModel` for hot paths (scene tasks, facades).

They return the arrays cached for the current state instead of copies: :class:`~wbcpy.robot.RobotModel`
inherits them from :class:`RobotViewsMixin`. Frame Jacobians and biases are world-aligned at the frame
origin (``pin.LOCAL_WORLD_ALIGNED``), linear rows over angular rows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pinocchio as pin

__all__ = ["RobotViewsMixin"]

_LWA = pin.ReferenceFrame.LOCAL_WORLD_ALIGNED


class RobotViewsMixin:
    """Views of per-state cached quantities; never write to what they return."""

    if TYPE_CHECKING:
        model: pin.Model
        _data: pin.Data
        state_id: int
        _kin_id: int
        _jac_id: int
        _cbias_id: int
        _n_frames: int
        _jac_cache: dict[int, np.ndarray]
        _bias_cache: dict[int, np.ndarray]
        _com_bias: np.ndarray

        def frame_id(self, frame: str | int) -> int: ...
        def _frame_jacobian(self, fid: int) -> np.ndarray: ...
        def _frame_bias(self, fid: int) -> np.ndarray: ...
        def _ensure_motion(self, quantity: str) -> None: ...
        def _ensure_jacobians(self, quantity: str) -> None: ...
        def _ensure_com(self, quantity: str) -> None: ...

    def frame_jacobian_view(self, frame: str | int) -> np.ndarray:
        """:meth:`frame_jacobian` without the copy: the array cached for the current state.

        Never write to it (every reader of this state shares it). It belongs to this state: a later
        :meth:`update` caches a new array and never changes this one, so it stays a valid snapshot of
        the state it was computed for.
        """
        if type(frame) is not int or not 0 <= frame < self._n_frames:
            frame = self.frame_id(frame)
        return self._frame_jacobian(frame)

    def frame_bias_view(self, frame: str | int) -> np.ndarray:
        """:meth:`frame_bias` without the copy (cached for the current state, never write to it; see
        :meth:`frame_jacobian_view`)."""
        if type(frame) is not int or not 0 <= frame < self._n_frames:
            frame = self.frame_id(frame)
        return self._frame_bias(frame)

    def frame_jacobian_bias_view(self, frame: str | int) -> tuple[np.ndarray, np.ndarray]:
        """(:meth:`frame_jacobian_view`, :meth:`frame_bias_view`) in one call: the hot path of the
        scene's Cartesian tasks (forward kinematics once, then the joint Jacobians reuse it)."""
        if type(frame) is not int or not 0 <= frame < self._n_frames:
            frame = self.frame_id(frame)
        jac = self._jac_cache.get(frame)
        bias = self._bias_cache.get(frame)
        if jac is not None and bias is not None:
            return jac, bias
        if self._kin_id != self.state_id:
            self._ensure_motion("frame bias")
        if bias is None:
            bias = pin.getFrameClassicalAcceleration(self.model, self._data, frame, _LWA).vector.copy()
            self._bias_cache[frame] = bias
        if jac is None:
            if self._jac_id != self.state_id:
                pin.computeJointJacobians(self.model, self._data)  # placements are there already
                self._jac_id = self.state_id
            jac = pin.getFrameJacobian(self.model, self._data, frame, _LWA)
            self._jac_cache[frame] = jac
        return jac, bias

    def joint_jacobians_view(self) -> np.ndarray:
        """Pinocchio's world-frame joint Jacobians ``data.J`` (6×nv) for the current state.

        Column j is the spatial motion of DOF j's axis in world axes, linear part taken at the world
        origin, over the angular part: the velocity of a point p of the body of joint i is
        v(p) = (J_v + [p]×ᵀ J_ω)[:, S_i] q̇[S_i], with S_i the DOFs of the joints that support joint i
        (``model.supports[i]``). Computing it also brings the joint placements ``data.oMi`` to the
        current state. Pinocchio's own buffer: read it before the next state is computed, never write to it.
        """
        if self._jac_id != self.state_id:
            self._ensure_jacobians("joint Jacobians")
        return self._data.J

    def com_jacobian_view(self) -> np.ndarray:
        """:meth:`com_jacobian` without the copy: a view of ``data.Jcom`` (3×nv).

        Computed without the dynamics (see ``_ensure_com``). Unlike the frame views this is Pinocchio's
        own buffer: read it before the next state is computed, and never write to it.
        """
        self._ensure_com("COM Jacobian")
        return self._data.Jcom

    def com_bias_view(self) -> np.ndarray:
        """:meth:`com_bias` without the copy (owned by the current state; never write to it)."""
        if self._cbias_id != self.state_id:
            self._ensure_com("COM bias")
        return self._com_bias
