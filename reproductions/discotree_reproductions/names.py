"""The papers' classifier names, added to :data:`discotree.registry.CLASSIFIERS` through
the entry point ``discotree.classifiers`` when the reproductions are installed."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from discotree.classifiers import BoostedGraphicalModelClassifier, TANClassifier

__all__ = ["CLASSIFIERS"]


def pernkopf_names() -> dict[str, Callable[[], Any]]:
    """The naming scheme of Pernkopf & Bilmes 2010, Section 6: A-B-C-D with A the k-tree (tan =
    1-tree,
    2tree = 2-tree), B-C the structure learner, D the parameter training; "2tree-B-C-cv-D":
    the search's length chosen by 5-fold cross-validation (Section 6.5.2)."""
    names: dict[str, Callable[[], Any]] = {
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


#: name -> factory of an unfitted classifier (the papers' smoothing, alpha = 1).
CLASSIFIERS: dict[str, Callable[[], Any]] = {
    # Pernkopf & Bilmes 2010: {nb, tan, 2tree}-{structure}-{ml, cl}
    **pernkopf_names(),
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
}
