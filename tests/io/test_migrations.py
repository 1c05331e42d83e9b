"""Old model files keep loading: one test per entry of :mod:`discotree.migrations`
(the estimators' own files of earlier versions are in ``test_json_model.py`` and
``test_model_file_checks.py``), and the registry of storable classes."""

import importlib
import json
import pickle
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone
from sklearn.datasets import load_iris

from discotree import (
    BoostedGraphicalModelClassifier,
    DiscriminativeTreeClassifier,
    KDBClassifier,
    KDBEnsembleClassifier,
    TANClassifier,
)
from discotree.classifiers.ensemble import KDB_ENSEMBLE_MEMBER_PARAMETERS
from discotree.io.json_model import dumps, loads
from discotree.migrations import (
    LEGACY_MODULES,
    LEGACY_NAMES,
    UPGRADES,
    current_name,
    upgrade,
)
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


FIXTURES = Path(__file__).parent / "fixtures"


def test_an_ensemble_file_of_flat_member_parameters_loads_and_predicts_as_before():
    """A model file written before ``estimator=`` (its flat ``k``, ``smoothing``,
    ``selection_loss``, ``alpha``, ``epsilon``; written by the code of then, commit
    bc27696) loads with them in the template, predicts what it did (to the bit until
    the posteriors' log-sum-exp left scipy's for ``numerics.log_sum_exp``: now to the
    last two bits), and refits to the same model."""
    text = (FIXTURES / "kdb_ensemble_flat_params.json").read_text()
    assert '["k",2]' in text and '"estimator"' not in text
    expected = json.loads((FIXTURES / "kdb_ensemble_flat_params_expected.json").read_text())
    rows = np.array(expected["rows"])
    proba = np.array([[float.fromhex(v) for v in row] for row in expected["proba"]])
    loaded = loads(text)
    assert_allclose(loaded.predict_proba(rows), proba, rtol=1e-14, atol=1e-17)
    members = loaded.estimator
    assert isinstance(members, KDBClassifier)
    assert (
        members.get_params()
        == KDBClassifier(
            2, smoothing="dirichlet", selection_loss="log_loss", alpha=0.5, epsilon=1e-4
        ).get_params()
    )
    assert not {"k", "smoothing", "selection_loss", "alpha", "epsilon"} & set(vars(loaded))
    X, y = load_iris(return_X_y=True)  # (what the file was fitted on)
    # refitted, the same model: its logistic members stop where today's L-BFGS (40
    # corrections, the file's 10) reaches the same gradient tolerance
    assert_allclose(clone(loaded).fit(X, y).predict_proba(rows), proba, rtol=0, atol=1e-5)


def _flat_state(model, members):
    """``model``'s state as an estimator of before ``estimator=`` held it."""
    state = dict(model.__getstate__())
    del state["estimator"]
    return {**state, **members}


def test_pickles_of_ensembles_with_flat_member_parameters_load_as_they_were(rng):
    X, y = _data(rng)
    members = KDBClassifier(1, smoothing="dirichlet", alpha=0.3)
    model = KDBEnsembleClassifier(n_estimators=2, estimator=members).fit(X, y)
    flat = {"k": 1, "smoothing": "dirichlet", "selection_loss": "rmse"}
    back = object.__new__(KDBEnsembleClassifier)
    back.__setstate__(_flat_state(model, {**flat, "alpha": 0.3, "epsilon": 1e-5}))
    assert back.estimator.get_params() == members.get_params()
    assert_array_equal(back.predict_proba(X), model.predict_proba(X))
    assert_array_equal(pickle.loads(pickle.dumps(back)).predict_proba(X), model.predict_proba(X))
    # the defaults of then are estimator=None now
    default = KDBEnsembleClassifier(n_estimators=2).fit(X, y)
    then = {**KDB_ENSEMBLE_MEMBER_PARAMETERS}
    back = object.__new__(KDBEnsembleClassifier)
    back.__setstate__(_flat_state(default, then))
    assert back.estimator is None and back.get_params() == default.get_params()
    assert_array_equal(back.predict_proba(X), default.predict_proba(X))


def test_a_pickle_written_before_estimator_loads_and_predicts_as_refitted_now():
    """A pickle of ``KDBEnsembleClassifier(n_estimators=3, k=1, smoothing="dirichlet",
    alpha=0.3)`` fitted on iris by the code of before ``estimator=`` (commit bc27696;
    scikit-learn promises no pickles across versions, discotree upgrades its state as
    the JSON reader does) predicts what that configuration fitted now predicts."""
    old = pickle.loads((FIXTURES / "kdb_ensemble_flat_params.pkl").read_bytes())
    members = KDBClassifier(1, smoothing="dirichlet", alpha=0.3)
    assert old.estimator.get_params() == members.get_params()
    X, y = load_iris(return_X_y=True)
    now = KDBEnsembleClassifier(n_estimators=3, estimator=members).fit(X, y)
    # (the logistic members to the same tolerance by today's L-BFGS, 40 corrections)
    assert_allclose(old.predict_proba(X), now.predict_proba(X), rtol=0, atol=1e-5)
