"""The learner of class-rooted networks whose structure is searched on the training
rows (Pernkopf & Bilmes 2010, Section 4.4; registered as ``"tan-search"``, it reads the
rows): greedy hill climbing on the classification rate or the conditional likelihood
(``"cr"``), SuperParent (``"superparent"``, Keogh & Pazzani 1999), and the order-based
searches after the OMI/MMI/OMISP/OCR or a random ordering (``"omi-cr"``, ...,
``"ro-cr"``; ``"omi-crcl"`` scores CL-trained candidates), with ML or CL parameters
(Section 4.2). The CMI structures of ``k`` >= 1 and naive Bayes are also fitted here
when their parameters are CL-trained (the structure from the count learners').

Options of the :class:`~discotree.learners.registry.LearnerSpec`: ``k``, ``structure``,
``structure_score`` ("cr" or "cll"), ``early_abandon``, ``structure_folds`` (the
number of search steps kept by cross-validation, :mod:`~discotree.learners.step_selection`),
``parameters`` ("ml" or "cl"), ``cl_max_iter``, ``random_state``, ``n_edges`` (for the
CMI structures) and ``searched`` (a :class:`SearchResult` found before, e.g. once on
every row for ``alpha="auto"``: the search is then not run again).

``alpha="auto"`` with these structures (:func:`structure_for_alpha_selection`,
:func:`searched_models_by_alpha`): a discriminative search depends on alpha through its
scores, so it is run once, on every training row at ``STRUCTURE_ALPHA``, and the
cross-validation compares the alphas of its parameters; the final fit keeps that
structure and fits its parameters with the chosen alpha, so the procedure whose alpha
was chosen is the one fitted. (The search has seen the held-out rows; searching on every
fold would cost five more searches.) The CMI structures and naive Bayes are chosen from
each fold's counts.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..kernels.family_counts import family_counts
from ..models.bayes_net import BayesNetModel
from ..models.conditional_likelihood import fit_conditional_likelihood
from ..models.discrete_forest import DiscreteForestModel
from ..numerics import classification_rate
from ..stats.dirichlet import smoothed_conditional
from ..stats.pair_statistics import PairStatistics
from ..structure.bayes_net_search import (
    Scorer,
    greedy_search,
    order_search,
    record_edge_gain,
    superparent_search,
)
from ..structure.orderings import ORDERINGS
from ..structure.search_state import NodeScores
from ..validation import integer_seed, numpy_generator
from .generative import smoothed_forest_models
from .options import TANOptions
from .registry import FittedModel, Learner, LearnerSpec, Rows, get_learner, register_learner
from .step_selection import steps_by_cross_validation

__all__ = [
    "STRUCTURE_ALPHA",
    "Rows",
    "SearchResult",
    "fit_searched_network",
    "search_parents",
    "searched_models_by_alpha",
    "searched_structure",
    "structure_for_alpha_selection",
]

#: The pseudo-count of discriminative structure searches while ``alpha="auto"`` compares
#: the alphas of the grid.
STRUCTURE_ALPHA = 1.0

Parents = list[tuple[int, ...]]


@dataclass
class SearchResult:
    """A structure search's outcome: the attribute parents, the gain of each edge
    (``edge_weights``), the ordering it followed (order-based searches), its cost, and
    with ``structure_folds`` the steps kept and the held-out rates."""

    parents: Parents
    edge_weights: NDArray[np.float64]
    order: list[int] | None = None
    n_evaluations: int = 0
    n_rows_scored: int = 0
    seconds: float = 0.0
    n_search_steps: int | None = None
    n_structure_steps: int | None = None
    cv_rates: NDArray[np.float64] | None = None

    def attributes(self) -> dict[str, Any]:
        """The fitted attributes of the estimator this search gives."""
        out: dict[str, Any] = {
            "edge_weights_": self.edge_weights,
            "n_score_evaluations_": self.n_evaluations,
            "n_rows_scored_": self.n_rows_scored,
        }
        if self.order is not None:
            out["order_"] = self.order
        if self.cv_rates is not None:
            out["structure_cv_rates_"] = self.cv_rates
            out["n_search_steps_"] = self.n_search_steps
            out["n_structure_steps_"] = self.n_structure_steps
        return out


def _rate_of_cl_parameters(rows: Rows, spec: LearnerSpec, counter: list[int]):
    """The training classification rate of CL-trained parameters of a structure (20
    conjugate-gradient iterations, no cross tuning), counting the evaluations."""

    def rate(parents: Parents) -> float:
        data = (rows.codes, rows.class_index, rows.weights, rows.n_classes, rows.n_categories)
        model, _ = fit_conditional_likelihood(
            *data,
            list(parents),
            alpha=float(spec.alpha),
            epsilon=spec.epsilon,
            max_iter=20,
            holdout=0.0,
        )
        joint = model.joint_log_likelihood(rows.codes)
        counter[0] += 1
        counter[1] += len(rows.codes)
        return classification_rate(joint, rows.class_index, rows.weights)

    return rate


def _order_search_cl(rows: Rows, spec: LearnerSpec, order: list[int], gains, counter):
    """OMI-CRCL: parent selection along the order, each candidate structure scored by
    the training CR of CL-trained parameters (the paper notes it is feasible on small
    sets only)."""
    rate = _rate_of_cl_parameters(rows, spec, counter)
    k = int(spec.options.k)
    parents: Parents = [()] * rows.codes.shape[1]
    current = rate(parents)
    for position in range(1, len(order)):
        node = order[position]
        best, move = current, None
        for candidate in itertools.combinations(sorted(order[:position]), min(k, position)):
            trial = list(parents)
            trial[node] = candidate
            value = rate(trial)
            if value > best:
                best, move = value, candidate
        if move is not None:
            record_edge_gain(gains, move, node, best - current)
            parents[node] = move
            current = best
    return parents


def search_parents(
    rows: Rows, spec: LearnerSpec, steps: list[Parents] | None = None
) -> SearchResult:
    """One search of ``structure`` on these rows (``steps``, when given, receives the
    parents after each accepted step)."""
    pair_stats = PairStatistics.from_codes(
        rows.codes, rows.class_index, rows.n_categories, rows.n_classes, rows.weights
    )
    state = NodeScores.naive_bayes(
        rows.codes,
        rows.class_index,
        rows.weights,
        rows.n_classes,
        rows.n_categories,
        float(spec.alpha),
        spec.epsilon,
        pair_stats,
    )
    scorer = Scorer(
        rows.class_index,
        rows.weights,
        spec.options.structure_score,
        bool(spec.options.early_abandon),
    )
    structure, k = spec.options.structure, int(spec.options.k)
    gains: dict[tuple[int, int], float] = {}
    counter = [0, 0]  # OMI-CRCL's evaluations
    order = None
    if structure == "cr":
        parents = greedy_search(state, k, scorer, gains=gains, steps=steps)
    elif structure == "superparent":
        parents = superparent_search(state, k, scorer, gains=gains, steps=steps)
    else:
        ordering = structure.split("-")[0]
        if ordering == "ro":
            rng = numpy_generator(spec.options.random_state)
            order = [int(v) for v in rng.permutation(rows.codes.shape[1])]
        else:
            order = ORDERINGS[ordering](
                rows.codes,
                rows.class_index,
                rows.weights,
                rows.n_classes,
                rows.n_categories,
                pair_stats,
            )
        if structure == "omi-crcl":
            parents = _order_search_cl(rows, spec, order, gains, counter)
        else:
            parents = order_search(state, k, order, scorer, gains=gains, steps=steps)
    d = rows.codes.shape[1]
    edge_weights = np.zeros((d, d))
    for (i, j), gain in gains.items():
        edge_weights[i, j] = edge_weights[j, i] = gain
    return SearchResult(
        parents,
        edge_weights,
        order,
        scorer.n_evaluations + counter[0],
        scorer.n_rows_scored + counter[1],
    )


def searched_structure(rows: Rows, spec: LearnerSpec) -> SearchResult:
    """The search on every row; with ``structure_folds``, cut to the number of its steps
    of best held-out classification rate (Pernkopf & Bilmes 2010, Section 6.5.2), the
    folds' searches counted in its cost. Timed (``seconds``)."""
    start = time.perf_counter()
    folds = spec.options.structure_folds
    if folds is None:
        result = search_parents(rows, spec)
        result.seconds = time.perf_counter() - start
        return result
    evaluations = [0, 0]

    def search(codes, class_index, weights):
        steps: list[Parents] = []
        part = Rows(codes, class_index, weights, rows.n_classes, rows.n_categories)
        found = search_parents(part, spec, steps)
        evaluations[0] += found.n_evaluations
        evaluations[1] += found.n_rows_scored
        return steps

    n_steps, rates = steps_by_cross_validation(
        search,
        rows.codes,
        rows.class_index,
        rows.weights,
        rows.n_classes,
        rows.n_categories,
        folds,
        float(spec.alpha),
        spec.epsilon,
        integer_seed(spec.options.random_state),
    )
    steps: list[Parents] = []  # the search on every row, then its prefix
    result = search_parents(rows, spec, steps)
    result.n_evaluations += evaluations[0]
    result.n_rows_scored += evaluations[1]
    result.n_search_steps = len(steps)
    result.n_structure_steps = min(n_steps, len(steps))
    result.cv_rates = rates
    if result.n_structure_steps == 0:
        result.parents = [()] * rows.codes.shape[1]
    else:
        result.parents = steps[result.n_structure_steps - 1]
    kept = np.zeros_like(result.edge_weights, dtype=bool)
    for j, pa in enumerate(result.parents):
        kept[j, list(pa)] = kept[list(pa), j] = True
    result.edge_weights = np.where(kept, result.edge_weights, 0.0)
    result.seconds = time.perf_counter() - start
    return result


