"""The kernels that score a grid of pseudo-counts at once, against one-at-a-time and
brute-force references, with weights and missing values."""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy.special import logsumexp

from discotree.kernels.alpha_grid import exp_nonpositive, grid_losses
from discotree.numerics import SCORE_TIE_RTOL, argmax_with_ties
from discotree.stats.alpha_selection import ForestGrid
from discotree.stats.dirichlet import cell_pseudo_count, smoothed_conditional
from discotree.stats.pair_statistics import PairStatistics
from discotree.structure.spanning import orient_forest
from tests import reference

GRID = (0.0, 0.03, 1.0, 7.5)


def _random_forests(rng, n_forests, n_features):
    parents = []
    for _ in range(n_forests):
        edges = [(int(rng.integers(0, j)), j) for j in range(1, n_features) if rng.random() < 0.8]
        parents.append(orient_forest(n_features, edges, root=int(rng.integers(n_features))))
    return np.array(parents, dtype=np.intp)


def _weighted_counts(rng, n_classes, n_features, n=200):
    n_categories = rng.integers(1, 4, n_features).astype(np.intp)
    codes = np.column_stack([rng.integers(0, r, n) for r in n_categories])
    codes[rng.random(codes.shape) < 0.2] = -1
    class_index = rng.integers(0, n_classes, n)
    weights = rng.random(n) * 3
    stats = PairStatistics.from_codes(codes, class_index, n_categories, n_classes, weights)
    return stats, n_categories


def _reference_tables(counts_of, parents, n_categories, alpha, prior, bdeu_classes, epsilon):
    """Per forest and feature, the log table of smoothed_conditional (the slow path)."""
    tables = []
    for k, row in enumerate(parents):
        stats = counts_of(k)
        per_feature = []
        for j, p in enumerate(row):
            counts = stats.marginal(j)[0][None, :] if p < 0 else stats.table(p, j)[0]
            cell = cell_pseudo_count(alpha, prior, bdeu_classes, counts.shape)
            with np.errstate(divide="ignore"):
                per_feature.append(np.log(smoothed_conditional(counts, cell, epsilon)))
        tables.append(per_feature)
    return tables


@pytest.mark.parametrize("prior, epsilon", [("dirichlet", 0.0), ("dirichlet", 1e-4), ("bdeu", 0)])
def test_tables_equal_smoothing_one_table_at_a_time(prior, epsilon, rng):
    """Sources with a subtraction (every class but one, as the one-vs-rest problems of
    the discriminative trees read them), alpha 0 (unseen contexts: uniform rows; zero
    cells: the epsilon floor or log 0)."""
    n_classes, n_features = 3, 5
    stats, n_categories = _weighted_counts(rng, n_classes, n_features)
    parents = _random_forests(rng, 4, n_features)
    plus, minus = np.array([0, 2, 3, 3]), np.array([-1, -1, 1, 0])
    counts = np.concatenate([stats.counts, stats.counts.sum(axis=0, keepdims=True)])
    bank = ForestGrid(parents, n_categories, epsilon, prior, 2, plus, minus)
    fast = bank.log_tables(counts, GRID)

    def counts_of(k):
        table = counts[plus[k]] - (counts[minus[k]] if minus[k] >= 0 else 0)
        return PairStatistics(np.maximum(table, 0)[None], n_categories)

    for a, alpha in enumerate(GRID):
        if prior == "bdeu" and alpha == 0:
            continue
        slow = _reference_tables(counts_of, parents, n_categories, alpha, prior, 2, epsilon)
        flat = np.concatenate([t.ravel() for row in slow for t in row])
        assert_allclose(fast[:, a], flat, rtol=1e-12, atol=1e-12)


def test_log_likelihood_of_every_alpha_equals_enumeration(rng):
    """Complete rows, rows with a few and with every feature missing, against the
    brute-force sum over completions of the reference."""
    n_features = 6
    stats, n_categories = _weighted_counts(rng, 3, n_features)
    parents = _random_forests(rng, 3, n_features)
    bank = ForestGrid(parents, n_categories, 1e-6)
    log_tables = bank.log_tables(stats.counts, GRID[1:])
    codes = np.column_stack([rng.integers(0, r, 120) for r in n_categories])
    codes[rng.random(codes.shape) < 0.3] = -1
    codes[0] = -1
    fast = bank.log_likelihood(codes, log_tables)
    for a in range(log_tables.shape[1]):
        log_cpts = _unflatten(log_tables[:, a], bank)
        slow = reference.forest_log_likelihood(codes, parents, n_categories, log_cpts)
        assert_allclose(fast[:, :, a], slow, rtol=1e-10, atol=1e-10)
    assert_allclose(fast[0], 0.0, atol=1e-12)


@pytest.mark.parametrize("n_alphas", [1, 4, 8, 13])
def test_blocks_of_alphas_equal_enumeration(n_alphas, rng):
    """The sums run eight, then four, then one alpha at a time: every block size
    gives the reference's numbers (complete rows and rows with missing values)."""
    n_features = 5
    stats, n_categories = _weighted_counts(rng, 2, n_features)
    parents = _random_forests(rng, 2, n_features)
    bank = ForestGrid(parents, n_categories, 1e-6)
    log_tables = bank.log_tables(stats.counts, tuple(np.linspace(0.05, 4.0, n_alphas)))
    codes = np.column_stack([rng.integers(0, r, 60) for r in n_categories])
    codes[:10][rng.random((10, n_features)) < 0.4] = -1
    fast = bank.log_likelihood(codes, log_tables)
    for a in range(n_alphas):
        slow = reference.forest_log_likelihood(
            codes, parents, n_categories, _unflatten(log_tables[:, a], bank)
        )
        assert_allclose(fast[:, :, a], slow, rtol=1e-10, atol=1e-10)


