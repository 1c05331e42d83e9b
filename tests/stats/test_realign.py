"""Count tables moved to a layout with more categories equal counting in it."""

import numpy as np
from numpy.testing import assert_array_equal

from discotree.stats.pair_statistics import PairStatistics, category_index_map


def test_realigned_counts_equal_counts_of_the_remapped_codes(rng):
    n, n_classes = 300, 3
    old_n = np.array([2, 3, 1, 4])
    codes = np.column_stack([rng.integers(-1, r, n) for r in old_n])
    class_index = rng.integers(0, n_classes, n)
    weights = rng.random(n) + 0.1
    # feature 0 gains a category in front, feature 2 two after, feature 3 one inside
    maps = {0: np.array([1, 2]), 2: np.array([0]), 3: np.array([0, 1, 3, 4])}
    new_n = np.array([3, 3, 3, 5])
    old = PairStatistics.from_codes(codes, class_index, old_n, n_classes, weights)
    moved = codes.copy()
    for j, new_code in maps.items():
        moved[:, j] = np.where(codes[:, j] >= 0, new_code[np.maximum(codes[:, j], 0)], -1)
    expected = PairStatistics.from_codes(moved, class_index, new_n, n_classes, weights)
    realigned = old.realigned(maps, new_n)
    assert_array_equal(realigned.n_categories, new_n)
    np.testing.assert_allclose(realigned.counts, expected.counts, rtol=1e-12, atol=1e-12)


def test_category_index_map_by_hand():
    index, width = category_index_map(np.array([1, 2]), {1: np.array([2, 0])}, np.array([1, 3]))
    assert width == 4
    assert_array_equal(index, [0, 3, 1])
