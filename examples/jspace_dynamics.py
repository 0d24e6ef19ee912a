"""Joint-space dynamics of Stanford-WBC's PUMA 560 with the jspace facade.

Loads ``robots/puma560.urdf``, sets a state, prints M, M⁻¹, g, b and the end-effector Jacobian, then checks
the computed-torque identity τ = M q̈ + b + g against Pinocchio's RNEA, and an energy identity: with the
joints free (τ = 0) the total energy ½ q̇ᵀ M q̇ + V(q) stays constant along a short simulation.

Run:  python examples/jspace_dynamics.py
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from wbcpy import jspace


def main() -> dict[str, float]:
    """Print the dynamics at one state; return the identity residuals (all ≈ 0)."""
    model = jspace.Model.load("puma560")
    robot = model.robot
    q = np.array([0.2, -0.6, 1.2, 0.1, 0.7, -0.3])
    qd = np.array([0.3, -0.2, 0.4, 0.5, -0.1, 0.2])
    model.update(jspace.State(q, qd))
    ee = model.get_node_by_name("end-effector")
    M, g, b = model.get_mass_inertia(), model.get_gravity(), model.get_coriolis_centrifugal()
    np.set_printoptions(precision=4, suppress=True)
    print("M =\n", M, "\ng =", g, "\nb =", b)
    print("J(end-effector) =\n", model.compute_jacobian(ee))

    # computed torque against Pinocchio's RNEA
    qdd = np.array([1.0, -0.5, 0.3, 0.0, 0.2, -0.1])
    tau = pin.rnea(robot.model, robot.model.createData(), robot.q_from_dof(q), qd, qdd)
    torque_residual = float(np.abs(M @ qdd + b + g - tau).max())

    # free motion: M q̈ = −(b + g); semi-implicit Euler with a small step keeps the energy
    data = robot.model.createData()

    def energy(position: np.ndarray, velocity: np.ndarray) -> float:
        qq = robot.q_from_dof(position)
        return pin.computeKineticEnergy(robot.model, data, qq, velocity) + pin.computePotentialEnergy(
            robot.model, data, qq
        )

    pos, vel, dt = q.copy(), qd.copy(), 1e-4
    e0 = energy(pos, vel)
    for _ in range(2000):  # 0.2 s
        model.update(jspace.State(pos, vel))
        acc = -model.get_inverse_mass_inertia() @ (model.get_coriolis_centrifugal() + model.get_gravity())
        vel = vel + dt * acc
        pos = pos + dt * vel
    drift = abs(energy(pos, vel) - e0) / abs(e0)
    print(f"τ = M q̈ + b + g vs RNEA: {torque_residual:.2e} N·m; energy drift over 0.2 s: {drift:.2e}")
    return {"torque_residual": torque_residual, "energy_drift": drift}


if __name__ == "__main__":
    main()
