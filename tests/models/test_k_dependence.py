"""KDependenceModel: a proper distribution on complete rows (checked by enumerating
every row of a small model); a missing attribute summed out exactly (one missing parent
by the vectorised sum, checked against variable elimination); beyond the elimination
guards, missing parents backed off to the observed prefix (the stated rule); several
missing parents by enumerating their joint values, checked against elimination too."""

import itertools

import numpy as np
import pytest
from numpy.testing import assert_allclose

from discotree.kernels.counts import configuration_ids
from discotree.models.enumeration import joint_values
from discotree.models.k_dependence import KDependenceModel
from discotree.stats.family_tables import observed_prefix_lengths, prefix_family_tables

N_CATEGORIES = np.array([2, 3, 2, 3])
PARENTS = [(), (0,), (1, 0), (2, 1)]


def _model(rng, alpha=0.5):
    codes = np.column_stack([rng.integers(0, r, 80) for r in N_CATEGORIES])
    codes[rng.random(codes.shape) < 0.1] = -1
    y = rng.integers(0, 2, 80)
    tables = prefix_family_tables(codes, y, None, 2, N_CATEGORIES, PARENTS)
    return KDependenceModel(N_CATEGORIES, [0, 1, 2, 3], PARENTS, tables, alpha, 1e-5)


def _hierarchical(rng):
    """A model of ``_model`` with hierarchical concentrations (1 + j at every level of
    feature j)."""
    model = _model(rng)
    model.concentrations = [np.array([1.0 + j] * (len(PARENTS[j]) + 1)) for j in range(4)]
    return model


def _plain_and_hierarchical(rng):
    """A model of ``_model``, then one of ``_hierarchical``, each drawn when the caller
    asks for it."""
    yield _model(rng)
    yield _hierarchical(rng)


def _rows(rng, n):
    """``n`` complete rows of random values of the model's features."""
    return np.column_stack([rng.integers(0, r, n) for r in N_CATEGORIES])


def test_complete_rows_carry_the_whole_probability_of_every_class(rng):
    model = _model(rng)
    every = np.array(list(itertools.product(*[range(r) for r in N_CATEGORIES])))
    assert_allclose(np.exp(model.log_likelihood(every)).sum(axis=0), [1.0, 1.0])


def test_a_missing_leaf_is_summed_out_exactly(rng):
    model = _model(rng)
    # feature 3 is no one's parent: its marginal is the sum over its values
    row = np.array([[1, 2, 0, -1]])
    filled = np.repeat(row, 3, axis=0)
    filled[:, 3] = [0, 1, 2]
    brute = np.log(np.exp(model.log_likelihood(filled)).sum(axis=0))
    assert_allclose(model.log_likelihood(row)[0], brute)


def test_a_missing_parent_is_summed_out_exactly(rng):
    model = _model(rng)
    row = np.array([1, -1, 1, -1])  # feature 1 is a parent of 2 and 3; 3 is a leaf
    filled = np.array([[1, b, 1, d] for b in range(3) for d in range(3)])
    brute = np.log(np.exp(model.log_likelihood(filled)).sum(axis=0))
    assert_allclose(model.log_likelihood(row[None])[0], brute, rtol=1e-12)
    both = np.array([-1, -1, 0, 2])  # the root and its child missing
    filled = np.array([[a, b, 0, 2] for a in range(2) for b in range(3)])
    brute = np.log(np.exp(model.log_likelihood(filled)).sum(axis=0))
    assert_allclose(model.log_likelihood(both[None])[0], brute, rtol=1e-12)


