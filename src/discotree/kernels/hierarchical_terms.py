"""One node's leave-one-out terms under hierarchical smoothing, every level at once: the
inner loop of selective kDB's third pass (Martinez, Webb, Chen & Zaidi 2016, Section 3)
with the back-off estimates of :mod:`discotree.stats.hierarchical` (after Petitjean,
Buntine, Webb & Zaidi 2018, Section 3).

For each row and level ``L`` (the first ``L`` ranked parents) the kernel looks the
row's configuration up in the level's sparse table (sorted cell ids, as
:func:`discotree.kernels.sparse_families.sparse_cell_lookup`), takes the row's own unit
of weight out of its class, optionally chooses the level's concentration (the one of
the grid of largest leave-one-out log-likelihood of the rows' own classes, the first on
ties; the rows with no other weight under their configuration and class add the same
to every concentration's score, and are left out of it) and adds the level's back-off
step to every class's probability (or, beyond :data:`LINEAR_WEIGHT`, its logarithm). It
computes, in one compiled call per level (the level above's back-off step, the counts,
the choice's ratios: once per cell and back-off estimate on a level read densely) and
without intermediate arrays, what :func:`discotree.stats.hierarchical.level_counts`,
``LevelCounts.without``, :func:`~discotree.stats.hierarchical.choose_concentrations`
and :func:`~discotree.stats.hierarchical.backoff_log_probabilities` compute one array
operation at a time (the reference its tests compare it with).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numba
import numpy as np
from numpy.typing import NDArray

from ..missing_values import is_missing_code, is_observed_code
from .backoff_scoring import log_add_exp as _log_add_exp
from .sparse_families import first_at_least

__all__ = ["DENSE_CELLS", "DENSE_ROWS_FACTOR", "LINEAR_WEIGHT", "hierarchical_level_terms"]

#: Up to this total weight, the back-off runs on probabilities (one logarithm per row,
#: class and level); beyond, on their logarithms (a product of many levels of
#: ``b / (t + b)`` with counts near 1e200 underflows to 0 as a probability, not as a
#: logarithm). With at most this weight, every level's step is at least
#: ``b / (t + b) > 1e-13``, and twenty levels stay above 1e-260.
LINEAR_WEIGHT = 1e12


class _Rows(NamedTuple):
    """The rows as the kernels read them: the node's codes, the ranked parents' codes
    and their numbers of categories, each row's class and the unit it leaves out."""

    values: NDArray[np.integer]
    parent_codes: NDArray[np.integer]
    radices: NDArray[np.integer]
    class_index: NDArray[np.integer]
    unit: NDArray[np.float64]


class _Scratch(NamedTuple):
    """Each row's state from level to level: its configuration id, whether it still
    observes every parent so far and the node (``here``), its leave-one-out counts and
    totals per class at the level, its back-off estimate per class (logarithms and
    probabilities) and of its own class."""

    ids: NDArray[np.int64]
    still: NDArray[np.bool_]
    here: NDArray[np.bool_]
    counts: NDArray[np.float64]
    totals: NDArray[np.float64]
    log_p: NDArray[np.float64]
    p_linear: NDArray[np.float64]
    own: NDArray[np.float64]


