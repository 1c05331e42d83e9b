"""Rules across the parameters of an estimator, and TAN's as data.

A :class:`Rule` is a predicate on an estimator's parameters and a message: the
cross-field checks that follow the table of the options' constraints
(:meth:`~discotree.learners.options.LearnerOptions.check_parameters`), and the
reasons an estimator offers no ``predict_uncertainty``, ``partial_fit`` or joint
distribution with given parameters (the first broken rule of a tuple gives the
reason, :func:`first_reason`). The estimators hold their tuples as class data
(:class:`~discotree.classifiers._base.DiscreteForestClassifierBase` reads them); those
of TAN's parameters live here, beside :class:`~discotree.learners.options.TANOptions`.

Examples
--------
>>> from discotree import TANClassifier
>>> first_reason(TAN_UNCERTAINTY, TANClassifier(k=2))
'k=2'
>>> first_reason(TAN_UNCERTAINTY, TANClassifier(k=0)) is None
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

__all__ = [
    "BACKOFF_SMOOTHINGS",
    "DISCRETE_STREAMS",
    "DISCRETE_TABLES",
    "TAN_RULES",
    "TAN_STREAMING",
    "TAN_UNCERTAINTY",
    "Rule",
    "first_reason",
]

#: The smoothings that back a table off along its parents (``"hdp"``: sampled; its
#: alpha, structure and any cross-validation use the ``"hierarchical"`` estimate).
BACKOFF_SMOOTHINGS = ("hierarchical", "hdp")


@dataclass(frozen=True)
class Rule:
    """A rule across an estimator's parameters (checked after its table of checks):
    ``broken(estimator)`` and the message, formatted with the parameters.

    Examples
    --------
    >>> from discotree import TANClassifier
    >>> rule = Rule(lambda e: e.n_edges is not None and e.k != 1, "n_edges needs k=1, not {k}.")
    >>> rule.check(TANClassifier(k=2, n_edges=3))
    Traceback (most recent call last):
    ...
    ValueError: TANClassifier: n_edges needs k=1, not 2.
    >>> rule.reason(TANClassifier(k=1, n_edges=3)) is None
    True
    """

    broken: Callable[[Any], bool]
    message: str

    def reason(self, estimator: Any) -> str | None:
        """The message formatted with the parameters of ``estimator`` when the rule is
        broken, else None."""
        if not self.broken(estimator):
            return None
        return self.message.format(**estimator.get_params(deep=False))

    def check(self, estimator: Any) -> None:
        """Raise ``ValueError("<estimator's class>: <message>")`` when broken."""
        reason = self.reason(estimator)
        if reason is not None:
            raise ValueError(f"{type(estimator).__name__}: {reason}")


def first_reason(rules: Iterable[Rule], estimator: Any) -> str | None:
    """The message of the first of ``rules`` that ``estimator`` breaks (None: none)."""
    for rule in rules:
        reason = rule.reason(estimator)
        if reason is not None:
            return reason
    return None


#: The rules across TAN's parameters (after the table of :class:`TANOptions`).
TAN_RULES = (
    Rule(
        lambda e: e.smoothing in BACKOFF_SMOOTHINGS and not (e.k <= 1 and e.parameters == "ml"),
        "smoothing={smoothing!r} smooths the maximum-likelihood tables of forests "
        "(parameters='ml', k <= 1); use KDBClassifier(smoothing={smoothing!r}) for k >= 2.",
    ),
    Rule(
        lambda e: (
            e.structure_folds is not None and (e.structure in ("cmi", "omi-crcl") or e.k == 0)
        ),
        "structure_folds applies to the discriminative searches with k >= 1 (not "
        "structure={structure!r}, k={k!r}).",
    ),
    Rule(
        lambda e: (
            e.prior == "bdeu" and not (e.k == 1 and e.structure == "cmi" and e.parameters == "ml")
        ),
        "prior='bdeu' is available with k=1, structure='cmi' and parameters='ml' so far.",
    ),
    Rule(
        lambda e: e.n_edges is not None and not (e.k == 1 and e.structure == "cmi"),
        "n_edges applies to structure='cmi' with k=1 only.",
    ),
    Rule(
        lambda e: (
            e.distribution == "gaussian"
            and (
                e.k > 1
                or (e.structure, e.parameters, e.prior) != ("cmi", "ml", "dirichlet")
                or isinstance(e.n_edges, str)
            )
        ),
        "distribution='gaussian' is available with k <= 1, structure='cmi', "
        "parameters='ml', prior='dirichlet' and n_edges an integer or None.",
    ),
)

#: Gaussian models have no Dirichlet posteriors to draw from (``predict_uncertainty``).
DISCRETE_TABLES = Rule(lambda e: e.distribution != "discrete", "distribution={distribution!r}")

#: Why TAN's tables are no counted Dirichlet posteriors (``predict_uncertainty``): naive
#: Bayes, TAN-CMI and a searched forest with backed-off tables are.
TAN_UNCERTAINTY = (
    DISCRETE_TABLES,
    Rule(lambda e: e.parameters != "ml", "parameters={parameters!r}"),
    Rule(
        lambda e: e.k == 1 and e.structure != "cmi" and e.smoothing not in BACKOFF_SMOOTHINGS,
        "structure={structure!r} with smoothing={smoothing!r}",
    ),
    Rule(lambda e: e.k not in (0, 1), "k={k!r}"),
)

#: Gaussian models are not learnt from counts (``partial_fit``): the rule of every
#: estimator that streams.
DISCRETE_STREAMS = Rule(
    lambda e: getattr(e, "distribution", "discrete") != "discrete",
    "distribution='gaussian' standardises with the moments of all the data.",
)

#: Why TAN's parameters are not learnt from counts (``partial_fit``).
TAN_STREAMING = (
    DISCRETE_STREAMS,
    Rule(
        lambda e: e.structure != "cmi" or e.parameters != "ml",
        "only structure='cmi' with parameters='ml' is learnt from counts (the "
        "discriminative searches and CL parameters score the training rows).",
    ),
)
