"""The rules across the estimators' parameters (``discotree.learners.parameter_rules``):
the reasons an estimator gives for no ``partial_fit``, ``predict_uncertainty`` or joint
distribution are the ones it gave as methods, word for word (the methods' bodies are
kept here as the oracles), and TAN's memory estimate moved to its options unchanged."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sklearn.datasets import load_iris

from discotree import (
    DiscriminativeTreeClassifier,
    KDBClassifier,
    NaiveBayesClassifier,
    TANClassifier,
)
from discotree.learners.options import DiscriminativeTreeOptions, TANOptions, table_bytes
from discotree.learners.parameter_rules import (
    BACKOFF_SMOOTHINGS,
    TAN_UNCERTAINTY,
    Rule,
    first_reason,
)

STREAMING = (
    "only structure='cmi' with parameters='ml' is learnt from counts (the "
    "discriminative searches and CL parameters score the training rows)."
)
GAUSSIAN = "distribution='gaussian' standardises with the moments of all the data."


def _old_tan_uncertainty(e: TANClassifier) -> str | None:
    """``TANClassifier._uncertainty_unavailable`` as a method (before the rules)."""
    if e.distribution != "discrete":
        return f"distribution={e.distribution!r}"
    if e.parameters != "ml":
        return f"parameters={e.parameters!r}"
    if e.k == 0 or (e.k == 1 and e.structure == "cmi"):
        return None
    if e.k == 1 and e.smoothing in BACKOFF_SMOOTHINGS:
        return None
    if e.k == 1:
        return f"structure={e.structure!r} with smoothing={e.smoothing!r}"
    return f"k={e.k!r}"


def _old_tan_streaming(e: TANClassifier) -> str | None:
    if e.distribution != "discrete":
        return GAUSSIAN
    if e.structure != "cmi" or e.parameters != "ml":
        return STREAMING
    return None


TAN_GRID = list(
    itertools.product(
        (0, 1, 2),
        ("cmi", "cr", "omi-crcl"),
        ("ml", "cl"),
        ("dirichlet", "hierarchical", "hdp"),
        ("discrete", "gaussian"),
    )
)


@pytest.mark.parametrize(("k", "structure", "parameters", "smoothing", "distribution"), TAN_GRID)
def test_tan_reasons_are_the_methods_reasons(k, structure, parameters, smoothing, distribution):
    tan = TANClassifier(
        k=k,
        structure=structure,
        parameters=parameters,
        smoothing=smoothing,
        distribution=distribution,
    )
    assert tan._uncertainty_unavailable() == _old_tan_uncertainty(tan)
    assert first_reason(TAN_UNCERTAINTY, tan) == _old_tan_uncertainty(tan)
    assert tan._partial_fit_unsupported() == _old_tan_streaming(tan)
    assert hasattr(tan, "partial_fit") == (_old_tan_streaming(tan) is None)


@pytest.mark.parametrize(
    ("params", "reason"),
    [
        ({"k": 0, "structure": "cr"}, STREAMING),
        ({"k": 1, "structure": "cr"}, STREAMING),
        ({"k": 1, "parameters": "cl"}, STREAMING),
        ({"k": 1, "distribution": "gaussian"}, GAUSSIAN),
    ],
)
def test_tan_refuses_partial_fit_as_before(params, reason):
    tan = TANClassifier(**params)
    message = (
        f"TANClassifier has no partial_fit with these parameters: {reason} Fit on a sample "
        "of the data instead."
    )
    with pytest.raises(AttributeError) as info:
        tan.partial_fit  # noqa: B018
    assert str(info.value) == message
    with pytest.raises(ValueError) as spec_info:
        tan.learner_spec()
    assert str(spec_info.value) == f"TANClassifier: {reason} Fit on a sample instead."


def test_tan_with_k_0_and_cmi_streams():
    X, y = load_iris(return_X_y=True)
    tan = TANClassifier(k=0, alpha=1.0).partial_fit(X, y, classes=np.unique(y))
    assert tan.learner_spec().learner == "naive-bayes"


CV = "n_edges='cv' refits on folds of the rows."
ALTMAX = "parameters='altmax' minimises a bound over the training rows."


@pytest.mark.parametrize(
    ("params", "reason"),
    [
        ({"n_edges": "cv"}, CV),
        ({"n_edges": "cv", "distribution": "gaussian"}, CV),
        ({"parameters": "altmax"}, ALTMAX),
        ({"distribution": "gaussian"}, GAUSSIAN),
        ({}, None),
    ],
)
def test_discriminative_tree_streaming_reasons(params, reason):
    tree = DiscriminativeTreeClassifier(**params)
    assert tree._partial_fit_unsupported() == reason


def test_discriminative_tree_uncertainty_and_joint_reasons():
    X, y = load_iris(return_X_y=True)
    assert DiscriminativeTreeClassifier(distribution="gaussian")._uncertainty_unavailable() == (
        "distribution='gaussian'"
    )
    assert DiscriminativeTreeClassifier(parameters="altmax")._uncertainty_unavailable() == (
        "parameters='altmax'"
    )
    tree = DiscriminativeTreeClassifier(alpha=1.0)
    assert tree._uncertainty_unavailable() is None and tree._joint_unavailable() is None
    tree.fit(X, y)  # three classes
    assert tree._uncertainty_unavailable() == (
        "more than two classes: composite scores of pairs of forests"
    )
    assert tree._joint_unavailable().startswith("predict_joint_log_proba is defined for two")
    assert not hasattr(tree, "predict_uncertainty")


def test_the_other_estimators_reasons():
    assert NaiveBayesClassifier()._uncertainty_unavailable() is None
    assert KDBClassifier(smoothing="hdp")._uncertainty_unavailable() == (
        "smoothing='hdp': its tables hold estimates, not counts"
    )
    assert KDBClassifier()._uncertainty_unavailable() is None


def test_a_rule_formats_its_message_with_the_parameters():
    rule = Rule(lambda e: e.k == 2, "k={k!r} here")
    assert rule.reason(TANClassifier(k=2)) == "k=2 here"
    assert rule.reason(TANClassifier(k=1)) is None
    with pytest.raises(ValueError, match=r"^TANClassifier: k=2 here$"):
        rule.check(TANClassifier(k=2))
    assert first_reason((), TANClassifier()) is None


def _old_tan_bytes(k, structure, n_categories, n_classes):
    if k == 1 and structure == "cmi":
        n_features = len(n_categories)
        informations = 8.0 * n_features * n_features * (2 * n_classes + 3)
        return informations + 2 * table_bytes(n_categories, n_classes)
    return 0.0


@pytest.mark.parametrize(("k", "structure"), [(0, "cmi"), (1, "cmi"), (1, "cr"), (2, "cmi")])
@pytest.mark.parametrize("parameters", ["ml", "cl"])
def test_the_model_memory_moved_to_the_options(k, structure, parameters):
    r = np.array([3, 4, 2, 5], dtype=np.intp)
    options = TANOptions(k=k, structure=structure, parameters=parameters)
    assert options.model_bytes(r, 3) == _old_tan_bytes(k, structure, r, 3)
    tan = TANClassifier(k=k, structure=structure, parameters=parameters)
    assert tan._model_memory_bytes(r, 3) == _old_tan_bytes(k, structure, r, 3)


@pytest.mark.parametrize(("n_classes", "n_tasks"), [(2, 1), (3, 3), (4, 6)])
def test_the_discriminative_tree_memory(n_classes, n_tasks):
    r = np.array([3, 4, 2], dtype=np.intp)
    weights = 8.0 * 9 * (2 * n_classes + 2)
    pair_tables = 0.0 if n_classes == 2 else 16.0 * 9.0**2
    expected = weights + pair_tables + n_tasks * 2 * table_bytes(r, 2)
    assert DiscriminativeTreeOptions().model_bytes(r, n_classes) == expected
    assert DiscriminativeTreeClassifier()._model_memory_bytes(r, n_classes) == expected
