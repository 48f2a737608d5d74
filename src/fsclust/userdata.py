"""Your own matrix: read it in the format you have, check it, and preprocess it.

The input side of ``fsclust select`` and :func:`fsclust.select`. Every reader returns a
:class:`UserMatrix` (samples in rows); every bad input is a :class:`ValueError` of one line
naming the file, the cell or the option, and the fix.

- :func:`read_user_matrix` reads a file: a text table (``.tsv``, ``.tab``, ``.txt``, ``.csv``,
  each optionally compressed ``.gz``, ``.bz2``, ``.xz`` or ``.zip``), ``.parquet``, ``.h5ad``
  (AnnData), or ``-`` for a text table on stdin. Text tables go through
  :func:`fsclust.datasets.read_table`, so they are checked, and their errors worded, as the
  workflow's own tables.
- :func:`as_user_matrix` takes what is already in memory: a numpy array, a pandas DataFrame or
  an AnnData object.
- :func:`preprocess` applies the workflow's recipe steps (threshold, log10, standardize) and
  ``log1p`` and ``top_variable``, recording them in ``preprocessing``; it ends with
  :func:`check_values`, the bound above which the methods' sums of squares overflow.
- :func:`raw_count_warning` says when a matrix looks like raw counts or intensities that the
  user forgot to log.

Messages name the options in Python's words by default (``label_column``, ``impute="median"``);
the command line passes :data:`CLI_FLAGS` so that they name its flags instead.
"""

from __future__ import annotations

import bz2
import csv
import dataclasses
import gzip
import importlib.util
import lzma
import re
import shlex
import sys
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from fsclust.datasets._parse import encode_labels, read_lines
from fsclust.datasets.formats import check_unique, read_table
from fsclust.datasets.preprocess import log1p as _log1p
from fsclust.datasets.preprocess import log10 as _log10
from fsclust.datasets.preprocess import standardize as _standardize
from fsclust.datasets.preprocess import threshold as _threshold

__all__ = [
    "CLI_FLAGS",
    "UserMatrix",
    "as_user_matrix",
    "check_values",
    "overflow_bound",
    "preprocess",
    "raw_count_warning",
    "read_user_matrix",
]

#: How messages name the options, in Python (the keyword arguments of this module).
PYTHON_NAMES = {
    "input": "path",
    "label_column": "label_column",
    "missing": 'impute="median"',
    "features_in_rows": "features_in_rows=True",
    "log1p": "log1p=True",
    "log10": "log10=True",
    "floor": "floor",
}
#: The same options as the command line spells them (``fsclust select``).
CLI_FLAGS = {
    "input": "--input",
    "label_column": "--label-column",
    "missing": "--impute median",
    "features_in_rows": "--features-in-rows",
    "log1p": "--log1p",
    "log10": "--log10",
    "floor": "--floor",
}

# Text tables: suffix -> separator; None: sniffed from the header line (.txt files and stdin
# hold either, and GEO's series matrices are .txt).
_TEXT_SEPARATORS = {".tsv": "\t", ".tab": "\t", ".txt": None, ".csv": ","}
_DECOMPRESS = {".gz": gzip.decompress, ".bz2": bz2.decompress, ".xz": lzma.decompress,
               ".zip": None}  # a .zip is an archive: its one member is read
_ACCEPTED = (".tsv, .tab, .txt, .csv (each also .gz, .bz2, .xz or .zip), .parquet, .h5ad, "
             "or - for a text table on stdin")

# Public accession patterns, for telling a features-in-rows table (GEO's layout) from a
# samples-in-rows one. Sample accessions: GEO GSM, SRA/ENA/DDBJ runs, experiments and samples,
# BioSample, TCGA barcodes.
_SAMPLE_ACCESSION = re.compile(
    r"(GSM|[SED]R[RXS]|SAM[NDE][A-Z]?)\d+|TCGA-[A-Z0-9]{2}-[A-Z0-9]{4}.*", re.IGNORECASE)
