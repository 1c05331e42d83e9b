"""The checks of the estimators' parameters (``discotree.classifiers.parameter_checks``),
run in the order of each estimator's ``_checks``: the first broken one gives the message,
as the estimators' ``_check_params`` methods did."""

from __future__ import annotations

import pytest

from discotree import (
    AODEClassifier,
    ChowLiuClassifier,
    DiscriminativeTreeClassifier,
    KDBClassifier,
    NaiveBayesClassifier,
    TANClassifier,
)
from discotree.classifiers.parameter_checks import (
    alpha_not_positive,
    check_distribution,
    check_forest_smoothing,
    check_kdb_parameters,
    check_parameter_table,
    check_random_state_parameter,
    check_rules,
)


@pytest.mark.parametrize(
    ("estimator", "message"),
    [
        (TANClassifier(var_smoothing=-1.0), "var_smoothing must be a finite number >= 0"),
        (TANClassifier(smoothing="x"), "smoothing must be one of"),
        (TANClassifier(k=2, n_edges=3), "n_edges applies to structure='cmi' with k=1 only."),
        (NaiveBayesClassifier(random_state="x"), "random_state"),
        (KDBClassifier(selection_loss="mse"), "selection_loss"),
        (AODEClassifier(n_super_parents=3), "n_super_parents must be 1 (A1DE) or 2 (A2DE)"),
        (ChowLiuClassifier(distribution="x"), "distribution must be one of"),
    ],
)
def test_each_estimator_runs_its_checks(estimator, message):
    with pytest.raises(ValueError) as info:
        estimator._check_params()
    assert str(info.value).startswith(f"{type(estimator).__name__}: ")
    assert message in str(info.value)


def test_the_first_broken_check_speaks():
    # the discriminative tree checks the distribution before the table, TAN after
    tree = DiscriminativeTreeClassifier(distribution="x", multiclass="x")
    with pytest.raises(ValueError, match="distribution must be one of"):
        tree._check_params()
    tan = TANClassifier(distribution="x", structure="x")
    with pytest.raises(ValueError, match="structure must be one of"):
        tan._check_params()
    assert TANClassifier._checks == (
        check_parameter_table,
        check_forest_smoothing,
        check_distribution,
        check_rules,
    )


def test_the_checks_pass_the_defaults():
    for estimator in (TANClassifier(), NaiveBayesClassifier(), KDBClassifier()):
        for check in type(estimator)._checks:
            check(estimator)
    check_random_state_parameter(TANClassifier())
    check_kdb_parameters(KDBClassifier())
    assert alpha_not_positive(TANClassifier(alpha=0.0))
    assert not alpha_not_positive(TANClassifier(alpha="auto"))
