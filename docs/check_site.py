"""Check the built documentation site: internal links, pages rendered in headless
Chromium, history on user-facing pages, clipped code and titles, and code blocks that
fail to run.

Usage: ``python docs/check_site.py docs/_build/html [--no-run]``
(``make -C docs check``).

1. Every ``href`` and ``src`` of every HTML page that points inside the site must name
   a file of the build, and a ``#fragment`` an ``id`` of that page.
2. The index, a user-guide page and two gallery pages are served on localhost and
   rendered by Chromium (Debian's ``chromium`` package; ``$CHROMIUM`` overrides the
   binary): the screenshot (``_build/screenshots/*.png``) must not be blank, and the
   DOM Chromium rendered must hold the page's heading (for the first example: the
   SVG of a fitted model's notebook view).
3. Every user-guide page (but its index) shows a figure (an ``img`` of the build).
4. No user-facing page mentions a session, an issue or a pull request by number
   ("session 26", "issue #48", "(#48)"): the project's history belongs in the changelog
   and the design notes. User-facing is every page but the design notes
   (``design/``), the changelog and the pages Sphinx generates (``genindex``,
   ``search``, ``py-modindex``). The reproduction pages are user-facing: they report
   what each experiment finds today, for readers of the papers, not how it came about.
5. No code block (``pre``) and no title (``h1``) is wider than its box at a window
   width of 1280 px (``scrollWidth > clientWidth + 1``: a horizontal scroll bar, or text
   cut off or spilling out). Each page of ``RENDERED`` (the index, getting started,
   contributing, the user guide, the API reference's index and its pages of longest
   title, the gallery, the reproductions) is served with a script that measures every
   ``pre`` and ``h1`` once the page and its fonts are loaded and writes the result into
   the DOM, which Chromium dumps (``--dump-dom`` with a virtual time budget, so the
   page's scripts run): one Chromium launch per page.
6. Every Python code block (``div.highlight-python``, ``-python3``, ``-pycon``, and
   ``-default`` blocks that start with ``>>>``) of the user-facing pages runs as a
   script in a fresh temporary folder (``MPLBACKEND=Agg``, at most ``RUN_TIMEOUT``
   seconds), each block on its own, as a reader copies it. Left out: the gallery
   (sphinx-gallery ran its code to build the page) and the API pages (their examples
   are doctested by ``tests/test_docstrings.py``). ``--no-run`` skips this part.

Exits 1 with one line per problem; 0 when everything holds.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import html
import html.parser
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote, urlsplit

import numpy as np
from matplotlib import image

PAGES = {
    "index.html": "discotree",
    "user_guide/discriminative_trees.html": "Discriminative trees",
    "auto_examples/plot_07_discriminative_trees.html": "Discriminative trees against",
    # a fitted model's notebook view (its _repr_html_, captured by sphinx-gallery)
    "auto_examples/plot_01_reading_a_structure.html": 'aria-label="learned network"',
}
# history: a session, an issue or a pull request named by its number
HISTORY = re.compile(
    r"\b(?:sessions?|issues?|PRs?|pull requests?)\s+#?\d+(?:\s*(?:[-/,]|and)\s*#?\d+)*"
    r"|\(#\d+\)|(?<![\w/#&.-])#\d+\b",
    re.IGNORECASE,
)
NOT_USER_FACING = ("design/", "changelog.html", "genindex.html", "search.html", "py-modindex.html")
# the pages rendered for clipped code and titles (globs relative to the site)
RENDERED = (
    "index.html",
    "getting_started.html",
    "contributing.html",
    "user_guide/*.html",
    "api/index.html",
    "auto_examples/*.html",
    "reproductions/*.html",
)
LONGEST_API_TITLES = 3  # and the API pages of longest title (the object's full name)
RUN_TIMEOUT = 300  # seconds for one code block
PYTHON_BLOCK = re.compile(r"\bhighlight-(python3?|pycon|default)\b")
RESULT_ID = "check-site-measure"
# measures every pre and h1 once the page and its fonts are loaded; writes the result
# as JSON into a div that --dump-dom returns
MEASURE = f"""<script>
(function () {{
  function longest(text) {{
    return text.split("\\n").reduce(function (a, b) {{ return b.length > a.length ? b : a; }}, "");
  }}
  function measure() {{
    var found = [];
    document.querySelectorAll("pre, h1").forEach(function (el) {{
      if (el.clientWidth === 0) return;  // not displayed
      var excess = el.scrollWidth - el.clientWidth;
      if (excess > 1) {{
        found.push({{tag: el.tagName.toLowerCase(), excess: excess, width: el.clientWidth,
                    overflow: getComputedStyle(el).overflowX,
                    text: longest(el.textContent.trim()).trim().slice(0, 70)}});
      }}
    }});
    var out = document.createElement("div");
    out.id = "{RESULT_ID}";
    out.textContent = JSON.stringify(found);
    document.body.appendChild(out);
  }}
  window.addEventListener("load", function () {{
    (document.fonts ? document.fonts.ready : Promise.resolve()).then(measure);
  }});
}})();
</script>"""
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--window-size=1280,1400",
]


class _Links(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.images: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name == "id" and value:
                self.ids.add(value)
            if name in ("href", "src") and value and tag in ("a", "img", "link", "script"):
                self.links.append(value)
            if tag == "img" and name == "src" and value:
                self.images.append(value)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass  # no request log on the console


def _parse(path: Path) -> _Links:
    parser = _Links()
    parser.feed(path.read_text(encoding="utf-8", errors="replace"))
    return parser


def broken_links(site: Path) -> list[str]:
    """Internal links of every page that name no file of the site, or no id of it."""
    pages = [p for p in site.rglob("*.html") if "_static" not in p.relative_to(site).parts]
    parsed = {page: _parse(page) for page in pages}  # (_static holds theme templates)
    problems = []
    for page, links in parsed.items():
        for link in links.links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or link.startswith(("mailto:", "javascript:")):
                continue  # external: not checked (no network here)
            target = page if not parts.path else (page.parent / unquote(parts.path)).resolve()
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                problems.append(f"{page.relative_to(site)}: broken link {link}")
            elif parts.fragment and target.suffix == ".html":
                ids = parsed[target].ids if target in parsed else _parse(target).ids
                if unquote(parts.fragment) not in ids:
                    problems.append(f"{page.relative_to(site)}: no #{parts.fragment} in {link}")
    return problems


def _chromium() -> str:
    found = (
        os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    )
    if not found:
        raise SystemExit(
            "check_site: Chromium not found; install Debian's package (apt-get install "
            "chromium) or set $CHROMIUM"
        )
    return found


def render(site: Path, shots: Path) -> list[str]:
    """Screenshot and DOM of each page of PAGES, served on localhost."""
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    shots.mkdir(parents=True, exist_ok=True)
    problems = []
    try:
        for page, heading in PAGES.items():
            url = f"http://127.0.0.1:{server.server_address[1]}/{page}"
            png = shots / (page.replace("/", "_").removesuffix(".html") + ".png")
            with tempfile.TemporaryDirectory() as profile:
                base = [_chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={profile}"]
                subprocess.run(
                    [*base, f"--screenshot={png}", url], capture_output=True, timeout=120
                )
                dom = subprocess.run(
                    [*base, "--dump-dom", url], capture_output=True, text=True, timeout=120
                ).stdout
            if not png.exists():
                problems.append(f"{page}: Chromium wrote no screenshot")
                continue
            pixels = image.imread(png)[..., :3]
            non_white = float((pixels.min(axis=2) < 0.9).mean())
            colours = len(np.unique((pixels * 255).astype(np.uint8).reshape(-1, 3), axis=0))
            if non_white < 0.01 or colours < 16:
                problems.append(
                    f"{page}: the screenshot looks blank ({non_white:.1%} non-white pixels, "
                    f"{colours} colours)"
                )
            if heading not in dom:
                problems.append(f"{page}: the rendered page does not contain {heading!r}")
            print(f"check_site: {page}: {png} ({non_white:.0%} non-white, {colours} colours)")
    finally:
        server.shutdown()
    return problems


def pages_without_figures(site: Path) -> list[str]:
    """The user-guide pages (but the index) with no image of the build."""
    missing = []
    for page in sorted((site / "user_guide").glob("*.html")):
        if page.name == "index.html":
            continue
        if not _parse(page).images:
            missing.append(f"user_guide/{page.name}: no figure")
    return missing


def _html_pages(site: Path) -> list[Path]:
    return sorted(p for p in site.rglob("*.html") if "_static" not in p.relative_to(site).parts)


def user_facing_pages(site: Path) -> list[Path]:
    """Every page of the site but the design notes, the changelog and Sphinx's own."""
    return [
        page
        for page in _html_pages(site)
        if not page.relative_to(site).as_posix().startswith(NOT_USER_FACING)
    ]


