"""Reproductions of the boosting experiments of Tan et al. (2010), Section V-D."""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from discotree.classifiers import BoostedGraphicalModelClassifier
from discotree.datasets.synthetic import random_grid_model, sample_grid_pair

from .harness.metrics import paired_t_test
from .harness.report import markdown_table, write_results

__all__ = ["bgmc_experiment", "boosting_curves_reproduction", "grid_reproduction"]

CURVES_T = 40
CURVES_L = 500
CURVES_REPEATS = 5
GRID_L = 1200
GRID_T = 20
GRID_TEST = 4000
GRID_COUPLING = 0.2


def _staged_errors(model, X, y) -> list[float]:
    return [float(np.mean(p != y)) for p in model.staged_predict(X)]


def _pad(values: list[float], length: int) -> list[float]:
    """An ensemble that stopped early keeps its last value."""
    return values + [values[-1]] * (length - len(values))


def run_boosting_curves(
    out_dir: str | os.PathLike, *, data_dir=None, n_jobs: int = 1, progress: bool = False
) -> dict:
    """``tan-boosting-curves``: Tan et al. 2010, Fig. 7, MNIST 7 vs 9 (binarised), L = 500.

    Training and test error against the number of rounds T for boosted Chow-Liu and
    discriminative trees with Discrete- and Real-AdaBoost, averaged over
    ``CURVES_REPEATS`` random training sets of L samples (test: the MNIST test images
    of the two digits).
    """
    from .tan import binarised_mnist

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    X_pool, y_pool = binarised_mnist(data_dir, (7, 9), part="train")
    X_test, y_test = binarised_mnist(data_dir, (7, 9), part="test")
    configs = {
        f"{base}-{algorithm}": (base, algorithm)
        for base in ("dt", "chow-liu")
        for algorithm in ("discrete", "real")
    }
    curves: dict[str, dict[str, list[Any]]] = {name: {"train": [], "test": []} for name in configs}
    for r in range(CURVES_REPEATS):
        rows = np.random.default_rng(r).choice(len(y_pool), CURVES_L, replace=False)
        X, y = X_pool.iloc[rows], y_pool.iloc[rows].to_numpy()
        for name, (base, algorithm) in configs.items():
            model = BoostedGraphicalModelClassifier(
                base=base,
                algorithm=algorithm,
                n_estimators=CURVES_T,
                init="zero",
                calibration="none",
            ).fit(X, y)
            curves[name]["train"].append(_pad(_staged_errors(model, X, y), CURVES_T))
            curves[name]["test"].append(
                _pad(_staged_errors(model, X_test, y_test.to_numpy()), CURVES_T)
            )
    summary: dict[str, Any] = {
        name: {part: np.mean(values, axis=0).tolist() for part, values in parts.items()}
        for name, parts in curves.items()
    }
    write_results(
        out_dir / "results.json",
        {
            "experiment": "tan-boosting-curves",
            "L": CURVES_L,
            "T": CURVES_T,
            "repeats": CURVES_REPEATS,
            "mean_error": summary,
            "runs": curves,
        },
        indent=1,
    )
    _plot_curves(summary, out_dir)
    rounds = [1, 2, 5, 10, 20, CURVES_T]
    table = [
        [name, part, *(f"{summary[name][part][t - 1]:.4f}" for t in rounds)]
        for name in configs
        for part in ("train", "test")
    ]

    def final(name: str) -> float:
        return summary[name]["test"][-1]

    real_vs_discrete = "; ".join(
        f"{b}: real {final(f'{b}-real'):.4f}, discrete {final(f'{b}-discrete'):.4f}"
        for b in ("dt", "chow-liu")
    )
    dt_vs_cl = "; ".join(
        f"{a}: DT {final(f'dt-{a}'):.4f}, Chow-Liu {final(f'chow-liu-{a}'):.4f}"
        for a in ("real", "discrete")
    )
    gain = {b: summary[f"{b}-real"]["test"][0] - final(f"{b}-real") for b in ("dt", "chow-liu")}
    claims = [
        (f"{b}: Real beats Discrete-AdaBoost", f"{b}-real", f"{b}-discrete")
        for b in ("dt", "chow-liu")
    ] + [(f"{a}: DT beats Chow-Liu", f"dt-{a}", f"chow-liu-{a}") for a in ("real", "discrete")]
    lines = [
        "# tan-boosting-curves",
        "",
        f"Tan et al. (2010), Fig. 7: MNIST 7 vs 9, pixels > 0 set to 1, L = {CURVES_L} "
        f"random training images (mean of {CURVES_REPEATS} draws), test on the "
        f"{len(y_test)} test images of the two digits; error after T rounds.",
        "",
        markdown_table(["model", "error", *(f"T={t}" for t in rounds)], table),
        "",
        f"- Test error at T = {CURVES_T}, Real against Discrete-AdaBoost (the paper: Real "
        f"is better): {real_vs_discrete}.",
        f"- Test error at T = {CURVES_T}, discriminative trees against Chow-Liu (the paper: "
        f"DT is better): {dt_vs_cl}.",
        f"- Boosting lowers the test error of one tree pair (T = 1 to T = {CURVES_T}, "
        f"Real-AdaBoost) by {gain['dt']:.4f} (DT) and {gain['chow-liu']:.4f} (Chow-Liu).",
        "",
        f"The paper's claims at T = {CURVES_T}, checked on the {CURVES_REPEATS} paired draws "
        "(mean test-error difference, and whether it exceeds twice its standard error):",
        "",
        *(_claim_verdict(text, curves[a]["test"], curves[b]["test"]) for text, a, b in claims),
        "",
        "Figure: `error_vs_rounds.png`.",
        "",
    ]
    (out_dir / "results.md").write_text("\n".join(lines))
    return summary


