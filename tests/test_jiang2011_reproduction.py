"""Why Jiang & Ren 2011's Figs. 2-4 differ from ours (the causes of config/reproduction/jiang2011.yaml).

Each figure clusters the top m features of each ranking, m = 100, 200, ..., 2100, with one
spectral clustering: von Luxburg's unnormalised one (USC, L) in Fig. 2, Shi-Malik's (L_rw) in
Fig. 3 and Ng-Jordan-Weiss's (L_sym) in Fig. 4, on the full RBF graph. The paper chose the RBF
bandwidth by cross-validation and does not give it, so each test clusters exactly the subsets
the claim is about, as the experiment does (delta the median distance of the m features in use),
across a grid of bandwidths, under two readings of where the paper's delta applies:

- ``"clustering"``: only the evaluation clustering's delta moves (1/4 to 8 times ours); EVSFSC
  keeps its median-rule delta;
- ``"joint"``: one delta for both, as EVSFSC scores the eigenvectors of the very graph the
  clustering cuts: EVSFSC's delta and the clustering's move together (1/4 to 8 times ours).

Three of the experiment's ten k-means seeds; each seed is a relabelling of one spectral
embedding (``SpectralClustering.relabel``, exact on the dense RBF graph).
"""

from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

# the slow tier: a paper's claims tested on the mirror's real data
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]

#: The figures' sweep: the experiment's m.
SWEEP = tuple(range(100, 2101, 100))
#: Fig. 2's "under 1000 features": the sweep below 1000.
UNDER_1000 = tuple(m for m in SWEEP if m < 1000)
#: Multiples of the experiment's delta (so t = 2 delta^2 from 1/16 to 64 times ours); the paper
#: chose delta by cross-validation.
DELTA_SCALES = (1 / 4, 1 / 2, 1, 2, 4, 8)
#: Where the paper's delta applies (the module docstring).
READINGS = ("clustering", "joint")
SEEDS = (0, 1, 2)
#: The experiment's spectral clustering for each Laplacian (config/experiments/jiang2011.yaml).
CLUSTERERS = {"unnormalized": "spectral-unnormalized", "rw": "spectral-rw", "sym": "njw"}


@lru_cache(maxsize=None)
def _prepared(dataset):
    from _mirror import HAS_MIRROR, MIRROR, SKIP_REASON
    from fsclust.datasets import get_entry, load_catalog, prepare

    if not HAS_MIRROR:
        pytest.skip(SKIP_REASON)
    entry = get_entry(load_catalog(ROOT / "config" / "datasets.tsv"), dataset)
    return prepare(entry, [MIRROR / f for f in entry.files])


@lru_cache(maxsize=None)
def _subsets(dataset, ranking, laplacian, delta_scale):
    """The experiment's subset of each m of the sweep for one ranking: EVSFSC with the figure's
    Laplacian and its delta times ``delta_scale``; FSFS's own subset of exactly m features per m
    (as the experiment); the top m of the Laplacian score's, SPEC's or MCFS's ranking. All five
    are deterministic and at the experiment's defaults; ``laplacian`` is None for the four
    baselines, whose rankings do not depend on it (one fit serves every figure)."""
    from fsclust.registry import make_ranker

    ds = _prepared(dataset)
    k = len(np.unique(ds.y))
    params = ({"laplacian": laplacian, "bandwidth_scale": delta_scale}
              if ranking == "evsfsc" else None)
    model = make_ranker(ranking, params, n_clusters=k, random_state=0).fit(ds.X)
    if ranking == "fsfs":
        return {m: model.subset(m) for m in SWEEP}
    return {m: model.feature_order_[:m] for m in SWEEP}


def _sweep(dataset, laplacian, ranking, reading="joint", scales=DELTA_SCALES, sizes=SWEEP,
           seeds=SEEDS):
    """The figure's clustering of a ranking's subsets for every m of the sweep, bandwidth scale
    and seed. Under the ``"joint"`` reading EVSFSC's delta moves with the clustering's; the other
    rankings have no RBF bandwidth of their own, so both readings are the same for them.

    Returns ``(acc, singletons)``, arrays of shape (scales, sizes, seeds): the ACC of each
    partition and the number of its clusters holding one sample.
    """
    joint = ranking == "evsfsc" and reading == "joint"
    rows = [_row(dataset, laplacian, ranking, scale if joint else 1.0, scale, tuple(sizes),
                 tuple(seeds)) for scale in scales]
    return np.stack([acc for acc, _ in rows]), np.stack([single for _, single in rows])


