"""The binary problems of the discriminative trees: one pair of forests each, and
the multiclass scores that combine them (Tan et al. 2010, eq. 31-32)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from ..stored_checks import CheckedState
from ..stored_classes import stored
from ..structure.discriminative import ForestPath
from .lgmht_altmax import AltmaxResult


@stored
@dataclass
class ForestPair(CheckedState):
    """The two forests learned for one binary problem: ``positive`` against
    ``negative`` (class indices; -1 stands for "every other class")."""

    _NUMBER_FIELDS = ("j_path",)  # finite (the reader's check)

    positive: int
    negative: int
    path_pos: ForestPath
    path_neg: ForestPath
    j_path: NDArray[np.float64]  # eq. 16 for k = 0, 1, ... edges per forest
    model: Any  # two-class model (column 0: q-hat, column 1: p-hat)
    altmax: AltmaxResult | None = None  # parameters="altmax": the alternations

    def log_ratio(self, encoded: NDArray) -> NDArray[np.float64]:
        loglik = self.model.log_likelihood(encoded)
        return loglik[:, 1] - loglik[:, 0]


#: The pseudo-count of the structure (the weights of eq. 21) while ``alpha="auto"``
#: compares the alphas of the grid on each fold.
STRUCTURE_ALPHA = 1.0


def composite_scores(ratios, tasks, log_prior: NDArray[np.float64], n_classes: int):
    """The multiclass scores of eq. 32 (with log prior ratios) from the log likelihood
    ratio of every binary problem (``tasks``: (positive, negative) class indices, -1
    for "every other class"); ``ratios[t]`` has shape (..., n_samples) and the result
    (..., n_samples, n_classes)."""
    scores = np.zeros((*np.shape(ratios[0]), n_classes))
    for (positive, negative), ratio in zip(tasks, ratios, strict=True):
        if negative < 0:
            rest = np.log(-np.expm1(log_prior[positive]))
            scores[..., positive] = ratio + log_prior[positive] - rest
        else:
            f = ratio + log_prior[positive] - log_prior[negative]
            scores[..., positive] += f
            scores[..., negative] -= f
    return scores


@dataclass
class GridScores:
    """One alpha's model in ``alpha="auto"``'s cross-validation, given by its scores
    function ``(codes, log_prior) -> (n_samples, n_classes)`` (eq. 32; two classes:
    the joint log-likelihoods)."""

    function: Callable[[NDArray, NDArray[np.float64]], NDArray[np.float64]]

    #: Composite scores (with two classes the joint, whose softmax is the same
    #: posterior): :mod:`discotree.models.protocol`.
    score_kind: ClassVar[str] = "margin"

    def class_scores(self, codes: NDArray, log_prior: NDArray[np.float64]) -> NDArray[np.float64]:
        """The scores of eq. 32 under the class prior ``log_prior``."""
        return self.function(codes, log_prior)


__all__ = ["STRUCTURE_ALPHA", "ForestPair", "GridScores", "composite_scores"]
