"""Encoding of mixed tables into the integer category codes every kernel reads."""

from __future__ import annotations

import copy
import warnings
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from sklearn.base import clone

from .. import missing_values
from ..config import get_config
from ..docstrings import fill_doc
from ..kernels.encode import (
    column_distinct,
    column_presence,
    count_negatives,
    encode_identity,
    encode_identity_columns,
    encode_lookup,
    encode_sorted,
    remap_codes,
)
from ..migrations import legacy_attribute
from ..numerics import CONSTANT_RTOL
from ..stored_checks import CheckedState
from ..stored_classes import stored
from ..threads import in_chunks
from ..validation import EXACT_FLOAT_INTEGER, Table, check_table, numeric_column, reject_inf
from .discretizer import Discretizer
from .encoder_checks import (
    check_numeric_encoder_numbers,
    check_table_encoder_numbers,
    check_table_encoder_structure,
)

__all__ = ["NumericEncoder", "TableEncoder", "encoding_kind"]

#: Cells below which a block of numeric columns is encoded on one thread.
_THREAD_CELLS = 1_000_000

_NUMERIC, _OBJECT, _BINS = "numeric-categories", "object-categories", "bins"
#: Largest integer range for which values are looked up in dense tables.
_MAX_LOOKUP = 1 << 12


@stored
@dataclass
class ColumnEncoding:
    kind: str
    categories: NDArray[Any] | None = None
    lookup: dict[Any, int] = field(default_factory=dict)
    n_categories: int = 1
    exact_integers: bool = False  # integers beyond 2**53, in numeric order

    @property
    def values(self) -> NDArray[Any]:
        """The categories of a categorical column (a binned column has none)."""
        if self.categories is None:
            raise TypeError(f"a {self.kind} column has no categories")
        return self.categories


def _power_of_two(values: NDArray[np.float64]) -> NDArray[np.float64]:
    """The power of two nearest each (positive) value."""
    return np.exp2(np.round(np.log2(values)))


def check_cardinality(n_values: int, n_rows: int, label: str, owner: str) -> None:
    """Refuse a categorical column with more categories than ``category_limit`` (its
    pair tables grow with the square of that number); warn about one that looks like
    an identifier (more than 100 categories, more than half the rows)."""
    limit = get_config()["category_limit"]
    if n_values > limit:
        raise ValueError(
            f"{owner}: {label} has {n_values} distinct categories, more than the limit of "
            f"{limit}; an identifier or free text is no feature (drop it), and a real "
            "feature with that many categories needs discotree.set_config("
            "category_limit=...) (pair tables cost memory quadratic in the categories)."
        )
    if n_values > 100 and n_values > n_rows / 2:
        warnings.warn(
            f"{owner}: {label} has {n_values} distinct categories in {n_rows} rows; it "
            "looks like an identifier, which cannot generalise (drop it?).",
            UserWarning,
            stacklevel=5,
        )


def _beyond_float(column: NDArray[Any]) -> bool:
    """An integer column holding values that float64 cannot represent exactly."""
    if column.dtype.kind not in "iu" or not column.size:
        return False
    limit = EXACT_FLOAT_INTEGER
    return bool(column.max() >= limit or (column.dtype.kind == "i" and column.min() <= -limit))


def present_values(column: NDArray[Any], factorized: Any = None, complete: bool = False) -> set:
    """The distinct values of an object column, None left out (hashing in C, or
    none when the table has the column's factorisation; not even a pass over its codes
    when every value of the factorisation occurs)."""
    if factorized is not None and complete:
        return set(factorized[1].tolist())
    if factorized is not None:
        codes, values = factorized
        used = np.zeros(len(values) + 1, dtype=bool)
        used[codes] = True  # code -1 marks the last slot: missing
        return set(values[used[:-1]].tolist())
    return {v for v in pd.unique(np.asarray(column, dtype=object)) if v is not None}


