"""Input validation shared by every estimator (the only module importing sklearn.utils)."""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_array, check_is_fitted, column_or_1d
from sklearn.utils.validation import validate_data as _sklearn_validate_data

from .engine_registry import is_dask_collection
from .kernels.encode import column_ranges, factorize_utf8, padded_words
from .threads import map_on_cores

__all__ = [
    "Table",
    "arrow_to_frame",
    "check_bool_param",
    "check_class_index",
    "check_codes",
    "check_is_fitted",
    "check_random_state",
    "check_random_state_param",
    "check_sample_weight",
    "check_table",
    "check_targets",
    "feature_names_of",
    "int_seed",
    "integer_seed",
    "is_count",
    "is_real",
    "numeric_column",
    "numpy_generator",
    "reject_inf",
    "take_rows",
    "validate_data",
]


@dataclass
class Table:
    """A validated 2-D table.

    Attributes
    ----------
    columns : list of ndarray
        One 1-D array per column: numeric columns as float64 (NaN for missing) or
        their integer dtype, bool columns as bool, others as object arrays with None
        for missing.
    labels : list of str
        How each column is named in messages: ``X['name']`` or ``X[:, j]``.
    matrix : ndarray or None
        The whole table as one numeric (n_samples, n_features) array when the input
        was a homogeneous numeric array (``columns`` are then views of it).
    """

    columns: list[Any]  # ndarray, or FactorizedColumn (string codes, cells on demand)
    labels: list[str]
    matrix: NDArray[Any] | None = None
    #: For string and categorical pandas columns: ``j -> (codes, values)``, the column
    #: as codes into ``values`` (an object array; -1 missing), so that encoders need
    #: not hash every cell again. Some values may not occur (unused categories).
    factorized: dict[int, tuple[NDArray[np.intp], NDArray[Any]]] = field(default_factory=dict)
    #: The factorised columns whose every value occurs (strings, as factorising them
    #: finds them; not categoricals, nor any column once rows are taken).
    complete: frozenset[int] = frozenset()

    @property
    def n_samples(self) -> int:
        return len(self.columns[0])

    def take(self, rows: NDArray[np.intp]) -> Table:
        """The table restricted to ``rows``."""
        matrix = None if self.matrix is None else self.matrix[rows]
        if matrix is not None:
            return Table([matrix[:, j] for j in range(matrix.shape[1])], self.labels, matrix)
        factorized = {j: (codes[rows], values) for j, (codes, values) in self.factorized.items()}
        return Table([c[rows] for c in self.columns], self.labels, None, factorized)


class FactorizedColumn:
    """An object column held as codes into its distinct values (a pandas string or
    categorical column): the object array of its cells is built only when something
    reads them (``np.asarray``, iteration, a cell); encoders read the codes.

    Selecting rows (a slice, a mask or an index array) keeps the codes.
    """

    dtype = np.dtype(object)
    ndim = 1

    def __init__(self, codes: NDArray[np.intp], values: NDArray[Any]) -> None:
        self.codes = codes
        self.values = values
        self._cells: NDArray[Any] | None = None

    def __len__(self) -> int:
        return len(self.codes)

    @property
    def shape(self) -> tuple[int]:
        return (len(self.codes),)

    @property
    def size(self) -> int:
        return len(self.codes)

    def cells(self) -> NDArray[Any]:
        """The object array (None for missing), built once."""
        if self._cells is None:
            self._cells = np.append(self.values, np.array([None], dtype=object))[self.codes]
        return self._cells

    def __array__(self, dtype: Any = None, copy: Any = None) -> NDArray[Any]:
        cells = self.cells()
        return cells if dtype is None else cells.astype(dtype)

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, slice | np.ndarray | list):
            return FactorizedColumn(self.codes[key], self.values)
        return self.cells()[key]

    def __iter__(self):
        return iter(self.cells())

    def tolist(self) -> list[Any]:
        return self.cells().tolist()

    def astype(self, dtype: Any, **kwargs: Any) -> NDArray[Any]:
        return self.cells().astype(dtype, **kwargs)


