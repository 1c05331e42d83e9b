"""Averaged one-dependence estimators (A1DE, AODE; Webb, Boughton & Wang 2005)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..learners.registry import Counts
from ._base import DiscreteForestClassifierBase
from ._incremental import IncrementalFitMixin

__all__ = ["AODEClassifier"]


class AODEClassifier(IncrementalFitMixin, DiscreteForestClassifierBase):
    """A1DE: the average over attributes of the one-dependence estimator in which that
    attribute is the parent of every other.

    ``P(c, x) = (1/d) sum_i P(c, x_i) prod_{j != i} P(x_j | c, x_i)``, every table from
    the pair tables of one counting pass: no structure search and no model selection,
    so ``partial_fit`` over batches and the Dask engine give exactly the model of
    ``fit``. Missing values are summed out exactly (a missing child contributes 1, the
    estimator of a missing super-parent is summed over its values).

    Parameters
    ----------
    alpha : float or "auto", default=1.0
        Dirichlet pseudo-count per cell of every table (of P(c, x_i) and of each
        conditional), or ``"auto"``: chosen on a grid by 5-fold cross-validation from
        fold counts (``docs/design/smoothing.md``).
    epsilon : float, default=1e-5
        Floor of the probabilities still zero after smoothing (only with ``alpha=0``).
    max_categories : int, default=10
        Numeric columns with more distinct values are discretised.
    discretizer : Discretizer or None, default=None
        ``None`` means ``Discretizer()`` (5 equal-frequency bins).

    Attributes
    ----------
    classes_, class_count_, class_log_prior_, n_categories_, encoder_,
    n_features_in_, feature_names_in_, alpha_
        As for :class:`~discotree.NaiveBayesClassifier`.
    model_ : AveragedOneDependenceModel
        The tables of every super-parent's estimator.
    statistics_ : PairStatistics
        The pair tables learnt from.
    edges_ : list of list
        Per class, every pair of attributes (each is a parent of the other in one of
        the averaged estimators).
    edge_names_ : list of list of (str, str)
        ``edges_`` with feature names (``feature_names_in_``, else ``x0``, ``x1``, ...).

    Notes
    -----
    ``log P(x | c)`` is the average's joint divided by the class marginal it implies;
    the class prior is the package's maximum-likelihood one (Webb et al. take the
    smoothed ``P(c, x_i)`` of each estimator: the same up to the smoothing of the
    prior). No frequency limit: every attribute is a super-parent (Webb et al.'s m = 1
    limit only drops values never seen, which the smoothing covers). Prediction costs
    O(n * D**2 * C) with D the total number of categories (a matrix product per class);
    the model holds C * D**2 numbers.

    References
    ----------
    Webb, Boughton & Wang, "Not so naive Bayes: aggregating one-dependence estimators",
    Machine Learning 58 (2005), Section 3, eq. 5.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from discotree import AODEClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = AODEClassifier().fit(X, y)
    >>> clf.predict_proba(X[:2]).shape
    (2, 2)
    """

    def __init__(
        self,
        *,
        alpha: float | str = 1.0,
        epsilon: float = 1e-5,
        max_categories: int = 10,
        discretizer=None,
    ) -> None:
        super().__init__(
            alpha=alpha, epsilon=epsilon, max_categories=max_categories, discretizer=discretizer
        )

    def _count_learner(self) -> str:
        return "aode"

    def _model_memory_bytes(self, n_features: int, n_classes: int) -> float:
        """The (C, D, D) log tables of the conditionals."""
        return 8.0 * n_classes * float(np.sum(self.n_categories_)) ** 2

    def _fit_model(
        self,
        codes: NDArray[Any] | None,
        class_index: NDArray[np.intp] | None,
        sample_weight: NDArray[np.float64] | None,
    ) -> Any:
        stats = self._pair_statistics(codes, class_index, sample_weight)
        return self._learn(Counts(self.n_categories_, self.class_count_, stats))
