"""The compiled variable elimination against its reference (``numpy.einsum`` over the
same factors, :func:`tests.reference.eliminated_by_einsum`) and brute-force summation,
on random networks, rows and patterns of missing features."""

import itertools

import numpy as np
import pytest
from numpy.testing import assert_allclose

from discotree.models.bayes_net import BayesNetModel
from discotree.models.elimination_order import elimination_order
from discotree.models.elimination_plan import FlatTables, elimination_plan
from tests.reference import eliminated_by_einsum


def _network(rng, n_features, k, n_classes):
    n_categories = rng.integers(2, 5, n_features)
    parents = [
        tuple(sorted(rng.choice(j, size=min(j, int(rng.integers(0, k + 1))), replace=False)))
        for j in range(n_features)
    ]
    log_cpts = []
    for j, pa in enumerate(parents):
        table = rng.random((n_classes, *n_categories[list(pa)], n_categories[j])) + 0.05
        log_cpts.append(np.log(table / table.sum(axis=-1, keepdims=True)))
    prior = np.log(np.full(n_classes, 1.0 / n_classes))
    parents = [tuple(int(p) for p in pa) for pa in parents]
    return BayesNetModel(n_categories, parents, log_cpts, prior)


def _brute_force(model, row):
    missing = [v for v in range(len(row)) if row[v] < 0]
    total = np.zeros(model.n_classes)
    for values in itertools.product(*[range(model.n_categories[v]) for v in missing]):
        filled = row.copy()
        filled[missing] = values
        total += np.exp(sum(model.node_log_probability(j, filled[None])[0]
                            for j in range(model.n_features)))  # fmt: skip
    return np.log(total)


@pytest.mark.parametrize("seed", range(12))
def test_compiled_elimination_equals_the_einsum_reference_and_brute_force(seed):
    rng = np.random.default_rng(seed)
    n_features, n_classes = int(rng.integers(2, 8)), int(rng.integers(1, 4))
    model = _network(rng, n_features, int(rng.integers(1, 4)), n_classes)
    codes = np.column_stack([rng.integers(0, r, 7) for r in model.n_categories])
    missing = {int(v) for v in np.flatnonzero(rng.random(n_features) < 0.5)}
    codes[:, sorted(missing)] = -1
    scopes = [[v for v in (*pa, j) if v in missing] for j, pa in enumerate(model.parents)]
    order = elimination_order(scopes, {v: int(model.n_categories[v]) for v in missing})
    tables = FlatTables.of(model.log_cpts, model.parents, range(n_features))
    plan = elimination_plan(model.n_categories, range(n_features), missing, order.order, tables)
    got = plan.log_marginals(codes, tables, n_classes)
    assert_allclose(
        got, eliminated_by_einsum(model, codes, missing, order.order), rtol=1e-12, atol=1e-14
    )
    brute = np.array([_brute_force(model, row) for row in codes])
    assert_allclose(got, brute, rtol=1e-10, atol=1e-14)


def test_a_subset_of_families_and_any_order_sum_the_same(rng):
    model = _network(rng, 6, 2, 3)
    codes = np.column_stack([rng.integers(0, r, 5) for r in model.n_categories])
    missing = {1, 2, 4}
    codes[:, sorted(missing)] = -1
    nodes = [0, 1, 2, 3, 4]  # node 5 left out: its factor taken as 1
    tables = FlatTables.of(model.log_cpts, model.parents, nodes)
    wanted = [v for v in sorted(missing) if any(v in (*model.parents[j], j) for j in nodes)]
    results = []
    for order in itertools.permutations(wanted):
        plan = elimination_plan(model.n_categories, nodes, set(wanted), order,
                                tables)  # fmt: skip
        results.append(plan.log_marginals(codes, tables, 3))
        reference = eliminated_by_einsum(model, codes, set(wanted), order, nodes=nodes)
        assert_allclose(results[-1], reference, rtol=1e-12, atol=1e-14)
    for other in results[1:]:
        assert_allclose(other, results[0], rtol=1e-12, atol=1e-14)


def test_tiny_and_underflowing_factors_stay_finite(rng):
    # tables of probabilities down to 1e-300: the per-row, per-class scales keep every
    # product representable, as in the reference
    model = _network(rng, 5, 2, 2)
    model.log_cpts[3] = model.log_cpts[3] * 400.0
    model.log_cpts[3] -= np.log(np.exp(model.log_cpts[3]).sum(axis=-1, keepdims=True))
    codes = np.column_stack([rng.integers(0, r, 4) for r in model.n_categories])
    codes[:, [0, 1, 2]] = -1
    missing = {0, 1, 2}
    order = (0, 1, 2)
    tables = FlatTables.of(model.log_cpts, model.parents, range(5))
    plan = elimination_plan(model.n_categories, range(5), missing, order, tables)
    got = plan.log_marginals(codes, tables, 2)
    assert np.isfinite(got).all()
    assert_allclose(got, eliminated_by_einsum(model, codes, missing, order), rtol=1e-10)


def test_a_subnormal_largest_number_is_rescaled_to_a_finite_one():
    # x (3 values) and w (2) missing, their children a(x, w), b(x), d(x) observed, each
    # likely under a different x: the closing factor's largest number is below the
    # smallest normal float; its rescaling stays finite and the marginal exact (found
    # in review: a scale of 2 ** 1074 overflowed to inf)
    eps = np.exp(-360.0)

    def normalised(table):
        return np.log(table / table.sum(axis=-1, keepdims=True))

    a = np.empty((1, 3, 2, 2))
    for value, first in enumerate([eps, eps, 1.0]):
        a[0, value, :, 0], a[0, value, :, 1] = first, 1.0
    b = np.array([[[1.0, eps], [eps, 1.0], [eps, 1.0]]])
    d = np.array([[[eps, 1.0], [1.0, eps], [eps, 1.0]]])
    log_cpts = [normalised(np.ones((1, 3))), normalised(np.ones((1, 2))), normalised(a),
                normalised(b), normalised(d)]  # fmt: skip
    parents = [(), (), (0, 1), (0,), (0,)]
    tables = FlatTables.of(log_cpts, parents, range(5))
    plan = elimination_plan(np.array([3, 2, 2, 2, 2]), range(5), {0, 1}, (0, 1), tables)
    got = plan.log_marginals(np.array([[-1, -1, 0, 0, 0]]), tables, 1)
    terms = [
        log_cpts[0][0, x] + log_cpts[1][0, w] + log_cpts[2][0, x, w, 0]
        + log_cpts[3][0, x, 0] + log_cpts[4][0, x, 0]
        for x in range(3) for w in range(2)
    ]  # fmt: skip
    top = max(terms)
    exact = top + np.log(np.sum(np.exp(np.array(terms) - top)))
    assert np.isfinite(got).all()
    assert_allclose(got[0, 0], exact, rtol=1e-12)
