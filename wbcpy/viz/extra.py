"""The optional ``viz`` extra: how to tell whether it is installed, and the error when it is not.

Visualisation needs ``meshcat`` (its three.js viewer and its Python scene commands), which is not a core
dependency of wbcpy. Everything in :mod:`wbcpy.viz` calls :func:`require_viz` before touching it, so a
missing extra is one clear :class:`VizExtraMissingError` (the CLI turns it into one line and exit code 2).
"""

from __future__ import annotations

import importlib.util
import warnings

from ..errors import WbcpyError

#: the command that installs what :mod:`wbcpy.viz` needs
INSTALL_HINT = 'pip install "wbcpy[viz]"'
_MODULES = ("meshcat", "umsgpack")


class VizExtraMissingError(WbcpyError, ImportError):
    """The ``viz`` extra is not installed (also an :class:`ImportError`).

    Attributes:
        missing: the Python modules that could not be found.
    """

    def __init__(self, missing: list[str]) -> None:
        self.missing = list(missing)
        super().__init__(f"3-D views and HTML animations need the viz extra: {INSTALL_HINT}")


def _missing() -> list[str]:
    return [m for m in _MODULES if importlib.util.find_spec(m) is None]


def have_viz() -> bool:
    """True when the ``viz`` extra (meshcat) is importable."""
    return not _missing()


def require_viz() -> None:
    """Raise :class:`VizExtraMissingError` unless the ``viz`` extra is installed.

    The first call imports meshcat and ``pinocchio.visualize`` with meshcat's import-time deprecation
    warning (pyzmq's ``zmq.eventloop.ioloop``) silenced; later imports of them are cached.
    """
    missing = _missing()
    if missing:
        raise VizExtraMissingError(missing)
    with warnings.catch_warnings():
        warnings.filterwarnings(
            "ignore", message=r"zmq\.eventloop\.ioloop is deprecated", category=DeprecationWarning
        )
        import meshcat  # noqa: F401
        import pinocchio.visualize  # noqa: F401
