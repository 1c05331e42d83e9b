"""Report helpers: JSON of every fold, markdown tables, figures."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from discotree.output_files import atomic_output, write_text

__all__ = [
    "cpu_name",
    "finish_line_figure",
    "fit_provenance",
    "fold_commits",
    "grouped_bar_chart",
    "markdown_table",
    "ml_cl_lines",
    "provenance",
    "report_opening",
    "source_state",
    "summarise",
    "write_json",
    "write_results",
]


def cpu_name() -> str:
    """The processor's model name (``/proc/cpuinfo``), or what ``platform`` knows."""
    import platform

    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


#: The paths that determine a result: changes elsewhere (results, README, docs,
#: tests) are not changes to what produced it (see :func:`source_state`).
_CODE = ("src", "pyproject.toml")


def source_state() -> tuple[str, list[str] | None]:
    """The commit of the package's source tree and the files of the code (``src/``,
    ``pyproject.toml``) that differ from it, untracked ones included (``("unknown",
    None)`` outside a git work tree)."""
    import subprocess

    root = Path(__file__).resolve().parents[3]
    commit, changed = "unknown", None
    try:
        commit = (
            subprocess.run(
                ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=10
            ).stdout.strip()
            or "unknown"
        )
        status = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=all", "--", *_CODE],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout
        if commit != "unknown":
            changed = [line[3:] for line in status.splitlines() if line.strip()]
    except (OSError, subprocess.SubprocessError):
        pass
    return commit, changed


def fit_provenance() -> dict:
    """What fits one fold, stored in its record: ``fit_commit``,
    ``fit_uncommitted_changes`` (the code differed from that commit), ``fit_cpu`` and
    ``fit_date``. A report assembled from folds of several runs says which code
    fitted each."""
    import datetime

    commit, changed = source_state()
    return {
        "fit_commit": commit,
        "fit_uncommitted_changes": None if changed is None else bool(changed),
        "fit_cpu": cpu_name(),
        "fit_date": datetime.datetime.now(datetime.UTC).date().isoformat(),
    }


