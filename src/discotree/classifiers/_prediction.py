"""Prediction on dask collections for every discrete-forest classifier.

A fitted model is small, so predicting on a dask DataFrame or Array is a
``map_partitions`` / ``map_blocks`` of the model's own method: the result is a lazy
dask array and no row reaches the client (:func:`discotree.engines.dask_engine.
predict_dask`; the extra ``discotree[dask]``, imported only when dask input arrives).
"""

from __future__ import annotations

import functools
import inspect
from typing import Any

from ..engine_registry import engine_function
from ..validation import check_is_fitted

__all__ = ["PREDICTION_METHODS", "DaskPredictionMixin"]

#: Prediction methods that return a lazy dask array on dask input.
PREDICTION_METHODS = (
    "predict",
    "predict_proba",
    "predict_log_proba",
    "predict_joint_log_proba",
    "decision_function",
)


def _dask_aware(method: Any) -> Any:
    @functools.wraps(method)
    def wrapper(self, X, *args, **kwargs):
        predict_elsewhere = engine_function(X, "predict")
        if predict_elsewhere is not None:  # Dask collections: a lazy array back
            check_is_fitted(self)
            return predict_elsewhere(self, method.__name__, X)
        return method(self, X, *args, **kwargs)

    wrapper._dask_aware = True  # type: ignore[attr-defined]
    return wrapper


class DaskPredictionMixin:
    """Wraps the prediction methods of the class and of every subclass that defines
    them, so that dask input gets a lazy dask array (conditional methods, hidden when
    unavailable, are left as they are)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name in PREDICTION_METHODS:
            method = inspect.getattr_static(cls, name, None)
            if inspect.isfunction(method) and not getattr(method, "_dask_aware", False):
                setattr(cls, name, _dask_aware(method))
