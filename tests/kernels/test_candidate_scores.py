"""The fused candidate-scoring kernel against forming every candidate's joint."""

import numpy as np
import pytest

from discotree.kernels import _reference
from discotree.kernels.candidate_scores import candidate_hits


@pytest.mark.parametrize("with_nan", [True, False])
@pytest.mark.parametrize("n_classes", [1, 2, 3, 10])
def test_candidate_hits_equal_numpy_argmax(rng, n_classes, with_nan):
    n_rows, n_table, n_candidates = 300, 40, 7
    # few distinct values: many ties between classes
    base = rng.integers(-3, 1, (n_rows, n_classes)).astype(float)
    table = rng.integers(-3, 1, (n_table, n_classes)).astype(float)
    base[rng.random(base.shape) < 0.05] = -np.inf  # a class absent from the data
    table[rng.random(table.shape) < 0.05] = -np.inf  # log 0 without smoothing
    if with_nan:  # -inf - (-inf) in the joint; without, the kernel's NaN-free path
        base[rng.random(base.shape) < 0.02] = np.nan
    index = rng.integers(0, n_table, (n_candidates, n_rows))
    truth = rng.integers(0, n_classes, n_rows)
    expected = _reference.candidate_hits(base, table, index, truth)
    np.testing.assert_array_equal(candidate_hits(base, table, index, truth), expected)
    assert expected.any() and (n_classes == 1 or not expected.all())


def test_candidate_hits_of_no_candidates_and_no_rows(rng):
    base, table = rng.random((5, 3)), rng.random((4, 3))
    truth = np.zeros(5, dtype=np.intp)
    assert candidate_hits(base, table, np.zeros((0, 5), dtype=np.intp), truth).shape == (0, 5)
    empty = candidate_hits(base[:0], table, np.zeros((2, 0), dtype=np.intp), truth[:0])
    assert empty.shape == (2, 0)
