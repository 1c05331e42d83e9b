"""Discriminative trees: optimality, weights, Proposition 4, Gaussian example, multiclass."""

import itertools

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from discotree import (
    BoostedGraphicalModelClassifier,
    ChowLiuClassifier,
    DiscriminativeTreeClassifier,
)
from discotree.datasets.synthetic import gaussian_example
from discotree.learners.discriminative_tree import pair_model, two_class
from discotree.learners.registry import LearnerSpec
from discotree.models.discrete_forest import DiscreteForestModel
from discotree.stats.alpha_selection import ALPHA_GRID
from discotree.stats.pair_statistics import PairStatistics
from discotree.structure.discriminative import discriminative_forest_paths, union_cost_objective
from discotree.structure.spanning import orient_forest
from tests import reference


def _all_forests(n, max_edges):
    candidates = [(i, j) for i in range(n) for j in range(i + 1, n)]
    for size in range(max_edges + 1):
        for subset in itertools.combinations(candidates, size):
            if reference.is_forest(n, subset):
                yield subset


@pytest.mark.parametrize("n", [3, 4, 5])
@pytest.mark.parametrize("cost_kind", ["none", "scalar", "matrix"])
def test_forest_pair_is_optimal_for_every_k(rng, n, cost_kind):
    a, b = rng.normal(size=(n, n)), rng.normal(size=(n, n))
    psi_pos, psi_neg = a + a.T, b + b.T
    cost = {"none": 0.0, "scalar": 0.3, "matrix": np.abs(rng.normal(size=(n, n))) * 0.5}[cost_kind]
    c = np.full((n, n), cost) if np.ndim(cost) == 0 else np.triu(cost, 1) + np.triu(cost, 1).T
    path_pos, path_neg = discriminative_forest_paths(psi_pos, psi_neg, cost)
    for k in range(n):
        forests = list(_all_forests(n, k))
        value_p = np.array([sum(psi_pos[e] - c[e] for e in f) for f in forests])
        value_q = np.array([sum(psi_neg[e] - c[e] for e in f) for f in forests])
        best = (value_p[:, None] + value_q[None, :]).max()  # every pair of forests
        ours = sum(psi_pos[e] - c[e] for e in path_pos.forest(k))
        ours += sum(psi_neg[e] - c[e] for e in path_neg.forest(k))
        assert ours == pytest.approx(best, abs=1e-12)
        # nested (Corollary 6)
        assert path_pos.forest(k) == path_pos.edges[:k]
    assert all(w > 0 for w in path_pos.weights)  # stops at non-positive weights


def test_binary_forests_are_spanning_forests_of_the_reference_weights(rng):
    X = rng.integers(0, 3, (300, 5))
    y = (X[:, 0] + X[:, 1] + rng.integers(0, 2, 300) > 2).astype(int)
    clf = DiscriminativeTreeClassifier(alpha=0.5).fit(X, y)
    psi_pos, psi_neg = reference.discriminative_weights(
        X.astype(np.intp), y, None, np.array([3] * 5), 1, 0, 0.5
    )
    assert_allclose(clf.edge_weights_[1], psi_pos, atol=1e-10)
    assert_allclose(clf.edge_weights_[0], psi_neg, atol=1e-10)
    for edges, psi in ((clf.edges_[1], psi_pos), (clf.edges_[0], psi_neg)):
        assert reference.is_forest(5, edges)
        assert sum(psi[e] for e in edges) == pytest.approx(
            max(sum(psi[e] for e in f) for f in _all_forests(5, 4)), abs=1e-10
        )
    path = clf.j_divergence_path_
    assert np.all(np.diff(path) >= -1e-12)
    assert [e[2] for e in clf.discriminative_edges_] == sorted(
        (e[2] for e in clf.discriminative_edges_), reverse=True
    )


