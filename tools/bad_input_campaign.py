"""A campaign of bad inputs over discotree's public surfaces (issue 50).

Every case feeds one bad input to one public entry point (an estimator's ``fit``,
``partial_fit``, ``predict``, ``predict_proba`` or constructor parameter, a model file,
the explanation functions, the command line, a fit in passes over a file, a memory
guard) and is classified by what came back:

``ok``
    a right answer (finite outputs of the right shape, probabilities summing to 1,
    the same answer as a reference where the case has one), or a ``ValueError`` /
    ``TypeError`` / ``NotFittedError`` (or a documented warning) whose message holds
    the words the case declares (the parameter, the column, the problem);
``unclear``
    an accepted exception type whose message lacks those words;
``silent``
    no error, but NaN/inf, a wrong shape, unnormalised probabilities, an answer that
    differs from the reference, or an input accepted that must be refused;
``crash``
    any other exception type (IndexError, KeyError, AttributeError, numba or numpy
    errors, ...);
``hang``
    the case ran past its timeout;
``memory``
    ``MemoryError`` under the address-space cap, or the worker was killed;
``data-lost``
    an input file changed, or an existing output was truncated or partly written.

Each case runs in a forked worker process (its own session, an address-space cap set
with ``resource.setrlimit(RLIMIT_AS)`` and a timeout), so that a hang, a crash of the
interpreter or an unguarded allocation is recorded rather than suffered. The script
uses only discotree's public API.

Usage::

    python tools/bad_input_campaign.py              # every case, one worker
    python tools/bad_input_campaign.py --list       # the case ids
    python tools/bad_input_campaign.py --only cli --limit 20

Results: ``benchmarks/results/bad_input_campaign.json`` (every case) and
``benchmarks/results/bad_input_campaign.md`` (counts and the cases that are not ok).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import functools
import hashlib
import io
import json
import math
import multiprocessing
import multiprocessing.connection
import os
import platform
import resource
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "benchmarks" / "results" / "bad_input_campaign"
CLASSES = ("ok", "unclear", "silent", "crash", "hang", "memory", "data-lost")
#: Exception types that are a proper refusal (sklearn's NotFittedError is a ValueError).
ACCEPTED: tuple[type[BaseException], ...] = (
    ValueError,
    TypeError,
    FileNotFoundError,  # naming the path: a file surface's proper refusal
    IsADirectoryError,
    NotADirectoryError,
)
#: Modules whose own exception classes are crashes even when they subclass ValueError.
FOREIGN_ERRORS = ("numpy", "numba", "scipy", "llvmlite", "joblib", "loky", "pyarrow")
MEMORY_CAP = 3 * 2**30


class Silent(Exception):
    """A wrong answer given without an error (raised by the cases' checks)."""


class DataLost(Exception):
    """An input changed, or an existing output was truncated or partly written."""


class CliFailed(Exception):
    """The command line returned a non-zero exit code (its stderr is the message)."""


@dataclass(frozen=True)
class Case:
    """One bad input: ``run(folder)`` returns normally on a right answer (checked by
    the case itself) and raises otherwise.

    ``expect`` is ``"error"`` (the input must be refused), ``"either"`` (a right answer
    or a refusal naming the problem) or ``"ok"`` (a right answer). ``words``: what a
    refusal's message must contain, each entry one word or alternatives joined by
    ``|`` (case-insensitive).
    """

    id: str
    surface: str
    run: Callable[[Path], Any] = field(repr=False, compare=False)
    words: tuple[str, ...] = ()
    expect: str = "either"
    accept: tuple[type[BaseException], ...] = ()
    #: the words, when they can only be known as the case runs
    words_of: Callable[[], tuple[str, ...]] | None = field(default=None, repr=False, compare=False)


#: A surface's cases by name: (run, what is expected, the words of a refusal).
CaseTable = dict[str, tuple[Callable[[Path], Any], str, tuple[str, ...]]]


def _table_cases(prefix: str, surface: str, table: CaseTable, **options: Any) -> Iterator[Case]:
    """The cases of ``table``, with ids ``prefix/name`` (``options``: more fields of
    :class:`Case`)."""
    for name, (run, expect, words) in table.items():
        yield Case(f"{prefix}/{name}", surface, run, words, expect, **options)


# --------------------------------------------------------------------------- data


def _labels(n: int, n_classes: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    y[:n_classes] = np.arange(n_classes)
    return y


def codes_data(n: int = 40, d: int = 4, seed: int = 0, n_classes: int = 2):
    """Integer codes 0..3 (as floats) that carry some signal about the label."""
    rng = np.random.default_rng(seed)
    y = _labels(n, n_classes, seed)
    X = rng.integers(0, 3, (n, d)) + (y[:, None] * (rng.random((n, d)) < 0.6))
    return X.astype(float), y


def real_data(n: int = 40, d: int = 4, seed: int = 0, n_classes: int = 2):
    rng = np.random.default_rng(seed)
    y = _labels(n, n_classes, seed)
    return rng.normal(size=(n, d)) + y[:, None], y


def frame_data(numeric_only: bool, n: int = 40, seed: int = 0):
    """Columns a, b (codes), c (real), d (strings, or real for density models)."""
    X, y = codes_data(n, 2, seed)
    rng = np.random.default_rng(seed + 1)
    frame = pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "c": rng.normal(size=n) + y})
    if numeric_only:
        frame["d"] = rng.normal(size=n) - y
    else:
        frame["d"] = np.array(["p", "q", "r"])[(rng.integers(0, 2, n) + y) % 3]
    return frame, y


# ------------------------------------------------------------------ estimators


@dataclasses.dataclass(frozen=True)
class Made:
    """A setting that is an estimator of the package (the kDB ensemble's members'
    template), made when an estimator is (the campaign imports discotree lazily)."""

    name: str
    params: tuple[tuple[str, Any], ...]

    def build(self) -> Any:
        import discotree

        return getattr(discotree, self.name)(**dict(self.params))


#: The kDB ensemble's small members: KDBClassifier(2, smoothing="hierarchical").
SMALL_MEMBERS = Made("KDBClassifier", (("k", 2), ("smoothing", "hierarchical")))

#: short name -> (public class name, small settings, numeric features only)
ESTIMATORS: dict[str, tuple[str, dict[str, Any], bool]] = {
    "NB": ("NaiveBayesClassifier", {}, False),
    "CL": ("ChowLiuClassifier", {}, False),
    "TAN": ("TANClassifier", {}, False),
    "KDB": ("KDBClassifier", {"k": 2}, False),
    "AODE": ("AODEClassifier", {}, False),
    "ENS": ("KDBEnsembleClassifier", {"n_estimators": 2, "estimator": SMALL_MEMBERS}, False),
    "BOOST": ("BoostedGraphicalModelClassifier", {"n_estimators": 2}, False),
    "DT": ("DiscriminativeTreeClassifier", {}, False),
    "EAR": ("EARTreeClassifier", {"n_permutations": 1}, False),
    "FD": ("ForestDensityClassifier", {"probability": True, "max_iter": 500}, True),
    "KNB": ("KernelNaiveBayesClassifier", {}, True),
    "SFS": ("SubmodularFeatureSelector", {"n_restarts": 1, "n_permutations": 1}, False),
}
PARTIAL = ("NB", "CL", "TAN", "KDB", "AODE", "DT")
#: predict agrees with the argmax of predict_proba (the generative models)
ARGMAX = ("NB", "CL", "TAN", "KDB", "AODE", "ENS", "EAR", "KNB")


def estimator_class(short: str) -> type:
    import discotree

    return getattr(discotree, ESTIMATORS[short][0])


def make(short: str, **params: Any) -> Any:
    settings = {
        name: value.build() if isinstance(value, Made) else value
        for name, value in ESTIMATORS[short][1].items()
    }
    return estimator_class(short)(**{**settings, **params})


def constructor_defaults(short: str) -> dict[str, Any]:
    import inspect

    signature = inspect.signature(estimator_class(short).__init__)
    return {k: p.default for k, p in signature.parameters.items() if k != "self"}


@functools.cache
def fitted(short: str) -> tuple[Any, pd.DataFrame, np.ndarray]:
    """The estimator fitted on its good frame (made once, before the workers fork)."""
    X, y = frame_data(ESTIMATORS[short][2])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return make(short).fit(X, y), X, y


def is_selector(est: Any) -> bool:
    return hasattr(est, "transform") and not hasattr(est, "predict")


def check_proba(P: Any, n: int, k: int, what: str = "predict_proba") -> np.ndarray:
    P = np.asarray(P)
    if P.shape != (n, k):
        raise Silent(f"{what} has shape {P.shape}, expected {(n, k)}")
    if P.dtype.kind != "f" or not np.isfinite(P).all():
        raise Silent(f"{what} is not finite: {P.ravel()[:6]}")
    if (P < -1e-12).any() or (P > 1 + 1e-9).any():
        raise Silent(f"{what} outside [0, 1]: min {P.min()}, max {P.max()}")
    if n and not np.allclose(P.sum(axis=1), 1.0, atol=1e-6):
        raise Silent(f"{what} rows sum to {P.sum(axis=1)[:4]}, not 1")
    return P


def check_predict(pred: Any, n: int, classes: Any) -> np.ndarray:
    pred = np.asarray(pred)
    if pred.shape != (n,):
        raise Silent(f"predict has shape {pred.shape}, expected {(n,)}")
    known = set(np.asarray(classes).tolist())
    unknown = [v for v in pred.tolist() if v not in known]
    if unknown:
        raise Silent(f"predict gives labels not in classes_: {unknown[:3]}")
    return pred


def exercise(est: Any, X: Any, short: str | None = None, method: str = "both") -> str:
    """Use a fitted estimator on X and check the answer; returns a summary."""
    n = len(X) if not hasattr(X, "shape") else X.shape[0]
    if is_selector(est):
        T = np.asarray(est.transform(X))
        if T.ndim != 2 or T.shape[0] != n:
            raise Silent(f"transform has shape {T.shape} for {n} rows")
        if T.dtype.kind == "f" and not np.isfinite(T[~pd.isna(T)]).all():
            raise Silent("transform output is not finite")
        return f"transform -> {T.shape}"
    classes = est.classes_
    P = None
    if method == "predict_log_proba":
        L = np.asarray(est.predict_log_proba(X))
        if L.shape != (n, len(classes)):
            raise Silent(f"predict_log_proba has shape {L.shape}, expected {(n, len(classes))}")
        if np.isnan(L).any() or (L > 1e-9).any():
            raise Silent(f"predict_log_proba has NaN or positive entries: {L.ravel()[:6]}")
        if n:
            from scipy.special import logsumexp

            total = logsumexp(L, axis=1)
            if not np.allclose(total, 0.0, atol=1e-6):
                raise Silent(f"predict_log_proba rows have logsumexp {total[:4]}, not 0")
        return f"predict_log_proba on {n} rows ok"
    if method in ("both", "predict_proba") and hasattr(est, "predict_proba"):
        P = check_proba(est.predict_proba(X), n, len(classes))
    if method in ("both", "predict"):
        pred = check_predict(est.predict(X), n, classes)
        if P is not None and short in ARGMAX and n:
            top = np.sort(P, axis=1)
            clear = top[:, -1] - top[:, -2] > 1e-6 if P.shape[1] > 1 else np.ones(n, bool)
            argmax = np.asarray(classes)[P.argmax(axis=1)]
            if (argmax[clear] != pred[clear]).any():
                raise Silent("predict disagrees with the argmax of predict_proba")
    return f"{method} on {n} rows ok"


def same(a: Any, b: Any, what: str, tol: float = 1e-7) -> None:
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        raise Silent(f"{what}: shape {a.shape} != {b.shape}")
    if a.dtype.kind == "f" or b.dtype.kind == "f":
        if not np.allclose(a, b, atol=tol, rtol=0, equal_nan=True):
            raise Silent(f"{what}: max difference {np.nanmax(np.abs(a - b)):.3g}")
    elif not (a == b).all():
        raise Silent(f"{what}: answers differ")


def quiet_fit(est: Any, X: Any, y: Any, **kw: Any) -> Any:
    return est.fit(X, y, **kw)


# ----------------------------------------------------------- files: protection


