"""The checks of a loaded model file's encoders, which :class:`~discotree.transformers.
encoder.TableEncoder` and :class:`~discotree.transformers.encoder.NumericEncoder` run
(their ``check_structure`` and ``check_numbers``, :class:`discotree.stored_checks.
CheckedState`): each column's codes against its categories, the binned columns among
the columns, the standardisation finite.

Examples
--------
>>> from types import SimpleNamespace
>>> check_numeric_encoder_numbers(SimpleNamespace(scale_=np.array([0.0])), "encoder_")
Traceback (most recent call last):
...
ValueError: encoder_.scale_: holds 0.0 at [0]; expected finite numbers in (0, 1e+100]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..stored_checks import check_counts, fail, numbers

__all__ = [
    "check_numeric_encoder_numbers",
    "check_table_encoder_numbers",
    "check_table_encoder_structure",
]


def check_table_encoder_structure(encoder: Any, where: str) -> None:
    """A fitted encoder's columns: as many as its category counts, each column's codes
    and categories those its ``n_categories`` allows (an unfitted one passes)."""
    if not hasattr(encoder, "columns_"):
        return
    columns = encoder.columns_
    counts = check_counts(encoder.n_categories_, f"{where}.n_categories_")
    if len(columns) != len(counts):
        raise fail(where, f"{len(columns)} columns but {len(counts)} category counts")
    for j, column in enumerate(columns):
        if column.n_categories != counts[j]:
            raise fail(f"{where}.columns_[{j}].n_categories",
                       f"{column.n_categories} against n_categories_ {counts[j]}")  # fmt: skip
        if column.categories is not None and len(column.categories) > column.n_categories:
            raise fail(f"{where}.columns_[{j}].categories",
                       f"{len(column.categories)} categories, more than its codes "
                       f"({column.n_categories})")  # fmt: skip
        codes = list(column.lookup.values())
        if any(not isinstance(v, int) or not 0 <= v < column.n_categories for v in codes):
            raise fail(f"{where}.columns_[{j}].lookup", "maps a value to a code out of range")
        _check_categories(column, f"{where}.columns_[{j}]")


def _is_category(value: Any) -> bool:
    """A value an object column may hold as a category: a string or a finite number."""
    if isinstance(value, float):
        return bool(np.isfinite(value))
    return isinstance(value, str | int)


def _check_categories(column: Any, where: str) -> None:
    """A column's categories as the encoder reads them: numeric ones distinct, finite
    and increasing (codes by binary search); other ones distinct strings or finite
    numbers, each the key of its own code in ``lookup`` (codes by that dictionary);
    a binned column none."""
    categories = column.categories
    if column.kind == "bins":
        if categories is not None:
            raise fail(f"{where}.categories", "a binned column has no categories")
        return
    if column.kind not in ("numeric-categories", "object-categories"):
        raise fail(f"{where}.kind", f"{column.kind!r} is not a kind of column")
    if not isinstance(categories, np.ndarray) or categories.ndim != 1:
        raise fail(f"{where}.categories", "must be a 1-D array")
    if len(categories) != column.n_categories and not (
        len(categories) == 0 and column.n_categories == 1
    ):
        raise fail(f"{where}.categories",
                   f"{len(categories)} categories for {column.n_categories} codes")  # fmt: skip
    if column.kind == "numeric-categories":
        if categories.dtype.kind not in "iuf":
            raise fail(f"{where}.categories", f"must be numbers, found dtype {categories.dtype}")
        if not np.isfinite(categories).all() or (np.diff(categories) <= 0).any():
            raise fail(f"{where}.categories", "must be distinct finite numbers, increasing")
        return
    values = categories.tolist()
    bad = [v for v in values if not _is_category(v)]
    if categories.dtype.kind != "O" or bad:
        found = repr(bad[0]) if bad else f"dtype {categories.dtype}"
        raise fail(f"{where}.categories", f"must be strings or finite numbers, found {found}")
    if len(column.lookup) != len(values) or any(
        column.lookup.get(v) != k for k, v in enumerate(values)
    ):
        raise fail(f"{where}.categories", "must be distinct, each the key of its code in lookup")


def check_table_encoder_numbers(encoder: Any, where: str) -> None:
    """Fitted: the binned columns among the columns, each once."""
    state = vars(encoder)
    if "binned_columns_" not in state or "columns_" not in state:
        return
    binned = np.asarray(state["binned_columns_"])
    n_columns = len(state["columns_"])
    if (
        binned.ndim != 1
        or (binned.size and binned.dtype.kind not in "iu")
        or ((binned < 0) | (binned >= n_columns)).any()
        or len(np.unique(binned)) != len(binned)
    ):
        raise fail(f"{where}.binned_columns_", f"must be distinct columns in [0, {n_columns})")


def check_numeric_encoder_numbers(encoder: Any, where: str) -> None:
    """The standardisation: finite offsets, positive scales."""
    state = vars(encoder)
    for name, positive in (
        ("offset_", False),
        ("scale_", True),
        ("_magnitude", True),
        ("_centre", False),
        ("_sd", True),
    ):
        if name in state:
            numbers(state[name], f"{where}.{name}", low=0.0 if positive else -1e100, above=positive)
