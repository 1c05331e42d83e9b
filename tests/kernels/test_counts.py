"""Counting kernels against the slow reference."""

import numpy as np
import pytest
from hypothesis import given, settings
from numpy.testing import assert_allclose, assert_array_equal

from discotree.kernels import _reference, counts
from tests.conftest import discrete_datasets


@settings(max_examples=60, deadline=None)
@given(discrete_datasets())
def test_pairwise_counts_matches_reference(data):
    codes, y, w, n_cat, n_classes = data
    fast = counts.pairwise_counts(codes, y, w, n_cat, n_classes)
    slow = _reference.pairwise_counts(codes, y, w, n_cat, n_classes)
    assert_allclose(fast, slow, rtol=1e-12, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(discrete_datasets())
def test_unweighted_pairwise_counts_are_exact_integers(data):
    codes, y, _, n_cat, n_classes = data
    fast = counts.pairwise_counts(codes, y, None, n_cat, n_classes)
    assert_array_equal(fast, _reference.pairwise_counts(codes, y, None, n_cat, n_classes))


@settings(max_examples=60, deadline=None)
@given(discrete_datasets())
def test_univariate_counts_match_reference_and_diagonal_blocks(data):
    codes, y, w, n_cat, n_classes = data
    fast = counts.univariate_counts(codes, y, w, n_cat, n_classes)
    assert_allclose(fast, _reference.univariate_counts(codes, y, w, n_cat, n_classes), atol=1e-12)
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
    slow = _reference.pairwise_moments(values, y, w, 2)
    for a, b in zip(fast, slow, strict=True):
        assert_allclose(a, b, rtol=1e-10, atol=1e-12)
