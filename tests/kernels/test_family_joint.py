"""The fused CLL and gradient sums of the CL objective against plain loops."""

import numpy as np
import pytest

from discotree.kernels.family_joint import family_cll_gradient
from tests import reference


def _layout(rng, n_rows, n_nodes, n_classes):
    """Random tables of 2-5 values per class, laid end to end, and random reads of
    them (some missing)."""
    widths = rng.integers(2, 6, n_nodes)
    offsets = np.concatenate([[0], np.cumsum(widths * n_classes)])
    base = offsets[:-1] + rng.integers(0, widths, (n_rows, n_nodes))
    base[rng.random(base.shape) < 0.1] = -1
    return base.astype(np.intp), widths.astype(np.intp), int(offsets[-1])


@pytest.mark.parametrize("n_classes", [1, 2, 7])
def test_family_cll_gradient_equals_the_reference(rng, n_classes):
    base, stride, n_params = _layout(rng, 300, 5, n_classes)
    log_theta = np.log(rng.random(n_params))
    log_prior = np.log(rng.dirichlet(np.ones(n_classes)))
    class_index = rng.integers(0, n_classes, 300)
    weights = rng.random(300) * 3
    expected = reference.family_cll_gradient(
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


def test_a_fully_missing_sample_reads_and_receives_nothing(rng):
    base, stride, n_params = _layout(rng, 5, 3, 2)
    base[2] = -1
    log_theta, log_prior = rng.normal(size=n_params), np.log([0.25, 0.75])
    weights = np.zeros(5)
    weights[2] = 1.0  # only the sample with no family value counts
    cll, prior, entries = family_cll_gradient(
        log_theta, log_prior, base, stride, np.array([0, 0, 1, 0, 0]), weights
    )
    assert cll == pytest.approx(np.log(0.75))  # the prior alone
    np.testing.assert_allclose(prior, [-0.25, 0.25])
    assert not entries.any()
    empty = family_cll_gradient(log_theta, log_prior, base[:0], stride, base[:0, 0], weights[:0])
    assert empty[0] == 0 and not empty[1].any() and not empty[2].any()
