"""How should the pair member join the ensemble (issue 31)? On the tuning folds of
``tune_ensemble.py`` (5-fold ``StratifiedKFold(shuffle=True, random_state=1)``, 39 sets),
one fit per fold of ``KDBEnsembleClassifier(pair_weight="auto", pair_pooling="log")``:
its test posterior without the pair member ``P`` and the pair member's alone ``Q``, and
the held-out log-loss of every weight that ``"auto"`` computed (``pair_weight_losses_``).
From them, the accuracy and log-loss of every rule: a fixed weight ``v`` pooled linearly,
``(1 - v) P + v Q``, or logarithmically, ``P^(1 - v) Q^v`` renormalised; the weight of
least held-out log-loss; and that weight but at least a floor.

Run:  python benchmarks/study_pair_weight.py --data-dir ../shared/data [--n-jobs 2]
(about 6 minutes on 2 cores). Writes study_pair_weight.json (one record per fold) and
prints the summary; results in ``results/tune_ensemble.md``, round 12.
"""

from __future__ import annotations

import argparse
import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from bench_accuracy import IMAGE_SETS, SKLEARN_SETS, _kind, load_fold
from joblib import Parallel, delayed

from discotree import KDBEnsembleClassifier
from discotree.learners.ensemble_members import PAIR_WEIGHTS
from discotree.models.ensemble import POOLINGS, pooled_log_posterior


def scores(rest, pair, truth) -> dict:
    """Test accuracy (%) and log-loss of every weight of PAIR_WEIGHTS, both poolings."""
    out = {}
    index = np.arange(len(truth))
    for pooling in POOLINGS:
        accuracy, log_loss = [], []
        for v in PAIR_WEIGHTS:
            pooled = pooled_log_posterior(np.log(rest), np.log(pair), float(v), pooling)
            accuracy.append(100 * float(np.mean(pooled.argmax(axis=1) == truth)))
            log_loss.append(float(-np.mean(np.maximum(pooled[index, truth], np.log(1e-15)))))
        out[pooling] = {"accuracy": accuracy, "log_loss": log_loss}
    return out


def fold_record(name: str, fold: int, data_dir) -> dict:
    """One tuning fold: the held-out losses and the test scores of every weight."""
    X, _, index, train, test = load_fold(name, fold, data_dir, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = KDBEnsembleClassifier(pair_weight="auto", pair_pooling="log")
        model.fit(X.iloc[train], index[train])
    posteriors = []
    for weight in (0.0, 1.0):  # the rest without the pair member, and it alone
        model.model_.pair_weight = weight
        proba = np.zeros((len(test), index.max() + 1))
        proba[:, model.classes_] = model.predict_proba(X.iloc[test])
        posteriors.append(np.clip(proba, 1e-300, 1.0))
    return {
        "dataset": name,
        "fold": fold,
        "held_out_losses": model.pair_weight_losses_.tolist(),
        "test": scores(posteriors[0], posteriors[1], index[test]),
    }


def rules(floor: float = 0.1) -> dict:
    """Rule name -> (pooling, the weight's index in PAIR_WEIGHTS from a record)."""

    def at(v: float) -> int:
        return int(np.argmin(np.abs(PAIR_WEIGHTS - v)))

    out = {}
    for pooling in POOLINGS:
        for v in (0.1, 0.15, 0.2):
            out[f"{pooling} {v}"] = (pooling, lambda r, v=v: at(v))
    out["log held-out"] = ("log", lambda r: int(np.argmin(r["held_out_losses"])))
    out[f"log held-out, at least {floor}"] = (
        "log",
        lambda r: max(int(np.argmin(r["held_out_losses"])), at(floor)),
    )
    return out


def summary(records: list[dict], kinds: dict[str, str]) -> pd.DataFrame:
    """Mean accuracy over the sets (all, categorical or mixed, numeric) and log-loss."""
    rows = []
    for record in records:
        for rule, (pooling, pick) in rules().items():
            i = pick(record)
            rows.append(
                {
                    "dataset": record["dataset"],
                    "rule": rule,
                    "weight": float(PAIR_WEIGHTS[i]),
                    "accuracy": record["test"][pooling]["accuracy"][i],
                    "log_loss": record["test"][pooling]["log_loss"][i],
                }
            )
    per_set = pd.DataFrame(rows).groupby(["rule", "dataset"]).mean().reset_index()
    per_set["kind"] = per_set["dataset"].map(kinds)
    table = per_set.groupby("rule")[["accuracy", "log_loss"]].mean()
    by_kind = per_set.groupby(["rule", "kind"])["accuracy"].mean().unstack()
    return table.join(by_kind).round(3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args()
    from discotree_reproductions.harness.data_folder import manifest

    sets = [n for n in manifest(args.data_dir) if n not in IMAGE_SETS]
    sets += [s for s in SKLEARN_SETS if s not in sets]
    jobs = [delayed(fold_record)(n, k, args.data_dir) for n in sets for k in range(5)]
    records = Parallel(n_jobs=args.n_jobs)(jobs)
    kinds = {n: _kind(n, args.data_dir) for n in sets}
    (args.out / "study_pair_weight.json").write_text(
        json.dumps({"kinds": kinds, "records": records})
    )
    print(summary(records, kinds).to_string())


if __name__ == "__main__":
    main()
