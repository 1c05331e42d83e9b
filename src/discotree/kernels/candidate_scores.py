"""Which samples each candidate structure classifies correctly (the inner loop of the
discriminative structure searches of Pernkopf & Bilmes 2010, Section 4.4.1: the classification rate
of
every candidate, speed-up 2 of that section applied to a block of samples).

A candidate replaces one node's column of the joint ``log P(c, x)``: at sample s its
joint is ``base[s] + table[index[l, s]]`` (``base`` the current joint minus the old
column). The kernel takes the argmax over classes of that sum without forming the
(candidates, samples, classes) array, with the package's tie rule
(:func:`discotree.numerics.argmax_with_ties`: the first class within ``SCORE_TIE_RTOL``
of the largest; a row with a NaN predicts the first class), as ``predict`` does. The
candidates are split over the cores (:func:`discotree.threads.in_chunks`) when there
are enough of them.

:func:`candidate_hits` with ``old`` is the same for candidates that each replace a
different node's column (SuperParent's pairs of children, step 2 of Section 4.4.2): at
sample s the joint is ``(base[s] - table[old[l, s]]) + table[index[l, s]]``.
"""

from __future__ import annotations

import numba
import numpy as np
from numpy.typing import NDArray

from ..missing_values import is_missing_code
from ..numerics import SCORE_TIE_RTOL
from ..threads import in_chunks

__all__ = ["candidate_hits", "pair_table_rows", "single_table_rows"]

#: Below twice this many (candidate, sample, class) values, one thread does it all.
_MIN_WORK = 1 << 20


@numba.njit(cache=True, nogil=True, inline="always")
def _tie_low(top, rtol):  # pragma: no cover - numba
    """The lowest value that ties with the largest, ``top``, under the tie rule of
    :func:`discotree.numerics.argmax_with_ties`."""
    magnitude = abs(top) if top - top == 0.0 else 0.0  # 0 for an infinite top
    return top - rtol * max(magnitude, 1.0)


@numba.njit(cache=True, nogil=True)
def _value(base, table, old, s, c, o, n):  # pragma: no cover - numba
    # The joint of class c at sample s: base[s, c] + table[n, c] when ``old`` is None
    # (numba compiles that case apart and drops the other branch), else
    # (base[s, c] - table[o, c]) + table[n, c].
    if old is None:
        return base[s, c] + table[n, c]
    return (base[s, c] - table[o, c]) + table[n, c]


@numba.njit(cache=True, nogil=True)
def _hits(base, table, old, new, truth, rtol, start, stop, out):  # pragma: no cover
    # A sample is a hit when its true class t is the first within the tie tolerance of
    # the largest value: the largest first (a branch-free pass; a NaN anywhere predicts
    # class 0), then t's value and, only when it ties, the classes before t.
    n_rows = new.shape[1]
    n_classes = base.shape[1]
    for i in range(start, stop):
        for s in range(np.uint64(n_rows)):
            o = 0
            if old is not None:
                o = old[i, s]
            n = new[i, s]
            top = _value(base, table, old, s, 0, o, n)
            nan = top != top
            for c in range(1, n_classes):
                v = _value(base, table, old, s, c, o, n)
                nan |= v != v
                top = max(top, v)
            t = truth[s]
            if nan:
                out[i, s] = t == 0
                continue
            low = _tie_low(top, rtol)
            hit = _value(base, table, old, s, t, o, n) >= low
            if hit:
                for c in range(t):
                    if _value(base, table, old, s, c, o, n) >= low:
                        hit = False
                        break
            out[i, s] = hit


def candidate_hits(
    base: NDArray[np.float64],
    table: NDArray[np.float64],
    index: NDArray[np.intp],
    truth: NDArray[np.intp],
    old: NDArray[np.intp] | None = None,
) -> NDArray[np.bool_]:
    """``argmax(base[None] + table[index], axis=2) == truth`` without the 3-d array; with
    ``old``, ``argmax(base[None] - table[old] + table[index], axis=2) == truth`` (the two
    operations in that order, as :meth:`Scorer.value_above` applies a change).

    Parameters
    ----------
    base : ndarray of shape (n_rows, n_classes)
        The joint of each sample minus the column being replaced (with ``old``: every
        change common to the candidates applied).
    table : ndarray of shape (n_table_rows, n_classes)
        The candidates' column values (with ``old``: their old and new ones).
    index : ndarray of shape (n_candidates, n_rows)
        Row of ``table`` of each candidate at each sample (with ``old``: of the column
        it puts in).
    truth : ndarray of shape (n_rows,)
        The true class of each sample.
    old : ndarray of shape (n_candidates, n_rows), default=None
        Row of ``table`` of the column each candidate takes out at each sample, for
        candidates that each replace a different node's column; None: every candidate
        replaces the column ``base`` leaves out.

    Returns
    -------
    hits : ndarray of bool, shape (n_candidates, n_rows)

    Examples
    --------
    >>> import numpy as np
    >>> base = np.log([[0.6, 0.4], [0.5, 0.5]])
    >>> table = np.log([[0.9, 0.1], [0.1, 0.9]])
    >>> candidate_hits(base, table, np.array([[0, 0], [1, 1]]), np.array([0, 1]))
    array([[ True, False],
           [False,  True]])
    >>> table = np.log([[0.5, 0.5], [0.9, 0.1], [0.1, 0.9]])
    >>> old = np.zeros((2, 2), dtype=np.intp)
    >>> candidate_hits(base, table, np.array([[1, 1], [2, 2]]), np.array([0, 1]), old)
    array([[ True, False],
           [False,  True]])
    """
    out = np.empty(index.shape, dtype=np.bool_)
    arrays = (
        np.ascontiguousarray(base, dtype=np.float64),
        np.ascontiguousarray(table, dtype=np.float64),
        None if old is None else np.ascontiguousarray(old, dtype=np.intp),
        np.ascontiguousarray(index, dtype=np.intp),
        np.ascontiguousarray(truth, dtype=np.intp),
    )
    in_chunks(  # _hits over the candidates, split over the cores when there are enough
        lambda start, stop: _hits(*arrays, SCORE_TIE_RTOL, start, stop, out),
        index.shape[0],
        index.size * base.shape[1],
        _MIN_WORK,
    )
    return out


