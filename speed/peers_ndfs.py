"""NDFS side by side with its reference implementations: agreement, reference bugs, speed.

Usage: python speed/peers_ndfs.py [--repeats 7] [--peer-repeats 7] [--fsasl DIR]
                                       [--no-timing] [--datasets NAME ...] [--out TSV]

1. Agreement of scores (Spearman correlation, overlap of the top 100, largest relative
   difference) under each reproduction recipe, on the first 100 columns of warpAR10P
   (z-scored), from the reference's own start ``F0``:

   * ``skfeature``: scikit-feature's ``ndfs`` (pip ``skfeature-chappers``) against our
     weighted ridge (:class:`~fsclust.rankers._sparse_learning.WeightedRidge`) and F-step run
     with its "Laplacian" (2.), its ``1e-6 I``, ``D0 = I``, clamp ``1e-16``, ``gamma = 1e9``,
     W-step before F-step and stop ``|dJ| < 1e-3`` on its objective. Its ``F0`` cannot be
     passed (2.): its k-means start is reproduced by seeding NumPy's global generator;
   * ``fsasl``: FSASL's ``fs_unsup_ndfs`` under GNU Octave (a copy patched in a temporary
     directory to return ``W``, ``L`` and ``F0`` as well) against the same steps on its ``L``
     and ``F0``: ``W0 = ones``, 100 iterations, ``eps`` in the multiplicative rule and the
     column normalisation; and FSASL's ``L`` against ours (``knn_graph`` with Cai's kernel at
     ``t = 2 optSigma^4``, its ``t = optSigma^2`` being the width of ``exp(-d^2 / (2 t^2))``);
   * ``defaults``: ``NDFS()`` against ``ndfs()`` at both sides' defaults on warpAR10P and
     TOX-171 (with the timing, 3.).

2. scikit-feature's bugs, shown on the same data: ``L = np.array(W.sum(1))[:, 0] - W``
   broadcasts to ``L_ij = deg_j - W_ij`` (dense, ``L 1 != 0``, indefinite after
   symmetrisation) instead of ``diag(deg) - W``; ``ndfs(X, F0=...)`` raises
   ``UnboundLocalError`` (``n_clusters`` is only set when ``F0`` is absent).

3. Time from X to scores, one BLAS thread, both sides at their defaults (ours
   ``NDFS(n_clusters=5, random_state=0)``, theirs ``ndfs(X, n_clusters=5)``: cosine binary
   graph, ``gamma = 1e9``), alternating in one process, median [min, max], on warpAR10P and
   TOX-171 (z-scored), and our peak traced memory there and on 200 x 20000 N(0, 1).

No assertion: the script prints the tables and writes ``results/speed/peers_ndfs.tsv``.
"""

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.cluster import KMeans
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parent))

from peers_udfs import (REPO, DATASETS, agreement, alternate, load, peak_mb,  # noqa: E402
                        run_octave, summary)

from fsclust.graphs import knn_graph, laplacian  # noqa: E402
from fsclust.rankers._sparse_learning import WeightedRidge, row_norms_sq  # noqa: E402
from fsclust.rankers.ndfs import NDFS, REFERENCE_SETTINGS  # noqa: E402

MACHINE_EPS = np.finfo(float).eps
#: FSASL's NDFS at its driver's settings, the copy of ``patched_fsasl`` first on the path; the
#: timing (``tic``) starts after ``optSigma`` (the n x n distances of the heat kernel's width)
FSASL_NDFS = ("t = optSigma(X)^2; tic; "
              "[idx, W, L, F0] = fs_unsup_ndfs(X, {c}, struct('k', {k}, 'weightMode', "
              "'HeatKernel', 't', t, 'alpha', 1, 'beta', 1, 'gamma', 1e8, 'maxiter', 100)); "
              "seconds = toc; scores = sqrt(sum(W.*W, 2)); sigma = sqrt(t);")


def skfeature_start(X, c, seed):
    """scikit-feature's ``kmeans_initialization`` as it runs after ``np.random.seed(seed)``:
    ``Y (Y^T Y)^{-1/2} + 0.02`` from k-means labels (its KMeans takes the global generator)."""
    np.random.seed(seed)
    labels = KMeans(n_clusters=c, init="k-means++", n_init=10, max_iter=300, tol=1e-4,
                    random_state=None).fit(X).labels_
    Y = np.eye(c)[labels]
    return Y / np.sqrt(Y.sum(0)) + 0.02


def skfeature_laplacian(graph):
    """What scikit-feature's ``np.array(W.sum(1))[:, 0] - W`` gives for a sparse ``W``."""
    deg = np.asarray(graph.sum(1)).ravel()
    return np.asarray(deg[None, :] - graph.toarray())


