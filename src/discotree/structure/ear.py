"""Discriminative trees by recursive EAR separators (Narasimhan & Bilmes 2005, Section 4, Algorithm
3).

The EAR measure of a pair of feature sets, ``I(S; T | C) - I(S; T)`` (Section 2.2), is
large when S and T depend on each other differently in each class, so a tree should
keep such dependencies and cut where the EAR is small. Algorithm 3 builds a tree over
the features W top-down: for every feature x of W it splits the others, ``R = W - {x}``,
into S and R - S minimising the EAR across the cut given the separator,

    phi_x(S) = I(S; R - S | x, C) - I(S; R - S | x)

(both terms are symmetric submodular in S, so phi_x is a difference of submodular
functions, minimised by the submodular-supermodular procedure of
:mod:`discotree.structure.submodular`). The x with the smallest minimum is the
separator ("the best separator is taken to be one that minimizes the EAR criterion",
Section 4): the tree is built recursively on ``{x} + S`` and ``{x} + (R - S)``, which
share x only, so the two subtrees join into one tree. A set of two features is one edge.

The listing of Algorithm 3 in our copy of the paper writes the two terms the other way
round, ``I(S; V - S | x) - I(S; V - S | x, C)``; that sign would cut the most
discriminative dependencies, and on the paper's own 3-variable example (Tables 1-2) it
returns the generative chain X1 - X2 - X3 (asymptotic error 0.4375), while the sign of
the text returns X1 - X3 - X2, whose error 0.40625 is the paper's "discriminative"
0.406. We follow the text (the ``narasimhan-example`` reproduction shows both).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import numpy as np

from ..stats.set_information import DiscreteSetEntropy, GaussianSetEntropy, set_information
from ..stored_checks import CheckedState
from ..stored_classes import stored
from .submodular import (
    byte_tables,
    exhaustive_minimum,
    is_better,
    mask_of,
    members,
    submodular_supermodular,
    sum_over,
)

__all__ = ["EARSplit", "EARTree", "ear_split", "ear_tree"]

logger = logging.getLogger(__name__)

_SEARCHES = ("sub-sup", "exhaustive")


@stored
@dataclass(frozen=True)
class EARSplit(CheckedState):
    """One step of Algorithm 3: ``separator`` splits ``part`` from ``rest``.

    ``value`` is the minimised phi = I(part; rest | separator, C) -
    I(part; rest | separator) (its negation with ``sign=-1``); ``iterations`` the
    submodular-supermodular iterations it took.
    """

    _NUMBER_FIELDS = ("value",)  # finite (the reader's check)

    separator: int
    part: frozenset
    rest: frozenset
    value: float
    iterations: int


@stored
@dataclass
class EARTree:
    """The tree of Algorithm 3: its edges (i < j, in the order found), its splits
    (top-down, depth first) and the submodular-supermodular iterations of every
    candidate separator tried."""

    edges: list[tuple[int, int]] = field(default_factory=list)
    splits: list[EARSplit] = field(default_factory=list)
    iterations: int = 0


def ear_split(
    oracle: DiscreteSetEntropy | GaussianSetEntropy,
    features: frozenset,
    separator: int,
    minimizer: str = "min-norm",
    random_state: int | np.random.Generator | None = None,
    sign: int = 1,
    search: str = "sub-sup",
    n_permutations: int = 1,
    single_moves: bool = False,
) -> EARSplit:
    """The split of ``features - {separator}`` minimising phi_x (Algorithm 3's inner
    problem).

    ``search="sub-sup"``: the submodular-supermodular procedure (Algorithm 1) with the
    given submodular ``minimizer`` (``n_permutations`` and ``single_moves`` as in
    :func:`~discotree.structure.submodular.submodular_supermodular`), a local
    minimum; ``"exhaustive"``: every split
    (2^(m-1) of m features; exact, for small problems and as the reference).
    ``sign=-1`` minimises the negated phi instead (the listing's order of the terms,
    kept to show the difference; see the module docstring)."""
    if sign not in (1, -1):
        raise ValueError(f"sign must be 1 or -1, got {sign!r}")
    if search not in _SEARCHES:
        raise ValueError(f"search must be one of {_SEARCHES}, got {search!r}")
    others = sorted(set(features) - {separator})
    # local masks over positions in ``others`` -> feature masks
    tables = byte_tables([1 << v for v in others], 0)
    ground = mask_of(others)
    given = 1 << separator

    cache: dict[tuple[int, bool], float] = {}

    def information(local: int, given_class: bool) -> float:
        key = (local, given_class)
        value = cache.get(key)
        if value is None:
            subset = sum_over(tables, local, 0)
            value = set_information(oracle, subset, ground ^ subset, given, given_class)
            cache[key] = value
        return value

    def generative(local: int) -> float:
        return information(local, False)

    def class_conditional(local: int) -> float:
        return information(local, True)

    f, g = (class_conditional, generative) if sign == 1 else (generative, class_conditional)
    if search == "exhaustive":
        subset, value = exhaustive_minimum(lambda local: f(local) - g(local), len(others))
        iterations = 0
    else:
        result = submodular_supermodular(
            f,
            g,
            len(others),
            minimizer=minimizer,
            n_permutations=n_permutations,
            single_moves=single_moves,
            random_state=random_state,
        )
        subset, value, iterations = result.subset, result.value, result.n_iterations
    part = frozenset(others[i] for i in members(subset))
    return EARSplit(separator, part, frozenset(others) - part, value, iterations)


def ear_tree(
    oracle: DiscreteSetEntropy | GaussianSetEntropy,
    n_features: int,
    minimizer: str = "min-norm",
    random_state: int | np.random.Generator | None = None,
    sign: int = 1,
    search: str = "sub-sup",
    n_permutations: int = 1,
    single_moves: bool = False,
) -> EARTree:
    """Algorithm 3 over the features ``range(n_features)``: a spanning tree.

    Ties (up to rounding, :func:`~discotree.structure.submodular.is_better`) between
    separators go to the lowest feature index.
    The other arguments as in :func:`ear_split`.
    """
    rng = np.random.default_rng(random_state)
    tree = EARTree()

    def build(features: frozenset) -> None:
        if len(features) <= 1:
            return
        if len(features) == 2:
            i, j = sorted(features)
            tree.edges.append((i, j))
            return
        options = (minimizer, rng, sign, search, n_permutations, single_moves)
        splits = [ear_split(oracle, features, x, *options) for x in sorted(features)]
        best = splits[0]
        for split in splits:
            tree.iterations += split.iterations
            if is_better(split.value, best.value):
                best = split
        tree.splits.append(best)
        logger.info(
            "EAR split %d: separator %d, %d + %d features, EAR %.4g",
            len(tree.splits),
            best.separator,
            len(best.part),
            len(best.rest),
            best.value,
        )
        build(best.part | {best.separator})
        build(best.rest | {best.separator})

    build(frozenset(range(n_features)))
    return tree