class _VisibleText(html.parser.HTMLParser):
    """The text a reader sees: the body's, less scripts, styles and templates."""

    HIDDEN = frozenset({"script", "style", "noscript", "template", "head", "title"})

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.HIDDEN:
            self._hidden += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in self.HIDDEN and self._hidden:
            self._hidden -= 1

    def handle_data(self, data: str) -> None:
        if not self._hidden:
            self.parts.append(data)


def visible_text(page: Path) -> str:
    parser = _VisibleText()
    parser.feed(page.read_text(encoding="utf-8", errors="replace"))
    return re.sub(r"\s+", " ", " ".join(parser.parts))


def history_mentions(site: Path) -> list[str]:
    """User-facing pages whose text names a session, an issue or a pull request."""
    problems = []
    for page in user_facing_pages(site):
        text = visible_text(page)
        for match in HISTORY.finditer(text):
            context = text[max(0, match.start() - 40) : match.end() + 40].strip()
            problems.append(
                f"{page.relative_to(site)}: mentions {match.group()!r} (...{context}...)"
            )
    return problems


class _MeasuringHandler(_QuietHandler):
    """Serves the site's HTML pages with the MEASURE script before ``</body>``."""

    def do_GET(self) -> None:
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            path = path / "index.html"
        if path.suffix != ".html" or not path.is_file():
            super().do_GET()
            return
        body = path.read_bytes()
        end = body.rfind(b"</body>")
        end = len(body) if end < 0 else end
        body = body[:end] + MEASURE.encode() + body[end:]
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@contextlib.contextmanager
def _serve(site: Path, handler: type = _QuietHandler) -> Iterator[str]:
    """The site served on localhost; yields its base URL."""
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(handler, directory=str(site))
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def rendered_pages(site: Path) -> list[Path]:
    """The user-facing pages of RENDERED that the build has, and the API pages of
    longest title."""
    found = {page for pattern in RENDERED for page in site.glob(pattern)}
    api = sorted(site.glob("api/generated/*.html"), key=lambda p: (-len(p.stem), p.stem))
    found |= set(api[:LONGEST_API_TITLES])
    return sorted(found & set(user_facing_pages(site)))


