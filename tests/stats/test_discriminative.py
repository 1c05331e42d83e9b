"""Discriminative edge weights (eq. 21) and the decomposition of eq. 16."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from numpy.testing import assert_allclose

from discotree.stats.discriminative import (
    discriminative_weights,
    gaussian_discriminative_weights,
    tree_approximate_j_divergence,
)
from discotree.stats.information import kl_divergence
from discotree.stats.pair_statistics import PairStatistics
from discotree.structure.spanning import orient_forest
from tests import reference
from tests.conftest import discrete_datasets


@settings(max_examples=40, deadline=None)
@given(discrete_datasets(max_classes=2))
def test_weights_match_reference(data):
    codes, y, w, n_cat, n_classes = data
    if n_classes < 2:
        return
    stats = PairStatistics.from_codes(codes, y, n_cat, n_classes, w)
    fast = discriminative_weights(stats, 1, 0, alpha=0.5)
    slow = reference.discriminative_weights(codes, y, w, n_cat, 1, 0, 0.5)
    for a, b in zip(fast, slow, strict=True):
        assert_allclose(a, b, atol=1e-10)


def test_alpha_must_be_positive(rng):
    stats = PairStatistics.from_codes(
        rng.integers(0, 2, (10, 3)), rng.integers(0, 2, 10), np.array([2, 2, 2]), 2
    )
    with pytest.raises(ValueError, match="alpha must be > 0"):
        discriminative_weights(stats, 1, 0, alpha=0.0)


def _stats_from_joints(joints, scale=1e6):
    """PairStatistics whose tables are the exact pairwise marginals (times scale)."""
    n = joints[0].ndim
    counts = np.zeros((len(joints), 2 * n, 2 * n))
    for c, joint in enumerate(joints):
        for i in range(n):
            for j in range(n):
                axes = tuple(k for k in range(n) if k not in (i, j))
                table = joint.sum(axis=axes) if i != j else np.diag(joint.sum(axis=axes))
                if i > j:
                    table = table.T
                counts[c, 2 * i : 2 * i + 2, 2 * j : 2 * j + 2] = scale * table
    return PairStatistics(counts, np.full(n, 2, dtype=np.intp))


def _projection(joint, edges):
    """The projection of eq. 7 of a joint table on a tree, over every configuration."""
    n = joint.ndim
    parents = orient_forest(n, edges)
    out = np.ones(joint.shape)
    for x in itertools.product(range(2), repeat=n):
        value = 1.0
        for j, p in enumerate(parents):
            if p < 0:
                value *= joint.sum(axis=tuple(k for k in range(n) if k != j))[x[j]]
            else:
                pair = joint.sum(axis=tuple(k for k in range(n) if k not in (p, j)))
                pair = pair if p < j else pair.T
                value *= pair[x[p], x[j]] / pair[x[p]].sum()
        out[x] = value
    return out


def test_decomposition_of_the_tree_approximate_j_divergence(rng):
    """Proposition 1: eq. 15 computed by brute force equals eq. 16 with our weights."""
    n = 4
    p = rng.dirichlet(np.ones(2**n)).reshape((2,) * n)
    q = rng.dirichlet(np.ones(2**n)).reshape((2,) * n)
    stats = _stats_from_joints([q, p])  # class 0 = q (negative), class 1 = p (positive)
    for edges_p, edges_q in [
        ([(0, 1), (1, 2), (2, 3)], [(0, 3), (1, 3), (2, 3)]),
        ([(0, 2), (1, 2), (1, 3)], [(0, 2), (1, 2), (1, 3)]),
    ]:
        p_hat, q_hat = _projection(p, edges_p), _projection(q, edges_q)
        brute = float(((p - q) * np.log(p_hat / q_hat)).sum())
        ours = tree_approximate_j_divergence(stats, 1, 0, edges_p, edges_q, alpha=1e-9)
        assert ours == pytest.approx(brute, rel=1e-6, abs=1e-8)
    # psi(+) + psi(-) is the "both" weight of eq. 17: J(p_ij, q_ij) - J(p_i p_j, q_i q_j)
    psi_pos, psi_neg = discriminative_weights(stats, 1, 0, alpha=1e-9)
    pij, qij = p.sum(axis=(2, 3)), q.sum(axis=(2, 3))
    ppp = np.outer(pij.sum(1), pij.sum(0))
    qqq = np.outer(qij.sum(1), qij.sum(0))
    both = (
        kl_divergence(pij, qij)
        + kl_divergence(qij, pij)
        - kl_divergence(ppp, qqq)
        - kl_divergence(qqq, ppp)
    )
    assert psi_pos[0, 1] + psi_neg[0, 1] == pytest.approx(both, rel=1e-6)


def test_gaussian_weights_match_monte_carlo():
    rng = np.random.default_rng(0)
    mean_p, mean_q = np.array([0.0, 0.5]), np.array([0.3, -0.2])
    cov_p = np.array([[1.0, 0.6], [0.6, 2.0]])
    cov_q = np.array([[1.5, -0.3], [-0.3, 0.8]])
    psi_pos, psi_neg = gaussian_discriminative_weights(mean_p, cov_p, mean_q, cov_q)
    from scipy.stats import multivariate_normal, norm

    def f(x, mean, cov):
        sd = np.sqrt(np.diag(cov))
        return (
            multivariate_normal(mean, cov).logpdf(x)
            - norm(mean[0], sd[0]).logpdf(x[:, 0])
            - norm(mean[1], sd[1]).logpdf(x[:, 1])
        )

    xp = rng.multivariate_normal(mean_p, cov_p, 400000)
    xq = rng.multivariate_normal(mean_q, cov_q, 400000)
    assert psi_pos[0, 1] == pytest.approx(
        f(xp, mean_p, cov_p).mean() - f(xq, mean_p, cov_p).mean(), abs=0.01
    )
    assert psi_neg[0, 1] == pytest.approx(
        f(xq, mean_q, cov_q).mean() - f(xp, mean_q, cov_q).mean(), abs=0.01
    )
    assert psi_pos[0, 0] == 0.0