def _category_codes(column: NDArray[Any], spec: ColumnEncoding):
    """Codes of an object (or numeric, categorical at fit) column: the position of
    each value among the categories, -1 for missing and unseen values. Vectorised
    hash lookup; the same equality as the ``lookup`` dict (1 == 1.0 == True). (A
    column the table holds factorised goes through ``remap_codes`` instead.)"""
    if column.dtype.kind in "iuf":  # numeric now, categorical at fit
        column = column.astype(object)
        if column.dtype.kind == "f":
            column[pd.isna(column)] = None
    if len(spec.values) == 0:
        return np.full(len(column), -1, dtype=np.intp)
    try:
        codes, uniques = pd.factorize(np.asarray(column, dtype=object), use_na_sentinel=True)
    except TypeError:  # values pandas cannot hash together: the dictionary, row by row
        return np.array([spec.lookup.get(v, -1) for v in column], dtype=np.intp)
    mapping = np.array([spec.lookup.get(v, -1) for v in uniques] + [-1], dtype=np.intp)
    return mapping[codes]


def _identity(value: Any) -> Any:
    return value


def category_sort_key(value: Any) -> tuple[str, str]:
    return (type(value).__name__, str(value))


def distinct_values(block: NDArray[Any], max_distinct: int) -> list[NDArray[np.float64] | None]:
    """Sorted distinct non-NaN values of each column, or None where there are more
    than ``max_distinct``."""
    if block.dtype.kind in "iu" and block.size:
        lowest, highest = int(block.min()), int(block.max())
        if highest - lowest < _MAX_LOOKUP:
            present = np.zeros((block.shape[1], highest - lowest + 1), dtype=bool)
            column_presence(block, lowest, present)
            values = [np.flatnonzero(row).astype(np.float64) + lowest for row in present]
            return [None if len(v) > max_distinct else v for v in values]
    # A column holds at most one distinct value per row: a larger max_distinct sizes
    # nothing beyond that (and is never exceeded).
    limit = min(max_distinct, block.shape[0])
    found = np.empty((block.shape[1], limit + 1))
    n_found = np.empty(block.shape[1], dtype=np.intp)
    column_distinct(block, limit, found, n_found)
    return [None if n > max_distinct else np.sort(found[j, :n]) for j, n in enumerate(n_found)]


def encoding_kind(column_kind: str, distinct: Any, fixed_bins: bool, max_categories: int) -> str:
    """The one rule that says whether a column is categorical or binned, for ``fit``,
    ``partial_fit``'s later batches and the Dask schema pass.

    Parameters
    ----------
    column_kind : {"object", "numeric", "wide"}
        What the column holds: non-numbers, numbers, or integers beyond 2**53 (exact
        as integers, not as floats).
    distinct : sized or None
        Its distinct values, or None when there are more than ``max_categories``.
    fixed_bins : bool
        Whether the discretizer has fixed ``bin_edges`` (which bin every numeric
        column).
    max_categories : int

    Returns
    -------
    {"object", "numeric", "exact", "bins"}
        Categories of any values; categories of a few numbers; categories of exact
        large integers; bins.

    Examples
    --------
    >>> encoding_kind("numeric", [1.0, 2.0], False, 10), encoding_kind("numeric", None, False, 10)
    ('numeric', 'bins')
    >>> encoding_kind("numeric", [1.0, 2.0], True, 10), encoding_kind("wide", [2**60], False, 10)
    ('bins', 'exact')
    """
    if column_kind == "object":
        return "object"
    if fixed_bins or distinct is None or len(distinct) > max_categories:
        return "bins"
    return "exact" if column_kind == "wide" else "numeric"