def test_empirical_log_likelihood_ratio_equals_j_hat_up_to_a_constant(rng):
    """Proposition 4: over all pairs of spanning trees, sum_l y_l log p/q equals
    L * (sum_{E_p} psi+ + sum_{E_q} psi-) plus one constant; so both pick the DT pair."""
    n, L = 4, 600
    X = np.vstack([rng.integers(0, 2, (L, n)), rng.integers(0, 2, (L, n))])
    X[L:, 1] = np.where(rng.random(L) < 0.8, X[L:, 0], X[L:, 1])
    X[:L, 3] = np.where(rng.random(L) < 0.7, X[:L, 2], X[:L, 3])
    y = np.repeat([0, 1], L)
    stats = PairStatistics.from_codes(X, y, np.array([2] * n), 2)
    clf = DiscriminativeTreeClassifier(alpha=1e-9, epsilon=1e-12).fit(X, y)
    psi_neg, psi_pos = clf.edge_weights_
    trees = list(reference.spanning_trees(n))
    gaps, objectives = [], {}
    for tp in trees:
        for tq in trees:
            parents = np.stack([orient_forest(n, tq), orient_forest(n, tp)])
            model = DiscreteForestModel.from_statistics(stats, parents, alpha=1e-9, epsilon=1e-12)
            loglik = model.log_likelihood(X)
            llr = loglik[:, 1] - loglik[:, 0]
            objective = llr[y == 1].sum() - llr[y == 0].sum()
            objectives[(tuple(tp), tuple(tq))] = objective
            gaps.append(objective / L - sum(psi_pos[e] for e in tp) - sum(psi_neg[e] for e in tq))
    assert np.ptp(gaps) < 1e-6
    best = max(objectives, key=objectives.get)
    assert set(best[0]) == set(clf.edges_[1]) and set(best[1]) == set(clf.edges_[0])


def test_gaussian_example_discriminative_edges_stay_in_the_discriminative_block():
    """Section V-A: from the true covariances, DT picks edges of the lower-right block,
    Chow-Liu the same tree for both classes."""
    example = gaussian_example(10, random_state=0)
    X, y = example.sample(20000, random_state=0)
    dt = DiscriminativeTreeClassifier(distribution="gaussian").fit(X, y)
    for edges in dt.edges_:  # a tree on the 5 discriminative variables comes first
        assert all(i >= 5 and j >= 5 for i, j in edges[:4])
    assert dt.score(X, y) > 0.6
    assert np.all(np.diff(dt.j_divergence_path_) >= -1e-9)


def test_n_edges_and_staged_decisions(rng):
    X = rng.integers(0, 3, (200, 6))
    y = (X[:, 0] == X[:, 1]).astype(int)
    full = DiscriminativeTreeClassifier(alpha=1.0).fit(X, y)
    staged = dict(full.staged_decision_function(X))
    assert_allclose(staged[max(staged)], full.decision_function(X), rtol=1e-10)
    for k in (0, 1, 2):
        fitted = DiscriminativeTreeClassifier(n_edges=k, alpha=1.0).fit(X, y)
        assert all(len(e) <= k for e in fitted.edges_)
        assert_allclose(staged[k], fitted.decision_function(X), rtol=1e-10)


@pytest.mark.parametrize("multiclass", ["pairwise", "ovr"])
def test_multiclass_rules(rng, multiclass):
    X = rng.integers(0, 3, (300, 5))
    y = (X[:, 0] + (X[:, 1] == X[:, 2])) % 3
    clf = DiscriminativeTreeClassifier(multiclass=multiclass).fit(X, y)
    scores = clf.decision_function(X)
    assert scores.shape == (300, 3)
    assert (clf.predict(X) == clf.classes_[scores.argmax(axis=1)]).all()
    assert_allclose(clf.predict_proba(X).sum(axis=1), 1.0)
    assert clf.score(X, y) > 0.6
    assert len(clf.forest_pairs_) == 3
    with pytest.raises(AttributeError, match="two classes only"):
        clf.predict_joint_log_proba(X)


