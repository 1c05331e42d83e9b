"""The numeric check of a JSON model file's estimators and of the objects that are
not models (the rules of :mod:`discotree.io.model_numbers`): the fitted attributes a
classifier's predictions read, present and not null; its class weights and prior; the
binary problems of the discriminative trees and of boosting; statistics, encoders and
streaming state. :func:`check_numbers` runs every check of both modules over a loaded
file's content.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import classifiers
from ..classifiers import StreamState
from ..models.boosted_ensemble import BoostedEnsemble, BoostingRound
from ..models.file_checks import StoredModel
from ..models.forest_pairs import ForestPair
from ..models.lgmht_altmax import AltmaxResult
from ..stats.family_tables import SparseFamilyTable
from ..stats.gaussian import GaussianStatistics
from ..stats.pair_statistics import PairStatistics
from ..structure.discriminative import ForestPath
from ..structure.ear import EARSplit
from ..transformers.discretizer import Discretizer
from ..transformers.encoder import NumericEncoder, TableEncoder
from .model_checks import walk_objects
from .model_numbers import check_class_prior, integer, numbers

__all__ = ["CHECKS", "REQUIRED", "check_numbers", "check_object_numbers"]

#: The fitted attributes every fitted classifier's predictions read: present, not null.
REQUIRED = ("classes_", "encoder_", "n_features_in_", "class_count_", "class_log_prior_")
#: Those a classifier also reads (``model_`` unless listed here; the discriminative
#: trees have one with two classes only).
_ALSO_REQUIRED = {
    "BoostedGraphicalModelClassifier": ("ensembles_", "calibration_scale_"),
    "DiscriminativeTreeClassifier": ("forest_pairs_", "calibration_scale_"),
}
#: The classifiers a JSON model file may hold.
_CLASSIFIERS = (
    "NaiveBayesClassifier",
    "ChowLiuClassifier",
    "TANClassifier",
    "DiscriminativeTreeClassifier",
    "BoostedGraphicalModelClassifier",
    "EARTreeClassifier",
    "KDBClassifier",
    "AODEClassifier",
    "KDBEnsembleClassifier",
)
#: What a classifier whose ``partial_fit`` has new rows not learnt yet holds (the
#: rest is learnt when it is first used).
_STREAMING = ("classes_", "encoder_", "n_features_in_", "_stream")


def _fail(where: str, why: str) -> ValueError:
    return ValueError(f"{where}: {why}")


def _required(estimator: Any, where: str) -> None:
    """Every fitted attribute the predictions read, and every one the fit recorded
    (``_fitted_state_names``), present; the former not null."""
    state = vars(estimator)
    if state.get("_stream_stale", False) is True:
        names: tuple[str, ...] = _STREAMING
    else:
        names = REQUIRED + _ALSO_REQUIRED.get(type(estimator).__name__, ("model_",))
        tree = isinstance(estimator, classifiers.DiscriminativeTreeClassifier)
        if tree and len(getattr(estimator, "classes_", ())) == 2:
            names += ("model_",)
        recorded = state.get("_fitted_state_names", ())
        if isinstance(recorded, tuple | list):
            for name in recorded:
                if isinstance(name, str) and name.endswith("_") and name[0] != "_":
                    if name not in state:
                        raise _fail(f"{where}.{name}", "missing (the fit set it)")
    for name in names:
        if state.get(name) is None:
            found = "null" if name in state else "missing"
            raise _fail(f"{where}.{name}", f"{found}; a fitted {type(estimator).__name__} "
                        "needs it")  # fmt: skip


def _class_weights(estimator: Any, where: str) -> None:
    """``class_count_`` weights >= 0 of the classes, not all 0; ``class_log_prior_``
    a distribution, ``-inf`` only for a class without weight."""
    state, n_classes = vars(estimator), len(estimator.classes_)
    count = state.get("class_count_")
    if count is not None:
        count = numbers(count, f"{where}.class_count_", low=0.0)
        if count.shape != (n_classes,) or not count.sum() > 0:
            raise _fail(f"{where}.class_count_", f"needs {n_classes} weights, not all 0")
    prior = state.get("class_log_prior_")
    if prior is not None:
        prior = check_class_prior(prior, f"{where}.class_log_prior_")
        if prior.shape != (n_classes,):
            raise _fail(f"{where}.class_log_prior_", f"needs {n_classes} log-probabilities")
        if count is not None and (np.isneginf(prior) & (count > 0)).any():
            c = int(np.argmax(np.isneginf(prior) & (count > 0)))
            raise _fail(f"{where}.class_log_prior_", f"is -inf for class {c}, which has weight")


def _scalars(estimator: Any, where: str) -> None:
    """The fitted numbers: positive calibration scale, alpha >= 0, weights in [0, 1]."""
    state = vars(estimator)
    for name, low, high, above in (
        ("calibration_scale_", 0.0, 1e100, True),
        ("alpha_", 0.0, 1e100, False),
        ("linear_weight_", 0.0, 1.0, False),
        ("pair_weight_", 0.0, 1.0, False),
        ("_epsilon", 0.0, 1.0, False),
    ):
        value = state.get(name)
        if value is not None and not isinstance(value, str):  # alpha="auto" unfitted
            numbers(value, f"{where}.{name}", low=low, high=high, above=above)
    counts, encoder = state.get("n_categories_"), state.get("encoder_")
    theirs = getattr(encoder, "n_categories_", None)
    if counts is not None and theirs is not None and not np.array_equal(counts, theirs):
        raise _fail(f"{where}.n_categories_", "differ from the encoder's")


def _binary_problems(estimator: Any, where: str) -> None:
    """The class indices of each binary problem among the classes."""
    n_classes = len(estimator.classes_)
    state = vars(estimator)
    for name, kind in (("forest_pairs_", ForestPair), ("ensembles_", BoostedEnsemble)):
        problems = state.get(name)
        if problems is None:
            continue
        if not isinstance(problems, list) or not problems:
            raise _fail(f"{where}.{name}", "needs at least one binary problem")
        for t, problem in enumerate(problems):
            label = f"{where}.{name}[{t}]"
            if not isinstance(problem, kind):
                raise _fail(label, f"must be a {kind.__name__}")
            positive = integer(problem.positive, f"{label}.positive", 0, n_classes)
            negative = integer(problem.negative, f"{label}.negative", -1, n_classes)
            if positive == negative:
                raise _fail(f"{label}.negative", "is the positive class")


def _estimator(estimator: Any, where: str) -> None:
    """A fitted classifier: its attributes (see :data:`REQUIRED`), class weights,
    fitted numbers and binary problems; an unfitted one (no fitted attribute) passes."""
    if not any(k.endswith("_") and k[0] != "_" for k in vars(estimator)):
        return
    _required(estimator, where)
    _class_weights(estimator, where)
    _scalars(estimator, where)
    _binary_problems(estimator, where)


def _sparse_table(table: SparseFamilyTable, where: str) -> None:
    """Counts (or, in an HDP model, probabilities): finite and >= 0."""
    numbers(table.masses, f"{where}.masses", low=0.0)


def _pair_statistics(stats: PairStatistics, where: str) -> None:
    numbers(stats.counts, f"{where}.counts", low=0.0)
    if stats.class_weight is not None:
        numbers(stats.class_weight, f"{where}.class_weight", low=0.0)
    state = vars(stats)
    if "_offsets" in state:  # a cache of the file's: the categories' offsets
        offsets = np.concatenate([[0], np.cumsum(stats.n_categories)])
        if not np.array_equal(state["_offsets"], offsets):
            raise _fail(f"{where}._offsets", "are not the offsets of n_categories")
    if "_diagonal" in state:
        numbers(state["_diagonal"], f"{where}._diagonal", low=0.0)


def _gaussian_statistics(stats: GaussianStatistics, where: str) -> None:
    numbers(stats.weight, f"{where}.weight", low=0.0)
    for name in ("sum_x", "sum_xx", "sum_xy"):
        numbers(getattr(stats, name), f"{where}.{name}")


def _stream(stream: StreamState, where: str) -> None:
    numbers(stream.class_weight, f"{where}.class_weight", low=0.0)
    numbers(stream.counts, f"{where}.counts", low=0.0)
    integer(stream.n_rows, f"{where}.n_rows", 0, 2**63)


def _numeric_encoder(encoder: NumericEncoder, where: str) -> None:
    """The standardisation: finite offsets, positive scales."""
    state = vars(encoder)
    for name, positive in (
        ("offset_", False),
        ("scale_", True),
        ("_magnitude", True),
        ("_centre", False),
        ("_sd", True),
    ):
        if name in state:
            numbers(state[name], f"{where}.{name}", low=0.0 if positive else -1e100, above=positive)


def _table_encoder(encoder: TableEncoder, where: str) -> None:
    """Fitted: the binned columns among the columns, each once."""
    state = vars(encoder)
    if "binned_columns_" not in state or "columns_" not in state:
        return
    binned = np.asarray(state["binned_columns_"])
    n_columns = len(state["columns_"])
    if (
        binned.ndim != 1
        or (binned.size and binned.dtype.kind not in "iu")
        or ((binned < 0) | (binned >= n_columns)).any()
        or len(np.unique(binned)) != len(binned)
    ):
        raise _fail(f"{where}.binned_columns_", f"must be distinct columns in [0, {n_columns})")


def _discretizer(discretizer: Discretizer, where: str) -> None:
    """Fitted: increasing finite bin edges, at least one bin per column."""
    edges = vars(discretizer).get("bin_edges_")
    for j, column in enumerate(edges if isinstance(edges, list) else []):
        column = numbers(column, f"{where}.bin_edges_[{j}]")
        if (np.diff(column) <= 0).any():
            raise _fail(f"{where}.bin_edges_[{j}]", "must increase")
    if "n_bins_" in vars(discretizer):
        numbers(discretizer.n_bins_, f"{where}.n_bins_", low=1.0)


def _one(attribute: str, low: float = -1e100) -> Callable[[Any, str], None]:
    def check(obj: Any, where: str) -> None:
        value = getattr(obj, attribute)
        for k, item in enumerate(value if isinstance(value, list) else [value]):
            label = f"{where}.{attribute}" + (f"[{k}]" if isinstance(value, list) else "")
            numbers(item, label, low=low)

    return check


CHECKS: dict[type, Callable[[Any, str], None]] = {
    **{getattr(classifiers, name): _estimator for name in _CLASSIFIERS},
    SparseFamilyTable: _sparse_table,
    PairStatistics: _pair_statistics,
    GaussianStatistics: _gaussian_statistics,
    StreamState: _stream,
    NumericEncoder: _numeric_encoder,
    TableEncoder: _table_encoder,
    Discretizer: _discretizer,
    ForestPath: _one("weights"),
    ForestPair: _one("j_path"),
    BoostingRound: _one("alpha"),
    BoostedEnsemble: _one("init_score"),
    AltmaxResult: _one("theta"),
    EARSplit: _one("value"),
}


def check_object_numbers(obj: Any, where: str) -> None:
    """The numeric check of ``obj``'s kind (nothing for kinds without numbers): a
    model's (its ``check_numbers``) or another object's (:data:`CHECKS`)."""
    if isinstance(obj, StoredModel):  # a model checks its own numbers
        obj.check_numbers(where)
        return
    for klass in type(obj).__mro__:
        check = CHECKS.get(klass)
        if check is not None:
            check(obj, where)
            return


def check_numbers(content: Any, where: str = "content") -> None:
    """Refuse a loaded file's content whose numbers no fitted model holds (see
    :mod:`discotree.io.model_numbers`): every object in ``content``, each by the check
    of its kind.

    Raises
    ------
    ValueError
        Naming the field (``content.model_.parent_log: holds nan at [0, 3]; ...``).

    Examples
    --------
    >>> import numpy as np
    >>> check_numbers({"weights": np.array([1.0, 2.0])})  # no model: nothing to check
    """
    for path, obj in walk_objects(content, where):
        check_object_numbers(obj, path)
