"""The compiled log-sum-exp equals scipy's, with an entry left out, and keeps its edge
cases (every value -inf; nothing to sum)."""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.special import logsumexp

from discotree.kernels.log_space import log_sum_exp


@pytest.mark.parametrize("n", [1, 2, 7])
def test_log_sum_exp_equals_scipy(rng, n):
    values = rng.normal(scale=30.0, size=n + 3)  # (entries past n are not read)
    assert_allclose(log_sum_exp(values, n, -1), logsumexp(values[:n]), rtol=1e-14)
    for skip in range(n):
        kept = np.delete(values[:n], skip)
        expected = logsumexp(kept) if len(kept) else -np.inf
        assert_allclose(log_sum_exp(values, n, skip), expected, rtol=1e-14)


def test_log_sum_exp_of_nothing_is_minus_infinity():
    values = np.array([-np.inf, -np.inf, 2.0])
    assert log_sum_exp(values, 2, -1) == -np.inf
    assert log_sum_exp(values, 0, -1) == -np.inf
    assert log_sum_exp(values, 3, 2) == -np.inf
    assert log_sum_exp(values, 3, -1) == 2.0
