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
* :data:`LEGACY_MODULES`: modules of earlier versions, which old imports and pickles
  name; ``import discotree`` installs an import hook (:func:`install`) that builds each
  from the modules that hold its names now, so no file of the package is kept for
  them. A module whose classes had other names answers those
  (:func:`legacy_attribute`).

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

import importlib
import importlib.abc
import importlib.util
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any

__all__ = [
    "FORMAT_VERSION",
    "LEGACY_MODULES",
    "LEGACY_NAMES",
    "UPGRADES",
    "current_name",
    "install",
    "legacy_attribute",
    "register_upgrade",
    "upgrade",
]

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
    pooled linearly); the move of its flat member parameters into ``estimator`` is
    registered by the estimator's module (:func:`register_upgrade`), which knows the
    template's class."""
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
    import numpy as np  # (here: ``import discotree`` loads no numpy)

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


def register_upgrade(name: str, step: Callable[[dict], dict]) -> None:
    """Add ``step`` after the upgrades of the class named ``name`` (its module and
    qualified name): for an upgrade that needs a class of a layer above this module,
    registered by that class's module when it is imported.

    Examples
    --------
    >>> register_upgrade("example.Thing", lambda state: {**state, "new": 0})
    >>> upgrade(type("Thing", (), {"__module__": "example"}), {})
    {'new': 0}
    >>> del UPGRADES["example.Thing"]
    """
    before = UPGRADES.get(name)
    UPGRADES[name] = step if before is None else (lambda state: step(before(state)))


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


#: Modules of earlier versions -> (module, names) whose names they held (``None``:
#: every name of that module's ``__all__``); the classes LEGACY_NAMES names in them
#: are there too (not in ``__all__``).
LEGACY_MODULES: dict[str, tuple[tuple[str, tuple[str, ...] | None], ...]] = {
    # before forest pairs moved to the models (issue 30)
    "discotree.classifiers._forest_pairs": (("discotree.models.forest_pairs", None),),
    # before the networks moved to the models
    "discotree.io.networks": (("discotree.models.networks", None),),
    # before alpha selection was named for what it does
    "discotree.stats.smoothing": (("discotree.stats.alpha_selection", None),),
    # before the discrete statistics were split by what they hold
    "discotree.stats.discrete": (
        ("discotree.stats.dirichlet", ("PRIORS", "cell_pseudo_count", "check_smoothing",
                                       "smoothed_conditional")),
        ("discotree.stats.information", ("conditional_mutual_information", "entropy",
                                         "j_divergence", "kl_divergence",
                                         "mutual_information")),
        ("discotree.stats.pair_statistics", ("category_index_map",
                                             "class_univariate_counts")),
    ),
}  # fmt: skip


def _resolve(name: str) -> Any:
    module, _, attribute = name.rpartition(".")
    return getattr(importlib.import_module(module), attribute)


def legacy_attribute(module: str, name: str) -> Any:
    """The object ``module.name`` named in an earlier version (:data:`LEGACY_NAMES`): a
    module's ``__getattr__``, for the pickles that name its classes so.

    Raises
    ------
    AttributeError
        When ``module.name`` is no earlier name.
    """
    new = LEGACY_NAMES.get(f"{module}.{name}")
    if new is None:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    return _resolve(new)


class _LegacyModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Builds the modules of :data:`LEGACY_MODULES` when they are imported."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname not in LEGACY_MODULES:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: Any) -> None:
        return None  # the default module

    def exec_module(self, module: ModuleType) -> None:
        names: list[str] = []
        for source, listed in LEGACY_MODULES[module.__name__]:
            held = importlib.import_module(source)
            for name in held.__all__ if listed is None else listed:
                setattr(module, name, getattr(held, name))
                names.append(name)
        for old, new in LEGACY_NAMES.items():
            where, _, attribute = old.rpartition(".")
            if where == module.__name__:
                setattr(module, attribute, _resolve(new))
        module.__all__ = names  # type: ignore[attr-defined]
        module.__doc__ = (
            "A module of an earlier version, built for old imports and pickles from "
            "where its names are now (discotree.migrations.LEGACY_MODULES)."
        )


def install() -> None:
    """Let the modules of :data:`LEGACY_MODULES` be imported (once per process)."""
    if not any(isinstance(finder, _LegacyModules) for finder in sys.meta_path):
        sys.meta_path.append(_LegacyModules())
