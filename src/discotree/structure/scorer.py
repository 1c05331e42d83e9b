"""The training-data score of a joint ``log P(c, x)`` matrix and of candidate changes
to it, for the discriminative structure searches of
:mod:`discotree.structure.bayes_net_search` (Pernkopf & Bilmes 2010, Section 4.4.1:
speed-up 1, early abandoning over samples ordered by margin; speed-up 2, only the
changed column is recomputed)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..kernels.candidate_scores import candidate_hits
from ..kernels.sparse_families import posterior_loss_sums
from ..numerics import GAIN_RTOL, SCORE_TIE_RTOL, argmax_with_ties
from .candidates import CandidateColumns
from .search_state import LazyColumn

__all__ = ["Scorer"]

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
        # whole-number weights (sample_weight=None: ones) sum exactly in any order, so a
        # candidate's score need not be summed in sample order to equal :meth:`value`
        self._whole_weights = bool(
            np.all(weights >= 0) and np.all(weights == np.floor(weights)) and self.total < 2**53
        )
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
        if self.score == "cr":
            correct = argmax_with_ties(joint) == self.class_index
            return float(self.weights[correct].sum()) / self.total
        # one compiled pass over the rows (scipy's logsumexp was most of a CLL search)
        _, log_loss = posterior_loss_sums(joint, self.class_index, self.weights, only="log_loss")
        return -log_loss / self.total

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
        slack = SCORE_TIE_RTOL * self.total
        hits = np.zeros(len(self.order), dtype=bool)
        start, size = 0, self.chunk
        while start < len(self.order):
            rows = self.order[start : start + size]
            start, size = start + size, min(2 * size, 16 * self.chunk)
            block = joint[rows]
            self.n_rows_scored += len(rows)
            for old, new in changes:
                block = block - old[rows] + new[rows]
            hit = argmax_with_ties(block) == self.class_index[rows]
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
        old: NDArray[np.float64] | None,
        candidates: CandidateColumns,
        base_in_order: NDArray[np.float64] | None = None,
        margins_in_order: NDArray[np.float64] | None = None,
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

        Where ``candidates.replaces`` (:class:`~.candidates.ReplacementCandidates`),
        each candidate takes out a column of its own instead of ``old`` (ignored) and
        ``base_in_order`` is ``joint`` in :attr:`order`.

        Otherwise the samples that every candidate classifies correctly, whatever
        column it puts in, are not read: those whose margin without the column
        (``margins_in_order``, :meth:`margins_in_order` of ``base_in_order``, made here
        when not given) exceeds the largest spread of a row of the candidates' table
        across classes (:func:`_always_hit`). They count as hits, so the scores are
        unchanged.
        """
        n_candidates = len(candidates)
        if n_candidates == 0:
            return []
        if not self.early_abandon or n_candidates == 1:
            return [
                self.value_above(joint, threshold, [self._change(old, candidates, i)])
                for i in range(n_candidates)
            ]
        if base_in_order is None:
            if candidates.replaces:
                base_in_order = joint[self.order]
            elif old is None:
                raise ValueError("old is needed for candidates that replace one column")
            else:
                base_in_order = self.difference_in_order(joint, old)
        always = None
        if not candidates.replaces:
            if margins_in_order is None:
                margins_in_order = self.margins_in_order(base_in_order)
            always = _always_hit(margins_in_order, candidates.table)
        race = _Race(self, candidates, base_in_order, threshold * self.total, always)
        race.run()
        self.n_evaluations += n_candidates
        self.n_abandoned += int((~race.alive).sum())
        return race.scores()

    def margins_in_order(self, base_in_order: NDArray[np.float64]) -> NDArray[np.float64]:
        """Each sample's margin under ``base_in_order`` (rows in :attr:`order`): its
        class's value minus the largest of the others, less a rounding allowance (a
        relative 1e-12 of both; ``inf`` with one class; ``nan`` or ``-inf`` where its
        class's value is ``-inf``)."""
        n, n_classes = base_in_order.shape
        if n_classes == 1:
            return np.full(n, np.inf)
        rows = np.arange(n)
        true = base_in_order[rows, self._class_in_order]
        others = base_in_order.copy()
        others[rows, self._class_in_order] = -np.inf
        best_other = others.max(axis=1)
        with np.errstate(invalid="ignore"):  # -inf - -inf: nan, never above a bound
            return true - best_other - GAIN_RTOL * (np.abs(true) + np.abs(best_other))

    def _hits(
        self,
        base: NDArray[np.float64],
        candidates: CandidateColumns,
        live: NDArray[np.intp],
        positions: slice | NDArray[np.intp],
        truth: NDArray[np.intp],
    ) -> NDArray[np.bool_]:
        """Which samples at ``positions`` of :attr:`order` candidates ``live`` hit."""
        index = candidates.index_at(live, self.order, positions)  # (L, R)
        old = candidates.old_index_at(live, self.order, positions) if candidates.replaces else None
        return candidate_hits(base, candidates.table, index, truth, old)

    @staticmethod
    def _change(old, candidates: CandidateColumns, i: int) -> tuple[Any, LazyColumn]:
        """Candidate i's (old column, new column)."""
        if candidates.replaces:
            return candidates.old_column(i), candidates.column(i)
        return old, candidates.column(i)

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
        if self._whole_weights:  # exact in any order
            return float(hits_in_order.astype(np.float64) @ self._weights_in_order)
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
        wrong = argmax_with_ties(joint) != self.class_index
        margin[wrong] = -np.inf
        self.order = np.argsort(margin, kind="stable")


