"""KDBEnsembleClassifier: reproducible with random_state, members differ, n_jobs gives
the same model, and the learner is registered."""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn.datasets import load_wine

from discotree import KDBEnsembleClassifier
from discotree.learners.registry import get_learner


def test_reproducible_and_members_differ():
    X, y = load_wine(return_X_y=True)
    a = KDBEnsembleClassifier(n_estimators=4, random_state=3).fit(X, y)
    b = KDBEnsembleClassifier(n_estimators=4, random_state=3, n_jobs=2).fit(X, y)
    assert_allclose(a.predict_proba(X), b.predict_proba(X))
    assert len({tuple(o) for o in a.members_order_}) > 1  # sampled orders
    maps = [m[0] for m in a.model_.maps]
    assert any(not np.array_equal(maps[0], m) for m in maps[1:])  # stochastic bins
    c = KDBEnsembleClassifier(n_estimators=4, random_state=4).fit(X, y)
    assert not np.allclose(a.predict_proba(X), c.predict_proba(X))
    assert get_learner("kdb-ensemble").reads == "rows"
    assert a.score(X, y) > 0.95


@pytest.mark.parametrize(
    "params, message",
    [
        ({"n_estimators": 0}, "n_estimators must be an integer >= 1"),
        ({"n_bins": 1}, "n_bins must be an integer >= 2"),
        ({"smoothing": "x"}, "smoothing must be one of"),
        ({"n_jobs": 0}, "n_jobs must be None"),
        ({"selection_loss": "x"}, "selection_loss must be one of"),
    ],
)
def test_bad_parameters_are_named(params, message):
    with pytest.raises(ValueError, match=message):
        KDBEnsembleClassifier(**params).fit(np.zeros((4, 2)), [0, 1, 0, 1])
