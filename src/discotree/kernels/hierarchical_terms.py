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

Rows alike (the same node value, class, unit left out, parents' configuration and
number of leading parents observed) get the same counts, terms and ratios at every
level: the levels run on the distinct rows only (:func:`_distinct_rows`), each row
then reading its distinct row's terms, and a concentration's score sums each distinct
row's log-ratio once, times the summed weight of its scored rows (ties within the
package's tolerance, :func:`~discotree.numerics.best_index`: the first).
"""

from __future__ import annotations

from itertools import accumulate
from typing import Any, NamedTuple

import numba
import numpy as np
from numpy.typing import NDArray

from ..missing_values import is_missing_code, is_observed_code
from ..numerics import compiled_best_index
from .backoff_scoring import log_add_exp as _log_add_exp
from .sparse_families import first_at_least

__all__ = [
    "DENSE_CELLS",
    "DENSE_ROWS_FACTOR",
    "LINEAR_WEIGHT",
    "distinct_level_terms",
    "hierarchical_level_terms",
    "rows_of",
]

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
def _choice_ratios(rows, scratch, choice):  # pragma: no cover - numba
    # each scored distinct row's (n + b p) / (t + b) for every b of the grid (ratios'
    # rows, in distinct-row order) and the summed weight of its rows (group_weights):
    # the rows with no other weight under their configuration and class give b p / b,
    # the same for every b, and are left out, as are those of no weight; the rows of
    # one distinct row (:func:`_distinct_rows`: the same n, t and p) are one group;
    # returns the number of groups
    values, class_index = rows.values, rows.class_index
    counts, totals, own = scratch.counts, scratch.totals, scratch.own
    key_weights, grid, ratios, group_weights = choice
    n_groups = 0
    for k in range(values.shape[0]):
        y = class_index[k]
        if is_missing_code(values[k]) or key_weights[k] == 0.0 or totals[k, y] == 0.0:
            continue
        for j in range(grid.shape[0]):
            b = grid[j]
            ratios[n_groups, j] = max((counts[k, y] + b * own[k]) / (totals[k, y] + b), 1e-300)
        group_weights[n_groups] = key_weights[k]
        n_groups += 1
    return n_groups


@numba.njit(cache=True, nogil=True)
def _distinct_rows(values, parent_codes, radices, class_index, unit):  # pragma: no cover
    # the rows the level passes cannot tell apart: the same node value, class and unit,
    # configuration ids (as _level_counts computes them) and number of leading parents
    # observed; returns each row's distinct row (numbered in order of first row) and
    # each distinct row's first row
    n_rows, n_parents = parent_codes.shape
    size = 1
    while size < 2 * n_rows:
        size *= 2
    slots = np.full(size, -1, dtype=np.int64)
    row_key = np.empty(n_rows, dtype=np.int64)
    first = np.empty(n_rows, dtype=np.int64)
    key_ids = np.empty(n_rows, dtype=np.int64)
    key_observed = np.empty(n_rows, dtype=np.int64)
    n_keys = 0
    for i in range(n_rows):
        ids, observed = 0, 0
        for level in range(n_parents):
            parent = parent_codes[i, level]
            ids = ids * radices[level] + max(parent, 0)
            if parent >= 0 and observed == level:
                observed += 1
        h = (ids * 1000003 + observed) * 1000003 + values[i]
        h = (h * 1000003 + class_index[i]) & (size - 1)
        while True:
            k = slots[h]
            if k < 0:
                slots[h] = k = n_keys
                first[k], key_ids[k], key_observed[k] = i, ids, observed
                n_keys += 1
                break
            j = first[k]
            if (
                key_ids[k] == ids
                and key_observed[k] == observed
                and values[j] == values[i]
                and class_index[j] == class_index[i]
                and unit[j] == unit[i]
            ):
                break
            h = (h + 1) & (size - 1)
        row_key[i] = k
    return row_key, first[:n_keys]


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
def _level_passes(rows, table, constants, scratch, dense, choice, chosen, step):
    # pragma: no cover - numba
    # every level in turn: the level above's back-off step, the level's dense table
    # (when it has one), the rows' leave-one-out counts and, when choosing, the groups'
    # ratios (:func:`_choice_ratios`) and the concentration of largest weighted
    # leave-one-out log-likelihood (a sum over the groups, each its rows' summed
    # weight; the rows left out add the same to every b); then the last level's
    # back-off step: the terms in ``step``'s out
    r, alpha = constants
    choose, linear, out = step
    cells, masses, level_start = table
    buffer, totals_buffer, sizes = dense
    grid, ratios, group_weights = choice[1], choice[2], choice[3]
    scores = np.empty(grid.shape[0])
    n_levels = chosen.shape[0]
    for level in range(n_levels):
        if level > 0:
            _level_step(level - 1, chosen[level - 1], choose, linear, rows, scratch, out)
        size = sizes[level]
        dense_counts, dense_totals = buffer[:size], totals_buffer[: size // r]
        if size > 0:
            low, high = level_start[level], level_start[level + 1]
            _fill_dense(cells, masses, low, high, r, dense_counts, dense_totals)
        _level_counts(
            level, rows, cells, masses, level_start, r, alpha, scratch, dense_counts, dense_totals
        )
        n_groups = _choice_ratios(rows, scratch, choice) if choose else 0
        if choose:
            for j in range(grid.shape[0]):
                total = 0.0
                for g in range(n_groups):
                    total += group_weights[g] * np.log(ratios[g, j])
                scores[j] = total
            chosen[level] = grid[compiled_best_index(scores) if n_groups else 0]
    _level_step(n_levels - 1, chosen[n_levels - 1], choose, linear, rows, scratch, out)


def _dense_sizes(
    tables: list[tuple[NDArray[np.int64], NDArray[np.float64]]],
    radices: list[int],
    width: int,
    row_cells: int,
) -> list[int]:
    """Each level's dense table size (its configurations times ``width`` cells), 0
    where the level is read sparsely (:data:`DENSE_CELLS`)."""
    configurations = 1.0  # (the product of the radices so far, as a float: no overflow)
    sizes = []
    for level, (level_cells, _) in enumerate(tables):
        if level:
            configurations *= radices[level - 1]
        size = configurations * width
        fits = len(level_cells) == 0 or level_cells[-1] < size  # (every id within the array)
        dense = fits and size <= max(DENSE_CELLS, DENSE_ROWS_FACTOR * row_cells)
        sizes.append(int(size) if dense else 0)
    return sizes


def _choice_buffers(
    key_weights: NDArray[np.float64] | None, grid: NDArray[np.float64]
) -> tuple[NDArray[Any], ...]:
    """What :func:`_choice_ratios` reads and writes: each distinct row's summed
    weight (None: no choice), the grid, the groups' ratios and summed weights."""
    n_keys = 0 if key_weights is None else len(key_weights)
    return (
        np.zeros(0) if key_weights is None else key_weights,
        grid,
        np.empty((n_keys, len(grid))) if n_keys else np.empty((0, 1)),
        np.empty(n_keys),
    )


