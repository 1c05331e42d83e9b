"""Gaussian sufficient statistics and closed-form information measures.

The continuous counterpart of :mod:`discotree.stats.discrete`: per-class weighted
means and (pairwise-complete) covariances from :func:`discotree.kernels.counts.
pairwise_moments`, and the Gaussian entropy, mutual information, conditional mutual
information, KL and J divergences in closed form (nats).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ..kernels.counts import pairwise_moments
from ..numerics import CORRELATION_MARGIN
from ..stored_checks import CheckedState, numbers
from ..stored_classes import stored

__all__ = [
    "GaussianStatistics",
    "gaussian_entropy",
    "gaussian_j_divergence",
    "gaussian_kl_divergence",
    "gaussian_mutual_information",
]

#: Largest squared correlation used, so that MI stays finite for collinear features.
_MAX_RHO2 = 1.0 - CORRELATION_MARGIN


def _safe_divide(a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.divide(a, b, out=np.zeros_like(a), where=b > 0)


@stored
@dataclass(frozen=True)
class GaussianStatistics(CheckedState):
    """Weighted pairwise-complete first and second moments of each class.

    Attributes
    ----------
    weight, sum_x, sum_xx, sum_xy : ndarray of shape (n_classes, n_features, n_features)
        See :func:`discotree.kernels.counts.pairwise_moments`.

    Notes
    -----
    Every pairwise quantity (covariance, correlation, MI) of features i and j uses the
    samples where both are observed, its means and variances included, so each 2 x 2
    covariance is positive semi-definite. Covariances are maximum-likelihood estimates
    (divided by the total weight).
    """

    weight: NDArray[np.float64]
    sum_x: NDArray[np.float64]
    sum_xx: NDArray[np.float64]
    sum_xy: NDArray[np.float64]

    @classmethod
    def from_data(
        cls,
        values: NDArray[np.float64],
        class_index: NDArray[np.intp],
        n_classes: int,
        sample_weight: NDArray[np.float64] | None = None,
    ) -> GaussianStatistics:
        """Accumulate the moments of every class in one pass over ``values``."""
        values = np.asarray(values, dtype=np.float64)
        return cls(*pairwise_moments(values, class_index, sample_weight, n_classes))

    @property
    def n_classes(self) -> int:
        return int(self.weight.shape[0])

    @property
    def n_features(self) -> int:
        return int(self.weight.shape[1])

    def check_numbers(self, where: str) -> None:
        """A loaded file's moments: finite, the weights >= 0."""
        numbers(self.weight, f"{where}.weight", low=0.0)
        for name in ("sum_x", "sum_xx", "sum_xy"):
            numbers(getattr(self, name), f"{where}.{name}")

    def __add__(self, other: GaussianStatistics) -> GaussianStatistics:
        """The moments of the rows of both (raw sums add; the values must be on one
        scale: standardise every part with the same offsets and scales)."""
        if not isinstance(other, GaussianStatistics):
            return NotImplemented
        if self.weight.shape != other.weight.shape:
            raise ValueError(
                f"GaussianStatistics of shapes {self.weight.shape} and "
                f"{other.weight.shape} cannot be added."
            )
        return GaussianStatistics(
            self.weight + other.weight,
            self.sum_x + other.sum_x,
            self.sum_xx + other.sum_xx,
            self.sum_xy + other.sum_xy,
        )

    def __radd__(self, other):
        if isinstance(other, int) and other == 0:  # sum() starts from 0
            return self
        return NotImplemented

    def with_variance_added(self, amount: float) -> GaussianStatistics:
        """The same means with ``amount`` added to every variance of every class: each
        covariance matrix becomes ``Sigma + amount * I`` (ridge shrinkage; the
        correlations shrink towards 0). A class in which a feature is constant then
        has a finite density, and a Gaussian model's weights and parameters stay
        finite. ``amount`` is in the units of the values (the estimators pass
        standardised features, so it is relative to each feature's pooled variance)."""
        amount = float(amount)
        if not (np.isfinite(amount) and amount >= 0):
            raise ValueError(f"amount must be a finite number >= 0, got {amount!r}.")
        diag = np.arange(self.weight.shape[1])
        sum_xy = self.sum_xy.copy()
        sum_xy[:, diag, diag] += amount * self.weight[:, diag, diag]
        return GaussianStatistics(
            self.weight, self.sum_x, self.sum_xx + amount * self.weight, sum_xy
        )

    def means(self) -> NDArray[np.float64]:
        """Mean of each feature over the samples where it is observed, (n_classes, n_features)."""
        diag = np.arange(self.weight.shape[1])
        return _safe_divide(self.sum_x[:, diag, diag], self.weight[:, diag, diag])

    def _pair_moments(self) -> tuple[NDArray[np.float64], ...]:
        mean_i = _safe_divide(self.sum_x, self.weight)
        mean_j = np.swapaxes(mean_i, 1, 2)
        var_i = np.maximum(_safe_divide(self.sum_xx, self.weight) - mean_i**2, 0.0)
        var_j = np.swapaxes(var_i, 1, 2)
        cov = _safe_divide(self.sum_xy, self.weight) - mean_i * mean_j
        return var_i, var_j, cov

    def covariances(self) -> NDArray[np.float64]:
        """Pairwise-complete ML covariance matrices, (n_classes, n_features, n_features)."""
        _, _, cov = self._pair_moments()
        return cov

    def correlations(self) -> NDArray[np.float64]:
        """Pairwise-complete correlations (0 where a variance is 0), with unit diagonal."""
        var_i, var_j, cov = self._pair_moments()
        rho = _safe_divide(cov, np.sqrt(var_i * var_j))
        rho = np.clip(rho, -1.0, 1.0)
        diag = np.arange(rho.shape[1])
        rho[:, diag, diag] = 1.0
        return rho

    def mutual_information(self) -> NDArray[np.float64]:
        """Gaussian I(X_i; X_j) = -log(1 - rho_ij**2) / 2 per class, zero diagonal."""
        mi = gaussian_mutual_information(self.correlations())
        diag = np.arange(mi.shape[1])
        mi[:, diag, diag] = 0.0
        return mi

    def conditional_mutual_information(self) -> NDArray[np.float64]:
        """I(X_i; X_j | C): class-share-weighted per-class Gaussian MI."""
        total = self.weight.sum(axis=0)
        share = _safe_divide(self.weight, np.broadcast_to(total, self.weight.shape))
        return (share * self.mutual_information()).sum(axis=0)


