"""Stratified cross-validation folds, named and deterministic given a seed: the folds of
``discotree compare`` (the reproductions' protocols build on them)."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.model_selection import StratifiedKFold

__all__ = ["Fold", "cross_validation", "repeated_cross_validation"]


@dataclass(frozen=True)
class Fold:
    """One evaluation: a name that identifies it in caches and reports, and the rows."""

    key: str
    train: NDArray[np.intp]
    test: NDArray[np.intp]
    train_size: int | None = None  # the nominal training size of a learning curve


def cross_validation(y: ArrayLike, n_splits: int = 5, seed: int = 0) -> Iterator[Fold]:
    """Stratified k-fold cross-validation with shuffling."""
    yield from repeated_cross_validation(y, n_splits, 1, seed)


def repeated_cross_validation(
    y: ArrayLike, n_splits: int = 10, n_repeats: int = 10, seed: int = 0
) -> Iterator[Fold]:
    """``n_repeats`` stratified k-fold partitions, repeat r seeded with ``seed + r``.

    A class with fewer members than ``n_splits`` is spread over as many folds as it has
    members (scikit-learn's behaviour, without its warning).

    Raises
    ------
    ValueError
        If there are fewer samples than folds.
    """
    labels = np.asarray(y)
    if len(labels) < n_splits:
        raise ValueError(f"{len(labels)} samples cannot be split into {n_splits} folds")
    placeholder = np.zeros(len(labels))
    for r in range(n_repeats):
        splitter = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=seed + r)
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "The least populated class", UserWarning)
            splits = list(splitter.split(placeholder, labels))
        for f, (train, test) in enumerate(splits):
            yield Fold(f"r{r}-f{f}", train.astype(np.intp), test.astype(np.intp))
