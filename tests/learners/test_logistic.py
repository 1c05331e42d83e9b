"""The logistic learner (naive Bayes with conditional-likelihood parameters and
Gaussian numeric leaves) against scikit-learn's LogisticRegression on the same inputs,
with weights and missing values."""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy.special import log_softmax
from sklearn.linear_model import LogisticRegression

from discotree.learners import logistic as logistic_learner
from discotree.learners.logistic import (
    cross_validated_log_posteriors,
    fit_logistic,
    ranked_pairs,
    standardised_values,
)
from discotree.learners.registry import LearnerSpec, Rows, get_learner
from discotree.models.logistic import LogisticModel, design_matrix, input_offsets
from discotree.stats.folds import content_folds
from discotree.transformers.discretizer import bin_midpoints


def _problem(rng, n=300, n_classes=3):
    n_categories = np.array([3, 6, 2, 5])
    codes = np.column_stack([rng.integers(0, r, n) for r in n_categories])
    codes[rng.random((n, 4)) < 0.1] = -1
    values = [None, np.sort(rng.normal(size=6)) * 3 + 1, None, np.arange(5.0) ** 2]
    y = (codes[:, 0] + (codes[:, 1] > 2) + rng.integers(0, 2, n)) % n_classes
    weights = rng.integers(1, 4, n).astype(float)
    return codes, y, weights, n_categories, values


def _dense_reference(codes, n_categories, values):
    """The inputs by a loop over rows and features (the obviously correct reading)."""
    offsets = input_offsets(n_categories, values)
    out = np.zeros((len(codes), offsets[-1]))
    for i, row in enumerate(codes):
        for j, code in enumerate(row):
            if code < 0:
                continue
            if values[j] is None:
                out[i, offsets[j] + code] = 1.0
            else:
                out[i, offsets[j]] = values[j][code]
    return out


def test_the_design_matrix_matches_a_loop_over_rows(rng):
    codes, _, _, n_categories, values = _problem(rng)
    assert_allclose(
        design_matrix(codes, n_categories, values).toarray(),
        _dense_reference(codes, n_categories, values),
    )


@pytest.mark.parametrize("n_classes", [2, 3])
def test_the_fit_is_scikit_learns_logistic_regression(rng, n_classes):
    codes, y, weights, n_categories, raw = _problem(rng, n_classes=n_classes)
    rows = Rows(codes, y, weights, n_classes, n_categories)
    spec = LearnerSpec("logistic", 1.0, 0.0, options={"values": raw, "C": 0.7})
    model = get_learner("logistic").fit(rows, spec).model
    values = standardised_values(codes, weights, raw)
    inputs = _dense_reference(codes, n_categories, values)
    # scikit-learn's binary model has one weight vector: penalising it by 1/(2C') is
    # penalising the two classes' weights by 1/(2C) when C' = 2C
    C = 0.7 if n_classes > 2 else 1.4
    reference = LogisticRegression(C=C, tol=1e-12, max_iter=10_000).fit(
        inputs, y, sample_weight=weights
    )
    assert_allclose(np.exp(model.log_posterior(codes)), reference.predict_proba(inputs), atol=2e-5)


def test_whole_number_weights_are_repeated_rows(rng):
    codes, y, weights, n_categories, raw = _problem(rng)
    spec = LearnerSpec("logistic", 1.0, 0.0, options={"values": raw})
    weighted = fit_logistic(Rows(codes, y, weights, 3, n_categories), spec).model
    repeat = np.repeat(np.arange(len(y)), weights.astype(int))
    repeated = fit_logistic(
        Rows(codes[repeat], y[repeat], np.ones(len(repeat)), 3, n_categories), spec
    ).model
    assert_allclose(weighted.log_posterior(codes), repeated.log_posterior(codes), atol=1e-5)


