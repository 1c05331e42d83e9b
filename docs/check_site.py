"""Check the built documentation site: internal links, and four pages rendered in
headless Chromium.

Usage: ``python docs/check_site.py docs/_build/html`` (``make -C docs check``).

1. Every ``href`` and ``src`` of every HTML page that points inside the site must name
   a file of the build, and a ``#fragment`` an ``id`` of that page.
2. The index, a user-guide page and two gallery pages are served on localhost and
   rendered by Chromium (Debian's ``chromium`` package; ``$CHROMIUM`` overrides the
   binary): the screenshot (``_build/screenshots/*.png``) must not be blank, and the
   DOM Chromium rendered must hold the page's heading (for the first example: the
   SVG of a fitted model's notebook view).

3. Every user-guide page (but its index) shows a figure (an ``img`` of the build).

Exits 1 with one line per problem; 0 when everything holds.
"""

from __future__ import annotations

import functools
import html.parser
import http.server
import os
import shutil
import subprocess
import sys
import tempfile
import threading
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


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    site = Path(argv[0] if argv else "docs/_build/html").resolve()
    if not (site / "index.html").exists():
        print(f"check_site: no built site in {site} (run make -C docs html)", file=sys.stderr)
        return 1
    problems = broken_links(site)
    n_pages = sum(1 for p in site.rglob("*.html") if "_static" not in p.parts)
    print(f"check_site: {n_pages} pages, {len(problems)} broken internal links")
    problems += pages_without_figures(site)
    problems += render(site, site.parent / "screenshots")
    for problem in problems:
        print(f"check_site: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
