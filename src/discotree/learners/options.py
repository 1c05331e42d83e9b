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
differ (``k``: 1 for TAN, 5 for kDB) has no default in the learners concerned, the
estimator always gives it. The kDB ensemble holds its members' options as one value
(:class:`KDBEnsembleOptions`'s ``estimator``, a :class:`KDependenceOptions`).

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
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from ..models.ensemble import POOLINGS
from ..structure.chow_liu import PENALTIES
from ..structure.submodular import MINIMIZERS
from ..validation import is_count, is_real

__all__ = [
    "BOOL",
    "COARSENINGS",
    "RANDOM_STATE",
    "SELECTION_LOSSES",
    "SMOOTHINGS",
    "STRUCTURES",
    "BoostingOptions",
    "ChowLiuOptions",
    "Constraint",
    "DiscriminativeTreeOptions",
    "EARTreeOptions",
    "ForestDensityOptions",
    "KDBEnsembleOptions",
    "KDependenceOptions",
    "LearnerOptions",
    "LogisticOptions",
    "SmoothingOptions",
    "TANOptions",
    "binary_tasks",
    "count",
    "numbers_only",
    "one_of",
    "option",
    "table_bytes",
]

#: How the tables are smoothed (:mod:`discotree.stats.dirichlet`, hierarchical backoff).
SMOOTHINGS = ("dirichlet", "hierarchical", "hdp")
#: The leave-one-out losses selective kDB compares its attribute prefixes with.
SELECTION_LOSSES = ("rmse", "log_loss")
#: How the kDB ensemble's members discretise the numeric columns.
COARSENINGS = ("jittered", "sampled-mdl")
#: Structure learners (names of Pernkopf & Bilmes 2010; "-cr": parents chosen by the
#: classification rate, "-crcl": by the classification rate of CL-trained parameters).
STRUCTURES = (
    "cmi",
    "cr",
    "superparent",
    "omi-cr",
    "mmi-cr",
    "omisp-cr",
    "ocr-cr",
    "ro-cr",
    "omi-crcl",
)


@dataclass(frozen=True)
class Constraint:
    """What values a parameter takes: ``check(value)`` and the ``allowed`` values in
    words, for the message ``"<owner>: <name> must be <allowed>, got <value>."``.

    Examples
    --------
    >>> count(1)("EARTreeClassifier", "n_permutations", 0)
    Traceback (most recent call last):
    ...
    ValueError: EARTreeClassifier: n_permutations must be an integer >= 1, got 0.
    """

    check: Callable[[Any], bool]
    allowed: str

    def __call__(self, owner: str, name: str, value: Any) -> None:
        if not self.check(value):
            raise ValueError(f"{owner}: {name} must be {self.allowed}, got {value!r}.")


def one_of(values: Any, allowed: str = "") -> Constraint:
    """One of ``values`` (``allowed``: how the message shows them; default
    ``"one of <values>"``)."""
    return Constraint(lambda value: value in values, allowed or f"one of {values}")


def count(low: int = 0, *, none: bool = False, also: tuple[Any, ...] = ()) -> Constraint:
    """An integer (no bool) >= ``low``; ``None`` too with ``none``, and the strings of
    ``also``."""
    words = [f"an integer >= {low}"]
    if also:
        words = [*(repr(v) for v in also), *words]
    if none:
        words = ["None", *words]
    allowed = words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]

    def check(value: Any) -> bool:
        if value is None:
            return none
        if isinstance(value, str):
            return value in also
        return is_count(value, low)

    return Constraint(check, allowed)


def _real_in(low: float, high: float, *, closed: bool = True, auto: bool = False) -> Constraint:
    def check(value: Any) -> bool:
        if auto and isinstance(value, str):
            return value == "auto"
        if not is_real(value):
            return False
        return low <= float(value) <= high if closed else low < float(value) < high

    interval = f"[{low:g}, {high:g}]" if closed else f"({low:g}, {high:g})"
    return Constraint(check, ("'auto' or " if auto else "") + f"a number in {interval}")