@pytest.mark.parametrize("smoothing", ["dirichlet", "hierarchical"])
def test_only_two_class_pairs_and_no_boosted_round_keep_dirichlet_posteriors(rng, smoothing):
    # the posteriors serve predict_uncertainty, which needs two classes: with more, the
    # pairs drop them (half of what each problem holds) and score the same
    X = rng.integers(0, 3, (300, 5))
    y = (X[:, 0] + (X[:, 1] == X[:, 2])) % 3
    multi = DiscriminativeTreeClassifier(alpha=1.0, smoothing=smoothing).fit(X, y)
    assert [p.model.posterior for p in multi.forest_pairs_] == [None] * 3
    assert not hasattr(multi, "predict_uncertainty")
    rows = y < 2
    binary = DiscriminativeTreeClassifier(alpha=1.0, smoothing=smoothing).fit(X[rows], y[rows])
    assert binary.forest_pairs_[0].model.posterior is not None
    assert binary.predict_uncertainty(X[:5]).total.shape == (5,)
    kept = two_class(multi.statistics_, 0, 1)  # the same problem's model, posterior kept
    pair = next(p for p in multi.forest_pairs_ if (p.positive, p.negative) == (0, 1))
    spec = LearnerSpec("discriminative-tree", 1.0, multi.epsilon, options={"smoothing": smoothing})
    full = pair_model(kept, pair.path_pos, pair.path_neg, None, spec)
    assert full.posterior is not None
    codes = multi._encode(X)
    assert_array_equal(full.log_likelihood(codes), pair.model.log_likelihood(codes))
    boosted = BoostedGraphicalModelClassifier(n_estimators=2, smoothing=smoothing).fit(X, y)
    rounds = [r for ensemble in boosted.ensembles_ for r in ensemble.rounds]
    assert rounds and [r.model.posterior for r in rounds] == [None] * len(rounds)


def test_pairwise_composite_for_two_of_three_classes_matches_binary_fit(rng):
    X = rng.integers(0, 3, (300, 4))
    y = rng.integers(0, 3, 300)
    multi = DiscriminativeTreeClassifier(alpha=1.0).fit(X, y)
    pair = next(p for p in multi.forest_pairs_ if (p.positive, p.negative) == (0, 1))
    rows = y < 2
    binary = DiscriminativeTreeClassifier(alpha=1.0).fit(X[rows], y[rows])  # positive = class 1
    assert pair.path_pos.edges == [(i, j) for i, j, _ in binary.edge_path_[0]]
    assert pair.path_neg.edges == [(i, j) for i, j, _ in binary.edge_path_[1]]
    llr = pair.log_ratio(multi._encode(X))  # log p-hat_0 / p-hat_1
    prior = binary.class_log_prior_[1] - binary.class_log_prior_[0]
    assert_allclose(llr, -(binary.decision_function(X) - prior), rtol=1e-9, atol=1e-9)


def test_missing_values_are_summed_out(rng):
    X = rng.integers(0, 3, (200, 4)).astype(float)
    y = (X[:, 0] == X[:, 1]).astype(int)
    clf = DiscriminativeTreeClassifier().fit(X, y)
    row = np.array([[1.0, np.nan, 2.0, np.nan]])
    fills = np.array([[1.0, a, 2.0, b] for a in range(3) for b in range(3)])
    from scipy.special import logsumexp

    assert_allclose(
        clf.predict_joint_log_proba(row)[0],
        logsumexp(clf.predict_joint_log_proba(fills), axis=0),
        rtol=1e-10,
    )


