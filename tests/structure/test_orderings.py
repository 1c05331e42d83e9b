"""The attribute orderings (Pernkopf & Bilmes 2010, Section 5.1) under the package's
one missing-value rule: every information on the rows where its attributes are
observed (available-case), checked against plain dictionary histograms."""

import numpy as np
import pytest

from discotree.structure import orderings
from discotree.structure.orderings import mmi_order, ocr_order, omi_order, omisp_order
from tests import reference


def _problem(seed, n_samples=200, n_features=6, missing=0.15, n_classes=3):
    rng = np.random.default_rng(seed)
    n_categories = rng.integers(2, 4, size=n_features)
    class_index = rng.integers(0, n_classes, size=n_samples)
    codes = np.column_stack(
        [
            (rng.integers(0, r, n_samples) + class_index * (j % 2)) % r
            for j, r in enumerate(n_categories)
        ]
    )
    codes[:, 1] = np.where(rng.random(n_samples) < 0.6, codes[:, 0] % n_categories[1], codes[:, 1])
    codes[rng.random(codes.shape) < missing] = -1
    weights = rng.integers(1, 4, n_samples).astype(float)
    return codes.astype(np.int8), class_index, weights, n_categories


@pytest.mark.parametrize("seed", range(5))
def test_orderings_with_missing_values_equal_the_available_case_reference(seed):
    codes, class_index, weights, n_categories = _problem(seed)
    assert (codes < 0).any()
    for minimize in (False, True):
        assert omi_order(
            codes, class_index, weights, 3, n_categories, None, minimize
        ) == reference.omi_order(codes, class_index, weights, minimize)
    assert omisp_order(codes, class_index, weights, 3, n_categories) == (
        reference.omisp_order(codes, class_index, weights)
    )
    assert ocr_order(codes, class_index, weights, 3, n_categories) == (
        reference.ocr_order(codes, class_index, weights, 3)
    )


def test_available_case_terms_equal_the_reference_informations():
    codes, class_index, weights, _ = _problem(7, missing=0.3)
    rows = codes[:, 0] >= 0
    given, joint = orderings._available_case_terms(
        codes[rows, 0], codes[rows, 2], class_index[rows], weights[rows], 3
    )
    both = (codes[:, 0] >= 0) & (codes[:, 2] >= 0)
    assert given == pytest.approx(
        reference.conditional_class_information(codes, class_index, weights, 2, [0]), abs=1e-12
    )
    assert joint == pytest.approx(
        reference.class_information(codes, class_index, weights, [0], [0, 2]), abs=1e-12
    )
    # the rows used are those where both attributes are observed, not a value "missing"
    assert both.sum() < len(codes)


def test_complete_data_give_the_same_order_by_either_path():
    """Without missing values the fast path runs; the available-case code computes the
    same informations, so forcing it gives the same orders."""
    codes, class_index, weights, n_categories = _problem(3, missing=0.0)
    fast = [
        omi_order(codes, class_index, weights, 3, n_categories),
        mmi_order(codes, class_index, weights, 3, n_categories),
        omisp_order(codes, class_index, weights, 3, n_categories),
    ]
    slow = [
        orderings._omi_available_case(codes, class_index, weights, 3, sign) for sign in (1.0, -1.0)
    ]
    assert fast[:2] == slow
    assert fast[2] == reference.omisp_order(codes, class_index, weights)


def test_a_missing_value_is_not_a_category():
    """An attribute informative only through *where* it is missing carries no
    information under the available-case rule (it did when NaN was a category)."""
    rng = np.random.default_rng(0)
    n = 400
    y = rng.integers(0, 2, n)
    noise = rng.integers(0, 2, n).astype(np.int8)
    masked = np.where(y == 1, -1, noise).astype(np.int8)  # missing exactly when y = 1
    useful = np.where(rng.random(n) < 0.8, y, 1 - y).astype(np.int8)
    codes = np.column_stack([masked, noise, useful])
    order = omi_order(codes, y, np.ones(n), 2, np.array([2, 2, 2]))
    assert order[0] == 2
