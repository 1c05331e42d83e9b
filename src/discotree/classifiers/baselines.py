"""Baselines the papers compare against, built from scikit-learn."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.compose import ColumnTransformer
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.ensemble import RandomForestClassifier
from sklearn.impute import SimpleImputer
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler
from sklearn.svm import SVC

from ..fitting import FitContractMixin
from ..validation import check_is_fitted, check_table, check_targets, validate_data

__all__ = [
    "QuadraticSVMClassifier",
    "lda_classifier",
    "nearest_neighbours_classifier",
    "random_forest_classifier",
    "rbf_svm_classifier",
]


# The baselines of Dorn et al. 2018, Section 5 (Matlab defaults there; the
# closest scikit-learn equivalents here). They take numeric features without missing
# values, as that paper's data.
def lda_classifier(**params: Any) -> Pipeline:
    """Linear discriminant analysis (``lda``)."""
    return make_pipeline(LinearDiscriminantAnalysis(**params))


def nearest_neighbours_classifier(n_neighbors: int = 5, **params: Any) -> Pipeline:
    """5-nearest neighbours on standardised features (``knn5``)."""
    return make_pipeline(StandardScaler(), KNeighborsClassifier(n_neighbors, **params))


def rbf_svm_classifier(**params: Any) -> Pipeline:
    """RBF-kernel SVM on standardised features, ``gamma="scale"`` (``svm-rbf``; Matlab's
    fitcsvm picks the kernel scale by a heuristic of its own)."""
    return make_pipeline(StandardScaler(), SVC(kernel="rbf", gamma="scale", **params))


def random_forest_classifier(**params: Any) -> RandomForestClassifier:
    """Random forest of 50 trees, sqrt(n_features) candidates per split (``rf50``)."""
    settings = {"n_estimators": 50, "max_features": "sqrt", "random_state": 0, **params}
    return RandomForestClassifier(**settings)


class QuadraticSVMClassifier(FitContractMixin, ClassifierMixin, BaseEstimator):
    """SVM with the quadratic kernel ``K(a, b) = (1 + <a, b>)^2``, C chosen on a
    held-out part of the training data (Tan et al. 2010, Section V-D).

    Non-numeric columns are one-hot encoded and missing values imputed (most frequent
    value); numeric columns are used as they are.

    Parameters
    ----------
    C_grid : tuple of float, default=(0.01, 0.1, 1.0, 10.0, 100.0)
        Candidate penalties.
    validation_fraction : float, default=0.2
        Share of the training samples used to choose C (the paper's 20%).
    random_state : int or None, default=0
        Seed of the held-out split.

    Attributes
    ----------
    C_ : float
        The chosen penalty.
    pipeline_ : sklearn.pipeline.Pipeline
        Encoding and the SVC refitted on all training samples with ``C_``.
    classes_ : ndarray
    """

    def __init__(
        self, C_grid=(0.01, 0.1, 1.0, 10.0, 100.0), validation_fraction=0.2, random_state=0
    ) -> None:
        self.C_grid = C_grid
        self.validation_fraction = validation_fraction
        self.random_state = random_state

    def _pipeline(self, X: pd.DataFrame, C: float):
        categorical = [
            c
            for c in X.columns
            if not pd.api.types.is_numeric_dtype(X[c])
            or isinstance(X[c].dtype, pd.CategoricalDtype)
        ]
        numeric = [c for c in X.columns if c not in categorical]
        encode = ColumnTransformer(
            [
                (
                    "categories",
                    make_pipeline(
                        SimpleImputer(strategy="most_frequent"),
                        OneHotEncoder(handle_unknown="ignore"),
                    ),
                    categorical,
                ),
                ("numbers", SimpleImputer(strategy="mean", keep_empty_features=True), numeric),
            ]
        )
        svc = SVC(kernel="poly", degree=2, coef0=1.0, gamma=1.0, C=C)
        return make_pipeline(encode, svc)

    def _frame(self, X: Any, reset: bool) -> pd.DataFrame:
        name = type(self).__name__
        table = check_table(X, name)
        validate_data(self, X, skip_check_array=True, reset=reset)
        for column, label in zip(table.columns, table.labels, strict=True):
            if column.dtype.kind == "f" and np.isinf(column).any():
                raise ValueError(f"{name}: {label} contains inf.")
        if isinstance(X, pd.DataFrame):
            return X.reset_index(drop=True)
        return pd.DataFrame({j: c for j, c in enumerate(table.columns)})

    def fit(self, X: Any, y: Any) -> QuadraticSVMClassifier:
        """Choose C on the held-out part, then refit on every training sample.

        (No ``sample_weight``: the choice of C on a held-out split is not equivalent
        under integer weights and repeated rows.)
        """
        frame = self._frame(X, reset=True)
        y = check_targets(y, len(frame), type(self).__name__)
        self.classes_ = np.unique(y)
        if len(self.classes_) < 2:
            raise ValueError("QuadraticSVMClassifier: y contains only 1 class.")
        counts = np.unique(y, return_counts=True)[1]
        self.C_ = float(self.C_grid[len(self.C_grid) // 2])
        n_held = int(np.ceil(self.validation_fraction * len(y)))
        if counts.min() >= 2 and n_held >= len(self.classes_) and len(y) - n_held >= len(counts):
            train, held = train_test_split(
                np.arange(len(y)),
                test_size=self.validation_fraction,
                stratify=y,
                random_state=self.random_state,
            )
            if len(np.unique(y[train])) == len(self.classes_):
                scores = [
                    self._pipeline(frame, C)
                    .fit(frame.iloc[train], y[train])
                    .score(frame.iloc[held], y[held])
                    for C in self.C_grid
                ]
                self.C_ = float(self.C_grid[int(np.argmax(scores))])
        self.pipeline_ = clone(self._pipeline(frame, self.C_)).fit(frame, y)
        return self

    def decision_function(self, X: Any) -> np.ndarray:
        """The SVM margin."""
        check_is_fitted(self)
        return self.pipeline_.decision_function(self._frame(X, reset=False))

    def predict(self, X: Any) -> np.ndarray:
        """The SVM's class."""
        check_is_fitted(self)
        return self.pipeline_.predict(self._frame(X, reset=False))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.string = True
        tags.input_tags.categorical = True
        return tags
