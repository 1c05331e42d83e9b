"""Naive Bayes with conditional-likelihood parameters and Gaussian numeric leaves: the
multinomial logistic model over the encoded features.

With the naive Bayes structure, a categorical leaf ``log P(x_j | c)`` is a weight per
(category, class), and a Gaussian leaf whose variance the classes share is, up to terms
that do not depend on the class, linear in ``x_j`` with a weight per class. The
conditional distributions ``P(c | x)`` the structure can express are therefore exactly
the multinomial logistic ones over the one-hot categories and the numeric values
(Ng & Jordan, "On discriminative vs. generative classifiers", NIPS 2001, Section 2;
Roos, Wettig, Grünwald, Myllymäki & Tirri, "On discriminative Bayesian network
classifiers and logistic regression", Machine Learning 59, 2005, Section 4), and
fitting its parameters by conditional likelihood is fitting that logistic model
(:func:`discotree.learners.logistic.fit_logistic`).

The model reads the package's codes: a column listed with ``values`` stands for the
value of each of its categories (a binned numeric column: the standardised midpoint of
each bin), every other column is one-hot. **Pairs** (optional): for each listed pair of
features ``(i, j)``, one input per joint cell of their levels (``pair_levels``: a map of
each category to a coarser level, or None for the category itself), a weight per
(cell, class): the logistic model with second-order interactions, the discriminative
counterpart of a model in which each of the two features is a parent of the other
(Zaidi, Webb, Carman, Petitjean & Cerquides, "ALRn: accelerated higher-order logistic
regression", Machine Learning 104, 2016: their LR with all attribute pairs).
**Missing values**: a missing feature adds nothing to any class's score, the same as
leaving it out of the model (its leaf is skipped), and so does a pair one of whose
features is missing. This is not the marginal of a generative model (the parameters are
conditional), and it is the rule every prediction with missing features follows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
from numpy.typing import NDArray
from scipy import sparse
from scipy.special import log_softmax

from .. import missing_values
from ..docstrings import fill_doc
from ..kernels.encode import SMALL_DATA_CELLS
from ..kernels.logistic import logistic_scores, pair_slot_rows
from ..kernels.slot_groups import SlotColumns, SlotGroups, group_columns
from ..missing_values import MISSING
from ..stored_checks import numbers
from ..stored_classes import stored
from .category_maps import apply_maps, looked_up, mapped_categories
from .file_checks import StoredModel
from .protocol import DeclaredSizes

__all__ = [
    "NO_PAIRS",
    "PAIR_CHUNK",
    "InputGroups",
    "InputSlots",
    "LogisticModel",
    "design_matrix",
    "input_groups",
    "input_offsets",
    "input_slots",
    "pair_cells",
    "slot_columns",
]

#: Pairs whose joint cells are computed at once (temporaries of rows x this).
PAIR_CHUNK = 256
#: The pairs of a model without any: shape (0, 2).
NO_PAIRS = np.zeros((0, 2), dtype=np.intp)


def input_offsets(
    n_categories: NDArray[np.intp],
    values: list[NDArray[np.float64] | None],
    pairs: NDArray[np.intp] = NO_PAIRS,
    pair_levels: list[NDArray[np.intp] | None] | None = None,
) -> NDArray[np.intp]:
    """Where each feature's inputs start in the weight matrix (one input for a feature
    with ``values``, one per category otherwise), then each pair's (one per joint cell
    of the two features' levels), and their total last.

    Examples
    --------
    >>> input_offsets(np.array([3, 30, 2]), [None, np.zeros(30), None]).tolist()
    [0, 3, 4, 6]
    >>> input_offsets(np.array([3, 2]), [None, None], np.array([[0, 1]])).tolist()
    [0, 3, 5, 11]
    """
    sizes = [1 if v is not None else int(r) for r, v in zip(n_categories, values, strict=True)]
    if len(pairs):
        levels = mapped_categories(n_categories, pair_levels or [None] * len(n_categories))
        sizes += (levels[pairs[:, 0]] * levels[pairs[:, 1]]).tolist()
    return np.concatenate([[0], np.cumsum(sizes)]).astype(np.intp)


def pair_cells(
    codes: NDArray[np.integer],
    n_categories: NDArray[np.intp],
    pairs: NDArray[np.intp],
    pair_levels: list[NDArray[np.intp] | None],
) -> NDArray[np.intp]:
    """Every row's joint cell of each pair's two levels, shape (rows, pairs): ``level_i
    * levels_j + level_j``, -1 where either feature is missing.

    Examples
    --------
    >>> codes = np.array([[2, 1], [0, -1]])
    >>> pair_cells(codes, np.array([3, 2]), np.array([[0, 1]]), [None, None]).tolist()
    [[5], [-1]]
    """
    maps = pair_levels or [None] * len(n_categories)
    levels = mapped_categories(n_categories, maps)
    mapped = apply_maps(codes, maps)
    out = np.empty((len(codes), len(pairs)), dtype=np.intp)
    for start in range(0, len(pairs), PAIR_CHUNK):  # (rows x chunk temporaries)
        part = np.asarray(pairs[start : start + PAIR_CHUNK], dtype=np.intp).reshape(-1, 2)
        a, b = mapped[:, part[:, 0]], mapped[:, part[:, 1]]
        out[:, start : start + len(part)] = np.where(
            missing_values.observed(a) & missing_values.observed(b),
            a * levels[part[:, 1]] + b,
            MISSING,
        )
    return out


def design_matrix(
    codes: NDArray[np.integer],
    n_categories: NDArray[np.intp],
    values: list[NDArray[np.float64] | None],
    pairs: NDArray[np.intp] = NO_PAIRS,
    pair_levels: list[NDArray[np.intp] | None] | None = None,
) -> sparse.csr_matrix:
    """The sparse inputs of every row: for a feature with ``values`` its value at the
    row's category, for the others a one at the row's category, for each pair a one at
    the row's joint cell (:func:`pair_cells`); nothing where a code is missing (-1).

    Examples
    --------
    >>> codes = np.array([[0, 1], [2, -1]])
    >>> design_matrix(codes, np.array([3, 2]), [None, np.array([-1.0, 1.0])]).toarray()
    array([[1., 0., 0., 1.],
           [0., 0., 1., 0.]])
    """
    codes = np.asarray(codes)
    n_rows, n_features = codes.shape
    pairs = np.asarray(pairs, dtype=np.intp).reshape(-1, 2)
    offsets = input_offsets(n_categories, values, pairs, pair_levels)
    # one entry per (row, feature or pair), row-major: the CSR layout when nothing is
    # missing
    columns = np.empty((n_rows, n_features + len(pairs)), dtype=np.int32)
    data = np.ones((n_rows, n_features + len(pairs)), dtype=np.float64)
    for j, table in enumerate(values):
        code = codes[:, j]
        if table is None:
            columns[:, j] = offsets[j] + np.maximum(code, 0)
        else:
            columns[:, j] = offsets[j]
            data[:, j] = np.asarray(table, dtype=np.float64)[np.maximum(code, 0)]
    present = missing_values.observed(codes)
    if len(pairs):
        cells = pair_cells(codes, n_categories, pairs, pair_levels or [])
        columns[:, n_features:] = offsets[n_features:-1] + np.maximum(cells, 0)
        present = np.concatenate([present, missing_values.observed(cells)], axis=1)
    indptr = np.concatenate([[0], np.cumsum(present.sum(axis=1), dtype=np.int64)])
    if present.all():
        kept_columns, kept_data = columns.ravel(), data.ravel()
    else:  # missing cells are left out
        kept_columns, kept_data = columns[present], data[present]
    shape = (n_rows, int(offsets[-1]))
    return sparse.csr_matrix((kept_data, kept_columns, indptr), shape=shape)


@dataclass
class InputSlots:
    """The inputs of every row in the compact form the kernels read
    (:mod:`discotree.kernels.logistic`): ``slots`` (rows, one-hot features + pairs),
    int32, the one-hot input of each one-hot feature and pair (-1 where missing);
    by slot: shape (slots, rows); ``numeric`` (features with values, rows), the value
    of each (0 where missing); and
    ``numeric_inputs``, the input of each of those features. The same inputs as
    :func:`design_matrix`'s, without a sparse matrix."""

    slots: NDArray[np.int32]
    numeric: NDArray[np.float64]
    numeric_inputs: NDArray[np.intp]


