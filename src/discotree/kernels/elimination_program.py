"""The program of a variable elimination made in one compiled call (Koller & Friedman
2009, Section 9.3): from the families of a class-rooted network, the features summed
out and an elimination order, the integer arrays that
:func:`~discotree.kernels.elimination.eliminated_log_marginals` runs (their layout is in
that module's notes).

Each node's family becomes a source factor over its summed members (its table read at
the observed ones); then, for each variable of the order, the factors holding it are
joined a few at a time, starting with the smallest: each step adds the one whose union
with the current factor has the fewest configurations (ties: the factor made first) and
every other lying within that union (it adds no configuration: no product of the same
size is stored on the way), the variable summed out by the last step. Factors are placed
in one buffer, each step's in the first gap that holds it outside the factors it reads,
which are freed after it (each factor is read once).

The slow reference (the same program in Python, with sets) is in the tests.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["MAX_PROGRAM_CELLS", "PROGRAM_FAULTS", "elimination_program"]

#: What :func:`elimination_program` reports instead of a program, by code (0: none).
PROGRAM_FAULTS = (
    "",
    "no factor holds variable {}",
    "the order leaves variables summed",
    "a factor or the buffer would hold more than MAX_PROGRAM_CELLS configurations",
)

#: The most configurations of one factor a program counts (2 ** 62: beyond, products of
#: radices would leave the 64-bit integers).
MAX_PROGRAM_CELLS = 1 << 62

_PAST = -1  # (a count past MAX_PROGRAM_CELLS)


@njit(cache=True, nogil=True)
def _append(values, n, value):  # pragma: no cover - numba
    # values[n] = value, the array grown (doubled) when full; returns the array
    if n == len(values):
        grown = np.empty(2 * len(values) + 16, dtype=np.int64)
        grown[:n] = values
        values = grown
    values[n] = value
    return values


@njit(cache=True, nogil=True)
def _times(cells, radix):  # pragma: no cover - numba
    # (_PAST: past MAX_PROGRAM_CELLS, and stays so)
    if cells == _PAST or (radix > 0 and cells > MAX_PROGRAM_CELLS // radix):
        return _PAST
    return cells * radix


@njit(cache=True, nogil=True)
def _holds(scope_vars, a, b, v):  # pragma: no cover - numba
    for t in range(a, b):
        if scope_vars[t] == v:
            return True
    return False


@njit(cache=True, nogil=True)
def _within(scope_vars, a, b, held):  # pragma: no cover - numba
    for t in range(a, b):
        if not held[scope_vars[t]]:
            return False
    return True


@njit(cache=True, nogil=True)
def _partition(ids, start, stop, flagged, taken, n_taken):  # pragma: no cover - numba
    # ids[start:stop] flagged appended to taken (from n_taken), the others kept in order
    # from start; returns the new n_taken and the end of those kept
    kept = start
    for g in range(start, stop):
        f = ids[g]
        if flagged[f]:
            taken[n_taken] = f
            n_taken += 1
        else:
            ids[kept] = f
            kept += 1
    return n_taken, kept


@njit(cache=True, nogil=True)
def _union_cells(scope_vars, scope_start, held, f, current_cells, n_categories):  # pragma: no cover
    cells = current_cells
    for t in range(scope_start[f], scope_start[f + 1]):
        v = scope_vars[t]
        if not held[v]:
            cells = _times(cells, n_categories[v])
    return cells


@njit(cache=True, nogil=True)
def _placed(cells, n_sources, step_start, involved):  # pragma: no cover - numba
    # where each factor starts in the buffer, then the buffer's size (_PAST past
    # MAX_PROGRAM_CELLS): the sources one after the other, each step's factor in the
    # first gap that holds it (gaps: sorted, apart, [gap_a, gap_b)), the factors it
    # reads freed after it
    n_factors = len(cells)
    at = np.zeros(n_factors + 1, dtype=np.int64)
    extent = 0
    for f in range(n_sources):
        at[f] = extent
        if extent > MAX_PROGRAM_CELLS - cells[f]:
            at[n_factors] = _PAST
            return at
        extent += cells[f]
    capacity = 2 * n_factors + 2
    gap_a = np.empty(capacity, dtype=np.int64)
    gap_b = np.empty(capacity, dtype=np.int64)
    new_a = np.empty(capacity, dtype=np.int64)
    new_b = np.empty(capacity, dtype=np.int64)
    n_gaps = 0
    for s in range(n_factors - n_sources):
        f = n_sources + s
        size = cells[f]
        place = -1
        for g in range(n_gaps):
            if gap_b[g] - gap_a[g] >= size:
                place = gap_a[g]
                break
        if place < 0:
            place = extent
            if extent > MAX_PROGRAM_CELLS - size:
                at[n_factors] = _PAST
                return at
            extent += size
        else:  # (the gaps less [place, place + size))
            m = 0
            for g in range(n_gaps):
                a, b = gap_a[g], gap_b[g]
                if b <= place or a >= place + size:
                    new_a[m], new_b[m] = a, b
                    m += 1
                    continue
                if a < place:
                    new_a[m], new_b[m] = a, place
                    m += 1
                if place + size < b:
                    new_a[m], new_b[m] = place + size, b
                    m += 1
            gap_a[:m], gap_b[:m] = new_a[:m], new_b[:m]
            n_gaps = m
        at[f] = place
        # the factors read, freed: added to the gaps, merged where they touch
        m = n_gaps
        for i in range(step_start[s], step_start[s + 1]):
            g = involved[i]
            if cells[g] > 0:
                gap_a[m], gap_b[m] = at[g], at[g] + cells[g]
                m += 1
        by_start = np.argsort(gap_a[:m], kind="mergesort")
        n_gaps = 0
        for i in by_start:
            a, b = gap_a[i], gap_b[i]
            if n_gaps > 0 and a <= new_b[n_gaps - 1]:
                new_b[n_gaps - 1] = max(new_b[n_gaps - 1], b)
            else:
                new_a[n_gaps], new_b[n_gaps] = a, b
                n_gaps += 1
        gap_a[:n_gaps], gap_b[:n_gaps] = new_a[:n_gaps], new_b[:n_gaps]
    at[n_factors] = extent
    return at


@njit(cache=True, nogil=True)
def elimination_program(family_start, family_members, member_strides, table_at, class_stride,
                        nodes, summed, n_categories, order):  # fmt: skip  # pragma: no cover
    """The program summing the features flagged in ``summed`` out of the product of the
    families of ``nodes`` (ascending; the others' factors taken as 1), eliminated in
    ``order`` (every summed member of those families, once).

    ``family_start`` / ``family_members`` / ``member_strides``: each feature's family
    (parents, then the feature) as CSR and each member's stride in its table;
    ``table_at`` / ``class_stride``: where each feature's table starts and its class
    axis's stride (:class:`~discotree.models.elimination_plan.FlatTables`).

    Returns the program's 18 arrays (in the order of
    :func:`~discotree.kernels.elimination.eliminated_log_marginals`), a fault code of
    :data:`PROGRAM_FAULTS` (0: none; then the arrays are not a program) and the
    variable it names (-1 where none).

    Examples
    --------
    Feature 1 (3 values, parent 0) summed out of a network of two features.

    >>> i = lambda *v: np.array(v, dtype=np.int64)
    >>> out = elimination_program(i(0, 1, 3), i(0, 0, 1), i(1, 3, 1), i(0, 4), i(2, 6),
    ...     i(0, 1), np.array([False, True]), i(2, 3), i(1))
    >>> out[-2:], out[8].tolist()  # (no fault; where each factor starts, then the size)
    ((0, -1), [0, 1, 4, 5])
    """
    n_features = len(n_categories)
    n_sources = len(nodes)
    n_members = 0
    for i in range(n_sources):
        n_members += family_start[nodes[i] + 1] - family_start[nodes[i]]
    source_at = np.empty(n_sources, dtype=np.int64)
    source_class_stride = np.empty(n_sources, dtype=np.int64)
    observed_start = np.zeros(n_sources + 1, dtype=np.int64)
    kept_start = np.zeros(n_sources + 1, dtype=np.int64)
    observed_vars = np.empty(n_members, dtype=np.int64)
    observed_strides = np.empty(n_members, dtype=np.int64)
    kept_strides = np.empty(n_members, dtype=np.int64)
    kept_cards = np.empty(n_members, dtype=np.int64)
    # every factor: the sources, then one per step (at most one per source and one per
    # variable of the order: each step joins two live factors but the last of each
    # variable's); scopes as CSR, grown as needed
    max_factors = 2 * n_sources + len(order) + 1
    cells = np.zeros(max_factors, dtype=np.int64)
    scope_start = np.zeros(max_factors + 1, dtype=np.int64)
    scope_vars = np.empty(n_members + 16, dtype=np.int64)
    n_observed, n_kept, n_scope = 0, 0, 0
    fault, culprit = 0, -1
    by_variable = np.empty(n_members + 1, dtype=np.int64)
    for i in range(n_sources):
        j = nodes[i]
        a, b = family_start[j], family_start[j + 1]
        source_at[i] = table_at[j]
        source_class_stride[i] = class_stride[j]
        for t in range(a, b):  # (the members by variable: an insertion sort)
            u = t - a
            while u > 0 and family_members[by_variable[u - 1]] > family_members[t]:
                by_variable[u] = by_variable[u - 1]
                u -= 1
            by_variable[u] = t
        size = 1
        for u in range(b - a):
            t = by_variable[u]
            v = family_members[t]
            if summed[v]:
                kept_strides[n_kept] = member_strides[t]
                kept_cards[n_kept] = n_categories[v]
                n_kept += 1
                scope_vars = _append(scope_vars, n_scope, v)
                n_scope += 1
                size = _times(size, n_categories[v])
            else:
                observed_vars[n_observed] = v
                observed_strides[n_observed] = member_strides[t]
                n_observed += 1
        observed_start[i + 1] = n_observed
        kept_start[i + 1] = n_kept
        scope_start[i + 1] = n_scope
        cells[i] = size
        if size == _PAST:
            fault = 3
    n_factors = n_sources
    live = np.empty(max_factors, dtype=np.int64)
    joined = np.empty(max_factors, dtype=np.int64)
    n_live = 0
    for f in range(n_sources):
        if scope_start[f + 1] > scope_start[f]:
            live[n_live] = f
            n_live += 1
    # the steps' arrays (involved, var_strides: each factor once, each step's own too)
    max_steps = max_factors - n_sources
    step_start = np.zeros(max_steps + 1, dtype=np.int64)
    out_start = np.zeros(max_steps + 1, dtype=np.int64)
    stride_start = np.zeros(max_steps + 1, dtype=np.int64)
    involved = np.empty(max_factors + max_steps, dtype=np.int64)
    var_strides = np.empty(max_factors + max_steps, dtype=np.int64)
    var_cards = np.empty(max_steps, dtype=np.int64)
    closing = np.empty(max_steps, dtype=np.int64)
    out_cards = np.empty(n_members + 16, dtype=np.int64)
    strides = np.empty(2 * n_members + 16, dtype=np.int64)
    n_steps, n_involved, n_out, n_strides = 0, 0, 0, 0
    held = np.zeros(n_features, dtype=np.bool_)
    within = np.zeros(n_features, dtype=np.int64)  # (strides in one factor; 0 elsewhere)
    pair = np.empty(max_factors, dtype=np.int64)
    flagged = np.zeros(max_factors, dtype=np.bool_)  # (read only where just set)
    for variable in order:
        if fault:
            break
        for g in range(n_live):  # (live stays ascending: new factors go last)
            f = live[g]
            flagged[f] = _holds(scope_vars, scope_start[f], scope_start[f + 1], variable)
        n_joined, n_live = _partition(live, 0, n_live, flagged, joined, 0)
        if n_joined == 0:
            fault, culprit = 1, variable
            break
        current = 0  # (the smallest; ties: the first made)
        for g in range(1, n_joined):
            if cells[joined[g]] < cells[joined[current]]:
                current = g
        smallest = joined[current]
        for g in range(current, 0, -1):  # (to the front, the others kept ascending)
            joined[g] = joined[g - 1]
        joined[0] = current = smallest
        first = 1  # (the others not yet joined: joined[first:n_joined])
        while True:
            pair[0], n_pair = current, 1
            if first < n_joined:
                for t in range(scope_start[current], scope_start[current + 1]):
                    held[scope_vars[t]] = True
                best = first
                best_cells = _union_cells(scope_vars, scope_start, held, joined[first],
                                          cells[current], n_categories)  # fmt: skip
                best_cells = MAX_PROGRAM_CELLS if best_cells == _PAST else best_cells
                for g in range(first + 1, n_joined):
                    c = _union_cells(scope_vars, scope_start, held, joined[g], cells[current],
                                     n_categories)  # fmt: skip
                    c = MAX_PROGRAM_CELLS if c == _PAST else c
                    if c < best_cells:  # (ties: the lower factor, as they are ascending)
                        best, best_cells = g, c
                for t in range(scope_start[current], scope_start[current + 1]):
                    held[scope_vars[t]] = False
                pair[1], n_pair = joined[best], 2
                for g in range(best, first, -1):  # (taken out, the rest kept ascending)
                    joined[g] = joined[g - 1]
                first += 1
                # with every other factor within their union (it adds no configuration)
                for p in range(2):
                    for t in range(scope_start[pair[p]], scope_start[pair[p] + 1]):
                        held[scope_vars[t]] = True
                for g in range(first, n_joined):
                    f = joined[g]
                    flagged[f] = _within(scope_vars, scope_start[f], scope_start[f + 1], held)
                n_pair, n_joined = _partition(joined, first, n_joined, flagged, pair, n_pair)
            is_closing = first >= n_joined
            # the union of the pair's scopes (ascending), less the variable when closing
            for p in range(n_pair):
                for t in range(scope_start[pair[p]], scope_start[pair[p] + 1]):
                    held[scope_vars[t]] = True
            if is_closing:
                held[variable] = False
            new_start = n_scope
            size = 1
            for v in range(n_features):
                if held[v]:
                    scope_vars = _append(scope_vars, n_scope, v)
                    n_scope += 1
                    out_cards = _append(out_cards, n_out, n_categories[v])
                    n_out += 1
                    size = _times(size, n_categories[v])
                    held[v] = False
            for p in range(n_pair):
                f = pair[p]
                stride = 1
                for t in range(scope_start[f + 1] - 1, scope_start[f] - 1, -1):
                    within[scope_vars[t]] = stride
                    stride *= n_categories[scope_vars[t]]
                involved[n_involved] = f
                var_strides[n_involved] = within[variable] if is_closing else 0
                n_involved += 1
                for t in range(new_start, n_scope):
                    strides = _append(strides, n_strides, within[scope_vars[t]])
                    n_strides += 1
                for t in range(scope_start[f], scope_start[f + 1]):
                    within[scope_vars[t]] = 0
            var_cards[n_steps] = n_categories[variable] if is_closing else 1
            closing[n_steps] = 1 if is_closing else 0
            n_steps += 1
            step_start[n_steps] = n_involved
            out_start[n_steps] = n_out
            stride_start[n_steps] = n_strides
            cells[n_factors] = size
            scope_start[n_factors + 1] = n_scope
            current = n_factors
            n_factors += 1
            if size == _PAST:
                fault = 3
            if is_closing or fault:
                break
        if not fault and scope_start[current + 1] > scope_start[current]:
            live[n_live] = current
            n_live += 1
    if not fault and n_live > 0:
        fault = 2
    factor_at = np.zeros(n_factors + 1, dtype=np.int64)
    if not fault:
        factor_at = _placed(cells[:n_factors], n_sources, step_start, involved)
        if factor_at[n_factors] == _PAST:
            fault = 3
    return (
        source_at,
        source_class_stride,
        observed_start,
        observed_vars[:n_observed].copy(),
        observed_strides[:n_observed].copy(),
        kept_start,
        kept_strides[:n_kept].copy(),
        kept_cards[:n_kept].copy(),
        factor_at,
        step_start[: n_steps + 1].copy(),
        involved[:n_involved].copy(),
        out_start[: n_steps + 1].copy(),
        out_cards[:n_out].copy(),
        stride_start[: n_steps + 1].copy(),
        strides[:n_strides].copy(),
        var_strides[:n_involved].copy(),
        var_cards[:n_steps].copy(),
        closing[:n_steps].copy(),
        fault,
        culprit,
    )
