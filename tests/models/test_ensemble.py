"""The ensemble's coarsening maps and its averaged posterior."""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.special import softmax
from sklearn.datasets import load_wine

from discotree import KDBEnsembleClassifier
from discotree.models.category_maps import apply_maps, mapped_categories
from discotree.models.ensemble import KDBEnsembleModel, coarsening_maps, sampled_mdl_maps
from discotree.models.k_dependence import KDependenceModel
from discotree.stats.family_tables import prefix_family_tables
from discotree.transformers.mdl import sampled_mdl_partition


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
    posterior = softmax(ensemble.class_scores(codes, prior), axis=1)
    each = [softmax(m.log_likelihood(codes) + prior, axis=1) for m in members]
    assert_allclose(posterior, np.mean(each, axis=0))


def test_sampled_mdl_maps_are_drawn_from_each_binned_columns_class_counts(rng):
    n_categories = np.array([6, 3, 5])
    counts = [rng.poisson(5, (6, 2)).astype(float), rng.poisson(5, (5, 2)).astype(float)]
    counts[0][:3, 0] += 20
    maps = sampled_mdl_maps(n_categories, [0, 2], counts, np.random.default_rng(4))
    assert maps[1] is None
    again = np.random.default_rng(4)  # the same draws, column by column
    assert maps[0].tolist() == sampled_mdl_partition(counts[0], again).tolist()
    assert maps[2].tolist() == sampled_mdl_partition(counts[1], again).tolist()
    assert maps[0].max() >= 1  # the informative column keeps at least two bins


def test_the_ensemble_coarsens_by_sampled_mdl_and_refuses_unknown_names():
    X, y = load_wine(return_X_y=True)
    fitted = KDBEnsembleClassifier(n_estimators=3, coarsening="sampled-mdl").fit(X, y)
    bins = {int(m.max()) + 1 for maps in fitted.model_.maps for m in maps if m is not None}
    assert min(bins) >= 2 and fitted.score(X, y) > 0.9
    with pytest.raises(ValueError, match="coarsening must be one of"):
        KDBEnsembleClassifier(coarsening="mdl").fit(X, y)


@pytest.mark.parametrize(
    "params",
    [
        {"linear_weight": 0.5, "pair_weight": 0.3},  # the default logarithmic pooling
        {"linear_weight": 0.0, "pair_pooling": "linear", "pair_weight": 0.5},
    ],
)
def test_a_row_with_every_feature_missing_gets_the_class_prior(params):
    """Missing features are summed out: the kDB members give the prior for such a row,
    and the linear and pair members (whose intercept-only posterior is not the prior)
    give it too, so the ensemble gives the prior, as naive Bayes does (issue 50)."""
    rng = np.random.default_rng(0)
    y = np.r_[np.zeros(70, int), np.ones(30, int), np.full(20, 2)]
    X = rng.integers(0, 3, (len(y), 4)).astype(float)
    X[:, 0] += y
    X[:, 1] = rng.normal(size=len(y)) + y  # binned
    model = KDBEnsembleClassifier(n_estimators=2, **params).fit(X, y)
    blank = np.full((2, 4), np.nan)
    prior = np.exp(model.class_log_prior_)
    assert_allclose(model.predict_proba(blank), [prior, prior], rtol=0, atol=1e-12)
    assert model.model_.linear is not None or model.model_.pair_member is not None
    partly = X[:3].copy()
    partly[:, 1:] = np.nan  # one feature observed: not the prior
    assert np.abs(model.predict_proba(partly) - prior).max() > 1e-3


def test_predictions_equal_the_per_node_scoring(rng, monkeypatch):
    # the members' packed scoring (discotree.stats.backoff_prediction) against every
    # node scored one at a time, the reference: on rows with missing values too
    X = rng.normal(size=(100, 5))
    X[:, 4] = rng.integers(0, 3, 100)
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(int) + (X[:, 4] == 2)
    X[rng.random(X.shape) < 0.1] = np.nan
    model = KDBEnsembleClassifier(n_estimators=2, random_state=0).fit(X, y)
    fast = model.predict_proba(X)
    with monkeypatch.context() as patch:  # the members one after the other: the same
        patch.setattr("discotree.threads.available_cores", lambda: 1)
        assert np.array_equal(model.predict_proba(X), fast)
    for member in model.model_.members:
        member.__dict__["_packed_backoff"] = None  # (every node through the reference)
    assert_allclose(model.predict_proba(X), fast, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("missing", [False, True])
def test_a_fit_prepares_the_members_prediction_tables_and_pickles_none(
    rng, missing, prediction_kernels_at_hand
):
    # KDBEnsembleModel.prepare_prediction at the end of fit: the packed tables (and,
    # where the training rows miss values, the dense tables of the exact sum-out) are
    # built, kept out of the pickle, and a model without them predicts the same bits
    import pickle

    X = rng.normal(size=(120, 5))
    X[:, 4] = rng.integers(0, 3, 120)
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(int)
    if missing:
        X[rng.random(X.shape) < 0.1] = np.nan
    clf = KDBEnsembleClassifier(n_estimators=2, random_state=0).fit(X, y)
    for member in clf.model_.members:
        assert member.__dict__["_packed_backoff"] is not None
        assert ("_flat_tables" in member.__dict__) == missing
    loaded = pickle.loads(pickle.dumps(clf))
    for member in loaded.model_.members:
        assert "_packed_backoff" not in member.__dict__
        assert "_flat_tables" not in member.__dict__
    test = X.copy()
    test[rng.random(X.shape) < 0.2] = np.nan
    assert np.array_equal(loaded.predict_proba(test), clf.predict_proba(test))


def test_a_pickled_ensemble_is_the_same_model_and_smaller(rng):
    # members' tables and the maps packed for pickle (KDependenceModel.__reduce__,
    # KDBEnsembleModel.__reduce__): the same numbers, predictions and JSON state; a
    # model pickled the old way (its plain state) still loads
    import pickle

    from discotree.models.k_dependence import unpickled_model

    X, y = load_wine(return_X_y=True)
    clf = KDBEnsembleClassifier(n_estimators=3).fit(X, y)
    model = clf.model_
    loaded = pickle.loads(pickle.dumps(clf))
    assert np.array_equal(loaded.predict_proba(X), clf.predict_proba(X))
    for member, back in zip(model.members, loaded.model_.members, strict=True):
        for node, node_back in zip(member.tables, back.tables, strict=True):
            for table, got in zip(node, node_back, strict=True):
                assert np.array_equal(table.cells, got.cells)
                assert np.array_equal(table.masses, got.masses)
        assert back.__getstate__().keys() == member.__getstate__().keys()
    for maps, maps_back in zip(model.maps, loaded.model_.maps, strict=True):
        for m, got in zip(maps, maps_back, strict=True):
            assert (m is None and got is None) or np.array_equal(m, got)
    plain = [
        len(pickle.dumps((type(m), m.__getstate__()))) for m in model.members
    ]  # (what the default pickle stored)
    assert sum(len(pickle.dumps(m)) for m in model.members) < sum(plain)
    old = unpickled_model(KDependenceModel, model.members[0].__getstate__())
    assert np.array_equal(
        old.log_likelihood(np.zeros((2, X.shape[1]), dtype=np.intp)),
        model.members[0].log_likelihood(np.zeros((2, X.shape[1]), dtype=np.intp)),
    )
