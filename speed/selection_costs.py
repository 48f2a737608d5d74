"""Seconds of one ranker fit on a 0.8 subsample, per selector resample (issue 23).

The `selection` experiment (config/experiments/selection.yaml) runs here only the methods
whose fit takes under `max_seconds_per_resample`; this measures `seconds_per_resample`: one
thread, process time, times the 9 values of K (2..10) for a ranker fitted once per K.

    python speed/selection_costs.py data/prepared/uci-waveform.npz variance laplacian spec
"""
import inspect
import sys
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from fsclust.datasets import load_dataset
from fsclust.registry import make_ranker, ranker_class
from fsclust.selection import subsample_size

N_K = 9  # K = 2..10, the selector's default range


def main(path, methods):
    X = load_dataset(path).X
    rows = np.sort(np.random.RandomState(0).choice(
        X.shape[0], subsample_size(0.8, X.shape[0]), replace=False))
    for method in methods:
        cls = ranker_class(method)
        # one fit per K, unless its scores for every K come from one fit (MCFS)
        takes_k = ("n_clusters" in inspect.signature(cls.__init__).parameters
                   and not hasattr(cls, "scores_for_n_clusters"))
        start = time.process_time()
        with threadpool_limits(1):
            make_ranker(method, None, n_clusters=2 if takes_k else None,
                        random_state=0).fit(X[rows])
        seconds = (time.process_time() - start) * (N_K if takes_k else 1)
        print(f"{Path(path).stem}\t{X[rows].shape}\t{method}\t{seconds:.2f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
