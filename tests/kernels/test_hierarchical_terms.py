"""The compiled leave-one-out back-off terms against the array-at-a-time reference of
:mod:`discotree.stats.hierarchical` (level_counts, LevelCounts.without,
choose_concentrations, backoff_log_probabilities) on random rows with weights, missing
values and concentrations given or chosen."""

import numpy as np
import pytest

from discotree.stats.family_tables import prefix_family_tables
from discotree.stats.hierarchical import (
    backoff_log_probabilities,
    choose_concentrations,
    leave_one_out_backoff_terms,
    level_counts,
)


def _problem(seed, ranked, n=300, n_features=5, n_classes=3, fractions=False):
    """Random rows (codes, classes, weights, ...) and the prefix tables of feature 0 with
    the parents ``ranked`` (the other features without parents); ``fractions``: some
    weights 0 and many below 1 (rows of one cell leaving other units out)."""
    rng = np.random.default_rng(seed)
    n_categories = rng.integers(2, 5, n_features)
    codes = np.stack([rng.integers(0, r, n) for r in n_categories], axis=1)
    y = rng.integers(0, n_classes, n)
    codes[:, 0] = np.where(rng.random(n) < 0.6, y % n_categories[0], codes[:, 0])
    codes[rng.random(codes.shape) < 0.12] = -1
    weights = rng.choice([0.5, 1.0, 2.0, 3.0], n)
    if fractions:
        weights = rng.choice([0.0, 0.25, 0.5, 1.0, 1.5], n, p=[0.1, 0.2, 0.2, 0.3, 0.2])
    parents = [ranked] + [()] * (n_features - 1)
    tables = prefix_family_tables(codes, y, weights, n_classes, n_categories, parents)[0]
    return codes, y, weights, n_categories, tables


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("choose", [True, False])
def test_the_kernel_matches_the_reference(seed, choose):
    node, ranked = 0, (3, 1, 4)
    codes, y, weights, n_categories, tables = _problem(seed, ranked)
    unit = np.minimum(weights, 1.0)
    alpha = 0.7
    levels = level_counts(tables, codes, ranked, n_categories, len(ranked)).without(y, unit)
    given = None if choose else np.array([0.5, 2.0, 8.0, 1.0])
    expected_b = (
        choose_concentrations(levels, y, weights, alpha, int(n_categories[node]))
        if choose
        else given
    )
    expected = backoff_log_probabilities(
        levels, len(ranked), expected_b, alpha, int(n_categories[node])
    )
    terms, chosen = leave_one_out_backoff_terms(
        tables,
        codes,
        ranked,
        n_categories,
        y,
        unit=unit,
        alpha=alpha,
        concentrations=given,
        weights=weights if choose else None,
    )
    np.testing.assert_array_equal(chosen, expected_b)
    assert len(terms) == len(expected)
    for got, want in zip(terms, expected, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_fewer_levels_than_the_tables_read_only_those():
    ranked = (2, 3)
    codes, y, weights, n_categories, tables = _problem(9, ranked)
    unit = np.minimum(weights, 1.0)
    every, chosen = leave_one_out_backoff_terms(
        tables, codes, ranked, n_categories, y, unit=unit, alpha=1.0, weights=weights
    )
    first, _ = leave_one_out_backoff_terms(
        tables, codes, ranked[:1], n_categories, y, unit=unit, alpha=1.0, concentrations=chosen[:2]
    )
    assert len(first) == 2
    np.testing.assert_allclose(first[1], every[1], rtol=1e-12)


def test_with_nothing_left_out_the_terms_are_the_fitted_back_off():
    # the prediction path (a fitted kDB's node_log_probability): unit 0
    ranked = (1, 2)
    codes, _, _, n_categories, tables = _problem(3, ranked)
    b = np.array([2.0, 0.5, 4.0])
    levels = level_counts(tables, codes, ranked, n_categories, len(ranked))
    expected = backoff_log_probabilities(levels, 2, b, 1.0, int(n_categories[0]))
    zeros = np.zeros(len(codes))
    terms, _ = leave_one_out_backoff_terms(
        tables,
        codes,
        ranked,
        n_categories,
        np.zeros(len(codes), dtype=np.intp),
        unit=zeros,
        alpha=1.0,
        concentrations=b,
    )
    for got, want in zip(terms, expected, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("choose", [True, False])
@pytest.mark.parametrize("fractions", [False, True])
def test_dense_and_sparse_lookups_give_the_same_bits(seed, choose, fractions, monkeypatch):
    # (with ``fractions``, rows of one cell leave other units out, or have no weight)
    from discotree.kernels import hierarchical_terms

    ranked = (3, 1, 4)
    codes, y, weights, n_categories, tables = _problem(seed, ranked, n=500, fractions=fractions)
    unit = np.minimum(weights, 1.0)
    given = None if choose else np.array([0.5, 2.0, 8.0, 1.0])
    results = []
    for cells, factor in ((0, 0), (1 << 30, 0), (0, 10**6)):  # sparse, dense, dense
        monkeypatch.setattr(hierarchical_terms, "DENSE_CELLS", cells)
        monkeypatch.setattr(hierarchical_terms, "DENSE_ROWS_FACTOR", factor)
        results.append(
            leave_one_out_backoff_terms(
                tables,
                codes,
                ranked,
                n_categories,
                y,
                unit=unit,
                alpha=0.7,
                concentrations=given,
                weights=weights if choose else None,
            )
        )
    for terms, chosen in results[1:]:
        np.testing.assert_array_equal(chosen, results[0][1])
        for got, want in zip(terms, results[0][0], strict=True):
            np.testing.assert_array_equal(got, want)


def test_a_level_whose_rows_are_all_alone_ties_and_takes_the_first_concentration():
    # every row alone under its parent's value and class: no row is scored at level 1,
    # every concentration of the grid ties (the reference's scores are all equal too)
    rng = np.random.default_rng(5)
    n = 40
    y = rng.integers(0, 2, n)
    codes = np.stack([rng.integers(0, 2, n), np.arange(n)], axis=1)
    n_categories = np.array([2, n])
    tables = prefix_family_tables(codes, y, np.ones(n), 2, n_categories, [(1,), ()])[0]
    levels = level_counts(tables, codes, (1,), n_categories, 1).without(y, np.ones(n))
    expected = choose_concentrations(levels, y, np.ones(n), 1.0, 2)
    _, chosen = leave_one_out_backoff_terms(
        tables, codes, (1,), n_categories, y, unit=np.ones(n), alpha=1.0, weights=np.ones(n)
    )
    np.testing.assert_array_equal(chosen, expected)
    assert chosen[1] == 0.25


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("choose", [True, False])
@pytest.mark.parametrize("fractions", [False, True])
@pytest.mark.parametrize("sparse", [False, True])
def test_the_distinct_rows_give_the_bits_of_every_row(seed, choose, fractions, sparse, monkeypatch):
    # the level passes on the distinct rows, then each row the terms of its own: the
    # terms and concentrations of the passes on every row, to the bit
    from discotree.kernels import hierarchical_terms

    if sparse:
        monkeypatch.setattr(hierarchical_terms, "DENSE_CELLS", 0)
        monkeypatch.setattr(hierarchical_terms, "DENSE_ROWS_FACTOR", 0)

    ranked = (3, 1, 4)
    codes, y, weights, n_categories, tables = _problem(seed, ranked, n=600, fractions=fractions)
    codes = np.concatenate([codes, codes[::3]])  # (more rows alike, some weights apart)
    y = np.concatenate([y, y[::3]])
    weights = np.concatenate([weights, weights[::-3]])

    def terms():
        return leave_one_out_backoff_terms(
            tables,
            codes,
            ranked,
            n_categories,
            y,
            unit=np.minimum(weights, 1.0),
            alpha=0.7,
            concentrations=None if choose else np.array([0.5, 2.0, 8.0, 1.0]),
            weights=weights if choose else None,
        )

    distinct, chosen = terms()
    monkeypatch.setattr(hierarchical_terms, "_distinct", lambda rows: (rows, None))
    every, every_chosen = terms()
    np.testing.assert_array_equal(chosen, every_chosen)
    for got, want in zip(distinct, every, strict=True):
        assert np.array_equal(got, want)


def test_distinct_rows_are_those_the_level_passes_cannot_tell_apart():
    from discotree.kernels.hierarchical_terms import _distinct_rows

    rng = np.random.default_rng(3)
    n, radices = 2000, np.array([3, 2, 4])
    parents = np.stack([rng.integers(-1, r, n) for r in radices], axis=1)
    values, y = rng.integers(-1, 3, n), rng.integers(0, 2, n)
    unit = rng.choice([0.0, 0.5, 1.0], n)
    row_key, first = _distinct_rows(values, parents, radices, y, unit)
    # what the passes read: the configuration id (missing parents as 0), the number of
    # leading parents observed, the value, the class and the unit
    ids = np.zeros(n, dtype=np.int64)
    for level, radix in enumerate(radices):
        ids = ids * radix + np.maximum(parents[:, level], 0)
    observed = np.cumprod(parents >= 0, axis=1).sum(axis=1)
    keys = np.column_stack([ids, observed, values, y, unit])
    _, expected = np.unique(keys, axis=0, return_inverse=True)
    assert len(first) == len(np.unique(expected)) < n
    np.testing.assert_array_equal(row_key[first], np.arange(len(first)))  # (first rows)
    assert np.all(np.diff(first) > 0)  # (numbered in order of first row)
    # the same partition of the rows
    pairs = set(zip(row_key.tolist(), expected.ravel().tolist(), strict=True))
    assert len(pairs) == len(first)
