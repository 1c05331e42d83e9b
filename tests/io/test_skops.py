"""skops round trip: a fitted model saved with skops.io loads and predicts the same,
and the only types a user must trust are discotree's own and numpy.dtype (issue 32,
item 5)."""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer

from tests.estimators import discrete_families

sio = pytest.importorskip("skops.io")


@pytest.mark.parametrize("estimator", discrete_families(), ids=repr)
def test_skops_round_trip(estimator, tmp_path):
    X, y = load_breast_cancer(return_X_y=True)
    estimator.fit(X, y)
    path = tmp_path / "model.skops"
    sio.dump(estimator, path)
    untrusted = sio.get_untrusted_types(file=path)
    # discotree's own classes, and numpy.dtype (a column's dtype kept by the encoder)
    foreign = [n for n in untrusted if not n.startswith("discotree.") and n != "numpy.dtype"]
    assert foreign == []
    loaded = sio.load(path, trusted=untrusted)
    assert np.array_equal(loaded.predict_proba(X), estimator.predict_proba(X))
