"""k-dependence Bayesian network classifiers with sparse family tables (kDB, Sahami
1996; the nested models of selective kDB, Martinez, Webb, Chen & Zaidi 2016, JMLR
17(44)).

The class is a parent of every attribute; attribute j, when used, also has the first
``k`` of its ranked parents. ``log P(x | c) = sum_j log P(x_j | c, pa_j)`` over the used
attributes, each factor from a :class:`~discotree.stats.family_tables.SparseFamilyTable`
(a parent configuration never observed gives the uniform distribution, as a dense
smoothed table would).

With ``concentrations`` (per node, one per level), each factor is the hierarchical
estimate of :mod:`discotree.stats.hierarchical` instead: it backs off along the prefixes
of the ranked parents, down to the class level and the node's marginal. With ``hdp``,
the tables hold the HDP estimates of :mod:`discotree.stats.hdp` (each context's
distribution); a context absent from a level takes its deepest present prefix's.

Missing values at predict time are summed out **exactly** where the network's dense
tables would hold at most ``MAX_DENSE_CELLS`` numbers (the models whose sum it is: the
same condition for every path below). A row whose missing parents (barren ones left
out, below) have at most ``MAX_ENUMERATED_VALUES`` joint values is enumerated: a copy
of the row for each joint value, all the copies of all such rows scored in one call,
each row the sum of its copies
(:func:`~discotree.models.enumeration.enumerated_log_likelihood`). Beyond, the row is
summed out by variable elimination over the dense tables
(:meth:`KDependenceModel.dense_table`, in the order of
:meth:`~discotree.models.bayes_net.BayesNetModel.elimination_order`, cached per pattern
of missing attributes) where the greedy min-degree order forms no factor above
``MAX_ELIMINATION_CELLS`` (classes x configurations: the guard, checked on the structure
before any dense table is built; the order used is never worse). A missing attribute
no one uses as a parent is summed out exactly in any case (its factor is 1). Where
neither is affordable, a missing parent is **backed off**: the attribute's factor uses
the longest observed prefix of its ranked parents (the table of that prefix, counted on
the rows where it is observed) — a stated rule, not the exact marginal. The paths are
tested (against brute force, against each other, and against pyAgrum's exact inference
on the exported network). Missing attributes none of whose descendants in use is
observed (barren) are left out of the sums (their values sum to 1 over their factors;
the same marginal up to rounding).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .. import missing_values
from ..docstrings import fill_doc
from ..kernels.counts import configuration_ids
from ..stats.backoff_prediction import PackedBackoff, tabulation_cells
from ..stats.backoff_prediction import kernels_at_hand as backoff_kernels_at_hand
from ..stats.family_tables import (
    SparseFamilyTable,
    observed_prefix_lengths,
    packed_tables,
    unpacked_tables,
)
from ..stats.hierarchical import leave_one_out_backoff_terms, level_counts
from ..stored_checks import check_counts, fail, numbers
from ..stored_classes import stored
from .bayes_net import BayesNetModel, rows_by_pattern
from .elimination_order import elimination_order
from .elimination_plan import (
    EliminationPlan,
    FlatTables,
    elimination_plan,
    kernels_at_hand,
    load_kernels,
)
from .enumeration import enumerated_log_likelihood, joint_values
from .file_checks import StoredModel, check_features
from .protocol import DeclaredSizes, JointScoring

__all__ = [
    "MAX_CACHED_PATTERNS",
    "MAX_DENSE_CELLS",
    "MAX_ELIMINATION_CELLS",
    "MAX_ENUMERATED_VALUES",
    "PACKED_CELLS_PER_NODE",
    "PACKING_CELLS_PER_NODE",
    "PREPARED_DENSE_CELLS",
    "PREPARED_PATTERNS",
    "TABULATED_CELLS_PER_CELL",
    "KDependenceModel",
]

#: Largest number of cells of all the dense tables together that exact marginalisation
#: builds (beyond: the back-off rule).
MAX_DENSE_CELLS = 10_000_000
#: Largest number of cells of the dense tables that
#: :meth:`KDependenceModel.prepare_prediction` builds ahead, for the eliminations of
#: rows with many missing parents (beyond, they are built when a prediction needs them,
#: up to :data:`MAX_DENSE_CELLS`): three copies of 8 MiB a model at most (the dense
#: model's log tables, their flat copy, and its exponentials).
PREPARED_DENSE_CELLS = 1 << 20
#: Largest factor (classes x configurations) one row's variable elimination may form.
MAX_ELIMINATION_CELLS = 1 << 22
#: How many sets of missing attributes a model keeps the elimination's sizes and orders
#: of (outside its pickled state); beyond, the caches start again empty, so a long
#: stream of rows with ever new patterns holds bounded memory.
MAX_CACHED_PATTERNS = 4096
#: How many of its training rows' sets of missing attributes a fitted model builds the
#: elimination programs of (:meth:`KDependenceModel.prepare_prediction`; the most
#: frequent first), well below :data:`MAX_CACHED_PATTERNS`.
PREPARED_PATTERNS = 64
#: When a prediction packs the model's tables for the compiled pass over all the nodes
#: (:class:`~discotree.stats.backoff_prediction.PackedBackoff`, kept for the next
#: calls): once scoring node by node what has been asked for (this call and the earlier
#: ones) would have cost more than packing, counted in cells of the tables packed. The
#: rows cost about the same either way (the packed pass reads each row's levels as the
#: per-node pass does, and both take a repeated row's numbers once); what packing saves
#: is each node's call, about as much as packing ``PACKED_CELLS_PER_NODE`` cells, and
#: one more for each of its parents missing in some row (a pass per observed prefix).
#: Packing costs its tables' cells, ``PACKING_CELLS_PER_NODE`` more per node, and the
#: cells of the first levels it tabulates, ``TABULATED_CELLS_PER_CELL`` each. Measured
#: on the ensemble's members, one core (AMD EPYC): packing 0.06 µs a cell and 25 µs a
#: node, tabulating 0.004 µs a cell, a node's call 45 µs plus 0.15 µs a row, the packed
#: pass 0.155 µs a row. A first prediction of a test set packs small tables (vote,
#: hepatitis, soybean) and not the large ones of numeric sets (sonar, optdigits: there
#: the second to fifth call packs). Until then the nodes are scored one by one (the
#: same numbers to the bit).
PACKED_CELLS_PER_NODE = 800
#: See :data:`PACKED_CELLS_PER_NODE`.
PACKING_CELLS_PER_NODE = 400
#: See :data:`PACKED_CELLS_PER_NODE`.
TABULATED_CELLS_PER_CELL = 1 / 16
#: Largest number of joint values of a row's missing parents (barren ones left out)
#: that are enumerated (every value a copy of the row, all scored in one call:
#: :func:`~discotree.models.enumeration.enumerated_log_likelihood`) rather than
#: eliminated over the dense tables: beyond, the enumeration costs more than building
#: the tables once (on soybean's rows with many missing parents it reached hundreds of
#: thousands of values a row).
MAX_ENUMERATED_VALUES = 256
#: Copies of rows (a row times the joint values of its missing parents) scored at once.
ENUMERATED_BLOCK_ROWS = 1 << 16


@dataclass(frozen=True)
class _NetworkShape:
    """A k-dependence network's structure as prediction reads it: the attributes that
    are some attribute's parent (``parents``, sorted, and as the mask ``is_parent``),
    the attributes in use (the mask ``used``), each parent's children in use
    (``children``), :meth:`KDependenceModel.dense_cells` and the cells of the sparse
    tables in use (``table_cells``), and what packing them costs, in cells
    (``packing_cells``: :data:`PACKED_CELLS_PER_NODE`), and the attributes in use
    parents first (``order``)."""

    parents: NDArray[np.intp]
    is_parent: NDArray[np.bool_]
    used: NDArray[np.bool_]
    children: dict[int, list[int]]
    dense_cells: int
    table_cells: int
    packing_cells: int
    order: list[int]


def _parents_first(attributes: list[int], parents: list[tuple[int, ...]]) -> list[int]:
    """``attributes`` in an order where each one's parents in use come before it."""
    used, placed, order = set(attributes), set[int](), list[int]()
    pending = list(attributes)
    while pending:
        waiting = []
        for v in pending:
            if all(p in placed or p not in used for p in parents[v]):
                order.append(v)
                placed.add(v)
            else:
                waiting.append(v)
        if len(waiting) == len(pending):  # (a cycle: not a network; kept as listed)
            return order + waiting
        pending = waiting
    return order


