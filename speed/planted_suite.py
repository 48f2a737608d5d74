"""Planted structure: does every ranker, at its defaults, put the planted features first?

Usage: python speed/planted_suite.py [--cases NAME ...] [--methods NAME ...] [--seeds S ...]
                                     [--variant LABEL METHOD JSON ...] [--jobs J]
                                     [--timeout SECONDS] [--out TSV] [--figure PNG] [--list]

Each case draws ``n`` samples in ``K`` equal groups (sample ``i`` in group ``i mod K``) and
``d`` features; ``p`` of them (at random columns) are planted: a feature's value is its group's
centre plus N(0, 1) noise, the centres drawn N(0, signal^2), one per group and feature; the
other ``d - p`` are pure N(0, 1) noise. ``raw`` cases hand the rankers that matrix, ``z`` cases
the features z-scored (a planted feature then has the same variance as a noise one). The
``counts`` case draws single-cell-like counts (:func:`fsclust.counts.synthetic_counts`: ``K``
cell types, ``p / K`` marker genes each, 4-fold rate in their type, 30 % non-zeros); the
models of raw counts (``RankerTags.counts_input``: scanpy's flavors, the deviance) get the
counts, every other ranker the log of the normalised counts
(:func:`fsclust.counts.preprocess.normalize_log1p`), as a front door hands them; the count
models are skipped on the other cases (they refuse real values).

Every registered ranker (:func:`fsclust.registry.method_names_by_role`, "method" and the
"control" ``random``) is built by :func:`fsclust.registry.make_ranker` with only what a user
states: ``n_clusters = K``, the seed, and ``n_features_to_select = p`` (the number wanted). Its
``p`` selected features (:func:`fsclust.rankers.base.selected_features`) are scored by the
share of the planted ones among them: ``precision`` (1 is perfect; ``floor = p / d`` is the
expectation of a random choice). Where the ``p``-th and ``(p+1)``-th ranked features are tied
(:func:`fsclust.rankers.base.tied_cuts`: the ranker says its order there is arbitrary) and
the ranker orders its features by its scores, ``precision_ties`` is the expectation over the
orders of that tie group (its planted share times its slots in the top ``p``), otherwise it
equals ``precision``. Labels are used for nothing but this score.

``--variant LABEL METHOD JSON`` (repeatable) adds a row ``LABEL``: registered ``METHOD`` with
the parameters of the JSON object on top of its defaults (a value ``"K"`` stands for the case's
number of groups), e.g. ``--variant udfs-paper udfs '{"n_components": "K", "gamma": 1.0}'``:
the ablations of a method's defaults.

Each fit runs in a forked child process with one BLAS thread, stopped after ``--timeout``
seconds (status ``timeout``); ``--jobs`` children at a time. Writes one row per (case, seed,
method), with the fit's time and, where the ranker has them, its iterations, convergence and
active rows (``n_iter_``, ``converged_``, ``n_active_``), to ``--out`` (default
``results/speed/planted_suite.tsv``) and a heat map of ``precision_ties`` (methods x cases,
the mean over the seeds) to ``--figure`` (default ``results/speed/planted_suite.png``).
The default grid (12 cases, one seed, 28 rankers: 336 rows, 281 fits) took 552 s with
``--jobs 1`` on the 2-core machine shared with other work (load 3-8), 2026-11-28; with two
``--variant`` rows, 360 rows in 526 s (docs/measurements.md, "Planted structure at the
defaults").
"""

from __future__ import annotations

import os

# one BLAS thread per fit, set before numpy is imported: the parallelism is --jobs children
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import dataclasses  # noqa: E402
import json  # noqa: E402
import multiprocessing  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from sklearn.utils import get_tags  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from fsclust.rankers.base import (ranking_from_scores, selected_features,  # noqa: E402
                                  tied_cuts, tied_features)
from fsclust.registry import make_ranker, method_names_by_role, ranker_class  # noqa: E402


@dataclasses.dataclass(frozen=True)
class Case:
    """One planted problem: ``n x d``, ``p`` planted features, ``K`` groups."""

    name: str
    n: int
    d: int
    p: int = 30
    groups: int = 4
    signal: float = 2.0
    transform: str = "raw"  # "raw", "z" or "counts"


