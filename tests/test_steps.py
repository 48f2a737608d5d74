"""The evaluate step: one job ranks every seed and sweeps every clusterer; what it writes."""

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_blobs

from fsclust.datasets import Dataset, save_dataset
from fsclust.rankers.base import constant_features, mean_plus_std_rule
from fsclust.ranking import rank_features, read_ranking
from fsclust.steps.seeds import derive_seed
from fsclust import steps
from fsclust.steps import evaluation, planning

CLUSTERERS = {"kmeans": {"method": "kmeans", "params": {"n_init": 2}},
              "ncut": {"method": "ncut", "params": {"t_rule": "median"}}}


@pytest.fixture
def blobs(tmp_path):
    X, y = make_blobs(n_samples=60, centers=3, n_features=3, cluster_std=0.5, random_state=0)
    noise = np.random.default_rng(0).normal(size=(60, 5))
    X = np.hstack([X, noise])
    path = tmp_path / "blobs.npz"
    save_dataset(Dataset(X=X, y=y, feature_names=[f"f{j}" for j in range(8)],
                         sample_names=[f"s{i}" for i in range(60)],
                         class_names=["a", "b", "c"]), path)
    return path, X, y


def _evaluate(data, tmp_path, methods, *, nested=False, baseline=False, grid=(1, 2, 4),
              seeds=(0, 1), references=None, name="job"):
    out = tmp_path / name
    steps.evaluate(str(data), str(out / "sweep.tsv"), dataset="blobs", methods=methods,
                   rankings_dir=str(out / "rankings"), seeds=list(seeds), clusterers=CLUSTERERS,
                   grid_spec=list(grid), metrics=["acc", "nmi"], baseline=baseline,
                   nested=nested, references=references)
    return out


def test_a_method_without_random_choices_is_ranked_once_for_every_seed(blobs, tmp_path):
    data, X, _ = blobs
    out = _evaluate(data, tmp_path, {"variance": {"method": "variance"}})
    a, b = (out / "rankings" / f"seed{s}.tsv" for s in (0, 1))
    assert a.read_bytes() == b.read_bytes()
    info = json.loads((out / "rankings" / "seed1.json").read_text())
    assert info["shared_by_seeds"] is True and info["seed"] == 1
    expected = rank_features(X, "variance").feature_order_
    assert read_ranking(a)["index"].tolist() == expected.tolist()


def test_a_random_method_is_fitted_per_seed_with_the_seed_of_its_name(blobs, tmp_path):
    data, X, _ = blobs
    spec = {"method": "gha", "params": {"n_components": 2}}
    out = _evaluate(data, tmp_path, {"gha": spec})
    for seed in (0, 1):
        direct = rank_features(X, "gha", spec["params"], n_clusters=3,
                               random_state=derive_seed(seed, "blobs", "gha"))
        got = read_ranking(out / "rankings" / f"seed{seed}.tsv")["index"].to_numpy()
        assert np.array_equal(got, direct.feature_order_)
        assert "shared_by_seeds" not in json.loads((out / "rankings" / f"seed{seed}.json").read_text())


@pytest.mark.parametrize("method, params", [("llcfs", {"n_neighbors": 10}),
                                             ("qalpha", {"init": "uniform"})])
def test_a_method_that_draws_only_its_labels_is_fitted_once_and_relabelled(blobs, tmp_path,
                                                                          method, params):
    from fsclust.metrics import evaluate as score

    data, X, y = blobs
    out = _evaluate(data, tmp_path, {method: {"method": method, "params": params}},
                    seeds=(0, 1, 2))
    for seed in (0, 1, 2):
        info = json.loads((out / "rankings" / f"seed{seed}.json").read_text())
        assert info["shared_by_seeds"] is True
        direct = rank_features(X, method, params, n_clusters=3,
                               random_state=derive_seed(seed, "blobs", method))
        assert info["random_state"] == derive_seed(seed, "blobs", method)
        # the same labels, hence metrics, as a fit with this seed's own stream
        assert info["labels_metrics"] == score(y, direct.labels_, ["acc", "nmi"])
        got = read_ranking(out / "rankings" / f"seed{seed}.tsv")["index"].to_numpy()
        assert np.array_equal(got, direct.feature_order_)


