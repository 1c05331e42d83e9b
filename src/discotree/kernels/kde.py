"""Binned Gaussian kernel density estimates in one and two dimensions.

The estimate of class c at a point x is ``f(x) = sum_l w_l K_h(x - x_l) / sum_l w_l``
with a Gaussian kernel (a product of two Gaussians in two dimensions). Evaluating it
directly costs O(L) per query, O(L^2) for all training points. Here the sample is
*linearly binned* on a regular grid (each point split between its two neighbouring
grid nodes per axis, weights by distance), the binned masses are smoothed with the
kernel on the grid (a matrix product with the kernel's Toeplitz matrix, per axis) and
queries are read off the grid by (bi)linear interpolation: O(L + grid) per feature or
pair. Queries outside the grid are evaluated exactly (O(L) each; the grid covers the
data with four bandwidths to spare, so these are rare).

Leave-one-out. A training point's own kernel is removed from its class's estimate
*exactly as the binned estimate contains it*: binning, smoothing and interpolation are
linear, so the point's own contribution is ``w_k * s(t)`` with, per axis,
``s(t) = ((1 - t)^2 + t^2) K(0) + 2 t (1 - t) K(step)`` (t the point's fractional
position between its grid nodes), a product over the two axes in 2-D. The
leave-one-out estimate is ``(W f(x_k) - w_k s) / (W - w_k)``.

The slow references are ``kernel_density`` of the tests' ``tests/reference.py``.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "KernelGrid",
    "bandwidth_factor",
    "exact_density_1d",
    "exact_density_2d",
    "exact_pair_densities",
    "grid_densities_2d",
    "grid_density_1d",
    "interpolate_1d",
    "interpolate_2d",
    "kernel_matrix",
    "locate_batch",
    "self_contribution",
]

_SQRT_2PI = math.sqrt(2 * math.pi)


def bandwidth_factor(n_effective: float, dimension: int, rule: str) -> float:
    """Normal-reference bandwidth factor (times the standard deviation per axis).

    ``"scott"``: ``n^(-1/(d+4))``; ``"silverman"``: ``(n (d + 2) / 4)^(-1/(d+4))``
    (scipy.stats.gaussian_kde's conventions; Silverman's is 1.06 n^(-1/5) in 1-D, the
    rule of Matlab's ksdensity used by Dorn et al. 2018, Section 5).
    """
    n = max(float(n_effective), 1.0)
    if rule == "scott":
        return n ** (-1.0 / (dimension + 4))
    if rule == "silverman":
        return (n * (dimension + 2) / 4.0) ** (-1.0 / (dimension + 4))
    raise ValueError(f"bandwidth rule must be 'scott' or 'silverman', got {rule!r}")


class KernelGrid:
    """A regular grid on one axis: ``size`` nodes from ``low`` with spacing ``step``."""

    __slots__ = ("low", "size", "step")

    def __init__(self, low: float, high: float, size: int) -> None:
        if not high > low:
            high = low + 1.0
        self.low = float(low)
        self.size = int(size)
        self.step = (float(high) - self.low) / (self.size - 1)

    @property
    def high(self) -> float:
        return self.low + self.step * (self.size - 1)

    def locate(self, values: NDArray[np.float64]) -> tuple[NDArray[np.intp], NDArray[np.float64]]:
        """Left node index (clipped to ``[0, size - 2]``) and fractional position."""
        position = (np.asarray(values, dtype=np.float64) - self.low) / self.step
        left = np.clip(np.floor(position), 0, self.size - 2).astype(np.intp)
        return left, position - left

    def inside(self, values: NDArray[np.float64]) -> NDArray[np.bool_]:
        return (values >= self.low) & (values <= self.high)


def kernel_matrix(grid: KernelGrid, bandwidth: float) -> NDArray[np.float64]:
    """``K[a, b] = phi((a - b) step / h) / h``: the Gaussian kernel between grid nodes."""
    offsets = np.arange(grid.size) * grid.step / bandwidth
    row = np.exp(-0.5 * offsets**2) / (_SQRT_2PI * bandwidth)
    index = np.abs(np.subtract.outer(np.arange(grid.size), np.arange(grid.size)))
    return row[index]


def _bin_1d(grid: KernelGrid, values, weights) -> NDArray[np.float64]:
    left, frac = grid.locate(values)
    frac = np.clip(frac, 0.0, 1.0)
    counts = np.bincount(left, weights * (1 - frac), minlength=grid.size)
    counts += np.bincount(left + 1, weights * frac, minlength=grid.size)
    return counts.astype(np.float64, copy=False)  # weighted: float64 already


def grid_density_1d(
    grid: KernelGrid, values: NDArray[np.float64], weights: NDArray[np.float64], bandwidth: float
) -> NDArray[np.float64]:
    """The binned estimate at every grid node (``values`` must lie on the grid)."""
    total = float(weights.sum())
    if total <= 0:
        return np.zeros(grid.size)
    return kernel_matrix(grid, bandwidth) @ _bin_1d(grid, values, weights) / total


def interpolate_1d(grid: KernelGrid, node_values, query) -> NDArray[np.float64]:
    """Linear interpolation of ``node_values`` at ``query`` (inside the grid)."""
    left, frac = grid.locate(query)
    return node_values[left] * (1 - frac) + node_values[left + 1] * frac


def grid_densities_2d(
    grid_x: list[KernelGrid],
    grid_y: list[KernelGrid],
    kernel_x: NDArray[np.float64],
    kernel_y: NDArray[np.float64],
    values_x: NDArray[np.float64],
    *,
    values_y: NDArray[np.float64],
    weights: NDArray[np.float64],
) -> NDArray[np.float64]:
    """Binned product-kernel estimates of a batch of pairs on their grids.

    Parameters
    ----------
    grid_x, grid_y : lists of P KernelGrid with the same ``size`` m
    kernel_x, kernel_y : ndarrays of shape (P, m, m)
        Kernel matrices of each pair's axes (:func:`kernel_matrix`). The smoothing runs
        in their dtype (float32 halves its cost; its relative error, about 1e-7, is far
        below the binning error).
    values_x, values_y : ndarrays of shape (P, L)
        The class's sample on each pair's axes.
    weights : ndarray of shape (L,)

    Returns
    -------
    ndarray of shape (P, m, m)
        ``Kx B Ky^T / W`` with B the bilinearly binned weights.
    """
    n_pairs, n_points = values_x.shape
    m = grid_x[0].size
    total = float(weights.sum())
    if total <= 0 or n_points == 0:
        return np.zeros((n_pairs, m, m))
    ax, tx = locate_batch(grid_x, values_x)
    ay, ty = locate_batch(grid_y, values_y)
    tx, ty = np.clip(tx, 0, 1), np.clip(ty, 0, 1)
    base = (np.arange(n_pairs)[:, None] * m + ax) * m + ay
    binned = np.zeros(n_pairs * m * m)
    for dx, wx in ((0, 1 - tx), (1, tx)):
        for dy, wy in ((0, 1 - ty), (1, ty)):
            binned += np.bincount(
                (base + dx * m + dy).ravel(), (wx * wy * weights).ravel(), minlength=binned.size
            )
    binned = binned.reshape(n_pairs, m, m).astype(kernel_x.dtype)
    smoothed = np.matmul(np.matmul(kernel_x, binned), kernel_y.transpose(0, 2, 1))
    return smoothed.astype(np.float64) / total


def locate_batch(grids: list[KernelGrid], values: NDArray[np.float64]):
    """Left node (clipped) and fractional position of each row's values on its grid."""
    low = np.array([g.low for g in grids])[:, None]
    step = np.array([g.step for g in grids])[:, None]
    size = grids[0].size
    position = (values - low) / step
    left = np.clip(np.floor(position), 0, size - 2).astype(np.intp)
    return left, position - left


def interpolate_2d(
    grid_x: list[KernelGrid],
    grid_y: list[KernelGrid],
    node_values: NDArray[np.float64],
    query_x: NDArray[np.float64],
    query_y: NDArray[np.float64],
) -> NDArray[np.float64]:
    """Bilinear interpolation of each pair's grid values at its queries, shape (P, N)."""
    n_pairs = node_values.shape[0]
    ax, tx = locate_batch(grid_x, query_x)
    ay, ty = locate_batch(grid_y, query_y)
    pair = np.arange(n_pairs)[:, None]
    out = node_values[pair, ax, ay] * ((1 - tx) * (1 - ty))
    out += node_values[pair, ax + 1, ay] * (tx * (1 - ty))
    out += node_values[pair, ax, ay + 1] * ((1 - tx) * ty)
    out += node_values[pair, ax + 1, ay + 1] * (tx * ty)
    return out


def self_contribution(frac: NDArray[np.float64], step, bandwidth) -> NDArray[np.float64]:
    """A point's own kernel as the binned estimate holds it, per axis (module notes)."""
    k0 = 1.0 / (_SQRT_2PI * bandwidth)
    k1 = k0 * np.exp(-0.5 * (np.asarray(step) / bandwidth) ** 2)
    return ((1 - frac) ** 2 + frac**2) * k0 + 2 * frac * (1 - frac) * k1


def _kernel_sums(
    weights: NDArray[np.float64],
    n_query: int,
    chunk: int,
    squared: Callable[[slice], NDArray[np.float64]],
) -> tuple[NDArray[np.float64], float]:
    """Per query ``q``, ``sum_l weights[l] exp(-d2[q, l] / 2)`` (``d2[rows]`` the squared
    scaled distances ``squared(rows)`` gives for a slice of the queries), formed ``chunk``
    queries at a time, and the total weight; zeros, not computed, when it is <= 0."""
    total = float(weights.sum())
    out = np.zeros(n_query)
    if total <= 0:
        return out, total
    for start in range(0, n_query, chunk):
        rows = slice(start, start + chunk)
        out[rows] = np.exp(-0.5 * squared(rows)) @ weights
    return out, total


def exact_density_1d(
    points: NDArray[np.float64],
    weights: NDArray[np.float64],
    query: NDArray[np.float64],
    bandwidth: float,
    chunk: int = 2048,
) -> NDArray[np.float64]:
    """Direct O(L) evaluation of the 1-D estimate at each query."""

    def squared(rows: slice) -> NDArray[np.float64]:
        z = (query[rows, None] - points[None, :]) / bandwidth
        return z * z

    sums, total = _kernel_sums(weights, len(query), chunk, squared)
    return sums if total <= 0 else sums / (total * _SQRT_2PI * bandwidth)


def exact_density_2d(
    points_x: NDArray[np.float64],
    points_y: NDArray[np.float64],
    weights: NDArray[np.float64],
    query_x: NDArray[np.float64],
    query_y: NDArray[np.float64],
    bandwidth_x: float,
    bandwidth_y: float,
    chunk: int = 1024,
) -> NDArray[np.float64]:
    """Direct O(L) evaluation of the 2-D product-kernel estimate at each query."""

    def squared(rows: slice) -> NDArray[np.float64]:
        zx = (query_x[rows, None] - points_x[None, :]) / bandwidth_x
        zy = (query_y[rows, None] - points_y[None, :]) / bandwidth_y
        return zx * zx + zy * zy

    sums, total = _kernel_sums(weights, len(query_x), chunk, squared)
    return sums if total <= 0 else sums / (total * 2 * math.pi * bandwidth_x * bandwidth_y)


def exact_pair_densities(
    points: NDArray[np.float64],
    weights: NDArray[np.float64],
    query: NDArray[np.float64],
    bandwidths: NDArray[np.float64],
    pairs: NDArray[np.intp],
    *,
    max_elements: int = 1 << 22,
) -> NDArray[np.float64]:
    """:func:`exact_density_2d` of many pairs of one sample at once: shape (n_pairs,
    n_query).

    The product kernel factorises, ``exp(-(zx^2 + zy^2) / 2) = exp(-zx^2 / 2)
    exp(-zy^2 / 2)``, and each feature has one bandwidth in all its pairs (per class),
    so the exponentials are formed once per feature (``n_query x L`` each) and each
    pair costs one product and one matrix-vector product, not ``n_query x L``
    exponentials. Queries are taken in blocks so that the kernel values held at once
    stay under ``max_elements`` numbers.

    Parameters
    ----------
    points : ndarray of shape (L, n_features)
    weights : ndarray of shape (L,)
    query : ndarray of shape (n_query, n_features)
    bandwidths : ndarray of shape (n_features,)
        The bandwidth of each feature (used by every pair that holds it).
    pairs : ndarray of shape (n_pairs, 2)
    """
    pairs = np.asarray(pairs, dtype=np.intp).reshape(-1, 2)
    out = np.zeros((len(pairs), len(query)))
    total = float(weights.sum())
    if total <= 0 or len(pairs) == 0 or len(query) == 0:
        return out
    features = np.unique(pairs)
    column = {int(f): k for k, f in enumerate(features)}
    block = max(1, max_elements // max(1, len(features) * len(points)))
    h = np.asarray(bandwidths, dtype=np.float64)
    for start in range(0, len(query), block):
        rows = slice(start, start + block)
        z = (query[rows].T[features, :, None] - points.T[features, None, :]) / h[
            features, None, None
        ]
        kernel = np.exp(-0.5 * z * z)  # (features, block, L): one contiguous matrix each
        for p, (a, b) in enumerate(pairs):
            out[p, rows] = (kernel[column[int(a)]] * kernel[column[int(b)]]) @ weights
    return out / (total * 2 * math.pi * h[pairs[:, 0], None] * h[pairs[:, 1], None])
