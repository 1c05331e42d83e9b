"""Naive Bayes over discrete (or discretised) features."""

from __future__ import annotations

from typing import Any

from ..stored_classes import stored
from ._base import DiscreteForestClassifierBase
from ._incremental import IncrementalFitMixin
from .parameter_checks import check_forest_smoothing, check_random_state_parameter

__all__ = ["NaiveBayesClassifier"]


@stored
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
    prior : {"dirichlet", "bdeu"}, default="dirichlet"
        ``"dirichlet"``: ``alpha`` pseudo-counts in every cell of every table.
        ``"bdeu"``: ``alpha`` is an equivalent sample size spread over the cells of each
        family, ``alpha / (n_classes * r_parent * r_j)`` per cell, so that large tables
        are not over-smoothed (with ``alpha="auto"``, chosen on ``ESS_GRID``).
    smoothing : {"dirichlet", "hierarchical", "hdp"}, default="dirichlet"
        ``"hierarchical"``: each table backs off to the feature's class-level table and
        its marginal (the back-off of :class:`~discotree.KDBClassifier`, after Petitjean
        et al. 2018), one concentration per level chosen by leave-one-out from the
        counts (``concentrations_``); ``alpha`` then smooths the marginals and
        ``prior`` is not used.
        ``"hdp"``: the same back-off estimated by the hierarchical Dirichlet process of
        Petitjean et al. 2018, concentrations sampled by Gibbs sampling (200 sweeps,
        seeded by ``random_state``; :mod:`discotree.stats.hdp_counts`) from the counts,
        so whole-number sample weights only; alpha, the structure and any
        cross-validation use the ``"hierarchical"`` estimate, the sampler runs once
        (``concentrations_``: the sampled concentrations' means, the root's first).
    random_state : int, RandomState instance, Generator or None, default=0
        The seed of the HDP sampler (``smoothing="hdp"``); not used otherwise.
    epsilon : float, default=1e-5
        Probabilities that are still zero after smoothing are replaced by ``epsilon``
        (Pernkopf & Bilmes 2010, Section 6.1); only matters when ``alpha=0``.
    max_categories : int, default=10
        Numeric columns with more distinct values are discretised.
    discretizer : Discretizer or None, default=None
        Discretizer for those columns, fitted on the training data only;
        ``None`` means ``Discretizer()`` (5 equal-frequency bins).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Labels of the samples with positive weight.
    class_count_ : ndarray of shape (n_classes,)
        Weight of each class.
    class_log_prior_ : ndarray of shape (n_classes,)
    n_categories_ : ndarray of shape (n_features,)
        Number of categories (or bins) of each encoded feature.
    encoder_ : TableEncoder
        Fitted encoding of the input columns.
    model_ : DiscreteForestModel
        The per-class conditional probability tables.
    edges_ : list of list
        One empty edge list per class.
    edge_names_ : list of list of (str, str)
        ``edges_`` with feature names (``feature_names_in_``, else ``x0``, ``x1``, ...).
    parents_ : ndarray of shape (n_classes, n_features)
        -1 everywhere: no feature has a parent (the forest layout of TAN).
    attribute_parents_ : list of tuple
        ``()`` for every feature (the layout of ``TANClassifier.attribute_parents_``;
        naive Bayes is the one learner ``"naive-bayes"`` for both).
    alpha_ : float
        The pseudo-count used: ``alpha``, or the one ``alpha="auto"`` chose.
    alpha_cv_losses_ : ndarray of shape (2, n_grid)
        ``alpha="auto"`` only: for each value of the grid, the summed held-out weight
        of errors (row 0, the criterion) and log-loss (row 1, the tie-break) of the
        cross-validation.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Defined when X is a DataFrame with string column names.

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
