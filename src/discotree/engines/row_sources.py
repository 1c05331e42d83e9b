"""Row sources: the encoded rows of a fit, in parts, wherever they are, for learners
whose statistics are sums over rows computed in passes.

A learner that reads its rows only through :meth:`RowSource.total` (the sum over the
parts of ``part_sum(rows, *args)``, each part a :class:`~discotree.learners.registry.Rows`
of encoded rows) runs unchanged on rows in memory (:class:`MemorySource`), on the
batches of a file read once per pass (:class:`BatchSource`: memory one batch and the
sums) and on Dask partitions (``discotree.engines.ensemble_dask.DaskSource``: the sums
computed where the partitions live). ``part_sum`` must be a module-level function (it
is shipped to Dask workers) and return None for a part it has nothing to say about;
the parts' results are added by :func:`add_parts`.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from ..learners.registry import Rows
from ..sufficient_statistics import StatisticsSchema

__all__ = ["BatchSource", "MemorySource", "RowSource", "SpilledSource", "add_parts", "rows_of"]


def add_parts(a: Any, b: Any) -> Any:
    """The sum of two parts' results: numbers and arrays by ``+``, tables by their
    ``+``, dicts, lists and tuples element by element; None is the empty sum.

    Examples
    --------
    >>> add_parts({"n": 1, "w": [1.0, (2.0, 3.0)]}, {"n": 2, "w": [1.0, (1.0, None)]})
    {'n': 3, 'w': [2.0, (3.0, 3.0)]}
    """
    if a is None:
        return b
    if b is None:
        return a
    if isinstance(a, dict):
        return {key: add_parts(a[key], b[key]) for key in a}
    if isinstance(a, list | tuple):
        return type(a)(add_parts(p, q) for p, q in zip(a, b, strict=True))
    return a + b


class RowSource(Protocol):
    """Encoded rows in parts: their classes and categories, and sums over them."""

    n_classes: int
    n_categories: NDArray[np.intp]

    def total(self, part_sum: Callable[..., Any], *args: Any) -> Any:
        """The sum (:func:`add_parts`) over the parts of ``part_sum(rows, *args)``."""
        ...


def rows_of(
    codes: NDArray[Any],
    class_index: NDArray[np.intp],
    weights: NDArray[np.float64] | None,
    n_classes: int,
    n_categories: NDArray[np.intp],
) -> Rows:
    """A part's :class:`~discotree.learners.registry.Rows` (weights of one when None)."""
    w = np.ones(len(codes)) if weights is None else np.asarray(weights, dtype=np.float64)
    return Rows(codes, np.asarray(class_index, dtype=np.intp), w, n_classes, n_categories)


class MemorySource:
    """Rows in memory, in parts of ``part_rows`` (the reference the other sources are
    tested against).

    Examples
    --------
    >>> rows = Rows(np.zeros((5, 1), dtype=int), np.zeros(5, dtype=np.intp), np.ones(5), 2,
    ...     np.array([1]))
    >>> MemorySource(rows, part_rows=2).total(lambda part: len(part.codes))
    5
    """

    def __init__(self, rows: Rows, part_rows: int = 1 << 16) -> None:
        self.rows = rows
        self.part_rows = int(part_rows)
        self.n_classes = rows.n_classes
        self.n_categories = np.asarray(rows.n_categories, dtype=np.intp)
        self.n_passes = 0

    def total(self, part_sum: Callable[..., Any], *args: Any) -> Any:
        self.n_passes += 1
        out = None
        for start in range(0, len(self.rows.codes), self.part_rows):
            part = self.rows.take(slice(start, start + self.part_rows))  # type: ignore[arg-type]
            out = add_parts(out, part_sum(part, *args))
        return out


