"""The cost of the recommended model (issue 48): ``KDBEnsembleClassifier()`` against
``RandomForestClassifier(300)`` with the same number of threads, measured side by side in
one process, so that every figure is a ratio of two times taken under the same load.

Sets:

- ``wide``: generated, 3,000 training and 1,000 test rows x 200 binary columns, 3
  classes, whose class depends on a sum of ten columns and on three pairs of columns
  through an exclusive or and an and (:func:`wide_binary`): wide categorical data
  with interactions, where the pair member reads 19,900 pairs;
- ``mnist`` (``--mnist``, long): binarised MNIST (pixels > 127), official 60,000 /
  10,000 split, read from the data folder.

For each set and for 1 and 2 threads (``n_jobs`` of both models): fit and
``predict_proba`` seconds (wall) and their ratio to the forest's; the pickled size of
both models; on ``wide`` also the Shapley values of the ensemble by model structure
(``kind="available-case"``, :mod:`discotree.models.score_terms`: sampled, 512 random
orders each with its reverse) of one row and of ten rows (seconds per row, the
largest and the median standard error), a profile of the ensemble's fit (the
functions of most cumulative time) and the first fit of a fresh process on iris
(numba's cache warm, and cold: an empty ``NUMBA_CACHE_DIR``) against a second fit in
that process.

Run:  python benchmarks/bench_ensemble_cost.py [--mnist] [--threads 1,2] [--no-shapley]
      python benchmarks/bench_ensemble_cost.py --only shapley   (one fit, the Shapley
      figures replaced in the results already written)
      python benchmarks/bench_ensemble_cost.py --only first-fit   (the same for the
      first fit of a fresh process, cold then warm)
      python benchmarks/bench_ensemble_cost.py --only mnist-profile   (the same for a
      profile of the fit on binarised MNIST, one thread: minutes)
Writes ensemble_cost.json and ensemble_cost.md (with the machine described) to --out.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pickle
import pstats
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from bench_fit import machine, write_results
from sklearn.ensemble import RandomForestClassifier

from discotree import KDBEnsembleClassifier
from discotree.shapley import shapley_values

#: Wall and CPU seconds of the first and the second fit of a fresh process on iris,
#: printed by it.
FIRST_FIT_SCRIPT = """
import time
from sklearn.datasets import load_iris
from discotree import KDBEnsembleClassifier
X, y = load_iris(return_X_y=True)
times = []
for _ in range(2):
    start, start_cpu = time.perf_counter(), time.process_time()
    KDBEnsembleClassifier().fit(X, y)
    times += [time.perf_counter() - start, time.process_time() - start_cpu]
print(*times)
"""


def wide_binary(
    n_rows: int = 4000, n_columns: int = 200, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Binary columns and a 3-class label: the sum of columns 0-9, plus 2 (x10 xor
    x11), plus 2 (x12 and x13), minus (x14 xor x15), plus Gaussian noise, cut at its
    terciles.

    Examples
    --------
    >>> X, y = wide_binary(30, 20)
    >>> X.shape, sorted(set(y.tolist()))
    ((30, 20), [0, 1, 2])
    """
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n_rows, n_columns))
    score = (
        X[:, :10].sum(axis=1)
        + 2 * (X[:, 10] ^ X[:, 11])
        + 2 * (X[:, 12] & X[:, 13])
        - (X[:, 14] ^ X[:, 15])
        + rng.normal(0.0, 1.0, n_rows)
    )
    y = np.digitize(score, np.quantile(score, [1 / 3, 2 / 3]))
    return X, y


def _timed(run) -> tuple[object, float]:
    start = time.perf_counter()
    out = run()
    return out, time.perf_counter() - start


