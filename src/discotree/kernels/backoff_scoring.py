"""Scoring rows under hierarchical smoothing with nothing left out, compiled: every
node of a k-dependence model's back-off over all the rows in one call
(:func:`backoff_node_probabilities`), the same operations on the same numbers as
:func:`discotree.kernels.hierarchical_terms.hierarchical_level_terms` with no unit left
out and the concentrations given (the per-node path: its reference, in the tests), and
the tables of the first levels it starts from (:func:`tabulate_backoff_states`).
"""

from __future__ import annotations

import numba
import numpy as np

from ..missing_values import is_missing_code
from .sparse_families import first_at_least

__all__ = [
    "backoff_node_probabilities",
    "log_add_exp",
    "run_sums",
    "tabulate_backoff_states",
    "tabulated_log_likelihood",
]


@numba.njit(cache=True, nogil=True)
def log_add_exp(x, y):  # pragma: no cover - numba
    """numpy's ``logaddexp`` of two numbers, compiled: exact for equal arguments and
    for a -inf one.

    Examples
    --------
    >>> float(log_add_exp(0.0, -np.inf))
    0.0
    """
    if x == y:
        return x + np.log(2.0)
    difference = x - y
    if difference > 0:
        return x + np.log1p(np.exp(-difference))
    if difference <= 0:
        return y + np.log1p(np.exp(difference))
    return difference  # (NaN)


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
            log_p[c] = log_add_exp(log_count, log_b + log_p[c]) - np.log(tc + b)
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


@numba.njit(cache=True, nogil=True, inline="always")
def _present_levels(
    tables, t, value, row_parents, start_level, end_level, identity, p_linear
):  # pragma: no cover - numba
    # _node_levels's levels start_level..end_level - 1 of a node that may stop (linear,
    # every level's concentration a power of two, its configurations nested), from a
    # tabulated state (value < r): the same steps, with the searches written out here
    # (a call of _configuration_range per level cost more than its search: a fifth of
    # optdigits' scoring); a dense index, where a level has one, gives the same ranges
    parent_start, radices = tables[1], tables[2]
    value_bounds, value_keys, value_masses = tables[3], tables[4], tables[5]
    total_bounds, total_keys, total_sums = tables[8], tables[9], tables[10]
    concentrations = tables[14]
    r, n_classes = tables[0][t], p_linear.shape[0]
    first_level = parent_start[t] + t
    for level in range(start_level, end_level):
        g = first_level + level
        parent = row_parents[level - 1]
        if parent < 0:  # (no deeper configuration is present: nothing changes)
            return
        identity = identity * radices[parent_start[t] + level - 1] + parent
        begin = identity * n_classes
        t_low = first_at_least(total_keys, total_bounds[g], total_bounds[g + 1], begin)
        t_high = t_low
        while t_high < total_bounds[g + 1] and total_keys[t_high] < begin + n_classes:
            t_high += 1
        if t_low == t_high:  # (likewise)
            return
        v_begin = (identity * r + value) * n_classes
        v_low = first_at_least(value_keys, value_bounds[g], value_bounds[g + 1], v_begin)
        v_high = v_low
        while v_high < value_bounds[g + 1] and value_keys[v_high] < v_begin + n_classes:
            v_high += 1
        _present_step(total_keys, total_sums, t_low, t_high, begin, value_keys, value_masses,
                      v_low, v_high, v_begin, concentrations[g], p_linear)  # fmt: skip


@numba.njit(cache=True, nogil=True)
def _seen_slots(n_rows):  # pragma: no cover - numba
    # the size of the table of rows seen (a power of two, at least twice the rows)
    size = 16
    while size < 2 * n_rows:
        size *= 2
    return size


@numba.njit(cache=True, nogil=True)
def _family_keys_fit(radices, first, n_levels, r):  # pragma: no cover - numba
    # whether every (value, parents) key of the node fits in 62 bits (each parent's
    # code plus one, 0 missing, below its radix plus one; the value below r)
    size = 1.0
    for k in range(n_levels - 1):
        size *= radices[first + k] + 1.0
    return size * r < 2.0**62


@numba.njit(cache=True, nogil=True, inline="always")
def _family_key(row_parents, radices, first, n_levels, value, r):  # pragma: no cover
    # the row's (value, parents) as one number, or -1 when a code is out of range
    if value < 0 or value >= r:
        return -1
    key = value
    for k in range(n_levels - 1):
        parent = row_parents[k]
        if parent >= radices[first + k] or parent < -1:
            return -1
        key = key * (radices[first + k] + 1) + parent + 1
    return key


@numba.njit(cache=True, nogil=True, inline="always")
def _seen_row(seen_keys, seen_rows, key, row):  # pragma: no cover - numba
    # the earlier row of ``key`` (open addressing), or -1 after noting ``row`` as its
    mask = seen_keys.shape[0] - 1
    slot = ((key * 0x5851F42D4C957F2D) >> 20) & mask
    while seen_keys[slot] >= 0:
        if seen_keys[slot] == key:
            return seen_rows[slot]
        slot = (slot + 1) & mask
    seen_keys[slot] = key
    seen_rows[slot] = row
    return -1


