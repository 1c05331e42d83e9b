"""partial_fit over batches equals fit on their concatenation (issue #13, item 2)."""

import itertools
import pickle

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone

from discotree import (
    ChowLiuClassifier,
    Discretizer,
    DiscriminativeTreeClassifier,
    NaiveBayesClassifier,
    TANClassifier,
)

N = 700
CUTS = [0, 50, 51, 200, 330, 400, 600, N]  # 7 uneven batches, one of a single row
CLASSES = ["a", "b", "c"]

STREAMING = [
    NaiveBayesClassifier(alpha=1.0),
    NaiveBayesClassifier(),
    NaiveBayesClassifier(alpha=3.0, prior="bdeu"),
    ChowLiuClassifier(),
    ChowLiuClassifier(n_edges="bic", alpha=0.5),
    ChowLiuClassifier(alpha="auto"),
    TANClassifier(k=0, alpha=1.0),
    TANClassifier(alpha=0.5),
    TANClassifier(),
    TANClassifier(n_edges=2, alpha=1.0, prior="bdeu"),
    TANClassifier(k=2, alpha=1.0),
    TANClassifier(k=2),
    DiscriminativeTreeClassifier(alpha=1.0),
    DiscriminativeTreeClassifier(),
    DiscriminativeTreeClassifier(n_edges=1, multiclass="ovr", alpha=0.3),
]


