"""Elimination orders (discotree.models.elimination_order): the greedy min-degree,
min-fill and min-weight orders eliminate every missing variable once; the order kept
forms no larger factor than min-degree's; summing out in any of them
gives the brute-force sum over the missing values (to 1e-12) on small random networks
with weights; a k-dependence model caches its order per pattern of missing attributes."""

import itertools
import math
import pickle

import numpy as np
import pytest
from numpy.testing import assert_allclose

from discotree.models.bayes_net import BayesNetModel
from discotree.models.elimination_order import (
    HEURISTICS,
    EliminationOrder,
    elimination_order,
    greedy_order,
)
from discotree.models.k_dependence import KDependenceModel
from discotree.stats.family_tables import prefix_family_tables


def _network(rng, n=7, k=3):
    """Random parents (at most ``k`` earlier attributes each) and arities 2 to 4."""
    parents = [
        tuple(sorted(rng.choice(j, size=min(j, int(rng.integers(0, k + 1))), replace=False)))
        for j in range(n)
    ]
    return [tuple(int(p) for p in pa) for pa in parents], rng.integers(2, 5, n)


def _weighted_model(rng, n=7, k=3):
    """A k-dependence model counted on weighted rows with missing values."""
    parents, n_categories = _network(rng, n, k)
    codes = np.column_stack([rng.integers(0, r, 120) for r in n_categories])
    codes[rng.random(codes.shape) < 0.1] = -1
    y = rng.integers(0, 3, 120)
    tables = prefix_family_tables(codes, y, rng.exponential(1.0, 120), 3, n_categories, parents)
    return KDependenceModel(n_categories, list(range(n)), parents, tables, 0.5, 1e-5)


def _brute_force(model, row):
    """log of the sum of the complete rows' likelihoods over the missing values."""
    missing = np.flatnonzero(row < 0)
    arities = model.n_categories[missing]
    filled = np.tile(row, (int(np.prod(arities)), 1))
    filled[:, missing] = list(itertools.product(*[range(r) for r in arities]))
    log_p = model.log_likelihood(filled)
    top = log_p.max(axis=0)
    return top + np.log(np.exp(log_p - top).sum(axis=0))


@pytest.mark.parametrize("seed", range(6))
def test_every_heuristic_eliminates_each_variable_once_and_the_kept_order_is_smallest(seed):
    rng = np.random.default_rng(seed)
    parents, n_categories = _network(rng, n=12, k=4)
    missing = {int(v) for v in np.flatnonzero(rng.random(12) < 0.6)}
    scopes = [[v for v in (*pa, j) if v in missing] for j, pa in enumerate(parents)]
    arities = {v: int(n_categories[v]) for v in missing}
    found = {h: greedy_order(scopes, arities, h) for h in HEURISTICS}
    for order in found.values():
        assert sorted(order.order) == sorted(missing)
    kept = elimination_order(scopes, arities)
    assert kept in found.values()
    assert kept.largest == min(order.largest for order in found.values())
    assert found["min-degree"].largest >= kept.largest


def test_min_weight_avoids_the_wide_factor_that_min_degree_forms():
    scopes = [(0,), (0, 1), (0, 2), (1, 3), (2, 3, 4)]
    arities = {0: 2, 1: 9, 2: 9, 3: 2, 4: 2}
    assert greedy_order(scopes, arities).largest == 2 * 9 * 9
    assert greedy_order(scopes, arities, "min-weight").largest == 2 * 9 * 2
    assert elimination_order(scopes, arities).largest == 2 * 9 * 2
    assert elimination_order([], {}).largest == 1


@pytest.mark.parametrize("seed", range(4))
def test_summing_out_in_every_order_equals_brute_force_on_weighted_networks(seed, monkeypatch):
    monkeypatch.setattr("discotree.models.k_dependence.MAX_ENUMERATED_VALUES", 1)
    rng = np.random.default_rng(100 + seed)
    model = _weighted_model(rng)
    dense = model._dense()
    rows = np.column_stack([rng.integers(0, r, 30) for r in model.n_categories])
    rows[rng.random(rows.shape) < 0.45] = -1
    differ = 0
    for row in rows:
        expected = _brute_force(model, row)
        assert_allclose(model.log_likelihood(row[None])[0], expected, rtol=1e-12, atol=1e-14)
        missing = {int(v) for v in np.flatnonzero(row < 0)}
        scopes = [[v for v in (*pa, j) if v in missing] for j, pa in enumerate(dense.parents)]
        arities = {v: int(dense.n_categories[v]) for v in missing}
        orders = {greedy_order(scopes, arities, heuristic) for heuristic in HEURISTICS}
        differ += len({order.order for order in orders}) > 1
        for order in orders:
            got = dense.marginals(row[None], order)[0]
            assert_allclose(got, expected, rtol=1e-12, atol=1e-14)
    assert differ > 0  # (rows the heuristics order differently)


