"""The quantile kernels against the sorting reference (``tests/reference.py``), with
ties, NaN, zero weights and the work split over threads; the selection's stable sort
against numpy's."""

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from discotree.kernels import quantiles
from discotree.transformers.discretizer import weighted_quantile_edges
from tests import reference


@pytest.mark.parametrize("n_bins", [2, 3, 5, 10])
@pytest.mark.parametrize("kind", ["continuous", "ties", "integer-weights", "skewed"])
def test_quantile_edges_by_selection_equal_sorting(rng, n_bins, kind):
    n = 3000
    values = rng.normal(size=n)
    weights = rng.random(n) + 0.1
    if kind == "ties":
        values = rng.integers(0, 7, n).astype(float)
    elif kind == "integer-weights":
        values = rng.integers(0, 40, n).astype(float) / 4
        weights = rng.integers(0, 4, n).astype(float)  # zeros too
    elif kind == "skewed":  # nearly everything in one bucket of the selection
        values = np.concatenate([rng.normal(size=n - 2) * 1e-6, [1e6, -1e6]])
    values[rng.random(n) < 0.1] = np.nan
    expected = reference.weighted_quantile_edges(values, weights, n_bins)
    assert_array_equal(weighted_quantile_edges(values, weights, n_bins), expected)


def test_quantile_edges_of_degenerate_columns():
    assert weighted_quantile_edges(np.full(5, np.nan), np.ones(5), 4).size == 0
    assert weighted_quantile_edges(np.full(5, 2.0), np.ones(5), 4).size == 0  # one value
    assert weighted_quantile_edges(np.array([1.0, 2.0]), np.array([0.0, 0.0]), 2).size == 0


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("order", ["C", "F"])
def test_quantile_edges_of_columns_split_over_threads_equal_sorting(
    rng, monkeypatch, weighted, order
):
    """Row blocks (C order) or column blocks (F order) on three threads: each column's
    edges equal the sorting reference, with NaN, ties and zero weights."""
    from discotree.transformers import discretizer

    n, d = 2000, 5
    values = rng.normal(size=(n, d))
    values[:, 1] = rng.integers(0, 4, n)  # ties
    values[:, 4] = np.nan  # nothing observed
    values[rng.random((n, d)) < 0.1] = np.nan
    weights = rng.integers(0, 3, n).astype(float) if weighted else np.ones(n)
    values = np.asfortranarray(values) if order == "F" else np.ascontiguousarray(values)
    monkeypatch.setattr(discretizer, "_THREAD_CELLS", 1)
    monkeypatch.setattr("discotree.threads.available_cores", lambda: 3)
    edges = discretizer.quantile_edges_of_columns(values, weights, 4)
    for j in range(d):
        expected = reference.weighted_quantile_edges(values[:, j], weights, 4)
        assert_array_equal(edges[j], expected)


def test_the_selection_sorts_stably_like_numpy(rng):
    for n in (0, 1, 2, 3, 7, 64, 65, 1000):
        values = rng.integers(0, 5, n).astype(float) * rng.choice([1.0, -0.0], n)
        order = quantiles._stable_order(values, np.empty(n + 3, np.intp), np.empty(n + 3, np.intp))
        assert_array_equal(order, np.argsort(values, kind="stable"))