def test_elimination_beyond_the_guard_backs_off_to_the_observed_prefix(rng, monkeypatch):
    # (beyond the enumeration's bound too: the row is not enumerated)
    monkeypatch.setattr("discotree.models.k_dependence.MAX_ELIMINATION_CELLS", 1)
    monkeypatch.setattr("discotree.models.k_dependence.MAX_ENUMERATED_VALUES", 1)
    model = _model(rng)
    backed_off = model.log_likelihood(np.array([[-1, -1, 1, 2]]))
    # features 0 and 1 missing (two parents): 2's parents (1, 0) -> (), 3's (2, 1) -> (2,)
    row = np.array([[-1, -1, 1, 2]])
    assert list(observed_prefix_lengths(row, (1, 0))) == [0]
    expected = np.zeros((1, 2))
    for node, length in ((2, 0), (3, 1)):
        ids, _ = configuration_ids(row, PARENTS[node][:length], N_CATEGORIES)
        table = model.tables[node][length]
        expected = expected + table.log_probability(ids, row[:, node], 0.5, 1e-5)
    assert_allclose(model.log_likelihood(row), expected)
    monkeypatch.setattr("discotree.models.k_dependence.MAX_ENUMERATED_VALUES", 256)
    assert_allclose(model.log_likelihood(row)[0], _brute_force(model, row[0]), rtol=1e-12)
    assert not np.allclose(backed_off, model.log_likelihood(row))  # (not the exact sum)
    assert model.edges() == [(0, 1), (1, 2), (0, 2), (2, 3), (1, 3)]
    assert model.nbytes > 0


def test_one_missing_parent_beyond_the_guard_is_backed_off_too(rng, monkeypatch):
    # dense tables beyond their bound: the back-off rule, enumerable or not
    monkeypatch.setattr("discotree.models.k_dependence.MAX_DENSE_CELLS", 0)
    model = _model(rng)
    row = np.array([[1, -1, 1, 2]])  # only feature 1 (a parent of 2 and 3) missing
    expected = model.node_log_probability(0, row)
    for node in (2, 3):  # 2's parents (1, 0) -> (), 3's (2, 1) -> (2,)
        expected = expected + model.node_log_probability(node, row)
    assert_allclose(model.log_likelihood(row), expected)


def test_the_vectorised_sum_equals_variable_elimination(rng):
    for model in _plain_and_hierarchical(rng):
        rows = _rows(rng, 60)
        which = rng.choice([0, 1, 2], 60)  # one parent missing per row (0, 1 or 2)
        rows[np.arange(60), which] = -1
        rows[rng.random(60) < 0.3, 3] = -1  # and sometimes the leaf too
        got = model.log_likelihood(rows)
        expected = np.array([model._exact(r[None])[0] for r in rows])
        assert_allclose(got, expected, rtol=1e-11)


def test_the_enumerated_sum_equals_variable_elimination(rng):
    # rows with two or more missing parents: the missing parents' joint values
    # enumerated over the factors they touch, against elimination over dense tables
    for model in _plain_and_hierarchical(rng):
        rows = _rows(rng, 40)
        for i in range(40):
            rows[i, rng.choice(3, size=int(rng.integers(2, 4)), replace=False)] = -1
        rows[rng.random(40) < 0.3, 3] = -1
        got = model.log_likelihood(rows)
        expected = np.array([model._exact(r[None])[0] for r in rows])
        assert_allclose(got, expected, rtol=1e-11, atol=1e-14)  # (log 1 = 0: rows all summed out)
        with pytest.MonkeyPatch.context() as patch:  # no enumeration: elimination only
            patch.setattr("discotree.models.k_dependence.MAX_ENUMERATED_VALUES", 1)
            assert_allclose(model.log_likelihood(rows), got, rtol=1e-11, atol=1e-14)


def test_hierarchical_factors_of_unseen_configurations_are_the_shorter_prefix(rng):
    codes = np.column_stack([rng.integers(0, 2, 80), rng.integers(0, 3, 80)])
    y = rng.integers(0, 2, 80)
    n_categories = np.array([3, 3])  # feature 0's value 2 is never seen
    tables = prefix_family_tables(codes, y, None, 2, n_categories, [(), (0,)])
    concentrations = [np.array([2.0]), np.array([2.0, 4.0])]
    deep = KDependenceModel(n_categories, [1], [(), (0,)], tables, 1.0, 0.0, concentrations)
    shallow = KDependenceModel(
        n_categories, [1], [(), ()], tables, 1.0, 0.0, [c[:1] for c in concentrations]
    )
    unseen = np.array([[2, 1]])
    assert_allclose(deep.log_likelihood(unseen), shallow.log_likelihood(unseen))
    seen = np.array([[1, 1]])
    assert not np.allclose(deep.log_likelihood(seen), shallow.log_likelihood(seen))
    every = np.array([[a, b] for a in range(3) for b in range(3)])
    # for each parent value, the node's factor is a distribution over its values
    factors = np.exp(deep.log_likelihood(every)).reshape(3, 3, 2).sum(axis=1)
    assert_allclose(factors, 1.0)


