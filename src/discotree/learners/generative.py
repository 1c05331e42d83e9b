"""Learners of the class-rooted and per-class networks fitted from counts: naive Bayes,
TAN-CMI (Friedman et al. 1997), kDB (Sahami 1996) and Chow-Liu trees per class (Chow &
Liu 1968), each registered in :data:`discotree.learners.registry.LEARNERS`.

Every one is statistics in, a fitted model out (:class:`~discotree.learners.registry.
FittedModel`): the structure from the pair tables' (conditional) mutual informations,
the parameters from the same tables (forests: a feature's table with its parent is one
pair table) or from the family tables of the chosen parents (kDB). Missing values
follow the available-case rule of the tables (each counts the rows where its variables
are observed).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..models.bayes_net import BayesNetModel
from ..models.discrete_forest import DiscreteForestModel
from ..models.gaussian_forest import GaussianForestModel
from ..stats.alpha_selection import forest_models_by_alpha
from ..stats.pair_statistics import PairStatistics
from ..structure.chow_liu import chow_liu_forest, edge_penalty, forest_parents, penalized_forest
from ..structure.generative import cmi_forest, kdb_parents
from .options import ChowLiuOptions, SmoothingOptions, TANOptions
from .registry import Counts, FittedModel, Learner, LearnerSpec, register_learner

__all__ = [
    "chow_liu_forests",
    "fit_chow_liu",
    "fit_kdb",
    "fit_naive_bayes",
    "fit_tan_cmi",
    "smoothed_forest_models",
]


def _as_tuples(row: NDArray[np.intp]) -> list[tuple[int, ...]]:
    return [() if p < 0 else (int(p),) for p in row]


def _class_rooted_attributes(
    parents: list[tuple[int, ...]], n_classes: int, forest: bool
) -> dict[str, Any]:
    """``attribute_parents_``, ``edges_`` (the same undirected edges for every class)
    and, for forests, ``parents_`` (n_classes, n_features)."""
    edges = sorted({(min(p, j), max(p, j)) for j, pa in enumerate(parents) for p in pa})
    out: dict[str, Any] = {
        "attribute_parents_": [tuple(p) for p in parents],
        "edges_": [list(edges) for _ in range(n_classes)],
    }
    if forest:
        row = np.array([pa[0] if pa else -1 for pa in parents], dtype=np.intp)
        out["parents_"] = np.tile(row, (n_classes, 1))
    return out


# ------------------------------------------------------------------- naive Bayes
def _naive_bayes_structure(stats: PairStatistics, spec: LearnerSpec) -> list[tuple[int, ...]]:
    return [()] * stats.n_features


def fit_naive_bayes(counts: Counts, spec: LearnerSpec) -> FittedModel:
    """Naive Bayes from the univariate tables (the diagonal of the pair statistics), or
    Gaussian naive Bayes from Gaussian moments.

    Examples
    --------
    >>> import numpy as np
    >>> from discotree.learners.registry import Counts, LearnerSpec
    >>> from discotree.stats.pair_statistics import PairStatistics
    >>> stats = PairStatistics.univariate(np.array([[3.0, 1.0], [1.0, 3.0]]), np.array([2]))
    >>> counts = Counts(stats.n_categories, np.array([4.0, 4.0]), stats)
    >>> fitted = fit_naive_bayes(counts, LearnerSpec("naive-bayes", 1.0, 1e-5))
    >>> np.exp(fitted.model.log_likelihood(np.array([[0]]))).round(3)
    array([[0.667, 0.333]])
    """
    stats = counts.pairs
    d, n_classes = counts.n_features, counts.n_classes
    parents = np.full((n_classes, d), -1, dtype=np.intp)
    if not isinstance(stats, PairStatistics):  # Gaussian moments: Gaussian naive Bayes
        attributes = _class_rooted_attributes([()] * d, n_classes, forest=True)
        attributes["edge_weights_"] = stats.conditional_mutual_information()  # (none used)
        return FittedModel(GaussianForestModel.from_statistics(stats, parents), attributes)
    model = DiscreteForestModel.from_statistics(
        None,
        parents,
        alpha=float(spec.alpha),
        epsilon=spec.epsilon,
        univariate=[stats.marginal(j) for j in range(d)],
        prior=spec.prior,
        **spec.table_smoothing(),
    )
    attributes = _class_rooted_attributes([()] * d, n_classes, forest=True)
    return FittedModel(model, _with_concentrations(attributes, model))


def _with_concentrations(attributes: dict[str, Any], model: Any) -> dict[str, Any]:
    """``concentrations_`` for hierarchical smoothing."""
    if getattr(model, "concentrations", None) is not None:
        attributes["concentrations_"] = model.concentrations
    return attributes


def smoothed_forest_models(
    stats: PairStatistics,
    parents: NDArray[np.intp],
    epsilon: float,
    prior: str,
    grid: tuple[float, ...],
    *,
    smoothing: str = "dirichlet",
):
    """``alpha -> model`` of the per-class forests ``parents`` from ``stats`` for
    ``alpha="auto"``: Dirichlet tables of every alpha of ``grid`` at once
    (:func:`~discotree.stats.alpha_selection.forest_models_by_alpha`), or with
    ``smoothing="hierarchical"`` one hierarchical model per alpha (its concentrations
    depend on the marginals alpha smooths); ``"hdp"`` chooses alpha on the hierarchical
    models too (the sampler runs once, on the final fit)."""
    if smoothing in ("hierarchical", "hdp"):
        return lambda alpha: DiscreteForestModel.from_statistics(
            stats, parents, alpha=alpha, epsilon=epsilon, smoothing="hierarchical"
        )
    return forest_models_by_alpha(stats, parents, epsilon, prior, grid)


def _forest_models_by_alpha(structure):
    def models_by_alpha(stats: PairStatistics, spec: LearnerSpec, grid):
        parents = structure(stats, spec)
        smoothing = spec.options.smoothing
        return smoothed_forest_models(
            stats, parents, spec.epsilon, spec.prior, grid, smoothing=smoothing
        )

    return models_by_alpha


def _tiled(structure):
    """Per-class forest parents (n_classes, n_features) from one attribute structure."""

    def parents(stats: PairStatistics, spec: LearnerSpec) -> NDArray[np.intp]:
        row = np.array([pa[0] if pa else -1 for pa in structure(stats, spec)], dtype=np.intp)
        return np.tile(row, (stats.n_classes, 1))

    return parents


# ------------------------------------------------------------------------- TAN
def _tan_structure(stats: PairStatistics, spec: LearnerSpec) -> list[tuple[int, ...]]:
    edges = cmi_forest(stats, spec.options.n_edges)[0]
    return _as_tuples(forest_parents(stats.n_features, edges))


def fit_tan_cmi(counts: Counts, spec: LearnerSpec) -> FittedModel:
    """TAN: the class-rooted forest of largest ``I(X_i; X_j | C)`` (Friedman et al.
    1997; ``n_edges`` as :func:`~discotree.structure.generative.cmi_forest`), its tables
    from the pair statistics; with Gaussian moments, the forest of the Gaussian
    conditional informations and each class's projection."""
    stats = counts.pairs
    n_edges = spec.options.n_edges
    if isinstance(stats, PairStatistics):
        edges, weights = cmi_forest(stats, n_edges)
    else:  # Gaussian moments: the forest of the Gaussian conditional informations
        weights = stats.conditional_mutual_information()
        edges = chow_liu_forest(weights)
        edges = edges if n_edges is None else edges[: int(n_edges)]
    parents = _as_tuples(forest_parents(stats.n_features, edges))
    attributes = _class_rooted_attributes(parents, counts.n_classes, forest=True)
    attributes["edge_weights_"] = weights
    if not isinstance(stats, PairStatistics):
        model: Any = GaussianForestModel.from_statistics(stats, attributes["parents_"])
        return FittedModel(model, attributes)
    model = DiscreteForestModel.from_statistics(
        stats,
        attributes["parents_"],
        alpha=float(spec.alpha),
        epsilon=spec.epsilon,
        prior=spec.prior,
        **spec.table_smoothing(),
    )
    return FittedModel(model, _with_concentrations(attributes, model))