def test_bad_parameters(rng):
    X, y = rng.integers(0, 3, (30, 3)), rng.integers(0, 2, 30)
    with pytest.raises(ValueError, match="alpha must be > 0"):
        DiscriminativeTreeClassifier(alpha=0.0).fit(X, y)
    with pytest.raises(ValueError, match="distribution must be one of"):
        DiscriminativeTreeClassifier(distribution="poisson").fit(X, y)
    with pytest.raises(ValueError, match="multiclass must be one of"):
        DiscriminativeTreeClassifier(multiclass="ecoc").fit(X, y)
    with pytest.raises(ValueError, match="edge_cost must be a scalar or a"):
        DiscriminativeTreeClassifier(edge_cost=np.ones((2, 2))).fit(X, y)
    with pytest.raises(ValueError, match="edge_cost must be finite and >= 0"):
        DiscriminativeTreeClassifier(edge_cost=-1.0).fit(X, y)
    with pytest.raises(ValueError, match="is not numeric"):
        DiscriminativeTreeClassifier(distribution="gaussian").fit(
            np.array([["a", 1.0]] * 10, dtype=object), [0, 1] * 5
        )


def test_chow_liu_gives_identical_trees_where_dt_discriminates():
    example = gaussian_example(10, random_state=1)
    X, y = example.sample(5000, random_state=1)
    dt = DiscriminativeTreeClassifier(distribution="gaussian").fit(X, y)
    cl = ChowLiuClassifier(max_categories=1).fit(X, y)  # discretised, for contrast only
    assert len(dt.edges_[0]) <= 9 and len(cl.edges_[0]) == 9


@pytest.mark.parametrize("multiclass", ["pairwise", "ovr"])
def test_staged_multiclass_scores_match_refits(rng, multiclass):
    X = rng.integers(0, 3, (240, 5))
    y = (X[:, 0] + (X[:, 1] == X[:, 2])) % 3
    full = DiscriminativeTreeClassifier(multiclass=multiclass, alpha=1.0).fit(X, y)
    staged = dict(full.staged_decision_function(X, [0, 1, 3]))
    for k in (0, 1, 3):
        refit = DiscriminativeTreeClassifier(n_edges=k, multiclass=multiclass, alpha=1.0).fit(X, y)
        assert_allclose(staged[k], refit.decision_function(X), rtol=1e-10, atol=1e-10)


def test_n_edges_by_cross_validation(rng):
    X = rng.integers(0, 3, (300, 8))
    y = ((X[:, 0] == X[:, 1]) ^ (rng.random(300) < 0.1)).astype(int)
    clf = DiscriminativeTreeClassifier(n_edges="cv").fit(X, y)
    assert clf.n_edges_ is not None and 0 <= clf.n_edges_ <= 7
    assert all(len(e) <= clf.n_edges_ for e in clf.edges_)
    fixed = DiscriminativeTreeClassifier(n_edges=clf.n_edges_).fit(X, y)
    assert_allclose(clf.decision_function(X), fixed.decision_function(X))
    with pytest.raises(ValueError, match="n_edges must be None, 'cv' or an integer"):
        DiscriminativeTreeClassifier(n_edges="auto").fit(X, y)


def test_n_edges_by_cross_validation_scores_the_content_folds(rng):
    """n_edges="cv": the weight-equivalent content folds (a row of weight 2 and the row
    repeated are held out together) and the held-out correct weight; reference by
    refitting the folds."""
    from discotree.stats.folds import content_folds, fold_splits

    X = rng.integers(0, 3, (240, 6))
    y = ((X[:, 0] == X[:, 1]) ^ (rng.random(240) < 0.15)).astype(int)
    twice = rng.random(240) < 0.3
    weighted = DiscriminativeTreeClassifier(n_edges="cv", alpha=1.0, random_state=3)
    weighted.fit(X, y, sample_weight=np.where(twice, 2.0, 1.0))
    rows = np.concatenate([np.arange(240), np.flatnonzero(twice)])
    repeated = DiscriminativeTreeClassifier(n_edges="cv", alpha=1.0, random_state=3)
    assert repeated.fit(X[rows], y[rows]).n_edges_ == weighted.n_edges_
    grid = [0, *np.unique(np.geomspace(1, 5, 20).round().astype(int))]
    score = np.zeros(len(grid))
    for train, test in fold_splits(content_folds(weighted.encoder_.transform(X), 5, 3), 5):
        fold = DiscriminativeTreeClassifier(alpha=1.0).fit(X[train], y[train])
        for g, (_, decision) in enumerate(fold.staged_decision_function(X[test], grid)):
            score[g] += np.sum(((decision > 0).astype(int) == y[test]) * 1.0)
    assert weighted.n_edges_ is not None
    unweighted = DiscriminativeTreeClassifier(n_edges="cv", alpha=1.0, random_state=3).fit(X, y)
    assert unweighted.n_edges_ == grid[int(np.argmax(score))]