def positive_rows(table: Table, y: Any, weights: Any) -> tuple[Table, Any, Any]:
    """The rows of positive weight (a weight of zero is the same as leaving it out)."""
    if weights is not None and not (weights > 0).all():
        rows = np.flatnonzero(weights > 0)
        return table.take(rows), y[rows], weights[rows]
    return table, y, weights


def training_rows(estimator: Any, X: Any, y: Any, sample_weight: Any) -> tuple[Table, Any, Any]:
    """The checks every ``fit`` makes, in order: X as a table (and scikit-learn's
    ``n_features_in_`` / ``feature_names_in_``), y and the weights against it; then the
    rows of positive weight only (a row of weight zero is absent)."""
    name = type(estimator).__name__
    table = check_table(X, name)
    validate_data(estimator, X, skip_check_array=True)
    y = check_targets(y, table.n_samples, name)
    weights = check_sample_weight(sample_weight, table.n_samples, name)
    return positive_rows(table, y, weights)


def feature_names_of(estimator: Any) -> list[str]:
    """The names of a fitted estimator's features: ``feature_names_in_`` as strings
    when it was fitted on named columns, else ``x0``, ``x1``, ... (the one rule of the
    exports, explanations, edge names and notebook view).

    Examples
    --------
    >>> class Fitted:
    ...     n_features_in_ = 2
    >>> feature_names_of(Fitted())
    ['x0', 'x1']
    """
    names = getattr(estimator, "feature_names_in_", None)
    if names is not None:
        return [str(n) for n in names]
    return [f"x{j}" for j in range(int(estimator.n_features_in_))]


def arrow_to_frame(X: Any) -> Any:
    """A pandas DataFrame of any table that speaks the Arrow PyCapsule stream interface
    (``__arrow_c_stream__``: a pyarrow Table, a polars DataFrame, a DuckDB result...);
    every other input unchanged.

    Why this route: one protocol covers every Arrow producer without importing any of
    them (no polars or narwhals dependency), and pyarrow (already required) builds the
    frame from the Arrow buffers: strings become pandas' Arrow-backed string columns
    and dictionaries become categoricals, which :func:`check_table` factorizes from
    those buffers, with no detour through Python objects; nulls become missing values.

    Examples
    --------
    >>> import pyarrow as pa
    >>> arrow_to_frame(pa.table({"x": ["a", None], "y": [1.5, 2.0]})).dtypes.tolist()
    [<StringDtype(na_value=nan)>, dtype('float64')]
    """
    if isinstance(X, (pd.DataFrame, pd.Series, np.ndarray, str)) or is_dask_collection(X):
        return X  # (a dask collection is never computed here)
    if not hasattr(type(X), "__arrow_c_stream__"):
        return X
    import pyarrow as pa

    table = pa.table(X)
    # view layouts (polars' strings) as the plain ones pandas reads into string columns
    fields = []
    for column in table.schema:
        kind = column.type
        if pa.types.is_string_view(kind):
            kind = pa.large_string()
        elif pa.types.is_dictionary(kind) and pa.types.is_string_view(kind.value_type):
            kind = pa.dictionary(kind.index_type, pa.large_string(), kind.ordered)
        fields.append(pa.field(column.name, kind, column.nullable))
    schema = pa.schema(fields)
    if not schema.equals(table.schema):
        table = table.cast(schema)
    return table.to_pandas()


def validate_data(_estimator: Any, X: Any = "no_validation", *args: Any, **kwargs: Any) -> Any:
    """scikit-learn's ``validate_data`` (feature names, ``n_features_in_``) for every
    input :func:`check_table` takes, Arrow tables included (:func:`arrow_to_frame`)."""
    return _sklearn_validate_data(_estimator, arrow_to_frame(X), *args, **kwargs)