# ------------------------------------------------------------------------- kDB
def _kdb_structure(stats: PairStatistics, spec: LearnerSpec) -> list[tuple[int, ...]]:
    return kdb_parents(stats, int(spec.options.k))


def fit_kdb(counts: Counts, spec: LearnerSpec) -> FittedModel:
    """kDB (Sahami 1996): each attribute, in decreasing ``I(X; C)``, takes the (at most)
    k earlier attributes of largest positive ``I(X_i; X_j | C)`` as parents; the tables
    from ``counts.families``, the family counts of those parents (a second pass)."""
    stats = counts.pairs
    parents = _kdb_structure(stats, spec)
    if counts.families is None or counts.n_categories is None:
        raise ValueError("kdb needs the family counts of its parents (counts.families)")
    attributes = _class_rooted_attributes(parents, counts.n_classes, forest=False)
    attributes["edge_weights_"] = stats.conditional_mutual_information()
    model = BayesNetModel.from_family_counts(
        counts.families,
        counts.class_weight,
        counts.n_categories,
        parents,
        alpha=float(spec.alpha),
        epsilon=spec.epsilon,
    )
    return FittedModel(model, attributes)


# -------------------------------------------------------------------- Chow-Liu
def chow_liu_forests(stats: PairStatistics, n_edges: int | str | None):
    """Per-class mutual informations and Chow-Liu forests (edges in the order added):
    the first ``n_edges`` edges, or with "bic"/"aic" the edges that pay for their
    parameters."""
    mi = stats.mutual_information()
    if not isinstance(n_edges, str):
        return mi, [chow_liu_forest(w, n_edges) for w in mi]
    totals = stats.table_totals()
    forests = []
    for c in range(stats.n_classes):
        n_c = float(np.diagonal(totals[c]).max(initial=0.0))
        penalty = edge_penalty(stats.n_categories, 1, n_edges, n_c)
        forests.append(penalized_forest(totals[c] * mi[c], penalty))
    return mi, forests


