"""Built-in datasets (bundled with scikit-learn) and CSV loading."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from sklearn import datasets as _sk

from .reading import (
    NOT_TEXT_ADVICE,
    ROW_LENGTH_ADVICE,
    check_labels,
    check_numeric_text,
    check_row_lengths,
    header_names,
    read_csv_frame,
)

__all__ = ["BUILTIN_DATASETS", "load_builtin", "load_csv"]

BUILTIN_DATASETS = {
    "iris": _sk.load_iris,
    "wine": _sk.load_wine,
    "breast_cancer": _sk.load_breast_cancer,
    "digits": _sk.load_digits,
}


def load_builtin(name: str) -> tuple[pd.DataFrame, pd.Series]:
    """Load a dataset bundled with scikit-learn as (X DataFrame, y Series).

    Raises
    ------
    ValueError
        For an unknown name; the message lists the known ones.
    """
    try:
        loader = BUILTIN_DATASETS[name]
    except KeyError as err:
        raise ValueError(
            f"unknown dataset {name!r}; choose from {', '.join(BUILTIN_DATASETS)}"
        ) from err
    bunch = loader(as_frame=True)
    return bunch.data, bunch.target.rename("class")


def load_csv(path: str | Path, target: str) -> tuple[pd.DataFrame, pd.Series]:
    """Read a CSV file and split off the ``target`` column.

    Fields are read by the rule of :mod:`discotree.datasets.reading` (empty fields
    and the usual markers such as ``NA`` are missing values, in every column). Raises
    ``ValueError`` naming the file when it is not UTF-8 text, its header repeats a
    column name, a row has more or fewer fields than the header, the target column is
    absent or has missing labels, the file has no feature column or no data row, or
    a feature column holds numbers but in a few cells (a typo such as ``1.2O``; the
    rule of :func:`~discotree.datasets.reading.numeric_typo_rows`): the message names
    the column and the cells (row, value), which read as text would have made the
    column categorical with a category per number.
    """
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"file not found: {path}")
    try:
        names = header_names(path)
        frame = read_csv_frame(path)
    except UnicodeDecodeError as err:
        raise ValueError(
            f"{path}: not UTF-8 text ({err.reason} at byte {err.start}); {NOT_TEXT_ADVICE}"
        ) from None
    except pd.errors.EmptyDataError:
        raise ValueError(f"{path}: empty file (no header row)") from None
    except pd.errors.ParserError as err:
        raise ValueError(f"{path}: {str(err).strip()}; {ROW_LENGTH_ADVICE}") from None
    if len(frame) == 0:
        raise ValueError(f"{path}: no data rows (a header only)")
    if frame.iloc[:, -1].isna().any() or not isinstance(frame.index, pd.RangeIndex):
        check_row_lengths(path, names[0])  # a short (or long first) row, if any
    if target not in frame.columns:
        raise ValueError(
            f"{path}: no column named {target!r}; columns are {', '.join(map(str, frame.columns))}"
        )
    X = frame.drop(columns=[target])
    if X.shape[1] == 0:
        raise ValueError(f"{path}: no feature column besides {target!r}")
    check_labels(frame[target], str(path))
    check_numeric_text(X, str(path))
    return X, frame[target]
