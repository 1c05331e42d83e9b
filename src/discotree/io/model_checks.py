"""Checks of a JSON model file before and after decoding: size, nesting depth, the
fields of every object, and the consistency of the fitted arrays."""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from collections.abc import Iterator
from typing import Any

import numpy as np

from ..kernels.text_scan import json_nesting_depth
from ..models.file_checks import StoredModel, check_counts, check_shape
from ..models.file_checks import fail as _fail

__all__ = ["MAX_DEPTH", "check_consistency", "check_fields", "nesting_depth", "walk_objects"]

#: Deepest nesting of JSON arrays and objects a model file may have (the deepest
#: estimator written by discotree, a boosted ensemble, is nested about 20 deep).
MAX_DEPTH = 200


def nesting_depth(text: str) -> int:
    """The deepest nesting of ``[`` and ``{`` outside JSON strings (one linear pass).

    Examples
    --------
    >>> nesting_depth('{"a": [1, {"b": "[[["}]}')
    3
    """
    return json_nesting_depth(text.encode("utf-8", "surrogatepass"))


def _matches(value: Any, hint: Any) -> bool:
    """Whether ``value`` has the type ``hint`` names (containers: the container only)."""
    if hint is Any or isinstance(hint, typing.TypeVar):
        return True
    origin = typing.get_origin(hint)
    if origin is typing.Union or origin is types.UnionType:
        return any(_matches(value, h) for h in typing.get_args(hint))
    if origin is typing.Literal:
        return value in typing.get_args(hint)
    if origin is not None:
        hint = origin
    if hint is type(None):
        return value is None
    if hint is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if not isinstance(hint, type):
        return True  # a callable, a protocol: not checked
    if hint is frozenset:  # stored as a set
        return isinstance(value, set | frozenset)
    return isinstance(value, hint)


@functools.cache
def _field_hints(cls: type) -> dict[str, Any] | None:
    """The declared fields of a dataclass and their types (None: not a dataclass)."""
    if not dataclasses.is_dataclass(cls):
        return None
    try:
        hints = typing.get_type_hints(cls)
    except Exception:  # a forward reference that does not resolve: names only
        hints = {}
    return {f.name: hints.get(f.name, Any) for f in dataclasses.fields(cls)}


def _derived_names(cls: type) -> set[str]:
    """Attributes a class computes and caches in its instance dictionary."""
    return {
        name
        for klass in cls.__mro__
        for name, member in vars(klass).items()
        if isinstance(member, functools.cached_property)
    }


def check_fields(cls: type, state: dict[str, Any], where: str) -> None:
    """Refuse a stored object whose fields are not those of ``cls``: a dataclass needs
    every field, each of its declared type, and no other public name (cached values
    and private caches aside); an
    estimator needs every constructor parameter. The error names the field."""
    hints = _field_hints(cls)
    if hints is not None:
        for name, hint in hints.items():
            if name not in state:
                raise ValueError(f"{where}: the field {name!r} of {cls.__name__} is missing")
            if not _matches(state[name], hint):
                raise ValueError(
                    f"{where}.{name}: expected {hint}, found {type(state[name]).__name__}"
                )
        # private names are caches a method filled (recomputed if absent)
        extra = {n for n in set(state) - set(hints) - _derived_names(cls) if n[0] != "_"}
        if extra:
            raise ValueError(f"{where}: {cls.__name__} has no field {sorted(extra)[0]!r}")
        return
    get_params = getattr(cls, "_get_param_names", None)
    if get_params is not None:
        for name in get_params():
            if name not in state:
                raise ValueError(f"{where}: the parameter {name!r} of {cls.__name__} is missing")


