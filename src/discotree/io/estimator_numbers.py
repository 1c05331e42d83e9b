"""The numeric check of a JSON model file's content (the rules of
:mod:`discotree.io.model_numbers`): every object in it checks its own numbers.

Each stored class owns its checks (:class:`discotree.stored_checks.CheckedState`):
the models (:class:`discotree.models.file_checks.StoredModel`), the estimators
(:mod:`discotree.classifiers.file_checks`: the fitted attributes a classifier's
predictions read, present and not null, its class weights and prior, its binary
problems), the encoders, the statistics and the streaming state. This module walks a
loaded file and calls them, nothing more.
"""

from __future__ import annotations

from typing import Any

from ..classifiers.file_checks import REQUIRED, EstimatorFileChecks
from ..stored_checks import CheckedState
from .model_checks import walk_objects

__all__ = ["REQUIRED", "check_numbers", "check_object_numbers"]


def check_object_numbers(obj: Any, where: str) -> None:
    """The numeric check of ``obj``'s kind, its own ``check_numbers`` (an estimator's
    ``check_state_numbers`` of its attributes; nothing for kinds without numbers)."""
    if isinstance(obj, CheckedState):
        obj.check_numbers(where)
    elif isinstance(obj, EstimatorFileChecks):
        obj.check_state_numbers(vars(obj), where)


def check_numbers(content: Any, where: str = "content") -> None:
    """Refuse a loaded file's content whose numbers no fitted model holds (see
    :mod:`discotree.io.model_numbers`): every object in ``content``, each by the check
    of its kind.

    Raises
    ------
    ValueError
        Naming the field (``content.model_.parent_log: holds nan at [0, 3]; ...``).

    Examples
    --------
    >>> import numpy as np
    >>> check_numbers({"weights": np.array([1.0, 2.0])})  # no model: nothing to check
    """
    for path, obj in walk_objects(content, where):
        check_object_numbers(obj, path)
