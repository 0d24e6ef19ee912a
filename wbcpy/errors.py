"""Exception types of wbcpy.

Every exception derives from :class:`WbcpyError` and carries the data that explains it (the offending
name, the expected shape, the solver and its status). Where Python has a natural built-in category the
exception also derives from it, so ``except KeyError`` or ``except ValueError`` keep working. Their
public path is the package's top level: ``from wbcpy import ConfigError``.

============================================  ================================================================
situation                                     raises
============================================  ================================================================
bad or missing URDF / SRDF / MJCF file        :class:`URDFError`, :class:`URDFNotFoundError`,
                                              :class:`SRDFError`, :class:`MJCFError`
two models of one robot that disagree         :class:`ModelError`
an optional dependency that is not installed  :class:`MissingDependencyError` (an ``ImportError``)
unknown frame / joint / link / chain / task   :class:`UnknownNameError` (a ``KeyError``)
wrong shape, NaN or inf in an input           :class:`InvalidValueError` (a ``ValueError``)
quantity read before a state was set          :class:`StateNotSetError`
bad task, scene, chain or robot config        :class:`ConfigError` (a ``ValueError``), :class:`ConfigKeyError`
assigning a read-only attribute               :class:`ReadOnlyAttributeError` (a ConfigError, an
                                              ``AttributeError``)
QP infeasible or solver failure               :class:`QPSolveError`
an object used by two threads at once         :class:`ConcurrentUseError`
============================================  ================================================================
"""

from __future__ import annotations

import difflib
import reprlib
from collections.abc import Iterable
from typing import Any


class WbcpyError(Exception):
    """Base class of every exception raised on purpose by wbcpy."""


class URDFError(WbcpyError):
    """A URDF could not be read: unreadable file, malformed XML or a model without links.

    Attributes:
        source: the path or a short excerpt of the XML string that failed.
        reason: what went wrong.
    """

    def __init__(self, source: str, reason: str) -> None:
        self.source = source
        self.reason = reason
        super().__init__(f"cannot load URDF {source!r}: {reason}")


class URDFNotFoundError(URDFError, FileNotFoundError):
    """The URDF path does not exist (also a :class:`FileNotFoundError`).

    Attributes:
        suggestions: names of similar files in the same folder (possibly empty).
    """

    def __init__(self, source: str, suggestions: Iterable[str] = ()) -> None:
        self.suggestions = [str(s) for s in suggestions]
        reason = "no such file"
        if self.suggestions:
            reason += f"; did you mean {', '.join(repr(s) for s in self.suggestions)}?"
        URDFError.__init__(self, source, reason)
        self.filename = source

    def __str__(self) -> str:  # OSError would print "[Errno None] None: ..."
        return f"cannot load URDF {self.source!r}: {self.reason}"


class SRDFError(URDFError):
    """An SRDF file (reference configurations) is missing, malformed or does not fit the model."""

    def __init__(self, source: str, reason: str) -> None:
        URDFError.__init__(self, source, reason)
        self.args = (f"cannot load SRDF {source!r}: {reason}",)

    def __str__(self) -> str:
        return str(self.args[0])


class MJCFError(URDFError):
    """An MJCF file (MuJoCo's XML) is missing, malformed, or describes what wbcpy cannot build."""

    def __init__(self, source: str, reason: str) -> None:
        URDFError.__init__(self, source, reason)
        self.args = (f"cannot load MJCF {source!r}: {reason}",)

    def __str__(self) -> str:
        return str(self.args[0])


class ModelError(WbcpyError):
    """Two models of one robot disagree (e.g. MuJoCo's and Pinocchio's), or one cannot be mapped on the
    other (a joint without a counterpart).

    Attributes:
        quantity: what was compared (``"total mass"``, ``"gravity torques"``, ``"joints"``...).
        difference: the largest difference (in the quantity's units), or None for a structural mismatch.
        detail: where the difference is largest, or what does not match.
    """

    def __init__(self, quantity: str, difference: float | None, detail: str) -> None:
        self.quantity = quantity
        self.difference = difference
        self.detail = detail
        if difference is None:
            message = f"the models do not match ({quantity}): {detail}"
        else:
            message = f"the models disagree in {quantity}: largest difference {difference:.3e} ({detail})"
        super().__init__(message)