def _count_structure(rows: Rows, spec: LearnerSpec) -> SearchResult:
    """The structure of naive Bayes (k = 0) or of the CMI learners (its conditional
    informations as edge weights), from the rows' pair statistics."""
    start = time.perf_counter()
    k, d = int(spec.options.k), rows.codes.shape[1]
    if k == 0:
        return SearchResult([()] * d, np.zeros((d, d)), seconds=time.perf_counter() - start)
    stats = PairStatistics.from_codes(
        rows.codes, rows.class_index, rows.n_categories, rows.n_classes, rows.weights
    )
    name = "tan-cmi" if k == 1 else "kdb"
    structure = get_learner(name).structure
    assert structure is not None
    parents = structure(stats, spec)
    weights = stats.conditional_mutual_information()
    return SearchResult(parents, weights, seconds=time.perf_counter() - start)


def fit_searched_network(rows: Rows, spec: LearnerSpec) -> FittedModel:
    """The structure (searched, or given as ``searched``; the count learners' for
    ``structure="cmi"`` and k = 0) and its ML or CL parameters from the rows."""
    k = int(spec.options.k)
    if k == 0 or spec.options.structure == "cmi":
        found = _count_structure(rows, spec)
    else:
        found = spec.options.searched or searched_structure(rows, spec)
    parents = [tuple(p) for p in found.parents]
    edges = sorted({(min(p, j), max(p, j)) for j, pa in enumerate(parents) for p in pa})
    attributes = found.attributes()
    attributes.update(
        attribute_parents_=parents,
        edges_=[list(edges) for _ in range(rows.n_classes)],
        structure_seconds_=found.seconds,
        cl_iterations_=0,
    )
    if k <= 1:
        row = np.array([pa[0] if pa else -1 for pa in parents], dtype=np.intp)
        attributes["parents_"] = np.tile(row, (rows.n_classes, 1))
    data = (rows.codes, rows.class_index, rows.weights, rows.n_classes, rows.n_categories)
    alpha, epsilon = float(spec.alpha), spec.epsilon
    if spec.options.parameters == "ml":
        if k <= 1 and spec.options.smoothing in ("hierarchical", "hdp"):
            stats = PairStatistics.from_codes(
                rows.codes, rows.class_index, rows.n_categories, rows.n_classes, rows.weights
            )
            forest = DiscreteForestModel.from_statistics(
                stats,
                attributes["parents_"],
                alpha=alpha,
                epsilon=epsilon,
                **spec.table_smoothing(),
            )
            attributes["concentrations_"] = forest.concentrations
            return FittedModel(forest, attributes)
        model = BayesNetModel.maximum_likelihood(*data, parents, alpha=alpha, epsilon=epsilon)
        return FittedModel(model, attributes)
    model, attributes["cl_iterations_"] = fit_conditional_likelihood(
        *data,
        parents,
        alpha=alpha,
        epsilon=epsilon,
        max_iter=int(spec.options.cl_max_iter),
        random_state=numpy_generator(spec.options.random_state),
    )
    attributes["class_log_prior_"] = model.class_log_prior
    return FittedModel(model, attributes)