@stored
@fill_doc
class TableEncoder(CheckedState):
    """Turn the columns of a mixed table into category codes ``0..r_j-1``, -1 missing.

    Columns that are not numeric (strings, categoricals, booleans, objects) are
    categorical. A numeric column with at most ``max_categories`` distinct values is
    categorical too; one with more is binned by a clone of ``discretizer`` fitted on
    the training data only. At transform time a category not seen in training and a
    NaN/None are missing values (code -1).

    Every discrete estimator encodes its input with one (``encoder_``); it is public
    for users who count statistics themselves (see
    :mod:`discotree.sufficient_statistics`) or want the codes a model sees.

    Parameters
    ----------
    max_categories : int, default=10
        Numeric columns with more distinct values are binned.
    discretizer : Discretizer or None, default=None
        Bins those columns (cloned and fitted on the training rows); ``None`` means
        ``Discretizer()`` (5 equal-frequency bins).
    owner : str, default="TableEncoder"
        Estimator name used in error messages.

    Attributes
    ----------
    columns_ : list
        How each column is encoded (its kind and categories).
    {n_categories_}
    discretizer_ : Discretizer or None
        The fitted discretizer of the binned columns.
    binned_columns_ : ndarray of int
        Indices of the binned columns.
    code_dtype_ : numpy.dtype
        The smallest signed integer type holding every code (int8 unless a feature
        has more than 127 categories).

    Notes
    -----
    Numeric columns are encoded by one compiled pass (binary search in each column's
    sorted categories), O(n_samples * n_features * log r).

    Examples
    --------
    >>> import pandas as pd
    >>> from discotree import TableEncoder
    >>> X = pd.DataFrame({"colour": ["red", "blue", None], "size": [1, 3, 3]})
    >>> encoder = TableEncoder()
    >>> encoder.fit_transform(X)
    array([[ 1,  0],
           [ 0,  1],
           [-1,  1]], dtype=int8)
    >>> encoder.n_categories_
    array([2, 2])
    """

    def __init__(
        self,
        max_categories: int = 10,
        discretizer: Discretizer | None = None,
        owner: str = "TableEncoder",
    ) -> None:
        self.max_categories = max_categories
        self.discretizer = discretizer
        self.owner = owner

    def check_structure(self, where: str) -> None:
        """A loaded file's columns: their codes and categories against ``n_categories_``."""
        check_table_encoder_structure(self, where)

    def check_numbers(self, where: str) -> None:
        """A loaded file's binned columns: among the columns, each once."""
        check_table_encoder_numbers(self, where)

    def fit_transform(
        self,
        table: Any,
        sample_weight: NDArray[np.float64] | None = None,
        class_index: NDArray[np.intp] | None = None,
    ) -> NDArray[np.integer]:
        """Learn the encoding of every column and return the codes of the training rows.

        Parameters
        ----------
        table : array-like, DataFrame or validated Table of shape (n_samples, n_features)
            The training rows, all of positive weight: they define the categories and
            bins, so a weight of zero is the same as leaving the row out.
        sample_weight : ndarray of shape (n_samples,), default=None
            Weights for the discretizer's quantiles.
        class_index : ndarray of int of shape (n_samples,), default=None
            The class of each row (0..n_classes-1), for supervised discretisation
            (``Discretizer(method="mdl")``).

        Returns
        -------
        ndarray of shape (n_samples, n_features), dtype ``code_dtype_``
            Codes ``0..n_categories_[j]-1``, -1 for missing values.

        Examples
        --------
        >>> import numpy as np
        >>> from discotree import TableEncoder
        >>> codes = TableEncoder(max_categories=2).fit_transform(np.arange(10.0).reshape(5, 2))
        >>> codes.T  # more than 2 values: 5 equal-frequency bins
        array([[0, 1, 2, 3, 4],
               [0, 1, 2, 3, 4]], dtype=int8)
        """
        if not isinstance(table, Table):
            table = check_table(table, self.owner)
        columns, labels = table.columns, table.labels  # (check_table refused inf)
        self.columns_: list[ColumnEncoding] = []
        binned = []
        fixed_bins = getattr(self.discretizer, "bin_edges", None) is not None
        wide = {j for j, c in enumerate(columns) if _beyond_float(c) and not fixed_bins}
        numeric = [j for j, c in enumerate(columns) if c.dtype.kind in "iuf" and j not in wide]
        distinct: dict[int, NDArray[np.float64] | None]
        if fixed_bins:  # fixed edges bin every numeric column
            distinct = {j: None for j in numeric}
        elif numeric:
            block = self._numeric_block(table, numeric)
            distinct = dict(zip(numeric, distinct_values(block, self.max_categories), strict=True))
        else:
            distinct = {}
        for j, column in enumerate(columns):
            if j in wide:  # integers beyond 2**53: categories by exact value, else bins
                unique = np.unique(column)
                kind = encoding_kind("wide", unique, fixed_bins, self.max_categories)
            elif j in distinct:
                kind = encoding_kind("numeric", distinct[j], fixed_bins, self.max_categories)
            else:
                kind = "object"
            if kind == "bins":
                binned.append(j)
                self.columns_.append(ColumnEncoding(_BINS))
            elif kind == "exact":
                exact = unique.tolist()
                lookup = {v: k for k, v in enumerate(exact)}
                self.columns_.append(
                    ColumnEncoding(_OBJECT, np.array(exact, dtype=object), lookup, len(exact), True)
                )
            elif kind == "numeric":
                found = cast(NDArray[np.float64], distinct[j])  # (the rule: not None)
                self.columns_.append(
                    ColumnEncoding(_NUMERIC, found, n_categories=max(1, len(found)))
                )
            else:
                present = sorted(
                    present_values(column, table.factorized.get(j), j in table.complete),
                    key=category_sort_key,
                )
                check_cardinality(len(present), len(column), labels[j], self.owner)
                lookup = {v: k for k, v in enumerate(present)}
                self.columns_.append(
                    ColumnEncoding(
                        _OBJECT, np.array(present, dtype=object), lookup, max(1, len(present))
                    )
                )
        self.binned_columns_ = np.asarray(binned, dtype=np.intp)
        self.discretizer_ = None
        if binned:
            matrix = self._numeric_block(table, self.binned_columns_)
            discretizer = Discretizer() if self.discretizer is None else self.discretizer
            self.discretizer_ = clone(discretizer).fit(
                matrix, class_index, sample_weight=sample_weight
            )
            for j, n_bins in zip(binned, self.discretizer_.n_bins_, strict=True):
                self.columns_[j].n_categories = int(n_bins)
        self._set_layout()
        return self._encode(table)

    def _set_layout(self) -> None:
        self.n_categories_ = np.array([c.n_categories for c in self.columns_], dtype=np.intp)
        self.code_dtype_: np.dtype[Any] = np.dtype(np.int8)
        for dtype in (np.int8, np.int16, np.int32, np.intp):
            if self.n_categories_.max(initial=1) <= np.iinfo(dtype).max:
                self.code_dtype_ = np.dtype(dtype)
                break

    def columns_with_unseen(self, table: Table, codes: NDArray[np.integer]) -> set[int]:
        """The categorical columns where ``codes`` (this table's, from :meth:`transform`)
        hold -1 for a value that is not missing: a category never seen. One vectorised
        pass, so that :meth:`extend` scans only those columns."""
        unseen = set()
        negative = np.zeros(codes.shape[1], dtype=np.intp)
        count_negatives(codes, negative)
        for j, spec in enumerate(self.columns_):
            if spec.kind == _BINS or not negative[j]:
                continue
            column = table.columns[j]
            if j in table.factorized:
                missing = int(missing_values.is_missing(table.factorized[j][0]).sum())
            elif column.dtype.kind == "f":
                missing = int(np.isnan(column).sum())
            elif column.dtype.kind == "O":
                missing = int(np.equal(column, np.array(None, dtype=object)).sum())
            else:
                missing = 0
            if negative[j] > missing:
                unseen.add(j)
        return unseen

    def extend(
        self, table: Table, n_rows_seen: int, columns: set[int] | None = None
    ) -> dict[int, NDArray[np.intp]]:
        """Add the categories that a later batch of rows reveals (``partial_fit``).

        Categories stay in the order ``fit`` gives them (sorted), so a column's codes
        may move: for each column whose categories changed, the returned map gives the
        new code of every old one. Bins never change. Nothing is modified when an error
        is raised.

        ``columns`` restricts the scan to those columns (see
        :meth:`columns_with_unseen`); None scans every categorical column.

        Raises
        ------
        ValueError
            If a numeric column taken as categorical on the first batch now has more
            than ``max_categories`` values, or a categorical column more than
            ``category_limit``, or a numeric column now holds strings.
        """
        if len(table.columns) != len(self.columns_):
            raise ValueError(
                f"{self.owner}: this batch has {len(table.columns)} columns, the first "
                f"had {len(self.columns_)}."
            )
        updated: dict[int, ColumnEncoding] = {}
        maps: dict[int, NDArray[np.intp]] = {}
        scan = set(range(len(self.columns_))) if columns is None else columns
        numeric = [j for j, c in enumerate(self.columns_) if c.kind == _NUMERIC and j in scan]
        if numeric:
            block = self._numeric_block(table, numeric)
            found = distinct_values(block, self.max_categories)
            for j, values in zip(numeric, found, strict=True):
                spec = self.columns_[j]
                merged = None if values is None else np.union1d(spec.values, values)
                if merged is None or (
                    encoding_kind("numeric", merged, False, self.max_categories) == "bins"
                ):
                    raise ValueError(
                        f"{self.owner}: {table.labels[j]} had at most {self.max_categories} "
                        "distinct values in the first batch and was taken as categorical; "
                        "this batch brings more. Fix its bins for every batch with "
                        "discretizer=Discretizer(bin_edges=...) (or raise max_categories)."
                    )
                if len(merged) > len(spec.values):
                    updated[j] = ColumnEncoding(_NUMERIC, merged, n_categories=len(merged))
                    maps[j] = np.searchsorted(merged, spec.values).astype(np.intp)
        for j, spec in enumerate(self.columns_):
            if spec.kind != _OBJECT or j not in scan:
                continue
            column = table.columns[j]
            if column.dtype.kind == "f":
                present = set(np.unique(column[~np.isnan(column)]).tolist())
            else:
                present = present_values(column, table.factorized.get(j), j in table.complete)
            new = [v for v in present if v not in spec.lookup]
            if not new:
                continue
            pooled = [*spec.values.tolist(), *new]
            ordered = (
                sorted(pooled) if spec.exact_integers else sorted(pooled, key=category_sort_key)
            )
            if spec.exact_integers and (
                encoding_kind("wide", ordered, False, self.max_categories) == "bins"
            ):
                raise ValueError(
                    f"{self.owner}: {table.labels[j]} had at most {self.max_categories} "
                    "distinct values in the first batch and was taken as categorical; "
                    "this batch brings more (raise max_categories to keep it so)."
                )
            check_cardinality(len(ordered), n_rows_seen + len(column), table.labels[j], self.owner)
            lookup = {v: k for k, v in enumerate(ordered)}
            updated[j] = ColumnEncoding(
                _OBJECT, np.array(ordered, dtype=object), lookup, len(ordered), spec.exact_integers
            )
            maps[j] = np.array([lookup[v] for v in spec.values], dtype=np.intp)
        for j, spec in updated.items():
            if len(maps[j]) == 0:  # the placeholder category of an empty column
                maps[j] = np.zeros(1, dtype=np.intp)
            self.columns_[j] = spec
        self._set_layout()
        return maps

    @classmethod
    def from_specs(
        cls, specs: list[tuple[Any, ...]], max_categories: int, owner: str
    ) -> TableEncoder:
        """An encoder built from each column's encoding, learnt elsewhere (by a
        distributed pass): ``("numeric", sorted values)`` for a numeric categorical
        column, ``("object", values, exact_integers)`` for other categories (sorted as
        ``fit`` sorts them here), ``("bins", interior edges)`` for a binned one."""
        encoder = cls(max_categories, Discretizer(), owner)
        encoder.columns_ = []
        edges: list[NDArray[np.float64]] = []
        for kind, values, *extra in specs:
            if kind == "numeric":
                values = np.asarray(values, dtype=np.float64)
                encoder.columns_.append(
                    ColumnEncoding(_NUMERIC, values, n_categories=max(1, len(values)))
                )
            elif kind == "object":
                exact = bool(extra and extra[0])
                ordered = sorted(values) if exact else sorted(values, key=category_sort_key)
                lookup = {v: k for k, v in enumerate(ordered)}
                encoder.columns_.append(
                    ColumnEncoding(
                        _OBJECT,
                        np.array(ordered, dtype=object),
                        lookup,
                        max(1, len(ordered)),
                        exact,
                    )
                )
            else:
                edges.append(np.asarray(values, dtype=np.float64))
                encoder.columns_.append(ColumnEncoding(_BINS, n_categories=len(values) + 1))
        encoder.binned_columns_ = np.array(
            [j for j, c in enumerate(encoder.columns_) if c.kind == _BINS], dtype=np.intp
        )
        encoder.discretizer_ = None
        if edges:
            encoder.discretizer_ = Discretizer(bin_edges=edges).fit(np.zeros((1, len(edges))))
        encoder._set_layout()
        return encoder

    def union(
        self, other: TableEncoder
    ) -> tuple[TableEncoder, dict[int, NDArray[np.intp]], dict[int, NDArray[np.intp]]]:
        """The encoding with the categories of both (two workers that extended one
        first-batch encoding), and the maps of each one's codes into it (as
        :meth:`extend` gives them).

        Raises
        ------
        ValueError
            If the two do not come from one encoding (columns of other kinds, other
            bins), or the union has too many categories.
        """
        if len(self.columns_) != len(other.columns_):
            raise ValueError(
                f"{self.owner}: cannot merge encodings of {len(self.columns_)} and "
                f"{len(other.columns_)} columns."
            )
        merged = copy.deepcopy(self)
        maps_self: dict[int, NDArray[np.intp]] = {}
        maps_other: dict[int, NDArray[np.intp]] = {}
        for j, (a, b) in enumerate(zip(self.columns_, other.columns_, strict=True)):
            if a.kind != b.kind:
                raise ValueError(
                    f"{self.owner}: column {j} is {a.kind} in one, {b.kind} in the other."
                )
            if a.kind == _BINS:
                continue
            key: Any
            if a.kind == _NUMERIC:
                values = np.union1d(a.values, b.values)
                if encoding_kind("numeric", values, False, self.max_categories) == "bins":
                    raise ValueError(
                        f"{self.owner}: column {j} has {len(values)} categorical values in the "
                        f"merged data, more than max_categories={self.max_categories}; fix its "
                        "bins with Discretizer(bin_edges=...)."
                    )
                spec = ColumnEncoding(_NUMERIC, values, n_categories=max(1, len(values)))
                lookup = {float(v): k for k, v in enumerate(values)}
                key = float
            else:
                pooled = {*a.values.tolist(), *b.values.tolist()}
                ordered = (
                    sorted(pooled) if a.exact_integers else sorted(pooled, key=category_sort_key)
                )
                check_cardinality(len(ordered), 1 << 62, f"column {j}", self.owner)
                lookup = {v: k for k, v in enumerate(ordered)}
                spec = ColumnEncoding(
                    _OBJECT,
                    np.array(ordered, dtype=object),
                    lookup,
                    max(1, len(ordered)),
                    a.exact_integers,
                )
                key = _identity
            for old, maps in ((a, maps_self), (b, maps_other)):
                if old.n_categories != spec.n_categories or not np.array_equal(
                    np.asarray(old.categories, dtype=object),
                    np.asarray(spec.categories, dtype=object),
                ):
                    codes = [lookup[key(v)] for v in old.values]
                    maps[j] = np.array(codes if codes else [0], dtype=np.intp)
            merged.columns_[j] = spec
        if merged.discretizer_ is not None and other.discretizer_ is not None:
            for ea, eb in zip(
                merged.discretizer_.bin_edges_, other.discretizer_.bin_edges_, strict=True
            ):
                if not np.array_equal(ea, eb):
                    raise ValueError(
                        f"{self.owner}: the two encodings bin a column differently; fix the "
                        "bins for every part with Discretizer(bin_edges=...)."
                    )
        merged._set_layout()
        return merged, maps_self, maps_other

    def transform(self, table: Any) -> NDArray[np.integer]:
        """Codes of new rows: unseen categories and missing values become -1.

        Parameters
        ----------
        table : array-like, DataFrame or validated Table of shape (n_samples, n_features)
            Rows with the training columns; infinite values are refused.

        Returns
        -------
        ndarray of shape (n_samples, n_features), dtype ``code_dtype_``
            Codes ``0..n_categories_[j]-1``, -1 for missing or unseen values.

        Examples
        --------
        >>> from discotree import TableEncoder
        >>> encoder = TableEncoder()
        >>> _ = encoder.fit_transform([["red"], ["blue"]])
        >>> encoder.transform([["blue"], ["green"], [None]]).ravel()  # green: unseen
        array([ 0, -1, -1], dtype=int8)
        """
        if not isinstance(table, Table):
            table = check_table(table, self.owner)
        return self._encode(table)

    def _encode(self, table: Table) -> NDArray[np.integer]:
        codes = np.empty((table.n_samples, len(self.columns_)), dtype=self.code_dtype_)
        numeric = np.array(
            [j for j, c in enumerate(self.columns_) if c.kind == _NUMERIC], dtype=np.intp
        )
        if len(numeric):
            self._encode_numeric(self._numeric_block(table, numeric), numeric, codes)
        for j, spec in enumerate(self.columns_):
            if spec.kind != _OBJECT:
                continue
            factorized = table.factorized.get(j)
            if factorized is not None:  # one compiled pass, no intermediate column
                mapping = np.array([spec.lookup.get(v, -1) for v in factorized[1]], np.intp)
                remap_codes(factorized[0], mapping, codes, j)
            else:
                codes[:, j] = _category_codes(table.columns[j], spec)
        if len(self.binned_columns_):
            block = self._numeric_block(table, self.binned_columns_)
            if isinstance(self.discretizer_, Discretizer):  # one compiled pass
                self.discretizer_.bin_codes(block, codes, self.binned_columns_)
            elif self.discretizer_ is not None:
                binned = self.discretizer_.transform(block)
                codes[:, self.binned_columns_] = np.where(np.isnan(binned), -1, binned)
        return codes

    def _encode_numeric(
        self, block: NDArray[Any], numeric: NDArray[np.intp], codes: NDArray[np.integer]
    ) -> None:
        categories = [self.columns_[j].values for j in numeric]
        flat = np.concatenate(categories).astype(np.float64)
        small_integers = (
            block.dtype.kind in "iu"
            and np.all(flat == np.round(flat))
            and flat.min(initial=0) >= 0
            and flat.max(initial=0) < _MAX_LOOKUP
        )
        if small_integers and self._encode_identity(block, numeric, categories, codes):
            return
        if small_integers:
            size = int(flat.max(initial=0)) + 1
            lookup = np.full((len(numeric), size), -1, dtype=np.intp)
            for k, cats in enumerate(categories):
                lookup[k, cats.astype(np.intp)] = np.arange(len(cats))
            in_chunks(  # row blocks, one thread per core
                lambda start, stop: encode_lookup(
                    block[start:stop], numeric, lookup, codes[start:stop]
                ),
                len(block),
                block.size,
                _THREAD_CELLS,
            )
            return
        offsets = np.zeros(len(numeric) + 1, dtype=np.intp)
        np.cumsum([len(c) for c in categories], out=offsets[1:])
        in_chunks(
            lambda start, stop: encode_sorted(
                block[start:stop], numeric, flat, offsets, codes[start:stop]
            ),
            len(block),
            block.size,
            _THREAD_CELLS,
        )

    @staticmethod
    def _encode_identity(
        block: NDArray[Any],
        numeric: NDArray[np.intp],
        categories: list[NDArray[Any]],
        codes: NDArray[np.integer],
    ) -> bool:
        """Integer columns ``numeric`` (a run of adjacent columns) whose categories are
        ``0..r-1``: their codes are their values (-1 outside), one vectorised pass in
        the block's own memory order. False (nothing done) in any other case."""
        first = int(numeric[0])
        adjacent = np.array_equal(numeric, np.arange(first, first + len(numeric)))
        if not adjacent or not all(
            len(c) and np.array_equal(c, np.arange(len(c))) for c in categories
        ):
            return False
        last = np.array([len(c) - 1 for c in categories]).astype(block.dtype)
        if block.flags.f_contiguous and not block.flags.c_contiguous:

            def run(start: int, stop: int) -> None:
                encode_identity_columns(block[start:stop].T, first, last, codes[start:stop])
        else:

            def run(start: int, stop: int) -> None:
                encode_identity(block[start:stop], first, last, codes[start:stop])

        in_chunks(run, len(block), block.size, _THREAD_CELLS)  # one thread per core
        return True

    def _numeric_block(self, table: Table, which: Any) -> NDArray[Any]:
        """Columns ``which`` as one numeric 2-D array (a slice of the matrix if any)."""
        which = np.asarray(which, dtype=np.intp)
        if table.matrix is not None:
            if len(which) == table.matrix.shape[1]:
                return table.matrix
            return table.matrix[:, which]
        block = [self._as_numeric(table.columns[j], table.labels[j]) for j in which]
        return np.column_stack(block)

    def _as_numeric(self, column: NDArray[Any], label: str) -> NDArray[Any]:
        if column.dtype.kind in "iuf":
            values = column
        else:
            try:
                values = np.array([np.nan if v is None else v for v in column], dtype=np.float64)
            except (TypeError, ValueError) as err:
                raise ValueError(
                    f"{self.owner}: {label} was numeric at fit time but now holds "
                    f"non-numeric values ({err})."
                ) from err
        reject_inf(values, [label], self.owner)
        return values


