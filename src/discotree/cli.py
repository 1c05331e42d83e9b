"""The ``discotree`` command line: compare, fit and predict (and the commands of
installed distributions: the reproductions' ``reproduce`` and ``bench``).

Parses arguments, loads data, picks estimators from :mod:`discotree.registry` and
writes results; no algorithm lives here. Results go to stdout, progress and errors to
stderr. Exit codes: 0 success, 1 data or runtime error (the whole message; a traceback with
``-vv``), 2 usage error, 130 interrupted.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import sys
import traceback
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from . import __version__

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    import pandas as pd

# NumPy, pandas, rich, scikit-learn and the estimators are imported by the commands
# that use them, not here: "discotree --help" and usage errors answer at once
# (benchmarks/bench_cli.py).

#: The recommended model (the most accurate of the library on
#: ``benchmarks/results/accuracy.md``): ``fit``'s default and the first row of ``compare``.
RECOMMENDED_MODEL = "eskdb"
#: What ``compare`` runs by default, in about a minute on 2 cores: the recommended model,
#: three cheap families, then the random-forest and gradient-boosting baselines.
COMPARE_DEFAULT = (RECOMMENDED_MODEL, "tan-cmi-auto", "aode", "nb-auto", "rf", "hgb")
#: ``compare --all``: one default model of every family, then the baselines
#: (scikit-learn models that take any columns).
COMPARE_ALL = (
    "nb-auto",
    "chow-liu",
    "tan-cmi-auto",
    "dt-auto",
    "boosted",
    "forest-density",
    "ear-tree",
    "aode",
    "skdb",
    "skdb-hier",
    "eskdb",
    "rf",
    "hgb",
    "logreg",
    "svm",
)
#: ``compare --quick``: the default's discotree models and logistic regression, the
#: quickest baseline (no forest, no boosting).
COMPARE_QUICK = (RECOMMENDED_MODEL, "tan-cmi-auto", "aode", "nb-auto", "logreg")
#: The built-in datasets of ``compare``'s default and ``--quick``; ``--all`` adds digits
#: (1797 rows, 64 features, 10 classes), where the ensemble's fits take minutes.
COMPARE_DATASETS = ("iris", "wine", "breast_cancer")
#: ``compare --stream``'s default: memory independent of the rows (alpha = 1).
STREAM_DEFAULT = ("nb", "chow-liu", "tan-cmi", "dt")


class UsageError(Exception):
    """A command-line usage mistake (exit code 2)."""


def split_names(value: str, known, what: str, listed_by: str | None = None) -> list[str]:
    """The comma-separated names of ``value``, each one of ``known``; an unknown one is
    a usage error that suggests the closest known names (and the command that lists
    them all, or the names themselves when they are few)."""
    import difflib

    names = [v.strip() for v in value.split(",") if v.strip()]
    if not names:
        raise UsageError(f"no {what} given in {value!r}")
    for name in names:
        if name not in known:
            close = difflib.get_close_matches(name, list(known), n=3, cutoff=0.6)
            hint = f"; did you mean {' or '.join(close)}?" if close else ""
            where = (
                f" ('{listed_by}' lists them)" if listed_by else f"; choose from {', '.join(known)}"
            )
            raise UsageError(f"unknown {what} {name!r}{hint}{where}")
    return names


def _classifiers():
    from .registry import CLASSIFIERS

    return CLASSIFIERS


def _model_names(value: str) -> list[str]:
    return split_names(value, _classifiers(), "model", listed_by="discotree models")


def _compare(args: argparse.Namespace) -> None:
    if args.stream:
        _compare_streaming(args)
        return
    import numpy as np
    from rich.console import Console
    from rich.table import Table

    from .datasets import BUILTIN_DATASETS, load_dataset
    from .evaluation.compare import compare_models, ranking

    chosen_sets = [
        f"--{name}"
        for name in ("models", "quick", "all")
        if getattr(args, name) not in (None, False)
    ]
    if len(chosen_sets) > 1:
        raise UsageError(
            f"give only one of --models, --quick or --all (got {' and '.join(chosen_sets)})"
        )
    default = COMPARE_ALL if args.all else COMPARE_QUICK if args.quick else COMPARE_DEFAULT
    model_names = _model_names(args.models) if args.models is not None else list(default)
    if args.n_jobs == 0 or args.n_jobs < -1:
        raise UsageError(f"--n-jobs must be -1 (one per CPU) or at least 1, got {args.n_jobs}")
    if args.csv is not None or args.data is not None:
        if args.dataset is not None:
            raise UsageError("give --dataset or --data/--csv, not both")
        path = _data_path(args)
        if args.target is None:
            raise UsageError("--data needs --target COLUMN")
        loaders = {path.name: partial(_read_whole, path, args.target)}
    else:
        if args.target is not None:
            raise UsageError("--target is only meaningful with --data")
        every = BUILTIN_DATASETS if args.all else COMPARE_DATASETS
        chosen = args.dataset if args.dataset is not None else ",".join(every)
        names = [v.strip() for v in chosen.split(",") if v.strip()]
        if not names:
            raise UsageError(f"no dataset given in --dataset {chosen!r}")
        loaders = {name: partial(load_dataset, name) for name in names}
    cpus = os.cpu_count() or 1  # more processes than CPUs only queue (and skew the times)
    n_jobs = cpus if args.n_jobs == -1 else min(args.n_jobs, cpus)
    progress, task = _progress(
        args,
        len(loaders) * len(model_names) * args.folds,
        "cross-validating",
        "folds",
        terminal_only=True,
    )
    with progress:
        results = compare_models(
            loaders,
            model_names,
            n_folds=args.folds,
            seed=args.random_state,
            n_jobs=n_jobs,
            on_result=_FoldReport(progress, task, args.folds, lines=_progress_lines(args)),
        )
    console = Console(width=110, file=sys.stdout)
    table = Table(
        title=f"{args.folds}-fold stratified CV (seed {args.random_state}): mean ± sd over "
        f"folds; fit time after a warm-up fit, {n_jobs} fit(s) at once"
    )
    for column in ("dataset", "model", "accuracy", "log-loss", "fit time (s)"):
        table.add_column(column, justify="left" if column in ("dataset", "model") else "right")
    notes = []
    for s in results:
        if s.refused is not None:
            notes.append(f"{s.model} on {s.dataset}: {s.refused}")
            table.add_row(s.dataset, s.model, "refused", "", "")
            continue
        loss = "—" if np.isnan(s.log_loss).any() else _mean_sd(s.log_loss)
        table.add_row(
            s.dataset, s.model, _mean_sd(s.accuracy), loss, f"{np.mean(s.fit_seconds):.3f}"
        )
    console.print(table)
    summary = ranking(results)
    overall = Table(title="over the datasets (rank 1 = most accurate on a dataset)")
    for column in summary.columns:
        overall.add_column(column, justify="left" if column == "model" else "right")
    for r in summary.itertuples(index=False):
        loss = "—" if np.isnan(r[3]) else f"{r[3]:.4f}"  # a model without probabilities
        overall.add_row(r[0], str(r[1]), f"{r[2]:.4f}", loss, f"{r[4]:.2f}")
    console.print(overall)
    for note in notes:
        console.print(f"refused: {note}", soft_wrap=True)
    warned = [s for s in results if s.warnings]
    if warned and args.verbose:
        for s in warned:
            for message in s.warnings:
                console.print(f"warning: {s.model} on {s.dataset}: {message}", soft_wrap=True)
    elif warned:
        console.print(
            f"{sum(len(s.warnings) for s in warned)} distinct warnings in "
            f"{len(warned)} (dataset, model) pairs; -v shows them"
        )


def _progress_lines(args: argparse.Namespace) -> bool:
    """Whether progress goes to stderr as lines: off a terminal (a log, CI, a notebook),
    where a progress bar shows nothing until the end; never with --quiet."""
    return not args.quiet and not sys.stderr.isatty()


class _FoldReport:
    """``compare``'s progress: advances the bar at each fold and, with ``lines``, writes
    one line to stderr per finished (dataset, model), with the seconds since the start.

    Parameters
    ----------
    progress : rich.progress.Progress
        The bar (disabled off a terminal and with --quiet).
    task : int
        The bar's task.
    n_folds : int
        Folds per (dataset, model).
    lines : bool
        Write a line per finished (dataset, model).
    """

    def __init__(self, progress, task, n_folds: int, lines: bool) -> None:
        import time

        self.progress, self.task, self.n_folds, self.lines = progress, task, n_folds, lines
        self.done: dict[tuple[str, str], int] = {}
        self.start = time.perf_counter()

    def __call__(self, dataset: str, model: str) -> None:
        import time

        self.progress.advance(self.task)
        count = self.done[dataset, model] = self.done.get((dataset, model), 0) + 1
        if self.lines and count == self.n_folds:
            seconds = time.perf_counter() - self.start
            sys.stderr.write(
                f"compare: {dataset} / {model} done ({count} folds, {seconds:.1f} s since the "
                "start)\n"
            )
            sys.stderr.flush()


def _mean_sd(values) -> str:
    import numpy as np

    return f"{np.mean(values):.4f} ± {np.std(values, ddof=1) if len(values) > 1 else 0.0:.4f}"


def _compare_streaming(args: argparse.Namespace) -> None:
    """Cross-validation in two passes over a file, in batches (models with partial_fit)."""
    from rich.console import Console
    from rich.table import Table

    from .datasets.streaming import open_table
    from .evaluation.streaming_cv import stream_cross_validate
    from .registry import make_classifier

    if args.data is None and args.csv is None:
        raise UsageError("--stream needs --data FILE")
    if args.target is None:
        raise UsageError("--data needs --target COLUMN")
    if args.quick or args.all:
        raise UsageError(
            "--quick and --all do not apply to --stream (its default is the models with "
            "partial_fit)"
        )
    model_names = _model_names(args.models if args.models is not None else ",".join(STREAM_DEFAULT))
    estimators = {name: make_classifier(name) for name in model_names}
    unable = [name for name, e in estimators.items() if not hasattr(e, "partial_fit")]
    if unable:
        raise UsageError(f"--stream needs models with partial_fit; not {', '.join(unable)}")
    source = open_table(_data_path(args))
    total = None if source.n_rows is None else 2 * source.n_rows
    progress, task = _progress(args, total, "cross-validating (2 passes)")
    with progress:
        results = stream_cross_validate(
            source,
            args.target,
            estimators,
            n_folds=args.folds,
            batch_rows=args.batch_rows,
            progress=lambda n: progress.advance(task, n),
        )
    table = Table(title=f"{args.folds}-fold CV accuracy in batches (folds by a hash of each row)")
    for column in ("dataset", "model", "accuracy", "fit time (s)"):
        table.add_column(column, justify="left" if column in ("dataset", "model") else "right")
    for name in model_names:
        rows = results[results["model"] == name]
        table.add_row(
            source.path.name,
            name,
            f"{rows['accuracy'].mean():.4f} ± {rows['accuracy'].std(ddof=1):.4f}",
            f"{rows['fit_seconds'].iloc[0]:.3f}",
        )
    Console(width=100, file=sys.stdout).print(table)


def _progress(
    args: argparse.Namespace,
    total: int | None,
    what: str,
    unit: str = "rows",
    terminal_only: bool = False,
):
    """A progress bar on stderr (of ``unit``), or a no-op one with --quiet (and with
    ``terminal_only`` off a terminal, where ``compare`` writes lines instead)."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    progress = Progress(
        TextColumn(what),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn(unit),
        console=Console(stderr=True),
        disable=args.quiet or (terminal_only and not sys.stderr.isatty()),
        transient=True,
    )
    return progress, progress.add_task(what, total=total)


