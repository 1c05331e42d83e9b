"""KDBEnsembleClassifier: reproducible with random_state, members differ, n_jobs gives
the same model, and the learner is registered."""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn.datasets import load_iris, load_wine
from sklearn.model_selection import GridSearchCV

from discotree import Discretizer, KDBClassifier, KDBEnsembleClassifier, TANClassifier
from discotree.learners.ensemble_members import (
    LEAVE_ONE_OUT_OPTIMISM,
    LINEAR_WEIGHTS,
    held_out_mixture_losses,
)
from discotree.learners.logistic import largest_pair_cells, logistic_parameter_bytes
from discotree.learners.options import KDependenceOptions
from discotree.learners.registry import get_learner


def test_reproducible_and_members_differ():
    X, y = load_wine(return_X_y=True)
    a = KDBEnsembleClassifier(n_estimators=4, random_state=3).fit(X, y)
    b = KDBEnsembleClassifier(n_estimators=4, random_state=3, n_jobs=2).fit(X, y)
    assert_allclose(a.predict_proba(X), b.predict_proba(X))
    assert len({tuple(o) for o in a.members_order_}) > 1  # sampled orders
    maps = [m[0] for m in a.model_.maps]
    assert any(not np.array_equal(maps[0], m) for m in maps[1:])  # stochastic bins
    c = KDBEnsembleClassifier(n_estimators=4, random_state=4).fit(X, y)
    assert not np.allclose(a.predict_proba(X), c.predict_proba(X))
    assert get_learner("kdb-ensemble").reads == "rows"
    assert a.score(X, y) > 0.95


@pytest.mark.parametrize(
    "params, message",
    [
        ({"n_estimators": 0}, "n_estimators must be an integer >= 1"),
        ({"n_bins": 1}, "n_bins must be an integer >= 2"),
        ({"estimator": KDBClassifier(smoothing="x")}, "estimator: .*smoothing must be one of"),
        ({"n_jobs": 0}, "n_jobs must be None"),
        ({"estimator": KDBClassifier(selection_loss="x")}, "selection_loss must be one of"),
        ({"linear_weight": 1.5}, r"linear_weight must be 'auto' or a number in \[0, 1\]"),
        ({"linear_weight": float("nan")}, r"must be 'auto' or a number in \[0, 1\]"),
        ({"linear_weight": True}, r"linear_weight must be 'auto' or a number in \[0, 1\]"),
        ({"linear_weight": "best"}, r"linear_weight must be 'auto' or a number in \[0, 1\]"),
        ({"linear_weight": "auto", "bootstrap": True}, "bagged members"),
        ({"linear_C": 0.0}, "linear_C must be a positive finite number"),
        ({"linear_C": float("inf")}, "linear_C must be a positive finite number"),
        ({"linear_pairs": -1}, "linear_pairs must be 'all' or an integer >= 0"),
        ({"linear_pairs": "most"}, "linear_pairs must be 'all' or an integer >= 0"),
        ({"linear_pairs": 2.5}, "linear_pairs must be 'all' or an integer >= 0"),
        ({"pair_pooling": "mean"}, "pair_pooling must be one of"),
        ({"pair_significance": 1.5}, r"pair_significance must be None or a number in \(0, 1\)"),
        ({"pair_significance": "0.01"}, "pair_significance must be None or a number"),
        ({"pairs_per_column": 0}, r"pairs_per_column must be None or a finite number > 0"),
        ({"pairs_per_column": "5"}, r"pairs_per_column must be None or a finite number > 0"),
        ({"pairs_per_column": np.inf}, r"pairs_per_column must be None or a finite number"),
        ({"linear_weight": 0.3, "bootstrap": True}, "pair_weight='auto' .* bagged members"),
    ],
)
def test_bad_parameters_are_named(params, message):
    with pytest.raises(ValueError, match=message):
        KDBEnsembleClassifier(**params).fit(np.zeros((4, 2)), [0, 1, 0, 1])


