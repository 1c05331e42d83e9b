"""The program of a variable elimination: its checks, its blocks of rows and the flat
tables it reads (the sums themselves: tests/kernels/test_elimination.py)."""

import numpy as np
import pytest
from numpy.testing import assert_allclose

from discotree.models import elimination_plan as plans
from discotree.models.bayes_net import BayesNetModel
from discotree.models.elimination_plan import FlatTables, elimination_plan


def _chain(rng):
    n_categories = np.array([2, 3, 2, 4])
    parents = [(), (0,), (0, 1), (1, 2)]
    log_cpts = []
    for j, pa in enumerate(parents):
        table = rng.random((2, *n_categories[list(pa)], n_categories[j])) + 0.1
        log_cpts.append(np.log(table / table.sum(axis=-1, keepdims=True)))
    return BayesNetModel(n_categories, parents, log_cpts, np.log([0.5, 0.5]))


def test_flat_tables_hold_each_node_with_its_strides(rng):
    model = _chain(rng)
    flat = FlatTables.of(model.log_cpts, model.parents, [1, 3])
    assert flat.table_at[0] == -1 and flat.table_at[2] == -1
    assert flat.family(1) == [0, 1] and flat.family(0) == []
    table = model.log_cpts[3]
    c, a, b, v = 1, 2, 0, 3  # log theta_3[c, x_1 = a, x_2 = b, x_3 = v]
    strides = flat.strides(3)
    at = flat.table_at[3] + c * flat.class_strides[3] + a * strides[1] + b * strides[2]
    at += v * strides[3]
    assert flat.values[at] == table[c, a, b, v]


def test_an_order_that_misses_or_repeats_a_variable_is_refused(rng):
    model = _chain(rng)
    tables = model.flat_tables()
    with pytest.raises(ValueError, match=r"leaves variables \[1\]"):
        elimination_plan(model.n_categories, range(4), {0, 1}, [0], tables)
    with pytest.raises(ValueError, match="no factor holds variable 0"):
        elimination_plan(model.n_categories, range(4), {0, 1}, [0, 1, 0], tables)


def test_rows_in_blocks_give_the_same_numbers(rng, monkeypatch):
    model = _chain(rng)
    codes = np.column_stack([rng.integers(0, r, 9) for r in model.n_categories])
    codes[:, [0, 2]] = -1
    whole = model.marginals(codes)
    monkeypatch.setattr(plans, "MAX_BLOCK_CELLS", 1)  # one row a call
    assert np.array_equal(model.marginals(codes), whole)
    # (and each row alone gives what it gives among the others)
    assert_allclose(whole, np.array([model.marginal(row) for row in codes]), rtol=1e-13)


def test_the_exponentiated_tables_give_the_sums_of_the_logarithms(rng):
    # the sources from exp(tables) times a scale per row and class (the tables within
    # SAFE_LOG_PROBABILITY) against one exponential per cell; tables with a log below
    # it keep the per-cell exponentials (no underflow)
    from dataclasses import replace

    from discotree.kernels.elimination import SAFE_LOG_PROBABILITY

    model = _chain(rng)
    codes = np.column_stack([rng.integers(0, r, 12) for r in model.n_categories])
    codes[:, [0, 2]] = -1
    codes[::3, 3] = -1
    tables = model.flat_tables()
    assert tables.probabilities is not None
    plain = replace(tables, probabilities=None)
    for missing in ({0, 2}, {0, 2, 3}):
        rows = codes[np.all((codes < 0) == np.isin(np.arange(4), list(missing)), axis=1)]
        order = sorted(missing)
        plan = elimination_plan(model.n_categories, range(4), missing, order, tables)
        fast = plan.log_marginals(rows, tables, model.n_classes)
        assert_allclose(fast, plan.log_marginals(rows, plain, model.n_classes), rtol=1e-13)
    tiny = [t.copy() for t in model.log_cpts]
    tiny[1][0, 0, 0] = SAFE_LOG_PROBABILITY - 1.0  # (a table beyond: logarithms only)
    assert FlatTables.of(tiny, model.parents, range(4)).probabilities is None


def test_a_node_the_tables_leave_out_is_refused(rng):
    model = _chain(rng)
    tables = FlatTables.of(model.log_cpts, model.parents, [1, 2, 3])
    with pytest.raises(ValueError, match=r"the tables leave out nodes \[0\]"):
        elimination_plan(model.n_categories, range(4), {0}, [0], tables)