def clipped(site: Path, pages: list[Path] | None = None) -> list[str]:
    """Code blocks and titles wider than their box at 1280 px, one Chromium per page."""
    pages = rendered_pages(site) if pages is None else pages
    chromium = _chromium()
    problems = []
    start = time.perf_counter()
    with _serve(site, _MeasuringHandler) as base:
        for page in pages:
            name = page.relative_to(site).as_posix()
            with tempfile.TemporaryDirectory() as profile:
                dom = subprocess.run(
                    [
                        chromium,
                        *CHROMIUM_FLAGS,
                        f"--user-data-dir={profile}",
                        "--virtual-time-budget=5000",
                        "--dump-dom",
                        f"{base}/{name}",
                    ],
                    capture_output=True,
                    text=True,
                    timeout=120,
                ).stdout
            result = re.search(rf'<div id="{RESULT_ID}">(.*?)</div>', dom, re.S)
            if result is None:
                problems.append(f"{name}: Chromium returned no measurement of the page")
                continue
            for item in json.loads(html.unescape(result.group(1))):
                what = "title" if item["tag"] == "h1" else "code block"
                problems.append(
                    f"{name}: clipped {what} ({item['excess']} px wider than its "
                    f"{item['width']} px box, overflow {item['overflow']}): {item['text']!r}"
                )
    print(
        f"check_site: {len(pages)} pages measured in Chromium at 1280 px "
        f"({time.perf_counter() - start:.0f} s)"
    )
    return problems