def test_the_linear_member_is_mixed_in_with_its_weight():
    X, y = load_wine(return_X_y=True)
    X = X.copy()
    X[::7, 3] = np.nan  # missing values: the members sum out, the linear member skips
    params = {"n_estimators": 3, "pair_weight": 0.0}  # (the pair member: tested below)
    without = KDBEnsembleClassifier(**params, linear_weight=0.0).fit(X, y)
    assert without.model_.linear is None and without.model_.linear_weight == 0.0
    mixed = KDBEnsembleClassifier(**params, linear_weight=0.25).fit(X, y)
    alone = KDBEnsembleClassifier(**params, linear_weight=1.0).fit(X, y)
    codes = mixed.encoder_.transform(X)
    linear = np.exp(mixed.model_.linear.log_posterior(codes))
    assert_allclose(alone.predict_proba(X), linear, atol=1e-12)
    assert_allclose(
        mixed.predict_proba(X), 0.75 * without.predict_proba(X) + 0.25 * linear, atol=1e-12
    )
    # the binned columns are valued by their fine bins' standardised midpoints
    values = mixed.model_.linear.values
    binned = set(mixed.encoder_.binned_columns_.tolist())
    assert {j for j, v in enumerate(values) if v is not None} == binned
    for j in binned:
        assert (np.diff(values[j]) > 0).all()
    # a refit without the linear member removes it
    assert mixed.set_params(linear_weight=0.0).fit(X, y).model_.linear is None


def _wine_with_categories():
    """Wine with four categorical columns (at most 10 values: not binned) beside its
    13 numeric ones, and missing values in both kinds."""
    X, y = load_wine(return_X_y=True)
    categories = np.column_stack(
        [np.digitize(X[:, j], np.quantile(X[:, j], [0.25, 0.5, 0.75])) for j in (0, 6, 9, 12)]
    )
    X = np.column_stack([X, categories]).astype(float)
    X[::9, 2] = np.nan
    X[::11, 14] = np.nan
    return X, y


def test_the_linear_member_reads_the_categorical_pairs_of_largest_information():
    from discotree.learners.logistic import ranked_pairs
    from discotree.learners.registry import Rows

    X, y = _wine_with_categories()
    clf = KDBEnsembleClassifier(n_estimators=2, linear_pairs=5, linear_weight=0.4).fit(X, y)
    linear = clf.model_.linear
    binned = clf.encoder_.binned_columns_.tolist()
    categorical = [j for j in range(X.shape[1]) if j not in binned]
    assert categorical == [13, 14, 15, 16]
    codes = clf.encoder_.transform(X)
    rows = Rows(codes, y, np.ones(len(y)), 3, clf.n_categories_)  # classes 0, 1, 2
    np.testing.assert_array_equal(linear.pairs, ranked_pairs(rows, [], 5, features=categorical))
    assert len(linear.pairs) == 5 and linear.pair_levels == []
    # "all" is every pair of the categorical columns; 0 none
    every = KDBEnsembleClassifier(
        n_estimators=2, linear_pairs="all", linear_weight=0.4, pair_weight=0.0
    ).fit(X, y)
    assert len(every.model_.linear.pairs) == 6
    assert len(KDBEnsembleClassifier(n_estimators=2).fit(X, y).model_.linear.pairs) == 0
    # the posterior is the documented mixture
    w = every.linear_weight_
    members = KDBEnsembleClassifier(n_estimators=2, linear_weight=0.0, pair_weight=0.0)
    members.fit(X, y)
    mixed = (1 - w) * members.predict_proba(X) + w * np.exp(
        every.model_.linear.log_posterior(codes)
    )
    assert_allclose(every.predict_proba(X), mixed, atol=1e-12)
    # numeric columns only: no pairs
    X_numeric, _ = load_wine(return_X_y=True)
    numeric = KDBEnsembleClassifier(n_estimators=2, linear_pairs="all").fit(X_numeric, y)
    assert numeric.model_.linear.pairs.shape == (0, 2)


def _categorical_problem(rng, n, interaction):
    """Four categorical columns; the class is the exclusive or of the first two (an
    interaction no single feature shows), or their sum's sign (none)."""
    X = rng.integers(0, 3, size=(n, 4)).astype(float)
    if interaction:
        y = ((X[:, 0] > 0) ^ (X[:, 1] > 0)).astype(int)
    else:
        y = (X[:, 0] + X[:, 1] + rng.normal(0, 1, n) > 2).astype(int)
    flip = rng.random(n) < 0.05
    return X, np.where(flip, 1 - y, y)