def side_by_side(X_train, y_train, X_test, y_test, threads: int) -> dict:
    """Fit and predict times, accuracy and pickled sizes of both models."""
    out = {"threads": threads}
    models = {
        "ensemble": KDBEnsembleClassifier(n_jobs=threads),
        "forest": RandomForestClassifier(300, random_state=0, n_jobs=threads),
    }
    allowed = os.sched_getaffinity(0)
    # the process on ``threads`` cores: discotree's kernels split their work over the
    # cores it may use, whatever n_jobs says
    os.sched_setaffinity(0, sorted(allowed)[:threads])
    try:
        for label, model in models.items():
            _, fit_s = _timed(lambda model=model: model.fit(X_train, y_train))
            proba, predict_s = _timed(lambda model=model: model.predict_proba(X_test))
            out[label] = {
                "fit_s": round(fit_s, 3),
                "predict_s": round(predict_s, 4),
                "accuracy": float(np.mean(model.classes_[proba.argmax(axis=1)] == y_test)),
                "pickle_bytes": len(pickle.dumps(model)),
            }
            print(f"{threads} thread(s) {label}: {out[label]}", flush=True)
    finally:
        os.sched_setaffinity(0, allowed)
    for key in ("fit_s", "predict_s", "pickle_bytes"):
        out[f"{key} ratio"] = round(out["ensemble"][key] / out["forest"][key], 2)
    out["fitted"] = models["ensemble"]
    return out


def profile_fit(X, y, top: int = 15) -> list[tuple[str, float, int]]:
    """The functions of most cumulative time in the ensemble's fit (seconds, calls)."""
    profiler = cProfile.Profile()
    profiler.enable()
    KDBEnsembleClassifier().fit(X, y)
    profiler.disable()
    stream = io.StringIO()
    stats = pstats.Stats(profiler, stream=stream)
    rows = []
    for (path, line, name), (_, calls, _, cumulative, _) in stats.stats.items():
        if "discotree" in path or "scipy/optimize" in path:
            short = path.split("site-packages/")[-1].split("src/")[-1]
            rows.append((f"{short}:{line}({name})", round(cumulative, 2), int(calls)))
    rows.sort(key=lambda r: -r[1])
    return rows[:top]


def shapley_cost(estimator, X_rows) -> dict:
    """Shapley values by model structure (``kind="available-case"``) of one row, then
    of all of ``X_rows`` in one call (numba's kernels compiled before): seconds per
    row, largest and median standard error, and the load average around the timing
    (the exact ``kind="conditional"`` takes minutes a row here: not timed)."""
    shapley_values(estimator, X_rows[:1], kind="available-case", random_state=1)  # (compile)
    out: dict = {"kind": "available-case", "load_average_before": os.getloadavg()}
    for label, rows in (("one_row", X_rows[:1]), ("rows", X_rows)):
        explanation, seconds = _timed(
            lambda rows=rows: shapley_values(estimator, rows, kind="available-case", random_state=0)
        )
        errors = explanation.standard_errors
        out[label] = {
            "rows": len(rows),
            "seconds_per_row": round(seconds / len(rows), 3),
            "exact": bool(explanation.exact),
            "largest_standard_error": None if errors is None else float(np.max(errors)),
            "median_standard_error": None if errors is None else float(np.median(errors)),
        }
        print(f"Shapley values, {label}: {out[label]}", flush=True)
    out["load_average_after"] = os.getloadavg()
    return out


def first_fit(cache: str) -> dict:
    """The first and second fit on iris of a fresh process whose numba cache is the
    folder ``cache`` (cold when empty): wall and CPU seconds (numba compiles on one
    thread, so CPU time is the fairer figure on a shared machine), with the load
    average before."""
    load = os.getloadavg()[0]
    done = subprocess.run(
        [sys.executable, "-c", FIRST_FIT_SCRIPT],
        capture_output=True,
        text=True,
        env=dict(os.environ, NUMBA_CACHE_DIR=cache),
        check=True,
    )
    first, first_cpu, second, second_cpu = (float(v) for v in done.stdout.split())
    return {
        "first_s": round(first, 2),
        "second_s": round(second, 2),
        "first_cpu_s": round(first_cpu, 2),
        "second_cpu_s": round(second_cpu, 2),
        "load_average_before": round(load, 2),
    }


def first_fits() -> dict:
    """:func:`first_fit` with an empty numba cache (cold), then again with the cache
    that run wrote (warm: every kernel of the current code cached)."""
    with tempfile.TemporaryDirectory() as cache:
        cold = first_fit(cache)
        return {"warm": first_fit(cache), "cold": cold}


