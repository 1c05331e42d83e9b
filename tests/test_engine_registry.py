"""Engines are found by the input they accept and imported only then."""

import pytest

from discotree.engine_registry import engine_function, register_engine, unregister_engine


def test_an_engine_is_imported_only_for_its_input():
    register_engine("fake", lambda X: X == "remote", fit="json:dumps")
    try:
        assert engine_function("local", "fit") is None
        assert engine_function("remote", "predict") is None  # no such role
        assert engine_function("remote", "fit")(1) == "1"
    finally:
        unregister_engine("fake")


def test_a_missing_extra_is_named():
    register_engine("absent", lambda X: True, fit="discotree_no_such_module:fit")
    try:
        with pytest.raises(ImportError, match=r"pip install 'discotree\[absent\]'"):
            engine_function(object(), "fit")
    finally:
        unregister_engine("absent")


def test_targets_must_name_a_function():
    with pytest.raises(ValueError, match="must be 'module:function'"):
        register_engine("bad", lambda X: True, fit="json")


def test_the_package_registers_dask_for_dask_collections():
    dd = pytest.importorskip("dask.dataframe")
    import pandas as pd

    frame = dd.from_pandas(pd.DataFrame({"a": [1, 2]}), npartitions=1)
    assert engine_function(frame, "fit").__module__ == "discotree.engines.dask_engine"
    assert engine_function(pd.DataFrame({"a": [1]}), "fit") is None