def test_many_missing_parents_are_never_enumerated():
    # 40 missing parents of 4 values: 4**40 joint values overflow int64 (np.prod gave 0,
    # and the enumeration ran out of memory): the count is exact, elimination or the
    # back-off takes the row
    n = 42
    n_categories = np.full(n, 4)
    parents = [()] + [(0,)] + [(j - 1, j - 2) for j in range(2, n)]
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 4, (60, n))
    y = rng.integers(0, 2, 60)
    tables = prefix_family_tables(codes, y, None, 2, n_categories, parents)
    model = KDependenceModel(n_categories, list(range(n)), parents, tables, 1.0, 1e-5)
    row = codes[:1].copy()
    row[0, 1:41] = -1
    assert joint_values(model._summed_parents(row), n_categories)[0] == 4.0**40
    assert np.isfinite(model.log_likelihood(row)).all()


def _brute_force(model, row):
    """log sum over the missing values of the complete rows' likelihoods."""
    missing = np.flatnonzero(row < 0)
    filled = np.tile(row, (int(np.prod(N_CATEGORIES[missing])), 1))
    filled[:, missing] = list(itertools.product(*[range(r) for r in N_CATEGORIES[missing]]))
    return np.log(np.exp(model.log_likelihood(filled)).sum(axis=0))


@pytest.mark.parametrize("blocks", ["whole", "one row at a time"])
def test_rows_sharing_a_pattern_are_summed_out_together_exactly(rng, monkeypatch, blocks):
    # many rows, few patterns of missing attributes: each pattern's rows eliminated or
    # enumerated at once (in blocks), every row equal to its brute-force sum
    if blocks != "whole":
        monkeypatch.setattr("discotree.models.elimination_plan.MAX_BLOCK_CELLS", 1)
        monkeypatch.setattr("discotree.models.k_dependence.ENUMERATED_BLOCK_ROWS", 1)
    model = _hierarchical(rng)
    patterns = np.array([[1, 1, 0, 0], [1, 0, 1, 1], [0, 1, 1, 0], [1, 1, 1, 0]], dtype=bool)
    rows = _rows(rng, 30)
    rows[patterns[rng.integers(0, 4, 30)]] = -1
    expected = np.array([_brute_force(model, r) for r in rows])
    assert_allclose(model.log_likelihood(rows), expected, rtol=1e-11, atol=1e-14)
    with monkeypatch.context() as patch:  # elimination only
        patch.setattr("discotree.models.k_dependence.MAX_ENUMERATED_VALUES", 1)
        assert_allclose(model.log_likelihood(rows), expected, rtol=1e-11, atol=1e-14)


def test_the_dense_network_eliminates_rows_of_one_pattern_at_once(rng, monkeypatch):
    model = _model(rng)._dense()
    rows = _rows(rng, 12)
    rows[:, [0, 2]] = -1
    one_by_one = np.array([model.marginal(r) for r in rows])
    assert_allclose(model.marginals(rows), one_by_one, rtol=1e-12)
    monkeypatch.setattr("discotree.models.elimination_plan.MAX_BLOCK_CELLS", 1)
    assert_allclose(model.marginals(rows), one_by_one, rtol=1e-12)
    rows[0, 1] = -1
    with pytest.raises(ValueError, match="miss the same features"):
        model.marginals(rows)


def test_barren_attributes_are_the_missing_ones_without_an_observed_descendant(rng):
    model = _model(rng)  # (0 -> 1 -> 2 -> 3, 0 -> 2, 1 -> 3)
    assert model._barren({3}) == [3]
    assert model._barren({2, 3}) == [2, 3]
    assert model._barren({2}) == []  # (its child 3 is observed)
    assert model._barren({1, 3}) == [3]
    assert model._barren({0, 1, 2, 3}) == [0, 1, 2, 3]
    assert model._barren(set()) == []


