"""Zeng & Cheung 2009 on the paper layer: LLC-fs's and LLC's (k, lambda) grids, run by the
generic evaluate step from a method spec and a clusterer spec with a `grid:`, agree run for run
with the experiment's LLC-fs and with LLC fitted with each run's stream (LLC fitted once per
point); Table 2 picks LLC's best grid point and says it was chosen with the labels, the claims
are judged on the numbers, and the paper block's schema."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from fsclust import steps
from fsclust.datasets.store import Dataset, save_dataset
from fsclust.steps.grids import expand_grids
from fsclust.metrics import evaluate
from fsclust.papers import zeng2009
from fsclust.rankers.llcfs import LLCFS
from fsclust.report.paper import PAPER_VS_OURS_COLUMNS
from fsclust.steps.seeds import derive_seed
from _workflow import copy_workflow, snakemake_in_process  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def _two_informative(n=80, d=8, seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    X = rng.normal(size=(n, d))
    X[y == 0, 0] += 3.0
    X[y == 1, 1] += 3.0
    return (X - X.mean(0)) / X.std(0), y


SEEDS = [0, 1, 2]
GRID = {"n_neighbors": [10, 20], "lam": [0.5, 1.0]}
#: LLC-fs's grid as the grid experiments declare it
LLCFS_GRID = {"llcfs": {"method": "llcfs", "seed_key": "llcfs",
                        "name": "llcfs-k{n_neighbors}-lam{lam}", "grid": GRID}}
#: LLC's, as the LLC grid experiments declare it: a clusterer grid on all features
LLC_GRID = {"llc": {"method": "llc", "seed_key": "llc", "name": "llc-k{n_neighbors}-lam{lam}",
                    "grid": GRID}}


def _save_toy(root):
    X, y = _two_informative()
    data = root / "toy.npz"
    save_dataset(Dataset(X=X, y=y, feature_names=[f"f{j}" for j in range(X.shape[1])],
                         sample_names=[f"s{i}" for i in range(len(y))]), data)
    return X, y, data


@pytest.fixture(scope="module")
def llc_fits():
    """Every LLC fit of the LLC grid's evaluate step (counted through LLC.fit)."""
    from fsclust.cluster.llc import LLC

    fits, fit = [], LLC.fit

    def counted(self, X, y=None):
        fits.append(self.get_params())
        return fit(self, X, y)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(LLC, "fit", counted)
        yield fits


@pytest.fixture(scope="module")
def runs(tmp_path_factory, llc_fits):
    """LLC-fs's grid (the evaluate step on the expanded method grid, no clusterer: rankings
    and each run's own clustering) and LLC's (the evaluate step on the expanded clusterer
    grid, all features only), as the report combines them."""
    root = tmp_path_factory.mktemp("zeng2009")
    X, y, data = _save_toy(root)
    methods = expand_grids(LLCFS_GRID)
    steps.evaluate(data, root / "sweep.tsv", dataset="toy", methods=methods,
                   rankings_dir=root / "rankings", seeds=SEEDS, clusterers={},
                   grid_spec="all", metrics=["acc", "nmi"], nested=True)
    llcfs = zeng2009.llcfs_grid_runs({"toy": {key: {
        **spec["params"], "ranking": root / "rankings" / key / "seed0.tsv",
        "sidecars": {seed: root / "rankings" / key / f"seed{seed}.json" for seed in SEEDS}}
        for key, spec in methods.items()}}, ["acc", "nmi"])
    clusterers = expand_grids(LLC_GRID, "clusterer")
    steps.evaluate(data, root / "llc.tsv", dataset="toy", methods={}, rankings_dir=None,
                   seeds=SEEDS, clusterers=clusterers, grid_spec="all",
                   metrics=["acc", "nmi"], baseline=True)
    sweeps = pd.read_csv(root / "llc.tsv", sep="\t")
    llc = zeng2009.llc_grid_runs(sweeps, {k: c["params"] for k, c in clusterers.items()},
                                 ["acc", "nmi"])
    return X, y, zeng2009.grid_runs(llc, llcfs, ["toy"])


