"""Averaged one-dependence estimators, A1DE (Webb, Boughton & Wang, "Not so naive
Bayes: aggregating one-dependence estimators", Machine Learning 58, 2005, Section 3).

Every attribute in turn is the super-parent of all the others:
``P(c, x) = (1/d) sum_i P(c, x_i) prod_{j != i} P(x_j | c, x_i)`` (eq. 5 of the paper,
with every attribute a parent: no frequency limit). Each one-dependence estimator is a
proper distribution, so their average is one, and missing values are handled exactly
by marginalisation: a missing child contributes the factor 1 (its conditional sums to
one), and the estimator whose super-parent is missing is summed over that parent's
values, ``sum_a P(c, a) prod_{j observed} P(x_j | c, a)``. (Webb et al. skip such an
estimator instead; that is not the marginal of the average.)

``log_likelihood`` is ``log P(x | c)``: the average's joint divided by the class
marginal it implies, ``P(c) = (1/d) sum_i sum_a P(c, x_i = a)``, so that the estimator's
class prior (the package's one rule: maximum likelihood) multiplies a proper
class-conditional distribution.

Every table comes from the pair tables of :class:`~discotree.stats.pair_statistics.PairStatistics`
(available-case), smoothed as all of the package's tables.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.special import logsumexp

from ..stats.dirichlet import smoothed_conditional
from ..stats.pair_statistics import PairStatistics

__all__ = ["AveragedOneDependenceModel"]

#: Rows scored at once (the one-hot rows and the per-class sums: bounded memory).
_CHUNK_ROWS = 4096


@dataclass
class AveragedOneDependenceModel:
    """A fitted A1DE.

    Parameters
    ----------
    n_categories : ndarray of shape (n_features,)
    parent_log : ndarray of shape (n_classes, D)
        ``log P(c, x_i = a)`` at column ``offset_i + a`` (D = sum of n_categories).
    child_log : ndarray of shape (n_classes, D, D)
        ``log P(x_j = b | c, x_i = a)`` at ``[c, offset_i + a, offset_j + b]``; 0 in a
        feature's own block.
    class_log_prior : ndarray of shape (n_classes,)
        The class marginal of the average (subtracted by ``log_likelihood``).

    Examples
    --------
    >>> import numpy as np
    >>> codes = np.array([[0, 1], [1, 1], [1, 0], [0, 0]])
    >>> stats = PairStatistics.from_codes(codes, np.array([0, 1, 1, 0]), np.array([2, 2]), 2)
    >>> model = AveragedOneDependenceModel.from_statistics(stats, 1.0, 0.0)
    >>> every = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
    >>> np.exp(model.log_likelihood(every)).sum(axis=0).round(12)  # P(x | c) sums to 1
    array([1., 1.])
    """

    n_categories: NDArray[np.intp]
    parent_log: NDArray[np.float64]
    child_log: NDArray[np.float64]
    class_log_prior: NDArray[np.float64]

    @classmethod
    def from_statistics(
        cls,
        stats: PairStatistics,
        alpha: float,
        epsilon: float,
    ) -> AveragedOneDependenceModel:
        """The tables from the pair statistics: ``P(c, x_i)`` with ``alpha`` per cell of
        the (class, value) table of the rows observing x_i, ``P(x_j | c, x_i)`` with
        ``alpha`` per cell of each conditional (both floored at ``epsilon``)."""
        n_categories = np.asarray(stats.n_categories)
        offsets = stats.offsets
        n_classes, width = stats.n_classes, int(offsets[-1])
        diagonal = stats.diagonal
        parent_log = np.empty((n_classes, width))
        child_log = np.zeros((n_classes, width, width))
        for j in range(len(n_categories)):
            block = slice(offsets[j], offsets[j + 1])
            joint = smoothed_conditional(diagonal[:, block].reshape(-1), alpha, epsilon)
            parent_log[:, block] = np.log(joint).reshape(n_classes, -1)
            child = np.log(smoothed_conditional(stats.counts[:, :, block], alpha, epsilon))
            child[:, block, :] = 0.0  # no factor of a feature given itself
            child_log[:, :, block] = child
        # the class marginal of the average: (1/d) sum_i sum_a P(c, x_i = a)
        marginals = [
            logsumexp(parent_log[:, offsets[j] : offsets[j + 1]], axis=1)
            for j in range(len(n_categories))
        ]
        prior = logsumexp(np.column_stack(marginals), axis=1) - np.log(len(n_categories))
        return cls(n_categories, parent_log, child_log, prior)

    @property
    def n_classes(self) -> int:
        return int(self.parent_log.shape[0])

    @property
    def n_features(self) -> int:
        return len(self.n_categories)

    def joint_log_likelihood(self, codes: NDArray[np.integer]) -> NDArray[np.float64]:
        """``log P(c, x)`` of the average, missing values summed out exactly."""
        codes = np.asarray(codes)
        out = np.empty((len(codes), self.n_classes))
        for start in range(0, len(codes), _CHUNK_ROWS):
            part = codes[start : start + _CHUNK_ROWS]
            out[start : start + len(part)] = self._joint(part)
        return out

    def _joint(self, codes: NDArray[np.integer]) -> NDArray[np.float64]:
        offsets = np.zeros(self.n_features + 1, dtype=np.intp)
        np.cumsum(self.n_categories, out=offsets[1:])
        n, width = len(codes), int(offsets[-1])
        observed = codes >= 0
        one_hot = np.zeros((n, width))
        rows, features = np.nonzero(observed)
        one_hot[rows, offsets[features] + codes[rows, features]] = 1.0
        out = np.empty((n, self.n_classes))
        for c in range(self.n_classes):
            # value[s, offset_i + a] = log P(c, a) + sum_{j observed} log P(x_j | c, a)
            value = self.parent_log[c] + one_hot @ self.child_log[c].T
            estimators = np.empty((n, self.n_features))
            for i in range(self.n_features):
                block = value[:, offsets[i] : offsets[i + 1]]
                summed = logsumexp(block, axis=1)  # the super-parent summed out
                at = np.where(observed[:, i], codes[:, i], 0)
                estimators[:, i] = np.where(observed[:, i], block[np.arange(n), at], summed)
            out[:, c] = logsumexp(estimators, axis=1) - np.log(self.n_features)
        return out

    def log_likelihood(self, codes: NDArray[np.integer]) -> NDArray[np.float64]:
        """``log P(x | c)``: the average's joint less its class marginal."""
        return self.joint_log_likelihood(codes) - self.class_log_prior
