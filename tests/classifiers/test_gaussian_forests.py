"""Gaussian Chow-Liu and TAN (``distribution="gaussian"``) and ``var_smoothing``."""

import numpy as np
import pytest
from scipy.stats import multivariate_normal
from sklearn.naive_bayes import GaussianNB

from discotree import (
    ChowLiuClassifier,
    DiscriminativeTreeClassifier,
    GaussianStatistics,
    TANClassifier,
)


def _gaussian_classes(seed=0, n=300, d=4):
    rng = np.random.default_rng(seed)
    X, y = [], []
    for c in range(3):
        a = rng.normal(size=(d, d))
        X.append(rng.normal(size=(n, d)) @ a + rng.normal(size=d) * 2)
        y.append(np.full(n, c))
    return np.vstack(X), np.concatenate(y)


def test_gaussian_tan_without_edges_is_gaussian_naive_bayes():
    X, y = _gaussian_classes()
    ours = TANClassifier(k=0, distribution="gaussian", var_smoothing=0.0).fit(X, y)
    reference = GaussianNB(var_smoothing=0.0).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X), reference.predict_proba(X), atol=1e-8)


@pytest.mark.parametrize(
    "estimator",
    [
        ChowLiuClassifier(distribution="gaussian", var_smoothing=0.0),
        TANClassifier(distribution="gaussian", var_smoothing=0.0),
    ],
)
def test_two_features_one_edge_is_the_full_gaussian_of_each_class(estimator):
    """With two features the tree is the one edge, and the projection is each class's
    full Gaussian (ML covariance), so the joint density is the bivariate normal's."""
    X, y = _gaussian_classes(d=2)
    estimator.fit(X, y)
    joint = estimator.predict_joint_log_proba(X)
    for c in range(3):
        rows = X[y == c]
        density = multivariate_normal(rows.mean(axis=0), np.cov(rows.T, bias=True))
        expected = density.logpdf(X) + np.log(np.mean(y == c))
        np.testing.assert_allclose(joint[:, c], expected, atol=1e-8)


def test_gaussian_structures_are_the_spanning_trees_of_the_gaussian_informations():
    X, y = _gaussian_classes(d=5)
    cl = ChowLiuClassifier(distribution="gaussian").fit(X, y)
    tan = TANClassifier(distribution="gaussian").fit(X, y)
    shares = np.bincount(y) / len(y)
    cmi = np.zeros((5, 5))
    for c in range(3):
        rho = np.corrcoef(X[y == c].T)
        mi = -0.5 * np.log1p(-(rho**2) + np.eye(5))  # zero diagonal
        np.fill_diagonal(mi, 0.0)
        np.testing.assert_allclose(cl.edge_weights_[c], mi, atol=1e-6)
        cmi += shares[c] * mi
        assert _tree_weight(mi, cl.edges_[c]) == pytest.approx(_best_tree_weight(mi))
    np.testing.assert_allclose(tan.edge_weights_, cmi, atol=1e-6)
    assert _tree_weight(cmi, tan.edges_[0]) == pytest.approx(_best_tree_weight(cmi))


def _tree_weight(w, edges):
    return sum(w[i, j] for i, j in edges)


def _best_tree_weight(w):
    from tests.reference import maximum_spanning_tree_prim

    return maximum_spanning_tree_prim(w)


def test_with_variance_added_is_a_ridge_on_each_class_covariance():
    X, y = _gaussian_classes(d=3)
    stats = GaussianStatistics.from_data(X, y, 3)
    ridge = stats.with_variance_added(0.5)
    np.testing.assert_allclose(ridge.means(), stats.means())
    np.testing.assert_allclose(ridge.covariances(), stats.covariances() + 0.5 * np.eye(3))
    with pytest.raises(ValueError, match=">= 0"):
        stats.with_variance_added(-1.0)


@pytest.mark.parametrize(
    "estimator",
    [
        ChowLiuClassifier(distribution="gaussian", var_smoothing=0.1),
        TANClassifier(distribution="gaussian", var_smoothing=0.1),
        DiscriminativeTreeClassifier(distribution="gaussian", var_smoothing=0.1),
    ],
)
def test_var_smoothing_tames_a_feature_constant_in_one_class(estimator):
    """A pixel that is 0 in every image of one class: without smoothing, one non-zero
    test value makes that class impossible; with it, the other features still count."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3))
    y = np.repeat([0, 1], 200)
    X[y == 0, 2] = 0.0
    X[y == 0, 0] += 3.0  # feature 0 says class 0 clearly
    test = np.array([[3.0, 0.0, 0.05]])  # class 0 by feature 0, a tiny value in 2
    assert estimator.fit(X, y).predict(test)[0] == 0
    unsmoothed = estimator.set_params(var_smoothing=0.0).fit(X, y)
    assert unsmoothed.predict(test)[0] == 1


@pytest.mark.parametrize(
    ("estimator", "match"),
    [
        (TANClassifier(distribution="gaussian", k=2), "k <= 1"),
        (TANClassifier(distribution="gaussian", structure="cr"), "structure='cmi'"),
        (TANClassifier(distribution="gaussian", n_edges="bic"), "n_edges an integer"),
        (ChowLiuClassifier(distribution="gaussian", n_edges="aic"), "give an integer"),
        (ChowLiuClassifier(distribution="poisson"), "distribution must be one of"),
        (ChowLiuClassifier(distribution="gaussian", var_smoothing=-1), "var_smoothing"),
        (DiscriminativeTreeClassifier(distribution="gaussian", var_smoothing="x"), "var_smooth"),
    ],
)
def test_gaussian_options_are_checked(estimator, match):
    X, y = _gaussian_classes(d=3)
    with pytest.raises(ValueError, match=match):
        estimator.fit(X, y)