# Gene and probe ids: Ensembl genes/transcripts/proteins, RefSeq, Illumina, Agilent, and
# Affymetrix probe sets (all end in _at: 1007_s_at, AFFX-BioB-5_at).
_FEATURE_ACCESSION = re.compile(
    r"ENS[A-Z]*[GTP]\d{6,}(\.\d+)?|[NX][MR]_\d+(\.\d+)?|ILMN_\d+|A_\d+_P\d+|\S+_at",
    re.IGNORECASE)
# Share of names that must match a pattern: real tables carry a few control rows
# (AFFX-... controls match; a blank label row or "ID_REF" does not).
_ACCESSION_SHARE = 0.9


@dataclass(eq=False)
class UserMatrix:
    """A user's data matrix (samples in rows), its names, labels and where it came from.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        float64 values, every one finite.
    feature_names, sample_names : list of str
    y : ndarray of shape (n_samples,) or None
        Class index of each sample (``class_names[y[i]]`` is its label), or None.
    label_column : str or None
        Where the labels came from: the table's column (or, with ``features_in_rows``, its
        row) or the AnnData ``obs`` column; None when none was given.
    source : str
        The file path, ``"<stdin>"``, or for data given in memory ``"<array>"``,
        ``"<DataFrame>"`` or ``"<AnnData>"``.
    format : str
        ``"tsv"`` or ``"csv"`` (text, by its separator; a compressed file adds its suffix:
        ``"tsv.gz"``), ``"parquet"``, ``"h5ad"``, ``"numpy"``, ``"pandas"``, ``"anndata"``.
    adata : anndata.AnnData or None
        The AnnData object read or given, to write results back into; else None.
    preprocessing : list of str
        The steps applied by :func:`preprocess`, in order (``["log1p", "standardize"]``).
    class_names : list of str or None
    warnings : list of str
        What the reader did that the user must hear of (cells imputed); the caller reports
        them (the command line prints them, :func:`fsclust.select` keeps them in its summary).
    """

    X: np.ndarray
    feature_names: list[str]
    sample_names: list[str]
    y: np.ndarray | None = None
    label_column: str | None = None
    source: str = "<array>"
    format: str = "numpy"
    adata: object = None
    preprocessing: list[str] = field(default_factory=list)
    class_names: list[str] | None = None
    warnings: list[str] = field(default_factory=list)


