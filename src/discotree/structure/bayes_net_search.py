"""Discriminative structure search for k-tree Bayesian network classifiers
(Pernkopf & Bilmes, 002_4035af8a3a458042.txt, Sections 4.4 and 5).

Every learner starts from naive Bayes and adds attribute parents (at most k per
attribute, no directed cycle, the class parent-less) to raise a score of the training
data: the classification rate CR (``score="cr"``) or the conditional log-likelihood
CLL (``score="cll"``), always with ML parameters while searching.

- :func:`greedy_search` (TAN-CR, k-tree-CR; Section 4.4.1): add the edge with the
  largest score improvement, stop when none improves. Both speed-ups of the paper:
  a node's parents change only its log-probability column (:class:`NodeScores`), and a
  candidate's CR is evaluated over samples ordered with the currently misclassified
  first, abandoned as soon as it cannot beat the best score found so far.
- :func:`superparent_search` (Section 4.4.2), with the k-tree extension.
- :func:`order_search` (Section 5, Algorithm 1) along an ordering of
  :mod:`discotree.structure.orderings` or a random one: each attribute in turn gets
  the best k-subset of earlier attributes as parents, kept only when the score improves.

The structure is returned as a list of parent tuples, one per attribute.
"""

from __future__ import annotations

import itertools
import logging
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.special import logsumexp

from ..kernels.candidate_scores import candidate_hits
from ..models.bayes_net import LazyColumn, NodeScores, PairParentColumns, SingleParentColumns

__all__ = [
    "CANDIDATE_BATCH_BYTES",
    "SUPERPARENT_SUMS_BYTES",
    "CandidateColumns",
    "PairParentCandidates",
    "Scorer",
    "SingleParentCandidates",
    "StackedColumns",
    "candidate_batch_size",
    "greedy_search",
    "order_search",
    "record_edge_gain",
    "superparent_search",
]

logger = logging.getLogger(__name__)

_SCORES = ("cr", "cll")


