"""discotree.engines.file_passes: fitting from counts of several passes over batches
gives the model partial_fit learns from the same batches (which keeps the rows)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

from discotree import AODEClassifier, KDBClassifier, NaiveBayesClassifier, TANClassifier
from discotree.cli import main
from discotree.engines.file_passes import fit_in_passes, reads_in_passes


def _data(rng, n=900):
    X = pd.DataFrame(
        {
            "a": rng.integers(0, 4, n),
            "b": rng.choice(["x", "y", "z"], n).astype(object),
            "c": rng.normal(size=n),
            "d": rng.integers(0, 3, n),
        }
    )
    y = np.where((X["a"] + (X["b"] == "x") + (X["c"] > 0)) % 2 == 0, "p", "q")
    X.loc[rng.random(n) < 0.05, "d"] = np.nan
    X.loc[rng.random(n) < 0.05, "b"] = None
    return X, y


@pytest.mark.parametrize(
    "make",
    [
        lambda: KDBClassifier(k=2),
        lambda: KDBClassifier(k=3, selective=False),
        lambda: TANClassifier(k=2, alpha=1.0),
        lambda: AODEClassifier(2),
    ],
    ids=["selective-k2", "kdb-k3", "tan-k2", "a2de"],
)
def test_passes_equal_partial_fit_over_uneven_batches(make, rng):
    X, y = _data(rng)
    cuts = [0, 137, 480, 481, 900]
    batches = [(X.iloc[a:b], y[a:b]) for a, b in itertools.pairwise(cuts)]
    passes = []
    fitted = fit_in_passes(make(), lambda: iter(batches), ["p", "q"], on_pass=passes.append)
    streamed = make()
    for Xb, yb in batches:
        streamed.partial_fit(Xb, yb, classes=["p", "q"])
    assert_allclose(fitted.predict_proba(X), streamed.predict_proba(X), rtol=1e-10, atol=1e-12)
    expected_passes = [1, 2, 3] if getattr(fitted, "selective", False) else [1, 2]
    assert passes == expected_passes


def test_only_learners_of_several_passes_with_a_fixed_alpha():
    assert reads_in_passes(KDBClassifier())
    assert not reads_in_passes(NaiveBayesClassifier())  # one pass: partial_fit
    assert not reads_in_passes(TANClassifier(k=2))  # alpha="auto"
    assert not reads_in_passes(KDBClassifier(smoothing="hierarchical"))  # needs the rows
    with pytest.raises(ValueError, match="use partial_fit"):
        fit_in_passes(NaiveBayesClassifier(), lambda: iter([]), [0, 1])
    with pytest.raises(ValueError, match="no data rows"):
        fit_in_passes(KDBClassifier(), lambda: iter([]), [0, 1])


def test_the_command_line_fits_selective_kdb_in_passes(tmp_path, rng, capsys):
    X, y = _data(rng)
    frame = X.assign(label=y)
    path = tmp_path / "train.csv"
    frame.to_csv(path, index=False)
    model = tmp_path / "m.json"
    argv = ["fit", "--data", str(path), "--target", "label", "--model", "skdb"]
    assert main([*argv, "-o", str(model), "--batch-rows", "200", "-q"]) == 0
    assert "900 rows" in capsys.readouterr().out
    from discotree.io import load_json

    fitted = load_json(model)["model"]
    streamed = KDBClassifier()
    for start in range(0, 900, 200):
        part = pd.read_csv(path).iloc[start : start + 200]
        streamed.partial_fit(part.drop(columns="label"), part["label"], classes=["p", "q"])
    test = pd.read_csv(path).drop(columns="label")
    assert_allclose(fitted.predict_proba(test), streamed.predict_proba(test), rtol=1e-10)
