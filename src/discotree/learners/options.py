"""The typed options of every learner: one frozen dataclass per learner family.

A :class:`~discotree.learners.registry.LearnerSpec` carries the pseudo-count, the floor
and the prior that every learner shares, and in ``options`` an instance of its
learner's options class (:attr:`~discotree.learners.registry.Learner.options`). Each
field has its type, its default, a docstring line (``metadata["doc"]``) and, where the
values are few or bounded, its constraint (``metadata["choices"]`` or
``metadata["check"]``) that :meth:`LearnerOptions.validate` enforces.

Two kinds of fields:

- *parameters*: the estimator's parameter of the same name (the estimator's
  ``__init__`` default is the field's default, ``tests/test_options.py`` checks it);
- *inputs* (``metadata["input"]``): what a fit computes before calling the learner
  (the pair tables counted already, a structure searched before, the bins' values, the
  class labels); ``None`` until then.

One default per option name across the learners: a name whose estimators' defaults
differ (``k``: 1 for TAN, 5 for kDB; ``smoothing``: ``"hierarchical"`` for the kDB
ensemble) has no default in the learners concerned, the estimator always gives it.

Examples
--------
>>> options = KDependenceOptions(k=2)
>>> options.selective, options.selection_loss
(True, 'rmse')
>>> options.replace(k=3).k
3
>>> KDependenceOptions(k=2, selection_loss="mse").validate("KDBClassifier")
Traceback (most recent call last):
...
ValueError: KDBClassifier: selection_loss must be one of ('rmse', 'log_loss'), got 'mse'.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

__all__ = [
    "COARSENINGS",
    "SELECTION_LOSSES",
    "SMOOTHINGS",
    "BoostingOptions",
    "ChowLiuOptions",
    "DiscriminativeTreeOptions",
    "EARTreeOptions",
    "ForestDensityOptions",
    "KDBEnsembleOptions",
    "KDependenceOptions",
    "LearnerOptions",
    "LogisticOptions",
    "SmoothingOptions",
    "TANOptions",
    "option",
]

#: How the tables are smoothed (:mod:`discotree.stats.dirichlet`, hierarchical backoff).
SMOOTHINGS = ("dirichlet", "hierarchical", "hdp")
#: The leave-one-out losses selective kDB compares its attribute prefixes with.
SELECTION_LOSSES = ("rmse", "log_loss")
#: How the kDB ensemble's members discretise the numeric columns.
COARSENINGS = ("jittered", "sampled-mdl")

_O = TypeVar("_O", bound="LearnerOptions")


def option(
    default: Any = dataclasses.MISSING,
    doc: str = "",
    *,
    choices: tuple[Any, ...] | None = None,
    check: Callable[[Any], bool] | None = None,
    allowed: str = "",
    input: bool = False,
) -> Any:
    """A field of an options class: its ``default`` (none: the estimator always gives
    it), a docstring line, and its constraint (``choices``, or ``check`` with the
    ``allowed`` values in words); ``input``: computed by the fit, not a parameter.

    Examples
    --------
    >>> from dataclasses import fields
    >>> fields(SmoothingOptions)[0].metadata["doc"]
    'How every table is smoothed.'
    """
    metadata: dict[str, Any] = {"doc": doc, "choices": choices, "check": check}
    metadata.update(allowed=allowed, input=input)
    if isinstance(default, list | dict | set):
        raise TypeError("an option's default must be immutable")
    return dataclasses.field(default=default, metadata=metadata)


@dataclass(frozen=True, kw_only=True)
class LearnerOptions:
    """The base of the options classes (a learner without options of its own)."""

    def validate(self, estimator: str) -> None:
        """Check every constrained field: a ``ValueError`` that names the parameter,
        the allowed values and the value given (prefixed by ``estimator``)."""
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            choices, check = f.metadata.get("choices"), f.metadata.get("check")
            if choices is not None and value not in choices:
                raise ValueError(f"{estimator}: {f.name} must be one of {choices}, got {value!r}.")
            if check is not None and not check(value):
                allowed = f.metadata.get("allowed") or "valid"
                raise ValueError(f"{estimator}: {f.name} must be {allowed}, got {value!r}.")

    def replace(self: _O, **changes: Any) -> _O:
        """The same options with ``changes`` (a new instance: options are frozen)."""
        return dataclasses.replace(self, **changes)

    @classmethod
    def estimator_fields(cls) -> tuple[str, ...]:
        """The names of the fields an estimator gives (the inputs left out)."""
        return tuple(f.name for f in dataclasses.fields(cls) if not f.metadata.get("input"))


@dataclass(frozen=True, kw_only=True)
class SmoothingOptions(LearnerOptions):
    """Naive Bayes, AODE and A2DE: how the tables are smoothed."""

    smoothing: str = option("dirichlet", "How every table is smoothed.", choices=SMOOTHINGS)
    hdp_seed: int = option(0, "The seed of the HDP sampler (smoothing='hdp').")

    def table_smoothing(self) -> dict[str, Any]:
        """The keyword arguments of the smoothing of every table (``smoothing`` and the
        HDP sampler's ``seed``)."""
        return {"smoothing": self.smoothing, "seed": int(self.hdp_seed)}


@dataclass(frozen=True, kw_only=True)
class ChowLiuOptions(SmoothingOptions):
    """Chow-Liu and TAN-CMI forests."""

    n_edges: int | str | None = option(None, "Edges per forest (None: a spanning tree).")


@dataclass(frozen=True, kw_only=True)
class TANOptions(ChowLiuOptions):
    """TAN, kDB of the TAN estimator and its structure searches (``"tan-search"``)."""

    k: int = option(doc="Parents per attribute besides the class.")
    structure: str = option("cmi", "How the structure is chosen.")
    structure_score: str = option("cr", "The score of a structure search.")
    structure_folds: int | None = option(None, "Folds of the search's step selection.")
    early_abandon: bool = option(True, "Stop scoring a candidate once it cannot win.")
    parameters: str = option("ml", "How the parameters are learnt ('ml', 'cl').")
    cl_max_iter: int = option(100, "Iterations of the conditional-likelihood fit.")
    random_state: Any = option(0, "The seed of the searches' random choices.")
    searched: Any = option(None, "A structure searched before (kept).", input=True)


@dataclass(frozen=True, kw_only=True)
class KDependenceOptions(SmoothingOptions):
    """kDB with sparse family tables, selective or not (``"k-dependence"``,
    ``"selective-kdb"``)."""

    k: int = option(doc="Parents per attribute besides the class.")
    selective: bool = option(True, "Keep the attribute prefix of least leave-one-out loss.")
    selection_loss: str = option(
        "rmse", "The loss of the attribute selection.", choices=SELECTION_LOSSES
    )
    order_seed: int | None = option(None, "The seed of a sampled attribute order.")
    held_out: bool | None = option(False, "Also keep the held-out posteriors.")
    pairs: Any = option(None, "The pair tables, counted already.", input=True)


@dataclass(frozen=True, kw_only=True)
class KDBEnsembleOptions(KDependenceOptions):
    """The kDB ensemble: its members' kDB options and the ensemble's own."""

    smoothing: str = option(doc="How every table is smoothed.", choices=SMOOTHINGS)
    n_estimators: int = option(10, "The number of members.")
    n_bins: Any = option(4, "Bins of every numeric column (or a range).")
    bootstrap: bool = option(False, "Poisson(1) copies of every row per member.")
    coarsening: str = option("jittered", "How the members discretise.", choices=COARSENINGS)
    seed: int = option(0, "The seed of the members' seeds.")
    n_jobs: int | None = option(None, "Members fitted at once.")
    linear_weight: float | str = option("auto", "The weight of the linear model.")
    linear_C: float = option(1.0, "The inverse L2 penalty of the linear model.")
    linear_pairs: int | str = option(0, "Pair interactions of the linear model.")
    pair_weight: float | str = option("auto", "The weight of the pair model.")
    pair_pooling: str = option("log", "How the pair model pools.")
    pair_significance: float | None = option(doc="The chi-squared level of a pair.")
    pairs_per_column: float | None = option(None, "Pairs per column of the pair model.")
    binned: tuple[int, ...] = option((), "The binned columns.", input=True)
    values: Any = option(None, "The bins' values of the linear model.", input=True)


@dataclass(frozen=True, kw_only=True)
class LogisticOptions(LearnerOptions):
    """The multinomial logistic model (``"logistic"``)."""

    C: float = option(1.0, "The inverse L2 penalty.")
    n_pairs: int = option(0, "Pair interactions (the most informative first).")
    pair_significance: float | None = option(None, "The chi-squared level of a pair.")
    tolerance: float | None = option(None, "The gradient tolerance (None: the default).")
    values: Any = option(None, "The numeric value of every code.", input=True)
    start: Any = option(None, "A model to start from (same inputs).", input=True)
    pair_levels: Any = option(None, "The levels of the pairs' columns.", input=True)
    pair_features: Any = option(None, "The columns pairs are taken from.", input=True)
    pair_statistics: Any = option(None, "The pair tables, counted already.", input=True)


@dataclass(frozen=True, kw_only=True)
class DiscriminativeTreeOptions(ChowLiuOptions):
    """The discriminative tree pairs (``"discriminative-tree"``, ``"-altmax"``)."""

    multiclass: str = option("pairwise", "How several classes split into binary tasks.")
    edge_cost: Any = option(0.0, "The cost of an edge (a number or a matrix).")
    cost_accounting: str = option("per-forest", "Which forest an edge's cost is charged to.")
    max_alternations: int = option(20, "Rounds of alternating maximisation.")
    structure_alpha: float | None = option(None, "The pseudo-count of the structure.")
    classes: Any = option(None, "The class labels.", input=True)
    pairs: Any = option(None, "The pair tables, counted already.", input=True)


@dataclass(frozen=True, kw_only=True)
class BoostingOptions(SmoothingOptions):
    """AdaBoost of discriminative trees or forests (``"boosting"``)."""

    base: str = option("dt", "The weak learner.")
    algorithm: str = option("real", "Real or Discrete AdaBoost.")
    n_estimators: int = option(10, "The number of rounds.")
    init: str = option("prior", "The starting score.")
    multiclass: str = option("pairwise", "How several classes split into binary tasks.")


@dataclass(frozen=True, kw_only=True)
class EARTreeOptions(SmoothingOptions):
    """The EAR tree (``"ear-tree"``)."""

    distribution: str = option("discrete", "Discrete tables or Gaussians.")
    minimizer: str = option("min-norm", "The submodular minimiser.")
    split_search: str = option("sub-sup", "How a separator is searched.")
    n_permutations: int = option(3, "Random orders of the search.")
    random_state: Any = option(0, "The seed of the search.")
    searched: Any = option(None, "A tree searched before (kept).", input=True)
    pairs: Any = option(None, "The pair tables, counted already.", input=True)


@dataclass(frozen=True, kw_only=True)
class ForestDensityOptions(LearnerOptions):
    """The forest density classifier (``"forest-density"``)."""

    bandwidth: Any = option("scott", "The kernels' bandwidth rule or value.")
    density_floor: float = option(1e-3, "The floor of every density.")
    C: float = option(1.0, "The inverse penalty of the linear SVM.")
    keep_original: bool = option(False, "Keep the original features beside the log-densities.")
    kde: str = option("auto", "How the densities are estimated.")
    grid_size: tuple[int, int] = option((1024, 128), "The KDE grid of 1-D and 2-D densities.")
    probability: bool = option(False, "Calibrate probabilities.")
    max_iter: int = option(20000, "Iterations of the SVM.")
    random_state: Any = option(0, "The seed of the SVM.")
    pairs: Any = option(None, "The pairs of features (an array of pairs).", input=True)
    svm_weights: Any = option(None, "The weight of every row in the SVM.", input=True)
    classes: Any = option(None, "The class labels.", input=True)
