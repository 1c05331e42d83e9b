"""k-tree Bayesian network classifiers (002): inference, search, CL parameters, estimator."""

import itertools

import numpy as np
import pytest

from discotree import TANClassifier
from discotree.datasets.synthetic import sample_joint_table, three_variable_example
from discotree.models.bayes_net import (
    BayesNetModel,
    NodeScores,
)
from discotree.models.conditional_likelihood import conditional_log_likelihood
from discotree.stats.pair_statistics import PairStatistics
from discotree.structure.bayes_net_search import (
    Scorer,
    StackedColumns,
    greedy_search,
    order_search,
    superparent_search,
)
from discotree.structure.orderings import mmi_order, ocr_order, omi_order, omisp_order
from tests import reference

STRUCTURES = ["cr", "superparent", "omi-cr", "mmi-cr", "omisp-cr", "ocr-cr", "ro-cr"]


def _random_problem(rng, n_samples=150, n_features=5, n_classes=3, missing=0.0):
    n_categories = rng.integers(2, 4, size=n_features)
    class_index = rng.integers(0, n_classes, size=n_samples)
    codes = np.column_stack(
        [
            (rng.integers(0, r, size=n_samples) + class_index * (j % 2)) % r
            for j, r in enumerate(n_categories)
        ]
    )
    codes[:, 1] = np.where(rng.random(n_samples) < 0.7, codes[:, 0] % n_categories[1], codes[:, 1])
    if missing:
        codes[rng.random(codes.shape) < missing] = -1
    return codes.astype(np.intp), class_index.astype(np.intp), n_categories.astype(np.intp)


def _random_model(rng, n_classes, n_categories, parents):
    log_cpts = []
    for j, pa in enumerate(parents):
        shape = (n_classes, *(int(n_categories[p]) for p in pa), int(n_categories[j]))
        log_cpts.append(np.log(rng.dirichlet(np.ones(shape[-1]), size=shape[:-1])))
    prior = rng.dirichlet(np.ones(n_classes))
    return BayesNetModel(np.asarray(n_categories), list(parents), log_cpts, np.log(prior))


def _brute_force(model, row):
    n = model.n_features
    out = np.full(model.n_classes, -np.inf)
    missing = [j for j in range(n) if row[j] < 0]
    for values in itertools.product(*(range(int(model.n_categories[j])) for j in missing)):
        x = np.array(row)
        x[missing] = values
        for c in range(model.n_classes):
            value = sum(
                model.log_cpts[j][(c, *(int(x[p]) for p in pa), int(x[j]))]
                for j, pa in enumerate(model.parents)
            )
            out[c] = np.logaddexp(out[c], value)
    return out


@pytest.mark.parametrize("seed", range(4))
def test_missing_features_are_summed_out_exactly(seed):
    rng = np.random.default_rng(seed)
    n_categories = rng.integers(2, 4, size=6)
    parents = [(), (0,), (0, 1), (1, 2), (0, 3), (2, 4)]  # a 2-tree
    model = _random_model(rng, 3, n_categories, parents)
    rows = np.column_stack([rng.integers(0, r, size=12) for r in n_categories])
    rows[rng.random(rows.shape) < 0.5] = -1
    rows[0] = -1  # everything missing: log P(x | c) = 0
    got = model.log_likelihood(rows)
    for s, row in enumerate(rows):
        np.testing.assert_allclose(got[s], _brute_force(model, row), atol=1e-10)
    np.testing.assert_allclose(got[0], 0.0, atol=1e-12)


def test_node_scores_update_only_the_changed_node():
    rng = np.random.default_rng(1)
    codes, class_index, n_categories = _random_problem(rng)
    weights = np.ones(len(codes))
    state = NodeScores.naive_bayes(codes, class_index, weights, 3, n_categories, 1.0, 1e-5)
    state.set_parents(2, (0, 1))
    state.set_parents(3, (2,))
    model = BayesNetModel.maximum_likelihood(
        codes, class_index, weights, 3, n_categories, state.parents, alpha=1.0, epsilon=1e-5
    )
    np.testing.assert_allclose(state.joint, model.joint_log_likelihood(codes), atol=1e-10)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("k", [1, 2])
