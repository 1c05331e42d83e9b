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

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._fitting import argmax_with_ties
from .._validation import check_codes
from ..kernels.forest import forest_log_likelihood, forest_log_likelihood_many
from .discrete import PairStatistics, cell_pseudo_count, smoothed_conditional

__all__ = [
    "ALPHA_GRID",
    "ESS_GRID",
    "content_folds",
    "distinct_row_hashes",
    "forest_models_by_alpha",
    "row_hashes",
    "select_alpha",
]

#: Pseudo-counts per cell tried by ``alpha="auto"`` (Dirichlet prior).
ALPHA_GRID = (0.03, 0.1, 0.3, 0.5, 1.0, 2.0, 5.0, 10.0)
#: Equivalent sample sizes tried by ``alpha="auto"`` with ``prior="bdeu"``.
ESS_GRID = (0.3, 1.0, 3.0, 10.0, 30.0, 100.0)


def row_hashes(codes: NDArray[np.integer]) -> NDArray[np.uint64]:
    """A 64-bit hash of each row's codes (FNV-1a over the columns, then splitmix64
    mixing): identical rows, identical hashes."""
    n = len(codes)
    h = np.full(n, 0xCBF29CE484222325, dtype=np.uint64)
    prime = np.uint64(0x100000001B3)
    with np.errstate(over="ignore"):
        for j in range(codes.shape[1]):
            h = (h ^ (codes[:, j].astype(np.int64) + 2).astype(np.uint64)) * prime
        h ^= h >> np.uint64(33)  # final mixing (splitmix64)
        h *= np.uint64(0xFF51AFD7ED558CCD)
        h ^= h >> np.uint64(33)
        h *= np.uint64(0xC4CEB9FE1A85EC53)
        h ^= h >> np.uint64(33)
    return h


def content_folds(codes: NDArray[np.integer], n_folds: int) -> NDArray[np.intp]:
    """Fold of every row from a hash of its features' codes (not its class, so renaming
    the classes changes no fold).

    Identical rows share a fold, so a row of weight k and its k repeated copies are
    held out together: a weighted fit and the fit on repeated rows see the same folds
    and choose the same alpha (and duplicated rows never sit on both sides of a split).
    Deterministic, with no random state; the classes are spread over the folds as by a
    random assignment (not exactly stratified).

    Examples
    --------
    >>> codes = np.array([[0, 1], [0, 1], [2, 0]])
    >>> folds = content_folds(codes, 5)
    >>> bool(folds[0] == folds[1])
    True
    """
    return (row_hashes(codes) % np.uint64(n_folds)).astype(np.intp)


def distinct_row_hashes(
    hashes: NDArray[np.uint64], class_index: NDArray[np.intp], n_classes: int, cap: int
) -> list[set[int]]:
    """Up to ``cap`` distinct row hashes of each class (how many folds each class can
    fill: a weighted row and its repeated copies count once)."""
    return [set(np.unique(hashes[class_index == c])[:cap].tolist()) for c in range(n_classes)]


def _grouped_rows(codes, hashes, class_index, rows):
    """The distinct (row, class) pairs among ``rows``: representatives, and for every
    row the index of its representative (identical rows score alike, so each distinct
    one is scored once). Rows whose hashes collide without being equal are not grouped."""
    with np.errstate(over="ignore"):  # the class mixed into the row's hash
        keys = hashes[rows] ^ (class_index[rows].astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15))
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    representatives = rows[first]
    same = np.array_equal(codes[representatives][inverse], codes[rows]) and np.array_equal(
        class_index[representatives][inverse], class_index[rows]
    )
    if not same:
        return rows, np.arange(len(rows))  # a hash collision: score every row
    return representatives, inverse


