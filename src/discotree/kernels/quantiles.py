"""Weighted quantiles of every column by selection, not sorting: the bin edges of the
numeric columns (:class:`discotree.transformers.Discretizer`). The values are counted
into equal-width buckets between each column's extremes; only the buckets that hold a
quantile are gathered and sorted (a stable merge sort); on small data with unit
weights, plain numpy gives the same values."""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from ..numerics import QUANTILE_MARGIN
from ..threads import in_chunks
from .encode import SMALL_DATA_CELLS

__all__ = ["weighted_quantiles"]


#: Buckets of the quantile search (its cost is one pass to bucket the values and one
#: to gather those of the buckets that hold a quantile).
_QUANTILE_BUCKETS = 4096


@numba.njit(cache=True, nogil=True)
def _value_ranges(values, weights, lo, hi, used):  # pragma: no cover - numba
    """Fold the rows into each column's smallest and largest non-NaN value of positive
    weight and their number (no branch on the values: NaN compares False)."""
    n, d = values.shape
    for i in range(n):
        if weights[i] > 0:
            for j in range(d):
                x = values[i, j]
                used[j] += x == x
                lo[j] = x if x < lo[j] else lo[j]
                hi[j] = x if x > hi[j] else hi[j]


@numba.njit(cache=True, nogil=True)
def _bucket_pass(
    values, weights, lo, scale, unit, bucket_weight, bucket_size, slot, fill, gathered, weight
):  # pragma: no cover
    """One pass over the non-NaN values of positive weight, each to its equal-width
    bucket (bucket ``b`` of column ``j`` holds ``lo[j] + b / scale[j]`` and up). With
    ``bucket_size``: add the rows to the buckets (with ``unit`` weights only the
    sizes). With ``slot``: copy the values (and weights) of the buckets with a slot to
    their segments, from position ``fill[m]`` of slot ``m`` on. Each call passes one of
    the two, None for the other's arrays (numba compiles each case apart, without the
    other's branch)."""
    n, d = values.shape
    for i in range(n):
        w = weights[i]
        if w > 0:
            for j in range(d):
                x = values[i, j]
                if x == x:
                    b = int((x - lo[j]) * scale[j])
                    b = b if b < _QUANTILE_BUCKETS else _QUANTILE_BUCKETS - 1  # (no min())
                    if bucket_size is not None:
                        bucket_size[j, b] += 1
                        if not unit:
                            bucket_weight[j, b] += w
                    if slot is not None:
                        m = slot[j, b]
                        if m >= 0:
                            gathered[fill[m]] = x
                            weight[fill[m]] = w
                            fill[m] += 1


@numba.njit(cache=True, nogil=True)
def _quantile_buckets(
    bucket_weight, bucket_size, used, fractions, target, below, target_slot, slot, starts
):  # pragma: no cover - numba
    """The bucket of every target quantile: ``target[j, k]`` (its cumulative weight),
    ``below[j, k]`` (the weight of the buckets before its bucket), ``target_slot[j,
    k]``, and for the buckets to gather ``slot[j, b]`` (both start at -1) with their
    segments ``starts[:n_slots + 1]`` (starts at 0) in the gathered values; returns
    ``n_slots``. (The caller allocates: numba compiles no array constructor here.)"""
    d, n_buckets = bucket_size.shape
    n_targets = fractions.shape[0]
    n_slots = 0
    for j in range(d):
        if used[j] == 0:
            continue
        total = 0.0
        for b in range(n_buckets):
            total += bucket_weight[j, b]
        for k in range(n_targets):
            target[j, k] = fractions[k] * total * (1 - QUANTILE_MARGIN)
            cumulative = 0.0
            b = 0
            while b < n_buckets - 1 and cumulative + bucket_weight[j, b] < target[j, k]:
                cumulative += bucket_weight[j, b]
                b += 1
            below[j, k] = cumulative
            if slot[j, b] < 0:
                slot[j, b] = n_slots
                starts[n_slots + 1] = starts[n_slots] + bucket_size[j, b]
                n_slots += 1
            target_slot[j, k] = slot[j, b]
    return n_slots


