"""One thread at a time: detect a second thread entering an object that is in use.

Stateful controllers and filters (:class:`~wbcpy.ik.MultiRefMinJerkCtrl`, :class:`~wbcpy.ik.Filter`, ...)
serve one control loop; two threads stepping the same object would interleave its state silently. Their
public methods are wrapped by :func:`exclusive`: each call appends a token to the object's ``_busy`` list
and removes it when it returns. ``list.append``, ``len`` and ``list.pop`` are atomic under the GIL, so a
call that finds another token raises :class:`~wbcpy.errors.ConcurrentUseError` before touching anything,
and the call already running is never disturbed (if two calls enter at the same instant, both raise).
Cost: about three C calls per method call; hot loops inline the same three steps.

A guarded method must not call another guarded method of the same object (the second would raise):
such methods share an unguarded private implementation.
"""

from __future__ import annotations

import copy as _copy
import functools
import operator
from collections.abc import Callable
from typing import Any, TypeVar

from .errors import ConcurrentUseError

__all__ = [
    "clone",
    "exclusive",
    "exclusive_copy",
    "exclusive_deepcopy",
    "exclusive_getstate",
    "guarded_getter",
    "guarded_method",
    "restore_fields",
    "snapshot_fields",
]

_F = TypeVar("_F", bound=Callable[..., Any])


def exclusive(method: _F) -> _F:
    """Wrap ``method`` so that it raises :class:`ConcurrentUseError` while another call is running.

    The object must have a ``_busy`` list attribute (empty when idle).
    """
    name = method.__name__

    @functools.wraps(method)
    def guarded(self: Any, *args: Any, **kwargs: Any) -> Any:
        busy = self._busy
        busy.append(None)
        try:
            if len(busy) != 1:
                raise ConcurrentUseError(type(self).__name__, name)
            return method(self, *args, **kwargs)
        finally:
            busy.pop()

    return guarded  # type: ignore[return-value]


def guarded_getter(path: str, doc: str, copy: bool = True) -> Callable[[Any], Any]:
    """An :func:`exclusive` method returning ``self.<path>`` (dotted; a copy of the array when ``copy``)."""
    get = operator.attrgetter(path)

    def getter(self: Any) -> Any:
        value = get(self)
        return value.copy() if copy else value

    getter.__doc__ = doc
    getter.__name__ = getter.__qualname__ = "get_" + path.rsplit(".", 1)[-1].lstrip("_")
    return exclusive(getter)


def clone(obj: Any, memo: dict[int, Any]) -> Any:
    """A deep copy of ``obj`` (objects already in ``memo`` are shared) with an idle ``_busy`` list.

    Call it from an :func:`exclusive` ``__copy__``/``__deepcopy__``, so no other thread changes ``obj``
    while it is copied.
    """
    new = object.__new__(type(obj))
    memo[id(obj)] = new
    new.__dict__.update(_copy.deepcopy(snapshot_fields(obj), memo))
    new._busy = []
    return new


def snapshot_fields(obj: Any) -> dict[str, Any]:
    """``obj.__dict__`` without its ``_busy`` list (the state a copy or a pickle needs)."""
    return {k: v for k, v in obj.__dict__.items() if k != "_busy"}


def restore_fields(obj: Any, state: dict[str, Any]) -> None:
    """``__setstate__`` of an exclusive object: the pickled fields and an idle ``_busy`` list."""
    obj.__dict__.update(state)
    obj._busy = []


def guarded_method(path: str, target: Callable[..., Any]) -> Callable[..., Any]:
    """An :func:`exclusive` method that calls ``self.<path>(...)`` (dotted), documented as ``target``."""
    get = operator.attrgetter(path)

    @functools.wraps(target)
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        return get(self)(*args, **kwargs)

    return exclusive(method)


@exclusive
def exclusive_copy(self: Any) -> Any:
    """``__copy__`` of an exclusive object: an independent deep copy (nothing shared)."""
    return clone(self, {})


@exclusive
def exclusive_deepcopy(self: Any, memo: dict[int, Any]) -> Any:
    """``__deepcopy__`` of an exclusive object (taken while no other thread uses it)."""
    return clone(self, memo)


@exclusive
def exclusive_getstate(self: Any) -> dict[str, Any]:
    """``__getstate__`` of an exclusive object: a snapshot taken while no other thread uses it."""
    return _copy.deepcopy(snapshot_fields(self))