def test_sweep_has_every_seed_clusterer_and_m_of_the_grid(blobs, tmp_path):
    data, _, y = blobs
    out = _evaluate(data, tmp_path, {"variance": {"method": "variance"}})
    sweep = pd.read_csv(out / "sweep.tsv", sep="\t")
    assert len(sweep) == 2 * 2 * 4  # seeds x clusterers x (1, 2, 4, d = 8)
    assert set(sweep["n_features"]) == {1, 2, 4, 8} and (sweep["in_grid"] == 1).all()
    assert sweep[["acc", "nmi"]].apply(lambda c: c.between(0, 1)).all().all()


def test_grain_dataset_gives_the_files_of_one_job_per_method(blobs, tmp_path):
    data, _, _ = blobs
    methods = {"variance": {"method": "variance"},
               "laplacian": {"method": "laplacian", "params": {"n_neighbors": 5}}}
    together = _evaluate(data, tmp_path, methods, nested=True, baseline=True, name="together")
    rows = []
    for key, spec in methods.items():
        alone = _evaluate(data, tmp_path, {key: spec}, name=key)
        for seed in (0, 1):
            assert ((together / "rankings" / key / f"seed{seed}.tsv").read_bytes()
                    == (alone / "rankings" / f"seed{seed}.tsv").read_bytes())
        rows.append(pd.read_csv(alone / "sweep.tsv", sep="\t"))
    rows.append(pd.read_csv(_evaluate(data, tmp_path, {}, baseline=True, name="all-features")
                            / "sweep.tsv", sep="\t"))
    keys = ["method", "seed", "clusterer", "n_features"]
    pd.testing.assert_frame_equal(
        pd.read_csv(together / "sweep.tsv", sep="\t").sort_values(keys, ignore_index=True),
        pd.concat(rows).sort_values(keys, ignore_index=True))


def test_frmv_reads_the_ensemble_frcm_kept(blobs, tmp_path):
    # FRCM and FRMV share one ensemble per trial (Zhang et al. 2012): FRMV given FRCM's
    # stored ensemble ranks as FRMV fitted on that very ensemble
    data, X, _ = blobs
    frcm = {"method": "frcm", "params": {"n_partitions": 10, "max_clusters": 4}}
    frmv = {"method": "frmv", "params": {"n_partitions": 10, "max_clusters": 4,
                                         "ensemble": {"from": "frcm", "attribute": "ensemble"}}}
    # FRMV listed first: the job still runs FRCM first
    out = _evaluate(data, tmp_path, {"frmv": frmv, "frcm": frcm}, nested=True, seeds=(3,))
    fitted = rank_features(X, "frcm", frcm["params"], n_clusters=3,
                           random_state=derive_seed(3, "blobs", "frcm"))
    kept = steps.read_artifact(out / "rankings" / "frcm" / "seed3.npz", "consensus_matrix")
    assert np.array_equal(kept, fitted.consensus_matrix_)  # bit for bit from the counts
    direct = rank_features(X, "frmv", {**frmv["params"], "ensemble": fitted.ensemble_},
                           n_clusters=3, random_state=derive_seed(3, "blobs", "frmv"))
    got = read_ranking(out / "rankings" / "frmv" / "seed3.tsv")["index"].to_numpy()
    assert np.array_equal(got, direct.feature_order_)


def test_selected_by_reads_the_n_of_another_method(tmp_path):
    source = tmp_path / "kp"
    source.mkdir()
    (source / "seed2.json").write_text(json.dumps({"n_features_selected": 3}))
    refs = {"kp": source}
    assert steps.resolve_references({"k": {"selected_by": "kp"}, "a": 1}, 2, refs) == {"k": 3, "a": 1}
    points, grid, marks = steps.sweep_grid([1, 5, {"selected_by": "kp"}], 8, 2, refs)
    assert points == [1, 3, 5, 8] and grid == {1, 5, 8} and marks == {3: ["kp"]}
    (source / "seed2.json").write_text(json.dumps({"n_features_selected": 0}))
    assert steps.reference_value({"selected_by": "kp"}, 2, refs) == 1  # a filter needs one
    with pytest.raises(ValueError, match="not an input of this job"):
        steps.reference_value({"selected_by": "other"}, 2, refs)