def only_first_fit(out: Path) -> None:
    """The first-fit part alone, its figures written into the results already in
    ``out`` (the other parts kept as they were measured)."""
    path = out / "ensemble_cost.json"
    results = json.loads(path.read_text()) if path.exists() else {"sets": {}}
    results["first_fit"] = first_fits()
    results["first_fit_machine"] = machine()
    results.setdefault("machine", results["first_fit_machine"])
    write_results(out, "ensemble_cost", results, markdown(results))


def mnist_split(data_dir) -> tuple[np.ndarray, ...]:
    from discotree_reproductions.harness.data_folder import load_dataset

    X, y = load_dataset("mnist", data_dir)
    bits = (X.to_numpy() > 127).astype(np.int8)
    y = np.asarray(y)
    return bits[:60000], y[:60000], bits[60000:], y[60000:]


def markdown(results: dict) -> str:
    lines = [
        "# The ensemble's cost against RandomForest(300) (issue 48)",
        "",
        "Machine: " + str(results["machine"]),
        "",
        "Wall seconds, both models with the same threads, side by side in one process "
        "(ratios under the same load); pickled sizes in MB.",
        "",
        "| set | threads | ensemble fit | forest fit | fit ratio | ensemble predict "
        "| forest predict | predict ratio | ensemble MB | forest MB | size ratio "
        "| ensemble acc | forest acc |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, runs in results["sets"].items():
        for run in runs:
            e, f = run["ensemble"], run["forest"]
            lines.append(
                f"| {name} | {run['threads']} | {e['fit_s']:.2f} | {f['fit_s']:.2f} "
                f"| {run['fit_s ratio']:.2f} | {e['predict_s']:.3f} | {f['predict_s']:.3f} "
                f"| {run['predict_s ratio']:.2f} | {e['pickle_bytes'] / 1e6:.2f} "
                f"| {f['pickle_bytes'] / 1e6:.2f} | {run['pickle_bytes ratio']:.2f} "
                f"| {100 * e['accuracy']:.2f} | {100 * f['accuracy']:.2f} |"
            )
    if "shapley" in results:
        s = results["shapley"]
        lines += [
            "",
            "Shapley values of the ensemble on `wide` by model structure "
            f"(kind={s['kind']!r}, sampled: 512 orders each with its reverse; load "
            f"average {s['load_average_before'][0]:.2f} before, "
            f"{s['load_average_after'][0]:.2f} after, on the machine above; "
            "kind='conditional', which sums missing parents out exactly by variable "
            "elimination, is not timed: minutes a row):",
            "",
        ]
        for label in ("one_row", "rows"):
            r = s[label]
            lines.append(
                f"- {r['rows']} row(s) in one call: {r['seconds_per_row']} s per row, "
                f"standard error largest {r['largest_standard_error']:.4f}, median "
                f"{r['median_standard_error']:.5f} (nats of log-odds)"
            )
    if "first_fit" in results:
        where = results.get("first_fit_machine", results["machine"])
        lines += [
            "",
            "First fit of a fresh process on iris (seconds; second fit beside; on "
            f"{where['cpu']}, {where['cores']} cores):",
            "",
        ]
        for cache, row in results["first_fit"].items():
            line = f"- numba cache {cache}: {row['first_s']} (second {row['second_s']})"
            if "first_cpu_s" in row:
                line += (
                    f"; CPU {row['first_cpu_s']} (second {row['second_cpu_s']}), load "
                    f"average {row['load_average_before']} before"
                )
            lines.append(line)
    if "profile" in results:
        lines += [
            "",
            "Profile of the ensemble's fit on `wide` (cumulative seconds, one thread):",
            "",
        ]
        lines += [f"- {row[0]}: {row[1]}" for row in results["profile"]]
    if "profile_mnist" in results:
        run = results["profile_mnist"]
        lines += [
            "",
            f"Profile of the ensemble's fit on binarised MNIST (60,000 x 784, one thread, "
            f"under the profiler: {run['fit_s']:.0f} s; on {run['machine']['cpu']}, load "
            f"average {run['load_average_before']:.2f} before; cumulative seconds and calls):",
            "",
        ]
        lines += [f"- {name}: {seconds} s, {calls} calls" for name, seconds, calls in run["rows"]]
    return "\n".join(lines) + "\n"


def only_mnist_profile(out: Path, data_dir) -> None:
    """The profile of the ensemble's fit on binarised MNIST (one thread), written into
    the results already in ``out`` (the other parts kept as they were measured)."""
    path = out / "ensemble_cost.json"
    results = json.loads(path.read_text()) if path.exists() else {"sets": {}}
    X_train, y_train, _, _ = mnist_split(data_dir)
    load = os.getloadavg()[0]
    start = time.perf_counter()
    rows = profile_fit(X_train, y_train, top=30)
    results["profile_mnist"] = {
        "rows": rows,
        "fit_s": time.perf_counter() - start,
        "load_average_before": load,
        "machine": machine(),
    }
    results.setdefault("machine", results["profile_mnist"]["machine"])
    write_results(out, "ensemble_cost", results, markdown(results))


def only_shapley(out: Path, X_train, y_train, X_test, y_test) -> None:
    """The Shapley part alone: one fit (one thread), the figures written into the
    results already in ``out`` (the other parts kept as they were measured)."""
    del y_test
    path = out / "ensemble_cost.json"
    results = json.loads(path.read_text()) if path.exists() else {"sets": {}}
    fitted = KDBEnsembleClassifier(n_jobs=1).fit(X_train, y_train)
    results["shapley"] = shapley_cost(fitted, X_test[:10])
    results["shapley"]["machine"] = machine()
    results.setdefault("machine", results["shapley"]["machine"])
    write_results(out, "ensemble_cost", results, markdown(results))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--mnist", action="store_true")
    parser.add_argument("--no-extras", action="store_true", help="no Shapley, profile, first fit")
    parser.add_argument(
        "--no-shapley", action="store_true", help="no Shapley values (minutes a row today)"
    )
    parser.add_argument(
        "--only",
        choices=["shapley", "first-fit", "mnist-profile"],
        default=None,
        help="one part only, its figures replaced in the results already in --out",
    )
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args()
    threads = [int(t) for t in args.threads.split(",")]
    if args.only == "first-fit":
        only_first_fit(args.out)
        return
    if args.only == "mnist-profile":
        only_mnist_profile(args.out, args.data_dir)
        return
    X, y = wide_binary()
    splits = {"wide": (X[:3000], y[:3000], X[3000:], y[3000:])}
    if args.only == "shapley":
        only_shapley(args.out, *splits["wide"])
        return
    if args.mnist:
        splits["mnist"] = mnist_split(args.data_dir)
    results: dict = {"machine": machine(), "sets": {}}
    start = time.perf_counter()
    fitted = None
    for name, (X_train, y_train, X_test, y_test) in splits.items():
        runs = [side_by_side(X_train, y_train, X_test, y_test, t) for t in threads]
        if name == "wide":
            fitted = runs[0]["fitted"]
        for run in runs:
            run.pop("fitted")
        results["sets"][name] = runs
    if not args.no_extras:
        if not args.no_shapley:
            results["shapley"] = shapley_cost(fitted, splits["wide"][2][:10])
        results["first_fit"] = first_fits()
        results["profile"] = profile_fit(*splits["wide"][:2])
    results["machine"]["wall_s"] = round(time.perf_counter() - start, 1)
    results["machine"]["load_average_at_end"] = os.getloadavg()
    # (MNIST's profile, a run of its own with --only mnist-profile, kept as measured:
    # it states its own machine and load)
    earlier = args.out / "ensemble_cost.json"
    if earlier.exists() and "profile_mnist" in (kept := json.loads(earlier.read_text())):
        results["profile_mnist"] = kept["profile_mnist"]
    write_results(args.out, "ensemble_cost", results, markdown(results))


if __name__ == "__main__":
    main()
