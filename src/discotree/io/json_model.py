"""Model files in JSON: a fitted estimator stored as data, loaded without running code.

A pickle names code to run when loaded; this format names nothing but data. Every
value is JSON: arrays as their dtype, shape and little-endian bytes (base64, so floats
come back bit for bit), tuples, sets, dicts and non-finite floats tagged, and objects as
the name of a class registered as storable (:mod:`discotree.stored_classes`:
discotree's estimators, encoders, discretisers, models, structures) with their
attributes. Loading builds those objects
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

from ..config import check_file_size
from ..migrations import FORMAT_VERSION, LEGACY_NAMES, upgrade
from ..models.file_checks import StoredModel
from ..output_files import write_text
from ..stored_classes import stored_classes
from .estimator_numbers import check_numbers, check_object_numbers
from .model_checks import (
    MAX_DEPTH,
    check_consistency,
    check_fields,
    derived_names,
    nesting_depth,
)

__all__ = ["FORMAT", "dumps", "load_json", "loads", "save_json"]

#: The "format" field of every file.
FORMAT = "discotree-model"
_VERSION = FORMAT_VERSION


def _registry() -> dict[str, type]:
    """The classes a file may name: those registered in
    :mod:`discotree.stored_classes` (discotree's estimators and the objects they hold),
    by their current names and by the names of files of earlier versions
    (:data:`discotree.migrations.LEGACY_NAMES`)."""
    from .. import classifiers  # noqa: F401  (the estimators import what they store)

    names = stored_classes()
    for old, new in LEGACY_NAMES.items():
        names[old] = names[new]
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
    if isinstance(value, StoredModel):  # a model says what it stores
        state = value.state()
    else:  # a class with its own __getstate__ stores that (not derived caches)
        own = "__getstate__" in type(value).__dict__
        state = value.__getstate__() if own else dict(vars(value))
    derived = derived_names(type(value))  # (cached values: recomputed when read)
    state = {k: v for k, v in state.items() if k not in derived}
    return {"__object__": name, "state": _encode(state, registry_names)}


def _shape(value: Any, where: str) -> tuple[int, ...]:
    shape = value.get("shape")
    if not isinstance(shape, list) or any(
        isinstance(n, bool) or not isinstance(n, int) or n < 0 for n in shape
    ):
        raise ValueError(f"{where}: an array's 'shape' must be a list of integers >= 0")
    return tuple(shape)


def _expect_keys(value: dict, keys: set[str], where: str) -> None:
    if set(value) != keys:
        raise ValueError(
            f"{where}: a stored {next(iter(sorted(keys)))} needs the fields {sorted(keys)}, "
            f"found {sorted(value)}"
        )


def _decode_array(value: dict, registry: dict[str, type], where: str) -> Any:
    shape = _shape(value, where)
    size = math.prod(shape)
    if value["__ndarray__"] == "object":
        _expect_keys(value, {"__ndarray__", "shape", "items"}, where)
        if not isinstance(value["items"], list) or len(value["items"]) != size:
            raise ValueError(f"{where}: an object array of shape {shape} needs {size} items")
        items = [_decode(v, registry, f"{where}[{k}]") for k, v in enumerate(value["items"])]
        out = np.empty(len(items), dtype=object)
        out[:] = items
        return out.reshape(shape)
    _expect_keys(value, {"__ndarray__", "shape", "bytes"}, where)
    try:
        dtype = np.dtype(value["__ndarray__"])
    except (TypeError, ValueError):
        raise ValueError(f"{where}: {value['__ndarray__']!r} is not an array dtype") from None
    if dtype.kind not in "biufUS" or dtype.hasobject:
        raise ValueError(f"{where}: a JSON model file holds an array of dtype {dtype}")
    if not isinstance(value["bytes"], str):
        raise ValueError(f"{where}: an array's 'bytes' must be base64 text")
    try:
        raw = base64.b64decode(value["bytes"], validate=True)
    except ValueError:
        raise ValueError(f"{where}: an array's 'bytes' are not base64") from None
    if len(raw) != size * dtype.itemsize:
        raise ValueError(
            f"{where}: an array of shape {shape} and dtype {dtype} needs "
            f"{size * dtype.itemsize} bytes, found {len(raw)}"
        )
    data = np.frombuffer(raw, dtype=dtype)
    return data.astype(dtype.newbyteorder("="), copy=True).reshape(shape)


def _hashable(item: Any, where: str) -> Any:
    try:
        hash(item)
    except TypeError:
        raise ValueError(f"{where}: a set member or dictionary key must be a value") from None
    return item


class _BareConstant:
    """A ``NaN``, ``Infinity`` or ``-Infinity`` token of the text: :func:`dumps` never
    writes one (it stores non-finite floats tagged, ``{"__float__": "nan"}``), so
    :func:`loads` refuses it, naming where it is."""

    __slots__ = ("token",)

    def __init__(self, token: str) -> None:
        self.token = token

    def __repr__(self) -> str:
        return self.token


def _bare_constant(where: str, token: Any) -> ValueError:
    return ValueError(
        f"{where}: a bare {token!r} token; a JSON model file stores a non-finite float as "
        '{"__float__": "nan"} (or "inf", "-inf"), never as a token'
    )


def _decode(value: Any, registry: dict[str, type], where: str = "content") -> Any:
    """The value stored as ``value``; every tagged value is checked, and an error names
    the path to it (``content.model.classes_``)."""
    if isinstance(value, _BareConstant):
        raise _bare_constant(where, value)
    if isinstance(value, list):
        return [_decode(v, registry, f"{where}[{k}]") for k, v in enumerate(value)]
    if not isinstance(value, dict):
        return value
    if "__ndarray__" in value:
        return _decode_array(value, registry, where)
    if "__float__" in value:
        _expect_keys(value, {"__float__"}, where)
        if value["__float__"] not in ("nan", "inf", "-inf"):
            raise ValueError(f"{where}: {value['__float__']!r} is not a non-finite float")
        return float(value["__float__"])
    if "__dtype__" in value:
        _expect_keys(value, {"__dtype__"}, where)
        try:
            dtype = np.dtype(value["__dtype__"])
        except (TypeError, ValueError):
            raise ValueError(f"{where}: {value['__dtype__']!r} is not a dtype") from None
        if dtype.hasobject:
            raise ValueError(f"{where}: a JSON model file holds the dtype {dtype}")
        return dtype
    for tag in ("__tuple__", "__set__", "__dict__"):
        if tag in value:
            _expect_keys(value, {tag}, where)
            if not isinstance(value[tag], list):
                raise ValueError(f"{where}: a stored {tag} must hold a list")
    if "__tuple__" in value:
        return tuple(
            _decode(v, registry, f"{where}[{k}]") for k, v in enumerate(value["__tuple__"])
        )
    if "__set__" in value:
        return {
            _hashable(_decode(v, registry, f"{where}[{k}]"), where)
            for k, v in enumerate(value["__set__"])
        }
    if "__dict__" in value:
        out = {}
        for k, pair in enumerate(value["__dict__"]):
            if not isinstance(pair, list) or len(pair) != 2:
                raise ValueError(f"{where}: dictionary entry {k} is not a [key, value] pair")
            key = _hashable(_decode(pair[0], registry, f"{where}[{k}]"), where)
            label = key if isinstance(key, str) else f"[{key!r}]"
            out[key] = _decode(pair[1], registry, f"{where}.{label}")
        return out
    if "__object__" in value:
        _expect_keys(value, {"__object__", "state"}, where)
        cls = registry.get(value["__object__"]) if isinstance(value["__object__"], str) else None
        if cls is None:
            raise ValueError(
                f"{where}: a JSON model file names the class {value['__object__']!r}, which "
                "is not one of discotree's model classes: refused."
            )
        state = _decode(value["state"], registry, where)
        if not isinstance(state, dict) or not all(
            isinstance(k, str) and k.isidentifier() for k in state
        ):
            raise ValueError(f"{where}: the state of a {cls.__name__} must map names to values")
        state = upgrade(cls, state)  # files of earlier versions
        check_fields(cls, state, where)
        derived = derived_names(cls)  # cached values an earlier version stored: dropped,
        state = {k: v for k, v in state.items() if k not in derived}  # never trusted
        obj: Any = object.__new__(cls)
        if issubclass(cls, StoredModel):  # a model rebuilds itself from its state
            try:
                return cls.from_state(state)
            except ValueError as err:  # refused: the numbers' check names the field
                obj.__dict__.update(state)
                check_object_numbers(obj, where)
                raise ValueError(f"{where}: {err}") from None
        if "__setstate__" not in cls.__dict__ or "__getstate__" not in cls.__dict__:
            obj.__dict__.update(state)
            return obj
        try:
            obj.__setstate__(state)  # recomputes what it derives from the fields
        except ValueError as err:  # refused: the numbers' check names the field, if it can
            bare: Any = object.__new__(cls)
            bare.__dict__.update(state)
            check_object_numbers(bare, where)
            raise ValueError(f"{where}: {err}") from None
        return obj
    raise ValueError(f"{where}: a JSON model file holds an unknown value {sorted(value)!r}")


def dumps(content: Any) -> str:
    """``content`` (an estimator, or a dict or list holding some) as JSON text."""
    from .. import __version__

    names: dict[type, str] = {}
    for name, cls in _registry().items():  # current names first: the ones written
        names.setdefault(cls, name)
    document = {
        "format": FORMAT,
        "version": _VERSION,
        "discotree": __version__,
        "content": _encode(content, names),
    }
    # (non-finite floats are tagged by _encode: a NaN or Infinity token is never written)
    return json.dumps(document, separators=(",", ":"), allow_nan=False)


def loads(text: str) -> Any:
    """The content of :func:`dumps`'s text.

    The text is checked before it is used: nesting at most
    :data:`~discotree.io.model_checks.MAX_DEPTH` deep, every stored value of a known
    kind with the fields it needs, every object of one of discotree's classes with the
    fields of that class, and the fitted arrays consistent with each other (each
    classifier's classes against its model's tables, its encoder's categories against
    the codes the model reads), and their numbers those a fitted model holds (finite,
    counts >= 0, distributions normalised, indices in range, no fitted attribute
    missing or null: :mod:`discotree.io.model_numbers`).

    Raises
    ------
    ValueError
        If the text is not such a file, is of a newer format version, names a class
        that is not one of discotree's model classes, or fails a check above; the
        message names the field (``content.model.classes_: ...``).
    """
    depth = nesting_depth(text)
    if depth > MAX_DEPTH:
        raise ValueError(
            f"not a JSON model file: nested {depth} deep, more than the {MAX_DEPTH} a model needs"
        )
    try:
        document = json.loads(text, parse_constant=_BareConstant)
    except (json.JSONDecodeError, RecursionError) as err:
        raise ValueError(f"not a JSON model file: {err}") from None
    for key, value in document.items() if isinstance(document, dict) else ():
        if isinstance(value, _BareConstant):
            raise _bare_constant(key, value)
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ValueError("not a discotree JSON model file (no 'format': 'discotree-model')")
    version = document.get("version", 0)
    if isinstance(version, bool) or not isinstance(version, int):
        raise ValueError(f"version: must be an integer, got {version!r}")
    if version > _VERSION:
        raise ValueError(
            f"the JSON model file has format version {version}; this discotree "
            f"reads up to {_VERSION}: upgrade discotree."
        )
    if "content" not in document:
        raise ValueError("content: missing (a JSON model file stores its model there)")
    content = _decode(document["content"], _registry())
    check_consistency(content)
    check_numbers(content)
    return content


def save_json(content: Any, path: str | Path) -> None:
    """Write ``content`` (a fitted estimator, or a dict holding one) to ``path``, whole
    or not at all (:func:`discotree.output_files.write_text`)."""
    write_text(path, dumps(content))


def load_json(path: str | Path) -> Any:
    """Read a file written by :func:`save_json` (no code runs; see the module notes).

    Files larger than the ``model_file_limit`` configuration key are refused before
    they are read; then the checks of :func:`loads` apply.
    """
    check_file_size(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise ValueError(f"not a JSON model file: {err}") from None
    return loads(text)
