"""The learner of averaged one-dependence estimators (A1DE; Webb, Boughton & Wang 2005),
registered as ``"aode"``: the pair tables in, the average of every super-parent's
one-dependence estimator out
(:class:`~discotree.models.averaged_dependence.AveragedOneDependenceModel`).
One counting pass, no structure search, no model selection: ``partial_fit`` and the Dask
engine give the model of ``fit`` by construction (the pair tables add)."""

from __future__ import annotations

from ..models.averaged_dependence import AveragedOneDependenceModel
from ..stats.pair_statistics import PairStatistics
from .registry import Counts, FittedModel, Learner, LearnerSpec, register_learner

__all__ = ["fit_aode"]


def fit_aode(counts: Counts, spec: LearnerSpec) -> FittedModel:
    """A1DE from the pair tables (``counts.pairs``) and the class weights."""
    stats = counts.pairs
    model = AveragedOneDependenceModel.from_statistics(stats, float(spec.alpha), spec.epsilon)
    n_features, n_classes = stats.n_features, counts.n_classes
    edges = [(i, j) for i in range(n_features) for j in range(i + 1, n_features)]
    return FittedModel(
        model,
        {
            "edges_": [list(edges) for _ in range(n_classes)],
            "statistics_": stats,
        },
    )


def _models_by_alpha(stats: PairStatistics, spec: LearnerSpec, grid):
    def fit(alpha: float) -> AveragedOneDependenceModel:
        return AveragedOneDependenceModel.from_statistics(stats, alpha, spec.epsilon)

    return fit


register_learner(
    Learner(
        "aode",
        "A1DE: the average of every attribute's super-parent one-dependence estimator "
        "(Webb, Boughton & Wang 2005).",
        "pairs",
        fit_aode,
        models_by_alpha=_models_by_alpha,
    )
)
