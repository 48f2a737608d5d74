"""Loaders: raw file (or generator) -> :class:`~fsclust.datasets.store.Dataset`, one per format.

``load_raw`` dispatches on the catalog's ``format`` column:

``sklearn``
    A dataset bundled with scikit-learn (no download): options ``{"name": "iris" | "wine" |
    "breast_cancer" | "digits", "classes": [...]}``. ``classes`` keeps only the listed original
    classes (target values such as ``[4, 9]``, or class names) and relabels them ``0..k-1`` in
    the order given.
``synthetic``
    :func:`fsclust.datasets.synthetic.make_blobs_with_irrelevant` called with the options.
``desouto``
    The text format of the de Souto et al. (2008) cancer gene-expression benchmark:
    tab-separated, genes in rows and samples in columns; line 1 holds the sample ids, line 2 the
    class label of each sample, both after an empty first cell; every later line is a gene id
    followed by one value per sample. Cells may be double-quoted. Transposed to samples in rows.
``tsv``, ``csv``
    A table with samples in rows: a header line (first cell: any name for the sample-id column,
    then one name per column), then one line per sample starting with its id. Option
    ``label_column`` names the column holding the class labels, if any; every other column must
    be numeric. Option ``id_column: false`` for files without a sample-id column.
``mat``, ``zptoy``, ``res``, ``rdata``, ``orange``, ``uci``, ``h5``
    MATLAB, Zelnik-Manor & Perona toy sets, GenePattern, R, Orange, UCI text and USPS HDF5:
    see :mod:`fsclust.datasets.formats` (the options are the readers' keyword arguments).

Every file format also takes the options ``classes`` / ``drop_classes``
(:func:`select_classes`), and a dataset with several files stacks their samples
(:func:`concat_datasets`).

Class labels become indices into ``class_names``, which is sorted (numerically when every label
is a number), so the labelling does not depend on the order of the samples.
"""

from __future__ import annotations

import csv
import inspect
from functools import partial
from pathlib import Path

import numpy as np

from fsclust.datasets import formats
from fsclust.datasets._parse import _encode_labels, _is_number, _read_lines, _to_float, _unquote
from fsclust.datasets.store import Dataset
from fsclust.datasets.synthetic import make_blobs_with_irrelevant

__all__ = ["load_raw", "read_table", "read_desouto", "select_classes", "concat_datasets",
           "LOADERS"]

_SKLEARN = {
    "iris": "load_iris",
    "wine": "load_wine",
    "breast_cancer": "load_breast_cancer",
    "digits": "load_digits",
}


def _provenance(entry, loader, path=None):
    return {
        "dataset": entry.id,
        "source": entry.source,
        "url": entry.url,
        "file": entry.file,
        "path": str(path) if path is not None else "",
        "checksum_type": entry.checksum_type,
        "checksum": entry.checksum,
        "loader": loader,
        "options": dict(entry.options),
        "substitute": bool(entry.substitute),
        "papers": entry.papers,
        "notes": entry.description,
    }


def _file_readers():
    return {
        "desouto": (read_desouto, ()),
        "tsv": (partial(read_table, sep="\t"), ("label_column", "id_column")),
        "csv": (partial(read_table, sep=","), ("label_column", "id_column")),
        "mat": (formats.read_mat, ("x", "y", "image_shape", "image_order", "first_per_class")),
        "zptoy": (formats.read_zp_toy, ("set", "n_irrelevant", "correlation", "random_state")),
        "res": (formats.read_res, ("labels",)),
        "rdata": (formats.read_rdata, ("object", "class_prefixes")),
        "orange": (formats.read_orange, ("label_column",)),
        "uci": (
            formats.read_uci,
            ("label_column", "skip_rows", "drop_columns", "missing", "names_line",
             "feature_names"),
        ),
        "h5": (formats.read_usps_h5, ("groups",)),
    }


_GENERIC_OPTIONS = ("classes", "drop_classes")


