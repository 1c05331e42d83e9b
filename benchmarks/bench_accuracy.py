"""Accuracy against random forests (issue 31): discotree's models with their defaults
beside RandomForest(300), HistGradientBoosting and LogisticRegression on the 39 tabular
sets of the data folder and scikit-learn.

Protocol (fixed before any per-set result was seen): 5-fold
``StratifiedKFold(shuffle=True, random_state=0)`` on the raw frames, the same folds for
every model; each model with its defaults (discotree encodes and bins as it does for a
user). The baselines: ``RandomForestClassifier(300, random_state=0)`` and
``HistGradientBoostingClassifier(categorical_features="from_dtype", random_state=0)``
(native categoricals) on the frame with string columns as pandas categories (the forest
on their ordinal codes, NaN kept: scikit-learn's trees route it), and
``LogisticRegression(max_iter=1000)`` on one-hot categories and standardised numbers
(mean-imputed, with a missing-indicator). Weka's AODE is not installed here: its column
is absent.

Reported: mean accuracy and log-loss over the sets, mean rank (by accuracy, 1 best),
wins, draws and losses against RF from the 5 paired fold differences (a draw: the mean
difference within one standard error of it), the Wilcoxon signed-rank p-value of the
per-set mean accuracies against RF, and the median over sets of fit and predict time
relative to TAN's on the same fold, and the pickled size of each fitted model against
the forest's (``pickle.dumps``: issue 48 compares model files to it); the same on the 13
sets whose features are all categorical or mixed and the 26 all-numeric ones. Numeric
handling (item 6): selective kDB with the default 5 equal-frequency bins, 10 bins
(Dirichlet and hierarchical) and supervised MDL bins, beside the ensemble's stochastic
bins (4 bins, chosen on other folds by ``tune_ensemble.py``; the earlier 5 beside it),
and the ensemble with and without its linear member (the numeric values, not bins:
weight 0.3, chosen there too). Smoothing (item 3): Dirichlet, hierarchical and HDP for
selective kDB, TAN, naive Bayes, the discriminative tree pairs and A1DE (not A2DE's HDP:
its 3 C(d, 3) context trees per fit would take hours on the sets with many attributes).
A2DE beside A1DE (item 4).
``--mnist``: the best discotree models and
RandomForest(100) on MNIST's official 60000/10000 split, pixels binarised at > 127.

Run:  python benchmarks/bench_accuracy.py [--n-jobs 2] [--sets a,b] [--models a,b] [--mnist]
``--threads 2`` sets the n_jobs of every model that has one (the forest's and the
ensemble's alike; run it with ``--n-jobs 1``). With ``--threads 1`` (the default) each
fold's process holds one core of its own (``bench_fit.hold_one_core``): discotree's
kernels split their work over the cores a process may use, whatever ``n_jobs`` says,
so without it "one thread" gave the ensemble's kernels both cores. Writes ``<name>.json``
and ``<name>.md`` (``--name``, default accuracy; with the machine description) to --out;
``--merge``
reruns only ``--models`` (and TAN) and keeps the other models' rows, the same folds; every
time is relative to TAN's on the same fold of the same run (rows carry it), so runs merged
from different machines or loads compare as ratios.
"""

from __future__ import annotations

import argparse
import json
import pickle
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from scipy import stats
from sklearn.base import clone
from sklearn.compose import ColumnTransformer, make_column_selector
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, OrdinalEncoder, StandardScaler

from discotree import (
    AODEClassifier,
    Discretizer,
    DiscriminativeTreeClassifier,
    KDBClassifier,
    KDBEnsembleClassifier,
    NaiveBayesClassifier,
    TANClassifier,
)
from discotree_reproductions.harness.data_folder import load_dataset

IMAGE_SETS = {"mnist", "mnist5000", "usps"}
SKLEARN_SETS = ["iris", "wine", "breast_cancer", "digits"]
REFERENCE = "rf300"


def _categorical(X: pd.DataFrame) -> list[str]:
    return [c for c in X.columns if not pd.api.types.is_numeric_dtype(X[c]) or X[c].dtype == bool]


def _as_categories(X: pd.DataFrame) -> pd.DataFrame:
    X = X.copy()
    for c in _categorical(X):
        X[c] = X[c].astype("category")
    return X


