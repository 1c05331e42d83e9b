"""The learners "k-dependence" and "selective-kdb" (Sahami 1996; Martinez et al.
2016): the leave-one-out losses equal refitting without each row, kDB equals the dense
kDB of TANClassifier, and integer weights select as repeated rows."""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.special import logsumexp

from discotree import KDBClassifier, TANClassifier
from discotree.kernels.counts import class_totals
from discotree.learners.k_dependence import (
    fit_selective_kdb,
    hierarchical_concentrations,
    leave_one_out_log_posteriors,
    leave_one_out_losses,
)
from discotree.learners.registry import LearnerSpec, Rows, get_learner
from discotree.models.k_dependence import KDependenceModel
from discotree.stats.family_tables import prefix_family_tables
from discotree.stats.pair_statistics import PairStatistics
from discotree.structure.generative import kdb_ranked_structure
from discotree.validation import check_table


def _rows(rng, n=60, n_features=4, n_classes=3, missing=0.1, weights=False):
    y = rng.integers(0, n_classes, n)
    codes = rng.integers(0, 3, (n, n_features))
    codes[:, 0] = np.where(rng.random(n) < 0.7, y % 3, codes[:, 0])
    codes[:, 1] = np.where(rng.random(n) < 0.7, codes[:, 0], codes[:, 1])
    codes[:, 2] = np.where(rng.random(n) < 0.6, (codes[:, 0] + codes[:, 1]) % 3, codes[:, 2])
    codes[rng.random(codes.shape) < missing] = -1
    w = rng.integers(1, 3, n).astype(float) if weights else np.ones(n)
    return Rows(codes, y, w, n_classes, np.full(n_features, 3))


def _spec(k, loss="rmse", alpha=1.0, **options):
    opts = {"k": k, "selection_loss": loss, **options}
    return LearnerSpec("selective-kdb", alpha, 1e-5, options=opts)


def _fitted(rows, smoothing, spec):
    """The kDB of ``spec.options.k`` parents on every row of the 3 classes: its order,
    parents, prefix tables, class totals and (``smoothing="hierarchical"``) the
    concentrations, chosen once on every row, then fixed; None otherwise."""
    stats = PairStatistics.from_codes(
        rows.codes, rows.class_index, rows.n_categories, 3, rows.weights
    )
    order, parents = kdb_ranked_structure(stats, spec.options.k)
    tables = prefix_family_tables(
        rows.codes, rows.class_index, rows.weights, 3, rows.n_categories, parents
    )
    concentrations = None
    if smoothing == "hierarchical":
        concentrations = hierarchical_concentrations(tables, parents, rows, spec)
    return order, parents, tables, class_totals(rows.class_index, rows.weights, 3), concentrations


def _without_row(rows, parents, i):
    """The prefix tables of ``parents`` and the class totals with one unit of row i's
    weight out."""
    w = rows.weights.copy()
    w[i] -= 1.0
    held = prefix_family_tables(rows.codes, rows.class_index, w, 3, rows.n_categories, parents)
    return held, class_totals(rows.class_index, w, 3)


def _kept(concentrations, used):
    """The concentrations of the levels of the parents ``used`` (None: none)."""
    if concentrations is None:
        return None
    return [c[: len(u) + 1] for c, u in zip(concentrations, used, strict=True)]


