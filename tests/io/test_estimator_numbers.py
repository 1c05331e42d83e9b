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

from .tampering import ABSENT, assert_refused, at, field_pattern, fit_models, tampered, unnormalised

NAMES = ["kdb", "a1de", "tan", "gaussian", "tree", "tree-gaussian", "boosting", "ear"]


@pytest.fixture(scope="module")
def fitted():
    models, X = fit_models(NAMES)
    return models, {name: dumps(model) for name, model in models.items()}, X


_refused = assert_refused


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


@pytest.fixture(scope="module")
def named():
    """Naive Bayes and A1DE fitted on named columns (``feature_names_in_``): a binned
    number, two small integer columns (numeric categories) and one of strings."""
    import pandas as pd

    from .tampering import data

    X, y = data()
    frame = pd.DataFrame(
        {
            "num": X[:, 0],
            "a": X[:, 1].astype(int),
            "s": np.array(["p", "q", "r"], dtype=object)[X[:, 2].astype(int)],
            "c": X[:, 3].astype(int),
        }
    )
    models = {
        "naive-bayes": discotree.NaiveBayesClassifier(alpha=1.0).fit(frame, y),
        "a1de": discotree.AODEClassifier().fit(frame, y),
    }
    return models, {name: dumps(model) for name, model in models.items()}, frame


def _swapped(array):
    array = np.array(array)
    array[[0, 1]] = array[[1, 0]]
    return array


FEATURE_NAMES = [
    (name, edit, why)
    for name in ("naive-bayes", "a1de")
    for edit, why in (
        (at(0, NAN), "must be strings, found nan"),
        (at(0, None), "must be strings, found None"),
        (at(0, 3), "must be strings, found 3"),
        (at(0, "a"), "holds a name twice"),
        (lambda names: np.array(names)[:3], "3 names but n_features_in_ is 4"),
        (np.array([["num", "a", "s", "c"]], dtype=object), "must be a 1-D array"),
    )
]


@pytest.mark.parametrize(
    ("name", "edit", "why"), FEATURE_NAMES, ids=[f"{c[0]}-{c[2]}" for c in FEATURE_NAMES]
)
def test_feature_names_are_distinct_strings_one_per_feature(named, name, edit, why):
    """A NaN (or other non-string, repeated or missing name) in ``feature_names_in_``
    is refused at load, not at predict with scikit-learn's mismatch message."""
    _, texts, _ = named
    text = tampered(json.loads(texts[name]), ("feature_names_in_",), edit)
    with pytest.raises(ValueError, match=r"^content\.feature_names_in_: " + why):
        loads(text)


CATEGORIES = [
    # numeric categories (codes by binary search): distinct, finite, increasing
    (1, at(0, NAN), "must be distinct finite numbers, increasing"),
    (1, at(-1, NAN), "must be distinct finite numbers, increasing"),
    (3, at(0, INF), "must be distinct finite numbers, increasing"),
    (1, at(1, 0.0), "must be distinct finite numbers, increasing"),
    (3, _swapped, "must be distinct finite numbers, increasing"),
    (1, lambda c: np.array(c)[:2], "2 categories for 3 codes"),
    (1, lambda c: np.array(c).astype(str), "must be numbers"),
    # other categories (codes by the lookup): strings or finite numbers, distinct,
    # each the key of its own code
    (2, at(0, NAN), "must be strings or finite numbers, found nan"),
    (2, at(0, None), "must be strings or finite numbers, found None"),
    (2, at(0, (1, 2)), r"must be strings or finite numbers, found \(1, 2\)"),
    (2, at(1, "p"), "must be distinct, each the key of its code"),
    (2, _swapped, "must be distinct, each the key of its code"),
]


@pytest.mark.parametrize(
    ("column", "edit", "why"),
    CATEGORIES,
    ids=[f"column{c[0]}-{k}" for k, c in enumerate(CATEGORIES)],
)
def test_encoder_categories_are_those_the_encoder_reads(named, column, edit, why):
    """A NaN, infinity, repeat or reordering in a column's categories would shift the
    codes silently (numeric categories are found by binary search, the others by the
    lookup): refused at load, naming the column's categories."""
    _, texts, _ = named
    path = ("encoder_", "columns_", column, "categories")
    text = tampered(json.loads(texts["a1de"]), path, edit)
    with pytest.raises(ValueError, match=field_pattern(path) + ": " + why):
        loads(text)


def test_named_files_load_and_predict_as_the_models(named):
    models, texts, frame = named
    for name, model in models.items():
        back = loads(texts[name])
        assert list(back.feature_names_in_) == ["num", "a", "s", "c"]
        assert np.array_equal(back.predict_proba(frame), model.predict_proba(frame)), name
