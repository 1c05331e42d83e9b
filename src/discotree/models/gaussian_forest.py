"""Gaussian forest distributions (Tan et al. 2010, eq. 6-7, continuous case).

The projection of a Gaussian onto a forest keeps the means, the variances and the
covariances of the forest's edges (eq. 7). Rooted, it is a linear Gaussian network:
``x_j = mu_j + b_j (x_parent - mu_parent) + e_j`` with ``b_j = s_pj / s_pp`` and
``var(e_j) = s_jj - s_pj**2 / s_pp``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ..stats.gaussian import GaussianStatistics
from ..stored_checks import MAX_MAGNITUDE, fail, numbers
from ..stored_classes import stored
from .file_checks import StoredModel, check_forest_parents
from .protocol import DeclaredSizes, JointScoring

__all__ = ["GaussianForestModel"]

_LOG_2PI = float(np.log(2 * np.pi))


@stored
@dataclass(frozen=True)
class GaussianForestModel(JointScoring, StoredModel):
    """One linear-Gaussian directed forest per class.

    Attributes
    ----------
    parents : ndarray of shape (n_classes, n_features), intp
    means : ndarray of shape (n_classes, n_features)
    coefs : ndarray of shape (n_classes, n_features)
        Regression coefficient on the parent (0 for roots).
    noise_var : ndarray of shape (n_classes, n_features)
        Conditional variance given the parent.
    """

    parents: NDArray[np.intp]
    means: NDArray[np.float64]
    coefs: NDArray[np.float64]
    noise_var: NDArray[np.float64]

    @classmethod
    def from_statistics(
        cls, stats: GaussianStatistics, parents: NDArray[np.intp], *, var_floor: float = 1e-9
    ) -> GaussianForestModel:
        """Project each class's Gaussian statistics onto its forest (eq. 7).

        Variances and conditional variances are floored at ``var_floor``, in the units
        of the statistics, so a constant feature does not give an infinite density.
        The estimators pass standardised features (each with a standard deviation
        within a factor 1.5 of 1), which makes the floor relative to each feature's
        own scale and the same for every class and every pair of classes (a floor
        relative to the largest variance of the classes at hand would differ between
        the pairs of a pairwise multiclass problem, and a class with one row would
        then decide between the others).
        """
        parents = np.asarray(parents, dtype=np.intp)
        n_classes, n_features = parents.shape
        means = stats.means()
        cov = stats.covariances()
        diag = np.arange(n_features)
        var = cov[:, diag, diag]
        floor = float(var_floor)
        coefs = np.zeros((n_classes, n_features))
        noise = np.maximum(var, floor)
        for c in range(n_classes):
            for j in range(n_features):
                p = parents[c, j]
                if p >= 0 and cov[c, p, p] > floor and cov[c, j, j] > floor:
                    # (a parent or child constant in the class: its covariance is
                    # rounding noise, and the child keeps its marginal, coefficient 0)
                    s_pp = cov[c, p, p]
                    coefs[c, j] = cov[c, p, j] / s_pp
                    noise[c, j] = max(cov[c, j, j] - cov[c, p, j] ** 2 / s_pp, floor)
        return cls(parents=parents, means=means, coefs=coefs, noise_var=noise)

    @property
    def n_classes(self) -> int:
        return int(self.parents.shape[0])

    def declared_sizes(self) -> DeclaredSizes:
        """Its classes; no categories (it reads values)."""
        return self.n_classes, None

    def covariance(self, c: int) -> NDArray[np.float64]:
        """Full covariance of class c's forest model, ``(I - B)^-1 D (I - B)^-T``."""
        n_features = self.parents.shape[1]
        b = np.zeros((n_features, n_features))
        for j, p in enumerate(self.parents[c]):
            if p >= 0:
                b[j, p] = self.coefs[c, j]
        inv = np.linalg.inv(np.eye(n_features) - b)
        return inv @ np.diag(self.noise_var[c]) @ inv.T

    def log_likelihood(self, values: NDArray[np.float64]) -> NDArray[np.float64]:
        """Log-density of every sample under every class, NaN features marginalised.

        Complete rows use the directed factorisation (O(n_features) each); rows with
        missing values are grouped by missingness pattern and scored with the marginal
        Gaussian of their observed features (exact marginalisation).

        Parameters
        ----------
        values : ndarray of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        values = np.asarray(values, dtype=np.float64)
        n_samples = values.shape[0]
        missing = np.isnan(values)
        complete = ~missing.any(axis=1)
        out = np.empty((n_samples, self.n_classes))
        x = values[complete]
        for c in range(self.n_classes):
            centred = x - self.means[c]
            pa = self.parents[c]
            pred = np.where(pa >= 0, self.coefs[c] * centred[:, np.maximum(pa, 0)], 0.0)
            resid = centred - pred
            out[complete, c] = -0.5 * (
                (resid**2 / self.noise_var[c]).sum(axis=1)
                + np.log(self.noise_var[c]).sum()
                + len(pa) * _LOG_2PI
            )
        if complete.all():
            return out
        patterns, inverse = np.unique(missing[~complete], axis=0, return_inverse=True)
        rows = np.flatnonzero(~complete)
        covs = [self.covariance(c) for c in range(self.n_classes)]
        for k, pattern in enumerate(patterns):
            idx = rows[inverse.ravel() == k]
            obs = ~pattern
            for c in range(self.n_classes):
                if not obs.any():
                    out[idx, c] = 0.0
                    continue
                sub = covs[c][np.ix_(obs, obs)]
                chol = np.linalg.cholesky(sub)
                z = np.linalg.solve(chol, (values[np.ix_(idx, obs)] - self.means[c, obs]).T)
                out[idx, c] = -0.5 * (
                    (z**2).sum(axis=0) + 2 * np.log(np.diag(chol)).sum() + obs.sum() * _LOG_2PI
                )
        return out

    def check_numbers(self, where: str) -> None:
        """The numbers of a loaded model (finite, normalised, in range)."""
        _gaussian_forest(self, where)


# ------------------------------------------------ checks of a loaded model
def _gaussian_forest(model: GaussianForestModel, where: str) -> None:
    """Forests, finite means and coefficients, positive variances, all of one shape."""
    parents = np.asarray(model.parents)
    n_features = parents.shape[1] if parents.ndim == 2 else -1
    parents = check_forest_parents(parents, n_features, f"{where}.parents")
    for name in ("means", "coefs", "noise_var"):
        value = getattr(model, name)
        if np.shape(value) != parents.shape:
            raise fail(f"{where}.{name}", f"needs the shape {parents.shape} of parents")
        positive = name == "noise_var"
        numbers(value, f"{where}.{name}", low=0.0 if positive else -MAX_MAGNITUDE, above=positive)
