"""The documentation site checker finds broken internal links and fragments, history
on user-facing pages, clipped code blocks and titles, and code blocks that fail (on
small synthetic sites; the check of the real site runs in CI after the docs build:
``make -C docs check``)."""

import importlib.util
import os
import shutil
from pathlib import Path

import pytest

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


HAS_CHROMIUM = bool(
    os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
)
needs_chromium = pytest.mark.skipif(
    not HAS_CHROMIUM, reason="Chromium not found (apt-get install chromium, or set $CHROMIUM)"
)


def _page(body: str) -> str:
    return f"<!DOCTYPE html><html><head><title>t</title></head><body>{body}</body></html>"


def _clean_site(site: Path) -> Path:
    (site / "user_guide").mkdir(parents=True)
    (site / "index.html").write_text(
        _page(
            "<h1>discotree</h1><p>Released today; see the user guide.</p>"
            '<script>var note = "session 3";</script>'  # not visible text
        )
    )
    (site / "user_guide" / "tan.html").write_text(
        _page(
            '<h1>TAN</h1><div class="highlight-python notranslate"><div class="highlight">'
            "<pre><span>x</span> = [1, 2]\n<span>print</span>(len(x) &gt; 1)\n</pre>"
            '</div></div><div class="highlight-bash"><div class="highlight">'
            "<pre>false  # not Python: not run</pre></div></div>"
        )
    )
    return site


def test_history_on_user_facing_pages_is_reported(tmp_path):
    site = _clean_site(tmp_path)
    assert check_site.history_mentions(site) == []
    (site / "design").mkdir()
    (site / "design" / "note.html").write_text(_page("<p>This note started with issue 12.</p>"))
    (site / "changelog.html").write_text(_page("<p>Fixed in session 12 (#48).</p>"))
    assert check_site.history_mentions(site) == []  # design notes and changelog: allowed
    (site / "user_guide" / "tan.html").write_text(
        _page("<p>Tuned in session 12, then again for issue #48 (#49).</p>")
    )
    problems = check_site.history_mentions(site)
    assert [p.split(" (...")[0] for p in problems] == [
        "user_guide/tan.html: mentions 'session 12'",
        "user_guide/tan.html: mentions 'issue #48'",
        "user_guide/tan.html: mentions '(#49)'",
    ]


def test_failing_code_blocks_are_reported(tmp_path):
    site = _clean_site(tmp_path)
    assert check_site.python_blocks(site / "user_guide" / "tan.html") == [
        "x = [1, 2]\nprint(len(x) > 1)\n"
    ]
    assert check_site.failing_blocks(site) == []
    (site / "getting_started.html").write_text(
        _page(
            '<div class="highlight-python"><div class="highlight"><pre>print("fine")</pre>'
            '</div></div><div class="highlight-default"><div class="highlight"><pre>'
            "&gt;&gt;&gt; import math\n&gt;&gt;&gt; math.sqrt(-1)\n</pre></div></div>"
        )
    )
    (site / "auto_examples").mkdir()  # the gallery's code is not run again
    (site / "auto_examples" / "plot.html").write_text(
        _page('<div class="highlight-python"><pre>raise SystemExit(3)</pre></div>')
    )
    assert check_site.failing_blocks(site, timeout=60) == [
        "getting_started.html: code block 2 fails: ValueError: math domain error"
    ]


@needs_chromium
def test_clipped_code_blocks_and_titles_are_reported(tmp_path):
    site = _clean_site(tmp_path)
    long_line = "print(" + ", ".join(f"value_{i}" for i in range(40)) + ")"
    (site / "user_guide" / "wide.html").write_text(
        _page(
            '<div style="width: 300px"><h1 style="overflow: hidden; white-space: nowrap">'
            "A_title_far_too_long_for_its_three_hundred_pixel_column</h1>"
            f'<pre style="overflow: auto">{long_line}</pre>'
            '<pre style="white-space: pre-wrap">'
            f"{long_line} (wrapped, so not clipped)</pre></div>"
        )
    )
    problems = check_site.clipped(site, [site / "user_guide" / "wide.html"])
    assert [p.split(" (")[0] for p in problems] == [
        "user_guide/wide.html: clipped title",
        "user_guide/wide.html: clipped code block",
    ]
    assert "print(value_0, value_1" in problems[1]
    (site / "user_guide" / "wide.html").unlink()
    assert check_site.clipped(site) == []  # the index and the user guide's page