def _claim_verdict(claim: str, first: list, second: list) -> str:
    """``claim`` ("the first has the lower final test error") against paired draws:
    holds, holds within noise, goes against the paper, or against it within noise."""
    diff = np.array([a[-1] - b[-1] for a, b in zip(first, second, strict=True)])
    mean = float(diff.mean())
    se = float(diff.std(ddof=1) / np.sqrt(len(diff))) if len(diff) > 1 else float("inf")
    clear = abs(mean) > 2 * se
    if mean < 0:
        verdict = "agrees with the paper" if clear else "agrees, but within the noise"
    else:
        verdict = (
            "**goes against the paper**" if clear else "goes against the paper, within the noise"
        )
    return f"- {claim}: difference {mean:+.4f} (standard error {se:.4f}): {verdict}."


def _plot_curves(summary: dict, out_dir: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), sharey=True)
    for ax, part in zip(axes, ("train", "test"), strict=True):
        for name, values in summary.items():
            ax.plot(np.arange(1, len(values[part]) + 1), values[part], label=name)
        ax.set(xlabel="T (boosting rounds)", title=f"{part} error", yscale="log")
    axes[0].set_ylabel("Pr(err)")
    axes[0].legend()
    fig.tight_layout()
    fig.savefig(out_dir / "error_vs_rounds.png", dpi=120)
    plt.close(fig)


