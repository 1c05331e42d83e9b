"""Columns of candidate parent sets, as rows of one shared table, and the cache of
the columns a structure search reads (:mod:`discotree.structure.bayes_net_search`).

A column is a node's ``log P(x_j | parents, c)`` at every sample (shape (n, C)); a
candidate replaces one node's column of the joint by another, read lazily as
``table[index]``."""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np
from numpy.typing import NDArray

from .search_state import LazyColumn, NodeScores, PairParentColumns, SingleParentColumns

__all__ = [
    "CandidateColumns",
    "PairParentCandidates",
    "ReplacementCandidates",
    "ReplacementColumns",
    "SingleParentCandidates",
    "StackedColumns",
]


class CandidateColumns(ABC):
    """Columns of the candidate parent sets of one node, as rows of one shared table:
    candidate i's column at sample s is ``table[index([i], [s])]``."""

    table: NDArray[np.float64]

    @abstractmethod
    def __len__(self) -> int: ...

    @abstractmethod
    def index(self, live: NDArray[np.intp], rows: NDArray[np.intp]) -> NDArray[np.intp]:
        """Row indices of candidates ``live`` at samples ``rows``, (len(live), len(rows))."""

    @abstractmethod
    def column(self, i: int) -> LazyColumn:
        """Candidate i's column."""

    def index_at(
        self,
        live: NDArray[np.intp],
        order: NDArray[np.intp],
        positions: slice | NDArray[np.intp],
    ) -> NDArray[np.intp]:
        """:meth:`index` at samples ``order[positions]`` (the scorer's order; a
        subclass may keep its codes in that order and read them in sequence);
        ``positions`` a slice or an array of positions."""
        return self.index(live, order[positions])

    #: Whether each candidate replaces a column of its own (:class:`ReplacementCandidates`)
    #: rather than one column common to all.
    replaces: bool = False

    def old_index_at(
        self,
        live: NDArray[np.intp],
        order: NDArray[np.intp],
        positions: slice | NDArray[np.intp],
    ) -> NDArray[np.intp]:
        """Rows of ``table`` of the column each candidate takes out (only where
        :attr:`replaces`)."""
        raise NotImplementedError(f"{type(self).__name__} replaces one common column")

    def old_column(self, i: int) -> LazyColumn:
        """The column candidate i takes out (only where :attr:`replaces`)."""
        raise NotImplementedError(f"{type(self).__name__} replaces one common column")


class StackedColumns(CandidateColumns):
    """Separately computed columns, their tables stacked."""

    def __init__(self, columns: list[LazyColumn]) -> None:
        self.columns = columns
        if len(columns) > 1:
            offsets = np.cumsum([0] + [c.table.shape[0] for c in columns[:-1]])
            self.table = np.vstack([c.table for c in columns])
            self._index = np.stack([c.index + o for c, o in zip(columns, offsets, strict=True)])

    def __len__(self) -> int:
        return len(self.columns)

    def index(self, live, rows):
        return self._index[np.ix_(live, rows)]

    def column(self, i):
        return self.columns[i]


class ReplacementColumns:
    """Columns that each replace a different node's column: column i takes ``olds[i]``
    out of the joint and puts ``news[i]`` in (SuperParent's children of one superparent,
    Pernkopf & Bilmes 2010, step 2 of Section 4.4.2), read from one stacked table, their row indices
    kept with the samples in ``order`` (the scorer's order of one step) so that a chunk
    of samples is a slice."""

    def __init__(
        self, olds: list[LazyColumn], news: list[LazyColumn], order: NDArray[np.intp]
    ) -> None:
        if len(olds) != len(news):
            raise ValueError(f"{len(olds)} old columns for {len(news)} new ones")
        self.olds, self.news, self.order = olds, news, order
        columns = [*olds, *news]
        offsets = np.cumsum([0] + [c.table.shape[0] for c in columns[:-1]])
        self.table = np.vstack([c.table for c in columns])
        index = np.empty((len(columns), len(order)), dtype=np.intp)
        for i, (column, offset) in enumerate(zip(columns, offsets, strict=True)):
            np.add(column.index[order], offset, out=index[i])
        self.old_in_order, self.new_in_order = index[: len(olds)], index[len(olds) :]
        self.position = np.empty_like(order)  # where each sample is in ``order``
        self.position[order] = np.arange(len(order))

    def __len__(self) -> int:
        return len(self.news)


class ReplacementCandidates(CandidateColumns):
    """The columns ``members`` of one :class:`ReplacementColumns` as candidates (each
    replaces its own column, :attr:`replaces`)."""

    replaces = True

    def __init__(self, columns: ReplacementColumns, members: NDArray[np.intp]) -> None:
        self.columns = columns
        self.members = np.asarray(members, dtype=np.intp)
        self.table = columns.table

    def __len__(self) -> int:
        return len(self.members)

    def index(self, live, rows):
        positions = self.columns.position[rows]
        return self.columns.new_in_order[np.ix_(self.members[live], positions)]

    def _in_order(self, which, live, order, positions):
        if order is not self.columns.order:
            return which[np.ix_(self.members[live], self.columns.position[order[positions]])]
        if isinstance(positions, slice):
            return which[self.members[live], positions]
        return which[np.ix_(self.members[live], positions)]

    def index_at(self, live, order, positions):
        return self._in_order(self.columns.new_in_order, live, order, positions)

    def old_index_at(self, live, order, positions):
        return self._in_order(self.columns.old_in_order, live, order, positions)

    def column(self, i):
        return self.columns.news[self.members[i]]

    def old_column(self, i):
        return self.columns.olds[self.members[i]]


