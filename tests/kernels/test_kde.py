"""Binned and exact kernel density estimates against the plain-loop reference."""

import numpy as np
import pytest

from discotree.kernels.kde import (
    KernelGrid,
    bandwidth_factor,
    exact_density_1d,
    exact_density_2d,
    exact_pair_densities,
    grid_densities_2d,
    grid_density_1d,
    interpolate_1d,
    interpolate_2d,
    kernel_matrix,
)
from discotree.models.kernel_density import PairwiseKernelDensities
from tests import reference as ref


def test_bandwidth_factors_match_scipy_conventions():
    from scipy.stats import gaussian_kde

    data = np.random.default_rng(0).normal(size=(2, 50))
    assert bandwidth_factor(50, 2, "scott") == pytest.approx(gaussian_kde(data).scotts_factor())
    assert bandwidth_factor(50, 1, "silverman") == pytest.approx(
        gaussian_kde(data[0], bw_method="silverman").factor
    )
    with pytest.raises(ValueError, match="scott"):
        bandwidth_factor(10, 1, "nope")


@pytest.mark.parametrize("seed", range(3))
def test_exact_densities_equal_reference_with_weights(seed):
    rng = np.random.default_rng(seed)
    points = rng.normal(size=(30, 2))
    weights = rng.uniform(0.1, 3.0, size=30)
    query = rng.normal(size=(7, 2)) * 2
    h = (0.4, 0.7)
    expected_1d = ref.kernel_density([(p[0],) for p in points], weights, query[:, :1], h[:1])
    np.testing.assert_allclose(
        exact_density_1d(points[:, 0], weights, query[:, 0], h[0]), expected_1d
    )
    expected_2d = ref.kernel_density(list(points), weights, list(query), h)
    got = exact_density_2d(points[:, 0], points[:, 1], weights, query[:, 0], query[:, 1], *h)
    np.testing.assert_allclose(got, expected_2d)


@pytest.mark.parametrize("block", [1 << 22, 150])  # one block, and several of queries
def test_pair_densities_at_once_equal_the_reference_with_weights(block):
    rng = np.random.default_rng(4)
    points = rng.normal(size=(25, 4))
    weights = rng.uniform(0.1, 3.0, size=25)
    query = rng.normal(size=(9, 4)) * 2
    h = np.array([0.4, 0.7, 0.3, 1.1])
    pairs = np.array([(0, 1), (2, 3), (1, 3), (0, 2)])
    got = exact_pair_densities(points, weights, query, h, pairs, max_elements=block)
    for p, (a, b) in enumerate(pairs):
        expected = ref.kernel_density(
            list(points[:, [a, b]]), weights, list(query[:, [a, b]]), (h[a], h[b])
        )
        np.testing.assert_allclose(got[p], expected, rtol=1e-12)
    assert exact_pair_densities(points, np.zeros(25), query, h, pairs).sum() == 0.0


def test_kernel_matrix_is_the_gaussian_between_nodes():
    grid = KernelGrid(-1.0, 2.0, 7)
    K = kernel_matrix(grid, 0.3)
    a, b = 2, 5
    z = (a - b) * grid.step / 0.3
    assert K[a, b] == pytest.approx(np.exp(-0.5 * z * z) / (np.sqrt(2 * np.pi) * 0.3))


@pytest.mark.parametrize("seed", range(3))
def test_binned_estimates_converge_to_exact(seed):
    """Linear binning error is O(step^2): a fine grid matches the direct sums closely."""
    rng = np.random.default_rng(seed)
    points = rng.normal(size=(200, 2)) * (1.0, 2.0)
    weights = rng.uniform(0.5, 2.0, size=200)
    query = points[:50] + rng.normal(scale=0.1, size=(50, 2))
    h = (0.3, 0.5)
    lo, hi = points.min(0) - 3, points.max(0) + 3
    g1 = KernelGrid(lo[0], hi[0], 2048)
    nodes = grid_density_1d(g1, points[:, 0], weights, h[0])
    exact1 = exact_density_1d(points[:, 0], weights, query[:, 0], h[0])
    np.testing.assert_allclose(interpolate_1d(g1, nodes, query[:, 0]), exact1, rtol=2e-3)
    gx, gy = KernelGrid(lo[0], hi[0], 256), KernelGrid(lo[1], hi[1], 256)
    kx = kernel_matrix(gx, h[0])[None]
    ky = kernel_matrix(gy, h[1])[None]
    grid = grid_densities_2d(
        [gx], [gy], kx, ky, points[None, :, 0], values_y=points[None, :, 1], weights=weights
    )
    got = interpolate_2d([gx], [gy], grid, query[None, :, 0], query[None, :, 1])[0]
    exact2 = exact_density_2d(points[:, 0], points[:, 1], weights, query[:, 0], query[:, 1], *h)
    np.testing.assert_allclose(got, exact2, rtol=1e-2, atol=1e-4)


