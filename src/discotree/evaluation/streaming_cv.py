"""Cross-validation of a file larger than memory, in batches (``compare --data --stream``).

Two passes over the file. The fold of each row is a hash of its feature values
(identical rows share a fold; deterministic; not stratified). Pass 1 feeds every batch's
rows outside fold k to the k-th model's ``partial_fit``; pass 2 predicts each batch's
rows of fold k with the k-th model. Memory: one batch and K models' counts.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
import pandas as pd
from sklearn.base import clone

from ..datasets.streaming import TableSource

__all__ = ["row_folds", "stream_cross_validate"]


def row_folds(X: pd.DataFrame, n_folds: int) -> np.ndarray:
    """Fold of every row from a hash of its values (pandas' fixed-key hash)."""
    hashes = pd.util.hash_pandas_object(X, index=False).to_numpy()
    return (hashes % np.uint64(n_folds)).astype(np.intp)


def stream_cross_validate(
    source: TableSource,
    target: str,
    estimators: dict[str, object],
    n_folds: int = 5,
    batch_rows: int = 100_000,
    progress: Callable[[int], None] | None = None,
) -> pd.DataFrame:
    """K-fold accuracy of each estimator (they must have ``partial_fit``) on the rows
    of ``source``, read twice in batches.

    Returns
    -------
    DataFrame
        One row per (model, fold): ``model``, ``fold``, ``accuracy``, ``n_test``,
        ``fit_seconds`` (the model's share of the first pass).
    """
    source.check_column(target)
    classes = source.labels(target)
    models = {name: [clone(e) for _ in range(n_folds)] for name, e in estimators.items()}
    fit_seconds = dict.fromkeys(estimators, 0.0)
    for X, y in source.batches(batch_rows, target=target):
        y = y.to_numpy()
        folds = row_folds(X, n_folds)
        for name, per_fold in models.items():
            start = time.perf_counter()
            for k, model in enumerate(per_fold):
                train = folds != k
                if train.any():
                    model.partial_fit(X[train], y[train], classes=classes)
            fit_seconds[name] += time.perf_counter() - start
        if progress is not None:
            progress(len(X))
    correct = {name: np.zeros(n_folds) for name in models}
    tested = np.zeros(n_folds)
    for X, y in source.batches(batch_rows, target=target):
        y = y.to_numpy()
        folds = row_folds(X, n_folds)
        for k in range(n_folds):
            test = folds == k
            if not test.any():
                continue
            tested[k] += test.sum()
            for name, per_fold in models.items():
                correct[name][k] += np.sum(per_fold[k].predict(X[test]) == y[test])
        if progress is not None:
            progress(len(X))
    rows = []
    for name in models:
        for k in range(n_folds):
            rows.append(
                {
                    "model": name,
                    "fold": k,
                    "accuracy": correct[name][k] / tested[k] if tested[k] else np.nan,
                    "n_test": int(tested[k]),
                    "fit_seconds": fit_seconds[name] / n_folds,
                }
            )
    return pd.DataFrame(rows)
