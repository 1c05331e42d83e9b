"""Every Python block of the documentation's pages runs as written.

The landing page, the getting-started page, the user guide and the worked example of
adding a learner (``design/architecture.md``) are what a newcomer copies; each
````` ```python ````` block runs as a script in a fresh folder (so that files it writes,
such as the getting-started CSV, land there, and LocalCluster's worker processes can
import it). CI runs these in place of the site check's own run of the built pages'
blocks (``make -C docs check CHECKFLAGS=--no-run``): the same blocks, not twice.
"""

import re
import subprocess
import sys
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = sorted(
    [
        DOCS / "index.md",  # the landing page's example
        DOCS / "getting_started.md",
        DOCS / "design" / "architecture.md",  # the worked example of adding a learner
        *(DOCS / "user_guide").glob("*.md"),
    ]
)
BLOCKS = [
    pytest.param(code, id=f"{page.stem}-{k}")
    for page in PAGES
    for k, code in enumerate(re.findall(r"^```python\n(.*?)^```", page.read_text(), re.S | re.M))
]


def test_the_pages_have_code():
    assert len(BLOCKS) >= 12


@pytest.mark.parametrize("code", BLOCKS)
def test_block_runs(code, tmp_path):
    script = tmp_path / "block.py"
    script.write_text("import matplotlib\nmatplotlib.use('Agg')\n" + code)
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr[-3000:]