@lru_cache(maxsize=None)
def _row(dataset, laplacian, ranking, ranking_scale, scale, sizes, seeds):
    """One bandwidth's row of a sweep: the subsets of ``ranking`` (EVSFSC's at its delta times
    ``ranking_scale``) clustered at the clustering's delta times ``scale``; a row the two
    readings share (EVSFSC at our delta: 1, 1) is clustered once."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):  # n <= 210: BLAS threads cost more than they give (2.5x here)
        return _row_one_thread(dataset, laplacian, ranking, ranking_scale, scale, sizes, seeds)


def _row_one_thread(dataset, laplacian, ranking, ranking_scale, scale, sizes, seeds):
    from fsclust.graphs import bandwidth, squared_distances
    from fsclust.metrics import clustering_accuracy
    from fsclust.registry import make_clusterer

    ds = _prepared(dataset)
    k = len(np.unique(ds.y))
    shape = (len(sizes), len(seeds))
    acc, singletons = np.zeros(shape), np.zeros(shape, dtype=int)
    if ranking == "evsfsc":
        subsets = _subsets(dataset, ranking, laplacian, ranking_scale)
    else:
        subsets = _subsets(dataset, ranking, None, 1.0)
    for j, m in enumerate(sizes):
        Xm = ds.X[:, subsets[m]]
        D = squared_distances(Xm)
        t = bandwidth(D, "jiang2011") * scale**2
        model = make_clusterer(CLUSTERERS[laplacian], {"t": t}, n_clusters=k,
                               random_state=seeds[0]).fit(Xm, sq_distances=D)
        for s, seed in enumerate(seeds):
            labels = model.labels_ if s == 0 else model.relabel(seed)
            acc[j, s] = clustering_accuracy(ds.y, labels)
            singletons[j, s] = (np.bincount(labels, minlength=k) == 1).sum()
    return acc, singletons


def _sizes(*sizes):
    return np.isin(SWEEP, sizes)


# Fig. 2: USC (L)

@pytest.mark.parametrize("reading", READINGS)
@pytest.mark.parametrize("dataset", ["skfeature-orlraws10p", "skfeature-tox-171"])
def test_usc_on_evsfsc_l_subsets_under_1000_features_stays_below_0_6_at_every_bandwidth(
        dataset, reading):
    """Cause usc-isolates-samples: on EVSFSC-L's top m < 1000 features, for every bandwidth of
    the grid and either reading, USC leaves samples alone (the smallest eigenvectors of L
    localise on low-degree samples, von Luxburg 2007, Sec. 8.5) and its ACC stays below the
    paper's 0.6."""
    acc, singletons = _sweep(dataset, "unnormalized", "evsfsc", reading)
    under = _sizes(*UNDER_1000)
    assert (singletons[:, under] >= 1).all()
    assert acc[:, under].max() < 0.6


@pytest.mark.parametrize("reading", READINGS)
@pytest.mark.parametrize("dataset", ["skfeature-orlraws10p", "skfeature-pixraw10p"])
def test_evsfsc_l_is_below_the_laplacian_score_at_every_bandwidth(dataset, reading):
    """Cause usc-evsfsc-l-below-laplacian: Fig. 2's "EVSFSC is the best of the five rankings" on
    ORL and PIX. At every bandwidth of the grid, under either reading, USC's mean ACC over the
    sweep on EVSFSC-L's subsets is below its mean on the Laplacian score's (so EVSFSC is not the
    best of the five), and every partition of EVSFSC-L's subsets leaves a sample alone."""
    evsfsc, singletons = _sweep(dataset, "unnormalized", "evsfsc", reading)
    laplacian, _ = _sweep(dataset, "unnormalized", "laplacian")
    assert (singletons >= 1).all()
    mean_evsfsc, mean_laplacian = evsfsc.mean(axis=(1, 2)), laplacian.mean(axis=(1, 2))
    assert (mean_evsfsc < mean_laplacian).all(), (mean_evsfsc, mean_laplacian)


