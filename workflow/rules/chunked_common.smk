# The helpers of workflow/rules/chunked.smk (issue 42): the store `snakemake chunked` ranks on
# a Dask cluster, its job's settings and memory, and the config's checks.
from fsclust.studies.singlecell.chunked import scheduler_kind  # noqa: E402

CHUNKED = config.get("chunked", {})
# what read_chunked reads: an .h5ad file, or a zarr store (a folder, named .zarr or not)
CHUNKED_SUFFIXES = (".h5ad", ".zarr")


def chunked_store_name():
    """The store's name in the output paths: its file or folder name without its suffix."""
    store = Path(CHUNKED["store"].rstrip("/"))
    return store.stem if store.suffix in CHUNKED_SUFFIXES else store.name


def chunked_outputs():
    """The table and the record of the configured store (none without a store)."""
    if not CHUNKED.get("store"):
        return []
    return expand(
        "results/chunked/{store}/{method}.{ext}",
        store=chunked_store_name(),
        method=CHUNKED["method"],
        ext=["tsv", "json"],
    )


def chunked_constraint(key):
    """The wildcard's one value (the store's name or the method), or nothing to match."""
    if not CHUNKED.get("store"):
        return names_pattern([])
    return names_pattern(
        [chunked_store_name() if key == "store" else CHUNKED["method"]]
    )


def chunked_settings(wildcards):
    """The arguments of fsclust.studies.singlecell.chunked.rank_chunked_job."""
    keys = ("method", "n_top_genes", "block_cells", "layer", "params", "min_cells")
    settings = {key: CHUNKED[key] for key in keys}
    settings.update(
        random_state=CHUNKED["random_state"],
        scheduler=CHUNKED["scheduler"],
        local=dict(CHUNKED.get("local", {})),
        slurm=dict(CHUNKED.get("slurm", {})),
    )
    return settings


def chunked_threads(wildcards):
    """The client's one core; with a LocalCluster on its node, its workers' cores (one
    thread each)."""
    if CHUNKED["scheduler"] == "local":
        return int(CHUNKED.get("local", {}).get("workers", 2))
    return 1


def chunked_mem_mb(wildcards, attempt=1):
    """The client job's memory, scaled by the attempt (workflow/profiles/slurm retries)."""
    return CHUNKED["mem_mb"] * attempt


def _check_chunked():
    from sklearn.utils import get_tags

    from fsclust.registry import ranker_class
    from fsclust.rankers.base import _dask_methods

    if not CHUNKED:
        return
    try:
        scheduler_kind(CHUNKED["scheduler"])
    except ValueError as error:
        raise ValueError(f"chunked.{error}") from None
    method = CHUNKED["method"]
    check_params("method", method, CHUNKED.get("params"))
    if not get_tags(ranker_class(method)()).ranker_tags.dask_input:
        raise ValueError(
            f"chunked.method: {method} does not take a Dask array; the methods that do: "
            f"{', '.join(_dask_methods())}"
        )
    store = CHUNKED.get("store")
    if not store:  # `snakemake chunked` plans nothing (the targets are not known here)
        return
    path = Path(store)
    if not path.exists():
        raise ValueError(
            f"chunked.store: {store} does not exist (an .h5ad file or a zarr store that "
            "the job and every worker can read)"
        )
    if path.suffix not in CHUNKED_SUFFIXES and not path.is_dir():
        raise ValueError(
            f"chunked.store: {store} is neither an .h5ad file nor a zarr store (a folder)"
        )


_check_chunked()
