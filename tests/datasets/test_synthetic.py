"""Each synthetic generator has the property its paper relies on."""

import itertools

import numpy as np
import pytest
from scipy import stats

from discotree.datasets.synthetic import (
    forest_classes,
    gaussian_example,
    random_binary_trees,
    random_grid_model,
    random_ktree_classes,
    sample_forest_classes,
    sample_joint_table,
    three_variable_example,
)
from discotree.stats.gaussian import gaussian_mutual_information
from discotree.stats.information import conditional_mutual_information, mutual_information
from discotree.structure.spanning import maximum_spanning_forest


def _exact_marginals(model, c):
    """P(x_j = v) of class c by enumerating every configuration of the forest model."""
    grid = np.array(list(itertools.product(*[range(r) for r in model.n_categories])))
    p = np.exp(model.log_likelihood(grid)[:, c])
    return [
        np.array([p[grid[:, j] == v].sum() for v in range(r)])
        for j, r in enumerate(model.n_categories)
    ]


def test_random_binary_trees_sample_their_trees(seed):
    X, y, model = random_binary_trees(5, 20000, random_state=seed)
    assert X.shape == (40000, 5) and set(np.unique(X)) <= {0, 1}
    for c in range(2):
        exact = _exact_marginals(model, c)
        for j in range(5):
            assert X[y == c].iloc[:, j].mean() == pytest.approx(exact[j][1], abs=0.02)
        parents = model.parents[c]
        assert parents[0] == -1 and all(0 <= parents[j] < j for j in range(1, 5))
    # a test set from the same trees
    X2, _, same = random_binary_trees(5, 10, random_state=seed + 1, models=model)
    assert same is model and X2.shape == (20, 5)


def test_grid_sampler_matches_exact_marginals_on_3x3(seed):
    grid = random_grid_model(3, 3, random_state=seed)
    x = grid.sample(40000, np.random.default_rng(seed))
    assert x.shape == (40000, 9)
    np.testing.assert_allclose(x.mean(axis=0), grid.exact_marginals(), atol=0.015)
    # pairwise: a neighbouring pair's agreement rate matches enumeration too
    assert len(grid.edges()) == 12


def test_grid_sampler_pairwise_statistics_on_2x3(seed):
    grid = random_grid_model(2, 3, coupling_scale=1.5, random_state=seed)
    x = grid.sample(40000, np.random.default_rng(seed))
    n = 6
    configs = ((np.arange(2**n)[:, None] >> np.arange(n)) & 1).astype(float)
    s = (2 * configs - 1).reshape(-1, 2, 3)
    logp = (s * grid.field).sum(axis=(1, 2))
    logp += (s[:, :, :-1] * s[:, :, 1:] * grid.horizontal).sum(axis=(1, 2))
    logp += (s[:, :-1, :] * s[:, 1:, :] * grid.vertical).sum(axis=(1, 2))
    p = np.exp(logp - logp.max())
    p /= p.sum()
    for i, j in grid.edges():
        exact = p @ (configs[:, i] == configs[:, j])
        assert np.mean(x[:, i] == x[:, j]) == pytest.approx(exact, abs=0.015)


def test_ten_by_ten_grid_has_the_paper_size():
    grid = random_grid_model(random_state=0)
    x = grid.sample(50, np.random.default_rng(0))
    assert x.shape == (50, 100) and len(grid.edges()) == 180


def test_gaussian_example_chow_liu_trees_identical_for_both_classes(seed):
    example = gaussian_example(20, random_state=seed)
    trees = []
    for cov in (example.cov_p, example.cov_q):
        assert np.linalg.eigvalsh(cov).min() > 0
        sd = np.sqrt(np.diag(cov))
        mi = gaussian_mutual_information(cov / np.outer(sd, sd))
        np.fill_diagonal(mi, 0)
        edges, _ = maximum_spanning_forest(mi)
        trees.append(edges)
        # the first n/2 edges join each variable to its noise partner i + n/2
        assert sorted(edges[:10]) == [(i, i + 10) for i in range(10)]
    assert set(trees[0]) == set(trees[1])
    # the classes differ only in the lower-right block
    diff = example.cov_p - example.cov_q
    assert np.abs(diff[:10]).max() == 0 and np.abs(diff[10:, 10:]).max() > 0
    X, y = example.sample(50, random_state=seed)
    assert X.shape == (100, 20) and y.sum() == 50


