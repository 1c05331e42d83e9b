"""Classification metrics and paired significance tests over datasets."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy import stats

#: Label arrays: sequences or numpy arrays.
Labels = Sequence[Any] | np.ndarray

__all__ = [
    "accuracy",
    "balanced_error_rate",
    "error_rate",
    "mean_sd",
    "paired_t_test",
    "wilcoxon_test",
]


def accuracy(y_true: Labels, y_pred: Labels) -> float:
    """Share of correct predictions."""
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    return float(np.mean(y_true == y_pred))


def error_rate(y_true: Labels, y_pred: Labels) -> float:
    """Share of wrong predictions, ``1 - accuracy``."""
    return 1.0 - accuracy(y_true, y_pred)


def balanced_error_rate(y_true: Labels, y_pred: Labels) -> float:
    """Mean over the true classes of the error rate within each class."""
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    return float(np.mean([np.mean(y_pred[y_true == c] != c) for c in np.unique(y_true)]))


def mean_sd(values: Sequence[float] | np.ndarray) -> tuple[float, float]:
    """Mean and standard deviation (ddof=1; 0 for a single value)."""
    values = np.asarray(values, dtype=float)
    sd = float(np.std(values, ddof=1)) if len(values) > 1 else 0.0
    return float(np.mean(values)), sd


def _greater_p_value(test, a, b) -> float:
    """The p-value of the paired ``test`` (a SciPy test with ``alternative``) for "a is
    greater than b"; 1.0 when all differences are zero."""
    x, z = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if np.allclose(x - z, 0):
        return 1.0
    return float(test(x, z, alternative="greater").pvalue)


def paired_t_test(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> float:
    """One-sided paired t-test p-value for "a is greater than b" (e.g. accuracies).

    Returns 1.0 when all differences are zero.
    """
    return _greater_p_value(stats.ttest_rel, a, b)


def wilcoxon_test(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> float:
    """One-sided Wilcoxon signed-rank p-value for "a is greater than b".

    Returns 1.0 when all differences are zero.
    """
    return _greater_p_value(stats.wilcoxon, a, b)
