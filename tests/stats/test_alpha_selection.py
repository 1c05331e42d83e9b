"""alpha="auto": fold statistics by subtraction, checked against brute-force CV."""

from dataclasses import replace

import numpy as np
import pytest
from scipy.special import logsumexp
from sklearn.base import clone

from discotree import (
    ChowLiuClassifier,
    DiscriminativeTreeClassifier,
    NaiveBayesClassifier,
    TANClassifier,
)
from discotree.learners.discriminative_tree import two_class
from discotree.learners.registry import get_learner
from discotree.models.discrete_forest import DiscreteForestModel
from discotree.stats.alpha_selection import (
    ALPHA_GRID,
    choose_alpha,
    content_folds,
    forest_models_by_alpha,
)
from discotree.stats.pair_statistics import PairStatistics


def _codes(rng, n=300, d=5, r=3, missing=0.1):
    codes = rng.integers(0, r, (n, d))
    codes[rng.random((n, d)) < missing] = -1
    return codes, np.full(d, r, dtype=np.intp)


def test_fold_statistics_by_subtraction_equal_counting_the_complement(rng):
    codes, n_categories = _codes(rng)
    class_index = rng.integers(0, 3, len(codes))
    weights = rng.random(len(codes)) * 3
    held = rng.random(len(codes)) < 0.2
    total = PairStatistics.from_codes(codes, class_index, n_categories, 3, weights)
    part = PairStatistics.from_codes(codes[held], class_index[held], n_categories, 3, weights[held])
    direct = PairStatistics.from_codes(
        codes[~held], class_index[~held], n_categories, 3, weights[~held]
    )
    np.testing.assert_allclose((total - part).counts, direct.counts, atol=1e-9)


def test_models_for_every_alpha_equal_the_one_by_one_fit(rng):
    codes, n_categories = _codes(rng)
    class_index = rng.integers(0, 2, len(codes))
    stats = PairStatistics.from_codes(codes, class_index, n_categories, 2)
    parents = np.array([[-1, 0, 0, 1, 2], [-1, 0, 1, 2, 3]])
    fit = forest_models_by_alpha(stats, parents, 1e-5)
    for alpha in (0.1, 1.0, 5.0):
        fast = fit(alpha)
        slow = DiscreteForestModel.from_statistics(stats, parents, alpha=alpha, epsilon=1e-5)
        np.testing.assert_array_equal(fast.log_likelihood(codes), slow.log_likelihood(codes))


def test_content_folds_keep_identical_rows_together_and_spread_the_rest(rng):
    codes = rng.integers(0, 4, (2000, 8))  # nearly all rows distinct
    folds = content_folds(codes, 5)
    assert set(folds.tolist()) == set(range(5))
    assert np.bincount(folds).min() > 300  # about 400 each
    doubled = content_folds(np.vstack([codes, codes]), 5)
    np.testing.assert_array_equal(doubled[:2000], doubled[2000:])
    np.testing.assert_array_equal(doubled[:2000], folds)


def test_auto_with_weights_equals_auto_on_repeated_rows(rng):
    X = rng.integers(0, 3, (120, 4))
    y = (X[:, 0] + rng.integers(0, 2, 120) > 1).astype(int)
    weights = rng.integers(0, 4, 120)
    repeated = np.repeat(np.arange(120), weights)
    for model in (NaiveBayesClassifier, TANClassifier, DiscriminativeTreeClassifier):
        a = model(alpha="auto").fit(X, y, sample_weight=weights.astype(float))
        b = model(alpha="auto").fit(X[repeated], y[repeated])
        assert a.alpha_ == b.alpha_
        np.testing.assert_allclose(a.alpha_cv_losses_, b.alpha_cv_losses_, rtol=1e-9)


