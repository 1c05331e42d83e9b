"""One reading rule for tables from files: what is missing, what a label is, and when
the files of a folder make one table.

Every reader of the package follows it: :func:`~discotree.datasets.load_csv` (pandas,
in memory), :class:`~discotree.datasets.streaming.TableSource` (pyarrow, in batches;
``discotree fit --data`` and ``predict``) and the Dask path of the command line
(``dask.dataframe.read_csv``):

- a field is missing when it is empty or one of :data:`MISSING_TEXT` (pandas' default
  list, the same in every column: numbers, text and labels alike); an empty field of a
  text column is missing, never the category ``""``;
- every training row needs a label: a missing label is an error naming its rows;
- the files of a folder must have the same columns in the same order, and each column
  one kind of value (numbers or text) in every file; otherwise a ``ValueError`` names
  the file and the columns that differ.

Examples
--------
>>> import io
>>> read_csv_frame(io.StringIO("a,b\\n1,\\n,x\\n"))["b"].tolist()
[nan, 'x']
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "MISSING_TEXT",
    "arrow_csv_options",
    "check_labels",
    "check_row_lengths",
    "check_same_schema",
    "header_names",
    "pandas_csv_options",
    "read_csv_frame",
]

#: Field values read as missing (besides the empty field), in every column.
MISSING_TEXT = (
    "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
    "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null",
)  # fmt: skip


def pandas_csv_options() -> dict[str, Any]:
    """Keyword arguments of ``pandas.read_csv`` (and dask's) for the rule."""
    return {"keep_default_na": False, "na_values": ["", *MISSING_TEXT]}


def arrow_csv_options(column_types: Any = None, include_columns: Any = None) -> Any:
    """``pyarrow.csv.ConvertOptions`` for the rule: the same missing values, text
    columns included."""
    import pyarrow.csv as pcsv

    return pcsv.ConvertOptions(
        column_types=column_types,
        include_columns=include_columns,
        null_values=["", *MISSING_TEXT],
        strings_can_be_null=True,
        quoted_strings_can_be_null=True,
    )


def read_csv_frame(path: Any) -> pd.DataFrame:
    """A whole CSV file as a DataFrame, read by the rule."""
    return pd.read_csv(path, **pandas_csv_options())


def header_names(path: Any) -> list[str]:
    """The names of a CSV file's header row as written (pandas renames a repeated
    name ``a`` to ``a.1``; this reads them before it does), or a ``ValueError`` naming
    the repeated ones: every column needs its own name, as in the other readers."""
    header = pd.read_csv(path, header=None, nrows=1, dtype=str, keep_default_na=False)
    names = [str(name) for name in header.iloc[0].tolist()] if len(header) else []
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise ValueError(
            f"{path}: the header repeats the column names {repeated}; every column needs "
            "its own name."
        )
    return names


def check_row_lengths(path: Any, first_column: str) -> None:
    """Raise a ``ValueError`` quoting the first row whose number of fields differs from
    the header's (pandas would fill a short row with missing values, or read a long
    first row's first field as an index), in one pass of pyarrow's parser that
    converts only the first column."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    convert = pcsv.ConvertOptions(
        include_columns=[first_column], column_types={first_column: pa.string()}
    )
    try:
        reader = pcsv.open_csv(
            path, parse_options=pcsv.ParseOptions(newlines_in_values=True), convert_options=convert
        )
        for _ in reader:
            pass
    except pa.ArrowInvalid as err:
        raise ValueError(f"{path}: {err}; every row needs as many fields as the header.") from None


def check_labels(labels: Any, source: str, first_row: int = 0) -> None:
    """Raise a ``ValueError`` naming the rows (counted from ``first_row``) whose label
    is missing."""
    missing = np.flatnonzero(pd.isna(np.asarray(labels, dtype=object)))
    if len(missing):
        rows = (missing[:5] + first_row).tolist()
        raise ValueError(
            f"{source}: missing labels at rows {rows} (counting data rows from 0); every "
            "training row needs a label."
        )


def _kind(arrow_type: Any) -> str:
    import pyarrow.types as pt

    if pt.is_null(arrow_type):
        return "empty"
    if pt.is_integer(arrow_type) or pt.is_floating(arrow_type) or pt.is_decimal(arrow_type):
        return "number"
    if pt.is_boolean(arrow_type):
        return "boolean"
    return "text"


def check_same_schema(files: Sequence[Path], schemas: Sequence[Any]) -> Any:
    """The one schema of a folder's files (numbers of different widths unified), or a
    ``ValueError`` naming the first file whose columns (names, order) or kinds of value
    differ from the first file's."""
    import pyarrow as pa

    first = schemas[0]
    for file, schema in zip(files[1:], schemas[1:], strict=True):
        if schema.names != first.names:
            missing = [n for n in first.names if n not in schema.names]
            extra = [n for n in schema.names if n not in first.names]
            detail = (
                f"it lacks {missing} and has {extra}"
                if missing or extra
                else f"its columns are in another order: {schema.names}"
            )
            raise ValueError(
                f"{file}: its columns differ from those of {files[0]} ({first.names}): "
                f"{detail}. The files of a folder must make one table."
            )
        for name in first.names:
            kinds = {_kind(first.field(name).type), _kind(schema.field(name).type)} - {"empty"}
            if len(kinds) > 1:
                raise ValueError(
                    f"{file}: column {name!r} holds {_kind(schema.field(name).type)} values "
                    f"where {files[0]} holds {_kind(first.field(name).type)} values; a column "
                    "must keep one kind of value in every file."
                )
    try:
        return pa.unify_schemas(list(schemas), promote_options="permissive")
    except (pa.ArrowInvalid, pa.ArrowTypeError) as err:
        raise ValueError(f"{files[0].parent}: the files' columns do not agree: {err}") from None
