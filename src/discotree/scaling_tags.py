"""What an estimator supports beyond a fit in memory, as tags it declares: whether it
has ``partial_fit``, how ``discotree fit --data FILE`` reads a file for it, and whether
``fit`` takes Dask collections, with its current parameters.

An estimator declares them with ``__discotree_tags__()`` (returning
:class:`ScalingTags`), as scikit-learn's estimators declare theirs with
``__sklearn_tags__``; :func:`scaling_tags` reads them, and finds the tags of an
estimator that declares none (scikit-learn's own, the baselines) from its methods. The
command line reads a file as the tags say, and the user guide's scaling page lists the
tags of every estimator of the command line (generated, not written by hand).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["FILE_READS", "ScalingTags", "scaling_tags"]

#: How ``discotree fit --data FILE`` reads a file: ``"passes"`` (the file read again
#: at each pass, memory bounded by a batch and the tables), ``"batches"``
#: (``partial_fit`` over its batches, one pass) or ``"memory"`` (read whole).
FILE_READS = ("passes", "batches", "memory")


@dataclass(frozen=True)
class ScalingTags:
    """An estimator's support for data larger than memory (with its parameters).

    Parameters
    ----------
    partial_fit : bool
        ``partial_fit`` is available.
    files : {"passes", "batches", "memory"}
        How ``discotree fit --data FILE`` reads a file (:data:`FILE_READS`).
    dask : bool
        ``fit`` takes Dask collections (the extra ``discotree[dask]``).
    """

    partial_fit: bool = False
    files: str = "memory"
    dask: bool = False

    def __post_init__(self) -> None:
        if self.files not in FILE_READS:
            raise ValueError(f"files must be one of {FILE_READS}, got {self.files!r}.")


def scaling_tags(estimator: Any) -> ScalingTags:
    """The :class:`ScalingTags` ``estimator`` declares (``__discotree_tags__()``), or
    for one that declares none, ``partial_fit`` when it has one (its file then read in
    batches) and no Dask.

    Examples
    --------
    >>> from sklearn.linear_model import SGDClassifier
    >>> scaling_tags(SGDClassifier())
    ScalingTags(partial_fit=True, files='batches', dask=False)
    """
    declared = getattr(estimator, "__discotree_tags__", None)
    if declared is not None:
        return declared()
    partial = hasattr(estimator, "partial_fit")
    return ScalingTags(partial, "batches" if partial else "memory", False)