def check_table(X: Any, owner: str) -> Table:
    """Validate a 2-D table, keeping each column's own dtype.

    Parameters
    ----------
    X : array-like, pandas.DataFrame or Arrow table of shape (n_samples, n_features)
        An Arrow table is any object with ``__arrow_c_stream__`` (pyarrow, polars):
        see :func:`arrow_to_frame`.
    owner : str
        Name used in error messages.

    Returns
    -------
    Table

    Raises
    ------
    ValueError
        For zero rows or columns, a non-2-D input, or complex data.
    TypeError
        For sparse input.
    """
    X = arrow_to_frame(X)
    if is_dask_collection(X):
        raise TypeError(
            f"{owner} does not take dask collections here (only naive Bayes, Chow-Liu, "
            "TAN-CMI and discriminative trees fit and predict on them); compute a sample "
            "to memory (X.head(n) or X.sample(frac=...).compute())."
        )
    if isinstance(X, pd.DataFrame):
        if X.shape[0] == 0:
            raise ValueError(f"{owner}: X has 0 rows; at least one sample is required.")
        if X.shape[1] == 0:
            raise ValueError(f"{owner}: X has 0 columns; at least one feature is required.")
        duplicated = X.columns[X.columns.duplicated()].unique().tolist()
        if duplicated:
            raise ValueError(
                f"{owner}: X has duplicate column names {duplicated}; every column needs "
                "its own name."
            )
        labels = [f"X[{name!r}]" for name in X.columns]
        dtypes = list(X.dtypes)
        if all(_plain_numeric(dtype) for dtype in dtypes) and len(set(dtypes)) == 1:
            matrix = X.to_numpy()  # one homogeneous numeric block: the fast path
            if matrix.dtype.kind == "f" and matrix.dtype != np.float64:
                matrix = matrix.astype(np.float64)
            return _checked(
                Table([matrix[:, j] for j in range(matrix.shape[1])], labels, matrix), owner
            )
        series = [column for _, column in X.items()]  # (faster than iloc, by position)
        strings = sum(isinstance(s.dtype, pd.StringDtype) for s in series)
        if strings > 1 and strings * X.shape[0] >= 2_000_000:  # pyarrow frees the GIL
            converted = map_on_cores(_series_to_array, series)
        else:
            converted = [_series_to_array(s) for s in series]
        columns, factorized = [], {}
        for j, (column, codes) in enumerate(converted):
            columns.append(column)
            if codes is not None:
                factorized[j] = codes
        complete = frozenset(j for j in factorized if isinstance(series[j].dtype, pd.StringDtype))
        return _checked(Table(columns, labels, None, factorized, complete), owner)
    array = check_array(
        X,
        dtype=None,
        ensure_all_finite=False,
        ensure_2d=True,
        accept_sparse=False,
        ensure_min_samples=1,
        ensure_min_features=1,
        copy=False,
    )
    if np.iscomplexobj(array):
        raise ValueError(f"{owner}: complex data is not supported.")
    labels = [f"X[:, {j}]" for j in range(array.shape[1])]
    if array.dtype.kind in "iuf":
        if array.dtype.kind == "f" and array.dtype != np.float64:
            array = array.astype(np.float64)
        return _checked(Table([array[:, j] for j in range(array.shape[1])], labels, array), owner)
    if array.dtype.kind == "b":
        return Table([array[:, j] for j in range(array.shape[1])], labels)
    if array.dtype.kind not in "OUS":
        raise TypeError(
            f"{owner}: X has dtype {array.dtype}; numbers, strings, booleans or objects "
            "holding them are supported."
        )
    columns = [_object_column(array[:, j]) for j in range(array.shape[1])]
    return _checked(Table(columns, labels), owner)


#: Integers of larger magnitude are not all representable in float64.
EXACT_FLOAT_INTEGER = 2**53


