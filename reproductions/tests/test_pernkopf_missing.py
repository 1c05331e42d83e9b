"""``pernkopf-missing``: the hidden cells, the curves, the per-set cache and the report."""

import json

import numpy as np
import pandas as pd

from discotree.datasets.synthetic import random_binary_trees
from discotree.registry import make_classifier
from discotree_reproductions.pernkopf_missing import (
    MissingSet,
    accuracy_against_missing,
    missing_counts,
    run_missing,
)


class _Recorder:
    """Predicts class 0 and records the frames it was given."""

    def __init__(self):
        self.seen = []

    def predict(self, X):
        self.seen.append(X.copy())
        return np.zeros(len(X), dtype=int)


def test_every_model_sees_the_same_hidden_cells_count_per_row():
    X = pd.DataFrame(np.arange(60).reshape(10, 6) % 3, columns=list("abcdef"))
    y = np.zeros(10, dtype=int)
    first, second = _Recorder(), _Recorder()
    curves = accuracy_against_missing(
        {"a": first, "b": second}, X, y, [0, 2, 5], 3, np.random.default_rng(0)
    )
    assert [len(curves["a"][c]) for c in (0, 2, 5)] == [1, 3, 3]
    assert curves["a"][2] == [100.0] * 3
    hidden = [frame.isna().sum(axis=1).tolist() for frame in first.seen]
    assert hidden == [[0] * 10] + [[2] * 10] * 3 + [[5] * 10] * 3
    for mine, theirs in zip(first.seen, second.seen, strict=True):
        pd.testing.assert_frame_equal(mine, theirs)
    # the observed cells keep their values
    observed = first.seen[1].notna().to_numpy()
    assert np.array_equal(first.seen[1].to_numpy()[observed], X.to_numpy()[observed])
    # draws differ from one another
    assert not first.seen[1].isna().equals(first.seen[2].isna())


def test_counts_run_from_none_to_three_quarters_of_the_features():
    assert missing_counts(64) == [0, 6, 12, 18, 24, 30, 36, 42, 48]
    assert missing_counts(4) == [0, 1, 2, 3]


def _generated_set():
    X, y, _ = random_binary_trees(8, 300, random_state=1)
    order = np.random.default_rng(2).permutation(len(y))
    X, y = X.iloc[order].reset_index(drop=True), np.asarray(y)[order]
    return X, y, np.arange(400), np.arange(400, 600)


def test_run_reports_the_claims_and_reuses_each_sets_curves(tmp_path):
    fits = []

    def make_model(name):
        fits.append(name)
        return make_classifier(name)

    models = ["nb-ml", "nb-cl", "tan-cmi-ml", "tan-cr-ml"]
    spec = MissingSet("generated", "generated trees", _generated_set, paper_figure="")
    summary = run_missing(tmp_path, sets=[spec], models=models, repeats=2, make_model=make_model)
    assert sorted(fits) == sorted(models)
    info = summary["generated"]
    X, y, train, test = _generated_set()
    for name in models:
        fitted = make_classifier(name).fit(X.iloc[train], y[train])
        plain = 100 * np.mean(fitted.predict(X.iloc[test]) == y[test])
        assert info["accuracy"][name]["0"] == [plain, 0.0]
    text = (tmp_path / "results.md").read_text()
    assert "TAN-CR-ML beats NB-CL at" in text
    assert "A discriminative structure (TAN-CR) beats TAN-CMI at" in text
    assert (tmp_path / "accuracy_vs_missing.png").stat().st_size > 0
    assert "provenance" in json.loads((tmp_path / "results.json").read_text())

    again = run_missing(tmp_path, sets=[spec], models=models, repeats=2, make_model=make_model)
    assert len(fits) == len(models)  # read from the cache, not refitted
    assert again["generated"]["accuracy"] == info["accuracy"]
    run_missing(tmp_path, sets=[spec], models=models, repeats=3, make_model=make_model)
    assert len(fits) == 2 * len(models)  # other draws: the cache is stale
