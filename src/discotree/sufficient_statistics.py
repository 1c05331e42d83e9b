"""Sufficient statistics that any engine can count and add.

Naive Bayes, Chow-Liu, TAN-CMI and the discriminative tree pair are learnt from the
per-class pair count tables of the encoded data (:class:`~discotree.stats.discrete.
PairStatistics`) and the class weights. Both are sums over rows, so they can be counted
on any part of the data, on any machine, and added. What the parts must share is the
*schema*: the classes, the columns, and how each column is encoded (its categories, or
its bin edges). :class:`StatisticsSchema` fixes it from a sample; each part is counted
with :meth:`StatisticsSchema.count`, which may discover categories the sample did not
have (its result carries the extended schema); ``+`` aligns the schemas and adds; an
estimator learns from the sum with ``fit_from_statistics``.

Examples
--------
Count on any engine (Spark's ``mapPartitions``, Ray tasks, MPI ranks: here a loop),
add, fit:

>>> from functools import reduce
>>> import operator
>>> from sklearn.datasets import load_breast_cancer
>>> from discotree import Discretizer, StatisticsSchema, TANClassifier
>>> X, y = load_breast_cancer(return_X_y=True)
>>> bins = Discretizer().fit(X[:100]).bin_edges_         # fixed once, from a sample
>>> schema = StatisticsSchema.from_sample(
...     X[:100], classes=[0, 1], discretizer=Discretizer(bin_edges=bins))
>>> parts = [schema.count(X[i::4], y[i::4]) for i in range(4)]   # on the workers
>>> total = reduce(operator.add, parts)                          # a tree reduction
>>> model = TANClassifier(alpha=1.0).fit_from_statistics(total)
>>> direct = TANClassifier(alpha=1.0, discretizer=Discretizer(bin_edges=bins)).fit(X, y)
>>> bool((model.predict(X) == direct.predict(X)).all())
True
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .kernels.counts import class_totals
from .stats.pair_statistics import PairStatistics
from .stored_classes import stored
from .transformers.discretizer import Discretizer
from .transformers.encoder import TableEncoder
from .validation import Table, check_sample_weight, check_table, check_targets, positive_rows

__all__ = ["PairStatistics", "StatisticsSchema", "add_statistics"]

_OWNER = "StatisticsSchema"


def add_statistics(a: Any, b: Any) -> Any:
    """The sum of two parts' statistics: tables, or (nested) lists of them, element by
    element (``None`` is the empty sum).

    Examples
    --------
    >>> add_statistics([1.0, [2.0, 3.0]], [1.0, [1.0, 1.0]])
    [2.0, [3.0, 4.0]]
    >>> add_statistics(None, 5)
    5
    """
    if a is None:
        return b
    if isinstance(a, list):
        return [add_statistics(p, q) for p, q in zip(a, b, strict=True)]
    return a + b


def _feature_names(X: Any) -> NDArray[np.object_] | None:
    columns = getattr(X, "columns", None)
    if columns is None or not all(isinstance(c, str) for c in columns):
        return None
    return np.asarray(columns, dtype=object)


def _checked_labels(y: Any, n_samples: int, classes: NDArray[Any], owner: str) -> NDArray[Any]:
    """``y`` checked (as ``partial_fit`` checks it): every label one of ``classes``."""
    y = check_targets(y, n_samples, owner)
    unknown = ~np.isin(y, classes)
    if unknown.any():
        raise ValueError(
            f"{owner}: y holds labels not in classes: {np.unique(y[unknown]).tolist()!r} "
            f"(classes: {classes.tolist()!r})."
        )
    return y


@stored
class StatisticsSchema:
    """What partial statistics share: classes, columns and each column's encoding.

    Build it with :meth:`from_sample` (on a sample of the data, on one machine). The
    sample decides which numeric columns are categorical (at most ``max_categories``
    values) and the bins of the others, unless ``discretizer`` has fixed
    ``bin_edges``, which bin every numeric column; categorical columns may gain
    categories in any part (:meth:`count`).

    Attributes
    ----------
    classes : ndarray
        Every label, sorted.
    encoder : TableEncoder
        The encoding of the columns.
    feature_names : ndarray of str or None
        Column names, when the sample was a DataFrame with string names.
    n_features : int

    Notes
    -----
    Two schemas that extend one sample's (each part adds the categories it saw) merge
    by :meth:`union`; bins never change, so every part must share them (that of the
    sample, or fixed edges).
    """

    def __init__(
        self,
        encoder: TableEncoder,
        classes: NDArray[Any],
        feature_names: NDArray[np.object_] | None,
    ) -> None:
        self.encoder = encoder
        self.classes = classes
        self.feature_names = feature_names

    @classmethod
    def from_sample(
        cls,
        X: Any,
        classes: Any,
        *,
        max_categories: int = 10,
        discretizer: Discretizer | None = None,
        y: Any = None,
    ) -> StatisticsSchema:
        """The schema of ``X`` (a sample of the data) for the labels ``classes``.

        ``y`` (the sample's labels) is needed only by a supervised discretizer
        (``method="mdl"``).
        """
        classes = np.asarray(classes)
        classes = np.unique(check_targets(classes, len(classes), _OWNER))
        if len(classes) < 2:
            raise ValueError(f"{_OWNER}: classes must hold at least two labels.")
        table = check_table(X, _OWNER)
        class_index = None
        if y is not None:
            y = _checked_labels(y, table.n_samples, classes, _OWNER)
            class_index = np.searchsorted(classes, y)
        encoder = TableEncoder(int(max_categories), discretizer or Discretizer(), _OWNER)
        encoder.fit_transform(table, None, class_index)
        return cls(encoder, classes, _feature_names(X))

    @property
    def n_features(self) -> int:
        return len(self.encoder.columns_)

    @property
    def n_categories(self) -> NDArray[np.intp]:
        """Number of categories (or bins) of each column."""
        return self.encoder.n_categories_

    def categories(self) -> list[NDArray[Any]]:
        """Each column's categories (its bin index for a binned column)."""
        out = []
        for spec in self.encoder.columns_:
            if spec.categories is None:
                out.append(np.arange(spec.n_categories))
            else:
                out.append(np.asarray(spec.categories))
        return out

    def count(self, X: Any, y: Any, sample_weight: Any = None) -> PairStatistics:
        """The statistics of a part of the data: per-class pair tables and class weights.

        Categories not in the schema are added (the result carries its extended
        schema; ``+`` aligns them). Rows of weight zero are left out.

        Raises
        ------
        ValueError
            If X has other columns than the schema's, a label is not in ``classes``,
            or a column gets more categories than the schema allows.
        """
        table = self._checked_table(X, _OWNER)
        y = _checked_labels(y, table.n_samples, self.classes, _OWNER)
        weights = check_sample_weight(sample_weight, table.n_samples, _OWNER)
        table, y, weights = positive_rows(table, y, weights)
        encoder = copy.deepcopy(self.encoder)
        encoder.extend(table, 0)
        schema = StatisticsSchema(encoder, self.classes, self.feature_names)
        codes = encoder.transform(table)
        class_index = np.searchsorted(self.classes, y).astype(np.intp)
        return schema.count_codes(codes, class_index, weights)

    def _checked_table(self, X: Any, owner: str) -> Table:
        """``X`` validated, with the schema's columns (the same names in the same order
        when both have names, as ``partial_fit`` wants them)."""
        table = check_table(X, owner)
        names = _feature_names(X)
        if len(table.columns) != self.n_features or (
            self.feature_names is not None
            and names is not None
            and not np.array_equal(names, self.feature_names)
        ):
            theirs = names.tolist() if names is not None else len(table.columns)
            ours = self.n_features if self.feature_names is None else self.feature_names.tolist()
            raise ValueError(f"{owner}: X has columns {theirs}, the schema {ours}.")
        return table

    def encode(
        self, X: Any, y: Any, sample_weight: Any = None
    ) -> tuple[NDArray[Any], NDArray[np.intp], NDArray[np.float64] | None]:
        """A part of the data as (codes, class index, weights) under this schema, rows
        of weight zero left out (its categories must all be in the schema: encode
        under the schema of the summed statistics).

        Raises
        ------
        ValueError
            If X has other columns than the schema's, a label is not in ``classes``,
            or a column holds a category the schema does not have.

        Examples
        --------
        >>> import numpy as np
        >>> schema = StatisticsSchema.from_sample(np.array([[0, 1], [1, 0]]), classes=[0, 1])
        >>> codes, class_index, weights = schema.encode(np.array([[1, 1]]), [1])
        >>> codes.tolist(), class_index.tolist(), weights
        ([[1, 1]], [1], None)
        """
        if len(X) == 0:
            empty = np.empty((0, self.n_features), dtype=self.encoder.code_dtype_)
            return empty, np.empty(0, dtype=np.intp), None
        owner = self.encoder.owner
        table = self._checked_table(X, owner)
        y = _checked_labels(y, table.n_samples, self.classes, owner)
        codes = self.encoder.transform(table)
        unseen = self.encoder.columns_with_unseen(table, codes)
        if unseen:
            raise ValueError(
                f"{owner}: X holds categories not in the schema: "
                f"{self._unseen_categories(table, unseen)}."
            )
        class_index = np.searchsorted(self.classes, y).astype(np.intp)
        weights = None
        if sample_weight is not None:
            weights = np.asarray(sample_weight, dtype=np.float64).reshape(-1)
            if not (weights > 0).all():
                keep = weights > 0
                codes, class_index, weights = codes[keep], class_index[keep], weights[keep]
        return codes, class_index, weights

    def _unseen_categories(self, table: Table, unseen: set[int]) -> str:
        """The columns ``unseen`` and the categories they hold that the schema lacks."""
        encoder = copy.deepcopy(self.encoder)
        try:
            encoder.extend(table, 0, unseen)
        except ValueError:  # too many to name: the columns then
            return ", ".join(table.labels[j] for j in sorted(unseen))
        parts = []
        for j in sorted(unseen):
            known = set(self.encoder.columns_[j].values.tolist())
            new = [v for v in encoder.columns_[j].values.tolist() if v not in known]
            parts.append(f"{table.labels[j]} {new[:5]!r}")
        return ", ".join(parts)

    def count_codes(
        self,
        codes: NDArray[np.integer],
        class_index: NDArray[np.intp],
        weights: NDArray[np.float64] | None = None,
    ) -> PairStatistics:
        """The statistics of rows already encoded with this schema (codes and class
        indices), zero tables when there are none."""
        n_classes = len(self.classes)
        if len(codes) == 0:
            width = int(self.n_categories.sum())
            zeros = np.zeros((n_classes, width, width))
            return PairStatistics(zeros, self.n_categories, np.zeros(n_classes), self)
        stats = PairStatistics.from_codes(codes, class_index, self.n_categories, n_classes, weights)
        w = np.ones(len(codes)) if weights is None else weights
        class_weight = class_totals(class_index, w, n_classes)
        return PairStatistics(stats.counts, stats.n_categories, class_weight, self)

    def union(
        self, other: StatisticsSchema
    ) -> tuple[StatisticsSchema, dict[int, NDArray[np.intp]], dict[int, NDArray[np.intp]]]:
        """The schema with the categories of both, and the maps of each one's codes.

        Raises
        ------
        ValueError
            If the classes, columns or bins differ.
        """
        if not np.array_equal(self.classes, other.classes):
            raise ValueError(
                f"{_OWNER}: cannot add statistics of classes {self.classes.tolist()!r} and "
                f"{other.classes.tolist()!r}."
            )
        names, other_names = self.feature_names, other.feature_names
        if names is None or other_names is None:
            same_names = names is None and other_names is None
        else:
            same_names = np.array_equal(names, other_names)
        if not same_names:
            raise ValueError(f"{_OWNER}: cannot add statistics of other columns.")
        encoder, maps_self, maps_other = self.encoder.union(other.encoder)
        return StatisticsSchema(encoder, self.classes, self.feature_names), maps_self, maps_other

    def __repr__(self) -> str:
        return (
            f"StatisticsSchema({self.n_features} columns, {len(self.classes)} classes, "
            f"{int(self.n_categories.sum())} categories)"
        )
