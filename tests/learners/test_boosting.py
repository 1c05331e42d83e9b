"""The row learner "boosting" (Tan et al. 2010, Algorithm 2): what the estimator fits
is the learner's result, and weights act as repeated rows."""

import numpy as np
from numpy.testing import assert_allclose

from discotree import BoostedGraphicalModelClassifier
from discotree.learners.boosting import BoostingSpec, boost_binary, fit_boosted
from discotree.learners.registry import Rows, get_learner
from discotree.validation import check_table


def _data(rng, n=240, n_classes=3):
    y = rng.integers(0, n_classes, n)
    X = rng.integers(0, 3, (n, 5)).astype(float)
    X[:, 0] = np.where(rng.random(n) < 0.7, y % 3, X[:, 0])
    X[:, 1] = np.where(rng.random(n) < 0.6, X[:, 0], X[:, 1])
    X[rng.random(X.shape) < 0.05] = np.nan
    return X, y


def _rows(fitted, X, y, weights=None):
    codes = fitted.encoder_.transform(check_table(X, "test"))
    weights = np.ones(len(y)) if weights is None else weights
    return Rows(codes, y.astype(np.intp), weights, len(fitted.classes_), fitted.n_categories_)


def test_the_learner_is_what_the_estimator_fits(rng):
    X, y = _data(rng)
    params = {"n_estimators": 4, "alpha": 1.0, "calibration": "none", "multiclass": "ovr"}
    fitted = BoostedGraphicalModelClassifier(**params).fit(X, y)
    spec = fitted.boosting_spec().learner_spec()
    assert spec.learner == "boosting" and get_learner("boosting").reads == "rows"
    result = fit_boosted(_rows(fitted, X, y), spec)
    assert result.model is None
    for mine, theirs in zip(result.attributes["ensembles_"], fitted.ensembles_, strict=True):
        assert (mine.positive, mine.negative, mine.stopped) == (
            theirs.positive,
            theirs.negative,
            theirs.stopped,
        )
        assert_allclose([r.alpha for r in mine.rounds], [r.alpha for r in theirs.rounds])
    assert result.attributes["edges_union_"] == fitted.edges_union_
    assert BoostingSpec.from_learner_spec(spec) == fitted.boosting_spec()


def test_a_weight_of_two_boosts_as_a_repeated_row(rng):
    X, y = _data(rng, n=120, n_classes=2)
    fitted = BoostedGraphicalModelClassifier(n_estimators=3, alpha=1.0).fit(X, y)
    weights = rng.integers(1, 3, len(y)).astype(float)
    repeated = np.repeat(np.arange(len(y)), weights.astype(int))
    spec = BoostingSpec("dt", "real", 3, "prior", 1.0, 1e-5)
    weighted = boost_binary(_rows(fitted, X, y, weights), spec, 1, 0)
    copies = boost_binary(_rows(fitted, X[repeated], y[repeated]), spec, 1, 0)
    assert_allclose([r.alpha for r in weighted.rounds], [r.alpha for r in copies.rounds])
    assert_allclose(weighted.init_score, copies.init_score)


def test_a_weak_learner_no_better_than_chance_stops_the_rounds():
    # the label is independent of every feature in every cell: the first weak
    # learner's margins sum to zero, the line search returns 0 and nothing is kept
    codes = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 4)
    label = np.array([0, 1] * 8)
    codes = np.repeat(codes, 2, axis=0)
    label = np.tile([0, 1], 16)
    rows = Rows(codes, label, np.ones(32), 2, np.array([2, 2]))
    ensemble = boost_binary(rows, BoostingSpec("dt", "real", 5, "prior", 1.0, 1e-5), 1, 0)
    assert ensemble.rounds == [] and "no better than chance" in ensemble.stopped
