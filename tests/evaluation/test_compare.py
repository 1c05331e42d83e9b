"""discotree.evaluation.compare: the same folds for every model, scores checked
against a hand-written cross-validation, refusals reported, ranks averaged."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris
from sklearn.metrics import log_loss

import discotree
from discotree.evaluation import compare
from discotree.evaluation.compare import ModelScores, compare_models, ranking, warm_up_rows
from discotree.evaluation.splits import cross_validation
from discotree.registry import make_classifier


def _iris():
    return load_iris(return_X_y=True, as_frame=True)


def _mixed():
    rng = np.random.default_rng(3)
    n = 120
    frame = pd.DataFrame(
        {
            "size": rng.normal(size=n),
            "colour": rng.choice(["red", "blue", "green"], n).astype(object),
            "flag": rng.choice([True, False], n),
        }
    )
    frame.loc[::9, "size"] = np.nan
    frame.loc[::11, "colour"] = None
    y = np.where(frame["size"].fillna(0) + (frame["colour"] == "red") > 0.4, "yes", "no")
    return frame, y


def test_scores_equal_a_hand_written_cross_validation():
    X, y = _iris()
    y = np.asarray(y)
    [scores] = compare_models({"iris": _iris}, ["tan-cmi"], n_folds=4, seed=2)
    accuracy, losses = [], []
    for fold in cross_validation(y, 4, 2):
        model = make_classifier("tan-cmi").fit(X.iloc[fold.train], y[fold.train])
        accuracy.append(np.mean(model.predict(X.iloc[fold.test]) == y[fold.test]))
        losses.append(
            log_loss(y[fold.test], model.predict_proba(X.iloc[fold.test]), labels=[0, 1, 2])
        )
    # joblib returns folds in any order: compare as multisets
    assert sorted(scores.accuracy) == pytest.approx(sorted(accuracy), abs=0)
    assert sorted(scores.log_loss) == pytest.approx(sorted(losses), rel=1e-12)
    assert len(scores.fit_seconds) == 4 and all(t > 0 for t in scores.fit_seconds)
    assert scores.refused is None


def test_baselines_and_families_take_strings_and_missing_values():
    names = ["nb-auto", "skdb", "rf", "hgb", "logreg", "svm"]
    results = compare_models({"mixed": _mixed}, names, n_folds=3, n_jobs=2)
    assert [s.model for s in results] == names
    for s in results:
        assert s.refused is None, s.model
        assert len(s.accuracy) == 3 and np.mean(s.accuracy) > 0.6, s.model
        assert np.all(np.isfinite(s.log_loss)), s.model


def test_a_refusal_is_a_row_with_the_reason():
    with discotree.config_context(ear_feature_limit=2):
        [scores] = compare_models({"iris": _iris}, ["ear-tree"], n_folds=2)
    assert scores.refused is not None and "limit of 2" in scores.refused
    assert scores.accuracy == [] and scores.fit_seconds == []


def test_model_without_probabilities_has_no_log_loss():
    [scores] = compare_models({"iris": _iris}, ["forest-density"], n_folds=2)
    assert np.isnan(scores.log_loss).all() and len(scores.accuracy) == 2


def test_fewer_than_two_folds_is_refused():
    with pytest.raises(ValueError, match="at least 2 folds"):
        compare_models({"iris": _iris}, ["nb"], n_folds=1)


def test_warm_up_once_per_model_and_column_kinds(monkeypatch):
    fitted = []
    real = compare.make_classifier

    def counting(name):
        model = real(name)
        original = model.fit
        model.fit = lambda X, y: (fitted.append(X.shape), original(X, y))[1]
        return model

    monkeypatch.setattr(compare, "make_classifier", counting)
    monkeypatch.setattr(compare, "_WARMED", set())
    X, y = _iris()
    y = np.asarray(y)
    train = np.arange(len(y))
    compare._warm_up("nb", X, y, train)
    compare._warm_up("nb", X, y, train)
    compare._warm_up("nb", X.astype({"sepal length (cm)": object}), y, train)
    assert fitted == [(30, 4), (30, 4)]  # 10 rows of each class; twice: two kinds


def test_warm_up_rows_take_a_few_of_each_class():
    y = np.array([0] * 20 + [1] * 3 + [2] * 15)
    rows = warm_up_rows(y, np.arange(len(y)), per_class=5)
    assert np.bincount(y[rows]).tolist() == [5, 3, 5]


def test_ranking_shares_ties_and_counts_datasets():
    def s(d, m, acc, refused=None):
        if refused:
            return ModelScores(d, m, refused=refused)
        return ModelScores(d, m, accuracy=[acc], log_loss=[0.1], fit_seconds=[0.0])

    table = ranking(
        [
            s("d1", "a", 0.9),
            s("d1", "b", 0.9),
            s("d1", "c", 0.8),
            s("d2", "a", 0.7),
            s("d2", "b", 0.6),
            s("d2", "c", 0.0, refused="too many features"),
        ]
    )
    rows = table.set_index("model")
    assert rows.loc["a", "mean rank"] == pytest.approx((1.5 + 1) / 2)
    assert rows.loc["b", "mean rank"] == pytest.approx((1.5 + 2) / 2)
    assert rows.loc["c", "mean rank"] == 3.0 and rows.loc["c", "datasets"] == 1
    assert list(table["model"]) == ["a", "b", "c"]
