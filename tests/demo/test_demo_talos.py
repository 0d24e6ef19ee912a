"""Closed loop: the demo's Talos weight shift and foot lift in rigid-contact simulation (issue 10, point 9).

Checked from the recorded run with independent tools: every simulated contact wrench lies in its
corner-form cone (qhull facets of the corner generators, ``tests/_contact_oracle.py``) — the feet never
slip or tip; |τ| within the URDF effort limits (``model.effortLimit``); the COM's ground projection
(recomputed with ``pin.centerOfMass`` from the recorded configurations) inside the convex hull of the
soles in contact (their corners from ``pin.framesForwardKinematics``); the lifted foot at its target
apex within 1 cm and the standing sole not moving; the weight carried by the feet (closed form).
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest
from _contact_oracle import cone_facets, corner_generators
from scipy.spatial import ConvexHull

from wbcpy.model.registry import example_robot_data_dir

G0 = 9.81


@pytest.fixture(scope="module")
def run():
    if example_robot_data_dir() is None:
        pytest.skip("example-robot-data is not installed")
    from wbcpy.demo.talos import run_talos

    return run_talos()


@pytest.fixture(scope="module")
def model():
    from wbcpy import load_robot

    return load_robot("talos").model


def _corners(model, data, frame: str) -> np.ndarray:
    M = data.oMf[model.getFrameId(frame)]
    X, Y = 0.1, 0.065
    local = np.array([[X, Y, 0.0], [X, -Y, 0.0], [-X, Y, 0.0], [-X, -Y, 0.0]])
    return (local @ M.rotation.T + M.translation)[:, :2]


def test_feet_never_slip_and_torques_stay_in_limits(run, model) -> None:
    facets = cone_facets(corner_generators((0.1, 0.065), 0.3))
    mg = run.mass * G0
    for frame, w in run.wrenches.items():
        inside = ~np.isnan(w[:, 0])  # (sample 0 is the start: no step, no wrench yet)
        assert inside[1] and inside[-1]
        assert (w[inside] @ facets.T).max() <= 1e-6 * mg, frame
        assert w[inside, 2].min() >= -1e-6 * mg
    assert not run.active[:, 1].all() and run.active[:, 0].all()  # the right foot was lifted
    in_contact = ~np.isnan(run.wrenches["right_sole_link"][1:, 0])
    np.testing.assert_array_equal(in_contact, run.active[1:, 1])
    limits = model.effortLimit[6:]
    assert np.all(np.abs(run.tau) <= limits)
    # a standing robot at rest at the start and the end: the feet carry its weight (world z)
    data = model.createData()
    for k in (1, -1):
        pin.framesForwardKinematics(model, data, run.q_path[k])
        fz = sum((data.oMf[model.getFrameId(f)].rotation @ w[k, :3])[2] for f, w in run.wrenches.items())
        assert fz == pytest.approx(mg, rel=1e-3)


def test_com_stays_over_the_support_polygon_and_the_foot_reaches_its_target(run, model) -> None:
    data = model.createData()
    feet = ("left_sole_link", "right_sole_link")
    left0 = None
    for k in range(0, len(run.time), 5):
        q = run.q_path[k]
        com = pin.centerOfMass(model, data, q)
        pin.framesForwardKinematics(model, data, q)
        corners = np.vstack([_corners(model, data, f) for f, a in zip(feet, run.active[k], strict=True) if a])
        hull = ConvexHull(corners)
        assert (hull.equations[:, :2] @ com[:2] + hull.equations[:, 2]).max() < -0.01, run.time[
            k
        ]  # ≥ 1 cm in
        left = data.oMf[model.getFrameId(feet[0])].translation.copy()
        left0 = left if left0 is None else left0
        assert np.linalg.norm(left - left0) < 1e-3  # the standing foot does not move
    apex = int(np.argmax(run.foot[:, 2]))
    pin.framesForwardKinematics(model, data, run.q_path[apex])
    top = data.oMf[model.getFrameId(feet[1])].translation
    np.testing.assert_allclose(top, run.foot_apex_target, atol=0.01)
    assert top[2] - run.foot[0, 2] > 0.04  # it was lifted (5 cm asked)
    pin.framesForwardKinematics(model, data, run.q_path[-1])
    np.testing.assert_allclose(data.oMf[model.getFrameId(feet[1])].translation, run.foot[0], atol=0.01)
    assert run.ok


def test_the_right_foot_unloads_once_and_reloads_once(run, model) -> None:
    """A transfer a user can read: once the right sole's simulated normal force has dropped below 1 % of
    m·g it stays there until the lift (no reload before lift-off), after touch-down it rises above 1 %
    of m·g once and stays above (no second unloading); at the start and the end, the COM at rest midway
    between the soles, the sole carries half the weight (the lever rule, closed form). (While the COM
    accelerates towards the left sole the ZMP, and with it the right sole's load, first moves right: the
    force rises before it falls.)"""
    mg = sum(i.mass for i in model.inertias) * G0
    fz = run.wrenches["right_sole_link"][1:, 2]
    lift = int(np.argmin(run.active[1:, 1]))  # first sample without the right contact
    down = len(fz) - int(np.argmin(run.active[::-1, 1]))  # first sample with it again
    low = np.abs(fz) <= 0.01 * mg
    unloaded = int(np.argmax(low[:lift]))
    assert low[unloaded:lift].all() and unloaded > 0
    loaded = down + int(np.argmax(~low[down:]))
    assert not low[loaded:].any() and low[down:loaded].all()
    assert fz[0] == pytest.approx(0.5 * mg, rel=0.1) and fz[-1] == pytest.approx(0.5 * mg, rel=0.1)
