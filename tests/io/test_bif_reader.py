"""The BIF and XMLBIF readers are parsers: linear time, every table checked, clear
errors naming the line or the variable."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import pyagrum as gum
import pytest
from numpy.testing import assert_allclose

from discotree import TANClassifier
from discotree.io import (
    read_bif,
    read_bif_network,
    read_xmlbif,
    read_xmlbif_network,
    write_bif,
    write_xmlbif,
)
from discotree.validation import check_table

HEADER = """network toy { property a = "b"; }
variable class { type discrete [ 2 ] { yes, no }; }
variable x { type discrete [ 3 ] { a, b, c }; property note = 1; }
"""
PRIOR = "probability ( class ) { table 0.4, 0.6; }\n"
GOOD_X = "probability ( x | class ) { (yes) 0.7, 0.2, 0.1; (no) 0.1, 0.1, 0.8; }\n"


def _file(tmp_path, text, name="m.bif"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_good_file_reads_with_comments_and_properties(tmp_path):
    text = "// a comment\n/* a block\n comment */" + HEADER + PRIOR + GOOD_X
    network = read_bif_network(_file(tmp_path, text))
    assert network.name == "toy"
    assert network.variable("x").parents == ["class"]
    assert_allclose(network.variable("x").cpt, [[0.7, 0.2, 0.1], [0.1, 0.1, 0.8]])
    model = read_bif(_file(tmp_path, text))
    assert_allclose(np.exp(model.class_log_prior), [0.4, 0.6])


@pytest.mark.parametrize(
    ("body", "match"),
    [
        ("probability ( x | class ) { (yes) 0.7, 0.2, -0.1; (no) 0.1, 0.1, 0.8; }",
         "negative or infinite entry"),
        ("probability ( x | class ) { (yes) 0.9, 0.8, 0.1; (no) 0.1, 0.1, 0.8; }",
         "sums to 1.8, not 1"),
        ("probability ( x | class ) { (yes) 0.7, 0.2, 0.1; }", r"has no row \(1,\)"),
        ("probability ( x | klass ) { (yes) 0.7, 0.2, 0.1; }", "'klass' is not a declared"),
        ("probability ( x | class ) { (maybe) 0.7, 0.2, 0.1; }", "'maybe' is not a state"),
        ("probability ( x | class ) { table 0.7, 0.3; }", "has 2 entries; its states give 6"),
        ("probability ( x | class ) { (yes) 0.7, 0.3; }", "has 2 entries for 3 states"),
        ("probability ( x | class ) { (yes) 0.7, 0.2, zero; }", "'zero' is not a number"),
        ("probability ( x | class ) { default 0.7, 0.2, 0.1; }", "'default' rows are not read"),
        ("probability ( x | x ) { table 1; }", "cannot be a parent of 'x'"),
        ("", "no probability block for 'x'"),
        (GOOD_X + GOOD_X, "a second probability block for 'x'"),
        ("probability ( x | class { }", "expected '\\)'|expected ',' or '\\)'"),
        ("/* never closed", "a comment that is never closed"),
        ('variable "open { }', "unexpected character"),
    ],
)  # fmt: skip
def test_bad_tables_and_syntax_are_named(tmp_path, body, match):
    with pytest.raises(ValueError, match=match):
        read_bif_network(_file(tmp_path, HEADER + PRIOR + body))


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("variable x { type discrete [ 2 ] { a, a }; }", "lists the state 'a' twice"),
        ("variable x { type discrete [ 3 ] { a, b }; }", "declares 3 states and lists 2"),
        ("variable x { type continuous [ 1 ] { a }; }", "only discrete variables"),
        ("variable x { } variable x { }", "has no type"),
        (HEADER + "variable x { type discrete [ 1 ] { a }; }", "'x' is declared twice"),
        ("hello world", "expected 'network', 'variable' or 'probability', found 'hello'"),
        ("", "no variable is declared"),
        ('<?xml version="1.0"?><BIF></BIF>', "is XML, not BIF: read XMLBIF with read_xmlbif"),
    ],
)
def test_bad_declarations_are_named(tmp_path, text, match):
    with pytest.raises(ValueError, match=match):
        read_bif_network(_file(tmp_path, text))


def test_rows_within_the_tolerance_are_renormalised(tmp_path):
    body = "probability ( x | class ) { (yes) 0.33, 0.33, 0.3395; (no) 0.1, 0.1, 0.8; }"
    table = read_bif_network(_file(tmp_path, HEADER + PRIOR + body)).variable("x").cpt
    assert_allclose(table.sum(axis=-1), 1.0, atol=1e-15)


def test_errors_give_the_line_and_column(tmp_path):
    with pytest.raises(ValueError, match=r"line 5, column 25: expected '\)' after"):
        read_bif_network(_file(tmp_path, HEADER + PRIOR + "probability ( x | class ; "))


def test_a_huge_table_is_refused_before_allocating(tmp_path):
    states = ", ".join(f"s{i}" for i in range(1000))
    declarations = "".join(
        f"variable v{k} {{ type discrete [ 1000 ] {{ {states} }}; }}\n" for k in range(5)
    )
    text = declarations + "probability ( v0 | v1, v2, v3, v4 ) { table 1; }"
    with pytest.raises(
        ValueError,
        match=r"the table of 'v0' \(1000 x 1000 x 1000 x 1000 x 1000 entries\) would need",
    ):
        read_bif_network(_file(tmp_path, text))


def _cost(read, path, repeats=3):
    """The least time of ``repeats`` reads (the least is the least disturbed by load)."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        read(path)
        times.append(time.perf_counter() - start)
    return min(times)


