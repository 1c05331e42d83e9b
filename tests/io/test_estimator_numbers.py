"""The estimator level of a JSON model file checked to the last number (issue 50): a
fitted classifier without a fitted attribute its predictions read, or with it null, is
refused at load (not an AttributeError at predict); so are class weights and priors,
calibration scales, binary problems, statistics, encoders and streaming state that no
fit gives."""

from __future__ import annotations

import json

import numpy as np
import pytest

import discotree
from discotree.io.estimator_numbers import REQUIRED
from discotree.io.json_model import dumps, loads

from .tampering import ABSENT, at, field_pattern, fit_models, tampered, unnormalised

NAMES = ["kdb", "a1de", "tan", "gaussian", "tree", "tree-gaussian", "boosting", "ear"]


@pytest.fixture(scope="module")
def fitted():
    models, X = fit_models(NAMES)
    return models, {name: dumps(model) for name, model in models.items()}, X


def _refused(fitted, name, path, edit, match=None):
    _, texts, _ = fitted
    text = tampered(json.loads(texts[name]), path, edit)
    with pytest.raises(ValueError, match=match or field_pattern(path)):
        loads(text)


NAN, INF = float("nan"), float("inf")

MISSING = [
    ("kdb", ("model_",), None, "null"),
    ("kdb", ("model_",), ABSENT, "missing"),
    ("kdb", ("encoder_",), None, "null"),
    ("kdb", ("classes_",), ABSENT, "missing"),
    ("kdb", ("class_count_",), ABSENT, "missing"),
    ("a1de", ("class_log_prior_",), None, "null"),
    ("a1de", ("n_features_in_",), ABSENT, "missing"),
    ("tan", ("model_",), None, "null"),
    ("tan", ("edges_",), ABSENT, r"missing \(the fit set it\)"),
    ("tree", ("forest_pairs_",), None, "null"),
    ("tree", ("calibration_scale_",), None, "null"),
    ("boosting", ("ensembles_",), ABSENT, "missing"),
    ("stream", ("encoder_",), None, "null"),
    ("stream", ("_stream",), ABSENT, "missing"),
]


@pytest.mark.parametrize(
    ("name", "path", "edit", "why"), MISSING, ids=[f"{c[0]}-{c[1][0]}-{c[3]}" for c in MISSING]
)
def test_fitted_attributes_missing_or_null_are_refused(fitted, name, path, edit, why):
    _refused(fitted, name, path, edit, field_pattern(path) + f": {why}")


NUMBERS = [
    ("kdb", ("class_count_",), at(0, NAN)),
    ("kdb", ("class_count_",), at(0, INF)),
    ("kdb", ("class_count_",), at(0, 1e308)),
    ("kdb", ("class_count_",), at(0, -1.0)),
    ("kdb", ("class_count_",), np.zeros(2)),
    ("kdb", ("class_count_",), np.ones(3)),
    ("kdb", ("class_log_prior_",), at(0, NAN)),
    ("kdb", ("class_log_prior_",), at(0, INF)),
    ("kdb", ("class_log_prior_",), unnormalised),
    ("kdb", ("class_log_prior_",), np.array([0.0, -np.inf])),  # -inf for a class with weight
    ("kdb", ("alpha_",), NAN),
    ("kdb", ("_epsilon",), 2.0),
    ("kdb", ("n_categories_",), at(0, 9)),
    ("tree", ("calibration_scale_",), 0.0),
    ("tree", ("calibration_scale_",), INF),
    ("tree", ("forest_pairs_", 0, "positive"), 5),
    ("tree", ("forest_pairs_", 0, "negative"), -2),
    ("tree", ("forest_pairs_", 0, "negative"), 1),
    ("tree", ("forest_pairs_", 0, "j_path"), at(0, NAN)),
    ("tree", ("forest_pairs_", 0, "path_pos", "weights"), at(0, INF)),
    ("tree", ("statistics_", "counts"), at((0, 0, 0), -1.0)),
    ("tree", ("statistics_", "_offsets"), at(1, 99)),
    ("tree-gaussian", ("statistics_", "weight"), at((0, 0, 0), -1.0)),
    ("tree-gaussian", ("statistics_", "sum_x"), at((0, 0, 0), NAN)),
    ("boosting", ("ensembles_", 0, "rounds", 0, "alpha"), NAN),
    ("boosting", ("ensembles_", 0, "init_score"), INF),
    ("boosting", ("ensembles_", 0, "positive"), 7),
    ("boosting", ("calibration_scale_",), -1.0),
    ("gaussian", ("encoder_", "scale_"), at(0, 0.0)),
    ("gaussian", ("encoder_", "_sd"), at(1, NAN)),
    ("gaussian", ("encoder_", "offset_"), at(0, 1e308)),
    ("tan", ("encoder_", "discretizer_", "bin_edges_", 0), at(1, NAN)),
    ("tan", ("encoder_", "discretizer_", "bin_edges_", 0), lambda e: np.array(e)[::-1]),
    ("kdb", ("encoder_", "binned_columns_"), at(0, 7)),
    ("kdb", ("encoder_", "binned_columns_"), np.array([0, 0])),
    ("stream", ("_stream", "counts"), at((0, 0), -1.0)),
    ("stream", ("_stream", "class_weight"), at(0, NAN)),
    ("stream", ("_stream", "n_rows"), -1),
]


@pytest.mark.parametrize(
    ("name", "path", "edit"),
    NUMBERS,
    ids=[f"{c[0]}-{'.'.join(map(str, c[1]))}-{k}" for k, c in enumerate(NUMBERS)],
)
def test_estimator_numbers_are_checked(fitted, name, path, edit):
    match = None
    if path == ("n_categories_",):  # (the structural check's, when the model reads more)
        match = r"^content\.n_categories_: differ from the encoder's"
    _refused(fitted, name, path, edit, match)


def test_an_ear_split_value_is_checked(fitted):
    models, _, _ = fitted
    if models["ear"].splits_:
        _refused(fitted, "ear", ("splits_", 0, "value"), NAN)


def test_unfitted_estimators_and_learnt_streams_load(fitted):
    assert isinstance(loads(dumps(discotree.KDBClassifier())), discotree.KDBClassifier)
    models, texts, X = fitted
    stream = models["stream"]
    assert np.isneginf(stream.class_log_prior_[2])  # (learnt now: a class never seen)
    back = loads(dumps(stream))
    assert np.array_equal(back.predict_proba(X), stream.predict_proba(X))
    assert np.array_equal(loads(texts["stream"]).predict_proba(X), stream.predict_proba(X))


def test_every_required_attribute_is_fitted(fitted):
    models, _, _ = fitted
    for name in NAMES:
        assert all(getattr(models[name], a) is not None for a in REQUIRED), name