class _CodeBlocks(html.parser.HTMLParser):
    """The text of the ``pre`` of each Python highlight block, in page order."""

    def __init__(self) -> None:
        super().__init__()
        self.blocks: list[str] = []
        self._wanted = False
        self._inside: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = dict(attrs).get("class") or ""
        if tag == "div" and PYTHON_BLOCK.search(classes):
            self._wanted = True
        elif tag == "pre" and self._wanted:
            self._inside, self._wanted = [], False

    def handle_endtag(self, tag: str) -> None:
        if tag == "pre" and self._inside is not None:
            self.blocks.append("".join(self._inside))
            self._inside = None

    def handle_data(self, data: str) -> None:
        if self._inside is not None:
            self._inside.append(data)


def python_blocks(page: Path) -> list[str]:
    """The page's Python code blocks as scripts (doctest prompts taken out)."""
    parser = _CodeBlocks()
    parser.feed(page.read_text(encoding="utf-8", errors="replace"))
    scripts = []
    for block in parser.blocks:
        lines = block.splitlines()
        if lines and lines[0].startswith(">>>"):
            block = "\n".join(ln[4:] for ln in lines if ln.startswith((">>>", "...")))
        elif not any(line.strip() for line in lines):
            continue
        scripts.append(block.rstrip() + "\n")
    return scripts


def run_pages(site: Path) -> list[Path]:
    """The user-facing pages whose code blocks run: not the gallery, not the API."""
    return [
        page
        for page in user_facing_pages(site)
        if not page.relative_to(site).as_posix().startswith(("auto_examples/", "api/"))
    ]


def failing_blocks(
    site: Path, pages: list[Path] | None = None, timeout: float = RUN_TIMEOUT
) -> list[str]:
    """Python code blocks that fail, each run as a script in a fresh folder."""
    pages = run_pages(site) if pages is None else pages
    env = {**os.environ, "MPLBACKEND": "Agg"}
    problems = []
    start, n_blocks = time.perf_counter(), 0
    for page in pages:
        name = page.relative_to(site).as_posix()
        for number, code in enumerate(python_blocks(page), start=1):
            n_blocks += 1
            with tempfile.TemporaryDirectory() as folder:
                script = Path(folder) / "block.py"
                script.write_text(code, encoding="utf-8")
                try:
                    done = subprocess.run(
                        [sys.executable, str(script)],
                        capture_output=True,
                        text=True,
                        cwd=folder,
                        env=env,
                        timeout=timeout,
                    )
                except subprocess.TimeoutExpired:
                    problems.append(f"{name}: code block {number} ran past {timeout:g} s")
                    continue
            print(f"check_site: {name}: code block {number}: exit {done.returncode}")
            if done.returncode != 0:
                last = [line for line in done.stderr.splitlines() if line.strip()]
                problems.append(
                    f"{name}: code block {number} fails: "
                    f"{last[-1] if last else f'exit status {done.returncode}'}"
                )
    print(f"check_site: {n_blocks} code blocks run ({time.perf_counter() - start:.0f} s)")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Check the built documentation site.")
    parser.add_argument("site", nargs="?", default="docs/_build/html")
    parser.add_argument(
        "--no-run", action="store_true", help="do not run the pages' Python code blocks"
    )
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    site = Path(args.site).resolve()
    if not (site / "index.html").exists():
        print(f"check_site: no built site in {site} (run make -C docs html)", file=sys.stderr)
        return 1
    problems = broken_links(site)
    n_pages = len(_html_pages(site))
    print(f"check_site: {n_pages} pages, {len(problems)} broken internal links")
    problems += pages_without_figures(site)
    problems += history_mentions(site)
    problems += render(site, site.parent / "screenshots")
    problems += clipped(site)
    if not args.no_run:
        problems += failing_blocks(site)
    for problem in problems:
        print(f"check_site: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
