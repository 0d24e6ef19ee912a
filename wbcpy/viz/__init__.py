"""3-D views of robots: a live viewer (``wbcpy view``) and self-contained HTML animations.

Both draw a robot's URDF ``<visual>`` geometry with Pinocchio's ``MeshcatVisualizer``
(``pinocchio.visualize``) and need the optional ``viz`` extra (``pip install "wbcpy[viz]"``, which installs
meshcat); importing this package works without it, using it raises :class:`VizExtraMissingError`.

* :func:`write_animation`: one HTML file, no server and no network needed to open it, that plays a motion
  and draws the paths of chosen frames, targets and obstacles. :func:`animate_scene` and
  :func:`animate_reach` make one from a ``wbcpy scene`` simulation or a ``wbcpy reach`` run.
* :class:`ViewServer` and :func:`show_robot`: a live view served from this process.
"""

from __future__ import annotations

from ..description.robot_files import visual_model
from .animation import prepare_output, write_animation
from .extra import INSTALL_HINT, VizExtraMissingError, have_viz, require_viz
from .postures import parse_configuration
from .runs import animate_reach, animate_scene
from .server import ViewServer, ViewServerError, show_robot

__all__ = [
    "INSTALL_HINT",
    "ViewServer",
    "ViewServerError",
    "VizExtraMissingError",
    "animate_reach",
    "animate_scene",
    "have_viz",
    "parse_configuration",
    "prepare_output",
    "require_viz",
    "show_robot",
    "visual_model",
    "write_animation",
]