def _checked(table: Table, owner: str) -> Table:
    """Reject inf (in numeric and object columns alike, naming the column and rows)
    and cells that cannot be categories (lists, dicts, sets: unhashable values)."""
    if table.matrix is not None:
        reject_inf(table.matrix, table.labels, owner)
        return table
    for j, (column, label) in enumerate(zip(table.columns, table.labels, strict=True)):
        if column.dtype.kind == "f":
            reject_inf(column[:, None], [label], owner)
        elif j in table.factorized:  # (its values once: a categorical's may be numbers)
            codes, values = table.factorized[j]
            inf = [k for k, v in enumerate(values) if _is_inf(v)]
            rows = np.flatnonzero(np.isin(codes, inf))[:5].tolist() if inf else []
            if rows:  # (an unused inf category is no cell: not refused)
                raise ValueError(
                    f"{owner}: {label} contains inf at rows {rows}; only finite values or "
                    "NaN/None (missing) are accepted."
                )
        elif column.dtype.kind == "O":
            _check_object_cells(column, label, owner)
    return table


def reject_inf(values: NDArray[Any], labels: list[str], owner: str) -> None:
    """Raise naming the first column (and rows) holding +-inf."""
    if values.dtype.kind != "f":
        return
    bad = np.isinf(values).reshape(len(values), -1)
    if not bad.any():
        return
    j = int(np.flatnonzero(bad.any(axis=0))[0])
    rows = np.flatnonzero(bad[:, j])[:5].tolist()
    raise ValueError(
        f"{owner}: {labels[j]} contains inf at rows {rows}; only finite values or NaN "
        "(missing) are accepted."
    )


def numeric_column(column: NDArray[Any], label: str, owner: str, needs: str) -> NDArray[Any]:
    """A column as float64 for the continuous models, or an error that names it: not
    numeric, or integers beyond 2**53 (which float64 cannot hold exactly). ``needs``
    ends the not-numeric message (what the model needs, what to do instead)."""
    if column.dtype.kind not in "iuf":
        raise ValueError(f"{owner}: {label} is not numeric; {needs}")
    if column.dtype.kind in "iu" and column.size:
        limit = EXACT_FLOAT_INTEGER
        if column.max() >= limit or (column.dtype.kind == "i" and column.min() <= -limit):
            raise ValueError(
                f"{owner}: {label} holds integers beyond 2**53, which float64 cannot "
                "represent exactly; subtract an offset first, or treat them as categories "
                "with a discrete model."
            )
    return column.astype(np.float64)


def _is_inf(value: Any) -> bool:
    """Whether a cell is an infinite float."""
    return isinstance(value, float | np.floating) and bool(np.isinf(value))


def _check_object_cells(column: NDArray[Any], label: str, owner: str) -> None:
    """One pass over an object column: inf is rejected as in numeric columns; a cell
    that is not hashable (list, dict, set, array) cannot be a category."""
    if pd.api.types.infer_dtype(column, skipna=True) in ("string", "empty"):
        return  # strings only (checked in C): nothing to refuse
    inf_rows: list[int] = []
    for i, value in enumerate(column):
        if value is None or isinstance(value, str):
            continue
        if _is_inf(value):
            inf_rows.append(i)
            if len(inf_rows) == 5:
                break
            continue
        try:
            hash(value)
        except TypeError:
            raise TypeError(
                f"{owner}: {label} holds a {type(value).__name__} at row {i}; each cell "
                "must be a scalar (its argument must be a string, a number, a boolean "
                "or missing)."
            ) from None
    if inf_rows:
        raise ValueError(
            f"{owner}: {label} contains inf at rows {inf_rows}; only finite values or "
            "NaN/None (missing) are accepted."
        )


def _plain_numeric(dtype: Any) -> bool:
    """A numpy integer or float dtype (not bool, categorical or a nullable extension)."""
    return isinstance(dtype, np.dtype) and dtype.kind in "iuf"


