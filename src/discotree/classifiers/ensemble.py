"""Ensembles of selective kDB over stochastic discretisations and sampled orders."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .. import missing_values
from ..docstrings import fill_doc
from ..engine_registry import engine_function
from ..fitting import atomic_fit, available_if_explained
from ..learners.ensemble import FINE_BINS, logistic_fit_counts, pool_threads
from ..learners.ensemble_members import PAIR_LEVELS, linear_pair_count
from ..learners.fit_input import FitInput
from ..learners.logistic import (
    PAIR_CELLS,
    largest_pair_cells,
    logistic_fit_bytes,
    logistic_parameter_bytes,
    pair_count,
)
from ..learners.options import RANDOM_STATE, KDBEnsembleOptions, KDependenceOptions
from ..learners.registry import FittedModel, LearnerSpec, get_learner
from ..migrations import register_upgrade, upgrade
from ..models.ensemble import KDBEnsembleModel
from ..models.k_dependence import PREPARED_DENSE_CELLS
from ..models.posterior_draws import KDBEnsemblePosterior
from ..numerics import class_log_prior
from ..scaling_tags import ScalingTags
from ..stats.backoff_prediction import TABULATED_BUDGET
from ..stats.dirichlet import check_smoothing
from ..stored_classes import stored
from ..sufficient_statistics import StatisticsSchema
from ..transformers.discretizer import bin_midpoints
from ..validation import (
    integer_seed,
    is_count,
)
from ._base import DiscreteForestClassifierBase, Rule, check_encoding
from .k_dependence import KDBClassifier
from .parameter_checks import check_parameter_table, check_rules

__all__ = [
    "KDB_ENSEMBLE_MEMBER_PARAMETERS",
    "SET_BY_THE_ENSEMBLE",
    "KDBEnsembleClassifier",
    "default_members",
]

#: Bytes of a member's Python objects (its model, lists and attributes), at least.
MEMBER_OVERHEAD = 2048.0
#: Why the ensemble has no ``partial_fit``, and what fits it on data larger than memory.
NO_PARTIAL_FIT = (
    "{name} has no partial_fit: its members choose their parents, attributes and "
    "concentrations from counts of all the rows and then score every row against them "
    "(several passes), and its linear and pair members are L-BFGS fits whose every "
    "step sums over all the rows, so a batch cannot be added to a fitted ensemble. For "
    "data larger than memory, fit it in passes over the data instead: "
    "'discotree fit --data FILE --model eskdb' (CSV, gzip CSV, Parquet or a folder of "
    "them, read once per pass) or fit(X, y) on Dask collections (the same model as fit "
    "in memory)."
)


def _no_partial_fit(estimator: Any) -> bool:
    """Refuse ``partial_fit`` (:data:`NO_PARTIAL_FIT`): ``hasattr`` is False and the
    attribute error names the passes-based alternatives."""
    raise AttributeError(NO_PARTIAL_FIT.format(name=type(estimator).__name__))


def _is_range(n_bins: Any) -> bool:
    """``n_bins`` given as a range ``(low, high)``."""
    return isinstance(n_bins, tuple | list) and len(n_bins) == 2


def _is_count_range(low: Any, high: Any) -> bool:
    return is_count(low, 2) and is_count(high, 2) and low <= high


def default_members() -> KDBClassifier:
    """The members' template of ``estimator=None``: selective kDB of ``k=5`` with
    hierarchical smoothing (the ensemble's members before ``estimator`` existed).

    Examples
    --------
    >>> default_members()
    KDBClassifier(smoothing='hierarchical')
    """
    return KDBClassifier(5, smoothing="hierarchical")


#: The template's parameters that the ensemble sets itself (they must keep
#: :class:`~discotree.KDBClassifier`'s defaults), and why.
SET_BY_THE_ENSEMBLE = {
    "selective": "the members are selective kDB (the fits in passes run the selection too)",
    "attribute_order": "each member's attribute order is sampled, from the ensemble's draws",
    "random_state": "the members' draws come from the ensemble's random_state",
    "max_categories": "the ensemble encodes the columns (give the ensemble max_categories)",
    "discretizer": "the ensemble encodes the columns (give the ensemble a discretizer)",
}


def _members_template(estimator: Any) -> Any:
    return default_members() if estimator is None else estimator


def _members_smoothing(estimator: Any) -> Any:
    """The members' smoothing, unchecked (None where ``estimator`` has none): what the
    tags and ``hasattr`` read, which must not raise."""
    return getattr(_members_template(estimator), "smoothing", None)


def _is_default(value: Any, default: Any) -> bool:
    """``value`` is the parameter's ``default`` (None, or a plain number or string
    equal to it; a RandomState or Generator never is)."""
    if default is None:
        return value is None
    return isinstance(value, str | bool | int | np.integer | np.bool_) and value == default


@stored
@fill_doc
class KDBEnsembleClassifier(DiscreteForestClassifierBase):
    """An ensemble of selective kDB classifiers whose members differ by a stochastic
    discretisation of the numeric columns and a sampled attribute order (after Zhang,
    Petitjean & Buntine, "Bayesian network classifiers using ensembles and smoothing",
    KAIS 2020); their posteriors are averaged, and mixed with a linear member that sees
    the numeric values instead of coarse bins.

    Numeric columns with more than ``max_categories`` values are encoded once into 30
    equal-frequency bins; each member maps them to ``n_bins`` bins cut at jittered
    levels (:func:`discotree.models.ensemble.coarsening_maps`), orders the attributes by
    sampling them with probabilities proportional to I(X; C), and is a selective kDB
    (:class:`~discotree.KDBClassifier`, configured by ``estimator``) with hierarchical
    smoothing by default.

    The linear member is naive Bayes with Gaussian leaves for the binned columns (each
    row's value taken as its fine bin's midpoint, standardised), categorical leaves for
    the others, and conditional-likelihood parameters: the multinomial logistic model
    (Ng & Jordan 2001; Roos et al. 2005; :mod:`discotree.models.logistic`), with an L2
    penalty ``1 / linear_C`` as scikit-learn's ``LogisticRegression``. The ensemble's
    posterior is ``(1 - linear_weight)`` times the members' mean plus ``linear_weight``
    times the linear member's: the coarse bins lose the order and the position of a
    value inside its bin, which the linear member keeps. Last, a pair member, the
    logistic model that also reads every pair of columns jointly, is pooled in with
    weight ``pair_weight`` (see that parameter).

    Parameters
    ----------
    n_estimators : int, default=10
        The number of members.
    estimator : KDBClassifier or None, default=None
        The members' template (as scikit-learn's forests take ``estimator=``): its
        member-level parameters configure every member: ``k`` (a larger ``k`` than
        ``n_features - 1`` acts as ``n_features - 1``), ``smoothing``,
        ``selection_loss``, ``alpha`` (hierarchical smoothing: the pseudo-count of the
        nodes' marginals) and ``epsilon``; only the members read them (the linear and
        pair members are logistic models without pseudo-counts). None means
        ``KDBClassifier(5, smoothing="hierarchical")``. The template is neither fitted
        nor changed; ``get_params(deep=True)`` holds ``estimator__k`` and the rest (for
        a search over them, give a template: ``set_params`` cannot reach into None).
        The ensemble sets the template's other parameters itself, so they must keep
        their defaults (a ``ValueError`` names the one that does not):
        ``selective=True`` (the members select their attributes, and the fits in
        passes run that selection), ``attribute_order`` (each member's order is
        sampled), ``random_state`` (the members' draws come from this estimator's),
        ``max_categories`` and ``discretizer`` (the ensemble encodes the columns, with
        its own).
    n_bins : int or (int, int), default=4
        The bins of each numeric column in a member; a range ``(low, high)`` draws each
        member's number uniformly from it. The default was chosen among 3, 4, 5, 8, 3-5
        and 3-7 bins, sampled MDL cuts, bagging and Dirichlet members on folds the
        accuracy benchmark does not use (``benchmarks/results/tune_ensemble.md``).
    random_state : int, RandomState, Generator or None, default=0
        Every member's draws come from it.
    n_jobs : int or None, default=None
        Members fitted at once (threads); None is one, -1 one per core. More than
        the cores (or the members) acts as that many. With more than one, the linear
        and pair members' logistic fits run in the same threads as the members; the
        fitted model is the same for any ``n_jobs``.
    coarsening : {"jittered", "sampled-mdl"}, default="jittered"
        How a member coarsens the fine bins of a numeric column: ``"jittered"`` cuts
        them into ``n_bins`` at jittered equal-width levels (unsupervised);
        ``"sampled-mdl"`` draws supervised cuts, each with probability proportional to
        its Fayyad-Irani MDL margin, recursively (the stochastic discretisation of
        Zhang et al. 2020; ``n_bins`` is then unused).
    bootstrap : bool, default=False
        Whether each member learns from Poisson(1) copies of every row (bagging, as
        random forests do) instead of the rows themselves.
    linear_weight : float in [0, 1] or "auto", default="auto"
        The linear member's weight in the posterior; 0 fits no linear member.
        ``"auto"`` (the default, chosen over the fixed weights 0, 0.2, 0.3 and 0.4 on
        folds the accuracy benchmark does not use:
        ``benchmarks/results/tune_ensemble.md``) chooses it per fit: the weight of 0,
        0.05, ..., 1 of least held-out log-loss, each training row's mean leave-one-out
        posterior of the members (their counts without the row) against the linear
        member's 5-fold cross-validated posterior,
        plus 0.15 (at most 1): the members' structure is not refitted without the row,
        so their leave-one-out posteriors are optimistic, and an honest 5-fold
        cross-validation of the whole ensemble (five times the cost) chose 0.17 more
        on average on the tuning folds
        (:data:`discotree.learners.ensemble_members.LEAVE_ONE_OUT_OPTIMISM`). Beyond 10,000
        rows, on the rows of one content fold of ``ceil(n / 10000)``, the linear member
        fitted once on the others (:func:`discotree.learners.ensemble.held_out_rows`).
        The weight is ``linear_weight_``; not with ``bootstrap=True``.
    linear_C : float, default=1.0
        The linear member's inverse L2 penalty (scikit-learn's ``C``).
    linear_pairs : int or "all", default=0
        The number of pairs of categorical (not binned) columns, at most, to which the
        linear member gives joint inputs (a weight per joint cell of the two columns'
        categories and class: the logistic model with second-order interactions of
        Zaidi et al., "ALRn", Machine Learning 104, 2016); the pairs of largest
        I(X_i; X_j | C) (:func:`discotree.learners.logistic.ranked_pairs`), fewer beyond
        20 million (rows x pairs) inputs. The members capture the interactions of the
        numeric columns; pairs of their coarse bins in the linear member lowered the
        accuracy on the tuning folds. The fitted pairs are ``model_.linear.pairs``.
    pair_weight : float in [0, 1] or "auto", default="auto"
        The weight of the pair member, pooled last (``pair_pooling``) with the
        posterior above: a logistic model of the linear member's inputs and of every
        pair of columns jointly, a numeric column through 4 equal-width levels of its
        fine bins (the second-order logistic model "ALR2" of Zaidi et al. 2016; fewer
        pairs beyond 20 million (rows x pairs) inputs, those of largest
        I(X_i; X_j | C) kept; :func:`discotree.learners.ensemble_members.fit_pair_member`). It
        reads every interaction of two columns, where a member reads those its order
        and parents give it. 0 fits none. ``"auto"`` chooses the weight of least
        held-out log-loss among 0, 0.05, ..., 1, but at least 0.1: the pair member
        fitted once more, on half of the rows (content folds), scored on the other
        half against the members' leave-one-out and the linear member's 5-fold
        posteriors (the rows ``linear_weight="auto"`` scores); 0.1 is the fixed weight
        of best mean accuracy on the tuning folds, where the held-out log-loss, which
        tracks the test log-loss, would choose less on small sets. Its model is
        ``model_.pair_member``; its weight ``pair_weight_``; not with
        ``bootstrap=True``.
    pair_pooling : {"log", "linear"}, default="log"
        How the pair member's posterior ``Q`` joins the rest's ``P`` with weight
        ``v``: ``"log"``, the logarithmic opinion pool
        ``P^(1 - v) Q^v`` renormalised (Genest & Zidek 1986), in which a confident
        member outweighs a hesitant one; ``"linear"``, ``(1 - v) P + v Q`` (the
        default before; about 0.06 points less accurate on the tuning folds' 13
        categorical or mixed sets at ``v = 0.1``).
    pair_significance : float in (0, 1) or None, default=0.001
        The pair member reads only the pairs of columns that the counts show to depend
        on each other given the class: a G-test of conditional independence at this
        level (:func:`discotree.learners.logistic.ranked_pairs`); None reads every pair
        (up to the 20 million inputs above). The default was chosen among None, 0.01
        and 0.001 on folds the accuracy benchmark does not use
        (``benchmarks/results/tune_ensemble.md``, round 13): as accurate as every pair
        (89.61 % against 89.59, log-loss 0.2515 against 0.2517) at a fraction of the
        pair member's cost on wide data (20 of 6,666 pairs on a generated 200-column
        set).
    pairs_per_column : float or None, default=None
        At most this many pairs a column, on average, in the pair member: the
        ``round(pairs_per_column * n_columns)`` pairs of largest ``I(X_i; X_j | C)``
        among those ``pair_significance`` keeps (as a member's attributes have at most
        ``k`` parents); None keeps every such pair. Fewer pairs cost less: the pair
        member's fit is about linear in them.
    max_categories : int, default=10
        Numeric columns with more distinct values are binned.
    discretizer : Discretizer or None, default=None
        The fine binning; None means ``Discretizer(n_bins=30)``.

    Attributes
    ----------
    classes_, class_count_, class_log_prior_, n_categories_, encoder_,
    n_features_in_, feature_names_in_
        As for :class:`~discotree.NaiveBayesClassifier` (the fine encoding).
    alpha_ : float
        The marginals' pseudo-count of the members' back-off (``alpha``).
    fit_memory_estimate_ : float
        The peak memory of the fit in bytes, estimated before counting and checked
        against the ``memory_limit`` configuration key (see the Notes).
    model_ : KDBEnsembleModel
        The members, their coarsening maps and the prior.
    members_k_, members_n_attributes_ : ndarray of shape (n_estimators,)
        Each member's selected number of parents and of attributes.
    members_order_ : list of list of int
        Each member's attribute order.
    linear_weight_ : float
        The linear member's weight in the posterior (``linear_weight``, or the one
        ``"auto"`` chose).
    pair_weight_ : float
        The pair member's (``pair_weight``, or the one ``"auto"`` chose).
    pair_weight_losses_ : ndarray of shape (21,) or None
        With ``pair_weight="auto"``, the held-out log-loss of every weight 0, 0.05,
        ..., 1 (None otherwise).

    The linear and pair members read a missing feature as absent (it and its pairs add
    nothing to any class's score; :mod:`discotree.models.logistic`): with
    ``linear_weight > 0`` or ``pair_weight > 0`` the posterior with missing features is
    that mixture, not a marginal of one model.

    ``predict_joint_log_proba`` does not exist (``hasattr`` is False): the model
    averages posteriors (scores of the kind ``"posterior"``,
    :mod:`discotree.models.protocol`) and has no joint distribution of ``x``.

    Notes
    -----
    There is no ``partial_fit`` (``hasattr(clf, "partial_fit")`` is False, and the
    attribute error says why): the members' structures and the logistic members'
    L-BFGS steps read all the rows at each of several passes. Data larger than memory is
    fitted in passes instead, with the model of ``fit``: ``discotree fit --data FILE
    --model eskdb`` reads the file once per pass, and ``fit`` on Dask collections runs
    the passes on the partitions (:mod:`discotree.engines.ensemble_passes`).

    A fit costs ``n_estimators`` selective kDB fits (their counts are not shared: each
    member's coarsened codes differ). Missing values follow the members' rules
    (:class:`~discotree.KDBClassifier`). Before fitting anything, the estimate
    ``fit_memory_estimate_`` (the fine pair tables, ``n_estimators`` times a member's
    tables, prediction tables and held-out posteriors at least, and the linear and pair
    members' inputs
    and parameters, one weight per joint cell of every pair they read) is checked
    against the ``memory_limit`` configuration key (:func:`discotree.set_config`).

    Examples
    --------
    >>> from sklearn.datasets import load_wine
    >>> from discotree import KDBEnsembleClassifier
    >>> X, y = load_wine(return_X_y=True)
    >>> clf = KDBEnsembleClassifier(n_estimators=3).fit(X, y)
    >>> clf.predict_proba(X[:2]).shape
    (2, 3)
    """

    _SCORE_KIND = "posterior"

    def __init__(
        self,
        n_estimators: int = 10,
        *,
        estimator: KDBClassifier | None = None,
        n_bins: int | tuple[int, int] = 4,
        random_state=0,
        n_jobs: int | None = None,
        coarsening: str = "jittered",
        bootstrap: bool = False,
        linear_weight: float | str = "auto",
        linear_C: float = 1.0,
        linear_pairs: int | str = 0,
        pair_weight: float | str = "auto",
        pair_pooling: str = "log",
        pair_significance: float | None = 0.001,
        pairs_per_column: float | None = None,
        max_categories: int = 10,
        discretizer=None,
    ) -> None:
        self.n_estimators = n_estimators
        self.estimator = estimator
        self.n_bins = n_bins
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.coarsening = coarsening
        self.bootstrap = bootstrap
        self.linear_weight = linear_weight
        self.linear_C = linear_C
        self.linear_pairs = linear_pairs
        self.pair_weight = pair_weight
        self.pair_pooling = pair_pooling
        self.pair_significance = pair_significance
        self.pairs_per_column = pairs_per_column
        self.max_categories = max_categories
        self.discretizer = discretizer

    def __setstate__(self, state: dict) -> None:
        """Pickles of earlier versions load as they were fitted: their state upgraded
        as the JSON reader upgrades files (:func:`discotree.migrations.upgrade`; the flat
        member parameters of before ``estimator`` move into it)."""
        super().__setstate__(upgrade(type(self), dict(state)))

    @available_if_explained(_no_partial_fit)
    def partial_fit(self, X: Any = None, y: Any = None, classes: Any = None, sample_weight=None):
        """Not available: always an ``AttributeError`` naming the passes-based
        alternatives (:data:`NO_PARTIAL_FIT`; see the class's Notes)."""
        raise NotImplementedError  # unreachable: the attribute is refused

    def __discotree_tags__(self) -> ScalingTags:
        """What this estimator supports with its parameters
        (:mod:`discotree.scaling_tags`): no ``partial_fit`` (:data:`NO_PARTIAL_FIT`);
        a file in passes and Dask (:mod:`discotree.engines.ensemble_passes`), but not
        with ``bootstrap=True`` or members with ``smoothing="hdp"`` (which read the
        rows: the file is then read whole, and Dask refused)."""
        passes = not (self.bootstrap or _members_smoothing(self.estimator) == "hdp")
        return ScalingTags(False, "passes" if passes else "memory", passes)

    _parameter_checks = (("random_state", RANDOM_STATE),)
    _rules = (
        Rule(
            lambda e: e.linear_weight == "auto" and e.bootstrap,
            "linear_weight='auto' chooses the weight from the members' leave-one-out "
            "posteriors of every row, which bagged members (bootstrap=True) do not have; "
            "give linear_weight a number.",
        ),
        Rule(
            lambda e: e.pair_weight == "auto" and e.bootstrap,
            "pair_weight='auto' chooses the weight against the members' leave-one-out "
            "posteriors of every row, which bagged members (bootstrap=True) do not have; "
            "give pair_weight a number.",
        ),
        Rule(
            lambda e: _is_range(e.n_bins) and not _is_count_range(*e.n_bins),
            "n_bins as a range must be two integers 2 <= low <= high, got {n_bins!r}.",
        ),
        Rule(
            lambda e: not _is_range(e.n_bins) and not is_count(e.n_bins, 2),
            "n_bins must be an integer >= 2 or a range (low, high), got {n_bins!r}.",
        ),
    )

    _checks = (check_parameter_table, check_rules)

    def _check_common_params(self) -> tuple[Any, float]:
        """The ensemble's encoding (``max_categories``, ``discretizer``), then the
        members' template (:meth:`_member_template`) and its pseudo-count and floor
        (the ensemble's own parameters: the base's ``_check_params``)."""
        name = type(self).__name__
        check_encoding(name, self.max_categories, self.discretizer)
        template = self._member_template()
        return check_smoothing(template.alpha, template.epsilon, name)

    def _member_template(self) -> KDBClassifier:
        """The members' template (``estimator``; None: :func:`default_members`),
        checked: a :class:`~discotree.KDBClassifier` whose parameters are valid, and
        those the ensemble sets itself (:data:`SET_BY_THE_ENSEMBLE`) at their
        defaults. Neither fitted nor changed."""
        name = type(self).__name__
        template = _members_template(self.estimator)
        if not isinstance(template, KDBClassifier):
            raise TypeError(
                f"{name}: estimator must be a KDBClassifier (the members' template) or "
                f"None, got {type(template).__name__}: {template!r}."
            )
        given, defaults = template.get_params(deep=False), KDBClassifier().get_params()
        for param, why in SET_BY_THE_ENSEMBLE.items():
            if not _is_default(given[param], defaults[param]):
                raise ValueError(
                    f"{name}: estimator={template!r}: {param}={given[param]!r} cannot be "
                    f"honoured: {why}; leave it at its default ({defaults[param]!r})."
                )
        try:
            template._check_params()
        except ValueError as error:
            raise ValueError(f"{name}: estimator: {error}") from error
        return template

    _auto_alpha = False

    _default_bins = FINE_BINS

    _memory_what = (
        "this fit (the pairwise count tables, the n_estimators members, and the linear "
        "and pair members' inputs and parameters)"
    )

    def _fit_memory_bytes(self, data: FitInput) -> float:
        """The base estimate, plus the members (:meth:`_member_bytes`, all held until
        they are pooled) and the linear and pair members' logistic fits that may run at
        once: one at a time on one thread (the larger counts), on more (``n_jobs``,
        :func:`~discotree.learners.ensemble.pool_threads`) as many as the threads, the
        largest first (:func:`~discotree.learners.ensemble.logistic_fit_counts`; a
        held-out fit, of fewer rows, counted as the final one); each its inputs and work
        arrays (:func:`~discotree.learners.logistic.logistic_fit_bytes`) and its
        parameters, a weight per input (one-hot categories and the pairs' joint cells)
        and class (:func:`~discotree.learners.logistic.logistic_parameter_bytes`)."""
        estimate = super()._fit_memory_bytes(data)
        assert data.codes is not None
        n_rows, n_features = data.codes.shape
        n_classes = data.n_classes
        r = np.asarray(data.n_categories, dtype=np.float64)
        binned = np.zeros(n_features, dtype=bool)
        binned[np.asarray(data.encoder.binned_columns_, dtype=np.intp)] = True
        most_pairs = PAIR_CELLS // max(n_rows, 1)
        categorical = r[~binned]
        asked = linear_pair_count(self.linear_pairs, len(categorical))
        linear_pairs = min(asked, most_pairs)
        inputs = r.sum() + largest_pair_cells(categorical, linear_pairs)
        linear = logistic_fit_bytes(n_rows, n_features + linear_pairs, n_classes)
        linear += logistic_parameter_bytes(inputs, n_classes)
        levels = np.where(binned, np.minimum(r, PAIR_LEVELS), r)
        pairs = min(linear_pair_count("all", n_features), most_pairs)
        pair = logistic_fit_bytes(n_rows, n_features + pairs, n_classes)
        pair += logistic_parameter_bytes(r.sum() + largest_pair_cells(levels, pairs), n_classes)
        n_linear, n_pair = logistic_fit_counts(
            self.linear_weight,
            self.pair_weight,
            pair_count(asked, len(categorical), n_rows),
            n_rows,
        )
        fits = sorted([linear] * n_linear + [pair] * n_pair, reverse=True)
        at_once = fits[: pool_threads(self.n_jobs, int(self.n_estimators))]
        missing = bool(missing_values.is_missing(data.codes).any())
        members = int(self.n_estimators) * self._member_bytes(n_rows, r, binned, n_classes, missing)
        return estimate + float(sum(at_once)) + members

    _uncertainty_rules = (
        Rule(
            lambda e: _members_smoothing(e.estimator) == "hdp",
            "smoothing='hdp': its members' tables hold estimates, not counts",
        ),
    )

    def _uncertainty_model(self) -> KDBEnsemblePosterior:
        """Each draw draws every member's tables (and the class prior) and combines
        them as the ensemble does; the linear and pair members (logistic, no Dirichlet
        posterior) stay at their fitted parameters
        (:mod:`discotree.models.posterior_draws`)."""
        model = self.model_
        assert isinstance(model, KDBEnsembleModel)  # (what this estimator fits)
        return KDBEnsemblePosterior(model)

    def _member_bytes(
        self,
        n_rows: int,
        n_categories: NDArray[np.float64],
        binned: NDArray[np.bool_],
        n_classes: int,
        missing: bool = False,
    ) -> float:
        """A member's memory, at least: :data:`MEMBER_OVERHEAD`, its coarsening maps,
        one table per feature of its (coarse) states by a parent's and the class (a
        kDB's tables with ``k >= 1`` hold at least that much; numpy's overhead of five
        arrays per feature besides), its prediction tables built in the fit (a packed
        copy of those tables and as many tabulated numbers, at most
        :data:`~discotree.stats.backoff_prediction.TABULATED_BUDGET`; with missing
        values, three copies of as many dense cells, at most
        :data:`~discotree.models.k_dependence.PREPARED_DENSE_CELLS`), and with
        ``linear_weight`` or ``pair_weight`` ``"auto"`` its held-out posteriors of the
        rows (measured: 10.8 KiB per member on iris, 110 KiB on wine, where this gave 7
        and 19 before the prediction tables)."""
        coarse = n_categories.copy()
        if self.coarsening == "jittered":
            high = max(self.n_bins) if isinstance(self.n_bins, tuple | list) else self.n_bins
            coarse[binned] = np.minimum(coarse[binned], float(high))
        parent = coarse.max() if int(self._member_template().k) >= 1 else 1.0
        tables = float(np.sum(8.0 * n_classes * coarse * parent + 5 * 112.0))
        maps = float(np.sum(8.0 * n_categories[binned] + 112.0))
        prediction = tables + min(tables, 8.0 * TABULATED_BUDGET)
        if missing:
            prediction += 3.0 * min(tables, 8.0 * PREPARED_DENSE_CELLS)
        held = 0.0
        if "auto" in (self.linear_weight, self.pair_weight):
            held = 8.0 * n_rows * n_classes
        return MEMBER_OVERHEAD + tables + maps + prediction + held

    @staticmethod
    def _bin_values(encoder: Any) -> list[NDArray[np.float64] | None]:
        """The value every fine bin stands for (its midpoint) for the binned columns of
        ``encoder``, None for the others (one-hot in the linear member)."""
        n_categories = encoder.n_categories_
        values: list[NDArray[np.float64] | None] = [None] * len(n_categories)
        discretizer = encoder.discretizer_
        edges_of = [] if discretizer is None else discretizer.bin_edges_
        for j, edges in zip(encoder.binned_columns_, edges_of, strict=True):
            if len(edges) + 1 == int(n_categories[j]):
                values[int(j)] = bin_midpoints(edges)
        return values

    _options_class = KDBEnsembleOptions

    def _derived_options(self) -> dict[str, Any]:
        """The validated parameters as numbers, the members' options (``estimator``:
        the template's, as a :class:`~discotree.KDBClassifier` maps them) and the
        members' seed (what the fitted encoding gives, the binned columns and their
        values, :meth:`_ensemble_spec` adds)."""

        def number(value: Any, kind: type = float) -> Any:
            return value if value is None or isinstance(value, str) else kind(value)

        return {
            "n_estimators": int(self.n_estimators),
            "n_bins": self.n_bins if isinstance(self.n_bins, tuple | list) else int(self.n_bins),
            "bootstrap": bool(self.bootstrap),
            "seed": integer_seed(self.random_state),
            "estimator": self._member_options(),
            "linear_weight": number(self.linear_weight),
            "linear_C": float(self.linear_C),
            "linear_pairs": number(self.linear_pairs, int),
            "pair_weight": number(self.pair_weight),
            "pair_significance": number(self.pair_significance),
            "pairs_per_column": number(self.pairs_per_column),
        }

    def _member_options(self) -> KDependenceOptions:
        """Every member's selective kDB options: the template's
        (:meth:`_member_template`), ``k`` as an integer; each member's ``order_seed``
        and ``hdp_seed`` are drawn by the learner."""
        template = self._member_template()
        options = template._learner_options()
        assert isinstance(options, KDependenceOptions)  # (a KDBClassifier's)
        return options.replace(k=int(template.k), order_seed=None, hdp_seed=0)

    def _ensemble_spec(self, encoder: Any) -> LearnerSpec:
        """The ``"kdb-ensemble"`` learner's specification of the validated parameters
        and the fitted ``encoder`` (its binned columns and their values)."""
        binned = [j for j, column in enumerate(encoder.columns_) if column.kind == "bins"]
        options = self._learner_options(binned=tuple(binned), values=self._bin_values(encoder))
        alpha, epsilon = self._check_common_params()
        return LearnerSpec("kdb-ensemble", alpha, epsilon, options=options)

    def _fit_model(self, data: FitInput) -> FittedModel:
        rows = data.rows(f"{type(self).__name__} learns from rows.")
        spec = replace(self._ensemble_spec(data.encoder), alpha=data.alpha)
        return get_learner(spec.learner).fit(rows, spec)

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> KDBEnsembleClassifier:
        """Fit the members, the linear and pair members and their weights.

        Parameters
        ----------
        X : array-like, DataFrame, or dask DataFrame or Array of shape (n_samples, n_features)
            Numeric, categorical, string or boolean columns; NaN/None is missing. Dask
            collections are fitted on their partitions, in passes
            (:mod:`discotree.engines.ensemble_passes`; the extra ``discotree[dask]``).
        y : array-like of shape (n_samples,)
            Class labels (a dask Series or Array with dask ``X``).
        {sample_weight_fit}

        Returns
        -------
        self : object
            The fitted estimator.

        Examples
        --------
        >>> from sklearn.datasets import load_wine
        >>> from discotree import KDBEnsembleClassifier
        >>> X, y = load_wine(return_X_y=True)
        >>> clf = KDBEnsembleClassifier(n_estimators=2).fit(X, y)
        >>> clf.members_k_.shape
        (2,)
        """
        fit_elsewhere = engine_function(X, "fit_ensemble")
        if fit_elsewhere is not None:  # Dask collections: passes over the partitions
            return fit_elsewhere(self, X, y, sample_weight)
        super().fit(X, y, sample_weight)
        return self

    @atomic_fit
    def fit_from_passes(
        self, schema: StatisticsSchema, learn: Callable[[LearnerSpec], FittedModel]
    ) -> KDBEnsembleClassifier:
        """Fit from passes over data that is never held in memory: what an engine
        calls (the passes over a file's batches of ``discotree fit --data FILE``, Dask).

        Parameters
        ----------
        schema : StatisticsSchema
            The encoding of the whole data (its classes, categories and fine bins),
            from a first pass (:mod:`discotree.engines.schema_summaries`).
        learn : callable
            ``learn(spec)`` runs the ``"kdb-ensemble"`` learner of ``spec`` in passes
            over the data encoded by ``schema``
            (:func:`discotree.engines.ensemble_passes.fit_ensemble_in_passes`) and
            returns its fitted model, with the class weights as the attribute
            ``class_count_``.

        Returns
        -------
        self : object
            Fitted as ``fit`` on the same rows with that encoding; as ``fit``, every
            fitted attribute is replaced, and a failure leaves the estimator unfitted.
        """
        alpha, epsilon = self._validated_smoothing()
        encoder = copy.deepcopy(schema.encoder)
        encoder.owner = type(self).__name__
        fitted = learn(self._ensemble_spec(encoder))
        class_weight = np.asarray(fitted.attributes["class_count_"], dtype=np.float64)
        names = {} if schema.feature_names is None else {"feature_names_in_": schema.feature_names}
        attributes = {
            "classes_": schema.classes,
            "encoder_": encoder,
            "n_features_in_": schema.n_features,
            **names,
            "n_categories_": encoder.n_categories_,
            "alpha_": alpha,
            "_alpha": alpha,
            "_epsilon": epsilon,
        }
        attributes["class_log_prior_"] = class_log_prior(class_weight)
        self._set_fitted({**attributes, **fitted.attributes, "model_": fitted.model})
        return self


#: The kDB ensemble's member parameters before ``estimator`` held them, and their
#: defaults then.
KDB_ENSEMBLE_MEMBER_PARAMETERS = {
    "k": 5,
    "smoothing": "hierarchical",
    "selection_loss": "rmse",
    "alpha": 1.0,
    "epsilon": 1e-5,
}


def _flat_members_to_template(state: dict) -> dict:
    """A kDB ensemble saved before ``estimator`` held its members' parameters: its
    flat ``k``, ``smoothing``, ``selection_loss``, ``alpha`` and ``epsilon`` moved into
    the template ``KDBClassifier(k, smoothing=..., ...)`` they configured (None when
    they were all the defaults, as ``estimator=None`` is now), so that it predicts and
    refits as it did (registered with :func:`discotree.migrations.register_upgrade`)."""
    if "estimator" in state:
        return state
    flat = {
        name: state.pop(name, default) for name, default in KDB_ENSEMBLE_MEMBER_PARAMETERS.items()
    }
    defaults = all(
        type(flat[name]) is type(default) and flat[name] == default
        for name, default in KDB_ENSEMBLE_MEMBER_PARAMETERS.items()
    )
    state["estimator"] = None if defaults else KDBClassifier(**flat)
    return state


register_upgrade(
    f"{KDBEnsembleClassifier.__module__}.{KDBEnsembleClassifier.__qualname__}",
    _flat_members_to_template,
)
