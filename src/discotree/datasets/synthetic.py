"""Generators of the papers' synthetic problems.

Each generator takes a ``random_state`` and returns samples (and, where useful, the
true model) so that experiments and tests can compare learned structures with the
truth. Choices the papers leave open are stated in each docstring.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from scipy import stats
from scipy.special import logsumexp

from ..models.discrete_forest import DiscreteForestModel
from ..numerics import ZERO_TOL, normalise_log
from ..structure.spanning import orient_forest, topological_order
from ..validation import check_random_state

__all__ = [
    "ForestClass",
    "GaussianExample",
    "GridModel",
    "ear_gaussian_example",
    "forest_classes",
    "gaussian_example",
    "random_binary_trees",
    "random_grid_model",
    "random_ktree_classes",
    "sample_forest_classes",
    "sample_grid_pair",
    "sample_joint_table",
    "three_variable_example",
]


def _rng(random_state) -> np.random.Generator:
    return np.random.default_rng(check_random_state(random_state).randint(2**31 - 1))


def _random_tree_parents(n_nodes: int, rng: np.random.Generator) -> NDArray[np.intp]:
    """Node 0 is the root; node i >= 1 picks its parent uniformly among 0..i-1."""
    parents = np.full(n_nodes, -1, dtype=np.intp)
    for i in range(1, n_nodes):
        parents[i] = rng.integers(0, i)
    return parents


def _as_frame(X: NDArray, prefix: str = "x") -> pd.DataFrame:
    return pd.DataFrame(X, columns=[f"{prefix}{j}" for j in range(X.shape[1])])


# --------------------------------------------------------------------------- Sanghavi et al. 2007,
# Sec. 4
def random_binary_trees(
    n_features: int,
    n_per_class: int,
    random_state=None,
    models=None,
    parameter_range: tuple[float, float] = (0.0, 1.0),
) -> tuple[pd.DataFrame, pd.Series, DiscreteForestModel]:
    """Two random binary tree distributions and K samples from each (Sanghavi et al. 2007, Section
    4).

    For each class independently: node 1 is the root with P(x_1 = 1) uniform in [0, 1];
    node i >= 2 takes a parent uniformly among 1..i-1, and P(x_i = 1 | x_parent = v)
    is uniform in [0, 1] for each parent value v (as Sanghavi et al. 2007,
    Section 4, describes).

    Parameters
    ----------
    n_features : int
    n_per_class : int
        K, the number of samples from each class.
    random_state : int, RandomState or None
    models : DiscreteForestModel, optional
        Reuse these two class models (e.g. to draw a test set from the same trees).
    parameter_range : (float, float), default=(0.0, 1.0)
        The interval the Bernoulli parameters are drawn from, uniformly: the paper's
        [0, 1] by default; a narrower interval around 1/2 gives two distributions
        closer to each other (a harder problem, not the paper's).

    Returns
    -------
    X : DataFrame of 0/1 integers, y : Series with labels 0 and 1, model :
    DiscreteForestModel holding the two true trees (class 0 then class 1).
    """
    rng = _rng(random_state)
    if models is None:
        parents = np.stack([_random_tree_parents(n_features, rng) for _ in range(2)])
        log_cpts = []
        for c in range(2):
            tables = []
            for j in range(n_features):
                rows = 1 if parents[c, j] < 0 else 2
                low, high = parameter_range
                p1 = low + (high - low) * rng.random(rows)
                tables.append(np.log(np.column_stack([1 - p1, p1]).clip(1e-300)))
            log_cpts.append(tables)
        models = DiscreteForestModel(parents, np.full(n_features, 2, np.intp), log_cpts)
    X = np.vstack([models.sample(n_per_class, c, rng) for c in range(2)])
    y = np.repeat([0, 1], n_per_class)
    return _as_frame(X), pd.Series(y, name="class"), models


# --------------------------------------------------------------------------- Tan et al. 2010, V-D1
@dataclass(frozen=True)
class GridModel:
    """A binary pairwise MRF on a rows x cols grid with spins s = 2x - 1:
    ``log p(x) = sum_i h_i s_i + sum_(i,j) J_ij s_i s_j - log Z``.

    Attributes
    ----------
    field : ndarray (rows, cols)
    horizontal : ndarray (rows, cols - 1)
        Coupling of (r, c) and (r, c + 1).
    vertical : ndarray (rows - 1, cols)
        Coupling of (r, c) and (r + 1, c).
    """

    field: NDArray[np.float64]
    horizontal: NDArray[np.float64]
    vertical: NDArray[np.float64]

    @property
    def shape(self) -> tuple[int, int]:
        return self.field.shape

    def _row_states(self) -> NDArray[np.float64]:
        cols = self.shape[1]
        bits = (np.arange(2**cols)[:, None] >> np.arange(cols)) & 1
        return (2.0 * bits - 1.0).astype(np.float64)  # (2**cols, cols) spins

    def sample(self, n_samples: int, rng: np.random.Generator) -> NDArray[np.intp]:
        """Exact samples by forward filtering, backward sampling over grid rows.

        Each row is one variable with ``2**cols`` states; rows form a chain whose
        transition potentials are the vertical couplings. Cost
        O(rows * 4**cols + n_samples * rows * 2**cols).
        """
        rows, cols = self.shape
        spins = self._row_states()
        unary = spins @ self.field.T  # (states, rows): field terms of each row
        unary += (spins[:, :-1] * spins[:, 1:]) @ self.horizontal.T
        # log messages alpha_r(s) = log sum over rows < r, with row r in state s
        alpha = np.empty((rows, len(spins)))
        alpha[0] = unary[:, 0]
        pair = [(spins * self.vertical[r]) @ spins.T for r in range(rows - 1)]
        for r in range(1, rows):
            alpha[r] = unary[:, r] + logsumexp(alpha[r - 1][:, None] + pair[r - 1], axis=0)
        states = np.empty((n_samples, rows), dtype=np.intp)
        states[:, -1] = _draw(np.tile(alpha[-1], (n_samples, 1)), rng)
        for r in range(rows - 2, -1, -1):
            logits = alpha[r][None, :] + pair[r][:, states[:, r + 1]].T
            states[:, r] = _draw(logits, rng)
        x = (spins[states] > 0).astype(np.intp)  # (n, rows, cols)
        return x.reshape(n_samples, rows * cols)

    def exact_marginals(self) -> NDArray[np.float64]:
        """P(x_i = 1) for every node by enumeration (small grids only)."""
        rows, cols = self.shape
        n = rows * cols
        if n > 16:
            raise ValueError("exact enumeration is limited to 16 nodes")
        x = ((np.arange(2**n)[:, None] >> np.arange(n)) & 1).astype(float)
        s = (2 * x - 1).reshape(-1, rows, cols)
        logp = (s * self.field).sum(axis=(1, 2))
        logp += (s[:, :, :-1] * s[:, :, 1:] * self.horizontal).sum(axis=(1, 2))
        logp += (s[:, :-1, :] * s[:, 1:, :] * self.vertical).sum(axis=(1, 2))
        p = np.exp(normalise_log(logp, axis=0))
        return p @ x

    def edges(self) -> list[tuple[int, int]]:
        """The grid's edges as (i, j) node indices, i < j (row-major numbering)."""
        rows, cols = self.shape
        out = [(r * cols + c, r * cols + c + 1) for r in range(rows) for c in range(cols - 1)]
        out += [(r * cols + c, (r + 1) * cols + c) for r in range(rows - 1) for c in range(cols)]
        return out


def _draw(logits: NDArray[np.float64], rng: np.random.Generator) -> NDArray[np.intp]:
    """One categorical draw per row of unnormalised log-probabilities."""
    prob = np.exp(logits - logits.max(axis=1, keepdims=True))
    cumulative = np.cumsum(prob, axis=1)
    u = rng.random(len(prob))[:, None] * cumulative[:, -1:]
    return np.minimum((u >= cumulative).sum(axis=1), prob.shape[1] - 1)


def sample_grid_pair(
    q: GridModel, p: GridModel, n_samples: int, rng: np.random.Generator
) -> tuple[pd.DataFrame, pd.Series]:
    """Exact samples of two grid models: the first half labelled 0 (from ``q``), the
    rest labelled 1 (from ``p``)."""
    half = n_samples // 2
    X = np.vstack([q.sample(half, rng), p.sample(n_samples - half, rng)])
    y = np.repeat([0, 1], [half, n_samples - half])
    return _as_frame(X), pd.Series(y, name="class")


def random_grid_model(
    rows: int = 10,
    cols: int = 10,
    field_scale: float = 0.5,
    coupling_scale: float = 1.0,
    random_state=None,
) -> GridModel:
    """A binary grid MRF with random parameters (Tan et al. 2010, V-D1).

    The paper only says "different randomly chosen parameters"; we draw the fields
    uniformly in ``[-field_scale, field_scale]`` and the couplings uniformly in
    ``[-coupling_scale, coupling_scale]`` (spin parameterisation).
    """
    rng = _rng(random_state)
    return GridModel(
        field=rng.uniform(-field_scale, field_scale, (rows, cols)),
        horizontal=rng.uniform(-coupling_scale, coupling_scale, (rows, cols - 1)),
        vertical=rng.uniform(-coupling_scale, coupling_scale, (rows - 1, cols)),
    )


# --------------------------------------------------------------------------- Tan et al. 2010, V-A
@dataclass(frozen=True)
class GaussianExample:
    """The two zero-mean Gaussians of Tan et al. 2010, eq. 29-30."""

    cov_p: NDArray[np.float64]
    cov_q: NDArray[np.float64]

    def sample(self, n_per_class: int, random_state=None) -> tuple[pd.DataFrame, pd.Series]:
        """``n_per_class`` samples of each class (p: label 1, q: label 0)."""
        rng = _rng(random_state)
        d = len(self.cov_p)
        xq = rng.multivariate_normal(np.zeros(d), self.cov_q, size=n_per_class)
        xp = rng.multivariate_normal(np.zeros(d), self.cov_p, size=n_per_class)
        y = np.repeat([0, 1], n_per_class)
        return _as_frame(np.vstack([xq, xp])), pd.Series(y, name="class")


def gaussian_example(
    n_features: int = 20,
    rho: float = 0.95,
    common: float = 0.9,
    specific: float = 0.5,
    random_state=None,
) -> GaussianExample:
    """Covariances built as Tan et al. 2010, eq. 29-30 (Section V-A).

    ``Sigma_p = blockdiag(S_C, S_A) + S_N`` and ``Sigma_q = blockdiag(S_C, S_B) + S_N``
    with ``S_N = [[I, rho I], [rho I, I]]``. The paper only requires the common block
    S_C to be more correlated than S_A and S_B, and the noise edges the most
    correlated of all; we take S_C with unit diagonal and every off-diagonal equal to
    ``common``, S_A with every off-diagonal equal to ``specific`` and S_B =
    ``(1 - specific) I + specific v v^T`` for a random sign vector v with as many + as
    - signs, so that the two blocks have the same correlation magnitudes but half of
    their signs differ (the discriminative information). After the noise is
    added, noise edges have correlation rho/2, common edges common/2, and the
    discriminative block at most specific/2, so with the defaults (0.475 > 0.45 >
    0.425) Chow-Liu picks the same tree for both classes.
    """
    if n_features % 2 or n_features < 4:
        raise ValueError(f"n_features must be even and >= 4, got {n_features}")
    if not common < rho < 1 or not 0 <= specific < common:
        raise ValueError("need specific < common < rho < 1")
    rng = _rng(random_state)
    half = n_features // 2
    s_c = (1 - common) * np.eye(half) + common * np.ones((half, half))

    signs = rng.permutation(np.where(np.arange(half) < half // 2, 1.0, -1.0))
    block_a = (1 - specific) * np.eye(half) + specific * np.ones((half, half))
    block_b = (1 - specific) * np.eye(half) + specific * np.outer(signs, signs)
    noise = np.block([[np.eye(half), rho * np.eye(half)], [rho * np.eye(half), np.eye(half)]])
    zeros = np.zeros((half, half))
    cov_p = np.block([[s_c, zeros], [zeros, block_a]]) + noise
    cov_q = np.block([[s_c, zeros], [zeros, block_b]]) + noise
    return GaussianExample(cov_p, cov_q)


# --------------------------------------------------------------------------- Narasimhan & Bilmes
# 2005, 5
def ear_gaussian_example(
    n_features: int, strong: float = 0.8, weak: float = 0.4, random_state=None
) -> GaussianExample:
    """Two zero-mean, unit-variance Gaussian classes in the spirit of Narasimhan & Bilmes 2005,
    Section 5, whose generator the paper does not give.

    A linear Gaussian network over a random order of the features: every feature after
    the first has a *common* parent among the earlier ones with coefficient ``strong``
    in both classes, and every feature after the second a *discriminative* parent
    (another earlier feature) with coefficient ``+weak`` in class p and ``-weak`` in
    class q, plus unit noise. Each class's covariance is then scaled to a correlation
    matrix, so means and variances are identical across classes (naive Bayes is at
    chance), the strong dependences are shared, and only the weaker ones discriminate.
    """
    if n_features < 3:
        raise ValueError(f"n_features must be >= 3, got {n_features}")
    if not 0 < weak < strong:
        raise ValueError("need 0 < weak < strong")
    rng = _rng(random_state)
    order = rng.permutation(n_features)
    common = np.zeros((n_features, n_features))
    specific = np.zeros((n_features, n_features))
    for k in range(1, n_features):
        child = order[k]
        parent = order[rng.integers(0, k)]
        common[child, parent] = strong
        if k >= 2:
            others = [v for v in order[:k] if v != parent]
            specific[child, others[rng.integers(0, len(others))]] = weak
    covariances = []
    for sign in (1.0, -1.0):
        inverse = np.linalg.inv(np.eye(n_features) - common - sign * specific)
        cov = inverse @ inverse.T
        sd = np.sqrt(np.diag(cov))
        covariances.append(cov / np.outer(sd, sd))
    return GaussianExample(cov_p=covariances[0], cov_q=covariances[1])


# ------------------------------------------------------- Narasimhan & Bilmes 2005 Table 1 /
# Pernkopf & Bilmes 2010 Section 3
def three_variable_example(
    variant: str = "pernkopf",
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The exact joint P(C, X1, X2, X3) of the 3-variable example.

    ``"pernkopf"`` (Pernkopf & Bilmes 2010, Section 3): C and X1 uniform; X2 = X1
    w.p. 0.5, else 0 or 1 w.p. 0.25 each; X3 = X1 (class 1) or not-X1 (class 2) w.p.
    0.3, X2 w.p. 0.5, 0 or 1 w.p. 0.1 each.
    ``"narasimhan"`` (Narasimhan & Bilmes 2005, Table 1): X2 as above; X3 = X2 w.p.
    0.5, X1 (class 1) or not-X1 (class 2) w.p. 0.25, a coin toss w.p. 0.25.

    Returns
    -------
    joint : ndarray of shape (2, 2, 2, 2)
        ``joint[c, x1, x2, x3]``, summing to 1 (classes indexed 0 and 1).
    class_prior : ndarray of shape (2,)
    """
    weights = {"pernkopf": (0.3, 0.5, 0.2), "narasimhan": (0.25, 0.5, 0.25)}
    if variant not in weights:
        raise ValueError(f"variant must be one of {sorted(weights)}, got {variant!r}")
    w_x1, w_x2, w_coin = weights[variant]
    joint = np.zeros((2, 2, 2, 2))
    for c, x1, x2, x3 in itertools.product(range(2), repeat=4):
        p_x2 = 0.5 * (x2 == x1) + 0.25
        target = x1 if c == 0 else 1 - x1
        p_x3 = w_x1 * (x3 == target) + w_x2 * (x3 == x2) + w_coin * 0.5
        joint[c, x1, x2, x3] = 0.5 * 0.5 * p_x2 * p_x3
    return joint, joint.sum(axis=(1, 2, 3))


def sample_joint_table(
    joint: NDArray[np.float64], n_samples: int, random_state=None
) -> tuple[pd.DataFrame, pd.Series]:
    """Samples (X, y) from a table ``joint[c, x1, ..., xn]``."""
    rng = _rng(random_state)
    flat = rng.choice(joint.size, size=n_samples, p=joint.ravel() / joint.sum())
    cells = np.column_stack(np.unravel_index(flat, joint.shape))
    return _as_frame(cells[:, 1:], "X"), pd.Series(cells[:, 0], name="class")


# --------------------------------------------------------------------------- Pernkopf & Bilmes
# 2010, 6.4
def random_ktree_classes(
    n_features: int,
    n_classes: int = 5,
    cardinality: int = 10,
    n_first: int = 25000,
    n_other: int = 6250,
    random_state=None,
) -> tuple[pd.DataFrame, pd.Series, DiscreteForestModel]:
    """Five classes of data from random 1-trees (Pernkopf & Bilmes 2010, Section 6.4).

    Each class c gets a random tree (parents uniform among earlier nodes) and CPT rows
    drawn uniformly on the simplex (the paper: "probabilities sampled from a uniform
    distribution"), cardinality 10. Class 0 has ``n_first`` samples of its tree; every
    other class has ``n_other`` samples of class 0's tree ("for confusion") and
    ``n_other`` of its own: 25000 + 4 * 2 * 6250 = 75000 samples by default.
    """
    rng = _rng(random_state)
    parents = np.stack([_random_tree_parents(n_features, rng) for _ in range(n_classes)])
    log_cpts = [
        [
            np.log(rng.dirichlet(np.ones(cardinality), 1 if parents[c, j] < 0 else cardinality))
            for j in range(n_features)
        ]
        for c in range(n_classes)
    ]
    model = DiscreteForestModel(parents, np.full(n_features, cardinality, np.intp), log_cpts)
    blocks, labels = [model.sample(n_first, 0, rng)], [np.zeros(n_first, np.intp)]
    for c in range(1, n_classes):
        blocks += [model.sample(n_other, 0, rng), model.sample(n_other, c, rng)]
        labels.append(np.full(2 * n_other, c, np.intp))
    return _as_frame(np.vstack(blocks)), pd.Series(np.concatenate(labels), name="class"), model


# --------------------------------------------------------------------------- Dorn et al. 2018, 5.1
_MARGINALS = ("normal", "t3", "mixture")


def _random_forest_edges(n: int, n_edges: int, rng, keep=()) -> list[tuple[int, int]]:
    """A uniformly ordered random forest with ``n_edges`` edges containing ``keep``."""
    label = list(range(n))
    edges = []
    for i, j in keep:
        edges.append((min(i, j), max(i, j)))
        old = label[j]
        label = [label[i] if v == old else v for v in label]
    candidates = [(i, j) for i in range(n) for j in range(i + 1, n)]
    for k in rng.permutation(len(candidates)):
        if len(edges) >= n_edges:
            break
        i, j = candidates[k]
        if label[i] != label[j]:
            edges.append((i, j))
            old = label[j]
            label = [label[i] if v == old else v for v in label]
    return edges


def _marginal_quantile(kind: str, rng: np.random.Generator, centred: bool = False):
    """A random marginal of the family, as its quantile function (mean 0 if centred)."""
    loc, scale = rng.uniform(-1, 1), rng.uniform(0.5, 2.0)
    if centred:
        loc = 0.0
    if kind == "normal":
        return lambda u: loc + scale * stats.norm.ppf(u)
    if kind == "t3":
        return lambda u: loc + scale * stats.t.ppf(u, df=3)
    means = rng.uniform(-2, 2, 2)
    sds = rng.uniform(0.3, 1.5, 2)
    weight = rng.uniform(0.3, 0.7)
    if centred:
        means -= weight * means[0] + (1 - weight) * means[1]
    grid = np.linspace(means.min() - 8 * sds.max(), means.max() + 8 * sds.max(), 4001)
    cdf = weight * stats.norm.cdf(grid, means[0], sds[0])
    cdf += (1 - weight) * stats.norm.cdf(grid, means[1], sds[1])
    return lambda u: np.interp(u, cdf, grid)


@dataclass(frozen=True)
class ForestClass:
    """A forest-structured distribution: a Gaussian-copula tree with given marginals."""

    edges: list[tuple[int, int]]
    correlations: dict[tuple[int, int], float]
    quantiles: list

    def sample(self, n_samples: int, rng: np.random.Generator) -> NDArray[np.float64]:
        n = len(self.quantiles)
        parents = orient_forest(n, self.edges)
        z = np.empty((n_samples, n))
        for j in topological_order(parents):
            noise = rng.standard_normal(n_samples)
            p = parents[j]
            if p < 0:
                z[:, j] = noise
            else:
                r = self.correlations[(min(p, j), max(p, j))]
                z[:, j] = r * z[:, p] + np.sqrt(1 - r * r) * noise
        u = stats.norm.cdf(z).clip(ZERO_TOL, 1 - ZERO_TOL)
        return np.column_stack([q(u[:, j]) for j, q in enumerate(self.quantiles)])


def forest_classes(
    n_features: int,
    *,
    marginal: str = "normal",
    sparse: bool = False,
    shared_structure: bool = False,
    centred: bool = False,
    random_state=None,
) -> tuple[ForestClass, ForestClass]:
    """Two forest-structured classes as in Dorn et al. 2018, Section 5.1.

    Each class is a Gaussian copula on a forest (which keeps the forest's conditional
    independences) with marginals of the chosen family: ``"normal"``, ``"t3"``
    (Student t with 3 degrees of freedom) or ``"mixture"`` (two Gaussians with
    different means and variances), each with a random location and scale. Structures:
    full trees (n - 1 edges) or, with ``sparse``, forests with about two-thirds as many
    edges; with ``shared_structure`` about two-thirds of class 0's edges are kept in
    class 1, otherwise the two forests are independent. Edge correlations are
    ``+-U(0.5, 0.95)``. With ``centred`` every marginal has mean 0, so the classes
    share their means and differ only in scales, shapes and dependence (a linear
    classifier is then no better than chance, as the paper reports for LDA). The paper
    gives no numeric values for these choices.
    """
    if marginal not in _MARGINALS:
        raise ValueError(f"marginal must be one of {_MARGINALS}, got {marginal!r}")
    rng = _rng(random_state)
    n_edges = n_features - 1 if not sparse else max(1, round(2 * (n_features - 1) / 3))
    first = _random_forest_edges(n_features, n_edges, rng)
    if shared_structure:
        keep_count = round(2 * len(first) / 3)
        kept = [first[k] for k in sorted(rng.choice(len(first), keep_count, replace=False))]
        second = _random_forest_edges(n_features, n_edges, rng, keep=kept)
    else:
        second = _random_forest_edges(n_features, n_edges, rng)
    classes = []
    for edges in (first, second):
        correlations = {e: float(rng.choice([-1, 1]) * rng.uniform(0.5, 0.95)) for e in edges}
        quantiles = [_marginal_quantile(marginal, rng, centred) for _ in range(n_features)]
        classes.append(ForestClass(edges, correlations, quantiles))
    return classes[0], classes[1]


def sample_forest_classes(
    classes: tuple[ForestClass, ForestClass],
    n_samples: int,
    minority_fraction: float = 0.5,
    random_state=None,
) -> tuple[pd.DataFrame, pd.Series]:
    """Samples of two forest classes; class 1 gets ``minority_fraction`` of them."""
    rng = _rng(random_state)
    n1 = round(minority_fraction * n_samples)
    X = np.vstack([classes[0].sample(n_samples - n1, rng), classes[1].sample(n1, rng)])
    y = np.repeat([0, 1], [n_samples - n1, n1])
    return _as_frame(X), pd.Series(y, name="class")
