"""The benchmarks that subclass an estimator to measure an alternative keep working: their
overrides follow the estimator's hooks as they are today.

``benchmarks/bench_smoothing.py``'s ``RelearntDiscriminativeTree`` relearns each fold's
forests for every alpha of ``alpha="auto"``; it overrides ``_alpha_model_for`` and
``_structure_alpha``, whose signatures changed once without the benchmark following.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_array_equal
from sklearn.datasets import load_breast_cancer

from discotree import DiscriminativeTreeClassifier

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"

pytest.importorskip("discotree_reproductions")  # bench_smoothing reads its data loader


@pytest.fixture(scope="module")
def bench_smoothing():
    sys.path.insert(0, str(BENCHMARKS))  # its own imports of the other benchmarks
    try:
        spec = importlib.util.spec_from_file_location(
            "bench_smoothing", BENCHMARKS / "bench_smoothing.py"
        )
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(BENCHMARKS))
    return module


@pytest.fixture(scope="module")
def data():
    X, y = load_breast_cancer(return_X_y=True)
    rows = np.random.default_rng(0).choice(len(y), 160, replace=False)
    return X[rows, :6], y[rows]


def test_relearnt_tree_fits_and_refits_at_the_chosen_alpha(bench_smoothing, data):
    X, y = data
    relearnt = bench_smoothing.RelearntDiscriminativeTree(alpha="auto", calibration="none")
    relearnt.fit(X, y)
    fixed = DiscriminativeTreeClassifier(alpha=relearnt.alpha_, calibration="none").fit(X, y)
    assert_array_equal(relearnt.predict_proba(X), fixed.predict_proba(X))


def test_relearnt_tree_scores_each_alpha_on_forests_learnt_at_it(bench_smoothing, data):
    X, y = data
    relearnt = bench_smoothing.RelearntDiscriminativeTree(alpha="auto", calibration="none")
    default = DiscriminativeTreeClassifier(alpha="auto", calibration="none")
    relearnt.fit(X, y)
    default.fit(X, y)
    # the default learns every fold's forests once (at STRUCTURE_ALPHA): the losses of
    # the grid differ wherever the structure depends on alpha
    assert not np.array_equal(relearnt.alpha_cv_losses_, default.alpha_cv_losses_)