@pytest.mark.parametrize(
    "estimator", [NaiveBayesClassifier(), ChowLiuClassifier(), TANClassifier()], ids=repr
)
def test_auto_equals_brute_force_cross_validation(estimator, rng):
    """The choice by subtraction equals refitting the estimator on every training fold
    (integer data in which every category occurs in every fold, so the encoding is the
    same)."""
    n = 240
    y = rng.integers(0, 2, n)
    X = rng.integers(0, 3, (n, 4))
    X[:, 0] = np.where(rng.random(n) < 0.7, y, X[:, 0])
    weights = rng.integers(1, 4, n).astype(float)
    auto = clone(estimator).set_params(alpha="auto").fit(X, y, sample_weight=weights)
    folds = content_folds(X, 5)
    per_fold = np.zeros((5, 2, len(ALPHA_GRID)))
    for a, alpha in enumerate(ALPHA_GRID):
        for k in range(5):
            train, test = folds != k, folds == k
            model = clone(estimator).set_params(alpha=alpha)
            model.fit(X[train], y[train], weights[train])
            counts = np.bincount(y[train], weights[train], 2)
            joint = model.predict_joint_log_proba(X[test]) - model.class_log_prior_
            joint += np.log((counts + 1) / (counts.sum() + 2))  # the CV's prior
            log_post = joint - logsumexp(joint, axis=1, keepdims=True)
            per_fold[k, 0, a] = weights[test] @ (joint.argmax(axis=1) != y[test])
            per_fold[k, 1, a] = -weights[test] @ log_post[np.arange(test.sum()), y[test]]
    errors, losses = per_fold.sum(axis=0)
    np.testing.assert_allclose(auto.alpha_cv_losses_[0], errors, atol=1e-8)
    np.testing.assert_allclose(auto.alpha_cv_losses_[1], losses, rtol=1e-9)
    assert auto.alpha_ == ALPHA_GRID[choose_alpha(per_fold, ALPHA_GRID)]


@pytest.mark.parametrize("seed", range(30))
def test_choose_alpha_keeps_alpha_one_within_the_noise_of_the_folds(seed):
    """Reference: the best alpha by errors (ties by log-loss) unless its summed paired
    difference to alpha = 1 is within one standard error (sqrt(K) sd), a gain equal to
    the error within 1e-9 relative included (one fold apart from four equal ones: the
    gain and its error are the same number, summed in different orders)."""
    rng = np.random.default_rng(seed)
    grid = ALPHA_GRID
    losses = np.stack([rng.integers(0, 6, (5, len(grid))), rng.random((5, len(grid)))], 1)
    losses = losses.astype(float)
    totals = losses.sum(axis=0)
    order = sorted(range(len(grid)), key=lambda a: (round(totals[0, a], 9), totals[1, a]))
    best, one = order[0], grid.index(1.0)
    difference = losses[:, 0, best] - losses[:, 0, one]
    noise = np.sqrt(5) * np.std(difference, ddof=1)
    tie = 1e-9 * max(abs(difference.sum()), noise, 1.0)
    within = difference.sum() > -noise - tie
    expected = one if best != one and noise > tie and within else best
    assert choose_alpha(losses, grid) == expected
    if expected == one and best != one:
        assert totals[0, best] <= totals[0, one]  # a better alpha was passed over


def test_a_gain_of_exactly_one_standard_error_keeps_alpha_one():
    """One fold apart from four equal ones: the summed gain and sqrt(K) sd are the same
    number (here 3), whatever the last bit of either."""
    losses = np.zeros((5, 2, len(ALPHA_GRID)))
    losses[:, 0, :] = 10.0
    losses[1, 0, 0] = 7.0  # alpha 0.03 gains 3 errors, on one fold only
    for nudge in (0.0, 1e-13, -1e-13):
        losses[1, 0, 0] = 7.0 + nudge
        assert choose_alpha(losses, ALPHA_GRID) == ALPHA_GRID.index(1.0)


def test_a_clear_gain_over_alpha_one_is_kept():
    losses = np.zeros((5, 2, len(ALPHA_GRID)))
    losses[:, 0, :] = 10.0
    losses[:, 0, 0] = [6.0, 5.0, 7.0, 6.0, 5.0]  # alpha 0.03 wins on every fold
    assert choose_alpha(losses, ALPHA_GRID) == 0


def test_auto_picks_heavy_smoothing_when_the_features_are_noise(rng):
    """One informative feature and many 10-category noise features on 150 rows: small
    pseudo-counts overfit the noise tables, and the CV sees it."""
    n = 150
    y = rng.integers(0, 2, n)
    X = rng.integers(0, 10, (n, 25))
    X[:, 0] = np.where(rng.random(n) < 0.8, y, 1 - y)
    chosen = NaiveBayesClassifier(alpha="auto").fit(X, y)
    alpha, losses = chosen.alpha_, chosen.alpha_cv_losses_
    assert alpha >= 2.0
    assert losses[1][ALPHA_GRID.index(alpha)] < losses[1][0]


