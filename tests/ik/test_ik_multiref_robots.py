"""MultiRefMinJerkCtrl on 7-DOF arms (lwr4, Panda) and on a simulated non-ideal velocity plant.

Oracles: raw Pinocchio FK of the robot's own model (not the chain), joint limits read from the Pinocchio
model, a continuous plant P(s) = (Kp/s)(1 + Tz s)/(1 + 2ζTw s + Tw²s²) simulated per joint with fine-step
RK4 (scipy.signal.tf2ss realisation, zero-order-hold input), and the closed-form p³/(s+p)³ step response.
"""

from __future__ import annotations

import numpy as np
from _ik_helpers import RawKinematics, pose_errors, serial_chain, triple_pole_step
from scipy import signal

from wbcpy import load_robot
from wbcpy.ik import MultiRefMinJerkCtrl

TS = 0.01


# ------------------------------------------------------------------------------- 10. 7-DOF arms
def _reach_random_poses(robot, base: str, tip: str, q_start: np.ndarray, n_poses: int = 20) -> None:
    chain = robot.chain(base, tip)
    assert chain.n == 7
    raw = RawKinematics(robot, tip, chain.joint_names)
    lo, hi = raw.lower, raw.upper
    rng = np.random.default_rng(7)
    c = MultiRefMinJerkCtrl(chain, "full", TS, q0=q_start)
    for k in range(n_poses):
        span = hi - lo
        q_target = rng.uniform(lo + 0.05 * span, hi - 0.05 * span)
        target = raw.pose(q_target)
        qd = q_target if k % 2 == 0 else None  # odd poses: joint target from the DLS IK
        for _ in range(300):  # 3·T with T = 1 s
            q = c.iterate(target, qd)
            assert np.all(q >= lo) and np.all(q <= hi), (k, q)
        if qd is None:
            assert c.last_ik is not None and c.last_ik.success, (k, c.last_ik)
        dp, dr = pose_errors(target, raw.pose(c.get_q()))
        assert dp < 1e-3 and dr < 1e-2, (k, dp, dr)


def test_lwr4_reaches_random_poses():
    robot = load_robot("lwr4")
    _reach_random_poses(robot, "lwr_base_link", "lwr_ee", np.array([0.0, 0.5, 0.0, -1.0, 0.0, 0.5, 0.0]))


def test_panda_reaches_random_poses(example_robot):
    robot = example_robot("panda")
    q_start = np.array([0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785])
    _reach_random_poses(robot, "panda_link0", "panda_link8", q_start)


# ------------------------------------------------------------------------------ 8. non-ideal plant
PLANTS = [
    {"Kp": 1.5, "Tz": 0.05, "Tw": 0.08, "Zeta": 0.6},  # spec §5
    {"Kp": 0.8, "Tz": 0.02, "Tw": 0.05, "Zeta": 0.9},
]


class Plant:
    """Velocity-controlled joints: one P(s) per joint, RK4 with ``substeps`` per sample, input held."""

    def __init__(self, params: list[dict[str, float]], y0: np.ndarray, substeps: int = 50) -> None:
        self.systems = []
        for p, y in zip(params, y0, strict=True):
            num = [p["Kp"] * p["Tz"], p["Kp"]]
            den = [p["Tw"] ** 2, 2.0 * p["Zeta"] * p["Tw"], 1.0, 0.0]
            A, B, C, _ = signal.tf2ss(num, den)
            # the integrator's state is the output up to a gain: start with output y
            x = np.linalg.lstsq(C, [y], rcond=None)[0]
            self.systems.append([A, B.ravel(), C.ravel(), x])
        self.h = TS / substeps
        self.substeps = substeps

    def output(self) -> np.ndarray:
        return np.array([C @ x for _, _, C, x in self.systems])

    def step(self, u: np.ndarray) -> None:
        h = self.h
        for sys, ui in zip(self.systems, u, strict=True):
            A, B, _, x = sys
            for _ in range(self.substeps):
                k1 = A @ x + B * ui
                k2 = A @ (x + 0.5 * h * k1) + B * ui
                k3 = A @ (x + 0.5 * h * k2) + B * ui
                k4 = A @ (x + h * k3) + B * ui
                x = x + (h / 6.0) * (k1 + 2 * k2 + 2 * k3 + k4)
            sys[3] = x


def _closed_loop(
    c: MultiRefMinJerkCtrl, chain, q0: np.ndarray, qd: np.ndarray, steps: int = 300
) -> np.ndarray:
    """Run the controller on the plant (q measured by set_q each sample); normalised responses per joint."""
    plant = Plant(PLANTS, q0)
    xd = chain.pose7(qd)
    out = []
    for _ in range(steps):
        y = plant.output()
        out.append((y - q0) / (qd - q0))
        c.set_q(y)
        c.iterate(xd, qd)
        plant.step(c.get_qdot())
    return np.array(out)


def test_non_ideal_plant_compensation():
    _, chain = serial_chain(2, -10.0, 10.0)
    q0, qd = np.array([0.0, 0.5]), np.array([1.0, -0.5])
    t = np.arange(300) * TS
    reference = triple_pole_step(t, 1.0)

    comp = MultiRefMinJerkCtrl(chain, "full", TS, non_ideal_plant=True, q0=q0)
    comp.set_gamma(0.0)
    comp.set_plant_parameters({f"dimension_{i}": p for i, p in enumerate(PLANTS)})
    y = _closed_loop(comp, chain, q0, qd)
    assert np.abs(y - reference[:, None]).max() < 0.01

    ideal = MultiRefMinJerkCtrl(chain, "full", TS, q0=q0)
    ideal.set_gamma(0.0)
    y_ideal = _closed_loop(ideal, chain, q0, qd)
    assert y_ideal[:, 0].max() > 1.05  # the spec's plant: the uncompensated loop overshoots


def test_set_plant_parameters_switches_ideal_controller():
    _, chain = serial_chain(2, -10.0, 10.0)
    c = MultiRefMinJerkCtrl(chain, "full", TS)
    assert not c.non_ideal_plant
    assert c.get_plant_parameters() == {
        f"dimension_{i}": {"Kp": 1.0, "Tz": 0.0, "Tw": 0.0, "Zeta": 0.0} for i in range(2)
    }
    c.setPlantParameters([PLANTS[0], {}])
    assert c.non_ideal_plant
    params = c.getPlantParameters()
    assert params["dimension_0"] == PLANTS[0]
    assert params["dimension_1"] == {"Kp": 1.0, "Tz": 0.0, "Tw": 0.0, "Zeta": 0.0}


def test_non_ideal_defaults_equal_ideal():
    _, chain = serial_chain(2, -10.0, 10.0)
    q0, qd = np.array([0.0, 0.5]), np.array([1.0, -0.5])
    a = MultiRefMinJerkCtrl(chain, "full", TS, q0=q0)
    b = MultiRefMinJerkCtrl(chain, "full", TS, non_ideal_plant=True, q0=q0)
    for _ in range(150):
        np.testing.assert_allclose(a.iterate(chain.pose7(qd), qd), b.iterate(chain.pose7(qd), qd), atol=1e-9)