def load_raw(entry, path=None):
    """Load the raw data of a catalog entry, before any preprocessing recipe.

    Parameters
    ----------
    entry : DatasetEntry
    path : str or Path or list of them, optional
        The fetched raw file(s) for the file formats, in the order of ``entry.files``; a
        dataset with several files is their samples stacked in that order (same features; the
        classes are encoded over the union). For ``source = local`` it defaults to
        ``entry.files``. Ignored for ``sklearn`` and ``synthetic``.

    Returns
    -------
    Dataset
        With ``provenance`` describing the catalog entry and the loader.

    Notes
    -----
    Options ``classes`` (labels to keep, relabelled 0..k-1 in the order given) and
    ``drop_classes`` (labels to remove) apply to every file format, after loading (e.g. the
    USPS pairs ``{"classes": [4, 9]}``; LUNG without SCLC ``{"drop_classes": ["SCLC"]}``).
    """
    options = dict(entry.options)
    paths = None
    if entry.format == "sklearn":
        ds = _load_sklearn(**options)
    elif entry.format == "synthetic":
        allowed = set(inspect.signature(make_blobs_with_irrelevant).parameters)
        unknown = sorted(set(options) - allowed)
        if unknown:
            raise ValueError(
                f"dataset {entry.id!r}: unknown synthetic option(s) {unknown}; "
                f"valid: {', '.join(sorted(allowed))}"
            )
        ds = make_blobs_with_irrelevant(**options)
    else:
        readers = _file_readers()
        if entry.format not in readers:
            raise ValueError(
                f"dataset {entry.id!r}: unknown format {entry.format!r}; valid: sklearn, "
                f"synthetic, {', '.join(readers)}"
            )
        reader, allowed = readers[entry.format]
        unknown = sorted(set(options) - set(allowed) - set(_GENERIC_OPTIONS))
        if unknown:
            raise ValueError(
                f"dataset {entry.id!r}: unknown {entry.format} option(s) {unknown}; valid: "
                f"{', '.join((*allowed, *_GENERIC_OPTIONS))}"
            )
        if path is None and entry.source == "local":
            path = entry.files
        if path is None or (isinstance(path, list | tuple) and not path):
            raise ValueError(
                f"dataset {entry.id!r} ({entry.format}) needs its raw file(s) "
                f"{', '.join(entry.files)}: fetch them first and pass path=..."
            )
        paths = [Path(p) for p in path] if isinstance(path, list | tuple) else [Path(path)]
        if entry.files and len(paths) != len(entry.files):
            raise ValueError(
                f"dataset {entry.id!r} has {len(entry.files)} file(s) ({', '.join(entry.files)})"
                f" but {len(paths)} path(s) were given; pass them in that order"
            )
        kwargs = {k: v for k, v in options.items() if k in allowed}
        if "image_shape" in kwargs:
            kwargs["image_shape"] = tuple(kwargs["image_shape"])
        parts = [reader(p, **kwargs) for p in paths]
        ds = parts[0] if len(parts) == 1 else concat_datasets(parts, paths)
        ds = select_classes(
            ds, options.get("classes"), options.get("drop_classes"), where=f"dataset {entry.id!r}"
        )
    where = None
    if paths is not None:
        where = str(paths[0]) if len(paths) == 1 else [str(p) for p in paths]
    provenance = _provenance(entry, entry.format, where)
    provenance.update({k: v for k, v in ds.provenance.items() if k not in provenance})
    ds.provenance = provenance
    return ds


def concat_datasets(parts, paths=None):
    """Stack the samples of datasets with the same features; classes encoded over the union.

    Sample names that repeat across parts are prefixed with their file's name.
    """
    first = parts[0]
    for k, part in enumerate(parts[1:], start=1):
        name = paths[k] if paths is not None else f"part {k}"
        if part.feature_names != first.feature_names:
            raise ValueError(
                f"{name}: its {part.n_features} features differ from those of "
                f"{paths[0] if paths is not None else 'part 0'} ({first.n_features}); "
                "cannot stack the files"
            )
        if (part.y is None) != (first.y is None):
            raise ValueError(f"{name}: one file has labels and another has none")
    samples = [s for part in parts for s in part.sample_names]
    if len(set(samples)) != len(samples) and paths is not None:
        samples = [f"{Path(p).name}:{s}" for p, part in zip(paths, parts, strict=True)
                   for s in part.sample_names]
    y = class_names = None
    if first.y is not None:
        labels = [part.class_names[i] for part in parts for i in part.y]
        y, class_names = _encode_labels(labels)
    provenance = dict(first.provenance)
    provenance["samples_per_file"] = [part.n_samples for part in parts]
    return Dataset(
        X=np.vstack([part.X for part in parts]),
        y=y,
        feature_names=first.feature_names,
        sample_names=samples,
        class_names=class_names,
        provenance=provenance,
        relevant_features=first.relevant_features,
    )