def _refused(path):
    with pytest.raises(ValueError):
        read_bif_network(path)


def _split(path):
    """The bound: read the file and split it into words (linear, at C speed)."""
    return len(path.read_text().split())


#: Reading a BIF file, valid or not, may cost at most this many times reading and
#: splitting the same file in the same run (a quadratic or hanging reader costs
#: thousands of times more on these files). No wall-clock bound: speed targets live in
#: benchmarks/.
LINEAR_BOUND = 30


@pytest.mark.parametrize(
    "unit",
    ["probability ( ", "probability ( x | ", "variable x { type discrete [ 2 ] { a, ",
     "/* */ // \n", "( ", '"', "{ { { [ [ ", "table 0.5, "],
)  # fmt: skip
def test_a_2_mb_adversarial_file_is_refused_at_the_cost_of_reading_it(tmp_path, unit):
    path = _file(tmp_path, unit * (2_000_000 // len(unit)))
    ratio = _cost(_refused, path) / _cost(_split, path)
    assert ratio < LINEAR_BOUND, ratio


def test_a_10_mb_valid_file_is_read_at_the_cost_of_reading_it(tmp_path):
    states = ", ".join(f"s{i}" for i in range(300))
    text = HEADER.replace("[ 3 ] { a, b, c }", f"[ 300 ] {{ {states} }}") + PRIOR
    text += "probability ( x | class ) { table " + ", ".join(["0.0033333333333333335"] * 600)
    text += "; }\n"
    row = ", ".join(["0.0033333333333333335"] * 300)
    for k in range(5):
        text += f"variable z{k} {{ type discrete [ 300 ] {{ {states} }}; }}\n"
        text += f"probability ( z{k} | x ) {{ table " + ", ".join([row] * 300) + "; }\n"
    path = _file(tmp_path, text)
    assert path.stat().st_size > 10_000_000
    network = read_bif_network(path)
    assert network.variable("z4").cpt.shape == (300, 300)
    ratio = _cost(read_bif_network, path, repeats=2) / _cost(_split, path, repeats=2)
    assert ratio < LINEAR_BOUND, ratio


def _fitted():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.integers(0, 3, 200), "b": rng.choice(["p q", "r<&>"], 200)})
    y = np.where((X["a"] == 1) ^ (rng.random(200) < 0.2), "yes", "no")
    return TANClassifier(alpha=1.0).fit(X, y), X


def test_read_xmlbif_gives_back_the_model_and_agrees_with_pyagrum(tmp_path):
    model, X = _fitted()
    path = write_xmlbif(model, tmp_path / "m.bifxml")[0]
    back = read_xmlbif(path)
    codes = model.encoder_.transform(check_table(X, "test"))
    assert_allclose(back.joint_log_likelihood(codes), model.predict_joint_log_proba(X), atol=1e-9)
    ours = read_xmlbif_network(path)
    theirs = gum.loadBN(str(path))
    for variable in ours.variables:
        cpt = theirs.cpt(variable.name)
        n = cpt.nbrDim()
        axes = [cpt.variable(n - 1 - k).name() for k in range(n)]  # toarray's axis order
        order = [axes.index(v) for v in [*variable.parents, variable.name]]
        assert_allclose(np.transpose(cpt.toarray(), order), variable.cpt, atol=1e-12)


def test_read_bif_refuses_xmlbif_and_read_xmlbif_refuses_entities(tmp_path):
    model, _ = _fitted()
    path = write_xmlbif(model, tmp_path / "m.xml")[0]
    with pytest.raises(ValueError, match="read XMLBIF with read_xmlbif"):
        read_bif(path)
    laughs = (
        '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
        '<!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>'
        "<BIF><NETWORK><NAME>&lol2;</NAME></NETWORK></BIF>"
    )
    with pytest.raises(ValueError, match="not a readable XMLBIF file"):
        read_xmlbif(_file(tmp_path, laughs, "laughs.xml"))
    external = (
        '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY e SYSTEM "file:///etc/passwd">]>'
        "<BIF><NETWORK><NAME>&e;</NAME></NETWORK></BIF>"
    )
    with pytest.raises(ValueError, match="not a readable XMLBIF file"):
        read_xmlbif(_file(tmp_path, external, "external.xml"))
    with pytest.raises(ValueError, match="not a readable XMLBIF file"):
        read_xmlbif(_file(tmp_path, "<BIF><NETWORK>", "broken.xml"))
    with pytest.raises(ValueError, match="no <BIF><NETWORK> element"):
        read_xmlbif(_file(tmp_path, "<html></html>", "page.xml"))


def test_bad_xmlbif_tables_are_named(tmp_path):
    model, _ = _fitted()
    path = write_xmlbif(model, tmp_path / "m.xml")[0]
    text = path.read_text()
    start = text.index("<TABLE>") + len("<TABLE>")
    negative = text[:start] + "-" + text[start:]
    with pytest.raises(ValueError, match="negative or infinite entry"):
        read_xmlbif(_file(tmp_path, negative, "neg.xml"))
    undeclared = text.replace("<GIVEN>class</GIVEN>", "<GIVEN>klass</GIVEN>", 1)
    with pytest.raises(ValueError, match="'klass' is not a declared variable"):
        read_xmlbif(_file(tmp_path, undeclared, "undeclared.xml"))
    write_bif(model, tmp_path / "m.bif")
