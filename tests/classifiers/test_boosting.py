"""Boosted graphical model classifiers (Algorithm 2 of Tan et al. 2010)."""

import itertools

import numpy as np
import pytest
from numpy.testing import assert_allclose

from discotree import BoostedGraphicalModelClassifier, DiscriminativeTreeClassifier
from discotree.learners.boosting import line_search_alpha


def test_line_search_minimises_the_weighted_exponential_loss(rng):
    for _ in range(20):
        margins = rng.normal(loc=0.3, size=50) * 3
        w = rng.random(50)
        w /= w.sum()
        alpha = line_search_alpha(margins, w)
        grid = np.linspace(0, 5 * max(alpha, 1.0), 20001)
        loss = [np.sum(w * np.exp(-b * margins)) for b in grid]
        assert np.sum(w * np.exp(-alpha * margins)) <= min(loss) + 1e-12
    assert line_search_alpha(np.array([1.0, 2.0]), np.array([0.5, 0.5])) == np.inf
    assert line_search_alpha(np.array([-1.0, 0.5]), np.array([0.5, 0.5])) == 0.0
    # discrete AdaBoost: alpha = log((1 - err) / err) / 2
    m = np.array([1, 1, 1, -1.0])
    assert line_search_alpha(m, np.full(4, 0.25)) == pytest.approx(0.5 * np.log(3))


def test_one_round_equals_the_base_learner(rng):
    X = rng.integers(0, 3, (300, 6))
    y = (X[:, 0] + X[:, 1] + rng.integers(0, 2, 300) > 2).astype(int)
    boosted = BoostedGraphicalModelClassifier(init="zero", n_estimators=1).fit(X, y)
    base = DiscriminativeTreeClassifier(alpha=1.0).fit(X, y)
    llr = base.decision_function(X) - (base.class_log_prior_[1] - base.class_log_prior_[0])
    (alpha,) = boosted.estimator_alphas_[0]
    assert_allclose(boosted.decision_function(X), alpha * llr, rtol=1e-9, atol=1e-9)
    assert [set(e) for e in boosted.edges_union_] == [set(e) for e in base.edges_]


def test_training_error_does_not_increase_on_a_separable_problem(rng):
    X = rng.integers(0, 2, (400, 6))
    y = (X[:, 0] ^ X[:, 1]) | (X[:, 2] & X[:, 3])  # a rule over pairs: separable
    clf = BoostedGraphicalModelClassifier(init="zero", n_estimators=8).fit(X, y)
    errors = [np.mean(p != y) for p in clf.staged_predict(X)]
    assert all(b <= a + 1e-12 for a, b in itertools.pairwise(errors))
    assert errors[-1] < errors[0] or errors[0] == 0


def test_proposition_7_union_of_edges(rng):
    X = rng.integers(0, 3, (300, 6))
    y = (X[:, 0] == X[:, 1]).astype(int)
    clf = BoostedGraphicalModelClassifier(init="zero", n_estimators=4).fit(X, y)
    union = [set(), set()]
    for r in clf.ensembles_[0].rounds:
        for c, edges in enumerate(r.model.edges()):
            union[c] |= set(edges)
    assert [set(e) for e in clf.edges_union_] == union
    # the decision is sum_t alpha_t log p_t / q_t (eq. 26)
    total = sum(
        r.alpha * (r.model.log_likelihood(clf._encode(X)) @ np.array([-1.0, 1.0]))
        for r in clf.ensembles_[0].rounds
    )
    assert_allclose(clf.decision_function(X), total, rtol=1e-10)


def test_perfect_and_useless_weak_learners_stop_cleanly(rng):
    X = rng.integers(0, 2, (100, 3))
    y = X[:, 0].copy()
    perfect = BoostedGraphicalModelClassifier(init="zero", n_estimators=5).fit(X, y)
    assert "perfect" in perfect.stopped_[0]
    assert np.isfinite(perfect.decision_function(X)).all()
    assert (perfect.predict(X) == y).all()
    constant = np.zeros((100, 2), dtype=int)
    useless = BoostedGraphicalModelClassifier(init="zero", n_estimators=5).fit(constant, y)
    assert "no better than chance" in useless.stopped_[0]
    assert np.all(useless.decision_function(constant) == 0)
    assert np.isfinite(useless.predict_proba(constant)).all()


