"""Kruskal forests: textbook graph, optimality of every prefix, ties, orientation."""

import numpy as np
import pytest

from discotree.structure.spanning import (
    maximum_spanning_forest,
    orient_forest,
    topological_order,
)
from tests import reference


def test_textbook_graph():
    w = np.zeros((4, 4))
    for (i, j), v in {(0, 1): 4, (0, 2): 1, (1, 2): 3, (1, 3): 2, (2, 3): 5, (0, 3): 0.5}.items():
        w[i, j] = w[j, i] = v
    edges, weights = maximum_spanning_forest(w)
    assert edges == [(2, 3), (0, 1), (1, 2)]
    assert weights.tolist() == [5, 4, 3]


@pytest.mark.parametrize("n", [2, 4, 5, 6])
def test_every_prefix_is_the_optimal_k_edge_forest(rng, n):
    a = rng.normal(size=(n, n))
    w = a + a.T
    edges, weights = maximum_spanning_forest(w)
    assert len(edges) == n - 1
    assert weights.sum() == pytest.approx(reference.maximum_spanning_tree_prim(w))
    for k in range(1, n):
        assert weights[:k].sum() == pytest.approx(reference.best_forest_weight(w, k))
    assert all(i < j for i, j in edges)


def test_positive_only_and_max_edges():
    w = np.array([[0, 2, -1, 0], [2, 0, 3, -2], [-1, 3, 0, 0], [0, -2, 0, 0]], float)
    edges, _ = maximum_spanning_forest(w, positive_only=True)
    assert edges == [(1, 2), (0, 1)]
    edges, _ = maximum_spanning_forest(w, max_edges=1)
    assert edges == [(1, 2)]
    edges, _ = maximum_spanning_forest(w)
    assert len(edges) == 3


def test_ties_are_broken_by_index():
    edges, _ = maximum_spanning_forest(np.ones((4, 4)))
    assert edges == [(0, 1), (0, 2), (0, 3)]


def test_empty_and_single_node():
    assert maximum_spanning_forest(np.zeros((1, 1)))[0] == []
    assert maximum_spanning_forest(np.zeros((0, 0)))[0] == []


def test_nan_and_shape_errors():
    with pytest.raises(ValueError, match="NaN"):
        maximum_spanning_forest(np.full((3, 3), np.nan))
    with pytest.raises(ValueError, match="square"):
        maximum_spanning_forest(np.zeros((2, 3)))


def test_orientation_and_topological_order():
    parents = orient_forest(5, [(0, 1), (1, 2), (3, 4)], root=1)
    assert parents.tolist() == [1, -1, 1, -1, 3]
    order = topological_order(parents).tolist()
    for j, p in enumerate(parents):
        if p >= 0:
            assert order.index(p) < order.index(j)
    with pytest.raises(ValueError, match="cycle"):
        orient_forest(3, [(0, 1), (1, 2), (0, 2)])


@pytest.mark.parametrize("n_edges", [None, 5, 119])
def test_large_graph_matches_plain_kruskal_including_the_full_sort_fallback(rng, n_edges):
    # n = 120 gives 7140 candidates, more than the 1024 tried first; node 7 is joined
    # only by very light edges, so the tree needs the full sort.
    n = 120
    a = np.round(rng.normal(size=(n, n)), 1)  # rounding makes ties
    w = a + a.T
    w[7, :] = w[:, 7] = -1000.0 - rng.random(n)
    w[7, 7] = 0
    edges, weights = maximum_spanning_forest(w, max_edges=n_edges)
    assert edges == reference.kruskal(w, max_edges=n_edges)
    assert weights.tolist() == [w[i, j] for i, j in edges]
    if n_edges is None:
        assert any(7 in e for e in edges)
        assert weights.sum() == pytest.approx(reference.maximum_spanning_tree_prim(w))


def test_positive_only_on_a_large_graph(rng):
    a = rng.normal(size=(80, 80))
    w = a + a.T
    edges, weights = maximum_spanning_forest(w, positive_only=True)
    assert edges == reference.kruskal(w, positive_only=True)
    assert (weights > 0).all()


def test_random_spanning_trees_are_trees_and_cover_every_tree():
    from discotree.structure.spanning import random_spanning_tree

    rng = np.random.default_rng(0)
    seen = set()
    for _ in range(400):
        edges = random_spanning_tree(4, rng)
        assert len(edges) == 3 and all(i < j for i, j in edges)
        nodes = {0}
        for _ in range(3):  # connected: grow from node 0
            nodes |= {v for e in edges if set(e) & nodes for v in e}
        assert nodes == set(range(4))
        seen.add(frozenset(edges))
    assert len(seen) == 16  # Cayley: 4^(4-2) labelled trees, all drawn
    assert random_spanning_tree(1, rng) == [] and random_spanning_tree(2, rng) == [(0, 1)]
