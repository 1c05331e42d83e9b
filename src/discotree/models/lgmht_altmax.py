"""LGMHT-altmax: tree parameters learnt on a Chernoff bound of the training error
(Sanghavi et al. 2007, Section 3, Lemmas 3.1-3.4).

With the two forests fixed (eq. 1-2), write ``p-hat`` and ``q-hat`` as exponential
families on their forests (eq. 5; :class:`~discotree.models.exponential_tree.
TreeExponentialFamily`). The fraction of class-0 training samples that the test
``q-hat(x) >= p-hat(x)`` misclassifies is at most, for every ``lambda >= 0``,
``sum_x p_e(x) (q-hat(x) / p-hat(x))**lambda = exp A_0(theta_p, theta_q, lambda)``
(Lemma 3.1). For ``0 <= lambda <= 1``, Lemma 3.2 (``lambda Phi(theta) <= Phi(lambda
theta)``) bounds ``A_0`` by

    S_0(a, lambda) = log sum_x p_e(x) q-hat(x)**lambda exp(-<a, phi_p(x)> + Phi_p(a))

at ``a = lambda theta_p``, and ``S_0`` is jointly convex in (a, lambda) (Lemma 3.3;
the paper prints "concave", a typo: it is a log-sum-exp of affine functions plus the
convex ``Phi_p``). The procedure alternates: minimise ``S_0`` over (a, lambda) with
``theta_q`` fixed and set ``theta_p = a / lambda``; minimise ``S_1`` (the same with the
classes exchanged) over (b, gamma) and set ``theta_q = b / gamma``; and so on.

Each half-step minimises ``exp S`` (the bound itself, convex as the exponential of a
convex function) with L-BFGS-B, ``lambda`` in ``[LAMBDA_MIN, 1]``. Minimising the
bound rather than its logarithm makes the optimiser stop by itself when the training
samples are separated (the bound then tends to 0 while its logarithm would run to
minus infinity, the parameters to infinity).

The half-steps each decrease their own class's bound; neither looks at the other
class's, so the pair's bound (the mean of the two exponents' bounds,
:func:`empirical_error_exponent`) is not guaranteed to decrease across alternations.
:func:`lgmht_altmax` records it after every alternation, stops when it no longer
decreases by ``tol`` and returns the parameters of the lowest value seen.

Reproducibility across machines: the result does not depend on the number of threads
(tested), but it can depend on the processor. When the training samples become
separated, the bound's infimum 0 is reached only as the parameters run to infinity, so
where L-BFGS-B stops along that ray follows the last bits of its sums, and OpenBLAS
picks its dot-product kernels per processor family. On the 720 LGMHT-altmax folds of
the ``sanghavi-random-trees`` reproduction, forcing OpenBLAS's Sandybridge kernels
(``OPENBLAS_CORETYPE``) on the machine that wrote the report changed 10 folds by 1 to
4 of 1000 test samples; Haswell's kernels and any thread count changed none. Making
these fits bit-identical everywhere would need a different estimator (a ridge or a box
on the parameters, so that each half-step's minimiser is unique and finite), which is
not Sanghavi et al.'s procedure.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from scipy.optimize import brentq, minimize
from scipy.special import logsumexp, softmax

from .. import missing_values
from ..numerics import ROOT_RTOL, log_shares
from ..stored_checks import CheckedState
from ..stored_classes import stored
from .discrete_forest import DiscreteForestModel
from .exponential_tree import TreeExponentialFamily

__all__ = [
    "AltmaxResult",
    "altmax_forest_model",
    "chernoff_objective",
    "empirical_error_exponent",
    "lgmht_altmax",
]

#: Smallest lambda (gamma) of a half-step: theta = a / lambda needs lambda > 0.
LAMBDA_MIN = 1e-4


def empirical_error_exponent(
    log_ratio: NDArray[np.float64], sample_weight: NDArray[np.float64] | None = None
) -> tuple[float, float]:
    """The error exponent of Lemma 3.4 with the empirical distribution in place of p.

    ``E_0 = max_{lambda >= 0} -log sum_x p_e(x) (q-hat(x) / p-hat(x))**lambda``, the
    exponent of the probability of declaring H1 on M samples of H0 as M grows, and
    ``exp(-E_0)`` the tightest Chernoff bound on the fraction of those samples
    misclassified (Lemma 3.1 at the best lambda; ties count as errors).

    Parameters
    ----------
    log_ratio : ndarray of shape (n_samples,)
        ``log q-hat(x) - log p-hat(x)`` at samples of H0.
    sample_weight : ndarray of shape (n_samples,), optional
        Their weights (the empirical distribution ``p_e``), uniform by default.

    Returns
    -------
    exponent : float
        ``E_0 >= 0``; ``inf`` when every sample is classified correctly with a strict
        margin (the bound then tends to 0 as lambda grows).
    lam : float
        The maximising lambda (``inf`` when the maximum is approached, not reached).

    Examples
    --------
    >>> import numpy as np
    >>> exponent, lam = empirical_error_exponent(np.array([-2.0, -1.0, 0.5]))
    >>> bool(0 < exponent < np.inf), bool(lam > 0)
    (True, True)
    """
    r = np.asarray(log_ratio, dtype=np.float64)
    w = np.ones(len(r)) if sample_weight is None else np.asarray(sample_weight, np.float64)
    keep = w > 0
    r, log_w = r[keep], log_shares(w[keep])
    if len(r) == 0 or not np.all(np.isfinite(r)):
        raise ValueError("the log ratios must be finite, with at least one positive weight.")

    def slope(lam: float) -> float:
        return float(softmax(log_w + lam * r) @ r)

    if slope(0.0) >= 0:
        return 0.0, 0.0
    top = r.max()
    if top < 0:
        return np.inf, np.inf
    if top == 0:  # the limit: the weight of the samples on the boundary
        return float(-logsumexp(log_w[r == 0])), np.inf
    hi = 1.0
    while slope(hi) < 0:
        hi *= 2.0
    lam = brentq(slope, 0.0, hi, xtol=ROOT_RTOL * hi)
    return float(-logsumexp(log_w + lam * r)), float(lam)


def chernoff_objective(
    z: NDArray[np.float64],
    family: TreeExponentialFamily,
    features: sp.csr_matrix,
    log_weight: NDArray[np.float64],
    log_other: NDArray[np.float64],
) -> tuple[float, NDArray[np.float64]]:
    """``S_0(a, lambda)`` of Section 3 and its gradient, ``z = (a, lambda)``.

    Parameters
    ----------
    z : ndarray of shape (n_parameters + 1,)
        The natural parameters ``a`` of the own class's family, then ``lambda``.
    family : TreeExponentialFamily
        The own class's family (``phi_p``, ``Phi_p``).
    features : sparse matrix of shape (n_samples, n_parameters)
        ``phi_p(x)`` of the own class's training samples.
    log_weight : ndarray of shape (n_samples,)
        ``log p_e(x)`` (normalised weights).
    log_other : ndarray of shape (n_samples,)
        ``log q-hat(x)``: the other class's model at those samples.

    Returns
    -------
    value : float
    gradient : ndarray of shape (n_parameters + 1,)
        ``-E_r[phi_p] + mu(a)`` and ``E_r[log q-hat]``, with ``r`` the samples'
        weights tilted by the bound's terms and ``mu(a)`` the mean parameters.
    """
    a, lam = z[:-1], z[-1]
    terms = log_weight + lam * log_other - features @ a
    log_sum = logsumexp(terms)
    phi, mean = family.log_partition(a)
    tilted = np.exp(terms - log_sum)
    grad = np.empty_like(z)
    grad[:-1] = mean - features.T @ tilted
    grad[-1] = tilted @ log_other
    return float(log_sum + phi), grad


@stored
@dataclass
class AltmaxResult(CheckedState):
    """What :func:`lgmht_altmax` returns.

    Attributes
    ----------
    theta : list of two ndarray
        Natural parameters of the class-0 and class-1 models (lowest bound seen).
    history : list of dict
        After the start and every alternation: ``bound`` (the mean over the classes
        of ``exp(-E_c)``, :func:`empirical_error_exponent`), ``exponents`` (E_0, E_1),
        ``training_error`` (the mean of the two classes' error fractions, ties
        counted as errors) and ``half_step_bounds`` (``exp`` of the minimised
        ``S_0`` and ``S_1``; None at the start).
    n_alternations : int
        The alternations run (the last one may not have been kept).
    """

    _NUMBER_FIELDS = ("theta",)  # finite (the reader's check)

    theta: list[NDArray[np.float64]]
    history: list[dict] = field(default_factory=list)
    n_alternations: int = 0


def _pair_state(families, features, log_weights, theta):
    """Per class c: log ratio log(other / own) at its samples, then the bound terms."""
    log_prob = [
        [features[c][m] @ theta[m] - families[m].log_partition(theta[m])[0] for m in range(2)]
        for c in range(2)
    ]
    exponents, errors = [], []
    for c in range(2):
        ratio = log_prob[c][1 - c] - log_prob[c][c]
        exponents.append(empirical_error_exponent(ratio, np.exp(log_weights[c]))[0])
        errors.append(float(np.exp(log_weights[c]) @ (ratio >= 0)))
    bound = float(np.mean(np.exp(-np.array(exponents))))
    return {
        "bound": bound,
        "exponents": [float(e) for e in exponents],
        "training_error": float(np.mean(errors)),
    }


def _half_step(family, features, log_weight, log_other, theta, *, max_iter, tol):
    """Minimise ``exp S`` over (a, lambda) from ``a = lambda theta``; returns the new
    theta = a / lambda and the minimised bound."""
    ratio = log_other - (features @ theta - family.log_partition(theta)[0])
    _, lam0 = empirical_error_exponent(ratio, np.exp(log_weight))
    lam0 = float(np.clip(lam0 if np.isfinite(lam0) else 1.0, 0.05, 1.0))

    def bound(z):
        value, grad = chernoff_objective(z, family, features, log_weight, log_other)
        scale = np.exp(value)
        return scale, scale * grad

    start = np.append(lam0 * theta, lam0)
    bounds = [(None, None)] * len(theta) + [(LAMBDA_MIN, 1.0)]
    result = minimize(
        bound,
        start,
        jac=True,
        method="L-BFGS-B",
        bounds=bounds,
        options={"maxiter": max_iter, "ftol": tol * 1e-3, "gtol": tol * 1e-3},
    )
    start_bound = bound(start)[0]
    if result.fun > start_bound:  # the optimiser never ends above its start; to be sure
        return theta, float(start_bound)
    return result.x[:-1] / result.x[-1], float(result.fun)


def lgmht_altmax(
    families: tuple[TreeExponentialFamily, TreeExponentialFamily],
    codes: tuple[NDArray[np.integer], NDArray[np.integer]],
    weights: tuple[NDArray[np.float64], NDArray[np.float64]],
    theta: tuple[NDArray[np.float64], NDArray[np.float64]],
    *,
    max_alternations: int = 20,
    tol: float = 1e-4,
    max_iter: int = 200,
) -> AltmaxResult:
    """Alternating minimisation of the two classes' Chernoff bounds (Section 3).

    Parameters
    ----------
    families : (TreeExponentialFamily, TreeExponentialFamily)
        The forests of the class-0 model (p-hat, H0) and the class-1 model (q-hat).
    codes : (ndarray, ndarray)
        The complete training samples of class 0 and of class 1, (n_c, n_features).
    weights : (ndarray, ndarray)
        Their positive weights (each class's empirical distribution).
    theta : (ndarray, ndarray)
        Starting parameters: the projections (``from_log_cpts`` of the fitted forests).
    max_alternations : int, default=20
        At most this many (S_0, S_1) alternations.
    tol : float, default=1e-4
        Stop when an alternation lowers the pair's bound by less than this.
    max_iter : int, default=200
        L-BFGS-B iterations per half-step.

    Returns
    -------
    AltmaxResult
    """
    features = [[families[m].features(codes[c]) for m in range(2)] for c in range(2)]
    log_weights = []
    for w in weights:
        w = np.asarray(w, dtype=np.float64)
        if len(w) == 0 or w.sum() <= 0:
            raise ValueError("each class needs at least one complete training sample.")
        log_weights.append(log_shares(w))
    current = [np.asarray(t, dtype=np.float64).copy() for t in theta]
    state = _pair_state(families, features, log_weights, current)
    result = AltmaxResult([t.copy() for t in current], [{**state, "half_step_bounds": None}])
    best = state["bound"]
    for alternation in range(max_alternations if best > 0 else 0):  # 0: nothing to lower
        half_bounds = []
        for c in range(2):
            other = 1 - c
            log_partition = families[other].log_partition(current[other])[0]
            log_other = features[c][other] @ current[other] - log_partition
            current[c], value = _half_step(
                families[c],
                features[c][c],
                log_weights[c],
                log_other,
                current[c],
                max_iter=max_iter,
                tol=tol,
            )
            half_bounds.append(value)
        state = _pair_state(families, features, log_weights, current)
        result.history.append({**state, "half_step_bounds": half_bounds})
        result.n_alternations = alternation + 1
        if state["bound"] < best:
            result.theta = [t.copy() for t in current]
        if not state["bound"] < best - tol:
            break
        best = state["bound"]
    return result


def altmax_forest_model(
    model: DiscreteForestModel,
    codes: NDArray[np.integer],
    positive: NDArray[np.bool_],
    sample_weight: NDArray[np.float64] | None,
    *,
    max_alternations: int = 20,
    tol: float = 1e-4,
    max_iter: int = 200,
) -> tuple[DiscreteForestModel, AltmaxResult]:
    """The two-class forest model of LGMHT-proj refitted by LGMHT-altmax.

    Parameters
    ----------
    model : DiscreteForestModel
        Two classes (column 0: the negative class, column 1: the positive one): the
        starting point, whose forests stay fixed.
    codes : ndarray of shape (n_samples, n_features)
        The training samples of the two classes (``-1`` for missing).
    positive : ndarray of shape (n_samples,), bool
        Whether each sample belongs to the positive class.
    sample_weight : ndarray of shape (n_samples,) or None
    max_alternations, tol, max_iter
        As for :func:`lgmht_altmax`.

    Returns
    -------
    model : DiscreteForestModel
        Same forests, the altmax parameters as conditional tables.
    result : AltmaxResult

    Notes
    -----
    The bound is a sum over training samples of ``phi(x)``, which is defined for
    complete samples only (summing a missing feature out breaks the convexity of
    Lemma 3.3), so samples with a missing value are left out of it, with a warning.
    """
    codes = np.asarray(codes, dtype=np.intp)
    weights = np.ones(len(codes)) if sample_weight is None else np.asarray(sample_weight)
    complete = missing_values.complete_rows(codes)
    n_left_out = int((~complete).sum())
    if n_left_out:
        warnings.warn(
            f"parameters='altmax': {n_left_out} of {len(codes)} training samples have "
            "missing values and are left out of the bound (it needs complete samples).",
            UserWarning,
            stacklevel=3,
        )
    sides = [complete & ~positive, complete & positive]
    if not all(side.any() for side in sides):
        raise ValueError(
            "parameters='altmax' needs at least one complete training sample (no missing "
            "value) in each class."
        )
    families = tuple(TreeExponentialFamily(model.parents[c], model.n_categories) for c in range(2))
    start = tuple(families[c].from_log_cpts(model.log_cpts[c]) for c in range(2))
    result = lgmht_altmax(
        families,  # type: ignore[arg-type]
        (codes[sides[0]], codes[sides[1]]),
        (weights[sides[0]], weights[sides[1]]),
        start,  # type: ignore[arg-type]
        max_alternations=max_alternations,
        tol=tol,
        max_iter=max_iter,
    )
    log_cpts = [families[c].to_log_cpts(result.theta[c]) for c in range(2)]
    return DiscreteForestModel(model.parents, model.n_categories, log_cpts), result