def test_fixed_alpha_is_reported_and_auto_is_ignored_by_gaussian_models():
    X, y = np.random.default_rng(0).integers(0, 3, (60, 3)), np.arange(60) % 2
    assert NaiveBayesClassifier(alpha=0.5).fit(X, y).alpha_ == 0.5
    assert DiscriminativeTreeClassifier(distribution="gaussian").fit(X, y).alpha_ is None
    assert TANClassifier(parameters="cl", cl_max_iter=3).fit(X, y).alpha_ in ALPHA_GRID


def test_bdeu_spreads_the_equivalent_sample_size_over_each_family(rng):
    codes, _ = _codes(rng, d=3, missing=0.0)
    codes[:, 2] = rng.integers(0, 5, len(codes))
    n_categories = np.array([3, 3, 5])
    class_index = rng.integers(0, 2, len(codes))
    stats = PairStatistics.from_codes(codes, class_index, n_categories, 2)
    parents = np.array([[-1, 0, 1], [-1, 0, 0]])
    ess = 12.0
    model = DiscreteForestModel.from_statistics(
        stats, parents, alpha=ess, epsilon=0.0, prior="bdeu"
    )
    for c in range(2):
        for j in range(3):
            p = parents[c, j]
            r_parent, r_j = (1 if p < 0 else n_categories[p]), n_categories[j]
            cell = ess / (2 * r_parent * r_j)
            for u in range(r_parent):
                rows = (class_index == c) & ((codes[:, p] == u) if p >= 0 else True)
                for v in range(r_j):
                    expected = ((codes[rows, j] == v).sum() + cell) / (rows.sum() + r_j * cell)
                    assert np.exp(model.log_cpts[c][j][u, v]) == pytest.approx(expected)


def test_auto_with_bdeu_chooses_an_equivalent_sample_size(rng):
    from discotree.stats.alpha_selection import ESS_GRID

    X = rng.integers(0, 4, (200, 6))
    y = (X[:, 0] + rng.integers(0, 2, 200) > 2).astype(int)
    for model in (NaiveBayesClassifier, ChowLiuClassifier, TANClassifier):
        fitted = model(alpha="auto", prior="bdeu").fit(X, y)
        assert fitted.alpha_ in ESS_GRID
        fixed = model(alpha=fitted.alpha_, prior="bdeu").fit(X, y)
        np.testing.assert_array_equal(fitted.predict_proba(X), fixed.predict_proba(X))
    with pytest.raises(ValueError, match="prior='bdeu' is available with k=1"):
        TANClassifier(k=2, prior="bdeu").fit(X, y)
    with pytest.raises(ValueError, match="prior must be one of"):
        NaiveBayesClassifier(prior="jeffreys").fit(X, y)


@pytest.mark.parametrize("n_classes, multiclass", [(2, "pairwise"), (3, "pairwise"), (3, "ovr")])
def test_discriminative_trees_auto_at_the_structure_alpha_equals_refitting(
    n_classes, multiclass, rng
):
    """On each fold the forests are learnt at STRUCTURE_ALPHA (1.0); at that alpha the
    CV's errors and log-loss equal refitting the classifier on every training fold."""
    from discotree.classifiers.discriminative_tree import STRUCTURE_ALPHA

    n = 240
    y = rng.integers(0, n_classes, n)
    X = rng.integers(0, 3, (n, 4))
    X[:, 0] = np.where(rng.random(n) < 0.7, y % 3, X[:, 0])
    auto = DiscriminativeTreeClassifier(alpha="auto", multiclass=multiclass).fit(X, y)
    folds = content_folds(X, 5)
    errors = log_loss = 0.0
    for k in range(5):
        train, test = folds != k, folds == k
        model = DiscriminativeTreeClassifier(alpha=STRUCTURE_ALPHA, multiclass=multiclass)
        model.fit(X[train], y[train])
        counts = np.bincount(y[train], minlength=n_classes)
        model.class_log_prior_ = np.log((counts + 1) / (counts.sum() + n_classes))
        scores = model.decision_function(X[test])
        if n_classes == 2:
            scores = model.predict_joint_log_proba(X[test])
        log_post = scores - logsumexp(scores, axis=1, keepdims=True)
        errors += (scores.argmax(axis=1) != y[test]).sum()
        log_loss -= log_post[np.arange(test.sum()), y[test]].sum()
    column = ALPHA_GRID.index(STRUCTURE_ALPHA)
    assert auto.alpha_cv_losses_[0, column] == pytest.approx(errors)
    assert auto.alpha_cv_losses_[1, column] == pytest.approx(log_loss, rel=1e-9)