def _data_path(args: argparse.Namespace) -> Path:
    if args.data is not None and args.csv is not None:
        raise UsageError("give --data or --csv (an alias), not both")
    path = args.data if args.data is not None else args.csv
    if path is None:
        raise UsageError("--data FILE is required")
    return path


def _fit(args: argparse.Namespace) -> None:
    from .output_files import check_output
    from .registry import make_classifier
    from .scaling_tags import scaling_tags

    _model_names(args.model)
    path = _data_path(args)
    check_output(args.output, inputs=[path])  # never over the data, --force or not
    if args.output.exists() and not args.force:
        raise ValueError(f"{args.output} exists; use --force to overwrite it")
    if args.batch_rows < 1:
        raise UsageError(f"--batch-rows must be >= 1, got {args.batch_rows}")
    estimator = make_classifier(args.model)
    if args.dask or args.scheduler:
        n_rows = _fit_with_dask(estimator, path, args)
        how = "with dask"
    elif hasattr(estimator, "partial_fit"):
        n_rows = _fit_streaming(estimator, path, args)
        how = f"in batches of {args.batch_rows} rows"
    elif scaling_tags(estimator).files == "passes":  # the ensemble: the file once per pass
        n_rows = _fit_in_passes(estimator, path, args)
        how = f"in passes over batches of {args.batch_rows} rows"
    else:
        X, y = _read_whole(path, args.target)
        estimator.fit(X, y)
        n_rows, how = len(y), "in memory (this model has no partial_fit)"
    content = {"model": estimator, "target": args.target, "name": args.model}
    written = _save(content, args.output, args.format, inputs=[path])
    print(
        f"fitted {args.model} on {n_rows} rows, {estimator.n_features_in_} features "
        f"{how} -> {args.output} ({written})"
    )


