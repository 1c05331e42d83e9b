"""Model files in JSON: a fitted estimator stored as data, loaded without running code.

A pickle names code to run when loaded; this format names nothing but data. Every
value is JSON: arrays as their dtype, shape and little-endian bytes (base64, so floats
come back bit for bit), tuples, sets, dicts and non-finite floats tagged, and objects as
the name of a class from a fixed list of discotree's own (estimators, encoders,
discretisers, models, structures) with their attributes. Loading builds those objects
from their attributes without calling any constructor or method; a file that names a
class outside the list, or holds anything else, is refused.

Examples
--------
>>> import tempfile, pathlib
>>> from sklearn.datasets import load_iris
>>> from discotree import TANClassifier
>>> from discotree.io import load_json, save_json
>>> X, y = load_iris(return_X_y=True)
>>> clf = TANClassifier().fit(X, y)
>>> path = pathlib.Path(tempfile.mkdtemp()) / "tan.json"
>>> save_json(clf, path)
>>> bool((load_json(path).predict_proba(X) == clf.predict_proba(X)).all())
True
"""

from __future__ import annotations

import base64
import json
import math
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["FORMAT", "dumps", "load_json", "loads", "save_json"]

#: The "format" field of every file.
FORMAT = "discotree-model"
_VERSION = 1


def _registry() -> dict[str, type]:
    """The classes a file may name: discotree's estimators and the objects they hold."""
    from .. import classifiers
    from ..classifiers._forest_pairs import _ForestPair
    from ..classifiers._incremental import _Stream
    from ..classifiers.boosting import _Ensemble, _Round
    from ..models.bayes_net import BayesNetModel
    from ..models.discrete_forest import DiscreteForestModel
    from ..models.gaussian_forest import GaussianForestModel
    from ..models.lgmht_altmax import AltmaxResult
    from ..stats.discrete import PairStatistics
    from ..stats.gaussian import GaussianStatistics
    from ..structure.discriminative import ForestPath
    from ..structure.ear import EARSplit, EARTree
    from ..sufficient_statistics import StatisticsSchema
    from ..transformers.discretizer import Discretizer
    from ..transformers.encoder import NumericEncoder, TableEncoder, _Column

    allowed = [
        classifiers.NaiveBayesClassifier,
        classifiers.ChowLiuClassifier,
        classifiers.TANClassifier,
        classifiers.DiscriminativeTreeClassifier,
        classifiers.BoostedGraphicalModelClassifier,
        classifiers.EARTreeClassifier,
        TableEncoder,
        NumericEncoder,
        _Column,
        Discretizer,
        DiscreteForestModel,
        BayesNetModel,
        GaussianForestModel,
        PairStatistics,
        GaussianStatistics,
        ForestPath,
        _ForestPair,
        AltmaxResult,
        _Ensemble,
        _Round,
        EARSplit,
        EARTree,
        StatisticsSchema,
        _Stream,
    ]
    names = {f"{cls.__module__}.{cls.__qualname__}": cls for cls in allowed}
    # files written before _ForestPair moved to its own module (session 6)
    names["discotree.classifiers.discriminative_tree._ForestPair"] = _ForestPair
    return names


def _encode(value: Any, registry_names: dict[type, str]) -> Any:
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {"__float__": repr(value)}
    if isinstance(value, np.ndarray):
        if value.dtype.kind == "O":
            return {
                "__ndarray__": "object",
                "shape": list(value.shape),
                "items": [_encode(v, registry_names) for v in value.ravel().tolist()],
            }
        if value.dtype.kind not in "biufUS":
            raise TypeError(f"cannot store an array of dtype {value.dtype} in a JSON model")
        data = np.ascontiguousarray(value, dtype=value.dtype.newbyteorder("<"))
        return {
            "__ndarray__": data.dtype.str,
            "shape": list(value.shape),
            "bytes": base64.b64encode(data.tobytes()).decode("ascii"),
        }
    if isinstance(value, np.generic):
        return _encode(value.item(), registry_names)
    if isinstance(value, np.dtype):
        return {"__dtype__": value.str}
    if isinstance(value, tuple):
        return {"__tuple__": [_encode(v, registry_names) for v in value]}
    if isinstance(value, list):
        return [_encode(v, registry_names) for v in value]
    if isinstance(value, set | frozenset):
        return {"__set__": [_encode(v, registry_names) for v in value]}
    if isinstance(value, dict):
        return {
            "__dict__": [
                [_encode(k, registry_names), _encode(v, registry_names)] for k, v in value.items()
            ]
        }
    name = registry_names.get(type(value))
    if name is None:
        raise TypeError(
            f"cannot store a {type(value).__module__}.{type(value).__qualname__} in a JSON "
            "model file (only discotree's own estimators and models); use the pickle format."
        )
    return {"__object__": name, "state": _encode(dict(vars(value)), registry_names)}