def _factorize_strings(series: pd.Series) -> tuple[NDArray[np.intp], NDArray[Any]]:
    """``series.factorize()`` of a string column (codes in order of first appearance,
    -1 for missing; the distinct strings as objects): with Arrow storage, by one
    compiled pass over its buffers (:func:`~discotree.kernels.encode.factorize_utf8`),
    else by pandas."""
    import pyarrow as pa

    try:
        chunk = pa.array(series.array)  # (the Arrow protocol: no copy when stored so)
        if isinstance(chunk, pa.ChunkedArray):
            chunk = chunk.combine_chunks()
        kind = chunk.type
        if not (pa.types.is_string(kind) or pa.types.is_large_string(kind)):
            raise TypeError(kind)
    except (TypeError, ValueError, pa.ArrowException):  # python storage: pandas
        codes, uniques = series.factorize(use_na_sentinel=True)
        return codes.astype(np.intp), uniques.to_numpy(dtype=object)
    _, offset_buffer, data_buffer = chunk.buffers()
    width = np.int64 if pa.types.is_large_string(kind) else np.int32
    offsets = np.frombuffer(offset_buffer, dtype=width)[
        chunk.offset : chunk.offset + len(chunk) + 1
    ]
    data = np.zeros(1, np.uint8) if data_buffer is None else np.frombuffer(data_buffer, np.uint8)
    if chunk.null_count:
        missing = chunk.is_null().to_numpy(zero_copy_only=False)
    else:
        missing = np.zeros(len(chunk), dtype=bool)
    codes = np.empty(
        len(chunk), dtype=np.int32 if len(chunk) < 2**31 else np.intp
    )  # half the bytes
    first_rows = factorize_utf8(offsets, padded_words(data), data, missing, codes)
    values = np.empty(len(first_rows), dtype=object)
    values[:] = chunk.take(pa.array(first_rows)).to_pylist()
    return codes, values


def _series_to_array(series: pd.Series) -> tuple[NDArray[Any] | FactorizedColumn, Any]:
    """The column as an array, and for string and categorical dtypes its
    factorisation ``(codes, values)`` (see :attr:`Table.factorized`), else None."""
    if isinstance(series.dtype, pd.CategoricalDtype):  # categories, even if numbers
        # (as codes into the categories: a category's checks, once, stand for its cells)
        categorical = series.array  # (a Categorical: its codes without a Series)
        categories = categorical.categories.to_numpy(dtype=object)
        codes = np.asarray(categorical.codes).astype(np.intp)
        return FactorizedColumn(codes, categories), (codes, categories)
    if isinstance(series.dtype, pd.StringDtype):  # strings or missing, nothing else
        codes, values = _factorize_strings(series)  # no object per cell
        return FactorizedColumn(codes, values), (codes, values)
    if pd.api.types.is_bool_dtype(series.dtype) and not series.isna().any():
        return series.to_numpy(dtype=bool), None
    if pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(series.dtype):
        if _plain_numeric(series.dtype) and series.dtype.kind in "iu":
            return series.to_numpy(), None  # integers stay exact
        if pd.api.types.is_integer_dtype(series.dtype):  # nullable integers
            present = series.dropna()
            if len(present) and (present.abs() >= EXACT_FLOAT_INTEGER).any():
                return _object_column(series.astype(object).to_numpy(), numeric=True), None
        return series.to_numpy(dtype=np.float64, na_value=np.nan), None
    return _object_column(series.to_numpy(dtype=object)), None


def _object_column(column: NDArray[Any], numeric: bool = True) -> NDArray[Any]:
    """Object column with every missing marker (None, NaN, pd.NA, NaT) as None.

    With ``numeric=True``, a column whose values are all real numbers (or missing)
    becomes float64.
    """
    column = np.asarray(column, dtype=object)
    missing = pd.isna(column)
    out = column.copy()
    out[missing] = None
    present = out[~missing]
    if (
        numeric
        and len(present)
        and all(isinstance(v, numbers.Real) and not isinstance(v, bool | np.bool_) for v in present)
        and not any(
            isinstance(v, numbers.Integral) and abs(int(v)) >= EXACT_FLOAT_INTEGER for v in present
        )
    ):  # numbers become float64 only where that is exact; larger integers stay categories
        values = np.full(len(out), np.nan)
        values[~missing] = present.astype(np.float64)
        return values
    return out