def test_the_program_is_cached_per_pattern_and_left_out_of_the_pickled_state(rng):
    model = _weighted_model(rng)
    row = np.column_stack([rng.integers(0, r, 1) for r in model.n_categories])
    row[0, [0, 1, 2]] = -1
    model._exact(row)
    plans = model.__dict__["_elimination_plans"]
    assert list(plans) == [frozenset({0, 1, 2})]
    cached = plans[frozenset({0, 1, 2})]
    model._exact(row)
    assert plans[frozenset({0, 1, 2})] is cached
    loaded = pickle.loads(pickle.dumps(model)).__dict__
    assert "_elimination_plans" not in loaded and "_flat_tables" not in loaded


def test_a_dense_network_searches_its_order_when_none_is_given(rng):
    n_categories = np.array([2, 9, 9, 2, 2])
    parents = [(), (0,), (0,), (1,), (2, 3)]
    log_cpts = []
    for j, pa in enumerate(parents):
        table = rng.random((2, *n_categories[list(pa)], n_categories[j])) + 0.1
        log_cpts.append(np.log(table / table.sum(axis=-1, keepdims=True)))
    model = BayesNetModel(n_categories, parents, log_cpts, np.log([0.5, 0.5]))
    assert model.elimination_order({0, 1, 2, 3, 4}).largest == 2 * 9 * 2
    rows = np.array([[-1, -1, -1, -1, -1], [-1, 3, -1, -1, 1]])
    assert_allclose(model.marginals(rows[:1]), np.zeros((1, 2)), atol=1e-14)
    one = rows[1]
    expected = np.log(
        sum(
            np.exp(model.log_likelihood(np.array([[a, 3, b, c, 1]])))[0]
            for a in range(2)
            for b in range(9)
            for c in range(2)
        )
    )
    assert_allclose(model.marginals(one[None])[0], expected, rtol=1e-12)


def test_the_pattern_caches_stay_bounded(rng, monkeypatch):
    """A stream of ever new missing-value patterns holds at most MAX_CACHED_PATTERNS
    of them (the caches start again empty), the marginals the same as when cached."""
    model = _weighted_model(rng)
    row = np.column_stack([rng.integers(0, r, 1) for r in model.n_categories])
    patterns = [list(pair) for pair in itertools.combinations(range(7), 2)]
    first = []
    for missing in patterns:
        pattern = row.copy()
        pattern[0, missing] = -1
        first.append(model._exact(pattern))
    assert len(model.__dict__["_elimination_plans"]) > 2  # (cached: more than the bound)
    monkeypatch.setattr("discotree.models.k_dependence.MAX_CACHED_PATTERNS", 2)
    for missing, expected in zip(patterns, first, strict=True):
        pattern = row.copy()
        pattern[0, missing] = -1
        assert_allclose(model._exact(pattern), expected, rtol=0, atol=0)
        assert 1 <= len(model.__dict__["_elimination_plans"]) <= 2


@pytest.mark.parametrize("seed", range(20))
def test_the_bit_set_orders_equal_the_plain_sets_reference(seed):
    from tests.reference import greedy_order_by_sets

    rng = np.random.default_rng(seed)
    variables = sorted(rng.choice(200, size=int(rng.integers(1, 14)), replace=False).tolist())
    scopes = [
        tuple(rng.choice(variables, size=int(rng.integers(0, min(5, len(variables)) + 1)),
                         replace=False).tolist())
        for _ in range(int(rng.integers(1, 16)))
    ]  # fmt: skip
    arities = {v: int(rng.integers(1, 6)) for v in variables}
    for heuristic in HEURISTICS:
        found = greedy_order(scopes, arities, heuristic)
        assert (found.order, found.largest, found.total) == greedy_order_by_sets(
            scopes, arities, heuristic
        )


# ------------------------------------------------ the slow reference of greedy_order
# (the package's order before it was compiled: bit sets of Python integers, scores by
# name, ties to the lowest variable)
def _degree(neighbours: dict[int, int], v: int, arity: list[int]) -> int:
    return neighbours[v].bit_count()


def _fill(neighbours: dict[int, int], v: int, arity: list[int]) -> int:
    rest, count = neighbours[v] & ~(1 << v), 0
    while rest:  # each neighbour a against the later ones not its neighbours
        low = rest & -rest
        rest ^= low
        count += (rest & ~neighbours[low.bit_length() - 1]).bit_count()
    return count


def _weight(neighbours: dict[int, int], v: int, arity: list[int]) -> int:
    return math.prod(arity[u] for u in _members(neighbours[v]))


def _union(masks: list[int], held: set[int]) -> int:
    out = 0
    for at in held:
        out |= masks[at]
    return out


def _members(bits: int) -> list[int]:
    out = []
    while bits:
        low = bits & -bits
        bits ^= low
        out.append(low.bit_length() - 1)
    return out


