# Config validation and the functions that turn experiments into file lists.
import re
import sys
from pathlib import Path

from snakemake.logging import logger
from snakemake.utils import validate

# The Snakefile imports the package from this checkout even when it is not installed; the rule
# scripts do the same through scripts/_srcpath.py (for --sdm conda, whose environment holds
# only the dependencies).
sys.path.insert(0, str(Path(workflow.basedir) / "src"))

from fsclust.datasets import load_catalog  # noqa: E402
from fsclust.registry import ALL_FEATURES, check_params  # noqa: E402
from fsclust.steps import method_grid, referenced_methods  # noqa: E402
from fsclust.steps import method_time_limit  # noqa: E402


def _config_key_errors(cfg, schema_path):
    """One line per unknown or misspelled config key, naming the nearest valid key (a
    jsonschema error dump names neither)."""
    import difflib
    import re as _re

    import jsonschema
    import yaml

    schema = yaml.safe_load(Path(schema_path).read_text())
    messages = []
    for error in jsonschema.Draft202012Validator(schema).iter_errors(cfg):
        where = ".".join(str(p) for p in error.absolute_path) or "config"
        if error.validator == "additionalProperties" and "properties" in error.schema:
            valid = sorted(error.schema["properties"])
            for key in _re.findall(
                r"'([^']+)' (?:was|were) unexpected|'([^']+)',", error.message
            ):
                key = next(k for k in key if k)
                near = difflib.get_close_matches(key, valid, n=1)
                hint = f"did you mean {near[0]!r}? " if near else ""
                messages.append(
                    f"{where}: unknown key {key!r}; {hint}valid keys: {', '.join(valid)}"
                )
        else:
            messages.append(f"{where}: {error.message}")
    return messages


_KEY_ERRORS = _config_key_errors(
    config, Path(workflow.basedir) / "workflow/schemas/config.schema.yaml"
)
if _KEY_ERRORS:
    raise ValueError("invalid config:\n  " + "\n  ".join(_KEY_ERRORS[:5]))
validate(config, schema="../schemas/config.schema.yaml")


def _expand_grids():
    """Each method or clusterer spec with a `grid:` becomes its variants (fsclust.steps.grids), so
    that every rule, script and table sees plain methods and clusterers."""
    from fsclust.steps.grids import expand_grids

    for name, exp in config["experiments"].items():
        for field, kind in (("methods", "method"), ("clusterers", "clusterer")):
            try:
                exp[field] = expand_grids(exp[field], kind)
            except ValueError as error:
                raise ValueError(f"experiments.{name}.{field}: {error}") from None


_expand_grids()

ENV = "../../envs/fsclust.yaml"
# Rule names an experiment may not take (each experiment is also a target rule).
_RESERVED = {
    "all",
    "datasets",
    "download",
    "prepare",
    "evaluate",
    "evaluate_all_features",
    "aggregate",
    "figure",
    "compare",
    "provenance",
    "reproduction",
    "speed",
    "speed_quick",
    "chunked",
    "chunked_genes",
}
CATALOG = load_catalog(config["datasets_sheet"])
EXPERIMENTS = config["experiments"]
MIRROR = config.get("mirror")
# Paper targets: name -> {paper: module, experiments: {role: experiment}, ...settings}. The
# settings of each paper are validated by workflow/schemas/papers/{paper}.schema.yaml; its
# rules (workflow/rules/papers/{paper}.smk) tabulate and plot with fsclust.papers.{paper}.
PAPERS = config.get("papers", {})


def _check_output_folders():
    """The folders the workflow writes: a clear one-line error before Snakemake builds its job
    graph (it would fail there with a traceback on a file named `results`)."""
    import os

    for name in ("results", "data", "logs"):
        folder = Path(name)
        if folder.exists() and not folder.is_dir():
            raise ValueError(
                f"{name} is a file where the workflow's {name}/ folder should be; move or "
                "delete it, then rerun the same command"
            )
        if folder.is_dir() and not os.access(folder, os.W_OK | os.X_OK):
            raise ValueError(
                f"cannot write in {name}/: no write permission; make it writable "
                f"(chmod -R u+w {name}) or run from a copy of the workflow in a folder you own"
            )


_check_output_folders()