@pytest.mark.slow  # the paper's grid run by the evaluate step
def test_grid_has_every_point_run_and_method(runs):
    _, _, table = runs
    # 2 k x 2 lambda x 2 methods x 3 runs
    assert len(table) == 2 * 2 * 2 * 3
    assert set(table["n_neighbors"]) == {10, 20}
    assert set(table["method"]) == {"llc", "llcfs"}
    assert table[["acc", "nmi"]].apply(lambda c: c.between(0, 1)).all().all()
    # the grid table's order: per point (increasing k, then lambda) LLC then LLC-fs, each run
    keys = list(zip(table["n_neighbors"], table["lam"], table["method"], table["seed"]))
    assert keys == sorted(keys)


@pytest.mark.slow  # the paper's grid run by the evaluate step
def test_grid_llcfs_is_the_experiments_llcfs_run_for_run(runs):
    """The grid's points draw each run's k-means from the stream of the experiment's LLC-fs
    method (seed_key), so its point at the experiment's (k, lambda) repeats its runs."""
    X, y, table = runs
    for seed in (0, 1, 2):
        direct = LLCFS(n_clusters=2, n_neighbors=20, lam=1.0,
                       random_state=derive_seed(seed, "toy", "llcfs")).fit(X)
        row = table[(table["method"] == "llcfs") & (table["n_neighbors"] == 20)
                    & (table["lam"] == 1.0) & (table["seed"] == seed)].iloc[0]
        assert evaluate(y, direct.labels_, ["acc", "nmi"]) == {"acc": row["acc"],
                                                                "nmi": row["nmi"]}
        assert row["n_iter"] == direct.n_iter_
        assert row["trace"] == direct.objective_history_[-1]


@pytest.mark.slow  # the paper's grid run by the evaluate step
def test_grid_llc_is_llc_fitted_with_each_runs_stream_and_fitted_once_per_point(runs,
                                                                                  llc_fits):
    """Every point of LLC's clusterer grid draws the stream of the clusterer key llc
    (seed_key); the evaluate step fits each point once and relabels the other runs (LLC's tag
    `relabels`), with the labels and diagnostics of a fit with the run's stream."""
    from fsclust.cluster.llc import LLC

    X, y, table = runs
    assert len(llc_fits) == 2 * 2  # one fit per point, not per point and run
    assert sorted((p["n_neighbors"], p["lam"]) for p in llc_fits) == [
        (10, 0.5), (10, 1.0), (20, 0.5), (20, 1.0)]
    for seed in SEEDS:
        direct = LLC(n_clusters=2, n_neighbors=20, lam=1.0,
                     random_state=derive_seed(seed, "toy", "llc")).fit(X)
        row = table[(table["method"] == "llc") & (table["n_neighbors"] == 20)
                    & (table["lam"] == 1.0) & (table["seed"] == seed)].iloc[0]
        assert evaluate(y, direct.labels_, ["acc", "nmi"]) == pytest.approx(
            {"acc": row["acc"], "nmi": row["nmi"]}, rel=1e-9)
        assert row["trace"] == pytest.approx(direct.objective_, rel=1e-9)
        assert (row["n_isolated"], row["n_components"]) == (direct.n_isolated_,
                                                            direct.n_components_)
        assert row["effective_features"] == X.shape[1]


def test_an_impossible_k_in_llcs_grid_fails_the_evaluate_step(tmp_path):
    """k >= n has no neighbourhood: the step fails with LLC's message, no point is dropped."""
    _, _, data = _save_toy(tmp_path)
    impossible = {"n_neighbors": [200], "lam": [1.0]}
    clusterers = expand_grids({"llc": {**LLC_GRID["llc"], "grid": impossible}}, "clusterer")
    with pytest.raises(ValueError, match="n_neighbors=200"):
        steps.evaluate(data, tmp_path / "llc.tsv", dataset="toy", methods={},
                       rankings_dir=None, seeds=SEEDS, clusterers=clusterers,
                       grid_spec="all", metrics=["acc"], baseline=True)