def _apply(joint, changes):
    """``joint - old + new`` for each change, in the order :class:`NodeScores` uses."""
    for old, new in changes:
        joint = joint - old + _full(new)
    return joint


def _full(column):
    return column.full() if isinstance(column, LazyColumn) else column


def _always_hit(
    margins: NDArray[np.float64], table: NDArray[np.float64]
) -> NDArray[np.bool_] | None:
    """The samples every column read from ``table`` leaves correctly classified: a
    column changes a sample's margin by at most the spread (largest minus smallest
    entry) of the table row it reads, so a margin (:meth:`Scorer.margins_in_order`)
    above the largest spread survives every candidate; ``None`` when a spread is not
    finite (a log-probability of zero)."""
    if table.size == 0:
        return None
    with np.errstate(invalid="ignore"):
        spread = float(np.max(table.max(axis=1) - table.min(axis=1)))
    if not np.isfinite(spread):
        return None
    with np.errstate(invalid="ignore"):
        return margins > spread * (1 + GAIN_RTOL)


class _Race:
    """One :meth:`Scorer.values_above` call: the candidates read chunk by chunk over
    the samples in the scorer's order (those of ``always`` left out: hits of every
    candidate), abandoned once they cannot reach ``needed``, the leader after the first
    chunk scored to the end (Section 4.4.1's speed-up 1 for many candidates at once)."""

    def __init__(
        self,
        scorer: Scorer,
        candidates: CandidateColumns,
        base_in_order: NDArray[np.float64],
        needed: float,
        always: NDArray[np.bool_] | None,
    ) -> None:
        self.scorer, self.candidates, self.base = scorer, candidates, base_in_order
        self.always = always if always is not None and always.any() else None
        weights = scorer._weights_in_order
        # positions (in the scorer's order) to read; None: all of them
        self.read = None if self.always is None else np.flatnonzero(~self.always)
        self.n_read = len(weights) if self.read is None else len(self.read)
        self.weights_read = weights if self.read is None else weights[self.read]
        classes = scorer._class_in_order
        self.class_read = classes if self.read is None else classes[self.read]
        self.always_weight = 0.0 if self.always is None else float(weights[self.always].sum())
        n = len(candidates)
        self.alive = np.ones(n, dtype=bool)  # not abandoned
        self.running = self.alive.copy()  # alive and not yet scored to the end
        self.correct = np.full(n, self.always_weight)
        self.remaining = scorer.total - self.always_weight
        self.hits = np.zeros((n, self.n_read), dtype=bool)  # by position among those read
        self.needed, self.slack = needed, SCORE_TIE_RTOL * scorer.total

    def run(self) -> None:
        start, size, led = 0, self.scorer.chunk, False
        while start < self.n_read and self.running.any():
            part = slice(start, min(start + size, self.n_read))
            start, size = part.stop, min(2 * size, 16 * self.scorer.chunk)
            live = np.flatnonzero(self.running)
            hit = self._read(live, part)
            w = self.weights_read[part]
            self.correct[live] += hit.astype(np.float64) @ w
            self.remaining -= float(w.sum())
            self._abandon(live)
            if not led and start < self.n_read and self.running.sum() > 1:
                led = True
                self._lead(start)

    def _read(self, live: NDArray[np.intp], part: slice) -> NDArray[np.bool_]:
        positions = part if self.read is None else self.read[part]
        self.scorer.n_rows_scored += len(live) * (part.stop - part.start)
        base = self.base[positions]
        hit = self.scorer._hits(base, self.candidates, live, positions, self.class_read[part])
        self.hits[live, part] = hit
        return hit

    def _abandon(self, live: NDArray[np.intp]) -> None:
        dead = live[self.correct[live] + self.remaining < self.needed - self.slack]
        self.alive[dead] = self.running[dead] = False

    def _lead(self, start: int) -> None:
        """Score the candidate with the most hits so far to the end; the others must
        at least be able to tie it."""
        live = np.flatnonzero(self.running)
        leader = int(live[np.argmax(self.correct[live])])
        self._read(np.array([leader]), slice(start, self.n_read))
        self.running[leader] = False
        score = self.hit_weight(leader)
        if score < self.needed - self.slack:
            self.alive[leader] = False
        self.needed = max(self.needed, score)
        self._abandon(np.flatnonzero(self.running))

    def hit_weight(self, i: int) -> float:
        """The weight candidate i classifies correctly, exactly as :meth:`Scorer.value`
        sums it (read to the end)."""
        if self.scorer._whole_weights:  # whole numbers: exact in any order
            return float(self.hits[i].astype(np.float64) @ self.weights_read) + self.always_weight
        full = np.zeros(len(self.scorer.order), dtype=bool)
        if self.always is not None:
            full[self.always] = True
        full[slice(None) if self.read is None else self.read] = self.hits[i]
        return self.scorer._sum_in_sample_order(full)

    def scores(self) -> list[float | None]:
        """The exact score of every candidate not abandoned, None for the others."""
        scores: list[float | None] = [None] * len(self.alive)
        kept = np.flatnonzero(self.alive)
        if self.scorer._whole_weights:  # one product for all
            sums = self.hits[kept].astype(np.float64) @ self.weights_read + self.always_weight
        else:
            sums = np.array([self.hit_weight(int(i)) for i in kept])
        for i, total in zip(kept, sums, strict=True):
            scores[i] = float(total) / self.scorer.total
        return scores
