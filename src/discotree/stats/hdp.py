"""Hierarchical Dirichlet process estimates of a conditional table along the prefixes of
its ranked parents, by Gibbs sampling (the estimator of Petitjean, Buntine, Webb &
Zaidi, "Accurate parameter estimation for Bayesian network classifiers using
hierarchical Dirichlet processes", Machine Learning 107, 2018, Sections 3-4): the
reference for the deterministic back-off of :mod:`discotree.stats.hierarchical`.

The contexts of a node x form a tree: the root (x's marginal), one child per class,
below each the class and first parent's values, and so on. Every context ``j`` has a
distribution over x's ``r`` values with ``theta_root ~ Dirichlet(c_0 / r, ..., c_0 /
r)`` and ``theta_j ~ Dirichlet(c_l theta_parent(j))`` below, the concentration ``c_l``
tied across the contexts of a level ``l`` and given a Gamma(1, 1) prior. A row is an
observation of x at the deepest context its parents reach.

The sampler instantiates the distributions and the table counts of the Chinese
restaurant franchise (Teh, Jordan, Beal & Blei, "Hierarchical Dirichlet processes",
JASA 2006, Section 5.3, extended level by level), each sweep drawing

1. from the deepest level up, each context's number of tables of every value given its
   customers (its observations plus its children's tables) and its parent's
   distribution (Antoniak's distribution: ``t = sum_i Bernoulli(a / (a + i - 1))``,
   ``a = c_l theta_parent``);
2. from the root down, each context's distribution given its customers
   (``Dirichlet(n_j + c_l theta_parent)``);
3. each level's concentration given its contexts' tables (the auxiliary variables of
   Escobar & West 1995, as Teh et al. 2006, Appendix A).

The estimate is the average over the sweeps after ``burn_in`` of each context's
posterior mean given the sampled state, ``(n_j + c_l theta_parent) / (N_j + c_l)``:
the same posterior as Petitjean et al.'s sampler, which integrates the distributions
out and samples the table counts with Stirling numbers instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .. import missing_values
from ..kernels.counts import configuration_ids
from ..kernels.crp import crp_tables
from ..numerics import ZERO_TOL
from .family_tables import SparseFamilyTable, observed_prefix_lengths

#: The largest total weight (customers) the sampler seats for one node: it draws one
#: table decision per customer and sweep.
MAX_CUSTOMERS = 10_000_000

#: The most customers sampled as one forest (:func:`sample_context_trees`): bounds the
#: sampler's per-customer arrays.
BATCH_CUSTOMERS = 4_000_000

#: The sweeps of the sampler, and the first ones left out of its averages.
HDP_SWEEPS, HDP_BURN_IN = 200, 100

#: The most seatings (customers times sweeps) one estimate may ask for: about 20 minutes
#: at the ~1.5e7 seatings a second measured on one core (A2DE on 455 rows and 30
#: attributes: 12,180 trees, 1.1e9 seatings, 73 s).
MAX_SEATINGS = 2e10

__all__ = [
    "ContextTree",
    "HDPEstimate",
    "antoniak_tables",
    "check_customer_weights",
    "context_tree",
    "hdp_estimate",
    "hdp_tables",
    "sample_context_trees",
]


@dataclass(frozen=True)
class ContextTree:
    """The contexts of one node (or of several: a forest of such trees) and what was
    observed at each.

    Parameters
    ----------
    parent : ndarray of shape (n_contexts,)
        Each context's parent; -1 for a root. Parents come before their children.
    level : ndarray of shape (n_contexts,)
        0 for a root, 1 for the class contexts, 1 + L under L parents.
    observed : ndarray of shape (n_contexts, r)
        The (integer) weight of each value of x observed at the context.
    group : ndarray of shape (n_contexts,), optional
        Which concentration each context uses (tied within a group); default: its
        level.
    """

    parent: NDArray[np.intp]
    level: NDArray[np.intp]
    observed: NDArray[np.float64]
    group: NDArray[np.intp] | None = None

    @classmethod
    def stacked(
        cls,
        parent: Sequence[NDArray[Any]],
        level: Sequence[NDArray[Any]],
        observed: Sequence[NDArray[np.float64]],
        group: Sequence[NDArray[Any]] | None = None,
    ) -> ContextTree:
        """The tree of parts (levels, or trees of a forest) given in order."""
        return cls(
            np.concatenate(parent).astype(np.intp),
            np.concatenate(level).astype(np.intp),
            np.vstack(observed),
            None if group is None else np.concatenate(group).astype(np.intp),
        )

    @property
    def n_levels(self) -> int:
        return int(self.level.max()) + 1

    @property
    def groups(self) -> NDArray[np.intp]:
        return np.asarray(self.level if self.group is None else self.group, dtype=np.intp)


@dataclass(frozen=True)
class HDPEstimate:
    """The averaged estimate of every context's distribution and the levels'
    concentrations (means over the kept sweeps)."""

    probabilities: NDArray[np.float64]  # (n_contexts, r)
    concentrations: NDArray[np.float64]  # (n_groups,)
    customers: NDArray[np.float64]  # (n_contexts, r): mean customers (tables from below)


def antoniak_tables(
    customers: NDArray[np.float64], strength: NDArray[np.float64], rng: np.random.Generator
) -> NDArray[np.float64]:
    """The number of tables of ``customers`` (integers) seated by a Chinese restaurant
    process of concentration ``strength`` (same shape): the i-th customer opens a table
    with probability ``strength / (strength + i - 1)``.

    Examples
    --------
    >>> antoniak_tables(np.array([0.0, 1.0, 5.0]), np.array([2.0, 2.0, 1e12]),
    ...                 np.random.default_rng(0)).tolist()
    [0.0, 1.0, 5.0]
    """
    n = np.rint(np.asarray(customers)).astype(np.int64).ravel()
    a = np.asarray(strength, dtype=np.float64).ravel()
    total = int(n.sum())
    if total == 0:
        return np.zeros(np.shape(customers))
    return crp_tables(n, a, rng.random(total)).reshape(np.shape(customers))


def hdp_estimate(
    tree: ContextTree,
    rng: np.random.Generator,
    n_sweeps: int = HDP_SWEEPS,
    *,
    burn_in: int = HDP_BURN_IN,
    concentrations: NDArray[np.float64] | None = None,
    prior: tuple[float, float] = (1.0, 1.0),
) -> HDPEstimate:
    """Sample the HDP of ``tree`` and average its estimates (see the module notes).

    Parameters
    ----------
    tree : ContextTree
    rng : numpy.random.Generator
    n_sweeps, burn_in : int
        Sweeps in all, and the first ones left out of the averages.
    concentrations : ndarray of shape (n_groups,), optional
        Fixed concentrations (not sampled); None samples them (Gamma ``prior``: shape,
        rate), starting at 1.
    prior : (float, float)

    Returns
    -------
    HDPEstimate

    Examples
    --------
    >>> tree = ContextTree(np.array([-1, 0, 0]), np.array([0, 1, 1]),
    ...                    np.array([[0.0, 0.0], [8.0, 2.0], [1.0, 9.0]]))
    >>> est = hdp_estimate(tree, np.random.default_rng(0), n_sweeps=50, burn_in=10)
    >>> est.probabilities.sum(axis=1).round(12).tolist()
    [1.0, 1.0, 1.0]
    """
    parent, level = np.asarray(tree.parent), np.asarray(tree.level)
    group = tree.groups
    observed = np.asarray(tree.observed, dtype=np.float64)
    n_contexts, r = observed.shape
    n_groups = int(group.max()) + 1
    by_level = [np.flatnonzero(level == lev) for lev in range(tree.n_levels)]
    fixed = concentrations is not None
    c = np.ones(n_groups) if concentrations is None else np.asarray(concentrations, float).copy()
    tables = (observed > 0).astype(np.float64)
    theta = np.full((n_contexts, r), 1.0 / r)
    sums = np.zeros((n_contexts, r))
    customer_sums = np.zeros((n_contexts, r))
    c_sums = np.zeros(n_groups)
    kept = 0

    def base(nodes: NDArray[np.intp], lev: int) -> NDArray[np.float64]:
        """The parent's distribution (uniform above a root) of ``nodes``."""
        if lev == 0:
            return np.full((len(nodes), r), 1.0 / r)
        return theta[parent[nodes]]

    for sweep in range(n_sweeps):
        # 1. tables, from the deepest level up (customers: observations + children's tables)
        customers = observed.copy()
        for lev in range(tree.n_levels - 1, -1, -1):
            nodes = by_level[lev]
            strength = c[group[nodes], None] * base(nodes, lev)
            tables[nodes] = antoniak_tables(customers[nodes], strength, rng)
            if lev > 0:  # the tables are the parents' customers (whole numbers: exact sums)
                for v in range(r):
                    customers[:, v] += np.bincount(parent[nodes], tables[nodes, v], n_contexts)
        # 2. distributions, from the roots down
        for lev in range(tree.n_levels):
            nodes = by_level[lev]
            prior_mass = c[group[nodes], None] * base(nodes, lev)
            theta[nodes] = _dirichlet_rows(customers[nodes] + prior_mass, rng)
        # 3. the concentrations of every group, given its contexts' tables
        if not fixed:
            totals = customers.sum(axis=1)
            used = totals > 0
            g, n_j = group[used], totals[used]
            w = rng.beta(c[g] + 1.0, n_j)
            s = rng.random(len(n_j)) < n_j / (n_j + c[g])
            shape = prior[0] + np.bincount(g, tables[used].sum(axis=1) - s, n_groups)
            rate = prior[1] - np.bincount(g, np.log(w), n_groups)
            c = np.maximum(rng.gamma(np.maximum(shape, ZERO_TOL), 1.0 / rate), 1e-6)
        if sweep < burn_in:
            continue
        kept += 1
        for lev in range(tree.n_levels):
            nodes = by_level[lev]
            n, b = customers[nodes], c[group[nodes], None]
            sums[nodes] += (n + b * base(nodes, lev)) / (n.sum(axis=1, keepdims=True) + b)
        customer_sums += customers
        c_sums += c
    if kept == 0:
        raise ValueError(f"hdp_estimate: burn_in ({burn_in}) leaves no sweep of {n_sweeps}.")
    return HDPEstimate(sums / kept, c_sums / kept, customer_sums / kept)