class MissingDependencyError(WbcpyError, ImportError):
    """An optional dependency that a feature needs is not installed (also an ``ImportError``).

    Attributes:
        package: the PyPI package. extra: wbcpy's extra that installs it. feature: what needs it.
    """

    def __init__(self, package: str, extra: str, feature: str) -> None:
        self.package = package
        self.extra = extra
        self.feature = feature
        super().__init__(
            f"{feature} needs the {package!r} package: pip install 'wbcpy[{extra}]' "
            f"(or pip install {package})"
        )


class URDFWarning(UserWarning):
    """A URDF loaded, but some of its values are physically implausible (``check_physics="warn"``)."""


class WalkingWarning(UserWarning):
    """A walk runs, but not quite as asked: e.g. the robot's SRDF posture has its soles tilted, so it
    starts from a computed standing posture instead (the message says what and why)."""


class EffortLimitWarning(WalkingWarning):
    """Some actuated joints have no URDF effort limit (none, 0 or infinite): their torques are not bounded.

    Attributes:
        joints: the joints without a limit.
    """

    def __init__(self, robot: str, joints: Iterable[str]) -> None:
        self.joints = [str(j) for j in joints]
        more = f" and {len(self.joints) - 8} more" if len(self.joints) > 8 else ""
        shown = ", ".join(self.joints[:8]) + more
        super().__init__(
            f"robot {robot!r}: {len(self.joints)} actuated joint(s) have no URDF effort limit ({shown}); "
            "their torques are unbounded (bound them with effort_limits={joint: N·m})"
        )


class MissingReferenceWarning(UserWarning):
    """A scene was solved while some of its active tasks had never received a reference: those tasks are
    left out of the problem (state ``no_reference``). Warned once per task and scene; the message names
    the tasks.

    Attributes:
        tasks: the names of the tasks without a reference.
    """

    def __init__(self, tasks: Iterable[str]) -> None:
        self.tasks = [str(t) for t in tasks]
        super().__init__(
            f"task(s) {', '.join(repr(t) for t in self.tasks)} never received a reference and are left out "
            "of the problem; give each a reference (scene.set_reference or scene.bind) before solving"
        )


#: names longer than this are cut in messages and never compared with difflib
_NAME_LIMIT = 200


def close_matches(name: str, candidates: Iterable[str], n: int = 5) -> list[str]:
    """Return up to ``n`` candidates that resemble ``name`` (difflib ratio ≥ 0.5), best first."""
    pool = [str(c) for c in candidates]
    if len(str(name)) > _NAME_LIMIT:  # no valid name is that long; difflib would take seconds
        return []
    found = difflib.get_close_matches(str(name), pool, n=n, cutoff=0.5)
    if not found:
        low = str(name).lower()
        found = [c for c in pool if low and (low in c.lower() or c.lower() in low)][:n]
    return found


def ranked_matches(
    name: str, candidates: Iterable[str], preferred: Iterable[str] = (), n: int = 5
) -> list[str]:
    """:func:`close_matches` among ``preferred`` first (the names of the kind asked for, such as link
    frames for a contact), then among the other candidates; at most ``n``."""
    pool = [str(c) for c in candidates]
    first = {str(p) for p in preferred}
    if not first:
        return close_matches(name, pool, n)
    found = close_matches(name, [c for c in pool if c in first], n)
    rest = [c for c in close_matches(name, pool, n) if c not in found]
    return (found + rest)[:n]


def safe_repr(value: Any) -> str:
    """A short repr that stays cheap for huge or deeply shared values (YAML aliases)."""
    return _REPR.repr(value)


_REPR = reprlib.Repr()
_REPR.maxstring, _REPR.maxother, _REPR.maxlist, _REPR.maxdict, _REPR.maxlevel = 60, 60, 6, 6, 3


class UnknownNameError(WbcpyError, KeyError):
    """A frame, joint, link, chain, task or robot name that does not exist.

    Attributes:
        kind: what was looked up ("frame", "joint", "chain", "task", "robot", ...).
        name: the name that was asked for.
        suggestions: the closest valid names (possibly empty); names of ``preferred`` (the kind the caller
            wants: link frames for a contact, not joint frames) come first.
        valid: every valid name (kept for programmatic use; listed in the message with ``show_all``).
    """

    def __init__(
        self,
        kind: str,
        name: Any,
        valid: Iterable[str] = (),
        show_all: bool = False,
        preferred: Iterable[str] = (),
    ) -> None:
        self.kind = kind
        self.name = name
        self.valid = [str(v) for v in valid]
        self.suggestions = ranked_matches(str(name), self.valid, preferred)
        msg = f"unknown {kind} {safe_repr(name)}"
        if self.suggestions:
            msg += f"; did you mean {', '.join(repr(s) for s in self.suggestions)}?"
        if show_all and self.valid:
            msg += f"; valid: {', '.join(self.valid)}"
        elif self.valid and not self.suggestions:
            shown = ", ".join(repr(v) for v in self.valid[:12])
            more = f" and {len(self.valid) - 12} more" if len(self.valid) > 12 else ""
            msg += f"; valid names: {shown}{more}"
        self.message = msg
        super().__init__(msg)

    def __str__(self) -> str:  # KeyError would repr-quote the message
        return self.message


