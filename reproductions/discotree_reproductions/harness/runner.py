"""Run an experiment: every (dataset, model, fold) once, cached so a rerun resumes."""

from __future__ import annotations

import functools
import hashlib
import importlib
import json
import logging
import os
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from discotree.output_files import write_text

from .metrics import accuracy, balanced_error_rate
from .protocols import Fold
from .report import fit_provenance

__all__ = [
    "DatasetSpec",
    "Experiment",
    "code_hash",
    "committed_records",
    "mark_rendered",
    "render_committed",
    "reproduction",
    "run_experiment",
]

logger = logging.getLogger(__name__)


@dataclass
class DatasetSpec:
    """How one dataset enters an experiment.

    Attributes
    ----------
    name : str
        Name in reports and caches.
    load : callable () -> (X, y)
        Loads the data (rows already selected).
    folds : callable (y) -> iterable of Fold
        The protocol.
    protocol : str
        Human-readable protocol, e.g. "CV-5" or "split 300/1024".
    note : str
        Any difference from the paper's data or protocol.
    paper_name : str
        The name the paper uses (default: ``name``).
    """

    name: str
    load: Callable[[], tuple[pd.DataFrame, pd.Series]]
    folds: Callable[[np.ndarray], Iterable[Fold]]
    protocol: str
    note: str = ""
    paper_name: str = ""


@dataclass
class Experiment:
    """A reproduction: datasets x models under protocols, and how to report them."""

    name: str
    description: str
    datasets: list[DatasetSpec]
    models: dict[str, Callable[[], Any]]
    report: Callable[[list[dict], Path, Experiment], None]
    version: str = "1"
    settings: dict[str, Any] = field(default_factory=dict)
    #: Also score each model on its own training rows (``train_accuracy``,
    #: ``train_balanced_error``), for figures of the training error.
    train_metrics: bool = False

    def fingerprint(self) -> str:
        """A short hash of what determines the results: the names, protocols, settings
        and models, and the code that fits them (:func:`code_hash` of discotree and of
        the package that defines the experiment), so that a committed or cached fold
        is reused only by the code that fitted it."""
        text = json.dumps(
            {
                "code": code_hash(self.report),
                "version": self.version,
                "settings": self.settings,
                **({"train_metrics": True} if self.train_metrics else {}),
                "datasets": [(d.name, d.protocol) for d in self.datasets],
                "models": {name: repr(factory()) for name, factory in self.models.items()},
            },
            sort_keys=True,
            default=str,
        )
        return hashlib.sha256(text.encode()).hexdigest()[:12]


@functools.lru_cache(maxsize=8)
def _package_hash(package: str) -> str:
    """sha256 of the package's Python files (relative path and contents, sorted)."""
    module = importlib.import_module(package)
    root = Path(module.__file__ or "").parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def code_hash(defined_by: Any = None) -> str:
    """A short hash of the code that fits and reports an experiment: every Python file
    of the installed discotree package and, when ``defined_by`` (a function or class
    of the experiment) belongs to another top-level package (the reproductions), of
    that package too. Any change of that code changes it, so the fingerprint of every
    experiment changes and ``discotree reproduce`` refits instead of re-rendering.

    Examples
    --------
    >>> len(code_hash())
    12
    """
    packages = ["discotree"]
    module = getattr(defined_by, "__module__", None) or ""
    top = module.split(".")[0]
    if top and top not in packages and top != "__main__":
        packages.append(top)
    digest = hashlib.sha256("".join(_package_hash(p) for p in packages).encode())
    return digest.hexdigest()[:12]


def _evaluate(
    X: pd.DataFrame,
    y: np.ndarray,
    factory: Callable[[], Any],
    fold: Fold,
    train_metrics: bool = False,
) -> dict:
    model = factory()
    start = time.perf_counter()
    model.fit(X.iloc[fold.train], y[fold.train])
    fit_seconds = time.perf_counter() - start
    start = time.perf_counter()
    predicted = model.predict(X.iloc[fold.test])
    predict_seconds = time.perf_counter() - start
    truth = y[fold.test]
    trained = {}
    if train_metrics:
        fitted = model.predict(X.iloc[fold.train])
        trained = {
            "train_accuracy": accuracy(y[fold.train], fitted),
            "train_balanced_error": balanced_error_rate(y[fold.train], fitted),
        }
    return {
        "fold": fold.key,
        "train_size": fold.train_size if fold.train_size is not None else len(fold.train),
        "n_train": len(fold.train),
        "n_test": len(fold.test),
        "accuracy": accuracy(truth, predicted),
        "balanced_error": balanced_error_rate(truth, predicted),
        "fit_seconds": fit_seconds,
        "predict_seconds": predict_seconds,
        # structure-learning time, for the estimators that measure it
        "structure_seconds": getattr(model, "structure_seconds_", None),
        "score_evaluations": getattr(model, "n_score_evaluations_", None),
        "rows_scored": getattr(model, "n_rows_scored_", None),
        # structures regularised by cross-validation: the steps kept, of the search's
        "structure_steps": getattr(model, "n_structure_steps_", None),
        "search_steps": getattr(model, "n_search_steps_", None),
        **trained,
    }