def _save(content: dict, path: Path, form: str, inputs: list[Path]) -> str:
    """Write a model file: JSON (data only) by default, else a signed pickle; a model
    JSON cannot hold (a baseline from scikit-learn) falls back to the pickle. Either is
    written whole or not at all, never over one of ``inputs``."""
    from .io import json_model
    from .model_file import save_model
    from .output_files import check_output, write_text

    check_output(path, inputs)

    if form == "json":
        try:
            text = json_model.dumps(content)
        except TypeError as err:
            sys.stderr.write(f"discotree: note: {err} Writing a signed pickle instead.\n")
        else:
            write_text(path, text, inputs=inputs)
            return "JSON"
    save_model(content, path)
    return "signed pickle"


def _load(path: Path) -> dict:
    """A model file of either format: JSON is read as data (no code runs); a pickle only
    after its signature is checked. Whatever is wrong with it is reported as "not a
    valid model file: <reason>"."""
    from .io import json_model
    from .model_file import load_model

    try:
        with path.open("rb") as handle:
            start = handle.read(1)
        saved = json_model.load_json(path) if start == b"{" else load_model(path)
    except ValueError as err:
        raise ValueError(f"{path} is not a valid model file: {err}") from None
    if not isinstance(saved, dict) or "model" not in saved:
        raise ValueError(
            f"{path} is not a valid model file: it holds no model written by 'discotree fit'"
        )
    estimator, target = saved["model"], saved.get("target")
    if not hasattr(estimator, "predict") or not hasattr(estimator, "classes_"):
        raise ValueError(
            f"{path} is not a valid model file: its 'model' is a "
            f"{type(estimator).__name__}, not a fitted classifier"
        )
    if not isinstance(target, str):
        raise ValueError(f"{path} is not a valid model file: its 'target' is not a column name")
    return saved


