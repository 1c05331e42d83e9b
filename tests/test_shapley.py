"""Shapley values of the log-odds (issue 32, item 1), against obviously-correct
references: every order of the features (d <= 5), every subset by its own predictions
(d = 10), the interventional average by hand, and pyAgrum's conditional Shapley values
on the exported network."""

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from discotree import KDBClassifier, NaiveBayesClassifier, TANClassifier
from discotree.explain import log_odds, shapley_values
from tests.estimators import discrete_families

MODELS = discrete_families()


def _table(n_features=5, n_classes=2, seed=0, n=300):
    """Strings, numbers and categoricals; the class depends on an interaction."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(
        {
            f"f{j}": (rng.choice(["a", "b", "c"], n) if j % 2 == 0 else rng.integers(0, 3, n))
            for j in range(n_features)
        }
    )
    y = ((X["f0"] == "a") ^ (X["f1"] == 1)).astype(int) + (rng.random(n) < 0.2)
    return X, np.asarray(y % n_classes)


def _value(estimator, row: pd.DataFrame, kept) -> np.ndarray:
    """v(S) of one row, built cell by cell: the other features set to None."""
    masked = row.astype(object).copy()
    for j, column in enumerate(row.columns):
        if j not in kept:
            masked[column] = None
    return log_odds(estimator.predict_log_proba(masked))[0]


@pytest.mark.parametrize("estimator", MODELS, ids=repr)
@pytest.mark.parametrize("n_classes", [2, 3])
def test_conditional_values_equal_the_average_over_every_order(estimator, n_classes):
    X, y = _table(n_classes=n_classes)
    estimator.fit(X, y)
    rows = X.iloc[:2].copy()
    rows.iloc[1, 3] = None  # a missing cell in an explained row
    explanation = shapley_values(estimator, rows)
    d = X.shape[1]
    for i in range(len(rows)):
        row = rows.iloc[[i]]
        value = {  # each subset's value, predicted on its own row
            frozenset(s): _value(estimator, row, s)
            for r in range(d + 1)
            for s in itertools.combinations(range(d), r)
        }
        expected = np.zeros((d, n_classes))
        for order in itertools.permutations(range(d)):
            for k, j in enumerate(order):
                before = frozenset(order[:k])
                expected[j] += value[before | {j}] - value[before]
        expected /= math.factorial(d)
        assert np.allclose(explanation.values[i], expected, rtol=0, atol=1e-9)
        assert np.allclose(explanation.base_values[i], value[frozenset()], atol=1e-9)


def test_ten_features_every_subset_and_efficiency():
    X, y = _table(n_features=10, n_classes=3, seed=1)
    estimator = KDBClassifier(k=2).fit(X, y)
    explanation = shapley_values(estimator, X.iloc[:2])
    total = explanation.base_values + explanation.values.sum(axis=1)
    assert np.allclose(total, explanation.output, rtol=0, atol=1e-9)
    full = log_odds(estimator.predict_log_proba(X.iloc[:2]))
    assert np.allclose(explanation.output, full, rtol=0, atol=1e-9)
    # the subset formula, each subset's value predicted on its own
    row, d = X.iloc[[0]], 10
    values = {
        s: _value(estimator, row, s)
        for r in range(d + 1)
        for s in itertools.combinations(range(d), r)
    }
    for j in (0, 4, 9):
        expected = sum(
            math.factorial(len(s))
            * math.factorial(d - len(s) - 1)
            / math.factorial(d)
            * (values[tuple(sorted((*s, j)))] - values[s])
            for s in values
            if j not in s
        )
        assert np.allclose(explanation.values[0, j], expected, rtol=0, atol=1e-9)


def test_sampled_values_are_efficient_and_near_the_exact_ones():
    X, y = _table(n_features=6)
    estimator = TANClassifier().fit(X, y)
    exact = shapley_values(estimator, X.iloc[:3])
    sampled = shapley_values(
        estimator, X.iloc[:3], max_exact_features=3, n_permutations=400, random_state=0
    )
    assert not sampled.exact and sampled.standard_errors is not None
    total = sampled.base_values + sampled.values.sum(axis=1)
    assert np.allclose(total, exact.output, rtol=0, atol=1e-9)
    z = np.abs(sampled.values - exact.values) / np.maximum(sampled.standard_errors, 1e-12)
    assert np.mean(z < 3) > 0.95


def test_interventional_values_average_the_background_by_hand():
    X, y = _table(n_features=3)
    estimator = TANClassifier().fit(X, y)
    background = X.iloc[10:14]
    explanation = shapley_values(
        estimator, X.iloc[:1], kind="interventional", background=background
    )

    def value(kept):
        rows = background.copy()
        for j in kept:
            rows.iloc[:, j] = X.iloc[0, j]
        return log_odds(estimator.predict_log_proba(rows)).mean(axis=0)

    d = 3
    expected = np.zeros((d, 2))
    for order in itertools.permutations(range(d)):
        before: list[int] = []
        for j in order:
            expected[j] += value([*before, j]) - value(before)
            before.append(j)
    assert np.allclose(explanation.values[0], expected / 6, atol=1e-9)


def test_a_feature_the_model_does_not_use_gets_nothing():
    X, y = _table(n_features=4)
    X["constant"] = 1
    estimator = NaiveBayesClassifier().fit(X, y)
    explanation = shapley_values(estimator, X.iloc[:3])
    assert np.allclose(explanation.values[:, -1], 0.0, atol=1e-12)


def test_arrays_and_bad_arguments():
    X, y = _table()
    numbers = X.assign(**{c: X[c].astype("category").cat.codes for c in X}).to_numpy()
    estimator = TANClassifier().fit(numbers, y)
    explanation = shapley_values(estimator, numbers[:2])
    assert explanation.feature_names == [f"x{j}" for j in range(5)]
    with pytest.raises(ValueError, match="kind"):
        shapley_values(estimator, numbers[:2], kind="causal")
    with pytest.raises(ValueError, match="background"):
        shapley_values(estimator, numbers[:2], kind="interventional")
    with pytest.raises(ValueError, match="for kind='interventional' only"):
        shapley_values(estimator, numbers[:2], background=numbers[:5])


def test_pyagrum_conditional_shapley_values_on_the_exported_network(tmp_path):
    """pyAgrum's ConditionalShapValues (logit of the posterior, evidence on the
    Markov blanket) on the XMLBIF export: the same quantity, the same numbers."""
    gum = pytest.importorskip("pyagrum")
    pytest.importorskip("IPython")  # pyagrum.explain imports it
    from pyagrum.explain import ConditionalShapValues

    from discotree.io import evidence_of, write_xmlbif

    X, y = _table(n_features=5)
    X = X.astype(str)
    estimator = TANClassifier(alpha=1.0).fit(X, np.where(y == 1, "yes", "no"))
    path = tmp_path / "model.bifxml"
    write_xmlbif(estimator, path)
    engine = ConditionalShapValues(gum.loadBN(str(path)), "class", logit=True)
    explanation = shapley_values(estimator, X.iloc[:3])
    for i, evidence in enumerate(evidence_of(estimator, X.iloc[:3])):
        theirs = engine.compute(pd.Series(evidence))
        for c in range(2):
            ours = explanation.values[i, :, c]
            assert np.allclose([theirs[c][f] for f in X.columns], ours, rtol=0, atol=1e-9)


def test_numeric_models_are_explained_interventionally():
    from sklearn.datasets import load_iris

    from discotree import ForestDensityClassifier, KernelNaiveBayesClassifier

    X, y = load_iris(return_X_y=True)
    for estimator in (KernelNaiveBayesClassifier(), ForestDensityClassifier(probability=True)):
        estimator.fit(X, y)
        explanation = shapley_values(estimator, X[:2], kind="interventional", background=X[::30])
        total = explanation.base_values + explanation.values.sum(axis=1)
        assert np.allclose(total, explanation.output, atol=1e-9)
    with pytest.raises(ValueError, match="use kind='interventional'"):
        shapley_values(KernelNaiveBayesClassifier().fit(X, y), X[:1])


# ---------------------------------------------------------------- by model structure
# (issue 48, item 3): the values from the models' score terms against masked
# predictions under the same rule: the available-case rule is the model's own when its
# dense tables are too large for exact elimination, which a limit of -1 forces.


def _mixed(n=160, n_classes=3, seed=0):
    """Five categorical columns and a numeric one (binned by the ensemble)."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, (n, 6)).astype(float)
    X[:, 5] = rng.normal(size=n)
    y = (X[:, 0] + X[:, 1] * X[:, 2] + (X[:, 5] > 0)) % n_classes
    return X, y.astype(int), rng.random(n) + 0.5


