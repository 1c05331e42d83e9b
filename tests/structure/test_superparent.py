"""SuperParent's sums of column changes kept from step to step give the search that
recomputes them at every step (the plain algorithm of Section 4.4.2 of 002)."""

import numpy as np
import pytest

from discotree.models.bayes_net import NodeScores
from discotree.structure import bayes_net_search
from discotree.structure.bayes_net_search import Scorer, superparent_search


def _problem(rng, n=200, d=7, n_classes=3, missing=0.0):
    n_categories = rng.integers(2, 4, d)
    y = rng.integers(0, n_classes, n)
    codes = np.column_stack(
        [(rng.integers(0, r, n) + y * (j % 2)) % r for j, r in enumerate(n_categories)]
    )
    codes[:, 1] = np.where(rng.random(n) < 0.6, codes[:, 0] % n_categories[1], codes[:, 1])
    codes[:, 4] = np.where(rng.random(n) < 0.6, codes[:, 2] % n_categories[4], codes[:, 4])
    if missing:
        codes[rng.random(codes.shape) < missing] = -1
    return codes.astype(np.intp), y.astype(np.intp), n_categories.astype(np.intp)


def _search(codes, y, n_categories, weights, k, score):
    state = NodeScores.naive_bayes(codes, y, weights, 3, n_categories, 1.0, 1e-5)
    scorer = Scorer(y, weights, score)
    gains, steps = {}, []
    parents = superparent_search(state, k, scorer, gains=gains, steps=steps)
    return parents, gains, steps, scorer.value(state.joint)


@pytest.mark.parametrize("k", [1, 2])
@pytest.mark.parametrize("score", ["cr", "cll"])
@pytest.mark.parametrize("missing", [0.0, 0.15])
def test_kept_sums_give_the_search_that_recomputes_them(k, score, missing, monkeypatch):
    rng = np.random.default_rng(k * 10 + int(missing * 100) + (score == "cll"))
    codes, y, n_categories = _problem(rng, missing=missing)
    weights = rng.uniform(0.5, 2.0, len(y))
    kept = _search(codes, y, n_categories, weights, k, score)
    monkeypatch.setattr(bayes_net_search, "SUPERPARENT_SUMS_BYTES", 0)  # recomputed
    recomputed = _search(codes, y, n_categories, weights, k, score)
    assert kept[0] == recomputed[0]
    assert kept[2] == recomputed[2]  # the same steps
    assert kept[1].keys() == recomputed[1].keys()
    for edge, gain in kept[1].items():
        assert gain == pytest.approx(recomputed[1][edge], abs=1e-12)
    assert kept[3] == pytest.approx(recomputed[3], abs=1e-12)
    assert len(kept[2]) >= 2  # the problem has edges worth adding


def test_kept_sums_equal_the_sums_of_the_current_children(monkeypatch):
    """After every step, each superparent's kept sum is the sum of the column changes
    of exactly the attributes it can now be a parent of."""
    rng = np.random.default_rng(3)
    codes, y, n_categories = _problem(rng, missing=0.1)
    weights = np.ones(len(y))
    checked = []
    real = bayes_net_search._SuperparentSums.keep_only

    def keep_only_and_check(self, children_of):
        real(self, children_of)
        for sp, total in self.sums.items():
            assert self.members[sp] <= set(children_of[sp])
            direct = np.zeros_like(total)
            for j in sorted(self.members[sp]):
                direct += self.change(j, sp)
            np.testing.assert_allclose(total, direct, atol=1e-9)
        checked.append(True)

    monkeypatch.setattr(bayes_net_search._SuperparentSums, "keep_only", keep_only_and_check)
    _search(codes, y, n_categories, weights, 2, "cr")
    assert len(checked) >= 2


def _plain_search(codes, y, n_categories, weights, k, early_abandon):
    state = NodeScores.naive_bayes(codes, y, weights, 3, n_categories, 1.0, 1e-5)
    scorer = Scorer(y, weights, "cr", early_abandon=early_abandon, chunk=16)
    gains, steps = {}, []
    parents = superparent_search(state, k, scorer, gains=gains, steps=steps)
    return parents, gains, steps, state


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("missing", [0.0, 0.15])
@pytest.mark.parametrize("batch_bytes", [None, 1])
def test_pairs_of_children_scored_together_give_the_pair_by_pair_search(
    k, missing, batch_bytes, monkeypatch
):
    """Step 2 with the pairs that share a first child scored together (in batches of
    one candidate when ``batch_bytes`` is 1) equals scoring every pair's whole joint."""
    rng = np.random.default_rng(40 + k + int(missing * 100))
    codes, y, n_categories = _problem(rng, n=300, d=8, missing=missing)
    weights = rng.uniform(0.5, 2.0, len(y))
    if batch_bytes is not None:
        monkeypatch.setattr(bayes_net_search, "CANDIDATE_BATCH_BYTES", batch_bytes)
    together = _plain_search(codes, y, n_categories, weights, k, early_abandon=True)
    plain = _plain_search(codes, y, n_categories, weights, k, early_abandon=False)
    assert together[0] == plain[0]
    assert together[2] == plain[2]  # the same steps
    assert together[1] == plain[1]  # the same gains, to the bit
    assert any(len(p) == 2 for p in together[0])  # pairs of children were added
    state = together[3]
    for j, parents in enumerate(state.parents):  # the lazy old columns are the stored ones
        np.testing.assert_array_equal(state.lookup(j, parents).full(), state.columns[j])
