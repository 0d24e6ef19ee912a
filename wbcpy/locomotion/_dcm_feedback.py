"""The walking controller's COM reference: the DCM feedback law, its ZMP clamped into the stance sole.

On the ground plane the COM task's acceleration is the LIPM's for the commanded ZMP p*:

    ẍ*_{x,y} = ω²(x − p*),   p* = p_ref + (1 + k_ξ/ω)(ξ − ξ_ref),   ξ = x + ẋ/ω,

with ξ the measured DCM, (p_ref, ξ_ref) the pattern's and k_ξ the DCM gain (1/s). In single support p*
is clamped into the stance sole as the scene sees it (the ankle strategy: the COM task asks only for what
the contact can realise), except while a pushed swing adapts its footstep (the hip strategy: the QP then
turns the trunk and limbs to give more). The height follows the pattern's constant COM height by PD:
ẍ*_z = k_p (z_ref − z) + k_d (0 − ż).
"""

from __future__ import annotations

from ..scenes.inverse_dynamics_scene import InverseDynamicsScene
from ..tasks import ComTask
from ._dcm import Lipm
from .pattern import Phase, WalkingPattern


class DcmFeedback:
    """Writes the COM task's acceleration reference in place (the task's ``target_view``/``stamp``
    protocol: the values come from the pattern and the measured state, finite by construction).

    Attributes:
        gain: k_ξ (1/s), the DCM feedback gain (checked by the controller that sets it).

    Plain attributes: a copy of the controller that holds it copies it with its task and scene.
    """

    def __init__(
        self,
        pattern: WalkingPattern,
        task: ComTask,
        scene: InverseDynamicsScene,
        inner: tuple[float, float],
        height_gains: tuple[float, float],
        gain: float,
    ) -> None:
        """``scene``: the scene whose clock stamps the task; ``inner``: the stance sole's half sizes
        as the scene sees them (m); ``height_gains``: (k_p, k_d) of the height (1/s², 1/s)."""
        self._pattern, self._task, self._scene = pattern, task, scene
        self._view = task.target_view()
        self._inner, self._height_gains = inner, height_gains
        self.gain = gain
        #: the stance sole of :meth:`_clamp` (cx, cy and its rotation's ground block) and its key
        self._stance_key: tuple[float, int] | None = None
        self._stance = (0.0, 0.0, 1.0, 0.0, 0.0, 1.0)

    def write(self, plan: Lipm, ph: Phase, x: list[float], v: list[float], clamp: bool) -> None:
        """The acceleration reference of the module docstring, written into the task and stamped.

        Args:
            plan: the pattern's :meth:`~WalkingPattern.lipm` at the time. ph: its phase. x, v: the measured
                COM position and velocity (world, m and m/s, as float lists). clamp: clamp the ZMP into
                the stance sole in single support (False while a swing adapts its footstep).
        """
        pattern = self._pattern
        w = pattern.omega
        _, (xi0, xi1), (p0, p1) = plan
        k = 1.0 + self.gain / w
        px, py = p0 + k * (x[0] + v[0] / w - xi0), p1 + k * (x[1] + v[1] / w - xi1)
        if clamp and ph.kind == "single" and ph.stance is not None:
            px, py = self._clamp(ph, ph.stance, px, py)
        kp, kd = self._height_gains
        out = self._view
        out[0] = w * w * (x[0] - px)
        out[1] = w * w * (x[1] - py)
        # (the plan's COM height is constant: z_ref = ground + z_c, ż_ref = z̈_ref = 0)
        out[2] = kp * (pattern.ground + pattern.com_height - x[2]) + kd * (0.0 - v[2])
        self._task.stamp(self._scene.clock())

    def _clamp(self, ph: Phase, stance: str, px: float, py: float) -> tuple[float, float]:
        """(px, py) clamped into the ``stance`` sole of single-support phase ``ph``: in the sole's axes
        (R₂ its rotation's ground block, c its centre) ℓ = clip(R₂ᵀ(p − c), ±half size), p = c + R₂ℓ.
        The sole is cached per phase and plan version."""
        key = (ph.t0, self._pattern.version)
        if self._stance_key != key:
            sole = self._pattern.foot_before(ph.step, stance)
            (r00, r01, _), (r10, r11, _), _ = sole.rotation.tolist()
            cx, cy, _ = sole.translation.tolist()
            self._stance = (cx, cy, r00, r01, r10, r11)
            self._stance_key = key
        cx, cy, r00, r01, r10, r11 = self._stance
        X, Y = self._inner
        dx, dy = px - cx, py - cy
        lx = min(max(r00 * dx + r10 * dy, -X), X)
        ly = min(max(r01 * dx + r11 * dy, -Y), Y)
        return cx + (r00 * lx + r01 * ly), cy + (r10 * lx + r11 * ly)
