"""The compiled Chinese-restaurant table counts equal the slow reference, uniform for
uniform, and follow the process's known mean."""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from discotree.kernels.crp import crp_tables
from tests import reference


def test_crp_tables_equal_the_reference(rng):
    customers = rng.integers(0, 30, 200)
    customers[::7] = 0
    strength = rng.gamma(0.5, 2.0, 200)
    strength[::11] = 1e-9  # (almost) one table
    uniforms = rng.random(int(customers.sum()))
    got = crp_tables(customers, strength, uniforms)
    assert_array_equal(got, reference.crp_tables(customers, strength, uniforms))
    assert np.all((got >= np.minimum(customers, 1)) & (got <= customers))


def test_crp_tables_have_the_process_mean(rng):
    """E[tables] = sum_i a / (a + i) over the customers i = 0..n-1."""
    n, a = 25, 3.0
    draws = [crp_tables(np.array([n]), np.array([a]), rng.random(n))[0] for _ in range(4000)]
    expected = sum(a / (a + i) for i in range(n))
    assert_allclose(np.mean(draws), expected, rtol=0.02)


def test_too_few_uniforms_are_refused():
    with pytest.raises(ValueError, match="3 uniforms for 4 customers"):
        crp_tables(np.array([4]), np.array([1.0]), np.zeros(3))
