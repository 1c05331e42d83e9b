"""The HDP estimates from count tables equal those from the rows (the same trees, so the
same samples for one seed): forests and A2DE, weights and missing values."""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from discotree.kernels.counts import triple_counts, triple_layout
from discotree.stats.hdp import context_tree, hdp_tables, sample_context_trees
from discotree.stats.hdp_counts import (
    counted_context_tree,
    hdp_forest_tables,
    hdp_two_dependence_conditionals,
)
from discotree.stats.pair_statistics import PairStatistics

R = np.array([2, 3, 2, 4])
C = 3


def _rows(seed: int, n: int = 300):
    rng = np.random.default_rng(seed)
    codes = np.column_stack([rng.integers(0, r, n) for r in R])
    codes[:, 3] = (codes[:, 0] + codes[:, 1] + rng.integers(0, 2, n)) % 4  # a dependence
    codes[rng.random(codes.shape) < 0.15] = -1
    y = rng.integers(0, C, n)
    weights = rng.integers(0, 4, n).astype(float)  # whole numbers, some zero
    return codes, y.astype(np.intp), weights


def _counts(codes, y, weights, node, parents):
    """Brute force: the node's counts per class under the observed parents (rows
    observing the node and all of ``parents``), shaped (C, r_parents..., r_node)."""
    shape = (C, *(int(R[p]) for p in parents), int(R[node]))
    out = np.zeros(shape)
    for row, c, w in zip(codes, y, weights, strict=True):
        if row[node] >= 0 and all(row[p] >= 0 for p in parents):
            out[(c, *(row[p] for p in parents), row[node])] += w
    return out


def _levels(codes, y, weights, node, ranked):
    lengths = range(len(ranked) + 1)
    tables = [_counts(codes, y, weights, node, ranked[:length]) for length in lengths]
    return [[table[c] for c in range(C)] for table in tables]


@pytest.mark.parametrize("ranked", [(), (0,), (0, 1), (2, 0, 1)])
def test_the_counted_tree_is_the_tree_of_the_rows(ranked):
    codes, y, weights = _rows(0)
    expected, expected_keys = context_tree(codes, y, weights, C, R, node=3, ranked=ranked)
    tree, keys = counted_context_tree(_levels(codes, y, weights, 3, ranked), C)
    assert_array_equal(tree.parent, expected.parent)
    assert_array_equal(tree.level, expected.level)
    assert_allclose(tree.observed, expected.observed, rtol=0, atol=1e-12)
    for got, want in zip(keys, expected_keys, strict=True):
        assert_array_equal(got, want)
    # every row with the node observed is one customer, at one context
    assert tree.observed.sum() == pytest.approx(weights[codes[:, 3] >= 0].sum())


def test_per_class_parents_seat_each_row_once():
    codes, y, weights = _rows(1)
    levels = _levels(codes, y, weights, 3, (0,))
    levels[1][1] = None  # class 1 keeps the feature a root
    tree, keys = counted_context_tree(levels, C)
    assert tree.observed.sum() == pytest.approx(weights[codes[:, 3] >= 0].sum())
    assert not np.any(keys[1] % C == 1)  # no (class 1, parent value) context
    below = tree.level == 2
    assert np.all(tree.level[tree.parent[below]] == 1)


def _dense(tables, c, shape):
    """The (class c) distributions of a node's sparse HDP tables, deepest level, as a
    dense array of ``shape`` (parents..., r): a configuration absent from a level takes
    its prefix's."""
    r = shape[-1]
    out = None
    for length, table in enumerate(tables):
        level_shape = (*shape[:length], r)
        cells = dict(zip(table.cells.tolist(), table.masses.tolist(), strict=True))
        dense = np.empty(level_shape)
        for index in np.ndindex(*level_shape[:-1]):
            config = int(np.ravel_multi_index(index, level_shape[:-1])) if index else 0
            key = config * C + c
            row = [cells.get(key * r + v) for v in range(r)]
            if row[0] is None:
                dense[index] = out[index[:-1]]  # the prefix's estimate
            else:
                dense[index] = row
        out = dense
    return out


def _sampled_on_the_rows(codes, y, weights, families, seed, **sweeps):
    """The tables of ``families`` sampled from the rows themselves (``hdp_tables``), the
    generator seeded with ``seed``."""
    rng = np.random.default_rng(seed)
    return hdp_tables(codes, y, weights, C, R, families=families, rng=rng, **sweeps)


def test_forest_tables_from_counts_equal_the_sampler_on_the_rows():
    codes, y, weights = _rows(2)
    parents_of = [-1, 0, 1, 0]
    stats = PairStatistics.from_codes(codes, y, R, C, weights)
    parents = np.tile(np.array(parents_of, dtype=np.intp), (C, 1))
    logs, posterior, concentrations = hdp_forest_tables(
        stats, parents, 0.0, np.random.default_rng(7), n_sweeps=30, burn_in=10
    )
    families = [(j, () if p < 0 else (p,)) for j, p in enumerate(parents_of)]
    expected = _sampled_on_the_rows(codes, y, weights, families, 7, n_sweeps=30, burn_in=10)
    for j, (tables, chosen) in enumerate(expected):
        assert_allclose(concentrations[j], chosen, rtol=1e-12)
        p = parents_of[j]
        shape = (int(R[p]), int(R[j])) if p >= 0 else (int(R[j]),)
        for c in range(C):
            want = _dense(tables, c, shape).reshape(-1, int(R[j]))
            assert_allclose(np.exp(logs[c][j]), want, rtol=1e-10)
            assert posterior[c][j].shape == want.shape and np.all(posterior[c][j] > 0)


