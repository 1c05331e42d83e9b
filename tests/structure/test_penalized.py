"""Penalised forests (n_edges="bic"/"aic"): exhaustive search and the likelihood."""

import itertools

import numpy as np
import pytest

from discotree import ChowLiuClassifier, TANClassifier
from discotree.structure.chow_liu import edge_penalty, penalized_forest
from tests.reference import is_forest


def test_penalized_forest_is_the_best_forest_by_exhaustive_search(rng):
    n = 5
    gain = rng.random((n, n)) * 3
    gain = gain + gain.T
    penalty = rng.random((n, n)) * 3
    penalty = penalty + penalty.T
    pairs = list(itertools.combinations(range(n), 2))
    best = max(
        sum(gain[e] - penalty[e] for e in subset)
        for k in range(n)
        for subset in itertools.combinations(pairs, k)
        if is_forest(n, subset)
    )
    chosen = penalized_forest(gain, penalty)
    assert is_forest(n, chosen)
    assert sum(gain[e] - penalty[e] for e in chosen) == pytest.approx(best, abs=1e-12)


def _sample(rng, n):
    y = rng.integers(0, 2, n)
    X = rng.integers(0, 3, (n, 5))
    X[:, 1] = np.where(rng.random(n) < 0.8, X[:, 0], X[:, 1])  # one strong edge
    X[:, 2] = np.where(rng.random(n) < 0.15, X[:, 1], X[:, 2])  # one weak edge
    return X, y


@pytest.mark.parametrize("criterion", ["bic", "aic"])
def test_the_tan_forest_maximises_the_penalised_log_likelihood(criterion, rng):
    """Among the forests of the CMI path (empty, every prefix, the spanning tree), the
    chosen one has the largest training log-likelihood minus the parameter penalty; the
    log-likelihood is computed from the fitted model, not from the CMI."""
    X, y = _sample(rng, 200)
    chosen = TANClassifier(n_edges=criterion, alpha=1e-10, epsilon=0.0).fit(X, y)
    penalty = edge_penalty(np.full(5, 3), 2, criterion, len(y))

    def score(n_edges):
        model = TANClassifier(n_edges=n_edges, alpha=1e-10, epsilon=0.0).fit(X, y)
        joint = model.predict_joint_log_proba(X)[np.arange(len(y)), model.classes_.searchsorted(y)]
        edges = model.edges_[0]
        return joint.sum() - sum(penalty[e] for e in edges), edges

    best_value, best_edges = max((score(k) for k in range(5)), key=lambda t: t[0])
    assert sorted(chosen.edges_[0]) == sorted(best_edges)
    assert score(len(chosen.edges_[0]))[0] == pytest.approx(best_value)


def test_penalties_give_forests_on_small_data_and_trees_on_large(rng):
    small, y_small = _sample(rng, 40)
    large, y_large = _sample(rng, 5000)
    for model in (TANClassifier(n_edges="bic"), ChowLiuClassifier(n_edges="bic")):
        assert max(len(e) for e in model.fit(small, y_small).edges_) < 4
        assert (0, 1) in model.fit(large, y_large).edges_[0]
    assert len(ChowLiuClassifier(n_edges="aic").fit(large, y_large).edges_[0]) >= len(
        ChowLiuClassifier(n_edges="bic").fit(large, y_large).edges_[0]
    )
