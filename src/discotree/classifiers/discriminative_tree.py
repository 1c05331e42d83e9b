"""Discriminative trees and nested optimal forests (Tan et al. 2010; Sanghavi et al. 2007)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, cast

import numpy as np
from numpy.typing import NDArray

from ..config import warn_many_pairs
from ..docstrings import fill_doc
from ..kernels.counts import class_totals
from ..learners.discriminative_tree import (
    binary_tasks,
    pair_model,
    two_class,
)
from ..learners.fit_input import FitInput
from ..learners.options import RANDOM_STATE, DiscriminativeTreeOptions, one_of
from ..learners.parameter_rules import (
    BACKOFF_SMOOTHINGS,
    DISCRETE_STREAMS,
    DISCRETE_TABLES,
    Rule,
)
from ..learners.registry import Counts, FittedModel, LearnerSpec, get_learner
from ..migrations import legacy_attribute
from ..models.forest_pairs import STRUCTURE_ALPHA, ForestPair, composite_scores
from ..numerics import argmax_with_ties, sign_with_ties
from ..stats.alpha_selection import CALIBRATION_SCALES
from ..stats.folds import content_folds, fold_splits
from ..stored_classes import stored
from ..validation import (
    check_is_fitted,
    check_table,
    integer_seed,
    take_rows,
)
from ._base import CalibrationStateMixin, DiscreteForestClassifierBase
from ._incremental import IncrementalFitMixin
from .parameter_checks import (
    alpha_not_positive,
    check_distribution,
    check_forest_smoothing,
    check_parameter_table,
    check_rules,
)

__all__ = ["DiscriminativeTreeClassifier"]

_MULTICLASS = ("pairwise", "ovr")
_PARAMETERS = ("projection", "altmax")
_CALIBRATION = ("auto", "cv", "none")


@stored
@fill_doc
class DiscriminativeTreeClassifier(
    CalibrationStateMixin, IncrementalFitMixin, DiscreteForestClassifierBase
):
    """Discriminative trees: a pair of tree models, each close to its class and far
    from the other (Tan et al. 2010, Algorithm 1).

    For two classes, p-hat (class ``classes_[1]``) is the maximum-weight spanning forest
    of the weights psi(+) of eq. 21 and q-hat (``classes_[0]``) that of psi(-); each
    forest stops at the first non-positive weight, as Algorithm 1 does, and its
    parameters are the projection (eq. 7) of its class's (smoothed) empirical
    distribution. Together they maximise the tree-approximate J-divergence (eq. 16,
    Proposition 2) and, for discrete data, the empirical log-likelihood ratio
    (eq. 22, Proposition 4). Prediction is the likelihood ratio test of eq. 3 with
    class priors.

    Parameters
    ----------
    n_edges : int, None or "cv", default=None
        At most this many edges per forest: the optimal pair of k-edge forests of
        eq. 23 (Proposition 5). The paths are nested (Corollary 6), so
        :meth:`staged_decision_function` scores every k from one fit; ``"cv"`` picks k
        by 5-fold cross-validation that way (one fit per fold; the weight-equivalent
        folds of :func:`~discotree.stats.folds.content_folds`, the held-out correct
        weight).
    edge_cost : float or ndarray of shape (n_features, n_features), default=0.0
        Non-negative cost c_ij of an edge (eq. 24). A forest keeps only edges whose
        weight exceeds what they cost it (the natural stopping rule).
    random_state : int, RandomState instance or None, default=0
        Seeds the folds of ``n_edges="cv"`` (unused otherwise). The default makes
        every fit on the same data give the same model; ``None`` draws fresh folds.
    cost_accounting : {"per-forest", "union"}, default="per-forest"
        ``"per-forest"`` charges c_ij to each forest that uses the edge (decoupled,
        exactly optimal for every k). ``"union"`` charges it once per edge of
        E_p union E_q, as eq. 24 writes it: an edge both forests use is paid once. That
        couples the forests; the pair is found by exact block-coordinate ascent from
        the per-forest optimum (never worse than it under eq. 24, each forest optimal
        given the other; see :mod:`discotree.structure.discriminative`).
    distribution : {"discrete", "gaussian"}, default="discrete"
        ``"discrete"``: categorical models on the encoded features (as the other
        classifiers); ``"gaussian"``: continuous features, Gaussian statistics and the
        closed-form weights (the paper's Gaussian example, Section V-A).
    var_smoothing : float, default=0.0
        ``distribution="gaussian"``: added to every variance of every class (each
        class covariance becomes ``Sigma + var_smoothing * I``, in units of the pooled
        variance of each feature, which the estimator standardises). A feature that is
        constant in one class (a border pixel) otherwise gets a density spike that
        decides every prediction; see
        :meth:`discotree.GaussianStatistics.with_variance_added`. The default 0 keeps
        only the numerical floor of 1e-9 on each (conditional) variance.
    multiclass : {"pairwise", "ovr"}, default="pairwise"
        More than two classes: ``"pairwise"`` learns a forest pair for every pair of
        classes and predicts ``argmax_i sum_j f_ij(x)`` with ``f_ij`` the log
        likelihood ratio plus log prior ratio (eq. 31-32); ``"ovr"`` learns class i
        against all others.
    parameters : {"projection", "altmax"}, default="projection"
        ``"projection"``: each forest's parameters are the projection of its class's
        smoothed empirical distribution (eq. 7; LGMHT-proj of Sanghavi et al. 2007). ``"altmax"``
        (discrete only): LGMHT-altmax of Sanghavi et al. 2007, Section 3, starts from the
        projections
        and alternately minimises each class's Chernoff bound on its training error
        (Lemmas 3.1-3.3) with both forests fixed
        (:mod:`discotree.models.lgmht_altmax`); training samples with missing values
        are left out of the bound. With more than two classes, every binary problem
        of ``multiclass`` gets its own altmax pair, learnt on the samples of its two
        sides. The paper finds, and ``sanghavi-random-trees`` measures, that it lowers
        the training error more than the error on new samples.
    max_alternations : int, default=20
        ``parameters="altmax"``: at most this many alternations (S_0 then S_1); it
        stops earlier when the pair's bound no longer decreases.
    smoothing : {"dirichlet", "hierarchical", "hdp"}, default="dirichlet"
        The parameters of each forest (``parameters="projection"``, discrete):
        ``"hierarchical"`` backs each table off to the feature's class-level table and
        its marginal over the problem's two sides, one concentration per level chosen by
        leave-one-out from the counts (the back-off of
        :class:`~discotree.TANClassifier`'s ``smoothing="hierarchical"``, after Petitjean
        et al. 2018); ``alpha`` then smooths the marginals, and with ``alpha="auto"``
        each alpha of the grid is one hierarchical fit per fold. The forests themselves
        (the weights of eq. 21) do not change.
        {smoothing_hdp}
    {alpha_auto}
        Each fold's forests are learnt at alpha 1 while the alphas are compared, and so
        are the final fit's (the chosen alpha sets their parameters), so that the
        procedure whose alpha was chosen is the one fitted. Ignored by
        ``distribution="gaussian"``.
        With ``parameters="altmax"``, the alpha of the starting projections.
    epsilon : float, default=1e-5
        Zero-probability floor (only relevant when alpha is tiny).
    max_categories : int, default=10
        Numeric columns with more distinct values are discretised (discrete only).
    discretizer : Discretizer or None, default=None
        Used for those columns (discrete only).
    calibration : {"auto", "cv", "none"}, default="auto"
        How :meth:`predict_proba` turns the pair scores (the log-likelihood ratios and
        eq. 32's composite scores, which are no posteriors: the forests were chosen to
        separate the classes, and their ratio is overconfident) into probabilities:
        ``softmax(calibration_scale_ * scores)``, with the scale (a temperature) of
        least held-out log-loss on the grid
        :data:`~discotree.stats.alpha_selection.CALIBRATION_SCALES`, from the folds of the
        alpha cross-validation (weight-equivalent folds, the same held-out scores).
        ``"auto"``: with ``alpha="auto"`` (no extra cost), else scale 1; ``"cv"``:
        always (with a fixed alpha, one cross-validation for the scale, about one more
        fit); ``"none"``: scale 1, the scores as they are. Predictions and
        :meth:`decision_function` never change. Discrete models fitted from rows
        only (Gaussian, streamed or Dask fits keep scale 1).

    Attributes
    ----------
    {discrete_fit_attributes}
    edges_ : list of list of (int, int)
        Per class, in ``classes_`` order, the edges of its forest(s) in the order
        they were added (pairwise multiclass: the union over the class's opponents).
    {edge_names_}
    edge_weights_ : ndarray of shape (n_classes, n_features, n_features)
        Two classes or ``"ovr"``: the weights used for each class's forest (psi(-) for
        ``classes_[0]`` and psi(+) for ``classes_[1]`` when binary). Pairwise
        multiclass: ``edge_weights_[i]`` is the mean over opponents.
    n_edges_ : int or None
        The number of edges per forest used (chosen by CV when ``n_edges="cv"``).
    statistics_ : PairStatistics or GaussianStatistics
        The per-class statistics of the training data, kept so that every k of the
        nested paths can be scored without recounting.
    forest_pairs_ : list
        One entry per binary problem (``positive``, ``negative`` class indices,
        nested paths ``path_pos``/``path_neg``, eq. 16 along them ``j_path``, and the
        fitted two-class ``model``).
    edge_path_ : list of list of (int, int, float)
        Two classes: per class, the full nested path of (i, j, weight) before the
        ``n_edges`` cut.
    discriminative_edges_ : list of (int, int, float, label)
        Two classes: the selected edges of both forests, most salient (largest
        weight) first, with the class whose forest holds them.
    j_divergence_path_ : ndarray
        Two classes: the tree-approximate J-divergence (eq. 16) of the optimal k-edge
        forest pair for k = 0, 1, ... (non-decreasing).
    altmax_history_ : list of dict
        ``parameters="altmax"`` with two classes: the pair's bound on the training
        error, the error exponents and the training error at the start and after
        every alternation (:class:`~discotree.models.lgmht_altmax.AltmaxResult`; every
        binary problem's is in ``forest_pairs_``).
    model_ : DiscreteForestModel or GaussianForestModel or None
        Two classes: the pair of forests (column order of ``classes_``).
    {alpha_}
    calibration_scale_ : float
        The scale of the scores in :meth:`predict_proba` (see ``calibration``).
    calibration_cv_losses_ : ndarray of shape (n_scales,)
        When a scale was fitted: the held-out log-loss of each scale of the grid.
    {fit_memory_estimate_}

    Notes
    -----
    One counting pass gives every class's pair tables; each binary problem then costs
    O(n_features**2 log n_features) (weights and two Kruskal runs), the same as TAN.
    Missing values: each statistic uses the samples where its variables are observed;
    at prediction they are summed out exactly.

    References
    ----------
    V. Y. F. Tan, S. Sanghavi, J. W. Fisher and A. S. Willsky, "Learning graphical
    models for hypothesis testing and classification", IEEE Trans. Signal Processing
    58(11), 2010. S. Sanghavi, V. Y. F. Tan and A. S.
    Willsky, IEEE SSP 2007 (Sanghavi et al. 2007, eq. 4).

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from discotree import DiscriminativeTreeClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = DiscriminativeTreeClassifier().fit(X, y)
    >>> bool(clf.j_divergence_path_[-1] >= clf.j_divergence_path_[0])
    True
    """

    #: One forest per class, not one class-rooted network (exports and pictures).
    structure_per_class = True
    #: What its file must hold (:mod:`~discotree.classifiers.file_checks`): the binary
    #: problems' forests, their calibration, and with two classes ``model_`` too.
    _FITTED_READS = ("forest_pairs_", "calibration_scale_")
    _FITTED_READS_TWO_CLASSES = ("model_",)
    _BINARY_PROBLEMS = (("forest_pairs_", ForestPair),)

    def __init__(
        self,
        n_edges: int | str | None = None,
        *,
        edge_cost: float | NDArray[np.float64] = 0.0,
        distribution: str = "discrete",
        multiclass: str = "pairwise",
        var_smoothing: float = 0.0,
        cost_accounting: str = "per-forest",
        parameters: str = "projection",
        max_alternations: int = 20,
        random_state: int | np.random.RandomState | None = 0,
        alpha: float | str = "auto",
        epsilon: float = 1e-5,
        max_categories: int = 10,
        discretizer=None,
        calibration: str = "auto",
        smoothing: str = "dirichlet",
    ) -> None:
        super().__init__(
            alpha=alpha, epsilon=epsilon, max_categories=max_categories, discretizer=discretizer
        )
        self.calibration = calibration
        self.smoothing = smoothing
        self.n_edges = n_edges
        self.edge_cost = edge_cost
        self.distribution = distribution
        self.var_smoothing = var_smoothing
        self.multiclass = multiclass
        self.cost_accounting = cost_accounting
        self.parameters = parameters
        self.max_alternations = max_alternations
        self.random_state = random_state

    # ------------------------------------------------------------------ fitting
    _parameter_checks = (
        ("random_state", RANDOM_STATE),
        ("parameters", one_of(_PARAMETERS)),
        ("calibration", one_of(_CALIBRATION)),
    )
    _rules = (
        Rule(
            lambda e: e.parameters == "altmax" and e.distribution != "discrete",
            "parameters='altmax' is defined for distribution='discrete' only (indicator "
            "features of a finite family).",
        ),
        Rule(
            lambda e: e.smoothing in BACKOFF_SMOOTHINGS and e.parameters == "altmax",
            "smoothing={smoothing!r} smooths the projections' tables, which "
            "parameters='altmax' replaces; use one or the other.",
        ),
        Rule(
            lambda e: e.distribution == "discrete" and alpha_not_positive(e),
            "alpha must be > 0 (got {alpha}); the weights of eq. 21 are infinite when a cell "
            "is empty in one class only.",
        ),
    )

    _checks = (check_distribution, check_parameter_table, check_forest_smoothing, check_rules)

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> DiscriminativeTreeClassifier:
        """Fit the forests; with ``n_edges="cv"`` first choose k by cross-validation.

        Parameters
        ----------
        {X_fit}
        {y_fit}
        {sample_weight_fit}

        Returns
        -------
        self : object
            The fitted estimator (``edges_``, ``forest_pairs_``,
            ``j_divergence_path_``, ...).

        Raises
        ------
        ValueError
            For bad input or hyper-parameters (the message names them), and for
            ``alpha=0`` with discrete data (the weights of eq. 21 would be infinite).

        Examples
        --------
        >>> from sklearn.datasets import load_breast_cancer
        >>> from discotree import DiscriminativeTreeClassifier
        >>> X, y = load_breast_cancer(return_X_y=True)
        >>> clf = DiscriminativeTreeClassifier(alpha=1.0).fit(X, y)
        >>> [len(edges) for edges in clf.edges_]  # one spanning tree per class
        [29, 29]
        """
        cv = isinstance(self.n_edges, str) and self.n_edges == "cv"
        if cv:
            X_cv, y_cv, weights, _ = self._validated_for_cv(X, y, sample_weight)
            self.n_edges_ = self._n_edges_by_cv(X_cv, y_cv, weights)
        else:
            self.n_edges_ = cast(int | None, self.n_edges)  # validated: "cv" is the only str
        return super().fit(X, y, sample_weight)

    def _n_edges_by_cv(self, X: Any, y: Any, sample_weight: Any) -> int | None:
        """The k of largest held-out correct weight (the smallest on ties), searched on 0
        and up to 20 geometric steps to n_features - 1: one fit per fold of the
        package's weight-equivalent folds (``stats.folds.content_folds`` of the rows'
        codes, seeded by ``random_state``), every k scored from its nested paths; a
        fold whose training rows miss a class is skipped. None when no fold can be
        scored."""
        from sklearn.base import clone

        y = np.asarray(y)
        classes, y_index = np.unique(y, return_inverse=True)
        weights = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, float)
        if len(classes) < 2:
            return None
        table = check_table(X, type(self).__name__)
        codes = self._make_encoder().fit_transform(table, weights, y_index)
        n_folds = 5
        folds = content_folds(codes, n_folds, integer_seed(self.random_state))
        n_features = codes.shape[1]
        grid = [0, *np.unique(np.geomspace(1, max(n_features - 1, 1), 20).round().astype(int))]
        score = np.zeros(len(grid))
        scored = False
        for train, test in fold_splits(folds, n_folds):
            present = class_totals(y_index[train], weights[train], len(classes))
            if len(test) == 0 or np.any(present <= 0):
                continue
            model = clone(self).set_params(n_edges=None, parameters="projection")
            w = None if sample_weight is None else weights[train]
            model.fit(take_rows(X, train), y[train], sample_weight=w)
            staged = model.staged_decision_function(take_rows(X, test), grid)
            for g, (_, decision) in enumerate(staged):
                if decision.ndim == 2:
                    index = argmax_with_ties(decision)
                else:
                    index = (sign_with_ties(decision) > 0).astype(np.intp)
                score[g] += weights[test] @ (model.classes_[index] == y[test])
            scored = True
        return int(grid[int(np.argmax(score))]) if scored else None

    _uncertainty_rules = (
        DISCRETE_TABLES,
        Rule(lambda e: e.parameters != "projection", "parameters={parameters!r}"),
        Rule(
            lambda e: hasattr(e, "classes_") and len(e.classes_) != 2,
            "more than two classes: composite scores of pairs of forests",
        ),
    )

    _streaming_rules = (
        Rule(lambda e: isinstance(e.n_edges, str), "n_edges='cv' refits on folds of the rows."),
        Rule(
            lambda e: e.parameters == "altmax",
            "parameters='altmax' minimises a bound over the training rows.",
        ),
        DISCRETE_STREAMS,
    )

    def _n_edges_in_use(self) -> int | None:
        """``n_edges``, or the number ``n_edges="cv"`` chose (``n_edges_``, set by
        ``fit`` before the forests are learnt)."""
        if isinstance(self.n_edges, str):
            return getattr(self, "n_edges_", None)
        return self.n_edges

    def _fit_model(self, data: FitInput) -> FittedModel:
        stats = self._statistics(data)
        self._tasks(data.n_classes, warn=True)
        spec = self._fitted_spec(data).with_options(classes=data.classes)
        if self.parameters == "altmax":  # the rows: alternating maximisation per problem
            spec = replace(spec.with_options(pairs=stats), learner="discriminative-tree-altmax")
            fitted = get_learner(spec.learner).fit(data.rows(type(self).__name__), spec)
        else:
            counts = Counts(data.n_categories, data.class_weight, stats)
            fitted = get_learner(spec.learner).fit(counts, spec)
        fitted.attributes["n_edges_"] = self._n_edges_in_use()
        return fitted

    _learner = "discriminative-tree"
    _options_class = DiscriminativeTreeOptions

    def _derived_options(self) -> dict[str, Any]:
        return {
            **super()._derived_options(),
            "n_edges": self._n_edges_in_use(),  # (the number chosen)
            "structure_alpha": self._structure_alpha(),
        }

    def _tasks(self, n_classes: int, warn: bool = False) -> list[tuple[int, int]]:
        """The binary problems: (positive, negative) class indices, -1 for the rest."""
        if warn and n_classes > 2 and self.multiclass == "pairwise":
            warn_many_pairs(n_classes, type(self).__name__)
        return binary_tasks(n_classes, self.multiclass)

    # -------------------------------------------------------------- alpha="auto"
    _auto_alpha = True  # (Gaussian models have no pseudo-counts: "auto" is ignored)

    def _structure_alpha(self) -> float:
        """The pseudo-count of the weights of eq. 21: ``alpha="auto"`` chose the alpha
        of forests learnt at ``STRUCTURE_ALPHA``, so the fitted procedure is that one
        (the chosen alpha sets the parameters); else ``alpha``."""
        if self.alpha == "auto":
            return STRUCTURE_ALPHA
        return self._check_common_params()[0]

    def _calibration_scales(self) -> tuple[float, ...]:
        if self.distribution != "discrete" or self.calibration == "none":
            return ()
        if self.calibration == "auto" and self.alpha != "auto":
            return ()
        return CALIBRATION_SCALES

    def _alpha_model_for(self, data: FitInput, grid: tuple[float, ...]):
        """For ``alpha="auto"``: the learner's models for every alpha of ``grid``, each
        fold's forests learnt once from the weights of eq. 21 at ``STRUCTURE_ALPHA``
        (the final fit learns its forests there too). Relearning the
        structure for every (fold, alpha) is measured in
        ``benchmarks/bench_smoothing.py`` ("dt auto relearnt")."""
        options = self._learner_options(structure_alpha=STRUCTURE_ALPHA)
        prior = getattr(self, "prior", "dirichlet")
        spec = LearnerSpec("discriminative-tree", "auto", data.epsilon, prior, options)
        return get_learner(spec.learner).model_for(spec, grid)

    # --------------------------------------------------------------- prediction
    def _scores(self, encoded: NDArray) -> NDArray[np.float64]:
        """Multiclass composite scores (eq. 32 with log prior ratios)."""
        ratios = [pair.log_ratio(encoded) for pair in self.forest_pairs_]
        tasks = [(pair.positive, pair.negative) for pair in self.forest_pairs_]
        return composite_scores(ratios, tasks, self.class_log_prior_, len(self.classes_))

    _joint_rules = (
        Rule(
            lambda e: hasattr(e, "classes_") and len(e.classes_) != 2,
            "predict_joint_log_proba is defined for two classes only: with more, the "
            "composite rule of eq. 32 defines scores, not a joint distribution; use "
            "decision_function",
        ),
    )

    def _class_scores(self, X: Any) -> tuple[NDArray[np.float64], str]:
        """Two classes: ``log P(c) + log p_c(x)`` with p-hat for ``classes_[1]`` and
        q-hat for ``classes_[0]`` (a joint: the decision function is the
        log-likelihood ratio test statistic plus the log prior ratio). More classes:
        the composite scores of eq. 32 (pairwise) or the one-vs-rest scores (margins;
        their log softmax is the posterior, not calibrated unless ``calibration``)."""
        if len(self.classes_) == 2:
            return super()._class_scores(X)
        return self._scores(self._encode(X)), "margin"

    def staged_decision_function(self, X: Any, n_edges: list[int] | None = None):
        """Decision function of the optimal k-edge forests for each k, from the stored
        statistics (no recount): the nested paths of Corollary 6.

        Parameters
        ----------
        {X_predict}
        n_edges : list of int, optional
            The values of k (default 0, 1, ..., the longest path).

        Yields
        ------
        k : int
        decision : ndarray of shape (n_samples,) for two classes, else
            (n_samples, n_classes), as :meth:`decision_function` would give with
            ``n_edges=k``.

        Raises
        ------
        ValueError
            With ``parameters="altmax"``: its parameters are learnt for the fitted
            forests only (refit with another ``n_edges`` instead).

        Examples
        --------
        >>> from sklearn.datasets import load_breast_cancer
        >>> from discotree import DiscriminativeTreeClassifier
        >>> X, y = load_breast_cancer(return_X_y=True)
        >>> clf = DiscriminativeTreeClassifier(alpha=1.0).fit(X, y)
        >>> [(k, round(float(((d > 0) == y).mean()), 3))
        ...  for k, d in clf.staged_decision_function(X, n_edges=[0, 5, 29])]
        [(0, 0.94), (5, 0.946), (29, 0.965)]
        """
        check_is_fitted(self)
        if self.parameters == "altmax":
            raise ValueError(
                f"{type(self).__name__}: staged_decision_function scores the projections "
                "of every k; parameters='altmax' learnt parameters for n_edges_ only."
            )
        encoded = self._encode(X)
        options = {"smoothing": self.smoothing}
        spec = LearnerSpec("discriminative-tree", self.alpha_, self.epsilon, options=options)
        longest = max(max(len(p.path_pos.edges), len(p.path_neg.edges)) for p in self.forest_pairs_)
        prior = self.class_log_prior_
        for k in range(longest + 1) if n_edges is None else n_edges:
            ratios = []
            for pair in self.forest_pairs_:
                stats = two_class(self.statistics_, pair.positive, pair.negative)
                model = pair_model(stats, pair.path_pos, pair.path_neg, k, spec)
                loglik = model.log_likelihood(encoded)
                ratios.append(loglik[:, 1] - loglik[:, 0])
            if len(self.classes_) == 2:
                yield k, ratios[0] + prior[1] - prior[0]
                continue
            tasks = [(pair.positive, pair.negative) for pair in self.forest_pairs_]
            yield k, composite_scores(ratios, tasks, prior, len(self.classes_))


def __getattr__(name: str) -> Any:
    """The classes of this module by the names pickles of earlier versions hold."""
    return legacy_attribute(__name__, name)
