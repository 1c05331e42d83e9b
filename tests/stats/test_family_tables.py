"""Sparse family tables (the kernel ``sparse_family_counts`` and
``SparseFamilyTable``) against dictionaries of the rows, with weights and missing
values; tables of two parts add to the table of the whole."""

from collections import defaultdict

import numpy as np
import pytest
from numpy.testing import assert_allclose

from discotree.kernels.counts import configuration_ids, sparse_family_counts
from discotree.stats.family_tables import SparseFamilyTable, prefix_family_tables


def _data(rng, n=300, n_features=5, n_classes=3):
    n_categories = rng.integers(2, 5, n_features)
    codes = np.column_stack([rng.integers(0, r, n) for r in n_categories])
    codes[rng.random(codes.shape) < 0.1] = -1
    return codes, rng.integers(0, n_classes, n), rng.random(n) * 2, n_categories, n_classes


def _reference(codes, y, w, node, parents):
    table = defaultdict(float)
    for row, c, weight in zip(codes, y, w, strict=True):
        if row[node] < 0 or any(row[p] < 0 for p in parents):
            continue
        table[(tuple(int(row[p]) for p in parents), int(c), int(row[node]))] += weight
    return table


@pytest.mark.parametrize("parents", [(), (1,), (3, 1), (4, 0, 2)])
def test_sparse_counts_equal_a_dictionary_of_the_rows(rng, parents):
    codes, y, w, n_categories, n_classes = _data(rng)
    table = SparseFamilyTable.from_codes(codes, y, w, n_classes, n_categories, 2, parents)
    expected = _reference(codes, y, w, 2, parents)
    assert len(table.cells) == len(expected)
    for (config, c, value), weight in expected.items():
        ids, _ = configuration_ids(
            np.array([config]), range(len(parents)), n_categories[list(parents)]
        )
        assert_allclose(table.count(ids, c, np.array([value])), [weight])
    # the derived per-configuration totals and supports
    totals = defaultdict(float)
    for (config, c, _), weight in expected.items():
        totals[(config, c)] += weight
    assert_allclose(table.totals.sum(), sum(totals.values()))
    assert table.support.sum() == sum(1 for v in expected.values() if v > 0)


def test_the_tables_of_two_parts_add_to_the_table_of_the_whole(rng):
    codes, y, w, n_categories, n_classes = _data(rng)
    whole = SparseFamilyTable.from_codes(codes, y, w, n_classes, n_categories, 0, (2, 1))
    parts = [
        SparseFamilyTable.from_codes(codes[s], y[s], w[s], n_classes, n_categories, 0, (2, 1))
        for s in (slice(0, 70), slice(70, 71), slice(71, None))
    ]
    added = parts[0] + parts[1] + parts[2]
    np.testing.assert_array_equal(added.cells, whole.cells)
    assert_allclose(added.masses, whole.masses)
    assert_allclose(added.totals, whole.totals)
    other = SparseFamilyTable.from_codes(codes, y, w, n_classes, n_categories, 0, (1,))
    with pytest.raises(ValueError, match="cannot add the table of node 0 under"):
        whole + other


def test_log_probability_is_the_smoothed_conditional_and_leave_one_out_subtracts(rng):
    codes, y, w, n_categories, n_classes = _data(rng)
    parents = (3,)
    table = SparseFamilyTable.from_codes(codes, y, w, n_classes, n_categories, 1, parents)
    rows = np.flatnonzero((codes[:, 1] >= 0) & (codes[:, 3] >= 0))[:20]
    ids, _ = configuration_ids(codes[rows], parents, n_categories)
    r = int(n_categories[1])
    for alpha, epsilon in ((1.0, 1e-5), (0.0, 1e-3)):
        got = table.log_probability(ids, codes[rows, 1], alpha, epsilon)
        unit = np.minimum(w[rows], 1.0)
        left = table.log_probability(ids, codes[rows, 1], alpha, epsilon, leave_out=(y[rows], unit))
        for i, row in enumerate(rows):
            others = np.ones(len(codes), bool)
            for keep, expected in ((np.ones(len(codes), bool), got), (others, left)):
                weights = w.copy()
                if expected is left:
                    weights[row] -= unit[i]
                counts = np.zeros((n_classes, r))
                same = keep & (codes[:, 3] == codes[row, 3]) & (codes[:, 1] >= 0)
                np.add.at(counts, (y[same], codes[same, 1]), weights[same])
                prob = counts + alpha
                prob = prob / prob.sum(axis=1, keepdims=True)
                if epsilon > 0:
                    prob = np.where(prob <= 0, epsilon, prob)
                    prob /= prob.sum(axis=1, keepdims=True)
                assert_allclose(expected[i], np.log(prob[:, codes[row, 1]]), rtol=1e-10)