def load_fold(name: str, fold: int, data_dir, fold_seed: int):
    """The set ``name`` (categorical columns as categories), its labels, their class
    indices, and the train and test rows of its fold ``fold`` of
    ``StratifiedKFold(5, shuffle=True, random_state=fold_seed)``."""
    X, y = load_dataset(name, data_dir)
    X = _as_categories(X)
    y = np.asarray(y)
    index = np.unique(y, return_inverse=True)[1]
    folds = StratifiedKFold(5, shuffle=True, random_state=fold_seed)
    train, test = list(folds.split(np.zeros(len(y)), index))[fold]
    return X, y, index, train, test


def random_forest(n_estimators: int = 300):
    ordinal = ColumnTransformer(
        [
            (
                "categories",
                OrdinalEncoder(
                    handle_unknown="use_encoded_value",
                    unknown_value=np.nan,
                    encoded_missing_value=np.nan,
                ),
                make_column_selector(dtype_include="category"),
            )
        ],
        remainder="passthrough",
    )
    return make_pipeline(ordinal, RandomForestClassifier(n_estimators, random_state=0))


def logistic_regression():
    columns = ColumnTransformer(
        [
            (
                "categories",
                make_pipeline(
                    SimpleImputer(strategy="most_frequent"),
                    OneHotEncoder(handle_unknown="ignore"),
                ),
                make_column_selector(dtype_include="category"),
            ),
            (
                "numbers",
                make_pipeline(SimpleImputer(strategy="mean", add_indicator=True), StandardScaler()),
                make_column_selector(dtype_exclude="category"),
            ),
        ]
    )
    return make_pipeline(columns, LogisticRegression(max_iter=1000))


def models() -> dict:
    """The compared models, each with its defaults (discotree's take the raw frame)."""
    return {
        "tan": TANClassifier(),
        "nb": NaiveBayesClassifier(),
        # hierarchical smoothing on the forest models (issue 31, item 3)
        "tan hier": TANClassifier(smoothing="hierarchical"),
        "nb hier": NaiveBayesClassifier(smoothing="hierarchical"),
        "dt": DiscriminativeTreeClassifier(),
        "dt hier": DiscriminativeTreeClassifier(smoothing="hierarchical"),
        "skdb": KDBClassifier(),
        "kdb": KDBClassifier(selective=False),
        # the two smoothings of issue 31 (item 3), measured to choose the default
        "skdb hier": KDBClassifier(smoothing="hierarchical"),
        "kdb hier": KDBClassifier(selective=False, smoothing="hierarchical"),
        # the HDP estimate (Petitjean et al. 2018) by Gibbs sampling: the reference
        "skdb hdp": KDBClassifier(smoothing="hdp"),
        # numeric handling (issue 31, item 6): finer and supervised bins for one model
        "skdb bins10": KDBClassifier(discretizer=Discretizer(n_bins=10)),
        "skdb hier bins10": KDBClassifier(
            smoothing="hierarchical", discretizer=Discretizer(n_bins=10)
        ),
        "skdb mdl": KDBClassifier(discretizer=Discretizer(method="mdl")),
        "aode": AODEClassifier(),
        "aode hier": AODEClassifier(smoothing="hierarchical"),
        # the HDP estimate on the forest models and A1DE, from their count tables
        "nb hdp": NaiveBayesClassifier(smoothing="hdp"),
        "tan hdp": TANClassifier(smoothing="hdp"),
        "dt hdp": DiscriminativeTreeClassifier(smoothing="hdp"),
        "aode hdp": AODEClassifier(smoothing="hdp"),
        "a2de": AODEClassifier(n_super_parents=2),
        "a2de hier": AODEClassifier(n_super_parents=2, smoothing="hierarchical"),
        "eskdb": KDBEnsembleClassifier(),
        # without the pair member (the default of sessions 23-25), the linear member's
        # fixed weight (the default of session 22), none (the default before it), and the
        # earlier default of 5 bins, beside the 4 chosen on other folds
        # the pair member at session 26's fixed weight, pooled linearly (its default then)
        "eskdb pairs 0.1 linear": KDBEnsembleClassifier(pair_weight=0.1, pair_pooling="linear"),
        "eskdb no pairs": KDBEnsembleClassifier(pair_weight=0.0),
        "eskdb linear 0.3": KDBEnsembleClassifier(linear_weight=0.3, pair_weight=0.0),
        "eskdb no linear": KDBEnsembleClassifier(linear_weight=0.0, pair_weight=0.0),
        "eskdb bins5": KDBEnsembleClassifier(n_bins=5, linear_weight=0.0, pair_weight=0.0),
        REFERENCE: random_forest(300),
        "hgb": HistGradientBoostingClassifier(categorical_features="from_dtype", random_state=0),
        "lr": logistic_regression(),
    }


