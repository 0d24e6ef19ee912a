"""Contact transitions: ``set_contact_active(frame, False, transition=T)`` unloads a contact along the
linear ramp of specs/walking.md, then deactivates it; checked step by step against the ramp's formula and,
in closed loop, against Pinocchio's rigid-contact dynamics of the scene's torques."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _contact_oracle import talos_half_sitting
from _id_helpers import SOLES, solve_talos, talos_scene

from wbcpy.errors import ConfigError, ConfigKeyError
from wbcpy.sim.contact_plant import ContactPlant

G0 = 9.81


@pytest.fixture(scope="module")
def talos():
    return talos_half_sitting()


def _standing(scene, robot, q0, com_acc=(0.0, 0.0, 0.0)):
    na = robot.nv - 6
    return solve_talos(scene, robot, q0, np.zeros(robot.nv), np.asarray(com_acc), np.zeros(na))


def test_ramp_bounds_the_normal_force_then_lifts(talos):
    robot, q0 = talos
    scene = talos_scene(robot, dt=0.01)
    # COM acceleration towards the right foot: the right sole would carry more than the ramp allows
    _, w, _ = _standing(scene, robot, q0, (0.0, -0.3, 0.0))
    f0 = w[SOLES[1]][2]
    assert f0 > 100.0
    scene.set_contact_active(SOLES[1], False, transition=0.1)  # N = 10 updates
    assert scene.active_contact_frames == list(SOLES)
    for k in range(1, 11):
        ramp = next(c for c in scene.contacts if c.frame == SOLES[1]).unloading
        assert ramp == pytest.approx((11 - k) * 0.01)
        _, w, _ = _standing(scene, robot, q0, (0.0, -0.3, 0.0))
        bound = f0 * (1.0 - k / 10)
        assert w[SOLES[1]][2] <= bound + 1e-6 * robot.total_mass * G0
        # the bound binds (the task would load the right foot more): the force follows the ramp
        assert w[SOLES[1]][2] == pytest.approx(bound, abs=1e-3 * robot.total_mass * G0)
    assert abs(w[SOLES[1]][2]) <= 1e-6 * robot.total_mass * G0  # its last active step carries nothing
    _, w, _ = _standing(scene, robot, q0)
    assert scene.active_contact_frames == [SOLES[0]] and list(w) == [SOLES[0]]
    assert all(c.unloading is None for c in scene.contacts)


def test_active_true_cancels_and_zero_is_instant(talos):
    robot, q0 = talos
    scene = talos_scene(robot, dt=0.01)
    _standing(scene, robot, q0)
    scene.set_contact_active(SOLES[0], False, transition=0.05)
    _standing(scene, robot, q0)
    scene.set_contact_active(SOLES[0], True)
    for _ in range(8):
        _standing(scene, robot, q0)
    assert scene.active_contact_frames == list(SOLES)
    scene.set_contact_active(SOLES[0], False)  # transition 0: today's instant switch
    assert scene.active_contact_frames == [SOLES[1]]


@pytest.mark.parametrize("bad", [-0.1, math.nan, math.inf, "0.2", True])
def test_bad_transition(talos, bad):
    robot, _ = talos
    scene = talos_scene(robot, dt=0.01)
    with pytest.raises(ConfigError) as info:
        scene.set_contact_active(SOLES[0], False, transition=bad)
    assert info.value.field == "transition"
    assert scene.active_contact_frames == list(SOLES)
    with pytest.raises(ConfigKeyError):
        scene.set_contact_active("nope", False, transition=0.1)


def test_closed_loop_unloading_matches_the_plant(talos):
    """In closed loop the plant's (Pinocchio constraintDynamics) normal force follows the ramp and is ~0
    in the foot's last active step; the lift-off then changes nothing abruptly."""
    robot, q0 = talos
    dt = 0.005
    scene = talos_scene(robot, dt=dt)
    plant = ContactPlant(scene, q0, np.zeros(robot.nv), dt)
    mg = robot.total_mass * G0
    robot.update(*plant.sync())
    _standing(scene, robot, plant.sim.q)
    scene.set_contact_active(SOLES[1], False, transition=0.05)
    forces = []
    for _ in range(12):
        q, v = plant.sync()
        robot.update(q, v)
        active = scene.active_contact_frames  # (update() may lift it: read after)
        solve_talos(scene, robot, q, v, np.zeros(3), np.zeros(robot.nv - 6))
        active = scene.active_contact_frames
        plant.step()
        forces.append(plant.sim.wrenches.get(SOLES[1], np.zeros(6))[2] if SOLES[1] in active else None)
    loaded = [f for f in forces if f is not None]
    assert len(loaded) == 10
    assert abs(loaded[-1]) <= 1e-6 * mg
    assert np.all(np.diff(loaded) < 0)