class Scorer:
    """Training-data score of a joint ``log P(c, x)`` matrix.

    Parameters
    ----------
    class_index, weights : ndarrays of shape (n,)
    score : {"cr", "cll"}
    early_abandon : bool, default=True
        For CR: evaluate samples in :attr:`order` (call :meth:`reorder` with the
        current joint to put misclassified samples first) in chunks and stop once the
        candidate cannot exceed the threshold (speed-up 1 of Section 4.4.1).
    chunk : int, default=256
        First chunk; later chunks double, up to 16 times this.

    Attributes
    ----------
    n_evaluations, n_abandoned, n_rows_scored : int
        Counters (for the runtime experiment): candidates scored, candidates abandoned,
        and (candidate, sample) pairs read.
    """

    def __init__(
        self,
        class_index: NDArray[np.intp],
        weights: NDArray[np.float64],
        score: str = "cr",
        early_abandon: bool = True,
        chunk: int = 256,
    ) -> None:
        if score not in _SCORES:
            raise ValueError(f"score must be one of {_SCORES}, got {score!r}")
        self.class_index = class_index
        self.weights = weights
        self.score = score
        self.early_abandon = early_abandon and score == "cr"
        self.chunk = chunk
        self.total = float(weights.sum())
        self.order = np.arange(len(class_index))  # see the property
        self.n_evaluations = 0
        self.n_abandoned = 0
        self.n_rows_scored = 0

    @property
    def order(self) -> NDArray[np.intp]:
        """The order samples are scored in (:meth:`reorder`)."""
        return self._order

    @order.setter
    def order(self, order: NDArray[np.intp]) -> None:
        # the weights and classes in that order, made once per order, not per batch
        self._order = order
        self._weights_in_order = self.weights[order]
        self._class_in_order = self.class_index[order]

    def value(self, joint: NDArray[np.float64]) -> float:
        """The score of ``joint`` on every sample (CR in [0, 1] or CLL per unit weight)."""
        self.n_evaluations += 1
        self.n_rows_scored += len(joint)
        rows = np.arange(len(joint))
        if self.score == "cr":
            correct = np.argmax(joint, axis=1) == self.class_index
            return float(self.weights[correct].sum()) / self.total
        cll = joint[rows, self.class_index] - logsumexp(joint, axis=1)
        return float(self.weights @ cll) / self.total

    def value_above(
        self,
        joint: NDArray[np.float64],
        threshold: float,
        changes: Sequence[tuple[NDArray[np.float64], Any]] = (),
    ) -> float | None:
        """The score of ``joint + sum(new - old for old, new in changes)`` if it can
        exceed ``threshold``; ``None`` when abandoned early.

        Returns exactly :meth:`value` of that joint whenever it is not ``None``, and
        ``None`` only when the score cannot exceed ``threshold``. The changed joint is
        built chunk by chunk, so an abandoned candidate costs only the chunks read.
        """
        if not self.early_abandon:
            return self.value(_apply(joint, changes))
        needed = threshold * self.total
        remaining = self.total
        correct = 0.0
        slack = 1e-9 * self.total
        hits = np.zeros(len(self.order), dtype=bool)
        start, size = 0, self.chunk
        while start < len(self.order):
            rows = self.order[start : start + size]
            start, size = start + size, min(2 * size, 16 * self.chunk)
            block = joint[rows]
            self.n_rows_scored += len(rows)
            for old, new in changes:
                block = block - old[rows] + new[rows]
            hit = np.argmax(block, axis=1) == self.class_index[rows]
            hits[rows] = hit
            w = self.weights[rows]
            correct += float(w[hit].sum())
            remaining -= float(w.sum())
            if correct + remaining < needed - slack:
                self.n_evaluations += 1
                self.n_abandoned += 1
                return None
        # every row seen: the same per-element arithmetic as :meth:`value`, summed in
        # sample order as it does
        self.n_evaluations += 1
        return float(self.weights[hits].sum()) / self.total

    def values_above(
        self,
        joint: NDArray[np.float64],
        threshold: float,
        old: NDArray[np.float64],
        candidates: CandidateColumns,
        base_in_order: NDArray[np.float64] | None = None,
    ) -> list[float | None]:
        """:meth:`value_above` for several candidates that replace the same column
        ``old`` by the columns of ``candidates``, scored together chunk by chunk (one
        array operation for all candidates still alive).

        After the first chunk the candidate with the most correct samples so far (the
        leader) is scored to the end; from then on a candidate is abandoned as soon as
        it can neither exceed ``threshold`` nor reach the leader's score. So every
        candidate that could be the first best of the batch, and could beat
        ``threshold``, gets its exact :meth:`value`; the others get ``None``.
        ``base_in_order``, :meth:`difference_in_order` of ``joint`` and ``old``, is made
        here when not given.
        """
        n_candidates = len(candidates)
        if n_candidates == 0:
            return []
        if not self.early_abandon or n_candidates == 1:
            return [
                self.value_above(joint, threshold, [(old, candidates.column(i))])
                for i in range(n_candidates)
            ]
        if base_in_order is None:
            base_in_order = self.difference_in_order(joint, old)
        table = candidates.table
        order = self.order
        weights_in_order, class_in_order = self._weights_in_order, self._class_in_order
        needed = threshold * self.total
        slack = 1e-9 * self.total
        alive = np.ones(n_candidates, dtype=bool)  # not abandoned
        running = alive.copy()  # alive and not yet scored to the end
        correct = np.zeros(n_candidates)
        remaining = self.total
        hits = np.zeros((n_candidates, len(order)), dtype=bool)  # by position in order
        start, size = 0, self.chunk
        led = False
        while start < len(order) and running.any():
            chunk = slice(start, start + size)
            start, size = start + size, min(2 * size, 16 * self.chunk)
            rows = order[chunk]
            live = np.flatnonzero(running)
            self.n_rows_scored += len(live) * len(rows)
            index = candidates.index_at(live, order, chunk)  # (L, R)
            hit = candidate_hits(base_in_order[chunk], table, index, class_in_order[chunk])
            hits[live, chunk] = hit
            w = weights_in_order[chunk]
            correct[live] += hit.astype(np.float64) @ w
            remaining -= float(w.sum())
            dead = live[correct[live] + remaining < needed - slack]
            alive[dead] = running[dead] = False
            if not led and start < len(order) and running.sum() > 1:
                led = True
                live = np.flatnonzero(running)
                leader = live[np.argmax(correct[live]) : np.argmax(correct[live]) + 1]
                rest = slice(start, len(order))
                self.n_rows_scored += len(order) - start
                index = candidates.index_at(leader, order, rest)
                hit = candidate_hits(base_in_order[rest], table, index, class_in_order[rest])
                hits[leader[0], rest] = hit[0]
                running[leader] = False
                score = self._sum_in_sample_order(hits[leader[0]])
                if score < needed - slack:
                    alive[leader] = False
                # the others must at least be able to tie the leader
                needed = max(needed, score)
                dead = np.flatnonzero(running & (correct + remaining < needed - slack))
                alive[dead] = running[dead] = False
        self.n_evaluations += n_candidates
        self.n_abandoned += int((~alive).sum())
        return [
            self._sum_in_sample_order(hits[i]) / self.total if alive[i] else None
            for i in range(n_candidates)
        ]

    def difference_in_order(
        self, joint: NDArray[np.float64], old: NDArray[np.float64]
    ) -> NDArray[np.float64]:
        """``joint - old`` with its rows in :attr:`order`: the base of every candidate
        that replaces the column ``old`` (pass it to :meth:`values_above` for each batch
        of one node's candidates)."""
        return (joint - old)[self.order]

    def _sum_in_sample_order(self, hits_in_order: NDArray[np.bool_]) -> float:
        """The weight of the samples hit (given by position in :attr:`order`), summed in
        sample order as :meth:`value` sums it."""
        hits = np.empty(len(hits_in_order), dtype=bool)
        hits[self.order] = hits_in_order
        return float(self.weights[hits].sum())

    def reorder(self, joint: NDArray[np.float64]) -> None:
        """Order the samples by their margin under ``joint`` (the true class's score
        minus the best other), misclassified ones first: a candidate that loses correct
        samples loses the close ones first, so it is abandoned sooner (stable)."""
        rows = np.arange(len(joint))
        true = joint[rows, self.class_index]
        other = joint.copy()
        other[rows, self.class_index] = -np.inf
        margin = true - other.max(axis=1)
        wrong = np.argmax(joint, axis=1) != self.class_index
        margin[wrong] = -np.inf
        self.order = np.argsort(margin, kind="stable")


