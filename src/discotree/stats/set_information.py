"""Entropies and (conditional) mutual informations of *sets* of features, with and
without conditioning on the class, for the EAR criterion of Narasimhan & Bilmes 2005
(Section 2.2 and Algorithm 3):

    I(S; T | Z)    = H(S, Z) + H(T, Z) - H(S, T, Z) - H(Z)
    I(S; T | Z, C) = the same with every entropy conditioned on the class C.

Sets of features are integer bit masks (bit j: feature j), as in
:mod:`discotree.structure.submodular`. Two oracles, both caching every entropy they
compute (the set-function minimisers ask for the same sets many times):

- :class:`DiscreteSetEntropy`: plug-in entropies of the weighted empirical distribution
  of the configurations present (sparse histograms). Missing values (-1) follow the
  package's available-case rule: :func:`set_information` computes the four entropies
  of ``I(S; T | Z)`` on the rows where every feature of S, T and Z is observed (one set
  of rows, so the information is that of one distribution), and ``entropy(A)`` alone
  uses the rows where A is observed. ``missing="value"`` counts a missing value as a
  value of its own instead: the entropy of one distribution for every set, which the
  feature selector needs (its procedure asks for submodular set functions, and
  entropies over rows that change with the set are not);
- :class:`GaussianSetEntropy`: Gaussian entropies ``log det(2 pi e Sigma_A) / 2`` of
  the pooled covariance (the class-marginal) and of each class's covariance.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
from numpy.typing import NDArray

from .. import missing_values
from ..kernels.counts import configuration_masses

__all__ = ["DiscreteSetEntropy", "GaussianSetEntropy", "set_information"]

_LOG_2PI_E = float(np.log(2 * np.pi) + 1.0)


def _renumber(values: NDArray[np.intp], bound: int) -> tuple[NDArray[np.int32], int]:
    """``values`` (in ``0..bound-1``) renumbered ``0..k-1`` in increasing order, and k:
    a dense lookup when the range is small, else a sort."""
    if bound <= 16 * len(values) + 1024:
        present = np.zeros(bound, dtype=bool)
        present[values] = True
        new = np.cumsum(present) - 1
        return new[values].astype(np.int32), int(new[-1]) + 1
    present, inverse = np.unique(values, return_inverse=True)
    return inverse.reshape(-1).astype(np.int32), len(present)


def _members(mask: int) -> tuple[int, ...]:
    return tuple(j for j in range(mask.bit_length()) if mask >> j & 1)


class DiscreteSetEntropy:
    """Entropies (nats) of sets of discrete features from weighted samples.

    Parameters
    ----------
    codes : ndarray of shape (n_samples, n_features)
        Category codes; -1 (missing) is counted as one more value.
    class_index : ndarray of shape (n_samples,)
    weights : ndarray of shape (n_samples,)
        Non-negative; a weight of w counts a sample w times (probabilities of a joint
        table's cells give its exact entropies).
    missing : {"available-case", "value"}, default="available-case"
        How a missing code (-1) counts: the entropies use the rows where the features
        (or those of ``within``) are observed; or -1 is one more value of the feature.
    """

    def __init__(
        self,
        codes: NDArray[np.integer],
        class_index: NDArray[np.integer],
        weights: NDArray[np.float64],
        missing: str = "available-case",
    ) -> None:
        if missing not in ("available-case", "value"):
            raise ValueError(f"missing must be 'available-case' or 'value', got {missing!r}")
        self.codes = np.asarray(codes)
        self.class_index = np.asarray(class_index, dtype=np.intp)
        self.weights = np.asarray(weights, dtype=np.float64)
        self.missing = missing
        self._observed = (
            missing_values.observed(self.codes)
            if missing == "available-case" and missing_values.has_missing(self.codes)
            else None
        )
        self._row_weights: dict[int, NDArray[np.float64]] = {}
        self._columns = self.codes.astype(np.intp) + 1  # missing (-1) -> 0
        self._sizes = self._columns.max(axis=0, initial=0) + 1
        self._cache: dict[tuple[int, ...], float] = {}
        # configuration ids of feature sets, each built from the set without its last
        # feature; the most recent ones, at most about 8 million ids (32 MB), are kept
        n = len(self.codes)
        self._empty = (np.zeros(n, np.int32), 1)
        self._ids: OrderedDict[int, tuple[NDArray[np.int32], int]] = OrderedDict()
        self._ids_capacity = max(64, 8_000_000 // max(n, 1))
        self._n_classes = int(self.class_index.max(initial=0)) + 1
        self._alone = self._entropy_of(np.arange(n), n)  # every sample its own value
        self._class = self._entropy_of(self.class_index, self._n_classes)

    def _configurations(self, mask: int) -> tuple[NDArray[np.int32], int]:
        """Ids 0..k-1 of the configurations of the features in ``mask``, and k (the
        numbering depends on the order the features were combined in; entropies do
        not)."""
        if not mask:
            return self._empty
        found = self._ids.get(mask)
        if found is not None:
            return found
        # from a cached subset one feature smaller (searches add features one at a
        # time), else recursively from the set without its highest feature
        last = mask.bit_length() - 1
        for v in _members(mask):
            if mask ^ (1 << v) in self._ids:
                last = v
                break
        ids, count = self._configurations(mask ^ (1 << last))
        if count < len(ids):  # else every sample is alone already
            combined = ids.astype(np.intp) * int(self._sizes[last]) + self._columns[:, last]
            ids, count = _renumber(combined, count * int(self._sizes[last]))
        if len(self._ids) >= self._ids_capacity:  # forget the oldest
            self._ids.popitem(last=False)
        self._ids[mask] = (ids, count)
        return ids, count

    def _entropy_of(
        self, ids: NDArray[np.integer], size: int, weights: NDArray[np.float64] | None = None
    ) -> float:
        mass = configuration_masses(ids, self.weights if weights is None else weights, size)
        mass = mass[mass > 0]
        total = mass.sum()
        if total <= 0:  # no row observed: nothing is uncertain
            return 0.0
        return float(np.log(total) - (mass * np.log(mass)).sum() / total)

    def _weights_within(self, within: int) -> NDArray[np.float64]:
        """The sample weights, 0 on the rows where a feature of ``within`` is missing."""
        found = self._row_weights.get(within)
        if found is None:
            assert self._observed is not None
            rows = self._observed[:, list(_members(within))].all(axis=1)
            found = np.where(rows, self.weights, 0.0)
            if len(self._row_weights) >= 64:
                self._row_weights.clear()
            self._row_weights[within] = found
        return found

    def entropy(self, mask: int, given_class: bool = False, within: int | None = None) -> float:
        """``H(X_A)`` or, with ``given_class``, ``H(X_A | C) = H(X_A, C) - H(C)``.

        With missing values (and ``missing="available-case"``) on the rows where every
        feature of ``within`` (a superset of ``mask``; default ``mask``) is observed.
        """
        if self._observed is not None:
            return self._available_case_entropy(mask, given_class, mask | (within or 0))
        key = (mask, given_class)
        value = self._cache.get(key)
        if value is None:
            ids, count = self._configurations(mask)
            if count == len(ids):  # every sample alone: the class adds nothing
                value = self._alone - self._class if given_class else self._alone
            elif given_class:
                n_classes = self._n_classes
                value = self._entropy_of(ids * n_classes + self.class_index, count * n_classes)
                value -= self._class
            else:
                value = self._entropy_of(ids, count)
            self._cache[key] = value
        return value

    def _available_case_entropy(self, mask: int, given_class: bool, within: int) -> float:
        key = (mask, given_class, within)
        value = self._cache.get(key)
        if value is None:
            weights = self._weights_within(within) if within else self.weights
            ids, count = self._configurations(mask)  # rows missing a feature weigh 0
            if given_class:
                n_classes = self._n_classes
                joint = ids.astype(np.intp) * n_classes + self.class_index
                value = self._entropy_of(joint, count * n_classes, weights)
                value -= self._entropy_of(self.class_index, n_classes, weights)
            else:
                value = self._entropy_of(ids, count, weights)
            self._cache[key] = value
        return value


class GaussianSetEntropy:
    """Gaussian entropies (nats) of sets of continuous features.

    Parameters
    ----------
    covariances : ndarray of shape (n_classes, n_features, n_features)
        Each class's covariance.
    pooled : ndarray of shape (n_features, n_features)
        Covariance of the class mixture (all samples together).
    class_shares : ndarray of shape (n_classes,)
        P(c), summing to 1.

    Notes
    -----
    Eigenvalues are floored at 1e-9 times the largest pooled variance, so entropies of
    (numerically) singular blocks, as with fewer samples than features, stay finite
    and do not depend on rounding.
    """

    def __init__(
        self,
        covariances: NDArray[np.float64],
        pooled: NDArray[np.float64],
        class_shares: NDArray[np.float64],
    ) -> None:
        self.covariances = np.asarray(covariances, dtype=np.float64)
        self.pooled = np.asarray(pooled, dtype=np.float64)
        self.class_shares = np.asarray(class_shares, dtype=np.float64)
        scale = max(float(np.diagonal(self.pooled).max(initial=0.0)), 1e-300)
        self._floor = 1e-9 * scale
        self._cache: dict[tuple[int, bool], float] = {}

    def _log_determinants(self, stack: NDArray[np.float64], columns: tuple[int, ...]):
        blocks = stack[:, columns][:, :, columns]
        eigenvalues = np.maximum(np.linalg.eigvalsh(blocks), self._floor)
        return np.log(eigenvalues).sum(axis=1)

    def entropy(self, mask: int, given_class: bool = False, within: int | None = None) -> float:
        """``H(X_A)`` under the pooled Gaussian, or ``sum_c P(c) H(X_A | C = c)``
        (``within`` is accepted for the discrete oracle's signature: the covariances
        are estimated once)."""
        key = (mask, given_class)
        value = self._cache.get(key)
        if value is None:
            columns = _members(mask)
            if not columns:
                value = 0.0
            else:
                stack = self.covariances if given_class else self.pooled[None]
                logdet = self._log_determinants(stack, columns)
                if given_class:
                    logdet = self.class_shares @ logdet
                value = 0.5 * (len(columns) * _LOG_2PI_E + float(np.sum(logdet)))
            self._cache[key] = value
        return value


def set_information(
    oracle: DiscreteSetEntropy | GaussianSetEntropy,
    s: int,
    t: int,
    z: int = 0,
    given_class: bool = False,
) -> float:
    """``I(X_S; X_T | X_Z)``, or ``I(X_S; X_T | X_Z, C)`` with ``given_class``; S, T, Z
    disjoint bit masks. Every entropy on the rows where all of S, T and Z are observed
    (available-case; all rows without missing values)."""
    h, within = oracle.entropy, s | t | z
    return (
        h(s | z, given_class, within)
        + h(t | z, given_class, within)
        - h(s | t | z, given_class, within)
        - h(z, given_class, within)
    )
