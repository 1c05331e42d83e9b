"""Everything that keeps old model files loading, in one place.

* :data:`FORMAT_VERSION`: the version every JSON model file is written with (its
  ``"version"`` field; a file of a newer version is refused).
* :data:`LEGACY_NAMES`: the class names that files written by earlier versions hold,
  and the class each names now (:mod:`discotree.stored_classes` names the current
  classes).
* :data:`UPGRADES` and :func:`upgrade`: the state of an object saved before some of its
  fields existed, as it was fitted then; applied by the JSON reader to every stored
  object, and by the estimators' ``__setstate__`` to pickles. An upgrade applies to the
  class it names and to its subclasses.

Adding a field to a stored class adds its default for older files here (one function,
one entry of :data:`UPGRADES`, one test in ``tests/io/test_migrations.py``); renaming or
moving a stored class adds its old name to :data:`LEGACY_NAMES`.

Examples
--------
>>> current_name("discotree.classifiers.boosting._Round")
'discotree.models.boosted_ensemble.BoostingRound'
>>> class LogisticModel:  # a stand-in of that name
...     __module__ = "discotree.models.logistic"
>>> sorted(upgrade(LogisticModel, {"coef": None}))
['coef', 'pair_levels', 'pairs']
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = ["FORMAT_VERSION", "LEGACY_NAMES", "UPGRADES", "current_name", "upgrade"]

#: The format version of the JSON model files written now.
FORMAT_VERSION = 1

#: Names of stored classes in files of earlier versions -> their current name.
LEGACY_NAMES = {
    # ForestPair: before it moved to its own module (session 6), before issue 30 gave
    # it a public name, and before the models layer
    "discotree.classifiers.discriminative_tree._ForestPair": (
        "discotree.models.forest_pairs.ForestPair"
    ),
    "discotree.classifiers._forest_pairs._ForestPair": "discotree.models.forest_pairs.ForestPair",
    "discotree.classifiers._forest_pairs.ForestPair": "discotree.models.forest_pairs.ForestPair",
    # before these classes had public names (issue 30) and moved to the models
    "discotree.classifiers._incremental._Stream": "discotree.classifiers._incremental.StreamState",
    "discotree.classifiers.boosting._Ensemble": "discotree.models.boosted_ensemble.BoostedEnsemble",
    "discotree.classifiers.boosting._Round": "discotree.models.boosted_ensemble.BoostingRound",
    "discotree.classifiers.boosting.BoostedEnsemble": (
        "discotree.models.boosted_ensemble.BoostedEnsemble"
    ),
    "discotree.classifiers.boosting.BoostingRound": (
        "discotree.models.boosted_ensemble.BoostingRound"
    ),
    "discotree.transformers.encoder._Column": "discotree.transformers.encoder.ColumnEncoding",
    # before the discrete statistics were split by what they hold
    "discotree.stats.discrete.PairStatistics": "discotree.stats.pair_statistics.PairStatistics",
}


def current_name(name: str) -> str:
    """The current name of the class a file names ``name``."""
    return LEGACY_NAMES.get(name, name)


def _calibration(state: dict) -> dict:
    """An estimator saved before its ``calibration`` parameter existed, as it was
    fitted then (uncalibrated scores)."""
    state.setdefault("calibration", "none")
    if "classes_" in state:
        state.setdefault("calibration_scale_", 1.0)
    return state


def _kdb_ensemble_estimator(state: dict) -> dict:
    """A kDB ensemble saved before ``linear_pairs``, ``pair_weight`` or
    ``pair_pooling`` existed, as it was fitted then (no pairs, no pair member, or one
    pooled linearly)."""
    state.setdefault("linear_pairs", 0)
    state.setdefault("pair_weight", 0.0)
    state.setdefault("pair_pooling", "linear")
    state.setdefault("pair_significance", None)  # (every pair, as fitted then)
    state.setdefault("pairs_per_column", None)
    return state


def _kdb_ensemble_model(state: dict) -> dict:
    """A kDB ensemble's model saved before pair members existed (none), or before their
    logarithmic pooling (linear, as they were then)."""
    state.setdefault("pair_member", None)
    state.setdefault("pair_weight", 0.0)
    state.setdefault("pair_pooling", "linear")
    return state


def _logistic_model(state: dict) -> dict:
    """A logistic model saved before pairs existed (none)."""
    state.setdefault("pairs", np.zeros((0, 2), dtype=np.intp))
    state.setdefault("pair_levels", [])
    return state


#: Class name -> the upgrade of its state (and of its subclasses').
UPGRADES: dict[str, Callable[[dict], dict]] = {
    "discotree.classifiers.discriminative_tree.DiscriminativeTreeClassifier": _calibration,
    "discotree.classifiers.boosting.BoostedGraphicalModelClassifier": _calibration,
    "discotree.classifiers.ensemble.KDBEnsembleClassifier": _kdb_ensemble_estimator,
    "discotree.models.ensemble.KDBEnsembleModel": _kdb_ensemble_model,
    "discotree.models.logistic.LogisticModel": _logistic_model,
}


def upgrade(cls: type, state: dict) -> dict:
    """``state`` of an object of ``cls`` saved by an earlier version, with every field
    added since at the value that reproduces its fit (each upgrade of a class in
    ``cls.__mro__``, once)."""
    done = set()
    for klass in cls.__mro__:
        step = UPGRADES.get(f"{klass.__module__}.{klass.__qualname__}")
        if step is not None and step not in done:
            state = step(state)
            done.add(step)
    return state