@pytest.mark.parametrize("n_pairs", [0, 6])
def test_a_missing_feature_adds_nothing_to_any_score(rng, n_pairs):
    """Nor do the pairs it is in."""
    codes, y, weights, n_categories, raw = _problem(rng)
    spec = LearnerSpec("logistic", 1.0, 0.0, options={"values": raw, "n_pairs": n_pairs})
    model = fit_logistic(Rows(codes, y, weights, 3, n_categories), spec).model
    assert len(model.pairs) == n_pairs
    row = np.array([[2, 4, 1, 3]])
    offsets = input_offsets(n_categories, model.values, model.pairs, model.pair_levels)
    for hidden in range(4):
        partial = row.copy()
        partial[0, hidden] = -1
        scores = model.intercept.copy()
        for j in range(4):
            if j == hidden:
                continue
            if model.values[j] is None:
                scores = scores + model.coef[offsets[j] + row[0, j]]
            else:
                scores = scores + model.values[j][row[0, j]] * model.coef[offsets[j]]
        for p, (i, j) in enumerate(model.pairs.tolist()):
            if hidden not in (i, j):
                cell = row[0, i] * n_categories[j] + row[0, j]
                scores = scores + model.coef[offsets[4 + p] + cell]
        assert_allclose(model.log_posterior(partial)[0], log_softmax(scores), atol=1e-12)


def test_values_are_standardised_over_the_rows_where_they_are_present():
    codes = np.array([[0], [1], [2], [-1], [2]])
    weights = np.array([1.0, 2.0, 1.0, 5.0, 0.0])
    (table,) = standardised_values(codes, weights, [np.array([1.0, 2.0, 4.0])])
    seen = table[[0, 1, 2]]
    assert np.average(seen, weights=[1, 2, 1]) == pytest.approx(0.0, abs=1e-12)
    assert np.average(seen**2, weights=[1, 2, 1]) == pytest.approx(1.0)
    # a constant column keeps scale 1 (no division by zero)
    (constant,) = standardised_values(codes, np.ones(5), [np.array([3.0, 3.0, 3.0])])
    assert_allclose(constant, 0.0)


def test_bin_midpoints_stand_for_inner_and_outer_bins():
    assert_allclose(bin_midpoints(np.array([0.0, 1.0, 3.0])), [-0.5, 0.5, 2.0, 4.0])
    assert_allclose(bin_midpoints(np.array([2.0])), [1.5, 2.5])
    assert bin_midpoints(np.array([])).shape == (1,)


def test_a_model_is_its_documented_formula(rng):
    model = LogisticModel(
        coef=rng.normal(size=(4, 2)),
        intercept=np.array([0.3, -0.3]),
        n_categories=np.array([3, 2]),
        values=[None, np.array([-1.0, 2.0])],
    )
    codes = np.array([[1, 1], [2, 0]])
    scores = np.array(
        [
            model.intercept + model.coef[1] + 2.0 * model.coef[3],
            model.intercept + model.coef[2] - 1.0 * model.coef[3],
        ]
    )
    assert_allclose(model.log_posterior(codes), log_softmax(scores, axis=1))


def test_cross_validated_posteriors_are_fits_without_each_fold(rng):
    codes, y, weights, n_categories, raw = _problem(rng)
    rows = Rows(codes, y, weights, 3, n_categories)
    spec = LearnerSpec("logistic", 1.0, 0.0, options={"values": raw})
    start = fit_logistic(rows, spec).model
    warm = LearnerSpec("logistic", 1.0, 0.0, options={"values": raw, "start": start})
    got = cross_validated_log_posteriors(rows, warm, n_folds=4, seed=3)
    folds = content_folds(codes, 4, 3)
    for fold in range(4):
        kept, held = folds != fold, folds == fold
        part = Rows(codes[kept], y[kept], weights[kept], 3, n_categories)
        model = fit_logistic(part, spec).model  # from zeros: the same optimum, within
        assert_allclose(got[held], model.log_posterior(codes[held]), atol=2e-4)  # L-BFGS's
    # whole-number weights hold out with their repeated copies
    repeat = np.repeat(np.arange(len(y)), weights.astype(int))
    repeated = Rows(codes[repeat], y[repeat], np.ones(len(repeat)), 3, n_categories)
    assert_allclose(
        cross_validated_log_posteriors(repeated, spec, n_folds=4, seed=3),
        got[repeat],
        atol=2e-4,
    )


def test_cross_validation_of_identical_rows_falls_back_to_the_whole_fit():
    codes = np.zeros((6, 1), dtype=np.intp)
    rows = Rows(codes, np.array([0, 1, 0, 1, 0, 0]), np.ones(6), 2, np.array([2]))
    spec = LearnerSpec("logistic", 1.0, 0.0)
    got = cross_validated_log_posteriors(rows, spec)
    assert_allclose(got, fit_logistic(rows, spec).model.log_posterior(codes))