@pytest.mark.slow  # the paper's grid run by the evaluate step
def test_grid_summary_and_table2_pick_llcs_best_point_and_mark_it(runs):
    _, _, table = runs
    summary = zeng2009.grid_summary(table)
    assert len(summary) == 8 and (summary["runs"] == 3).all()
    llc = summary[summary["method"] == "llc"]
    sweeps = pd.DataFrame({"dataset": "toy", "method": "all-features", "clusterer": "kmeans",
                           "seed": [0, 1, 2], "acc": [0.6, 0.7, 0.8], "nmi": [0.1, 0.2, 0.3]})
    own = pd.DataFrame({"dataset": "toy", "seed": [0, 1, 2], "acc": [0.9, 0.9, 0.9],
                        "nmi": [0.5, 0.5, 0.5]})
    t2 = zeng2009.table2(sweeps, own, own.assign(acc=0.5), summary, ["toy"],
                         default={"n_neighbors": 20, "lam": 1.0}).set_index("method")
    assert list(t2.index) == zeng2009.TABLE2_METHODS
    best = llc.loc[llc["acc_mean"].idxmax()]
    assert t2.loc["LLC-bestk lambda", "acc_mean"] == best["acc_mean"]
    assert t2.loc["LLC-bestk lambda", "acc_mean"] == llc["acc_mean"].max()
    assert "chosen with the labels" in t2.loc["LLC-bestk lambda", "note"]
    assert t2.loc["k-means", "acc_mean"] == pytest.approx(0.7)
    assert t2.loc["k-means", "acc_sd"] == pytest.approx(0.1)
    assert t2.loc["LLC-fs", "acc_sd"] == 0.0  # identical runs: exactly 0, not round-off
    with_variant = zeng2009.table2(sweeps, own, own, summary, ["toy"],
                                   variants={"LLC-fs, kNN": own.assign(acc=0.4)})
    assert list(with_variant["method"]) == [*zeng2009.TABLE2_METHODS, "LLC-fs, kNN"]
    assert with_variant["note"].iloc[-1] == "variant, not in the paper"


def _table(fs, km, q, llc, dataset="usps-4v9"):
    return pd.DataFrame({"dataset": dataset, "method": zeng2009.TABLE2_METHODS,
                         "acc_mean": [km, q, llc, fs], "acc_sd": 0.01})


def test_claims_hold_exactly_when_the_numbers_say_so():
    summary = pd.DataFrame(columns=["dataset", "method", "n_neighbors", "lam", "acc_mean",
                                    "acc_sd"])
    tau = np.r_[np.full(5, 0.19), np.full(251, 0.05 / 251)]
    claims = zeng2009.claims_table(_table(0.9, 0.8, 0.7, 0.85), summary, {"usps-4v9": tau},
                                   digits=["usps-4v9"], genes=[],
                                   default={"n_neighbors": 30, "lam": 1.0})
    assert list(claims.columns) == PAPER_VS_OURS_COLUMNS
    notes = dict(zip(claims["method"], claims["note"]))
    for other in ("k-means", "Q-alpha", "LLC-bestk lambda"):
        assert notes[f"LLC-fs vs {other}"].startswith("holds: yes")
    assert notes["Q-alpha vs k-means"].startswith("holds: yes")
    assert notes["LLC-fs tau sparsity"].startswith("holds: yes")
    worse = zeng2009.claims_table(_table(0.75, 0.8, 0.85, 0.7), summary,
                                  {"usps-4v9": np.full(256, 1 / 256)}, digits=["usps-4v9"],
                                  genes=[], default={"n_neighbors": 30, "lam": 1.0},
                                  covers={"usps-4v9": 1.0})
    notes = dict(zip(worse["method"], worse["note"]))
    assert notes["LLC-fs vs k-means"].startswith("holds: no")
    assert notes["LLC-fs vs LLC-bestk lambda"].startswith("holds: yes")
    assert notes["Q-alpha vs k-means"].startswith("holds: no")
    assert notes["LLC-fs tau sparsity"].startswith("holds: no")
    # a uniform tau has no top pixels: the cover claim cannot hold, whatever the share
    assert notes["top 15 pixels"].startswith("holds: no") and "ties" in notes["top 15 pixels"]