def test_greedy_cr_with_speedups_equals_plain_search(seed, k):
    rng = np.random.default_rng(seed)
    codes, class_index, n_categories = _random_problem(rng, missing=0.05 * seed)
    weights = rng.integers(1, 3, size=len(codes)).astype(float)  # exact sums
    plain = reference.greedy_cr_structure(
        codes, class_index, weights, 3, n_categories, k, 1.0, 1e-5
    )
    pair_stats = PairStatistics.from_codes(codes, class_index, n_categories, 3, weights)
    # without pair tables every candidate column is computed on its own; with them the
    # single-parent candidates of a node share one table
    for early_abandon, stats in [(True, None), (False, None), (True, pair_stats)]:
        state = NodeScores.naive_bayes(
            codes, class_index, weights, 3, n_categories, 1.0, 1e-5, stats
        )
        scorer = Scorer(class_index, weights, "cr", early_abandon=early_abandon, chunk=16)
        assert greedy_search(state, k, scorer) == plain
        if early_abandon:
            assert scorer.n_abandoned > 0
            assert scorer.n_rows_scored < scorer.n_evaluations * len(codes)


@pytest.mark.parametrize("missing", [0.0, 0.1])
def test_single_parent_columns_equal_separate_lookups(missing):
    rng = np.random.default_rng(7)
    codes, class_index, n_categories = _random_problem(rng, missing=missing)
    weights = rng.random(len(codes))
    pair_stats = PairStatistics.from_codes(codes, class_index, n_categories, 3, weights)
    state = NodeScores.naive_bayes(
        codes, class_index, weights, 3, n_categories, 0.5, 1e-5, pair_stats
    )
    for node in range(codes.shape[1]):
        shared = state.single_parent_columns(node)
        parents = np.array([p for p in range(codes.shape[1]) if p != node])
        index = shared.index(parents, np.arange(len(codes)))
        for row, parent in enumerate(parents):
            separate = state.lookup(node, (int(parent),)).full()
            np.testing.assert_array_equal(shared.table[index[row]], separate)
            np.testing.assert_array_equal(shared.column(int(parent)).full(), separate)


@pytest.mark.parametrize("weighting", ["fractional", "whole", "ones"])
def test_batched_scores_are_exact_for_every_possible_winner(weighting):
    # values_above returns the exact score of every candidate that could be the first
    # best above the threshold, None for the others (whole-number weights are summed
    # in the scorer's order, the others in sample order: both equal value() exactly)
    rng = np.random.default_rng(8)
    codes, class_index, n_categories = _random_problem(rng, n_samples=400, missing=0.05)
    weights = {
        "fractional": rng.random(len(codes)),
        "whole": rng.integers(0, 4, len(codes)).astype(float),
        "ones": np.ones(len(codes)),
    }[weighting]
    assert Scorer(class_index, weights)._whole_weights == (weighting != "fractional")
    state = NodeScores.naive_bayes(codes, class_index, weights, 3, n_categories, 1.0, 1e-5)
    plain = Scorer(class_index, weights, early_abandon=False)
    for node in range(codes.shape[1]):
        candidates = [(p,) for p in range(codes.shape[1]) if p != node]
        exact = [
            plain.value(state.joint - state.columns[node] + state.column(node, c))
            for c in candidates
        ]
        for threshold in (0.0, plain.value(state.joint), max(exact) - 0.02):
            scorer = Scorer(class_index, weights, chunk=16)
            scorer.reorder(state.joint)
            news = StackedColumns([state.lookup(node, c) for c in candidates])
            scores = scorer.values_above(state.joint, threshold, state.columns[node], news)
            for score, value in zip(scores, exact, strict=True):
                if score is not None:
                    assert score == value
                elif value > threshold:
                    assert value < max(exact)  # abandoned: it could not be the best
            if max(exact) > threshold:
                assert max(s for s in scores if s is not None) == max(exact)


