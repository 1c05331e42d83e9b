"""What every class stored in a model file shares for its checks: the base
:class:`CheckedState` (a stored object checks its own structure, then its numbers; the
file reader walks a loaded file and calls these, nothing more) and the helpers those
checks use (finite numbers, normalised distributions, integers in range).

Models (:class:`discotree.models.file_checks.StoredModel`), estimators, encoders,
statistics and the streaming state derive from :class:`CheckedState`. Every refusal is a
``ValueError`` whose message starts with the path of the field (``content.model_.
log_cpts[0][1]: holds nan at [0, 2]; ...``).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from scipy.special import logsumexp

__all__ = [
    "MAX_MAGNITUDE",
    "NORMALISATION_TOLERANCE",
    "CheckedState",
    "check_class_prior",
    "check_counts",
    "check_shape",
    "fail",
    "integer",
    "log_probabilities",
    "normalised",
    "numbers",
]

#: How far a stored distribution's probabilities may sum from one (absolute): far
#: above the rounding of any table the package writes (about 1e-15 times the number of
#: cells summed), far below any change that would shift a prediction visibly.
NORMALISATION_TOLERANCE = 1e-6


#: Largest absolute value of any stored number (counts, weights, log-probabilities,
#: coefficients): sums of up to 1e200 such numbers, and products of two, stay finite.
MAX_MAGNITUDE = 1e100


def fail(where: str, why: str) -> ValueError:
    return ValueError(f"{where}: {why}")


def numbers(
    value: Any,
    where: str,
    *,
    low: float = -MAX_MAGNITUDE,
    high: float = MAX_MAGNITUDE,
    above: bool = False,
    minus_infinity: bool = False,
) -> np.ndarray:
    """``value`` (an array or a number) as float64, refused unless every entry is
    finite and in ``[low, high]`` (``(low, high]`` with ``above``; ``-inf`` also
    allowed with ``minus_infinity``). The error names the first bad entry.

    Examples
    --------
    >>> numbers(np.array([0.5, np.nan]), "content.p")
    Traceback (most recent call last):
    ...
    ValueError: content.p: holds nan at [1]; expected finite numbers in [-1e+100, 1e+100]
    """
    if isinstance(value, bool) or not isinstance(value, np.ndarray | int | float | np.number):
        raise fail(where, f"must be numbers, found {type(value).__name__}")
    array = np.asarray(value)
    if array.dtype.kind not in "iuf":
        raise fail(where, f"must be numbers, found an array of dtype {array.dtype}")
    array = array.astype(np.float64, copy=False)
    with np.errstate(invalid="ignore"):
        ok = np.isfinite(array) & (array <= high) & ((array > low) if above else (array >= low))
    if minus_infinity:
        ok |= np.isneginf(array)
    if not ok.all():
        at = np.unravel_index(int(np.argmin(ok)), array.shape)
        where_at = f" at {[int(i) for i in at]}" if array.ndim else ""
        interval = f"{'(' if above else '['}{low:g}, {high:g}]"
        extra = " or -inf" if minus_infinity else ""
        raise fail(
            where,
            f"holds {float(array[at])!r}{where_at}; expected finite numbers in {interval}{extra}",
        )
    return array


def normalised(log_p: np.ndarray, axis: int | tuple[int, ...], where: str) -> None:
    """Refuse log-probabilities whose probabilities do not sum to one along ``axis``
    (within :data:`NORMALISATION_TOLERANCE`).

    Examples
    --------
    >>> normalised(np.log([[0.5, 0.5], [0.5, 0.6]]), 1, "content.t")
    Traceback (most recent call last):
    ...
    ValueError: content.t: its probabilities sum to 1.1 at [1], not 1 (tolerance 1e-06)
    """
    if np.size(log_p) == 0:
        return
    with np.errstate(all="ignore"):
        total = np.exp(logsumexp(np.asarray(log_p, dtype=np.float64), axis=axis))
    ok = np.abs(total - 1.0) <= NORMALISATION_TOLERANCE
    if not np.all(ok):
        at = np.unravel_index(int(np.argmin(ok)), np.shape(total))
        where_at = f" at {[int(i) for i in at]}" if np.ndim(total) else ""
        raise fail(
            where,
            f"its probabilities sum to {float(np.asarray(total)[at]):.6g}{where_at}, not 1 "
            f"(tolerance {NORMALISATION_TOLERANCE:g})",
        )


def log_probabilities(
    value: Any, axis: int | tuple[int, ...], where: str, *, minus_infinity: bool = False
) -> np.ndarray:
    """Finite (or ``-inf``, where allowed) log-probabilities normalised along ``axis``."""
    array = numbers(value, where, high=NORMALISATION_TOLERANCE, minus_infinity=minus_infinity)
    normalised(array, axis, where)
    return array


def integer(value: Any, where: str, low: int, high: int) -> int:
    """An int in ``[low, high)``."""
    if (
        isinstance(value, bool)
        or not isinstance(value, int | np.integer)
        or not (low <= value < high)
    ):
        raise fail(where, f"must be an integer in [{low}, {high}), got {value!r}")
    return int(value)


def check_class_prior(prior: Any, where: str) -> np.ndarray:
    """A class prior: log-probabilities summing to one, ``-inf`` for a class without
    weight."""
    return log_probabilities(prior, 0, where, minus_infinity=True)


def check_counts(n_categories: Any, where: str) -> np.ndarray:
    n_categories = np.asarray(n_categories)
    if n_categories.ndim != 1 or n_categories.dtype.kind not in "iu" or (n_categories < 1).any():
        raise fail(where, "must be a 1-D array of category counts >= 1")
    return n_categories


def check_shape(table: Any, shape: tuple[int, ...], where: str) -> None:
    if not isinstance(table, np.ndarray) or table.shape != shape:
        found = getattr(table, "shape", type(table).__name__)
        raise fail(where, f"has shape {found}, the model's categories need {shape}")


class CheckedState:
    """A stored class that owns the checks of its loaded instances: its fields'
    agreement in shape (:meth:`check_structure`, run on every object of a file before
    any number is read), then its numbers (:meth:`check_numbers`); :meth:`check` runs
    both. By default the structure passes and the numbers are those of the attributes
    ``_NUMBER_FIELDS`` names (each a number, an array or a list of them): finite.

    Examples
    --------
    >>> from dataclasses import dataclass
    >>> @dataclass
    ... class Weights(CheckedState):
    ...     _NUMBER_FIELDS = ("values",)
    ...     values: list
    >>> Weights([np.array([1.0, 2.0]), 3.0]).check("w")
    >>> Weights([np.array([1.0, np.inf])]).check("w")
    Traceback (most recent call last):
    ...
    ValueError: w.values[0]: holds inf at [1]; expected finite numbers in [-1e+100, 1e+100]
    """

    __slots__ = ()

    #: The attributes holding numbers that :meth:`check_numbers` requires finite.
    _NUMBER_FIELDS: ClassVar[tuple[str, ...]] = ()

    def check_structure(self, where: str) -> None:
        """Refuse fields that do not agree in shape (nothing to check by default)."""

    def check_numbers(self, where: str) -> None:
        """Refuse numbers no fitted object holds (by default: those of
        ``_NUMBER_FIELDS``, finite)."""
        for name in self._NUMBER_FIELDS:
            value = getattr(self, name)
            listed = isinstance(value, list)
            for k, item in enumerate(value if listed else [value]):
                numbers(item, f"{where}.{name}" + (f"[{k}]" if listed else ""))

    def check(self, where: str = "model") -> None:
        """:meth:`check_structure`, then :meth:`check_numbers`."""
        self.check_structure(where)
        self.check_numbers(where)
