"""The checks of a fitted classifier loaded from a model file, which every estimator
of :class:`~discotree.classifiers._base.DiscreteForestClassifierBase` has from
:class:`EstimatorFileChecks` (the file reader calls them on the state of every
estimator it loads).

What an estimator's file must hold is class-level data, read by these checks: the
fitted attributes every classifier's predictions read (:data:`REQUIRED`), those its
own predictions also read (``_FITTED_READS``: ``model_`` unless it says otherwise;
``_FITTED_READS_TWO_CLASSES`` with two classes only), and its binary problems
(``_BINARY_PROBLEMS``: attribute, class). A new estimator derived from the base is
checked as strictly as the shipped ones with no edit here nor in ``io/``.

Examples
--------
>>> import numpy as np
>>> from discotree import NaiveBayesClassifier
>>> clf = NaiveBayesClassifier().fit(np.array([[0], [1], [1]]), [0, 1, 1])
>>> NaiveBayesClassifier.check_state_numbers(vars(clf), "content")
>>> clf.class_log_prior_ = None
>>> NaiveBayesClassifier.check_state_numbers(vars(clf), "content")
Traceback (most recent call last):
...
ValueError: content.class_log_prior_: null; a fitted NaiveBayesClassifier needs it
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from ..models.category_maps import mapped_categories
from ..models.ensemble import POOLINGS, KDBEnsembleModel
from ..models.logistic import input_offsets
from ..models.protocol import declared_sizes
from ..stored_checks import (
    check_class_prior,
    check_counts,
    check_shape,
    fail,
    integer,
    numbers,
)

__all__ = ["REQUIRED", "STREAMING", "EstimatorFileChecks"]

#: The fitted attributes every fitted classifier's predictions read: present, not null.
REQUIRED = ("classes_", "encoder_", "n_features_in_", "class_count_", "class_log_prior_")
#: What a classifier whose ``partial_fit`` has new rows not learnt yet holds (the
#: rest is learnt when it is first used).
STREAMING = ("classes_", "encoder_", "n_features_in_", "_stream")
#: The fitted numbers every classifier may hold: (name, low, high, low excluded).
_SCALARS = (
    ("calibration_scale_", 0.0, 1e100, True),
    ("alpha_", 0.0, 1e100, False),
    ("linear_weight_", 0.0, 1.0, False),
    ("pair_weight_", 0.0, 1.0, False),
    ("_epsilon", 0.0, 1.0, False),
)


class EstimatorFileChecks:
    """The checks of a loaded classifier's state (its attributes as the file holds
    them), from its class-level data (see the module notes): an unfitted one (no
    fitted attribute) passes. The reader calls :meth:`check_state_structure` on every
    estimator of a file, with the other objects' ``check_structure``
    (:class:`~discotree.stored_checks.CheckedState`), then :meth:`check_state_numbers`."""

    __slots__ = ()

    #: The fitted attributes its predictions read besides :data:`REQUIRED`.
    _FITTED_READS: ClassVar[tuple[str, ...]] = ("model_",)
    #: Those it also reads when it has two classes.
    _FITTED_READS_TWO_CLASSES: ClassVar[tuple[str, ...]] = ()
    #: Its binary problems: the attribute holding the list, and the class of each.
    _BINARY_PROBLEMS: ClassVar[tuple[tuple[str, type], ...]] = ()

    @classmethod
    def check_state_structure(cls, state: dict[str, Any], where: str) -> None:
        """``classes_``, ``n_features_in_`` and the feature names, and the classes and
        categories of the model and encoder against each other."""
        _check_classifier(state, where)

    @classmethod
    def check_state_numbers(cls, state: dict[str, Any], where: str) -> None:
        """Every fitted attribute the predictions read present and not null, the
        class weights and prior, the fitted scalars, the binary problems."""
        if not any(k.endswith("_") and k[0] != "_" for k in state):
            return
        _check_required(cls, state, where)
        _check_class_weights(state, where)
        _check_scalars(state, where)
        for name, kind in cls._BINARY_PROBLEMS:
            _check_binary_problems(state, name, kind, where)


def _check_required(cls: type[EstimatorFileChecks], state: dict[str, Any], where: str) -> None:
    """Every fitted attribute the predictions read, and every one the fit recorded
    (``_fitted_state_names``), present; the former not null."""
    if state.get("_stream_stale", False) is True:
        names: tuple[str, ...] = STREAMING
    else:
        names = REQUIRED + cls._FITTED_READS
        if len(state.get("classes_", ())) == 2:
            names += cls._FITTED_READS_TWO_CLASSES
        recorded = state.get("_fitted_state_names", ())
        if isinstance(recorded, tuple | list):
            for name in recorded:
                if isinstance(name, str) and name.endswith("_") and name[0] != "_":
                    if name not in state:
                        raise fail(f"{where}.{name}", "missing (the fit set it)")
    for name in names:
        if state.get(name) is None:
            found = "null" if name in state else "missing"
            raise fail(f"{where}.{name}", f"{found}; a fitted {cls.__name__} needs it")


def _check_class_weights(state: dict[str, Any], where: str) -> None:
    """``class_count_`` weights >= 0 of the classes, not all 0; ``class_log_prior_``
    a distribution, ``-inf`` only for a class without weight."""
    n_classes = len(state["classes_"])
    count = state.get("class_count_")
    if count is not None:
        count = numbers(count, f"{where}.class_count_", low=0.0)
        if count.shape != (n_classes,) or not count.sum() > 0:
            raise fail(f"{where}.class_count_", f"needs {n_classes} weights, not all 0")
    prior = state.get("class_log_prior_")
    if prior is not None:
        prior = check_class_prior(prior, f"{where}.class_log_prior_")
        if prior.shape != (n_classes,):
            raise fail(f"{where}.class_log_prior_", f"needs {n_classes} log-probabilities")
        if count is not None and (np.isneginf(prior) & (count > 0)).any():
            c = int(np.argmax(np.isneginf(prior) & (count > 0)))
            raise fail(f"{where}.class_log_prior_", f"is -inf for class {c}, which has weight")


def _check_scalars(state: dict[str, Any], where: str) -> None:
    """The fitted numbers: positive calibration scale, alpha >= 0, weights in [0, 1]."""
    for name, low, high, above in _SCALARS:
        value = state.get(name)
        if value is not None and not isinstance(value, str):  # alpha="auto" unfitted
            numbers(value, f"{where}.{name}", low=low, high=high, above=above)
    counts, encoder = state.get("n_categories_"), state.get("encoder_")
    theirs = getattr(encoder, "n_categories_", None)
    if counts is not None and theirs is not None and not np.array_equal(counts, theirs):
        raise fail(f"{where}.n_categories_", "differ from the encoder's")


def _check_binary_problems(state: dict[str, Any], name: str, kind: type[Any], where: str) -> None:
    """The class indices of each binary problem among the classes."""
    n_classes = len(state["classes_"])
    problems = state.get(name)
    if problems is None:
        return
    if not isinstance(problems, list) or not problems:
        raise fail(f"{where}.{name}", "needs at least one binary problem")
    for t, problem in enumerate(problems):
        label = f"{where}.{name}[{t}]"
        if not isinstance(problem, kind):
            raise fail(label, f"must be a {kind.__name__}")
        positive = integer(problem.positive, f"{label}.positive", 0, n_classes)
        negative = integer(problem.negative, f"{label}.negative", -1, n_classes)
        if positive == negative:
            raise fail(f"{label}.negative", "is the positive class")


def _check_ensemble(model: Any, encoder: Any, where: str) -> None:
    """Each member's coarsening maps against the encoder's fine categories and the
    member's own."""
    counts = getattr(encoder, "n_categories_", None)
    if len(model.maps) != len(model.members):
        raise fail(f"{where}.model_", "needs one list of maps per member")
    for m, (maps, member) in enumerate(zip(model.maps, model.members, strict=True)):
        if counts is None:
            continue
        if len(maps) != len(counts) or any(
            table is not None
            and (len(table) != int(r) or table.min() < 0 or (np.diff(table) < 0).any())
            for table, r in zip(maps, counts, strict=True)
        ):
            raise fail(f"{where}.model_.maps[{m}]", "must map every fine bin, in order")
        if not np.array_equal(mapped_categories(counts, maps), member.n_categories):
            raise fail(f"{where}.model_.members[{m}]", "has categories its maps do not give")
    for member, weight in (("linear", "linear_weight"), ("pair_member", "pair_weight")):
        value = getattr(model, weight)
        if not isinstance(value, float) or not 0.0 <= value <= 1.0:
            raise fail(f"{where}.model_.{weight}", "must be a number in [0, 1]")
        fitted = getattr(model, member)
        if fitted is not None:
            _check_linear(fitted, counts, len(model.class_log_prior), f"{where}.model_.{member}")
    if model.pair_pooling not in POOLINGS:
        raise fail(f"{where}.model_.pair_pooling", f"must be one of {POOLINGS}")