def _read_whole(path: Path, target: str) -> tuple[pd.DataFrame, pd.Series]:
    import pandas as pd

    from .datasets import load_csv
    from .datasets.streaming import open_table

    if path.is_file() and path.suffix.lower() == ".csv":
        return load_csv(path, target)
    source = open_table(path)
    source.check_column(target)
    frames = list(source.batches(1_000_000))
    if not frames or not sum(len(frame) for frame in frames):
        raise ValueError(f"{path}: no data rows (a header only); nothing to fit")
    frame = pd.concat(frames, ignore_index=True)
    return frame.drop(columns=[target]), frame[target]


def _counted_passes(
    source, args: argparse.Namespace, progress, task
) -> tuple[Callable[[], Iterator[tuple[pd.DataFrame, pd.Series]]], list[int]]:
    """A callable giving one pass over the file's batches (``(X, y)``, ``args.batch_rows``
    rows each), each pass advancing the progress bar and counting its rows in the list
    returned with it (one number a pass, in order)."""
    rows_per_pass: list[int] = []

    def batches():
        rows_per_pass.append(0)
        for X, y in source.batches(args.batch_rows, target=args.target):
            rows_per_pass[-1] += len(X)
            progress.advance(task, len(X))
            yield X, y

    return batches, rows_per_pass


