"""Protocols, metrics and paired tests (the stratified cross-validation they build on is
discotree's: tests/evaluation/test_splits.py)."""

import numpy as np
import pytest
from scipy import stats

from discotree_reproductions.harness import (
    balanced_error_rate,
    error_rate,
    fixed_split,
    learning_curve,
    paired_t_test,
    wilcoxon_test,
)
from discotree_reproductions.harness.adhoc import protocol_folds


def test_learning_curve_nested_training_sets():
    y = np.repeat([0, 1], 50)
    folds = list(learning_curve(y, [10, 30, 60], n_repeats=2, seed=1))
    assert len(folds) == 6
    first = folds[:3]
    assert set(first[0].train) < set(first[1].train) < set(first[2].train)
    assert all(len(f.test) == 20 and not set(f.train) & set(f.test) for f in folds)
    with pytest.raises(ValueError, match="exceeds the pool"):
        list(learning_curve(y, [81]))


def test_fixed_split_and_protocol_names():
    (fold,) = fixed_split(range(3), range(3, 5))
    assert fold.train.tolist() == [0, 1, 2] and fold.test.tolist() == [3, 4]
    y = np.repeat([0, 1], 10)
    assert len(list(protocol_folds("cv4")(y))) == 4
    assert len(list(protocol_folds("10x10cv")(np.repeat([0, 1], 20)))) == 100
    with pytest.raises(ValueError, match="unknown protocol"):
        protocol_folds("loo")


def test_metrics():
    y = np.array([0, 0, 0, 0, 1, 1])
    pred = np.array([0, 0, 0, 1, 0, 0])
    assert error_rate(y, pred) == pytest.approx(3 / 6)
    assert balanced_error_rate(y, pred) == pytest.approx((1 / 4 + 2 / 2) / 2)


def test_paired_tests_are_one_sided(rng):
    b = rng.normal(size=12)
    a = b + 0.5 + rng.normal(scale=0.3, size=12)
    two_sided = stats.ttest_rel(a, b).pvalue
    assert paired_t_test(a, b) == pytest.approx(two_sided / 2)
    assert paired_t_test(b, a) == pytest.approx(1 - two_sided / 2)
    assert wilcoxon_test(a, b) < 0.01 < wilcoxon_test(b, a)
    assert paired_t_test(a, a) == 1.0 and wilcoxon_test(a, a) == 1.0
