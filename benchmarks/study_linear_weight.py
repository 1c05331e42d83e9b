"""How ``KDBEnsembleClassifier(linear_weight="auto")`` should choose the linear member's
weight (issue 31), on the tuning folds of ``tune_ensemble.py`` (5-fold
``StratifiedKFold(shuffle=True, random_state=1)``, none of ``bench_accuracy.py``'s).

For every training fold it stores what each rule needs: the members' mean posterior
and the linear member's on the test rows; on the training rows, the members'
leave-one-out posteriors (``learners.k_dependence``'s ``held_out`` option), the linear
member's 5-fold ones, and (``--honest``) the posteriors of an honest cross-validation of
the whole ensemble without its linear member (2 and 5 folds, refitted: 2x and 5x the
cost of a fit). It then reports the test accuracy of each rule for the weight: fixed
0.3, the weight of least held-out log-loss from the leave-one-out posteriors, the same
from the honest ones, the leave-one-out choice plus a shift, and the test-set oracle;
and the mean gap between the leave-one-out and the honest 5-fold choices (the
correction ``learners.ensemble_members.LEAVE_ONE_OUT_OPTIMISM`` was set from it).

Run:  python benchmarks/study_linear_weight.py --honest --out benchmarks/results
(818 s on 2 cores with --honest; writes study_linear_weight.json)
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

import numpy as np
from bench_accuracy import IMAGE_SETS, SKLEARN_SETS, load_fold
from joblib import Parallel, delayed
from sklearn.model_selection import KFold

from discotree import KDBEnsembleClassifier
from discotree.learners.ensemble_members import LINEAR_WEIGHTS, held_out_mixture_losses
from discotree.learners.k_dependence import fit_selective_kdb
from discotree.learners.logistic import cross_validated_log_posteriors, fit_logistic
from discotree.learners.registry import LearnerSpec, Rows
from discotree.models.category_maps import apply_maps, mapped_categories

FOLD_SEED = 1


def _members_leave_one_out(model, codes, class_index, weights, n_classes, n_categories, spec):
    """The members' mean leave-one-out posterior of every training row: each member
    refitted on its own coarsened codes with the ``held_out`` option (the same seeds,
    so the same members)."""
    out, orders = [], []
    seeds = np.random.default_rng(spec["seed"]).integers(0, 2**31 - 1, len(model.members))
    for maps, seed in zip(model.maps, seeds, strict=True):
        rows = Rows(
            apply_maps(codes, maps),
            class_index,
            weights,
            n_classes,
            mapped_categories(n_categories, maps),
        )
        options = {**spec["member"], "order_seed": int(seed), "hdp_seed": int(seed)}
        fitted = fit_selective_kdb(
            rows, LearnerSpec("selective-kdb", 1.0, 1e-5, options={**options, "held_out": True})
        )
        out.append(np.exp(fitted.attributes["held_out_log_posterior_"]))
        orders.append(fitted.attributes["order_"])
    return np.mean(out, axis=0), orders


def _honest(X, y, classes, n_folds):
    """Posteriors of every training row from the ensemble without a linear member
    refitted without its fold."""
    out = np.zeros((len(y), len(classes)))
    for train, test in KFold(n_folds, shuffle=True, random_state=0).split(X):
        clf = KDBEnsembleClassifier(linear_weight=0.0).fit(X.iloc[train], y[train])
        out[np.ix_(test, np.searchsorted(classes, clf.classes_))] = clf.predict_proba(X.iloc[test])
    return out


def run_fold(name: str, fold: int, data_dir, honest: bool) -> dict:
    X, y, _, train, test = load_fold(name, fold, data_dir, FOLD_SEED)
    X_train, y_train = X.iloc[train].reset_index(drop=True), y[train]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = KDBEnsembleClassifier(linear_weight=0.5).fit(X_train, y_train)
        codes = clf.encoder_.transform(X_train)
        class_index = np.searchsorted(clf.classes_, y_train)
        weights = np.ones(len(y_train))
        spec = {
            "seed": 0,
            "member": {"k": 5, "selective": True, "selection_loss": "rmse"}
            | {"smoothing": "hierarchical"},
        }
        members_loo, orders = _members_leave_one_out(
            clf.model_, codes, class_index, weights, len(clf.classes_), clf.n_categories_, spec
        )
        if orders != clf.members_order_:
            raise RuntimeError("the refitted members are not the ensemble's")
        rows = Rows(codes, class_index, weights, len(clf.classes_), clf.n_categories_)
        linear_spec = LearnerSpec(
            "logistic", 1.0, 1e-5, options={"values": clf.model_.linear.values, "C": 1.0}
        )
        start = fit_logistic(rows, linear_spec).model
        warm = linear_spec.with_options(start=start)
        linear_cv = np.exp(cross_validated_log_posteriors(rows, warm))
        test_codes = clf.encoder_.transform(X.iloc[test])
        members = np.exp(np.stack(clf.model_.member_log_posteriors(test_codes))).mean(axis=0)
        linear = np.exp(clf.model_.linear.log_posterior(test_codes))
        truth = np.searchsorted(clf.classes_, y[test])
        honest_posteriors = {}
        if honest:
            for n_folds in (2, 5):
                honest_posteriors[n_folds] = _honest(X_train, y_train, clf.classes_, n_folds)

    def least(held_members) -> float:
        losses = held_out_mixture_losses(held_members, linear_cv, class_index, weights)
        return float(LINEAR_WEIGHTS[int(np.argmin(losses))])

    def accuracy(w: float) -> float:
        mixed = (1 - w) * members + w * linear
        return float(np.mean(mixed.argmax(axis=1) == truth))

    loo = least(members_loo)
    test_losses = held_out_mixture_losses(members, linear, truth, np.ones(len(truth)))
    weights_by_rule = {
        "fixed 0.3": 0.3,
        "leave-one-out": loo,
        **{f"leave-one-out + {s}": min(loo + s, 1.0) for s in (0.1, 0.15, 0.2)},
        "test oracle (log-loss)": float(LINEAR_WEIGHTS[int(np.argmin(test_losses))]),
    }
    for n_folds, posteriors in honest_posteriors.items():
        weights_by_rule[f"honest {n_folds}-fold"] = least(posteriors)
    return {
        "dataset": name,
        "fold": fold,
        "weights": weights_by_rule,
        "accuracy": {rule: accuracy(w) for rule, w in weights_by_rule.items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--honest", action="store_true")
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--out", type=Path, default=Path("/tmp/study_linear_weight"))
    parser.add_argument("--sets", default=None, help="comma-separated; default: the 39")
    args = parser.parse_args()
    from discotree_reproductions.harness.data_folder import manifest

    sets = [n for n in manifest(args.data_dir) if n not in IMAGE_SETS]
    sets += [s for s in SKLEARN_SETS if s not in sets]
    if args.sets:
        sets = args.sets.split(",")
    start = time.perf_counter()
    jobs = [
        delayed(run_fold)(n, fold, args.data_dir, args.honest) for n in sets for fold in range(5)
    ]
    rows = Parallel(n_jobs=args.n_jobs)(jobs)
    wall = round(time.perf_counter() - start, 1)
    rules = list(rows[0]["accuracy"])
    summary = {}
    for rule in rules:
        per_set = {}
        for row in rows:
            per_set.setdefault(row["dataset"], []).append(row["accuracy"][rule])
        summary[rule] = {
            "mean accuracy %": round(
                100 * float(np.mean([np.mean(v) for v in per_set.values()])), 3
            ),
            "mean weight": round(float(np.mean([r["weights"][rule] for r in rows])), 3),
        }
    if args.honest:
        gaps = [r["weights"]["honest 5-fold"] - r["weights"]["leave-one-out"] for r in rows]
        summary["honest 5-fold minus leave-one-out weight"] = {
            "mean": round(float(np.mean(gaps)), 3),
            "median": round(float(np.median(gaps)), 3),
        }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "study_linear_weight.json").write_text(
        json.dumps({"wall_s": wall, "summary": summary, "rows": rows}, indent=1)
    )
    print(json.dumps(summary, indent=1), f"\nwall {wall} s")


if __name__ == "__main__":
    main()