@numba.njit(cache=True, nogil=True)
def _level_counts(
    level, rows, cells, masses, level_start, r, alpha, scratch, dense_counts, dense_totals
):  # pragma: no cover - numba
    # the rows' configurations at this level, their counts with each row's unit out of
    # its class, and at level 0 the node's marginal (the back-off's start); read from
    # the dense table when it is given (non-empty), else by binary search
    values, parent_codes, radices, class_index, unit = rows
    ids, still, here, counts, totals, log_p, p_linear, own = scratch
    n_rows, n_classes = counts.shape
    low, high = level_start[level], level_start[level + 1]
    width = n_classes * r
    dense = dense_totals.shape[0] > 0
    root_total = 0.0
    # level 0: the back-off's start of each (value, unit), computed once (the same
    # counts, the same bits); slot r: the rows not counted (whatever their unit)
    start_unit = np.full(r + 1 if level == 0 else 0, np.nan)
    start = np.empty((r + 1 if level == 0 else 0, 2))
    if level == 0:
        for j in range(low, high):
            root_total += masses[j]
    for i in range(n_rows):
        if level > 0:
            parent = parent_codes[i, level - 1]
            ids[i] = ids[i] * radices[level - 1] + max(parent, 0)
            still[i] = still[i] and parent >= 0
        here[i] = is_observed_code(values[i]) and still[i]
        for c in range(n_classes):
            counts[i, c] = 0.0
            totals[i, c] = 0.0
        if here[i] and dense:
            cell, configuration = ids[i] * width + values[i], ids[i] * n_classes
            for c in range(n_classes):
                counts[i, c] = dense_counts[cell + c * r]
                totals[i, c] = dense_totals[configuration + c]
        elif here[i]:
            first = ids[i] * width
            j = first_at_least(cells, low, high, first)
            while j < high and cells[j] < first + width:
                rest = cells[j] - first
                c = rest // r
                totals[i, c] += masses[j]
                if rest - c * r == values[i]:
                    counts[i, c] = masses[j]
                j += 1
        if level == 0:
            key, left_out = (values[i], unit[i]) if here[i] else (r, 0.0)
            if start_unit[key] != left_out:  # (NaN: not computed yet)
                _root_start(i, root_total, r, alpha, counts, left_out, start[key])
                start_unit[key] = left_out
            own[i] = start[key, 1]
            for c in range(n_classes):
                log_p[i, c] = start[key, 0]
                p_linear[i, c] = start[key, 1]
        y = class_index[i]
        if here[i]:  # leave-one-out
            counts[i, y] -= unit[i]
            totals[i, y] -= unit[i]
        for c in range(n_classes):
            counts[i, c] = max(counts[i, c], 0.0)
            totals[i, c] = max(totals[i, c], 0.0)


@numba.njit(cache=True, nogil=True, inline="always")
def _root_start(i, root_total, r, alpha, counts, unit, out):  # pragma: no cover - numba
    # level 0: row i's back-off start, the node's marginal with its unit out (0: not
    # counted), its logarithm and probability in out
    count = 0.0
    for c in range(counts.shape[1]):
        count += counts[i, c]
    count, total = max(count - unit, 0.0), max(root_total - unit, 0.0)
    out[0] = np.log(count + alpha) - np.log(total + alpha * r)
    out[1] = (count + alpha) / (total + alpha * r)


#: A level's table is read densely (one array cell per configuration, class and value)
#: when it has at most this many cells, or at most as many as
#: :data:`DENSE_ROWS_FACTOR` times the rows' counts: filling it costs less than the
#: binary searches it saves.
DENSE_CELLS = 1 << 16
#: See :data:`DENSE_CELLS`.
DENSE_ROWS_FACTOR = 4


@numba.njit(cache=True, nogil=True)
def _fill_dense(cells, masses, low, high, r, dense_counts, dense_totals):  # pragma: no cover
    # the level's weights at their cells, and each (configuration, class)'s total over
    # the values in value order (the order the sparse scan adds them in: the same sums)
    dense_counts[:] = 0.0
    for j in range(low, high):
        dense_counts[cells[j]] = masses[j]
    for t in range(dense_totals.shape[0]):
        total = 0.0
        for v in range(r):
            total += dense_counts[t * r + v]
        dense_totals[t] = total


