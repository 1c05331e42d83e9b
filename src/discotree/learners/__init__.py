"""Learners: statistics (or codes) in, a fitted model out.

The layer between the models (:mod:`discotree.models`) and the estimator shells
(:mod:`discotree.classifiers`). :mod:`~discotree.learners.registry` holds the one
registry of the learners: those fitted from counts (naive Bayes, TAN-CMI, kDB, Chow-Liu,
the discriminative tree pair), which ``fit``, ``partial_fit``, ``fit_from_statistics``,
the alpha cross-validation and the Dask engine all call, and those that read the rows
(the discriminative structure searches, boosting, the EAR tree, the alternating
maximisation of tree pairs, the forest density classifier).
:mod:`~discotree.learners.step_selection` holds the number of steps of a structure
search chosen by cross-validation (``docs/design/architecture.md``).
"""

from . import (  # noqa: F401  (they register)
    averaged_dependence,
    boosting,
    discriminative_tree,
    ear_tree,
    ensemble,
    forest_density,
    generative,
    k_dependence,
    logistic,
    structure_search,
)
from .registry import LEARNERS, Counts, FittedModel, Learner, LearnerSpec, get_learner

__all__ = ["LEARNERS", "Counts", "FittedModel", "Learner", "LearnerSpec", "get_learner"]