def _is_valid(parents, k):
    n = len(parents)
    assert all(len(pa) <= k and len(set(pa)) == len(pa) for pa in parents)
    assert all(j not in pa and all(0 <= p < n for p in pa) for j, pa in enumerate(parents))
    # acyclic: a topological order exists
    remaining, placed = set(range(n)), set()
    while remaining:
        ready = [j for j in remaining if set(parents[j]) <= placed]
        assert ready, f"cycle in {parents}"
        placed.update(ready)
        remaining.difference_update(ready)


@pytest.mark.parametrize("k", [0, 1, 2])
@pytest.mark.parametrize("structure", ["cmi", *STRUCTURES])
def test_every_structure_is_a_valid_ktree(k, structure):
    rng = np.random.default_rng(3)
    codes, class_index, _ = _random_problem(rng, n_samples=120, n_features=6, missing=0.03)
    model = TANClassifier(k=k, structure=structure).fit(codes, class_index)
    _is_valid(model.attribute_parents_, k)
    if k == 0:
        assert all(pa == () for pa in model.attribute_parents_)
    proba = model.predict_proba(codes)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)


@pytest.mark.parametrize("k", [1, 2])
@pytest.mark.parametrize("structure", [*STRUCTURES, "omi-crcl"])
def test_discriminative_edge_weights_are_the_gains_that_added_the_edges(k, structure):
    """edge_weights_ of a search is positive exactly on its edges; with one edge per
    step (k = 1, except SuperParent's pairs at k = 2) the gains add up to the training
    classification rate gained over naive Bayes (the scores are ML-parameter CRs)."""
    rng = np.random.default_rng(8)
    codes, class_index, _ = _random_problem(rng, n_samples=150, n_features=6, missing=0.0)
    model = TANClassifier(k=k, structure=structure, alpha=1.0).fit(codes, class_index)
    weights = model.edge_weights_
    np.testing.assert_array_equal(weights, weights.T)
    with_weight = {(i, j) for i, j in zip(*np.nonzero(np.triu(weights)), strict=True)}
    assert with_weight == set(model.edges_[0])
    if k == 1 and structure != "omi-crcl":  # CRCL scores CL-trained parameters
        naive = TANClassifier(k=0, alpha=1.0).fit(codes, class_index)
        gained = model.score(codes, class_index) - naive.score(codes, class_index)
        assert np.triu(weights).sum() == pytest.approx(gained, abs=1e-12)


def test_orderings_are_permutations_and_omi_starts_with_the_best_pair():
    rng = np.random.default_rng(4)
    codes, class_index, n_categories = _random_problem(rng, n_features=6)
    weights = np.ones(len(codes))
    for order_fn in (omi_order, omisp_order, ocr_order):
        order = order_fn(codes, class_index, weights, 3, n_categories)
        assert sorted(order) == list(range(6))
    # the first pair of OMI maximises I(C; X, X') (brute force on the joint histograms)
    order = omi_order(codes, class_index, weights, 3, n_categories)

    def joint_information(i, j):
        ids = codes[:, i] * 10 + codes[:, j]
        table = np.zeros((3, 100))
        np.add.at(table, (class_index, ids), 1.0)
        p = table / table.sum()
        pc, px = p.sum(axis=1, keepdims=True), p.sum(axis=0, keepdims=True)
        nz = p > 0
        return float((p[nz] * np.log(p[nz] / (pc @ px)[nz])).sum())

    best = max(itertools.combinations(range(6), 2), key=lambda ij: joint_information(*ij))
    assert set(order[:2]) == set(best)


