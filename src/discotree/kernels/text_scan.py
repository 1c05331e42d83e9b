"""Linear scans of untrusted text before it is parsed (model files)."""

from __future__ import annotations

import numba
import numpy as np
from numpy.typing import NDArray

__all__ = ["json_nesting_depth"]


@numba.njit(cache=True, nogil=True)
def _depth(data):  # pragma: no cover - numba
    depth = 0
    deepest = 0
    in_string = False
    escaped = False
    for byte in data:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 92:  # backslash
                escaped = True
            elif byte == 34:  # quote
                in_string = False
        elif byte == 34:
            in_string = True
        elif byte == 91 or byte == 123:  # [ {
            depth += 1
            if depth > deepest:
                deepest = depth
        elif byte == 93 or byte == 125:  # ] }
            depth -= 1
    return deepest


def json_nesting_depth(data: bytes | NDArray[np.uint8]) -> int:
    """The deepest nesting of JSON arrays and objects in ``data`` (brackets inside
    strings do not count), in one pass without recursion.

    Examples
    --------
    >>> json_nesting_depth(b'{"a": [1, {"b": "[[[\\\\""}]}')
    3
    """
    array = np.frombuffer(data, dtype=np.uint8) if isinstance(data, bytes) else data
    return int(_depth(array))
