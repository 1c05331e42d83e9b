"""ONNX export of the codes-input graph (``inputs="codes"``): onnxruntime gives
predict_proba on held-out complete rows (the raw-input graph: test_onnx_raw.py)."""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer

from discotree import (
    AODEClassifier,
    BoostedGraphicalModelClassifier,
    ChowLiuClassifier,
    DiscriminativeTreeClassifier,
    KDBClassifier,
    NaiveBayesClassifier,
    TANClassifier,
)
from discotree.io.onnx import log_factors, onnx_codes, to_onnx

onnxruntime = pytest.importorskip("onnxruntime")

EXPORTED = [
    NaiveBayesClassifier(),
    NaiveBayesClassifier(alpha="auto"),
    TANClassifier(),
    TANClassifier(k=2),
    TANClassifier(k=2, structure="omi-cr"),
    TANClassifier(parameters="cl", cl_max_iter=5),
    ChowLiuClassifier(),
    KDBClassifier(),
    KDBClassifier(k=3, selective=False),
    KDBClassifier(smoothing="hierarchical"),
]


def _data():
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    rng = np.random.default_rng(0)
    X["grade"] = pd.Series(rng.choice(["a", "b", "c"], len(y)), dtype="str")
    y = np.where(y == 1, "benign", "malignant")
    return X.iloc[:400], y[:400], X.iloc[400:], y[400:]


def _run(model, codes):
    session = onnxruntime.InferenceSession(model.SerializeToString())
    return session.run(["probabilities", "joint_log_proba"], {"codes": codes})


@pytest.mark.parametrize("estimator", EXPORTED, ids=repr)
def test_onnxruntime_gives_predict_proba_on_held_out_rows(estimator):
    X, y, X_test, _ = _data()
    estimator.fit(X, y)
    probabilities, joint = _run(to_onnx(estimator, inputs="codes"), onnx_codes(estimator, X_test))
    assert np.abs(probabilities - estimator.predict_proba(X_test)).max() < 1e-6
    assert np.allclose(joint, estimator.predict_joint_log_proba(X_test), rtol=0, atol=1e-9)


def test_multiclass_and_per_class_structures():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 4, size=(500, 6))
    y = (X[:, 0] + X[:, 1] * (X[:, 2] > 1) + rng.integers(0, 2, 500)) % 3
    for estimator in (ChowLiuClassifier(), TANClassifier(k=2), KDBClassifier(k=2)):
        estimator.fit(X[:300], y[:300])
        probabilities, _ = _run(to_onnx(estimator, inputs="codes"), onnx_codes(estimator, X[300:]))
        assert np.abs(probabilities - estimator.predict_proba(X[300:])).max() < 1e-6


def test_factors_sum_to_the_joint_by_hand():
    """The factor form itself, without ONNX: prior plus one lookup per factor."""
    X, y, X_test, _ = _data()
    estimator = TANClassifier(k=2).fit(X, y)
    factors, log_prior = log_factors(estimator)
    codes = onnx_codes(estimator, X_test)
    joint = np.tile(log_prior, (len(codes), 1))
    for columns, table in factors:
        for c in range(len(log_prior)):
            joint[:, c] += table[(c, *codes[:, columns].T)]
    assert np.allclose(joint, estimator.predict_joint_log_proba(X_test), atol=1e-9)


@pytest.mark.parametrize(
    "estimator",
    [
        DiscriminativeTreeClassifier(),
        BoostedGraphicalModelClassifier(n_estimators=2),
        AODEClassifier(n_super_parents=2),
        TANClassifier(distribution="gaussian"),
    ],
    ids=repr,
)
def test_models_that_are_not_a_softmax_of_factors_are_refused(estimator):
    X, y, _, _ = _data()
    estimator.fit(X.drop(columns="grade"), y)
    with pytest.raises(ValueError, match=r"ONNX|gaussian|factors|A2DE"):
        to_onnx(estimator)


def test_missing_cells_are_refused_with_the_row():
    X, y, X_test, _ = _data()
    estimator = NaiveBayesClassifier().fit(X, y)
    X_test = X_test.copy()
    X_test.iloc[3, 2] = np.nan
    with pytest.raises(ValueError, match=r"row 3 .* missing"):
        onnx_codes(estimator, X_test)
