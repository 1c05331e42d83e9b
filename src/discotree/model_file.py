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
"""

from __future__ import annotations

import hashlib
import hmac
import io
import os
import secrets
from pathlib import Path
from typing import Any

import joblib

__all__ = ["MAGIC", "load_model", "save_model"]

#: First line of every model file.
MAGIC = b"DISCOTREE-MODEL 1 hmac-sha256\n"


def _key_path() -> Path:
    configured = os.environ.get("DISCOTREE_KEY_FILE")
    if configured:
        return Path(configured)
    return Path.home() / ".config" / "discotree" / "model-key"


def _key(create: bool) -> bytes | None:
    path = _key_path()
    if path.is_file():
        return path.read_bytes()
    if not create:
        return None
    path.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_bytes(32)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(key)
    return key


def save_model(content: Any, path: str | Path) -> None:
    """Pickle ``content`` to ``path`` with this user's signature.

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
    Path(path).write_bytes(MAGIC + signature + b"\n" + payload)


def load_model(path: str | Path) -> Any:
    """Load a file written by :func:`save_model`, after checking its signature.

    Raises
    ------
    ValueError
        If the file is not a discotree model file, or its signature does not match this
        user's key (written elsewhere, or altered): it is then never unpickled.
    """
    path = Path(path)
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