def _union_optimum(psi_pos, psi_neg, c, n):
    forests = list(_all_forests(n, n - 1))
    return max(
        union_cost_objective(psi_pos, psi_neg, c, fp, fq) for fp in forests for fq in forests
    )


@pytest.mark.parametrize("n", [3, 4])
def test_union_cost_accounting_against_exhaustive_search(n):
    """Eq. 24 charges a shared edge once. Block-coordinate ascent is never worse than the
    per-forest optimum, leaves no forest improvable given the other, and reaches the
    exhaustive optimum on most random instances (measured, with fixed seeds)."""
    hits, trials = 0, 40
    for seed in range(trials):
        rng = np.random.default_rng(seed)
        a, b = rng.normal(size=(n, n)), rng.normal(size=(n, n))
        psi_pos, psi_neg = np.abs(a + a.T), np.abs(b + b.T)
        cost = np.abs(rng.normal(size=(n, n)))
        c = np.triu(cost, 1) + np.triu(cost, 1).T
        per_p, per_q = discriminative_forest_paths(psi_pos, psi_neg, cost)
        uni_p, uni_q = discriminative_forest_paths(psi_pos, psi_neg, cost, "union")
        ours = union_cost_objective(psi_pos, psi_neg, c, uni_p.edges, uni_q.edges)
        baseline = union_cost_objective(psi_pos, psi_neg, c, per_p.edges, per_q.edges)
        assert ours >= baseline - 1e-12
        forests = list(_all_forests(n, n - 1))
        best_p = max(union_cost_objective(psi_pos, psi_neg, c, f, uni_q.edges) for f in forests)
        best_q = max(union_cost_objective(psi_pos, psi_neg, c, uni_p.edges, f) for f in forests)
        assert ours == pytest.approx(max(best_p, best_q), abs=1e-12)
        optimum = _union_optimum(psi_pos, psi_neg, c, n)
        assert ours <= optimum + 1e-12
        hits += ours >= optimum - 1e-12
    assert hits >= 0.9 * trials


def test_union_accounting_pays_a_shared_edge_once():
    # one edge worth 0.6 to each forest, cost 1: per forest it never pays (0.6 < 1),
    # in the union it does (0.6 + 0.6 > 1), so both forests take it
    psi = np.zeros((3, 3))
    psi[0, 1] = psi[1, 0] = 0.6
    per_p, per_q = discriminative_forest_paths(psi, psi, 1.0)
    assert per_p.edges == per_q.edges == []
    uni_p, uni_q = discriminative_forest_paths(psi, psi, 1.0, "union")
    # from the per-forest optimum (empty) neither forest alone gains from the edge (a
    # block-coordinate optimum that is not global); the shared start finds it
    assert uni_p.edges == uni_q.edges == [(0, 1)]
    assert union_cost_objective(psi, psi, 1.0, [(0, 1)], [(0, 1)]) == pytest.approx(0.2)
    # with the edge worth 1.5 to p alone, p takes it and q follows for free
    psi_p = psi.copy()
    psi_p[0, 1] = psi_p[1, 0] = 1.5
    uni_p, uni_q = discriminative_forest_paths(psi_p, psi, 1.0, "union")
    assert uni_p.edges == uni_q.edges == [(0, 1)]
    per_p, per_q = discriminative_forest_paths(psi_p, psi, 1.0)
    assert per_p.edges == [(0, 1)] and per_q.edges == []