def _distinct(rows: _Rows) -> tuple[_Rows, NDArray[np.int64] | None]:
    """The distinct rows of ``rows`` (:func:`_distinct_rows`: their terms and ratios are
    the same numbers) and each row's distinct row; None when every row is distinct."""
    row_key, first = _distinct_rows(*rows)
    if len(first) == len(row_key):
        return rows, None
    values, parent_codes, radices, class_index, unit = rows
    return _Rows(values[first], parent_codes[first], radices, class_index[first], unit[first]), (
        row_key
    )


def _scratch(n_rows: int, n_classes: int) -> _Scratch:
    """A :class:`_Scratch` for ``n_rows`` rows at level 0 (ids 0, every parent still
    observed)."""
    return _Scratch(
        np.zeros(n_rows, dtype=np.int64),  # ids
        np.ones(n_rows, dtype=np.bool_),  # still
        np.empty(n_rows, dtype=np.bool_),  # here
        np.empty((n_rows, n_classes)),  # counts
        np.empty((n_rows, n_classes)),  # totals
        np.empty((n_rows, n_classes)),  # log_p
        np.empty((n_rows, n_classes)),  # p_linear
        np.empty(n_rows),  # own
    )


def distinct_level_terms(
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
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.int64]]:
    """Every distinct row's leave-one-out ``log P_L(x | c, first L parents)`` for L =
    0..K (0 where the node is missing; a row observing fewer leading parents keeps the
    shorter prefix's estimate), the levels' concentrations and each row's distinct row
    (rows alike: the same terms, see the module notes; numbered in order of first row).

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
    terms : ndarray of shape (K + 1, n_distinct, n_classes)
        Row i's are ``terms[:, row_key[i]]`` (:func:`rows_of`).
    concentrations : ndarray of shape (K + 1,)
    row_key : ndarray of shape (n_rows,)

    Examples
    --------
    >>> cells = np.array([0, 1, 3])  # class 0: value 0 (weight 2) and 1; class 1: value 1
    >>> terms, chosen, row_key = distinct_level_terms(
    ...     np.array([0, 0, 1]), np.zeros((3, 0), dtype=np.int64), np.zeros(0, dtype=np.int64),
    ...     np.array([0, 0, 1]), np.ones(3), tables=[(cells, np.array([2.0, 1.0, 1.0]))],
    ...     n_classes=2, r=2, alpha=1.0, concentrations=np.array([1.0]))
    >>> terms.shape, row_key.tolist()
    ((1, 2, 2), [0, 0, 1])
    """
    n_levels = len(tables)
    choose = concentrations is None
    chosen = np.zeros(n_levels) if choose else np.array(concentrations, dtype=np.float64)
    level_start = np.array([0, *accumulate(len(cells) for cells, _ in tables)], dtype=np.int64)
    cells = np.concatenate([c for c, _ in tables], dtype=np.int64)
    masses = np.concatenate([m for _, m in tables], dtype=np.float64)
    n_rows = len(values)
    weights = np.ascontiguousarray(
        np.zeros(n_rows) if weights is None else weights, dtype=np.float64
    )
    radix_list = [int(radix) for radix in radices]
    # the level passes run on the distinct rows (the same numbers for each of their rows)
    rows, row_key = _distinct(
        _Rows(
            np.ascontiguousarray(values, dtype=np.int64),
            np.ascontiguousarray(parent_codes, dtype=np.int64).reshape(n_rows, n_levels - 1),
            np.array(radix_list, dtype=np.int64),
            np.ascontiguousarray(class_index, dtype=np.int64),
            np.ascontiguousarray(unit, dtype=np.float64),
        )
    )
    n_keys = len(rows.values)
    grid_array = np.asarray(grid if choose else (1.0,), dtype=np.float64)
    linear = bool(masses.sum() <= LINEAR_WEIGHT)
    scratch = _scratch(n_keys, n_classes)
    out = np.empty((n_levels, n_keys, n_classes))
    dense_sizes = _dense_sizes(tables, radix_list, n_classes * int(r), n_keys * n_classes)
    buffer = np.empty(max(dense_sizes, default=0))  # (reused from level to level)
    totals_buffer = np.empty(max(dense_sizes, default=0) // int(r))
    table = (cells, masses, level_start)
    row_key = np.arange(n_rows) if row_key is None else row_key
    # each distinct row's weight, its rows' summed in row order
    key_weights: NDArray[np.float64] | None = None
    if choose:
        key_weights = np.bincount(row_key, weights=weights, minlength=n_keys).astype(np.float64)
    _level_passes(
        rows,
        table,
        (int(r), float(alpha)),
        scratch,
        (buffer, totals_buffer, np.array(dense_sizes, dtype=np.int64)),
        _choice_buffers(key_weights, grid_array),
        chosen,
        (choose, linear, out),
    )
    if linear:
        np.log(out, out=out)  # (a missing node's 1 becomes its 0)
    return out, chosen, row_key


def rows_of(terms: NDArray[np.float64], row_key: NDArray[np.int64]) -> NDArray[np.float64]:
    """Each row's terms from its distinct row's (``terms[:, row_key]``; ``terms`` itself
    when every row is distinct).

    Examples
    --------
    >>> rows_of(np.array([[[0.0], [1.0]]]), np.array([1, 0, 1])).tolist()
    [[[1.0], [0.0], [1.0]]]
    """
    if len(row_key) == terms.shape[1]:  # (every row distinct: numbered in row order)
        return terms
    return np.take(terms, row_key, axis=1)


def hierarchical_level_terms(
    *arguments: Any, **keywords: Any
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Every row's leave-one-out ``log P_L(x | c, first L parents)`` for L = 0..K, an
    array (K + 1, n_rows, n_classes), and the levels' concentrations: the arguments and
    numbers of :func:`distinct_level_terms`, each row given its distinct row's terms.

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
    terms, chosen, row_key = distinct_level_terms(*arguments, **keywords)
    return rows_of(terms, row_key), chosen
