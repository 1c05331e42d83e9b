"""The raw-input ONNX graph (discotree.io.onnx_raw): the encoding of string, float and
integer columns inside the graph gives predict_proba to 1e-9 on held-out rows, rows
with missing or unseen values get NaN, and the refusals name what they refuse."""

import numpy as np
import pandas as pd
import pytest

from discotree import (
    AODEClassifier,
    ChowLiuClassifier,
    KDBClassifier,
    KDBEnsembleClassifier,
    NaiveBayesClassifier,
    TANClassifier,
)
from discotree.io.onnx import onnx_codes, onnx_inputs, to_onnx
from discotree.io.onnx_raw import raw_columns

onnxruntime = pytest.importorskip("onnxruntime")


def _frame(n=400, seed=0):
    """String, float and integer columns (some categorical), three classes."""
    rng = np.random.default_rng(seed)
    colour = rng.choice(["red", "green", "blue", ""], n)  # the empty string is a category
    size = rng.normal(size=n)
    count = rng.integers(0, 5, n)  # few values: categorical by value
    grade = rng.choice(["a", "b", "c"], n)
    level = rng.choice([10, 20, 30], n)
    score = (size > 0) + (colour == "red") + (count > 2) * (grade == "a") + rng.random(n)
    X = pd.DataFrame(
        {
            "colour": pd.Series(colour, dtype=object),
            "size": size,
            "count": count,
            "grade": pd.Series(grade, dtype="string"),
            "level": pd.Categorical(level),  # integer categories: matched as numbers
            "weight": rng.gamma(2.0, size=n).round(1),
            "flag": rng.random(n) < 0.3,
        }
    )
    y = np.array(["low", "mid", "high"])[np.digitize(score, [1.0, 2.0])]
    return X.iloc[: n // 2], y[: n // 2], X.iloc[n // 2 :].reset_index(drop=True)


def _session(model):
    return onnxruntime.InferenceSession(model.SerializeToString())


RAW = [
    ChowLiuClassifier(),
    TANClassifier(),
    KDBClassifier(k=2),
    AODEClassifier(),
    KDBEnsembleClassifier(n_estimators=3, linear_weight=0.3, pair_weight=0.2),
]


@pytest.mark.parametrize("estimator", RAW, ids=repr)
def test_raw_graph_gives_predict_proba_on_held_out_rows(estimator):
    X, y, X_test = _frame()
    estimator.fit(X, y)
    session = _session(to_onnx(estimator))
    probabilities, joint, codes = session.run(
        ["probabilities", "joint_log_proba", "codes"], onnx_inputs(estimator, X_test)
    )
    assert np.abs(probabilities - estimator.predict_proba(X_test)).max() < 1e-9
    # the scores: the joint, or the kDB ensemble's log posterior (it has no joint)
    scores = getattr(estimator, "predict_joint_log_proba", estimator.predict_log_proba)
    assert np.abs(joint - scores(X_test)).max() < 1e-9
    assert np.array_equal(codes, estimator.encoder_.transform(X_test))


def test_inputs_are_one_column_each_typed_by_the_encoding():
    X, y, _ = _frame()
    clf = NaiveBayesClassifier().fit(X, y)
    inputs = {i.name: (i.type, i.shape[1]) for i in _session(to_onnx(clf)).get_inputs()}
    assert inputs == {
        "colour": ("tensor(string)", 1),
        "size": ("tensor(double)", 1),
        "count": ("tensor(double)", 1),
        "grade": ("tensor(string)", 1),
        "level": ("tensor(double)", 1),
        "weight": ("tensor(double)", 1),
        "flag": ("tensor(bool)", 1),
    }
    kinds = {c.name: c.coding for c in raw_columns(clf)}
    assert kinds["size"] == "bins" and kinds["count"] == "categories"


def test_values_on_bin_edges_and_outside_the_range_fall_as_the_encoder_puts_them():
    X, y, _ = _frame()
    clf = NaiveBayesClassifier().fit(X[["size", "weight"]], y)
    edges = clf.encoder_.discretizer_.bin_edges_[0]
    probes = np.concatenate([edges, np.nextafter(edges, np.inf), np.nextafter(edges, -np.inf)])
    probes = np.concatenate([probes, [-1e300, 1e300, 0.0, -0.0]])
    rows = pd.DataFrame({"size": probes, "weight": np.resize(X["weight"].to_numpy(), len(probes))})
    codes = _session(to_onnx(clf)).run(["codes"], onnx_inputs(clf, rows))[0]
    assert np.array_equal(codes, clf.encoder_.transform(rows))


def test_numpy_fitted_estimators_take_inputs_x0_x1():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(200, 3))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    clf = TANClassifier().fit(X, y)
    session = _session(to_onnx(clf))
    assert [i.name for i in session.get_inputs()] == ["x0", "x1", "x2"]
    feed = {f"x{j}": X[:, [j]] for j in range(3)}
    probabilities = session.run(["probabilities"], feed)[0]
    assert np.abs(probabilities - clf.predict_proba(X)).max() < 1e-9


