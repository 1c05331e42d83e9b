"""Fitting from a source read several times in batches, keeping only counts: the passes
of a count learner (:class:`~discotree.learners.registry.Learner`) over a file larger
than memory, as the Dask engine runs them over partitions.

``partial_fit`` can only add what one pass gives; a learner that reads ``"pairs, then
families"`` (TAN with ``k = 2``, kDB, selective kDB) needs the pair tables before it can
choose which families to count, and selective kDB then scores every row against all the
counts (its leave-one-out losses). Its ``partial_fit`` therefore keeps the encoded rows
(a byte per cell). :func:`fit_in_passes` reads the source again instead:

1. the pair tables and class weights (the first batch fixes the numeric bins, as for
   ``partial_fit``; later batches may add categories);
2. the family counts of the parents the learner chose from them;
3. for selective kDB, the leave-one-out losses under all the counts;

then hands the sums to the estimator's ``fit_from_statistics``. Memory is one batch plus
the tables, whatever the number of rows; the model is the one ``partial_fit`` over the
same batches learns (tested).

Every pass must read the batches of the first. Later passes check them as ``partial_fit``
checks a batch: a label not in ``classes``, or a DataFrame whose columns differ from the
first batch's (in names or in order), is a ``ValueError`` naming them. A category that
the first pass did not see is one too: ``partial_fit`` would add it to the tables, but
the parents were chosen from tables without it, so the batches have changed since the
first pass. A file read in passes (:class:`~discotree.datasets.streaming.TableSource`)
checks itself that its bytes do not change between passes; within its
:meth:`~discotree.datasets.streaming.TableSource.noticing_changes`, an error of a later
pass that a changed file explains names the file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

from ..docstrings import fill_doc
from ..learners.registry import Counts, get_learner
from ..sufficient_statistics import StatisticsSchema, add_statistics

__all__ = ["fit_in_passes", "reads_in_passes"]


def reads_in_passes(estimator: Any) -> bool:
    """Whether ``estimator`` fits from counts of several passes (``"pairs, then
    families"``) with a fixed ``alpha``: then :func:`fit_in_passes` needs no rows."""
    if not hasattr(estimator, "learner_spec"):
        return False
    try:
        spec = estimator.learner_spec()
    except (ValueError, TypeError):  # a row learner, or bad parameters (fit says which)
        return False
    return get_learner(spec.learner).reads == "pairs, then families" and spec.alpha != "auto"


@fill_doc
def fit_in_passes(
    estimator: Any,
    batches: Callable[[], Iterable[tuple[Any, Any]]],
    classes: Any,
    on_pass: Callable[[int], None] | None = None,
) -> Any:
    """Fit ``estimator`` from the counts of up to three passes over ``batches()``.

    Parameters
    ----------
    estimator : classifier whose learner reads ``"pairs, then families"``
        (:func:`reads_in_passes`), e.g. ``KDBClassifier()``.
    batches : callable
        Returns a new iterator of ``(X, y)`` batches over the whole data at each call.
    classes : array-like
        Every label of the data.
    on_pass : callable, optional
        Called with the number (1, 2, 3) of each pass as it starts (progress).

    Returns
    -------
    estimator
        Fitted by ``fit_from_statistics``.

    Raises
    ------
    ValueError
        If the estimator does not fit from counts of several passes, the data holds
        no rows, a label is not in ``classes``, or a batch's columns differ from the
        first batch's; or a later pass holds a category that the first did not, or
        reads fewer or more rows than the first.

    Examples
    --------
    {example_batch_halves}
    >>> from discotree import KDBClassifier
    >>> clf = fit_in_passes(KDBClassifier(k=2), halves, classes=[0, 1])
    >>> bool(clf.score(X, y) > 0.9)
    True
    """
    name = type(estimator).__name__
    if not reads_in_passes(estimator):
        raise ValueError(
            f"{name} does not fit from the counts of several passes (its learner reads "
            "other statistics, or alpha='auto'); use partial_fit."
        )
    spec = estimator.learner_spec()
    learner = get_learner(spec.learner)

    def each(number: int) -> Iterator[tuple[Any, Any]]:
        if on_pass is not None:
            on_pass(number)
        return iter(batches())

    def encoded(number: int, schema: StatisticsSchema) -> Iterator[tuple[Any, Any, Any]]:
        """The batches of a later pass, encoded, checked as pass 1 checked them; as
        many rows in all as pass 1 read."""
        n_read = 0
        for index, (X, y) in enumerate(each(number), start=1):
            try:
                batch = schema.encode(X, y)
            except ValueError as err:
                raise ValueError(
                    f"{name}: pass {number}, batch {index}: {err} Every pass must read "
                    "the batches of pass 1."
                ) from err
            n_read += len(batch[1])
            yield batch
        if n_read != n_rows:
            read = "no rows" if n_read == 0 else f"{n_read} rows"
            fewer = "fewer" if n_read < n_rows else "more"
            raise ValueError(
                f"{name}: pass {number} read {read} ({fewer} than the {n_rows} rows of "
                "pass 1). Every pass must read the batches of pass 1."
            )

    schema: StatisticsSchema | None = None
    total = None
    n_rows = 0
    for X, y in each(1):
        n_rows += len(y)
        if schema is None:
            schema = StatisticsSchema.from_sample(
                X,
                classes,
                max_categories=estimator.max_categories,
                discretizer=estimator.discretizer,
                y=y,
            )
        total = add_statistics(total, schema.count(X, y))
    if total is None or schema is None:
        raise ValueError(f"{name}: the data holds no data rows; nothing to fit.")
    final = total.schema  # every category of every batch
    assert learner.structure is not None
    parents = learner.structure(total, spec)
    n_classes = len(final.classes)
    families = None
    for codes, class_index, weights in encoded(2, final):
        w = np.ones(len(codes)) if weights is None else weights
        part = learner.families(codes, class_index, w, n_classes, final.n_categories, parents)
        families = add_statistics(families, part)
    scores = None
    if learner.score_rows is not None and spec.options.selective:
        counts = Counts(final.n_categories, np.asarray(total.class_weight), total, families)
        for codes, class_index, weights in encoded(3, final):
            scores = add_statistics(
                scores, learner.score_rows(counts, spec, codes, class_index, weights)
            )
    return estimator.fit_from_statistics(total, families=families, scores=scores)
