"""Hierarchical smoothing along the parents' prefixes against a reference from
dictionaries of the rows (weights and missing values), and the leave-one-out choice of
the concentrations against refitting without each row."""

from collections import defaultdict

import numpy as np
from numpy.testing import assert_allclose

from discotree.stats.family_tables import prefix_family_tables
from discotree.stats.hierarchical import (
    CONCENTRATION_GRID,
    backoff_log_probability,
    choose_concentrations,
    level_counts,
)

N_CATEGORIES = np.array([3, 2, 3, 2])
RANKED = (0, 2, 1)  # node 3's parents, ranked


def _data(rng, n=150):
    codes = np.column_stack([rng.integers(0, r, n) for r in N_CATEGORIES])
    codes[rng.random(codes.shape) < 0.1] = -1
    y = rng.integers(0, 2, n)
    w = rng.integers(1, 3, n).astype(float)
    return codes, y, w


def _counts(codes, y, w, length):
    n, t = defaultdict(float), defaultdict(float)
    marginal, total = defaultdict(float), 0.0
    for row, c, weight in zip(codes, y, w, strict=True):
        if row[3] < 0:
            continue
        marginal[row[3]] += weight
        total += weight
        if any(row[p] < 0 for p in RANKED[:length]):
            continue
        config = tuple(row[p] for p in RANKED[:length])
        n[(config, c, row[3])] += weight
        t[(config, c)] += weight
    return n, t, marginal, total


def _reference(codes, y, w, row, c, concentrations, alpha, upto=3):
    n_all = [_counts(codes, y, w, length) for length in range(upto + 1)]
    _, _, marginal, total = n_all[0]
    p = (marginal[row[3]] + alpha) / (total + alpha * 2)
    for length, (n, t, _, _) in enumerate(n_all):
        if any(row[q] < 0 for q in RANKED[:length]):
            break  # a missing parent: the shorter prefix's estimate
        config = tuple(row[q] for q in RANKED[:length])
        b = concentrations[length]
        p = (n[(config, c, row[3])] + b * p) / (t[(config, c)] + b)
    return np.log(p)


def test_backoff_equals_the_reference(rng):
    codes, y, w = _data(rng)
    parents = [(), (), (), RANKED]
    tables = prefix_family_tables(codes, y, w, 2, N_CATEGORIES, parents)[3]
    concentrations = np.array([0.5, 2.0, 8.0, 1.0])
    rows = codes[codes[:, 3] >= 0][:25]
    levels = level_counts(tables, rows, RANKED, N_CATEGORIES, len(RANKED))
    got = backoff_log_probability(levels, len(RANKED), concentrations, 0.7, 2)
    for i, row in enumerate(rows):
        for c in range(2):
            assert_allclose(got[i, c], _reference(codes, y, w, row, c, concentrations, 0.7))


def test_a_missing_node_scores_zero_and_unseen_configurations_back_off(rng):
    codes, y, w = _data(rng)
    tables = prefix_family_tables(codes, y, w, 2, N_CATEGORIES, [(), (), (), RANKED])[3]
    rows = np.array([[0, 1, 2, -1], [0, 1, 2, 1]])
    levels = level_counts(tables, rows, RANKED, N_CATEGORIES, 3)
    out = backoff_log_probability(levels, 3, np.ones(4), 1.0, 2)
    assert_allclose(out[0], 0.0)
    assert np.isfinite(out[1]).all()


def test_the_leave_one_out_choice_equals_refitting_without_each_row(rng):
    codes, y, w = _data(rng, n=50)
    length = len(RANKED)
    tables = prefix_family_tables(codes, y, w, 2, N_CATEGORIES, [(), (), (), RANKED])[3]
    levels = level_counts(tables, codes, RANKED, N_CATEGORIES, len(RANKED))
    chosen = choose_concentrations(levels.without(y, np.minimum(w, 1.0)), y, w, 1.0, 2)
    # brute force for the levels up to ``length``, the earlier ones fixed at their choice
    for level in range(length + 1):
        scores = []
        for b in CONCENTRATION_GRID:
            trial = chosen.copy()
            trial[level] = b
            total = 0.0
            for i in np.flatnonzero(codes[:, 3] >= 0):
                left = w.copy()
                left[i] -= 1.0
                total += w[i] * _reference(codes, y, left, codes[i], y[i], trial, 1.0, level)
            scores.append(total)
        assert CONCENTRATION_GRID[int(np.argmax(scores))] == chosen[level]
