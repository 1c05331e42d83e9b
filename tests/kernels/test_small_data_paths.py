"""On small data the encoding, counting and information helpers run as numpy instead
of compiling their kernels (issue #48, a fast first fit): both paths give the same
values to the bit, signs of zeros included. The kernels' reference tests run on data
small enough for numpy; here each helper runs both ways on the same random inputs."""

from __future__ import annotations

import numpy as np
import pytest

from discotree.kernels import counts, encode, information, quantiles

BOTH = {"numpy": 10**12, "kernel": -1}


def _same(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return bool(
        a.shape == b.shape
        and np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
        and np.array_equal(np.signbit(a), np.signbit(b))
    )


def _both_ways(monkeypatch, run, *args):
    """``run(*args)`` with the numpy path and with the kernel."""
    found = []
    for cells in BOTH.values():
        monkeypatch.setattr(encode, "SMALL_DATA_CELLS", cells)
        monkeypatch.setattr(quantiles, "SMALL_DATA_CELLS", cells)
        monkeypatch.setattr(encode, "_NUMPY_SORT_CELLS", cells)
        monkeypatch.setattr(counts, "_NUMPY_CELLS", cells)
        monkeypatch.setattr(counts, "_NUMPY_TABLE_COLUMNS", cells)
        monkeypatch.setattr(information, "_NUMPY_CELLS", cells)
        found.append(run(*args))
    return found


@pytest.mark.parametrize("weights", ["unit", "real", "integer", "some zero"])
@pytest.mark.parametrize("kind", ["continuous", "ties and signed zeros", "skewed", "zeros only"])
def test_quantiles_the_same_both_ways(rng, monkeypatch, weights, kind):
    for _ in range(15):
        n, d = int(rng.integers(1, 300)), int(rng.integers(1, 5))
        values = rng.normal(size=(n, d))
        if kind == "ties and signed zeros":
            values = rng.integers(-2, 4, (n, d)) * rng.choice([1.0, -1.0], (n, d))
        elif kind == "skewed":  # nearly everything in one bucket of the selection
            values[:, 0] = np.concatenate([rng.normal(size=n - 1) * 1e-6, [1e6]])
        elif kind == "zeros only":  # the largest value both -0.0 and 0.0
            values = rng.choice([-0.0, 0.0, -1.0], (n, d))
        values[rng.random((n, d)) < 0.2] = np.nan
        w = {
            "unit": np.ones(n),
            "real": rng.random(n) + 0.1,
            "integer": rng.integers(0, 3, n).astype(float),
            "some zero": rng.random(n) * (rng.random(n) < 0.5),
        }[weights]
        fractions = np.sort(rng.random(int(rng.integers(1, 30))))

        def run(values=values, w=w, fractions=fractions, d=d):
            out = np.full((d, len(fractions)), 7.0)
            highest, used = np.empty(d), np.empty(d, dtype=np.intp)
            quantiles.weighted_quantiles(values, w, fractions, out, highest, used=used)
            return out, highest, used

        (a, b) = _both_ways(monkeypatch, run)
        assert all(_same(x, y) for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize("dtype", [np.int8, np.int64])
def test_negatives_and_ranges_the_same_both_ways(rng, monkeypatch, dtype):
    for n in (0, 1, 7, 300):
        codes = rng.integers(-3, 6, (n, 4)).astype(dtype)

        def run(codes=codes):
            negatives = np.full(4, 2, dtype=np.intp)
            encode.count_negatives(codes, negatives)
            limits = np.iinfo(dtype)
            low, high = np.full(4, limits.max, dtype), np.full(4, limits.min, dtype)
            encode.column_ranges(codes, low, high)
            return negatives, low, high

        (a, b) = _both_ways(monkeypatch, run)
        assert all(_same(x, y) for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize("kind", ["floats", "signed zeros", "integers"])
def test_distinct_values_the_same_both_ways(rng, monkeypatch, kind):
    for n in (0, 1, 5, 200):
        values = {
            "floats": rng.integers(-3, 12, (n, 3)).astype(float),
            "signed zeros": rng.choice([-0.0, 0.0, 1.0, np.nan], (n, 3)),
            "integers": rng.integers(-50, 50, (n, 3)),
        }[kind]
        if kind == "floats":
            values[rng.random((n, 3)) < 0.2] = np.nan
        for max_distinct in (0, 1, 4, 40):
            limit = min(max_distinct, n)

            def run(values=values, limit=limit):
                found = np.full((3, limit + 1), 99.0)
                n_found = np.empty(3, dtype=np.intp)
                encode.column_distinct(values, limit, found, n_found)
                return [found[j, : n_found[j]] for j in range(3)] + [n_found]

            (a, b) = _both_ways(monkeypatch, run)
            assert all(_same(x, y) for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize("n_edges", [0, 1, 16, 17, 40, "10 unsorted", "40 unsorted"])
def test_bins_the_same_both_ways(rng, monkeypatch, n_edges):
    n, d = 300, 3
    values = rng.normal(size=(n, d))
    values[rng.random((n, d)) < 0.2] = np.nan
    values[0, 0], values[1, 1] = np.inf, -np.inf
    if isinstance(n_edges, str):  # not increasing: counted (few) or searched by the kernel
        n_edges = int(n_edges.split()[0])
        edges = [rng.normal(size=n_edges) for _ in range(d)]
    else:
        edges = [np.unique(rng.normal(size=n_edges)) for _ in range(d)]
    values[2:5, 0] = edges[0][:3] if n_edges >= 3 else values[2:5, 0]  # on an edge
    flat = np.concatenate(edges)
    offsets = np.concatenate([[0], np.cumsum([len(e) for e in edges])]).astype(np.intp)
    padded = np.full((d, max(len(e) for e in edges)), np.inf)
    for k, e in enumerate(edges):
        padded[k, : len(e)] = e
    columns = np.array([3, 0, 2], dtype=np.intp)

    def run():
        out = np.full((n, d + 1), 9, dtype=np.intp)
        encode.encode_bins(values, columns, flat, offsets, out)
        out_padded = np.full((n, d + 1), 9, dtype=np.int8)
        encode.encode_bins_padded(values, columns, padded, out_padded)
        return out, out_padded

    (a, b) = _both_ways(monkeypatch, run)
    assert all(_same(x, y) for x, y in zip(a, b, strict=True))


def _tables(codes, class_index, w, n_categories, n_classes):
    table = counts.pairwise_counts(codes, class_index, w, n_categories, n_classes)
    d = len(n_categories)
    offsets = np.concatenate([[0], np.cumsum(n_categories)]).astype(np.intp)
    mi = np.full((n_classes, d, d), 5.0)
    totals = np.full((n_classes, d, d), 5.0)
    information.pairwise_mutual_information(table, offsets, mi, totals)
    return table, mi, totals


@pytest.mark.parametrize("weights", ["none", "unit", "real", "integer"])
@pytest.mark.parametrize("dtype", [np.int8, np.intp])
def test_pair_tables_and_information_the_same_both_ways(rng, monkeypatch, weights, dtype):
    for _ in range(10):
        n, d = int(rng.integers(1, 300)), int(rng.integers(1, 7))
        n_categories = rng.integers(1, 6, d).astype(np.intp)
        codes = (rng.integers(0, 1000, (n, d)) % n_categories).astype(dtype)
        codes[rng.random((n, d)) < 0.15] = -1
        n_classes = int(rng.integers(1, 4))
        class_index = rng.integers(0, n_classes, n).astype(np.intp)
        w = {
            "none": None,
            "unit": np.ones(n),
            "real": rng.random(n),
            "integer": rng.integers(0, 3, n).astype(float),
        }[weights]
        (a, b) = _both_ways(monkeypatch, _tables, codes, class_index, w, n_categories, n_classes)
        assert all(_same(x, y) for x, y in zip(a, b, strict=True))
