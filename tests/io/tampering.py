"""Tampering with JSON model files: small fitted models written as JSON documents, and
edits of one field of a document (tests/io/test_model_numbers.py,
tests/io/test_estimator_numbers.py)."""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

import discotree
from discotree.io.json_model import FORMAT, dumps, loads

#: Small models of every kind the JSON reader loads, by name.
MAKERS: dict[str, Callable[[], Any]] = {
    "kdb": lambda: discotree.KDBClassifier(k=2, selective=False),
    "kdb-hierarchical": lambda: discotree.KDBClassifier(
        k=2, selective=False, smoothing="hierarchical"
    ),
    "a1de": lambda: discotree.AODEClassifier(),
    "a2de": lambda: discotree.AODEClassifier(2),
    "ensemble": lambda: discotree.KDBEnsembleClassifier(
        n_estimators=2,
        estimator=discotree.KDBClassifier(2, smoothing="hierarchical"),
        linear_weight=0.3,
        pair_weight=0.3,
    ),
    "tan": lambda: discotree.TANClassifier(alpha=1.0),
    "naive-bayes": lambda: discotree.NaiveBayesClassifier(alpha=1.0),
    "bayes-net": lambda: discotree.TANClassifier(alpha=1.0, k=2),
    "gaussian": lambda: discotree.TANClassifier(distribution="gaussian"),
    "tree": lambda: discotree.DiscriminativeTreeClassifier(alpha=1.0),
    "tree-gaussian": lambda: discotree.DiscriminativeTreeClassifier(distribution="gaussian"),
    "boosting": lambda: discotree.BoostedGraphicalModelClassifier(n_estimators=2, alpha=1.0),
    "ear": lambda: discotree.EARTreeClassifier(),
    "chow-liu": lambda: discotree.ChowLiuClassifier(alpha=1.0),
}


def data() -> tuple[np.ndarray, np.ndarray]:
    """90 rows: a numeric column (binned) and three categorical ones; two classes."""
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(size=90), rng.integers(0, 3, (90, 3))])
    y = ((X[:, 0] > 0) ^ (X[:, 1] == 1)).astype(int)
    return X, y


def fit_models(names: list[str]) -> tuple[dict[str, Any], np.ndarray]:
    """The models ``names`` fitted on :func:`data`, and a streaming naive Bayes with
    new rows not yet learnt (``"stream"``, a class never seen)."""
    X, y = data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        models = {name: MAKERS[name]().fit(X, y) for name in names}
    models["stream"] = discotree.NaiveBayesClassifier(alpha=1.0).partial_fit(
        X, y, classes=[0, 1, 2]
    )
    return models, X


def document(model: Any) -> dict:
    """The JSON document of ``model``."""
    return json.loads(dumps(model))


def locate(doc: dict, path: tuple) -> tuple[Any, Any]:
    """``(container, key)`` of the JSON value at ``path`` (field names and indices,
    from the content down) in ``doc``: ``container[key]`` is that value."""
    container, key = doc, "content"
    for step in path:
        node = container[key]
        if isinstance(node, dict) and "__object__" in node:
            node = node["state"]
        if isinstance(node, dict) and "__dict__" in node:
            pairs = [pair for pair in node["__dict__"] if pair[0] == step]
            if not pairs:
                raise KeyError(f"no field {step!r} on the way to {path}")
            container, key = pairs[0], 1
            continue
        if isinstance(node, dict) and "__tuple__" in node:
            node = node["__tuple__"]
        elif isinstance(node, dict) and node.get("__ndarray__") == "object":
            node = node["items"]
        container, key = node, step
    return container, key


def decoded(node: Any) -> Any:
    """The value of a JSON node (through the reader)."""
    return loads(json.dumps({"format": FORMAT, "version": 1, "content": node}))


def encoded(value: Any) -> Any:
    """The JSON node of a value."""
    return json.loads(dumps(value))["content"]


def tampered(doc: dict, path: tuple, edit: Any) -> str:
    """The text of ``doc`` with the value at ``path`` edited: ``edit`` is a function
    of the decoded value returning the new one, :data:`ABSENT` (the field removed), or
    a value to store instead."""
    container, key = locate(doc, path)
    if edit is ABSENT:
        owner, field = locate(doc, path[:-1])
        node = owner[field]
        state = node["state"] if "__object__" in node else node
        state["__dict__"] = [pair for pair in state["__dict__"] if pair[0] != path[-1]]
    elif callable(edit):
        container[key] = encoded(edit(decoded(container[key])))
    else:
        container[key] = encoded(edit)
    return json.dumps(doc)


#: An edit that removes the field.
ABSENT = object()


def at(index: Any, value: Any) -> Callable[[Any], Any]:
    """An edit: the array with ``value`` at ``index``."""

    def edit(array: np.ndarray) -> np.ndarray:
        array = np.array(array)
        array[index] = value
        return array

    return edit


def unnormalised(array: np.ndarray) -> np.ndarray:
    """An edit of log-probabilities: the largest probability halved."""
    array = np.array(array, dtype=np.float64)
    array.flat[int(np.argmax(array))] += np.log(0.5)
    return array


def field_pattern(path: tuple) -> str:
    """The regular expression of the error's field (``content.model_.tables\\[1\\]``)."""
    text = "content" + "".join(f"[{s}]" if isinstance(s, int) else f".{s}" for s in path)
    return "^" + text.replace(".", r"\.").replace("[", r"\[").replace("]", r"\]")


def assert_refused(fitted: tuple, name: str, path: tuple, edit: Any, match=None) -> None:
    """Loading the file of the model ``name`` of ``fitted`` (models, their JSON texts,
    X), with the field at ``path`` edited by ``edit``, is refused naming the field."""
    import pytest

    _, texts, _ = fitted
    text = tampered(json.loads(texts[name]), path, edit)
    with pytest.raises(ValueError, match=match or field_pattern(path)):
        loads(text)