def input_slots(
    codes: NDArray[np.integer],
    n_categories: NDArray[np.intp],
    values: list[NDArray[np.float64] | None],
    pairs: NDArray[np.intp] = NO_PAIRS,
    pair_levels: list[NDArray[np.intp] | None] | None = None,
) -> InputSlots:
    """The :class:`InputSlots` of every row: the inputs of :func:`design_matrix`.

    Examples
    --------
    >>> codes = np.array([[0, 1], [2, -1]])
    >>> inputs = input_slots(codes, np.array([3, 2]), [None, np.array([-1.0, 1.0])])
    >>> inputs.slots.tolist(), inputs.numeric.tolist(), inputs.numeric_inputs.tolist()
    ([[0, 2]], [[1.0, 0.0]], [3])
    """
    codes = np.asarray(codes)
    pairs = np.asarray(pairs, dtype=np.intp).reshape(-1, 2)
    offsets = input_offsets(n_categories, values, pairs, pair_levels)
    one_hot = [j for j, table in enumerate(values) if table is None]
    if offsets[-1] >= np.iinfo(np.int32).max:
        raise ValueError(f"{int(offsets[-1])} logistic inputs: more than an int32 indexes.")
    slots = np.empty((len(one_hot) + len(pairs), len(codes)), dtype=np.int32)
    if one_hot:  # (every one-hot feature at once, into the slots: no wider temporaries)
        code = codes[:, one_hot].T
        block = slots[: len(one_hot)]
        np.add(code, offsets[one_hot][:, None].astype(np.int32), out=block, casting="unsafe")
        np.copyto(block, -1, where=missing_values.is_missing(code))
    if len(pairs):  # as pair_cells, by pair: slot rows of the transposed codes
        maps = pair_levels or [None] * len(n_categories)
        first_slot, pair_offsets = len(one_hot), offsets[len(values) : -1]
        if len(pairs) * len(codes) > SMALL_DATA_CELLS:  # (compiled: one pass)
            levels = mapped_categories(n_categories, maps)
            # (only the features in a pair, by feature: their codes transposed once)
            used, within = np.unique(pairs, return_inverse=True)
            used_maps = [maps[j] if j < len(maps) else None for j in used.tolist()]
            mapped = codes[:, used]
            if any(table is not None for table in used_maps):
                mapped = apply_maps(mapped, used_maps)
            by_feature = np.ascontiguousarray(np.asarray(mapped).T, dtype=np.intp)
            pair_slot_rows(by_feature, within.reshape(pairs.shape).astype(np.intp),
                           levels[pairs[:, 1]].astype(np.intp), pair_offsets.astype(np.intp),
                           slots[first_slot:])  # fmt: skip
        else:  # (numpy on a few cells, no kernel to load: pair_cells's cells, offset)
            cells = pair_cells(codes, n_categories, pairs, maps).T
            seen = np.asarray(missing_values.observed(cells))
            slots[first_slot:] = np.where(seen, cells + pair_offsets[:, None], -1)
    numeric, numeric_inputs = _numeric_inputs(codes, values, offsets)
    return InputSlots(slots, numeric, numeric_inputs)


