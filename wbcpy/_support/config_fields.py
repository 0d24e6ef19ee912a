"""Constructors of configuration dataclasses that never raise a raw ``TypeError``.

``TaskConfig(name="ee", type="cart", tipp="x")`` would raise Python's ``TypeError: unexpected keyword
argument 'tipp'``. A class decorated with :func:`checked_fields` raises
:class:`~wbcpy.errors.ConfigKeyError` for an unknown keyword instead (``tipp: unknown TaskConfig field
'tipp'; did you mean 'tip'?``) and :class:`~wbcpy.errors.ConfigError` for a missing or surplus argument.

The check costs one set lookup per keyword; the signature is only bound (to tell a bad call from a
``TypeError`` raised inside the constructor) when the constructor raised a ``TypeError``.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from typing import Any, TypeVar

from ..errors import ConfigError, ConfigKeyError

T = TypeVar("T", bound=type)


def checked_fields(cls: T) -> T:
    """Class decorator (above ``@dataclass``): unknown keyword arguments of the constructor raise
    :class:`~wbcpy.errors.ConfigKeyError` listing the closest field names, a missing or surplus positional
    argument raises :class:`~wbcpy.errors.ConfigError` naming the class; the object is not built."""
    init = cls.__dict__["__init__"]  # the dataclass's own constructor
    signature = inspect.signature(init)
    names = [f.name for f in dataclasses.fields(cls) if f.init]
    known = frozenset(names)
    label = f"{cls.__name__} field"

    @functools.wraps(init)
    def checked_init(self: Any, *args: Any, **kwargs: Any) -> None:
        for key in kwargs:
            if key not in known:
                raise ConfigKeyError(str(key), label, key, names)
        try:
            init(self, *args, **kwargs)
        except TypeError as exc:
            try:
                signature.bind(self, *args, **kwargs)
            except TypeError:
                raise ConfigError(cls.__name__, f"{exc}; fields: {', '.join(names)}") from None
            raise

    setattr(cls, "__init__", checked_init)  # noqa: B010 (mypy rejects assigning to a method)
    return cls
