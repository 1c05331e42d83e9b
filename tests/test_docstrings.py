"""The public methods and fitted attributes of every estimator are documented.

Every public ``fit``, ``partial_fit``, ``predict*``, ``decision_function``,
``staged_*``, ``transform`` ... that discotree defines has a numpydoc docstring with
Parameters (when it takes arguments), Returns or Yields, and an Examples section (run
by the doctests); every attribute a fit sets (a public name ending in ``_``) is listed
in the class docstring's Attributes section.
"""

import inspect

import pytest
from numpydoc.docscrape import ClassDoc, FunctionDoc
from sklearn.datasets import load_breast_cancer

from discotree import (
    AODEClassifier,
    BoostedGraphicalModelClassifier,
    ChowLiuClassifier,
    Discretizer,
    DiscriminativeTreeClassifier,
    EARTreeClassifier,
    ForestDensityClassifier,
    KDBClassifier,
    KDBEnsembleClassifier,
    KernelNaiveBayesClassifier,
    NaiveBayesClassifier,
    SubmodularFeatureSelector,
    TableEncoder,
    TANClassifier,
)

ESTIMATORS = [
    NaiveBayesClassifier,
    ChowLiuClassifier,
    TANClassifier,
    DiscriminativeTreeClassifier,
    BoostedGraphicalModelClassifier,
    ForestDensityClassifier,
    KernelNaiveBayesClassifier,
    EARTreeClassifier,
    KDBClassifier,
    KDBEnsembleClassifier,
    AODEClassifier,
    SubmodularFeatureSelector,
    Discretizer,
    TableEncoder,
]
METHODS = [
    "fit",
    "partial_fit",
    "end_partial_fit",
    "fit_from_statistics",
    "predict",
    "predict_proba",
    "predict_log_proba",
    "predict_joint_log_proba",
    "decision_function",
    "staged_predict",
    "staged_decision_function",
    "transform",
    "fit_transform",
    "log_density_features",
    "to_networkx",
]


def _own_methods():
    """(estimator, name, function) for the methods discotree defines (not sklearn's
    mixins), each once per class that defines it."""
    seen = set()
    for estimator in ESTIMATORS:
        for name in METHODS:
            owners = [k for k in estimator.__mro__ if name in vars(k)]
            if not owners or not owners[0].__module__.startswith("discotree"):
                continue
            function = inspect.unwrap(inspect.getattr_static(owners[0], name))
            if (owners[0], name) in seen or "unreachable" in inspect.getsource(function):
                continue  # seen, or hidden by available_if and never callable
            seen.add((owners[0], name))
            yield pytest.param(function, id=f"{owners[0].__name__}.{name}")


@pytest.mark.parametrize("function", list(_own_methods()))
def test_public_methods_have_complete_docstrings(function):
    doc = FunctionDoc(function)
    takes_arguments = len(inspect.signature(function).parameters) > 1
    missing = [
        section
        for section, needed in [
            ("Parameters", takes_arguments),
            ("Returns", not doc["Yields"]),
            ("Examples", True),
        ]
        if needed and not doc[section]
    ]
    assert not missing, f"{function.__qualname__}: no {missing} section"
    assert ">>>" in "\n".join(doc["Examples"])


CONFIGURATIONS = [
    NaiveBayesClassifier(),
    NaiveBayesClassifier(alpha=1.0, prior="bdeu"),
    ChowLiuClassifier(),
    ChowLiuClassifier(alpha="auto", n_edges="bic"),
    TANClassifier(),
    TANClassifier(structure="omi-cr", parameters="cl", cl_max_iter=5, alpha=1.0),
    TANClassifier(k=2, structure="cr", alpha=1.0),
    DiscriminativeTreeClassifier(),
    DiscriminativeTreeClassifier(n_edges="cv", alpha=1.0),
    DiscriminativeTreeClassifier(parameters="altmax", alpha=1.0, max_alternations=2),
    DiscriminativeTreeClassifier(distribution="gaussian"),
    BoostedGraphicalModelClassifier(n_estimators=2),
    BoostedGraphicalModelClassifier(n_estimators=3, n_estimators_cv=2, alpha=1.0),
    ForestDensityClassifier(),
    ForestDensityClassifier(probability=True, keep_original=True),
    KernelNaiveBayesClassifier(),
    EARTreeClassifier(),
    EARTreeClassifier(distribution="gaussian"),
    KDBClassifier(),
    KDBClassifier(2, smoothing="hierarchical"),
    KDBEnsembleClassifier(n_estimators=2),
    AODEClassifier(),
    SubmodularFeatureSelector(),
    Discretizer(),
    TableEncoder(),
]


def _fitted(estimator):
    X, y = load_breast_cancer(return_X_y=True)
    X, y = X[:200, :6], y[:200]
    if isinstance(estimator, TableEncoder):
        estimator.fit_transform(X)
        return estimator
    return estimator.fit(X, y)


def _configuration_id(estimator) -> str:
    """The estimator's repr; a class name where the repr holds an address (the ids must
    be the same in every process that collects them)."""
    text = repr(estimator)
    return type(estimator).__name__ if " at 0x" in text else text


@pytest.mark.parametrize("estimator", CONFIGURATIONS, ids=_configuration_id)
def test_fitted_attributes_are_documented(estimator):
    fitted = _fitted(estimator)
    attributes = {name for name in vars(fitted) if name.endswith("_") and not name.startswith("_")}
    documented = set()
    for item in ClassDoc(type(estimator))["Attributes"]:
        documented |= {n.strip() for n in item.name.split(",")}
    missing = sorted(attributes - documented)
    assert not missing, f"{type(estimator).__name__}: undocumented attributes {missing}"
