"""Atomic file output: a failed or killed run never leaves a half-written file.

Every writer in the package goes through :func:`atomic_path`: it yields a temporary path in the
destination's directory (same file system, so the final ``os.replace`` is atomic), and moves it
into place only when the block finished without an exception.

A write that fails because of where it writes (a full disk, a folder without write
permission, a read-only file system, a file standing where a folder should be) raises
:class:`OutputError`, whose message is one line naming the path and the fix; any other error
propagates unchanged. Either way no temporary file is left behind.
"""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from pathlib import Path

_NO_SPACE = {errno.ENOSPC: "no space left on device"}
if hasattr(errno, "EDQUOT"):  # not on Windows
    _NO_SPACE[errno.EDQUOT] = "disk quota exceeded"
_NOT_WRITABLE = {errno.EACCES, errno.EPERM, errno.EROFS}
_NOT_A_FOLDER = {errno.ENOTDIR, errno.EEXIST}


class OutputError(OSError):
    """An output cannot be written because of where it goes; ``str()`` is one line naming the
    path and the fix. ``errno`` and ``filename`` are those of the underlying error (an
    ``OSError``, so ``except OSError`` still catches it)."""

    def __str__(self):
        return self.strerror


def _existing_ancestor(path):
    """``path`` or the nearest folder above it that exists (what a failed mkdir met)."""
    for candidate in (path, *path.parents):
        if candidate.exists():
            return candidate
    return path


def output_error(err, path):
    """The :class:`OutputError` for ``err``, an ``OSError`` met writing ``path``, or None when
    the error is not one of where the output goes."""
    path = Path(path)
    if isinstance(err, OutputError) or not isinstance(err, OSError):
        return None
    if err.errno in _NO_SPACE:
        message = (f"{_NO_SPACE[err.errno]} writing {path}: free space on that disk "
                   f"(df -h {_existing_ancestor(path.parent)}) or move the folder to a larger disk "
                   "and leave a symlink in its place, then rerun the same command")
    elif err.errno in _NOT_WRITABLE:
        folder = _existing_ancestor(path.parent)
        if err.errno == errno.EROFS:
            message = (f"cannot write {path}: {folder} is on a read-only file system; run from "
                       "a writable copy of the workflow, or make the folder a symlink to a "
                       "writable disk")
        else:
            message = (f"cannot write {path}: no write permission in {folder}; make it "
                       f"writable (chmod -R u+w {folder}) or run from a copy of the workflow "
                       "in a folder you own")
    elif err.errno in _NOT_A_FOLDER:
        blocker = next((p for p in reversed(path.parents) if p.exists() and not p.is_dir()), None)
        if blocker is None:
            return None
        message = (f"cannot write {path}: {blocker} is a file where a folder should be; move "
                   "or delete it, then rerun the same command")
    else:
        return None
    return OutputError(err.errno, message, str(path))


@contextlib.contextmanager
def atomic_path(path, suffix=None):
    """Yield a temporary path that replaces ``path`` atomically on success.

    Parameters
    ----------
    path : str or Path
        The final destination. Its parent directories are created.
    suffix : str, optional
        Suffix of the temporary file (some writers, e.g. matplotlib, infer the format from it).
        Defaults to the destination's own suffix.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> with atomic_path(d / "a.txt") as tmp:
    ...     _ = tmp.write_text("hello")
    >>> (d / "a.txt").read_text()
    'hello'
    """
    path = Path(path)
    if suffix is None:
        suffix = "".join(path.suffixes) or ".tmp"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=suffix, dir=path.parent)
    except OSError as err:
        wrapped = output_error(err, path)
        if wrapped is None:
            raise
        raise wrapped from err
    os.close(fd)
    tmp = Path(tmp)
    try:
        yield tmp
        # mkstemp creates the file 0600; give it the permissions a plain open() would
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException as err:
        with contextlib.suppress(OSError):  # never hide the error that got us here
            tmp.unlink(missing_ok=True)
        # only a full disk is surely the output's fault inside the block (an EACCES there
        # may come from reading some input)
        if isinstance(err, OSError) and err.errno in _NO_SPACE:
            wrapped = output_error(err, path)
            if wrapped is not None:
                raise wrapped from err
        raise


@contextlib.contextmanager
def atomic_dir(path):
    """Yield a fresh temporary folder beside ``path`` that replaces ``path`` (a folder) on
    success; on any exception it is removed and ``path`` is left as it was.

    A folder of outputs (a job's rankings, an experiment's figures) is thus either the old one
    or the whole new one: a killed job never leaves a partial set.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> with atomic_dir(d / "figures") as tmp:
    ...     _ = (tmp / "a.png").write_text("x")
    >>> sorted(p.name for p in (d / "figures").iterdir())
    ['a.png']
    """
    import shutil

    final = Path(path)
    tmp = final.parent / f".{final.name}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        tmp.mkdir(parents=True)
    except OSError as err:
        raise (output_error(err, tmp / final.name) or err) from err
    try:
        yield tmp
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if final.exists():
        shutil.rmtree(final)
    os.replace(tmp, final)


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_text_atomic(path, text):
    """Write ``text`` to ``path`` atomically."""
    with atomic_path(path) as tmp:
        tmp.write_text(text)


def write_table_atomic(df, path, **kwargs):
    """Write a pandas DataFrame as TSV (or CSV if the name ends in .csv) atomically."""
    sep = "," if str(path).endswith(".csv") else "\t"
    kwargs.setdefault("index", False)
    with atomic_path(path) as tmp:
        df.to_csv(tmp, sep=sep, **kwargs)