@pytest.mark.parametrize("n_classes, multiclass", [(2, "pairwise"), (3, "pairwise"), (3, "ovr")])
def test_discriminative_trees_auto_fits_the_procedure_it_scored(n_classes, multiclass, rng):
    """The final forests are those learnt at STRUCTURE_ALPHA (as on every fold) with
    the chosen alpha's parameters: the procedure whose alpha the CV chose, not another
    structure relearnt at the chosen alpha (issue 34)."""
    from discotree.classifiers.discriminative_tree import STRUCTURE_ALPHA
    from discotree.models.discrete_forest import DiscreteForestModel

    n = 300
    y = rng.integers(0, n_classes, n)
    X = rng.integers(0, 2, (n, 6))
    X[:, 0] = np.where(rng.random(n) < 0.7, y % 2, X[:, 0])
    X[:, 1] = np.where(rng.random(n) < 0.6, X[:, 0], X[:, 1])
    auto = DiscriminativeTreeClassifier(alpha="auto", multiclass=multiclass).fit(X, y)
    at_one = DiscriminativeTreeClassifier(alpha=STRUCTURE_ALPHA, multiclass=multiclass)
    at_one.fit(X, y)
    assert auto.edges_ == at_one.edges_
    for mine, reference in zip(auto.forest_pairs_, at_one.forest_pairs_, strict=True):
        expected = DiscreteForestModel.from_statistics(
            two_class(auto.statistics_, mine.positive, mine.negative),
            reference.model.parents,
            alpha=auto.alpha_,
            epsilon=auto.epsilon,
        )
        assert np.array_equal(mine.model.parents, reference.model.parents)
        for a, b in zip(mine.model.log_cpts, expected.log_cpts, strict=True):
            for ta, tb in zip(a, b, strict=True):
                np.testing.assert_array_equal(ta, tb)


@pytest.mark.parametrize("n_classes, multiclass", [(2, "pairwise"), (3, "pairwise"), (3, "ovr")])
def test_calibration_losses_equal_refitting_on_every_fold(n_classes, multiclass, rng):
    """The held-out log-loss of each scale equals refitting on every training fold and
    scoring softmax(scale * scores) on its held-out rows; the scale kept is the least."""
    from discotree.stats.alpha_selection import CALIBRATION_SCALES, best_scale

    n = 240
    y = rng.integers(0, n_classes, n)
    X = rng.integers(0, 3, (n, 4))
    X[:, 0] = np.where(rng.random(n) < 0.7, y % 3, X[:, 0])
    model = DiscriminativeTreeClassifier(alpha=1.0, calibration="cv", multiclass=multiclass)
    model.fit(X, y)
    folds = content_folds(X, 5)
    expected = np.zeros(len(CALIBRATION_SCALES))
    for k in range(5):
        train, test = folds != k, folds == k
        fold = DiscriminativeTreeClassifier(alpha=1.0, calibration="none", multiclass=multiclass)
        fold.fit(X[train], y[train])
        counts = np.bincount(y[train], minlength=n_classes)
        fold.class_log_prior_ = np.log((counts + 1) / (counts.sum() + n_classes))
        scores, _ = fold._class_scores(X[test])
        for s, scale in enumerate(CALIBRATION_SCALES):
            log_post = scale * scores - logsumexp(scale * scores, axis=1, keepdims=True)
            expected[s] -= log_post[np.arange(test.sum()), y[test]].sum()
    np.testing.assert_allclose(model.calibration_cv_losses_, expected, rtol=1e-9)
    assert model.calibration_scale_ == best_scale(expected, CALIBRATION_SCALES)
    raw = DiscriminativeTreeClassifier(alpha=1.0, calibration="none", multiclass=multiclass)
    raw.fit(X, y)
    np.testing.assert_array_equal(model.predict(X), raw.predict(X))
    np.testing.assert_array_equal(model.decision_function(X), raw.decision_function(X))
    scores = raw._class_scores(X)[0] * model.calibration_scale_
    np.testing.assert_allclose(
        model.predict_proba(X), np.exp(scores - logsumexp(scores, axis=1, keepdims=True))
    )


