"""Tests of the shared helpers of :mod:`discotree.models.bayes_net` (the networks
themselves are tested through the k-tree classifier: ``tests/classifiers/test_ktree.py``)."""

import pytest

from discotree.models.bayes_net import rows_by_pattern


@pytest.mark.parametrize("n_features", [0, 1, 7, 8, 9, 70])
def test_rows_by_pattern_equals_grouping_rows_as_tuples(rng, n_features):
    # the slow reference: the rows of each distinct tuple, tuples in sorted order
    missing = rng.random((60, n_features)) < 0.4
    missing[10:20] = missing[0]  # (a pattern shared by many rows)
    groups: dict[tuple[bool, ...], list[int]] = {}
    for i, row in enumerate(missing.tolist()):
        groups.setdefault(tuple(row), []).append(i)
    expected = [groups[key] for key in sorted(groups)]
    assert [group.tolist() for group in rows_by_pattern(missing)] == expected
    assert rows_by_pattern(missing[:0]) == []
