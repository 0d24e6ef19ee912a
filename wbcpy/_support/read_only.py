"""Attributes that are fixed once an object is built: assigning one raises, it is never silently ignored.

An object computes what it needs from its configuration when it is built (a plan from its step times, a
scene's bounds from its dt); an attribute assigned afterwards would change the value shown but not what
was computed from it. Such attributes raise :class:`~wbcpy.errors.ReadOnlyAttributeError` (a
``ConfigError`` and an ``AttributeError``) on assignment and deletion:

* :class:`SealedAfterInit` — a mixin: once ``_seal()`` ran (at the end of ``__init__``), assigning or
  deleting a public attribute raises, unless it is a property with a setter (which validates and
  recomputes). Private attributes (``_name``) stay free for the object's own use. Copies and pickles
  restore ``__dict__`` directly and stay sealed.
* :func:`read_only` — a property whose setter raises (for classes whose hot paths assign many private
  attributes, where a ``__setattr__`` would cost on every assignment).
* :func:`seal_properties` — every property of a class without a setter gets one that raises (instead of
  Python's bare ``AttributeError``), so the error is a WbcpyError that names the attribute.
* :class:`ClassConstant` — a class-level constant that an instance cannot shadow.
"""

from __future__ import annotations

import inspect
import operator
from typing import Any, Generic, TypeVar, overload

from ..errors import ReadOnlyAttributeError

_T = TypeVar("_T")


class SealedAfterInit:
    """Mixin: public attributes are read-only once :meth:`_seal` ran (see the module docstring)."""

    #: what the error suggests instead of the assignment
    _read_only_hint = "read-only once built; build a new object with the value instead"

    def _seal(self) -> None:
        """End of construction: from now on public attributes are read-only."""
        object.__setattr__(self, "_sealed", True)

    def _check_assignable(self, name: str) -> None:
        if name[:1] == "_" or not self.__dict__.get("_sealed", False):
            return
        prop = getattr(type(self), name, None)
        if not (isinstance(prop, property) and prop.fset is not None):
            raise ReadOnlyAttributeError(name, self._read_only_hint)

    def __setattr__(self, name: str, value: Any) -> None:
        self._check_assignable(name)
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        self._check_assignable(name)
        object.__delattr__(self, name)


def read_only(name: str, doc: str, hint: str = "read-only; build a new object with the value instead") -> Any:
    """A property ``name`` returning ``self._<name>`` whose assignment and deletion raise
    :class:`~wbcpy.errors.ReadOnlyAttributeError` naming it (the getter is C-level: as fast as a plain
    attribute read through a property)."""

    def refuse(self: Any, *value: Any) -> None:
        raise ReadOnlyAttributeError(name, hint)

    return property(operator.attrgetter("_" + name), refuse, refuse, doc)


def seal_properties(cls: type, hint: str = "read-only (computed by the object)") -> None:
    """Give every read-only property of ``cls`` (its own or inherited, e.g. from a mixin) a setter and a
    deleter that raise :class:`~wbcpy.errors.ReadOnlyAttributeError` naming it; the sealed property is
    set on ``cls`` (a base class is not changed)."""
    for name in dir(cls):
        attr = inspect.getattr_static(cls, name)
        if isinstance(attr, property) and attr.fset is None and not name.startswith("_"):

            def refuse(self: Any, *value: Any, _name: str = name) -> None:
                raise ReadOnlyAttributeError(_name, hint)

            setattr(cls, name, property(attr.fget, refuse, refuse, attr.__doc__))


class ClassConstant(Generic[_T]):
    """A constant of a class (``task_level = ClassConstant("velocity")``): read on the class or an
    instance; assigning it on an instance raises :class:`~wbcpy.errors.ReadOnlyAttributeError`."""

    def __init__(self, value: _T) -> None:
        self.value = value
        self.name = "?"

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, owner: type) -> _T: ...
    @overload
    def __get__(self, obj: object, owner: type | None = None) -> _T: ...
    def __get__(self, obj: object | None, owner: type | None = None) -> _T:
        return self.value

    def __set__(self, obj: object, value: Any) -> None:
        raise ReadOnlyAttributeError(self.name, "a constant of its class")

    def __delete__(self, obj: object) -> None:
        raise ReadOnlyAttributeError(self.name, "a constant of its class")
