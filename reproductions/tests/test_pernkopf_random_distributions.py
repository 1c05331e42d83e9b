"""Fig. 9 of Pernkopf & Bilmes 2010: training CLL of TAN structures on random
distributions."""

import numpy as np

from discotree_reproductions import pernkopf_random_distributions as fig9
from discotree_reproductions.catalog import EXPERIMENTS


def test_samples_and_true_posterior_follow_the_drawn_table():
    codes, _y, weight, true_log_posterior = fig9.random_distribution(3, 7, n_samples=50_000)
    assert weight.sum() == 50_000
    rows = {tuple(r) for r in codes}
    assert rows <= {tuple(int(b) for b in np.binary_repr(i, 3)) for i in range(8)}
    # the two classes' posteriors of one row sum to one
    for r in rows:
        here = np.all(codes == r, axis=1)
        if here.sum() == 2:
            assert np.isclose(np.exp(true_log_posterior[here]).sum(), 1.0)
    # the same index gives the same distribution
    again = fig9.random_distribution(3, 7, n_samples=50_000)
    assert np.array_equal(again[2], weight)


def test_weighted_cells_give_the_cll_of_the_repeated_samples():
    codes, y, weight, _ = fig9.random_distribution(4, 0, n_samples=3_000)
    repeat = weight.astype(int)
    expanded = fig9.training_cll(
        "tan-omi-cl", np.repeat(codes, repeat, axis=0), np.repeat(y, repeat), np.ones(3_000)
    )
    assert np.isclose(fig9.training_cll("tan-omi-cl", codes, y, weight), expanded)


def test_the_report_computes_its_findings(monkeypatch):
    monkeypatch.setattr(fig9, "FIG9_SAMPLES", 2_000)
    records = [fig9._one(n, d) for n in (10, 11) for d in range(3)]
    text = fig9.report(records)
    assert "| 10 | 3 |" in text and "| 11 | 3 |" in text
    for method in fig9.FIG9_METHODS:
        assert method in text
    # the greedy CL search scores the training data at least as well as naive Bayes
    assert all(r["tan-cl"] >= r["nb"] - 1e-9 for r in records)


def test_fig9_is_registered():
    assert "pernkopf-random-distributions" in EXPERIMENTS
