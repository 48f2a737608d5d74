"""The six peers against their MATLAB references under GNU Octave on microarray data: speed.

Usage: python speed/peers_octave_speed.py --fsasl DIR --refs DIR --auto DIR
           [--datasets ID ...] [--methods NAME ...] [--repeats 7] [--peer-repeats 7]
           [--timeout 900] [--out TSV]

``--fsasl`` holds FSASL's ``.m`` files (``csliangdu/FSASL``: UDFS, NDFS, JELSR), ``--refs``
``infFS.m``, ``InfFS_U.m`` and ``fs_unsup_rufs.m``, ``--auto`` AutoUFSTool's ``UFSs/SOGFS``;
all fetched for comparison only, never copied into this repository, and called the way
``peers_{udfs,ndfs,rufs,jelsr,inffs,sogfs}.py`` call them (their functions are imported, so
that one call is declared once). The data are catalog entries (``config/datasets.tsv``) read
from the mirror (``$FSCLUST_MIRROR``) with their preparation recipe, then z-scored, as the
peers_* scripts do (Inf-FS: the raw data, as ``peers_inffs`` does; z-scored columns make
its standard-deviation term round-off); ``c`` = the number of classes.

Time from X to scores, one BLAS thread on both sides, alternating ours and theirs, median
[min, max] of ``--repeats`` (ours) and ``--peer-repeats`` (theirs) runs:

* ours: ``fit`` under ``threadpoolctl.threadpool_limits(1)``, wall clock around the call;
* theirs: ``tic``/``toc`` inside Octave around the reference's call(s) from X to scores, so
  that Octave's start-up and the transfer of X are not counted; Octave runs with
  ``OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1`` at this script's priority (the peers_*
  helpers start it under ``nice``: a pass-through ``nice`` first on the children's PATH
  undoes that, so that both sides compete equally with the other work on the machine).

Each reference at its defaults as its peers_* script defines them, ours at ours:

* UDFS: ``LocalDisAna`` + ``fs_unsup_udfs`` (20 eigen-steps on ``d x d``) with our
  ``UDFS(n_clusters=c)``'s ``k``, ``lambda``, ``gamma``;
* NDFS: ``fs_unsup_ndfs`` (heat kernel at ``optSigma``, 100 iterations of a ``d x d``
  inverse; ``optSigma`` outside ``tic``) against ``NDFS(n_clusters=c, random_state=0)``;
* RUFS: FSASL's pipeline from X (``litekmeans`` with 10 replicates, ``localLearnMx_KRR``,
  then ``fs_unsup_rufs``, the call given our ``G0`` and ``L`` so that the agreement compares
  the iteration; see ``peers_rufs``), against ``RUFS(init="one-hot")`` whose time includes
  its k-means start (10 restarts) and its ``L``;
* JELSR: ``fs_unsup_jelsr_liang`` (its LLE graph included; 20 fixed iterations) against
  ``JELSR(n_clusters=c)`` (up to 100) and, as ``jelsr-20``, against
  ``JELSR(n_clusters=c, max_iter=20, tol=0)``: the same number of iterations;
* Inf-FS: both recipes of ``peers_inffs`` (the 2015 and 2020 codes, ``alpha = 0.5``);
* SOGFS: ``SOGFS(X, 100, 4, c, 5)`` against ``SOGFS(n_clusters=c, random_state=0)``; a
  reference run longer than ``--timeout`` seconds is stopped and reported as a lower bound
  (and not repeated).

Also the agreement of the two score vectors of the last runs (Spearman, top-100 overlap,
largest relative difference), our iterations (``n_iter_``), the 1-minute load average
(``os.getloadavg``) before and after each row, and the BLAS each side links (Octave's
``version -blas``; NumPy's from ``threadpoolctl``). No assertion: the script prints a
markdown table and writes ``results/speed/peers_octave_speed.tsv``.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_info, threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parent))
import peers_inffs  # noqa: E402
import peers_jelsr  # noqa: E402
import peers_rufs  # noqa: E402
import peers_sogfs  # noqa: E402
from peers_ndfs import FSASL_NDFS, patched_fsasl  # noqa: E402
from peers_udfs import (FSASL_UDFS, MIRROR, REPO, agreement, run_octave,  # noqa: E402
                        summary, zscore)

from fsclust.datasets import load_catalog, prepare  # noqa: E402
from fsclust.datasets.loaders import load_raw  # noqa: E402
from fsclust.rankers.inffs import InfFS  # noqa: E402
from fsclust.rankers.jelsr import JELSR  # noqa: E402
from fsclust.rankers.ndfs import NDFS  # noqa: E402
from fsclust.rankers import jelsr, ndfs, sogfs, udfs  # noqa: E402
from fsclust.rankers.sogfs import SOGFS  # noqa: E402
from fsclust.rankers.udfs import UDFS  # noqa: E402

METHODS = ("udfs", "ndfs", "rufs", "jelsr", "jelsr-20", "inffs-2015", "inffs-2020", "sogfs")


def load(dataset):
    """A catalog entry from the mirror: prepared by its recipe and z-scored; raw (before any
    recipe); and its number of classes."""
    entry = load_catalog(REPO / "config" / "datasets.tsv")[dataset]
    paths = [str(MIRROR / f) for f in entry.files]
    prepared = zscore(np.asarray(prepare(entry, paths).X, dtype=np.float64))
    raw = load_raw(entry, paths)
    return prepared, np.asarray(raw.X, dtype=np.float64), raw.n_classes


def pairs(method, X, c, args, workdir):
    """``(model, theirs)``: our estimator, and theirs returning ``(scores or None, seconds)``,
    on ``X``."""
    if method == "udfs":
        model = UDFS(n_clusters=c, **udfs.REFERENCE_SETTINGS)
        call = FSASL_UDFS.format(k=model.n_neighbors, lam=model.lam, c=c, gamma=model.gamma)

        def theirs():
            out = run_octave(args.fsasl, call, {"X": X})
            return out["scores"].ravel(), float(out["seconds"].ravel()[0])
    elif method == "ndfs":
        model = NDFS(n_clusters=c, random_state=0, **ndfs.REFERENCE_SETTINGS)
        patched_fsasl(args.fsasl, workdir)

        def theirs():
            out = run_octave(args.fsasl, FSASL_NDFS.format(c=c, k=model.n_neighbors),
                             {"X": X}, path=(workdir,))
            return out["scores"].ravel(), float(out["seconds"].ravel()[0])
    elif method == "rufs":
        model, G0, L = peers_rufs.shared_inputs(X, c)

        def theirs():
            return peers_rufs.octave(args.refs, X, G0, L, workdir, args.timeout, args.fsasl)
    elif method in ("jelsr", "jelsr-20"):
        # jelsr-20: the reference's own 20 fixed iterations, for the ratio at equal work
        model = (JELSR(n_clusters=c, **jelsr.REFERENCE_SETTINGS) if method == "jelsr"
                 else JELSR(n_clusters=c, max_iter=20, tol=0.0, **jelsr.REFERENCE_SETTINGS))

        def theirs():
            return peers_jelsr.liang(args.fsasl, X, c)
    elif method.startswith("inffs"):
        variant = method.split("-")[1]
        _, params, call = next(r for r in peers_inffs.RECIPES if r[1]["variant"] == variant)
        model = InfFS(**params)
        (Path(workdir) / "corr.m").write_text(peers_inffs.SPEARMAN_SHIM)

        def theirs():
            return peers_inffs.octave(args.refs, X, call, workdir)
    elif method == "sogfs":
        model = SOGFS(n_clusters=c, random_state=0, **sogfs.REFERENCE_SETTINGS)

        def theirs():
            return peers_sogfs.reference(args.auto, X, c=c, timeout=args.timeout)
    return model, theirs


def alternate(ours, theirs, repeats, peer_repeats):
    """Ours (one BLAS thread, wall clock) and theirs (Octave's own clock) in turn; the times
    and the scores of the last runs. A reference past its timeout is not run again."""
    mine, their_times, scores = [], [], {}
    for r in range(max(repeats, peer_repeats)):
        if r < repeats:
            with threadpool_limits(1):
                t0 = time.perf_counter()
                scores["ours"] = ours()
                mine.append(time.perf_counter() - t0)
        if r < peer_repeats and not (their_times and np.isinf(their_times[-1])):
            result, seconds = theirs()
            their_times.append(seconds)
            if result is not None:
                scores["theirs"] = result
    return mine, their_times, scores


def row(method, dataset, prepared, raw, c, args):
    # Inf-FS on raw data, as peers_inffs: on z-scored columns every standard deviation is 1 up
    # to round-off, and its sigma_ij rescales their spread to [0, 1], i.e. amplifies round-off
    X = raw if method.startswith("inffs") else prepared
    load_start = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as workdir:
        model, theirs = pairs(method, X, c, args, workdir)
        mine, their_times, scores = alternate(lambda: model.fit(X).scores_, theirs,
                                              args.repeats, args.peer_repeats)
    a, b = statistics.median(mine), statistics.median(their_times)
    stopped = np.isinf(b)
    out = {"method": method, "data": dataset, "n x d": f"{X.shape[0]} x {X.shape[1]}", "c": c,
           "ours_s": summary(mine),
           "octave_s": f"> {args.timeout:g} (x1, stopped)" if stopped else summary(their_times),
           "ratio": f"> {args.timeout / a:.0f}" if stopped else f"{b / a:.1f}",
           "ours_iter": getattr(model, "n_iter_", None)}
    if "theirs" in scores:
        out.update({k: float(f"{v:.4g}")
                    for k, v in agreement(scores["ours"], scores["theirs"]).items()})
    out.update(load_start=round(load_start, 2), load_end=round(os.getloadavg()[0], 2))
    return out


def blas_note():
    octave = subprocess.run(["octave-cli", "--no-gui", "--eval", "disp(version('-blas'))"],
                            capture_output=True, text=True).stdout.strip()
    numpy = "; ".join(f"{i['internal_api']} {i['version']} ({i.get('architecture')})"
                      for i in threadpool_info() if i["user_api"] == "blas")
    return f"BLAS: ours {numpy}; Octave {octave or 'unknown'}"


def markdown(table):
    cells = table.astype(object).where(table.notna(), "")
    lines = ["| " + " | ".join(map(str, table.columns)) + " |",
             "|" + "---|" * len(table.columns)]
    return "\n".join(lines + ["| " + " | ".join(map(str, r)) + " |" for r in cells.values])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fsasl", required=True, help="directory of FSASL's .m files")
    parser.add_argument("--refs", required=True,
                        help="directory of infFS.m, InfFS_U.m and fs_unsup_rufs.m")
    parser.add_argument("--auto", required=True, help="directory of AutoUFSTool's UFSs/SOGFS")
    parser.add_argument("--datasets", nargs="+", default=["monti-leukemia"],
                        help="catalog ids (default: Golub's leukemia, 38 x 999)")
    parser.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--peer-repeats", type=int, default=7)
    parser.add_argument("--timeout", type=float, default=900.0,
                        help="seconds for one SOGFS or RUFS reference run; past it, a bound")
    parser.add_argument("--out", default=str(REPO / "results" / "speed"
                                             / "peers_octave_speed.tsv"))
    args = parser.parse_args(argv)
    # Octave inherits one BLAS thread and, through a pass-through nice, our priority
    os.environ.update(OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    bindir = tempfile.mkdtemp()
    (Path(bindir) / "nice").write_text('#!/bin/sh\nexec "$@"\n')
    (Path(bindir) / "nice").chmod(0o755)
    os.environ["PATH"] = f"{bindir}{os.pathsep}{os.environ['PATH']}"
    notes = [blas_note(), f"load average at start: {os.getloadavg()}"]
    print(notes[0], notes[1], sep="\n", flush=True)
    rows = []
    for dataset in args.datasets:
        prepared, raw, c = load(dataset)
        for method in args.methods:
            rows.append(row(method, dataset, prepared, raw, c, args))
            print(rows[-1], flush=True)
    notes.append(f"load average at end: {os.getloadavg()}")
    table = pd.DataFrame(rows)
    print(f"\n{markdown(table)}\n\n" + "\n".join(notes))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w") as fh:
        fh.writelines(f"# {note}\n" for note in notes)
        table.to_csv(fh, sep="\t", index=False)
    print(f"written {out}")


if __name__ == "__main__":
    main()
