"""Shared machinery of the discrete generative forest classifiers."""

from __future__ import annotations

import logging
from abc import abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils import Bunch

from ..config import check_memory
from ..engine_registry import engine_function
from ..fitting import FitContractMixin, available_if_explained
from ..importance import SummedOutImportanceMixin
from ..kernels.counts import class_totals, features_with_missing, pairwise_counts_bytes
from ..learners.options import Constraint, LearnerOptions, SmoothingOptions
from ..learners.registry import Counts, FittedModel, LearnerSpec, get_learner
from ..migrations import upgrade
from ..models.bayes_net import BayesNetModel
from ..models.discrete_forest import DiscreteForestModel
from ..models.gaussian_forest import GaussianForestModel
from ..numerics import class_log_prior
from ..scaling_tags import ScalingTags
from ..stats.alpha_selection import ALPHA_GRID, ESS_GRID, select_alpha
from ..stats.dirichlet import PRIORS, check_smoothing
from ..stats.gaussian import GaussianStatistics
from ..stats.pair_statistics import PairStatistics
from ..transformers.discretizer import Discretizer
from ..transformers.encoder import NumericEncoder, TableEncoder, check_cardinality
from ..uncertainty import posterior_uncertainty
from ..validation import (
    check_is_fitted,
    check_sample_weight,
    check_table,
    check_targets,
    feature_names_of,
    integer_seed,
    is_count,
    training_rows,
    validate_data,
)
from ._prediction import ScoredPredictionMixin

#: What ``_fit_model`` learns (boosting keeps its ensembles instead: None).
ForestModel = DiscreteForestModel | GaussianForestModel | BayesNetModel | None

logger = logging.getLogger(__name__)

#: Values of the ``distribution`` parameter of the estimators that have one.
DISTRIBUTIONS = ("discrete", "gaussian")


class CalibrationStateMixin:
    """Estimators with a calibration scale of their scores: pickles saved before their
    ``calibration`` parameter existed load as they were fitted then (uncalibrated
    scores; :mod:`discotree.migrations`)."""

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(upgrade(type(self), dict(state)))  # type: ignore[misc]

    def _score_scale(self) -> float:
        """The calibration scale of the scores in the probabilities."""
        return float(self.calibration_scale_)  # type: ignore[attr-defined]