def test_informative_point_is_the_mean_plus_sd_subset_and_the_top_of_the_ranking(blobs):
    _, X, _ = blobs
    X = np.hstack([X, np.ones((X.shape[0], 1))])  # a constant feature never counts
    ranker = rank_features(X, "laplacian", {"n_neighbors": 5})
    m = steps.informative_count(ranker, X)
    keep = mean_plus_std_rule(ranker.scores_, False, constant_features(X))
    assert m == keep.sum() > 0
    assert set(ranker.feature_order_[:m]) == set(np.flatnonzero(keep))
    points, grid, marks = steps.sweep_grid([2, {"informative": "mean_plus_std"}], X.shape[1], 0,
                                           {}, ranker=ranker, X=X)
    assert marks[m] == ["mean_plus_std"] and m in points


def test_a_failing_job_leaves_no_rankings_and_no_sweep(blobs, tmp_path):
    data, _, _ = blobs
    methods = {"variance": {"method": "variance"},
               "bad": {"method": "laplacian", "params": {"n_neighbors": "many"}}}
    with pytest.raises(Exception):
        _evaluate(data, tmp_path, methods, nested=True)
    assert not any((tmp_path / "job").rglob("*.tsv"))
    assert not (tmp_path / "job" / "rankings").exists()


def test_methods_that_refer_to_each_other_in_a_cycle_are_an_error():
    methods = {"a": {"method": "mcfs", "params": {"n_nonzero_coefs": {"selected_by": "b"}}},
               "b": {"method": "mcfs", "params": {"n_nonzero_coefs": {"selected_by": "a"}}}}
    with pytest.raises(ValueError, match="cycle"):
        planning._dependency_order(methods)


def test_a_method_sweeps_its_own_grid(blobs, tmp_path):
    # Maldonado's MCFS at n: its own grid, the n another method kept for the seed
    data, _, _ = blobs
    source = tmp_path / "kp"
    source.mkdir()
    for seed in (0, 1):
        (source / f"seed{seed}.json").write_text(json.dumps({"n_features_selected": 2 + seed}))
    spec = {"method": "variance", "sweep": {"n_features": {"selected_by": "kp"}}}
    out = _evaluate(data, tmp_path, {"v": spec}, references={"kp": source})
    sweep = pd.read_csv(out / "sweep.tsv", sep="\t")
    assert sorted(set(zip(sweep["seed"], sweep["n_features"]))) == [(0, 2), (1, 3)]
    assert (sweep["selected_by"] == "kp").all() and (sweep["in_grid"] == 0).all()


def test_a_method_whose_grid_names_itself_reads_its_own_fitted_n(blobs, tmp_path):
    # KP-Kmeans' Table 3 point is the n it keeps itself: its sidecar is written after its grid
    # is known, so the grid reads the fitted ranker, not the (not yet written) sidecar
    data, _, _ = blobs
    spec = {"method": "kpkmeans", "params": {"max_outer": 3, "n_init": 2},
            "sweep": {"n_features": [1, {"selected_by": "kp"}]}}
    out = _evaluate(data, tmp_path, {"kp": spec}, seeds=(0,))
    info = json.loads((out / "rankings" / "seed0.json").read_text())
    sweep = pd.read_csv(out / "sweep.tsv", sep="\t")
    own = sweep[sweep["selected_by"] == "kp"]
    assert set(own["n_features"]) == {max(info["n_features_selected"], 1)}


def test_keep_chooses_the_arrays_written_beside_the_ranking(blobs, tmp_path):
    data, _, _ = blobs
    frcm = {"method": "frcm", "params": {"n_partitions": 5, "max_clusters": 4}}
    out = _evaluate(data, tmp_path, {"frcm": {**frcm, "keep": ["ensemble"]}}, seeds=(0,))
    with np.load(out / "rankings" / "seed0.npz") as kept:
        assert kept.files == ["ensemble"]
    out = _evaluate(data, tmp_path, {"frcm": {**frcm, "keep": []}}, seeds=(0,), name="none")
    assert not (out / "rankings" / "seed0.npz").exists()


def test_a_method_is_evaluated_by_the_clusterers_it_names_only(blobs, tmp_path):
    data, _, _ = blobs
    methods = {"variance": {"method": "variance", "clusterers": ["ncut"]},
               "laplacian": {"method": "laplacian", "params": {"n_neighbors": 5}}}
    out = _evaluate(data, tmp_path, methods, nested=True, baseline=True)
    sweep = pd.read_csv(out / "sweep.tsv", sep="\t")
    assert set(sweep.loc[sweep["method"] == "variance", "clusterer"]) == {"ncut"}
    assert set(sweep.loc[sweep["method"] == "laplacian", "clusterer"]) == {"kmeans", "ncut"}
    assert set(sweep.loc[sweep["method"] == "all-features", "clusterer"]) == {"kmeans", "ncut"}


