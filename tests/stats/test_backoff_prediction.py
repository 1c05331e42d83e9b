"""PackedBackoff (the packed, one-pass scoring of a k-dependence model under
hierarchical smoothing) against the per-node path it replaces at predict time
(:meth:`KDependenceModel.reference_node_log_probability`, through
``leave_one_out_backoff_terms`` with nothing left out): random models with weights,
missing values, 2 and many classes, unseen configurations, concentrations on and off
the grid, and weights heavy enough for the back-off in logarithms."""

import itertools
import pickle
from dataclasses import replace

import numpy as np
import pytest
from numpy.testing import assert_allclose

from discotree.models.k_dependence import KDependenceModel
from discotree.stats.backoff_prediction import PackedBackoff
from discotree.stats.family_tables import prefix_family_tables
from discotree.stats.hierarchical import CONCENTRATION_GRID


def _random_model(rng, n_classes, scale=1.0, n_features=6, k=3, n_rows=120):
    n_categories = rng.integers(2, 5, n_features)
    codes = np.column_stack([rng.integers(0, r, n_rows) for r in n_categories])
    codes[rng.random(codes.shape) < 0.1] = -1
    y = rng.integers(0, n_classes, n_rows)
    weights = rng.exponential(scale, n_rows)
    order = rng.permutation(n_features)
    parents = [()] * n_features
    for position, node in enumerate(order):
        earlier = order[:position]
        size = min(k, len(earlier))
        parents[node] = tuple(int(p) for p in rng.choice(earlier, size, replace=False))
    tables = prefix_family_tables(codes, y, weights, n_classes, n_categories, parents)
    on_grid = rng.random() < 0.5
    concentrations = [
        rng.choice(CONCENTRATION_GRID, len(p) + 1) if on_grid else rng.uniform(0.1, 50, len(p) + 1)
        for p in parents
    ]
    attributes = [int(j) for j in order if rng.random() < 0.85]
    return KDependenceModel(
        n_categories, attributes, parents, tables, 0.5, 0.0, concentrations
    ), codes


def _test_rows(rng, model, n_rows=60, missing=0.15):
    # values up to one beyond the training ones' (unseen configurations)
    codes = np.column_stack([rng.integers(0, r, n_rows) for r in model.n_categories])
    codes[rng.random(codes.shape) < missing] = -1
    return codes


@pytest.mark.parametrize("n_classes", [2, 7])
@pytest.mark.parametrize("scale", [1.0, 1e13])
@pytest.mark.parametrize("tabulated", [(0, 0), (100, 1 << 19), (1 << 13, 1 << 19), (1 << 13, 80)])
def test_every_node_equals_the_per_node_path(rng, monkeypatch, n_classes, scale, tabulated):
    # first levels tabulated: none, some, all (every node's levels, for most), as
    # many as a small budget allows
    monkeypatch.setattr("discotree.stats.backoff_prediction.TABULATED_CELLS", tabulated[0])
    monkeypatch.setattr("discotree.stats.backoff_prediction.TABULATED_BUDGET", tabulated[1])
    for _ in range(3):
        model, _ = _random_model(rng, n_classes, scale)
        codes = _test_rows(rng, model)
        for node in model.attributes:
            fast = model.node_log_probability(node, codes)
            reference = model.reference_node_log_probability(node, codes)
            assert_allclose(fast, reference, rtol=1e-12, atol=1e-12)
            assert np.array_equal(fast, reference)  # (the same operations)