def test_order_search_keeps_parents_only_when_cr_improves():
    rng = np.random.default_rng(5)
    codes, class_index, n_categories = _random_problem(rng)
    weights = np.ones(len(codes))
    state = NodeScores.naive_bayes(codes, class_index, weights, 3, n_categories, 1.0, 1e-5)
    scorer = Scorer(class_index, weights)
    start = scorer.value(state.joint)
    parents = order_search(state, 1, list(range(5)), scorer)
    assert scorer.value(state.joint) >= start
    for j, pa in enumerate(parents):
        assert all(p < j for p in pa)  # parents come earlier in the order
    state2 = NodeScores.naive_bayes(codes, class_index, weights, 3, n_categories, 1.0, 1e-5)
    superparent_search(state2, 2, Scorer(class_index, weights))
    assert Scorer(class_index, weights).value(state2.joint) >= start


def test_three_variable_example_generative_vs_discriminative():
    """Section 3 of 002: CMI picks X2 - X3, the discriminative order-based search X1 - X3."""
    joint, _ = three_variable_example("pernkopf")
    X, y = sample_joint_table(joint, 4000, random_state=0)
    generative = TANClassifier(structure="cmi", alpha=0.0).fit(X, y)
    assert generative.edges_[0][:1] == [(1, 2)] or (1, 2) in generative.edges_[0]
    cmi = generative.edge_weights_
    assert cmi[1, 2] > cmi[0, 2]
    discriminative = TANClassifier(structure="omi-cr").fit(X, y)
    assert (0, 2) in discriminative.edges_[0]
    assert (1, 2) not in discriminative.edges_[0]
    assert discriminative.score(X, y) > generative.score(X, y) + 0.05


@pytest.mark.parametrize("seed", range(2))
def test_cll_gradient_matches_finite_differences(seed):
    rng = np.random.default_rng(seed)
    codes, class_index, n_categories = _random_problem(rng, n_samples=60, n_features=4)
    weights = rng.uniform(0.5, 2.0, size=60)
    model = _random_model(rng, 3, n_categories, [(), (0,), (0, 1), (2,)])
    value, grad = conditional_log_likelihood(model, codes, class_index, weights)
    flat = np.concatenate([model.class_log_prior, *(t.ravel() for t in model.log_cpts)])
    sizes = [3] + [t.size for t in model.log_cpts]
    offsets = np.cumsum([0, *sizes])

    def cll_at(vector):
        parts = [vector[a:b] for a, b in itertools.pairwise(offsets)]
        from scipy.special import log_softmax

        prior = log_softmax(parts[0])
        cpts = [
            log_softmax(p.reshape(t.shape), axis=-1)
            for p, t in zip(parts[1:], model.log_cpts, strict=True)
        ]
        trial = BayesNetModel(model.n_categories, model.parents, cpts, prior)
        joint = trial.joint_log_likelihood(codes)
        rows = np.arange(len(codes))
        return float(weights @ (joint[rows, class_index] - np.logaddexp.reduce(joint, axis=1)))

    assert cll_at(flat) == pytest.approx(value, rel=1e-10)
    step = 1e-6
    for index in rng.choice(len(flat), 25, replace=False):
        e = np.zeros_like(flat)
        e[index] = step
        numeric = (cll_at(flat + e) - cll_at(flat - e)) / (2 * step)
        assert grad[index] == pytest.approx(numeric, abs=1e-5)


def test_cl_parameters_raise_training_cll():
    rng = np.random.default_rng(7)
    codes, class_index, _ = _random_problem(rng, n_samples=300)
    ml = TANClassifier(k=1, structure="omi-cr").fit(codes, class_index)
    cl = TANClassifier(k=1, structure="omi-cr", parameters="cl", cl_max_iter=50).fit(
        codes, class_index
    )
    rows = np.arange(len(codes))

    def cll(model):
        return float(model.predict_log_proba(codes)[rows, class_index].sum())

    assert cl.attribute_parents_ == ml.attribute_parents_
    assert cll(cl) >= cll(ml) - 1e-9
    assert cl.cl_iterations_ >= 0


