"""Feature selection under a submodular cost (003, Section 2.1)."""

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from discotree.feature_selection import GroupCost, SubmodularFeatureSelector


def _entropy(columns):
    """Plug-in joint entropy (nats) of the rows of ``columns``, by counting tuples."""
    if columns.shape[1] == 0:
        return 0.0
    counts = {}
    for row in map(tuple, columns):
        counts[row] = counts.get(row, 0) + 1
    n = len(columns)
    return -sum(c / n * math.log(c / n) for c in counts.values())


def _objective(X, y, subset, cost, k, information):
    """``k c(S) - g(S)`` by brute force."""
    columns = X[:, list(subset)]
    h = _entropy(columns)
    if information == "entropy":
        g = h
    else:
        with_class = np.column_stack([columns, y])
        g = h - (_entropy(with_class) - _entropy(y[:, None]))
    return k * (cost(list(subset)) - cost([])) - g


def _problem(seed, n_features=6, n_samples=200):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n_samples)
    X = rng.integers(0, 3, size=(n_samples, n_features))
    for j in range(0, n_features, 2):  # every other feature carries the class, noisily
        flip = rng.random(n_samples) < 0.1 + 0.1 * j
        X[:, j] = np.where(flip, X[:, j], y + X[:, j] % 2)
    groups = [list(range(i, min(i + 2, n_features))) for i in range(0, n_features, 2)]
    cost = GroupCost(groups, group_costs=rng.uniform(0.5, 2.0, len(groups)), feature_costs=0.1)
    return X, y, cost


@pytest.mark.parametrize("information", ["class", "entropy"])
def test_objective_and_parts_match_brute_force(information):
    X, y, cost = _problem(0)
    selector = SubmodularFeatureSelector(cost, cost_weight=0.1, information=information).fit(X, y)
    subset = np.flatnonzero(selector.support_)
    assert selector.objective_ == pytest.approx(
        _objective(X, y, subset, cost, 0.1, information), abs=1e-10
    )
    assert selector.cost_ == pytest.approx(cost(list(subset)))
    assert selector.objective_ == pytest.approx(0.1 * selector.cost_ - selector.information_)


@pytest.mark.parametrize(
    ("information", "n_restarts", "expected"), [("class", 4, 10), ("entropy", 16, 10)]
)
def test_against_exhaustive_search_on_small_problems(information, n_restarts, expected):
    """Algorithm 1 is a local method: the selector's set is never worse than any set
    one feature away (its single moves); on these problems, with the restarts given,
    it is the exhaustive optimum over the nonempty sets in ``expected`` of 10 (the
    count measured, asserted exactly so that a regression shows)."""
    found = 0
    for seed in range(10):
        X, y, cost = _problem(seed)
        k = 0.05 if information == "class" else 0.6
        selector = SubmodularFeatureSelector(
            cost, cost_weight=k, information=information, n_restarts=n_restarts
        )
        selector.fit(X, y)
        chosen = frozenset(np.flatnonzero(selector.support_).tolist())
        value = _objective(X, y, chosen, cost, k, information)
        everything = {
            frozenset(s): _objective(X, y, s, cost, k, information)
            for r in range(1, X.shape[1] + 1)
            for s in itertools.combinations(range(X.shape[1]), r)
        }
        neighbours = [chosen ^ {v} for v in range(X.shape[1])]
        assert all(value <= everything[s] + 1e-9 for s in neighbours if s)
        found += value <= min(everything.values()) + 1e-9
    assert found == expected


def test_group_costs_favour_features_that_share_a_computation():
    """Two informative features in one group beat one in each of two groups once a
    group's cost is what matters."""
    rng = np.random.default_rng(0)
    n = 2000
    y = rng.integers(0, 2, n)

    def noisy(p):
        return np.where(rng.random(n) < p, 1 - y, y)

    X = np.column_stack([noisy(0.2), noisy(0.2), noisy(0.15), rng.integers(0, 2, n)])
    # I(X_S; C) in nats: {0}: 0.17, {2}: 0.26, {0, 1}: 0.29, {0, 1, 2}: 0.43
    cheap = SubmodularFeatureSelector(np.ones(4), cost_weight=0.02).fit(X, y)
    assert cheap.support_.tolist() == [True, True, True, False]
    # at 0.15 nats per unit, paying per feature: the single best feature
    per_feature = SubmodularFeatureSelector(np.ones(4), cost_weight=0.15).fit(X, y)
    assert per_feature.support_.tolist() == [False, False, True, False]
    # the same rate when 0 and 1 share one computation: that group, not feature 2
    grouped = GroupCost([[0, 1], [2], [3]], group_costs=[1.0, 1.0, 1.0])
    one_group = SubmodularFeatureSelector(grouped, cost_weight=0.15).fit(X, y)
    assert one_group.support_.tolist() == [True, True, False, False]


def test_dataframe_strings_missing_values_and_transform():
    X, y, cost = _problem(1)
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])]).astype(str)
    frame.iloc[0, 0] = None
    selector = SubmodularFeatureSelector(cost, cost_weight=0.05).fit(frame, y)
    out = selector.transform(frame)
    assert out.shape == (len(frame), selector.support_.sum())
    assert list(selector.get_feature_names_out()) == list(frame.columns[selector.support_])
    assert selector.history_ and all(np.isfinite(selector.history_))


def test_bad_costs_and_parameters_raise_clear_errors():
    X, y, _ = _problem(2, n_features=4)

    def supermodular(features):
        return len(features) ** 2

    with pytest.raises(ValueError, match="cost is not submodular"):
        SubmodularFeatureSelector(supermodular).fit(X, y)
    SubmodularFeatureSelector(supermodular, check_cost=False).fit(X, y)  # allowed
    with pytest.raises(ValueError, match="4 finite per-feature costs"):
        SubmodularFeatureSelector(np.ones(3)).fit(X, y)
    with pytest.raises(ValueError, match=">= 0"):
        SubmodularFeatureSelector(-np.ones(4)).fit(X, y)
    with pytest.raises(ValueError, match="not finite"):
        SubmodularFeatureSelector(lambda s: np.nan if s else 0.0).fit(X, y)
    with pytest.raises(ValueError, match="cost_weight"):
        SubmodularFeatureSelector(cost_weight=-1).fit(X, y)
    with pytest.raises(ValueError, match="information must be one of"):
        SubmodularFeatureSelector(information="gain").fit(X, y)
    with pytest.raises(ValueError, match="only 1 class"):
        SubmodularFeatureSelector().fit(X, np.zeros(len(X)))
    with pytest.raises(ValueError, match="group_costs"):
        GroupCost([[0]], group_costs=-1.0)
    selector = SubmodularFeatureSelector()
    with pytest.raises(ValueError):
        selector.fit(X, y[:-1])
    assert not hasattr(selector, "support_")  # a failed fit leaves nothing


def test_single_feature_and_weights():
    X, y, _ = _problem(3, n_features=1)
    selector = SubmodularFeatureSelector().fit(X, y)
    assert selector.support_.tolist() == [True]
    X, y, cost = _problem(4, n_features=4)
    w = np.random.default_rng(0).integers(0, 3, len(y))
    weighted = SubmodularFeatureSelector(cost, cost_weight=0.05).fit(X, y, sample_weight=w)
    repeated = SubmodularFeatureSelector(cost, cost_weight=0.05).fit(
        np.repeat(X, w, axis=0), np.repeat(y, w)
    )
    assert weighted.support_.tolist() == repeated.support_.tolist()
    assert weighted.objective_ == pytest.approx(repeated.objective_)