def select_classes(ds, classes=None, drop_classes=None, where="dataset"):
    """Keep the samples of some classes (relabelled 0..k-1 in the given order) or drop some.

    Labels are matched as text (``4`` matches class ``"4"``). An unknown label is an error
    listing the classes. ``provenance["dropped_classes"]`` / ``["kept_classes"]`` record it.

    Examples
    --------
    >>> ds = Dataset(X=[[0.0], [1.0], [2.0]], y=[0, 1, 2], feature_names=["f"],
    ...              sample_names=["a", "b", "c"], class_names=["AD", "NL", "SCLC"])
    >>> out = select_classes(ds, drop_classes=["SCLC"])
    >>> out.class_names, out.y.tolist(), out.n_samples
    (['AD', 'NL'], [0, 1], 2)
    """
    if classes is None and drop_classes is None:
        return ds
    if ds.y is None:
        raise ValueError(f"{where}: classes / drop_classes given but the data has no labels")
    if classes is not None and drop_classes is not None:
        raise ValueError(f"{where}: give classes or drop_classes, not both")
    names = ds.class_names
    wanted = [str(c) for c in (classes if classes is not None else drop_classes)]
    unknown = [c for c in wanted if c not in names]
    if unknown:
        raise ValueError(f"{where}: no class(es) {unknown}; classes: {', '.join(names)}")
    if classes is not None:
        order = [names.index(c) for c in wanted]
        provenance_key, record = "kept_classes", wanted
    else:
        order = [k for k, c in enumerate(names) if c not in wanted]
        provenance_key, record = "dropped_classes", wanted
    lookup = {old: new for new, old in enumerate(order)}
    keep = np.isin(ds.y, order)
    provenance = dict(ds.provenance)
    provenance[provenance_key] = record
    return Dataset(
        X=ds.X[keep],
        y=np.array([lookup[int(v)] for v in ds.y[keep]], dtype=np.int64),
        feature_names=ds.feature_names,
        sample_names=[s for s, k in zip(ds.sample_names, keep, strict=True) if k],
        class_names=[names[k] for k in order],
        provenance=provenance,
        relevant_features=ds.relevant_features,
    )


def _load_sklearn(name, classes=None):
    import sklearn.datasets

    if name not in _SKLEARN:
        raise ValueError(f"unknown sklearn dataset {name!r}; valid: {', '.join(_SKLEARN)}")
    bunch = getattr(sklearn.datasets, _SKLEARN[name])()
    X, target = bunch.data, np.asarray(bunch.target)
    names = [str(t) for t in bunch.target_names]
    sample_ids = np.array([f"{name}_{i}" for i in range(X.shape[0])])
    if classes is None:
        y, class_names = target, names
    else:
        # A class may be given by its target value (digits: 4, 9) or by its name.
        codes = []
        for c in classes:
            if isinstance(c, int) and not isinstance(c, bool) and 0 <= c < len(names):
                codes.append(c)
            elif str(c) in names:
                codes.append(names.index(str(c)))
            else:
                raise ValueError(
                    f"sklearn dataset {name!r} has no class {c!r}; classes: {', '.join(names)} "
                    f"(or their indices 0..{len(names) - 1})"
                )
        if len(set(codes)) != len(codes):
            raise ValueError(f"classes {classes} name the same class twice")
        keep = np.isin(target, codes)
        X, sample_ids = X[keep], sample_ids[keep]
        lookup = {code: k for k, code in enumerate(codes)}
        y = np.array([lookup[t] for t in target[keep]])
        class_names = [names[c] for c in codes]
    return Dataset(
        X=X,
        y=y,
        feature_names=[str(f) for f in bunch.feature_names],
        sample_names=sample_ids.tolist(),
        class_names=class_names,
        provenance={"loader_detail": f"sklearn.datasets.{_SKLEARN[name]}"},
    )


