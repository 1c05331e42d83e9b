"""Boosting on dask collections (the extra ``discotree[dask]``).

:class:`~discotree.BoostedGraphicalModelClassifier` re-weights the rows every round, so
its data stay in the cluster as encoded codes (persisted once, after the schema pass of
:mod:`discotree.engines.dask_engine`), with the row weights beside them. A round is one
weighted counting pass (tree-reduced pair statistics), the weak learner learnt on the
client, one scoring pass for the margins, the line search of step 5 of Algorithm 2
(Tan et al. 2010) whose slope is summed over the partitions, and the weight
update with its normalising log-sum-exp.

With ``calibration="cv"`` (the default) the scale of the scores is chosen as ``fit``
chooses it in memory: the rows' folds hash their codes under the fitted encoding
(:func:`~discotree.stats.folds.content_folds`, with the estimator's seed), each fold's
training rows are boosted again on the cluster (their own schema pass, as the in-memory
fold fit refits its encoder), and the held-out log-loss of every scale is summed over
the partitions of the held-out rows; only sums come back.
"""

from __future__ import annotations

from typing import Any

import dask
import dask.dataframe as dd
import numpy as np

from ..kernels.counts import class_totals
from ..stats.alpha_selection import CALIBRATION_SCALES
from ..stats.folds import content_folds
from ..stats.pair_statistics import PairStatistics
from ..validation import check_table, integer_seed, take_rows
from .dask_engine import encode_partition, row_partitions, schema_pass, tree_sum

__all__ = ["fit_boosted_dask"]


def _task_rows(encoded, positive: int, negative: int):
    """A partition's rows of one binary problem: codes, label (1 = positive), y = +-1
    and the initial weights."""
    codes, class_index, weights = encoded
    keep = (class_index == positive) | (
        (class_index != positive) if negative < 0 else (class_index == negative)
    )
    w = np.ones(len(codes)) if weights is None else weights
    label = (class_index[keep] == positive).astype(np.intp)
    return codes[keep], label, 2.0 * label - 1.0, w[keep]


def _log_sum_exp_parts(log_w: np.ndarray) -> tuple[float, float]:
    """(max, sum exp(log_w - max)) of a partition, to combine into a logsumexp."""
    if len(log_w) == 0:
        return -np.inf, 0.0
    top = float(log_w.max())
    return top, float(np.exp(log_w - top).sum())


def _combine_log_sum_exp(a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float]:
    """Two (scale, sum at that scale) pairs at their common, larger scale."""
    top = max(a[0], b[0])
    if top == -np.inf:
        return top, 0.0
    return top, a[1] * np.exp(a[0] - top) + b[1] * np.exp(b[0] - top)


def _persisted(function, *columns) -> list:
    """``function`` applied to each partition's items, kept in the cluster."""
    return list(
        dask.persist(*[dask.delayed(function)(*items) for items in zip(*columns, strict=True)])
    )


def _global_log_sum_exp(log_w: list) -> float:
    top, total = tree_sum(
        [dask.delayed(_log_sum_exp_parts)(part) for part in log_w], _combine_log_sum_exp
    ).compute()
    return float(top + np.log(total))


def _weighted_statistics(task, log_w, n_categories, total: float) -> PairStatistics:
    codes, label, _, _ = task
    if len(codes) == 0:
        width = int(np.sum(n_categories))
        return PairStatistics(np.zeros((2, width, width)), n_categories)
    return PairStatistics.from_codes(codes, label, n_categories, 2, np.exp(log_w) * total)


def _margins(task, candidate, algorithm: str) -> np.ndarray:
    """y times the weak learner's score, on a partition's rows (step 5's margins)."""
    codes, _, y, _ = task
    return y * candidate.weak(codes, algorithm) if len(codes) else np.empty(0)


def _margin_sums(task, margins, log_w) -> tuple[float, bool]:
    w = np.exp(log_w)
    positive = w > 0
    return float(np.sum(w[positive] * margins[positive])), bool((margins[positive] < 0).any())


def _slope_parts(margins, log_w, beta: float) -> tuple[float, float]:
    """(max exponent, -sum w m exp(exponent - max)) of a partition's rows."""
    w = np.exp(log_w)
    positive = w > 0
    m, w = margins[positive], w[positive]
    if len(m) == 0:
        return -np.inf, 0.0
    exponent = -beta * m
    scale = float(exponent.max())
    return scale, float(-np.sum(w * m * np.exp(exponent - scale)))


