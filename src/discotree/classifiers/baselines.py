"""Baselines the papers compare against, built from scikit-learn."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.calibration import CalibratedClassifierCV
from sklearn.compose import ColumnTransformer
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import OneHotEncoder, OrdinalEncoder, StandardScaler
from sklearn.svm import SVC

from ..fitting import FitContractMixin, available_if_explained
from ..validation import check_is_fitted, check_table, check_targets, validate_data

__all__ = [
    "AnyColumnsBaseline",
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


class _AnyColumns:
    """What the two scikit-learn baselines of any columns share: the frame they fit on
    (validated as discotree's estimators validate it; inf refused), their tags and
    their predictions, which are the fitted scikit-learn pipeline's (``pipeline_``; no
    discotree model scores them, so they follow the pipeline's rules, not
    :mod:`discotree.models.protocol`): ``predict``, and the methods of ``_DELEGATED``.
    """

    #: The pipeline's methods besides ``predict`` that the baseline offers.
    _DELEGATED: tuple[str, ...] = ()
    pipeline_: Pipeline

    def _delegates(self, name: str) -> bool:
        if name not in self._DELEGATED:
            raise AttributeError(f"This {type(self).__name__!r} has no attribute {name!r}")
        return True

    def _pipeline_does(self, method: str, X: Any) -> np.ndarray:
        check_is_fitted(self)
        return getattr(self.pipeline_, method)(self._frame(X, reset=False))

    def predict(self, X: Any) -> np.ndarray:
        """The pipeline's class (of largest probability; the SVMs: of largest margin)."""
        return self._pipeline_does("predict", X)

    @available_if_explained(lambda self: self._delegates("predict_proba"))
    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities, columns in the order of ``classes_``."""
        return self._pipeline_does("predict_proba", X)

    @available_if_explained(lambda self: self._delegates("decision_function"))
    def decision_function(self, X: Any) -> np.ndarray:
        """The SVM margin."""
        return self._pipeline_does("decision_function", X)

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

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.string = True
        tags.input_tags.categorical = True
        return tags


class QuadraticSVMClassifier(_AnyColumns, FitContractMixin, ClassifierMixin, BaseEstimator):
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

    _DELEGATED = ("decision_function",)

    def __init__(
        self, C_grid=(0.01, 0.1, 1.0, 10.0, 100.0), *, validation_fraction=0.2, random_state=0
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


def _non_numeric(frame: pd.DataFrame) -> list[Any]:
    """The columns a baseline encodes as categories: every column that is not a
    number (strings, booleans, pandas categoricals)."""
    return [
        c
        for c in frame.columns
        if not pd.api.types.is_numeric_dtype(frame[c])
        or pd.api.types.is_bool_dtype(frame[c])
        or isinstance(frame[c].dtype, pd.CategoricalDtype)
    ]


def _observed(
    frame: pd.DataFrame, numeric: list[Any], categorical: list[Any], owner: str
) -> list[Any]:
    """The numeric columns with at least one value; a ``ValueError`` naming the empty
    ones when no column is left (no categorical column either)."""
    observed = [c for c in numeric if frame[c].notna().any()]
    if not observed and not categorical:
        raise ValueError(
            f"{owner}: every column ({[str(c) for c in numeric]}) is missing in every row; "
            "there is nothing to learn from."
        )
    return observed


class AnyColumnsBaseline(_AnyColumns, FitContractMixin, ClassifierMixin, BaseEstimator):
    """A scikit-learn classifier made to take what discotree takes: numbers, strings,
    categoricals and missing values, as a practitioner would set it up.

    The comparison baselines of ``discotree compare``. Categories (every non-numeric
    column) are one-hot encoded with an explicit "missing" level, numbers imputed by
    their median with a missing-value indicator (and standardised for the linear and
    kernel models); histogram gradient boosting instead takes ordinal category codes as
    native categorical features and missing values as they are (a numeric column
    missing in every training row is left out: it tells nothing, and the other models
    impute it as a constant).

    Parameters
    ----------
    model : {"random-forest", "gradient-boosting", "logistic", "svm"}, \
            default="random-forest"
        ``RandomForestClassifier(n_estimators=300)``,
        ``HistGradientBoostingClassifier()``, ``LogisticRegression(max_iter=1000)`` or
        ``SVC(kernel="rbf")`` with Platt-scaled probabilities
        (``CalibratedClassifierCV(SVC(), ensemble=False)``),
        each with scikit-learn's other defaults.
    random_state : int or None, default=0
        Seed of the forest and the boosting.

    Attributes
    ----------
    pipeline_ : sklearn.pipeline.Pipeline
        The encoding and the fitted model.
    classes_ : ndarray
        The class labels.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> X, y = load_iris(return_X_y=True, as_frame=True)
    >>> AnyColumnsBaseline("logistic").fit(X, y).score(X, y) > 0.9
    True
    """

    _MODELS = ("random-forest", "gradient-boosting", "logistic", "svm")
    _DELEGATED = ("predict_proba",)

    def __init__(self, model: str = "random-forest", *, random_state: int | None = 0) -> None:
        self.model = model
        self.random_state = random_state

    def _pipeline(self, frame: pd.DataFrame) -> Pipeline:
        categorical = _non_numeric(frame)
        numeric = [c for c in frame.columns if c not in categorical]
        seed = self.random_state
        if self.model == "gradient-boosting":
            # a numeric column missing in every row tells nothing (the other models
            # impute it as a constant); the booster's binning cannot take it
            numeric = _observed(frame, numeric, categorical, type(self).__name__)
            codes = OrdinalEncoder(
                handle_unknown="use_encoded_value",
                unknown_value=np.nan,
                encoded_missing_value=np.nan,
                max_categories=250,  # histogram bins hold at most 255 categories
            )
            encode = ColumnTransformer(
                [("categories", codes, categorical), ("numbers", "passthrough", numeric)]
            )
            is_category = [True] * len(categorical) + [False] * len(numeric)
            booster = HistGradientBoostingClassifier(
                categorical_features=is_category if categorical else None, random_state=seed
            )
            return make_pipeline(encode, booster)
        scaled = self.model in ("logistic", "svm")
        numbers = [SimpleImputer(strategy="median", add_indicator=True, keep_empty_features=True)]
        encode = ColumnTransformer(
            [
                (
                    "categories",
                    make_pipeline(
                        SimpleImputer(strategy="constant", fill_value="(missing)"),
                        OneHotEncoder(handle_unknown="ignore"),
                    ),
                    categorical,
                ),
                (
                    "numbers",
                    make_pipeline(*numbers, *([StandardScaler()] if scaled else [])),
                    numeric,
                ),
            ]
        )
        if self.model == "random-forest":
            model: Any = RandomForestClassifier(n_estimators=300, random_state=seed)
        elif self.model == "logistic":
            model = LogisticRegression(max_iter=1000)
        else:
            # Platt scaling on 5-fold decision values, one SVC refitted on all rows
            model = CalibratedClassifierCV(SVC(kernel="rbf"), ensemble=False)
        return make_pipeline(encode, model)

    def _frame(self, X: Any, reset: bool) -> pd.DataFrame:
        frame = super()._frame(X, reset)
        categorical = _non_numeric(frame)
        if categorical:  # one kind of value per category column: strings, NaN missing
            frame = frame.copy()
            for c in categorical:
                present = frame[c].notna()
                frame[c] = frame[c].astype(object).where(present, np.nan)
                frame.loc[present, c] = frame.loc[present, c].map(str)
        return frame

    def fit(self, X: Any, y: Any) -> AnyColumnsBaseline:
        """Encode ``X`` and fit the model."""
        if self.model not in self._MODELS:
            raise ValueError(
                f"AnyColumnsBaseline: model={self.model!r}; choose from {', '.join(self._MODELS)}"
            )
        frame = self._frame(X, reset=True)
        y = check_targets(y, len(frame), type(self).__name__)
        self.classes_ = np.unique(y)
        if len(self.classes_) < 2:
            raise ValueError("AnyColumnsBaseline: y contains only 1 class.")
        self.pipeline_ = self._pipeline(frame).fit(frame, y)
        return self