def _optional(constraint: Constraint, allowed: str) -> Constraint:
    return Constraint(lambda value: value is None or constraint.check(value), allowed)


def _positive_finite(value: Any) -> bool:
    return is_real(value) and 0.0 < float(value) < np.inf


def _sorted_choice(values: tuple[str, ...]) -> Constraint:
    return one_of(values, f"one of {sorted(values)}")


def numbers_only(value: Any) -> bool:
    """A number or an array of them (no None, no strings, nor arrays of them)."""
    if value is None or isinstance(value, str | bytes):
        return False
    raw = np.asarray(value)
    return raw.dtype.kind in "iuf" or (raw.dtype.kind == "O" and all(is_real(v) for v in raw.flat))


#: How several classes split into binary problems (one pair per two classes, or one
#: class against the rest).
MULTICLASS = ("pairwise", "ovr")


def binary_tasks(n_classes: int, multiclass: str) -> list[tuple[int, int]]:
    """The binary problems of ``multiclass``: (positive, negative) class indices, -1 for
    "every other class" (one problem for two classes).

    Examples
    --------
    >>> binary_tasks(3, "pairwise"), binary_tasks(3, "ovr")
    ([(0, 1), (0, 2), (1, 2)], [(0, -1), (1, -1), (2, -1)])
    """
    if n_classes == 2:
        return [(1, 0)]
    if multiclass == "pairwise":
        return [(i, j) for i in range(n_classes) for j in range(i + 1, n_classes)]
    return [(i, -1) for i in range(n_classes)]


def table_bytes(n_categories: Any, n_tables: int) -> float:
    """``n_tables`` sets of one conditional table per feature (its parent's states by
    its own, at most), with numpy's per-array overhead.

    Examples
    --------
    >>> table_bytes([2, 3], 1)  # 8 bytes * (2 + 3) * 3 cells + 2 arrays
    344.0
    """
    r = np.asarray(n_categories, dtype=np.float64)
    return n_tables * (8.0 * float(np.sum(r * r.max())) + 112.0 * len(r))


#: A boolean parameter (numpy bools included).
BOOL = Constraint(lambda value: isinstance(value, bool | np.bool_), "True or False")
#: A ``random_state``: None, an integer seed, a RandomState or a Generator.
RANDOM_STATE = Constraint(
    lambda value: (
        value is None
        or isinstance(value, np.random.RandomState | np.random.Generator)
        or (is_count(value) and value < 2**32)
    ),
    "None, an integer in 0..2**32-1, a RandomState or a Generator",
)

_O = TypeVar("_O", bound="LearnerOptions")


def option(
    default: Any = dataclasses.MISSING,
    doc: str = "",
    check: Constraint | None = None,
    *,
    input: bool = False,
) -> Any:
    """A field of an options class: its ``default`` (none: the estimator always gives
    it), a docstring line and its constraint (:class:`Constraint`, checked by
    :meth:`LearnerOptions.check_parameters`); ``input``: computed by the fit, not a
    parameter.

    Examples
    --------
    >>> from dataclasses import fields
    >>> fields(SmoothingOptions)[0].metadata["doc"]
    'How every table is smoothed.'
    """
    metadata: dict[str, Any] = {"doc": doc, "check": check, "input": input}
    if isinstance(default, list | dict | set):
        raise TypeError("an option's default must be immutable")
    return dataclasses.field(default=default, metadata=metadata)