class InvalidValueError(WbcpyError, ValueError):
    """An input has the wrong shape or contains NaN/inf, or is out of its allowed range.

    Attributes:
        argument: the argument's name.
        expected: what was expected (a shape such as ``(7,)`` or a description).
        got: what was received (shape or value), when known.
    """

    def __init__(self, argument: str, expected: Any, got: Any = None, reason: str | None = None) -> None:
        self.argument = argument
        self.expected = expected
        self.got = got
        self.reason = reason
        if reason is None:
            msg = f"{argument}: expected shape {expected}, got {got}"
        else:
            msg = f"{argument}: {reason}"
        super().__init__(msg)


class StateNotSetError(WbcpyError, RuntimeError):
    """A state-dependent quantity was read before any state was set.

    Attributes:
        quantity: the quantity that was asked for.
    """

    def __init__(self, quantity: str) -> None:
        self.quantity = quantity
        super().__init__(f"cannot read {quantity}: no state was set yet (call update(q, v) first)")


class ConfigError(WbcpyError, ValueError):
    """A task, scene, chain or robot configuration is invalid.

    Attributes:
        field: the configuration field at fault (e.g. ``"weights"`` or ``"tasks[2].priority"``).
        reason: what is wrong with it.
    """

    def __init__(self, field: str, reason: str) -> None:
        self.field = field
        self.reason = reason
        super().__init__(f"{field}: {reason}")


class ConfigKeyError(ConfigError, UnknownNameError):
    """A configuration names a frame, joint, link, chain or task that does not exist.

    It is both a :class:`ConfigError` (naming the field) and an :class:`UnknownNameError` (a ``KeyError``
    listing close matches).
    """

    def __init__(
        self,
        field: str,
        kind: str,
        name: Any,
        valid: Iterable[str] = (),
        show_all: bool = False,
        preferred: Iterable[str] = (),
    ) -> None:
        UnknownNameError.__init__(self, kind, name, valid, show_all, preferred)
        self.field = field
        self.reason = self.message
        self.message = f"{field}: {self.message}"
        self.args = (self.message,)

    def __str__(self) -> str:
        return self.message


class ReadOnlyAttributeError(ConfigError, AttributeError):
    """An attribute that is fixed once its object is built was assigned (or deleted): what depends on it
    was computed from it, so changing it alone would be ignored. Build a new object instead. Also an
    ``AttributeError`` (Python's category for an attribute that cannot be set).

    Attributes:
        field: the attribute. reason: what to do instead.
    """

    def __init__(self, field: str, reason: str = "read-only; build a new object with the value") -> None:
        ConfigError.__init__(self, field, reason)
        self.name = field


class QPSolveError(WbcpyError, RuntimeError):
    """A QP backend failed, reported an infeasible problem, or returned an inaccurate/non-finite solution.

    Attributes:
        solver: backend name.
        status: the backend's status text.
        problem: the problem that failed (a ``wbcpy.qp.QPProblem``), for post-mortem inspection.
        level: priority level that failed, when solving a hierarchy.
    """

    def __init__(self, solver: str, status: str, problem: Any = None, level: int | None = None) -> None:
        self.solver = solver
        self.status = status
        self.problem = problem
        self.level = level
        where = f" at priority level {level}" if level is not None else ""
        super().__init__(f"QP solver {solver!r} failed{where}: {status}")


class ConcurrentUseError(WbcpyError, RuntimeError):
    """An object that serves one thread at a time was entered by a second thread while in use.

    The call that raises changed nothing; the call already running is not disturbed. Give each thread
    its own object (``copy.copy`` / ``copy.deepcopy``), or serialise the calls.

    Attributes:
        owner: the class of the object (e.g. ``"MultiRefMinJerkCtrl"``).
        method: the method that was entered concurrently.
    """

    def __init__(self, owner: str, method: str) -> None:
        self.owner = owner
        self.method = method
        super().__init__(
            f"{owner}.{method}() was called while another thread was using this {owner}; "
            "an object of this class serves one thread at a time (give each thread its own copy)"
        )