@stored
class NumericEncoder(CheckedState):
    """Numeric columns as standardised float64, NaN for missing (for Gaussian models).

    Each column is divided by a power of two near its largest magnitude (so values up
    to the float64 limit do not overflow), centred at its mid-range and divided by the
    power of two nearest its (weighted) standard deviation on the training rows. Powers
    of two divide exactly and the mid-range does not depend on weights, so weighted
    rows and their repeated copies give the same bits. Gaussian models are
    affine-equivariant, so this changes no decision; it makes their variance floors
    scale-invariant (a feature in dollars no longer flattens one in metres).

    Parameters
    ----------
    owner : str
        Estimator name used in error messages.

    Attributes
    ----------
    n_categories_ : None
        Continuous features have no categories.
    offset_ : ndarray of shape (n_features,)
        Subtracted from each column: its training mid-range.
    scale_ : ndarray of shape (n_features,)
        Then divides it: a power of two within a factor 1.5 of its training standard
        deviation (of its magnitude for a constant column).
    """

    n_categories_ = None

    def __init__(self, owner: str) -> None:
        self.owner = owner

    def check_numbers(self, where: str) -> None:
        """A loaded file's standardisation: finite offsets, positive scales."""
        check_numeric_encoder_numbers(self, where)

    def fit_transform(self, table: Table, sample_weight=None, class_index=None) -> NDArray:
        """Learn each column's scale on the training rows; return the scaled matrix."""
        matrix = self._matrix(table)
        weights = np.ones(len(matrix)) if sample_weight is None else sample_weight
        observed = ~np.isnan(matrix)
        magnitude = np.nanmax(np.abs(matrix), axis=0, initial=0.0, where=observed)
        magnitude = _power_of_two(np.where(magnitude > 0, magnitude, 1.0))
        unit = matrix / magnitude
        high = np.nanmax(unit, axis=0, initial=-np.inf, where=observed)
        low = np.nanmin(unit, axis=0, initial=np.inf, where=observed)
        centre = np.where(np.isfinite(high), high / 2 + low / 2, 0.0)  # the mid-range
        total = weights @ observed
        centred = np.where(observed, unit - centre, 0.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(total > 0, (weights @ centred) / total, 0.0)
            spread = np.where(observed, centred - mean, 0.0)
            sd = np.sqrt(np.where(total > 0, (weights @ spread**2) / total, 0.0))
        sd = _power_of_two(np.where(sd > CONSTANT_RTOL, sd, 1.0))
        self._magnitude, self._centre, self._sd = magnitude, centre, sd
        self.offset_ = magnitude * centre
        self.scale_ = magnitude * sd
        return (unit - centre) / sd

    def transform(self, table: Table) -> NDArray[np.float64]:
        """The table scaled as at fit time; raises for non-numeric columns, inf, and
        integers that float64 cannot hold exactly."""
        with np.errstate(over="ignore"):
            return (self._matrix(table) / self._magnitude - self._centre) / self._sd

    def log_density_correction(self, standardised: NDArray[np.float64]) -> NDArray[np.float64]:
        """Per row, ``-sum log scale_j`` over the observed features: added to a log
        density of the standardised values, it gives the density of the original
        values (change of variables)."""
        return -(~np.isnan(standardised)).astype(np.float64) @ np.log(self.scale_)

    def _matrix(self, table: Table) -> NDArray[np.float64]:
        needs = (
            "distribution='gaussian' needs numeric columns (use distribution='discrete' "
            "for categories)."
        )
        columns = [
            numeric_column(column, label, self.owner, needs)
            for column, label in zip(table.columns, table.labels, strict=True)
        ]
        matrix = np.column_stack(columns)
        reject_inf(matrix, table.labels, self.owner)
        return matrix


def __getattr__(name: str) -> Any:
    """The classes of this module by the names pickles of earlier versions hold."""
    return legacy_attribute(__name__, name)