# ------------------------------------------------------------------ pairs (ALR2-like)
def _dense_pair_reference(codes, n_categories, values, pairs, pair_levels):
    """The singles' inputs, then each pair's one-hot joint cell of the two features'
    levels, by a loop over rows (nothing when either feature is missing)."""
    singles = _dense_reference(codes, n_categories, values)
    level = [(lambda c, m=m: c if m is None else int(m[c])) for m in (pair_levels or [None] * 4)]
    sizes = [
        int(r) if m is None else int(max(m)) + 1
        for r, m in zip(n_categories, pair_levels or [None] * 4, strict=True)
    ]
    blocks = []
    for i, j in pairs:
        block = np.zeros((len(codes), sizes[i] * sizes[j]))
        for row, (a, b) in enumerate(zip(codes[:, i], codes[:, j], strict=True)):
            if a >= 0 and b >= 0:
                block[row, level[i](a) * sizes[j] + level[j](b)] = 1.0
        blocks.append(block)
    return np.hstack([singles, *blocks])


@pytest.mark.parametrize("maps", [False, True])
def test_pair_inputs_match_a_loop_over_rows(rng, maps):
    codes, _, _, n_categories, values = _problem(rng)
    pairs = np.array([[0, 1], [1, 3], [2, 0]])
    levels = [None, np.array([0, 0, 1, 1, 2, 2]), None, np.array([0, 1, 1, 1, 1])] if maps else []
    assert_allclose(
        design_matrix(codes, n_categories, values, pairs, levels).toarray(),
        _dense_pair_reference(codes, n_categories, values, pairs, levels),
    )
    offsets = input_offsets(n_categories, values, pairs, levels)
    sizes = [3 * 3, 3 * 2, 2 * 3] if maps else [3 * 6, 6 * 5, 2 * 3]
    assert np.diff(offsets)[4:].tolist() == sizes


def _conditional_mutual_information(a, b, y, weights):
    """I(A; B | C) from the weighted rows where both are observed, by a loop over cells
    (the class shares of those rows)."""
    seen = (a >= 0) & (b >= 0)
    a, b, y, weights = a[seen], b[seen], y[seen], weights[seen]
    total, out = weights.sum(), 0.0
    for c in np.unique(y):
        in_class = y == c
        wc = weights[in_class].sum()
        for u in np.unique(a):
            for v in np.unique(b):
                joint = weights[in_class & (a == u) & (b == v)].sum() / wc
                if joint == 0:
                    continue
                pa = weights[in_class & (a == u)].sum() / wc
                pb = weights[in_class & (b == v)].sum() / wc
                out += wc / total * joint * np.log(joint / (pa * pb))
    return out


def test_ranked_pairs_are_those_of_largest_conditional_information(rng):
    codes, y, weights, n_categories, _ = _problem(rng, n=400)
    codes[:, 2] = np.where(codes[:, 0] >= 0, (codes[:, 0] + y) % 2, -1)  # a strong pair
    levels = [None, np.array([0, 0, 1, 1, 2, 2]), None, None]
    rows = Rows(codes, y, weights, 3, n_categories)
    mapped = codes.copy()
    mapped[:, 1] = np.where(codes[:, 1] >= 0, levels[1][np.maximum(codes[:, 1], 0)], -1)
    brute = {
        (i, j): _conditional_mutual_information(mapped[:, i], mapped[:, j], y, weights)
        for i in range(4)
        for j in range(i + 1, 4)
    }
    expected = sorted(brute, key=lambda p: -brute[p])
    got = [tuple(p) for p in ranked_pairs(rows, levels, 6).tolist()]
    assert got == expected
    assert got[0] == (0, 2)
    assert ranked_pairs(rows, levels, 2).tolist() == [list(p) for p in expected[:2]]
    assert ranked_pairs(rows, levels, 0).shape == (0, 2)
    assert len(ranked_pairs(rows, levels, 99)) == 6  # every pair, at most


def test_pair_ties_go_to_the_first_pair_and_the_cells_cap_the_count(rng, monkeypatch):
    codes = np.tile(rng.integers(0, 2, size=(50, 1)), (1, 4))  # four copies of a column
    rows = Rows(codes, rng.integers(0, 2, 50), np.ones(50), 2, np.array([2, 2, 2, 2]))
    assert ranked_pairs(rows, [], 3).tolist() == [[0, 1], [0, 2], [0, 3]]
    monkeypatch.setattr(logistic_learner, "PAIR_CELLS", 100)  # 100 // 50 rows: 2 pairs
    assert len(ranked_pairs(rows, [], 6)) == 2