def test_rule_text_is_the_params_over_llcfs_defaults():
    """The rule a claim ran under is read from its parameters, LLCFS's defaults filling in."""
    defaults = LLCFS().get_params()
    assert zeng2009.rule_text({}) == zeng2009.rule_text(defaults)
    assert zeng2009.rule_text({}).endswith("(LLCFS default)")
    assert zeng2009.rule_params({"n_neighbors": 20}) == {p: defaults[p]
                                                          for p in zeng2009.RULE_PARAMS}
    old = zeng2009.rule_text({"tol": 1e-2, "max_iter": 7, "min_neighborhood_size": 1})
    assert "below 0.01" in old and "7 iterations" in old and "from 1 neighbour" in old
    assert "default" not in old
    fixed = zeng2009.rule_text({"tol": None, "max_iter": 7, "min_neighborhood_size": 3})
    assert fixed.startswith("7 fixed iterations") and "from 3 neighbours" in fixed


def test_every_llcfs_claim_ends_with_its_rule_and_figure_3_with_the_grids():
    summary = pd.DataFrame({"dataset": "usps-4v9", "method": "llcfs", "n_neighbors": [30, 40],
                            "lam": 1.0, "acc_mean": [0.9, 0.8], "acc_sd": 0.0})
    claims = zeng2009.claims_table(_table(0.9, 0.8, 0.7, 0.85), summary,
                                   {"usps-4v9": np.full(256, 1 / 256)}, digits=["usps-4v9"],
                                   genes=[], default={"n_neighbors": 30, "lam": 1.0},
                                   covers={"usps-4v9": 1.0}, rule="RULE", grid_rule="GRID")
    figure3 = claims["table_or_figure"].str.startswith("Fig. 3")
    llcfs = claims["method"].str.contains("LLC-fs|pixels")
    assert figure3.any() and (llcfs & ~figure3).sum() == 5
    assert claims.loc[figure3, "note"].str.endswith("; rule: GRID").all()
    assert claims.loc[llcfs & ~figure3, "note"].str.endswith("; rule: RULE").all()
    # Q-alpha vs k-means is not a claim of LLC-fs
    assert not claims.loc[~llcfs, "note"].str.contains("rule:").any()


def test_claims_by_rule_has_one_row_per_claim_and_a_holds_column_per_rule():
    """The same claims under two rules: one row each, whether it holds under each; a claim
    missing under a rule (Fig. 3's, the grids') has empty cells there."""
    summary = pd.DataFrame({"dataset": "usps-4v9", "method": "llcfs", "n_neighbors": [30, 40],
                            "lam": 1.0, "acc_mean": [0.9, 0.8], "acc_sd": 0.0})
    settings = dict(digits=["usps-4v9"], genes=[], default={"n_neighbors": 30, "lam": 1.0})
    tau = {"usps-4v9": np.full(256, 1 / 256)}
    beats = zeng2009.claims_table(_table(0.9, 0.8, 0.7, 0.85), summary, tau, rule="a",
                                  **settings)
    loses = zeng2009.claims_table(_table(0.75, 0.8, 0.7, 0.85), summary.iloc[:0], tau,
                                  rule="b", **settings)
    wide = zeng2009.claims_by_rule({"beats": beats, "loses": loses})
    assert len(wide) == len(beats) > len(loses)
    assert not wide.duplicated(zeng2009.CLAIM_KEY).any()
    assert list(wide.columns[-4:]) == ["beats_holds", "beats_value", "loses_holds",
                                       "loses_value"]
    row = wide.set_index("method").loc["LLC-fs vs k-means"]
    assert (row["beats_holds"], row["loses_holds"]) == ("yes", "no")
    assert (row["beats_value"], row["loses_value"]) == (0.9, 0.75)
    assert row["claim"] == "LLC-fs beats k-means on every data set"
    figure3 = wide["table_or_figure"].str.startswith("Fig. 3")
    assert figure3.any() and (wide.loc[figure3, "loses_holds"] == "").all()
    assert wide.loc[figure3, "loses_value"].isna().all()
    assert wide.loc[figure3, "beats_holds"].isin(["yes", "no"]).all()
    assert (wide["claim"] != "").all()