BASELINES = {REFERENCE, "hgb", "lr"}


def with_threads(estimator, threads: int):
    """``estimator`` with every ``n_jobs`` parameter (its own or its steps') set to
    ``threads``."""
    names = [k for k in estimator.get_params() if k == "n_jobs" or k.endswith("__n_jobs")]
    return estimator.set_params(**dict.fromkeys(names, threads))


def _log_loss(proba: np.ndarray, index: np.ndarray) -> float:
    return float(-np.mean(np.log(np.clip(proba[np.arange(len(index)), index], 1e-15, 1))))


def run_fold(
    name: str,
    fold: int,
    data_dir,
    chosen: list[str] | None,
    estimators: dict | None = None,
    fold_seed: int = 0,
    threads: int = 1,
) -> list[dict]:
    """Fit and score every chosen model (and TAN, the time reference) on one fold of
    ``StratifiedKFold(5, shuffle=True, random_state=fold_seed)``: ``estimators``
    (label -> estimator) instead of :func:`models` when given."""
    if threads == 1:  # one core for every model, discotree's kernel threads included
        from bench_fit import hold_one_core

        hold_one_core()
    X, y, _, train, test = load_fold(name, fold, data_dir, fold_seed)
    rows = []
    for label, estimator in (models() if estimators is None else estimators).items():
        if chosen and label not in chosen and label != "tan":
            continue
        model = clone(estimator)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            start = time.perf_counter()
            model.fit(X.iloc[train], y[train])
            fit_s = time.perf_counter() - start
            start = time.perf_counter()
            proba = model.predict_proba(X.iloc[test])
            predict_s = time.perf_counter() - start
        column = np.searchsorted(model.classes_, y[test])
        rows.append(
            {
                "dataset": name,
                "fold": fold,
                "model": label,
                "accuracy": float(np.mean(model.classes_[proba.argmax(axis=1)] == y[test])),
                "log_loss": _log_loss(proba, column),
                "fit_s": fit_s,
                "predict_s": predict_s,
                "pickle_bytes": len(pickle.dumps(model)),
            }
        )
    tan = next((r for r in rows if r["model"] == "tan"), None)
    for row in rows:  # the time reference of the same fold, run and machine
        if tan is not None:
            row["tan_fit_s"], row["tan_predict_s"] = tan["fit_s"], tan["predict_s"]
    return rows


def time_ratios(frame: pd.DataFrame, column: str) -> pd.DataFrame:
    """Each row's ``column`` (``fit_s`` or ``predict_s``) over TAN's on the same fold of
    the same run (``tan_<column>``), pivoted to (dataset, fold) x model; rows written
    before the runs kept their TAN's time use the TAN rows of the file (those of the run
    they come from: ``--merge`` keeps them).

    Examples
    --------
    >>> frame = pd.DataFrame({"dataset": ["a"] * 3, "fold": [0] * 3,
    ...     "model": ["tan", "old", "new"], "fit_s": [2.0, 4.0, 9.0],
    ...     "tan_fit_s": [2.0, None, 3.0]})
    >>> time_ratios(frame, "fit_s").loc[("a", 0)].to_dict()
    {'new': 3.0, 'old': 2.0, 'tan': 1.0}
    """
    key = ["dataset", "fold"]
    tan = frame[frame["model"] == "tan"].set_index(key)[column]
    reference = pd.Series(frame.set_index(key).index.map(tan), index=frame.index)
    own = f"tan_{column}"
    if own in frame:
        reference = frame[own].astype(float).fillna(reference)
    ratios = frame.assign(ratio=frame[column] / reference)
    return ratios.pivot_table(index=key, columns="model", values="ratio")


def size_ratios(frame: pd.DataFrame, model: str) -> pd.Series:
    """Per set, the median over folds of ``model``'s pickled size over the forest's of
    the same fold (sets whose rows did not record sizes, from runs before, left out).

    Examples
    --------
    >>> frame = pd.DataFrame({"dataset": ["a", "a", "b", "b"], "fold": [0, 0, 0, 0],
    ...     "model": ["m", "rf300", "m", "rf300"], "pickle_bytes": [2.0, 4.0, None, 1.0]})
    >>> size_ratios(frame, "m").to_dict()
    {'a': 0.5}
    """
    if "pickle_bytes" not in frame:
        return pd.Series(dtype=float)
    sizes = frame.pivot_table(index=["dataset", "fold"], columns="model", values="pickle_bytes")
    if model not in sizes or REFERENCE not in sizes:
        return pd.Series(dtype=float)
    return (sizes[model] / sizes[REFERENCE]).groupby("dataset").median().dropna()