def read_user_matrix(path, *, label_column=None, features_in_rows=False, impute=None,
                     flags=None):
    """Read a user's matrix from a file or stdin.

    Parameters
    ----------
    path : str or Path
        A text table ``.tsv``/``.tab`` (tab), ``.csv`` (comma) or ``.txt`` (tab or comma, from
        the header line), optionally compressed (``.gz``, ``.bz2``, ``.xz``, or a ``.zip``
        holding one file); ``.parquet``; ``.h5ad``; or ``"-"``: a text table on stdin.
        A text table's line 1 is the header (the id column's name, then the column names) and
        every later line an id and its values; a GEO series matrix is read between its
        ``!series_matrix_table_begin`` and ``_end`` lines. A parquet file's sample ids are its
        index, or its first column when that holds text and the index is the default one.
    label_column : str, optional
        The column holding class labels (with ``features_in_rows``: the row), removed from
        the features; for h5ad, the ``obs`` column.
    features_in_rows : bool
        The table holds features in rows and samples in columns (the usual layout of
        expression tables: gene ids in the first column, sample ids in the header); it is
        transposed. Without it, a table whose header cells are sample accessions (GSM...,
        SRR..., TCGA-...) or whose first column holds gene or probe ids (ENSG..., ..._at,
        ``ILMN_...``, ``NM_...``) while it has more rows than columns is refused with a message
        suggesting it.
    impute : {None, "median"}
        An empty, NaN or infinite cell is an error naming it (None) or is replaced by its
        column's median over the finite cells ("median"; recorded in ``warnings``).
    flags : dict, optional
        How messages name the options (:data:`CLI_FLAGS` from the command line).

    Returns
    -------
    UserMatrix

    Raises
    ------
    ValueError
        One line naming the file and the problem: no such file, unknown format, a missing
        package (naming it), a features-in-rows layout, duplicate names, a non-numeric or
        missing cell (naming its sample and feature), an unknown label column.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "mine.csv"
    >>> _ = p.write_text("id,a,b,type\\nx,1,2,good\\ny,3,4,bad\\nz,5,7,bad\\n")
    >>> m = read_user_matrix(p, label_column="type")
    >>> m.X.tolist(), m.feature_names, m.sample_names, m.format
    ([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]], ['a', 'b'], ['x', 'y', 'z'], 'csv')
    >>> m.class_names, m.y.tolist()
    (['bad', 'good'], [1, 0, 0])
    """
    name = {**PYTHON_NAMES, **(flags or {})}
    if impute not in (None, "median"):
        raise ValueError(f"impute must be None or 'median', got {impute!r}")
    if str(path) == "-":
        data = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else \
            sys.stdin.read().encode("utf-8")
        return _read_text(Path("<stdin>"), data, None, "", label_column, features_in_rows,
                          impute, name)
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{name['input']} {path}: no such file" if not path.exists()
                         else f"{name['input']} {path} is not a file")
    suffixes = [s.lower() for s in path.suffixes]
    last = suffixes[-1] if suffixes else ""
    if last == ".h5ad":
        return _read_h5ad(path, label_column, features_in_rows, impute, name)
    if last == ".parquet":
        return _read_parquet(path, label_column, features_in_rows, impute, name)
    if last in _DECOMPRESS:
        data, inner = _decompress(path, last)
        inner = inner.lower()
        # A compressed file is a text table; its separator is that of the inner suffix, if
        # any (table.tsv.gz), else sniffed (GEO's GSE..._series_matrix.txt.gz has one).
        return _read_text(path, data, _TEXT_SEPARATORS.get(inner), last.lstrip("."),
                          label_column, features_in_rows, impute, name)
    if last in _TEXT_SEPARATORS:
        return _read_text(path, None, _TEXT_SEPARATORS[last], "", label_column,
                          features_in_rows, impute, name)
    raise ValueError(f"{path}: unknown format {last or '(no suffix)'!r}; accepted: {_ACCEPTED}")


def _decompress(path, suffix):
    """The decompressed bytes of ``path`` and the suffix of what they hold."""
    try:
        if suffix != ".zip":
            return _DECOMPRESS[suffix](path.read_bytes()), Path(path.stem).suffix
        with zipfile.ZipFile(path) as archive:
            members = [m for m in archive.namelist()
                       if not m.endswith("/") and not m.startswith("__MACOSX/")]
            if len(members) != 1:
                raise ValueError(f"{path}: a .zip must hold one table, it holds "
                                 f"{len(members)} files ({', '.join(members[:5])})")
            return archive.read(members[0]), Path(members[0]).suffix
    except (OSError, EOFError, lzma.LZMAError, zipfile.BadZipFile) as err:
        raise ValueError(f"{path}: cannot decompress it as {suffix} ({err})") from None


def _read_text(path, data, sep, compression, label_column, features_in_rows, impute, name):
    """Read a text table through read_table, after the layout check."""
    data = path.read_bytes() if data is None else data  # read once, parsed twice
    lines = read_lines(path, data)
    begin = [i for i, line in enumerate(lines) if line.startswith("!series_matrix_table_begin")]
    if begin:  # a GEO series matrix: the table is between its begin and end lines
        end = [i for i, line in enumerate(lines) if line.startswith("!series_matrix_table_end")]
        lines = lines[begin[0] + 1:end[0] if end else len(lines)]
        if not lines:
            raise ValueError(f"{path}: the GEO series matrix table is empty")
        data = "\n".join(lines).encode("utf-8")
    if sep is None:
        sep = "\t" if "\t" in lines[0] or "," not in lines[0] else ","
    if not features_in_rows:
        rows = csv.reader(lines, delimiter=sep)
        header = [c.strip() for c in next(rows)][1:]
        ids = [row[0].strip() for row in rows if row]
        _refuse_features_in_rows(path, header, ids, name["features_in_rows"])
    dataset = read_table(path, label_column, sep, missing="nan" if impute else "error",
                         unique=True, flags=name, data=data, transpose=features_in_rows)
    fmt = {"\t": "tsv", ",": "csv"}[sep] + (f".{compression}" if compression else "")
    matrix = UserMatrix(X=dataset.X, feature_names=dataset.feature_names,
                        sample_names=dataset.sample_names, y=dataset.y,
                        label_column=label_column, source=str(path), format=fmt,
                        class_names=dataset.class_names)
    _impute_median(matrix, name)
    return matrix


