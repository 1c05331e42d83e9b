"""Estimators that several test modules run through their checks (new instances on
each call: a module's list never shares an instance with another's)."""

from __future__ import annotations

from sklearn.base import ClassifierMixin

from discotree import (
    AODEClassifier,
    BoostedGraphicalModelClassifier,
    ChowLiuClassifier,
    DiscriminativeTreeClassifier,
    EARTreeClassifier,
    KDBClassifier,
    NaiveBayesClassifier,
    TANClassifier,
)


def discrete_families() -> list[ClassifierMixin]:
    """One discrete estimator of each family at its defaults (TAN with k = 1 and 2, the
    boosted pairs with 2 rounds): naive Bayes, TAN, Chow-Liu, the discriminative tree
    pairs, their boosting, kDB and A1DE.

    Returns
    -------
    list of estimators
        Unfitted, new on each call.

    Examples
    --------
    >>> len(discrete_families())
    8
    """
    return [
        NaiveBayesClassifier(),
        TANClassifier(),
        TANClassifier(k=2),
        ChowLiuClassifier(),
        DiscriminativeTreeClassifier(),
        BoostedGraphicalModelClassifier(n_estimators=2),
        KDBClassifier(),
        AODEClassifier(),
    ]


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
