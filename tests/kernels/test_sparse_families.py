"""The sparse-table lookup and the posterior losses against plain NumPy."""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.special import softmax

from discotree.kernels.sparse_families import posterior_loss_sums, sparse_cell_lookup


def test_lookup_equals_a_dense_table(rng):
    n_configs, n_classes, r = 40, 3, 4
    dense = rng.random((n_configs, n_classes, r)) * (rng.random((n_configs, n_classes, r)) < 0.3)
    present = np.flatnonzero(dense.reshape(-1) > 0)
    masses = dense.reshape(-1)[present]
    masses[::5] = 0.0  # cells present with no weight (a weight of 0) do not count as support
    dense.reshape(-1)[present[::5]] = 0.0
    ids = rng.integers(0, n_configs + 5, 40000)  # some never observed; two threads
    values = rng.integers(0, r, 40000)
    counts, totals, support = sparse_cell_lookup(present, masses, ids, values, n_classes, r=r)
    padded = np.concatenate([dense, np.zeros((5, n_classes, r))])
    assert_allclose(counts, padded[ids, :, values])
    assert_allclose(totals, padded[ids].sum(axis=2))
    np.testing.assert_array_equal(support, (padded[ids] > 0).sum(axis=2))


def _numpy_loss_sums(joint, truth, weights):
    """The weighted sums of the squared error and the log-loss of the posteriors of the
    joint scores ``joint`` (rows, classes) at the true classes, by plain NumPy."""
    post = softmax(joint, axis=1)
    squares = weights @ ((post - np.eye(joint.shape[1])[truth]) ** 2).sum(axis=1)
    log_loss = -weights @ np.log(post[np.arange(len(truth)), truth])
    return squares, log_loss


def test_loss_sums_equal_numpy(rng):
    joint = rng.normal(size=(500, 4)) * 5
    joint[0, 1] = -np.inf
    truth = rng.integers(0, 4, 500)
    weights = rng.random(500)
    expected = _numpy_loss_sums(joint, truth, weights)
    assert_allclose(posterior_loss_sums(joint, truth, weights), expected, rtol=1e-10)


def test_backoff_scores_equal_numpy(rng):
    from discotree.kernels.sparse_families import backoff_scores

    n = rng.integers(0, 5, 300).astype(float)
    t = n + rng.integers(0, 5, 300)
    p = rng.random(300)
    w = rng.random(300) * (rng.random(300) < 0.9)
    grid = np.array([0.25, 1.0, 8.0])
    expected = [w @ np.log((n + b * p) / (t + b)) for b in grid]
    assert_allclose(backoff_scores(n, t, p, w, grid), expected, rtol=1e-10)


def test_loss_sums_of_confident_rows_equal_numpy(rng):
    # classes far below the row's largest (exp(-50) and beyond) count as 0
    joint = rng.normal(size=(400, 12)) * 60
    truth = rng.integers(0, 12, 400)
    weights = rng.random(400)
    expected = _numpy_loss_sums(joint, truth, weights)
    assert_allclose(posterior_loss_sums(joint, truth, weights), expected, rtol=1e-12)


def test_one_loss_alone_is_the_same_sum_to_the_bit(rng):
    # ``only``: the sum the caller reads, with the same bits as both at once (weights,
    # a row with a class of probability 0, far classes)
    joint = rng.normal(size=(300, 5)) * rng.choice([1.0, 80.0], (300, 1))
    joint[0, 2] = -np.inf
    truth = rng.integers(0, 5, 300)
    truth[0] = 0  # (its class 2 has probability 0)
    weights = rng.random(300) * (rng.random(300) < 0.9)
    squares, log_loss = posterior_loss_sums(joint, truth, weights)
    alone = posterior_loss_sums(joint, truth, weights, only="squares")
    assert alone[0] == squares and np.isnan(alone[1])
    alone = posterior_loss_sums(joint, truth, weights, only="log_loss")
    assert alone[1] == log_loss and np.isnan(alone[0])
    with pytest.raises(ValueError, match="only must be"):
        posterior_loss_sums(joint, truth, weights, only="rmse")


def test_cell_checks_equal_the_array_checks(rng):
    from discotree.kernels.sparse_families import sparse_cells_are_valid

    def reference(cells, masses):
        increasing = len(cells) == 0 or (cells[0] >= 0 and bool((np.diff(cells) > 0).all()))
        return increasing and bool((np.isfinite(masses) & (masses >= 0)).all())

    for _ in range(300):
        n = int(rng.integers(0, 6))
        cells = np.sort(rng.integers(-1, 8, n)).astype(np.int64)
        if n and rng.random() < 0.3:
            cells = cells[::-1].copy()
        masses = rng.choice(
            [0.0, 1.5, -0.5, np.inf, np.nan, 3.0], n, p=[0.2, 0.5, 0.05, 0.05, 0.05, 0.15]
        )
        assert sparse_cells_are_valid(cells, masses) == reference(cells, masses)
