"""The fused candidate-scoring kernel against forming every candidate's joint and
applying the package's tie rule (``numerics.argmax_with_ties``)."""

import numpy as np
import pytest

from discotree.kernels.candidate_scores import candidate_hits
from tests import reference


@pytest.mark.parametrize("with_nan", [True, False])
@pytest.mark.parametrize("n_classes", [1, 2, 3, 10])
def test_candidate_hits_equal_the_tie_rule(rng, n_classes, with_nan):
    n_rows, n_table, n_candidates = 300, 40, 7
    # few distinct values: many ties between classes
    base = rng.integers(-3, 1, (n_rows, n_classes)).astype(float)
    table = rng.integers(-3, 1, (n_table, n_classes)).astype(float)
    base += rng.choice([0.0, 1e-12, -1e-12], base.shape)  # ties up to rounding
    base[rng.random(base.shape) < 0.05] = -np.inf  # a class absent from the data
    table[rng.random(table.shape) < 0.05] = -np.inf  # log 0 without smoothing
    if with_nan:  # -inf - (-inf) in the joint; without, the kernel's NaN-free path
        base[rng.random(base.shape) < 0.02] = np.nan
    index = rng.integers(0, n_table, (n_candidates, n_rows))
    truth = rng.integers(0, n_classes, n_rows)
    expected = reference.candidate_hits(base, table, index, truth)
    np.testing.assert_array_equal(candidate_hits(base, table, index, truth), expected)
    assert expected.any() and (n_classes == 1 or not expected.all())


@pytest.mark.parametrize("with_nan", [True, False])
@pytest.mark.parametrize("n_classes", [1, 2, 3, 10])
def test_replacement_hits_equal_the_tie_rule(rng, n_classes, with_nan):
    n_rows, n_table, n_candidates = 300, 40, 7
    base = rng.integers(-3, 1, (n_rows, n_classes)).astype(float)  # many ties
    base += rng.choice([0.0, 1e-12, -1e-12], base.shape)  # and ties up to rounding
    table = rng.integers(-3, 1, (n_table, n_classes)).astype(float)
    table[rng.random(table.shape) < 0.05] = -np.inf  # log 0: -inf - -inf is NaN
    if with_nan:
        base[rng.random(base.shape) < 0.02] = np.nan
    else:
        table[np.isinf(table)] = -30.0
    old = rng.integers(0, n_table, (n_candidates, n_rows))
    new = rng.integers(0, n_table, (n_candidates, n_rows))
    truth = rng.integers(0, n_classes, n_rows)
    expected = reference.replacement_hits(base, table, old, new, truth)
    np.testing.assert_array_equal(candidate_hits(base, table, new, truth, old), expected)
    assert expected.any() and (n_classes == 1 or not expected.all())
    # the same as candidate_hits when the old column is the base's own
    same = candidate_hits(base, table, new, truth, np.zeros_like(old))
    with np.errstate(invalid="ignore"):
        shifted = base - table[0]
    np.testing.assert_array_equal(same, candidate_hits(shifted, table, new, truth))


def test_near_ties_go_to_the_first_class_as_predict_does():
    base = np.array([[0.0, 1e-13, -1.0], [0.0, 1e-6, -1.0]])
    table = np.zeros((1, 3))
    index = np.zeros((1, 2), dtype=np.intp)
    hits = candidate_hits(base, table, index, np.array([0, 0]))
    np.testing.assert_array_equal(hits, [[True, False]])  # 1e-13 is a tie, 1e-6 is not
    old = np.zeros((1, 2), dtype=np.intp)
    np.testing.assert_array_equal(
        candidate_hits(base, table, index, np.array([0, 1]), old), [[True, True]]
    )


def test_candidate_hits_of_no_candidates_and_no_rows(rng):
    base, table = rng.random((5, 3)), rng.random((4, 3))
    truth = np.zeros(5, dtype=np.intp)
    assert candidate_hits(base, table, np.zeros((0, 5), dtype=np.intp), truth).shape == (0, 5)
    empty = candidate_hits(base[:0], table, np.zeros((2, 0), dtype=np.intp), truth[:0])
    assert empty.shape == (2, 0)


def test_single_table_rows_equal_the_numpy_formulation(rng):
    from discotree.kernels.candidate_scores import single_table_rows

    n_features, n_rows, r_node, node = 6, 200, 3, 2
    widths = rng.integers(2, 5, n_features)
    codes = np.stack([rng.integers(-1, w, n_rows) for w in widths])  # -1: missing
    offsets = np.concatenate([[0], np.cumsum(widths)])
    codes[node] = rng.integers(-1, r_node, n_rows)
    past = int(offsets[-1]) * r_node
    parents = np.array([0, 4, 5, 1])
    rows = rng.permutation(n_rows)[:150]
    a, x = codes[parents][:, rows], codes[node, rows][None, :]
    expected = (offsets[parents][:, None] + a) * r_node + x
    expected = np.where(a < 0, past + x, expected)
    expected = np.where(x < 0, past + r_node, expected)
    got = single_table_rows(codes, parents, offsets, node, r_node, past=past, rows=rows)
    np.testing.assert_array_equal(got, expected)
    assert (a < 0).any() and (x < 0).any()


def test_candidates_split_over_the_cores_give_the_same_hits(rng):
    # above the kernel's work threshold the candidates are split between threads
    base = rng.integers(-3, 1, (8192, 4)).astype(float)
    table = rng.integers(-3, 1, (50, 4)).astype(float)
    index = rng.integers(0, 50, (80, 8192))
    truth = rng.integers(0, 4, 8192)
    old = rng.integers(0, 50, (80, 8192))
    np.testing.assert_array_equal(
        candidate_hits(base, table, index, truth),
        reference.candidate_hits(base, table, index, truth),
    )
    np.testing.assert_array_equal(
        candidate_hits(base, table, index, truth, old),
        reference.replacement_hits(base, table, old, index, truth),
    )