def test_grid_values_above_d_are_dropped_with_a_warning(caplog):
    import logging

    with caplog.at_level(logging.WARNING, logger="fsclust"):
        points, grid, marks = steps.sweep_grid([2, 4, 16, 32], 8, 0, {})
    assert points == [2, 4, 8]
    assert "sweep n_features 16, 32 above d = 8" in caplog.text


def test_a_sweep_that_cannot_be_written_leaves_no_rankings(blobs, tmp_path, monkeypatch):
    import errno

    data, _, _ = blobs

    def full_disk(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(evaluation, "write_table_atomic", full_disk)
    with pytest.raises(OSError):
        _evaluate(data, tmp_path, {"variance": {"method": "variance"}})
    leftovers = [p.name for p in (tmp_path / "job").iterdir()] if (tmp_path / "job").exists() else []
    assert leftovers == []


def test_a_clusterer_seed_key_draws_that_keys_stream(blobs, tmp_path):
    """Every point of a clusterer grid may draw one clusterer's stream (``seed_key``): its
    partition is that of a fit with ``derive_seed(seed, dataset, seed_key)``."""
    from fsclust.registry import make_clusterer

    data, X, y = blobs
    clusterers = {"km": {"method": "kmeans", "params": {"n_init": 1}, "seed_key": "kmeans"},
                  "kmeans": {"method": "kmeans", "params": {"n_init": 1}}}
    steps.evaluate(str(data), str(tmp_path / "sweep.tsv"), dataset="blobs", methods={},
                   rankings_dir=None, seeds=[0, 1, 2], clusterers=clusterers, grid_spec="all",
                   metrics=["acc", "nmi"], baseline=True)
    rows = pd.read_csv(tmp_path / "sweep.tsv", sep="\t")
    km, own = (rows[rows["clusterer"] == k].set_index("seed") for k in ("km", "kmeans"))
    assert km[["acc", "nmi"]].equals(own[["acc", "nmi"]])
    from fsclust.metrics import evaluate

    for seed in (0, 1, 2):
        labels = make_clusterer("kmeans", {"n_init": 1}, n_clusters=3,
                                random_state=derive_seed(seed, "blobs", "kmeans")).fit(X).labels_
        assert evaluate(y, labels, ["acc"])["acc"] == pytest.approx(km.loc[seed, "acc"],
                                                                   rel=1e-9)


def test_sweep_rows_carry_the_attributes_a_clusterer_reports(blobs, tmp_path):
    """LLC reports its objective, isolated samples and components (its tag), one column each;
    a clusterer that reports nothing leaves them empty, and a job without reporting
    clusterers writes exactly the fixed columns."""
    from fsclust.cluster.llc import LLC

    data, X, y = blobs
    clusterers = {"llc": {"method": "llc", "params": {"n_neighbors": 10}},
                  "kmeans": {"method": "kmeans", "params": {"n_init": 2}}}
    steps.evaluate(str(data), str(tmp_path / "sweep.tsv"), dataset="blobs", methods={},
                   rankings_dir=None, seeds=[0, 1], clusterers=clusterers, grid_spec="all",
                   metrics=["acc"], baseline=True)
    rows = pd.read_csv(tmp_path / "sweep.tsv", sep="\t")
    assert list(rows.columns) == [*steps.SWEEP_KEYS, "acc", "in_grid", "selected_by",
                                  "objective", "n_isolated", "n_components"]
    direct = LLC(n_clusters=3, n_neighbors=10).fit(X)
    llc = rows[rows["clusterer"] == "llc"]
    assert llc["objective"].tolist() == pytest.approx([direct.objective_] * 2, rel=1e-9)
    assert (llc["n_isolated"] == direct.n_isolated_).all()
    assert (llc["n_components"] == direct.n_components_).all()
    assert rows.loc[rows["clusterer"] == "kmeans", ["objective", "n_isolated"]].isna().all().all()
    out = _evaluate(data, tmp_path, {}, baseline=True)
    assert list(pd.read_csv(out / "sweep.tsv", sep="\t").columns) == [
        *steps.SWEEP_KEYS, "acc", "nmi", "in_grid", "selected_by"]
