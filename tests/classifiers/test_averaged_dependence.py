"""AODEClassifier: partial_fit over uneven batches equals fit, weights act as repeated
rows, the tables grow with new categories, and the learner is what the estimator fits."""

import numpy as np
import pytest
from numpy.testing import assert_allclose

from discotree import AODEClassifier, NaiveBayesClassifier
from discotree.learners.registry import get_learner
from tests.data import chained_codes


def _data(rng, n=400):
    return chained_codes(rng, n, n_classes=3, n_values=4, follow=(0.6, 0.6), missing=0.08)


def test_partial_fit_over_uneven_batches_equals_fit(rng):
    X, y = _data(rng)
    w = rng.random(len(y)) + 0.5
    full = AODEClassifier().fit(X, y, sample_weight=w)
    streamed = AODEClassifier()
    for part in (slice(0, 7), slice(7, 190), slice(190, None)):
        streamed.partial_fit(X[part], y[part], classes=np.arange(3), sample_weight=w[part])
    assert_allclose(streamed.predict_proba(X), full.predict_proba(X), rtol=1e-10)


def test_integer_weights_equal_repeated_rows(rng):
    X, y = _data(rng, n=150)
    w = rng.integers(1, 4, len(y))
    repeat = np.repeat(np.arange(len(y)), w)
    weighted = AODEClassifier().fit(X, y, sample_weight=w.astype(float))
    copies = AODEClassifier().fit(X[repeat], y[repeat])
    assert_allclose(weighted.predict_proba(X), copies.predict_proba(X), rtol=1e-10)


def test_one_feature_is_naive_bayes_and_the_learner_is_registered(rng):
    X, y = _data(rng)
    one = X[:, :1]
    aode = AODEClassifier(alpha=1.0).fit(one, y)
    nb = NaiveBayesClassifier(alpha=1.0).fit(one, y)
    # one super-parent: P(c, x) / P(c) (smoothed jointly) is P(x | c) up to the smoothing
    assert (aode.predict(one) == nb.predict(one)).mean() > 0.95
    assert get_learner("aode").reads == "pairs" and get_learner("aode").partial_fit
    assert len(aode.edges_[0]) == 0
    five = AODEClassifier().fit(X, y)
    assert len(five.edges_[0]) == 10


def test_a2de_partial_fit_over_uneven_batches_equals_fit(rng):
    X, y = _data(rng)
    w = rng.random(len(y)) + 0.5
    full = AODEClassifier(2).fit(X, y, sample_weight=w)
    streamed = AODEClassifier(2)
    for part in (slice(0, 7), slice(7, 190), slice(190, None)):
        streamed.partial_fit(X[part], y[part], classes=np.arange(3), sample_weight=w[part])
    assert_allclose(streamed.predict_proba(X), full.predict_proba(X), rtol=1e-10)
    assert type(full.model_).__name__ == "AveragedTwoDependenceModel"


def test_a2de_integer_weights_equal_repeated_rows(rng):
    X, y = _data(rng, n=150)
    w = rng.integers(1, 4, len(y))
    repeat = np.repeat(np.arange(len(y)), w)
    weighted = AODEClassifier(2).fit(X, y, sample_weight=w.astype(float))
    copies = AODEClassifier(2).fit(X[repeat], y[repeat])
    assert_allclose(weighted.predict_proba(X), copies.predict_proba(X), rtol=1e-10)


def test_a2de_on_one_feature_is_a1de_and_on_two_a_single_pair(rng):
    X, y = _data(rng)
    one = AODEClassifier(2).fit(X[:, :1], y)
    assert_allclose(
        one.predict_proba(X[:, :1]), AODEClassifier().fit(X[:, :1], y).predict_proba(X[:, :1])
    )
    two = AODEClassifier(2, alpha=1.0).fit(X[:, :2], y)
    assert two.edges_[0] == [(0, 1)]
    assert get_learner("a2de").reads == "pairs, then families"


def test_a2de_refuses_what_it_cannot_do(rng):
    X, y = _data(rng)
    with pytest.raises(ValueError, match="n_super_parents must be 1"):
        AODEClassifier(3).fit(X, y)
    with pytest.raises(ValueError, match="alpha='auto' is available for n_super_parents=1"):
        AODEClassifier(2, alpha="auto").fit(X, y)


def test_a2de_is_refused_beyond_the_memory_limit(rng):
    import discotree

    X, y = _data(rng)
    fitted = AODEClassifier(2).fit(X, y)
    estimate = fitted.fit_memory_estimate_
    assert estimate > fitted.model_.cond_log.nbytes + fitted.model_.pair_log.nbytes
    with (
        discotree.config_context(memory_limit=int(estimate / 2)),
        pytest.raises(ValueError, match="memory limit"),
    ):
        AODEClassifier(2).fit(X, y)


