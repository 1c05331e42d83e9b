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


def test_one_hierarchical_round_equals_the_hierarchical_base_learner(rng):
    X = rng.integers(0, 3, (300, 6)).astype(float)
    X[rng.random(X.shape) < 0.05] = np.nan
    y = (np.nan_to_num(X[:, 0]) + rng.integers(0, 2, 300) > 1).astype(int)
    boosted = BoostedGraphicalModelClassifier(
        init="zero", n_estimators=1, smoothing="hierarchical", calibration="none"
    ).fit(X, y)
    base = DiscriminativeTreeClassifier(alpha=1.0, smoothing="hierarchical").fit(X, y)
    llr = base.decision_function(X) - (base.class_log_prior_[1] - base.class_log_prior_[0])
    (alpha,) = boosted.estimator_alphas_[0]
    assert_allclose(boosted.decision_function(X), alpha * llr, rtol=1e-9, atol=1e-9)
    plain = BoostedGraphicalModelClassifier(init="zero", n_estimators=1, calibration="none")
    assert not np.allclose(plain.fit(X, y).decision_function(X), boosted.decision_function(X))
    with pytest.raises(ValueError, match="smoothing must be one of"):
        BoostedGraphicalModelClassifier(smoothing="hdb").fit(X, y)
    with pytest.raises(ValueError, match="boosting reweights the rows"):
        BoostedGraphicalModelClassifier(smoothing="hdp").fit(X, y)


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
    # the first T* rounds of the full fit are the T*-round ensemble
    direct = BoostedGraphicalModelClassifier(n_estimators=clf.n_estimators_).fit(X, y)
    assert_allclose(clf.decision_function(X), direct.decision_function(X), rtol=1e-12)
    assert clf.edges_union_ == direct.edges_union_


def test_rounds_by_cross_validation_weigh_the_held_out_errors(rng):
    """The CV error of each round is the held-out weight misclassified (was the plain
    error rate, whatever the weights): reference by refitting the same folds, the
    weight-equivalent content folds seeded by random_state."""
    from discotree.stats.folds import content_folds, fold_splits

    X = rng.integers(0, 3, (240, 5))
    y = (X[:, 0] == X[:, 1]).astype(int)
    weight = np.where(rng.random(240) < 0.5, 0.1, 3.0)
    model = BoostedGraphicalModelClassifier(n_estimators=5, n_estimators_cv=3)
    chosen = model.fit(X, y, sample_weight=weight).n_estimators_
    errors = np.zeros(5)
    for train, test in fold_splits(content_folds(model._encode(X), 3, model.random_state), 3):
        fold = BoostedGraphicalModelClassifier(n_estimators=5, calibration="none")
        fold.fit(X[train], y[train], sample_weight=weight[train])
        last, t = 0.0, -1
        for t, predicted in enumerate(fold.staged_predict(X[test])):
            last = np.average(predicted != y[test], weights=weight[test])
            errors[t] += last
        errors[t + 1 :] += last
    assert_allclose(model.n_estimators_cv_errors_, errors, rtol=1e-12)
    assert chosen == int(np.argmin(errors)) + 1


def _scale_losses(scores, truth, weight):
    """Reference: the weighted held-out log-loss of softmax(s * scores) per scale."""
    from scipy.special import log_softmax

    from discotree.stats.alpha_selection import CALIBRATION_SCALES

    if scores.ndim == 1:
        scores = np.column_stack([-scores, scores])
    return np.array(
        [
            -weight @ log_softmax(s * scores, axis=1)[np.arange(len(truth)), truth]
            for s in CALIBRATION_SCALES
        ]
    )


@pytest.mark.parametrize("n_classes", [2, 3])
def test_calibration_losses_equal_refitting_on_every_fold(n_classes, rng):
    """calibration="cv" (the default): the scale's held-out losses are those of the
    ensemble refitted on each weight-equivalent content fold."""
    from discotree.stats.alpha_selection import CALIBRATION_SCALES, best_scale
    from discotree.stats.folds import content_folds

    X = rng.integers(0, 3, (300, 5))
    y = (X[:, 0] + (X[:, 1] == X[:, 2]) + (rng.random(300) < 0.2)) % n_classes
    weight = rng.choice([0.5, 1.0, 2.0], 300)
    model = BoostedGraphicalModelClassifier(n_estimators=4).fit(X, y, sample_weight=weight)
    folds = content_folds(model._encode(X), 5)
    expected = np.zeros(len(CALIBRATION_SCALES))
    for k in range(5):
        train, test = folds != k, folds == k
        fold = BoostedGraphicalModelClassifier(n_estimators=4, calibration="none")
        fold.fit(X[train], y[train], sample_weight=weight[train])
        truth = np.searchsorted(model.classes_, y[test])
        expected += _scale_losses(fold.decision_function(X[test]), truth, weight[test])
    assert_allclose(model.calibration_cv_losses_, expected, rtol=1e-9)
    assert model.calibration_scale_ == best_scale(expected, CALIBRATION_SCALES)
    raw = BoostedGraphicalModelClassifier(n_estimators=4, calibration="none")
    raw.fit(X, y, sample_weight=weight)
    assert raw.calibration_scale_ == 1.0 and not hasattr(raw, "calibration_cv_losses_")
    assert_allclose(model.decision_function(X), raw.decision_function(X), rtol=0, atol=0)
    assert (model.predict(X) == raw.predict(X)).all()
    scores = raw.decision_function(X)
    if scores.ndim == 1:
        scores = np.column_stack([-scores, scores])
    from scipy.special import softmax

    assert_allclose(
        model.predict_proba(X), softmax(model.calibration_scale_ * scores, axis=1), rtol=1e-12
    )
    assert np.abs(model.predict_proba(X).sum(axis=1) - 1).max() <= 1e-12


