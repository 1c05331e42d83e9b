"""Family count tables stored sparsely: the counts of a node's values and the class
under the parent configurations actually observed (k-dependence models of any k,
Sahami 1996; selective kDB, Martinez, Webb, Chen & Zaidi 2016, JMLR 17(44)).

A table keeps the cells present, as sorted ids ``(configuration * n_classes + class) *
r_node + value`` (the configuration's mixed-radix id,
:func:`discotree.kernels.counts.configuration_ids`), and their weights, so its memory
grows with the rows' distinct cells and never with the product of the parents'
arities. Tables add (``+``): the counts of two parts of the data are those of their
union, so ``partial_fit`` and engines that count elsewhere give the tables of the whole.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .. import missing_values
from ..kernels.counts import (
    DENSE_IDS,
    DENSE_IDS_PER_ROW,
    present_configurations,
    sparse_family_counts,
)
from ..kernels.family_counts import dense_prefix_family_counts
from ..kernels.sparse_families import sparse_cell_lookup, sparse_cells_are_valid
from ..stored_checks import CheckedState, numbers
from ..stored_classes import stored

__all__ = [
    "SparseFamilyTable",
    "observed_prefix_lengths",
    "packed_tables",
    "prefix_family_tables",
    "unpacked_tables",
]


@stored
@dataclass
class SparseFamilyTable(CheckedState):
    """The weighted counts of ``node``'s family under the observed configurations of
    ``parents`` (available-case: a row counts where the node and every parent are
    observed).

    Parameters
    ----------
    node : int
    parents : tuple of int
        In their priority order (the first the most significant digit of the ids).
    n_classes, r_node : int
    cells : ndarray of shape (n_cells,), int64
        The sorted ids of the cells present.
    masses : ndarray of shape (n_cells,)
        Their weights.

    Attributes
    ----------
    keys : ndarray of shape (n_configurations,), int64
        The parent configurations present (sorted ids).
    totals : ndarray of shape (n_configurations, n_classes)
        The weight of each class there.
    support : ndarray of shape (n_configurations, n_classes)
        How many of the node's values have positive weight there.

    Examples
    --------
    >>> codes = np.array([[0, 1], [0, 1], [1, 0]])
    >>> table = SparseFamilyTable.from_codes(
    ...     codes, np.array([0, 1, 1]), None, 2, np.array([2, 2]), 1, (0,))
    >>> table.keys, table.totals
    (array([0, 1]), array([[1., 1.],
           [0., 1.]]))
    >>> (table + table).count(np.array([0]), 1, np.array([1]))
    array([2.])
    """

    node: int
    parents: tuple[int, ...]
    n_classes: int
    r_node: int
    cells: NDArray[np.int64]
    masses: NDArray[np.float64]

    def __post_init__(self) -> None:
        self.__dict__.pop("_derived_arrays", None)
        self.cells = np.asarray(self.cells, dtype=np.int64)
        self.masses = np.asarray(self.masses, dtype=np.float64)
        if (
            self.cells.ndim != 1
            or self.cells.shape != self.masses.shape
            or not sparse_cells_are_valid(self.cells, self.masses)
            or self.n_classes < 1
            or self.r_node < 1
        ):
            raise ValueError(
                f"the family table of node {self.node} is inconsistent: its cells must be "
                "increasing ids >= 0, one finite weight >= 0 each"
            )

    def _derived(self) -> tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.intp]]:
        """The configurations present, each class's total and support there: computed
        from the cells on first use (lookups read the cells directly), never stored."""
        if "_derived_arrays" not in self.__dict__:
            width = self.n_classes * self.r_node
            keys, position = np.unique(self.cells // width, return_inverse=True)
            slot = position.reshape(-1) * self.n_classes + (self.cells % width) // self.r_node
            size = len(keys) * self.n_classes
            shape = (len(keys), self.n_classes)
            totals = np.bincount(slot, self.masses, size).astype(np.float64).reshape(shape)
            positive = (self.masses > 0).astype(np.float64)
            support = np.bincount(slot, positive, size).reshape(shape).astype(np.intp)
            self.__dict__["_derived_arrays"] = (keys.astype(np.int64), totals, support)
        return self.__dict__["_derived_arrays"]

    @property
    def keys(self) -> NDArray[np.int64]:
        """The parent configurations present (sorted ids)."""
        return self._derived()[0]

    @property
    def totals(self) -> NDArray[np.float64]:
        """The weight of each class under each configuration present."""
        return self._derived()[1]

    @property
    def support(self) -> NDArray[np.intp]:
        """How many of the node's values have positive weight there, per class."""
        return self._derived()[2]

    def __getstate__(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.__post_init__()

    def check_numbers(self, where: str) -> None:
        """A loaded file's counts (or, in an HDP model, probabilities): finite and >= 0."""
        numbers(self.masses, f"{where}.masses", low=0.0)

    @classmethod
    def from_codes(
        cls,
        codes: NDArray[np.integer],
        class_index: NDArray[np.intp],
        weights: NDArray[np.floating] | None,
        n_classes: int,
        n_categories: NDArray[np.intp],
        node: int,
        parents: tuple[int, ...],
    ) -> SparseFamilyTable:
        """Count the table in one pass (:func:`~discotree.kernels.counts.sparse_family_counts`)."""
        cells, masses = sparse_family_counts(
            codes, class_index, weights, n_classes, n_categories, node=node, parents=tuple(parents)
        )
        parents = tuple(int(p) for p in parents)
        ids = np.asarray(cells, dtype=np.int64)
        return cls(int(node), parents, int(n_classes), int(n_categories[node]), ids, masses)

    def __add__(self, other: SparseFamilyTable) -> SparseFamilyTable:
        """The table of the rows of both."""
        mine = (self.node, self.parents, self.n_classes, self.r_node)
        theirs = (other.node, other.parents, other.n_classes, other.r_node)
        if mine != theirs:
            raise ValueError(
                f"cannot add the table of node {other.node} under {other.parents} to that "
                f"of node {self.node} under {self.parents}"
            )
        cells, masses = present_configurations(
            np.concatenate([self.cells, other.cells]),
            np.concatenate([self.masses, other.masses]),
        )
        ids = np.asarray(cells, dtype=np.int64)
        return SparseFamilyTable(self.node, self.parents, self.n_classes, self.r_node, ids, masses)

    def count(self, ids: NDArray[np.int64], c: int, values: NDArray[np.integer]) -> NDArray:
        """The weight of class ``c`` and node value ``values[i]`` under configuration
        ``ids[i]`` (0 where that cell is absent)."""
        wanted = (np.asarray(ids, dtype=np.int64) * self.n_classes + c) * self.r_node + values
        at = _find(self.cells, wanted)
        return np.where(at >= 0, self.masses[np.maximum(at, 0)], 0.0)

    def log_probability(
        self,
        ids: NDArray[np.int64],
        values: NDArray[np.integer],
        alpha: float,
        epsilon: float,
        leave_out: tuple[NDArray[np.intp], NDArray[np.float64]] | None = None,
    ) -> NDArray[np.float64]:
        """``log P(node = values[i] | class c, configuration ids[i])`` for every class c,
        shape (len(ids), n_classes), smoothed as every table of the package
        (:func:`~discotree.stats.dirichlet.smoothed_conditional`: pseudo-count
        ``alpha`` per cell, a zero probability floored at ``epsilon`` and renormalised,
        a configuration never observed uniform).

        ``leave_out=(class_index, unit)``: each row's own ``unit`` of weight taken out of
        its class's cells first (leave-one-out; the row must have been counted here).
        """
        counts, totals, support = sparse_cell_lookup(
            self.cells, self.masses, ids, values, self.n_classes, r=self.r_node
        )
        if leave_out is not None:
            class_index, unit = leave_out
            pick = np.arange(len(ids)), class_index
            before = counts[pick]
            counts[pick] = before - unit
            totals[pick] -= unit
            support[pick] -= (before > 0) & (counts[pick] <= 0)
            np.maximum(counts, 0.0, out=counts)  # rounding of fractional weights
            np.maximum(totals, 0.0, out=totals)
        r = self.r_node
        denominator = totals + alpha * r
        prob = np.divide(
            counts + alpha, denominator, out=np.full_like(counts, 1.0 / r), where=denominator > 0
        )
        if epsilon > 0 and alpha == 0:  # zeros floored and each distribution renormalised
            zeros = np.where(denominator > 0, r - support, 0)
            prob = np.where(prob <= 0, epsilon, prob) / (1.0 + zeros * epsilon)
        return np.log(prob)

    @property
    def nbytes(self) -> int:
        """The memory of the stored arrays."""
        arrays = (self.cells, self.masses)
        return int(sum(a.nbytes for a in arrays))


def observed_prefix_lengths(
    codes: NDArray[np.integer], ranked: tuple[int, ...]
) -> NDArray[np.intp]:
    """How many of ``ranked``'s leading parents each row observes.

    Examples
    --------
    >>> observed_prefix_lengths(np.array([[0, -1, 1], [1, 1, 1]]), (2, 1, 0))
    array([1, 3])
    """
    length = np.zeros(len(codes), dtype=np.intp)
    still = np.ones(len(codes), dtype=bool)
    for parent in ranked:
        still &= missing_values.observed(codes[:, parent])
        length += still
    return length


def _find(sorted_ids: NDArray[np.int64], ids: NDArray[np.int64]) -> NDArray[np.intp]:
    if len(sorted_ids) == 0:
        return np.full(len(ids), -1, dtype=np.intp)
    at = np.minimum(np.searchsorted(sorted_ids, ids), len(sorted_ids) - 1)
    return np.where(sorted_ids[at] == ids, at, -1).astype(np.intp)


def prefix_family_tables(
    codes: NDArray[np.integer],
    class_index: NDArray[np.intp],
    weights: NDArray[np.floating] | None,
    n_classes: int,
    n_categories: NDArray[np.intp],
    parents: list[tuple[int, ...]],
) -> list[list[SparseFamilyTable]]:
    """For every node, the tables of its family under each prefix of its ranked parents
    (lengths 0 to ``len(parents[node])``): the nested models of selective kDB, and the
    back-off of a row whose later parents are missing.

    Examples
    --------
    >>> codes = np.array([[0, 1, 1], [1, 0, 1]])
    >>> tables = prefix_family_tables(
    ...     codes, np.array([0, 1]), None, 2, np.array([2, 2, 2]), [(), (0,), (1, 0)])
    >>> [[t.parents for t in node] for node in tables]
    [[()], [(), (0,)], [(), (1,), (1, 0)]]
    """
    limit = max(DENSE_IDS, DENSE_IDS_PER_ROW * len(codes))
    out = []
    for node, ranked in enumerate(parents):
        ranked = tuple(int(p) for p in ranked)
        r = int(n_categories[node])
        sizes = [n_classes * r]
        for p in ranked:
            sizes.append(sizes[-1] * int(n_categories[p]))
        tables = []
        for levels in _dense_groups(sizes, limit):  # (each counted in one pass)
            counted = dense_prefix_family_counts(
                codes,
                class_index,
                weights,
                n_classes,
                n_categories,
                node=node,
                parents=ranked,
                levels=levels,
            )
            for length, (cells, masses) in zip(levels, counted, strict=True):
                table = SparseFamilyTable(
                    int(node), ranked[:length], int(n_classes), r, cells, masses
                )
                tables.append(table)
        for length in range(len(tables), len(ranked) + 1):  # (sorted: memory with the rows)
            tables.append(
                SparseFamilyTable.from_codes(
                    codes, class_index, weights, n_classes, n_categories, node, ranked[:length]
                )
            )
        out.append(tables)
    return out


def _dense_groups(sizes: list[int], limit: int) -> list[range]:
    """The leading levels of at most ``limit`` cells each (the sizes grow with the
    level), grouped in consecutive runs of at most ``limit`` cells together (or one
    level): the dense counts' bins stay within ``limit`` per pass.

    Examples
    --------
    >>> _dense_groups([6, 12, 24, 48, 96], 50)
    [range(0, 3), range(3, 4)]
    """
    groups: list[range] = []
    start = total = 0
    for level, size in enumerate(sizes):
        if size > limit:
            break
        if total + size > limit and level > start:
            groups.append(range(start, level))
            start, total = level, 0
        total += size
    else:
        level = len(sizes)
    if level > start:
        groups.append(range(start, level))
    return groups


def _least_integers(values: NDArray[np.integer]) -> NDArray[np.integer]:
    """``values`` (>= 0) in the smallest unsigned integer type that holds them."""
    largest = int(values.max(initial=0))
    for dtype in (np.uint8, np.uint16, np.uint32, np.uint64):
        if largest <= np.iinfo(dtype).max:
            return values.astype(dtype)
    raise AssertionError("unreachable: int64 values fit in uint64")  # pragma: no cover


def _deflated(values: NDArray) -> tuple[bytes, str]:
    return zlib.compress(np.ascontiguousarray(values).tobytes()), values.dtype.str


def _inflated(deflated: tuple[bytes, str]) -> NDArray:
    data, dtype = deflated
    return np.frombuffer(zlib.decompress(data), dtype=np.dtype(dtype))


def packed_tables(tables: list[list[SparseFamilyTable]]) -> dict[str, Any] | None:
    """Nested lists of tables (a model's, per node) as a few flat arrays, for a compact
    pickle (:func:`unpacked_tables` gives them back, equal to the last bit): each
    table's node, number of parents, classes and values; the parents; the cells, each
    table's as its first id and the steps between them (sorted ids: small steps), in
    the smallest unsigned type that holds them, and the masses so too where every one
    is a whole number below 2**53 (counts of rows of weight one), else float64; cells
    and masses deflated (zlib). None when an entry is not a :class:`SparseFamilyTable`.

    Examples
    --------
    >>> table = SparseFamilyTable(0, (1,), 2, 2, np.array([1, 5]), np.array([2.0, 1.0]))
    >>> packed = packed_tables([[], [table, table]])
    >>> packed["cells"][1], packed["masses"][1]
    ('|u1', '|u1')
    >>> back = unpacked_tables(packed)[1][0]
    >>> back.parents, back.cells.tolist(), back.masses.tolist()
    ((1,), [1, 5], [2.0, 1.0])
    """
    flat = [table for node in tables for table in node]
    if not all(type(table) is SparseFamilyTable for table in flat):
        return None
    sizes = np.array([len(t.cells) for t in flat], dtype=np.int64)
    cells = np.concatenate([np.zeros(0, dtype=np.int64), *(t.cells for t in flat)])
    steps = np.diff(cells, prepend=0)
    firsts = (np.cumsum(sizes) - sizes)[sizes > 0]
    steps[firsts] = cells[firsts]  # (each table's first id as it is)
    masses = np.concatenate([np.zeros(0), *(t.masses for t in flat)])
    if np.all(masses == np.floor(masses)) and masses.max(initial=0.0) < 2.0**53:
        masses = _least_integers(masses.astype(np.int64))
    describe = [(t.node, len(t.parents), t.n_classes, t.r_node) for t in flat]
    return {
        "levels": _least_integers(np.array([len(node) for node in tables], dtype=np.int64)),
        "tables": _least_integers(np.array(describe, dtype=np.int64).reshape(-1, 4)),
        "sizes": _least_integers(sizes),
        "parents": _least_integers(np.array([p for t in flat for p in t.parents], dtype=np.int64)),
        "cells": _deflated(_least_integers(steps)),
        "masses": _deflated(masses),
    }


def unpacked_tables(packed: dict[str, Any]) -> list[list[SparseFamilyTable]]:
    """The tables of :func:`packed_tables` (cells int64, masses float64 again)."""
    sizes = packed["sizes"].astype(np.int64)
    steps = _inflated(packed["cells"]).astype(np.int64)
    masses = _inflated(packed["masses"]).astype(np.float64)
    parents = packed["parents"].astype(np.int64).tolist()
    flat, at, parent_at = [], 0, 0
    described = packed["tables"].astype(np.int64).tolist()
    for (node, n_parents, n_classes, r_node), size in zip(described, sizes.tolist(), strict=True):
        flat.append(
            SparseFamilyTable(
                node,
                tuple(parents[parent_at : parent_at + n_parents]),
                n_classes,
                r_node,
                np.cumsum(steps[at : at + size]),
                masses[at : at + size].copy(),
            )
        )
        at, parent_at = at + size, parent_at + n_parents
    out, start = [], 0
    for n_levels in packed["levels"].astype(np.int64).tolist():
        out.append(flat[start : start + n_levels])
        start += n_levels
    return out