# ------------------------------------------------ checks of a loaded model
def _check_k_dependence(model: Any, where: str) -> int:
    """A k-dependence model's structure, tables and smoothing against its categories."""
    counts = check_counts(model.n_categories, f"{where}.n_categories")
    n = len(counts)
    if len(model.parents) != n or len(model.tables) != n:
        raise fail(where, f"{n} features but {len(model.parents)} parent sets and "
                    f"{len(model.tables)} table lists")  # fmt: skip
    used = list(model.attributes)
    if any(not isinstance(j, int) or not 0 <= j < n for j in used) or len(set(used)) < len(used):
        raise fail(f"{where}.attributes", "must name distinct features")
    n_classes = None
    for j, (parents, tables) in enumerate(zip(model.parents, model.tables, strict=True)):
        check_features(parents, n, j, f"{where}.parents[{j}]")
        if len(tables) < len(parents) + 1:
            raise fail(f"{where}.tables[{j}]", f"needs a table for each of the "
                        f"{len(parents) + 1} prefixes of its parents")  # fmt: skip
        for length, table in enumerate(tables):
            label = f"{where}.tables[{j}][{length}]"
            check_features(table.parents, n, j, f"{label}.parents")
            shared = min(length, len(parents))
            prefix = tuple(table.parents[:shared]) == tuple(parents[:shared])
            if table.node != j or len(table.parents) != length or not prefix:
                raise fail(label, "is not the table of this feature under that prefix")
            if table.r_node != int(counts[j]):
                raise fail(label, f"has {table.r_node} values, the feature {int(counts[j])}")
            n_classes = table.n_classes if n_classes is None else n_classes
            if table.n_classes != n_classes:
                raise fail(label, "has another number of classes")
            cells = int(np.prod([int(counts[p]) for p in table.parents])) * n_classes
            if len(table.cells) and int(table.cells[-1]) >= cells * table.r_node:
                raise fail(label, "holds a cell outside the family")
    if not (np.isfinite(model.alpha) and model.alpha >= 0 and 0 <= model.epsilon < 1):
        raise fail(where, "needs alpha >= 0 and 0 <= epsilon < 1")
    if model.concentrations is not None:
        for j, (b, parents) in enumerate(zip(model.concentrations, model.parents, strict=True)):
            b = np.asarray(b)
            if b.shape != (len(parents) + 1,) or not (np.isfinite(b) & (b > 0)).all():
                raise fail(f"{where}.concentrations[{j}]",
                            f"needs {len(parents) + 1} positive concentrations")  # fmt: skip
    return int(n_classes or 0)


