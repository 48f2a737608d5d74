"""Why KP-Kmeans differs from Maldonado et al. 2015 (the causes of config/reproduction/maldonado2015.yaml).

Each test demonstrates a cause on a small case: the printed gradient of eq. (24) climbs the
objective it should descend; the correct gradient keeps a few features of a high-dimensional
set whatever the step rule, where the paper keeps hundreds on its microarray sets; the
substitutes of LUNG and MLL differ in size from the paper's Table 2.
"""

from pathlib import Path

import numpy as np
import pytest
import yaml
from fsclust.metrics import clustering_accuracy

from fsclust.rankers.kpkmeans import (
    KPKMeans, kpkmeans_gradient, kpkmeans_objective, printed_energy_ratio_gradient,
)

# the slow tier: a paper's claims tested on the mirror's real data
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]


def _blobs(seed=0, n=36, d=6, c=3):
    rng = np.random.RandomState(seed)
    y = np.arange(n) % c
    centres = rng.randn(c, d)
    return (centres[y] + 0.8 * rng.randn(n, d)) / np.sqrt(d), y, rng.uniform(0.5, 1.5, d), c


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_printed_eq24_gradient_climbs_the_energy_ratio_the_correct_one_descends(seed):
    # Cause kpkmeans-printed-gradient-sign: a small step v - h g along the printed gradient
    # raises the energy ratio (lambda = 0), along the correct gradient it lowers it.
    X, labels, v, c = _blobs(seed)
    correct, F0 = kpkmeans_gradient(X, v, labels, c, lam=0.0)
    printed = printed_energy_ratio_gradient(X, v, labels, c)
    h = 1e-3 / np.abs(correct).max()
    assert kpkmeans_objective(X, v - h * correct, labels, c, 0.0) < F0
    assert kpkmeans_objective(X, v - h * printed, labels, c, 0.0) > F0
    # the directional derivative along the printed gradient is positive: -sum v_j g_j^2 < 0
    assert float(correct @ printed) < 0


def test_printed_option_runs_eq24_and_raises_the_objective_within_a_round():
    # KPKMeans(gradient="printed") descends eq. (24) as printed: with lambda = 0 and a small
    # fixed step the objective rises step after step, where the correct gradient lowers it.
    X, y, _, c = _blobs(3, n=45)
    kw = dict(n_clusters=c, lam=0.0, gamma=1e-3, step="fixed", max_inner=20, max_outer=1,
              random_state=0)
    up = np.diff(KPKMeans(gradient="printed", **kw).fit(X).objective_history_)
    down = np.diff(KPKMeans(gradient="correct", **kw).fit(X).objective_history_)
    assert (up > 0).all() and (down < 0).all()


def test_gradient_option_rejects_unknown_values():
    with pytest.raises(ValueError, match=r"'gradient' parameter.*'correct'.*'printed'|'gradient' parameter.*'printed'.*'correct'"):
        KPKMeans(n_clusters=2, gradient="eq24").fit(np.random.RandomState(0).randn(10, 3))


def _microarray_like(seed, n_per=20, d=200, d_inf=40, shift=0.8):
    # three classes that differ by a small shift in each of 40 of 200 features: the cluster
    # structure is spread over many weak features, as on the microarray sets
    rng = np.random.RandomState(seed)
    y = np.repeat([0, 1, 2], n_per)
    means = np.zeros((3, d))
    means[:, :d_inf] = rng.choice([-shift, shift], size=(3, d_inf))
    return means[y] + rng.randn(y.size, d), y