def gaussian_mutual_information(rho: NDArray[np.float64]) -> NDArray[np.float64]:
    """MI of a bivariate Gaussian with correlation ``rho``: ``-log(1 - rho**2) / 2``."""
    rho2 = np.minimum(np.asarray(rho, dtype=np.float64) ** 2, _MAX_RHO2)
    return -0.5 * np.log1p(-rho2)


def gaussian_entropy(cov: NDArray[np.float64]) -> float:
    """Differential entropy of N(mu, cov): ``(d log(2 pi e) + log det cov) / 2``."""
    cov = np.atleast_2d(np.asarray(cov, dtype=np.float64))
    sign, logdet = np.linalg.slogdet(cov)
    if sign <= 0:
        raise ValueError("cov must be positive definite")
    d = cov.shape[0]
    return 0.5 * (d * (np.log(2 * np.pi) + 1.0) + logdet)


def gaussian_kl_divergence(
    mean0: NDArray[np.float64],
    cov0: NDArray[np.float64],
    mean1: NDArray[np.float64],
    cov1: NDArray[np.float64],
) -> float:
    """D(N(mean0, cov0) || N(mean1, cov1)) in nats (closed form).

    ``(tr(S1^-1 S0) + (m1 - m0)^T S1^-1 (m1 - m0) - d + log det S1 - log det S0) / 2``.
    """
    mean0, mean1 = np.atleast_1d(mean0).astype(float), np.atleast_1d(mean1).astype(float)
    cov0, cov1 = np.atleast_2d(cov0).astype(float), np.atleast_2d(cov1).astype(float)
    d = mean0.shape[0]
    chol1 = np.linalg.cholesky(cov1)
    diff = np.linalg.solve(chol1, mean1 - mean0)
    solved = np.linalg.solve(chol1, cov0)
    trace = np.trace(np.linalg.solve(chol1.T, solved))
    _, logdet0 = np.linalg.slogdet(cov0)
    logdet1 = 2.0 * np.log(np.diag(chol1)).sum()
    return float(max(0.0, 0.5 * (trace + diff @ diff - d + logdet1 - logdet0)))


def gaussian_j_divergence(
    mean0: NDArray[np.float64],
    cov0: NDArray[np.float64],
    mean1: NDArray[np.float64],
    cov1: NDArray[np.float64],
) -> float:
    """J-divergence of two Gaussians (Tan et al. 2010, eq. 11)."""
    return gaussian_kl_divergence(mean0, cov0, mean1, cov1) + gaussian_kl_divergence(
        mean1, cov1, mean0, cov0
    )