def _features_in_rows_evidence(header, ids):
    """Why a table with column names ``header`` and row ids ``ids`` looks transposed, or None.

    Expression tables are usually stored genes x samples; a samples x features table has
    sample ids in its rows and feature names in its header. With more rows than columns
    (tens of samples, thousands of genes), a header of sample accessions or rows named by gene
    or probe ids gives the layout away; the repo's own tables (samples in rows) have neither.
    """
    if len(ids) <= len(header):
        return None

    def share(pattern, names):
        return np.mean([bool(pattern.fullmatch(n)) for n in names]) if names else 0.0

    if share(_SAMPLE_ACCESSION, header) >= _ACCESSION_SHARE:
        return f"its header holds sample ids ({header[0]!r}, ...)"
    if share(_FEATURE_ACCESSION, ids) >= _ACCESSION_SHARE:
        return f"its first column holds gene or probe ids ({ids[0]!r}, ...)"
    return None


def _refuse_features_in_rows(source, header, ids, fix):
    evidence = _features_in_rows_evidence(header, ids)
    if evidence:
        raise ValueError(
            f"{source}: the table looks like features in rows and samples in columns: "
            f"{evidence}, and it has {len(ids)} rows for {len(header)} columns; "
            f"give {fix} to read it so"
        )


def _read_parquet(path, label_column, features_in_rows, impute, name):
    import pandas as pd

    if not any(importlib.util.find_spec(engine) for engine in ("pyarrow", "fastparquet")):
        raise ValueError(f"{path}: reading parquet needs pyarrow (or fastparquet); install it: "
                         "pip install pyarrow")
    frame = pd.read_parquet(path)
    if isinstance(frame.index, pd.RangeIndex) and frame.shape[1] > 1 and \
            not pd.api.types.is_numeric_dtype(frame.iloc[:, 0]):
        frame = frame.set_index(frame.columns[0])  # ids in the first column, as in a text table
    if features_in_rows:
        frame = frame.T
    matrix = _from_frame(frame, None, label_column, impute, name, str(path),
                         fix=name["features_in_rows"], check_layout=not features_in_rows)
    matrix.format = "parquet"
    return matrix


def _read_h5ad(path, label_column, features_in_rows, impute, name):
    if features_in_rows:
        raise ValueError(f"{path}: {name['features_in_rows']} does not apply to h5ad: AnnData "
                         "keeps samples in obs (rows) and features in var (columns)")
    if importlib.util.find_spec("anndata") is None:
        raise ValueError(f"{path}: reading h5ad needs anndata; install it: pip install anndata")
    import anndata

    try:
        adata = anndata.read_h5ad(path)
    except (OSError, KeyError, ValueError) as err:
        raise ValueError(f"{path}: not a readable h5ad file ({err})") from None
    matrix = _from_anndata(adata, None, label_column, impute, name, str(path))
    matrix.format = "h5ad"
    return matrix


