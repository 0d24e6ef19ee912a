"""Type checks of sweep-file values (YAML scalars): booleans are not numbers here."""

from __future__ import annotations

import math
from typing import Any, TypeGuard


def is_int(value: Any) -> TypeGuard[int]:
    """True for a Python integer (not a bool)."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> TypeGuard[float]:
    """True for a finite int or float (not a bool)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
