"""DAQP's C solver without its Python wrapper: the binding, and the settings the kernel takes.

``daqp.solve`` does Python-level work around ``daqp_quadprog`` on every call (argument conversion, output
arrays, the info dictionary), as much as the solve of a small level takes (``benchmarks/bench_qp_backends.py``
prints both; docs/benchmarks.md). :class:`~.active_set.DaqpBackend` therefore hands its arrays,
already float64 and contiguous, to ``daqp_quadprog`` in the daqp module's own shared object
(:func:`wbcpy._kernels.daqp_solve`), for cold solves with options that are all DAQP settings.

DAQP's C API passes structs whose layout can change between releases: the binding is made only for the
releases in :data:`DIRECT_VERSIONS` (their ``types.h`` matches the declarations in
``csrc/kernels/daqp_call.c``), and the kernel checks the layout once more on binding (DAQP's default
settings at the declared offsets). Any other release, a failed check, or ``WBCPY_DAQP_DIRECT=0`` in the
environment keeps the wrapper, and one ``RuntimeWarning`` per process says why. The answers are the same,
bit for bit (same function, same inputs).
"""

from __future__ import annotations

import os
import warnings
from importlib import metadata
from typing import Any

import numpy as np

from ... import _kernels

#: daqp releases whose C structs match csrc/kernels/daqp_call.c
DIRECT_VERSIONS = frozenset({"0.11.0"})
#: DAQP's settings in struct order (the order of the vector :func:`settings_vector` builds)
SETTINGS = ("primal_tol", "dual_tol", "zero_tol", "pivot_tol", "progress_tol", "cycle_tol", "iter_limit",
            "fval_bound", "eps_prox", "eta_prox", "rho_soft", "rel_subopt", "abs_subopt", "sing_tol",
            "refactor_tol", "time_limit", "w_soft", "eq_reduction", "presolve")  # fmt: skip
_INDEX = {name: i for i, name in enumerate(SETTINGS)}
#: integer settings (the vector holds them as floats; they must be integral)
_INTEGER = frozenset({"cycle_tol", "iter_limit", "eq_reduction", "presolve"})

_state: dict[str, Any] = {}


def bound() -> bool:
    """True when ``daqp_quadprog`` is bound (tried once per process)."""
    ok = _state.get("bound")
    if ok is None:
        ok = _state["bound"] = _bind()
    return bool(ok)


def _bind() -> bool:
    ok, why = _try_bind()
    if not ok:
        # once per process (bound() caches the outcome): the wrapper adds its Python work to every solve
        warnings.warn(
            f"wbcpy: DAQP's C solver is not called directly ({why}); DAQP levels go through daqp.solve, "
            "the same solver with the wrapper's Python work added to every solve",
            RuntimeWarning,
            stacklevel=4,
        )
    return ok


def _try_bind() -> tuple[bool, str]:
    """(True, "") when ``daqp_quadprog`` is bound; else (False, why not)."""
    if os.environ.get("WBCPY_DAQP_DIRECT", "1") == "0":
        return False, "WBCPY_DAQP_DIRECT=0 in the environment"
    try:
        import daqp

        version = metadata.version("daqp")
        if version not in DIRECT_VERSIONS:
            known = ", ".join(sorted(DIRECT_VERSIONS))
            return False, f"daqp {version} is installed; its C structs are checked for daqp {known} only"
        if not _kernels.daqp_bind(daqp.__file__):
            return False, f"the C API of daqp {version} in {daqp.__file__} failed the layout check"
        return True, ""
    except (ImportError, metadata.PackageNotFoundError, OSError, TypeError, ValueError) as exc:
        return False, f"daqp could not be loaded: {exc}"


def settings_vector(options: dict[str, Any]) -> np.ndarray | None:
    """DAQP's defaults with ``options`` applied, as the kernel takes them; None when DAQP is not bound
    or an option is not a plain setting (``is_avi``, ``break_points``, a non-integral integer)."""
    if not bound():
        return None
    v = _state.get("defaults")
    if v is None:
        v = _state["defaults"] = _kernels.daqp_defaults()
    out = v.copy()
    for key, value in options.items():
        i = _INDEX.get(key)
        if i is None or isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
            return None
        x = float(value)
        if key in _INTEGER and not (x.is_integer() and abs(x) < 2**31):
            return None
        out[i] = x
    return out
