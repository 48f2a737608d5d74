# The helpers of workflow/rules/selection.smk (the `selection` experiments, issue 23): which
# datasets and methods a block runs, its jobs' files and resources, and its config checks.
from fsclust.registry import method_names, table_method_names  # noqa: E402
from fsclust.studies.selection.step import select_and_score  # noqa: E402

SELECTIONS = config.get("selection", {})


def selection_methods(name, slow=False):
    """The block's methods that run here (``slow=False``) or are only planned (``slow``)."""
    block = SELECTIONS[name]
    methods = block["methods"]
    if methods == "all":
        methods = table_method_names()
    cost, limit = block["seconds_per_resample"], block["max_seconds_per_resample"]
    return [m for m in methods if (cost[m] > limit) == slow]


def selection_groups(name):
    """dataset -> its group, for the groups the block evaluates and the datasets that can
    be had here (exp_datasets' rule: a download-only set is skipped offline, with a warning).
    """
    block = SELECTIONS[name]
    groups = {}
    for group in block["evaluate"]:
        for ds in block["groups"][group]:
            reason = unavailable_reason(ds)
            if reason is None:
                groups[ds] = group
            elif (name, ds) not in _WARNED:
                _WARNED.add((name, ds))
                logger.warning(f"selection {name}: skipping dataset {ds}: {reason}")
    return groups


def selection_skipped(name):
    block = SELECTIONS[name]
    return {
        ds: unavailable_reason(ds)
        for group in block["evaluate"]
        for ds in block["groups"][group]
        if unavailable_reason(ds) is not None
    }


def selection_fits(name, kind, slow=False):
    """The ``kind`` ("criteria" or "scores") tables of every job of block ``name``."""
    return expand(
        "results/{selection}/fits/{dataset}/{method}.{kind}.tsv",
        selection=name,
        dataset=sorted(selection_groups(name)),
        method=selection_methods(name, slow),
        kind=kind,
    )


def selection_outputs(name):
    return [
        f"results/{name}/regret.tsv",
        f"results/{name}/summary.tsv",
        f"results/{name}/summary.md",
        f"results/{name}/figures",
    ]


def selection_mem_mb(wildcards, attempt=1):
    """The selector keeps the distances on all features and one block per subsample
    (fsclust.selection.LabelFreeSelector._criteria): about (R + 1) n^2 doubles."""
    block = SELECTIONS[wildcards.selection]
    override = block.get("resources", {}).get("selection_fit", {}).get("mem_mb")
    if override:
        return override * attempt
    n = CATALOG[wildcards.dataset].n_samples or 1000
    doubles = (selection_resamples(block) + 1) * float(n) ** 2
    return int(1000 + 1.5 * doubles * 8 / 1e6) * attempt


def selection_resamples(block):
    return block.get("n_resamples", select_and_score.__kwdefaults__["n_resamples"])


def selection_runtime(wildcards):
    """Minutes: the block's override, or the method's measured seconds per resample times R,
    three times over (larger sets, the clusterings), and an hour."""
    block = SELECTIONS[wildcards.selection]
    override = block.get("resources", {}).get("selection_fit", {}).get("runtime")
    if override:
        return override
    seconds = (
        selection_resamples(block) * block["seconds_per_resample"][wildcards.method]
    )
    return int(60 + 3 * seconds / 60)


def _check_selection():
    for name, block in SELECTIONS.items():
        where = f"selection.{name}"
        if name in EXPERIMENTS or name in PAPERS or name in _RESERVED:
            raise ValueError(
                f"{where}: the name is taken by an experiment, paper or rule"
            )
        unknown = sorted(set(block["evaluate"]) - set(block["groups"]))
        if unknown:
            raise ValueError(
                f"{where}.evaluate: unknown group(s) {unknown}; groups: {sorted(block['groups'])}"
            )
        for group, datasets in block["groups"].items():
            for ds in datasets:
                if ds not in CATALOG:
                    raise ValueError(
                        f"{where}.groups.{group}: unknown dataset {ds!r} "
                        f"({config['datasets_sheet']})"
                    )
        methods = block["methods"]
        methods = table_method_names() if methods == "all" else methods
        for method in methods:
            check_params("method", method, None)
        unmeasured = [m for m in methods if m not in block["seconds_per_resample"]]
        if unmeasured:
            raise ValueError(
                f"{where}.seconds_per_resample: no measured cost for {unmeasured}; measure "
                "one fit on a subsample and add it"
            )


_check_selection()
