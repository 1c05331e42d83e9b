"""KDBClassifier: kDB with k = 0 is naive Bayes, the tables stay sparse at large k,
selection keeps the estimator's attributes consistent, bad parameters are named."""

import numpy as np
import pytest
from numpy.testing import assert_allclose

from discotree import KDBClassifier, NaiveBayesClassifier


def test_k_zero_is_naive_bayes(rng):
    X = rng.integers(0, 4, (200, 6)).astype(float)
    X[rng.random(X.shape) < 0.1] = np.nan
    y = rng.integers(0, 3, 200)
    kdb = KDBClassifier(k=0, selective=False, alpha=1.0).fit(X, y)
    nb = NaiveBayesClassifier(alpha=1.0).fit(X, y)
    assert_allclose(kdb.predict_proba(X), nb.predict_proba(X), rtol=1e-10)


def test_memory_grows_with_the_data_not_with_arity_to_the_k(rng):
    # 30 features of 10 categories, k = 5: a dense family table would have 10**6
    # configurations x 10 values x 2 classes; the sparse ones hold the cells seen
    X = rng.integers(0, 10, (400, 30)).astype(float)
    y = rng.integers(0, 2, 400)
    clf = KDBClassifier(k=5, selective=False, max_categories=10).fit(X, y)
    assert max(len(p) for p in clf.attribute_parents_) == 5
    cells = sum(len(t.cells) for tables in clf.model_.tables for t in tables)
    assert cells <= 400 * 30 * 6
    assert clf.model_.nbytes < 50 * 400 * 30 * 6 * 8


def test_selection_attributes_and_a_refit_replaces_them(rng):
    X = rng.integers(0, 3, (150, 5)).astype(float)
    y = (X[:, 0] + X[:, 1] > 2).astype(int)
    clf = KDBClassifier(k=2).fit(X, y)
    assert 0 <= clf.k_ <= 2 and clf.attributes_ == clf.order_[: clf.n_attributes_]
    assert clf.selection_losses_.shape == (6, 3)
    clf.set_params(selective=False).fit(X, y)
    assert not hasattr(clf, "selection_losses_")
    assert clf.n_attributes_ == 5


@pytest.mark.parametrize(
    "params, message",
    [
        ({"k": -1}, "k must be an integer >= 0"),
        ({"k": 1.5}, "k must be an integer >= 0"),
        ({"selective": "yes"}, "selective"),
        ({"selection_loss": "mse"}, "selection_loss must be one of"),
        ({"alpha": "auto"}, "alpha='auto' is not available"),
        ({"smoothing": "hdp"}, "smoothing must be one of"),
        ({"smoothing": "hierarchical", "alpha": 0.0}, "needs alpha > 0"),
    ],
)
def test_bad_parameters_are_named(params, message):
    X, y = np.zeros((4, 2)), np.array([0, 1, 0, 1])
    with pytest.raises(ValueError, match=message):
        KDBClassifier(**params).fit(X, y)


def test_hierarchical_smoothing_has_a_concentration_per_level_in_use(rng):
    X = rng.integers(0, 3, (300, 4)).astype(float)
    y = (X[:, 0] + X[:, 1] > 2).astype(int)
    hier = KDBClassifier(k=3, selective=False, smoothing="hierarchical").fit(X, y)
    assert [len(c) for c in hier.concentrations_] == [len(p) + 1 for p in hier.attribute_parents_]
    assert hier.score(X, y) > 0.9


@pytest.mark.parametrize(
    "params",
    [{"k": 3, "selective": False}, {"k": 2}, {"k": 3, "smoothing": "hierarchical"}],
    ids=str,
)
def test_partial_fit_over_uneven_batches_equals_fit(rng, params):
    X = rng.integers(0, 4, (300, 5)).astype(float)
    X[rng.random(X.shape) < 0.05] = np.nan
    y = (np.nan_to_num(X[:, 0]) + rng.integers(0, 2, 300) > 2).astype(int)
    w = rng.random(300) + 0.5
    full = KDBClassifier(**params).fit(X, y, sample_weight=w)
    streamed = KDBClassifier(**params)
    for part in (slice(0, 13), slice(13, 200), slice(200, None)):
        streamed.partial_fit(X[part], y[part], classes=[0, 1], sample_weight=w[part])
    assert_allclose(streamed.predict_proba(X), full.predict_proba(X), rtol=1e-10)
    assert (streamed.k_, streamed.n_attributes_) == (full.k_, full.n_attributes_)
