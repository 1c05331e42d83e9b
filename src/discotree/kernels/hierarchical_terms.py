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
computes,
in one pass over the rows per level and without intermediate arrays, what
:func:`discotree.stats.hierarchical.level_counts`, ``LevelCounts.without``,
:func:`~discotree.stats.hierarchical.choose_concentrations` and
:func:`~discotree.stats.hierarchical.backoff_log_probabilities` compute one array
operation at a time (the reference its tests compare it with).
"""

from __future__ import annotations

import numba
import numpy as np
from numpy.typing import NDArray

from .sparse_families import first_at_least

__all__ = [
    "DENSE_CELLS",
    "DENSE_ROWS_FACTOR",
    "LINEAR_WEIGHT",
    "backoff_node_probabilities",
    "hierarchical_level_terms",
    "run_sums",
    "tabulate_backoff_states",
]

#: Up to this total weight, the back-off runs on probabilities (one logarithm per row,
#: class and level); beyond, on their logarithms (a product of many levels of
#: ``b / (t + b)`` with counts near 1e200 underflows to 0 as a probability, not as a
#: logarithm). With at most this weight, every level's step is at least
#: ``b / (t + b) > 1e-13``, and twenty levels stay above 1e-260.
LINEAR_WEIGHT = 1e12


@numba.njit(cache=True, nogil=True)
def _log_add_exp(x, y):  # pragma: no cover - numba
    # numpy's logaddexp: exact for equal arguments and for a -inf one
    if x == y:
        return x + np.log(2.0)
    difference = x - y
    if difference > 0:
        return x + np.log1p(np.exp(-difference))
    if difference <= 0:
        return y + np.log1p(np.exp(difference))
    return difference  # (NaN)


@numba.njit(cache=True, nogil=True)
def _level_counts(
    level,
    values,
    parent_codes,
    radices,
    class_index,
    unit,
    cells,
    masses,
    level_start,
    r,
    alpha,
    ids,
    still,
    here,
    counts,
    totals,
    log_p,
    p_linear,
    own,
    dense_counts,
    dense_totals,
):  # pragma: no cover - numba
    # the rows' configurations at this level, their counts with each row's unit out of
    # its class, and at level 0 the node's marginal (the back-off's start); read from
    # the dense table when it is given (non-empty), else by binary search
    n_rows, n_classes = counts.shape
    low, high = level_start[level], level_start[level + 1]
    width = n_classes * r
    dense = dense_totals.shape[0] > 0
    for i in range(n_rows):
        if level > 0:
            parent = parent_codes[i, level - 1]
            ids[i] = ids[i] * radices[level - 1] + max(parent, 0)
            still[i] = still[i] and parent >= 0
        here[i] = values[i] >= 0 and still[i]
        for c in range(n_classes):
            counts[i, c] = 0.0
            totals[i, c] = 0.0
        if not here[i]:
            continue
        if dense:
            cell, configuration = ids[i] * width + values[i], ids[i] * n_classes
            for c in range(n_classes):
                counts[i, c] = dense_counts[cell + c * r]
                totals[i, c] = dense_totals[configuration + c]
            continue
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
        root_total = 0.0
        for j in range(low, high):
            root_total += masses[j]
        for i in range(n_rows):
            count = 0.0
            for c in range(n_classes):
                count += counts[i, c]
            total = root_total
            if here[i]:
                count -= unit[i]
                total -= unit[i]
            count, total = max(count, 0.0), max(total, 0.0)
            start = np.log(count + alpha) - np.log(total + alpha * r)
            own[i] = (count + alpha) / (total + alpha * r)
            for c in range(n_classes):
                log_p[i, c] = start
                p_linear[i, c] = own[i]
    for i in range(n_rows):  # leave-one-out
        y = class_index[i]
        if here[i]:
            counts[i, y] -= unit[i]
            totals[i, y] -= unit[i]
        for c in range(n_classes):
            counts[i, c] = max(counts[i, c], 0.0)
            totals[i, c] = max(totals[i, c], 0.0)


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
def _choice_ratios(
    values, class_index, weights, counts, totals, own, grid, ratios, chosen_weights
):  # pragma: no cover - numba
    # each scored row's (n + b p) / (t + b) for every b of the grid; the rows with no
    # other weight under their configuration and class give b p / b, the same for
    # every b, and are left out
    m = 0
    for i in range(values.shape[0]):
        y = class_index[i]
        if values[i] < 0 or weights[i] == 0.0 or totals[i, y] == 0.0:
            continue
        for g in range(grid.shape[0]):
            b = grid[g]
            ratios[m, g] = max((counts[i, y] + b * own[i]) / (totals[i, y] + b), 1e-300)
        chosen_weights[m] = weights[i]
        m += 1
    return m


@numba.njit(cache=True, nogil=True)
def _level_step(
    level, b, choose, linear, values, class_index, counts, totals, log_p, p_linear, own, out
):  # pragma: no cover - numba
    # one back-off step: out[level] the probabilities (linear) or their logarithms
    n_rows, n_classes = counts.shape
    log_b = np.log(b)
    for i in range(n_rows):
        if choose:
            y = class_index[i]
            own[i] = (counts[i, y] + b * own[i]) / (totals[i, y] + b)
        for c in range(n_classes):
            if linear:
                p_linear[i, c] = (counts[i, c] + b * p_linear[i, c]) / (totals[i, c] + b)
                out[level, i, c] = p_linear[i, c] if values[i] >= 0 else 1.0
            else:
                log_count = np.log(counts[i, c]) if counts[i, c] > 0 else -np.inf
                log_p[i, c] = _log_add_exp(log_count, log_b + log_p[i, c]) - np.log(
                    totals[i, c] + b
                )
                out[level, i, c] = log_p[i, c] if values[i] >= 0 else 0.0


def hierarchical_level_terms(
    values: NDArray[np.integer],
    parent_codes: NDArray[np.integer],
    radices: NDArray[np.integer],
    class_index: NDArray[np.intp],
    unit: NDArray[np.float64],
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
    ...     np.array([0, 1]), np.ones(2), [(cells, np.array([2.0, 1.0, 1.0]))], 2, 2, 1.0,
    ...     concentrations=np.array([1.0]))
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
    ids = np.zeros(n_rows, dtype=np.int64)
    still = np.ones(n_rows, dtype=np.bool_)
    here = np.empty(n_rows, dtype=np.bool_)
    counts, totals = np.empty((n_rows, n_classes)), np.empty((n_rows, n_classes))
    log_p, p_linear, own = (
        np.empty((n_rows, n_classes)),
        np.empty((n_rows, n_classes)),
        np.empty(n_rows),
    )
    ratios = np.empty((n_rows, len(grid_array))) if choose else np.empty((0, 1))
    chosen_weights = np.empty(n_rows) if choose else np.empty(0)
    out = np.empty((n_levels, n_rows, n_classes))
    configurations = np.concatenate([[1], np.cumprod(radices.astype(np.float64))])
    for level in range(n_levels):
        size = configurations[level] * n_classes * r
        low, high = level_start[level], level_start[level + 1]
        fits = high == low or cells[high - 1] < size  # (every cell id within the array)
        if fits and size <= max(DENSE_CELLS, DENSE_ROWS_FACTOR * n_rows * n_classes):
            dense_counts = np.empty(int(size))
            dense_totals = np.empty(int(size) // int(r))
            _fill_dense(
                cells,
                masses,
                low,
                high,
                int(r),
                dense_counts,
                dense_totals,
            )
        else:
            dense_counts, dense_totals = np.empty(0), np.empty(0)
        _level_counts(
            level,
            values,
            parent_codes,
            radices,
            class_index,
            unit,
            cells,
            masses,
            level_start,
            int(r),
            float(alpha),
            ids,
            still,
            here,
            counts,
            totals,
            log_p,
            p_linear,
            own,
            dense_counts,
            dense_totals,
        )
        if choose:
            m = _choice_ratios(
                values,
                class_index,
                weights,
                counts,
                totals,
                own,
                grid_array,
                ratios,
                chosen_weights,
            )
            # the weighted log-likelihood of each b (numpy's vectorised logarithm); the
            # rows left out add the same to every b
            scores = chosen_weights[:m] @ np.log(ratios[:m]) if m else np.zeros(len(grid_array))
            chosen[level] = grid_array[int(np.argmax(scores))]  # (ties: the first)
        _level_step(
            level,
            float(chosen[level]),
            choose,
            linear,
            values,
            class_index,
            counts,
            totals,
            log_p,
            p_linear,
            own,
            out,
        )
    if linear:
        np.log(out, out=out)  # (a missing node's 1 becomes its 0)
    return out, chosen


@numba.njit(cache=True, nogil=True)
def run_sums(keys, masses, bounds, divisors, out_keys, out_sums, out_bounds):  # pragma: no cover
    """In each segment ``g`` (``bounds[g]:bounds[g + 1]`` of ``keys``, sorted there),
    the sums of ``masses`` over the runs of equal ``keys // divisors[g]``, each added
    in order from 0 (as a scan of the cells adds them): the runs' keys and sums into
    ``out_keys`` and ``out_sums``, segment ``g``'s at ``out_bounds[g]:out_bounds[g + 1]``.

    Examples
    --------
    >>> keys, sums, bounds = np.zeros(3, dtype=np.int64), np.zeros(3), np.zeros(3, dtype=np.int64)
    >>> run_sums(np.array([0, 1, 5, 2]), np.array([1.0, 2.0, 4.0, 8.0]),
    ...          np.array([0, 3, 4]), np.array([2, 2]), keys, sums, bounds)
    >>> keys.tolist(), sums.tolist(), bounds.tolist()
    ([0, 2, 1], [3.0, 4.0, 8.0], [0, 2, 3])
    """
    m = 0
    out_bounds[0] = 0
    for g in range(bounds.shape[0] - 1):
        begin = m
        for j in range(bounds[g], bounds[g + 1]):
            key = keys[j] // divisors[g]
            if m == begin or out_keys[m - 1] != key:
                out_keys[m] = key
                out_sums[m] = 0.0
                m += 1
            out_sums[m - 1] += masses[j]
        out_bounds[g + 1] = m


@numba.njit(cache=True, nogil=True, inline="always")
def _configuration_range(
    keys, bounds, index, index_at, g, key, width, begin, present
):  # pragma: no cover - numba
    # the entries begin..begin + width - 1 of level g's keys (all of one key): read from
    # the level's dense index where it has one and the key is within it, else searched
    if not present:
        return 0, 0
    a = index_at[g]
    if key < index_at[g + 1] - a - 1:  # (a level without an index has none)
        return index[a + key], index[a + key + 1]
    low, high = bounds[g], bounds[g + 1]
    j = first_at_least(keys, low, high, begin)
    stop = j
    while stop < high and keys[stop] < begin + width:
        stop += 1
    return j, stop


@numba.njit(cache=True, nogil=True, inline="always")
def _present_step(
    total_keys,
    total_sums,
    t_low,
    t_high,
    t_begin,
    value_keys,
    value_masses,
    v_low,
    v_high,
    v_begin,
    b,
    p_linear,
):  # pragma: no cover - numba
    # one level's step of the classes present under the configuration (both ranges
    # in class order: merged); the others' (0 + b p) / (0 + b) is p (b a power of two)
    j = v_low
    for m in range(t_low, t_high):
        c = total_keys[m] - t_begin
        while j < v_high and value_keys[j] - v_begin < c:
            j += 1
        n = value_masses[j] if j < v_high and value_keys[j] - v_begin == c else 0.0
        tc = total_sums[m]
        p_linear[c] = (max(n, 0.0) + b * p_linear[c]) / (max(tc, 0.0) + b)


@numba.njit(cache=True, nogil=True, inline="always")
def _every_class_step(
    total_keys,
    total_sums,
    t_low,
    t_high,
    t_begin,
    value_keys,
    value_masses,
    v_low,
    v_high,
    v_begin,
    b,
    linear,
    counts,
    totals,
    p_linear,
    log_p,
):  # pragma: no cover - numba
    # one level's step of every class (counts and totals zero on entry and on return)
    for m in range(t_low, t_high):
        totals[total_keys[m] - t_begin] = total_sums[m]
    for m in range(v_low, v_high):
        counts[value_keys[m] - v_begin] = value_masses[m]
    log_b = np.log(b)
    for c in range(counts.shape[0]):
        n, tc = max(counts[c], 0.0), max(totals[c], 0.0)
        if linear:
            p_linear[c] = (n + b * p_linear[c]) / (tc + b)
        else:
            log_count = np.log(n) if n > 0 else -np.inf
            log_p[c] = _log_add_exp(log_count, log_b + log_p[c]) - np.log(tc + b)
    for m in range(t_low, t_high):  # (every count's class has a total)
        counts[total_keys[m] - t_begin] = 0.0
        totals[total_keys[m] - t_begin] = 0.0


@numba.njit(cache=True, nogil=True, inline="always")
def _node_levels(
    tables,
    t,
    value,
    row_parents,
    start_level,
    end_level,
    identity,
    counts,
    totals,
    p_linear,
    log_p,
):  # pragma: no cover - numba
    # node t's levels start_level..end_level - 1 for one row (its value and ranked
    # parents' codes), from the state p_linear / log_p after the levels before (and
    # the configuration of the parents read so far, identity)
    (
        r_nodes,
        parent_start,
        radices,
        value_bounds,
        value_keys,
        value_masses,
        value_index,
        value_index_at,
        total_bounds,
        total_keys,
        total_sums,
        total_index,
        total_index_at,
        root_totals,
        concentrations,
        exact_halving,
        linear,
        may_stop,
        alpha,
    ) = tables
    r, n_classes = r_nodes[t], p_linear.shape[0]
    first_level = parent_start[t] + t
    still = True
    for level in range(start_level, end_level):
        g = first_level + level
        if level > 0:
            parent = row_parents[level - 1]
            identity = identity * radices[parent_start[t] + level - 1] + max(parent, 0)
            still = still and parent >= 0
        t_low, t_high = _configuration_range(
            total_keys,
            total_bounds,
            total_index,
            total_index_at,
            g,
            identity,
            n_classes,
            identity * n_classes,
            still,
        )
        begin = (identity * r + value) * n_classes
        v_low, v_high = _configuration_range(
            value_keys,
            value_bounds,
            value_index,
            value_index_at,
            g,
            identity * r + value,
            n_classes,
            begin,
            still and value < r,
        )
        if level == 0:
            count = 0.0
            for m in range(v_low, v_high):
                count += value_masses[m]
            count, total = max(count, 0.0), max(root_totals[t], 0.0)
            start = np.log(count + alpha) - np.log(total + alpha * r)
            own = (count + alpha) / (total + alpha * r)
            for c in range(n_classes):
                log_p[c] = start
                p_linear[c] = own
        if linear[t] and exact_halving[g]:  # only the classes present
            _present_step(
                total_keys,
                total_sums,
                t_low,
                t_high,
                identity * n_classes,
                value_keys,
                value_masses,
                v_low,
                v_high,
                begin,
                concentrations[g],
                p_linear,
            )
        else:
            _every_class_step(
                total_keys,
                total_sums,
                t_low,
                t_high,
                identity * n_classes,
                value_keys,
                value_masses,
                v_low,
                v_high,
                begin,
                concentrations[g],
                linear[t],
                counts,
                totals,
                p_linear,
                log_p,
            )
        if t_low == t_high and may_stop[t]:
            break  # (no deeper configuration is present: nothing changes)


@numba.njit(cache=True, nogil=True)
def backoff_node_probabilities(
    codes,
    which,
    nodes,
    parents,
    tables,
    state_at,
    state_depth,
    states,
    log_states,
    row_start,
    out,
    raw,
):  # pragma: no cover - numba
    """The deepest level's back-off estimate of each node ``nodes[which[s]]`` for the
    rows ``row_start..row_start + out.shape[1]`` of ``codes``, nothing left out, into
    ``out[s]``: logarithms (0 where the node is missing), except the probabilities of
    a linear node's rows that ``raw[s]`` marks (the caller takes their logarithms,
    as the per-node path does, with numpy; the fully tabulated rows are read from
    ``log_states``, numpy's logarithms of ``states``): the same operations on the same numbers as
    :func:`hierarchical_level_terms` with ``unit`` 0 and the concentrations given, for
    every node at once and without its intermediate arrays.

    ``tables``: ``(r_nodes, parent_start, radices, value_bounds, value_keys,
    value_masses, value_index, value_index_at, total_bounds, total_keys, total_sums,
    total_index, total_index_at, root_totals, concentrations, exact_halving, linear,
    may_stop, alpha)``. Node ``t``'s ranked parents are
    ``parents[parent_start[t]:parent_start[t + 1]]`` (their numbers of categories:
    ``radices``, the same slice); its level ``L`` is the global level ``g =
    parent_start[t] + t + L``, whose table is read through
    ``value_keys[value_bounds[g]:value_bounds[g + 1]]``, the sorted ids
    ``(configuration * r + value) * n_classes + class`` of its cells with their
    ``value_masses``, and ``total_keys[total_bounds[g]:total_bounds[g + 1]]``, the
    sorted ids ``configuration * n_classes + class`` with their totals ``total_sums``
    (added in the cells' order, as the scan of the per-node path adds them);
    ``root_totals[t]``: the weight of level 0. Where level ``g`` has a dense index
    (``a = total_index_at[g]`` below ``total_index_at[g + 1]``), the entries of
    configuration ``q`` are ``total_index[a + q]:total_index[a + q + 1]`` (no search),
    and likewise those of ``(q, value)`` through ``value_index``. Where
    ``exact_halving[g]`` (a power of two: ``(0 + b p) / (0 + b)`` is ``p``) and the
    node is linear, the classes absent from a configuration are left as they are
    instead of computed again; where ``may_stop[t]`` (linear, every level a power of
    two, and every configuration present at a level present at the one above), a row
    stops at its first level without its configuration. Where ``state_at[t] >= 0``,
    the linear probabilities after the first ``D = state_depth[t]`` levels of every
    ``(configuration of the first D - 1 parents, value)`` are ``states[state_at[t]:]``
    (that key times ``n_classes``, then the class; :func:`tabulate_backoff_states`):
    a row with those parents observed starts from them at level ``D``.
    """
    parent_start, radices = tables[1], tables[2]
    n_rows, n_classes = out.shape[1], out.shape[2]
    counts, totals = np.zeros(n_classes), np.zeros(n_classes)
    log_p, p_linear = np.empty(n_classes), np.empty(n_classes)
    row_parents = np.empty(max(1, parent_start.shape[0]), dtype=np.int64)
    for s in range(which.shape[0]):
        t = which[s]
        node, r, linear = nodes[t], tables[0][t], tables[16][t]
        first, n_levels = parent_start[t], parent_start[t + 1] - parent_start[t] + 1
        for i in range(n_rows):
            value = codes[row_start + i, node]
            raw[s, i] = False
            if value < 0:  # (the per-node path's terms are replaced by these: log 1)
                for c in range(n_classes):
                    out[s, i, c] = 0.0
                continue
            for k in range(n_levels - 1):
                row_parents[k] = codes[row_start + i, parents[first + k]]
            folded, identity = 0, 0
            if state_at[t] >= 0 and value < r:  # a tabulated start, if its parents are
                folded = state_depth[t]
                for k in range(folded - 1):
                    parent = row_parents[k]
                    if parent < 0 or parent >= radices[first + k]:
                        folded, identity = 0, 0
                        break
                    identity = identity * radices[first + k] + parent
                if folded == n_levels:  # every level tabulated: its logarithms
                    base = state_at[t] + (identity * r + value) * n_classes
                    for c in range(n_classes):
                        out[s, i, c] = log_states[base + c]
                    continue
                if folded > 0:
                    base = state_at[t] + (identity * r + value) * n_classes
                    for c in range(n_classes):
                        p_linear[c] = states[base + c]
            _node_levels(
                tables,
                t,
                value,
                row_parents,
                folded,
                n_levels,
                identity,
                counts,
                totals,
                p_linear,
                log_p,
            )
            raw[s, i] = linear
            for c in range(n_classes):
                out[s, i, c] = p_linear[c] if linear else log_p[c]


@numba.njit(cache=True, nogil=True)
def tabulate_backoff_states(depths, tables, n_classes, at, at_start, states):  # pragma: no cover
    """For each node ``t`` and ``d = 1..depths[t]``, the linear probabilities after its
    first ``d`` levels of every ``(configuration of its first d - 1 parents, value)``
    into ``states[at[at_start[t] + d - 1]:]`` (key ``configuration * r + value``
    times ``n_classes``, then the class; ``tables`` as
    :func:`backoff_node_probabilities` reads them), each depth's from the one above:
    every key runs one level, from the state of its prefix."""
    r_nodes, parent_start, radices = tables[0], tables[1], tables[2]
    counts, totals = np.zeros(n_classes), np.zeros(n_classes)
    log_p, p_linear = np.empty(n_classes), np.empty(n_classes)
    row_parents = np.empty(max(1, parent_start.shape[0]), dtype=np.int64)
    for t in range(depths.shape[0]):
        first, r = parent_start[t], r_nodes[t]
        n_keys = r
        for d in range(1, depths[t] + 1):
            if d > 1:
                n_keys *= radices[first + d - 2]
            base = at[at_start[t] + d - 1]
            for key in range(n_keys):
                value, identity = key % r, key // r
                rest = identity
                for k in range(d - 2, -1, -1):
                    row_parents[k] = rest % radices[first + k]
                    rest //= radices[first + k]
                above = 0
                if d > 1:
                    above = identity // radices[first + d - 2]
                    before = at[at_start[t] + d - 2] + (above * r + value) * n_classes
                    for c in range(n_classes):
                        p_linear[c] = states[before + c]
                _node_levels(
                    tables,
                    t,
                    value,
                    row_parents,
                    d - 1,
                    d,
                    above,
                    counts,
                    totals,
                    p_linear,
                    log_p,
                )
                for c in range(n_classes):
                    states[base + key * n_classes + c] = p_linear[c]