def _fit(values, class_index, weights, pairs, method, **kw):
    return PairwiseKernelDensities.fit(values, class_index, 2, weights, pairs, method=method, **kw)


@pytest.mark.parametrize("method", ["exact", "binned"])
def test_feature_map_equals_direct_kernel_sums(method):
    """Each column of the map is the direct O(L) kernel sum (leave-one-out for training
    rows), within the binning error for the binned estimate."""
    rng = np.random.default_rng(4)
    values = rng.normal(size=(60, 3))
    class_index = (rng.random(60) < 0.5).astype(np.intp)
    weights = rng.uniform(0.2, 0.9, 60)  # fractional weights: left out whole
    pairs = np.array([[0, 1], [1, 2]])
    model = _fit(values, class_index, weights, pairs, method, grid_size=(2048, 256))
    test = rng.normal(size=(5, 3))
    dens = model.densities(test)
    loo = model.densities(model.values, leave_one_out=True)
    tol = dict(rtol=1e-9) if method == "exact" else dict(rtol=3e-2, atol=2e-3)
    for c in range(2):
        rows = np.flatnonzero(class_index == c)
        offset = c * model.n_terms
        for i in range(3):
            h = (model.bandwidth_1d[c, i],)
            pts = [(values[r, i],) for r in rows]
            want = ref.kernel_density(pts, weights[rows], [(q,) for q in test[:, i]], h)
            np.testing.assert_allclose(dens[:, offset + i], want, **tol)
            k = rows[3]
            want_loo = ref.kernel_density(pts, weights[rows], [(values[k, i],)], h, (k, weights[k]))
            np.testing.assert_allclose(loo[k, offset + i], want_loo[0], **tol)
        for p, (a, b) in enumerate(pairs):
            h = (model.bandwidth_2d[c, a], model.bandwidth_2d[c, b])
            pts = [(values[r, a], values[r, b]) for r in rows]
            want = ref.kernel_density(pts, weights[rows], list(test[:, [a, b]]), h)
            np.testing.assert_allclose(dens[:, offset + 3 + p], want, **tol)
            other = rows[5]
            want_loo = ref.kernel_density(
                pts, weights[rows], [tuple(values[other, [a, b]])], h, (other, weights[other])
            )
            np.testing.assert_allclose(loo[other, offset + 3 + p], want_loo[0], **tol)


def test_leave_one_out_equals_refit_without_the_sample():
    rng = np.random.default_rng(5)
    values = rng.normal(size=(40, 2))
    class_index = np.repeat([0, 1], 20)
    weights = np.ones(40)
    h = np.array([0.5, 0.6])
    pairs = np.array([[0, 1]])
    model = _fit(values, class_index, weights, pairs, "binned", bandwidth=h)
    loo = model.densities(model.values, leave_one_out=True)
    k = 7
    rest = np.delete(np.arange(40), k)
    without = _fit(values[rest], class_index[rest], weights[rest], pairs, "binned", bandwidth=h)
    without.grids_1d, without.grids_2d = model.grids_1d, model.grids_2d  # same grids
    np.testing.assert_allclose(loo[k], without.densities(values[[k]])[0], rtol=1e-6, atol=1e-12)


def test_frequency_weights_equal_repeated_rows_in_leave_one_out():
    rng = np.random.default_rng(6)
    values = rng.normal(size=(20, 2))
    class_index = np.repeat([0, 1], 10)
    weights = np.ones(20)
    weights[3] = 3.0
    rep = np.r_[np.arange(20), 3, 3]
    pairs = np.array([[0, 1]])
    a = _fit(values, class_index, weights, pairs, "exact")
    b = _fit(values[rep], class_index[rep], np.ones(22), pairs, "exact")
    np.testing.assert_allclose(
        a.densities(a.values, leave_one_out=True),
        b.densities(b.values, leave_one_out=True)[:20],
        rtol=1e-10,
    )


def test_queries_outside_the_grid_are_evaluated_exactly():
    rng = np.random.default_rng(7)
    values = rng.normal(size=(50, 2))
    class_index = np.repeat([0, 1], 25)
    pairs = np.array([[0, 1]])
    binned = _fit(values, class_index, np.ones(50), pairs, "binned")
    exact = _fit(values, class_index, np.ones(50), pairs, "exact")
    far = np.array([[9.0, 0.0], [0.0, -9.0], [9.0, 9.0]])
    outside = np.array([[1, 0, 1], [0, 1, 1], [1, 1, 1]], bool)  # f0, f1, pair
    outside = np.hstack([outside, outside])  # both classes
    got, want = binned.densities(far), exact.densities(far)
    assert np.all(want[outside] > 0)
    np.testing.assert_allclose(got[outside], want[outside], rtol=1e-9)