def run_grid(
    out_dir: str | os.PathLike,
    *,
    data_dir=None,
    n_jobs: int = 1,
    progress: bool = False,
    seed: int = 0,
) -> dict:
    """``tan-grid``: Tan et al. 2010, Section V-D1, two random 10 x 10 binary grid models.

    L = 1200 training samples (600 per class) and 4000 test samples, drawn exactly.
    The paper gives no parameter ranges. We draw only couplings, uniform in
    [-0.2, 0.2], and no fields, so that every node is uniform in both classes and all
    discriminative information is pairwise; with couplings in [-1, 1] one tree pair
    already separates the classes perfectly.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    p = random_grid_model(field_scale=0.0, coupling_scale=GRID_COUPLING, random_state=seed)
    q = random_grid_model(field_scale=0.0, coupling_scale=GRID_COUPLING, random_state=seed + 1)

    def draw(n):
        X, y = sample_grid_pair(q, p, n, rng)
        return X, y.to_numpy()

    X, y = draw(GRID_L)
    X_test, y_test = draw(GRID_TEST)
    cv = BoostedGraphicalModelClassifier(
        n_estimators=GRID_T, n_estimators_cv=5, init="zero", calibration="none"
    ).fit(X, y)
    full = BoostedGraphicalModelClassifier(n_estimators=GRID_T, init="zero", calibration="none")
    full.fit(X, y)
    true_edges = set(p.edges())
    union_q, union_p = (set(e) for e in cv.edges_union_)
    summary: dict[str, Any] = {
        "experiment": "tan-grid",
        "L": GRID_L,
        "T_star": int(cv.n_estimators_),
        "distinct_edges_union": {"q": len(union_q), "p": len(union_p)},
        "true_grid_edges": len(true_edges),
        "grid_edges_found": {"q": len(union_q & true_edges), "p": len(union_p & true_edges)},
        "test_error_by_T": _pad(_staged_errors(full, X_test, y_test), GRID_T),
        "train_error_by_T": _pad(_staged_errors(full, X, y), GRID_T),
        "test_error_T_star": float(np.mean(cv.predict(X_test) != y_test)),
    }
    write_results(out_dir / "results.json", summary, indent=1)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 3.5))
    ax.plot(range(1, GRID_T + 1), summary["train_error_by_T"], label="train")
    ax.plot(range(1, GRID_T + 1), summary["test_error_by_T"], label="test")
    ax.axvline(summary["T_star"], linestyle=":", color="grey", label="T* (CV)")
    ax.set(xlabel="T", ylabel="Pr(err)", title="BGMC on two 10x10 grids")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out_dir / "error_vs_rounds.png", dpi=120)
    plt.close(fig)
    errors = summary["test_error_by_T"]
    lines = [
        "# tan-grid",
        "",
        "Tan et al. (2010), Section V-D1: two 10 x 10 binary grid models with random "
        f"parameters, sampled exactly; L = {GRID_L}, BGMC with T* chosen by 5-fold CV "
        f"(searched up to {GRID_T}). Our parameters: no fields, couplings uniform in "
        f"[-{GRID_COUPLING}, {GRID_COUPLING}] (the paper gives no ranges; with [-1, 1] "
        "one tree pair separates the classes perfectly).",
        "",
        markdown_table(
            ["quantity", "ours", "paper"],
            [
                ["T* by cross-validation", summary["T_star"], 3],
                [
                    "distinct edges in the union (q, p)",
                    f"{len(union_q)}, {len(union_p)}",
                    "187, 180",
                ],
                [
                    "true grid edges",
                    len(true_edges),
                    "162 (the paper's 2 x 9^2; a 10 x 10 grid has 2 x 10 x 9 = 180)",
                ],
                [
                    "true grid edges among the union (q, p)",
                    f"{summary['grid_edges_found']['q']}, {summary['grid_edges_found']['p']}",
                    "not reported",
                ],
                ["test error at T*", f"{summary['test_error_T_star']:.4f}", "(figure only)"],
            ],
        ),
        "",
        markdown_table(
            ["T", *map(str, range(1, GRID_T + 1))], [["test error", *(f"{e:.3f}" for e in errors)]]
        ),
        "",
        "Figure: `error_vs_rounds.png`.",
        "",
    ]
    (out_dir / "results.md").write_text("\n".join(lines))
    return summary


def boosting_curves_reproduction(data_dir=None):
    """Tan et al. 2010, Fig. 7: boosting curves on MNIST 7 vs 9 (L = 500)."""
    return partial(run_boosting_curves, data_dir=data_dir)


def grid_reproduction(data_dir=None):
    """Tan et al. 2010, Section V-D1: BGMC on two random 10 x 10 grid models."""
    return partial(run_grid, data_dir=data_dir)


# ------------------------------------------------------------------------ Fig. 8
BGMC_SIZES = (100, 200, 400, 800)
#: Random 80/20 partitions per problem: the paper's 100 ("averaging over 100 randomly
#: partitioned training-test sets") where a fit takes well under a second; 5 on the
#: MNIST pairs, whose 5 partitions already take 4-5 minutes (100: about 1.5 hours each).
BGMC_REPEATS = {
    "chess": 100,
    "optdigits-3-vs-8": 100,
    "pendigits-4-vs-9": 100,
    "mnist-7-vs-9": 5,
    "mnist-4-vs-9": 5,
    "grid": 100,
}
BGMC_MODELS = ("bgmc", "bcl", "btan", "svm-quad")
#: Binary problems (dataset, classes kept). The paper does not say which digit pairs it
#: used; these are commonly confused pairs.
BGMC_PROBLEMS = {
    "chess": ("chess", None),
    "optdigits-3-vs-8": ("optdigits", (3, 8)),
    "pendigits-4-vs-9": ("pendigits", (4, 9)),
    "mnist-7-vs-9": ("mnist", (7, 9)),
    "mnist-4-vs-9": ("mnist", (4, 9)),
    "grid": ("grid", None),
}


def _bgmc_load(problem: str, data_dir):
    from .harness.data_folder import load_dataset

    name, classes = BGMC_PROBLEMS[problem]
    if name == "grid":
        rng = np.random.default_rng(0)
        p = random_grid_model(field_scale=0.0, coupling_scale=GRID_COUPLING, random_state=0)
        q = random_grid_model(field_scale=0.0, coupling_scale=GRID_COUPLING, random_state=1)
        return sample_grid_pair(q, p, 4000, rng)
    if name == "mnist":
        from .tan import binarised_mnist

        return binarised_mnist(data_dir, classes, part="train")
    X, y = load_dataset(name, data_dir)
    if classes is not None:
        keep = y.isin(classes).to_numpy()
        X, y = X[keep].reset_index(drop=True), y[keep].reset_index(drop=True)
    return X, y


def _bgmc_model(name: str):
    from discotree.registry import make_classifier

    if name == "svm-quad":
        return make_classifier(name)
    return make_classifier(name, n_estimators=10, n_estimators_cv=3)


def bgmc_experiment(data_dir=None):
    """Tan et al. 2010, Fig. 8: BGMC, BCL, BTAN and a quadratic SVM against L."""
    from .harness.protocols import learning_curve
    from .harness.runner import DatasetSpec, Experiment

    datasets = [
        DatasetSpec(
            name=problem,
            load=partial(_bgmc_load, problem, data_dir),
            folds=partial(
                learning_curve,
                train_sizes=BGMC_SIZES,
                n_repeats=BGMC_REPEATS[problem],
                test_fraction=0.2,
                seed=0,
            ),
            protocol=f"{BGMC_REPEATS[problem]} random 80/20 partitions, first L of the 80%",
        )
        for problem in BGMC_PROBLEMS
    ]
    return Experiment(
        name="tan-bgmc",
        description=(
            "Tan et al. (2010), Fig. 8: Pr(err) against the number of training samples L "
            "for BGMC, boosted Chow-Liu (BCL), boosted TAN (BTAN), each with T <= 10 "
            "rounds chosen by 3-fold CV, and an SVM with the quadratic kernel (C chosen "
            "on 20% of the training samples)."
        ),
        datasets=datasets,
        models={m: partial(_bgmc_model, m) for m in BGMC_MODELS},
        report=_bgmc_report,
        settings={"sizes": BGMC_SIZES, "repeats": BGMC_REPEATS, "T": 10, "cv": 3},
    )


def _bgmc_report(records: list[dict], out_dir: Path, experiment) -> None:
    from .harness.report import write_json

    write_json(
        records, out_dir / "results.json", experiment=experiment.name, settings=experiment.settings
    )
    frame = pd.DataFrame(records)
    frame["error"] = 1 - frame["accuracy"]
    summary = frame.groupby(["dataset", "train_size", "model"])["error"].agg(["mean", "std"])
    problems = list(dict.fromkeys(frame["dataset"]))
    rows, claims = [], []
    for problem in problems:
        for size in BGMC_SIZES:
            rows.append(
                [
                    problem,
                    size,
                    *(
                        f"{summary.loc[(problem, size, m), 'mean']:.4f} ± "
                        f"{summary.loc[(problem, size, m), 'std']:.4f}"
                        for m in BGMC_MODELS
                    ),
                ]
            )
        mean = {m: summary.loc[problem].xs(m, level="model")["mean"] for m in BGMC_MODELS}
        wins_btan = int((mean["bgmc"] < mean["btan"]).sum())
        wins_bcl = int((mean["bgmc"] < mean["bcl"]).sum())
        gap_svm = float((mean["bgmc"] - mean["svm-quad"]).mean())
        paired = frame[frame["dataset"] == problem].pivot_table(
            index=["train_size", "fold"], columns="model", values="error"
        )
        tests = []
        for size in BGMC_SIZES:
            sub = paired.loc[size]
            tests.append(
                (
                    paired_t_test(sub["btan"], sub["bgmc"]),  # BGMC's error is lower
                    paired_t_test(sub["bgmc"], sub["btan"]),  # BTAN's error is lower
                )
            )
        significant = sum(p < 0.05 for p, _ in tests)
        against = sum(q < 0.05 for _, q in tests)
        n_partitions = len(paired.loc[BGMC_SIZES[0]])
        claims.append(
            f"- {problem} ({n_partitions} partitions): BGMC below BTAN at {wins_btan} of "
            f"{len(BGMC_SIZES)} sizes "
            f"({'holds' if wins_btan == len(BGMC_SIZES) else 'does not hold everywhere'}; "
            f"significantly, one-sided paired t-test p < 0.05, at {significant}; BTAN "
            f"significantly below BGMC at {against}: p = "
            + ", ".join(f"{q:.3g}" for _, q in tests)
            + f" for L = {', '.join(map(str, BGMC_SIZES))}), below BCL at {wins_bcl}; mean "
            f"difference to the SVM {gap_svm:+.4f} "
            f"({'BGMC better' if gap_svm < 0 else 'SVM better'})."
        )
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(problems), figsize=(3.3 * len(problems), 3.2))
    for ax, problem in zip(np.atleast_1d(axes), problems, strict=True):
        for m in BGMC_MODELS:
            sub = summary.loc[problem].xs(m, level="model")
            ax.plot(sub.index, sub["mean"], marker="o", label=m)
        ax.set(xscale="log", title=problem, xlabel="L")
    np.atleast_1d(axes)[0].set_ylabel("Pr(err)")
    np.atleast_1d(axes)[0].legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(out_dir / "error_vs_l.png", dpi=110)
    plt.close(fig)
    lines = [
        "# tan-bgmc",
        "",
        experiment.description,
        "",
        "Data: chess (kr-vs-kp), optdigits 3 vs 8, pendigits 4 vs 9, MNIST 7 vs 9 and 4 vs 9 "
        "(pixels > 0 set to 1), and the two grid models of `tan-grid` (4000 samples). The "
        "paper does not say which digit pairs it used; ours are commonly confused pairs. "
        "Numeric columns with more than 10 values are discretised into 5 quantile bins "
        "(the library default) for the graphical models; the SVM sees them as numbers.",
        "",
        "Against the paper's protocol: it averages 100 random partitions of the sets "
        "without a test set; here "
        + ", ".join(f"{p} {BGMC_REPEATS[p]}" for p in problems)
        + " (the MNIST pairs are 5 for time: 4-5 minutes per 5 partitions). Its Fig. 8 "
        "has five UCI sets (the text names Chess, Optdigits and Pendigits), three MNIST "
        "pairs and the grid; here three UCI sets and two MNIST pairs.",
        "",
        "## The paper's claim: BGMC is better than boosted TAN on every dataset and "
        "compares well with the SVM",
        "",
        *claims,
        "",
        markdown_table(["dataset", "L", *BGMC_MODELS], rows),
        "",
        "Figure: `error_vs_l.png`.",
        "",
    ]
    (out_dir / "results.md").write_text("\n".join(lines))