def _check_estimator(experiment, kind, key, spec):
    """A wrong name, parameter or value fails here, at `snakemake -n`, in one line naming the
    experiment and the method (or clusterer) key; the registry is the one place that checks
    them (values the job resolves, e.g. {selected_by: ...}, are left to the job)."""
    try:
        check_params(kind, spec["method"], spec.get("params"))
    except (ValueError, TypeError) as error:
        raise ValueError(
            f"experiment {experiment!r}, {kind} {key!r} ({spec['method']}): {error}"
        ) from None


def _check_config():
    """Errors that name the wrong key and list the valid values."""
    # `run` may name experiments and paper targets (`snakemake zeng2008` is documented)
    unknown = [e for e in config["run"] if e not in EXPERIMENTS and e not in PAPERS]
    if unknown:
        raise ValueError(
            f"config 'run' names unknown experiment(s) {unknown}; "
            f"defined experiments: {sorted(EXPERIMENTS)}; paper targets: {sorted(PAPERS)}"
        )
    for name, exp in EXPERIMENTS.items():
        if name in _RESERVED or name.startswith("evaluate"):
            raise ValueError(f"experiment name {name!r} is a rule name; choose another")
        where = f"experiments.{name}"
        for ds in exp["datasets"]:
            if ds not in CATALOG:
                raise ValueError(
                    f"{where}.datasets: unknown dataset {ds!r}; valid datasets "
                    f"({config['datasets_sheet']}): {', '.join(sorted(CATALOG))}"
                )
        for key, spec in exp["methods"].items():
            if key == ALL_FEATURES:
                raise ValueError(
                    f"{where}.methods: {ALL_FEATURES!r} is reserved for the "
                    "all-features baseline; set all_features: true instead"
                )
            _check_estimator(name, "method", key, spec)
            unknown = sorted(set(spec.get("clusterers", [])) - set(exp["clusterers"]))
            if unknown:
                raise ValueError(
                    f"{where}.methods.{key}.clusterers: unknown clusterer key(s) "
                    f"{', '.join(unknown)}; the experiment's clusterers: "
                    f"{', '.join(sorted(exp['clusterers']))}"
                )
        for key, spec in exp["clusterers"].items():
            _check_estimator(name, "clusterer", key, spec)


_check_config()


def _check_papers():
    for name, block in PAPERS.items():
        paper_name = block["paper"]
        schema = Path(
            workflow.basedir, "workflow/schemas/papers", f"{paper_name}.schema.yaml"
        )
        if not schema.exists():
            raise ValueError(
                f"papers.{name}.paper: unknown paper {paper_name!r}; known papers: "
                + ", ".join(
                    sorted(p.name.split(".")[0] for p in schema.parent.glob("*.yaml"))
                )
            )
        validate(block, schema=str(schema))
        for role, experiment in block["experiments"].items():
            if experiment not in EXPERIMENTS:
                raise ValueError(
                    f"papers.{name}.experiments.{role}: unknown experiment {experiment!r}; "
                    f"defined experiments: {sorted(EXPERIMENTS)}"
                )


_check_papers()


def papers_of(paper_name):
    """The paper targets that run paper ``paper_name`` (e.g. maldonado2015, maldonado2015-small)."""
    return [name for name, block in PAPERS.items() if block["paper"] == paper_name]


def names_pattern(names):
    """A wildcard constraint that matches exactly one of ``names`` (nothing if empty)."""
    if not names:
        return "(?!)"
    return "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))


def paper_experiment(paper, role):
    """The experiment that plays ``role`` (e.g. "toy") in paper target ``paper``."""
    return PAPERS[paper]["experiments"][role]


def ranking_file(experiment, dataset, method, seed, ext="tsv"):
    """One ranking file (ext tsv, json or npz) of the evaluate step; its job's output is
    :func:`rankings_output`."""
    return f"results/{experiment}/rankings/{dataset}/{method}/seed{seed}.{ext}"


def unavailable_reason(dataset):
    """Why a dataset cannot be had here, or None. Offline (with a mirror) a url dataset whose
    files are neither downloaded nor in the mirror (the download-only files) is skipped.
    """
    entry = CATALOG[dataset]
    if entry.source != "url" or MIRROR is None:
        return None
    missing = [
        f
        for f in entry.files
        if not Path("data/raw", f).exists() and not Path(MIRROR, f).exists()
    ]
    if not missing:
        return None
    return (
        f"{', '.join(missing)} is not in the mirror {MIRROR} nor in data/raw/ "
        "(download-only file); run without `mirror` on a machine with internet to include it"
    )


