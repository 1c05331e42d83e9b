"""Tables 5-6 of Pernkopf & Bilmes 2010: RBF SVMs against the best BN classifier."""

import itertools

import numpy as np
import pandas as pd

from discotree.classifiers import TANClassifier
from discotree_reproductions import pernkopf_svm
from discotree_reproductions.catalog import EXPERIMENTS


def test_bn_parameters_count_every_free_table_entry():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({f"x{i}": rng.integers(0, 2 + i, 300) for i in range(4)}).astype("category")
    y = rng.integers(0, 3, 300)
    model = TANClassifier(k=2).fit(X, y)
    r = model.n_categories_
    # brute force: one free probability per (class, parents' configuration, value but one)
    expected = 2  # the class prior
    for i, parents in enumerate(model.attribute_parents_):
        configurations = list(itertools.product(*(range(r[p]) for p in parents)))
        expected += 3 * len(configurations) * (r[i] - 1)
    assert pernkopf_svm.bn_parameter_count(model) == expected
    assert any(len(p) == 2 for p in model.attribute_parents_)


def test_report_compares_with_both_tables():
    records = [
        {
            "dataset": "USPS",
            "model": m,
            "accuracy": a,
            "n_test": 2007,
            "fit_seconds": 1.0,
            "predict_seconds": t,
            "parameters": p,
            **({"support_vectors": p // 256, "gamma": g} if m.startswith("svm") else {}),
        }
        for m, a, t, p, g in [
            ("svm-rbf", 0.95, 2.0, 256 * 3000, 0.005),
            ("svm-rbf-scale", 0.96, 2.0, 256 * 2000, 0.03),
            ("tan-cr-cl", 0.92, 0.5, 15000, None),
        ]
    ]
    text = pernkopf_svm.report(records)
    assert "| USPS | 256 | 3000 (3837) | 768000 (982272) | 15000 (14689) | 51 (67) |" in text
    assert "beats TAN-CR-CL by +3.00 points (the paper: +2.03)" in text
    assert "evaluates the test set in 4.0x the BN's time" in text


def test_svm_comparison_is_registered():
    assert "pernkopf-svm" in EXPERIMENTS
