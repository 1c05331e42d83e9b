"""smoothing="hdp" on the forest estimators and AnDE (Petitjean et al. 2018's sampler,
from the counts): the fitted tables are the sampler's, seeded by random_state; the
structure is the hierarchical one; partial_fit equals fit; fractional weights refused."""

import itertools

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone

from discotree import (
    ChowLiuClassifier,
    DiscriminativeTreeClassifier,
    NaiveBayesClassifier,
    TANClassifier,
)
from discotree.stats.hdp_counts import hdp_forest_tables
from discotree.stats.pair_statistics import PairStatistics
from tests.estimators import hdp_smoothed

HDP = hdp_smoothed()
N = 400


def _data(seed: int = 0, n: int = N):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, (n, 5)).astype(float)
    X[:, 4] = (X[:, 0] + X[:, 1] + rng.integers(0, 2, n)) % 3
    y = ((X[:, 0] + X[:, 4] + rng.integers(0, 2, n)) % 3).astype(int)
    X[rng.random(X.shape) < 0.08] = np.nan
    return X, y, rng.integers(1, 4, n).astype(float)


@pytest.mark.parametrize("estimator", HDP, ids=repr)
def test_hdp_tables_are_seeded_and_differ_from_hierarchical(estimator):
    X, y, w = _data()
    a = clone(estimator).fit(X, y, w)
    b = clone(estimator).fit(X, y, w)
    other = clone(estimator).set_params(random_state=1).fit(X, y, w)
    hierarchical = clone(estimator).set_params(smoothing="hierarchical").fit(X, y, w)
    assert_array_equal(a.predict_proba(X), b.predict_proba(X))  # seeded
    assert not np.allclose(a.predict_proba(X), other.predict_proba(X))  # sampled
    assert a.edges_ == hierarchical.edges_  # the structure of the hierarchical fit
    assert not np.allclose(a.predict_proba(X), hierarchical.predict_proba(X))
    assert np.all(np.isfinite(a.predict_log_proba(X)))
    accuracy = np.mean(a.predict(X) == y)
    assert accuracy > np.mean(hierarchical.predict(X) == y) - 0.05  # the same back-off


@pytest.mark.parametrize("estimator", HDP, ids=repr)
def test_fractional_weights_are_refused_and_leave_no_fit(estimator):
    X, y, w = _data(1)
    model = clone(estimator)
    with pytest.raises(ValueError, match="whole-number sample weights"):
        model.fit(X, y, w + 0.25)
    assert not hasattr(model, "classes_")


@pytest.mark.parametrize("estimator", HDP, ids=repr)
def test_whole_weights_equal_repeated_rows(estimator):
    """A weight of k is k customers: the same counts, trees and samples as the row
    repeated k times (scikit-learn's weight equivalence, on a small problem)."""
    X, y, w = _data(5, n=120)
    weighted = clone(estimator).fit(X, y, w)
    repeated = np.repeat(np.arange(len(y)), w.astype(int))
    copies = clone(estimator).fit(X[repeated], y[repeated])
    assert_allclose(weighted.predict_proba(X), copies.predict_proba(X), rtol=1e-9, atol=1e-12)


def test_tan_tables_are_the_sampler_on_the_pair_tables():
    X, y, w = _data(2)
    model = TANClassifier(smoothing="hdp", alpha=1.0, random_state=3).fit(X, y, w)
    codes = model.encoder_.transform(X)
    stats = PairStatistics.from_codes(codes, y, model.n_categories_, 3, w)
    logs, _, concentrations = hdp_forest_tables(
        stats, model.model_.parents, model.epsilon, np.random.default_rng(3)
    )
    for c, j in itertools.product(range(3), range(X.shape[1])):
        assert_allclose(model.model_.log_cpts[c][j], logs[c][j], rtol=1e-12)
    for got, want in zip(model.concentrations_, concentrations, strict=True):
        assert_allclose(got, want)
    assert all(len(c) in (2, 3) for c in model.concentrations_)  # root, class[, parent]


CUTS = [0, 40, 41, 170, 300, N]


@pytest.mark.parametrize(
    "estimator",
    [
        NaiveBayesClassifier(smoothing="hdp", alpha=1.0),
        NaiveBayesClassifier(smoothing="hdp"),
        ChowLiuClassifier(smoothing="hdp"),
        TANClassifier(smoothing="hdp", alpha=1.0),
        DiscriminativeTreeClassifier(smoothing="hdp", alpha=1.0),
    ],
    ids=repr,
)
def test_partial_fit_over_uneven_batches_equals_fit(estimator):
    X, y, w = _data(3)
    frame = pd.DataFrame(X, columns=list("abcde"))
    fitted = clone(estimator).fit(frame, y, w)
    streamed = clone(estimator)
    for start, stop in itertools.pairwise(CUTS):
        part = frame.iloc[start:stop]
        streamed.partial_fit(part, y[start:stop], classes=[0, 1, 2], sample_weight=w[start:stop])
    assert streamed.alpha_ == fitted.alpha_
    assert streamed.edges_ == fitted.edges_
    assert_allclose(streamed.predict_proba(frame), fitted.predict_proba(frame), atol=1e-10)


def test_boosting_refuses_hdp_and_a_gaussian_forest_too():
    X, y, _ = _data(4)
    with pytest.raises(ValueError, match="smooths discrete tables only"):
        TANClassifier(smoothing="hdp", distribution="gaussian").fit(X[:, :2], y)
    with pytest.raises(ValueError, match="parameters='altmax' replaces"):
        DiscriminativeTreeClassifier(smoothing="hdp", parameters="altmax").fit(X, y)
