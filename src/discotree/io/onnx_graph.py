"""A small builder of ONNX graphs in double precision: named constants, nodes with
fresh output names, and the few compound operations the exported classifiers need
(table lookups of factors, ``logsumexp`` over an axis).

Every tensor it names starts with ``/`` (the exporters' usual namespace), so a graph's
inputs and outputs, named by the caller, do not collide with them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["GraphBuilder", "factor_strides"]

#: The ONNX operator set of the default domain the graphs are written for.
OPSET = 17
#: The version of the ``ai.onnx.ml`` domain (``LabelEncoder`` with string keys).
ML_OPSET = 2


def factor_strides(shape: tuple[int, ...]) -> NDArray[np.int64]:
    """The row-major strides (in cells) of a table of ``shape``.

    Examples
    --------
    >>> factor_strides((2, 3, 4)).tolist()
    [12, 4, 1]
    """
    return np.array(
        [int(np.prod(shape[k + 1 :], dtype=np.int64)) for k in range(len(shape))],
        dtype=np.int64,
    )


class GraphBuilder:
    """Nodes and initializers of one graph, with fresh names for both.

    Examples
    --------
    >>> builder = GraphBuilder()
    >>> total = builder.op("Add", builder.constant(np.ones(2), "one"), "x")
    >>> total, len(builder.nodes), len(builder.initializers)
    ('/Add_2', 1, 1)
    """

    def __init__(self) -> None:
        from onnx import helper, numpy_helper

        self._helper, self._numpy_helper = helper, numpy_helper
        self.nodes: list[Any] = []
        self.initializers: list[Any] = []
        self._count = 0

    def fresh(self, hint: str) -> str:
        """A new tensor name, ``/<hint>_<n>``."""
        self._count += 1
        return f"/{hint}_{self._count}"

    def constant(self, value: Any, hint: str = "constant") -> str:
        """An initializer holding ``value`` (a numpy array, its dtype kept)."""
        name = self.fresh(hint)
        array = np.ascontiguousarray(value)
        self.initializers.append(self._numpy_helper.from_array(array, name))
        return name

    def op(self, op_type: str, *inputs: str, domain: str = "", **attributes: Any) -> str:
        """Add one node with one output; returns the output's name."""
        output = self.fresh(op_type)
        self.nodes.append(
            self._helper.make_node(
                op_type, list(inputs), [output], domain=domain or None, **attributes
            )
        )
        return output

    def named(self, op_type: str, inputs: list[str], output: str, **attributes: Any) -> str:
        """Add one node whose output has the given (graph output) name."""
        self.nodes.append(self._helper.make_node(op_type, inputs, [output], **attributes))
        return output

    def axes(self, *axes: int) -> str:
        """The int64 axes input of the reductions and ``Unsqueeze``."""
        return self.constant(np.array(axes, dtype=np.int64), "axes")

    def reduce(self, op_type: str, x: str, axis: int, keepdims: int = 1) -> str:
        """A reduction over one axis (``ReduceSum`` takes its axes as an input in this
        operator set, the others as an attribute)."""
        if op_type == "ReduceSum":
            return self.op(op_type, x, self.axes(axis), keepdims=keepdims)
        return self.op(op_type, x, axes=[axis], keepdims=keepdims)

    def logsumexp(self, x: str, axis: int) -> str:
        """``log sum exp`` over ``axis`` (kept), computed as SciPy does: the largest
        value taken out first (so that no ``exp`` overflows)."""
        top = self.reduce("ReduceMax", x, axis)
        shifted = self.op("Exp", self.op("Sub", x, top))
        summed = self.reduce("ReduceSum", shifted, axis)
        return self.op("Add", self.op("Log", summed), top)

    def log_softmax(self, x: str) -> str:
        """``x - logsumexp(x)`` over the classes (axis 1), as SciPy's ``log_softmax``
        and ``x - logsumexp(x, axis=1, keepdims=True)`` compute it."""
        return self.op("Sub", x, self.logsumexp(x, 1))

    def factor_terms(
        self, codes: str, factors: list[tuple[list[int], NDArray[np.float64]]], n_classes: int
    ) -> list[str]:
        """For each factor ``(columns, log_table)`` (``log_table`` of shape (n_classes,
        r_columns...)), the tensor (n, n_classes) of ``log_table[c, codes[:, columns]]``:
        the codes of its columns (``Gather``) weighted by the table's strides and
        summed give the row's cell, and each class's offset an index into the flattened
        table (``Gather``). ``codes`` must be int64 and within range."""
        terms = []
        reduce_axes = self.axes(1)
        for columns, table in factors:
            shape = table.shape[1:]
            per_class = int(np.prod(shape, dtype=np.int64))
            cols = self.constant(np.array(columns, dtype=np.int64), "factor_columns")
            stride = self.constant(factor_strides(shape), "factor_strides")
            offsets = self.constant(
                (np.arange(n_classes, dtype=np.int64) * per_class)[None, :], "class_offsets"
            )
            flat = self.constant(np.asarray(table, dtype=np.float64).ravel(), "log_table")
            weighted = self.op("Mul", self.op("Gather", codes, cols, axis=1), stride)
            cell = self.op("ReduceSum", weighted, reduce_axes, keepdims=1)
            index = self.op("Add", cell, offsets)
            terms.append(self.op("Gather", flat, index, axis=0))
        return terms

    def total(self, terms: list[str]) -> str:
        """The sum of ``terms`` (one ``Sum`` node)."""
        return terms[0] if len(terms) == 1 else self.op("Sum", *terms)
