"""Class-conditional univariate and bivariate kernel density estimates (Dorn et al. 2018, Section
3).

:class:`PairwiseKernelDensities` holds, for every class, a Gaussian kernel density
estimate of each feature and a product-Gaussian-kernel estimate of each chosen pair of
features, and maps samples to the log-densities of Dorn et al. 2018, eq. 4:
for each class c (in order), ``log f_c(x_i)`` for every feature i, then
``log f_c(x_i, x_j)`` for every pair. Densities are floored at ``density_floor``
(Remark 2) so no log is infinite.

The estimates are computed on standardised features (pooled mean and standard
deviation of the training data), so the floor and the bandwidth rules are
scale-free; the log-densities differ from those in the original units by the
constants ``log s_i`` (``log s_i + log s_j`` for a pair), which a linear classifier
with an intercept absorbs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ..kernels.kde import (
    KernelGrid,
    bandwidth_factor,
    exact_density_1d,
    exact_density_2d,
    exact_pair_densities,
    grid_densities_2d,
    grid_density_1d,
    interpolate_1d,
    interpolate_2d,
    kernel_matrix,
    locate_batch,
    self_contribution,
)
from ..numerics import CONSTANT_RTOL

__all__ = ["PairwiseKernelDensities"]

#: The grid covers the training data with this many bandwidths to spare on each side.
_GRID_MARGIN = 4.0
#: Cost of one kernel evaluation of a direct sum, in BLAS floating-point operations
#: (measured: an exponential and its bookkeeping take about 50 times a fused multiply-add
#: of a matrix product).
_EXP_COST = 50.0


@dataclass
class PairwiseKernelDensities:
    """Fitted class-conditional 1-D and 2-D kernel density estimates.

    Attributes
    ----------
    values : ndarray of shape (n_samples, n_features)
        Standardised training sample.
    class_index : ndarray of shape (n_samples,)
    weights : ndarray of shape (n_samples,)
    pairs : ndarray of shape (n_pairs, 2)
    bandwidth_1d, bandwidth_2d : ndarrays of shape (n_classes, n_features)
        Bandwidths (standardised units) of the univariate estimates and of each axis of
        the bivariate ones.
    grids_1d, grids_2d : lists of KernelGrid, one per feature
    method : {"auto", "binned", "exact"}
    density_floor : float
    """

    values: NDArray[np.float64]
    class_index: NDArray[np.intp]
    weights: NDArray[np.float64]
    n_classes: int
    pairs: NDArray[np.intp]
    bandwidth_1d: NDArray[np.float64]
    bandwidth_2d: NDArray[np.float64]
    grids_1d: list[KernelGrid]
    grids_2d: list[KernelGrid]
    method: str
    density_floor: float
    pair_chunk: int = 64

    @classmethod
    def fit(
        cls,
        values: NDArray[np.float64],
        class_index: NDArray[np.intp],
        n_classes: int,
        weights: NDArray[np.float64],
        pairs: NDArray[np.intp],
        *,
        bandwidth: str | NDArray[np.float64] = "scott",
        grid_size: tuple[int, int] = (1024, 128),
        method: str = "auto",
        density_floor: float = 1e-3,
        pair_chunk: int = 64,
    ) -> PairwiseKernelDensities:
        """Bandwidths and grids for standardised ``values``.

        ``bandwidth`` is a rule name (``"scott"``, ``"silverman"``: the class's weighted
        standard deviation times :func:`~discotree.kernels.kde.bandwidth_factor` with the
        class's total weight as sample size (frequency weights), dimension 1 or 2) or an
        array of shape (n_features,) of bandwidths in standardised units used for every
        class and both dimensions. A class with a constant feature uses the pooled
        standard deviation (1) for it.
        """
        n_features = values.shape[1]
        h1 = np.empty((n_classes, n_features))
        h2 = np.empty((n_classes, n_features))
        for c in range(n_classes):
            rows = class_index == c
            w = weights[rows]
            if isinstance(bandwidth, str):
                total = w.sum()
                relative = w / w.max()  # the moments need the weights' ratios only
                mean = relative @ values[rows] / relative.sum()
                centred = (values[rows] - mean) ** 2
                sd = np.sqrt(np.maximum(relative @ centred / relative.sum(), 0.0))
                sd[sd <= CONSTANT_RTOL] = 1.0
                h1[c] = sd * bandwidth_factor(total, 1, bandwidth)
                h2[c] = sd * bandwidth_factor(total, 2, bandwidth)
            else:
                h1[c] = h2[c] = bandwidth
        margin = _GRID_MARGIN * np.maximum(h1.max(axis=0), h2.max(axis=0))
        low, high = values.min(axis=0) - margin, values.max(axis=0) + margin
        grids_1d = [KernelGrid(lo, hi, grid_size[0]) for lo, hi in zip(low, high, strict=True)]
        grids_2d = [KernelGrid(lo, hi, grid_size[1]) for lo, hi in zip(low, high, strict=True)]
        return cls(
            values=values,
            class_index=class_index,
            weights=weights,
            n_classes=n_classes,
            pairs=pairs,
            bandwidth_1d=h1,
            bandwidth_2d=h2,
            grids_1d=grids_1d,
            grids_2d=grids_2d,
            method=method,
            density_floor=float(density_floor),
            pair_chunk=pair_chunk,
        )

    @property
    def n_features(self) -> int:
        return self.values.shape[1]

    @property
    def n_terms(self) -> int:
        """Number of log-density features per class."""
        return self.n_features + len(self.pairs)

    def densities(
        self, query: NDArray[np.float64], leave_one_out: bool = False
    ) -> NDArray[np.float64]:
        """Unfloored densities, shape (n_query, n_classes * n_terms) (layout of eq. 4).

        With ``leave_one_out``, ``query`` must be the training sample itself, and row k's
        own kernel is removed from its class's estimate (module notes of
        :mod:`discotree.kernels.kde`). Weights are frequencies: a row of weight
        ``w >= 1`` stands for ``w`` copies, of which only its own copy (weight 1) is
        left out, as if the copies were separate rows; a fractional weight is left out
        whole.
        """
        if leave_one_out and query is not self.values:
            raise ValueError("leave_one_out needs the training sample itself as query")
        n_query = query.shape[0]
        out = np.empty((n_query, self.n_classes * self.n_terms))
        for c in range(self.n_classes):
            members = np.flatnonzero(self.class_index == c)
            points, w = self.values[members], self.weights[members]
            total = float(w.sum())
            offset = c * self.n_terms
            own = np.zeros(n_query)
            if leave_one_out:
                own[members] = np.minimum(w, 1.0)
            exact_1d, exact_2d = self._exact(n_query, len(members))
            for i in range(self.n_features):
                out[:, offset + i] = self._density_1d(
                    c, i, points[:, i], w, total, query[:, i], own, exact_1d
                )
            kernels: dict[int, NDArray[np.float64]] = {}
            exact = None  # every pair at once: the kernels of each feature formed once
            if exact_2d or total <= 0:  # (no weight: zeros)
                exact = exact_pair_densities(points, w, query, self.bandwidth_2d[c], self.pairs)
            for start in range(0, len(self.pairs), self.pair_chunk):
                chunk = self.pairs[start : start + self.pair_chunk]
                done = None if exact is None else exact[start : start + len(chunk)]
                block = self._densities_2d(
                    c, chunk, points, w, total, query, own, exact_2d, kernels, done
                )
                first = offset + self.n_features + start
                out[:, first : first + len(chunk)] = block.T
        return out

    def log_densities(
        self, query: NDArray[np.float64], leave_one_out: bool = False
    ) -> NDArray[np.float64]:
        """``log max(f, density_floor)`` of :meth:`densities`."""
        dens = self.densities(query, leave_one_out)
        return np.log(np.maximum(dens, self.density_floor), out=dens)

    # ------------------------------------------------------------------ internals
    def _exact(self, n_query: int, n_points: int) -> tuple[bool, bool]:
        """Whether direct sums are used in 1-D and 2-D: always with ``"exact"``, never
        with ``"binned"``, and with ``"auto"`` when they are estimated to be cheaper: a
        direct sum costs about ``_EXP_COST`` floating-point operations per (query,
        point) (an exponential), smoothing a grid ``2 size^2`` in 1-D (building the
        kernel matrix and a product) and ``2 size^3`` per pair in 2-D (BLAS)."""
        if self.method != "auto":
            return self.method == "exact", self.method == "exact"
        work = _EXP_COST * n_query * n_points
        return work < 2.0 * self.grids_1d[0].size ** 2, work < 2.0 * self.grids_2d[0].size ** 3

    def _density_1d(self, c, i, points, w, total, query, own, exact) -> NDArray[np.float64]:
        h = float(self.bandwidth_1d[c, i])
        if exact or total <= 0:
            dens = exact_density_1d(points, w, query, h)
            own_kernel = np.full(len(query), 1.0 / (np.sqrt(2 * np.pi) * h))
        else:
            grid = self.grids_1d[i]
            nodes = grid_density_1d(grid, points, w, h)
            inside = grid.inside(query)
            dens = np.empty(len(query))
            dens[inside] = interpolate_1d(grid, nodes, query[inside])
            if not inside.all():
                dens[~inside] = exact_density_1d(points, w, query[~inside], h)
            _, frac = grid.locate(query)
            own_kernel = self_contribution(np.clip(frac, 0, 1), grid.step, h)
        return _leave_out(dens, own, own_kernel, total)

    def _densities_2d(
        self, c, chunk, points, w, total, query, own, exact, kernels, done=None
    ) -> NDArray[np.float64]:
        """Densities of a chunk of pairs at every query, shape (len(chunk), n_query).

        ``kernels`` caches the class's kernel matrices per feature across chunks;
        ``done`` holds the chunk's exact densities (computed for every pair at once)
        whenever ``exact`` or the class has no weight.
        """
        i, j = chunk[:, 0], chunk[:, 1]
        hx, hy = self.bandwidth_2d[c, i], self.bandwidth_2d[c, j]
        qx, qy = query[:, i].T, query[:, j].T  # (P, n_query)
        k0 = 1.0 / (2 * np.pi * hx * hy)
        if exact or total <= 0:
            dens = done
            own_kernel = np.broadcast_to(k0[:, None], dens.shape)
        else:
            gx = [self.grids_2d[a] for a in i]
            gy = [self.grids_2d[b] for b in j]
            for a in np.unique(chunk):
                if a not in kernels:
                    kernels[a] = kernel_matrix(self.grids_2d[a], self.bandwidth_2d[c, a]).astype(
                        np.float32
                    )
            kx = np.stack([kernels[a] for a in i])
            ky = np.stack([kernels[b] for b in j])
            nodes = grid_densities_2d(
                gx, gy, kx, ky, points[:, i].T, values_y=points[:, j].T, weights=w
            )
            dens = interpolate_2d(gx, gy, nodes, qx, qy)
            low_x = np.array([g.low for g in gx])[:, None]
            high_x = np.array([g.high for g in gx])[:, None]
            low_y = np.array([g.low for g in gy])[:, None]
            high_y = np.array([g.high for g in gy])[:, None]
            outside = (qx < low_x) | (qx > high_x) | (qy < low_y) | (qy > high_y)
            for p in np.flatnonzero(outside.any(axis=1)):
                rows = outside[p]
                a, b = chunk[p]
                dens[p, rows] = exact_density_2d(
                    points[:, a], points[:, b], w, qx[p, rows], qy[p, rows], hx[p], hy[p]
                )
            step_x = np.array([g.step for g in gx])[:, None]
            step_y = np.array([g.step for g in gy])[:, None]
            fx = np.clip(locate_batch(gx, qx)[1], 0, 1)
            fy = np.clip(locate_batch(gy, qy)[1], 0, 1)
            own_kernel = self_contribution(fx, step_x, hx[:, None]) * self_contribution(
                fy, step_y, hy[:, None]
            )
        return _leave_out(dens, own[None, :], own_kernel, total)


def _leave_out(dens, own, own_kernel, total):
    """``(W f - w_k s) / (W - w_k)`` where ``own`` (w_k) is positive, else ``f``."""
    if not np.any(own):
        return dens
    own = np.broadcast_to(own, dens.shape)
    rest = total - own
    share = own / total  # (f - s w_k / W) / (1 - w_k / W): no product of W overflows
    out = np.where(
        own > 0,
        (dens - share * own_kernel) / np.where(rest > 0, 1.0 - share, 1.0),
        dens,
    )
    out[(own > 0) & (rest <= 0)] = 0.0
    return np.maximum(out, 0.0)
