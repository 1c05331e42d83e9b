"""Discrete forest model: normalisation and exact marginalisation."""

import itertools

import numpy as np
from numpy.testing import assert_allclose

from discotree.models.discrete_forest import DiscreteForestModel
from discotree.structure.spanning import orient_forest
from tests import reference


def _random_model(rng, n_features=5, n_classes=2, max_r=3):
    n_cat = rng.integers(1, max_r + 1, n_features).astype(np.intp)
    parents = []
    for _ in range(n_classes):
        edges = [(int(rng.integers(0, j)), j) for j in range(1, n_features) if rng.random() < 0.8]
        parents.append(orient_forest(n_features, edges, root=int(rng.integers(n_features))))
    parents = np.array(parents)
    log_cpts = []
    for c in range(n_classes):
        tables = []
        for j in range(n_features):
            rp = 1 if parents[c, j] < 0 else n_cat[parents[c, j]]
            p = rng.dirichlet(np.ones(n_cat[j]), size=rp)
            tables.append(np.log(p))
        log_cpts.append(tables)
    return DiscreteForestModel(parents=parents, n_categories=n_cat, log_cpts=log_cpts)


def test_marginalisation_equals_brute_force(rng):
    model = _random_model(rng)
    codes = np.column_stack([rng.integers(0, r, 60) for r in model.n_categories])
    codes[rng.random(codes.shape) < 0.4] = -1
    codes[0] = -1  # everything missing: log P = 0
    fast = model.log_likelihood(codes)
    slow = reference.forest_log_likelihood(codes, model.parents, model.n_categories, model.log_cpts)
    assert_allclose(fast, slow, rtol=1e-10, atol=1e-10)
    assert_allclose(fast[0], 0.0, atol=1e-12)


def test_distribution_is_normalised(rng):
    model = _random_model(rng, n_features=4)
    grid = np.array(list(itertools.product(*[range(r) for r in model.n_categories])))
    total = np.exp(model.log_likelihood(grid)).sum(axis=0)
    assert_allclose(total, 1.0)
