"""Each feature summed out by model structure (issue 48, item 3) against the
estimator's own predictions of the masked rows: exact elimination of a missing parent,
and the back-off rule where the model's limits refuse elimination."""

from unittest import mock

import numpy as np
import pytest

import discotree.models.k_dependence as k_dependence
from discotree import KDBClassifier, KDBEnsembleClassifier, NaiveBayesClassifier
from discotree.models.summed_out import summed_out_log_posteriors, supports_summed_out


def _data(n_classes, n=100, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, (n, 5)).astype(float)
    X[:, 4] = rng.normal(size=n)
    y = ((X[:, 0] + X[:, 1] * X[:, 2] + (X[:, 4] > 0)) % n_classes).astype(int)
    return X, y, rng.integers(1, 3, n).astype(float)


def _masked_predictions(estimator, rows):
    out = []
    for j in range(rows.shape[1]):
        masked = rows.copy()
        masked[:, j] = np.nan
        out.append(estimator.predict_log_proba(masked))
    return np.stack(out)


def _ensemble(estimator, **options):
    """An ensemble of two members like ``estimator`` on few categories, its linear and
    pair members weighted, with ``options``."""
    return KDBEnsembleClassifier(
        n_estimators=2,
        estimator=estimator,
        max_categories=3,
        linear_weight=0.2,
        pair_weight=0.3,
        **options,
    )


ESTIMATORS = {
    "kdb": lambda: KDBClassifier(k=2),
    "kdb-dirichlet": lambda: KDBClassifier(k=2, smoothing="dirichlet"),
    "ensemble-log": lambda: _ensemble(
        KDBClassifier(2, smoothing="hierarchical"), pair_significance=None
    ),
    "ensemble-hdp-linear": lambda: _ensemble(
        KDBClassifier(3, smoothing="hdp"), pair_pooling="linear"
    ),
}


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_summed_out_posteriors_equal_the_masked_predictions(name, n_classes):
    X, y, weights = _data(n_classes)
    estimator = ESTIMATORS[name]().fit(X, y, sample_weight=weights)
    assert supports_summed_out(estimator.model_)
    rows = X[:4]
    codes = estimator.encoder_.transform(rows)
    exact = summed_out_log_posteriors(estimator.model_, estimator.class_log_prior_, codes)
    assert np.allclose(exact, _masked_predictions(estimator, rows), rtol=0, atol=1e-9)
    for limit in ("MAX_ELIMINATION_CELLS", "MAX_DENSE_CELLS"):  # the back-off rule
        with (  # (beyond the enumeration's bound too)
            mock.patch.object(k_dependence, limit, -1),
            mock.patch.object(k_dependence, "MAX_ENUMERATED_VALUES", 0),
        ):
            backed_off = summed_out_log_posteriors(
                estimator.model_, estimator.class_log_prior_, codes
            )
            reference = _masked_predictions(estimator, rows)
        assert np.allclose(backed_off, reference, rtol=0, atol=1e-9)
        assert not np.allclose(backed_off, exact, rtol=0, atol=1e-6)  # (another rule)


def test_rows_with_missing_values_and_other_models_are_refused():
    X, y, _ = _data(2)
    estimator = KDBClassifier(k=1).fit(X, y)
    codes = estimator.encoder_.transform(X[:2])
    codes[0, 1] = -1
    with pytest.raises(ValueError, match="no missing value"):
        summed_out_log_posteriors(estimator.model_, estimator.class_log_prior_, codes)
    assert not supports_summed_out(NaiveBayesClassifier().fit(X, y).model_)
    assert not supports_summed_out(None)
