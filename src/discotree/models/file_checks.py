"""The checks of the numbers and shapes of stored models, shared by every model class
(each owns its checks: :class:`StoredModel`) and by the file reader
(:mod:`discotree.io.model_checks`, :mod:`discotree.io.model_numbers`, which re-export
these helpers).

Every refusal is a ``ValueError`` whose message starts with the path of the field
(``content.model_.log_cpts[0][1]: holds nan at [0, 2]; ...``).
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np
from scipy.special import logsumexp

from ..structure.spanning import topological_order

__all__ = [
    "MAX_MAGNITUDE",
    "NORMALISATION_TOLERANCE",
    "StoredModel",
    "check_class_prior",
    "check_counts",
    "check_features",
    "check_forest_parents",
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


def check_forest_parents(parents: Any, n_features: int, where: str) -> np.ndarray:
    """Per class, a forest over ``n_features``: parents in ``[-1, n)``, none its own,
    no cycle."""
    parents = np.asarray(parents)
    if (
        parents.ndim != 2
        or parents.shape[1] != n_features
        or parents.dtype.kind not in "iu"
        or ((parents < -1) | (parents >= n_features)).any()
    ):
        raise fail(where, f"must be (classes, {n_features}) parents in [-1, {n_features})")
    for c, row in enumerate(parents):
        try:
            whole = len(topological_order(row)) == n_features
        except ValueError:  # (a cycle)
            whole = False
        if not whole:
            raise fail(f"{where}[{c}]", "has a cycle: a forest has none")
    return parents


def check_counts(n_categories: Any, where: str) -> np.ndarray:
    n_categories = np.asarray(n_categories)
    if n_categories.ndim != 1 or n_categories.dtype.kind not in "iu" or (n_categories < 1).any():
        raise fail(where, "must be a 1-D array of category counts >= 1")
    return n_categories


def check_shape(table: Any, shape: tuple[int, ...], where: str) -> None:
    if not isinstance(table, np.ndarray) or table.shape != shape:
        found = getattr(table, "shape", type(table).__name__)
        raise fail(where, f"has shape {found}, the model's categories need {shape}")


def check_features(parents: Any, n: int, j: int, where: str) -> None:
    """Refuse parents that are not a list or tuple of distinct features ``0..n-1``
    other than ``j`` (before anything indexes with them)."""
    if not isinstance(parents, list | tuple) or any(
        isinstance(p, bool) or not isinstance(p, int) or not 0 <= p < n or p == j for p in parents
    ):
        raise fail(where, f"{parents!r} are not other features among the {n}")
    if len(set(parents)) != len(parents):
        raise fail(where, f"{parents!r} names a feature twice")


class StoredModel:
    """A model class that owns its file state: what a model file stores of it
    (:meth:`state`), the model rebuilt from that (:meth:`from_state`, no constructor
    runs), and the checks of a loaded one: its shapes against its categories and
    parents (:meth:`check_structure`, before any number is read), then its numbers
    (:meth:`check_numbers`: finite, distributions normalised, counts >= 0). The file
    reader runs every object's structure check, then every object's numbers.

    Examples
    --------
    >>> import numpy as np
    >>> from discotree.models.discrete_forest import DiscreteForestModel
    >>> model = DiscreteForestModel(
    ...     np.array([[-1]]), np.array([2]), [[np.log([[0.5, 0.4]])]])
    >>> back = DiscreteForestModel.from_state(model.state())
    >>> back.check_structure("model")
    >>> back.check_numbers("model")
    Traceback (most recent call last):
    ...
    ValueError: model.log_cpts[0][0]: its probabilities sum to 0.9 at [0], not 1 (tolerance 1e-06)
    """

    def state(self) -> dict[str, Any]:
        """The fields a model file stores (a class with its own ``__getstate__``: that,
        without derived caches)."""
        if "__getstate__" in type(self).__dict__:
            return cast(dict[str, Any], self.__getstate__())
        return dict(vars(self))

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> Any:
        """The model of a stored ``state`` (a class with its own ``__setstate__``
        recomputes what it derives from the fields, and may refuse them with a
        ``ValueError``)."""
        obj = object.__new__(cls)
        if "__setstate__" in cls.__dict__ and "__getstate__" in cls.__dict__:
            obj.__setstate__(state)  # type: ignore[attr-defined]
        else:
            obj.__dict__.update(state)
        return obj

    def check_structure(self, where: str) -> None:
        """Refuse arrays that do not agree in shape (nothing to check by default)."""

    def check_numbers(self, where: str) -> None:
        """Refuse numbers no fitted model holds (nothing to check by default)."""

    def check(self, where: str = "model") -> None:
        """:meth:`check_structure`, then :meth:`check_numbers`."""
        self.check_structure(where)
        self.check_numbers(where)
