"""Scikit-learn compatible classifiers."""

from .boosting import BoostedGraphicalModelClassifier
from .chow_liu import ChowLiuClassifier
from .discriminative_tree import DiscriminativeTreeClassifier
from .naive_bayes import NaiveBayesClassifier
from .tan import TANClassifier

__all__ = [
    "BoostedGraphicalModelClassifier",
    "ChowLiuClassifier",
    "DiscriminativeTreeClassifier",
    "NaiveBayesClassifier",
    "TANClassifier",
]
