"""NB, Chow-Liu and TAN: structure optimality, recovery, marginalisation, properties."""

import itertools

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy.special import logsumexp

from discotree import ChowLiuClassifier, NaiveBayesClassifier, TANClassifier
from tests import reference

ALL = [NaiveBayesClassifier, ChowLiuClassifier, TANClassifier]


def _sample_tree(rng, n, parents, n_cat, cpts):
    x = np.zeros((n, len(parents)), dtype=int)
    for j in np.argsort([_depth(parents, j) for j in range(len(parents))], kind="stable"):
        p = parents[j]
        probs = cpts[j][0 if p < 0 else x[:, p]]
        probs = np.broadcast_to(probs, (n, n_cat)) if p < 0 else probs
        u = rng.random(n)[:, None]
        x[:, j] = (u > np.cumsum(probs, axis=1)).sum(axis=1).clip(max=n_cat - 1)
    return x


def _depth(parents, j):
    d = 0
    while parents[j] >= 0:
        j, d = parents[j], d + 1
    return d


def _random_tree_data(rng, n, n_features=6, n_cat=3, strength=3.0):
    parents = np.array([-1] + [int(rng.integers(0, j)) for j in range(1, n_features)])
    cpts = []
    for j in range(n_features):
        rows = 1 if parents[j] < 0 else n_cat
        alpha = np.ones(n_cat)
        cpt = np.array(
            [rng.dirichlet(alpha + strength * np.eye(n_cat)[r % n_cat]) for r in range(rows)]
        )
        cpts.append(cpt)
    return _sample_tree(rng, n, parents, n_cat, cpts), parents


def test_chow_liu_edges_form_a_maximum_spanning_tree_of_mi(rng):
    x0, _ = _random_tree_data(rng, 400)
    x1, _ = _random_tree_data(rng, 300)
    X, y = np.vstack([x0, x1]), np.r_[np.zeros(400), np.ones(300)]
    clf = ChowLiuClassifier(max_categories=10).fit(X, y)
    for c, x in enumerate([x0, x1]):
        # an independent MI matrix from the reference and an independent MST (Prim)
        codes = x.astype(np.intp)
        mi = np.zeros((6, 6))
        for i, j in itertools.combinations(range(6), 2):
            t = reference.pair_table(codes, np.zeros(len(x)), None, i, j, 3, 3, 0)
            mi[i, j] = mi[j, i] = reference.mutual_information(t)
        assert_allclose(clf.edge_weights_[c], mi, atol=1e-10)
        total = sum(mi[i, j] for i, j in clf.edges_[c])
        assert total == pytest.approx(reference.maximum_spanning_tree_prim(mi), abs=1e-12)
        assert len(clf.edges_[c]) == 5 and reference.is_forest(6, clf.edges_[c])


def test_chow_liu_recovers_the_true_tree(rng):
    x, parents = _random_tree_data(rng, 5000, strength=6.0)
    y = np.r_[np.zeros(2500), np.ones(2500)]
    clf = ChowLiuClassifier().fit(x, y)
    truth = {(min(j, p), max(j, p)) for j, p in enumerate(parents) if p >= 0}
    for edges in clf.edges_:
        assert set(edges) == truth


def _training_log_likelihood(X, y, edges):
    """Sum over samples of log P(x | c) with unsmoothed ML CPTs on the given tree."""
    total = 0.0
    parents = np.full(X.shape[1], -1)
    from discotree.structure.spanning import orient_forest

    parents = orient_forest(X.shape[1], edges)
    for c in np.unique(y):
        xc = X[y == c]
        for j, p in enumerate(parents):
            keys = xc[:, j] if p < 0 else xc[:, p] * 10 + xc[:, j]
            _, joint = np.unique(keys, return_counts=True)
            if p < 0:
                total += (joint * np.log(joint / len(xc))).sum()
            else:
                _, parent_counts = np.unique(xc[:, p], return_counts=True)
                total += (joint * np.log(joint)).sum()
                total -= (parent_counts * np.log(parent_counts)).sum()
    return total


@pytest.mark.parametrize("n_features", [3, 4, 5, 6])
def test_tan_equals_exhaustive_search_over_spanning_trees(rng, n_features):
    X = rng.integers(0, 3, size=(150, n_features))
    X[:, 1:] = np.where(rng.random((150, n_features - 1)) < 0.5, X[:, :-1], X[:, 1:])
    y = (X[:, 0] + rng.integers(0, 2, 150)) % 2
    clf = TANClassifier(alpha=0.0, epsilon=1e-12).fit(X, y)
    scores = {
        tuple(t): _training_log_likelihood(X, y, t) for t in reference.spanning_trees(n_features)
    }
    best = max(scores.values())
    assert _training_log_likelihood(X, y, clf.edges_[0]) == pytest.approx(best, abs=1e-9)
    # the model's own likelihood matches: ML parameters, floor negligible
    joint = clf.predict_joint_log_proba(X) - clf.class_log_prior_
    own = joint[np.arange(len(y)), np.searchsorted(clf.classes_, y)].sum()
    assert own == pytest.approx(best, rel=1e-8)


