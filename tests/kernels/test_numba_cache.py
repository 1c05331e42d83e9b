"""numba's compiled kernels are cached on a read-only installation too: numba then
writes them to the user-wide cache directory (``$NUMBA_CACHE_DIR``, else
``$XDG_CACHE_HOME/numba`` or ``~/.cache/numba``), and a second process loads them
instead of compiling. The package is copied and bind-mounted read-only in a private
mount namespace (``unshare -m``), so the check holds even for root."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src" / "discotree"

PROGRAM = """
import json, sys
from numba.core.registry import CPUDispatcher
from sklearn.datasets import load_iris
import discotree
from discotree import TANClassifier
X, y = load_iris(return_X_y=True)
TANClassifier(alpha=1.0).fit(X, y)
hits = misses = 0
for name, module in list(sys.modules.items()):
    if name.startswith("discotree.kernels"):
        for value in vars(module).values():
            if isinstance(value, CPUDispatcher):
                hits += sum(value.stats.cache_hits.values())
                misses += sum(value.stats.cache_misses.values())
print(json.dumps({"hits": hits, "misses": misses, "file": discotree.__file__}))
"""


def _can_mount_read_only(tmp_path: Path) -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = tmp_path / "probe"
    probe.mkdir()
    script = f"mount --bind {probe} {probe} && mount -o remount,bind,ro {probe}"
    return (
        subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True).returncode == 0
    )


def _run_read_only(site: Path, cache: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env.update(PYTHONPATH=str(site), PYTHONDONTWRITEBYTECODE="1", XDG_CACHE_HOME=str(cache))
    script = (
        f"mount --bind {site} {site} && mount -o remount,bind,ro {site} && "
        f'exec "{sys.executable}" -c "$PROGRAM"'
    )
    env["PROGRAM"] = PROGRAM
    done = subprocess.run(
        ["unshare", "-m", "sh", "-c", script], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_kernels_are_cached_in_the_user_directory_when_the_package_is_read_only(tmp_path):
    if not _can_mount_read_only(tmp_path):
        pytest.skip("no private mount namespace here (unshare -m): cannot mount read-only")
    site = tmp_path / "site"
    shutil.copytree(SRC, site / "discotree", ignore=shutil.ignore_patterns("__pycache__"))
    cache = tmp_path / "cache"
    first = _run_read_only(site, cache)
    assert first["file"].startswith(str(site))
    assert first["misses"] > 0 and first["hits"] == 0
    assert not list(site.rglob("*.nbi"))  # nothing written into the installation
    assert list((cache / "numba").rglob("*.nbi"))  # but into the user's cache
    second = _run_read_only(site, cache)
    assert second["hits"] > 0 and second["misses"] == 0
