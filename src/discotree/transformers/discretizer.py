"""Discretisation of continuous features into ordinal bins."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray
from sklearn.base import BaseEstimator, TransformerMixin

from .. import missing_values
from ..docstrings import fill_doc
from ..fitting import FitContractMixin
from ..kernels.encode import encode_bins, encode_bins_padded
from ..kernels.quantiles import weighted_quantiles
from ..stored_checks import CheckedState, fail, numbers
from ..stored_classes import stored
from ..threads import in_chunks
from ..validation import (
    check_is_fitted,
    check_random_state_param,
    check_sample_weight,
    check_targets,
    numpy_generator,
    validate_data,
)
from .mdl import mdl_cut_points

__all__ = ["Discretizer", "bin_midpoints", "weighted_quantile_edges"]

#: Cells below which the quantiles and the binning run on one thread.
_THREAD_CELLS = 1_000_000


def bin_midpoints(edges: NDArray[np.float64]) -> NDArray[np.float64]:
    """A value standing for each bin of the interior ``edges``: the midpoint of an
    inner bin, and for the two open outer bins their edge moved out by half the width
    of the neighbouring inner bin (by 1/2 when there is none).

    Examples
    --------
    >>> bin_midpoints(np.array([1.0, 2.0, 4.0])).tolist()
    [0.5, 1.5, 3.0, 5.0]
    >>> bin_midpoints(np.array([3.0])).tolist()
    [2.5, 3.5]
    """
    edges = np.asarray(edges, dtype=np.float64)
    if edges.size == 0:
        return np.zeros(1)
    first = (edges[1] - edges[0]) / 2 if edges.size > 1 else 0.5
    last = (edges[-1] - edges[-2]) / 2 if edges.size > 1 else 0.5
    inner = (edges[:-1] + edges[1:]) / 2
    return np.concatenate([[edges[0] - first], inner, [edges[-1] + last]])


def weighted_quantile_edges(
    values: NDArray[np.float64], weights: NDArray[np.float64], n_bins: int
) -> NDArray[np.float64]:
    """Interior bin edges at the weighted quantiles ``k / n_bins``, ``k = 1..n_bins-1``.

    The quantile at level ``q`` is the smallest observed value whose cumulative weight
    reaches ``q`` times the total (the inverted empirical CDF), so an integer weight
    ``m`` gives the same edges as repeating the value ``m`` times. Bins are closed on
    the right, ``(e_{k-1}, e_k]``, so each quantile value belongs to the bin below it;
    duplicate edges and edges at the maximum (which would leave the last bin empty)
    are removed. NaN values are ignored. Found by selection in O(n)
    (:func:`discotree.kernels.quantiles.weighted_quantiles`), not by sorting.
    """
    values = np.asarray(values, dtype=np.float64)
    return quantile_edges_of_columns(values[:, None], weights, n_bins)[0]


def quantile_edges_of_columns(
    values: NDArray[np.float64],
    weights: NDArray[np.float64],
    n_bins: int,
    fractions: NDArray[np.float64] | None = None,
) -> list[NDArray[np.float64]]:
    """:func:`weighted_quantile_edges` of every column of ``values`` at once (three
    row-major passes over the matrix), at the levels ``k / n_bins`` or the increasing
    ``fractions`` given."""
    values = np.asarray(values, dtype=np.float64)
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    d = values.shape[1]
    if fractions is None:
        fractions = np.arange(1, n_bins) / n_bins
    fractions = np.ascontiguousarray(fractions, dtype=np.float64)
    quantiles = np.empty((d, len(fractions)))
    highest = np.empty(d)
    used = np.empty(d, dtype=np.intp)

    if values.flags.f_contiguous and not values.flags.c_contiguous:

        def columns(start: int, stop: int) -> None:  # contiguous columns: a block each
            weighted_quantiles(
                values[:, start:stop],
                weights,
                fractions,
                quantiles[start:stop],
                highest[start:stop],
                used=used[start:stop],
            )

        in_chunks(columns, d, values.size, _THREAD_CELLS)
    else:  # rows in memory order: a block of rows each, all columns
        weighted_quantiles(
            values,
            weights,
            fractions,
            quantiles,
            highest,
            used=used,
            min_cells_per_thread=_THREAD_CELLS,
        )
    edges = []
    for j in range(d):
        found = np.unique(quantiles[j]) if used[j] else np.empty(0)
        edges.append(found[found < highest[j]])
    return edges


def _uniform_edges(
    values: NDArray[np.float64], weights: NDArray[np.float64], n_bins: int
) -> NDArray[np.float64]:
    present = values[weights > 0]
    if len(present) == 0:
        return np.empty(0)
    lo, hi = present.min(), present.max()
    if hi <= lo:
        return np.empty(0)
    return np.linspace(lo, hi, n_bins + 1)[1:-1]


def _mdl_edges(values, weights, n_bins, class_index, n_classes):
    return mdl_cut_points(values, class_index, weights, n_classes)


_METHODS: dict[str, Callable[..., NDArray[np.float64]]] = {
    "quantile": weighted_quantile_edges,
    "uniform": _uniform_edges,
    "mdl": _mdl_edges,
}
#: Methods that need the class labels.
_SUPERVISED = {"mdl"}


@stored
@fill_doc
class Discretizer(CheckedState, FitContractMixin, TransformerMixin, BaseEstimator):
    """Bin continuous features into ordinal codes, keeping missing values missing.

    Parameters
    ----------
    n_bins : int, default=5
        Largest number of bins per feature (fewer when values repeat); not used by
        ``"mdl"``, which chooses the number of bins itself.
    method : {"quantile", "random", "uniform", "mdl"}, default="quantile"
        ``"quantile"``: equal-frequency bins (weighted quantiles of the training data);
        ``"random"``: a stochastic discretisation (for ensembles, Zhang, Petitjean &
        Buntine 2020): each feature's edges at the quantile levels ``(k + u_k) /
        n_bins``, ``u_k`` uniform on (-1/2, 1/2), drawn from ``random_state`` (each bin
        holds between 0 and 2 / n_bins of the weight);
        ``"uniform"``: equal-width bins between the training minimum and maximum;
        ``"mdl"``: supervised Fayyad-Irani recursive minimal-entropy partitioning with
        the MDL stopping rule (needs ``y``; Pernkopf & Bilmes 2010, Section 6.1).
        A feature with no accepted cut gets one bin.
    bin_edges : list of array-like or None, default=None
        Fixed interior edges, one increasing list per feature: ``fit`` then learns
        nothing (it checks that X has as many features) and every fit, on any data,
        bins alike. This is how bins are fixed for streaming and distributed fits,
        e.g. ``Discretizer(bin_edges=Discretizer().fit(sample).bin_edges_)``; an
        estimator given such a discretizer bins every numeric column with it
        (none is taken as categorical by its number of values).
    random_state : int, RandomState, Generator or None, default=0
        The draws of ``method="random"`` (unused by the other methods).

    Attributes
    ----------
    bin_edges_ : list of ndarray
        Interior edges of each feature; a value ``x`` goes to bin
        ``searchsorted(edges, x, side="left")``, the number of edges below it (bins
        are closed on the right).
    n_bins_ : ndarray of shape (n_features,)
        Number of bins of each feature (``len(edges) + 1``).
    {n_features_in_}
    {feature_names_in_}

    Notes
    -----
    Fitting is O(n log n) per feature. NaN stays NaN in :meth:`transform`; values
    outside the training range fall in the first or last bin. Infinite values are
    rejected.

    Examples
    --------
    >>> import numpy as np
    >>> from discotree import Discretizer
    >>> X = np.arange(10, dtype=float).reshape(-1, 1)
    >>> Discretizer(n_bins=2).fit_transform(X).ravel()
    array([0., 0., 0., 0., 0., 1., 1., 1., 1., 1.])
    """

    def __init__(
        self,
        n_bins: int = 5,
        *,
        method: str = "quantile",
        bin_edges: list | None = None,
        random_state=0,
    ) -> None:
        self.n_bins = n_bins
        self.method = method
        self.bin_edges = bin_edges
        self.random_state = random_state

    def check_numbers(self, where: str) -> None:
        """A loaded file's fitted bins: increasing finite edges, at least one bin per
        column."""
        edges = vars(self).get("bin_edges_")
        for j, column in enumerate(edges if isinstance(edges, list) else []):
            column = numbers(column, f"{where}.bin_edges_[{j}]")
            if (np.diff(column) <= 0).any():
                raise fail(f"{where}.bin_edges_[{j}]", "must increase")
        if "n_bins_" in vars(self):
            numbers(self.n_bins_, f"{where}.n_bins_", low=1.0)

    def _check_params(self) -> None:
        if self.method not in (*_METHODS, "random"):
            raise ValueError(
                f"Discretizer: method must be one of {sorted([*_METHODS, 'random'])}, got "
                f"{self.method!r}."
            )
        if isinstance(self.n_bins, bool) or not isinstance(self.n_bins, int | np.integer):
            raise ValueError(f"Discretizer: n_bins must be an integer >= 2, got {self.n_bins!r}.")
        if self.n_bins < 2:
            raise ValueError(f"Discretizer: n_bins must be >= 2, got {self.n_bins}.")
        if self.bin_edges is not None:
            self._fixed_edges()

    def _fixed_edges(self) -> list[NDArray[np.float64]]:
        """The ``bin_edges`` parameter as float arrays, checked."""
        given = self.bin_edges if self.bin_edges is not None else []
        try:
            edges = [np.asarray(e, dtype=np.float64).reshape(-1) for e in given]
        except (TypeError, ValueError):
            raise ValueError(
                "Discretizer: bin_edges must be a list of 1-D arrays of numbers, one per "
                f"feature, got {self.bin_edges!r}."
            ) from None
        for j, e in enumerate(edges):
            if not np.isfinite(e).all() or np.any(np.diff(e) <= 0):
                raise ValueError(
                    f"Discretizer: bin_edges[{j}] must be finite and strictly increasing."
                )
        return edges

    def fit(self, X, y=None, sample_weight=None) -> Discretizer:
        """Learn the bin edges of every feature from the training data.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Numeric data, NaN for missing.
        y : array-like of shape (n_samples,), default=None
            Class labels; required by ``method="mdl"``, ignored otherwise.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the samples (as counts).

        Returns
        -------
        self : Discretizer
            With ``bin_edges_`` and ``n_bins_``.

        Examples
        --------
        >>> import numpy as np
        >>> from discotree import Discretizer
        >>> Discretizer(n_bins=4).fit(np.arange(100.0).reshape(-1, 1)).bin_edges_
        [array([24., 49., 74.])]
        """
        self._check_params()
        X = validate_data(self, X, dtype=np.float64, ensure_all_finite="allow-nan")
        w = check_sample_weight(sample_weight, X.shape[0], "Discretizer")
        w = np.ones(X.shape[0]) if w is None else w
        if self.bin_edges is not None:
            edges = self._fixed_edges()
            if len(edges) != X.shape[1]:
                raise ValueError(
                    f"Discretizer: bin_edges has {len(edges)} features' edges but X has "
                    f"{X.shape[1]} features."
                )
            self.bin_edges_ = edges
            self.n_bins_ = np.array([len(e) + 1 for e in edges], dtype=np.intp)
            return self
        if self.method == "random":  # jittered quantile levels, per feature
            check_random_state_param(self.random_state, "Discretizer")
            rng = numpy_generator(self.random_state)
            n_bins = int(self.n_bins)
            self.bin_edges_ = []
            for j in range(X.shape[1]):
                levels = (np.arange(1, n_bins) + rng.uniform(-0.5, 0.5, n_bins - 1)) / n_bins
                column = X[:, j : j + 1]
                self.bin_edges_.append(quantile_edges_of_columns(column, w, n_bins, levels)[0])
            self.n_bins_ = np.array([len(e) + 1 for e in self.bin_edges_], dtype=np.intp)
            return self
        edges_of = _METHODS[self.method]
        extra: tuple = ()
        if self.method in _SUPERVISED:
            if y is None:
                raise ValueError(
                    f"Discretizer with method={self.method!r} requires y to be passed, but the "
                    "target y is None (it needs the class labels)."
                )
            classes, y_index = np.unique(
                check_targets(y, X.shape[0], "Discretizer"), return_inverse=True
            )
            extra = (y_index, len(classes))
        self.bin_edges_ = []
        if self.method == "quantile":  # every column in three passes (NaN skipped)
            self.bin_edges_ = quantile_edges_of_columns(X, w, int(self.n_bins))
        for j in range(X.shape[1] if self.method != "quantile" else 0):
            observed = ~np.isnan(X[:, j])
            subset = tuple(e[observed] if isinstance(e, np.ndarray) else e for e in extra)
            self.bin_edges_.append(edges_of(X[observed, j], w[observed], int(self.n_bins), *subset))
        self.n_bins_ = np.array([len(e) + 1 for e in self.bin_edges_], dtype=np.intp)
        return self

    def transform(self, X) -> NDArray[np.float64]:
        """Bin codes ``0..n_bins_[j]-1`` as floats, NaN where a value is missing.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Numeric data, NaN for missing; values outside the training range fall in
            the first or last bin.

        Returns
        -------
        ndarray of shape (n_samples, n_features)
            Bin codes (float64), NaN where ``X`` is NaN.

        Examples
        --------
        >>> import numpy as np
        >>> from discotree import Discretizer
        >>> bins = Discretizer(n_bins=2).fit(np.arange(10.0).reshape(-1, 1))
        >>> bins.transform([[-5.0], [4.5], [np.nan], [99.0]]).ravel()
        array([ 0.,  1., nan,  1.])
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, ensure_all_finite="allow-nan", reset=False)
        codes = self.bin_codes(X)
        return np.where(missing_values.is_missing(codes), np.nan, codes.astype(np.float64))

    def bin_codes(self, X: NDArray, out: NDArray | None = None, columns=None) -> NDArray:
        """The bins of the (already validated, numeric) ``X`` as integer codes, -1 for
        NaN, in one compiled pass; written into ``out[:, columns]`` when given."""
        edges = [np.asarray(e, dtype=np.float64) for e in self.bin_edges_]
        if out is None:
            out = np.empty(X.shape, dtype=np.intp)
            columns = np.arange(X.shape[1], dtype=np.intp)
        columns = np.asarray(columns, dtype=np.intp)
        widest = max((len(e) for e in edges), default=0)
        if widest <= 16:  # few edges: a padded table, counted without branches
            padded = np.full((len(edges), widest), np.inf)
            for k, e in enumerate(edges):
                padded[k, : len(e)] = e
            in_chunks(
                lambda start, stop: encode_bins_padded(
                    X[start:stop], columns, padded, out[start:stop]
                ),
                len(X),
                X.size,
                _THREAD_CELLS,
            )
            return out
        offsets = np.concatenate([[0], np.cumsum([len(e) for e in edges])]).astype(np.intp)
        encode_bins(X, columns, np.concatenate(edges), offsets, out)
        return out

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.target_tags.required = self.method in _SUPERVISED and self.bin_edges is None
        return tags
