"""Cross-validated comparison of classifiers (the engine of ``discotree compare``)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold

__all__ = ["CVResult", "cross_validate"]


@dataclass
class CVResult:
    """Per-fold accuracies and fit times of one classifier on one dataset."""

    dataset: str
    model: str
    accuracy: list[float] = field(default_factory=list)
    fit_seconds: list[float] = field(default_factory=list)

    @property
    def mean_accuracy(self) -> float:
        return float(np.mean(self.accuracy))

    @property
    def std_accuracy(self) -> float:
        return float(np.std(self.accuracy))

    @property
    def mean_fit_seconds(self) -> float:
        return float(np.mean(self.fit_seconds))


def cross_validate(
    X: pd.DataFrame,
    y: pd.Series,
    models: dict[str, object],
    *,
    dataset: str = "data",
    n_splits: int = 5,
    random_state: int | None = 0,
    on_fold: Callable[[], None] | None = None,
) -> list[CVResult]:
    """Stratified k-fold CV of every model on the same folds.

    Parameters
    ----------
    X, y : DataFrame and Series
    models : dict name -> unfitted estimator (cloned for each fold)
    dataset : str
        Name stored in the results.
    n_splits : int, default=5
    random_state : int or None, default=0
        Seed of the fold shuffling.
    on_fold : callable, optional
        Called after each (model, fold) fit, e.g. to advance a progress bar.

    Returns
    -------
    list of CVResult, one per model, in the order of ``models``.

    Raises
    ------
    ValueError
        If a class has fewer members than ``n_splits``.
    """
    y = pd.Series(y).reset_index(drop=True)
    X = X.reset_index(drop=True)
    counts = y.value_counts()
    if counts.min() < n_splits:
        raise ValueError(
            f"{dataset}: class {counts.idxmin()!r} has {counts.min()} samples, fewer than "
            f"the {n_splits} folds"
        )
    folds = list(
        StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=random_state).split(X, y)
    )
    results = []
    for name, estimator in models.items():
        result = CVResult(dataset, name)
        for train, test in folds:
            model = clone(estimator)
            start = time.perf_counter()
            model.fit(X.iloc[train], y.iloc[train])
            result.fit_seconds.append(time.perf_counter() - start)
            result.accuracy.append(float(model.score(X.iloc[test], y.iloc[test])))
            if on_fold is not None:
                on_fold()
        results.append(result)
    return results


def n_fits(models: Iterable[str], datasets: Iterable[str], n_splits: int) -> int:
    """Number of fits a comparison makes (for progress bars)."""
    return len(list(models)) * len(list(datasets)) * n_splits