@numba.njit(cache=True, nogil=True)
def _choice_ratios(rows, scratch, choice, group_at, r):  # pragma: no cover - numba
    # each scored row's group (row_group) and each group's (n + b p) / (t + b) for every
    # b of the grid (ratios' rows): the rows with no other weight under their
    # configuration and class give b p / b, the same for every b, and are left out; on
    # a dense level (``group_at`` non-empty, a group per cell) the rows of one cell with
    # the same n, t and p share their cell's group (the same ratios); returns the numbers
    # of rows scored and of groups
    values, class_index = rows.values, rows.class_index
    counts, totals, own, ids = scratch.counts, scratch.totals, scratch.own, scratch.ids
    weights, grid, ratios, chosen_weights, row_group, seen = choice
    n_classes = counts.shape[1]
    group_at[:] = -1
    m = n_groups = 0
    for i in range(values.shape[0]):
        y = class_index[i]
        if is_missing_code(values[i]) or weights[i] == 0.0 or totals[i, y] == 0.0:
            continue
        key = (ids[i] * n_classes + y) * r + values[i] if group_at.shape[0] else -1
        g = group_at[key] if key >= 0 else -1
        if g >= 0 and (seen[g, 0] != counts[i, y] or seen[g, 1] != totals[i, y]):
            g = -1  # (another unit out of the cell: a group of its own)
        if g >= 0 and seen[g, 2] != own[i]:
            g = -1
        if g < 0:
            g, n_groups = n_groups, n_groups + 1
            seen[g, 0], seen[g, 1], seen[g, 2] = counts[i, y], totals[i, y], own[i]
            for k in range(grid.shape[0]):
                b = grid[k]
                ratios[g, k] = max((counts[i, y] + b * own[i]) / (totals[i, y] + b), 1e-300)
            if key >= 0 and group_at[key] < 0:
                group_at[key] = g
        row_group[m], chosen_weights[m] = g, weights[i]
        m += 1
    return m, n_groups


@numba.njit(cache=True, nogil=True)
def _level_step(level, b, choose, linear, rows, scratch, out):  # pragma: no cover - numba
    # one back-off step: out[level] the probabilities (linear) or their logarithms
    values, class_index = rows.values, rows.class_index
    _, _, _, counts, totals, log_p, p_linear, own = scratch
    n_rows, n_classes = counts.shape
    log_b = np.log(b)
    for i in range(n_rows):
        if choose:
            y = class_index[i]
            own[i] = (counts[i, y] + b * own[i]) / (totals[i, y] + b)
        for c in range(n_classes):
            if linear:
                p_linear[i, c] = (counts[i, c] + b * p_linear[i, c]) / (totals[i, c] + b)
                out[level, i, c] = p_linear[i, c] if is_observed_code(values[i]) else 1.0
            else:
                log_count = np.log(counts[i, c]) if counts[i, c] > 0 else -np.inf
                log_p[i, c] = _log_add_exp(log_count, log_b + log_p[i, c]) - np.log(
                    totals[i, c] + b
                )
                out[level, i, c] = log_p[i, c] if is_observed_code(values[i]) else 0.0


@numba.njit(cache=True, nogil=True)
def _level_pass(level, rows, table, r, alpha, scratch, dense, choice, step):  # pragma: no cover
    # one compiled call per level: the level above's back-off step (``step``: its
    # concentration, whether chosen, whether linear, the terms), the dense table (when
    # ``dense`` is non-empty), the rows' leave-one-out counts and, when choosing
    # (``choice``'s ratios have rows), their ratios (:func:`_choice_ratios`, whose
    # numbers it returns)
    if level > 0:
        b, choose, linear, out = step
        _level_step(level - 1, b, choose, linear, rows, scratch, out)
    cells, masses, level_start = table
    dense_counts, dense_totals, group_at = dense
    if dense_totals.shape[0] > 0:
        low, high = level_start[level], level_start[level + 1]
        _fill_dense(cells, masses, low, high, r, dense_counts, dense_totals)
    _level_counts(
        level, rows, cells, masses, level_start, r, alpha, scratch, dense_counts, dense_totals
    )
    if choice[2].shape[0] == 0:
        return 0, 0
    return _choice_ratios(rows, scratch, choice, group_at, r)