@pytest.mark.slow  # the paper's grid run by the evaluate step
def test_sensitivity_slices_hold_the_other_parameter_at_the_default(runs):
    _, _, table = runs
    summary = zeng2009.grid_summary(table)
    (ds, at, line), = zeng2009.sensitivity(summary, ["toy"], {"n_neighbors": 20, "lam": 1.0},
                                           "n_neighbors")
    assert at == 1.0 and (line["lam"] == 1.0).all() and list(line["n_neighbors"]) == [10, 20]
    (ds, at, line), = zeng2009.sensitivity(summary, ["toy"], {"n_neighbors": 30, "lam": 1.0},
                                           "lam")
    assert at == 20  # nearest grid k to the default 30


def test_discriminative_cover_counts_top_pixels_among_the_class_mean_differences():
    X, y = _two_informative(d=60)
    tau = np.zeros(60)
    tau[[0, 1]] = 0.5
    assert zeng2009.discriminative_cover(tau, X, y, top=2, pool=2) == 1.0
    tau = np.zeros(60)
    tau[[58, 59]] = 0.5
    assert zeng2009.discriminative_cover(tau, X, y, top=2, pool=2) == 0.0


def _schema_validate(block):
    from snakemake.utils import validate

    validate(block, schema=str(ROOT / "workflow/schemas/papers/zeng2009.schema.yaml"))


def test_schema_accepts_the_config_blocks_and_rejects_a_wrong_key():
    config = yaml.safe_load((ROOT / "config/experiments/zeng2009.yaml").read_text())
    for name in ("zeng2009", "zeng2009-small"):
        block = dict(config["papers"][name])
        _schema_validate(block)
        main = config["experiments"][block["experiments"]["main"]]
        assert main["methods"][block["llcfs"]]["method"] == "llcfs"
        assert main["methods"][block["qalpha"]]["method"] == "qalpha"
        assert set(block["digits"] + block["genes"]) <= set(main["datasets"])
    paper = config["papers"]["zeng2009"]
    assert paper["default"] == {"n_neighbors": 30, "lam": 1.0}
    assert config["experiments"]["zeng2009"]["methods"]["llcfs"]["params"] == {
        "n_neighbors": 30, "lam": 1.0}
    with pytest.raises(Exception, match="top_pixel"):
        _schema_validate(dict(paper, top_pixel=15))
    # the grids are the grid experiments' (one declaration each), not the paper block's
    with pytest.raises(Exception, match="grids"):
        _schema_validate(dict(paper, grids={"digits": {"n_neighbors": [30], "lam": [1.0]}}))
    # the stopping experiment ranks zeng2009's datasets with LLC-fs only, each rule a method
    # that states tol, max_iter and min_neighborhood_size
    stopping = yaml.safe_load((ROOT / "config/experiments/zeng2009-stopping.yaml").read_text())
    stopping = stopping["experiments"][paper["experiments"]["stopping"]]
    assert stopping["datasets"] == config["experiments"]["zeng2009"]["datasets"]
    assert stopping["seeds"] == config["experiments"]["zeng2009"]["seeds"]
    for spec in stopping["methods"].values():
        assert spec["method"] == "llcfs" and spec["seed_key"] == paper["llcfs"]
        assert set(zeng2009.RULE_PARAMS) <= set(spec["params"])
    assert "stopping" not in config["papers"]["zeng2009-small"]["experiments"]
    for name in ("zeng2009", "zeng2009-small"):
        roles = config["papers"][name]["experiments"]
        for role in ("grid_digits", "grid_genes"):
            grid = config["experiments"][roles[role]]
            (spec,) = grid["methods"].values()
            assert spec["method"] == "llcfs" and spec["seed_key"] == paper["llcfs"]
            assert (paper["default"]["n_neighbors"] in spec["grid"]["n_neighbors"]
                    and paper["default"]["lam"] in spec["grid"]["lam"])
            # LLC at the same points, on the same datasets, all features only
            llc_grid = config["experiments"][roles[f"llc_{role}"]]
            (llc,) = llc_grid["clusterers"].values()
            assert llc["method"] == "llc" and llc["seed_key"] == "llc"
            assert llc["grid"] == spec["grid"] and llc_grid["datasets"] == grid["datasets"]
            assert llc_grid["seeds"] == grid["seeds"]
            assert llc_grid["methods"] == {} and llc_grid["all_features"]


