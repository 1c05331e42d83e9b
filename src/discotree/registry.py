"""Classifiers by short name, for the command line and the experiment harness."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from sklearn.base import ClassifierMixin

from .classifiers import (
    BoostedGraphicalModelClassifier,
    ChowLiuClassifier,
    DiscriminativeTreeClassifier,
    EARTreeClassifier,
    ForestDensityClassifier,
    KernelNaiveBayesClassifier,
    NaiveBayesClassifier,
    TANClassifier,
)
from .classifiers.baselines import (
    QuadraticSVMClassifier,
    lda_classifier,
    nearest_neighbours_classifier,
    random_forest_classifier,
    rbf_svm_classifier,
)

__all__ = ["CLASSIFIERS", "make_classifier"]


def _pernkopf_names() -> dict[str, Callable[[], ClassifierMixin]]:
    """The naming scheme of Pernkopf & Bilmes 2010, Section 6: A-B-C-D with A the k-tree (tan =
    1-tree,
    2tree = 2-tree), B-C the structure learner, D the parameter training; "2tree-B-C-cv-D":
    the search's length chosen by 5-fold cross-validation (Section 6.5.2)."""
    names: dict[str, Callable[[], ClassifierMixin]] = {
        "nb-ml": partial(TANClassifier, k=0, alpha=1.0),
        "nb-cl": partial(TANClassifier, k=0, parameters="cl", alpha=1.0),
    }
    structures = ["cmi", "cr", "superparent", "omi-cr", "mmi-cr", "omisp-cr", "ocr-cr", "ro-cr"]
    for prefix, k in (("tan", 1), ("2tree", 2)):
        for structure in structures:
            for parameters in ("ml", "cl"):
                names[f"{prefix}-{structure}-{parameters}"] = partial(
                    TANClassifier, k=k, structure=structure, parameters=parameters, alpha=1.0
                )
    for structure in structures[1:]:  # the 2-trees regularised as in Section 6.5.2
        for parameters in ("ml", "cl"):
            names[f"2tree-{structure}-cv-{parameters}"] = partial(
                TANClassifier,
                k=2,
                structure=structure,
                parameters=parameters,
                structure_folds=5,
                alpha=1.0,
            )
    for parameters in ("ml", "cl"):  # Table 1's TAN-OMI-CRCL-ML and -CL
        names[f"tan-omi-crcl-{parameters}"] = partial(
            TANClassifier, k=1, structure="omi-crcl", parameters=parameters, alpha=1.0
        )
    return names


#: name -> factory of an unfitted classifier. The names the reproductions use pin the
#: papers' smoothing (alpha = 1 unless an experiment sets it); the "-auto" names have
#: the library's default, alpha="auto".
CLASSIFIERS: dict[str, Callable[[], Any]] = {
    "nb": partial(NaiveBayesClassifier, alpha=1.0),
    "chow-liu": ChowLiuClassifier,
    "tan-cmi": partial(TANClassifier, alpha=1.0),
    "dt": partial(DiscriminativeTreeClassifier, alpha=1.0),
    "dt-forest": partial(DiscriminativeTreeClassifier, n_edges="cv", alpha=1.0),
    "nb-auto": NaiveBayesClassifier,
    "tan-cmi-auto": TANClassifier,
    "dt-auto": DiscriminativeTreeClassifier,
    # the paper's algorithms: eq. 26 with F_0 = 0 (init="zero"), scores as they are
    # (calibration="none": the reproductions count errors, which a scale never changes)
    "bgmc": partial(BoostedGraphicalModelClassifier, base="dt", init="zero", calibration="none"),
    "bcl": partial(
        BoostedGraphicalModelClassifier, base="chow-liu", init="zero", calibration="none"
    ),
    "btan": partial(BoostedGraphicalModelClassifier, base="tan", init="zero", calibration="none"),
    "bgmc-discrete": partial(
        BoostedGraphicalModelClassifier,
        base="dt",
        algorithm="discrete",
        init="zero",
        calibration="none",
    ),
    "bcl-discrete": partial(
        BoostedGraphicalModelClassifier,
        base="chow-liu",
        algorithm="discrete",
        init="zero",
        calibration="none",
    ),
    "btan-discrete": partial(
        BoostedGraphicalModelClassifier,
        base="tan",
        algorithm="discrete",
        init="zero",
        calibration="none",
    ),
    "svm-quad": QuadraticSVMClassifier,
    # Pernkopf and Bilmes (Pernkopf & Bilmes 2010): {nb, tan, 2tree}-{structure}-{ml, cl}
    **_pernkopf_names(),
    # Dorn et al. (Dorn et al. 2018): the forest density classifier and its baselines
    "forest-density": ForestDensityClassifier,
    "lda": lda_classifier,
    "knn5": nearest_neighbours_classifier,
    "nb-kde": KernelNaiveBayesClassifier,
    "svm-rbf": rbf_svm_classifier,
    "rf50": random_forest_classifier,
    # Narasimhan and Bilmes (2005): the EAR tree of Algorithm 3
    "ear-tree": EARTreeClassifier,
    "ear-tree-gaussian": partial(EARTreeClassifier, distribution="gaussian"),
}


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
