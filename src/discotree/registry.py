"""Classifiers by short name, for the command line and the experiment harness.

The library's names are below; an installed distribution adds its own through the
entry-point group ``discotree.classifiers`` (a mapping of name to factory): the
reproductions (``pip install -e ./reproductions``) add the papers' names, such as
Pernkopf & Bilmes's ``tan-omi-cr-ml`` or Tan et al.'s ``bgmc``. A name the library
defines is never replaced.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from sklearn.base import ClassifierMixin

from . import classifiers as estimators  # the estimators: classifiers.__all__
from .classifiers.baselines import (
    AnyColumnsBaseline,
    QuadraticSVMClassifier,
    lda_classifier,
    nearest_neighbours_classifier,
    random_forest_classifier,
    rbf_svm_classifier,
)

__all__ = ["CLASSIFIERS", "DESCRIPTIONS", "LIBRARY_NAMES", "make_classifier"]


#: name -> factory of an unfitted classifier. The names the reproductions use pin the
#: papers' smoothing (alpha = 1 unless an experiment sets it); the "-auto" names have
#: the library's default, alpha="auto".
CLASSIFIERS: dict[str, Callable[[], Any]] = {
    "nb": partial(estimators.NaiveBayesClassifier, alpha=1.0),
    "chow-liu": estimators.ChowLiuClassifier,
    "tan-cmi": partial(estimators.TANClassifier, alpha=1.0),
    "dt": partial(estimators.DiscriminativeTreeClassifier, alpha=1.0),
    "dt-forest": partial(estimators.DiscriminativeTreeClassifier, n_edges="cv", alpha=1.0),
    "nb-auto": estimators.NaiveBayesClassifier,
    "tan-cmi-auto": estimators.TANClassifier,
    "dt-auto": estimators.DiscriminativeTreeClassifier,
    "svm-quad": QuadraticSVMClassifier,
    # Dorn et al. (Dorn et al. 2018): the forest density classifier and its baselines
    "forest-density": estimators.ForestDensityClassifier,
    "lda": lda_classifier,
    "knn5": nearest_neighbours_classifier,
    "nb-kde": estimators.KernelNaiveBayesClassifier,
    "svm-rbf": rbf_svm_classifier,
    "rf50": random_forest_classifier,
    # Narasimhan and Bilmes (2005): the EAR tree of Algorithm 3
    "ear-tree": estimators.EARTreeClassifier,
    "ear-tree-gaussian": partial(estimators.EARTreeClassifier, distribution="gaussian"),
    # issue 31: k-dependence models of any k, averaged and ensembled
    "aode": estimators.AODEClassifier,
    "a2de": partial(estimators.AODEClassifier, n_super_parents=2),
    "kdb": partial(estimators.KDBClassifier, selective=False),
    "skdb": estimators.KDBClassifier,
    "skdb-hier": partial(estimators.KDBClassifier, smoothing="hierarchical"),
    "eskdb": estimators.KDBEnsembleClassifier,
    "boosted": estimators.BoostedGraphicalModelClassifier,
    # the baselines of "discotree compare": any columns, missing values
    "rf": partial(AnyColumnsBaseline, "random-forest"),
    "hgb": partial(AnyColumnsBaseline, "gradient-boosting"),
    "logreg": partial(AnyColumnsBaseline, "logistic"),
    "svm": partial(AnyColumnsBaseline, "svm"),
}

#: One line on each name of the library (what ``discotree models`` prints).
DESCRIPTIONS: dict[str, str] = {
    "nb": "naive Bayes, alpha = 1",
    "chow-liu": "a Chow-Liu tree per class (Chow & Liu 1968)",
    "tan-cmi": "TAN: the tree of largest I(X_i; X_j | C), alpha = 1 (Friedman et al. 1997)",
    "dt": "discriminative tree pairs (Tan et al. 2010), alpha = 1",
    "dt-forest": "discriminative forest pairs, edges chosen by CV (Tan et al. 2010)",
    "nb-auto": "naive Bayes, alpha chosen by CV (the library's default)",
    "tan-cmi-auto": "TAN, alpha chosen by CV (the library's default)",
    "dt-auto": "discriminative tree pairs, alpha and calibration by CV (the default)",
    "svm-quad": "a quadratic-kernel SVM on one-hot codes (baseline)",
    "forest-density": "linear SVM on log kernel densities of features and pairs (Dorn et al. 2018)",
    "lda": "linear discriminant analysis (baseline)",
    "knn5": "5 nearest neighbours (baseline)",
    "nb-kde": "naive Bayes with kernel densities (baseline of Dorn et al. 2018)",
    "svm-rbf": "an RBF-kernel SVM (baseline)",
    "rf50": "a random forest of 50 trees (baseline)",
    "ear-tree": "a tree of recursive EAR separators (Narasimhan & Bilmes 2005)",
    "ear-tree-gaussian": "the EAR tree of Gaussian variables (Narasimhan & Bilmes 2005)",
    "aode": "A1DE: every attribute a super-parent, averaged (Webb et al. 2005)",
    "a2de": "A2DE: every pair of attributes super-parents, averaged (Webb et al. 2012)",
    "kdb": "kDB, k = 5, sparse tables (Sahami 1996)",
    "skdb": "selective kDB: attributes and k <= 5 by leave-one-out (Martinez et al. 2016)",
    "skdb-hier": "selective kDB with hierarchical (back-off) smoothing",
    "eskdb": "10 selective kDB (stochastic 4-bin cuts, sampled orders), linear and pair members",
    "boosted": "boosted discriminative tree pairs, 10 rounds, calibrated (Tan et al. 2010)",
    "rf": "random forest, 300 trees, on one-hot categories (baseline, any columns)",
    "hgb": "histogram gradient boosting, native categories (baseline, any columns)",
    "logreg": "logistic regression on standardised one-hot codes (baseline, any columns)",
    "svm": "RBF SVM, Platt-scaled probabilities, standardised (baseline, any columns)",
}


#: The names the library itself defines (each has a line in DESCRIPTIONS).
LIBRARY_NAMES: tuple[str, ...] = tuple(CLASSIFIERS)


def _add_installed_names() -> None:
    """The names of the distributions installed with a ``discotree.classifiers`` entry
    point (a broken one is reported by a warning, and skipped)."""
    import warnings
    from importlib.metadata import entry_points

    for point in entry_points(group="discotree.classifiers"):
        try:
            names = point.load()
        except Exception as err:  # an installed plugin must not break the library
            warnings.warn(
                f"discotree: the classifier names of {point.value} could not be loaded: {err!r}",
                stacklevel=2,
            )
            continue
        for name, factory in dict(names).items():
            CLASSIFIERS.setdefault(name, factory)


_add_installed_names()


def make_classifier(name: str, **params) -> ClassifierMixin:
    """A new unfitted classifier registered under ``name``, with ``params`` set.

    Raises
    ------
    ValueError
        If no classifier has that name; the message lists the known names.
    """
    try:
        factory = CLASSIFIERS[name]
    except KeyError as err:
        raise ValueError(
            f"unknown classifier {name!r}; choose from {', '.join(sorted(CLASSIFIERS))}"
        ) from err
    return factory(**params)
