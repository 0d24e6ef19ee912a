"""Copies, pickles and threads of the walking classes: a copied controller steps on as a freshly built one
that replayed the same calls (its swing-foot targets keep moving), a controller whose push recovery moved
a footstep pickles, patterns copy independently, and shared objects either serve several threads
correctly or raise ConcurrentUseError.

Every controller here drives or follows one rigid-contact plant: at each control step all of them see the
plant's state (q, v) on robots of their own, and their torques are compared (same maths: 1e-6 N·m)."""

from __future__ import annotations

import copy
import pickle
import threading

import numpy as np
import pinocchio as pin
import pytest
from _concurrency import COPIERS, run_together

from wbcpy.errors import ConcurrentUseError
from wbcpy.locomotion import Footstep, WalkingController, WalkingPattern, WalkLog, plan_footsteps, walk
from wbcpy.sim.contact_plant import ContactPlant

DT = 0.002


@pytest.fixture(scope="module")
def talos(example_robot):
    robot = example_robot("talos")
    robot.update(robot.reference_configuration("half_sitting"), np.zeros(robot.nv))
    return robot


def _controller(talos, n_steps=3, length=0.1) -> WalkingController:
    """A controller on a robot of its own at half_sitting (robot.copy(): shared pin.Model, own data)."""
    robot = talos.copy()
    robot.update(talos.reference_configuration("half_sitting"), np.zeros(robot.nv))
    pattern = WalkingPattern(robot, plan_footsteps(robot, n_steps, length))
    return WalkingController(robot, pattern, dt=DT)


class _Loop:
    """The plant driven by ``lead`` (a controller); ``run`` steps it and every follower at each control
    step at the plant's state and returns the largest |τ − τ_lead| of each follower."""

    def __init__(self, lead: WalkingController, push: tuple[float, float] | None = None) -> None:
        q0 = lead.robot.reference_configuration("half_sitting")
        self.lead, self.k, self.push = lead, 0, push
        self.plant = ContactPlant(lead.scene, q0, np.zeros(lead.robot.nv), DT, kd=50.0)

    def run(self, until: float, followers: list[WalkingController]) -> list[float]:
        worst = [0.0] * len(followers)
        while self.k * DT < until - 1e-9:
            t = self.k * DT
            if self.push is not None and self.k == round(self.push[1] / DT):
                self.plant.sim.push([0.0, self.push[0], 0.0])
            for c in (self.lead, *followers):
                c.schedule(t)
            q, v = self.plant.sync()
            taus = []
            for c in (self.lead, *followers):
                c.robot.update(q, v)
                taus.append(c.step(t).effort)
            for i, tau in enumerate(taus[1:]):
                worst[i] = max(worst[i], float(np.abs(tau - taus[0]).max()))
            self.plant.step()
            self.k += 1
        return worst


@pytest.mark.parametrize("how", list(COPIERS))
def test_a_copied_controller_steps_on_as_a_fresh_one(talos, how):
    """Copied at 0.5 s (before the first swing at 1.0 s), then run side by side to 1.8 s: the copy's
    torques are the fresh controller's (its swing-foot targets follow the swing), so are the original's."""
    original, fresh = _controller(talos), _controller(talos)
    loop = _Loop(fresh)
    assert loop.run(0.5, [original]) == [pytest.approx(0.0, abs=1e-6)]
    copied = COPIERS[how](original)
    assert copied.robot is not original.robot and copied.scene is not original.scene
    assert copied.pattern is not original.pattern
    worst = loop.run(1.8, [original, copied])
    assert max(worst) <= 1e-6, worst


def test_a_controller_pickles_after_push_recovery_moved_a_footstep(talos):
    """A 30 N·s push at 3.0 s moves the swing foot's footstep (a re-planned swing path); the pickled
    controller and a deep copy step on as the original does."""
    ctrl = _controller(talos, n_steps=4, length=0.15)
    loop = _Loop(ctrl, push=(30.0, 3.0))
    loop.run(3.3, [])
    assert ctrl.pattern.version > 0  # the footstep moved
    twins = [pickle.loads(pickle.dumps(ctrl)), copy.deepcopy(ctrl)]
    assert all(t.pattern.version == ctrl.pattern.version for t in twins)
    worst = loop.run(3.9, twins)
    assert max(worst) <= 1e-6, worst


def _samples(pattern: WalkingPattern) -> np.ndarray:
    times = np.linspace(0.0, pattern.duration, 53)
    return np.array([np.concatenate(pattern.sample(t)) for t in times])


