"""The scikit-learn estimator contract, for every public estimator."""

from sklearn.utils.estimator_checks import parametrize_with_checks

from discotree import (
    BoostedGraphicalModelClassifier,
    ChowLiuClassifier,
    Discretizer,
    DiscriminativeTreeClassifier,
    NaiveBayesClassifier,
    TANClassifier,
)
from discotree.classifiers.baselines import QuadraticSVMClassifier

ALL_ESTIMATORS = [
    NaiveBayesClassifier(),
    ChowLiuClassifier(),
    ChowLiuClassifier(n_edges=2),
    TANClassifier(),
    DiscriminativeTreeClassifier(),
    DiscriminativeTreeClassifier(multiclass="ovr", n_edges=2, edge_cost=0.01),
    DiscriminativeTreeClassifier(distribution="gaussian"),
    DiscriminativeTreeClassifier(n_edges="cv"),
    BoostedGraphicalModelClassifier(n_estimators=3),
    BoostedGraphicalModelClassifier(base="chow-liu", algorithm="discrete", n_estimators=2),
    BoostedGraphicalModelClassifier(base="tan", multiclass="ovr", n_estimators=2),
    BoostedGraphicalModelClassifier(n_estimators=3, n_estimators_cv=3),
    QuadraticSVMClassifier(),
    Discretizer(),
    Discretizer(method="uniform"),
    Discretizer(method="mdl"),
    TANClassifier(discretizer=Discretizer(method="mdl")),
]


@parametrize_with_checks(ALL_ESTIMATORS, xfail_strict=True)
def test_sklearn_api(estimator, check):
    check(estimator)