@pytest.mark.workflow
def test_paper_target_runs_end_to_end_and_its_grid_repeats_the_experiments_runs(tmp_path,
                                                                                mirror):
    """`snakemake zeng2009-small` (8 x 8 digits, colon from the mirror): Table 2, Figures 1-3,
    the claims appended to the experiment's paper_vs_ours.tsv; the grid's LLC-fs at the paper's
    (k, lambda) scores every run as the experiment's LLC-fs did."""
    import json

    work = tmp_path / "wf"
    work.mkdir()
    copy_workflow(work)
    # in this process (its jobs are processes of their own; a subprocess: ~2 s of CPU more)
    proc = snakemake_in_process(work, "--cores", "2", "zeng2009-small", "reproduction",
                                "--config", f"mirror={mirror}",
                                "reproduction={papers: [zeng2009-small], "
                                "target_papers: [zeng2009-small]}")
    assert proc.returncode == 0, proc.stderr[-4000:]
    # the reproduction summary counts every row of the paper's table once
    summary = pd.read_csv(work / "results/reproduction.tsv", sep="\t")
    from fsclust.report.reproduction import STATUSES

    assert set(summary["status"]) <= set(STATUSES)
    vs_ours = pd.read_csv(work / "results/zeng2009-small/paper_vs_ours.tsv", sep="\t")
    assert len(summary) == len(vs_ours.drop_duplicates())
    assert "| zeng2009-small |" in (work / "results/reproduction.md").read_text()
    paper = work / "results/zeng2009-small/paper"
    for name in ("fig1_usps_tau.png", "fig2_genes_tau.png", "fig3_sensitivity.png",
                 "table2.md", "grid.tsv"):
        assert (paper / name).stat().st_size > 0
    table = pd.read_csv(paper / "table2.tsv", sep="\t")
    assert set(table["dataset"]) == {"digits-4v9", "digits-0v8", "colon-alon"}
    for ds, rows in table.groupby("dataset"):
        assert list(rows["method"])[:4] == zeng2009.TABLE2_METHODS
        assert (rows["runs"] == 3).all()
    claims = pd.read_csv(paper / "claims.tsv", sep="\t")
    combined = pd.read_csv(work / "results/zeng2009-small/paper_vs_ours.tsv", sep="\t")
    assert len(claims) > 0 and combined["note"].tolist()[-len(claims):] == claims["note"].tolist()
    # every claim of LLC-fs states the rule it ran under: the experiment's, LLCFS's default
    llcfs = claims["method"].str.contains("LLC-fs|pixels")
    assert claims.loc[llcfs, "note"].str.endswith(f"; rule: {zeng2009.rule_text({})}").all()
    # no stopping experiment in zeng2009-small: the by-rule table is the experiment's LLC-fs,
    # holding where the claims table does
    by_rule = pd.read_csv(paper / "claims_by_rule.tsv", sep="\t", keep_default_na=False)
    assert list(by_rule.columns[-2:]) == ["llcfs_holds", "llcfs_value"]
    assert by_rule["llcfs_holds"].tolist() == [
        "yes" if note.startswith("holds: yes") else "no" for note in claims["note"]]
    assert "min_neighborhood_size = 2" in (paper / "claims_by_rule.md").read_text()
    for seed in (0, 1, 2):
        main, grid = (json.loads((work / f"results/{experiment}/rankings/colon-alon/{key}"
                                  / f"seed{seed}.json").read_text())
                      for experiment, key in (("zeng2009-small", "llcfs"),
                                              ("zeng2009-small-grid-genes", "llcfs-k30-lam1.0")))
        assert grid["labels_metrics"] == main["labels_metrics"]
        assert grid["n_iter"] == main["n_iter"]


