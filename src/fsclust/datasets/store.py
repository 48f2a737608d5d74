"""The prepared dataset: one in-memory type and one file format for every data set.

A prepared dataset is written once by the ``prepare`` step and read by every later step, so its
file format is deliberately plain: a NumPy ``.npz`` archive holding only numeric and unicode
arrays (no pickled objects) and the provenance as a JSON string. ``np.load(...,
allow_pickle=False)`` reads it, so a dataset file can never execute code.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from fsclust._io import atomic_path

__all__ = ["Dataset", "save_dataset", "load_dataset"]

#: Version of the ``.npz`` layout written by :func:`save_dataset`.
FORMAT_VERSION = 1


@dataclass(eq=False)
class Dataset:
    """A data matrix with samples in rows, its labels and where it came from.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The data, stored as float64.
    y : array-like of shape (n_samples,) or None
        Class index of each sample, ``0 .. n_classes - 1``; None when the data has no labels.
    feature_names : list of str
        One name per column of ``X``.
    sample_names : list of str
        One name per row of ``X``.
    class_names : list of str or None
        ``class_names[k]`` is the name of class ``k``. None when ``y`` is None.
    provenance : dict
        JSON-serialisable record of how the data was obtained: dataset id, source, url,
        checksum, loader, recipe steps applied, substitute flag, notes.
    relevant_features : list of int or None
        Column indices of the features that carry the cluster structure (synthetic data only).

    Examples
    --------
    >>> ds = Dataset(X=[[0.0, 1.0], [2.0, 3.0]], y=[0, 1], feature_names=["a", "b"],
    ...              sample_names=["s0", "s1"], class_names=["low", "high"])
    >>> ds.X.shape, ds.n_classes
    ((2, 2), 2)
    """

    X: np.ndarray
    y: np.ndarray | None
    feature_names: list[str]
    sample_names: list[str]
    class_names: list[str] | None = None
    provenance: dict = field(default_factory=dict)
    relevant_features: list[int] | None = None

    def __post_init__(self):
        self.X = np.array(self.X, dtype=np.float64, copy=True)
        if self.X.ndim != 2:
            raise ValueError(f"X must be 2-D (samples x features), got shape {self.X.shape}")
        n, d = self.X.shape
        self.feature_names = [str(s) for s in self.feature_names]
        self.sample_names = [str(s) for s in self.sample_names]
        if len(self.feature_names) != d:
            raise ValueError(f"{len(self.feature_names)} feature names for {d} features")
        if len(self.sample_names) != n:
            raise ValueError(f"{len(self.sample_names)} sample names for {n} samples")
        if self.y is not None:
            y = np.asarray(self.y)
            if y.shape != (n,):
                raise ValueError(f"y must have shape ({n},), got {y.shape}")
            if y.size and not np.all(np.equal(np.mod(y, 1), 0)):
                raise ValueError("y must hold integer class indices")
            self.y = y.astype(np.int64)
            if y.size and y.min() < 0:
                raise ValueError("class indices in y must be >= 0")
        if self.class_names is not None:
            self.class_names = [str(s) for s in self.class_names]
            if self.y is None:
                raise ValueError("class_names given without y")
            if self.y.size and self.y.max() >= len(self.class_names):
                raise ValueError(
                    f"y holds class index {self.y.max()} but there are only "
                    f"{len(self.class_names)} class names"
                )
        if self.relevant_features is not None:
            self.relevant_features = [int(j) for j in self.relevant_features]
            if any(j < 0 or j >= d for j in self.relevant_features):
                raise ValueError(f"relevant_features must be column indices in 0..{d - 1}")
        self.provenance = dict(self.provenance)

    @property
    def n_samples(self):
        """Number of samples (rows of ``X``)."""
        return self.X.shape[0]

    @property
    def n_features(self):
        """Number of features (columns of ``X``)."""
        return self.X.shape[1]

    @property
    def n_classes(self):
        """Number of classes: ``len(class_names)``, else the distinct values of ``y``, else None."""
        if self.class_names is not None:
            return len(self.class_names)
        if self.y is None:
            return None
        return int(np.unique(self.y).size)

    def __eq__(self, other):
        if not isinstance(other, Dataset):
            return NotImplemented
        same_y = (self.y is None and other.y is None) or (
            self.y is not None and other.y is not None and np.array_equal(self.y, other.y)
        )
        return (
            self.X.shape == other.X.shape
            and np.array_equal(self.X, other.X, equal_nan=True)
            and same_y
            and self.feature_names == other.feature_names
            and self.sample_names == other.sample_names
            and self.class_names == other.class_names
            and self.provenance == other.provenance
            and self.relevant_features == other.relevant_features
        )

    __hash__ = None


def _strings(values):
    # An explicit unicode dtype, also for an empty list (np.array([]) would be float64).
    values = [str(v) for v in values]
    width = max((len(v) for v in values), default=1) or 1
    return np.array(values, dtype=f"<U{width}")


def save_dataset(ds, path):
    """Write a :class:`Dataset` to ``path`` as a pickle-free ``.npz`` file, atomically.

    Parameters
    ----------
    ds : Dataset
    path : str or Path
        Destination; parent directories are created. Any suffix is accepted (the archive is
        written through an open file, so NumPy does not append ``.npz``).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> ds = Dataset(X=[[1.0, 2.0]], y=None, feature_names=["a", "b"], sample_names=["s"])
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "toy.npz"
    >>> save_dataset(ds, p)
    >>> load_dataset(p) == ds
    True
    """
    arrays = {
        "format_version": np.array(FORMAT_VERSION),
        "X": np.ascontiguousarray(ds.X, dtype=np.float64),
        "has_y": np.array(ds.y is not None),
        "y": np.asarray(ds.y if ds.y is not None else [], dtype=np.int64),
        "feature_names": _strings(ds.feature_names),
        "sample_names": _strings(ds.sample_names),
        "has_class_names": np.array(ds.class_names is not None),
        "class_names": _strings(ds.class_names or []),
        "has_relevant_features": np.array(ds.relevant_features is not None),
        "relevant_features": np.asarray(ds.relevant_features or [], dtype=np.int64),
        "provenance": np.array(json.dumps(ds.provenance, sort_keys=True, default=_json_default)),
    }
    with atomic_path(path) as tmp, open(tmp, "wb") as fh:
        np.savez_compressed(fh, **arrays)


def load_dataset(path):
    """Read a :class:`Dataset` written by :func:`save_dataset` (never unpickles anything).

    Parameters
    ----------
    path : str or Path

    Returns
    -------
    Dataset
    """
    path = Path(path)
    try:
        with np.load(path, allow_pickle=False) as z:
            version = int(z["format_version"])
            if version != FORMAT_VERSION:
                raise ValueError(
                    f"{path}: dataset file format version {version}, this fsclust reads "
                    f"version {FORMAT_VERSION}; re-run the prepare step"
                )
            return Dataset(
                X=z["X"],
                y=z["y"] if bool(z["has_y"]) else None,
                feature_names=z["feature_names"].tolist(),
                sample_names=z["sample_names"].tolist(),
                class_names=z["class_names"].tolist() if bool(z["has_class_names"]) else None,
                provenance=json.loads(str(z["provenance"])),
                relevant_features=(
                    z["relevant_features"].tolist() if bool(z["has_relevant_features"]) else None
                ),
            )
    except KeyError as err:
        raise ValueError(f"{path}: not an fsclust dataset file (missing {err})") from None


def _json_default(obj):
    # Provenance built with NumPy scalars (a seed, a count) is still plain JSON.
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, Path):
        return str(obj)
    raise TypeError(f"provenance value {obj!r} of type {type(obj).__name__} is not JSON")
