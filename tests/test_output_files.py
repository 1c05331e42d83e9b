"""Outputs written whole or not at all, never over an input or the signing key
(issue 50, item 1): the writer itself, and every command and function that writes."""

from __future__ import annotations

import os
import stat

import numpy as np
import pandas as pd
import pytest

from discotree import NaiveBayesClassifier
from discotree.cli import main
from discotree.io.bif import write_bif
from discotree.io.json_model import load_json, save_json
from discotree.model_file import load_model, save_model
from discotree.output_files import (
    atomic_output,
    check_output,
    same_file,
    signing_key_path,
    write_bytes,
    write_text,
)


def _names(folder):
    return sorted(p.name for p in folder.iterdir())


# --- the writer --------------------------------------------------------------------


def test_a_complete_write_replaces_the_target_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old")
    write_text(target, "new")
    assert target.read_text() == "new"
    assert _names(tmp_path) == ["out.txt"]


@pytest.mark.parametrize("existing", [True, False])
def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path, existing):
    target = tmp_path / "out.bin"
    if existing:
        target.write_bytes(b"old")
    with pytest.raises(RuntimeError, match="disk full"):
        with atomic_output(target, "wb") as handle:
            handle.write(b"half of it")
            raise RuntimeError("disk full")
    assert _names(tmp_path) == (["out.bin"] if existing else [])
    if existing:
        assert target.read_bytes() == b"old"


def test_an_interrupt_keeps_the_old_file(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old")
    with pytest.raises(KeyboardInterrupt):
        with atomic_output(target) as handle:
            handle.write("half")
            raise KeyboardInterrupt
    assert target.read_text() == "old" and _names(tmp_path) == ["out.txt"]


def test_permissions_are_kept_or_private(tmp_path):
    target = tmp_path / "shared.txt"
    target.write_text("old")
    os.chmod(target, 0o640)
    write_text(target, "new")
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    secret = tmp_path / "secret.bin"
    write_bytes(secret, b"k", private=True)
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600
    fresh = tmp_path / "fresh.txt"
    write_text(fresh, "x")
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o666 & ~mask


def test_bad_mode_is_named(tmp_path):
    with pytest.raises(ValueError, match="mode must be 'w' or 'wb'"):
        with atomic_output(tmp_path / "x", "a"):
            pass


# --- outputs that are inputs -------------------------------------------------------


def test_same_file_sees_through_links_and_dots(tmp_path):
    data = tmp_path / "data.csv"
    data.write_text("a\n1\n")
    (tmp_path / "sub").mkdir()
    link = tmp_path / "link.csv"
    link.symlink_to(data)
    hard = tmp_path / "hard.csv"
    os.link(data, hard)
    assert same_file(tmp_path / "sub" / ".." / "data.csv", data)
    assert same_file(link, data) and same_file(hard, data)
    assert not same_file(tmp_path / "other.csv", data)


@pytest.mark.parametrize("how", ["same", "dots", "symlink", "hardlink", "in-folder", "folder"])
def test_an_output_that_is_an_input_is_refused_by_name(tmp_path, how):
    data = tmp_path / "data.csv"
    data.write_text("a\n1\n")
    folder = tmp_path / "parts"
    folder.mkdir()
    inputs = [data, folder]
    if how == "same":
        output = data
    elif how == "dots":
        output = folder / ".." / "data.csv"
    elif how == "symlink":
        output = tmp_path / "link.csv"
        output.symlink_to(data)
    elif how == "hardlink":
        output = tmp_path / "hard.csv"
        os.link(data, output)
    elif how == "in-folder":
        output = folder / "predictions.csv"
    else:
        output = folder
    match = "lies inside the input folder" if how in ("in-folder", "folder") else "is the input"
    with pytest.raises(ValueError, match=match):
        check_output(output, inputs)
    with pytest.raises(ValueError, match=match):
        write_text(output, "x", inputs=inputs)
    assert data.read_text() == "a\n1\n"


def test_a_folder_is_not_a_target(tmp_path):
    with pytest.raises(ValueError, match="is a folder; name a file"):
        write_text(tmp_path, "x")


# --- the signing key is never a target ---------------------------------------------


def _sign_something(tmp_path):
    save_model({"answer": 42}, tmp_path / "first.model")
    return signing_key_path().read_bytes()


@pytest.mark.parametrize("writer", ["save_model", "save_json", "write_text", "write_bif"])
def test_the_signing_key_is_never_overwritten(tmp_path, monkeypatch, writer):
    monkeypatch.setenv("DISCOTREE_KEY_FILE", str(tmp_path / "key"))
    key = _sign_something(tmp_path)
    target = tmp_path / "key"
    fitted = NaiveBayesClassifier().fit(np.array([[0, 1], [1, 0]] * 5), [0, 1] * 5)
    with pytest.raises(ValueError, match="is the model signing key"):
        if writer == "save_model":
            save_model({"other": 1}, target)
        elif writer == "save_json":
            save_json(fitted, target)
        elif writer == "write_text":
            write_text(tmp_path / "." / "key", "x")
        else:
            write_bif(fitted, target)
    assert signing_key_path().read_bytes() == key
    assert load_model(tmp_path / "first.model") == {"answer": 42}


def test_model_files_are_written_whole(tmp_path, monkeypatch):
    fitted = NaiveBayesClassifier().fit(np.array([[0, 1], [1, 0]] * 5), [0, 1] * 5)
    target = tmp_path / "m.json"
    save_json(fitted, target)
    before = target.read_bytes()

    def broken(content):
        raise TypeError("cannot encode this")

    monkeypatch.setattr("discotree.io.json_model.dumps", broken)
    with pytest.raises(TypeError):
        save_json(fitted, target)
    assert target.read_bytes() == before and _names(tmp_path) == ["m.json"]
    assert load_json(target).classes_.tolist() == [0, 1]


# --- the command line ---------------------------------------------------------------


@pytest.fixture
def table(tmp_path):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.integers(0, 3, 60), "b": rng.choice(["x", "y"], 60)})
    frame["label"] = np.where(frame["a"] > 0, "yes", "no")
    path = tmp_path / "data.csv"
    frame.to_csv(path, index=False)
    return path


