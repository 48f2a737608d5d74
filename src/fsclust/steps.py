"""One function per workflow step, called by the thin scripts under ``scripts/``.

Each step reads its inputs, calls the package, and writes its outputs atomically, so a killed
job leaves no half-written file and a rerun resumes from what is complete.
"""

from __future__ import annotations

import contextlib
import json
import logging
import sys
import time
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from fsclust._io import atomic_dir, atomic_path, write_table_atomic, write_text_atomic
from fsclust.seeds import derive_seed

log = logging.getLogger("fsclust")

#: Method name of the all-features baseline in sweep tables (the papers' "nofs").
ALL_FEATURES = "nofs"
#: How the sidecar of a seed not fitted begins (its method timed out at an earlier seed of the
#: same dataset): it records no time of its own, so a mean cost leaves it out.
NOT_FITTED = "not fitted"


def reuse_freed_memory():
    """Keep freed blocks of up to 32 MB in the process heap instead of returning them to the
    system (glibc ``mallopt``; a no-op elsewhere).

    Iterative methods allocate the same n x n temporaries at every step (KP-Kmeans: a dozen
    arrays of 3 MB per gradient step on the 622-sample toy sets). By default glibc serves
    blocks above 128 KB-32 MB with a fresh ``mmap`` and unmaps them on free, so every step
    page-faults its memory in again: measured, a third of KP-Kmeans' wall time was system
    time (4.8 s -> 3.3 s for 228 steps on zp-toy4-10u). The arithmetic is unchanged.
    """
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("c")
    if not name or not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(name)
        trim, top_pad, mmap_threshold = -1, -2, -3  # M_TRIM_THRESHOLD, M_TOP_PAD, ...
        return bool(libc.mallopt(mmap_threshold, 32 * 2**20)
                    and libc.mallopt(trim, 2**30) and libc.mallopt(top_pad, 64 * 2**20))
    except (OSError, AttributeError):  # not glibc
        return False


@contextlib.contextmanager
def logged(log_path, threads=1):
    """Send logging and stderr of a step to ``log_path``; log the exception if the step fails.

    The BLAS and OpenMP pools are limited to the rule's ``threads``: Snakemake sets
    ``OMP_NUM_THREADS`` for ``shell:`` jobs only, and two single-threaded jobs on two cores
    that each start a BLAS thread per core would fight for them."""
    from threadpoolctl import threadpool_limits

    reuse_freed_memory()
    Path(log_path).parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "w") as handle, threadpool_limits(limits=int(threads)):
        old_stderr = sys.stderr
        sys.stderr = handle
        logging.basicConfig(stream=handle, level=logging.INFO, force=True,
                            format="%(asctime)s %(levelname)s %(message)s")
        try:
            yield log
        except BaseException:
            log.exception("step failed")
            raise
        finally:
            sys.stderr = old_stderr


def download(entry_id, sheet, out_path, mirror=None):
    """Fetch dataset ``entry_id``'s file (pinned URL or mirror), verify its checksum."""
    from fsclust.datasets import fetch, get_entry, load_catalog

    entry = get_entry(load_catalog(sheet), entry_id)
    log.info("fetching %s (%s) from %s", out_path, entry.id, mirror or "its pinned URL")
    fetch(entry, out_path, mirror=mirror)
    log.info("verified %s (%s %s)", out_path, entry.checksum_type, entry.checksum)


def prepare(dataset, sheet, out_path, raw_path=None):
    """Load and preprocess ``dataset`` (from one file or a list, in the entry's file order)
    into the standard ``.npz`` file."""
    from fsclust.datasets import get_entry, load_catalog, prepare as prepare_entry, save_dataset

    entry = get_entry(load_catalog(sheet), dataset)
    ds = prepare_entry(entry, raw_path)
    log.info("%s: %d samples x %d features, %s classes", dataset, ds.X.shape[0], ds.X.shape[1],
             ds.n_classes if ds.y is not None else "no")
    save_dataset(ds, out_path)


def load_view(data_path, dataset, seed, class_draw=None):
    """The prepared dataset as one repeat sees it: all of it, or ``class_draw`` classes drawn
    with the repeat's seed (the same draw for every method and clusterer of that repeat)."""
    from fsclust.datasets import draw_classes, load_dataset

    ds = load_dataset(data_path)
    if class_draw:
        ds = draw_classes(ds, class_draw, derive_seed(seed, dataset, "class_draw"))
        log.info("%s seed %d: drew classes %s", dataset, seed, ", ".join(ds.class_names))
    return ds


def _jsonable(value):
    value = np.asarray(value)
    return value.item() if value.ndim == 0 else value.tolist()


