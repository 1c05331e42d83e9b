"""Small synthetic data sets that several test modules share (the same generator, the
same draws: a module's data does not change by coming from here)."""

from __future__ import annotations

import numpy as np


def chained_codes(rng, n, *, n_classes, n_values, follow, missing):
    """Discrete data where feature 0 follows the class and feature 1 follows feature 0.

    Parameters
    ----------
    rng : numpy.random.Generator
        The draws, in this order: the class, the codes, the two copies, the missing cells.
    n : int
        The number of rows.
    n_classes, n_values : int
        The classes of ``y`` and the values of each of the 5 features of ``X``.
    follow : tuple of float
        The probabilities that feature 0 copies the class and feature 1 copies feature 0.
    missing : float
        The expected fraction of the cells of ``X`` that are NaN.

    Returns
    -------
    X : ndarray of shape (n, 5), float
    y : ndarray of shape (n,), int

    Examples
    --------
    >>> X, y = chained_codes(np.random.default_rng(0), 6, n_classes=2, n_values=3,
    ...                      follow=(1.0, 1.0), missing=0.0)
    >>> bool(np.all(X[:, 0] == y) and np.all(X[:, 1] == y))
    True
    """
    y = rng.integers(0, n_classes, n)
    X = rng.integers(0, n_values, (n, 5)).astype(float)
    X[:, 0] = np.where(rng.random(n) < follow[0], y, X[:, 0])
    X[:, 1] = np.where(rng.random(n) < follow[1], X[:, 0], X[:, 1])
    X[rng.random(X.shape) < missing] = np.nan
    return X, y


def coded_rows(rng, n_categories, n, *, missing, n_classes=3, weight_floor=0.0):
    """Random rows of codes with missing values, their classes and weights.

    Parameters
    ----------
    rng : numpy.random.Generator
        The draws, in this order: the codes column by column, the missing cells, the
        classes, the weights.
    n_categories : array of int
        The categories of each feature.
    n : int
        The number of rows.
    missing : float
        The expected fraction of the codes that are -1.
    n_classes : int
        The classes.
    weight_floor : float
        Added to weights uniform on [0, 1).

    Returns
    -------
    codes : ndarray of shape (n, len(n_categories)), int
    y : ndarray of shape (n,), int
    weights : ndarray of shape (n,), float

    Examples
    --------
    >>> codes, y, w = coded_rows(np.random.default_rng(0), [2, 3], 50, missing=0.0)
    >>> codes.shape, int(codes.max()), bool(w.min() >= 0)
    ((50, 2), 2, True)
    """
    codes = np.column_stack([rng.integers(0, r, n) for r in n_categories])
    codes[rng.random(codes.shape) < missing] = -1
    y = rng.integers(0, n_classes, n)
    return codes, y, rng.random(n) + weight_floor
