"""The compiled scoring kernels' small pieces (the whole kernel is tested against the
per-node back-off in tests/stats/test_backoff_prediction.py)."""

import numpy as np

from discotree.kernels.backoff_scoring import log_add_exp, run_sums


def test_log_add_exp_is_numpys(rng):
    x, y = rng.normal(size=200) * 50, rng.normal(size=200) * 50
    y[:10] = x[:10]
    y[10:20] = -np.inf
    expected = np.logaddexp(x, y)
    assert_close = [float(log_add_exp(a, b)) for a, b in zip(x, y, strict=True)]
    np.testing.assert_allclose(assert_close, expected, rtol=1e-15)
    assert float(log_add_exp(-np.inf, -np.inf)) == -np.inf


def test_run_sums_add_each_run_in_order_per_segment(rng):
    keys = np.sort(rng.integers(0, 20, 50))
    masses = rng.random(50)
    bounds = np.array([0, 20, 20, 50])  # (an empty segment)
    out_keys, out_sums = np.zeros(50, dtype=np.int64), np.zeros(50)
    out_bounds = np.zeros(4, dtype=np.int64)
    run_sums(keys, masses, bounds, np.array([3, 1, 3]), out_keys, out_sums, out_bounds)
    for g in range(3):
        segment = slice(bounds[g], bounds[g + 1])
        groups = keys[segment] // [3, 1, 3][g]
        expected_keys = np.unique(groups)
        runs = slice(out_bounds[g], out_bounds[g + 1])
        assert np.array_equal(out_keys[runs], expected_keys)
        for key, total in zip(out_keys[runs], out_sums[runs], strict=True):
            sequential = 0.0
            for mass in masses[segment][groups == key]:
                sequential += mass
            assert total == sequential