def _fit_streaming(estimator, path: Path, args: argparse.Namespace) -> int:
    """partial_fit over the file's batches, or for the learners that read counts of
    several passes (kDB, selective kDB, TAN k=2) the file read again per pass
    (:mod:`discotree.engines.file_passes`): memory bounded by one batch (and the
    counts), whatever the file's size."""
    from .datasets.streaming import open_table
    from .engines.file_passes import fit_in_passes, reads_in_passes

    source = open_table(path)
    classes = source.labels(args.target)  # a first pass over the target column only
    if reads_in_passes(estimator):  # kDB, selective kDB, TAN k=2: counts of 2-3 passes
        total = None if source.n_rows is None else 3 * source.n_rows
        progress, task = _progress(args, total, f"fitting {args.model} (up to 3 passes)")
        batches, rows_per_pass = _counted_passes(source, args, progress, task)
        with progress, source.noticing_changes():  # a file changed between passes: named
            fit_in_passes(estimator, batches, classes)
        return rows_per_pass[0]
    progress, task = _progress(args, source.n_rows, f"fitting {args.model}")
    n_rows = 0
    with progress, source.noticing_changes():
        for X, y in source.batches(args.batch_rows, target=args.target):
            estimator.partial_fit(X, y, classes=classes)
            n_rows += len(X)
            progress.advance(task, len(X))
    estimator.end_partial_fit()  # learn now; the saved model keeps no counts or rows
    return n_rows


def _fit_in_passes(estimator, path: Path, args: argparse.Namespace) -> int:
    """The ensemble from the file read once per pass, in batches
    (:func:`discotree.engines.ensemble_passes.fit_batches_in_passes`): memory bounded by
    one batch and the tables, whatever the file's size."""
    from .datasets.streaming import open_table
    from .engines.ensemble_passes import fit_batches_in_passes

    source = open_table(path)
    source.check_column(args.target)
    progress, task = _progress(args, None, f"fitting {args.model} (in passes)")
    batches, rows_per_pass = _counted_passes(source, args, progress, task)
    with progress, source.noticing_changes():  # a file changed between passes: named
        fit_batches_in_passes(estimator, batches)
    return rows_per_pass[0]


def _fit_with_dask(estimator, path: Path, args: argparse.Namespace) -> int:
    try:
        import dask.dataframe as dd
    except ImportError as err:
        raise ValueError("--dask needs the extra: pip install 'discotree[dask]'") from err
    if not hasattr(estimator, "fit_from_statistics"):
        raise ValueError(f"{args.model} does not fit from dask collections; fit it without --dask")
    from .datasets.reading import pandas_csv_options
    from .datasets.streaming import open_table

    source = open_table(path)  # checks the path and the target column
    source.check_column(args.target)
    if source.format == "parquet":
        frame = dd.read_parquet(str(path), blocksize="64MiB")  # partitions of row groups
    else:
        files = str(path / "*") if path.is_dir() else str(path)
        blocksize = None if str(path).endswith(".gz") else "64MB"
        frame = dd.read_csv(files, blocksize=blocksize, assume_missing=True, **pandas_csv_options())
    X, y = frame.drop(columns=[args.target]), frame[args.target]
    if args.scheduler:
        from distributed import Client

        with Client(args.scheduler):
            estimator.fit(X, y)
    else:
        estimator.fit(X, y)
    return int(estimator.class_count_.sum())


def _predict_columns(estimator, columns: list[str], target: str, path: Path) -> list[str] | None:
    """The columns of the data file to predict from, by name, in the model's order
    (``feature_names_in_``), whatever their order in the file; None for a model that
    has no names (the file's columns but the target, in its order, as they are).

    Extra columns are ignored, with one note on stderr naming them (the target column
    silently, as always): files to score often carry an identifier, a date or the
    label beside the features, and a misspelt feature name is still caught, as the
    model's column it stands for is then missing. A missing model column is refused,
    naming it.
    """
    names = getattr(estimator, "feature_names_in_", None)
    if names is None:
        return None
    names = [str(name) for name in names]
    missing = [name for name in names if name not in columns]
    extra = [name for name in columns if name not in names and name != target]
    if missing:
        also = f"; it has the columns {extra}, which the model does not know" if extra else ""
        raise ValueError(
            f"{path} lacks the model's column{'s' if len(missing) > 1 else ''} {missing}"
            f"{also}. The model needs its training columns, by name, in any order."
        )
    if extra:
        sys.stderr.write(
            f"discotree: note: ignoring the columns {extra} of {path}: the model was not "
            "trained on them.\n"
        )
    return names