#: The greedy heuristics by name: the scores of a candidate variable from the current
#: neighbours (each variable's included) and the arities, compared in turn (the lowest
#: goes next; then the lowest variable). Min-degree breaks its ties by the variable
#: alone.
_REFERENCE_HEURISTICS = {
    "min-degree": (_degree,),
    "min-fill": (_fill, _weight),
    "min-weight": (_weight, _fill),
}


def _reference_greedy_order(scopes, arities, heuristic):
    """greedy_order as the package computed it before it was compiled."""
    scores = _REFERENCE_HEURISTICS[heuristic]
    sets = [set(s) for s in scopes]
    names = sorted({v for s in sets for v in s})  # (bit i: names[i]; the same order)
    bit = {v: i for i, v in enumerate(names)}
    arity = [int(arities[v]) for v in names]
    masks = [sum(1 << bit[v] for v in s) for s in sets if s]
    holding: dict[int, set[int]] = {i: set() for i in range(len(names))}  # live scopes
    for at, mask in enumerate(masks):
        for v in _members(mask):
            holding[v].add(at)
    neighbours = {v: _union(masks, held) for v, held in holding.items()}
    order, largest, total = [], 1, 0
    while neighbours:
        variable = min(neighbours, key=lambda v: (*(h(neighbours, v, arity) for h in scores), v))
        joined = neighbours.pop(variable)
        cells = math.prod(arity[u] for u in _members(joined))
        order.append(names[variable])
        largest, total = max(largest, cells), total + cells
        for at in holding.pop(variable):  # (the scopes joined: no longer live)
            for u in _members(masks[at] & ~(1 << variable)):
                holding[u].discard(at)
        rest = joined & ~(1 << variable)
        if rest:
            masks.append(rest)
            for u in _members(rest):
                holding[u].add(len(masks) - 1)
                neighbours[u] = _union(masks, holding[u])
    return EliminationOrder(tuple(order), largest, total)


@pytest.mark.parametrize("seed", range(8))
def test_the_compiled_greedy_orders_equal_the_reference(seed):
    # every heuristic on random scopes: the same order, largest factor and total cells;
    # networks beyond 64 variables too (no bit set of one word)
    rng = np.random.default_rng(seed)
    n = [6, 12, 30, 90][seed % 4]
    parents, n_categories = _network(rng, n=n, k=4)
    missing = {int(v) for v in np.flatnonzero(rng.random(n) < 0.5)}
    scopes = [[v for v in (*pa, j) if v in missing] for j, pa in enumerate(parents)]
    arities = {v: int(n_categories[v]) for v in missing}
    for heuristic in HEURISTICS:
        expected = _reference_greedy_order(scopes, arities, heuristic)
        got = greedy_order(scopes, arities, heuristic)
        assert got == expected
        assert isinstance(got.largest, int) and isinstance(got.total, int)
    assert greedy_order([], {}) == EliminationOrder((), 1, 0)


def test_factors_beyond_the_floats_are_counted_and_cut_short():
    # 250 variables of 30 values in one factor: 30 ** 250 cells overflow a float; the
    # order reports MAX_COUNTED_CELLS, and with a bound it stops at the first factor
    # beyond it (min-degree's alone then)
    from discotree.models.elimination_order import MAX_COUNTED_CELLS

    scopes, arities = [tuple(range(250))], dict.fromkeys(range(250), 30)
    whole = greedy_order(scopes, arities)
    assert whole.largest == MAX_COUNTED_CELLS and len(whole.order) == 250
    cut = elimination_order(scopes, arities, bound=1000.0)
    assert cut.largest > 1000 and len(cut.order) == 1
    small = [(0,), (0, 1), (0, 1, 2)]
    assert elimination_order(small, {0: 2, 1: 3, 2: 4}, bound=24.0).largest == 24
    assert elimination_order(small, {0: 2, 1: 3, 2: 4}, bound=23.0).largest == 24


def test_no_dense_table_is_built_for_a_pattern_beyond_the_guard(rng, monkeypatch):
    # the guard reads the structure: a pattern it refuses backs off without the dense
    # model or its flat tables
    monkeypatch.setattr("discotree.models.k_dependence.MAX_ELIMINATION_CELLS", 1)
    monkeypatch.setattr("discotree.models.k_dependence.MAX_ENUMERATED_VALUES", 1)
    model = _weighted_model(rng)
    parent = next(p for pa in model.parents for p in pa)  # (its children observed)
    row = np.column_stack([rng.integers(0, r, 1) for r in model.n_categories])
    row[0, parent] = -1
    assert model._summed_parents(row)[0, parent]
    assert np.isfinite(model.log_likelihood(row)).all()
    assert "_dense_model" not in model.__dict__ and "_flat_tables" not in model.__dict__
    assert model.__dict__["_elimination_plans"]  # (the refusal cached: None)
    assert all(plan is None for plan in model.__dict__["_elimination_plans"].values())


def test_a_variable_without_an_arity_is_refused():
    with pytest.raises(ValueError, match=r"no arity for variables \[1\]"):
        elimination_order([(0, 1)], {0: 2})
