"""The fit input and the learner-level alpha cross-validation
(:mod:`discotree.learners.fit_input`)."""

import numpy as np
import pytest

from discotree import TANClassifier
from discotree.learners.fit_input import FitInput, cross_validate_alpha
from discotree.learners.registry import get_learner
from discotree.stats.alpha_selection import ALPHA_GRID, select_alpha
from discotree.stats.pair_statistics import PairStatistics
from discotree.transformers.encoder import TableEncoder
from discotree.validation import check_table


def _data(rng, n=300, weighted=True):
    codes = rng.integers(0, 3, (n, 4))
    class_index = (codes[:, 0] + rng.integers(0, 2, n)) % 2
    encoder = TableEncoder(10, None, "test")
    codes = encoder.fit_transform(check_table(codes, "test"), None, class_index)
    weights = rng.random(n) + 0.5 if weighted else None
    class_weight = np.bincount(class_index, weights, 2)
    return FitInput(
        np.array([0, 1]), encoder, class_weight, "auto", 1e-5,
        codes=codes, class_index=class_index.astype(np.intp), weights=weights,
    )  # fmt: skip


def _fold_models():
    spec = TANClassifier(alpha="auto").learner_spec()
    return get_learner(spec.learner).model_for(spec, ALPHA_GRID)


@pytest.mark.parametrize("weighted", [True, False])
def test_the_cross_validation_is_select_alpha_on_the_rows_and_keeps_the_totals(rng, weighted):
    data = _data(rng, weighted=weighted)
    alpha, losses, counted = cross_validate_alpha(data, _fold_models(), ALPHA_GRID)
    expected = select_alpha(
        data.codes, data.class_index, data.weights, data.n_categories, 2, model_for=_fold_models()
    )
    assert alpha == expected[0]
    np.testing.assert_array_equal(losses, expected[1])
    assert data.pairs is None  # the input is not changed: a new one holds the totals
    direct = PairStatistics.from_codes(
        data.codes, data.class_index, data.n_categories, 2, data.weights
    )
    np.testing.assert_allclose(counted.pairs.counts, direct.counts, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(counted.pair_statistics().counts, direct.counts, rtol=1e-12)


def test_counts_without_rows_refuse_what_needs_the_rows(rng):
    data = _data(rng)
    counts_only = data.with_(codes=None, class_index=None, weights=None)
    assert not counts_only.has_rows and data.has_rows
    with pytest.raises(ValueError, match="need the rows"):
        counts_only.rows("TANClassifier")
    with pytest.raises(ValueError, match="no rows"):
        cross_validate_alpha(counts_only, _fold_models(), ALPHA_GRID)
    assert data.rows().weights is data.weights
    assert data.with_(weights=None).row_weights().tolist() == [1.0] * len(data.codes)
    assert data.n_features == 4 and data.n_classes == 2
