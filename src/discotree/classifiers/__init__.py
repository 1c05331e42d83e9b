"""Scikit-learn compatible classifiers."""

from .chow_liu import ChowLiuClassifier
from .naive_bayes import NaiveBayesClassifier
from .tan import TANClassifier

__all__ = ["ChowLiuClassifier", "NaiveBayesClassifier", "TANClassifier"]
