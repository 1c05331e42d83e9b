"""One Chow-Liu tree (or optimal k-edge forest) per class."""

from __future__ import annotations

from typing import Any

from ..learners.options import RANDOM_STATE, ChowLiuOptions
from ..learners.parameter_rules import DISCRETE_TABLES, Rule
from ..stored_classes import stored
from ._base import DiscreteForestClassifierBase
from ._incremental import IncrementalFitMixin
from .parameter_checks import (
    check_distribution,
    check_forest_smoothing,
    check_parameter_table,
    check_rules,
)

__all__ = ["ChowLiuClassifier"]


@stored
class ChowLiuClassifier(IncrementalFitMixin, DiscreteForestClassifierBase):
    """Generative tree classifier: a Chow-Liu tree fitted to each class separately.

    Each class's tree maximises the sum of the empirical mutual informations of its
    edges over that class's samples only (Tan et al. 2010, eq. 9-10), and
    its parameters are the (smoothed) projection of the class's empirical distribution
    on the tree (eq. 7). Prediction is the likelihood ratio test of eq. 3 with class
    priors.

    Parameters
    ----------
    n_edges : int, None, "bic" or "aic", default=None
        ``None``: a spanning tree per class. ``k``: the optimal forest with ``k`` edges
        (the first k edges Kruskal adds). ``"bic"`` / ``"aic"``: each class's forest
        maximises its log-likelihood minus the penalty of its parameters (an edge
        enters only if ``N_ij I(X_i; X_j)`` exceeds ``(r_i - 1)(r_j - 1)`` times
        ``log(N_c) / 2`` or 1), which gives forests on small data.
    distribution : {"discrete", "gaussian"}, default="discrete"
        ``"gaussian"``: numeric features (standardised), one Gaussian forest per class:
        Chow-Liu on the Gaussian mutual informations ``-log(1 - rho**2) / 2`` and
        the Gaussian projection (linear-Gaussian CPDs; ``n_edges`` an integer or None).
    var_smoothing : float, default=0.0
        ``distribution="gaussian"``: added to every class variance (see
        :class:`DiscriminativeTreeClassifier`).
    alpha : float, default=1.0
        Dirichlet pseudo-count added to every cell of every table.
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
        Floor for probabilities still zero after smoothing (Pernkopf & Bilmes 2010, Section 6.1);
        only matters when ``alpha=0``.
    max_categories : int, default=10
        Numeric columns with more distinct values are discretised.
    discretizer : Discretizer or None, default=None
        Used for those columns, fitted on the training data only; ``None`` means
        ``Discretizer()``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    fit_memory_estimate_ : float
        The peak memory of the fit in bytes, estimated before counting and checked
        against the ``memory_limit`` configuration key (``benchmarks/bench_memory.py``).
    class_count_ : ndarray of shape (n_classes,)
    class_log_prior_ : ndarray of shape (n_classes,)
    n_categories_ : ndarray of shape (n_features,)
    encoder_ : TableEncoder
    model_ : DiscreteForestModel
    edges_ : list of list of (int, int)
        One list per class in ``classes_`` order: the edges (i < j) in the order they
        were added.
    edge_names_ : list of list of (str, str)
        ``edges_`` with feature names (``feature_names_in_``, else ``x0``, ``x1``, ...).
    edge_weights_ : ndarray of shape (n_classes, n_features, n_features)
        Per-class empirical mutual information (nats) used as edge weights.
    parents_ : ndarray of shape (n_classes, n_features)
        Each tree rooted at feature 0; -1 marks a root.
    alpha_ : float
        The pseudo-count used: ``alpha``, or the one ``alpha="auto"`` chose.
    alpha_cv_losses_ : ndarray of shape (2, n_grid)
        ``alpha="auto"`` only: for each value of the grid, the summed held-out weight
        of errors (row 0, the criterion) and log-loss (row 1, the tie-break) of the
        cross-validation.
    n_features_in_ : int
    feature_names_in_ : ndarray of str

    Notes
    -----
    One counting pass gives every pair table of every class
    (O(n_samples * D**2) multiply-adds with ``D = sum(n_categories_)``, as a BLAS
    product), then O(n_features**2 log n_features) for the spanning trees. Missing
    values: each mutual information uses the samples where both features are
    observed; at prediction missing features are summed out exactly.

    References
    ----------
    C. Chow and C. Liu, IEEE Trans. Inf. Theory 14(3), 1968.
    Tan et al. 2010, Section II-C.

    Examples
    --------
    >>> from sklearn.datasets import load_wine
    >>> from discotree import ChowLiuClassifier
    >>> X, y = load_wine(return_X_y=True)
    >>> clf = ChowLiuClassifier().fit(X, y)
    >>> [len(edges) for edges in clf.edges_]
    [12, 12, 12]
    """

    #: One forest per class, not one class-rooted network (exports and pictures).
    structure_per_class = True

    def __init__(
        self,
        n_edges: int | str | None = None,
        *,
        distribution: str = "discrete",
        var_smoothing: float = 0.0,
        alpha: float = 1.0,
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
        self.n_edges = n_edges
        self.prior = prior
        self.smoothing = smoothing
        self.random_state = random_state
        self.distribution = distribution
        self.var_smoothing = var_smoothing

    _parameter_checks = (("random_state", RANDOM_STATE),)
    _rules = (
        Rule(
            lambda e: e.distribution == "gaussian" and isinstance(e.n_edges, str),
            "n_edges='bic'/'aic' penalise discrete tables; with distribution='gaussian' "
            "give an integer or None.",
        ),
    )

    _checks = (check_distribution, check_forest_smoothing, check_rules, check_parameter_table)
    _uncertainty_rules = (DISCRETE_TABLES,)
    _learner = "chow-liu"
    _options_class = ChowLiuOptions