def select_alpha(
    codes: NDArray[np.integer],
    class_index: NDArray[np.intp],
    weights: NDArray[np.float64] | None,
    n_categories: NDArray[np.intp],
    n_classes: int,
    model_for: Callable[..., Any],
    grid: tuple[float, ...] = ALPHA_GRID,
    n_folds: int = 5,
    criterion: str = "accuracy",
    total: PairStatistics | None = None,
    pairs: bool = True,
) -> tuple[float, NDArray[np.float64]]:
    """The alpha of ``grid`` with the smallest cross-validated log-loss.

    Parameters
    ----------
    codes, class_index, weights, n_categories, n_classes
        The encoded training data, as for :meth:`PairStatistics.from_codes`.
    model_for : callable
        ``model_for(stats, rows)`` learns whatever does not depend on alpha from a
        training fold (its statistics, and the indices of its rows for models that need
        more than pair tables) and returns ``fit(alpha)``, which gives a model
        with ``log_likelihood(codes) -> (n, n_classes)`` (the class prior is added), or
        with ``scores(codes, log_prior) -> (n, n_classes)``, whose softmax is the
        predicted posterior.
    grid : tuple of float
    n_folds : int
        Fewer folds are used when the smallest class has fewer distinct rows (alpha 1
        when it has fewer than 2).
    total : PairStatistics, optional
        The statistics of all rows, if the caller has them (they are counted here
        otherwise).
    pairs : bool, default=True
        False for models that read the univariate tables only (naive Bayes): the folds
        are then counted in O(n d).
    criterion : {"accuracy", "log-loss"}
        ``"accuracy"``: the weighted held-out errors, ties (equal error weight) broken
        by the log-loss; ``"log-loss"``: the log-loss alone.

    Returns
    -------
    alpha : float
    losses : ndarray of shape (2, len(grid))
        The summed held-out weight of errors (row 0) and log-loss (row 1) of each alpha.
    """
    w = np.ones(len(codes)) if weights is None else weights
    hashes = row_hashes(codes)
    distinct = distinct_row_hashes(hashes, class_index, n_classes, n_folds)
    n_folds = min(n_folds, min(len(found) for found in distinct))
    if n_folds < 2:
        return 1.0, np.zeros(len(grid))
    folds = (hashes % np.uint64(n_folds)).astype(np.intp)
    if total is None:
        total = PairStatistics.from_codes(
            codes, class_index, n_categories, n_classes, weights, pairs=pairs
        )
    class_total = np.bincount(class_index, w, n_classes)
    losses = np.zeros((2, len(grid)))
    for k in range(n_folds):
        held = np.flatnonzero(folds == k)
        part = PairStatistics.from_codes(
            codes[held],
            class_index[held],
            n_categories,
            n_classes,
            None if weights is None else weights[held],
            pairs=pairs,
        )
        train = total - part
        prior_counts = np.maximum(
            class_total - np.bincount(class_index[held], w[held], n_classes), 0
        )
        log_prior = np.log((prior_counts + 1.0) / (prior_counts.sum() + n_classes))
        fit = model_for(train, np.flatnonzero(folds != k))
        scored, inverse = _grouped_rows(codes, hashes, class_index, held)
        held_weight = np.bincount(inverse, w[held], len(scored))  # the group's weight
        rows = np.arange(len(scored))
        held_codes = check_codes(codes[scored], n_categories)
        if hasattr(fit, "log_likelihood_of_grid"):  # every alpha in one pass
            joints = fit.log_likelihood_of_grid(held_codes) + log_prior
        elif hasattr(fit, "scores_of_grid"):  # composite scores, every alpha at once
            joints = fit.scores_of_grid(held_codes, log_prior)
        else:
            joints = np.empty((len(grid), len(scored), n_classes))
            for a, alpha in enumerate(grid):
                model = fit(alpha)
                if hasattr(model, "scores"):  # composite scores (discriminative forests)
                    joints[a] = model.scores(held_codes, log_prior)
                else:
                    joints[a] = model.log_likelihood(held_codes) + log_prior
        # every alpha at once: posteriors, errors and log-loss
        top = joints.max(axis=2, keepdims=True)
        log_norm = top + np.log(np.exp(joints - top).sum(axis=2, keepdims=True))
        truth = class_index[scored]
        true_log_posterior = joints[:, rows, truth] - log_norm[:, :, 0]
        predicted = argmax_with_ties(joints.reshape(-1, n_classes)).reshape(len(grid), -1)
        losses[0] += (predicted != truth) @ held_weight
        losses[1] -= true_log_posterior @ held_weight
    if criterion == "log-loss":
        return float(grid[int(np.argmin(losses[1]))]), losses
    errors = np.round(losses[0], 9)  # equal error weights tie (rounding aside)
    candidates = np.flatnonzero(errors == errors.min())
    best = candidates[int(np.argmin(losses[1, candidates]))]
    return float(grid[best]), losses