def _check_encoder(encoder: Any, where: str) -> np.ndarray:
    columns = encoder.columns_
    counts = check_counts(encoder.n_categories_, f"{where}.n_categories_")
    if len(columns) != len(counts):
        raise _fail(where, f"{len(columns)} columns but {len(counts)} category counts")
    for j, column in enumerate(columns):
        if column.n_categories != counts[j]:
            raise _fail(f"{where}.columns_[{j}].n_categories",
                        f"{column.n_categories} against n_categories_ {counts[j]}")  # fmt: skip
        if column.categories is not None and len(column.categories) > column.n_categories:
            raise _fail(f"{where}.columns_[{j}].categories",
                        f"{len(column.categories)} categories, more than its codes "
                        f"({column.n_categories})")  # fmt: skip
        codes = list(column.lookup.values())
        if any(not isinstance(v, int) or not 0 <= v < column.n_categories for v in codes):
            raise _fail(f"{where}.columns_[{j}].lookup", "maps a value to a code out of range")
        _check_categories(column, f"{where}.columns_[{j}]")
    return counts


def _is_category(value: Any) -> bool:
    """A value an object column may hold as a category: a string or a finite number."""
    if isinstance(value, float):
        return np.isfinite(value)
    return isinstance(value, str | int)


def _check_categories(column: Any, where: str) -> None:
    """A column's categories as the encoder reads them: numeric ones distinct, finite
    and increasing (codes by binary search); other ones distinct strings or finite
    numbers, each the key of its own code in ``lookup`` (codes by that dictionary);
    a binned column none."""
    categories = column.categories
    if column.kind == "bins":
        if categories is not None:
            raise _fail(f"{where}.categories", "a binned column has no categories")
        return
    if column.kind not in ("numeric-categories", "object-categories"):
        raise _fail(f"{where}.kind", f"{column.kind!r} is not a kind of column")
    if not isinstance(categories, np.ndarray) or categories.ndim != 1:
        raise _fail(f"{where}.categories", "must be a 1-D array")
    if len(categories) != column.n_categories and not (
        len(categories) == 0 and column.n_categories == 1
    ):
        raise _fail(f"{where}.categories",
                    f"{len(categories)} categories for {column.n_categories} codes")  # fmt: skip
    if column.kind == "numeric-categories":
        if categories.dtype.kind not in "iuf":
            raise _fail(f"{where}.categories", f"must be numbers, found dtype {categories.dtype}")
        if not np.isfinite(categories).all() or (np.diff(categories) <= 0).any():
            raise _fail(f"{where}.categories", "must be distinct finite numbers, increasing")
        return
    values = categories.tolist()
    bad = [v for v in values if not _is_category(v)]
    if categories.dtype.kind != "O" or bad:
        found = repr(bad[0]) if bad else f"dtype {categories.dtype}"
        raise _fail(f"{where}.categories", f"must be strings or finite numbers, found {found}")
    if len(column.lookup) != len(values) or any(
        column.lookup.get(v) != k for k, v in enumerate(values)
    ):
        raise _fail(f"{where}.categories", "must be distinct, each the key of its code in lookup")


def walk_objects(content: Any, where: str = "content") -> Iterator[tuple[str, Any]]:
    """Every object of ``content`` (anything with attributes, ``content`` itself
    included) once, with its path (``content.model_.tables[3][1]``), parents before
    what they hold.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> [path for path, _ in walk_objects({"a": [SimpleNamespace(b=SimpleNamespace())]})]
    ['content.a[0]', 'content.a[0].b']
    """
    seen: set[int] = set()
    stack: list[tuple[Any, str]] = [(content, where)]
    while stack:
        value, path = stack.pop()
        if id(value) in seen:
            continue
        seen.add(id(value))
        if isinstance(value, dict):
            items = [(v, f"{path}.{k}" if isinstance(k, str) else f"{path}[{k!r}]")
                     for k, v in value.items()]  # fmt: skip
        elif isinstance(value, list | tuple):
            items = [(v, f"{path}[{k}]") for k, v in enumerate(value)]
        elif isinstance(value, np.ndarray) and value.dtype.kind == "O":
            items = [(v, f"{path}[{k}]") for k, v in enumerate(value.ravel())]
        elif not hasattr(value, "__dict__") or isinstance(value, type):
            continue
        else:
            yield path, value
            items = [(v, f"{path}.{name}") for name, v in vars(value).items()]
        stack.extend(reversed(items))


