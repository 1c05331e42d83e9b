"""The contraction paths of variable elimination's products, searched once for each
subscripts and shapes (:func:`discotree.models.bayes_net._contraction_path`): the same
numbers as ``np.einsum(..., optimize=True)``, which searches them on every call."""

import numpy as np

from discotree.models import bayes_net
from discotree.models.bayes_net import BayesNetModel


def test_a_cached_path_gives_the_products_of_optimize_true(rng):
    spec = "abcd,abde,abce,abf->abcf"
    shapes = [(7, 3, 4, 5), (7, 3, 5, 6), (7, 3, 4, 6), (7, 3, 2)]
    operands = [rng.random(shape) for shape in shapes]
    expected = np.einsum(spec, *operands, optimize=True)
    path = bayes_net._contraction_path(spec, operands)
    assert bayes_net._contraction_path(spec, operands) is path  # (searched once)
    assert np.array_equal(np.einsum(spec, *operands, optimize=path), expected)


def test_eliminations_with_cached_paths_equal_the_optimize_true_products(rng, monkeypatch):
    # a dense network whose rows miss enough parents for products of many factors
    n_categories = np.array([3, 2, 4, 3, 2, 3])
    parents = [(), (0,), (0, 1), (1, 2), (2, 3), (0, 3, 4)]
    n_classes = 3
    log_cpts = []
    for j, pa in enumerate(parents):
        table = rng.random((n_classes, *n_categories[list(pa)], n_categories[j])) + 0.1
        log_cpts.append(np.log(table / table.sum(axis=-1, keepdims=True)))
    model = BayesNetModel(n_categories, parents, log_cpts, np.log(np.full(n_classes, 1 / 3)))
    codes = np.column_stack([rng.integers(0, r, 9) for r in n_categories])
    codes[:, [0, 1, 3]] = -1
    cached = model.marginals(codes)
    again = model.marginals(codes)  # (the paths from the cache)
    monkeypatch.setattr(bayes_net, "_contraction_path", lambda spec, operands: True)
    assert np.array_equal(cached, model.marginals(codes))
    assert np.array_equal(again, cached)
