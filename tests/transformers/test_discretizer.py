"""Discretizer: quantile and uniform bins, weights, missing values."""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from discotree import Discretizer
from discotree.transformers.mdl import mdl_cut_points, sampled_mdl_partition
from tests import reference


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


@pytest.mark.parametrize("n_classes", [2, 3])
def test_mdl_cut_points_match_reference(rng, n_classes):
    for _ in range(5):
        n = int(rng.integers(2, 60))
        values = np.round(rng.normal(size=n), 1)
        y = (values + rng.normal(scale=0.7, size=n) > 0).astype(np.intp)
        if n_classes == 3:
            y[values > 1] = 2
        w = rng.integers(0, 3, n).astype(float)
        fast = mdl_cut_points(values, y, w, n_classes)
        slow = reference.mdl_cut_points(values, y, w, n_classes)
        assert_allclose(fast, slow)


def test_mdl_finds_the_class_boundary_and_stops_on_noise(rng):
    x = rng.uniform(0, 10, size=(400, 1))
    y = (x[:, 0] > 6.0).astype(int)
    disc = Discretizer(method="mdl").fit(x, y)
    assert len(disc.bin_edges_[0]) == 1
    assert disc.bin_edges_[0][0] == pytest.approx(6.0, abs=0.2)
    noise = Discretizer(method="mdl").fit(x, rng.integers(0, 2, 400))
    assert noise.n_bins_.tolist() == [1]


def test_mdl_needs_labels():
    with pytest.raises(ValueError, match="requires y to be passed"):
        Discretizer(method="mdl").fit(np.zeros((3, 1)))


def test_fixed_bin_edges_learn_nothing(rng):
    edges = [[-1.0, 0.0, 1.0], [0.5]]
    disc = Discretizer(bin_edges=edges).fit(rng.normal(size=(30, 2)) * 100)
    np.testing.assert_array_equal(disc.n_bins_, [4, 2])
    codes = disc.transform(np.array([[-5.0, 0.5], [0.0, 0.6], [np.nan, 9.0]]))
    np.testing.assert_array_equal(codes, [[0, 0], [1, 1], [np.nan, 1]])
    with pytest.raises(ValueError, match="bin_edges has 2 features' edges but X has 3"):
        Discretizer(bin_edges=edges).fit(np.zeros((4, 3)))
    with pytest.raises(ValueError, match=r"bin_edges\[0\] must be finite and strictly increasing"):
        Discretizer(bin_edges=[[1.0, 1.0]]).fit(np.zeros((4, 1)))


def test_threaded_quantiles_and_binning_equal_one_thread(rng, monkeypatch):
    """Above a million cells the quantile search runs on column blocks and the
    binning on row blocks, one per core: the same edges and codes as one thread."""
    from discotree.transformers import discretizer

    X = rng.normal(size=(3000, 7))
    X[rng.random(X.shape) < 0.05] = np.nan
    weights = rng.random(3000)
    single = Discretizer(n_bins=5).fit(X, sample_weight=weights)
    monkeypatch.setattr(discretizer, "_THREAD_CELLS", 1)
    monkeypatch.setattr("discotree.threads.available_cores", lambda: 3)
    threaded = Discretizer(n_bins=5).fit(X, sample_weight=weights)
    for a, b in zip(single.bin_edges_, threaded.bin_edges_, strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(threaded.bin_codes(X), single.bin_codes(X))


def test_random_method_jitters_the_quantile_levels_reproducibly(rng):
    X = rng.normal(size=(2000, 3))
    a = Discretizer(n_bins=5, method="random", random_state=1).fit(X)
    b = Discretizer(n_bins=5, method="random", random_state=1).fit(X)
    c = Discretizer(n_bins=5, method="random", random_state=2).fit(X)
    assert all(np.array_equal(e, f) for e, f in zip(a.bin_edges_, b.bin_edges_, strict=True))
    assert not all(np.array_equal(e, f) for e, f in zip(a.bin_edges_, c.bin_edges_, strict=True))
    # each bin holds at most 2 / n_bins of the rows (levels jittered by at most half a bin)
    codes = a.transform(X).astype(int)
    for j in range(3):
        assert np.bincount(codes[:, j]).max() <= 2 * 2000 / 5 + 1


@pytest.mark.parametrize("seed", range(3))
def test_sampled_mdl_partitions_follow_their_exact_distribution(seed):
    rng = np.random.default_rng(seed)
    counts = rng.poisson(4, (6, 3)).astype(float)
    counts[:2, 0] += 15
    counts[4:, 2] += 15
    counts[3] = 0  # an empty position never starts a bin
    exact = reference.sampled_mdl_partitions(counts)
    assert sum(exact.values()) == pytest.approx(1.0)
    n_draws = 2000
    drawn: dict = {}
    for s in range(n_draws):
        bins = tuple(sampled_mdl_partition(counts, np.random.default_rng([seed, s])).tolist())
        drawn[bins] = drawn.get(bins, 0) + 1
    assert set(drawn) <= set(exact)
    for bins, p in exact.items():  # within 4.5 standard errors of the exact frequency
        se = np.sqrt(p * (1 - p) / n_draws)
        assert abs(drawn.get(bins, 0) / n_draws - p) <= 4.5 * se + 1e-9, bins


def test_sampled_mdl_partition_without_class_information_is_one_bin():
    counts = np.tile([[3.0, 1.0]], (5, 1))
    assert sampled_mdl_partition(counts, np.random.default_rng(0)).tolist() == [0] * 5
    assert sampled_mdl_partition(np.zeros((4, 2)), np.random.default_rng(0)).tolist() == [0] * 4
