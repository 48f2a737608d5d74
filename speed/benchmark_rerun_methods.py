"""Rerun some methods of a finished benchmark run, after their defaults changed, and splice
their rows into it.

Usage: python speed/benchmark_rerun_methods.py --run results/benchmark --methods rufs inffs
                                               [--prepared data/prepared] [--check laplacian]
                                               [--datasets ID ...]

The benchmark runs one job per dataset for all its methods (``grain: dataset``), so a change of
one method's defaults would otherwise cost the whole run again (2 h on 2 cores). For every
dataset of the run (``RUN/sweeps/*.tsv``) this calls the job's own step,
:func:`fsclust.steps.evaluate`, with the experiment's settings from
config/experiments/benchmark.yaml (seeds, clusterers, grid, metrics, time limit) and only the
given methods, then replaces those methods' rows of ``RUN/sweeps/{dataset}.tsv`` (the same
keys: seed, clusterer, number of features; a method new to the benchmark's config has its rows
appended) and their folders ``RUN/rankings/{dataset}/{method}``.
A method's rows depend on its own rankings and the clusterers' seeds alone, so they are the
rows a whole run would give: ``--check METHOD`` reruns an unchanged method on the first
dataset and stops unless its rows equal the run's, byte for byte. The tables are then made
again by the workflow from the spliced sweeps::

    snakemake --cores 2 benchmark --config mirror=... label_free_jobs=none --rerun-triggers mtime

Each file is replaced atomically; a dataset already done is skipped (``RUN/rerun.json`` lists
them), so a killed run resumes. Prints one line per dataset.
"""

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pandas as pd
import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from fsclust import steps  # noqa: E402

KEYS = ["dataset", "method", "seed", "clusterer", "n_features"]


def _experiment():
    config = yaml.safe_load((REPO / "config" / "experiments" / "benchmark.yaml")
                            .read_text(encoding="utf-8"))
    return config["experiments"]["benchmark"]


def _rows(exp, prepared, dataset, methods, folder, columns):
    """The sweep rows of ``methods`` on ``dataset``, their rankings in ``folder``."""
    sweep = folder / "sweep.tsv"
    # as the job's script: one BLAS and OpenMP thread, so that the forked fits of the time
    # limit never inherit an OpenMP pool (libgomp's hangs in a child forked after its threads
    # ran: measured, every RUFS fit after a k-means of the parent timed out)
    with steps.logged(str(folder / "evaluate.log"), 1):
        _evaluate(exp, prepared, dataset, methods, folder, sweep)
    rows = pd.read_csv(sweep, sep="\t", dtype=str, keep_default_na=False)
    # a job writes its "message" column only when one of its rows has a message
    return rows.reindex(columns=columns, fill_value="")


def _evaluate(exp, prepared, dataset, methods, folder, sweep):
    steps.evaluate(str(prepared / f"{dataset}.npz"), str(sweep),
                   dataset=dataset, methods={m: exp["methods"][m] for m in methods},
                   rankings_dir=str(folder / "rankings"), seeds=exp["seeds"],
                   clusterers=exp["clusterers"],
                   grid_spec=exp.get("sweep", {}).get("n_features", "all"),
                   metrics=exp["metrics"], baseline=False, nested=True,
                   class_draw=exp.get("class_draws", {}).get(dataset), references={},
                   time_limit_s=exp.get("time_limit_s"))


def _splice(old, new, methods):
    """``old`` with the rows of ``methods`` replaced by ``new``'s, in ``old``'s order; a
    method the run did not have (one added to the benchmark since) has its rows appended."""
    appended = ~new["method"].isin(set(old["method"]))
    added, new = new[appended], new[~appended]
    replaced = old["method"].isin(methods)
    key_old = old.loc[replaced, KEYS].apply(tuple, axis=1)
    by_key = new.set_index(KEYS)
    if set(key_old) != set(by_key.index) or len(key_old) != len(new):
        raise SystemExit(f"{old['dataset'].iloc[0]}: the rerun's rows are not the run's keys")
    out = old.copy()
    if len(key_old):
        out.loc[replaced, new.columns] = (by_key.loc[list(key_old)].reset_index()[new.columns]
                                          .values)
    return pd.concat([out, added], ignore_index=True)


def _write_atomic(frame, path):
    tmp = path.with_name(path.name + ".tmp")
    frame.to_csv(tmp, sep="\t", index=False)
    os.replace(tmp, path)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--run", type=Path, default=REPO / "results" / "benchmark")
    ap.add_argument("--prepared", type=Path, default=REPO / "data" / "prepared")
    ap.add_argument("--methods", nargs="+", required=True)
    ap.add_argument("--check", default=None)
    ap.add_argument("--datasets", nargs="*", default=None)
    args = ap.parse_args(argv)
    exp = _experiment()
    unknown = sorted(set(args.methods) - set(exp["methods"]))
    if unknown:
        ap.error(f"not methods of the benchmark: {unknown}")
    datasets = args.datasets or sorted(p.stem for p in (args.run / "sweeps").glob("*.tsv"))
    if args.check:
        dataset = datasets[0]
        old = pd.read_csv(args.run / "sweeps" / f"{dataset}.tsv", sep="\t", dtype=str,
                          keep_default_na=False)
        with tempfile.TemporaryDirectory() as tmp:
            new = _rows(exp, args.prepared, dataset, [args.check], Path(tmp), old.columns)
        mine = old[old["method"] == args.check].reset_index(drop=True)
        if not mine.equals(new):
            raise SystemExit(f"--check {args.check} on {dataset}: its rows differ from the run's")
        print(f"check: {args.check} on {dataset} gives the run's {len(new)} rows", flush=True)
    done_file = args.run / "rerun.json"
    done = json.loads(done_file.read_text()) if done_file.exists() else {}
    key = "+".join(sorted(args.methods))
    for dataset in datasets:
        if dataset in done.get(key, []):
            continue
        sweep_path = args.run / "sweeps" / f"{dataset}.tsv"
        old = pd.read_csv(sweep_path, sep="\t", dtype=str, keep_default_na=False)
        with tempfile.TemporaryDirectory(dir=args.run) as tmp:
            new = _rows(exp, args.prepared, dataset, args.methods, Path(tmp), old.columns)
            for method in args.methods:
                target = args.run / "rankings" / dataset / method
                staged = Path(tmp) / "rankings" / method
                old_dir = target.with_name(method + ".old")
                if target.exists():
                    os.replace(target, old_dir)
                os.replace(staged, target)
                shutil.rmtree(old_dir, ignore_errors=True)
            _write_atomic(_splice(old, new, args.methods), sweep_path)
        done.setdefault(key, []).append(dataset)
        tmp_done = done_file.with_name(done_file.name + ".tmp")
        tmp_done.write_text(json.dumps(done, indent=1))
        os.replace(tmp_done, done_file)
        print(f"{dataset}: {len(new)} rows of {', '.join(args.methods)} replaced", flush=True)


if __name__ == "__main__":
    main()