def test_union_accounting_in_the_classifier(rng):
    X = rng.integers(0, 3, size=(300, 5))
    y = (X[:, 0] + X[:, 1] + rng.integers(0, 2, 300) > 2).astype(int)
    per = DiscriminativeTreeClassifier(edge_cost=0.01).fit(X, y)
    uni = DiscriminativeTreeClassifier(edge_cost=0.01, cost_accounting="union").fit(X, y)
    pair = uni.forest_pairs_[0]
    shared = set(pair.path_pos.edges) & set(pair.path_neg.edges)
    per_pair = per.forest_pairs_[0]
    assert shared >= set(per_pair.path_pos.edges) & set(per_pair.path_neg.edges)
    with pytest.raises(ValueError, match="cost_accounting"):
        DiscriminativeTreeClassifier(cost_accounting="once").fit(X, y)


def test_hierarchical_pairs_without_edges_are_hierarchical_naive_bayes(rng):
    from discotree import NaiveBayesClassifier

    X = rng.integers(0, 4, (300, 5)).astype(float)
    X[rng.random(X.shape) < 0.08] = np.nan
    y = (np.nan_to_num(X[:, 0]) + rng.integers(0, 3, 300) > 3).astype(int)
    w = rng.integers(1, 4, 300).astype(float)
    pair = DiscriminativeTreeClassifier(
        smoothing="hierarchical", n_edges=0, alpha=1.0, calibration="none"
    ).fit(X, y, sample_weight=w)
    nb = NaiveBayesClassifier(smoothing="hierarchical", alpha=1.0).fit(X, y, sample_weight=w)
    assert_allclose(pair.predict_proba(X), nb.predict_proba(X), rtol=1e-10)
    dirichlet = DiscriminativeTreeClassifier(n_edges=0, alpha=1.0, calibration="none").fit(X, y)
    assert not np.allclose(dirichlet.predict_proba(X), pair.predict_proba(X))


def test_hierarchical_pairs_stream_choose_alpha_and_stage(rng):
    X = rng.integers(0, 3, (450, 4)).astype(float)
    X[rng.random(X.shape) < 0.05] = np.nan
    y = (np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) + rng.integers(0, 2, 450)) % 3
    full = DiscriminativeTreeClassifier(smoothing="hierarchical", alpha=1.0).fit(X, y)
    streamed = DiscriminativeTreeClassifier(smoothing="hierarchical", alpha=1.0)
    for part in (slice(0, 17), slice(17, 300), slice(300, None)):
        streamed.partial_fit(X[part], y[part], classes=[0, 1, 2])
    assert_allclose(streamed.decision_function(X), full.decision_function(X), rtol=1e-10)
    *_, (k, last) = full.staged_decision_function(X)
    assert k == 3
    assert_allclose(last, full.decision_function(X), rtol=1e-10)
    auto = DiscriminativeTreeClassifier(smoothing="hierarchical").fit(X, y)
    assert auto.alpha_ in ALPHA_GRID and auto.alpha_cv_losses_.shape[1] == len(ALPHA_GRID)
    # the hierarchical tables differ from the Dirichlet ones of the same forests
    plain = DiscriminativeTreeClassifier().fit(X, y)
    assert not np.allclose(plain.decision_function(X), auto.decision_function(X))


@pytest.mark.parametrize(
    "params, message",
    [
        ({"smoothing": "x"}, "smoothing must be one of"),
        ({"smoothing": "hierarchical", "parameters": "altmax"}, "parameters='altmax' replaces"),
        ({"smoothing": "hierarchical", "distribution": "gaussian"}, "discrete tables only"),
        ({"smoothing": "hierarchical", "alpha": 0.0}, "needs alpha > 0"),
    ],
)
def test_bad_pair_smoothing_is_named(params, message):
    X, y = np.zeros((4, 2)), np.array([0, 1, 0, 1])
    with pytest.raises(ValueError, match=message):
        DiscriminativeTreeClassifier(**params).fit(X, y)