def _apply(joint, changes):
    """``joint - old + new`` for each change, in the order :class:`NodeScores` uses."""
    for old, new in changes:
        joint = joint - old + _full(new)
    return joint


def _full(column):
    return column.full() if isinstance(column, LazyColumn) else column


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
        self, live: NDArray[np.intp], order: NDArray[np.intp], positions: slice
    ) -> NDArray[np.intp]:
        """:meth:`index` at samples ``order[positions]`` (the scorer's order; a
        subclass may keep its codes in that order and read them in sequence)."""
        return self.index(live, order[positions])


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


def _creates_cycle(parents: list[tuple[int, ...]], parent: int, child: int) -> bool:
    """Whether ``parent -> child`` closes a directed cycle (child is an ancestor of parent)."""
    stack, seen = [parent], set()
    while stack:
        v = stack.pop()
        if v == child:
            return True
        if v not in seen:
            seen.add(v)
            stack.extend(parents[v])
    return False


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


class _Columns:
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


#: Largest memory (bytes) for the columns of the candidate parent sets of one node
#: scored together; more candidates are scored in batches of that size, each against
#: the best score of the batches before it (the order search for k = 2 has C(p, 2)
#: candidates for the p-th attribute: 32 385 columns of every sample on USPS).
CANDIDATE_BATCH_BYTES = 2**28