def test_bad_parameters_are_named():
    X = np.array([[0, 1], [1, 0], [1, 1], [0, 0]])
    y = [0, 1, 1, 0]
    for kwargs, match in [
        ({"k": 3}, "k must be 0, 1 or 2"),
        ({"structure": "hill"}, "structure must be one of"),
        ({"parameters": "map"}, "parameters must be"),
        ({"structure_score": "auc"}, "structure_score"),
        ({"k": 2, "n_edges": 1}, "n_edges applies"),
    ]:
        with pytest.raises(ValueError, match=match):
            TANClassifier(**kwargs).fit(X, y)


def test_forest_structured_models_use_the_forest_kernel_with_the_same_answer():
    rng = np.random.default_rng(11)
    n_categories = rng.integers(2, 4, size=5)
    parents = [(), (0,), (0,), (2,), ()]
    model = _random_model(rng, 2, n_categories, parents)
    rows = np.column_stack([rng.integers(0, r, size=20) for r in n_categories])
    rows[rng.random(rows.shape) < 0.4] = -1
    got = model.log_likelihood(rows)
    for s, row in enumerate(rows):
        np.testing.assert_allclose(got[s], _brute_force(model, row), atol=1e-10)
    np.testing.assert_allclose(got, np.array([model.marginal(r) for r in rows]), atol=1e-10)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("n_samples", [80, 600])
def test_omi_order_equals_plain_histograms(seed, n_samples):
    # weights and missing values; with and without the pair tables; with 600 samples
    # the chosen attributes do not determine the class before the end
    rng = np.random.default_rng(10 + seed)
    codes, class_index, n_categories = _random_problem(
        rng, n_samples=n_samples, n_features=6, missing=0.1 * (seed % 2)
    )
    weights = rng.integers(1, 4, size=len(codes)).astype(float)
    pair_stats = PairStatistics.from_codes(codes, class_index, n_categories, 3, weights)
    for minimize in (False, True):  # OMI and the minimum-MI order of Section 6.3
        expected = reference.omi_order(codes, class_index, weights, minimize)
        for stats in (None, pair_stats):
            got = omi_order(codes, class_index, weights, 3, n_categories, stats, minimize)
            assert got == expected
    assert mmi_order(codes, class_index, weights, 3, n_categories) == reference.omi_order(
        codes, class_index, weights, True
    )


