"""The logistic model's loss and gradient from groups of one-hot slots: each row's
inputs of several neighbouring slots read as one code of their joint values, and each
group's scores taken from a table of every code, built once per evaluation.

A row's one-hot inputs (:mod:`discotree.kernels.logistic`: each slot a row of input
indices, -1 none) take few values per slot: 2 for a binary column, 4 for a pair of
binary columns. Slots are grouped in order while the product of their numbers of values
(one more where a slot has a missing value: its digit 0) stays within
:func:`largest_group`; a row's code in a group is the mixed-radix number of its digits.
An evaluation builds each group's table of the scores a code adds (the sum of its
slots' coefficients, slots in order), reads one entry per row and group instead of one
per slot, and takes the gradient back the same way: each code's residuals summed over
the rows (in order), then added at its slots' inputs. On binarised images (6 binary
columns a group) an evaluation costs about a seventh of the slot by slot kernel's; where
every slot has many values (pairs of 16 cells) the groups are single slots and it costs
the same.

The same blocks of rows, threads and numeric inputs as
:func:`~discotree.kernels.logistic.logistic_loss_gradient`, so the result is the same
to the bit on any number of cores; it differs from the slot by slot kernel only by
rounding (a row's scores add its groups' sums; both are tested against the design
matrix).
"""

from __future__ import annotations

from itertools import pairwise
from typing import NamedTuple

import numba
import numpy as np
from numpy.typing import NDArray

from .logistic import (
    add_inputs,
    cache_rows,
    checked_arrays,
    on_row_blocks,
    softmax_residuals,
    summed_in_block_order,
)

__all__ = [
    "MAX_GROUP_CODES",
    "ROWS_PER_CODE",
    "SlotColumns",
    "SlotGroups",
    "code_inputs",
    "group_columns",
    "group_slots",
    "grouped_loss_gradient",
    "grouped_ranges",
    "largest_group",
]

#: The most codes (joint values) of one group of slots (:func:`group_slots`): a
#: group's table (64 codes x 10 classes: 5 KiB) stays in the first-level cache while
#: the rows read it. Measured (one core, 15,000 rows x 717 binary columns, 10 classes:
#: 250 ms an evaluation ungrouped): 8 codes 60-70 ms, 16 46-58, 32 33-39, 64 30-36, 128
#: 41-45, 256 46-48; on optdigits' pair member (pairs of 16 cells) no size gains.
MAX_GROUP_CODES = 64
#: A group has at most one code per this many rows: its table (built and taken back at
#: every evaluation, for every block) then costs little beside the rows' reads it saves.
ROWS_PER_CODE = 8