def _backoff_reference(estimator, rows, **options):
    """The masked-prediction values with every k-dependence member on its back-off
    rule (no exact elimination)."""
    from unittest import mock

    import discotree.models.k_dependence as k_dependence
    import discotree.shapley as shapley

    # the masked predictions themselves, not the structure path (which the back-off
    # rule would otherwise select for "conditional")
    with (
        mock.patch.object(k_dependence, "MAX_DENSE_CELLS", -1),
        mock.patch.object(shapley, "_structure_model", lambda *_: None),
    ):
        return shapley_values(estimator, rows, kind="conditional", **options)


def _ensemble(**options):
    from discotree import KDBClassifier, KDBEnsembleClassifier

    members = {"k": options.pop("k", 2), "smoothing": options.pop("smoothing", "hierarchical")}
    settings = {"n_estimators": 2, "max_categories": 3, "linear_weight": 0.2}
    return KDBEnsembleClassifier(estimator=KDBClassifier(**members), **{**settings, **options})


STRUCTURED = {
    "kdb": lambda: KDBClassifier(k=2),
    "ensemble-log": lambda: _ensemble(pair_weight=0.3, pair_significance=None),
    "ensemble-linear": lambda: _ensemble(pair_weight=0.3, pair_pooling="linear"),
    "ensemble-dirichlet": lambda: _ensemble(smoothing="dirichlet", pair_weight=0.0),
}


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("name", list(STRUCTURED))
def test_structure_values_equal_the_masked_predictions(name, n_classes):
    X, y, weights = _mixed(n_classes=n_classes)
    estimator = STRUCTURED[name]().fit(X, y, sample_weight=weights)
    rows = X[:3].copy()
    rows[1, 2] = np.nan  # a missing cell in an explained row
    ours = shapley_values(estimator, rows, kind="available-case")
    reference = _backoff_reference(estimator, rows)
    assert ours.exact and ours.kind == "available-case"
    for field in ("values", "base_values", "output"):
        assert np.allclose(getattr(ours, field), getattr(reference, field), rtol=0, atol=1e-9)
    full = log_odds(estimator.predict_log_proba(rows[[0, 2]]))  # nothing missing: the output
    assert np.allclose(ours.output[[0, 2]], full, rtol=0, atol=1e-9)