@pytest.mark.parametrize("n_classes", [2, 7])
def test_levels_below_a_tabulated_start_equal_the_per_node_path(rng, monkeypatch, n_classes):
    # nodes that may stop (linear, concentrations powers of two, nested), tabulated to
    # a depth above their deepest level: their rows run the remaining levels in the
    # kernel's loop of its own (_present_levels), the same bits as the reference
    monkeypatch.setattr("discotree.stats.backoff_prediction.TABULATED_CELLS", 60)
    monkeypatch.setattr("discotree.stats.backoff_prediction.TABULATED_BUDGET", 1 << 19)
    hit = 0
    for _ in range(6):
        model, _ = _random_model(rng, n_classes, n_features=7, k=4, n_rows=300)
        model.concentrations = [np.full(len(c), 2.0) for c in model.concentrations]
        packed = model._packed(None)
        levels = np.diff(packed.parent_start) + 1
        partly = packed.may_stop & (packed.state_depth > 0) & (packed.state_depth < levels)
        hit += int(partly.sum())
        codes = _test_rows(rng, model, n_rows=200, missing=0.1)
        for node in model.attributes:
            fast = model.node_log_probability(node, codes)
            assert np.array_equal(fast, model.reference_node_log_probability(node, codes))
    assert hit > 3  # (nodes that take that loop)