@pytest.mark.parametrize("reading", READINGS)
@pytest.mark.parametrize("dataset", ["skfeature-pixraw10p"])
def test_evsfsc_l_is_best_above_a_few_hundred_features_at_every_bandwidth(dataset, reading):
    """Cause usc-evsfsc-l-best-above-a-few-hundred: Fig. 2's "only several hundred features
    selected by our method achieve the best results" on PIX. At every bandwidth of the grid,
    under either reading, the best mean ACC of EVSFSC-L's subsets is at some m above 500, not
    at a few hundred, and every partition leaves a sample alone."""
    from fsclust.papers.jiang2011 import FEW_HUNDRED  # our reading, as in the claim check

    acc, singletons = _sweep(dataset, "unnormalized", "evsfsc", reading)
    assert (singletons >= 1).all()
    curve = acc.mean(axis=2)
    few = _sizes(*(m for m in SWEEP if m <= FEW_HUNDRED))
    assert (curve[:, ~few].max(axis=1) > curve[:, few].max(axis=1)).all(), curve


# Figs. 3 and 4: the normalised clusterings (L_rw, L_sym)

@pytest.mark.parametrize("reading", READINGS)
@pytest.mark.parametrize("dataset", ["skfeature-orlraws10p", "skfeature-pixraw10p"])
def test_evsfsc_rw_is_below_the_laplacian_score_or_mcfs_at_every_bandwidth(dataset, reading):
    """Cause nsc-rw-evsfsc-below-a-baseline-at-every-bandwidth: Fig. 3's "EVSFSC is the best
    of the five rankings" (L_rw) on ORL and PIX. At every delta from 1/4 to 8 times ours, under
    either reading, the mean ACC over the sweep on EVSFSC-rw's subsets is below that on the
    Laplacian score's or MCFS's, so EVSFSC is not the best of the five at any bandwidth of the
    grid. The partitions are not degenerate: the clusterings differ by the features they are
    given."""
    evsfsc, _ = _sweep(dataset, "rw", "evsfsc", reading)
    best_baseline = np.maximum(_sweep(dataset, "rw", "laplacian")[0].mean(axis=(1, 2)),
                               _sweep(dataset, "rw", "mcfs")[0].mean(axis=(1, 2)))
    assert (evsfsc.mean(axis=(1, 2)) < best_baseline).all(), (evsfsc.mean(axis=(1, 2)),
                                                               best_baseline)


@pytest.mark.parametrize("laplacian", ["rw", "sym"])
def test_on_pie_evsfsc_is_best_at_twice_our_bandwidth_and_not_at_ours(laplacian):
    """Cause pie-normalised-claims-need-a-wider-bandwidth: Figs. 3 and 4's "EVSFSC is the best of
    the five rankings" on PIE (L_rw, L_sym). At our delta (the median rule) MCFS is ahead; at
    twice it, one delta for EVSFSC and the clustering, EVSFSC's mean ACC over the sweep is above
    each of the four baselines', and every curve is higher (the median rule is too narrow a
    graph for PIE). It shows that the row depends on the delta the paper does not give; not
    that the paper's delta was twice ours (the band is narrow, and under one absolute delta for
    every m the claim holds nowhere), so the cause is classed "causal link untested"."""
    scales = (1.0, 2.0)
    means = {r: _sweep("skfeature-warppie10p", laplacian, r, scales=scales)[0].mean(axis=(1, 2))
             for r in ("evsfsc", "fsfs", "laplacian", "spec", "mcfs")}
    ours, wider = ({r: v[i] for r, v in means.items()} for i in range(2))
    assert ours["evsfsc"] < ours["mcfs"], ours
    assert all(wider["evsfsc"] > wider[r] for r in wider if r != "evsfsc"), wider
    assert all(wider[r] > ours[r] for r in means), (ours, wider)

