"""Tables read in batches: CSV (also gzipped) and Parquet files, or folders of them.

The reader behind ``discotree fit --data`` and ``discotree predict --data``: batches of
at most ``batch_rows`` rows as pandas DataFrames, so that memory stays bounded by the
batch whatever the size of the file (pyarrow datasets). Fields are read by the rule of
:mod:`discotree.datasets.reading`, as the in-memory :func:`~discotree.datasets.load_csv`
reads them.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from queue import Full, Queue
from typing import Any

import numpy as np
import pandas as pd

from .fingerprints import HashingReader, SourceFingerprints, hash_file
from .reading import (
    arrow_csv_options,
    check_labels,
    check_same_schema,
    header_names,
    numeric_text_message,
    numeric_typo_rows,
    unreadable_file_error,
)

__all__ = ["TableSource", "open_table"]

_FORMATS = {".parquet": "parquet", ".pq": "parquet", ".csv": "csv", ".gz": "csv"}
#: The compressions pyarrow's CSV reader infers from a file's extension.
_COMPRESSIONS = {".gz": "gzip", ".bz2": "bz2", ".lz4": "lz4", ".zst": "zstd", ".br": "brotli"}


def _format_of(path: Path) -> str:
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    kinds = {
        _FORMATS[p.suffix.lower()]
        for p in files
        if not p.name.startswith((".", "_")) and p.suffix.lower() in _FORMATS
    }
    if len(kinds) != 1:
        raise ValueError(
            f"{path}: expected .csv, .csv.gz or .parquet files (one kind), found "
            f"{sorted(kinds) or 'none'}."
        )
    return kinds.pop()


class TableSource:
    """A CSV or Parquet file (or folder of them) read in batches.

    Parameters
    ----------
    path : str or Path
        A ``.csv``, ``.csv.gz`` or ``.parquet`` file, or a folder of files of one kind.

    Attributes
    ----------
    columns : list of str
        Column names.
    n_rows : int or None
        Number of rows when known without reading the data (Parquet metadata).
    fingerprints : SourceFingerprints
        What the first complete read of each file found (size, modification time,
        digest of its bytes).

    Notes
    -----
    A CSV column whose type pyarrow infers as text from a file's first block (the
    block it reads the types from) though the block's cells are numbers but a few
    (a typo such as ``1.2O``, by the rule of
    :func:`~discotree.datasets.reading.numeric_typo_rows` applied to that block) is a
    ``ValueError`` naming the file, the column and the cells (row, value) when
    :meth:`batches` is asked for that column as a feature (the target's labels are
    categories, never checked). A cell that is not a number after the first block of
    a column read as numbers is a ``ValueError`` too (pyarrow's, naming the value).
    Parquet files store their types: nothing is parsed, nothing checked.

    Every read of the source (:meth:`batches`, :meth:`labels`) is checked against the
    first: a file added to or removed from a folder, or a file whose bytes changed
    (appended rows, a changed label, a replaced file, even of the same size) is a
    ``ValueError`` naming the file, so that a learner reading the source in several
    passes never mixes two versions of the data. A changed modification time alone is
    not a change (see :mod:`discotree.datasets.fingerprints`). A file's bytes are
    checked once it has been read, so a changed file may first show as a batch that
    breaks the rules of the first pass (a new label, say): fit within
    :meth:`noticing_changes`, and such an error names the file.

    Examples
    --------
    >>> import tempfile, pandas as pd
    >>> from discotree.datasets.streaming import TableSource
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     pd.DataFrame({"x": range(5), "y": list("ababa")}).to_csv(f"{folder}/t.csv", index=False)
    ...     [len(b) for b in TableSource(f"{folder}/t.csv").batches(2)]
    [2, 2, 1]
    """

    def __init__(self, path: str | Path) -> None:
        try:
            import pyarrow as pa
            import pyarrow.dataset as ds
        except ImportError as err:  # a dependency; say what is missing
            raise ValueError(f"reading {path} in batches needs pyarrow: {err}") from None

        self.path = Path(path)
        if not self.path.exists():
            raise ValueError(f"file not found: {self.path}")
        self.format = _format_of(self.path)
        try:  # pyarrow reads the schema of a file here
            self._dataset = ds.dataset(
                str(self.path), format=self.format, exclude_invalid_files=False
            )
        except (OSError, pa.ArrowException) as err:
            raise self._unreadable(err) from None
        # per column, the message about numbers with typos in its first file so read
        self._typos: dict[str, str] = {}
        self._schema = self._checked_schema()
        self.columns = list(self._schema.names)
        self.n_rows = self._dataset.count_rows() if self.format == "parquet" else None
        self.fingerprints = SourceFingerprints(str(self.path), list(self._dataset.files))

    def _unreadable(self, error: BaseException) -> ValueError:
        """Why pyarrow could not open the source (``error``), naming the first of its
        files that it cannot read and the problem."""
        import pyarrow as pa
        import pyarrow.csv as pcsv
        import pyarrow.parquet as pq

        if self.path.is_file():
            return _unreadable_file(self.path, self.format, error)
        for file in sorted(p for p in self.path.rglob("*") if p.is_file()):
            if file.name.startswith((".", "_")) or _FORMATS.get(file.suffix.lower()) is None:
                continue
            try:
                if self.format == "parquet":
                    pq.read_schema(file)
                else:
                    with pcsv.open_csv(file, convert_options=arrow_csv_options()) as reader:
                        reader.read_next_batch()
            except StopIteration:  # a header only
                continue
            except (OSError, pa.ArrowException) as err:
                return _unreadable_file(file, self.format, err)
        return ValueError(f"{self.path}: cannot be read as {self.format} ({error})")

    def _checked_schema(self) -> Any:
        """The schema of every file, checked to be one (see
        :func:`~discotree.datasets.reading.check_same_schema`)."""
        import pyarrow as pa
        import pyarrow.csv as pcsv
        import pyarrow.parquet as pq

        files = [Path(f) for f in self._dataset.files]
        if not files:
            raise ValueError(f"{self.path}: no data file")
        schemas = []
        for file in files:
            try:
                if self.format == "parquet":
                    schemas.append(pq.read_schema(file))
                else:
                    with pcsv.open_csv(file, convert_options=arrow_csv_options()) as reader:
                        schemas.append(reader.schema)
                        if len(set(reader.schema.names)) < len(reader.schema.names):
                            header_names(file)  # a ValueError naming the repeated names
                        self._find_typos(file, reader)
            except (OSError, pa.ArrowException, UnicodeDecodeError) as err:  # names not UTF-8
                raise _unreadable_file(file, self.format, err) from None
        try:
            return check_same_schema(files, schemas)
        except ValueError as err:  # text in one file, numbers in another: typos, if found
            if self._typos:
                raise ValueError(next(iter(self._typos.values()))) from err
            raise

    def _find_typos(self, file: Path, reader: Any) -> None:
        """Note the text columns of the first block of a CSV file (the one pyarrow
        infers the types from) that hold numbers but in a few cells."""
        import pyarrow.types as pt

        text = [
            field.name
            for field in reader.schema
            if (pt.is_string(field.type) or pt.is_large_string(field.type))
            and field.name not in self._typos
        ]
        if not text:
            return
        try:
            block = reader.read_next_batch()
        except StopIteration:  # a header only
            return
        for name in text:
            column = block.column(name).to_numpy(zero_copy_only=False)
            rows = numeric_typo_rows(column)
            if rows is not None:
                self._typos[name] = numeric_text_message(
                    str(file), name, column, rows, part=f"its first {block.num_rows} rows"
                )

    def batches(
        self,
        batch_rows: int = 100_000,
        columns: list[str] | None = None,
        prefetch: bool = True,
        target: str | None = None,
    ) -> Iterator[Any]:
        """The rows in order, ``batch_rows`` at a time (the last batch may be
        shorter), as DataFrames; empty fields and nulls are missing values.

        With ``prefetch`` the next batch is read and converted in a background thread
        while the caller works on this one (pyarrow releases the GIL): one more batch
        in memory, the reading hidden behind the counting. With ``target``, each batch
        is a pair ``(X, y)``: the other columns and that column, split off in the same
        background thread.

        Raises
        ------
        ValueError
            If ``batch_rows`` < 1, or a column asked for (other than ``target``) holds
            numbers but in a few cells of text (see the class's notes), naming them.
        """
        if batch_rows < 1:
            raise ValueError(f"batch_rows must be >= 1, got {batch_rows}")
        for name in self.columns if columns is None else columns:
            if name in self._typos and name != target:
                raise ValueError(self._typos[name])
        frames: Iterator[Any] = self._frames(batch_rows, columns)
        if target is not None:
            self.check_column(target)
            frames = ((frame.drop(columns=[target]), frame[target]) for frame in frames)
        return _prefetched(frames) if prefetch else frames

    def _frames(self, batch_rows: int, columns: list[str] | None) -> Iterator[pd.DataFrame]:
        import pyarrow as pa

        pending: list[pd.DataFrame] = []
        size = 0
        try:
            for batch in self._arrow_batches(batch_rows, columns):
                if batch.num_rows == 0:
                    continue
                pending.append(batch.to_pandas())
                size += batch.num_rows
                while size >= batch_rows:  # exactly batch_rows rows per batch
                    frame = _concat(pending)
                    yield frame.iloc[:batch_rows].reset_index(drop=True)
                    rest = frame.iloc[batch_rows:].reset_index(drop=True)
                    pending, size = ([rest] if len(rest) else []), len(rest)
        except pa.ArrowInvalid as err:
            raise ValueError(
                f"{self.path}: {err} (a column must keep one type through the whole file)"
            ) from None
        if pending:
            yield _concat(pending)

    def _arrow_batches(self, batch_rows: int, columns: list[str] | None):
        """Arrow record batches, one file and one Parquet row group (or CSV block) at a
        time: memory is bounded by a row group, whatever the number of rows (pyarrow's
        whole-file scanners keep more of the file as they go)."""
        import pyarrow as pa
        import pyarrow.csv as pcsv
        import pyarrow.parquet as pq

        self.fingerprints.check_files(self._current_files())
        for file in self._dataset.files:
            before = self.fingerprints.before_reading(file)
            if self.format == "parquet":
                parquet = pq.ParquetFile(file)
                for group in range(parquet.num_row_groups):
                    try:
                        yield from self._row_group(parquet, group, batch_rows, columns)
                    except (OSError, pa.ArrowException) as err:
                        raise ValueError(
                            f"{file}: row group {group} of {parquet.num_row_groups} cannot be "
                            f"read, the file is damaged ({err})"
                        ) from None
                self.fingerprints.after_reading(file, before, hash_file(file))
                continue
            convert = arrow_csv_options(column_types=self._schema, include_columns=columns)
            with HashingReader(file) as raw:  # the digest of the bytes, as they are read
                stream: Any = pa.PythonFile(raw, mode="r")
                compression = _COMPRESSIONS.get(Path(file).suffix.lower())
                if compression is not None:
                    stream = pa.CompressedInputStream(stream, compression)
                try:
                    with pcsv.open_csv(stream, convert_options=convert) as reader:
                        yield from reader
                except (OSError, pa.ArrowException) as err:  # not a cell it cannot convert
                    error = unreadable_file_error(file, "csv", err)
                    if error is None:
                        raise
                    raise error from None
                # the reader reads to the end; if not, the file (unchanged since before)
                digest = raw.hexdigest() if raw.at_end else hash_file(file)
            self.fingerprints.after_reading(file, before, digest)

    def _current_files(self) -> list[str]:
        """The files the source holds now (a folder is listed again)."""
        if not self.path.is_dir():  # a file (one that is gone fails its check)
            return list(self._dataset.files)
        import pyarrow.dataset as ds

        listed = ds.dataset(str(self.path), schema=self._schema, format=self.format)
        return list(listed.files)

    @staticmethod
    def _row_group(parquet: Any, group: int, batch_rows: int, columns: list[str] | None):
        if parquet.metadata.row_group(group).num_rows <= _WHOLE_GROUP_ROWS:
            # a group at a time decodes its columns on parallel threads
            table = parquet.read_row_group(group, columns=columns)
            yield from table.to_batches(max_chunksize=batch_rows)
            return
        yield from parquet.iter_batches(batch_size=batch_rows, row_groups=[group], columns=columns)

    def labels(self, target: str) -> np.ndarray:
        """The distinct values of column ``target`` (one pass reading that column).

        Raises
        ------
        ValueError
            If a label is missing (naming its rows) or the table has no data row.
        """
        self.check_column(target)
        found: set = set()
        n_rows = 0
        # the labels are categories: read without the check of numbers with typos
        for frame in _prefetched(self._frames(1_000_000, [target])):
            column = frame[target]
            check_labels(column, f"{self.path}: the target column {target!r}", n_rows)
            found.update(column.unique().tolist())
            n_rows += len(frame)
        if n_rows == 0:
            raise ValueError(f"{self.path}: no data rows (a header only); nothing to fit")
        return np.array(sorted(found, key=lambda v: (type(v).__name__, v)))

    def check_unchanged(self) -> None:
        """Check now, reading every file again in chunks (no parsing), that the source
        holds what its first read found.

        Raises
        ------
        ValueError
            Naming a file added, removed or changed since the first read.
        """
        self.fingerprints.check(self._current_files())

    @contextmanager
    def noticing_changes(self) -> Iterator[TableSource]:
        """A context for reading the source in passes: a ``ValueError`` raised within
        (a batch with a label or category the first pass did not have, say) is first
        explained by a file changed since its first read, if one did (the error then
        names it, the original chained to it).

        Examples
        --------
        >>> import tempfile, pandas as pd
        >>> from discotree import KDBClassifier
        >>> from discotree.engines.file_passes import fit_in_passes
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     frame = pd.DataFrame({"x": [0, 1] * 20, "z": [0, 0, 1, 1] * 10})
        ...     frame.assign(y=list("ab") * 20).to_csv(f"{folder}/t.csv", index=False)
        ...     source = open_table(f"{folder}/t.csv")
        ...     with source.noticing_changes():
        ...         model = fit_in_passes(
        ...             KDBClassifier(k=1), lambda: source.batches(10, target="y"),
        ...             classes=source.labels("y"))
        >>> model.predict(frame.iloc[:2]).tolist()
        ['a', 'b']
        """
        try:
            yield self
        except ValueError as err:
            try:
                self.check_unchanged()
            except ValueError as changed:
                raise changed from err
            raise

    def check_column(self, target: str) -> None:
        if target not in self.columns:
            raise ValueError(
                f"{self.path}: no column named {target!r}; columns are {', '.join(self.columns)}"
            )
        if len(self.columns) < 2:
            raise ValueError(f"{self.path}: no feature column besides {target!r}")


_DONE = object()
#: Parquet row groups of at most this many rows are read whole (larger ones in batches).
_WHOLE_GROUP_ROWS = 1 << 20


def _prefetched(items: Iterator[Any], depth: int = 1) -> Iterator[Any]:
    """``items`` produced by a background thread at most ``depth`` ahead of the
    consumer; an error in the producer is raised in the consumer, and a consumer that
    stops early (or fails) stops the producer."""
    queue: Queue = Queue(maxsize=depth)
    stop = threading.Event()

    def put(entry: tuple) -> bool:
        while not stop.is_set():
            try:
                queue.put(entry, timeout=0.05)
                return True
            except Full:
                continue
        return False

    def produce() -> None:
        try:
            for item in items:
                if not put((item, None)):
                    return
            put((_DONE, None))
        except BaseException as err:  # handed to the consumer, raised there
            put((_DONE, err))

    thread = threading.Thread(target=produce, name="discotree-prefetch", daemon=True)
    thread.start()
    try:
        while True:
            item, error = queue.get()
            if error is not None:
                raise error
            if item is _DONE:
                return
            yield item
    finally:
        stop.set()
        thread.join()


def _unreadable_file(file: str | Path, file_format: str, error: BaseException) -> ValueError:
    """Why ``file`` cannot be read, in plain words when the problem is known (see
    :func:`~discotree.datasets.reading.unreadable_file_error`), else pyarrow's."""
    known = unreadable_file_error(file, file_format, error)
    return known or ValueError(f"{file}: cannot be read as {file_format} ({error})")


def _concat(frames: list[pd.DataFrame]) -> pd.DataFrame:
    return frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)


def open_table(path: str | Path) -> TableSource:
    """A :class:`TableSource` for ``path``."""
    return TableSource(path)