def as_user_matrix(obj, *, labels=None, label_column=None, impute=None, flags=None):
    """A :class:`UserMatrix` from a numpy array, a pandas DataFrame or an AnnData object.

    Parameters
    ----------
    obj : array-like, scipy sparse matrix, pandas.DataFrame or anndata.AnnData
        Samples in rows. A DataFrame's index names the samples and its columns the
        features; an AnnData's ``obs_names`` and ``var_names`` do (a sparse ``X`` is made
        dense). An array's samples are ``s0, s1, ...`` and its features ``f0, f1, ...``.
    labels : array-like of shape (n_samples,), optional
        Class labels of the samples (any values; encoded as class indices).
    label_column : str, optional
        A DataFrame's column holding the labels (removed from the features) or an AnnData's
        ``obs`` column. Not with ``labels``.
    impute : {None, "median"}
        As in :func:`read_user_matrix`.
    flags : dict, optional
        How messages name the options.

    Returns
    -------
    UserMatrix
        ``X`` is a new float64 array: ``obj`` is never modified.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"g1": [1.0, 2.0, 3.0], "kind": ["a", "b", "a"]}, index=["x", "y", "z"])
    >>> m = as_user_matrix(df, label_column="kind")
    >>> m.feature_names, m.sample_names, m.y.tolist(), m.class_names
    (['g1'], ['x', 'y', 'z'], [0, 1, 0], ['a', 'b'])
    >>> as_user_matrix([[1, 2], [3, 4]]).feature_names
    ['f0', 'f1']
    """
    name = {**PYTHON_NAMES, **(flags or {})}
    if impute not in (None, "median"):
        raise ValueError(f"impute must be None or 'median', got {impute!r}")
    if labels is not None and label_column is not None:
        raise ValueError("give labels or label_column, not both")
    if hasattr(obj, "obs") and hasattr(obj, "var") and hasattr(obj, "X"):  # AnnData
        return _from_anndata(obj, labels, label_column, impute, name, "<AnnData>")
    if hasattr(obj, "columns") and hasattr(obj, "index"):  # DataFrame
        return _from_frame(obj, labels, label_column, impute, name, "<DataFrame>",
                           fix="transpose it (frame.T)", check_layout=True)
    if label_column is not None:
        raise ValueError(f"label_column {label_column!r} needs a DataFrame or an AnnData; "
                         "for an array give labels")
    X = _dense(obj)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (samples x features), got shape {X.shape}")
    n, d = X.shape
    matrix = UserMatrix(X=X, feature_names=[f"f{j}" for j in range(d)],
                        sample_names=[f"s{i}" for i in range(n)])
    return _finish(matrix, labels, None, impute, name)


def _dense(X):
    X = X.toarray() if hasattr(X, "toarray") else X
    try:
        return np.array(X, dtype=np.float64, copy=True)
    except (TypeError, ValueError) as err:
        raise ValueError(f"X must hold numbers ({err})") from None


def _from_frame(frame, labels, label_column, impute, name, source, *, fix, check_layout):
    import pandas as pd

    columns = [str(c) for c in frame.columns]
    samples = [str(s) for s in frame.index]
    check_unique(source, columns, samples)
    if label_column is not None:
        if label_column not in columns:
            shown = ", ".join(repr(c) for c in columns[:20])
            raise ValueError(f"{name['label_column']} {label_column!r} is not a column of "
                             f"{source}; columns: {shown}{', ...' if len(columns) > 20 else ''}")
        at = columns.index(label_column)
        labels = frame.iloc[:, at]
        frame = frame.drop(columns=frame.columns[at])
        columns.pop(at)
    if check_layout:
        _refuse_features_in_rows(source, columns, samples, fix)
    if not columns:
        raise ValueError(f"{source}: no feature columns besides the label column")
    X = np.empty(frame.shape)
    # numeric columns in one conversion; only the others are parsed (and refused) one by one
    numeric = np.array([pd.api.types.is_numeric_dtype(dtype) for dtype in frame.dtypes],
                       dtype=bool)
    if numeric.any():
        X[:, numeric] = frame.iloc[:, numeric].to_numpy(dtype=np.float64, na_value=np.nan)
    for j in np.flatnonzero(~numeric):
        cells = frame.iloc[:, j]
        values = pd.to_numeric(cells, errors="coerce")
        text = np.flatnonzero(values.isna().to_numpy() & cells.notna().to_numpy())
        if text.size:
            i = text[0]
            raise ValueError(
                f"{source}: column {columns[j]!r} is not numeric: sample {samples[i]!r} has "
                f"{cells.iloc[i]!r}; {text.size} such cell(s) in that column. If it holds "
                f"class labels give {name['label_column']} {shlex.quote(columns[j])}, else "
                f"remove the column")
        X[:, j] = values.to_numpy(dtype=np.float64, na_value=np.nan)
    matrix = UserMatrix(X=X, feature_names=columns, sample_names=samples, source=source,
                        format="pandas")
    return _finish(matrix, labels, label_column, impute, name)


