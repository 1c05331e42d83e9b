"""A column of numbers with a few cells that are not (a typo such as ``1.2O``) is named
with its cells by the readers that parse text (load_csv, the batch reader), never
silently read as categories; a column of categories with a few numbers stays text."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from discotree.datasets import load_csv
from discotree.datasets.reading import (
    TYPO_MAX_CELLS,
    check_numeric_text,
    numeric_typo_rows,
)
from discotree.datasets.streaming import TableSource


def _table(n=200, typos=None, seed=0):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "width": rng.normal(size=n).round(3).astype(str),
            "grade": rng.choice(["A", "B", "C"], n),
            "label": rng.choice(["yes", "no"], n),
        }
    )
    for row, value in (typos or {}).items():
        frame.loc[row, "width"] = value
    return frame


def test_load_csv_names_the_column_the_row_and_the_value(tmp_path):
    path = tmp_path / "t.csv"
    _table(typos={17: "1.2O"}).to_csv(path, index=False)
    with pytest.raises(ValueError, match=r"column 'width'.*row 17: '1\.2O'") as info:
        load_csv(path, "label")
    message = str(info.value)
    assert "199 of its 200 non-missing cells" in message and "1 cell is not a number" in message
    assert "Correct those cells" in message and "dtype=" in message


def test_at_most_five_cells_are_quoted_with_the_count(tmp_path):
    typos = {row: f"x{row}" for row in (3, 5, 8, 13, 21, 34, 55)}
    path = tmp_path / "t.csv"
    _table(typos=typos).to_csv(path, index=False)
    with pytest.raises(ValueError, match="7 cells are not numbers") as info:
        load_csv(path, "label")
    message = str(info.value)
    assert "row 21: 'x21'" in message and "row 34" not in message and "and 2 more" in message


def test_categories_with_a_few_numbers_stay_text(tmp_path):
    frame = _table()
    frame["grade"] = ["A", "B", "3"] * 66 + ["A", "B"]
    frame["width"] = frame["width"].astype(float)
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    X, _ = load_csv(path, "label")
    assert X["grade"].tolist() == frame["grade"].tolist()
    assert numeric_typo_rows(["A", "B", "3"]) is None


def test_the_rule_counts_the_non_missing_cells():
    numbers = [str(v) for v in range(1000)]
    # 1 % of 1000 cells is 10: TYPO_MAX_CELLS is the limit; one more is a text column
    assert numeric_typo_rows(numbers + ["x"] * TYPO_MAX_CELLS) is not None
    assert numeric_typo_rows(numbers + ["x"] * (TYPO_MAX_CELLS + 1)) is None
    # below 95 % numbers: text, however few the cells
    assert numeric_typo_rows(["1"] * 18 + ["x"] * 2) is None
    assert numeric_typo_rows(["1"] * 19 + ["x"]).tolist() == [19]
    # missing cells count for neither side
    assert numeric_typo_rows(["1"] * 19 + [None] * 50 + ["x"]).tolist() == [69]
    assert numeric_typo_rows(["1", "2", None]) is None  # no failure: nothing to report


def test_check_numeric_text_counts_rows_from_first_row():
    frame = pd.DataFrame({"x": ["1"] * 30 + ["1.2O"]})
    with pytest.raises(ValueError, match=r"row 130: '1\.2O'"):
        check_numeric_text(frame, "t.csv", first_row=100)
    check_numeric_text(frame.astype("category"), "t.csv")  # declared categories: not text


def test_the_batch_reader_names_the_cells_of_a_feature(tmp_path):
    path = tmp_path / "t.csv"
    _table(typos={17: "1.2O"}).to_csv(path, index=False)
    source = TableSource(path)
    with pytest.raises(ValueError, match=r"t\.csv: column 'width'.*row 17: '1\.2O'"):
        source.batches(50, target="label")
    with pytest.raises(ValueError, match="first 200 rows"):
        source.batches(50, columns=["width"])
    assert [len(b) for b in source.batches(50, columns=["grade", "label"])] == [50] * 4
    assert sorted(source.labels("label")) == ["no", "yes"]


def test_the_target_is_never_checked(tmp_path):
    frame = _table()
    frame["width"] = frame["width"].astype(float)
    frame["label"] = [str(k % 3) for k in range(199)] + ["other"]
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    _, y = load_csv(path, "label")
    assert "other" in set(y)
    source = TableSource(path)
    assert sum(len(X) for X, _ in source.batches(64, target="label")) == 200


def test_a_folder_whose_second_file_has_a_typo_names_the_cell(tmp_path):
    folder = tmp_path / "parts"
    folder.mkdir()
    _table(seed=1).to_csv(folder / "a.csv", index=False)
    _table(seed=2, typos={4: "0,5"}).to_csv(folder / "b.csv", index=False)
    with pytest.raises(ValueError, match=r"b\.csv: column 'width'.*row 4: '0,5'"):
        TableSource(folder)
