"""The learner of discriminative trees (Tan et al. 2010, Algorithm 1): statistics in,
one pair of forests per binary problem out, registered as ``"discriminative-tree"``.

For a binary problem (positive against negative: a class, or every other class), the
weights psi(+) and psi(-) of eq. 21 come from the two-class pair tables, the nested
optimal forests from the paths of Sanghavi et al. 2007
(:func:`~discotree.structure.discriminative.discriminative_forest_paths`), and the
parameters of the two forests with ``n_edges`` edges from the same tables. With Gaussian
statistics, the weights are the Gaussian ones and the forests Gaussian models.

Options of the :class:`~discotree.learners.registry.LearnerSpec`: ``multiclass``
("pairwise": eq. 32 over every pair of classes, "ovr"), ``n_edges`` (an int or None),
``edge_cost``, ``cost_accounting``, ``structure_alpha`` (the pseudo-count of the
weights of eq. 21; the parameters use ``alpha``) and ``classes`` (the labels, for
``discriminative_edges_``).

``"discriminative-tree-altmax"`` reads the rows: the same pairs of forests, whose
parameters LGMHT-altmax (Sanghavi et al. 2007, Section 3) then refits on each binary
problem's training rows (options as above, plus ``max_alternations`` and ``pairs``: the
pair statistics of the rows when already counted).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..kernels.alpha_grid import composite_grid_scores
from ..kernels.counts import class_totals
from ..missing_values import MissingValueRule
from ..models.discrete_forest import DiscreteForestModel
from ..models.forest_pairs import STRUCTURE_ALPHA, ForestPair, GridScores, composite_scores
from ..models.gaussian_forest import GaussianForestModel
from ..models.lgmht_altmax import altmax_forest_model
from ..numerics import VARIANCE_FLOOR_RTOL
from ..stats.alpha_selection import ForestGrid
from ..stats.dirichlet import smoothed_conditional
from ..stats.discriminative import discriminative_weights, gaussian_discriminative_weights
from ..stats.gaussian import GaussianStatistics, gaussian_j_divergence
from ..stats.information import j_divergence
from ..stats.pair_statistics import PairStatistics
from ..structure.chow_liu import forest_parents
from ..structure.discriminative import discriminative_forest_paths
from .options import DiscriminativeTreeOptions, binary_tasks
from .registry import Counts, FittedModel, Learner, LearnerSpec, Rows, register_learner

__all__ = [
    "binary_tasks",
    "fit_discriminative_tree",
    "fit_discriminative_tree_altmax",
    "pair_model",
    "structure_attributes",
    "two_class",
    "without_posterior",
]


def two_class(stats: Any, positive: int, negative: int) -> Any:
    """Statistics of (negative, positive); negative -1 pools every other class."""
    if (negative, positive) == (0, 1) and stats.n_classes == 2:
        return stats  # already in that order: no copy
    if isinstance(stats, PairStatistics):
        counts = stats.counts
        rest = counts.sum(axis=0) - counts[positive] if negative < 0 else counts[negative]
        return PairStatistics(np.stack([rest, counts[positive]]), stats.n_categories)
    parts = []
    for field in ("weight", "sum_x", "sum_xx", "sum_xy"):
        values = getattr(stats, field)
        rest = values.sum(axis=0) - values[positive] if negative < 0 else values[negative]
        parts.append(np.stack([rest, values[positive]]))
    return GaussianStatistics(*parts)


def _marginal_j(pair: Any, alpha: float) -> float:
    """sum_i J(p_i, q_i), the constant part of eq. 16."""
    if isinstance(pair, PairStatistics):
        total = 0.0
        for i in range(pair.n_features):
            marginal = smoothed_conditional(pair.marginal(i), alpha, 0.0)
            total += j_divergence(marginal[1], marginal[0])
        return total
    means, covs = pair.means(), pair.covariances()
    var = np.diagonal(covs, axis1=1, axis2=2)
    var = np.maximum(var, VARIANCE_FLOOR_RTOL * max(1.0, float(var.max(initial=0.0))))  # constants
    return float(
        sum(
            gaussian_j_divergence(means[1, [i]], var[1, [i]], means[0, [i]], var[0, [i]])
            for i in range(means.shape[1])
        )
    )


def _j_path(psi_pos, psi_neg, path_pos, path_neg, marginal_j: float) -> NDArray[np.float64]:
    """Eq. 16 for the optimal pair of forests with at most k edges, k = 0, 1, ..."""
    cost_free = [
        np.array([psi_pos[e] for e in path_pos.edges]),
        np.array([psi_neg[e] for e in path_neg.edges]),
    ]
    length = max(len(cost_free[0]), len(cost_free[1]))
    path = np.full(length + 1, marginal_j)
    for values in cost_free:
        cumulative = np.concatenate([[0.0], np.cumsum(values)])
        path += np.concatenate([cumulative, np.full(length + 1 - len(cumulative), cumulative[-1])])
    return path


def _fit_pair(stats: Any, positive: int, negative: int, spec: LearnerSpec):
    pair = two_class(stats, positive, negative)
    if isinstance(pair, PairStatistics):
        given = spec.options.structure_alpha
        structure_alpha = float(spec.alpha if given is None else given)
        psi_pos, psi_neg = discriminative_weights(pair, 1, 0, structure_alpha)
    else:
        means, covs = pair.means(), pair.covariances()
        psi_pos, psi_neg = gaussian_discriminative_weights(means[1], covs[1], means[0], covs[0])
    path_pos, path_neg = discriminative_forest_paths(
        psi_pos,
        psi_neg,
        spec.options.edge_cost,
        spec.options.cost_accounting,
    )
    model = pair_model(pair, path_pos, path_neg, spec.options.n_edges, spec)
    discrete = isinstance(pair, PairStatistics)  # (Gaussian models have no pseudo-count)
    marginal = _marginal_j(pair, float(spec.alpha) if discrete else 0.0)
    j_path = _j_path(psi_pos, psi_neg, path_pos, path_neg, marginal)
    return ForestPair(positive, negative, path_pos, path_neg, j_path, model), psi_pos, psi_neg


def pair_model(pair: Any, path_pos, path_neg, n_edges: int | None, spec: LearnerSpec) -> Any:
    """The two-class model (column 0: the negative side's forest, column 1: the
    positive's) of the first ``n_edges`` edges of each path, from the two-class
    statistics ``pair`` (:func:`two_class`)."""
    d = pair.n_features
    parents = np.stack(
        [forest_parents(d, path_neg.forest(n_edges)), forest_parents(d, path_pos.forest(n_edges))]
    )
    if isinstance(pair, PairStatistics):
        return DiscreteForestModel.from_statistics(
            pair,
            parents,
            alpha=float(spec.alpha),
            epsilon=spec.epsilon,
            **spec.table_smoothing(),
        )
    return GaussianForestModel.from_statistics(pair, parents)


def structure_attributes(
    forest_pairs: Sequence[ForestPair], classes: Any, n_edges: int | None
) -> dict[str, Any]:
    """The structure attributes of fitted forest pairs: ``edges_`` per class, and for
    two classes ``edge_path_``, ``discriminative_edges_`` (labelled by ``classes``),
    ``j_divergence_path_`` and, after alternating maximisation, ``altmax_history_``."""
    n_classes = len(classes)
    if n_classes == 2:
        pair = forest_pairs[0]
        out: dict[str, Any] = {
            "edges_": [pair.path_neg.forest(n_edges), pair.path_pos.forest(n_edges)],
            "edge_path_": [
                [(i, j, float(w)) for (i, j), w in zip(p.edges, p.weights, strict=True)]
                for p in (pair.path_neg, pair.path_pos)
            ],
        }
        salient = [
            (i, j, float(w), classes[c])
            for c, p in enumerate((pair.path_neg, pair.path_pos))
            for (i, j), w in zip(p.forest(n_edges), p.weights, strict=False)
        ]
        out["discriminative_edges_"] = sorted(salient, key=lambda e: (-e[2], e[0], e[1]))
        out["j_divergence_path_"] = pair.j_path
        if pair.altmax is not None:
            out["altmax_history_"] = pair.altmax.history
        return out
    edges: list[list[tuple[int, int]]] = [[] for _ in range(n_classes)]
    for pair in forest_pairs:
        sides = [(pair.positive, pair.path_pos)]
        if pair.negative >= 0:
            sides.append((pair.negative, pair.path_neg))
        for c, path in sides:
            edges[c] += [e for e in path.forest(n_edges) if e not in edges[c]]
    return {"edges_": edges}


def without_posterior(pair: ForestPair) -> ForestPair:
    """``pair`` without its model's Dirichlet posteriors (``posterior``), which only the
    uncertainty of a two-class problem draws from: with more classes the scores are
    composite and ``predict_uncertainty`` is refused, and the posteriors would double
    the tables every problem holds (1000 classes: 499,500 problems).

    Examples
    --------
    >>> import numpy as np
    >>> from discotree.stats.pair_statistics import PairStatistics
    >>> codes = np.array([[0, 1], [1, 1], [1, 0], [0, 0]])
    >>> stats = PairStatistics.from_codes(codes, np.array([0, 1, 1, 0]), np.array([2, 2]), 2)
    >>> spec = LearnerSpec("discriminative-tree", 1.0, 1e-5, options={"n_edges": None})
    >>> pair = _fit_pair(stats, 1, 0, spec)[0]
    >>> pair.model.posterior is None, without_posterior(pair).model.posterior is None
    (False, True)
    """
    if not isinstance(pair.model, DiscreteForestModel):
        return pair  # (Gaussian models have no posterior)
    return replace(pair, model=pair.model.without_posterior())


def fit_discriminative_tree(counts: Counts, spec: LearnerSpec) -> FittedModel:
    """Every binary problem's pair of forests (one problem at a time: bounded memory),
    and the per-class mean of the weights of eq. 21 (``edge_weights_``)."""
    stats = counts.pairs
    n_classes, n_features = counts.n_classes, counts.n_features
    weights = np.zeros((n_classes, n_features, n_features))
    n_weights = np.zeros(n_classes)
    pairs = []
    for positive, negative in binary_tasks(n_classes, spec.options.multiclass):
        pair, psi_pos, psi_neg = _fit_pair(stats, positive, negative, spec)
        pairs.append(pair if n_classes == 2 else without_posterior(pair))
        weights[positive] += psi_pos
        n_weights[positive] += 1
        if negative >= 0:
            weights[negative] += psi_neg
            n_weights[negative] += 1
    attributes: dict[str, Any] = {
        "statistics_": stats,
        "forest_pairs_": pairs,
        "edge_weights_": weights / n_weights[:, None, None],
    }
    classes = np.arange(n_classes) if spec.options.classes is None else spec.options.classes
    attributes.update(structure_attributes(pairs, classes, spec.options.n_edges))
    return FittedModel(pairs[0].model if n_classes == 2 else None, attributes)


def fit_discriminative_tree_altmax(rows: Rows, spec: LearnerSpec) -> FittedModel:
    """The forest pairs of :func:`fit_discriminative_tree` from the rows' pair tables,
    each pair's parameters then refitted by LGMHT-altmax on the rows of its two sides
    (a row with a missing value is left out of the bound, with a warning:
    :func:`~discotree.models.lgmht_altmax.altmax_forest_model`)."""
    stats = spec.options.pairs
    if stats is None:
        stats = PairStatistics.from_codes(
            rows.codes, rows.class_index, rows.n_categories, rows.n_classes, rows.weights
        )
    class_weight = class_totals(rows.class_index, rows.weights, rows.n_classes)
    fitted = fit_discriminative_tree(Counts(rows.n_categories, class_weight, stats), spec)
    pairs = fitted.attributes["forest_pairs_"]
    for pair in pairs:
        positive, negative = pair.positive, pair.negative
        chosen = (rows.class_index == positive) | (
            (rows.class_index != positive) if negative < 0 else (rows.class_index == negative)
        )
        pair.model, pair.altmax = altmax_forest_model(
            pair.model,
            rows.codes[chosen],
            rows.class_index[chosen] == positive,
            rows.weights[chosen],
            max_alternations=int(spec.options.max_alternations),
        )
    classes = spec.options.classes
    classes = np.arange(rows.n_classes) if classes is None else classes
    fitted.attributes.update(structure_attributes(pairs, classes, spec.options.n_edges))
    return FittedModel(pairs[0].model if rows.n_classes == 2 else None, fitted.attributes)


def _models_by_alpha(stats: PairStatistics, spec: LearnerSpec, grid: tuple[float, ...]):
    """For ``alpha="auto"``: in each training fold, every binary problem's pair of
    forests is learnt once, from the weights of eq. 21 at ``structure_alpha``
    (``STRUCTURE_ALPHA`` by default), and only its parameters change with alpha. All the
    problems' forests of a fold are one :class:`~discotree.stats.alpha_selection.ForestGrid`
    (forest 2t is the negative side of problem t, 2t + 1 its positive class): its
    tables for every alpha come from one pass over the fold's counts, its scores from
    one pass over the held-out rows."""
    if spec.options.smoothing in ("hierarchical", "hdp"):
        return _hierarchical_models_by_alpha(stats, spec)
    n_edges = spec.options.n_edges
    d, n_classes = stats.n_features, stats.n_classes
    tasks = binary_tasks(n_classes, spec.options.multiclass)
    task_pos, task_neg = np.array(tasks, dtype=np.intp).reshape(-1, 2).T.copy()
    parents, plus, minus = [], [], []
    for positive, negative, _, path_pos, path_neg in _fold_paths(stats, spec):
        parents += [
            forest_parents(d, path_neg.forest(n_edges)),
            forest_parents(d, path_pos.forest(n_edges)),
        ]
        # the negative side: a class, or every class (the row of totals) but one
        plus += [negative, positive] if negative >= 0 else [n_classes, positive]
        minus += [-1, -1] if negative >= 0 else [positive, -1]
    sides = (np.asarray(plus, dtype=np.intp), np.asarray(minus, dtype=np.intp))
    bank = ForestGrid(np.stack(parents), stats.n_categories, spec.epsilon, spec.prior, 2, *sides)
    counts = np.concatenate([stats.counts, stats.counts.sum(axis=0, keepdims=True)])
    every = bank.log_tables(counts, grid)

    def scores(log_likelihood, log_prior):
        """(n, n_classes, n_alphas) scores of eq. 32 from (n, 2 T, n_alphas)."""
        log_prior = np.asarray(log_prior, dtype=np.float64)
        if n_classes == 2:
            return log_likelihood + log_prior[None, :, None]
        out = np.empty((len(log_likelihood), n_classes, log_likelihood.shape[2]))
        composite_grid_scores(log_likelihood, task_pos, task_neg, log_prior, out)
        return out

    def fit_alpha(alpha: float) -> GridScores:
        tables = bank.log_tables(counts, (alpha,))
        return GridScores(
            lambda codes, prior: scores(bank.log_likelihood(codes, tables), prior)[:, :, 0]
        )

    def joints_of_grid(codes, log_prior):
        return scores(bank.log_likelihood(codes, every), log_prior)

    fit_alpha.joints_of_grid = joints_of_grid  # type: ignore[attr-defined]
    return fit_alpha


def _fold_paths(stats: PairStatistics, spec: LearnerSpec) -> list[tuple[Any, ...]]:
    """Every binary problem's (positive, negative, two-class statistics, path of the
    positive forest, path of the negative one), learnt from a fold's counts at
    ``structure_alpha`` (``STRUCTURE_ALPHA`` by default) for ``alpha="auto"``."""
    given = spec.options.structure_alpha
    structure_alpha = float(STRUCTURE_ALPHA if given is None else given)
    found = []
    for positive, negative in binary_tasks(stats.n_classes, spec.options.multiclass):
        pair = two_class(stats, positive, negative)
        psi_pos, psi_neg = discriminative_weights(pair, 1, 0, structure_alpha)
        paths = discriminative_forest_paths(
            psi_pos,
            psi_neg,
            spec.options.edge_cost,
            spec.options.cost_accounting,
        )
        found.append((positive, negative, pair, *paths))
    return found


def _hierarchical_models_by_alpha(stats: PairStatistics, spec: LearnerSpec):
    """``alpha="auto"`` with hierarchical smoothing: each fold's forests learnt once at
    ``structure_alpha`` (as for Dirichlet tables), then one hierarchical model of every
    problem per alpha (its concentrations depend on the marginals alpha smooths)."""
    n_classes = stats.n_classes
    found = _fold_paths(stats, spec)

    def fit_alpha(alpha: float) -> GridScores:
        at = spec.with_alpha(alpha)
        n_edges = spec.options.n_edges
        models = [pair_model(pair, pos_path, neg_path, n_edges, at)
                  for _, _, pair, pos_path, neg_path in found]  # fmt: skip
        tasks = [(positive, negative) for positive, negative, *_ in found]

        def scores(codes: NDArray, log_prior: NDArray[np.float64]) -> NDArray[np.float64]:
            if n_classes == 2:
                return models[0].log_likelihood(codes) + np.asarray(log_prior)
            logliks = [model.log_likelihood(codes) for model in models]
            ratios = [loglik[:, 1] - loglik[:, 0] for loglik in logliks]
            return composite_scores(ratios, tasks, np.asarray(log_prior), n_classes)

        return GridScores(scores)

    return fit_alpha


register_learner(
    Learner(
        "discriminative-tree",
        "A pair of forests per binary problem, each close to its class and far from the "
        "other (Tan et al. 2010, Algorithm 1).",
        "pairs",
        fit_discriminative_tree,
        models_by_alpha=_models_by_alpha,
        options=DiscriminativeTreeOptions,
    )
)
register_learner(
    Learner(
        "discriminative-tree-altmax",
        "Discriminative tree pairs whose parameters LGMHT-altmax refits on the rows "
        "(Sanghavi et al. 2007, Section 3).",
        "rows",
        fit_discriminative_tree_altmax,
        partial_fit=False,
        dask=False,
        # available-case start; the altmax bound's phi(x) needs complete rows
        missing_values=MissingValueRule.COMPLETE_ROWS,
        options=DiscriminativeTreeOptions,
    )
)
