"""The agreement check of a MuJoCo model against the Pinocchio model of the same robot.

Four quantities, each within ``rtol`` (default 1e-9) relative to the largest magnitude of Pinocchio's
value (1 for a COM, in m, so that a COM near the origin is judged in absolute terms):

* the total mass: ``mj_getTotalmass`` against ``pin.computeTotalMass``;
* the COM at the start state: MuJoCo's ``subtree_com`` of the world body against ``pin.centerOfMass``;
* the gravity torques at a random state: ``mj_inverse`` at zero velocity and acceleration against
  ``pin.computeGeneralizedGravity``;
* the inverse dynamics at a random state (q, v, q̈): ``mj_inverse`` against ``pin.rnea`` (armature
  included on both sides).

MuJoCo's forces that Pinocchio's rigid-body model does not have — contacts, joint limits, friction loss,
tendons, equality constraints (every constraint), springs and dampers — are switched off on a copy of
the model for the check (``disableflags``). MuJoCo's quantities are mapped to Pinocchio's conventions by
:class:`~wbcpy.sim.mujoco.joint_map.JointMap` (a free joint's linear rows rotate into the body's axes).
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pinocchio as pin
from numpy.typing import NDArray

from ...errors import ModelError
from ._lib import mujoco_module
from .joint_map import JointMap


def _compare(
    quantity: str,
    pin_value: NDArray[np.float64],
    mj_value: NDArray[np.float64],
    labels: list[str],
    rtol: float,
    floor: float = 0.0,
) -> float:
    """The relative difference; raises ModelError above ``rtol``."""
    diff = np.abs(np.atleast_1d(mj_value) - np.atleast_1d(pin_value))
    scale = max(float(np.max(np.abs(pin_value))) if np.size(pin_value) else 0.0, floor, 1e-300)
    worst = int(np.argmax(diff)) if diff.size else 0
    rel = float(diff[worst] / scale) if diff.size else 0.0
    if not rel <= rtol:  # (NaN fails too)
        where = f" at {labels[worst]}" if labels else ""
        raise ModelError(
            quantity,
            float(diff[worst]),
            f"MuJoCo {float(np.atleast_1d(mj_value)[worst]):.9g} vs Pinocchio "
            f"{float(np.atleast_1d(pin_value)[worst]):.9g}{where}; relative {rel:.2e} > {rtol:.0e}",
        )
    return rel


def _dof_labels(model: pin.Model) -> list[str]:
    labels = []
    for jid in range(1, model.njoints):
        nv = model.joints[jid].nv
        labels += [model.names[jid] if nv == 1 else f"{model.names[jid]}[{k}]" for k in range(nv)]
    return [f"DOF {name!r}" for name in labels]


def _random_state(model: pin.Model, q0: NDArray[np.float64], seed: int) -> tuple[NDArray[np.float64], ...]:
    rng = np.random.default_rng(seed)
    q = pin.integrate(model, q0, rng.uniform(-0.5, 0.5, model.nv))
    return q, rng.normal(size=model.nv), rng.normal(size=model.nv)


def check_agreement(
    model: pin.Model, mj: Any, joints: JointMap, q0: NDArray[np.float64], rtol: float = 1e-9, seed: int = 0
) -> dict[str, float]:
    """Compare the two models (see the module docstring).

    Args:
        model: Pinocchio's model. mj: MuJoCo's (not changed: the check runs on a copy). joints: the map
            between them. q0: the start configuration (Pinocchio's). rtol: relative tolerance.
        seed: of the random state.

    Returns:
        ``{quantity: relative difference}`` of the four quantities.

    Raises:
        ModelError: a quantity differs by more than ``rtol`` (named, with the largest difference, where
            it is, and both values).
    """
    mujoco = mujoco_module()
    check = copy.deepcopy(mj)
    flags = mujoco.mjtDisableBit
    check.opt.disableflags |= int(flags.mjDSBL_CONSTRAINT | flags.mjDSBL_SPRING | flags.mjDSBL_DAMPER)
    data = mujoco.MjData(check)
    pdata = model.createData()
    labels = _dof_labels(model)
    out = {"total mass": _compare("total mass", np.array(pin.computeTotalMass(model)),
                                  np.array(mujoco.mj_getTotalmass(check)), [], rtol)}  # fmt: skip
    joints.qpos(q0, data.qpos)
    mujoco.mj_forward(check, data)
    com = pin.centerOfMass(model, pdata, q0)
    out["COM"] = _compare("COM", com, data.subtree_com[0].copy(), ["x", "y", "z"], rtol, floor=1.0)
    q, v, a = _random_state(model, q0, seed)
    for quantity, (vel, acc) in {"gravity torques": (0 * v, 0 * a), "inverse dynamics": (v, a)}.items():
        joints.qpos(q, data.qpos)
        joints.qvel(q, vel, data.qvel)
        data.qacc[:] = joints.qacc(q, vel, acc)
        mujoco.mj_inverse(check, data)
        expected = pin.rnea(model, pdata, q, vel, acc)
        out[quantity] = _compare(quantity, expected, joints.force(q, data.qfrc_inverse), labels, rtol)
    return out
