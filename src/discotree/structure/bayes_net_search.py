"""Discriminative structure search for k-tree Bayesian network classifiers
(Pernkopf & Bilmes 2010, Sections 4.4 and 5).

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
from collections.abc import Iterable

import numpy as np
from numpy.typing import NDArray

from .candidates import (
    CandidateColumns,
    ColumnCache,
    PairParentCandidates,
    ReplacementCandidates,
    ReplacementColumns,
    SingleParentCandidates,
    StackedColumns,
)
from .scorer import Scorer
from .search_state import LazyColumn, NodeScores

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
    columns: ColumnCache,
    scorer: Scorer,
    node: int,
    candidates: Iterable[tuple[int, ...]],
    *,
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
    margins = scorer.margins_in_order(base) if base is not None else None  # once per node
    while batch := list(itertools.islice(remaining, batch_size)):
        news = columns.candidates(node, batch)
        scores = scorer.values_above(state.joint, best, old, news, base, margins)
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
    *,
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
    columns = ColumnCache(state)
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
            best, found = _first_best_candidate(
                state, columns, scorer, child, candidates, threshold=best
            )
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

    def __init__(self, state: NodeScores, columns: ColumnCache) -> None:
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


def _best_children(
    state: NodeScores,
    columns: ColumnCache,
    scorer: Scorer,
    superparent: int,
    kids: list[int],
    k: int,
    current: float,
) -> tuple[float, tuple[tuple[int, ...], list[LazyColumn]] | None]:
    """SuperParent's step 2: of the children ``kids`` of ``superparent``, the first
    child (k = 1) or pair of children (k >= 2), in the order of
    :func:`itertools.combinations`, whose new columns give the largest score above
    ``current``: ``(score, (children, columns))``, or ``(current, None)``.

    With early abandoning, the pairs that share their first child are scored together
    (:class:`ReplacementCandidates`: each second child replaces its own column), in
    batches of :func:`candidate_batch_size`, each against the best score so far, as
    :func:`_first_best_candidate` does; otherwise one at a time. Both give each pair
    the score :meth:`Scorer.value_above` gives it, so the same first best.
    """
    # each child's column with the superparent added, made once for all its pairs
    new = {j: columns.get(j, tuple(sorted((*state.parents[j], superparent)))) for j in kids}
    best, move = current, None
    group = min(1 if k == 1 else 2, len(kids))
    if group < 2 or not scorer.early_abandon:
        for chosen in itertools.combinations(kids, group):
            changes = [(state.columns[j], new[j]) for j in chosen]
            above = scorer.value_above(state.joint, best, changes)
            if above is not None and above > best:
                best, move = above, (chosen, [new[j] for j in chosen])
        return best, move
    olds = [columns.get(j, state.parents[j]) for j in kids]  # the stored columns, lazily
    replacements = ReplacementColumns(olds, [new[j] for j in kids], scorer.order)
    n_samples, n_classes = state.joint.shape
    batch_size = candidate_batch_size(n_samples, n_classes, scorer.chunk)
    for position, first in enumerate(kids[:-1]):
        joint = state.joint - state.columns[first] + new[first].full()
        base = joint[scorer.order]
        for start in range(position + 1, len(kids), batch_size):
            members = np.arange(start, min(start + batch_size, len(kids)))
            candidates = ReplacementCandidates(replacements, members)
            scores = scorer.values_above(joint, best, None, candidates, base)
            for second, score in zip(members, scores, strict=True):
                if score is not None and score > best:
                    pair = (first, kids[second])
                    best, move = score, (pair, [new[j] for j in pair])
    return best, move


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
    columns = ColumnCache(state)
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
        best, move = _best_children(
            state, columns, scorer, best_sp, children_of[best_sp], k, current
        )
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
    *,
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
    columns = ColumnCache(state)
    current = scorer.value(state.joint)
    changed = True
    for position in range(1, len(order)):
        node, earlier = order[position], sorted(order[:position])
        if changed:  # the joint is unchanged while no parents are kept
            scorer.reorder(state.joint)
            changed = False
        candidates = itertools.combinations(earlier, min(k, position))
        best, move = _first_best_candidate(
            state, columns, scorer, node, candidates, threshold=current
        )
        if move is not None:
            record_edge_gain(gains, move[0], node, best - current)
            state.set_parents(node, *move)
            current = best
            changed = True
            if steps is not None:
                steps.append(list(state.parents))
    return list(state.parents)
