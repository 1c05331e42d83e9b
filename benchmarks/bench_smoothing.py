"""Smoothing chosen from the data (issues 16 and 34): fixed alphas against alpha="auto", BDeu and
penalised forests, on every tabular set of the data folder and the scikit-learn sets.

For naive Bayes, TAN-CMI, discriminative trees and boosting (BGMC, calibrated or not):
5-fold stratified CV (the same folds for every model of a set): accuracy, log-loss and
fit time; the fit time of "auto" relative to alpha = 1 on the same fold. pyAgrum's TAN
(Smoothing prior, weight 1) on the same discretised codes is the reference from another
library. The image sets (mnist, mnist5000, usps) are left out: 784/256 features make the
24 configurations of this run take hours on 2 cores.

Run:  python benchmarks/bench_smoothing.py [--n-jobs 2] [--sets a,b] [--out benchmarks/results]
Needs pyagrum (``pip install -e ".[bench]"``); without it that column is empty.
Writes smoothing.json and smoothing.md (with the machine description) to --out.
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from bench_accuracy import IMAGE_SETS, SKLEARN_SETS
from joblib import Parallel, delayed
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold

from discotree import (
    BoostedGraphicalModelClassifier,
    DiscriminativeTreeClassifier,
    NaiveBayesClassifier,
    TANClassifier,
)
from discotree.learners.registry import LearnerSpec, get_learner
from discotree.validation import check_table
from discotree_reproductions.harness.data_folder import load_dataset

FIXED = (0.1, 0.5, 1.0, 3.0)


class RelearntDiscriminativeTree(DiscriminativeTreeClassifier):
    """alpha="auto" relearning each fold's forests for every alpha (the structure
    depends on alpha through eq. 21), to measure what fixing it costs.

    It overrides two of the estimator's hooks (``_alpha_model_for``, the models of the
    alpha cross-validation, and ``_structure_alpha``, the final fit's); a test
    (``tests/test_benchmark_hooks.py``) keeps them in step with the estimator."""

    def _alpha_model_for(self, data, grid):
        prior = self.prior if hasattr(self, "prior") else "dirichlet"

        def fit_at(stats, rows, alpha):
            options = self._learner_options(structure_alpha=alpha)
            spec = LearnerSpec("discriminative-tree", "auto", data.epsilon, prior, options)
            return get_learner(spec.learner).model_for(spec, (alpha,))(stats, rows)(alpha)

        def model_for(stats, rows):  # (folds run on threads: nothing global changes)
            fits = {alpha: fit_at(stats, rows, alpha) for alpha in grid}
            return lambda alpha: fits[alpha]

        return model_for

    def _structure_alpha(self):
        # None: the learner learns the final forests at the alpha chosen, as each fold did
        return None if self.alpha == "auto" else super()._structure_alpha()


def configurations(n_classes: int) -> dict:
    configs = {}
    for name, cls in (("nb", NaiveBayesClassifier), ("tan", TANClassifier)):
        for alpha in FIXED:
            configs[f"{name} a={alpha:g}"] = cls(alpha=alpha)
        configs[f"{name} auto"] = cls(alpha="auto")
        configs[f"{name} bdeu auto"] = cls(alpha="auto", prior="bdeu")
    configs["tan bic"] = TANClassifier(n_edges="bic", alpha=1.0)
    configs["tan aic"] = TANClassifier(n_edges="aic", alpha=1.0)
    configs["tan bic auto"] = TANClassifier(n_edges="bic", alpha="auto")
    for alpha in FIXED:
        configs[f"dt a={alpha:g}"] = DiscriminativeTreeClassifier(alpha=alpha)
    configs["dt auto"] = DiscriminativeTreeClassifier(alpha="auto")
    if n_classes <= 10:
        configs["dt auto relearnt"] = RelearntDiscriminativeTree(alpha="auto")
    configs["bgmc"] = BoostedGraphicalModelClassifier()  # 10 rounds, calibration="cv"
    configs["bgmc none"] = BoostedGraphicalModelClassifier(calibration="none")
    return configs


def _log_loss(proba: np.ndarray, index: np.ndarray) -> float:
    return float(-np.mean(np.log(np.clip(proba[np.arange(len(index)), index], 1e-15, 1))))


def _pyagrum_tan(codes_train, y_train, codes_test, classes) -> np.ndarray | None:
    try:
        from pyagrum.skbn import createBNClassifier
    except ImportError:
        return None
    train = pd.DataFrame(codes_train.astype(int)).astype(str).add_prefix("x")
    test = pd.DataFrame(codes_test.astype(int)).astype(str).add_prefix("x")
    for column in train:  # a category unseen in training: the training mode (pyAgrum
        seen = set(train[column])  # has no missing-at-predict rule for it)
        test.loc[~test[column].isin(seen), column] = train[column].mode()[0]
    labels = pd.Series([f"c{k:03d}" for k in y_train])
    model = createBNClassifier(learningMethod="TAN", prior="Smoothing", priorWeight=1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(train, labels)
        proba = np.asarray(model.predict_proba(test))
    order = [f"c{k:03d}" for k in range(len(classes))]
    fitted = sorted(set(labels))
    out = np.zeros((len(test), len(classes)))
    for k, label in enumerate(fitted):
        out[:, order.index(label)] = proba[:, k]
    return out


#: Bins of the top-label confidence for the reliability diagrams and the ECE.
N_BINS = 15


def _reliability_bins(proba: np.ndarray, correct: np.ndarray) -> dict:
    """Per bin of the top-label confidence: the rows, their summed confidence and
    their correct predictions (added over folds and sets for the diagrams)."""
    confidence = proba.max(axis=1)
    bins = np.minimum((confidence * N_BINS).astype(int), N_BINS - 1)
    return {
        "bin_rows": np.bincount(bins, minlength=N_BINS).tolist(),
        "bin_confidence": np.bincount(bins, confidence, N_BINS).tolist(),
        "bin_correct": np.bincount(bins, correct.astype(float), N_BINS).tolist(),
    }


def _ece(rows: np.ndarray, confidence: np.ndarray, correct: np.ndarray) -> float:
    """Expected calibration error: sum over bins of |accuracy - confidence| weighted
    by the bin's share of the rows."""
    return float(np.abs(correct - confidence).sum() / max(rows.sum(), 1))


