"""Why this class? Exact Shapley values of every model's log-odds
(:func:`shapley_values`, from :mod:`discotree.shapley`), and each node's and edge's
share of one sample's log-likelihood ratio (:func:`edge_contributions`).

A forest distribution factorises over its nodes and edges (Tan et al. 2010, eq. 6): ``log p(x) =
sum_i log p(x_i) + sum_(i,j) log [p(x_i, x_j) /
(p(x_i) p(x_j))]``. For a binary forest classifier (naive Bayes, TAN, Chow-Liu, a
discriminative tree pair), the log-likelihood ratio ``log p_1(x) / p_0(x)`` is therefore
a sum of node terms ``log p_1(x_i) / p_0(x_i)`` and edge terms (the difference of the two
classes' pointwise mutual informations), which :func:`edge_contributions` returns; plus
the class prior, the terms add up to the decision function.

A missing feature is summed out exactly in the model's total; its node and the edges
that touch it get no term, and the difference between the total and the shown terms is
reported as ``"missing (summed out)"``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from . import missing_values
from .models.discrete_forest import DiscreteForestModel
from .shapley import ShapleyExplanation, log_odds, shapley_values
from .validation import check_table, feature_names_of, validate_data

__all__ = ["ShapleyExplanation", "edge_contributions", "log_odds", "shapley_values"]


def _marginals(model: DiscreteForestModel, c: int) -> list[NDArray[np.float64]]:
    """p_c(x_j) of every node of class c's forest (roots first, then children)."""
    parents = model.parents[c]
    d = len(parents)
    marginal: list[Any] = [None] * d
    while any(m is None for m in marginal):
        for j in range(d):
            if marginal[j] is not None:
                continue
            table = np.exp(model.log_cpts[c][j])
            p = int(parents[j])
            if p < 0:
                marginal[j] = table[0]
            elif marginal[p] is not None:
                marginal[j] = marginal[p] @ table
    return marginal


def edge_contributions(estimator: Any, x: Any) -> dict[str, float]:
    """The terms of one sample's log-likelihood ratio ``log p_1(x) / p_0(x)``.

    Parameters
    ----------
    estimator : fitted binary NaiveBayesClassifier, TANClassifier (k <= 1, ML
        parameters), ChowLiuClassifier or DiscriminativeTreeClassifier (discrete)
    x : array-like or DataFrame of shape (1, n_features)

    Returns
    -------
    dict
        ``"prior"`` (log P(c1) / P(c0)), one entry per observed feature (its node term,
        named after the column), one per edge between observed features
        (``"a -- b"``, summed over the two classes' forests), and
        ``"missing (summed out)"`` when features are missing. The values add up to the
        log posterior odds, ``decision_function(x)`` (positive favours
        ``classes_[1]``).

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from discotree import TANClassifier
    >>> from discotree.explain import edge_contributions
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = TANClassifier(alpha=1.0).fit(X, y)
    >>> terms = edge_contributions(clf, X[:1])
    >>> bool(abs(sum(terms.values()) - clf.decision_function(X[:1])[0]) < 1e-9)
    True
    """
    model = getattr(estimator, "model_", None)
    if not isinstance(model, DiscreteForestModel) or len(estimator.classes_) != 2:
        raise ValueError(
            f"edge_contributions needs a fitted binary forest classifier (naive Bayes, TAN "
            f"k <= 1 with ML parameters, Chow-Liu, discriminative trees); got "
            f"{type(estimator).__name__} with {len(getattr(estimator, 'classes_', []))} classes."
        )
    table = check_table(x, type(estimator).__name__)
    # the width and column names predict checks (scikit-learn's message names them)
    validate_data(estimator, x, skip_check_array=True, reset=False)
    if table.n_samples != 1:
        raise ValueError(f"edge_contributions explains one sample; x has {table.n_samples} rows.")
    codes = estimator.encoder_.transform(table)
    names = feature_names_of(estimator)
    row = codes[0]
    observed = missing_values.observed(row)
    prior = estimator.class_log_prior_
    terms: dict[str, float] = {"prior": float(prior[1] - prior[0])}
    for c, sign in ((1, 1.0), (0, -1.0)):
        marginal = _marginals(model, c)
        for j in np.flatnonzero(observed):
            name = names[j]
            terms[name] = terms.get(name, 0.0) + sign * float(np.log(marginal[j][row[j]]))
            p = int(model.parents[c, j])
            if p >= 0 and observed[p]:
                joint = marginal[p][row[p]] * np.exp(model.log_cpts[c][j][row[p], row[j]])
                pmi = np.log(joint / (marginal[p][row[p]] * marginal[j][row[j]]))
                edge = " -- ".join(sorted((names[p], name)))
                terms[edge] = terms.get(edge, 0.0) + sign * float(pmi)
    total = float(np.diff(model.log_likelihood(codes)[0])[0]) + terms["prior"]
    if not observed.all():
        terms["missing (summed out)"] = total - sum(terms.values())
    return terms
