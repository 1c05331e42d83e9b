"""The A2DE kernels: the conditionals of every triple against the package's one
smoothing rule applied table by table (with empty contexts and the epsilon floor); the
joint is checked against a reference from the rows in tests/models."""

import itertools

import numpy as np
import pytest
from numpy.testing import assert_allclose

from discotree.kernels.counts import triple_counts, triple_layout
from discotree.kernels.two_dependence import two_dependence_conditionals
from discotree.stats.dirichlet import smoothed_conditional


@pytest.mark.parametrize(("alpha", "epsilon"), [(0.5, 0.0), (0.0, 1e-4), (0.0, 0.0), (2.0, 1e-5)])
def test_conditionals_equal_the_smoothing_rule_per_table(rng, alpha, epsilon):
    r = np.array([2, 3, 1, 4])
    codes = np.column_stack([rng.integers(0, k, 40) for k in r])
    codes[rng.random(codes.shape) < 0.3] = -1  # sparse: empty contexts and zero cells
    y, w = rng.integers(0, 3, 40), rng.random(40) + 0.1
    counts = triple_counts(codes, y, w, r, 3)
    layout = triple_layout(r, 3)
    cond = two_dependence_conditionals(counts, r, 3, layout, alpha, epsilon=epsilon)
    for t, (i, j, k) in enumerate(itertools.combinations(range(len(r)), 3)):
        table = counts[layout[t] : layout[t + 1]].reshape(r[i], r[j], r[k], 3)
        for role, axis in enumerate((0, 1, 2)):
            moved = np.moveaxis(table, axis, -1)  # the child last
            expected = np.moveaxis(np.log(smoothed_conditional(moved, alpha, epsilon)), -1, axis)
            got = cond[role, layout[t] : layout[t + 1]].reshape(table.shape)
            assert_allclose(got, expected, rtol=1e-12, atol=1e-300)