def rank_sidecar(ranker, ds, *, dataset, method, seed, random_state, seconds, metrics):
    """What a ranking run reports besides the ranking: the attributes the ranker's class
    declares in ``reported_attributes`` (iterations, objective, ...), and its own clustering
    (``labels_``, ``labels_path_``) scored against the classes here, outside the method."""
    from fsclust.metrics import evaluate

    info = {"dataset": dataset, "method": method, "seed": seed, "random_state": random_state,
            "seconds": round(seconds, 3), "n_samples": int(ds.X.shape[0]),
            "n_features": int(ds.X.shape[1]),
            "classes": list(ds.class_names) if ds.class_names else None}
    for name in type(ranker).reported_attributes:
        if hasattr(ranker, name):
            info[name.rstrip("_")] = _jsonable(getattr(ranker, name))
    if hasattr(ranker, "labels_") and ds.y is not None:
        info["labels_metrics"] = evaluate(ds.y, ranker.labels_, metrics)
    if hasattr(ranker, "labels_path_") and ds.y is not None:
        # a method that re-clusters as it drops features (KP-Kmeans): its own partition at
        # each size, evaluated here, so the method itself never sees the labels
        info["path_metrics"] = [evaluate(ds.y, labels, metrics) for labels in ranker.labels_path_]
    return info


def _resolve_dataset_params(params, ds, dataset):
    """Parameters that name a property of the dataset: ``init_features: relevant`` becomes the
    dataset's recorded relevant features (the toy sets' two coordinates)."""
    params = dict(params or {})
    if params.get("init_features") == "relevant":
        if ds.relevant_features is None:
            raise ValueError(f"init_features: relevant, but dataset {dataset!r} records no "
                             "relevant features; give column indices or drop the parameter")
        params["init_features"] = [int(j) for j in ds.relevant_features]
    return params


def _ranker_random_state(seed, dataset, method, spec):
    """The random state of ``method``'s fit at ``seed``. ``seed_key`` lets a variant share a
    method's random stream (Maldonado's Table 4 runs start from the same first clustering as
    the main KP-Kmeans run)."""
    return derive_seed(seed, dataset, spec.get("seed_key", method))


class Fit(NamedTuple):
    """A fitted ranker, its random state, the fit's wall time and, for a fit in a child
    process (:func:`_rank_within`), its peak memory above the job's (MB; None otherwise)."""

    ranker: object
    random_state: int
    seconds: float
    max_rss_mb: float | None = None


def _rank_one(ds, *, dataset, method, spec, seed, references=None):
    """Fit ``spec``'s ranker on one repeat's view; return its :class:`Fit`."""
    from fsclust.ranking import rank_features

    # unlabelled sets (the Zelnik-Manor & Perona toys) carry their number of clusters
    n_clusters = ds.n_classes if ds.y is not None else ds.provenance.get("n_clusters")
    random_state = _ranker_random_state(seed, dataset, method, spec)
    params = _resolve_dataset_params(spec.get("params"), ds, dataset)
    params = resolve_references(params, seed, references or {})
    start = time.perf_counter()
    ranker = rank_features(ds.X, spec["method"], params, n_clusters=n_clusters,
                           random_state=random_state)
    return Fit(ranker, random_state, time.perf_counter() - start)


class FitFailure(NamedTuple):
    """A fit that gave no ranking, in an experiment with a time limit: ``status`` "timeout"
    (killed at the limit, or not tried again after an earlier seed's timeout) or "failed"
    (it raised, or its process died), ``message`` says which, ``seconds`` how long it ran,
    ``max_rss_mb`` its peak memory above the job's (None: not measured)."""

    status: str
    message: str
    seconds: float
    max_rss_mb: float | None = None


