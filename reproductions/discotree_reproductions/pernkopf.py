"""Reproductions of Pernkopf & Bilmes 2010."""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

from discotree.registry import make_classifier

from .harness.metrics import paired_t_test
from .harness.report import grouped_bar_chart, markdown_table, summarise, write_json
from .harness.runner import DatasetSpec, Experiment
from .pernkopf_setup import SEED, TABLE7, load_uci, paper_model, uci_folds

__all__ = [
    "PAPER_TABLE1_UCI",
    "complete_models",
    "runtime_experiment",
    "uci_experiment",
]

#: Pernkopf & Bilmes 2010, Table 1, column "UCI": average classification rate (%) over the 25 UCI
#: sets
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
    "tan-omi-crcl-cl": 85.78,
    "tan-cr-ml": 85.38,
    "tan-cr-cl": 86.00,
    "2tree-superparent-ml": 84.77,
    "2tree-superparent-cl": 85.90,
    "2tree-omi-cr-ml": 85.50,
    "2tree-omi-cr-cl": 85.81,
    "2tree-cr-ml": 85.53,
    "2tree-cr-cl": 85.73,
}

#: The classifiers of Table 1 (issue 6, item 4; TAN-RO-CR with one random order per
#: fold, the paper averages 1000). TAN-OMI-CRCL trains CL parameters for every
#: candidate parent (20 iterations each, Section 5.2): the slowest classifier here.
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
    "tan-omi-crcl-ml",
    "tan-omi-crcl-cl",
    "tan-cr-ml",
    "tan-cr-cl",
    "2tree-superparent-ml",
    "2tree-superparent-cl",
    "2tree-omi-cr-ml",
    "2tree-omi-cr-cl",
    "2tree-cr-ml",
    "2tree-cr-cl",
]

#: Pernkopf & Bilmes 2010, Table 8: TAN-OMI-CR-ML classification rate (%) per data set.
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


#: Test-set sizes of Pernkopf & Bilmes 2010, Table 7 (all samples for CV-5 sets, the test part for
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