def _dirichlet_rows(
    parameters: NDArray[np.float64], rng: np.random.Generator
) -> NDArray[np.float64]:
    """One Dirichlet draw per row (Gamma draws normalised; a row whose draws all
    underflow gets its normalised parameters)."""
    draws = rng.gamma(np.maximum(parameters, 1e-300))
    total = draws.sum(axis=1, keepdims=True)
    mean = parameters / parameters.sum(axis=1, keepdims=True)
    return np.where(total > 0, draws / np.where(total > 0, total, 1.0), mean)


def check_customer_weights(weights: NDArray[np.float64]) -> None:
    """Refuse weights the sampler cannot seat as customers: fractions, and a total above
    :data:`MAX_CUSTOMERS`.

    Examples
    --------
    >>> check_customer_weights(np.array([1.0, 3.0]))
    >>> try:
    ...     check_customer_weights(np.array([0.5]))
    ... except ValueError as err:
    ...     print(str(err)[:55])
    smoothing='hdp' needs whole-number sample weights (each
    """
    w = np.asarray(weights, dtype=np.float64)
    fractional = (w != np.rint(w)) | (w < 0) | ~np.isfinite(w)
    if fractional.any():
        raise ValueError(
            "smoothing='hdp' needs whole-number sample weights (each is a count of rows), "
            f"got {w[fractional][0]!r}."
        )
    if w.sum() > MAX_CUSTOMERS:
        raise ValueError(
            f"smoothing='hdp' seats every row as a customer in every sweep: at most "
            f"{MAX_CUSTOMERS} rows (total weight), got {w.sum():.3g}; use "
            "smoothing='hierarchical'."
        )


