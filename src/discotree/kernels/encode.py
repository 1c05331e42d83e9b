"""Encoding kernel: values -> category codes by search in sorted category lists."""

from __future__ import annotations

import numba


@numba.njit(cache=True, nogil=True)
def encode_sorted(values, columns, categories, offsets, out):  # pragma: no cover - numba
    """``out[r, columns[k]] = position of values[r, k] in its sorted categories, or -1``.

    Parameters
    ----------
    values : ndarray (n_samples, n_columns), any numeric dtype
    columns : ndarray (n_columns,), intp
        Destination column in ``out`` of each column of ``values``.
    categories : ndarray (total,), float64
        The sorted categories of every column, concatenated.
    offsets : ndarray (n_columns + 1,), intp
        Column k's categories are ``categories[offsets[k]:offsets[k+1]]``.
    out : ndarray (n_samples, n_features), intp

    NaN and values not among the categories get -1 (binary search, O(log r) each).
    """
    n_samples, n_columns = values.shape
    for r in range(n_samples):
        for k in range(n_columns):
            x = float(values[r, k])
            lo = offsets[k]
            hi = offsets[k + 1]
            code = -1
            if x != x:  # NaN is missing
                hi = lo
            while lo < hi:
                mid = (lo + hi) // 2
                c = categories[mid]
                if c < x:
                    lo = mid + 1
                elif c > x:
                    hi = mid
                else:
                    code = mid - offsets[k]
                    break
            out[r, columns[k]] = code


@numba.njit(cache=True, nogil=True)
def column_distinct(values, max_distinct, found, n_found):  # pragma: no cover - numba
    """Collect up to ``max_distinct + 1`` distinct non-NaN values of every column.

    ``found[j, :n_found[j]]`` receives the distinct values of column j in order of
    appearance; ``n_found[j] == max_distinct + 1`` means "more than max_distinct", and
    that column is no longer scanned. One pass over the rows (C order).
    """
    n_samples, n_columns = values.shape
    limit = max_distinct + 1
    for j in range(n_columns):
        n_found[j] = 0
    for r in range(n_samples):
        for j in range(n_columns):
            m = n_found[j]
            if m >= limit:
                continue
            x = float(values[r, j])
            if x != x:  # NaN
                continue
            seen = False
            for k in range(m):
                if found[j, k] == x:
                    seen = True
                    break
            if not seen:
                found[j, m] = x
                n_found[j] = m + 1


@numba.njit(cache=True, nogil=True)
def column_presence(values, lowest, present):  # pragma: no cover - numba
    """``present[j, v - lowest] = True`` for every integer value v of column j."""
    n_samples, n_columns = values.shape
    for r in range(n_samples):
        for j in range(n_columns):
            present[j, values[r, j] - lowest] = True


@numba.njit(cache=True, nogil=True)
def encode_lookup(values, columns, table, out):  # pragma: no cover - numba
    """``out[r, columns[k]] = table[k, values[r, k]]`` for integer values in range, else -1."""
    n_samples, n_columns = values.shape
    size = table.shape[1]
    for r in range(n_samples):
        for k in range(n_columns):
            v = values[r, k]
            if 0 <= v < size:
                out[r, columns[k]] = table[k, v]
            else:
                out[r, columns[k]] = -1
