"""Shared objects under real threads (issue 14, class 3): never a silently mixed state.

Writers cycle a shared object through a few states while readers hammer it; the interpreter switches
threads every microsecond. Every single read must equal the quantity at one of the states (references
computed beforehand on separate, single-threaded objects); reads from ``robot.copy()`` snapshots must all
belong to the snapshot's own state; after the writers stop, every reader sees the last state (no old
result marked fresh). Controllers that serve one thread at a time must detect a second thread and raise
``ConcurrentUseError`` without disturbing the running call.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import numpy as np
import pytest
from _concurrency import run_together

from wbcpy import ConcurrentUseError, RobotModel, jspace, load_robot
from wbcpy.ik import MultiRefMinJerkCtrl

DURATION = 0.6  # seconds of hammering per test
FRAME = "lwr_ee"


def _reads(robot: RobotModel) -> dict[str, np.ndarray]:
    return {
        "q": robot.q,
        "v": robot.v,
        "M": robot.mass_matrix(),
        "Minv": robot.inverse_mass_matrix(),
        "nle": robot.nonlinear_effects(),
        "J": robot.frame_jacobian(FRAME),
        "bias": robot.frame_bias(FRAME),
        "place": robot.frame_placement(FRAME).homogeneous,
        "com": robot.com(),
        "Jcom": robot.com_jacobian(),
        "vcom": robot.com_velocity(),
    }


def _references(n: int) -> tuple[list[tuple[np.ndarray, np.ndarray]], list[dict[str, np.ndarray]]]:
    rng = np.random.default_rng(5)
    probe = load_robot("lwr4")
    states = [
        (probe.q_from_dof(rng.uniform(-1, 1, probe.nv)), rng.uniform(-1, 1, probe.nv)) for _ in range(n)
    ]
    refs = []
    for q, v in states:
        fresh = load_robot("lwr4")
        fresh.update(q, v)
        refs.append(_reads(fresh))
    return states, refs


def _close(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal up to rounding (M⁻¹ may come from Cholesky or from ABA: ~1e-12 relative apart)."""
    return bool(np.allclose(a, b, rtol=1e-9, atol=1e-9 * max(1.0, float(np.abs(b).max()))))


def _which(value: np.ndarray, key: str, refs: list[dict[str, np.ndarray]]) -> int:
    """Index of the reference state whose ``key`` equals ``value`` (fails when none does)."""
    hits = [k for k, ref in enumerate(refs) if _close(value, ref[key])]
    assert hits, f"{key} read from a shared robot matches none of the states that were set"
    return hits[0]


