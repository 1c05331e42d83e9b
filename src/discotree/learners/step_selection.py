"""How many steps of a discriminative structure search to keep, by cross-validation.

Pernkopf and Bilmes regularise their 2-tree structures so (Pernkopf & Bilmes 2010,
Section 6.5.2): "For 2-trees we noticed that the data tended to overfit without further
regularization. Therefore we introduce 5-fold cross validation on the training data to
find the optimal classifier structure." The paper does not say over what the
cross-validation ranges. Here it ranges over the length of the search: every search of
:mod:`discotree.structure.bayes_net_search` is a sequence of accepted steps (an edge, a
parent pair, a superparent's children), each raising the training score, and its
prefixes are nested structures from naive Bayes (no step) to the search's result. The
search is run on each training fold, every prefix is scored by the held-out
classification rate of its maximum-likelihood parameters, and the prefix length with the
best summed held-out rate (the shortest among ties) is kept of the search on all rows.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

from .. import missing_values
from ..kernels.counts import class_totals
from ..kernels.family_counts import family_counts
from ..models.bayes_net import BayesNetModel
from ..numerics import SCORE_TIE_RTOL, argmax_with_ties, class_log_prior
from ..stats.dirichlet import smoothed_conditional
from ..stats.folds import content_folds

__all__ = ["held_out_rates", "steps_by_cross_validation"]

Parents = list[tuple[int, ...]]


def held_out_rates(
    steps: list[Parents],
    train: tuple[NDArray[np.integer], NDArray[np.intp], NDArray[np.float64]],
    held: tuple[NDArray[np.integer], NDArray[np.intp], NDArray[np.float64]],
    n_classes: int,
    n_categories: NDArray[np.intp],
    *,
    alpha: float,
    epsilon: float,
) -> NDArray[np.float64]:
    """The held-out weight classified correctly by each prefix of a search.

    Parameters
    ----------
    steps : list of list of tuple of int
        The attribute parents after each accepted step of a search on ``train``.
    train, held : (codes, class_index, weights)
    n_classes : int
    n_categories : ndarray of shape (n_features,)
    alpha, epsilon : float
        Smoothing of the maximum-likelihood parameters
        (:func:`~discotree.stats.discrete.smoothed_conditional`).

    Returns
    -------
    ndarray of shape (len(steps) + 1,)
        Entry m: the summed weight of the held-out rows that the structure after m
        steps (m = 0: naive Bayes), with parameters fitted on ``train``, classifies
        correctly (ties go to the first class).
    """
    codes, class_index, weights = train
    held_codes, held_class, held_weights = held
    d = len(n_categories)
    prior = class_totals(class_index, weights, n_classes)
    log_prior = class_log_prior(prior)
    tables: dict[tuple[int, tuple[int, ...]], NDArray[np.float64]] = {}

    def log_cpt(node: int, parents: tuple[int, ...]) -> NDArray[np.float64]:
        key = (node, parents)
        if key not in tables:
            counts = family_counts(
                codes, class_index, weights, n_classes, n_categories, node=node, parents=parents
            )
            tables[key] = np.log(smoothed_conditional(counts, alpha, epsilon))
        return tables[key]

    held_codes = np.asarray(held_codes)
    complete = missing_values.complete_rows(held_codes)
    complete_rows = held_codes[complete]
    # each node's column on the complete held-out rows, for its current parents: a
    # step changes one or two nodes, so only theirs are gathered again
    columns: dict[int, tuple[tuple[int, ...], NDArray[np.float64]]] = {}
    rates = np.empty(len(steps) + 1)
    naive: Parents = [()] * d
    for m, parents in enumerate([naive, *steps]):
        model = BayesNetModel(
            np.asarray(n_categories, dtype=np.intp),
            list(parents),
            [log_cpt(j, tuple(pa)) for j, pa in enumerate(parents)],
            log_prior,
        )
        joint = np.zeros((len(held_codes), n_classes))
        if complete.any():
            for j, pa in enumerate(parents):
                if columns.get(j, (None,))[0] != tuple(pa):
                    columns[j] = (tuple(pa), model.node_log_probability(j, complete_rows))
            joint[complete] = sum(columns[j][1] for j in range(d))
        if not complete.all():  # missing features summed out
            joint[~complete] = model.log_likelihood(held_codes[~complete])
        predicted = argmax_with_ties(joint + log_prior)
        rates[m] = held_weights[predicted == held_class].sum()
    return rates


def steps_by_cross_validation(
    search: Callable[[NDArray[np.integer], NDArray[np.intp], NDArray[np.float64]], list[Parents]],
    codes: NDArray[np.integer],
    class_index: NDArray[np.intp],
    weights: NDArray[np.float64],
    n_classes: int,
    n_categories: NDArray[np.intp],
    n_folds: int,
    alpha: float,
    epsilon: float,
    seed: int = 0,
) -> tuple[int, NDArray[np.float64]]:
    """The number of steps of ``search`` to keep, by ``n_folds``-fold cross-validation.

    Parameters
    ----------
    search : callable
        ``search(codes, class_index, weights)`` runs the structure search on those rows
        and returns the attribute parents after each of its accepted steps.
    codes, class_index, weights, n_classes, n_categories
        The encoded training rows.
    n_folds : int
        The weight-equivalent folds of the package
        (:func:`~discotree.stats.folds.content_folds`: a row of weight k and its k
        copies are held out together); a fold whose training rows miss a class
        with positive weight is skipped.
    alpha, epsilon : float
        Smoothing of the held-out models' parameters.
    seed : int
        Seeds the folds (``content_folds``).

    Returns
    -------
    n_steps : int
        The prefix length with the largest summed held-out correct weight, the
        shortest among equals.
    rates : ndarray of shape (longest fold search + 1,)
        That held-out correct weight as a fraction of all the weight, per prefix
        length (a fold whose search stopped earlier counts its full structure for the
        longer prefixes). Empty, with ``n_steps`` the largest integer (every step
        kept), when no fold's training rows hold every class.

    Notes
    -----
    Costs ``n_folds`` searches on ``(n_folds - 1) / n_folds`` of the rows, plus the
    held-out scoring of every prefix (each step's family counted once per fold).
    """
    folds = content_folds(codes, n_folds, seed)
    per_fold = []
    for k in range(n_folds):
        train, held = folds != k, folds == k
        present = class_totals(class_index[train], weights[train], n_classes)
        if not held.any() or np.any(present <= 0):
            continue
        part = (codes[train], class_index[train], weights[train])
        steps = search(*part)
        per_fold.append(
            held_out_rates(
                steps,
                part,
                (codes[held], class_index[held], weights[held]),
                n_classes,
                n_categories,
                alpha=alpha,
                epsilon=epsilon,
            )
        )
    if not per_fold:  # no fold holds every class in its training rows: keep every step
        return np.iinfo(np.intp).max, np.zeros(0)
    longest = max(len(r) for r in per_fold)
    total = np.zeros(longest)
    for rates in per_fold:  # a shorter search keeps its last structure
        total += np.concatenate([rates, np.full(longest - len(rates), rates[-1])])
    rates = total / weights.sum()
    return int(np.flatnonzero(total >= total.max() - SCORE_TIE_RTOL * weights.sum())[0]), rates