def check_consistency(content: Any, where: str = "content") -> None:
    """Refuse fitted arrays that do not agree: each classifier's ``classes_`` against
    its model's classes, its encoder's categories against the codes its model reads,
    every model's tables against its categories and parents (anywhere in ``content``)."""
    from ..transformers.encoder import TableEncoder

    for path, value in walk_objects(content, where):
        if isinstance(value, StoredModel):  # each model checks its own shapes
            value.check_structure(path)
        elif isinstance(value, TableEncoder) and hasattr(value, "columns_"):
            _check_encoder(value, path)
        _check_classifier(value, path)


def _check_ensemble(model: Any, encoder: Any, where: str) -> None:
    """Each member's coarsening maps against the encoder's fine categories and the
    member's own."""
    from ..models.category_maps import mapped_categories
    from ..models.ensemble import POOLINGS

    counts = getattr(encoder, "n_categories_", None)
    if len(model.maps) != len(model.members):
        raise _fail(f"{where}.model_", "needs one list of maps per member")
    for m, (maps, member) in enumerate(zip(model.maps, model.members, strict=True)):
        if counts is None:
            continue
        if len(maps) != len(counts) or any(
            table is not None
            and (len(table) != int(r) or table.min() < 0 or (np.diff(table) < 0).any())
            for table, r in zip(maps, counts, strict=True)
        ):
            raise _fail(f"{where}.model_.maps[{m}]", "must map every fine bin, in order")
        if not np.array_equal(mapped_categories(counts, maps), member.n_categories):
            raise _fail(f"{where}.model_.members[{m}]", "has categories its maps do not give")
    for member, weight in (("linear", "linear_weight"), ("pair_member", "pair_weight")):
        value = getattr(model, weight)
        if not isinstance(value, float) or not 0.0 <= value <= 1.0:
            raise _fail(f"{where}.model_.{weight}", "must be a number in [0, 1]")
        fitted = getattr(model, member)
        if fitted is not None:
            _check_linear(fitted, counts, len(model.class_log_prior), f"{where}.model_.{member}")
    if model.pair_pooling not in POOLINGS:
        raise _fail(f"{where}.model_.pair_pooling", f"must be one of {POOLINGS}")


def _check_linear(linear: Any, counts: Any, n_classes: int, where: str) -> None:
    """The linear member's categories against the encoder's, and its weights' shapes
    against its inputs."""
    from ..models.logistic import input_offsets

    n_categories = check_counts(linear.n_categories, f"{where}.n_categories")
    if counts is not None and not np.array_equal(n_categories, counts):
        raise _fail(f"{where}.n_categories", "differ from the encoder's categories")
    if len(linear.values) != len(n_categories) or any(
        v is not None and (not isinstance(v, np.ndarray) or v.shape != (int(r),))
        for v, r in zip(linear.values, n_categories, strict=False)
    ):
        raise _fail(f"{where}.values", "needs one value per category of each valued feature")
    pairs, pair_levels = linear.pairs, linear.pair_levels
    if not (
        isinstance(pairs, np.ndarray)
        and pairs.ndim == 2
        and pairs.shape[1] == 2
        and np.issubdtype(pairs.dtype, np.integer)
        and ((pairs >= 0) & (pairs < len(n_categories))).all()
        and (pairs[:, 0] != pairs[:, 1]).all()
    ):
        raise _fail(f"{where}.pairs", "must be (pairs, 2) indices of two different features")
    if not isinstance(pair_levels, list) or (
        pair_levels
        and (
            len(pair_levels) != len(n_categories)
            or any(
                m is not None
                and (
                    not isinstance(m, np.ndarray)
                    or not np.issubdtype(m.dtype, np.integer)
                    or m.shape != (int(r),)
                    or (r and m.min() < 0)
                )
                for m, r in zip(pair_levels, n_categories, strict=True)
            )
        )
    ):
        raise _fail(f"{where}.pair_levels", "needs one level >= 0 per category of each feature")
    n_inputs = int(input_offsets(n_categories, linear.values, pairs, pair_levels)[-1])
    check_shape(linear.coef, (n_inputs, n_classes), f"{where}.coef")
    check_shape(linear.intercept, (n_classes,), f"{where}.intercept")


