"""Model files that cannot lie: signing keys that are keys, and JSON files checked
(size, nesting, every field, consistency of the fitted arrays) before use."""

from __future__ import annotations

import json
import os

import numpy as np
import pandas as pd
import pytest

import discotree
from discotree import NaiveBayesClassifier, TANClassifier
from discotree.cli import main
from discotree.io.json_model import dumps, load_json, loads
from discotree.model_file import load_model, save_model


@pytest.fixture
def key_file(tmp_path, monkeypatch):
    path = tmp_path / "key"
    monkeypatch.setenv("DISCOTREE_KEY_FILE", str(path))
    return path


def _write_key(path, data: bytes, mode: int = 0o600) -> None:
    path.write_bytes(data)
    path.chmod(mode)


def test_a_new_key_is_32_random_bytes_for_the_owner_only(key_file, tmp_path):
    save_model({"a": 1}, tmp_path / "m.model")
    assert len(key_file.read_bytes()) == 32
    assert key_file.stat().st_mode & 0o777 == 0o600
    assert load_model(tmp_path / "m.model") == {"a": 1}


@pytest.mark.parametrize(
    ("data", "mode", "match"),
    [
        (b"", 0o600, "holds 0 bytes, fewer than 32"),
        (b"x" * 31, 0o600, "holds 31 bytes, fewer than 32"),
        (os.urandom(32), 0o644, "others than its owner may read or write it"),
        (os.urandom(32), 0o620, "others than its owner may read or write it"),
        (os.urandom(70_000), 0o600, "more than a key"),
    ],
    ids=["empty", "short", "readable", "group-writable", "long"],  # (the same in every process)
)
def test_keys_that_are_not_keys_are_refused(key_file, tmp_path, data, mode, match):
    """An empty key file let anyone sign a pickle (a forged model runs code)."""
    _write_key(key_file, data, mode)
    with pytest.raises(ValueError, match=match):
        save_model({"a": 1}, tmp_path / "m.model")
    forged = tmp_path / "forged.model"
    forged.write_bytes(b"DISCOTREE-MODEL 1 hmac-sha256\nxx\npayload")
    with pytest.raises(ValueError, match=match):
        load_model(forged)


def test_a_key_that_is_not_a_regular_file_is_refused(key_file, tmp_path):
    key_file.mkdir()
    with pytest.raises(ValueError, match="not a regular file"):
        save_model({"a": 1}, tmp_path / "m.model")
    key_file.rmdir()
    key_file.symlink_to("/dev/zero")  # would never end
    with pytest.raises(ValueError, match="not a regular file"):
        save_model({"a": 1}, tmp_path / "m.model")


def test_the_cli_names_a_refused_key(key_file, tmp_path, capsys):
    _write_key(key_file, b"")
    frame = pd.DataFrame({"a": [0, 1] * 10, "label": ["x", "y"] * 10})
    frame.to_csv(tmp_path / "t.csv", index=False)
    argv = ["fit", "--csv", str(tmp_path / "t.csv"), "--target", "label"]
    assert main([*argv, "-o", str(tmp_path / "m"), "--format", "pickle"]) == 1
    assert "signing key" in capsys.readouterr().err


@pytest.fixture
def fitted():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.integers(0, 3, 120), "b": rng.choice(list("pqr"), 120)})
    y = np.where(X["a"] > 0, "yes", "no")
    return TANClassifier(alpha=1.0).fit(X, y), X


def _document(model) -> dict:
    return json.loads(dumps({"model": model, "target": "label"}))


def _state(document: dict) -> dict:
    """The model's fields by name (the stored [key, value] pairs)."""
    content = dict(document["content"]["__dict__"][k] for k in range(2))
    return {k: v for k, v in content["model"]["state"]["__dict__"]}


def _set_field(document: dict, name: str, value) -> dict:
    pairs = document["content"]["__dict__"]
    model = next(v for k, v in pairs if k == "model")
    for pair in model["state"]["__dict__"]:
        if pair[0] == name:
            pair[1] = value
    return document