@pytest.mark.parametrize("missing", [0.0, 0.1])
def test_pair_parent_columns_equal_separate_lookups(missing):
    rng = np.random.default_rng(11)
    codes, class_index, n_categories = _random_problem(rng, n_features=6, missing=missing)
    weights = rng.random(len(codes))
    state = NodeScores.naive_bayes(codes, class_index, weights, 3, n_categories, 0.5, 1e-5)
    for node in range(codes.shape[1]):
        others = [p for p in range(codes.shape[1]) if p != node]
        pairs = list(itertools.combinations(others, 2))
        shared = state.pair_parent_columns(node, pairs)
        index = shared.index(np.arange(len(pairs)), np.arange(len(codes)))
        for row, pair in enumerate(pairs):
            separate = state.lookup(node, pair).full()
            np.testing.assert_array_equal(shared.table[index[row]], separate)
            np.testing.assert_array_equal(shared.column(row).full(), separate)
        rows = rng.permutation(len(codes))[:40]  # a chunk of samples, some pairs
        live = np.array([0, len(pairs) - 1, len(pairs) // 2])
        np.testing.assert_array_equal(shared.index(live, rows), index[np.ix_(live, rows)])


@pytest.mark.parametrize("k", [1, 2])
@pytest.mark.parametrize("missing", [0.0, 0.1])
def test_order_search_equals_refitting_every_candidate(k, missing):
    """Algorithm 1's step 2 against refitting the whole network for every candidate
    parent set (k = 2: the pairs counted together)."""
    rng = np.random.default_rng(20 + k + int(missing * 10))
    codes, class_index, n_categories = _random_problem(
        rng, n_samples=120, n_features=6, missing=missing
    )
    weights = rng.integers(1, 3, size=len(codes)).astype(float)  # exact sums
    order = [int(v) for v in rng.permutation(codes.shape[1])]
    plain = reference.order_cr_structure(
        codes, class_index, weights, 3, n_categories, k, order, 1.0, 1e-5
    )
    state = NodeScores.naive_bayes(codes, class_index, weights, 3, n_categories, 1.0, 1e-5)
    assert order_search(state, k, order, Scorer(class_index, weights, chunk=16)) == plain
    assert any(plain), "the problem has dependencies the search should take"


@pytest.mark.parametrize("missing", [0.0, 0.15])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_cl_objective_equals_the_node_by_node_reference(missing, n_classes):
    """Every node at once (reduceat softmax, one gather and one bincount per class)
    against Section 4.2's sums node by node, with weights and missing values."""
    from discotree.models.conditional_likelihood import _Families, _Layout, _objective

    rng = np.random.default_rng(int(missing * 100) + n_classes)
    codes, class_index, n_categories = _random_problem(
        rng, n_samples=90, n_features=5, n_classes=n_classes, missing=missing
    )
    weights = rng.uniform(0.5, 2.0, size=len(codes))
    parents = [(), (0,), (0, 1), (2,), (1, 3)]
    model = _random_model(rng, n_classes, n_categories, parents)
    layout = _Layout(model)
    flat = np.concatenate([model.class_log_prior, *(t.ravel() for t in model.log_cpts)])
    flat = flat + rng.normal(0, 0.3, flat.shape)  # not normalised: any softmax parameters
    flat[rng.choice(len(flat), 3, replace=False)] = -np.inf  # zero probabilities
    families = _Families(model, codes, layout)
    value, grad = _objective(flat, layout, families, class_index, weights, n_classes)
    shapes = layout.shapes
    ref_value, ref_grad = reference.cl_objective(
        flat, shapes, codes, parents, n_categories, class_index, weights, n_classes
    )
    assert value == pytest.approx(ref_value, rel=1e-12)
    np.testing.assert_allclose(grad, ref_grad, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("missing", [0.0, 0.05])
def test_samples_no_candidate_can_miss_are_hits_of_every_candidate(missing, monkeypatch):
    """values_above skips the samples whose margin without the node's column exceeds
    every table row's spread: each is a hit of every candidate, and the scores equal
    those read from every sample."""
    from discotree.structure import scorer as scorer_module

    rng = np.random.default_rng(12)
    codes, class_index, n_categories = _random_problem(rng, n_samples=600, missing=missing)
    weights = rng.random(len(codes))
    state = NodeScores.naive_bayes(codes, class_index, weights, 3, n_categories, 1.0, 1e-5)
    skipped = 0
    for node in range(codes.shape[1]):
        candidates = [(p,) for p in range(codes.shape[1]) if p != node]
        news = StackedColumns([state.lookup(node, c) for c in candidates])
        scorer = Scorer(class_index, weights, chunk=16)
        scorer.reorder(state.joint)
        base = scorer.difference_in_order(state.joint, state.columns[node])
        always = scorer_module._always_hit(scorer.margins_in_order(base), news.table)
        for i in range(len(candidates)):  # every candidate's joint, formed in full
            joint = state.joint - state.columns[node] + news.column(i).full()
            hit = np.argmax(joint, axis=1) == class_index
            assert hit[scorer.order][always].all()
        skipped += int(always.sum())
        threshold = scorer.value(state.joint)
        read_before = scorer.n_rows_scored
        fast = scorer.values_above(state.joint, threshold, state.columns[node], news)
        monkeypatch.setattr(scorer_module, "_always_hit", lambda margins, table: None)
        plain = Scorer(class_index, weights, chunk=16)
        plain.reorder(state.joint)
        slow = plain.values_above(state.joint, threshold, state.columns[node], news)
        monkeypatch.undo()
        assert fast == slow
        assert scorer.n_rows_scored - read_before <= plain.n_rows_scored
    assert skipped > 0  # the bound does skip samples here
