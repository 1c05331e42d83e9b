"""Scoring rows under hierarchical smoothing with nothing left out, every node of a
k-dependence model in one compiled pass (prediction's path).

:func:`~discotree.stats.hierarchical.leave_one_out_backoff_terms` with ``unit`` 0
computes every level's estimate of one node per call (a call, its arrays and one pass
per level for each node: most of the time of an ensemble's predict on a wide set goes
into that overhead). :class:`PackedBackoff` holds a model's tables in flat arrays once,
and :meth:`PackedBackoff.node_log_probabilities` runs
:func:`~discotree.kernels.backoff_scoring.backoff_node_probabilities` over any of its
nodes and all the rows at once: the same operations in the same order, so the same
numbers (tested against the per-node path to the bit, and to 1e-12 in any case).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from ..docstrings import fill_doc
from ..kernels.backoff_scoring import (
    backoff_node_probabilities,
    run_sums,
    tabulate_backoff_states,
    tabulated_log_likelihood,
)
from ..kernels.compiled_cache import at_hand
from ..kernels.hierarchical_terms import LINEAR_WEIGHT
from .family_tables import SparseFamilyTable

__all__ = [
    "CODES_BLOCK_BYTES",
    "DENSE_INDEX_FACTOR",
    "DENSE_INDEX_KEYS",
    "MAX_BLOCK_CELLS",
    "SUMMED_BLOCK_CELLS",
    "TABULATED_BUDGET",
    "TABULATED_CELLS",
    "PackedBackoff",
    "kernels_at_hand",
    "tabulation_cells",
]

#: A level's entries get a dense index (one position per key: no binary search) when
#: it has at most this many keys, or at most :data:`DENSE_INDEX_FACTOR` times its
#: entries. Off by default: with the first levels tabulated, the searches it saves
#: cost less than building it at a first prediction (measured on optdigits and letter).
DENSE_INDEX_KEYS = 0
#: See :data:`DENSE_INDEX_KEYS`.
DENSE_INDEX_FACTOR = 0

#: The largest table of a node's first levels (:meth:`PackedBackoff.tabulate`), and
#: of all a model's nodes together (numbers: 8 bytes each, 16 MiB a model at most; the
#: fully tabulated nodes' logarithms are taken as the other rows', not stored). On
#: digits' ensemble (10 members) 4 times the largest table of 1 << 14 and the same
#: memory as half the budget with the logarithms stored scored 1.5 times faster; on
#: optdigits' ensemble (one core, AMD EPYC) a budget of 1 << 21 instead of 1 << 20
#: halved the scoring (54 -> 27 ms; 23 ms with 1 << 22), fewer nodes searching a level.
TABULATED_CELLS = 1 << 16
#: See :data:`TABULATED_CELLS`.
TABULATED_BUDGET = 1 << 21

#: The largest block of terms (nodes x rows x classes) one call holds at once: the rows
#: are scored in blocks beyond.
MAX_BLOCK_CELLS = 1 << 22

#: The block of terms (nodes x rows x classes, 512 KiB) that :meth:`PackedBackoff.
#: log_likelihood` sums at a time when asked for a few nodes (a model's enumerated
#: copies of rows): fresh memory is slow to touch (page faults: 1-2 ms a MiB on a
#: virtual machine). All the nodes of a row are summed in blocks of
#: :data:`MAX_BLOCK_CELLS`: there the kernel copies the numbers of a row whose family
#: an earlier row of the block shares, which pays more (on letter's test rows, 88 ms
#: against 139 ms in blocks of this size).
SUMMED_BLOCK_CELLS = 1 << 16

#: The codes (rows x features, 1 MiB) of the rows :meth:`PackedBackoff.log_likelihood`
#: scores in one call: every node reads its parents' codes from each row of the call,
#: so they stay in the cache (binarised MNIST, a member's 331 nodes over 10,000 rows of
#: 784 codes, the terms held: 74 ms in blocks of 1,267 rows, 42 ms in blocks of 83;
#: summed as read, the block's codes taken by feature: 23, 18.5, 17 and 16 ms with
#: 256 KiB, 512 KiB, 1 MiB and 2 MiB of codes).
CODES_BLOCK_BYTES = 1 << 20


def kernels_at_hand() -> bool:
    """Whether the compiled functions that pack and score the tables
    (:func:`~discotree.kernels.backoff_scoring.tabulate_backoff_states`,
    :func:`~discotree.kernels.backoff_scoring.run_sums`,
    :func:`~discotree.kernels.backoff_scoring.backoff_node_probabilities`,
    :func:`~discotree.kernels.backoff_scoring.tabulated_log_likelihood`) load without
    compiling (:func:`~discotree.kernels.compiled_cache.at_hand`)."""
    return at_hand(
        tabulate_backoff_states, backoff_node_probabilities, run_sums, tabulated_log_likelihood
    )


def tabulation_cells(r_nodes: list[int], n_classes: int, parent_radices: list[list[int]]) -> int:
    """About the cells :meth:`PackedBackoff.tabulate` computes for nodes of ``r_nodes``
    values whose ranked parents have ``parent_radices`` categories (at most: every node
    taken as linear): each node's tables of its first levels while within
    :data:`TABULATED_CELLS`, all of them within :data:`TABULATED_BUDGET`.

    Examples
    --------
    >>> tabulation_cells([2, 3], 2, [[], [2, 2]])  # 4; then 6, 12 and 24
    46
    """
    total = 0
    for r, radices in zip(r_nodes, parent_radices, strict=True):
        cells = r * n_classes
        for depth in range(len(radices) + 1):
            if cells > TABULATED_CELLS:
                break
            total += cells
            if depth < len(radices):
                cells *= radices[depth]
    return min(total, TABULATED_BUDGET)


@fill_doc
@dataclass
class PackedBackoff:
    """The hierarchical tables of some nodes, flat and indexed for scoring (see
    :func:`~discotree.kernels.backoff_scoring.backoff_node_probabilities` for the
    layout).

    Examples
    --------
    {example_kdb_tables}
    >>> packed = PackedBackoff.from_tables(
    ...     [0, 1], [(), (0,)], tables, np.array([2, 2]), 1.0,
    ...     [np.array([1.0]), np.array([1.0, 1.0])], 2)
    >>> packed.node_log_probabilities(codes[:1], [1]).shape
    (1, 1, 2)
    """

    nodes: NDArray[np.int64]
    r_nodes: NDArray[np.int64]
    parent_start: NDArray[np.int64]
    parents: NDArray[np.int64]
    radices: NDArray[np.int64]
    value_bounds: NDArray[np.int64]
    value_keys: NDArray[np.int64]
    value_masses: NDArray[np.float64]
    value_index: NDArray[np.int64]
    value_index_at: NDArray[np.int64]
    total_bounds: NDArray[np.int64]
    total_keys: NDArray[np.int64]
    total_sums: NDArray[np.float64]
    total_index: NDArray[np.int64]
    total_index_at: NDArray[np.int64]
    root_totals: NDArray[np.float64]
    concentrations: NDArray[np.float64]
    exact_halving: NDArray[np.bool_]
    linear: NDArray[np.bool_]
    may_stop: NDArray[np.bool_]
    alpha: float
    n_classes: int
    state_at: NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    state_depth: NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    states: NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    _positions: dict[int, int] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        if len(self.state_at) != len(self.nodes):  # nothing tabulated
            self.state_at = np.full(len(self.nodes), -1, dtype=np.int64)
            self.state_depth = np.zeros(len(self.nodes), dtype=np.int64)

    def tabulate(self, max_cells: int, budget: int) -> None:
        """Tabulate each linear node's probabilities after its first levels, as many
        as keep its table within ``max_cells`` numbers (configurations of those
        levels' parents x values x classes) and all the tables within ``budget``
        (the nodes deepened a level at a time, in turn), computed by the same kernel
        on every configuration, each level's table from the one above
        (:func:`~discotree.kernels.backoff_scoring.tabulate_backoff_states`): a
        row then starts from its entry."""
        n_nodes = len(self.nodes)
        # (plain Python numbers: the loop below runs once per node and level)
        n_levels = (np.diff(self.parent_start) + 1).tolist()
        depths = [0] * n_nodes
        cells = np.where(self.linear, self.r_nodes * self.n_classes, max_cells + 1).tolist()
        radices, parent_start = self.radices.tolist(), self.parent_start.tolist()
        sizes: list[list[int]] = [[] for _ in range(n_nodes)]  # (each depth's table)
        held = 0  # (the cells of the deepest tables: those kept)
        deepened = True
        while deepened:
            deepened = False
            for t in range(n_nodes):
                if depths[t] < n_levels[t] and cells[t] <= max_cells:
                    now = sizes[t][-1] if sizes[t] else 0
                    if held - now + cells[t] > budget:
                        continue
                    held += cells[t] - now
                    sizes[t].append(cells[t])
                    depths[t] += 1
                    deepened = True
                    if depths[t] < n_levels[t]:
                        cells[t] *= radices[parent_start[t] + depths[t] - 1]
        levels = np.asarray(depths, dtype=np.int64)
        flat = [size for node_sizes in sizes for size in node_sizes]
        at = np.concatenate([[0], np.cumsum(flat)]).astype(np.int64)
        at_start = np.concatenate([[0], np.cumsum(levels)]).astype(np.int64)
        scratch = np.empty(int(at[-1]))
        tabulate_backoff_states(levels, self._tables(), self.n_classes, at, at_start, scratch)
        finals = [
            scratch[at[at_start[t + 1] - 1] : at[at_start[t + 1]]] if levels[t] else np.zeros(0)
            for t in range(n_nodes)
        ]
        # (a node tabulated to its deepest level: its logarithms, taken by numpy as the
        # per-node path takes them, so that its rows read them as they are)
        finals = [
            np.log(final) if depths[t] == n_levels[t] else final for t, final in enumerate(finals)
        ]
        lengths = [len(final) for final in finals]
        self.state_at = np.where(
            levels > 0, np.concatenate([[0], np.cumsum(lengths)[:-1]]), -1
        ).astype(np.int64)
        self.state_depth = levels
        self.states = np.concatenate([np.zeros(0), *finals])

    def _fully_tabulated(self) -> NDArray[np.bool_]:
        """Which nodes are tabulated to their deepest level (their states are their
        logarithms)."""
        return (self.state_at >= 0) & (self.state_depth == np.diff(self.parent_start) + 1)

    def _tables(self) -> tuple:
        """The tables as the kernels read them."""
        return (
            self.r_nodes,
            self.parent_start,
            self.radices,
            self.value_bounds,
            self.value_keys,
            self.value_masses,
            self.value_index,
            self.value_index_at,
            self.total_bounds,
            self.total_keys,
            self.total_sums,
            self.total_index,
            self.total_index_at,
            self.root_totals,
            self.concentrations,
            self.exact_halving,
            self.linear,
            self.may_stop,
            self.alpha,
        )

    def position(self, node: int) -> int | None:
        """Where ``node`` is among the packed nodes (None: not packed)."""
        if len(self._positions) != len(self.nodes):  # (first asked: a dict of them)
            self._positions = {int(v): t for t, v in reversed(list(enumerate(self.nodes)))}
        return self._positions.get(int(node))

    @classmethod
    def from_tables(
        cls,
        nodes: list[int],
        parents: list[tuple[int, ...]],
        tables: list[list[SparseFamilyTable]],
        n_categories: NDArray[np.intp],
        alpha: float,
        concentrations: list[NDArray[np.float64]],
        n_classes: int,
    ) -> PackedBackoff:
        """Pack ``nodes`` (their ranked ``parents[node]``, the tables of every prefix
        ``tables[node]`` and the concentrations ``concentrations[node]``)."""
        n_categories = np.asarray(n_categories, dtype=np.int64)
        starts, flat_parents, used = [0], list[int](), list[SparseFamilyTable]()
        chosen, linear = list[NDArray[np.float64]](), list[bool]()
        level_r, root_levels = list[int](), list[int]()
        for node in nodes:
            ranked = tuple(int(p) for p in parents[node])
            tables_used = tables[node][: len(ranked) + 1]
            root_levels.append(len(used))
            used.extend(tables_used)
            flat_parents.extend(ranked)
            starts.append(len(flat_parents))
            level_r.extend([int(n_categories[node])] * len(tables_used))
            # (the per-node path's test, on the same concatenation)
            masses = np.concatenate([np.asarray(t.masses, dtype=np.float64) for t in tables_used])
            linear.append(bool(masses.sum() <= LINEAR_WEIGHT))
            chosen.append(np.asarray(concentrations[node][: len(ranked) + 1], dtype=np.float64))
        sizes = [len(table.cells) for table in used]
        bounds = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        cells = np.concatenate([np.zeros(0, dtype=np.int64)] + [t.cells for t in used])
        cells = cells.astype(np.int64)
        masses = np.concatenate([np.zeros(0)] + [t.masses for t in used]).astype(np.float64)
        level = np.repeat(np.arange(len(used)), sizes)
        r = np.repeat(np.asarray(level_r, dtype=np.int64), sizes)
        # each cell (configuration, class, value) as (configuration, value, class)
        configuration, rest = np.divmod(cells, n_classes * r)
        klass, value = np.divmod(rest, r)
        value_keys = (configuration * r + value) * n_classes + klass
        order = _level_order(value_keys, level, len(used))
        total_keys, total_sums = np.zeros(len(cells), dtype=np.int64), np.zeros(len(cells))
        total_bounds = np.zeros(len(used) + 1, dtype=np.int64)
        run_sums(
            cells,
            masses,
            bounds,
            np.asarray(level_r, dtype=np.int64),
            total_keys,
            total_sums,
            total_bounds,
        )
        # each level's whole weight, added in order (one run a level, none if empty)
        level_sums, level_runs = np.zeros(len(used)), np.zeros(len(used) + 1, dtype=np.int64)
        run_sums(
            cells,
            masses,
            bounds,
            np.full(len(used), 1 << 62, dtype=np.int64),
            np.zeros(len(used), dtype=np.int64),
            level_sums,
            level_runs,
        )
        roots = np.asarray(root_levels, dtype=np.intp)
        root_totals = (
            np.where(
                np.diff(level_runs)[roots] > 0,
                level_sums[np.minimum(level_runs[roots], len(used) - 1)],
                0.0,
            )
            if len(used)
            else np.zeros(0)
        )
        value_keys = np.ascontiguousarray(value_keys[order])
        total_keys = total_keys[: total_bounds[-1]].copy()
        width = np.asarray(level_r, dtype=np.int64)  # (a configuration's values)
        configurations: list[float] = [
            float(q)
            for node in nodes
            for q in np.cumprod([1.0, *n_categories[list(parents[node])].astype(np.float64)])
        ]
        value_index, value_index_at = _dense_index(
            value_keys,
            bounds,
            [q * int(w) for q, w in zip(configurations, width, strict=True)],
            n_classes,
        )
        total_index, total_index_at = _dense_index(
            total_keys, total_bounds, configurations, n_classes
        )
        halving = np.concatenate([np.zeros(0), *chosen])
        mantissa, _ = np.frexp(halving)
        exact_halving = (mantissa == 0.5) & (halving > 0)
        nested = _nested_nodes(
            total_keys,
            total_bounds,
            np.asarray(starts, dtype=np.int64),
            n_categories[np.asarray(flat_parents, dtype=np.intp)],
            np.asarray(configurations, dtype=np.float64),
            n_classes=n_classes,
        )
        may_stop = [
            linear[t] and bool(exact_halving[starts[t] + t : starts[t + 1] + t + 1].all())
            for t in range(len(nodes))
        ] & nested
        packed = cls(
            nodes=np.asarray(nodes, dtype=np.int64),
            r_nodes=n_categories[np.asarray(nodes, dtype=np.intp)],
            parent_start=np.asarray(starts, dtype=np.int64),
            parents=np.asarray(flat_parents, dtype=np.int64),
            radices=n_categories[np.asarray(flat_parents, dtype=np.intp)],
            value_bounds=bounds,
            value_keys=value_keys,
            value_masses=np.ascontiguousarray(masses[order]),
            value_index=value_index,
            value_index_at=value_index_at,
            total_bounds=total_bounds,
            total_keys=total_keys,
            total_sums=total_sums[: total_bounds[-1]].copy(),
            total_index=total_index,
            total_index_at=total_index_at,
            root_totals=np.asarray(root_totals, dtype=np.float64),
            concentrations=halving,
            exact_halving=exact_halving,
            linear=np.asarray(linear, dtype=np.bool_),
            may_stop=np.asarray(may_stop, dtype=np.bool_),
            alpha=float(alpha),
            n_classes=int(n_classes),
        )
        packed.tabulate(TABULATED_CELLS, TABULATED_BUDGET)
        return packed

    def node_log_probabilities(
        self, codes: NDArray[np.integer], which: list[int] | NDArray[np.intp]
    ) -> NDArray[np.float64]:
        """``log P(x_node | c, pa)`` of the packed nodes ``which`` (positions in
        ``nodes``), shape (len(which), n_rows, n_classes); 0 where the node is missing,
        a missing parent backed off to the observed prefix."""
        codes = np.ascontiguousarray(codes, dtype=np.int64)
        which = np.asarray(which, dtype=np.int64)
        out = np.empty((len(which), len(codes), self.n_classes))
        block = max(1, MAX_BLOCK_CELLS // max(1, len(which) * self.n_classes))
        for start in range(0, len(codes), block):
            self._score(codes, which, start, out[:, start : start + block])
        return out

    def log_likelihood(
        self, codes: NDArray[np.integer], which: list[int] | NDArray[np.intp] | None = None
    ) -> NDArray[np.float64]:
        """The sum of the packed nodes' ``which`` (positions in ``nodes``; all of them by
        default) ``log P(x_node | c, pa)``, added in that order to 0 (rows x classes),
        in blocks of :data:`MAX_BLOCK_CELLS` terms for all the nodes, else of
        :data:`SUMMED_BLOCK_CELLS`, and of :data:`CODES_BLOCK_BYTES` of codes. Where
        every node is tabulated to its deepest level, a block's logarithms are added
        as they are read
        (:func:`~discotree.kernels.backoff_scoring.tabulated_log_likelihood`: the same
        sums, without holding the terms), unless one of its rows misses a parent."""
        codes = np.ascontiguousarray(codes, dtype=np.int64)
        if which is None:
            which = np.arange(len(self.nodes), dtype=np.int64)
        which = np.asarray(which, dtype=np.int64)
        total = np.zeros((len(codes), self.n_classes))
        if len(which) == 0 or len(codes) == 0:
            return total
        per_row = len(which) * self.n_classes
        cells = MAX_BLOCK_CELLS if len(which) == len(self.nodes) else SUMMED_BLOCK_CELLS
        # (and as many rows as keep their codes within CODES_BLOCK_BYTES: each node
        # reads its parents' codes from every row of the block)
        by_codes = CODES_BLOCK_BYTES // max(1, codes.shape[1] * codes.itemsize)
        block = min(len(codes), max(1, cells // per_row), max(1, by_codes))
        # (nodes whose states are their logarithms: added in turn without holding the
        # terms, unless a row's parents are not in the states)
        tabulated = len(self.state_at) == len(self.nodes) and bool(
            np.all(self._fully_tabulated()[which])
        )
        held: NDArray[np.float64] | None = None  # (each block's terms, contiguous, in turn)
        for start in range(0, len(codes), block):
            stop = min(len(codes), start + block)
            if tabulated and tabulated_log_likelihood(  # (the block's codes by feature)
                np.ascontiguousarray(codes[start:stop].T), which, self.nodes, self.parents,
                self.parent_start, self.radices, self.r_nodes, self.state_at, self.states,
                total[start:stop],
            ):  # fmt: skip
                continue
            total[start:stop] = 0.0  # (the terms one after the other instead)
            if held is None:
                held = np.empty(block * per_row)
            terms = held[: (stop - start) * per_row].reshape(len(which), stop - start, -1)
            self._score(codes, which, start, terms)
            # (numpy adds the terms one after the other along the first axis: the same
            # sums as adding each in turn to 0; not so with one number per node, which
            # it sums pairwise: then in turn here)
            if terms.shape[1] * terms.shape[2] > 1:
                total[start:stop] += np.add.reduce(terms, axis=0)
            else:
                part = total[start:stop]
                for term in terms:
                    part += term
        return total

    def _score(
        self,
        codes: NDArray[np.integer],
        which: NDArray[np.int64],
        start: int,
        out: NDArray[np.float64],
    ) -> None:
        """Fill ``out`` with the logarithms of the rows from ``start`` on (the linear
        nodes' probabilities taken to logarithms by numpy, as the per-node path does)."""
        if out.size == 0:
            return
        buffer = out if out.flags.c_contiguous else np.empty(out.shape)
        raw = self._run(codes, np.asarray(which, dtype=np.int64), start, buffer)
        if raw.all():
            np.log(buffer, out=buffer)
        elif raw.any():  # (every node's such rows at once)
            buffer[raw] = np.log(buffer[raw])
        if buffer is not out:
            out[...] = buffer

    def _run(
        self,
        codes: NDArray[np.integer],
        which: NDArray[np.int64],
        start: int,
        out: NDArray[np.float64],
    ) -> NDArray[np.bool_]:
        """The kernel into ``out``; returns which (node, row) of ``out`` hold linear
        probabilities, not yet logarithms."""
        raw = np.empty(out.shape[:2], dtype=np.bool_)
        backoff_node_probabilities(
            codes,
            which,
            self.nodes,
            self.parents,
            self._tables(),
            self.state_at,
            self.state_depth,
            self.states,
            start,
            out,
            raw,
        )
        return raw


def _level_order(
    keys: NDArray[np.int64], level: NDArray[np.intp], n_levels: int
) -> NDArray[np.intp]:
    """``np.lexsort((keys, level))`` (keys not negative) by one stable sort of the keys
    shifted past the levels before (the same permutation, ties included; a few times
    faster), where the shifted keys fit in 62 bits."""
    largest = np.full(n_levels, -1, dtype=np.int64)
    np.maximum.at(largest, level, keys)
    spans = largest + 1
    if len(keys) == 0 or float(spans.astype(np.float64).sum()) >= 2.0**62:
        return np.lexsort((keys, level))
    shift = np.concatenate([[0], np.cumsum(spans)[:-1]]).astype(np.int64)
    return np.argsort(keys + shift[level], kind="stable")


def _dense_index(
    keys: NDArray[np.int64], bounds: NDArray[np.int64], n_keys: list[float], width: int
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """For each level ``g`` small enough (``n_keys[g]`` keys, its entries
    ``keys[bounds[g]:bounds[g + 1]]`` sorted ids ``key * width + class``), the first
    entry of every key and the level's end (``n_keys[g] + 1`` positions), concatenated;
    and where each level's starts (a level without an index: none). All the levels'
    in one search: each level's ids shifted past the levels before."""
    sizes = np.diff(bounds)
    n = np.asarray(n_keys, dtype=np.float64)
    level = np.repeat(np.arange(len(sizes)), sizes)
    largest = np.full(len(sizes), -1, dtype=np.int64)
    np.maximum.at(largest, level, keys)
    chosen = (n <= np.maximum(DENSE_INDEX_KEYS, DENSE_INDEX_FACTOR * sizes)) & (
        largest < n * width  # (every id within the index)
    )
    if not chosen.any():
        return np.zeros(0, dtype=np.int64), np.zeros(len(sizes) + 1, dtype=np.int64)
    counts = np.where(chosen, n + 1, 0).astype(np.int64)
    span = np.where(chosen, n * width, 0).astype(np.int64)
    shift = np.concatenate([[0], np.cumsum(span)[:-1]])
    shifted = keys[chosen[level]] + shift[level[chosen[level]]]
    before = np.concatenate([[0], np.cumsum(np.where(chosen, sizes, 0))[:-1]])
    owner = np.repeat(np.arange(len(sizes)), counts)
    at = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    queries = shift[owner] + (np.arange(at[-1]) - at[:-1][owner]) * width
    found = np.searchsorted(shifted, queries)
    index = (bounds[:-1][owner] - before[owner] + found).astype(np.int64)
    return index, at


def _nested_nodes(
    total_keys: NDArray[np.int64],
    total_bounds: NDArray[np.int64],
    parent_start: NDArray[np.int64],
    radices: NDArray[np.int64],
    configurations: NDArray[np.float64],
    *,
    n_classes: int,
) -> NDArray[np.bool_]:
    """Per node, whether every configuration present at one of its levels has its
    prefix present at the level above (as counting the same rows gives): all the
    levels at once, each level's configurations shifted past the levels before."""
    n_nodes = len(parent_start) - 1
    if n_nodes == 0:
        return np.zeros(0, dtype=np.bool_)
    if configurations.sum() >= 2.0**62:  # (no room to shift: not checked)
        return np.zeros(n_nodes, dtype=np.bool_)
    sizes = np.diff(total_bounds)
    level = np.repeat(np.arange(len(sizes)), sizes)
    shift = np.concatenate([[0], np.cumsum(configurations.astype(np.int64))[:-1]])
    present = total_keys // n_classes + shift[level]
    node_of_level = np.repeat(np.arange(n_nodes), np.diff(parent_start) + 1)
    depth_of_level = np.arange(len(sizes)) - (parent_start[:-1] + np.arange(n_nodes))[node_of_level]
    radix_of_level = np.ones(len(sizes), dtype=np.int64)
    deeper = depth_of_level > 0
    radix_of_level[deeper] = radices[
        (parent_start[:-1][node_of_level] + depth_of_level - 1)[deeper]
    ]
    asked = deeper[level]
    queries = (total_keys[asked] // n_classes) // radix_of_level[level[asked]] + shift[
        level[asked] - 1
    ]
    found = np.minimum(np.searchsorted(present, queries), max(len(present) - 1, 0))
    missing = (
        np.ones(len(queries), dtype=np.bool_) if len(present) == 0 else present[found] != queries
    )
    failed = np.bincount(node_of_level[level[asked]][missing], minlength=n_nodes)
    return failed == 0