def test_a_configuration_never_seen_is_uniform_and_bad_tables_are_refused(rng):
    codes, y, w, n_categories, n_classes = _data(rng)
    table = SparseFamilyTable.from_codes(codes, y, w, n_classes, n_categories, 0, (1,))
    unseen = np.array([10**6])
    assert_allclose(
        table.log_probability(unseen, np.array([0]), 1.0, 1e-5), -np.log(n_categories[0])
    )
    with pytest.raises(ValueError, match="inconsistent"):
        SparseFamilyTable(0, (1,), n_classes, 3, np.array([5, 2]), np.array([1.0, 1.0]))
    with pytest.raises(ValueError, match="inconsistent"):
        SparseFamilyTable(0, (1,), n_classes, 3, np.array([2]), np.array([-1.0]))


def test_prefix_tables_and_the_overflow_guard(rng):
    codes, y, w, n_categories, n_classes = _data(rng)
    tables = prefix_family_tables(
        codes, y, w, n_classes, n_categories, [(), (0,), (1, 0)] + [()] * 2
    )
    assert [len(t) for t in tables] == [1, 2, 3, 1, 1]
    huge = np.array([2**31, 2**31, 2])
    with pytest.raises(ValueError, match="2\\*\\*62 cells"):
        sparse_family_counts(
            np.zeros((2, 3), np.intp), np.zeros(2, np.intp), None, 2, huge, node=2, parents=(0, 1)
        )


@pytest.mark.parametrize("weighted", [False, True])
def test_prefix_tables_counted_densely_equal_the_sorted_count(rng, weighted, monkeypatch):
    n_categories = np.array([2, 3, 4, 2, 3])
    codes = np.stack([rng.integers(0, r, 700) for r in n_categories], axis=1).astype(np.int8)
    codes[rng.random(codes.shape) < 0.1] = -1
    y = rng.integers(0, 3, 700)
    weights = rng.gamma(1.0, size=700) * (rng.random(700) < 0.9) if weighted else None
    parents = [(), (0,), (1, 0), (2, 1, 0), (3, 2, 1, 0)]
    dense = prefix_family_tables(codes, y, weights, 3, n_categories, parents)
    for where in ("discotree.stats.family_tables", "discotree.kernels.counts"):
        monkeypatch.setattr(f"{where}.DENSE_IDS", 0)  # (sorted by np.unique, as before)
        monkeypatch.setattr(f"{where}.DENSE_IDS_PER_ROW", 0)
    ordered = prefix_family_tables(codes, y, weights, 3, n_categories, parents)
    for node_dense, node_sorted in zip(dense, ordered, strict=True):
        for a, b in zip(node_dense, node_sorted, strict=True):
            assert (a.node, a.parents, a.n_classes, a.r_node) == (
                b.node,
                b.parents,
                b.n_classes,
                b.r_node,
            )
            np.testing.assert_array_equal(a.cells, b.cells)
            np.testing.assert_array_equal(a.masses, b.masses)


