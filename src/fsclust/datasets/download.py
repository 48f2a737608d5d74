"""Fetch a catalog dataset's raw file, from its pinned URL or an offline mirror, and verify it.

A fetched file only ever appears at its destination after its checksum has been verified: the
bytes go to a temporary file in the destination's directory, which is checked and then renamed
(:func:`fsclust._io.atomic_path`). A wrong checksum leaves nothing behind.

A mirror is a directory laid out like the catalog's ``file`` column (the project's offline copy
is ``../shared/data``); with a mirror the network is never used.

A dataset may have several files (``entry.files``); :func:`fetch` and :func:`verify` handle one
file at a time, chosen with ``file=`` (its relative path or its position in ``entry.files``).
:func:`catalog_status` says, for every file of every dataset, whether it is present locally and
(optionally) whether its checksum matches.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from fsclust._io import atomic_path, output_error

__all__ = [
    "CHECKSUM_TYPES",
    "ChecksumError",
    "FileStatus",
    "file_checksum",
    "verify",
    "fetch",
    "default_mirror",
    "select_file",
    "catalog_status",
]

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


def select_file(entry, file=None, dest=None):
    """Index in ``entry.files``: the only file, the one named, or the one ``dest`` ends with.

    Parameters
    ----------
    entry : DatasetEntry
    file : str or int, optional
        A relative path from ``entry.files`` or its index. Default: the entry's only file, or
        (several files) the one whose relative path ``dest`` ends with.
    dest : str or Path, optional
        The destination path, used only to resolve ``file=None`` for a multi-file entry.

    Raises
    ------
    ValueError
        The entry has no file, ``file`` is not one of its files, or the choice is ambiguous.
    """
    files = entry.files
    if not files:
        raise ValueError(f"dataset {entry.id!r} has no file in the catalog")
    if file is None:
        if len(files) == 1:
            return 0
        if dest is not None:
            dest = Path(dest).as_posix()
            matches = [i for i, f in enumerate(files) if dest == f or dest.endswith("/" + f)]
            if len(matches) == 1:
                return matches[0]
        raise ValueError(
            f"dataset {entry.id!r} has {len(files)} files ({', '.join(files)}); say which one "
            "with file=..."
        )
    if isinstance(file, int) and not isinstance(file, bool):
        if 0 <= file < len(files):
            return file
        raise ValueError(f"dataset {entry.id!r} has {len(files)} file(s); no file number {file}")
    if str(file) in files:
        return files.index(str(file))
    raise ValueError(
        f"dataset {entry.id!r} has no file {file!r}; its files: {', '.join(files)}"
    )


def verify(path, entry, *, name=None, fix=None, file=None):
    """Check ``path`` against the checksum of catalog ``entry``; return the checksum.

    Parameters
    ----------
    path : str or Path
    entry : DatasetEntry
    file : str or int, optional
        Which of the entry's files ``path`` is (see :func:`select_file`); needed only for a
        dataset with several files, else resolved from ``path``'s name.
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
    index = select_file(entry, file, dest=path)
    expected = entry.checksums[index].lower()
    actual = file_checksum(path, entry.checksum_type)
    if actual != expected:
        name = str(path) if name is None else name
        fix = fix or f"delete {path} and download it again"
        raise ChecksumError(
            f"dataset {entry.id!r}: checksum mismatch for {name}: expected {entry.checksum_type} "
            f"{expected}, actual {actual}. The file is corrupted, truncated or not the "
            f"pinned version; {fix}."
        )
    return actual