@pytest.mark.parametrize("Estimator", ALL)
def test_missing_features_are_summed_out_exactly(rng, Estimator):
    X = rng.integers(0, 3, size=(200, 4)).astype(float)
    X[:, 1] = np.where(rng.random(200) < 0.7, X[:, 0], X[:, 1])
    y = (X[:, 1] + (rng.random(200) < 0.2)) % 2
    X[rng.random(X.shape) < 0.1] = np.nan  # missing at fit too
    clf = Estimator().fit(X, y)
    test = rng.integers(0, 3, size=(25, 4)).astype(float)
    test[rng.random(test.shape) < 0.5] = np.nan
    joint = clf.predict_joint_log_proba(test)
    for row, got in zip(test, joint, strict=True):
        miss = np.flatnonzero(np.isnan(row))
        fills = np.array(list(itertools.product(range(3), repeat=len(miss))))
        full = np.tile(row, (len(fills), 1))
        if len(miss):
            full[:, miss] = fills
        assert_allclose(got, logsumexp(clf.predict_joint_log_proba(full), axis=0), rtol=1e-10)


@pytest.mark.parametrize("Estimator", ALL)
def test_unseen_category_is_a_missing_value(rng, Estimator):
    X = pd.DataFrame({"a": rng.choice(["x", "y", "z"], 100), "b": rng.integers(0, 3, 100)})
    y = rng.integers(0, 2, 100)
    clf = Estimator().fit(X, y)
    unseen = pd.DataFrame({"a": ["never", None], "b": [1, 1]})
    assert_allclose(clf.predict_proba(unseen)[0], clf.predict_proba(unseen)[1])


@pytest.mark.parametrize("Estimator", ALL)
def test_properties_shuffle_relabel_and_normalisation(rng, Estimator):
    X = rng.normal(size=(120, 5))
    y = np.where(X[:, 0] + X[:, 1] > 0, "pos", "neg")
    y[:10] = "mid"
    clf = Estimator().fit(X, y)
    proba = clf.predict_proba(X)
    assert_allclose(proba.sum(axis=1), 1.0)
    perm = rng.permutation(120)
    assert_allclose(Estimator().fit(X[perm], y[perm]).predict_proba(X), proba, rtol=1e-10)
    relabel = {"pos": "a", "neg": "c", "mid": "b"}
    clf2 = Estimator().fit(X, np.array([relabel[v] for v in y]))
    order = [list(clf2.classes_).index(relabel[c]) for c in clf.classes_]
    assert_allclose(clf2.predict_proba(X)[:, order], proba, rtol=1e-10)


@pytest.mark.parametrize("Estimator", ALL)
def test_integer_weights_equal_repeated_rows_on_discrete_data(rng, Estimator):
    X = rng.integers(0, 4, size=(60, 4))
    y = rng.integers(0, 2, 60)
    w = rng.integers(0, 4, 60)
    a = Estimator().fit(X, y, sample_weight=w)
    b = Estimator().fit(np.repeat(X, w, 0), np.repeat(y, w))
    assert_allclose(a.predict_proba(X), b.predict_proba(X), rtol=1e-9)


def test_dataframe_with_mixed_column_types(rng):
    n = 80
    X = pd.DataFrame(
        {
            "cat": pd.Categorical(rng.choice(["u", "v"], n)),
            "str": rng.choice(["p", "q", "r"], n).astype(object),
            "flag": rng.random(n) < 0.5,
            "int": rng.integers(0, 4, n),
            "float": rng.normal(size=n),
            "coded": pd.Categorical(rng.integers(0, 12, n)),  # 12 > max_categories: nominal
        }
    )
    X.loc[3, "float"] = np.nan
    X.loc[5, "str"] = None
    y = rng.integers(0, 2, n)
    clf = TANClassifier().fit(X, y)
    assert clf.n_categories_.tolist() == [2, 3, 2, 4, 5, 12]
    assert list(clf.feature_names_in_) == list(X.columns)
    assert clf.predict(X).shape == (n,)