#: The report file that lists every fold (see :func:`committed_records`).
_REPORT = "results.json"


def _write_atomic(path: Path, record: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text(path, json.dumps(record))


def committed_records(out_dir: Path, fingerprint: str) -> dict[tuple[str, str, str], dict]:
    """The fold records of ``out_dir/results.json``, by (dataset, model, fold), when
    that report was written under ``fingerprint``; empty otherwise.

    A report lists every fold it summarises (``"folds"``) and the runner stamps it with
    the fingerprint of the experiment that produced it (``"fingerprint"``), so a clone
    of the repository without the (ignored) cache resumes from the committed report:
    the folds already reported are not fitted again, as long as nothing that
    determines them (names, protocols, settings, the models' parameters) changed.
    Records marked with a ``source`` (read by a report from another reproduction) are
    not this experiment's and are left out.
    """
    path = out_dir / _REPORT
    try:
        report = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(report, dict) or report.get("fingerprint") != fingerprint:
        return {}
    folds = report.get("folds")
    if not isinstance(folds, list):
        return {}
    return {
        (r["dataset"], r["model"], r["fold"]): r
        for r in folds
        if isinstance(r, dict) and {"dataset", "model", "fold"} <= r.keys() and "source" not in r
    }


def render_committed(experiment: Experiment, out_dir: str | os.PathLike) -> list[dict]:
    """Write the report of ``experiment`` again from the folds of its committed
    ``out_dir/results.json``, fitting nothing (``discotree reproduce --render-only``).

    For a new text of the report (a statement, a comparison with the paper) over folds
    that took hours: the folds are reported as they are, whatever code fitted them.
    Each fold keeps the commit that fitted it (``fit_commit``, ``"not recorded"`` for
    older records) and the new report's provenance says ``rendered_only: true`` and
    holds the previous report's provenance (``fitted_report``), so it cannot pass for a
    refit. The fingerprint of the previous report is kept: a later run of the same code
    reuses exactly the folds it would have reused before.

    Raises
    ------
    FileNotFoundError
        If ``out_dir`` has no ``results.json``.
    ValueError
        If that file lists no folds of this experiment.
    """
    out_dir = Path(out_dir)
    path = out_dir / _REPORT
    if not path.is_file():
        raise FileNotFoundError(f"{path} does not exist: nothing to render; run the experiment")
    previous = json.loads(path.read_text())
    folds = previous.get("folds") if isinstance(previous, dict) else None
    names = {spec.name for spec in experiment.datasets}
    records = [
        r
        for r in folds or []
        if isinstance(r, dict)
        and "source" not in r
        and r.get("dataset") in names
        and r.get("model") in experiment.models
    ]
    if not records:
        raise ValueError(f"{path} lists no folds of {experiment.name}: nothing to render")
    experiment.report(records, out_dir, experiment)
    mark_rendered(path, previous)
    return records


def mark_rendered(path: Path, previous: dict) -> None:
    """Mark the report ``path`` (a results.json just written from the folds of
    ``previous``, the report it replaces) as rendered without fitting: its provenance
    says ``rendered_only`` and keeps ``previous``'s as ``fitted_report``, and
    ``previous``'s fingerprint stays."""
    report = json.loads(path.read_text())
    if not isinstance(report, dict):
        return
    report.setdefault("provenance", {})["rendered_only"] = True
    report["provenance"]["fitted_report"] = previous.get("provenance")
    if previous.get("fingerprint") is not None:
        report = {"fingerprint": previous["fingerprint"], **report}
    write_text(path, json.dumps(report, indent=1))


def _stamp_fingerprint(out_dir: Path, fingerprint: str) -> None:
    """Record in the report's ``results.json`` (if it lists its folds) the fingerprint
    of the experiment that wrote it, for :func:`committed_records`."""
    path = out_dir / _REPORT
    try:
        report = json.loads(path.read_text())
    except (OSError, ValueError):
        return
    if isinstance(report, dict) and isinstance(report.get("folds"), list):
        write_text(path, json.dumps({"fingerprint": fingerprint, **report}, indent=1))


def _cached(path: Path, key: tuple[str, str, str], committed: dict) -> dict | None:
    """The record of one fold: from the cache, else from the committed report (then
    written to the cache), else None."""
    if path.is_file():
        return json.loads(path.read_text())
    record = committed.get(key)
    if record is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        _write_atomic(path, record)
    return record


def _task(X, y, factory, fold, cache_path: Path, meta: dict, train_metrics: bool) -> dict:
    record = {**meta, **_evaluate(X, y, factory, fold, train_metrics)}
    _write_atomic(cache_path, record)
    return record


def run_experiment(
    experiment: Experiment,
    out_dir: str | os.PathLike,
    *,
    n_jobs: int = 1,
    progress: bool = True,
    models: list[str] | None = None,
    datasets: list[str] | None = None,
) -> list[dict]:
    """Evaluate every model on every fold of every dataset, then write the report.

    Each (dataset, model, fold) result is stored under
    ``out_dir/cache/<fingerprint>/<dataset>/<model>/<fold>.json`` as soon as it is
    computed; results already there are read instead of recomputed, so an
    interrupted run resumes where it stopped. Where the cache is missing (a fresh
    clone), the folds of the committed ``out_dir/results.json`` are used if it was
    written under the same fingerprint (:func:`committed_records`). Folds are
    deterministic given the experiment's seeds. Each fold fitted here records the
    commit that fitted it (:func:`~discotree_reproductions.harness.report.fit_provenance`).

    Parameters
    ----------
    experiment : Experiment
    out_dir : path
        ``results/<experiment>``: receives the cache and the report.
    n_jobs : int, default=1
        joblib workers over the folds of each dataset.
    progress : bool, default=True
        Show a progress bar on stderr.
    models : list of str, optional
        Compute only these models (default: all); the folds of the others are still
        read from the cache, if an earlier run computed them, and reported.
    datasets : list of str, optional
        Compute only on these datasets (default: all); on the others, the cached folds
        are reported and nothing is fitted (their data is still loaded to make the
        folds).

    Returns
    -------
    list of dict
        One record per (dataset, model, fold).
    """
    out_dir = Path(out_dir)
    chosen = {m: f for m, f in experiment.models.items() if models is None or m in models}
    cached_only = [m for m in experiment.models if m not in chosen]
    fingerprint = experiment.fingerprint()
    cache = out_dir / "cache" / fingerprint
    committed = committed_records(out_dir, fingerprint)
    fitted_by = fit_provenance()  # stored in every fold this run fits
    records: list[dict] = []
    console = Console(stderr=True, file=sys.stderr)
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console, disable=not progress, transient=True) as bar:
        task_id = bar.add_task(experiment.name, total=None)
        for spec in experiment.datasets:
            bar.update(task_id, description=f"{experiment.name}: {spec.name}")
            X, y_series = spec.load()
            X = X.reset_index(drop=True)
            y = np.asarray(y_series)
            folds = list(spec.folds(y))
            todo = []
            computed = datasets is None or spec.name in datasets
            for model_name, factory in chosen.items():
                for fold in folds:
                    path = cache / spec.name / model_name / f"{fold.key}.json"
                    meta = {"dataset": spec.name, "model": model_name, **fitted_by}
                    record = _cached(path, (spec.name, model_name, fold.key), committed)
                    if record is not None:
                        records.append(record)
                    elif computed:
                        todo.append((factory, fold, path, meta))
            for model_name in cached_only:  # reported if an earlier run computed them
                for fold in folds:
                    path = cache / spec.name / model_name / f"{fold.key}.json"
                    record = _cached(path, (spec.name, model_name, fold.key), committed)
                    if record is not None:
                        records.append(record)
            planned = len(folds) * len(chosen) if computed else 0
            total = (bar.tasks[0].total or 0) + planned
            bar.update(task_id, total=total, advance=max(planned - len(todo), 0))
            jobs = (
                delayed(_task)(X, y, f, fold, path, meta, experiment.train_metrics)
                for f, fold, path, meta in todo
            )
            for record in Parallel(n_jobs=n_jobs, return_as="generator_unordered")(jobs):
                records.append(record)
                bar.advance(task_id)
    logger.info("%s: %d results", experiment.name, len(records))
    out_dir.mkdir(parents=True, exist_ok=True)
    experiment.report(records, out_dir, experiment)
    _stamp_fingerprint(out_dir, fingerprint)
    return records


def reproduction(
    run: Callable[..., Any], doc: str, render: Callable[[Path], Any] | None = None
) -> Callable[..., Callable[..., Any]]:
    """The registry's factory for a reproduction that is a plain function
    ``run(out_dir, *, data_dir, n_jobs, progress)``: ``factory(data_dir)`` returns
    ``run_in(out_dir, n_jobs=1, progress=False)``; ``doc`` is what ``--list`` shows.
    ``render(out_dir)``, when given, rewrites the report from its committed
    ``results.json`` (``discotree reproduce --render-only``; it should call
    :func:`mark_rendered`)."""

    def factory(data_dir=None):
        def run_in(out_dir, n_jobs: int = 1, progress: bool = False):
            return run(out_dir, data_dir=data_dir, n_jobs=n_jobs, progress=progress)

        run_in.render = render
        return run_in

    factory.__doc__ = doc
    return factory
