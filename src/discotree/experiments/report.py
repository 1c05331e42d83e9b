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

__all__ = ["grouped_bar_chart", "markdown_table", "summarise", "write_json"]


def write_json(records: list[dict], path: Path, **header) -> None:
    """Every fold's figures, sorted, with a header of experiment-level facts."""
    ordered = sorted(records, key=lambda r: (r["dataset"], r["model"], r["fold"]))
    path.write_text(json.dumps({**header, "folds": ordered}, indent=1))


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
    fig.savefig(path, dpi=120)
    plt.close(fig)