def _check_feature_names(names: Any, n_features: Any, where: str) -> None:
    """scikit-learn's ``feature_names_in_``: distinct strings, one per feature."""
    if not isinstance(names, np.ndarray) or names.ndim != 1:
        raise _fail(where, "must be a 1-D array of the features' names")
    values = names.tolist()
    bad = [v for v in values if not isinstance(v, str)]
    if bad:
        raise _fail(where, f"must be strings, found {bad[0]!r}")
    if len(set(values)) != len(values):
        raise _fail(where, "holds a name twice")
    if isinstance(n_features, int) and len(values) != n_features:
        raise _fail(where, f"{len(values)} names but n_features_in_ is {n_features}")


def _check_classifier(estimator: Any, where: str) -> None:
    """``classes_`` against the classes of the estimator's model, and its encoder's
    categories against the model's."""
    from ..models.averaged_dependence import (
        AveragedOneDependenceModel,
        AveragedTwoDependenceModel,
    )
    from ..models.bayes_net import BayesNetModel
    from ..models.discrete_forest import DiscreteForestModel
    from ..models.ensemble import KDBEnsembleModel
    from ..models.k_dependence import KDependenceModel

    state = vars(estimator)
    if "classes_" not in state:
        return
    classes = state["classes_"]
    if not isinstance(classes, np.ndarray) or classes.ndim != 1 or len(classes) < 1:
        raise _fail(f"{where}.classes_", "must be a 1-D array of at least one label")
    if len(set(classes.tolist())) != len(classes):
        raise _fail(f"{where}.classes_", "holds a label twice")
    n_features = state.get("n_features_in_")
    if n_features is not None and (not isinstance(n_features, int) or n_features < 1):
        raise _fail(f"{where}.n_features_in_", f"must be a positive integer, got {n_features!r}")
    if "feature_names_in_" in state:
        _check_feature_names(state["feature_names_in_"], n_features, f"{where}.feature_names_in_")
    model = state.get("model_")
    encoder = state.get("encoder_")
    if isinstance(model, KDBEnsembleModel):
        _check_ensemble(model, encoder, where)
    if isinstance(
        model, KDependenceModel | AveragedOneDependenceModel | AveragedTwoDependenceModel
    ):
        n_classes = (
            model.n_classes if isinstance(model, KDependenceModel) else len(model.class_log_prior)
        )
        if n_classes != len(classes):
            raise _fail(f"{where}.classes_",
                        f"{len(classes)} labels but the model has {n_classes} classes")  # fmt: skip
        counts = getattr(encoder, "n_categories_", None)
        if counts is not None and not np.array_equal(counts, model.n_categories):
            raise _fail(f"{where}.encoder_.n_categories_",
                        f"{np.asarray(counts).tolist()} against the model's "
                        f"{np.asarray(model.n_categories).tolist()}")  # fmt: skip
    if isinstance(model, BayesNetModel | DiscreteForestModel):
        n_classes = (
            len(model.class_log_prior) if isinstance(model, BayesNetModel) else len(model.parents)
        )
        if n_classes != len(classes):
            raise _fail(f"{where}.classes_",
                        f"{len(classes)} labels but the model has {n_classes} classes")  # fmt: skip
        counts = getattr(encoder, "n_categories_", None)
        if counts is not None and not np.array_equal(counts, model.n_categories):
            raise _fail(f"{where}.encoder_.n_categories_",
                        f"{np.asarray(counts).tolist()} against the model's "
                        f"{np.asarray(model.n_categories).tolist()}")  # fmt: skip
    if n_features is not None and encoder is not None and hasattr(encoder, "columns_"):
        if len(encoder.columns_) != n_features:
            found = len(encoder.columns_)
            raise _fail(f"{where}.encoder_", f"{found} columns but n_features_in_ is {n_features}")
