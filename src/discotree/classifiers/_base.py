"""Shared machinery of the discrete generative forest classifiers."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils import Bunch

from ..config import check_memory
from ..docstrings import fill_doc
from ..engine_registry import engine_function
from ..fitting import FitContractMixin, available_if_explained
from ..importance import SummedOutImportanceMixin
from ..kernels.counts import class_totals, features_with_missing, pairwise_counts_bytes
from ..learners.fit_input import FitInput, cross_validate_alpha
from ..learners.options import Constraint, LearnerOptions, SmoothingOptions
from ..learners.parameter_rules import Rule, first_reason
from ..learners.registry import Counts, FittedModel, Learner, LearnerSpec, get_learner
from ..migrations import upgrade
from ..models.bayes_net import BayesNetModel
from ..models.discrete_forest import DiscreteForestModel
from ..models.gaussian_forest import GaussianForestModel
from ..numerics import class_log_prior
from ..scaling_tags import ScalingTags
from ..stats.alpha_selection import ALPHA_GRID, CALIBRATION_SCALES, ESS_GRID, best_scale
from ..stats.dirichlet import PRIORS, check_smoothing
from ..stats.gaussian import GaussianStatistics
from ..stats.pair_statistics import PairStatistics, class_univariate_counts
from ..transformers.discretizer import Discretizer
from ..transformers.encoder import NumericEncoder, TableEncoder, check_cardinality
from ..uncertainty import posterior_uncertainty
from ..validation import (
    check_is_fitted,
    check_sample_weight,
    check_table,
    check_targets,
    integer_seed,
    is_count,
    training_rows,
    validate_data,
)
from ._prediction import ScoredPredictionMixin
from .file_checks import EstimatorFileChecks
from .parameter_checks import check_parameter_table, check_rules

#: What ``_fit_model`` learns (boosting keeps its ensembles instead: None).
ForestModel = DiscreteForestModel | GaussianForestModel | BayesNetModel | None

logger = logging.getLogger(__name__)


class CalibrationStateMixin:
    """Estimators with a calibration scale of their scores: pickles saved before their
    ``calibration`` parameter existed load as they were fitted then (uncalibrated
    scores; :mod:`discotree.migrations`)."""

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(upgrade(type(self), dict(state)))  # type: ignore[misc]

    def _score_scale(self) -> float:
        """The calibration scale of the scores in the probabilities."""
        return float(self.calibration_scale_)  # type: ignore[attr-defined]


def check_encoding(owner: str, max_categories: Any, discretizer: Any) -> None:
    """Refuse an encoding's bad ``max_categories`` (an integer >= 1) or ``discretizer``
    (a transformer, or None); the message names ``owner`` and the parameter.

    Examples
    --------
    >>> check_encoding("KDBClassifier", 0, None)
    Traceback (most recent call last):
    ...
    ValueError: KDBClassifier: max_categories must be an integer >= 1, got 0.
    """
    if not is_count(max_categories, 1):
        raise ValueError(
            f"{owner}: max_categories must be an integer >= 1, got {max_categories!r}."
        )
    if discretizer is not None and not hasattr(discretizer, "fit_transform"):
        raise ValueError(f"{owner}: discretizer must be a transformer, got {discretizer!r}.")


@fill_doc
class DiscreteForestClassifierBase(
    EstimatorFileChecks,
    ScoredPredictionMixin,
    SummedOutImportanceMixin,
    FitContractMixin,
    ClassifierMixin,
    BaseEstimator,
):
    """Base of classifiers that score ``log P(x, c) = log P(c) + log P(x | c)`` with
    one discrete forest per class (naive Bayes, Chow-Liu, TAN).

    This class owns input validation, encoding, class priors and every ``predict*``
    method, and the one fit pipeline: ``fit``, ``partial_fit`` (its lazy finish) and
    ``fit_from_statistics`` each build one immutable
    :class:`~discotree.learners.fit_input.FitInput`; :meth:`_fitted_attributes`
    computes every fitted attribute from it into locals (priors, memory estimate,
    alpha and calibration, then :meth:`_fit_model`), and ``_set_fitted`` assigns them
    at one point, so a failed fit changes nothing. By default :meth:`_fit_model` fits
    the count learner of :meth:`_count_learner` from what its ``reads`` declares.

    Hooks (the methods a subclass may override; ``tests/test_fit_pipeline.py``
    compares this list with the overrides, at most 5 per estimator):

    - ``_check_common_params``: the encoding's parameters and the pseudo-count and
      floor (the kDB ensemble's are its members' template's).
    - ``_count_learner``, ``_derived_options``, ``_rows_needed``: the registered
      learner that fits from counts where the parameters choose it (else the class
      data :attr:`_learner`), the options computed from the parameters (the fields of
      :attr:`_options_class` are filled from the parameters of the same name), and
      why there is none.
    - ``_fit_model``: the model and attributes from the fit input (default: the count
      learner).
    - ``_alpha_model_for``, ``_search_once``: the fold models of ``alpha="auto"``'s
      cross-validation, and a structure found once before it.
    - ``_calibration_scales``: the temperatures that cross-validation also scores.
    - ``_fit_memory_bytes``, ``_model_memory_bytes``: the memory estimate (by default
      the model's share is the options'
      :meth:`~discotree.learners.options.LearnerOptions.model_bytes`); the encoding's
      default bins are the class data :attr:`_default_bins`.
    - ``_class_scores``: the scores every ``predict*`` method reads
      (:mod:`discotree.models.protocol`).
    - ``_uncertainty_model``: what ``predict_uncertainty`` draws from.

    The declarative facts are class data, not hooks: the checks of the parameters
    (:attr:`_checks`: functions of the estimator, in order, such as
    :func:`check_parameter_table` and :func:`check_rules` of :attr:`_rules`), and the
    rules (:class:`~discotree.learners.parameter_rules.Rule`) that say why there is
    no Dirichlet posterior (:attr:`_uncertainty_rules`), no joint distribution
    (:attr:`_joint_rules`) or no ``partial_fit``
    (:attr:`~discotree.classifiers._incremental.IncrementalFitMixin._streaming_rules`);
    TAN's live in :mod:`discotree.learners.parameter_rules`.
    """

    #: Whether ``alpha="auto"`` is available (None: where a count learner fits the
    #: parameters, :meth:`_count_learner`).
    _auto_alpha: bool | None = None

    #: The kind of the fitted model's scores (:mod:`discotree.models.protocol`), for
    #: what exists before a fit (``predict_joint_log_proba`` for joints only).
    _SCORE_KIND: ClassVar[str] = "joint"

    def __init__(
        self,
        *,
        alpha: float | str = 1.0,
        epsilon: float = 1e-5,
        max_categories: int = 10,
        discretizer: Discretizer | None = None,
    ) -> None:
        self.alpha = alpha
        self.epsilon = epsilon
        self.max_categories = max_categories
        self.discretizer = discretizer

    # ------------------------------------------------------------------ fitting
    def _check_common_params(self) -> tuple[Any, float]:
        name = type(self).__name__
        check_encoding(name, self.max_categories, self.discretizer)
        alpha, epsilon = check_smoothing(self.alpha, self.epsilon, name)
        prior = getattr(self, "prior", "dirichlet")
        if prior not in PRIORS:
            raise ValueError(f"{name}: prior must be one of {PRIORS}, got {prior!r}.")
        gaussian = getattr(self, "distribution", "discrete") == "gaussian"
        auto_alpha = (
            self._count_learner() is not None if self._auto_alpha is None else self._auto_alpha
        )
        if alpha == "auto" and not gaussian and not auto_alpha:
            raise ValueError(f"{name}: alpha='auto' is not available here; give a number.")
        return alpha, epsilon

    # ---------------------------------------------------------------- learners
    #: The registry name of the learner that fits from counts, where the parameters
    #: do not choose it (:meth:`_count_learner`).
    _learner: ClassVar[str | None] = None

    def _count_learner(self) -> str | None:
        """The registry name of the learner that fits these parameters from counts
        (:mod:`discotree.learners.registry`), or None when they need the rows
        (default: :attr:`_learner`)."""
        return self._learner

    #: The options class of the estimator's learners (:mod:`discotree.learners.options`):
    #: its fields are parameters of the estimator of the same name.
    _options_class: type[LearnerOptions] = SmoothingOptions

    def _learner_options(self, **inputs: Any) -> LearnerOptions:
        """The learner's options: every field that is a parameter of the estimator, by
        name, then those derived from the parameters (:meth:`_derived_options`) and the
        fit's ``inputs`` (pair tables counted already, a structure searched before)."""
        return self._options_class(**{**self._given_options(), **self._derived_options(), **inputs})

    def _given_options(self) -> dict[str, Any]:
        """The fields of :attr:`_options_class` that are parameters, by name."""
        params = self.get_params(deep=False)
        return {n: params[n] for n in self._options_class.estimator_fields() if n in params}

    #: The constraints of the parameters that are no options of the learner, by name.
    _parameter_checks: tuple[tuple[str, Constraint], ...] = ()

    def _check_table(self) -> None:
        """Check every parameter against its constraint in the table: the fields of
        :attr:`_options_class` (:meth:`LearnerOptions.check_parameters`), then
        :attr:`_parameter_checks`; the message names the parameter, the allowed values
        and the value given."""
        name, params = type(self).__name__, self.get_params(deep=False)
        self._options_class.check_parameters(name, params)
        for param, constraint in self._parameter_checks:
            constraint(name, param, params[param])

    def _derived_options(self) -> dict[str, Any]:
        """The options computed from the parameters: the HDP sampler's seed from
        ``random_state`` with ``smoothing="hdp"`` (drawn only then, so the other
        smoothings consume nothing of a ``RandomState``)."""
        if self.get_params(deep=False).get("smoothing") == "hdp":
            return {"hdp_seed": integer_seed(self.random_state)}
        return {}

    def _rows_needed(self) -> str:
        """Which parameters need the rows, when :meth:`_count_learner` is None."""
        return "these parameters have no learner from counts (they need the rows)"

    def _spec(self, alpha: Any = None) -> LearnerSpec:
        """The learner specification of the validated parameters (``alpha``: the
        pseudo-count in use, default the validated parameter)."""
        name = self._count_learner()
        if name is None:
            raise ValueError(
                f"{type(self).__name__}: {self._rows_needed()}; a fit from counts alone "
                "(a Dask fit, or one in passes over a file, which never holds the rows) "
                "cannot learn them: fit on a sample in memory."
            )
        validated, epsilon = self._check_common_params()
        return LearnerSpec(
            name,
            validated if alpha is None else alpha,
            epsilon,
            getattr(self, "prior", "dirichlet"),
            self._learner_options(),
            self._calibration_scales(),
        )

    def learner_spec(self) -> LearnerSpec:
        """The learner of :data:`discotree.learners.registry.LEARNERS` that fits this
        estimator from counts, with its settings (what an engine that counts elsewhere
        needs: see :meth:`fit_from_statistics`).

        Returns
        -------
        LearnerSpec
            ``alpha`` is ``"auto"`` when the estimator chooses it by cross-validation.

        Raises
        ------
        ValueError
            For bad hyper-parameters, or parameters that need the rows themselves.

        Examples
        --------
        >>> from discotree import TANClassifier
        >>> spec = TANClassifier(alpha=1.0).learner_spec()
        >>> spec.learner, spec.alpha
        ('tan-cmi', 1.0)
        """
        self._validated_smoothing()
        unsupported = getattr(self, "_partial_fit_unsupported", lambda: None)()
        if unsupported is not None:
            raise ValueError(f"{type(self).__name__}: {unsupported} Fit on a sample instead.")
        return self._spec()

    def _validated_smoothing(self) -> tuple[Any, float]:
        """Check every parameter; the validated ``(alpha, epsilon)``."""
        alpha, epsilon = self._check_common_params()
        self._check_params()
        return alpha, epsilon

    def _fitted_spec(self, data: FitInput) -> LearnerSpec:
        """:meth:`_spec` with the pseudo-count in use (``data.alpha``: the chosen one
        for ``alpha="auto"``, None for Gaussian models)."""
        return replace(self._spec(), alpha=data.alpha)

    def _alpha_model_for(self, data: FitInput, grid: tuple[float, ...]):
        """``model_for(stats, rows) -> fit(alpha) -> model`` for the alpha
        cross-validation: the learner's models for every alpha of ``grid`` from a
        fold's counts."""
        name = self._count_learner()
        if name is None:
            raise ValueError(f"{type(self).__name__}: alpha='auto' needs a count learner here")
        prior = getattr(self, "prior", "dirichlet")
        spec = LearnerSpec(name, "auto", data.epsilon, prior, self._learner_options())
        return get_learner(name).model_for(spec, grid)

    #: The rules across the parameters (:func:`check_rules`).
    _rules: tuple[Rule, ...] = ()

    #: The checks of the subclass's own parameters, in order, each
    #: ``check(estimator)``: by default the table, then the rules.
    _checks: tuple[Callable[[Any], None], ...] = (check_parameter_table, check_rules)

    def _check_params(self) -> None:
        """Validate the subclass's own parameters: every check of :attr:`_checks`."""
        for check in self._checks:
            check(self)

    def _statistics(self, data: FitInput) -> Any:
        """The pair tables of ``data``, or with ``distribution="gaussian"`` the Gaussian
        statistics of the (standardised) training values, ``var_smoothing`` added to
        every variance of every class (:meth:`GaussianStatistics.with_variance_added`)."""
        if getattr(self, "distribution", "discrete") != "gaussian":
            return data.pair_statistics()
        if data.codes is None or data.class_index is None:
            raise ValueError(f"{type(self).__name__}: Gaussian models need the rows.")
        stats = GaussianStatistics.from_data(
            data.codes, data.class_index, data.n_classes, data.weights
        )
        return stats.with_variance_added(float(getattr(self, "var_smoothing", 0.0)))

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> DiscreteForestClassifierBase:
        """Fit the class priors, the structure and the parameters.

        Parameters
        ----------
        {X_fit}
        {y_fit}
        {sample_weight_fit}

        Returns
        -------
        self : object
            The fitted estimator. A failed fit leaves the estimator as it was; a
            refit replaces every fitted attribute.

        Raises
        ------
        ValueError
            For bad input (one class, X and y of different lengths, no rows or
            columns, infinite values, negative or non-finite weights, ...) or bad
            hyper-parameters; the message names the column, row or argument.

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from discotree import NaiveBayesClassifier
        >>> X, y = load_iris(return_X_y=True)
        >>> clf = NaiveBayesClassifier(alpha=1.0).fit(X, y)
        >>> clf.classes_
        array([0, 1, 2])
        """
        name = type(self).__name__
        fit_elsewhere = engine_function(X, "fit") if hasattr(self, "fit_from_statistics") else None
        if fit_elsewhere is not None:  # Dask collections (the extra discotree[dask])
            return fit_elsewhere(self, X, y, sample_weight)
        alpha, epsilon = self._validated_smoothing()
        table, y, weights = training_rows(self, X, y, sample_weight)
        classes, y_index = np.unique(y, return_inverse=True)
        if len(classes) < 2:
            raise ValueError(
                f"{name}: y contains only 1 class ('{classes[0]}') among the samples "
                "with positive weight; at least two classes are needed."
            )
        encoder = self._make_encoder()
        codes = encoder.fit_transform(table, weights, y_index)
        class_weight = class_totals(y_index, weights, len(classes)).astype(np.float64)
        data = FitInput(
            classes,
            encoder,
            class_weight,
            alpha,
            epsilon,
            codes=codes,
            class_index=y_index.astype(np.intp),
            weights=weights,
            feature_names=getattr(self, "feature_names_in_", None),
        )
        attributes = self._fitted_attributes(data)
        self._set_fitted({**attributes, **self._importance_attributes(table, y, weights)})
        return self

    def _fitted_attributes(self, data: FitInput) -> dict[str, Any]:
        """Every fitted attribute learnt from ``data``: the priors, the memory
        estimate, alpha (chosen by cross-validation for ``alpha="auto"``), the
        structure and the parameters, computed into locals (the one fit function of
        every estimator of this base; :meth:`_set_fitted` assigns its result)."""
        class_weight = np.asarray(data.class_weight, dtype=np.float64)
        data = data.with_(class_weight=class_weight)
        attributes: dict[str, Any] = {
            "classes_": data.classes,
            "encoder_": data.encoder,
            "n_categories_": data.n_categories,
            "class_count_": class_weight,
        }
        attributes["class_log_prior_"] = class_log_prior(class_weight)  # -inf: given, never seen
        discrete = getattr(self, "distribution", "discrete") == "discrete"
        if data.codes is not None and discrete and getattr(self, "_streams_pairs", True):
            estimate = self._fit_memory_bytes(data)
            check_memory(estimate, self._memory_what, type(self).__name__)
            attributes["fit_memory_estimate_"] = estimate
        data, chosen = self._choose_alpha(data)
        attributes.update(chosen)
        attributes["alpha_"] = data.alpha
        fitted = self._fit_model(data)
        attributes.update(fitted.attributes)
        attributes["model_"] = fitted.model
        attributes = with_edge_names(attributes, feature_names(data.feature_names, data.n_features))
        attributes["_alpha"], attributes["_epsilon"] = data.alpha, data.epsilon
        logger.info(
            "%s fitted: %.6g weight, %d features, %d classes",
            type(self).__name__,
            class_weight.sum(),
            data.n_features,
            data.n_classes,
        )
        return attributes

    def _choose_alpha(self, data: FitInput) -> tuple[FitInput, dict[str, Any]]:
        """``data`` with the pseudo-count in use (``alpha="auto"``: chosen by
        cross-validation, or as an engine's search chose it), and the attributes of
        that choice and of the calibration."""
        if data.alpha == "auto" and getattr(self, "distribution", "discrete") == "gaussian":
            return data.with_(alpha=None), calibration_attributes(self, None)  # no pseudo-counts
        scales = self._calibration_scales()
        if data.alpha == "auto":
            grid = self._alpha_grid()
            if data.alpha_search is not None:  # an engine's distributed search
                alpha, losses = data.alpha_search
            else:
                data = self._search_once(data)
                alpha, losses, data = self._cross_validate(data, grid, scales)
            alpha, losses = float(alpha), np.asarray(losses, dtype=np.float64)
            scale_losses = losses[2:, list(grid).index(alpha)] if len(losses) > 2 else None
            attributes = {
                "alpha_cv_losses_": losses[:2],
                **calibration_attributes(self, scale_losses),
            }
            return data.with_(alpha=alpha), attributes
        if scales and data.codes is not None and data.alpha is not None:
            grid = (float(data.alpha),)  # a fixed alpha: a cross-validation for the scale
            _, losses, data = self._cross_validate(data, grid, scales)
            return data, calibration_attributes(self, losses[2:, 0])
        return data, calibration_attributes(self, None)

    def _cross_validate(self, data: FitInput, grid: tuple[float, ...], scales: tuple[float, ...]):
        """The learner-level cross-validation of the alphas of ``grid``
        (:func:`~discotree.learners.fit_input.cross_validate_alpha`) with this
        estimator's fold models."""
        pairs = getattr(self, "_streams_pairs", True)  # naive Bayes: univariate tables
        model_for = self._alpha_model_for(data, grid)
        return cross_validate_alpha(data, model_for, grid, pairs=pairs, scales=scales)

    def _search_once(self, data: FitInput) -> FitInput:
        """``data`` with a structure found once on all its rows before the alpha
        cross-validation, when the structure does not depend on alpha's choice (none
        by default)."""
        return data

    def _alpha_grid(self) -> tuple[float, ...]:
        return ESS_GRID if getattr(self, "prior", "dirichlet") == "bdeu" else ALPHA_GRID

    def _calibration_scales(self) -> tuple[float, ...]:
        """The temperatures the alpha cross-validation also scores (none by default:
        the models whose scores are posteriors need none)."""
        return ()

    #: What ``fit_memory_estimate_`` counts, as the memory guard's message names it.
    _memory_what = "this fit (the pairwise count tables and what is learnt from them)"

    def _fit_memory_bytes(self, data: FitInput) -> float:
        """Estimated peak memory of the fit, in bytes: the counting
        (:func:`~discotree.kernels.counts.pairwise_counts_bytes`), a fold's tables beside
        the totals for ``alpha="auto"``, and :meth:`_model_memory_bytes`
        (``benchmarks/bench_memory.py`` measures it)."""
        codes, class_index = data.codes, data.class_index
        assert codes is not None and class_index is not None
        n_classes = data.n_classes
        width = float(np.sum(data.n_categories))
        estimate = pairwise_counts_bytes(
            np.bincount(class_index, minlength=n_classes),  # rows per class (layout sizes)
            data.n_categories,
            features_with_missing(codes),
            data.weights is not None,
        )
        if data.alpha == "auto":
            estimate += 8.0 * n_classes * width * width
        held = codes.nbytes + 16.0 * len(codes)  # the encoded rows, classes and weights
        return estimate + held + self._model_memory_bytes(data.n_categories, n_classes)

    def _model_memory_bytes(self, n_categories: NDArray[np.intp], n_classes: int) -> float:
        """What the model learns from the count tables, in bytes, as the options estimate
        it (:meth:`~discotree.learners.options.LearnerOptions.model_bytes`, the options
        of the parameters alone: no seed drawn; 0: not modelled)."""
        kind = self._options_class
        if kind.model_bytes is LearnerOptions.model_bytes:
            return 0.0  # (options that model nothing are not built)
        return kind(**self._given_options()).model_bytes(n_categories, n_classes)

    def _validated_for_cv(self, X: Any, y: Any, sample_weight: Any):
        """Validate X, y and weights before an internal cross-validation, so that bad
        input fails exactly as it would without one; returns (X, y, weights,
        n_features) with X as one numeric matrix when possible."""
        name = type(self).__name__
        table = check_table(X, name)
        y = check_targets(y, table.n_samples, name)
        weights = check_sample_weight(sample_weight, table.n_samples, name)
        if getattr(self, "distribution", "discrete") == "discrete":
            for column, label in zip(table.columns, table.labels, strict=True):
                if column.dtype.kind == "O":  # the limit on the whole data, not a fold's
                    present = {v for v in column if v is not None}
                    check_cardinality(len(present), len(column), label, name)
        if table.matrix is not None and not hasattr(X, "iloc"):
            X = table.matrix
        return X, y, weights, len(table.columns)

    #: The equal-frequency bins of ``discretizer=None`` (None: :class:`Discretizer`'s
    #: default; the kDB ensemble's 30 fine bins).
    _default_bins: ClassVar[int | None] = None

    def _make_encoder(self):
        """The input encoder: category codes for discrete models, numbers as they are
        for ``distribution="gaussian"`` (estimators with that parameter)."""
        if getattr(self, "distribution", "discrete") == "gaussian":
            return NumericEncoder(type(self).__name__)
        discretizer = self.discretizer
        if discretizer is None:
            bins = self._default_bins
            discretizer = Discretizer() if bins is None else Discretizer(n_bins=bins)
        return TableEncoder(int(self.max_categories), discretizer, type(self).__name__)

    def _fit_model(self, data: FitInput) -> FittedModel:
        """The structure and parameters learnt from ``data`` (its ``alpha`` the one in
        use): the model and the fitted attributes besides the base's. By default the
        count learner of :meth:`_count_learner`, from what it reads
        (:meth:`_learner_input`)."""
        spec = self._fitted_spec(data)
        learner = get_learner(spec.learner)
        return learner.fit(self._learner_input(learner, data, spec), spec)

    def _learner_input(self, learner: Learner, data: FitInput, spec: LearnerSpec) -> Any:
        """What ``learner`` reads (:attr:`~discotree.learners.registry.Learner.reads`),
        from ``data``: the rows; or the univariate tables (estimators that count no
        more) or pair tables (Gaussian moments with ``distribution="gaussian"``),
        counted already or counted here, and for
        ``"pairs, then families"`` the family tables of the parents its ``structure``
        chooses from them (an engine's second pass, or counted from the rows here)."""
        owner = type(self).__name__
        if learner.reads == "rows":
            return data.rows(owner)
        if learner.reads == "univariate" and not getattr(self, "_streams_pairs", True):
            univariate = data.univariate  # streamed counts
            if univariate is None:
                rows = data.rows(owner)
                univariate = class_univariate_counts(
                    rows.codes, rows.class_index, rows.n_categories, rows.n_classes, data.weights
                )
            stats: Any = PairStatistics.univariate(
                np.concatenate(univariate, axis=1), data.n_categories
            )
        else:
            stats = self._statistics(data)
        families = data.families  # an engine's second pass
        if learner.reads == "pairs, then families" and families is None:
            assert learner.structure is not None  # (a Learner's invariant)
            rows = data.rows(owner)
            parents = learner.structure(stats, spec)
            families = learner.families(
                rows.codes, rows.class_index, rows.weights, rows.n_classes, rows.n_categories,
                parents,
            )  # fmt: skip
        return Counts(data.n_categories, data.class_weight, stats, families, data.scores)

    # --------------------------------------------------------------- prediction
    def _encode(self, X: Any) -> NDArray[Any]:
        table = check_table(X, type(self).__name__)
        validate_data(self, X, skip_check_array=True, reset=False)
        return self.encoder_.transform(table)

    def _class_scores(self, X: Any) -> tuple[NDArray[np.float64], str]:
        """The fitted model's ``class_scores`` under ``class_log_prior_`` and their kind
        (:mod:`discotree.models.protocol`), missing features summed out; Gaussian
        models' joints in the units of the features (not the standardised ones)."""
        codes = self._encode(X)
        model = self.model_
        if model is None:
            raise AttributeError(f"{type(self).__name__} has no joint distribution.")
        scores = model.class_scores(codes, self.class_log_prior_)
        correction = getattr(self.encoder_, "log_density_correction", None)
        if correction is not None and model.score_kind == "joint":
            scores = scores + correction(codes)[:, None]  # standardised features
        return scores, model.score_kind

    #: Why the fitted model has no joint distribution (``predict_joint_log_proba``), as
    #: rules on the estimator; after them, the kind of its scores decides.
    _joint_rules: tuple[Rule, ...] = ()

    def _joint_unavailable(self) -> str | None:
        reason = first_reason(self._joint_rules, self)
        if reason is not None:
            return reason
        if self._SCORE_KIND != "joint":
            return (
                f"predict_joint_log_proba is not defined for {type(self).__name__}: its "
                f"model's scores are of the kind {self._SCORE_KIND!r}, not a joint "
                "distribution; use predict_log_proba"
            )
        return None

    #: Why the parameters give no Dirichlet posterior to draw from: the first broken
    #: rule's message (:meth:`_uncertainty_unavailable`); subclasses whose tables are
    #: counted say when. The rules read the parameters only (and, where a subclass
    #: needs it, the fitted classes), never raise.
    _uncertainty_rules: tuple[Rule, ...] = (
        Rule(lambda e: True, "its tables are not counted Dirichlet posteriors"),
    )

    def _uncertainty_unavailable(self) -> str | None:
        """Why these parameters give no Dirichlet posterior to draw from (None when
        they do): the first broken rule of :attr:`_uncertainty_rules`."""
        return first_reason(self._uncertainty_rules, self)

    def _has_uncertainty(self) -> bool:
        """``predict_uncertainty`` exists (``hasattr`` is True) only where it works."""
        reason = self._uncertainty_unavailable()
        if reason is not None:
            raise AttributeError(
                f"This {type(self).__name__!r} has no attribute 'predict_uncertainty': no "
                f"Dirichlet posterior to draw from ({reason}). Uncertainty is available for "
                "naive Bayes, Chow-Liu, TAN (k <= 1, parameters='ml'; searched structures "
                "with hierarchical or HDP smoothing), the discriminative tree (two classes, "
                "parameters='projection') and the EAR tree, on discrete features; kDB, "
                "A1DE and kDB ensembles with Dirichlet or hierarchical smoothing."
            )
        return True

    def _uncertainty_model(self) -> Any:
        """What ``predict_uncertainty`` draws from (its ``posterior_draw``): the fitted
        model itself, or a posterior of :mod:`discotree.models.posterior_draws` where a
        subclass builds one."""
        return self.model_

    @available_if_explained(_has_uncertainty)
    def predict_uncertainty(
        self, X: Any, n_draws: int = 100, interval: float = 0.9, random_state: Any = 0
    ) -> Bunch:
        """Total, data and knowledge uncertainty of each prediction, and credible
        intervals of the class probabilities, from the tables' Dirichlet posteriors
        (:mod:`discotree.uncertainty`).

        Available (``hasattr`` is True) only for the models whose tables are counted
        Dirichlet posteriors: naive Bayes, Chow-Liu, TAN with k <= 1 and
        ``parameters="ml"`` (a searched structure with ``smoothing="hierarchical"`` or
        ``"hdp"``), the discriminative tree with ``parameters="projection"`` and two
        classes, and the EAR tree, all with ``distribution="discrete"``; kDB, A1DE
        (``n_super_parents=1``) and the kDB ensemble whose members have
        ``smoothing="dirichlet"`` or ``"hierarchical"`` (their draws:
        :mod:`discotree.models.posterior_draws`; the ensemble's logistic members stay at
        their fitted parameters). Elsewhere the
        attribute does not exist, and accessing it raises ``AttributeError`` with the
        reason.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Columns as at fit time; missing values are summed out in every draw.
        n_draws : int, default=100
            Posterior draws of every table (a Monte Carlo estimate).
        interval : float, default=0.9
            Mass of the central credible intervals ``lower`` and ``upper``.
        random_state : int, RandomState instance or None, default=0
            Seed of the draws.

        Returns
        -------
        Bunch
            ``total``, ``data``, ``knowledge`` (n_samples,) in nats; ``mean``,
            ``lower``, ``upper`` (n_samples, n_classes), columns in the order of
            ``classes_``.

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from discotree import NaiveBayesClassifier
        >>> X, y = load_iris(return_X_y=True)
        >>> clf = NaiveBayesClassifier().fit(X, y)
        >>> u = clf.predict_uncertainty(X[:3], n_draws=50)
        >>> bool((u.knowledge <= u.total).all() and (u.lower <= u.upper).all())
        True
        """
        check_is_fitted(self)
        codes = self._encode(X)
        return posterior_uncertainty(
            self._uncertainty_model(),
            codes,
            self.class_count_,
            self._epsilon if hasattr(self, "_epsilon") else float(self.epsilon),
            n_draws=n_draws,
            interval=interval,
            random_state=random_state,
            name=type(self).__name__,
        )

    def to_networkx(self):
        """The learned structure as a directed graph.

        Returns
        -------
        networkx.DiGraph
            Nodes: the features (by name), and the class node of class-rooted models
            (naive Bayes, TAN, k-trees); each edge with the classes whose model has it
            and its weight in each (see :func:`discotree.io.to_networkx`).

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from discotree import TANClassifier
        >>> graph = TANClassifier(alpha=1.0).fit(*load_iris(return_X_y=True)).to_networkx()
        >>> graph.number_of_nodes(), graph.number_of_edges()  # 4 features + class
        (5, 7)
        """
        from ..models.networks import to_networkx

        check_is_fitted(self)
        return to_networkx(self)

    def _html_repr(self) -> str:
        """The notebook view: scikit-learn's parameter box and, once fitted, the
        learned network and its main facts (:mod:`discotree.classifiers.html_view`)."""
        from sklearn.utils import estimator_html_repr

        from .html_view import fitted_view

        box = estimator_html_repr(self)
        if not hasattr(self, "classes_") or not hasattr(self, "n_features_in_"):
            return box
        return box + fitted_view(self)

    def __discotree_tags__(self) -> ScalingTags:
        """What this estimator supports with its parameters
        (:mod:`discotree.scaling_tags`): ``partial_fit`` when it is available; Dask
        and a file in passes or batches when a learner fits it from counts (Dask: with
        a numeric ``alpha`` or one the counts choose; passes: the learners that read
        ``"pairs, then families"``, with a numeric ``alpha``)."""
        partial = hasattr(self, "partial_fit")
        spec = None
        if hasattr(self, "fit_from_statistics"):
            try:
                spec = clone(self).learner_spec()
            except (ValueError, TypeError):  # parameters that need the rows
                spec = None
        learner = None if spec is None else get_learner(spec.learner)
        auto = spec is not None and spec.alpha == "auto"
        dask = learner is not None and not (auto and learner.models_by_alpha is None)
        passes = learner is not None and learner.reads == "pairs, then families" and not auto
        return ScalingTags(
            partial, "passes" if passes else "batches" if partial else "memory", dask
        )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        discrete = getattr(self, "distribution", "discrete") != "gaussian"
        tags.input_tags.categorical = discrete  # Gaussian models take numbers only
        tags.input_tags.string = discrete
        return tags


def feature_names(names: Any, n_features: int) -> list[str]:
    """The features' ``names`` as strings, ``x0``, ``x1``, ... for unnamed columns."""
    if names is not None:
        return [str(n) for n in names]
    return [f"x{j}" for j in range(n_features)]


def with_edge_names(attributes: dict[str, Any], names: list[str]) -> dict[str, Any]:
    """``attributes`` with ``edge_names_`` (``edges_`` by the features' ``names``) when
    they hold ``edges_``."""
    if "edges_" not in attributes:
        return attributes
    edge_names = [[(names[i], names[j]) for i, j in edges] for edges in attributes["edges_"]]
    return {**attributes, "edge_names_": edge_names}


def calibration_attributes(estimator: Any, scale_losses: Any) -> dict[str, Any]:
    """The calibration attributes of an estimator with a ``calibration`` parameter
    (none otherwise), from the held-out losses of its calibration scales (None: no
    cross-validation scored them, the scale stays 1): the scale of least held-out
    log-loss."""
    if not hasattr(estimator, "calibration"):
        return {}
    if scale_losses is None or not len(scale_losses) or not np.any(scale_losses):
        return {"calibration_scale_": 1.0}
    losses = np.asarray(scale_losses, dtype=np.float64)
    return {
        "calibration_cv_losses_": losses,
        "calibration_scale_": best_scale(losses, CALIBRATION_SCALES),
    }
