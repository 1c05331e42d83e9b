"""The logistic kernels against the sparse design matrix (the slow, obviously correct
reference): scores, loss and gradient on random rows with weights, missing values,
numeric inputs and pairs, on one block and on several."""

import itertools

import numpy as np
import pytest
from joblib import Parallel, delayed
from scipy.special import log_softmax

from discotree.kernels import logistic as kernels
from discotree.kernels.logistic import logistic_loss_gradient, logistic_scores, row_blocks
from discotree.models.logistic import design_matrix, input_offsets, input_slots
from discotree.threads import one_task_of_a_pool


def _problem(rng, n_rows, n_classes=3):
    n_categories = np.array([2, 3, 5, 4])
    codes = np.stack([rng.integers(0, r, n_rows) for r in n_categories], axis=1)
    codes[rng.random(codes.shape) < 0.15] = -1  # missing cells
    values = [None, None, rng.normal(size=5), None]  # column 2 numeric
    pairs = np.array([[0, 1], [1, 3]])
    levels = [None, np.array([0, 0, 1]), None, None]
    n_inputs = int(input_offsets(n_categories, values, pairs, levels)[-1])
    coef = rng.normal(size=(n_inputs, n_classes))
    intercept = rng.normal(size=n_classes)
    y = rng.integers(0, n_classes, n_rows)
    weights = rng.gamma(1.0, size=n_rows)
    return codes, n_categories, values, pairs, levels, coef, intercept, y, weights


def _reference(codes, n_categories, values, pairs, levels, coef, intercept, y, weights):
    design = design_matrix(codes, n_categories, values, pairs, levels).toarray()
    scores = design @ coef + intercept
    log_p = log_softmax(scores, axis=1)
    index = np.arange(len(y))
    loss = -float(weights @ log_p[index, y])
    residual = np.exp(log_p)
    residual[index, y] -= 1.0
    residual *= weights[:, None]
    return scores, loss, design.T @ residual, residual.sum(axis=0)


@pytest.mark.parametrize("n_rows", [1, 37, 3 * kernels.MIN_BLOCK_ROWS + 5])
def test_the_kernels_match_the_design_matrix(n_rows):
    rng = np.random.default_rng(n_rows)
    problem = _problem(rng, n_rows)
    codes, n_categories, values, pairs, levels, coef, intercept, y, weights = problem
    slots = input_slots(codes, n_categories, values, pairs, levels)
    scores, loss, grad, grad_intercept = _reference(*problem)
    arguments = (slots.slots, slots.numeric, slots.numeric_inputs)
    np.testing.assert_allclose(logistic_scores(*arguments, coef, intercept), scores, atol=1e-12)
    got = logistic_loss_gradient(*arguments, y, weights, coef, intercept)
    np.testing.assert_allclose(got[0], loss, rtol=1e-12)
    np.testing.assert_allclose(got[1], grad, atol=1e-10)
    np.testing.assert_allclose(got[2], grad_intercept, atol=1e-10)


def test_extreme_scores_give_a_finite_loss():
    slots = np.array([[0, 1]], dtype=np.int32)
    coef = np.array([[800.0, -800.0], [-800.0, 800.0]])
    loss, grad, _ = logistic_loss_gradient(
        slots,
        np.zeros((0, 2)),
        np.zeros(0, dtype=np.intp),
        np.array([1, 0]),
        np.ones(2),
        coef,
        np.zeros(2),
    )
    assert np.isfinite(loss) and loss == pytest.approx(2 * 1600.0)
    assert np.isfinite(grad).all()


def test_the_blocks_depend_on_the_rows_only_and_cover_them():
    for n_rows in (0, 1, kernels.MIN_BLOCK_ROWS * 2, 10**6):
        blocks = row_blocks(n_rows)
        assert blocks[0][0] == 0 and blocks[-1][1] == n_rows
        assert all(a[1] == b[0] for a, b in itertools.pairwise(blocks))
        assert len(blocks) <= kernels.MAX_BLOCKS
    assert len(row_blocks(kernels.MIN_BLOCK_ROWS * 2)) == 2


def test_the_result_is_the_same_on_one_core(monkeypatch):
    rng = np.random.default_rng(5)
    problem = _problem(rng, 3 * kernels.MIN_BLOCK_ROWS)
    codes, n_categories, values, pairs, levels, coef, intercept, y, weights = problem
    slots = input_slots(codes, n_categories, values, pairs, levels)
    arguments = (slots.slots, slots.numeric, slots.numeric_inputs, y, weights, coef, intercept)
    threaded = logistic_loss_gradient(*arguments)
    # as a task of another pool (the kDB ensemble's): the blocks one after the other
    task = one_task_of_a_pool(lambda: logistic_loss_gradient(*arguments))
    in_tasks = Parallel(n_jobs=2, prefer="threads")(delayed(task)() for _ in range(2))
    monkeypatch.setattr(kernels, "map_on_cores", lambda run, items: [run(i) for i in items])
    serial = logistic_loss_gradient(*arguments)
    for other in (serial, *in_tasks):
        assert threaded[0] == other[0]
        assert np.array_equal(threaded[1], other[1]) and np.array_equal(threaded[2], other[2])


def test_the_cache_blocks_change_no_bit(monkeypatch):
    # every row adds its inputs in input order and every coefficient its rows in row
    # order, whatever the size of the cache blocks
    rng = np.random.default_rng(5)
    problem = _problem(rng, 3 * kernels.MIN_BLOCK_ROWS + 5, n_classes=4)
    codes, n_categories, values, pairs, levels, coef, intercept, y, weights = problem
    slots = input_slots(codes, n_categories, values, pairs, levels)
    arguments = (slots.slots, slots.numeric, slots.numeric_inputs)
    results = []
    for size in (1, 4096, 10**9):  # 32 rows (the least), 128, every row
        monkeypatch.setattr(kernels, "SCORE_BLOCK_BYTES", size)
        loss, grad, grad_intercept = logistic_loss_gradient(*arguments, y, weights, coef, intercept)
        results.append((loss, grad, grad_intercept, logistic_scores(*arguments, coef, intercept)))
    for other in results[1:]:
        assert other[0] == results[0][0]
        for a, b in zip(other[1:], results[0][1:], strict=True):
            assert np.array_equal(a, b)


@pytest.mark.parametrize("n_rows", [1, 37, 500])
def test_pair_slots_compiled_equal_numpys_and_the_design_matrix(n_rows, monkeypatch):
    # the pairs' slots: numpy on a few cells, kernels.logistic.pair_slot_rows beyond
    rng = np.random.default_rng(n_rows)
    codes, n_categories, values, pairs, levels, *_ = _problem(rng, n_rows)
    found = []
    for small in (10**9, -1):
        monkeypatch.setattr("discotree.models.logistic.SMALL_DATA_CELLS", small)
        found.append(input_slots(codes, n_categories, values, pairs, levels).slots)
    assert np.array_equal(found[0], found[1])
    design = design_matrix(codes, n_categories, values, pairs, levels).toarray()
    for p in range(len(pairs)):  # (each pair's slot: its one in the design matrix)
        row = found[1][-len(pairs) + p]
        for i, slot in enumerate(row):
            if slot >= 0:
                assert design[i, slot] == 1.0
            else:
                assert (codes[i, pairs[p]] < 0).any()