@numba.njit(cache=True, nogil=True)
def _stable_order(values, order, spare):  # pragma: no cover - numba
    """The positions of ``values`` (no NaN) in increasing order, ties in position order:
    the permutation any stable sort gives, by a bottom-up merge sort (numba's own
    ``argsort(kind="mergesort")`` costs seconds to compile), in the first
    ``len(values)`` of ``order`` or of ``spare`` (scratch, intp): the one returned."""
    n = values.shape[0]
    order = order[:n]
    spare = spare[:n]
    for i in range(n):
        order[i] = i
    width = 1
    while width < n:
        for left in range(0, n, 2 * width):
            middle, right = min(left + width, n), min(left + 2 * width, n)
            a, b, k = left, middle, left
            while a < middle and b < right:
                if values[order[b]] < values[order[a]]:  # (equal: the left one first)
                    spare[k] = order[b]
                    b += 1
                else:
                    spare[k] = order[a]
                    a += 1
                k += 1
            while a < middle:
                spare[k] = order[a]
                a += 1
                k += 1
            while b < right:
                spare[k] = order[b]
                b += 1
                k += 1
        order, spare = spare, order
        width *= 2
    return order


@numba.njit(cache=True, nogil=True)
def _select_quantiles(
    gathered, gathered_weight, start, target, below, target_slot, used, out, order, spare
):  # pragma: no cover - numba
    """Each target's value: sort its bucket's values and walk their cumulative weight
    (``order`` and ``spare``: intp scratch as long as the longest segment)."""
    d, n_targets = target.shape
    for j in range(d):
        if used[j] == 0:
            continue
        for k in range(n_targets):
            m = target_slot[j, k]
            part = gathered[start[m] : start[m + 1]]
            part_weight = gathered_weight[start[m] : start[m + 1]]
            ranked = _stable_order(part, order, spare)
            cumulative = below[j, k]
            out[j, k] = part[ranked[len(part) - 1]]
            for q in range(len(part)):
                cumulative += part_weight[ranked[q]]
                if cumulative >= target[j, k]:
                    out[j, k] = part[ranked[q]]
                    break


