"""Encoding kernel: values -> category codes by search in sorted category lists."""

from __future__ import annotations

import numba
import numpy as np

from ..missing_values import is_missing, is_missing_code

#: Cells (rows x columns) up to which the helpers that wrap a kernel here (and in
#: :mod:`discotree.kernels.quantiles`) run as plain
#: numpy instead, with the same results to the bit: a first fit on a small data set
#: then compiles none of these kernels (numba compiles a kernel on its first call,
#: about 0.2-1 s each without a cache), and on so little data numpy costs at most a
#: fraction of a millisecond more a call (timed at the limits when they were set; not
#: a committed benchmark)...
SMALL_DATA_CELLS = 20_000
#: ...and the limit of :func:`column_distinct`, whose numpy path sorts each column.
_NUMPY_SORT_CELLS = 2_000


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


def column_distinct(
    values: np.ndarray, max_distinct: int, found: np.ndarray, n_found: np.ndarray
) -> None:
    """Collect up to ``max_distinct + 1`` distinct non-NaN values of every column.

    ``found[j, :n_found[j]]`` receives the distinct values of column j in order of
    appearance (as floats; ``-0.0`` and ``0.0`` are one value, the first seen);
    ``n_found[j] == max_distinct + 1`` means "more than max_distinct". A compiled pass
    over the rows (C order) that stops scanning a column at that limit; plain numpy on
    small data (a stable sort of each column: the same values in the same order).
    """
    if values.size > _NUMPY_SORT_CELLS:
        _column_distinct(values, max_distinct, found, n_found)
        return
    limit = max_distinct + 1
    for j in range(values.shape[1]):
        column = values[:, j].astype(np.float64)
        column = column[~np.isnan(column)]
        order = np.argsort(column, kind="stable")
        ordered = column[order]
        new = np.ones(len(ordered), dtype=bool)
        new[1:] = ordered[1:] != ordered[:-1]  # the first of each run of equal values
        first = np.sort(order[new])[:limit]
        found[j, : len(first)] = column[first]
        n_found[j] = len(first)


@numba.njit(cache=True, nogil=True)
def _column_distinct(values, max_distinct, found, n_found):  # pragma: no cover - numba
    """:func:`column_distinct`'s compiled pass."""
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


@numba.njit(cache=True, nogil=True)
def encode_identity(values, first, last, out):  # pragma: no cover - numba
    """``out[r, first + k] = values[r, k]`` when ``0 <= values[r, k] <= last[k]``, else -1.

    The encoding of integer columns whose categories are ``0..last[k]``: the codes are
    the values, so there is nothing to look up and the loop vectorises (``last`` has
    the dtype of ``values``). Rows in C order; see :func:`encode_identity_columns` for
    column-major input."""
    n_samples, n_columns = values.shape
    for r in range(n_samples):
        for k in range(n_columns):
            v = values[r, k]
            out[r, first + k] = v if (v >= 0) & (v <= last[k]) else -1


@numba.njit(cache=True, nogil=True)
def encode_identity_columns(columns, first, last, out):  # pragma: no cover - numba
    """:func:`encode_identity` of ``columns.T`` (``columns[k]`` holds column k's values,
    as a column-major block seen transposed): row tiles small enough for the cache, so
    each column is read in runs and ``out`` written a tile at a time."""
    n_columns, n_samples = columns.shape
    tile = 256
    for start in range(0, n_samples, tile):
        stop = min(n_samples, start + tile)
        for k in range(n_columns):
            top = last[k]
            for r in range(start, stop):
                v = columns[k, r]
                out[r, first + k] = v if (v >= 0) & (v <= top) else -1


@numba.njit(cache=True, nogil=True)
def map_columns(codes, starts, lengths, entries, missing, out):  # pragma: no cover - numba
    """``out[r, j] = entries[starts[j] + codes[r, j]]`` for the columns with a map
    (``starts[j] >= 0``, of ``lengths[j]`` entries; ``missing`` where the code is
    missing), ``codes[r, j]`` for the others. Returns the number of columns, or the
    first column holding a code past its map (``out`` then unfinished).

    Examples
    --------
    >>> out = np.empty((2, 2), dtype=np.intp)
    >>> i = lambda *v: np.array(v, dtype=np.intp)
    >>> map_columns(i(2, 1, -1, 0).reshape(2, 2), i(0, -1), i(3, 0), i(0, 0, 1), -1, out)
    2
    >>> out.tolist()
    [[1, 1], [-1, 0]]
    """
    n_samples, n_columns = codes.shape
    for r in range(n_samples):
        for j in range(n_columns):
            code = codes[r, j]
            if starts[j] < 0:
                out[r, j] = code
            elif is_missing_code(code):
                out[r, j] = missing
            elif code >= lengths[j]:
                return j
            else:
                out[r, j] = entries[starts[j] + code]
    return n_columns


