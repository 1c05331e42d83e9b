"""The HDP sampler (discotree.stats.hdp): Antoniak's table counts against their exact
distribution, the sampled posterior means against numerical integration of the same
model on a small tree (fixed concentrations), and the sampled concentration recovers
the one that generated many contexts."""

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import integrate, special, stats

from discotree.stats.hdp import ContextTree, antoniak_tables, context_tree, hdp_estimate


def test_antoniak_tables_follow_the_stirling_distribution():
    # P(t | n, a) = |s(n, t)| a^t / (a)_n
    n, a = 6, 1.7
    stirling = np.zeros((n + 1, n + 1))
    stirling[0, 0] = 1.0
    for m in range(1, n + 1):
        for t in range(1, m + 1):
            stirling[m, t] = (m - 1) * stirling[m - 1, t] + stirling[m - 1, t - 1]
    rising = math.gamma(a + n) / math.gamma(a)
    exact = np.array([stirling[n, t] * a**t / rising for t in range(n + 1)])
    draws = antoniak_tables(np.full(40_000, float(n)), np.full(40_000, a), np.random.default_rng(1))
    frequency = np.bincount(draws.astype(int), minlength=n + 1) / len(draws)
    assert_allclose(frequency, exact, atol=0.01)


def _posterior_means(data, c_root, c_child):
    """E[theta_j | data] for a root with two-valued children, by integrating over the
    root's probability (each child's Beta integrated analytically)."""

    def weight(p):
        out = stats.beta.pdf(p, c_root / 2, c_root / 2)
        for n1, n2 in data:
            a, b = c_child * p, c_child * (1 - p)
            out *= np.exp(special.betaln(a + n1, b + n2) - special.betaln(a, b))
        return out

    z = integrate.quad(weight, 0, 1, limit=200)[0]
    means = []
    for n1, n2 in data:
        top = integrate.quad(
            lambda p, n1=n1, n2=n2: weight(p) * (n1 + c_child * p) / (n1 + n2 + c_child),
            0,
            1,
            limit=200,
        )[0]
        means.append(top / z)
    root = integrate.quad(lambda p: weight(p) * p, 0, 1, limit=200)[0] / z
    return root, means


def test_the_sampled_posterior_means_equal_numerical_integration():
    data = [(7.0, 1.0), (2.0, 5.0), (0.0, 1.0)]
    tree = ContextTree(
        np.array([-1, 0, 0, 0]),
        np.array([0, 1, 1, 1]),
        np.array([[0.0, 0.0], *[list(d) for d in data]]),
    )
    c_root, c_child = 2.0, 3.0
    estimate = hdp_estimate(
        tree,
        np.random.default_rng(0),
        n_sweeps=20_000,
        burn_in=500,
        concentrations=np.array([c_root, c_child]),
    )
    root, means = _posterior_means(data, c_root, c_child)
    assert estimate.probabilities[0, 0] == pytest.approx(root, abs=0.01)
    assert_allclose(estimate.probabilities[1:, 0], means, atol=0.01)


def test_the_sampled_concentration_finds_the_generating_one():
    rng = np.random.default_rng(3)
    r, n_children, c_true = 4, 300, 5.0
    root = rng.dirichlet(np.ones(r))
    children = rng.dirichlet(c_true * root, n_children)
    observed = np.array([rng.multinomial(40, p) for p in children], dtype=float)
    tree = ContextTree(
        np.r_[-1, np.zeros(n_children, dtype=int)],
        np.r_[0, np.ones(n_children, dtype=int)],
        np.vstack([np.zeros(r), observed]),
    )
    estimate = hdp_estimate(tree, np.random.default_rng(4), n_sweeps=300, burn_in=100)
    assert 3.5 < estimate.concentrations[1] < 7.0
    assert_allclose(estimate.probabilities.sum(axis=1), 1.0)
    again = hdp_estimate(tree, np.random.default_rng(4), n_sweeps=300, burn_in=100)
    assert_allclose(again.probabilities, estimate.probabilities)  # seeded
    with pytest.raises(ValueError, match="leaves no sweep"):
        hdp_estimate(tree, np.random.default_rng(4), n_sweeps=10, burn_in=10)


def test_the_context_tree_places_each_row_at_its_deepest_observed_context(rng):
    r = np.array([3, 2, 3, 2])
    codes = np.column_stack([rng.integers(0, k, 200) for k in r])
    codes[rng.random(codes.shape) < 0.2] = -1
    y, w = rng.integers(0, 2, 200), rng.integers(1, 3, 200).astype(float)
    node, ranked = 0, (2, 1)
    tree, keys = context_tree(codes, y, w, 2, r, node=node, ranked=ranked)
    # brute force: a dict from (prefix values, class) to counts of the node's values
    expected: dict = {}
    for row, c, weight in zip(codes, y, w, strict=True):
        if row[node] < 0:
            continue
        prefix = []
        for p in ranked:
            if row[p] < 0:
                break
            prefix.append(int(row[p]))
        key = (tuple(prefix), int(c))
        expected.setdefault(key, np.zeros(3))[row[node]] += weight
    found: dict = {}
    start = 1
    names = [()]  # the context of each tree position, as (prefix values, class)
    for length, here in enumerate(keys):
        for key in here:
            config, c = divmod(int(key), 2)
            values = []
            for p in reversed(ranked[:length]):
                config, v = divmod(config, int(r[p]))
                values.append(v)
            names.append((tuple(reversed(values)), c))
        start += len(here)
    for position, name in enumerate(names[1:], start=1):
        if tree.observed[position].any():
            found[name] = tree.observed[position]
        up = names[tree.parent[position]]
        if position > 2:  # below the class level: the parent is the prefix one shorter
            assert up == (name[0][:-1], name[1]) or tree.level[position] == 1
    assert set(found) == {k for k, v in expected.items() if v.any()}
    for key, counts in found.items():
        assert_allclose(counts, expected[key])
    with pytest.raises(ValueError, match="whole-number sample weights"):
        context_tree(codes, y, w + 0.5, 2, r, node=node, ranked=ranked)