def read_desouto(path):
    """Read a de Souto et al. (2008) ``*_database.txt`` file (genes x samples) into a Dataset.

    Two files of the collection (lapointe-2004-v1 and -v2) have no gene-id column and no empty
    first cell: every line holds exactly one cell per sample. They are read as such (genes
    named ``gene1``, ``gene2``, ...), so their sample count is the number of cells of line 1
    (69 and 110: line 2 holds that many class labels; MANIFEST.tsv says 68 and 109 because it
    assumed a gene-id column).

    Raises
    ------
    ValueError
        Naming the file, the line and the problem: empty file, label row missing, ragged rows
        (e.g. a truncated download), non-numeric or missing values, no genes.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "toy_database.txt"
    >>> lines = ['\\t"s1"\\t"s2"\\t"s3"', '\\t"B"\\t"A"\\t"B"',
    ...          '"g1"\\t1\\t2\\t3', '"g2"\\t4\\t5\\t6']
    >>> _ = p.write_text("\\n".join(lines) + "\\n")
    >>> ds = read_desouto(p)
    >>> ds.X
    array([[1., 4.],
           [2., 5.],
           [3., 6.]])
    >>> ds.y.tolist(), ds.class_names, ds.feature_names
    ([1, 0, 1], ['A', 'B'], ['g1', 'g2'])
    """
    path = Path(path)
    lines = _read_lines(path)
    rows = [line.split("\t") for line in lines]
    if (
        len(rows) > 2
        and _unquote(rows[0][0]) != ""
        and all(len(row) == len(rows[0]) for row in rows)
        and _is_number(rows[2][0])
    ):
        # No gene-id column (lapointe): prepend one so the rest reads the common layout.
        rows = [["", *rows[0]], ["", *rows[1]]] + [
            [f"gene{g + 1}", *row] for g, row in enumerate(rows[2:])
        ]
    samples = [_unquote(c) for c in rows[0][1:]]
    n = len(samples)
    if n == 0 or _unquote(rows[0][0]) != "":
        raise ValueError(
            f"{path}: line 1 must be an empty cell followed by the sample ids (de Souto format)"
        )
    if len(rows) < 2 or _unquote(rows[1][0]) != "":
        raise ValueError(
            f"{path}: label row missing: line 2 must be an empty cell followed by the class "
            "label of each sample (de Souto format)"
        )
    if len(rows) < 3:
        raise ValueError(f"{path}: no gene rows after the two header lines")
    for lineno, row in enumerate(rows, start=1):
        if len(row) != n + 1:
            raise ValueError(
                f"{path}: ragged rows: line {lineno} has {len(row)} cells, expected {n + 1} "
                f"(gene id + {n} samples); the file may be truncated or damaged"
            )
    labels = [_unquote(c) for c in rows[1][1:]]
    empty = [samples[i] for i, lab in enumerate(labels) if lab == ""]
    if empty:
        raise ValueError(f"{path}: line 2 (class labels): no label for sample(s) {empty[:5]}")
    genes = [_unquote(row[0]) for row in rows[2:]]
    values = np.empty((len(genes), n))
    for g, row in enumerate(rows[2:]):
        try:
            values[g] = np.array(row[1:], dtype=np.float64)
        except ValueError:
            values[g] = [
                _to_float(cell, f"{path}: line {g + 3}, gene {genes[g]!r}, sample {samples[j]!r}")
                for j, cell in enumerate(row[1:])
            ]
        if not np.all(np.isfinite(values[g])):
            j = int(np.flatnonzero(~np.isfinite(values[g]))[0])
            raise ValueError(
                f"{path}: line {g + 3}, gene {genes[g]!r}, sample {samples[j]!r}: "
                f"missing value {row[j + 1]!r}"
            )
    y, class_names = _encode_labels(labels)
    return Dataset(
        X=values.T,
        y=y,
        feature_names=genes,
        sample_names=samples,
        class_names=class_names,
        provenance={"loader_detail": "read_desouto"},
    )


#: Cells read as missing values under ``read_table(missing="nan")`` (case-insensitive).
MISSING_CELLS = frozenset({"", "na", "n/a", "nan", "null", "?"})

#: How read_table's hints name its options; a caller with other names (the CLI's flags) passes
#: its own spelling in ``flags``.
_PYTHON_NAMES = {"label_column": "label_column", "missing": 'missing="nan"'}


def _duplicated(names):
    """Names that occur more than once, with their counts, in first-seen order."""
    seen, dup = set(), {}
    for n in names:
        if n in seen:
            dup[n] = dup.get(n, 1) + 1
        seen.add(n)
    return dup