def largest_group(n_rows: int) -> int:
    """The most codes of a group of slots for ``n_rows`` rows: :data:`MAX_GROUP_CODES`,
    at most one per :data:`ROWS_PER_CODE` rows.

    Examples
    --------
    >>> largest_group(100_000), largest_group(400), largest_group(3)
    (64, 50, 0)
    """
    return min(MAX_GROUP_CODES, int(n_rows) // ROWS_PER_CODE)


class SlotGroups(NamedTuple):
    """Slots grouped (:func:`group_slots`): ``codes`` (groups, rows) int32, each row's
    code in each group; ``column_start`` (groups + 1,), the slots of group ``g`` being
    ``column_start[g]:column_start[g + 1]``; per slot its ``low`` (least input),
    ``radix`` (number of digits) and ``stride`` (its digit's place in the code), and
    ``missing``, whether its digit 0 stands for no input; ``table_start`` (groups + 1,),
    where each group's codes start in the tables."""

    codes: NDArray[np.int32]
    column_start: NDArray[np.int64]
    low: NDArray[np.int64]
    radix: NDArray[np.int64]
    stride: NDArray[np.int64]
    missing: NDArray[np.int64]
    table_start: NDArray[np.int64]

    @property
    def several(self) -> bool:
        """Whether some group reads several slots: else reading the slots one by one
        (:func:`~discotree.kernels.logistic.logistic_loss_gradient`) costs the same and
        compiles nothing more."""
        return len(self.column_start) - 1 < len(self.low)

    def layout(self) -> tuple[NDArray[np.int64], ...]:
        """What the compiled kernels read, the codes aside."""
        return (
            self.column_start,
            self.low,
            self.radix,
            self.stride,
            self.missing,
            self.table_start,
        )


def _slot_ranges(slots: NDArray[np.integer]) -> tuple[NDArray[np.int64], ...]:
    """Each slot's least and largest input (0 and -1 with none) and whether it has a
    missing value (1) or not (0)."""
    present = slots >= 0
    some = present.any(axis=1)
    big = np.iinfo(np.int32).max
    low = np.where(some, np.where(present, slots, big).min(axis=1, initial=big), 0)
    high = np.where(some, slots.max(axis=1, initial=-1), -1)
    missing = (~present).any(axis=1)
    return (
        np.asarray(low, dtype=np.int64),
        np.asarray(high, dtype=np.int64),
        np.asarray(missing, dtype=np.int64),
    )


def _fill_codes(slots: NDArray[np.integer], groups: SlotGroups) -> None:
    """Each row's code in each group, a slot at a time."""
    starts = groups.column_start.tolist()
    for g, (a, b) in enumerate(pairwise(starts)):
        code = groups.codes[g]
        code[:] = 0
        for s in range(a, b):
            digit = slots[s].astype(np.int32) - (groups.low[s] - groups.missing[s])
            code += np.where(slots[s] >= 0, digit * groups.stride[s], 0).astype(np.int32)


def grouped_ranges(
    low: NDArray[np.int64], high: NDArray[np.int64], missing: NDArray[np.int64], n_rows: int
) -> SlotGroups:
    """The groups of slots whose inputs run from ``low`` to ``high`` (-1 below ``low``:
    none) and which have a missing value where ``missing`` is 1, for ``n_rows`` rows
    (:func:`group_slots`'s rule), their codes not yet filled.

    Examples
    --------
    >>> groups = grouped_ranges(np.array([0, 2, 4]), np.array([1, 3, 6]),
    ...     np.array([0, 0, 1]), 32)
    >>> groups.column_start.tolist(), groups.stride.tolist(), groups.codes.shape
    ([0, 2, 3], [1, 2, 1], (2, 32))
    """
    n_slots = len(low)
    radix = np.maximum(high - low + 1, 0) + missing
    radix = np.maximum(radix, 1)  # (a slot with no input at all: one digit, 0)
    largest = largest_group(n_rows)
    starts, stride, size = [0], np.ones(n_slots, dtype=np.int64), 1
    for s in range(n_slots):
        if s > starts[-1] and size * int(radix[s]) > largest:
            starts.append(s)
            size = 1
        stride[s] = size
        size *= int(radix[s])
    column_start = np.asarray([*starts, n_slots] if n_slots else [0], dtype=np.int64)
    sizes = [int(np.prod(radix[a:b])) for a, b in pairwise(column_start.tolist())]
    table_start = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    return SlotGroups(
        np.empty((len(sizes), int(n_rows)), dtype=np.int32),
        column_start,
        np.asarray(low, dtype=np.int64),
        radix.astype(np.int64),
        stride,
        np.asarray(missing, dtype=np.int64),
        table_start,
    )


def group_slots(slots: NDArray[np.integer]) -> SlotGroups:
    """The slots (the rows' one-hot inputs, see the module) grouped in order, a group
    growing while the product of its slots' numbers of digits (the inputs a slot reads,
    one more where it has a missing value: digit 0) stays within :func:`largest_group`
    of the rows; each row's code in a group is the mixed-radix number of its digits.

    Examples
    --------
    >>> slots = np.array([[0, 1, 1, 0] * 8, [2, 2, 3, 3] * 8, [4, -1, 5, 6] * 8])  # 32 rows
    >>> groups = group_slots(slots)
    >>> groups.column_start.tolist(), groups.radix.tolist(), groups.codes[:, :4].tolist()
    ([0, 2, 3], [2, 2, 4], [[0, 1, 3, 2], [1, 0, 2, 3]])
    """
    slots = np.ascontiguousarray(slots, dtype=np.int32)
    low, high, missing = _slot_ranges(slots)
    groups = grouped_ranges(low, high, missing, slots.shape[1])
    _fill_codes(slots, groups)
    return groups


class SlotColumns(NamedTuple):
    """Where each slot's inputs come from in the rows' codes (rows, columns): a one-hot
    slot reads column ``first[s]`` (``second[s]`` -1), its input ``offset[s]`` plus the
    code; a pair slot reads columns ``first[s]`` and ``second[s]``, its input
    ``offset[s] + levels[first, a] * width[s] + levels[second, b]`` for codes ``a`` and
    ``b``; ``size[s]`` the slot's number of inputs; ``levels`` (columns, categories) each
    column's level of each category. A negative code is missing: no input."""

    first: NDArray[np.int64]
    second: NDArray[np.int64]
    offset: NDArray[np.int64]
    width: NDArray[np.int64]
    size: NDArray[np.int64]
    levels: NDArray[np.int64]


@numba.njit(cache=True, nogil=True)
def _fill_codes_from_columns(by_column, columns, layout, out):  # pragma: no cover - numba
    # each row's code in each group, its slots' inputs read from the codes (by column:
    # shape (columns, rows)), a slot at a time over the rows
    first, second, offset, width, _, levels = columns
    column_start, low, _, stride, missing, _ = layout
    n_rows = by_column.shape[1]
    for g in range(column_start.shape[0] - 1):
        code = out[g]
        code[:] = 0
        for s in range(column_start[g], column_start[g + 1]):
            a_column, place = by_column[first[s]], stride[s]
            base = offset[s] - low[s] + missing[s]
            if second[s] < 0:
                for r in range(n_rows):
                    a = a_column[r]
                    if a >= 0:
                        code[r] += (base + a) * place
                continue
            b_column, a_levels, b_levels = by_column[second[s]], levels[first[s]], levels[second[s]]
            for r in range(n_rows):
                a, b = a_column[r], b_column[r]
                if a >= 0 and b >= 0:
                    code[r] += (base + a_levels[a] * width[s] + b_levels[b]) * place


def group_columns(codes: NDArray[np.integer], columns: SlotColumns) -> SlotGroups:
    """The groups of :func:`group_slots` for the slots ``columns`` reads from the rows'
    ``codes``, without the slots: each slot's inputs its whole range (``offset`` to
    ``offset + size - 1``), a missing digit where one of its columns has a missing value
    in these rows; the codes filled from the columns directly (compiled, one pass over
    the rows).

    Examples
    --------
    >>> codes = np.array([[0, 1], [1, 0], [1, -1], [0, 0]] * 16)  # 64 rows, 2 columns
    >>> columns = SlotColumns(np.array([0, 1]), np.array([-1, -1]), np.array([0, 2]),
    ...     np.array([1, 1]), np.array([2, 2]), np.array([[0, 1], [0, 1]]))
    >>> group_columns(codes, columns).codes[:, :4].tolist()
    [[4, 3, 1, 2]]
    """
    by_column = np.ascontiguousarray(np.asarray(codes).T)
    missing_columns: NDArray[np.bool_] = np.asarray((by_column < 0).any(axis=1))
    missing = missing_columns[columns.first] | (
        (columns.second >= 0) & missing_columns[np.maximum(columns.second, 0)]
    )
    groups = grouped_ranges(
        columns.offset, columns.offset + columns.size - 1, missing.astype(np.int64), len(codes)
    )
    _fill_codes_from_columns(by_column, tuple(columns), groups.layout(), groups.codes)
    return groups


@numba.njit(cache=True, nogil=True, inline="always")
def _digit_input(low, missing, s, digit):  # pragma: no cover - numba
    # the input slot s reads at ``digit`` (-1: none)
    return -1 if missing[s] == 1 and digit == 0 else low[s] + digit - missing[s]


def code_inputs(groups: SlotGroups, group: int, code: int) -> list[int]:
    """The input each slot of ``group`` reads in ``code`` (-1: none), slots in order.

    Examples
    --------
    >>> groups = group_slots(np.array([[0, 1] * 16, [2, -1] * 16], dtype=np.int32))
    >>> [code_inputs(groups, 0, int(code)) for code in groups.codes[0, :2]]
    [[0, 2], [1, -1]]
    """
    a, b = int(groups.column_start[group]), int(groups.column_start[group + 1])
    return [
        int(
            _digit_input.py_func(
                groups.low, groups.missing, s, (code // groups.stride[s]) % groups.radix[s]
            )
        )
        for s in range(a, b)
    ]


@numba.njit(cache=True, nogil=True)
def _group_tables(layout, coef, tables):  # pragma: no cover - numba
    # every code's scores: the coefficients of its slots' inputs added slots in order,
    # one slot at a time (the codes of the slots so far, then each digit of the next)
    column_start, low, radix, _, missing, table_start = layout
    n_classes = coef.shape[1]
    for g in range(table_start.shape[0] - 1):
        base = table_start[g]
        tables[base, :] = 0.0
        size = 1
        for s in range(column_start[g], column_start[g + 1]):
            for digit in range(radix[s] - 1, -1, -1):  # (digit 0 last: it reads the others)
                k = _digit_input(low, missing, s, digit)
                for code in range(size):
                    to = base + digit * size + code
                    for c in range(n_classes):
                        tables[to, c] = tables[base + code, c] + (coef[k, c] if k >= 0 else 0.0)
            size *= radix[s]


@numba.njit(cache=True, nogil=True)
def _ungroup(layout, sums, grad):  # pragma: no cover - numba
    # each code's summed residuals (``sums``, overwritten) added at its slots' inputs:
    # the last slot's digits first, their sums over the slots before folded into digit
    # 0's codes, then the slot before, and so on
    column_start, low, radix, stride, missing, table_start = layout
    n_classes = grad.shape[1]
    for g in range(table_start.shape[0] - 1):
        base = table_start[g]
        for s in range(column_start[g + 1] - 1, column_start[g] - 1, -1):
            size = stride[s]
            for digit in range(radix[s]):
                k = _digit_input(low, missing, s, digit)
                for code in range(size):
                    at = base + digit * size + code
                    if k >= 0:
                        for c in range(n_classes):
                            grad[k, c] += sums[at, c]
                    if digit > 0:
                        for c in range(n_classes):
                            sums[base + code, c] += sums[at, c]


@numba.njit(cache=True, nogil=True)
def _grouped_block_loss_gradient(
    codes, layout, tables, rows, parameters, span, outputs, block_rows
):  # pragma: no cover - numba
    # the rows span = (start, stop) by cache blocks: scores from the tables (then the
    # numeric inputs), softmax residuals, each code's summed residuals into ``sums`` and
    # the numeric inputs' into ``grad``; rows = (numeric, numeric_inputs, class_index,
    # scale), parameters = (coef, intercept), outputs = (sums, grad, grad_intercept)
    numeric, numeric_inputs, class_index, scale = rows
    coef, intercept = parameters
    start, stop = span
    sums, grad, grad_intercept = outputs
    table_start = layout[5]
    n_classes = intercept.shape[0]
    residual = np.empty((min(block_rows, stop - start), n_classes))
    no_slots = codes[:0]
    loss = 0.0
    for first in range(start, stop, block_rows):
        last = min(first + block_rows, stop)
        block = residual[: last - first]
        for i in range(last - first):
            for c in range(n_classes):
                block[i, c] = intercept[c]
        for g in range(codes.shape[0]):
            column, base = codes[g], table_start[g]
            for i in range(last - first):
                row = base + column[first + i]
                for c in range(n_classes):
                    block[i, c] += tables[row, c]
        add_inputs(no_slots, numeric, numeric_inputs, first, last, coef, block, True)
        loss = softmax_residuals(block, class_index, scale, first, grad_intercept, loss)
        for g in range(codes.shape[0]):
            column, base = codes[g], table_start[g]
            for i in range(last - first):
                row = base + column[first + i]
                for c in range(n_classes):
                    sums[row, c] += block[i, c]
        add_inputs(no_slots, numeric, numeric_inputs, first, last, block, grad, False)
    return loss


def grouped_loss_gradient(
    groups: SlotGroups,
    numeric: NDArray[np.float64],
    numeric_inputs: NDArray[np.intp],
    class_index: NDArray[np.intp],
    scale: NDArray[np.float64],
    coef: NDArray[np.float64],
    intercept: NDArray[np.float64],
) -> tuple[float, NDArray[np.float64], NDArray[np.float64]]:
    """:func:`logistic_loss_gradient` of the rows whose slots ``groups`` holds
    (:func:`group_slots`): each group's table of scores built once, one entry read per
    row and group, each code's residuals summed then added at its slots' inputs; the
    same blocks of rows, so the same bits on any number of cores; equal to the ungrouped
    kernel up to rounding.

    Examples
    --------
    >>> groups = group_slots(np.array([[0, 1] * 16, [2, 3] * 16], dtype=np.int32))
    >>> loss, grad, grad_intercept = grouped_loss_gradient(
    ...     groups, np.zeros((0, 32)), np.zeros(0, dtype=np.intp), np.array([0, 1] * 16),
    ...     np.full(32, 1 / 32), np.zeros((4, 2)), np.zeros(2))
    >>> round(loss, 4), grad.tolist()[0], grad_intercept.tolist()
    (0.6931, [-0.25, 0.25], [0.0, 0.0])
    """
    codes = groups.codes
    _, numeric, numeric_inputs, coef, intercept = checked_arrays(
        codes[:0], numeric, numeric_inputs, coef, intercept
    )
    class_index = np.ascontiguousarray(class_index, dtype=np.intp)
    scale = np.ascontiguousarray(scale, dtype=np.float64)
    layout = groups.layout()
    n_codes = int(groups.table_start[-1])
    tables = np.empty((n_codes, coef.shape[1]))
    _group_tables(layout, coef, tables)

    def run(
        block: tuple[int, int],
    ) -> tuple[float, NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        grad = np.zeros_like(coef)
        grad_intercept = np.zeros_like(intercept)
        sums = np.zeros((n_codes, coef.shape[1]))
        loss = _grouped_block_loss_gradient(
            codes,
            layout,
            tables,
            (numeric, numeric_inputs, class_index, scale),
            (coef, intercept),
            (block[0], block[1]),
            (sums, grad, grad_intercept),
            cache_rows(coef.shape[1]),
        )
        return loss, grad, grad_intercept, sums

    loss, grad, grad_intercept, sums = summed_in_block_order(on_row_blocks(run, codes.shape[1]))
    _ungroup(layout, sums, grad)
    return float(loss), grad, grad_intercept
