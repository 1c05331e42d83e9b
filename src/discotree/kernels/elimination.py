"""Variable elimination in one compiled call: ``log sum_{x_missing} prod_j theta_j`` of
rows that miss the same features, every row and class at once (Koller & Friedman 2009,
Section 9.3, sum-product variable elimination).

The work is a *program* made once per set of missing features
(:class:`~discotree.models.elimination_plan.EliminationPlan`): the factors of the
families (each node's log table read at the row's observed values, turned to
probabilities scaled per row and class where needed so nothing underflows), then one step per
eliminated variable that multiplies the factors holding it and sums it out. Factors are
stored ``(configuration, row, class)`` in one buffer: a configuration's numbers for all
rows and classes are contiguous, so each product runs over a contiguous run.

Layout of the arguments (integer arrays, each list of lists flattened with a ``*_start``
array of bounds, as CSR):

- ``log_tables``: every node's log table, C order ``(class, family values...)``, one after
  the other; ``source_at[f]`` where source factor ``f``'s node starts, ``class_stride[f]``
  its class axis's stride;
- ``observed_start`` / ``observed_vars`` / ``observed_strides``: the observed family
  members of each source and their strides in its table;
- ``kept_start`` / ``kept_strides`` / ``kept_cards``: its missing family members (the
  factor's scope, in the factor's order) and their strides in the table;
- ``factor_at``: where each factor starts in the buffer (in configurations; the sources
  first, then one factor per step; factors no longer read may share a place), then the
  buffer's size;
- ``step_start`` / ``involved``: the factors each step multiplies (the first two
  make the step's scope, any others lie within it: products on the way, as
  ``numpy.einsum``'s contraction paths make them);
- ``out_start`` / ``out_cards``: the scope of each step's factor (its configurations'
  radices, last fastest);
- ``stride_start`` / ``strides``: for each step, the stride of each of its scope's
  variables in each involved factor (involved-major; 0 where a factor lacks it);
- ``var_strides`` (aligned with ``involved``) and ``var_cards`` (one per step): the
  eliminated variable's stride in each involved factor and its values (1, strides 0:
  a product on the way that sums nothing out);
- ``closing`` (one per step): 1 where the step ends a variable's elimination: its
  factor is rescaled per row and class by a power of two where needed
  (:data:`SCALED_RANGE`; the scale into the total), or, over no variable, taken into
  the total.

The slow reference (``numpy.einsum`` over the same factors) is in the tests.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from numpy.typing import NDArray

from .compiled_cache import at_hand

__all__ = [
    "GREEDY_HEURISTICS",
    "SAFE_LOG_PROBABILITY",
    "SCALED_RANGE",
    "best_greedy_elimination",
    "compiled_at_hand",
    "eliminated_log_marginals",
    "greedy_elimination",
]


#: A factor closing a variable's elimination is rescaled, per row and class, by a power
#: of two where its largest number leaves ``[2 ** -SCALED_RANGE, 2 ** SCALED_RANGE]``.
SCALED_RANGE = 32
_LOWEST_UNSCALED = 2.0**-SCALED_RANGE
_HIGHEST_UNSCALED = 2.0**SCALED_RANGE
_LOG_TWO = math.log(2.0)


@njit(cache=True, nogil=True)
def _advance(index, cards, start, n):  # pragma: no cover - numba
    """The next configuration of ``n`` variables of radices ``cards[start:start + n]``
    (the last fastest), in place."""
    d = n - 1
    while d >= 0:
        index[d] += 1
        if index[d] < cards[start + d]:
            return
        index[d] = 0
        d -= 1


@njit(cache=True, nogil=True)
def _sources(codes, log_tables, probabilities, source_at, class_stride, observed_start,
             observed_vars, observed_strides, kept_start, kept_strides, kept_cards, factor_at,
             n_classes, buffer, log_total_flat):  # fmt: skip
    n_rows = codes.shape[0]
    n_rc = n_rows * n_classes
    places = np.empty(n_rc, dtype=np.int64)
    tops = np.empty(n_rc)
    for f in range(len(source_at)):
        k0, k1 = kept_start[f], kept_start[f + 1]
        n_kept = k1 - k0
        cells = 1
        for d in range(k0, k1):
            cells *= kept_cards[d]
        offsets = np.zeros(cells, dtype=np.int64)  # each kept configuration's
        index = np.zeros(max(n_kept, 1), dtype=np.int64)
        for cell in range(cells):
            at = 0
            for d in range(n_kept):
                at += index[d] * kept_strides[k0 + d]
            offsets[cell] = at
            _advance(index, kept_cards, k0, n_kept)
        # each row's and class's place in the table, then the configurations one by
        # one (each a contiguous run of the buffer)
        for r in range(n_rows):
            row_at = source_at[f]
            for o in range(observed_start[f], observed_start[f + 1]):
                row_at += codes[r, observed_vars[o]] * observed_strides[o]
            for c in range(n_classes):
                places[r * n_classes + c] = row_at + c * class_stride[f]
        first = factor_at[f] * n_rc
        if n_kept > 0 and probabilities.shape[0]:
            # the probabilities as they are (tables exponentiated once), each row's and
            # class's largest kept while written, then rescaled by a power of two where
            # it leaves the range, as a closing step's factor is
            tops[:] = 0.0
            for cell in range(cells):
                offset = offsets[cell]
                run = buffer[first + cell * n_rc : first + (cell + 1) * n_rc]
                for rc in range(n_rc):
                    value = probabilities[places[rc] + offset]
                    run[rc] = value
                    tops[rc] = max(tops[rc], value)
            _rescaled(buffer, first, cells, n_rc, tops, log_total_flat)
            continue
        # (a number per row and class, or tables with logarithms out of the safe
        # range): the largest log into the total, the rest scaled by it
        tops[:] = -np.inf
        for cell in range(cells):
            offset = offsets[cell]
            for rc in range(n_rc):
                tops[rc] = max(tops[rc], log_tables[places[rc] + offset])
        for rc in range(n_rc):
            log_total_flat[rc] += tops[rc]
        if n_kept == 0:
            continue
        for cell in range(cells):
            offset = offsets[cell]
            run = buffer[first + cell * n_rc : first + (cell + 1) * n_rc]
            for rc in range(n_rc):
                run[rc] = np.exp(log_tables[places[rc] + offset] - tops[rc])


@njit(cache=True, nogil=True)
def _rescaled(buffer, first, cells, n_rc, tops, log_total_flat):  # pragma: no cover - numba
    # the factor of ``cells`` configurations from ``first`` multiplied, per row and
    # class, by a power of two (exact: the same numbers as none) where its largest
    # number ``tops`` leaves [2 ** -SCALED_RANGE, 2 ** SCALED_RANGE]; the scale into the
    # total. ``tops`` is overwritten (the factors).
    rescaled = False
    for rc in range(n_rc):
        top = tops[rc]
        tops[rc] = 1.0
        if top > 0.0 and not (_LOWEST_UNSCALED <= top <= _HIGHEST_UNSCALED):
            # (a subnormal largest scaled to 2 ** 1021 at most: 2 ** -exponent finite)
            exponent = max(math.frexp(top)[1], -1021)
            tops[rc] = math.ldexp(1.0, -exponent)
            log_total_flat[rc] += exponent * _LOG_TWO
            rescaled = True
    if not rescaled:
        return
    for cell in range(cells):
        run = buffer[first + cell * n_rc : first + (cell + 1) * n_rc]
        for rc in range(n_rc):
            run[rc] *= tops[rc]


@njit(cache=True, nogil=True)
def _step(s, step_start, involved, out_start, out_cards, stride_start, strides, var_strides,
          var_cards, closing, factor_at, out_factor, n_rc, buffer, log_total_flat, acc,
          product, top):  # fmt: skip  # pragma: no cover - numba
    i0, i1 = step_start[s], step_start[s + 1]
    n_involved = i1 - i0
    d0, d1 = out_start[s], out_start[s + 1]
    n_out = d1 - d0
    cells = 1
    for d in range(d0, d1):
        cells *= out_cards[d]
    index = np.zeros(max(n_out, 1), dtype=np.int64)
    base = np.zeros(n_involved, dtype=np.int64)  # (each factor's offset at index)
    out_at = factor_at[out_factor]
    stride_at = stride_start[s]
    n_x = var_cards[s]
    first_at, first_stride = factor_at[involved[i0]], var_strides[i0]
    second_at, second_stride = 0, 0
    if n_involved > 1:
        second_at, second_stride = factor_at[involved[i0 + 1]], var_strides[i0 + 1]
    scaled = closing[s] and n_out > 0  # (its largest number per row and class kept)
    top[:] = 0.0
    for cell in range(cells):
        # (the runs read and written as slices: an index from a range needs no
        # wraparound check, so the loops over them compile to vector instructions)
        acc[:] = 0.0  # (summed apart from the buffer: no aliasing)
        for x in range(n_x):
            first = (first_at + base[0] + x * first_stride) * n_rc
            a = buffer[first : first + n_rc]
            if n_involved == 1:
                for rc in range(n_rc):
                    acc[rc] += a[rc]
                continue
            second = (second_at + base[1] + x * second_stride) * n_rc
            b = buffer[second : second + n_rc]
            if n_involved == 2:  # (the most common step)
                for rc in range(n_rc):
                    acc[rc] += a[rc] * b[rc]
                continue
            for rc in range(n_rc):  # (more factors, each within the first two's union)
                product[rc] = a[rc] * b[rc]
            for i in range(2, n_involved):
                p = (factor_at[involved[i0 + i]] + base[i] + x * var_strides[i0 + i]) * n_rc
                more = buffer[p : p + n_rc]
                for rc in range(n_rc):
                    product[rc] *= more[rc]
            for rc in range(n_rc):
                acc[rc] += product[rc]
        o = (out_at + cell) * n_rc
        buffer[o : o + n_rc] = acc
        if scaled:
            for rc in range(n_rc):
                top[rc] = max(top[rc], acc[rc])
        # the next configuration, each factor's offset moved by the digits changed
        d = n_out - 1
        while d >= 0:
            index[d] += 1
            for i in range(n_involved):
                base[i] += strides[stride_at + i * n_out + d]
            if index[d] < out_cards[d0 + d]:
                break
            for i in range(n_involved):
                base[i] -= strides[stride_at + i * n_out + d] * index[d]
            index[d] = 0
            d -= 1
    first = out_at * n_rc
    if not closing[s]:  # (a product on the way: kept as it is)
        return
    if n_out == 0:  # a number per row and class: into the total
        number = buffer[first : first + n_rc]
        for rc in range(n_rc):
            log_total_flat[rc] += np.log(max(number[rc], 1e-300))
        return
    # rescaled by a power of two where its largest leaves the range: products of
    # factors neither underflow nor overflow
    _rescaled(buffer, first, cells, n_rc, top, log_total_flat)


@njit(cache=True, nogil=True)
def _eliminated(codes, log_tables, probabilities, source_at, class_stride, observed_start,
                observed_vars,
                observed_strides, kept_start, kept_strides, kept_cards, factor_at,
                step_start, involved, out_start, out_cards, stride_start, strides,
                var_strides, var_cards, closing, n_classes):  # fmt: skip
    n_rows = codes.shape[0]
    n_rc = n_rows * n_classes
    log_total = np.zeros((n_rows, n_classes))
    flat = log_total.reshape(n_rc)
    buffer = np.empty(factor_at[-1] * n_rc)
    _sources(codes, log_tables, probabilities, source_at, class_stride, observed_start,
             observed_vars, observed_strides, kept_start, kept_strides, kept_cards, factor_at,
             n_classes, buffer, flat)  # fmt: skip
    n_sources = len(source_at)
    acc, product, top = np.empty(n_rc), np.empty(n_rc), np.empty(n_rc)
    for s in range(len(var_cards)):
        _step(s, step_start, involved, out_start, out_cards, stride_start, strides,
              var_strides, var_cards, closing, factor_at, n_sources + s, n_rc, buffer,
              flat, acc, product, top)  # fmt: skip
    return log_total


def eliminated_log_marginals(
    codes: NDArray[np.int64],
    log_tables: NDArray[np.float64],
    plan: tuple,
    n_classes: int,
    probabilities: NDArray[np.float64] | None = None,
) -> NDArray[np.float64]:
    """``log sum_{x_missing} prod_j theta_j[c, x_pa(j), x_j]`` of every row of ``codes``
    (which miss the features the program ``plan`` sums out, and no other read by it)
    and class: the program's arrays in the order of the module's notes, from
    ``source_at`` to ``closing``. With ``probabilities`` (``exp(log_tables)``, every
    log above :data:`SAFE_LOG_PROBABILITY`: none underflows) a source's cell is that
    probability, rescaled by a power of two only where the row's and class's largest
    leaves the range (:data:`SCALED_RANGE`), instead of an exponential per cell (the
    same numbers up to rounding).

    Examples
    --------
    One binary feature, missing, under two classes: its table sums to 1 per class.

    >>> log_tables = np.log(np.array([0.3, 0.7, 0.6, 0.4]))
    >>> i = lambda *v: np.array(v, dtype=np.int64)
    >>> plan = (i(0), i(2), i(0, 0), i(), i(), i(0, 1), i(1), i(2), i(0, 2, 3),
    ...         i(0, 1), i(0), i(0, 0), i(), i(0, 0), i(), i(1), i(2), i(1))
    >>> np.exp(eliminated_log_marginals(np.array([[-1]]), log_tables, plan, 2)).round(12)
    array([[1., 1.]])
    """
    return _eliminated(  # type: ignore[call-arg]
        np.ascontiguousarray(codes, dtype=np.int64),
        np.ascontiguousarray(log_tables, dtype=np.float64),
        np.zeros(0) if probabilities is None else probabilities,
        *plan,
        int(n_classes),
    )


def compiled_at_hand() -> bool:
    """Whether the sums of :func:`eliminated_log_marginals` and the orders of
    :func:`best_greedy_elimination` load without compiling
    (:func:`~discotree.kernels.compiled_cache.at_hand`)."""
    return at_hand(_eliminated, best_greedy_elimination)


#: The smallest log-probability of tables whose exponentials the sources may read
#: (:func:`eliminated_log_marginals`): far from the smallest normal float (~1e-308),
#: so that a probability stays normal and the products of a few, rescaled by powers
#: of two (:data:`SCALED_RANGE`), stay in the range.
SAFE_LOG_PROBABILITY = -600.0

#: The greedy heuristics of :func:`greedy_elimination` by code: 0 min-degree, 1
#: min-fill (then min-weight), 2 min-weight (then min-fill).
GREEDY_HEURISTICS = ("min-degree", "min-fill", "min-weight")


@njit(cache=True, nogil=True)
def _fill_count(adjacent, alive, v):  # pragma: no cover - numba
    # pairs of v's live neighbours that are not neighbours of each other
    n = adjacent.shape[0]
    count = 0
    for a in range(n):
        if a == v or not alive[a] or not adjacent[v, a]:
            continue
        for b in range(a + 1, n):
            if b != v and alive[b] and adjacent[v, b] and not adjacent[a, b]:
                count += 1
    return count


@njit(cache=True, nogil=True)
def _weight(adjacent, alive, arity, v):  # pragma: no cover - numba
    # configurations of v and its live neighbours (a float: no overflow)
    weight = float(arity[v])
    for u in range(adjacent.shape[0]):
        if u != v and alive[u] and adjacent[v, u]:
            weight *= arity[u]
    return weight


@njit(cache=True, nogil=True)
def greedy_elimination(adjacent, arity, heuristic, bound):  # pragma: no cover - numba
    """Eliminate every variable of the interaction graph ``adjacent`` (a boolean
    matrix: variables sharing a factor; the diagonal is not read) of ``arity`` values
    each, the one of the lowest scores first (``heuristic``, a code of
    :data:`GREEDY_HEURISTICS`; ties: the lowest variable): each elimination joins the
    variable's live neighbours into one factor. Returns the order, the largest factor
    formed (configurations of the variable and its neighbours) and the sum of all of
    them, both as floats (inf beyond the float range); stops as soon as a factor
    exceeds ``bound`` (the order then holds only the variables eliminated so far, and
    the largest factor is that one).

    Examples
    --------
    A chain 0 - 1 - 2 of 2, 3 and 4 values.

    >>> adjacent = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], dtype=bool)
    >>> order, largest, total = greedy_elimination(adjacent, np.array([2, 3, 4]), 0, np.inf)
    >>> order.tolist(), largest, total
    ([0, 1, 2], 12.0, 22.0)
    >>> greedy_elimination(adjacent, np.array([2, 3, 4]), 0, 10.0)[1]
    12.0
    """
    adjacent = adjacent.copy()
    n = adjacent.shape[0]
    for v in range(n):
        adjacent[v, v] = False
    alive = np.ones(n, dtype=np.bool_)
    degree = np.zeros(n, dtype=np.int64)  # (live neighbours, kept as variables go)
    for v in range(n):
        for u in range(n):
            if adjacent[v, u]:
                degree[v] += 1
    order = np.empty(n, dtype=np.int64)
    largest, total = 1.0, 0.0
    for step in range(n):
        best = -1
        best_first, best_second = 0.0, 0.0
        for v in range(n):
            if not alive[v]:
                continue
            if heuristic == 0:
                first, second = float(degree[v]), 0.0
            elif heuristic == 1:
                first = float(_fill_count(adjacent, alive, v))
                second = _weight(adjacent, alive, arity, v)
            else:
                first = _weight(adjacent, alive, arity, v)
                second = float(_fill_count(adjacent, alive, v))
            if best < 0 or first < best_first or (first == best_first and second < best_second):
                best, best_first, best_second = v, first, second
        cells = _weight(adjacent, alive, arity, best)
        largest = max(largest, cells)
        total += cells
        order[step] = best
        if cells > bound:
            return order[: step + 1], largest, total
        alive[best] = False
        for a in range(n):  # (its neighbours joined into one factor)
            if alive[a] and adjacent[best, a]:
                degree[a] -= 1
                for b in range(a + 1, n):
                    if alive[b] and adjacent[best, b] and not adjacent[a, b]:
                        adjacent[a, b] = True
                        adjacent[b, a] = True
                        degree[a] += 1
                        degree[b] += 1
    return order, largest, total


@njit(cache=True, nogil=True)
def best_greedy_elimination(scope_start, scope_vars, arity, bound, cap):  # pragma: no cover
    """The best of :func:`greedy_elimination`'s orders of the variables of the scopes
    ``scope_vars[scope_start[f]:scope_start[f + 1]]`` (``arity`` by variable): min-degree's
    (cut short past ``bound``: returned as it is when its largest factor exceeds
    ``bound``), replaced by min-fill's, then min-weight's, where smaller (largest
    factor, then total; both counted at most ``cap``), each cut short once past the
    best largest factor so far. Returns the variables in order, the largest factor and
    the total (floats, at most ``cap``).

    Examples
    --------
    >>> i = lambda *v: np.array(v, dtype=np.int64)
    >>> scopes = i(0, 0, 1, 0, 2, 1, 3, 2, 3, 4)  # (0,), (0, 1), (0, 2), (1, 3), (2, 3, 4)
    >>> order, largest, total = best_greedy_elimination(
    ...     i(0, 1, 3, 5, 7, 10), scopes, i(2, 9, 9, 2, 2), np.inf, 2.0**62)
    >>> order.tolist(), largest, total
    ([4, 1, 0, 2, 3], 36.0, 128.0)
    """
    names = np.unique(scope_vars)
    n = names.shape[0]
    adjacent = np.zeros((n, n), dtype=np.bool_)
    for f in range(scope_start.shape[0] - 1):
        for a in range(scope_start[f], scope_start[f + 1]):
            ia = np.searchsorted(names, scope_vars[a])
            for b in range(scope_start[f], scope_start[f + 1]):
                adjacent[ia, np.searchsorted(names, scope_vars[b])] = True
    weights = np.empty(n)
    for k in range(n):
        weights[k] = arity[names[k]]
    order, largest, total = greedy_elimination(adjacent, weights, 0, bound)
    largest, total = min(largest, cap), min(total, cap)
    if largest <= bound:
        for heuristic in (1, 2):
            found, found_largest, found_total = greedy_elimination(
                adjacent, weights, heuristic, largest
            )
            found_largest, found_total = min(found_largest, cap), min(found_total, cap)
            if found_largest < largest or (found_largest == largest and found_total < total):
                order, largest, total = found, found_largest, found_total
    return names[order], largest, total