def test_hierarchical_a1de_backs_off_each_conditional(rng):
    from discotree import TANClassifier
    from discotree.models.averaged_dependence import AveragedOneDependenceModel
    from discotree.stats.pair_statistics import PairStatistics

    X = rng.integers(0, 3, (400, 4)).astype(float)
    X[rng.random(X.shape) < 0.05] = np.nan
    y = (np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) + rng.integers(0, 2, 400) > 2).astype(int)
    w = rng.integers(1, 3, 400).astype(float)
    clf = AODEClassifier(smoothing="hierarchical").fit(X, y, sample_weight=w)
    plain = AODEClassifier().fit(X, y, sample_weight=w)
    assert not np.allclose(clf.predict_proba(X), plain.predict_proba(X))
    # P(x | c) is still a distribution: every completion of the 4 features
    every = np.array(np.meshgrid(*[range(3)] * 4)).reshape(4, -1).T
    assert_allclose(np.exp(clf.model_.log_likelihood(every)).sum(axis=0), 1.0, rtol=1e-10)
    # the conditional of x1 given x0 is TAN's hierarchical table of the edge 0 -> 1
    pair = X[:, :2]
    tan = TANClassifier(smoothing="hierarchical", alpha=1.0).fit(pair, y, sample_weight=w)
    two = AODEClassifier(smoothing="hierarchical").fit(pair, y, sample_weight=w)
    child, parent = (1, 0) if tan.model_.parents[0][1] == 0 else (0, 1)
    offsets = np.concatenate([[0], np.cumsum(two.n_categories_)])
    for c in range(2):
        block = two.model_.child_log[
            c, offsets[parent] : offsets[parent + 1], offsets[child] : offsets[child + 1]
        ]
        assert_allclose(block, tan.model_.log_cpts[c][child], rtol=1e-12)
    # from the counts alone: partial_fit gives the model of fit
    streamed = AODEClassifier(smoothing="hierarchical")
    for part in (slice(0, 13), slice(13, 200), slice(200, None)):
        streamed.partial_fit(X[part], y[part], classes=[0, 1], sample_weight=w[part])
    assert_allclose(streamed.predict_proba(X), clf.predict_proba(X), rtol=1e-10)
    stats = PairStatistics.from_codes(clf.encoder_.transform(X), y, clf.n_categories_, 2, w)
    children, chosen = AveragedOneDependenceModel.hierarchical_children(stats, 1.0, 1e-5)
    assert_allclose(clf.model_.child_log, children)
    assert len(clf.concentrations_) == 4
    for mine, theirs in zip(clf.concentrations_, chosen, strict=True):
        for a, b in zip(mine, theirs, strict=True):
            assert_allclose(a, b)
    auto = AODEClassifier(smoothing="hierarchical", alpha="auto").fit(X, y)
    assert auto.alpha_ > 0


def test_hierarchical_a2de_backs_off_each_conditional(rng):
    from discotree.kernels.counts import triple_counts
    from discotree.stats.hierarchical import hierarchical_two_dependence_conditionals
    from discotree.stats.pair_statistics import PairStatistics

    X = rng.integers(0, 3, (400, 4)).astype(float)
    X[rng.random(X.shape) < 0.05] = np.nan
    y = (np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) + rng.integers(0, 2, 400) > 2).astype(int)
    w = rng.integers(1, 3, 400).astype(float)
    clf = AODEClassifier(2, smoothing="hierarchical").fit(X, y, sample_weight=w)
    plain = AODEClassifier(2).fit(X, y, sample_weight=w)
    assert not np.allclose(clf.predict_proba(X), plain.predict_proba(X))
    assert_allclose(clf.model_.pair_log, plain.model_.pair_log)  # P(c, x_i, x_j) unchanged
    every = np.array(np.meshgrid(*[range(3)] * 4)).reshape(4, -1).T
    assert_allclose(np.exp(clf.model_.log_likelihood(every)).sum(axis=0), 1.0, rtol=1e-10)
    codes = clf.encoder_.transform(X)
    stats = PairStatistics.from_codes(codes, y, clf.n_categories_, 2, w)
    triples = triple_counts(codes, y, w, clf.n_categories_, 2)
    cond_log, chosen = hierarchical_two_dependence_conditionals(stats, triples, 1.0, 1e-5)
    assert_allclose(clf.model_.cond_log, cond_log)
    assert set(clf.concentrations_) == {"class", "one_parent", "two_parents"}
    assert_allclose(clf.concentrations_["two_parents"], chosen["two_parents"])
    # from the counts alone: partial_fit gives the model of fit
    streamed = AODEClassifier(2, smoothing="hierarchical")
    for part in (slice(0, 13), slice(13, 200), slice(200, None)):
        streamed.partial_fit(X[part], y[part], classes=[0, 1], sample_weight=w[part])
    assert_allclose(streamed.predict_proba(X), clf.predict_proba(X), rtol=1e-10)
    # a refit without it replaces the tables and drops the concentrations
    clf.set_params(smoothing="dirichlet").fit(X, y, sample_weight=w)
    assert_allclose(clf.model_.cond_log, plain.model_.cond_log)
    assert not hasattr(clf, "concentrations_")


@pytest.mark.parametrize(
    "params, message",
    [
        ({"smoothing": "hdb"}, "smoothing must be one of"),
        ({"smoothing": "hierarchical", "alpha": 0.0}, "needs alpha > 0"),
    ],
)
def test_bad_aode_smoothing_is_named(params, message):
    with pytest.raises(ValueError, match=message):
        AODEClassifier(**params).fit(np.zeros((4, 2)), np.array([0, 1, 0, 1]))
