"""Model evaluation for ``discotree compare``: stratified cross-validation of registered
classifiers on the same folds, and two-pass cross-validation of a file larger than memory.

The paper reproductions' harness (experiments, cached runner, reports, the data folder)
is not here: it is the distribution ``reproductions/`` of the repository
(``pip install -e ./reproductions``), which builds on this package's public names.
"""

from __future__ import annotations

from .compare import ModelScores, compare_models, ranking
from .splits import Fold, cross_validation, repeated_cross_validation
from .streaming_cv import row_folds, stream_cross_validate

__all__ = [
    "Fold",
    "ModelScores",
    "compare_models",
    "cross_validation",
    "ranking",
    "repeated_cross_validation",
    "row_folds",
    "stream_cross_validate",
]
