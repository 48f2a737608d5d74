"""Read single-cell counts into an AnnData whose ``X`` is a CSR matrix, checked.

:func:`read_counts` reads with anndata's and scanpy's readers (no parser of its own) and
:func:`check_counts` checks the values. Every refusal is a :class:`ValueError` of one line
naming the file, the problem and the fix (the command line prints it and exits 2); what the
reader changed (cells and genes dropped, a dense matrix converted, names made unique) is one
:class:`UserWarning` line each and is recorded in ``adata.uns["fsclust_read"]``.

Counts are stored as float32 with sorted indices: float32 halves the memory of float64 and
holds every integer up to 2**24 = 16 777 216 exactly; a matrix read as integers or float64
whose largest count is above that keeps float64 (no count is rounded). scanpy's 10x readers
read float32 themselves, so a 10x count above 2**24 is rounded before it gets here (a UMI
count never comes near it). A dense matrix is
converted up to :data:`DENSE_MAX_ENTRIES` entries and refused above; sparse input is never
made dense. The checks read the stored values only, in blocks (their time and memory are
proportional to the non-zeros).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.utils._param_validation import StrOptions, validate_parameter_constraints

from fsclust.counts.preprocess import CHUNK_ENTRIES, cells_per_gene

__all__ = ["DENSE_MAX_ENTRIES", "EXACT_FLOAT32", "PYTHON_NAMES", "check_counts", "read_counts"]

#: A dense count matrix is converted to CSR up to this many entries (2**26: 512 MiB as
#: float64) and refused above.
DENSE_MAX_ENTRIES = 2**26
#: float32 holds every integer up to this one exactly.
EXACT_FLOAT32 = 2**24

#: How messages name the options, in Python (the keyword arguments of :func:`read_counts`);
#: ``layer`` is a format string of the layer's name.
PYTHON_NAMES = {"layer": "layer={!r}", "drop": "empty='drop'", "make_unique": "make_unique=True"}

_INSTALL = "pip install 'fsclust[singlecell]'"
_ACCEPTED = ("accepted: a .h5ad file, a 10x folder (matrix.mtx.gz, features.tsv.gz, "
             "barcodes.tsv.gz, or version 2's matrix.mtx, genes.tsv, barcodes.tsv), a 10x .h5 "
             "file, a Matrix Market .mtx or .mtx.gz file (cells in rows)")
_TENX_V3 = ("matrix.mtx.gz", "features.tsv.gz", "barcodes.tsv.gz")
_TENX_V2 = ("matrix.mtx", "genes.tsv", "barcodes.tsv")
_SHOW = 3  # duplicated names shown in a message


def read_counts(path, *, layer=None, empty="drop", make_unique=False, flags=None):
    """Read a count matrix (cells x genes) into an AnnData with a CSR ``X``.

    Parameters
    ----------
    path : str or Path
        One of:

        - a ``.h5ad`` file: its ``X``, or ``layers[layer]``;
        - a 10x folder, Cell Ranger's ``filtered_feature_bc_matrix/`` (``matrix.mtx.gz``,
          ``features.tsv.gz``, ``barcodes.tsv.gz``) or version 2's uncompressed
          ``matrix.mtx``, ``genes.tsv``, ``barcodes.tsv`` (``scanpy.read_10x_mtx``: genes
          named by their symbols, gene-expression features only);
        - a 10x HDF5 ``.h5`` file (``scanpy.read_10x_h5``);
        - a Matrix Market ``.mtx`` or ``.mtx.gz`` file holding cells in rows and genes in
          columns (``anndata.io.read_mtx``; cells and genes are named by their index,
          ``"0"``, ``"1"``, ...). A 10x ``matrix.mtx`` holds genes in rows: read its folder.

        The 10x formats need scanpy (``pip install 'fsclust[singlecell]'``).
    layer : str, optional
        The ``.h5ad`` layer holding the counts (``"counts"``); None reads ``X``.
    empty : {"drop", "refuse"}
        Cells and genes with no counts: dropped (counted in ``uns``, one warning) or refused.
    make_unique : bool
        Duplicated gene (or cell) names are refused (False) or made unique by anndata's
        ``var_names_make_unique`` rule (``A``, ``A-1``, ``A-2``; one warning).
    flags : dict, optional
        How messages name the options (keys of :data:`PYTHON_NAMES`), for a command line.

    Returns
    -------
    anndata.AnnData
        ``X`` a ``scipy.sparse.csr_matrix`` of float32 counts (float64 when a count exceeds
        2**24) with sorted indices and no stored zeros; string ``obs_names`` and
        ``var_names``; the file's ``obs`` and ``var`` columns (a ``.h5ad``'s other layers,
        ``obsm``, ``uns`` and the rest are not read); ``uns["fsclust_read"]``: the source,
        format, matrix read, dtype and what was changed (``cells_dropped``,
        ``genes_dropped``, ``dense_converted``, ``genes_made_unique``,
        ``cells_made_unique``).

    Raises
    ------
    ValueError
        One line naming the file, the problem and the fix: no such file or an unknown
        format, a missing 10x file, an empty ``X`` beside layers, an unknown layer,
        duplicated names, values that are negative, not finite or not integers, a large
        dense matrix, cells or genes with no counts (``empty="refuse"``), a missing package.

    Examples
    --------
    >>> import tempfile, pathlib, warnings
    >>> from fsclust.counts import write_synthetic_h5ad
    >>> p = write_synthetic_h5ad(pathlib.Path(tempfile.mkdtemp()) / "cells.h5ad", 100, 80,
    ...                          n_types=2, markers_per_type=5)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     adata = read_counts(p)  # genes never detected are dropped, in one warning line
    >>> adata.X.format, adata.X.dtype, adata.n_obs
    ('csr', dtype('float32'), 100)
    >>> info = adata.uns["fsclust_read"]
    >>> adata.n_vars + info["genes_dropped"], str(caught[0].message).endswith("with no counts")
    (80, True)
    """
    validate_parameter_constraints(
        {"path": [str, Path], "layer": [str, None], "empty": [StrOptions({"drop", "refuse"})],
         "make_unique": ["boolean"], "flags": [dict, None]},
        {"path": path, "layer": layer, "empty": empty, "make_unique": make_unique,
         "flags": flags}, caller_name="read_counts")
    names = {**PYTHON_NAMES, **(flags or {})}
    path = Path(path)
    source = str(path)
    if not path.exists():
        raise ValueError(f"{source}: no such file or folder; {_ACCEPTED}")
    suffixes = "".join(path.suffixes[-2:]).lower()
    kind = ("10x" if path.is_dir() else "h5ad" if suffixes.endswith(".h5ad") else
            "10x_h5" if suffixes.endswith(".h5") else
            "mtx" if suffixes.endswith((".mtx", ".mtx.gz")) else None)
    if kind is None:
        raise ValueError(f"{source}: unknown format {path.suffix or '(no suffix)'!r}; "
                         f"{_ACCEPTED}")
    if kind == "mtx" and path.name in ("matrix.mtx", "matrix.mtx.gz") and any(
            (path.parent / name).is_file() for name in (*_TENX_V3[1:], *_TENX_V2[1:])):
        raise ValueError(f"{source}: a 10x folder's matrix holds genes in rows; pass its "
                         f"folder {path.parent} to read it with its gene and cell names")
    if layer is not None and kind != "h5ad":
        raise ValueError(f"{source}: {names['layer'].format(layer)} applies to .h5ad files "
                         "only; omit it")
    try:
        import anndata
    except ImportError:
        raise ValueError(f"{source}: reading counts needs anndata; install it: "
                         f"{_INSTALL}") from None

    layers, where = [], "X"
    if kind == "h5ad":
        X, obs, var, layers, where = _read_h5ad(path, layer, names)
    else:
        reader = {"10x": _read_10x_folder, "10x_h5": _read_10x_h5, "mtx": _read_mtx}[kind]
        read = reader(path)
        X, obs, var = read.X, read.obs, read.var
        del read  # X is ours alone from here: checked and changed in place
    info = {"source": source, "format": kind, "matrix": where}
    obs.index, info["cells_made_unique"] = _unique_names(
        obs.index, source, "cell", make_unique, names)
    var.index, info["genes_made_unique"] = _unique_names(
        var.index, source, "gene", make_unique, names)

    X, converted = _checked(X, source, expect_counts=True, inplace=True,
                            cell_names=obs.index, gene_names=var.index, layers=layers,
                            where=where, names=names)
    info["dense_converted"] = converted
    info["dtype"] = str(X.dtype)
    X, cells, genes = _drop_empty(X, source, empty, where, names)
    info["cells_dropped"], info["genes_dropped"] = int((~cells).sum()), int((~genes).sum())
    if not cells.all():
        obs = obs.iloc[np.flatnonzero(cells)]
    if not genes.all():
        var = var.iloc[np.flatnonzero(genes)]
    adata = anndata.AnnData(X=X, obs=obs, var=var)
    adata.uns["fsclust_read"] = info
    return adata


def check_counts(X, *, source="<matrix>", expect_counts=True):
    """Check a count matrix and return it as a CSR matrix of float32 (or float64) counts.

    The checks of :func:`read_counts`, for a matrix in memory. Only the stored values are
    read, in blocks.

    Parameters
    ----------
    X : scipy.sparse matrix or array-like of shape (n_cells, n_genes)
        A dense array of at most :data:`DENSE_MAX_ENTRIES` entries is converted (one
        warning); a larger one is refused. Sparse input is never made dense.
    source : str
        What messages call the matrix (a file name).
    expect_counts : bool
        Refuse non-integer values (True), or accept any value >= 0 (False: for
        log-normalised data; kept as float32).

    Returns
    -------
    scipy.sparse.csr_matrix
        float32, or float64 when a count above 2**24 came as integers or float64. ``X``
        itself when it is already such a ``csr_matrix`` with sorted indices and no stored
        zeros, else a converted matrix: ``X`` is never modified.

    Raises
    ------
    ValueError
        One line naming the problem, the first offending value with its cell and gene, and
        the fix: negative, non-finite or (``expect_counts``) non-integer values, a dense
        matrix too large, a matrix that is not 2-D or not numeric.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> check_counts(sp.csr_matrix(np.array([[0, 2], [5, 0]]))).dtype
    dtype('float32')
    >>> check_counts(sp.csr_matrix([[0.5, 1.0]]), source="mine.h5ad")
    Traceback (most recent call last):
    ...
    ValueError: mine.h5ad: X holds non-integer values where counts are expected: 1 of 2 ...
    """
    X, _ = _checked(X, source, expect_counts=expect_counts, inplace=False)
    return X


# --- readers --------------------------------------------------------------------------------


def _read_h5ad(path, layer, names):
    """``(X, obs, var, layers, where)`` of an h5ad file: only the matrix asked is read.

    anndata's element reader reads the one matrix, ``obs`` and ``var``: a file with
    normalised values in ``X`` and the counts in a layer is not read twice over.
    """
    import h5py

    try:
        from anndata.io import read_elem
    except ImportError:  # anndata < 0.11
        from anndata.experimental import read_elem
    source = str(path)
    try:
        handle = h5py.File(path, "r")
    except OSError as err:
        raise ValueError(f"{source}: not a readable h5ad file ({err})") from None
    with handle:
        layers = sorted(handle["layers"]) if "layers" in handle else []
        shown = ", ".join(repr(name) for name in layers)
        if layer is not None and layer not in layers:
            raise ValueError(f"{source}: no layer {layer!r}; " + (
                f"its layers: {shown}" if layers else "it has no layers: omit layer to read X"))
        where = "X" if layer is None else f"layers[{layer!r}]"
        element = handle["X"] if layer is None and "X" in handle else (
            handle["layers"][layer] if layer is not None else None)
        if _stored_values(element) == 0:
            if layer is None and layers:
                best = _counts_layer(layers)
                raise ValueError(f"{source}: X is empty (no stored values) and the counts must "
                                 f"be in a layer; pass {names['layer'].format(best)} (layers: "
                                 f"{shown})")
            raise ValueError(f"{source}: {where} is empty (no stored values): no counts to read")
        if isinstance(element, h5py.Dataset) and element.size > DENSE_MAX_ENTRIES:
            raise ValueError(_dense_too_large(source, where, element.shape))
        try:
            X = read_elem(element)
            obs, var = read_elem(handle["obs"]), read_elem(handle["var"])
        except (OSError, KeyError, ValueError, TypeError) as err:
            raise ValueError(f"{source}: not a readable h5ad file ({err})") from None
    return X, obs, var, layers, where


def _stored_values(element):
    """How many values an h5ad matrix element stores (0 when it is absent)."""
    if element is None:
        return 0
    if hasattr(element, "size"):  # a dense dataset
        return element.size
    return element["data"].shape[0] if "data" in element else 0


def _counts_layer(layers):
    """The layer most likely to hold counts: 'counts', else one named like it, else the first."""
    for name in layers:
        if name.lower() == "counts":
            return name
    return next((name for name in layers if "count" in name.lower()), layers[0])


def _scanpy(source, what):
    try:
        import scanpy
    except ImportError:
        raise ValueError(f"{source}: reading {what} needs scanpy; install it: "
                         f"{_INSTALL}") from None
    return scanpy


def _read_10x_folder(folder):
    source = str(folder)
    legacy = (folder / "genes.tsv").is_file()
    needed = _TENX_V2 if legacy else _TENX_V3
    missing = [name for name in needed if not (folder / name).is_file()]
    if missing:
        first = missing[0]
        if (folder / "filtered_feature_bc_matrix").is_dir():
            fix = f"pass the folder {folder / 'filtered_feature_bc_matrix'}"
        elif not legacy and (folder / "genes.tsv.gz").is_file():
            fix = ("this is version 2's layout compressed: gunzip its files (scanpy reads "
                   "version 2's uncompressed)")
        elif not legacy and (folder / first.removesuffix(".gz")).is_file():
            fix = (f"{first.removesuffix('.gz')} is there uncompressed: gzip it (scanpy reads "
                   "version 3's files compressed)")
        else:
            fix = "copy it from Cell Ranger's output (outs/filtered_feature_bc_matrix/)"
        raise ValueError(f"{source}: the 10x folder has no {first} (it needs "
                         f"{', '.join(needed)}); {fix}")
    sc = _scanpy(source, "a 10x folder")
    try:
        with _names_not_unique_ignored():
            return sc.read_10x_mtx(folder, var_names="gene_symbols", make_unique=False)
    except (OSError, ValueError, KeyError, IndexError, EOFError) as err:
        raise ValueError(f"{source}: not a readable 10x folder ({_one_line(err)})") from None


def _read_10x_h5(path):
    source = str(path)
    sc = _scanpy(source, "a 10x .h5 file")
    try:
        with _names_not_unique_ignored():
            return sc.read_10x_h5(path)
    except Exception as err:  # noqa: BLE001 - scanpy raises a bare Exception for a missing dataset
        raise ValueError(f"{source}: not a readable 10x .h5 file ({_one_line(err)})") from None


def _read_mtx(path):
    try:
        from anndata.io import read_mtx
    except ImportError:  # anndata < 0.11
        from anndata import read_mtx
    try:
        # float64: integer counts above 2**24 stay exact until the dtype is chosen
        return read_mtx(path, dtype="float64")
    except (OSError, ValueError, EOFError) as err:
        raise ValueError(f"{path}: not a readable Matrix Market file ({_one_line(err)})") from None


class _names_not_unique_ignored(warnings.catch_warnings):
    """anndata's warning on duplicated names, silenced: :func:`_unique_names` refuses them or
    makes them unique, and says so."""

    def __enter__(self):
        super().__enter__()
        warnings.filterwarnings("ignore", message=".*[Nn]ames are not unique")


def _one_line(err):
    return " ".join(str(err).split()) or type(err).__name__


# --- checks ---------------------------------------------------------------------------------


def _unique_names(index, source, what, make_unique, names):
    """``index`` as strings with its duplicates refused or made unique; and how many were."""
    import pandas as pd

    index = pd.Index(index.astype(str))
    duplicated = index.duplicated()
    if not duplicated.any():
        return index, 0
    repeated = list(dict.fromkeys(index[duplicated]))
    count = int(duplicated.sum())
    if not make_unique:
        shown = ", ".join(repr(name) for name in repeated[:_SHOW])
        raise ValueError(f"{source}: {len(repeated)} {what} name(s) are duplicated ({shown}"
                         f"{', ...' if len(repeated) > _SHOW else ''}); pass "
                         f"{names['make_unique']} to make them unique ('A', 'A-1', ...)")
    from anndata.utils import make_index_unique

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # anndata's own note that it made them unique
        unique = make_index_unique(index)
    warnings.warn(f"{source}: made {count} duplicated {what} name(s) unique "
                  f"({repeated[0]!r} -> {repeated[0] + '-1'!r}, ...)", UserWarning,
                  stacklevel=3)
    return unique, count


def _checked(X, source, *, expect_counts, inplace, cell_names=None, gene_names=None,
             layers=(), where="X", names=PYTHON_NAMES):
    """``(X as a float CSR, whether it was dense)``, or a one-line refusal.

    ``inplace``: ``X`` is the caller's alone and may be changed (sorted, its zeros removed).
    """
    converted = False
    if sp.issparse(X):
        if X.format != "csr":
            X, inplace = X.tocsr(), True  # CSC (10x folders, via scanpy's transpose), COO
        elif not isinstance(X, sp.csr_matrix):  # csr_array: the same arrays, as csr_matrix
            X = sp.csr_matrix((X.data, X.indices, X.indptr), shape=X.shape, copy=False)
    else:
        X = np.asarray(X)
        if X.ndim != 2:
            raise ValueError(f"{source}: {where} must be 2-D (cells x genes), got shape "
                             f"{X.shape}")
        if X.size > DENSE_MAX_ENTRIES:
            raise ValueError(_dense_too_large(source, where, X.shape))
        if X.dtype.kind not in "biuf":
            raise ValueError(f"{source}: {where} holds {X.dtype} values, not numbers")
        X, inplace, converted = sp.csr_matrix(X), True, True
        warnings.warn(f"{source}: {where} is stored dense ({X.shape[0]} x {X.shape[1]}); "
                      f"converted to CSR (store it sparse to skip this: "
                      f"{_sparse_fix(where)})", UserWarning, stacklevel=3)
    data = X.data
    if data.dtype.kind not in "biuf":
        raise ValueError(f"{source}: {where} holds {data.dtype} values, not numbers")

    def refuse(test, problem, fix):
        count, first = _scan(data, test)
        if count:
            cell, gene = _position(X, first, cell_names, gene_names)
            raise ValueError(f"{source}: {where} holds {problem}: {count} of {X.nnz} stored "
                             f"values, the first {data[first]:g} (cell {cell!r}, gene "
                             f"{gene!r}); {fix}")

    raw = _raw_counts_hint(layers, where, names)
    if data.dtype.kind == "f":
        refuse(lambda v: ~np.isfinite(v), "NaN or infinite values", f"fix them; {raw}")
    refuse(lambda v: v < 0, "negative values", f"counts are >= 0: {raw}")
    if expect_counts and data.dtype.kind == "f":
        refuse(lambda v: v != np.floor(v), "non-integer values where counts are expected",
               f"{raw}; if the values are log-normalised they are not counts: give them to "
               "fsclust.select or fsclust select, whose rankers take any matrix; estimated "
               "counts (salmon, kallisto) must be rounded first")

    dtype = np.dtype(np.float32)
    if expect_counts and data.dtype != dtype and data.size and data.max() > EXACT_FLOAT32:
        dtype = np.dtype(np.float64)  # kept exact rather than rounded to float32
    own_data = inplace
    if data.dtype != dtype:
        data, own_data = data.astype(dtype), True
        X = sp.csr_matrix((data, X.indices, X.indptr), shape=X.shape, copy=False)
    explicit_zeros = _scan(data, lambda v: v == 0)[0]
    if explicit_zeros or not X.has_canonical_format:
        if not inplace:  # a copy of what is about to change: the caller's X stays as it was
            X = sp.csr_matrix((data if own_data else data.copy(), X.indices.copy(),
                               X.indptr.copy()), shape=X.shape, copy=False)
        X.sum_duplicates()  # sorts the indices too
        X.eliminate_zeros()
    return X, converted


def _scan(data, test):
    """``(how many values pass test, the first one's position)``, block by block."""
    count, first = 0, -1
    for start in range(0, data.size, CHUNK_ENTRIES):
        hits = test(data[start:start + CHUNK_ENTRIES])
        n = int(np.count_nonzero(hits))
        if n and first < 0:
            first = start + int(np.argmax(hits))
        count += n
    return count, first


def _position(X, k, cell_names, gene_names):
    """The cell and gene names of stored value ``k``."""
    row = int(np.searchsorted(X.indptr, k, side="right")) - 1
    col = int(X.indices[k])
    return (str(cell_names[row]) if cell_names is not None else row,
            str(gene_names[col]) if gene_names is not None else col)


def _raw_counts_hint(layers, where, names):
    others = [name for name in layers if where != f"layers[{name!r}]"]
    if others:
        shown = ", ".join(repr(name) for name in others)
        return (f"if the raw counts are in a layer pass "
                f"{names['layer'].format(_counts_layer(others))} (layers: {shown})")
    return "give the raw counts (scanpy keeps them in adata.layers['counts'] or adata.raw)"


def _sparse_fix(where):
    target = "adata.X" if where == "X" else f"adata.{where}"
    return f"{target} = scipy.sparse.csr_matrix({target}), then write the file again"


def _dense_too_large(source, where, shape):
    n, d = shape
    return (f"{source}: {where} is stored dense ({n} x {d} = {n * d} entries, more than the "
            f"2**26 converted here); store it sparse: {_sparse_fix(where)}")


def _drop_empty(X, source, empty, where, names):
    """``X`` without its cells and genes with no counts, and the masks of those kept.

    ``X`` has no stored zeros, so a row or column with no stored value has no counts. The
    rows are dropped from ``indptr`` alone and the columns by renumbering ``indices``, in
    place: the values are not copied.
    """
    cells = np.diff(X.indptr) > 0
    genes = cells_per_gene(X, positive=False) > 0
    n_cells, n_genes = int((~cells).sum()), int((~genes).sum())
    if not cells.any():
        raise ValueError(f"{source}: {where} holds no counts at all (every value is 0)")
    if not (n_cells or n_genes):
        return X, cells, genes
    what = " and ".join(part for part in (f"{n_cells} cells" if n_cells else "",
                                          f"{n_genes} genes" if n_genes else "") if part)
    if empty == "refuse":
        raise ValueError(f"{source}: {what} have no counts; pass {names['drop']} to drop them")
    indptr = np.concatenate(([0], X.indptr[1:][cells])).astype(X.indptr.dtype, copy=False)
    indices = X.indices
    if n_genes:
        renumber = (np.cumsum(genes) - 1).astype(indices.dtype)
        for start in range(0, indices.size, CHUNK_ENTRIES):
            part = indices[start:start + CHUNK_ENTRIES]
            part[:] = renumber[part]
    X = sp.csr_matrix((X.data, indices, indptr), shape=(int(cells.sum()), int(genes.sum())),
                      copy=False)
    warnings.warn(f"{source}: dropped {what} with no counts", UserWarning, stacklevel=3)
    return X, cells, genes