@pytest.mark.parametrize("n_classes", [2, 7])
@pytest.mark.parametrize("tabulated", [(0, 0), (1 << 13, 1 << 19)])
def test_repeated_rows_equal_the_per_node_path(rng, monkeypatch, n_classes, tabulated):
    # test rows drawn from a few distinct ones (missing values too, and rows that
    # differ only in a value another node reads): a row whose node family repeats an
    # earlier row's takes its numbers, which must be the per-node path's to the bit
    monkeypatch.setattr("discotree.stats.backoff_prediction.TABULATED_CELLS", tabulated[0])
    monkeypatch.setattr("discotree.stats.backoff_prediction.TABULATED_BUDGET", tabulated[1])
    for _ in range(3):
        model, _ = _random_model(rng, n_classes)
        distinct = _test_rows(rng, model, n_rows=7, missing=0.2)
        codes = distinct[rng.integers(0, len(distinct), 200)]
        some = rng.random(len(codes)) < 0.3
        last = int(np.argmax(model.n_categories))
        codes[some, last] = rng.integers(-1, model.n_categories[last], some.sum())
        packed = model._packed()
        assert packed is not None
        for node in model.attributes:
            fast = model.node_log_probability(node, codes)
            reference = model.reference_node_log_probability(node, codes)
            assert np.array_equal(fast, reference)
        expected = sum(
            model.reference_node_log_probability(node, codes) for node in model.attributes
        )
        assert_allclose(packed.log_likelihood(codes), expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("n_classes", [2, 7])
def test_the_tabulated_levels_equal_the_per_node_path_on_every_configuration(
    rng, monkeypatch, n_classes
):
    # every (parents, value) of every node, from the tables of its first levels (a
    # linear node's levels of powers of two tabulated in one ordered pass over each
    # level's cells, only the classes present stepped)
    monkeypatch.setattr("discotree.stats.backoff_prediction.TABULATED_CELLS", 1 << 13)
    for _ in range(3):
        model, _ = _random_model(rng, n_classes)
        model.concentrations = [2.0 ** rng.integers(-2, 6, len(p) + 1) for p in model.parents]
        packed = model._packed()
        assert isinstance(packed, PackedBackoff)
        assert packed.linear.all() and (packed.state_depth > 1).any()
        for node in model.attributes:
            family = [*model.parents[node], node]
            grid = np.array(list(itertools.product(*map(range, model.n_categories[family]))))
            codes = np.zeros((len(grid), model.n_features), dtype=np.intp)
            codes[:, family] = grid
            fast = model.node_log_probability(node, codes)
            assert np.array_equal(fast, model.reference_node_log_probability(node, codes))


@pytest.mark.parametrize("n_classes", [2, 7])
def test_the_log_likelihood_equals_the_per_node_sum_with_missing_values(rng, n_classes):
    for _ in range(3):
        model, _ = _random_model(rng, n_classes)
        codes = _test_rows(rng, model)
        fast = model.log_likelihood(codes)
        reference = KDependenceModel(**{f: getattr(model, f) for f in _FIELDS})
        reference.__dict__["_packed_backoff"] = None  # every node through the reference
        assert_allclose(fast, reference.log_likelihood(codes), rtol=1e-12, atol=1e-12)
        complete = _test_rows(rng, model, missing=0.0)
        expected = sum(model.reference_node_log_probability(j, complete) for j in model.attributes)
        assert np.array_equal(model.log_likelihood(complete), expected + 0.0)


_FIELDS = ("n_categories", "attributes", "parents", "tables", "alpha", "epsilon", "concentrations")


@pytest.mark.parametrize("searched", [False, True])
def test_rows_in_blocks_and_any_node_subset(rng, monkeypatch, searched):
    monkeypatch.setattr("discotree.stats.backoff_prediction.MAX_BLOCK_CELLS", 7)
    # every level's entries found by binary search, or read through a dense index
    keys, factor = (0, 0) if searched else (1 << 12, 4)
    monkeypatch.setattr("discotree.stats.backoff_prediction.DENSE_INDEX_KEYS", keys)
    monkeypatch.setattr("discotree.stats.backoff_prediction.DENSE_INDEX_FACTOR", factor)
    model, _ = _random_model(rng, 3)
    codes = _test_rows(rng, model, n_rows=25)
    packed = model._packed()
    assert isinstance(packed, PackedBackoff)
    which = [len(model.attributes) - 1, 0]
    terms = packed.node_log_probabilities(codes, which)
    for s, position in enumerate(which):
        node = model.attributes[position]
        assert np.array_equal(terms[s], model.reference_node_log_probability(node, codes))
    expected = sum(model.reference_node_log_probability(j, codes) for j in model.attributes)
    assert np.array_equal(packed.log_likelihood(codes), expected + 0.0)
    assert packed.node_log_probabilities(codes[:0], which).shape == (2, 0, 3)


@pytest.mark.parametrize("block_cells", [1, 7, 1 << 16])
def test_the_sum_of_a_node_subset_in_blocks(rng, monkeypatch, block_cells):
    # the same bits as the terms added in the order given, whatever the blocks (one
    # node's row at a time, a few rows, or all of them)
    monkeypatch.setattr("discotree.stats.backoff_prediction.SUMMED_BLOCK_CELLS", block_cells)
    model, _ = _random_model(rng, 3)
    codes = _test_rows(rng, model, n_rows=25)
    packed = model._packed()
    which = [len(model.attributes) - 1, 0]
    expected = np.zeros((len(codes), 3))
    for position in which:
        expected += model.reference_node_log_probability(model.attributes[position], codes)
    assert np.array_equal(packed.log_likelihood(codes, which), expected)
    assert np.array_equal(packed.log_likelihood(codes, []), np.zeros((len(codes), 3)))
    assert packed.log_likelihood(codes[:0], which).shape == (0, 3)


def test_the_packed_tables_are_not_pickled(rng):
    model, _ = _random_model(rng, 2)
    codes = _test_rows(rng, model)
    model._packed()  # (a prediction of few rows on large tables does not pack)
    before = model.log_likelihood(codes)
    assert "_packed_backoff" in model.__dict__
    again = pickle.loads(pickle.dumps(model))
    assert "_packed_backoff" not in again.__dict__
    assert np.array_equal(again.log_likelihood(codes), before)


def test_dirichlet_and_hdp_models_keep_the_per_node_path(rng):
    model, _ = _random_model(rng, 2)
    dirichlet = KDependenceModel(
        model.n_categories, model.attributes, model.parents, model.tables, 0.5, 0.0
    )
    assert dirichlet._packed() is None
    codes = _test_rows(rng, model)
    node = model.attributes[0]
    assert np.array_equal(
        dirichlet.node_log_probability(node, codes),
        dirichlet.reference_node_log_probability(node, codes),
    )


def test_tables_that_are_not_nested_are_read_level_by_level(rng):
    # a configuration missing at a level but present below it (tables not counted on
    # the same rows): no row may stop at the missing one
    model, _ = _random_model(rng, 3, k=3)
    concentrations = [np.full(len(p) + 1, 2.0) for p in model.parents]  # powers of two
    node = next(j for j in model.attributes if len(model.parents[j]) >= 2)
    tables = [list(levels) for levels in model.tables]
    level = tables[node][1]
    kept = level.cells // (level.n_classes * level.r_node) % 2 == 0  # (even configurations)
    tables[node][1] = replace(level, cells=level.cells[kept], masses=level.masses[kept])
    broken = KDependenceModel(
        model.n_categories, model.attributes, model.parents, tables, 0.5, 0.0, concentrations
    )
    packed = broken._packed()
    assert not packed.may_stop[packed.position(node)]
    codes = _test_rows(rng, broken, n_rows=200)
    for j in broken.attributes:
        assert np.array_equal(
            broken.node_log_probability(j, codes), broken.reference_node_log_probability(j, codes)
        )


def _large_tables(monkeypatch, model, calls=4):
    # packing the model as costly as scoring every node in ``calls`` calls (of rows
    # without missing values)
    monkeypatch.setattr("discotree.models.k_dependence.PACKED_CELLS_PER_NODE", 10)
    shape = replace(model._shape(), packing_cells=len(model.attributes) * 10 * calls)
    model.__dict__["_network_shape"] = shape


def test_few_calls_are_scored_node_by_node_without_packing(rng, monkeypatch):
    model, _ = _random_model(rng, 2)
    _large_tables(monkeypatch, model)
    codes = _test_rows(rng, model, missing=0.0)  # (no sum-out: no rows but these)
    few = model.log_likelihood(codes)
    assert "_packed_backoff" not in model.__dict__
    model._packed()
    assert np.array_equal(model.log_likelihood(codes), few)  # (the same bits)


def test_repeated_predictions_pack_once_their_node_calls_add_up(rng, monkeypatch):
    model, _ = _random_model(rng, 2)
    _large_tables(monkeypatch, model, calls=4)
    codes = _test_rows(rng, model, missing=0.0)
    first = model.log_likelihood(codes)
    calls = 1
    while "_packed_backoff" not in model.__dict__:
        assert calls < 4
        assert np.array_equal(model.log_likelihood(codes), first)
        calls += 1
    assert calls == 4  # (packed in the call that reached the cost)
    assert model._packed() is not None
    assert np.array_equal(model.log_likelihood(codes), first)  # (the same bits)
    again = pickle.loads(pickle.dumps(model))  # (the count is not pickled either)
    assert "_work_scored" not in again.__dict__


def test_missing_values_count_a_call_per_level(rng, monkeypatch):
    # rows with missing values cost the per-node path a pass per observed prefix: a
    # call counts its nodes times their levels, and packs sooner
    model, _ = _random_model(rng, 2)
    _large_tables(monkeypatch, model, calls=4)
    codes = _test_rows(rng, model, missing=0.3)
    model.log_likelihood(codes)
    assert "_packed_backoff" in model.__dict__


def test_small_tables_are_packed_at_the_first_prediction(rng):
    # (the default costs: a node's call costs more than packing these tables)
    model, _ = _random_model(rng, 2)
    codes = _test_rows(rng, model, n_rows=3)
    model.log_likelihood(codes)
    assert isinstance(model.__dict__.get("_packed_backoff"), PackedBackoff)


@pytest.mark.parametrize("packed", [False, True])
@pytest.mark.parametrize("n_classes", [2, 5])
def test_the_nodes_scored_together_equal_each_node_alone(rng, packed, n_classes):
    # (the batched call of the missing values' sum-out: any subset, in any order,
    # a node not in use among them; weights, missing values, unseen values)
    for _ in range(3):
        model, _ = _random_model(rng, n_classes)
        codes = _test_rows(rng, model)
        if packed:
            model._packed()
        else:
            model.__dict__["_packed_backoff"] = None
        unused = [j for j in range(model.n_features) if j not in model.attributes]
        nodes = [*rng.permutation(model.attributes).tolist(), *unused[:1]]
        together = model.node_log_probabilities(nodes, codes)
        assert len(together) == len(nodes)
        for node, term in zip(nodes, together, strict=True):
            assert np.array_equal(term, model.node_log_probability(node, codes))
            assert np.array_equal(term, model.reference_node_log_probability(node, codes))
        assert model.node_log_probabilities([], codes) == []


def test_the_cells_are_ordered_as_by_lexsort(rng):
    from discotree.stats.backoff_prediction import _level_order

    for n_levels in (1, 5, 40):
        sizes = rng.integers(0, 30, n_levels)
        level = np.repeat(np.arange(n_levels), sizes)
        keys = rng.integers(0, rng.integers(1, 1000), len(level)).astype(np.int64)  # (ties)
        expected = np.lexsort((keys, level))
        assert np.array_equal(_level_order(keys, level, n_levels), expected)
    huge = np.array([2**61, 5, 2**61 + 1, 0], dtype=np.int64)  # (no room to shift)
    level = np.array([0, 0, 1, 1])
    assert np.array_equal(_level_order(huge, level, 2), np.lexsort((huge, level)))
    assert len(_level_order(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.intp), 3)) == 0


