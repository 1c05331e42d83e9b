"""Model files that the command line writes and reads: pickles signed by the user.

Loading a pickle runs whatever code it names, so ``discotree predict`` must never load
a file somebody else wrote. Each file starts with a header line, then the
HMAC-SHA256 of the payload under a secret key of this user, then the payload (a joblib
pickle). :func:`load_model` checks the header and the signature *before* unpickling
and refuses a file that fails either, saying why.

The key is 32 random bytes in ``~/.config/discotree/model-key`` (created, readable by
its owner only, on the first save) or in the file named by ``$DISCOTREE_KEY_FILE``;
share that file to read your models on another machine. A model file from elsewhere
is not loaded: refit from the data.

A key file is used only when it is a regular file of at least :data:`MIN_KEY_BYTES`
bytes (and at most 64 KiB) that no one but its owner may read or write (on POSIX
systems): an empty or short key, or one that others can read, would let them sign a
pickle that runs code here, so such a file is refused with a message saying why. Model
files larger than the ``model_file_limit`` configuration key (1 GiB by default) are
refused before they are read.
"""

from __future__ import annotations

import hashlib
import hmac
import io
import os
import secrets
import stat
from pathlib import Path
from typing import Any

import joblib

from .config import check_file_size
from .output_files import signing_key_path, write_bytes

__all__ = ["MAGIC", "MIN_KEY_BYTES", "load_model", "save_model"]

#: First line of every model file.
MAGIC = b"DISCOTREE-MODEL 1 hmac-sha256\n"
#: Shortest signing key accepted (HMAC-SHA256 keys shorter than the hash are weak).
MIN_KEY_BYTES = 32
_MAX_KEY_BYTES = 64 * 1024


def _refuse_key(path: Path, why: str) -> ValueError:
    return ValueError(
        f"the model signing key {path} is refused: {why}. A key must be a regular file "
        f"of at least {MIN_KEY_BYTES} random bytes readable by its owner only; delete it "
        "to have discotree create one (models signed with it will then have to be "
        "refitted), or point $DISCOTREE_KEY_FILE at a good one."
    )


def _read_key(path: Path) -> bytes:
    """The key in ``path``, after checking that it is one (see the module notes)."""
    try:
        info = path.stat()
    except OSError as err:
        raise _refuse_key(path, f"it cannot be read ({err.strerror})") from None
    if not stat.S_ISREG(info.st_mode):
        raise _refuse_key(path, "it is not a regular file")
    if os.name == "posix" and info.st_mode & 0o077:
        raise _refuse_key(
            path,
            f"others than its owner may read or write it (mode {stat.S_IMODE(info.st_mode):o};"
            f" 'chmod 600 {path}' if no one else has read it)",
        )
    if info.st_size > _MAX_KEY_BYTES:
        raise _refuse_key(path, f"it holds {info.st_size} bytes, more than a key")
    with path.open("rb") as handle:
        key = handle.read(_MAX_KEY_BYTES + 1)
    if len(key) < MIN_KEY_BYTES:
        raise _refuse_key(path, f"it holds {len(key)} bytes, fewer than {MIN_KEY_BYTES}")
    if len(key) > _MAX_KEY_BYTES:
        raise _refuse_key(path, f"it holds more than {_MAX_KEY_BYTES} bytes")
    return key


def _key(create: bool) -> bytes | None:
    path = signing_key_path()
    if path.exists() or path.is_symlink():
        return _read_key(path)
    if not create:
        return None
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    key = secrets.token_bytes(MIN_KEY_BYTES)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(key)
    return key


def save_model(content: Any, path: str | Path) -> None:
    """Pickle ``content`` to ``path`` with this user's signature.

    The file is written whole or not at all (:func:`discotree.output_files.write_bytes`:
    a temporary file renamed over ``path``); ``path`` may not be the signing key.

    Raises
    ------
    ValueError
        If ``path`` is the signing key or a folder, or the key file is refused.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "m.model"
    >>> save_model({"answer": 42}, target)
    >>> load_model(target)
    {'answer': 42}
    """
    buffer = io.BytesIO()
    joblib.dump(content, buffer)
    payload = buffer.getvalue()
    key = _key(create=True)
    assert key is not None
    signature = hmac.new(key, payload, hashlib.sha256).hexdigest().encode()
    write_bytes(path, MAGIC + signature + b"\n" + payload)


def load_model(path: str | Path) -> Any:
    """Load a file written by :func:`save_model`, after checking its signature.

    Raises
    ------
    ValueError
        If the file is not a discotree model file, is larger than the
        ``model_file_limit`` configuration key, or its signature does not match this
        user's key (written elsewhere, or altered), or the key file is refused (see the
        module notes): it is then never unpickled.
    """
    path = Path(path)
    check_file_size(path)
    data = path.read_bytes()
    if not data.startswith(MAGIC):
        raise ValueError(
            f"{path} is not a model file written by 'discotree fit' (no discotree header); "
            "only such files are loaded, because loading a pickle runs code."
        )
    signature, _, payload = data[len(MAGIC) :].partition(b"\n")
    key = _key(create=False)
    expected = None if key is None else hmac.new(key, payload, hashlib.sha256).hexdigest()
    if expected is None or not hmac.compare_digest(signature, expected.encode()):
        raise ValueError(
            f"{path} was not written by discotree with this user's key (or was altered "
            "since): it is refused, because loading a pickle runs code. Refit the model "
            "here, or share the key file (see $DISCOTREE_KEY_FILE) between machines "
            "you trust."
        )
    return joblib.load(io.BytesIO(payload))