@pytest.mark.parametrize("n_classes", [2, 3])
def test_a_fit_with_pairs_is_scikit_learns_on_the_same_inputs(rng, n_classes, monkeypatch):
    # to the tolerance of the model without pairs, so that both optimisers converge
    monkeypatch.setattr(logistic_learner, "PAIR_GRADIENT_TOLERANCE", 1e-6)
    codes, y, weights, n_categories, raw = _problem(rng, n_classes=n_classes)
    rows = Rows(codes, y, weights, n_classes, n_categories)
    levels = [None, np.array([0, 0, 1, 1, 2, 2]), None, np.array([0, 0, 1, 1, 1])]
    options = {"values": raw, "C": 0.7, "n_pairs": 3, "pair_levels": levels}
    model = fit_logistic(rows, LearnerSpec("logistic", 1.0, 0.0, options=options)).model
    assert model.pairs.shape == (3, 2)
    assert_array_equal(model.pairs, ranked_pairs(rows, levels, 3))
    values = standardised_values(codes, weights, raw)
    inputs = _dense_pair_reference(codes, n_categories, values, model.pairs, levels)
    C = 0.7 if n_classes > 2 else 1.4  # (see the test without pairs)
    reference = LogisticRegression(C=C, tol=1e-12, max_iter=10_000).fit(
        inputs, y, sample_weight=weights
    )
    assert_allclose(np.exp(model.log_posterior(codes)), reference.predict_proba(inputs), atol=5e-5)
    # whole-number weights are repeated rows, with pairs too
    repeat = np.repeat(np.arange(len(y)), weights.astype(int))
    repeated = Rows(codes[repeat], y[repeat], np.ones(len(repeat)), n_classes, n_categories)
    again = fit_logistic(repeated, LearnerSpec("logistic", 1.0, 0.0, options=options)).model
    assert_array_equal(again.pairs, model.pairs)
    assert_allclose(again.log_posterior(codes), model.log_posterior(codes), atol=1e-5)


def test_a_model_with_pairs_stops_at_its_own_tolerance(rng, monkeypatch):
    codes, y, weights, n_categories, raw = _problem(rng)
    rows = Rows(codes, y, weights, 3, n_categories)
    spec = LearnerSpec("logistic", 1.0, 0.0, options={"values": raw, "n_pairs": 6})
    loose = fit_logistic(rows, spec).attributes["n_iter_"]
    monkeypatch.setattr(logistic_learner, "PAIR_GRADIENT_TOLERANCE", 1e-6)
    assert fit_logistic(rows, spec).attributes["n_iter_"] > loose


def test_a_warm_start_keeps_the_pairs_of_the_model_it_starts_from(rng):
    codes, y, weights, n_categories, _ = _problem(rng)
    rows = Rows(codes, y, weights, 3, n_categories)
    start = fit_logistic(rows, LearnerSpec("logistic", 1.0, 0.0, options={"n_pairs": 2})).model
    warm = LearnerSpec("logistic", 1.0, 0.0, options={"start": start, "n_pairs": 5})
    part = Rows(codes[:150], y[:150], weights[:150], 3, n_categories)
    assert_array_equal(fit_logistic(part, warm).model.pairs, start.pairs)


def test_the_significance_test_keeps_the_pairs_that_depend_given_the_class():
    rng = np.random.default_rng(11)
    codes = rng.integers(0, 2, (2000, 6))
    y = codes[:, 0] ^ codes[:, 1]  # given the class, columns 0 and 1 determine each other
    rows = Rows(codes, y, np.ones(2000), 2, np.full(6, 2))
    assert ranked_pairs(rows, [], 15, features=None, significance=0.001).tolist() == [[0, 1]]
    assert len(ranked_pairs(rows, [], 15)) == 15  # (no test: every pair, by information)
    fitted = fit_logistic(
        rows, LearnerSpec("logistic", 1.0, 0.0, options={"n_pairs": 15, "pair_significance": 0.001})
    )
    assert fitted.model.pairs.tolist() == [[0, 1]]