@dataclass(frozen=True, kw_only=True)
class LearnerOptions:
    """The base of the options classes (a learner without options of its own)."""

    def validate(self, estimator: str) -> None:
        """Check every constrained field: a ``ValueError`` that names the parameter,
        the allowed values and the value given (prefixed by ``estimator``)."""
        values = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        self.check_parameters(estimator, values)

    @classmethod
    def check_parameters(cls, estimator: str, values: Mapping[str, Any]) -> None:
        """Check the constrained fields among ``values`` (an estimator's parameters of
        the same names), in the order of the fields: the table of the estimator's
        parameter checks."""
        for f in dataclasses.fields(cls):
            constraint = f.metadata.get("check")
            if constraint is not None and f.name in values:
                constraint(estimator, f.name, values[f.name])

    def replace(self: _O, **changes: Any) -> _O:
        """The same options with ``changes`` (a new instance: options are frozen)."""
        return dataclasses.replace(self, **changes)

    @classmethod
    def estimator_fields(cls) -> tuple[str, ...]:
        """The names of the fields an estimator gives (the inputs left out)."""
        return tuple(f.name for f in dataclasses.fields(cls) if not f.metadata.get("input"))

    def model_bytes(self, n_categories: Any, n_classes: int) -> float:
        """What the model learnt with these options holds beyond the count tables, in
        bytes, for the memory estimate of a discrete fit (0: not modelled)."""
        return 0.0


@dataclass(frozen=True, kw_only=True)
class SmoothingOptions(LearnerOptions):
    """Naive Bayes, AODE and A2DE: how the tables are smoothed."""

    smoothing: str = option("dirichlet", "How every table is smoothed.", one_of(SMOOTHINGS))
    hdp_seed: int = option(0, "The seed of the HDP sampler (smoothing='hdp').")

    def table_smoothing(self) -> dict[str, Any]:
        """The keyword arguments of the smoothing of every table (``smoothing`` and the
        HDP sampler's ``seed``)."""
        return {"smoothing": self.smoothing, "seed": int(self.hdp_seed)}


@dataclass(frozen=True, kw_only=True)
class ChowLiuOptions(SmoothingOptions):
    """Chow-Liu and TAN-CMI forests."""

    n_edges: int | str | None = option(
        None,
        "Edges per forest (None: a spanning tree; 'bic', 'aic': penalised).",
        Constraint(
            lambda v: v is None or is_count(v) or (isinstance(v, str) and v in PENALTIES),
            "None, an integer >= 0, 'bic' or 'aic'",
        ),
    )


@dataclass(frozen=True, kw_only=True)
class TANOptions(ChowLiuOptions):
    """TAN, kDB of the TAN estimator and its structure searches (``"tan-search"``)."""

    k: int = option(
        doc="Parents per attribute besides the class.",
        check=Constraint(lambda v: is_count(v) and v in (0, 1, 2), "0, 1 or 2"),
    )
    structure: str = option(
        "cmi", "How the structure is chosen.", one_of(STRUCTURES, f"one of {list(STRUCTURES)}")
    )
    structure_score: str = option(
        "cr", "The score of a structure search.", one_of(("cr", "cll"), "'cr' or 'cll'")
    )
    structure_folds: int | None = option(
        None, "Folds of the search's step selection.", count(2, none=True)
    )
    early_abandon: bool = option(True, "Stop scoring a candidate once it cannot win.", BOOL)
    parameters: str = option(
        "ml", "How the parameters are learnt.", one_of(("ml", "cl"), "'ml' or 'cl'")
    )
    cl_max_iter: int = option(100, "Iterations of the conditional-likelihood fit.", count(0))
    random_state: Any = option(0, "The seed of the searches' random choices.", RANDOM_STATE)
    searched: Any = option(None, "A structure searched before (kept).", input=True)

    def model_bytes(self, n_categories: Any, n_classes: int) -> float:
        """TAN-CMI (k = 1, ``structure="cmi"``): the statistics' cached informations and
        totals (two (C, d, d) arrays), three (d, d) arrays of the conditional
        informations, and the tables' counts and logs."""
        if self.k == 1 and self.structure == "cmi":
            n_features = len(n_categories)
            informations = 8.0 * n_features * n_features * (2 * n_classes + 3)
            return informations + 2 * table_bytes(n_categories, n_classes)
        return 0.0