def calibration_section(frame: pd.DataFrame, out: Path | None) -> list[str]:
    """ECE of every model (mean over the sets, and of all test rows pooled) and, when
    ``out`` is given, reliability diagrams of the defaults beside the raw scores."""
    if "bin_rows" not in frame:
        return []
    lines = [
        "",
        f"Calibration: expected calibration error of the top-label confidence ({N_BINS} "
        "equal bins), the mean of the sets' ECE and the ECE of every test row pooled:",
        "",
        "| model | mean ECE | pooled ECE |",
        "|---|---|---|",
    ]
    pooled = {}
    for model, group in frame.dropna(subset=["bin_rows"]).groupby("model"):
        stack = {
            k: np.array(group[k].tolist()) for k in ("bin_rows", "bin_confidence", "bin_correct")
        }
        per_set = []
        for _, by_set in group.groupby("dataset"):
            sums = [np.array(by_set[k].tolist()).sum(axis=0) for k in stack]
            per_set.append(_ece(*sums))
        total = [v.sum(axis=0) for v in stack.values()]
        pooled[model] = total
        lines.append(f"| {model} | {np.mean(per_set):.4f} | {_ece(*total):.4f} |")
    defaults = ("nb auto", "tan auto", "dt auto", "dt a=1", "bgmc", "bgmc none", "pyagrum tan")
    shown = [m for m in defaults if m in pooled]
    if out is not None and shown:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        figure, axis = plt.subplots(figsize=(5, 5))
        axis.plot([0, 1], [0, 1], color="grey", linestyle=":", label="perfect")
        for model in shown:
            rows, confidence, correct = pooled[model]
            used = rows > 0
            axis.plot(confidence[used] / rows[used], correct[used] / rows[used], marker="o",
                      label=f"{model} (ECE {_ece(rows, confidence, correct):.3f})")  # fmt: skip
        axis.set_xlabel("top-label confidence (bin mean)")
        axis.set_ylabel("accuracy in the bin")
        axis.set_title("Reliability, every test row of the sets pooled")
        axis.legend(fontsize=8)
        figure.tight_layout()
        figure.savefig(out / "smoothing_reliability.png", dpi=100)
        plt.close(figure)
        lines += ["", "![reliability diagram](smoothing_reliability.png)"]
    return lines


