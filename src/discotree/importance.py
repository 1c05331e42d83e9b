"""Feature importance by marginalisation: how much worse the model predicts when it does
not see a feature, with the feature summed out exactly instead of permuted or refitted.

For a model that sums missing features out exactly (every discrete Bayesian-network
classifier of discotree, and the Gaussian ones), ``p(c | x_{-j})`` is the model's own
posterior without feature ``j``: the importance of ``j`` on a labelled row is

``log p(y | x) - log p(y | x_{-j})``

(nats), the increase of that row's log-loss when ``j`` is not observed; averaged over
rows, it is the expected loss increase. Unlike permutation importance it needs no
random shuffles and does not break the feature's dependence on the others (the model
integrates ``j`` out under its own conditional distribution given the rest), and unlike
drop-column importance it needs no refit. It can be negative: a feature whose
observation makes the model more confidently wrong.

``feature_importances_`` of the estimators is this quantity on a sample of the training
rows kept at fit time (:class:`SummedOutImportanceMixin`); :func:`summed_out_importances`
computes it on any labelled data (held-out rows are the better choice, as for
permutation importance).

For kDB models and ensembles, the posteriors without each feature of the rows with
nothing missing come from the model's structure
(:mod:`discotree.models.summed_out`: a feature's own factor and its children's, summed
out as the model's prediction sums it), the same numbers as predicting every masked
copy (one prediction of every row per feature) at a fraction of the cost.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from sklearn.utils import Bunch

from . import missing_values
from .config import check_memory, get_config
from .docstrings import fill_doc
from .models.summed_out import summed_out_log_posteriors, supports_summed_out
from .validation import (
    check_is_fitted,
    check_sample_weight,
    check_table,
    check_targets,
    validate_data,
)

__all__ = ["SummedOutImportanceMixin", "summed_out_importances"]

#: At most this many cells (rows x features) of masked copies are predicted at once.
BLOCK_CELLS = 2**22
#: Rows whose summed-out posteriors the kDB models compute at once from their
#: structure (:mod:`discotree.models.summed_out`).
STRUCTURE_ROWS = 512
_OWNER = "summed_out_importances"


def _frame(estimator: Any, X: Any) -> pd.DataFrame:
    """``X`` as a frame of object/float columns named as at fit time (positional names
    when the estimator was fitted without names)."""
    table = check_table(X, type(estimator).__name__)
    return pd.DataFrame({j: column for j, column in enumerate(table.columns)})


def _as_input(estimator: Any, frame: pd.DataFrame) -> Any:
    names = getattr(estimator, "feature_names_in_", None)
    if names is not None:
        return frame.set_axis(list(names), axis=1)
    numeric = all(dtype.kind in "fiub" for dtype in frame.dtypes)
    return frame.to_numpy(dtype=np.float64 if numeric else object)


def _missing_value(column: pd.Series) -> Any:
    return np.nan if column.dtype.kind == "f" else None


def _centred(log_proba: NDArray[np.float64]) -> NDArray[np.float64]:
    """Log-posteriors minus their mean over the classes (the last axis): the softmax
    logits."""
    return log_proba - log_proba.mean(axis=-1, keepdims=True)


@fill_doc
def summed_out_importances(
    estimator: Any, X: Any, y: Any = None, sample_weight: Any = None
) -> Bunch:
    """What each feature changes in each row's prediction when it is summed out exactly.

    Parameters
    ----------
    estimator : fitted classifier that accepts missing values (NaN/None) in ``predict_log_proba``
    X : array-like or DataFrame of shape (n_samples, n_features)
        Columns as at fit time: a DataFrame's column names must be the estimator's
        ``feature_names_in_``, in order (as its ``predict`` requires).
    y : array-like of shape (n_samples,), optional
        Labels among the estimator's ``classes_``: with them, the log-loss increases.
    sample_weight : array-like of shape (n_samples,), optional
        Weights of the rows in the means: finite, non-negative, not all zero.

    Returns
    -------
    Bunch
        ``evidence`` (n_features, n_samples): the mean over the classes of
        ``|z_c(x) - z_c(x_{-j})|``, ``z_c = log p(c | x)`` minus its mean over the
        classes (the nats of evidence feature j moves, whatever the label);
        ``evidence_mean`` (n_features,) its weighted mean over the rows. With ``y``
        also ``importances`` (n_features, n_samples): ``log p(y | x) -
        log p(y | x_{-j})``, the row's log-loss increase, and ``importances_mean`` and
        ``importances_std`` over the rows. A feature already missing in a row gives 0.

    Raises
    ------
    ValueError
        For columns other than the estimator's, labels it was not fitted on, bad
        weights, or results larger than the ``memory_limit`` configuration key (the
        masked copies of the rows are predicted in blocks of at most
        :data:`BLOCK_CELLS` cells, so the working memory does not grow with the data).

    Examples
    --------
    {example_iris_nb}
    >>> result = summed_out_importances(clf, X, y)
    >>> int(result.importances_mean.argmax()), int(result.evidence_mean.argmax())
    (3, 2)
    """
    check_is_fitted(estimator)
    frame = _frame(estimator, X)
    try:  # the columns by name, as the estimator's predict checks them
        validate_data(estimator, X, skip_check_array=True, reset=False)
    except ValueError as err:
        raise ValueError(f"{_OWNER}: {err}") from err
    n = len(frame)
    weights = check_sample_weight(sample_weight, n, _OWNER)
    position = None
    if y is not None:
        labels = check_targets(y, n, _OWNER)
        classes = np.asarray(estimator.classes_)
        position = np.searchsorted(classes, labels)
        found = classes[np.minimum(position, len(classes) - 1)] == labels
        if not np.all(found):
            raise ValueError(f"{_OWNER}: y holds labels the estimator was not fitted on.")
    return _importances(estimator, frame, position, weights)


def _importances(
    estimator: Any,
    frame: pd.DataFrame,
    position: NDArray[np.intp] | None,
    weights: NDArray[np.float64] | None,
) -> Bunch:
    """:func:`summed_out_importances` of validated input: the labels' positions in
    ``classes_`` (or None) and positive weights (or None)."""
    n, d = frame.shape
    n_classes = len(estimator.classes_)
    results = (2 if position is not None else 1) * 8.0 * n * d
    check_memory(results + 8.0 * n * n_classes + 32.0 * BLOCK_CELLS, "the importances", _OWNER)
    weights = np.ones(n) if weights is None else weights
    evidence = np.zeros((d, n))
    increases = np.zeros((d, n)) if position is not None else None
    chunk = max(1, BLOCK_CELLS // d)  # rows whose masked copies are predicted together
    for start in range(0, n, chunk):
        rows = slice(start, min(n, start + chunk))
        part = frame.iloc[rows].reset_index(drop=True)
        labels = None if position is None else position[rows]
        gains = None if increases is None else increases[:, rows]
        _chunk_importances(estimator, part, labels, evidence[:, rows], gains)
    total = weights.sum()
    result = Bunch(evidence=evidence, evidence_mean=evidence @ weights / total)
    if increases is not None:
        mean = increases @ weights / total
        std = np.sqrt(((increases - mean[:, None]) ** 2) @ weights / total)
        result.update(importances=increases, importances_mean=mean, importances_std=std)
    return result


def _chunk_importances(
    estimator: Any,
    part: pd.DataFrame,
    position: NDArray[np.intp] | None,
    evidence: NDArray[np.float64],
    increases: NDArray[np.float64] | None,
) -> None:
    """Fill ``evidence`` and ``increases`` (features x the rows of ``part``): from the
    model's structure where it allows (:func:`_by_structure`), else one feature's
    masked copy of the rows after another, in blocks of at most :data:`BLOCK_CELLS`
    cells."""
    full = estimator.predict_log_proba(_as_input(estimator, part))
    rest = _by_structure(estimator, part, full, position, evidence, increases=increases)
    if rest is None:
        _masked_importances(estimator, part, full, position, evidence, increases=increases)
    elif len(rest):  # the rows with missing values: masked copies
        labels = None if position is None else position[rest]
        some_evidence = np.empty((part.shape[1], len(rest)))
        some_gains = None if increases is None else np.empty_like(some_evidence)
        some = part.iloc[rest].reset_index(drop=True)
        _masked_importances(
            estimator, some, full[rest], labels, some_evidence, increases=some_gains
        )
        evidence[:, rest] = some_evidence
        if increases is not None and some_gains is not None:
            increases[:, rest] = some_gains


def _masked_importances(
    estimator: Any,
    part: pd.DataFrame,
    full: NDArray[np.float64],
    position: NDArray[np.intp] | None,
    evidence: NDArray[np.float64],
    *,
    increases: NDArray[np.float64] | None,
) -> None:
    """:func:`_chunk_importances` by masked copies (``full``: the rows' log posteriors)."""
    n, d = part.shape
    per_block = max(1, BLOCK_CELLS // max(n * d, 1))
    for first in range(0, d, per_block):
        blocks = []
        for j in range(first, min(d, first + per_block)):
            block = part.copy()
            block[j] = _missing_value(part[j])
            blocks.append(block)
        stacked = pd.concat(blocks, ignore_index=True)
        del blocks
        log_proba = estimator.predict_log_proba(_as_input(estimator, stacked))
        log_proba = log_proba.reshape(-1, n, full.shape[1])
        done = slice(first, first + len(log_proba))
        _fill(full, log_proba, position, evidence[done], increases, done=done)


def _fill(
    full: NDArray[np.float64],
    log_proba: NDArray[np.float64],
    position: NDArray[np.intp] | None,
    evidence: NDArray[np.float64],
    increases: NDArray[np.float64] | None,
    *,
    done: slice,
) -> None:
    """The evidence (and with labels the increases, rows ``done`` of the features) of
    the rows' log posteriors ``full`` and with each feature summed out (``log_proba``,
    features x rows x classes)."""
    evidence[:] = np.abs(_centred(full)[None] - _centred(log_proba)).mean(axis=2)
    if increases is not None and position is not None:
        index = np.arange(len(full))
        increases[done] = full[index, position][None] - log_proba[:, index, position]


def _by_structure(
    estimator: Any,
    part: pd.DataFrame,
    full: NDArray[np.float64],
    position: NDArray[np.intp] | None,
    evidence: NDArray[np.float64],
    *,
    increases: NDArray[np.float64] | None,
) -> NDArray[np.intp] | None:
    """For a kDB model or ensemble, fill ``evidence`` and ``increases`` of the rows
    with nothing missing from the model's structure
    (:func:`~discotree.models.summed_out.summed_out_log_posteriors`: the posteriors
    its predictions of the masked copies give, without them), in blocks of
    :data:`STRUCTURE_ROWS` rows, and return the other rows (None for other models:
    nothing done)."""
    model = getattr(estimator, "model_", None)
    if model is None or not supports_summed_out(model):
        return None
    codes = estimator.encoder_.transform(
        check_table(_as_input(estimator, part), type(estimator).__name__)
    )
    complete = np.flatnonzero(missing_values.complete_rows(codes))
    prior = np.asarray(estimator.class_log_prior_)
    for start in range(0, len(complete), STRUCTURE_ROWS):
        rows = complete[start : start + STRUCTURE_ROWS]
        log_proba = summed_out_log_posteriors(model, prior, codes[rows])
        labels = None if position is None else position[rows]
        some_evidence = np.empty((codes.shape[1], len(rows)))
        some_gains = None if increases is None else np.empty_like(some_evidence)
        _fill(full[rows], log_proba, labels, some_evidence, some_gains, done=slice(None))
        evidence[:, rows] = some_evidence
        if increases is not None and some_gains is not None:
            increases[:, rows] = some_gains
    return np.flatnonzero(np.any(missing_values.is_missing(codes), axis=1))


class SummedOutImportanceMixin:
    """``feature_importances_``: the mean evidence a feature moves when it is summed out
    (:func:`summed_out_importances`), on a sample of the training rows.

    ``fit`` keeps a seeded sample of at most ``discotree.get_config()["importance_rows"]``
    training rows (default 200; 0 keeps none) with their weights (not their labels); the
    importances are computed from it on first access (one prediction of sample size x
    features rows) and cached. The sample is part of the fitted state, so it travels in
    model files: set ``importance_rows=0`` before fitting a model whose file must hold
    no training rows.
    """

    @staticmethod
    def _importance_attributes(table: Any, y: Any, weights: Any) -> dict[str, Any]:
        """The fitted attributes of the sample, from the validated training rows (a
        :class:`~discotree.validation.Table`, labels and positive weights): a new
        cache, and the sample (None with ``importance_rows=0``)."""
        limit = int(get_config()["importance_rows"])
        if limit <= 0:
            return {"_importance_cache": {}, "_importance_sample": None}
        labels = np.asarray(y)
        weights = np.broadcast_to(
            np.ones(len(labels)) if weights is None else np.asarray(weights, dtype=np.float64),
            len(labels),
        )
        keep = np.arange(len(labels))
        if len(keep) > limit:
            keep = np.sort(np.random.default_rng(0).choice(keep, limit, replace=False))
        columns = [np.asarray(column)[keep] for column in table.columns]
        return {"_importance_cache": {}, "_importance_sample": (columns, weights[keep])}

    @property
    def feature_importances_(self) -> NDArray[np.float64]:
        """The mean evidence of each feature (nats): over a sample of at most
        ``importance_rows`` training rows (config, default 200), the mean over the
        classes of the absolute change of the centred log-posterior when the feature is
        summed out exactly (``evidence_mean`` of :func:`summed_out_importances`)."""
        cache = self.__dict__.get("_importance_cache")
        if cache is not None and "mean" in cache:
            return cache["mean"]
        sample = self.__dict__.get("_importance_sample", "unfitted")
        if cache is None or isinstance(sample, str):
            raise AttributeError(
                f"{type(self).__name__} has no feature_importances_: they are set by fit "
                "(not by partial_fit or a Dask fit, which keep no rows); compute them on "
                "labelled rows with discotree.importance.summed_out_importances(model, X, y)."
            )
        if sample is None:
            raise AttributeError(
                f"{type(self).__name__} has no feature_importances_: it was fitted with "
                "importance_rows=0 (no training rows kept); use "
                "discotree.importance.summed_out_importances(model, X, y)."
            )
        columns, weights = sample
        frame = pd.DataFrame(dict(enumerate(columns)))
        result = _importances(self, frame, None, np.asarray(weights, float)).evidence_mean
        cache["mean"] = result
        return result