def sha(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except (FileNotFoundError, IsADirectoryError):
        return None


def protect(folder: Path, inputs: list[Path], outputs: list[Path] = ()) -> None:
    """Record what the inputs and the existing outputs hold, in the case's folder (the
    parent reads it too when a case is killed)."""
    manifest = {
        "inputs": {str(p): sha(p) for p in inputs},
        "outputs": {str(p): sha(p) for p in outputs},
        "listing": sorted(str(p) for p in folder.rglob("*")),
    }
    (folder / "_protected.json").write_text(json.dumps(manifest))


def verify(folder: Path, succeeded: bool, valid: Callable[[Path], bool] | None = None) -> str:
    """Raise DataLost if an input changed or an output was damaged; returns notes."""
    path = folder / "_protected.json"
    if not path.exists():
        return ""
    manifest = json.loads(path.read_text())
    if manifest.get("verified"):
        return ""  # the case checked its files already
    for name, digest in manifest["inputs"].items():
        if sha(Path(name)) != digest:
            raise DataLost(f"the input {Path(name).name} changed")
    for name, digest in manifest["outputs"].items():
        now = sha(Path(name))
        if now == digest:
            continue
        if not succeeded:
            what = "removed" if now is None else "changed"
            raise DataLost(f"a failed command {what} the existing output {Path(name).name}")
        if valid is not None and not valid(Path(name)):
            raise DataLost(f"the output {Path(name).name} is not complete")
    listing = set(manifest["listing"]) | {str(path)}
    new = sorted(str(p) for p in folder.rglob("*") if str(p) not in listing)
    if not succeeded:
        created = [p for p in new if p in manifest["outputs"]]
        if created:
            raise DataLost(f"a failed command left a partial output {Path(created[0]).name}")
    stray = [Path(p).name for p in new if ".tmp" in p or Path(p).name.startswith(".")]
    manifest["verified"] = True
    path.write_text(json.dumps(manifest))
    return f"left behind {stray[:3]}" if stray else ""


@contextlib.contextmanager
def verified(folder: Path, valid: Callable[[Path], bool] | None = None) -> Iterator[None]:
    """Run the block, then :func:`verify` the case's files, whether the block succeeded
    or raised (its exception goes on unless ``verify`` raises ``DataLost``)."""
    ok = False
    try:
        yield
        ok = True
    finally:
        verify(folder, ok, valid)


# ---------------------------------------------------------------- the CLI


#: What the last successful command wrote to stderr (notes, warnings).
LAST_STDERR: list[str] = [""]


def cli(*args: Any) -> str:
    """Run ``discotree.cli.main``; raise CliFailed with its stderr on a non-zero exit."""
    from discotree.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main([str(a) for a in args])
    if rc != 0:
        raise CliFailed(f"exit {rc}: {err.getvalue().strip()}")
    LAST_STDERR[0] = err.getvalue()
    return out.getvalue()


def _noted_extra_column(folder: Path) -> str:
    """Extra columns are ignored with a note naming them (or refused naming them)."""
    model_path = _fit_model(folder)
    data = write_csv(folder / "new.csv", frame_data(False)[0].assign(e=1))
    target = folder / "pred.csv"
    cli("predict", "--model", model_path, "--data", data, "-o", target, "--quiet")
    if "'e'" not in LAST_STDERR[0]:
        raise Silent(f"the extra column 'e' was ignored without a note: {LAST_STDERR[0]!r}")
    if len(pd.read_csv(target)) != 40:
        raise Silent("not a prediction per row")
    return f"ignored with a note: {LAST_STDERR[0].strip()}"


def write_csv(path: Path, frame: pd.DataFrame) -> Path:
    frame.to_csv(path, index=False)
    return path


def train_csv(folder: Path, name: str = "train.csv", n: int = 40, seed: int = 0) -> Path:
    X, y = frame_data(False, n=n, seed=seed)
    frame = X.assign(label=np.where(y == 1, "yes", "no"))
    return write_csv(folder / name, frame)


def predictions_valid(path: Path) -> bool:
    if path.stat().st_size == 0:
        return True  # no rows predicted: an empty file is complete
    try:
        frame = pd.read_csv(path)
    except Exception:  # any unreadable file is incomplete
        return False
    return "label" in frame.columns


def model_valid(path: Path) -> bool:
    from discotree.io import json_model
    from discotree.model_file import load_model

    try:
        raw = path.read_bytes()
        saved = json_model.load_json(path) if raw[:1] == b"{" else load_model(path)
    except Exception:  # any unreadable file is incomplete
        return False
    return isinstance(saved, dict) and "model" in saved


# ================================================================== the cases


def _fit_case(short: str, build: Callable[[], tuple[Any, Any]], predict_on: str = "same"):
    def run(folder: Path) -> str:
        X, y = build()
        est = make(short)
        est.fit(X, y)
        if predict_on == "none":
            return "fitted"
        return exercise(est, X, short)

    return run


def _bad_X_builders(numeric_only: bool) -> dict[str, tuple[Callable, str, tuple[str, ...]]]:
    """name -> (builder, expect, words) for X given to fit."""

    def codes(**kw):
        return codes_data(**kw)

    def with_cell(value: Any, dtype: Any = float):
        def build():
            X, y = codes()
            X = X.astype(dtype)
            X[3, 1] = value
            return X, y

        return build

    def frame_with(fn):
        def build():
            X, y = frame_data(numeric_only)
            return fn(X.copy(), y)

        return build

    def col(values):
        def fn(X, y):
            X["a"] = values(len(X))
            return X, y

        return fn

    b: dict[str, tuple[Callable, str, tuple[str, ...]]] = {}
    b["nan-cell"] = (with_cell(np.nan), "either", ("nan|missing",))
    b["inf-cell"] = (with_cell(np.inf), "either", ("inf",))
    b["neg-inf-cell"] = (with_cell(-np.inf), "either", ("inf",))
    b["huge-cell"] = (with_cell(1e308), "either", ("1e+308|large|huge|x1|\\[:, 1\\]|finite",))
    b["tiny-cell"] = (with_cell(1e-308), "either", ())
    b["neg-code"] = (with_cell(-5.0), "either", ("negative|-5",))
    b["non-integer-cell"] = (with_cell(2.5), "either", ("2.5",))
    b["int64-huge"] = (
        with_cell(2**62, np.int64),
        "either",
        ("large|huge|4611686018427387904|2**53",),
    )
    b["float16"] = (lambda: (codes()[0].astype(np.float16), codes()[1]), "either", ())
    b["float32"] = (lambda: (codes()[0].astype(np.float32), codes()[1]), "either", ())
    b["int8"] = (lambda: (codes()[0].astype(np.int8), codes()[1]), "either", ())
    b["uint64"] = (lambda: (codes()[0].astype(np.uint64), codes()[1]), "either", ())
    b["fortran-order"] = (lambda: (np.asfortranarray(codes()[0]), codes()[1]), "either", ())
    b["strided-view"] = (lambda: (codes(d=8)[0][:, ::2], codes(d=8)[1]), "either", ())

    def nan_column():
        X, y = codes()
        X[:, 2] = np.nan
        return X, y

    def all_nan():
        X, y = codes()
        return np.full_like(X, np.nan), y

    b["all-nan-column"] = (nan_column, "either", ("nan|missing|x2|column",))
    b["all-nan"] = (all_nan, "either", ("nan|missing",))
    b["empty-rows"] = (lambda: (np.zeros((0, 4)), np.zeros(0, int)), "error", ("sample|empty|0",))
    b["no-columns"] = (lambda: (np.zeros((40, 0)), codes()[1]), "error", ("feature|column|0",))
    b["one-row"] = (lambda: (codes()[0][:1], codes()[1][:1]), "either", ("sample|row|class",))
    b["two-rows"] = (lambda: (codes()[0][:2], codes()[1][:2]), "either", ("sample|row|fold",))
    b["one-class"] = (lambda: (codes()[0], np.zeros(40, int)), "either", ("class",))
    b["one-column"] = (lambda: (codes()[0][:, :1], codes()[1]), "either", ("feature|column",))

    def constant_col():
        X, y = codes()
        X[:, 0] = 1.0
        return X, y

    b["constant-column"] = (constant_col, "either", ("constant|x0",))
    b["all-constant"] = (lambda: (np.ones((40, 4)), codes()[1]), "either", ("constant",))
    b["duplicate-columns-values"] = (
        lambda: (np.repeat(codes()[0][:, :2], 2, axis=1), codes()[1]),
        "either",
        (),
    )
    b["strings"] = (
        frame_with(col(lambda n: np.array(["u", "v", "w"] * n)[:n])),
        "either",
        ("'a'|numeric|string",),
    )
    b["mixed-types-column"] = (
        frame_with(col(lambda n: np.array([1, "two", 3.0, None] * n, dtype=object)[:n])),
        "either",
        ("'a'|mixed|type",),
    )
    b["object-numbers"] = (
        lambda: (codes()[0].astype(object), codes()[1]),
        "either",
        ("object|numeric",),
    )
    b["bools"] = (lambda: (codes()[0] > 1, codes()[1]), "either", ("bool|numeric",))
    b["categorical-column"] = (
        frame_with(col(lambda n: pd.Categorical(np.array(list("xyz") * n)[:n]))),
        "either",
        ("'a'|categor",),
    )
    b["categorical-unused-levels"] = (
        frame_with(
            col(lambda n: pd.Categorical(np.array(list("xy") * n)[:n], categories=list("xyzw")))
        ),
        "either",
        ("'a'|categor",),
    )
    b["pd-NA-object"] = (
        frame_with(col(lambda n: pd.array([1, pd.NA, 2, 0] * (n // 4), dtype="Int64"))),
        "either",
        ("'a'|missing|NA",),
    )
    b["none-in-object"] = (
        frame_with(col(lambda n: np.array(["x", None, "y", "z"] * n, dtype=object)[:n])),
        "either",
        ("'a'|missing|None",),
    )
    b["id-column"] = (
        frame_with(col(lambda n: np.array([f"id{i}" for i in range(n)], dtype=object))),
        "either",
        ("'a'|categor|numeric",),
    )
    b["datetime-column"] = (
        frame_with(col(lambda n: pd.date_range("2020-01-01", periods=n))),
        "either",
        ("'a'|date|time|numeric",),
    )
    b["list-valued-column"] = (
        frame_with(col(lambda n: pd.Series([[1, 2]] * n, dtype=object))),
        "either",
        ("'a'|list|hashable|type",),
    )
    b["bytes-column"] = (
        frame_with(col(lambda n: np.array([b"x", b"y"] * n, dtype=object)[:n])),
        "either",
        ("'a'|bytes|numeric",),
    )
    b["long-strings"] = (
        frame_with(col(lambda n: np.array(["x" * 100_000, "y" * 100_000] * n, dtype=object)[:n])),
        "either",
        ("'a'|numeric",),
    )

    def empty_name():
        X, y = frame_data(numeric_only)
        X.columns = ["", "b", "c", "d"]
        return X, y

    b["empty-column-name"] = (empty_name, "either", ("name|''",))
    b["complex"] = (lambda: (codes()[0] + 1j, codes()[1]), "error", ("complex",))

    def duplicate_names():
        X, y = frame_data(numeric_only)
        X.columns = ["a", "a", "c", "d"]
        return X, y

    b["duplicate-column-names"] = (duplicate_names, "error", ("duplicate|'a'|unique",))

    def int_names():
        X, y = frame_data(numeric_only)
        X.columns = [0, 1, 2, 3]
        return X, y

    b["integer-column-names"] = (int_names, "either", ())

    def mixed_names():
        X, y = frame_data(numeric_only)
        X.columns = ["a", 1, "c", 3]
        return X, y

    b["mixed-column-names"] = (mixed_names, "either", ("feature names|string|name",))
    b["3d"] = (lambda: (codes()[0].reshape(40, 2, 2), codes()[1]), "error", ("dim|2d|2-d|shape",))
    b["1d"] = (lambda: (codes()[0][:, 0], codes()[1]), "error", ("2d|2-d|reshape|dim",))
    b["none-X"] = (lambda: (None, codes()[1]), "error", ("none|array|X",))
    b["scalar-X"] = (lambda: (3.0, codes()[1]), "error", ("scalar|2d|2-d|array|dim",))
    b["ragged-lists"] = (
        lambda: ([[0, 1], [1]] * 20, codes()[1]),
        "error",
        ("shape|inhomogeneous|sequence|length",),
    )
    b["list-of-lists"] = (lambda: (codes()[0].tolist(), codes()[1]), "ok", ())
    b["rows-vs-labels"] = (
        lambda: (codes()[0], codes()[1][:30]),
        "error",
        ("inconsistent|length|samples|30",),
    )

    def sparse():
        import scipy.sparse

        X, y = codes()
        return scipy.sparse.csr_matrix(X), y

    b["sparse"] = (sparse, "either", ("sparse",))
    b["many-classes"] = (lambda: (codes()[0], np.arange(40)), "either", ("class",))
    return b


def cases_fit_X() -> Iterator[Case]:
    for short, (_, _, numeric_only) in ESTIMATORS.items():
        for name, (build, expect, words) in _bad_X_builders(numeric_only).items():
            yield Case(
                f"fit-X/{short}/{name}", "estimator-fit-X", _fit_case(short, build), words, expect
            )


def _predict_variants(numeric_only: bool) -> dict[str, tuple[Callable, str, tuple[str, ...]]]:
    """name -> (function of the good frame -> X to predict, expect, words)."""

    def edit(fn):
        def build(X):
            X = X.copy()
            out = fn(X)
            return X if out is None else out

        return build

    v: dict[str, tuple[Callable, str, tuple[str, ...]]] = {}
    v["narrower"] = (lambda X: X.iloc[:, :3], "error", ("feature|column|3|'d'",))
    v["wider"] = (lambda X: X.assign(e=1.0), "error", ("feature|column|5|'e'",))
    v["narrower-array"] = (lambda X: X.iloc[:, :3].to_numpy(), "error", ("feature|column|3",))
    v["renamed"] = (
        lambda X: X.rename(columns={"a": "z"}),
        "error",
        ("feature names|'z'|'a'|column",),
    )
    v["reordered"] = (lambda X: X[["b", "a", "c", "d"]], "either", ("order|feature names|column",))
    v["duplicate-names"] = (
        lambda X: X.set_axis(["a", "a", "c", "d"], axis=1),
        "error",
        ("duplicate|'a'|feature names|unique",),
    )
    v["target-column-added"] = (lambda X: X.assign(label=0), "error", ("label|feature|column",))
    v["ndarray-for-frame"] = (lambda X: X.to_numpy(), "either", ("feature names|name",))
    v["list-rows"] = (lambda X: X.to_numpy().tolist(), "either", ("feature names|name",))
    missing = "either" if numeric_only else "ok"  # density models need complete rows
    v["nan-cell"] = (edit(lambda X: X.iloc.__setitem__((2, 0), np.nan)), missing, ("nan|missing",))
    v["all-nan-row"] = (
        edit(lambda X: X.iloc.__setitem__((2, slice(None)), np.nan)),
        missing,
        ("nan|missing",),
    )
    v["all-nan"] = (
        lambda X: (
            X.map(lambda _: np.nan)
            if numeric_only
            else X.assign(a=np.nan, b=np.nan, c=np.nan, d=None)
        ),
        "either",
        ("nan|missing",),
    )
    v["inf-cell"] = (edit(lambda X: X.iloc.__setitem__((2, 2), np.inf)), "either", ("inf|'c'",))
    v["neg-inf-cell"] = (
        edit(lambda X: X.iloc.__setitem__((2, 2), -np.inf)),
        "either",
        ("inf|'c'",),
    )
    v["huge-cell"] = (edit(lambda X: X.iloc.__setitem__((2, 2), 1e308)), "either", ("'c'|large",))
    v["unseen-code"] = (
        edit(lambda X: X.iloc.__setitem__((2, 0), 7.0)),
        "either",
        ("'a'|unseen|unknown|categor|7",),
    )
    v["non-integer-code"] = (
        edit(lambda X: X.iloc.__setitem__((2, 0), 1.5)),
        "either",
        ("'a'|1.5",),
    )
    v["string-in-numeric"] = (
        edit(lambda X: X.__setitem__("a", X["a"].astype(object).where(X.index != 2, "oops"))),
        "either",
        ("'a'|oops|numeric|string",),
    )
    v["unseen-string-level"] = (
        (lambda X: X) if numeric_only else edit(lambda X: X.iloc.__setitem__((2, 3), "unseen")),
        "either",
        ("'d'|unseen|unknown",),
    )
    v["categorical-unseen"] = (
        edit(
            lambda X: X.__setitem__(
                "a", pd.Categorical(X["a"].astype(int).astype(str).where(X.index != 2, "new"))
            )
        ),
        "either",
        ("'a'|categor|unseen|numeric",),
    )
    v["object-dtype"] = (lambda X: X.astype(object), "either", ("object",))
    v["bools"] = (edit(lambda X: X.__setitem__("a", X["a"] > 1)), "either", ("'a'|bool|numeric",))
    v["int-columns-as-float32"] = (
        lambda X: (
            X.astype({"a": np.float32, "c": np.float32})
            if numeric_only
            else X.astype({"a": np.float32})
        ),
        "ok",
        (),
    )
    v["empty"] = (lambda X: X.iloc[:0], "either", ("sample|empty|0",))
    v["one-row-equals-batch"] = (None, "ok", ())
    v["reversed-equals-batch"] = (None, "ok", ())
    v["1d"] = (lambda X: X.iloc[0].to_numpy(), "error", ("2d|2-d|reshape|dim",))
    v["none"] = (lambda X: None, "error", ("none|array|X",))
    return v


def _predict_case(short: str, name: str, build: Callable | None, method: str):
    def run(folder: Path) -> str:
        est, X, _ = fitted(short)
        if name == "one-row-equals-batch":
            return _batch_contract(est, X, short, lambda Z: Z.iloc[[5]], lambda P: P[[5]])
        if name == "reversed-equals-batch":
            return _batch_contract(est, X, short, lambda Z: Z.iloc[::-1], lambda P: P[::-1])
        Z = build(X)
        if name == "reordered" and not is_selector(est):
            out = _use(est, Z, method)
            same(out, _use(est, X, method), "reordered columns give another answer")
        n_rows = len(Z) if hasattr(Z, "__len__") else 0
        del n_rows
        return exercise(est, Z, short, method)

    return run


def _use(est: Any, X: Any, method: str) -> Any:
    if is_selector(est):
        return est.transform(X)
    if method == "predict" or not hasattr(est, "predict_proba"):
        return est.predict(X)
    return est.predict_proba(X)


def _batch_contract(est, X, short, take, pick) -> str:
    for method in ("predict_proba", "predict") if not is_selector(est) else ("transform",):
        if method == "predict_proba" and not hasattr(est, "predict_proba"):
            continue
        whole = np.asarray(_use(est, X, method))
        part = np.asarray(_use(est, take(X), method))
        same(part, pick(whole), f"{method} of a subset differs from the batch's rows", 1e-9)
    return exercise(est, take(X), short)


def cases_predict_X() -> Iterator[Case]:
    for short, (_, _, numeric_only) in ESTIMATORS.items():
        methods = ("transform",) if short == "SFS" else ("predict", "predict_proba")
        if hasattr(estimator_class(short), "predict_log_proba") and short != "FD":
            methods = (*methods, "predict_log_proba")
        for name, (build, expect, words) in _predict_variants(numeric_only).items():
            for method in methods:
                if name.endswith("equals-batch") and method != "predict_proba":
                    continue
                yield Case(
                    f"predict-X/{short}/{method}/{name}",
                    "estimator-predict-X",
                    _predict_case(short, name, build, method),
                    words,
                    expect,
                )
        yield Case(
            f"predict-X/{short}/unfitted",
            "estimator-predict-X",
            lambda folder, s=short: _use(make(s), fitted(s)[1], "predict"),
            ("fit",),
            "error",
        )


def _bad_y() -> dict[str, tuple[Callable, str, tuple[str, ...]]]:
    def labels(fn):
        return lambda y: fn(np.asarray(y).copy())

    v: dict[str, tuple[Callable, str, tuple[str, ...]]] = {}

    def nan_label(y):
        y = y.astype(float)
        y[3] = np.nan
        return y

    def inf_label(y):
        y = y.astype(float)
        y[3] = np.inf
        return y

    v["nan-label"] = (labels(nan_label), "error", ("nan|label|y|target",))
    v["inf-label"] = (labels(inf_label), "error", ("inf|label|y|target|continuous",))
    v["none-y"] = (lambda y: None, "error", ("y|none|label|target|requires",))
    v["short-y"] = (lambda y: y[:-3], "error", ("inconsistent|length|samples|37",))
    v["long-y"] = (lambda y: np.r_[y, y[:3]], "error", ("inconsistent|length|samples|43",))
    v["continuous-y"] = (
        lambda y: y + np.linspace(0, 0.5, len(y)),
        "error",
        ("continuous|class|label|target",),
    )
    v["column-vector-y"] = (lambda y: y.reshape(-1, 1), "either", ("1d|column|ravel|shape",))
    v["two-column-y"] = (lambda y: np.c_[y, y], "error", ("multi|1d|shape|dim|y",))
    v["string-y"] = (lambda y: np.where(y == 1, "yes", "no"), "ok", ())
    v["mixed-type-y"] = (
        lambda y: np.array([1 if v else "no" for v in y], dtype=object),
        "error",
        ("mix|type|label|str",),
    )
    v["none-entries-y"] = (
        lambda y: np.array([None if i == 3 else int(v) for i, v in enumerate(y)], dtype=object),
        "error",
        ("none|nan|missing|label|type",),
    )
    v["one-class-y"] = (lambda y: np.zeros_like(y), "either", ("class",))
    v["bool-y"] = (lambda y: y.astype(bool), "ok", ())
    v["huge-int-y"] = (lambda y: y.astype(np.int64) * (2**62), "ok", ())
    v["negative-y"] = (lambda y: y - 5, "ok", ())
    v["float-integral-y"] = (lambda y: y.astype(float), "ok", ())
    v["categorical-y"] = (lambda y: pd.Series(pd.Categorical(np.where(y == 1, "b", "a"))), "ok", ())
    v["empty-string-y"] = (lambda y: np.where(y == 1, "", "x"), "ok", ())
    v["every-row-a-class"] = (lambda y: np.arange(len(y)), "either", ("class",))
    v["three-classes"] = (lambda y: np.arange(len(y)) % 3, "ok", ())
    v["list-y"] = (lambda y: y.tolist(), "ok", ())
    v["frame-y"] = (lambda y: pd.DataFrame({"label": y}), "either", ("1d|column|ravel",))
    return v


def _y_case(short: str, change: Callable):
    def run(folder: Path) -> str:
        _, X, y = fitted(short)
        est = make(short)
        est.fit(X, change(y))
        return exercise(est, X, short)

    return run


def cases_y() -> Iterator[Case]:
    for short in ESTIMATORS:
        for name, (change, expect, words) in _bad_y().items():
            yield Case(f"y/{short}/{name}", "estimator-y", _y_case(short, change), words, expect)


def _bad_weights(n: int) -> dict[str, tuple[Callable[[], Any], str, tuple[str, ...]]]:
    def ones(**edits):
        def build():
            w = np.ones(n)
            for index, value in edits.items():
                w[int(index[1:])] = value
            return w

        return build

    v: dict[str, tuple[Callable[[], Any], str, tuple[str, ...]]] = {}
    v["negative"] = (ones(i3=-1.0), "error", ("sample_weight|weight",))
    v["nan"] = (ones(i3=np.nan), "error", ("sample_weight|weight",))
    v["inf"] = (ones(i3=np.inf), "error", ("sample_weight|weight",))
    v["all-zero"] = (lambda: np.zeros(n), "error", ("sample_weight|weight",))
    v["one-zero"] = (ones(i3=0.0), "ok", ())
    v["short"] = (lambda: np.ones(n - 1), "error", ("sample_weight|weight",))
    v["long"] = (lambda: np.ones(n + 1), "error", ("sample_weight|weight",))
    v["huge-all"] = (lambda: np.full(n, 1e300), "either", ("sample_weight|weight",))
    v["huge-one"] = (ones(i3=1e300), "either", ("sample_weight|weight",))
    v["tiny-all"] = (lambda: np.full(n, 1e-300), "either", ("sample_weight|weight",))
    v["subnormal-one"] = (ones(i3=5e-324), "either", ("sample_weight|weight",))
    v["two-d"] = (lambda: np.ones((n, 1)), "error", ("sample_weight|weight|1d|1-d|shape",))
    v["strings"] = (lambda: np.array(["1"] * n), "either", ("sample_weight|weight|float|string",))
    v["scalar"] = (lambda: 2.0, "either", ("sample_weight|weight",))
    v["list"] = (lambda: [1.0] * n, "ok", ())
    v["bools"] = (lambda: np.arange(n) % 2 == 0, "either", ("sample_weight|weight|bool",))
    v["object-none"] = (
        lambda: np.array([None] + [1.0] * (n - 1), dtype=object),
        "error",
        ("sample_weight|weight",),
    )
    v["ints"] = (lambda: np.arange(n) % 3 + 1, "ok", ())
    return v


def _weight_case(short: str, build: Callable[[], Any]):
    def run(folder: Path) -> str:
        _, X, y = fitted(short)
        est = make(short)
        est.fit(X, y, sample_weight=build())
        return exercise(est, X, short)

    return run


#: estimators whose fit is a count of weighted rows (weights 2 = the row twice)
COUNTING = ("NB", "CL", "TAN", "KDB", "AODE")


def _weight_contract(short: str, kind: str):
    def run(folder: Path) -> str:
        _, X, y = fitted(short)
        params = {"alpha": 1.0}
        w = np.ones(len(y))
        if kind == "zero-equals-dropped":
            w[:5] = 0.0
            reference = make(short, **params).fit(X.iloc[5:], y[5:])
        else:
            w[:5] = 2.0
            index = np.r_[np.arange(len(y)), np.arange(5)]
            reference = make(short, **params).fit(X.iloc[index], y[index])
        est = make(short, **params).fit(X, y, sample_weight=w)
        same(est.predict_proba(X), reference.predict_proba(X), kind)
        return exercise(est, X, short)

    return run


def cases_weights() -> Iterator[Case]:
    for short in ESTIMATORS:
        for name, (build, expect, words) in _bad_weights(40).items():
            yield Case(
                f"weight/{short}/{name}",
                "estimator-weight",
                _weight_case(short, build),
                words,
                expect,
            )
    for short in COUNTING:
        for kind in ("zero-equals-dropped", "two-equals-repeated"):
            yield Case(
                f"weight/{short}/{kind}",
                "estimator-weight",
                _weight_contract(short, kind),
                (),
                "ok",
            )


def _param_values(default: Any) -> list[tuple[str, Any, str]]:
    """(label, bad value, expect) for a parameter with this default."""
    if isinstance(default, bool):
        return [
            ("'x'", "x", "error"),
            ("'False'", "False", "error"),
            ("None", None, "either"),
            ("2", 2, "either"),
            ("-1", -1, "either"),
            ("[]", [], "error"),
        ]
    if isinstance(default, int):
        return [
            ("-1", -1, "either"),
            ("0", 0, "either"),
            ("10**9", 10**9, "either"),
            ("2.5", 2.5, "error"),
            ("'x'", "x", "error"),
            ("None", None, "either"),
            ("nan", math.nan, "error"),
            ("[]", [], "error"),
            ("2**63", 2**63, "either"),
            ("True", True, "either"),
            ("'3'", "3", "error"),
        ]
    if isinstance(default, float):
        return [
            ("-1.0", -1.0, "either"),
            ("0.0", 0.0, "either"),
            ("1e300", 1e300, "either"),
            ("nan", math.nan, "error"),
            ("inf", math.inf, "either"),
            ("-inf", -math.inf, "either"),
            ("1e-300", 1e-300, "either"),
            ("'1.0'", "1.0", "error"),
            ("'x'", "x", "error"),
            ("None", None, "either"),
            ("[]", [], "error"),
        ]
    if isinstance(default, str):
        return [
            ("'x'", "x", "error"),
            ("''", "", "error"),
            ("None", None, "either"),
            ("1", 1, "either"),
            ("1.5", 1.5, "either"),
            ("-1", -1, "either"),
            ("'AUTO'", default.upper(), "either"),
        ]
    if isinstance(default, tuple):
        return [
            ("(0,0)", (0, 0), "either"),
            ("(-1,5)", (-1, 5), "error"),
            ("'x'", "x", "error"),
            ("10**9", 10**9, "either"),
            ("None", None, "either"),
            ("(10**9,10**9)", (10**9, 10**9), "either"),
        ]
    return [
        ("'x'", "x", "either"),
        ("-1", -1, "either"),
        ("0", 0, "either"),
        ("10**9", 10**9, "either"),
        ("2.5", 2.5, "either"),
        ("[]", [], "either"),
        ("nan", math.nan, "either"),
    ]


def _param_case(short: str, param: str, value: Any):
    def run(folder: Path) -> str:
        _, X, y = fitted(short)
        est = make(short, **{param: value})
        est.fit(X, y)
        return exercise(est, X, short)

    return run


def cases_params() -> Iterator[Case]:
    for short in ESTIMATORS:
        for param, default in constructor_defaults(short).items():
            for label, value, expect in _param_values(default):
                yield Case(
                    f"param/{short}/{param}={label}",
                    "estimator-params",
                    _param_case(short, param, value),
                    (param,),
                    expect,
                )


def _partial_cases(short: str) -> dict[str, tuple[Callable[[], Any], str, tuple[str, ...]]]:
    def data():
        _, X, y = fitted(short)
        return X, y

    def first_without_classes():
        X, y = data()
        est = make(short).partial_fit(X[:20], y[:20])
        return est, X

    def classes_missing_label():
        X, y = data()
        return make(short).partial_fit(X, y, classes=[0]), X

    def new_width():
        X, y = data()
        est = make(short).partial_fit(X[:20], y[:20], classes=[0, 1])
        return est.partial_fit(X.iloc[20:, :3], y[20:]), X

    def renamed():
        X, y = data()
        est = make(short).partial_fit(X[:20], y[:20], classes=[0, 1])
        return est.partial_fit(X[20:].rename(columns={"a": "z"}), y[20:]), X

    def reordered():
        X, y = data()
        est = make(short).partial_fit(X[:20], y[:20], classes=[0, 1])
        return est.partial_fit(X[20:][["b", "a", "c", "d"]], y[20:]), X

    def new_label():
        X, y = data()
        est = make(short).partial_fit(X[:20], y[:20], classes=[0, 1])
        return est.partial_fit(X[20:], np.full(20, 7)), X

    def other_classes_later():
        X, y = data()
        est = make(short).partial_fit(X[:20], y[:20], classes=[0, 1])
        return est.partial_fit(X[20:], y[20:], classes=[0, 1, 2]), X

    def predict_without_end():
        X, y = data()
        est = make(short).partial_fit(X, y, classes=[0, 1])
        return est, X

    def empty_batch():
        X, y = data()
        est = make(short).partial_fit(X[:20], y[:20], classes=[0, 1])
        return est.partial_fit(X[:0], y[:0]), X

    def nan_batch():
        X, y = data()
        est = make(short).partial_fit(X[:20], y[:20], classes=[0, 1])
        Z = X[20:].copy()
        Z.iloc[0, 0] = np.nan
        return est.partial_fit(Z, y[20:]), X

    def duplicate_classes():
        X, y = data()
        return make(short).partial_fit(X, y, classes=[0, 1, 1, 0]), X

    def end_without_partial():
        X, _ = data()
        est = make(short)
        est.end_partial_fit()
        return est, X

    def negative_weight():
        X, y = data()
        w = np.ones(len(y))
        w[2] = -1.0
        return make(short).partial_fit(X, y, classes=[0, 1], sample_weight=w), X

    def after_fit_other_classes():
        X, y = data()
        est = make(short).fit(X, y)
        return est.partial_fit(X, np.where(y == 1, 5, 6), classes=[5, 6]), X

    def unseen_category_later():
        X, y = data()
        est = make(short).partial_fit(X[:20], y[:20], classes=[0, 1])
        Z = X[20:].copy()
        Z["d"] = "zz"
        return est.partial_fit(Z, y[20:]), X

    def nothing():
        X, _ = data()
        return make(short).partial_fit(), X

    return {
        "first-call-without-classes": (first_without_classes, "either", ("classes",)),
        "classes-missing-a-label": (classes_missing_label, "error", ("classes|label|1",)),
        "narrower-second-batch": (new_width, "error", ("feature|column|3|'d'",)),
        "renamed-second-batch": (renamed, "error", ("'z'|'a'|feature names|column",)),
        "reordered-second-batch": (reordered, "either", ("order|feature names|column",)),
        "unknown-label-later": (new_label, "error", ("7|classes|label",)),
        "other-classes-later": (other_classes_later, "either", ("classes",)),
        "predict-before-end": (predict_without_end, "ok", ()),
        "empty-batch": (empty_batch, "either", ("empty|sample|0",)),
        "nan-in-batch": (nan_batch, "ok", ()),
        "duplicate-classes": (duplicate_classes, "either", ("classes|duplicate",)),
        "end-without-partial-fit": (end_without_partial, "error", ("partial_fit|fit",)),
        "negative-weight": (negative_weight, "error", ("sample_weight|weight",)),
        "after-fit-other-classes": (after_fit_other_classes, "either", ("classes|label",)),
        "unseen-category-later": (unseen_category_later, "either", ("'d'|categor|zz",)),
        "no-arguments": (nothing, "error", ("X|y|classes|missing|none",)),
    }


def _partial_contract(short: str, n_batches: int):
    def run(folder: Path) -> str:
        X, y = codes_data(n=60)
        whole = make(short, alpha=1.0).fit(X, y)
        est = make(short, alpha=1.0)
        for part in np.array_split(np.arange(60), n_batches):
            est.partial_fit(X[part], y[part], classes=[0, 1])
        est.end_partial_fit()
        same(est.predict_proba(X), whole.predict_proba(X), f"{n_batches} batches and fit differ")
        return exercise(est, X, short)

    return run


def _partial_class_types(short: str):
    def run(folder: Path) -> str:
        _, X, y = fitted(short)
        est = make(short).partial_fit(X, y, classes=["0", "1"])
        return exercise(est, X, short)

    return run


def cases_partial() -> Iterator[Case]:
    for short in PARTIAL:
        for n_batches in (1, 3):
            yield Case(
                f"partial-fit/{short}/{n_batches}-batches-equal-fit",
                "partial-fit",
                _partial_contract(short, n_batches),
                (),
                "ok",
            )
        yield Case(
            f"partial-fit/{short}/classes-as-strings-labels-as-ints",
            "partial-fit",
            _partial_class_types(short),
            ("classes|label",),
            "error",
        )
        for name, (build, expect, words) in _partial_cases(short).items():

            def run(folder: Path, build=build, short=short) -> str:
                est, X = build()
                return exercise(est, X, short)

            yield Case(f"partial-fit/{short}/{name}", "partial-fit", run, words, expect)


# ------------------------------------------------------------------ model files

JSON_ESTIMATORS = ("NB", "CL", "TAN", "KDB", "AODE", "ENS", "BOOST", "DT", "EAR")


def _json_leaves(node: Any, path: tuple = ()) -> Iterator[tuple[tuple, Any]]:
    """(path, value) of every scalar and array record of a JSON document."""
    if isinstance(node, dict):
        if "__ndarray__" in node:
            yield path, node
            return
        for key, value in node.items():
            yield from _json_leaves(value, (*path, key))
    elif isinstance(node, list):
        if len(node) == 2 and isinstance(node[0], str):  # a stored [name, value] pair
            yield from _json_leaves(node[1], (*path, 1))
            return
        for i, value in enumerate(node):
            yield from _json_leaves(value, (*path, i))
    else:
        yield path, node


def _get(document: Any, path: tuple) -> Any:
    for key in path:
        document = document[key]
    return document


def _field_names(document: Any, path: tuple) -> list[str]:
    """The names of the stored fields on a leaf's path (outermost first)."""
    node, names = document, []
    for key in path:
        if isinstance(node, list) and len(node) == 2 and isinstance(node[0], str) and key == 1:
            names.append(node[0])
        node = node[key]
    return names


@functools.cache
def json_document(short: str) -> str:
    from discotree.io import json_model

    est, _, _ = fitted(short)
    return json_model.dumps({"model": est, "target": "label", "name": short})


#: Leaves of each kind tampered with in each model's document
LEAVES = 8


@functools.cache
def _chosen_leaves(short: str, kind: str) -> list[tuple[tuple, str]]:
    """A deterministic spread of (path, field names) over a document's leaves of a
    kind ("number" or "array"), found when a case runs (so that listing the cases
    fits no model)."""
    document = json.loads(json_document(short))
    leaves = [(p, v) for p, v in _json_leaves(document["content"]) if p]
    if kind == "number":
        group = [p for p, v in leaves if isinstance(v, (int, float)) and not isinstance(v, bool)]
    else:
        group = [p for p, v in leaves if isinstance(v, dict)]
    step = max(1, len(group) // LEAVES)
    chosen = []
    for p in group[::step][:LEAVES]:
        names = _field_names(document, ("content", *p))
        chosen.append((("content", *p), "|".join(n for n in names if n != "model")))
    return chosen


def _leaf_words(short: str, kind: str, index: int) -> tuple[str, ...]:
    leaves = _chosen_leaves(short, kind)
    return (f"{leaves[index][1]}|model file",) if index < len(leaves) else ("model file",)


NUMBER_TAMPER: dict[str, tuple[Any, bool]] = {
    # label -> (replacement, whether a changed answer is a wrong answer)
    "nan": (math.nan, True),
    "inf": (math.inf, True),
    "null": (None, True),
    "string": ("x", True),
    "list": ([], True),
    "negative": (-1, False),
    "huge": (1e300, False),
    "float-for-int": (0.5, False),
}
ARRAY_TAMPER = ("nan-entry", "shape-grown", "bytes-cut", "dtype-object", "shape-negative")


def _tamper_array(record: dict, how: str) -> dict:
    import base64

    record = dict(record)
    if "bytes" not in record:  # an object array stores its items
        items = list(record.get("items", []))
        if how == "nan-entry":
            record["items"] = [None, *items[1:]]
        elif how == "bytes-cut":
            record["items"] = items[: len(items) // 2]
        elif how == "shape-grown":
            record["shape"] = [s + 1 for s in record["shape"]] or [1]
        elif how == "dtype-object":
            record["__ndarray__"] = "<f8"
        elif how == "shape-negative":
            record["shape"] = [-1, *record["shape"][1:]]
        return record
    raw = base64.b64decode(record["bytes"])
    if how == "nan-entry" and record["__ndarray__"] in ("<f8", "float64"):
        values = np.frombuffer(raw, "<f8").copy()
        if values.size:
            values[values.size // 2] = np.nan
        record["bytes"] = base64.b64encode(values.tobytes()).decode()
    elif how == "nan-entry":
        record["bytes"] = base64.b64encode(raw[::-1]).decode()  # reversed bytes
    elif how == "shape-grown":
        record["shape"] = [s + 1 for s in record["shape"]] or [1]
    elif how == "bytes-cut":
        record["bytes"] = base64.b64encode(raw[: len(raw) // 2]).decode()
    elif how == "dtype-object":
        record["__ndarray__"] = "|O"
    elif how == "shape-negative":
        record["shape"] = [-1, *record["shape"][1:]]
    return record


def _json_tamper_case(short: str, kind: str, index: int, how: str):
    def run(folder: Path) -> str:
        leaves = _chosen_leaves(short, kind)
        if index >= len(leaves):
            return f"the document has only {len(leaves)} {kind} leaves"
        path, name = leaves[index]
        try:
            return _tamper(short, path, name, how)
        except BaseException as err:
            err.add_note(f"tampered: {name.replace('|', '.')} at {'.'.join(map(str, path))}")
            raise

    return run


def _tamper(short: str, path: tuple, name: str, how: str) -> str:
    from discotree.io import json_model

    if True:
        document = json.loads(json_document(short))
        parent = _get(document, path[:-1])
        key = path[-1]
        wrong_if_changed = True
        if how in NUMBER_TAMPER:
            value, wrong_if_changed = NUMBER_TAMPER[how]
            parent[key] = value
        else:
            parent[key] = _tamper_array(parent[key], how)
        text = json.dumps(document)
        saved = json_model.loads(text)
        est = saved["model"]
        _, X, _ = fitted(short)
        summary = exercise(est, X, short)
        if wrong_if_changed or how in ARRAY_TAMPER:
            original, _, _ = fitted(short)
            if not is_selector(est):
                same(
                    _use(est, X, "predict_proba"),
                    _use(original, X, "predict_proba"),
                    f"the tampered file loads and predicts otherwise ({name})",
                )
        return summary


def _json_structure_cases() -> CaseTable:
    from_text = {
        "empty-text": ("", ("json|empty|model file|expecting",)),
        "not-json": ("not json at all", ("json|expecting|model file",)),
        "a-list": ("[1, 2, 3]", ("format|model|object",)),
        "no-content": ('{"format": "discotree-model", "version": 1}', ("content",)),
        "wrong-format": ('{"format": "pickle", "version": 1, "content": null}', ("format",)),
        "future-version": (
            '{"format": "discotree-model", "version": 99, "content": null}',
            ("version",),
        ),
        "version-string": (
            '{"format": "discotree-model", "version": "1", "content": null}',
            ("version",),
        ),
        "deep-nesting": (
            '{"format":"discotree-model","version":1,"content":'
            + "[" * 100_000
            + "]" * 100_000
            + "}",
            ("nested|deep",),
        ),
        "foreign-object": (
            '{"format":"discotree-model","version":1,"content":{"__object__":"os.system","state":{"__dict__":[]}}}',
            ("os.system|not|allowed|class",),
        ),
        "builtin-eval": (
            '{"format":"discotree-model","version":1,"content":{"__object__":"builtins.eval","state":{}}}',
            ("builtins.eval|not|allowed|class",),
        ),
        "truncated": (None, ("json|expecting|unterminated|model file|truncated",)),
        "nan-token-in-content": (
            '{"format":"discotree-model","version":1,"content":NaN}',
            ("content|nan|model",),
        ),
        "huge-number": (
            '{"format":"discotree-model","version":1,"content":' + "9" * 5000 + "}",
            ("content|digits|integer|number|limit",),
        ),
        "duplicate-keys": (
            '{"format":"discotree-model","version":1,"version":2,"content":null}',
            ("version|duplicate",),
        ),
        "huge-ndarray": (
            '{"format":"discotree-model","version":1,"content":{"__ndarray__":"<f8","shape":[1000000,1000000],"bytes":""}}',
            ("shape|bytes|array",),
        ),
    }

    def make_run(text: str | None, mode: str):
        def run(folder: Path) -> str:
            from discotree.io import json_model

            body = json_document("NB")[: len(json_document("NB")) // 2] if text is None else text
            if mode == "loads":
                saved = json_model.loads(body)
            else:
                path = folder / "m.json"
                path.write_text(body)
                saved = json_model.load_json(path)
            raise Silent(f"accepted, giving {type(saved).__name__}")

        return run

    out: CaseTable = {}
    for name, (text, words) in from_text.items():
        for mode in ("loads", "load_json"):
            out[f"{mode}/{name}"] = (make_run(text, mode), "error", words)

    def size_limit(folder: Path) -> str:
        import discotree
        from discotree.io import json_model

        path = folder / "sparse.json"
        with path.open("wb") as handle:
            handle.truncate(20 * 2**30)
        with discotree.config_context(model_file_limit=1000):
            json_model.load_json(path)
        raise Silent("a 20 GB file was read")

    out["load_json/sparse-20GB-file"] = (size_limit, "error", ("limit",))

    def binary(folder: Path) -> str:
        from discotree.io import json_model

        path = folder / "m.json"
        path.write_bytes(b"{\xff\xfe\x00garbage")
        json_model.load_json(path)
        raise Silent("binary accepted")

    out["load_json/binary"] = (binary, "error", ("utf|decode|json|model file",))

    def missing(folder: Path) -> str:
        from discotree.io import json_model

        json_model.load_json(folder / "nothing.json")
        raise Silent("a missing file loaded")

    out["load_json/missing-file"] = (missing, "error", ("nothing.json|no such|not found",))
    return out


def _save_json_cases() -> CaseTable:
    def over_key(folder: Path) -> str:
        from discotree.io import json_model
        from discotree.output_files import signing_key_path

        key = signing_key_path()
        protect(folder, [key])
        try:
            json_model.save_json(fitted("NB")[0], key)
        finally:
            verify(folder, False)
        raise Silent("the signing key was overwritten by a model")

    def unfitted(folder: Path) -> str:
        from discotree.io import json_model

        json_model.save_json(make("NB"), folder / "m.json")
        saved = json_model.load_json(folder / "m.json")
        _use(saved, fitted("NB")[1], "predict")
        raise Silent("an unfitted model predicted")

    def into_missing_dir(folder: Path) -> str:
        from discotree.io import json_model

        json_model.save_json(fitted("NB")[0], folder / "no" / "such" / "m.json")
        return "wrote into a new folder"

    def not_serialisable(folder: Path) -> str:
        from discotree.io import json_model

        json_model.save_json({"model": lambda: 1}, folder / "m.json")
        raise Silent("a lambda was saved")

    def over_directory(folder: Path) -> str:
        from discotree.io import json_model

        (folder / "d").mkdir()
        json_model.save_json(fitted("NB")[0], folder / "d")
        raise Silent("saved over a directory")

    return {
        "save_json/over-signing-key": (over_key, "error", ("key",)),
        "save_json/unfitted-model": (unfitted, "either", ("fit",)),
        "save_json/missing-folder": (
            into_missing_dir,
            "either",
            ("no such|folder|directory|exist",),
        ),
        "save_json/lambda": (not_serialisable, "error", ("function|lambda|cannot|serial|json",)),
        "save_json/over-directory": (over_directory, "error", ("directory|folder|'d'|/d",)),
    }


def _round_trip(short: str, form: str):
    """Saving and loading gives the same answers."""

    def run(folder: Path) -> str:
        from discotree.io import json_model
        from discotree.model_file import load_model, save_model

        est, X, _ = fitted(short)
        path = folder / f"m.{form}"
        if form == "json":
            json_model.save_json({"model": est}, path)
            loaded = json_model.load_json(path)["model"]
        else:
            save_model({"model": est}, path)
            loaded = load_model(path)["model"]
        for method in ("predict_proba", "predict"):
            same(
                _use(loaded, X, method), _use(est, X, method), f"{method} after a {form} round trip"
            )
        return exercise(loaded, X, short)

    return run


def cases_model_json() -> Iterator[Case]:
    for short in JSON_ESTIMATORS:
        for kind, hows in (("number", list(NUMBER_TAMPER)), ("array", list(ARRAY_TAMPER))):
            for index in range(LEAVES):
                for how in hows:
                    yield Case(
                        f"model-json/{short}/{kind}{index}/{how}",
                        "model-json",
                        _json_tamper_case(short, kind, index, how),
                        (),
                        "either",
                        words_of=functools.partial(_leaf_words, short, kind, index),
                    )
        for field_name in ("classes_", "n_features_in_", "encoder_", "__object__"):

            def drop(folder: Path, short=short, field_name=field_name) -> str:
                from discotree.io import json_model

                document = json.loads(json_document(short))
                model = next(v for k, v in document["content"]["__dict__"] if k == "model")
                if field_name == "__object__":
                    del model["__object__"]
                else:
                    pairs = model["state"]["__dict__"]
                    pairs[:] = [p for p in pairs if p[0] != field_name]
                saved = json_model.loads(json.dumps(document))
                est = saved["model"]
                _, X, _ = fitted(short)
                exercise(est, X, short)
                raise Silent(f"a model without {field_name} loaded and predicted")

            yield Case(
                f"model-json/{short}/missing-{field_name.strip('_')}",
                "model-json",
                drop,
                (f"{field_name}|state|model",),
                "error",
            )
    for short in JSON_ESTIMATORS:
        yield Case(
            f"model-json/{short}/round-trip", "model-json", _round_trip(short, "json"), (), "ok"
        )
    for name, (run, expect, words) in {**_json_structure_cases(), **_save_json_cases()}.items():
        yield Case(f"model-json/{name}", "model-json", run, words, expect)


def _pickle_cases() -> CaseTable:
    def saved(folder: Path) -> Path:
        from discotree.model_file import save_model

        path = folder / "m.model"
        save_model({"model": fitted("NB")[0], "target": "label"}, path)
        return path

    def tampered(edit: Callable[[bytes], bytes], words: tuple[str, ...]):
        def run(folder: Path) -> str:
            from discotree.model_file import load_model

            path = saved(folder)
            path.write_bytes(edit(path.read_bytes()))
            content = load_model(path)
            exercise(content["model"], fitted("NB")[1], "NB")
            raise Silent("a tampered pickle loaded")

        return (run, "error", words)

    from discotree.model_file import MAGIC

    def flip(offset: int) -> Callable[[bytes], bytes]:
        def edit(data: bytes) -> bytes:
            i = offset if offset >= 0 else len(data) + offset
            return data[:i] + bytes([data[i] ^ 0x01]) + data[i + 1 :]

        return edit

    sig = ("key|altered|signature|not written|header|model file",)
    out = {
        "flip-header": tampered(flip(3), sig),
        "flip-signature": tampered(flip(len(MAGIC) + 2), sig),
        "flip-payload-start": tampered(flip(len(MAGIC) + 70), sig),
        "flip-last-byte": tampered(flip(-1), sig),
        "truncated-half": tampered(lambda d: d[: len(d) // 2], sig),
        "header-only": tampered(lambda d: d[: len(MAGIC)], sig),
        "empty": tampered(lambda d: b"", sig),
        "appended": tampered(lambda d: d + b"\x00" * 10, sig),
        "other-version": tampered(lambda d: d.replace(b"MODEL 1", b"MODEL 9", 1), sig),
        "raw-pickle": tampered(lambda d: d[len(MAGIC) + 64 :], sig),
        "unsigned-joblib": tampered(lambda d: _joblib_bytes(), sig),
    }

    def with_key(content: bytes | None, mode: int, words: tuple[str, ...], kind: str = "file"):
        def run(folder: Path) -> str:
            from discotree.model_file import load_model, save_model

            key = folder / "other-key"
            if kind == "dir":
                key.mkdir()
            elif kind == "link":
                real = folder / "real-key"
                real.write_bytes(os.urandom(32))
                real.chmod(0o600)
                key.symlink_to(real)
            elif content is not None:
                key.write_bytes(content)
                key.chmod(mode)
            os.environ["DISCOTREE_KEY_FILE"] = str(key)
            path = folder / "m.model"
            save_model({"model": fitted("NB")[0], "target": "label"}, path)
            load_model(path)
            if content is None and kind == "file":
                if not key.exists() or key.stat().st_mode & 0o077:
                    raise Silent("a new key was not written for its owner only")
                return "created a key for its owner only"
            if kind == "link":
                return "a link to a good key is a key"
            raise Silent("a bad key was used")

        return run

    keyw = ("key",)
    out["key/short"] = (with_key(b"short", 0o600, keyw), "error", keyw)
    out["key/empty"] = (with_key(b"", 0o600, keyw), "error", keyw)
    out["key/world-readable"] = (with_key(os.urandom(32), 0o644, keyw), "error", keyw)
    out["key/group-writable"] = (with_key(os.urandom(32), 0o620, keyw), "error", keyw)
    out["key/too-long"] = (with_key(os.urandom(70_000), 0o600, keyw), "error", keyw)
    out["key/is-a-directory"] = (with_key(None, 0o600, keyw, "dir"), "error", keyw)
    out["key/missing-is-created"] = (with_key(None, 0o600, keyw), "ok", ())
    out["key/symlink-to-good-key"] = (with_key(None, 0o600, keyw, "link"), "either", keyw)

    def other_users_key(folder: Path) -> str:
        from discotree.model_file import load_model

        path = saved(folder)
        key = folder / "second-key"
        key.write_bytes(os.urandom(32))
        key.chmod(0o600)
        os.environ["DISCOTREE_KEY_FILE"] = str(key)
        load_model(path)
        raise Silent("a pickle signed with another key loaded")

    out["key/signed-with-another-key"] = (other_users_key, "error", sig)

    def save_over_key(folder: Path) -> str:
        from discotree.model_file import save_model
        from discotree.output_files import signing_key_path

        saved(folder)  # the key exists
        key = signing_key_path()
        protect(folder, [key])
        try:
            save_model({"model": fitted("NB")[0]}, key)
        finally:
            verify(folder, False)
        raise Silent("a model was written over the signing key")

    out["key/save-model-over-key"] = (save_over_key, "error", ("key",))

    def size_limit(folder: Path) -> str:
        import discotree
        from discotree.model_file import load_model

        path = saved(folder)
        with discotree.config_context(model_file_limit=100):
            load_model(path)
        raise Silent("a file over the limit was read")

    out["size-limit"] = (size_limit, "error", ("limit",))

    def missing(folder: Path) -> str:
        from discotree.model_file import load_model

        saved(folder)
        load_model(folder / "none.model")
        raise Silent("loaded nothing")

    out["missing-file"] = (missing, "error", ("none.model|no such|not found",))

    def directory(folder: Path) -> str:
        from discotree.model_file import load_model

        saved(folder)
        (folder / "d.model").mkdir()
        load_model(folder / "d.model")
        raise Silent("loaded a directory")

    out["directory"] = (directory, "error", ("d.model|directory|not a file",))
    return out


def _joblib_bytes() -> bytes:
    import joblib

    buffer = io.BytesIO()
    joblib.dump({"model": 1}, buffer)
    return buffer.getvalue()


def cases_model_pickle() -> Iterator[Case]:
    for short in ESTIMATORS:
        if short != "SFS":
            yield Case(
                f"model-pickle/{short}/round-trip",
                "model-pickle",
                _round_trip(short, "pickle"),
                (),
                "ok",
            )
    for name, (run, expect, words) in _pickle_cases().items():
        yield Case(f"model-pickle/{name}", "model-pickle", run, words, expect)


# ------------------------------------------------------------------ explanations

EXPLAIN_ESTIMATORS = ("NB", "CL", "TAN", "KDB", "AODE", "ENS", "DT", "BOOST", "EAR")
UNCERTAINTY_ESTIMATORS = ("NB", "CL", "TAN", "KDB", "AODE", "ENS")


def _importance_cases(short: str) -> CaseTable:
    def run_with(**kw):
        def run(folder: Path) -> str:
            from discotree.importance import summed_out_importances

            est, X, y = fitted(short)
            args = {"X": X, "y": y, "sample_weight": None, **kw}
            result = summed_out_importances(est, args["X"], args["y"], args["sample_weight"])
            n_rows = len(args["X"])
            evidence = np.asarray(result.evidence)
            if evidence.shape != (X.shape[1], n_rows) or not np.isfinite(evidence).all():
                raise Silent(f"evidence has shape {evidence.shape} or is not finite")
            mean = np.asarray(result.evidence_mean)
            if not np.isfinite(mean).all():
                raise Silent("evidence_mean is not finite")
            if "importances_mean" in result and not np.isfinite(result.importances_mean).all():
                raise Silent("importances_mean is not finite")
            return "importances ok"

        return run

    _, X, y = fitted(short)
    n = len(y)
    w = "sample_weight|weight"
    return {
        "weight-negative": (run_with(sample_weight=np.r_[-1.0, np.ones(n - 1)]), "error", (w,)),
        "weight-nan": (run_with(sample_weight=np.r_[np.nan, np.ones(n - 1)]), "error", (w,)),
        "weight-inf": (run_with(sample_weight=np.r_[np.inf, np.ones(n - 1)]), "error", (w,)),
        "weight-all-zero": (run_with(sample_weight=np.zeros(n)), "error", (w,)),
        "weight-short": (run_with(sample_weight=np.ones(n - 1)), "error", (w,)),
        "weight-1e300": (run_with(sample_weight=np.full(n, 1e300)), "either", (w,)),
        "weight-1e-300": (run_with(sample_weight=np.full(n, 1e-300)), "either", (w,)),
        "weight-2d": (run_with(sample_weight=np.ones((n, 1))), "error", (w,)),
        "y-unseen-label": (run_with(y=np.full(n, 9)), "error", ("label|class|9",)),
        "y-short": (run_with(y=y[:-2]), "error", ("length|samples|inconsistent|y",)),
        "y-nan": (run_with(y=np.r_[np.nan, y[1:].astype(float)]), "error", ("nan|label|y",)),
        "X-renamed": (
            run_with(X=X.rename(columns={"a": "z"})),
            "error",
            ("'z'|'a'|column|feature",),
        ),
        "X-narrower": (run_with(X=X.iloc[:, :3], y=y), "error", ("column|feature|3",)),
        "X-reordered": (run_with(X=X[["b", "a", "c", "d"]]), "either", ("order|column|feature",)),
        "X-empty": (run_with(X=X.iloc[:0], y=y[:0]), "either", ("sample|empty|0|row",)),
        "X-nan-row": (run_with(X=X.assign(a=np.r_[np.nan, X["a"].to_numpy()[1:]])), "ok", ()),
        "X-array": (run_with(X=X.to_numpy()), "either", ("feature names|column",)),
        "X-none": (run_with(X=None), "error", ("X|none|array",)),
        "unfitted": (
            (
                lambda folder: __import__("discotree.importance").importance.summed_out_importances(
                    make(short), X, y
                )
            ),
            "error",
            ("fit",),
        ),
    }


def _shapley_cases(short: str) -> CaseTable:
    def run_with(**kw):
        def run(folder: Path) -> str:
            from discotree.shapley import shapley_values

            est, X, _ = fitted(short)
            rows = kw.pop("rows", X.iloc[:4])
            result = shapley_values(est, rows, **kw)
            values = np.asarray(result.values)
            if values.shape[0] != len(rows) or not np.isfinite(values).all():
                raise Silent(f"values have shape {values.shape} or are not finite")
            return f"shapley {values.shape}"

        return run

    _, X, _ = fitted(short)
    return {
        "kind-x": (run_with(kind="x"), "error", ("kind",)),
        "kind-none": (run_with(kind=None), "error", ("kind",)),
        "background-renamed": (
            run_with(kind="interventional", background=X.rename(columns={"a": "z"})),
            "error",
            ("background|'z'|column",),
        ),
        "background-narrower": (
            run_with(kind="interventional", background=X.iloc[:, :3]),
            "error",
            ("background|column|feature",),
        ),
        "background-empty": (
            run_with(kind="interventional", background=X.iloc[:0]),
            "error",
            ("background|empty|row",),
        ),
        "background-array": (
            run_with(kind="interventional", background=X.to_numpy()),
            "either",
            ("background|column|feature",),
        ),
        "background-nan": (
            run_with(kind="interventional", background=X.assign(a=np.nan)),
            "either",
            ("background|nan|missing",),
        ),
        "background-one-row": (run_with(kind="interventional", background=X.iloc[:1]), "ok", ()),
        "background-for-conditional": (
            run_with(kind="conditional", background=X),
            "either",
            ("background|conditional",),
        ),
        "n_permutations=-1": (
            run_with(max_exact_features=0, n_permutations=-1),
            "error",
            ("n_permutations",),
        ),
        "n_permutations=0": (
            run_with(max_exact_features=0, n_permutations=0),
            "error",
            ("n_permutations",),
        ),
        "n_permutations=10**9": (
            run_with(max_exact_features=0, n_permutations=10**9),
            "either",
            ("n_permutations|memory",),
        ),
        "n_permutations=2.5": (
            run_with(max_exact_features=0, n_permutations=2.5),
            "error",
            ("n_permutations",),
        ),
        "n_permutations='x'": (
            run_with(max_exact_features=0, n_permutations="x"),
            "error",
            ("n_permutations",),
        ),
        "n_permutations=1": (  # a standard error needs two draws
            run_with(max_exact_features=0, n_permutations=1),
            "error",
            ("n_permutations",),
        ),
        "n_permutations=None": (  # the documented default: a number chosen by method
            run_with(max_exact_features=0, n_permutations=None),
            "ok",
            (),
        ),
        "max_exact_features=-1": (
            run_with(max_exact_features=-1),
            "either",
            ("max_exact_features",),
        ),
        "max_exact_features=10**9": (run_with(max_exact_features=10**9), "ok", ()),
        "max_exact_features='x'": (
            run_with(max_exact_features="x"),
            "error",
            ("max_exact_features",),
        ),
        "max_exact_features=2.5": (
            run_with(max_exact_features=2.5),
            "error",
            ("max_exact_features",),
        ),
        "random_state='x'": (
            run_with(max_exact_features=0, n_permutations=4, random_state="x"),
            "error",
            ("random_state",),
        ),
        "random_state=-1": (
            run_with(max_exact_features=0, n_permutations=4, random_state=-1),
            "error",
            ("random_state",),
        ),
        "random_state=2**40": (
            run_with(max_exact_features=0, n_permutations=4, random_state=2**40),
            "either",
            ("random_state",),
        ),
        "rows-renamed": (
            run_with(rows=X.iloc[:4].rename(columns={"a": "z"})),
            "error",
            ("'z'|'a'|column|feature",),
        ),
        "rows-narrower": (run_with(rows=X.iloc[:4, :3]), "error", ("column|feature|3",)),
        "rows-empty": (run_with(rows=X.iloc[:0]), "either", ("empty|row|sample",)),
        "rows-nan": (run_with(rows=X.iloc[:4].assign(a=np.nan)), "ok", ()),
        "rows-none": (run_with(rows=None), "error", ("X|none|array",)),
    }


def _uncertainty_cases(short: str) -> CaseTable:
    def run_with(**kw):
        def run(folder: Path) -> str:
            est, X, _ = fitted(short)
            rows = kw.pop("rows", X.iloc[:5])
            u = est.predict_uncertainty(rows, **kw)
            n = len(rows)
            for name in ("total", "data", "knowledge"):
                value = np.asarray(u[name])
                if value.shape != (n,) or not np.isfinite(value).all():
                    raise Silent(f"{name} has shape {value.shape} or is not finite")
            check_proba(u.mean, n, len(est.classes_), "mean")
            lower, upper = np.asarray(u.lower), np.asarray(u.upper)
            if not (
                np.isfinite(lower).all()
                and np.isfinite(upper).all()
                and (lower <= upper + 1e-12).all()
            ):
                raise Silent("credible intervals are not finite or lower > upper")
            return "uncertainty ok"

        return run

    _, X, _ = fitted(short)
    return {
        "n_draws=-1": (run_with(n_draws=-1), "error", ("n_draws",)),
        "n_draws=0": (run_with(n_draws=0), "error", ("n_draws",)),
        "n_draws=1": (run_with(n_draws=1), "either", ("n_draws",)),
        "n_draws=10**9": (run_with(n_draws=10**9), "error", ("n_draws|memory",)),
        "n_draws=2.5": (run_with(n_draws=2.5), "error", ("n_draws",)),
        "n_draws='x'": (run_with(n_draws="x"), "error", ("n_draws",)),
        "n_draws=None": (run_with(n_draws=None), "error", ("n_draws",)),
        "interval=-0.1": (run_with(interval=-0.1), "error", ("interval",)),
        "interval=0": (run_with(interval=0.0), "either", ("interval",)),
        "interval=1": (run_with(interval=1.0), "either", ("interval",)),
        "interval=1.5": (run_with(interval=1.5), "error", ("interval",)),
        "interval=nan": (run_with(interval=math.nan), "error", ("interval",)),
        "interval='x'": (run_with(interval="x"), "error", ("interval",)),
        "random_state='x'": (run_with(random_state="x"), "error", ("random_state",)),
        "random_state=-1": (run_with(random_state=-1), "error", ("random_state",)),
        "random_state=None": (run_with(random_state=None), "ok", ()),
        "rows-narrower": (run_with(rows=X.iloc[:5, :3]), "error", ("column|feature|3",)),
        "rows-renamed": (
            run_with(rows=X.iloc[:5].rename(columns={"a": "z"})),
            "error",
            ("'z'|'a'|column|feature",),
        ),
        "rows-nan": (run_with(rows=X.iloc[:5].assign(a=np.nan)), "ok", ()),
        "rows-empty": (run_with(rows=X.iloc[:0]), "either", ("empty|row|sample",)),
    }


def _importances_attribute(short: str, rows: int | None):
    def run(folder: Path) -> str:
        import discotree

        _, X, y = fitted(short)
        changes = {} if rows is None else {"importance_rows": rows}
        with discotree.config_context(**changes):
            est = make(short).fit(X, y)
        values = np.asarray(est.feature_importances_)
        if values.shape != (X.shape[1],) or not np.isfinite(values).all():
            raise Silent(f"feature_importances_ {values}")
        return "feature_importances_ ok"

    return run


def _edge_case(short: str, row: Callable[[pd.DataFrame], Any]):
    def run(folder: Path) -> str:
        from discotree.explain import edge_contributions

        est, X, _ = fitted(short)
        x = row(X)
        result = edge_contributions(est, x)
        values = np.array(list(result.values()), dtype=float)
        if not np.isfinite(values).all():
            raise Silent(f"edge contributions are not finite: {result}")
        log_proba = est.predict_log_proba(x if getattr(x, "ndim", 2) == 2 else X.iloc[5:6])
        odds = float(log_proba[0, 1] - log_proba[0, 0])
        if not math.isclose(values.sum(), odds, rel_tol=1e-7, abs_tol=1e-7):
            raise Silent(f"the contributions add up to {values.sum():.6g}, not {odds:.6g}")
        return f"{len(result)} contributions adding up to the log-odds"

    return run


def cases_explain() -> Iterator[Case]:
    for short in EXPLAIN_ESTIMATORS:
        for name, (run, expect, words) in _importance_cases(short).items():
            yield Case(f"explain/importances/{short}/{name}", "explain", run, words, expect)

    def density_importances(folder: Path) -> str:
        from discotree.importance import summed_out_importances

        est, X, y = fitted("KNB")
        result = summed_out_importances(est, X, y)
        if not np.isfinite(result.evidence_mean).all():
            raise Silent("evidence_mean is not finite")
        return "importances ok"

    yield Case(
        "explain/importances/KNB/model-without-missing-values",
        "explain",
        density_importances,
        ("missing|nan|sum",),
        "either",
    )
    for short in ESTIMATORS:
        if short == "SFS":
            continue
        for rows, expect in (
            (None, "ok"),
            (0, "error"),
            (1, "either"),
            (10**9, "ok"),
            (-1, "error"),
        ):
            yield Case(
                f"explain/feature_importances_/{short}/importance_rows={rows}",
                "explain",
                _importances_attribute(short, rows),
                ("importance_rows",),
                expect,
                accept=(AttributeError,),
            )
    for short in ("NB", "CL", "TAN", "DT"):
        for name, (row, expect, words) in {
            "one-row": (lambda X: X.iloc[5:6], "ok", ()),
            "series": (lambda X: X.iloc[5], "either", ("2-dimensional|dataframe|row",)),
            "two-rows": (lambda X: X.iloc[:2], "error", ("row|one|1",)),
            "nan-row": (lambda X: X.iloc[5:6].assign(a=np.nan), "ok", ()),
            "all-nan-row": (lambda X: X.iloc[5:6].map(lambda _: np.nan), "ok", ()),
            "narrower": (lambda X: X.iloc[5:6, :3], "error", ("column|feature|'d'|3",)),
            "renamed": (
                lambda X: X.iloc[5:6].rename(columns={"a": "z"}),
                "error",
                ("'z'|'a'|column|feature",),
            ),
            "array-row": (lambda X: X.iloc[5:6].to_numpy(), "either", ("feature names|column",)),
            "none": (lambda X: None, "error", ("none|row|x",)),
        }.items():
            yield Case(
                f"explain/edge_contributions/{short}/{name}",
                "explain",
                _edge_case(short, row),
                words,
                expect,
            )
    for short in ("NB", "TAN", "KDB", "ENS", "BOOST"):
        for name, (run, expect, words) in _shapley_cases(short).items():
            yield Case(f"explain/shapley/{short}/{name}", "explain", run, words, expect)
    for short in UNCERTAINTY_ESTIMATORS:
        for name, (run, expect, words) in _uncertainty_cases(short).items():
            if short in ("NB", "CL", "TAN"):
                yield Case(f"explain/uncertainty/{short}/{name}", "explain", run, words, expect)
            elif name == "n_draws=1":  # not supported: must say so
                yield Case(
                    f"explain/uncertainty/{short}/unsupported-model",
                    "explain",
                    run,
                    (
                        "uncertainty|support|k <= 1|maximum-likelihood|not available|"
                        + ESTIMATORS[short][0],
                    ),
                    "either",
                    accept=(AttributeError,),  # hasattr is False where it cannot work
                )


# ------------------------------------------------------------------ the CLI


def _fit_model(
    folder: Path, model: str = "nb", fmt: str = "json", data: Path | None = None
) -> Path:
    data = data or train_csv(folder)
    out = folder / ("model.json" if fmt == "json" else "model.pkl")
    _fit(data, out, "--model", model, "--format", fmt)
    return out


def _fit(data: Path, target: Path, *extra: Any) -> str:
    """``discotree fit`` on ``data`` (target column ``label``) to ``target``, quietly,
    with ``extra`` options."""
    return cli("fit", "--data", data, "--target", "label", "-o", target, "--quiet", *extra)


def _predict(model: Path, data: Path, target: Path, *extra: Any) -> str:
    """``discotree predict`` of ``model`` on ``data`` to ``target``, quietly, with
    ``extra`` options."""
    return cli("predict", "--model", model, "--data", data, "-o", target, "--quiet", *extra)


def _cli_cases() -> CaseTable:
    out: CaseTable = {}

    def fit_with(data_maker: Callable[[Path], Path], *extra: Any, model: str = "nb"):
        def run(folder: Path) -> str:
            data = data_maker(folder)
            target = folder / "model.json"
            inputs = [p for p in (data,) if p.exists()]
            protect(folder, inputs, [target])
            with verified(folder, model_valid):
                _fit(data, target, "--model", model, *extra)
            if not model_valid(target):
                raise Silent("fit reported success but the model file does not load")
            saved = _load_cli_model(target)
            return f"fitted {type(saved['model']).__name__}"

        return run

    def text_file(content: str | bytes, name: str = "data.csv"):
        def maker(folder: Path) -> Path:
            path = folder / name
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content)
            return path

        return maker

    good = "a,b,label\n" + "".join(
        f"{i % 3},{(i * 7) % 4},{'yes' if i % 2 else 'no'}\n" for i in range(30)
    )
    out["fit/missing-data-file"] = (
        fit_with(lambda f: f / "nothing.csv"),
        "error",
        ("nothing.csv",),
    )
    #: (case, the data file's content, what is expected, the words of a refusal)
    data_files: list[tuple[str, str | bytes, str, tuple[str, ...]]] = [
        (
            "binary-data",
            bytes(range(256)) * 4,
            "error",
            ("data.csv|decode|utf|binary|parse|column|label",),
        ),
        ("empty-file", "", "error", ("empty|no columns|data.csv|label",)),
        ("header-only", "a,b,label\n", "error", ("no rows|empty|0 rows|sample|rows",)),
        ("short-rows", good + "1\n2,3\n", "either", ("line|row|field|column|label|missing",)),
        ("long-rows", good + "1,2,yes,9,9\n", "error", ("line|row|field|expected|column",)),
        (
            "duplicate-header",
            good.replace("a,b,label", "a,a,label", 1),
            "error",
            ("duplicate|'a'|column",),
        ),
        (
            "duplicate-target-header",
            good.replace("a,b,label", "label,b,label", 1),
            "error",
            ("duplicate|label|column",),
        ),
        ("missing-target-column", good.replace("label", "other", 1), "error", ("label",)),
        (
            "target-all-empty",
            "a,b,label\n" + "1,2,\n" * 20,
            "error",
            ("label|class|missing|target",),
        ),
        ("target-some-empty", good + "1,2,\n", "either", ("label|missing|target|line",)),
        ("one-class", "a,b,label\n" + "1,2,yes\n0,1,yes\n" * 10, "either", ("class",)),
        ("one-row", "a,b,label\n1,2,yes\n", "either", ("class|row|sample",)),
        ("bom-header", "\ufeff" + good, "either", ("label|bom",)),
        ("semicolons", good.replace(",", ";"), "error", ("label|column|separator|;",)),
        (
            "non-utf8",
            good.encode() + b"\xff\xfe,1,yes\n",
            "either",
            ("utf|decode|line|byte|encoding",),
        ),
        ("quoted-newline", good + '"1\n2",3,yes\n', "either", ("line|row|'a'",)),
        ("nan-strings", good + "nan,inf,yes\n", "either", ("inf|'b'",)),
        ("only-target", "label\n" + "yes\nno\n" * 10, "error", ("feature|column",)),
    ]
    for name, content, expect, words in data_files:
        out[f"fit/{name}"] = (fit_with(text_file(content)), expect, words)
    out["fit/gz-corrupt"] = (
        fit_with(text_file(b"\x1f\x8b\x08\x00garbage", "data.csv.gz")),
        "error",
        ("gzip|data.csv.gz|compressed|crc|read",),
    )
    out["fit/unknown-extension"] = (
        fit_with(text_file(good, "data.xyz")),
        "either",
        ("data.xyz|format|extension|suffix",),
    )
    out["fit/empty-folder"] = (
        fit_with(lambda f: (f / "empty").mkdir() or f / "empty"),
        "error",
        ("empty|no .csv|file|folder",),
    )
    binned = ("'c'|distinct|max_categories|batch",)  # the first batch fixes the bins
    batch_rows = ("batch-rows|batch_rows",)
    #: (case, the options, the model, what is expected, the words of a refusal)
    option_cases: list[tuple[str, tuple[Any, ...], str, str, tuple[str, ...]]] = [
        ("batch-rows=0", ("--batch-rows", 0), "nb", "error", batch_rows),
        ("batch-rows=-1", ("--batch-rows", -1), "nb", "error", batch_rows),
        ("batch-rows=1", ("--batch-rows", 1), "nb", "either", binned),
        ("batch-rows=10**12", ("--batch-rows", 10**12), "nb", "either", ("batch-rows|memory",)),
        ("batch-rows=x", ("--batch-rows", "x"), "nb", "error", batch_rows),
        ("model-unknown", (), "nope", "error", ("nope|model",)),
        ("model-empty", (), "", "error", ("model",)),
        ("format-x", ("--format", "x"), "nb", "error", ("format",)),
        ("kdb-batch-rows=7", ("--batch-rows", 7), "kdb", "either", binned),
        ("kdb-batch-rows=20", ("--batch-rows", 20), "kdb", "ok", ()),
        ("skdb", (), "skdb", "ok", ()),
        ("forest-density-strings", (), "forest-density", "either", ("'d'|numeric",)),
    ]
    for name, options, model, expect, words in option_cases:
        out[f"fit/{name}"] = (fit_with(train_csv, *options, model=model), expect, words)
    out["fit/target-empty-name"] = (
        lambda folder: cli(
            "fit", "--data", train_csv(folder), "--target", "", "-o", folder / "m.json", "--quiet"
        ),
        "error",
        ("target|column|''",),
    )

    def over(
        target_of: Callable[[Path, Path], Path], *extra: Any, words=("input",), pre_existing=True
    ):
        def run(folder: Path) -> str:
            data = train_csv(folder)
            target = target_of(folder, data)
            inputs = [data]
            protect(folder, inputs, [target] if pre_existing else [])
            with verified(folder, model_valid):
                _fit(data, target, *extra)
            raise Silent(f"fit wrote over {target.name}")

        return (run, "error", words)

    out["fit/output-is-data-force"] = over(lambda f, d: d, "--force")
    out["fit/output-is-data"] = over(lambda f, d: d)
    out["fit/output-is-symlink-to-data"] = over(
        lambda f, d: (f / "link.json").symlink_to(d) or f / "link.json", "--force"
    )
    out["fit/output-is-hardlink-to-data"] = over(
        lambda f, d: os.link(d, f / "hard.json") or f / "hard.json", "--force"
    )
    out["fit/output-is-data-relative"] = over(lambda f, d: Path("..") / f.name / d.name, "--force")

    def key_target(folder: Path, data: Path) -> Path:
        from discotree.output_files import signing_key_path

        _fit_model(folder, fmt="pickle", data=data)  # makes sure the key exists
        return signing_key_path()

    out["fit/output-is-signing-key"] = over(key_target, "--force", words=("key",))

    def existing_no_force(folder: Path) -> str:
        data = train_csv(folder)
        target = folder / "model.json"
        target.write_text("precious")
        protect(folder, [data], [target])
        try:
            _fit(data, target)
        finally:
            verify(folder, False)
        raise Silent("overwrote without --force")

    out["fit/existing-output-no-force"] = (existing_no_force, "error", ("force|exists",))

    def existing_force_fails(folder: Path) -> str:
        data = text_file(good + "1,2,3,4,5,6\n")(folder)
        target = folder / "model.json"
        target.write_text("precious")
        protect(folder, [data], [target])
        with verified(folder, model_valid):
            _fit(data, target, "--force")
        return "replaced whole"

    out["fit/existing-output-force-bad-data"] = (
        existing_force_fails,
        "either",
        ("line|row|field|expected",),
    )

    def existing_force_ok(folder: Path) -> str:
        data = train_csv(folder)
        target = folder / "model.json"
        target.write_text("old")
        protect(folder, [data], [target])
        _fit(data, target, "--force")
        verify(folder, True, model_valid)
        if not model_valid(target):
            raise DataLost("the replaced model does not load")
        return "replaced"

    out["fit/existing-output-force"] = (existing_force_ok, "ok", ())
    out["fit/output-missing-folder"] = (
        lambda folder: _fit(train_csv(folder), folder / "no" / "m.json"),
        "either",
        ("no such|folder|directory|m.json",),
    )
    out["fit/output-is-folder"] = (
        lambda folder: _fit(train_csv(folder), folder, "--force"),
        "error",
        ("directory|folder|input|exists",),
    )

    def predict_with(
        data_maker: Callable[[Path], Path],
        *extra: Any,
        model_fmt: str = "json",
        model: str = "nb",
        expect_rows: int | None = None,
    ):
        def run(folder: Path) -> str:
            model_path = _fit_model(folder, model=model, fmt=model_fmt)
            data = data_maker(folder)
            target = folder / "pred.csv"
            protect(folder, [p for p in (data, model_path) if p.exists()], [target])
            with verified(folder, predictions_valid):
                _predict(model_path, data, target, *extra)
            if target.stat().st_size == 0:
                raise Silent("the predictions file is empty: not even its header")
            frame = pd.read_csv(target)
            if expect_rows is not None and len(frame) != expect_rows:
                raise Silent(f"{len(frame)} predictions for {expect_rows} rows")
            probas = [c for c in frame.columns if c.startswith("proba_")]
            if probas:
                check_proba(frame[probas].to_numpy(), len(frame), len(probas))
            return f"{len(frame)} predictions"

        return run

    def features(content: str):
        return text_file(content, "new.csv")

    def cli_matches_model(model: str, fmt: str):
        def run(folder: Path) -> str:
            model_path = _fit_model(folder, model=model, fmt=fmt)
            data = train_csv(folder, "new.csv", seed=3)
            target = folder / "pred.csv"
            _predict(model_path, data, target, "--proba")
            est = _load_cli_model(model_path)["model"]
            X = pd.read_csv(data).drop(columns=["label"])
            frame = pd.read_csv(target)
            proba = frame[[c for c in frame.columns if c.startswith("proba_")]].to_numpy()
            same(proba, est.predict_proba(X), "the CLI's probabilities differ from the model's")
            labels = frame["label"].astype(str).to_numpy()
            same(labels, np.asarray(est.predict(X)).astype(str), "the CLI's labels differ")
            return f"{len(frame)} predictions as the model's"

        return run

    for model in ("nb", "tan-cmi", "kdb", "aode", "dt"):
        for fmt in ("json", "pickle"):
            out[f"predict/{model}-{fmt}-equals-model"] = (cli_matches_model(model, fmt), "ok", ())
    out["fit/dask-without-statistics"] = (
        fit_with(train_csv, "--dask", model="ear-tree"),
        "either",
        ("dask|ear-tree",),
    )
    out["predict/ok-proba"] = (
        predict_with(lambda f: train_csv(f, "new.csv"), "--proba", expect_rows=40),
        "ok",
        (),
    )
    out["predict/missing-column"] = (
        predict_with(features("a,b,c\n1,2,0.5\n")),
        "error",
        ("'d'|column|feature",),
    )
    out["predict/extra-column"] = (_noted_extra_column, "either", ("'e'|column|feature",))
    out["predict/renamed-column"] = (
        predict_with(
            lambda f: write_csv(f / "new.csv", frame_data(False)[0].rename(columns={"a": "z"}))
        ),
        "error",
        ("'z'|'a'|column|feature",),
    )
    out["predict/reordered-columns"] = (
        predict_with(
            lambda f: write_csv(f / "new.csv", frame_data(False)[0][["b", "a", "c", "d"]]),
            expect_rows=40,
        ),
        "either",
        ("order|column|feature",),
    )
    out["predict/with-target-column"] = (
        predict_with(lambda f: train_csv(f, "new.csv"), expect_rows=40),
        "ok",
        (),
    )
    out["predict/strings-in-numeric"] = (
        predict_with(
            lambda f: write_csv(
                f / "new.csv",
                frame_data(False)[0].assign(
                    a=lambda X: X["a"].astype(object).where(X.index != 2, "x")
                ),
            ),
            expect_rows=40,
        ),
        "either",
        ("'a'|numeric|column|'c'|'d'",),
    )
    out["predict/empty-file"] = (predict_with(features("")), "error", ("empty|column|new.csv",))
    out["predict/header-only"] = (
        predict_with(lambda f: text_file("a,b,c,d\n", "new.csv")(f)),
        "either",
        ("empty|no rows|0",),
    )
    out["predict/binary"] = (
        predict_with(features(bytes(range(256)).decode("latin-1"))),
        "error",
        ("column|decode|utf|parse|new.csv",),
    )
    out["predict/short-rows"] = (
        predict_with(lambda f: text_file("a,b,c,d\n1,2,0.5,p\n1,2\n", "new.csv")(f)),
        "either",
        ("line|row|field",),
    )
    out["predict/duplicate-header"] = (
        predict_with(lambda f: text_file("a,a,c,d\n1,2,0.5,p\n", "new.csv")(f)),
        "error",
        ("duplicate|'a'|column",),
    )
    out["predict/missing-data"] = (
        predict_with(lambda f: f / "absent.csv"),
        "error",
        ("absent.csv",),
    )
    out["predict/batch-rows=0"] = (
        predict_with(lambda f: train_csv(f, "new.csv"), "--batch-rows", 0),
        "error",
        ("batch-rows|batch_rows",),
    )
    out["predict/batch-rows=-3"] = (
        predict_with(lambda f: train_csv(f, "new.csv"), "--batch-rows", -3),
        "error",
        ("batch-rows|batch_rows",),
    )
    out["predict/batch-rows=1"] = (
        predict_with(lambda f: train_csv(f, "new.csv"), "--batch-rows", 1, expect_rows=40),
        "ok",
        (),
    )
    out["predict/pickle-model"] = (
        predict_with(
            lambda f: train_csv(f, "new.csv"), "--proba", model_fmt="pickle", expect_rows=40
        ),
        "ok",
        (),
    )
    out["predict/proba-without-probabilities"] = (
        predict_with(
            lambda f: write_csv(f / "new.csv", frame_data(True)[0]), "--proba", model="svm"
        ),
        "either",
        ("proba|probabilit",),
    )

    def predict_over(target_of: Callable[[Path, Path, Path], Path], *extra: Any, words=("input",)):
        def run(folder: Path) -> str:
            model_path = _fit_model(folder)
            data = train_csv(folder, "new.csv")
            target = target_of(folder, data, model_path)
            protect(folder, [data, model_path], [target])
            with verified(folder, predictions_valid):
                _predict(model_path, data, target, *extra)
            raise Silent(f"predict wrote over {target.name}")

        return (run, "error", words)

    out["predict/output-is-data-force"] = predict_over(lambda f, d, m: d, "--force")
    out["predict/output-is-data"] = predict_over(lambda f, d, m: d)
    out["predict/output-is-model-force"] = predict_over(
        lambda f, d, m: m, "--force", words=("input|model",)
    )
    out["predict/output-is-symlink-to-data"] = predict_over(
        lambda f, d, m: (f / "l.csv").symlink_to(d) or f / "l.csv", "--force"
    )
    out["predict/output-is-hardlink-to-model"] = predict_over(
        lambda f, d, m: os.link(m, f / "h.csv") or f / "h.csv", "--force", words=("input|model",)
    )

    def predict_key(folder: Path, data: Path, model: Path) -> Path:
        from discotree.output_files import signing_key_path

        _fit_model(folder, fmt="pickle")
        return signing_key_path()

    out["predict/output-is-signing-key"] = predict_over(predict_key, "--force", words=("key",))

    def existing(force: bool, bad_rows: bool):
        def run(folder: Path) -> str:
            model_path = _fit_model(folder)
            frame = frame_data(False)[0]
            data = write_csv(folder / "new.csv", frame)
            if bad_rows:  # a broken row after a few batches
                with data.open("a") as handle:
                    handle.write("1,2\n1,2,3,4,5,6,7\n")
            target = folder / "pred.csv"
            target.write_text("label\nprecious\n")
            protect(folder, [data, model_path], [target])
            extra = ["--force"] if force else []
            with verified(folder, predictions_valid):
                _predict(model_path, data, target, "--batch-rows", 5, *extra)
            if not force:
                raise Silent("overwrote an existing output without --force")
            return "replaced whole"

        return run

    out["predict/existing-output-no-force"] = (existing(False, False), "error", ("force|exists",))
    out["predict/existing-output-force"] = (existing(True, False), "ok", ())
    out["predict/existing-output-force-fails-halfway"] = (
        existing(True, True),
        "either",
        ("line|row|field|expected",),
    )

    def fresh_output_fails_halfway(folder: Path) -> str:
        model_path = _fit_model(folder)
        data = write_csv(folder / "new.csv", frame_data(False)[0])
        with data.open("a") as handle:
            handle.write("1,2,3,4,5,6,7\n")
        target = folder / "pred.csv"
        protect(folder, [data, model_path], [target])
        with verified(folder, predictions_valid):
            _predict(model_path, data, target, "--batch-rows", 5)
        return "whole"

    out["predict/new-output-fails-halfway"] = (
        fresh_output_fails_halfway,
        "either",
        ("line|row|field|expected",),
    )

    def model_file(content: bytes | str, words: tuple[str, ...]):
        def run(folder: Path) -> str:
            model_path = folder / "m.json"
            if isinstance(content, bytes):
                model_path.write_bytes(content)
            else:
                model_path.write_text(content)
            data = train_csv(folder, "new.csv")
            cli("predict", "--model", model_path, "--data", data, "--quiet")
            raise Silent("predicted with a broken model file")

        return (run, "error", words)

    bad = ("not a valid model file|model file",)
    out["predict/model-is-csv"] = model_file("a,b\n1,2\n", bad)
    out["predict/model-empty"] = model_file("", bad)
    out["predict/model-binary"] = model_file(bytes(range(256)), bad)
    out["predict/model-json-list"] = model_file("[1,2]", bad)
    out["predict/model-json-truncated"] = model_file(
        '{"format":"discotree-model","version":1,"content":{', bad
    )
    out["predict/model-missing"] = (
        lambda folder: cli(
            "predict", "--model", folder / "none.json", "--data", train_csv(folder), "--quiet"
        ),
        "error",
        ("none.json|not found",),
    )
    out["predict/model-is-folder"] = (
        lambda folder: cli("predict", "--model", folder, "--data", train_csv(folder), "--quiet"),
        "error",
        ("model|not found|directory",),
    )

    def tampered_model(folder: Path) -> str:
        model_path = _fit_model(folder, fmt="pickle")
        raw = bytearray(model_path.read_bytes())
        raw[-5] ^= 0xFF
        model_path.write_bytes(bytes(raw))
        cli("predict", "--model", model_path, "--data", train_csv(folder, "new.csv"), "--quiet")
        raise Silent("a tampered pickle predicted")

    out["predict/model-pickle-tampered"] = (
        tampered_model,
        "error",
        ("key|altered|signature|not a valid",),
    )

    def compare(*args: Any):
        return lambda folder: cli("compare", "--quiet", *args)

    def on(dataset: str, models: str) -> tuple[str, ...]:
        return ("--dataset", dataset, "--models", models)

    nb_on_iris = on("iris", "nb")
    iris = (*nb_on_iris, "--folds", "2")
    n_jobs, seed = ("n-jobs|n_jobs",), ("random-state|random_state|seed",)
    #: (case, the arguments, what is expected, the words of a refusal)
    compare_cases: list[tuple[str, tuple[Any, ...], str, tuple[str, ...]]] = [
        ("dataset-empty", on("", "nb"), "error", ("dataset",)),
        ("dataset-comma", on(",", "nb"), "error", ("dataset",)),
        ("dataset-unknown", (*on("nope", "nb"), "--folds", "2"), "either", ("nope",)),
        ("models-empty", on("iris", ""), "error", ("model",)),
        ("models-unknown", on("iris", "nope"), "error", ("nope",)),
        ("models-duplicated", (*on("iris", "nb,nb"), "--folds", "2"), "either", ("nb|duplicate",)),
        ("n-jobs-huge", (*iris, "--n-jobs", 10**9), "either", n_jobs),
        ("n-jobs-zero", (*iris, "--n-jobs", 0), "either", n_jobs),
        ("n-jobs-negative", (*iris, "--n-jobs", -7), "either", n_jobs),
        ("n-jobs-x", (*iris, "--n-jobs", "x"), "error", ("n-jobs",)),
        ("folds-1", (*nb_on_iris, "--folds", 1), "error", ("folds|2",)),
        ("folds-huge", (*nb_on_iris, "--folds", 10**9), "error", ("folds|fold",)),
        ("folds-more-than-class", (*nb_on_iris, "--folds", 60), "either", ("fold|class|member",)),
        ("random-state-negative", (*iris, "--random-state", -1), "either", seed),
        ("random-state-huge", (*iris, "--random-state", 2**40), "either", seed),
        (
            "quick-and-models",
            ("--quick", "--models", "nb", "--dataset", "iris"),
            "error",
            ("quick|models",),
        ),
        (
            "target-without-data",
            ("--target", "y", "--dataset", "iris", "--models", "nb"),
            "error",
            ("target|data",),
        ),
    ]
    for name, args, expect, words in compare_cases:
        out[f"compare/{name}"] = (compare(*args), expect, words)
    out["compare/data-dir-missing"] = (
        lambda folder: cli(
            "compare",
            "--quiet",
            "--dataset",
            "foo",
            "--data-dir",
            folder / "nope",
            "--models",
            "nb",
        ),
        "error",
        ("nope|foo|data",),
    )

    def compare_data(content_maker: Callable[[Path], Path], *extra: Any):
        def run(folder: Path) -> str:
            data = content_maker(folder)
            protect(folder, [data])
            with verified(folder):
                result = cli(
                    "compare",
                    "--quiet",
                    "--data",
                    data,
                    "--target",
                    "label",
                    "--models",
                    "nb",
                    "--folds",
                    "2",
                    *extra,
                )
            return result[:80]

        return run

    out["compare/data-ok"] = (compare_data(train_csv), "ok", ())
    out["compare/data-without-target"] = (
        lambda folder: cli("compare", "--quiet", "--data", train_csv(folder), "--models", "nb"),
        "error",
        ("target",),
    )
    out["compare/data-one-class"] = (
        compare_data(text_file("a,b,label\n" + "1,2,yes\n0,1,yes\n" * 10)),
        "either",
        ("class",),
    )
    out["compare/data-wrong-target"] = (
        lambda folder: cli(
            "compare", "--quiet", "--data", train_csv(folder), "--target", "nope", "--models", "nb"
        ),
        "error",
        ("nope",),
    )
    out["compare/data-duplicate-header"] = (
        compare_data(text_file(good.replace("a,b,label", "a,a,label", 1))),
        "error",
        ("duplicate|'a'|column",),
    )
    out["compare/data-binary"] = (
        compare_data(text_file(bytes(range(256)) * 4)),
        "error",
        ("data.csv|decode|utf|parse|label|column",),
    )
    out["compare/data-and-dataset"] = (
        lambda folder: cli(
            "compare",
            "--quiet",
            "--data",
            train_csv(folder),
            "--target",
            "label",
            "--dataset",
            "iris",
            "--models",
            "nb",
            "--folds",
            "2",
        ),
        "either",
        ("dataset|data",),
    )
    out["compare/stream-non-partial"] = (
        compare_data(train_csv, "--stream", "--models", "rf"),
        "error",
        ("partial_fit|rf",),
    )
    out["compare/stream-batch-rows-0"] = (
        compare_data(train_csv, "--stream", "--batch-rows", 0),
        "error",
        ("batch-rows|batch_rows",),
    )
    out["compare/stream-ok"] = (compare_data(train_csv, "--stream", "--batch-rows", 100), "ok", ())
    out["compare/stream-batch-rows-7"] = (
        compare_data(train_csv, "--stream", "--batch-rows", 7),
        "either",
        ("'c'|distinct|max_categories|batch",),
    )
    out["compare/stream-quick"] = (
        compare_data(train_csv, "--stream", "--quick"),
        "error",
        ("quick",),
    )

    def key_problem(problem: str):
        def run(folder: Path) -> str:
            from discotree.output_files import signing_key_path

            model_path = _fit_model(folder, fmt="pickle")
            key = signing_key_path()
            if problem == "world-readable":
                key.chmod(0o644)
            elif problem == "deleted":
                key.unlink()
            elif problem == "replaced":
                key.unlink()
                key.write_bytes(os.urandom(32))
                key.chmod(0o600)
            cli("predict", "--model", model_path, "--data", train_csv(folder, "new.csv"), "--quiet")
            raise Silent(f"predicted with a pickle whose key was {problem}")

        return run

    keyed = ("key",)
    out["predict/pickle-key-world-readable"] = (key_problem("world-readable"), "error", keyed)
    out["predict/pickle-key-deleted"] = (
        key_problem("deleted"),
        "error",
        ("key|altered|signature",),
    )
    out["predict/pickle-key-replaced"] = (
        key_problem("replaced"),
        "error",
        ("key|altered|signature",),
    )

    def fit_pickle_bad_key(folder: Path) -> str:
        from discotree.output_files import signing_key_path

        key = signing_key_path()
        key.write_bytes(os.urandom(32))
        key.chmod(0o666)
        target = folder / "m.pkl"
        protect(folder, [key], [target])
        with verified(folder):
            _fit(train_csv(folder), target, "--format", "pickle")
        raise Silent("signed a model with a key others can write")

    out["fit/pickle-with-world-writable-key"] = (fit_pickle_bad_key, "error", keyed)
    out["fit/gz-ok"] = (
        fit_with(lambda f: write_csv(f / "data.csv.gz", pd.read_csv(train_csv(f)))),
        "ok",
        (),
    )
    out["fit/continuous-target"] = (
        fit_with(
            text_file("a,b,label\n" + "".join(f"{i % 3},{i},{i * 0.37:.3f}\n" for i in range(30)))
        ),
        "either",
        ("continuous|class|label|target",),
    )

    def folder_of(files: dict[str, str]):
        def maker(folder: Path) -> Path:
            data = folder / "data"
            data.mkdir()
            for name, text in files.items():
                (data / name).write_text(text)
            return data

        return maker

    part = "a,b,label\n" + "".join(
        f"{i % 3},{i % 4},{'yes' if i % 2 else 'no'}\n" for i in range(20)
    )
    out["fit/folder-ok"] = (fit_with(folder_of({"1.csv": part, "2.csv": part})), "ok", ())
    out["fit/folder-different-columns"] = (
        fit_with(folder_of({"1.csv": part, "2.csv": part.replace("a,b", "a,c", 1)})),
        "error",
        ("column|2.csv|'c'|'b'",),
    )
    out["fit/folder-with-other-file"] = (
        fit_with(folder_of({"1.csv": part, "notes.txt": "hello"})),
        "either",
        ("notes.txt|.txt|file",),
    )
    out["fit/folder-with-empty-file"] = (
        fit_with(folder_of({"1.csv": part, "2.csv": ""})),
        "either",
        ("2.csv|empty",),
    )
    out["compare/dataset-path-traversal"] = (
        compare("--dataset", "../../../etc/passwd", "--models", "nb", "--folds", "2"),
        "error",
        ("passwd|dataset",),
    )
    out["usage/no-command"] = (lambda folder: cli(), "error", ("command|required",))
    out["usage/unknown-command"] = (
        lambda folder: cli("frobnicate"),
        "error",
        ("frobnicate|choice",),
    )
    out["usage/unknown-option"] = (
        lambda folder: cli("fit", "--data", "x.csv", "--target", "y", "-o", "m.json", "--nope"),
        "error",
        ("--nope|unrecognized",),
    )
    return out


def _load_cli_model(path: Path) -> dict:
    from discotree.io import json_model
    from discotree.model_file import load_model

    return json_model.load_json(path) if path.read_bytes()[:1] == b"{" else load_model(path)


def cases_cli() -> Iterator[Case]:
    yield from _table_cases("cli", "cli", _cli_cases())


# ------------------------------------------------------------------ passes over files


def _pass_cases() -> CaseTable:
    out: CaseTable = {}

    def in_passes(
        second: Callable[[pd.DataFrame, np.ndarray], tuple[Any, Any]],
        model: str = "KDB",
        classes: Any = (0, 1),
    ):
        def run(folder: Path) -> str:
            from discotree.engines.file_passes import fit_in_passes

            X, y = frame_data(False, n=60)
            est = make(model, alpha=1.0) if model != "TAN" else make("TAN", k=2, alpha=1.0)
            calls = []

            def batches():
                calls.append(1)
                if len(calls) == 1:
                    for i in range(0, 60, 20):
                        yield X.iloc[i : i + 20], y[i : i + 20]
                else:
                    Z, w = second(X.copy(), y.copy())
                    for i in range(0, len(Z), 20):
                        yield Z.iloc[i : i + 20], w[i : i + 20]

            fit_in_passes(est, batches, np.asarray(classes))
            summary = exercise(est, X, model)
            if len(calls) > 1:
                reference = (
                    make(model, alpha=1.0) if model != "TAN" else make("TAN", k=2, alpha=1.0)
                )
                reference.fit(*second(X.copy(), y.copy()))
                del reference
            return summary

        return run

    words_changed = ("changed|pass|differ",)
    for model in ("KDB", "TAN"):
        out[f"{model}/same-batches"] = (in_passes(lambda X, y: (X, y), model), "ok", ())
        out[f"{model}/fewer-rows-later"] = (
            in_passes(lambda X, y: (X.iloc[:40], y[:40]), model),
            "either",
            ("changed|pass|differ|row",),
        )
        out[f"{model}/more-rows-later"] = (
            in_passes(lambda X, y: (pd.concat([X, X.iloc[:10]]), np.r_[y, y[:10]]), model),
            "either",
            ("changed|pass|differ|row",),
        )
        out[f"{model}/renamed-later"] = (
            in_passes(lambda X, y: (X.rename(columns={"a": "z"}), y), model),
            "error",
            ("'z'|'a'|column",),
        )
        out[f"{model}/reordered-later"] = (
            in_passes(lambda X, y: (X[["b", "a", "c", "d"]], y), model),
            "error",
            ("order|column",),
        )
        out[f"{model}/narrower-later"] = (
            in_passes(lambda X, y: (X.iloc[:, :3], y), model),
            "error",
            ("column|'d'|feature",),
        )
        out[f"{model}/new-label-later"] = (
            in_passes(lambda X, y: (X, np.where(y == 1, 7, 0)), model),
            "error",
            ("7|label|classes",),
        )
        out[f"{model}/new-category-later"] = (
            in_passes(lambda X, y: (X.assign(d="zz"), y), model),
            "error",
            ("'d'|categor|zz|changed",),
        )
        out[f"{model}/values-changed-later"] = (
            in_passes(lambda X, y: (X.assign(a=X["a"][::-1].to_numpy()), y), model),
            "either",
            words_changed,
        )
        out[f"{model}/labels-shuffled-later"] = (
            in_passes(lambda X, y: (X, y[::-1].copy()), model),
            "either",
            words_changed,
        )
        out[f"{model}/empty-later"] = (
            in_passes(lambda X, y: (X.iloc[:0], y[:0]), model),
            "error",
            ("changed|pass|differ|empty|no batch",),
        )
        out[f"{model}/classes-missing-label"] = (
            in_passes(lambda X, y: (X, y), model, classes=(0,)),
            "error",
            ("label|classes|1",),
        )
        out[f"{model}/classes-extra-label"] = (
            in_passes(lambda X, y: (X, y), model, classes=(0, 1, 2)),
            "either",
            ("classes|2",),
        )
    out["NB/not-a-pass-learner"] = (
        in_passes(lambda X, y: (X, y), "NB"),
        "either",
        ("pass|partial_fit|learner",),
    )

    def empty_source(folder: Path) -> str:
        from discotree.engines.file_passes import fit_in_passes

        fit_in_passes(make("KDB", alpha=1.0), lambda: iter(()), np.array([0, 1]))
        raise Silent("fitted on no batches")

    out["KDB/no-batches"] = (empty_source, "error", ("batch|empty|no rows|row",))

    def file_changes(change: Callable[[Path], None], model: str = "kdb", extra: tuple = ()):
        def run(folder: Path) -> str:
            from discotree.datasets.streaming import open_table

            data = train_csv(folder, n=60)
            source = open_table(data)
            est = make("KDB", alpha=1.0)
            calls = []

            from discotree.engines.file_passes import fit_in_passes

            def batches():
                calls.append(1)
                if len(calls) == 2:
                    change(data)
                yield from source.batches(20, target="label")

            before = data.read_bytes()
            with source.noticing_changes():
                fit_in_passes(est, batches, source.labels("label"))
            if data.exists() and data.read_bytes() == before:
                return exercise(est, frame_data(False, n=60)[0], "KDB")  # same bytes: right
            raise Silent("the file changed between passes and the fit went on")

        return run

    def append_row(path: Path) -> None:
        with path.open("a") as handle:
            handle.write("1,1,0.5,p,yes\n")

    def same_size_edit(path: Path) -> None:
        text = path.read_text()
        i = text.index("\n") + 1
        path.write_text(text[:i] + ("9" if text[i] != "9" else "8") + text[i + 1 :])

    def truncate(path: Path) -> None:
        text = path.read_text().splitlines(True)
        path.write_text("".join(text[:10]))

    def replace_file(path: Path) -> None:
        tmp = path.with_suffix(".new")
        tmp.write_text(path.read_text())
        os.replace(tmp, path)

    def touch(path: Path) -> None:
        st = path.stat()
        os.utime(path, ns=(st.st_atime_ns + 10**9, st.st_mtime_ns + 10**9))

    changed = ("changed|data.csv|train.csv",)
    out["file/appended-between-passes"] = (file_changes(append_row), "error", changed)
    out["file/same-size-edit-between-passes"] = (file_changes(same_size_edit), "error", changed)
    out["file/truncated-between-passes"] = (file_changes(truncate), "error", changed)
    out["file/replaced-same-bytes"] = (file_changes(replace_file), "either", changed)
    out["file/touched-same-bytes"] = (file_changes(touch), "either", changed)

    def removed(path: Path) -> None:
        path.unlink()

    out["file/removed-between-passes"] = (
        file_changes(removed),
        "error",
        ("train.csv|no such|not found|changed|removed",),
    )

    def table(content: bytes | str | None, name: str = "t.csv", kind: str = "file"):
        def run(folder: Path) -> str:
            from discotree.datasets.streaming import open_table

            path = folder / name
            if kind == "dir":
                path.mkdir()
                if content is not None:
                    (path / "a.csv").write_text("a,label\n1,yes\n")
                    (path / "b.csv").write_text("b,label\n1,no\n")
            elif content is not None:
                path.write_bytes(content if isinstance(content, bytes) else content.encode())
            source = open_table(path)
            frames = list(source.batches(10))
            n_rows = sum(len(f) for f in frames)
            return f"read {n_rows} rows"

        return run

    out["open_table/missing"] = (table(None), "error", ("t.csv|no such|not found",))
    out["open_table/empty"] = (table(""), "either", ("t.csv|empty|no columns",))
    out["open_table/binary"] = (table(bytes(range(256)) * 8), "either", ("t.csv|decode|utf|parse",))
    out["open_table/duplicate-header"] = (table("a,a\n1,2\n"), "error", ("duplicate|'a'",))
    out["open_table/short-rows"] = (table("a,b\n1,2\n3\n"), "either", ("line|row|field",))
    out["open_table/long-rows"] = (
        table("a,b\n1,2\n3,4,5\n"),
        "error",
        ("line|row|field|expected",),
    )
    out["open_table/unknown-suffix"] = (
        table("a,b\n1,2\n", "t.dat"),
        "either",
        ("t.dat|format|suffix|extension",),
    )
    out["open_table/empty-folder"] = (table(None, "d", "dir"), "error", ("empty|no|file|folder",))
    out["open_table/folder-different-columns"] = (
        table("x", "d", "dir"),
        "error",
        ("column|schema|a.csv|b.csv|differ",),
    )
    out["open_table/empty-path"] = (
        lambda folder: __import__("discotree.datasets.streaming").datasets.streaming.open_table(""),
        "error",
        ("path|''|empty|not found|file",),
    )
    out["open_table/corrupt-gz"] = (
        table(b"\x1f\x8b\x08\x00garbage", "t.csv.gz"),
        "error",
        ("gzip|t.csv.gz|crc|compressed",),
    )
    out["open_table/corrupt-parquet"] = (
        table(b"PAR1garbagePAR1", "t.parquet"),
        "error",
        ("parquet|t.parquet|magic|footer",),
    )
    return out


def cases_passes() -> Iterator[Case]:
    yield from _table_cases("passes", "passes", _pass_cases())


# ------------------------------------------------------------------ memory guards

SMALL_LIMIT = 2**20  # 1 MiB
#: Growth of the peak resident memory that counts as a large allocation under SMALL_LIMIT
LARGE = 256 * 2**20


def _status(field_name: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field_name):
            return int(line.split()[1]) * 1024
    return 0


def guarded(fn: Callable[[], Any], what: str) -> Any:
    """Run ``fn`` and raise Silent if the peak resident memory grew by more than
    LARGE (Linux: the peak is reset through /proc/self/clear_refs first)."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        pass
    base = _status("VmRSS:")
    result = fn()
    growth = _status("VmHWM:") - base
    if growth > LARGE:
        raise Silent(
            f"{what}: the peak memory grew by {growth / 2**20:.0f} MiB under a "
            f"{SMALL_LIMIT / 2**20:g} MiB memory_limit"
        )
    return result


def _wide_strings(
    n_rows: int = 60, n_cols: int = 300, levels: int = 60
) -> tuple[pd.DataFrame, np.ndarray]:
    """Many many-valued columns: the pair tables need gigabytes."""
    rng = np.random.default_rng(1)
    codes = rng.integers(0, levels, (n_rows, n_cols))
    codes[:levels] = np.arange(levels)[:, None]
    frame = pd.DataFrame(
        {f"s{j}": np.char.add("v", codes[:, j].astype(str)) for j in range(n_cols)}
    )
    return frame, _labels(n_rows, 2, 1)


def _memory_cases() -> CaseTable:
    import discotree

    out: CaseTable = {}
    mem = ("memory_limit|memory",)

    def fit_wide(short: str, **params: Any):
        def run(folder: Path) -> str:
            X, y = _wide_strings()
            with discotree.config_context(memory_limit=SMALL_LIMIT, category_limit=10_000):
                est = make(short, max_categories=100, **params)
                guarded(lambda: est.fit(X, y), "fit")
            return exercise(est, X, short)

        return run

    for short in ("NB", "CL", "TAN", "KDB", "AODE", "ENS", "DT", "BOOST", "EAR", "SFS"):
        out[f"wide-categorical/{short}"] = (fit_wide(short), "either", mem)

    def fit_wide_numeric(short: str, limit: int | None):
        def run(folder: Path) -> str:
            X, y = real_data(n=60, d=300)
            changes = {} if limit is None else {"memory_limit": limit}
            with discotree.config_context(**changes):
                est = make(short)
                guarded(lambda: est.fit(X, y), "fit")
            return exercise(est, X, short)

        return run

    for short in ("FD", "KNB", "NB", "TAN", "ENS", "DT"):
        out[f"wide-numeric/{short}"] = (fit_wide_numeric(short, SMALL_LIMIT), "either", mem)
    out["wide-numeric/FD/default-limit"] = (fit_wide_numeric("FD", None), "either", mem)

    def fit_small_limit(short: str, limit: int):
        def run(folder: Path) -> str:
            _, X, y = fitted(short)
            with discotree.config_context(memory_limit=limit):
                est = make(short).fit(X, y)
            return exercise(est, X, short)

        return run

    for short in ESTIMATORS:
        out[f"tiny-limit-tiny-fit/{short}"] = (fit_small_limit(short, 64), "either", mem)

    def grid(short: str):
        def run(folder: Path) -> str:
            _, X, y = fitted(short)
            with discotree.config_context(memory_limit=SMALL_LIMIT):
                est = guarded(lambda: make(short, grid_size=(10**7, 10**5)).fit(X, y), "fit")
            return exercise(est, X, short)

        return run

    out["grid/FD"] = (grid("FD"), "either", ("memory_limit|memory|grid_size",))
    out["grid/KNB"] = (grid("KNB"), "either", ("memory_limit|memory|grid_size",))

    def ensemble_bins(folder: Path) -> str:
        X, y = real_data(d=6)
        with discotree.config_context(memory_limit=SMALL_LIMIT):
            est = guarded(lambda: make("ENS", n_bins=10**6).fit(X, y), "fit")
        return exercise(est, X, "ENS")

    out["ensemble-n_bins-huge"] = (ensemble_bins, "either", ("memory_limit|memory|n_bins",))

    def uncertainty(n_draws: int):
        def run(folder: Path) -> str:
            est, X, _ = fitted("NB")
            with discotree.config_context(memory_limit=SMALL_LIMIT):
                est.predict_uncertainty(X, n_draws=n_draws)
            raise Silent(f"{n_draws} draws ran under 1 MiB")

        return run

    for power in (6, 9):
        out[f"uncertainty-n_draws=10**{power}"] = (
            uncertainty(10**power),
            "error",
            ("memory_limit|memory|n_draws",),
        )

    def shapley_exact(d: int, rows: int, max_exact: int, config: dict[str, Any], under: str):
        def run(folder: Path) -> str:
            from discotree.shapley import shapley_values

            X, y = codes_data(d=d)
            est = make("NB", alpha=1.0).fit(X, y)
            with discotree.config_context(**config):
                shapley_values(est, X[:rows], max_exact_features=max_exact)
            raise Silent(f"2^{d} subsets under {under}")

        return (run, "error", ("memory_limit|memory|max_exact_features",))

    out["shapley-exact-26-features"] = shapley_exact(
        26, 2, 30, {"memory_limit": SMALL_LIMIT}, "1 MiB"
    )
    out["shapley-exact-34-features-default-limit"] = shapley_exact(
        34, 1, 40, {}, "the default limit"
    )

    def importances_big(folder: Path) -> str:
        from discotree.importance import summed_out_importances

        X, y = codes_data(n=60, d=40)
        est = make("NB", alpha=1.0).fit(X, y)
        with discotree.config_context(memory_limit=SMALL_LIMIT):
            guarded(lambda: summed_out_importances(est, X, y), "importances")
        return "importances within the limit"

    out["importances-1MiB"] = (importances_big, "either", mem)

    def bif_huge(folder: Path) -> str:
        from discotree.io.bif import read_bif

        path = folder / "big.bif"
        states = ", ".join(f"s{i}" for i in range(3000))
        path.write_text(
            "network n {\n}\n"
            "variable class {\n  type discrete [ 2 ] { a, b };\n}\n"
            + "".join(
                f"variable x{j} {{\n  type discrete [ 3000 ] {{ {states} }};\n}}\n"
                for j in range(3)
            )
            + "probability ( class ) {\n  table 0.5, 0.5;\n}\n"
            + "probability ( x0 | class, x1, x2 ) {\n  table 0.5;\n}\n"
        )
        with discotree.config_context(memory_limit=SMALL_LIMIT):
            read_bif(path)
        raise Silent("a table of 3000^3 cells was accepted")

    out["bif-huge-table"] = (bif_huge, "error", ("memory_limit|memory|x0|table|entries|values",))
    for key, value, words in (
        ("memory_limit", 0, ("memory_limit",)),
        ("memory_limit", -1, ("memory_limit",)),
        ("memory_limit", "x", ("memory_limit",)),
        ("memory_limit", math.nan, ("memory_limit",)),
        ("memory_limit", None, ("memory_limit",)),
        ("category_limit", -5, ("category_limit",)),
        ("model_file_limit", "big", ("model_file_limit",)),
        ("importance_rows", -1, ("importance_rows",)),
        ("ear_feature_limit", 2.5, ("ear_feature_limit",)),
        ("no_such_key", 1, ("no_such_key",)),
    ):

        def bad_config(folder: Path, key=key, value=value) -> str:
            with discotree.config_context(**{key: value}):
                _, X, y = fitted("NB")
                exercise(make("NB").fit(X, y), X, "NB")
            raise Silent(f"config {key}={value!r} accepted")

        out[f"config/{key}={value!r}"] = (bad_config, "error", words)
        out[f"set_config/{key}={value!r}"] = (
            lambda folder, key=key, value=value: (
                discotree.set_config(**{key: value}),
                (_ for _ in ()).throw(Silent(f"set_config {key}={value!r} accepted")),
            ),
            "error",
            words,
        )
    return out


def cases_memory() -> Iterator[Case]:
    yield from _table_cases("memory", "memory", _memory_cases())


# ------------------------------------------------------------------ BIF and ONNX


def _bif_cases() -> CaseTable:
    @functools.cache
    def good_text() -> str:
        from discotree.io.bif import write_bif

        folder = Path(tempfile.mkdtemp())
        path = folder / "m.bif"
        y = np.arange(40) % 2  # a class table of 0.5, 0.5 and three states per feature
        X = (np.arange(40)[:, None] * np.array([1, 2]) // 3 % 3).astype(float)
        write_bif(make("NB", alpha=1.0).fit(X, y), path)
        return path.read_text()

    def read(edit: Callable[[str], str], unchanged: bool = False):
        def run(folder: Path) -> str:
            from discotree.io.bif import read_bif

            path = folder / "m.bif"
            text = edit(good_text())
            if text == good_text() and not unchanged:
                raise AssertionError("the campaign's edit did not apply to the file")
            path.write_text(text)
            model = read_bif(path)
            codes = np.zeros((3, model.n_features), dtype=np.intp)
            joint = np.asarray(model.joint_log_likelihood(codes))
            if not np.isfinite(joint).all():
                raise Silent("the network read gives non-finite log-likelihoods")
            original = read_bif_text(good_text(), folder)
            if not np.allclose(joint, original.joint_log_likelihood(codes)):
                raise Silent("a broken file was read as another network")
            return "read"

        return run

    def read_bif_text(text: str, folder: Path):
        from discotree.io.bif import read_bif

        path = folder / "good.bif"
        path.write_text(text)
        return read_bif(path)

    out: CaseTable = {}
    out["bif/unchanged"] = (read(lambda t: t, True), "ok", ())
    out["bif/empty"] = (read(lambda t: ""), "error", ("network|variable|class|empty",))
    out["bif/negative-probability"] = (
        read(lambda t: t.replace("0.5, 0.5", "-0.5, 1.5", 1)),
        "error",
        ("negative|probabilit|class",),
    )
    out["bif/nan-probability"] = (
        read(lambda t: t.replace("0.5, 0.5", "nan, 0.5", 1)),
        "error",
        ("nan|probabilit|class",),
    )
    out["bif/inf-probability"] = (
        read(lambda t: t.replace("0.5, 0.5", "inf, 0.5", 1)),
        "error",
        ("inf|probabilit|class",),
    )
    out["bif/not-summing-to-one"] = (
        read(lambda t: t.replace("0.5, 0.5", "0.3, 0.3", 1)),
        "either",
        ("sum|probabilit|class",),
    )
    out["bif/too-few-values"] = (
        read(lambda t: t.replace("0.5, 0.5", "1.0", 1)),
        "error",
        ("class|values|entries|2",),
    )
    out["bif/too-many-values"] = (
        read(lambda t: t.replace("0.5, 0.5", "0.25, 0.25, 0.5", 1)),
        "error",
        ("class|values|entries|3",),
    )
    out["bif/unknown-parent"] = (
        read(lambda t: t.replace("( x0 | class )", "( x0 | nope )", 1)),
        "error",
        ("nope",),
    )
    out["bif/unknown-variable"] = (
        read(lambda t: t.replace("probability ( x0 | class )", "probability ( zz | class )", 1)),
        "error",
        ("zz",),
    )
    out["bif/unknown-state"] = (
        read(lambda t: t.replace("(_0) ", "(_9) ", 1)),
        "error",
        ("_9|state|value",),
    )
    out["bif/duplicate-variable"] = (
        read(lambda t: t.replace("variable x1 {", "variable x0 {", 1)),
        "error",
        ("x0|duplicate",),
    )
    out["bif/missing-table"] = (
        read(lambda t: t[: t.index("probability ( x1")]),
        "error",
        ("x1|table|probability",),
    )
    out["bif/cycle"] = (
        read(
            lambda t: t.replace("( x0 | class )", "( x0 | class, x1 )", 1).replace(
                "( x1 | class )", "( x1 | class, x0 )", 1
            )
        ),
        "error",
        ("cycle|x0|x1|parent|values|expected",),
    )
    out["bif/zero-states"] = (
        read(lambda t: t.replace("[ 3 ] { _0, _1, _2 }", "[ 0 ] { }", 1)),
        "error",
        ("x0|state|0",),
    )
    out["bif/state-count-mismatch"] = (
        read(lambda t: t.replace("[ 3 ] { _0, _1, _2 }", "[ 5 ] { _0, _1, _2 }", 1)),
        "error",
        ("x0|state|5|3",),
    )
    out["bif/truncated"] = (
        read(lambda t: t[: len(t) // 2]),
        "error",
        ("end|unexpected|expected|truncated|line|table|probability",),
    )
    out["bif/binary"] = (
        read(lambda t: "\x00\x01\x02" * 50),
        "error",
        ("network|variable|parse|expected|line",),
    )
    out["bif/huge-number"] = (
        read(lambda t: t.replace("0.5, 0.5", "1e400, 0.5", 1)),
        "error",
        ("inf|1e400|probabilit|class",),
    )

    def no_class(folder: Path) -> str:
        from discotree.io.bif import read_bif

        path = folder / "m.bif"
        path.write_text(good_text())
        read_bif(path, class_variable="nope")
        raise Silent("read with an unknown class variable")

    out["bif/class-variable-unknown"] = (no_class, "error", ("nope",))

    def write_over_key(folder: Path) -> str:
        from discotree.io.bif import write_bif
        from discotree.output_files import signing_key_path

        key = signing_key_path()
        if not key.exists():
            from discotree.model_file import save_model

            save_model({"x": 1}, folder / "m.model")
        protect(folder, [key])
        try:
            write_bif(fitted("NB")[0], key)
        finally:
            verify(folder, False)
        raise Silent("a BIF file was written over the signing key")

    out["bif/write-over-signing-key"] = (write_over_key, "error", ("key",))

    def write_unfitted(folder: Path) -> str:
        from discotree.io.bif import write_bif

        write_bif(make("NB"), folder / "m.bif")
        raise Silent("an unfitted model was written")

    out["bif/write-unfitted"] = (write_unfitted, "error", ("fit",))

    def write_unsupported(short: str):
        def run(folder: Path) -> str:
            from discotree.io.bif import write_bif

            paths = write_bif(fitted(short)[0], folder / "m.bif")
            for p in paths:
                if not Path(p).exists() or Path(p).stat().st_size == 0:
                    raise Silent(f"{p} is empty")
            return f"wrote {len(paths)} files"

        return run

    for short in ("KDB", "ENS", "BOOST", "DT", "FD", "KNB", "EAR"):
        out[f"bif/write-{short}"] = (
            write_unsupported(short),
            "either",
            ("bif|network|support|" + ESTIMATORS[short][0],),
        )

    def onnx_case(short: str, kind: str):
        def run(folder: Path) -> str:
            from discotree.io.onnx import onnx_codes, to_onnx

            est, X, _ = fitted(short)
            if kind == "unfitted":
                to_onnx(make(short))
                raise Silent("an unfitted model was exported")
            if kind == "export":
                model = to_onnx(est)
                return f"exported {type(model).__name__}"
            if kind == "codes-narrower":
                onnx_codes(est, X.iloc[:, :3])
                raise Silent("codes for a narrower table")
            if kind == "codes-renamed":
                onnx_codes(est, X.rename(columns={"a": "z"}))
                raise Silent("codes for renamed columns")
            if kind == "codes-nan":
                codes = np.asarray(onnx_codes(est, X.assign(a=np.nan)))
                if codes.shape[0] != len(X):
                    raise Silent(f"codes of shape {codes.shape}")
                return "codes ok"
            if kind == "name-bad":
                to_onnx(est, name=12345)
                return "exported with a number as name"
            raise AssertionError(kind)

        return run

    #: (case, what the case does, what is expected, the words of a refusal)
    onnx_cases = [
        ("unfitted", "unfitted", "error", ("fit",)),
        ("codes-narrower", "codes-narrower", "error", ("column|feature|3|'d'|onnx|support",)),
        ("codes-renamed", "codes-renamed", "error", ("'z'|'a'|column|feature|onnx|support",)),
        ("codes-nan", "codes-nan", "either", ("nan|missing|onnx|support",)),
        ("name-number", "name-bad", "either", ("name|onnx|support",)),
    ]
    for short in ("NB", "TAN", "KDB", "AODE", "ENS", "DT", "FD"):
        out[f"onnx/{short}/export"] = (
            onnx_case(short, "export"),
            "either",
            ("onnx|support|" + ESTIMATORS[short][0],),
        )
        for name, kind, expect, words in onnx_cases:
            out[f"onnx/{short}/{name}"] = (onnx_case(short, kind), expect, words)
    return out


def cases_bif_onnx() -> Iterator[Case]:
    yield from _table_cases("io", "bif-onnx", _bif_cases(), accept=(ImportError,))


# ------------------------------------------------------------------ output files


def _output_cases() -> CaseTable:
    from discotree import output_files as of

    out: CaseTable = {}

    def setup(folder: Path) -> tuple[Path, Path]:
        data = folder / "in.csv"
        data.write_text("a,b\n1,2\n")
        target = folder / "out.txt"
        target.write_text("old")
        return data, target

    def interrupted(folder: Path) -> str:
        _, target = setup(folder)
        protect(folder, [], [target])
        try:
            with of.atomic_output(target) as handle:
                handle.write("half")
                raise KeyboardInterrupt
        except KeyboardInterrupt:
            pass
        verify(folder, False)
        stray = [p.name for p in folder.iterdir() if p.name.startswith(".out")]
        if stray:
            raise Silent(f"an interrupted write left {stray}")
        return "the old file kept, nothing left behind"

    def killed(folder: Path) -> str:
        _, target = setup(folder)
        protect(folder, [], [target])
        pid = os.fork()
        if pid == 0:  # a process killed halfway through its write
            with of.atomic_output(target) as handle:
                handle.write("half" * 1000)
                handle.flush()
                os.kill(os.getpid(), signal.SIGKILL)
            os._exit(0)
        os.waitpid(pid, 0)
        verify(folder, False)
        return "the old file kept after a kill"

    out["atomic_output/interrupted"] = (interrupted, "ok", ())
    out["atomic_output/killed-halfway"] = (killed, "ok", ())

    def refused(target_of: Callable[[Path, Path, Path], Any], how: str = "atomic"):
        def run(folder: Path) -> str:
            data, target = setup(folder)
            aim = target_of(folder, data, target)
            key = of.signing_key_path()
            inputs = [data] + ([key] if key.exists() else [])
            protect(folder, inputs, [Path(aim)] if Path(aim).exists() else [])
            with verified(folder):
                if how == "atomic":
                    with of.atomic_output(aim, inputs=[data, folder / "inputs"]) as handle:
                        handle.write("new")
                elif how == "text":
                    of.write_text(aim, "new", inputs=[data, folder / "inputs"])
                else:
                    of.check_output(aim, inputs=[data, folder / "inputs"])
            raise Silent(f"wrote over {Path(aim).name}")

        return run

    def key_made(folder: Path) -> Path:
        from discotree.model_file import save_model

        save_model({"x": 1}, folder / "m.model")
        return of.signing_key_path()

    def inside_input_folder(folder: Path, data: Path, target: Path) -> Path:
        (folder / "inputs").mkdir()
        return folder / "inputs" / "new.txt"

    targets = {
        "same-path": (lambda f, d, t: d, ("input",)),
        "relative-path": (lambda f, d, t: Path("..") / f.name / d.name, ("input",)),
        "symlink": (lambda f, d, t: (f / "l").symlink_to(d) or f / "l", ("input",)),
        "hardlink": (lambda f, d, t: os.link(d, f / "h") or f / "h", ("input",)),
        "inside-input-folder": (inside_input_folder, ("input|inside|folder",)),
        "signing-key": (lambda f, d, t: key_made(f), ("key",)),
        "directory": (lambda f, d, t: f, ("directory|folder|input|is a",)),
    }
    for name, (target_of, words) in targets.items():
        for how in ("atomic", "text", "check"):
            out[f"{how}/{name}"] = (refused(target_of, how), "error", words)

    def bad_mode(folder: Path) -> str:
        _, target = setup(folder)
        with of.atomic_output(target, "a") as handle:
            handle.write("x")
        raise Silent("appended through atomic_output")

    out["atomic_output/mode-a"] = (bad_mode, "error", ("mode",))

    def missing_folder(folder: Path) -> str:
        of.write_text(folder / "no" / "such" / "x.txt", "x")
        return "created the folders"

    out["write_text/missing-folder"] = (missing_folder, "either", ("no such|folder|directory",))

    def private(folder: Path) -> str:
        path = folder / "secret"
        of.write_bytes(path, b"k" * 32, private=True)
        mode = path.stat().st_mode & 0o777
        if mode != 0o600:
            raise Silent(f"a private file has mode {mode:o}")
        return "0600"

    out["write_bytes/private"] = (private, "ok", ())

    def keeps_mode(folder: Path) -> str:
        _, target = setup(folder)
        target.chmod(0o640)
        of.write_text(target, "new")
        mode = target.stat().st_mode & 0o777
        if mode != 0o640 or target.read_text() != "new":
            raise Silent(f"the replaced file has mode {mode:o}")
        return "kept 0640"

    out["write_text/keeps-mode"] = (keeps_mode, "ok", ())

    def same_file_missing(folder: Path) -> str:
        if of.same_file(folder / "a", folder / "b"):
            raise Silent("two missing files are the same")
        return "not the same"

    out["same_file/missing"] = (same_file_missing, "ok", ())
    out["write_text/bytes-content"] = (
        lambda folder: of.write_text(folder / "x.txt", b"bytes"),
        "error",
        ("str|bytes|text",),
    )
    out["write_text/empty-path"] = (
        lambda folder: of.write_text("", "x"),
        "error",
        ("path|''|directory|empty|folder",),
    )
    return out


def cases_output_files() -> Iterator[Case]:
    yield from _table_cases("output-files", "output-files", _output_cases())


# ================================================================== running

SURFACES: dict[str, Callable[[], Iterator[Case]]] = {
    "estimator-fit-X": cases_fit_X,
    "estimator-predict-X": cases_predict_X,
    "estimator-y": cases_y,
    "estimator-weight": cases_weights,
    "estimator-params": cases_params,
    "partial-fit": cases_partial,
    "model-json": cases_model_json,
    "model-pickle": cases_model_pickle,
    "explain": cases_explain,
    "cli": cases_cli,
    "passes": cases_passes,
    "memory": cases_memory,
    "output-files": cases_output_files,
    "bif-onnx": cases_bif_onnx,
}


def generate_cases(only: str | None = None) -> list[Case]:
    """Every case, in a fixed order (``only``: comma-separated surfaces)."""
    chosen = list(SURFACES) if not only else [s.strip() for s in only.split(",") if s.strip()]
    unknown = [s for s in chosen if s not in SURFACES]
    if unknown:
        raise SystemExit(f"unknown surface(s) {unknown}; choose among {list(SURFACES)}")
    cases: list[Case] = []
    for surface in chosen:
        cases.extend(SURFACES[surface]())
    ids = [c.id for c in cases]
    duplicates = [k for k, v in Counter(ids).items() if v > 1]
    if duplicates:
        raise RuntimeError(f"duplicate case ids: {duplicates[:5]}")
    return cases


def _has_words(message: str, words: tuple[str, ...]) -> bool:
    text = message.lower()
    return all(any(alt.lower() in text for alt in word.split("|")) for word in words)


def _origin(err: BaseException) -> str:
    """Where an exception was raised: the file of the innermost frame."""
    tb = err.__traceback__
    last = None
    while tb is not None:
        last = tb
        tb = tb.tb_next
    if last is None:
        return ""
    code = last.tb_frame.f_code
    path = code.co_filename
    for marker in ("site-packages/", "src/", "lib/python"):
        if marker in path:
            path = path.split(marker, 1)[1]
            break
    return f"{path}:{last.tb_lineno} in {code.co_name}"


def classify(
    case: Case, outcome: Any, err: BaseException | None, caught: list[str]
) -> tuple[str, str]:
    """(class, message excerpt) of one case's outcome."""
    verdict, message = _classify(case, outcome, err, caught)
    notes = getattr(err, "__notes__", None)
    if notes:
        message = f"{message} [{'; '.join(notes)}]"
    return verdict, message


def resolved(case: Case) -> Case:
    """The case with its words known."""
    if case.words_of is None:
        return case
    return dataclasses.replace(case, words=case.words_of(), words_of=None)


def _classify(
    case: Case, outcome: Any, err: BaseException | None, caught: list[str]
) -> tuple[str, str]:
    if err is None:
        if case.expect == "error":
            named = [w for w in caught if _has_words(w, case.words)]
            if named:
                return "ok", f"warning: {named[0]}"
            return "silent", f"accepted without an error: {outcome}"
        return "ok", str(outcome)
    message = str(err) or type(err).__name__
    name = f"{type(err).__module__}.{type(err).__name__}".replace("builtins.", "")
    if isinstance(err, DataLost):
        return "data-lost", message
    if isinstance(err, Silent):
        return "silent", message
    if isinstance(err, MemoryError):
        return "memory", f"{name}: {message}"
    foreign = type(err).__module__.split(".")[0] in FOREIGN_ERRORS and not isinstance(
        err, CliFailed
    )
    from sklearn.exceptions import NotFittedError

    accepted = isinstance(err, (*ACCEPTED, CliFailed, NotFittedError, *case.accept))
    if accepted and not foreign:
        if case.expect == "ok":
            return "unclear", f"refused an input that has a right answer: {name}: {message}"
        if _has_words(message, case.words):
            return "ok", f"{name}: {message}"
        return "unclear", f"{name}: {message} [wanted: {' & '.join(case.words)}]"
    return "crash", f"{name}: {message} (at {_origin(err)})"


def run_case(case: Case, folder: Path) -> dict[str, Any]:
    """Run one case here (in this process) and classify it."""
    folder.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    outcome: Any = None
    error: BaseException | None = None
    caught: list[str] = []
    saved_cwd = os.getcwd()
    saved_env = dict(os.environ)
    try:
        os.chdir(folder)
        with warnings.catch_warnings(record=True) as records:
            warnings.simplefilter("always")
            try:
                outcome = case.run(folder)
            except BaseException as err:  # every exception is classified
                if isinstance(err, KeyboardInterrupt):
                    raise
                error = err
            caught = [f"{r.category.__name__}: {r.message}" for r in records]
        if error is None or not isinstance(error, (DataLost, MemoryError)):
            try:
                note = verify(folder, error is None)
                if note:
                    caught.append(note)
            except DataLost as lost:
                error = lost
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
    try:
        case = resolved(case)
    except Exception as err:  # the words could not be found: say so
        case = dataclasses.replace(case, words=(f"<no words: {err!r}>",), words_of=None)
    verdict, message = classify(case, outcome, error, caught)
    result = _record(case, verdict, _excerpt(message), time.perf_counter() - start)
    noisy = [w for w in caught if "RuntimeWarning" in w or "left behind" in w]
    if noisy:
        result["notes"] = [_excerpt(w, 160) for w in noisy[:3]]
    if verdict == "crash" and error is not None:
        result["traceback"] = "".join(traceback.format_exception(error)[-6:])[-1500:]
    return result


def _record(case: Case, verdict: str, message: str, seconds: float) -> dict[str, Any]:
    """A case's entry in the results."""
    return {
        "id": case.id,
        "surface": case.surface,
        "class": verdict,
        "expect": case.expect,
        "words": list(case.words),
        "message": message,
        "seconds": round(seconds, 3),
    }


def _excerpt(text: str, width: int = 400) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 3] + "..."


def _child(case: Case, folder: Path, conn: multiprocessing.connection.Connection, cap: int) -> None:
    os.setsid()  # its own process group: a timeout ends it and what it started
    if cap:
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    try:
        result = run_case(case, folder)
    except BaseException as err:  # the classification itself failed
        result = {
            "id": case.id,
            "surface": case.surface,
            "class": "crash",
            "message": _excerpt(f"the campaign's runner failed: {err!r}"),
        }
    try:
        conn.send(result)
    except Exception:  # a result that cannot be sent
        conn.send(
            {
                "id": case.id,
                "surface": case.surface,
                "class": "crash",
                "message": "unsendable result",
            }
        )
    conn.close()
    os._exit(0)


def _after_kill(
    case: Case, folder: Path, verdict: str, message: str, seconds: float
) -> dict[str, Any]:
    result = _record(case, verdict, message, seconds)
    try:
        verify(folder, False)
    except DataLost as lost:
        result["class"], result["message"] = "data-lost", f"{message}; {lost}"
    except Exception:  # the folder may be half written
        pass
    return result


def run_all(
    cases: list[Case],
    workers: int,
    timeout: float,
    cap: int,
    root: Path,
    progress: Callable[[dict], None],
) -> list[dict[str, Any]]:
    """Each case in a forked worker, at most ``workers`` at once."""
    context = multiprocessing.get_context("fork")
    pending = list(enumerate(cases))
    running: dict[int, tuple[Any, Any, Case, float, Path]] = {}
    results: dict[int, dict[str, Any]] = {}
    while pending or running:
        while pending and len(running) < workers:
            index, case = pending.pop(0)
            folder = root / f"case{index:05d}"
            receive, send = context.Pipe(duplex=False)
            process = context.Process(target=_child, args=(case, folder, send, cap), daemon=False)
            process.start()
            send.close()
            running[index] = (process, receive, case, time.monotonic(), folder)
        waitables = [r for (_, r, _, _, _) in running.values()] + [
            p.sentinel for (p, _, _, _, _) in running.values()
        ]
        multiprocessing.connection.wait(waitables, timeout=0.5)
        now = time.monotonic()
        for index in list(running):
            process, receive, case, started, folder = running[index]
            result = None
            if receive.poll():
                try:
                    result = receive.recv()
                except EOFError:
                    result = None
                if result is not None:
                    process.join(5)
                    _kill_group(process)
            if result is None and not process.is_alive():
                process.join()
                code = process.exitcode
                if receive.poll():
                    with contextlib.suppress(EOFError):
                        result = receive.recv()
                if result is None:
                    killed = code is not None and code < 0
                    verdict = "memory" if code == -signal.SIGKILL else "crash"
                    what = (
                        f"the worker died (signal {-code})"
                        if killed
                        else f"the worker exited with {code}"
                    )
                    result = _after_kill(case, folder, verdict, what, now - started)
            if result is None and now - started > timeout:
                _kill_group(process)
                result = _after_kill(
                    case, folder, "hang", f"no answer in {timeout:g} s", now - started
                )
            if result is not None:
                receive.close()
                results[index] = result
                del running[index]
                progress(result)
    return [results[i] for i in range(len(cases))]


def _kill_group(process: Any) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    process.join(5)


def warm_up() -> None:
    """Fit every model once (numba compiles, the workers inherit the fitted models)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for short in ESTIMATORS:
            est, X, _ = fitted(short)
            exercise(est, X, short)
            exercise(make(short).fit(*codes_data()), codes_data()[0], short)
        for short in JSON_ESTIMATORS:
            json_document(short)


# ------------------------------------------------------------------ reports


def machine() -> dict[str, Any]:
    info = {"python": platform.python_version(), "platform": platform.platform()}
    try:
        text = subprocess.run(["lscpu"], capture_output=True, text=True, check=False).stdout
    except OSError:
        text = ""
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("Model name", "CPU(s)"):
            info[key.strip()] = value.strip()
    info["cores"] = os.cpu_count()
    return info


def write_reports(
    results: list[dict[str, Any]], out: Path, args: argparse.Namespace, seconds: float
) -> None:
    import discotree

    out.parent.mkdir(parents=True, exist_ok=True)
    counts = Counter(r["class"] for r in results)
    by_surface: dict[str, Counter] = {}
    for r in results:
        by_surface.setdefault(r["surface"], Counter())[r["class"]] += 1
    meta = {
        "discotree": discotree.__version__,
        "commit": _commit(),
        "uncommitted_source_files": _dirty(),
        "machine": machine(),
        "workers": args.workers,
        "timeout_s": args.timeout,
        "address_space_cap_bytes": args.memory_cap,
        "seconds": round(seconds, 1),
        "n_cases": len(results),
        "counts": {k: counts.get(k, 0) for k in CLASSES},
        "selection": {"only": args.only, "limit": args.limit, "match": args.match},
    }
    document = {"meta": meta, "cases": results}
    tmp = out.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(document, indent=1) + "\n")
    os.replace(tmp, out.with_suffix(".json"))

    m = meta["machine"]
    lines = [
        "# Bad-input campaign (issue 50)",
        "",
        f"`python tools/bad_input_campaign.py` on discotree {meta['discotree']} (commit "
        f"{meta['commit']}, {meta['uncommitted_source_files']} source files changed since in "
        f"the working tree): {len(results)} cases in {seconds / 60:.1f} min, {args.workers} "
        f"worker(s), a timeout of {args.timeout:g} s and an address-space cap of "
        f"{args.memory_cap / 2**30:g} GiB per case.",
        "",
        f"Machine: {m.get('Model name', 'unknown CPU')}, {m.get('CPU(s)', m['cores'])} logical "
        f"cores; Python {m['python']}.",
        "",
        "Classes: **ok** (a right answer, or a ValueError/TypeError/NotFittedError or warning "
        "naming the problem), **unclear** (an accepted error whose message lacks the words), "
        "**silent** (no error but a wrong or non-finite answer), **crash** (another exception "
        "type), **hang** (timeout), **memory** (MemoryError or killed), **data-lost** (an "
        "input changed or an output damaged).",
        "",
        "| surface | cases | " + " | ".join(CLASSES) + " |",
        "|---|---:|" + "---:|" * len(CLASSES),
    ]
    for surface in SURFACES:
        if surface not in by_surface:
            continue
        c = by_surface[surface]
        lines.append(
            f"| {surface} | {sum(c.values())} | "
            + " | ".join(str(c.get(k, 0)) for k in CLASSES)
            + " |"
        )
    lines.append(
        f"| **all** | **{len(results)}** | "
        + " | ".join(f"**{counts.get(k, 0)}**" for k in CLASSES)
        + " |"
    )
    bad = [r for r in results if r["class"] != "ok"]
    clusters: dict[tuple[str, str], list[str]] = {}
    for r in bad:
        clusters.setdefault((r["class"], _gist(r.get("message", ""))), []).append(r["id"])
    lines += ["", f"## The same failure in several cases ({len(clusters)} groups)", ""]
    lines += ["| class | cases | message (numbers and quoted values elided) | examples |"]
    lines += ["|---|---:|---|---|"]
    for (verdict, gist), ids in sorted(clusters.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        examples = ", ".join(f"`{i}`" for i in ids[:3]) + (" ..." if len(ids) > 3 else "")
        lines.append(f"| {verdict} | {len(ids)} | {gist.replace('|', '/')} | {examples} |")
    lines += ["", f"## Cases that are not ok ({len(bad)})", ""]
    for verdict in CLASSES[1:]:
        group = [r for r in bad if r["class"] == verdict]
        if not group:
            continue
        lines += [f"### {verdict} ({len(group)})", "", "| case | message |", "|---|---|"]
        for r in group:
            message = r.get("message", "").replace("|", "\\|")
            lines.append(f"| `{r['id']}` | {_excerpt(message, 300)} |")
        lines.append("")
    out.with_suffix(".md").write_text("\n".join(lines) + "\n")


def _dirty() -> int:
    """How many files under src/ differ from the commit (others edit the tree too)."""
    try:
        text = subprocess.run(
            ["git", "status", "--porcelain", "--", "src"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        ).stdout
    except OSError:
        return -1
    return len(text.splitlines())


def _gist(message: str) -> str:
    """A message without its particulars, to group the cases that fail alike."""
    import re

    text = re.sub(r"\[(wanted|tampered): [^\]]*\]", "", message)
    text = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", text)
    text = re.sub(r"\(at [^)]*\)", "", text)
    text = re.sub(r"\d+(\.\d+)?(e[-+]?\d+)?", "N", text)
    return _excerpt(text.strip(), 110)


def _commit() -> str:
    try:
        return (
            subprocess.run(
                ["git", "rev-parse", "--short", "HEAD"],
                cwd=ROOT,
                capture_output=True,
                text=True,
                check=False,
            ).stdout.strip()
            or "unknown"
        )
    except OSError:
        return "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help=f"comma-separated surfaces: {', '.join(SURFACES)}")
    parser.add_argument("--match", help="only the cases whose id contains this text")
    parser.add_argument("--limit", type=int, help="run at most N cases (spread over the selection)")
    parser.add_argument("--workers", type=int, default=1, help="cases at once (default 1)")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per case (default 30)")
    parser.add_argument(
        "--memory-cap", type=int, default=MEMORY_CAP, help="RLIMIT_AS of a case in bytes"
    )
    parser.add_argument("--list", action="store_true", help="list the case ids and stop")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="results path without suffix")
    parser.add_argument("--quiet", action="store_true", help="print only the summary")
    args = parser.parse_args(argv)
    if args.workers < 1:
        parser.error("--workers must be >= 1")
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
        os.environ.setdefault(name, "1")  # a shared machine: one core per worker
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)
    cases = generate_cases(args.only)
    if args.match:
        cases = [c for c in cases if args.match in c.id]
    if args.limit is not None and 0 <= args.limit < len(cases):
        step = len(cases) / max(args.limit, 1)
        cases = [cases[int(i * step)] for i in range(args.limit)]
    if args.list:
        for case in cases:
            print(f"{case.surface}\t{case.expect}\t{case.id}")
        print(f"{len(cases)} cases", file=sys.stderr)
        return 0
    os.environ.setdefault("DISCOTREE_KEY_FILE", "")
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bad-input-") as tmp:
        root = Path(tmp)
        os.environ["DISCOTREE_KEY_FILE"] = str(root / "model-key")  # never the user's key
        warm_up()
        done = Counter()

        def progress(result: dict) -> None:
            done[result["class"]] += 1
            if not args.quiet and result["class"] != "ok":
                print(
                    f"{result['class']:>9}  {result['id']}: {result['message'][:150]}", flush=True
                )
            total = sum(done.values())
            if not args.quiet and total % 100 == 0:
                elapsed = time.perf_counter() - start
                print(f"  ... {total}/{len(cases)} in {elapsed:.0f} s: {dict(done)}", flush=True)

        results = run_all(cases, args.workers, args.timeout, args.memory_cap, root, progress)
        for result in results:  # the temporary folder's name says nothing
            for key in ("message", "traceback"):
                if key in result:
                    result[key] = result[key].replace(str(root), "<tmp>")
    seconds = time.perf_counter() - start
    write_reports(results, args.out, args, seconds)
    counts = Counter(r["class"] for r in results)
    print(
        f"{len(results)} cases in {seconds:.0f} s: "
        + ", ".join(f"{k} {counts.get(k, 0)}" for k in CLASSES)
    )
    print(f"results: {args.out.with_suffix('.json')} and {args.out.with_suffix('.md')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
