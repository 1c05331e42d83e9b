"""Choosing the ensemble's defaults on folds the accuracy benchmark does not use
(issue 31): every variant of :class:`~discotree.KDBEnsembleClassifier` given by
``--variants`` on the 39 sets with 5-fold ``StratifiedKFold(shuffle=True,
random_state=1)`` (bench_accuracy.py reports ``random_state=0``), beside TAN and
RandomForest(300) on the same folds. A default is chosen from these numbers and only
then measured by bench_accuracy.py, so its figures are not selected on their own folds
(the sets are the same: the choice is still tuned to these 39 sets, stated).

Run:  python benchmarks/tune_ensemble.py --variants jittered,sampled-mdl [--n-jobs 2]
Writes tune_ensemble.json and tune_ensemble.md to --out.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import pandas as pd
from bench_accuracy import (
    IMAGE_SETS,
    SKLEARN_SETS,
    _kind,
    _markdown,
    random_forest,
    summary,
)
from bench_accuracy import run_fold as accuracy_fold
from joblib import Parallel, delayed
from sklearn.ensemble import HistGradientBoostingClassifier

from discotree import KDBClassifier, KDBEnsembleClassifier, TANClassifier

FOLD_SEED = 1

#: The candidate configurations (name -> estimator), each fixed before it was run.
VARIANTS = {
    # round 1: the default then (5 bins) and three alternatives
    "jittered": KDBEnsembleClassifier(n_bins=5, linear_weight=0.0),
    "sampled-mdl": KDBEnsembleClassifier(coarsening="sampled-mdl", linear_weight=0.0),
    "jittered dirichlet": KDBEnsembleClassifier(
        n_bins=5, estimator=KDBClassifier(smoothing="dirichlet"), linear_weight=0.0
    ),
    "sampled-mdl dirichlet": KDBEnsembleClassifier(
        coarsening="sampled-mdl", estimator=KDBClassifier(smoothing="dirichlet"), linear_weight=0.0
    ),
    "jittered 8 bins": KDBEnsembleClassifier(n_bins=8, linear_weight=0.0),
    # round 2 (after round 1 kept the default): coarser, mixed bins, and bagging
    "jittered 4 bins": KDBEnsembleClassifier(n_bins=4, linear_weight=0.0),
    "jittered 3-7 bins": KDBEnsembleClassifier(n_bins=(3, 7), linear_weight=0.0),
    "jittered bootstrap": KDBEnsembleClassifier(n_bins=5, bootstrap=True, linear_weight=0.0),
    # round 3 (4 bins led round 2): coarser still
    "jittered 3 bins": KDBEnsembleClassifier(n_bins=3, linear_weight=0.0),
    "jittered 3-5 bins": KDBEnsembleClassifier(n_bins=(3, 5), linear_weight=0.0),
    # round 4 (session 22, 4 bins kept): more members, and members chosen by log-loss
    "jittered 4 bins 20 members": KDBEnsembleClassifier(
        n_bins=4, n_estimators=20, linear_weight=0.0
    ),
    "jittered 4 bins log-loss": KDBEnsembleClassifier(
        n_bins=4,
        estimator=KDBClassifier(smoothing="hierarchical", selection_loss="log_loss"),
        linear_weight=0.0,
    ),
    # round 5 (session 22): the linear member (naive Bayes with CL parameters and Gaussian
    # numeric leaves) mixed in; its weight 0.3 was chosen on these folds beforehand with
    # scikit-learn's LogisticRegression standing in for it (0.2-0.4 within 0.1 points)
    "jittered 4 bins linear 0.2": KDBEnsembleClassifier(n_bins=4, linear_weight=0.2),
    "jittered 4 bins linear 0.3": KDBEnsembleClassifier(n_bins=4, linear_weight=0.3),
    "jittered 4 bins linear 0.4": KDBEnsembleClassifier(n_bins=4, linear_weight=0.4),
    # round 6 (session 23): the weight chosen per fit by held-out log-loss (members'
    # leave-one-out posteriors against the linear member's 5-fold ones) ran as "jittered 4
    # bins linear auto" before learners.ensemble_members.LEAVE_ONE_OUT_OPTIMISM existed; round 7
    # runs it with that correction (+0.15, the mean gap to an honest 5-fold choice
    # measured on these folds), the code of linear_weight="auto" now
    "jittered 4 bins linear auto+0.15": KDBEnsembleClassifier(n_bins=4, linear_weight="auto"),
    # round 8 (session 24): the members' largest k. On chess (a high-order concept, 1.9
    # points below RF on the benchmark) the members' leave-one-out selection takes the
    # largest k offered (5), and k up to 8 gave 98.3 % against 97.2 % there on these
    # folds (crx, australian, lymphography: unchanged, their selection stops below 5)
    "k 6": KDBEnsembleClassifier(estimator=KDBClassifier(6, smoothing="hierarchical")),
    "k 8": KDBEnsembleClassifier(estimator=KDBClassifier(8, smoothing="hierarchical")),
    # round 9 (session 25): the linear member with the joint inputs of every pair of
    # categorical (not binned) columns (linear_pairs="all"). An exploratory study on
    # these folds (scikit-learn's LogisticRegression on one-hot pairs of all columns,
    # numeric ones in 4 levels, its posterior mixed into round 7's ensemble at fixed
    # weights) found +0.14 points at weight 0.1, +0.22 on the categorical or mixed sets
    # (chess alone: 99.3 %); pairs of binned columns inside the linear member lowered
    # letter, optdigits and ozone by 1-2 points on one fold each, so they are left out
    # (run before the rule of round 10 existed: the pairs always kept)
    "linear pairs all": KDBEnsembleClassifier(linear_pairs="all"),
    # round 10 (session 25): round 9 lifted chess (+2.2) and german (+0.8) and lowered
    # heart (-1.5), lymphography (-1.3) and australian (-1.0), small sets where the
    # pairs' many weights overfit; the linear member with pairs is now kept only where
    # its held-out log-loss (5-fold, beside the members' leave-one-out posteriors) is
    # below that of the member without pairs, the same rule that chooses the weight
    "linear pairs held-out": KDBEnsembleClassifier(linear_pairs="all"),
    # round 11 (session 26): the study's model inside the package instead, as its own
    # member at the study's best fixed weight (0.1, the only weight run): the linear
    # member's inputs and every pair of columns, binned ones in 4 levels of their fine
    # bins, fitted once (no held-out choice, so no extra fits)
    "pair member 0.1": KDBEnsembleClassifier(pair_weight=0.1),
    # round 13 (issue 48, the cost): round 12's default (every pair) with the linear
    # member's held-out fits from zeros at a looser tolerance (1e-4), beside the pair
    # member reading only the pairs a G-test of conditional independence given the
    # class keeps, at two levels (on the generated 3,000 x 200 binary set of
    # bench_ensemble_cost.py: 195 and 20 of the 6,666 pairs read before)
    "round 13 every pair": KDBEnsembleClassifier(pair_significance=None),
    "pair significance 0.01": KDBEnsembleClassifier(pair_significance=0.01),
    "pair significance 0.001": KDBEnsembleClassifier(pair_significance=0.001),
    # round 14 (issue 48, the cost): the pair member's pairs limited to the
    # round(p * n_columns) of largest I(X_i; X_j | C) among those the G-test keeps (on a
    # satimage fold of these folds: 630 pairs, 180 at p = 5, 72 at p = 2; the fit's CPU
    # 15.3 s, 10.5 s and 9.2 s); compared with round 13's "pair significance 0.001"
    # (the default since), whose rows on these folds are in tune_ensemble_round13.json
    "pairs per column 5": KDBEnsembleClassifier(pairs_per_column=5),
    "pairs per column 2": KDBEnsembleClassifier(pairs_per_column=2),
}


def run_fold(
    name: str, fold: int, data_dir, chosen: list[str], baselines: bool = True
) -> list[dict]:
    """bench_accuracy's fold on the tuning folds: TAN, RF(300), HGB (unless not
    ``baselines``) and the variants."""
    estimators = {"tan": TANClassifier()}
    if baselines:
        estimators["rf300"] = random_forest(300)
        estimators["hgb"] = HistGradientBoostingClassifier(
            categorical_features="from_dtype", random_state=0
        )
    estimators.update({f"eskdb {v}": VARIANTS[v] for v in chosen})
    return accuracy_fold(name, fold, data_dir, None, estimators, fold_seed=FOLD_SEED)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    parser.add_argument("--name", default="tune_ensemble", help="the results' file stem")
    parser.add_argument(
        "--baselines-from",
        type=Path,
        default=None,
        help="an earlier run's JSON whose RF(300) and HGB rows (the same folds) stand in "
        "for running them again",
    )
    args = parser.parse_args()
    from discotree_reproductions.harness.data_folder import manifest

    sets = [n for n in manifest(args.data_dir) if n not in IMAGE_SETS]
    sets += [s for s in SKLEARN_SETS if s not in sets]
    chosen = args.variants.split(",")
    start = time.perf_counter()
    baselines = args.baselines_from is None
    jobs = [
        delayed(run_fold)(n, fold, args.data_dir, chosen, baselines)
        for n in sets
        for fold in range(5)
    ]
    rows = [row for part in Parallel(n_jobs=args.n_jobs)(jobs) for row in part]
    if not baselines:  # (their times are of another run: only their accuracy compares)
        earlier = json.loads(args.baselines_from.read_text())["rows"]
        rows += [r for r in earlier if r["model"] in ("rf300", "hgb") and r["dataset"] in sets]
    wall = round(time.perf_counter() - start, 1)
    kinds = {name: _kind(name, args.data_dir) for name in sets}
    table = summary(pd.DataFrame(rows), kinds)
    text = (
        "# Ensemble defaults chosen on other folds (issue 31)\n\n"
        f"5-fold StratifiedKFold(shuffle=True, random_state={FOLD_SEED}) on {len(sets)} sets; "
        f"variants {chosen}; wall {wall} s.\n\n" + _markdown(table) + "\n"
    )
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"{args.name}.json").write_text(
        json.dumps({"variants": chosen, "wall_s": wall, "kinds": kinds, "rows": rows}, indent=1)
    )
    (args.out / f"{args.name}.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