def context_tree(
    codes: NDArray[np.integer],
    class_index: NDArray[np.intp],
    weights: NDArray[np.float64],
    n_classes: int,
    n_categories: NDArray[np.intp],
    *,
    node: int,
    ranked: tuple[int, ...],
) -> tuple[ContextTree, list[NDArray[np.int64]]]:
    """The contexts of ``node`` under the prefixes of ``ranked`` that the rows reach
    (every class context, even one no row reaches), each row observed at the deepest
    context its observed leading parents reach (rows missing the node skipped), and
    per level below the root the sorted keys ``configuration * n_classes + class`` of
    its contexts (the order of the tree's contexts).

    Weights must be whole numbers (they are counts of customers)."""
    w = np.asarray(weights, dtype=np.float64)
    check_customer_weights(w)
    values = codes[:, node]
    rows = np.flatnonzero(missing_values.observed(values) & (w > 0))
    depth = observed_prefix_lengths(codes[rows], ranked)
    r = int(n_categories[node])
    parent, level, observed, keys = [np.array([-1])], [np.array([0])], [np.zeros((1, r))], []
    start = 1
    previous: NDArray[np.int64] | None = None
    for length in range(len(ranked) + 1):
        reach = rows[depth >= length]
        ids, _ = configuration_ids(codes[reach], ranked[:length], n_categories)
        key = ids * n_classes + class_index[reach]
        if length == 0:
            here = np.arange(n_classes, dtype=np.int64)  # every class context
        else:
            here = np.unique(key)
        if previous is None:
            up = np.zeros(len(here), dtype=np.intp)  # the root
        else:
            radix = int(n_categories[ranked[length - 1]])
            up_key = (here // n_classes) // radix * n_classes + here % n_classes
            up = np.searchsorted(previous, up_key) + start - len(previous)
        at = depth[depth >= length] == length  # rows observed at this level
        counts = np.zeros((len(here), r))
        np.add.at(counts, (np.searchsorted(here, key[at]), values[reach[at]]), w[reach[at]])
        parent.append(up)
        level.append(np.full(len(here), length + 1))
        observed.append(counts)
        keys.append(here)
        previous = here
        start += len(here)
    return ContextTree.stacked(parent, level, observed), keys


def sample_context_trees(
    trees: list[ContextTree],
    rng: np.random.Generator,
    n_sweeps: int = HDP_SWEEPS,
    burn_in: int = HDP_BURN_IN,
) -> list[HDPEstimate]:
    """Sample the HDPs of several trees and return each tree's estimate (its contexts'
    distributions, its groups' concentrations, its mean customers).

    The trees are sampled together as forests: one per width r (the sampler's arrays
    have one width), in increasing r, the trees of a width in their order and cut into
    batches of at most :data:`BATCH_CUSTOMERS` customers (the sampler's arrays hold one
    entry per customer); every group of every tree keeps its own concentration, so
    the batching changes the random stream, not the model.

    Examples
    --------
    >>> tree = ContextTree(np.array([-1, 0, 0]), np.array([0, 1, 1]),
    ...                    np.array([[0.0, 0.0], [8.0, 2.0], [1.0, 9.0]]))
    >>> [a, b] = sample_context_trees([tree, tree], np.random.default_rng(0), 40, 20)
    >>> a.probabilities.shape, b.concentrations.shape
    ((3, 2), (2,))
    """
    seatings = n_sweeps * float(sum(np.sum(tree.observed) for tree in trees))
    if seatings > MAX_SEATINGS:
        raise ValueError(
            f"smoothing='hdp' would seat {seatings:.3g} customers ({len(trees)} context "
            f"trees, {n_sweeps} sweeps), above the limit of {MAX_SEATINGS:.0e} (about 20 "
            "minutes); use smoothing='hierarchical', its fast deterministic estimate."
        )
    out: list[HDPEstimate | None] = [None] * len(trees)
    for r in sorted({int(tree.observed.shape[1]) for tree in trees}):
        batch: list[int] = []
        seated = 0.0
        for i, tree in enumerate(trees):
            if int(tree.observed.shape[1]) != r:
                continue
            customers = float(np.sum(tree.observed))
            if batch and seated + customers > BATCH_CUSTOMERS:
                _sample_batch(trees, batch, rng, n_sweeps, burn_in, out=out)
                batch, seated = [], 0.0
            batch.append(i)
            seated += customers
        _sample_batch(trees, batch, rng, n_sweeps, burn_in, out=out)
    return [estimate for estimate in out if estimate is not None]


def _sample_batch(
    trees: list[ContextTree],
    batch: list[int],
    rng: np.random.Generator,
    n_sweeps: int,
    burn_in: int,
    *,
    out: list[HDPEstimate | None],
) -> None:
    """Sample the trees ``batch`` as one forest; each tree's part of the estimate into
    ``out``."""
    parents, levels, observed, groups, spans = [], [], [], [], []
    offset = group_offset = 0
    for i in batch:
        tree = trees[i]
        size, n_groups = len(tree.level), int(tree.groups.max()) + 1
        parents.append(np.where(tree.parent >= 0, tree.parent + offset, -1))
        levels.append(tree.level)
        observed.append(tree.observed)
        groups.append(tree.groups + group_offset)
        spans.append((offset, size, group_offset, n_groups))
        offset += size
        group_offset += n_groups
    forest = ContextTree.stacked(parents, levels, observed, groups)
    estimate = hdp_estimate(forest, rng, n_sweeps, burn_in=burn_in)
    for i, (first, size, g0, n_groups) in zip(batch, spans, strict=True):
        out[i] = HDPEstimate(
            estimate.probabilities[first : first + size],
            estimate.concentrations[g0 : g0 + n_groups].copy(),
            estimate.customers[first : first + size],
        )


def hdp_tables(
    codes: NDArray[np.integer],
    class_index: NDArray[np.intp],
    weights: NDArray[np.float64],
    n_classes: int,
    n_categories: NDArray[np.intp],
    *,
    families: list[tuple[int, tuple[int, ...]]],
    rng: np.random.Generator,
    n_sweeps: int = HDP_SWEEPS,
    burn_in: int = HDP_BURN_IN,
) -> list[tuple[list[SparseFamilyTable], NDArray[np.float64]]]:
    """For every ``(node, ranked parents)`` of ``families``: the node's HDP estimates
    under each prefix of its parents (lengths 0..len), as tables whose cells hold each
    context's estimated distribution (every value; a context no row reached is absent,
    so its estimate is its deepest present prefix's: the HDP's posterior mean of an
    unseen context is its parent's), and its sampled concentrations' means per level
    (root first). The nodes' trees are sampled together
    (:func:`sample_context_trees`), each level of each node with its own concentration.

    Examples
    --------
    >>> codes = np.array([[0, 1], [0, 1], [1, 0], [1, 1]])
    >>> [(tables, c)] = hdp_tables(codes, np.array([0, 0, 1, 1]), np.ones(4), 2,
    ...     np.array([2, 2]), families=[(1, (0,))], rng=np.random.default_rng(0), n_sweeps=40,
    ...     burn_in=20)
    >>> [t.parents for t in tables], c.shape
    ([(), (0,)], (3,))
    """
    built = [
        context_tree(
            codes, class_index, weights, n_classes, n_categories, node=node, ranked=tuple(ranked)
        )
        for node, ranked in families
    ]
    estimates = sample_context_trees([tree for tree, _ in built], rng, n_sweeps, burn_in)
    results = []
    for (node, ranked), (_, keys), estimate in zip(families, built, estimates, strict=True):
        r = int(n_categories[node])
        tables, start = [], 1
        for length, here in enumerate(keys):
            block = estimate.probabilities[start : start + len(here)]
            cells = (here[:, None] * r + np.arange(r)).reshape(-1)
            prefix = tuple(int(p) for p in ranked[:length])
            tables.append(
                SparseFamilyTable(int(node), prefix, n_classes, r, cells, block.reshape(-1))
            )
            start += len(here)
        results.append((tables, estimate.concentrations))
    return results
