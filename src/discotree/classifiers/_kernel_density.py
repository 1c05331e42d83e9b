"""What the kernel density classifiers share: numeric validation with named errors,
standardisation robust to the float64 range, bandwidth rules."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
from numpy.typing import NDArray
from sklearn.base import BaseEstimator, ClassifierMixin

from ..config import get_config
from ..fitting import FitContractMixin
from ..numerics import CONSTANT_RTOL
from ..validation import (
    check_is_fitted,
    check_sample_weight,
    check_table,
    check_targets,
    numeric_column,
    validate_data,
)
from ._prediction import ScoredPredictionMixin

#: Normal-reference bandwidth rules.
_RULES = ("scott", "silverman")


def _numeric_matrix(X: Any, owner: str) -> NDArray[np.float64]:
    """X as a float64 matrix, with errors that name the column: these classifiers need
    numeric, finite, non-missing features."""
    table = check_table(X, owner)  # rows, columns, duplicate names, inf, cell types
    needs = "kernel density estimates need numeric features (encode or drop categorical columns)."
    columns = []
    for column, label in zip(table.columns, table.labels, strict=True):
        values = numeric_column(column, label, owner, needs)
        missing = np.isnan(values)
        if missing.any():
            raise ValueError(
                f"{owner}: {label} is missing (NaN) at rows "
                f"{np.flatnonzero(missing)[:5].tolist()}; kernel density estimates need "
                "complete data (impute, or use a discrete model, which sums missing "
                "features out)."
            )
        columns.append(values)
    return np.column_stack(columns)


def _robust_moments(X, w) -> tuple[NDArray, NDArray, NDArray]:
    """Per column: largest magnitude, then the weighted mean and standard deviation of
    the column divided by it (no overflow for values up to the float64 limit)."""
    magnitude = np.abs(X).max(axis=0)
    magnitude = np.where(magnitude > 0, magnitude, 1.0)
    unit = X / magnitude
    total = w.sum()
    mean = w @ unit / total
    sd = np.sqrt(w @ (unit - mean) ** 2 / total)
    sd[~(sd > CONSTANT_RTOL * np.maximum(1.0, np.abs(mean)))] = 1.0
    return magnitude, mean, sd


class KernelDensityBase(ScoredPredictionMixin, FitContractMixin, ClassifierMixin, BaseEstimator):
    """Validation, standardisation and bandwidths shared by the kernel classifiers.

    ``feature_importances_``: the mean absolute share of each feature in the model's
    additive scores (:meth:`_feature_contributions` of each subclass), over a seeded
    sample of at most ``importance_rows`` standardised training rows kept by ``fit``
    (the kernel models need complete rows, so they cannot sum a feature out).
    """

    #: The importances computed (per fit) and the sample they are computed on.
    _importance_cache: dict[str, NDArray[np.float64]] | None = None
    _importance_rows: NDArray[np.float64] | None = None

    @staticmethod
    def _importance_sample_of(Z: NDArray[np.float64]) -> dict[str, Any]:
        """The fitted attributes of the importances' sample of the rows ``Z``."""
        limit = int(get_config()["importance_rows"])
        if limit <= 0:
            return {"_importance_cache": {}, "_importance_rows": None}
        keep = np.arange(len(Z))
        if len(keep) > limit:
            keep = np.sort(np.random.default_rng(0).choice(keep, limit, replace=False))
        return {"_importance_cache": {}, "_importance_rows": Z[keep]}

    def _feature_contributions(self, Z: NDArray[np.float64]) -> NDArray[np.float64]:
        """Each feature's additive share of each score, (n_rows, n_scores, n_features)."""
        raise NotImplementedError  # pragma: no cover - each subclass defines its scores

    @property
    def feature_importances_(self) -> NDArray[np.float64]:
        """Mean absolute contribution of each feature to the model's scores over a
        sample of at most ``importance_rows`` training rows (see the class notes)."""
        cache, rows = self._importance_cache, self._importance_rows
        if cache is None:
            raise AttributeError(f"{type(self).__name__} is not fitted: no feature_importances_.")
        if "mean" not in cache:
            if rows is None:
                raise AttributeError(
                    f"{type(self).__name__} has no feature_importances_: it was fitted with "
                    "importance_rows=0 (no training rows kept)."
                )
            cache["mean"] = np.abs(self._feature_contributions(rows)).mean(axis=(0, 1))
        return cache["mean"]

    def _validate(self, X, y, sample_weight):
        name = type(self).__name__
        matrix = _numeric_matrix(X, name)
        validate_data(self, X, skip_check_array=True)
        X = matrix
        if len(X) < 2:
            raise ValueError(f"{name}: X has {len(X)} sample; at least 2 are required.")
        y = check_targets(y, len(X), name)
        w = check_sample_weight(sample_weight, len(X), name)
        if w is None:
            w = np.ones(len(X))
        keep = w > 0
        X, y, w = X[keep], y[keep], w[keep]
        classes, class_index = np.unique(y, return_inverse=True)
        if len(classes) < 2:
            raise ValueError(f"{name}: y contains only 1 class ({classes[0]!r}).")
        magnitude, unit_mean, unit_sd = _robust_moments(X, w)
        self._set_fitted(
            {
                "classes_": classes,
                "_magnitude": magnitude,
                "_unit_mean": unit_mean,
                "_unit_sd": unit_sd,
                "mean_": magnitude * unit_mean,
                "scale_": magnitude * unit_sd,
            }
        )
        Z = self._standardise(X)
        self._set_fitted(self._importance_sample_of(Z))
        return Z, class_index.astype(np.intp), w

    def _standardise(self, X) -> NDArray[np.float64]:
        with np.errstate(over="ignore"):
            return (X / self._magnitude - self._unit_mean) / self._unit_sd

    def _bandwidth(self) -> str | NDArray[np.float64]:
        """The rule name, or per-feature bandwidths in standardised units."""
        name = type(self).__name__
        bandwidth = self.bandwidth
        if isinstance(bandwidth, str):
            if bandwidth not in _RULES:
                raise ValueError(
                    f"{name}: bandwidth must be one of {_RULES}, a positive float or one "
                    f"positive value per feature; got {bandwidth!r}."
                )
            return bandwidth
        h = np.asarray(bandwidth, dtype=np.float64)
        if h.ndim == 0:
            h = np.full(self.n_features_in_, float(h))
        if h.shape != (self.n_features_in_,):
            raise ValueError(
                f"{name}: bandwidth must be a float or have one value per feature "
                f"({self.n_features_in_}), got shape {h.shape}."
            )
        if not (np.isfinite(h).all() and (h > 0).all()):
            raise ValueError(f"{name}: bandwidths must be positive and finite, got {h}.")
        return h / self.scale_

    def _check_common(self) -> None:
        name = type(self).__name__
        floor = self.density_floor
        if not (isinstance(floor, numbers.Real) and 0 < float(floor) < np.inf):
            raise ValueError(f"{name}: density_floor must be a positive float, got {floor!r}.")
        if self.kde not in ("auto", "binned", "exact"):
            raise ValueError(f"{name}: kde must be 'auto', 'binned' or 'exact', got {self.kde!r}.")
        sizes = self.grid_size
        if (
            not isinstance(sizes, tuple | list)
            or len(sizes) != 2
            or not all(isinstance(s, numbers.Integral) and int(s) >= 8 for s in sizes)
        ):
            raise ValueError(
                f"{name}: grid_size must be two integers >= 8 (1-D, 2-D), got {sizes!r}."
            )

    def _standardised(self, X) -> NDArray[np.float64]:
        check_is_fitted(self)
        matrix = _numeric_matrix(X, type(self).__name__)
        validate_data(self, X, skip_check_array=True, reset=False)
        X = matrix
        if X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"{type(self).__name__}: X has {X.shape[1]} features, but the model was "
                f"fitted with {self.n_features_in_}."
            )
        return self._standardise(X)

    @property
    def bandwidth_(self) -> NDArray[np.float64]:
        """Univariate bandwidths per class and feature, in the original units."""
        check_is_fitted(self)
        return self.densities_.bandwidth_1d * self.scale_