def _kind(name: str, data_dir) -> str:
    X, _ = load_dataset(name, data_dir)
    categorical = _categorical(X)
    return "numeric" if not categorical else "categorical or mixed"


def summary(frame: pd.DataFrame, kinds: dict[str, str]) -> pd.DataFrame:
    per_set = frame.groupby(["model", "dataset"])[["accuracy", "log_loss"]].mean()
    accuracy = per_set["accuracy"].unstack("model")
    ranks = accuracy.rank(axis=1, ascending=False)
    times, predict = time_ratios(frame, "fit_s"), time_ratios(frame, "predict_s")
    paired = frame.pivot_table(index=["dataset", "fold"], columns="model", values="accuracy")
    out = []
    for model in accuracy.columns:
        row = {
            "model": model,
            "sets": int(accuracy[model].notna().sum()),
            "accuracy": 100 * accuracy[model].mean(),
            "log_loss": per_set["log_loss"].unstack("model")[model].mean(),
            "rank": ranks[model].mean(),
            "fit / tan (median)": float(times[model].groupby("dataset").median().median()),
            "predict / tan (median)": float(predict[model].groupby("dataset").median().median()),
        }
        if REFERENCE in times:  # against the forest: per fold (same run), median per set
            for what, table in (("fit", times), ("predict", predict)):
                by_set = (table[model] / table[REFERENCE]).groupby("dataset").median()
                row[f"{what} / rf300 (median)"] = float(by_set.median())
                row[f"{what} / rf300 (worst)"] = float(by_set.max())
                if what == "fit":
                    row["worst fit set"] = str(by_set.idxmax()) if by_set.notna().any() else ""
            sizes = size_ratios(frame, model)
            row["size / rf300 (median)"] = float(sizes.median()) if len(sizes) else np.nan
            row["size / rf300 (worst)"] = float(sizes.max()) if len(sizes) else np.nan
            row["worst size set"] = str(sizes.idxmax()) if len(sizes) else ""
        for kind in ("categorical or mixed", "numeric"):
            sets = [s for s in accuracy.index if kinds[s] == kind]
            row[f"accuracy {kind}"] = 100 * accuracy.loc[sets, model].mean()
        if model != REFERENCE and REFERENCE in accuracy.columns:
            diff = (paired[model] - paired[REFERENCE]).groupby("dataset")
            mean, se = diff.mean(), diff.std(ddof=1) / np.sqrt(diff.count())
            wins = int((mean > se).sum())
            losses = int((mean < -se).sum())
            row["W/D/L vs rf300"] = f"{wins}/{len(mean) - wins - losses}/{losses}"
            set_diff = accuracy[model] - accuracy[REFERENCE]
            row["wilcoxon p vs rf300"] = (
                float(stats.wilcoxon(set_diff).pvalue) if (set_diff != 0).any() else 1.0
            )
        out.append(row)
    return pd.DataFrame(out).sort_values("accuracy", ascending=False)


def mnist_rows(data_dir, names: list[str], threads: int = 2, save=None) -> dict:
    """The models ``names`` (of :func:`models`) and RandomForest(100) on MNIST's official
    split, pixels binarised at > 127: accuracy, fit seconds, the seconds of
    ``predict_proba`` of the 10,000 test rows, threads and the machine's
    CPU of each (rows of several runs can be merged; with other than 2 threads each
    label says its threads); ``save``, when given, is called with the rows so far after
    each model. With one thread the process holds one core of its own."""
    from bench_fit import hold_one_core, machine

    if threads == 1:
        hold_one_core()
    cpu = machine()["cpu"]
    X, y = load_dataset("mnist", data_dir)
    bits = (X.to_numpy() > 127).astype(np.int8)
    y = np.asarray(y)
    chosen = {name: models()[name] for name in names}
    for estimator in chosen.values():  # the same threads as the forests below
        with_threads(estimator, threads)
    # the forests on the bits as they are (the benchmark's forest encodes a data frame)
    for n_trees in (300, 100) if REFERENCE in chosen else (100,):
        chosen[f"rf{n_trees}"] = RandomForestClassifier(n_trees, random_state=0, n_jobs=threads)
    out = {}
    for label, estimator in chosen.items():
        start = time.perf_counter()
        estimator.fit(bits[:60000], y[:60000])
        fit_s = time.perf_counter() - start
        start = time.perf_counter()
        estimator.predict_proba(bits[60000:])
        predict_s = time.perf_counter() - start
        accuracy = float(np.mean(estimator.predict(bits[60000:]) == y[60000:]))
        if threads != 2:
            label = f"{label} ({threads} thread{'s' if threads > 1 else ''})"
        out[label] = {
            "accuracy": accuracy,
            "fit_s": fit_s,
            "predict_s": predict_s,
            "cpu": cpu,
            "threads": threads,
        }
        print(
            f"mnist {label}: {100 * accuracy:.2f} % (fit {fit_s:.0f} s, "
            f"predict_proba of the 10000 test rows {predict_s:.2f} s)",
            flush=True,
        )
        if save is not None:  # (each row as soon as measured)
            save(out)
    return out


