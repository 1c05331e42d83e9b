"""The multinomial logistic model's scores, weighted log-loss and gradient, read from the
rows' input slots directly (no design matrix).

Every row's inputs are a few **slots**, each the index of a one-hot input whose value is
1 (a category of a feature, a joint cell of a pair; -1: none, a missing value), and a
few **numeric** inputs with a value each (0 where missing). The scores of a row are
``intercept + sum over its slots of coef[slot] + sum over numeric inputs of value *
coef[input]``; the loss is ``-sum_i s_i log softmax(scores_i)[y_i]`` with each row's
scale ``s_i`` (its weight over the total), and its gradient with respect to ``coef`` is
the sum over rows of ``s_i (P(. | x_i) - e_{y_i})`` added at each of the row's inputs
(times the value for a numeric one). This is the product of the sparse design matrix
and the coefficients, and of its transpose and the residuals
(:func:`discotree.models.logistic.design_matrix`, the slow reference), in one pass over
compact codes: 4 bytes a one-hot cell where a sparse matrix stores 12.

The rows are split into at most :data:`MAX_BLOCKS` blocks of at least
:data:`MIN_BLOCK_ROWS` rows, fixed by the number of rows only; the blocks run on the
cores (:func:`discotree.threads.map_on_cores`) and their sums are added in block order,
so the result is the same to the bit on any number of cores.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise
from typing import Any

import numba
import numpy as np
from numpy.typing import NDArray

from ..missing_values import is_missing_code
from ..threads import map_on_cores

__all__ = [
    "MAX_BLOCKS",
    "MIN_BLOCK_ROWS",
    "SCORE_BLOCK_BYTES",
    "add_inputs",
    "cache_rows",
    "checked_arrays",
    "logistic_loss_gradient",
    "logistic_scores",
    "on_row_blocks",
    "pair_slot_rows",
    "row_blocks",
    "softmax_residuals",
    "summed_in_block_order",
]

#: The most blocks the rows are split into (each holds a gradient of its own).
MAX_BLOCKS = 8
#: The fewest rows of a block: below, the threads cost more than they save.
MIN_BLOCK_ROWS = 2048


#: The bytes of a row block's scores (rows x classes): small enough to stay in the
#: first-level cache while every input column adds to them.
SCORE_BLOCK_BYTES = 16_384


@numba.njit(cache=True, nogil=True)
def pair_slot_rows(by_feature, pairs, second_levels, offsets, out):  # pragma: no cover - numba
    """``out[p, i] = offsets[p] + by_feature[pairs[p, 0], i] * second_levels[p] +
    by_feature[pairs[p, 1], i]``, the input slot of pair ``p``'s joint cell in row ``i``
    (codes by feature: ``by_feature[j, i]``), -1 where either code is missing.

    Examples
    --------
    >>> out = np.empty((1, 2), dtype=np.int32)
    >>> i = lambda *v: np.array(v, dtype=np.intp)
    >>> pair_slot_rows(i(2, 0, 1, -1).reshape(2, 2), i(0, 1).reshape(1, 2), i(2), i(10), out)
    >>> out.tolist()
    [[15, -1]]
    """
    for p in range(pairs.shape[0]):
        first, second = pairs[p, 0], pairs[p, 1]
        radix, offset = second_levels[p], offsets[p]
        for i in range(by_feature.shape[1]):
            a, b = by_feature[first, i], by_feature[second, i]
            if is_missing_code(a) or is_missing_code(b):
                out[p, i] = -1
            else:
                out[p, i] = offset + a * radix + b


def cache_rows(n_classes: int) -> int:
    """The rows of a cache block: :data:`SCORE_BLOCK_BYTES` of scores, at least 32 rows.

    Examples
    --------
    >>> cache_rows(2), cache_rows(10)
    (1024, 204)
    """
    return max(32, SCORE_BLOCK_BYTES // (8 * max(int(n_classes), 1)))


@numba.njit(cache=True, nogil=True, inline="always")
def add_inputs(
    slots, numeric, numeric_inputs, start, stop, source, target, forward
):  # pragma: no cover - numba
    """Compiled, inlined: the inputs of the rows ``start..stop``, one input column at
    a time (the column's few weights stay in cache while the rows stream by).
    ``forward``: ``target[i]`` (a row's scores) ``+= source[k]`` (an input's
    coefficients) at each input ``k`` of row ``start + i``, every row adding its inputs
    in input order; else ``target[k]`` (an input's gradient) ``+= source[i]`` (a row's
    residuals), every input taking its rows in row order."""
    n_classes = source.shape[1]
    for s in range(slots.shape[0]):
        column = slots[s]
        for i in range(stop - start):
            k = column[start + i]
            if k >= 0:
                if forward:
                    for c in range(n_classes):
                        target[i, c] += source[k, c]
                else:
                    for c in range(n_classes):
                        target[k, c] += source[i, c]
    for q in range(numeric.shape[0]):
        column = numeric[q]
        at = numeric_inputs[q]
        for i in range(stop - start):
            x = column[start + i]
            if x != 0.0:
                if forward:
                    for c in range(n_classes):
                        target[i, c] += source[at, c] * x
                else:
                    for c in range(n_classes):
                        target[at, c] += source[i, c] * x


@numba.njit(cache=True, nogil=True)
def _add_block_scores(
    slots, numeric, numeric_inputs, coef, intercept, start, stop, out
):  # pragma: no cover - numba
    # out: (stop - start, classes) scores of the rows start..stop
    for i in range(stop - start):
        for c in range(intercept.shape[0]):
            out[i, c] = intercept[c]
    add_inputs(slots, numeric, numeric_inputs, start, stop, coef, out, True)


@numba.njit(cache=True, nogil=True)
def _add_scores(
    slots, numeric, numeric_inputs, coef, intercept, start, stop, out, block_rows
):  # pragma: no cover - numba
    # out: the rows start..stop's (rows, classes) scores, by cache blocks of rows
    for first in range(start, stop, block_rows):
        last = min(first + block_rows, stop)
        _add_block_scores(
            slots,
            numeric,
            numeric_inputs,
            coef,
            intercept,
            first,
            last,
            out[first - start : last - start],
        )


@numba.njit(cache=True, nogil=True)
def _add_block_gradient(
    slots, numeric, numeric_inputs, residual, start, stop, grad
):  # pragma: no cover - numba
    # grad += the residuals of the rows start..stop at each of their inputs
    add_inputs(slots, numeric, numeric_inputs, start, stop, residual, grad, False)


@numba.njit(cache=True, nogil=True, inline="always")
def softmax_residuals(block, class_index, scale, first, grad_intercept, loss):
    # pragma: no cover - numba
    """Compiled, inlined: ``block``'s scores (the rows from ``first`` on) replaced by
    the residuals ``w (P(c | x) - [c = y])``, their sums added to ``grad_intercept``;
    returns ``loss`` with the rows' ``-w log P(y | x)`` subtracted in row order."""
    n_classes = block.shape[1]
    for i in range(block.shape[0]):
        top = block[i, 0]
        for c in range(1, n_classes):
            top = max(top, block[i, c])
        y = class_index[first + i]
        w = scale[first + i]
        own = block[i, y] - top  # (logs: no underflow to log 0)
        total = 0.0
        for c in range(n_classes):
            block[i, c] = np.exp(block[i, c] - top)
            total += block[i, c]
        loss -= w * (own - np.log(total))
        factor = w / total
        for c in range(n_classes):
            block[i, c] *= factor
            grad_intercept[c] += block[i, c]
        block[i, y] -= w
        grad_intercept[y] -= w
    return loss


@numba.njit(cache=True, nogil=True)
def _block_loss_gradient(
    slots,
    numeric,
    numeric_inputs,
    class_index,
    scale,
    coef,
    intercept,
    start,
    stop,
    grad,
    grad_intercept,
    block_rows,
):  # pragma: no cover - numba
    # the rows start..stop by cache blocks of block_rows: scores, softmax residuals
    # w (P(c | x) - [c = y]), then their sums at the inputs
    n_classes = intercept.shape[0]
    residual = np.empty((min(block_rows, stop - start), n_classes))
    loss = 0.0
    for first in range(start, stop, block_rows):
        last = min(first + block_rows, stop)
        block = residual[: last - first]
        _add_block_scores(slots, numeric, numeric_inputs, coef, intercept, first, last, block)
        loss = softmax_residuals(block, class_index, scale, first, grad_intercept, loss)
        _add_block_gradient(slots, numeric, numeric_inputs, block, first, last, grad)
    return loss


def row_blocks(n_rows: int) -> list[tuple[int, int]]:
    """The blocks of rows the kernels split their work into: as many as the rows allow
    with at least :data:`MIN_BLOCK_ROWS` each, at most :data:`MAX_BLOCKS`, of nearly
    equal sizes (a function of ``n_rows`` only).

    Examples
    --------
    >>> row_blocks(10)
    [(0, 10)]
    >>> row_blocks(5000)
    [(0, 2500), (2500, 5000)]
    """
    n_blocks = max(1, min(MAX_BLOCKS, n_rows // MIN_BLOCK_ROWS))
    bounds = np.linspace(0, n_rows, n_blocks + 1).astype(np.intp).tolist()
    return list(pairwise(bounds))


def on_row_blocks(run: Callable[[tuple[int, int]], Any], n_rows: int) -> list[Any]:
    """``run`` on every block of :func:`row_blocks`, on the cores when there are several."""
    blocks = row_blocks(n_rows)
    return [run(blocks[0])] if len(blocks) == 1 else map_on_cores(run, blocks)


def summed_in_block_order(parts: list[tuple[Any, ...]]) -> list[Any]:
    """The blocks' results (:func:`on_row_blocks`) added item by item in block order,
    the first block's arrays in place: the same bits on any number of cores.

    Examples
    --------
    >>> summed_in_block_order([(1.0, np.ones(2)), (2.0, np.ones(2))])
    [3.0, array([2., 2.])]
    """
    total = list(parts[0])
    for part in parts[1:]:
        for i, value in enumerate(part):
            total[i] += value
    return total


def checked_arrays(slots, numeric, numeric_inputs, coef, intercept) -> tuple[NDArray, ...]:
    """The kernels' arguments as the compiled code reads them: contiguous, slots int32,
    ``numeric`` (numeric inputs, rows) even when empty.

    Examples
    --------
    >>> checked_arrays(np.zeros((1, 3)), np.zeros(0), [], np.zeros((2, 2)), np.zeros(2))[1].shape
    (0, 3)
    """
    slots = np.ascontiguousarray(slots, dtype=np.int32)
    return (
        slots,
        np.ascontiguousarray(numeric, dtype=np.float64).reshape(-1, slots.shape[1]),
        np.ascontiguousarray(numeric_inputs, dtype=np.intp),
        np.ascontiguousarray(coef, dtype=np.float64),
        np.ascontiguousarray(intercept, dtype=np.float64),
    )


def logistic_scores(
    slots: NDArray[np.integer],
    numeric: NDArray[np.float64],
    numeric_inputs: NDArray[np.intp],
    coef: NDArray[np.float64],
    intercept: NDArray[np.float64],
) -> NDArray[np.float64]:
    """Every row's scores ``intercept + inputs @ coef``, shape (rows, classes).

    Parameters
    ----------
    slots : ndarray of shape (n_slots, n_rows), int32
        Each row's one-hot inputs (-1: none), by slot.
    numeric : ndarray of shape (n_numeric, n_rows)
        Each row's value of every numeric input (0 where missing), by input.
    numeric_inputs : ndarray of shape (n_numeric,)
        The input (row of ``coef``) of each numeric column.
    coef : ndarray of shape (n_inputs, n_classes)
    intercept : ndarray of shape (n_classes,)

    Examples
    --------
    >>> slots = np.array([[0, 1], [2, -1]], dtype=np.int32)  # 2 slots, 2 rows
    >>> coef = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5], [2.0, -2.0]])
    >>> logistic_scores(slots, np.array([[1.0, 0.0]]), np.array([3]), coef, np.zeros(2))
    array([[ 3.5, -1.5],
           [ 0. ,  1. ]])
    """
    slots, numeric, numeric_inputs, coef, intercept = checked_arrays(
        slots, numeric, numeric_inputs, coef, intercept
    )
    out = np.empty((slots.shape[1], coef.shape[1]))

    def run(block: tuple[int, int]) -> None:
        start, stop = block
        _add_scores(
            slots,
            numeric,
            numeric_inputs,
            coef,
            intercept,
            start,
            stop,
            out[start:stop],
            cache_rows(coef.shape[1]),
        )

    on_row_blocks(run, slots.shape[1])
    return out


def logistic_loss_gradient(
    slots: NDArray[np.integer],
    numeric: NDArray[np.float64],
    numeric_inputs: NDArray[np.intp],
    class_index: NDArray[np.intp],
    scale: NDArray[np.float64],
    coef: NDArray[np.float64],
    intercept: NDArray[np.float64],
) -> tuple[float, NDArray[np.float64], NDArray[np.float64]]:
    """The scaled log-loss ``-sum_i scale_i log P(y_i | x_i)`` and its gradient with
    respect to ``coef`` and ``intercept`` (see the module; the arguments as
    :func:`logistic_scores`'s, ``class_index`` each row's class and ``scale`` its
    factor).

    Examples
    --------
    >>> slots = np.array([[0, 1]], dtype=np.int32)
    >>> loss, grad, grad_intercept = logistic_loss_gradient(
    ...     slots, np.zeros((0, 2)), np.zeros(0, dtype=np.intp), np.array([0, 1]),
    ...     np.full(2, 0.5), np.zeros((2, 2)), np.zeros(2))
    >>> round(loss, 4), grad.tolist(), grad_intercept.tolist()
    (0.6931, [[-0.25, 0.25], [0.25, -0.25]], [0.0, 0.0])
    """
    slots, numeric, numeric_inputs, coef, intercept = checked_arrays(
        slots, numeric, numeric_inputs, coef, intercept
    )
    class_index = np.ascontiguousarray(class_index, dtype=np.intp)
    scale = np.ascontiguousarray(scale, dtype=np.float64)

    def run(block: tuple[int, int]) -> tuple[float, NDArray[np.float64], NDArray[np.float64]]:
        grad = np.zeros_like(coef)
        grad_intercept = np.zeros_like(intercept)
        loss = _block_loss_gradient(
            slots,
            numeric,
            numeric_inputs,
            class_index,
            scale,
            coef,
            intercept,
            block[0],
            block[1],
            grad,
            grad_intercept,
            cache_rows(coef.shape[1]),
        )
        return loss, grad, grad_intercept

    loss, grad, grad_intercept = summed_in_block_order(on_row_blocks(run, slots.shape[1]))
    return float(loss), grad, grad_intercept
