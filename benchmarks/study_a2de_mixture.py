"""Would mixing A2DE into the ensemble help (issue 31)? On the tuning folds of
``tune_ensemble.py`` (5-fold ``StratifiedKFold(shuffle=True, random_state=1)``, 39 sets),
the test posteriors of the default :class:`~discotree.KDBEnsembleClassifier` and of
``AODEClassifier(2)``, mixed as ``(1 - w) ensemble + w A2DE`` for fixed weights w: mean
accuracy and log-loss over the sets, and on the categorical or mixed ones.

Run:  python benchmarks/study_a2de_mixture.py --data-dir ../shared/data [--n-jobs 2]
(about 4.5 minutes on 2 cores). Results: ``results/tune_ensemble.md``, round 8.
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
import pandas as pd
from bench_accuracy import IMAGE_SETS, SKLEARN_SETS, _kind, load_fold
from joblib import Parallel, delayed

from discotree import AODEClassifier, KDBEnsembleClassifier

WEIGHTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 1.0)


def fold_rows(name: str, fold: int, data_dir) -> list[dict]:
    """Accuracy and log-loss of every mixture weight on one tuning fold."""
    X, _, index, train, test = load_fold(name, fold, data_dir, 1)
    posteriors = []
    for estimator in (KDBEnsembleClassifier(), AODEClassifier(2)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = estimator.fit(X.iloc[train], index[train])
        proba = np.zeros((len(test), index.max() + 1))
        proba[:, model.classes_] = model.predict_proba(X.iloc[test])
        posteriors.append(proba)
    truth = index[test]
    rows = []
    for w in WEIGHTS:
        mixed = (1 - w) * posteriors[0] + w * posteriors[1]
        picked = np.clip(mixed[np.arange(len(truth)), truth], 1e-15, 1.0)
        rows.append(
            {
                "dataset": name,
                "fold": fold,
                "w": w,
                "accuracy": 100 * float(np.mean(mixed.argmax(axis=1) == truth)),
                "log_loss": float(-np.mean(np.log(picked))),
            }
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--n-jobs", type=int, default=2)
    args = parser.parse_args()
    from discotree_reproductions.harness.data_folder import manifest

    sets = [n for n in manifest(args.data_dir) if n not in IMAGE_SETS]
    sets += [s for s in SKLEARN_SETS if s not in sets]
    jobs = [delayed(fold_rows)(n, k, args.data_dir) for n in sets for k in range(5)]
    rows = [row for part in Parallel(n_jobs=args.n_jobs)(jobs) for row in part]
    per_set = pd.DataFrame(rows).groupby(["w", "dataset"]).mean().reset_index()
    per_set["kind"] = per_set["dataset"].map({n: _kind(n, args.data_dir) for n in sets})
    print(per_set.groupby("w")[["accuracy", "log_loss"]].mean().round(3).to_string())
    print(per_set.groupby(["w", "kind"])["accuracy"].mean().unstack().round(3).to_string())


if __name__ == "__main__":
    main()
