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

This package imports nothing from the rest of fsclust except :mod:`fsclust._io` and
:mod:`fsclust._lazy`.
"""

# The names below are imported from their module on first use (:mod:`fsclust._lazy`): reading
# a user's matrix needs the formats, not the catalog, downloads or wavelets.
from fsclust._lazy import lazy_exports

# public name -> the module that defines it
_EXPORTS = {
    "COLUMNS": "catalog",
    "CatalogError": "catalog",
    "DatasetEntry": "catalog",
    "UnknownDatasetError": "catalog",
    "get_entry": "catalog",
    "load_catalog": "catalog",
    "ChecksumError": "download",
    "FileStatus": "download",
    "catalog_status": "download",
    "default_mirror": "download",
    "fetch": "download",
    "file_checksum": "download",
    "select_file": "download",
    "verify": "download",
    "read_desouto": "formats",
    "read_mat": "formats",
    "read_orange": "formats",
    "read_rdata": "formats",
    "read_res": "formats",
    "read_table": "formats",
    "read_uci": "formats",
    "read_usps_h5": "formats",
    "read_zp_toy": "formats",
    "read_single_cell": "formats",
    "concat_datasets": "loaders",
    "draw_classes": "loaders",
    "load_raw": "loaders",
    "select_classes": "loaders",
    "STEPS": "preprocess",
    "apply_recipe": "preprocess",
    "divide": "preprocess",
    "log10": "preprocess",
    "parse_recipe": "preprocess",
    "standardize": "preprocess",
    "threshold": "preprocess",
    "Dataset": "store",
    "load_dataset": "store",
    "save_dataset": "store",
    "make_blobs_with_irrelevant": "synthetic",
    "make_irrelevant_features": "synthetic",
    "haar1280": "wavelets",
    "haar_features": "wavelets",
}

__getattr__, __dir__, _names = lazy_exports(__name__, _EXPORTS)
__all__ = sorted([*_names, "prepare"])


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
    >>> from fsclust.datasets import DatasetEntry
    >>> entry = DatasetEntry(id="iris", source="sklearn", format="sklearn",
    ...                      options={"name": "iris"}, preprocess="standardize",
    ...                      description="Fisher's iris")
    >>> ds = prepare(entry)
    >>> ds.X.shape, ds.n_classes, ds.provenance["recipe_steps"]
    ((150, 4), 3, ['standardize'])
    """
    from fsclust.datasets.loaders import load_raw
    from fsclust.datasets.preprocess import apply_recipe

    return apply_recipe(load_raw(entry, raw_path), entry.preprocess)
