"""Reproductions of Pernkopf & Bilmes (2010), 002_4035af8a3a458042.txt."""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

from ..datasets import load_dataset
from ..registry import make_classifier
from ..transformers import Discretizer
from .metrics import paired_t_test
from .protocols import cross_validation, fixed_split
from .report import grouped_bar_chart, markdown_table, summarise, write_json
from .runner import DatasetSpec, Experiment

__all__ = ["PAPER_TABLE1_UCI", "uci_experiment"]

#: Table 1 of 002, column "UCI": average classification rate (%) over the 25 UCI sets
#: of Table 7, weighted by test-set size. Paper figures, shown beside ours (registry
#: names; "tan-ro-cr-ml" is the mean over the paper's 1000 random orders).
PAPER_TABLE1_UCI = {
    "nb-ml": 81.50,
    "nb-cl": 85.18,
    "tan-cmi-ml": 84.82,
    "tan-cmi-cl": 85.47,
    "tan-ro-cr-ml": 85.04,
    "tan-superparent-ml": 84.80,
    "tan-superparent-cl": 85.70,
    "tan-omi-cr-ml": 85.11,
    "tan-omi-cr-cl": 85.82,
    "tan-omi-crcl-ml": 85.16,
    "tan-cr-ml": 85.38,
    "tan-cr-cl": 86.00,
    "2tree-superparent-ml": 84.77,
    "2tree-superparent-cl": 85.90,
    "2tree-omi-cr-ml": 85.50,
    "2tree-omi-cr-cl": 85.81,
    "2tree-cr-ml": 85.53,
    "2tree-cr-cl": 85.73,
}

#: The classifiers of the reproduction (issue 6, item 4; TAN-RO-CR with one random
#: order per fold, the paper averages 1000; TAN-OMI-CRCL is left out: CL training per
#: candidate structure is, as the paper says, feasible on small sets only).
PERNKOPF_MODELS = [
    "nb-ml",
    "nb-cl",
    "tan-cmi-ml",
    "tan-cmi-cl",
    "tan-ro-cr-ml",
    "tan-ro-cr-cl",
    "tan-superparent-ml",
    "tan-superparent-cl",
    "tan-omi-cr-ml",
    "tan-omi-cr-cl",
    "tan-cr-ml",
    "tan-cr-cl",
    "2tree-superparent-ml",
    "2tree-superparent-cl",
    "2tree-omi-cr-ml",
    "2tree-omi-cr-cl",
    "2tree-cr-ml",
    "2tree-cr-cl",
]

#: Table 8 of 002: TAN-OMI-CR-ML classification rate (%) per data set.
PAPER_TABLE8_OMI_CR = {
    "AUSTRALIAN": 82.04,
    "BREAST": 97.40,
    "CHESS": 94.93,
    "CLEVE": 81.76,
    "CORRAL": 99.20,
    "CRX": 84.07,
    "DIABETES": 74.36,
    "FLARE": 82.74,
    "GERMAN": 73.20,
    "GLASS": 70.70,
    "GLASS2": 82.20,
    "HEART": 81.85,
    "HEPATITIS": 90.67,
    "IRIS": 93.33,
    "LETTER": 87.00,
    "LYMPHOGRAPHY": 88.30,
    "MOFN-3-7-10": 91.41,
    "PIMA": 75.26,
    "SHUTTLE-SMALL": 99.17,
    "VOTE": 94.29,
    "SATIMAGE": 88.25,
    "SEGMENT": 94.42,
    "SOYBEAN-LARGE": 91.11,
    "VEHICLE": 67.38,
    "WAVEFORM-21": 78.02,
}