def test_scales_scored_at_every_alpha_give_the_chosen_alphas_losses(rng, monkeypatch):
    """Held-out scores too large to keep: every scale is scored at every alpha in the
    folds' pass; the chosen alpha's column equals the kept-scores path."""
    from discotree.stats import alpha_selection as smoothing

    n = 300
    y = rng.integers(0, 3, n)
    X = rng.integers(0, 3, (n, 5))
    X[:, 0] = np.where(rng.random(n) < 0.7, y, X[:, 0])
    kept = DiscriminativeTreeClassifier().fit(X, y)
    monkeypatch.setattr(smoothing, "_PARTS_FIRST_BYTES", 1)
    every = DiscriminativeTreeClassifier().fit(X, y)
    assert every.alpha_ == kept.alpha_
    np.testing.assert_allclose(every.calibration_cv_losses_, kept.calibration_cv_losses_)
    assert every.calibration_scale_ == kept.calibration_scale_


def test_calibration_follows_its_parameter(rng):
    n = 200
    y = rng.integers(0, 2, n)
    X = np.where(rng.random((n, 3)) < 0.8, y[:, None], rng.integers(0, 2, (n, 3)))
    assert DiscriminativeTreeClassifier(alpha=1.0).fit(X, y).calibration_scale_ == 1.0
    assert not hasattr(DiscriminativeTreeClassifier(alpha=1.0).fit(X, y), "calibration_cv_losses_")
    auto = DiscriminativeTreeClassifier().fit(X, y)
    assert auto.calibration_cv_losses_.shape == (21,)
    off = DiscriminativeTreeClassifier(calibration="none").fit(X, y)
    assert off.calibration_scale_ == 1.0 and off.alpha_ == auto.alpha_
    with pytest.raises(ValueError, match="calibration must be one of"):
        DiscriminativeTreeClassifier(calibration="platt").fit(X, y)


def test_tan_auto_keeps_the_structure_it_scored(rng):
    """A discriminative search runs once, at alpha 1, for the CV and the final fit."""
    from discotree.classifiers.tan import STRUCTURE_ALPHA

    n = 240
    y = rng.integers(0, 2, n)
    X = rng.integers(0, 3, (n, 5))
    X[:, 0] = np.where(rng.random(n) < 0.7, y, X[:, 0])
    X[:, 1] = np.where(rng.random(n) < 0.5, X[:, 0], X[:, 1])
    for params in ({"structure": "cr"}, {"k": 2, "structure": "omi-cr"}):
        auto = TANClassifier(alpha="auto", **params).fit(X, y)
        at_one = TANClassifier(alpha=STRUCTURE_ALPHA, **params).fit(X, y)
        assert auto.attribute_parents_ == at_one.attribute_parents_
        assert auto.n_score_evaluations_ == at_one.n_score_evaluations_ > 0
        refit = TANClassifier(alpha=auto.alpha_, **params).fit(X, y)
        if refit.attribute_parents_ == auto.attribute_parents_:
            np.testing.assert_allclose(auto.predict_proba(X), refit.predict_proba(X))


def test_boosting_takes_the_alpha_its_base_learner_would_choose(rng):
    from discotree import BoostedGraphicalModelClassifier

    X = rng.integers(0, 4, (200, 5))
    y = (X[:, 0] + X[:, 1] + rng.integers(0, 3, 200) > 4).astype(int)
    for base, learner in (
        ("dt", DiscriminativeTreeClassifier),
        ("chow-liu", ChowLiuClassifier),
        ("tan", TANClassifier),
    ):
        boosted = BoostedGraphicalModelClassifier(base=base, alpha="auto", n_estimators=2)
        assert boosted.fit(X, y).alpha_ == learner(alpha="auto").fit(X, y).alpha_


def test_ear_trees_choose_alpha_for_the_parameters_of_their_one_tree(rng):
    from discotree import EARTreeClassifier

    X = rng.integers(0, 3, (200, 5))
    y = (X[:, 0] + X[:, 1] + rng.integers(0, 2, 200) > 2).astype(int)
    auto = EARTreeClassifier(alpha="auto").fit(X, y)
    assert auto.alpha_ in ALPHA_GRID
    fixed = EARTreeClassifier(alpha=auto.alpha_).fit(X, y)
    assert auto.edges_ == fixed.edges_  # the tree does not depend on alpha
    np.testing.assert_array_equal(auto.predict_proba(X), fixed.predict_proba(X))