def test_model_files_over_the_size_limit_are_refused_before_reading(fitted, tmp_path):
    model, _ = fitted
    path = tmp_path / "m.json"
    discotree.io.save_json(model, path)
    with discotree.config_context(model_file_limit=100):
        with pytest.raises(ValueError, match="more than the model file limit"):
            load_json(path)
        save_model(model, tmp_path / "m.model")
        with pytest.raises(ValueError, match="more than the model file limit"):
            load_model(tmp_path / "m.model")
    sparse = tmp_path / "sparse.json"  # 10 GB on paper, nothing on disk
    with sparse.open("wb") as handle:
        handle.truncate(10 * 2**30)
    with pytest.raises(ValueError, match="more than the model file limit"):
        load_json(sparse)


def test_deeply_nested_files_are_refused_without_recursion_error():
    text = '{"format":"discotree-model","version":1,"content":' + "[" * 50_000
    text += "]" * 50_000 + "}"
    with pytest.raises(ValueError, match="nested 50001 deep"):
        loads(text)


def test_a_file_without_content_names_the_field():
    with pytest.raises(ValueError, match="content: missing"):
        loads('{"format": "discotree-model", "version": 1}')
    with pytest.raises(ValueError, match="version: must be an integer"):
        loads('{"format": "discotree-model", "version": "1", "content": null}')


def test_classes_that_do_not_match_the_tables_are_refused(fitted):
    model, _ = fitted
    document = _set_field(
        _document(model), "classes_", json.loads(dumps(np.arange(100_000)))["content"]
    )
    with pytest.raises(ValueError, match=r"content.model.classes_: 100000 labels but the model"):
        loads(json.dumps(document))


def test_categories_that_do_not_match_the_codes_are_refused(fitted):
    model, _ = fitted
    wrong = TANClassifier(alpha=1.0).fit(
        pd.DataFrame({"a": [0, 1, 2, 3] * 5, "b": list("pqrst") * 4}), ["no", "yes"] * 10
    )
    document = _set_field(_document(model), "encoder_", _state(_document(wrong))["encoder_"])
    with pytest.raises(ValueError, match=r"content.model.encoder_.n_categories_: \[4, 5\]"):
        loads(json.dumps(document))


def test_tables_of_the_wrong_shape_are_refused(fitted):
    model, _ = fitted
    broken = NaiveBayesClassifier(alpha=1.0).fit(*_three_classes())
    document = _set_field(_document(model), "model_", _state(_document(broken))["model_"])
    with pytest.raises(ValueError, match=r"content.model.classes_: 2 labels but the model has 3"):
        loads(json.dumps(document))


def _three_classes():
    X = pd.DataFrame({"a": [0, 1, 2] * 10, "b": list("pqr") * 10})
    return X, ["no", "yes", "maybe"] * 10


@pytest.mark.parametrize(
    ("field", "value", "match"),
    [
        ("classes_", {"__ndarray__": "<i8", "shape": [3], "bytes": "AAAA"},
         "content.model.classes_: an array of shape .3,. and dtype int64 needs 24 bytes"),
        ("classes_", {"__ndarray__": "<i8", "shape": [-1], "bytes": ""},
         "content.model.classes_: an array's 'shape' must be a list of integers >= 0"),
        ("classes_", {"__ndarray__": "O!", "shape": [1], "bytes": ""},
         "content.model.classes_: 'O!' is not an array dtype"),
        ("classes_", {"__float__": "1e400x"}, "content.model.classes_: '1e400x' is not a"),
        ("classes_", {"__set__": [[1]]}, "content.model.classes_: a set member"),
        ("classes_", {"__tuple__": 5}, "content.model.classes_: a stored __tuple__ must hold"),
        ("classes_", "abc", "content.model.classes_: must be a 1-D array"),
        ("n_features_in_", -3, "content.model.n_features_in_: must be a positive integer"),
        ("alpha", None, None),  # a parameter's value is checked at fit, as sklearn does
    ],
)  # fmt: skip
def test_every_stored_value_is_checked_and_named(fitted, field, value, match):
    model, _ = fitted
    text = json.dumps(_set_field(_document(model), field, value))
    if match is None:
        loads(text)
        return
    with pytest.raises(ValueError, match=match):
        loads(text)


