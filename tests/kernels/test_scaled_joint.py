"""The nested models' scoring by scaled probabilities against plain NumPy: the joints to
the bit, the losses to 1e-12 (weights, some 0; probability-0 classes, far classes and
joints that fall by thousands of nats, which the scaled numbers must survive)."""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.special import log_softmax

from discotree.kernels.scaled_joint import add_batch_terms_and_score, scaled_joint


def add_terms_and_score(state, terms, row_key, levels, scored, rows, *, flags, out):
    """One node (:func:`add_batch_terms_and_score` of a batch of one)."""
    sums = np.zeros((1, *out.shape))
    add_batch_terms_and_score(
        state, [terms], np.asarray(row_key)[None], np.asarray(levels)[None],
        np.asarray(scored)[None], rows, flags=flags, out=sums,
    )  # fmt: skip
    out += sums[0]


def _numpy_loss_sums(joint, truth, weights):
    """The weighted sums of the squared error and the log-loss of ``softmax(joint)``
    (rows, classes) at the true classes, by plain NumPy."""
    log_post = log_softmax(joint, axis=1)
    onehot = np.eye(joint.shape[1])[truth]
    squares = weights @ ((np.exp(log_post) - onehot) ** 2).sum(axis=1)
    own = log_post[np.arange(len(truth)), truth]
    log_loss = -(weights[weights > 0] @ own[weights > 0])
    return squares, log_loss


@pytest.mark.parametrize("flags", [(True, True), (True, False), (False, True)])
@pytest.mark.parametrize("n_classes", [2, 4, 10])
@pytest.mark.parametrize("weighting", ["varied", "uniform"])
def test_scoring_node_after_node_equals_numpy(rng, flags, n_classes, weighting):
    # uniform: every row of weight weighs 1.5 (the log-loss of a product of the rows'
    # sums, rescaled as it runs down thousands of nats)
    n_rows, n_distinct, n_models, n_nodes = 300, 70, 5, 12
    joint = rng.normal(size=(n_models, n_rows, n_classes)) * rng.choice([1.0, 60.0], (1, n_rows, 1))
    state = scaled_joint(joint.copy())
    expected_joint = joint.copy()
    truth = rng.integers(0, n_classes, n_rows)
    weights = rng.random(n_rows) * (rng.random(n_rows) < 0.9)
    if weighting == "uniform":
        weights = np.where(weights > 0, 1.5, 0.0)
    scored = np.array([True, True, True, False, True])
    for node in range(n_nodes):
        terms = np.log(rng.dirichlet(np.ones(n_classes) * 0.3, size=(3, n_distinct)))
        if node % 3 == 0:  # a node that sends some rows down by hundreds of nats
            terms[:, ::4] *= 300.0
        terms[1, 0, n_classes - 1] = -np.inf  # (a class of probability 0)
        terms[0, 1] = 0.0  # (a missing node: adds nothing)
        row_key = rng.integers(0, n_distinct, n_rows)
        levels = np.minimum(np.arange(n_models), node % 3)
        out = np.zeros((n_models, 2))
        add_terms_and_score(
            state, terms, row_key, levels, scored, (truth, weights), flags=flags, out=out
        )
        expected = np.zeros((n_models, 2))
        for q in range(n_models):
            expected_joint[q] += terms[levels[q]][row_key]
            if scored[q]:
                sums = _numpy_loss_sums(expected_joint[q], truth, weights)
                expected[q] = np.where(flags, sums, 0.0)
        assert np.array_equal(state.joint, expected_joint)
        finite = np.isfinite(expected)
        assert_allclose(out[finite], expected[finite], rtol=1e-12, atol=1e-12)
        assert np.array_equal(np.isfinite(out), finite)
    # the joints fell by thousands of nats, and the scaled numbers kept their range
    assert (expected_joint.max(axis=2) < -1000).any()
    assert np.all(state.scaled.sum(axis=2) >= 2.0**-512)


def test_a_scaled_joint_is_the_joint_shifted_by_its_largest_class(rng):
    joint = rng.normal(size=(3, 50, 4)) * 100
    state = scaled_joint(joint.copy())
    assert_allclose(state.shift, joint.max(axis=2))
    assert_allclose(state.scaled, np.exp(joint - joint.max(axis=2, keepdims=True)))


