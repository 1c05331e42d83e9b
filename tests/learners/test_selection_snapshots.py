"""The held-out posteriors kept during selective kDB's selection pass equal, to the bit,
those of the second pass over the rows they replace; the snapshots keep only records
within the tie tolerance, and give up beyond their bound."""

import numpy as np
import pytest

from discotree.learners import k_dependence
from discotree.learners import selection_snapshots as snapshots_module
from discotree.learners.k_dependence import fit_selective_kdb
from discotree.learners.registry import LearnerSpec, Rows
from discotree.learners.selection_snapshots import SelectionSnapshots
from discotree.numerics import SCORE_TIE_RTOL


def _rows(rng, n=150, n_features=6, n_classes=3):
    y = rng.integers(0, n_classes, n)
    codes = rng.integers(0, 3, (n, n_features))
    codes[:, 0] = np.where(rng.random(n) < 0.7, y % 3, codes[:, 0])
    codes[:, 1] = np.where(rng.random(n) < 0.6, codes[:, 0], codes[:, 1])
    codes[:, 2] = np.where(rng.random(n) < 0.6, (codes[:, 0] + codes[:, 1]) % 3, codes[:, 2])
    codes[rng.random(codes.shape) < 0.1] = -1  # missing cells
    weights = rng.integers(1, 3, n).astype(float)
    return Rows(codes, y, weights, n_classes, np.full(n_features, 3))


@pytest.mark.parametrize("loss", ["rmse", "log_loss"])
@pytest.mark.parametrize("held", [True, np.array([4, 0, 77, 149, 12])])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_kept_posteriors_equal_the_second_pass(monkeypatch, loss, held, seed):
    rows = _rows(np.random.default_rng(seed))
    options = {"k": 3, "selection_loss": loss, "smoothing": "hierarchical", "held_out": held}
    spec = LearnerSpec("selective-kdb", 1.0, 1e-5, options=options)
    kept = fit_selective_kdb(rows, spec)
    monkeypatch.setattr(k_dependence, "_held_out_snapshots", lambda spec: None)
    second = fit_selective_kdb(rows, spec)
    assert kept.attributes["n_attributes_"] == second.attributes["n_attributes_"]
    assert np.array_equal(
        kept.attributes["held_out_log_posterior_"], second.attributes["held_out_log_posterior_"]
    )


def test_the_selected_model_is_always_kept():
    # random losses with exact and near ties: the model argmax_with_ties selects
    # (fewest attributes, then parents, within the tolerance) is among the kept
    from discotree.numerics import argmax_with_ties

    rng = np.random.default_rng(3)
    for _ in range(200):
        losses = np.round(rng.random((7, 3)) * 4, 1) + 10.0
        losses[rng.random(losses.shape) < 0.2] *= 1 + SCORE_TIE_RTOL / 2  # near ties
        snapshots = SelectionSnapshots(None)
        for s in range(7):
            for q in range(3):
                snapshots.offer(s, q, float(losses[s, q]), np.full((1, 2), s * 10.0 + q))
        flat = int(argmax_with_ties(-losses.reshape(1, -1))[0])
        s, q = np.unravel_index(flat, losses.shape)
        assert snapshots.joint(int(s), int(q))[0, 0] == s * 10.0 + q


def test_snapshots_give_up_beyond_their_bound(monkeypatch):
    monkeypatch.setattr(snapshots_module, "MAX_SNAPSHOTS", 2)
    snapshots = SelectionSnapshots(None)
    for q in range(3):  # three equal records, all within the tolerance
        snapshots.offer(0, q, 1.0, np.zeros((1, 2)))
    assert snapshots.given_up and snapshots.joint(0, 0) is None