def _numeric_inputs(
    codes: NDArray[np.integer], values: list[NDArray[np.float64] | None], offsets: NDArray[np.intp]
) -> tuple[NDArray[np.float64], NDArray[np.intp]]:
    """The values of the features with values (features, rows: 0 where missing), and
    their inputs."""
    with_values = [j for j, table in enumerate(values) if table is not None]
    numeric = np.zeros((len(with_values), len(codes)))
    if with_values:  # (every such feature at once)
        tables = [np.asarray(values[j], dtype=np.float64) for j in with_values]
        numeric[:] = looked_up(np.asarray(codes)[:, with_values], tables, 0.0, with_values).T
    return numeric, offsets[with_values].astype(np.intp)


def slot_columns(
    n_categories: NDArray[np.intp],
    values: list[NDArray[np.float64] | None],
    pairs: NDArray[np.intp] = NO_PAIRS,
    pair_levels: list[NDArray[np.intp] | None] | None = None,
) -> SlotColumns:
    """Where :func:`input_slots`'s slots read their inputs in the codes: the one-hot
    features, then the pairs (:class:`~discotree.kernels.slot_groups.SlotColumns`).

    Examples
    --------
    >>> columns = slot_columns(np.array([3, 2]), [None, None], np.array([[0, 1]]))
    >>> columns.first.tolist(), columns.second.tolist(), columns.offset.tolist()
    ([0, 1, 0], [-1, -1, 1], [0, 3, 5])
    """
    pairs = np.asarray(pairs, dtype=np.intp).reshape(-1, 2)
    offsets = input_offsets(n_categories, values, pairs, pair_levels)
    one_hot = np.array([j for j, table in enumerate(values) if table is None], dtype=np.int64)
    maps = pair_levels or [None] * len(n_categories)
    mapped = mapped_categories(n_categories, maps)
    levels = np.zeros((len(n_categories), max(1, int(np.max(n_categories, initial=1)))))
    for j, table in enumerate(maps):
        n = int(n_categories[j])
        levels[j, :n] = np.arange(n) if table is None else np.asarray(table)[:n]
    pair_first, pair_second = pairs[:, 0].astype(np.int64), pairs[:, 1].astype(np.int64)
    return SlotColumns(
        np.concatenate([one_hot, pair_first]),
        np.concatenate([np.full(len(one_hot), -1), pair_second]).astype(np.int64),
        np.concatenate([offsets[one_hot], offsets[len(values) : -1]]).astype(np.int64),
        np.concatenate([np.ones(len(one_hot)), mapped[pair_second]]).astype(np.int64),
        np.concatenate([n_categories[one_hot], mapped[pair_first] * mapped[pair_second]]).astype(
            np.int64
        ),
        levels.astype(np.int64),
    )