def _from_anndata(adata, labels, label_column, impute, name, source):
    if adata.X is None:
        raise ValueError(f"{source}: the AnnData has no X")
    if label_column is not None:
        if label_column not in adata.obs.columns:
            shown = ", ".join(repr(c) for c in list(adata.obs.columns)[:20])
            raise ValueError(f"{name['label_column']} {label_column!r} is not an obs column of "
                             f"{source}; obs columns: {shown or '(none)'}")
        labels = adata.obs[label_column]
    features, samples = [str(v) for v in adata.var_names], [str(s) for s in adata.obs_names]
    check_unique(source, features, samples)
    matrix = UserMatrix(X=_dense(adata.X), feature_names=features, sample_names=samples,
                        source=source, format="anndata", adata=adata)
    return _finish(matrix, labels, label_column, impute, name)


def _finish(matrix, labels, label_column, impute, name):
    """Attach the labels, then refuse or impute the non-finite cells of an in-memory matrix."""
    n = matrix.X.shape[0]
    if labels is not None:
        import pandas as pd

        values = list(labels)
        if len(values) != n:
            raise ValueError(f"{len(values)} labels for {n} samples")
        missing = [i for i, v in enumerate(values) if pd.isna(v) or str(v).strip() == ""]
        if missing:
            where = f"in {name['label_column']} {label_column!r}" if label_column else ""
            raise ValueError(f"{matrix.source}: sample {matrix.sample_names[missing[0]]!r} has "
                             f"no label {where}".rstrip())
        matrix.y, matrix.class_names = encode_labels([str(v) for v in values])
        matrix.label_column = label_column
    bad = ~np.isfinite(matrix.X)
    if bad.any() and impute is None:
        i, k = np.argwhere(bad)[0]  # row-major: the first bad cell in reading order
        raise ValueError(
            f"{matrix.source}: {int(bad.sum())} empty, NaN or infinite cell(s); the first is "
            f"sample {matrix.sample_names[i]!r}, feature {matrix.feature_names[k]!r} "
            f"({matrix.X[i, k]!r}); fix them or pass {name['missing']}")
    matrix.X[bad] = np.nan
    _impute_median(matrix, name)
    return matrix


def _impute_median(matrix, name):
    """Replace each NaN cell by its column's median over the finite cells, in place."""
    X = matrix.X
    bad = np.isnan(X)
    if not bad.any():
        return
    names = matrix.feature_names
    i, k = np.argwhere(bad)[0]  # row-major: the first bad cell in reading order
    empty = [names[j] for j in np.flatnonzero(bad.all(axis=0))]
    if empty:
        shown = ", ".join(repr(n) for n in empty[:5]) + (", ..." if len(empty) > 5 else "")
        raise ValueError(f"{matrix.source}: {name['missing']}: feature(s) {shown} have no "
                         "finite cell to take a median of; remove them")
    X[bad] = np.take(np.nanmedian(X, axis=0), np.nonzero(bad)[1])
    matrix.warnings.append(
        f"imputed {int(bad.sum())} empty, NaN or infinite cell(s) with their column's median "
        f"({name['missing']}); the first was sample {matrix.sample_names[i]!r}, feature "
        f"{names[k]!r}")


