"""The checks of a loaded encoder (:mod:`discotree.transformers.encoder_checks`), run
through the encoders' own ``check_structure`` and ``check_numbers``."""

from __future__ import annotations

import copy
import dataclasses

import numpy as np
import pytest

from discotree.transformers.encoder import NumericEncoder, TableEncoder
from discotree.transformers.encoder_checks import (
    check_numeric_encoder_numbers,
    check_table_encoder_numbers,
    check_table_encoder_structure,
)
from discotree.validation import check_table


@pytest.fixture(scope="module")
def table_encoder():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(size=40), rng.integers(0, 3, 40)])
    encoder = TableEncoder(max_categories=4)
    encoder.fit_transform(X)
    return encoder


def test_a_fitted_encoder_passes_and_an_unfitted_one_too(table_encoder):
    table_encoder.check("encoder_")
    TableEncoder().check("encoder_")
    check_table_encoder_structure(TableEncoder(), "encoder_")
    check_table_encoder_numbers(TableEncoder(), "encoder_")


def test_codes_against_categories_are_checked(table_encoder):
    bad = copy.deepcopy(table_encoder)
    bad.n_categories_ = np.array([bad.n_categories_[0], 9])
    with pytest.raises(
        ValueError, match=r"^e\.columns_\[1\]\.n_categories: 3 against n_categories_ 9"
    ):
        bad.check_structure("e")
    bad = copy.deepcopy(table_encoder)
    column = bad.columns_[1]
    bad.columns_[1] = dataclasses.replace(column, categories=column.categories[::-1])
    with pytest.raises(ValueError, match=r"^e\.columns_\[1\]\.categories: must be distinct"):
        bad.check_structure("e")


def test_binned_columns_are_among_the_columns(table_encoder):
    bad = copy.deepcopy(table_encoder)
    bad.binned_columns_ = np.array([0, 0])
    with pytest.raises(ValueError, match=r"^e\.binned_columns_: must be distinct columns"):
        bad.check_numbers("e")


def test_a_numeric_encoder_scales_positive():
    encoder = NumericEncoder("test")
    encoder.fit_transform(check_table(np.array([[1.0], [2.0], [4.0]]), "test"))
    encoder.check("encoder_")
    encoder.scale_ = np.array([-1.0])
    with pytest.raises(ValueError, match=r"^encoder_\.scale_: holds -1\.0"):
        check_numeric_encoder_numbers(encoder, "encoder_")
