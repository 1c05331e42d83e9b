"""Passes that notice: a file read in several passes that changes between them (rows
appended, a label or a category changed, the file replaced, even by one of the same
size and time stamp) is refused, naming the file; a touched but unchanged file fits as
before. Through the API, later passes check their batches as ``partial_fit`` does."""

from __future__ import annotations

import gzip
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

from discotree import KDBClassifier
from discotree.cli import main
from discotree.datasets.streaming import TableSource, open_table
from discotree.engines import file_passes
from discotree.engines.file_passes import fit_in_passes

N = 300


def _frame() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "a": rng.integers(0, 3, N),
            "b": rng.choice(["x", "y", "z"], N),
            "c": rng.integers(0, 4, N),
        }
    )
    frame["label"] = np.where((frame["a"] + (frame["b"] == "x")) % 2 == 0, "p", "q")
    return frame


def _write(frame: pd.DataFrame, path: Path) -> None:
    if path.suffix == ".parquet":
        frame.to_parquet(path, index=False)
    else:
        frame.to_csv(path, index=False)


def _source(tmp_path: Path, kind: str) -> tuple[Path, Path]:
    """The table written as ``kind``: (the path to read, the file that changes)."""
    frame = _frame()
    if kind in ("csv", "csv.gz", "parquet"):
        path = tmp_path / f"train.{kind}"
        _write(frame, path)
        return path, path
    folder = tmp_path / "parts"
    folder.mkdir()
    suffix = kind.removeprefix("folder-")
    for k, start in enumerate(range(0, N, 100)):
        _write(frame.iloc[start : start + 100], folder / f"part-{k}.{suffix}")
    return folder, folder / f"part-1.{suffix}"


def _same_time(change):
    """``change`` applied to a file whose modification time is then put back."""

    def apply(path: Path) -> None:
        stat = path.stat()
        change(path)
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))

    return apply


def _rewrite(path: Path, edit) -> None:
    """The file's table read, edited and written again in its own format."""
    if path.suffix == ".parquet":
        frame = pd.read_parquet(path)
    else:
        frame = pd.read_csv(path)
    _write(edit(frame), path)


def _label_changed(frame: pd.DataFrame) -> pd.DataFrame:
    frame.loc[5, "label"] = "q" if frame.loc[5, "label"] == "p" else "p"
    return frame


def _new_category(frame: pd.DataFrame) -> pd.DataFrame:
    frame.loc[7, "b"] = "w"
    return frame


