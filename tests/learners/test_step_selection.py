"""How many steps of a structure search to keep, by cross-validation (002, 6.5.2)."""

import numpy as np
import pytest

from discotree import TANClassifier
from discotree.learners.step_selection import held_out_rates, steps_by_cross_validation
from discotree.models.bayes_net import BayesNetModel, NodeScores
from discotree.stats.folds import content_folds
from discotree.stats.pair_statistics import PairStatistics
from discotree.structure.bayes_net_search import (
    Scorer,
    greedy_search,
    order_search,
    superparent_search,
)
from discotree.structure.orderings import omi_order
from tests.classifiers.test_ktree import _random_problem


def _problem(rng, n_samples=160, n_features=6, n_classes=3, missing=0.0):
    """The random problem of the k-tree tests, with weights."""
    codes, class_index, n_categories = _random_problem(
        rng, n_samples, n_features, n_classes, missing
    )
    weights = rng.random(n_samples) + 0.5
    return codes, class_index, weights, n_categories, n_classes


def _search(kind, k, n_classes, n_categories):
    def run(codes, class_index, weights):
        stats = PairStatistics.from_codes(codes, class_index, n_categories, n_classes, weights)
        state = NodeScores.naive_bayes(
            codes, class_index, weights, n_classes, n_categories, 1.0, 1e-5, stats
        )
        scorer = Scorer(class_index, weights, "cr", True)
        steps = []
        if kind == "cr":
            greedy_search(state, k, scorer, steps=steps)
        elif kind == "superparent":
            superparent_search(state, k, scorer, steps=steps)
        else:
            order = omi_order(codes, class_index, weights, n_classes, n_categories, stats)
            order_search(state, k, order, scorer, steps=steps)
        return steps

    return run


def _reference_rates(steps, train, held, n_classes, n_categories, alpha, epsilon):
    """Each prefix fitted from scratch and scored row by row."""
    codes, class_index, weights = train
    rates = []
    for parents in [[()] * len(n_categories), *steps]:
        model = BayesNetModel.maximum_likelihood(
            codes,
            class_index,
            weights,
            n_classes,
            n_categories,
            parents,
            alpha=alpha,
            epsilon=epsilon,
        )
        correct = 0.0
        for row, c, w in zip(*held, strict=True):
            joint = model.log_likelihood(row[None, :])[0] + model.class_log_prior
            correct += w * (int(np.argmax(joint)) == c)
        rates.append(correct)
    return np.array(rates)


@pytest.mark.parametrize("kind", ["cr", "superparent", "omi-cr"])
@pytest.mark.parametrize("k", [1, 2])
def test_searches_record_nested_steps_ending_at_their_result(rng, kind, k):
    codes, class_index, weights, n_categories, n_classes = _problem(rng)
    steps = _search(kind, k, n_classes, n_categories)(codes, class_index, weights)
    assert steps, "the problem has dependencies a search should take"
    previous = [()] * len(n_categories)
    for parents in steps:  # each step adds parents and removes none
        assert all(set(old) <= set(new) for old, new in zip(previous, parents, strict=True))
        assert parents != previous
        previous = parents
    stats = PairStatistics.from_codes(codes, class_index, n_categories, n_classes, weights)
    state = NodeScores.naive_bayes(
        codes, class_index, weights, n_classes, n_categories, 1.0, 1e-5, stats
    )
    scorer = Scorer(class_index, weights, "cr", True)
    if kind == "cr":
        result = greedy_search(state, k, scorer)
    elif kind == "superparent":
        result = superparent_search(state, k, scorer)
    else:
        order = omi_order(codes, class_index, weights, n_classes, n_categories, stats)
        result = order_search(state, k, order, scorer)
    assert steps[-1] == result


@pytest.mark.parametrize("missing", [0.0, 0.1])
def test_held_out_rates_equal_refitting_each_prefix(rng, missing):
    codes, class_index, weights, n_categories, n_classes = _problem(rng, missing=missing)
    train, held = slice(0, 110), slice(110, None)
    part = (codes[train], class_index[train], weights[train])
    steps = _search("cr", 2, n_classes, n_categories)(*part)
    rest = (codes[held], class_index[held], weights[held])
    for alpha, epsilon in [(1.0, 1e-5), (0.0, 1e-5)]:
        fast = held_out_rates(
            steps, part, rest, n_classes, n_categories, alpha=alpha, epsilon=epsilon
        )
        slow = _reference_rates(steps, part, rest, n_classes, n_categories, alpha, epsilon)
        np.testing.assert_allclose(fast, slow, rtol=1e-12, atol=1e-12)


def test_the_folds_are_the_weight_equivalent_content_folds(rng):
    """A row of weight 2 and the row repeated are held out together: the step chosen
    from weighted rows is the one chosen from repeated rows."""
    codes, class_index, _, n_categories, n_classes = _problem(rng, n_samples=150)
    search = _search("cr", 2, n_classes, n_categories)
    twice = rng.random(150) < 0.3
    weighted = np.where(twice, 2.0, 1.0)
    repeated = np.concatenate([np.arange(150), np.flatnonzero(twice)])
    args = (n_classes, n_categories, 4, 1.0, 1e-5, 3)
    by_weight = steps_by_cross_validation(search, codes, class_index, weighted, *args)
    by_copies = steps_by_cross_validation(
        search, codes[repeated], class_index[repeated], np.ones(len(repeated)), *args
    )
    assert by_weight[0] == by_copies[0]
    np.testing.assert_allclose(by_weight[1], by_copies[1], rtol=1e-12)