class PairParentCandidates(CandidateColumns):
    """One node's candidate parent pairs, from one :class:`PairParentColumns`; with
    ``codes_in_order`` (see :class:`_CodesInOrder`), :meth:`index_at` reads the codes
    in sequence."""

    def __init__(
        self, columns: PairParentColumns, codes_in_order: _CodesInOrder | None = None
    ) -> None:
        self.columns = columns
        self.table = columns.table
        self.codes_in_order = codes_in_order

    def __len__(self) -> int:
        return len(self.columns)

    def index(self, live, rows):
        return self.columns.index(live, rows)

    def index_at(self, live, order, positions):
        if self.codes_in_order is None:
            return self.index(live, order[positions])
        return self.columns.index(live, positions, self.codes_in_order.get(order))

    def column(self, i):
        return self.columns.column(i)


class SingleParentCandidates(CandidateColumns):
    """One node's single-parent candidates, read from its :class:`SingleParentColumns`;
    with ``codes_in_order`` (the codes by feature with their samples in a given order,
    see :class:`_CodesInOrder`), :meth:`index_at` reads them in sequence."""

    def __init__(
        self,
        columns: SingleParentColumns,
        parents: list[int],
        codes_in_order: _CodesInOrder | None = None,
    ) -> None:
        self.columns = columns
        self.parents = np.asarray(parents, dtype=np.intp)
        self.table = columns.table
        self.codes_in_order = codes_in_order

    def __len__(self) -> int:
        return len(self.parents)

    def index(self, live, rows):
        return self.columns.index(self.parents[live], rows)

    def index_at(self, live, order, positions):
        if self.codes_in_order is None:
            return self.index(live, order[positions])
        codes = self.codes_in_order.get(order)
        return self.columns.index(self.parents[live], positions, codes)

    def column(self, i):
        return self.columns.column(int(self.parents[i]))


class _CodesInOrder:
    """The codes by feature with their samples in the scorer's order, made once per
    order (a new order array is a new order: :meth:`Scorer.reorder` makes one)."""

    def __init__(self, codes_by_feature: NDArray[np.intp]) -> None:
        self.codes_by_feature = codes_by_feature
        self._order: NDArray[np.intp] | None = None
        self._codes: NDArray[np.intp] | None = None

    def get(self, order: NDArray[np.intp]) -> NDArray[np.intp]:
        if self._codes is None or order is not self._order:
            self._order, self._codes = order, np.ascontiguousarray(self.codes_by_feature[:, order])
        return self._codes


class ColumnCache:
    """Cache of candidate columns, dropped for a node when its parents change."""

    def __init__(self, state: NodeScores, limit: int = 50_000_000) -> None:
        self.state = state
        self.codes_in_order: _CodesInOrder | None = None
        self.cache: dict[tuple[int, tuple[int, ...]], LazyColumn] = {}
        self.single: dict[int, SingleParentColumns | None] = {}
        per_column = len(state.joint)  # one row index per sample
        self.capacity = max(0, limit // max(per_column, 1))

    def _codes_in_order(self) -> _CodesInOrder:
        if self.codes_in_order is None:
            self.codes_in_order = _CodesInOrder(self.state.codes_by_feature)
        return self.codes_in_order

    def candidates(self, node: int, parent_sets: list[tuple[int, ...]]) -> CandidateColumns:
        """The columns of ``node`` given each parent set: from one shared table when
        every set adds one parent to a parent-less node (read from the pair tables), or
        every set is a pair of parents for a parent-less node (counted together; the
        order search for k = 2); else one column per set, cached."""
        if not self.state.parents[node] and all(len(p) == 1 for p in parent_sets):
            if node not in self.single:
                self.single[node] = self.state.single_parent_columns(node)
            single = self.single[node]
            if single is not None:
                parents = [p[0] for p in parent_sets]
                return SingleParentCandidates(single, parents, self._codes_in_order())
        if not self.state.parents[node] and all(len(p) == 2 for p in parent_sets):
            pairs = [(p[0], p[1]) for p in parent_sets]
            return PairParentCandidates(
                self.state.pair_parent_columns(node, pairs), self._codes_in_order()
            )
        return StackedColumns([self.get(node, p) for p in parent_sets])

    def get(self, node: int, parents: tuple[int, ...]) -> LazyColumn:
        key = (node, tuple(parents))
        column = self.cache.get(key)
        if column is None:
            column = self.state.lookup(node, key[1])
            if len(self.cache) < self.capacity:
                self.cache[key] = column
        return column

    def forget(self, node: int) -> None:
        for key in [k for k in self.cache if k[0] == node]:
            del self.cache[key]
        self.single.pop(node, None)
