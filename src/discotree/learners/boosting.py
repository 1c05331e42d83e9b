"""The learner of boosted graphical model classifiers (Tan et al. 2010, Algorithm 2),
registered as ``"boosting"`` (it reads the rows: every round reweighs them): the weak
learners (two-class statistics in, the parents of a pair of forests out), the line
search of each round's weight (step 5), shared by the in-memory fit and the Dask
engine, and the boosting of every binary problem (:func:`fit_boosted`).

Options of the :class:`~discotree.learners.registry.LearnerSpec`: ``base``,
``algorithm``, ``n_estimators``, ``init`` and ``multiclass``, as
:class:`BoostingSpec` holds them (:meth:`BoostingSpec.learner_spec`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import brentq

from ..config import check_memory
from ..kernels.counts import class_totals
from ..models.boosted_ensemble import BoostedEnsemble, BoostingRound
from ..models.discrete_forest import DiscreteForestModel
from ..numerics import ROOT_RTOL, normalise_log
from ..stats.alpha_selection import CALIBRATION_SCALES, held_out_losses
from ..stats.discriminative import discriminative_weights
from ..stats.pair_statistics import PairStatistics
from ..structure.chow_liu import chow_liu_forest, forest_parents
from ..structure.discriminative import discriminative_forest_paths
from .discriminative_tree import binary_tasks
from .options import BoostingOptions
from .registry import FittedModel, Learner, LearnerSpec, Rows, register_learner

logger = logging.getLogger(__name__)

__all__ = [
    "BASE_LEARNERS",
    "CALIBRATION_FOLDS",
    "BoostingSpec",
    "boost_binary",
    "calibration_scale_losses",
    "chow_liu_parents",
    "dt_parents",
    "ensemble_attributes",
    "final_scale_losses",
    "fit_boosted",
    "line_search_alpha",
    "line_search_by_slope",
    "tan_parents",
]

#: Folds of the calibration's cross-validation when ``n_estimators_cv`` is not set.
CALIBRATION_FOLDS = 5


def dt_parents(stats: PairStatistics, alpha: float) -> NDArray[np.intp]:
    psi_pos, psi_neg = discriminative_weights(stats, 1, 0, alpha)
    path_pos, path_neg = discriminative_forest_paths(psi_pos, psi_neg)
    d = stats.n_features
    return np.stack([forest_parents(d, path_neg.edges), forest_parents(d, path_pos.edges)])


def chow_liu_parents(stats: PairStatistics, alpha: float) -> NDArray[np.intp]:
    d = stats.n_features
    return np.stack([forest_parents(d, chow_liu_forest(w)) for w in stats.mutual_information()])


def tan_parents(stats: PairStatistics, alpha: float) -> NDArray[np.intp]:
    parents = forest_parents(
        stats.n_features, chow_liu_forest(stats.conditional_mutual_information())
    )
    return np.stack([parents, parents])


#: Weak learners by name: two-class statistics -> parents (class 0 = q-hat, 1 = p-hat).
BASE_LEARNERS = {"dt": dt_parents, "chow-liu": chow_liu_parents, "tan": tan_parents}


@dataclass(frozen=True)
class BoostingSpec:
    """What a boosted fit does, from a :class:`~discotree.BoostedGraphicalModelClassifier`'s
    validated parameters (its public ``boosting_spec``): the weak learner ``base`` (a
    name of :data:`BASE_LEARNERS`), Real- or Discrete-AdaBoost, the number of rounds,
    the starting score rule, the weak learners' pseudo-count and floor, and how several
    classes split into binary problems (:func:`tasks`).

    Examples
    --------
    >>> BoostingSpec("dt", "real", 10, "prior", 1.0, 1e-5, "ovr").tasks(3)
    [(0, -1), (1, -1), (2, -1)]
    """

    base: str
    algorithm: str
    n_estimators: int
    init: str
    alpha: float | str
    epsilon: float
    multiclass: str = "pairwise"
    smoothing: str = "dirichlet"

    def tasks(self, n_classes: int) -> list[tuple[int, int]]:
        """The binary problems: (positive, negative) class indices, -1 for the rest
        (:func:`~discotree.learners.discriminative_tree.binary_tasks`)."""
        return binary_tasks(n_classes, self.multiclass)

    def learner_spec(self) -> LearnerSpec:
        """The registry's specification of this boosted fit (learner ``"boosting"``)."""
        options = BoostingOptions(
            base=self.base,
            algorithm=self.algorithm,
            n_estimators=self.n_estimators,
            init=self.init,
            multiclass=self.multiclass,
            smoothing=self.smoothing,
        )
        return LearnerSpec("boosting", self.alpha, self.epsilon, options=options)

    @classmethod
    def from_learner_spec(cls, spec: LearnerSpec) -> BoostingSpec:
        """The inverse of :meth:`learner_spec`."""
        return cls(
            spec.options.base,
            spec.options.algorithm,
            int(spec.options.n_estimators),
            spec.options.init,
            spec.alpha,
            spec.epsilon,
            spec.options.multiclass,
            spec.options.smoothing,
        )