def _chow_liu_parents(stats: PairStatistics, spec: LearnerSpec) -> NDArray[np.intp]:
    forests = chow_liu_forests(stats, spec.options.n_edges)[1]
    return np.stack([forest_parents(stats.n_features, edges) for edges in forests])


def fit_chow_liu(counts: Counts, spec: LearnerSpec) -> FittedModel:
    """A Chow-Liu forest per class (Chow & Liu 1968), from the pair statistics (or the
    Gaussian moments: the forest of the Gaussian mutual informations)."""
    stats = counts.pairs
    n_edges = spec.options.n_edges
    d = stats.n_features
    if not isinstance(stats, PairStatistics):  # Gaussian statistics
        weights = stats.mutual_information()
        edges = [chow_liu_forest(w, n_edges) for w in weights]
        parents = np.stack([forest_parents(d, e) for e in edges])
        model: Any = GaussianForestModel.from_statistics(stats, parents)
    else:
        weights, edges = chow_liu_forests(stats, n_edges)
        parents = np.stack([forest_parents(d, e) for e in edges])
        model = DiscreteForestModel.from_statistics(
            stats,
            parents,
            alpha=float(spec.alpha),
            epsilon=spec.epsilon,
            prior=spec.prior,
            **spec.table_smoothing(),
        )
    attributes = {"edge_weights_": weights, "edges_": edges, "parents_": parents}
    return FittedModel(model, _with_concentrations(attributes, model))


register_learner(
    Learner(
        "naive-bayes",
        "Naive Bayes: every attribute's table given the class alone.",
        "univariate",
        fit_naive_bayes,
        structure=_naive_bayes_structure,
        models_by_alpha=_forest_models_by_alpha(_tiled(_naive_bayes_structure)),
        options=SmoothingOptions,
    )
)
register_learner(
    Learner(
        "tan-cmi",
        "TAN: the forest of largest I(X_i; X_j | C) under the class (Friedman et al. 1997).",
        "pairs",
        fit_tan_cmi,
        structure=_tan_structure,
        models_by_alpha=_forest_models_by_alpha(_tiled(_tan_structure)),
        options=ChowLiuOptions,
    )
)
register_learner(
    Learner(
        "kdb",
        "kDB: up to k parents of largest I(X_i; X_j | C) per attribute (Sahami 1996).",
        "pairs, then families",
        fit_kdb,
        structure=_kdb_structure,
        options=TANOptions,
    )
)
register_learner(
    Learner(
        "chow-liu",
        "A Chow-Liu forest of largest I(X_i; X_j) per class (Chow & Liu 1968).",
        "pairs",
        fit_chow_liu,
        models_by_alpha=_forest_models_by_alpha(_chow_liu_parents),
        options=ChowLiuOptions,
    )
)
