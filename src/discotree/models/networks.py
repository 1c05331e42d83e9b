"""Fitted discotree models as plain Bayesian networks (what BIF and XMLBIF files hold).

A :class:`Network` is a list of discrete variables, each with its parents and its
conditional probability table, in the layout of the interchange formats:
``P(X | parents)`` as an array of shape (parents' states..., own states). Naive Bayes,
TAN and k-tree classifiers become one network whose class node is a parent of every
feature; Chow-Liu classifiers and discriminative tree pairs (one forest per class)
become one network per class, without a class node, and the class prior beside them.

It lives with the models (the estimators' ``to_networkx`` builds on it, below the
exporters of :mod:`discotree.io`, which re-export these names).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..validation import check_table, feature_names_of
from .bayes_net import BayesNetModel
from .discrete_forest import DiscreteForestModel
from .k_dependence import KDependenceModel

__all__ = [
    "Network",
    "Variable",
    "bif_identifier",
    "checked_conditional",
    "class_networks",
    "evidence_of",
    "feature_states",
    "network_of",
    "per_class_structure",
    "to_networkx",
    "to_pgmpy",
]


@dataclass
class Variable:
    """A discrete variable: its states, its parents (names) and ``P(X | parents)``,
    shape (parents' states..., own states)."""

    name: str
    states: list[str]
    parents: list[str] = field(default_factory=list)
    table: NDArray[np.float64] | None = None

    @property
    def cpt(self) -> NDArray[np.float64]:
        """``table``, which a variable being read from a file may still lack."""
        if self.table is None:
            raise ValueError(f"variable {self.name!r} has no probability table")
        return self.table


@dataclass
class Network:
    """A Bayesian network over discrete variables (the class node first, then the
    features in column order)."""

    name: str
    variables: list[Variable]

    def variable(self, name: str) -> Variable:
        for v in self.variables:
            if v.name == name:
                return v
        raise KeyError(name)


def _number(value: float) -> str:
    value = float(value)
    return str(int(value)) if value.is_integer() and abs(value) < 2**53 else repr(value)


def feature_states(encoder: Any) -> list[list[str]]:
    """The state names of every encoded feature: the categories' string forms, and
    the intervals of the bins (``(-inf, e1]``, ``(e1, e2]``, ..., ``(ek, inf)``)."""
    edges = {}
    if encoder.discretizer_ is not None:
        edges = dict(
            zip(encoder.binned_columns_.tolist(), encoder.discretizer_.bin_edges_, strict=True)
        )
    states = []
    for j, spec in enumerate(encoder.columns_):
        if j in edges:
            bounds = ["-inf", *(_number(e) for e in edges[j]), "inf"]
            labels = [f"({a}, {b}]" for a, b in itertools.pairwise(bounds[:-1])]
            labels.append(f"({bounds[-2]}, inf)")
        elif spec.categories is not None and len(spec.categories):
            if spec.kind == "numeric-categories":
                labels = [_number(v) for v in spec.categories]
            else:
                labels = [str(v) for v in spec.categories]
        else:
            labels = ["(no value seen)"] * spec.n_categories
        if len(set(labels)) != len(labels):  # distinct values with one string form
            labels = [f"{label} #{k}" for k, label in enumerate(labels)]
        states.append(labels)
    return states


def _class_name(features: list[str]) -> str:
    name = "class"
    while name in features:
        name = "_" + name
    return name


def evidence_of(estimator: Any, X: Any) -> list[dict[str, str]]:
    """The rows of ``X`` as evidence for the exported network: per row, the state name
    of every observed feature, keyed by the variable name.

    What an exported model's engine needs to reproduce ``estimator.predict_proba(X)``:
    pyAgrum's ``setEvidence``, pgmpy's ``query(evidence=...)``. Missing values (and
    categories not seen at fit time, which discotree treats as missing) are left out,
    so the engine sums those features out as discotree does.

    Parameters
    ----------
    estimator : fitted discrete classifier
        Naive Bayes, Chow-Liu, TAN, k-tree or discriminative tree classifier.
    X : array-like or pandas.DataFrame of shape (n_samples, n_features)
        Rows in the format of the training data.

    Returns
    -------
    list of dict
        One ``{variable name: state name}`` per row. Variable names are those of
        :func:`write_xmlbif` and :func:`to_pgmpy` (the column names); :func:`write_bif`
        writes identifiers instead (other characters become ``_``).

    Examples
    --------
    >>> import numpy as np
    >>> from discotree import NaiveBayesClassifier
    >>> from discotree.io import evidence_of
    >>> X = np.array([[0, 1], [1, 1], [1, 0], [0, 0]] * 5, dtype=float)
    >>> clf = NaiveBayesClassifier(alpha=1.0).fit(X, [0, 1, 1, 0] * 5)
    >>> evidence_of(clf, np.array([[1.0, np.nan]]))
    [{'x0': '1'}]
    """
    _check_discrete(estimator)
    codes = estimator.encoder_.transform(check_table(X, type(estimator).__name__))
    features = feature_names_of(estimator)
    states = feature_states(estimator.encoder_)
    return [
        {
            features[j]: states[j][int(code)]
            for j, code in enumerate(row)
            if 0 <= code < len(states[j])
        }
        for row in codes
    ]


def _check_discrete(estimator: Any) -> None:
    if getattr(estimator, "distribution", "discrete") != "discrete":
        raise ValueError(
            f"{type(estimator).__name__} with distribution='gaussian' has no discrete "
            "network to export."
        )
    if not hasattr(estimator, "model_"):
        raise ValueError(f"{type(estimator).__name__} is not fitted.")


def checked_conditional(
    table: NDArray[np.float64], name: str, tolerance: float, where: str = "", hint: str = ""
) -> NDArray[np.float64]:
    """``table`` (parents' states..., own states) with each row renormalised, if it is a
    conditional distribution within ``tolerance`` (complete, finite, non-negative, rows
    summing to 1); else a ``ValueError`` naming ``name`` (after ``where``, then
    ``hint``). The one check of a table written to or read from a network file."""
    if np.isnan(table).any():
        missing = np.argwhere(np.isnan(table))[0][:-1]
        raise ValueError(f"{where}the table of {name!r} has no row {tuple(missing.tolist())}")
    if not np.isfinite(table).all() or (table < 0).any():
        raise ValueError(f"{where}the table of {name!r} has a negative or infinite entry{hint}")
    sums = table.sum(axis=-1, keepdims=True)
    worst = float(np.abs(sums - 1.0).max()) if sums.size else 0.0
    if worst > tolerance:
        raise ValueError(
            f"{where}the table of {name!r} is not a conditional distribution: a row sums to "
            f"{float(sums.ravel()[np.abs(sums - 1).argmax()]):.6g}, not 1 (tolerance "
            f"{tolerance}){hint}"
        )
    return table / sums


def _exported(table: NDArray[np.float64], name: str) -> NDArray[np.float64]:
    return checked_conditional(
        table,
        name,
        1e-9,
        hint="; only generatively parameterised models export to a Bayesian network.",
    )


def network_of(estimator: Any) -> Network:
    """The fitted naive Bayes, TAN or k-tree classifier as one network: the class node
    (no parents, the class prior) is a parent of every feature.

    Raises
    ------
    ValueError
        For per-class models (use :func:`class_networks`), Gaussian models, and
        parameters that are not conditional probabilities (CL-trained tables).
    """
    _check_discrete(estimator)
    model = estimator.model_
    features = feature_names_of(estimator)
    states = feature_states(estimator.encoder_)
    class_node = _class_name(features)
    classes = [str(c) for c in estimator.classes_]
    prior = np.exp(np.asarray(estimator.class_log_prior_, dtype=np.float64))
    variables = [Variable(class_node, classes, [], prior / prior.sum())]
    if isinstance(model, DiscreteForestModel):
        if not (model.parents == model.parents[0]).all():
            raise ValueError(
                f"{type(estimator).__name__} has one structure per class: export it with "
                "class_networks (one network per class)."
            )
        for j in range(len(features)):  # column order (no format needs another)
            p = int(model.parents[0, j])
            table = np.stack([np.exp(model.log_cpts[c][j]) for c in range(len(classes))])
            if p < 0:
                table, parents = table[:, 0, :], [class_node]
            else:
                parents = [class_node, features[p]]
            table = _exported(table, features[j])
            variables.append(Variable(features[j], states[j], parents, table))
    elif isinstance(model, BayesNetModel):
        for j in range(len(features)):
            parents = [class_node, *(features[p] for p in model.parents[j])]
            table = _exported(np.exp(model.log_cpts[j]), features[j])
            variables.append(Variable(features[j], states[j], parents, table))
    elif isinstance(model, KDependenceModel):
        for j in range(len(features)):
            if j not in model.attributes:  # no factor in the model: a constant one
                r = int(model.n_categories[j])
                variables.append(Variable(features[j], states[j], [], np.full(r, 1.0 / r)))
                continue
            parents = [class_node, *(features[p] for p in model.parents[j])]
            table = _exported(model.dense_table(j), features[j])
            variables.append(Variable(features[j], states[j], parents, table))
    else:
        raise ValueError(
            f"{type(estimator).__name__} has no single class-rooted network: export it "
            "with class_networks (one network per class)."
        )
    return Network(type(estimator).__name__, variables)


def class_networks(estimator: Any) -> tuple[list[Network], NDArray[np.float64]]:
    """A per-class model (Chow-Liu, or a binary discriminative tree pair) as one network
    per class over the features, and the class prior.

    Raises
    ------
    ValueError
        For models with a class node (use :func:`network_of`), multiclass
        discriminative trees (their pairwise forests are no generative model of each
        class) and Gaussian models.
    """
    _check_discrete(estimator)
    model = estimator.model_
    if not isinstance(model, DiscreteForestModel):
        raise ValueError(
            f"{type(estimator).__name__} has no per-class forests to export "
            "(multiclass discriminative trees vote between pairwise models)."
        )
    features = feature_names_of(estimator)
    states = feature_states(estimator.encoder_)
    networks = []
    for c, label in enumerate(estimator.classes_):
        variables = []
        for j in range(len(features)):
            p = int(model.parents[c, j])
            table = np.exp(model.log_cpts[c][j])
            if p < 0:
                table, parents = table[0], []
            else:
                parents = [features[p]]
            table = _exported(table, features[j])
            variables.append(Variable(features[j], states[j], parents, table))
        networks.append(
            Network(f"{type(estimator).__name__}_class_{bif_identifier(str(label))}", variables)
        )
    prior = np.exp(np.asarray(estimator.class_log_prior_, dtype=np.float64))
    return networks, prior / prior.sum()


def bif_identifier(text: str) -> str:
    """A BIF-safe identifier: letters, digits and underscores, not starting with a digit."""
    out = re.sub(r"[^0-9A-Za-z_]", "_", text)
    return out if out and not out[0].isdigit() else "_" + out


def _edge_weight(estimator: Any, c: int, i: int, j: int) -> float | None:
    """The weight that chose edge (i, j) in class c's structure: CMI (TAN-CMI), the
    training-score gain (discriminative TAN searches), MI (Chow-Liu), the
    discriminative weight of eq. 21 (discriminative trees)."""
    weights = getattr(estimator, "edge_weights_", None)
    if weights is None:
        return None
    weights = np.asarray(weights)
    if weights.ndim == 3:
        return float(weights[c, i, j])
    return float(weights[i, j])


def to_networkx(estimator: Any):
    """The learned structure as a ``networkx.DiGraph``.

    Nodes are the features (attribute ``states``) and, for class-rooted models (naive
    Bayes, TAN, k-trees), the class node (attribute ``is_class``), a parent of every
    feature. Each edge goes from parent to child and lists the ``classes`` whose
    structure has it (all of them for class-rooted models; Chow-Liu and discriminative
    trees learn one forest per class) and, per class, the ``weight`` that chose it
    (CMI, MI or the discriminative weight of eq. 21), where the model keeps it.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from discotree import TANClassifier
    >>> from discotree.io import to_networkx
    >>> graph = to_networkx(TANClassifier(alpha=1.0).fit(*load_iris(return_X_y=True)))
    >>> sorted(graph.predecessors("x2"))[:1], graph.number_of_edges()
    (['class'], 7)
    """
    import networkx as nx

    _check_discrete(estimator)
    features = feature_names_of(estimator)
    states = feature_states(estimator.encoder_)
    classes = [str(c) for c in estimator.classes_]
    graph = nx.DiGraph(name=type(estimator).__name__)
    for name, labels in zip(features, states, strict=True):
        graph.add_node(name, states=labels, is_class=False)
    model = estimator.model_
    rooted = not per_class_structure(estimator)
    if rooted:
        class_node = _class_name(features)
        graph.add_node(class_node, states=classes, is_class=True)
        for name in features:
            graph.add_edge(class_node, name, classes=classes, weight={})
    if isinstance(model, BayesNetModel):
        families = [[tuple(pa) for pa in model.parents]] * len(classes)
    elif isinstance(model, KDependenceModel):  # kDB: the parents of the attributes in use
        used = set(model.attributes)
        in_use = [tuple(pa) if j in used else () for j, pa in enumerate(model.parents)]
        families = [in_use] * len(classes)
    else:
        families = [[() if p < 0 else (int(p),) for p in row] for row in _parents_of(estimator)]
    for c, family in enumerate(families):
        for j, pa in enumerate(family):
            for p in pa:
                key = (features[p], features[j])
                if not graph.has_edge(*key):
                    graph.add_edge(*key, classes=[], weight={})
                data = graph.edges[key]
                if classes[c] not in data["classes"]:
                    data["classes"].append(classes[c])
                weight = _edge_weight(estimator, c, p, j)
                if weight is not None:
                    data["weight"][classes[c]] = weight
    return graph


def per_class_structure(estimator: Any) -> bool:
    """Whether the estimator learns one structure per class (Chow-Liu, discriminative
    trees: their ``structure_per_class`` class attribute) rather than one class-rooted
    network."""
    return bool(getattr(type(estimator), "structure_per_class", False))


def _parents_of(estimator: Any) -> NDArray[np.intp]:
    """Per-class parent arrays of a forest model (naive Bayes, Chow-Liu, binary DT)."""
    model = estimator.model_
    if isinstance(model, DiscreteForestModel):
        return model.parents
    raise ValueError(
        f"{type(estimator).__name__} keeps no single per-class structure (multiclass "
        "discriminative trees: one forest pair per pair of classes)."
    )


def to_pgmpy(estimator: Any) -> Any:
    """The fitted model as a ``pgmpy`` ``DiscreteBayesianNetwork`` (pgmpy must be
    installed; it is not a dependency): the class-rooted network of naive Bayes, TAN and
    k-trees (:func:`network_of`); per-class models (Chow-Liu, discriminative tree pairs)
    return a list with one network per class and the class prior (:func:`class_networks`).

    Raises
    ------
    ImportError
        If pgmpy is not installed.
    """
    try:
        from pgmpy.factors.discrete import TabularCPD
        from pgmpy.models import DiscreteBayesianNetwork
    except ImportError as err:
        raise ImportError(f"to_pgmpy needs pgmpy (pip install pgmpy): {err}") from None

    def convert(network: Network) -> Any:
        model = DiscreteBayesianNetwork()
        model.add_nodes_from([v.name for v in network.variables])
        model.add_edges_from([(p, v.name) for v in network.variables for p in v.parents])
        cards = {v.name: len(v.states) for v in network.variables}
        for v in network.variables:
            table = np.asarray(v.table)  # (parents' states..., own states)
            values = table.reshape(-1, len(v.states)).T  # own states x parent configurations
            state_names = {
                v.name: list(v.states),
                **{p: network.variable(p).states for p in v.parents},
            }
            model.add_cpds(
                TabularCPD(
                    v.name,
                    cards[v.name],
                    values,
                    evidence=v.parents or None,
                    evidence_card=[cards[p] for p in v.parents] or None,
                    state_names=state_names,
                )
            )
        model.check_model()
        return model

    if per_class_structure(estimator):
        networks, prior = class_networks(estimator)
        return [convert(n) for n in networks], prior
    return convert(network_of(estimator))
