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

__all__ = ["LINEAR_WEIGHT", "hierarchical_level_terms"]

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
def _terms(
    values,
    parent_codes,
    radices,
    class_index,
    unit,
    weights,
    cells,
    masses,
    level_start,
    n_classes,
    r,
    alpha,
    grid,
    choose,
    linear,
    concentrations,
    out,
):  # pragma: no cover - numba
    n_rows = values.shape[0]
    n_levels = level_start.shape[0] - 1
    ids = np.zeros(n_rows, dtype=np.int64)
    here = np.empty(n_rows, dtype=np.bool_)
    still = np.ones(n_rows, dtype=np.bool_)
    counts = np.zeros((n_rows, n_classes))
    totals = np.zeros((n_rows, n_classes))
    log_p = np.empty((n_rows, n_classes))
    p_linear = np.empty((n_rows, n_classes))
    own = np.empty(n_rows)  # the own class's back-off probability (choosing)
    scores = np.zeros(grid.shape[0])
    width = n_classes * r
    for level in range(n_levels):
        low, high = level_start[level], level_start[level + 1]
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
            first = ids[i] * width
            lo, hi = low, high
            while lo < hi:  # the first cell >= first
                mid = (lo + hi) >> 1
                if cells[mid] < first:
                    lo = mid + 1
                else:
                    hi = mid
            j = lo
            while j < high and cells[j] < first + width:
                rest = cells[j] - first
                c = rest // r
                totals[i, c] += masses[j]
                if rest - c * r == values[i]:
                    counts[i, c] = masses[j]
                j += 1
        if level == 0:  # the node's marginal, each row's unit out
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
        if choose:
            for g in range(grid.shape[0]):
                scores[g] = 0.0
            for i in range(n_rows):
                if values[i] < 0 or weights[i] == 0.0:
                    continue
                if totals[i, class_index[i]] == 0.0:
                    continue  # (b p / b: the same for every b)
                y = class_index[i]
                for g in range(grid.shape[0]):
                    b = grid[g]
                    p = (counts[i, y] + b * own[i]) / (totals[i, y] + b)
                    scores[g] += weights[i] * np.log(max(p, 1e-300))
            best = 0
            for g in range(1, grid.shape[0]):
                if scores[g] > scores[best]:
                    best = g
            concentrations[level] = grid[best]
            b = grid[best]
            for i in range(n_rows):
                y = class_index[i]
                own[i] = (counts[i, y] + b * own[i]) / (totals[i, y] + b)
        b = concentrations[level]
        log_b = np.log(b)
        for i in range(n_rows):
            for c in range(n_classes):
                if linear:  # (n + b p) / (t + b): one logarithm
                    p_linear[i, c] = (counts[i, c] + b * p_linear[i, c]) / (totals[i, c] + b)
                    log_p[i, c] = np.log(p_linear[i, c])
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
    out = np.empty((n_levels, n_rows, n_classes))
    _terms(
        np.ascontiguousarray(values, dtype=np.int64),
        np.ascontiguousarray(parent_codes, dtype=np.int64).reshape(n_rows, n_levels - 1),
        np.ascontiguousarray(radices, dtype=np.int64),
        np.ascontiguousarray(class_index, dtype=np.int64),
        np.ascontiguousarray(unit, dtype=np.float64),
        np.ascontiguousarray(np.zeros(n_rows) if weights is None else weights, dtype=np.float64),
        cells,
        masses,
        level_start,
        int(n_classes),
        int(r),
        float(alpha),
        np.asarray(grid if choose else (1.0,), dtype=np.float64),
        choose,
        bool(masses.sum() <= LINEAR_WEIGHT),
        chosen,
        out,
    )
    return out, chosen