def skfeature_recipe(X, graph, F, alpha=1.0, beta=1.0, gamma=1e9):
    """scikit-feature's iteration on our weighted ridge: its ``1e-6 I`` is the weight
    ``beta E^{-1} = beta D + 1e-6 I``."""
    L = skfeature_laplacian(graph)
    L = (L + L.T) / 2  # its M = (M + M^T) / 2 acts on L alone (the hat part is symmetric)
    c = F.shape[1]
    D = np.ones(X.shape[1])
    previous = None
    for _ in range(1000):
        ridge = WeightedRidge(X, beta / (beta * D + 1e-6), beta)
        W, residual = ridge.solve(F)
        D = 0.5 / np.maximum(np.sqrt(row_norms_sq(W)), 1e-16)
        MF = L @ F + alpha * residual
        F = F * (gamma * F) / (MF + gamma * F @ (F.T @ F))
        F = F * np.sqrt(1.0 / (np.diag(F.T @ F) + 1e-16))
        _, residual = ridge.solve(F)
        J = (np.trace(F.T @ (L @ F + alpha * residual))
             + gamma / 4 * np.linalg.norm(F.T @ F - np.eye(c)))
        if previous is not None and abs(J - previous) < 1e-3:
            break
        previous = J
    return np.sqrt(row_norms_sq(W))


def fsasl_recipe(X, L, F, n_iter=100, alpha=1.0, beta=1.0, gamma=1e8):
    """FSASL's ``NDFS_iter`` on our weighted ridge: ``W0 = ones``, W-step first, ``eps``
    in the rule and the normalisation."""
    c = F.shape[1]
    E = np.full(X.shape[1], 2.0 * np.sqrt(c + MACHINE_EPS))
    for _ in range(n_iter):
        W, residual = WeightedRidge(X, E, beta).solve(F)
        E = 2.0 * np.sqrt(row_norms_sq(W) + MACHINE_EPS)
        MF = L @ F + alpha * residual
        F = F * (gamma * F + MACHINE_EPS) / (MF + gamma * F @ (F.T @ F) + MACHINE_EPS)
        F = F * np.sqrt(1.0 / (np.diag(F.T @ F) + MACHINE_EPS))
    return np.sqrt(row_norms_sq(W))


def patched_fsasl(fsasl, tmp):
    """A copy of ``fs_unsup_ndfs.m`` in ``tmp`` that also returns ``W``, ``L`` and ``F0``."""
    source = (Path(fsasl) / "fs_unsup_ndfs.m").read_text().replace("\r\n", "\n")
    head = "function idx = fs_unsup_ndfs(X, nClass, param)"
    assert head in source, "FSASL's fs_unsup_ndfs.m changed"
    (Path(tmp) / "fs_unsup_ndfs.m").write_text(source.replace(
        head, "function [idx, W, L, F_init] = fs_unsup_ndfs(X, nClass, param)").replace(
        "[~, idx] = sort(sum(W.*W,2),'descend');\nend",
        "[~, idx] = sort(sum(W.*W,2),'descend');\n[L, F_init] = NDFS_init(X, nClass, param);\nend"))
    # litekmeans calls randsample, which Octave has only in the Forge statistics package; a
    # draw without replacement serves (the start F0 is read back and given to both sides)
    (Path(tmp) / "randsample.m").write_text("function y = randsample(n, k)\n"
                                            "y = randperm(n, k);\nend\n")


def recipes(fsasl, k=5, c=5, seed=0):
    """Section 1 of the docstring, and section 2's crash."""
    from skfeature.function.sparse_learning_based.NDFS import ndfs

    rows, notes = [], []
    X = load("warpAR10P")[:, :100]
    graph = knn_graph(X, k)
    F0 = skfeature_start(X, c, seed)
    np.random.seed(seed)
    theirs = np.sqrt(row_norms_sq(ndfs(X, W=graph, n_clusters=c, mode="raw")))
    ours = skfeature_recipe(X, graph, F0)
    rows.append({"recipe": "skfeature", "data": "warpAR10P[:, :100]", **agreement(ours, theirs)})
    try:
        ndfs(X, W=graph, F0=F0, mode="raw")
        notes.append("ndfs(X, F0=...) ran")
    except UnboundLocalError as error:
        notes.append(f"ndfs(X, W=..., F0=...) raises UnboundLocalError: {error}")
    if fsasl:
        with tempfile.TemporaryDirectory() as tmp:
            patched_fsasl(fsasl, tmp)
            out = run_octave(fsasl, FSASL_NDFS.format(c=c, k=k), {"X": X},
                             outputs=("scores", "seconds", "L", "F0", "sigma"), path=(tmp,))
        L, F_init, sigma = out["L"], out["F0"], float(out["sigma"].item())
        L = L.toarray() if sp.issparse(L) else L
        ours = fsasl_recipe(X, L, F_init)
        rows.append({"recipe": "fsasl (Octave)", "data": "warpAR10P[:, :100]",
                     **agreement(ours, out["scores"].ravel())})
        ours_L, _ = laplacian(knn_graph(X, k, t=2.0 * sigma**4), "sym")
        notes.append("FSASL's L against ours at t = 2 optSigma^4: max |diff| = "
                     f"{np.abs(ours_L.toarray() - L).max():.3g}")
    return pd.DataFrame(rows), notes