def count_negatives(codes: np.ndarray, out: np.ndarray) -> None:
    """``out[j] += number of rows r with codes[r, j] < 0`` (missing or unseen codes);
    one compiled pass in row order that vectorises across the columns (numpy on small
    data)."""
    if codes.size <= SMALL_DATA_CELLS:
        out += np.count_nonzero(is_missing(codes), axis=0)
    else:
        _count_negatives(codes, out)


@numba.njit(cache=True, nogil=True)
def _count_negatives(codes, out):  # pragma: no cover - numba
    """:func:`count_negatives`'s compiled pass."""
    n_samples, n_columns = codes.shape
    for r in range(n_samples):
        for j in range(n_columns):
            out[j] += is_missing_code(codes[r, j])


def column_ranges(codes: np.ndarray, low: np.ndarray, high: np.ndarray) -> None:
    """``low[j]`` and ``high[j]``: the smallest and largest of ``codes[:, j]`` (start
    them at the dtype's largest and smallest values); one compiled pass in row order
    (numpy's axis-0 min and max on small data)."""
    if codes.size > SMALL_DATA_CELLS:
        _column_ranges(codes, low, high)
    elif codes.shape[0]:
        np.minimum(low, codes.min(axis=0), out=low)
        np.maximum(high, codes.max(axis=0), out=high)


@numba.njit(cache=True, nogil=True)
def _column_ranges(codes, low, high):  # pragma: no cover - numba
    """:func:`column_ranges`'s compiled pass."""
    n_samples, n_columns = codes.shape
    for r in range(n_samples):
        for j in range(n_columns):
            v = codes[r, j]
            low[j] = min(low[j], v)
            high[j] = max(high[j], v)


def encode_bins(
    values: np.ndarray, columns: np.ndarray, edges: np.ndarray, offsets: np.ndarray, out: np.ndarray
) -> None:
    """``out[r, columns[k]]`` = the bin of ``values[r, k]``: the number of column k's
    interior edges (``edges[offsets[k]:offsets[k+1]]``, increasing) below it, as
    ``numpy.searchsorted(edges, x, side="left")``; -1 for NaN. One compiled pass over
    the rows; on small data numpy counts the edges below each value."""
    if values.size <= SMALL_DATA_CELLS:
        parts = [edges[offsets[k] : offsets[k + 1]] for k in range(values.shape[1])]
        if all(len(part) <= 16 or _increasing(part) for part in parts):
            for k, part in enumerate(parts):
                _count_below(values[:, k], part, out[:, columns[k]])
            return
    _encode_bins(values, columns, edges, offsets, out)


def _increasing(edges: np.ndarray) -> bool:
    return bool(np.all(edges[1:] >= edges[:-1]))


def _count_below(x: np.ndarray, edges: np.ndarray, out: np.ndarray) -> None:
    """``out[r]``: the number of ``edges`` below ``x[r]``, -1 for NaN (numpy: a binary
    search when the edges increase, else a count, as the kernels do)."""
    x = x.astype(np.float64)
    if _increasing(edges):
        code = np.searchsorted(edges, x, side="left")
    else:
        code = np.count_nonzero(edges[None, :] < x[:, None], axis=1)
    out[:] = np.where(np.isnan(x), -1, code)


@numba.njit(cache=True, nogil=True)
def _encode_bins(values, columns, edges, offsets, out):  # pragma: no cover - numba
    """:func:`encode_bins`'s compiled pass."""
    n_samples, n_columns = values.shape
    for r in range(n_samples):
        for k in range(n_columns):
            x = float(values[r, k])
            if x != x:
                out[r, columns[k]] = -1
                continue
            lo = offsets[k]
            hi = offsets[k + 1]
            if hi - lo <= 16:  # few edges: count them without branches
                code = 0
                for e in range(lo, hi):
                    code += edges[e] < x
                out[r, columns[k]] = code
                continue
            start = lo
            while lo < hi:  # first edge >= x
                mid = (lo + hi) // 2
                if edges[mid] < x:
                    lo = mid + 1
                else:
                    hi = mid
            out[r, columns[k]] = lo - start