def _predict(args: argparse.Namespace) -> None:
    """Predict the rows of ``--data`` with the model of ``--model``.

    The model's columns are read by name, in any order (``_predict_columns``): other
    columns are ignored with one note on stderr naming them (the target column, if
    present, silently), and a missing model column is an error naming it. A file of
    no rows (a header only) gives the predictions' header alone, with a note.
    """
    import pandas as pd

    from .datasets.streaming import open_table
    from .output_files import atomic_output, check_output

    if not args.model.is_file():
        raise ValueError(f"model file not found: {args.model}")
    path = _data_path(args)
    if args.output is not None:  # never over the data or the model, --force or not
        check_output(args.output, inputs=[path, args.model])
    if args.output is not None and args.output.exists() and not args.force:
        raise ValueError(f"{args.output} exists; use --force to overwrite it")
    saved = _load(args.model)
    estimator, target = saved["model"], saved["target"]
    if args.proba and not hasattr(estimator, "predict_proba"):
        raise ValueError(
            f"the model in {args.model} ({saved.get('name', type(estimator).__name__)}) "
            "gives no probabilities; predict without --proba"
        )
    source = open_table(path)
    columns = _predict_columns(estimator, source.columns, target, path)
    progress, task = _progress(args, source.n_rows, "predicting")
    # a file output is written whole or not at all: a failure halfway keeps the old one
    writing = (
        contextlib.nullcontext(sys.stdout)
        if args.output is None
        else atomic_output(args.output, "w", inputs=[path, args.model], newline="")
    )
    with writing as out, progress:
        header = True
        for frame in source.batches(args.batch_rows, columns=columns):  # written as it goes
            if columns is not None:
                X = frame[columns]  # the model's order, whatever the reader's
            else:
                X = frame.drop(columns=[target]) if target in frame.columns else frame
            result = pd.DataFrame({target: estimator.predict(X)})
            if args.proba:
                probabilities = estimator.predict_proba(X)
                for k, label in enumerate(estimator.classes_):
                    # full precision: rounded columns need not sum to 1
                    result[f"proba_{label}"] = probabilities[:, k]
            result.to_csv(out, index=False, header=header)
            header = False
            progress.advance(task, len(frame))
        if header:  # no rows: the header alone, so that the file still says its columns
            names = [target]
            if args.proba:
                names += [f"proba_{label}" for label in estimator.classes_]
            pd.DataFrame(columns=names).to_csv(out, index=False)
            sys.stderr.write(f"discotree: note: {path} holds no data rows; nothing predicted.\n")


