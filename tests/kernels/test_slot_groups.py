"""The grouped slots' loss and gradient against the sparse design matrix (the slow,
obviously correct reference), on random rows with weights, missing values, numeric
inputs and pairs, groups of one slot and of several, one block and several; a row's
codes read back as its slots; the same bits on any core and cache block."""

import itertools

import numpy as np
import pytest
from joblib import Parallel, delayed

from discotree.kernels import logistic
from discotree.kernels import slot_groups as kernels
from discotree.models.logistic import input_groups, input_slots
from discotree.threads import one_task_of_a_pool
from tests.kernels.test_logistic import _problem, _reference


def _grouped(problem, monkeypatch, rows_per_code):
    codes, n_categories, values, pairs, levels, coef, intercept, y, weights = problem
    monkeypatch.setattr(kernels, "ROWS_PER_CODE", rows_per_code)
    slots = input_slots(codes, n_categories, values, pairs, levels)
    groups = kernels.group_slots(slots.slots)
    arguments = (groups, slots.numeric, slots.numeric_inputs, y, weights, coef, intercept)
    return groups, slots, arguments


@pytest.mark.parametrize("n_rows", [1, 37, 3 * logistic.MIN_BLOCK_ROWS + 5])
@pytest.mark.parametrize("rows_per_code", [1, kernels.ROWS_PER_CODE])
def test_the_grouped_kernel_matches_the_design_matrix(n_rows, rows_per_code, monkeypatch):
    rng = np.random.default_rng(n_rows)
    problem = _problem(rng, n_rows)
    groups, _, arguments = _grouped(problem, monkeypatch, rows_per_code)
    if n_rows > 1 and rows_per_code == 1:  # (groups of several slots, missing digits too)
        assert len(groups.column_start) - 1 < len(groups.low)
    _, loss, grad, grad_intercept = _reference(*problem)
    got = kernels.grouped_loss_gradient(*arguments)
    np.testing.assert_allclose(got[0], loss, rtol=1e-12)
    np.testing.assert_allclose(got[1], grad, atol=1e-10)
    np.testing.assert_allclose(got[2], grad_intercept, atol=1e-10)


def test_a_rows_codes_give_back_its_slots(monkeypatch):
    rng = np.random.default_rng(2)
    groups, slots, _ = _grouped(_problem(rng, 300), monkeypatch, 1)
    for g, (a, b) in enumerate(itertools.pairwise(groups.column_start)):
        read = [kernels.code_inputs(groups, g, int(code)) for code in groups.codes[g]]
        assert np.array_equal(np.array(read).T, slots.slots[a:b])
        assert groups.table_start[g + 1] - groups.table_start[g] <= kernels.MAX_GROUP_CODES


def test_the_grouped_kernel_is_the_same_on_one_core_and_any_cache_block(monkeypatch):
    rng = np.random.default_rng(5)
    problem = _problem(rng, 3 * logistic.MIN_BLOCK_ROWS + 5, n_classes=4)
    _, _, arguments = _grouped(problem, monkeypatch, 1)
    results = [kernels.grouped_loss_gradient(*arguments)]
    task = one_task_of_a_pool(lambda: kernels.grouped_loss_gradient(*arguments))
    results += Parallel(n_jobs=2, prefer="threads")(delayed(task)() for _ in range(2))
    monkeypatch.setattr(logistic, "map_on_cores", lambda run, items: [run(i) for i in items])
    for size in (1, 4096, 10**9):  # 32 rows (the least), 128, every row
        monkeypatch.setattr(logistic, "SCORE_BLOCK_BYTES", size)
        results.append(kernels.grouped_loss_gradient(*arguments))
    for other in results[1:]:
        assert other[0] == results[0][0]
        assert np.array_equal(other[1], results[0][1])
        assert np.array_equal(other[2], results[0][2])


@pytest.mark.parametrize("n_rows", [1, 40, 3 * logistic.MIN_BLOCK_ROWS + 5])
@pytest.mark.parametrize("rows_per_code", [1, kernels.ROWS_PER_CODE])
def test_groups_read_from_the_codes_are_the_slots_codes(n_rows, rows_per_code, monkeypatch):
    # the codes input_groups fills from the rows' codes (pairs with levels, missing
    # values, numeric features) against each slot's digit, a row at a time in Python
    rng = np.random.default_rng(n_rows + 7)
    problem = _problem(rng, n_rows)
    codes, n_categories, values, pairs, levels, coef, intercept, y, weights = problem
    monkeypatch.setattr(kernels, "ROWS_PER_CODE", rows_per_code)
    inputs = input_groups(codes, n_categories, values, pairs, levels)
    slots = input_slots(codes, n_categories, values, pairs, levels)
    groups = inputs.groups
    assert groups.column_start[-1] == len(slots.slots)
    for g, (a, b) in enumerate(itertools.pairwise(groups.column_start)):
        for r in range(n_rows):
            expected = 0
            for s in range(a, b):
                k = int(slots.slots[s, r])
                assert k < 0 or groups.low[s] <= k < groups.low[s] + groups.radix[s]
                if k >= 0:
                    expected += (k - groups.low[s] + groups.missing[s]) * groups.stride[s]
            assert groups.codes[g, r] == expected
    assert np.array_equal(inputs.numeric, slots.numeric)
    _, loss, grad, grad_intercept = _reference(*problem)
    got = kernels.grouped_loss_gradient(
        groups, inputs.numeric, inputs.numeric_inputs, y, weights, coef, intercept
    )
    np.testing.assert_allclose(got[0], loss, rtol=1e-12)
    np.testing.assert_allclose(got[1], grad, atol=1e-10)
    np.testing.assert_allclose(got[2], grad_intercept, atol=1e-10)