def test_objects_need_the_fields_of_their_class(fitted):
    model, _ = fitted
    document = _document(model)
    state = _state(document)
    forest = state["model_"]
    forest["state"]["__dict__"] = [p for p in forest["state"]["__dict__"] if p[0] != "parents"]
    _set_field(document, "model_", forest)
    with pytest.raises(ValueError, match=r"content\.model\.model_: the field 'parents' of"):
        loads(json.dumps(document))
    document = _document(model)
    forest = _state(document)["model_"]
    forest["state"]["__dict__"].append(["surprise", 1])
    _set_field(document, "model_", forest)
    with pytest.raises(ValueError, match="has no field 'surprise'"):
        loads(json.dumps(document))
    document = _document(model)
    params = document["content"]["__dict__"][0][1]["state"]["__dict__"]
    params[:] = [p for p in params if p[0] != "k"]
    with pytest.raises(ValueError, match="the parameter 'k' of TANClassifier is missing"):
        loads(json.dumps(document))


@pytest.mark.parametrize(
    ("content", "match"),
    [
        ({"model": 3, "target": "label"}, "its 'model' is a int, not a fitted classifier"),
        ({"target": "label"}, "holds no model written by 'discotree fit'"),
        ([1, 2], "holds no model written by 'discotree fit'"),
    ],
)
def test_the_cli_says_not_a_valid_model_file(tmp_path, capsys, content, match):
    path = tmp_path / "m.json"
    path.write_text(dumps(content))
    data = tmp_path / "t.csv"
    pd.DataFrame({"a": [1, 2]}).to_csv(data, index=False)
    assert main(["predict", "--model", str(path), "--csv", str(data)]) == 1
    err = capsys.readouterr().err
    assert "is not a valid model file: " in err and match in err


def test_the_cli_reports_a_deep_file_in_one_line(tmp_path, capsys):
    path = tmp_path / "m.json"
    path.write_text(
        '{"format":"discotree-model","version":1,"content":' + "[" * 5000 + "]" * 5000 + "}"
    )
    data = tmp_path / "t.csv"
    pd.DataFrame({"a": [1, 2]}).to_csv(data, index=False)
    assert main(["predict", "--model", str(path), "--csv", str(data)]) == 1
    err = capsys.readouterr().err
    assert (
        err.count("\n") == 1 and "is not a valid model file: not a JSON model file: nested" in err
    )


def test_tables_that_do_not_match_their_categories_are_refused(fitted):
    import copy
    from dataclasses import replace

    model, _ = fitted
    broken = copy.deepcopy(model)
    tables = [list(c) for c in broken.model_.log_cpts]
    tables[1][0] = np.zeros((7, 7))
    broken.model_ = replace(broken.model_, log_cpts=tables)
    with pytest.raises(ValueError, match=r"content.model.model_.log_cpts\[1\]\[0\]: has shape"):
        loads(dumps({"model": broken, "target": "label"}))
    parents = broken.model_.parents.copy()
    parents[0, 0] = 9
    broken.model_ = replace(model.model_, parents=parents)
    with pytest.raises(ValueError, match=r"model_.parents: names a feature that does not"):
        loads(dumps({"model": broken, "target": "label"}))


def _refit(estimator):
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, (120, 4)).astype(float)
    y = (X[:, 0] + X[:, 1] > 2).astype(int)
    return estimator.fit(X, y)


@pytest.mark.parametrize(
    ("make", "edit", "match"),
    [
        (
            lambda: discotree.KDBClassifier(k=2, selective=False),
            lambda m: setattr(m.model_.tables[1][0], "r_node", 7),
            "has 7 values",
        ),
        (
            lambda: discotree.KDBClassifier(k=2, selective=False),
            lambda m: m.model_.parents.__setitem__(2, (2,)),
            r"parents\[2\]",
        ),
        (
            lambda: discotree.KDBClassifier(k=2, selective=False, smoothing="hierarchical"),
            lambda m: m.model_.concentrations.__setitem__(0, np.array([-1.0])),
            "positive concentrations",
        ),
        (
            lambda: discotree.KDBClassifier(k=1, selective=False),
            lambda m: setattr(m, "classes_", np.array([0, 1, 2])),
            "3 labels but the model has 2 classes",
        ),
        (
            lambda: discotree.AODEClassifier(),
            lambda m: setattr(m.model_, "child_log", m.model_.child_log[:, :2]),
            "child_log",
        ),
        (
            lambda: discotree.AODEClassifier(),
            lambda m: m.model_.parent_log.__setitem__((0, 0), 3.0),
            "log-probability above 0",
        ),
        (
            lambda: discotree.AODEClassifier(2),
            lambda m: setattr(m.model_, "cond_log", m.model_.cond_log[:, :-1]),
            "cond_log",
        ),
        (
            lambda: discotree.AODEClassifier(2),
            lambda m: m.model_.pair_log.__setitem__(0, 0.5),
            "log-probability above 0",
        ),
    ],
    ids=[
        "r_node",
        "self-parent",
        "concentrations",
        "classes",
        "child_log",
        "positive-log",
        "a2de-cond_log",
        "a2de-positive-log",
    ],
)
def test_new_models_whose_tables_disagree_are_refused(make, edit, match):
    model = _refit(make())
    edit(model)
    with pytest.raises(ValueError, match=match):
        loads(dumps(model))


