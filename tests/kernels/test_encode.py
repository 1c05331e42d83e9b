"""The encoding kernels against their sorting and counting references."""

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from discotree.kernels.encode import encode_bins, encode_bins_padded
from tests import reference


@pytest.mark.parametrize("n_edges", [0, 1, 4, 16, 17, 40])
def test_bins_equal_counting_edges_below(rng, n_edges):
    values = rng.normal(size=(500, 3))
    values[rng.random(values.shape) < 0.1] = np.nan
    edges = [
        np.sort(rng.choice(values[:, k][~np.isnan(values[:, k])], n_edges, replace=False))
        for k in range(3)
    ]
    values[:5, 0] = edges[0][:5] if n_edges >= 5 else values[:5, 0]  # values on an edge
    flat = np.concatenate(edges) if n_edges else np.empty(0)
    offsets = np.arange(4, dtype=np.intp) * n_edges
    out = np.zeros((500, 4), dtype=np.int8)
    encode_bins(values, np.array([3, 0, 2], dtype=np.intp), flat, offsets, out)
    assert_array_equal(out[:, [3, 0, 2]], reference.bin_codes(values, edges))


@pytest.mark.parametrize("n_edges", [0, 1, 4, 16])
def test_padded_bins_equal_counting_edges_below(rng, n_edges):
    values = rng.normal(size=(400, 3))
    values[rng.random(values.shape) < 0.1] = np.nan
    widths = [n_edges, max(n_edges - 1, 0), n_edges]  # uneven: +inf padding
    edges = [np.sort(rng.normal(size=w)) for w in widths]
    values[:3, 0] = edges[0][:3] if n_edges >= 3 else values[:3, 0]  # values on an edge
    padded = np.full((3, n_edges), np.inf)
    for k, e in enumerate(edges):
        padded[k, : len(e)] = e
    out = np.zeros((400, 3), dtype=np.int8)
    encode_bins_padded(values, np.array([2, 0, 1], dtype=np.intp), padded, out)
    assert_array_equal(out[:, [2, 0, 1]], reference.bin_codes(values, edges))


@pytest.mark.parametrize("storage", ["large", "small", "sliced"])
def test_factorize_utf8_equals_pandas_factorize(storage, rng):
    """Short and long strings (one word or several), unicode, empty strings and nulls,
    and enough distinct values to grow the hash table several times."""
    import pandas as pd
    import pyarrow as pa

    from discotree.validation import _factorize_strings

    pool = ["", "a", "ash", "birch", "café", "日本語", "x" * 8, "x" * 9, "long " * 7]
    pool += [f"value-{k}" for k in range(3000)]
    picks = rng.integers(0, len(pool), 20_000)
    values = [None if k % 17 == 0 else pool[k] for k in picks]
    kind = pa.string() if storage == "small" else pa.large_string()
    array = pa.array(values, type=kind)
    if storage == "sliced":  # an offset into the buffers, and two chunks
        array = pa.chunked_array([array.slice(5, 9000), array.slice(9005)])
    series = pd.Series(pd.arrays.ArrowStringArray(pa.chunked_array(array)))
    codes, uniques = _factorize_strings(series)
    expected_codes, expected_uniques = series.factorize(use_na_sentinel=True)
    np.testing.assert_array_equal(codes, expected_codes)
    assert list(uniques) == list(expected_uniques)
    default = series.astype("str")  # pandas' default string dtype (NaN for missing)
    np.testing.assert_array_equal(_factorize_strings(default)[0], expected_codes)
    python = series.astype(pd.StringDtype("python"))  # other storage: pandas itself
    codes, uniques = _factorize_strings(python)
    np.testing.assert_array_equal(codes, expected_codes)


def test_remap_codes_equals_fancy_indexing(rng):
    from discotree.kernels.encode import remap_codes

    codes = rng.integers(-1, 6, 500)
    mapping = rng.integers(-1, 4, 6)
    out = np.zeros((500, 3), dtype=np.int8)
    remap_codes(codes, mapping, out, 1)
    assert_array_equal(out[:, 1], np.where(codes < 0, -1, mapping[codes]))
    assert not out[:, [0, 2]].any()


def _identity_reference(values, last):
    """Slow: cell by cell, the value when in 0..last[k], else -1."""
    out = np.empty(values.shape, dtype=np.int64)
    for r in range(values.shape[0]):
        for k in range(values.shape[1]):
            v = int(values[r, k])
            out[r, k] = v if 0 <= v <= int(last[k]) else -1
    return out


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.uint8, np.int64])
def test_identity_encoding_equals_reference_in_both_layouts(rng, dtype):
    from discotree.kernels.encode import encode_identity, encode_identity_columns

    low = 0 if np.dtype(dtype).kind == "u" else -3
    values = rng.integers(low, 9, size=(700, 6)).astype(dtype)
    last = rng.integers(0, 8, 6).astype(dtype)
    expected = _identity_reference(values, last)
    out = np.full((700, 8), 99, dtype=np.int16)
    encode_identity(values, 1, last, out)
    assert_array_equal(out[:, 1:7], expected)
    assert (out[:, [0, 7]] == 99).all()  # other columns untouched
    out[:] = 99
    encode_identity_columns(np.asfortranarray(values).T, 2, last, out)
    assert_array_equal(out[:, 2:], expected)
    assert (out[:, :2] == 99).all()


def test_count_negatives_and_column_ranges_equal_numpy(rng):
    from discotree.kernels.encode import column_ranges, count_negatives

    codes = rng.integers(-1, 5, size=(513, 9)).astype(np.int8)
    negatives = np.zeros(9, dtype=np.intp)
    count_negatives(codes, negatives)
    assert_array_equal(negatives, (codes < 0).sum(axis=0))
    low, high = np.full(9, 127, np.int8), np.full(9, -128, np.int8)
    column_ranges(codes, low, high)
    assert_array_equal(low, codes.min(axis=0))
    assert_array_equal(high, codes.max(axis=0))


def test_factorize_utf8_grows_its_table_over_many_distinct_strings(rng):
    """Enough distinct values to double the hash table several times between blocks of
    rows, short and long, with nulls; against pandas."""
    import pandas as pd
    import pyarrow as pa

    from discotree.validation import _factorize_strings

    distinct = [f"{k:x}" for k in range(40_000)] + [f"a longer value {k}" for k in range(9_000)]
    picks = rng.integers(0, len(distinct), 120_000)
    values = [None if k % 23 == 0 else distinct[k] for k in picks]
    series = pd.Series(pd.arrays.ArrowStringArray(pa.chunked_array([pa.array(values)])))
    codes, uniques = _factorize_strings(series)
    expected_codes, expected_uniques = series.factorize(use_na_sentinel=True)
    np.testing.assert_array_equal(codes, expected_codes)
    assert list(uniques) == list(expected_uniques)
