"""Old model files keep loading: one test per entry of :mod:`discotree.migrations`
(the estimators' own files of earlier versions are in ``test_json_model.py`` and
``test_model_file_checks.py``), and the registry of storable classes."""

import importlib
import json
import pickle

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_array_equal
from sklearn.base import clone

from discotree import (
    BoostedGraphicalModelClassifier,
    DiscriminativeTreeClassifier,
    KDBEnsembleClassifier,
    TANClassifier,
)
from discotree.io.json_model import dumps, loads
from discotree.migrations import LEGACY_MODULES, LEGACY_NAMES, UPGRADES, current_name, upgrade
from discotree.stored_classes import stored_classes

#: The classes the JSON reader accepted from a hand-kept list before the registry.
FORMER_ALLOWLIST = {
    "discotree.classifiers.naive_bayes.NaiveBayesClassifier",
    "discotree.classifiers.chow_liu.ChowLiuClassifier",
    "discotree.classifiers.tan.TANClassifier",
    "discotree.classifiers.discriminative_tree.DiscriminativeTreeClassifier",
    "discotree.classifiers.boosting.BoostedGraphicalModelClassifier",
    "discotree.classifiers.ear_tree.EARTreeClassifier",
    "discotree.classifiers.k_dependence.KDBClassifier",
    "discotree.classifiers.averaged_dependence.AODEClassifier",
    "discotree.classifiers.ensemble.KDBEnsembleClassifier",
    "discotree.transformers.encoder.TableEncoder",
    "discotree.transformers.encoder.NumericEncoder",
    "discotree.transformers.encoder.ColumnEncoding",
    "discotree.transformers.discretizer.Discretizer",
    "discotree.models.discrete_forest.DiscreteForestModel",
    "discotree.models.bayes_net.BayesNetModel",
    "discotree.models.gaussian_forest.GaussianForestModel",
    "discotree.models.k_dependence.KDependenceModel",
    "discotree.models.averaged_dependence.AveragedOneDependenceModel",
    "discotree.models.averaged_dependence.AveragedTwoDependenceModel",
    "discotree.models.ensemble.KDBEnsembleModel",
    "discotree.models.logistic.LogisticModel",
    "discotree.stats.family_tables.SparseFamilyTable",
    "discotree.stats.pair_statistics.PairStatistics",
    "discotree.stats.gaussian.GaussianStatistics",
    "discotree.structure.discriminative.ForestPath",
    "discotree.models.forest_pairs.ForestPair",
    "discotree.models.lgmht_altmax.AltmaxResult",
    "discotree.models.boosted_ensemble.BoostedEnsemble",
    "discotree.models.boosted_ensemble.BoostingRound",
    "discotree.structure.ear.EARSplit",
    "discotree.structure.ear.EARTree",
    "discotree.sufficient_statistics.StatisticsSchema",
    "discotree.classifiers._incremental.StreamState",
}


def _data(rng, n=200):
    X = pd.DataFrame({"colour": rng.choice(["red", "blue"], n), "height": rng.normal(size=n)})
    y = np.where((X["colour"] == "red") ^ (X["height"] > 0), "yes", "no")
    return X, y


def test_the_registry_holds_every_class_of_the_former_allowlist():
    loads(dumps({}))  # the reader imports every estimator, and so every stored class
    names = stored_classes()
    assert FORMER_ALLOWLIST <= set(names)
    assert all(name.startswith("discotree.") for name in names)
    assert all(f"{c.__module__}.{c.__qualname__}" == name for name, c in names.items())


@pytest.mark.parametrize("old", sorted(LEGACY_NAMES))
def test_files_naming_a_class_by_an_earlier_name_load(rng, old):
    new = current_name(old)
    assert new in stored_classes() or new in FORMER_ALLOWLIST
    X, y = _data(rng)
    models = [
        DiscriminativeTreeClassifier(alpha=1.0).fit(X, y),
        BoostedGraphicalModelClassifier(n_estimators=2, alpha=1.0).fit(X, y),
        TANClassifier(alpha=1.0).partial_fit(X, y, classes=["no", "yes"]),
    ]
    model = next(m for m in models if f'"{new}"' in dumps(m))
    text = dumps(model).replace(f'"{new}"', f'"{old}"')
    assert f'"{old}"' in text
    assert_array_equal(loads(text).predict_proba(X), model.predict_proba(X))


def _without(model, fields):
    document = json.loads(dumps(model))
    state = document["content"]["state"]
    state["__dict__"] = [p for p in state["__dict__"] if p[0] not in fields]
    return loads(json.dumps(document))


def test_boosted_models_saved_before_calibration_load_as_they_were(rng):
    X, y = _data(rng)
    model = BoostedGraphicalModelClassifier(n_estimators=2, alpha=1.0, calibration="none")
    model.fit(X, y)
    back = _without(model, ("calibration", "calibration_scale_"))
    assert back.calibration == "none" and back.calibration_scale_ == 1.0
    assert_array_equal(back.predict_proba(X), model.predict_proba(X))


@pytest.mark.parametrize(
    "estimator",
    [DiscriminativeTreeClassifier(alpha=1.0, calibration="none"),
     BoostedGraphicalModelClassifier(n_estimators=2, alpha=1.0, calibration="none")],
)  # fmt: skip
def test_pickles_saved_before_calibration_load_as_they_were(rng, estimator):
    X, y = _data(rng)
    model = clone(estimator).fit(X, y)
    state = dict(model.__getstate__())
    del state["calibration"], state["calibration_scale_"]
    back = object.__new__(type(model))
    back.__setstate__(state)  # what unpickling calls
    assert back.calibration == "none" and back.calibration_scale_ == 1.0
    assert_array_equal(back.predict_proba(X), model.predict_proba(X))


def test_every_upgrade_names_a_stored_class_and_applies_to_its_subclasses():
    loads(dumps({}))
    names = stored_classes()
    assert set(UPGRADES) <= set(names)

    class Mine(KDBEnsembleClassifier):
        pass

    state = upgrade(Mine, {})
    assert state["pair_pooling"] == "linear" and state["linear_pairs"] == 0
    assert upgrade(TANClassifier, {}) == {}  # nothing to upgrade


@pytest.mark.parametrize("old", sorted(LEGACY_MODULES))
def test_modules_of_earlier_versions_still_import(old):
    module = importlib.import_module(old)
    for source, listed in LEGACY_MODULES[old]:
        held = importlib.import_module(source)
        for name in held.__all__ if listed is None else listed:
            assert getattr(module, name) is getattr(held, name)
            assert name in module.__all__


@pytest.mark.parametrize("old", sorted(LEGACY_NAMES))
def test_pickles_naming_a_class_by_an_earlier_name_load(rng, old):
    new = current_name(old)
    X, y = _data(rng)
    models = [
        DiscriminativeTreeClassifier(alpha=1.0).fit(X, y),
        BoostedGraphicalModelClassifier(n_estimators=2, alpha=1.0).fit(X, y),
        TANClassifier(alpha=1.0).partial_fit(X, y, classes=["no", "yes"]),
    ]
    module, _, name = new.rpartition(".")
    global_new = f"c{module}\n{name}\n".encode()
    model = next(m for m in models if global_new in pickle.dumps(m, protocol=0))
    old_module, _, old_name = old.rpartition(".")
    text = pickle.dumps(model, protocol=0).replace(
        global_new, f"c{old_module}\n{old_name}\n".encode()
    )
    assert_array_equal(pickle.loads(text).predict_proba(X), model.predict_proba(X))
