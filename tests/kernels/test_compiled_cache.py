"""Tests of :mod:`discotree.kernels.compiled_cache`: a kernel counts as at hand once
compiled in the process or cached on disk for its current code, and not before."""

import os
import subprocess
import sys
import textwrap

from numba import njit

from discotree.kernels.compiled_cache import at_hand

_PROBE = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, {folder!r})
    from discotree.kernels.compiled_cache import at_hand
    import probe_kernel
    before = at_hand(probe_kernel.add_one)
    compiled_before = len(probe_kernel.add_one.overloads)
    probe_kernel.add_one(1)
    print(before, compiled_before, at_hand(probe_kernel.add_one))
    """
)


def _run_probe(tmp_path, cache) -> list[str]:
    script = _PROBE.format(folder=str(tmp_path))
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True
    )
    return done.stdout.split()


def test_a_kernel_is_at_hand_once_cached_and_not_after_its_code_changes(tmp_path):
    # a fresh process with an empty cache: not at hand until called; the next process:
    # at hand from the disk cache before any call (nothing compiled in it); the code
    # changed: the cache is stale, not at hand again
    cache = tmp_path / "cache"
    source = tmp_path / "probe_kernel.py"
    body = "from numba import njit\n\n@njit(cache=True)\ndef add_one(x):\n    return {}\n"
    source.write_text(body.format("x + 1"))
    assert _run_probe(tmp_path, cache) == ["False", "0", "True"]
    assert _run_probe(tmp_path, cache) == ["True", "0", "True"]
    source.write_text(body.format("x * 2 - x + 1"))  # (other bytecode)
    assert _run_probe(tmp_path, cache) == ["False", "0", "True"]


def test_a_kernel_without_a_disk_cache_is_at_hand_once_compiled():
    @njit
    def square(x):
        return x * x

    assert not at_hand(square)
    assert square(3) == 9
    assert at_hand(square)
    assert at_hand()  # (nothing asked: every one at hand)
    assert not at_hand(square, object())  # (not a numba function: not at hand)
