"""Scikit-learn compatible classifiers."""

# parts of fitted estimators that model files name (not estimators themselves)
from ..models.forest_pairs import ForestPair as ForestPair
from ._incremental import StreamState as StreamState
from .averaged_dependence import AODEClassifier
from .boosting import BoostedGraphicalModelClassifier
from .chow_liu import ChowLiuClassifier
from .discriminative_tree import DiscriminativeTreeClassifier
from .ear_tree import EARTreeClassifier
from .ensemble import KDBEnsembleClassifier
from .forest_density import ForestDensityClassifier
from .k_dependence import KDBClassifier
from .kernel_naive_bayes import KernelNaiveBayesClassifier
from .naive_bayes import NaiveBayesClassifier
from .tan import TANClassifier

__all__ = [
    "AODEClassifier",
    "BoostedGraphicalModelClassifier",
    "ChowLiuClassifier",
    "DiscriminativeTreeClassifier",
    "EARTreeClassifier",
    "ForestDensityClassifier",
    "KDBClassifier",
    "KDBEnsembleClassifier",
    "KernelNaiveBayesClassifier",
    "NaiveBayesClassifier",
    "TANClassifier",
]
