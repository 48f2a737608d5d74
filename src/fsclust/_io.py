"""Atomic file output: a failed or killed run never leaves a half-written file.

Every writer in the package goes through :func:`atomic_path`: it yields a temporary path in the
destination's directory (same file system, so the final ``os.replace`` is atomic), and moves it
into place only when the block finished without an exception.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


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
    path.parent.mkdir(parents=True, exist_ok=True)
    if suffix is None:
        suffix = "".join(path.suffixes) or ".tmp"
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=suffix, dir=path.parent)
    os.close(fd)
    tmp = Path(tmp)
    try:
        yield tmp
        # mkstemp creates the file 0600; give it the permissions a plain open() would
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


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