_WARNED = set()


def exp_datasets(experiment):
    """The experiment's datasets that can be had; each skipped one is warned about once."""
    kept = []
    for ds in EXPERIMENTS[experiment]["datasets"]:
        reason = unavailable_reason(ds)
        if reason is None:
            kept.append(ds)
        elif (experiment, ds) not in _WARNED:
            _WARNED.add((experiment, ds))
            logger.warning(f"experiment {experiment}: skipping dataset {ds}: {reason}")
    return kept


def skipped_datasets(experiment):
    return {
        ds: unavailable_reason(ds)
        for ds in EXPERIMENTS[experiment]["datasets"]
        if unavailable_reason(ds) is not None
    }


def class_draw(wildcards):
    """Number of classes drawn per repeat for this dataset (e.g. 5 PIE subjects), or None."""
    exp = EXPERIMENTS[wildcards.experiment]
    return exp.get("class_draws", {}).get(wildcards.dataset)


# The experiment wildcard takes only configured experiment names, so that a paper's own outputs
# (e.g. results/zeng2008/..., a paper run as two experiments) never match the generic rules.
wildcard_constraints:
    experiment="|".join(
        re.escape(name) for name in sorted(EXPERIMENTS, key=len, reverse=True)
    ),
    dataset="[A-Za-z0-9][A-Za-z0-9_.-]*",
    clusterer="[A-Za-z0-9][A-Za-z0-9_.-]*",
    seed=r"\d+",


def exp_resources(rule_name, mem_mb, runtime):
    """Resources of a rule, overridable per experiment under `resources: {rule: {...}}`."""

    def get(key, default):
        def fn(wildcards, attempt=1):
            exp = EXPERIMENTS.get(getattr(wildcards, "experiment", ""), {})
            value = exp.get("resources", {}).get(rule_name, {}).get(key, default)
            return value * attempt if key == "mem_mb" else value

        return fn

    return get("mem_mb", mem_mb), get("runtime", runtime)


def raw_files(dataset):
    """Paths of the downloaded files of a url dataset (same layout as the mirror)."""
    return [f"data/raw/{f}" for f in CATALOG[dataset].files]


def entry_for_file(path):
    """The first url dataset that has `path` (relative to data/raw) among its files; several
    datasets may share a file (e.g. a substitute that drops classes), with one checksum.
    """
    for entry in CATALOG.values():
        if entry.source == "url" and path in entry.files:
            return entry.id
    raise ValueError(
        f"no url dataset in {config['datasets_sheet']} has the file {path!r}"
    )


def catalog_row(wildcards):
    """The dataset's row of the sheet, as a parameter: editing one row reruns that dataset's
    preparation only (the sheet itself is not an input, or any edit would rerun everything).
    """
    return {
        k: v for k, v in vars(CATALOG[wildcards.dataset]).items() if k != "description"
    }


def prepare_inputs(wildcards):
    inputs = {}
    if CATALOG[wildcards.dataset].source == "url":
        inputs["raw"] = raw_files(wildcards.dataset)
    return inputs


def grain(experiment):
    """The experiment's job grain: "method" (one job per dataset and method, plus one for the
    all-features baseline) or "dataset" (one job per dataset for all methods and the baseline:
    for experiments whose per-method work is too small to pay a Python start-up)."""
    return EXPERIMENTS[experiment].get("grain", "method")


def _experiments_pattern(grain_name):
    return names_pattern([e for e in EXPERIMENTS if grain(e) == grain_name])


def rankings_output(experiment, dataset, method):
    """The directory output of the job that writes ``method``'s rankings of ``dataset``
    (its files are always rankings/{dataset}/{method}/seed{S}.tsv, .json, .npz)."""
    if grain(experiment) == "dataset":
        return f"results/{experiment}/rankings/{dataset}"
    return f"results/{experiment}/rankings/{dataset}/{method}"


