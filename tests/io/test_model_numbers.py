"""Model files checked to the last number (issue 50): every numeric field of every
model kind a JSON model file holds, tampered with (NaN, inf, 1e308, negative,
unnormalised, out of range), is refused at load with a ValueError naming the field;
an untampered file predicts exactly what the model does."""

from __future__ import annotations

import json

import numpy as np
import pytest

from discotree.io.estimator_numbers import check_numbers
from discotree.io.json_model import dumps, loads
from discotree.io.model_numbers import (
    MAX_MAGNITUDE,
    NORMALISATION_TOLERANCE,
    check_forest_parents,
    integer,
    normalised,
    numbers,
)

from .tampering import (
    MAKERS,
    assert_refused,
    at,
    document,
    field_pattern,
    fit_models,
    tampered,
    unnormalised,
)


@pytest.fixture(scope="module")
def fitted():
    models, X = fit_models(list(MAKERS))
    return models, {name: dumps(model) for name, model in models.items()}, X


_refused = assert_refused


def test_untampered_files_predict_exactly_as_the_models(fitted):
    models, texts, X = fitted
    for name, model in models.items():
        back = loads(texts[name])
        assert np.array_equal(back.predict_proba(X), model.predict_proba(X)), name


NAN, INF = float("nan"), float("inf")
HALF = float(np.log(0.5))

KDB = [
    ("kdb", ("model_", "tables", 2, 0, "masses"), at(0, NAN)),
    ("kdb", ("model_", "tables", 2, 0, "masses"), at(0, INF)),
    ("kdb", ("model_", "tables", 2, 0, "masses"), at(0, 1e308)),
    ("kdb", ("model_", "tables", 2, 1, "masses"), at(-1, -1.0)),
    ("kdb", ("model_", "alpha"), 1e308),
    ("kdb", ("model_", "alpha"), NAN),
    ("kdb", ("model_", "epsilon"), NAN),
    ("kdb", ("model_", "alpha"), 0.0),  # with epsilon 0 below
    ("kdb-hierarchical", ("model_", "concentrations", 1), at(0, 1e308)),
    ("kdb-hierarchical", ("model_", "concentrations", 1), at(0, NAN)),
]
AODE = [
    ("a1de", ("model_", "parent_log"), at((0, 0), NAN)),
    ("a1de", ("model_", "parent_log"), at((0, 0), -INF)),
    ("a1de", ("model_", "parent_log"), at((0, 0), -1e308)),
    ("a1de", ("model_", "parent_log"), at((0, 0), 1e308)),
    ("a1de", ("model_", "parent_log"), unnormalised),
    ("a1de", ("model_", "child_log"), at((0, 0, -1), NAN)),
    ("a1de", ("model_", "child_log"), at((0, 0, -1), INF)),
    ("a1de", ("model_", "child_log"), at((0, 0, -1), -1e308)),
    ("a1de", ("model_", "child_log"), unnormalised),
    ("a1de", ("model_", "child_log"), at((0, 0, 0), -1.0)),  # a feature's own block
    ("a1de", ("model_", "class_log_prior"), at(0, NAN)),
    ("a1de", ("model_", "class_log_prior"), unnormalised),
    ("a1de", ("model_", "class_log_prior"), np.log([0.9, 0.1])),  # not the tables' marginal
    ("a2de", ("model_", "pair_log"), at(0, NAN)),
    ("a2de", ("model_", "pair_log"), at(0, INF)),
    ("a2de", ("model_", "pair_log"), at(0, -1e308)),
    ("a2de", ("model_", "pair_log"), unnormalised),
    ("a2de", ("model_", "cond_log"), at((0, 0), NAN)),
    ("a2de", ("model_", "cond_log"), at((2, -1), -INF)),
    ("a2de", ("model_", "cond_log"), unnormalised),
    ("a2de", ("model_", "class_log_prior"), unnormalised),
    ("a2de", ("model_", "class_log_prior"), np.log([0.9, 0.1])),
]
ENSEMBLE = [
    ("ensemble", ("model_", "class_log_prior"), at(0, NAN)),
    ("ensemble", ("model_", "class_log_prior"), at(0, 1e308)),
    ("ensemble", ("model_", "class_log_prior"), unnormalised),
    ("ensemble", ("model_", "members", 0, "tables", 1, 0, "masses"), at(0, NAN)),
    ("ensemble", ("model_", "members", 1, "tables", 0, 0, "masses"), at(0, -1.0)),
    ("ensemble", ("model_", "members", 0, "alpha"), INF),
    ("ensemble", ("model_", "members", 0, "concentrations", 0), at(0, -1.0)),
    ("ensemble", ("model_", "linear", "coef"), at((0, 0), NAN)),
    ("ensemble", ("model_", "linear", "coef"), at((0, 0), 1e308)),
    ("ensemble", ("model_", "linear", "intercept"), at(0, INF)),
    ("ensemble", ("model_", "linear", "values", 0), at(0, NAN)),
    ("ensemble", ("model_", "pair_member", "coef"), at((0, 1), -INF)),
    ("ensemble", ("model_", "pair_member", "intercept"), at(1, NAN)),
    ("ensemble", ("model_", "linear_weight"), NAN),
    ("ensemble", ("model_", "pair_weight"), 2.0),
]
FORESTS = [
    ("tan", ("model_", "log_cpts", 0, 1), at((0, 0), NAN)),
    ("tan", ("model_", "log_cpts", 1, 2), at((0, 0), -INF)),
    ("tan", ("model_", "log_cpts", 0, 3), unnormalised),
    ("tan", ("model_", "posterior", 0, 1), at((0, 0), -1.0)),
    ("tan", ("model_", "posterior", 1, 0), at((0, 0), 1e308)),
    ("naive-bayes", ("model_", "log_cpts", 1, 0), at((0, 0), 1e308)),
    ("naive-bayes", ("model_", "log_cpts", 1, 1), unnormalised),
    ("chow-liu", ("model_", "log_cpts", 0, 2), at((0, 0), NAN)),
    ("ear", ("model_", "log_cpts", 1, 1), unnormalised),
    ("bayes-net", ("model_", "log_cpts", 3), at(0, NAN)),
    ("bayes-net", ("model_", "log_cpts", 3), unnormalised),
    ("bayes-net", ("model_", "class_log_prior"), unnormalised),
    ("bayes-net", ("model_", "class_log_prior"), at(1, NAN)),
    ("gaussian", ("model_", "means"), at((0, 0), NAN)),
    ("gaussian", ("model_", "coefs"), at((1, 1), INF)),
    ("gaussian", ("model_", "noise_var"), at((0, 2), 0.0)),
    ("gaussian", ("model_", "noise_var"), at((0, 2), -1.0)),
    ("gaussian", ("model_", "noise_var"), at((1, 0), 1e308)),
    ("tree-gaussian", ("forest_pairs_", 0, "model", "noise_var"), at((0, 0), NAN)),
    ("boosting", ("ensembles_", 0, "rounds", 0, "model", "log_cpts", 0, 0), at((0, 0), NAN)),
    ("tree", ("forest_pairs_", 0, "model", "log_cpts", 1, 1), unnormalised),
]


