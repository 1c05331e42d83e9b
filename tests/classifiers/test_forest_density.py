"""Forest density classifier (004): Lemma 3, oracle coefficients, feature map, input errors."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from discotree.classifiers.forest_density import (
    ForestDensityClassifier,
    KernelNaiveBayesClassifier,
    informative_pairs,
    linear_svm,
)
from tests import reference as ref

N_FEATURES = 4
PAIRS = [(i, j) for i in range(N_FEATURES) for j in range(i + 1, N_FEATURES)]
CHAIN = [(0, 1), (1, 2), (2, 3)]
STAR = [(0, 1), (0, 2), (0, 3)]


def _tree_covariance(edges, correlations):
    """Correlation matrix of a Gaussian tree: products of edge correlations along paths."""
    neighbours = {i: [] for i in range(N_FEATURES)}
    for (a, b), r in zip(edges, correlations, strict=True):
        neighbours[a].append((b, r))
        neighbours[b].append((a, r))
    cov = np.eye(N_FEATURES)
    for source in range(N_FEATURES):
        stack = [(source, 1.0, -1)]
        while stack:
            node, product, parent = stack.pop()
            cov[source, node] = product
            stack += [(u, product * r, node) for u, r in neighbours[node] if u != parent]
    return cov


COV0 = _tree_covariance(CHAIN, [0.8, -0.7, 0.6])
COV1 = _tree_covariance(STAR, [0.7, 0.6, -0.8])


def _sample(n_per_class, seed):
    rng = np.random.default_rng(seed)
    X = np.vstack(
        [
            rng.multivariate_normal(np.zeros(N_FEATURES), COV0, n_per_class),
            rng.multivariate_normal(np.zeros(N_FEATURES), COV1, n_per_class),
        ]
    )
    return X, np.repeat([0, 1], n_per_class)


def _oracle_features(X):
    """The oracle map of eq. 4 with the exact class densities (layout of the classifier)."""
    columns = []
    for cov in (COV0, COV1):
        columns += [stats.norm.logpdf(X[:, i], scale=np.sqrt(cov[i, i])) for i in range(4)]
        columns += [
            stats.multivariate_normal(cov=cov[np.ix_([i, j], [i, j])]).logpdf(X[:, [i, j]])
            for i, j in PAIRS
        ]
    return np.column_stack(columns)


def _oracle_coefficients():
    """Lemma 3 (eq. 3): +1 per edge and 1 - degree per node for class 1, negated for 0."""
    coef = []
    for sign, edges in ((-1, CHAIN), (1, STAR)):
        degree = np.zeros(N_FEATURES)
        for a, b in edges:
            degree[[a, b]] += 1
        coef += [sign * (1 - d) for d in degree]
        coef += [sign * float((i, j) in edges) for i, j in PAIRS]
    return np.array(coef)


def _log_likelihood_ratio(X):
    return stats.multivariate_normal(cov=COV1).logpdf(X) - stats.multivariate_normal(
        cov=COV0
    ).logpdf(X)


def test_lemma3_oracle_integers_give_the_log_likelihood_ratio():
    X, _ = _sample(200, 0)
    np.testing.assert_allclose(
        _oracle_features(X) @ _oracle_coefficients(), _log_likelihood_ratio(X), atol=1e-10
    )


def test_svm_on_exact_densities_recovers_the_oracle_coefficients():
    """With exact densities the SVM's coefficients point along Lemma 3's integers.

    Gaussian log-densities are quadratic forms, so the 20 columns span only 10
    directions (plus the intercept): coefficients are identifiable only in that row
    space, where they are compared.
    """
    X, y = _sample(3000, 1)
    features = _oracle_features(X)
    coef, _, _ = linear_svm(features, y, 2, np.ones(len(y)), C=1.0)
    centred = features - features.mean(axis=0)
    _, singular, vt = np.linalg.svd(centred, full_matrices=False)
    row_space = vt[singular > 1e-8 * singular[0]]
    learned, oracle = row_space @ coef[0], row_space @ _oracle_coefficients()
    cosine = learned @ oracle / np.linalg.norm(learned) / np.linalg.norm(oracle)
    assert cosine > 0.98
    scale = learned @ oracle / (oracle @ oracle)
    assert np.abs(learned / scale - oracle).max() < 0.35 * np.abs(oracle).max()


def test_kernel_densities_approach_the_oracle_classifier():
    """With kernel estimates the margin tracks the true log-likelihood ratio and the
    error approaches the Bayes error (Theorem 4.2; here 0.213 against 0.208)."""
    X, y = _sample(1500, 2)
    X_test, y_test = _sample(2000, 3)
    model = ForestDensityClassifier().fit(X, y)
    llr = _log_likelihood_ratio(X_test)
    # rank correlation: the density floor bends the margin in the tails
    assert stats.spearmanr(model.decision_function(X_test), llr)[0] > 0.95
    bayes_error = np.mean((llr > 0) != y_test)
    assert 1 - model.score(X_test, y_test) < bayes_error + 0.03


def test_feature_map_columns_are_direct_kernel_sums():
    X, y = _sample(40, 4)
    model = ForestDensityClassifier(kde="exact").fit(X, y)
    query = X[:3] + 0.05
    features = model.log_density_features(query)
    Z_train = (X - model.mean_) / model.scale_
    Z_query = (query - model.mean_) / model.scale_
    dens = model.densities_
    assert features.shape == (3, 2 * (4 + 6)) == (3, len(model.feature_terms_))
    for column, (label, i, j) in enumerate(model.feature_terms_):
        members = y == label
        if j < 0:
            h = (dens.bandwidth_1d[label, i],)
            points, q = [(v,) for v in Z_train[members, i]], [(v,) for v in Z_query[:, i]]
        else:
            h = (dens.bandwidth_2d[label, i], dens.bandwidth_2d[label, j])
            points = list(map(tuple, Z_train[members][:, [i, j]]))
            q = list(map(tuple, Z_query[:, [i, j]]))
        want = np.log(np.maximum(ref.kernel_density(points, np.ones(members.sum()), q, h), 1e-3))
        np.testing.assert_allclose(features[:, column], want, rtol=1e-10)


def test_binned_and_exact_feature_maps_agree():
    X, y = _sample(300, 5)
    binned = ForestDensityClassifier(kde="binned").fit(X, y)
    exact = ForestDensityClassifier(kde="exact").fit(X, y)
    diff = binned.log_density_features(X[:50]) - exact.log_density_features(X[:50])
    assert np.abs(diff).max() < 0.05
    assert np.mean(binned.predict(X) == exact.predict(X)) > 0.98


def test_bandwidth_in_original_units_and_rules():
    X, y = _sample(100, 6)
    scaled = X * [1.0, 10.0, 100.0, 0.1]
    model = ForestDensityClassifier(bandwidth=0.5).fit(scaled, y)
    np.testing.assert_allclose(model.bandwidth_, 0.5)
    per_feature = [0.1, 1.0, 10.0, 0.01]
    model = ForestDensityClassifier(bandwidth=per_feature).fit(scaled, y)
    np.testing.assert_allclose(model.bandwidth_[0], per_feature)
    scott = ForestDensityClassifier().fit(X, y).bandwidth_
    silverman = ForestDensityClassifier(bandwidth="silverman").fit(X, y).bandwidth_
    np.testing.assert_allclose(silverman / scott, (3 / 4) ** -0.2)
    # predictions do not depend on the features' units (rules are applied per feature)
    a = ForestDensityClassifier().fit(X, y).decision_function(X)
    b = ForestDensityClassifier().fit(scaled, y).decision_function(scaled)
    np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-8)


def test_pairs_budget_picks_the_pair_whose_dependence_differs():
    rng = np.random.default_rng(7)
    n = 400
    X = rng.normal(size=(2 * n, 5))
    y = np.repeat([0, 1], n)
    # features 1 and 3: correlated +0.9 in class 0 and -0.9 in class 1 (equal marginals)
    z = rng.normal(size=2 * n)
    X[:, 3] = np.where(y == 0, 0.9, -0.9) * X[:, 1] + np.sqrt(1 - 0.81) * z
    # features 0 and 2: equally correlated in both classes (not discriminative)
    X[:, 2] = 0.9 * X[:, 0] + np.sqrt(1 - 0.81) * rng.normal(size=2 * n)
    best = informative_pairs(X, y, 2, np.ones(2 * n), 1)
    np.testing.assert_array_equal(best, [[1, 3]])
    model = ForestDensityClassifier(pairs=1).fit(X, y)
    np.testing.assert_array_equal(model.pairs_, [[1, 3]])
    assert model.score(X, y) > 0.85
    assert ForestDensityClassifier(pairs=0).fit(X, y).pairs_.shape == (0, 2)
    explicit = ForestDensityClassifier(pairs=[(3, 1), (1, 3), (0, 2)]).fit(X, y)
    np.testing.assert_array_equal(explicit.pairs_, [[1, 3], [0, 2]])


def test_keep_original_appends_raw_features():
    X, y = _sample(100, 8)
    model = ForestDensityClassifier(keep_original=True).fit(X, y)
    features = model.log_density_features(X[:5])
    assert features.shape[1] == 2 * 10 + 4
    np.testing.assert_allclose(features[:, -4:], (X[:5] - model.mean_) / model.scale_)
    assert model.feature_terms_[-1] == (None, 3, -1)
    assert model.coef_.shape == (1, 24)


def test_probabilities_agree_with_predictions_multiclass():
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    model = ForestDensityClassifier(probability=True).fit(X, y)
    proba = model.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(model.classes_[proba.argmax(axis=1)], model.predict(X))
    assert model.score(X, y) > 0.93
    assert model.decision_function(X).shape == (150, 3)
    assert not hasattr(ForestDensityClassifier().fit(X, y), "predict_proba")


def test_leave_one_out_keeps_training_features_honest():
    """Without leave-one-out a small bandwidth makes every training point look like its
    own class; with it, the features of a training point match those of a fresh point."""
    X, y = _sample(200, 9)
    model = ForestDensityClassifier(bandwidth=0.05, kde="exact").fit(X, y)
    Z = model.densities_.values
    loo = model.densities_.log_densities(Z, leave_one_out=True)
    plain = model.densities_.log_densities(Z)
    own = [c * 10 + 4 for c in y]  # first pair column of the sample's own class
    rows = np.arange(len(y))
    assert np.median(plain[rows, own] - loo[rows, own]) > 1.0


@pytest.mark.parametrize(
    ("kwargs", "X", "y", "match"),
    [
        ({}, [[0.0, 1.0], [np.nan, 2.0], [1.0, 0.0]], [0, 1, 0], "NaN"),
        ({}, [[0.0, 1.0], [np.inf, 2.0], [1.0, 0.0]], [0, 1, 0], r"X\[:, 0\] contains inf"),
        ({}, [[0.0, 1.0], [1.0, 2.0], [1.0, 0.0]], [1, 1, 1], "only 1 class"),
        ({"bandwidth": "wide"}, [[0.0, 1.0], [1.0, 2.0]], [0, 1], "bandwidth must be one of"),
        ({"bandwidth": -1.0}, [[0.0, 1.0], [1.0, 2.0]], [0, 1], "positive and finite"),
        ({"bandwidth": [1.0]}, [[0.0, 1.0], [1.0, 2.0]], [0, 1], "one value per feature"),
        ({"pairs": [(0, 0)]}, [[0.0, 1.0], [1.0, 2.0]], [0, 1], "two distinct feature"),
        ({"pairs": [(0, 5)]}, [[0.0, 1.0], [1.0, 2.0]], [0, 1], "two distinct feature"),
        ({"pairs": -2}, [[0.0, 1.0], [1.0, 2.0]], [0, 1], "pairs must be >= 0"),
        ({"density_floor": 0.0}, [[0.0, 1.0], [1.0, 2.0]], [0, 1], "density_floor"),
        ({"C": 0.0}, [[0.0, 1.0], [1.0, 2.0]], [0, 1], "C must be"),
        ({"kde": "fft"}, [[0.0, 1.0], [1.0, 2.0]], [0, 1], "kde must be"),
        ({"class_weight": {7: 2.0}}, [[0.0, 1.0], [1.0, 2.0]], [0, 1], "unknown classes"),
    ],
)
def test_bad_input_is_named(kwargs, X, y, match):
    with pytest.raises(ValueError, match=match):
        ForestDensityClassifier(**kwargs).fit(np.asarray(X), y)


def test_negative_weights_are_rejected():
    X, y = _sample(20, 10)
    w = np.ones(len(y))
    w[3] = -1
    with pytest.raises(ValueError, match="negative"):
        ForestDensityClassifier().fit(X, y, sample_weight=w)


def test_kernel_naive_bayes_matches_direct_computation():
    X, y = _sample(60, 11)
    frame = pd.DataFrame(X, columns=list("abcd"))
    model = KernelNaiveBayesClassifier(kde="exact").fit(frame, y)
    Z = (X - model.mean_) / model.scale_
    joint = np.zeros((5, 2))
    for c in range(2):
        members = y == c
        joint[:, c] = np.log(members.mean())
        for i in range(4):
            h = (model.densities_.bandwidth_1d[c, i],)
            dens = ref.kernel_density(
                [(v,) for v in Z[members, i]], np.ones(members.sum()), [(v,) for v in Z[:5, i]], h
            )
            joint[:, c] += np.log(np.maximum(dens, 1e-3))
    expected = joint - np.logaddexp.reduce(joint, axis=1, keepdims=True)
    np.testing.assert_allclose(model.predict_log_proba(frame.iloc[:5]), expected, rtol=1e-9)


def test_non_numeric_columns_are_named():
    frame = pd.DataFrame({"size": [1.0, 2.0, 3.0, 4.0], "colour": ["r", "g", "r", "g"]})
    with pytest.raises(ValueError, match=r"X\['colour'\] is not numeric"):
        ForestDensityClassifier().fit(frame, [0, 1, 0, 1])
    array = np.array([[1.0, "r"], [2.0, "g"], [3.0, "r"], [4.0, "g"]], dtype=object)
    with pytest.raises(ValueError, match=r"X\[:, 1\] is not numeric"):
        KernelNaiveBayesClassifier().fit(array, [0, 1, 0, 1])


def test_features_constant_up_to_rounding_get_no_weight():
    """A column constant on the training rows gives log-density features equal up to
    their last bits; standardising that rounding noise let the SVM fit it with weights
    of 1e9, and the classifier predicted one class on digits (accuracy 0.096). Such a
    feature now gets weight 0 and the others are fitted as without it."""
    rng = np.random.default_rng(0)
    n = 300
    y = rng.integers(0, 3, n)
    informative = rng.normal(size=(n, 3)) + y[:, None]
    noise = -0.2148 + rng.choice([-1, 0, 1], size=(n, 1)) * 2.8e-17
    features = np.column_stack([informative, noise])
    coef, intercept, _ = linear_svm(features, y, 3, np.ones(n), C=1.0)
    assert np.all(coef[:, 3] == 0.0)
    alone, _, _ = linear_svm(informative, y, 3, np.ones(n), C=1.0)
    assert np.allclose(coef[:, :3], alone, atol=1e-6)
    shifted = features.copy()
    shifted[:, 3] += 1e-3  # a test value off the training constant changes nothing
    assert np.allclose(shifted @ coef.T + intercept, features @ coef.T + intercept)


def test_calibration_folds_follow_the_rows_not_the_last_bits_of_the_densities():
    from sklearn.datasets import load_wine

    from discotree.learners.forest_density import fit_calibration

    X, y = load_wine(return_X_y=True)
    rows = (X - X.mean(axis=0)) / X.std(axis=0)
    features = np.column_stack([rows, rows**2])
    nudged = features * (1 + 1e-15 * np.random.default_rng(0).choice([-1, 1], features.shape))
    weights = np.ones(len(y))
    args = (y, 3, weights, 1.0, 2000)
    slope = fit_calibration(features, *args, rows_of=rows)
    assert fit_calibration(nudged, *args, rows_of=rows) == pytest.approx(slope, rel=1e-6)