@pytest.mark.parametrize("settings", [
    dict(lam=0.5, step="normalized", max_step=0.05),
    dict(lam=2.0**-5, step="normalized", max_step=0.05),
    dict(lam=2.0**-5, step="fixed", gamma=2.0**-5),
], ids=["normalised-step", "normalised-step-lambda2^-5", "gamma2^-5-lambda2^-5"])
def test_correct_gradient_keeps_a_few_features_of_a_high_dimensional_set(settings):
    # Cause kpkmeans-microarray-feature-count: with the correct gradient the energy ratio keeps
    # falling as v concentrates on fewer features, so a run on 200 features carrying a spread
    # structure ends with a handful (measured 6-7 with the normalised step), not the 2-20 % of
    # the features (SRBCT 301 of 2308, MLL 108 of 5848, Glioma 901 of 4433) the paper keeps.
    # Measured here: normalised step 7 features (max_step 0.01: 7; eps 1e-2: 7; lambda 2^-5:
    # 9); fixed step lambda = gamma = 2^-5: 2; a fixed step of 2^-3 or more removes all 200.
    X, y = _microarray_like(0)
    model = KPKMeans(n_clusters=3, random_state=0, **settings).fit(X)
    assert 1 <= model.n_features_selected_ <= 0.05 * X.shape[1]
    # the features it keeps are informative ones, and its partition is no worse than the first
    # (scored here, outside the unsupervised fit, as the workflow scores labels_path_)
    assert np.all(model.selected_features_ < 40)
    first, last = (clustering_accuracy(y, model.labels_path_[i]) for i in (0, -1))
    assert last >= first - 0.05


def test_with_every_feature_eliminated_the_last_partition_is_reported():
    # Cause no-feature-partition-underspecified: Table 4's lambda >= 2^2 rows keep no feature
    # (n = 0, as ours) and report ACC 48.6 on MLL. With no feature the kernel is constant and
    # any partition is as good as another: the paper does not say which it scores. Ours is the
    # last partition built on features (before the last elimination), so its ACC is that of
    # a clustering, not of an arbitrary split.
    X, y = _microarray_like(1, d=60, d_inf=20, shift=1.5)
    model = KPKMeans(n_clusters=3, lam=32.0, gamma=1.0, step="fixed", random_state=0).fit(X)
    assert model.n_features_selected_ == 0 and not np.any(model.v_)
    # the partition scored (recorded with n = 0) is the one the last round built on features
    assert model.n_features_path_[-1] == 0 and model.n_features_path_[-2] > 0
    np.testing.assert_array_equal(model.labels_, model.labels_path_[-2])
    # far above a three-class chance of 1/3
    assert clustering_accuracy(y, model.labels_path_[-1]) > 0.6


#: Table 3 of the paper: the features KP-Kmeans keeps on the microarray sets we mirror (MLL's
#: stand-in has 2194 of the paper's 5848 genes: lung-mll-substitutes).
TABLE3_FEATURES_KEPT = {"srbct-khan": 301, "skfeature-glioma": 901, "maldonado-mll-substitute": 108}


@pytest.mark.parametrize("dataset", sorted(TABLE3_FEATURES_KEPT))
def test_kpkmeans_as_in_table3_keeps_a_handful_of_the_microarray_genes(dataset):
    # Cause kpkmeans-microarray-feature-count, on the rows' own data: the bench experiment's
    # KP-Kmeans (lambda = 2^-1, normalised step 0.05) on SRBCT, Glioma and the MLL stand-in
    # keeps a handful of genes, far outside the 10 % tolerance of the paper's 301, 901, 108.
    from _mirror import HAS_MIRROR, MIRROR, SKIP_REASON
    from fsclust.datasets import get_entry, load_catalog, prepare
    from fsclust.registry import make_ranker

    if not HAS_MIRROR:
        pytest.skip(SKIP_REASON)
    entry = get_entry(load_catalog(ROOT / "config" / "datasets.tsv"), dataset)
    ds = prepare(entry, [MIRROR / f for f in entry.files])
    params = yaml.safe_load((ROOT / "config" / "experiments" / "maldonado2015.yaml").read_text())[
        "experiments"]["maldonado2015-bench"]["methods"]["kpkmeans"]["params"]
    kp = make_ranker("kpkmeans", params, n_clusters=len(np.unique(ds.y)),
                     random_state=0).fit(ds.X)
    assert kp.n_features_selected_ < 0.9 * TABLE3_FEATURES_KEPT[dataset]
    assert kp.n_features_selected_ <= 20