@numba.njit(cache=True, nogil=True)
def _rows_of_groups(group_values, row_group, out):  # pragma: no cover - numba
    # each scored row's group's values (out's first len(row_group) rows)
    for m in range(row_group.shape[0]):
        for k in range(group_values.shape[1]):
            out[m, k] = group_values[row_group[m], k]
    return out[: row_group.shape[0]]


def _dense_sizes(
    cells: NDArray[np.int64],
    level_start: NDArray[np.int64],
    radices: NDArray[np.integer],
    width: int,
    row_cells: int,
) -> list[int]:
    """Each level's dense table size (its configurations times ``width`` cells), 0
    where the level is read sparsely (:data:`DENSE_CELLS`)."""
    configurations = np.concatenate([[1], np.cumprod(radices.astype(np.float64))])
    sizes = []
    for level in range(len(level_start) - 1):
        size = configurations[level] * width
        low, high = level_start[level], level_start[level + 1]
        fits = high == low or cells[high - 1] < size  # (every cell id within the array)
        dense = fits and size <= max(DENSE_CELLS, DENSE_ROWS_FACTOR * row_cells)
        sizes.append(int(size) if dense else 0)
    return sizes


def _choice_buffers(
    weights: NDArray[np.float64], grid: NDArray[np.float64], n_rows: int
) -> tuple[NDArray[Any], ...]:
    """What :func:`_choice_ratios` reads and writes, for ``n_rows`` scored rows (0: no
    choice): the weights, the grid, the groups' ratios, the scored rows' weights and
    groups, and each group's (n, t, p)."""
    return (
        weights,
        grid,
        np.empty((n_rows, len(grid))) if n_rows else np.empty((0, 1)),
        np.empty(n_rows),
        np.empty(n_rows, dtype=np.int64),
        np.empty((n_rows, 3)),
    )


