"""discotree.importance: summed-out importances against a slow per-row reference and
against explicit summation over a feature's values; feature_importances_ on every
discrete family, refits, model files and the opt-out."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from sklearn.datasets import load_iris

import discotree
from discotree import KDBClassifier, NaiveBayesClassifier, TANClassifier
from discotree.importance import summed_out_importances
from discotree.io import load_json, save_json
from discotree.registry import CLASSIFIERS, make_classifier


def _mixed(rng, n=120):
    frame = pd.DataFrame(
        {
            "a": rng.normal(size=n),
            "b": rng.choice(["x", "y", "z"], n).astype(object),
            "c": rng.integers(0, 3, n),
            "d": rng.normal(size=n),
        }
    )
    y = np.where(frame["a"] + (frame["b"] == "x") + 0.5 * frame["c"] > 1.0, "hi", "lo")
    frame.loc[rng.random(n) < 0.1, "a"] = np.nan
    frame.loc[rng.random(n) < 0.1, "b"] = None
    return frame, y


def _reference(estimator, X, y, weights):
    """One row and one feature at a time, through predict_log_proba."""
    classes = list(estimator.classes_)
    d = X.shape[1]
    loss = np.zeros((d, len(X)))
    evidence = np.zeros((d, len(X)))
    for i in range(len(X)):
        row = X.iloc[[i]]
        full = estimator.predict_log_proba(row)[0]
        for j in range(d):
            hidden = row.copy()
            hidden.iloc[0, j] = np.nan if hidden.dtypes.iloc[j].kind == "f" else None
            out = estimator.predict_log_proba(hidden)[0]
            k = classes.index(y[i])
            loss[j, i] = full[k] - out[k]
            evidence[j, i] = np.mean(np.abs((full - full.mean()) - (out - out.mean())))
    w = weights / weights.sum()
    return loss, evidence, loss @ w, evidence @ w


@pytest.mark.parametrize(
    "estimator",
    [NaiveBayesClassifier(), TANClassifier(alpha=1.0), KDBClassifier(k=2, selective=False)],
    ids=["nb", "tan", "kdb2"],
)
def test_vectorised_equals_the_per_row_reference(estimator, rng):
    X, y = _mixed(rng)
    weights = rng.integers(1, 4, len(y)).astype(float)
    estimator.fit(X, y, sample_weight=weights)
    got = summed_out_importances(estimator, X.iloc[:40], y[:40], weights[:40])
    loss, evidence, loss_mean, evidence_mean = _reference(
        estimator, X.iloc[:40], y[:40], weights[:40]
    )
    assert_allclose(got.importances, loss, rtol=1e-10, atol=1e-12)
    assert_allclose(got.evidence, evidence, rtol=1e-10, atol=1e-12)
    assert_allclose(got.importances_mean, loss_mean, rtol=1e-10, atol=1e-12)
    assert_allclose(got.evidence_mean, evidence_mean, rtol=1e-10, atol=1e-12)
    # a feature already missing in a row moves nothing there
    missing_a = X["a"].iloc[:40].isna().to_numpy()
    assert np.all(got.importances[0, missing_a] == 0)


def test_summing_out_is_the_explicit_sum_over_the_values(rng):
    # categorical features only: p(c, x_-j) = sum_v p(c, x_-j, x_j = v), exactly
    X = pd.DataFrame({f"f{j}": rng.integers(0, 3, 200) for j in range(4)})
    y = (X["f0"] + X["f1"] * X["f2"] + rng.integers(0, 2, 200)) % 2
    clf = TANClassifier(alpha=1.0).fit(X, y)
    row = X.iloc[[7]]
    for j in range(4):
        filled = pd.concat([row] * 3, ignore_index=True)
        filled.iloc[:, j] = [0, 1, 2]
        joint = np.logaddexp.reduce(clf.predict_joint_log_proba(filled), axis=0)
        expected = joint[y[7]] - np.logaddexp.reduce(joint)
        hidden = row.astype(float)
        hidden.iloc[0, j] = np.nan
        got = clf.predict_log_proba(hidden)[0, y[7]]
        assert got == pytest.approx(expected, rel=1e-12)
        result = summed_out_importances(clf, row, [y[7]])
        full = clf.predict_log_proba(row)[0, y[7]]
        assert result.importances[j, 0] == pytest.approx(full - expected, rel=1e-10, abs=1e-12)


DISCRETE_FAMILIES = [
    name
    for name in (
        "nb-auto",
        "chow-liu",
        "tan-cmi-auto",
        "dt-auto",
        "boosted",
        "ear-tree",
        "aode",
        "kdb",
        "skdb",
        "skdb-hier",
        "eskdb",
    )
    if name in CLASSIFIERS
]


@pytest.mark.parametrize("name", DISCRETE_FAMILIES)
def test_every_discrete_family_has_feature_importances(name):
    X, y = load_iris(return_X_y=True, as_frame=True)
    clf = make_classifier(name).fit(X, y)
    importances = clf.feature_importances_
    assert importances.shape == (4,)
    assert np.all(np.isfinite(importances)) and np.all(importances >= 0)
    assert importances[2:].max() > importances[1]  # petals carry more than sepal width
    assert clf.feature_importances_ is importances  # computed once


def test_a_refit_replaces_the_importances_and_files_keep_them(tmp_path, rng):
    X, y = load_iris(return_X_y=True, as_frame=True)
    clf = TANClassifier().fit(X, y)
    first = clf.feature_importances_
    path = tmp_path / "m.json"
    save_json(clf, path)
    assert_allclose(load_json(path).feature_importances_, first)
    clf.fit(X.iloc[:, :2], y)
    assert clf.feature_importances_.shape == (2,)


def test_sample_is_bounded_and_can_be_switched_off():
    X, y = load_iris(return_X_y=True)
    with discotree.config_context(importance_rows=30):
        clf = NaiveBayesClassifier().fit(X, y)
    columns, weights = clf._importance_sample
    assert len(weights) == 30 and all(len(c) == 30 for c in columns)
    with discotree.config_context(importance_rows=0):
        clf = NaiveBayesClassifier().fit(X, y)
    with pytest.raises(AttributeError, match="importance_rows=0"):
        _ = clf.feature_importances_
    with pytest.raises(ValueError, match="importance_rows must be an integer >= 0"):
        discotree.set_config(importance_rows=-1)


def test_partial_fit_says_where_to_get_them():
    X, y = load_iris(return_X_y=True)
    clf = NaiveBayesClassifier(alpha=1.0).partial_fit(X, y, classes=[0, 1, 2])
    with pytest.raises(AttributeError, match="summed_out_importances"):
        _ = clf.feature_importances_
    assert summed_out_importances(clf, X, y).importances_mean.shape == (4,)


def test_unknown_labels_are_refused():
    X, y = load_iris(return_X_y=True)
    clf = NaiveBayesClassifier().fit(X, y)
    with pytest.raises(ValueError, match="not fitted on"):
        summed_out_importances(clf, X[:3], [0, 1, 7])


def test_kernel_models_split_their_scores_exactly_among_the_features():
    from sklearn.datasets import load_wine

    from discotree import ForestDensityClassifier, KernelNaiveBayesClassifier

    X, y = load_wine(return_X_y=True)
    forest = ForestDensityClassifier(pairs=4, keep_original=True).fit(X, y)
    Z = forest._standardised(X[:20])
    shares = forest._feature_contributions(Z)
    assert_allclose(shares.sum(axis=2) + forest.intercept_, forest.decision_function(X[:20]))
    kernel = KernelNaiveBayesClassifier().fit(X, y)
    shares = kernel._feature_contributions(kernel._standardised(X[:20]))
    logits = kernel.predict_log_proba(X[:20])
    logits -= logits.mean(axis=1, keepdims=True)
    prior = kernel.class_log_prior_ - kernel.class_log_prior_.mean()
    assert_allclose(shares.sum(axis=2) + prior, logits, atol=1e-9)
    for clf in (forest, kernel):
        importances = clf.feature_importances_
        assert importances.shape == (13,) and np.all(importances >= 0)
        clf.fit(X[:, :5], y)
        assert clf.feature_importances_.shape == (5,)
    with discotree.config_context(importance_rows=0):
        kernel.fit(X, y)
    with pytest.raises(AttributeError, match="importance_rows=0"):
        _ = kernel.feature_importances_


@pytest.mark.parametrize("n_classes", [2, 3])
def test_kdb_ensemble_importances_by_structure_equal_the_masked_predictions(n_classes):
    """feature_importances_ and summed_out_importances of kDB models read the summed-out
    posteriors from the model's structure (issue 48): the same numbers as predicting
    every masked copy (the path other models take), rows with missing values included."""
    from unittest import mock

    from discotree import KDBEnsembleClassifier

    rng = np.random.default_rng(n_classes)
    X = rng.integers(0, 3, (120, 5)).astype(float)
    X[:, 4] = rng.normal(size=120)
    y = (X[:, 0] + X[:, 1] * X[:, 2] + (X[:, 4] > 0)) % n_classes
    weights = rng.random(120) + 0.5
    estimator = KDBEnsembleClassifier(
        n_estimators=2,
        estimator=KDBClassifier(2, smoothing="hierarchical"),
        max_categories=3,
        linear_weight=0.2,
        pair_weight=0.3,
    ).fit(X, y, sample_weight=weights)
    held_out = X[:30].copy()
    held_out[3, 2] = np.nan  # (a row with a missing value: the masked copies for it)
    ours = summed_out_importances(estimator, held_out, y[:30], weights[:30])
    fast = estimator.feature_importances_
    with mock.patch("discotree.importance.supports_summed_out", return_value=False):
        reference = summed_out_importances(estimator, held_out, y[:30], weights[:30])
        estimator._importance_cache.clear()
        slow = estimator.feature_importances_
    for key in ("evidence", "importances", "importances_mean", "importances_std"):
        assert_allclose(ours[key], reference[key], rtol=0, atol=1e-9)
    assert_allclose(fast, slow, rtol=0, atol=1e-9)