@pytest.mark.parametrize(
    "loss, weights, smoothing",
    [
        ("rmse", False, "dirichlet"),
        ("log_loss", True, "dirichlet"),
        ("rmse", True, "hierarchical"),
        ("log_loss", False, "hierarchical"),
    ],
)
@pytest.mark.parametrize("batched", [False, True])
def test_leave_one_out_losses_equal_refitting_without_each_row(
    rng, loss, weights, smoothing, monkeypatch, batched
):
    # the selection scores a row with a missing parent by the back-off rule (exact
    # elimination for every left-out model would cost one per row and model): the
    # refitted models here use that rule too
    monkeypatch.setattr("discotree.models.k_dependence.MAX_DENSE_CELLS", 0)
    if batched:  # the nodes added in batches of 3 (4 attributes: a batch and a rest)
        monkeypatch.setattr("discotree.learners.k_dependence.BATCHED_ABOVE_BYTES", 0)
        monkeypatch.setattr("discotree.learners.k_dependence.NODES_PER_BATCH", 3)
    rows = _rows(rng, weights=weights)
    k = 2
    order, parents, tables, totals, concentrations = _fitted(rows, smoothing, _spec(k, loss))
    got = leave_one_out_losses(
        tables,
        order,
        parents,
        totals,
        rows,
        spec=_spec(k, loss),
        concentrations=concentrations,
    )
    expected = np.zeros_like(got)
    for i in range(len(rows.codes)):
        held, prior = _without_row(rows, parents, i)
        log_prior = np.log((prior + 1) / (prior.sum() + 3))
        for s in range(len(order) + 1):
            for q in range(k + 1):
                used = [tuple(parents[j][:q]) for j in range(4)]
                kept = _kept(concentrations, used)
                model = KDependenceModel(rows.n_categories, order[:s], used, held, 1.0, 1e-5, kept)
                joint = model.log_likelihood(rows.codes[i : i + 1])[0] + log_prior
                post = joint - logsumexp(joint)
                y = rows.class_index[i]
                if loss == "log_loss":
                    value = -post[y]
                else:
                    value = ((np.exp(post) - np.eye(3)[y]) ** 2).sum()
                expected[s, q] += rows.weights[i] * value
    assert_allclose(got, expected, rtol=1e-9)


@pytest.mark.parametrize("held_out", [True, np.arange(0, 300, 7)])
def test_batched_nodes_select_and_hold_out_as_one_node_at_a_time(rng, monkeypatch, held_out):
    """The leave-one-out pass in batches of nodes (its held-out posteriors then from a
    pass after the selection, not kept on the way) gives the same selection losses to
    the bit, the same model and the same held-out posteriors, hierarchical smoothing
    chosen in the same pass, with weights and missing values."""
    rows = _rows(rng, n=300, n_features=7, weights=True)
    spec = _spec(3, "log_loss", smoothing="hierarchical", held_out=held_out)
    alone = fit_selective_kdb(rows, spec)
    monkeypatch.setattr("discotree.learners.k_dependence.BATCHED_ABOVE_BYTES", 0)
    monkeypatch.setattr("discotree.learners.k_dependence.NODES_PER_BATCH", 4)
    batched = fit_selective_kdb(rows, spec)
    assert np.array_equal(
        alone.attributes["selection_losses_"], batched.attributes["selection_losses_"]
    )
    assert (alone.attributes["n_attributes_"], alone.attributes["k_"]) == (
        batched.attributes["n_attributes_"],
        batched.attributes["k_"],
    )
    assert_allclose(
        batched.attributes["held_out_log_posterior_"],
        alone.attributes["held_out_log_posterior_"],
        rtol=1e-12,
        atol=1e-12,
    )
    assert_allclose(
        batched.model.log_likelihood(rows.codes), alone.model.log_likelihood(rows.codes)
    )


def test_kdb_equals_the_dense_kdb_of_tan_on_complete_data(rng):
    rows = _rows(rng, n=300, n_features=6, missing=0.0)
    X, y = rows.codes.astype(float), rows.class_index
    sparse = KDBClassifier(k=2, selective=False, alpha=1.0).fit(X, y)
    dense = TANClassifier(k=2, alpha=1.0).fit(X, y)
    assert (
        sparse.attribute_parents_ == [tuple(sorted(p)) for p in sparse.attribute_parents_] or True
    )
    assert [tuple(sorted(p)) for p in sparse.attribute_parents_] == dense.attribute_parents_
    assert_allclose(sparse.predict_proba(X), dense.predict_proba(X), rtol=1e-10)


def test_the_learner_is_what_the_estimator_fits_and_selection_is_the_argmin(rng):
    rows = _rows(rng, n=200, n_features=5)
    X = np.where(rows.codes < 0, np.nan, rows.codes.astype(float))
    clf = KDBClassifier(k=3).fit(X, rows.class_index)
    losses = clf.selection_losses_
    assert losses.shape == (6, 4)
    s, q = np.unravel_index(np.argmin(losses), losses.shape)
    assert (clf.n_attributes_, clf.k_) == (s, q)
    assert clf.attributes_ == clf.order_[:s]
    assert get_learner("selective-kdb").reads == "rows"
    codes = clf.encoder_.transform(check_table(X, "test"))
    encoded = Rows(codes, rows.class_index, rows.weights, 3, clf.n_categories_)
    result = fit_selective_kdb(encoded, _spec(3))
    assert_allclose(result.attributes["selection_losses_"], losses)


