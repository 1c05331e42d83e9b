"""The documentation site checker finds broken internal links and fragments (its
Chromium part runs in CI after the docs build: ``make -C docs check``)."""

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "docs" / "check_site.py"
spec = importlib.util.spec_from_file_location("check_site", SCRIPT)
check_site = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check_site)


def test_broken_links_and_fragments_are_reported(tmp_path):
    (tmp_path / "guide").mkdir()
    (tmp_path / "_static").mkdir()
    (tmp_path / "index.html").write_text(
        '<a href="guide/page.html#usage">ok</a> <a href="guide/missing.html">broken</a>'
        ' <a href="https://example.org/x">external</a> <img src="pic.png">'
    )
    (tmp_path / "guide" / "page.html").write_text(
        '<h1 id="usage">Usage</h1><a href="../index.html#nowhere">bad fragment</a>'
        '<a href="#usage">self</a>'
    )
    (tmp_path / "_static" / "template.html").write_text('<a href="{{ pathto(x) }}">t</a>')
    problems = check_site.broken_links(tmp_path)
    assert sorted(problems) == [
        "guide/page.html: no #nowhere in ../index.html#nowhere",
        "index.html: broken link guide/missing.html",
        "index.html: broken link pic.png",
    ]
    (tmp_path / "pic.png").write_bytes(b"")
    (tmp_path / "guide" / "missing.html").write_text("<p>now here</p>")
    (tmp_path / "index.html").write_text('<p id="nowhere"></p>')
    assert check_site.broken_links(tmp_path) == []


def test_a_missing_site_is_an_error(tmp_path, capsys):
    assert check_site.main([str(tmp_path)]) == 1
    assert "no built site" in capsys.readouterr().err


def test_user_guide_pages_without_a_figure_are_reported(tmp_path):
    guide = tmp_path / "user_guide"
    guide.mkdir()
    (guide / "index.html").write_text("<p>contents</p>")
    (guide / "tan.html").write_text('<img src="../_images/tan.png">')
    (guide / "naive_bayes.html").write_text('<a href="x.png">a link is not a figure</a>')
    assert check_site.pages_without_figures(tmp_path) == ["user_guide/naive_bayes.html: no figure"]