def _ids(cases):
    return [f"{name}-{'.'.join(map(str, path))}-{k}" for k, (name, path, _) in enumerate(cases)]


@pytest.mark.parametrize(("name", "path", "edit"), KDB, ids=_ids(KDB))
def test_k_dependence_numbers_are_checked(fitted, name, path, edit):
    if path[-1] == "alpha" and edit == 0.0:  # no smoothing at all: zero probabilities
        _, texts, _ = fitted
        doc = json.loads(tampered(json.loads(texts[name]), ("model_", "epsilon"), 0.0))
        with pytest.raises(ValueError, match=field_pattern(path)):
            loads(tampered(doc, path, edit))
        return
    match = None
    if path[-1] in ("alpha", "epsilon") and edit != 1e308:  # the structural check's
        match = r"^content\.model_: needs alpha >= 0"
    _refused(fitted, name, path, edit, match)


@pytest.mark.parametrize(("name", "path", "edit"), AODE, ids=_ids(AODE))
def test_averaged_dependence_numbers_are_checked(fitted, name, path, edit):
    _refused(fitted, name, path, edit)


@pytest.mark.parametrize(("name", "path", "edit"), ENSEMBLE, ids=_ids(ENSEMBLE))
def test_ensemble_numbers_are_checked(fitted, name, path, edit):
    match = None
    if path[-1] in ("linear_weight", "pair_weight"):  # the structural check's
        match = field_pattern(path) + ": must be a number in"
    elif path[-2:] == ("alpha",) or path[-1] == "alpha":
        match = r"^content\.model_\.members\[0\]: needs alpha >= 0"
    elif "concentrations" in path:
        match = r"^content\.model_\.members\[0\]\.concentrations\[0\]"
    _refused(fitted, name, path, edit, match)


@pytest.mark.parametrize(("name", "path", "edit"), FORESTS, ids=_ids(FORESTS))
def test_network_and_forest_numbers_are_checked(fitted, name, path, edit):
    _refused(fitted, name, path, edit)


