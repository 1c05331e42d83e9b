"""The concentrations of hierarchical smoothing from the tables alone against the rows'
choice: the array reference (``choose_concentrations`` of the left-out level counts)
and the compiled pass (``leave_one_out_backoff_terms``), on random problems with
missing values and weights of 0 or at least 1."""

import numpy as np
import pytest

from discotree.stats.concentration_choice import (
    concentrations_from_tables,
    tables_choose_concentrations,
)
from discotree.stats.family_tables import prefix_family_tables
from discotree.stats.hierarchical import (
    choose_concentrations,
    leave_one_out_backoff_terms,
    level_counts,
)


def _problem(rng: np.random.Generator, weighted: bool):
    n, d, n_classes = int(rng.integers(5, 300)), int(rng.integers(2, 6)), int(rng.integers(2, 4))
    n_categories = rng.integers(2, 5, d)
    codes = np.stack([rng.integers(0, k, n) for k in n_categories], axis=1)
    codes[rng.random((n, d)) < 0.1] = -1
    y = rng.integers(0, n_classes, n)
    weights = rng.choice([0.0, 1.0, 1.0, 2.0, 3.5], n) if weighted else np.ones(n)
    ranked = tuple(int(v) for v in rng.permutation(np.arange(1, d))[: int(rng.integers(0, d))])
    tables = prefix_family_tables(
        codes, y, weights, n_classes, n_categories, [ranked] + [()] * (d - 1)
    )[0]
    return codes, y, weights, n_categories, ranked, tables


@pytest.mark.parametrize("weighted", [False, True])
def test_the_tables_choose_as_the_rows_do(weighted):
    rng = np.random.default_rng(7 + weighted)
    for _ in range(150):
        codes, y, weights, n_categories, ranked, tables = _problem(rng, weighted)
        alpha = float(rng.choice([0.5, 1.0]))
        unit = np.minimum(weights, 1.0)
        levels = level_counts(tables, codes, ranked, n_categories, len(ranked))
        reference = choose_concentrations(
            levels.without(y, unit), y, weights, alpha, int(n_categories[0])
        )
        _, compiled = leave_one_out_backoff_terms(
            tables, codes, ranked, n_categories, y, unit=unit, alpha=alpha, weights=weights
        )
        chosen = concentrations_from_tables(tables, n_categories[list(ranked)], alpha)
        assert chosen.tolist() == reference.tolist() == compiled.tolist()


def test_the_tables_choose_only_for_whole_weights():
    assert tables_choose_concentrations(np.array([0.0, 1.0, 7.25]))
    assert not tables_choose_concentrations(np.array([1.0, 0.999]))
    assert tables_choose_concentrations(np.zeros(0))


def test_no_rows_scored_take_the_first_concentration():
    codes = np.array([[0, 0], [1, 1]])  # every (configuration, class) holds one row
    tables = prefix_family_tables(
        codes, np.array([0, 1]), np.ones(2), 2, np.array([2, 2]), [(1,), ()]
    )[0]
    chosen = concentrations_from_tables(tables, np.array([2]), 1.0, grid=(0.5, 2.0))
    assert chosen.tolist() == [0.5, 0.5]
