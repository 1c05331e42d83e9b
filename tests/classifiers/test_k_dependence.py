"""KDBClassifier: kDB with k = 0 is naive Bayes, the tables stay sparse at large k,
selection keeps the estimator's attributes consistent, bad parameters are named."""

import itertools

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
        ({"smoothing": "hdpp"}, "smoothing must be one of"),
        ({"smoothing": "hdp", "alpha": 0.0}, "needs alpha > 0"),
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


def test_hdp_tables_are_distributions_that_back_off_to_the_prefix(rng):
    base = rng.integers(0, 3, 250)
    X = np.column_stack([base, base, base, rng.integers(0, 3, 250)]).astype(float)
    y = (base + rng.integers(0, 2, 250) > 2).astype(int)
    hdp = KDBClassifier(k=2, selective=False, smoothing="hdp").fit(X, y)
    model = hdp.model_
    assert model.hdp and model.concentrations is None
    assert [len(c) for c in hdp.concentrations_] == [len(p) + 2 for p in hdp.attribute_parents_]
    every = np.array(list(itertools.product(range(3), repeat=4)))
    assert_allclose(np.exp(model.log_likelihood(every)).sum(axis=0), 1.0)
    # a parent configuration no row has (two copies of one column disagreeing): the
    # estimate of its longest present prefix
    node = next(
        j for j in model.attributes if len(model.parents[j]) == 2 and max(model.parents[j]) < 3
    )
    first, second = model.parents[node]
    row = np.zeros((1, 4), dtype=int)
    row[0, [first, second]] = (1, 2)  # never seen together
    expected = []
    for c in range(2):  # per class: the deepest prefix whose context is present
        for length, ids in ((1, np.array([1])), (0, np.array([0]))):
            table = model.tables[node][length]
            at = np.searchsorted(table.keys, ids[0])
            if at < len(table.keys) and table.keys[at] == ids[0] and table.totals[at, c] > 0:
                expected.append(table.count(ids, c, row[0, [node]])[0] / table.totals[at, c])
                break
    assert_allclose(model.node_log_probability(node, row)[0], np.log(expected))


def test_hdp_is_seeded_and_needs_whole_number_weights(rng):
    X = rng.integers(0, 3, (200, 4)).astype(float)
    y = (X[:, 0] + X[:, 1] > 2).astype(int)
    a = KDBClassifier(k=2, smoothing="hdp", random_state=3).fit(X, y)
    b = KDBClassifier(k=2, smoothing="hdp", random_state=3).fit(X, y)
    c = KDBClassifier(k=2, smoothing="hdp", random_state=4).fit(X, y)
    assert_allclose(a.predict_proba(X), b.predict_proba(X))
    assert not np.allclose(a.predict_proba(X), c.predict_proba(X))
    weighted = KDBClassifier(k=2, smoothing="hdp").fit(X, y, sample_weight=np.full(200, 2.0))
    assert weighted.score(X, y) > 0.8
    with pytest.raises(ValueError, match="whole-number sample weights"):
        KDBClassifier(k=2, smoothing="hdp").fit(X, y, sample_weight=np.full(200, 0.5))