def _markdown(table: pd.DataFrame, digits: int = 3) -> str:
    def cell(value) -> str:
        if isinstance(value, float):
            return "" if np.isnan(value) else f"{value:.{digits}f}"
        return str(value)

    header = "| " + " | ".join(str(c) for c in table.columns) + " |"
    lines = [header, "|" + "---|" * len(table.columns)]
    lines += [
        "| " + " | ".join(cell(v) for v in row) + " |" for row in table.itertuples(index=False)
    ]
    return "\n".join(lines)


def report(frame: pd.DataFrame, kinds: dict[str, str], machine: dict, mnist: dict | None) -> str:
    table = summary(frame, kinds)
    n_sets = frame["dataset"].nunique()
    counts = pd.Series(kinds).value_counts().to_dict()
    lines = [
        "# Accuracy against random forests (issue 31)",
        "",
        "Machine (the last run's): " + json.dumps(machine),
        "",
    ]
    if "cpu" in frame:  # merged runs: the models of each machine (times are ratios to
        # TAN's of the same run, so they compare across machines)
        by_cpu = frame[frame["model"] != "tan"].groupby("cpu")["model"].unique()
        lines += [
            "Rows by machine: "
            + "; ".join(f"{cpu}: {', '.join(sorted(m))}" for cpu, m in by_cpu.items()),
            "",
        ]
    lines += [
        f"{n_sets} sets ({counts}), 5-fold StratifiedKFold(shuffle=True, random_state=0), the "
        "same folds for every model; every model with its defaults. Accuracy in %, log-loss "
        "in nats, averaged over the sets; rank by accuracy (1 best); W/D/L against "
        "RandomForest(300) from the 5 paired fold differences (draw: within one standard "
        "error); Wilcoxon signed-rank p of the per-set accuracies against it; times relative "
        "to TAN's on the same fold of the same run (median over folds, then sets), and to "
        "RandomForest(300)'s (both over TAN's of their own run: the median over folds per "
        "set, then the median set and the worst set); pickled sizes over the forest's of "
        "the same fold (median over folds, then the median and the worst set; rows of runs "
        "before sizes were recorded have none). Threads (n_jobs of every model that "
        f"has one): {machine.get('threads', 1)}"
        + (
            "; each fold's process pinned to one core of its own." if machine.get("pinned") else "."
        ),
        "",
        _markdown(table),
        "",
    ]
    if mnist:
        lines += ["## Binarised MNIST (official 60000/10000 split, pixels > 127)", ""]
        lines += [
            f"- {label}: {100 * row['accuracy']:.2f} % (fit {row['fit_s']:.0f} s"
            + (f", predict_proba {row['predict_s']:.2f} s" if "predict_s" in row else "")
            + (f", {row['cpu']})" if "cpu" in row else ")")
            for label, row in mnist.items()
        ]
        lines.append("")
    per_set = frame.pivot_table(index="dataset", columns="model", values="accuracy") * 100
    lines += ["## Accuracy per set (%)", "", _markdown(per_set.reset_index(), 2), ""]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-jobs", type=int, default=2, help="folds run at once")
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="n_jobs of every model that has one (the forest's and the ensemble's alike)",
    )
    parser.add_argument("--name", default="accuracy", help="the results' file stem")
    parser.add_argument("--sets", default=None, help="comma-separated names (default: all)")
    parser.add_argument("--models", default=None, help="comma-separated names (default: all)")
    parser.add_argument("--data-dir", default=None)
    parser.add_argument(
        "--mnist",
        default=None,
        help="comma-separated models to also run on binarised MNIST (with RF(100))",
    )
    parser.add_argument(
        "--mnist-only", action="store_true", help="only the MNIST rows (mnist.json)"
    )
    parser.add_argument(
        "--mnist-threads", type=int, default=2, help="n_jobs of every MNIST model (default 2)"
    )
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    parser.add_argument(
        "--report-only",
        action="store_true",
        help="write the report of --out's <name>.json again (no fits)",
    )
    parser.add_argument(
        "--merge",
        action="store_true",
        help="keep the other models' rows of --out's accuracy.json (same folds)",
    )
    args = parser.parse_args()
    if args.sets:
        sets = args.sets.split(",")
    else:
        from discotree_reproductions.harness.data_folder import manifest

        sets = [n for n in manifest(args.data_dir) if n not in IMAGE_SETS]
        sets += [s for s in SKLEARN_SETS if s not in sets]
    if args.mnist_only:  # this run's rows merged into those of runs before
        args.out.mkdir(parents=True, exist_ok=True)
        saved = args.out / "mnist.json"
        before = json.loads(saved.read_text()) if saved.exists() else {}

        def save(rows_of: dict) -> None:
            saved.write_text(json.dumps({**before, **rows_of}, indent=1))

        names = (args.mnist or "aode").split(",")
        mnist_rows(args.data_dir, names, args.mnist_threads, save)
        return
    if args.report_only:  # (with the MNIST rows of mnist.json, when there is one)
        path = args.out / f"{args.name}.json"
        saved = json.loads(path.read_text())
        if (args.out / "mnist.json").exists():
            saved["mnist"] = json.loads((args.out / "mnist.json").read_text())
            path.write_text(json.dumps(saved, indent=1))
        text = report(pd.DataFrame(saved["rows"]), saved["kinds"], saved["machine"], saved["mnist"])
        (args.out / f"{args.name}.md").write_text(text)
        print(text)
        return
    chosen = args.models.split(",") if args.models else None
    estimators = None
    if args.threads != 1:
        estimators = {label: with_threads(e, args.threads) for label, e in models().items()}
    jobs = [
        delayed(run_fold)(n, fold, args.data_dir, chosen, estimators, threads=args.threads)
        for n in sets
        for fold in range(5)
    ]
    start = time.perf_counter()
    rows = [row for part in Parallel(n_jobs=args.n_jobs)(jobs) for row in part]
    wall = time.perf_counter() - start
    from bench_fit import machine  # the same machine description as the other benchmarks

    info = machine()
    info["threads"] = args.threads
    info["pinned"] = args.threads == 1
    for row in rows:  # merged files hold rows of several machines: each says its own
        row["cpu"] = info["cpu"]
    earlier_wall, earlier_mnist = 0.0, None
    json_path, md_path = args.out / f"{args.name}.json", args.out / f"{args.name}.md"
    if args.merge and json_path.exists():  # the others' rows, kept
        earlier = json.loads(json_path.read_text())
        ran = {row["model"] for row in rows} - {"tan"}
        kept = [r for r in earlier["rows"] if r["model"] not in ran]
        for row in kept:  # (rows written before rows said their CPU: the file's)
            row.setdefault("cpu", earlier["machine"]["cpu"])
        # TAN is rerun with every model (the time ratios' reference of the same run)
        new_tan = [r for r in rows if r["model"] == "tan"]
        rows = [r for r in kept if r["model"] != "tan"] + [r for r in rows if r["model"] != "tan"]
        rows += [r for r in kept if r["model"] == "tan"] or new_tan
        earlier_wall = float(earlier["machine"].get("wall_s", 0.0))
        earlier_mnist = earlier.get("mnist")
    frame = pd.DataFrame(rows)
    kinds = {name: _kind(name, args.data_dir) for name in sets}
    mnist = (
        mnist_rows(args.data_dir, args.mnist.split(","), args.mnist_threads) if args.mnist else None
    )
    saved = args.out / "mnist.json"
    if mnist is None and saved.exists():  # the rows of an earlier --mnist-only run
        mnist = json.loads(saved.read_text())
    if mnist is None:  # merged: the image rows of the run merged into
        mnist = earlier_mnist
    info["wall_s"] = round(wall + earlier_wall, 1)  # merged runs: their sum
    args.out.mkdir(parents=True, exist_ok=True)
    json_path.write_text(
        json.dumps({"machine": info, "kinds": kinds, "mnist": mnist, "rows": rows}, indent=1)
    )
    text = report(frame, kinds, info, mnist)
    md_path.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