def run_fold(name: str, fold: int, data_dir) -> list[dict]:
    X, y = load_dataset(name, data_dir)
    y = np.asarray(y)
    classes, index = np.unique(y, return_inverse=True)
    splits = list(StratifiedKFold(5, shuffle=True, random_state=0).split(np.zeros(len(y)), index))
    train, test = splits[fold]
    X_train, X_test = X.iloc[train], X.iloc[test]
    rows = []
    reference_time = None
    for config, estimator in configurations(len(classes)).items():
        # the times compared (alpha = 1 and auto) are the best of 3 fits: one fit of a
        # few milliseconds is at the mercy of the scheduler (and the first also loads
        # the compiled kernels)
        timed = config.endswith("a=1") or config.endswith("auto")
        seconds = np.inf
        for _ in range(3 if timed else 1):
            model = clone(estimator)
            start = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model.fit(X_train, y[train])
            seconds = min(seconds, time.perf_counter() - start)
        proba = model.predict_proba(X_test)
        column = np.searchsorted(model.classes_, y[test])
        if config == "nb a=1":
            encoder = model.encoder_
        rows.append(
            {
                "dataset": name,
                "fold": fold,
                "model": config,
                "accuracy": float(np.mean(model.classes_[proba.argmax(axis=1)] == y[test])),
                "log_loss": _log_loss(proba, column),
                "fit_s": seconds,
                "alpha": float(getattr(model, "alpha_", np.nan)),
                **_reliability_bins(proba, model.classes_[proba.argmax(axis=1)] == y[test]),
            }
        )
        if config.endswith("a=1"):
            reference_time = seconds
        if config.endswith("auto") or config.endswith("relearnt"):
            rows[-1]["time_ratio"] = seconds / reference_time if reference_time else np.nan
    codes_train = encoder.transform(check_table(X_train, "bench"))
    codes_test = encoder.transform(check_table(X_test, "bench"))
    proba = _pyagrum_tan(codes_train, index[train], codes_test, classes)
    if proba is not None:
        rows.append(
            {
                "dataset": name,
                "fold": fold,
                "model": "pyagrum tan",
                "accuracy": float(np.mean(proba.argmax(axis=1) == index[test])),
                "log_loss": _log_loss(proba, index[test]),
                "fit_s": np.nan,
                "alpha": 1.0,
                **_reliability_bins(proba, proba.argmax(axis=1) == index[test]),
            }
        )
    return rows


