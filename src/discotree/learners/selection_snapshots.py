"""The leave-one-out joint of the model selective kDB will select, kept while its
selection pass scores every nested model, so that the held-out posteriors the ensemble
weighs its members by cost no second pass over the rows.

Selective kDB's third pass adds, attribute by attribute, each row's leave-one-out
``log P(x_j | c, parents)`` to the joint of every nested model ``(s, q)`` (the first
``s`` ranked attributes, at most ``q`` parents each) and sums their losses
(:func:`~discotree.learners.k_dependence.leave_one_out_losses`); the selected model is
the one of least loss, ties (within :data:`~discotree.numerics.SCORE_TIE_RTOL`) going to
fewer attributes, then fewer parents (:func:`~discotree.numerics.argmax_with_ties`).
The selected ``s`` for its ``q`` is therefore the first ``s`` whose loss is within the
tie tolerance of the least: a *record* of that ``q``'s losses (lower than every earlier
one). :class:`SelectionSnapshots` keeps a copy of the joint at each record, and drops
it as soon as a lower loss elsewhere puts it out of the tie tolerance for good (the
least loss only falls, so the tolerance of the final one is at most the current one):
what is left at the end holds the selected model's joint, the same numbers the second
pass would add up in the same order.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ..numerics import SCORE_TIE_RTOL

__all__ = ["MAX_SNAPSHOTS", "SelectionSnapshots"]

#: Joints kept at once, at most: beyond (many models within the tie tolerance of each
#: other), the snapshots give up and the second pass runs.
MAX_SNAPSHOTS = 64


class SelectionSnapshots:
    """The joints of the candidate models of one selection pass (see the module).

    Parameters
    ----------
    rows : ndarray of int or None
        The rows whose joints to keep (None: all).

    Examples
    --------
    >>> snapshots = SelectionSnapshots(None)
    >>> joint = np.zeros((2, 2))
    >>> for s, loss in enumerate([5.0, 3.0, 4.0, 3.0]):
    ...     snapshots.offer(s, 0, loss, joint + s)
    >>> sorted(snapshots.kept)
    [(1, 0)]
    >>> snapshots.joint(1, 0)[0].tolist()
    [1.0, 1.0]
    """

    def __init__(self, rows: NDArray[np.intp] | None) -> None:
        self.rows = rows
        self.kept: dict[tuple[int, int], tuple[float, NDArray[np.float64]]] = {}
        self.record: dict[int, float] = {}  # per q, its least loss so far
        self.lowest = np.inf
        self.given_up = False

    def offer(self, s: int, q: int, loss: float, joint: NDArray[np.float64]) -> None:
        """Model ``(s, q)``'s summed loss and its joint of every row (copied if kept)."""
        if self.given_up:
            return
        if loss < self.record.get(q, np.inf):
            self.record[q] = loss
            taken = joint if self.rows is None else joint[self.rows]
            self.kept[(s, q)] = (loss, np.array(taken, dtype=np.float64, copy=True))
        if loss < self.lowest:
            self.lowest = loss
            ceiling = loss + SCORE_TIE_RTOL * max(abs(loss), 1.0)
            self.kept = {key: kept for key, kept in self.kept.items() if kept[0] <= ceiling}
        if len(self.kept) > MAX_SNAPSHOTS:
            self.give_up()

    def give_up(self) -> None:
        """Keep nothing more (the caller runs the second pass instead)."""
        self.given_up = True
        self.kept.clear()

    def joint(self, s: int, q: int) -> NDArray[np.float64] | None:
        """The kept joint of model ``(s, q)``, or None."""
        kept = self.kept.get((s, q))
        return None if kept is None else kept[1]
