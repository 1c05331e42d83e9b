"""The missing-value rule (``discotree.missing_values``): the marker, the array tests,
the compiled tests the kernels call, and the rule each learner declares."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from discotree.learners.registry import LEARNERS
from discotree.missing_values import (
    MISSING,
    MissingValueRule,
    complete_rows,
    first_missing,
    has_missing,
    is_missing,
    is_missing_code,
    is_observed_code,
    observed,
)


def test_the_array_tests_agree_with_the_marker():
    codes = np.array([[0, MISSING, 2], [1, 0, 1], [MISSING, MISSING, 0]])
    assert np.array_equal(observed(codes), codes >= 0)
    assert np.array_equal(is_missing(codes), codes < 0)
    assert has_missing(codes) and not has_missing(codes[1:2])
    assert complete_rows(codes).tolist() == [False, True, False]
    assert complete_rows(codes, [0, 2]).tolist() == [True, True, False]
    assert first_missing(codes) == (0, 1, 3)
    assert first_missing(codes[1:2]) is None


@njit(cache=False)
def _count_observed(codes):
    n = 0
    for v in codes.ravel():
        if is_observed_code(v) and not is_missing_code(v):
            n += 1
    return n


def test_the_compiled_tests_inline_into_a_kernel():
    codes = np.array([[0, -1, 3], [-1, 2, 0]], dtype=np.intp)
    assert _count_observed(codes) == 4
    assert is_observed_code(0) and is_missing_code(MISSING)


def test_every_learner_declares_its_rule_as_an_enum():
    for learner in LEARNERS.values():
        assert isinstance(learner.missing_values, MissingValueRule)
        assert isinstance(learner.missing_at_prediction, MissingValueRule)
    assert LEARNERS["forest-density"].missing_values is MissingValueRule.REFUSED
    assert LEARNERS["discriminative-tree-altmax"].missing_values is MissingValueRule.COMPLETE_ROWS


@pytest.mark.parametrize("rule", list(MissingValueRule))
def test_each_rule_says_what_it_does(rule):
    assert MissingValueRule(rule.value) is rule and rule.description


@pytest.mark.parametrize("n_rows", [5, 3000])
def test_complete_rows_of_some_columns_equal_the_rows_of_the_mask(n_rows):
    # the rows missing a value in the columns asked for (as k-dependence models find
    # the rows to sum out), whatever the codes' integer type
    rng = np.random.default_rng(n_rows)
    codes = rng.integers(0, 3, (n_rows, 40))
    codes[rng.random(codes.shape) < 0.01] = -1
    for columns in ([], [3], [0, 7, 39], list(range(40))):
        expected = np.flatnonzero((codes[:, columns] < 0).any(axis=1))
        assert np.flatnonzero(~complete_rows(codes, columns)).tolist() == expected.tolist()
        narrow = codes.astype(np.int8)
        assert np.flatnonzero(~complete_rows(narrow, columns)).tolist() == expected.tolist()
    assert np.flatnonzero(~complete_rows(np.abs(codes), [0, 1])).tolist() == []
