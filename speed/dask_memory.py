"""Past one machine's memory (issue 42): each Dask worker's peak memory against the block size
and against the number of cells, for the Laplacian score of a chunked store.

    python speed/dask_memory.py --cells 100000 --block-cells 5000,10000,25000
    python speed/dask_memory.py --cells 10000,100000 --block-cells 10000
    python speed/dask_memory.py --cells 1000000 --block-cells 25000 --memory-limit 4GB

The stores are the synthetic counts of ``results/speed/singlecell_data`` (speed/singlecell_scale.py
writes them: 2 x 10^4 genes, 10 types with 50 planted markers; ``synthetic_{n}x20000.h5ad``,
or ``synthetic_{n}x20000_d{density}.h5ad`` with ``--density``). Each run starts a
``dask.distributed.LocalCluster`` of ``--workers`` worker processes (one thread each) with a
memory limit per worker, reads the store lazily in blocks of ``--block-cells`` cells
(:func:`fsclust.counts.chunked.read_chunked`) and ranks every gene
(:func:`fsclust.pp.rank_genes`, the single-cell preset). A thread in every worker samples the
worker's resident memory (psutil) every 20 ms; the table gives each worker's peak, the
worker's memory before the run (the interpreter and its libraries), the calling process's
peak (which holds the embedding, the kNN search and the graph: not chunked) and the wall time.
Rows go to ``results/speed/dask_memory.tsv`` (earlier rows kept).
"""

from __future__ import annotations

import argparse
import os
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "results" / "speed" / "singlecell_data"
OUT = ROOT / "results" / "speed" / "dask_memory.tsv"

class Sampler:
    """This process's peak resident memory, sampled every 20 ms by a thread until stopped."""

    def __init__(self):
        import psutil

        self.process = psutil.Process()
        self.start = self.peak = self.process.memory_info().rss
        self.stop_event = threading.Event()
        threading.Thread(target=self._sample, daemon=True).start()

    def _sample(self):
        while not self.stop_event.is_set():
            self.peak = max(self.peak, self.process.memory_info().rss)
            self.stop_event.wait(0.02)

    def stop(self):
        self.stop_event.set()
        return self.peak


def _start_sampler(dask_worker):
    """In a worker (client.run): its sampler, kept on the worker object (nothing pickled)."""
    dask_worker.fsclust_sampler = Sampler()
    return dask_worker.fsclust_sampler.start


def _stop_sampler(dask_worker):
    return dask_worker.fsclust_sampler.stop()


def store(cells, density):
    name = f"synthetic_{cells}x20000" + (f"_d{density:g}" if density else "") + ".h5ad"
    path = DATA / name
    if not path.exists():
        raise SystemExit(f"{path} is missing: write it with python speed/singlecell_scale.py "
                         f"--cells {cells}" + (f" --density {density:g}" if density else ""))
    return path


def run(path, block_cells, workers, memory_limit, method):
    from dask.distributed import Client, LocalCluster

    from fsclust.counts.chunked import read_chunked
    from fsclust.pp import rank_genes

    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      memory_limit=memory_limit, dashboard_address=":0") as cluster, \
            Client(cluster) as client:
        before = client.run(_start_sampler)
        caller = Sampler()
        lazy = read_chunked(path, block_cells=block_cells)
        start = time.perf_counter()
        rank_genes(lazy.X, method)
        seconds = time.perf_counter() - start
        peaks = client.run(_stop_sampler)
        return lazy.X, before, peaks, caller.start, caller.stop(), seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", default="100000")
    parser.add_argument("--block-cells", default="10000")
    parser.add_argument("--density", type=float, default=None)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--memory-limit", default="2GB")
    parser.add_argument("--method", default="laplacian")
    args = parser.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    gib = 2**30
    rows = []
    for cells in map(int, args.cells.split(",")):
        path = store(cells, args.density)
        for block in map(int, args.block_cells.split(",")):
            X, before, peaks, _, caller_peak, seconds = run(
                path, block, args.workers, args.memory_limit, args.method)
            worker_peaks = [peaks[w] / gib for w in sorted(peaks)]
            worker_before = [before[w] / gib for w in sorted(before)]
            row = (f"{args.method}\t{cells}\t{X.shape[1]}\t{block}\t{len(X.chunks[0])}\t"
                   f"{args.workers}\t{args.memory_limit}\t"
                   + ",".join(f"{p:.2f}" for p in worker_peaks) + "\t"
                   + ",".join(f"{p:.2f}" for p in worker_before) + "\t"
                   f"{caller_peak / gib:.2f}\t{seconds:.0f}\t{path.name}")
            print(row, flush=True)
            rows.append(row)
    header = ("method\tcells\tgenes\tblock_cells\tblocks\tworkers\tmemory_limit\t"
              "worker_peak_gib\tworker_start_gib\tcaller_peak_gib\tseconds\tstore")
    OUT.parent.mkdir(parents=True, exist_ok=True)
    old = OUT.read_text().splitlines()[1:] if OUT.exists() else []
    OUT.write_text("\n".join([header, *old, *rows]) + "\n")


if __name__ == "__main__":
    main()