def check_random_state_param(value: Any, owner: str) -> Any:
    """Validate a ``random_state`` hyper-parameter: None, an integer in
    ``0..2**32 - 1``, a ``numpy.random.RandomState`` or a ``numpy.random.Generator``."""
    if value is None or isinstance(value, np.random.RandomState | np.random.Generator):
        return value
    if is_count(value) and value < 2**32:
        return value
    raise ValueError(
        f"{owner}: random_state must be None, an integer in 0..2**32-1, a RandomState or "
        f"a Generator, got {value!r}."
    )


def int_seed(random_state: Any) -> Any:
    """A seed for scikit-learn splitters (int, None or RandomState) from any accepted
    ``random_state``; a Generator gives one integer drawn from it."""
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(2**31 - 1))
    return random_state


def integer_seed(random_state: Any) -> int:
    """An integer seed from any accepted ``random_state`` (the seed of the package's
    folds, :func:`discotree.stats.folds.content_folds`): an int as it is, one drawn
    from a RandomState or Generator, a fresh one for None.

    Examples
    --------
    >>> integer_seed(7), integer_seed(np.random.RandomState(0))
    (7, 209652396)
    """
    if isinstance(random_state, int | np.integer) and not isinstance(random_state, bool):
        return int(random_state)
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(2**31 - 1))
    return int(numpy_generator(random_state).integers(2**62))


def numpy_generator(random_state: Any) -> np.random.Generator:
    """A ``numpy.random.Generator`` from any accepted ``random_state``."""
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(2**31 - 1))
    return np.random.default_rng(random_state)


def check_bool_param(value: Any, name: str, owner: str) -> bool:
    """Validate a boolean hyper-parameter (True/False, numpy bools included)."""
    if not isinstance(value, bool | np.bool_):
        raise ValueError(f"{owner}: {name} must be True or False, got {value!r}.")
    return bool(value)


def is_count(value: Any, low: int = 0) -> bool:
    """True for an integer (not bool) >= ``low``."""
    return bool(
        isinstance(value, int | np.integer) and not isinstance(value, bool) and value >= low
    )


def is_real(value: Any) -> bool:
    """True for a real number that is not a bool and not NaN."""
    return bool(
        isinstance(value, numbers.Real)
        and not isinstance(value, bool | np.bool_)
        and not np.isnan(float(value))
    )


def take_rows(X: Any, rows: NDArray[np.intp]) -> Any:
    """Rows of a DataFrame (by position) or of an array-like."""
    if hasattr(X, "iloc"):
        return X.iloc[rows]
    return np.asarray(X)[rows]


def check_targets(y: Any, n_samples: int, owner: str) -> NDArray[Any]:
    """Validate classification targets: 1-D, same length as X, no missing labels."""
    if y is None:
        raise ValueError(f"{owner} requires y to be passed, but the target y is None.")
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = column_or_1d(y, warn=True)
    if y.ndim != 1:
        raise ValueError(f"{owner}: y must be 1-D, got shape {y.shape}.")
    if len(y) != n_samples:
        raise ValueError(
            f"{owner}: X has {n_samples} rows but y has {len(y)} labels; they must match."
        )
    if y.dtype.kind == "O" and pd.isna(y).any():
        rows = np.flatnonzero(pd.isna(y))[:5].tolist()
        raise ValueError(f"{owner}: y contains missing labels at rows {rows}.")
    if y.dtype.kind == "f" and not np.isfinite(y).all():
        bad = np.flatnonzero(~np.isfinite(y))
        raise ValueError(f"{owner}: y contains NaN or inf at rows {bad[:5].tolist()}.")
    if y.dtype.kind == "O":
        kinds = {
            "number" if isinstance(v, numbers.Number) else type(v).__name__ for v in y.tolist()
        }
        if len(kinds) > 1:
            raise TypeError(
                f"{owner}: y mixes labels of types {sorted(kinds)}; the labels must be all "
                "numbers or all strings."
            )
    check_classification_targets(y)
    return y