@dataclass
class InputGroups:
    """The inputs of every row as groups of slots (:func:`input_groups`): the
    ``groups``, and the ``numeric`` values and ``numeric_inputs`` of
    :class:`InputSlots`."""

    groups: SlotGroups
    numeric: NDArray[np.float64]
    numeric_inputs: NDArray[np.intp]


def input_groups(
    codes: NDArray[np.integer],
    n_categories: NDArray[np.intp],
    values: list[NDArray[np.float64] | None],
    pairs: NDArray[np.intp] = NO_PAIRS,
    pair_levels: list[NDArray[np.intp] | None] | None = None,
) -> InputGroups:
    """The inputs of :func:`input_slots`, grouped
    (:func:`~discotree.kernels.slot_groups.group_columns`: from the codes, without the
    slots): for a pass over rows in parts, where the slots would be built again at every
    evaluation.

    Examples
    --------
    >>> codes = np.array([[0, 1], [2, -1]] * 64)
    >>> inputs = input_groups(codes, np.array([3, 2]), [None, None])
    >>> inputs.groups.codes[:, :2].tolist()
    [[6, 2]]
    """
    codes = np.asarray(codes)
    pairs = np.asarray(pairs, dtype=np.intp).reshape(-1, 2)
    offsets = input_offsets(n_categories, values, pairs, pair_levels)
    if offsets[-1] >= np.iinfo(np.int32).max:
        raise ValueError(f"{int(offsets[-1])} logistic inputs: more than an int32 indexes.")
    groups = group_columns(codes, slot_columns(n_categories, values, pairs, pair_levels))
    return InputGroups(groups, *_numeric_inputs(codes, values, offsets))


