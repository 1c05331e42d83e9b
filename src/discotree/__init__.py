"""discotree: classifiers from graphical models whose structure is learned to discriminate."""

import logging

from .classifiers import (
    AODEClassifier,
    BoostedGraphicalModelClassifier,
    ChowLiuClassifier,
    DiscriminativeTreeClassifier,
    EARTreeClassifier,
    ForestDensityClassifier,
    KDBClassifier,
    KDBEnsembleClassifier,
    KernelNaiveBayesClassifier,
    NaiveBayesClassifier,
    TANClassifier,
)
from .config import config_context, get_config, set_config
from .engine_registry import register_engine
from .feature_selection import GroupCost, SubmodularFeatureSelector
from .stats.gaussian import GaussianStatistics
from .stats.pair_statistics import PairStatistics
from .sufficient_statistics import StatisticsSchema
from .transformers import Discretizer, TableEncoder
from .validation import is_dask_collection

__version__ = "0.1.0"
__all__ = [
    "AODEClassifier",
    "BoostedGraphicalModelClassifier",
    "ChowLiuClassifier",
    "Discretizer",
    "DiscriminativeTreeClassifier",
    "EARTreeClassifier",
    "ForestDensityClassifier",
    "GaussianStatistics",
    "GroupCost",
    "KDBClassifier",
    "KDBEnsembleClassifier",
    "KernelNaiveBayesClassifier",
    "NaiveBayesClassifier",
    "PairStatistics",
    "StatisticsSchema",
    "SubmodularFeatureSelector",
    "TANClassifier",
    "TableEncoder",
    "__version__",
    "config_context",
    "get_config",
    "set_config",
]

logging.getLogger(__name__).addHandler(logging.NullHandler())

# The engines shipped with the package, imported only when their input arrives.
register_engine(
    "dask",
    is_dask_collection,
    fit="discotree.engines.dask_engine:fit_dask",
    predict="discotree.engines.dask_engine:predict_dask",
    fit_boosted="discotree.engines.dask_boosting:fit_boosted_dask",
)
