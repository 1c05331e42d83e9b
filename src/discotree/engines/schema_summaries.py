"""The schema pass of the engines that never hold the rows: what each part of the data
says about its columns (:func:`summarise_part`: labels, the distinct values of each
column, capped, and a weighted quantile sketch of each numeric one), summaries merged
pairwise (:func:`merge_summaries`), and the schema of the whole data from the merged
summary (:func:`schema_from_summary`). The Dask engine runs it on partitions, the
passes over a file on its batches (no Dask needed).

**The bins.** A numeric column binned by quantiles gets the edges of
:func:`~discotree.transformers.discretizer.weighted_quantile_edges` on the merged
sketch. The sketch keeps every distinct value with its weight while a column has at
most :data:`SKETCH_POINTS` of them (in every part and merged): the edges are then
exactly those ``fit`` learns in memory. Beyond, it keeps :data:`SKETCH_POINTS` order
statistics each carrying the weight since the previous one, and the edges are
approximate quantiles (each within about ``1 / SKETCH_POINTS`` of its level per merge).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..config import get_config
from ..numerics import QUANTILE_MARGIN
from ..sufficient_statistics import StatisticsSchema
from ..transformers.discretizer import weighted_quantile_edges
from ..transformers.encoder import (
    TableEncoder,
    category_sort_key,
    check_cardinality,
    distinct_values,
    encoding_kind,
    present_values,
)
from ..validation import EXACT_FLOAT_INTEGER, check_table, check_targets

__all__ = [
    "SKETCH_POINTS",
    "merge_summaries",
    "schema_from_summary",
    "sketch",
    "summarise_part",
    "weights_of",
]

#: Points kept per part and column by the quantile sketch.
SKETCH_POINTS = 2048


def weights_of(w: Any, n: int) -> np.ndarray:
    """The weights of a part of ``n`` rows (ones when None)."""
    return np.ones(n) if w is None else np.asarray(w, dtype=np.float64).reshape(-1)


def sketch(values: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Weighted quantile summary: the distinct values with their weights when there
    are few, else ``SKETCH_POINTS`` order statistics each carrying the weight between
    it and the previous one."""
    keep = ~np.isnan(values) & (weights > 0)
    values, weights = values[keep], weights[keep]
    order = np.argsort(values, kind="stable")
    values, weights = values[order], weights[order]
    distinct, start = np.unique(values, return_index=True)
    if len(distinct) <= SKETCH_POINTS:
        return distinct, np.add.reduceat(weights, start) if len(values) else weights
    cumulative = np.cumsum(weights)
    levels = np.linspace(0, cumulative[-1], SKETCH_POINTS + 1)[1:]
    idx = np.minimum(np.searchsorted(cumulative, levels * (1 - QUANTILE_MARGIN)), len(values) - 1)
    idx = np.unique(idx)
    mass = np.diff(np.concatenate([[0.0], cumulative[idx]]))
    return values[idx], mass


def summarise_part(x: Any, y: Any, w: Any, max_categories: int, limit: int, owner: str) -> dict:
    """What one partition says about the schema."""
    if len(x) == 0:
        return {"n_rows": 0, "labels": np.array([]), "columns": None}
    table = check_table(x, owner)
    weights = weights_of(w, table.n_samples)
    positive = weights > 0
    y = check_targets(np.asarray(y).reshape(-1), table.n_samples, owner)
    labels = np.unique(y[positive])
    numeric = [j for j, c in enumerate(table.columns) if c.dtype.kind in "iuf"]
    distinct = {}
    if numeric:  # one compiled pass finds the columns with few values
        block = (
            table.matrix
            if table.matrix is not None
            else np.column_stack([table.columns[j] for j in numeric])
        )
        if not positive.all():
            block = block[positive]
        distinct = dict(zip(numeric, distinct_values(block, max_categories), strict=True))
    columns: list[tuple[str, Any, Any]] = []
    for j, column in enumerate(table.columns):
        if j in distinct:
            wide = column.dtype.kind in "iu" and bool(
                column.size
                and (column.max() >= EXACT_FLOAT_INTEGER or column.min() <= -EXACT_FLOAT_INTEGER)
            )
            values = distinct[j]
            as_float = column.astype(np.float64)
            if values is not None and not wide:  # few values: exact, with their weights
                exact = values.tolist()
                codes = np.searchsorted(values, as_float)
                observed = ~np.isnan(as_float) & positive
                mass = np.bincount(codes[observed], weights[observed], len(values))
                points = (values, mass)
            else:
                exact = None if values is None else np.unique(column[positive]).tolist()
                points = sketch(as_float, weights)
            columns.append(("wide" if wide else "numeric", exact, points))
        else:
            if positive.all():
                present = present_values(column, table.factorized.get(j))
            else:
                present = present_values(column[positive])
            columns.append(("object", present if len(present) <= limit else None, None))
    return {"n_rows": table.n_samples, "labels": labels, "columns": columns}