def _frame(seed: int = 0, n: int = N) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """Strings, small integers, floats with missing values and a continuous column;
    a string category and an integer value that appear only in the last batch."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(
        {
            "colour": rng.choice(["red", "green", "blue"], n),
            "count": rng.integers(0, 3, n),
            "level": rng.integers(0, 4, n).astype(float),
            "reading": rng.normal(size=n),
        }
    )
    X.loc[rng.random(n) < 0.1, "level"] = np.nan
    X.loc[rng.random(n) < 0.05, "colour"] = None
    score = (X["colour"] == "red") + X["count"] + (X["reading"] > 0) + rng.integers(0, 2, n)
    y = np.array(CLASSES)[score.to_numpy() % 3]
    X.loc[n - 3 :, "colour"] = "violet"  # only in the last batch
    X.loc[n - 2 :, "count"] = 7
    weights = rng.random(n) + 0.5
    return X, y, weights


def _fixed_bins(X: pd.DataFrame) -> Discretizer:
    """Bins of the numeric columns fixed for every batch (from a sample)."""
    numeric = X.select_dtypes("number").iloc[:200]
    return Discretizer(bin_edges=Discretizer(n_bins=4).fit(numeric).bin_edges_)


def _stream(estimator, X, y, weights, cuts=CUTS):
    model = clone(estimator)
    for start, stop in itertools.pairwise(cuts):
        part = None if weights is None else weights[start:stop]
        model.partial_fit(X.iloc[start:stop], y[start:stop], classes=CLASSES, sample_weight=part)
    return model


def assert_same_model(streamed, fitted, X) -> None:
    assert_array_equal(streamed.classes_, fitted.classes_)
    assert_array_equal(streamed.n_categories_, fitted.n_categories_)
    assert streamed.alpha_ == fitted.alpha_
    assert streamed.edges_ == fitted.edges_
    assert_allclose(streamed.class_count_, fitted.class_count_, rtol=1e-12)
    assert_allclose(streamed.predict_proba(X), fitted.predict_proba(X), rtol=0, atol=1e-10)
    assert_array_equal(streamed.predict(X), fitted.predict(X))


@pytest.mark.parametrize("estimator", STREAMING, ids=repr)
@pytest.mark.parametrize("weighted", [False, True])
def test_partial_fit_over_uneven_batches_equals_fit(estimator, weighted):
    X, y, weights = _frame()
    weights = weights if weighted else None
    params = {"discretizer": _fixed_bins(X)}
    fitted = clone(estimator).set_params(**params).fit(X, y, weights)
    streamed = _stream(clone(estimator).set_params(**params), X, y, weights)
    assert_same_model(streamed, fitted, X)


@pytest.mark.parametrize("estimator", STREAMING[:2] + STREAMING[7:9], ids=repr)
def test_the_model_is_usable_after_every_batch(estimator):
    X, y, _ = _frame(seed=1)
    estimator = clone(estimator).set_params(discretizer=_fixed_bins(X))
    model = clone(estimator)
    start = 0
    for stop in (60, 300, N):
        model.partial_fit(X.iloc[start:stop], y[start:stop], classes=CLASSES)
        fitted = clone(estimator).fit(X.iloc[:stop], y[:stop])
        assert_same_model(model, fitted, X)
        start = stop


def test_structure_is_relearnt_lazily_after_new_batches():
    X, y, _ = _frame(seed=2)
    model = TANClassifier(alpha=1.0, discretizer=_fixed_bins(X))
    model.partial_fit(X.iloc[:100], y[:100], classes=CLASSES)
    first = model.predict_proba(X)
    assert "model_" in vars(model)
    model.partial_fit(X.iloc[100:], y[100:])
    assert "model_" not in vars(model)  # stale: relearnt when next used
    later = model.edges_  # any fitted attribute learns it
    assert "model_" in vars(model) and later == model.edges_
    fitted = TANClassifier(alpha=1.0, discretizer=_fixed_bins(X)).fit(X, y)
    assert_same_model(model, fitted, X)
    assert np.abs(first - model.predict_proba(X)).max() > 1e-6


def test_partial_fit_without_data_finalises_now():
    X, y, _ = _frame()
    model = NaiveBayesClassifier(alpha=1.0)
    with pytest.raises(ValueError, match="before any batch"):
        model.partial_fit()
    model.partial_fit(X, y, classes=CLASSES)
    assert "model_" not in vars(model)
    assert model.partial_fit() is model
    assert "model_" in vars(model)


def test_numeric_alpha_keeps_no_rows_and_auto_does():
    X, y, _ = _frame()
    light = NaiveBayesClassifier(alpha=1.0).partial_fit(X, y, classes=CLASSES)
    heavy = NaiveBayesClassifier().partial_fit(X, y, classes=CLASSES)
    assert light._stream.rows == [] and len(heavy._stream.rows) == 1
    assert TANClassifier(k=2, alpha=1.0).partial_fit(X, y, classes=CLASSES)._stream.rows


def test_a_pickled_stream_continues():
    X, y, w = _frame()
    model = ChowLiuClassifier(discretizer=_fixed_bins(X))
    model.partial_fit(X.iloc[:300], y[:300], classes=CLASSES, sample_weight=w[:300])
    model = pickle.loads(pickle.dumps(model))
    model.partial_fit(X.iloc[300:], y[300:], sample_weight=w[300:])
    fitted = ChowLiuClassifier(discretizer=_fixed_bins(X)).fit(X, y, w)
    assert_same_model(model, fitted, X)


@pytest.mark.filterwarnings("ignore:X does not have valid feature names")
def test_bad_batches_raise_and_change_nothing():
    X, y, _ = _frame()
    model = TANClassifier(alpha=1.0).partial_fit(X.iloc[:300], y[:300], classes=CLASSES)
    before = model.predict_proba(X)
    with pytest.raises(ValueError, match=r"labels not in classes: \['z'\]"):
        model.partial_fit(X.iloc[300:310], np.append(y[300:309], "z"))
    with pytest.raises(ValueError, match="X has 3 features, but TANClassifier is expecting 4"):
        model.partial_fit(X.iloc[300:310, :3].to_numpy(), y[300:310])
    with pytest.raises(ValueError, match="now missing:\n- reading"):
        model.partial_fit(X.iloc[300:310, :3], y[300:310])
    with pytest.raises(ValueError, match="feature names"):
        model.partial_fit(X.iloc[300:310].rename(columns={"count": "number"}), y[300:310])
    too_many = X.iloc[300:320].assign(count=np.arange(20))
    with pytest.raises(ValueError, match=r"X\['count'\] had at most 10 distinct values"):
        model.partial_fit(too_many, y[300:320])
    with pytest.raises(ValueError, match="differs from the first call"):
        model.partial_fit(X.iloc[300:310], y[300:310], classes=["a", "b"])
    assert_allclose(model.predict_proba(X), before, rtol=0, atol=0)


def test_first_call_needs_classes():
    X, y, _ = _frame()
    with pytest.raises(ValueError, match="classes must be given on the first call"):
        NaiveBayesClassifier().partial_fit(X, y)
    with pytest.raises(ValueError, match="at least two labels"):
        NaiveBayesClassifier().partial_fit(X, y, classes=["a"])
    with pytest.raises(ValueError, match="needs both X and y"):
        NaiveBayesClassifier().partial_fit(X)


def test_a_class_given_but_never_seen_is_never_predicted():
    X, y, _ = _frame()
    model = NaiveBayesClassifier(alpha=1.0).partial_fit(X, y, classes=[*CLASSES, "d"])
    assert model.class_count_[3] == 0
    proba = model.predict_proba(X)
    assert np.isfinite(proba).all() and (proba[:, 3] == 0).all()
    assert "d" not in set(model.predict(X))


@pytest.mark.parametrize(
    "estimator",
    [
        TANClassifier(structure="cr"),
        TANClassifier(parameters="cl"),
        DiscriminativeTreeClassifier(n_edges="cv"),
        DiscriminativeTreeClassifier(distribution="gaussian"),
    ],
    ids=repr,
)
def test_configurations_learnt_from_rows_have_no_partial_fit(estimator):
    assert not hasattr(estimator, "partial_fit")
    with pytest.raises(AttributeError, match="Fit on a sample"):
        estimator.partial_fit  # noqa: B018


def test_partial_fit_after_fit_starts_a_new_model():
    X, y, _ = _frame()
    model = NaiveBayesClassifier(alpha=1.0).fit(X.iloc[:300], y[:300])
    with pytest.warns(UserWarning, match="starts a new model"):
        model.partial_fit(X.iloc[300:], y[300:])
    fitted = NaiveBayesClassifier(alpha=1.0).fit(X.iloc[300:], y[300:])
    assert_same_model(model, fitted, X)
    refit = model.fit(X, y)  # and fit drops the stream
    assert not [k for k in vars(refit) if k.startswith("_stream")]


def test_fixed_bins_bin_every_numeric_column():
    X, y, _ = _frame()
    fixed = _fixed_bins(X)
    model = NaiveBayesClassifier(discretizer=fixed).fit(X, y)
    assert_array_equal(model.encoder_.binned_columns_, [1, 2, 3])  # integers too
    assert model.n_categories_.tolist() == [4, *[len(e) + 1 for e in fixed.bin_edges]]
    assert_array_equal(model.encoder_.discretizer_.bin_edges_[0], fixed.bin_edges[0])