@pytest.mark.parametrize("name", ["kdb", "ensemble-one-member"])
def test_two_class_values_term_by_term_are_exact(name):
    X, y, _ = _mixed(n_classes=2)
    if name == "kdb":
        estimator = KDBClassifier(k=2)
    else:  # one member, no linear member, the pair member pooled logarithmically
        estimator = _ensemble(n_estimators=1, linear_weight=0.0, pair_weight=0.4)
    estimator.fit(X, y)
    rows = X[:3].copy()
    rows[2, 0] = np.nan
    by_terms = shapley_values(estimator, rows, kind="available-case", max_exact_features=0)
    by_subsets = shapley_values(estimator, rows, kind="available-case")
    assert by_terms.exact and by_terms.standard_errors is None
    assert np.allclose(by_terms.values, by_subsets.values, rtol=0, atol=1e-9)
    assert np.allclose(by_terms.base_values, by_subsets.base_values, rtol=0, atol=1e-9)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_sampled_structure_values_are_near_the_exact_ones(n_classes):
    X, y, _ = _mixed(n_classes=n_classes)
    estimator = _ensemble(pair_weight=0.3).fit(X, y)
    rows = X[:2].copy()
    rows[0, 4] = np.nan
    exact = shapley_values(estimator, rows, kind="available-case")
    sampled = shapley_values(
        estimator, rows, kind="available-case", max_exact_features=0, random_state=0
    )
    assert not sampled.exact and sampled.standard_errors is not None
    total = sampled.base_values + sampled.values.sum(axis=1)
    assert np.allclose(total, exact.output, rtol=0, atol=1e-9)
    assert np.allclose(sampled.output, exact.output, rtol=0, atol=1e-9)
    errors = sampled.standard_errors
    assert np.all(sampled.values[0, 4] == 0) and np.all(errors[0, 4] == 0)  # (missing)
    z = np.abs(sampled.values - exact.values)[errors > 0] / errors[errors > 0]
    assert np.mean(z < 3) > 0.9 and z.max() < 5  # (the classes' values move together)


def test_conditional_values_by_structure_where_that_is_the_models_rule():
    X, y, _ = _mixed()
    estimator = _ensemble(k=0, pair_weight=0.3).fit(X, y)  # naive-Bayes members
    rows = X[:2].copy()
    rows[1, 1] = np.nan
    from discotree.shapley import _structure_model

    assert _structure_model(estimator, "conditional") is estimator.model_
    assert _structure_model(KDBClassifier(k=2).fit(X, y), "conditional") is None
    ours = shapley_values(estimator, rows)
    expected = _backoff_reference(estimator, rows)  # (the same rule with or without)
    assert np.allclose(ours.values, expected.values, rtol=0, atol=1e-9)


def test_available_case_values_need_a_structured_model():
    X, y = _table()
    with pytest.raises(ValueError, match="available-case"):
        shapley_values(NaiveBayesClassifier().fit(X, y), X.iloc[:1], kind="available-case")


def test_available_case_values_of_a_frame_with_strings():
    X, y = _table(n_features=5, n_classes=3)
    estimator = KDBClassifier(k=2).fit(X, y)
    rows = X.iloc[:2].copy()
    rows.iloc[0, 2] = None
    ours = shapley_values(estimator, rows, kind="available-case")
    reference = _backoff_reference(estimator, rows)
    assert ours.feature_names == list(X.columns)
    assert np.allclose(ours.values, reference.values, rtol=0, atol=1e-9)