def _resident_mb(pid="self"):
    """The resident memory of a process now (``/proc/{pid}/statm``), in MB."""
    import os

    with open(f"/proc/{pid}/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _peak_above_mb(pid, baseline_mb):
    """The peak resident memory of a live process (``VmHWM`` of ``/proc/{pid}/status``) above
    ``baseline_mb``, in MB; None when the process has just ended or not yet measured it."""
    try:
        with open(f"/proc/{pid}/status") as handle:
            kb = next(line.split()[1] for line in handle if line.startswith("VmHWM:"))
    except (OSError, StopIteration):  # gone, or a zombie without memory
        return None
    return None if np.isnan(baseline_mb) else round(int(kb) / 1024 - baseline_mb, 1)


def _fit_and_send(connection, baseline, fit, args, kwargs):
    """In the child process of :func:`within_time_limit`: ``fit(*args, **kwargs)``, send the
    outcome with the fit's peak memory above the child's resident memory at its start, exit.

    A forked child starts resident with the parent's pages (the data, the imports), which the
    fit did not allocate: its own cost is its peak (``ru_maxrss``, the high-water mark of this
    process alone) minus what it held at the start. That start is read from ``/proc/self/statm``
    (the resident pages now), not from ``ru_maxrss`` at the start, which is a high-water mark
    whose value for a fresh fork is the kernel's choice; the two agree on Linux. ``baseline``
    (shared memory) gives it to the parent too, which measures a child it kills itself."""
    import os
    import resource

    baseline.value = _resident_mb()
    try:
        outcome = fit(*args, **kwargs)
    except BaseException as error:  # noqa: BLE001 (the parent records any failure)
        outcome = FitFailure("failed", f"{type(error).__name__}: {error}", float("nan"))
    try:
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux
        connection.send(outcome._replace(max_rss_mb=round(peak - baseline.value, 1)))
    finally:
        connection.close()
        os._exit(0)  # no atexit handlers, no flush of the parent's inherited buffers


def _rank_within(time_limit_s, ds, **kwargs):
    """:func:`_rank_one` in a child process killed after ``time_limit_s`` seconds
    (:func:`within_time_limit`)."""
    return within_time_limit(time_limit_s, _rank_one, ds, **kwargs)


def within_time_limit(time_limit_s, fit, *args, **kwargs):
    """``fit(*args, **kwargs)`` in a child process killed after ``time_limit_s`` seconds.

    A signal cannot interrupt Python inside a long BLAS or LAPACK call, a separate process can
    be killed at once. The child is forked: it inherits the data and the BLAS thread limit
    of :func:`logged` without pickling or a new interpreter, and its fit is the same
    arithmetic as in this process (the ranking is the same bit for bit). ``fit`` returns a
    named tuple with a ``max_rss_mb`` field (:class:`Fit`). Returns what ``fit`` returns, or
    a :class:`FitFailure`, with the fit's peak memory above the child's start
    (:func:`_fit_and_send`; of a child killed at the limit, its peak so far)."""
    import multiprocessing

    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    baseline = context.RawValue("d", float("nan"))
    child = context.Process(target=_fit_and_send, args=(send, baseline, fit, args, kwargs),
                            daemon=True)
    start = time.perf_counter()
    child.start()
    send.close()
    try:
        if not receive.poll(time_limit_s):
            peak = _peak_above_mb(child.pid, baseline.value)
            child.kill()
            return FitFailure("timeout", f"the fit exceeded the time limit of {time_limit_s} s "
                              "and was stopped", time.perf_counter() - start, peak)
        outcome = receive.recv()
    except EOFError:  # the child died without a word: killed from outside, out of memory
        child.join()
        return FitFailure("failed", f"the fit's process ended with exit code {child.exitcode} "
                          "and no result (out of memory?)", time.perf_counter() - start)
    finally:
        receive.close()
    child.join()
    if isinstance(outcome, FitFailure):
        return outcome._replace(seconds=time.perf_counter() - start)
    return outcome


def degenerate_reason(method, ranker):
    """Why a fitted ranking is not the method's own, or None: the fit's ``status_`` says so
    (its class's ``statuses``, e.g. LLC-fs on a graph split from the start), or every score of
    a varying feature is tied (the ranking is the column order; e.g. the variance of z-scored
    data)."""
    from fsclust.api import status_warnings
    from fsclust.rankers.base import TIE_RTOL

    messages, degenerate = status_warnings(method, ranker)
    if degenerate:
        return messages[0]
    scores = np.asarray(ranker.scores_, dtype=np.float64)
    varying = scores[~ranker.constant_mask_ & np.isfinite(scores)]
    if varying.size > 1 and np.ptp(varying) <= TIE_RTOL * max(np.max(np.abs(varying)), 1e-300):
        return (f"{method}: all {varying.size} scores are equal; the ranking is the column "
                "order, not the method's")
    return None


def _artifacts(ranker):
    """The arrays the ranker's class declares in ``stored_arrays`` (FRMV shares FRCM's
    ensemble; Zhang's Figure 3 reads FRCM's consensus matrix), for ``seed{S}.npz``."""
    arrays = {}
    for name in type(ranker).stored_arrays:
        if hasattr(ranker, name):
            arrays[name.rstrip("_")] = np.asarray(getattr(ranker, name))
    ensemble = arrays.get("ensemble")
    M = arrays.get("consensus_matrix")
    if M is not None and ensemble is not None:
        # A consensus (co-association) matrix is counts / T: stored as the integer counts it is
        # made of (8 times smaller than float64; pendigits' 3498 x 3498 over 40 trials), and
        # only when counts / T gives it back bit for bit.
        T = ensemble.shape[0]
        counts = np.rint(M * T)
        if T < 2**16 and np.array_equal(counts / T, M):
            arrays["consensus_matrix"] = counts.astype(np.uint8 if T < 256 else np.uint16)
            arrays["consensus_matrix_denominator"] = np.asarray(T)
    return arrays


def read_artifact(path, name):
    """An array a ranking run kept (``seed{S}.npz``), decoded (consensus counts -> matrix)."""
    with np.load(path) as data:
        if name not in data:
            raise KeyError(f"{path} holds no {name!r}; it holds {sorted(data.files)}")
        value = data[name]
        if name == "consensus_matrix" and "consensus_matrix_denominator" in data:
            value = value / int(data["consensus_matrix_denominator"])
    return value


def resolve_references(params, seed, references):
    """Parameters that name another method's result for the same dataset and seed.

    ``{selected_by: kpkmeans}`` is the number of features that method kept (at least 1: a
    filter needs one feature); ``{from: frcm, attribute: ensemble}`` is an array that method
    kept (its class's ``stored_arrays``) or a value of its sidecar JSON. ``references`` maps a
    method key to its rankings directory.
    """
    out = {}
    for key, value in (params or {}).items():
        if isinstance(value, dict) and ("selected_by" in value or "from" in value):
            out[key] = reference_value(value, seed, references)
        else:
            out[key] = value
    return out


def reference_value(ref, seed, references):
    """The value a ``{selected_by: ...}`` or ``{from: ..., attribute: ...}`` entry names."""
    source = ref.get("selected_by", ref.get("from"))
    if source not in references:
        raise ValueError(f"{ref}: method {source!r} is not an input of this job; "
                         f"known: {sorted(references)}")
    base = Path(references[source])
    if "selected_by" in ref:
        info = json.loads((base / f"seed{seed}.json").read_text())
        if "n_features_selected" not in info:
            raise ValueError(f"{ref}: method {source!r} selects no number of features itself")
        return max(int(info["n_features_selected"]), 1)
    attribute = ref["attribute"]
    npz = base / f"seed{seed}.npz"
    if npz.exists():
        with np.load(npz) as data:
            if attribute in data:
                return read_artifact(npz, attribute)
    info = json.loads((base / f"seed{seed}.json").read_text())
    if attribute not in info:
        raise ValueError(f"{ref}: method {source!r} kept no {attribute!r}")
    return info[attribute]


#: Grid entries that a method's own scores decide: ``{informative: mean_plus_std}`` is the
#: size of the subset whose score exceeds mean + sd (Varshavsky et al.'s rule, which Zhang et
#: al. 2012 apply to every method in their Table 2); that subset is the top of the ranking.
INFORMATIVE_RULES = ("mean_plus_std",)


def informative_count(ranker, X, rule="mean_plus_std"):
    """Size of a method's informative subset (constant features never count)."""
    from fsclust.rankers.base import constant_features, mean_plus_std_rule

    if rule not in INFORMATIVE_RULES:
        raise ValueError(f"unknown informative-subset rule {rule!r}; known: {INFORMATIVE_RULES}")
    keep = mean_plus_std_rule(ranker.scores_, type(ranker).higher_is_better,
                              constant_features(X))
    return int(keep.sum())


def sweep_grid(grid_spec, d, seed, references, ranker=None, X=None, method=None):
    """The m values of one repeat's sweep: :func:`fsclust.sweep.resolve_grid` of the plain
    entries, plus the data-dependent ones: ``{selected_by: method}`` (the number of features
    that method kept for this seed; a method naming itself, ``method``, reads its own fitted
    ``n_features_selected_``, since its sidecar is written after its grid is known),
    ``{fraction: f}`` (the top ``max(1, round(f d))`` features, a grid point) and
    ``{informative: mean_plus_std}`` (the size of this method's own informative subset,
    :func:`informative_count`).

    Returns ``(points, grid, marks)``: every m to cluster on, the plain grid (the curves) and
    ``marks[m]``, the names of the entries whose m it is (a method key, or the rule)."""
    from fsclust.sweep import resolve_grid

    if isinstance(grid_spec, list):
        plain = [v for v in grid_spec if not isinstance(v, dict)]
        refs = [v for v in grid_spec if isinstance(v, dict)]
    elif isinstance(grid_spec, dict) and ("selected_by" in grid_spec or "informative" in grid_spec):
        plain, refs = [], [grid_spec]
    else:
        plain, refs = grid_spec, []
    # {fraction: f}: the top max(1, round(f d)) features, a point of the curves (Zhang et al.
    # 2012's Figure 3: the top 10 %); it brings no m = d of its own
    shares = {max(1, int(round(v["fraction"] * d))) for v in refs if "fraction" in v}
    refs = [v for v in refs if "fraction" not in v]
    grid = resolve_grid(plain, d) if (plain or not (refs or shares)) else []
    grid = sorted(set(grid) | shares)
    if isinstance(plain, list):
        above = sorted({int(v) for v in plain if int(v) > d})
        if above:
            # resolve_grid drops them (every sweep ends at d): say so in the job's log
            log.warning("sweep n_features %s above d = %d: not used (the sweep ends at d)",
                        ", ".join(map(str, above)), d)
    marks = {}
    for ref in refs:
        if "informative" in ref:
            if ranker is None:
                continue  # the all-features baseline has no scores
            m, name = informative_count(ranker, X, ref["informative"]), ref["informative"]
            if m == 0:
                continue  # an empty subset: nothing to cluster (the table says so)
        elif (method is not None and ref["selected_by"] == method
              and hasattr(ranker, "n_features_selected_")):
            m, name = max(int(ranker.n_features_selected_), 1), method
        else:
            m, name = reference_value(ref, seed, references), ref["selected_by"]
        marks.setdefault(min(m, d), []).append(name)
    return sorted(set(grid) | set(marks)), set(grid), marks


def _shares_ranking(spec, class_draw):
    """Whether one ranking serves every seed: the method's scores make no random choice (its
    class takes no ``random_state``, or draws only to discretise its own clustering, which
    :meth:`~fsclust.rankers.base.FeatureRanker.relabel` re-draws per seed), each seed sees the
    same samples, and no parameter depends on another method's per-seed result."""
    from fsclust.registry import make_ranker

    if class_draw or referenced_methods(spec.get("params")):
        return False
    return not make_ranker(spec["method"], spec.get("params"))._scores_use_random_state()


def referenced_methods(value):
    """Method keys a spec refers to (``{selected_by: key}``, ``{from: key, ...}``)."""
    if isinstance(value, dict):
        found = [value[k] for k in ("selected_by", "from") if k in value]
        return found + [k for v in value.values() for k in referenced_methods(v)]
    if isinstance(value, list):
        return [k for v in value for k in referenced_methods(v)]
    return []


def method_time_limit(spec, experiment_limit):
    """Seconds a method's fits may take: its own ``time_limit_s`` wins over the experiment's
    (None: no limit).

    >>> method_time_limit({"method": "sogfs", "time_limit_s": 30}, 10)
    30
    >>> method_time_limit({"method": "pca"}, 10)
    10
    """
    return spec.get("time_limit_s", experiment_limit)


def method_grid(spec, grid_spec):
    """A method's own sweep grid (``sweep: {n_features: ...}``) or the experiment's."""
    return spec["sweep"]["n_features"] if "sweep" in spec else grid_spec


def _dependency_order(methods, grid_spec=None):
    """Method keys with every referenced method first (a method that reads KP-Kmeans' n or
    FRCM's ensemble runs after it in the same job)."""
    order, seen = [], set()

    def visit(key, path=()):
        if key in seen:
            return
        if key in path:
            raise ValueError(f"methods refer to each other in a cycle: {' -> '.join(path)}")
        spec = methods[key]
        refs = referenced_methods(spec.get("params"))
        for ref in refs + referenced_methods(method_grid(spec, grid_spec)):
            if ref in methods and ref != key:
                visit(ref, (*path, key))
        seen.add(key)
        order.append(key)

    for key in methods:
        visit(key)
    return order


def _write_ranking_files(out, seed, ranker, ds, info, keep=None):
    """``seed{S}.tsv`` (the ranking), ``.json`` (``info``) and, when the method has arrays a
    later step reads, ``.npz`` (those named in ``keep``; None: all); returns the ranking."""
    from fsclust.ranking import ranking_table, write_ranking

    table = ranking_table(ranker, ds.feature_names, with_index=True)
    write_ranking(table, out / f"seed{seed}.tsv")
    write_text_atomic(out / f"seed{seed}.json", json.dumps(info, indent=1) + "\n")
    arrays = _artifacts(ranker)
    if keep is not None:
        wanted = set(keep) | ({"consensus_matrix_denominator"} if "consensus_matrix" in keep
                              else set())
        arrays = {k: a for k, a in arrays.items() if k in wanted}
    if arrays:
        with atomic_path(out / f"seed{seed}.npz") as tmp:
            np.savez_compressed(tmp, **arrays)
    return table


#: Columns of a job's sweep TSV (the metrics go between ``n_features`` and ``in_grid``).
SWEEP_KEYS = ("dataset", "method", "seed", "clusterer", "n_features")


class _Run(NamedTuple):
    """What the sweep of one ranking of one repeat needs: the method key, the selection (the
    ranking, or ``{m: subset}`` for a method whose subsets are not nested), every m to
    cluster on, the plain grid (the curves), the data-dependent marks and the clusterer keys
    the method is restricted to (None: all); and, in an experiment with a time limit, the
    fit's status (:data:`FIT_STATUSES`): a run not "ok" is not clustered."""

    key: str
    selection: object
    points: list
    grid: set
    marks: dict
    clusterers: object = None
    status: str = "ok"


#: Status of a method's fit, recorded in its sidecar and its sweep rows by an experiment with a
#: time limit (``time_limit_s``): "ok", "degenerate" (:func:`degenerate_reason`), "timeout"
#: or "failed" (:class:`FitFailure`). A run not "ok" has rows with empty metrics. A sweep row
#: is "failed" too, with empty metrics, when its clusterer raised on that selection.
FIT_STATUSES = ("ok", "degenerate", "timeout", "failed")


def _all_features_run(d):
    """The papers' "nofs": clustering on all ``d`` features, as a run of its own."""
    return _Run(ALL_FEATURES, np.arange(d), [d], {d}, {})


def evaluate(data_path, sweep_path, *, dataset, methods, rankings_dir, seeds, clusterers,
             grid_spec, metrics, baseline=False, nested=False, class_draw=None,
             references=None, time_limit_s=None):
    """One unit of work: rank ``dataset`` with each of ``methods`` for every seed, and cluster
    the top-m features with every clusterer for every m of the sweep (and, with ``baseline``,
    on all features: the papers' "nofs").

    Parameters
    ----------
    data_path, sweep_path : str
        The prepared ``.npz`` and the job's one sweep TSV (every method, seed, clusterer, m).
    methods : dict
        ``{key: spec}`` of the experiment; may be empty (the baseline alone).
    rankings_dir : str or None
        Where the rankings go: ``seed{S}.tsv`` (the ranking), ``seed{S}.json`` (its sidecar:
        run time, iterations, the method's own clustering scored against the classes) and, for
        methods whose arrays later steps read, ``seed{S}.npz``; in ``rankings_dir/{key}/`` when
        ``nested`` (one job for all methods of a dataset), else directly (one method).
    seeds, clusterers, grid_spec, metrics
        The experiment's repeats, ``{key: spec}`` of clusterers, sweep grid and metrics.
    baseline : bool
        Also cluster on all features.
    class_draw : int, optional
        Classes drawn per repeat (each seed sees its own draw; nothing is shared).
    references : dict
        ``{key: rankings directory}`` of methods of other jobs that a spec refers to.
    time_limit_s : float, optional
        Seconds one fit may take. Given, each fit runs in a child process killed at the limit
        (:func:`_rank_within`), and a fit that times out, raises or gives a degenerate ranking
        does not fail the job: its status and message go in its sidecar, and its sweep rows
        (a ``status`` column, :data:`FIT_STATUSES`) have empty metrics. A method that timed out
        at one seed is not fitted again at the later ones (recorded "timeout" too). A
        clusterer that raises on one selection does not fail the job either: that row has
        empty metrics, status "failed" and the error in a ``message`` column (there only when
        some clusterer failed). None: the fits run in this process and any error fails the
        job.

    A method with no random choice is fitted once and its ranking serves every seed, unless
    each seed draws its own classes. Rankings are written in a temporary directory renamed
    into place after the sweep TSV is written: a killed job leaves neither.
    """
    order = _dependency_order(methods, grid_spec)
    references = dict(references or {})
    with _rankings_folder(rankings_dir if methods else None) as folder:
        method_dirs = {key: (folder / key if nested else folder) for key in order}
        references.update(method_dirs)  # later methods of this job read earlier ones there
        rankers = _Rankers(methods, order, class_draw, references, time_limit_s)
        # relabelling clusterers: one fit serves every seed of a ranking that serves every
        # seed (and of all features); a ranking of one seed alone would only fill memory
        # (NJW keeps its n x n graph: 19 MB on Isolet)
        fitted = None if class_draw else {}
        frames = []
        for seed, ds in _repeats(data_path, dataset, seeds, class_draw):
            runs = [_record_ranking(ds, dataset, seed, key, methods[key], grid_spec,
                                    rankers.fitted(ds, dataset, seed, key), references,
                                    method_dirs[key], metrics,
                                    record_status=time_limit_s is not None) for key in order]
            if baseline:
                runs.append(_all_features_run(ds.X.shape[1]))
            if ds.y is not None and clusterers:  # unlabelled toy sets: rankings only
                frames += [_sweep_run(ds, dataset, seed, run, clusterers, metrics,
                                      fitted if rankers.recurs(run.key) else None,
                                      record_failures=time_limit_s is not None)
                           for run in runs]
        table = _sweep_table(frames, metrics)
        if time_limit_s is not None:
            table["status"] = table["status"].fillna("ok") if "status" in table else "ok"
        write_table_atomic(table, sweep_path, float_format="%.10g")


@contextlib.contextmanager
def _rankings_folder(rankings_dir):
    """The job's rankings folder, written whole or not at all (:func:`fsclust._io.atomic_dir`);
    None for a job with no method."""
    if rankings_dir is None:
        yield None
        return
    with atomic_dir(rankings_dir) as folder:
        yield folder


def _repeats(data_path, dataset, seeds, class_draw):
    """``(seed, view)`` for every repeat: the prepared data loaded once, or each seed's own
    class draw."""
    full = None if class_draw else load_view(data_path, dataset, seeds[0])
    for seed in seeds:
        yield seed, (full if full is not None else load_view(data_path, dataset, seed,
                                                             class_draw))


class _Rankers:
    """The fitted ranker of each method and repeat: a method whose scores make no random
    choice (:func:`_shares_ranking`) is fitted at the first seed and serves every later one,
    its own clustering re-drawn with that seed's stream (LLC-fs, Q-alpha from a uniform
    start: the same labels as a fit with it)."""

    def __init__(self, methods, order, class_draw, references, time_limit_s=None):
        self.methods, self.references = methods, references
        self.shares = {key: _shares_ranking(methods[key], class_draw) for key in order}
        self.shared = {}
        self.time_limit_s = time_limit_s
        self.timed_out = {}  # key -> the seed at which its fit hit the time limit

    def recurs(self, key):
        """Whether the run of ``key`` selects the same features at every seed: a shared
        ranking, or all features."""
        return key == ALL_FEATURES or self.shares.get(key, False)

    def fitted(self, ds, dataset, seed, key):
        """``(fit, shared)`` of method ``key`` at ``seed``: its :class:`Fit`, whose ranker is
        a :class:`FitFailure` when a fit under the time limit gave none."""
        spec = self.methods[key]
        if key not in self.shared:
            fit = self._fit(ds, dataset, seed, key, spec)
            if self.shares[key]:
                self.shared[key] = fit
            return fit, self.shares[key]
        ranker, random_state, seconds, max_rss_mb = self.shared[key]
        if (not isinstance(ranker, FitFailure) and hasattr(ranker, "labels_")
                and "random_state" in ranker.get_params()):
            random_state = _ranker_random_state(seed, dataset, key, spec)
            ranker.labels_ = ranker.relabel(random_state)
        return Fit(ranker, random_state, seconds, max_rss_mb), True

    def _fit(self, ds, dataset, seed, key, spec):
        kwargs = dict(dataset=dataset, method=key, spec=spec, seed=seed,
                      references=self.references)
        if self.time_limit_s is None:
            return _rank_one(ds, **kwargs)
        limit = method_time_limit(spec, self.time_limit_s)
        random_state = _ranker_random_state(seed, dataset, key, spec)
        if key in self.timed_out:
            # a fit that did not end within the limit at one seed would cost the limit again
            # at every later seed (the same data, another random start)
            return Fit(FitFailure("timeout", f"{NOT_FITTED}: the fit at seed "
                                  f"{self.timed_out[key]} exceeded the time limit of "
                                  f"{limit} s", 0.0), random_state, 0.0)
        fit = _rank_within(limit, ds, **kwargs)
        if not isinstance(fit, FitFailure):
            return fit
        if fit.status == "timeout":
            self.timed_out[key] = seed
        log.warning("%s on %s (seed %d): %s: %s", key, dataset, seed, fit.status, fit.message)
        return Fit(fit, random_state, fit.seconds, fit.max_rss_mb)


def _record_ranking(ds, dataset, seed, key, spec, grid_spec, fitted, references, out, metrics,
                    record_status=False):
    """Write one repeat's ranking of method ``key`` (ranking, sidecar, arrays) and return its
    :class:`_Run`: the sweep's points, and the selection at each (the top of the ranking, or
    each m's own subset for a method whose subsets are not nested). With ``record_status``
    (an experiment with a time limit) the sidecar and the run carry the fit's status; a
    :class:`FitFailure` writes its sidecar alone."""
    from fsclust.rankers.base import nested_selection, selected_features, tied_cuts

    (ranker, random_state, seconds, max_rss_mb), shared = fitted
    # a fit in a child process (the time limit) measured its own memory
    memory = {} if max_rss_mb is None else {"max_rss_mb": max_rss_mb}
    if isinstance(ranker, FitFailure):
        info = {"dataset": dataset, "method": key, "seed": seed, "random_state": random_state,
                "seconds": round(seconds, 3), "n_samples": int(ds.X.shape[0]),
                "n_features": int(ds.X.shape[1]), "status": ranker.status,
                "message": ranker.message, **memory}
        if shared:
            info["shared_by_seeds"] = True
        write_text_atomic(out / f"seed{seed}.json", json.dumps(info, indent=1) + "\n")
        points, grid, marks = sweep_grid(method_grid(spec, grid_spec), ds.X.shape[1], seed,
                                         references, method=key)
        return _Run(key, None, points, grid, marks, spec.get("clusterers"), ranker.status)
    log.info("%s on %s (seed %d -> random_state %d): %.2f s%s", key, dataset, seed,
             random_state, seconds, " (one ranking for every seed)" if shared else "")
    info = rank_sidecar(ranker, ds, dataset=dataset, method=key, seed=seed,
                        random_state=random_state, seconds=seconds, metrics=metrics)
    info.update(memory)
    if shared:
        info["shared_by_seeds"] = True
    points, grid, marks = sweep_grid(method_grid(spec, grid_spec), ds.X.shape[1], seed,
                                     references, ranker=ranker, X=ds.X, method=key)
    # a top-m set decided by a tie is decided by round-off or index order, not by the method
    info["tied_cuts"] = tied_cuts(ranker.scores_, ranker.feature_order_, points,
                                  ranker.constant_mask_)
    if info["tied_cuts"]:
        log.warning("%s on %s (seed %d): the top-m set is decided by a tie (scores within "
                    "1e-12) at m = %s", key, dataset, seed, ", ".join(map(str, info["tied_cuts"])))
    selection = None
    if not nested_selection(ranker):
        # one subset of exactly m features per m, kept in the sidecar (the ranking file
        # cannot say them)
        selection = {m: selected_features(ranker, m) for m in points}
        info["subsets"] = {str(m): v.tolist() for m, v in selection.items()}
    status = "ok"
    if record_status:
        reason = degenerate_reason(key, ranker)
        if reason is not None:
            status = "degenerate"
            info["message"] = reason
            log.warning("%s on %s (seed %d): degenerate: %s", key, dataset, seed, reason)
        info["status"] = status
    table = _write_ranking_files(out, seed, ranker, ds, info, keep=spec.get("keep"))
    if selection is None:
        selection = table["index"].to_numpy()
    return _Run(key, selection, points, grid, marks, spec.get("clusterers"), status)


def _sweep_run(ds, dataset, seed, run, clusterers, metrics, fitted=None,
               record_failures=False):
    """Cluster one run's selections with its clusterers; the rows of the sweep TSV.

    Every method's clusterer draws the same seed (the curves of different methods are
    paired); a clusterer's ``seed_key`` makes it draw another key's stream (every point of a
    clusterer grid the stream of one clusterer). ``fitted``, ``record_failures``: see
    :func:`fsclust.sweep.run_sweep`."""
    from fsclust.sweep import run_sweep

    start = time.perf_counter()
    used = {k: clusterers[k] for k in (run.clusterers or clusterers)}
    if run.status != "ok":
        # no ranking of the method's to cluster: the rows say so, with empty metrics
        result = pd.DataFrame([(k, m) for k in used for m in run.points],
                              columns=["clusterer", "n_features"])
        result[list(metrics)] = np.nan
        result["status"] = run.status
    else:
        states = {k: derive_seed(seed, dataset, spec.get("seed_key", k))
                  for k, spec in used.items()}
        result = run_sweep(ds.X, ds.y, run.selection, run.points, used,
                           n_clusters=ds.n_classes, random_states=states, metrics=metrics,
                           fitted=fitted, record_failures=record_failures)
        if "message" in result:
            for row in result[result["status"] == "failed"].itertuples():
                log.warning("%s / %s seed %d: %s on the top %d failed: %s", dataset, run.key,
                            seed, row.clusterer, row.n_features, row.message)
    log.info("%s / %s seed %d: %d clusterer(s) x %d points in %.2f s", dataset, run.key, seed,
             len(used), len(run.points), time.perf_counter() - start)
    for name, value in (("seed", seed), ("method", run.key), ("dataset", dataset)):
        result.insert(0, name, value)
    # in_grid: a point of the curves; selected_by: a data-dependent m of this seed
    # (Maldonado's Table 3, Zhang's Table 2), left out of the curves unless on the grid
    result["in_grid"] = [int(m in run.grid) for m in result["n_features"]]
    result["selected_by"] = [",".join(run.marks.get(m, [])) for m in result["n_features"]]
    return result


def _sweep_table(frames, metrics):
    """The job's sweep TSV: every run's rows, in the fixed column order, then the attributes
    the clusterers report (:func:`fsclust.sweep.reported_values`), if any."""
    columns = [*SWEEP_KEYS, *metrics, "in_grid", "selected_by"]
    if not frames:
        return pd.DataFrame(columns=columns)
    table = pd.concat(frames, ignore_index=True)
    return table[columns + [c for c in table.columns if c not in columns]]


def aggregate(sweep_paths, metrics, out, skipped=None, figures_dir=None, datasets=(),
              experiment=None):
    """Write all sweep rows, the per-m summary over seeds and the best/mean table; with
    ``figures_dir``, one figure per dataset of ``datasets`` (``{dataset}.png``) as well.

    ``skipped`` maps a dataset the experiment lists but could not get to the reason; the
    Markdown table says so, so a gap is never silent. Figures are drawn in a temporary
    directory renamed into place, so a killed job leaves no partial set."""
    from fsclust.report import best_and_mean, collect_sweeps, summarise, write_tables

    sweeps = collect_sweeps(sweep_paths)
    summary = summarise(sweeps, metrics)
    best = best_and_mean(summary)
    write_table_atomic(sweeps, out["sweeps"], float_format="%.10g")
    write_table_atomic(summary, out["summary"], float_format="%.10g")
    note = ("Mean over seeds. best_mean: the best mean over the sweep, at best_n_features "
            "(an oracle choice of m, made with the labels); sweep_mean: mean over the sweep; "
            "all_features_mean: the clusterer on all features (nofs).")
    for dataset, reason in sorted((skipped or {}).items()):
        note += f"\n\n**Skipped dataset {dataset}**: {reason}"
    write_tables(best, out["best"], out["best_md"], title="Best and mean over the sweep",
                 note=note, float_format="%.10g")
    if figures_dir is not None:
        from fsclust.report import plot_sweeps

        with atomic_dir(figures_dir) as folder:
            for dataset in datasets:
                title = f"{experiment}: {dataset}" if experiment else dataset
                plot_sweeps(summary, dataset, metrics, folder / f"{dataset}.png", title=title)


def compare(summary_path, paper_results_path, comparisons, out_path, out_md=None, skipped=None,
            extra=()):
    """Write ``paper_vs_ours.tsv`` (and a Markdown copy) for an experiment: the rows the config's
    ``comparisons`` select, then the rows of ``extra`` tables made by a paper's own rules."""
    from fsclust.report import paper_vs_ours, write_tables
    from fsclust.report.paper import PAPER_VS_OURS_COLUMNS, read_paper_results

    summary = pd.read_csv(summary_path, sep="\t")
    table = paper_vs_ours(read_paper_results(paper_results_path), comparisons, summary)
    for path in extra:
        rows = pd.read_csv(path, sep="\t")
        if list(rows.columns) != PAPER_VS_OURS_COLUMNS:
            raise ValueError(f"{path}: columns {list(rows.columns)} are not those of "
                             f"paper_vs_ours.tsv ({PAPER_VS_OURS_COLUMNS})")
        table = pd.concat([table, rows], ignore_index=True) if len(table) else rows
    for dataset, reason in (skipped or {}).items():
        hit = [c.get("ours", {}).get("dataset") == dataset for c in comparisons]
        table.loc[hit, "note"] = (table.loc[hit, "note"] + f"; skipped: {reason}").str.strip("; ")
    note = ("This experiment compares against no paper." if table.empty else
            "diff = ours - paper; differing numbers are shown, never tuned away.")
    write_tables(table, out_path, out_md or None, title="Paper vs ours", note=note)