def candidate_batch_size(n_samples: int, n_classes: int, chunk: int) -> int:
    """How many candidate parent sets fit in :data:`CANDIDATE_BATCH_BYTES`: per
    candidate, eight arrays of one 8-byte entry per sample (counting keys, index
    columns, their stacked copies) and the widest chunk of its joint (16 ``chunk``
    rows of ``n_classes`` scores)."""
    per_candidate = 8 * (8 * n_samples + 16 * chunk * n_classes)
    return max(1, CANDIDATE_BATCH_BYTES // per_candidate)


def _first_best_candidate(
    state: NodeScores,
    columns: _Columns,
    scorer: Scorer,
    node: int,
    candidates: Iterable[tuple[int, ...]],
    threshold: float,
) -> tuple[float, tuple[tuple[int, ...], LazyColumn] | None]:
    """The first of ``candidates`` (parent sets of ``node``) with the largest score
    above ``threshold``, as ``(score, (parents, column))``, or ``(threshold, None)``.

    Candidates are scored in batches of at most :data:`CANDIDATE_BATCH_BYTES` (index
    columns, both stacked copies, and the widest chunk of candidate joints), each batch
    against the best score so far; a later candidate replaces it only with a strictly
    larger score, so the result is that of scoring all candidates at once.
    """
    n_samples, n_classes = state.joint.shape
    batch_size = candidate_batch_size(n_samples, n_classes, scorer.chunk)
    best, move = threshold, None
    remaining = iter(candidates)
    old = state.columns[node]
    base = scorer.difference_in_order(state.joint, old) if scorer.early_abandon else None
    while batch := list(itertools.islice(remaining, batch_size)):
        news = columns.candidates(node, batch)
        scores = scorer.values_above(state.joint, best, old, news, base)
        for i, (candidate, score) in enumerate(zip(batch, scores, strict=True)):
            if score is not None and score > best:
                best, move = score, (candidate, news.column(i))
    return best, move


def record_edge_gain(
    gains: dict[tuple[int, int], float] | None,
    parents: Iterable[int],
    child: int,
    gain: float,
) -> None:
    """Note ``gain`` (the score increase of the move that added them) for the edges
    from ``parents`` to ``child``, keyed (i, j) with i < j."""
    if gains is not None:
        for parent in parents:
            gains[min(parent, child), max(parent, child)] = gain


def greedy_search(
    state: NodeScores,
    k: int,
    scorer: Scorer,
    max_edges: int | None = None,
    gains: dict[tuple[int, int], float] | None = None,
    steps: list[list[tuple[int, ...]]] | None = None,
) -> list[tuple[int, ...]]:
    """Hill climbing over single added parents (TAN-CR / k-tree-CR, Section 4.4.1).

    Candidates are scanned in a fixed order (child, then parent, ascending); the first
    one with the strictly largest score wins an iteration, so the result does not depend
    on the speed-ups. Stops when no addition improves the score. ``gains``, when given,
    receives the score gain of the step that added each edge; ``steps`` the parents
    after each accepted step.
    """
    n = state.codes.shape[1]
    columns = _Columns(state)
    current = scorer.value(state.joint)
    added = 0
    while max_edges is None or added < max_edges:
        scorer.reorder(state.joint)
        best, move = current, None
        for child in range(n):
            if len(state.parents[child]) >= k:
                continue
            candidates = [
                tuple(sorted((*state.parents[child], parent)))
                for parent in range(n)
                if parent != child
                and parent not in state.parents[child]
                and not _creates_cycle(state.parents, parent, child)
            ]
            best, found = _first_best_candidate(state, columns, scorer, child, candidates, best)
            if found is not None:
                move = (child, *found)
        if move is None:
            break
        child, candidate, column = move
        record_edge_gain(gains, set(candidate) - set(state.parents[child]), child, best - current)
        state.set_parents(child, candidate, column)
        columns.forget(child)
        current = best
        added += 1
        if steps is not None:
            steps.append(list(state.parents))
        logger.info("greedy search: edge %d into %d, score %.6g", added, child, best)
    return list(state.parents)


#: Largest memory (bytes) for the per-superparent sums of column changes that make a
#: SuperParent step O(D) column operations; beyond it every step recomputes them
#: (O(D^2) column operations a step).
SUPERPARENT_SUMS_BYTES = 2**31


def _superparent_children(state: NodeScores, k: int) -> dict[int, list[int]]:
    """For every attribute, the attributes it can become an extra parent of: fewer
    than k parents, not already its child, no directed cycle."""
    n = state.codes.shape[1]
    return {
        sp: [
            j
            for j in range(n)
            if j != sp
            and len(state.parents[j]) < k
            and sp not in state.parents[j]
            and not _creates_cycle(state.parents, sp, j)
        ]
        for sp in range(n)
    }


class _SuperparentSums:
    """``total(sp) = sum over j of (column of j with sp added - column of j)`` over the
    attributes j that sp can be a parent of, kept from step to step: a step changes
    the parents of one or two attributes and removes a few (sp, j) pairs, so updating
    the sums costs O(D) column operations where recomputing them costs O(D^2).

    Every change added is later subtracted as the same array (the attribute's parents
    are those it had when it was added), so the sums equal the recomputed ones up to
    rounding."""

    def __init__(self, state: NodeScores, columns: _Columns) -> None:
        self.state, self.columns = state, columns
        self.sums: dict[int, NDArray[np.float64]] = {}
        self.members: dict[int, set[int]] = {}

    def change(self, j: int, sp: int) -> NDArray[np.float64]:
        parents = tuple(sorted((*self.state.parents[j], sp)))
        return self.columns.get(j, parents).full() - self.state.columns[j]

    def total(self, sp: int, children: list[int]) -> NDArray[np.float64]:
        """The sum for ``sp`` over ``children`` (a subset of those of the last call
        plus attributes whose parents changed since)."""
        if sp not in self.sums:
            self.sums[sp] = np.zeros_like(self.state.joint)
            self.members[sp] = set()
        total, members = self.sums[sp], self.members[sp]
        for j in children:
            if j not in members:
                total += self.change(j, sp)
                members.add(j)
        return total

    def before_new_parents(self, changed: Iterable[int]) -> None:
        """Take the changes of the attributes about to get new parents out of every
        sum (they are added again, with the new parents, if they stay children)."""
        for j in changed:
            for sp, members in self.members.items():
                if j in members:
                    self.sums[sp] -= self.change(j, sp)
                    members.discard(j)

    def keep_only(self, children_of: dict[int, list[int]]) -> None:
        """Take the attributes that are no longer children out of the sums."""
        for sp, members in self.members.items():
            for j in sorted(members - set(children_of[sp])):
                self.sums[sp] -= self.change(j, sp)
                members.discard(j)


def superparent_search(
    state: NodeScores,
    k: int,
    scorer: Scorer,
    gains: dict[tuple[int, int], float] | None = None,
    steps: list[list[tuple[int, ...]]] | None = None,
) -> list[tuple[int, ...]]:
    """SuperParent (Keogh and Pazzani, 1999) and its k-tree extension (Section 4.4.2).

    Step 1: every attribute in turn is made an extra parent of every attribute with
    fewer than k parents (where no cycle results); the one giving the best score is the
    superparent. Step 2: of the edges from the superparent, only the best child (k = 1)
    or the best pair of children (k >= 2) is kept. The edge(s) are added if they raise
    the score, else the search stops; it also stops when no attribute can take a parent.
    ``gains``, when given, receives the score gain of the step that added each edge;
    ``steps`` the parents after each accepted step.

    Step 1 scores D candidate joints, each the current one plus the column changes of
    up to D attributes: those sums are kept from step to step (:class:`_SuperparentSums`,
    D joints of memory, up to :data:`SUPERPARENT_SUMS_BYTES`), so a step costs O(D)
    column operations instead of O(D^2) (USPS, 256 attributes: minutes, not hours).
    """
    n = state.codes.shape[1]
    columns = _Columns(state)
    current = scorer.value(state.joint)
    kept = n * state.joint.nbytes <= SUPERPARENT_SUMS_BYTES
    sums = _SuperparentSums(state, columns)
    children_of = _superparent_children(state, k)
    while any(children_of.values()):
        scorer.reorder(state.joint)
        parents_with_children = [sp for sp in range(n) if children_of[sp]]
        best_sp, best_sp_score = parents_with_children[0], -np.inf
        for sp in parents_with_children:
            if kept:
                joint = state.joint + sums.total(sp, children_of[sp])
            else:
                joint = state.joint.copy()
                for j in children_of[sp]:
                    joint += sums.change(j, sp)
            score = scorer.value(joint)
            if score > best_sp_score:
                best_sp, best_sp_score = sp, score
        group = 1 if k == 1 else 2
        kids = children_of[best_sp]
        best, move = current, None
        for chosen in itertools.combinations(kids, min(group, len(kids))):
            cols = [columns.get(j, tuple(sorted((*state.parents[j], best_sp)))) for j in chosen]
            changes = [(state.columns[j], c) for j, c in zip(chosen, cols, strict=True)]
            above = scorer.value_above(state.joint, best, changes)
            if above is not None and above > best:
                best, move = above, (chosen, cols)
        if move is None:
            break
        if kept:
            sums.before_new_parents(move[0])
        for j, column in zip(*move, strict=True):
            record_edge_gain(gains, [best_sp], j, best - current)
            state.set_parents(j, tuple(sorted((*state.parents[j], best_sp))), column)
            columns.forget(j)
        current = best
        if steps is not None:
            steps.append(list(state.parents))
        children_of = _superparent_children(state, k)
        if kept:
            sums.keep_only(children_of)
    return list(state.parents)


def order_search(
    state: NodeScores,
    k: int,
    order: list[int],
    scorer: Scorer,
    gains: dict[tuple[int, int], float] | None = None,
    steps: list[list[tuple[int, ...]]] | None = None,
) -> list[tuple[int, ...]]:
    """Parent selection along an ordering (Section 5.2; Algorithm 1, step 2).

    For the j-th attribute of ``order`` (j >= 2) every subset of min(k, j - 1) earlier
    attributes is scored as its parents; the best is kept only if it improves the score
    of the current network (otherwise the attribute keeps the class as only parent).
    Later attributes have no parents yet (naive Bayes) while earlier ones are chosen.
    ``gains``, when given, receives the score gain of the choice that added each edge;
    ``steps`` the parents after each kept choice.
    """
    columns = _Columns(state)
    current = scorer.value(state.joint)
    changed = True
    for position in range(1, len(order)):
        node, earlier = order[position], sorted(order[:position])
        if changed:  # the joint is unchanged while no parents are kept
            scorer.reorder(state.joint)
            changed = False
        candidates = itertools.combinations(earlier, min(k, position))
        best, move = _first_best_candidate(state, columns, scorer, node, candidates, current)
        if move is not None:
            record_edge_gain(gains, move[0], node, best - current)
            state.set_parents(node, *move)
            current = best
            changed = True
            if steps is not None:
                steps.append(list(state.parents))
    return list(state.parents)
