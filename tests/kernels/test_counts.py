"""Counting kernels against the slow reference."""

import numpy as np
import pytest
from hypothesis import given, settings
from numpy.testing import assert_allclose, assert_array_equal

from discotree.kernels import counts
from tests import reference
from tests.conftest import discrete_datasets


@settings(max_examples=60, deadline=None)
@given(discrete_datasets())
def test_pairwise_counts_matches_reference(data):
    codes, y, w, n_cat, n_classes = data
    fast = counts.pairwise_counts(codes, y, w, n_cat, n_classes)
    slow = reference.pairwise_counts(codes, y, w, n_cat, n_classes)
    assert_allclose(fast, slow, rtol=1e-12, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(discrete_datasets())
def test_unweighted_pairwise_counts_are_exact_integers(data):
    codes, y, _, n_cat, n_classes = data
    fast = counts.pairwise_counts(codes, y, None, n_cat, n_classes)
    assert_array_equal(fast, reference.pairwise_counts(codes, y, None, n_cat, n_classes))


@settings(max_examples=60, deadline=None)
@given(discrete_datasets())
def test_univariate_counts_match_reference_and_diagonal_blocks(data):
    codes, y, w, n_cat, n_classes = data
    fast = counts.univariate_counts(codes, y, w, n_cat, n_classes)
    assert_allclose(fast, reference.univariate_counts(codes, y, w, n_cat, n_classes), atol=1e-12)
    pair = counts.pairwise_counts(codes, y, w, n_cat, n_classes)
    assert_allclose(np.diagonal(pair, axis1=1, axis2=2), fast, rtol=1e-12, atol=1e-12)


def test_chunking_does_not_change_counts(rng, monkeypatch):
    codes = rng.integers(-1, 3, size=(1000, 6)).astype(np.intp)
    y = rng.integers(0, 2, 1000).astype(np.intp)
    n_cat = np.full(6, 3, dtype=np.intp)
    whole = counts.pairwise_counts(codes, y, None, n_cat, 2)
    monkeypatch.setattr(counts, "_MAX_CHUNK_ROWS", 7)
    monkeypatch.setattr(counts, "_chunk_rows", lambda *_: 7)
    assert_array_equal(counts.pairwise_counts(codes, y, None, n_cat, 2), whole)


def test_integer_weights_equal_repeated_rows(rng):
    codes = rng.integers(-1, 4, size=(50, 5)).astype(np.intp)
    y = rng.integers(0, 3, 50).astype(np.intp)
    w = rng.integers(0, 4, 50)
    n_cat = np.full(5, 4, dtype=np.intp)
    weighted = counts.pairwise_counts(codes, y, w.astype(float), n_cat, 3)
    repeated = counts.pairwise_counts(np.repeat(codes, w, 0), np.repeat(y, w), None, n_cat, 3)
    assert_allclose(weighted, repeated, rtol=1e-12)


@pytest.mark.parametrize("weighted", [False, True])
def test_pairwise_moments_match_reference(rng, weighted):
    values = rng.normal(size=(40, 4))
    values[rng.random(values.shape) < 0.25] = np.nan
    y = rng.integers(0, 2, 40).astype(np.intp)
    w = rng.random(40) * 2 if weighted else None
    fast = counts.pairwise_moments(values, y, w, 2)
    slow = reference.pairwise_moments(values, y, w, 2)
    for a, b in zip(fast, slow, strict=True):
        assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("weighted", [False, True])
def test_counts_split_over_threads_equal_reference(rng, monkeypatch, weighted):
    """Each thread fills and multiplies its own rows (BLAS on one thread): the sum of
    the threads' Gram matrices gives the reference tables, with missing values."""
    codes = rng.integers(-1, 4, size=(3000, 7)).astype(np.int8)
    y = rng.integers(0, 3, 3000).astype(np.intp)
    w = rng.random(3000) * 3 if weighted else None
    n_cat = np.full(7, 4, dtype=np.intp)
    monkeypatch.setattr(counts, "_THREAD_WORK", 1)  # threads for every class
    monkeypatch.setattr(counts, "available_cores", lambda: 3)
    monkeypatch.setattr(counts, "_chunk_rows", lambda *_: 100)  # several chunks each
    split = counts.pairwise_counts(codes, y, w, n_cat, 3)
    slow = reference.pairwise_counts(codes, y, w, n_cat, 3)
    if weighted:
        assert_allclose(split, slow, rtol=1e-12, atol=1e-12)
    else:
        assert_array_equal(split, slow)


def test_single_threaded_blas_is_held_by_one_thread_and_restored():
    import threading

    from discotree import threads as _threads
    from discotree.threads import single_threaded_blas

    with single_threaded_blas():  # the libraries it limits: those loaded (numpy's BLAS)
        pass

    def blas_threads():
        return [i["num_threads"] for i in _threads._blas_controller.info()]

    before = blas_threads()
    seen = []

    def other():
        with single_threaded_blas() as split:
            seen.append(split)

    with single_threaded_blas() as split:
        with single_threaded_blas() as nested:
            assert split and nested and set(blas_threads()) == {1}
        assert set(blas_threads()) == {1}  # until the outermost block ends
        worker = threading.Thread(target=other)
        worker.start()
        worker.join()
        assert seen == [False] and set(blas_threads()) == {1}  # the other changed nothing
    assert blas_threads() == before


def test_counts_from_a_thread_that_cannot_limit_blas_are_the_same(rng, monkeypatch):
    """threadpoolctl lets one thread set OpenBLAS's threads: elsewhere the limit may
    not hold, and the counting then runs on one thread, with the same result."""
    import threading

    codes = rng.integers(-1, 3, size=(2000, 5)).astype(np.int8)
    y = rng.integers(0, 2, 2000).astype(np.intp)
    n_cat = np.full(5, 3, dtype=np.intp)
    monkeypatch.setattr(counts, "_THREAD_WORK", 1)
    expected = reference.pairwise_counts(codes, y, None, n_cat, 2)
    found = []
    worker = threading.Thread(
        target=lambda: found.append(counts.pairwise_counts(codes, y, None, n_cat, 2))
    )
    worker.start()
    worker.join()
    assert_array_equal(found[0], expected)


@pytest.mark.parametrize(
    ("n_rows", "n_categories", "n_classes", "missing"),
    [(200, [2] * 600, 2, 0.0), (20000, [3] * 20, 2, 0.1), (5000, [4] * 10, 50, 0.0)],
)
def test_the_memory_estimate_is_within_a_quarter_of_the_traced_peak(
    n_rows, n_categories, n_classes, missing
):
    """pairwise_counts_bytes against the peak of the numpy allocations of one call
    (tracemalloc; BLAS's own buffers are not traced)."""
    import tracemalloc

    from discotree.kernels.counts import pairwise_counts_bytes

    rng = np.random.default_rng(0)
    r = np.array(n_categories)
    codes = np.column_stack([rng.integers(0, k, n_rows) for k in r]).astype(np.int8)
    codes[rng.random(codes.shape) < missing] = -1
    class_index = rng.integers(0, n_classes, n_rows)
    counts.pairwise_counts(codes, class_index, None, r, n_classes)  # compiled, cached
    tracemalloc.start()
    try:
        counts.pairwise_counts(codes, class_index, None, r, n_classes)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    estimate = pairwise_counts_bytes(
        np.bincount(class_index, minlength=n_classes), r, int((codes < 0).any(axis=0).sum())
    )
    assert 1 / 1.25 <= estimate / peak <= 1.25, (estimate, peak)


def test_class_totals_are_the_weight_of_each_class(rng):
    from discotree.kernels.counts import class_totals

    index = rng.integers(0, 4, 200)
    weights = rng.random(200)
    expected = [weights[index == c].sum() for c in range(5)]  # class 4: absent, 0
    np.testing.assert_allclose(class_totals(index, weights, 5), expected, rtol=1e-12)
    assert class_totals(index, None, 5).tolist() == [float((index == c).sum()) for c in range(5)]
    assert class_totals(index, None, 5).dtype == np.float64


def test_configuration_histograms_equal_dictionary_counts(rng):
    """The sparse configuration histograms of the orderings, set entropies and MDL,
    against plain dictionaries (dense and sparse id ranges, weights)."""
    from discotree.kernels.counts import (
        class_configuration_counts,
        configuration_masses,
        present_configurations,
    )

    for high in (20, 10**9):  # a small id range (dense) and a large one (sparse)
        ids = rng.integers(0, high, 300)
        weights = rng.random(300)
        expected: dict[int, float] = {}
        for i, w in zip(ids.tolist(), weights, strict=True):
            expected[i] = expected.get(i, 0.0) + w
        cells, masses = present_configurations(ids, weights)
        assert cells.tolist() == sorted(expected)
        np.testing.assert_allclose(masses, [expected[c] for c in sorted(expected)], rtol=1e-12)
        nonzero = configuration_masses(ids, weights)
        np.testing.assert_allclose(np.sort(nonzero[nonzero > 0]), np.sort(masses), rtol=1e-12)
    classes = rng.integers(0, 3, 300)
    values, table, inverse = class_configuration_counts(ids % 7, classes, weights, 3)
    for k, v in enumerate(values.tolist()):
        for c in range(3):
            assert table[k, c] == pytest.approx(weights[(ids % 7 == v) & (classes == c)].sum())
    assert (values[inverse] == ids % 7).all()


@pytest.mark.parametrize("weighted", [False, True])
def test_dense_and_sorted_configurations_give_the_same_bits(rng, weighted):
    from discotree.kernels.counts import present_configurations

    for n, size in ((0, 5), (1, 3), (50, 7), (2000, 300), (3000, 70_000)):
        ids = rng.integers(0, size, n)
        weights = None
        if weighted:
            weights = rng.gamma(1.0, size=n) * (rng.random(n) < 0.8)  # zeros too
        sorted_cells, sorted_masses = present_configurations(ids, weights)
        dense_cells, dense_masses = present_configurations(ids, weights, size)
        np.testing.assert_array_equal(dense_cells, sorted_cells)
        np.testing.assert_array_equal(dense_masses, sorted_masses)
        assert dense_masses.dtype == sorted_masses.dtype == np.float64