def _ensemble(**params):
    """A small fitted ensemble (with its linear and pair members) and its rows."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(150, 3))
    y = (X[:, 0] > 0).astype(int)
    return discotree.KDBEnsembleClassifier(n_estimators=2, **params).fit(X, y), X


def test_an_ensemble_whose_maps_disagree_with_its_members_is_refused():
    model, X = _ensemble()
    assert loads(dumps(model)).predict(X).tolist() == model.predict(X).tolist()
    model.model_.maps[0][0] = model.model_.maps[0][0][::-1].copy()  # decreasing
    with pytest.raises(ValueError, match="must map every fine bin, in order"):
        loads(dumps(model))


def test_an_ensemble_mapping_a_category_to_a_negative_code_is_refused():
    # (the members would read an observed value as missing, which the ensemble's rows
    # missing a value, found before the maps, do not hold): the maps' own check
    model, _ = _ensemble()
    model.model_.maps[0][0] = model.model_.maps[0][0] - 1
    with pytest.raises(ValueError, match="must map every fine bin, in order"):
        loads(dumps(model))


@pytest.mark.parametrize(
    ("edit", "match"),
    [
        (lambda m: setattr(m, "coef", m.coef[:-1]), r"linear.coef: has shape"),
        (lambda m: setattr(m, "intercept", np.zeros(5)), r"linear.intercept: has shape"),
        (lambda m: m.values.__setitem__(0, np.zeros(3)), r"linear.values: needs one value"),
        (lambda m: setattr(m, "n_categories", m.n_categories + 1), r"differ from the encoder"),
    ],
    ids=["coef", "intercept", "values", "categories"],
)
def test_an_ensemble_whose_linear_member_disagrees_is_refused(edit, match):
    model, X = _ensemble()
    assert loads(dumps(model)).predict_proba(X) == pytest.approx(model.predict_proba(X))
    edit(model.model_.linear)
    with pytest.raises(ValueError, match=match):
        loads(dumps(model))


@pytest.mark.parametrize(
    ("edit", "match"),
    [
        (lambda m: setattr(m, "pairs", np.array([[1, 1]])), r"linear.pairs: must be"),
        (lambda m: setattr(m, "pairs", np.array([[0, 4]])), r"linear.pairs: must be"),
        (lambda m: setattr(m, "pairs", np.array([0, 1])), r"linear.pairs: must be"),
        (lambda m: setattr(m, "pair_levels", [None] * 3), r"linear.pair_levels: needs one"),
        (
            lambda m: setattr(m, "pair_levels", [None, np.array([0, -1, 0]), None, None]),
            r"linear.pair_levels: needs one level",
        ),
        (lambda m: setattr(m, "pairs", m.pairs[:1]), r"linear.coef: has shape"),
    ],
    ids=["same-feature", "out-of-range", "flat", "levels-short", "levels-negative", "coef"],
)
def test_an_ensemble_whose_linear_pairs_disagree_is_refused(edit, match):
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(size=150), rng.integers(0, 3, size=(150, 3))])
    y = ((X[:, 1] == X[:, 2]) ^ (X[:, 0] > 0)).astype(int)
    model = discotree.KDBEnsembleClassifier(
        n_estimators=2, linear_pairs="all", linear_weight=0.5
    ).fit(X, y)
    assert len(model.model_.linear.pairs) == 3  # the three categorical columns'
    model.model_.linear.pair_levels = [None] * 4  # (a valid form of "no level map")
    assert loads(dumps(model)).predict_proba(X) == pytest.approx(model.predict_proba(X))
    edit(model.model_.linear)
    with pytest.raises(ValueError, match=match):
        loads(dumps(model))


def _without_fields(value, names: set[str]):
    """A model file's JSON document without the fields ``names`` (those an earlier
    version did not write), wherever an object's ``__dict__`` holds them, nor in an
    estimator's list of its fitted attributes."""
    if isinstance(value, dict):
        if "__dict__" in value:
            value["__dict__"] = [
                [k, _without_fields(v, names)] for k, v in value["__dict__"] if k not in names
            ]
            for k, v in value["__dict__"]:
                if k == "_fitted_state_names":
                    v["__tuple__"] = [n for n in v["__tuple__"] if n not in names]
            return value
        return {k: _without_fields(v, names) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_fields(v, names) for v in value]
    return value


