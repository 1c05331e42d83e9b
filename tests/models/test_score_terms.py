"""A row's available-case score terms (issue 48, item 3) against the models' own
scoring: every k-dependence member's back-off log-likelihood and every logistic
member's scores, for random observed sets, are the base plus the terms' lookups."""

import numpy as np
import pytest

from discotree import KDBClassifier, KDBEnsembleClassifier
from discotree.models.category_maps import apply_maps
from discotree.models.score_terms import (
    ScorePooling,
    backoff_only,
    score_terms,
    supports_score_terms,
)


def _data(n=150, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, (n, 5)).astype(float)
    X[:, 4] = rng.normal(size=n)
    y = ((X[:, 0] + X[:, 1] * X[:, 2] + (X[:, 4] > 0)) % 3).astype(int)
    return X, y


def _looked_up(terms, observed_set):
    """Each group's score for the observed set, from the terms."""
    scores = terms.base.copy()
    for t in range(len(terms.sizes)):
        pattern = sum(1 << b for b in range(terms.sizes[t]) if terms.features[t, b] in observed_set)
        scores[terms.groups[t]] += terms.tables[terms.offsets[t] + pattern]
    return scores


def _backoff_log_likelihood(member, codes):
    return sum(member.node_log_probability(node, codes) for node in member.attributes)


@pytest.mark.parametrize("smoothing", ["hierarchical", "dirichlet", "hdp"])
def test_ensemble_terms_add_up_to_each_members_score(smoothing):
    X, y = _data()
    clf = KDBEnsembleClassifier(
        n_estimators=2,
        estimator=KDBClassifier(2, smoothing=smoothing),
        max_categories=3,
        linear_weight=0.3,
        pair_weight=0.3,
        pair_significance=None,
    ).fit(X, y)
    model = clf.model_
    codes = clf.encoder_.transform(X[:2])
    codes[1, 1] = -1
    rows, pooling = score_terms(model, clf.class_log_prior_, codes)
    assert pooling.n_members == 2 and pooling.linear_group == 2 and pooling.pair_group == 3
    rng = np.random.default_rng(1)
    for i, terms in enumerate(rows):
        assert terms.observed.tolist() == (codes[i] >= 0).tolist()
        for _ in range(6):
            keep = rng.random(5) < 0.5
            masked = np.where(keep, codes[i], -1)[None]
            scores = _looked_up(terms, set(np.flatnonzero(keep).tolist()))
            for g, (maps, member) in enumerate(zip(model.maps, model.members, strict=True)):
                expected = _backoff_log_likelihood(member, apply_maps(masked, maps))[0]
                assert np.allclose(scores[g], expected + model.class_log_prior, atol=1e-12)
            assert np.allclose(scores[2], model.linear.scores(masked)[0], atol=1e-12)
            assert np.allclose(scores[3], model.pair_member.scores(masked)[0], atol=1e-12)


def test_kdb_terms_and_the_support_checks():
    X, y = _data()
    clf = KDBClassifier(k=2).fit(X, y)
    codes = clf.encoder_.transform(X[:1])
    (terms,), pooling = score_terms(clf.model_, clf.class_log_prior_, codes)
    assert pooling.n_groups == 1 and pooling.linear_group == -1
    everything = set(range(5))
    expected = clf.predict_joint_log_proba(X[:1])[0]
    assert np.allclose(_looked_up(terms, everything)[0], expected, atol=1e-12)
    assert supports_score_terms(clf.model_) and not backoff_only(clf.model_)
    assert backoff_only(KDBClassifier(k=0).fit(X, y).model_)
    assert not supports_score_terms(None)


def test_additive_weights():
    prior = np.zeros(2)
    one = ScorePooling(1, -1, 0.0, 1, 0.25, True, prior)
    assert one.additive_weights().tolist() == [0.75, 0.25]
    assert ScorePooling(1, -1, 0.0, 1, 0.25, False, prior).additive_weights() is None
    assert ScorePooling(2, -1, 0.0, -1, 0.0, True, prior).additive_weights() is None
    linear_only = ScorePooling(2, 2, 1.0, -1, 0.0, True, prior)
    assert linear_only.additive_weights().tolist() == [0.0, 0.0, 1.0]
    assert ScorePooling(1, 1, 0.5, -1, 0.0, True, prior).additive_weights() is None