def _counted_structure(spec: LearnerSpec) -> bool:
    """Whether the structure of ``spec`` is the count learners' (naive Bayes for
    ``k = 0``, the CMI structures), not a search on the rows."""
    return int(spec.options.k) == 0 or spec.options.structure == "cmi"


def structure_for_alpha_selection(rows: Rows, spec: LearnerSpec) -> SearchResult | None:
    """The structure ``alpha="auto"`` keeps while it compares the alphas (see the module
    notes): the search of ``spec`` on every row at ``STRUCTURE_ALPHA``; None for the
    structures chosen from each fold's counts."""
    if _counted_structure(spec):
        return None
    return searched_structure(rows, spec.with_alpha(STRUCTURE_ALPHA))


def searched_models_by_alpha(
    rows: Rows, spec: LearnerSpec, grid: tuple[float, ...]
) -> Callable[[PairStatistics, Any], Callable[[float], Any]]:
    """``model_for(stats, fold) -> fit(alpha) -> model`` for the alpha cross-validation
    of ``spec`` (:func:`~discotree.stats.alpha_selection.select_alpha`): the structure of
    a fold's counts (naive Bayes, CMI) or the ``searched`` one of ``spec``
    (:func:`structure_for_alpha_selection`), with ML tables of every alpha from the
    fold's family counts (hierarchical smoothing: from the fold's pair tables)."""
    codes, class_index, weights = rows.codes, rows.class_index.astype(np.intp), rows.weights
    n_classes, n_categories, epsilon, prior = (
        rows.n_classes, rows.n_categories, spec.epsilon, spec.prior
    )  # fmt: skip
    searched = spec.options.searched
    fixed = None if searched is None else searched.parents
    structure = None
    if _counted_structure(spec):
        k = int(spec.options.k)
        name = "naive-bayes" if k == 0 else "tan-cmi" if k == 1 else "kdb"
        structure = get_learner(name).structure
        structure_spec = replace(spec, learner=name)
    backoff = spec.options.smoothing in ("hierarchical", "hdp")

    def model_for(stats: PairStatistics, fold: Any) -> Callable[[float], Any]:
        parents = fixed if structure is None else structure(stats, structure_spec)
        assert parents is not None
        if backoff:  # a searched forest: one model per alpha
            row = np.array([pa[0] if pa else -1 for pa in parents], dtype=np.intp)
            tiled = np.tile(row, (n_classes, 1))
            return smoothed_forest_models(
                stats, tiled, epsilon, prior, grid, smoothing="hierarchical"
            )
        counts = [
            family_counts(
                codes[fold],
                class_index[fold],
                weights[fold],
                n_classes,
                n_categories,
                node=j,
                parents=pa,
            )
            for j, pa in enumerate(parents)
        ]

        def fit(alpha: float) -> BayesNetModel:
            log_cpts = [np.log(smoothed_conditional(c, alpha, epsilon)) for c in counts]
            return BayesNetModel(n_categories, list(parents), log_cpts, np.zeros(n_classes))

        return fit

    return model_for


register_learner(
    Learner(
        "tan-search",
        "A class-rooted network whose structure is searched on the rows, with ML or CL "
        "parameters (Pernkopf & Bilmes 2010, Section 4).",
        "rows",
        fit_searched_network,
        partial_fit=False,
        dask=False,
        options=TANOptions,
    )
)
