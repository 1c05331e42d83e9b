"""Naive Bayes over discrete (or discretised) features."""

from __future__ import annotations

from typing import Any

from ..docstrings import fill_doc
from ..stored_classes import stored
from ._base import DiscreteForestClassifierBase
from ._incremental import IncrementalFitMixin
from .parameter_checks import check_forest_smoothing, check_random_state_parameter

__all__ = ["NaiveBayesClassifier"]


@stored
@fill_doc
class NaiveBayesClassifier(IncrementalFitMixin, DiscreteForestClassifierBase):
    """Naive Bayes: features independent given the class (a forest with no edges).

    Parameters
    ----------
    alpha : float or "auto", default="auto"
        Dirichlet pseudo-count added to every cell of every table, or ``"auto"``: chosen
        on a grid by 5-fold cross-validation (accuracy, log-loss on ties) with fold
        statistics by subtraction, at about 3x the cost of one fit (the choice is
        ``alpha_``; ``docs/design/smoothing.md``). The default since the smoothing
        benchmark (``benchmarks/results/smoothing.md``): over 39 data sets it is within
        0.3 points of the best fixed alpha and above alpha = 1 on average. The
        reproductions pin the papers' smoothing.
    {prior}
    {smoothing}
    {random_state_hdp}
    {epsilon}
    {encoding}

    Attributes
    ----------
    {discrete_fit_attributes}
    model_ : DiscreteForestModel
        The per-class conditional probability tables.
    edges_ : list of list
        One empty edge list per class.
    {edge_names_}
    parents_ : ndarray of shape (n_classes, n_features)
        -1 everywhere: no feature has a parent (the forest layout of TAN).
    attribute_parents_ : list of tuple
        ``()`` for every feature (the layout of ``TANClassifier.attribute_parents_``;
        naive Bayes is the one learner ``"naive-bayes"`` for both).
    {alpha_}

    Notes
    -----
    Fitting is one counting pass, O(n_samples * n_features). A missing feature is
    left out of the product, which is exact marginalisation for this model.

    References
    ----------
    Pernkopf & Bilmes 2010, Sections 2 and 4.1.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from discotree import NaiveBayesClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = NaiveBayesClassifier().fit(X, y)
    >>> clf.predict_proba(X[:2]).shape
    (2, 3)
    """

    def __init__(
        self,
        *,
        alpha: float | str = "auto",
        prior: str = "dirichlet",
        smoothing: str = "dirichlet",
        random_state: Any = 0,
        epsilon: float = 1e-5,
        max_categories: int = 10,
        discretizer=None,
    ) -> None:
        super().__init__(
            alpha=alpha, epsilon=epsilon, max_categories=max_categories, discretizer=discretizer
        )
        self.prior = prior
        self.smoothing = smoothing
        self.random_state = random_state

    _uncertainty_rules = ()  # counted tables: Dirichlet posteriors
    _learner = "naive-bayes"
    _checks = (check_forest_smoothing, check_random_state_parameter)
    _streams_pairs = False  # naive Bayes needs the univariate tables only
