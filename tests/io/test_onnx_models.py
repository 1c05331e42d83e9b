"""The scoring side of the ONNX graphs (discotree.io.onnx_models) for the averaged
and ensemble models: onnxruntime on the codes graph gives predict_proba to 1e-9 for
their variants, the linear member's factors give its scores, and what cannot be
exported is refused by name."""

import numpy as np
import pytest

from discotree import AODEClassifier, KDBEnsembleClassifier
from discotree.io.onnx import onnx_codes, to_onnx
from discotree.io.onnx_models import check_factors, logistic_factors

onnxruntime = pytest.importorskip("onnxruntime")


def _data(seed=0, n=300):
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.normal(size=n), rng.integers(0, 4, n), rng.integers(0, 3, n)])
    y = (X[:, 0] > 0).astype(int) + (X[:, 1] * X[:, 2] > 2)
    return X[: n // 2], y[: n // 2], X[n // 2 :]


def _codes_graph_error(estimator, X_test):
    session = onnxruntime.InferenceSession(to_onnx(estimator, inputs="codes").SerializeToString())
    out = session.run(["probabilities"], {"codes": onnx_codes(estimator, X_test)})[0]
    return np.abs(out - estimator.predict_proba(X_test)).max()


@pytest.mark.parametrize(
    "estimator",
    [
        AODEClassifier(smoothing="hierarchical"),
        KDBEnsembleClassifier(
            n_estimators=2,
            linear_weight=0.4,
            linear_pairs=2,
            pair_weight=0.3,
            pair_pooling="linear",
        ),
        KDBEnsembleClassifier(n_estimators=2, linear_weight=0.0, pair_weight=1.0),
    ],
    ids=repr,
)
def test_codes_graph_of_averaged_and_ensemble_models(estimator):
    X, y, X_test = _data()
    estimator.fit(X, y)
    assert _codes_graph_error(estimator, X_test) < 1e-9


def test_logistic_factors_give_the_linear_members_scores():
    X, y, _ = _data(1)
    clf = KDBEnsembleClassifier(
        n_estimators=1, linear_weight=0.5, linear_pairs="all", pair_weight=0.0
    )
    member = clf.fit(X, y).model_.linear
    assert len(member.pairs)  # pairs of the categorical columns
    factors = logistic_factors(member)
    assert [columns for columns, _ in factors][:3] == [[0], [1], [2]]
    check_factors(factors, member.intercept, member.scores, member.n_categories, "linear")
    with pytest.raises(ValueError, match="do not give its scores"):
        check_factors(factors[:-1], member.intercept, member.scores, member.n_categories, "x")


def test_a2de_is_refused_by_name():
    X, y, _ = _data()
    clf = AODEClassifier(n_super_parents=2).fit(X, y)
    with pytest.raises(ValueError, match=r"A2DE"):
        to_onnx(clf)


def test_a_model_whose_scoring_differs_from_the_export_is_refused():
    """The export is checked against the model's own scores: a changed scoring (here
    a stand-in for the joint of A1DE, and for a member's likelihood) is refused."""
    X, y, _ = _data()
    clf = AODEClassifier().fit(X, y)
    clf.model_.joint_log_likelihood = lambda codes: np.zeros((len(codes), 3))
    with pytest.raises(ValueError, match="do not give its scores"):
        to_onnx(clf)
    ensemble = KDBEnsembleClassifier(n_estimators=1, linear_weight=0.0, pair_weight=0.0)
    ensemble.fit(X, y).model_.members[0].log_likelihood = lambda codes: np.zeros((len(codes), 3))
    with pytest.raises(ValueError, match="member 0 do not give its scores"):
        to_onnx(ensemble, inputs="codes")
