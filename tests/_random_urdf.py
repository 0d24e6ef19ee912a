"""Random URDF kinematic trees for property tests (XML written here, no wbcpy code involved).

:func:`random_urdf` builds a tree of links joined by revolute, continuous, prismatic and fixed joints with
random axes, origins, masses and physically valid inertias (positive principal moments obeying the
triangle inequality, rotated by a random rotation). :func:`urdf_trees` is the matching hypothesis
strategy: ``(xml, n_moving, floating_base)``.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

JOINT_TYPES = ("revolute", "continuous", "prismatic", "fixed")


def _rotation(rng: np.random.Generator) -> np.ndarray:
    q, r = np.linalg.qr(rng.normal(size=(3, 3)))
    q *= np.sign(np.diag(r))
    if np.linalg.det(q) < 0:
        q[:, 0] = -q[:, 0]
    return q


def _inertia(rng: np.random.Generator) -> np.ndarray:
    """A valid rotational inertia: principal moments with I_a + I_b > I_c, rotated."""
    while True:
        moments = rng.uniform(1e-3, 0.1, 3)
        if all(moments[i] + moments[(i + 1) % 3] > moments[(i + 2) % 3] for i in range(3)):
            break
    R = _rotation(rng)
    return R @ np.diag(moments) @ R.T


def _fmt(values: np.ndarray) -> str:
    return " ".join(f"{v:.17g}" for v in values)


def random_urdf(n_moving: int, n_fixed: int, seed: int) -> str:
    """URDF XML of a random tree with ``n_moving`` moving and ``n_fixed`` fixed joints."""
    rng = np.random.default_rng(seed)
    kinds = ["moving"] * n_moving + ["fixed"] * n_fixed
    rng.shuffle(kinds)
    if kinds and kinds[0] == "fixed" and n_moving:  # keep a moving joint near the root sometimes
        kinds.reverse()
    parts = ['<robot name="random_tree">', '  <link name="link0">', _inertial(rng), "  </link>"]
    for i, kind in enumerate(kinds, start=1):
        parent = int(rng.integers(0, i))
        jtype = "fixed" if kind == "fixed" else str(rng.choice(JOINT_TYPES[:3]))
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        xyz = rng.uniform(-0.3, 0.3, 3)
        rpy = rng.uniform(-np.pi, np.pi, 3)
        parts += [f'  <link name="link{i}">', _inertial(rng), "  </link>"]
        joint = [
            f'  <joint name="joint{i}" type="{jtype}">',
            f'    <parent link="link{parent}"/><child link="link{i}"/>',
            f'    <origin xyz="{_fmt(xyz)}" rpy="{_fmt(rpy)}"/>',
        ]
        if jtype != "fixed":
            joint.append(f'    <axis xyz="{_fmt(axis)}"/>')
        if jtype in ("revolute", "prismatic"):
            lo = rng.uniform(-2.0, -0.1)
            joint.append(f'    <limit lower="{lo:.17g}" upper="{-lo:.17g}" effort="10" velocity="3"/>')
        parts += [*joint, "  </joint>"]
    parts.append("</robot>")
    return "\n".join(parts)


def _inertial(rng: np.random.Generator) -> str:
    inertia = _inertia(rng)
    com = rng.uniform(-0.2, 0.2, 3)
    mass = rng.uniform(0.1, 3.0)
    return (
        f'    <inertial><origin xyz="{_fmt(com)}"/><mass value="{mass:.17g}"/>'
        f'<inertia ixx="{inertia[0, 0]:.17g}" ixy="{inertia[0, 1]:.17g}" ixz="{inertia[0, 2]:.17g}" '
        f'iyy="{inertia[1, 1]:.17g}" iyz="{inertia[1, 2]:.17g}" izz="{inertia[2, 2]:.17g}"/></inertial>'
    )


@st.composite
def urdf_trees(draw: st.DrawFn, max_moving: int = 40) -> tuple[str, int, bool]:
    """Hypothesis strategy: ``(xml, n_moving, floating_base)`` with 1..max_moving moving joints."""
    n_moving = draw(st.integers(1, max_moving))
    n_fixed = draw(st.integers(0, 4))
    seed = draw(st.integers(0, 2**32 - 1))
    floating = draw(st.booleans())
    return random_urdf(n_moving, n_fixed, seed), n_moving, floating