def test_two_dependence_conditionals_from_counts_equal_the_sampler_on_the_rows():
    codes, y, weights = _rows(3, n=200)
    stats = PairStatistics.from_codes(codes, y, R, C, weights)
    triples = triple_counts(codes, y, weights, R, C)
    cond_log, concentrations = hdp_two_dependence_conditionals(
        stats, triples, 0.0, np.random.default_rng(5), n_sweeps=20, burn_in=5
    )
    cmi = stats.conditional_mutual_information()
    d = len(R)
    trios = [(i, j, k) for i in range(d) for j in range(i + 1, d) for k in range(j + 1, d)]
    families, placed = [], []
    for t, trio in enumerate(trios):
        for member, m in enumerate(trio):
            a, b = (f for f in trio if f != m)
            first, second = (a, b) if cmi[m, a] >= cmi[m, b] else (b, a)
            families.append((m, (first, second)))
            placed.append((t, member, trio, first, second))
    expected = _sampled_on_the_rows(codes, y, weights, families, 5, n_sweeps=20, burn_in=5)
    layout = triple_layout(R, C)
    for (t, member, trio, first, second), (tables, chosen) in zip(placed, expected, strict=True):
        assert_allclose(concentrations[member, t], chosen, rtol=1e-12)
        m = trio[member]
        block = cond_log[member, layout[t] : layout[t + 1]].reshape(*(int(R[f]) for f in trio), C)
        for c in range(C):
            want = _dense(tables, c, (int(R[first]), int(R[second]), int(R[m])))
            got = np.moveaxis(block[..., c], [trio.index(first), trio.index(second)], [0, 1])
            assert_allclose(np.exp(got), want, rtol=1e-10)


def test_fractional_counts_are_refused():
    codes, y, weights = _rows(4)
    stats = PairStatistics.from_codes(codes, y, R, C, weights + 0.5)
    parents = np.full((C, len(R)), -1, dtype=np.intp)
    with pytest.raises(ValueError, match="whole-number sample weights"):
        hdp_forest_tables(stats, parents, 0.0, np.random.default_rng(0))


def test_batches_and_widths_keep_each_tree_its_own_estimate(monkeypatch):
    """Cut into batches, the trees keep their own groups: an estimate of each tree
    alone with fixed concentrations does not depend on the batching."""
    import discotree.stats.hdp as hdp

    codes, y, weights = _rows(5)
    trees = [context_tree(codes, y, weights, C, R, node=node, ranked=()) for node in range(4)]
    together = sample_context_trees([t for t, _ in trees], np.random.default_rng(0), 20, 5)
    monkeypatch.setattr(hdp, "BATCH_CUSTOMERS", 1.0)  # one tree a batch
    apart = sample_context_trees([t for t, _ in trees], np.random.default_rng(0), 20, 5)
    for a, b, (tree, _) in zip(together, apart, trees, strict=True):
        assert a.probabilities.shape == b.probabilities.shape == tree.observed.shape
        assert a.concentrations.shape == b.concentrations.shape == (tree.n_levels,)
        assert_allclose(a.probabilities.sum(axis=1), 1.0)
        assert_allclose(b.probabilities.sum(axis=1), 1.0)


def test_a_sampler_too_costly_is_refused_with_its_cost(monkeypatch):
    import discotree.stats.hdp as hdp

    codes, y, weights = _rows(6)
    trees = [context_tree(codes, y, weights, C, R, node=3, ranked=(0,))[0]]
    monkeypatch.setattr(hdp, "MAX_SEATINGS", 1000.0)
    with pytest.raises(ValueError, match=r"would seat .* customers .*smoothing='hierarchical'"):
        sample_context_trees(trees, np.random.default_rng(0))


def test_a_parent_never_observed_with_its_child_backs_off_to_the_class():
    """No row observes both: the parent level has no context, its rows are the class
    level's estimate, and its concentration is absent (A1DE: NaN), not an error."""
    from discotree.stats.hdp_counts import hdp_one_dependence_conditionals

    codes, y, weights = _rows(7)
    codes[codes[:, 1] >= 0, 0] = -1  # feature 0 is missing wherever 1 is observed
    stats = PairStatistics.from_codes(codes, y, R, C, weights)
    parents = np.tile(np.array([-1, 0, -1, -1], dtype=np.intp), (C, 1))
    logs, posterior, concentrations = hdp_forest_tables(
        stats, parents, 0.0, np.random.default_rng(0), n_sweeps=20, burn_in=5
    )
    assert len(concentrations[1]) == 2  # the root and the class level only
    for c in range(C):
        assert_allclose(np.exp(logs[c][1]), np.exp(logs[c][1][:1]).repeat(2, axis=0))
        assert np.all(np.isfinite(posterior[c][1]))
    child_log, chosen = hdp_one_dependence_conditionals(
        stats, 0.0, np.random.default_rng(0), n_sweeps=20, burn_in=5
    )
    assert np.isnan(chosen[0, 1, 2]) and np.isfinite(chosen[0, 1, :2]).all()
    assert np.all(np.isfinite(child_log))