def weighted_quantiles(
    values: np.ndarray,
    weights: np.ndarray,
    fractions: np.ndarray,
    out: np.ndarray,
    highest: np.ndarray,
    *,
    used: np.ndarray,
    min_cells_per_thread: int | None = None,
) -> None:
    """Weighted quantiles of every column of ``values`` by selection, not sorting.

    ``out[j, k]`` is the smallest value v of column j whose cumulative weight
    ``W(<= v)`` reaches ``fractions[k] * W * (1 - 1e-12)`` (``W`` the column's total
    weight), over its non-NaN values of positive weight: the inverted empirical CDF that
    sorting and searching the cumulative sums gives
    (``tests/reference.py``: ``weighted_quantile_edges``). ``highest[j]`` receives the
    column's largest such value and ``used[j]`` their number (``out[j]`` is left
    unchanged when it is 0).

    The values are counted into equal-width buckets between each column's minimum and
    maximum; only the buckets that hold a quantile are gathered and sorted. Three
    passes over the rows (row-major, all columns at once): O(n d) time. With
    ``min_cells_per_thread``, each pass is split by rows over the cores (each thread
    reads its own rows, so the passes, which are bound by memory, share none of it),
    when every thread gets at least that many cells; the result does not depend on it.
    Small data with unit weights is sorted by numpy instead (the same values: see
    :func:`_unit_quantiles_numpy`), which compiles nothing.
    """
    n, d = values.shape
    if values.size <= SMALL_DATA_CELLS and np.all(weights == 1.0):  # small: numpy
        _unit_quantiles_numpy(values, fractions, out, highest, used)
        return
    work = n * d
    min_work = work if min_cells_per_thread is None else min_cells_per_thread
    parts: list[tuple[int, int]] = []
    in_chunks(lambda a, b: parts.append((a, b)), n, work, min_work)  # the row blocks
    parts.sort()

    def each(run) -> list:
        found: dict[int, Any] = {}
        in_chunks(
            lambda a, b: found.__setitem__(a, run(a, b)), n, work, min_work
        )  # the same blocks as ``parts``
        return [found[a] for a, _ in parts]

    def ranges(a: int, b: int):
        lo, hi = np.full(d, np.inf), np.full(d, -np.inf)
        count = np.zeros(d, dtype=np.intp)
        _value_ranges(values[a:b], weights[a:b], lo, hi, count)
        return lo, hi, count

    found = each(ranges)
    lo = np.min([f[0] for f in found], axis=0)
    hi = np.max([f[1] for f in found], axis=0)
    used[:] = np.sum([f[2] for f in found], axis=0)
    highest[:] = hi
    spread = np.where(used > 0, hi - lo, 0.0)
    scale = np.zeros(d)
    np.divide(_QUANTILE_BUCKETS, spread, out=scale, where=spread > 0)
    unit = bool(np.all(weights == 1.0))

    def buckets(a: int, b: int):
        size = np.zeros((d, _QUANTILE_BUCKETS), dtype=np.int32 if b - a < 2**31 else np.intp)
        weight = np.zeros((d, 0 if unit else _QUANTILE_BUCKETS))
        _bucket_pass(values[a:b], weights[a:b], lo, scale, unit, weight, size, *[None] * 4)
        return size, weight

    found = each(buckets)
    bucket_size = np.sum([f[0] for f in found], axis=0, dtype=np.intp)
    bucket_weight = (
        bucket_size.astype(np.float64) if unit else np.sum([f[1] for f in found], axis=0)
    )
    fractions = np.asarray(fractions, dtype=np.float64)
    target, below = np.empty((d, len(fractions))), np.empty((d, len(fractions)))
    target_slot = np.full((d, len(fractions)), -1, dtype=np.intp)
    slot = np.full((d, _QUANTILE_BUCKETS), -1, dtype=np.intp)
    starts = np.zeros(d * len(fractions) + 1, dtype=np.intp)  # (at most one slot a target)
    n_slots = _quantile_buckets(
        bucket_weight, bucket_size, used, fractions, target, below, target_slot, slot, starts
    )
    start = starts[: n_slots + 1]
    gathered = np.empty(start[n_slots])
    gathered_weight = np.empty(start[n_slots])
    slot_j, slot_b = np.nonzero(slot >= 0)
    order = slot[slot_j, slot_b]
    first = np.empty(n_slots, dtype=np.intp)
    first[order] = start[:n_slots][order]
    fills = []
    for size, _ in found:  # each block writes after the blocks before it
        fills.append(first.copy())
        first[order] += size[slot_j, slot_b]
    fill_of = dict(zip([a for a, _ in parts], fills, strict=True))

    def gather(a: int, b: int) -> None:
        _bucket_pass(
            values[a:b],
            weights[a:b],
            lo,
            scale,
            unit,
            None,
            None,
            slot,
            fill_of[a],
            gathered,
            gathered_weight,
        )

    each(gather)
    longest = int(np.diff(start).max(initial=0))
    order, spare = np.empty(longest, dtype=np.intp), np.empty(longest, dtype=np.intp)
    _select_quantiles(
        gathered, gathered_weight, start, target, below, target_slot, used, out, order, spare
    )


def _unit_quantiles_numpy(
    values: np.ndarray,
    fractions: np.ndarray,
    out: np.ndarray,
    highest: np.ndarray,
    used: np.ndarray,
) -> None:
    """:func:`weighted_quantiles` with every weight 1, in numpy, a column at a time.

    The same values to the bit: the kernels' sums of weights are then exact integers,
    and their walk through the buckets reaches the target ``t`` at the ``ceil(t)``-th
    value in stable sorted order (the buckets split that order, as the bucket of a
    value grows with it), which is read directly; the largest value is the first of
    equal ones (``-0.0`` or ``0.0``), as the kernels keep it."""
    fractions = np.asarray(fractions, dtype=np.float64)
    for j in range(values.shape[1]):
        x = values[:, j]
        x = x[x == x]
        used[j] = len(x)
        if not len(x):
            highest[j] = -np.inf
            continue
        order = np.argsort(x, kind="stable")
        target = fractions * float(len(x)) * (1 - QUANTILE_MARGIN)
        at = np.clip(np.ceil(target) - 1, 0, len(x) - 1).astype(np.intp)
        out[j] = x[order[at]]
        highest[j] = x[np.argmax(x)]
