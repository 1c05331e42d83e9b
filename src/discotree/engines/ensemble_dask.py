"""Dask as the engine of :class:`~discotree.KDBEnsembleClassifier` (the extra
``discotree[dask]``): ``fit`` on a dask DataFrame or Array runs the ensemble's passes
(:mod:`discotree.engines.ensemble_passes`) on the partitions, wherever they live.

1. The schema pass of the Dask engine (:func:`~discotree.engines.dask_engine.schema_pass`'s
   summaries, :mod:`discotree.engines.schema_summaries`) with the ensemble's 30 fine
   quantile bins: exact while a numeric column has at most
   :data:`~discotree.engines.schema_summaries.SKETCH_POINTS` distinct values.
2. Every partition encoded once and persisted where it is (a byte or two per cell).
   Both read a partition by slices of :data:`PASS_SLICE_ROWS` rows
   (:func:`sliced_summary`, :func:`sliced_encoding`).
3. Every later pass (:class:`DaskSource`): the pass's function applied to each encoded
   partition, by slices of :data:`PASS_SLICE_ROWS` rows (a worker's memory bounded
   whatever the partitions' size); on a ``distributed`` cluster the partitions of each
   worker thread are added into one running total where they are, and the totals in
   the calling process (a tree of additions elsewhere); only sums reach the client
   (the pair and family tables, losses, gradients, held-out losses), never rows.

Dask's current scheduler is used: the local threaded one by default, a
``distributed.Client`` when one is active.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import dask
import dask.dataframe as dd
import numpy as np

from ..config import get_config
from ..learners.ensemble import FINE_BINS
from ..transformers.discretizer import Discretizer
from .dask_engine import encode_partition, row_partitions, tree_sum
from .ensemble_passes import fit_ensemble_in_passes, refuse_unsupported
from .row_sources import add_parts, rows_of
from .schema_summaries import merge_summaries, schema_from_summary, summarise_part

__all__ = [
    "PASS_SLICE_ROWS",
    "DaskSource",
    "fit_ensemble_dask",
    "sliced_encoding",
    "sliced_summary",
]


#: The rows of a partition a pass's function reads at once: a partition's pass works on
#: slices of this many rows and adds their sums, so a worker's memory beyond the
#: persisted codes is bounded whatever the partitions' size (as batches bound it when
#: fitting from a file).
PASS_SLICE_ROWS = 1 << 16


def _rows(values: Any, start: int, stop: int) -> Any:
    """Rows ``start:stop`` of a partition's X, y or weights (None stays None)."""
    if values is None:
        return None
    return values.iloc[start:stop] if hasattr(values, "iloc") else values[start:stop]


def sliced_summary(x: Any, y: Any, w: Any, max_categories: int, limit: int, name: str):
    """A partition's schema summary (:func:`summarise_part`) taken by slices of
    :data:`PASS_SLICE_ROWS` rows and merged, so that what a worker converts at once
    is one slice, whatever the partition's size."""
    out = None
    for start in range(0, max(len(x), 1), PASS_SLICE_ROWS):
        stop = start + PASS_SLICE_ROWS
        part = summarise_part(
            _rows(x, start, stop), _rows(y, start, stop), _rows(w, start, stop),
            max_categories, limit, name,
        )  # fmt: skip
        out = part if out is None else merge_summaries(out, part)
    return out


def sliced_encoding(schema: Any, x: Any, y: Any, w: Any) -> tuple:
    """A partition encoded (:func:`encode_partition`) by slices of
    :data:`PASS_SLICE_ROWS` rows, the slices' codes, classes and weights put together."""
    if len(x) <= PASS_SLICE_ROWS:
        return encode_partition(schema, x, y, w)
    slices = [
        encode_partition(schema, _rows(x, a, a + PASS_SLICE_ROWS), _rows(y, a, a + PASS_SLICE_ROWS),
                         _rows(w, a, a + PASS_SLICE_ROWS))
        for a in range(0, len(x), PASS_SLICE_ROWS)
    ]  # fmt: skip
    codes = np.concatenate([part[0] for part in slices])
    class_index = np.concatenate([part[1] for part in slices])
    weights = None if slices[0][2] is None else np.concatenate([part[2] for part in slices])
    return codes, class_index, weights


def _apply(encoded: tuple, part_sum: Callable[..., Any], n_classes: int, n_categories, args):
    """The sum of ``part_sum`` over one encoded partition's slices of
    :data:`PASS_SLICE_ROWS` rows (None when it holds no rows)."""
    return _apply_onto(None, encoded, part_sum, n_classes, n_categories, args)


def _apply_onto(
    total: Any, encoded: tuple, part_sum: Callable[..., Any], n_classes: int, n_categories, args
):
    """``total`` plus the sum of ``part_sum`` over one encoded partition's slices of
    :data:`PASS_SLICE_ROWS` rows, each slice's sum added as it comes (what the worker
    holds at once: the running total and one slice's sum)."""
    codes, class_index, weights = encoded
    if not len(codes):
        return total
    rows = rows_of(codes, class_index, weights, n_classes, n_categories)
    for start in range(0, len(codes), PASS_SLICE_ROWS):
        part = rows.take(slice(start, start + PASS_SLICE_ROWS))  # type: ignore[arg-type]
        total = add_parts(total, part_sum(part, *args))
    return total