def _check_linear(linear: Any, counts: Any, n_classes: int, where: str) -> None:
    """The linear member's categories against the encoder's, and its weights' shapes
    against its inputs."""
    n_categories = check_counts(linear.n_categories, f"{where}.n_categories")
    if counts is not None and not np.array_equal(n_categories, counts):
        raise fail(f"{where}.n_categories", "differ from the encoder's categories")
    if len(linear.values) != len(n_categories) or any(
        v is not None and (not isinstance(v, np.ndarray) or v.shape != (int(r),))
        for v, r in zip(linear.values, n_categories, strict=False)
    ):
        raise fail(f"{where}.values", "needs one value per category of each valued feature")
    pairs, pair_levels = linear.pairs, linear.pair_levels
    if not (
        isinstance(pairs, np.ndarray)
        and pairs.ndim == 2
        and pairs.shape[1] == 2
        and np.issubdtype(pairs.dtype, np.integer)
        and ((pairs >= 0) & (pairs < len(n_categories))).all()
        and (pairs[:, 0] != pairs[:, 1]).all()
    ):
        raise fail(f"{where}.pairs", "must be (pairs, 2) indices of two different features")
    if not isinstance(pair_levels, list) or (
        pair_levels
        and (
            len(pair_levels) != len(n_categories)
            or any(
                m is not None
                and (
                    not isinstance(m, np.ndarray)
                    or not np.issubdtype(m.dtype, np.integer)
                    or m.shape != (int(r),)
                    or (r and m.min() < 0)
                )
                for m, r in zip(pair_levels, n_categories, strict=True)
            )
        )
    ):
        raise fail(f"{where}.pair_levels", "needs one level >= 0 per category of each feature")
    n_inputs = int(input_offsets(n_categories, linear.values, pairs, pair_levels)[-1])
    check_shape(linear.coef, (n_inputs, n_classes), f"{where}.coef")
    check_shape(linear.intercept, (n_classes,), f"{where}.intercept")