def broadcast_bug(k=5):
    """Section 2: scikit-feature's "Laplacian" against ``diag(deg) - W``."""
    X = load("warpAR10P")[:, :100]
    graph = knn_graph(X, k)
    rows = []
    for label, L in (("scikit-feature", skfeature_laplacian(graph)),
                     ("diag(deg) - W", laplacian(graph)[0].toarray())):
        sym = (L + L.T) / 2
        vals = np.linalg.eigvalsh(sym)
        rows.append({"L": label, "nonzeros": int(np.count_nonzero(L)),
                     "max |L 1|": float(np.abs(L.sum(1)).max()),
                     "min eigenvalue of (L + L^T)/2": float(vals[0])})
    return pd.DataFrame(rows)


def timing(repeats, peer_repeats, datasets=(*DATASETS, "wide"), c=5):
    """Section 3, with the ``defaults`` agreement of the last runs."""
    from skfeature.function.sparse_learning_based.NDFS import ndfs

    rows, agree = [], []
    for name in [name for name in datasets if name in DATASETS]:
        X = load(name)
        result = {}

        def ours():
            result["ours"] = NDFS(n_clusters=c, random_state=0,
                                  **REFERENCE_SETTINGS).fit(X).scores_

        def theirs():
            np.random.seed(0)
            result["theirs"] = np.sqrt(row_norms_sq(ndfs(X, n_clusters=c, mode="raw")))

        times = alternate(ours, theirs, repeats, peer_repeats)
        agree.append({"recipe": "defaults", "data": name,
                      **agreement(result["ours"], result["theirs"])})
        with threadpool_limits(1):
            mb = peak_mb(ours)
        rows.append({"data": name, "n x d": f"{X.shape[0]} x {X.shape[1]}",
                     "ours_s": summary(times["ours"]), "skfeature_s": summary(times["theirs"]),
                     "speedup": round(statistics.median(times["theirs"])
                                      / statistics.median(times["ours"]), 1),
                     "ours_peak_MB": round(mb, 1)})
    if "wide" not in datasets:
        return pd.DataFrame(rows), pd.DataFrame(agree)
    X = np.random.RandomState(0).randn(200, 20000)
    with threadpool_limits(1):
        t0 = time.perf_counter()
        mb = peak_mb(lambda: NDFS(n_clusters=c, random_state=0, **REFERENCE_SETTINGS).fit(X))
        seconds = time.perf_counter() - t0
    rows.append({"data": "N(0,1)", "n x d": "200 x 20000", "ours_s": f"{seconds:.3g} (x1, traced)",
                 "skfeature_s": "not run (d x d inverse, 3.2 GB)", "speedup": None,
                 "ours_peak_MB": round(mb, 1)})
    return pd.DataFrame(rows), pd.DataFrame(agree)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--peer-repeats", type=int, default=7,
                        help="scikit-feature's runs (TOX-171: many minutes each)")
    parser.add_argument("--fsasl", default=None,
                        help="a directory holding FSASL's .m files (none: no Octave row)")
    parser.add_argument("--no-timing", action="store_true")
    parser.add_argument("--datasets", nargs="+", default=[*DATASETS, "wide"],
                        choices=[*DATASETS, "wide"],
                        help="the timed sets; wide: our time and memory on 200 x 20000")
    parser.add_argument("--out", default=str(REPO / "results" / "speed" / "peers_ndfs.tsv"))
    args = parser.parse_args(argv)
    pd.set_option("display.width", 200)
    agreement_table, notes = recipes(args.fsasl)
    tables = {"agreement": agreement_table, "broadcast bug": broadcast_bug()}
    if not args.no_timing:
        tables["timing"], defaults = timing(args.repeats, args.peer_repeats, args.datasets)
        tables["agreement"] = pd.concat([agreement_table, defaults], ignore_index=True)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w") as fh:
        for title, table in tables.items():
            print(f"\n## {title}\n{table.to_string(index=False)}")
            fh.write(f"# {title}\n")
            table.to_csv(fh, sep="\t", index=False)
        for note in notes:
            print(note)
            fh.write(f"# {note}\n")
    print(f"\nwritten {out}")


if __name__ == "__main__":
    main()
