"""Files that discotree writes: complete or not at all, and never over an input.

Every file the package writes (predictions, model files, keys, reports, figures, BIF
networks) goes through :func:`atomic_output`: the content is written to a temporary
file in the target's folder (so that the final rename stays on one file system), flushed
to disk, and renamed over the target only once it is complete. A write that fails
halfway (an exception, a full disk, an interrupted command) leaves the earlier file as
it was and no temporary file behind; a reader never sees half a file.

Before writing, :func:`check_output` refuses a target that is one of the command's
inputs (the same path once links are resolved, or the same file by device and inode,
e.g. through a hard link), or that lies inside a folder read as input, whatever
``--force`` says: ``discotree predict --data d.csv -o d.csv --force`` would otherwise
have replaced the data by its predictions. The model signing key
(:func:`signing_key_path`, ``$DISCOTREE_KEY_FILE`` or
``~/.config/discotree/model-key``) is never a target: overwriting it would make every
model signed before unreadable.

Examples
--------
>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> with atomic_output(folder / "out.txt") as handle:
...     _ = handle.write("complete")
>>> (folder / "out.txt").read_text()
'complete'
>>> check_output(folder / "data.csv", inputs=[folder / "data.csv"])  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: the output .../data.csv is the input .../data.csv: writing it would destroy ...
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

__all__ = [
    "atomic_output",
    "check_output",
    "same_file",
    "signing_key_path",
    "write_bytes",
    "write_text",
]


def signing_key_path() -> Path:
    """Where the model signing key lives: ``$DISCOTREE_KEY_FILE`` when set, else
    ``~/.config/discotree/model-key`` (see :mod:`discotree.model_file`).

    Examples
    --------
    >>> signing_key_path().name in {"model-key", os.path.basename(
    ...     os.environ.get("DISCOTREE_KEY_FILE", "model-key"))}
    True
    """
    configured = os.environ.get("DISCOTREE_KEY_FILE")
    if configured:
        return Path(configured)
    return Path.home() / ".config" / "discotree" / "model-key"


def same_file(first: str | os.PathLike, second: str | os.PathLike) -> bool:
    """Whether two paths name one file: the same path once links and ``..`` are
    resolved, or (both existing) the same device and inode (a hard link).

    Examples
    --------
    >>> same_file("/tmp/a/../b.csv", "/tmp/b.csv")
    True
    >>> same_file("/tmp/b.csv", "/tmp/c.csv")
    False
    """
    first, second = Path(first), Path(second)
    if first.resolve() == second.resolve():
        return True
    try:
        return os.path.samefile(first, second)
    except OSError:  # one of them does not exist (yet)
        return False


def _inside(path: Path, folder: Path) -> bool:
    """Whether ``path`` lies somewhere under the folder ``folder``."""
    resolved, root = path.resolve(), folder.resolve()
    return resolved != root and root in resolved.parents


def check_output(output: str | os.PathLike, inputs: Iterable[str | os.PathLike] = ()) -> Path:
    """Refuse an output that would destroy an input or the signing key.

    Parameters
    ----------
    output : path
        The file about to be written.
    inputs : paths
        The files and folders the same command reads.

    Returns
    -------
    Path
        ``output`` as a :class:`~pathlib.Path`.

    Raises
    ------
    ValueError
        If ``output`` is one of ``inputs`` (same path after resolving links, or same
        inode), lies inside a folder of ``inputs``, is a folder, or is the model
        signing key.

    Examples
    --------
    >>> check_output("predictions.csv", inputs=["data.csv"]).name
    'predictions.csv'
    """
    output = Path(output)
    for source in inputs:
        source = Path(source)
        if source.is_dir():
            if _inside(output, source) or same_file(output, source):
                raise ValueError(
                    f"the output {output} lies inside the input folder {source}: a later "
                    "read of the folder would take it as data; write it elsewhere"
                )
        elif same_file(output, source):
            raise ValueError(
                f"the output {output} is the input {source}: writing it would destroy "
                "the input; choose another output file"
            )
    if same_file(output, signing_key_path()):
        raise ValueError(
            f"the output {output} is the model signing key: overwriting it would make "
            "every model signed with it unreadable; choose another output file"
        )
    if output.is_dir():
        raise ValueError(f"the output {output} is a folder; name a file")
    return output


def _new_file_mode(target: Path, private: bool) -> int:
    """The permissions of the written file: those of the file it replaces, else
    owner-only for a private file, else what the user's umask gives a new file."""
    if private:
        return 0o600
    try:
        return target.stat().st_mode & 0o7777
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


@contextlib.contextmanager
def atomic_output(
    path: str | os.PathLike,
    mode: str = "w",
    *,
    inputs: Iterable[str | os.PathLike] = (),
    private: bool = False,
    **open_args: Any,
) -> Iterator[IO[Any]]:
    """Open a temporary file beside ``path``; rename it over ``path`` on success.

    Parameters
    ----------
    path : path
        The target. Checked first by :func:`check_output` against ``inputs``.
    mode : {"w", "wb"}, default="w"
        Text or binary.
    inputs : paths, default=()
        Files and folders the caller reads: the target may be none of them.
    private : bool, default=False
        Readable and writable by the owner only (0600); otherwise the replaced file's
        permissions, or the umask's for a new file.
    **open_args
        Passed to :func:`open` (``newline``, ``encoding``).

    Yields
    ------
    file object
        Write the whole content to it; on an exception the target is left untouched
        and the temporary file removed.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "kept.txt"
    >>> _ = target.write_text("old")
    >>> try:
    ...     with atomic_output(target) as handle:
    ...         _ = handle.write("half")
    ...         raise RuntimeError("interrupted")
    ... except RuntimeError:
    ...     pass
    >>> target.read_text(), sorted(p.name for p in target.parent.iterdir())
    ('old', ['kept.txt'])
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"mode must be 'w' or 'wb', got {mode!r}")
    target = check_output(path, inputs)
    file_mode = _new_file_mode(target, private)
    descriptor, temporary = tempfile.mkstemp(
        prefix=f".{target.name}.", suffix=".partial", dir=target.parent
    )
    try:
        with os.fdopen(descriptor, mode, **open_args) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, file_mode)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def write_text(
    path: str | os.PathLike, text: str, *, inputs: Iterable[str | os.PathLike] = ()
) -> None:
    """Write ``text`` to ``path`` atomically (:func:`atomic_output`).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "a.txt"
    >>> write_text(target, "x")
    >>> target.read_text()
    'x'
    """
    with atomic_output(path, "w", inputs=inputs, encoding="utf-8") as handle:
        handle.write(text)


def write_bytes(
    path: str | os.PathLike,
    data: bytes,
    *,
    inputs: Iterable[str | os.PathLike] = (),
    private: bool = False,
) -> None:
    """Write ``data`` to ``path`` atomically (:func:`atomic_output`).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "a.bin"
    >>> write_bytes(target, b"x")
    >>> target.read_bytes()
    b'x'
    """
    with atomic_output(path, "wb", inputs=inputs, private=private) as handle:
        handle.write(data)