def read_table(path, label_column=None, sep=None, id_column=True, *, missing="error",
               unique=False, flags=None):
    """Read a samples x features table (users' own data) into a Dataset.

    Parameters
    ----------
    path : str or Path
        ``.tsv`` / ``.txt`` / ``.tab`` (tab-separated) or ``.csv`` (comma-separated). Line 1 is
        the header: the sample-id column's name, then the column names. Every later line is a
        sample id followed by its values. Cells may be quoted.
    label_column : str, optional
        Name of the column holding the class labels; it is removed from the features.
    sep : str, optional
        Field separator; by default chosen from the extension.
    id_column : bool
        The first column holds the sample ids (default). False: every column is data or the
        label column, and the samples are named ``<file name>:<line>`` (the datamicroarray
        CSV files: a ``labels`` column, then the genes).
    missing : {"error", "nan"}
        What an empty, NA, NaN or infinite cell is: an error naming its sample and feature
        (default), or NaN in ``X`` for the caller to impute (``"nan"``; infinities become NaN
        too). Any other text is an error either way.
    unique : bool
        Require unique feature names and sample ids (an error listing the duplicates). Off by
        default because published gene tables repeat probe names.
    flags : dict, optional
        How the hints name ``label_column`` and ``missing`` (the CLI passes its flags).

    Returns
    -------
    Dataset
        ``y`` and ``class_names`` are None when ``label_column`` is None.

    Raises
    ------
    ValueError
        Naming the file and the problem: empty file, no samples, ragged rows, a non-numeric
        or missing value (naming the column, line, sample and value), an unknown label column,
        duplicate names when ``unique``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "mine.csv"
    >>> _ = p.write_text("id,a,b,type\\nx,1,2,good\\ny,3,4,bad\\n")
    >>> ds = read_table(p, label_column="type")
    >>> ds.X.tolist(), ds.feature_names, ds.class_names, ds.y.tolist()
    ([[1.0, 2.0], [3.0, 4.0]], ['a', 'b'], ['bad', 'good'], [1, 0])
    >>> _ = p.write_text("id,a,b\\nx,1,NA\\ny,3,4\\n")
    >>> read_table(p, missing="nan").X.tolist()
    [[1.0, nan], [3.0, 4.0]]
    """
    if missing not in ("error", "nan"):
        raise ValueError(f"missing must be 'error' or 'nan', got {missing!r}")
    name = {**_PYTHON_NAMES, **(flags or {})}
    path = Path(path)
    if sep is None:
        suffix = path.suffix.lower()
        if suffix in (".tsv", ".txt", ".tab"):
            sep = "\t"
        elif suffix == ".csv":
            sep = ","
        else:
            raise ValueError(
                f"{path}: cannot tell the separator from the extension {suffix!r}; "
                "name the file .tsv/.txt (tab) or .csv (comma), or pass sep"
            )
    lines = _read_lines(path)
    rows = list(csv.reader(lines, delimiter=sep))
    if not id_column:
        rows = [["sample", *rows[0]]] + [
            [f"{path.name}:{lineno}", *row] for lineno, row in enumerate(rows[1:], start=2)
        ]
    header = [c.strip() for c in rows[0]]
    if len(header) < 2:
        raise ValueError(
            f"{path}: the header line has {len(header)} cell(s); expected the sample-id column "
            f"and at least one feature column separated by {sep!r}"
        )
    if len(rows) < 2:
        raise ValueError(f"{path}: no samples after the header line")
    for lineno, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            raise ValueError(
                f"{path}: ragged rows: line {lineno} has {len(row)} cells, expected "
                f"{len(header)} like the header; the file may be truncated or damaged"
            )
    columns = header[1:]
    samples = [row[0].strip() for row in rows[1:]]
    if unique:
        for what, names in (("feature name", columns), ("sample id", samples)):
            dup = _duplicated(names)
            if dup:
                listed = ", ".join(f"{n!r} ({k}x)" for n, k in list(dup.items())[:5])
                raise ValueError(
                    f"{path}: {len(dup)} duplicate {what}(s): {listed}"
                    f"{', ...' if len(dup) > 5 else ''}; {what}s must be unique"
                )
    if label_column is not None and label_column not in columns:
        shown = ", ".join(repr(c) for c in columns[:20])
        raise ValueError(
            f"{name['label_column']} {label_column!r} is not a column of {path}; columns: "
            f"{shown}{', ...' if len(columns) > 20 else ''}"
        )
    label_at = columns.index(label_column) + 1 if label_column is not None else None
    feature_at = [j for j in range(1, len(header)) if j != label_at]
    if not feature_at:
        raise ValueError(f"{path}: no feature columns besides the label column")
    X = np.empty((len(samples), len(feature_at)))
    for k, j in enumerate(feature_at):
        cells = [row[j].strip() for row in rows[1:]]
        try:
            X[:, k] = np.array(cells, dtype=np.float64)
            continue
        except ValueError:
            pass
        text = [i for i, c in enumerate(cells)
                if not _is_number(c) and c.lower() not in MISSING_CELLS
                and not _is_infinite(c)]
        if text:
            i = text[0]
            raise ValueError(
                f"{path}: column {header[j]!r} is not numeric: line {i + 2} (sample "
                f"{samples[i]!r}) has {cells[i]!r}; {len(text)} such cell(s) in that column. "
                f"If it holds class labels give {name['label_column']} {header[j]}, else remove "
                "the column"
            )
        X[:, k] = [float(c) if c.lower() not in MISSING_CELLS else np.nan for c in cells]
    bad = ~np.isfinite(X)
    if bad.any():
        if missing == "error":
            i, k = np.argwhere(bad)[0]  # row-major: the first bad cell in reading order
            cell = rows[i + 1][feature_at[k]].strip()
            raise ValueError(
                f"{path}: {int(bad.sum())} empty, NaN or infinite cell(s); the first is line "
                f"{i + 2}, sample {samples[i]!r}, feature {header[feature_at[k]]!r} ({cell!r}); "
                f"fix them or pass {name['missing']}"
            )
        X[bad] = np.nan
    y = class_names = None
    if label_at is not None:
        labels = [row[label_at].strip() for row in rows[1:]]
        if any(lab == "" for lab in labels):
            i = labels.index("")
            raise ValueError(
                f"{path}: line {i + 2} (sample {samples[i]!r}) has no label in "
                f"{name['label_column']} {label_column!r}"
            )
        y, class_names = _encode_labels(labels)
    return Dataset(
        X=X,
        y=y,
        feature_names=[header[j] for j in feature_at],
        sample_names=samples,
        class_names=class_names,
        provenance={
            "source": "local",
            "loader": "table",
            "loader_detail": "read_table",
            "path": str(path),
            "label_column": label_column,
            "id_column": id_column,
        },
    )


