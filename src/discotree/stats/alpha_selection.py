"""The Dirichlet pseudo-count chosen from the data at about the cost of one fit.

Every forest model here (naive Bayes, Chow-Liu, TAN) is fitted from additive pair
counts, so the counts of a cross-validation training fold are the totals minus the
held-out fold's counts: one counting pass over all rows plus one over each fold's rows
(together a second pass) give every fold's statistics, and each (fold, alpha) then
costs a parameter pass over the tables and a scoring pass over the held-out rows.

The criterion is the cross-validated accuracy (the weight of held-out errors), with ties
broken by the cross-validated log-loss. The log-loss alone is a proper scoring rule and
varies smoothly, but for naive Bayes and other models whose independence assumptions
make them overconfident it prefers heavy smoothing that flattens the probabilities and
costs accuracy (digits: naive Bayes picks alpha = 10, 1.7 points below alpha = 1); the
accuracy is what the user of a classifier measures, and the log-loss still decides
among the alphas it cannot tell apart. ``criterion="log-loss"`` is available.

Folds come from a hash of each row's content (:func:`content_folds`): deterministic (no
random state, so a model with ``alpha="auto"`` stays a function of its data), and
identical rows share a fold, so a row of weight k and its k copies are held out together
and the weighted fit chooses the alpha the fit on repeated rows chooses.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .. import missing_values
from ..kernels.alpha_grid import (
    forest_log_likelihood_grid,
    forest_log_tables_grid,
    grid_losses,
    topological_orders,
)
from ..kernels.counts import class_totals
from ..kernels.forest import forest_log_likelihood
from ..numerics import SCORE_TIE_RTOL, class_log_prior, sign_with_ties
from ..threads import available_cores, in_chunks, map_on_cores, single_threaded_blas
from ..validation import check_codes
from .folds import content_folds, row_hashes
from .pair_statistics import PairStatistics

__all__ = [
    "ALPHA_GRID",
    "CALIBRATION_SCALES",
    "ESS_GRID",
    "ForestGrid",
    "best_scale",
    "choose_alpha",
    "content_folds",
    "distinct_row_hashes",
    "forest_models_by_alpha",
    "held_out_losses",
    "row_hashes",
    "select_alpha",
]

#: Pseudo-counts per cell tried by ``alpha="auto"`` (Dirichlet prior).
ALPHA_GRID = (0.03, 0.1, 0.3, 0.5, 1.0, 2.0, 5.0, 10.0)
#: Equivalent sample sizes tried by ``alpha="auto"`` with ``prior="bdeu"``.
ESS_GRID = (0.3, 1.0, 3.0, 10.0, 30.0, 100.0)
#: Temperatures tried to calibrate scores that are not posteriors (the discriminative
#: trees' pairs): ``softmax(scale * scores)``, scale 2**(k/2) for k = -16 .. 4.
CALIBRATION_SCALES = tuple(2.0 ** (k / 2) for k in range(-16, 5))


#: Largest size of the folds' count matrices held at once to count every row once.
_PARTS_FIRST_BYTES = 2**28
#: Cells read per fold (the rows' codes and the count matrices) below which the folds
#: run on the calling thread: a pool costs more than such folds take.
_THREAD_FOLD_WORK = 100_000
#: Table reads below which one thread scores all the rows.
_THREAD_WORK = 2_000_000


def over_row_chunks(run: Callable[[int, int], None], n_rows: int, work_per_row: int) -> None:
    """``run(start, stop)`` over the rows, in one chunk per core when there is enough
    work (:func:`discotree.threads.in_chunks`)."""
    in_chunks(run, n_rows, n_rows * work_per_row, _THREAD_WORK)


def distinct_row_hashes(
    hashes: NDArray[np.uint64], class_index: NDArray[np.intp], n_classes: int, cap: int
) -> list[set[int]]:
    """Up to ``cap`` distinct row hashes of each class (how many folds each class can
    fill: a weighted row and its repeated copies count once)."""
    return [set(np.unique(hashes[class_index == c])[:cap].tolist()) for c in range(n_classes)]


def _row_groups(codes, hashes, class_index):
    """The distinct (row, class) pairs: ``(first, inverse)``, the first row of each
    group (in the order of their hashes) and every row's group (identical rows score
    alike, so each distinct one is scored once; identical rows share a fold, so a
    group never spans two). ``None`` when two hashes collide without the rows being
    equal (then every row is scored on its own)."""
    with np.errstate(over="ignore"):  # the class mixed into the row's hash
        keys = hashes ^ (class_index.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15))
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    same = np.array_equal(codes[first][inverse], codes) and np.array_equal(
        class_index[first][inverse], class_index
    )
    return (first, inverse) if same else None


def select_alpha(
    codes: NDArray[np.integer],
    class_index: NDArray[np.intp],
    weights: NDArray[np.float64] | None,
    n_categories: NDArray[np.intp],
    n_classes: int,
    *,
    model_for: Callable[..., Any],
    grid: tuple[float, ...] = ALPHA_GRID,
    n_folds: int = 5,
    criterion: str = "accuracy",
    total: PairStatistics | None = None,
    pairs: bool = True,
    on_total: Callable[[PairStatistics], None] | None = None,
    scales: tuple[float, ...] = (),
) -> tuple[float, NDArray[np.float64]]:
    """The alpha of ``grid`` with the best cross-validated ``criterion``, kept only if it
    beats alpha = 1 by more than the noise of the folds (:func:`choose_alpha`).

    Parameters
    ----------
    codes, class_index, weights, n_categories, n_classes
        The encoded training data, as for :meth:`PairStatistics.from_codes`.
    model_for : callable
        ``model_for(stats, rows)`` takes a training fold (its statistics, and the
        indices of its rows for models that need more than pair tables) and returns
        ``fit(alpha)``, which gives a scoring model (:mod:`discotree.models.protocol`):
        its ``class_scores(codes, log_prior) -> (n, n_classes)``, of any kind, are
        softmaxed into the predicted posterior. If ``fit`` has
        ``joints_of_grid(codes, log_prior) -> (n, n_classes, len(grid))``, every alpha
        is scored by that one call.
    grid : tuple of float
    n_folds : int
        Fewer folds are used when the smallest class has fewer distinct rows (alpha 1
        when it has fewer than 2).
    total : PairStatistics, optional
        The statistics of all rows, if the caller has them. Otherwise they are the sum
        of the folds' counts (one counting pass in all) when the folds' count matrices
        take at most 256 MB together, else counted in a pass of their own.
    pairs : bool, default=True
        False for models that read the univariate tables only (naive Bayes): the folds
        are then counted in O(n d).
    on_total : callable, optional
        Called with the statistics of all rows when they were counted here (so that
        the caller's final fit reuses them).
    criterion : {"accuracy", "log-loss"}
        ``"accuracy"``: the weighted held-out errors, ties (equal error weight) broken
        by the log-loss; ``"log-loss"``: the log-loss alone.
    scales : tuple of float, optional
        Also the held-out log-loss of the posteriors ``softmax(scale * scores)`` for
        each scale (temperature scaling, for calibrating scores that are not
        posteriors; see :data:`CALIBRATION_SCALES`).

    Returns
    -------
    alpha : float
    losses : ndarray of shape (2 + len(scales), len(grid))
        The summed held-out weight of errors (row 0) and log-loss (row 1) of each
        alpha; row ``2 + k``: the log-loss with the scores times ``scales[k]`` (at the
        chosen alpha only, the other columns NaN, when the held-out scores of every
        alpha fit in 256 MB and are kept for it).
    """
    w = np.ones(len(codes)) if weights is None else weights
    hashes = row_hashes(codes)
    groups = _row_groups(codes, hashes, class_index)
    if groups is not None:  # distinct rows of each class
        distinct = np.bincount(class_index[groups[0]], minlength=n_classes)
    else:
        distinct = np.array(
            [len(found) for found in distinct_row_hashes(hashes, class_index, n_classes, n_folds)]
        )
    n_folds = min(n_folds, int(distinct.min()))
    if n_folds < 2:
        return 1.0, np.zeros((2 + len(scales), len(grid)))
    folds = (hashes % np.uint64(n_folds)).astype(np.intp)
    if groups is not None:
        group_fold = folds[groups[0]]
        group_weight = np.asarray(np.bincount(groups[1], w, len(groups[0])), np.float64)

    def count_fold(k: int) -> PairStatistics:
        held = np.flatnonzero(folds == k)
        return PairStatistics.from_codes(
            codes[held],
            class_index[held],
            n_categories,
            n_classes,
            None if weights is None else weights[held],
            pairs=pairs,
        )

    width = int(np.sum(n_categories))
    fold_cells = n_classes * width**2 if pairs else 0  # one fold's count matrices
    with _fold_runner(n_folds, len(codes) * codes.shape[1] + fold_cells, fold_cells) as each_fold:
        parts: list[PairStatistics] | None = None
        if total is None:
            if n_folds * fold_cells * 8 <= _PARTS_FIRST_BYTES:
                parts = each_fold(count_fold)  # one pass; the total adds them
                total = sum(parts[1:], parts[0])
            else:  # the folds' count matrices would not fit: count the total too
                total = PairStatistics.from_codes(
                    codes, class_index, n_categories, n_classes, weights, pairs=pairs
                )
            if on_total is not None:
                on_total(total)
        class_total = class_totals(class_index, w, n_classes)

        def fold_losses(k: int) -> tuple[NDArray[np.float64], Any]:
            held = np.flatnonzero(folds == k)
            part = parts[k] if parts is not None else count_fold(k)
            train = _complement(total, part)  # in the part's buffer: no more memory
            prior_counts = np.maximum(
                class_total - class_totals(class_index[held], w[held], n_classes), 0
            )
            log_prior = class_log_prior(prior_counts, pseudo_count=1.0)
            fit = model_for(train, np.flatnonzero(folds != k))
            if groups is None:  # a hash collision: every row on its own
                scored, held_weight = held, w[held]
            else:  # one row of each group, with the group's weight
                in_fold = np.flatnonzero(group_fold == k)
                scored, held_weight = groups[0][in_fold], group_weight[in_fold]
            held_codes = check_codes(codes[scored], n_categories)
            if hasattr(fit, "joints_of_grid"):  # every alpha in one pass: (n, C, len(grid))
                joints = fit.joints_of_grid(held_codes, log_prior)
            else:
                joints = np.empty((len(scored), n_classes, len(grid)))
                for a, alpha in enumerate(grid):  # any kind: the losses softmax them
                    joints[:, :, a] = fit(alpha).class_scores(held_codes, log_prior)
            truth = class_index[scored]
            if keep_joints:  # the scales later, at the chosen alpha only
                return held_out_losses(joints, truth, held_weight), (joints, truth, held_weight)
            return held_out_losses(joints, truth, held_weight, scales), None

        # Scoring every scale at every alpha costs len(scales) passes over the held-out
        # scores; when they fit in memory, keep them and score the scales at the chosen
        # alpha alone (the other columns of those rows are then NaN).
        keep_joints = bool(scales) and len(codes) * n_classes * len(grid) * 8 <= _PARTS_FIRST_BYTES
        per_fold = each_fold(fold_losses)
    losses = np.zeros((2 + len(scales), len(grid)))
    for fold, _ in per_fold:  # in fold order, whatever the threads
        losses[: len(fold)] += fold
    best = choose_alpha(np.stack([fold[:2] for fold, _ in per_fold]), grid, criterion)
    if keep_joints:
        losses[2:] = np.nan
        losses[2:, best] = 0.0
        for _, (joints, truth, held_weight) in per_fold:
            chosen = np.ascontiguousarray(joints[:, :, best : best + 1])
            losses[2:, best] += held_out_losses(chosen, truth, held_weight, scales)[2:, 0]
    return float(grid[best]), losses


def choose_alpha(
    fold_losses: NDArray[np.float64], grid: tuple[float, ...], criterion: str = "accuracy"
) -> int:
    """The index in ``grid`` of the alpha to fit, from each fold's held-out losses.

    ``fold_losses`` has shape (n_folds, 2, len(grid)): the weight of errors (row 0) and
    the log-loss (row 1) of every alpha on each fold. The best alpha by ``criterion``
    (errors, ties by the log-loss; or the log-loss alone) is taken only if it beats
    alpha = 1 (when the grid has it) by more than one standard error of the summed
    paired fold differences (``sqrt(n_folds)`` times their standard deviation); else
    alpha = 1: a choice within the noise of the folds keeps the reference smoothing, so
    that the default does not lose to alpha = 1 where the data cannot tell them apart.

    Examples
    --------
    >>> folds = np.array([[[3.0, 2.0], [1.0, 1.0]], [[3.0, 4.0], [1.0, 1.0]]])
    >>> choose_alpha(folds, (0.5, 1.0))  # 5 errors against 6, but within the noise
    1
    """
    fold_losses = np.asarray(fold_losses, dtype=np.float64)
    totals = fold_losses.sum(axis=0)
    row = 1 if criterion == "log-loss" else 0
    if criterion == "log-loss":
        best = int(np.argmin(totals[1]))
    else:
        errors = np.round(totals[0], 9)  # equal error weights tie (rounding aside)
        candidates = np.flatnonzero(errors == errors.min())
        best = int(candidates[int(np.argmin(totals[1, candidates]))])
    if 1.0 not in grid or len(fold_losses) < 2:
        return best
    reference = list(grid).index(1.0)
    difference = fold_losses[:, row, best] - fold_losses[:, row, reference]
    error = np.sqrt(len(difference)) * difference.std(ddof=1)
    # "more than one standard error", ties by the package's rule: with one fold apart
    # from the others the gain and its error are equal, and only the last bit of two
    # sums (which depends on the order of the additions) would decide
    scale = max(abs(float(difference.sum())), float(error))
    within = sign_with_ties(np.array(difference.sum() + error), scale) >= 0
    if best != reference and within and sign_with_ties(np.array(error), scale) > 0:
        return reference
    return best


def best_scale(log_losses: NDArray[np.float64], scales: tuple[float, ...]) -> float:
    """The scale of least held-out log-loss (ties to the one nearest 1: the smallest
    change of the scores)."""
    distance = np.abs(np.log(np.asarray(scales)))
    order = np.lexsort((distance, np.round(log_losses, 9)))
    return float(scales[order[0]])


@contextlib.contextmanager
def _fold_runner(n_folds: int, work: int, cells: int) -> Iterator[Callable[..., list[Any]]]:
    """``each_fold(run) -> [run(0), ..., run(n_folds - 1)]``: on threads, one per core
    (BLAS on one thread meanwhile), when a fold reads at least ``_THREAD_FOLD_WORK``
    cells (``work``: codes and count matrices) and the ``cells`` of the count matrices
    of as many folds as threads fit in ``_PARTS_FIRST_BYTES``; else on this thread.
    The results come in fold order, so what is added from them does not depend on the
    cores."""
    with contextlib.ExitStack() as stack:
        n_threads = min(available_cores(), n_folds)
        split = (
            n_threads > 1
            and work >= _THREAD_FOLD_WORK
            and n_threads * cells * 8 <= _PARTS_FIRST_BYTES
            and stack.enter_context(single_threaded_blas())
        )

        def each_fold(run: Callable[[int], Any]) -> list[Any]:
            if not split:
                return [run(k) for k in range(n_folds)]
            return map_on_cores(run, range(n_folds))

        yield each_fold


def _complement(total: PairStatistics, part: PairStatistics) -> PairStatistics:
    """``total - part`` (the statistics of a training fold) written over ``part``'s
    counts, which are not read again; differences below zero (rounding of weighted
    counts) are set to zero, as ``PairStatistics.__sub__`` does. Univariate-only
    statistics (O(n_classes D)) are simply subtracted."""
    if not (total.pairs and part.pairs):
        return total - part  # the univariate counts: O(n_classes D)
    counts = np.subtract(total.counts, part.counts, out=part.counts)
    np.maximum(counts, 0.0, out=counts)
    return PairStatistics(
        counts=counts, n_categories=total.n_categories, pairs=total.pairs and part.pairs
    )


class ForestGrid:
    """Forests of a fixed structure whose tables are smoothed for every pseudo-count of a
    grid at once, read straight from block count matrices, and scored in one pass over
    the rows (the kernels of :mod:`discotree.kernels.alpha_grid`).

    Parameters
    ----------
    parents : ndarray of shape (n_forests, n_features)
        Parent of each feature in each forest, ``-1`` for roots.
    n_categories : ndarray of shape (n_features,)
    epsilon : float
        Floor of the probabilities that are still zero.
    prior : {"dirichlet", "bdeu"}
    bdeu_classes : int, optional
        The number of classes over which BDeu spreads its equivalent sample size
        (:func:`~discotree.stats.discrete.cell_pseudo_count`); default ``n_forests``.
    plus, minus : ndarray of shape (n_forests,), optional
        Forest k counts ``counts[plus[k]] - counts[minus[k]]`` (``minus[k] = -1``: no
        subtraction); default: forest k is class k.

    Notes
    -----
    The flat layout of the tables is that of :class:`DiscreteForestModel` (table (k, j)
    after every table of the forests before k and of the features before j, each
    row-major (r_parent, r_j)), with the pseudo-counts on the last axis.
    """

    def __init__(
        self,
        parents: NDArray[np.integer],
        n_categories: NDArray[np.integer],
        epsilon: float,
        prior: str = "dirichlet",
        bdeu_classes: int | None = None,
        plus: NDArray[np.integer] | None = None,
        minus: NDArray[np.integer] | None = None,
    ) -> None:
        if prior not in ("dirichlet", "bdeu"):
            raise ValueError(f"prior must be one of ('dirichlet', 'bdeu'), got {prior!r}")
        self.parents = np.ascontiguousarray(parents, dtype=np.intp)
        self.n_categories = np.ascontiguousarray(n_categories, dtype=np.intp)
        n_forests, n_features = self.parents.shape
        r_parent = np.where(self.parents < 0, 1, self.n_categories[np.maximum(self.parents, 0)])
        sizes = (r_parent * self.n_categories[None, :]).ravel()
        offsets = np.zeros(sizes.size, dtype=np.intp)
        np.cumsum(sizes[:-1], out=offsets[1:])
        self.offsets = offsets.reshape(n_forests, n_features)
        self.size = int(sizes.sum())
        self.order = np.empty_like(self.parents)
        if not topological_orders(self.parents, self.order):
            raise ValueError("parents do not describe forests (cycle found)")
        self.block_start = np.zeros(n_features + 1, dtype=np.intp)
        np.cumsum(self.n_categories, out=self.block_start[1:])
        self.plus = np.arange(n_forests, dtype=np.intp) if plus is None else np.asarray(plus)
        self.minus = np.full(n_forests, -1, np.intp) if minus is None else np.asarray(minus)
        self.plus = self.plus.astype(np.intp)
        self.minus = self.minus.astype(np.intp)
        self.bdeu_classes = 0 if prior == "dirichlet" else int(bdeu_classes or n_forests)
        self.epsilon = float(epsilon)

    def log_tables(
        self, counts: NDArray[np.float64], alphas: tuple[float, ...]
    ) -> NDArray[np.float64]:
        """The log tables for every alpha, shape (size, len(alphas)), from block count
        matrices ``counts`` (n_sources, D, D)."""
        out = np.empty((self.size, len(alphas)))
        if counts.strides[-1] != 0:  # (not a view of univariate counts: those stay)
            counts = np.ascontiguousarray(counts, dtype=np.float64)
        forest_log_tables_grid(
            counts,
            self.plus,
            self.minus,
            self.parents,
            self.n_categories,
            self.block_start,
            self.offsets,
            np.asarray(alphas, dtype=np.float64),
            self.bdeu_classes,
            self.epsilon,
            out,
        )
        return out

    def log_likelihood(
        self, codes: NDArray[np.integer], log_tables: NDArray[np.float64]
    ) -> NDArray[np.float64]:
        """``log P(x | forest k)`` of every row under every column of ``log_tables``,
        shape (n_samples, n_forests, n_alphas), missing features summed out."""
        log_tables = np.ascontiguousarray(log_tables)
        # the linear tables serve the rows with missing values only
        tables = (
            np.exp(log_tables)
            if missing_values.has_missing(codes)
            else np.empty((0, log_tables.shape[1]))
        )
        out = np.empty((len(codes), self.parents.shape[0], log_tables.shape[1]))

        def score(start: int, stop: int) -> None:
            forest_log_likelihood_grid(
                codes[start:stop],
                self.parents,
                self.order,
                self.n_categories,
                log_tables,
                tables,
                self.offsets,
                out[start:stop],
            )

        over_row_chunks(score, len(codes), out[0].size * self.parents.shape[1] if len(out) else 0)
        return out

    def models(self, counts: NDArray[np.float64], grid: tuple[float, ...]) -> Callable[..., Any]:
        """``alpha -> model`` (with ``log_likelihood(codes)``, (n, n_forests)) for the
        forests counted in ``counts``, with ``joints_of_grid(codes, log_prior)``: the
        joint scores (n, n_forests, len(grid)) of every alpha of ``grid`` at once."""
        every = self.log_tables(counts, grid)
        column = {alpha: a for a, alpha in enumerate(grid)}

        def fit(alpha: float) -> _PackedForest:
            if alpha in column:
                flat = np.ascontiguousarray(every[:, column[alpha]])
            else:
                flat = self.log_tables(counts, (alpha,))[:, 0]
            return _PackedForest(self.parents, self.order, self.n_categories, flat, self.offsets)

        def joints_of_grid(codes, log_prior):
            out = self.log_likelihood(codes, every)
            out += np.asarray(log_prior)[None, :, None]
            return out

        fit.joints_of_grid = joints_of_grid  # type: ignore[attr-defined]
        return fit


def held_out_losses(
    joints: NDArray[np.float64],
    truth: NDArray[np.intp],
    weight: NDArray[np.number],
    scales: tuple[float, ...] = (),
) -> NDArray[np.float64]:
    """(2 + len(scales), A): the weighted errors and log-loss of every alpha from joint
    scores (n, C, A), then the log-loss of the scores times each scale."""
    out = np.empty((2 + len(scales), joints.shape[2]))
    errors = np.empty((len(joints), joints.shape[2]))
    log_losses = np.empty_like(errors)
    for row, scale in enumerate((1.0, *scales)):
        scaled = joints if row == 0 else np.ascontiguousarray(joints * scale)

        def run(start: int, stop: int, scaled=scaled) -> None:
            grid_losses(
                scaled[start:stop],
                truth[start:stop],
                SCORE_TIE_RTOL,
                errors[start:stop],
                log_losses[start:stop],
            )

        over_row_chunks(run, len(joints), 10 * joints[0].size if len(joints) else 0)
        if row == 0:
            out[0] = weight @ errors
            out[1] = weight @ log_losses
        else:
            out[1 + row] = weight @ log_losses
    return out


def forest_models_by_alpha(
    stats: PairStatistics,
    parents: NDArray[np.intp],
    epsilon: float,
    prior: str = "dirichlet",
    grid: tuple[float, ...] = (),
) -> Callable[..., Any]:
    """``alpha -> model`` for the per-class forests ``parents`` counted in ``stats``
    (the numbers of :meth:`DiscreteForestModel.from_statistics`, up to the order of a
    few additions), with ``joints_of_grid`` for every alpha of ``grid`` in one pass
    (:meth:`ForestGrid.models`)."""
    bank = ForestGrid(parents, stats.n_categories, epsilon, prior, bdeu_classes=stats.n_classes)
    return bank.models(stats.counts, grid)


class _PackedForest:
    """A forest model's parameters in the kernel's flat layout (no per-table objects):
    what the cross-validation scores for each alpha: a joint
    (:mod:`discotree.models.protocol`)."""

    score_kind = "joint"

    def __init__(self, parents, order, n_categories, flat, offsets) -> None:
        self.parents, self.order, self.n_categories = parents, order, n_categories
        self.flat, self.offsets = flat, offsets

    def log_likelihood(self, codes: NDArray[np.integer]) -> NDArray[np.float64]:
        out = np.empty((codes.shape[0], self.parents.shape[0]))
        forest_log_likelihood(
            codes, self.parents, self.order, self.n_categories, self.flat, self.offsets, out
        )
        return out

    def class_scores(
        self, codes: NDArray[np.integer], log_prior: NDArray[np.float64]
    ) -> NDArray[np.float64]:
        """``log P(x, c)`` under the class prior ``log_prior``."""
        return self.log_likelihood(codes) + log_prior