def _k_dependence(model: KDependenceModel, where: str) -> None:
    """Smoothing that keeps every probability positive and finite (its tables are
    checked as objects of their own)."""
    alpha = numbers(model.alpha, f"{where}.alpha", low=0.0)
    epsilon = numbers(model.epsilon, f"{where}.epsilon", low=0.0, high=1.0)
    if not (alpha > 0 or epsilon > 0):
        raise fail(f"{where}.alpha", "alpha = epsilon = 0 gives zero probabilities")
    for j, b in enumerate(model.concentrations or []):
        numbers(b, f"{where}.concentrations[{j}]", low=0.0, above=True)


@fill_doc
@stored
@dataclass
class KDependenceModel(JointScoring, StoredModel):
    """A fitted k-dependence classifier.

    Parameters
    ----------
    n_categories : ndarray of shape (n_features,)
    attributes : list of int
        The attributes used, in the order they were ranked (the others are ignored).
    parents : list of tuple of int
        Per feature, its ranked parents in use (at most ``k``).
    tables : list of list of SparseFamilyTable
        Per feature, the tables under each prefix of its ranked parents (lengths 0 up
        to at least ``len(parents[j])``).
    alpha, epsilon : float
        The smoothing of every table (hierarchical smoothing: ``alpha`` smooths the
        nodes' marginals).
    concentrations : list of ndarray or None
        Hierarchical smoothing: per node, the concentration of each level 0..k of its
        parents in use; None: ``alpha`` per cell of each table (Dirichlet).
    hdp : bool
        The tables of the nodes in use hold HDP estimates (probabilities, every value
        of each context present), not counts.

    Examples
    --------
    {example_kdb_model}
    >>> np.exp(model.log_likelihood(np.array([[1, 1]]))).round(3)
    array([[0.125, 0.562]])
    """

    n_categories: NDArray[np.intp]
    attributes: list[int]
    parents: list[tuple[int, ...]]
    tables: list[list[SparseFamilyTable]]
    alpha: float
    epsilon: float
    concentrations: list[NDArray[np.float64]] | None = None
    hdp: bool = False

    _FILE_CHECKS = (_check_k_dependence, _k_dependence)

    @property
    def n_classes(self) -> int:
        return int(self.tables[0][0].n_classes)

    def declared_sizes(self) -> DeclaredSizes:
        """Its classes (its tables') and the categories it reads."""
        return self.n_classes, self.n_categories

    @property
    def n_features(self) -> int:
        return len(self.n_categories)

    def node_log_probability(self, node: int, codes: NDArray[np.integer]) -> NDArray[np.float64]:
        """``log P(x_node | c, pa)`` of every row and class (0 where x_node is missing;
        a missing parent backed off to the observed prefix): under hierarchical
        smoothing, for a node in use, one compiled pass
        (:class:`~discotree.stats.backoff_prediction.PackedBackoff`); else, and as its
        reference, :meth:`reference_node_log_probability`."""
        return self._node_log_probability(node, codes, counted=True)

    def _node_log_probability(
        self, node: int, codes: NDArray[np.integer], *, counted: bool
    ) -> NDArray[np.float64]:
        # (counted: this call counts towards packing; not again for each node of a call)
        packed = self._packed(codes, 1 if counted else 0)
        position = None if packed is None else packed.position(node)
        if packed is not None and position is not None:
            return packed.node_log_probabilities(codes, [position])[0]
        return self.reference_node_log_probability(node, codes)

    def node_log_probabilities(
        self, nodes: list[int], codes: NDArray[np.integer]
    ) -> list[NDArray[np.float64]]:
        """:meth:`node_log_probability` of each of ``nodes`` (the same numbers): the packed
        ones in one compiled call over all of them."""
        return self._node_terms(nodes, codes, self._packed(codes, len(nodes)))

    def _node_terms(
        self, nodes: list[int], codes: NDArray[np.integer], packed: PackedBackoff | None
    ) -> list[NDArray[np.float64]]:
        """:meth:`node_log_probabilities` with the packed tables given (None: none)."""
        if packed is None:
            return [self._node_log_probability(node, codes, counted=False) for node in nodes]
        positions = [packed.position(node) for node in nodes]
        known = [(s, position) for s, position in enumerate(positions) if position is not None]
        out: list[NDArray[np.float64] | None] = [None] * len(nodes)
        if known:
            terms = packed.node_log_probabilities(codes, [position for _, position in known])
            for (s, _), term in zip(known, terms, strict=True):
                out[s] = term
        return [
            self.reference_node_log_probability(node, codes) if term is None else term
            for node, term in zip(nodes, out, strict=True)
        ]

    def reference_node_log_probability(
        self, node: int, codes: NDArray[np.integer]
    ) -> NDArray[np.float64]:
        """:meth:`node_log_probability` one level at a time (the hierarchical back-off
        through :func:`~discotree.stats.hierarchical.leave_one_out_backoff_terms`, with
        nothing left out): the reference of the packed pass."""
        ranked = self.parents[node]
        if self.hdp:
            levels = level_counts(self.tables[node], codes, ranked, self.n_categories, len(ranked))
            p = np.full(levels.counts[0].shape, 1.0 / int(self.n_categories[node]))
            for counts, totals in zip(levels.counts, levels.totals, strict=True):
                seen = totals > 0
                p = np.where(seen, counts / np.where(seen, totals, 1.0), p)
            with np.errstate(divide="ignore"):
                return np.where(levels.counted[0][:, None], np.log(p), 0.0)
        if self.concentrations is not None:  # (the compiled back-off, nothing left out)
            nothing = np.zeros(len(codes))
            terms, _ = leave_one_out_backoff_terms(
                self.tables[node],
                codes,
                tuple(ranked),
                self.n_categories,
                np.zeros(len(codes), dtype=np.intp),
                unit=nothing,
                alpha=self.alpha,
                concentrations=np.asarray(
                    self.concentrations[node][: len(ranked) + 1], dtype=np.float64
                ),
            )
            return terms[len(ranked)]
        out = np.zeros((len(codes), self.n_classes))
        values = codes[:, node]
        usable = observed_prefix_lengths(codes, ranked)
        for length in range(len(ranked) + 1):
            rows = np.flatnonzero(missing_values.observed(values) & (usable == length))
            if len(rows) == 0:
                continue
            ids, _ = configuration_ids(codes[rows], ranked[:length], self.n_categories)
            table = self.tables[node][length]
            out[rows] = table.log_probability(ids, values[rows], self.alpha, self.epsilon)
        return out

    def log_likelihood(
        self, codes: NDArray[np.integer], missing_rows: NDArray[np.intp] | None = None
    ) -> NDArray[np.float64]:
        """``log P(x | c)`` of every row and class (the class prior excluded), missing
        values summed out exactly where affordable (see the module notes).
        ``missing_rows``, when given, holds (ascending) every row of ``codes`` that
        misses a value (a caller that scores the same rows with many models finds them
        once)."""
        codes = np.asarray(codes)
        shape = self._shape()
        if missing_rows is None:
            rows = np.flatnonzero(~missing_values.complete_rows(codes, shape.parents))
        else:
            missing_rows = np.asarray(missing_rows, dtype=np.intp)
            within = ~missing_values.complete_rows(codes[missing_rows], shape.parents)
            rows = missing_rows[within]
        if len(rows) == 0 or shape.dense_cells > MAX_DENSE_CELLS:
            return self._backed_off(codes)  # (no exact marginal: the back-off rule)
        out = np.empty((len(codes), self.n_classes))
        exact_rows = np.zeros(len(codes), dtype=bool)  # (those summed out: no back-off)
        summed = self._summed_parents(codes[rows])
        values = joint_values(summed, self.n_categories)
        enumerated = summed.any(axis=1) & (values <= MAX_ENUMERATED_VALUES)
        if enumerated.any():  # every such row's copies scored at once
            these = rows[enumerated]
            # (only the families holding a summed attribute differ between a row's
            # copies: the others' terms, the same in every copy, stay out of the sum)
            held = np.flatnonzero(summed[enumerated].any(axis=0)).tolist()
            affected = sorted({*held, *(k for v in held for k in shape.children.get(v, ()))})
            others = sorted(set(self.attributes) - set(affected))
            out[these] = self._terms_sum(others, codes[these]) + enumerated_log_likelihood(
                lambda copies: self._terms_sum(affected, copies),
                codes[these],
                summed[enumerated],
                self.n_categories,
                ENUMERATED_BLOCK_ROWS,
            )
            exact_rows[these] = True
        rows = self._eliminated_rows(codes, rows, summed, enumerated)
        # the rows missing the same attributes in use share the elimination: at once
        for group in rows_by_pattern(missing_values.is_missing(codes[rows][:, shape.used])):
            these = rows[group]
            exact = self._exact(codes[these])
            if exact is not None:
                out[these] = exact
                exact_rows[these] = True
        # the other rows by the back-off rule (a row's numbers are its own, whatever
        # the rows scored with it)
        backed_off = np.flatnonzero(~exact_rows)
        if len(backed_off):
            out[backed_off] = self._backed_off(codes[backed_off])
        return out

    def _eliminated_rows(
        self,
        codes: NDArray[np.integer],
        rows: NDArray[np.intp],
        summed: NDArray[np.bool_],
        enumerated: NDArray[np.bool_],
    ) -> NDArray[np.intp]:
        """Which of ``rows`` (those missing a parent) variable elimination sums out:
        those with a parent to sum, not enumerated, and missing no parent that is no
        attribute (as a hand-built or loaded model may hold: it has no factor to sum,
        so its rows keep the back-off, as enumeration backs it off)."""
        shape = self._shape()
        stray = shape.is_parent & ~shape.used
        kept = ~missing_values.is_missing(codes[rows][:, stray]).any(axis=1)
        return rows[summed.any(axis=1) & ~enumerated & kept]

    def _terms_sum(self, nodes: list[int], codes: NDArray[np.integer]) -> NDArray[np.float64]:
        """The sum of the :meth:`node_log_probability` of ``nodes`` (0 for none)."""
        total = np.zeros((len(codes), self.n_classes))
        if not nodes:
            return total
        packed = self._packed(codes, len(nodes))
        found = [] if packed is None else [packed.position(node) for node in nodes]
        positions = [position for position in found if position is not None]
        if packed is not None and len(positions) == len(nodes):  # (summed a block at a time)
            return packed.log_likelihood(codes, positions)
        for term in self._node_terms(nodes, codes, packed):
            total += term
        return total

    def _backed_off(self, codes: NDArray[np.integer]) -> NDArray[np.float64]:
        """The sum of every node's :meth:`node_log_probability` (a missing parent backed
        off to the observed prefix, a missing node's term 0)."""
        packed = self._packed(codes, len(self.attributes))
        if packed is not None:
            return packed.log_likelihood(codes)
        out = np.zeros((len(codes), self.n_classes))
        for node in self.attributes:
            out += self._node_log_probability(node, codes, counted=False)
        return out

    def _summed_parents(self, codes: NDArray[np.integer]) -> NDArray[np.bool_]:
        """Per row (rows x features), the missing parents in use that summing out
        enumerates: those with an observed descendant in use (the others are barren:
        their factors and their descendants' sum to 1, as their scoring's 0 says)."""
        shape = self._shape()
        missing = np.asarray(missing_values.is_missing(codes))
        barren = np.zeros_like(missing)
        for v in reversed(shape.order):  # (children first)
            alone = missing[:, v].copy()
            for child in shape.children.get(v, []):
                alone &= barren[:, child]
            barren[:, v] = alone
        return missing & (shape.is_parent & shape.used) & ~barren

    def _shape(self) -> _NetworkShape:
        """What every prediction reads of the network (cached outside the pickled
        state): :class:`_NetworkShape`."""
        if "_network_shape" not in self.__dict__:
            used = np.zeros(self.n_features, dtype=bool)
            used[list(self.attributes)] = True
            is_parent = np.zeros(self.n_features, dtype=bool)
            children: dict[int, list[int]] = {}
            for k in self.attributes:
                for p in self.parents[k]:
                    is_parent[p] = True
                    children.setdefault(int(p), []).append(int(k))
            cells = sum(
                len(table.cells)
                for j in self.attributes
                for table in self.tables[j][: len(self.parents[j]) + 1]
            )
            tabulated = tabulation_cells(
                [int(self.n_categories[j]) for j in self.attributes],
                self.n_classes,
                [[int(self.n_categories[p]) for p in self.parents[j]] for j in self.attributes],
            )
            packing = (
                cells
                + PACKING_CELLS_PER_NODE * len(self.attributes)
                + int(TABULATED_CELLS_PER_CELL * tabulated)
            )
            self.__dict__["_network_shape"] = _NetworkShape(
                np.flatnonzero(is_parent),
                is_parent,
                used,
                children,
                self.dense_cells(),
                cells,
                packing,
                _parents_first(self.attributes, self.parents),
            )
        return self.__dict__["_network_shape"]

    def _pattern_cache(self, name: str) -> dict:
        """The cache ``name`` by set of missing attributes, emptied when it holds
        :data:`MAX_CACHED_PATTERNS` of them (outside the pickled state)."""
        cache = self.__dict__.setdefault(name, {})
        if len(cache) >= MAX_CACHED_PATTERNS:
            cache.clear()
        return cache

    def _missing_in_use(self, row: NDArray[np.integer]) -> set[int]:
        used = np.asarray(self.attributes, dtype=np.intp)
        return {int(v) for v in used[missing_values.is_missing(np.asarray(row)[used])]}

    def dense_table(self, node: int) -> NDArray[np.float64]:
        """``P(x_node | c, parents)`` as a dense array of shape (n_classes, r_parent_1,
        ..., r_parent_q, r_node), parents in their ranked order: every configuration
        evaluated as the model scores a complete row (a configuration never observed
        gets what the smoothing gives it)."""
        return np.exp(self.dense_log_table(node))

    def dense_log_table(self, node: int) -> NDArray[np.float64]:
        """``log`` of :meth:`dense_table`, computed as logs (a probability below the
        smallest float, as heavy weights give unseen configurations, stays finite)."""
        parents = self.parents[node]
        arities = [int(self.n_categories[p]) for p in parents] + [int(self.n_categories[node])]
        grid = np.array(list(itertools.product(*[range(a) for a in arities])), dtype=np.intp)
        codes = np.zeros((len(grid), self.n_features), dtype=np.intp)
        codes[:, [*parents, node]] = grid
        log_p = self.node_log_probability(node, codes)  # (configurations, classes)
        return log_p.T.reshape(self.n_classes, *arities)

    def dense_cells(self) -> int:
        """How many numbers the dense tables of the attributes in use hold."""
        return sum(
            self.n_classes * math.prod(int(self.n_categories[v]) for v in (*self.parents[j], j))
            for j in self.attributes
        )

    def _dense(self) -> BayesNetModel | None:
        """The same network with dense tables (cached; None when too large)."""
        if "_dense_model" not in self.__dict__:
            model = None
            if self.dense_cells() <= MAX_DENSE_CELLS:
                used = set(self.attributes)
                log_cpts = [
                    self.dense_log_table(j)
                    if j in used
                    else np.zeros((self.n_classes, int(self.n_categories[j])))
                    for j in range(self.n_features)
                ]
                parents = [
                    tuple(self.parents[j]) if j in used else () for j in range(self.n_features)
                ]
                model = BayesNetModel(
                    np.asarray(self.n_categories), parents, log_cpts, np.zeros(self.n_classes)
                )
            self.__dict__["_dense_model"] = model
        return self.__dict__["_dense_model"]

    def prepare_prediction(
        self, missing_features: bool = False, rows: NDArray[np.integer] | None = None
    ) -> None:
        """Build now what predictions read, rather than at the first prediction (cached
        outside the pickled state, so a loaded model builds it again when first asked):
        the packed hierarchical tables (:meth:`_packed`, their compiled pass loaded),
        and with ``missing_features`` the dense tables that sum missing features out
        exactly by elimination, where they are small (:data:`PREPARED_DENSE_CELLS`),
        the elimination's compiled functions loaded
        (:func:`~discotree.models.elimination_plan.load_kernels`) and, given the
        training ``rows`` (codes), the elimination programs of their most frequent sets
        of missing attributes (:data:`PREPARED_PATTERNS`: rows to predict tend to miss
        what the training rows miss). What needs compiled functions that are neither
        compiled in this process nor in numba's cache is left to the first prediction
        (:func:`~discotree.kernels.compiled_cache.at_hand`: a first fit with a cold
        cache does not compile the prediction's functions as well). The predictions
        are the same numbers with or without it.

        Examples
        --------
        {example_kdb_model}
        >>> model.prepare_prediction(missing_features=True)
        >>> np.exp(model.log_likelihood(np.array([[1, -1]]))).round(3)
        array([[0.25, 0.75]])
        """
        self._shape()
        # (what needs compiled functions that numba's cache does not hold yet is left
        # to the first prediction: a first fit does not compile them too; the dense
        # tables are scored by the packed ones)
        if not backoff_kernels_at_hand():
            return
        packed = self._packed(None)
        if packed is not None:  # (its compiled passes loaded now, not at the first call:
            # the tabulated sum of complete rows, the levels of a node of any row)
            row = np.zeros((1, self.n_features), dtype=np.int64)
            packed.log_likelihood(row)
            packed.node_log_probabilities(row, [0])
        if missing_features and self.dense_cells() <= PREPARED_DENSE_CELLS:
            self._elimination_tables()
            if kernels_at_hand():
                load_kernels()
                if rows is not None:
                    self._prepare_plans(np.asarray(rows))

    def _prepare_plans(self, codes: NDArray[np.integer]) -> None:
        """The programs of the :data:`PREPARED_PATTERNS` sets of missing attributes that
        most of the rows ``codes`` which variable elimination would sum out share."""
        shape = self._shape()
        rows = np.flatnonzero(missing_values.is_missing(codes[:, shape.parents]).any(axis=1))
        if len(rows) == 0:
            return
        summed = self._summed_parents(codes[rows])
        enumerated = summed.any(axis=1) & (
            joint_values(summed, self.n_categories) <= MAX_ENUMERATED_VALUES
        )
        rows = self._eliminated_rows(codes, rows, summed, enumerated)
        groups = rows_by_pattern(missing_values.is_missing(codes[rows][:, shape.used]))
        for group in sorted(groups, key=len, reverse=True)[:PREPARED_PATTERNS]:
            self._plan(frozenset(self._missing_in_use(codes[rows[group[0]]])))

    def _elimination_tables(self) -> FlatTables:
        """The dense tables as variable elimination reads them (cached)."""
        if "_flat_tables" not in self.__dict__:
            dense = self._dense()
            assert dense is not None
            self.__dict__["_flat_tables"] = FlatTables.of(
                dense.log_cpts, dense.parents, self.attributes
            )
        return self.__dict__["_flat_tables"]

    def _exact(self, rows: NDArray[np.integer]) -> NDArray[np.float64] | None:
        """``log P(x | c)`` of rows missing the same attributes by variable elimination
        (all at once: one compiled program per set of missing attributes, cached), None
        when a factor would exceed ``MAX_ELIMINATION_CELLS``."""
        plan = self._plan(frozenset(self._missing_in_use(rows[0])))
        if plan is None:
            return None
        return plan.log_marginals(rows, self._elimination_tables(), self.n_classes)

    def _plan(self, missing: frozenset[int]) -> EliminationPlan | None:
        """The elimination program of rows missing the attributes in use ``missing``
        (cached; None beyond the guard)."""
        plans = self._pattern_cache("_elimination_plans")
        if missing not in plans:
            # (barren attributes sum to 1: their families left out); the order from the
            # structure alone, cut short past the guard: no dense table beyond it
            barren = set(self._barren(set(missing)))
            nodes = [j for j in self.attributes if j not in barren]
            summed = set(missing) - barren
            scopes = [[v for v in (*self.parents[j], j) if v in summed] for j in nodes]
            bound = MAX_ELIMINATION_CELLS / self.n_classes
            arities = {v: int(self.n_categories[v]) for v in summed}
            order = elimination_order(scopes, arities, bound)
            plans[missing] = None  # (beyond the guard: the back-off rule)
            if order.largest <= bound:
                tables = self._elimination_tables()
                plans[missing] = elimination_plan(
                    self.n_categories, nodes, summed, order.order, tables
                )
        return plans[missing]

    def _barren(self, missing: set[int]) -> list[int]:
        """The missing attributes in use none of whose descendants in use is observed
        (barren: summing them out multiplies by 1, so variable elimination leaves
        them out; the same marginal up to rounding), found children first."""
        shape = self._shape()
        barren: set[int] = set()
        for v in reversed(shape.order):  # (each one's children decided before it)
            if v in missing and all(k in barren for k in shape.children.get(v, ())):
                barren.add(v)
        return sorted(barren)

    def _packed(
        self, codes: NDArray[np.integer] | None = None, n_nodes: int = 0
    ) -> PackedBackoff | None:
        """The hierarchical tables of the nodes in use, packed for prediction (cached
        outside the pickled state; None without hierarchical smoothing), packed for the
        first time once scoring ``n_nodes`` nodes of the rows ``codes`` in this call,
        with what the earlier calls asked for, would have cost more node by node than
        packing (:data:`PACKED_CELLS_PER_NODE`; ``n_nodes`` 0: already counted), or at
        once for ``codes`` None (until then the nodes are scored one by one, the same
        numbers)."""
        if "_packed_backoff" not in self.__dict__:
            # (the hierarchical concentrations: None when nothing is packed)
            concentrations = None if self.hdp or not self.attributes else self.concentrations
            if concentrations is not None and codes is not None:
                shape = self._shape()
                calls = n_nodes  # (a pass per node, and one per parent missing somewhere)
                if n_nodes:
                    absent = np.asarray(missing_values.is_missing(np.asarray(codes)).any(axis=0))
                    if absent.any():
                        extra = [int(absent[list(self.parents[j])].sum()) for j in self.attributes]
                        calls += n_nodes * sum(extra) // len(extra)
                work = self.__dict__.get("_work_scored", 0) + calls * PACKED_CELLS_PER_NODE
                if work < shape.packing_cells:
                    self.__dict__["_work_scored"] = work
                    return None
            packed = None
            if concentrations is not None:
                packed = PackedBackoff.from_tables(
                    list(self.attributes),
                    self.parents,
                    self.tables,
                    self.n_categories,
                    self.alpha,
                    concentrations,
                    self.n_classes,
                )
            self.__dict__["_packed_backoff"] = packed
        return self.__dict__["_packed_backoff"]

    def __getstate__(self) -> dict:
        cached = (
            "_dense_model",
            "_packed_backoff",
            "_elimination_plans",
            "_flat_tables",
            "_work_scored",
            "_network_shape",
        )
        return {k: v for k, v in self.__dict__.items() if k not in cached}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)

    def __reduce__(self) -> tuple:
        """Pickled with its tables packed
        (:func:`~discotree.stats.family_tables.packed_tables`: a few flat arrays, not
        an object per table; on sonar's members a twelfth of the bytes), loaded as the
        same model to the last bit (:func:`unpickled_model`). Model files (JSON) store
        :meth:`__getstate__`."""
        state = self.__getstate__()
        tables = state.get("tables")
        if isinstance(tables, list) and all(isinstance(node, list) for node in tables):
            packed = packed_tables(tables)
            if packed is not None:
                state = {**state, "tables": packed}
        return (unpickled_model, (type(self), state))

    def edges(self) -> list[tuple[int, int]]:
        """The attribute edges (parent, child) in use."""
        return [(int(p), int(j)) for j in self.attributes for p in self.parents[j]]

    @property
    def nbytes(self) -> int:
        """The memory of the tables in use."""
        return sum(
            table.nbytes
            for j in self.attributes
            for table in self.tables[j][: len(self.parents[j]) + 1]
        )


def unpickled_model(cls: type, state: dict) -> KDependenceModel:
    """The model of a pickled ``state`` (:meth:`KDependenceModel.__reduce__`: its tables
    packed, or as they are)."""
    if isinstance(state.get("tables"), dict):
        state = {**state, "tables": unpacked_tables(state["tables"])}
    model: KDependenceModel = object.__new__(cls)
    model.__setstate__(state)
    return model
