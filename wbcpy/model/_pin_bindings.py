"""What the Python bindings of Pinocchio return for M and M⁻¹, checked once per model.

Pinocchio's C++ algorithms fill the upper triangle of M and M⁻¹ only; recent Python bindings copy it to
the lower one (checked with matrices pre-filled with NaN). ``computeMinverse`` and
``cholesky.computeMinv`` return a new array in current bindings (a full symmetric copy that can be handed
out as is). :class:`~wbcpy.model.robot_model.RobotModel` uses the answers to skip copies and symmetrisations.

Models with mimic joints: Pinocchio (4.1) refuses them in ``computeAllTerms``, ``computeMinverse``, ABA and
the Cholesky routines. :func:`all_terms` is then the same results from the algorithms that take them
(``crba``, ``nonLinearEffects``, ``computeGeneralizedGravity``, ``forwardKinematics``,
``computeJointJacobians``, ``jacobianCenterOfMass``), and M⁻¹ is the inverse of M (:func:`has_mimic`).

Pinocchio 3.5 to 4.0: the Python binding of ``computeAllTerms`` checks the model for mimic joints on a copy
of the whole ``pin.Model`` at every call (its ``mimic_not_supported_function`` call policy extracts the
model by value; 4.1 extracts a reference, 3.4 has no check), which costs more than the separate
algorithms. :data:`SEPARATE_ALL_TERMS` makes :func:`all_terms` take the separate algorithms there too.
C++ callers (PlaCo, TSID) never pay the copy.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import pinocchio as pin


def _binding_copies_model(version: str) -> bool:
    """True for the Pinocchio versions whose Python ``computeAllTerms`` copies the model at each call:
    3.5.0 (the mimic-joint checks) up to, not including, 4.1.0 (the check on a reference)."""
    major_minor = tuple(int(part) for part in version.split(".")[:2])
    return (3, 5) <= major_minor < (4, 1)


#: :func:`all_terms` takes the separate algorithms for every model (see the module docstring)
SEPARATE_ALL_TERMS = _binding_copies_model(pin.__version__)


#: Pinocchio's world convention of ``crba`` (it also fills ``data.J`` with the joint Jacobians), or None
#: in versions without the convention argument
_WORLD = getattr(getattr(pin, "Convention", None), "WORLD", None)


def has_mimic(model: pin.Model) -> bool:
    """True when the model has mimic joints (see the module docstring)."""
    return int(getattr(model, "nvExtended", model.nv)) != model.nv or any(
        model.joints[j].shortname() == "JointModelMimic" for j in range(1, model.njoints)
    )


def all_terms(model: pin.Model, data: pin.Data, q: np.ndarray, v: np.ndarray, separate: bool) -> bool:
    """``computeAllTerms(q, v)``: M, nle, g, joint placements, velocities and q̈ = 0 accelerations, joint
    Jacobians, COM and COM Jacobian. With ``separate`` (a model with mimic joints, or
    :data:`SEPARATE_ALL_TERMS`) the same results but g from the algorithms that take them, the kinematics
    last (so that ``data.a`` holds the q̈ = 0 accelerations without gravity, as after computeAllTerms),
    and the COM at acceleration level (``data.acom[0]`` = J̇_com q̇ too, the COM of the whole body only).

    Returns:
        True when ``data.g`` holds g(q) (computeAllTerms); False on the separate path, whose caller
        computes g on demand (:func:`gravity`): most steps never read it.
    """
    if not separate:
        pin.computeAllTerms(model, data, q, v)
        return True
    if _WORLD is None:
        pin.crba(model, data, q)
    else:  # the world-convention CRBA computes the joint Jacobians on its way
        pin.crba(model, data, q, _WORLD)
    pin.nonLinearEffects(model, data, q, v)
    pin.forwardKinematics(model, data, q, v, np.zeros(model.nv))
    if _WORLD is None:
        pin.computeJointJacobians(model, data)
    pin.centerOfMass(model, data, pin.KinematicLevel.ACCELERATION, False)
    pin.jacobianCenterOfMass(model, data, False)
    return False


def gravity(model: pin.Model, data: pin.Data, q: np.ndarray) -> None:
    """g(q) into ``data.g`` by ``computeGeneralizedGravity``, which besides g writes only the parent-relative
    placements ``liMi`` (the same values at the same q) and its own gravity accelerations and forces
    (``a_gf``, ``f``): what :func:`all_terms` left for the other readers stays valid."""
    pin.computeGeneralizedGravity(model, data, q)


class BindingProbe(NamedTuple):
    """Answers of :func:`probe_bindings`.

    Attributes:
        fill_M: ``data.M`` is left upper-triangular (wbcpy must mirror it).
        fill_Minv: ``data.Minv`` is left upper-triangular after ``computeMinverse`` or
            ``cholesky.computeMinv``.
        chol_returns_copy: ``cholesky.computeMinv`` returns a new full nv×nv float64 array.
        minv_returns_copy: ``computeMinverse`` returns a new full nv×nv float64 array.
        separate: :func:`all_terms` takes the separate algorithms for this model (mimic joints, or
            :data:`SEPARATE_ALL_TERMS`).
    """

    fill_M: bool
    fill_Minv: bool
    chol_returns_copy: bool
    minv_returns_copy: bool
    separate: bool


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
    separate = mimic or SEPARATE_ALL_TERMS
    all_terms(model, scratch, q, np.zeros(nv), separate)
    fill_M = nv > 1 and bool(np.isnan(scratch.M).any())
    if mimic:  # M⁻¹ is wbcpy's inverse of M (a new full array)
        return BindingProbe(fill_M, False, chol_returns_copy=True, minv_returns_copy=True, separate=True)
    scratch.Minv[:] = np.nan
    minv = pin.computeMinverse(model, scratch, q)
    minv_partial = bool(np.isnan(scratch.Minv).any())
    scratch.Minv[:] = np.nan
    pin.cholesky.decompose(model, scratch)
    chol = pin.cholesky.computeMinv(model, scratch)
    chol_partial = bool(np.isnan(scratch.Minv).any())
    fill_Minv = nv > 1 and (minv_partial or chol_partial)
    return BindingProbe(
        fill_M=fill_M,
        fill_Minv=fill_Minv,
        chol_returns_copy=not fill_Minv and _is_new_matrix(chol, nv, scratch.Minv),
        minv_returns_copy=not fill_Minv and _is_new_matrix(minv, nv, scratch.Minv),
        separate=separate,
    )
