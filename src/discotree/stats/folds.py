"""The folds of every cross-validation the library runs itself: weight-equivalent.

A row of weight k and its k repeated copies must be held out together, or a weighted
fit and the fit on repeated rows would see different folds and choose differently
(scikit-learn's ``check_sample_weight_equivalence``). The folds therefore come from a
hash of each row's codes (:func:`content_folds`): identical rows, identical folds, with
no list of the rows needed (the Dask engine assigns the folds partition by partition).
The alpha and calibration cross-validations, the number of boosting rounds
(``n_estimators_cv``) use them; :func:`fold_splits` turns them into (train, test)
index pairs.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["content_folds", "fold_splits", "row_hashes"]

_GOLDEN = 0x9E3779B97F4A7C15


def _mix(h: NDArray[np.uint64]) -> NDArray[np.uint64]:
    """splitmix64's finaliser, in place."""
    with np.errstate(over="ignore"):
        h ^= h >> np.uint64(33)
        h *= np.uint64(0xFF51AFD7ED558CCD)
        h ^= h >> np.uint64(33)
        h *= np.uint64(0xC4CEB9FE1A85EC53)
        h ^= h >> np.uint64(33)
    return h


def row_hashes(codes: NDArray[np.integer]) -> NDArray[np.uint64]:
    """A 64-bit hash of each row's codes (FNV-1a over the columns, then splitmix64
    mixing): identical rows, identical hashes.

    Examples
    --------
    >>> hashes = row_hashes(np.array([[0, 1], [0, 1], [1, 0]]))
    >>> bool(hashes[0] == hashes[1]), bool(hashes[0] == hashes[2])
    (True, False)
    """
    n = len(codes)
    h = np.full(n, 0xCBF29CE484222325, dtype=np.uint64)
    prime = np.uint64(0x100000001B3)
    with np.errstate(over="ignore"):
        for j in range(codes.shape[1]):
            h = (h ^ (codes[:, j].astype(np.int64) + 2).astype(np.uint64)) * prime
    return _mix(h)


def content_folds(codes: NDArray[np.integer], n_folds: int, seed: int = 0) -> NDArray[np.intp]:
    """Fold of every row from a hash of its features' codes (not its class, so renaming
    the classes changes no fold).

    Identical rows share a fold, so a row of weight k and its k repeated copies are
    held out together: a weighted fit and the fit on repeated rows see the same folds
    and choose the same alpha (and duplicated rows never sit on both sides of a split).
    Deterministic; ``seed`` (0: the folds of the alpha cross-validation) draws another
    assignment, as a random state shuffles scikit-learn's folds. The classes are spread
    over the folds as by a random assignment (not exactly stratified: a class with a
    few distinct rows can be missing from a fold).

    Examples
    --------
    >>> codes = np.array([[0, 1], [0, 1], [2, 0]])
    >>> folds = content_folds(codes, 5)
    >>> bool(folds[0] == folds[1])
    True
    """
    hashes = row_hashes(codes)
    if seed:
        with np.errstate(over="ignore"):
            salt = np.uint64((int(seed) * _GOLDEN + 1) % 2**64)
        hashes = _mix(hashes ^ salt)
    return (hashes % np.uint64(n_folds)).astype(np.intp)


def fold_splits(
    folds: NDArray[np.intp], n_folds: int
) -> list[tuple[NDArray[np.intp], NDArray[np.intp]]]:
    """The (train, test) row indices of each fold, as scikit-learn's splitters give.

    Examples
    --------
    >>> [(train.tolist(), test.tolist()) for train, test in fold_splits(np.array([0, 1, 0]), 2)]
    [([1], [0, 2]), ([0, 2], [1])]
    """
    return [(np.flatnonzero(folds != k), np.flatnonzero(folds == k)) for k in range(n_folds)]
