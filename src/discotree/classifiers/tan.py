"""Tree-augmented naive Bayes and k-tree Bayesian network classifiers, with generative
(CMI) or discriminative (CR, SuperParent, order-based) structures and ML or CL
parameters (Pernkopf & Bilmes 2010)."""

from __future__ import annotations

import time
from typing import Any

from ..docstrings import fill_doc
from ..learners.fit_input import FitInput
from ..learners.options import STRUCTURES, TANOptions
from ..learners.parameter_rules import TAN_RULES, TAN_STREAMING, TAN_UNCERTAINTY
from ..learners.registry import FittedModel, LearnerSpec, get_learner
from ..learners.structure_search import (
    STRUCTURE_ALPHA,
    SearchResult,
    searched_models_by_alpha,
    structure_for_alpha_selection,
)
from ..stored_classes import stored
from ._base import DiscreteForestClassifierBase
from ._incremental import IncrementalFitMixin
from .parameter_checks import (
    check_distribution,
    check_forest_smoothing,
    check_parameter_table,
    check_rules,
)

__all__ = ["STRUCTURES", "TANClassifier"]


@stored
@fill_doc
class TANClassifier(IncrementalFitMixin, DiscreteForestClassifierBase):
    """Bayesian network classifiers whose attributes have at most k attribute parents
    (the class is a parent of every attribute and has none): naive Bayes (k = 0),
    tree-augmented naive Bayes (k = 1) and 2-trees (k = 2), with generative or
    discriminative structure and parameters.

    Parameters
    ----------
    k : {0, 1, 2}, default=1
        Largest number of attribute parents per attribute.
    structure : str, default="cmi"
        ``"cmi"``: generative; k = 1 the maximum spanning tree of I(X_i; X_j | C)
        (Friedman et al., 1997; Section 4.3), k = 2 the k-dependence structure of
        Sahami (1996). Discriminative (Sections 4.4 and 5): ``"cr"`` greedy hill
        climbing, ``"superparent"``, and the order-based ``"omi-cr"``, ``"omisp-cr"``,
        ``"ocr-cr"``, ``"ro-cr"`` (random order), ``"mmi-cr"`` (the minimum-MI order, the
        baseline of Section 6.3) and ``"omi-crcl"`` (parents scored
        with CL-trained parameters); see :mod:`discotree.structure.bayes_net_search`.
    parameters : {"ml", "cl"}, default="ml"
        Maximum likelihood, or conditional log-likelihood by conjugate gradient with
        cross tuning (Section 4.2; :mod:`discotree.models.conditional_likelihood`).
    structure_score : {"cr", "cll"}, default="cr"
        Training score of the discriminative searches: classification rate or
        conditional log-likelihood (not ``score``: that is scikit-learn's accuracy
        method).
    structure_folds : int or None, default=None
        Discriminative searches (not ``"omi-crcl"``): keep only as many of the search's
        steps as ``structure_folds``-fold cross-validation on the training rows finds
        best (held-out classification rate of ML parameters; the shortest among
        equals), the regularisation of 2-tree structures of Pernkopf & Bilmes 2010, Section 6.5.2
        (:mod:`discotree.learners.step_selection`); ``structure_folds`` more searches
        on 4/5 of the rows. ``None``: every step the search takes.
    n_edges : int, None, "bic" or "aic", default=None
        ``"cmi"`` with k = 1 only: keep the first ``n_edges`` edges Kruskal adds, or with
        ``"bic"`` / ``"aic"`` the forest whose edges pay for their parameters (an edge
        enters only if ``N_ij I(X_i; X_j | C)`` exceeds ``n_classes (r_i - 1)(r_j - 1)``
        times ``log(N) / 2`` or 1, as bnclassify's ``tan_cl(score=...)``).
    early_abandon : bool, default=True
        Speed-up 1 of Section 4.4.1 for CR scores (the result does not change).
    cl_max_iter : int, default=100
        Largest number of conjugate-gradient iterations for ``parameters="cl"`` (cross
        tuning may choose fewer).
    random_state : int, RandomState instance, Generator or None, default=0
        Seed of the random order (``"ro-cr"``) and of the cross-tuning split. The
        default makes every fit on the same data give the same model; ``None`` draws
        fresh randomness.
    distribution : {"discrete", "gaussian"}, default="discrete"
        ``"gaussian"`` (k <= 1, ``structure="cmi"``, ``parameters="ml"``): numeric
        features (standardised), the maximum spanning forest of the Gaussian
        ``I(X_i; X_j | C)`` shared by the classes, and each class's Gaussian
        projection on it (Gaussian naive Bayes for k = 0).
    {var_smoothing}
    {alpha_auto}
        Discriminative searches are run at alpha 1 while the alphas are compared, and
        again with the chosen one.
    {prior}
    smoothing : {"dirichlet", "hierarchical", "hdp"}, default="dirichlet"
        {smoothing_hierarchical}
        For k <= 1 with ML parameters, whatever the structure: a discriminative
        search scores its candidates with Dirichlet tables as before, and the
        structure it finds gets the hierarchical tables.
        {smoothing_hdp}
    {epsilon}
    {encoding}

    Attributes
    ----------
    {classes_}
    {fit_memory_estimate_}
    {class_count_}
    class_log_prior_ : ndarray of shape (n_classes,)
        ML class prior, or the CL-trained one with ``parameters="cl"``.
    {n_categories_}
    {encoder_}
    model_ : DiscreteForestModel or BayesNetModel
    attribute_parents_ : list of tuple of int
        The attribute parents of each attribute.
    edges_ : list of list of (int, int)
        The structure's edges (i < j), repeated once per class.
    {edge_names_}
    edge_weights_ : ndarray of shape (n_features, n_features)
        The weight that chose each edge (symmetric): for ``"cmi"`` the conditional
        mutual informations (nats) of every pair; for the discriminative searches
        the gain of the training score (``structure_score``) of the search step that
        added the edge, 0 for pairs without an edge (a step that adds two parents
        credits its gain to both). :func:`discotree.plotting.plot_network` draws edge
        widths from it.
    parents_ : ndarray of shape (n_classes, n_features)
        k <= 1: the parent of each attribute (-1: none), one row per class.
    order_ : list of int
        Order-based structures: the attribute ordering.
    n_structure_steps_ : int
        ``structure_folds`` only: the number of search steps kept.
    n_search_steps_ : int
        ``structure_folds`` only: the number of steps of the search on all the training
        rows (``n_structure_steps_`` of them are kept).
    structure_cv_rates_ : ndarray
        ``structure_folds`` only: the held-out classification rate of each number of
        steps (index 0: naive Bayes).
    structure_seconds_ : float
        Time spent choosing the structure.
    n_score_evaluations_ : int
        Scores computed by the discriminative searches (0 for "cmi").
    n_rows_scored_ : int
        (candidate, training sample) pairs those scores read: less than
        ``n_score_evaluations_ * n_samples`` where evaluations were abandoned early.
    cl_iterations_ : int
        Conjugate-gradient iterations of the CL parameters chosen by cross tuning
        (0 with "ml").
    {alpha_}
    {n_features_in_}
    {feature_names_in_}

    Notes
    -----
    ``"cmi"`` with k = 1 costs one counting pass for all pair tables and a spanning
    tree. The discriminative searches evaluate the training score O(N^2) (order-based,
    SuperParent) to O(N^3) (greedy) times, each O(N_samples x classes) thanks to the
    cached node columns. For k = 2 the moral graph's tree-width is not forced to 2;
    exact marginalisation of missing features then costs what its elimination width
    dictates.

    References
    ----------
    N. Friedman, D. Geiger and M. Goldszmidt, Machine Learning 29, 1997.
    F. Pernkopf and J. Bilmes, JMLR 11, 2010.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from discotree import TANClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = TANClassifier().fit(X, y)
    >>> len(clf.edges_[0]) == X.shape[1] - 1
    True
    """

    def __init__(
        self,
        k: int = 1,
        *,
        structure: str = "cmi",
        n_edges: int | str | None = None,
        parameters: str = "ml",
        structure_score: str = "cr",
        structure_folds: int | None = None,
        early_abandon: bool = True,
        cl_max_iter: int = 100,
        random_state: int = 0,
        distribution: str = "discrete",
        var_smoothing: float = 0.0,
        alpha: float | str = "auto",
        prior: str = "dirichlet",
        smoothing: str = "dirichlet",
        epsilon: float = 1e-5,
        max_categories: int = 10,
        discretizer=None,
    ) -> None:
        super().__init__(
            alpha=alpha, epsilon=epsilon, max_categories=max_categories, discretizer=discretizer
        )
        self.prior = prior
        self.smoothing = smoothing
        self.k = k
        self.structure = structure
        self.n_edges = n_edges
        self.parameters = parameters
        self.structure_score = structure_score
        self.structure_folds = structure_folds
        self.early_abandon = early_abandon
        self.cl_max_iter = cl_max_iter
        self.random_state = random_state
        self.distribution = distribution
        self.var_smoothing = var_smoothing

    _rules = TAN_RULES  # (TAN's parameter facts: discotree.learners.parameter_rules)
    _checks = (check_parameter_table, check_forest_smoothing, check_distribution, check_rules)
    _uncertainty_rules = TAN_UNCERTAINTY
    _streaming_rules = TAN_STREAMING

    def _count_learner(self) -> str | None:
        """Naive Bayes (k = 0), TAN-CMI (k = 1) and kDB (k >= 2) with ML parameters are
        learnt from counts; the discriminative searches and CL parameters need the rows."""
        if self.parameters != "ml":
            return None
        if self.k == 0:
            return "naive-bayes"  # (Gaussian naive Bayes with distribution="gaussian")
        if self.structure != "cmi":
            return None
        return "tan-cmi" if self.k == 1 else "kdb"

    _options_class = TANOptions

    def _fit_model(self, data: FitInput) -> FittedModel:
        learner = self._count_learner()
        if learner is not None:
            start = time.perf_counter()
            fitted = super()._fit_model(data)
            fitted.attributes = {
                "n_score_evaluations_": 0, "n_rows_scored_": 0, "cl_iterations_": 0,
                **fitted.attributes, "structure_seconds_": time.perf_counter() - start,
            }  # fmt: skip
            return fitted
        spec = self._search_spec(data.alpha, data.searched, data.epsilon)
        return get_learner("tan-search").fit(data.rows(type(self).__name__), spec)

    def _search_spec(
        self, alpha: Any, searched: SearchResult | None = None, epsilon: float | None = None
    ) -> LearnerSpec:
        """The specification of the row learner ``"tan-search"`` (``searched``: a
        structure found before, kept; ``epsilon``: default the validated one)."""
        if epsilon is None:
            epsilon = self._check_common_params()[1]
        options = self._learner_options(searched=searched)
        return LearnerSpec("tan-search", alpha, epsilon, self.prior, options)

    _auto_alpha = True  # with CL parameters: the smoothing of the ML start, chosen by ML CV

    def _search_once(self, data: FitInput) -> FitInput:
        """A discriminative structure, searched once at alpha 1 before the alpha
        cross-validation (:func:`~discotree.learners.structure_search.
        structure_for_alpha_selection`)."""
        if self._alpha_from_counts():
            return data
        spec = self._search_spec(STRUCTURE_ALPHA, epsilon=data.epsilon)
        found = structure_for_alpha_selection(data.rows(type(self).__name__), spec)
        return data.with_(searched=found)

    def _alpha_from_counts(self) -> bool:
        """Whether the alpha cross-validation needs the fold counts only (the learner's
        models for every alpha) rather than the rows (family counts per fold)."""
        learner = self._count_learner()
        return learner is not None and get_learner(learner).models_by_alpha is not None

    def _alpha_model_for(self, data: FitInput, grid: tuple[float, ...]):
        if self._alpha_from_counts():
            return super()._alpha_model_for(data, grid)
        spec = self._search_spec(data.alpha, data.searched, data.epsilon)
        return searched_models_by_alpha(data.rows(type(self).__name__), spec, grid)