def _fit(table, model, *extra):
    argv = ["fit", "--data", str(table), "--target", "label", "--model", "nb", "-o", str(model)]
    return main([*argv, *extra])


@pytest.mark.parametrize("force", [[], ["--force"]])
def test_fit_never_writes_the_model_over_its_data(table, capsys, force):
    before = table.read_bytes()
    assert _fit(table, table, *force) == 1
    assert "is the input" in capsys.readouterr().err
    assert table.read_bytes() == before


@pytest.mark.parametrize("output", ["data", "model", "link"])
def test_predict_never_writes_over_its_data_or_model(table, tmp_path, capsys, output):
    model = tmp_path / "m.json"
    assert _fit(table, model) == 0
    data_before, model_before = table.read_bytes(), model.read_bytes()
    target = {"data": table, "model": model, "link": tmp_path / "link.csv"}[output]
    if output == "link":
        target.symlink_to(table)
    argv = ["predict", "--model", str(model), "--data", str(table), "-o", str(target)]
    assert main([*argv, "--force"]) == 1
    assert "is the input" in capsys.readouterr().err
    assert table.read_bytes() == data_before and model.read_bytes() == model_before


def test_a_predict_that_fails_halfway_keeps_the_old_output(table, tmp_path, capsys, monkeypatch):
    model, out = tmp_path / "m.json", tmp_path / "predictions.csv"
    assert _fit(table, model) == 0
    out.write_text("the earlier predictions\n")
    calls = []
    original = pd.DataFrame.to_csv

    def fail_on_the_second_batch(self, *args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise OSError("No space left on device")
        return original(self, *args, **kwargs)

    monkeypatch.setattr(pd.DataFrame, "to_csv", fail_on_the_second_batch)
    argv = ["predict", "--model", str(model), "--data", str(table), "-o", str(out)]
    assert main([*argv, "--force", "--batch-rows", "20"]) == 1
    assert "No space left on device" in capsys.readouterr().err
    assert out.read_text() == "the earlier predictions\n"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []
    monkeypatch.undo()
    assert main([*argv, "--force", "--batch-rows", "20"]) == 0
    assert len(out.read_text().splitlines()) == 61


def test_fit_with_force_replaces_the_model_whole(table, tmp_path):
    model = tmp_path / "m.json"
    assert _fit(table, model) == 0
    assert _fit(table, model, "--force", "--format", "pickle") == 0
    assert load_model(model)["name"] == "nb"
    assert _names(tmp_path) == ["data.csv", "m.json"]