def test_scene_file_lifts_a_contact_with_a_ramp(talos):
    """``lift: {time, transition}`` in a file's contact entry: the simulated right sole's normal force
    falls along the ramp from t = 0.05 s over 0.1 s, is ~0 in its last active step, then the contact is
    released (Pinocchio's rigid-contact plant of the scene's τ)."""
    from wbcpy.scenes import load_scene_file
    from wbcpy.sim.simulation import SceneSimulation

    robot, _ = talos
    sole = {"type": "surface", "half_size": [0.1, 0.065], "mu": 0.3}
    doc = {
        "robot": "talos", "q0": "half_sitting", "dt": 0.005, "steps": 40, "effort_limits": True,
        "contacts": [{**sole, "frame": SOLES[0]},
                     {**sole, "frame": SOLES[1], "lift": {"time": 0.05, "transition": 0.1}}],
        "tasks": [{"name": "com", "type": "com", "kp": 30, "kd": 11}],
    }  # fmt: skip
    setup = load_scene_file(doc)
    assert [(e.time, e.frame, e.transition) for e in setup.contact_events] == [(0.05, SOLES[1], 0.1)]
    sim = SceneSimulation(setup)
    forces = []
    for _ in range(40):
        sim.step()
        w = sim.plant.sim.wrenches.get(SOLES[1])
        forces.append(None if w is None or SOLES[1] not in sim.plant.sim.active_frames else w[2])
    loaded = [f for f in forces if f is not None]
    assert len(loaded) == 10 + 20  # 10 steps before the lift, 20 of ramp
    mg = robot.total_mass * G0
    assert abs(loaded[-1]) <= 1e-6 * mg and np.all(np.diff(loaded[10:]) < 0)
    assert setup.scene.active_contact_frames == [SOLES[0]]


@pytest.mark.parametrize(
    ("lift", "field"), [({"time": -1}, "time"), ({"time": 0.1, "transition": "x"}, "transition"), (3, "lift")]
)
def test_scene_file_bad_lift(talos, lift, field):
    from wbcpy.scenes import load_scene_file

    sole = {"type": "surface", "half_size": [0.1, 0.065], "mu": 0.3, "frame": SOLES[0], "lift": lift}
    doc = {
        "robot": "talos",
        "q0": "half_sitting",
        "contacts": [sole],
        "tasks": [{"name": "com", "type": "com"}],
    }
    with pytest.raises(ConfigError) as info:
        load_scene_file(doc)
    expected = "contacts[0].lift" if field == "lift" else f"contacts[0].lift.{field}"
    assert info.value.field == expected


@pytest.mark.parametrize("joint_limits", [False, True])
@pytest.mark.parametrize("fz_max", [math.inf, 1500.0])
def test_problem_bounds_during_and_outside_a_ramp(talos, joint_limits, fz_max):
    """The bounds on x that update() hands out: the wrench bounds (f_z ≤ fz_max) outside a ramp — shared
    read-only arrays when q̈ has no bounds, never editable through the problem —, and during a ramp the
    unloading contact's f_z bound min(fz_max, f_0 (1 − k/N)) after k of N updates, the other entries
    unchanged (with and without joint-limit bounds on q̈, with and without a finite fz_max)."""
    robot, q0 = talos
    scene = talos_scene(robot, dt=0.01, fz_max=fz_max, joint_limits=joint_limits)
    _, w, _ = _standing(scene, robot, q0)
    f0 = min(w[SOLES[1]][2], fz_max)
    hqp = scene.update()
    iz = hqp.variable_names.index(f"{SOLES[1]}:fz")
    other = hqp.variable_names.index(f"{SOLES[0]}:fz")
    lb0, ub0 = hqp.lb, hqp.ub
    if fz_max == math.inf and not joint_limits:
        assert lb0 is None and ub0 is None
    else:
        assert ub0[iz] == fz_max and ub0[other] == fz_max
        if ub0.flags.writeable:  # (new arrays per update: joint-limit bounds)
            ub0[iz] = 0.0
            assert scene.update().ub[iz] == fz_max
            ub0[iz] = fz_max
        else:  # (the layout's arrays, shared by every problem)
            with pytest.raises(ValueError):
                ub0[iz] = 0.0
    scene.set_contact_active(SOLES[1], False, transition=0.05)  # N = 5 updates
    for k in range(1, 6):
        robot.update(q0, np.zeros(robot.nv))
        hqp = scene.update()
        assert hqp.ub[iz] == pytest.approx(f0 * (1.0 - k / 5), abs=1e-9 * f0)
        assert hqp.lb[iz] <= hqp.ub[iz]
        assert hqp.ub[other] == fz_max
        if ub0 is not None:  # every other bound as outside the ramp
            keep = np.arange(hqp.ub.shape[0]) != iz
            np.testing.assert_array_equal(hqp.ub[keep], ub0[keep])
            np.testing.assert_array_equal(hqp.lb[keep], lb0[keep])
        scene.solve(hqp)