def _at_least_two(text: str) -> int:
    """``--folds``: cross-validation needs a held-out fold and a training one."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 2:
        raise argparse.ArgumentTypeError(
            f"{value} folds: cross-validation needs at least 2 (one held out, the rest to fit)"
        )
    return value


class _Formatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows a default only where there is one (not "(default: None)" on required or
    optional-without-default options, nor on flags)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        hidden = action.default is None or action.default is False
        if hidden or action.default is argparse.SUPPRESS or not action.help:
            return action.help
        return super()._get_help_string(action)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit code 2, via UsageError
        raise UsageError(f"{self.prog}: {message}")


def _common_options(default_verbose, default_quiet) -> _Parser:
    # Subcommands repeat the options with SUPPRESS defaults so that
    # "discotree -v compare" and "discotree compare -v" both count.
    common = _Parser(add_help=False)
    common.add_argument(
        "-v",
        "--verbose",
        action="count",
        default=default_verbose,
        help="more logging (repeatable); -vv shows tracebacks",
    )
    common.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        default=default_quiet,
        help="no progress (neither the bar on a terminal nor the lines elsewhere)",
    )
    return common


def _data_options(parser: argparse.ArgumentParser, data_help: str) -> None:
    """``--data PATH`` (``data_help`` says what it holds) and its alias ``--csv``: the
    options of the commands that read a data file."""
    parser.add_argument("--data", type=Path, help=data_help)
    parser.add_argument("--csv", type=Path, help="alias of --data")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``discotree`` command."""
    fmt = _Formatter
    top = _common_options(default_verbose=0, default_quiet=False)
    common = _common_options(default_verbose=argparse.SUPPRESS, default_quiet=argparse.SUPPRESS)
    parser = _Parser(
        prog="discotree",
        formatter_class=fmt,
        parents=[top],
        description="Classifiers from graphical models learned for discrimination.",
    )
    parser.add_argument("--version", action="version", version=__version__)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    command = partial(sub.add_parser, formatter_class=fmt, parents=[common])
    p = command(
        "compare",
        help="cross-validate the recommended model, cheap families and baselines",
        description="Stratified k-fold CV of classifiers on the same folds; prints "
        "accuracy and log-loss (mean +- sd over folds) and the mean fit time, timed after "
        "one warm-up fit (numba compilation), per dataset and model, then each model's mean "
        f"rank over the datasets. By default the recommended model ({RECOMMENDED_MODEL}), "
        "three cheap families and two baselines on iris, wine and breast_cancer (about a "
        "minute on 2 cores); --all: every family on every built-in dataset. Progress: a "
        "bar on a terminal, else a line per finished (dataset, model) on stderr.",
    )
    p.add_argument(
        "--dataset",
        help="comma-separated datasets: built-in or synthetic (default: "
        f"{','.join(COMPARE_DATASETS)}; with --all every built-in dataset)",
    )
    _data_options(
        p,
        "a .csv, .csv.gz or .parquet file (or folder) to use instead of built-in "
        "datasets (cross-validation reads it whole)",
    )
    p.add_argument("--target", help="label column of --data")
    p.add_argument(
        "--models",
        help="comma-separated registry names ('discotree models' lists them; default: the "
        "recommended model, three cheap families and two baselines, "
        f"{','.join(COMPARE_DEFAULT)})",
    )
    p.add_argument(
        "--quick",
        action="store_true",
        help="the default's discotree models and the quickest baseline (no forest or "
        f"boosting): {','.join(COMPARE_QUICK)}",
    )
    p.add_argument(
        "--all",
        action="store_true",
        help="one model of every family and four baselines, on every built-in dataset "
        f"(digits too; minutes): {','.join(COMPARE_ALL)}",
    )
    p.add_argument(
        "--folds", type=_at_least_two, default=5, help="number of stratified CV folds (>= 2)"
    )
    p.add_argument(
        "--n-jobs",
        type=int,
        default=-1,
        help="folds fitted at once, in processes (-1 or more than the CPUs: one per CPU)",
    )
    p.add_argument("--random-state", type=int, default=0, help="seed of the fold shuffling")
    p.add_argument(
        "--stream",
        action="store_true",
        help="cross-validate --data in two passes of batches, for files larger than memory "
        f"(models with partial_fit; default {','.join(STREAM_DEFAULT)}; folds by a hash of "
        "each row, not stratified)",
    )
    p.add_argument("--batch-rows", type=int, default=100_000, help="rows per batch (--stream)")
    p.set_defaults(run=_compare)

    p = command(
        "fit",
        help="fit a classifier on a data file and save it",
        description="Fit a classifier on a CSV (also gzipped) or Parquet file, or a folder "
        "of them (empty fields are missing), and save it as a model file: JSON by default "
        "(data only), or a pickle signed with this user's key.",
    )
    _data_options(
        p,
        "training data: a .csv, .csv.gz or .parquet file, or a folder of them; read "
        "in batches by the models with partial_fit (bounded memory; kDB, selective kDB "
        "and TAN k=2 read it once per pass of counts; alpha='auto' and hierarchical "
        "smoothing keep the encoded rows), whole by the others",
    )
    p.add_argument("--target", required=True, help="label column")
    p.add_argument(
        "--model",
        default=RECOMMENDED_MODEL,
        help="a registry name ('discotree models' lists them; the default is the most "
        "accurate on the benchmark)",
    )
    p.add_argument("-o", "--output", type=Path, required=True, help="model file to write")
    p.add_argument("--force", action="store_true", help="overwrite an existing model file")
    p.add_argument(
        "--format",
        choices=("json", "pickle"),
        default="json",
        help="model file: JSON (data only: loading runs no code) or a pickle signed with "
        "this user's key (models JSON cannot hold are pickled)",
    )
    p.add_argument(
        "--batch-rows", type=int, default=100_000, help="rows per batch (the first fixes the bins)"
    )
    p.add_argument(
        "--dask", action="store_true", help="fit with dask (local threads) instead of batches"
    )
    p.add_argument("--scheduler", help="fit with dask on the cluster at this address")
    p.set_defaults(run=_fit)

    p = command(
        "predict",
        help="classify the rows of a data file with a saved model",
        description="Predict with a model saved by 'discotree fit', in batches, writing "
        "the predictions as it goes. JSON model files are read as data; a pickle is "
        "loaded only if this user's key signed it.",
    )
    p.add_argument(
        "--model", type=Path, required=True, help="model file written by 'discotree fit' (signed)"
    )
    _data_options(
        p,
        "data with the training columns, by name in any order (a target column is "
        "ignored; other extra columns are ignored with a note naming them; a missing one "
        "is an error): .csv, .csv.gz or .parquet, a file or a folder, read and predicted in "
        "batches",
    )
    p.add_argument("--batch-rows", type=int, default=100_000, help="rows per batch")
    p.add_argument("-o", "--output", type=Path, help="write predictions here, not to stdout")
    p.add_argument("--proba", action="store_true", help="also write class probabilities")
    p.add_argument("--force", action="store_true", help="overwrite an existing output file")
    p.set_defaults(run=_predict)

    p = command(
        "models",
        help="list the classifier names, one line each",
        description="The names --models and --model accept, with one line on each "
        "(names added by an installed distribution, such as the reproductions', "
        "without a line are listed after).",
    )
    p.set_defaults(run=_models)
    _add_installed_commands(sub, formatter_class=fmt, parents=[common])
    return parser