@pytest.mark.parametrize("interaction", [True, False])
def test_the_pairs_are_kept_where_they_lower_the_held_out_loss(rng, interaction):
    X, y = _categorical_problem(rng, 400, interaction)
    clf = KDBEnsembleClassifier(
        n_estimators=2, estimator=KDBClassifier(0, smoothing="hierarchical"), linear_pairs="all"
    ).fit(X, y)
    # the members are naive Bayes (k = 0): only the linear member can read the pairs
    assert (len(clf.model_.linear.pairs) > 0) is interaction
    if interaction:
        assert clf.linear_weight_ == 1.0  # it beats the naive members everywhere
        X_test, y_test = _categorical_problem(rng, 400, interaction)
        assert clf.score(X_test, y_test) > 0.9
    # a fixed weight keeps the pairs asked for
    fixed = KDBEnsembleClassifier(n_estimators=2, linear_pairs="all", linear_weight=0.5)
    assert len(fixed.fit(X, y).model_.linear.pairs) == 6


def test_the_memory_guard_counts_the_linear_member():
    from discotree import config_context

    X, y = load_wine(return_X_y=True)
    with_member = KDBEnsembleClassifier(n_estimators=1, pair_weight=0.0).fit(X, y)
    without = KDBEnsembleClassifier(n_estimators=1, linear_weight=0.0, pair_weight=0.0)
    without.fit(X, y)
    extra = with_member.fit_memory_estimate_ - without.fit_memory_estimate_
    # its inputs and work arrays, its parameters (one-hot inputs x classes), and the
    # member's held-out posteriors that linear_weight="auto" keeps
    inputs = with_member.n_categories_.sum()
    parameters = logistic_parameter_bytes(inputs, 3)
    assert extra == 24.0 * X.size + 32.0 * len(X) * 3 + parameters + 8.0 * len(X) * 3
    limit = int(without.fit_memory_estimate_ + with_member.fit_memory_estimate_) // 2
    with config_context(memory_limit=limit):
        KDBEnsembleClassifier(n_estimators=1, linear_weight=0.0, pair_weight=0.0).fit(X, y)
        with pytest.raises(ValueError, match="more than the memory limit"):
            KDBEnsembleClassifier(n_estimators=1, pair_weight=0.0).fit(X, y)
    X, y = _wine_with_categories()
    paired = KDBEnsembleClassifier(n_estimators=1, linear_pairs="all", pair_weight=0.0)
    paired.fit(X, y)
    bare = KDBEnsembleClassifier(n_estimators=1, linear_weight=0.0, pair_weight=0.0)
    bare.fit(X, y)
    extra = paired.fit_memory_estimate_ - bare.fit_memory_estimate_
    parameters = logistic_parameter_bytes(paired.n_categories_.sum() + 6 * 16, 3)  # 6 pairs of 4
    inputs_and_work = 24.0 * len(X) * (X.shape[1] + 6) + 32.0 * len(X) * 3
    assert extra == inputs_and_work + parameters + 8.0 * len(X) * 3


def test_held_out_mixture_losses_are_a_loop_over_weights(rng):
    members = rng.dirichlet(np.ones(3), 40)
    linear = rng.dirichlet(np.ones(3), 40)
    y, w = rng.integers(0, 3, 40), rng.random(40) + 0.5
    got = held_out_mixture_losses(members, linear, y, w)
    for g, weight in zip(got, LINEAR_WEIGHTS, strict=True):
        mixed = (1 - weight) * members + weight * linear
        expected = -sum(w[i] * np.log(mixed[i, y[i]]) for i in range(40)) / w.sum()
        assert_allclose(g, expected, rtol=1e-12)