def _decode(value: Any, registry: dict[str, type]) -> Any:
    if isinstance(value, list):
        return [_decode(v, registry) for v in value]
    if not isinstance(value, dict):
        return value
    if "__ndarray__" in value:
        shape = tuple(value["shape"])
        if value["__ndarray__"] == "object":
            items = [_decode(v, registry) for v in value["items"]]
            out = np.empty(len(items), dtype=object)
            out[:] = items
            return out.reshape(shape)
        dtype = np.dtype(value["__ndarray__"])
        if dtype.kind not in "biufUS":
            raise ValueError(f"a JSON model file holds an array of dtype {dtype}")
        data = np.frombuffer(base64.b64decode(value["bytes"]), dtype=dtype)
        return data.astype(dtype.newbyteorder("="), copy=True).reshape(shape)
    if "__float__" in value:
        return float(value["__float__"])
    if "__dtype__" in value:
        return np.dtype(value["__dtype__"])
    if "__tuple__" in value:
        return tuple(_decode(v, registry) for v in value["__tuple__"])
    if "__set__" in value:
        return {_decode(v, registry) for v in value["__set__"]}
    if "__dict__" in value:
        return {_decode(k, registry): _decode(v, registry) for k, v in value["__dict__"]}
    if "__object__" in value:
        cls = registry.get(value["__object__"])
        if cls is None:
            raise ValueError(
                f"a JSON model file names the class {value['__object__']!r}, which is not "
                "one of discotree's model classes: refused."
            )
        obj: Any = object.__new__(cls)
        obj.__dict__.update(_decode(value["state"], registry))
        return obj
    raise ValueError(f"a JSON model file holds an unknown value {sorted(value)!r}")


def dumps(content: Any) -> str:
    """``content`` (an estimator, or a dict or list holding some) as JSON text."""
    from .. import __version__

    names: dict[type, str] = {}
    for name, cls in _registry().items():  # the first name of a class is the one written
        names.setdefault(cls, name)
    document = {
        "format": FORMAT,
        "version": _VERSION,
        "discotree": __version__,
        "content": _encode(content, names),
    }
    return json.dumps(document, separators=(",", ":"))


def loads(text: str) -> Any:
    """The content of :func:`dumps`'s text.

    Raises
    ------
    ValueError
        If the text is not such a file, is of a newer format version, or names a class
        that is not one of discotree's model classes.
    """
    try:
        document = json.loads(text)
    except json.JSONDecodeError as err:
        raise ValueError(f"not a JSON model file: {err}") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ValueError("not a discotree JSON model file (no 'format': 'discotree-model')")
    if document.get("version", 0) > _VERSION:
        raise ValueError(
            f"the JSON model file has format version {document['version']}; this discotree "
            f"reads up to {_VERSION}: upgrade discotree."
        )
    return _decode(document["content"], _registry())


def save_json(content: Any, path: str | Path) -> None:
    """Write ``content`` (a fitted estimator, or a dict holding one) to ``path``."""
    Path(path).write_text(dumps(content))


def load_json(path: str | Path) -> Any:
    """Read a file written by :func:`save_json` (no code runs; see the module notes)."""
    return loads(Path(path).read_text())
