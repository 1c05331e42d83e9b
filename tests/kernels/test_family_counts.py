"""Counts of two-parent families, many pairs at once, against plain loops and against
one family at a time."""

import itertools

import numpy as np
import pytest

from discotree.kernels.family_counts import pair_family_counts
from discotree.models.bayes_net import family_counts
from tests import reference
from tests.data import coded_rows


def _rows(rng, n, missing, d=6, n_classes=3):
    """Random weighted rows: the categories of ``d`` features (2 to 4 each), ``n`` rows
    of codes with the fraction ``missing`` of them -1, class indices and weights."""
    n_categories = rng.integers(2, 5, d)
    return n_categories, *coded_rows(rng, n_categories, n, missing=missing, n_classes=n_classes)


@pytest.mark.parametrize("missing", [0.0, 0.1])
def test_pair_family_counts_equal_the_reference(rng, missing):
    d, n_classes = 6, 3
    n_categories, codes, class_index, weights = _rows(rng, 150, missing, d, n_classes)
    for node in (0, 3):
        pairs = list(itertools.combinations([v for v in range(d) if v != node], 2))
        first, second = (np.array([p[i] for p in pairs]) for i in (0, 1))
        counts, starts, complete = pair_family_counts(
            np.ascontiguousarray(codes.T),
            class_index,
            weights,
            n_classes,
            n_categories,
            node,
            first,
            second,
        )
        assert complete == (missing == 0)
        for i, (a, b) in enumerate(pairs):
            cells = n_categories[a] * n_categories[b]
            block = counts[:, starts[i] : starts[i] + cells]
            plain = reference.family_table(
                codes, class_index, weights, n_classes, n_categories, node, (a, b)
            )
            np.testing.assert_allclose(block.reshape(plain.shape), plain, rtol=1e-12)
            one = family_counts(
                codes, class_index, weights, n_classes, n_categories, node=node, parents=(a, b)
            )
            np.testing.assert_array_equal(block.reshape(one.shape), one)  # bit for bit
        assert counts.shape[1] == starts[-1] + n_categories[first[-1]] * n_categories[second[-1]]


def test_pair_family_counts_of_no_rows():
    codes = np.zeros((3, 0), dtype=np.intp)
    counts, starts, complete = pair_family_counts(
        codes,
        np.zeros(0, dtype=np.intp),
        np.zeros(0),
        2,
        np.array([2, 3, 2]),
        2,
        np.array([0]),
        np.array([1]),
    )
    assert counts.shape == (2, 6, 2) and not counts.any() and complete
    assert list(starts) == [0]


@pytest.mark.parametrize("missing", [0.0, 0.1])
@pytest.mark.parametrize("family", [(2,), (0, 3), (4, 1, 5), (5, 0, 2, 3)])
def test_family_cells_and_counts_equal_the_reference(rng, missing, family):
    from discotree.kernels.family_counts import family_cell_counts, family_cells

    n_classes = 3
    n_categories, codes, class_index, weights = _rows(rng, 300, missing, n_classes=n_classes)
    cells = family_cells(np.ascontiguousarray(codes.T), family, n_categories)
    values = codes[:, list(family)]
    expected = np.ravel_multi_index(
        tuple(np.maximum(values, 0).T), tuple(n_categories[list(family)])
    )
    expected = np.where((values < 0).any(axis=1), -1, expected)
    np.testing.assert_array_equal(cells, expected)
    assert (cells < 0).any() == (missing > 0)
    n_cells = int(np.prod(n_categories[list(family)]))
    counts = family_cell_counts(cells, class_index, weights, n_classes, n_cells)
    table = reference.family_table(
        codes, class_index, weights, n_classes, n_categories, family[-1], family[:-1]
    )
    np.testing.assert_allclose(counts, table.reshape(n_classes, -1), rtol=1e-12)
    # the counts of models.bayes_net.family_counts (np.bincount), to the bit
    bincounted = family_counts(
        codes, class_index, weights, n_classes, n_categories, node=family[-1], parents=family[:-1]
    )
    np.testing.assert_array_equal(counts, bincounted.reshape(n_classes, -1))


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("beyond", [False, True])
def test_prefix_counts_in_one_pass_equal_one_level_at_a_time(rng, weighted, beyond):
    # every level of the prefixes counted together: the cells and the sums (to the bit)
    # of the one-level count, with weights, missing values and (beyond) a parent code
    # past its categories (the one-level counts' fallback)
    from discotree.kernels.family_counts import (
        dense_prefix_family_counts,
        dense_sparse_family_counts,
    )

    n_categories = np.array([2, 3, 4, 2, 3])
    codes = np.stack([rng.integers(0, r, 500) for r in n_categories], axis=1)
    codes[rng.random(codes.shape) < 0.1] = -1
    if beyond:
        codes[7, 2] = 9
    y = rng.integers(0, 3, 500)
    weights = rng.gamma(1.0, size=500) * (rng.random(500) < 0.9) if weighted else None
    parents = (3, 2, 0, 1)
    for levels in (range(0, 5), range(2, 4), range(4, 5), range(0, 1)):
        got = dense_prefix_family_counts(
            codes, y, weights, 3, n_categories, node=4, parents=parents, levels=levels
        )
        assert len(got) == len(levels)
        for level, (cells, masses) in zip(levels, got, strict=True):
            want = dense_sparse_family_counts(
                codes, y, weights, 3, n_categories, node=4, parents=parents[:level]
            )
            np.testing.assert_array_equal(cells, want[0])
            np.testing.assert_array_equal(masses, want[1])
            assert masses.dtype == want[1].dtype and cells.dtype == want[0].dtype