@pytest.mark.parametrize("hierarchical", [False, True])
def test_elimination_without_the_barren_attributes_equals_the_whole_network(rng, hierarchical):
    # wider random networks with weights: every pattern of missing attributes, each
    # eliminated with its barren attributes left out, against the whole dense network
    n_categories = rng.integers(2, 4, 7)
    codes = np.column_stack([rng.integers(0, r, 150) for r in n_categories])
    codes[rng.random(codes.shape) < 0.1] = -1
    y = rng.integers(0, 3, 150)
    parents = [(), (0,), (0, 1), (1, 2), (2, 0), (3, 4), (5, 1)]
    tables = prefix_family_tables(codes, y, rng.exponential(1.0, 150), 3, n_categories, parents)
    model = KDependenceModel(n_categories, list(range(7)), parents, tables, 0.5, 1e-5)
    if hierarchical:
        model.concentrations = [rng.uniform(0.5, 20, len(p) + 1) for p in parents]
    rows = np.column_stack([rng.integers(0, r, 40) for r in n_categories])
    rows[rng.random(rows.shape) < 0.4] = -1
    seen = 0
    for row in rows:
        missing = {int(v) for v in np.flatnonzero(row < 0)}
        seen += bool(model._barren(missing))
        got = model._exact(row[None])
        assert got is not None
        assert_allclose(got, model._dense().marginals(row[None]), rtol=1e-12, atol=1e-14)
    assert seen > 0


@pytest.mark.parametrize("seed", range(12))
def test_a_missing_parent_that_is_no_attribute_is_backed_off(seed, monkeypatch):
    # a hand-built model whose attributes leave out a parent: enumeration backs it off
    # in every copy; beyond enumeration, its rows keep the back-off (elimination has no
    # factor to sum it with); the other rows are summed the same by either way
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 7))
    n_categories = rng.integers(2, 4, n)  # (none enumerates below 2 values)
    parents = [
        tuple(int(p) for p in rng.choice(j, size=min(j, int(rng.integers(0, 3))), replace=False))
        for j in range(n)
    ]
    parents[n - 1] = tuple(range(min(2, n - 1)))  # (0 a parent at least)
    codes = np.column_stack([rng.integers(0, r, 60) for r in n_categories])
    codes[rng.random(codes.shape) < 0.1] = -1
    tables = prefix_family_tables(codes, rng.integers(0, 2, 60), None, 2, n_categories, parents)
    attributes = list(range(1, n))  # (parent 0 is no attribute)
    rows = np.column_stack([rng.integers(0, r, 50) for r in n_categories])
    rows[rng.random(rows.shape) < 0.4] = -1
    rows[::3, 0] = -1
    model = KDependenceModel(n_categories, attributes, parents, tables, 0.5, 1e-5)
    enumerated = model.log_likelihood(rows)
    monkeypatch.setattr("discotree.models.k_dependence.MAX_ENUMERATED_VALUES", 1)
    fresh = KDependenceModel(n_categories, attributes, parents, tables, 0.5, 1e-5)
    eliminated = fresh.log_likelihood(rows)
    stray = rows[:, 0] < 0
    assert_allclose(eliminated[~stray], enumerated[~stray], rtol=1e-12, atol=1e-12)
    assert np.array_equal(eliminated[stray], fresh._backed_off(rows)[stray])


def _chain_network(rng, n, n_rows):
    """Each feature's parents the two before it, tables counted on ``n_rows`` random rows
    (2 classes) with 30 % of their values missing: the codes and the tables."""
    n_categories = rng.integers(2, 4, n)
    parents = [tuple(range(max(0, j - 2), j)) for j in range(n)]
    codes = np.column_stack([rng.integers(0, r, n_rows) for r in n_categories])
    codes[rng.random(codes.shape) < 0.3] = -1
    y = rng.integers(0, 2, n_rows)
    tables = prefix_family_tables(codes, y, None, 2, n_categories, parents)
    return n_categories, parents, codes, tables


