"""Side-by-side cross-validation of registered classifiers: what ``discotree compare`` runs.

Every model sees the same stratified folds of each dataset
(:func:`~discotree.evaluation.splits.cross_validation`). Before its first timed fit
in a process a model is fitted once on a few rows and columns of the training fold, so
the fit times do not include the one-off compilation of numba kernels or the first
import of a module.
A model that refuses a dataset (a ``ValueError``: too many features for an EAR tree,
say) gets a row with the reason instead of numbers; any other exception is a bug and is
raised.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from sklearn.metrics import log_loss

from ..numerics import weighted_accuracy
from ..registry import make_classifier
from .splits import Fold, cross_validation

__all__ = ["ModelScores", "compare_models", "ranking", "warm_up_rows"]


@dataclass
class ModelScores:
    """One model's cross-validated scores on one dataset.

    ``accuracy``, ``log_loss`` and ``fit_seconds`` hold one value per fold (``log_loss``
    is NaN for a model without ``predict_proba``); ``refused`` is the first line of the
    ``ValueError`` of a model that cannot fit the dataset (the lists are then empty);
    ``warnings`` the distinct warning messages its fits raised.
    """

    dataset: str
    model: str
    accuracy: list[float] = field(default_factory=list)
    log_loss: list[float] = field(default_factory=list)
    fit_seconds: list[float] = field(default_factory=list)
    refused: str | None = None
    warnings: list[str] = field(default_factory=list)


def warm_up_rows(y: np.ndarray, train: np.ndarray, per_class: int = 10) -> np.ndarray:
    """Up to ``per_class`` training rows of each class (the first ones of ``train``): the
    sample a model is fitted on once before it is timed.

    Examples
    --------
    >>> import numpy as np
    >>> warm_up_rows(np.array([0, 0, 0, 1, 1]), np.arange(5), per_class=2).tolist()
    [0, 1, 3, 4]
    """
    labels = y[train]
    chosen = [train[labels == c][:per_class] for c in np.unique(labels)]
    return np.sort(np.concatenate(chosen))


#: The (model, column kinds) pairs this process has fitted once already.
_WARMED: set[tuple[str, str]] = set()


def _warm_up(name: str, X: pd.DataFrame, y: np.ndarray, train: np.ndarray) -> None:
    """Fit ``name`` once on a few rows and columns, untimed, the first time this process
    meets it with columns of these kinds: numba compiles its kernels for the types of the
    data, not for its size. A refusal is left to the timed fits to report."""
    key = (name, "".join(sorted({X[c].dtype.kind for c in X.columns})))
    if key in _WARMED:
        return
    _WARMED.add(key)
    rows = warm_up_rows(y, train)
    try:
        make_classifier(name).fit(X.iloc[rows, : min(X.shape[1], 8)], y[rows])
    except ValueError:
        pass


def _fold_scores(name: str, X: pd.DataFrame, y: np.ndarray, fold: Fold, labels: np.ndarray) -> dict:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _warm_up(name, X, y, fold.train)
        result: dict = {"warnings": []}
        model = make_classifier(name)
        start = time.perf_counter()
        try:
            model.fit(X.iloc[fold.train], y[fold.train])
        except ValueError as err:
            result["refused"] = str(err).splitlines()[0]
        else:
            result["fit_seconds"] = time.perf_counter() - start
            test, truth = X.iloc[fold.test], y[fold.test]
            result["accuracy"] = weighted_accuracy(truth, model.predict(test))
            result["log_loss"] = float("nan")
            if hasattr(model, "predict_proba"):
                proba = np.zeros((len(test), len(labels)))
                proba[:, np.searchsorted(labels, model.classes_)] = model.predict_proba(test)
                result["log_loss"] = float(log_loss(truth, proba, labels=labels))
    result["warnings"] = [str(w.message).splitlines()[0] for w in caught]
    return result


def compare_models(
    datasets: Mapping[str, Callable[[], tuple[pd.DataFrame, object]]],
    models: Sequence[str],
    *,
    n_folds: int = 5,
    seed: int = 0,
    n_jobs: int = 1,
    on_result: Callable[[str, str], None] | None = None,
) -> list[ModelScores]:
    """Cross-validate registered ``models`` on each dataset, on the same folds.

    Parameters
    ----------
    datasets : mapping of name to loader
        Each loader returns ``(X, y)``.
    models : sequence of str
        Registry names (:data:`discotree.registry.CLASSIFIERS`).
    n_folds : int, default=5
        Stratified folds (at least 2).
    seed : int, default=0
        Seed of the fold shuffling.
    n_jobs : int, default=1
        Processes (joblib), one fold of one model each; the fit times are then measured
        with that many fits running at once.
    on_result : callable, optional
        Called with (dataset, model) as each fold completes (a progress bar).

    Returns
    -------
    list of ModelScores
        In the order of ``datasets`` then ``models``.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> loader = lambda: load_iris(return_X_y=True, as_frame=True)
    >>> [scores] = compare_models({"iris": loader}, ["nb"], n_folds=3)
    >>> len(scores.accuracy), min(scores.accuracy) > 0.8
    (3, True)
    """
    from joblib import Parallel, delayed

    if n_folds < 2:
        raise ValueError(f"n_folds={n_folds}: cross-validation needs at least 2 folds")
    loaded = {}
    for name, load in datasets.items():
        X, y = load()
        X = X.reset_index(drop=True) if isinstance(X, pd.DataFrame) else pd.DataFrame(X)
        loaded[name] = (X, np.asarray(y))

    def run(dataset: str, model: str, fold: Fold) -> tuple[str, str, dict]:
        X, y = loaded[dataset]
        return dataset, model, _fold_scores(model, X, y, fold, np.unique(y))

    # The largest datasets first, so the long fits start early; within one, fold by fold
    # across the models, so that the processes start on different models and compile
    # different kernels (each reads from the numba cache what another has compiled).
    tasks = []
    for dataset in sorted(loaded, key=lambda d: -loaded[d][0].size):
        folds = list(cross_validation(loaded[dataset][1], n_folds, seed))
        tasks += [delayed(run)(dataset, model, fold) for fold in folds for model in models]
    folds_of: dict[tuple[str, str], list[dict]] = {(d, m): [] for d in loaded for m in models}
    for dataset, model, result in Parallel(n_jobs=n_jobs, return_as="generator_unordered")(tasks):
        folds_of[dataset, model].append(result)
        if on_result is not None:
            on_result(dataset, model)
    results = []
    for (dataset, model), fold_results in folds_of.items():
        scores = ModelScores(dataset, model)
        scores.warnings = list(dict.fromkeys(w for r in fold_results for w in r["warnings"]))
        refusals = [r["refused"] for r in fold_results if "refused" in r]
        if refusals:
            scores.refused = refusals[0]
        else:
            scores.accuracy = [r["accuracy"] for r in fold_results]
            scores.log_loss = [r["log_loss"] for r in fold_results]
            scores.fit_seconds = [r["fit_seconds"] for r in fold_results]
        results.append(scores)
    return results


def ranking(results: Sequence[ModelScores]) -> pd.DataFrame:
    """Each model's mean accuracy, mean log-loss and mean rank over the datasets it
    fitted, best first (rank 1 = most accurate among the models that fitted the dataset;
    ties share the mean rank; ``datasets`` counts them, so a model that refused one is
    averaged over fewer).

    Examples
    --------
    >>> a = ModelScores("d", "a", accuracy=[0.9], log_loss=[0.3], fit_seconds=[0.1])
    >>> b = ModelScores("d", "b", accuracy=[0.8], log_loss=[0.5], fit_seconds=[0.1])
    >>> ranking([a, b])["mean rank"].tolist()
    [1.0, 2.0]
    """
    rows = [
        {
            "dataset": s.dataset,
            "model": s.model,
            "accuracy": float(np.mean(s.accuracy)),
            "log_loss": float(np.mean(s.log_loss)),
        }
        for s in results
        if s.refused is None
    ]
    columns = ["model", "datasets", "mean accuracy", "mean log-loss", "mean rank"]
    if not rows:
        return pd.DataFrame(columns=columns)
    frame = pd.DataFrame(rows)
    frame["rank"] = frame.groupby("dataset")["accuracy"].rank(ascending=False, method="average")
    summary = frame.groupby("model", sort=False).agg(
        **{
            "datasets": ("dataset", "size"),
            "mean accuracy": ("accuracy", "mean"),
            "mean log-loss": ("log_loss", "mean"),
            "mean rank": ("rank", "mean"),
        }
    )
    summary = summary.sort_values(["mean rank", "mean accuracy"], ascending=[True, False])
    return summary.reset_index()[columns]
