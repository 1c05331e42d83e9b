"""Learners: statistics (or codes) in, a fitted model out.

The layer between the models (:mod:`discotree.models`) and the estimator shells
(:mod:`discotree.classifiers`). :mod:`~discotree.learners.registry` holds the one
registry of the learners fitted from counts (naive Bayes, TAN-CMI, kDB, Chow-Liu, the
discriminative tree pair), which ``fit``, ``partial_fit``, ``fit_from_statistics``, the
alpha cross-validation and the Dask engine all call; :mod:`~discotree.learners.boosting`
holds boosting's weak learners and line search, and
:mod:`~discotree.learners.step_selection` the number of steps of a structure search
chosen by cross-validation (``docs/design/architecture.md``).
"""

from . import discriminative_tree, generative, structure_search  # noqa: F401  (they register)
from .registry import LEARNERS, Counts, FittedModel, Learner, LearnerSpec, get_learner

__all__ = ["LEARNERS", "Counts", "FittedModel", "Learner", "LearnerSpec", "get_learner"]