def test_the_uniform_weight_is_the_one_weight_of_the_rows_of_weight():
    from discotree.kernels.scaled_joint import uniform_weight

    assert uniform_weight(np.array([0.0, 3.0, 3.0])) == 3.0
    assert uniform_weight(np.array([1.0, 1.0 + 1e-15])) == 0.0
    assert uniform_weight(np.zeros(3)) == 0.0
    assert uniform_weight(np.zeros(0)) == 0.0


def test_a_product_of_many_small_sums_keeps_its_logarithm():
    # every row's sum near 2**-300 after the node: their product, 2**-600,000 over 2,000
    # rows, is rescaled hundreds of times; the log-loss is still numpy's
    n_rows, n_classes = 2000, 3
    joint = np.zeros((1, n_rows, n_classes))
    state = scaled_joint(joint.copy())
    terms = np.full((1, n_rows, n_classes), -300.0 * np.log(2.0))
    terms[0, :, 1] -= 2.0
    truth = np.arange(n_rows) % n_classes
    weights = np.ones(n_rows)
    out = np.zeros((1, 2))
    add_terms_and_score(
        state,
        terms,
        np.arange(n_rows),
        np.array([0]),
        np.array([True]),
        (truth, weights),
        flags=(False, True),
        out=out,
    )
    expected = _numpy_loss_sums(joint[0] + terms[0], truth, weights)[1]
    # (the sum, 2,851, is what is left of two of 416,000: 1e-10 relative is 1e-15 of
    # what cancels, and far inside the selection's tie tolerance of 1e-9)
    assert_allclose(out[0, 1], expected, rtol=1e-10)


@pytest.mark.parametrize("weighting", ["varied", "uniform"])
@pytest.mark.parametrize("n_rows", [7, 2000])  # (one block; several blocks of rows)
def test_a_batch_of_nodes_scores_as_the_nodes_one_at_a_time_to_the_bit(rng, weighting, n_rows):
    """The batched kernel (every node of the batch added to a block of rows at a time)
    against the nodes one at a time: the joints, scaled joints, shifts and sums equal
    to the bit, with weights (some 0), nodes of different distinct rows and levels,
    probability-0 classes and joints that fall by hundreds of nats."""
    n_classes, n_models, n_nodes = 4, 3, 9
    joint = rng.normal(size=(n_models, n_rows, n_classes)) * 5
    one, batch = scaled_joint(joint.copy()), scaled_joint(joint.copy())
    truth = rng.integers(0, n_classes, n_rows)
    weights = rng.random(n_rows) * (rng.random(n_rows) < 0.9)
    if weighting == "uniform":
        weights = np.where(weights > 0, 2.0, 0.0)
    terms, keys, levels, scored = [], [], [], []
    for node in range(n_nodes):
        n_distinct = int(rng.integers(1, 40))
        t = np.log(rng.dirichlet(np.ones(n_classes) * 0.3, size=(node % 3 + 1, n_distinct)))
        if node % 4 == 0:
            t[:, ::3] *= 250.0
        t[0, 0, 0] = -np.inf
        terms.append(t)
        keys.append(rng.integers(0, n_distinct, n_rows))
        levels.append(np.minimum(np.arange(n_models), node % 3))
        scored.append(rng.random(n_models) < 0.8)
    for flags in [(True, True), (False, True)]:
        expected = np.zeros((n_nodes, n_models, 2))
        for b in range(n_nodes):
            add_terms_and_score(
                one, terms[b], keys[b], levels[b], scored[b], (truth, weights),
                flags=flags, out=expected[b],
            )  # fmt: skip
        out = np.zeros((n_nodes, n_models, 2))
        add_batch_terms_and_score(
            batch, terms, np.array(keys), np.array(levels), np.array(scored),
            (truth, weights), flags=flags, out=out,
        )  # fmt: skip
        for a, b in zip(batch, one, strict=True):
            assert np.array_equal(a, b, equal_nan=True)
        assert np.array_equal(out, expected, equal_nan=True)
