"""The learners of boosted graphical model classifiers (Tan et al. 2010, Algorithm 2):
the weak learners (two-class statistics in, the parents of a pair of forests out) and
the line search of each round's weight (step 5), shared by the in-memory fit and the
Dask engine."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import brentq

from ..stats.discriminative import discriminative_weights
from ..stats.pair_statistics import PairStatistics
from ..structure.chow_liu import chow_liu_forest, forest_parents
from ..structure.discriminative import discriminative_forest_paths
from .discriminative_tree import binary_tasks

__all__ = [
    "BASE_LEARNERS",
    "BoostingSpec",
    "chow_liu_parents",
    "dt_parents",
    "line_search_alpha",
    "line_search_by_slope",
    "tan_parents",
]


def dt_parents(stats: PairStatistics, alpha: float) -> NDArray[np.intp]:
    psi_pos, psi_neg = discriminative_weights(stats, 1, 0, alpha)
    path_pos, path_neg = discriminative_forest_paths(psi_pos, psi_neg)
    d = stats.n_features
    return np.stack([forest_parents(d, path_neg.edges), forest_parents(d, path_pos.edges)])


def chow_liu_parents(stats: PairStatistics, alpha: float) -> NDArray[np.intp]:
    d = stats.n_features
    return np.stack([forest_parents(d, chow_liu_forest(w)) for w in stats.mutual_information()])


def tan_parents(stats: PairStatistics, alpha: float) -> NDArray[np.intp]:
    parents = forest_parents(
        stats.n_features, chow_liu_forest(stats.conditional_mutual_information())
    )
    return np.stack([parents, parents])


#: Weak learners by name: two-class statistics -> parents (class 0 = q-hat, 1 = p-hat).
BASE_LEARNERS = {"dt": dt_parents, "chow-liu": chow_liu_parents, "tan": tan_parents}


@dataclass(frozen=True)
class BoostingSpec:
    """What a boosted fit does, from a :class:`~discotree.BoostedGraphicalModelClassifier`'s
    validated parameters (its public ``boosting_spec``): the weak learner ``base`` (a
    name of :data:`BASE_LEARNERS`), Real- or Discrete-AdaBoost, the number of rounds,
    the starting score rule, the weak learners' pseudo-count and floor, and how several
    classes split into binary problems (:func:`tasks`).

    Examples
    --------
    >>> BoostingSpec("dt", "real", 10, "prior", 1.0, 1e-5, "ovr").tasks(3)
    [(0, -1), (1, -1), (2, -1)]
    """

    base: str
    algorithm: str
    n_estimators: int
    init: str
    alpha: float | str
    epsilon: float
    multiclass: str = "pairwise"

    def tasks(self, n_classes: int) -> list[tuple[int, int]]:
        """The binary problems: (positive, negative) class indices, -1 for the rest
        (:func:`~discotree.learners.discriminative_tree.binary_tasks`)."""
        return binary_tasks(n_classes, self.multiclass)


def line_search_alpha(margins: NDArray[np.float64], weights: NDArray[np.float64]) -> float:
    """``argmin_{beta >= 0} sum_l w_l exp(-beta m_l)`` (step 5 of Algorithm 2).

    The objective is convex in beta; its derivative is increasing, so the minimiser is
    0 when the derivative at 0 is >= 0 (the weak learner is no better than chance), is
    infinite when no margin is negative (a perfect weak learner: ``inf`` is returned),
    and otherwise is the root of the derivative, found by bracketing and Brent's method
    to a relative tolerance of 1e-12. Computed in log space (no overflow).
    """
    positive = weights > 0
    m, w = margins[positive], weights[positive]

    def slope(beta: float) -> float:
        # sign of -sum w m exp(-beta m), scaled by exp(-max(-beta m)) to avoid overflow
        exponent = -beta * m
        scale = exponent.max()
        return float(-np.sum(w * m * np.exp(exponent - scale)))

    return line_search_by_slope(float(np.sum(w * m)), bool((m < 0).any()), slope)


def line_search_by_slope(weighted_margin: float, any_negative: bool, slope) -> float:
    """The line search of :func:`line_search_alpha` given ``sum w m``, whether any
    margin of positive weight is negative, and the derivative's sign function
    ``slope(beta)`` (positively rescaled as convenient): so that an engine whose
    margins live elsewhere (Dask) evaluates the same bracketing and Brent steps."""
    if weighted_margin <= 0:
        return 0.0
    if not any_negative:
        return float("inf")
    high = 1.0
    while slope(high) < 0:
        high *= 2.0
        if high > 1e12:
            return high
    return float(brentq(slope, 0.0, high, xtol=1e-14, rtol=1e-12))
