"""Evaluation protocols: each yields named train/test folds, deterministic given a seed."""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.model_selection import StratifiedKFold, train_test_split

__all__ = [
    "PROTOCOLS",
    "Fold",
    "cross_validation",
    "fixed_split",
    "learning_curve",
    "repeated_cross_validation",
]


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


def fixed_split(train: Sequence[int], test: Sequence[int]) -> Iterator[Fold]:
    """The given train/test split (e.g. the original split of a UCI set)."""
    yield Fold("split", np.asarray(train, dtype=np.intp), np.asarray(test, dtype=np.intp))


def learning_curve(
    y: Sequence,
    train_sizes: Sequence[int],
    n_repeats: int = 20,
    test_fraction: float = 0.2,
    seed: int = 0,
) -> Iterator[Fold]:
    """Repeated random partitions, training on the first L samples of each training part.

    For each repeat, the data are split once (stratified) into a training pool and a
    test part of ``test_fraction``; every training size L uses the first L rows of the
    shuffled pool, so the training sets of one repeat are nested.
    """
    labels = np.asarray(y)
    rows = np.arange(len(labels))
    for r in range(n_repeats):
        pool, test = train_test_split(
            rows, test_size=test_fraction, stratify=labels, random_state=seed + r
        )
        for size in train_sizes:
            if size > len(pool):
                raise ValueError(f"training size {size} exceeds the pool of {len(pool)} rows")
            yield Fold(f"L{size}-r{r}", pool[:size].astype(np.intp), test.astype(np.intp), size)


#: Protocols by the short names the command line accepts (``cvK`` is parsed too).
PROTOCOLS = {
    "cv5": lambda y, seed=0: cross_validation(y, 5, seed),
    "cv10": lambda y, seed=0: cross_validation(y, 10, seed),
    "10x10cv": lambda y, seed=0: repeated_cross_validation(y, 10, 10, seed),
}
