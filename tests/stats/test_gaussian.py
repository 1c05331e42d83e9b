"""Gaussian statistics and closed forms."""

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import integrate
from scipy import stats as sstats

from discotree.stats.gaussian import (
    GaussianStatistics,
    gaussian_entropy,
    gaussian_j_divergence,
    gaussian_kl_divergence,
    gaussian_mutual_information,
)


def test_complete_data_matches_weighted_numpy(rng):
    x = rng.normal(size=(200, 4)) @ rng.normal(size=(4, 4))
    y = rng.integers(0, 2, 200).astype(np.intp)
    w = rng.random(200)
    stats = GaussianStatistics.from_data(x, y, 2, w)
    for c in range(2):
        rows = y == c
        assert_allclose(stats.means()[c], np.average(x[rows], axis=0, weights=w[rows]))
        cov = np.cov(x[rows].T, aweights=w[rows], bias=True)
        assert_allclose(stats.covariances()[c], cov, rtol=1e-9, atol=1e-12)


def test_pairwise_complete_covariance_uses_rows_where_both_observed(rng):
    x = rng.normal(size=(60, 3))
    x[rng.random(x.shape) < 0.3] = np.nan
    stats = GaussianStatistics.from_data(x, np.zeros(60, np.intp), 1)
    for i in range(3):
        for j in range(3):
            both = ~np.isnan(x[:, i]) & ~np.isnan(x[:, j])
            expected = np.cov(x[both, i], x[both, j], bias=True)[0, 1]
            assert stats.covariances()[0, i, j] == pytest.approx(expected, abs=1e-12)
    rho = stats.correlations()[0]
    assert np.all(np.abs(rho) <= 1)


def test_mutual_information_equals_entropy_identity():
    rho = 0.6
    cov = np.array([[2.0, rho * math.sqrt(2 * 3)], [rho * math.sqrt(6), 3.0]])
    expected = gaussian_entropy(cov[:1, :1]) + gaussian_entropy(cov[1:, 1:]) - gaussian_entropy(cov)
    assert float(gaussian_mutual_information(np.array(rho))) == pytest.approx(expected)


def test_conditional_mutual_information_weights_classes(rng):
    x0 = rng.multivariate_normal([0, 0], [[1, 0.8], [0.8, 1]], size=300)
    x1 = rng.normal(size=(100, 2))
    x = np.vstack([x0, x1])
    y = np.r_[np.zeros(300), np.ones(100)].astype(np.intp)
    stats = GaussianStatistics.from_data(x, y, 2)
    mi = stats.mutual_information()
    assert stats.conditional_mutual_information()[0, 1] == pytest.approx(
        0.75 * mi[0, 0, 1] + 0.25 * mi[1, 0, 1]
    )


def test_kl_matches_numerical_integration_in_one_dimension():
    m0, s0, m1, s1 = 0.3, 1.2, -0.5, 0.7
    p, q = sstats.norm(m0, s0), sstats.norm(m1, s1)
    numeric, _ = integrate.quad(lambda t: p.pdf(t) * (p.logpdf(t) - q.logpdf(t)), -20, 20)
    kl = gaussian_kl_divergence([m0], [[s0**2]], [m1], [[s1**2]])
    assert kl == pytest.approx(numeric, rel=1e-7)
    j = gaussian_j_divergence([m0], [[s0**2]], [m1], [[s1**2]])
    assert j == pytest.approx(kl + gaussian_kl_divergence([m1], [[s1**2]], [m0], [[s0**2]]))


def test_kl_of_identical_gaussians_is_zero(rng):
    a = rng.normal(size=(3, 3))
    cov = a @ a.T + np.eye(3)
    assert gaussian_kl_divergence(np.zeros(3), cov, np.zeros(3), cov) == pytest.approx(0, abs=1e-12)
