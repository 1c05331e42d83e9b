"""Fingerprints of the files a table source reads, so that a source read several times
notices a file that changed between the reads.

A learner that reads a file in several passes (the labels, then the pair tables, then
the family counts: :mod:`discotree.engines.file_passes`) learns a model of neither
version if the file changes between passes (rows appended, a label changed, the file
replaced). :class:`SourceFingerprints` keeps, for each file of a source, what the first
complete read of it found, and checks every later read against it:

* the list of files (a folder that gains or loses a file), at the start of each read;
* each file's size, at the start of each read (a changed size is refused at once);
* each file's size and modification time before and after reading it: a file that
  changes while it is being read is refused (what was read may mix two versions);
* a blake2b digest of each file's bytes, taken as the file is read
  (:class:`HashingReader`: CSV, gzipped or not, is read once, in order) or by reading
  the file again in chunks (:func:`hash_file`: Parquet, which is read out of order, by
  row group and column). A file whose digest differs is refused once it has been read.

A changed modification time alone is not a change: a file touched, or copied back,
holds the bytes the first read found, and the model learnt from it is the model of
that file. Every refusal is a ``ValueError`` naming the file and what changed.
"""

from __future__ import annotations

import hashlib
import io
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["FileFingerprint", "HashingReader", "SourceFingerprints", "hash_file"]

#: Bytes hashed at a time by :func:`hash_file`.
_CHUNK = 1 << 20
_ADVICE = (
    "the passes must all read one version of the data; fit again from a file that does not change"
)


def _new_hash() -> Any:
    return hashlib.blake2b(digest_size=16)


@dataclass(frozen=True)
class FileFingerprint:
    """What one read of a file found.

    Attributes
    ----------
    size : int
        Size in bytes.
    mtime_ns : int
        Modification time, in nanoseconds.
    digest : str
        blake2b (16 bytes, hex) of the file's bytes.
    """

    size: int
    mtime_ns: int
    digest: str

    def changes(self, later: FileFingerprint) -> list[str]:
        """What differs in ``later`` (empty when the bytes are the same; a time stamp
        alone is not a change)."""
        if later.size == self.size and later.digest == self.digest:
            return []
        found = []
        if later.size != self.size:
            found.append(f"size {later.size} bytes, was {self.size}")
        else:
            found.append("same size, other bytes")
        if later.mtime_ns != self.mtime_ns:
            found.append(f"modified at {later.mtime_ns} ns, was {self.mtime_ns}")
        return found


def file_stat(path: str) -> tuple[int, int]:
    """The size and modification time (ns) of ``path``.

    Raises
    ------
    ValueError
        If the file cannot be read (removed, say).
    """
    try:
        stat = os.stat(path)
    except OSError as err:
        raise ValueError(f"{path}: cannot be read any more ({err}); {_ADVICE}") from None
    return stat.st_size, stat.st_mtime_ns


def hash_file(path: str | Path) -> str:
    """The blake2b digest (16 bytes, hex) of the bytes of ``path``, read in chunks.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile() as handle:
    ...     _ = handle.write(b"a,b"); handle.flush()
    ...     hash_file(handle.name) == HashingReader.digest_of(b"a,b")
    True
    """
    digest = _new_hash()
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


class HashingReader(io.RawIOBase):
    """A file opened for reading that hashes its bytes as they are read, for readers
    that read a file once, in order (pyarrow's CSV reader, through ``pa.PythonFile``).

    Parameters
    ----------
    path : str or Path

    Attributes
    ----------
    at_end : bool
        Whether the whole file has been read (then :meth:`hexdigest` is the file's).
    """

    def __init__(self, path: str | Path) -> None:
        super().__init__()
        self._file = open(path, "rb")  # closed by close()
        self._hash = _new_hash()
        self._position = 0
        self.at_end = False

    @staticmethod
    def digest_of(data: bytes) -> str:
        """The digest :meth:`hexdigest` gives for a file holding ``data``."""
        digest = _new_hash()
        digest.update(data)
        return digest.hexdigest()

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        n = self._file.readinto(buffer)
        if not n:
            self.at_end = True
            return 0
        self._hash.update(memoryview(buffer)[:n])
        self._position += n
        return n

    def tell(self) -> int:
        return self._position

    def hexdigest(self) -> str:
        """The digest of the bytes read so far."""
        return self._hash.hexdigest()

    def close(self) -> None:
        self._file.close()
        super().close()