def test_three_variable_examples():
    joint, prior = three_variable_example("narasimhan")
    np.testing.assert_allclose(prior, [0.5, 0.5])
    table_1 = np.array([[21, 3], [3, 5], [5, 3], [3, 21], [15, 9], [1, 7], [7, 1], [9, 15]])
    np.testing.assert_allclose(64 * joint.reshape(2, 4, 2) / 0.5, table_1.reshape(2, 4, 2))
    joint, _ = three_variable_example("pernkopf")
    assert joint.sum() == pytest.approx(1.0)
    x23 = joint.sum(axis=(0, 1))
    x13 = joint.sum(axis=(0, 2))
    assert mutual_information(x23) > mutual_information(x13)
    assert conditional_mutual_information(joint.sum(axis=1)) > conditional_mutual_information(
        joint.sum(axis=2)
    )
    # X1-X3 carries the class: P(x3 = x1 | c) differs between the classes
    agree = [joint[c][[0, 1], :, [0, 1]].sum() / joint[c].sum() for c in range(2)]
    assert agree[0] - agree[1] == pytest.approx(0.3)  # the 0.3 share of X3 = (not) X1
    X, y = sample_joint_table(joint, 20000, random_state=0)
    assert np.mean(y) == pytest.approx(0.5, abs=0.02)
    assert np.mean(X["X0"] == X["X1"]) == pytest.approx(0.75, abs=0.02)


def test_random_ktree_classes_have_the_papers_layout(seed):
    X, y, model = random_ktree_classes(4, n_first=20000, n_other=500, random_state=seed)
    assert np.bincount(y).tolist() == [20000, 1000, 1000, 1000, 1000]
    assert X.to_numpy().max() <= 9 and model.n_categories.tolist() == [10] * 4
    exact = _exact_marginals(model, 0)
    for j in range(4):
        freq = np.bincount(X[y == 0].iloc[:, j], minlength=10) / 20000
        np.testing.assert_allclose(freq, exact[j], atol=0.015)


@pytest.mark.parametrize("marginal", ["normal", "t3", "mixture"])
def test_forest_classes_keep_the_forest_structure(seed, marginal):
    first, second = forest_classes(8, marginal=marginal, random_state=seed)
    X, y = sample_forest_classes((first, second), 8000, random_state=seed)
    # normal scores undo the marginals; Chow-Liu on them recovers each tree
    for c, forest in enumerate((first, second)):
        x = X[y == c].to_numpy()
        z = stats.norm.ppf((stats.rankdata(x, axis=0) - 0.5) / len(x))
        mi = gaussian_mutual_information(np.corrcoef(z.T))
        np.fill_diagonal(mi, 0)
        edges, _ = maximum_spanning_forest(mi)
        assert set(edges) == set(forest.edges)


def test_forest_class_options(seed):
    first, second = forest_classes(16, sparse=True, shared_structure=True, random_state=seed)
    assert len(first.edges) == len(second.edges) == 10
    assert len(set(first.edges) & set(second.edges)) >= 7
    t3, _ = forest_classes(3, marginal="t3", random_state=seed)
    x = t3.sample(4000, np.random.default_rng(seed))[:, 0]
    standardised = (
        (x - np.median(x)) / stats.iqr(x) * stats.iqr(stats.t.rvs(3, size=10**6, random_state=0))
    )
    assert stats.kstest(standardised, stats.t(df=3).cdf).pvalue > 1e-4
    _, y = sample_forest_classes((first, second), 100, minority_fraction=0.2, random_state=0)
    assert y.sum() == 20
    with pytest.raises(ValueError, match="marginal must be one of"):
        forest_classes(4, marginal="cauchy")


@pytest.mark.parametrize("marginal", ["normal", "t3", "mixture"])
def test_centred_forest_classes_share_their_means(seed, marginal):
    classes = forest_classes(5, marginal=marginal, centred=True, random_state=seed)
    rng = np.random.default_rng(seed)
    for forest in classes:
        x = forest.sample(40000, rng)
        # t3 has heavy tails: compare medians of batch means, robust to rare extremes
        means = np.median(x.reshape(40, 1000, 5).mean(axis=1), axis=0)
        np.testing.assert_allclose(means, 0.0, atol=0.1)


def test_named_synthetic_sets_load():
    from discotree.datasets import SYNTHETIC_DATASETS, load_dataset

    for name in SYNTHETIC_DATASETS:
        X, y = load_dataset(name)
        assert len(X) == len(y) > 0 and y.nunique() >= 2, name


def test_ear_gaussian_example_has_equal_means_and_variances_and_differs_in_structure():
    from discotree.datasets.synthetic import ear_gaussian_example

    example = ear_gaussian_example(6, random_state=0)
    for cov in (example.cov_p, example.cov_q):
        np.testing.assert_allclose(np.diag(cov), 1.0)
        assert np.linalg.eigvalsh(cov).min() > 0
    assert np.abs(example.cov_p - example.cov_q).max() > 0.1
    X, y = example.sample(2000, random_state=1)
    np.testing.assert_allclose(X[y == 0].std(), 1.0, atol=0.1)
    np.testing.assert_allclose(X[y == 1].mean(), 0.0, atol=0.1)
    with pytest.raises(ValueError, match="n_features"):
        ear_gaussian_example(2)
