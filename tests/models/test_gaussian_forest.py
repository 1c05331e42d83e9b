"""Gaussian forest model against multivariate normal densities."""

import numpy as np
from numpy.testing import assert_allclose
from scipy.stats import multivariate_normal

from discotree.models.gaussian_forest import GaussianForestModel
from discotree.stats.gaussian import GaussianStatistics
from discotree.structure.spanning import orient_forest


def test_projection_keeps_edge_moments_and_marginalises_exactly(rng):
    a = rng.normal(size=(5, 5))
    cov = a @ a.T + np.eye(5)
    x = rng.multivariate_normal(rng.normal(size=5), cov, size=500)
    y = np.zeros(500, np.intp)
    stats = GaussianStatistics.from_data(x, y, 1)
    edges = [(0, 1), (1, 2), (1, 3), (3, 4)]
    parents = orient_forest(5, edges)[None, :]
    model = GaussianForestModel.from_statistics(stats, parents)
    sigma = model.covariance(0)
    emp = stats.covariances()[0]
    for i, j in edges:
        assert_allclose(sigma[i, j], emp[i, j], rtol=1e-8)
    assert_allclose(np.diag(sigma), np.diag(emp), rtol=1e-8)

    test = rng.normal(size=(30, 5))
    full = multivariate_normal(model.means[0], sigma).logpdf(test)
    assert_allclose(model.log_likelihood(test)[:, 0], full, rtol=1e-9)

    test[rng.random(test.shape) < 0.4] = np.nan
    test[0] = np.nan
    out = model.log_likelihood(test)[:, 0]
    for row, value in zip(test, out, strict=True):
        obs = ~np.isnan(row)
        if not obs.any():
            assert value == 0.0
            continue
        ref = multivariate_normal(model.means[0, obs], sigma[np.ix_(obs, obs)]).logpdf(row[obs])
        assert_allclose(value, ref, rtol=1e-9)