class SourceFingerprints:
    """The files of a source and what the first complete read of each found; later
    reads are checked against them (see the module's description).

    Parameters
    ----------
    source : str
        The source, as messages name it.
    files : list of str
        The files it holds, when it was opened.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = str(Path(folder) / "t.csv")
    ...     _ = Path(path).write_text("x,y\\n1,a\\n")
    ...     seen = SourceFingerprints(folder, [path])
    ...     for _ in range(2):  # two reads of the same bytes
    ...         seen.check_files([path])
    ...         before = seen.before_reading(path)
    ...         seen.after_reading(path, before, hash_file(path))
    ...     _ = Path(path).write_text("x,y\\n1,b\\n")  # a label changed, same size
    ...     seen.check_files([path])
    ...     before = seen.before_reading(path)
    ...     try:
    ...         seen.after_reading(path, before, hash_file(path))
    ...     except ValueError as err:
    ...         print("same size, other bytes" in str(err))
    True
    """

    def __init__(self, source: str, files: list[str]) -> None:
        self.source = source
        self.files = list(files)
        self._found: dict[str, FileFingerprint] = {}
        self._lock = threading.Lock()

    def by_file(self) -> dict[str, FileFingerprint]:
        """What the first complete read of each file found, by file."""
        with self._lock:
            return dict(self._found)

    def check_files(self, files: list[str]) -> None:
        """At the start of a read: the source must hold the files it held when it was
        opened, each of the size its first complete read found.

        Raises
        ------
        ValueError
            Naming the files added or removed, or the file whose size changed.
        """
        added = sorted(set(files) - set(self.files))
        removed = sorted(set(self.files) - set(files))
        if added or removed:
            what = "; ".join(
                f"{word} {', '.join(names)}"
                for word, names in (("added", added), ("removed", removed))
                if names
            )
            raise ValueError(
                f"{self.source}: its files changed since it was opened: {what}; {_ADVICE}"
            )
        for file, found in self.by_file().items():
            size, _ = file_stat(file)
            if size != found.size:
                raise ValueError(
                    f"{file}: changed since the first pass read it: size {size} bytes, "
                    f"was {found.size}; {_ADVICE}"
                )

    def check(self, files: list[str]) -> None:
        """Check now, reading each file in chunks (no parsing), that the source holds
        the bytes the first complete read of each file found.

        Raises
        ------
        ValueError
            Naming the files added or removed, or the first file that changed.
        """
        self.check_files(files)
        for file in self.by_file():
            before = self.before_reading(file)
            self.after_reading(file, before, hash_file(file))

    def before_reading(self, file: str) -> tuple[int, int]:
        """The size and modification time of ``file`` as a read of it starts."""
        return file_stat(file)

    def after_reading(self, file: str, before: tuple[int, int], digest: str) -> None:
        """Record (first complete read) or check (later ones) what a whole read of
        ``file`` found: ``digest`` of its bytes, ``before`` from :meth:`before_reading`.

        Raises
        ------
        ValueError
            If the file changed while it was read, or its bytes differ from the first
            complete read's.
        """
        after = file_stat(file)
        if after != before:
            raise ValueError(
                f"{file}: changed while it was being read (size {after[0]} bytes, was "
                f"{before[0]}; modified at {after[1]} ns, was {before[1]}); {_ADVICE}"
            )
        found = FileFingerprint(after[0], after[1], digest)
        with self._lock:
            first = self._found.setdefault(file, found)
        changes = first.changes(found)
        if changes:
            raise ValueError(
                f"{file}: changed since the first pass read it ({'; '.join(changes)}); {_ADVICE}"
            )
