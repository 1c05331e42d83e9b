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
  the file and the columns that differ;
- a feature column of numbers with a few cells that are not numbers (a typo such as
  ``1.2O``) is a ``ValueError`` naming the column and the cells (row, value), by the
  rule of :data:`TYPO_MIN_NUMERIC_SHARE` and :data:`TYPO_MAX_CELLS`: read as text, it
  would silently become a categorical column with a category per number. The rule
  applies only where text is parsed into columns (these readers); a DataFrame of
  strings given to an estimator is categorical by design (strings are categories).

Examples
--------
>>> import io
>>> read_csv_frame(io.StringIO("a,b\\n1,\\n,x\\n"))["b"].tolist()
[nan, 'x']
"""

from __future__ import annotations

import codecs
import csv
import gzip
import io
import re
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from .. import missing_values

__all__ = [
    "MISSING_TEXT",
    "NOT_TEXT_ADVICE",
    "ROW_LENGTH_ADVICE",
    "TYPO_MAX_CELLS",
    "TYPO_MAX_SHARE",
    "TYPO_MIN_NUMERIC_SHARE",
    "arrow_csv_options",
    "check_labels",
    "check_numeric_text",
    "check_row_lengths",
    "check_same_schema",
    "header_names",
    "numeric_text_message",
    "numeric_typo_rows",
    "pandas_csv_options",
    "read_csv_frame",
    "unreadable_file_error",
]

#: Field values read as missing (besides the empty field), in every column.
MISSING_TEXT = (
    "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
    "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null",
)  # fmt: skip

#: Share of a text column's non-missing cells that must parse as numbers for the
#: column to be read as numbers with typos (see :func:`numeric_typo_rows`).
TYPO_MIN_NUMERIC_SHARE = 0.95
#: Most cells that may fail to parse in a column read as numbers with typos: the
#: larger of this count and :data:`TYPO_MAX_SHARE` of its non-missing cells. More
#: failures make a text column (categories that happen to include numbers).
TYPO_MAX_CELLS = 10
#: See :data:`TYPO_MAX_CELLS`.
TYPO_MAX_SHARE = 0.01
#: The end of a message about a row with more or fewer fields than the header.
ROW_LENGTH_ADVICE = "every row needs as many fields as the header."
#: The end of a message about a CSV file that is not text.
NOT_TEXT_ADVICE = (
    "a CSV file is text, a header row then one row of comma-separated fields per sample."
)
#: Bytes of a file read to tell whether it is text (:func:`unreadable_file_error`).
_HEAD_BYTES = 1 << 16
#: Cells (row, value) quoted in the message about a column of numbers with typos.
_QUOTED_CELLS = 5


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
        raise ValueError(f"{path}: {err}; {ROW_LENGTH_ADVICE}") from None


def unreadable_file_error(path: Any, file_format: str, error: BaseException) -> ValueError | None:
    """The ``ValueError`` that says in plain words why pyarrow could not read a file
    (``error``, raised opening or reading it), or None when it is none of these
    problems (a cell pyarrow cannot convert, say).

    CSV files (``.gz`` ones decompressed): an empty file; a truncated or corrupt gzip
    file; a file that is not UTF-8 text (a NUL byte, or bytes that are no UTF-8); a
    header that repeats a column name (as :func:`header_names` says it); a row with
    more or fewer fields than the header (its number counted from 1 after the header,
    its line and both counts). Parquet files: an empty file, a file that is not
    Parquet (no ``PAR1`` marker at its start and end) or one whose footer (schema and
    row groups) cannot be read. Every message begins with ``path``.

    Parameters
    ----------
    path : str or Path
        The file.
    file_format : {"csv", "parquet"}
    error : BaseException
        pyarrow's error (``pyarrow.ArrowException`` or ``OSError``).

    Returns
    -------
    ValueError or None

    Examples
    --------
    >>> import tempfile, pyarrow as pa
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "t.csv"
    ...     _ = path.write_text("a,b\\n1,2\\n3\\n")
    ...     err = unreadable_file_error(path, "csv", pa.ArrowInvalid("Expected 2 columns, got 1"))
    >>> str(err).split(": ", 1)[1].split(";")[0]
    'row 2 (line 3) has 1 field where the header has 2'
    """
    path = Path(path)
    if file_format == "parquet":
        return _parquet_error(path, error)
    gzipped = path.suffix.lower() == ".gz"
    try:
        with _opened(path, gzipped) as handle:
            head = handle.read(_HEAD_BYTES)
        if gzipped and isinstance(error, OSError):  # a stream that breaks off later
            _read_through(path)
    except (OSError, EOFError, zlib.error) as err:
        if not gzipped:
            return None
        return ValueError(
            f"{path}: not a complete gzip file, truncated or corrupt ({err}); compress the "
            "CSV file again (gzip) or read it uncompressed."
        )
    if not head.strip():
        return ValueError(f"{path}: empty file (no header row)")
    nul = head.find(b"\x00")
    if nul >= 0:
        return ValueError(f"{path}: not text (a NUL byte at byte {nul}); {NOT_TEXT_ADVICE}")
    try:  # a character cut at the end of the head is not an error
        codecs.getincrementaldecoder("utf-8")().decode(head, final=len(head) < _HEAD_BYTES)
    except UnicodeDecodeError as err:
        return ValueError(
            f"{path}: not UTF-8 text ({err.reason} at byte {err.start}); {NOT_TEXT_ADVICE}"
        )
    if "multiple columns named" in str(error):
        try:
            header_names(path)
        except ValueError as repeated:
            return repeated
    if re.search(r"Expected \d+ columns, got \d+", str(error)):
        uneven = _first_uneven_row(path, gzipped)
        if uneven is not None:
            row, line, n_fields, n_header = uneven
            return ValueError(
                f"{path}: row {row} (line {line}) has {n_fields} field"
                f"{'' if n_fields == 1 else 's'} where the header has {n_header}; "
                f"{ROW_LENGTH_ADVICE}"
            )
        return ValueError(f"{path}: {error}; {ROW_LENGTH_ADVICE}")
    return None


@contextmanager
def _opened(path: Path, gzipped: bool) -> Iterator[Any]:
    """``path`` opened for reading bytes, decompressed when ``gzipped``."""
    with gzip.open(path, "rb") if gzipped else open(path, "rb") as handle:
        yield handle


def _read_through(path: Path) -> None:
    """Decompress a gzip file to its end (an error where it is truncated or corrupt)."""
    with gzip.open(path, "rb") as handle:
        while handle.read(1 << 20):
            pass


def _first_uneven_row(path: Path, gzipped: bool) -> tuple[int, int, int, int] | None:
    """(row counted from 1 after the header, line, its fields, the header's) of the
    first row whose number of fields differs from the header's, or None."""
    with _opened(path, gzipped) as raw:
        rows = csv.reader(io.TextIOWrapper(raw, encoding="utf-8", errors="replace", newline=""))
        header = next(rows, None)
        if header is None:
            return None
        row = 0
        for fields in rows:
            if not fields:  # an empty line: pyarrow skips it
                continue
            row += 1
            if len(fields) != len(header):
                return row, rows.line_num, len(fields), len(header)
    return None


def _pyarrow_reason(error: BaseException) -> str:
    """pyarrow's message without the words of the dataset factory that wrap it."""
    return re.sub(r"^.*Could not open \w+ input source '[^']*': ", "", str(error), flags=re.S)


def _parquet_error(path: Path, error: BaseException) -> ValueError:
    size = path.stat().st_size
    if size == 0:
        return ValueError(f"{path}: empty file (not a Parquet file)")
    with open(path, "rb") as handle:
        start = handle.read(4)
        handle.seek(max(size - 4, 0))
        end = handle.read(4)
    if start != b"PAR1" or end != b"PAR1":
        return ValueError(
            f"{path}: not a Parquet file (a Parquet file begins and ends with the bytes PAR1; "
            "this one does not)"
        )
    return ValueError(
        f"{path}: a damaged Parquet file, truncated or corrupt: its footer (the schema and "
        f"the row groups) cannot be read ({_pyarrow_reason(error)})"
    )


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


def numeric_typo_rows(column: Any) -> NDArray[np.intp] | None:
    """The positions of the cells that are not numbers in a column of text that holds
    numbers otherwise, or None for a column that is not one.

    A column is one when at least :data:`TYPO_MIN_NUMERIC_SHARE` of its non-missing
    cells parse as numbers (``pandas.to_numeric``) and the others number at least one
    and at most ``max(TYPO_MAX_CELLS, TYPO_MAX_SHARE * n_non_missing)``. A column of
    categories that happens to hold a few numbers (``"A", "B", "3"``) is not one.

    Parameters
    ----------
    column : array-like of shape (n_rows,)
        The cells as read (missing cells are None or NaN).

    Returns
    -------
    ndarray of int or None
        Positions of the cells that fail to parse, in row order.

    Examples
    --------
    >>> numeric_typo_rows(["1.5", "2", None, "1.2O"] + ["3"] * 20).tolist()
    [3]
    >>> numeric_typo_rows(["A", "B", "3"]) is None
    True
    """
    codes, uniques = pd.factorize(np.asarray(column, dtype=object), use_na_sentinel=True)
    if len(uniques) == 0:
        return None
    failed = pd.isna(pd.to_numeric(pd.Index(uniques, dtype=object), errors="coerce"))
    present = missing_values.observed(codes)
    n_present = int(present.sum())
    bad = np.zeros(len(codes), dtype=bool)
    bad[present] = np.asarray(failed)[codes[present]]
    n_bad = int(bad.sum())
    limit = max(TYPO_MAX_CELLS, TYPO_MAX_SHARE * n_present)
    if n_bad == 0 or n_bad > limit or n_present - n_bad < TYPO_MIN_NUMERIC_SHARE * n_present:
        return None
    return np.flatnonzero(bad)


def numeric_text_message(
    source: str,
    name: Any,
    column: Any,
    rows: NDArray[np.intp],
    first_row: int = 0,
    part: str | None = None,
) -> str:
    """The message about column ``name`` of numbers whose cells at positions ``rows``
    are not numbers (found by :func:`numeric_typo_rows`): the column, the first cells
    (row counted from ``first_row``, value), their count and the remedies; ``part``
    says which rows ``column`` holds when not the whole column."""
    values = np.asarray(column, dtype=object)
    n_present = int((~pd.isna(values)).sum())
    cells_of = f"its {n_present}" if part is None else f"the {n_present}"
    where = "" if part is None else f" of {part}"
    cells = ", ".join(
        f"row {int(row) + first_row}: {values[row]!r}" for row in rows[:_QUOTED_CELLS]
    )
    more = f" and {len(rows) - _QUOTED_CELLS} more" if len(rows) > _QUOTED_CELLS else ""
    count = "1 cell is not a number" if len(rows) == 1 else f"{len(rows)} cells are not numbers"
    return (
        f"{source}: column {name!r} holds numbers in {n_present - len(rows)} of "
        f"{cells_of} non-missing cells{where}, but {count} ({cells}{more}; "
        "rows count data rows from 0); read as text, the column would become categorical "
        "with a category per number. Correct those cells (leave a cell empty for a missing "
        "value), or, to keep the column as text, read the file with pandas "
        f"(dtype={{{name!r}: 'category'}} or str) and pass the estimator that DataFrame."
    )


def check_numeric_text(frame: pd.DataFrame, source: str, first_row: int = 0) -> None:
    """Raise a ``ValueError`` about the first column of ``frame`` read as text that
    holds numbers but in a few cells (:func:`numeric_typo_rows`), naming the column,
    up to five cells (row, value) and their count.

    Parameters
    ----------
    frame : DataFrame
        Columns as read from a file; only text columns (``str`` or object) are looked at.
    source : str
        What the message names (the file).
    first_row : int, default=0
        The row of the frame's first row in the file (data rows counted from 0).

    Raises
    ------
    ValueError
        For such a column.

    Examples
    --------
    >>> frame = pd.DataFrame({"x": ["1.5", "1.2O"] + ["2"] * 30, "c": ["A", "B", "3", "C"] * 8})
    >>> check_numeric_text(frame, "t.csv")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: t.csv: column 'x' holds numbers in 31 of its 32 ... (row 1: '1.2O'; ...
    """
    for name in frame.columns:
        column = frame[name]
        if not (column.dtype == object or isinstance(column.dtype, pd.StringDtype)):
            continue
        rows = numeric_typo_rows(column)
        if rows is not None:
            raise ValueError(numeric_text_message(source, name, column, rows, first_row))
