"""Boosted graphical model classifiers (Tan et al. 2010, Section IV)."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..config import check_memory, warn_many_pairs
from ..docstrings import fill_doc
from ..engine_registry import engine_function
from ..kernels.counts import class_totals
from ..learners.boosting import (
    CALIBRATION_FOLDS,
    BoostingSpec,
    calibration_scale_losses,
    ensemble_attributes,
    final_scale_losses,
    line_search_alpha,
)
from ..learners.discriminative_tree import binary_tasks
from ..learners.fit_input import FitInput
from ..learners.options import RANDOM_STATE, BoostingOptions, Constraint, one_of
from ..learners.registry import FittedModel, LearnerSpec, get_learner
from ..migrations import legacy_attribute
from ..models.boosted_ensemble import BoostedEnsemble
from ..numerics import (
    argmax_with_ties,
    class_log_prior,
    sign_with_ties,
    weighted_error_rate,
)
from ..scaling_tags import ScalingTags
from ..stats.alpha_selection import CALIBRATION_SCALES, best_scale
from ..stats.folds import content_folds
from ..stored_classes import stored
from ..validation import (
    check_is_fitted,
    feature_names_of,
    integer_seed,
    is_count,
    take_rows,
)
from ._base import (
    CalibrationStateMixin,
    DiscreteForestClassifierBase,
    Rule,
    feature_names,
    with_edge_names,
)
from .parameter_checks import (
    alpha_not_positive,
    check_forest_smoothing,
    check_parameter_table,
    check_rules,
)

__all__ = ["BoostedGraphicalModelClassifier", "final_scale_losses", "line_search_alpha"]


_ALGORITHMS = ("real", "discrete")
_MULTICLASS = ("pairwise", "ovr")
_CALIBRATION = ("cv", "none")
#: The registered learner of each base, whose alpha="auto" boosting takes.
_COUNT_LEARNERS = {"dt": "discriminative-tree", "chow-liu": "chow-liu", "tan": "tan-cmi"}
#: The largest n_estimators and n_estimators_cv (rounds and folds are int64 counts).
_MAX_COUNT = 2**63 - 1


def check_cv_memory(estimator: Any) -> None:
    """With ``n_estimators_cv``: the memory of ``n_estimators_cv_errors_`` (one float per
    round), against the ``memory_limit`` configuration key."""
    if estimator.n_estimators_cv is not None:
        n_estimators = estimator.n_estimators
        what = f"n_estimators={n_estimators!r} (n_estimators_cv_errors_, one float per round)"
        check_memory(8.0 * n_estimators, what, type(estimator).__name__)


@stored
@fill_doc
class BoostedGraphicalModelClassifier(CalibrationStateMixin, DiscreteForestClassifierBase):
    """Boosted graphical model classifier (BGMC, Tan et al. 2010, Algorithm 2).

    Real-AdaBoost whose weak classifier at round t is the log-likelihood ratio
    ``h_t(x) = log p_t(x) / q_t(x)`` of a pair of tree models learned from the
    *weighted* empirical distributions; ``alpha_t`` minimises the weighted exponential
    loss by a convex line search (step 5) and the weights are updated and normalised
    (step 6). The ensemble ``sum_t alpha_t h_t(x) = log p*(x)/q*(x)`` (eq. 26-27) is
    a likelihood ratio between two unnormalised models that are Markov on the union of
    the rounds' edges (Proposition 7).

    Parameters
    ----------
    base : {"dt", "chow-liu", "tan"}, default="dt"
        Weak learner: discriminative trees (BGMC), a Chow-Liu tree per class (BCL) or
        TAN (BTAN).
    algorithm : {"real", "discrete"}, default="real"
        Real-AdaBoost on ``h_t`` or Discrete-AdaBoost on ``sign(h_t)``.
    n_estimators : int, default=10
        Number of boosting rounds T (fewer if boosting stops early).
    n_estimators_cv : int or None, default=None
        If K, choose T* <= ``n_estimators`` by K-fold cross-validation of the error of
        the staged ensembles (the paper's procedure) and keep the first T* rounds. The
        folds are weight-equivalent (:func:`~discotree.stats.folds.content_folds`: a
        row of weight k and its k copies are held out together); a fold whose
        training rows miss a class is skipped.
    multiclass : {"pairwise", "ovr"}, default="pairwise"
        More than two classes: sum of pairwise ensembles (eq. 32) or one-vs-rest.
    init : {"prior", "zero"}, default="prior"
        The ensemble's starting score F_0. ``"prior"``: half the log ratio of the two
        sides' weights, the constant that minimises the exponential loss (as
        scikit-learn's gradient boosting starts from the prior), with the first
        round's weights balanced accordingly; the decision then accounts for the class
        prior, which matters when the classes are unbalanced. ``"zero"``: F_0 = 0, the
        rule of eq. 26 as the paper states it (a prior-free likelihood ratio test; the
        reproductions use it). The default is ``"prior"`` because without it a rare
        class is predicted far more often than it occurs.
    random_state : int, RandomState instance or None, default=0
        Seeds the folds of ``n_estimators_cv`` and of the calibration (unused
        otherwise). The default makes every fit on the same data give the same model;
        ``None`` draws fresh folds.
    alpha, epsilon, max_categories, discretizer
        As for :class:`DiscriminativeTreeClassifier` (alpha must be > 0 for "dt").
        ``alpha="auto"`` chooses the pseudo-count once, as the base learner's
        ``alpha="auto"`` would on the training data, and keeps it for every round.
    calibration : {"cv", "none"}, default="cv"
        How :meth:`predict_proba` turns the ensemble's scores into probabilities:
        ``softmax(calibration_scale_ * scores)`` (two classes:
        ``1 / (1 + exp(-2 calibration_scale_ F))``). The boosted scores of trees chosen
        to separate the classes are overconfident (held-out log-loss 2-10 times
        TAN's on most sets), so by default the scale (a temperature) is the one of
        least held-out log-loss on the grid
        :data:`~discotree.stats.alpha_selection.CALIBRATION_SCALES`: from the folds of
        ``n_estimators_cv`` when it is set (their held-out scores at the chosen
        number of rounds, no extra cost), else from 5 weight-equivalent folds
        (:func:`~discotree.stats.folds.content_folds`; five more boosted fits on
        4/5 of the rows each, about 5x the fit time). ``"none"``: scale 1, the
        Real-AdaBoost estimate ``1 / (1 + exp(-2 F))`` of Friedman et al. (2000) as it
        is. Predictions and :meth:`decision_function` never change. Dask fits
        choose the same scale from the same folds (the folds' boosting and scoring run
        on the cluster).
    smoothing : {"dirichlet", "hierarchical"}, default="dirichlet"
        The weak learners' tables: ``"hierarchical"`` backs each off to the feature's
        class-level table and its marginal (as :class:`TANClassifier`'s), the
        concentrations chosen by leave-one-out on each round's weighted counts (the
        round's weights scaled to the training total, so that a unit of weight is one
        row's mean weight: exact leave-one-out only for whole-number counts, which
        boosting's weights are not). ``alpha`` then smooths the marginals. ``"hdp"``
        is refused: its sampler seats whole rows, and the rounds' weights are fractions.

    Attributes
    ----------
    {classes_}
    fit_memory_estimate_ : float
        The peak memory of counting the pair tables in bytes (and holding the encoded
        rows), estimated before counting and checked against ``memory_limit``; what
        the rounds or the tree learn from them is not included.
    {class_count_}
    class_log_prior_ : ndarray of shape (n_classes,)
        Log of the class frequencies (used with ``init="prior"``).
    {n_categories_}
    {encoder_}
    alpha_ : float
        The pseudo-count of every round's weak learner.
    ensembles_ : list
        Per binary problem, its rounds (step size and forest pair model) and its
        starting score F_0; what :meth:`decision_function` sums.
    model_ : None
        Boosted models have no single forest model (see ``ensembles_``).
    {n_features_in_}
    {feature_names_in_}
    estimator_alphas_ : list of ndarray
        Per binary problem, ``alpha_t`` of each round.
    n_estimators_ : int
        Rounds used (chosen by CV when ``n_estimators_cv`` is set).
    n_estimators_cv_errors_ : ndarray of shape (n_estimators,)
        With ``n_estimators_cv``: after each round, the held-out error rate (weighted
        by ``sample_weight``) summed over the folds; ``n_estimators_`` is its first
        minimum. (``n_estimators`` floats: more than ``memory_limit`` is refused
        before fitting.)
    calibration_scale_ : float
        The scale of the scores in :meth:`predict_proba` (see ``calibration``; 1 when
        no fold could be scored, e.g. a class in one fold only).
    calibration_cv_losses_ : ndarray of shape (n_scales,)
        With ``calibration="cv"``: the held-out log-loss (weighted, summed over the
        folds) of each scale of ``CALIBRATION_SCALES``.
    edges_union_ : list of list of (int, int)
        Two classes: per class (``classes_`` order), the union of its models' edges
        over the rounds (Proposition 7, eq. 28); multiclass: the union over the class's
        binary problems.
    edges_ : list of list of (int, int)
        The same as ``edges_union_``.
    {edge_names_}
    stopped_ : list of str
        Per binary problem, why boosting stopped ("" when all rounds ran): a perfect
        weak learner (infinite alpha; the round is kept with alpha 1) or one no better
        than chance (alpha 0; not kept).

    Notes
    -----
    Each round costs one weighted counting pass plus the structure learner; the data
    are encoded once. ``decision_function`` is the unnormalised log-ratio of eq. 26
    (without class priors); ``predict_proba`` maps it to
    ``1 / (1 + exp(-2 s F))``, the Real-AdaBoost estimate of the posterior (Friedman
    et al., 2000) with its scale ``s`` chosen by cross-validation (``calibration``).

    References
    ----------
    V. Y. F. Tan et al., IEEE Trans. Signal Processing 58(11), 2010, Section IV.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from discotree import BoostedGraphicalModelClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = BoostedGraphicalModelClassifier(n_estimators=3).fit(X, y)
    >>> len(clf.estimator_alphas_[0]) <= 3
    True
    """

    _SCORE_KIND = "margin"
    #: What its file must hold (:mod:`~discotree.classifiers.file_checks`): the boosted
    #: binary problems and their calibration.
    _FITTED_READS = ("ensembles_", "calibration_scale_")
    _BINARY_PROBLEMS = (("ensembles_", BoostedEnsemble),)
    _joint_rules = (
        Rule(
            lambda e: True,
            "predict_joint_log_proba is not defined for boosted models, which are "
            "unnormalised (eq. 27); use decision_function",
        ),
    )
    _options_class = BoostingOptions  # (its learner's spec: boosting_spec)

    def __init__(
        self,
        base: str = "dt",
        *,
        algorithm: str = "real",
        n_estimators: int = 10,
        n_estimators_cv: int | None = None,
        multiclass: str = "pairwise",
        init: str = "prior",
        random_state: int | np.random.RandomState | None = 0,
        alpha: float = 1.0,
        epsilon: float = 1e-5,
        max_categories: int = 10,
        discretizer=None,
        calibration: str = "cv",
        smoothing: str = "dirichlet",
    ) -> None:
        super().__init__(
            alpha=alpha, epsilon=epsilon, max_categories=max_categories, discretizer=discretizer
        )
        self.calibration = calibration
        self.smoothing = smoothing
        self.base = base
        self.algorithm = algorithm
        self.n_estimators = n_estimators
        self.n_estimators_cv = n_estimators_cv
        self.multiclass = multiclass
        self.random_state = random_state
        self.init = init

    _parameter_checks = (
        ("calibration", one_of(_CALIBRATION, f"one of {sorted(_CALIBRATION)}")),
        ("n_estimators_cv", Constraint(lambda v: v is None or is_count(v, 2), "an integer >= 2")),
        ("random_state", RANDOM_STATE),
    )
    _rules = (
        Rule(
            lambda e: e.n_estimators > _MAX_COUNT,
            "n_estimators must be at most 2**63 - 1, got {n_estimators!r}.",
        ),
        Rule(
            lambda e: e.n_estimators_cv is not None and e.n_estimators_cv > _MAX_COUNT,
            "n_estimators_cv must be at most 2**63 - 1, got {n_estimators_cv!r}.",
        ),
        Rule(
            lambda e: e.smoothing == "hdp",
            "smoothing='hdp' seats whole rows as the sampler's customers, and boosting "
            "reweights the rows every round (fractional weights); use "
            "smoothing='hierarchical'.",
        ),
        Rule(
            lambda e: e.base == "dt" and alpha_not_positive(e),
            "alpha must be > 0 for base='dt' (got {alpha}).",
        ),
    )

    _checks = (check_parameter_table, check_rules, check_cv_memory, check_forest_smoothing)
    _auto_alpha = True

    def _alpha_model_for(self, data: FitInput, grid: tuple[float, ...]):
        """alpha="auto": the base learner's own choice on the (initially weighted)
        training data, kept for every round (its registered learner's models for
        every alpha of ``grid``)."""
        name = _COUNT_LEARNERS[self.base]
        options: dict[str, Any] = {"n_edges": None, "smoothing": self.smoothing}
        if self.base == "dt":
            options["multiclass"] = self.multiclass
        prior = getattr(self, "prior", "dirichlet")
        spec = LearnerSpec(name, "auto", data.epsilon, prior, options)
        return get_learner(name).model_for(spec, grid)

    def __discotree_tags__(self) -> ScalingTags:
        """What this estimator supports with its parameters
        (:mod:`discotree.scaling_tags`): no ``partial_fit`` (each round reweights every
        row); Dask with ``n_estimators_cv=None`` and a numeric ``alpha`` (each round a
        counting and a scoring pass over the partitions); a file read whole."""
        dask = self.n_estimators_cv is None and not (
            isinstance(self.alpha, str) and self.alpha == "auto"
        )
        return ScalingTags(hasattr(self, "partial_fit"), "memory", dask)

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> BoostedGraphicalModelClassifier:
        """Boost; with ``n_estimators_cv`` first choose the number of rounds by CV.

        Parameters
        ----------
        {X_fit}
        {y_fit}
        sample_weight : array-like of shape (n_samples,), default=None
            Initial weights (uniform by default, step 1 of Algorithm 2).

        Returns
        -------
        self : object
            The fitted ensemble (``estimator_alphas_``, ``edges_union_``, ...).

        Raises
        ------
        ValueError
            For bad input or hyper-parameters; the message names them.

        Examples
        --------
        >>> from sklearn.datasets import load_breast_cancer
        >>> from discotree import BoostedGraphicalModelClassifier
        >>> X, y = load_breast_cancer(return_X_y=True)
        >>> clf = BoostedGraphicalModelClassifier(n_estimators=3, alpha=1.0).fit(X, y)
        >>> clf.n_estimators_
        3
        """
        self.n_estimators_ = self.n_estimators
        self.calibration_scale_ = 1.0
        fit_elsewhere = engine_function(X, "fit_boosted")
        if fit_elsewhere is not None:  # Dask collections (the extra discotree[dask])
            return fit_elsewhere(self, X, y, sample_weight)
        super().fit(X, y, sample_weight)
        if self.n_estimators_cv is None and self.calibration == "none":
            return self
        # The rounds are sequential: the first T of this fit are the T-round ensemble, so
        # the folds can be drawn from the fitted encoding and the rounds cut afterwards.
        X_cv, y_cv, weights, _ = self._validated_for_cv(X, y, sample_weight)
        n_folds = CALIBRATION_FOLDS if self.n_estimators_cv is None else self.n_estimators_cv
        folds = content_folds(self._encode(X_cv), n_folds, integer_seed(self.random_state))
        # only the folds that hold rows (n_estimators_cv may exceed the rows; an empty
        # fold scores nothing)
        splits = [
            (np.flatnonzero(folds != k), np.flatnonzero(folds == k)) for k in np.unique(folds)
        ]
        staged = self._staged_held_out(X_cv, y_cv, weights, splits)
        if staged is None:  # no fold holds every class in its training rows
            return self
        errors, scale_losses = staged
        rounds = len(errors)
        if self.n_estimators_cv is not None:
            # one entry per round: after the fold models' last round, the ensembles
            # stay the same (n_estimators was checked against the memory limit)
            self.n_estimators_cv_errors_ = np.full(self.n_estimators, errors[-1])
            self.n_estimators_cv_errors_[:rounds] = errors
            rounds = int(np.argmin(errors)) + 1
            self._keep_rounds(rounds)
        if self.calibration == "cv":
            self.calibration_cv_losses_ = scale_losses[rounds - 1]
            self.calibration_scale_ = best_scale(scale_losses[rounds - 1], CALIBRATION_SCALES)
        return self

    def _keep_rounds(self, rounds: int) -> None:
        """Cut every binary problem to its first ``rounds`` rounds (``n_estimators_cv``)."""
        self.n_estimators_ = rounds
        self._set_ensembles(
            [
                BoostedEnsemble(
                    e.positive,
                    e.negative,
                    e.rounds[:rounds],
                    e.stopped if len(e.rounds) <= rounds else "",
                    e.init_score,
                )
                for e in self.ensembles_
            ]
        )

    @staticmethod
    def _fold_scale_losses(scores, truth, held) -> NDArray[np.float64]:
        """The held-out log-loss (weighted, summed) of every calibration scale, from a
        fold model's scores over the classes whose indices ``truth`` holds."""
        return calibration_scale_losses(scores, truth, held)

    def _staged_held_out(self, X: Any, y: Any, weights: Any, splits):
        """After each round, the held-out error rate (weighted, summed over the folds)
        and (with ``calibration="cv"``) the held-out log-loss of every scale, from this
        ensemble refitted on the training rows of each fold; ``None`` when no fold's
        training rows hold every class with positive weight (those folds are skipped)."""
        from sklearn.base import clone

        y = np.asarray(y)
        weights = np.ones(len(y)) if weights is None else np.asarray(weights, dtype=np.float64)
        truth = np.searchsorted(self.classes_, y)
        calibrate = self.calibration == "cv"
        no_losses = np.zeros(len(CALIBRATION_SCALES))
        staged = []  # each scored fold's errors and losses after each of its rounds
        for train, test in splits:
            present = class_totals(truth[train], weights[train], len(self.classes_))
            if len(test) == 0 or np.any(present <= 0):
                continue
            model = clone(self).set_params(n_estimators_cv=None, calibration="none")
            model.fit(take_rows(X, train), y[train], sample_weight=weights[train])
            held = weights[test]
            fold_errors, fold_losses = [], []
            for scores in model.staged_decision_function(take_rows(X, test)):
                labels = model._labels(scores)
                fold_errors.append(weighted_error_rate(y[test], labels, held))
                fold_losses.append(
                    self._fold_scale_losses(scores, truth[test], held) if calibrate else no_losses
                )
            staged.append((fold_errors, fold_losses))
        if not staged:
            return None
        # sized by the rounds the fold models ran (at most n_estimators: boosting may
        # stop early): after a fold's last round its ensemble stays the same
        rounds = max(1, max(len(fold_errors) for fold_errors, _ in staged))
        errors = np.zeros(rounds)
        losses = np.zeros((rounds, len(CALIBRATION_SCALES)))
        for fold_errors, fold_losses in staged:
            n = len(fold_errors)
            if n:
                errors[:n] += fold_errors
                errors[n:] += fold_errors[-1]
                losses[:n] += fold_losses
                losses[n:] += fold_losses[-1]
        return errors, losses

    def boosting_spec(self) -> BoostingSpec:
        """The validated parameters of a boosted fit, for an engine that boosts
        elsewhere (the Dask engine; see :meth:`fit_from_ensembles`).

        Returns
        -------
        BoostingSpec

        Raises
        ------
        ValueError
            For bad hyper-parameters.

        Examples
        --------
        >>> from discotree import BoostedGraphicalModelClassifier
        >>> BoostedGraphicalModelClassifier(n_estimators=3).boosting_spec().n_estimators
        3
        """
        alpha, epsilon = self._validated_smoothing()
        return self._boosting(int(self.n_estimators), alpha, epsilon)

    def _boosting(self, n_estimators: int, alpha: Any, epsilon: float) -> BoostingSpec:
        """The boosting of the validated parameters (``alpha``: the pseudo-count in
        use)."""
        return BoostingSpec(
            self.base,
            self.algorithm,
            n_estimators,
            self.init,
            alpha,
            epsilon,
            self.multiclass,
            self.smoothing,
        )

    def fit_from_ensembles(
        self,
        schema: Any,
        class_weight: Any,
        ensembles: list[BoostedEnsemble],
        calibration_losses: Any = None,
    ) -> BoostedGraphicalModelClassifier:
        """Take the ensembles an engine boosted elsewhere (one per binary problem of
        ``boosting_spec().tasks``) as the fitted model: the fitted attributes are set
        here, as ``fit`` sets them.

        Parameters
        ----------
        schema : StatisticsSchema
            The encoding the ensembles' rows were encoded with.
        class_weight : array-like of shape (n_classes,)
            The weight of each class.
        ensembles : list of BoostedEnsemble
        calibration_losses : array-like of shape (n_scales,), default=None
            With ``calibration="cv"``: the held-out log-loss of every scale of
            :data:`~discotree.stats.alpha_selection.CALIBRATION_SCALES`, summed over
            the calibration folds as ``fit`` sums them (each fold's held-out rows
            scored by the ensemble boosted on its other rows); the scale is chosen
            from them as ``fit`` chooses it. ``None``: the scores' scale stays 1.

        Returns
        -------
        self
        """
        from ..fitting import clear_fitted_state

        spec = self.boosting_spec()
        class_weight = np.asarray(class_weight, dtype=np.float64)
        names = {} if schema.feature_names is None else {"feature_names_in_": schema.feature_names}
        attributes: dict[str, Any] = {
            "classes_": schema.classes,
            "encoder_": copy.deepcopy(schema.encoder),
            "n_features_in_": schema.n_features,
            **names,
            "n_categories_": schema.n_categories,
            "class_count_": class_weight,
        }
        attributes["class_log_prior_"] = class_log_prior(class_weight)
        attributes.update(alpha_=spec.alpha, n_estimators_=spec.n_estimators)
        attributes["calibration_scale_"] = 1.0
        if calibration_losses is not None and self.calibration == "cv":
            losses = np.asarray(calibration_losses, dtype=np.float64)
            attributes["calibration_cv_losses_"] = losses
            attributes["calibration_scale_"] = best_scale(losses, CALIBRATION_SCALES)
        labels = feature_names(schema.feature_names, len(schema.n_categories))
        fitted = ensemble_attributes(list(ensembles), len(schema.classes))
        attributes.update(with_edge_names(fitted, labels), model_=None)
        clear_fitted_state(self)
        self._set_fitted(attributes)
        return self

    def _tasks(self, n_classes: int) -> list[tuple[int, int]]:
        """The binary problems: (positive, negative) class indices, -1 for the rest."""
        if n_classes > 2 and self.multiclass == "pairwise":
            warn_many_pairs(n_classes, type(self).__name__)
        return binary_tasks(n_classes, self.multiclass)

    def _fit_model(self, data: FitInput) -> FittedModel:
        rows = data.rows(type(self).__name__)
        self._tasks(data.n_classes)  # the many-pairs warning
        spec = self._boosting(int(self.n_estimators_), data.alpha, data.epsilon)
        return get_learner("boosting").fit(rows, spec.learner_spec())

    def _set_ensembles(self, ensembles: list[BoostedEnsemble]) -> None:
        """The fitted attributes of the boosted binary problems."""
        attributes = ensemble_attributes(ensembles, len(self.classes_))
        self._set_fitted(with_edge_names(attributes, feature_names_of(self)))

    # --------------------------------------------------------------- prediction
    def _staged_scores(self, X: Any):
        codes = self._encode(X)
        n_classes = len(self.classes_)
        longest = max(1, max(len(e.rounds) for e in self.ensembles_))  # no round: F = 0
        totals = [np.full(len(codes), e.init_score) for e in self.ensembles_]
        for t in range(longest):
            for k, ensemble in enumerate(self.ensembles_):
                if t < len(ensemble.rounds):
                    r = ensemble.rounds[t]
                    totals[k] = totals[k] + r.alpha * r.weak(codes, self.algorithm)
            if n_classes == 2:
                yield totals[0]
                continue
            scores = np.zeros((len(codes), n_classes))
            for ensemble, total in zip(self.ensembles_, totals, strict=True):
                if ensemble.negative < 0:
                    scores[:, ensemble.positive] = total
                else:
                    scores[:, ensemble.positive] += total
                    scores[:, ensemble.negative] -= total
            yield scores

    def staged_decision_function(self, X: Any):
        """The ensemble's decision function after each round t = 1, 2, ...

        Parameters
        ----------
        {X_predict}

        Yields
        ------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
            :meth:`decision_function` of the first t rounds.

        Examples
        --------
        >>> from sklearn.datasets import load_breast_cancer
        >>> from discotree import BoostedGraphicalModelClassifier
        >>> X, y = load_breast_cancer(return_X_y=True)
        >>> clf = BoostedGraphicalModelClassifier(n_estimators=3, alpha=1.0).fit(X, y)
        >>> [scores[:2].round(2) for scores in clf.staged_decision_function(X)]
        [array([-3.68, -4.32]), array([-4.63, -2.98]), array([-7.24, -4.59])]
        """
        check_is_fitted(self)
        yield from self._staged_scores(X)

    def staged_predict(self, X: Any):
        """Predictions after each round t = 1, 2, ... (the boosting curve).

        Parameters
        ----------
        {X_predict}

        Yields
        ------
        ndarray of shape (n_samples,)
            :meth:`predict` of the first t rounds.

        Examples
        --------
        >>> from sklearn.datasets import load_breast_cancer
        >>> from discotree import BoostedGraphicalModelClassifier
        >>> X, y = load_breast_cancer(return_X_y=True)
        >>> clf = BoostedGraphicalModelClassifier(n_estimators=3, alpha=1.0).fit(X, y)
        >>> [round(float((labels == y).mean()), 3) for labels in clf.staged_predict(X)]
        [0.97, 0.998, 1.0]
        """
        check_is_fitted(self)
        for scores in self._staged_scores(X):
            yield self._labels(scores)

    def _labels(self, scores: NDArray[np.float64]) -> NDArray[Any]:
        if scores.ndim == 1:  # ties (|F| at rounding level) go to classes_[0], as argmax
            return self.classes_[(sign_with_ties(scores) > 0).astype(np.intp)]
        return self.classes_[argmax_with_ties(scores)]

    def _class_scores(self, X: Any) -> tuple[NDArray[np.float64], str]:
        """The ensemble ``F(x) = sum_t alpha_t h_t(x)`` (eq. 26), margins: two classes
        ``[-F, F]`` (the decision function is ``F``, positive favours ``classes_[1]``,
        and the probability of ``classes_[1]`` is ``1 / (1 + exp(-2 s F))``, the
        Real-AdaBoost estimate of the posterior (Friedman et al., 2000), ``s`` the
        ``calibration_scale_``); more classes, the pairwise sums of eq. 32 or the
        one-vs-rest scores (their softmax times ``s``)."""
        *_, last = self._staged_scores(X)
        if last.ndim == 1:
            return np.column_stack([-last, last]), "margin"
        return last, "margin"


def __getattr__(name: str) -> Any:
    """The classes of this module by the names pickles of earlier versions hold."""
    return legacy_attribute(__name__, name)