def _check_feature_names(names: Any, n_features: Any, where: str) -> None:
    """scikit-learn's ``feature_names_in_``: distinct strings, one per feature."""
    if not isinstance(names, np.ndarray) or names.ndim != 1:
        raise fail(where, "must be a 1-D array of the features' names")
    values = names.tolist()
    bad = [v for v in values if not isinstance(v, str)]
    if bad:
        raise fail(where, f"must be strings, found {bad[0]!r}")
    if len(set(values)) != len(values):
        raise fail(where, "holds a name twice")
    if isinstance(n_features, int) and len(values) != n_features:
        raise fail(where, f"{len(values)} names but n_features_in_ is {n_features}")


def _check_classifier(state: dict[str, Any], where: str) -> None:
    """``classes_`` against the classes of the estimator's model, and its encoder's
    categories against the model's: what the model declares
    (:func:`~discotree.models.protocol.declared_sizes`; nothing for a model that
    declares none)."""
    if "classes_" not in state:
        return
    classes = state["classes_"]
    if not isinstance(classes, np.ndarray) or classes.ndim != 1 or len(classes) < 1:
        raise fail(f"{where}.classes_", "must be a 1-D array of at least one label")
    if len(set(classes.tolist())) != len(classes):
        raise fail(f"{where}.classes_", "holds a label twice")
    n_features = state.get("n_features_in_")
    if n_features is not None and (not isinstance(n_features, int) or n_features < 1):
        raise fail(f"{where}.n_features_in_", f"must be a positive integer, got {n_features!r}")
    if "feature_names_in_" in state:
        _check_feature_names(state["feature_names_in_"], n_features, f"{where}.feature_names_in_")
    model = state.get("model_")
    encoder = state.get("encoder_")
    if isinstance(model, KDBEnsembleModel):
        _check_ensemble(model, encoder, where)
    sizes = declared_sizes(model)
    if sizes is not None:
        n_classes, n_categories = sizes
        if n_classes != len(classes):
            raise fail(f"{where}.classes_",
                        f"{len(classes)} labels but the model has {n_classes} classes")  # fmt: skip
        counts = getattr(encoder, "n_categories_", None)
        if (
            counts is not None
            and n_categories is not None
            and not np.array_equal(counts, n_categories)
        ):
            raise fail(f"{where}.encoder_.n_categories_",
                        f"{np.asarray(counts).tolist()} against the model's "
                        f"{np.asarray(n_categories).tolist()}")  # fmt: skip
    if n_features is not None and encoder is not None and hasattr(encoder, "columns_"):
        if len(encoder.columns_) != n_features:
            found = len(encoder.columns_)
            raise fail(f"{where}.encoder_", f"{found} columns but n_features_in_ is {n_features}")