#: From wide (d >> n) to tall, the signal, the number of groups, raw and z-scored, counts. The
#: issue's problem is ``base``: 160 x 1000, 30 planted, 4 groups, centres of sd 2.
CASES = (
    Case("wide", 80, 2000),
    Case("wide-z", 80, 2000, transform="z"),
    Case("base", 160, 1000),
    Case("base-z", 160, 1000, transform="z"),
    Case("weak", 160, 1000, signal=1.0),
    Case("groups2", 160, 1000, groups=2),
    Case("groups8", 160, 1000, groups=8, p=32),
    Case("square", 400, 400),
    Case("square-z", 400, 400, transform="z"),
    Case("tall", 800, 200),
    Case("tall-z", 800, 200, transform="z"),
    Case("counts", 400, 1000, p=32, transform="counts"),
)


def draw(case, seed):
    """``(X, X_counts, planted)``: the rankers' matrix, the counts (counts case only, else
    None) and the boolean mask of the planted features."""
    rng = np.random.RandomState(seed)
    if case.transform == "counts":
        from fsclust.counts.preprocess import normalize_log1p
        from fsclust.counts.synthetic import synthetic_counts

        counts, _, markers = synthetic_counts(case.n, case.d, n_types=case.groups,
                                              markers_per_type=case.p // case.groups,
                                              density=0.3, random_state=seed,
                                              dtype=np.float64)
        X = normalize_log1p(counts).toarray()
        return X, counts.toarray(), markers >= 0
    labels = np.arange(case.n) % case.groups
    X = rng.standard_normal((case.n, case.d))
    planted = np.zeros(case.d, dtype=bool)
    # at random columns: a ranker that leaves ties in column order must not find them first
    planted[rng.permutation(case.d)[:case.p]] = True
    X[:, planted] += case.signal * rng.standard_normal((case.groups, case.p))[labels]
    if case.transform == "z":
        X = (X - X.mean(axis=0)) / X.std(axis=0)
    return X, None, planted


def ranker_names():
    """Every registered method and the random control."""
    return method_names_by_role("method") + method_names_by_role("control")


def counts_model(name):
    return bool(get_tags(ranker_class(name)()).ranker_tags.counts_input)


def score_selection(ranker, planted, p):
    """``(precision, precision_ties, tied_at_cut, tie_group_size)`` of a fitted ranker."""
    chosen = selected_features(ranker, p)
    precision = float(planted[chosen].mean())
    if not get_tags(ranker).ranker_tags.nested_selection:
        return precision, precision, False, 0
    scores, order = ranker.scores_, ranker.feature_order_
    constant = getattr(ranker, "constant_mask_", None)
    by_scores = ranking_from_scores(scores, ranker.higher_is_better, constant)
    # a ranker with an order of its own (KP-Kmeans' elimination order) is not ordered by
    # its scores: their ties say nothing of its order
    if not np.array_equal(order, by_scores) or not tied_cuts(scores, order, [p], constant):
        return precision, precision, False, 0
    _, group = tied_features(scores)
    members = group == group[order[p - 1]]
    above = [j for j in order[:p] if not members[j]]
    slots = p - len(above)
    expected = planted[above].sum() + slots * planted[members].mean()
    return precision, float(expected / p), True, int(members.sum())


# the current case's data, set in the parent before the children are forked
_DATA = {}


# label -> (registered method, parameters) of the --variant rows
_VARIANTS = {}


