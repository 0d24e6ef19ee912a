"""What the Python bindings of Pinocchio return for M and M⁻¹, checked once per model.

Pinocchio's C++ algorithms fill the upper triangle of M and M⁻¹ only; recent Python bindings copy it to
the lower one (checked with matrices pre-filled with NaN). ``computeMinverse`` and
``cholesky.computeMinv`` return a new array in current bindings (a full symmetric copy that can be handed
out as is). :class:`~wbcpy.model.robot_model.RobotModel` uses the answers to skip copies and symmetrisations.

Models with mimic joints: Pinocchio (4.1) refuses them in ``computeAllTerms``, ``computeMinverse``, ABA and
the Cholesky routines. :func:`all_terms` is then the same results from the algorithms that take them
(``crba``, ``nonLinearEffects``, ``computeGeneralizedGravity``, ``forwardKinematics``,
``computeJointJacobians``, ``jacobianCenterOfMass``), and M⁻¹ is the inverse of M (:func:`has_mimic`).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import pinocchio as pin


def has_mimic(model: pin.Model) -> bool:
    """True when the model has mimic joints (see the module docstring)."""
    return int(getattr(model, "nvExtended", model.nv)) != model.nv or any(
        model.joints[j].shortname() == "JointModelMimic" for j in range(1, model.njoints)
    )


def all_terms(model: pin.Model, data: pin.Data, q: np.ndarray, v: np.ndarray, mimic: bool) -> None:
    """``computeAllTerms(q, v)``: M, nle, g, joint placements, velocities and q̈ = 0 accelerations, joint
    Jacobians, COM and COM Jacobian; for a model with mimic joints (``mimic``) the same results from the
    algorithms that take them (the kinematics last, so that ``data.a`` holds the q̈ = 0 accelerations
    without gravity, as after computeAllTerms)."""
    if not mimic:
        pin.computeAllTerms(model, data, q, v)
        return
    pin.crba(model, data, q)
    pin.nonLinearEffects(model, data, q, v)
    pin.computeGeneralizedGravity(model, data, q)
    pin.forwardKinematics(model, data, q, v, np.zeros(model.nv))
    pin.computeJointJacobians(model, data)
    pin.centerOfMass(model, data, pin.KinematicLevel.VELOCITY, False)
    pin.jacobianCenterOfMass(model, data, False)


class BindingProbe(NamedTuple):
    """Answers of :func:`probe_bindings`.

    Attributes:
        fill_M: ``data.M`` is left upper-triangular (wbcpy must mirror it).
        fill_Minv: ``data.Minv`` is left upper-triangular after ``computeMinverse`` or
            ``cholesky.computeMinv``.
        chol_returns_copy: ``cholesky.computeMinv`` returns a new full nv×nv float64 array.
        minv_returns_copy: ``computeMinverse`` returns a new full nv×nv float64 array.
    """

    fill_M: bool
    fill_Minv: bool
    chol_returns_copy: bool
    minv_returns_copy: bool


def _is_new_matrix(x: Any, nv: int, buffer: np.ndarray) -> bool:
    """True when ``x`` is an nv×nv float64 array that does not share memory with ``buffer``."""
    return (
        isinstance(x, np.ndarray)
        and x.shape == (nv, nv)
        and x.dtype == np.float64
        and not np.shares_memory(x, buffer)
    )


def probe_bindings(model: pin.Model) -> BindingProbe:
    """Run ``computeAllTerms``, ``computeMinverse`` and ``cholesky.computeMinv`` at the neutral
    configuration on a scratch ``pin.Data`` and report what the bindings return."""
    nv = model.nv
    scratch = model.createData()
    q = pin.neutral(model)
    scratch.M[:] = np.nan
    mimic = has_mimic(model)
    all_terms(model, scratch, q, np.zeros(nv), mimic)
    if mimic:  # M⁻¹ is wbcpy's inverse of M (a new full array)
        fill_M = nv > 1 and bool(np.isnan(scratch.M).any())
        return BindingProbe(fill_M=fill_M, fill_Minv=False, chol_returns_copy=True, minv_returns_copy=True)
    scratch.Minv[:] = np.nan
    minv = pin.computeMinverse(model, scratch, q)
    minv_partial = bool(np.isnan(scratch.Minv).any())
    scratch.Minv[:] = np.nan
    pin.cholesky.decompose(model, scratch)
    chol = pin.cholesky.computeMinv(model, scratch)
    chol_partial = bool(np.isnan(scratch.Minv).any())
    fill_M = nv > 1 and bool(np.isnan(scratch.M).any())
    fill_Minv = nv > 1 and (minv_partial or chol_partial)
    return BindingProbe(
        fill_M=fill_M,
        fill_Minv=fill_Minv,
        chol_returns_copy=not fill_Minv and _is_new_matrix(chol, nv, scratch.Minv),
        minv_returns_copy=not fill_Minv and _is_new_matrix(minv, nv, scratch.Minv),
    )
