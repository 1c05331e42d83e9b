"""The checks of a loaded classifier (:mod:`discotree.classifiers.file_checks`): read
from each estimator's class-level data, so that a new estimator derived from the base
is checked as strictly as the shipped ones (the file tests are in
``tests/io/test_estimator_numbers.py``)."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from discotree import (
    AODEClassifier,
    BoostedGraphicalModelClassifier,
    DiscriminativeTreeClassifier,
    KDBClassifier,
    KDBEnsembleClassifier,
    NaiveBayesClassifier,
    TANClassifier,
)
from discotree.classifiers.file_checks import REQUIRED, STREAMING, EstimatorFileChecks
from discotree.models.averaged_dependence import (
    AveragedOneDependenceModel,
    AveragedTwoDependenceModel,
)
from discotree.models.bayes_net import BayesNetModel
from discotree.models.boosted_ensemble import BoostedEnsemble
from discotree.models.discrete_forest import DiscreteForestModel
from discotree.models.ensemble import KDBEnsembleModel
from discotree.models.file_checks import StoredModel
from discotree.models.forest_pairs import ForestPair
from discotree.models.gaussian_forest import GaussianForestModel
from discotree.models.k_dependence import KDependenceModel
from discotree.models.logistic import LogisticModel
from discotree.models.posterior_draws import DrawnKDependenceModel
from discotree.models.protocol import declared_sizes

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


def _stored_models(value, seen=None):
    """Every stored model (:class:`StoredModel`) among ``value``'s fields, at any depth."""
    seen = set() if seen is None else seen
    if id(value) in seen:
        return
    seen.add(id(value))
    if isinstance(value, StoredModel):
        yield value
    children = vars(value).values() if hasattr(value, "__dict__") else ()
    if isinstance(value, list | tuple):
        children = value
    for child in children:
        if isinstance(child, list | tuple) or hasattr(child, "__dict__"):
            yield from _stored_models(child, seen)


def _subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def test_every_stored_scoring_model_declares_the_cross_checks_numbers():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 120)
    x = np.stack([(y + rng.integers(0, 3, 120)) % 4 for _ in range(4)], axis=1)
    covered = set()
    for estimator in (
        NaiveBayesClassifier(),
        TANClassifier(k=2, structure="omi-cr"),
        KDBClassifier(k=2),
        AODEClassifier(),
        AODEClassifier(2),
        KDBEnsembleClassifier(n_estimators=2, linear_weight=0.5, pair_weight=0.5),
        TANClassifier(distribution="gaussian"),
    ):
        clf = estimator.fit(x, y)
        sizes = declared_sizes(clf.model_)
        assert sizes is not None, type(clf.model_)
        assert sizes[0] == len(clf.classes_)
        if sizes[1] is not None:  # the categories it reads: the encoder's
            assert np.array_equal(sizes[1], clf.encoder_.n_categories_)
        for model in _stored_models(clf.model_):
            covered.add(type(model))
            assert model.declared_sizes() is not None, type(model)
            assert model.declared_sizes()[0] == len(clf.classes_), type(model)
    shipped = {c for c in _subclasses(StoredModel) if c.__module__.startswith("discotree.")}
    assert shipped - covered <= {DrawnKDependenceModel}  # a KDependenceModel's declaration
    assert covered >= {
        AveragedOneDependenceModel, AveragedTwoDependenceModel, BayesNetModel,
        DiscreteForestModel, GaussianForestModel, KDBEnsembleModel, KDependenceModel,
        LogisticModel,
    }  # fmt: skip


def test_a_model_that_cannot_say_is_not_cross_checked():
    clf = NaiveBayesClassifier().fit(X, Y)
    state = {**clf.model_.state(), "parents": None}  # malformed: its own check refuses it
    clf.model_ = DiscreteForestModel.from_state(state)
    assert declared_sizes(clf.model_) is None
    NaiveBayesClassifier.check_state_structure(vars(clf), "c")
    with pytest.raises(ValueError, match=r"^c\.model_\.parents"):
        clf.model_.check_structure("c.model_")
