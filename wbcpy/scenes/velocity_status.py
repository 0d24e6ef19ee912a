"""Status of a VelocityScene: the task status, plus the active limits and the nearby collision pairs.

:class:`VelocitySceneStatus` is a :class:`~wbcpy.tasks.TasksStatus` (one row per task: y_ref, y_solution,
y are velocities and twists) with

* ``limits`` — ``{dof_name: "lower" | "upper"}`` for the DOFs whose q̇ sits on a bound (position limit
  over one step, velocity limit or a locked joint);
* ``collisions`` — the pairs inside their influence distance at the last update
  (:class:`~wbcpy.collision.CollisionPairStatus`: names, signed distance, witness points, normal, the
  row's right-hand side), closest first; ``penetrating`` lists those with d ≤ 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..limits.collision.constraint import CollisionPairStatus
from ..tasks import TasksStatus

#: units of the task status table's norms for a velocity scene (its references are velocities)
VELOCITY_STATUS_UNITS = (
    "units of |y_ref|, |y_ref-y_sol|, |y_ref-y|: velocities; cart rows m/s (linear) and rad/s (angular), "
    "jnt rad/s (m/s for prismatic joints), com m/s"
)


@dataclass
class VelocitySceneStatus(TasksStatus):
    """Task status with the active limit bounds and the collision pairs inside their influence distance.

    Attributes:
        limits: ``{dof_name: "lower" | "upper"}`` of the DOFs on a bound of q̇.
        collisions: pairs inside their influence distance, closest first.
    """

    limits: dict[str, str] = field(default_factory=dict)
    collisions: list[CollisionPairStatus] = field(default_factory=list)

    #: units of the table's norms
    units = VELOCITY_STATUS_UNITS

    @property
    def penetrating(self) -> list[CollisionPairStatus]:
        """The pairs with a signed distance ≤ 0."""
        return [c for c in self.collisions if c.penetrating]

    @property
    def min_distance(self) -> float | None:
        """The smallest signed distance of a pair inside its influence distance (m), or None."""
        return self.collisions[0].distance if self.collisions else None

    def table(self) -> str:
        """The task table, then one line for the active limits and one per collision pair."""
        lines = [super().table()]
        if self.limits:
            lines.append("limits at a bound: " + ", ".join(f"{k} ({v})" for k, v in self.limits.items()))
        for c in self.collisions:
            flag = "  PENETRATING" if c.penetrating else ""
            lines.append(
                f"collision {c.geometry_a} – {c.geometry_b}: d = {c.distance:.4g} m, "
                f"row ≥ {c.lower:.4g} m/s{flag}"
            )
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()