def fetch(entry, dest, mirror=None, file=None, timeout=60):
    """Copy or download one raw file of ``entry`` to ``dest``, verified.

    Parameters
    ----------
    entry : DatasetEntry
        A catalog row with ``source`` ``url`` (or ``local``) and a checksum.
    dest : str or Path
        Destination file; parent directories are created.
    mirror : str or Path, optional
        Directory laid out like the catalog's ``file`` column. When given, ``mirror/<file>``
        is copied and the network is not used.
    file : str or int, optional
        Which of ``entry.files`` (relative path or index; see :func:`select_file`). Default:
        the only file; for a multi-file dataset the one ``dest`` ends with, else an error.
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
    index = select_file(entry, file, dest)
    relative = entry.files[index]
    if mirror is not None:
        src = Path(mirror) / relative
        if not src.is_file():
            raise FileNotFoundError(
                f"dataset {entry.id!r}: mirror file {src} not found; check the mirror "
                f"directory {mirror} (it must hold {relative}) or fetch without a mirror"
            )
        origin = str(src)
        fix = f"the mirror copy {src} is damaged: restore it or fetch from the URL"
    elif entry.source == "local":
        src = Path(relative)
        if not src.is_file():
            raise FileNotFoundError(f"dataset {entry.id!r}: local file {src} not found")
        origin, fix = str(src), f"check the file {src}"
    else:
        src = None
        url = entry.urls[index]
        origin, fix = url, "delete it and download again; if it persists the URL changed"

    with atomic_path(dest) as tmp:
        if src is not None:
            shutil.copyfile(src, tmp)
        else:
            _download(entry, url, tmp, timeout)
        if entry.checksum:
            verify(tmp, entry, name=f"{dest.name} (from {origin})", fix=fix, file=index)
    return dest


def _download(entry, url, tmp, timeout):
    if not url.startswith("https://"):
        raise ValueError(f"dataset {entry.id!r}: refusing to download a non-https URL {url!r}")
    request = urllib.request.Request(url, headers={"User-Agent": "fsclust"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response, open(tmp, "wb") as fh:
            shutil.copyfileobj(response, fh, _CHUNK)
    except (urllib.error.URLError, TimeoutError, OSError) as err:
        local = output_error(err, tmp)
        if local is not None:
            # a full disk or an unwritable folder here, not the network
            raise local from err
        raise OSError(
            f"dataset {entry.id!r}: download of {url} failed ({err}); check the network, "
            f"or use an offline mirror (mirror=... / FSCLUST_MIRROR)"
        ) from err


def default_mirror():
    """The mirror directory named by the ``FSCLUST_MIRROR`` environment variable, or None."""
    value = os.environ.get("FSCLUST_MIRROR")
    return Path(value) if value else None


@dataclass(frozen=True)
class FileStatus:
    """Where one file of one catalog dataset is, and whether its checksum matches.

    ``status`` is ``"OK"`` / ``"MISMATCH"`` (checked), ``"present"`` (found, not checked) or
    ``"absent"``; ``location`` is ``"data"`` (the local data directory), ``"mirror"`` or ``""``.
    """

    dataset: str
    file: str
    location: str
    path: str
    status: str
    detail: str = ""


def catalog_status(catalog, data_dir="data/raw", mirror=None, check=False):
    """Presence (and, with ``check``, checksum) of every file of every catalog dataset.

    A file is looked for first in ``data_dir`` (the workflow's download directory, laid out
    like the mirror), then in ``mirror``. Datasets without files (sklearn, synthetic) are
    skipped. A file shared by several datasets is hashed once.

    Parameters
    ----------
    catalog : dict of str -> DatasetEntry
    data_dir : str or Path or None
    mirror : str or Path or None
    check : bool
        Verify present files against their catalog checksums.

    Returns
    -------
    list of FileStatus
        One per (dataset, file), in catalog and file order.
    """
    roots = [(name, Path(d)) for name, d in (("data", data_dir), ("mirror", mirror)) if d]
    hashes = {}
    out = []
    for entry in catalog.values():
        for index, relative in enumerate(entry.files):
            found = next(
                ((name, root / relative) for name, root in roots if (root / relative).is_file()),
                None,
            )
            if found is None:
                out.append(FileStatus(entry.id, relative, "", "", "absent"))
                continue
            location, path = found
            if not check or not entry.checksums:
                status = "present" if entry.checksums or not check else "present (no checksum)"
                out.append(FileStatus(entry.id, relative, location, str(path), status))
                continue
            key = (str(path), entry.checksum_type)
            if key not in hashes:
                hashes[key] = file_checksum(path, entry.checksum_type)
            expected = entry.checksums[index].lower()
            ok = hashes[key] == expected
            detail = "" if ok else f"expected {entry.checksum_type} {expected}, actual {hashes[key]}"
            out.append(
                FileStatus(entry.id, relative, location, str(path), "OK" if ok else "MISMATCH",
                           detail)
            )
    return out