def line_search_alpha(margins: NDArray[np.float64], weights: NDArray[np.float64]) -> float:
    """``argmin_{beta >= 0} sum_l w_l exp(-beta m_l)`` (step 5 of Algorithm 2).

    The objective is convex in beta; its derivative is increasing, so the minimiser is
    0 when the derivative at 0 is >= 0 (the weak learner is no better than chance), is
    infinite when no margin is negative (a perfect weak learner: ``inf`` is returned),
    and otherwise is the root of the derivative, found by bracketing and Brent's method
    to a relative tolerance of 1e-12. Computed in log space (no overflow).
    """
    positive = weights > 0
    m, w = margins[positive], weights[positive]

    def slope(beta: float) -> float:
        # sign of -sum w m exp(-beta m), scaled by exp(-max(-beta m)) to avoid overflow
        exponent = -beta * m
        scale = exponent.max()
        return float(-np.sum(w * m * np.exp(exponent - scale)))

    return line_search_by_slope(float(np.sum(w * m)), bool((m < 0).any()), slope)


def line_search_by_slope(weighted_margin: float, any_negative: bool, slope) -> float:
    """The line search of :func:`line_search_alpha` given ``sum w m``, whether any
    margin of positive weight is negative, and the derivative's sign function
    ``slope(beta)`` (positively rescaled as convenient): so that an engine whose
    margins live elsewhere (Dask) evaluates the same bracketing and Brent steps."""
    if weighted_margin <= 0:
        return 0.0
    if not any_negative:
        return float("inf")
    high = 1.0
    while slope(high) < 0:
        high *= 2.0
        if high > 1e12:
            return high
    return float(brentq(slope, 0.0, high, xtol=1e-14, rtol=ROOT_RTOL))


