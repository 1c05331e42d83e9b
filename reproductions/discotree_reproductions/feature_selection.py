"""``narasimhan-feature-selection``: feature selection under a submodular cost
(Narasimhan & Bilmes 2005, Section 2.1) on a real data set.

The paper proposes the application without an experiment. Here: Landsat satimage (36
features = 3 x 3 pixels x 4 spectral bands, the UCI train/test split), where reading a
spectral band is the shared computation: a band costs 1 whatever number of its nine
pixels is used, plus 0.02 per feature (a ``GroupCost``). For a range of exchange
rates k, the selector picks the set minimising ``k c(S) - I(X_S; C)``; TAN and
naive Bayes are then trained on the selected columns and tested. Beside it: the same
selector with a per-feature cost (1/9 per feature, so that nine features cost one
band), and every single band alone.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np

from discotree.classifiers import NaiveBayesClassifier, TANClassifier
from discotree.feature_selection import GroupCost, SubmodularFeatureSelector

from .harness.data_folder import load_real, npz_split
from .harness.report import markdown_table, report_opening, write_results
from .harness.runner import reproduction

__all__ = ["feature_selection_reproduction", "run_feature_selection"]

COST_WEIGHTS = (0.02, 0.05, 0.1, 0.2, 0.4, 0.8)
N_BANDS = 4
N_RESTARTS = 2


def band_cost(n_features: int = 36) -> GroupCost:
    """One group per spectral band (feature f is band ``f % 4``), cost 1 each, plus
    0.02 per feature."""
    groups = [[f for f in range(n_features) if f % N_BANDS == b] for b in range(N_BANDS)]
    return GroupCost(groups, group_costs=1.0, feature_costs=0.02)


def _accuracies(X, y, train, test, columns) -> dict:
    out = {}
    for name, model in (("tan", TANClassifier()), ("nb", NaiveBayesClassifier())):
        model.fit(X.iloc[train, columns], y.iloc[train])
        out[name] = float(model.score(X.iloc[test, columns], y.iloc[test]))
    return out


def _one_setting(X, y, train, test, cost_name: str, k: float) -> dict:
    cost = band_cost(X.shape[1]) if cost_name == "bands" else np.full(X.shape[1], 1 / 9)
    start = time.perf_counter()
    selector = SubmodularFeatureSelector(cost, cost_weight=k, n_restarts=N_RESTARTS)
    selector.fit(X.iloc[train], y.iloc[train])
    seconds = time.perf_counter() - start
    columns = np.flatnonzero(selector.support_).tolist()
    return {
        "cost": cost_name,
        "k": k,
        "features": columns,
        "bands": sorted({c % N_BANDS for c in columns}),
        "band_cost": band_cost(X.shape[1])(columns),
        "information": selector.information_,
        "seconds": seconds,
        **_accuracies(X, y, train, test, columns),
    }


def run_feature_selection(
    out_dir: str | os.PathLike, *, data_dir=None, n_jobs: int = 1, progress: bool = False
) -> dict:
    """Run the experiment and write ``results.md`` and ``results.json``."""
    from joblib import Parallel, delayed

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    X, y = load_real("satimage", data_dir)
    split = npz_split("satimage", data_dir)
    if split is None:
        train, test = np.arange(4435), np.arange(4435, len(y))  # the UCI split (MANIFEST)
    else:
        train, test = np.asarray(split[0]), np.asarray(split[1])
    settings = [(c, k) for c in ("bands", "per-feature") for k in COST_WEIGHTS]
    records = Parallel(n_jobs=n_jobs)(
        delayed(_one_setting)(X, y, train, test, c, k) for c, k in settings
    )
    everything = list(range(X.shape[1]))
    reference = {
        "all": {
            **_accuracies(X, y, train, test, everything),
            "band_cost": band_cost(X.shape[1])(everything),
        }
    }
    for b in range(N_BANDS):
        columns = [f for f in everything if f % N_BANDS == b]
        reference[f"band {b}"] = {
            **_accuracies(X, y, train, test, columns),
            "band_cost": band_cost(X.shape[1])(columns),
        }
    full = SubmodularFeatureSelector(cost_weight=0.0).fit(X.iloc[train], y.iloc[train])
    summary = {
        "experiment": "narasimhan-feature-selection",
        "records": records,
        "reference": reference,
        "information_all_features": full.information_,
        "class_entropy": float(_class_entropy(np.asarray(y.iloc[train]))),
    }
    write_results(out_dir / "results.json", summary, indent=1)
    (out_dir / "results.md").write_text(_report(summary))
    return summary


def _class_entropy(y) -> float:
    _, counts = np.unique(y, return_counts=True)
    p = counts / counts.sum()
    return float(-(p * np.log(p)).sum())


def _report(summary: dict) -> str:
    rows = [
        [
            r["cost"],
            r["k"],
            len(r["features"]),
            ", ".join(str(b) for b in r["bands"]),
            f"{r['band_cost']:.2f}",
            f"{r['information']:.3f}",
            f"{r['tan']:.3f}",
            f"{r['nb']:.3f}",
            f"{r['seconds']:.1f}",
        ]
        for r in summary["records"]
    ]
    reference = [
        [name, f"{r['band_cost']:.2f}", f"{r['tan']:.3f}", f"{r['nb']:.3f}"]
        for name, r in summary["reference"].items()
    ]
    bands = [r for r in summary["records"] if r["cost"] == "bands"]
    per_feature = [r for r in summary["records"] if r["cost"] == "per-feature"]
    fewer = sum(len(b["bands"]) < len(p["bands"]) for b, p in zip(bands, per_feature, strict=True))
    slowest = max(summary["records"], key=lambda r: r["seconds"])
    best_band = max(
        (v["tan"], name) for name, v in summary["reference"].items() if name.startswith("band")
    )
    lines = [
        *report_opening("narasimhan-feature-selection", __doc__),
        "Information is the plug-in I(X_S; C) in nats on the 4435 training rows "
        "(numeric columns in the library's default quantile bins); accuracy on the 2000 "
        "test rows. Band cost: the cost of the selected set under the band model, for "
        f"both selectors. Algorithm 1 with {N_RESTARTS} restarts.",
        "",
        markdown_table(
            [
                "cost model",
                "k",
                "features",
                "bands",
                "band cost",
                "I(X_S; C)",
                "TAN accuracy",
                "NB accuracy",
                "seconds",
            ],
            rows,
        ),
        "",
        "Reference sets:",
        "",
        markdown_table(["features", "band cost", "TAN accuracy", "NB accuracy"], reference),
        "",
        "## What it shows",
        "",
        f"- With the band cost, the selection uses fewer bands than with a per-feature "
        f"cost of the same total in {fewer} of {len(bands)} settings of k: the economy of "
        "scale makes the selector take more pixels of a band it already pays for.",
        f"- The best single band for TAN is {best_band[1]} ({best_band[0]:.3f}); all 36 "
        f"features give {summary['reference']['all']['tan']:.3f}. The spectral signature "
        "needs several bands: the per-feature selector, free to spread over the bands, "
        "is as accurate with fewer features, at a higher band cost.",
        f"- Time per selection: {min(r['seconds'] for r in summary['records']):.0f} to "
        f"{slowest['seconds']:.0f} s (2 cores, two selections at a time; the slowest: "
        f"{slowest['cost']} costs at k = {slowest['k']}).",
        f"- The plug-in information saturates: all 36 features reach "
        f"{summary['information_all_features']:.3f} nats against H(C) = "
        f"{summary['class_entropy']:.3f}, and sets of about ten binned features already "
        "come close (most of their configurations occur once in the training rows). "
        "The selector therefore buys the cheapest set that nearly identifies the "
        "training rows, which is not the set that generalises best; a held-out or "
        "smoothed estimate of g would be a better measure for selection (not in the "
        "paper, which leaves g open).",
        "",
    ]
    return "\n".join(lines)


feature_selection_reproduction = reproduction(
    run_feature_selection,
    "Narasimhan & Bilmes 2005, Section 2.1: feature selection on satimage under a band cost.",
)