# (paper name, our name, protocol, row selection, note). Protocols as Table 7 of 002.
_TABLE7 = [
    ("AUSTRALIAN", "australian", "cv5", None, ""),
    ("BREAST", "breast", "cv5", "complete", "16 incomplete rows dropped: 683 rows as in the paper"),
    ("CHESS", "chess", "cv5", None, "paper: 2130/1066 split (MLC++ files not found); CV-5 instead"),
    ("CLEVE", "cleve", "cv5", "complete", "7 incomplete rows dropped: 296 rows as in the paper"),
    (
        "CORRAL",
        "corral",
        "cv5",
        range(32, 160),
        "the 128 rows of corral.test (the paper lists 128 rows)",
    ),
    ("CRX", "crx", "cv5", "complete", "37 incomplete rows dropped: 653 rows as in the paper"),
    ("DIABETES", "diabetes", "cv5", None, ""),
    ("FLARE", "flare", "cv5", None, ""),
    ("GERMAN", "german", "cv5", None, ""),
    ("GLASS", "glass", "cv5", None, "6 classes occur (the paper lists 7)"),
    ("GLASS2", "glass2", "cv5", None, ""),
    ("HEART", "heart", "cv5", None, ""),
    (
        "HEPATITIS",
        "hepatitis",
        "cv5",
        "complete",
        "incomplete rows dropped: 80 rows as in the paper",
    ),
    ("IRIS", "iris", "cv5", None, ""),
    (
        "LETTER",
        "letter",
        (range(0, 15000), range(15000, 20000)),
        None,
        "15000/5000 split taken as the first/last rows (not verifiable)",
    ),
    ("LYMPHOGRAPHY", "lymphography", "cv5", None, ""),
    ("MOFN-3-7-10", "mofn-3-7-10", (range(0, 300), range(300, 1324)), None, ""),
    ("PIMA", "pima", "cv5", None, ""),
    (
        "SHUTTLE-SMALL",
        "shuttle",
        (range(0, 43500), range(43500, 58000)),
        None,
        "full Statlog shuttle 43500/14500 instead of shuttle-small 3866/1934",
    ),
    ("VOTE", "vote", "cv5", None, ""),
    ("SATIMAGE", "satimage", (range(0, 4435), range(4435, 6435)), None, ""),
    ("SEGMENT", "segment", "cv5", None, "paper: 1540/770 split (not reproducible); CV-5"),
    (
        "SOYBEAN-LARGE",
        "soybean",
        "cv5",
        "complete",
        "incomplete rows dropped: 562 rows as in the paper",
    ),
    ("VEHICLE", "vehicle", "cv5", None, ""),
    (
        "WAVEFORM-21",
        "waveform-21",
        (range(0, 300), range(300, 5000)),
        None,
        "300/4700 split: the first 300 rows stand in for the MLC++ training file",
    ),
]

#: Test-set sizes of Table 7 of 002 (all samples for CV-5 sets, the test part for
#: split sets): the paper's weights for its averages.
PAPER_TEST_SIZES = {
    "AUSTRALIAN": 690,
    "BREAST": 683,
    "CHESS": 1066,
    "CLEVE": 296,
    "CORRAL": 128,
    "CRX": 653,
    "DIABETES": 768,
    "FLARE": 1066,
    "GERMAN": 1000,
    "GLASS": 214,
    "GLASS2": 163,
    "HEART": 270,
    "HEPATITIS": 80,
    "IRIS": 150,
    "LETTER": 5000,
    "LYMPHOGRAPHY": 148,
    "MOFN-3-7-10": 1024,
    "PIMA": 768,
    "SHUTTLE-SMALL": 1934,
    "VOTE": 435,
    "SATIMAGE": 2000,
    "SEGMENT": 770,
    "SOYBEAN-LARGE": 562,
    "VEHICLE": 846,
    "WAVEFORM-21": 4700,
}

_SEED = 0


def _load(name: str, rows, data_dir) -> tuple[pd.DataFrame, pd.Series]:
    X, y = load_dataset(name, data_dir)
    if rows == "complete":
        keep = ~X.isna().any(axis=1)
        X, y = X[keep], y[keep]
    elif rows is not None:
        X, y = X.iloc[list(rows)], y.iloc[list(rows)]
    return X.reset_index(drop=True), y.reset_index(drop=True)


def _folds(protocol, y):
    if protocol == "cv5":
        return cross_validation(y, 5, _SEED)
    train, test = protocol
    return fixed_split(list(train), list(test))


def _model(name: str):
    """The paper's setting: MDL discretisation inside the folds, ML parameters with
    zero probabilities floored at 1e-5 (Section 6.1 of 002)."""
    return make_classifier(
        name, alpha=0.0, epsilon=1e-5, max_categories=1, discretizer=Discretizer(method="mdl")
    )