def _is_infinite(cell):
    try:
        return bool(np.isinf(float(cell)))
    except ValueError:
        return False


#: Catalog format -> what reads it (for documentation and the CLI's help text).
LOADERS = {
    "sklearn": "scikit-learn bundled dataset (options: name, classes)",
    "synthetic": "make_blobs_with_irrelevant(**options)",
    "desouto": "read_desouto(path)",
    "tsv": "read_table(path, label_column, sep='\\t', id_column)",
    "csv": "read_table(path, label_column, sep=',', id_column)",
    "mat": "formats.read_mat(path, x, y, image_shape, image_order, first_per_class)",
    "zptoy": "formats.read_zp_toy(path, set, n_irrelevant, correlation, random_state)",
    "res": "formats.read_res(path, labels)",
    "rdata": "formats.read_rdata(path, object, class_prefixes)",
    "orange": "formats.read_orange(path, label_column)",
    "uci": "formats.read_uci(path, label_column, skip_rows, drop_columns, missing, ...)",
    "h5": "formats.read_usps_h5(path, groups)",
}


def draw_classes(ds, n_classes, random_state):
    """Keep ``n_classes`` classes drawn at random without replacement (e.g. 5 PIE subjects).

    One draw per repeat: the workflow passes the same ``random_state`` to every method and
    clusterer of a repeat, so all of them see the same subjects (Zeng & Cheung 2008's protocol).

    Examples
    --------
    >>> ds = Dataset(X=[[0.0], [1.0], [2.0], [3.0]], y=[0, 1, 2, 3], feature_names=["f"],
    ...              sample_names=list("abcd"), class_names=["s1", "s2", "s3", "s4"])
    >>> out = draw_classes(ds, 2, random_state=0)
    >>> out.n_samples, out.n_classes, set(out.class_names) <= {"s1", "s2", "s3", "s4"}
    (2, 2, True)
    """
    if ds.y is None:
        raise ValueError("class draws need class labels; this dataset has none")
    names = list(ds.class_names) if ds.class_names else [str(c) for c in np.unique(ds.y)]
    if not 1 <= int(n_classes) <= len(names):
        raise ValueError(f"cannot draw {n_classes} of {len(names)} classes")
    rng = np.random.default_rng(random_state)
    chosen = sorted(rng.choice(len(names), size=int(n_classes), replace=False).tolist())
    out = select_classes(ds, classes=[names[k] for k in chosen], where="class draw")
    out.provenance["class_draw"] = {"n_classes": int(n_classes), "random_state": int(random_state)}
    return out
