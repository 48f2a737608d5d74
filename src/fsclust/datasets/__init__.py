"""The data layer: catalog -> fetch (verified) -> load -> preprocess -> one ``.npz`` per dataset.

Typical use (what the workflow's download and prepare rules do)::

    catalog = load_catalog()                        # config/datasets.tsv, validated
    entry = get_entry(catalog, "desouto-armstrong-2002-v2")
    for f in entry.files:                           # one or more files, checksum-verified
        fetch(entry, "data/raw/" + f, mirror="../shared/data", file=f)
    ds = prepare(entry, ["data/raw/" + f for f in entry.files])   # load_raw, then the recipe
    save_dataset(ds, "data/prepared/desouto-armstrong-2002-v2.npz")

``catalog_status(catalog, "data/raw", mirror)`` says which files are present and, with
``check=True``, whether they match their checksums (``fsclust datasets --check``).

This package imports nothing from the rest of fsclust except :mod:`fsclust._io`.
"""

from fsclust.datasets.catalog import (
    COLUMNS,
    CatalogError,
    DatasetEntry,
    UnknownDatasetError,
    get_entry,
    load_catalog,
)
from fsclust.datasets.download import (
    ChecksumError,
    FileStatus,
    catalog_status,
    default_mirror,
    fetch,
    file_checksum,
    select_file,
    verify,
)
from fsclust.datasets.formats import (
    read_desouto,
    read_mat,
    read_orange,
    read_rdata,
    read_res,
    read_table,
    read_uci,
    read_usps_h5,
    read_zp_toy,
)
from fsclust.datasets.loaders import concat_datasets, draw_classes, load_raw, select_classes
from fsclust.datasets.preprocess import (
    STEPS,
    apply_recipe,
    divide,
    log10,
    parse_recipe,
    standardize,
    threshold,
)
from fsclust.datasets.store import Dataset, load_dataset, save_dataset
from fsclust.datasets.synthetic import make_blobs_with_irrelevant, make_irrelevant_features
from fsclust.datasets.wavelets import haar1280, haar_features

__all__ = [
    "COLUMNS",
    "STEPS",
    "CatalogError",
    "ChecksumError",
    "Dataset",
    "DatasetEntry",
    "FileStatus",
    "UnknownDatasetError",
    "apply_recipe",
    "catalog_status",
    "concat_datasets",
    "default_mirror",
    "divide",
    "fetch",
    "file_checksum",
    "get_entry",
    "haar1280",
    "haar_features",
    "load_catalog",
    "load_dataset",
    "load_raw",
    "log10",
    "make_blobs_with_irrelevant",
    "make_irrelevant_features",
    "parse_recipe",
    "prepare",
    "read_desouto",
    "read_mat",
    "read_orange",
    "read_rdata",
    "read_res",
    "read_table",
    "read_uci",
    "read_usps_h5",
    "read_zp_toy",
    "save_dataset",
    "select_classes",
    "draw_classes",
    "select_file",
    "standardize",
    "threshold",
    "verify",
]


def prepare(entry, raw_path=None):
    """Load a catalog entry's raw data and apply its preprocessing recipe.

    Parameters
    ----------
    entry : DatasetEntry
    raw_path : str or Path or list of them, optional
        The fetched raw file(s) (file formats only), in the order of ``entry.files``; see
        :func:`load_raw`.

    Returns
    -------
    Dataset
        ``provenance`` records the catalog entry, the loader and the recipe steps applied.

    Examples
    --------
    >>> entry = DatasetEntry(id="iris", source="sklearn", format="sklearn",
    ...                      options={"name": "iris"}, preprocess="standardize",
    ...                      description="Fisher's iris")
    >>> ds = prepare(entry)
    >>> ds.X.shape, ds.n_classes, ds.provenance["recipe_steps"]
    ((150, 4), 3, ['standardize'])
    """
    return apply_recipe(load_raw(entry, raw_path), entry.preprocess)