def _rows_reversed(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.iloc[::-1]


CHANGES = {
    "rows appended": lambda path: _rewrite(path, lambda f: pd.concat([f, f.iloc[:3]])),
    "label changed": _same_time(lambda path: _rewrite(path, _label_changed)),
    "new category": _same_time(lambda path: _rewrite(path, _new_category)),
    "same size replaced": _same_time(lambda path: _rewrite(path, _rows_reversed)),
}


def _fit(path: Path, change=None, after_pass: int = 1) -> KDBClassifier:
    """kDB fitted in passes over the file (the labels read first, as the command line
    reads them); ``change`` applied to the file after pass ``after_pass`` (0: after
    the labels)."""
    source = open_table(path)
    classes = source.labels("label")

    def on_pass(number: int) -> None:
        if change is not None and number == after_pass + 1:
            change()

    def batches():
        return source.batches(100, target="label")

    with source.noticing_changes():  # as the command line reads
        return fit_in_passes(KDBClassifier(k=2), batches, classes, on_pass=on_pass)


@pytest.mark.parametrize("kind", ["csv", "csv.gz", "folder-csv", "parquet"])
@pytest.mark.parametrize("change", list(CHANGES))
def test_a_file_changed_after_the_first_pass_is_named(tmp_path, kind, change):
    path, changed = _source(tmp_path, kind)
    with pytest.raises(ValueError, match=re.escape(str(changed))) as error:
        _fit(path, lambda: CHANGES[change](changed))
    assert "changed since the first pass" in str(error.value)


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_the_labels_pass_counts_as_a_pass(tmp_path, kind):
    path, changed = _source(tmp_path, kind)
    with pytest.raises(ValueError, match=re.escape(str(changed))):
        _fit(path, lambda: CHANGES["label changed"](changed), after_pass=0)


def test_a_change_before_the_last_pass_is_noticed(tmp_path):
    path, changed = _source(tmp_path, "csv")  # selective kDB: three passes
    with pytest.raises(ValueError, match="same size, other bytes"):
        _fit(path, lambda: CHANGES["same size replaced"](changed), after_pass=2)


def test_a_file_added_to_the_folder_is_named(tmp_path):
    path, _ = _source(tmp_path, "folder-csv")
    extra = path / "part-9.csv"
    with pytest.raises(ValueError, match=re.escape(f"added {extra}")):
        _fit(path, lambda: _write(_frame().iloc[:10], extra))


@pytest.mark.parametrize("kind", ["csv", "csv.gz", "folder-parquet"])
def test_an_unchanged_or_touched_file_fits_as_in_memory(tmp_path, kind):
    """A time stamp alone is not a change: the bytes are those of the first pass."""
    path, changed = _source(tmp_path, kind)
    fitted = _fit(path, lambda: os.utime(changed, ns=(1, 1)))
    frame = _frame()
    parts = [
        (frame.iloc[s : s + 100].drop(columns="label"), frame["label"][s : s + 100])
        for s in (0, 100, 200)
    ]
    expected = fit_in_passes(KDBClassifier(k=2), lambda: iter(parts), ["p", "q"])
    X = frame.drop(columns="label")
    assert_allclose(fitted.predict_proba(X), expected.predict_proba(X), rtol=1e-12)


def test_a_file_changed_while_it_is_read_is_refused(tmp_path):
    path, _ = _source(tmp_path, "csv")
    source = TableSource(path)
    batches = source.batches(100, prefetch=False)
    next(batches)
    with path.open("a") as handle:  # rows appended under the reader
        handle.write("1,x,1,p\n")
    with pytest.raises(ValueError, match="changed while it was being read"):
        list(batches)


def test_an_error_with_the_files_unchanged_is_raised_as_it_was(tmp_path):
    path, _ = _source(tmp_path, "folder-parquet")
    source = open_table(path)
    source.labels("label")
    with pytest.raises(ValueError, match=r"^a batch broke a rule$"):
        with source.noticing_changes():
            raise ValueError("a batch broke a rule")


def test_the_digest_is_that_of_the_bytes(tmp_path):
    from discotree.datasets.fingerprints import HashingReader, hash_file

    path, _ = _source(tmp_path, "csv.gz")
    source = TableSource(path)
    assert len(list(source.batches(64))) == 5
    (found,) = source.fingerprints.by_file().values()
    assert found.digest == hash_file(path)
    assert found.size == path.stat().st_size
    assert found.digest == HashingReader.digest_of(path.read_bytes())
    assert gzip.decompress(path.read_bytes()).startswith(b"a,b,c,label")


# ------------------------------------------------------------------ the command line
def _argv(path: Path, tmp_path: Path, model: str) -> list[str]:
    out = tmp_path / "m.json"
    return ["fit", "--data", str(path), "--target", "label", "--model", model, "-o", str(out)]


@pytest.mark.parametrize(
    ("model", "after_pass"),
    [("kdb", 0), ("kdb", 1), ("tan-cmi", 0)],
    ids=["labels", "pass1", "tan-labels"],
)
def test_the_command_line_names_a_file_changed_between_passes(
    tmp_path, monkeypatch, capsys, model, after_pass
):
    """kDB reads the labels, then the file in passes; TAN (partial_fit) the labels,
    then the file once."""
    path, changed = _source(tmp_path, "csv")
    change = CHANGES["label changed"]
    if after_pass == 0:  # just after the pass over the labels
        labels = TableSource.labels

        def labels_then_change(self, target):
            found = labels(self, target)
            change(changed)
            return found

        monkeypatch.setattr(TableSource, "labels", labels_then_change)
    else:
        passes = file_passes.fit_in_passes

        def changing(estimator, batches, classes, on_pass=None):
            def hook(number):
                if number == 2:
                    change(changed)

            return passes(estimator, batches, classes, on_pass=hook)

        monkeypatch.setattr(file_passes, "fit_in_passes", changing)
    assert main([*_argv(path, tmp_path, model), "--batch-rows", "100", "-q"]) == 1
    err = capsys.readouterr().err
    assert str(changed) in err and "changed since the first pass" in err
    assert not (tmp_path / "m.json").exists()


def test_the_command_line_fits_an_unchanged_file(tmp_path, capsys):
    path, _ = _source(tmp_path, "folder-csv")
    assert main([*_argv(path, tmp_path, "kdb"), "--batch-rows", "100", "-q"]) == 0
    assert f"on {N} rows" in capsys.readouterr().out


# ------------------------------------------------------------------------- the API
def _later_passes(first, later):
    """Batches that are ``first`` on the first call, ``later`` on the others."""
    calls = []

    def batches():
        calls.append(None)
        return iter(first if len(calls) == 1 else later)

    return batches


def _parts():
    frame = _frame()
    X, y = frame.drop(columns="label"), frame["label"].to_numpy()
    return [(X.iloc[:150], y[:150]), (X.iloc[150:], y[150:])]


def test_an_unknown_label_in_a_later_pass_is_named():
    first = _parts()
    (X0, y0), second = first
    y0 = np.where(np.arange(150) == 3, "r", y0)  # "r" sorts after every class
    batches = _later_passes(first, [(X0, y0), second])
    with pytest.raises(ValueError, match=r"pass 2, batch 1: .*labels not in classes: \['r'\]"):
        fit_in_passes(KDBClassifier(k=2), batches, ["p", "q"])


def test_reordered_columns_in_a_later_pass_are_named():
    first = _parts()
    later = [(X[["c", "a", "b"]], y) for X, y in first]
    with pytest.raises(
        ValueError, match=r"pass 2, batch 1: .*\['c', 'a', 'b'\].*\['a', 'b', 'c'\]"
    ):
        fit_in_passes(KDBClassifier(k=2), _later_passes(first, later), ["p", "q"])


def test_a_category_new_in_a_later_pass_is_named():
    first = _parts()
    X0 = first[0][0].copy()
    X0.loc[4, "b"] = "w"
    later = [(X0, first[0][1]), first[1]]
    with pytest.raises(ValueError, match=r"pass 2, batch 1: .*X\['b'\] \['w'\]"):
        fit_in_passes(KDBClassifier(k=2, selective=False), _later_passes(first, later), ["p", "q"])


def test_a_label_in_the_third_pass_is_checked_too():
    first = _parts()
    (X1, y1) = first[1]
    later = [first[0], (X1, np.where(np.arange(len(y1)) == 0, "a", y1))]  # sorts first
    calls = []

    def batches():
        calls.append(None)
        return iter(first if len(calls) < 3 else later)

    with pytest.raises(ValueError, match=r"pass 3, batch 2: .*\['a'\]"):
        fit_in_passes(KDBClassifier(k=2), batches, ["p", "q"])


@pytest.mark.parametrize(
    ("model", "later", "message"),
    [
        ("kdb", [], r"pass 2 read no rows \(fewer than the 300 rows of pass 1\)"),
        ("tan", [], r"pass 2 read no rows \(fewer than the 300 rows of pass 1\)"),
        ("kdb", "first-half", r"pass 2 read 150 rows \(fewer than the 300 rows of pass 1\)"),
        ("kdb", "one-more", r"pass 2 read 301 rows \(more than the 300 rows of pass 1\)"),
    ],
)
def test_a_later_pass_of_other_rows_is_named(model, later, message):
    """A later pass that reads no rows, or fewer or more than pass 1, is a ValueError
    saying so (not a complaint about the estimator's parameters)."""
    from discotree import TANClassifier

    first = _parts()
    if later == "first-half":
        later = first[:1]
    elif later == "one-more":
        later = [*first, (first[0][0].iloc[:1], first[0][1][:1])]
    estimator = KDBClassifier(k=2) if model == "kdb" else TANClassifier(k=2, alpha=1.0)
    with pytest.raises(ValueError, match=message + r"\. Every pass must read the batches"):
        fit_in_passes(estimator, _later_passes(first, later), ["p", "q"])
