"""Minimising set functions, and differences of submodular functions
(Narasimhan & Bilmes 2005, Section 3).

A set function here is a callable on subsets of ``{0, ..., n - 1}`` given as integer
bit masks (bit i set: element i in the set), which hash and combine fast. ``f`` is
submodular if ``f(A) + f(B) >= f(A | B) + f(A & B)`` (Definition 1), symmetric if
``f(A) = f(V - A)``, posimodular if ``f(A) + f(B) >= f(A - B) + f(B - A)``.

- :func:`queyranne_minimum`: Queyranne's O(n^3) algorithm, exact for symmetric
  submodular and, more generally, posimodular functions (Section 3.1);
- :func:`minimum_norm_point`: the Fujishige-Wolfe minimum-norm-point algorithm, exact
  (up to a tolerance) for any submodular function;
- :func:`exhaustive_minimum`: every subset, the reference for small ground sets;
- :func:`modular_approximation`: Algorithm 2 (Proposition 4), a modular lower bound
  of a submodular function, tight on the prefixes of a permutation;
- :func:`submodular_supermodular`: Algorithm 1, a local minimiser of ``f - g`` for
  submodular ``f`` and ``g``.

The minimisers search the nonempty proper subsets, as Algorithm 1 does, and return
``(mask, value)``. :func:`members` and :func:`mask_of` convert between masks and
element lists.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from ..numerics import GAIN_RTOL, SCORE_TIE_RTOL, ZERO_TOL

__all__ = [
    "MINIMIZERS",
    "SubSupResult",
    "byte_tables",
    "exhaustive_minimum",
    "is_better",
    "mask_of",
    "members",
    "minimum_norm_point",
    "modular_approximation",
    "queyranne_minimum",
    "submodular_supermodular",
    "sum_over",
]

SetFunction = Callable[[int], float]


def mask_of(elements: Iterable[int]) -> int:
    """The bit mask of a collection of elements."""
    mask = 0
    for v in elements:
        mask |= 1 << int(v)
    return mask


def members(mask: int) -> list[int]:
    """The elements of a bit mask, ascending."""
    out, i = [], 0
    while mask:
        if mask & 1:
            out.append(i)
        mask >>= 1
        i += 1
    return out


def byte_tables(values: Sequence, zero=0) -> list[list]:
    """Lookup tables for summing per-element ``values`` over a mask a byte at a time:
    ``tables[k][b]`` is the sum of ``values[8k + i]`` over the bits i set in byte b
    (``zero`` the empty sum; floats, or disjoint bit masks, whose sum is their union)."""
    tables = []
    for start in range(0, len(values), 8):
        chunk = values[start : start + 8]
        table = [zero] * 256
        for b in range(1, 256):
            low = b & -b  # the lowest bit set
            i = low.bit_length() - 1
            table[b] = table[b ^ low] + chunk[i] if i < len(chunk) else table[b ^ low]
        tables.append(table)
    return tables


def sum_over(tables: list[list], mask: int, zero=0):
    """``sum(values[i] for i in mask)`` with the tables of :func:`byte_tables`."""
    total = zero
    k = 0
    while mask:
        total = total + tables[k][mask & 255]
        mask >>= 8
        k += 1
    return total


def is_better(value: float, best: float) -> bool:
    """``value < best`` by more than rounding (1e-9 relative): near-ties, which
    equivalent computations may order either way, keep the earlier candidate."""
    return value < best - SCORE_TIE_RTOL * (1.0 + abs(best)) if np.isfinite(best) else value < best


def _first_minimum(values: Sequence[float]) -> int:
    """Index of the first value within rounding (see :func:`is_better`) of the
    smallest."""
    array = np.asarray(values, dtype=np.float64)
    smallest = array.min()
    return int(np.flatnonzero(array <= smallest + SCORE_TIE_RTOL * (1.0 + abs(smallest)))[0])


def _check_size(n: int) -> None:
    if n < 2:
        raise ValueError("a ground set of at least 2 elements has nonempty proper subsets")


def exhaustive_minimum(f: SetFunction, n: int) -> tuple[int, float]:
    """The minimiser of ``f`` over the nonempty proper subsets of ``{0..n-1}`` by
    trying every one (2^n - 2 evaluations; the smallest mask wins ties, see
    :func:`is_better`)."""
    _check_size(n)
    best, best_value = 0, np.inf
    for mask in range(1, (1 << n) - 1):
        value = f(mask)
        if is_better(value, best_value):
            best, best_value = mask, value
    return best, float(best_value)


def queyranne_minimum(f: SetFunction, n: int) -> tuple[int, float]:
    """Queyranne's algorithm: a minimiser of ``f`` over the nonempty proper subsets.

    Exact when ``f`` is symmetric submodular or posimodular (Queyranne 1998; Nagamochi
    and Ibaraki 1998), a heuristic otherwise. Each of the n - 1 rounds orders the
    current groups of elements greedily (next the group ``u`` minimising
    ``f(W + u) - f(u)``, W the groups ordered so far); the last group ``t`` is a
    minimiser among the sets separating it from the one before it (a pendent pair), so
    ``t`` is a candidate and the two groups are merged. O(n^3) evaluations.
    """
    _check_size(n)
    groups = [1 << v for v in range(n)]
    best, best_value = 0, np.inf
    while len(groups) > 1:
        alone = [f(u) for u in groups]
        union = groups[0]
        remaining = list(range(1, len(groups)))
        ordered = [0]
        while remaining:
            keys = [f(union | groups[u]) - alone[u] for u in remaining]
            u = remaining.pop(_first_minimum(keys))
            ordered.append(u)
            union |= groups[u]
        last, before = ordered[-1], ordered[-2]
        if is_better(alone[last], best_value):
            best, best_value = groups[last], alone[last]
        merged = groups[last] | groups[before]
        groups = [g for i, g in enumerate(groups) if i not in (last, before)] + [merged]
    return best, float(best_value)


def _greedy_vertex(f: SetFunction, elements: Sequence[int], order, base: int, offset: float):
    """Edmonds' greedy vertex of the base polytope of ``A -> f(base | A) - offset`` over
    ``elements`` for an order of their positions:
    ``x[order[i]] = f(base | W_i) - f(base | W_{i-1})``."""
    x = np.empty(len(elements))
    prefix = base
    previous = offset
    for i in order:
        prefix |= 1 << elements[i]
        value = f(prefix)
        x[i] = value - previous
        previous = value
    return x


def _affine_minimizer(points: NDArray[np.float64]) -> NDArray[np.float64]:
    """Coefficients ``a`` (summing to 1) of the point of the affine hull of the columns
    of ``points`` nearest the origin: the bordered normal equations, solved by least
    squares (the points may be affinely dependent)."""
    m = points.shape[1]
    system = np.ones((m + 1, m + 1))
    system[:m, :m] = points.T @ points
    system[m, m] = 0.0
    rhs = np.zeros(m + 1)
    rhs[m] = 1.0
    return np.linalg.lstsq(system, rhs, rcond=None)[0][:m]


def _unconstrained_minimum(
    f: SetFunction,
    elements: Sequence[int],
    base: int,
    tol: float,
    max_iter: int,
    *,
    start: tuple[NDArray[np.float64], NDArray[np.float64]] | None = None,
    final: dict | None = None,
) -> tuple[int, float]:
    """Minimiser of ``A -> f(base | A)`` over all subsets A of ``elements``
    (Fujishige-Wolfe minimum-norm point); returns ``(base | A, value)``.

    ``start``: vertices of the base polytope (columns) and convex weights to start from;
    ``final``, a dict, receives the last ones as ``final["points"]``, ``final["weights"]``.
    """
    n = len(elements)
    offset = f(base)
    if start is None:
        points = _greedy_vertex(f, elements, range(n), base, offset)[:, None]  # columns
        weights = np.ones(1)
    else:
        points, weights = start
    scale = 1.0 + float(np.abs(points).max(initial=0.0))
    # Values so large that squares overflow (a cost_weight of 1e300) are worked on in a
    # power-of-two unit (exact; the minimiser does not depend on it): else the norms
    # are inf - inf = nan, the stopping test never holds and lstsq meets nan.
    big = math.isfinite(scale) and scale >= 2.0**400
    unit = 2.0 ** math.floor(math.log2(scale)) if big else 1.0
    points = points / unit
    x = points @ weights
    for _ in range(max_iter):
        # major cycle: the vertex minimising <x, q>
        q = _greedy_vertex(f, elements, np.argsort(x, kind="stable"), base, offset) / unit
        gap = x @ x - x @ q
        if not gap > tol * (scale / unit) ** 2:  # converged (or nan: nothing to gain)
            break
        points = np.column_stack([points, q])
        weights = np.append(weights, 0.0)
        while True:  # minor cycles: towards the affine minimiser, dropping points
            alpha = _affine_minimizer(points)
            if (alpha > ZERO_TOL).all():
                weights = alpha
                x = points @ weights
                break
            shrinking = alpha < weights
            ratios = np.where(shrinking, weights / np.where(shrinking, weights - alpha, 1.0), 1.0)
            theta = float(np.clip(ratios[alpha <= ZERO_TOL].min(initial=1.0), 0.0, 1.0))
            weights = theta * alpha + (1 - theta) * weights
            keep = weights > ZERO_TOL
            points, weights = points[:, keep], weights[keep] / weights[keep].sum()
            x = points @ weights
            if points.shape[1] == 1:
                break
    if final is not None:
        final["points"], final["weights"] = points * unit, weights
    # the minimisers are level sets {x < t} of the minimum-norm point: try them all
    best, best_value = base, offset
    prefix = base
    for i in np.argsort(x, kind="stable"):
        prefix |= 1 << elements[i]
        value = f(prefix)
        if value < best_value - GAIN_RTOL * scale:
            best, best_value = prefix, value
    return best, float(best_value)


def minimum_norm_point(
    f: SetFunction,
    n: int,
    tol: float = 1e-10,
    max_iter: int = 1000,
    warm_start: dict | None = None,
) -> tuple[int, float]:
    """A minimiser of submodular ``f`` over the nonempty proper subsets of
    ``{0..n-1}`` (Fujishige-Wolfe minimum-norm-point algorithm).

    The minimum over all subsets is found first; if it is the empty or the full set,
    the nonempty proper subsets are searched as 2(n - 1) problems on n - 2 elements,
    each keeping element 0 in and another element t out or the reverse (every nonempty
    proper subset separates 0 from some t). ``tol`` is relative to the squared scale
    of the values.

    ``warm_start``, a dict, carries the unconstrained problem's last vertices and
    weights from one call to the next (keys "points", "weights"): the caller shifts
    them to the new function's base polytope (for ``f - h`` with modular h, a vertex
    moves by the change of h) and the algorithm resumes from there.
    """
    _check_size(n)
    full = (1 << n) - 1
    start = None
    if warm_start is not None and "points" in warm_start:
        start = (warm_start["points"], warm_start["weights"])
    subset, value = _unconstrained_minimum(
        f, range(n), 0, tol, max_iter, start=start, final=warm_start
    )
    if subset not in (0, full):
        return subset, value
    best, best_value = 0, np.inf
    for t in range(1, n):
        others = [v for v in range(1, n) if v != t]
        for inside in (0, t):
            if others:
                subset, value = _unconstrained_minimum(f, others, 1 << inside, tol, max_iter)
            else:
                subset, value = 1 << inside, f(1 << inside)
            if is_better(value, best_value):
                best, best_value = subset, value
    return best, float(best_value)


MINIMIZERS: dict[str, Callable[[SetFunction, int], tuple[int, float]]] = {
    "min-norm": minimum_norm_point,
    "queyranne": queyranne_minimum,
    "exhaustive": exhaustive_minimum,
}


def modular_approximation(g: SetFunction, permutation: Sequence[int]) -> NDArray[np.float64]:
    """Algorithm 2: ``h[pi(i)] = g(W_i) - g(W_{i-1})`` with ``W_i`` the first i elements
    of the permutation (``W_0`` empty).

    For submodular g, ``h(A) = g(empty) + sum_{v in A} h[v]`` is at most ``g(A)`` for
    every A and equal on every prefix W_i (Proposition 4; with g(empty) carried as a
    constant, so g need not vanish on the empty set).
    """
    h = np.empty(len(permutation))
    prefix = 0
    previous = g(0)
    for v in permutation:
        prefix |= 1 << int(v)
        value = g(prefix)
        h[v] = value - previous
        previous = value
    return h


@dataclass
class SubSupResult:
    """Outcome of :func:`submodular_supermodular`.

    Attributes
    ----------
    subset : int
        Bit mask of the best set found.
    value : float
        ``f(subset) - g(subset)``.
    history : list of float
        The true objective ``f - g`` at the minimiser of each iteration's upper bound.
    """

    subset: int
    value: float
    history: list[float] = field(default_factory=list)

    @property
    def n_iterations(self) -> int:
        return len(self.history)


def submodular_supermodular(
    f: SetFunction,
    g: SetFunction,
    n: int,
    minimizer: str = "min-norm",
    delta: float = 1e-10,
    max_iter: int = 100,
    n_permutations: int = 1,
    single_moves: bool = False,
    random_state: int | np.random.Generator | None = None,
) -> SubSupResult:
    """Algorithm 1: a local minimiser of ``f - g`` over the nonempty proper subsets of
    ``{0..n-1}``, ``f`` and ``g`` submodular.

    Each iteration replaces ``g`` by its modular lower bound ``h`` of Algorithm 2 for a
    permutation that starts with the current set (in random order, the rest random),
    so ``f - h`` is submodular, bounds ``f - g`` from above and equals it at the current
    set; its minimiser (``minimizer``: "min-norm", exact; "queyranne", exact when
    ``f - h`` is posimodular, else a heuristic; "exhaustive") is the next set. So the
    objective never increases (with an exact minimiser). The first permutation is
    random; the procedure stops when ``n_permutations`` bounds in a row, each from a
    new random permutation starting with the current set, lower ``f - g`` by no more
    than ``delta`` (Algorithm 1 is ``n_permutations=1``).

    The end of Section 3 suggests stronger local minima by trying more permutations
    (``n_permutations > 1``) and, with ``single_moves``, a set no single element
    added or removed improves: when the bounds stop, the best such move, if it lowers
    ``f - g`` by more than ``delta``, is taken and the iterations resume from it.
    """
    if minimizer not in MINIMIZERS:
        raise ValueError(f"minimizer must be one of {sorted(MINIMIZERS)}, got {minimizer!r}")
    if not (isinstance(n_permutations, int | np.integer) and n_permutations >= 1):
        raise ValueError(f"n_permutations must be an integer >= 1, got {n_permutations!r}")
    minimize = MINIMIZERS[minimizer]
    rng = np.random.default_rng(random_state)
    full = (1 << n) - 1

    def objective(subset: int) -> float:
        return f(subset) - g(subset)

    def starting_with(subset: int) -> list[int]:
        inside = members(subset)
        outside = [v for v in range(n) if not subset >> v & 1]
        return [inside[i] for i in rng.permutation(len(inside))] + [
            outside[i] for i in rng.permutation(len(outside))
        ]

    permutation = [int(v) for v in rng.permutation(n)]
    best, best_value = 0, np.inf
    history: list[float] = []
    g_empty = g(0)
    stalls = 0
    warm: dict = {}  # the minimum-norm point's vertices, carried between bounds
    h_previous = None
    while len(history) < max_iter:
        h = modular_approximation(g, permutation)
        tables = byte_tables(list(h), 0.0)

        def upper(subset: int, tables=tables) -> float:
            return f(subset) - g_empty - sum_over(tables, subset, 0.0)

        if minimizer == "min-norm":
            if h_previous is not None and "points" in warm:
                # a vertex of B(f - h_old) + h_old - h is the same order's vertex of B(f - h)
                warm["points"] = warm["points"] + (h_previous - h)[:, None]
            subset, _ = minimum_norm_point(upper, n, warm_start=warm)
            h_previous = h
        else:
            subset, _ = minimize(upper, n)
        value = objective(subset)
        history.append(value)
        if value < best_value - delta or best_value == np.inf:
            best, best_value, stalls = subset, value, 0
        else:
            stalls += 1
        if stalls < n_permutations:
            permutation = starting_with(best)
            continue
        if not single_moves:
            break
        moves = [best ^ (1 << v) for v in range(n) if best ^ (1 << v) not in (0, full)]
        values = [objective(m) for m in moves]
        if not moves or min(values) >= best_value - delta:
            break
        chosen = _first_minimum(values)
        best, best_value, stalls = moves[chosen], values[chosen], 0
        history.append(best_value)
        permutation = starting_with(best)
    return SubSupResult(best, float(best_value), history)