@pytest.mark.parametrize("seed", range(4))
def test_a_fit_prepares_the_programs_of_its_rows_patterns(
    seed, monkeypatch, prediction_kernels_at_hand
):
    # prepare_prediction with the training rows: the elimination programs of their
    # most frequent sets of missing attributes built ahead (at most PREPARED_PATTERNS);
    # predicting those rows then builds none, and gives the bits of a model without
    from discotree.models import k_dependence

    monkeypatch.setattr(k_dependence, "MAX_ENUMERATED_VALUES", 1)  # (elimination only)
    n = 6
    n_categories, parents, codes, tables = _chain_network(np.random.default_rng(seed), n, 200)

    def model():
        return KDependenceModel(n_categories, list(range(n)), parents, tables, 0.5, 1e-5)

    prepared = model()
    prepared.prepare_prediction(True, codes)
    built = len(prepared.__dict__["_elimination_plans"])
    assert 0 < built <= k_dependence.PREPARED_PATTERNS
    got = prepared.log_likelihood(codes)
    if built < k_dependence.PREPARED_PATTERNS:  # (every pattern prepared: none new)
        assert len(prepared.__dict__["_elimination_plans"]) == built
    assert np.array_equal(got, model().log_likelihood(codes))
    monkeypatch.setattr(k_dependence, "PREPARED_PATTERNS", 2)
    fewer = model()
    fewer.prepare_prediction(True, codes)
    assert len(fewer.__dict__["_elimination_plans"]) == min(2, built)


def test_with_a_cold_cache_the_fit_leaves_the_prediction_tables_to_the_first_call(
    monkeypatch,
):
    # prepare_prediction where numba's cache holds neither the packing and scoring
    # functions nor the elimination's: nothing built that would compile them (a first
    # fit does not pay their compilation); only the elimination's missing: the packed
    # and dense tables built, no program; the first prediction builds the rest and
    # gives the bits of a prepared model
    from discotree.models import k_dependence

    monkeypatch.setattr(k_dependence, "MAX_ENUMERATED_VALUES", 1)  # (elimination only)
    monkeypatch.setattr(k_dependence, "kernels_at_hand", lambda: False)
    monkeypatch.setattr(k_dependence, "backoff_kernels_at_hand", lambda: False)
    rng = np.random.default_rng(0)
    n = 5
    n_categories, parents, codes, tables = _chain_network(rng, n, 150)
    concentrations = [rng.uniform(0.5, 20, len(p) + 1) for p in parents]

    def model():
        return KDependenceModel(
            n_categories, list(range(n)), parents, tables, 0.5, 1e-5, concentrations
        )

    cold = model()
    cold.prepare_prediction(True, codes)
    assert "_packed_backoff" not in cold.__dict__
    assert "_elimination_plans" not in cold.__dict__
    assert "_flat_tables" not in cold.__dict__
    monkeypatch.setattr(k_dependence, "backoff_kernels_at_hand", lambda: True)
    half = model()
    half.prepare_prediction(True, codes)
    assert half.__dict__["_packed_backoff"] is not None
    assert "_flat_tables" in half.__dict__
    assert "_elimination_plans" not in half.__dict__
    monkeypatch.setattr(k_dependence, "kernels_at_hand", lambda: True)
    warm = model()
    warm.prepare_prediction(True, codes)
    assert warm.__dict__["_packed_backoff"] is not None
    assert len(warm.__dict__["_elimination_plans"]) > 0
    expected = warm.log_likelihood(codes)
    assert np.array_equal(cold.log_likelihood(codes), expected)
    assert np.array_equal(half.log_likelihood(codes), expected)


def test_the_rows_missing_a_value_given_give_the_same_bits(rng):
    # log_likelihood(missing_rows=...): the rows missing any value, found by a caller
    # that scores them with many models, against those the model finds itself
    n_categories, parents, codes, tables = _chain_network(rng, 5, 120)
    model = KDependenceModel(n_categories, list(range(5)), parents, tables, 0.5, 1e-5)
    missing_rows = np.flatnonzero((codes < 0).any(axis=1))
    found = model.log_likelihood(codes)
    assert np.array_equal(model.log_likelihood(codes, missing_rows), found)
    complete = np.flatnonzero(~(codes < 0).any(axis=1))
    assert np.array_equal(model.log_likelihood(codes[complete], np.zeros(0, dtype=np.intp)),
                          found[complete])  # fmt: skip
