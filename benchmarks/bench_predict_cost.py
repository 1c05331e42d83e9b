"""The predict time of ``KDBEnsembleClassifier()`` against ``RandomForestClassifier(300)``
(issue 48 item 3): both with one thread (``n_jobs=1``) in one process pinned to one
core (so that neither discotree's kernel threads nor the forest use a second), on the
first of ``StratifiedKFold(5, shuffle=True, random_state=0)``'s folds of each set,
timed side by side so that every figure is a ratio of two times taken under the same
load.

For each set: seconds of the first ``predict_proba`` of each fitted model (the
ensemble's includes packing its members' tables, cached for later calls) and of a
second one, and their ratios (ensemble / forest). ``--label`` names the run (e.g. the
code before and after a change: run it with ``PYTHONPATH`` on the older sources for
"before"); the runs of every label are kept in the results and shown side by side.

Run:  python benchmarks/bench_predict_cost.py [--label after] [--sets letter,optdigits]
Writes predict_cost.json and predict_cost.md (with the machine described) to --out.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd
from bench_fit import machine, write_results
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import StratifiedKFold

import discotree
from discotree import KDBEnsembleClassifier
from discotree_reproductions.harness.data_folder import load_dataset

SETS = ("letter", "optdigits", "soybean", "shuttle", "satimage")


def first_fold(name: str) -> tuple[pd.DataFrame, np.ndarray, np.ndarray, np.ndarray]:
    """The set (non-numeric columns as pandas categories) and its first fold's rows."""
    X, y = load_dataset(name)
    X = pd.DataFrame(X).copy()
    for column in X.columns:
        if not pd.api.types.is_numeric_dtype(X[column]):
            X[column] = X[column].astype("category")
    y = np.asarray(y)
    train, test = next(StratifiedKFold(5, shuffle=True, random_state=0).split(X, y))
    return X, y, train, test


def timed(call) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def measure(name: str) -> dict:
    """Fit both models on the first fold and time two predictions of each."""
    X, y, train, test = first_fold(name)
    ensemble = KDBEnsembleClassifier(n_jobs=1).fit(X.iloc[train], y[train])
    # the forest reads the categories' codes (-1: missing) and NaN where numbers are missing
    numeric = X.apply(lambda c: c.cat.codes if isinstance(c.dtype, pd.CategoricalDtype) else c)
    forest = RandomForestClassifier(300, n_jobs=1, random_state=0)
    forest.fit(numeric.iloc[train], y[train])
    X_test, X_forest = X.iloc[test], numeric.iloc[test]
    times = {}
    for call in ("first", "second"):
        times[f"ensemble_{call}_s"] = timed(lambda: ensemble.predict_proba(X_test))
        times[f"forest_{call}_s"] = timed(lambda: forest.predict_proba(X_forest))
    return {
        "set": name,
        "train_rows": len(train),
        "test_rows": len(test),
        "columns": X.shape[1],
        "classes": len(np.unique(y)),
        **{k: round(v, 4) for k, v in times.items()},
        "ratio_first": round(times["ensemble_first_s"] / times["forest_first_s"], 2),
        "ratio_second": round(times["ensemble_second_s"] / times["forest_second_s"], 2),
        "load_before": round(os.getloadavg()[0], 2),
    }


def markdown(results: dict) -> str:
    lines = [
        "# Predict cost: KDBEnsembleClassifier against RandomForestClassifier(300)",
        "",
        "One thread each (`n_jobs=1`), the process pinned to one core; the first fold of",
        "`StratifiedKFold(5, shuffle=True, random_state=0)`. Seconds of `predict_proba`",
        "(first call; second call) and the ratio ensemble / forest. Written by",
        "`benchmarks/bench_predict_cost.py`.",
        "",
        "| run | set | test rows | ensemble s (1st; 2nd) | forest s (1st; 2nd) |"
        " ratio 1st | ratio 2nd | load |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for label, run in results["runs"].items():
        for row in run["sets"]:
            lines.append(
                f"| {label} | {row['set']} | {row['test_rows']} | "
                f"{row['ensemble_first_s']}; {row['ensemble_second_s']} | "
                f"{row['forest_first_s']}; {row['forest_second_s']} | "
                f"{row['ratio_first']} | {row['ratio_second']} | {row['load_before']} |"
            )
    lines += ["", "Runs:", ""]
    for label, run in results["runs"].items():
        lines.append(f"- {label}: discotree {run['discotree']}, {run['note']}")
    if results.get("notes"):
        lines += ["", "Notes:", "", *[f"- {note}" for note in results["notes"]]]
    lines += ["", "Machine:", "", "```", json.dumps(results["machine"], indent=2), "```", ""]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--label", default="after")
    parser.add_argument("--note", default="")
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    parser.add_argument("--core", type=int, default=None, help="the core (default: the first)")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0)) if args.core is None else args.core})
    path = args.out / "predict_cost.json"
    results = json.loads(path.read_text()) if path.exists() else {"runs": {}}
    run = {"discotree": discotree.__version__, "note": args.note, "sets": []}
    for name in args.sets.split(","):
        run["sets"].append(measure(name))
        print(run["sets"][-1], flush=True)
    results["runs"][args.label] = run
    results["machine"] = machine()
    write_results(args.out, "predict_cost", results, markdown(results))


if __name__ == "__main__":
    main()
