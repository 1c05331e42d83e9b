"""BIF and XMLBIF files: the interchange formats that pyAgrum, pgmpy, bnlearn, Weka,
GeNIe and Netica read.

:func:`write_bif` / :func:`write_xmlbif` write a fitted naive Bayes, TAN or k-tree
classifier as one network whose class node is a parent of every feature, and a
Chow-Liu classifier or binary discriminative tree pair as one network per class (the
files ``<stem>_<class>.bif`` beside the class prior in ``<stem>_prior.bif``, a network
of the class node alone). :func:`read_bif` (and :func:`read_xmlbif`) reads a
class-rooted network back into a :class:`~discotree.models.bayes_net.BayesNetModel`,
through the checking parsers of :mod:`discotree.io.bif_reader`.

BIF needs identifiers: variable and state names are written with every character other
than letters, digits and ``_`` replaced by ``_`` (and made distinct); XMLBIF keeps the
names as they are (XML-escaped).

Examples
--------
>>> import tempfile, pathlib
>>> from sklearn.datasets import load_breast_cancer
>>> from discotree import TANClassifier
>>> from discotree.io import read_bif, write_bif
>>> X, y = load_breast_cancer(return_X_y=True, as_frame=True)
>>> clf = TANClassifier(alpha=1.0).fit(X, y)
>>> with tempfile.TemporaryDirectory() as folder:
...     path = write_bif(clf, pathlib.Path(folder) / "tan.bif")[0]
...     model = read_bif(path)
>>> bool(abs(model.joint_log_likelihood(clf.encoder_.transform(
...     __import__("discotree.validation", fromlist=["x"]).check_table(X, "x")))
...     - clf.predict_joint_log_proba(X)).max() < 1e-9)
True
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

import numpy as np
from numpy.typing import NDArray

from ..models.bayes_net import BayesNetModel
from ..models.networks import (
    Network,
    Variable,
    bif_identifier,
    class_networks,
    network_of,
    per_class_structure,
)
from ..output_files import write_text
from .bif_reader import read_bif_network, read_xmlbif_network

__all__ = ["class_rooted_model", "read_bif", "read_xmlbif", "write_bif", "write_xmlbif"]


def _networks(estimator: Any) -> list[tuple[str, Network]]:
    """("", one network) for class-rooted models, else (suffix, network) for each class
    and the prior (Chow-Liu and discriminative trees: one model per class)."""
    if not per_class_structure(estimator):
        return [("", network_of(estimator))]
    networks, prior = class_networks(estimator)
    classes = [str(c) for c in estimator.classes_]
    out = [(f"_{bif_identifier(c)}", n) for c, n in zip(classes, networks, strict=True)]
    prior_net = Network(
        f"{type(estimator).__name__}_prior", [Variable("class", classes, [], prior)]
    )
    return [*out, ("_prior", prior_net)]


def _paths(path: str | Path, suffixes: list[str]) -> list[Path]:
    path = Path(path)
    return [path.with_name(f"{path.stem}{s}{path.suffix}") for s in suffixes]


def _number(p: float) -> str:
    return repr(float(p))


def _distinct_identifiers(names: list[str]) -> list[str]:
    out: list[str] = []
    for name in names:
        candidate = bif_identifier(name)
        while candidate in out:
            candidate += "_"
        out.append(candidate)
    return out


def _bif_text(network: Network) -> str:
    names = dict(zip(
        [v.name for v in network.variables],
        _distinct_identifiers([v.name for v in network.variables]),
        strict=True,
    ))  # fmt: skip
    states = {v.name: _distinct_identifiers(v.states) for v in network.variables}
    lines = [f"network {bif_identifier(network.name)} {{", "}"]
    for v in network.variables:
        lines += [
            f"variable {names[v.name]} {{",
            f"  type discrete [ {len(v.states)} ] {{ {', '.join(states[v.name])} }};",
            "}",
        ]
    for v in network.variables:
        head = names[v.name]
        if not v.parents:
            lines += [
                f"probability ( {head} ) {{",
                "  table " + ", ".join(map(_number, v.cpt)) + ";",
                "}",
            ]
            continue
        given = ", ".join(names[p] for p in v.parents)
        lines.append(f"probability ( {head} | {given} ) {{")
        shape = v.cpt.shape[:-1]
        for config in np.ndindex(*shape):
            labels = ", ".join(states[p][k] for p, k in zip(v.parents, config, strict=True))
            lines.append(f"  ({labels}) " + ", ".join(map(_number, v.cpt[config])) + ";")
        lines.append("}")
    return "\n".join(lines) + "\n"


def _xmlbif_text(network: Network) -> str:
    lines = [
        '<?xml version="1.0"?>',
        '<BIF VERSION="0.3">',
        "<NETWORK>",
        f"<NAME>{escape(network.name)}</NAME>",
    ]
    for v in network.variables:
        lines.append('<VARIABLE TYPE="nature">')
        lines.append(f"  <NAME>{escape(v.name)}</NAME>")
        lines += [f"  <OUTCOME>{escape(s)}</OUTCOME>" for s in v.states]
        lines.append("</VARIABLE>")
    for v in network.variables:
        lines.append("<DEFINITION>")
        lines.append(f"  <FOR>{escape(v.name)}</FOR>")
        lines += [f"  <GIVEN>{escape(p)}</GIVEN>" for p in v.parents]
        flat = " ".join(map(_number, np.asarray(v.table).ravel()))  # the last variable fastest
        lines.append(f"  <TABLE>{flat}</TABLE>")
        lines.append("</DEFINITION>")
    lines += ["</NETWORK>", "</BIF>"]
    return "\n".join(lines) + "\n"


def write_bif(estimator: Any, path: str | Path) -> list[Path]:
    """Write a fitted discrete graphical-model classifier as BIF.

    Returns
    -------
    list of Path
        The file written (one network), or for per-class models one file per class
        and one for the class prior (``stem_<class>.bif``, ``stem_prior.bif``).
    """
    return _write(estimator, path, _bif_text)


def write_xmlbif(estimator: Any, path: str | Path) -> list[Path]:
    """Write a fitted discrete graphical-model classifier as XMLBIF 0.3 (names as they
    are); files as :func:`write_bif`."""
    return _write(estimator, path, _xmlbif_text)


def _write(estimator: Any, path: str | Path, text_of) -> list[Path]:
    parts = _networks(estimator)
    targets = _paths(path, [suffix for suffix, _ in parts])
    for (_, network), target in zip(parts, targets, strict=True):
        write_text(target, text_of(network))
    return targets


def read_bif(path: str | Path, class_variable: str | None = None) -> BayesNetModel:
    """Read a class-rooted network (as :func:`write_bif` writes for naive Bayes, TAN and
    k-trees) into a :class:`~discotree.models.bayes_net.BayesNetModel`.

    The class variable is ``class_variable``, or else the one variable without parents
    that is a parent of every other. Features keep the file's order. The file is
    parsed and checked by :func:`~discotree.io.bif_reader.read_bif_network`.

    Raises
    ------
    ValueError
        If the file is not BIF (XMLBIF is read by :func:`read_xmlbif`), fails a check
        of the parser, or no class variable is found or given.
    """
    return class_rooted_model(read_bif_network(path), path, class_variable)


def read_xmlbif(path: str | Path, class_variable: str | None = None) -> BayesNetModel:
    """:func:`read_bif` for XMLBIF 0.3 files (parsed safely, see
    :func:`~discotree.io.bif_reader.read_xmlbif_network`)."""
    return class_rooted_model(read_xmlbif_network(path), path, class_variable)


def class_rooted_model(
    network: Network, path: str | Path, class_variable: str | None = None
) -> BayesNetModel:
    """The :class:`~discotree.models.bayes_net.BayesNetModel` of a network whose class
    variable is a root and a parent of every other variable."""
    names = [v.name for v in network.variables]
    if class_variable is None:
        roots = [
            v.name
            for v in network.variables
            if not v.parents and all(v.name in w.parents for w in network.variables if w is not v)
        ]
        if len(roots) != 1:
            raise ValueError(f"{path}: no class variable (a root parent of every other); name it")
        class_variable = roots[0]
    if class_variable not in names:
        raise ValueError(f"{path}: no variable named {class_variable!r}")
    features = [n for n in names if n != class_variable]
    position = {n: k for k, n in enumerate(features)}
    cls = network.variable(class_variable)
    parents, log_cpts = [], []
    for name in features:
        v = network.variable(name)
        if class_variable not in v.parents:
            raise ValueError(f"{path}: {name} does not have the class as a parent")
        others = [p for p in v.parents if p != class_variable]
        axes = [v.parents.index(class_variable), *(v.parents.index(p) for p in others)]
        table: NDArray[np.float64] = np.transpose(v.cpt, [*axes, len(v.parents)])
        parents.append(tuple(position[p] for p in others))
        with np.errstate(divide="ignore"):
            log_cpts.append(np.log(table))
    n_categories = np.array([len(network.variable(n).states) for n in features], dtype=np.intp)
    with np.errstate(divide="ignore"):
        prior = np.log(np.asarray(cls.table, dtype=np.float64))
    return BayesNetModel(n_categories, parents, log_cpts, prior)
