"""Cross-validation in batches equals in-memory CV on the same folds."""

import numpy as np
import pandas as pd
import pytest

from discotree.cli import main
from discotree.datasets.streaming import TableSource
from discotree.evaluation.streaming_cv import row_folds, stream_cross_validate
from discotree.registry import make_classifier


@pytest.fixture
def table_file(tmp_path, rng):
    n = 1500
    frame = pd.DataFrame({f"f{j}": rng.integers(0, 3, n) for j in range(5)})
    frame["town"] = rng.choice(["a", "b", "c"], n)
    frame["label"] = np.where(frame["f0"] + frame["f1"] + rng.integers(0, 2, n) > 2, "y", "n")
    path = tmp_path / "t.parquet"
    frame.to_parquet(path)
    return frame, path


def test_streaming_cv_equals_in_memory_cv_on_the_same_folds(table_file):
    frame, path = table_file
    models = {name: make_classifier(name) for name in ("nb", "tan-cmi")}
    results = stream_cross_validate(TableSource(path), "label", models, 4, batch_rows=400)
    X, y = frame.drop(columns=["label"]), frame["label"].to_numpy()
    folds = row_folds(X, 4)
    for name in models:
        for k in range(4):
            model = make_classifier(name).fit(X[folds != k], y[folds != k])
            expected = np.mean(model.predict(X[folds == k]) == y[folds == k])
            got = results.query("model == @name and fold == @k")["accuracy"].item()
            assert got == pytest.approx(expected, abs=1e-12)


def test_compare_stream_prints_a_table_and_refuses_models_without_partial_fit(table_file, capsys):
    _, path = table_file
    argv = ["compare", "--data", str(path), "--target", "label", "--stream", "-q"]
    assert main([*argv, "--folds", "3", "--batch-rows", "500"]) == 0
    out = capsys.readouterr().out
    assert "in batches" in out and "tan-cmi" in out and "dt" in out
    assert main([*argv, "--models", "tan-cr-ml"]) == 2
    assert "partial_fit" in capsys.readouterr().err
