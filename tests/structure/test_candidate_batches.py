"""Candidate parent sets scored in batches of bounded memory, each batch against the
best score of those before it, give the search that scores them all at once (the
order search for k = 2 has C(p, 2) candidates for the p-th attribute)."""

import numpy as np
import pytest

from discotree.models.bayes_net import NodeScores
from discotree.structure import bayes_net_search
from discotree.structure.bayes_net_search import (
    Scorer,
    candidate_batch_size,
    greedy_search,
    order_search,
)
from discotree.structure.orderings import omi_order
from tests.structure.test_superparent import _problem


def _search(kind, codes, y, n_categories, weights, k, score):
    state = NodeScores.naive_bayes(codes, y, weights, 3, n_categories, 1.0, 1e-5)
    scorer = Scorer(y, weights, score)
    gains, steps = {}, []
    if kind == "order":
        order = omi_order(codes, y, weights, 3, n_categories)
        parents = order_search(state, k, order, scorer, gains=gains, steps=steps)
    else:
        parents = greedy_search(state, k, scorer, gains=gains, steps=steps)
    return parents, gains, steps, scorer.value(state.joint)


@pytest.mark.parametrize("kind", ["order", "greedy"])
@pytest.mark.parametrize("k", [1, 2])
@pytest.mark.parametrize("score", ["cr", "cll"])
@pytest.mark.parametrize("missing", [0.0, 0.15])
def test_batched_candidates_give_the_search_that_scores_them_all(
    kind, k, score, missing, monkeypatch
):
    rng = np.random.default_rng(7 * k + int(missing * 100) + (score == "cll"))
    codes, y, n_categories = _problem(rng, n=120, d=8, missing=missing)
    weights = rng.uniform(0.5, 2.0, len(y))
    whole = _search(kind, codes, y, n_categories, weights, k, score)
    assert any(whole[0]), "the problem has dependencies a search should take"

    per_candidate = bayes_net_search.CANDIDATE_BATCH_BYTES // candidate_batch_size(
        len(y), 3, Scorer(y, weights).chunk
    )
    original = bayes_net_search.ColumnCache.candidates
    for batch in (1, 3):
        sizes = []

        def spy(self, node, parent_sets, sizes=sizes):
            sizes.append(len(parent_sets))
            return original(self, node, parent_sets)

        monkeypatch.setattr(bayes_net_search.ColumnCache, "candidates", spy)
        monkeypatch.setattr(bayes_net_search, "CANDIDATE_BATCH_BYTES", batch * per_candidate)
        batched = _search(kind, codes, y, n_categories, weights, k, score)
        assert max(sizes) == batch  # the batches were that size
        assert batched[0] == whole[0]
        assert batched[1] == whole[1]  # the same gains: the same scores
        assert batched[2] == whole[2]
        assert batched[3] == whole[3]


def test_default_batches_bound_the_usps_order_search():
    """USPS's k = 2 order search: 32 385 candidates for the last attribute, in batches
    of at most 2**28 bytes (the run that built them all at once needed 24 GB)."""
    assert 100 <= candidate_batch_size(7291, 10, 256) < 32385
    assert candidate_batch_size(60000, 10, 256) >= 32  # MNIST
    assert candidate_batch_size(10**9, 10, 256) == 1


def test_codes_in_order_follow_a_new_order_and_reuse_the_same_one():
    from discotree.structure.candidates import _CodesInOrder

    codes = np.arange(12).reshape(3, 4)
    cache = _CodesInOrder(codes)
    order = np.array([3, 1, 0, 2])
    first = cache.get(order)
    np.testing.assert_array_equal(first, codes[:, order])
    assert cache.get(order) is first  # the same order array: kept
    other = np.array([0, 1, 2, 3])
    np.testing.assert_array_equal(cache.get(other), codes)
