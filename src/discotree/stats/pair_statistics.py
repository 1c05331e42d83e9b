"""The sufficient statistics of discrete data: :class:`PairStatistics` holds, for every
class, the weighted count tables of all feature pairs (computed once by
:func:`discotree.kernels.counts.pairwise_counts`); every learner reads its mutual
informations, conditional mutual informations and tables from it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..config import check_memory
from ..kernels.counts import (
    features_with_missing,
    pairwise_counts,
    pairwise_counts_bytes,
    univariate_counts,
)
from ..kernels.information import pairwise_mutual_information, pairwise_table_totals
from ..stored_checks import CheckedState, fail, numbers
from ..stored_classes import stored
from ..validation import check_class_index, check_codes
from .information import clip_information

__all__ = ["PairStatistics", "category_index_map", "class_univariate_counts"]


@stored
@dataclass(frozen=True)
class PairStatistics(CheckedState):
    """Weighted per-class count tables of all feature pairs.

    Parameters
    ----------
    counts : ndarray of shape (n_classes, D, D)
        Block count matrix of :func:`discotree.kernels.counts.pairwise_counts`.
    n_categories : ndarray of shape (n_features,)
        Cardinality of each feature; ``D = n_categories.sum()``.

    class_weight : ndarray of shape (n_classes,), optional
        Total weight of each class (the class prior's counts); set by
        :meth:`discotree.StatisticsSchema.count`.
    schema : StatisticsSchema, optional
        The classes, columns and encoding the counts refer to; set by
        :meth:`discotree.StatisticsSchema.count`.

    Notes
    -----
    Memory ``8 * n_classes * D**2`` bytes. Each table is restricted to the samples where
    both of its features are observed, so with missing values two tables may have
    different totals.

    Statistics are added with ``+`` (or ``sum``): counts and class weights add; when
    both carry a schema, the categories either one has seen are aligned first. Pickled
    (to ship a partial sum), only the upper triangle of each class's symmetric matrix
    is written, without the empty off-diagonal cells of a feature's own block, and in
    float32 when every count is an integer below 2**24 (exact): about a quarter of the
    memory for unweighted counts (:meth:`compact_values`).
    """

    counts: NDArray[np.float64]
    n_categories: NDArray[np.intp]
    class_weight: NDArray[np.float64] | None = None
    schema: Any = None
    pairs: bool = True  # False: only the univariate tables (the diagonal) are counted

    @classmethod
    def from_codes(
        cls,
        codes: NDArray[np.integer],
        class_index: NDArray[np.intp],
        n_categories: NDArray[np.intp],
        n_classes: int,
        sample_weight: NDArray[np.float64] | None = None,
        pairs: bool = True,
    ) -> PairStatistics:
        """Count every pair table of every class in one pass over ``codes`` (with
        ``pairs=False`` only the univariate tables, for models that need no more, such
        as naive Bayes: O(n d) instead of a Gram matrix).

        Raises
        ------
        ValueError
            If a code is outside ``-1..n_categories[j]-1`` or a class index outside
            ``0..n_classes-1``.
        """
        n_categories = np.asarray(n_categories, dtype=np.intp)
        codes = check_codes(codes, n_categories)
        class_index = check_class_index(class_index, len(codes), n_classes)
        if pairs:
            estimate = pairwise_counts_bytes(
                np.bincount(class_index, minlength=n_classes),  # rows per class (layout sizes)
                n_categories,
                features_with_missing(codes),
                sample_weight is not None,
            )
            check_memory(estimate, "the pairwise count tables", "PairStatistics")
        if not pairs:
            weights = np.ones(len(codes)) if sample_weight is None else sample_weight
            flat = univariate_counts(codes, class_index, weights, n_categories, n_classes)
            return cls.univariate(flat, n_categories)
        counts = pairwise_counts(codes, class_index, sample_weight, n_categories, n_classes)
        return cls(counts=counts, n_categories=n_categories)

    @classmethod
    def univariate(
        cls,
        diagonal: NDArray[np.float64],
        n_categories: NDArray[np.intp],
        class_weight: NDArray[np.float64] | None = None,
        schema: Any = None,
    ) -> PairStatistics:
        """Statistics of the univariate tables only (``pairs=False``) from their counts
        ``diagonal`` (n_classes, sum(n_categories)), in O(n_classes D) memory: ``counts``
        is then a read-only view whose cell ``[c, a, b]`` is ``diagonal[c, a]``, right on
        the diagonal, which is all that such statistics answer for.

        Examples
        --------
        >>> stats = PairStatistics.univariate(np.array([[3.0, 1.0, 2.0]]), np.array([2, 1]))
        >>> stats.marginal(0), stats.pairs
        (array([[3., 1.]]), False)
        """
        diagonal = np.asarray(diagonal, dtype=np.float64)
        shape = (diagonal.shape[0], diagonal.shape[1], diagonal.shape[1])
        counts = np.broadcast_to(diagonal[:, :, None], shape)
        out = cls(counts, np.asarray(n_categories, dtype=np.intp), class_weight, schema, False)
        out.__dict__["_diagonal"] = diagonal
        return out

    @property
    def diagonal(self) -> NDArray[np.float64]:
        """The univariate counts, shape (n_classes, sum(n_categories)): the diagonal of
        each class's matrix."""
        if "_diagonal" in self.__dict__:
            return self.__dict__["_diagonal"]
        return np.einsum("cii->ci", self.counts)

    @property
    def offsets(self) -> NDArray[np.intp]:
        """Start of each feature's block in the one-hot columns (length n_features+1)."""
        if "_offsets" not in self.__dict__:  # (functools.cached_property would lock
            offsets = np.zeros(len(self.n_categories) + 1, dtype=np.intp)  # every instance
            np.cumsum(self.n_categories, out=offsets[1:])  # at once before Python 3.12)
            self.__dict__["_offsets"] = offsets
        return self.__dict__["_offsets"]

    @property
    def n_classes(self) -> int:
        return int(self.counts.shape[0])

    @property
    def n_features(self) -> int:
        return len(self.n_categories)

    def _need_pairs(self) -> None:
        if not self.pairs:
            raise ValueError("these statistics hold the univariate tables only (pairs=False)")

    def table(self, i: int, j: int) -> NDArray[np.float64]:
        """Count table of features i and j, shape (n_classes, r_i, r_j)."""
        if i != j:
            self._need_pairs()
        o = self.offsets
        if not self.pairs:  # a diagonal matrix per class
            r = int(self.n_categories[i])
            out = np.zeros((self.n_classes, r, r))
            out[:, np.arange(r), np.arange(r)] = self.diagonal[:, o[i] : o[i + 1]]
            return out
        return self.counts[:, o[i] : o[i + 1], o[j] : o[j + 1]]

    def marginal(self, i: int) -> NDArray[np.float64]:
        """Counts of feature i over the samples where it is observed, (n_classes, r_i)."""
        o = self.offsets
        return self.diagonal[:, o[i] : o[i + 1]].copy()

    def table_totals(self) -> NDArray[np.float64]:
        """Total weight of each pair table, shape (n_classes, n_features, n_features)."""
        self._need_pairs()
        if "_information_cache" in self.__dict__:  # read with the mutual informations
            return self._information[1].copy()
        out = np.empty((self.n_classes, self.n_features, self.n_features))
        pairwise_table_totals(self.counts, self.offsets, out)
        return out

    @property
    def _information(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """The mutual informations and table totals, from one pass over the counts
        (cached in the instance; statistics of several folds are computed on threads
        at once, which functools.cached_property serialises before Python 3.12)."""
        if "_information_cache" not in self.__dict__:
            shape = (self.n_classes, self.n_features, self.n_features)
            mi, totals = np.empty(shape), np.empty(shape)
            pairwise_mutual_information(self.counts, self.offsets, mi, totals)
            self.__dict__["_information_cache"] = (
                clip_information(mi, "mutual information"),
                totals,
            )
        return self.__dict__["_information_cache"]

    def mutual_information(self) -> NDArray[np.float64]:
        """Empirical I(X_i; X_j) within each class, shape (n_classes, n_features, n_features).

        Each pair's MI is computed from its own table (Tan et al. 2010, eq. 10, with the empirical
        pairwise marginals).
        """
        self._need_pairs()
        return self._information[0].copy()

    def conditional_mutual_information(self) -> NDArray[np.float64]:
        """Empirical I(X_i; X_j | C), shape (n_features, n_features).

        ``sum_c P(c) I(X_i; X_j | C = c)`` with ``P(c)`` the class shares of the samples
        where both features are observed (Pernkopf & Bilmes 2010, Section 4.3).
        """
        self._need_pairs()
        per_class, totals = self._information  # the cached arrays: no copy
        pair_total = totals.sum(axis=0)
        observed = pair_total > 0
        out = np.zeros_like(pair_total)
        share = np.empty_like(pair_total)
        for c in range(len(totals)):  # class by class: memory of two (d, d) arrays, and
            share.fill(0.0)  # the sums of the (C, d, d) expression in the same order
            np.divide(totals[c], pair_total, out=share, where=observed)
            share *= per_class[c]
            out += share
        return clip_information(out, "conditional MI")

    def __sub__(self, other: PairStatistics) -> PairStatistics:
        """The statistics of the rows counted in ``self`` but not in ``other`` (a subset
        of them): the counts of a cross-validation training fold are the totals minus
        the held-out fold's. Differences below zero (rounding of weighted counts) are
        set to zero."""
        if not np.array_equal(self.n_categories, other.n_categories) or (
            self.counts.shape != other.counts.shape
        ):
            raise ValueError("PairStatistics of different layouts cannot be subtracted.")
        if not (self.pairs and other.pairs):
            return PairStatistics.univariate(
                np.maximum(self.diagonal - other.diagonal, 0.0), self.n_categories
            )
        counts = np.subtract(self.counts, other.counts)
        np.maximum(counts, 0.0, out=counts)
        return PairStatistics(
            counts=counts,
            n_categories=self.n_categories,
            pairs=self.pairs and other.pairs,
        )

    def realigned(
        self,
        maps: dict[int, NDArray[np.intp]],
        n_categories: NDArray[np.intp],
        schema: Any = None,
    ) -> PairStatistics:
        """The same counts in a layout with more categories (see
        :func:`category_index_map`): the new categories' cells are zero."""
        index, width = category_index_map(self.n_categories, maps, n_categories)
        if not self.pairs:
            diagonal = np.zeros((self.n_classes, width))
            diagonal[:, index] = self.diagonal
            return PairStatistics.univariate(
                diagonal, n_categories, self.class_weight, schema or self.schema
            )
        counts = np.zeros((self.n_classes, width, width))
        counts[:, index[:, None], index[None, :]] = self.counts
        return PairStatistics(
            counts,
            np.asarray(n_categories, np.intp),
            self.class_weight,
            schema or self.schema,
            self.pairs,
        )

    def __add__(self, other: PairStatistics) -> PairStatistics:
        """The statistics of the rows of both (see the class notes)."""
        if not isinstance(other, PairStatistics):
            return NotImplemented
        a, b = self, other
        if a.schema is not None and b.schema is not None:
            schema, maps_a, maps_b = a.schema.union(b.schema)
            a = a.realigned(maps_a, schema.n_categories, schema)
            b = b.realigned(maps_b, schema.n_categories, schema)
        if not np.array_equal(a.n_categories, b.n_categories) or a.counts.shape != b.counts.shape:
            raise ValueError(
                "PairStatistics of different layouts cannot be added (count both parts "
                "with one StatisticsSchema)."
            )
        class_weight = None
        if a.class_weight is not None and b.class_weight is not None:
            class_weight = a.class_weight + b.class_weight
        if not (a.pairs and b.pairs):
            return PairStatistics.univariate(
                a.diagonal + b.diagonal, a.n_categories, class_weight, a.schema
            )
        return PairStatistics(a.counts + b.counts, a.n_categories, class_weight, a.schema)

    def __radd__(self, other: Any) -> PairStatistics:
        if isinstance(other, int) and other == 0:  # sum() starts from 0
            return self
        return NotImplemented

    def _compact_mask(self) -> NDArray[np.bool_]:
        width = self.counts.shape[1]
        owner = np.repeat(np.arange(self.n_features), self.n_categories)
        upper = np.triu(np.ones((width, width), dtype=bool))
        same_feature = owner[:, None] == owner[None, :]
        return upper & (~same_feature | np.eye(width, dtype=bool))

    def compact_values(self) -> NDArray[np.floating]:
        """The cells that determine the counts, shape (n_classes, n_cells): the upper
        triangle of each class's matrix without the (empty) off-diagonal cells of a
        feature's own block; float32 when that is exact."""
        values = self.counts[:, self._compact_mask()]
        exact = values.size == 0 or (
            values.max() < 2**24 and np.array_equal(values, np.round(values))
        )
        return values.astype(np.float32) if exact else values

    @classmethod
    def from_compact_values(
        cls,
        values: NDArray[np.floating],
        n_categories: NDArray[np.intp],
        class_weight: NDArray[np.float64] | None = None,
        schema: Any = None,
        pairs: bool = True,
    ) -> PairStatistics:
        """Inverse of :meth:`compact_values`."""
        n_categories = np.asarray(n_categories, dtype=np.intp)
        width = int(n_categories.sum())
        empty = cls(np.zeros((len(values), width, width)), n_categories)
        mask = empty._compact_mask()
        counts = empty.counts
        counts[:, mask] = values
        diagonal = np.einsum("cii->ci", counts).copy()
        counts += np.swapaxes(counts, 1, 2)
        idx = np.arange(width)
        counts[:, idx, idx] = diagonal
        return cls(counts, n_categories, class_weight, schema, pairs)

    def __reduce__(self):
        if not self.pairs:  # the univariate counts alone
            return (
                PairStatistics.univariate,
                (self.diagonal, self.n_categories, self.class_weight, self.schema),
            )
        return (
            PairStatistics.from_compact_values,
            (self.compact_values(), self.n_categories, self.class_weight, self.schema, self.pairs),
        )

    def check_numbers(self, where: str) -> None:
        """A loaded file's counts and class weights: finite and >= 0; its cached
        offsets those of ``n_categories``."""
        numbers(self.counts, f"{where}.counts", low=0.0)
        if self.class_weight is not None:
            numbers(self.class_weight, f"{where}.class_weight", low=0.0)
        state = vars(self)
        if "_offsets" in state:  # a cache of the file's: the categories' offsets
            offsets = np.concatenate([[0], np.cumsum(self.n_categories)])
            if not np.array_equal(state["_offsets"], offsets):
                raise fail(f"{where}._offsets", "are not the offsets of n_categories")
        if "_diagonal" in state:
            numbers(state["_diagonal"], f"{where}._diagonal", low=0.0)

    def merged(self) -> PairStatistics:
        """The statistics of all classes pooled into one class."""
        if not self.pairs:
            return PairStatistics.univariate(
                self.diagonal.sum(axis=0, keepdims=True), self.n_categories
            )
        return PairStatistics(
            counts=self.counts.sum(axis=0, keepdims=True), n_categories=self.n_categories
        )


def category_index_map(
    n_categories: NDArray[np.intp],
    maps: dict[int, NDArray[np.intp]],
    new_n_categories: NDArray[np.intp],
) -> tuple[NDArray[np.intp], int]:
    """Where each one-hot column of a layout goes in a layout with more categories.

    Parameters
    ----------
    n_categories : ndarray of shape (n_features,)
        The old layout.
    maps : dict
        For each feature whose categories changed, the new code of every old code;
        the other features keep their codes.
    new_n_categories : ndarray of shape (n_features,)

    Returns
    -------
    index : ndarray of shape (n_categories.sum(),)
        The new column of every old one.
    width : int
        ``new_n_categories.sum()``.

    Examples
    --------
    >>> category_index_map(np.array([2, 1]), {0: np.array([0, 2])}, np.array([3, 1]))
    (array([0, 2, 3]), 4)
    """
    old_offsets = np.concatenate([[0], np.cumsum(n_categories)])
    new_offsets = np.concatenate([[0], np.cumsum(new_n_categories)])
    index = np.empty(int(old_offsets[-1]), dtype=np.intp)
    for j, r in enumerate(n_categories):
        codes = maps.get(j, np.arange(r))
        index[old_offsets[j] : old_offsets[j + 1]] = new_offsets[j] + codes
    return index, int(new_offsets[-1])


def class_univariate_counts(
    codes: NDArray[np.integer],
    class_index: NDArray[np.intp],
    n_categories: NDArray[np.intp],
    n_classes: int,
    sample_weight: NDArray[np.float64] | None = None,
) -> list[NDArray[np.float64]]:
    """Per-feature count tables, a list of arrays of shape (n_classes, r_i)."""
    codes = check_codes(codes, n_categories)
    class_index = check_class_index(class_index, len(codes), n_classes)
    weights = np.ones(len(codes)) if sample_weight is None else sample_weight
    flat = univariate_counts(codes, class_index, weights, n_categories, n_classes)
    return np.split(flat, np.cumsum(n_categories)[:-1], axis=1)