def _boost_task(spec, schema, encoded, positive: int, negative: int):
    """Algorithm 2 on one binary problem, every pass over the persisted partitions:
    per round a weighted counting pass (tree-reduced) and a scoring pass; the line
    search evaluates its slope over the partitions (``line_search_by_slope``, the
    bracketing and Brent steps of the in-memory fit)."""
    from ..learners.boosting import BASE_LEARNERS, line_search_by_slope
    from ..models.boosted_ensemble import BoostedEnsemble, BoostingRound
    from ..models.discrete_forest import DiscreteForestModel

    n_categories = schema.n_categories
    tasks = _persisted(_task_rows, encoded, [positive] * len(encoded), [negative] * len(encoded))
    sums = tree_sum(
        [dask.delayed(lambda t: np.array([t[3].sum(), *np.bincount(t[1], t[3], 2)]))(t)
         for t in tasks]
    ).compute()  # fmt: skip
    total, side = float(sums[0]), sums[1:]
    log_w = _persisted(lambda t: np.log(t[3] / total), tasks)
    init_score = 0.0
    if spec.init == "prior":
        init_score = 0.5 * float(np.log(side[1] / side[0]))
        log_w = _persisted(lambda lw, t: lw - t[2] * init_score, log_w, tasks)
        norm = _global_log_sum_exp(log_w)
        log_w = _persisted(lambda lw: lw - norm, log_w)
    learner = BASE_LEARNERS[spec.base]
    rounds: list = []
    stopped = ""
    for t in range(spec.n_estimators):
        stats = tree_sum(
            [
                dask.delayed(_weighted_statistics)(task, lw, n_categories, total)
                for task, lw in zip(tasks, log_w, strict=True)
            ]
        ).compute()
        parents = learner(stats, spec.alpha)
        model = DiscreteForestModel.from_statistics(
            stats, parents, alpha=spec.alpha, epsilon=spec.epsilon, smoothing=spec.smoothing
        )
        candidate = BoostingRound(1.0, model)
        algorithm = spec.algorithm
        n_parts = len(tasks)
        margins = _persisted(_margins, tasks, [candidate] * n_parts, [algorithm] * n_parts)
        weighted, any_negative = tree_sum(
            [
                dask.delayed(_margin_sums)(task, m, lw)
                for task, m, lw in zip(tasks, margins, log_w, strict=True)
            ],
            lambda a, b: (a[0] + b[0], a[1] or b[1]),
        ).compute()

        def slope(beta: float, margins=margins, log_w=log_w) -> float:
            parts = [
                dask.delayed(_slope_parts)(m, lw, beta)
                for m, lw in zip(margins, log_w, strict=True)
            ]
            return float(tree_sum(parts, _combine_log_sum_exp).compute()[1])

        alpha = line_search_by_slope(weighted, any_negative, slope)
        if alpha == 0.0:
            stopped = f"round {t + 1}: weak learner no better than chance (alpha = 0)"
            break
        if not np.isfinite(alpha) or alpha > 1e12:
            rounds.append(candidate)
            stopped = f"round {t + 1}: perfect weak learner (infinite alpha)"
            break
        candidate.alpha = alpha
        rounds.append(candidate)
        log_w = _persisted(lambda lw, m, a=alpha: lw - a * m, log_w, margins)
        norm = _global_log_sum_exp(log_w)
        log_w = _persisted(lambda lw, z=norm: lw - z, log_w)
    return BoostedEnsemble(positive, negative, rounds, stopped, init_score)


def _fit_partitions(estimator: Any, spec: Any, parts: list, names: Any) -> tuple:
    """Boost on the delayed row partitions ``parts``: (schema, class weights, ensembles)."""
    name = type(estimator).__name__
    schema = schema_pass(estimator, parts, names)
    n_classes = len(schema.classes)
    if n_classes < 2:
        raise ValueError(f"{name}: y contains only 1 class; at least two are needed.")
    encoded = list(
        dask.persist(*[dask.delayed(encode_partition)(schema, x, y_, w) for x, y_, w in parts])
    )
    class_weight = tree_sum(
        [dask.delayed(lambda e: class_totals(e[1], e[2], n_classes))(part) for part in encoded]
    ).compute()
    ensembles = [
        _boost_task(spec, schema, encoded, positive, negative)
        for positive, negative in spec.tasks(n_classes)
    ]
    return schema, class_weight, ensembles


# ------------------------------------------------------------------ calibration="cv"
def _partition_folds(schema, x, n_folds: int, seed: int) -> np.ndarray:
    """The calibration fold of every row of a partition (weight zero included), from
    its codes under the fitted encoding, as the in-memory fit draws them."""
    if len(x) == 0:
        return np.empty(0, dtype=np.intp)
    codes = schema.encoder.transform(check_table(x, schema.encoder.owner))
    return content_folds(codes, n_folds, seed)


def _weights(w: Any, n: int) -> np.ndarray:
    return np.ones(n) if w is None else np.asarray(w, dtype=np.float64).reshape(-1)