def _client_of(encoded: list[Any]) -> Any:
    """The ``distributed`` client holding the persisted partitions (None: another
    scheduler chosen, or the partitions not on a cluster)."""
    if dask.config.get("scheduler", None) not in (None, "dask.distributed", "distributed"):
        return None
    try:
        from distributed import default_client, futures_of
    except ImportError:  # (the threaded scheduler)
        return None
    try:
        client = default_client()
    except ValueError:
        return None
    if not all(len(futures_of(part)) == 1 for part in encoded):
        return None
    return client


class DaskSource:
    """Encoded partitions persisted on the cluster, as a
    :class:`~discotree.engines.row_sources.RowSource`: each pass is one Dask
    computation whose result is the sum over the partitions.

    On a ``distributed`` cluster, the partitions of each worker thread are summed one
    after the other into one running total on the worker that holds them (a worker
    holds its total and one slice's sum, not one sum per partition), and the workers'
    totals are added in the calling process, one at a time: a pass whose sums are as
    large as the members' family tables then costs each worker about one copy of them.
    Elsewhere (the threaded scheduler) the partitions' sums are added by a tree.
    """

    def __init__(self, encoded: list[Any], n_classes: int, n_categories: Any) -> None:
        self.encoded = encoded
        self.n_classes = n_classes
        self.n_categories = np.asarray(n_categories, dtype=np.intp)
        self.n_passes = 0

    def total(self, part_sum: Callable[..., Any], *args: Any) -> Any:
        self.n_passes += 1
        client = _client_of(self.encoded)
        if client is not None:
            return self._total_on_workers(client, part_sum, args)
        # the arguments (tables, models) enter the graph once, not once per partition
        shared = dask.delayed(args, traverse=False, name=f"ensemble-pass-{uuid.uuid4().hex}")
        parts = [
            dask.delayed(_apply)(part, part_sum, self.n_classes, self.n_categories, shared)
            for part in self.encoded
        ]
        return tree_sum(parts, add_parts).compute()

    def _total_on_workers(self, client: Any, part_sum: Callable[..., Any], args: tuple) -> Any:
        from distributed import futures_of, wait

        futures = [futures_of(part)[0] for part in self.encoded]
        wait(futures)  # (where each partition is: known once it is encoded)
        if self.n_passes == 1:  # the partitions spread over the workers once
            client.rebalance(futures)
        where = client.who_has(futures)
        threads = client.nthreads()
        chains: dict[tuple[str, int], list[Any]] = {}
        taken = dict.fromkeys(threads, 0)  # (partitions given to each worker)
        for future in futures:
            held_by = list(where.get(future.key) or where.get(str(future.key)) or [])
            # the worker holding it with the fewest partitions given so far
            worker = min(held_by, key=lambda w: (taken.get(w, 0), w)) if held_by else ""
            lane = taken.get(worker, 0) % max(1, threads.get(worker, 1))
            taken[worker] = taken.get(worker, 0) + 1
            chains.setdefault((worker, lane), []).append(future)
        # the arguments sent once to every worker (not embedded in each task)
        [shared] = client.scatter([args], broadcast=True, hash=False)
        ends: list[Any] = []
        for (worker, _), parts in chains.items():
            running: Any = None
            for part in parts:
                placed = {"workers": [worker], "allow_other_workers": True} if worker else {}
                running = client.submit(
                    _apply_onto, running, part, part_sum, self.n_classes, self.n_categories,
                    shared, pure=False, **placed,
                )  # fmt: skip
            ends.append(running)
        del shared
        total = None
        while ends:  # (each worker's total fetched and added in turn)
            total = add_parts(total, ends.pop(0).result())
        return total


def fit_ensemble_dask(estimator: Any, X: Any, y: Any, sample_weight: Any = None) -> Any:
    """``estimator.fit`` (a :class:`~discotree.KDBEnsembleClassifier`) on dask
    collections (see the module docstring): the model of the in-memory fit, through
    the estimator's public ``fit_from_passes``."""
    name = type(estimator).__name__
    if y is None:
        raise ValueError(f"{name} requires y to be passed, but the target y is None.")
    refuse_unsupported(estimator)  # (before any pass over the partitions)
    names = list(X.columns) if isinstance(X, dd.DataFrame) else None
    if names is not None and not all(isinstance(n, str) for n in names):
        names = None
    parts = row_partitions(X, y, sample_weight)
    max_categories = int(estimator.max_categories)
    limit = get_config()["category_limit"]
    summaries = [
        dask.delayed(sliced_summary)(x, y_, w, max_categories, limit, name) for x, y_, w in parts
    ]
    summary = tree_sum(summaries, merge_summaries).compute()
    discretizer = estimator.discretizer
    if discretizer is None:
        discretizer = Discretizer(n_bins=FINE_BINS)
    schema = schema_from_summary(summary, names, max_categories, discretizer, name)
    if len(schema.classes) < 2:
        raise ValueError(f"{name}: y contains only 1 class; at least two are needed.")
    encoded = [dask.delayed(sliced_encoding)(schema, x, y_, w) for x, y_, w in parts]
    encoded = list(dask.persist(*encoded))  # the codes stay where they are
    source = DaskSource(encoded, len(schema.classes), schema.n_categories)
    return estimator.fit_from_passes(schema, lambda spec: fit_ensemble_in_passes(source, spec))