@pytest.mark.parametrize("multiclass", ["pairwise", "ovr"])
@pytest.mark.parametrize("base", ["dt", "chow-liu", "tan"])
def test_multiclass_and_bases(rng, multiclass, base):
    X = rng.integers(0, 3, (300, 5))
    y = (X[:, 0] + (X[:, 1] == X[:, 2])) % 3
    clf = BoostedGraphicalModelClassifier(base=base, multiclass=multiclass, n_estimators=3)
    clf.fit(X, y)
    scores = clf.decision_function(X)
    assert scores.shape == (300, 3)
    assert (clf.predict(X) == clf.classes_[scores.argmax(axis=1)]).all()
    assert_allclose(clf.predict_proba(X).sum(axis=1), 1.0)
    assert clf.score(X, y) > 0.5


def test_number_of_rounds_by_cross_validation(rng):
    X = rng.integers(0, 3, (240, 5))
    y = (X[:, 0] == X[:, 1]).astype(int)
    clf = BoostedGraphicalModelClassifier(n_estimators=6, n_estimators_cv=3).fit(X, y)
    assert 1 <= clf.n_estimators_ <= 6
    assert len(clf.estimator_alphas_[0]) <= clf.n_estimators_


def test_rounds_by_cross_validation_weigh_the_held_out_errors(rng):
    """The CV error of each round is the held-out weight misclassified (was the plain
    error rate, whatever the weights): reference by refitting the same folds."""
    from sklearn.model_selection import StratifiedKFold

    X = rng.integers(0, 3, (240, 5))
    y = (X[:, 0] == X[:, 1]).astype(int)
    weight = np.where(rng.random(240) < 0.5, 0.1, 3.0)
    model = BoostedGraphicalModelClassifier(n_estimators=5, n_estimators_cv=3)
    chosen = model.fit(X, y, sample_weight=weight).n_estimators_
    errors = np.zeros(5)
    folds = StratifiedKFold(n_splits=3, shuffle=True, random_state=model.random_state)
    for train, test in folds.split(X, y):
        fold = BoostedGraphicalModelClassifier(n_estimators=5)
        fold.fit(X[train], y[train], sample_weight=weight[train])
        last, t = 0.0, -1
        for t, predicted in enumerate(fold.staged_predict(X[test])):
            last = np.average(predicted != y[test], weights=weight[test])
            errors[t] += last
        errors[t + 1 :] += last
    assert_allclose(model.n_estimators_cv_errors_, errors, rtol=1e-12)
    assert chosen == int(np.argmin(errors)) + 1


def test_discrete_adaboost_uses_signs(rng):
    X = rng.integers(0, 3, (200, 4))
    y = (X[:, 0] == X[:, 1]).astype(int)
    clf = BoostedGraphicalModelClassifier(algorithm="discrete", n_estimators=3).fit(X, y)
    alphas = clf.estimator_alphas_[0]
    values = np.unique(np.round(np.abs(clf.decision_function(X)), 9))
    assert len(values) <= 2 ** len(alphas)  # sums of +-alpha_t


def test_bad_parameters(rng):
    X, y = rng.integers(0, 3, (30, 3)), rng.integers(0, 2, 30)
    with pytest.raises(ValueError, match="base must be one of"):
        BoostedGraphicalModelClassifier(base="svm").fit(X, y)
    with pytest.raises(ValueError, match="n_estimators must be an integer >= 1"):
        BoostedGraphicalModelClassifier(n_estimators=0).fit(X, y)
    with pytest.raises(ValueError, match="n_estimators_cv must be an integer >= 2"):
        BoostedGraphicalModelClassifier(n_estimators_cv=1).fit(X, y)
    fitted = BoostedGraphicalModelClassifier(n_estimators=1).fit(X, y)
    assert not hasattr(fitted, "predict_joint_log_proba")  # hidden, so hasattr is honest
    with pytest.raises(AttributeError, match="unnormalised"):
        fitted.predict_joint_log_proba(X)


def test_quadratic_svm_baseline(rng):
    from discotree.classifiers.baselines import QuadraticSVMClassifier

    X = rng.normal(size=(200, 2))
    y = (X[:, 0] ** 2 + X[:, 1] ** 2 > 1.0).astype(int)  # needs the quadratic kernel
    clf = QuadraticSVMClassifier().fit(X, y)
    assert clf.score(X, y) > 0.9
    assert clf.C_ in clf.C_grid
