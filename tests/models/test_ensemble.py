"""The ensemble's coarsening maps and its averaged posterior."""

import numpy as np
from numpy.testing import assert_allclose
from scipy.special import softmax

from discotree.models.ensemble import (
    KDBEnsembleModel,
    apply_maps,
    coarsening_maps,
    mapped_categories,
)
from discotree.models.k_dependence import KDependenceModel
from discotree.stats.family_tables import prefix_family_tables


def test_maps_are_monotone_onto_at_most_n_bins_and_keep_missing(rng):
    n_categories = np.array([30, 4, 12])
    maps = coarsening_maps(n_categories, [0, 2], 5, rng)
    assert maps[1] is None
    for m in (maps[0], maps[2]):
        assert (np.diff(m) >= 0).all() and m[0] == 0 and m.max() <= 4
    assert list(mapped_categories(n_categories, maps)) == [maps[0].max() + 1, 4, maps[2].max() + 1]
    codes = np.array([[29, 3, -1], [0, -1, 11]])
    mapped = apply_maps(codes, maps)
    assert mapped[0, 2] == -1 and mapped[1, 1] == -1 and mapped[0, 0] == maps[0][29]
    # a column with no more fine bins than n_bins is kept
    assert coarsening_maps(np.array([3]), [0], 5, rng)[0] is None


def test_the_posterior_is_the_mean_of_the_members(rng):
    codes = rng.integers(0, 3, (100, 3))
    y = rng.integers(0, 2, 100)
    n_categories = np.array([3, 3, 3])
    members, maps = [], []
    for parents in ([(), (0,), (1,)], [(), (), (0, 1)]):
        tables = prefix_family_tables(codes, y, None, 2, n_categories, parents)
        members.append(KDependenceModel(n_categories, [0, 1, 2], parents, tables, 1.0, 0.0))
        maps.append([None, None, None])
    prior = np.log([0.4, 0.6])
    ensemble = KDBEnsembleModel(maps, members, prior)
    posterior = softmax(ensemble.log_likelihood(codes) + prior, axis=1)
    each = [softmax(m.log_likelihood(codes) + prior, axis=1) for m in members]
    assert_allclose(posterior, np.mean(each, axis=0))