@pytest.mark.parametrize("n_classes", [2, 7])
def test_fully_tabulated_nodes_are_summed_as_they_are_read(rng, monkeypatch, n_classes):
    # every node tabulated to its deepest level: the compiled sum of their states
    # (tabulated_log_likelihood) gives the bits of the terms added in turn; a block
    # with a row missing a parent falls back to the terms (the same bits); the
    # fallback alone gives them too
    from discotree.kernels.backoff_scoring import tabulated_log_likelihood
    from discotree.stats import backoff_prediction

    monkeypatch.setattr(backoff_prediction, "TABULATED_CELLS", 1 << 13)
    monkeypatch.setattr(backoff_prediction, "TABULATED_BUDGET", 1 << 19)
    for _ in range(3):
        model, _ = _random_model(rng, n_classes)
        packed = model._packed()
        assert packed._fully_tabulated().all()
        complete = np.column_stack([rng.integers(0, r, 40) for r in model.n_categories])
        partly = _test_rows(rng, model, n_rows=40)
        for codes in (complete, partly):
            expected = np.zeros((len(codes), n_classes))
            for node in model.attributes:
                expected += model.reference_node_log_probability(node, codes)
            assert np.array_equal(packed.log_likelihood(codes), expected)
            which = np.arange(len(packed.nodes), dtype=np.int64)
            total = np.zeros((len(codes), n_classes))
            read = tabulated_log_likelihood(
                np.ascontiguousarray(codes.T, dtype=np.int64), which, packed.nodes,
                packed.parents, packed.parent_start, packed.radices, packed.r_nodes,
                packed.state_at, packed.states, total,
            )  # fmt: skip
            if read:  # (every row's parents observed and seen)
                assert np.array_equal(total, expected)
        assert tabulated_log_likelihood(
            np.ascontiguousarray(complete.T, dtype=np.int64), which, packed.nodes,
            packed.parents, packed.parent_start, packed.radices, packed.r_nodes,
            packed.state_at, packed.states, np.zeros((len(complete), n_classes)),
        )  # fmt: skip
        fused = packed.log_likelihood(complete)
        with monkeypatch.context() as patched:  # (the terms held, added in turn)
            patched.setattr(backoff_prediction, "tabulated_log_likelihood", lambda *a: False)
            assert np.array_equal(packed.log_likelihood(complete), fused)


def test_one_number_per_node_is_added_in_turn(rng):
    # one class and one row: numpy would sum the nodes' single numbers pairwise; the
    # sum adds them in turn, as the per-node path does (found in review)
    for _ in range(10):
        model, _ = _random_model(rng, 1, n_features=14)
        codes = _test_rows(rng, model, n_rows=1, missing=0.3)
        expected = np.zeros((1, 1))
        for node in model.attributes:
            expected += model.reference_node_log_probability(node, codes)
        assert np.array_equal(model._packed().log_likelihood(codes), expected)
