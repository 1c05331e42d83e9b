"""The checks of the numbers and shapes of stored models, shared by every model class
(each owns its checks: :class:`StoredModel`): those of forests and parents. The
generic helpers (finite numbers, normalised distributions, integers in range, shapes)
have their one home in :mod:`discotree.stored_checks`; the models import them there.

Every refusal is a ``ValueError`` whose message starts with the path of the field
(``content.model_.log_cpts[0][1]: holds nan at [0, 2]; ...``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, cast

import numpy as np

from ..stored_checks import CheckedState, fail
from ..structure.spanning import topological_order
from .protocol import DeclaredSizes

__all__ = ["StoredModel", "check_features", "check_forest_parents"]


def check_forest_parents(parents: Any, n_features: int, where: str) -> np.ndarray:
    """Per class, a forest over ``n_features``: parents in ``[-1, n)``, none its own,
    no cycle."""
    parents = np.asarray(parents)
    if (
        parents.ndim != 2
        or parents.shape[1] != n_features
        or parents.dtype.kind not in "iu"
        or ((parents < -1) | (parents >= n_features)).any()
    ):
        raise fail(where, f"must be (classes, {n_features}) parents in [-1, {n_features})")
    for c, row in enumerate(parents):
        try:
            whole = len(topological_order(row)) == n_features
        except ValueError:  # (a cycle)
            whole = False
        if not whole:
            raise fail(f"{where}[{c}]", "has a cycle: a forest has none")
    return parents


def check_features(parents: Any, n: int, j: int, where: str) -> None:
    """Refuse parents that are not a list or tuple of distinct features ``0..n-1``
    other than ``j`` (before anything indexes with them)."""
    if not isinstance(parents, list | tuple) or any(
        isinstance(p, bool) or not isinstance(p, int) or not 0 <= p < n or p == j for p in parents
    ):
        raise fail(where, f"{parents!r} are not other features among the {n}")
    if len(set(parents)) != len(parents):
        raise fail(where, f"{parents!r} names a feature twice")


class StoredModel(CheckedState):
    """A model class that owns its file state: what a model file stores of it
    (:meth:`state`), the model rebuilt from that (:meth:`from_state`, no constructor
    runs), and the checks of a loaded one: its shapes against its categories and
    parents (:meth:`check_structure`, before any number is read), then its numbers
    (:meth:`check_numbers`: finite, distributions normalised, counts >= 0). The file
    reader runs every object's structure check, then every object's numbers.

    Examples
    --------
    >>> import numpy as np
    >>> from discotree.models.discrete_forest import DiscreteForestModel
    >>> model = DiscreteForestModel(
    ...     np.array([[-1]]), np.array([2]), [[np.log([[0.5, 0.4]])]])
    >>> back = DiscreteForestModel.from_state(model.state())
    >>> back.check_structure("model")
    >>> back.check_numbers("model")
    Traceback (most recent call last):
    ...
    ValueError: model.log_cpts[0][0]: its probabilities sum to 0.9 at [0], not 1 (tolerance 1e-06)
    """

    #: The model's own checks of a loaded file, ``(structure, numbers)``: functions of
    #: the model and the path of its fields, run by :meth:`check_structure` and
    #: :meth:`check_numbers` (None: :class:`~discotree.stored_checks.CheckedState`'s).
    _FILE_CHECKS: ClassVar[
        tuple[Callable[[Any, str], object], Callable[[Any, str], object]] | None
    ] = None

    def check_structure(self, where: str) -> None:
        """The shapes of a loaded model against its categories and parents."""
        if self._FILE_CHECKS is None:
            super().check_structure(where)
        else:
            self._FILE_CHECKS[0](self, where)

    def check_numbers(self, where: str) -> None:
        """The numbers of a loaded model (finite, normalised, in range)."""
        if self._FILE_CHECKS is None:
            super().check_numbers(where)
        else:
            self._FILE_CHECKS[1](self, where)

    def state(self) -> dict[str, Any]:
        """The fields a model file stores (a class with its own ``__getstate__``: that,
        without derived caches)."""
        if "__getstate__" in type(self).__dict__:
            return cast(dict[str, Any], self.__getstate__())
        return dict(vars(self))

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> Any:
        """The model of a stored ``state`` (a class with its own ``__setstate__``
        recomputes what it derives from the fields, and may refuse them with a
        ``ValueError``)."""
        obj = object.__new__(cls)
        if "__setstate__" in cls.__dict__ and "__getstate__" in cls.__dict__:
            obj.__setstate__(state)  # type: ignore[attr-defined]
        else:
            obj.__dict__.update(state)
        return obj

    def declared_sizes(self) -> DeclaredSizes | None:
        """The number of classes and the categories of each feature the model scores,
        which the estimator's file check compares with its ``classes_`` and its
        encoder's categories (:func:`discotree.models.protocol.declared_sizes`): by
        default the length of a ``class_log_prior`` field and the ``n_categories``
        field (None if absent); None, nothing to compare, without the former. A
        model whose fields say otherwise overrides this."""
        fields = vars(self)
        prior = fields.get("class_log_prior")
        if prior is None:
            return None
        return len(prior), fields.get("n_categories")