def report(frame: pd.DataFrame, machine: dict, out: Path | None = None) -> str:
    mean = frame.groupby(["dataset", "model"])[["accuracy", "log_loss"]].mean().reset_index()
    accuracy = mean.pivot(index="dataset", columns="model", values="accuracy") * 100
    loss = mean.pivot(index="dataset", columns="model", values="log_loss")
    lines = ["# Smoothing chosen from the data (issue 16)", ""]
    lines += [f"Machine: {machine}", ""]
    lines += [
        f"5-fold stratified CV (same folds per set), {accuracy.shape[0]} sets. Averages over "
        "the sets (accuracy in %, log-loss in nats):",
        "",
        "| model | accuracy | log-loss | sets where best of its family |",
        "|---|---|---|---|",
    ]
    for model in accuracy.columns:
        family = model.split()[0]
        peers = [m for m in accuracy.columns if m.split()[0] == family]
        best = (accuracy[model] >= accuracy[peers].max(axis=1) - 1e-9).sum()
        best = "-" if len(peers) == 1 else best
        lines.append(
            f"| {model} | {accuracy[model].mean():.2f} | {loss[model].mean():.4f} | {best} |"
        )
    lines += ["", "Verdicts (computed from the numbers above):", ""]
    for family in ("nb", "tan", "dt"):
        fixed = [f"{family} a={a:g}" for a in FIXED]
        best_fixed = max(fixed, key=lambda m: accuracy[m].mean())
        auto = accuracy[f"{family} auto"].mean()
        best, one = accuracy[best_fixed].mean(), accuracy[f"{family} a=1"].mean()
        lines.append(
            f"- {family}: auto {auto:.2f} against the best fixed alpha ({best_fixed}) "
            f"{best:.2f} and alpha = 1 {one:.2f}: "
            f"{'within' if auto >= best - 0.3 else 'NOT within'} 0.3 points of the best, "
            f"{'above' if auto > one else 'NOT above'} alpha = 1."
        )
    lines += ["", *_losses_to_alpha_one(frame)]
    tan_loss, dt_loss = loss["tan auto"].mean(), loss["dt auto"].mean()
    lines.append(
        f"- log-loss of the defaults: dt auto {dt_loss:.4f} against tan auto {tan_loss:.4f}: "
        f"{'no worse than' if dt_loss <= tan_loss else 'WORSE than'} TAN's."
    )
    if "bgmc" in loss:
        boosted, raw = loss["bgmc"].mean(), loss["bgmc none"].mean()
        fits = frame.pivot_table(index=["dataset", "fold"], columns="model", values="fit_s")
        cost = fits["bgmc"].sum() / fits["bgmc none"].sum()
        lines.append(
            f"- boosting (BGMC, 10 rounds): log-loss {boosted:.4f} calibrated (the default) "
            f"against {raw:.4f} uncalibrated (calibration='none') and tan auto "
            f"{tan_loss:.4f}: {'no worse than' if boosted <= tan_loss else 'WORSE than'} "
            f"TAN's; the calibration's cross-validation costs {cost:.1f}x the fit time in "
            "total (one fit each)."
        )
    ratios = frame.dropna(subset=["time_ratio"]) if "time_ratio" in frame else frame.iloc[:0]
    if len(ratios):
        lines += [
            "",
            "Fit time of auto relative to alpha = 1 on the same fold (best of 3 fits each; "
            "the relearnt variant: one fit): the median and the largest over every fold of "
            "every set, the total time of auto over the total of alpha = 1, and the sets "
            "whose median ratio over their folds is above 3x:",
            "",
        ]
        base = frame[frame["model"].str.endswith("a=1")].set_index(["dataset", "fold"])
        for model, group in ratios.groupby("model"):
            family = model.split()[0]
            reference = base[base["model"] == f"{family} a=1"]["fit_s"]
            fits = group.set_index(["dataset", "fold"])["fit_s"]
            total = fits.sum() / reference.loc[fits.index].sum()
            per_set = group.groupby("dataset")["time_ratio"].median()
            slow = per_set[per_set > 3]
            above = ", ".join(f"{name} {value:.1f}x" for name, value in slow.items())
            lines.append(
                f"- {model}: median {group['time_ratio'].median():.1f}x, largest "
                f"{group['time_ratio'].max():.1f}x, total {total:.1f}x; "
                f"sets above 3x: {above or 'none'}"
            )
    if "dt auto relearnt" in accuracy:
        both = accuracy[["dt auto", "dt auto relearnt"]].dropna()
        lines += [
            "",
            f"Discriminative trees, structure fixed per fold (alpha 1) against relearnt for "
            f"every alpha, on {len(both)} sets with at most 10 classes: "
            f"{both['dt auto'].mean():.2f} against {both['dt auto relearnt'].mean():.2f}; "
            f"the mean accuracy differs on {(both['dt auto'] != both['dt auto relearnt']).sum()} "
            "sets.",
        ]
    lines += calibration_section(frame, out)
    lines += ["", "## Per set (accuracy %)", "", _markdown(accuracy.round(2)), ""]
    return "\n".join(lines)


def _losses_to_alpha_one(frame: pd.DataFrame) -> list[str]:
    """For each family, the sets where "auto" is below alpha = 1 by more than one
    standard error (issue 34's bar), under two readings: the standard error of alpha =
    1's accuracy over the 5 folds (sd / sqrt 5), and the stricter one of the mean of the
    5 paired fold differences."""
    lines = [
        "Sets where auto's accuracy is below alpha = 1's by more than one standard error: "
        "(a) the fold standard error of alpha = 1's accuracy (sd of its 5 fold accuracies "
        "/ sqrt 5); (b) the standard error of the mean paired fold difference (sd of the 5 "
        "differences / sqrt 5, stricter: one in six sets is expected below it by chance "
        "when the two are equally good):",
        "",
    ]
    for family in ("nb", "tan", "dt"):
        pair = frame[frame["model"].isin([f"{family} auto", f"{family} a=1"])]
        table = pair.pivot_table(index=["dataset", "fold"], columns="model", values="accuracy")
        table = table * 100
        auto, one = table[f"{family} auto"], table[f"{family} a=1"]
        gap = (auto - one).groupby("dataset").mean()
        fold_se = one.groupby("dataset").agg(lambda v: v.std() / np.sqrt(len(v)))
        paired_se = (auto - one).groupby("dataset").agg(lambda v: v.std() / np.sqrt(len(v)))
        for label, error in (("(a) fold se", fold_se), ("(b) paired se", paired_se)):
            losing = gap[gap < -error.fillna(0) - 1e-9]
            named = ", ".join(f"{n} {v:+.2f} (se {error[n]:.2f})" for n, v in losing.items())
            lines.append(
                f"- {family} auto, {label}: {len(losing)} of {len(gap)} sets"
                f"{': ' + named if named else ''}"
            )
    return lines


