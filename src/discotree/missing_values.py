"""The missing-value rule of the package, defined once.

A missing value is NaN or None on input; the encoders turn it (and a category not seen
at fit time) into the code :data:`MISSING` (``-1``), and every observed value into a
code ``>= 0``. Everything below the encoders tests codes through this module:
:func:`observed`, :func:`is_missing`, :func:`has_missing` and :func:`complete_rows` on
arrays, :func:`is_observed_code` and :func:`is_missing_code` on one code inside the
compiled kernels (small ``njit`` functions, which numba inlines into their callers).

What each learner does with missing values is a :class:`MissingValueRule`, declared in
its registry entry (:class:`discotree.learners.registry.Learner`); the design note's
table is generated from those declarations (``docs/_missing_values_table.py``).

A layer-0 module: it imports numpy and numba only, so that the kernels may use it.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

import numpy as np
from numba import njit
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "MISSING",
    "MissingValueRule",
    "complete_rows",
    "first_missing",
    "has_missing",
    "is_missing",
    "is_missing_code",
    "is_observed_code",
    "observed",
]

#: The code of a missing value (NaN or None on input, or a category not seen at fit
#: time): every observed value has a code ``>= 0``.
MISSING = -1


class MissingValueRule(StrEnum):
    """What a learner does with a missing value, at fit or at prediction time.

    Its value is the name the registry and the documentation use (the members compare
    equal to those strings).

    Examples
    --------
    >>> MissingValueRule.AVAILABLE_CASE == "available-case"
    True
    >>> MissingValueRule("refused").description
    'a missing value raises a ValueError (the method needs every value)'
    """

    #: Each statistic counts the rows where its variables are observed.
    AVAILABLE_CASE = "available-case"
    #: Rows with a missing value are left out, with a warning, where the procedure needs
    #: complete rows; the statistics before it are available-case.
    COMPLETE_ROWS = "complete-rows"
    #: A missing value counts as one more category.
    AS_A_VALUE = "as-a-value"
    #: At prediction a missing feature is summed out of the model exactly, so that the
    #: posterior is that of the observed features.
    SUMMED_OUT = "summed-out"
    #: At prediction a missing feature's inputs are left out of a linear score.
    INPUTS_DROPPED = "inputs-dropped"
    #: A missing value raises a ValueError.
    REFUSED = "refused"

    @property
    def description(self) -> str:
        """One line saying what the rule does (the design note's table)."""
        return _DESCRIPTIONS[self]


_DESCRIPTIONS = {
    MissingValueRule.AVAILABLE_CASE: "each statistic counts the rows where its variables "
    "are observed",
    MissingValueRule.COMPLETE_ROWS: "rows with a missing value are left out, with a "
    "warning, where the procedure needs complete rows (the statistics before it are "
    "available-case)",
    MissingValueRule.AS_A_VALUE: "a missing value counts as one more category",
    MissingValueRule.SUMMED_OUT: "a missing feature is summed out of the model exactly "
    "(the posterior of the observed features)",
    MissingValueRule.INPUTS_DROPPED: "a missing feature's inputs are left out of the linear score",
    MissingValueRule.REFUSED: "a missing value raises a ValueError (the method needs every value)",
}


def observed(codes: ArrayLike) -> NDArray[np.bool_]:
    """Where ``codes`` holds an observed value (a code ``>= 0``).

    Examples
    --------
    >>> observed(np.array([[0, -1], [2, 1]])).tolist()
    [[True, False], [True, True]]
    """
    return np.asarray(codes) >= 0


def is_missing(codes: ArrayLike) -> NDArray[np.bool_]:
    """Where ``codes`` holds a missing value (a negative code, :data:`MISSING`).

    Examples
    --------
    >>> is_missing(np.array([0, -1, 3])).tolist()
    [False, True, False]
    """
    return np.asarray(codes) < 0


def has_missing(codes: ArrayLike) -> bool:
    """Whether any value of ``codes`` is missing.

    Examples
    --------
    >>> has_missing(np.array([[0, 1], [1, 0]])), has_missing(np.array([[0, -1]]))
    (False, True)
    """
    return bool(np.any(np.asarray(codes) < 0))


def complete_rows(codes: ArrayLike, columns: Any = None) -> NDArray[np.bool_]:
    """The rows of ``codes`` (samples, features) whose ``columns`` (default: all) are
    all observed, as a boolean mask (``np.flatnonzero`` for their indices).

    Examples
    --------
    >>> codes = np.array([[0, -1, 1], [1, 0, 1], [-1, 1, 0]])
    >>> complete_rows(codes).tolist(), complete_rows(codes, [0, 2]).tolist()
    ([False, True, False], [True, True, False])
    """
    codes = np.asarray(codes)
    if columns is not None:
        codes = codes[:, columns]
    return np.asarray((codes >= 0).all(axis=1))


def first_missing(codes: ArrayLike) -> tuple[int, int, int] | None:
    """``(row, column, n_missing)``: where the first missing value of ``codes`` (samples,
    features) is, in row order, and how many cells are missing; ``None`` without one
    (for the readers that refuse incomplete rows).

    Examples
    --------
    >>> first_missing(np.array([[0, 1], [1, -1], [-1, 0]]))
    (1, 1, 2)
    >>> first_missing(np.array([[0, 1]])) is None
    True
    """
    cells = np.argwhere(np.asarray(codes) < 0)
    if not len(cells):
        return None
    return int(cells[0][0]), int(cells[0][1]), len(cells)


@njit(cache=True)
def is_observed_code(code: Any) -> bool:  # pragma: no cover - numba
    """Whether one code is observed (``>= 0``), for the compiled kernels."""
    return code >= 0


@njit(cache=True)
def is_missing_code(code: Any) -> bool:  # pragma: no cover - numba
    """Whether one code is missing (negative), for the compiled kernels."""
    return code < 0