def test_tan_edges_are_shared_and_chow_liu_n_edges(rng):
    X, y = rng.integers(0, 3, (100, 6)), rng.integers(0, 2, 100)
    tan = TANClassifier().fit(X, y)
    assert tan.edges_[0] == tan.edges_[1] and len(tan.edges_[0]) == 5
    assert tan.edge_weights_.shape == (6, 6)
    cl = ChowLiuClassifier(n_edges=2).fit(X, y)
    full = ChowLiuClassifier().fit(X, y)
    for short, long in zip(cl.edges_, full.edges_, strict=True):
        assert short == long[:2]
    assert_array_equal(NaiveBayesClassifier().fit(X, y).edges_, [[], []])


def test_decision_function_is_log_odds(rng):
    X, y = rng.integers(0, 3, (50, 3)), rng.integers(0, 2, 50)
    clf = TANClassifier().fit(X, y)
    lp = clf.predict_log_proba(X)
    assert_allclose(clf.decision_function(X), lp[:, 1] - lp[:, 0])


@pytest.mark.parametrize(
    "make",
    [
        lambda: NaiveBayesClassifier(smoothing="hierarchical", alpha=1.0),
        lambda: TANClassifier(smoothing="hierarchical", alpha=1.0),
        lambda: ChowLiuClassifier(smoothing="hierarchical"),
        lambda: TANClassifier(smoothing="hierarchical"),  # alpha="auto": the marginals'
    ],
    ids=["nb", "tan", "chow-liu", "tan-auto"],
)
def test_hierarchical_smoothing_streams_and_a_refit_replaces_it(rng, make):
    X = rng.integers(0, 4, (400, 5)).astype(float)
    X[rng.random(X.shape) < 0.05] = np.nan
    y = (np.nan_to_num(X[:, 0]) + rng.integers(0, 2, 400) > 2).astype(int)
    full = make().fit(X, y)
    assert len(full.concentrations_) == 5
    assert all(np.all(c > 0) for c in full.concentrations_)
    if not isinstance(full.alpha, str):  # alpha="auto" keeps the rows; not streamed here
        streamed = make()
        for part in (slice(0, 11), slice(11, 250), slice(250, None)):
            streamed.partial_fit(X[part], y[part], classes=[0, 1])
        assert_allclose(streamed.predict_proba(X), full.predict_proba(X), rtol=1e-10)
    refit = full.set_params(smoothing="dirichlet").fit(X, y)
    assert not hasattr(refit, "concentrations_")


@pytest.mark.parametrize("structure", ["omi-cr", "cr"])
def test_hierarchical_tables_on_a_searched_structure(rng, structure):
    from discotree.models.discrete_forest import DiscreteForestModel
    from discotree.stats.pair_statistics import PairStatistics

    X = rng.integers(0, 3, (300, 5)).astype(float)
    X[rng.random(X.shape) < 0.05] = np.nan
    y = (np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) + rng.integers(0, 2, 300)) % 3
    plain = TANClassifier(structure=structure, alpha=1.0).fit(X, y)
    hier = TANClassifier(structure=structure, alpha=1.0, smoothing="hierarchical").fit(X, y)
    assert hier.edges_ == plain.edges_  # the search is the same; only the tables differ
    codes = hier.encoder_.transform(X)
    stats = PairStatistics.from_codes(codes, y, hier.n_categories_, 3)
    expected = DiscreteForestModel.from_statistics(
        stats, hier.parents_, alpha=1.0, epsilon=1e-5, smoothing="hierarchical"
    )
    assert_allclose(hier.predict_log_proba(X), _posterior(expected, codes, hier), rtol=1e-10)
    assert len(hier.concentrations_) == 5
    auto = TANClassifier(structure=structure, smoothing="hierarchical").fit(X, y)
    assert auto.edges_ == plain.edges_ and auto.alpha_ > 0


def _posterior(model, codes, clf):
    joint = model.log_likelihood(codes) + clf.class_log_prior_
    return joint - np.logaddexp.reduce(joint, axis=1, keepdims=True)


@pytest.mark.parametrize(
    "params, message",
    [
        ({"smoothing": "hdb"}, "smoothing must be one of"),
        ({"smoothing": "hierarchical", "alpha": 0.0}, "needs alpha > 0"),
        ({"smoothing": "hierarchical", "k": 2}, r"parameters='ml', k <= 1"),
        ({"smoothing": "hierarchical", "parameters": "cl"}, r"parameters='ml', k <= 1"),
        ({"smoothing": "hierarchical", "structure": "cr", "k": 2}, r"k <= 1"),
    ],
)
def test_bad_smoothing_is_named(params, message):
    X, y = np.zeros((4, 2)), np.array([0, 1, 0, 1])
    with pytest.raises(ValueError, match=message):
        TANClassifier(**params).fit(X, y)