def forest_models_by_alpha(
    stats: PairStatistics,
    parents: NDArray[np.intp],
    epsilon: float,
    prior: str = "dirichlet",
    grid: tuple[float, ...] = (),
):
    """``alpha -> model`` for fixed forests: the count tables are gathered once and
    smoothed for all the alphas of ``grid`` in one array operation per table shape (the
    same numbers as :meth:`DiscreteForestModel.from_statistics`, which smooths them one
    by one); the models hold their parameters in the kernel's flat layout."""
    from ..models.discrete_forest import DiscreteForestModel  # models sit above stats

    parents = np.asarray(parents, dtype=np.intp)
    n_classes, n_features = parents.shape
    groups: dict[tuple[int, ...], list[tuple[int, int, NDArray[np.float64]]]] = {}
    for c in range(n_classes):
        for j in range(n_features):
            p = int(parents[c, j])
            counts = stats.marginal(j)[c][None, :] if p < 0 else stats.table(p, j)[c]
            groups.setdefault(counts.shape, []).append((c, j, counts))
    stacked = {shape: np.stack([t for *_, t in items]) for shape, items in groups.items()}
    skeleton = DiscreteForestModel(
        parents,
        stats.n_categories,
        [[np.zeros(shape) for shape in row] for row in _shapes(groups, parents)],
    )
    _, offsets, order = skeleton._packed  # the layout is the same for every alpha
    position = {(c, j): k for k, (c, j) in enumerate(np.ndindex(n_classes, n_features))}
    total_size = sum(int(np.prod(shape)) * len(items) for shape, items in groups.items())

    starts = offsets.ravel()
    destination = {  # where each table of a shape group goes in the flat layout
        shape: starts[[position[c, j] for c, j, _ in items]][:, None]
        + np.arange(int(np.prod(shape)))[None, :]
        for shape, items in groups.items()
    }
    n_categories = np.asarray(stats.n_categories, np.intp)

    def packed(alphas: tuple[float, ...]) -> NDArray[np.float64]:
        """The flat log tables for every alpha at once, shape (len(alphas), size)."""
        flat = np.empty((len(alphas), total_size))
        for shape, tables in stacked.items():
            cells = np.array([cell_pseudo_count(a, prior, n_classes, shape) for a in alphas])
            counts = tables[None] + cells.reshape(-1, 1, 1, 1)  # (alphas, tables, r_p, r_j)
            with np.errstate(divide="ignore"):
                logs = np.log(smoothed_conditional(counts, 0.0, epsilon))
            flat[:, destination[shape]] = logs.reshape(len(alphas), len(tables), -1)
        return flat

    every = packed(grid) if grid else np.empty((0, total_size))
    cache = dict(zip(grid, every, strict=True))

    def fit(alpha: float) -> _PackedForest:
        flat = cache[alpha] if alpha in cache else packed((alpha,))[0]
        return _PackedForest(parents, order, n_categories, flat, offsets)

    def log_likelihood_of_grid(codes: NDArray[np.integer]) -> NDArray[np.float64]:
        """``log P(x | c)`` under every alpha of ``grid``, (len(grid), n, n_classes),
        in one pass over the rows."""
        out = np.empty((len(grid), codes.shape[0], parents.shape[0]))
        forest_log_likelihood_many(codes, parents, order, n_categories, every, offsets, out)
        return out

    fit.log_likelihood_of_grid = log_likelihood_of_grid  # type: ignore[attr-defined]
    return fit


def _shapes(groups, parents) -> list[list[tuple[int, ...]]]:
    shapes: list[list[tuple[int, ...]]] = [[()] * parents.shape[1] for _ in range(parents.shape[0])]
    for shape, items in groups.items():
        for c, j, _ in items:
            shapes[c][j] = shape
    return shapes


class _PackedForest:
    """A forest model's parameters in the kernel's flat layout (no per-table objects):
    what the cross-validation scores for each alpha."""

    def __init__(self, parents, order, n_categories, flat, offsets) -> None:
        self.parents, self.order, self.n_categories = parents, order, n_categories
        self.flat, self.offsets = flat, offsets

    def log_likelihood(self, codes: NDArray[np.integer]) -> NDArray[np.float64]:
        out = np.empty((codes.shape[0], self.parents.shape[0]))
        forest_log_likelihood(
            codes, self.parents, self.order, self.n_categories, self.flat, self.offsets, out
        )
        return out