def check_sample_weight(
    sample_weight: Any, n_samples: int, owner: str
) -> NDArray[np.float64] | None:
    """Validate sample weights: 1-D, length n_samples, finite, >= 0, not all zero.

    Returns ``None`` when ``sample_weight`` is ``None`` (every sample counts once).
    """
    if sample_weight is None:
        return None
    if isinstance(sample_weight, numbers.Number):
        sample_weight = np.full(n_samples, sample_weight, dtype=np.float64)
    w = np.asarray(sample_weight)
    if w.dtype.kind not in "biuf":
        raise ValueError(f"{owner}: sample_weight must be numeric, got dtype {w.dtype}.")
    w = w.astype(np.float64)
    if w.ndim != 1:
        raise ValueError(f"{owner}: sample_weight must be 1-D, got shape {w.shape}.")
    if len(w) != n_samples:
        raise ValueError(f"{owner}: sample_weight has {len(w)} entries but X has {n_samples} rows.")
    if not np.isfinite(w).all():
        bad = np.flatnonzero(~np.isfinite(w))
        raise ValueError(f"{owner}: sample_weight is not finite at rows {bad[:5].tolist()}.")
    if (w < 0).any():
        bad = np.flatnonzero(w < 0)
        raise ValueError(f"{owner}: sample_weight is negative at rows {bad[:5].tolist()}.")
    if not (w > 0).any():
        raise ValueError(f"{owner}: sample_weight is zero for every sample.")
    return w


def check_codes(codes: NDArray[Any], n_categories: NDArray[np.intp]) -> NDArray[Any]:
    """Guard the kernel boundary: C-contiguous signed integer codes in ``-1..r_j-1``.

    Signed integer arrays keep their dtype (the encoder writes the smallest one that
    fits, usually int8); anything else is converted to intp.

    Raises
    ------
    ValueError
        Naming the first column with a code out of range.
    """
    codes = np.asarray(codes)
    codes = np.ascontiguousarray(codes, dtype=codes.dtype if codes.dtype.kind == "i" else np.intp)
    n_categories = np.asarray(n_categories, dtype=np.intp)
    if codes.ndim != 2 or codes.shape[1] != len(n_categories):
        raise ValueError(f"codes must have shape (n, {len(n_categories)}), got {codes.shape}")
    if codes.size:
        limits = np.iinfo(codes.dtype)
        low = np.full(codes.shape[1], limits.max, dtype=codes.dtype)
        high = np.full(codes.shape[1], limits.min, dtype=codes.dtype)
        column_ranges(codes, low, high)  # one pass (numpy's axis-0 min and max: two slow ones)
        bad = (low < -1) | (high >= n_categories)
        if bad.any():
            j = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"codes[:, {j}] out of range: expected -1 (missing) or 0..{n_categories[j] - 1}"
            )
    return codes


def check_class_index(class_index: Any, n_samples: int, n_classes: int) -> NDArray[np.intp]:
    """Guard the kernel boundary: intp class indices in ``0..n_classes-1``, one per row."""
    class_index = np.ascontiguousarray(class_index, dtype=np.intp)
    if class_index.shape != (n_samples,):
        raise ValueError(f"class_index must have shape ({n_samples},), got {class_index.shape}")
    if n_samples and (class_index.min() < 0 or class_index.max() >= n_classes):
        raise ValueError(f"class_index out of range: expected 0..{n_classes - 1}")
    return class_index
