"""The data layer: catalog -> fetch (verified) -> load -> preprocess -> one ``.npz`` per dataset.

Typical use (what the workflow's download and prepare rules do)::

    catalog = load_catalog()                        # config/datasets.tsv, validated
    entry = get_entry(catalog, "desouto-armstrong-2002-v2")
    fetch(entry, "data/raw/" + entry.file, mirror="../shared/data")   # checksum-verified
    ds = prepare(entry, "data/raw/" + entry.file)   # load_raw, then the preprocess recipe
    save_dataset(ds, "data/prepared/desouto-armstrong-2002-v2.npz")

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
from fsclust.datasets.download import ChecksumError, default_mirror, fetch, file_checksum, verify
from fsclust.datasets.loaders import load_raw, read_desouto, read_table
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

__all__ = [
    "COLUMNS",
    "STEPS",
    "CatalogError",
    "ChecksumError",
    "Dataset",
    "DatasetEntry",
    "UnknownDatasetError",
    "apply_recipe",
    "default_mirror",
    "divide",
    "fetch",
    "file_checksum",
    "get_entry",
    "load_catalog",
    "load_dataset",
    "load_raw",
    "log10",
    "make_blobs_with_irrelevant",
    "make_irrelevant_features",
    "parse_recipe",
    "prepare",
    "read_desouto",
    "read_table",
    "save_dataset",
    "standardize",
    "threshold",
    "verify",
]


def prepare(entry, raw_path=None):
    """Load a catalog entry's raw data and apply its preprocessing recipe.

    Parameters
    ----------
    entry : DatasetEntry
    raw_path : str or Path, optional
        The fetched raw file (file formats only; see :func:`load_raw`).

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