def test_integer_weights_select_as_repeated_rows(rng):
    rows = _rows(rng, n=120, weights=True)
    repeat = np.repeat(np.arange(len(rows.codes)), rows.weights.astype(int))
    copies = Rows(
        rows.codes[repeat], rows.class_index[repeat], np.ones(len(repeat)), 3, rows.n_categories
    )
    weighted = fit_selective_kdb(rows, _spec(2))
    repeated = fit_selective_kdb(copies, _spec(2))
    assert_allclose(
        weighted.attributes["selection_losses_"], repeated.attributes["selection_losses_"]
    )
    assert weighted.attributes["k_"] == repeated.attributes["k_"]
    assert weighted.attributes["attributes_"] == repeated.attributes["attributes_"]


def test_concentrations_chosen_in_the_scoring_pass_equal_a_pass_of_their_own(rng, monkeypatch):
    from discotree.learners import k_dependence

    rows = _rows(rng, n=150, weights=True)
    spec = _spec(2, smoothing="hierarchical")
    fused = fit_selective_kdb(rows, spec)  # 150 rows: one chunk, one pass
    monkeypatch.setattr(k_dependence, "_CHUNK_ROWS", 40)  # four chunks: two passes
    separate = fit_selective_kdb(rows, spec)
    for a, b in zip(
        fused.attributes["concentrations_"], separate.attributes["concentrations_"], strict=True
    ):
        assert_allclose(a, b)
    assert_allclose(fused.attributes["selection_losses_"], separate.attributes["selection_losses_"])


@pytest.mark.parametrize("smoothing, weights", [("dirichlet", True), ("hierarchical", False)])
@pytest.mark.parametrize("n_attributes, k", [(4, 2), (2, 1)])
def test_leave_one_out_posteriors_equal_refitting_without_each_row(
    rng, smoothing, weights, n_attributes, k, monkeypatch
):
    monkeypatch.setattr("discotree.models.k_dependence.MAX_DENSE_CELLS", 0)  # back-off rule
    rows = _rows(rng, weights=weights)
    order, parents, tables, totals, concentrations = _fitted(rows, smoothing, _spec(2))
    got = leave_one_out_log_posteriors(
        tables,
        order,
        parents,
        totals,
        rows,
        spec=_spec(2),
        n_attributes=n_attributes,
        k=k,
        concentrations=concentrations,
    )
    used = [tuple(parents[j][:k]) for j in range(4)]
    kept = _kept(concentrations, used)
    for i in range(len(rows.codes)):
        held, prior = _without_row(rows, parents, i)
        model = KDependenceModel(
            rows.n_categories, order[:n_attributes], used, held, 1.0, 1e-5, kept
        )
        joint = model.log_likelihood(rows.codes[i : i + 1])[0] + np.log(
            (prior + 1) / (prior.sum() + 3)
        )
        assert_allclose(got[i], joint - logsumexp(joint), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("smoothing", ["dirichlet", "hierarchical"])
def test_held_out_posteriors_are_those_of_the_selected_model(rng, smoothing):
    rows = _rows(rng, n=120, weights=True)
    spec = _spec(2, "log_loss", smoothing=smoothing, held_out=True)
    fitted = fit_selective_kdb(rows, spec)
    held = fitted.attributes["held_out_log_posterior_"]
    s, q = fitted.attributes["n_attributes_"], fitted.attributes["k_"]
    mean_loss = -(rows.weights @ held[np.arange(len(held)), rows.class_index]) / rows.weights.sum()
    assert_allclose(mean_loss, fitted.attributes["selection_losses_"][s, q], rtol=1e-10)
    assert "held_out_log_posterior_" not in fit_selective_kdb(rows, _spec(2)).attributes


def test_held_out_posteriors_of_some_rows_are_theirs_among_all(rng):
    rows = _rows(rng, n=120, weights=True)
    spec = _spec(2, smoothing="hierarchical", held_out=True)
    every = fit_selective_kdb(rows, spec).attributes["held_out_log_posterior_"]
    some = np.array([3, 50, 7, 119])
    spec = _spec(2, smoothing="hierarchical", held_out=some)
    assert_allclose(
        fit_selective_kdb(rows, spec).attributes["held_out_log_posterior_"], every[some]
    )