def merge_summaries(a: dict, b: dict) -> dict:
    if a["columns"] is None:
        return b
    if b["columns"] is None:
        return a
    columns: list[tuple[str, Any, Any]] = []
    for ca, cb in zip(a["columns"], b["columns"], strict=True):
        kind = (
            ca[0]
            if ca[0] == cb[0]
            else ("numeric" if {ca[0], cb[0]} <= {"numeric", "wide"} else None)
        )
        if kind is None:
            raise ValueError("a column holds numbers in one partition and other values in another")
        if kind == "object":
            values = None if ca[1] is None or cb[1] is None else ca[1] | cb[1]
            columns.append(("object", values, None))
            continue
        if ca[0] != cb[0]:
            kind = "wide"
        exact = None if ca[1] is None or cb[1] is None else sorted(set(ca[1]) | set(cb[1]))
        values = np.concatenate([ca[2][0], cb[2][0]])
        weights = np.concatenate([ca[2][1], cb[2][1]])
        columns.append((kind, exact, sketch(values, weights)))
    return {
        "n_rows": a["n_rows"] + b["n_rows"],
        "labels": np.union1d(a["labels"], b["labels"]),
        "columns": columns,
    }


def schema_from_summary(
    summary: dict,
    names: Any,
    max_categories: int,
    discretizer: Any,
    owner: str,
    *,
    default_bins: int = 5,
) -> StatisticsSchema:
    """The schema of the whole data from the merged summary of its parts
    (:func:`merge_summaries`): the classes, every column's categories and the bins of
    the binned ones (``discretizer``'s fixed edges, or its method's edges from the
    sketch; ``default_bins`` quantile bins without a discretizer), by the rules of
    ``fit`` (:func:`~discotree.transformers.encoder.encoding_kind`)."""
    limit = get_config()["category_limit"]
    if summary["columns"] is None:
        raise ValueError(f"{owner}: X has 0 rows; at least one sample is required.")
    fixed = None if discretizer is None else getattr(discretizer, "bin_edges", None)
    method = "quantile" if discretizer is None else discretizer.method
    n_bins = default_bins if discretizer is None else int(discretizer.n_bins)
    specs: list[tuple] = []
    numeric_index = 0
    for j, (kind, exact, points) in enumerate(summary["columns"]):
        label = f"X[{names[j]!r}]" if names is not None else f"X[:, {j}]"
        if kind == "object":
            if exact is None:
                check_cardinality(limit + 1, summary["n_rows"], label, owner)
            check_cardinality(len(exact), summary["n_rows"], label, owner)
            specs.append(("object", sorted(exact, key=category_sort_key), False))
            continue
        rule = encoding_kind(kind, exact, fixed is not None, max_categories)  # as fit
        if rule == "bins" and fixed is not None:
            specs.append(("bins", fixed[numeric_index]))
            numeric_index += 1
            continue
        if rule == "exact":
            specs.append(("object", sorted(int(v) for v in exact), True))
            continue
        if rule == "numeric":
            specs.append(("numeric", np.asarray(exact, dtype=np.float64)))
            continue
        values, weights = points
        if method == "quantile":
            edges = weighted_quantile_edges(values, weights, n_bins)
        elif method == "uniform":
            edges = (
                np.linspace(values.min(), values.max(), n_bins + 1)[1:-1]
                if len(values)
                else np.empty(0)
            )
        else:
            raise ValueError(
                f"{owner}: method={method!r} bins cannot be learnt in one pass over the "
                "parts of the data (dask partitions, file batches); fix them with "
                "discretizer=Discretizer(bin_edges=...) (learnt on a sample)."
            )
        specs.append(("bins", edges))
    if fixed is not None and numeric_index != len(fixed):
        raise ValueError(
            f"{owner}: the discretizer's bin_edges are for {len(fixed)} columns, X has "
            f"{numeric_index} numeric ones."
        )
    encoder = TableEncoder.from_specs(specs, max_categories, owner)
    classes = summary["labels"]
    feature_names = None if names is None else np.asarray(names, dtype=object)
    return StatisticsSchema(encoder, classes, feature_names)