def provenance() -> dict:
    """What produced a result: the commit (and whether the code, ``src/`` and
    ``pyproject.toml``, differed from it: ``uncommitted_changes`` and the first 20
    ``uncommitted_files``), the package versions, the machine and the time."""
    import datetime
    import os
    import platform
    from importlib import metadata

    commit, changed = source_state()
    packages: dict[str, str | None] = {}
    for name in ("discotree", "numpy", "scipy", "scikit-learn", "numba", "pandas"):
        try:
            packages[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            packages[name] = None
    return {
        "commit": commit,
        "uncommitted_changes": None if changed is None else bool(changed),
        "uncommitted_files": (changed or [])[:20],
        "packages": packages,
        "machine": {
            "cpu": cpu_name(),
            "cores": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
        },
        "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
    }


def fold_commits(folds: Sequence[dict]) -> dict[str, int]:
    """How many of ``folds`` each commit fitted (``fit_commit`` of the records, with
    ``"+changes"`` where the code differed from it); ``"not recorded"`` for
    records fitted before the runner stored it, ``"not recorded, first committed in
    <commit>"`` where the git history of the report says which commit first held the
    record (``committed_in``: the code that fitted it is that commit's or older)."""
    counts: dict[str, int] = {}
    for record in folds:
        commit = record.get("fit_commit") if isinstance(record, dict) else None
        if commit is None:
            first = record.get("committed_in") if isinstance(record, dict) else None
            key = "not recorded" + (f", first committed in {first}" if first else "")
        else:
            key = commit + ("+changes" if record.get("fit_uncommitted_changes") else "")
        counts[key] = counts.get(key, 0) + 1
    return counts


def write_results(path: Path, payload: dict, indent: int = 1) -> None:
    """``payload`` as JSON with its :func:`provenance`; when it lists its folds
    (``"folds"``), the provenance also counts the folds each commit fitted
    (:func:`fold_commits`: the report may be assembled from several runs)."""
    stamp = provenance()
    folds = payload.get("folds")
    if isinstance(folds, list):
        stamp["fold_commits"] = fold_commits(folds)
    write_text(path, json.dumps({**payload, "provenance": stamp}, indent=indent))


def write_json(records: list[dict], path: Path, **header) -> None:
    """Every fold's figures, sorted, with a header of experiment-level facts and the
    :func:`provenance` of the run."""
    ordered = sorted(records, key=lambda r: (r["dataset"], r["model"], r["fold"]))
    write_results(path, {**header, "folds": ordered})


def summarise(records: list[dict], metric: str = "accuracy") -> pd.DataFrame:
    """Mean, sd (over folds) and total test size per (dataset, model)."""
    frame = pd.DataFrame(records)
    grouped = frame.groupby(["dataset", "model"])
    return pd.DataFrame(
        {
            "mean": grouped[metric].mean(),
            "sd": grouped[metric].std(ddof=1).fillna(0.0),
            "n_test": grouped["n_test"].sum(),
            "n_folds": grouped[metric].size(),
            "fit_seconds": grouped["fit_seconds"].mean(),
        }
    ).reset_index()


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A GitHub markdown table."""
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def report_opening(name: str, doc: str, *, one_line: bool = True) -> list[str]:
    r"""The first lines of the report of the reproduction ``name``: its title, then the
    module docstring ``doc`` without its first paragraph (its line breaks as spaces when
    ``one_line``), each followed by an empty line.

    >>> report_opening("demo", "Title.\n\nWhat it\nreproduces.\n")
    ['# demo', '', 'What it reproduces.', '']
    """
    text = doc.split("\n\n", 1)[1].strip()
    return [f"# {name}", "", text.replace("\n", " ") if one_line else text, ""]


def ml_cl_lines(ax, means: pd.DataFrame, models: Sequence[str], colours: dict) -> None:
    """A line with markers per model ``<structure>-<parameters>`` (a column of ``means``,
    against its index): coloured by ``colours[structure]``, dashed for the CL
    parameters, solid otherwise (ML, or an SVM's kernel)."""
    for m in models:
        structure, parameters = m.rsplit("-", 1)
        style = "--" if parameters == "cl" else "-"
        ax.plot(means.index, means[m], style, marker="o", color=colours[structure], label=m)


def finish_line_figure(fig, ax, path: Path, xlabel: str, ylabel: str) -> None:
    """Label the axes, add a small two-column legend, save the figure to ``path`` at 120
    dpi and close it."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize="small", ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def grouped_bar_chart(
    table: pd.DataFrame, path: Path, *, value: str = "mean", title: str = "", xlabel: str = ""
) -> None:
    """Horizontal grouped bars: one group per dataset, one bar per model."""
    datasets = list(dict.fromkeys(table["dataset"]))
    models = list(dict.fromkeys(table["model"]))
    height = 0.8 / len(models)
    fig, ax = plt.subplots(figsize=(7, 0.35 * len(datasets) * max(1, len(models) / 2) + 1.5))
    positions = np.arange(len(datasets))
    for k, model in enumerate(models):
        sub = table[table["model"] == model].set_index("dataset").reindex(datasets)
        ax.barh(positions + k * height, sub[value], height=height, label=model)
    ax.set_yticks(positions + 0.4 - height / 2)
    ax.set_yticklabels(datasets)
    ax.invert_yaxis()
    low = float(np.nanmin(table[value]))
    ax.set_xlim(max(0.0, low - 0.05), 1.0)
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.legend(loc="lower right", fontsize="small")
    fig.tight_layout()
    with atomic_output(path, "wb") as handle:
        fig.savefig(handle, dpi=120, format=Path(path).suffix.lstrip(".") or "png")
    plt.close(fig)