class DiscreteForestClassifierBase(
    ScoredPredictionMixin,
    SummedOutImportanceMixin,
    FitContractMixin,
    ClassifierMixin,
    BaseEstimator,
):
    """Base of classifiers that score ``log P(x, c) = log P(c) + log P(x | c)`` with
    one discrete forest per class (naive Bayes, Chow-Liu, TAN).

    Subclasses implement :meth:`_fit_model` only. This class owns input validation,
    encoding, class priors and every ``predict*`` method.
    """

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
        mc = self.max_categories
        if not is_count(mc, 1):
            raise ValueError(f"{name}: max_categories must be an integer >= 1, got {mc!r}.")
        if self.discretizer is not None and not hasattr(self.discretizer, "fit_transform"):
            raise ValueError(
                f"{name}: discretizer must be a transformer, got {self.discretizer!r}."
            )
        alpha, epsilon = check_smoothing(self.alpha, self.epsilon, name)
        prior = getattr(self, "prior", "dirichlet")
        if prior not in PRIORS:
            raise ValueError(f"{name}: prior must be one of {PRIORS}, got {prior!r}.")
        gaussian = getattr(self, "distribution", "discrete") == "gaussian"
        if alpha == "auto" and not gaussian and not self._supports_auto_alpha():
            raise ValueError(f"{name}: alpha='auto' is not available here; give a number.")
        return alpha, epsilon

    def _supports_auto_alpha(self) -> bool:
        return self._count_learner() is not None

    # ---------------------------------------------------------------- learners
    def _count_learner(self) -> str | None:
        """The registry name of the learner that fits these parameters from counts
        (:mod:`discotree.learners.registry`), or None when they need the rows."""
        return None

    #: The options class of the estimator's learners (:mod:`discotree.learners.options`):
    #: its fields are parameters of the estimator of the same name.
    _options_class: type[LearnerOptions] = SmoothingOptions

    def _learner_options(self, **inputs: Any) -> LearnerOptions:
        """The learner's options: every field that is a parameter of the estimator, by
        name, then those derived from the parameters (:meth:`_derived_options`) and the
        fit's ``inputs`` (pair tables counted already, a structure searched before)."""
        params = self.get_params(deep=False)
        kind = self._options_class
        given = {name: params[name] for name in kind.estimator_fields() if name in params}
        return kind(**{**given, **self._derived_options(), **inputs})

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
        pseudo-count in use, default the validated one)."""
        name = self._count_learner()
        if name is None:
            raise ValueError(
                f"{type(self).__name__}: {self._rows_needed()}; a fit from counts alone "
                "(a Dask fit, or one in passes over a file, which never holds the rows) "
                "cannot learn them: fit on a sample in memory."
            )
        return LearnerSpec(
            name,
            self._alpha if alpha is None else alpha,
            self._epsilon,
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
        self._alpha, self._epsilon = self._check_common_params()
        self._check_params()
        unsupported = getattr(self, "_partial_fit_unsupported", lambda: None)()
        if unsupported is not None:
            raise ValueError(f"{type(self).__name__}: {unsupported} Fit on a sample instead.")
        getattr(self, "_stream_prepare", lambda: None)()
        return self._spec()

    def _learn(self, counts: Counts, spec: LearnerSpec | None = None) -> ForestModel:
        """Fit the registered learner from ``counts`` and set its attributes: the one
        place a learner's result becomes the estimator's fitted attributes."""
        spec = self._spec() if spec is None else spec
        return self._assign(get_learner(spec.learner).fit(counts, spec))

    def _assign(self, result: FittedModel) -> ForestModel:
        for name, value in result.attributes.items():
            setattr(self, name, value)
        if "edges_" in result.attributes:
            names = feature_names_of(self)  # the edges by name
            self.edge_names_ = [[(names[i], names[j]) for i, j in edges] for edges in self.edges_]
        return result.model

    def _alpha_model_for(self, epsilon: float, prior: str, grid: tuple[float, ...]):
        """``model_for(stats, rows) -> fit(alpha) -> model`` for ``select_alpha``: the
        learner's models for every alpha of ``grid`` from a fold's counts."""
        name = self._count_learner()
        if name is None:
            raise ValueError(f"{type(self).__name__}: alpha='auto' needs a count learner here")
        spec = LearnerSpec(name, "auto", epsilon, prior, self._learner_options())
        return get_learner(name).model_for(spec, grid)

    #: The rules across the parameters, checked after the table (:meth:`_check_rules`).
    _rules: tuple[Rule, ...] = ()

    def _check_params(self) -> None:
        """Validate the subclass's own parameters: the table, then the rules."""
        self._check_table()
        self._check_rules()

    def _check_rules(self) -> None:
        """Raise the message of the first broken rule of :attr:`_rules`."""
        for rule in self._rules:
            rule.check(self)

    def _check_distribution(self) -> None:
        """For estimators with a ``distribution`` parameter (and ``var_smoothing``)."""
        if self.distribution not in DISTRIBUTIONS:
            raise ValueError(
                f"{type(self).__name__}: distribution must be one of {DISTRIBUTIONS}, "
                f"got {self.distribution!r}."
            )
        smoothing = getattr(self, "var_smoothing", 0.0)
        if (
            isinstance(smoothing, bool)
            or not isinstance(smoothing, int | float | np.number)
            or not (np.isfinite(smoothing) and smoothing >= 0)
        ):
            raise ValueError(
                f"{type(self).__name__}: var_smoothing must be a finite number >= 0, got "
                f"{smoothing!r}."
            )

    def _gaussian_statistics(self, values, class_index, sample_weight) -> GaussianStatistics:
        """The Gaussian statistics of the (standardised) training values, with
        ``var_smoothing`` added to every variance of every class
        (:meth:`GaussianStatistics.with_variance_added`)."""
        stats = GaussianStatistics.from_data(values, class_index, len(self.classes_), sample_weight)
        return stats.with_variance_added(float(getattr(self, "var_smoothing", 0.0)))

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> DiscreteForestClassifierBase:
        """Fit the class priors, the structure and the parameters.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Numeric, categorical, string or boolean columns; NaN/None is missing.
        y : array-like of shape (n_samples,)
            Class labels (at least two distinct classes with positive weight).
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights; a weight of k counts a sample k times.

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
        self._alpha, self._epsilon = self._check_common_params()
        self._check_params()
        table, y, weights = training_rows(self, X, y, sample_weight)
        self.classes_, y_index = np.unique(y, return_inverse=True)
        if len(self.classes_) < 2:
            raise ValueError(
                f"{name}: y contains only 1 class ('{self.classes_[0]}') among the samples "
                "with positive weight; at least two classes are needed."
            )
        self.encoder_ = self._make_encoder()
        codes = self.encoder_.fit_transform(table, weights, y_index)
        class_weight = class_totals(y_index, weights, len(self.classes_))
        self._fit_encoded(codes, y_index.astype(np.intp), weights, class_weight.astype(np.float64))
        self._keep_importance_sample(table, y, weights)
        return self

    def _fit_encoded(
        self,
        codes: NDArray[np.integer] | None,
        class_index: NDArray[np.intp] | None,
        weights: NDArray[np.float64] | None,
        class_weight: NDArray[np.float64],
    ) -> None:
        """Everything ``fit`` learns after the encoding: priors, alpha, structure and
        parameters. ``codes`` is None when a streaming fit kept only the counts (set
        in ``_counted``, or ``_counted_univariate`` for naive Bayes)."""
        self.n_categories_ = self.encoder_.n_categories_
        class_weight = np.asarray(class_weight, dtype=np.float64)
        self.class_count_ = class_weight
        self.class_log_prior_ = class_log_prior(class_weight)  # -inf: given, never seen
        discrete = getattr(self, "distribution", "discrete") == "discrete"
        if codes is not None and discrete and getattr(self, "_streams_pairs", True):
            self.fit_memory_estimate_ = self._fit_memory_bytes(codes, class_index, weights)
            check_memory(self.fit_memory_estimate_, self._memory_what, type(self).__name__)
        if self._alpha == "auto" and getattr(self, "distribution", "discrete") == "gaussian":
            self._alpha = None  # Gaussian models have no pseudo-counts
        elif self._alpha == "auto":  # (an engine's distributed search, if it ran one)
            search = self.__dict__.pop("_alpha_search", None)
            if search is None:
                search = self._alpha_by_cv(codes, class_index, weights)
            self._alpha, losses = float(search[0]), np.asarray(search[1], dtype=np.float64)
            self.alpha_cv_losses_ = losses[:2]
            self._calibrate(losses[2:, list(self._alpha_grid()).index(self._alpha)]
                            if len(losses) > 2 else None)  # fmt: skip
        elif self._calibration_scales() and codes is not None and self._alpha is not None:
            grid = (float(self._alpha),)  # a fixed alpha: a cross-validation for the scale
            self._calibrate(self._alpha_by_cv(codes, class_index, weights, grid)[1][2:, 0])
        self.alpha_ = self._alpha
        self.model_ = self._fit_model(codes, class_index, weights)
        self.__dict__.pop("_counted", None)  # counts kept for alpha="auto", if unused
        self.__dict__.pop("_counted_univariate", None)
        logger.info(
            "%s fitted: %.6g weight, %d features, %d classes",
            type(self).__name__,
            class_weight.sum(),
            self.n_features_in_,
            len(self.classes_),
        )

    def _alpha_grid(self) -> tuple[float, ...]:
        return ESS_GRID if getattr(self, "prior", "dirichlet") == "bdeu" else ALPHA_GRID

    def _calibration_scales(self) -> tuple[float, ...]:
        """The temperatures the alpha cross-validation also scores (none by default:
        the models whose scores are posteriors need none)."""
        return ()

    def _calibrate(self, scale_losses) -> None:
        """Keep the scale of least held-out log-loss (estimators that calibrate)."""

    def _alpha_by_cv(self, codes, class_index, weights, grid=None):
        """Choose alpha on :data:`~discotree.stats.alpha_selection.ALPHA_GRID` (or the ESS
        grid for BDeu, or ``grid``) by 5-fold cross-validation, with fold statistics
        by subtraction (:func:`~discotree.stats.alpha_selection.select_alpha`); the losses
        have a row for each of :meth:`_calibration_scales` after the first two."""
        prior = getattr(self, "prior", "dirichlet")
        # the totals (counted there, or already by partial_fit) serve the final fit too
        pairs = getattr(self, "_streams_pairs", True)  # naive Bayes: univariate tables

        def keep(total: PairStatistics) -> None:
            self._counted = total

        grid = self._alpha_grid() if grid is None else grid
        return select_alpha(
            codes,
            class_index.astype(np.intp),
            weights,
            self.n_categories_,
            len(self.classes_),
            model_for=self._alpha_model_for(self._epsilon, prior, grid),
            grid=grid,
            total=self.__dict__.get("_counted"),
            pairs=pairs,
            on_total=keep,
            scales=self._calibration_scales(),
        )

    #: What ``fit_memory_estimate_`` counts, as the memory guard's message names it.
    _memory_what = "this fit (the pairwise count tables and what is learnt from them)"

    def _fit_memory_bytes(self, codes, class_index, weights) -> float:
        """Estimated peak memory of the fit, in bytes: the counting
        (:func:`~discotree.kernels.counts.pairwise_counts_bytes`), a fold's tables beside
        the totals for ``alpha="auto"``, and :meth:`_model_memory_bytes`
        (``benchmarks/bench_memory.py`` measures it)."""
        n_classes, n_features = len(self.classes_), codes.shape[1]
        width = float(np.sum(self.n_categories_))
        estimate = pairwise_counts_bytes(
            np.bincount(class_index, minlength=n_classes),  # rows per class (layout sizes)
            self.n_categories_,
            features_with_missing(codes),
            weights is not None,
        )
        if self._alpha == "auto":
            estimate += 8.0 * n_classes * width * width
        held = codes.nbytes + 16.0 * len(codes)  # the encoded rows, classes and weights
        return estimate + held + self._model_memory_bytes(n_features, n_classes)

    def _table_bytes(self, n_features: int, n_tables: int) -> float:
        """``n_tables`` sets of one conditional table per feature (its parent's states
        by its own, at most), with numpy's per-array overhead."""
        r = np.asarray(self.n_categories_, dtype=np.float64)
        return n_tables * (8.0 * float(np.sum(r * r.max())) + 112.0 * n_features)

    def _model_memory_bytes(self, n_features: int, n_classes: int) -> float:
        """What the model learns from the count tables, in bytes (0: not modelled)."""
        return 0.0

    def _pair_statistics(self, codes, class_index, sample_weight) -> PairStatistics:
        """The pair statistics of the training data: those counted for ``alpha="auto"``
        if there are, else one counting pass."""
        counted = self.__dict__.pop("_counted", None)
        if counted is not None:
            return counted
        return PairStatistics.from_codes(
            codes, class_index, self.n_categories_, len(self.classes_), sample_weight
        )

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

    def _make_encoder(self):
        """The input encoder: category codes for discrete models, numbers as they are
        for ``distribution="gaussian"`` (estimators with that parameter)."""
        if getattr(self, "distribution", "discrete") == "gaussian":
            return NumericEncoder(type(self).__name__)
        discretizer = Discretizer() if self.discretizer is None else self.discretizer
        return TableEncoder(int(self.max_categories), discretizer, type(self).__name__)

    @abstractmethod
    def _fit_model(
        self,
        codes: NDArray[Any] | None,
        class_index: NDArray[np.intp] | None,
        sample_weight: NDArray[np.float64] | None,
    ) -> ForestModel:
        """Learn structure and parameters from validated codes; set structure attributes."""

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

    def _joint_unavailable(self) -> str | None:
        if self._SCORE_KIND != "joint":
            return (
                f"predict_joint_log_proba is not defined for {type(self).__name__}: its "
                f"model's scores are of the kind {self._SCORE_KIND!r}, not a joint "
                "distribution; use predict_log_proba"
            )
        return None

    def _uncertainty_unavailable(self) -> str | None:
        """Why these parameters give no Dirichlet posterior to draw from (None when
        they do): subclasses whose tables are counted say when. Reads the parameters
        only (and, where a subclass needs it, the fitted classes), never raises."""
        return "its tables are not counted Dirichlet posteriors"

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
        (``n_super_parents=1``) and the kDB ensemble with ``smoothing="dirichlet"`` or
        ``"hierarchical"`` (their draws: :mod:`discotree.models.posterior_draws`; the
        ensemble's logistic members stay at their fitted parameters). Elsewhere the
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


#: The smoothings of the per-class forest estimators (naive Bayes, TAN, Chow-Liu, the
#: discriminative and EAR trees, A1DE and A2DE).
FOREST_SMOOTHINGS = ("dirichlet", "hierarchical", "hdp")

#: The smoothings that back a table off along its parents (``"hdp"``: sampled; its
#: alpha, structure and any cross-validation use the ``"hierarchical"`` estimate).
BACKOFF_SMOOTHINGS = ("hierarchical", "hdp")


@dataclass(frozen=True)
class Rule:
    """A rule across an estimator's parameters (checked after its table of checks):
    ``broken(estimator)`` and the message, formatted with the parameters.

    Examples
    --------
    >>> from discotree import TANClassifier
    >>> rule = Rule(lambda e: e.n_edges is not None and e.k != 1, "n_edges needs k=1, not {k}.")
    >>> rule.check(TANClassifier(k=2, n_edges=3))
    Traceback (most recent call last):
    ...
    ValueError: TANClassifier: n_edges needs k=1, not 2.
    """

    broken: Callable[[Any], bool]
    message: str

    def check(self, estimator: Any) -> None:
        if self.broken(estimator):
            params = estimator.get_params(deep=False)
            raise ValueError(f"{type(estimator).__name__}: {self.message.format(**params)}")


def check_forest_smoothing(estimator: Any) -> None:
    """Refuse a ``smoothing`` the forest estimators do not know, hierarchical and HDP
    smoothing of Gaussian models and without a positive pseudo-count for the
    marginals."""
    name = type(estimator).__name__
    smoothing = estimator.smoothing
    if smoothing not in FOREST_SMOOTHINGS:
        raise ValueError(
            f"{name}: smoothing must be one of {FOREST_SMOOTHINGS}, got {smoothing!r}."
        )
    if smoothing not in BACKOFF_SMOOTHINGS:
        return
    if getattr(estimator, "distribution", "discrete") != "discrete":
        raise ValueError(f"{name}: smoothing={smoothing!r} smooths discrete tables only.")
    alpha = estimator.alpha
    if not isinstance(alpha, str) and not alpha > 0:
        raise ValueError(
            f"{name}: smoothing={smoothing!r} needs alpha > 0 or 'auto' (it smooths the "
            f"features' marginals), got {alpha!r}."
        )