def uci_experiment(data_dir: str | os.PathLike | None = None) -> Experiment:
    """Table 1 (column UCI) of 002 on the Table 7 sets, every classifier of Table 1
    but TAN-OMI-CRCL (see :data:`PERNKOPF_MODELS`)."""
    datasets = []
    for paper_name, name, protocol, rows, note in _TABLE7:
        text = "CV-5" if protocol == "cv5" else f"split {len(protocol[0])}/{len(protocol[1])}"
        datasets.append(
            DatasetSpec(
                name=name,
                load=partial(_load, name, rows, data_dir),
                folds=partial(_folds, protocol),
                protocol=text,
                note=note,
                paper_name=paper_name,
            )
        )
    return Experiment(
        name="pernkopf-uci",
        description=(
            "Pernkopf & Bilmes (2010), Table 1 column UCI and Table 7: classification "
            "rate on the UCI sets, 5-fold CV or the given train/test split, MDL "
            "discretisation fitted inside each training fold."
        ),
        datasets=datasets,
        models={name: partial(_model, name) for name in PERNKOPF_MODELS},
        report=_report,
        settings={"seed": _SEED, "alpha": 0.0, "epsilon": 1e-5, "discretizer": "mdl"},
    )


def _explanation(paper_weighted: dict, models: list[str], specs: dict) -> list[str]:
    """Where our setting differs from the paper's, and the gaps it leaves."""
    lines = ["## Differences from the paper", ""]
    if {"nb-ml", "tan-cmi-ml"} <= set(paper_weighted):
        ours = paper_weighted["tan-cmi-ml"] - paper_weighted["nb-ml"]
        theirs = PAPER_TABLE1_UCI["tan-cmi-ml"] - PAPER_TABLE1_UCI["nb-ml"]
        lines += [
            f"- Gain of TAN-CMI over NB: {ours:+.2f} points here, {theirs:+.2f} in the paper.",
        ]
    noted = [f"{s.paper_name}: {s.note}" for s in specs.values() if s.note]
    lines += [f"- Data or protocol: {'; '.join(noted)}."] if noted else []
    lines += [
        "- Fold assignment: the paper's 5-fold partitions (Friedman et al. 1997, MLC++) are "
        "not available; ours are stratified with a fixed seed, so per-data-set figures "
        "differ by fold noise (see the sd column).",
        "- Discretisation: Fayyad-Irani MDL as in Section 6.1, fitted on each training "
        "fold; every numeric column is discretised (the coded nominal attributes the "
        "manifest names are categories). MLC++'s implementation details (tie handling, "
        "cut placement) are not given in the paper.",
        "- Parameters: maximum likelihood with zero probabilities replaced by 1e-5 and "
        "renormalised (Section 6.1); missing values (vote) are summed out exactly.",
        "",
    ]
    return lines


def _table8(rows_by_set: dict[str, dict[str, float]], models: list[str]) -> list[str]:
    """TAN-OMI-CR-ML per data set beside Table 8 of the paper."""
    if "tan-omi-cr-ml" not in models:
        return []
    table = []
    diffs = []
    for paper_name, accuracy in rows_by_set.items():
        ours = accuracy["tan-omi-cr-ml"]
        theirs = PAPER_TABLE8_OMI_CR.get(paper_name)
        if theirs is not None:
            diffs.append(ours - theirs)
        table.append(
            [
                paper_name,
                f"{ours:.2f}",
                "" if theirs is None else f"{theirs:.2f}",
                "" if theirs is None else f"{ours - theirs:+.2f}",
            ]
        )
    return [
        "## TAN-OMI-CR-ML per data set, beside Table 8 of 002",
        "",
        markdown_table(["data set", "ours", "paper (Table 8)", "ours - paper"], table),
        "",
        f"Mean difference {np.mean(diffs):+.2f} points, mean absolute difference "
        f"{np.mean(np.abs(diffs)):.2f} over {len(diffs)} sets.",
        "",
    ]


def _structure_times(records: list[dict], models: list[str]) -> list[str]:
    """Total fit time per classifier over all folds (structure and parameters)."""
    frame = pd.DataFrame(records)
    totals = frame.groupby("model")["fit_seconds"].sum()
    return [
        "## Fit time",
        "",
        markdown_table(
            ["classifier", "total fit time over all folds (s)"],
            [[m, f"{totals.get(m, float('nan')):.1f}"] for m in models],
        ),
        "",
    ]


