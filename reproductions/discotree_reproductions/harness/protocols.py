"""Evaluation protocols: each yields named train/test folds, deterministic given a seed.

Stratified (repeated) cross-validation is discotree's own
(:mod:`discotree.evaluation.splits`, the folds of ``discotree compare``); the fixed splits
and learning curves of the papers are added here.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np
from sklearn.model_selection import train_test_split

from discotree.evaluation import Fold, cross_validation, repeated_cross_validation

__all__ = [
    "PROTOCOLS",
    "Fold",
    "cross_validation",
    "fixed_split",
    "learning_curve",
    "repeated_cross_validation",
]


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