@pytest.mark.parametrize(
    "params",
    [{"k": 0}, {"k": 2}, {"k": 2, "structure": "omi-cr"}, {"k": 1, "structure": "cr"}],
    ids=str,
)
def test_tan_beyond_forests_equals_brute_force_with_the_fold_structure(params, rng):
    """k = 0 and k = 2 (CMI structure relearnt per fold), and discriminative searches
    (structure searched once on all rows at alpha 1): the CV losses equal fitting the
    same structure's ML parameters on every training fold."""
    from discotree.classifiers.tan import STRUCTURE_ALPHA
    from discotree.models.bayes_net import BayesNetModel
    from discotree.structure.generative import kdb_parents

    n = 240
    y = rng.integers(0, 2, n)
    X = rng.integers(0, 3, (n, 4))
    X[:, 0] = np.where(rng.random(n) < 0.7, y, X[:, 0])
    X[:, 1] = np.where(rng.random(n) < 0.5, X[:, 0], X[:, 1])
    auto = TANClassifier(alpha="auto", **params).fit(X, y)
    structure = TANClassifier(alpha=STRUCTURE_ALPHA, **params).fit(X, y).attribute_parents_
    folds = content_folds(X, 5)
    n_categories = np.full(4, 3)
    errors, losses = np.zeros(len(ALPHA_GRID)), np.zeros(len(ALPHA_GRID))
    for k in range(5):
        train, test = folds != k, folds == k
        if params["k"] == 0:
            parents = [()] * 4
        elif params.get("structure", "cmi") == "cmi":
            stats = PairStatistics.from_codes(X[train], y[train], n_categories, 2)
            parents = kdb_parents(stats, params["k"])
        else:
            parents = structure
        counts = np.bincount(y[train], minlength=2)
        log_prior = np.log((counts + 1) / (counts.sum() + 2))
        for a, alpha in enumerate(ALPHA_GRID):
            model = BayesNetModel.maximum_likelihood(
                X[train],
                y[train],
                np.ones(train.sum()),
                2,
                n_categories,
                parents,
                alpha=alpha,
                epsilon=1e-5,
            )
            joint = model.log_likelihood(X[test]) + log_prior
            log_post = joint - logsumexp(joint, axis=1, keepdims=True)
            errors[a] += (joint.argmax(axis=1) != y[test]).sum()
            losses[a] -= log_post[np.arange(test.sum()), y[test]].sum()
    np.testing.assert_allclose(auto.alpha_cv_losses_[0], errors)
    np.testing.assert_allclose(auto.alpha_cv_losses_[1], losses, rtol=1e-9)


def _fold_models(estimator):
    """What the estimator's alpha cross-validation scores (epsilon 1e-5, Dirichlet
    prior: the defaults): its learner's models of every alpha of ``ALPHA_GRID`` from a
    fold's counts."""
    spec = replace(estimator.learner_spec(), alpha="auto")
    return get_learner(spec.learner).model_for(spec, ALPHA_GRID)


def test_folds_counted_first_give_the_totals_and_choice_of_two_passes(rng, monkeypatch):
    """The folds' counts added up are the totals of all rows (handed to the caller),
    and the choice and losses equal those of counting the totals in a pass of their
    own (what happens when the folds' matrices would take too much memory)."""
    from discotree.stats import alpha_selection as smoothing

    codes, n_categories = _codes(rng, n=400)
    class_index = rng.integers(0, 3, len(codes))
    weights = rng.random(len(codes)) * 2
    bank_for = _fold_models(ChowLiuClassifier())
    kept = []
    first = smoothing.select_alpha(
        codes, class_index, weights, n_categories, 3, model_for=bank_for, on_total=kept.append
    )
    direct = PairStatistics.from_codes(codes, class_index, n_categories, 3, weights)
    np.testing.assert_allclose(kept[0].counts, direct.counts, rtol=1e-12, atol=1e-12)
    monkeypatch.setattr(smoothing, "_PARTS_FIRST_BYTES", 0)
    second = smoothing.select_alpha(
        codes, class_index, weights, n_categories, 3, model_for=bank_for
    )
    assert first[0] == second[0]
    np.testing.assert_allclose(first[1], second[1], rtol=1e-10)


