"""Generative structures of class-conditional networks from pair statistics: the
Chow-Liu forest of I(X_i; X_j | C) shared by the classes (TAN-CMI, Friedman et al.,
1997; Pernkopf & Bilmes 2010, Section 4.3), possibly penalised, and the
k-dependence structure of Sahami (1996)."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ..numerics import order_with_ties
from ..stats.pair_statistics import PairStatistics
from .chow_liu import chow_liu_forest, edge_penalty, penalized_forest

__all__ = ["cmi_forest", "kdb_parents", "kdb_ranked_structure"]


def cmi_forest(
    stats: PairStatistics, n_edges: int | str | None = None
) -> tuple[list[tuple[int, int]], NDArray[np.float64]]:
    """Maximum spanning tree of I(X_i; X_j | C) (Pernkopf & Bilmes 2010, Section 4.3): its first
    ``n_edges`` edges, or with "bic"/"aic" the forest whose edges pay for their
    ``n_classes (r_i - 1)(r_j - 1)`` parameters (``N_ij I(X_i; X_j | C)`` against the
    penalty)."""
    weights = stats.conditional_mutual_information()
    if not isinstance(n_edges, str):
        edges = chow_liu_forest(weights)
        return (edges if n_edges is None else edges[:n_edges]), weights
    totals = stats.table_totals().sum(axis=0)
    n = float(np.diagonal(totals).max(initial=0.0))
    penalty = edge_penalty(stats.n_categories, stats.n_classes, n_edges, n)
    return penalized_forest(totals * weights, penalty), weights


def kdb_parents(stats: PairStatistics, k: int) -> list[tuple[int, ...]]:
    """Generative k-dependence structure (Sahami, 1996): attributes by decreasing
    I(X; C); each takes as parents the (at most) k earlier attributes of largest
    positive I(X_i; X_j | C), in increasing index order. For k = 2 this is the generative
    counterpart of the discriminative 2-trees."""
    return [tuple(sorted(p)) for p in kdb_ranked_structure(stats, k)[1]]


def kdb_ranked_structure(
    stats: PairStatistics, k: int, rng: np.random.Generator | None = None
) -> tuple[list[int], list[tuple[int, ...]]]:
    """The attributes by decreasing I(X; C) (ties by index), and each attribute's (at
    most) k parents among the earlier ones, by decreasing positive I(X_i; X_j | C) (ties
    by index): the order and the parent priorities of kDB (Sahami 1996) and of selective
    kDB, whose nested models take a prefix of the order and of each parent list
    (Martinez, Webb, Chen & Zaidi 2016, Section 3).

    With ``rng``, the order is sampled instead: attribute j comes next with
    probability proportional to I(X_j; C) among those left (Gumbel-top-k on log I), for
    ensembles of members over random orders; the parents follow the sampled order.

    Examples
    --------
    >>> import numpy as np
    >>> from discotree.stats.pair_statistics import PairStatistics
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 400)
    >>> a = np.where(rng.random(400) < 0.9, y, 1 - y)
    >>> b = np.where(rng.random(400) < 0.8, a, 1 - a)
    >>> codes = np.column_stack([b, a, rng.integers(0, 2, 400)])
    >>> stats = PairStatistics.from_codes(codes, y, np.array([2, 2, 2]), 2)
    >>> order, parents = kdb_ranked_structure(stats, 1)
    >>> order[0], parents[0]
    (1, (1,))
    """
    cmi = stats.conditional_mutual_information()
    n = stats.n_features
    relevance = np.array([_class_information(stats.marginal(i)) for i in range(n)])
    if rng is not None:
        with np.errstate(divide="ignore"):
            keys = np.log(np.maximum(relevance, 0.0)) + rng.gumbel(size=n)
        order = [int(v) for v in np.argsort(-keys, kind="stable")]
    else:  # near-equal informations (sums in another order) tie, by index
        order = order_with_ties(relevance)
    parents: list[tuple[int, ...]] = [()] * n
    for position, node in enumerate(order):
        earlier = sorted(order[:position])
        # (only the first k of the ranking are kept: the rest is not ranked)
        ranked = [earlier[i] for i in order_with_ties(cmi[node, earlier], k)] if earlier else []
        parents[node] = tuple(int(v) for v in ranked[:k] if cmi[node, v] > 0)
    return order, parents


def _class_information(class_by_value: NDArray[np.float64]) -> float:
    """I(X; C) of a (C, r) count table."""
    total = class_by_value.sum()
    if total <= 0:
        return 0.0
    joint = class_by_value / total
    pc = joint.sum(axis=1, keepdims=True)
    px = joint.sum(axis=0, keepdims=True)
    nz = joint > 0
    return float((joint[nz] * np.log(joint[nz] / (pc @ px)[nz])).sum())
