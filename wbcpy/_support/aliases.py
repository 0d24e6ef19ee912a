"""The camelCase names of the seed libraries (ARC-OPT, Stanford-WBC, AUTh-ARL, iCub), kept apart.

A facade's snake_case methods are its API. The seed library's camelCase names stay usable, as aliases
grouped in one mixin class per facade, so that the class's own namespace holds its API alone and
``help()`` and the API reference list the aliases in a group of their own::

    class SceneAliases:
        setReference = alias("set_reference")

    class Scene(SceneAliases):
        def set_reference(self, ...): ...

An :class:`alias` names the method, not the function: ``scene.setReference`` is ``scene.set_reference``
looked up when used, so a subclass that overrides ``set_reference`` is called through the alias too; on
the class, ``Scene.setReference is Scene.set_reference``. A facade without the aliased method raises
``AttributeError`` naming both names.
"""

from __future__ import annotations

from typing import Any


class alias:  # noqa: N801 - used like a decorator-style marker in class bodies, as ``property`` is
    """A camelCase name for the method ``target`` of the same object (see the module docstring).

    Args:
        target: the snake_case name it stands for.
    """

    __slots__ = ("name", "target")

    def __init__(self, target: str) -> None:
        self.target = target
        self.name = target

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: object, objtype: type | None = None) -> Any:
        try:
            return getattr(objtype if obj is None else obj, self.target)
        except AttributeError:
            kind = type(obj).__name__ if obj is not None else getattr(objtype, "__name__", "?")
            message = f"{kind!r} has no {self.target!r}, which {self.name!r} is an alias of"
            raise AttributeError(message) from None

    def __repr__(self) -> str:
        return f"alias({self.target!r})"


def aliases_of(cls: type) -> dict[str, str]:
    """``{camelCase name: snake_case name}`` of every :class:`alias` a class has (its mixins' included)."""
    found: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        for name, value in vars(klass).items():
            if isinstance(value, alias):
                found[name] = value.target
    return found