def encode_bins_padded(
    values: np.ndarray, columns: np.ndarray, padded: np.ndarray, out: np.ndarray
) -> None:
    """:func:`encode_bins` for few edges: column k's edges in ``padded[k]``, padded with
    +inf to a common length, counted without branches (about twice as fast; numpy on
    small data)."""
    if values.size > SMALL_DATA_CELLS:
        _encode_bins_padded(values, columns, padded, out)
        return
    for k in range(values.shape[1]):
        _count_below(values[:, k], padded[k], out[:, columns[k]])


@numba.njit(cache=True, nogil=True)
def _encode_bins_padded(values, columns, padded, out):  # pragma: no cover - numba
    """:func:`encode_bins_padded`'s compiled pass."""
    n_samples, n_columns = values.shape
    width = padded.shape[1]
    for r in range(n_samples):
        for k in range(n_columns):
            x = float(values[r, k])
            code = 0
            for e in range(width):
                code += padded[k, e] < x
            out[r, columns[k]] = code if x == x else -1


@numba.njit(cache=True, nogil=True)
def _same_bytes(data, offsets, a, b):  # pragma: no cover - numba
    """Strings a and b (rows of the Arrow layout ``offsets``/``data``) are equal."""
    start_a, end_a = offsets[a], offsets[a + 1]
    start_b = offsets[b]
    if end_a - start_a != offsets[b + 1] - start_b:
        return False
    for i in range(end_a - start_a):
        if data[start_a + i] != data[start_b + i]:
            return False
    return True