@dataclass(frozen=True, kw_only=True)
class KDependenceOptions(SmoothingOptions):
    """kDB with sparse family tables, selective or not (``"k-dependence"``,
    ``"selective-kdb"``)."""

    k: int = option(doc="Parents per attribute besides the class.", check=count(0))
    selective: bool = option(True, "Keep the attribute prefix of least leave-one-out loss.", BOOL)
    selection_loss: str = option(
        "rmse", "The loss of the attribute selection.", one_of(SELECTION_LOSSES)
    )
    order_seed: int | None = option(None, "The seed of a sampled attribute order.")
    held_out: Any = option(False, "Keep the held-out posteriors (True, or of the rows given).")
    pairs: Any = option(None, "The pair tables, counted already.", input=True)


@dataclass(frozen=True, kw_only=True)
class KDBEnsembleOptions(LearnerOptions):
    """The kDB ensemble: its members' options as one value (``estimator``, the
    selective kDB options of every member: ``k``, ``smoothing``, ``selection_loss``; each
    member's ``order_seed`` and ``hdp_seed`` are drawn by the ensemble) and the
    ensemble's own.

    Examples
    --------
    >>> members = KDependenceOptions(k=2, smoothing="dirichlet")
    >>> options = KDBEnsembleOptions(estimator=members, pair_significance=0.001)
    >>> options.estimator.k, options.n_estimators
    (2, 10)
    """

    estimator: KDependenceOptions = option(
        doc="Every member's selective kDB options (the template estimator's)."
    )
    n_estimators: int = option(10, "The number of members.", count(1))
    n_bins: Any = option(4, "Bins of every numeric column (or a range (low, high)).")
    bootstrap: bool = option(False, "Poisson(1) copies of every row per member.", BOOL)
    coarsening: str = option("jittered", "How the members discretise.", one_of(COARSENINGS))
    seed: int = option(0, "The seed of the members' seeds.")
    n_jobs: int | None = option(
        None,
        "Members (and logistic fits) fitted at once.",
        Constraint(
            lambda v: v is None or is_count(v, 1) or (is_real(v) and v == -1),
            "None, -1 or an integer >= 1",
        ),
    )
    linear_weight: float | str = option(
        "auto", "The weight of the linear model.", _real_in(0.0, 1.0, auto=True)
    )
    linear_C: float = option(
        1.0,
        "The inverse L2 penalty of the linear model.",
        Constraint(_positive_finite, "a positive finite number"),
    )
    linear_pairs: int | str = option(
        0, "Pair interactions of the linear model.", count(0, also=("all",))
    )
    pair_weight: float | str = option(
        "auto", "The weight of the pair model.", _real_in(0.0, 1.0, auto=True)
    )
    pair_pooling: str = option("log", "How the pair model pools.", one_of(POOLINGS))
    pair_significance: float | None = option(
        doc="The chi-squared level of a pair.",
        check=_optional(_real_in(0.0, 1.0, closed=False), "None or a number in (0, 1)"),
    )
    pairs_per_column: float | None = option(
        None,
        "Pairs per column of the pair model.",
        _optional(Constraint(_positive_finite, ""), "None or a finite number > 0"),
    )
    binned: tuple[int, ...] = option((), "The binned columns.", input=True)
    values: Any = option(None, "The bins' values of the linear model.", input=True)