def boost_binary(rows: Rows, spec: BoostingSpec, positive: int, negative: int) -> BoostedEnsemble:
    """Algorithm 2 of Tan et al. (2010) on the rows of class ``positive`` (y = +1) and
    ``negative`` (y = -1; -1: every other class).

    Every round counts the pair statistics of the reweighed rows (kept at the data's
    total weight, so that the pseudo-count weighs the same against them in every round),
    fits the weak learner ``spec.base`` with ML parameters, and takes the step of
    :func:`line_search_alpha`; it stops early on a weak learner no better than chance
    (not kept) or a perfect one (kept with weight 1).

    Examples
    --------
    >>> import numpy as np
    >>> codes = np.array([[0, 1], [1, 0], [0, 0], [1, 1]] * 5)
    >>> label = np.array([0, 1, 0, 1] * 5)
    >>> rows = Rows(codes, label, np.ones(20), 2, np.array([2, 2]))
    >>> ensemble = boost_binary(rows, BoostingSpec("dt", "real", 3, "prior", 1.0, 1e-5), 1, 0)
    >>> len(ensemble.rounds) >= 1
    True
    """
    if not isinstance(spec.alpha, (int, float)):
        raise ValueError("boosting needs a numeric alpha (choose it before boosting)")
    alpha_, epsilon = float(spec.alpha), spec.epsilon
    class_index, weights = rows.class_index, rows.weights
    chosen = np.flatnonzero(
        (class_index == positive)
        | ((class_index != positive) if negative < 0 else (class_index == negative))
    )
    codes = rows.codes[chosen]
    label = (class_index[chosen] == positive).astype(np.intp)  # 1 = p (positive)
    y = 2.0 * label - 1.0
    total = weights[chosen].sum()
    log_w = np.log(weights[chosen] / total)
    init_score = 0.0
    if spec.init == "prior":  # F_0 = argmin_F sum w exp(-y F) = log(W+ / W-) / 2
        side = class_totals(label, weights[chosen], 2)
        init_score = 0.5 * float(np.log(side[1] / side[0]))
        log_w = log_w - y * init_score
        log_w = normalise_log(log_w, axis=0)
    weak_learner = BASE_LEARNERS[spec.base]
    rounds: list[BoostingRound] = []
    stopped = ""
    for t in range(spec.n_estimators):
        w = np.exp(log_w)
        stats = PairStatistics.from_codes(codes, label, rows.n_categories, 2, w * total)
        parents = weak_learner(stats, alpha_)
        model = DiscreteForestModel.from_statistics(
            stats, parents, alpha=alpha_, epsilon=epsilon, smoothing=spec.smoothing
        ).without_posterior()  # (boosting draws no uncertainty: T tables, not 2T)
        candidate = BoostingRound(1.0, model)
        margins = y * candidate.weak(codes, spec.algorithm)
        step = line_search_alpha(margins, w)
        if step == 0.0:
            stopped = f"round {t + 1}: weak learner no better than chance (alpha = 0)"
            break
        if not np.isfinite(step) or step > 1e12:
            rounds.append(candidate)  # perfect on the training data: keep, alpha 1
            stopped = f"round {t + 1}: perfect weak learner (infinite alpha)"
            break
        candidate.alpha = step
        rounds.append(candidate)
        log_w = log_w - step * margins
        log_w = normalise_log(log_w, axis=0)
        logger.info("round %d of %d: alpha = %.4g", t + 1, spec.n_estimators, step)
    if stopped:
        logger.info("boosting: %s", stopped)
    return BoostedEnsemble(positive, negative, rounds, stopped, init_score)


def ensemble_attributes(ensembles: list[BoostedEnsemble], n_classes: int) -> dict[str, Any]:
    """The fitted attributes of the boosted binary problems: ``ensembles_``, each
    problem's round weights ``estimator_alphas_``, why it stopped (``stopped_``) and,
    per class, the union of the edges its side of any round used (``edges_union_``,
    also ``edges_``)."""
    edges_union: list[list[tuple[int, int]]] = [[] for _ in range(n_classes)]
    for ensemble in ensembles:
        for r in ensemble.rounds:
            sides = [(ensemble.positive, 1)]
            if ensemble.negative >= 0:
                sides.append((ensemble.negative, 0))
            for c, column in sides:
                for edge in r.model.edges()[column]:
                    if edge not in edges_union[c]:
                        edges_union[c].append(edge)
    return {
        "ensembles_": ensembles,
        "estimator_alphas_": [np.array([r.alpha for r in e.rounds]) for e in ensembles],
        "stopped_": [e.stopped for e in ensembles],
        "edges_union_": edges_union,
        "edges_": edges_union,
    }


