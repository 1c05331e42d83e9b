"""The enumeration of missing parents (:mod:`discotree.models.enumeration`): the rows
of many patterns summed out together, their node terms scored in shared batches, give
each row the numbers of its pattern summed out alone (to the bit), with weights,
missing values, the packed and the per-node scoring, any batch and block size."""

import numpy as np
import pytest

from discotree.missing_values import is_missing
from discotree.models import k_dependence
from discotree.models.bayes_net import rows_by_pattern
from tests.stats.test_backoff_prediction import _random_model, _test_rows


def _patterns(model, codes):
    """Each group of rows missing the same attributes in use, with its enumeration."""
    used = np.zeros(model.n_features, dtype=bool)
    used[model.attributes] = True
    groups = []
    for group in rows_by_pattern(is_missing(codes[:, used])):
        plan = model._enumeration(codes[group[0]])
        if plan is not None and plan.missing:
            groups.append((group, plan))
    return groups


@pytest.mark.parametrize("packed", [False, True])
@pytest.mark.parametrize("sizes", [(1 << 16, 1 << 22), (3, 50), (1, 1)])
def test_patterns_enumerated_together_equal_each_alone(rng, monkeypatch, packed, sizes):
    monkeypatch.setattr(k_dependence, "ENUMERATED_BLOCK_ROWS", sizes[0])
    monkeypatch.setattr(k_dependence, "ENUMERATED_BATCH_CELLS", sizes[1])
    for n_classes in (2, 5):
        model, _ = _random_model(rng, n_classes)  # (weighted rows, missing values)
        if not packed:
            model.__dict__["_packed_backoff"] = None
        codes = _test_rows(rng, model, n_rows=80, missing=0.3)
        groups = _patterns(model, codes)
        assert len(groups) > 3
        backed_off = rng.normal(size=(len(codes), n_classes))
        together = backed_off.copy()
        model._enumerate(codes, together, groups)
        for rows, _ in groups:
            alone = model._enumerated(codes[rows], backed_off[rows])
            assert np.array_equal(together[rows], alone)
        untouched = np.setdiff1d(np.arange(len(codes)), np.concatenate([r for r, _ in groups]))
        assert np.array_equal(together[untouched], backed_off[untouched])
