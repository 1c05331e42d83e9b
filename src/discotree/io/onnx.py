"""ONNX export of the complete-data ``predict_proba`` of discrete Bayesian-network
classifiers (``pip install 'discotree[onnx]'``).

A naive Bayes, TAN, k-tree, Chow-Liu or (selective) kDB classifier scores a complete
row by ``log P(x, c) = log P(c) + sum_f log theta_f[c, x_f]``: one table lookup per
factor (a node and its parents) and class, then a softmax over the classes. The graph
does exactly that, in double precision: for each factor, the codes of its columns
(``Gather``) weighted by the table's strides and summed give the row's cell; adding
each class's offset gives one index per class into the flattened log table
(``Gather``); the factors and the log prior are summed and ``Softmax`` gives the
probabilities. Its input is the estimator's category codes, not the raw table: the
encoding (bins of numeric columns, the category dictionaries) runs before, with
:func:`onnx_codes` (or ``estimator.encoder_.transform``) — a separate step, so the
graph stays a handful of integer and gather operations. A missing value has no code
here: the exported graph is for complete rows (:func:`onnx_codes` refuses others),
and rows with missing features keep using ``predict_proba``, which sums them out.

Examples
--------
>>> import numpy as np
>>> from sklearn.datasets import load_iris
>>> from discotree import TANClassifier
>>> X, y = load_iris(return_X_y=True)
>>> clf = TANClassifier().fit(X, y)
>>> model = to_onnx(clf)  # doctest: +SKIP
>>> import onnxruntime  # doctest: +SKIP
>>> session = onnxruntime.InferenceSession(model.SerializeToString())  # doctest: +SKIP
>>> out = session.run(["probabilities"], {"codes": onnx_codes(clf, X)})[0]  # doctest: +SKIP
>>> np.abs(out - clf.predict_proba(X)).max() < 1e-12  # doctest: +SKIP
True
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..models.bayes_net import BayesNetModel
from ..models.discrete_forest import DiscreteForestModel
from ..models.k_dependence import KDependenceModel
from ..validation import check_is_fitted, check_table, validate_data

__all__ = ["log_factors", "onnx_codes", "to_onnx"]

#: The largest number of table cells the graph may hold (all factors together).
MAX_ONNX_CELLS = 50_000_000
#: The ONNX operator set the graph is written for.
OPSET = 17


def log_factors(estimator: Any) -> tuple[list[tuple[list[int], NDArray[np.float64]]], NDArray]:
    """The fitted model as factors: ``(columns, log_table)`` with ``log_table`` of shape
    (n_classes, r_columns...), ``log P(x, c) = log_prior[c] + sum over factors of
    log_table[c, x[columns]]`` on complete rows; and the class log prior.

    A structure that differs between classes (Chow-Liu, discriminative trees) gives a
    factor per class and node whose other classes' rows are 0 (a log of 1).

    Raises
    ------
    ValueError
        For models that are not one sum of table factors (averaged, boosted, kernel or
        Gaussian models) and for tables too large to export.
    """
    check_is_fitted(estimator)
    name = type(estimator).__name__
    if getattr(estimator, "distribution", "discrete") != "discrete":
        raise ValueError(f"{name} with distribution='gaussian' has no tables to export.")
    # the graph is softmax(log prior + factors): only where predict_proba is exactly
    # that (discriminative trees, boosting and the kernel models calibrate or vote)
    redefined = [
        method
        for method in ("predict_proba", "predict_log_proba", "predict_joint_log_proba")
        if getattr(getattr(type(estimator), method, None), "__qualname__", "").split(".")[0]
        != "DiscreteForestClassifierBase"
    ]
    if redefined:
        raise ValueError(
            f"{name}'s probabilities are not the softmax of its joint ({redefined[0]} is "
            "its own), so they are not exported to ONNX; naive Bayes, TAN, k-trees, "
            "Chow-Liu and kDB are."
        )
    model = getattr(estimator, "model_", None)
    n_classes = len(estimator.classes_)
    factors: list[tuple[list[int], NDArray[np.float64]]] = []
    if isinstance(model, DiscreteForestModel):
        for j in range(len(model.n_categories)):
            parents = model.parents[:, j]
            if (parents == parents[0]).all():
                p = int(parents[0])
                table = np.stack([model.log_cpts[c][j] for c in range(n_classes)])
                factors.append(([j], table[:, 0, :]) if p < 0 else ([p, j], table))
                continue
            for c in range(n_classes):  # a structure of its own: only class c's row
                p = int(parents[c])
                own = model.log_cpts[c][j]
                table = np.zeros((n_classes, *own.shape))
                table[c] = own
                factors.append(([j], table[:, 0, :]) if p < 0 else ([p, j], table))
    elif isinstance(model, BayesNetModel):
        for j, family in enumerate(model.parents):
            factors.append(([*family, j], np.asarray(model.log_cpts[j], dtype=np.float64)))
    elif isinstance(model, KDependenceModel):
        if model.dense_cells() > MAX_ONNX_CELLS:
            raise ValueError(
                f"{name}: its dense tables hold {model.dense_cells()} cells, more than "
                f"MAX_ONNX_CELLS = {MAX_ONNX_CELLS}; fit it with a smaller k."
            )
        for j in model.attributes:
            with np.errstate(divide="ignore"):
                table = np.log(model.dense_table(j))
            factors.append(([*model.parents[j], j], table))
    else:
        raise ValueError(
            f"{name} is not one sum of table factors (averaged, boosted or kernel models "
            "are not exported to ONNX); naive Bayes, TAN, k-trees, Chow-Liu and kDB are."
        )
    cells = sum(t.size for _, t in factors)
    if cells > MAX_ONNX_CELLS:
        raise ValueError(f"{name}: {cells} table cells, more than MAX_ONNX_CELLS.")
    return factors, np.asarray(estimator.class_log_prior_, dtype=np.float64)


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
    table = check_table(X, name)
    try:
        validate_data(estimator, X, skip_check_array=True, reset=False)
    except ValueError as err:
        raise ValueError(f"onnx_codes: {name}: {err}") from err
    codes = estimator.encoder_.transform(table)
    missing = np.argwhere(codes < 0)
    if len(missing):
        row, column = (int(v) for v in missing[0])
        raise ValueError(
            f"{type(estimator).__name__}: row {row} of X has a missing or unseen value in "
            f"column {column} ({len(missing)} such cells); the ONNX graph takes complete "
            "rows: use predict_proba for rows with missing features."
        )
    return np.ascontiguousarray(codes, dtype=np.int64)


def to_onnx(estimator: Any, name: str | None = None):
    """The fitted estimator's complete-data ``predict_proba`` as an ONNX model.

    Parameters
    ----------
    estimator : fitted naive Bayes, TAN, k-tree, Chow-Liu or kDB classifier
    name : str, optional
        The graph's name (default: the estimator's class name).

    Returns
    -------
    onnx.ModelProto
        Input ``codes`` (int64, shape (n, n_features): :func:`onnx_codes`); outputs
        ``probabilities`` (double, (n, n_classes), columns in ``classes_`` order) and
        ``joint_log_proba`` (``log P(x, c)``).

    Raises
    ------
    ImportError
        Without the ``onnx`` package (``pip install 'discotree[onnx]'``).
    ValueError
        For models :func:`log_factors` cannot export.
    TypeError
        For a ``name`` that is not a string.
    """
    try:
        import onnx
        from onnx import TensorProto, helper, numpy_helper
    except ImportError as err:  # pragma: no cover - the extra is installed in tests
        raise ImportError("to_onnx needs the extra: pip install 'discotree[onnx]'") from err
    if name is not None and not isinstance(name, str):
        raise TypeError(f"to_onnx: name must be a string or None, got {name!r}.")
    factors, log_prior = log_factors(estimator)
    n_classes, n_features = len(log_prior), int(estimator.n_features_in_)
    nodes, initializers, terms = [], [], []

    def constant(tag: str, value: NDArray[Any]) -> str:
        initializers.append(numpy_helper.from_array(np.ascontiguousarray(value), tag))
        return tag

    reduce_axes = constant("axis_1", np.array([1], dtype=np.int64))
    for f, (columns, table) in enumerate(factors):
        shape = table.shape[1:]
        strides = np.array(
            [int(np.prod(shape[k + 1 :], dtype=np.int64)) for k in range(len(shape))],
            dtype=np.int64,
        )
        per_class = int(np.prod(shape, dtype=np.int64))
        cols = constant(f"f{f}_columns", np.array(columns, dtype=np.int64))
        stride = constant(f"f{f}_strides", strides)
        offsets = constant(
            f"f{f}_class_offsets", (np.arange(n_classes, dtype=np.int64) * per_class)[None, :]
        )
        flat = constant(f"f{f}_log_table", np.asarray(table, dtype=np.float64).ravel())
        nodes += [
            helper.make_node("Gather", ["codes", cols], [f"f{f}_codes"], axis=1),
            helper.make_node("Mul", [f"f{f}_codes", stride], [f"f{f}_weighted"]),
            helper.make_node(
                "ReduceSum", [f"f{f}_weighted", reduce_axes], [f"f{f}_cell"], keepdims=1
            ),
            helper.make_node("Add", [f"f{f}_cell", offsets], [f"f{f}_index"]),
            helper.make_node("Gather", [flat, f"f{f}_index"], [f"f{f}_log"], axis=0),
        ]
        terms.append(f"f{f}_log")
    prior = constant("log_prior", log_prior[None, :])
    nodes += [
        helper.make_node("Sum", [prior, *terms], ["joint_log_proba"]),
        helper.make_node("Softmax", ["joint_log_proba"], ["probabilities"], axis=1),
    ]
    graph = helper.make_graph(
        nodes,
        name or type(estimator).__name__,
        [helper.make_tensor_value_info("codes", TensorProto.INT64, [None, n_features])],
        [
            helper.make_tensor_value_info("probabilities", TensorProto.DOUBLE, [None, n_classes]),
            helper.make_tensor_value_info("joint_log_proba", TensorProto.DOUBLE, [None, n_classes]),
        ],
        initializers,
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="discotree"
    )
    model.doc_string = f"classes: {[str(c) for c in estimator.classes_]}"
    onnx.checker.check_model(model)
    return model