def test_an_ensemble_saved_before_linear_pairs_existed_loads_without_them():
    model, X = _ensemble(pair_weight=0.0)  # as an ensemble of that version was fitted
    later = {"linear_pairs", "pairs", "pair_levels", "pair_weight", "pair_member"}
    later |= {"pair_pooling", "pair_weight_", "pair_weight_losses_"}
    text = json.dumps(_without_fields(json.loads(dumps(model)), later))
    assert all(f'"{name}"' not in text for name in later)
    loaded = loads(text)
    assert loaded.linear_pairs == 0 and loaded.model_.linear.pairs.shape == (0, 2)
    assert loaded.pair_weight == 0.0 and loaded.model_.pair_member is None
    assert loaded.predict_proba(X) == pytest.approx(model.predict_proba(X))


def test_an_ensemble_saved_before_log_pooling_existed_pools_linearly():
    rng = np.random.default_rng(1)
    X = np.column_stack([rng.normal(size=150), rng.integers(0, 3, size=(150, 3))])
    y = ((X[:, 1] == X[:, 2]) ^ (X[:, 0] > 0)).astype(int)
    params = {"n_estimators": 2, "pair_weight": 0.3, "pair_pooling": "linear"}
    model = discotree.KDBEnsembleClassifier(**params).fit(X, y)  # as fitted then
    later = {"pair_pooling", "pair_weight_", "pair_weight_losses_"}
    text = json.dumps(_without_fields(json.loads(dumps(model)), later))
    assert '"pair_pooling"' not in text
    loaded = loads(text)
    assert loaded.pair_pooling == "linear" and loaded.model_.pair_pooling == "linear"
    assert loaded.predict_proba(X) == pytest.approx(model.predict_proba(X), abs=1e-12)
    logarithmic = model.set_params(pair_pooling="log").fit(X, y)
    assert not np.allclose(logarithmic.predict_proba(X), loaded.predict_proba(X))


def _ensemble_with_pair_member():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(size=150), rng.integers(0, 3, size=(150, 3))])
    y = ((X[:, 1] == X[:, 2]) ^ (X[:, 0] > 0)).astype(int)
    model = discotree.KDBEnsembleClassifier(n_estimators=2, pair_weight=0.2, pair_significance=None)
    model = model.fit(X, y)  # (every pair: the checks below edit them)
    return model, X


@pytest.mark.parametrize(
    ("edit", "match"),
    [
        (lambda m: setattr(m.pair_member, "pairs", np.array([[2, 2]])), r"pair_member.pairs"),
        (lambda m: setattr(m.pair_member, "coef", m.pair_member.coef[:-1]), r"pair_member.coef"),
        (lambda m: setattr(m, "pair_weight", 1.5), r"pair_weight: must be a number in \[0, 1\]"),
        (lambda m: setattr(m, "pair_weight", 1), r"pair_weight: must be a number in \[0, 1\]"),
        (lambda m: setattr(m, "pair_pooling", "mean"), r"pair_pooling: must be one of"),
    ],
    ids=["pairs", "coef", "weight", "integer-weight", "pooling"],
)
def test_an_ensemble_whose_pair_member_disagrees_is_refused(edit, match):
    model, X = _ensemble_with_pair_member()
    assert len(model.model_.pair_member.pairs) == 6  # every pair of the four columns
    loaded = loads(dumps(model))
    assert loaded.predict_proba(X) == pytest.approx(model.predict_proba(X), abs=1e-12)
    assert loaded.model_.pair_weight == 0.2
    edit(model.model_)
    with pytest.raises(ValueError, match=match):
        loads(dumps(model))


def test_an_ensemble_linear_weight_outside_zero_one_is_refused():
    model, _ = _ensemble()
    model.model_.linear_weight = 1.5
    with pytest.raises(ValueError, match=r"linear_weight: must be a number in \[0, 1\]"):
        loads(dumps(model))