def _markdown(table: pd.DataFrame) -> str:
    head = "| dataset | " + " | ".join(table.columns) + " |"
    rule = "|---" * (len(table.columns) + 1) + "|"
    body = [
        f"| {name} | " + " | ".join("" if pd.isna(v) else f"{v:.2f}" for v in row) + " |"
        for name, row in table.iterrows()
    ]
    return "\n".join([head, rule, *body])


def image_cost(data_dir, out: Path, repeats: int = 2) -> str:
    """The cost of alpha="auto" against one fit at alpha = 1 on MNIST's 60000 training
    images binarised at 128 (60000 x 784 binary), for the three families' defaults: the
    best of ``repeats`` fits each, on this machine, one after the other."""
    X, y = load_dataset("mnist", data_dir)
    binary = (X.iloc[:60000].to_numpy() >= 128).astype(np.int8)
    labels = np.asarray(y)[:60000]
    rows = []
    for family, cls in (
        ("nb", NaiveBayesClassifier),
        ("tan", TANClassifier),
        ("dt", DiscriminativeTreeClassifier),
    ):
        seconds = {}
        for alpha in (1.0, "auto"):
            best = np.inf
            for _ in range(repeats):
                start = time.perf_counter()
                cls(alpha=alpha).fit(binary, labels)
                best = min(best, time.perf_counter() - start)
            seconds[alpha] = best
        rows.append((family, seconds[1.0], seconds["auto"]))
    lines = [
        "# alpha='auto' on 60000 x 784 binary images (MNIST >= 128)",
        "",
        "| model | alpha = 1 (s) | auto (s) | ratio |",
        "|---|---|---|---|",
        *(f"| {f} | {a:.1f} | {b:.1f} | {b / a:.1f}x |" for f, a, b in rows),
    ]
    text = "\n".join(lines) + "\n"
    (out / "smoothing_images.md").write_text(text)
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--sets", default=None, help="comma-separated names (default: all)")
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    parser.add_argument(
        "--report-only", action="store_true", help="rewrite smoothing.md from smoothing.json"
    )
    parser.add_argument(
        "--image-cost", action="store_true", help="time auto against alpha = 1 on MNIST only"
    )
    args = parser.parse_args()
    if args.image_cost:
        print(image_cost(args.data_dir, args.out))
        return
    if args.report_only:
        saved = json.loads((args.out / "smoothing.json").read_text())
        text = report(pd.DataFrame(saved["rows"]), saved["machine"], args.out)
        (args.out / "smoothing.md").write_text(text)
        print(text)
        return
    if args.sets:
        sets = args.sets.split(",")
    else:
        from discotree_reproductions.harness.data_folder import manifest

        sets = [n for n in manifest(args.data_dir) if n not in IMAGE_SETS]
        sets += [s for s in SKLEARN_SETS if s not in sets]
    jobs = [delayed(run_fold)(name, fold, args.data_dir) for name in sets for fold in range(5)]
    start = time.perf_counter()
    rows = [row for part in Parallel(n_jobs=args.n_jobs)(jobs) for row in part]
    frame = pd.DataFrame(rows)
    from bench_fit import machine  # the same machine description as the other benchmarks

    info = machine()
    info["wall_s"] = round(time.perf_counter() - start, 1)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "smoothing.json").write_text(
        json.dumps({"machine": info, "rows": rows}, indent=1, default=float)
    )
    text = report(frame, info, args.out)
    (args.out / "smoothing.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
