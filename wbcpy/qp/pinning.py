"""Variables a level pins for the levels below it, and the smaller problem those levels are then solved on.

The levels below level p keep its rows' optimum, ``A_p x = A_p x*``. A row of ``A_p`` with one nonzero
entry (a joint task's selection row, a regulariser row √λ e_j) therefore fixes its variable for every
lower level. When such rows pin most of what is still free, :func:`pin_selected` hands the lower levels
the problem over the remaining variables instead of adding every row of ``A_p`` to the null space:

* the pinned variables join the fixed ones at their current values (:meth:`FixedSplit.pinned`), so
  every lower level's rows, targets and constraint sides see them as constants, as bounds with
  lb = ub are;
* the null space is rebuilt over the remaining variables from the row blocks imposed so far
  (``NullSpace.blocks``) and the level's other rows, restricted to those columns: each of them still
  holds at x̄, so only the basis is recomputed — one factorisation of few columns instead of one of all
  the level's rows on the current basis;
* the stacked inequality rows move the pinned variables' part into their sides.

Both ways describe the same feasible set: the directions that keep every higher level's optimum. A
contact scene's last level (the least-norm split of the contact wrenches, once the task level has fixed
q̈ through its posture rows and regulariser rows) is so solved over the wrenches alone.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .._kernels import pin_rows as _pin_rows
from .fixed import FixedSplit
from .level_qp import ConstraintStack
from .nullspace import NullSpace


class Pinned(NamedTuple):
    """The problem of the levels below a level that pinned variables.

    Attributes:
        split, ns, stack: the new fixed split, null space and constraint stack (over the variables left).
        keep: the variables left, as indices among the previous free variables.
        pinned: how many variables were pinned.
    """

    split: FixedSplit
    ns: NullSpace
    stack: ConstraintStack
    keep: np.ndarray
    pinned: int


def pin_selected(A: np.ndarray, split: FixedSplit, ns: NullSpace, stack: ConstraintStack,
                 data: Any = None) -> Pinned | None:  # fmt: skip
    """The lower levels' problem once the selection rows of ``A`` (the level's rows over the free
    variables, met at x̄) pin their variables; None when A has none, or when the variables left would
    still span more than half of the current free directions (adding A to the null space is then as
    cheap). The data come from one compiled pass (:func:`wbcpy._kernels.pin_rows`), or are ``data``:
    what that pass answered for these arguments (a caller that ran it already)."""
    if data is None:
        C, lo, hi = (None, None, None) if stack.rows is None else stack.rows
        data = _pin_rows(A, ns.k, ns.xbar, ns.blocks, C, lo, hi)
    if data is None:
        return None
    cols, kept, values, xbar, rows, C_kept, lo_kept, hi_kept = data
    new_ns = NullSpace(int(kept.shape[0]), ns.rank_tol)
    new_ns.xbar = xbar
    if new_ns.n:
        new_ns.add_rows(rows)
    new_stack = ConstraintStack()
    if C_kept is not None and lo_kept is not None and hi_kept is not None:
        new_stack.rows = (C_kept, lo_kept, hi_kept)
    return Pinned(split.pinned(cols, kept, values), new_ns, new_stack, kept, int(cols.shape[0]))