def _dry_run(work, target, mirror):
    # in this process: the test reads the plan, which a subprocess would print at the cost of
    # a new interpreter's imports (~5 s of CPU)
    proc = snakemake_in_process(work, "-n", target, "--config", f"mirror={mirror}")
    assert proc.returncode == 0, proc.stderr[-4000:]
    return proc.stdout + proc.stderr


@pytest.mark.slow  # two Snakemake dry runs (the workflow parsed twice)
def test_dry_run_of_zeng2009_plans_the_stopping_experiment_and_small_does_not(tmp_path,
                                                                              mirror):
    work = copy_workflow(tmp_path)
    full = _dry_run(work, "zeng2009", mirror)
    assert "results/zeng2009/paper/claims_by_rule.tsv" in full
    assert "results/zeng2009-stopping/rankings/usps-0v8" in full
    small = _dry_run(work, "zeng2009-small", mirror)
    assert "results/zeng2009-small/paper/claims_by_rule.tsv" in small
    assert "zeng2009-stopping" not in small


@pytest.mark.slow  # the paper's data
def test_usps_0v8_llcfs_at_k30_stops_on_a_graph_split_off_a_few_samples():
    """Why LLC-fs scores 0.683 on USPS 0 vs 8 at the paper's k = 30 (Table 2) and is not flat in
    k (Fig. 3a): after the first tau update the mutual 30-nearest-neighbour graph falls into two
    components, one of a few samples; the relaxed indicator of two clusters is then that split,
    the trace stops changing and the run ends at iteration 2 with a cluster of about 1 % of the
    samples. At k = 50 the graph stays connected and LLC-fs reaches ACC 0.986."""
    from _mirror import HAS_MIRROR, MIRROR, SKIP_REASON
    from fsclust.datasets import get_entry, load_catalog, prepare
    from fsclust.rankers.llcfs import LLCFS

    if not HAS_MIRROR:
        pytest.skip(SKIP_REASON)
    entry = get_entry(load_catalog(ROOT / "config" / "datasets.tsv"), "usps-0v8")
    ds = prepare(entry, [MIRROR / f for f in entry.files])
    # one-neighbour local models (min_neighborhood_size=1), the default before issue 25
    at30 = LLCFS(n_clusters=2, n_neighbors=30, min_neighborhood_size=1, tol=1e-2,
                 random_state=0).fit(ds.X)
    assert at30.n_iter_ == 2 and at30.components_history_ == [1, 2]
    sizes = np.bincount(at30.labels_)
    assert sizes.min() <= 0.01 * len(ds.y)
    at50 = LLCFS(n_clusters=2, n_neighbors=50, min_neighborhood_size=1, max_iter=2,
                 random_state=0).fit(ds.X)
    assert at50.components_history_ == [1, 1]
    # FSASL's rule, the default since: no local model from a single neighbour, and the
    # graph at k = 30 stays whole through the iterations where it split
    fsasl = LLCFS(n_clusters=2, n_neighbors=30, max_iter=3, random_state=0).fit(ds.X)
    assert fsasl.components_history_ == [1, 1, 1] and fsasl.status_ == "max_iter"