def uci_experiment(data_dir: str | os.PathLike | None = None) -> Experiment:
    """Table 1 (column UCI) of Pernkopf & Bilmes 2010 on the Table 7 sets, every classifier of
    Table 1
    (see :data:`PERNKOPF_MODELS`)."""
    datasets = []
    for paper_name, name, protocol, rows, note in TABLE7:
        text = "CV-5" if protocol == "cv5" else f"split {len(protocol[0])}/{len(protocol[1])}"
        datasets.append(
            DatasetSpec(
                name=name,
                load=partial(load_uci, name, rows, data_dir),
                folds=partial(uci_folds, protocol),
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
        models={name: partial(paper_model, name) for name in PERNKOPF_MODELS},
        report=_report,
        settings={"seed": SEED, "alpha": 0.0, "epsilon": 1e-5, "discretizer": "mdl"},
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
    for params in ("ml", "cl"):
        crcl, cr = f"tan-omi-crcl-{params}", f"tan-omi-cr-{params}"
        if {crcl, cr} <= set(paper_weighted):
            ours = paper_weighted[crcl] - paper_weighted[cr]
            theirs = PAPER_TABLE1_UCI[crcl] - PAPER_TABLE1_UCI[cr]
            agree = "the same sign" if ours * theirs > 0 else "the opposite sign"
            lines.append(
                f"- CL parameters while choosing the parents (TAN-OMI-CRCL-{params.upper()} "
                f"against TAN-OMI-CR-{params.upper()}): {ours:+.2f} points here, "
                f"{theirs:+.2f} in the paper ({agree})."
            )
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
        "renormalised (Section 6.1), or CL by conjugate gradient with cross tuning on a "
        "20 % hold-out (Section 4.2); missing values (vote) are summed out exactly.",
        "- 2-trees: the paper regularises them by '5-fold cross validation on the training "
        "data to find the optimal classifier structure' (Section 6.5.2), without saying "
        "over what; here they are fitted as they are, the likely reason our 2-tree "
        "averages are below the paper's while the 1-tree ones match. pernkopf-2tree-cv "
        "runs them regularised (the search's length chosen by 5-fold CV on the training "
        "data) on these folds, beside these plain ones.",
        "- TAN-RO-CR uses one random order per fold (seeded); the paper averages 1000.",
        "- TAN-OMI-CRCL scores each candidate parent by the training classification "
        "rate of CL parameters trained for 20 conjugate-gradient iterations from ML "
        "(the paper does not say how many, nor whether it cross-tunes them there).",
        "",
    ]
    return lines


def _table8_gaps(
    rows_by_set: dict[str, dict[str, float]],
    sd_by_set: dict[str, dict[str, float]],
    n_test_by_set: dict[str, int],
    notes_by_set: dict[str, str],
) -> list[str]:
    """The sets where TAN-OMI-CR-ML differs from Table 8 beyond noise, each with what
    our other classifiers reach on it. Noise: twice the larger of our fold sd and the
    binomial sd of an accuracy on the set's test samples (a fixed split has no fold sd)."""
    lines = []
    for name, accuracy in rows_by_set.items():
        theirs = PAPER_TABLE8_OMI_CR.get(name)
        ours = accuracy["tan-omi-cr-ml"]
        binomial = 100 * np.sqrt(ours / 100 * (1 - ours / 100) / n_test_by_set[name])
        noise = 2 * max(sd_by_set[name]["tan-omi-cr-ml"], binomial)
        if theirs is None or abs(ours - theirs) <= noise:
            continue
        best = max(accuracy, key=lambda m: accuracy[m])
        ml = [m for m in accuracy if m.endswith("-ml") and not m.startswith("2tree")]
        best_ml = max(ml, key=lambda m: accuracy[m])
        reach = "within" if abs(accuracy[best_ml] - theirs) <= noise else "beyond"
        note = notes_by_set.get(name, "")
        cause = f"our data or protocol differ ({note})" if note else "not explained here"
        lines.append(
            f"- {name}: ours {ours:.2f} against the paper's {theirs:.2f} ({ours - theirs:+.2f} "
            f"points; noise {noise:.2f}); {cause}. Our best classifier on this set "
            f"is {best} at {accuracy[best]:.2f}; our best NB or 1-tree with ML parameters is "
            f"{best_ml} at {accuracy[best_ml]:.2f}, {reach} noise of the paper's number."
        )
    if not lines:
        return ["No set differs from Table 8 beyond noise.", ""]
    return [
        "Differences from Table 8 beyond noise (twice the larger of the fold sd and the "
        "binomial sd of the test accuracy), findings against the paper:",
        "",
        *lines,
        "",
    ]


def _table8(
    rows_by_set: dict[str, dict[str, float]],
    models: list[str],
    sd_by_set: dict[str, dict[str, float]] | None = None,
    n_test_by_set: dict[str, int] | None = None,
    notes_by_set: dict[str, str] | None = None,
) -> list[str]:
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
        "## TAN-OMI-CR-ML per data set, beside Pernkopf & Bilmes 2010, Table 8",
        "",
        markdown_table(["data set", "ours", "paper (Table 8)", "ours - paper"], table),
        "",
        f"Mean difference {np.mean(diffs):+.2f} points, mean absolute difference "
        f"{np.mean(np.abs(diffs)):.2f} over {len(diffs)} sets.",
        "",
        *(
            []
            if sd_by_set is None or n_test_by_set is None
            else _table8_gaps(rows_by_set, sd_by_set, n_test_by_set, notes_by_set or {})
        ),
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


def complete_models(records: list[dict], models: list[str]) -> tuple[list[str], list[str]]:
    """The models with every fold of every data set that has results, and (as lines
    for a report) the others, each with on how many sets it is complete. A model
    still being run is left out of the tables instead of taking the sets with it."""
    folds: dict[tuple[str, str], int] = {}
    for record in records:
        key = (record["dataset"], record["model"])
        folds[key] = folds.get(key, 0) + 1
    sets = sorted({d for d, _ in folds})
    expected = {d: max(n for (dd, _), n in folds.items() if dd == d) for d in sets}
    done = {m: sum(folds.get((d, m), 0) == expected[d] for d in sets) for m in models}
    complete = [m for m in models if done[m] == len(sets)]
    notes = [
        f"- {m}: complete on {done[m]} of {len(sets)} data sets so far; not in the tables."
        for m in models
        if m not in complete
    ]
    return complete, notes


def _report(records: list[dict], out_dir: Path, experiment: Experiment) -> None:
    write_json(
        records, out_dir / "results.json", experiment=experiment.name, settings=experiment.settings
    )
    models, partial = complete_models(records, list(experiment.models))
    records = [r for r in records if r["model"] in models]
    summary = summarise(records)
    specs = {d.name: d for d in experiment.datasets}
    rows = []
    per_model: dict[str, list[float]] = {m: [] for m in models}
    rows_by_set: dict[str, dict[str, float]] = {}
    sd_by_set: dict[str, dict[str, float]] = {}
    n_test_by_set: dict[str, int] = {}
    notes_by_set: dict[str, str] = {}
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
        sd_by_set[spec.paper_name] = {m: 100 * sub.loc[m, "sd"] for m in models}
        n_test_by_set[spec.paper_name] = n_test
        notes_by_set[spec.paper_name] = spec.note
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
        *(["Classifiers not run on every set yet:", "", *partial, ""] if partial else []),
        "## Averages",
        "",
        "Pernkopf & Bilmes 2010, Table 1 weights each data set by its test-set size. Our full "
        "shuttle set "
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
        f"{len(rows)} data sets ({len(TABLE7)} in Table 7 of the paper).",
        "",
        *_explanation(paper_weighted, models, specs),
        *_table8(rows_by_set, models, sd_by_set, n_test_by_set, notes_by_set),
        "## Paired tests over data sets (as Pernkopf & Bilmes 2010, Table 2)",
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
    lines += ["", *table2_comparison(per_model), *_structure_times(records, models)]
    (out_dir / "results.md").write_text("\n".join(lines) + "\n")
    grouped_bar_chart(summary, out_dir / "accuracy.png", title=experiment.name, xlabel="accuracy")


# ---------------------------------------------------------------------------- Table 2
#: Pernkopf & Bilmes 2010, Table 2 (25 UCI sets, ML parameters): the entries whose
#: direction the paper states in words ("TAN-OMI-CR, TAN-OMI-CRCL, and TAN-CR
#: significantly outperform ... TAN-CMI"; "TAN-CR and 2-tree-CR do not significantly
#: outperform ... TAN-OMI-CR and 2-tree-OMI-CR") and its NB-ML row (every structure
#: above NB, all p < 0.05): (better, worse) -> the paper's one-sided p-value. The other
#: entries' arrows did not survive the text extraction.
PAPER_TABLE2 = {
    ("tan-omi-cr-ml", "tan-cmi-ml"): 0.0154,
    ("tan-omi-crcl-ml", "tan-cmi-ml"): 0.0094,
    ("tan-cr-ml", "tan-cmi-ml"): 0.0141,
    ("tan-cr-ml", "tan-omi-cr-ml"): 0.190,
    ("2tree-cr-ml", "2tree-omi-cr-ml"): 0.195,
    ("tan-ro-cr-ml", "nb-ml"): 0.0300,
    ("tan-superparent-ml", "nb-ml"): 0.0232,
    ("tan-omi-cr-ml", "nb-ml"): 0.0242,
    ("tan-omi-crcl-ml", "nb-ml"): 0.0203,
    ("tan-cr-ml", "nb-ml"): 0.0154,
    ("2tree-superparent-ml", "nb-ml"): 0.0103,
    ("2tree-omi-cr-ml", "nb-ml"): 0.0316,
    ("2tree-cr-ml", "nb-ml"): 0.0317,
}


def table2_comparison(per_model: dict[str, list[float]], level: float = 0.05) -> list[str]:
    """Each stated entry of Table 2 beside ours (the same one-sided paired t-test over
    the sets, ``per_model``: rates per set in one order), and a sentence per entry
    whose verdict differs: significant in one and not the other, or reversed."""
    rows, disagreements = [], []
    for (better, worse), paper_p in PAPER_TABLE2.items():
        if better not in per_model or worse not in per_model:
            continue
        ours = paired_t_test(per_model[better], per_model[worse])
        mean_gap = float(np.mean(per_model[better]) - np.mean(per_model[worse]))
        same = (ours < level) == (paper_p < level)
        verdict = "agrees" if same else "disagrees"
        rows.append(
            [f"{better} > {worse}", f"{paper_p:.4f}", f"{ours:.4f}", f"{mean_gap:+.2f}", verdict]
        )
        if not same:
            if mean_gap < 0:
                what = f"reversed here: {better} is {-mean_gap:.2f} points below {worse} on average"
            elif ours < level:
                what = "significant here, not in the paper"
            else:
                what = "not significant here"
            disagreements.append(
                f"- {better} over {worse}: p = {ours:.4f} here against {paper_p:.4f} in the "
                f"paper ({what})."
            )
    if not rows:
        return []
    held = sum(r[-1] == "agrees" for r in rows)
    return [
        "## Table 2 of the paper beside ours",
        "",
        "The entries of Table 2 whose direction the paper states (its text and its NB-ML "
        "row), with the p-value of the same test here and the mean difference of the rates "
        "(points, unweighted over the sets; our 2-trees are the plain ones, the paper's "
        f"are regularised: see `pernkopf-2tree-cv`). Verdicts at {level:g}: {held} of "
        f"{len(rows)} agree.",
        "",
        markdown_table(["claim", "paper p", "our p", "mean difference", "verdict"], rows),
        "",
        *(["Disagreements:", "", *disagreements, ""] if disagreements else []),
    ]


# ---------------------------------------------------------------------------- Table 4
#: Pernkopf & Bilmes 2010, Table 4: structure-learning time relative to TAN-CR (%), UCI row (the 25
#: sets) and MNIST row.
PAPER_TABLE4 = {
    "UCI": {"tan-cmi-ml": 0.649, "tan-omi-cr-ml": 3.155},
    "MNIST": {"tan-cmi-ml": 0.21, "tan-omi-cr-ml": 2.23},
}
_RUNTIME_MODELS = ["tan-cmi-ml", "tan-omi-cr-ml", "tan-cr-ml"]


def _warm_up() -> None:
    """Compile the numba kernels before anything is timed (run with ``--n-jobs 1`` so
    the timed fits run in this process)."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.integers(0, 3, size=(60, 4)))
    y = rng.integers(0, 2, size=60)
    for name in _RUNTIME_MODELS:
        make_classifier(name).fit(X, y).predict(X)


def runtime_experiment(data_dir: str | os.PathLike | None = None) -> Experiment:
    """Pernkopf & Bilmes 2010, Table 4: structure-learning time of TAN-CMI and TAN-OMI-CR relative
    to
    TAN-CR on the same folds in the same run: the UCI sets of Table 7, optdigits (64
    features, its original 3823/1797 split) and MNIST as the paper prepares it (14 x 14
    block means, 60000/10000; TAN-CR takes about an hour there on one core)."""
    from .pernkopf_images import image_folds, load_images

    _warm_up()
    base = uci_experiment(data_dir)
    datasets = list(base.datasets)
    datasets.append(
        DatasetSpec(
            name="optdigits",
            load=partial(load_uci, "optdigits", None, data_dir),
            folds=partial(uci_folds, (range(0, 3823), range(3823, 5620))),
            protocol="split 3823/1797",
            note="64 features (the paper's MNIST row used 196)",
            paper_name="OPTDIGITS",
        )
    )
    datasets.append(
        DatasetSpec(
            name="mnist-14x14",
            load=partial(load_images, "MNIST", data_dir),
            folds=partial(image_folds, "MNIST", data_dir),
            protocol="split 60000/10000",
            note="14 x 14 block means, MDL discretisation (Section 6.2.5)",
            paper_name="MNIST",
        )
    )
    return Experiment(
        name="pernkopf-runtime",
        description=(
            "Pernkopf & Bilmes (2010), Table 4: time to learn the structure of TAN-CMI and "
            "TAN-OMI-CR relative to TAN-CR (greedy hill climbing on the classification "
            "rate with both speed-ups), same data, same folds, same run; with the "
            "accuracies of the three."
        ),
        datasets=datasets,
        models={name: partial(paper_model, name) for name in _RUNTIME_MODELS},
        report=_runtime_report,
        settings=dict(base.settings),
    )


def _runtime_report(records: list[dict], out_dir: Path, experiment: Experiment) -> None:
    write_json(
        records, out_dir / "results.json", experiment=experiment.name, settings=experiment.settings
    )
    frame = pd.DataFrame(records)
    specs = {d.name: d for d in experiment.datasets}
    rows = []
    totals = {"UCI": dict.fromkeys(_RUNTIME_MODELS, 0.0)}
    accuracy: dict[str, list[float]] = {m: [] for m in _RUNTIME_MODELS}
    evaluations = {"tan-omi-cr-ml": 0.0, "tan-cr-ml": 0.0}
    reads = {"UCI": {"tan-omi-cr-ml": 0.0, "tan-cr-ml": 0.0}}
    weights = []
    for name, spec in specs.items():
        sub = frame[frame["dataset"] == name]
        if set(sub["model"]) != set(_RUNTIME_MODELS):
            continue
        seconds = {
            m: float(sub[sub["model"] == m]["structure_seconds"].sum()) for m in _RUNTIME_MODELS
        }
        group = "UCI" if spec.paper_name in PAPER_TEST_SIZES else spec.paper_name
        read = {}
        for m in ("tan-omi-cr-ml", "tan-cr-ml"):
            of_model = sub[sub["model"] == m]
            if "score_evaluations" in sub:
                evaluations[m] += float(of_model["score_evaluations"].fillna(0).sum())
            read[m] = float(of_model["rows_scored"].fillna(0).sum()) if "rows_scored" in sub else 0
            reads.setdefault(group, {"tan-omi-cr-ml": 0.0, "tan-cr-ml": 0.0})
            reads[group][m] += read[m]
        acc = {m: 100 * float(sub[sub["model"] == m]["accuracy"].mean()) for m in _RUNTIME_MODELS}
        totals.setdefault(group, dict.fromkeys(_RUNTIME_MODELS, 0.0))
        for m in _RUNTIME_MODELS:
            totals[group][m] += seconds[m]
        if group == "UCI":
            weights.append(PAPER_TEST_SIZES[spec.paper_name])
            for m in _RUNTIME_MODELS:
                accuracy[m].append(acc[m])
        cr = seconds["tan-cr-ml"]
        rows.append(
            [
                spec.paper_name,
                *[f"{seconds[m]:.2f}" for m in _RUNTIME_MODELS],
                f"{cr / max(seconds['tan-omi-cr-ml'], 1e-9):.1f}",
                f"{read['tan-cr-ml'] / max(read['tan-omi-cr-ml'], 1):.1f}",
                *[f"{acc[m]:.2f}" for m in _RUNTIME_MODELS],
            ]
        )
    summary_rows = []
    verdicts = []
    for group, t in totals.items():
        cr = t["tan-cr-ml"]
        if cr <= 0:
            continue
        paper = PAPER_TABLE4.get(group, {})
        speedup = cr / max(t["tan-omi-cr-ml"], 1e-9)
        r = reads.get(group, {})
        read_ratio = r.get("tan-cr-ml", 0.0) / max(r.get("tan-omi-cr-ml", 0.0), 1.0)
        summary_rows.append(
            [
                group,
                f"{100 * t['tan-cmi-ml'] / cr:.2f}%",
                f"{100 * t['tan-omi-cr-ml'] / cr:.2f}%",
                "100.00%",
                f"{speedup:.1f}x",
                f"{read_ratio:.1f}x",
                ", ".join(f"{m}: {v:.2f}%" for m, v in paper.items()),
            ]
        )
        verdicts.append((group, speedup))
    w = np.asarray(weights, dtype=float)
    mean_acc = {m: float(np.average(accuracy[m], weights=w)) for m in _RUNTIME_MODELS}
    gap = mean_acc["tan-cr-ml"] - mean_acc["tan-omi-cr-ml"]
    lines = [
        f"# {experiment.name}",
        "",
        experiment.description,
        "",
        "## Structure-learning time relative to TAN-CR (Table 4)",
        "",
        markdown_table(
            [
                "data",
                "TAN-CMI",
                "TAN-OMI-CR",
                "TAN-CR",
                "TAN-OMI-CR speed-up",
                "samples read, CR / OMI-CR",
                "paper (Table 4)",
            ],
            summary_rows,
        ),
        "",
        "Times are sums over every fold of each group's data sets (structure search only: "
        "the CMI tree, or the ordering plus parent selection, or the greedy search; "
        "discretisation and parameters excluded).",
        "",
        f"Score evaluations over all data sets and folds: TAN-CR {evaluations['tan-cr-ml']:.0f}, "
        f"TAN-OMI-CR {evaluations['tan-omi-cr-ml']:.0f} "
        f"({evaluations['tan-cr-ml'] / max(evaluations['tan-omi-cr-ml'], 1):.1f} times as "
        "many for TAN-CR: the O(N^3) against O(N^2) evaluations of Section 5.2). An "
        "evaluation reads the training samples in order of their margin (misclassified "
        "first) and stops once it cannot beat the best score so far (speed-up 1); the "
        "column 'samples read' counts the (candidate, sample) pairs both searches read. "
        "TAN-CR's thresholds rise within each iteration, so most of its evaluations stop "
        "early, while TAN-OMI-CR compares a node's candidates with the current score "
        "(and one leader scored to the end): the time ratio follows the samples-read "
        "ratio, not the evaluation ratio, less TAN-OMI-CR's fixed costs (pair tables, "
        "the ordering's histograms). On sets with few attributes (iris 4, pima 8, "
        "shuttle 9) the O(N^3) / O(N^2) gap itself is small.",
        "",
        "Check against the targets (10x faster, accuracy within 0.5 points): "
        + "; ".join(
            f"{g}: TAN-OMI-CR {s:.1f}x faster than TAN-CR ({'>=' if s >= 10 else '<'} 10x)"
            for g, s in verdicts
        )
        + f". Average accuracy over the UCI sets (paper's test-size weights): TAN-CR "
        f"{mean_acc['tan-cr-ml']:.2f}, TAN-OMI-CR {mean_acc['tan-omi-cr-ml']:.2f}, TAN-CMI "
        f"{mean_acc['tan-cmi-ml']:.2f}; TAN-OMI-CR is {abs(gap):.2f} points "
        f"{'below' if gap > 0 else 'above'} TAN-CR "
        f"({'within' if abs(gap) <= 0.5 else 'not within'} 0.5).",
        "",
        "## Per data set",
        "",
        markdown_table(
            [
                "data set",
                *[f"{m} (s)" for m in _RUNTIME_MODELS],
                "CR / OMI-CR",
                "samples read, CR / OMI-CR",
                *[f"{m} acc. (%)" for m in _RUNTIME_MODELS],
            ],
            rows,
        ),
        "",
    ]
    (out_dir / "results.md").write_text("\n".join(lines))
