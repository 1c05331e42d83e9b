"""Public statistics: counted in parts with one schema, added, shipped, fitted from."""

import itertools
import operator
import pickle
from functools import reduce

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from discotree import (
    ChowLiuClassifier,
    Discretizer,
    DiscriminativeTreeClassifier,
    GaussianStatistics,
    NaiveBayesClassifier,
    PairStatistics,
    StatisticsSchema,
    TANClassifier,
)


def _data(seed=0, n=600):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(
        {
            "city": rng.choice(["oslo", "lima", "pune"], n).astype(object),
            "rooms": rng.integers(1, 5, n),
            "area": rng.gamma(3.0, 20.0, n),
        }
    )
    X.loc[rng.random(n) < 0.1, "area"] = np.nan
    y = np.where((X["rooms"] > 2) ^ (rng.random(n) < 0.2), "big", "small")
    X.loc[n - 5 :, "city"] = "kiev"  # only in the last part
    X.loc[:4, "city"] = "bern"  # only in the first part
    return X, y, rng.random(n) + 0.25


def _bins(X):
    return Discretizer(bin_edges=Discretizer(n_bins=4).fit(X[["rooms", "area"]]).bin_edges_)


@pytest.mark.parametrize(
    "estimator",
    [
        NaiveBayesClassifier(alpha=1.0),
        ChowLiuClassifier(n_edges="bic"),
        TANClassifier(alpha=0.5),
        DiscriminativeTreeClassifier(alpha=1.0),
    ],
    ids=repr,
)
def test_parts_counted_apart_and_added_fit_the_model_of_all_rows(estimator):
    X, y, w = _data()
    bins = _bins(X)
    schema = StatisticsSchema.from_sample(X.iloc[100:200], ["big", "small"], discretizer=bins)
    assert "bern" not in schema.categories()[0]
    cuts = [0, 7, 250, 251, 600]
    parts = [schema.count(X.iloc[a:b], y[a:b], w[a:b]) for a, b in itertools.pairwise(cuts)]
    shipped = [pickle.loads(pickle.dumps(p)) for p in parts]
    total = reduce(operator.add, shipped[::-1])  # any order
    assert_array_equal(total.schema.categories()[0], ["bern", "kiev", "lima", "oslo", "pune"])
    model = estimator.set_params(discretizer=bins).fit_from_statistics(total)
    direct = type(estimator)(**estimator.get_params(deep=False)).fit(X, y, w)
    assert model.edges_ == direct.edges_
    assert_allclose(model.predict_proba(X), direct.predict_proba(X), rtol=0, atol=1e-10)
    assert_array_equal(model.feature_names_in_, ["city", "rooms", "area"])
    # and sum() gives the same total
    assert_allclose(sum(shipped).counts, total.counts, rtol=1e-13)


def test_pickling_ships_a_compact_form_exactly():
    X, y, w = _data()
    schema = StatisticsSchema.from_sample(X, ["big", "small"])
    for weights, dtype in ((None, np.float32), (w, np.float64)):
        stats = schema.count(X, y, weights)
        values = stats.compact_values()
        assert values.dtype == dtype
        back = pickle.loads(pickle.dumps(stats))
        assert_array_equal(back.counts, stats.counts)
        assert_array_equal(back.class_weight, stats.class_weight)
        full = stats.counts.nbytes
        assert len(pickle.dumps(stats.counts)) > (3.5 if weights is None else 1.7) * values.nbytes
        assert values.nbytes < full


def test_adding_refuses_what_does_not_match():
    X, y, _ = _data()
    schema = StatisticsSchema.from_sample(X, ["big", "small"])
    other = StatisticsSchema.from_sample(X, ["big", "small", "huge"])
    with pytest.raises(ValueError, match="cannot add statistics of classes"):
        schema.count(X, y) + other.count(X, y)
    binned_otherwise = StatisticsSchema.from_sample(X.iloc[:50], ["big", "small"])
    with pytest.raises(ValueError, match="bin a column differently"):
        schema.count(X, y) + binned_otherwise.count(X, y)
    bare = PairStatistics(np.zeros((2, 3, 3)), np.array([1, 2]))
    with pytest.raises(ValueError, match="different layouts"):
        bare + PairStatistics(np.zeros((2, 2, 2)), np.array([1, 1]))
    with pytest.raises(ValueError, match="labels not in classes"):
        schema.count(X, np.where(y == "big", "big", "tiny"))
    with pytest.raises(ValueError, match="X has columns"):
        schema.count(X[["city", "rooms"]], y)


def test_fit_from_statistics_needs_a_schema_and_counts_only():
    X, y, _ = _data()
    stats = StatisticsSchema.from_sample(X, ["big", "small"]).count(X, y)
    with pytest.raises(ValueError, match="without a schema"):
        TANClassifier(alpha=1.0).fit_from_statistics(
            PairStatistics(stats.counts, stats.n_categories)
        )
    with pytest.raises(ValueError, match="give alpha a number"):
        TANClassifier().fit_from_statistics(stats)
    with pytest.raises(ValueError, match="give alpha a number"):
        TANClassifier(k=2, alpha=1.0).fit_from_statistics(stats)
    assert not hasattr(TANClassifier(structure="cr"), "fit_from_statistics")


def test_gaussian_statistics_add(rng):
    values = rng.normal(size=(200, 4))
    values[rng.random(values.shape) < 0.1] = np.nan
    classes = rng.integers(0, 2, 200)
    whole = GaussianStatistics.from_data(values, classes, 2)
    parts = [
        GaussianStatistics.from_data(values[s], classes[s], 2)
        for s in np.array_split(np.arange(200), 3)
    ]
    added = sum(parts)
    for field in ("weight", "sum_x", "sum_xx", "sum_xy"):
        assert_allclose(getattr(added, field), getattr(whole, field), rtol=1e-12, atol=1e-12)
