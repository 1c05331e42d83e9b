"""The checks every stored class owns (:mod:`discotree.stored_checks`): the base's
defaults, and every class a model file may hold that has numbers or shapes to check
derives from it, so that the reader (which only walks and calls) misses none."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

import discotree.classifiers  # noqa: F401  (registers every stored class)
from discotree.classifiers.file_checks import EstimatorFileChecks
from discotree.stored_checks import CheckedState, check_counts, fail, integer, numbers
from discotree.stored_classes import stored_classes


@dataclass
class _Weights(CheckedState):
    _NUMBER_FIELDS = ("values", "scale")

    values: list
    scale: float


def test_the_base_checks_the_declared_number_fields():
    _Weights([np.array([1.0, 2.0]), 3.0], 1.0).check("w")
    with pytest.raises(ValueError, match=r"^w\.values\[1\]: holds nan"):
        _Weights([np.zeros(2), float("nan")], 1.0).check("w")
    with pytest.raises(ValueError, match=r"^w\.scale: holds inf"):
        _Weights([], float("inf")).check_numbers("w")
    _Weights([], float("inf")).check_structure("w")  # no structure declared: passes


def test_the_helpers_name_the_field():
    assert numbers(np.array([1, 2]), "x").dtype == np.float64
    with pytest.raises(ValueError, match=r"^x: holds -1\.0 at \[0\]"):
        numbers(np.array([-1.0]), "x", low=0.0)
    assert integer(3, "k", 0, 4) == 3
    with pytest.raises(ValueError, match=r"^k: must be an integer in \[0, 3\)"):
        integer(True, "k", 0, 3)
    with pytest.raises(ValueError, match=r"^n: must be a 1-D array of category counts"):
        check_counts(np.array([2, 0]), "n")
    assert str(fail("a.b", "why")) == "a.b: why"


def test_the_stored_classes_with_checks_own_them():
    """Every stored class that the reader used to check from a table in ``io/`` now
    checks itself (its ``check_numbers``, or its ``check_structure``; an estimator the
    state of its attributes, from its class data)."""
    estimators = {
        "discotree.classifiers.naive_bayes.NaiveBayesClassifier",
        "discotree.classifiers.tan.TANClassifier",
        "discotree.classifiers.discriminative_tree.DiscriminativeTreeClassifier",
        "discotree.classifiers.boosting.BoostedGraphicalModelClassifier",
    }
    owners = {
        "discotree.classifiers._incremental.StreamState",
        "discotree.transformers.encoder.TableEncoder",
        "discotree.transformers.encoder.NumericEncoder",
        "discotree.transformers.discretizer.Discretizer",
        "discotree.stats.family_tables.SparseFamilyTable",
        "discotree.stats.pair_statistics.PairStatistics",
        "discotree.stats.gaussian.GaussianStatistics",
        "discotree.structure.discriminative.ForestPath",
        "discotree.models.forest_pairs.ForestPair",
        "discotree.models.boosted_ensemble.BoostingRound",
        "discotree.models.boosted_ensemble.BoostedEnsemble",
        "discotree.models.lgmht_altmax.AltmaxResult",
        "discotree.structure.ear.EARSplit",
    }
    classes = stored_classes()
    assert owners | estimators <= set(classes)
    assert all(issubclass(classes[name], EstimatorFileChecks) for name in estimators)
    assert all(issubclass(classes[name], CheckedState) for name in owners)
    for name in owners:  # each declares its numbers or overrides a check
        cls = classes[name]
        own = cls._NUMBER_FIELDS or any(
            getattr(cls, m) is not getattr(CheckedState, m)
            for m in ("check_numbers", "check_structure")
        )
        assert own, name
