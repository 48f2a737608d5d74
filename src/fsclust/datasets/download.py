"""Fetch a catalog dataset's raw file, from its pinned URL or an offline mirror, and verify it.

A fetched file only ever appears at its destination after its checksum has been verified: the
bytes go to a temporary file in the destination's directory, which is checked and then renamed
(:func:`fsclust._io.atomic_path`). A wrong checksum leaves nothing behind.

A mirror is a directory laid out like the catalog's ``file`` column (the project's offline copy
is ``../shared/data``); with a mirror the network is never used.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import urllib.error
import urllib.request
from pathlib import Path

from fsclust._io import atomic_path

__all__ = ["CHECKSUM_TYPES", "ChecksumError", "file_checksum", "verify", "fetch", "default_mirror"]

CHECKSUM_TYPES = ("sha256", "git_blob_sha1")
_CHUNK = 1 << 20


class ChecksumError(ValueError):
    """A file's checksum differs from the catalog's."""


def file_checksum(path, kind="sha256"):
    """Return the hex checksum of a file.

    Parameters
    ----------
    path : str or Path
    kind : {"sha256", "git_blob_sha1"}
        ``git_blob_sha1`` is what ``git hash-object`` prints: the SHA-1 of
        ``b"blob <size>\\0" + content``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "empty"
    >>> _ = p.write_bytes(b"")
    >>> file_checksum(p, "git_blob_sha1")  # git's well-known empty blob
    'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391'
    """
    path = Path(path)
    if kind == "sha256":
        digest = hashlib.sha256()
    elif kind == "git_blob_sha1":
        digest = hashlib.sha1(usedforsecurity=False)
        digest.update(b"blob %d\0" % path.stat().st_size)
    else:
        raise ValueError(f"unknown checksum type {kind!r}; valid: {', '.join(CHECKSUM_TYPES)}")
    with open(path, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def verify(path, entry, *, name=None, fix=None):
    """Check ``path`` against the checksum of catalog ``entry``; return the checksum.

    Parameters
    ----------
    path : str or Path
    entry : DatasetEntry
    name : str, optional
        How to name the file in the error message (default: ``path``).
    fix : str, optional
        What the user should do on a mismatch (default: delete the file and download again).

    Raises
    ------
    ChecksumError
        Naming the file, the expected and the actual checksum, and the fix.
    """
    if not entry.checksum_type or not entry.checksum:
        raise ValueError(f"dataset {entry.id!r} has no checksum in the catalog; cannot verify")
    actual = file_checksum(path, entry.checksum_type)
    if actual != entry.checksum.lower():
        name = str(path) if name is None else name
        fix = fix or f"delete {path} and download it again"
        raise ChecksumError(
            f"dataset {entry.id!r}: checksum mismatch for {name}: expected {entry.checksum_type} "
            f"{entry.checksum}, got {actual}. The file is corrupted, truncated or not the "
            f"pinned version; {fix}."
        )
    return actual


def fetch(entry, dest, mirror=None, timeout=60):
    """Copy or download the raw file of ``entry`` to ``dest``, verified.

    Parameters
    ----------
    entry : DatasetEntry
        A catalog row with ``source`` ``url`` (or ``local``) and a checksum.
    dest : str or Path
        Destination file; parent directories are created.
    mirror : str or Path, optional
        Directory laid out like the catalog's ``file`` column. When given, ``mirror/entry.file``
        is copied and the network is not used.
    timeout : float
        Seconds before a stalled download fails.

    Returns
    -------
    Path
        ``dest``.

    Raises
    ------
    FileNotFoundError
        The mirror does not hold the file (or a local dataset's file is missing).
    ChecksumError
        The copied or downloaded bytes do not match the catalog; nothing is left at ``dest``.
    OSError
        The download failed.
    """
    dest = Path(dest)
    if entry.source not in ("url", "local"):
        raise ValueError(
            f"dataset {entry.id!r} has source {entry.source!r}: there is no file to fetch"
        )
    if mirror is not None:
        src = Path(mirror) / entry.file
        if not src.is_file():
            raise FileNotFoundError(
                f"dataset {entry.id!r}: mirror file {src} not found; check the mirror "
                f"directory {mirror} (it must hold {entry.file}) or fetch without a mirror"
            )
        origin = str(src)
        fix = f"the mirror copy {src} is damaged: restore it or fetch from the URL"
    elif entry.source == "local":
        src = Path(entry.file)
        if not src.is_file():
            raise FileNotFoundError(f"dataset {entry.id!r}: local file {src} not found")
        origin, fix = str(src), f"check the file {src}"
    else:
        src = None
        origin, fix = entry.url, "delete it and download again; if it persists the URL changed"

    with atomic_path(dest) as tmp:
        if src is not None:
            shutil.copyfile(src, tmp)
        else:
            _download(entry, tmp, timeout)
        if entry.checksum:
            verify(tmp, entry, name=f"{dest.name} (from {origin})", fix=fix)
    return dest


def _download(entry, tmp, timeout):
    if not entry.url.startswith("https://"):
        raise ValueError(
            f"dataset {entry.id!r}: refusing to download a non-https URL {entry.url!r}"
        )
    request = urllib.request.Request(entry.url, headers={"User-Agent": "fsclust"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response, open(tmp, "wb") as fh:
            shutil.copyfileobj(response, fh, _CHUNK)
    except (urllib.error.URLError, TimeoutError, OSError) as err:
        raise OSError(
            f"dataset {entry.id!r}: download of {entry.url} failed ({err}); check the network, "
            f"or use an offline mirror (mirror=... / FSCLUST_MIRROR)"
        ) from err


def default_mirror():
    """The mirror directory named by the ``FSCLUST_MIRROR`` environment variable, or None."""
    value = os.environ.get("FSCLUST_MIRROR")
    return Path(value) if value else None
