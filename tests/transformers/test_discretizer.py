"""Discretizer: quantile and uniform bins, weights, missing values."""

import numpy as np
from numpy.testing import assert_allclose, assert_array_equal

from discotree import Discretizer


def test_quantile_bins_have_equal_frequency(rng):
    x = rng.normal(size=(1000, 1))
    codes = Discretizer(n_bins=4).fit_transform(x).ravel()
    assert_array_equal(np.bincount(codes.astype(int)), [250, 250, 250, 250])


def test_uniform_bins():
    x = np.array([[0.0], [1.0], [2.5], [10.0]])
    disc = Discretizer(n_bins=4, method="uniform").fit(x)
    assert_allclose(disc.bin_edges_[0], [2.5, 5.0, 7.5])
    assert_array_equal(disc.transform(x).ravel(), [0, 0, 0, 3])


def test_weights_equal_repetition_and_missing_stays_missing(rng):
    x = rng.normal(size=(30, 2))
    x[3, 0] = np.nan
    w = rng.integers(0, 4, 30)
    a = Discretizer(n_bins=3).fit(x, sample_weight=w)
    b = Discretizer(n_bins=3).fit(np.repeat(x, w, 0))
    for ea, eb in zip(a.bin_edges_, b.bin_edges_, strict=True):
        assert_array_equal(ea, eb)
    assert np.isnan(a.transform(x)[3, 0])


def test_repeated_values_give_fewer_bins():
    x = np.array([[0.0]] * 8 + [[1.0]] * 2)
    disc = Discretizer(n_bins=5).fit(x)
    assert disc.n_bins_.tolist() == [2]
    assert_array_equal(disc.transform(x).ravel(), [0] * 8 + [1] * 2)