@dataclass(frozen=True, kw_only=True)
class LogisticOptions(LearnerOptions):
    """The multinomial logistic model (``"logistic"``)."""

    C: float = option(1.0, "The inverse L2 penalty.")
    n_pairs: int = option(0, "Pair interactions (the most informative first).")
    pair_significance: float | None = option(None, "The chi-squared level of a pair.")
    tolerance: float | None = option(None, "The gradient tolerance (None: the default).")
    lbfgs_iterations: int | None = option(
        None, "L-BFGS iterations at most (None: the default).", count(1, none=True)
    )
    values: Any = option(None, "The numeric value of every code.", input=True)
    start: Any = option(None, "A model to start from (same inputs).", input=True)
    pair_levels: Any = option(None, "The levels of the pairs' columns.", input=True)
    pair_features: Any = option(None, "The columns pairs are taken from.", input=True)
    pair_statistics: Any = option(None, "The pair tables, counted already.", input=True)
    pairs: Any = option(None, "The pairs, ranked already (an array of pairs).", input=True)
    stopping_rows: Any = option(
        None, "Rows whose log-loss stops L-BFGS (early stopping).", input=True
    )


@dataclass(frozen=True, kw_only=True)
class DiscriminativeTreeOptions(ChowLiuOptions):
    """The discriminative tree pairs (``"discriminative-tree"``, ``"-altmax"``)."""

    n_edges: int | str | None = option(
        None,
        "Edges per forest (None: a spanning tree; 'cv': chosen by cross-validation).",
        count(0, none=True, also=("cv",)),
    )
    multiclass: str = option(
        "pairwise", "How several classes split into binary tasks.", one_of(MULTICLASS)
    )
    edge_cost: Any = option(
        0.0,
        "The cost of an edge (a number or a matrix).",
        Constraint(
            numbers_only,
            "a non-negative number or an (n_features, n_features) matrix of them",
        ),
    )
    cost_accounting: str = option(
        "per-forest",
        "Which forest an edge's cost is charged to.",
        one_of(("per-forest", "union"), "'per-forest' or 'union'"),
    )
    max_alternations: int = option(20, "Rounds of alternating maximisation.", count(1))
    structure_alpha: float | None = option(None, "The pseudo-count of the structure.")
    classes: Any = option(None, "The class labels.", input=True)
    pairs: Any = option(None, "The pair tables, counted already.", input=True)

    def model_bytes(self, n_categories: Any, n_classes: int) -> float:
        """The weights of eq. 21 of a binary problem (two (d, d) arrays), their sum per
        class and ``edge_weights_`` (two (C, d, d) arrays); each problem's two-class
        tables (a copy unless binary) and its forest pair."""
        n_features = len(n_categories)
        n_tasks = len(binary_tasks(n_classes, self.multiclass))
        weights = 8.0 * n_features * n_features * (2 * n_classes + 2)
        pair_tables = 0.0 if n_classes == 2 else 16.0 * float(np.sum(n_categories)) ** 2
        return weights + pair_tables + n_tasks * 2 * table_bytes(n_categories, 2)


@dataclass(frozen=True, kw_only=True)
class BoostingOptions(SmoothingOptions):
    """AdaBoost of discriminative trees or forests (``"boosting"``)."""

    base: str = option("dt", "The weak learner.", _sorted_choice(("dt", "chow-liu", "tan")))
    algorithm: str = option(
        "real", "Real or Discrete AdaBoost.", _sorted_choice(("real", "discrete"))
    )
    n_estimators: int = option(10, "The number of rounds.", count(1))
    init: str = option("prior", "The starting score.", _sorted_choice(("prior", "zero")))
    multiclass: str = option(
        "pairwise", "How several classes split into binary tasks.", _sorted_choice(MULTICLASS)
    )


@dataclass(frozen=True, kw_only=True)
class EARTreeOptions(SmoothingOptions):
    """The EAR tree (``"ear-tree"``)."""

    distribution: str = option("discrete", "Discrete tables or Gaussians.")
    minimizer: str = option("min-norm", "The submodular minimiser.", one_of(tuple(MINIMIZERS)))
    split_search: str = option(
        "sub-sup", "How a separator is searched.", one_of(("sub-sup", "exhaustive"))
    )
    n_permutations: int = option(3, "Random orders of the search.", count(1))
    random_state: Any = option(0, "The seed of the search.", RANDOM_STATE)
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
