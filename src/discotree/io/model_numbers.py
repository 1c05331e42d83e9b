"""Checks of the numbers of a loaded JSON model file: one check per model kind.

The structural checks of :mod:`discotree.io.model_checks` make a file's arrays agree
in shape; these make its numbers ones a fitted model can hold, so that a tampered or
corrupted file is refused at load instead of predicting NaN or shifted probabilities:

* every stored number is finite and at most :data:`MAX_MAGNITUDE` in absolute value
  (the sums and products prediction forms of such numbers stay finite), except the
  log-probabilities a model may legitimately hold as ``-inf``: a class prior's, for a
  class with no weight (a class given to ``partial_fit`` and never seen);
* counts, weights, variances and concentrations are non-negative (variances and
  scales positive);
* every distribution sums to one within :data:`NORMALISATION_TOLERANCE`: each row of
  a conditional table, each joint table, each class prior, and the class marginal an
  averaged model stores agrees with the one its tables imply;
* integer fields lie in their ranges (class indices among the classes, parents among
  the features, forests without cycles);
* a fitted estimator has every fitted attribute its predictions read, none of them
  null.

Every stored class checks its own numbers (its ``check_numbers``,
:class:`discotree.stored_checks.CheckedState`): the models
(:class:`discotree.models.file_checks.StoredModel`: k-dependence models, A1DE, A2DE,
the kDB ensemble and its logistic members, Bayesian networks, discrete and Gaussian
forests), the binary problems of the discriminative trees and boosting, sparse
tables, statistics, encoders and streaming state; the estimators check their
attributes from their class-level data
(:mod:`discotree.classifiers.file_checks`). The helpers are those of
:mod:`discotree.stored_checks` and :mod:`discotree.models.file_checks`, re-exported
here; :mod:`discotree.io.estimator_numbers` walks a file and calls the checks. Each
runs after the structural checks, so the shapes and cross-references it relies on
hold. Each refusal is a ``ValueError`` whose message starts with the path of the field
(``content.model_.tables[3][1].masses: holds nan at [4]; ...``).
"""

from __future__ import annotations

from ..models.file_checks import check_forest_parents
from ..stored_checks import (
    MAX_MAGNITUDE,
    NORMALISATION_TOLERANCE,
    check_class_prior,
    integer,
    log_probabilities,
    normalised,
    numbers,
)

__all__ = [
    "MAX_MAGNITUDE",
    "NORMALISATION_TOLERANCE",
    "check_class_prior",
    "check_forest_parents",
    "integer",
    "log_probabilities",
    "normalised",
    "numbers",
]