def overflow_bound(n_samples, n_features):
    """The largest magnitude a cell may have so that the methods' sums of squares stay finite.

    The methods sum squares over samples and features: a squared distance between two
    samples sums ``d`` squared differences, a feature's variance ``n`` squares, a Gram or
    covariance entry ``n`` or ``d`` products, a Frobenius norm all ``n * d``. When every
    ``|x| <= B``, a difference is at most ``2B`` and any such sum of at most ``n * d`` terms
    at most ``4 B**2 n d``. ``B = sqrt(float64 max / (8 n d))`` keeps it below half the
    float64 maximum, a factor 2 of headroom for rounding (about 2e151 for 40 x 1203): far
    above any measured value, far below ``1e308``.

    Examples
    --------
    >>> b = overflow_bound(40, 1203)
    >>> bool(np.isfinite(4 * b * b * 40 * 1203)), 1e150 < b < 1e152
    (True, True)
    """
    return float(np.sqrt(np.finfo(np.float64).max / (8.0 * n_samples * n_features)))


def check_values(matrix, flags=None):
    """Raise, naming the first cell, when a cell's magnitude would overflow the methods.

    Parameters
    ----------
    matrix : UserMatrix
    flags : dict, optional
        How the message names the options (:data:`CLI_FLAGS` from the command line).

    Raises
    ------
    ValueError
        One line naming the sample, the feature, the value and the fix, when a cell's
        magnitude is above :func:`overflow_bound`. Non-finite cells are the readers' concern.
    """
    name = {**PYTHON_NAMES, **(flags or {})}
    X = matrix.X
    if not X.size:
        return
    bound = overflow_bound(*X.shape)
    big = np.abs(X) > bound
    if big.any():
        i, k = np.argwhere(big)[0]
        raise ValueError(
            f"{matrix.source}: sample {matrix.sample_names[i]!r}, feature "
            f"{matrix.feature_names[k]!r} holds {X[i, k]:g}, too large for the methods (sums "
            f"of squares overflow above |x| = {bound:.3g} for {X.shape[0]} x {X.shape[1]}); "
            f"{int(big.sum())} such cell(s); rescale the data, e.g. {name['log10']} (with a "
            f"positive {name['floor']}) or divide it by a power of ten")