@pytest.mark.parametrize("cap", [10_000, 150])  # all rows; or some, the linear fit once
def test_the_automatic_weight_follows_the_members_and_the_linear_members_skill(
    rng, cap, monkeypatch
):
    monkeypatch.setattr("discotree.learners.ensemble.HELD_OUT_ROWS", cap)
    n = 400
    # a parity of two categorical columns: the members learn it, the linear member cannot
    a, b = rng.integers(0, 2, n), rng.integers(0, 2, n)
    X = np.column_stack([a, b, rng.normal(size=n)])
    parity = KDBEnsembleClassifier(n_estimators=3, linear_weight="auto").fit(X, a ^ b)
    # least held-out loss at 0, plus the correction of the members' optimism
    assert parity.linear_weight_ == LEAVE_ONE_OUT_OPTIMISM
    # a fine linear boundary over many numeric columns: coarse bins lose, the line does not
    Z = rng.normal(size=(n, 12))
    line = (Z @ np.linspace(1, 2, 12) > 0).astype(int)
    linear = KDBEnsembleClassifier(n_estimators=3, linear_weight="auto").fit(Z, line)
    assert linear.linear_weight_ >= 0.4 + LEAVE_ONE_OUT_OPTIMISM
    fixed = KDBEnsembleClassifier(n_estimators=3, linear_weight=linear.linear_weight_)
    assert_allclose(linear.predict_proba(Z), fixed.fit(Z, line).predict_proba(Z), atol=1e-12)
    # a fixed weight is reported as it was given
    assert fixed.linear_weight_ == linear.linear_weight_


def test_the_weight_is_chosen_on_at_most_about_ten_thousand_rows(rng):
    from discotree.learners.ensemble import HELD_OUT_ROWS, held_out_rows

    codes = rng.integers(0, 50, (25_000, 3))
    codes[1] = codes[0]  # identical rows: held out together or not at all
    held = held_out_rows(codes)
    assert 0.8 * 25_000 / 3 < len(held) <= 1.1 * HELD_OUT_ROWS
    assert (0 in held) == (1 in held)
    assert held_out_rows(codes[:HELD_OUT_ROWS]) is None


def test_the_pair_member_reads_every_pair_and_is_mixed_in_last():
    from discotree.learners.ensemble_members import PAIR_LEVELS

    X, y = _wine_with_categories()  # 13 binned and 4 categorical columns, missing values
    w = np.linspace(0.5, 2.0, len(y))
    base = KDBEnsembleClassifier(n_estimators=2, linear_weight=0.3, pair_weight=0.0)
    base.fit(X, y, sample_weight=w)
    assert base.model_.pair_member is None and base.model_.pair_weight == 0.0
    # (pair_significance=None: every pair, not only those a test keeps)
    params = {
        "n_estimators": 2,
        "linear_weight": 0.3,
        "pair_weight": 0.2,
        "pair_significance": None,
    }
    clf = KDBEnsembleClassifier(**params, pair_pooling="linear")
    clf.fit(X, y, sample_weight=w)
    pair = clf.model_.pair_member
    # every pair of the 17 columns, each once
    assert sorted(map(tuple, pair.pairs.tolist())) == [
        (i, j) for i in range(17) for j in range(i + 1, 17)
    ]
    # a binned column's pairs read equal-width groups of its fine bins; the others their
    # categories; the single inputs are the linear member's
    binned = set(clf.encoder_.binned_columns_.tolist())
    assert binned == set(range(13))
    for j in range(17):
        r = int(clf.n_categories_[j])
        levels = pair.pair_levels[j]
        if j in binned and r > PAIR_LEVELS:
            expected = [int(np.floor(b * PAIR_LEVELS / r)) for b in range(r)]
            assert levels.tolist() == expected
        else:
            assert levels is None
    for mine, linear in zip(pair.values, clf.model_.linear.values, strict=True):
        assert (mine is None and linear is None) or np.array_equal(mine, linear)
    # the posterior: the ensemble without it, then the pair member's with weight 0.2,
    # pooled linearly or logarithmically (a weighted geometric mean, renormalised)
    codes = clf.encoder_.transform(X)
    expected = 0.8 * base.predict_proba(X) + 0.2 * np.exp(pair.log_posterior(codes))
    assert_allclose(clf.predict_proba(X), expected, atol=1e-12)
    logarithmic = KDBEnsembleClassifier(**params, pair_pooling="log").fit(X, y, sample_weight=w)
    geometric = base.predict_proba(X) ** 0.8 * np.exp(pair.log_posterior(codes)) ** 0.2
    expected = geometric / geometric.sum(axis=1, keepdims=True)
    assert_allclose(logarithmic.predict_proba(X), expected, atol=1e-12)
    # the pair member alone, and a refit without it removes it
    alone = KDBEnsembleClassifier(**{**params, "pair_weight": 1.0}).fit(X, y, sample_weight=w)
    assert_allclose(alone.predict_proba(X), np.exp(pair.log_posterior(codes)), atol=1e-12)
    assert clf.set_params(pair_weight=0.0).fit(X, y).model_.pair_member is None


