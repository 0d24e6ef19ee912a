"""Physical plausibility of a URDF's masses, inertias, joint axes and limits.

Checks (names used by ``check_physics`` and by the exemption marker):

* ``mass``: every link mass m ≥ 0 kg;
* ``inertia``: the rotational inertia about the COM is symmetric positive semi-definite (eigenvalues
  λ ≥ −ε; point masses with zero inertia are valid);
* ``triangle``: its principal moments satisfy the triangle inequality λ₁ + λ₂ ≥ λ₃ (every rigid body
  does; ε-tolerant);
* ``axis``: revolute, continuous and prismatic joints have a non-zero axis;
* ``limits``: lower ≤ upper for revolute and prismatic joints; velocity and effort limits ≥ 0.

ε = 1e-9·λ_max + 1e-15 kg·m². A model built from measured or CAD data may legitimately break the triangle
inequality when a link inertia includes the reflected rotor inertia of its motor (robots/puma560.urdf:
Stanford-WBC's PUMA model does so on purpose). Such a link says so in its ``<inertial>``::

    <wbcpy_exempt check="triangle" reason="Izz includes the reflected rotor inertia"/>

urdfdom and Pinocchio ignore the element; wbcpy skips that check for that link only.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Collection

import numpy as np

from ..errors import URDFError, URDFWarning
from .urdf_checks import UrdfTree, XNode

#: the checks :func:`physics_violations` runs, by name
PHYSICS_CHECKS = ("mass", "inertia", "triangle", "axis", "limits")
#: element inside ``<inertial>`` that exempts one link from named checks
EXEMPT_TAG = "wbcpy_exempt"

#: ``check_physics`` values: True (raise), False (skip), "warn" (URDFWarning), or the names of the checks
#: to run (raising)
PhysicsMode = bool | str | Collection[str]


def _floats(node: XNode | None, attr: str, default: str) -> list[float]:
    raw = default if node is None else node.attrib.get(attr, default)
    return [float(x) for x in raw.split()]


def _inertia_matrix(inertia: XNode) -> np.ndarray:
    g = {k: float(inertia.attrib[k]) for k in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")}
    return np.array(
        [[g["ixx"], g["ixy"], g["ixz"]], [g["ixy"], g["iyy"], g["iyz"]], [g["ixz"], g["iyz"], g["izz"]]]
    )


def _link_violations(link: XNode, checks: Collection[str]) -> list[str]:
    inertial = link.find("inertial")
    if inertial is None:
        return []
    exempt = {c for e in inertial.findall(EXEMPT_TAG) for c in e.attrib.get("check", "").split()}
    where = f"link {link.attrib['name']!r} (line {inertial.line})"
    out = []
    mass = _floats(inertial.find("mass"), "value", "0")[0]
    if "mass" in checks and "mass" not in exempt and mass < 0:
        out.append(f"mass: {where}: negative mass {mass:g} kg")
    inertia = inertial.find("inertia")
    if inertia is None:
        return out
    lam = np.linalg.eigvalsh(_inertia_matrix(inertia))
    eps = 1e-9 * max(float(np.abs(lam).max()), 0.0) + 1e-15
    moments = ", ".join(f"{x:.4g}" for x in lam)
    if "inertia" in checks and "inertia" not in exempt and lam[0] < -eps:
        out.append(f"inertia: {where}: inertia is not positive semi-definite (eigenvalues {moments} kg·m²)")
    elif "triangle" in checks and "triangle" not in exempt and lam[0] + lam[1] < lam[2] - eps:
        out.append(
            f"triangle: {where}: principal moments ({moments}) kg·m² violate the triangle inequality "
            "λ1 + λ2 ≥ λ3 (no rigid body has them)"
        )
    return out


def _joint_violations(joint: XNode, checks: Collection[str]) -> list[str]:
    kind = joint.attrib.get("type")
    where = f"joint {joint.attrib['name']!r} (line {joint.line})"
    out = []
    if "axis" in checks and kind in ("revolute", "continuous", "prismatic"):
        axis = _floats(joint.find("axis"), "xyz", "1 0 0")
        if math.hypot(*axis) < 1e-12:
            out.append(f"axis: {where}: zero joint axis")
    limit = joint.find("limit")
    if "limits" in checks and limit is not None:
        lower, upper = _floats(limit, "lower", "0")[0], _floats(limit, "upper", "0")[0]
        if kind in ("revolute", "prismatic") and lower > upper:
            out.append(f"limits: {where}: lower limit {lower:g} > upper limit {upper:g}")
        for attr in ("velocity", "effort"):
            value = _floats(limit, attr, "0")[0]
            if value < 0:
                out.append(f"limits: {where}: negative {attr} limit {value:g}")
    return out


def physics_violations(tree: UrdfTree, checks: Collection[str] = PHYSICS_CHECKS) -> list[str]:
    """Every violation of the named checks in a checked URDF, as ``"<check>: <where>: <what>"`` lines."""
    out = []
    for link in tree.links.values():
        out.extend(_link_violations(link, checks))
    for joint in tree.joints.values():
        out.extend(_joint_violations(joint, checks))
    return out


def _selected(mode: PhysicsMode) -> tuple[tuple[str, ...], bool]:
    """(checks to run, warn instead of raise) for a ``check_physics`` value."""
    if mode is True:
        return PHYSICS_CHECKS, False
    if mode is False or mode is None:
        return (), False
    if isinstance(mode, str):
        if mode == "warn":
            return PHYSICS_CHECKS, True
        mode = (mode,)
    try:
        names = tuple(mode)
    except TypeError:
        names = ("<not a collection>",)
    unknown = [n for n in names if n not in PHYSICS_CHECKS]
    if unknown:
        from ..errors import InvalidValueError

        raise InvalidValueError(
            "check_physics",
            "True, False, 'warn' or names of checks",
            reason=f"unknown check(s) {unknown}; valid: True, False, 'warn' or some of {PHYSICS_CHECKS}",
        )
    return names, False


def apply_physics_checks(tree: UrdfTree, mode: PhysicsMode, source: str) -> None:
    """Run the checks ``mode`` selects and raise (or warn) when some fail.

    Args:
        mode: True: every check, raise; False: none; ``"warn"``: every check, one :class:`URDFWarning`;
            a collection of check names (:data:`PHYSICS_CHECKS`): those, raise.

    Raises:
        URDFError: some selected check failed (the message lists up to 5 violations and how to opt out).
        InvalidValueError: ``mode`` names an unknown check.
    """
    checks, warn = _selected(mode)
    if not checks:
        return
    found = physics_violations(tree, checks)
    if not found:
        return
    shown = "; ".join(found[:5]) + (f"; and {len(found) - 5} more" if len(found) > 5 else "")
    if warn:
        warnings.warn(f"URDF {source!r} is physically implausible: {shown}", URDFWarning, stacklevel=4)
        return
    raise URDFError(
        source,
        f"physically invalid: {shown} "
        "(to load anyway: check_physics=False or 'warn'; see wbcpy.description.urdf_physics)",
    )
