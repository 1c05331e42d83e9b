"""discotree: classifiers from graphical models whose structure is learned to discriminate.

The public names are imported on first use (PEP 562), so ``import discotree`` and the
command line's ``--help`` do not load scikit-learn, SciPy, pandas or numba until an
estimator is asked for.
"""

from __future__ import annotations

import importlib
import logging
from typing import TYPE_CHECKING, Any

from . import engine_registry as _engine_registry  # registers the engines it ships
from . import migrations as _migrations

_migrations.install()  # old imports and pickles name modules of earlier versions

__version__ = "0.1.0"

#: Public name -> the module that defines it.
_PUBLIC = {
    "AODEClassifier": "classifiers",
    "BoostedGraphicalModelClassifier": "classifiers",
    "ChowLiuClassifier": "classifiers",
    "DiscriminativeTreeClassifier": "classifiers",
    "EARTreeClassifier": "classifiers",
    "ForestDensityClassifier": "classifiers",
    "KDBClassifier": "classifiers",
    "KDBEnsembleClassifier": "classifiers",
    "KernelNaiveBayesClassifier": "classifiers",
    "NaiveBayesClassifier": "classifiers",
    "TANClassifier": "classifiers",
    "config_context": "config",
    "get_config": "config",
    "set_config": "config",
    "register_engine": "engine_registry",
    "GroupCost": "feature_selection",
    "SubmodularFeatureSelector": "feature_selection",
    "GaussianStatistics": "stats.gaussian",
    "PairStatistics": "stats.pair_statistics",
    "StatisticsSchema": "sufficient_statistics",
    "Discretizer": "transformers",
    "TableEncoder": "transformers",
    "is_dask_collection": "engine_registry",
}

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


def __getattr__(name: str) -> Any:
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'discotree' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # the next access is a plain lookup
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_PUBLIC})


if TYPE_CHECKING:  # the names as the type checkers and IDEs see them
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
    from .feature_selection import GroupCost, SubmodularFeatureSelector
    from .stats.gaussian import GaussianStatistics
    from .stats.pair_statistics import PairStatistics
    from .sufficient_statistics import StatisticsSchema
    from .transformers import Discretizer, TableEncoder

logging.getLogger(__name__).addHandler(logging.NullHandler())
del _engine_registry