def test_calibration_reuses_the_folds_of_n_estimators_cv(rng):
    """With n_estimators_cv the scale comes from its folds' held-out scores at the
    chosen number of rounds (no more fits), and the chosen T does not change."""
    from discotree.stats.folds import content_folds, fold_splits

    X = rng.integers(0, 3, (240, 5))
    y = ((X[:, 0] == X[:, 1]) ^ (rng.random(240) < 0.15)).astype(int)
    model = BoostedGraphicalModelClassifier(n_estimators=5, n_estimators_cv=3, random_state=7)
    model.fit(X, y)
    plain = BoostedGraphicalModelClassifier(
        n_estimators=5, n_estimators_cv=3, calibration="none", random_state=7
    )
    assert plain.fit(X, y).n_estimators_ == model.n_estimators_
    expected = np.zeros(len(model.calibration_cv_losses_))
    for train, test in fold_splits(content_folds(model._encode(X), 3, 7), 3):
        fold = BoostedGraphicalModelClassifier(n_estimators=5, calibration="none")
        fold.fit(X[train], y[train])
        staged = list(fold.staged_decision_function(X[test]))
        scores = staged[min(model.n_estimators_, len(staged)) - 1]
        expected += _scale_losses(scores, y[test], np.ones(len(test)))
    assert_allclose(model.calibration_cv_losses_, expected, rtol=1e-9)


def test_calibrated_probabilities_lose_less_on_held_out_rows(rng):
    """Boosted scores are overconfident; the scaled ones lose less on new rows."""
    X = rng.integers(0, 3, (1200, 8))
    y = ((X[:, 0] + X[:, 1] + X[:, 2] > 3) ^ (rng.random(1200) < 0.25)).astype(int)
    train, test = slice(0, 600), slice(600, None)

    def loss(calibration):
        clf = BoostedGraphicalModelClassifier(calibration=calibration)
        proba = clf.fit(X[train], y[train]).predict_proba(X[test])
        return -np.mean(np.log(proba[np.arange(600), y[test]]))

    assert loss("cv") < loss("none") - 0.05


def test_calibration_parameter_and_old_files(rng):
    X, y = rng.integers(0, 3, (60, 3)), rng.integers(0, 2, 60)
    with pytest.raises(ValueError, match="calibration must be one of"):
        BoostedGraphicalModelClassifier(calibration="platt").fit(X, y)
    fitted = BoostedGraphicalModelClassifier(n_estimators=2, calibration="none").fit(X, y)
    state = dict(fitted.__getstate__())
    del state["calibration"], state["calibration_scale_"]  # saved before the parameter
    old = BoostedGraphicalModelClassifier.__new__(BoostedGraphicalModelClassifier)
    old.__setstate__(state)
    assert old.calibration == "none" and old.calibration_scale_ == 1.0
    assert_allclose(old.predict_proba(X), fitted.predict_proba(X))


def test_discrete_adaboost_uses_signs(rng):
    X = rng.integers(0, 3, (200, 4))
    y = (X[:, 0] == X[:, 1]).astype(int)
    clf = BoostedGraphicalModelClassifier(algorithm="discrete", n_estimators=3).fit(X, y)
    alphas = clf.estimator_alphas_[0]
    values = np.unique(np.round(np.abs(clf.decision_function(X)), 9))
    assert len(values) <= 2 ** len(alphas)  # sums of +-alpha_t


@pytest.mark.parametrize(
    "params, message",
    [
        ({"base": "svm"}, "base must be one of"),
        ({"n_estimators": 0}, "n_estimators must be an integer >= 1"),
        ({"n_estimators_cv": 1}, "n_estimators_cv must be an integer >= 2"),
    ],
)
def test_bad_parameters(rng, params, message):
    X, y = rng.integers(0, 3, (30, 3)), rng.integers(0, 2, 30)
    with pytest.raises(ValueError, match=message):
        BoostedGraphicalModelClassifier(**params).fit(X, y)


def test_the_joint_is_hidden(rng):
    X, y = rng.integers(0, 3, (30, 3)), rng.integers(0, 2, 30)
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
