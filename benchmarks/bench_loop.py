"""Benchmark: the control step as users write it, next to TSID 1.7.1 and pink in the same process.

A step is what a scene loop does every period at the measured state: ``robot.update(q, v)``, the PD
references from the robot's state (``CartesianPD``/``JointPD``/``ComPD`` bound to their tasks with
``scene.bind``, the documented hot-loop API: ``binding.update()`` writes the reference in place),
``scene.update()`` and ``scene.solve()``. The ``set_reference`` cases write the same loop with the checked API
instead: ``scene.set_reference(name, law.reference(task, target))`` for every task at every step, every
input validated (the path for references computed outside the scene). The peers do the same work their
own way (benchmarks/_peers.py): TSID's ``computeProblemData`` (its tasks hold the PD laws) +
``SolverHQuadProgFast``, pink's ``Configuration.update`` + ``solve_ik``. Every controller replays the states
of its own closed-loop run (the plant is not timed), and all cases are measured interleaved in alternating
blocks, so the ratios are side-by-side figures.

Cases (issue 11):

* ``panda 1 level`` — Panda (example-robot-data, 9 DOF), ``panda_hand`` Cartesian PD (kp 100, kd 20) +
  posture PD (kp 10, kd 6.3, weight 1e-3) on one level, joint limits (position, velocity, 10·v_max
  acceleration), default backend, dt 1 ms. Targets: ≤ 2× TSID's step on the project's machine (issue 26, so
  that ≤ 3× holds on slower CPUs of its kind; same tasks, hard bounds), ≤ 0.35× pink's step (FrameTask +
  PostureTask, daqp).
* ``panda 1 level, set_reference`` — the one-level step through the checked API. Target (issue 26): ≤ 1.3×
  the bound step (the same implementation with validation on top).
* ``panda 2 levels`` — the same with the hand task on a strict level above the posture (weight 1).
  Target: ≤ 1.5× the one-level step.
* ``talos`` — Talos (38 DOF), COM PD + both soles (Cartesian PD holding them) + posture PD (weight 1e-3)
  on one level of an AccelerationScene (no contacts). Target: ≤ 1.5× TSID standing (its biped exercise:
  the same tasks plus its two rigid contacts). ``talos, set_reference``: the same step through the
  checked API. Target (issue 26): ≤ 1.3× the bound step.
* ``multiref`` — ``MultiRefMinJerkCtrl.iterate(xd, qd)`` on the Panda arm chain with the target moving
  every step. Target: ≤ 0.2× pink's step. And ``iterate(xd)`` without ``qd`` (the controller's own DLS IK
  for every new pose). Target (issue 26): ≤ 0.3× pink's step.

Run in a venv with TSID and pink (see benchmarks/_peers.py):
``python benchmarks/bench_loop.py [--repeat N] [--cases panda talos multiref]``. Missing peers are
reported and skipped.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pinocchio as pin

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _peers import (
    COM_KD,
    COM_KP,
    DT,
    EE_KD,
    EE_KP,
    FOOT_KD,
    FOOT_KP,
    PANDA_EE,
    PANDA_OFFSET,
    PANDA_POSTURE_KD,
    PANDA_POSTURE_KP,
    POSTURE_KD,
    POSTURE_KP,
    SOLES,
    WEIGHTS,
    PinkPandaReach,
    TsidPandaReach,
    TsidTalosStanding,
    com_target,
    panda_start,
    talos_start,
)
from _timing import Row, measure_interleaved, print_cpu, print_table

from wbcpy import AccelerationScene
from wbcpy.controllers import CartesianPD, ComPD, JointPD
from wbcpy.ik import CtrlPose, MultiRefMinJerkCtrl
from wbcpy.tasks import TaskConfig


class _Loop:
    """A wbcpy closed loop recorded once (semi-implicit Euler), then replayed state by state."""

    name = ""

    def __init__(self, n_states: int = 500) -> None:
        self.n_states = n_states
        self.states: list[tuple[float, np.ndarray, np.ndarray]] = []
        self._k = 0

    def _record(self, q: np.ndarray, v: np.ndarray) -> None:
        model = self.robot.model
        for k in range(self.n_states):
            t = k * DT
            self.states.append((t, q.copy(), v.copy()))
            qdd = self.control(t, q, v)
            v = v + qdd * DT
            q = pin.integrate(model, q, v * DT)

    def step(self) -> None:
        """One control step at the next recorded state."""
        t, q, v = self.states[self._k]
        self._k = (self._k + 1) % self.n_states
        self.control(t, q, v)


class WbcpyPandaReach(_Loop):
    """The scene loop on Panda: hand Cartesian PD + posture PD, joint limits."""

    def __init__(self, levels: int = 1, n_states: int = 500, checked: bool = False) -> None:
        super().__init__(n_states)
        self.levels = levels
        self.checked = checked  # references through set_reference (the checked API) instead of bindings
        self.name = f"wbcpy Panda reach, {levels} level{'s' if levels > 1 else ''}"
        self.name += ", set_reference" if checked else ""

    def setup(self) -> None:
        robot, q0 = panda_start()
        self.robot, self.q0 = robot, q0
        robot.update(q0, np.zeros(robot.nv))
        scene = self.scene = AccelerationScene(robot, dt=DT, joint_limits=True)
        posture_weight = [1.0] * robot.nv if self.levels > 1 else [1e-3] * robot.nv
        scene.configure([
            TaskConfig(name="ee", type="cart", tip=PANDA_EE, priority=0),
            TaskConfig(name="posture", type="jnt", joint_names=robot.joint_names,
                       priority=self.levels - 1, weights=posture_weight),
        ])  # fmt: skip
        self.ee, self.posture = scene.get_task("ee"), scene.get_task("posture")
        start = self.ee.pose()
        self.target = pin.SE3(start.rotation, start.translation + PANDA_OFFSET)
        self.ee_pd = CartesianPD(kp=EE_KP, kd=EE_KD)
        self.posture_pd = JointPD(kp=PANDA_POSTURE_KP, kd=PANDA_POSTURE_KD)
        if not self.checked:
            self.bindings = [
                scene.bind("ee", self.ee_pd, self.target),
                scene.bind("posture", self.posture_pd, q0),
            ]
        self._record(q0, np.zeros(robot.nv))

    def control(self, t: float, q: np.ndarray, v: np.ndarray) -> np.ndarray:
        self.robot.update(q, v)
        scene = self.scene
        if self.checked:
            scene.set_reference("ee", self.ee_pd.reference(self.ee, self.target))
            scene.set_reference("posture", self.posture_pd.reference(self.posture, self.q0))
        else:
            for binding in self.bindings:
                binding.update()
        scene.solve(scene.update())
        return scene.get_solver_output_raw()


class RawNumpyPandaReach(WbcpyPandaReach):
    """The floor of a Python step: the one-level Panda step hand-written on Pinocchio, NumPy and daqp.

    The same maths as ``wbcpy Panda reach, 1 level`` with nothing else: forward kinematics, the hand's
    Jacobian and J̇q̇, both PD laws, the joint-limit bounds (acceleration ∩ velocity ∩ position ∩ braking,
    the formulas of ``wbcpy.limits.joint_limits``), H = AᵀWA + λI and g stacked by hand, one daqp call
    and a box KKT check (|∇| on the free variables, signs on the bounds). No input validation, no
    reference objects, no levels, no fallbacks: what a careful user writes for this one problem. Its q̈
    is checked against wbcpy's at setup (the same problem, so the same optimum).
    """

    def __init__(self, n_states: int = 500) -> None:
        super().__init__(1, n_states)
        self.name = "hand-written Pinocchio + NumPy + daqp, 1 level"
        self._raw = False

    def setup(self) -> None:
        import daqp

        super().setup()  # (records wbcpy's closed loop: the states both replay)
        robot, scene = self.robot, self.scene
        model = self.model = robot.model
        self.data = model.createData()
        nv = self.nv = robot.nv
        self.fid = model.getFrameId(PANDA_EE)
        self.Rd, self.pd = self.target.rotation.copy(), self.target.translation.copy()
        w = np.sqrt(np.r_[np.ones(6), np.full(nv, 1e-3)])
        self.sw = w[6:, None]
        self.A = np.zeros((6 + nv, nv))
        self.A[6:] = np.eye(nv) * self.sw
        self.b = np.zeros(6 + nv)
        self.lam = 1e-8 * np.eye(nv)
        self.zero = np.zeros(nv)
        lim = scene.limits
        self.vmax, self.amax, self.dt = lim.velocity_limit, lim.acceleration_limit, DT
        self.qmin, self.qmax = model.lowerPositionLimit.copy(), model.upperPositionLimit.copy()
        self.no_rows, self.sense = np.zeros((0, nv)), np.zeros(nv, dtype=np.intc)
        self.solve = daqp.solve
        _, q, v = self.states[7]
        expected = super().control(0.0, q, v).copy()  # (wbcpy's step, bindings or checked API)
        self._raw = True
        qdd = self.control(0.0, q, v)
        if not np.allclose(qdd, expected, atol=1e-6):
            raise RuntimeError("the hand-written step does not solve the same problem")

    def _bounds(self, q: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        dt, vmax, amax, amax_dt = self.dt, self.vmax, self.amax, self.amax * self.dt
        mn, mx = np.minimum, np.maximum
        ub = mn((vmax - v) / dt, amax)  # acceleration ∩ velocity
        lb = mx((-vmax - v) / dt, -amax)
        ub_p = mx(mn(2.0 * (self.qmax - q - v * dt) / dt**2, ub), lb)  # ∩ position (clipped into it)
        lb_p = mn(mx(2.0 * (self.qmin - q - v * dt) / dt**2, lb), ub)
        up = (np.sqrt(mx(amax_dt**2 + 2.0 * amax * (self.qmax - q), 0.0)) - amax_dt - v) / dt  # ∩ braking
        low = (amax_dt - np.sqrt(mx(amax_dt**2 + 2.0 * amax * (q - self.qmin), 0.0)) - v) / dt
        ub = mx(mn(up, ub_p), lb_p)
        return mn(mx(mn(low, ub_p), lb_p), ub), ub

    def control(self, t: float, q: np.ndarray, v: np.ndarray) -> np.ndarray:
        if not self._raw:
            return super().control(t, q, v)
        model, data, fid = self.model, self.data, self.fid
        pin.forwardKinematics(model, data, q, v, self.zero)
        pin.computeJointJacobians(model, data)
        M = pin.updateFramePlacement(model, data, fid)
        J = pin.getFrameJacobian(model, data, fid, pin.LOCAL_WORLD_ALIGNED)
        bias = pin.getFrameClassicalAcceleration(model, data, fid, pin.LOCAL_WORLD_ALIGNED).vector
        e = np.r_[self.pd - M.translation, pin.log3(self.Rd @ M.rotation.T)]
        self.A[:6] = J
        self.b[:6] = EE_KP * e - EE_KD * (J @ v) - bias
        self.b[6:] = (PANDA_POSTURE_KP * (self.q0 - q) - PANDA_POSTURE_KD * v) * self.sw[:, 0]
        lb, ub = self._bounds(q, v)
        A = self.A
        H = A.T @ A + self.lam
        g = -(A.T @ self.b)
        x, _, flag, _ = self.solve(H, g, self.no_rows, ub, lb, self.sense)
        grad = H @ x + g  # KKT: ∇ = 0 on the free variables, ≥ 0 at a lower bound, ≤ 0 at an upper one
        tol = 1e-9 * (1.0 + np.abs(H) @ np.abs(x) + np.abs(g))
        at_lb, at_ub = x <= lb + 1e-9, x >= ub - 1e-9
        bad = np.where(at_lb, -grad, np.where(at_ub, grad, np.abs(grad)))
        if flag < 1 or (bad > tol).any() or (x < lb - 1e-9).any() or (x > ub + 1e-9).any():
            raise RuntimeError("daqp answer not certified")
        return x


class WbcpyTalosStanding(_Loop):
    """Talos in an AccelerationScene: COM PD + both soles (PD holding them) + posture PD, one level."""

    def __init__(self, n_states: int = 500, checked: bool = False) -> None:
        super().__init__(n_states)
        self.checked = checked  # references through set_reference (the checked API) instead of bindings
        self.name = "wbcpy Talos COM + feet + posture" + (", set_reference" if checked else "")

    def setup(self) -> None:
        robot, q0 = talos_start()
        self.robot, self.q0 = robot, q0
        robot.update(q0, np.zeros(robot.nv))
        actuated = [n for n in robot.joint_names if n != "root_joint"]
        scene = self.scene = AccelerationScene(robot, dt=DT)
        scene.configure(
            [TaskConfig(name="com", type="com", weights=[WEIGHTS["com"]] * 3)]
            + [TaskConfig(name=f, type="cart", root="universe", tip=f, weights=[WEIGHTS["foot"]] * 6)
               for f in SOLES]
            + [TaskConfig(name="posture", type="jnt", joint_names=actuated,
                          weights=[WEIGHTS["posture"]] * len(actuated))]
        )  # fmt: skip
        self.com = scene.get_task("com")
        self.feet = [scene.get_task(f) for f in SOLES]
        self.posture = scene.get_task("posture")
        self.feet_targets = [foot.pose() for foot in self.feet]
        self.com0 = self.com.position()
        self.q_posture = q0[7:]
        self.com_pd = ComPD(kp=COM_KP, kd=COM_KD)
        self.foot_pd = CartesianPD(kp=FOOT_KP, kd=FOOT_KD)
        self.posture_pd = JointPD(kp=POSTURE_KP, kd=POSTURE_KD)
        if not self.checked:
            self.com_binding = scene.bind("com", self.com_pd, self.com0)
            self.bindings = [scene.bind(f.name, self.foot_pd, t) for f, t in zip(self.feet, self.feet_targets,
                                                                                strict=True)]  # fmt: skip
            self.bindings.append(scene.bind("posture", self.posture_pd, self.q_posture))
        self._record(q0, np.zeros(robot.nv))

    def control(self, t: float, q: np.ndarray, v: np.ndarray) -> np.ndarray:
        self.robot.update(q, v)
        scene = self.scene
        p, dp, ddp = com_target(t, self.com0)
        if self.checked:
            scene.set_reference("com", self.com_pd.reference(self.com, p, dp, ddp))
            for foot, target in zip(self.feet, self.feet_targets, strict=True):
                scene.set_reference(foot.name, self.foot_pd.reference(foot, target))
            scene.set_reference("posture", self.posture_pd.reference(self.posture, self.q_posture))
        else:
            self.com_binding.set_target(p, dp, ddp)  # a moving target: validated, then evaluated
            for binding in self.bindings:
                binding.update()
        scene.solve(scene.update())
        return scene.get_solver_output_raw()


class WbcpyMultiRef:
    """``MultiRefMinJerkCtrl.iterate(xd)`` on the Panda arm with the target moving every step."""

    name = "wbcpy MultiRefMinJerkCtrl.iterate, moving target"

    def setup(self) -> None:
        robot, q0 = panda_start()
        chain = robot.chain("panda_link0", PANDA_EE)
        self.ctrl = MultiRefMinJerkCtrl(chain, CtrlPose.FULL, Ts=DT, q0=q0[: chain.n])
        self.ctrl.set_exec_time(1.0)
        start = self.ctrl.get_pose()
        self.targets = [
            pin.SE3(start.rotation, start.translation + PANDA_OFFSET * (0.5 + 0.5 * math.sin(0.01 * k)))
            for k in range(500)
        ]
        self.qd = q0[: chain.n]
        self._k = 0

    def step(self) -> None:
        xd = self.targets[self._k]
        self._k = (self._k + 1) % len(self.targets)
        self.ctrl.iterate(xd, self.qd)


class WbcpyMultiRefIK(WbcpyMultiRef):
    """``MultiRefMinJerkCtrl.iterate(xd)`` without ``qd``: the controller's own DLS IK gives the joint
    target of every new pose, started from the last IK answer (bounded iterations per step). iKin runs
    its IK solver in a thread of its own that hands ``qd`` over when it has one; here the IK runs inside
    ``iterate``, on the same thread, and is warm-started instead."""

    name = "wbcpy MultiRefMinJerkCtrl.iterate, moving target, no qd"

    def step(self) -> None:
        xd = self.targets[self._k]
        self._k = (self._k + 1) % len(self.targets)
        self.ctrl.iterate(xd)


def _setup(case: object) -> object | None:
    try:
        case.setup()
    except ImportError as exc:
        print(f"skipped {getattr(case, 'name', case)}: {exc}")
        return None
    return case


def _table(
    title: str, cases: list[object], n: int, floor_name: str, targets: dict[str, tuple[str, float]]
) -> dict[str, float]:
    cases = [c for c in (_setup(c) for c in cases) if c is not None]
    timings = measure_interleaved([c.step for c in cases], n_repeat=n)
    by_name = {c.name: t for c, t in zip(cases, timings, strict=True)}
    rows = []
    for case, timing in zip(cases, timings, strict=True):
        note = ""
        if case.name in targets:
            ref, target = targets[case.name]
            if ref in by_name:
                note = f"{timing.median_us / by_name[ref].median_us:.2f}× {ref} (target ≤ {target:g}×)"
        rows.append(
            Row(case.name, timing, by_name.get(floor_name) if case.name != floor_name else None, note)
        )
    print_table(rows, title=title)
    print()
    return {name: t.median_us for name, t in by_name.items()}


CASES: dict[str, Callable[[int], None]] = {}


def _panda(n: int) -> None:
    one, two, raw = WbcpyPandaReach(1), WbcpyPandaReach(2), RawNumpyPandaReach()
    checked = WbcpyPandaReach(1, checked=True)
    tsid, pink = TsidPandaReach(), PinkPandaReach()
    targets = {one.name: (tsid.name, 2.0), checked.name: (one.name, 1.3), two.name: (one.name, 1.5)}
    cases = [tsid, one, checked, two, raw, pink]
    med = _table("Panda reach (ratio: to TSID's step)", cases, n, tsid.name, targets)
    for case, ref, target in ((one, pink, "target ≤ 0.35×"), (one, raw, "wbcpy's cost over the Python floor"),
                              (raw, tsid, "the Python floor against TSID's C++"),
                              (checked, one, "checked/bound, target ≤ 1.3×")):  # fmt: skip
        if case.name in med and ref.name in med:
            print(f"{case.name} / {ref.name}: {med[case.name] / med[ref.name]:.2f}× ({target})")
    print()


def _talos(n: int) -> None:
    tsid, wbc = TsidTalosStanding(feet_tasks=True), WbcpyTalosStanding()
    checked = WbcpyTalosStanding(checked=True)
    targets = {wbc.name: (tsid.name, 1.5), checked.name: (wbc.name, 1.3)}
    med = _table("Talos (ratio: to TSID standing)", [tsid, wbc, checked], n, tsid.name, targets)
    if wbc.name in med and checked.name in med:
        ratio = med[checked.name] / med[wbc.name]
        print(f"{checked.name} / {wbc.name}: {ratio:.2f}× (checked/bound, target ≤ 1.3×)")
    print()


def _multiref(n: int) -> None:
    pink, ik, ik2 = PinkPandaReach(), WbcpyMultiRef(), WbcpyMultiRefIK()
    targets = {ik.name: (pink.name, 0.2), ik2.name: (pink.name, 0.3)}
    _table("MultiRef (ratio: to pink's step)", [pink, ik, ik2], n, pink.name, targets)


CASES = {"panda": _panda, "talos": _talos, "multiref": _multiref}


def main(argv: list[str] | None = None) -> None:
    print_cpu()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3000, help="samples per case (default 3000)")
    parser.add_argument("--cases", nargs="+", choices=sorted(CASES), default=list(CASES))
    args = parser.parse_args(argv)
    for name in args.cases:
        CASES[name](args.repeat)


if __name__ == "__main__":
    main()