def hierarchical_level_terms(
    values: NDArray[np.integer],
    parent_codes: NDArray[np.integer],
    radices: NDArray[np.integer],
    class_index: NDArray[np.intp],
    unit: NDArray[np.float64],
    *,
    tables: list[tuple[NDArray[np.int64], NDArray[np.float64]]],
    n_classes: int,
    r: int,
    alpha: float,
    concentrations: NDArray[np.float64] | None = None,
    weights: NDArray[np.float64] | None = None,
    grid: tuple[float, ...] = (),
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Every row's leave-one-out ``log P_L(x | c, first L parents)`` for L = 0..K (0
    where the node is missing; a row observing fewer leading parents keeps the shorter
    prefix's estimate) and the levels' concentrations.

    Parameters
    ----------
    values : ndarray of shape (n_rows,)
        The node's codes (-1: missing).
    parent_codes : ndarray of shape (n_rows, K)
        The ranked parents' codes, in rank order.
    radices : ndarray of shape (K,)
        The parents' numbers of categories.
    class_index, unit : ndarray of shape (n_rows,)
        Each row's class and the weight it leaves out.
    tables : list of K + 1 (cells, masses)
        Each level's sparse table: sorted ids ``(configuration * n_classes + class) * r
        + value`` and their weights.
    n_classes, r : int
    alpha : float
        The marginal's pseudo-count.
    concentrations : ndarray of shape (K + 1,), optional
        Given: used. Else chosen level by level from ``grid`` by the rows' leave-one-out
        log-likelihood weighted by ``weights``.

    Returns
    -------
    terms : ndarray of shape (K + 1, n_rows, n_classes)
    concentrations : ndarray of shape (K + 1,)

    Examples
    --------
    >>> cells = np.array([0, 1, 3])  # class 0: value 0 (weight 2) and 1; class 1: value 1
    >>> terms, chosen = hierarchical_level_terms(
    ...     np.array([0, 1]), np.zeros((2, 0), dtype=np.int64), np.zeros(0, dtype=np.int64),
    ...     np.array([0, 1]), np.ones(2), tables=[(cells, np.array([2.0, 1.0, 1.0]))],
    ...     n_classes=2, r=2, alpha=1.0, concentrations=np.array([1.0]))
    >>> np.exp(terms[0]).round(3).tolist()  # row 0, class 0: (2 - 1 + 0.4) / (3 - 1 + 1)
    [[0.467, 0.2], [0.35, 0.4]]
    """
    n_levels = len(tables)
    choose = concentrations is None
    chosen = np.zeros(n_levels) if choose else np.array(concentrations, dtype=np.float64)
    sizes = [len(cells) for cells, _ in tables]
    level_start = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    cells = np.concatenate([np.asarray(c, dtype=np.int64) for c, _ in tables])
    masses = np.concatenate([np.asarray(m, dtype=np.float64) for _, m in tables])
    n_rows = len(values)
    values = np.ascontiguousarray(values, dtype=np.int64)
    parent_codes = np.ascontiguousarray(parent_codes, dtype=np.int64).reshape(n_rows, n_levels - 1)
    radices = np.ascontiguousarray(radices, dtype=np.int64)
    class_index = np.ascontiguousarray(class_index, dtype=np.int64)
    unit = np.ascontiguousarray(unit, dtype=np.float64)
    weights = np.ascontiguousarray(
        np.zeros(n_rows) if weights is None else weights, dtype=np.float64
    )
    grid_array = np.asarray(grid if choose else (1.0,), dtype=np.float64)
    linear = bool(masses.sum() <= LINEAR_WEIGHT)
    rows = _Rows(values, parent_codes, radices, class_index, unit)
    scratch = _Scratch(
        np.zeros(n_rows, dtype=np.int64),  # ids
        np.ones(n_rows, dtype=np.bool_),  # still
        np.empty(n_rows, dtype=np.bool_),  # here
        np.empty((n_rows, n_classes)),  # counts
        np.empty((n_rows, n_classes)),  # totals
        np.empty((n_rows, n_classes)),  # log_p
        np.empty((n_rows, n_classes)),  # p_linear
        np.empty(n_rows),  # own
    )
    out = np.empty((n_levels, n_rows, n_classes))
    dense_sizes = _dense_sizes(cells, level_start, radices, n_classes * int(r), n_rows * n_classes)
    buffer = np.empty(max(dense_sizes, default=0))  # (reused from level to level)
    totals_buffer = np.empty(max(dense_sizes, default=0) // int(r))
    group_at = np.empty(max(dense_sizes, default=0) if choose else 0, dtype=np.int64)
    table = (cells, masses, level_start)
    choice = _choice_buffers(weights, grid_array, n_rows if choose else 0)
    _, _, ratios, chosen_weights, row_group, _ = choice
    row_logs = np.empty_like(ratios)
    for level in range(n_levels):
        size = dense_sizes[level]
        dense = (buffer[:size], totals_buffer[: size // int(r)], group_at[:size])
        step = (float(chosen[level - 1]) if level else 0.0, choose, linear, out)
        m, n_groups = _level_pass(
            level, rows, table, int(r), float(alpha), scratch, dense, choice, step
        )
        if choose:
            # the weighted log-likelihood of each b (numpy's vectorised logarithm, of
            # each group's ratios, then each row's: the same numbers row by row); the
            # rows left out add the same to every b
            logs = np.log(ratios[:n_groups])  # (no groups shared: the rows')
            if n_groups < m:
                logs = _rows_of_groups(logs, row_group[:m], row_logs)
            scores = chosen_weights[:m] @ logs if m else np.zeros(len(grid_array))
            chosen[level] = grid_array[int(np.argmax(scores))]  # (ties: the first)
    _level_step(n_levels - 1, float(chosen[-1]), choose, linear, rows, scratch, out)
    if linear:
        np.log(out, out=out)  # (a missing node's 1 becomes its 0)
    return out, chosen
