"""The ONNX graph builder (discotree.io.onnx_graph): its compound operations give
SciPy's numbers under onnxruntime."""

import numpy as np
import pytest
from scipy.special import log_softmax, logsumexp

from discotree.io.onnx_graph import OPSET, GraphBuilder, factor_strides

onnx = pytest.importorskip("onnx")
onnxruntime = pytest.importorskip("onnxruntime")


def _run(builder, outputs, x):
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        builder.nodes,
        "test",
        [helper.make_tensor_value_info("x", TensorProto.DOUBLE, [None, None])],
        [helper.make_tensor_value_info(o, TensorProto.DOUBLE, [None, None]) for o in outputs],
        builder.initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    onnx.checker.check_model(model)
    return onnxruntime.InferenceSession(model.SerializeToString()).run(outputs, {"x": x})


def test_logsumexp_and_log_softmax_match_scipy_without_overflow():
    x = np.random.default_rng(0).normal(size=(5, 4)) * 300.0  # exp overflows unshifted
    builder = GraphBuilder()
    total = builder.named("Identity", [builder.logsumexp("x", 1)], "lse")
    soft = builder.named("Identity", [builder.log_softmax("x")], "soft")
    lse, out = _run(builder, [total, soft], x)
    assert np.allclose(lse[:, 0], logsumexp(x, axis=1), rtol=1e-15, atol=0)
    assert np.abs(out - log_softmax(x, axis=1)).max() < 1e-12


def test_factor_terms_look_up_each_class_cell():
    table = np.log(np.random.default_rng(1).dirichlet(np.ones(6), size=(2, 3))).reshape(2, 3, 6)
    builder = GraphBuilder()
    codes = builder.op("Cast", "x", to=7)
    (term,) = builder.factor_terms(codes, [([1, 0], table)], 2)
    builder.named("Identity", [term], "term")
    x = np.array([[0.0, 2.0], [5.0, 1.0]])
    (out,) = _run(builder, ["term"], x)
    assert np.array_equal(out, table[:, [2, 1], [0, 5]].T)
    assert factor_strides(table.shape[1:]).tolist() == [6, 1]
