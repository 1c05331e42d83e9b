"""Encoding of mixed tables into the integer category codes every kernel reads."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray
from sklearn.base import clone

from .discretizer import Discretizer

__all__ = ["TableEncoder"]


@dataclass
class _Column:
    kind: str  # "numeric-categories", "object-categories" or "bins"
    categories: NDArray[Any] | None = None
    lookup: dict[Any, int] = field(default_factory=dict)
    n_categories: int = 1


def _check_finite(column: NDArray[np.float64], label: str, owner: str) -> None:
    bad = np.isinf(column)
    if bad.any():
        rows = np.flatnonzero(bad)[:5].tolist()
        raise ValueError(
            f"{owner}: {label} contains inf at rows {rows}; only finite values or NaN "
            "(missing) are accepted."
        )


def _sort_key(value: Any) -> tuple[str, str]:
    return (type(value).__name__, str(value))


class TableEncoder:
    """Turn the columns of a mixed table into category codes ``0..r_j-1``, -1 missing.

    Columns that are not numeric (strings, categoricals, booleans, objects) are
    categorical. A numeric column with at most ``max_categories`` distinct values is
    categorical too; one with more is binned by a clone of ``discretizer`` fitted on
    the training data only. At transform time a category not seen in training and a
    NaN/None are missing values (code -1).

    Parameters
    ----------
    max_categories : int
    discretizer : Discretizer
    owner : str
        Estimator name used in error messages.

    Attributes
    ----------
    n_categories_ : ndarray of shape (n_features,)
    discretizer_ : Discretizer or None
        The fitted discretizer of the binned columns.
    binned_columns_ : ndarray of int
        Indices of the binned columns.
    """

    def __init__(self, max_categories: int, discretizer: Discretizer, owner: str) -> None:
        self.max_categories = max_categories
        self.discretizer = discretizer
        self.owner = owner

    def fit_transform(
        self,
        columns: list[NDArray[Any]],
        labels: list[str],
        sample_weight: NDArray[np.float64] | None,
    ) -> NDArray[np.intp]:
        """Learn the encoding of every column and return the codes of the training rows.

        Only rows with positive weight define categories and bins, so a weight of zero
        is the same as leaving the row out.
        """
        n_samples = len(columns[0])
        active = np.ones(n_samples, bool) if sample_weight is None else sample_weight > 0
        self.columns_: list[_Column] = []
        binned = []
        for column, label in zip(columns, labels, strict=True):
            if column.dtype.kind == "f":
                _check_finite(column, label, self.owner)
                present = column[active & ~np.isnan(column)]
                values = np.unique(present)
                if len(values) > self.max_categories:
                    binned.append(len(self.columns_))
                    self.columns_.append(_Column("bins"))
                    continue
                self.columns_.append(
                    _Column("numeric-categories", values, n_categories=max(1, len(values)))
                )
            else:
                present = [v for v, a in zip(column, active, strict=True) if a and v is not None]
                values = sorted(set(present), key=_sort_key)
                lookup = {v: k for k, v in enumerate(values)}
                self.columns_.append(
                    _Column("object-categories", np.array(values, dtype=object), lookup,
                            max(1, len(values)))
                )
        self.binned_columns_ = np.asarray(binned, dtype=np.intp)
        self.discretizer_ = None
        if binned:
            matrix = np.column_stack([columns[j] for j in binned])
            self.discretizer_ = clone(self.discretizer).fit(matrix, sample_weight=sample_weight)
            for j, n_bins in zip(binned, self.discretizer_.n_bins_, strict=True):
                self.columns_[j].n_categories = int(n_bins)
        self.n_categories_ = np.array([c.n_categories for c in self.columns_], dtype=np.intp)
        return self.transform(columns, labels)

    def transform(self, columns: list[NDArray[Any]], labels: list[str]) -> NDArray[np.intp]:
        """Codes of new rows: unseen categories and missing values become -1."""
        n_samples = len(columns[0])
        codes = np.full((n_samples, len(self.columns_)), -1, dtype=np.intp)
        for j, (spec, column, label) in enumerate(
            zip(self.columns_, columns, labels, strict=True)
        ):
            if spec.kind == "object-categories":
                codes[:, j] = [spec.lookup.get(v, -1) if v is not None else -1 for v in column]
                continue
            column = self._as_float(column, label)
            if spec.kind == "numeric-categories":
                cats = spec.categories
                pos = np.searchsorted(cats, column).clip(0, max(len(cats) - 1, 0))
                hit = (len(cats) > 0) & (cats[pos] == column) if len(cats) else np.zeros(
                    n_samples, bool
                )
                codes[:, j] = np.where(hit, pos, -1)
        if len(self.binned_columns_):
            matrix = np.column_stack(
                [self._as_float(columns[j], labels[j]) for j in self.binned_columns_]
            )
            binned = self.discretizer_.transform(matrix)
            codes[:, self.binned_columns_] = np.where(np.isnan(binned), -1, binned).astype(
                np.intp
            )
        return codes

    def _as_float(self, column: NDArray[Any], label: str) -> NDArray[np.float64]:
        if column.dtype.kind in "biuf":
            values = column.astype(np.float64)
        else:
            try:
                values = np.array([np.nan if v is None else v for v in column], dtype=np.float64)
            except (TypeError, ValueError) as err:
                raise ValueError(
                    f"{self.owner}: {label} was numeric at fit time but now holds "
                    f"non-numeric values ({err})."
                ) from err
        _check_finite(values, label, self.owner)
        return values