@pytest.mark.parametrize("parts_first", [True, False])
def test_folds_on_threads_give_the_same_choice_and_losses_as_one_thread(
    rng, monkeypatch, parts_first
):
    """The folds are counted and scored on threads (one per core) and their losses
    added in fold order: exactly the losses of one thread, whatever the cores."""
    from discotree.stats import alpha_selection as smoothing

    codes, n_categories = _codes(rng, n=500)
    class_index = rng.integers(0, 3, len(codes))
    weights = rng.random(len(codes)) * 2
    if not parts_first:  # room for three folds' matrices at once, not for all five
        fold_bytes = 3 * int(np.sum(n_categories)) ** 2 * 8
        monkeypatch.setattr(smoothing, "_PARTS_FIRST_BYTES", 3 * fold_bytes)
    monkeypatch.setattr(smoothing, "_THREAD_FOLD_WORK", 0)  # threads even for small folds
    mapped = []
    real_map = smoothing.map_on_cores

    def recorded_map(run, items):
        mapped.append(cores)
        return real_map(run, items)

    monkeypatch.setattr(smoothing, "map_on_cores", recorded_map)
    found = {}
    for cores in (1, 3):
        monkeypatch.setattr(smoothing, "available_cores", lambda cores=cores: cores)
        model_for = _fold_models(TANClassifier())
        found[cores] = smoothing.select_alpha(
            codes, class_index, weights, n_categories, 3, model_for=model_for
        )
    assert mapped and set(mapped) == {3}  # one core: on this thread; three: on the pool
    assert found[1][0] == found[3][0]
    np.testing.assert_array_equal(found[1][1], found[3][1])


def test_identical_rows_scored_once_give_the_losses_of_scoring_every_row(rng, monkeypatch):
    """Each distinct (row, class) is scored once with its group's weight; the losses
    and choice equal scoring every row on its own (what a hash collision falls back
    to), and the groups count a class's distinct rows for the number of folds."""
    from discotree.stats import alpha_selection as smoothing

    codes, n_categories = _codes(rng, n=400, d=3, r=2, missing=0.1)  # many repeats
    class_index = rng.integers(0, 3, len(codes))
    weights = rng.random(len(codes)) * 2
    hashes = smoothing.row_hashes(codes)
    first, inverse = smoothing._row_groups(codes, hashes, class_index)
    assert len(first) < len(codes) // 4
    np.testing.assert_array_equal(codes[first][inverse], codes)
    model_for = _fold_models(NaiveBayesClassifier())
    grouped = smoothing.select_alpha(
        codes, class_index, weights, n_categories, 3, model_for=model_for
    )
    monkeypatch.setattr(smoothing, "_row_groups", lambda *args: None)
    each = smoothing.select_alpha(codes, class_index, weights, n_categories, 3, model_for=model_for)
    assert grouped[0] == each[0]
    np.testing.assert_allclose(grouped[1], each[1], rtol=1e-12)


def test_a_hash_collision_is_detected_and_not_grouped():
    from discotree.stats import alpha_selection as smoothing

    codes = np.array([[0, 1], [1, 0], [0, 1]])
    class_index = np.array([0, 0, 0])
    same_hash = np.zeros(3, dtype=np.uint64)  # rows 0 and 1 collide
    assert smoothing._row_groups(codes, same_hash, class_index) is None
    first, inverse = smoothing._row_groups(codes, smoothing.row_hashes(codes), class_index)
    assert len(first) == 2 and inverse[0] == inverse[2] != inverse[1]


def test_the_old_module_names_still_import():
    """stats.smoothing (now stats.alpha_selection) and stats.discrete (split by what it
    held) re-export their names, so old imports and pickles keep working."""
    import discotree.stats.discrete as old_discrete
    import discotree.stats.smoothing as old_smoothing
    from discotree.stats import alpha_selection, dirichlet, information, pair_statistics

    assert old_smoothing.__all__ == alpha_selection.__all__
    assert all(
        getattr(old_smoothing, n) is getattr(alpha_selection, n) for n in old_smoothing.__all__
    )
    assert old_discrete.PairStatistics is pair_statistics.PairStatistics
    assert old_discrete.smoothed_conditional is dirichlet.smoothed_conditional
    assert old_discrete.j_divergence is information.j_divergence