class BatchSource:
    """The batches of a source read again at every pass (a file larger than memory),
    each encoded under ``schema``: memory is one batch and the sums.

    Parameters
    ----------
    batches : callable
        Returns a new iterator of ``(X, y)`` or ``(X, y, sample_weight)`` batches over
        the whole data at each call.
    schema : StatisticsSchema
        The encoding of every batch (from a first pass, :mod:`.schema_summaries`).
    owner : str
        The name in error messages.

    Notes
    -----
    A pass raises ``ValueError`` at a batch the schema cannot encode (other columns, a
    label or a category not in the schema: the data changed since the schema pass), or
    when it reads another number of rows than the first.
    """

    def __init__(
        self,
        batches: Callable[[], Iterable[tuple[Any, ...]]],
        schema: StatisticsSchema,
        owner: str,
    ) -> None:
        self.batches = batches
        self.schema = schema
        self.owner = owner
        self.n_classes = len(schema.classes)
        self.n_categories = np.asarray(schema.n_categories, dtype=np.intp)
        self.n_passes = 0
        self.n_rows: int | None = None

    def parts(self) -> Iterator[Rows]:
        """One pass: every batch encoded, as rows (batches without rows skipped)."""
        number = self.n_passes = self.n_passes + 1
        n_read = 0
        for index, batch in enumerate(self.batches(), start=1):
            X, y, w = (*batch, None)[:3]
            try:
                codes, class_index, weights = self.schema.encode(X, y, w)
            except ValueError as err:
                raise ValueError(
                    f"{self.owner}: pass {number}, batch {index}: {err} Every pass must "
                    "read the batches of the first."
                ) from err
            n_read += len(X)
            if len(codes):
                yield rows_of(codes, class_index, weights, self.n_classes, self.n_categories)
        if self.n_rows is None:
            self.n_rows = n_read
        elif n_read != self.n_rows:
            raise ValueError(
                f"{self.owner}: pass {number} read {n_read} rows, the first {self.n_rows}. "
                "Every pass must read the batches of the first."
            )

    def total(self, part_sum: Callable[..., Any], *args: Any) -> Any:
        out = None
        for part in self.parts():
            out = add_parts(out, part_sum(part, *args))
        return out


class SpilledSource:
    """A :class:`BatchSource` whose first pass keeps every part's encoded rows (the
    codes, a byte or two per cell, the classes and weights) and whose later passes read
    them back one part at a time: the source is parsed and encoded twice (the schema
    pass, then this one) instead of once per pass. Parts are kept in memory up to
    ``keep_bytes`` in all, the rest written to a temporary folder (about ``n x d``
    bytes of disk, removed by :meth:`close` or when the source is garbage-collected):
    memory stays bounded by ``keep_bytes``, one part and the sums.

    Examples
    --------
    >>> import numpy as np
    >>> from discotree import StatisticsSchema
    >>> X, y = np.array([[0, 1], [1, 0], [1, 1]]), np.array([0, 1, 1])
    >>> schema = StatisticsSchema.from_sample(X, classes=[0, 1])
    >>> batches = BatchSource(lambda: [(X[:2], y[:2]), (X[2:], y[2:])], schema, "doc")
    >>> source = SpilledSource(batches, keep_bytes=0)  # every part on disk
    >>> [source.total(lambda part: len(part.codes)) for _ in range(2)], batches.n_passes
    ([3, 3], 1)
    >>> source.close()
    """

    def __init__(
        self, inner: BatchSource, folder: str | Path | None = None, keep_bytes: int = 64 << 20
    ) -> None:
        self.inner = inner
        self.n_classes = inner.n_classes
        self.n_categories = inner.n_categories
        self.keep_bytes = int(keep_bytes)
        self._folder = tempfile.TemporaryDirectory(prefix="discotree-passes-", dir=folder)
        self._parts_kept: list[Rows | int] | None = None  # a part, or its file's number
        self.n_passes = 0

    def _path(self, index: int, name: str) -> Path:
        return Path(self._folder.name) / f"part{index}-{name}.npy"

    def _first(self) -> Iterator[Rows]:
        kept: list[Rows | int] = []
        held = 0
        for index, part in enumerate(self.inner.parts()):
            size = part.codes.nbytes + part.class_index.nbytes + part.weights.nbytes
            if held + size <= self.keep_bytes:
                kept.append(part)
                held += size
            else:
                for name in ("codes", "class_index", "weights"):
                    np.save(self._path(index, name), getattr(part, name))
                kept.append(index)
            yield part
        self._parts_kept = kept

    def parts(self) -> Iterator[Rows]:
        """One pass: the inner source's parts the first time, then the kept ones."""
        self.n_passes += 1
        if self._parts_kept is None:
            yield from self._first()
            return
        for part in self._parts_kept:
            if isinstance(part, Rows):
                yield part
                continue
            codes, class_index, weights = (
                np.load(self._path(part, name)) for name in ("codes", "class_index", "weights")
            )
            yield Rows(codes, class_index, weights, self.n_classes, self.n_categories)

    def total(self, part_sum: Callable[..., Any], *args: Any) -> Any:
        out = None
        for part in self.parts():
            out = add_parts(out, part_sum(part, *args))
        return out

    def close(self) -> None:
        """Forget the parts and remove the spilled ones."""
        self._parts_kept = None
        self._folder.cleanup()