@numba.njit(cache=True, nogil=True)
def _tabulated_places(codes, row_start, node, parents, first, n_levels, radices, r, state_at,
                      n_classes, places):  # fmt: skip  # pragma: no cover - numba
    # where each row's state starts in a fully tabulated node's states (-1: its value
    # missing or unseen, or a parent missing or out of range: scored level by level)
    for i in range(places.shape[0]):
        value = codes[row_start + i, node]
        places[i] = -1
        if is_missing_code(value) or value >= r:
            continue
        identity = 0
        for k in range(n_levels - 1):
            parent = codes[row_start + i, parents[first + k]]
            if is_missing_code(parent) or parent >= radices[first + k]:
                identity = -1
                break
            identity = identity * radices[first + k] + parent
        if identity >= 0:
            places[i] = state_at + (identity * r + value) * n_classes


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
    row_start,
    out,
    raw,
):  # pragma: no cover - numba
    """The deepest level's back-off estimate of each node ``nodes[which[s]]`` for the
    rows ``row_start..row_start + out.shape[1]`` of ``codes``, nothing left out, into
    ``out[s]``: logarithms (0 where the node is missing), except the probabilities of
    a linear node's rows that ``raw[s]`` marks (the caller takes their logarithms,
    as the per-node path does, with numpy): the same operations on the same numbers as
    :func:`~discotree.kernels.hierarchical_terms.hierarchical_level_terms` with ``unit`` 0
    and the concentrations given, for
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
    a row with those parents observed starts from them at level ``D``; where ``D`` is
    the node's every level, they are the logarithms of those probabilities (taken by
    numpy, as the caller takes them), and the rows' places are found first, their
    numbers then read in a loop of their own (many reads in flight: on optdigits the
    prediction 59 -> 37 ms). A row whose
    node value and parents are those of an earlier row of the call takes that row's
    numbers (the same operations would give the same bits): on test sets the rows of a
    node's family repeat (on optdigits about 3 in 10 are distinct, on letter 1 in 10).
    """
    parent_start, radices = tables[1], tables[2]
    n_rows, n_classes = out.shape[1], out.shape[2]
    counts, totals = np.zeros(n_classes), np.zeros(n_classes)
    log_p, p_linear = np.empty(n_classes), np.empty(n_classes)
    row_parents = np.empty(max(1, parent_start.shape[0]), dtype=np.int64)
    n_slots = _seen_slots(n_rows)
    seen_keys, seen_rows = np.empty(n_slots, dtype=np.int64), np.empty(n_slots, dtype=np.int64)
    places = np.empty(n_rows, dtype=np.int64)
    for s in range(which.shape[0]):
        t = which[s]
        node, r, linear = nodes[t], tables[0][t], tables[16][t]
        first, n_levels = parent_start[t], parent_start[t + 1] - parent_start[t] + 1
        # (a fully tabulated node reads its state as cheaply as an earlier row's numbers)
        tabulated = state_at[t] >= 0 and state_depth[t] == n_levels
        keyed = not tabulated and _family_keys_fit(radices, first, n_levels, r)
        seen_keys[:] = -1
        if tabulated:  # the rows' places first, then their states read in a tight loop
            _tabulated_places(codes, row_start, node, parents, first, n_levels, radices, r,
                              state_at[t], n_classes, places)  # fmt: skip
            for i in range(n_rows):
                at = places[i]
                if at >= 0:
                    for c in range(n_classes):
                        out[s, i, c] = states[at + c]
        for i in range(n_rows):
            if tabulated and places[i] >= 0:  # (logarithms already)
                raw[s, i] = False
                continue
            value = codes[row_start + i, node]
            raw[s, i] = False
            if is_missing_code(value):  # (the per-node path's terms are replaced by these: log 1)
                for c in range(n_classes):
                    out[s, i, c] = 0.0
                continue
            for k in range(n_levels - 1):
                row_parents[k] = codes[row_start + i, parents[first + k]]
            if keyed:  # a row with the same value and parents as an earlier one: its numbers
                key = _family_key(row_parents, radices, first, n_levels, value, r)
                if key >= 0:
                    earlier = _seen_row(seen_keys, seen_rows, key, i)
                    if earlier >= 0:
                        raw[s, i] = raw[s, earlier]
                        for c in range(n_classes):
                            out[s, i, c] = out[s, earlier, c]
                        continue
            folded, identity = 0, 0
            if state_at[t] >= 0 and value < r:  # a tabulated start, if its parents are
                folded = state_depth[t]
                for k in range(folded - 1):
                    parent = row_parents[k]
                    if parent < 0 or parent >= radices[first + k]:
                        folded, identity = 0, 0
                        break
                    identity = identity * radices[first + k] + parent
                if folded == n_levels:  # (as read above: not reached, places cover these)
                    base = state_at[t] + (identity * r + value) * n_classes
                    for c in range(n_classes):
                        out[s, i, c] = states[base + c]
                    continue
                if folded > 0:
                    base = state_at[t] + (identity * r + value) * n_classes
                    for c in range(n_classes):
                        p_linear[c] = states[base + c]
            if folded > 0 and tables[17][t]:  # a linear node that may stop: its own loop
                _present_levels(tables, t, value, row_parents, folded, n_levels, identity,
                                p_linear)  # fmt: skip
                raw[s, i] = True
                for c in range(n_classes):
                    out[s, i, c] = p_linear[c]
                continue
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
def _tabulate_present_level(
    tables, g, r, radix, n_keys, n_classes, states, before, base
):  # pragma: no cover - numba
    # tabulate_backoff_states's level g (a linear node's, b a power of two) for all its
    # keys at once: each key's state is its prefix's (at ``before``), and then the
    # classes present under its configuration take _present_step's step, the
    # configurations and their values met in order (no search): what the step of
    # every key gives, the absent classes' (0 + b p) / (0 + b) being p
    total_bounds, total_keys, total_sums = tables[8], tables[9], tables[10]
    value_bounds, value_keys, value_masses = tables[3], tables[4], tables[5]
    b = tables[14][g]
    for key in range(n_keys):
        above = (key // r) // radix * r + key % r
        for c in range(n_classes):
            states[base + key * n_classes + c] = states[before + above * n_classes + c]
    m, high = total_bounds[g], total_bounds[g + 1]
    j, v_high = value_bounds[g], value_bounds[g + 1]
    while m < high:
        identity = total_keys[m] // n_classes
        stop = m
        while stop < high and total_keys[stop] // n_classes == identity:
            stop += 1
        for value in range(r):
            begin = (identity * r + value) * n_classes
            while j < v_high and value_keys[j] < begin:
                j += 1
            v_stop = j
            while v_stop < v_high and value_keys[v_stop] < begin + n_classes:
                v_stop += 1
            at = base + (identity * r + value) * n_classes
            _present_step(
                total_keys,
                total_sums,
                m,
                stop,
                identity * n_classes,
                value_keys,
                value_masses,
                j,
                v_stop,
                begin,
                b,
                states[at : at + n_classes],
            )
        m = stop


@numba.njit(cache=True, nogil=True)
def tabulated_log_likelihood(by_feature, which, nodes, parents, parent_start, radices, r_nodes,
                             state_at, states, total):  # fmt: skip  # pragma: no cover
    """Add to ``total`` (rows x classes) the logarithms of the nodes ``nodes[which[s]]``,
    each fully tabulated (its states, from ``state_at``, are its logarithms: see
    :func:`backoff_node_probabilities`), for the rows whose codes ``by_feature`` holds
    by feature (features x rows: each node reads its parents' codes for all the rows
    in a run), node after node (nothing where the node is missing, as its term is
    log 1): the sums of :func:`backoff_node_probabilities`' terms added in turn,
    without holding them. Returns False as soon as a row's parent is missing or a code
    is past its table (its numbers are not in the states; ``total`` is then partly
    added to), else True.

    Examples
    --------
    One binary node without parents, two classes, its logarithms tabulated.

    >>> i = lambda *v: np.array(v, dtype=np.int64)
    >>> states = np.log(np.array([0.25, 0.5, 0.75, 0.5]))  # (value, class)
    >>> total = np.zeros((2, 2))
    >>> tabulated_log_likelihood(i(1, -1).reshape(1, 2), i(0), i(0), i(), i(0, 0), i(),
    ...                          i(2), i(0), states, total)
    True
    >>> np.exp(total).tolist()
    [[0.75, 0.5], [1.0, 1.0]]
    """
    n_rows, n_classes = total.shape
    keys = np.empty(n_rows, dtype=np.int64)  # (each row's parents' configuration; -1: none)
    for s in range(which.shape[0]):
        t = which[s]
        node, r = nodes[t], r_nodes[t]
        first, n_levels = parent_start[t], parent_start[t + 1] - parent_start[t] + 1
        keys[:] = 0
        for k in range(n_levels - 1):  # (a parent at a time, over every row)
            column, radix = by_feature[parents[first + k]], radices[first + k]
            for i in range(n_rows):
                parent, key = column[i], keys[i]
                unread = key < 0 or is_missing_code(parent) or parent >= radix
                keys[i] = -1 if unread else key * radix + parent
        values = by_feature[node]
        for i in range(n_rows):  # (each row's place in the states: -2 none, log 1)
            value = values[i]
            if is_missing_code(value):
                keys[i] = -2
            elif keys[i] < 0 or value >= r:
                return False
            else:
                keys[i] = state_at[t] + (keys[i] * r + value) * n_classes
        for i in range(n_rows):  # (then the states read in a loop of their own)
            at = keys[i]
            if at >= 0:
                for c in range(n_classes):
                    total[i, c] += states[at + c]
    return True


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
            g = first + t + d - 1
            if d > 1 and tables[16][t] and tables[15][g]:  # only the present classes change
                before = at[at_start[t] + d - 2]
                _tabulate_present_level(tables, g, r, radices[first + d - 2], n_keys,
                                        n_classes, states, before, base)  # fmt: skip
                continue
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