def rankings_outputs(experiment, methods=None):
    """The rankings directories of ``methods`` (default: every method) of an experiment, on the
    datasets it can get, each once (a "dataset" grain job writes all methods' rankings).
    """
    return sorted(
        {
            rankings_output(experiment, ds, method)
            for ds in exp_datasets(experiment)
            for method in (methods or EXPERIMENTS[experiment]["methods"])
        }
    )


def sweep_files(experiment):
    """The sweep TSV of every evaluate job of an experiment."""
    exp = EXPERIMENTS[experiment]
    if grain(experiment) == "dataset":
        return expand(
            "results/{experiment}/sweeps/{dataset}.tsv",
            experiment=experiment,
            dataset=exp_datasets(experiment),
        )
    methods = list(exp["methods"]) + (
        [ALL_FEATURES] if exp.get("all_features", True) else []
    )
    return expand(
        "results/{experiment}/sweeps/{dataset}/{method}.tsv",
        experiment=experiment,
        dataset=exp_datasets(experiment),
        method=methods,
    )


def method_references(wildcards):
    """method key -> rankings directory of every other method this job reads (its n, its
    ensemble), for the same experiment and dataset."""
    exp = EXPERIMENTS[wildcards.experiment]
    spec = exp["methods"][wildcards.method]
    keys = referenced_methods(spec.get("params")) + referenced_methods(
        method_grid(spec, exp_grid(wildcards))
    )
    keys = [key for key in keys if key != wildcards.method]
    for key in keys:
        if key not in exp["methods"]:
            raise ValueError(
                f"experiments.{wildcards.experiment}.methods.{wildcards.method}: refers to "
                f"method {key!r}, which is not another method of the experiment "
                f"({', '.join(exp['methods'])})"
            )
    return {
        key: f"results/{wildcards.experiment}/rankings/{wildcards.dataset}/{key}"
        for key in dict.fromkeys(keys)
    }


def evaluate_inputs(wildcards):
    return {
        "data": f"data/prepared/{wildcards.dataset}.npz",
        "references": list(method_references(wildcards).values()),
    }


def exp_grid(wildcards):
    """The experiment's sweep grid (a rankings-only experiment has none)."""
    return EXPERIMENTS[wildcards.experiment].get("sweep", {}).get("n_features", "all")


# experiment -> extra target files, filled by workflow/rules/papers/*.smk
EXTRA_OUTPUTS = {}
# experiment -> tables with the columns of paper_vs_ours.tsv made by a paper's own rules (numbers
# the generic comparison cannot select, e.g. at a data-dependent number of features); the
# compare rule appends their rows to results/{experiment}/paper_vs_ours.tsv
EXTRA_COMPARISONS = {}


# experiment -> target files that replace the generic tables, figures and comparison (the
# cross-dataset benchmark's own report, workflow/rules/benchmark.smk)
OWN_OUTPUTS = {}


def experiment_outputs(experiment):
    """What an experiment's target builds: its tables, figures and comparison, or, for an
    experiment of rankings only (no clusterer: unlabelled sets), its rankings; and its
    provenance.json."""
    exp = EXPERIMENTS[experiment]
    if experiment in OWN_OUTPUTS:
        return [*OWN_OUTPUTS[experiment], f"results/{experiment}/provenance.json"]
    if not exp["clusterers"]:
        return [
            *EXTRA_OUTPUTS.get(experiment, []),
            f"results/{experiment}/provenance.json",
            *rankings_outputs(experiment),
        ]
    return [
        *EXTRA_OUTPUTS.get(experiment, []),
        f"results/{experiment}/tables/best.md",
        f"results/{experiment}/figures",
        f"results/{experiment}/paper_vs_ours.tsv",
        f"results/{experiment}/provenance.json",
    ]


def all_prepared():
    """Every dataset of the sheet that can be had here, prepared (target rule `datasets`)."""
    kept = []
    for ds in sorted(CATALOG):
        reason = unavailable_reason(ds)
        if reason is None:
            kept.append(f"data/prepared/{ds}.npz")
        else:
            logger.warning(f"datasets: skipping {ds}: {reason}")
    return kept


def all_outputs():
    """What `snakemake` builds by default: the outputs of each experiment or paper target of
    config `run`."""
    return [
        path
        for name in config["run"]
        for path in (
            experiment_outputs(name) if name in EXPERIMENTS else paper_outputs(name)
        )
    ]