def _fit_child(conn, name, case, seed):
    try:
        X, counts, planted = _DATA["X"], _DATA["counts"], _DATA["planted"]
        method, params = _VARIANTS.get(name, (name, {}))
        params = {key: case.groups if value == "K" else value for key, value in params.items()}
        ranker = make_ranker(method, {**params, "n_features_to_select": case.p},
                             n_clusters=case.groups, random_state=seed)
        data = counts if counts is not None and counts_model(method) else X
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            start = time.perf_counter()
            ranker.fit(data)
            seconds = time.perf_counter() - start
        precision, with_ties, tied, group = score_selection(ranker, planted, case.p)
        message = "; ".join(dict.fromkeys(str(w.message).splitlines()[0] for w in caught))
        # what the fit says of itself, where the ranker has it (iterations, convergence, the
        # embedded methods' active rows)
        state = {key: getattr(ranker, attribute, None) for key, attribute in
                 (("n_iter", "n_iter_"), ("converged", "converged_"),
                  ("n_active", "n_active_"))}
        conn.send(dict(status="ok", seconds=seconds, precision=precision,
                       precision_ties=with_ties, tied_at_cut=tied, tie_group=group,
                       message=message[:300], **state))
    except Exception as err:  # a method that fails on one case is a row, not a stop
        last = traceback.format_exception_only(type(err), err)[-1].strip()
        conn.send(dict(status="error", message=last[:300]))
    finally:
        conn.close()


def run_case(case, seed, names, jobs, timeout):
    """Fit every ranker of ``names`` on one draw of ``case``, ``jobs`` children at a time."""
    X, counts, planted = draw(case, seed)
    _DATA.update(X=X, counts=counts, planted=planted)
    context = multiprocessing.get_context("fork")
    base = dict(case=case.name, n=case.n, d=case.d, planted=case.p, groups=case.groups,
                signal=case.signal, transform=case.transform, seed=seed,
                floor=case.p / case.d)
    rows, pending, running = [], list(names), {}
    while pending or running:
        while pending and len(running) < jobs:
            name = pending.pop(0)
            if counts_model(_VARIANTS.get(name, (name,))[0]) and counts is None:
                rows.append(dict(base, method=name, ranker=name, status="skipped",
                                 message="models raw counts; these data are not counts"))
                continue
            receive, send = context.Pipe(duplex=False)
            child = context.Process(target=_fit_child, args=(send, name, case, seed))
            child.start()
            send.close()
            running[name] = (child, receive, time.perf_counter())
        for name, (child, receive, started) in list(running.items()):
            result = None
            if receive.poll(0.02):
                try:
                    result = receive.recv()
                except EOFError:
                    result = dict(status="error", message=f"child exit {child.exitcode}")
            elif time.perf_counter() - started > timeout:
                child.kill()
                result = dict(status="timeout", seconds=timeout,
                              message=f"stopped after {timeout:g} s")
            elif not child.is_alive() and not receive.poll(0):
                result = dict(status="error", message=f"child exit {child.exitcode}")
            if result is not None:
                child.join()
                receive.close()
                del running[name]
                method, params = _VARIANTS.get(name, (name, {}))
                rows.append(dict(base, method=name, ranker=method,
                                 params=json.dumps(params) if params else "", **result))
                print(f"{case.name:9s} seed {seed} {name:24s} {result['status']:7s} "
                      f"{result.get('precision_ties', float('nan')):5.2f} "
                      f"{result.get('seconds', float('nan')):6.1f} s", flush=True)
        time.sleep(0.01)
    _DATA.clear()
    return rows


COLUMNS = ["case", "n", "d", "planted", "groups", "signal", "transform", "seed", "method",
           "ranker", "params", "status", "seconds", "precision", "precision_ties",
           "tied_at_cut", "tie_group", "floor", "n_iter", "converged", "n_active", "message"]


