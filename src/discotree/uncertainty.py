"""How sure is a prediction, and why not: total, data and knowledge uncertainty from the
Dirichlet posteriors of the tables.

A discrete Bayesian-network classifier's tables are posterior means of Dirichlet
distributions over each table row (counts plus pseudo-counts). Drawing every row from
its posterior (and the class prior from ``Dirichlet(class counts)``) gives a sample of
classifiers ``theta_1..theta_S``, and for a row ``x`` the probabilities
``p_s = p(c | x, theta_s)``. The decomposition of Malinin, Prokhorenkova & Ustimenko
("Uncertainty in gradient boosting via ensembles", ICLR 2021, Section 2; CatBoost's
``virtual_ensembles``) is then

* total uncertainty ``H(mean_s p_s)`` (entropy of the posterior predictive, nats),
* data (aleatoric) uncertainty ``mean_s H(p_s)``: what the classes overlap even with
  the parameters known,
* knowledge (epistemic) uncertainty = total - data, the mutual information between
  the class and the parameters: what more training rows would remove. It shrinks as
  the counts grow (``tests/test_uncertainty.py`` checks it, and that the posterior
  intervals cover the generating class probability at about their nominal rate).

It is a Monte Carlo estimate: ``n_draws`` posterior draws (default 100), seeded.
Available for the models whose tables are counted, smoothed maximum-likelihood forests:
naive Bayes, Chow-Liu, TAN (k <= 1, ML parameters), the two-class discriminative tree
(projection parameters) and the EAR tree, on discrete features; and for kDB, A1DE and
kDB ensembles with Dirichlet or hierarchical smoothing, whose draws
:mod:`discotree.models.posterior_draws` defines (an ensemble's draw draws every
member's tables; its logistic members stay fitted). The estimators'
``predict_uncertainty`` exists only there (``hasattr`` says so).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray
from sklearn.utils import Bunch

from .config import check_memory
from .numerics import class_log_prior, normalise_log
from .validation import check_random_state, check_random_state_param, is_count, is_real

__all__ = ["entropy_decomposition", "posterior_uncertainty"]

#: The draws of the rows summarised together take at most about this many bytes: rows
#: are summarised in chunks, each chunk drawing the same tables (the same seed), so the
#: memory is bounded whatever the number of rows.
DRAW_BYTES = 64 * 2**20
#: Copies of a chunk's draws alive at once (the draws, the entropy terms, a quantile's
#: sorted copy).
WORK_COPIES = 4


def entropy_decomposition(proba_draws: NDArray[np.float64]) -> Bunch:
    """Total, data and knowledge uncertainty of draws of class probabilities.

    Parameters
    ----------
    proba_draws : ndarray of shape (n_draws, n_samples, n_classes)

    Returns
    -------
    Bunch
        ``total``, ``data`` and ``knowledge`` (n_samples,), in nats.

    Examples
    --------
    >>> import numpy as np
    >>> same = np.array([[[0.5, 0.5]], [[0.5, 0.5]]])  # parameters agree: all data
    >>> d = entropy_decomposition(same)
    >>> round(float(d.total[0]), 4), round(float(d.knowledge[0]), 4)
    (0.6931, 0.0)
    >>> split = np.array([[[1.0, 0.0]], [[0.0, 1.0]]])  # each sure, they disagree
    >>> round(float(entropy_decomposition(split).knowledge[0]), 4)
    0.6931
    """
    p = np.asarray(proba_draws, dtype=np.float64)

    def entropy(q: NDArray[np.float64]) -> NDArray[np.float64]:
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(q > 0, -q * np.log(q), 0.0)
        return terms.sum(axis=-1)

    total = entropy(p.mean(axis=0))
    data = entropy(p).mean(axis=0)
    return Bunch(total=total, data=data, knowledge=np.maximum(total - data, 0.0))


def posterior_uncertainty(
    model: Any,
    codes: NDArray[np.integer],
    class_count: NDArray[np.float64],
    epsilon: float,
    n_draws: int = 100,
    interval: float = 0.9,
    random_state: Any = 0,
    name: str = "model",
) -> Bunch:
    """Posterior draws of a fitted model's class probabilities and their uncertainty
    (what ``predict_uncertainty`` of the estimators returns).

    Parameters
    ----------
    model : DiscreteForestModel with a ``posterior``, or a posterior of
        :mod:`discotree.models.posterior_draws`
        Its ``posterior_draw(generator, epsilon)`` returns a scoring model
        (:mod:`discotree.models.protocol`): its ``class_scores(codes, log_prior)``
        under the drawn class prior (a joint adds it; an ensemble normalises each
        member with it) are normalised into the draw's posterior.
    codes : ndarray of shape (n_samples, n_features)
        Encoded rows (-1 = missing, summed out in every draw).
    class_count : ndarray of shape (n_classes,)
        Training weight of each class: the class prior is drawn from
        ``Dirichlet(class_count)``, whose mean is the fitted prior.
    epsilon : float
        The tables' floor for zero probabilities.
    n_draws : int, default=100
        Posterior draws of all the tables.
    interval : float, default=0.9
        Probability mass of the central credible intervals returned.
    random_state : int, RandomState instance or None, default=0
        Seed of the draws.
    name : str
        What error messages call the model.

    Returns
    -------
    Bunch
        ``total``, ``data``, ``knowledge`` (n_samples,): see the module; ``mean``
        (n_samples, n_classes): the posterior predictive probabilities (the mean of the
        draws, close to but not the same as ``predict_proba``, which plugs in the
        posterior mean tables); ``lower`` and ``upper`` (n_samples, n_classes): the
        central ``interval`` credible bounds of each class probability.

    Raises
    ------
    ValueError
        For a model whose tables have no Dirichlet posterior, bad arguments, or one
        row's draws needing more memory than the ``memory_limit`` configuration key
        (checked before drawing; the rows are summarised in chunks of about
        :data:`DRAW_BYTES` bytes of draws).
    """
    if not is_count(n_draws, 2):
        raise ValueError(f"{name}: n_draws must be an integer >= 2, got {n_draws!r}.")
    if not (is_real(interval) and 0 < float(interval) < 1):
        raise ValueError(f"{name}: interval must be in (0, 1), got {interval!r}.")
    check_random_state_param(random_state, name)
    if getattr(model, "posterior", None) is None:
        raise ValueError(
            f"{name}: no Dirichlet posterior to draw from: uncertainty is available for "
            "naive Bayes, Chow-Liu, TAN (k <= 1) with maximum-likelihood parameters, the "
            "two-class discriminative tree and the EAR tree, on discrete features, and "
            "kDB, A1DE and kDB ensembles with Dirichlet or hierarchical smoothing."
        )
    counts = np.maximum(np.asarray(class_count, dtype=np.float64), 0.0)
    n_rows, n_classes = len(codes), len(counts)
    per_row = WORK_COPIES * 8.0 * int(n_draws) * n_classes  # a row's draws, worked on
    check_memory(
        per_row + 8.0 * n_rows * (3 + 3 * n_classes),
        f"n_draws={n_draws} posterior draws of a row ({n_classes} classes)",
        name,
    )
    seed = int(check_random_state(random_state).randint(2**31))
    chunk = max(1, int(DRAW_BYTES // per_row))  # rows whose draws are held at once
    parts = [
        _draw_summaries(model, codes[start : start + chunk], counts, epsilon, n_draws, seed=seed)
        for start in range(0, n_rows, chunk)
    ]
    tail = (1 - float(interval)) / 2
    result = Bunch()
    for key in ("total", "data", "knowledge", "mean"):
        result[key] = np.concatenate([part[key] for part in parts])
    for key, level in (("lower", tail), ("upper", 1 - tail)):
        result[key] = np.concatenate([np.quantile(part.draws, level, axis=0) for part in parts])
    return result


def _draw_summaries(
    model: Any,
    codes: NDArray[np.integer],
    counts: NDArray[np.float64],
    epsilon: float,
    n_draws: int,
    *,
    seed: int,
) -> Bunch:
    """The draws of ``codes``' class probabilities and their entropy decomposition and
    mean; every chunk of rows draws the same tables (the same ``seed``)."""
    generator = np.random.default_rng(seed)
    draws = np.empty((n_draws, len(codes), len(counts)))
    for s in range(n_draws):
        drawn = model.posterior_draw(generator, epsilon)
        prior = generator.gamma(counts)
        log_prior = class_log_prior(prior)
        joint = drawn.class_scores(codes, log_prior)
        draws[s] = np.exp(normalise_log(joint))
    result = entropy_decomposition(draws)
    result.update(mean=draws.mean(axis=0), draws=draws)
    return result