def fit_boosted(rows: Rows, spec: LearnerSpec) -> FittedModel:
    """Boost every binary problem of ``spec``'s ``multiclass`` scheme from the rows
    (:func:`boost_binary`); the model is None (the ensembles are the attributes)."""
    boosting = BoostingSpec.from_learner_spec(spec)
    tasks = boosting.tasks(rows.n_classes)
    # each kept round holds a forest: at least two floats per category of every
    # feature; refuse before the loop what n_estimators rounds could not fit
    per_round = 16.0 * float(np.sum(rows.n_categories) + 1) * len(tasks)
    check_memory(
        per_round * boosting.n_estimators,
        f"n_estimators={boosting.n_estimators} rounds of boosting",
        "BoostedGraphicalModelClassifier",
    )
    ensembles = [boost_binary(rows, boosting, positive, negative) for positive, negative in tasks]
    return FittedModel(None, ensemble_attributes(ensembles, rows.n_classes))


register_learner(
    Learner(
        "boosting",
        "Real/Discrete AdaBoost of discriminative trees or forests (Tan et al. 2010, Alg. 2).",
        "rows",
        fit_boosted,
        partial_fit=False,
        dask=True,
        options=BoostingOptions,
    )
)


def calibration_scale_losses(
    scores: NDArray[np.float64], truth: NDArray[np.intp], held: NDArray[np.float64]
) -> NDArray[np.float64]:
    """The held-out log-loss (weighted, summed) of every calibration scale, from a
    fold model's scores over the classes whose indices ``truth`` holds (shape
    (n_samples, n_classes), or (n_samples,) for two classes: ``F``, the softmax form of
    ``1 / (1 + exp(-2F))``).

    Examples
    --------
    >>> import numpy as np
    >>> losses = calibration_scale_losses(np.array([1.0, -1.0]), np.array([1, 0]), np.ones(2))
    >>> losses.shape == (len(CALIBRATION_SCALES),)
    True
    """
    if scores.ndim == 1:  # the softmax form of 1 / (1 + exp(-2F))
        scores = np.column_stack([-scores, scores])
    joints = np.ascontiguousarray(scores[:, :, None], dtype=np.float64)
    return held_out_losses(joints, truth, held, CALIBRATION_SCALES)[2:, 0]


def final_scale_losses(model: Any, X: Any, truth: Any, held: Any) -> NDArray[np.float64]:
    """The held-out log-loss (weighted, summed over the rows) of every calibration
    scale of a fold's fitted boosted model on its held-out rows, at its last round:
    the terms that ``calibration="cv"`` adds over the folds (an engine that scores
    the held-out rows part by part adds these sums).

    Parameters
    ----------
    model : BoostedGraphicalModelClassifier
        Fitted on the fold's training rows with ``calibration="none"``.
    X : array-like or DataFrame of shape (n_samples, n_features)
        Held-out rows.
    truth : array-like of shape (n_samples,)
        Index of each row's class in ``model.classes_``.
    held : array-like of shape (n_samples,)
        The rows' weights.

    Returns
    -------
    ndarray of shape (n_scales,)
        One sum per scale of
        :data:`~discotree.stats.alpha_selection.CALIBRATION_SCALES` (zeros when the
        model has no round, as the in-memory calibration counts it).

    Examples
    --------
    >>> import numpy as np
    >>> from discotree import BoostedGraphicalModelClassifier
    >>> X = np.array([[0, 1], [1, 0], [0, 0], [1, 1]] * 5)
    >>> y = X[:, 0]
    >>> model = BoostedGraphicalModelClassifier(n_estimators=2, calibration="none")
    >>> losses = final_scale_losses(model.fit(X, y), X, y, np.ones(len(y)))
    >>> losses.shape == (len(CALIBRATION_SCALES),)
    True
    """
    last = None
    for scores in model.staged_decision_function(X):
        last = scores
    if last is None:
        return np.zeros(len(CALIBRATION_SCALES))
    return calibration_scale_losses(
        last, np.asarray(truth, dtype=np.intp), np.asarray(held, dtype=np.float64)
    )
