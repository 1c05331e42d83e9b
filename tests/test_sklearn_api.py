"""The scikit-learn estimator contract, for every public estimator."""

from sklearn.utils.estimator_checks import parametrize_with_checks

from discotree import (
    ChowLiuClassifier,
    Discretizer,
    DiscriminativeTreeClassifier,
    NaiveBayesClassifier,
    TANClassifier,
)

ALL_ESTIMATORS = [
    NaiveBayesClassifier(),
    ChowLiuClassifier(),
    ChowLiuClassifier(n_edges=2),
    TANClassifier(),
    DiscriminativeTreeClassifier(),
    DiscriminativeTreeClassifier(multiclass="ovr", n_edges=2, edge_cost=0.01),
    DiscriminativeTreeClassifier(distribution="gaussian"),
    DiscriminativeTreeClassifier(n_edges="cv"),
    Discretizer(),
    Discretizer(method="uniform"),
    Discretizer(method="mdl"),
    TANClassifier(discretizer=Discretizer(method="mdl")),
]


@parametrize_with_checks(ALL_ESTIMATORS, xfail_strict=True)
def test_sklearn_api(estimator, check):
    check(estimator)