@fill_doc
@stored
@dataclass
class LogisticModel(StoredModel):
    """``log P(c | x) = intercept[c] + sum_j w_j(x_j, c) - log Z(x)``, the naive Bayes
    structure with conditional-likelihood parameters (see the module docstring).

    Parameters
    ----------
    coef : ndarray of shape (n_inputs, n_classes)
        One row per input (:func:`input_offsets`).
    intercept : ndarray of shape (n_classes,)
    n_categories : ndarray of shape (n_features,)
    values : list of (ndarray of shape (n_categories[j],) or None)
        Per feature, the value each category stands for (its input is that value), or
        None for a one-hot feature.
    pairs : ndarray of shape (n_pairs, 2)
        The feature pairs with joint inputs (:data:`NO_PAIRS`: none).
    pair_levels : list of (ndarray of shape (n_categories[j],) or None)
        Per feature, the level of each category in the pairs, or None for the category
        itself (an empty list: every feature's own categories).

    Examples
    --------
    {example_logistic_model}
    >>> np.exp(model.log_posterior(np.array([[0, 2], [1, -1]]))).round(3)
    array([[0.269, 0.731],
           [0.119, 0.881]])
    """

    coef: NDArray[np.float64]
    intercept: NDArray[np.float64]
    n_categories: NDArray[np.intp]
    values: list[NDArray[np.float64] | None]
    pairs: NDArray[np.intp] = field(default_factory=NO_PAIRS.copy)
    pair_levels: list[NDArray[np.intp] | None] = field(default_factory=list)

    score_kind: ClassVar[str] = "posterior"

    @property
    def n_classes(self) -> int:
        return len(self.intercept)

    def declared_sizes(self) -> DeclaredSizes:
        """Its classes (its intercepts) and the categories it reads."""
        return self.n_classes, self.n_categories

    def inputs(self, codes: NDArray[np.integer]) -> InputSlots:
        """The inputs of every row (:func:`input_slots`)."""
        return input_slots(codes, self.n_categories, self.values, self.pairs, self.pair_levels)

    def scores(self, codes: NDArray[np.integer]) -> NDArray[np.float64]:
        """The unnormalised ``log P(c | x) + log Z(x)`` of every row and class."""
        inputs = self.inputs(codes)
        return logistic_scores(
            inputs.slots, inputs.numeric, inputs.numeric_inputs, self.coef, self.intercept
        )

    def log_posterior(self, codes: NDArray[np.integer]) -> NDArray[np.float64]:
        """``log P(c | x)`` of every row (missing features skipped)."""
        return log_softmax(self.scores(codes), axis=1)

    def class_scores(
        self, codes: NDArray[np.integer], log_prior: NDArray[np.float64] | None = None
    ) -> NDArray[np.float64]:
        """:meth:`log_posterior` (the kind ``"posterior"``; ``log_prior`` is not used)."""
        return self.log_posterior(codes)

    def check_numbers(self, where: str) -> None:
        """The numbers of a loaded model (finite, normalised, in range)."""
        _logistic(self, where)


# ------------------------------------------------ checks of a loaded model
def _logistic(model: LogisticModel, where: str) -> None:
    """Finite weights and input values."""
    numbers(model.coef, f"{where}.coef")
    numbers(model.intercept, f"{where}.intercept")
    for j, values in enumerate(model.values):
        if values is not None:
            numbers(values, f"{where}.values[{j}]")