@numba.njit(cache=True, nogil=True)
def _pair_table_rows(
    codes_by_feature, first, second, starts, r_second, node, r_node, past, live, rows, out
):  # pragma: no cover - numba
    for i in range(np.uint64(live.shape[0])):
        pair = live[i]
        a_codes = codes_by_feature[first[pair]]
        b_codes = codes_by_feature[second[pair]]
        start, rb = starts[pair], r_second[pair]
        for s in range(np.uint64(rows.shape[0])):
            row = rows[s]
            a, b, x = a_codes[row], b_codes[row], codes_by_feature[node, row]
            if is_missing_code(x):
                out[i, s] = past + r_node
            elif is_missing_code(a) or is_missing_code(b):
                out[i, s] = past + x
            else:
                out[i, s] = (start + a * rb + b) * r_node + x


def pair_table_rows(
    codes_by_feature: NDArray[np.intp],
    first: NDArray[np.intp],
    second: NDArray[np.intp],
    starts: NDArray[np.intp],
    r_second: NDArray[np.intp],
    *,
    node: int,
    r_node: int,
    past: int,
    live: NDArray[np.intp],
    rows: NDArray[np.intp],
) -> NDArray[np.intp]:
    """Rows of the shared table of parent pairs (see
    :class:`discotree.models.bayes_net.PairParentColumns`) of pairs ``live`` at samples
    ``rows``: ``(starts[i] + x_a r_b + x_b) r_node + x_node``; ``past + x_node`` where a
    parent is missing and ``past + r_node`` where the node is, shape
    (len(live), len(rows)).

    Examples
    --------
    >>> import numpy as np
    >>> codes = np.array([[0, 1], [1, -1], [1, 0]])  # 3 attributes, 2 samples
    >>> pair_table_rows(codes, np.array([0]), np.array([1]), np.array([0]),
    ...                 np.array([2]), node=2, r_node=2, past=8, live=np.array([0]),
    ...                 rows=np.array([0, 1]))
    array([[3, 8]])
    """
    out = np.empty((len(live), len(rows)), dtype=np.intp)
    _pair_table_rows(
        np.ascontiguousarray(codes_by_feature, dtype=np.intp),
        first,
        second,
        starts,
        r_second,
        int(node),
        int(r_node),
        int(past),
        np.ascontiguousarray(live, dtype=np.intp),
        np.ascontiguousarray(rows, dtype=np.intp),
        out,
    )
    return out


@numba.njit(cache=True, nogil=True)
def _single_table_rows(
    codes_by_feature, parents, offsets, node, r_node, past, rows, out
):  # pragma: no cover - numba
    node_codes = codes_by_feature[node]
    for i in range(np.uint64(parents.shape[0])):
        parent = parents[i]
        parent_codes = codes_by_feature[parent]
        start = offsets[parent]
        for s in range(np.uint64(rows.shape[0])):
            row = rows[s]
            a, x = parent_codes[row], node_codes[row]
            if is_missing_code(x):
                out[i, s] = past + r_node
            elif is_missing_code(a):
                out[i, s] = past + x
            else:
                out[i, s] = (start + a) * r_node + x


def single_table_rows(
    codes_by_feature: NDArray[np.intp],
    parents: NDArray[np.intp],
    offsets: NDArray[np.intp],
    node: int,
    r_node: int,
    *,
    past: int,
    rows: NDArray[np.intp],
) -> NDArray[np.intp]:
    """Rows of the shared table of single parents (see
    :class:`discotree.models.bayes_net.SingleParentColumns`) of ``parents`` at samples
    ``rows``: ``(offsets[p] + x_p) r_node + x_node``; ``past + x_node`` where the parent
    is missing and ``past + r_node`` where the node is, shape (len(parents), len(rows)).

    Examples
    --------
    >>> import numpy as np
    >>> codes = np.array([[0, 1], [1, -1], [1, 0]])  # 3 attributes, 2 samples
    >>> single_table_rows(codes, np.array([0, 1]), np.array([0, 2, 4]), 2, 2, past=8,
    ...                   rows=np.array([0, 1]))
    array([[1, 2],
           [7, 8]])
    """
    out = np.empty((len(parents), len(rows)), dtype=np.intp)
    _single_table_rows(
        np.ascontiguousarray(codes_by_feature, dtype=np.intp),
        np.ascontiguousarray(parents, dtype=np.intp),
        np.ascontiguousarray(offsets, dtype=np.intp),
        int(node),
        int(r_node),
        int(past),
        np.ascontiguousarray(rows, dtype=np.intp),
        out,
    )
    return out
