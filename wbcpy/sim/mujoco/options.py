"""ContactOptions: the contact and integration options of a MuJoCo model that wbcpy builds.

The library's defaults are stiff, nearly rigid soft contacts, close to the rigid plant's:

* ``cone="elliptic"``: isotropic Coulomb friction, |f_t| ≤ μ f_n (MuJoCo's default is a pyramid);
* ``impratio=10``: the ratio of frictional to normal constraint impedance — friction is held ten times
  stiffer than penetration, so stuck contacts creep less;
* ``solref=(0.005, 1)``: the contact's time constant (s) and damping ratio: a critically damped
  mass-spring of 5 ms (MuJoCo's default 20 ms sinks a 90 kg humanoid by millimetres);
* ``solimp=(0.95, 0.99, 0.001)``: impedance from 0.95 at zero penetration to 0.99 at 1 mm;
* ``timestep=0.001`` s (MuJoCo's default 2 ms); a control period is a whole number of time steps.

:meth:`ContactOptions.mujoco_defaults` gives MuJoCo's own (pyramidal cone, impratio 1, solref (0.02, 1),
solimp (0.9, 0.95, 0.001, 0.5, 2), 2 ms). MuJoCo's documentation explains each option:
https://mujoco.readthedocs.io/en/stable/modeling.html#solver-parameters.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

from ...errors import ConfigError

#: MuJoCo's integrators by name (``mjtIntegrator``) that a split step (``mj_step1``, ``mj_step2``) keeps
INTEGRATORS = ("euler", "implicit", "implicitfast")
_CONES = ("pyramidal", "elliptic")


def _positive(value: Any, field: str, strict: bool = True) -> float:
    ok = not isinstance(value, bool) and isinstance(value, (int, float))
    if not ok or not math.isfinite(value) or value < 0 or (strict and value == 0):
        raise ConfigError(field, f"must be a finite number {'>' if strict else '≥'} 0, got {value!r}")
    return float(value)


@dataclass(frozen=True)
class ContactOptions:
    """Contact and integration options of a MuJoCo model built from a robot (see the module docstring).

    Attributes:
        cone: ``"elliptic"`` or ``"pyramidal"``.
        impratio: frictional-to-normal impedance ratio (≥ 1 is usual), > 0.
        solref: (time constant s, damping ratio) of every contact, both > 0.
        solimp: (d0, d_width, width m[, midpoint, power]): MuJoCo's impedance, 3 or 5 numbers,
            0 < d0, d_width < 1, width > 0.
        timestep: MuJoCo's time step (s), > 0.
        condim: contact dimensionality: 1 (frictionless), 3 (sliding friction), 4 (+ torsional),
            6 (+ rolling).
        integrator: one of :data:`INTEGRATORS`.
        box_half_thickness: half thickness of the boxes that model surface contacts and radius of the
            spheres that model point contacts (m), > 0.
    """

    cone: str = "elliptic"
    impratio: float = 10.0
    solref: tuple[float, ...] = (0.005, 1.0)
    solimp: tuple[float, ...] = (0.95, 0.99, 0.001)
    timestep: float = 0.001
    condim: int = 3
    integrator: str = "euler"
    box_half_thickness: float = 0.005

    def __post_init__(self) -> None:
        if self.cone not in _CONES:
            raise ConfigError("cone", f"must be one of {', '.join(_CONES)}, got {self.cone!r}")
        if self.integrator not in INTEGRATORS:
            raise ConfigError(
                "integrator", f"must be one of {', '.join(INTEGRATORS)}, got {self.integrator!r}"
            )
        if isinstance(self.condim, bool) or self.condim not in (1, 3, 4, 6):
            raise ConfigError("condim", f"must be 1, 3, 4 or 6, got {self.condim!r}")
        _positive(self.impratio, "impratio")
        _positive(self.timestep, "timestep")
        _positive(self.box_half_thickness, "box_half_thickness")
        solref = self._numbers(self.solref, "solref", (2,))
        for x in solref:
            _positive(x, "solref")
        solimp = self._numbers(self.solimp, "solimp", (3, 5))
        if not (0.0 < solimp[0] < 1.0 and 0.0 < solimp[1] < 1.0 and solimp[2] > 0.0):
            raise ConfigError("solimp", f"needs 0 < d0, d_width < 1 and width > 0, got {self.solimp!r}")
        object.__setattr__(self, "solref", solref)
        object.__setattr__(self, "solimp", solimp)
        object.__setattr__(self, "impratio", float(self.impratio))
        object.__setattr__(self, "timestep", float(self.timestep))

    @staticmethod
    def _numbers(value: Any, field: str, sizes: tuple[int, ...]) -> tuple[float, ...]:
        try:
            out = tuple(float(x) for x in value if not isinstance(x, bool))
            n = len(value)
        except (TypeError, ValueError):
            raise ConfigError(
                field, f"expected {' or '.join(map(str, sizes))} numbers, got {value!r}"
            ) from None
        if n not in sizes or len(out) != n or not all(math.isfinite(x) for x in out):
            raise ConfigError(field, f"expected {' or '.join(map(str, sizes))} finite numbers, got {value!r}")
        return out

    @classmethod
    def mujoco_defaults(cls) -> ContactOptions:
        """MuJoCo's own defaults: pyramidal cone, impratio 1, solref (0.02, 1), solimp (0.9, 0.95, 0.001,
        0.5, 2), time step 2 ms."""
        return cls(
            cone="pyramidal",
            impratio=1.0,
            solref=(0.02, 1.0),
            solimp=(0.9, 0.95, 0.001, 0.5, 2.0),
            timestep=0.002,
        )

    def as_dict(self) -> dict[str, Any]:
        """The options as plain numbers, strings and lists (for a log file)."""
        out = asdict(self)
        out["solref"], out["solimp"] = list(self.solref), list(self.solimp)
        return out

    def full_solimp(self) -> list[float]:
        """``solimp`` with MuJoCo's default midpoint 0.5 and power 2 when only three numbers were given."""
        return [*self.solimp, 0.5, 2.0] if len(self.solimp) == 3 else list(self.solimp)