def test_missing_infinite_and_unseen_values_give_nan_rows_and_code_minus_one():
    X, y, X_test = _frame()
    clf = TANClassifier().fit(X, y)
    feed = onnx_inputs(clf, X_test.head(6))
    feed["size"][0, 0] = np.nan
    feed["weight"][1, 0] = np.inf
    feed["colour"][2, 0] = "purple"  # unseen
    feed["count"][3, 0] = 2.5  # not one of the values 0..4
    feed["level"][4, 0] = 15.0
    probabilities, joint, codes = _session(to_onnx(clf)).run(None, feed)
    assert np.isnan(probabilities[:5]).all() and np.isnan(joint[:5]).all()
    assert (codes[:5] == -1).sum(axis=1).tolist() == [1, 1, 1, 1, 1]
    expected = clf.predict_proba(X_test.head(6).iloc[[5]])
    assert np.abs(probabilities[5] - expected).max() < 1e-9


def test_onnx_inputs_refuses_missing_and_unseen_values_with_the_row():
    X, y, X_test = _frame()
    clf = NaiveBayesClassifier().fit(X, y)
    rows = X_test.head(5).copy()
    rows.loc[2, "size"] = np.nan
    with pytest.raises(ValueError, match=r"row 2 .*'size'.* complete"):
        onnx_inputs(clf, rows)
    rows = X_test.head(5).copy()
    rows.loc[4, "colour"] = "purple"
    with pytest.raises(ValueError, match=r"row 4 .*'colour'"):
        onnx_inputs(clf, rows)
    with pytest.raises(ValueError, match=r"onnx_inputs: .*feature names"):
        onnx_inputs(clf, X_test[X_test.columns[::-1]])


def test_columns_the_graph_cannot_encode_are_refused_by_name():
    X, y, _ = _frame()
    mixed = X.assign(mixed=np.resize(np.array(["a", 1], dtype=object), len(X)))
    clf = NaiveBayesClassifier().fit(mixed, y)
    with pytest.raises(ValueError, match=r"'mixed'.*inputs='codes'"):
        to_onnx(clf)
    to_onnx(clf, inputs="codes")  # the codes graph still exports it
    clashing = NaiveBayesClassifier().fit(X.rename(columns={"size": "codes"}), y)
    with pytest.raises(ValueError, match=r"\['codes'\].*rename"):
        to_onnx(clashing)
    with pytest.raises(ValueError, match="inputs must be one of"):
        to_onnx(clf, inputs="columns")


def test_codes_graph_still_takes_onnx_codes():
    X, y, X_test = _frame()
    clf = KDBClassifier(k=2).fit(X, y)
    session = _session(to_onnx(clf, inputs="codes"))
    assert [i.name for i in session.get_inputs()] == ["codes"]
    probabilities = session.run(["probabilities"], {"codes": onnx_codes(clf, X_test)})[0]
    assert np.abs(probabilities - clf.predict_proba(X_test)).max() < 1e-9