def test_the_pair_member_learns_what_no_member_reads(rng):
    # k = 0: the members are naive Bayes and cannot read the exclusive or; the linear
    # member has no pairs (linear_pairs=0); only the pair member reads it
    X = rng.integers(0, 2, size=(1200, 4)).astype(float)
    y = (X[:, 0] != X[:, 1]).astype(int)  # parity: no single column tells anything
    X, X_test, y, y_test = X[:600], X[600:], y[:600], y[600:]
    params = {"n_estimators": 2, "estimator": KDBClassifier(0, smoothing="hierarchical")}
    params["linear_weight"] = 0.0
    without = KDBEnsembleClassifier(**params, pair_weight=0.0).fit(X, y)
    alone = KDBEnsembleClassifier(**params, pair_weight=1.0).fit(X, y)
    # (an additive model gets at most three of the four cells right: 75 %)
    assert without.score(X_test, y_test) < 0.8 < 0.99 < alone.score(X_test, y_test)


@pytest.mark.parametrize("weight", [-0.1, 1.5, float("nan"), True, "best"])
def test_a_bad_pair_weight_is_named(weight):
    with pytest.raises(ValueError, match=r"pair_weight must be 'auto' or a number in \[0, 1\]"):
        KDBEnsembleClassifier(pair_weight=weight).fit(np.zeros((4, 2)), [0, 1, 0, 1])


