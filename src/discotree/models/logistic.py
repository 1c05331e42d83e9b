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
each bin), every other column is one-hot. **Missing values**: a missing feature adds
nothing to any class's score, the same as leaving it out of the model (its leaf is
skipped). This is not the marginal of a generative model (the parameters are
conditional), and it is the rule every prediction with missing features follows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import sparse
from scipy.special import log_softmax

__all__ = ["LogisticModel", "design_matrix", "input_offsets"]


def input_offsets(
    n_categories: NDArray[np.intp], values: list[NDArray[np.float64] | None]
) -> NDArray[np.intp]:
    """Where each feature's inputs start in the weight matrix (one input for a feature
    with ``values``, one per category otherwise), and their total last.

    Examples
    --------
    >>> input_offsets(np.array([3, 30, 2]), [None, np.zeros(30), None]).tolist()
    [0, 3, 4, 6]
    """
    sizes = [1 if v is not None else int(r) for r, v in zip(n_categories, values, strict=True)]
    return np.concatenate([[0], np.cumsum(sizes)]).astype(np.intp)


def design_matrix(
    codes: NDArray[np.integer],
    n_categories: NDArray[np.intp],
    values: list[NDArray[np.float64] | None],
) -> sparse.csr_matrix:
    """The sparse inputs of every row: for a feature with ``values`` its value at the
    row's category, for the others a one at the row's category; nothing where the code
    is missing (-1).

    Examples
    --------
    >>> codes = np.array([[0, 1], [2, -1]])
    >>> design_matrix(codes, np.array([3, 2]), [None, np.array([-1.0, 1.0])]).toarray()
    array([[1., 0., 0., 1.],
           [0., 0., 1., 0.]])
    """
    codes = np.asarray(codes)
    n_rows, n_features = codes.shape
    offsets = input_offsets(n_categories, values)
    # one entry per (row, feature), row-major: the CSR layout when nothing is missing
    columns = np.empty((n_rows, n_features), dtype=np.int32)
    data = np.empty((n_rows, n_features), dtype=np.float64)
    for j, table in enumerate(values):
        code = codes[:, j]
        if table is None:
            columns[:, j] = offsets[j] + np.maximum(code, 0)
            data[:, j] = 1.0
        else:
            columns[:, j] = offsets[j]
            data[:, j] = np.asarray(table, dtype=np.float64)[np.maximum(code, 0)]
    present = codes >= 0
    indptr = np.concatenate([[0], np.cumsum(present.sum(axis=1), dtype=np.int64)])
    if present.all():
        kept_columns, kept_data = columns.ravel(), data.ravel()
    else:  # missing cells are left out
        kept_columns, kept_data = columns[present], data[present]
    shape = (n_rows, int(offsets[-1]))
    return sparse.csr_matrix((kept_data, kept_columns, indptr), shape=shape)


@dataclass
class LogisticModel:
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

    Examples
    --------
    >>> model = LogisticModel(
    ...     coef=np.array([[0.0, 0.0], [0.0, 0.0], [-1.0, 1.0]]),
    ...     intercept=np.zeros(2),
    ...     n_categories=np.array([2, 3]),
    ...     values=[None, np.array([-1.0, 0.0, 1.0])],
    ... )
    >>> np.exp(model.log_posterior(np.array([[0, 2], [1, -1]]))).round(3)
    array([[0.119, 0.881],
           [0.5  , 0.5  ]])
    """

    coef: NDArray[np.float64]
    intercept: NDArray[np.float64]
    n_categories: NDArray[np.intp]
    values: list[NDArray[np.float64] | None]

    @property
    def n_classes(self) -> int:
        return len(self.intercept)

    def scores(self, codes: NDArray[np.integer]) -> NDArray[np.float64]:
        """The unnormalised ``log P(c | x) + log Z(x)`` of every row and class."""
        inputs = design_matrix(codes, self.n_categories, self.values)
        return np.asarray(inputs @ self.coef) + self.intercept

    def log_posterior(self, codes: NDArray[np.integer]) -> NDArray[np.float64]:
        """``log P(c | x)`` of every row (missing features skipped)."""
        return log_softmax(self.scores(codes), axis=1)
