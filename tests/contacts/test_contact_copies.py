"""Contact transitions and external wrenches: bad transition times are ConfigErrors (never an
OverflowError) and change nothing; a scene copied in the middle of an unloading ramp finishes the ramp as
the original does; ExternalWrenches copy independently and serve threads (a reader sees one set of
wrenches, whole, and no change is lost)."""

from __future__ import annotations

import math
import threading

import numpy as np
import pytest
from _concurrency import COPIERS, fast_switching, run_together
from _contact_oracle import talos_half_sitting
from _id_helpers import SOLES, solve_talos, talos_scene
from hypothesis import given, settings
from hypothesis import strategies as st

from wbcpy.contacts.external import ExternalWrenches
from wbcpy.contacts.transition import UnloadingRamp
from wbcpy.errors import ConfigError

HAND = "arm_left_7_link"


@pytest.fixture(scope="module")
def talos():
    return talos_half_sitting()


@settings(max_examples=40, deadline=None)
@given(
    bad=st.one_of(
        st.sampled_from([1e308, 1e10, 3600.5, 10**400, -(10**400), -1e-9, math.nan, math.inf, -math.inf]),
        st.sampled_from([None, "0.1", b"1", True, np.bool_(False), 1j, [0.1], {"t": 1}]),
        st.floats(min_value=3600.0, exclude_min=True, allow_infinity=False),
    )
)
def test_bad_transitions_are_config_errors_and_change_nothing(talos, bad):
    robot, _ = talos
    scene = talos_scene(robot, dt=1e-3)
    with pytest.raises(ConfigError) as info:
        scene.set_contact_active(SOLES[0], False, transition=bad)
    assert info.value.field == "transition"
    assert scene.active_contact_frames == list(SOLES)
    assert all(c.unloading is None for c in scene.contacts)


def test_a_transition_of_more_steps_than_a_ramp_counts_is_refused(talos):
    robot, _ = talos
    scene = talos_scene(robot, dt=1e-9)  # (a 1 h ramp would be 3.6e12 steps)
    with pytest.raises(ConfigError) as info:
        scene.set_contact_active(SOLES[0], False, transition=3600.0)
    assert info.value.field == "transition"
    assert all(c.unloading is None for c in scene.contacts)


@pytest.mark.parametrize("how", list(COPIERS))
def test_a_scene_copied_mid_ramp_finishes_it_as_the_original(talos, how):
    """Unloading the right sole over 10 steps; copied after 4: both give the same wrenches every step and
    drop the contact at the same update (and the ramp itself copies as plain data)."""
    robot, q0 = talos
    scene = talos_scene(robot, dt=0.01)
    com_acc = (0.0, -0.3, 0.0)
    na = robot.nv - 6
    solve_talos(scene, robot, q0, np.zeros(robot.nv), com_acc, np.zeros(na))
    scene.set_contact_active(SOLES[1], False, transition=0.1)
    for _ in range(4):
        solve_talos(scene, robot, q0, np.zeros(robot.nv), com_acc, np.zeros(na))
    twin = COPIERS[how](scene)
    twin_robot = twin.robot
    for _ in range(8):
        _, w1, t1 = solve_talos(scene, robot, q0, np.zeros(robot.nv), com_acc, np.zeros(na))
        _, w2, t2 = solve_talos(twin, twin_robot, q0, np.zeros(robot.nv), com_acc, np.zeros(na))
        assert list(w1) == list(w2)
        for f in w1:
            np.testing.assert_allclose(w2[f], w1[f], atol=1e-6)
        np.testing.assert_allclose(t2, t1, atol=1e-6)
        assert [c.unloading for c in twin.contacts] == pytest.approx([c.unloading for c in scene.contacts])
    assert scene.active_contact_frames == [SOLES[0]] == twin.active_contact_frames
    ramp = UnloadingRamp(100.0, 0.1, 0.01)
    ramp.advance()
    for copier in COPIERS.values():
        other = copier(ramp)
        other.advance()
        assert (other.done, ramp.done) == (2, 1) and other.bound == pytest.approx(80.0)


@pytest.mark.parametrize("how", list(COPIERS))
def test_external_wrenches_copies_are_independent(talos, how):
    robot, _ = talos
    ext = ExternalWrenches(robot)
    ext.set(HAND, np.arange(6.0))
    twin = COPIERS[how](ext)
    twin.set(HAND, np.zeros(6))
    twin.set("torso_2_link", np.ones(6))
    np.testing.assert_array_equal(ext.as_dict()[HAND], np.arange(6.0))
    assert list(ext.as_dict()) == [HAND] and len(twin) == 2
    assert (twin.robot is robot) == (how == "copy")


def test_external_wrenches_serve_threads(talos):
    """A writer switches between two sets of wrenches (several frames each) while readers compute the
    generalised force: every result is the force of one set, never a mix or a RuntimeError; two writers
    setting different frames lose no change."""
    import pinocchio as pin

    robot, q0 = talos
    model = robot.model
    sets = [
        {HAND: np.arange(6.0), "torso_2_link": np.ones(6), "head_2_link": -np.ones(6)},
        {HAND: -np.arange(6.0), "arm_right_7_link": 2 * np.ones(6)},
    ]
    refs = []
    data = model.createData()
    pin.computeJointJacobians(model, data, q0)
    for wrenches in sets:
        ext = ExternalWrenches(robot)
        ext.update(wrenches)
        refs.append(ext.generalized_force(model, data))
    shared = ExternalWrenches(robot)
    shared.update(sets[0])
    reads = []

    def writer(stop):
        k = 0
        while not stop.is_set():
            k ^= 1
            shared.clear()
            shared.update(sets[k])

    def reader(stop):
        own = model.createData()
        pin.computeJointJacobians(model, own, q0)
        while not stop.is_set():
            got = shared.generalized_force(model, own)
            if not any(np.allclose(got, r, atol=1e-9) for r in refs) and np.abs(got).max() > 0:
                # (between clear() and update() the set is empty: zero force, a whole set too)
                raise AssertionError("a mixed set of wrenches")
            reads.append(1)

    run_together([writer, reader, reader])
    assert len(reads) > 50
    with fast_switching():
        frames = [f.name for f in model.frames if f.name.endswith("_link")][:40]
        many = ExternalWrenches(robot)

        def set_half(names):
            for name in names:
                many.set(name, np.ones(6))

        writers = [threading.Thread(target=set_half, args=(frames[i::2],)) for i in range(2)]
        for t in writers:
            t.start()
        for t in writers:
            t.join()
        assert sorted(many.as_dict()) == sorted(frames)  # no change lost
