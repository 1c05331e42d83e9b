"""discotree.evaluation.splits: the stratified folds of ``discotree compare``."""

import numpy as np
import pytest

from discotree.evaluation.splits import cross_validation, repeated_cross_validation


def test_cross_validation_partitions_and_stratifies(rng):
    y = np.repeat([0, 1, 2], [50, 30, 20])
    folds = list(cross_validation(y, 5, seed=3))
    assert len(folds) == 5
    tests = np.concatenate([f.test for f in folds])
    assert sorted(tests) == list(range(100))
    for f in folds:
        assert not set(f.train) & set(f.test)
        assert np.bincount(y[f.test]).tolist() == [10, 6, 4]
    again = list(cross_validation(y, 5, seed=3))
    assert all((a.test == b.test).all() for a, b in zip(folds, again, strict=True))


def test_repeated_cross_validation_keys_and_repeats():
    y = np.repeat([0, 1], 20)
    folds = list(repeated_cross_validation(y, 4, 3, seed=0))
    assert [f.key for f in folds[:5]] == ["r0-f0", "r0-f1", "r0-f2", "r0-f3", "r1-f0"]
    assert len(folds) == 12
    assert not (folds[0].test == folds[4].test).all()


def test_too_few_samples_for_the_folds():
    with pytest.raises(ValueError, match="3 samples cannot be split into 5 folds"):
        list(cross_validation([0, 1, 0], 5))
