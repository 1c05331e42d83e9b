"""discotree.classifiers.baselines.AnyColumnsBaseline: scikit-learn models that take
what discotree takes (strings, booleans, categoricals, missing values)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from threadpoolctl import threadpool_limits

from discotree.classifiers.baselines import AnyColumnsBaseline


@pytest.fixture
def mixed():
    rng = np.random.default_rng(0)
    n = 200
    frame = pd.DataFrame(
        {
            "a": rng.normal(size=n),
            "b": rng.choice(["x", "y", None], n).astype(object),
            "c": rng.choice([True, False], n),
            "d": pd.Categorical(rng.choice(["p", "q"], n)),
        }
    )
    frame.loc[::7, "a"] = np.nan
    y = np.where(frame["a"].fillna(0) + (frame["b"] == "x") > 0.3, "hi", "lo")
    return frame, y


@pytest.fixture
def _one_openmp_thread():
    """scikit-learn's booster on one OpenMP thread: on these small sets its threads (one
    a core, beside pytest's other worker) made it ten times slower."""
    with threadpool_limits(1, user_api="openmp"):
        yield


@pytest.mark.usefixtures("_one_openmp_thread")
@pytest.mark.parametrize("model", AnyColumnsBaseline._MODELS)
def test_fits_mixed_columns_and_missing_values(model, mixed):
    X, y = mixed
    clf = AnyColumnsBaseline(model).fit(X, y)
    assert clf.score(X, y) > 0.85
    proba = clf.predict_proba(X.iloc[:5])
    assert proba.shape == (5, 2) and np.allclose(proba.sum(axis=1), 1.0)
    assert list(clf.classes_) == ["hi", "lo"]
    # an unseen category at predict time is not an error
    unseen = X.iloc[:3].copy()
    unseen["b"] = "never seen"
    assert len(clf.predict(unseen)) == 3


def test_numpy_object_array_is_read_like_the_frame(mixed):
    X, y = mixed
    a = AnyColumnsBaseline("logistic").fit(X.to_numpy(), y)
    assert a.score(X.to_numpy(), y) > 0.85


def test_unknown_model_is_named():
    X = np.zeros((4, 1))
    with pytest.raises(ValueError, match="model='tree'; choose from random-forest"):
        AnyColumnsBaseline("tree").fit(X, [0, 1, 0, 1])
    assert not hasattr(AnyColumnsBaseline("tree"), "pipeline_")


def test_inf_is_refused(mixed):
    X, y = mixed
    X = X.copy()
    X.loc[0, "a"] = np.inf
    with pytest.raises(ValueError, match="contains inf"):
        AnyColumnsBaseline().fit(X, y)
