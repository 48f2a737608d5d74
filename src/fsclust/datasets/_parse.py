"""Small text-parsing helpers of the file readers and the loaders (no fsclust imports).

A private module: its functions are the datasets package's own, shared by
:mod:`~fsclust.datasets.formats` and :mod:`~fsclust.datasets.loaders`, and not part of the
package's API (which :mod:`fsclust.datasets` exports)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

_MISSING = {"", "na", "nan", "null", "?"}


def encode_labels(labels):
    """Sorted class names (numeric order when all labels are numbers) and class indices."""
    unique = sorted(set(labels))
    try:
        unique = sorted(unique, key=float)
    except ValueError:
        pass
    index = {c: k for k, c in enumerate(unique)}
    return np.array([index[c] for c in labels], dtype=np.int64), unique


def unquote(cell):
    cell = cell.strip()
    if len(cell) >= 2 and cell[0] == cell[-1] == '"':
        return cell[1:-1]
    return cell


def to_float(cell, where):
    try:
        value = float(cell)
    except ValueError:
        value = None
    if value is None or not np.isfinite(value) or cell.strip().lower() in _MISSING:
        problem = "missing value" if cell.strip().lower() in _MISSING else "non-numeric value"
        raise ValueError(f"{where}: {problem} {cell!r}")
    return value


def read_lines(path, data=None):
    """The text lines of ``path`` without trailing blank lines; ``data``: its bytes, already
    read (a decompressed file, stdin), so that ``path`` only names it in messages."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig") if data is None else data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise ValueError(f"{path}: not a UTF-8 text file ({err})") from None
    lines = text.splitlines()
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines:
        raise ValueError(f"{path}: empty file")
    return lines


def is_number(cell):
    try:
        return bool(np.isfinite(float(cell)))
    except ValueError:
        return False
