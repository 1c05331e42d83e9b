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
- :func:`order_search` (Section 5, Algorithm 1) with orderings :func:`omi_order`,
  :func:`omisp_order`, :func:`ocr_order` or a random one: each attribute in turn gets
  the best k-subset of earlier attributes as parents, kept only when the score improves.

The structure is returned as a list of parent tuples, one per attribute.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray
from scipy.special import logsumexp

from ..models.bayes_net import LazyColumn, NodeScores

__all__ = [
    "Scorer",
    "greedy_search",
    "ocr_order",
    "omi_order",
    "omisp_order",
    "order_search",
    "superparent_search",
]

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
    n_evaluations, n_abandoned : int
        Counters (for the runtime experiment).
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
        self.order = np.arange(len(class_index))
        self.n_evaluations = 0
        self.n_abandoned = 0

    def value(self, joint: NDArray[np.float64]) -> float:
        """The score of ``joint`` on every sample (CR in [0, 1] or CLL per unit weight)."""
        self.n_evaluations += 1
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
        changes: list[tuple[NDArray[np.float64], NDArray[np.float64]]] = (),
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
        news: list,
    ) -> list[float | None]:
        """:meth:`value_above` for several candidates that replace the same column
        ``old`` by ``news[i]``, scored together chunk by chunk (one array operation for
        all candidates still able to exceed ``threshold``). Same results as calling
        :meth:`value_above` on each with this threshold."""
        if not news:
            return []
        if not self.early_abandon or len(news) == 1:
            return [self.value_above(joint, threshold, [(old, new)]) for new in news]
        tables = [_full_table(new) for new in news]
        offsets = np.cumsum([0] + [t.shape[0] for t in tables[:-1]])
        stacked = np.vstack(tables)
        index = np.stack([_row_index(new) + o for new, o in zip(news, offsets, strict=True)])
        n_candidates = len(news)
        needed = threshold * self.total
        slack = 1e-9 * self.total
        alive = np.ones(n_candidates, dtype=bool)
        correct = np.zeros(n_candidates)
        remaining = self.total
        hits = np.zeros((n_candidates, len(self.order)), dtype=bool)
        start, size = 0, self.chunk
        while start < len(self.order) and alive.any():
            rows = self.order[start : start + size]
            start, size = start + size, min(2 * size, 16 * self.chunk)
            live = np.flatnonzero(alive)
            base = joint[rows] - old[rows]  # (R, C)
            block = base[None, :, :] + stacked[index[np.ix_(live, rows)]]  # (L, R, C)
            hit = np.argmax(block, axis=2) == self.class_index[rows][None, :]
            hits[np.ix_(live, rows)] = hit
            w = self.weights[rows]
            correct[live] += hit.astype(np.float64) @ w
            remaining -= float(w.sum())
            dead = live[correct[live] + remaining < needed - slack]
            alive[dead] = False
        self.n_evaluations += n_candidates
        self.n_abandoned += int((~alive).sum())
        return [
            float(self.weights[hits[i]].sum()) / self.total if alive[i] else None
            for i in range(n_candidates)
        ]

    def reorder(self, joint: NDArray[np.float64]) -> None:
        """Put the samples ``joint`` misclassifies first (stable)."""
        wrong = np.argmax(joint, axis=1) != self.class_index
        self.order = np.argsort(~wrong, kind="stable")


def _apply(joint, changes):
    """``joint - old + new`` for each change, in the order :class:`NodeScores` uses."""
    for old, new in changes:
        joint = joint - old + _full(new)
    return joint


def _full_table(column) -> NDArray[np.float64]:
    return column.table if isinstance(column, LazyColumn) else column


def _row_index(column) -> NDArray[np.intp]:
    if isinstance(column, LazyColumn):
        return column.index
    return np.arange(len(column))


def _full(column):
    return column.full() if isinstance(column, LazyColumn) else column


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


