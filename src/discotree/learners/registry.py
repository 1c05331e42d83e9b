"""The one registry of learners: a name, what the learner reads, and a pure function
from counts to a fitted model.

A learner of the models fitted from additive counts (naive Bayes, Chow-Liu, TAN-CMI,
kDB, the discriminative tree pair) is a set of pure functions:

- ``fit(counts, spec) -> FittedModel``: the :class:`Counts` of the training data (the
  pair tables, or only the univariate ones, and for kDB the family tables of the
  parents it chose) and a :class:`LearnerSpec` (the pseudo-count and the learner's
  options) in, the fitted model and the attributes the estimator exposes out;
- ``structure(pairs, spec)``: the attribute parents chosen from the pair tables alone,
  for the learners whose parameters need the family tables of those parents (a second
  counting pass: :attr:`Learner.reads` is ``"pairs, then families"``);
- ``models_by_alpha(pairs, spec, grid)``: the model of every pseudo-count of ``grid``
  learnt from a training fold's tables, for ``alpha="auto"``'s cross-validation
  (:func:`discotree.stats.alpha_selection.select_alpha`).

The estimators (``fit``, ``partial_fit``, ``fit_from_statistics``), the alpha
cross-validation and the Dask engine all look the learner up here by the name
:meth:`~discotree.NaiveBayesClassifier.learner_spec` gives, so that "identical to the
in-memory fit" holds by construction: there is one function to call. Learners that need
the rows themselves (``reads="rows"``: the discriminative structure searches and
conditional-likelihood parameters, boosting, the EAR tree, the alternating maximisation
of tree pairs, the forest density classifier) take :class:`Rows` instead of counts.

Examples
--------
>>> from discotree.learners.registry import get_learner
>>> learner = get_learner("tan-cmi")
>>> learner.reads, learner.partial_fit
('pairs', True)
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from ..kernels.family_counts import family_counts
from ..missing_values import MissingValueRule
from ..stats.alpha_selection import ALPHA_GRID, ESS_GRID
from ..stats.pair_statistics import PairStatistics
from .options import LearnerOptions, SmoothingOptions

_O = TypeVar("_O", bound=LearnerOptions)

__all__ = [
    "LEARNERS",
    "Counts",
    "FittedModel",
    "Learner",
    "LearnerSpec",
    "Rows",
    "get_learner",
    "register_learner",
]

#: What a learner reads: the univariate tables, the pair tables, the pair tables then
#: (in a second pass) the family tables of the parents its ``structure`` chose, or the
#: rows themselves (:class:`Rows`).
READS = ("univariate", "pairs", "pairs, then families", "rows")


@dataclass(frozen=True)
class LearnerSpec:
    """Which learner, and its settings, as an estimator's parameters give them.

    Parameters
    ----------
    learner : str
        A name of :data:`LEARNERS`.
    alpha : float or "auto"
        The Dirichlet pseudo-count (``"auto"`` until the cross-validation chose one).
    epsilon : float
        The zero-probability floor.
    prior : {"dirichlet", "bdeu"}
        How ``alpha`` spreads over a table's cells.
    options : LearnerOptions or mapping
        The learner's own settings (``k``, ``n_edges``, ``multiclass``, ...): an
        instance of its learner's options class (:attr:`Learner.options`, in
        :mod:`discotree.learners.options`) or a mapping of its fields, which becomes one.
    calibration_scales : tuple of float
        The temperatures ``alpha="auto"``'s cross-validation also scores (models whose
        scores are no posteriors; empty otherwise).

    Examples
    --------
    >>> spec = LearnerSpec("selective-kdb", 1.0, 1e-5, options={"k": 2})
    >>> type(spec.options).__name__, spec.options.k, spec.options.selection_loss
    ('KDependenceOptions', 2, 'rmse')
    """

    learner: str
    alpha: float | str
    epsilon: float
    prior: str = "dirichlet"
    options: Any = None
    calibration_scales: tuple[float, ...] = ()

    def __post_init__(self) -> None:
        kind = get_learner(self.learner).options
        options = {} if self.options is None else self.options
        if isinstance(options, Mapping):
            options = kind(**options)
        if not isinstance(options, kind):
            raise TypeError(
                f"learner {self.learner!r} takes {kind.__name__}, got {type(options).__name__}"
            )
        object.__setattr__(self, "options", options)

    def options_as(self, kind: type[_O]) -> _O:
        """The options, as the class ``kind`` the learner reads (the spec's options may
        be of a subclass: the kDB ensemble's hold its members')."""
        if not isinstance(self.options, kind):
            raise TypeError(f"learner {self.learner!r}: options are no {kind.__name__}")
        return self.options

    def with_options(self, **changes: Any) -> LearnerSpec:
        """The same specification with ``changes`` to its options."""
        return replace(self, options=self.options.replace(**changes))

    def table_smoothing(self) -> dict[str, Any]:
        """The keyword arguments of the smoothing of every table the learner estimates
        (``smoothing``, and the HDP sampler's ``seed`` from the option ``hdp_seed``).

        Examples
        --------
        >>> LearnerSpec("tan-cmi", 1.0, 1e-5, options={"smoothing": "hdp"}).table_smoothing()
        {'smoothing': 'hdp', 'seed': 0}
        """
        return self.options_as(SmoothingOptions).table_smoothing()

    def with_alpha(self, alpha: float) -> LearnerSpec:
        """The same specification with a numeric pseudo-count."""
        return replace(self, alpha=alpha)

    @property
    def alpha_grid(self) -> tuple[float, ...]:
        """The pseudo-counts ``alpha="auto"`` compares (equivalent sample sizes with
        ``prior="bdeu"``)."""
        return ESS_GRID if self.prior == "bdeu" else ALPHA_GRID


@dataclass(frozen=True)
class Rows:
    """The encoded training rows a row learner reads.

    Parameters
    ----------
    codes : ndarray of shape (n_samples, n_features)
        Category codes, -1 missing (the standardised values for the Gaussian and
        kernel-density learners).
    class_index : ndarray of shape (n_samples,)
    weights : ndarray of shape (n_samples,)
    n_classes : int
    n_categories : ndarray of shape (n_features,)
    """

    codes: NDArray[Any]
    class_index: NDArray[np.intp]
    weights: NDArray[np.float64]
    n_classes: int
    n_categories: NDArray[np.intp]

    def take(self, index: NDArray[Any]) -> Rows:
        """The rows ``index`` picks (an index array or a boolean mask), with the same
        classes and categories.

        Examples
        --------
        >>> rows = Rows(np.array([[0], [1], [1]]), np.array([0, 1, 1]), np.ones(3), 2,
        ...     np.array([2]))
        >>> rows.take(np.array([True, False, True])).class_index.tolist()
        [0, 1]
        """
        return Rows(
            self.codes[index],
            self.class_index[index],
            self.weights[index],
            self.n_classes,
            self.n_categories,
        )


@dataclass(frozen=True)
class Counts:
    """The additive statistics of the training rows that a learner reads.

    Parameters
    ----------
    n_categories : ndarray of shape (n_features,) or None
        None for Gaussian statistics.
    class_weight : ndarray of shape (n_classes,)
        The weight of each class.
    pairs : PairStatistics or GaussianStatistics, optional
        The pair tables (naive Bayes reads only their diagonal: univariate statistics,
        :meth:`PairStatistics.univariate`, suffice) or the per-class moments (Gaussian).
    families : list of ndarray, optional
        Per feature, the table of its family (class, parents, feature) under the
        parents the learner's ``structure`` chose (kDB: dense arrays; "k-dependence":
        the list of its :class:`~discotree.stats.family_tables.SparseFamilyTable` under
        each prefix of its ranked parents).
    scores : ndarray, optional
        The third pass's sums over the rows (:attr:`Learner.score_rows`: selective
        kDB's leave-one-out losses).
    """

    n_categories: NDArray[np.intp] | None
    class_weight: NDArray[np.float64]
    pairs: Any = None
    families: list[Any] | None = None
    scores: Any = None

    @property
    def n_classes(self) -> int:
        return len(self.class_weight)

    @property
    def n_features(self) -> int:
        if self.pairs is not None:
            return int(self.pairs.n_features)
        return len(self.n_categories) if self.n_categories is not None else 0


@dataclass
class FittedModel:
    """A learner's result: the model that scores rows (``None`` for models that keep
    their parts in ``attributes``) and the fitted attributes of the estimator (the
    estimator sets each as ``name`` in one place)."""

    model: Any
    attributes: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Learner:
    """One entry of the registry.

    Parameters
    ----------
    name : str
    summary : str
        One sentence: the model and the paper that defines it.
    reads : {"univariate", "pairs", "pairs, then families", "rows"}
        The statistics ``fit`` needs (``"rows"``: the encoded rows, for the learners
        that search or train on them; no ``partial_fit`` or Dask).
    fit : callable (Counts or Rows, LearnerSpec) -> FittedModel
    structure : callable (PairStatistics, LearnerSpec) -> list of tuple, optional
        The attribute parents chosen from the pair tables (for the second pass of
        ``"pairs, then families"``, and for the alpha cross-validation).
    models_by_alpha : callable (PairStatistics, LearnerSpec, grid) -> callable, optional
        ``fit(alpha) -> model`` from a fold's tables (the model's
        ``joints_of_grid(codes, log_prior)`` scores every alpha at once when given);
        ``None``: the alpha cross-validation needs the rows.
    count_families : callable (codes, class_index, weights, n_classes, n_categories,
        parents) -> list, optional
        How the second pass counts the families of ``structure``'s parents (default:
        dense :func:`~discotree.kernels.family_counts.family_counts` per feature).
    score_rows : callable (Counts, LearnerSpec, codes, class_index, weights) -> ndarray, optional
        A third pass: sums over the rows, additive over parts of them, that ``fit``
        then reads as ``counts.scores`` (when ``spec`` asks for them).
    options : type
        The learner's options class (:mod:`discotree.learners.options`): a spec of
        this learner holds an instance of it (or of a subclass).
    partial_fit, dask : bool
        Whether ``partial_fit`` and the Dask engine can fit it (from counts).
    missing_values : MissingValueRule
        What the fit does with a missing value (default: available-case, each table
        counts the rows where its variables are observed).
    missing_at_prediction : MissingValueRule
        What prediction does with a missing feature (default: summed out exactly).
    sample_weight : bool
        Whether the weights are honoured (a weight of k counts a row k times).
    """

    name: str
    summary: str
    reads: str
    fit: Callable[[Any, LearnerSpec], FittedModel]
    structure: Callable[[PairStatistics, LearnerSpec], list[tuple[int, ...]]] | None = None
    models_by_alpha: Callable[..., Callable[[float], Any]] | None = None
    count_families: Callable[..., list[Any]] | None = None
    score_rows: Callable[..., Any] | None = None
    options: type[LearnerOptions] = LearnerOptions
    partial_fit: bool = True
    dask: bool = True
    missing_values: MissingValueRule = MissingValueRule.AVAILABLE_CASE
    missing_at_prediction: MissingValueRule = MissingValueRule.SUMMED_OUT
    sample_weight: bool = True

    def __post_init__(self) -> None:
        if self.reads not in READS:
            raise ValueError(f"learner {self.name!r}: reads must be one of {READS}")
        if self.reads == "pairs, then families" and self.structure is None:
            raise ValueError(f"learner {self.name!r}: a second pass needs its structure")

    def families(
        self,
        codes: Any,
        class_index: Any,
        weights: Any,
        n_classes: int,
        n_categories: Any,
        parents: list[tuple[int, ...]],
    ) -> list[Any]:
        """The second pass on some rows: ``count_families``, or by default the dense
        family counts ``n(c, x_parents, x_j)`` of every attribute (sums over the rows,
        additive over parts of them)."""
        if self.count_families is not None:
            return self.count_families(
                codes, class_index, weights, n_classes, n_categories, parents
            )
        return [
            family_counts(codes, class_index, weights, n_classes, n_categories, node=j, parents=pa)
            for j, pa in enumerate(parents)
        ]

    def model_for(self, spec: LearnerSpec, grid: tuple[float, ...]):
        """``model_for(stats, rows) -> fit(alpha)`` as
        :func:`~discotree.stats.alpha_selection.select_alpha` asks (from counts only)."""
        if self.models_by_alpha is None:
            raise ValueError(f"learner {self.name!r} chooses alpha from the rows only")
        by_alpha = self.models_by_alpha
        smoothing = spec.options_as(SmoothingOptions).smoothing
        if smoothing == "hdp":  # alpha chosen on the hierarchical estimate: the sampler
            # runs once, on the final fit
            spec = spec.with_options(smoothing="hierarchical")

        def model_for(stats: PairStatistics, rows: Any) -> Callable[[float], Any]:
            return by_alpha(stats, spec, grid)

        return model_for


#: The learners by name (see the module notes; :func:`register_learner` adds one).
LEARNERS: dict[str, Learner] = {}


def register_learner(learner: Learner) -> Learner:
    """Add ``learner`` to :data:`LEARNERS` under its name (a name is registered once).

    Examples
    --------
    >>> from discotree.learners.registry import LEARNERS
    >>> "naive-bayes" in LEARNERS
    True
    """
    if learner.name in LEARNERS and LEARNERS[learner.name] is not learner:
        raise ValueError(f"a learner named {learner.name!r} is already registered")
    LEARNERS[learner.name] = learner
    return learner


def get_learner(name: str) -> Learner:
    """The learner registered as ``name``; a ``ValueError`` naming the closest names
    otherwise.

    Examples
    --------
    >>> get_learner("naive-bayes").reads
    'univariate'
    """
    learner = LEARNERS.get(name)
    if learner is None:
        close = difflib.get_close_matches(str(name), LEARNERS, n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise ValueError(f"unknown learner {name!r}{hint} (known: {sorted(LEARNERS)})")
    return learner
