"""The row learner "forest-density" (Dorn et al. 2018): the estimator's densities,
SVM and calibration are the learner's; class weights act through the SVM weights."""

import numpy as np
import pytest
from numpy.testing import assert_allclose

from discotree import ForestDensityClassifier
from discotree.learners.forest_density import (
    class_weight_multipliers,
    density_features,
    fit_forest_density,
)
from discotree.learners.registry import LearnerSpec, Rows, get_learner


def test_the_learner_is_what_the_estimator_fits(rng):
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=120) > 0).astype(int)
    fitted = ForestDensityClassifier(pairs=2, probability=True, random_state=0).fit(X, y)
    Z = fitted._standardised(X)
    options = {
        "pairs": fitted.pairs_,
        "probability": True,
        "random_state": 0,
        "classes": fitted.classes_,
    }
    rows = Rows(Z, y.astype(np.intp), np.ones(len(y)), 2, np.zeros(3, np.intp))
    result = fit_forest_density(rows, LearnerSpec("forest-density", 0.0, 0.0, options=options))
    assert get_learner("forest-density").reads == "rows"
    assert_allclose(result.attributes["coef_"], fitted.coef_)
    assert_allclose(result.attributes["intercept_"], fitted.intercept_)
    assert_allclose(result.attributes["calibration_slope_"], fitted.calibration_slope_)
    assert result.attributes["feature_terms_"] == fitted.feature_terms_
    features = density_features(result.attributes["densities_"], Z, keep_original=False)
    assert features.shape == (120, 2 * (3 + 2))


def test_balanced_class_weights_equalise_the_weighted_classes(rng):
    class_index = np.array([0, 0, 0, 1])
    weights = np.array([1.0, 2.0, 1.0, 1.0])
    classes = np.array(["a", "b"])
    multipliers = class_weight_multipliers("balanced", classes, class_index, "t", weights)
    totals = np.bincount(class_index, weights * multipliers)
    assert_allclose(totals, totals[0])
    assert_allclose(class_weight_multipliers(None, classes, class_index, "t", weights), 1.0)
    with pytest.raises(ValueError, match=r"unknown classes \['c'\]"):
        class_weight_multipliers({"c": 2.0}, classes, class_index, "t", weights)
