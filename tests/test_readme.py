"""The README's marked Python snippets run as written."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
SNIPPETS = re.findall(r"<!-- readme-snippet -->\n```python\n(.*?)```", README.read_text(), re.S)


def test_the_readme_marks_its_snippets():
    assert len(SNIPPETS) >= 2


@pytest.mark.parametrize("code", SNIPPETS, ids=lambda code: code.splitlines()[0][:40])
def test_snippet_runs(code, tmp_path):
    """Each snippet as a script (``python snippet.py``, so that LocalCluster's worker
    processes can import it)."""
    script = tmp_path / "snippet.py"
    script.write_text(code)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