def test_shared_robot_reads_belong_to_one_state() -> None:
    states, refs = _references(4)
    robot = load_robot("lwr4")
    robot.update(*states[0])
    getters = {
        "M": robot.mass_matrix,
        "Minv": robot.inverse_mass_matrix,
        "nle": robot.nonlinear_effects,
        "J": lambda: robot.frame_jacobian(FRAME),
        "bias": lambda: robot.frame_bias_view(FRAME).copy(),
        "place": lambda: robot.frame_placement(FRAME).homogeneous,
        "com": robot.com,
        "Jcom": robot.com_jacobian,
        "vcom": robot.com_velocity,
    }
    counts = {"reads": 0, "snapshots": 0, "updates": 0}

    def writer(stop: threading.Event) -> None:
        k = 0
        while not stop.is_set():
            k = (k + 1) % len(states)
            robot.update(*states[k])
            counts["updates"] += 1

    def reader(stop: threading.Event) -> None:
        names = list(getters)
        i = 0
        while not stop.is_set():
            name = names[i % len(names)]
            _which(getters[name](), name, refs)  # one read = one state, never a mix
            i += 1
        counts["reads"] += i

    def snapshot_reader(stop: threading.Event) -> None:
        while not stop.is_set():
            snap = robot.copy()
            got = _reads(snap)
            k = _which(got["q"], "q", refs)
            for key, value in got.items():  # every quantity of the snapshot belongs to its state
                assert _close(value, refs[k][key]), key
            counts["snapshots"] += 1

    run_together([writer, reader, reader, snapshot_reader], DURATION)
    assert counts["updates"] > 20 and counts["reads"] > 20 and counts["snapshots"] > 2
    # the last state is what everyone sees now, in every thread (no old result marked fresh)
    last = _which(robot.q, "q", refs)
    seen: list[dict[str, np.ndarray]] = []
    threads = [threading.Thread(target=lambda: seen.append(_reads(robot))) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for got in [*seen, _reads(robot)]:
        for key, value in got.items():
            assert _close(value, refs[last][key]), key


def test_shared_jspace_model_returns_whole_states() -> None:
    rng = np.random.default_rng(2)
    states = [
        jspace.State(rng.uniform(-1, 1, 6), rng.uniform(-1, 1, 6), [float(k)], time=float(k))
        for k in range(4)
    ]
    refs = []
    for s in states:
        fresh = jspace.Model.load("puma560")
        fresh.update(s)
        refs.append({"J": fresh.compute_jacobian(5, 0.1, 0.2, 0.3), "com": fresh.compute_com(True)})
    model = jspace.Model.load("puma560")
    model.update(states[0])
    counts = {"reads": 0, "rebuilt": 0}

    def writer(stop: threading.Event) -> None:
        k = 0
        while not stop.is_set():
            k = (k + 1) % 4
            model.update(states[k])

    def reader(stop: threading.Event) -> None:
        while not stop.is_set():
            s = model.get_state()
            k = next(
                k for k, x in enumerate(states) if np.allclose(x.position, s.position, rtol=0, atol=1e-12)
            )
            np.testing.assert_allclose(s.velocity, states[k].velocity, rtol=0, atol=1e-12)  # one whole State
            if s.force.size:  # the State as set (force and time), or the documented rebuild from the robot
                assert s.force[0] == k and s.time == k
            else:
                assert s.time == 0.0
                counts["rebuilt"] += 1
            counts["reads"] += 1
            jac = model.compute_jacobian(5, 0.1, 0.2, 0.3)  # a point Jacobian: J and origin of one state
            assert any(np.allclose(jac, r["J"], rtol=1e-12, atol=1e-12) for r in refs)
            com, jcom = model.compute_com(True)
            assert any(
                np.allclose(com, r["com"][0], atol=1e-12) and np.allclose(jcom, r["com"][1], atol=1e-12)
                for r in refs
            )

    run_together([writer, reader, reader], DURATION)
    # a rebuild needs more than three set_states between two reads of one get_state, three times in a row
    # (was 12% of the reads under load when get_state read its record before the robot's configuration)
    assert counts["rebuilt"] <= 1 + counts["reads"] // 100


class _Overtaken(RobotModel):
    """A robot on which other threads' set_states land while a reader reads its configuration:
    ``overtake(when)`` runs before (``"before"``) or after (``"after"``) the configuration is read."""

    overtake: Callable[[str], None] = staticmethod(lambda when: None)

    @property
    def q_view(self) -> np.ndarray:
        self.overtake("before")
        q = super().q_view
        self.overtake("after")
        return q


@pytest.mark.parametrize("when", ["before", "after"])
@pytest.mark.parametrize("n", [1, 2, 3])
def test_jspace_get_state_keeps_the_state_set_while_others_set_states(when: str, n: int) -> None:
    """Deterministic interleavings of the race above: n set_states of "another thread" land just before
    or just after get_state reads the robot's configuration; the State returned is one that was set,
    whole (its force and time too), never the rebuild that drops them."""
    rng = np.random.default_rng(4)
    states = [
        jspace.State(rng.uniform(-1, 1, 6), rng.uniform(-1, 1, 6), [float(k)], float(k)) for k in range(8)
    ]
    robot = _Overtaken(load_robot("puma560").model)
    model = jspace.Model(robot)
    model.set_state(states[0])
    pending = iter(states[1:])

    def overtake(moment: str) -> None:
        if moment == when:
            for _ in range(n):
                model.set_state(next(pending, states[0]))

    robot.overtake = overtake
    got = model.get_state()
    k = int(got.time)
    assert got.force.tolist() == [float(k)], "the State lost its force: rebuilt, not the one set"
    np.testing.assert_array_equal(got.position, states[k].position)
    np.testing.assert_array_equal(got.velocity, states[k].velocity)


def test_shared_chain_computes_each_call_on_its_own_angles() -> None:
    chain = load_robot("lwr4").chain("lwr_base_link", "lwr_ee")
    rng = np.random.default_rng(3)
    qs = [rng.uniform(-1, 1, chain.n) for _ in range(6)]
    solo = load_robot("lwr4").chain("lwr_base_link", "lwr_ee")
    refs = [(solo.fk(q).homogeneous, solo.jacobian(q)) for q in qs]

    def worker(offset: int) -> Callable[[threading.Event], None]:
        def run(stop: threading.Event) -> None:
            k = offset
            while not stop.is_set():
                k = (k + 1) % len(qs)
                M, J = chain.fk_jacobian(qs[k])
                np.testing.assert_allclose(M.homogeneous, refs[k][0], atol=1e-14)
                np.testing.assert_allclose(J, refs[k][1], atol=1e-14)
                np.testing.assert_allclose(chain.fk(qs[k]).homogeneous, refs[k][0], atol=1e-14)

        return run

    def rest_changer(stop: threading.Event) -> None:
        rest = chain.rest
        while not stop.is_set():
            chain.rest = rest  # republishes the same configuration: never a half-built one

    run_together([worker(0), worker(2), worker(4), rest_changer], DURATION)


def test_controller_detects_a_second_thread() -> None:
    chain = load_robot("lwr4").chain("lwr_base_link", "lwr_ee")
    q0 = np.array([0.1, -0.5, 0.2, 1.2, 0.1, -0.6, 0.3])
    target, qd = chain.pose7(q0 + 0.3), q0 + 0.3
    ctrl = MultiRefMinJerkCtrl(chain, "full", 0.01, q0=q0)
    done: list[int] = []
    detected = {"main": 0, "other": 0}

    def stepper(stop: threading.Event) -> None:
        while not stop.is_set():
            try:
                ctrl.iterate(target, qd)
                done.append(1)
            except ConcurrentUseError:
                detected["main"] += 1

    def intruder(stop: threading.Event) -> None:
        while not stop.is_set():
            try:
                ctrl.get_q()
                ctrl.set_gamma(0.05)
            except ConcurrentUseError:
                detected["other"] += 1

    run_together([stepper, intruder], DURATION)
    assert detected["main"] + detected["other"] > 0, "two threads used the controller and nobody noticed"
    # the calls that went through were not disturbed: a replay of as many steps gives the same q
    replay = MultiRefMinJerkCtrl(chain, "full", 0.01, q0=q0)
    for _ in done:
        replay.iterate(target, qd)
    np.testing.assert_array_equal(ctrl.get_q(), replay.get_q())
    assert ctrl.get_iter() == len(done)


@pytest.mark.parametrize("method", ["filt", "copy"])
def test_building_blocks_detect_a_second_thread(method: str) -> None:
    from wbcpy.ik import Filter

    filt = Filter([0.1, 0.2], [1.0, -0.3], np.zeros(50))
    u = np.ones(50)
    hits = {"n": 0}

    def use(stop: threading.Event) -> None:
        while not stop.is_set():
            try:
                filt.filt(u) if method == "filt" else filt.__copy__()
            except ConcurrentUseError:
                hits["n"] += 1

    run_together([use, use], DURATION)
    assert hits["n"] > 0