def _fold_totals(folds, y, w, classes, n_folds: int) -> np.ndarray:
    """Per fold: the weight of each class in its training rows, then the number of its
    held-out rows (a fold is scored when it has held-out rows and every class trains)."""
    out = np.zeros((n_folds, len(classes) + 1))
    if len(folds) == 0:
        return out
    truth = np.searchsorted(classes, np.asarray(y).reshape(-1)).astype(np.intp)
    weights = _weights(w, len(folds))
    for k in range(n_folds):
        train = folds != k
        out[k, :-1] = class_totals(truth[train], weights[train], len(classes))
        out[k, -1] = np.count_nonzero(~train)
    return out


def _training_rows(x, y, w, folds, k: int) -> tuple:
    """A partition's rows outside fold ``k``."""
    rows = np.flatnonzero(folds != k)
    weights = _weights(w, len(folds))[rows]  # the in-memory fold fits get ones
    return take_rows(x, rows), np.asarray(y).reshape(-1)[rows], weights


def _held_out_losses(model, x, y, w, folds, k: int, classes) -> np.ndarray:
    """The held-out log-loss (weighted, summed) of every calibration scale over a
    partition's rows of fold ``k``, from the model fitted without them."""
    from ..learners.boosting import final_scale_losses

    rows = np.flatnonzero(folds == k)
    if len(rows) == 0:
        return np.zeros(len(CALIBRATION_SCALES))
    truth = np.searchsorted(classes, np.asarray(y).reshape(-1)[rows]).astype(np.intp)
    return final_scale_losses(model, take_rows(x, rows), truth, _weights(w, len(folds))[rows])


def _calibration_losses(estimator: Any, spec: Any, schema, parts: list, names: Any):
    """The held-out log-loss of every calibration scale, summed over the folds (the
    folds, skips and sums of the in-memory ``calibration="cv"``); ``None`` when no
    fold can be scored."""
    from sklearn.base import clone

    from ..learners.boosting import CALIBRATION_FOLDS

    n_folds = CALIBRATION_FOLDS
    seed = integer_seed(estimator.random_state)
    folds = _persisted(
        _partition_folds, [schema] * len(parts), [x for x, _, _ in parts],
        [n_folds] * len(parts), [seed] * len(parts),
    )  # fmt: skip
    classes = schema.classes
    totals = tree_sum(
        [
            dask.delayed(_fold_totals)(f, y, w, classes, n_folds)
            for f, (_, y, w) in zip(folds, parts, strict=True)
        ]
    ).compute()
    scored = [k for k in range(n_folds) if totals[k, -1] > 0 and np.all(totals[k, :-1] > 0)]
    if not scored:
        return None
    template = clone(estimator).set_params(calibration="none")

    def fold_losses(k: int) -> np.ndarray:
        train = [
            dask.delayed(_training_rows, nout=3)(x, y, w, f, k)
            for f, (x, y, w) in zip(folds, parts, strict=True)
        ]
        model = clone(template)
        fold_schema, class_weight, ensembles = _fit_partitions(model, spec, train, names)
        model.fit_from_ensembles(fold_schema, class_weight, ensembles)
        held = [
            dask.delayed(_held_out_losses)(model, x, y, w, f, k, classes)
            for f, (x, y, w) in zip(folds, parts, strict=True)
        ]
        return tree_sum(held).compute()

    losses = np.zeros(len(CALIBRATION_SCALES))
    for k in scored:  # added in fold order, as in memory
        losses += fold_losses(k)
    return losses


def fit_boosted_dask(estimator: Any, X: Any, y: Any, sample_weight: Any = None) -> Any:
    """``BoostedGraphicalModelClassifier.fit`` on dask collections: a schema pass, the
    codes encoded once and persisted in the cluster, then for each round one weighted
    counting pass and one scoring pass (and the line search's slope evaluations); with
    ``calibration="cv"`` the same on each fold's training rows, then a scoring pass."""
    name = type(estimator).__name__
    if estimator.n_estimators_cv is not None:
        raise ValueError(
            f"{name}: n_estimators_cv refits on folds of the rows; on dask input give "
            "n_estimators (chosen on a sample)."
        )
    if y is None:
        raise ValueError(f"{name} requires y to be passed, but the target y is None.")
    spec = estimator.boosting_spec()  # validates the parameters
    if spec.alpha == "auto":
        raise ValueError(f"{name}: alpha='auto' is not available on dask input; give a number.")
    names = list(X.columns) if isinstance(X, dd.DataFrame) else None
    if names is not None and not all(isinstance(n, str) for n in names):
        names = None
    parts = row_partitions(X, y, sample_weight)
    schema, class_weight, ensembles = _fit_partitions(estimator, spec, parts, names)
    losses = None
    if estimator.calibration == "cv":
        losses = _calibration_losses(estimator, spec, schema, parts, names)
    return estimator.fit_from_ensembles(schema, class_weight, ensembles, calibration_losses=losses)
