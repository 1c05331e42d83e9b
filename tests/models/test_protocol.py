"""The scoring protocol: every fitted model declares ``class_scores`` and its kind, and
the estimators' ``predict*`` follow from them (defined once, in the bases)."""

import ast
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy.special import logsumexp

from discotree import (
    AODEClassifier,
    BoostedGraphicalModelClassifier,
    ChowLiuClassifier,
    DiscriminativeTreeClassifier,
    EARTreeClassifier,
    ForestDensityClassifier,
    KDBClassifier,
    KDBEnsembleClassifier,
    KernelNaiveBayesClassifier,
    NaiveBayesClassifier,
    TANClassifier,
)
from discotree.models.protocol import (
    SCORE_KINDS,
    ScoringModel,
    check_score_kind,
)
from discotree.numerics import normalise_log

CLASSIFIERS = Path(__file__).resolve().parents[2] / "src" / "discotree" / "classifiers"
PREDICTIONS = {
    "predict",
    "predict_proba",
    "predict_log_proba",
    "predict_joint_log_proba",
    "decision_function",
}


def _data(rng, n=200, n_classes=2):
    X = rng.integers(0, 3, (n, 4)).astype(float)
    y = (X[:, 0] + X[:, 1] + rng.integers(0, 2, n)) % n_classes
    return X, y


def test_predictions_are_defined_only_in_the_bases():
    owners = {}
    for path in CLASSIFIERS.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, ast.FunctionDef) and item.name in PREDICTIONS:
                        owners.setdefault(item.name, set()).add(f"{path.name}:{node.name}")
    assert owners["predict_joint_log_proba"] == {"_prediction.py:ScoredPredictionMixin"}
    for name in PREDICTIONS:  # the baselines delegate to their scikit-learn pipeline
        assert owners.get(name, set()) <= {
            "_prediction.py:ScoredPredictionMixin",
            "baselines.py:_AnyColumns",
        }


@pytest.mark.parametrize(
    "estimator, kind",
    [
        (NaiveBayesClassifier(), "joint"),
        (ChowLiuClassifier(), "joint"),
        (TANClassifier(), "joint"),
        (TANClassifier(distribution="gaussian"), "joint"),
        (EARTreeClassifier(), "joint"),
        (KDBClassifier(), "joint"),
        (AODEClassifier(), "joint"),
        (AODEClassifier(n_super_parents=2), "joint"),
        (DiscriminativeTreeClassifier(), "joint"),
        (KDBEnsembleClassifier(n_estimators=2), "posterior"),
    ],
)
def test_fitted_models_follow_the_protocol(rng, estimator, kind):
    X, y = _data(rng)
    clf = estimator.fit(X, y)
    model = clf.model_
    assert isinstance(model, ScoringModel) and model.score_kind == kind
    codes = clf._encode(X)
    scores = model.class_scores(codes, clf.class_log_prior_)
    assert scores.shape == (len(X), 2)
    if kind == "joint":
        assert_array_equal(scores, model.log_likelihood(codes) + clf.class_log_prior_)
        assert hasattr(clf, "predict_joint_log_proba")
    else:  # a posterior: normalised, and no joint
        assert_allclose(logsumexp(scores, axis=1), 0.0, atol=1e-12)
        assert not hasattr(clf, "predict_joint_log_proba")
        with pytest.raises(AttributeError, match="'posterior'"):
            clf.predict_joint_log_proba(X)
    estimated, estimated_kind = clf._class_scores(X)  # Gaussian: in the features' units
    assert estimated_kind == kind
    expected = normalise_log(estimated * clf._score_scale())  # (a calibration scale)
    assert_array_equal(clf.predict_log_proba(X), expected)


def test_margins_give_the_decision_function_and_its_sign(rng):
    X, y = _data(rng)
    clf = BoostedGraphicalModelClassifier(n_estimators=3, alpha=1.0).fit(X, y)
    scores, kind = clf._class_scores(X)
    assert kind == "margin"
    assert_array_equal(scores[:, 1], -scores[:, 0])
    assert_array_equal(clf.decision_function(X), scores[:, 1])
    assert_array_equal(clf.predict(X), clf.classes_[(clf.decision_function(X) > 1e-9) * 1])
    assert not hasattr(clf, "predict_joint_log_proba")


def test_every_kind_of_estimator_normalises_the_same_way(rng):
    X, y = _data(rng, n_classes=3)
    for clf in (
        DiscriminativeTreeClassifier(alpha=1.0).fit(X, y),  # composite margins
        KernelNaiveBayesClassifier().fit(X, y),  # a joint of densities
        ForestDensityClassifier(probability=True).fit(X, y),  # SVM margins
    ):
        proba = clf.predict_proba(X)
        assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
        assert_allclose(np.log(proba), clf.predict_log_proba(X), atol=1e-12)
        assert_array_equal(clf.classes_[proba.argmax(axis=1)], clf.predict(X))


def test_score_kinds_are_checked():
    assert set(SCORE_KINDS) == {"joint", "posterior", "margin"}
    with pytest.raises(ValueError, match="score_kind"):
        check_score_kind("likelihood")
