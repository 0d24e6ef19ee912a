"""One self-contained HTML page: meshcat's viewer (three.js) inlined, the recorded scene, a small player.

The page needs no server and no network: the viewer's JavaScript (``meshcat/viewer/dist/main.min.js`` of
the installed meshcat, which bundles three.js, msgpack-lite and dat.GUI; licences in NOTICE) is inlined,
and the scene commands are base64 strings replayed in order when the page loads.

Player (URL fragment, e.g. ``anim.html#t=1.5``):

* ``t=SECONDS``: pause at that time since the start of the animation (the controls panel can play again);
* ``robot=0``: hide the robot (paths, targets and obstacles stay), ``robot=1`` shows it again.

Changing the fragment of an open page applies it at once. ``window.wbcpy`` holds ``duration`` (s) and
``ready`` (true once the scene is loaded).
"""

from __future__ import annotations

import base64
import html
import json
from collections.abc import Iterable, Sequence
from pathlib import Path

from .camera import three_coordinates

#: meshcat path of the robot (what ``robot=0`` hides)
ROBOT_NODE = ("meshcat", "robot")

_STYLE = """
body { margin: 0; overflow: hidden; font-family: sans-serif; }
#meshcat-pane { width: 100vw; height: 100vh; overflow: hidden; }
#wbcpy-caption { position: absolute; left: 10px; bottom: 10px; padding: 6px 10px; font-size: 13px;
  color: #222; background: rgba(255, 255, 255, 0.8); border-radius: 4px; pointer-events: none; }
"""

_PLAYER = """
(function () {
  var viewer = new MeshCat.Viewer(document.getElementById("meshcat-pane"));
  window.viewer = viewer;
  var commands = %(commands)s;
  for (var i = 0; i < commands.length; i++) {
    var bin = atob(commands[i]);
    var bytes = new Uint8Array(bin.length);
    for (var k = 0; k < bin.length; k++) bytes[k] = bin.charCodeAt(k);
    viewer.handle_command_bytearray(bytes);
  }
  var duration = %(duration)s;
  var target = %(target)s;
  viewer.controls.target.set(target[0], target[1], target[2]);
  viewer.controls.update();
  var clock = document.getElementById("wbcpy-time");
  function applyFragment() {
    var p = new URLSearchParams(window.location.hash.slice(1));
    if (p.has("robot")) viewer.set_property(%(robot)s, "visible", p.get("robot") !== "0");
    var t = parseFloat(p.get("t"));
    if (isFinite(t) && viewer.animator.actions.length > 0) {
      viewer.animator.pause();
      viewer.animator.seek(Math.max(0, Math.min(duration, t)));
      viewer.animator.display_progress(t);
    }
    viewer.set_dirty();
  }
  function showTime() {
    var a = viewer.animator.actions;
    if (clock && a.length > 0) clock.textContent = "t = " + a[0].time.toFixed(2) + " s";
    window.requestAnimationFrame(showTime);
  }
  applyFragment();
  window.addEventListener("hashchange", applyFragment);
  showTime();
  window.wbcpy = { duration: duration, ready: true };
})();
"""


def viewer_script() -> str:
    """The JavaScript of meshcat's browser viewer, from the installed meshcat package."""
    import meshcat

    return (Path(meshcat.__file__).parent / "viewer" / "dist" / "main.min.js").read_text(encoding="utf-8")


def _inline(js: str) -> str:
    """Make ``js`` safe inside a ``<script>`` element (no premature ``</script``)."""
    return js.replace("</script", "<\\/script").replace("</SCRIPT", "<\\/SCRIPT")


def html_page(
    commands: Sequence[bytes],
    title: str,
    caption: Sequence[str],
    duration: float,
    target: Iterable[float] = (0.0, 0.0, 0.0),
) -> str:
    """The page for meshcat ``commands`` (msgpack blobs), titled ``title``, with caption lines.

    Args:
        commands: scene commands in the order they are to be executed.
        title: page title.
        caption: lines shown at the bottom left (plain text, escaped here).
        duration: length of the animation (s); 0 for a still scene.
        target: the point the camera looks at and orbits about (world, m).
    """
    encoded = [base64.b64encode(c).decode("ascii") for c in commands]
    player = _PLAYER % {
        "commands": json.dumps(encoded),
        "duration": json.dumps(float(duration)),
        "robot": json.dumps(list(ROBOT_NODE)),
        "target": json.dumps(three_coordinates(target)),
    }
    lines = "<br>".join(html.escape(line) for line in caption)
    time_line = '<br><span id="wbcpy-time"></span>' if duration > 0 else ""
    return (
        '<!DOCTYPE html>\n<html>\n<head>\n<meta charset="utf-8">\n'
        f"<title>{html.escape(title)}</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n"
        '<div id="meshcat-pane"></div>\n'
        f'<div id="wbcpy-caption"><b>{html.escape(title)}</b><br>{lines}{time_line}</div>\n'
        f"<script>\n{_inline(viewer_script())}\n</script>\n"
        f"<script>\n{_inline(player)}\n</script>\n</body>\n</html>\n"
    )
