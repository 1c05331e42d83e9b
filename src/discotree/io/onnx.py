"""ONNX export of the ``predict_proba`` of discrete Bayesian-network classifiers on
complete rows (``pip install 'discotree[onnx]'``): naive Bayes, TAN, k-trees,
Chow-Liu, (selective) kDB, A1DE (:class:`~discotree.AODEClassifier`) and the kDB
ensemble (:class:`~discotree.KDBEnsembleClassifier`).

**Inputs.** By default (``inputs="raw"``) the graph takes the raw columns and encodes
them itself, exactly as the estimator's ``encoder_`` does: one input per column,
shape (n, 1), named by the column (``feature_names_in_``, else ``x0``, ``x1``, ...),
``double`` for numeric columns (their bin edges, or their few categorical values, are
in the graph), ``string`` for string categories (a ``LabelEncoder`` with the category
dictionary), ``bool`` for boolean ones (:mod:`discotree.io.onnx_raw`).
:func:`onnx_inputs` builds that feed from a table. With ``inputs="codes"`` the graph
takes the estimator's int64 category codes instead (:func:`onnx_codes`), the encoding
done outside.

**Outputs.** ``probabilities`` (double, (n, n_classes), columns in ``classes_`` order),
``joint_log_proba`` (``predict_joint_log_proba``; the kDB ensemble, whose scores are a
posterior (:mod:`discotree.models.protocol`), gives its ``predict_log_proba`` there);
the raw-input graph also gives the
``codes`` it computed (int64, (n, n_features)).

**Missing values.** The graph is defined for complete rows with categories seen in
fit. ``predict_proba`` sums a missing feature out; the graph does not (for a factor
with parents, or an averaged or pooled model, that marginal is no single lookup). In
the raw-input graph a NaN, an infinite value or an unseen category (any string not
among the categories, the empty string included unless it was one) gets the code -1,
and that row's ``probabilities`` and ``joint_log_proba`` are NaN, never a silently
different number; :func:`onnx_inputs` and :func:`onnx_codes` refuse such rows with
their position. Rows with missing features keep using ``predict_proba``.

The scoring (:mod:`discotree.io.onnx_models`) is a few ``Gather`` lookups in the log
tables per factor and class, sums, ``logsumexp`` and ``Softmax``, in double precision;
the tests check onnxruntime against ``predict_proba`` to 1e-9.

Examples
--------
>>> import numpy as np
>>> import onnxruntime
>>> import pandas as pd
>>> from discotree import TANClassifier
>>> rng = np.random.default_rng(0)
>>> X = pd.DataFrame({"colour": rng.choice(["red", "green", "blue"], 200),
...                   "size": rng.normal(size=200), "count": rng.integers(0, 4, 200)})
>>> y = np.where(X["size"] + (X["colour"] == "red") > 0.5, "yes", "no")
>>> clf = TANClassifier().fit(X, y)
>>> session = onnxruntime.InferenceSession(to_onnx(clf).SerializeToString())
>>> [(i.name, i.type) for i in session.get_inputs()]
[('colour', 'tensor(string)'), ('size', 'tensor(double)'), ('count', 'tensor(double)')]
>>> out = session.run(["probabilities"], onnx_inputs(clf, X))[0]
>>> bool(np.abs(out - clf.predict_proba(X)).max() < 1e-9)
True
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..validation import check_is_fitted
from .onnx_graph import ML_OPSET, OPSET, GraphBuilder
from .onnx_models import MAX_ONNX_CELLS, check_exportable, joint_log_proba, log_factors
from .onnx_raw import complete_codes, encode_raw, onnx_inputs, raw_columns

__all__ = ["MAX_ONNX_CELLS", "log_factors", "onnx_codes", "onnx_inputs", "to_onnx"]

#: The kinds of graph input :func:`to_onnx` writes.
INPUTS = ("raw", "codes")


def onnx_codes(estimator: Any, X: Any) -> NDArray[np.int64]:
    """The input of the exported graph: the estimator's category codes of ``X``
    (int64), which must be complete.

    Raises
    ------
    ValueError
        If ``X``'s columns are not the estimator's (by name, in order, when it was
        fitted with names, as ``predict`` checks them), or if a cell of ``X`` is
        missing or a category was not seen in fit: the graph has no code for it
        (``predict_proba`` sums such features out).
    """
    check_is_fitted(estimator)
    name = type(estimator).__name__
    if not hasattr(estimator, "encoder_"):
        raise ValueError(
            f"onnx_codes: {name} has no category codes (no encoder_); the ONNX graph "
            "takes those of naive Bayes, TAN, k-trees, Chow-Liu and kDB."
        )
    codes = complete_codes(estimator, X, "onnx_codes", str)
    return np.ascontiguousarray(codes, dtype=np.int64)


def to_onnx(estimator: Any, name: str | None = None, *, inputs: str = "raw"):
    """The fitted estimator's ``predict_proba`` on complete rows as an ONNX model.

    Parameters
    ----------
    estimator : fitted classifier
        Naive Bayes, TAN, k-tree, Chow-Liu, kDB, A1DE (``AODEClassifier`` with
        ``n_super_parents=1``) or ``KDBEnsembleClassifier``, on discrete features.
    name : str, optional
        The graph's name (default: the estimator's class name).
    inputs : {"raw", "codes"}, default="raw"
        ``"raw"``: one input per column of the training table, shape (n, 1), named by
        the column (``x0``, ``x1``, ... without names), typed ``double``, ``string`` or
        ``bool``; the encoding (bin edges, category dictionaries) is in the graph
        (:mod:`discotree.io.onnx_raw`; :func:`onnx_inputs` makes the feed).
        ``"codes"``: one input ``codes``, int64 of shape (n, n_features), the
        estimator's category codes (:func:`onnx_codes` makes it).

    Returns
    -------
    onnx.ModelProto
        Outputs ``probabilities`` (double, (n, n_classes), columns in ``classes_``
        order) and ``joint_log_proba`` (``log P(x, c)`` as
        ``predict_joint_log_proba``; the kDB ensemble's log posterior, as its
        ``predict_log_proba``); with raw inputs also ``codes`` (int64, the codes
        the graph computed, -1 where a value is missing, infinite or unseen). The graph
        is defined for complete rows with categories seen in fit: with raw inputs, a row
        with a code of -1 gets NaN outputs (``predict_proba`` would sum the feature
        out); codes out of range are the caller's error.

    Raises
    ------
    ImportError
        Without the ``onnx`` package (``pip install 'discotree[onnx]'``).
    ValueError
        For models that are not exported (discriminative trees, boosting, kernel and
        Gaussian models, A2DE), tables beyond ``MAX_ONNX_CELLS``, raw columns the graph
        cannot encode (mixed-type categories, integers beyond 2**53, a column without
        values at fit time, or names taken by the outputs), or an unknown ``inputs``.
    TypeError
        For a ``name`` that is not a string.

    Examples
    --------
    >>> import numpy as np
    >>> import onnxruntime
    >>> from sklearn.datasets import load_iris
    >>> from discotree import AODEClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = AODEClassifier().fit(X, y)
    >>> session = onnxruntime.InferenceSession(to_onnx(clf).SerializeToString())
    >>> [i.name for i in session.get_inputs()]
    ['x0', 'x1', 'x2', 'x3']
    >>> out = session.run(["probabilities"], onnx_inputs(clf, X))[0]
    >>> bool(np.abs(out - clf.predict_proba(X)).max() < 1e-9)
    True
    >>> codes_graph = to_onnx(clf, inputs="codes")  # the encoding done outside
    >>> session = onnxruntime.InferenceSession(codes_graph.SerializeToString())
    >>> out = session.run(["probabilities"], {"codes": onnx_codes(clf, X)})[0]
    >>> bool(np.abs(out - clf.predict_proba(X)).max() < 1e-9)
    True
    """
    try:
        import onnx
        from onnx import TensorProto, helper
    except ImportError as err:  # pragma: no cover - the extra is installed in tests
        raise ImportError("to_onnx needs the extra: pip install 'discotree[onnx]'") from err
    if name is not None and not isinstance(name, str):
        raise TypeError(f"to_onnx: name must be a string or None, got {name!r}.")
    if inputs not in INPUTS:
        raise ValueError(f"to_onnx: inputs must be one of {INPUTS}, got {inputs!r}.")
    check_exportable(estimator)  # its own reason first, before the inputs'
    n_classes, n_features = len(estimator.classes_), int(estimator.n_features_in_)
    builder = GraphBuilder()
    double = TensorProto.DOUBLE
    outputs = [
        helper.make_tensor_value_info("probabilities", double, [None, n_classes]),
        helper.make_tensor_value_info("joint_log_proba", double, [None, n_classes]),
    ]
    if inputs == "codes":
        graph_inputs = [
            helper.make_tensor_value_info("codes", TensorProto.INT64, [None, n_features])
        ]
        joint = joint_log_proba(builder, estimator, "codes")
    else:
        columns = raw_columns(estimator)
        types = {"double": double, "string": TensorProto.STRING, "bool": TensorProto.BOOL}
        graph_inputs = [
            helper.make_tensor_value_info(c.name, types[c.element], [None, 1]) for c in columns
        ]
        codes = builder.named("Identity", [encode_raw(builder, columns)], "codes")
        outputs.append(
            helper.make_tensor_value_info("codes", TensorProto.INT64, [None, n_features])
        )
        lowest = builder.reduce("ReduceMin", codes, 1)
        zero = builder.constant(np.array(0, dtype=np.int64), "zero")
        complete = builder.op("GreaterOrEqual", lowest, zero)  # (n, 1)
        scored = joint_log_proba(builder, estimator, builder.op("Max", codes, zero))
        nan = builder.constant(np.array(np.nan), "nan")
        joint = builder.op("Where", complete, scored, nan)
    builder.named("Identity", [joint], "joint_log_proba")
    builder.named("Softmax", [joint], "probabilities", axis=1)
    graph = helper.make_graph(
        builder.nodes,
        name or type(estimator).__name__,
        graph_inputs,
        outputs,
        builder.initializers,
    )
    opsets = [helper.make_opsetid("", OPSET)]
    if any(node.domain == "ai.onnx.ml" for node in builder.nodes):
        opsets.append(helper.make_opsetid("ai.onnx.ml", ML_OPSET))
    model = helper.make_model(graph, opset_imports=opsets, producer_name="discotree")
    model.doc_string = f"classes: {[str(c) for c in estimator.classes_]}"
    onnx.checker.check_model(model)
    return model
