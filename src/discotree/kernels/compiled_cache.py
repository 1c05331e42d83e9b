"""Whether a compiled kernel is at hand: already compiled in this process, or held by
numba's cache on disk for this machine and this version of its code, so that calling
it loads it (milliseconds) rather than compiles it (seconds with a cold cache).

A fit that builds what its predictions read asks this first: with a cold cache it
leaves the prediction's kernels to the first prediction (compiled lazily, when they
are needed), so that a first fit does not pay their compilation too.

The disk cache is read through numba's own index of a function's cached
specialisations (``Dispatcher._cache``, not a public interface): where it cannot be
read, a kernel counts as not at hand, which only moves its loading to its first call.
"""

from __future__ import annotations

import weakref
from typing import Any

__all__ = ["at_hand"]

#: The dispatchers found at hand (they stay so; held weakly, so that a dispatcher made
#: later at a freed one's address is not taken for it).
_known: weakref.WeakSet = weakref.WeakSet()


def at_hand(*dispatchers: Any) -> bool:
    """Whether every numba function of ``dispatchers`` (compiled with ``cache=True``)
    has a specialisation compiled in this process or cached on disk for this machine
    and its current code (any specialisation: the kernels here are called with one
    set of types).

    Examples
    --------
    >>> from numba import njit
    >>> @njit
    ... def twice(x):
    ...     return 2 * x
    >>> at_hand(twice)  # (not compiled yet, and not cached: numba's cache is off)
    False
    >>> twice(2)
    4
    >>> at_hand(twice)
    True
    """
    return all(_one_at_hand(dispatcher) for dispatcher in dispatchers)


def _one_at_hand(dispatcher: Any) -> bool:
    try:
        if dispatcher in _known:
            return True
        if len(dispatcher.overloads) > 0:
            _known.add(dispatcher)
            return True
        cache = dispatcher._cache
        index = cache._cache_file._load_index()
        # (the index's keys: the signature, then this machine's and the code's marks)
        wanted = tuple(cache._index_key((), dispatcher.targetctx.codegen())[1:])
        found = any(tuple(key[1:]) == wanted for key in index)
        if found:
            _known.add(dispatcher)
    except Exception:  # (no cache, or numba's internals changed: loaded at first call)
        return False
    return found