def test_exp_nonpositive_equals_numpy(rng):
    """Within 2 ulp of np.exp down to -700, 0 below and for NaN (what the log-sum-exp
    adds: every gap to a row's maximum is at most 0)."""
    x = np.concatenate(
        [-rng.exponential(3.0, 5000), -rng.uniform(0, 700, 5000), [0.0, -0.0, -1e-300, -699.9]]
    )
    out, scratch = np.empty_like(x), np.empty_like(x)
    exp_nonpositive(x, out, scratch)
    exact = np.exp(x)
    assert np.all(np.abs(out - exact) <= 2 * np.spacing(exact))
    low = np.array([-700.0, -700.5, -1e4, -np.inf, np.nan])
    out, scratch = np.empty_like(low), np.empty_like(low)
    exp_nonpositive(low, out, scratch)
    assert_array_equal(out, 0.0)


def test_underflowing_messages_fall_back_to_log_space(rng):
    """Log probabilities of -800 (0 once exponentiated): both children's messages to
    the missing root vanish in linear space, so the row is computed with log-space
    messages, and equals enumeration (a finite -800 where linear space says -inf)."""
    n_categories = np.array([2, 2, 2], dtype=np.intp)
    parents = np.array([[-1, 0, 0]], dtype=np.intp)  # a root with two children
    bank = ForestGrid(parents, n_categories, 0.0)
    tiny = -800.0
    log_cpts = [
        [
            np.log(np.array([[0.5, 0.5]])),
            np.array([[0.0, tiny], [tiny, 0.0]]),
            np.array([[tiny, 0.0], [0.0, tiny]]),
        ]
    ]
    flat = np.concatenate([t.ravel() for t in log_cpts[0]])[:, None]
    codes = np.array([[-1, 1, 1], [-1, 0, 1], [0, -1, -1]])
    fast = bank.log_likelihood(codes, flat)[:, :, 0]
    slow = reference.forest_log_likelihood(codes, parents, n_categories, log_cpts)
    assert np.isfinite(slow).all() and slow[0, 0] == pytest.approx(-800.0)
    assert_allclose(fast, slow, rtol=1e-12)


def _unflatten(flat, bank):
    tables, position = [], 0
    for row in bank.parents:
        per_feature = []
        for j, p in enumerate(row):
            shape = (1 if p < 0 else bank.n_categories[p], bank.n_categories[j])
            size = shape[0] * shape[1]
            per_feature.append(flat[position : position + size].reshape(shape))
            position += size
        tables.append(per_feature)
    return tables


def test_grid_losses_equal_numpy(rng):
    joints = rng.normal(size=(50, 4, 3)) * 5
    joints[3, :, 0] = 2.0  # a four-way tie: the lowest class wins
    joints[4, 1:3, 1] = joints[4, :, 1].max() + 1  # a tie between classes 1 and 2
    joints[5, 2, 2] = joints[5, 0, 2] + 1e-12  # within the tie tolerance
    joints[6, 1, :] = -np.inf  # a class of probability 0
    joints[7, 3, :] = joints[7, 0, :] - 900.0  # a gap beyond exp's range
    joints[8] *= 1e3  # posteriors of 0 and 1 up to rounding
    truth = rng.integers(0, 4, 50)
    errors, losses = np.empty((50, 3)), np.empty((50, 3))
    grid_losses(joints, truth, SCORE_TIE_RTOL, errors, losses)
    for a in range(3):
        predicted = argmax_with_ties(joints[:, :, a])
        assert_array_equal(errors[:, a], (predicted != truth).astype(float))
        log_post = joints[:, :, a] - logsumexp(joints[:, :, a], axis=1, keepdims=True)
        assert_allclose(losses[:, a], -log_post[np.arange(50), truth], rtol=1e-12)
    assert errors[3, 0] == float(truth[3] != 0)


def test_topological_orders_equal_the_structure_module(rng):
    from discotree.kernels.alpha_grid import topological_orders
    from discotree.structure.spanning import topological_order

    parents = _random_forests(rng, 6, 9)
    out = np.empty_like(parents)
    assert topological_orders(parents, out)
    for row, order in zip(parents, out, strict=True):
        assert_array_equal(order, topological_order(row))
    cycle = np.array([[1, 0, -1]], dtype=np.intp)
    assert not topological_orders(cycle, np.empty_like(cycle))
    with pytest.raises(ValueError, match="cycle"):
        ForestGrid(cycle, np.array([2, 2, 2]), 0.0)


def test_scoring_on_row_blocks_equals_one_thread(rng, monkeypatch):
    from discotree.stats import alpha_selection as smoothing

    stats, n_categories = _weighted_counts(rng, 3, 6)
    bank = ForestGrid(_random_forests(rng, 3, 6), n_categories, 1e-6)
    log_tables = bank.log_tables(stats.counts, GRID[1:])
    codes = np.column_stack([rng.integers(0, r, 500) for r in n_categories])
    codes[rng.random(codes.shape) < 0.2] = -1
    single = bank.log_likelihood(codes, log_tables)
    monkeypatch.setattr(smoothing, "_THREAD_WORK", 1)
    monkeypatch.setattr("discotree.threads.available_cores", lambda: 3)
    assert_array_equal(bank.log_likelihood(codes, log_tables), single)
    joints = rng.normal(size=(500, 3, 4))
    truth, weight = rng.integers(0, 3, 500), rng.random(500)
    threaded = smoothing.held_out_losses(joints, truth, weight)
    monkeypatch.setattr(smoothing, "_THREAD_WORK", 10**12)
    for a, b in zip(threaded, smoothing.held_out_losses(joints, truth, weight), strict=True):
        assert_allclose(a, b, rtol=1e-12)
