"""Hierarchical smoothing along the parents' prefixes against a reference from
dictionaries of the rows (weights and missing values), and the leave-one-out choice of
the concentrations against refitting without each row."""

from collections import defaultdict

import numpy as np
import pytest
from numpy.testing import assert_allclose

from discotree.learners.k_dependence import hierarchical_concentrations
from discotree.learners.registry import LearnerSpec, Rows
from discotree.models.k_dependence import KDependenceModel
from discotree.stats.family_tables import prefix_family_tables
from discotree.stats.hierarchical import (
    CONCENTRATION_GRID,
    backoff_log_probability,
    choose_concentrations,
    hierarchical_forest_tables,
    level_counts,
)
from discotree.stats.pair_statistics import PairStatistics

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


@pytest.mark.parametrize("weighted", [False, True])
def test_forest_tables_from_counts_equal_kdbs_backoff_from_rows(rng, weighted):
    """The per-class forest version (counts only, each unit of weight out of its cell)
    equals kDB's hierarchical estimate (rows, each row's unit out) for the same
    parents, with missing values and whole-number weights."""

    r = np.array([3, 2, 4, 2])
    codes = np.column_stack([rng.integers(0, k, 300) for k in r])
    codes[rng.random(codes.shape) < 0.1] = -1
    y = rng.integers(0, 3, 300)
    w = rng.integers(1, 4, 300).astype(float) if weighted else np.ones(300)
    ranked = [(), (0,), (1,), (0,)]
    parents = np.array([[pa[0] if pa else -1 for pa in ranked]] * 3)
    stats = PairStatistics.from_codes(codes, y, r, 3, w)
    log_cpts, _, chosen = hierarchical_forest_tables(stats, parents, 0.8, 0.0)
    tables = prefix_family_tables(codes, y, w, 3, r, ranked)
    spec = LearnerSpec("selective-kdb", 0.8, 0.0, options={"k": 2})
    concentrations = hierarchical_concentrations(tables, ranked, Rows(codes, y, w, 3, r), spec)
    model = KDependenceModel(r, [0, 1, 2, 3], ranked, tables, 0.8, 0.0, concentrations)
    for j, pa in enumerate(ranked):
        assert_allclose(chosen[j], concentrations[j])
        grid = np.zeros((r[pa[0]] if pa else 1, r[j]), dtype=int)
        for a in range(grid.shape[0]):
            row = np.zeros((r[j], 4), dtype=int)
            row[:, j] = np.arange(r[j])
            if pa:
                row[:, pa[0]] = a
            expected = model.node_log_probability(j, row)  # (values, classes)
            for c in range(3):
                assert_allclose(log_cpts[c][j][a], expected[:, c], rtol=1e-10)


@pytest.mark.parametrize("weighted", [False, True])
def test_two_dependence_conditionals_equal_kdbs_backoff_with_the_ranked_parents(rng, weighted):
    """Every conditional of hierarchical A2DE (counts only) equals kDB's hierarchical
    estimate (rows) of that node with the triple's other two as ranked parents, the one
    of larger conditional mutual information first, with missing values and weights."""
    from discotree.kernels.counts import triple_counts, triple_layout
    from discotree.stats.hierarchical import hierarchical_two_dependence_conditionals

    r = np.array([3, 2, 4, 2])
    n = 300
    codes = np.column_stack([rng.integers(0, k, n) for k in r])
    codes[:, 2] = np.where(rng.random(n) < 0.5, codes[:, 0], codes[:, 2])
    codes[rng.random(codes.shape) < 0.1] = -1
    y = rng.integers(0, 3, n)
    w = rng.integers(1, 4, n).astype(float) if weighted else np.ones(n)
    stats = PairStatistics.from_codes(codes, y, r, 3, w)
    triples = triple_counts(codes, y, w, r, 3)
    cond_log, chosen = hierarchical_two_dependence_conditionals(stats, triples, 0.8, 0.0)
    cmi = stats.conditional_mutual_information()
    layout = triple_layout(r, 3)
    trios = [(i, j, k) for i in range(4) for j in range(i + 1, 4) for k in range(j + 1, 4)]
    rows = Rows(codes, y, w, 3, r)
    spec = LearnerSpec("selective-kdb", 0.8, 0.0, options={"k": 2})
    for t, trio in enumerate(trios):
        got = cond_log[:, layout[t] : layout[t + 1]].reshape(3, *r[list(trio)], 3)
        for member, m in enumerate(trio):
            a, b = (f for f in trio if f != m)
            ranked = (a, b) if cmi[m, a] >= cmi[m, b] else (b, a)
            parents = [()] * 4
            parents[m] = ranked
            tables = prefix_family_tables(codes, y, w, 3, r, parents)
            b_kdb = hierarchical_concentrations(tables, parents, rows, spec, nodes=[m])[0]
            assert_allclose([chosen["class"][m], chosen["one_parent"][ranked[0], m]], b_kdb[:2])
            assert chosen["two_parents"][member, t] == b_kdb[2]
            model = KDependenceModel(r, [m], parents, tables, 0.8, 0.0, [b_kdb] * 4)
            for cell in np.ndindex(*r[list(trio)]):
                row = np.zeros((1, 4), dtype=int)
                row[0, list(trio)] = cell
                expected = model.node_log_probability(m, row)[0]  # (classes,)
                assert_allclose(got[(member, *cell)], expected, rtol=1e-10)
