"""The fitted parts of a boosted graphical model classifier (Tan et al. 2010,
Algorithm 2): the rounds of one binary problem, each a weight ``alpha_t`` and the pair
of tree models whose log-likelihood ratio is the weak classifier ``h_t``."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ..numerics import sign_with_ties
from ..stored_checks import CheckedState
from ..stored_classes import stored
from .discrete_forest import DiscreteForestModel

__all__ = ["BoostedEnsemble", "BoostingRound"]


@stored
@dataclass
class BoostingRound(CheckedState):
    _NUMBER_FIELDS = ("alpha",)  # finite (the reader's check)

    alpha: float
    model: DiscreteForestModel  # column 0: q-hat, column 1: p-hat

    def weak(self, codes: NDArray, algorithm: str) -> NDArray[np.float64]:
        loglik = self.model.log_likelihood(codes)
        h = loglik[:, 1] - loglik[:, 0]
        if algorithm == "discrete":
            # a tie (the two models give the sample the same likelihood, up to
            # rounding) abstains: h = 0, whichever way the last bit fell
            return sign_with_ties(h, np.abs(loglik).max(axis=1))
        return h


@stored
@dataclass
class BoostedEnsemble(CheckedState):
    """A boosted binary problem: ``positive`` (label +1) against ``negative``."""

    _NUMBER_FIELDS = ("init_score",)  # finite (the reader's check)

    positive: int
    negative: int
    rounds: list[BoostingRound]
    stopped: str
    init_score: float = 0.0  # F_0