class _Columns:
    """Cache of candidate columns, dropped for a node when its parents change."""

    def __init__(self, state: NodeScores, limit: int = 50_000_000) -> None:
        self.state = state
        self.cache: dict[tuple[int, tuple[int, ...]], NDArray[np.float64]] = {}
        per_column = len(state.joint)  # one row index per sample
        self.capacity = max(0, limit // max(per_column, 1))

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


def greedy_search(
    state: NodeScores, k: int, scorer: Scorer, max_edges: int | None = None
) -> list[tuple[int, ...]]:
    """Hill climbing over single added parents (TAN-CR / k-tree-CR, Section 4.4.1).

    Candidates are scanned in a fixed order (child, then parent, ascending); the first
    one with the strictly largest score wins an iteration, so the result does not depend
    on the speed-ups. Stops when no addition improves the score.
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
            news = [columns.get(child, candidate) for candidate in candidates]
            scores = scorer.values_above(state.joint, best, state.columns[child], news)
            for candidate, column, score in zip(candidates, news, scores, strict=True):
                if score is not None and score > best:
                    best, move = score, (child, candidate, column)
        if move is None:
            break
        child, candidate, column = move
        state.set_parents(child, candidate, column)
        columns.forget(child)
        current = best
        added += 1
    return list(state.parents)


def superparent_search(state: NodeScores, k: int, scorer: Scorer) -> list[tuple[int, ...]]:
    """SuperParent (Keogh and Pazzani, 1999) and its k-tree extension (Section 4.4.2).

    Step 1: every attribute in turn is made an extra parent of every attribute with
    fewer than k parents (where no cycle results); the one giving the best score is the
    superparent. Step 2: of the edges from the superparent, only the best child (k = 1)
    or the best pair of children (k >= 2) is kept. The edge(s) are added if they raise
    the score, else the search stops; it also stops when no attribute can take a parent.
    """
    n = state.codes.shape[1]
    columns = _Columns(state)
    current = scorer.value(state.joint)
    while True:
        children_of = {}
        for sp in range(n):
            children_of[sp] = [
                j
                for j in range(n)
                if j != sp
                and len(state.parents[j]) < k
                and sp not in state.parents[j]
                and not _creates_cycle(state.parents, sp, j)
            ]
        if not any(children_of.values()):
            break
        scorer.reorder(state.joint)
        best_sp, best_sp_score = None, -np.inf
        for sp in range(n):
            if not children_of[sp]:
                continue
            joint = state.joint.copy()
            for j in children_of[sp]:
                column = columns.get(j, tuple(sorted((*state.parents[j], sp))))
                joint += column.full() - state.columns[j]
            score = scorer.value(joint)
            if score > best_sp_score:
                best_sp, best_sp_score = sp, score
        group = 1 if k == 1 else 2
        kids = children_of[best_sp]
        best, move = current, None
        for chosen in itertools.combinations(kids, min(group, len(kids))):
            cols = [columns.get(j, tuple(sorted((*state.parents[j], best_sp)))) for j in chosen]
            changes = [(state.columns[j], c) for j, c in zip(chosen, cols, strict=True)]
            score = scorer.value_above(state.joint, best, changes)
            if score is not None and score > best:
                best, move = score, (chosen, cols)
        if move is None:
            break
        for j, column in zip(*move, strict=True):
            state.set_parents(j, tuple(sorted((*state.parents[j], best_sp))), column)
            columns.forget(j)
        current = best
    return list(state.parents)


def order_search(
    state: NodeScores, k: int, order: list[int], scorer: Scorer
) -> list[tuple[int, ...]]:
    """Parent selection along an ordering (Section 5.2; Algorithm 1, step 2).

    For the j-th attribute of ``order`` (j >= 2) every subset of min(k, j - 1) earlier
    attributes is scored as its parents; the best is kept only if it improves the score
    of the current network (otherwise the attribute keeps the class as only parent).
    Later attributes have no parents yet (naive Bayes) while earlier ones are chosen.
    """
    columns = _Columns(state)
    current = scorer.value(state.joint)
    for position in range(1, len(order)):
        node, earlier = order[position], sorted(order[:position])
        scorer.reorder(state.joint)
        best, move = current, None
        candidates = list(itertools.combinations(earlier, min(k, position)))
        news = [columns.get(node, candidate) for candidate in candidates]
        scores = scorer.values_above(state.joint, best, state.columns[node], news)
        for candidate, column, score in zip(candidates, news, scores, strict=True):
            if score is not None and score > best:
                best, move = score, (candidate, column)
        if move is not None:
            state.set_parents(node, *move)
            current = best
    return list(state.parents)


# ------------------------------------------------------------------- orderings (5.1)
def _entropy_of(ids: NDArray[np.intp], weights: NDArray[np.float64]) -> float:
    if int(ids.max()) < 4 * len(ids):  # small id range: a histogram, no sort
        mass = np.bincount(ids, weights)
    else:
        mass = np.bincount(np.unique(ids, return_inverse=True)[1], weights)
    p = mass[mass > 0] / mass.sum()
    return float(-(p * np.log(p)).sum())


def _combine(ids: NDArray[np.intp], column: NDArray[np.integer], size: int) -> NDArray[np.intp]:
    """Configuration ids of (ids, column), re-compressed so they stay small."""
    joint = ids * (size + 1) + (column.astype(np.intp) + 1)  # missing (-1) is a value
    if int(joint.max()) < 4 * len(joint):
        return joint
    return np.unique(joint, return_inverse=True)[1].astype(np.intp)


def _cmi_with_class(ids, column, size, class_index, weights, n_classes) -> float:
    """``I(C; X | B)`` from sparse histograms: H(C,B) + H(X,B) - H(C,X,B) - H(B)
    (Section 5.1; only configurations present in the data are summed)."""
    xb = _combine(ids, column, size)
    return (
        _entropy_of(ids * n_classes + class_index, weights)
        + _entropy_of(xb, weights)
        - _entropy_of(xb * n_classes + class_index, weights)
        - _entropy_of(ids, weights)
    )


def _pair_information(pair_stats, i: int, j: int) -> float:
    """``I(C; X_i, X_j)`` from the (C, r_i, r_j) pair table."""
    table = pair_stats.table(i, j)
    p = table / table.sum()
    pc = p.sum(axis=(1, 2), keepdims=True)
    pxx = p.sum(axis=0, keepdims=True)
    nz = p > 0
    return float((p[nz] * np.log(p[nz] / (pc * pxx)[nz])).sum())


def omi_order(codes, class_index, weights, n_classes, n_categories, pair_stats=None) -> list[int]:
    """OMI: the pair most informative about C first (the one with larger I(C; X) in
    front), then repeatedly the attribute maximising I(C; X | all earlier attributes)
    (Section 5.1, heuristic 1; Algorithm 1). With complete data and ``pair_stats`` the
    first pair is read from the pair tables (the same values as the histograms)."""
    n = codes.shape[1]
    zero = np.zeros(len(codes), dtype=np.intp)
    single = [
        _cmi_with_class(zero, codes[:, i], n_categories[i], class_index, weights, n_classes)
        for i in range(n)
    ]
    if n == 1:
        return [0]
    from_tables = pair_stats is not None and not (codes < 0).any()
    best, pair = -np.inf, (0, 1)
    for i in range(n):
        ids = _combine(zero, codes[:, i], n_categories[i])
        for j in range(i + 1, n):
            if from_tables:
                value = _pair_information(pair_stats, i, j)
            else:
                value = single[i] + _cmi_with_class(
                    ids, codes[:, j], n_categories[j], class_index, weights, n_classes
                )
            if value > best + 1e-12:
                best, pair = value, (i, j)
    first, second = sorted(pair, key=lambda v: -single[v])
    order = [first, second]
    ids = _combine(zero, codes[:, first], n_categories[first])
    ids = _combine(ids, codes[:, second], n_categories[second])
    return _extend_by(order, ids, codes, class_index, weights, n_classes, n_categories)


def _extend_by(order, ids, codes, class_index, weights, n_classes, n_categories) -> list[int]:
    rest = [v for v in range(codes.shape[1]) if v not in order]
    while rest:
        # once the earlier attributes determine the class, H(C | B) = 0 and every
        # I(C; X | B) is 0: a tie, broken by index like every tie here
        if _entropy_of(ids * n_classes + class_index, weights) - _entropy_of(ids, weights) <= 1e-12:
            return order + rest
        # I(C; X | B) = H(C,B) - H(B) + H(X,B) - H(C,X,B): the first two do not depend on X
        values = [
            _conditional_entropy_gain(
                ids, codes[:, v], n_categories[v], class_index, weights, n_classes
            )
            for v in rest
        ]
        chosen = rest[int(np.argmax(values))]
        order.append(chosen)
        rest.remove(chosen)
        ids = _combine(ids, codes[:, chosen], n_categories[chosen])
    return order


def _conditional_entropy_gain(ids, column, size, class_index, weights, n_classes) -> float:
    """``H(X, B) - H(C, X, B)``: I(C; X | B) up to terms that do not depend on X."""
    xb = _combine(ids, column, size)
    return _entropy_of(xb, weights) - _entropy_of(xb * n_classes + class_index, weights)


def omisp_order(codes, class_index, weights, n_classes, n_categories, pair_stats=None) -> list[int]:
    """OMISP: next the attribute maximising ``max_{X' earlier} I(C; X | X')``; the first
    maximises I(C; X) (Section 5.1, heuristic 2)."""
    n = codes.shape[1]
    zero = np.zeros(len(codes), dtype=np.intp)
    single = [
        _cmi_with_class(zero, codes[:, i], n_categories[i], class_index, weights, n_classes)
        for i in range(n)
    ]
    order = [int(np.argmax(single))]
    best_given = np.full(n, -np.inf)
    while len(order) < n:
        last = order[-1]
        ids = _combine(zero, codes[:, last], n_categories[last])
        for v in range(n):
            if v not in order:
                value = _cmi_with_class(
                    ids, codes[:, v], n_categories[v], class_index, weights, n_classes
                )
                best_given[v] = max(best_given[v], value)
        rest = [v for v in range(n) if v not in order]
        order.append(max(rest, key=lambda v: (best_given[v], -v)))
    return order


def _saturated_rate(ids, class_index, weights, n_classes) -> float:
    """CR of the saturated model P(C, config) on the training data (ties: first class)."""
    _, inverse = np.unique(ids, return_inverse=True)
    table = np.zeros((inverse.max() + 1, n_classes))
    np.add.at(table, (inverse, class_index), weights)
    predicted = np.argmax(table, axis=1)[inverse]
    return float(weights[predicted == class_index].sum() / weights.sum())


def ocr_order(codes, class_index, weights, n_classes, n_categories, pair_stats=None) -> list[int]:
    """OCR: next the attribute whose saturated model over (C, X, earlier attributes),
    from sparse histograms, classifies the training data best (Section 5.1, heuristic 3)."""
    n = codes.shape[1]
    ids = np.zeros(len(codes), dtype=np.intp)
    order: list[int] = []
    rest = list(range(n))
    while rest:
        rates = [
            _saturated_rate(
                _combine(ids, codes[:, v], n_categories[v]), class_index, weights, n_classes
            )
            for v in rest
        ]
        chosen = rest[int(np.argmax(rates))]
        order.append(chosen)
        rest.remove(chosen)
        ids = _combine(ids, codes[:, chosen], n_categories[chosen])
    return order


ORDERINGS: dict[str, Callable[..., list[int]]] = {
    "omi": omi_order,
    "omisp": omisp_order,
    "ocr": ocr_order,
}
