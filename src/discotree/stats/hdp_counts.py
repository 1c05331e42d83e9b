"""The hierarchical Dirichlet process estimates of :mod:`discotree.stats.hdp` from count
tables instead of rows: the estimator of Petitjean, Buntine, Webb & Zaidi ("Accurate
parameter estimation for Bayesian network classifiers using hierarchical Dirichlet
processes", Machine Learning 107, 2018, Sections 3-4) for the models whose tables are
dense and already counted: the per-class forests (naive Bayes, TAN, Chow-Liu, the
discriminative trees, EAR trees) and the averaged n-dependence estimators (A1DE, A2DE).

A row is a customer at the deepest context its observed parents reach. With the
available-case tables of the package (a table under parents ``p_1..p_L`` counts the rows
that observe the node and all of them), the customers observed at level L are the level's
counts less the next level's summed over its last parent::

    observed_L(c, p_1..p_L, x) = N(c, p_1..p_L, x) - sum_a N(c, p_1..p_L, p_{L+1} = a, x)

so every row counted once per node, at the context :func:`~discotree.stats.hdp.context_tree`
puts it in, and the trees (hence, for one seed, the samples) are those of the rows.
The counts must be whole numbers (the weights are counts of customers).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from .hdp import HDP_BURN_IN, HDP_SWEEPS, ContextTree, HDPEstimate, sample_context_trees
from .hierarchical import ranked_two_parent_families

__all__ = [
    "check_customer_counts",
    "counted_context_tree",
    "dense_estimates",
    "hdp_forest_tables",
    "hdp_one_dependence_conditionals",
    "hdp_two_dependence_conditionals",
]

#: Per level L (0: the class level) and class, the node's counts under the class and the
#: first L parents, shaped (r_1, ..., r_L, r); None where the class has fewer parents.
Levels = list[list[NDArray[np.float64] | None]]


#: How far a cell may lie from a whole number and still count as one (the pair
#: tables are sums of products, exact only to rounding), relative to its size.
WHOLE_TOLERANCE = 1e-9


def check_customer_counts(
    counts: NDArray[np.float64], owner: str = "smoothing='hdp'"
) -> NDArray[np.float64]:
    """The count table rounded to whole numbers, or a ``ValueError`` for cells the
    sampler cannot seat: fractional (fractional sample weights: the message of rows),
    negative or not finite.

    Examples
    --------
    >>> check_customer_counts(np.array([1.0, 3.0000000000000004])).tolist()
    [1.0, 3.0]
    >>> try:
    ...     check_customer_counts(np.array([0.5]))
    ... except ValueError as err:
    ...     print(str(err)[:55])
    smoothing='hdp' needs whole-number sample weights (each
    """
    c = np.asarray(counts, dtype=np.float64)
    whole = np.rint(c)
    with np.errstate(invalid="ignore"):
        far = np.abs(c - whole) > WHOLE_TOLERANCE * np.abs(c)  # (1e-300 is no 0)
    fractional = far | (whole < 0) | ~np.isfinite(c)
    if fractional.any():
        raise ValueError(
            f"{owner} needs whole-number sample weights (each is a count of rows), "
            f"got a table cell of {float(c[fractional][0])!r}."
        )
    return whole


def counted_context_tree(
    levels: Levels, n_classes: int
) -> tuple[ContextTree, list[NDArray[np.int64]]]:
    """The context tree of one node from its count tables (module notes): the root, every
    class context, and at each level below the configurations of positive count, keyed
    ``configuration * n_classes + class`` (the first parent the most significant digit)
    and sorted, as :func:`~discotree.stats.hdp.context_tree` orders them.

    Parameters
    ----------
    levels : list of list of ndarray or None
        ``levels[L][c]``: the counts of the node's values in class c under the first L
        parents, shape (r_1, ..., r_L, r); None when class c has fewer than L parents.
    n_classes : int

    Returns
    -------
    tree : ContextTree
    keys : list of ndarray
        Per level below the root, the keys of its contexts (the tree's order).

    Examples
    --------
    >>> marg = [np.array([3.0, 1.0]), np.array([0.0, 2.0])]
    >>> pair = [np.array([[2.0, 0.0], [0.0, 1.0]]), None]  # class 1: no parent
    >>> tree, keys = counted_context_tree([marg, pair], 2)
    >>> tree.observed.tolist(), [k.tolist() for k in keys]
    ([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0], [2.0, 0.0], [0.0, 1.0]], [[0, 1], [0, 2]])
    """
    levels = [  # whole numbers, each table checked once
        [None if table is None else check_customer_counts(table) for table in tables]
        for tables in levels
    ]
    r = int(np.asarray(levels[0][0]).shape[-1])
    parent, level, observed, keys = [np.array([-1])], [np.array([0])], [np.zeros((1, r))], []
    start = 1
    previous: NDArray[np.int64] | None = None
    for depth, tables in enumerate(levels):
        below = levels[depth + 1] if depth + 1 < len(levels) else [None] * n_classes
        here_keys, here_observed, radix = [], [], np.ones(n_classes, dtype=np.int64)
        for c, table in enumerate(tables):
            if table is None:
                continue
            flat = table.reshape(-1, r)
            deeper = below[c]
            seated = flat if deeper is None else flat - np.sum(deeper, axis=-2).reshape(-1, r)
            if depth == 0:
                present = np.zeros(1, dtype=np.int64)  # every class context
            else:
                present = np.flatnonzero(flat.sum(axis=1) > 0)
                radix[c] = table.shape[depth - 1]
            here_keys.append(present * n_classes + c)
            here_observed.append(np.maximum(seated[present], 0.0))
        here = np.concatenate(here_keys).astype(np.int64)
        order = np.argsort(here, kind="stable")
        here = here[order]
        if previous is None:
            up = np.zeros(len(here), dtype=np.intp)  # the root
        else:
            classes = here % n_classes
            up_key = (here // n_classes) // radix[classes] * n_classes + classes
            up = np.searchsorted(previous, up_key) + start - len(previous)
        parent.append(up)
        level.append(np.full(len(here), depth + 1))
        observed.append(np.vstack(here_observed)[order])
        keys.append(here)
        previous = here
        start += len(here)
    return ContextTree.stacked(parent, level, observed), keys


def dense_estimates(
    levels: Levels, keys: list[NDArray[np.int64]], estimate: HDPEstimate, n_classes: int
) -> list[list[NDArray[np.float64] | None]]:
    """The estimate of every context in the shape of ``levels``: ``[L][c]`` holds the
    distributions under class c and each configuration of the first L parents; a
    configuration no row reached gets its prefix's (the HDP's posterior mean of an
    unseen context is its parent's)."""
    r = estimate.probabilities.shape[1]
    start, out = 1, []
    above: list[NDArray[np.float64] | None] = []
    for depth, (tables, here) in enumerate(zip(levels, keys, strict=True)):
        block = estimate.probabilities[start : start + len(here)]
        start += len(here)
        per_class: list[NDArray[np.float64] | None] = []
        for c, table in enumerate(tables):
            if table is None:
                per_class.append(None)
                continue
            shape = np.shape(table)
            if depth == 0:
                per_class.append(block[c][None, :].reshape(shape))
                continue
            base = np.asarray(above[c])
            dense = np.repeat(base[..., None, :], shape[depth - 1], axis=-2).reshape(-1, r)
            mine = here % n_classes == c
            dense[here[mine] // n_classes] = block[mine]
            per_class.append(dense.reshape(shape))
        out.append(per_class)
        above = per_class
    return out


def _sample(
    families: list[Levels],
    n_classes: int,
    rng: np.random.Generator,
    n_sweeps: int,
    burn_in: int,
) -> list[tuple[list[list[NDArray[np.float64] | None]], NDArray[np.float64], HDPEstimate]]:
    """Every family's dense estimates, its concentrations' means (root first) and its
    estimate (the root's distribution first)."""
    built = [counted_context_tree(levels, n_classes) for levels in families]
    estimates = sample_context_trees([tree for tree, _ in built], rng, n_sweeps, burn_in)
    return [
        (dense_estimates(levels, keys, estimate, n_classes), estimate.concentrations, estimate)
        for levels, (_, keys), estimate in zip(families, built, estimates, strict=True)
    ]


def _padded(concentrations: NDArray[np.float64], n_levels: int) -> NDArray[np.float64]:
    """The sampled concentrations of ``n_levels`` levels: a level no row reached has no
    context, hence none (NaN)."""
    out = np.full(n_levels, np.nan)
    out[: len(concentrations)] = concentrations
    return out


def _floored_log(probability: NDArray[np.float64], epsilon: float) -> NDArray[np.float64]:
    """``log`` of distributions over the last axis, a zero floored at ``epsilon`` and
    renormalised (only a table without data can hold one)."""
    if epsilon > 0:
        probability = np.where(probability <= 0, epsilon, probability)
        probability = probability / probability.sum(axis=-1, keepdims=True)
    with np.errstate(divide="ignore"):
        return np.log(probability)


def hdp_forest_tables(
    stats: Any,
    parents: NDArray[np.intp],
    epsilon: float,
    rng: np.random.Generator,
    *,
    univariate: list[NDArray[np.float64]] | None = None,
    n_sweeps: int = HDP_SWEEPS,
    burn_in: int = HDP_BURN_IN,
) -> tuple[list[list[NDArray[np.float64]]], list[list[NDArray[np.float64]]], list[NDArray]]:
    """The tables of per-class forests (as
    :func:`~discotree.stats.hierarchical.hierarchical_forest_tables`) estimated by the
    HDP: each feature's tree has its marginal (root), its class contexts and, under a
    class that gives it a parent, one context per parent value; one concentration per
    level and feature (the parent level shared by the classes), sampled.

    Returns
    -------
    log_cpts, posterior, concentrations
        Per class and feature the (r_parent, r) log-table; the Dirichlet parameters of
        its rows given the level above (the counts plus the level's mean concentration
        times the level above's estimate), for posterior draws; per feature the mean
        concentrations (root, class level, then the parent level when there is one).

    Examples
    --------
    >>> counts = [np.array([[8.0, 2.0], [1.0, 9.0]])]
    >>> logs, _, b = hdp_forest_tables(None, np.full((2, 1), -1), 0.0,
    ...     np.random.default_rng(0), univariate=counts, n_sweeps=40, burn_in=20)
    >>> np.exp(logs[0][0]).sum().round(12), b[0].shape
    (np.float64(1.0), (2,))
    """
    parents = np.asarray(parents, dtype=np.intp)
    n_classes, n_features = parents.shape
    families: list[Levels] = []
    for j in range(n_features):
        by_class = univariate[j] if univariate is not None else stats.marginal(j)
        levels: Levels = [[np.asarray(by_class[c], dtype=np.float64) for c in range(n_classes)]]
        if (parents[:, j] >= 0).any():
            levels.append(
                [
                    np.asarray(stats.table(int(parents[c, j]), j)[c], dtype=np.float64)
                    if parents[c, j] >= 0
                    else None
                    for c in range(n_classes)
                ]
            )
        families.append(levels)
    sampled = _sample(families, n_classes, rng, n_sweeps, burn_in)
    log_cpts: list[list[Any]] = [[None] * n_features for _ in range(n_classes)]
    posterior: list[list[Any]] = [[None] * n_features for _ in range(n_classes)]
    for j, (levels, (dense, concentrations, estimate)) in enumerate(
        zip(families, sampled, strict=True)
    ):
        root = estimate.probabilities[0]
        for c in range(n_classes):
            depth = 1 if len(levels) == 2 and levels[1][c] is not None else 0
            table = np.asarray(dense[depth][c]).reshape(-1, len(root))
            log_cpts[c][j] = _floored_log(table, epsilon)
            counts = np.asarray(levels[depth][c]).reshape(table.shape)
            above = np.asarray(dense[0][c]).reshape(1, -1) if depth else root[None, :]
            # (a level no row reached has no concentration: the Gamma(1, 1) prior's mean)
            b = concentrations[depth + 1] if depth + 1 < len(concentrations) else 1.0
            posterior[c][j] = counts + b * above
    return log_cpts, posterior, [concentrations for _, concentrations, _ in sampled]


def hdp_one_dependence_conditionals(
    stats: Any,
    epsilon: float,
    rng: np.random.Generator,
    n_sweeps: int = HDP_SWEEPS,
    burn_in: int = HDP_BURN_IN,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """A1DE's conditionals ``log P(x_j | c, x_i)`` by the HDP: one tree per (super-parent
    i, child j) with the child's marginal, class and (class, x_i) contexts, sampled
    together; in the layout of
    :class:`~discotree.models.averaged_dependence.AveragedOneDependenceModel`'s
    ``child_log`` (0 in a feature's own block).

    Returns
    -------
    child_log : ndarray of shape (n_classes, D, D)
    concentrations : ndarray of shape (n_features, n_features, 3)
        ``[i, j]``: the mean concentrations (root, class, parent level) of child j
        under super-parent i (0 on the diagonal; NaN for a level no row reached).
    """
    offsets = stats.offsets
    d, n_classes, width = stats.n_features, stats.n_classes, int(offsets[-1])
    pairs = [(i, j) for i in range(d) for j in range(d) if i != j]
    families: list[Levels] = [
        [
            [np.asarray(stats.marginal(j)[c], dtype=np.float64) for c in range(n_classes)],
            [np.asarray(stats.table(i, j)[c], dtype=np.float64) for c in range(n_classes)],
        ]
        for i, j in pairs
    ]
    child_log = np.zeros((n_classes, width, width))
    concentrations = np.zeros((d, d, 3))
    sampled = _sample(families, n_classes, rng, n_sweeps, burn_in)
    for (i, j), (dense, chosen, _) in zip(pairs, sampled, strict=True):
        concentrations[i, j] = _padded(chosen, 3)
        rows, cols = slice(offsets[i], offsets[i + 1]), slice(offsets[j], offsets[j + 1])
        for c in range(n_classes):
            child_log[c, rows, cols] = _floored_log(np.asarray(dense[1][c]), epsilon)
    return child_log, concentrations


def hdp_two_dependence_conditionals(
    stats: Any,
    triples: NDArray[np.float64],
    epsilon: float,
    rng: np.random.Generator,
    *,
    n_sweeps: int = HDP_SWEEPS,
    burn_in: int = HDP_BURN_IN,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """A2DE's conditionals ``log P(x_m | c, x_p, x_q)`` by the HDP: for every triple and
    member, one tree with the member's marginal, class, (class, first parent) and
    (class, both parents) contexts, the super-parent of larger ``I(x_m; x_p | C)``
    first (as :func:`~discotree.stats.hierarchical.hierarchical_two_dependence_conditionals`
    ranks them); in the layout of
    :func:`~discotree.kernels.two_dependence.two_dependence_conditionals`.

    Returns
    -------
    cond_log : ndarray of shape (3, T)
    concentrations : ndarray of shape (3, n_triples, 4)
        Per member and triple the mean concentrations (root, class, one parent, two;
        NaN for a level no row reached).
    """
    from ..kernels.counts import triple_layout

    r = np.asarray(stats.n_categories, dtype=np.intp)
    n_classes = stats.n_classes
    layout = triple_layout(r, n_classes)
    families: list[Levels] = []
    placed = []
    for t, member, m, first, _, axes, counts in ranked_two_parent_families(stats, triples):
        pair = np.asarray(stats.table(first, m), dtype=np.float64)  # (C, r_first, r_m)
        marginal = np.asarray(stats.marginal(m), dtype=np.float64)
        families.append(
            [
                [marginal[c] for c in range(n_classes)],
                [pair[c] for c in range(n_classes)],
                [counts[c] for c in range(n_classes)],
            ]
        )
        placed.append((t, member, axes))
    cond_log = np.zeros((3, int(layout[-1])))
    concentrations = np.zeros((3, len(layout) - 1, 4))
    sampled = _sample(families, n_classes, rng, n_sweeps, burn_in)
    for (t, member, axes), (dense, chosen, _) in zip(placed, sampled, strict=True):
        concentrations[member, t] = _padded(chosen, 4)
        level2 = np.stack([np.asarray(dense[2][c]) for c in range(n_classes)])
        cond_log[member, layout[t] : layout[t + 1]] = (
            _floored_log(level2, epsilon).transpose(np.argsort(axes)).reshape(-1)
        )
    return cond_log, concentrations