def preprocess(matrix, *, log1p=False, log10=False, floor=None, ceiling=None,
               standardize=False, top_variable=None, flags=None):
    """The matrix transformed by the workflow's recipe steps, in a fixed order.

    The steps run in this order, each only when asked for, and are appended to
    ``preprocessing`` as they run:

    1. ``threshold(floor, ceiling)``: clip to ``[floor, ceiling]`` (either may be None), as
       the workflow's ``threshold(1,16000);log10`` recipes do before the log;
    2. ``log1p`` (counts) or ``log10`` (intensities; every value must then be > 0, so give a
       positive ``floor`` when there are zeros);
    3. ``top_variable(n)``: keep the ``n`` features of largest variance (ddof=0), ties broken
       by column order, in their column order. It follows the log so that the variance is
       ranked on the scale the methods see (as scanpy ranks highly variable genes on logged
       data), and precedes ``standardize``, after which every variance is 1;
    4. ``standardize``: z-score each feature (a constant one becomes 0).

    Then :func:`check_values` refuses a cell that would overflow the methods.

    Parameters
    ----------
    matrix : UserMatrix
    log1p, log10 : bool
        At most one of them.
    floor, ceiling : float, optional
    standardize : bool
    top_variable : int, optional
        At least 1; when it is not below the number of features every feature is kept.
    flags : dict, optional
        How messages name the options.

    Returns
    -------
    UserMatrix
        A new matrix; ``matrix`` is unchanged. ``adata`` is kept as given (the original).

    Examples
    --------
    >>> m = as_user_matrix([[1.0, 10.0, 5.0], [3.0, 1000.0, 5.0]])
    >>> out = preprocess(m, log10=True, floor=1, top_variable=2, standardize=True)
    >>> out.preprocessing
    ['threshold(floor=1)', 'log10', 'top_variable(n=2)', 'standardize']
    >>> out.feature_names, out.X.tolist()
    (['f0', 'f1'], [[-1.0, -1.0], [1.0, 1.0]])
    """
    name = {**PYTHON_NAMES, **(flags or {})}
    if log1p and log10:
        raise ValueError(f"give {name['log1p']} or {name['log10']}, not both")
    if top_variable is not None and (isinstance(top_variable, bool)
                                     or not isinstance(top_variable, (int, np.integer))
                                     or top_variable < 1):
        raise ValueError(f"top_variable must be a positive integer, got {top_variable!r}")
    X, features, steps = matrix.X, list(matrix.feature_names), list(matrix.preprocessing)
    try:
        if floor is not None or ceiling is not None:
            X = _threshold(X, floor, ceiling)
            bounds = {"floor": floor, "ceiling": ceiling}
            steps.append("threshold(" + ", ".join(f"{k}={v:g}" for k, v in bounds.items()
                                                   if v is not None) + ")")
        for step, wanted, function in (("log1p", log1p, _log1p), ("log10", log10, _log10)):
            if wanted:
                X = function(X)
                steps.append(step)
    except ValueError as err:
        raise ValueError(f"{matrix.source}: {err}") from None
    if top_variable is not None:
        # A stable sort of minus the variance: equal variances keep their column order.
        keep = np.sort(np.argsort(-X.var(axis=0), kind="stable")[:top_variable])
        X, features = X[:, keep], [features[j] for j in keep]
        steps.append(f"top_variable(n={top_variable})")
    if standardize:
        X = _standardize(X)
        steps.append("standardize")
    out = dataclasses.replace(matrix, X=np.array(X, dtype=np.float64), feature_names=features,
                              preprocessing=steps, warnings=list(matrix.warnings))
    check_values(out, flags)
    return out


#: Steps after which values are no longer on the raw linear scale.
_TRANSFORMS = ("log1p", "log10", "standardize")
# Raw counts and intensities span decades, skewed to the right: on the de Souto et al. (2008)
# raw Affymetrix sets the largest value is 84 to 1600 times the median cell, and reaches
# 2900 to 33600. Logged data stays below ~20 (log2) and z-scores below ~10, so the largest
# value alone rules them out; the span rules out a non-negative feature measured on one
# linear scale (areas, lengths), which rarely reaches 50 times its median.
RAW_MIN_MAX = 1000.0
RAW_SPAN = 50.0


def raw_count_warning(matrix, flags=None):
    """A one-line warning when the matrix looks like raw counts or intensities, else None.

    The rule: no transform (log1p, log10, standardize) was applied, the median cell is >= 0,
    and the largest cell is above 1000 and above 50 times the median. Methods built on
    distances and variances are then driven by the few highest-expressed features, which is
    why the workflow's recipes log such data first (``threshold(1,16000);log10``).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> counts = as_user_matrix(rng.poisson(np.logspace(0, 4, 50), size=(20, 50)))
    >>> raw_count_warning(counts).startswith("the values look like raw counts")
    True
    >>> raw_count_warning(preprocess(counts, log1p=True)) is None
    True
    """
    name = {**PYTHON_NAMES, **(flags or {})}
    if any(step.split("(")[0] in _TRANSFORMS for step in matrix.preprocessing):
        return None
    if not matrix.X.size:
        return None
    top, median = float(matrix.X.max()), float(np.median(matrix.X))
    if median < 0 or top <= RAW_MIN_MAX or top <= RAW_SPAN * median:
        return None
    return (f"the values look like raw counts or intensities (the largest, {top:g}, is over "
            f"{RAW_SPAN:g} times the median, {median:g}); the methods expect them logged: "
            f"pass {name['log1p']} (counts) or {name['log10']} with a positive "
            f"{name['floor']} (intensities)")