def _add_installed_commands(sub, **parser_options) -> None:
    """The subcommands of installed distributions: each entry point of the group
    ``discotree.commands`` is a function ``add(subparsers, **parser_options)`` that adds
    its parsers (each with a ``run`` default called with the parsed arguments, raising
    :class:`UsageError` for a usage mistake). The reproductions' distribution adds
    ``reproduce`` and ``bench``; a plain install has none."""
    from importlib.metadata import entry_points

    for point in entry_points(group="discotree.commands"):
        point.load()(sub, **parser_options)


def _models(args: argparse.Namespace) -> None:
    from .registry import CLASSIFIERS, DESCRIPTIONS

    width = max(len(name) for name in CLASSIFIERS)
    for name in CLASSIFIERS:
        line = DESCRIPTIONS.get(name)
        if line is not None:
            print(f"{name:<{width}}  {line}")
    others = [name for name in CLASSIFIERS if name not in DESCRIPTIONS]
    if others:
        print(f"\nfrom installed distributions: {', '.join(others)}")


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit code."""
    verbose = 0
    try:
        args = build_parser().parse_args(argv)
        verbose = args.verbose
        level = logging.WARNING - 10 * min(verbose, 2)
        logging.basicConfig(
            level=level, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s"
        )
        args.run(args)
    except SystemExit as stop:  # --help and --version
        return int(stop.code or 0)
    except UsageError as err:
        sys.stderr.write(f"discotree: usage error: {err}\n")
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader (e.g. "| head") stopped: not an error
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except (ValueError, TypeError, OSError, KeyError) as err:  # pandas' ParserError too
        # FileNotFoundError (no data folder) is an OSError: one line, exit code 1
        if verbose >= 2:
            traceback.print_exc()
        message = str(err) or type(err).__name__  # the whole message: every line
        if isinstance(err, KeyError):  # a bare key name says nothing: say what it is
            message = f"no column or field named {err.args[0]!r} where one was needed"
        sys.stderr.write(f"discotree: error: {message}\n")
        return 1
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