def test_a_sparse_table_refused_by_its_own_check_names_the_field(fitted):
    """A table whose weights are negative is refused while it is built: the message
    still names the field."""
    path = ("model_", "tables", 1, 0, "masses")
    _refused(fitted, "kdb", path, at(0, -1.0), field_pattern(path) + ": holds -1.0")


def test_sparse_table_cells_out_of_range_are_refused(fitted):
    path = ("model_", "tables", 2, 1, "cells")
    _refused(fitted, "kdb", path, at(-1, 2**40), r"^content\.model_\.tables\[2\]\[1\]: holds")
    _refused(fitted, "kdb", path, at(0, -5), r"^content\.model_\.tables\[2\]\[1\]: the family")


def test_forests_with_a_cycle_are_refused(fitted):
    def cycle(parents):
        parents = np.array(parents)
        parents[:, 0], parents[:, 1] = 1, 0
        return parents

    _refused(fitted, "gaussian", ("model_", "parents"), cycle, r"parents\[0\]: has a cycle")
    with pytest.raises(ValueError, match=r"^x\[1\]: has a cycle"):
        check_forest_parents(np.array([[-1, 0, 1], [2, 0, 1]]), 3, "x")
    with pytest.raises(ValueError, match=r"^x: must be \(classes, 3\) parents in \[-1, 3\)"):
        check_forest_parents(np.array([[-1, 0, 3]]), 3, "x")


def test_the_helpers_name_the_entry_and_the_tolerance():
    with pytest.raises(ValueError, match=r"^x: holds inf at \[1, 0\]"):
        numbers(np.array([[0.0], [np.inf]]), "x")
    assert numbers(np.array([-np.inf]), "x", minus_infinity=True)[0] == -np.inf
    with pytest.raises(ValueError, match=r"holds 1e\+101"):
        numbers(MAX_MAGNITUDE * 10, "x")
    with pytest.raises(ValueError, match="must be numbers, found str"):
        numbers("1", "x")
    with pytest.raises(ValueError, match="must be numbers, found an array of dtype <U1"):
        numbers(np.array(["a"]), "x")
    normalised(np.log([0.5, 0.5 + NORMALISATION_TOLERANCE / 2]), 0, "x")  # within
    with pytest.raises(ValueError, match=r"sum to 1\.00001"):
        normalised(np.log([0.5, 0.50001]), 0, "x")
    with pytest.raises(ValueError, match="sum to 0"):
        normalised(np.array([-np.inf, -np.inf]), 0, "x")
    with pytest.raises(ValueError, match=r"must be an integer in \[0, 2\), got True"):
        integer(True, "x", 0, 2)


def test_content_without_models_passes():
    check_numbers({"a": [1, 2.5, None], "b": np.array([np.nan])})
    assert document({"a": 1})["content"] == {"__dict__": [["a", 1]]}


def _first_parent(value):
    """An edit of a table's parents: the first one replaced by ``value``."""
    return lambda parents: (value, *tuple(parents)[1:])


PARENTS = [
    (name, path, value)
    for name, path in (
        ("kdb", ("model_", "tables", 2, 1, "parents")),
        ("ensemble", ("model_", "members", 0, "tables", 2, 1, "parents")),
    )
    for value in (NAN, INF, "x", 10**30, 1.0, None, [1], True, 2)
]


@pytest.mark.parametrize(
    ("name", "path", "value"), PARENTS, ids=[f"{c[0]}-{c[2]!r}" for c in PARENTS]
)
def test_a_sparse_table_s_parents_are_checked_before_use(fitted, name, path, value):
    """Not a feature index (NaN, inf, a string, out of range, a float, null, a list,
    a bool, the node itself): refused naming the table's parents, not an IndexError."""
    _refused(fitted, name, path, _first_parent(value), field_pattern(path) + ": .* features")


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity"])
@pytest.mark.parametrize("field", ["alpha", "version"])
def test_bare_non_finite_tokens_are_refused_naming_the_field(fitted, token, field):
    """``dumps`` tags non-finite floats (``{"__float__": "nan"}``) and writes no
    ``NaN``/``Infinity`` token, so a file holding one is refused, naming where."""
    _, texts, _ = fitted
    doc = json.loads(texts["tan"])
    if field == "version":
        doc["version"] = "TOKEN"
        where = "version"
    else:
        pair = next(p for p in doc["content"]["state"]["__dict__"] if p[0] == field)
        pair[1] = "TOKEN"
        where = r"content\.alpha"
    text = json.dumps(doc).replace('"TOKEN"', token)
    with pytest.raises(ValueError, match=f"^{where}: a bare {token} token"):
        loads(text)
    assert "NaN" not in dumps({"x": [NAN, INF, -INF, np.array([NAN, -INF])]})
