"""The learners of averaged n-dependence estimators, ``"aode"`` and ``"a2de"``.

``"aode"`` (A1DE; Webb, Boughton & Wang 2005): the pair tables in, the average of every
super-parent's one-dependence estimator out
(:class:`~discotree.models.averaged_dependence.AveragedOneDependenceModel`).
``"a2de"`` (Webb et al. 2012): the pair tables and the triple tables
(:func:`~discotree.kernels.counts.triple_counts`) in, the average over every pair of
super-parents out
(:class:`~discotree.models.averaged_dependence.AveragedTwoDependenceModel`). No
structure search, no model selection: the tables add, so ``partial_fit`` and the Dask
engine give the model of ``fit`` by construction (A2DE's triple tables are the
registry's second pass of counts, ``"pairs, then families"``, whose structure is fixed:
every triple)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..kernels.counts import triple_counts
from ..models.averaged_dependence import AveragedOneDependenceModel, AveragedTwoDependenceModel
from ..stats.hdp_counts import (
    hdp_one_dependence_conditionals,
    hdp_two_dependence_conditionals,
)
from ..stats.hierarchical import hierarchical_two_dependence_conditionals
from ..stats.pair_statistics import PairStatistics
from .options import SmoothingOptions
from .registry import Counts, FittedModel, Learner, LearnerSpec, register_learner

__all__ = ["count_triples", "fit_a2de", "fit_aode"]


def fit_aode(counts: Counts, spec: LearnerSpec) -> FittedModel:
    """A1DE from the pair tables (``counts.pairs``) and the class weights."""
    stats = counts.pairs
    model = AveragedOneDependenceModel.from_statistics(stats, float(spec.alpha), spec.epsilon)
    n_features, n_classes = stats.n_features, counts.n_classes
    edges = [(i, j) for i in range(n_features) for j in range(i + 1, n_features)]
    attributes: dict[str, Any] = {
        "edges_": [list(edges) for _ in range(n_classes)],
        "statistics_": stats,
    }
    smoothing = spec.table_smoothing()
    if smoothing["smoothing"] == "hierarchical":
        children, chosen = AveragedOneDependenceModel.hierarchical_children(
            stats, float(spec.alpha), spec.epsilon
        )
        model = replace(model, child_log=children)
        attributes["concentrations_"] = chosen
    elif smoothing["smoothing"] == "hdp":
        rng = np.random.default_rng(smoothing["seed"])
        children, sampled = hdp_one_dependence_conditionals(stats, spec.epsilon, rng)
        model = replace(model, child_log=children)
        attributes["concentrations_"] = sampled
    return FittedModel(model, attributes)


def _models_by_alpha(stats: PairStatistics, spec: LearnerSpec, grid):
    def fit(alpha: float) -> AveragedOneDependenceModel:
        smoothing = spec.options.smoothing
        return AveragedOneDependenceModel.from_statistics(stats, alpha, spec.epsilon, smoothing)

    return fit


register_learner(
    Learner(
        "aode",
        "A1DE: the average of every attribute's super-parent one-dependence estimator "
        "(Webb, Boughton & Wang 2005).",
        "pairs",
        fit_aode,
        models_by_alpha=_models_by_alpha,
        options=SmoothingOptions,
    )
)


def fit_a2de(counts: Counts, spec: LearnerSpec) -> FittedModel:
    """A2DE from the pair tables and the triple tables (``counts.families[0]``); with
    fewer than two attributes, A1DE (Webb et al. 2012's AnDE with n above the number of
    attributes)."""
    stats = counts.pairs
    if stats.n_features < 2:
        return fit_aode(counts, spec)
    if counts.families is None:
        raise ValueError("A2DE needs the triple tables (the second pass of counts).")
    triples = np.asarray(counts.families[0], dtype=np.float64)
    smoothing = spec.options.smoothing
    model = AveragedTwoDependenceModel.from_statistics(
        stats, triples, float(spec.alpha), spec.epsilon
    )
    n_features, n_classes = stats.n_features, counts.n_classes
    edges = [(i, j) for i in range(n_features) for j in range(i + 1, n_features)]
    attributes: dict[str, Any] = {
        "edges_": [list(edges) for _ in range(n_classes)],
        "statistics_": stats,
    }
    if smoothing == "hierarchical":
        cond_log, chosen = hierarchical_two_dependence_conditionals(
            stats, triples, float(spec.alpha), spec.epsilon
        )
        model = replace(model, cond_log=cond_log)
        attributes["concentrations_"] = chosen
    elif smoothing == "hdp":
        rng = np.random.default_rng(spec.table_smoothing()["seed"])
        cond_log, sampled = hdp_two_dependence_conditionals(stats, triples, spec.epsilon, rng)
        model = replace(model, cond_log=cond_log)
        attributes["concentrations_"] = sampled
    return FittedModel(model, attributes)


def _every_triple(stats: PairStatistics, spec: LearnerSpec) -> list[tuple[int, ...]]:
    """A2DE's structure does not depend on the data: no parents to choose (the second
    pass counts every triple)."""
    return [() for _ in range(stats.n_features)]


def count_triples(
    codes: NDArray[Any],
    class_index: NDArray[np.intp],
    weights: NDArray[np.float64],
    n_classes: int,
    n_categories: NDArray[np.intp],
    parents: list[tuple[int, ...]],
) -> list[NDArray[np.float64]]:
    """A2DE's second pass on some rows: the triple tables, flat (sums over the rows,
    additive over parts of them)."""
    return [triple_counts(codes, class_index, weights, n_categories, n_classes)]


register_learner(
    Learner(
        "a2de",
        "A2DE: the average over every pair of super-parents of their two-dependence "
        "estimator (Webb, Boughton, Zheng, Ting & Salem 2012).",
        "pairs, then families",
        fit_a2de,
        structure=_every_triple,
        count_families=count_triples,
        options=SmoothingOptions,
    )
)