def test_the_memory_guard_counts_the_larger_of_the_linear_and_pair_members():
    X, y = _wine_with_categories()
    n, d = X.shape
    bare = KDBEnsembleClassifier(n_estimators=1, linear_weight=0.0, pair_weight=0.0).fit(X, y)
    pair = KDBEnsembleClassifier(n_estimators=1, linear_weight=0.0, pair_weight=0.1).fit(X, y)
    both = KDBEnsembleClassifier(n_estimators=1, linear_weight=0.5, pair_weight=0.1).fit(X, y)
    pair_bytes = 24.0 * n * (d + d * (d - 1) // 2) + 32.0 * n * 3
    # and its parameters: a weight per one-hot input and per joint cell of every pair
    # (a binned column through 4 levels; the others have at most 4 categories), by class
    r = pair.n_categories_
    cells = largest_pair_cells(np.minimum(r, 4), d * (d - 1) // 2)
    pair_bytes += logistic_parameter_bytes(r.sum() + cells, 3)
    assert pair.fit_memory_estimate_ - bare.fit_memory_estimate_ == pair_bytes
    # fitted one after the other: the larger (the pair member's) counts, not the sum
    assert both.fit_memory_estimate_ == pair.fit_memory_estimate_


def test_the_memory_guard_counts_the_logistic_fits_that_run_at_once(monkeypatch):
    """With n_jobs=2 the linear and pair members' fits run in the members' pool, two at
    a time: the two largest count (the linear and the pair member's, not the larger;
    the linear member's final fit beside a held-out one); on one thread, the largest."""
    monkeypatch.setattr("discotree.learners.ensemble.available_cores", lambda: 2)
    X, y = _wine_with_categories()

    def extra(n_jobs, linear_weight, pair_weight):
        def estimate(linear_weight, pair_weight):
            clf = KDBEnsembleClassifier(
                n_estimators=2, linear_weight=linear_weight, pair_weight=pair_weight
            )
            return clf.set_params(n_jobs=n_jobs).fit(X, y).fit_memory_estimate_

        return estimate(linear_weight, pair_weight) - estimate(0.0, 0.0)

    linear, pair = extra(None, 0.5, 0.0), extra(None, 0.0, 0.1)
    assert extra(None, 0.5, 0.1) == max(linear, pair)
    assert extra(2, 0.5, 0.1) == linear + pair
    assert extra(2, 0.5, 0.0) == linear  # (one fit: no held-out ones)
    held_out = 8.0 * len(X) * 3 * 2  # the members' held-out posteriors ("auto")
    assert extra(None, "auto", 0.0) == linear + held_out
    assert extra(2, "auto", 0.0) == 2 * linear + held_out
    # the two largest of them all: the pair member's fit on all rows and the one on
    # half of them (counted as the whole's)
    assert extra(2, "auto", "auto") == 2 * pair + held_out


@pytest.mark.parametrize("pooling", ["log", "linear"])
def test_pooled_posteriors_and_their_held_out_losses_are_loops(rng, pooling):
    from discotree.learners.ensemble_members import PAIR_WEIGHTS, held_out_pooled_losses
    from discotree.models.ensemble import pooled_log_posterior

    p, q = rng.dirichlet(np.ones(3), 30), rng.dirichlet(np.ones(3), 30)
    y, w = rng.integers(0, 3, 30), rng.random(30) + 0.5
    for weight in (0.0, 0.3, 1.0):
        got = np.exp(pooled_log_posterior(np.log(p), np.log(q), weight, pooling))
        for i in range(30):
            if pooling == "linear":
                row = [(1 - weight) * p[i, c] + weight * q[i, c] for c in range(3)]
            else:
                row = [p[i, c] ** (1 - weight) * q[i, c] ** weight for c in range(3)]
            assert_allclose(got[i], np.array(row) / sum(row), rtol=1e-12)
    losses = held_out_pooled_losses(np.log(p), np.log(q), y, w, PAIR_WEIGHTS, pooling=pooling)
    for loss, weight in zip(losses, PAIR_WEIGHTS, strict=True):
        own = pooled_log_posterior(np.log(p), np.log(q), float(weight), pooling)
        expected = -sum(w[i] * own[i, y[i]] for i in range(30)) / w.sum()
        assert_allclose(loss, expected, rtol=1e-12)
    with pytest.raises(ValueError, match="pooling must be one of"):
        pooled_log_posterior(np.log(p), np.log(q), 0.5, "mean")


def test_the_automatic_pair_weight_follows_the_held_out_loss(rng):
    from discotree.learners.ensemble_members import (
        PAIR_SPLIT_SEED,
        PAIR_WEIGHT_FLOOR,
        PAIR_WEIGHTS,
        fit_pair_member,
    )
    from discotree.learners.registry import LearnerSpec, Rows
    from discotree.stats.folds import content_folds

    n = 600
    # the parity of two of four columns (k = 0: naive members, blind to it): only the
    # pair member reads it, and its held-out loss says so
    X = rng.integers(0, 3, size=(n, 4)).astype(float)
    y = ((X[:, 0] + X[:, 1]) % 2).astype(int)
    w = rng.random(n) + 0.5
    clf = KDBEnsembleClassifier(
        n_estimators=2, estimator=KDBClassifier(0, smoothing="hierarchical")
    ).fit(X, y, sample_weight=w)
    losses = clf.pair_weight_losses_
    assert losses.shape == PAIR_WEIGHTS.shape
    best = PAIR_WEIGHTS[int(np.argmin(losses))]
    assert clf.pair_weight_ == clf.model_.pair_weight == max(best, PAIR_WEIGHT_FLOOR) > 0.5
    # at weight 1 the loss is the pair member's alone, fitted on the first half of the
    # rows (content folds) and scored on the second
    codes = clf.encoder_.transform(X)
    rows = Rows(codes, y, w, 2, clf.n_categories_)
    first = content_folds(codes, 2, PAIR_SPLIT_SEED) == 0
    members = KDependenceOptions(k=2, smoothing="dirichlet")
    options = {"estimator": members, "pair_significance": 0.001}
    spec = LearnerSpec("kdb-ensemble", 1.0, 1e-5, options=options)
    half = fit_pair_member(rows.take(first), spec, n_pairs=len(clf.model_.pair_member.pairs))
    log_q = half.log_posterior(codes[~first])[np.arange((~first).sum()), y[~first]]
    assert_allclose(losses[-1], -(w[~first] @ log_q) / w[~first].sum(), rtol=1e-9)
    # columns independent given the class (naive Bayes' own model): every pair read
    # (pair_significance=None) adds only noise, the held-out loss is least at a small
    # weight and the weight is the floor
    y = rng.integers(0, 2, n)
    X = (rng.random((n, 4)) < np.where(y[:, None] == 1, 0.8, 0.3)).astype(float)
    plain = KDBEnsembleClassifier(
        n_estimators=2, estimator=KDBClassifier(0, smoothing="hierarchical"), pair_significance=None
    ).fit(X, y)
    assert plain.pair_weight_ == PAIR_WEIGHT_FLOOR
    # a fixed weight is reported as given, with no losses; a refit replaces both
    fixed = plain.set_params(pair_weight=0.3).fit(X, y)
    assert fixed.pair_weight_ == 0.3 and fixed.pair_weight_losses_ is None


@pytest.mark.parametrize("linear_weight", [0.0, 0.4])
def test_the_automatic_pair_weight_with_a_fixed_linear_weight(rng, linear_weight):
    X = rng.integers(0, 3, size=(300, 4)).astype(float)
    y = ((X[:, 0] + X[:, 1]) % 2).astype(int)
    clf = KDBEnsembleClassifier(
        n_estimators=2,
        estimator=KDBClassifier(0, smoothing="hierarchical"),
        linear_weight=linear_weight,
    ).fit(X, y)
    assert clf.linear_weight_ == linear_weight
    assert clf.pair_weight_ > 0.5 and clf.score(X, y) > 0.95


def test_members_share_one_count_of_the_pairs_on_categorical_data(monkeypatch):
    # the shared statistics give the same ensemble as each member counting its own
    from discotree.learners import ensemble as learner

    rng = np.random.default_rng(7)
    X = rng.integers(0, 3, size=(300, 6))
    y = (X[:, 0] + X[:, 1] * (X[:, 2] > 0) + rng.integers(0, 2, 300)) % 3
    counted = []
    real = learner.shared_pair_statistics
    monkeypatch.setattr(
        learner, "shared_pair_statistics", lambda *a: counted.append(real(*a)) or counted[-1]
    )
    shared = KDBEnsembleClassifier(n_estimators=3).fit(X, y).predict_proba(X)
    assert counted[-1] is not None
    monkeypatch.setattr(learner, "shared_pair_statistics", lambda *a: None)
    own = KDBEnsembleClassifier(n_estimators=3).fit(X, y).predict_proba(X)
    np.testing.assert_array_equal(shared, own)
    from discotree.learners.registry import LearnerSpec, Rows

    rows = Rows(X, y, np.ones(300), 3, np.full(6, 3))
    members = KDependenceOptions(k=2, smoothing="dirichlet")
    options = {"estimator": members, "pair_significance": None}
    spec = LearnerSpec("kdb-ensemble", 1.0, 1e-5, options=options)
    coarse = [[np.array([0, 0, 1])] + [None] * 5]  # one member coarsens a column
    assert real(rows, spec, coarse) is None
    bagged = spec.with_options(bootstrap=True)
    assert real(rows, bagged, [[None] * 6]) is None


def test_partial_fit_is_refused_naming_the_passes_based_alternatives():
    clf = KDBEnsembleClassifier()
    assert not hasattr(clf, "partial_fit")  # (so the command line reads the file in passes)
    with pytest.raises(AttributeError, match="has no partial_fit") as refused:
        clf.partial_fit  # noqa: B018
    assert "discotree fit --data FILE --model eskdb" in str(refused.value)
    assert "Dask" in str(refused.value)


def test_pairs_per_column_keeps_the_pairs_of_largest_information():
    # the limited pair member reads the first pairs of the unlimited one's ranking
    rng = np.random.default_rng(3)
    X = rng.integers(0, 3, (300, 6))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + rng.integers(0, 2, 300)) % 3
    every = KDBEnsembleClassifier(n_estimators=2, pair_significance=None).fit(X, y)
    limited = KDBEnsembleClassifier(
        n_estimators=2, pair_significance=None, pairs_per_column=0.5
    ).fit(X, y)
    assert len(every.model_.pair_member.pairs) == 15
    assert len(limited.model_.pair_member.pairs) == 3  # round(0.5 * 6)
    np.testing.assert_array_equal(
        limited.model_.pair_member.pairs, every.model_.pair_member.pairs[:3]
    )


# ------------------------------------------------------- the members' template (estimator=)


def test_the_default_members_are_the_template_of_before():
    """``estimator=None`` is ``KDBClassifier(5, smoothing="hierarchical")`` (the
    ensemble's k, smoothing and selection_loss defaults before ``estimator=``): the same
    fit to the bit."""
    X, y = load_wine(return_X_y=True)
    default = KDBEnsembleClassifier(n_estimators=2).fit(X, y)
    given = KDBEnsembleClassifier(
        n_estimators=2, estimator=KDBClassifier(5, smoothing="hierarchical", selection_loss="rmse")
    ).fit(X, y)
    np.testing.assert_array_equal(default.predict_proba(X), given.predict_proba(X))
    options = default._derived_options()["estimator"]
    assert options == KDependenceOptions(k=5, smoothing="hierarchical", selection_loss="rmse")


def test_the_template_configures_every_member_and_is_never_fitted_nor_changed():
    X, y = load_wine(return_X_y=True)
    members = KDBClassifier(1, smoothing="dirichlet", selection_loss="log_loss", alpha=0.5)
    before = members.get_params()
    clf = KDBEnsembleClassifier(n_estimators=3, estimator=members).fit(X, y)
    assert clf.estimator is members and members.get_params() == before
    assert not hasattr(members, "model_") and not hasattr(members, "classes_")
    assert set(clf.members_k_) <= {0, 1} and clf.alpha_ == 0.5
    deep = clf.get_params(deep=True)
    assert (deep["estimator__k"], deep["estimator__alpha"]) == (1, 0.5)
    assert deep["estimator__selection_loss"] == "log_loss"


def test_a_grid_search_reaches_into_the_template():
    X, y = load_iris(return_X_y=True)
    members = KDBClassifier(smoothing="hierarchical")
    search = GridSearchCV(
        KDBEnsembleClassifier(
            n_estimators=2, linear_weight=0.0, pair_weight=0.0, estimator=members
        ),
        {"estimator__k": [0, 2]},
        cv=2,
    ).fit(X, y)
    assert search.best_params_["estimator__k"] in (0, 2)
    assert set(search.cv_results_["param_estimator__k"]) == {0, 2}
    assert members.k == 5  # (the searches changed clones)
    best = search.best_estimator_
    assert best.estimator.k == search.best_params_["estimator__k"]
    assert max(best.members_k_) <= best.estimator.k


@pytest.mark.parametrize(
    ("estimator", "error", "message"),
    [
        (TANClassifier(), TypeError, "estimator must be a KDBClassifier .* got TANClassifier"),
        ("kdb", TypeError, "estimator must be a KDBClassifier"),
        (KDBClassifier(selective=False), ValueError, "selective=False cannot be honoured"),
        (
            KDBClassifier(attribute_order="sampled"),
            ValueError,
            "attribute_order='sampled' cannot be honoured: each member's attribute order",
        ),
        (KDBClassifier(random_state=1), ValueError, "random_state=1 cannot be honoured"),
        (
            KDBClassifier(random_state=np.random.RandomState(0)),
            ValueError,
            "random_state=RandomState.* cannot be honoured",
        ),
        (KDBClassifier(max_categories=3), ValueError, "max_categories=3 cannot be honoured"),
        (
            KDBClassifier(discretizer=Discretizer(n_bins=3)),
            ValueError,
            "discretizer=Discretizer.* cannot be honoured: the ensemble encodes",
        ),
        (KDBClassifier(k=-1), ValueError, "estimator: KDBClassifier: k must be an integer >= 0"),
        (KDBClassifier(alpha=-1.0), ValueError, "estimator: KDBClassifier: alpha"),
        (
            KDBClassifier(smoothing="hierarchical", alpha=0.0),
            ValueError,
            r"estimator: KDBClassifier: smoothing='hierarchical' needs alpha > 0",
        ),
        (KDBClassifier(alpha="auto"), ValueError, "alpha='auto' is not available"),
    ],
)
def test_a_template_the_ensemble_cannot_honour_is_refused_naming_the_parameter(
    estimator, error, message
):
    X, y = np.array([[0, 1], [1, 0], [1, 1], [0, 0]] * 3), [0, 1, 1, 0] * 3
    clf = KDBEnsembleClassifier(n_estimators=1, estimator=estimator)
    clf.__discotree_tags__(), hasattr(clf, "predict_uncertainty")  # (no error before a fit)
    with pytest.raises(error, match=f"KDBEnsembleClassifier: .*{message}"):
        clf.fit(X, y)
    assert not hasattr(clf, "model_")
