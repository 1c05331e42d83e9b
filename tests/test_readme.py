"""The README's marked Python snippets run as written."""

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
SNIPPETS = re.findall(r"<!-- readme-snippet -->\n```python\n(.*?)```", README.read_text(), re.S)


def test_the_readme_marks_its_snippets():
    assert len(SNIPPETS) >= 2


@pytest.mark.parametrize("code", SNIPPETS, ids=lambda code: code.splitlines()[0][:40])
def test_snippet_runs(code, capsys):
    exec(compile(code, str(README), "exec"), {"__name__": "readme"})