def padded_words(data: np.ndarray) -> np.ndarray:
    """``data`` (uint8) and at least 8 zero bytes after it, viewed as uint64 words."""
    padded = np.zeros((len(data) // 8 + 2) * 8, dtype=np.uint8)
    padded[: len(data)] = data
    return padded.view(np.uint64)


@numba.njit(cache=True, nogil=True)
def _string_key(words, start, end):  # pragma: no cover - numba
    """The first 8 bytes of the string at ``start:end`` of the padded buffer that
    ``words`` views, as one little-endian word (zeros past its end), and a hash of the
    whole string (its words mixed with its length). Each 8 bytes are two aligned loads
    and shifts."""
    q = start >> 3
    shift = np.uint64((start & 7) * 8)
    word = words[q] >> shift
    if shift != 0:
        word |= words[q + 1] << (np.uint64(64) - shift)
    length = end - start
    if length < 8:  # keep the string's own bytes only
        word &= (np.uint64(1) << np.uint64(8 * length)) - np.uint64(1)
    h = (word ^ (np.uint64(length) << np.uint64(56))) * np.uint64(0x9E3779B97F4A7C15)
    i = start + 8
    while i < end:  # longer strings: fold in their next 8 bytes at a time
        q = i >> 3
        shift = np.uint64((i & 7) * 8)
        chunk = words[q] >> shift
        if shift != 0:
            chunk |= words[q + 1] << (np.uint64(64) - shift)
        if end - i < 8:
            chunk &= (np.uint64(1) << np.uint64(8 * (end - i))) - np.uint64(1)
        h = (h ^ chunk) * np.uint64(0xBF58476D1CE4E5B9)
        i += 8
    h ^= h >> np.uint64(31)
    return word, h


#: Rows factorised between two checks that the hash table has room for them.
_FACTORIZE_BLOCK = 4096


@numba.njit(cache=True, nogil=True)
def _factorize_block(
    offsets, words, data, missing, codes, row, stop, slot_code, slot_hash, slot_word, first_rows,
    n_unique,
):  # pragma: no cover - numba  # fmt: skip
    """:func:`factorize_utf8`'s loop over rows ``row..stop-1``, on a table with room
    for all of them (no check in the loop); returns the number of codes.

    Every index is unsigned: numba tests a signed index for a negative value (and
    wraps it around) at each access, which made this loop twice as slow."""
    one = np.uint64(1)
    mask = np.uint64(slot_code.shape[0] - 1)
    end = np.uint64(offsets[row])
    for r in range(np.uint64(row), np.uint64(stop)):
        start = end
        end = np.uint64(offsets[r + one])
        if missing[r]:
            codes[r] = -1
            continue
        length = end - start
        if length <= np.uint64(8):  # the common case, inline: _string_key's first word
            q = start >> np.uint64(3)
            shift = (start & np.uint64(7)) * np.uint64(8)  # no branch on the alignment
            word = (words[q] >> shift) | ((words[q + one] << (np.uint64(63) - shift)) << one)
            if length < np.uint64(8):
                word &= (one << (np.uint64(8) * length)) - one
            h = (word ^ (length << np.uint64(56))) * np.uint64(0x9E3779B97F4A7C15)
            h ^= h >> np.uint64(31)
        else:
            word, h = _string_key(words, np.int64(start), np.int64(end))
        s = h & mask
        found = -1
        while slot_code[s] >= 0:
            if slot_hash[s] == h and slot_word[s] == word:
                code = slot_code[s]
                if length <= np.uint64(8) or _same_bytes(
                    data, offsets, first_rows[code], np.int64(r)
                ):
                    found = code
                    break
            s = (s + one) & mask
        if found >= 0:
            codes[r] = found
            continue
        codes[r] = n_unique
        first_rows[n_unique] = r
        slot_code[s] = n_unique
        slot_hash[s] = h
        slot_word[s] = word
        n_unique += 1
    return n_unique


@numba.njit(cache=True, nogil=True)
def _grown_table(
    slot_code, slot_hash, slot_word, first_rows, n_unique, capacity
):  # pragma: no cover - numba
    """The hash table rehashed into ``capacity`` slots (a power of 2), and room for
    ``capacity // 2`` first rows."""
    mask = np.uint64(capacity - 1)
    code = np.full(capacity, -1, dtype=np.intp)
    hashes = np.zeros(capacity, dtype=np.uint64)
    word = np.zeros(capacity, dtype=np.uint64)
    for k in range(slot_code.shape[0]):
        if slot_code[k] >= 0:
            t = slot_hash[k] & mask
            while code[t] >= 0:
                t = (t + np.uint64(1)) & mask
            code[t] = slot_code[k]
            hashes[t] = slot_hash[k]
            word[t] = slot_word[k]
    rows = np.empty(capacity // 2, dtype=np.intp)
    rows[:n_unique] = first_rows[:n_unique]
    return code, hashes, word, rows


@numba.njit(cache=True, nogil=True)
def factorize_utf8(offsets, words, data, missing, codes):  # pragma: no cover - numba
    """Codes of the strings of an Arrow string array in order of first appearance.

    Parameters
    ----------
    offsets : ndarray (n + 1,), int32 or int64
        String ``r`` is ``data[offsets[r]:offsets[r + 1]]`` (Arrow's layout).
    words : ndarray, uint64
        ``data`` followed by at least 8 zero bytes, viewed as words
        (:func:`padded_words`): the bytes are read 8 at a time.
    data : ndarray, uint8
    missing : ndarray (n,), bool
        Nulls, which get code -1.
    codes : ndarray (n,), intp
        Filled with the codes: what ``pandas.factorize`` gives.

    Returns
    -------
    first_rows : ndarray (n_unique,), intp
        The row where each code's string first appears.

    Notes
    -----
    An open-addressing hash table (linear probing, kept at most half full: doubled
    before each block of rows that could fill it) whose slots hold the code of each
    distinct string with its hash and first 8 bytes: strings of at most 8 bytes are
    compared as one word, longer ones byte by byte on a match of both. One pass, no
    Python object per row; about 3.5 ns per short string.
    """
    n = codes.shape[0]
    capacity = 1024
    slot_code = np.full(capacity, -1, dtype=np.intp)
    slot_hash = np.zeros(capacity, dtype=np.uint64)
    slot_word = np.zeros(capacity, dtype=np.uint64)
    first_rows = np.empty(capacity // 2, dtype=np.intp)
    n_unique = 0
    for row in range(0, n, _FACTORIZE_BLOCK):
        stop = min(row + _FACTORIZE_BLOCK, n)
        if 2 * (n_unique + stop - row) > capacity:  # make room for the block's rows
            while 2 * (n_unique + stop - row) > capacity:
                capacity *= 2
            slot_code, slot_hash, slot_word, first_rows = _grown_table(
                slot_code, slot_hash, slot_word, first_rows, n_unique, capacity
            )
        n_unique = _factorize_block(
            offsets, words, data, missing, codes, row, stop,
            slot_code, slot_hash, slot_word, first_rows, n_unique,
        )  # fmt: skip
    return first_rows[:n_unique].copy()


@numba.njit(cache=True, nogil=True)
def remap_codes(codes, mapping, out, column):  # pragma: no cover - numba
    """``out[r, column] = mapping[codes[r]]``, -1 where ``codes[r]`` is -1: a
    factorised column's codes turned into category codes, written in place."""
    for r in range(codes.shape[0]):
        c = codes[r]
        out[r, column] = -1 if c < 0 else mapping[c]