def heat_map(table, path):
    """Methods x cases, the mean ``precision_ties`` over the seeds; T: timeout, E: error."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cases = list(dict.fromkeys(table["case"]))
    ok = table[table["status"] == "ok"]
    mean = ok.pivot_table(index="method", columns="case", values="precision_ties",
                          aggfunc="mean").reindex(columns=cases)
    methods = sorted(set(table["method"]), key=lambda m: (m == "random", -np.nanmean(
        mean.loc[m].to_numpy(dtype=float)) if m in mean.index else 1.0))
    mean = mean.reindex(index=methods)
    fig, ax = plt.subplots(figsize=(1.0 + 0.75 * len(cases), 1.2 + 0.32 * len(methods)))
    image = ax.imshow(mean.to_numpy(dtype=float), vmin=0, vmax=1, cmap="viridis",
                      aspect="auto")
    status = table.groupby(["method", "case"])["status"].agg(lambda s: s.iloc[0])
    for i, method in enumerate(methods):
        for j, case in enumerate(cases):
            value = mean.loc[method, case]
            text = "" if np.isnan(value) else f"{value:.2f}"
            state = status.get((method, case), "")
            text = {"timeout": "T", "error": "E", "skipped": ""}.get(state, text)
            ax.text(j, i, text, ha="center", va="center", fontsize=7,
                    color="white" if np.isnan(value) or value < 0.6 else "black")
    floors = table.groupby("case")["floor"].first().reindex(cases)
    ax.set_xticks(range(len(cases)),
                  [f"{c}\n{r.n}x{r.d}\nfloor {f:.2f}" for c, f, r in zip(
                      cases, floors, table.groupby("case").first().reindex(cases).itertuples())],
                  fontsize=7)
    ax.set_yticks(range(len(methods)), methods, fontsize=8)
    ax.set_title("Share of the planted features among each ranker's top p, at its defaults "
                 "(T: timeout, E: error)", fontsize=9)
    fig.colorbar(image, ax=ax, fraction=0.03, pad=0.01)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", nargs="*", default=[c.name for c in CASES])
    parser.add_argument("--methods", nargs="*", default=None)
    parser.add_argument("--seeds", type=int, nargs="*", default=[0])
    parser.add_argument("--variant", nargs=3, action="append", default=[],
                        metavar=("LABEL", "METHOD", "JSON"))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--out", type=Path, default=REPO / "results/speed/planted_suite.tsv")
    parser.add_argument("--figure", type=Path,
                        default=REPO / "results/speed/planted_suite.png")
    parser.add_argument("--list", action="store_true", help="list the cases and methods")
    parser.add_argument("--package", type=Path, metavar="TSV",
                        help="write the registered rankers' rows of --out (run or read) to "
                             "TSV, the table `fsclust methods` reads "
                             "(src/fsclust/data/planted_suite.tsv)")
    args = parser.parse_args(argv)
    if args.package and args.out.exists() and not args.variant and args.methods is None:
        package(pd.read_csv(args.out, sep="\t"), args.package)
        return
    by_name = {c.name: c for c in CASES}
    unknown = sorted(set(args.cases) - set(by_name))
    if unknown:
        parser.error(f"unknown case(s) {unknown}; cases: {', '.join(by_name)}")
    names = list(ranker_names() if args.methods is None else args.methods)
    for label, method, params in args.variant:
        _VARIANTS[label] = (method, json.loads(params))
        names.append(label)
    if args.list:
        for case in CASES:
            print(case)
        print(" ".join(names))
        return
    started = time.perf_counter()
    rows = []
    for case_name in args.cases:
        for seed in args.seeds:
            rows += run_case(by_name[case_name], seed, names, args.jobs, args.timeout)
    table = pd.DataFrame(rows).reindex(columns=COLUMNS)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.out, sep="\t", index=False, float_format="%.4g")
    heat_map(table, args.figure)
    wide = table[table["status"] == "ok"].pivot_table(
        index="method", columns="case", values="precision_ties", aggfunc="mean")
    print(wide.reindex(columns=args.cases).round(2).to_string())
    print(f"{len(table)} fits in {time.perf_counter() - started:.0f} s; wrote {args.out} "
          f"and {args.figure}")


def package(table, path):
    """The precision of every registered ranker on every case (seed 0, its defaults; the
    ablation rows of ``--variant`` left out) and the random floor's, for
    :func:`fsclust.registry.planted_suite`: ``fsclust methods`` and ``docs/methods.md`` show it
    from this file, never from numbers written by hand."""
    registered = set(ranker_names())
    rows = table[table["method"].isin(registered) & (table["seed"] == 0)]
    rows = rows[["case", "method", "status", "precision_ties", "floor"]].rename(
        columns={"precision_ties": "precision"}).sort_values(["method", "case"])
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as out:
        out.write(f"# speed/planted_suite.py, {len(set(rows['case']))} cases, seed 0, every "
                  "registered ranker at its defaults; precision: the planted features among "
                  "the top p (ties: the expectation), floor: p / d\n")
        rows.to_csv(out, sep="\t", index=False, float_format="%.4g")
    print(f"wrote {len(rows)} rows to {path}")


if __name__ == "__main__":
    main()
