"""Naive Bayes with kernel density marginals (the NB baseline of Dorn et al. 2018)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..docstrings import fill_doc
from ..kernels.counts import class_totals
from ..models.kernel_density import PairwiseKernelDensities
from ..numerics import class_log_prior
from ._kernel_density import KernelDensityBase

__all__ = ["KernelNaiveBayesClassifier"]


@fill_doc
class KernelNaiveBayesClassifier(KernelDensityBase):
    """Naive Bayes with Gaussian kernel density marginals (the ``NB`` baseline of Dorn et al. 2018).

    ``log P(c) + sum_i log max(f_c(x_i), density_floor)`` with a normal-reference
    bandwidth per class and feature (Silverman's rule, ``1.06 sd n^(-1/5)``, by default:
    the rule of Matlab's ksdensity that the paper used).

    Parameters
    ----------
    bandwidth : {"silverman", "scott"}, float or array, default="silverman"
    {density_floor}
    {kde}
    grid_size : (int, int), default=(1024, 128)
        Only the first (1-D) size is used.

    Attributes
    ----------
    {classes_}
    {class_log_prior_}
    varying_features_ : ndarray of int
        Features that are not constant in the training data; only these enter the
        likelihood (a constant feature would favour the smaller classes through their
        bandwidths).
    densities_ : PairwiseKernelDensities
        The fitted univariate estimates (on standardised features).
    {n_features_in_}
    {standardisation_}
    """

    def __init__(
        self, bandwidth="silverman", *, density_floor=1e-3, kde="auto", grid_size=(1024, 128)
    ) -> None:
        self.bandwidth = bandwidth
        self.density_floor = density_floor
        self.kde = kde
        self.grid_size = grid_size

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> KernelNaiveBayesClassifier:
        """Class priors and univariate kernel density estimates.

        Parameters
        ----------
        {X_fit_numeric}
        {y_fit}
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights of the priors and the densities.

        Returns
        -------
        self : object
            The fitted estimator.

        Raises
        ------
        ValueError
            For missing or non-numeric values, bad weights or hyper-parameters.

        Examples
        --------
        >>> from sklearn.datasets import load_wine
        >>> from discotree import KernelNaiveBayesClassifier
        >>> X, y = load_wine(return_X_y=True)
        >>> clf = KernelNaiveBayesClassifier().fit(X, y)
        >>> clf.class_log_prior_.round(2)
        array([-1.1 , -0.92, -1.31])
        """
        self._check_common()
        Z, class_index, w = self._validate(X, y, sample_weight)
        n_classes = len(self.classes_)
        self.class_log_prior_ = class_log_prior(
            class_totals(class_index, w, n_classes), total=w.sum()
        )
        # a feature constant in the training data says nothing about the class; its
        # kernel estimate would (the bandwidth depends on the class size), so it is left
        # out of the sum
        self.varying_features_ = np.flatnonzero((Z != Z[0]).any(axis=0))
        self.densities_ = PairwiseKernelDensities.fit(
            Z,
            class_index,
            n_classes,
            w,
            np.empty((0, 2), np.intp),
            bandwidth=self._bandwidth(),
            grid_size=tuple(self.grid_size),
            method=self.kde,
            density_floor=self.density_floor,
        )
        return self

    def _feature_contributions(self, Z: NDArray[np.float64]) -> NDArray[np.float64]:
        """Each feature's log density minus its mean over the classes: its exact share
        of the centred log-posterior, which is what summing it out removes (naive
        Bayes); a constant feature has none."""
        n_classes = len(self.classes_)
        logs = self.densities_.log_densities(Z).reshape(len(Z), n_classes, -1)
        out = logs - logs.mean(axis=1, keepdims=True)
        constant = np.setdiff1d(np.arange(out.shape[2]), self.varying_features_)
        out[:, :, constant] = 0.0
        return out

    def _class_scores(self, X: Any) -> tuple[NDArray[np.float64], str]:
        """``log P(x, c)``: the class prior plus the log densities of the features that
        vary (a joint)."""
        Z = self._standardised(X)
        logs = self.densities_.log_densities(Z)
        n_classes = len(self.classes_)
        logs = logs.reshape(len(logs), n_classes, -1)[:, :, self.varying_features_]
        return logs.sum(axis=2) + self.class_log_prior_, "joint"
