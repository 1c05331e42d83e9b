"""The fused joint and gradient scatter of the CL objective against plain loops."""

import numpy as np
import pytest

from discotree.kernels import _reference
from discotree.kernels.family_joint import (
    family_cll_gradient,
    family_gradient,
    family_log_joint,
)


def _layout(rng, n_rows, n_nodes, n_classes):
    """Random tables of 2-5 values per class, laid end to end, and random reads of
    them (some missing)."""
    widths = rng.integers(2, 6, n_nodes)
    offsets = np.concatenate([[0], np.cumsum(widths * n_classes)])
    base = offsets[:-1] + rng.integers(0, widths, (n_rows, n_nodes))
    base[rng.random(base.shape) < 0.1] = -1
    return base.astype(np.intp), widths.astype(np.intp), int(offsets[-1])


@pytest.mark.parametrize("n_classes", [1, 2, 7])
def test_family_log_joint_equals_plain_loops(rng, n_classes):
    base, stride, n_params = _layout(rng, 200, 6, n_classes)
    log_theta = np.log(rng.random(n_params))
    log_theta[rng.random(n_params) < 0.05] = -np.inf
    expected = _reference.family_log_joint(log_theta, base, stride, n_classes)
    got = family_log_joint(log_theta, base, stride, n_classes)
    np.testing.assert_allclose(got, expected, rtol=1e-13, atol=1e-13)
    assert np.isneginf(expected).any() and (base < 0).any()


@pytest.mark.parametrize("n_classes", [1, 2, 7])
def test_family_gradient_equals_plain_loops(rng, n_classes):
    base, stride, n_params = _layout(rng, 200, 6, n_classes)
    weights = rng.normal(size=(200, n_classes))
    expected = _reference.family_gradient(weights, base, stride, n_params)
    got = family_gradient(weights, base, stride, n_params)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
    assert np.count_nonzero(expected) > n_params // 2


def test_a_fully_missing_sample_reads_and_receives_nothing(rng):
    base, stride, n_params = _layout(rng, 5, 3, 2)
    base[2] = -1
    log_theta = rng.normal(size=n_params)
    assert np.array_equal(family_log_joint(log_theta, base, stride, 2)[2], [0.0, 0.0])
    weights = np.zeros((5, 2))
    weights[2] = 1.0
    assert not family_gradient(weights, base, stride, n_params).any()
    assert family_log_joint(log_theta, base[:0], stride, 2).shape == (0, 2)


@pytest.mark.parametrize("n_classes", [1, 2, 7])
def test_family_cll_gradient_equals_the_reference(rng, n_classes):
    base, stride, n_params = _layout(rng, 300, 5, n_classes)
    log_theta = np.log(rng.random(n_params))
    log_prior = np.log(rng.dirichlet(np.ones(n_classes)))
    class_index = rng.integers(0, n_classes, 300)
    weights = rng.random(300) * 3
    expected = _reference.family_cll_gradient(
        log_theta, log_prior, base, stride, class_index, weights
    )
    got = family_cll_gradient(log_theta, log_prior, base, stride, class_index, weights)
    np.testing.assert_allclose(got[0], expected[0], rtol=1e-12)
    np.testing.assert_allclose(got[1], expected[1], rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(got[2], expected[2], rtol=1e-10, atol=1e-10)
    if n_classes == 1:  # P(c | x) = 1: nothing to gain
        assert expected[0] == 0 and not np.abs(expected[2]).max() > 1e-12
    else:
        assert expected[0] < 0 and np.abs(expected[2]).max() > 0.1
