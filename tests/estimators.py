"""Estimators that several test modules run through their checks (new instances on
each call: a module's list never shares an instance with another's)."""

from __future__ import annotations

from sklearn.base import ClassifierMixin

from discotree import (
    AODEClassifier,
    ChowLiuClassifier,
    DiscriminativeTreeClassifier,
    EARTreeClassifier,
    NaiveBayesClassifier,
    TANClassifier,
)


def hdp_smoothed() -> list[ClassifierMixin]:
    """Each forest estimator and AnDE with ``smoothing="hdp"``, A2DE last.

    Returns
    -------
    list of estimators
        Unfitted, new on each call; the EAR tree with one permutation.

    Examples
    --------
    >>> [type(e).__name__ for e in hdp_smoothed()][-2:]
    ['AODEClassifier', 'AODEClassifier']
    """
    return [
        NaiveBayesClassifier(smoothing="hdp"),
        ChowLiuClassifier(smoothing="hdp"),
        TANClassifier(smoothing="hdp"),
        DiscriminativeTreeClassifier(smoothing="hdp"),
        EARTreeClassifier(smoothing="hdp", n_permutations=1),
        AODEClassifier(smoothing="hdp"),
        AODEClassifier(2, smoothing="hdp"),
    ]
