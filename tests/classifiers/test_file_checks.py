"""The checks of a loaded classifier (:mod:`discotree.classifiers.file_checks`): read
from each estimator's class-level data, so that a new estimator derived from the base
is checked as strictly as the shipped ones (the file tests are in
``tests/io/test_estimator_numbers.py``)."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from discotree import (
    BoostedGraphicalModelClassifier,
    DiscriminativeTreeClassifier,
    NaiveBayesClassifier,
)
from discotree.classifiers.file_checks import REQUIRED, STREAMING, EstimatorFileChecks
from discotree.models.boosted_ensemble import BoostedEnsemble
from discotree.models.forest_pairs import ForestPair

X = np.array([[0, 1], [1, 0], [1, 1], [0, 0], [2, 1], [2, 0]])
Y = np.array([0, 1, 1, 0, 2, 2])


class _Subclass(NaiveBayesClassifier):
    """A new estimator: no edit anywhere else, checked all the same."""


def check(estimator, where: str) -> None:
    """The reader's checks of ``estimator`` (its structure, then its numbers)."""
    type(estimator).check_state_structure(vars(estimator), where)
    type(estimator).check_state_numbers(vars(estimator), where)


def test_every_estimator_of_the_base_owns_the_checks():
    assert issubclass(NaiveBayesClassifier, EstimatorFileChecks)
    assert "class_log_prior_" in REQUIRED and "_stream" in STREAMING
    clf = _Subclass().fit(X, Y)
    check(clf, "content")
    for name in ("model_", "class_log_prior_", "encoder_"):
        bad = copy.copy(clf)
        setattr(bad, name, None)
        with pytest.raises(ValueError, match=rf"^c\.{name}: null; a fitted _Subclass needs it"):
            check(bad, "c")
        del bad.__dict__[name]
        with pytest.raises(ValueError, match=rf"^c\.{name}: missing"):
            check(bad, "c")


def test_an_unfitted_estimator_passes():
    check(NaiveBayesClassifier(), "c")


def test_the_binary_problems_are_class_data():
    assert DiscriminativeTreeClassifier._BINARY_PROBLEMS == (("forest_pairs_", ForestPair),)
    assert BoostedGraphicalModelClassifier._BINARY_PROBLEMS == (("ensembles_", BoostedEnsemble),)
    assert NaiveBayesClassifier._BINARY_PROBLEMS == ()
    tree = DiscriminativeTreeClassifier(alpha=1.0).fit(X, Y)
    check(tree, "c")
    tree.forest_pairs_ = []
    with pytest.raises(ValueError, match=r"^c\.forest_pairs_: needs at least one"):
        check(tree, "c")


def test_the_classes_against_the_model():
    clf = NaiveBayesClassifier().fit(X, Y)
    clf.classes_ = np.array([0, 1])
    with pytest.raises(ValueError, match=r"^c\.classes_: 2 labels but the model has 3"):
        NaiveBayesClassifier.check_state_structure(vars(clf), "c")
