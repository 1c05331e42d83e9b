"""The encoding of raw columns into category codes as ONNX operations: the input side
of the graphs :func:`discotree.io.onnx.to_onnx` writes with ``inputs="raw"``.

**Inputs**: one per column of the training table, as skl2onnx names them: the
column's name (``feature_names_in_``), or ``x0``, ``x1``, ... when the estimator was
fitted without names; each of shape (n, 1), its type given by how the estimator's
``encoder_`` encodes the column:

- a binned numeric column: ``double``; its bin is the number of the discretizer's
  interior edges strictly below the value (``searchsorted(edges, x, side="left")``:
  bins closed on the right, a value equal to an edge in the bin below it), as
  :meth:`discotree.Discretizer.bin_codes` computes it: ``ReduceSum(Cast(Less(edges,
  x)))``;
- a numeric column taken as categorical (at most ``max_categories`` values), or a
  categorical column whose categories are all numbers: ``double``, coded by exact
  equality with its sorted categories (``Equal``, then the position of the match);
- a categorical column of strings: ``string``, coded by ``LabelEncoder``
  (``ai.onnx.ml``) with the category dictionary;
- a categorical column of booleans: ``bool``, coded as the numbers 0 and 1.

Columns of any other categories (mixed types, integers beyond 2**53, which a double
does not hold exactly) and columns that had no value at fit time are refused at
export, with their name.

**Missing values**: a NaN, an infinite value (which ``predict_proba`` refuses) or a
category not seen in fit (for strings: any other string, the empty string included
unless it was a category) gets the code -1 in the graph's ``codes`` output; the graph
does not sum such features out (``predict_proba`` does), so that row's outputs are NaN.
:func:`onnx_inputs` builds the inputs from a table and refuses rows with missing or
unseen values, as :func:`discotree.io.onnx.onnx_codes` does.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from .. import missing_values
from ..docstrings import fill_doc
from ..transformers.discretizer import Discretizer
from ..validation import check_is_fitted, check_table, validate_data
from .onnx_graph import GraphBuilder

__all__ = ["RawColumn", "encode_raw", "onnx_inputs", "raw_columns"]

#: The graph outputs, which no input may be named.
OUTPUT_NAMES = ("probabilities", "joint_log_proba", "codes")


class RawColumn:
    """One raw input of the graph: its name, its ONNX element type (``"double"``,
    ``"string"`` or ``"bool"``), how it is coded (``"bins"`` or ``"categories"``) and
    the edges or categories.

    Examples
    --------
    >>> RawColumn("size", "double", "bins", np.array([1.5, 3.0]))
    RawColumn('size', 'double', 'bins', 2 values)
    """

    def __init__(self, name: str, element: str, coding: str, values: NDArray[Any]) -> None:
        self.name, self.element, self.coding, self.values = name, element, coding, values

    def __repr__(self) -> str:
        fields = f"{self.name!r}, {self.element!r}, {self.coding!r}"
        return f"RawColumn({fields}, {len(self.values)} values)"


def _input_names(estimator: Any) -> list[str]:
    names = getattr(estimator, "feature_names_in_", None)
    if names is None:
        return [f"x{j}" for j in range(int(estimator.n_features_in_))]
    return [str(v) for v in names]


def _category_element(values: list[Any]) -> str | None:
    """The input type of a column of these categories, None when there is none."""
    if all(isinstance(v, str) for v in values):
        return "string"
    if all(isinstance(v, bool | np.bool_) for v in values):
        return "bool"
    if all(
        isinstance(v, numbers.Real)
        and not isinstance(v, bool | np.bool_)
        and float(v) == v
        and (not isinstance(v, numbers.Integral) or abs(int(v)) < 2**53)
        for v in values
    ):
        return "double"
    return None


@fill_doc
def raw_columns(estimator: Any) -> list[RawColumn]:
    """The graph's raw inputs, one per column of the fitted estimator's ``encoder_``.

    Raises
    ------
    ValueError
        For an estimator without category codes, a column the graph cannot encode
        (named), and column names that collide with the graph's outputs.

    Examples
    --------
    {example_mixed_columns}
    >>> for column in raw_columns(clf):
    ...     print(column)
    RawColumn('colour', 'string', 'categories', 2 values)
    RawColumn('size', 'double', 'bins', 4 values)
    """
    check_is_fitted(estimator)
    owner = type(estimator).__name__
    encoder = getattr(estimator, "encoder_", None)
    if encoder is None or not hasattr(encoder, "columns_"):
        raise ValueError(
            f"{owner} has no category codes (no discrete encoder_): its ONNX graph has no "
            "raw inputs."
        )
    names = _input_names(estimator)
    clashes = [n for n in names if n in OUTPUT_NAMES or n.startswith("/")]
    if clashes:
        raise ValueError(
            f"{owner}: column names {clashes} are taken by the graph's outputs "
            f"{list(OUTPUT_NAMES)} or its internal names (starting with '/'); rename "
            "those columns before fitting, or export with inputs='codes'."
        )
    discretizer = encoder.discretizer_
    if discretizer is not None and not isinstance(discretizer, Discretizer):
        raise ValueError(
            f"{owner}: its numeric columns are binned by a {type(discretizer).__name__}, "
            "not a discotree Discretizer, whose edges the graph would compare with; export "
            "with inputs='codes'."
        )
    edges = iter([] if discretizer is None else discretizer.bin_edges_)
    columns = []
    for name, spec in zip(names, encoder.columns_, strict=True):
        if spec.kind == "bins":
            cuts = np.asarray(next(edges), dtype=np.float64)
            columns.append(RawColumn(name, "double", "bins", cuts))
            continue
        values = spec.values.tolist()
        if not values:
            raise ValueError(
                f"{owner}: column {name!r} had no value at fit time: every row's code would "
                "be missing, so the graph would give none; drop the column."
            )
        element = "double" if spec.kind == "numeric-categories" else _category_element(values)
        if element is None or getattr(spec, "exact_integers", False):
            raise ValueError(
                f"{owner}: column {name!r} holds categories that no ONNX tensor type holds "
                "exactly (mixed types, or integers beyond 2**53); export with "
                "inputs='codes' (onnx_codes makes the input)."
            )
        if element == "string":
            cats = np.array(values, dtype=object)
        else:
            cats = np.array([float(v) for v in values], dtype=np.float64)
        columns.append(RawColumn(name, element, "categories", cats))
    return columns


def encode_raw(builder: GraphBuilder, columns: list[RawColumn]) -> str:
    """Add the encoding of every raw input to ``builder``; returns the name of the
    (n, n_features) int64 tensor of codes, -1 where a value is missing, infinite or
    not a category."""
    codes = [_column_codes(builder, column) for column in columns]
    return codes[0] if len(codes) == 1 else builder.op("Concat", *codes, axis=1)


def _column_codes(builder: GraphBuilder, column: RawColumn) -> str:
    """The (n, 1) int64 codes of one input."""
    x = column.name
    if column.element == "string":
        return builder.op(
            "LabelEncoder",
            x,
            domain="ai.onnx.ml",
            keys_strings=[str(v) for v in column.values],
            values_int64s=list(range(len(column.values))),
            default_int64=-1,
        )
    if column.element == "bool":
        x = builder.op("Cast", x, to=11)  # DOUBLE
    invalid = builder.op("Or", builder.op("IsNaN", x), builder.op("IsInf", x))
    minus_one = builder.constant(np.array([[-1]], dtype=np.int64), "minus_one")
    if column.coding == "bins":
        if len(column.values) == 0:  # one bin: 0, or -1 where invalid
            return builder.op("Mul", builder.op("Cast", invalid, to=7), minus_one)
        edges = builder.constant(column.values[None, :], "bin_edges")
        below = builder.op("Cast", builder.op("Less", edges, x), to=7)  # INT64
        code = builder.op("ReduceSum", below, builder.axes(1), keepdims=1)
        return builder.op("Where", invalid, minus_one, code)
    # categories: the position of the one equal category, -1 without one (NaN, inf and
    # unseen values equal none)
    cats = builder.constant(column.values[None, :], "categories")
    hits = builder.op("Cast", builder.op("Equal", x, cats), to=7)
    positions = builder.constant(
        np.arange(1, len(column.values) + 1, dtype=np.int64)[None, :], "positions"
    )
    found = builder.op("ReduceSum", builder.op("Mul", hits, positions), builder.axes(1), keepdims=1)
    return builder.op("Add", found, minus_one)


def complete_codes(
    estimator: Any, X: Any, caller: str, column_name: Callable[[int], str]
) -> NDArray[np.integer]:
    """``X`` checked against the estimator's columns (as ``predict`` checks them) and
    its category codes, which must be complete: the graphs have no input for a missing
    value or an unseen category (``predict_proba`` sums such features out).

    Raises
    ------
    ValueError
        Naming ``caller`` for columns that are not the estimator's, and the first
        incomplete row and its column (``column_name(j)``).
    """
    owner = type(estimator).__name__
    table = check_table(X, owner)
    try:
        validate_data(estimator, X, skip_check_array=True, reset=False)
    except ValueError as err:
        raise ValueError(f"{caller}: {owner}: {err}") from err
    codes = estimator.encoder_.transform(table)
    found = missing_values.first_missing(codes)
    if found is not None:
        row, j, n_missing = found
        raise ValueError(
            f"{owner}: row {row} of X has a missing or unseen value in column "
            f"{column_name(j)} ({n_missing} such cells); the ONNX graph takes complete "
            "rows: use predict_proba for rows with missing features."
        )
    return codes


@fill_doc
def onnx_inputs(estimator: Any, X: Any) -> dict[str, NDArray[Any]]:
    """The inputs of the raw-input ONNX graph for the rows of ``X``: one (n, 1) array per
    column, named and typed as :func:`raw_columns` says (float64, str objects or bool).

    Parameters
    ----------
    estimator : fitted classifier exported by :func:`discotree.io.onnx.to_onnx`
    X : array-like or DataFrame of shape (n_samples, n_features)
        Complete rows: every value present and every category seen in fit.

    Returns
    -------
    dict of str to ndarray
        The feed of ``onnxruntime.InferenceSession.run``.

    Raises
    ------
    ValueError
        If ``X``'s columns are not the estimator's, or a cell is missing or an unseen
        category (the graph gives such rows NaN; ``predict_proba`` sums them out), or
        the graph has no raw inputs for the estimator (:func:`raw_columns`).

    Examples
    --------
    {example_mixed_columns}
    >>> feed = onnx_inputs(clf, X.head(2))
    >>> feed["colour"].ravel().tolist(), feed["size"].ravel().tolist()
    (['red', 'blue'], [0.0, 1.0])
    """
    columns = raw_columns(estimator)
    complete_codes(estimator, X, "onnx_inputs", lambda j: repr(columns[j].name))
    frame = X if isinstance(X, pd.DataFrame) else None
    matrix = None if frame is not None else np.asarray(X, dtype=object)
    feed = {}
    for j, column in enumerate(columns):
        if frame is not None:
            values = frame.iloc[:, j]
        else:
            assert matrix is not None  # (an array when X is not a DataFrame)
            values = pd.Series(matrix[:, j])
        if column.element == "string":
            array = values.to_numpy(dtype=object)
        elif column.element == "bool":
            array = values.to_numpy(dtype=bool)
        else:
            array = values.astype(object).to_numpy(dtype=np.float64)
        feed[column.name] = np.array(array, copy=True).reshape(-1, 1)  # writable, own
    return feed