def _report(records: list[dict], out_dir: Path, experiment: Experiment) -> None:
    write_json(
        records, out_dir / "results.json", experiment=experiment.name, settings=experiment.settings
    )
    summary = summarise(records)
    models = list(experiment.models)
    specs = {d.name: d for d in experiment.datasets}
    rows = []
    per_model: dict[str, list[float]] = {m: [] for m in models}
    rows_by_set: dict[str, dict[str, float]] = {}
    weights, paper_weights = [], []
    for name, spec in specs.items():
        sub = summary[summary["dataset"] == name].set_index("model")
        if not set(models) <= set(sub.index):
            continue
        n_test = int(sub["n_test"].iloc[0])
        weights.append(n_test)
        paper_weights.append(PAPER_TEST_SIZES[spec.paper_name])
        cells = []
        for m in models:
            per_model[m].append(100 * sub.loc[m, "mean"])
            cells.append(f"{100 * sub.loc[m, 'mean']:.2f} ± {100 * sub.loc[m, 'sd']:.2f}")
        rows.append([spec.paper_name, spec.protocol, n_test, *cells, spec.note])
        rows_by_set[spec.paper_name] = {m: 100 * sub.loc[m, "mean"] for m in models}
    w = np.asarray(weights, dtype=float)
    averages = {m: float(np.average(per_model[m], weights=w)) for m in models}
    paper_weighted = {
        m: float(np.average(per_model[m], weights=np.asarray(paper_weights, float))) for m in models
    }
    plain = {m: float(np.mean(per_model[m])) for m in models}
    lines = [
        f"# {experiment.name}",
        "",
        experiment.description,
        "",
        f"Models: {', '.join(models)} with Dirichlet alpha = 0 and zero probabilities "
        "floored at 1e-5 (the paper's smoothing, Section 6.1); every numeric column is "
        "discretised by Fayyad-Irani MDL on the training fold (the coded nominal "
        "attributes of the manifest are categories). Folds: stratified, "
        f"seed {experiment.settings['seed']}. Cells: accuracy (%) mean ± sd over folds.",
        "",
        markdown_table(
            ["data set", "protocol", "test samples", *models, "difference from the paper"],
            rows,
        ),
        "",
        "## Averages",
        "",
        "Table 1 of 002 weights each data set by its test-set size. Our full shuttle set "
        "has 14500 test rows against 1934 in the paper's shuttle-small, so the average "
        "weighted by our test sizes is dominated by shuttle; the comparable figure weights "
        "our accuracies by the paper's Table 7 test sizes (first column).",
        "",
        markdown_table(
            [
                "model",
                "ours, paper's weights",
                "ours, our weights",
                "ours, unweighted",
                "paper (Table 1, UCI)",
                "ours - paper (paper's weights)",
            ],
            [
                [
                    m,
                    f"{paper_weighted[m]:.2f}",
                    f"{averages[m]:.2f}",
                    f"{plain[m]:.2f}",
                    f"{PAPER_TABLE1_UCI[m]:.2f}" if m in PAPER_TABLE1_UCI else "not reported",
                    f"{paper_weighted[m] - PAPER_TABLE1_UCI[m]:+.2f}"
                    if m in PAPER_TABLE1_UCI
                    else "",
                ]
                for m in models
            ],
        ),
        "",
        f"{len(rows)} data sets ({len(_TABLE7)} in Table 7 of the paper).",
        "",
        *_explanation(paper_weighted, models, specs),
        *_table8(rows_by_set, models),
        "## Paired tests over data sets (as Table 2 of 002)",
        "",
        "One-sided paired t-test over the data sets: p-value that the row's classifier "
        "has the higher classification rate than the column's (bold: < 0.05).",
        "",
    ]
    matrix = []
    for a in models:
        cells = []
        for b in models:
            if a == b:
                cells.append("")
                continue
            p_value = paired_t_test(per_model[a], per_model[b])
            cells.append(f"**{p_value:.3f}**" if p_value < 0.05 else f"{p_value:.3f}")
        matrix.append([a, *cells])
    lines.append(markdown_table(["better?", *models], matrix))
    lines += ["", *_structure_times(records, models)]
    (out_dir / "results.md").write_text("\n".join(lines) + "\n")
    grouped_bar_chart(summary, out_dir / "accuracy.png", title=experiment.name, xlabel="accuracy")
