"""One Chow-Liu tree (or optimal k-edge forest) per class."""

from __future__ import annotations

from typing import Any

from ..docstrings import fill_doc
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
@fill_doc
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
    {var_smoothing}
    alpha : float, default=1.0
        Dirichlet pseudo-count added to every cell of every table.
    {prior}
    {smoothing}
    {random_state_hdp}
    {epsilon}
    {encoding}

    Attributes
    ----------
    {discrete_fit_attributes}
    {fit_memory_estimate_}
    model_ : DiscreteForestModel
    edges_ : list of list of (int, int)
        One list per class in ``classes_`` order: the edges (i < j) in the order they
        were added.
    {edge_names_}
    edge_weights_ : ndarray of shape (n_classes, n_features, n_features)
        Per-class empirical mutual information (nats) used as edge weights.
    parents_ : ndarray of shape (n_classes, n_features)
        Each tree rooted at feature 0; -1 marks a root.
    {alpha_}

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