@pytest.mark.parametrize("how", [*COPIERS, "method"])
def test_pattern_copies_are_independent(talos, how):
    steps = plan_footsteps(talos, 4, 0.1)
    pattern = WalkingPattern(talos, steps)
    before = _samples(pattern)
    twin = pattern.copy() if how == "method" else COPIERS[how](pattern)
    moved = pin.SE3(steps[2].placement.rotation, steps[2].placement.translation + np.array([0.05, 0.02, 0]))
    twin.set_step(2, moved)
    np.testing.assert_array_equal(_samples(pattern), before)  # the original did not move
    steps[2] = Footstep(steps[2].side, moved)
    np.testing.assert_allclose(_samples(twin), _samples(WalkingPattern(talos, steps)), atol=1e-12)
    assert twin.version == 1 and pattern.version == 0


def test_footstep_and_log_copies():
    step = Footstep("left", pin.SE3(np.eye(3), np.array([0.1, 0.2, 0.0])))
    for how, copier in COPIERS.items():
        twin = copier(step)
        assert twin.side == "left" and twin.row().tolist() == step.row().tolist()
        if how != "copy":
            twin.placement.translation = np.zeros(3)
            assert step.xy.tolist() == [0.1, 0.2]
    arrays = [np.arange(6.0).reshape(2, 3) + i for i in range(9)]
    log = WalkLog(*arrays)
    for how, copier in COPIERS.items():
        twin = copier(log)
        for a, b in zip(arrays, (twin.t, twin.q, twin.v, twin.tau, twin.active, twin.wrenches, twin.com,
                                 twin.contact_frames, twin.footsteps), strict=True):  # fmt: skip
            np.testing.assert_array_equal(a, b)
            assert (b is a) == (how == "copy")


def test_summary_pickles(example_robot):
    example_robot("talos")
    summary = walk("talos", n_steps=1, length=0.0)
    for copier in COPIERS.values():
        twin = copier(summary)
        assert twin.text() == summary.text() and twin.ok == summary.ok
        np.testing.assert_array_equal(twin.log.q, summary.log.q)


# ---------------------------------------------------------------------------------------------- threads
def test_a_pattern_serves_readers_while_a_footstep_moves(talos):
    """Readers sample the plan (COM, ZMP, DCM, swing) at several times while a writer moves a footstep
    back and forth: every read equals the value of one of the two plans (never a mix)."""
    steps = plan_footsteps(talos, 3, 0.1)
    pattern = WalkingPattern(talos, steps)
    other = pin.SE3(steps[1].placement.rotation, steps[1].placement.translation + np.array([0.04, -0.03, 0]))
    plans = [WalkingPattern(talos, steps), WalkingPattern(talos, [steps[0], Footstep(steps[1].side, other),
                                                                   steps[2]])]  # fmt: skip
    times = [p.t0 + 0.37 * (p.t1 - p.t0) for p in pattern.phases] + [1.9, 2.55]

    def read(p, t):  # (two calls: each is one plan, the two may be of different plans)
        swing = p.swing(t)
        return (np.concatenate(p.sample(t)), np.zeros(16) if swing is None else swing[1].homogeneous.ravel())

    refs = {t: [read(p, t) for p in plans] for t in times}
    counts = {"reads": 0}

    def writer(stop):
        placements = [steps[1].placement, other]
        k = 0
        while not stop.is_set():
            k ^= 1
            pattern.set_step(1, placements[k])

    def reader(stop):
        i = 0
        while not stop.is_set():
            t = times[i % len(times)]
            for part, got in enumerate(read(pattern, t)):
                assert any(np.allclose(got, r[part], atol=1e-12) for r in refs[t]), (t, part)
            i += 1
        counts["reads"] += i

    run_together([writer, reader, reader])
    assert counts["reads"] > 50


def test_a_controller_detects_a_second_thread(talos):
    """Two threads stepping one controller (standing, t < 0.8 s: no contact switch, so each step's answer
    depends on t and the state alone): the intruder gets ConcurrentUseError, and every step that went
    through gives the torques a fresh controller gives at that time (never a mixed state)."""
    ctrl = _controller(talos)
    q0 = talos.reference_configuration("half_sitting")
    ctrl.robot.update(q0, np.zeros(talos.nv))
    done: list[tuple[float, np.ndarray]] = []
    detected = {"n": 0}
    times = np.arange(0.0, 0.6, DT).tolist()
    start = threading.Barrier(2)  # (both threads step from the start: the calls overlap)

    def stepper(stop):
        start.wait()
        while not stop.is_set():
            k = len(done)  # (read once: the other thread appends between two reads)
            if k >= len(times):
                break
            t = times[k]  # (the next time; a failed call takes it again)
            try:
                done.append((t, ctrl.step(t).effort))
            except ConcurrentUseError:
                detected["n"] += 1

    run_together([stepper, stepper], seconds=2.0)
    assert detected["n"] > 0, f"two threads stepped the controller and nobody noticed ({len(done)} steps)"
    fresh = _controller(talos)
    fresh.robot.update(q0, np.zeros(talos.nv))
    assert len(done) > 20
    for t, tau in done[:: max(1, len(done) // 40)]:
        np.testing.assert_allclose(tau, fresh.step(t).effort, atol=1e-6)