@pytest.mark.parametrize("limit", [1, 50, 150])
def test_prefix_tables_counted_in_groups_of_levels_equal_the_sorted_count(rng, limit, monkeypatch):
    # the dense levels counted a few at a time (at most ``limit`` bins a pass, or one
    # level), the larger ones sorted: the cells and sums of the sorted count
    n_categories = np.array([2, 3, 4, 2, 3])
    codes = np.stack([rng.integers(0, r, 400) for r in n_categories], axis=1)
    codes[rng.random(codes.shape) < 0.1] = -1
    y = rng.integers(0, 3, 400)
    weights = rng.gamma(1.0, size=400) * (rng.random(400) < 0.9)
    parents = [(), (0,), (1, 0), (2, 1, 0), (3, 2, 1, 0)]
    monkeypatch.setattr("discotree.stats.family_tables.DENSE_IDS", limit)
    monkeypatch.setattr("discotree.stats.family_tables.DENSE_IDS_PER_ROW", 0)
    grouped = prefix_family_tables(codes, y, weights, 3, n_categories, parents)
    for node, node_tables in enumerate(grouped):
        assert [t.parents for t in node_tables] == [parents[node][:L] for L in range(node + 1)]
        for table in node_tables:
            cells, masses = sparse_family_counts(
                codes, y, weights, 3, n_categories, node=node, parents=table.parents
            )
            np.testing.assert_array_equal(table.cells, cells)
            np.testing.assert_array_equal(table.masses, masses)


def test_codes_beyond_their_categories_are_counted_as_the_sorted_count_does():
    # (never written past the dense bins: the sorted count's ids instead)
    from discotree.kernels.family_counts import dense_sparse_family_counts

    codes = np.array([[0, 1], [1, 1], [1, 40]])
    y, n_categories = np.array([0, 1, 1]), np.array([2, 2])
    got = dense_sparse_family_counts(codes, y, None, 2, n_categories, node=1, parents=(0,))
    want = sparse_family_counts(codes, y, None, 2, n_categories, node=1, parents=(0,))
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])
    assert got[0].tolist() == [1, 7, 46]


@pytest.mark.parametrize("weights", ["ones", "exponential", "huge"])
def test_packed_tables_give_back_every_table_to_the_last_bit(rng, weights):
    # whole counts (packed as small integers), real weights and counts beyond 2**53
    # (float64), empty tables, ids near 2**62 (cells of many parents' configurations)
    import pickle

    from discotree.stats.family_tables import packed_tables, unpacked_tables

    n_rows, n_categories = 80, np.array([3, 4, 2, 5])
    codes = np.column_stack([rng.integers(0, r, n_rows) for r in n_categories])
    codes[rng.random(codes.shape) < 0.1] = -1
    y = rng.integers(0, 3, n_rows)
    w = {
        "ones": None,
        "exponential": rng.exponential(1.0, n_rows),
        "huge": np.full(n_rows, 2.0**60),
    }
    parents = [(), (0,), (0, 1), (2, 1, 0)]
    tables = prefix_family_tables(codes, y, w[weights], 3, n_categories, parents)
    far = SparseFamilyTable(3, (0, 1, 2), 3, 5, np.array([7, 2**62 - 1]), np.array([1.0, 3.0]))
    tables = [*tables, [], [far]]
    packed = packed_tables(tables)
    back = unpacked_tables(pickle.loads(pickle.dumps(packed)))
    assert [len(node) for node in back] == [len(node) for node in tables]
    for node, node_back in zip(tables, back, strict=True):
        for table, got in zip(node, node_back, strict=True):
            assert (got.node, got.parents, got.n_classes, got.r_node) == (
                table.node, table.parents, table.n_classes, table.r_node,
            )  # fmt: skip
            assert got.cells.dtype == np.int64 and np.array_equal(got.cells, table.cells)
            assert got.masses.dtype == np.float64 and np.array_equal(got.masses, table.masses)
    if weights == "ones":
        assert packed["masses"][1] != np.dtype(np.float64).str  # (counts: small integers)
    assert packed_tables([[far, "not a table"]]) is None