def test_grouped_and_slot_by_slot_fits_give_the_same_model(monkeypatch):
    # binary and three-valued columns with missing values: groups of several slots;
    # the same objective read slot by slot (the groups disabled) reaches the same model
    from discotree.kernels.slot_groups import SlotGroups, group_slots
    from discotree.models.logistic import input_slots

    rng = np.random.default_rng(4)
    n_categories = np.array([2, 2, 3, 2, 2, 3])
    codes = np.column_stack([rng.integers(0, r, 400) for r in n_categories])
    codes[rng.random(codes.shape) < 0.05] = -1
    y = (codes[:, 0] + codes[:, 2] + (codes[:, 4] > 0) + rng.integers(0, 2, 400)) % 3
    rows = Rows(codes, y, rng.integers(1, 3, 400).astype(float), 3, n_categories)
    spec = LearnerSpec("logistic", 1.0, 0.0)
    spec = spec.with_options(tolerance=1e-9, n_pairs=3)
    grouped = fit_logistic(rows, spec).model
    assert len(grouped.pairs) == 3
    slots = input_slots(codes, n_categories, [None] * 6, grouped.pairs, []).slots
    assert group_slots(slots).several  # (the grouped path was the one taken)
    monkeypatch.setattr(SlotGroups, "several", property(lambda self: False))
    by_slot = fit_logistic(rows, spec).model
    assert_allclose(grouped.log_posterior(codes), by_slot.log_posterior(codes), atol=1e-6)


def _held_out_loss(model, rows):
    """The weighted mean log-loss of ``rows`` under ``model``, from its posteriors."""
    log_posterior = model.log_posterior(rows.codes)
    own = log_posterior[np.arange(len(rows.codes)), rows.class_index]
    return -float(rows.weights @ own) / float(rows.weights.sum())


@pytest.mark.parametrize("n_pairs", [0, 3])
def test_early_stopping_keeps_the_iterate_of_least_held_out_loss(rng, monkeypatch, n_pairs):
    """A fit watched on held-out rows (with weights and missing values) against a slow
    reference: the fits capped at 1, 2, ... iterations (each the same L-BFGS path, cut
    short), their held-out losses from the models' posteriors, and the patience rule
    applied by a plain loop: the watched fit keeps the model of the iterate of least
    loss, stops after ``patience`` iterations without a fall, and caps at that iterate;
    a fit capped there (``lbfgs_iterations``) is the same model."""
    patience = 3
    monkeypatch.setattr(logistic_learner.HeldOutWatch.__init__, "__defaults__", (patience,))
    codes, y, weights, n_categories, values = _problem(rng, n=240)
    noisy = rng.random(240) < 0.3  # (noise in the classes: room to overfit)
    y = np.where(noisy, rng.integers(0, 3, 240), y)
    rows = Rows(codes, y, weights, 3, n_categories)
    train, held = rows.take(np.arange(240) < 160), rows.take(np.arange(240) >= 160)
    options = {"values": values, "C": 1000.0, "n_pairs": n_pairs}
    watched = fit_logistic(
        train, LearnerSpec("logistic", 1.0, 0.0, options={**options, "stopping_rows": held})
    )
    losses, models = [], []
    for k in range(1, watched.attributes["n_iter_"] + 1):
        capped = fit_logistic(
            train, LearnerSpec("logistic", 1.0, 0.0, options={**options, "lbfgs_iterations": k})
        )
        models.append(capped.model)
        losses.append(_held_out_loss(capped.model, held))
    best, stopped = 0, None
    for k, loss in enumerate(losses):
        if loss < losses[best] * (1 - 1e-9):
            best = k
        if k - best >= patience:
            stopped = k
            break
    assert stopped == len(losses) - 1  # it stopped where the rule says
    assert watched.attributes["iteration_cap_"] == best + 1
    assert_allclose(watched.model.coef, models[best].coef, rtol=0, atol=1e-12)
    assert_allclose(watched.model.intercept, models[best].intercept, rtol=0, atol=1e-12)


def test_a_watch_on_rows_of_no_weight_watches_nothing(rng):
    codes, y, weights, n_categories, values = _problem(rng, n=120)
    rows = Rows(codes, y, weights, 3, n_categories)
    held = Rows(codes[:10], y[:10], np.zeros(10), 3, n_categories)
    plain = fit_logistic(rows, LearnerSpec("logistic", 1.0, 0.0, options={"values": values}))
    watched = fit_logistic(
        rows, LearnerSpec("logistic", 1.0, 0.0, options={"values": values, "stopping_rows": held})
    )
    assert watched.attributes["iteration_cap_"] is None
    assert_array_equal(watched.model.coef, plain.model.coef)
