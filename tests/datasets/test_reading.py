"""One reading rule: a file read in batches, read whole, or read by Dask gives the same
table; folders whose files differ, empty files, damaged files and missing labels are
named."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from discotree import TANClassifier
from discotree.cli import main
from discotree.datasets import load_csv
from discotree.datasets.reading import MISSING_TEXT, read_csv_frame
from discotree.datasets.streaming import TableSource
from discotree.io import load_json

TEXT = """colour,size,count,label
red,1.5,1,yes
,2.5,,no
NA,,2,yes
blue,0.5,3,no
"",0.1,1,yes
None,3.0,0,no
"""


def _stream(path, target=None, batch_rows=2):
    return list(TableSource(path).batches(batch_rows, prefetch=False, target=target))


def test_streamed_and_whole_reads_agree_on_missing_fields(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text(TEXT)
    whole = read_csv_frame(path)
    streamed = pd.concat(_stream(path), ignore_index=True)
    assert whole["colour"].isna().tolist() == [False, True, True, False, True, True]
    assert streamed["colour"].isna().tolist() == whole["colour"].isna().tolist()
    assert streamed["size"].isna().tolist() == whole["size"].isna().tolist()
    assert streamed["count"].isna().tolist() == whole["count"].isna().tolist()
    assert "" not in streamed["colour"].dropna().tolist()


def test_the_missing_markers_are_missing_in_every_column(tmp_path):
    rows = "\n".join(f"{m},{m}" for m in MISSING_TEXT)
    path = tmp_path / "t.csv"
    path.write_text("a,b\n" + rows + "\nx,1\n")
    for frame in (read_csv_frame(path), pd.concat(_stream(path, batch_rows=100))):
        assert frame["a"].isna().sum() == len(MISSING_TEXT)
        assert frame["b"].isna().sum() == len(MISSING_TEXT)


def test_streamed_and_in_memory_fits_of_one_csv_give_one_model(tmp_path, capsys):
    rng = np.random.default_rng(0)
    n = 300
    frame = pd.DataFrame(
        {
            "colour": rng.choice(["red", "blue", ""], n),
            "count": rng.integers(0, 3, n).astype(float),
        }
    )
    frame.loc[rng.random(n) < 0.1, "count"] = np.nan
    frame["label"] = np.where((frame["colour"] == "red") ^ (rng.random(n) < 0.2), "yes", "no")
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    argv = ["fit", "--data", str(path), "--target", "label", "--model", "tan-cmi"]
    assert main([*argv, "-o", str(tmp_path / "m.json"), "--batch-rows", "64", "-q"]) == 0
    streamed = load_json(tmp_path / "m.json")["model"]
    X, y = load_csv(path, "label")
    whole = TANClassifier(alpha=1.0).fit(X, y)
    np.testing.assert_allclose(streamed.predict_proba(X), whole.predict_proba(X), atol=1e-12)


def test_an_empty_label_is_named_not_a_class(tmp_path, capsys):
    path = tmp_path / "t.csv"
    path.write_text("a,label\n1,x\n2,\n3,y\n")
    argv = ["fit", "--data", str(path), "--target", "label", "-o", str(tmp_path / "m")]
    assert main([*argv, "--model", "nb"]) == 1
    err = capsys.readouterr().err
    assert "missing labels at rows [1]" in err
    with pytest.raises(ValueError, match=r"missing labels at rows \[1\]"):
        TANClassifier().fit(*load_csv(path, "label"))


def test_files_of_a_folder_must_make_one_table(tmp_path):
    folder = tmp_path / "parts"
    folder.mkdir()
    pd.DataFrame({"a": [1, 2], "b": ["x", "y"], "label": [0, 1]}).to_csv(
        folder / "1.csv", index=False
    )
    pd.DataFrame({"a": [1, 2], "c": ["x", "y"], "label": [0, 1]}).to_csv(
        folder / "2.csv", index=False
    )
    with pytest.raises(
        ValueError, match=r"2.csv: its columns differ .* lacks \['b'\] and has \['c'\]"
    ):
        TableSource(folder)
    pd.DataFrame({"b": ["x", "y"], "a": [1, 2], "label": [0, 1]}).to_csv(
        folder / "2.csv", index=False
    )
    with pytest.raises(ValueError, match=r"2\.csv: its columns differ .* in another order"):
        TableSource(folder)
    pd.DataFrame({"a": ["p", "q"], "b": ["x", "y"], "label": [0, 1]}).to_csv(
        folder / "2.csv", index=False
    )
    with pytest.raises(ValueError, match=r"column .a. holds text values where .* number"):
        TableSource(folder)
    pd.DataFrame({"a": [1.5, np.nan], "b": ["x", None], "label": [0, 1]}).to_csv(
        folder / "2.csv", index=False
    )
    frame = pd.concat(_stream(folder, batch_rows=10))  # int and float: one number column
    assert frame["a"].tolist()[:3] == [1, 2, 1.5] and frame["a"].isna().sum() == 1


@pytest.mark.parametrize("dask", [False, True])
def test_the_cli_names_a_folder_whose_files_differ(tmp_path, capsys, dask):
    folder = tmp_path / "parts"
    folder.mkdir()
    pd.DataFrame({"a": [1, 2] * 5, "label": [0, 1] * 5}).to_csv(folder / "1.csv", index=False)
    pd.DataFrame({"z": [1, 2] * 5, "label": [0, 1] * 5}).to_csv(folder / "2.csv", index=False)
    argv = ["fit", "--data", str(folder), "--target", "label", "-o", str(tmp_path / "m")]
    argv += ["--model", "tan-cmi"]  # a model that fits from Dask too
    assert main([*argv, *(["--dask"] if dask else [])]) == 1
    assert "2.csv: its columns differ" in capsys.readouterr().err


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_a_file_with_no_rows_says_so(tmp_path, capsys, suffix):
    path = tmp_path / f"t{suffix}"
    empty = pd.DataFrame({"a": pd.Series([], dtype=float), "label": pd.Series([], dtype=str)})
    empty.to_csv(path, index=False) if suffix == ".csv" else empty.to_parquet(path)
    argv = ["fit", "--data", str(path), "--target", "label", "-o", str(tmp_path / "m")]
    assert main(argv) == 1
    assert "no data rows" in capsys.readouterr().err


def test_a_damaged_row_group_is_named(tmp_path):
    path = tmp_path / "t.parquet"
    frame = pd.DataFrame({"a": np.arange(30_000, dtype=float), "label": ["x", "y"] * 15_000})
    frame.to_parquet(path, row_group_size=10_000, compression=None)
    import pyarrow.parquet as pq

    middle = pq.ParquetFile(path).metadata.row_group(1).column(0)
    data = bytearray(path.read_bytes())
    start = middle.data_page_offset
    data[start : start + 200] = b"\xff" * 200  # the middle group's first page header
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError, match=r"row group 1 of 3 cannot be read, the file is damaged"):
        _stream(path, batch_rows=5_000)