def test_steps_by_cross_validation_takes_the_best_prefix_by_exhaustive_scoring(rng):
    codes, class_index, weights, n_categories, n_classes = _problem(rng, n_samples=200)
    search = _search("omi-cr", 2, n_classes, n_categories)
    n_steps, rates = steps_by_cross_validation(
        search,
        codes,
        class_index,
        weights,
        n_classes,
        n_categories,
        4,
        1.0,
        1e-5,
        7,
    )
    folds = content_folds(codes, 4, 7)
    per_fold = []
    for k in range(4):
        tr, he = folds != k, folds == k
        if not np.all(np.bincount(class_index[tr], weights[tr], minlength=n_classes) > 0):
            continue
        part = (codes[tr], class_index[tr], weights[tr])
        steps = search(*part)
        per_fold.append(
            _reference_rates(
                steps,
                part,
                (codes[he], class_index[he], weights[he]),
                n_classes,
                n_categories,
                1.0,
                1e-5,
            )
        )
    longest = max(map(len, per_fold))
    total = sum(np.pad(r, (0, longest - len(r)), mode="edge") for r in per_fold)
    np.testing.assert_allclose(rates, total / weights.sum(), rtol=1e-12)
    best = max(total)
    expected = min(m for m in range(longest) if total[m] >= best - 1e-9 * weights.sum())
    assert n_steps == expected


def _overfitting_problem(seed):
    """Two informative features, the others noise with many categories: a 2-tree on
    few rows fits the noise."""
    rng = np.random.default_rng(seed)
    n = 120
    y = rng.integers(0, 2, n)
    informative = [np.where(rng.random(n) < 0.8, y, 1 - y) for _ in range(2)]
    noise = [rng.integers(0, 4, n) for _ in range(6)]
    return np.column_stack([*informative, *noise]), y


@pytest.mark.parametrize("structure", ["omi-cr", "cr", "superparent"])
def test_tan_keeps_a_prefix_of_its_own_search(structure):
    X, y = _overfitting_problem(0)
    full = TANClassifier(k=2, structure=structure, alpha=1.0).fit(X, y)
    cv = TANClassifier(k=2, structure=structure, alpha=1.0, structure_folds=5).fit(X, y)
    assert 0 <= cv.n_structure_steps_ <= len(cv.structure_cv_rates_) - 1
    assert cv.n_structure_steps_ <= cv.n_search_steps_
    if structure == "omi-cr":  # one step per node given parents, on all the rows
        assert cv.n_search_steps_ == sum(1 for pa in full.attribute_parents_ if pa)
    if structure == "omi-cr":  # a prefix of the order: each node has all or none
        for kept, every in zip(cv.attribute_parents_, full.attribute_parents_, strict=True):
            assert kept in ((), every)
    for kept, every in zip(cv.attribute_parents_, full.attribute_parents_, strict=True):
        assert set(kept) <= set(every)
    n_edges_full = sum(map(len, full.attribute_parents_))
    assert sum(map(len, cv.attribute_parents_)) <= n_edges_full
    kept_weights = cv.edge_weights_ > 0
    for j, pa in enumerate(cv.attribute_parents_):
        assert all(kept_weights[j, p] for p in pa)
    assert kept_weights.sum() <= 2 * sum(map(len, cv.attribute_parents_))
    refit = TANClassifier(k=2, structure=structure, alpha=1.0, structure_folds=5).fit(X, y)
    assert refit.attribute_parents_ == cv.attribute_parents_  # deterministic


def test_structure_folds_drop_noise_edges_on_an_overfitting_problem():
    """On noise features the full 2-tree search adds edges; the cross-validated one
    keeps fewer of them over several draws."""
    kept, every = 0, 0
    for seed in range(4):
        X, y = _overfitting_problem(seed)
        full = TANClassifier(k=2, structure="omi-cr", alpha=1.0).fit(X, y)
        cv = TANClassifier(k=2, structure="omi-cr", alpha=1.0, structure_folds=5).fit(X, y)
        every += sum(map(len, full.attribute_parents_))
        kept += sum(map(len, cv.attribute_parents_))
    assert kept < every


@pytest.mark.parametrize(
    "params",
    [
        {"structure_folds": 1, "structure": "cr"},
        {"structure_folds": 2.5, "structure": "cr"},
        {"structure_folds": 5},  # structure="cmi"
        {"structure_folds": 5, "structure": "omi-crcl"},
        {"structure_folds": 5, "structure": "cr", "k": 0},
    ],
)
def test_structure_folds_is_validated(params):
    X, y = _overfitting_problem(0)
    with pytest.raises(ValueError, match="structure_folds"):
        TANClassifier(**params).fit(X, y)
