"""One thread at a time: detect a second thread entering an object that is in use.

Stateful controllers and filters (:class:`~wbcpy.ik.MultiRefMinJerkCtrl`, :class:`~wbcpy.ik.Filter`, ...)
serve one control loop; two threads stepping the same object would interleave its state silently. Their
public methods are wrapped by :func:`exclusive`: an idle object holds one token in its ``_idle`` list
(``[None]``); a call takes it with ``list.pop()`` and puts it back with ``list.append`` when it returns.
Both are atomic under the GIL, so exactly one call can hold the token: a call that finds the list empty
raises :class:`~wbcpy.errors.ConcurrentUseError` before touching anything, and the call already running
is never disturbed. Cost: two C calls per method call; hot loops inline the same two steps.

A guarded method must not call another guarded method of the same object (the second would raise):
such methods share an unguarded private implementation.
"""

from __future__ import annotations

import copy as _copy
import functools
import operator
from collections.abc import Callable
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

from ..errors import ConcurrentUseError

_T = TypeVar("_T")
_R = TypeVar("_R")
_P = ParamSpec("_P")


class _Guarded(Protocol):
    """An object whose methods :func:`exclusive` guards: it holds the token list ``_idle``."""

    _idle: list[None]


_G = TypeVar("_G", bound=_Guarded)


def exclusive(method: Callable[Concatenate[_G, _P], _R]) -> Callable[Concatenate[_G, _P], _R]:
    """Wrap ``method`` so that it raises :class:`ConcurrentUseError` while another call is running.

    The object must have an ``_idle`` list attribute holding one token (``[None]``) when idle.
    """
    name = method.__name__

    @functools.wraps(method)
    def guarded(self: _G, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        idle = self._idle
        try:
            idle.pop()  # take the token (atomic): only one call at a time can hold it
        except IndexError:
            raise ConcurrentUseError(type(self).__name__, name) from None
        try:
            return method(self, *args, **kwargs)
        finally:
            idle.append(None)

    return guarded


def guarded_getter(path: str, doc: str, copy: bool = True) -> Callable[[Any], Any]:
    """An :func:`exclusive` method returning ``self.<path>`` (dotted; a copy of the array when ``copy``)."""
    get = operator.attrgetter(path)

    def getter(self: Any) -> Any:
        value = get(self)
        return value.copy() if copy else value

    getter.__doc__ = doc
    getter.__name__ = getter.__qualname__ = "get_" + path.rsplit(".", 1)[-1].lstrip("_")
    return exclusive(getter)


def clone(obj: _T, memo: dict[int, Any]) -> _T:
    """A deep copy of ``obj`` (objects already in ``memo`` are shared), idle (its own ``_idle`` token).

    Call it from an :func:`exclusive` ``__copy__``/``__deepcopy__``, so no other thread changes ``obj``
    while it is copied.
    """
    new = object.__new__(type(obj))
    memo[id(obj)] = new
    new.__dict__.update(_copy.deepcopy(snapshot_fields(obj), memo))
    new.__dict__["_idle"] = [None]
    return new


def snapshot_fields(obj: Any) -> dict[str, Any]:
    """``obj.__dict__`` without its ``_idle`` token list (the state a copy or a pickle needs)."""
    return {k: v for k, v in obj.__dict__.items() if k != "_idle"}


def restore_fields(obj: Any, state: dict[str, Any]) -> None:
    """``__setstate__`` of an exclusive object: the pickled fields, idle."""
    obj.__dict__.update(state)
    obj._idle = [None]


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
