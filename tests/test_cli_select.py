"""`fsclust select`: m and K chosen without labels, four files written together or not at all."""

import contextlib
import inspect
import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fsclust.cli import build_parser, main
from fsclust.metrics import adjusted_rand
from fsclust.selection import CRITERIA, LabelFreeSelector

FILES = ("ranking.tsv", "labels.tsv", "criterion.tsv", "summary.json")
SCORES = ("acc", "nmi", "ari", "n_classes", "label_column")
N_PER_GROUP, N_NOISE = 15, 12
INFORMATIVE = [f"g{i}" for i in range(6)]
# 4 subsamples, not the default 30: the informative block and K = 3 are chosen at seeds 0-4
# with 4 as with 8 (the search over m and K: 4.7 -> 3.2 s of CPU at 8 -> 4)
FAST = ["--n-resamples", "4"]


def _table(labelled):
    """3 groups of samples; group g is shifted by 4 on the informative pair g(2g), g(2g+1), so
    the 6 informative features form one block; 12 noise features and a constant one."""
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1, 2], N_PER_GROUP)
    shift = np.kron(np.eye(3), [4.0, 4.0])
    X = np.hstack([shift[y] + rng.normal(size=(y.size, 6)), rng.normal(size=(y.size, N_NOISE))])
    df = pd.DataFrame(X, columns=INFORMATIVE + [f"n{i}" for i in range(N_NOISE)],
                      index=[f"s{i}" for i in range(y.size)])
    df["flat"] = 1.0
    if labelled:
        df.insert(3, "group", np.array(["a", "b", "c"])[y])
    return df, y


def _write(df, path):
    df.to_csv(path, sep="\t", index_label="sample")
    return path


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """The same matrix without and with a label column."""
    folder = tmp_path_factory.mktemp("inputs")
    return {name: _write(_table(name == "labelled")[0], folder / f"{name}.tsv")
            for name in ("plain", "labelled")}


def _select(inputs, out, *extra, labelled=False):
    """Run select in-process; return its exit code and stderr."""
    source = inputs["labelled" if labelled else "plain"]
    argv = ["select", "--method", "laplacian", "--input", str(source), "--output-dir", str(out),
            *FAST, *extra]
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code
    return code, stderr.getvalue()


@pytest.fixture(scope="module")
def searched(inputs, tmp_path_factory):
    """m and K both searched, no labels."""
    out = tmp_path_factory.mktemp("searched") / "out"
    code, err = _select(inputs, out)
    assert code == 0, err
    return out, err


def _summary(out):
    return json.loads((out / "summary.json").read_text())


def test_the_informative_block_is_selected_and_the_three_groups_found(searched):
    out, err = searched
    summary = _summary(out)
    ranking = pd.read_csv(out / "ranking.tsv", sep="\t")
    chosen = set(ranking["feature"][ranking["selected"]])
    assert chosen and chosen <= set(INFORMATIVE)
    assert summary["n_clusters"] == 3
    labels = pd.read_csv(out / "labels.tsv", sep="\t")
    assert adjusted_rand(_table(False)[1], labels["cluster"]) > 0.9
    assert (f"kept {len(chosen)} of {6 + N_NOISE + 1} features, K = 3 clusters (criterion "
            "stability = ") in err
    assert "rule one-se: the smallest sufficient m)" in err
    if summary["stable_n_features"] != summary["n_features"]:
        assert (f"the most stable set at K = 3 is m = {summary['stable_n_features']} "
                "(feature-set stability") in err


def test_the_four_files_and_their_columns(searched):
    out, _ = searched
    assert sorted(p.name for p in out.iterdir()) == sorted(FILES)
    assert not [p for p in out.parent.iterdir() if p.name.startswith(".")]  # no temporary left
    summary = _summary(out)
    m, k = summary["n_features"], summary["n_clusters"]

    ranking = pd.read_csv(out / "ranking.tsv", sep="\t")
    assert list(ranking.columns) == ["feature", "score", "rank", "selected", "tied"]
    assert ranking["tied"].dtype == bool
    assert ranking["rank"].tolist() == list(range(1, len(ranking) + 1))
    assert ranking["selected"].dtype == bool and ranking["selected"].sum() == m
    assert ranking["selected"].tolist() == (ranking["rank"] <= m).tolist()  # Laplacian: nested
    assert ranking["feature"].iloc[-1] == "flat"  # the constant feature, last

    labels = pd.read_csv(out / "labels.tsv", sep="\t")
    assert list(labels.columns) == ["sample", "cluster"]
    assert labels["sample"].tolist() == [f"s{i}" for i in range(3 * N_PER_GROUP)]
    assert labels["cluster"].nunique() == k

    criterion = pd.read_csv(out / "criterion.tsv", sep="\t")
    for name in CRITERIA:
        if name != "excess":  # the null data are clustered only when excess chooses
            assert {name, f"{name}_se"} <= set(criterion.columns)
    assert {"feature_stability", "feature_stability_lower",
            "feature_stability_upper"} <= set(criterion.columns)
    pairs = set(zip(criterion["n_features"], criterion["n_clusters"]))
    assert len(pairs) == len(criterion) > 1 and (m, k) in pairs
    assert criterion["n_clusters"].nunique() > 1 and criterion["n_features"].nunique() > 1
    assert (criterion["feature_stability_lower"] <= criterion["feature_stability"]).all()
    assert (criterion["feature_stability"] <= criterion["feature_stability_upper"]).all()

    assert summary["method"] == "laplacian" and summary["criterion"] == "stability"
    assert summary["n_samples"] == 3 * N_PER_GROUP
    assert summary["n_features_in"] == 6 + N_NOISE + 1
    assert summary["seed"] == 0 and "fsclust_version" in summary
    assert {"rule", "eigengap_n_clusters", "parameters"} <= set(summary)
    assert not set(SCORES) & set(summary)  # no labels, no scores
    # beside the sparsest sufficient m, the most stable set at the chosen K (issue 40)
    stable = summary["stable_n_features"]
    at_k = criterion[criterion["n_clusters"] == k].set_index("n_features")
    assert stable < summary["n_features_in"]
    assert summary["stable_feature_stability"] == pytest.approx(
        at_k.loc[stable, "feature_stability"], abs=1e-4)


def test_labels_set_k_and_score_the_result_but_never_choose_the_features(inputs, tmp_path):
    # K comes from the labels' 3 classes (issue 24: K is never a silent default); the features
    # and the clusters are those of the same K given without labels
    out = tmp_path / "given"
    assert _select(inputs, out, "--n-clusters", "3")[0] == 0
    code, err = _select(inputs, tmp_path / "out", "--label-column", "group", labelled=True)
    assert code == 0, err
    assert "K from the 3 classes of --label-column 'group'" in err
    for name in FILES[:3]:
        assert (tmp_path / "out" / name).read_bytes() == (out / name).read_bytes(), name
    with_labels, without = _summary(tmp_path / "out"), _summary(out)
    assert with_labels["n_classes"] == 3 and with_labels["label_column"] == "group"
    for name in ("acc", "nmi", "ari"):
        assert 0 <= with_labels[name] <= 1
    assert (with_labels["k_source"], without["k_source"]) == ("labels", "given")
    different = {key for key in with_labels if with_labels[key] != without.get(key)}
    assert different == {*SCORES, "input", "k_source"}


@pytest.mark.slow  # worker processes (as n_jobs's tests in test_api and test_selection)
def test_results_do_not_depend_on_n_jobs(inputs, tmp_path):
    outs = [tmp_path / f"jobs{j}" for j in (1, 2)]
    for j, out in zip((1, 2), outs):
        code, err = _select(inputs, out, "--n-clusters", "3", "--n-jobs", str(j))
        assert code == 0, err
    for name in FILES:
        assert (outs[0] / name).read_bytes() == (outs[1] / name).read_bytes(), name
    # K given: m alone is searched
    criterion = pd.read_csv(outs[0] / "criterion.tsv", sep="\t")
    assert set(criterion["n_clusters"]) == {3} and criterion["n_features"].nunique() > 1


def test_integer_m_and_k_skip_the_search(inputs, tmp_path):
    out = tmp_path / "out"
    for _ in range(2):  # the second run replaces the first's output
        code, err = _select(inputs, out, "--n-features", "4", "--n-clusters", "3")
        assert code == 0, err
    criterion = pd.read_csv(out / "criterion.tsv", sep="\t")
    assert criterion[["n_features", "n_clusters"]].values.tolist() == [[4, 3]]
    assert pd.read_csv(out / "ranking.tsv", sep="\t")["selected"].sum() == 4
    assert pd.read_csv(out / "labels.tsv", sep="\t")["cluster"].nunique() == 3
    assert (_summary(out)["n_features"], _summary(out)["n_clusters"]) == (4, 3)
    assert "kept 4 of 19 features, K = 3 clusters (m and K given, no search)" in err


def test_m_given_searches_k_alone(inputs, tmp_path):
    code, err = _select(inputs, tmp_path / "out", "--n-features", "6", "--n-resamples", "4")
    assert code == 0, err
    criterion = pd.read_csv(tmp_path / "out" / "criterion.tsv", sep="\t")
    assert set(criterion["n_features"]) == {6} and criterion["n_clusters"].nunique() > 1
    assert "; m given)" in err


BAD = {
    "unknown-method": (["--method", "lapl"], ["--method lapl is not a registered method",
                                              "did you mean 'laplacian'", "variance"]),
    "unknown-method-in-a-list": (["--method", "laplacian,spex"], ["did you mean 'spec'"]),
    "n-features-zero": (["--n-features", "0"], ["--n-features 0", "at least 1"]),
    "n-features-above-d": (["--n-features", "20"], ["--n-features 20 is out of range",
                                                    "between 1 and the 18 features",
                                                    "(1 of the 19 are constant)"]),
    "n-features-text": (["--n-features", "many"],
                        ["argument --n-features: expects auto or an integer, got 'many'"]),
    "n-clusters-one": (["--n-clusters", "1"], ["--n-clusters 1", "at least 2"]),
    "n-clusters-subsample": (["--n-clusters", "36"], ["--n-clusters 36 is out of range",
                                                      "subsample size minus one (35"]),
    "subsample-one": (["--subsample", "1"], ["--subsample 1.0 is out of range",
                                             "strictly between 0 and 1"]),
    "subsample-zero": (["--subsample", "0"], ["--subsample 0.0 is out of range"]),
    "subsample-too-small": (["--subsample", "0.05"],
                            ["--subsample 0.05 of 45 samples gives 2", "at least 3"]),
    "one-resample": (["--n-resamples", "1"], ["--n-resamples 1 is out of range"]),
    "zero-jobs": (["--n-jobs", "0"], ["--n-jobs 0"]),
    "unknown-criterion": (["--criterion", "gap"], ["--criterion gap: choose one of",
                                                   *CRITERIA]),
    "unknown-rule": (["--rule", "elbow"], ["--rule elbow: choose one of", "one-se"]),
    "set-n-clusters": (["--method", "mcfs", "--set", "n_clusters=3"],
                       ["--set n_clusters: select sets it; use --n-clusters K"]),
    "set-n-features": (["--set", "n_features_to_select=3"],
                       ["--set n_features_to_select: select sets it; use --n-features M"]),
    "set-bad-type": (["--set", "n_neighbors=abc"], ["n_neighbors expects an integer"]),
    "non-numeric-column": (["--input", "labelled.tsv"],
                           ["column 'group' is not numeric", "--label-column group"]),
    "input-missing": (["--input", "nowhere.tsv"], ["--input nowhere.tsv: no such file"]),
    "output-dir-is-a-file": (["--output-dir", "afile"], ["--output-dir afile is a file"]),
    "output-dir-holds-other-files": (["--output-dir", "adir"],
                                     ["--output-dir adir holds other files ('keep.txt')"]),
    "output-dir-missing-parent": (["--output-dir", "no/out"], ["directory no does not exist"]),
    "output-dir-is-here": (["--output-dir", "."], ["is the current directory"]),
    "method-missing": (["--method", None], ["the following arguments are required: --method"]),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_input_is_one_line_exit_2_before_any_work(case, inputs, tmp_path, capsys,
                                                      monkeypatch):
    def no_fit(*args, **kwargs):
        raise AssertionError("fitted")

    monkeypatch.setattr(LabelFreeSelector, "fit", no_fit)
    monkeypatch.chdir(tmp_path)
    _write(_table(True)[0], tmp_path / "labelled.tsv")
    (tmp_path / "afile").write_text("")
    (tmp_path / "adir").mkdir()
    (tmp_path / "adir" / "keep.txt").write_text("mine")
    before = sorted(p.name for p in tmp_path.rglob("*"))
    extra, expected = BAD[case]
    argv = {"--method": "laplacian", "--input": str(inputs["plain"]), "--output-dir": "out"}
    argv.update(zip(extra[::2], extra[1::2]))
    flat = [v for key, value in argv.items() if value is not None for v in (key, value)]
    try:
        code = main(["select", *FAST, *flat])
    except SystemExit as exc:
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fsclust: error: "), err
    for fragment in expected:
        assert fragment in lines[0], lines[0]
    assert sorted(p.name for p in tmp_path.rglob("*")) == before  # nothing written
    assert (tmp_path / "adir" / "keep.txt").read_text() == "mine"


def test_unwritable_output_dir_is_refused(inputs, read_only_dir):
    ro = read_only_dir
    code, err = _select(inputs, ro / "out")
    assert code == 2 and err.count("\n") == 1
    assert f"--output-dir {ro / 'out'}: directory {ro} is not writable" in err
    assert not any(ro.iterdir())


def test_a_failure_while_writing_leaves_the_earlier_output(inputs, tmp_path, monkeypatch):
    out = tmp_path / "out"
    fixed = ("--n-features", "4", "--n-clusters", "3")
    assert _select(inputs, out, *fixed)[0] == 0
    earlier = {name: (out / name).read_bytes() for name in FILES}
    real_to_csv = pd.DataFrame.to_csv

    def full_disk_at_the_criterion(self, path, *args, **kwargs):
        if Path(path).name == "criterion.tsv":
            Path(path).write_text("n_features\tn_clu")
            raise OSError(28, "No space left on device")
        return real_to_csv(self, path, *args, **kwargs)

    monkeypatch.setattr(pd.DataFrame, "to_csv", full_disk_at_the_criterion)
    code, err = _select(inputs, out, "--seed", "1", *fixed)
    assert code == 2 and "Traceback" not in err
    assert {name: (out / name).read_bytes() for name in FILES} == earlier
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_a_degenerate_result_is_a_warning_line(inputs, tmp_path, monkeypatch):
    real_fit = LabelFreeSelector.fit

    def one_cluster(self, X, y=None):
        real_fit(self, X, y)
        self.labels_ = np.zeros_like(self.labels_)
        return self

    monkeypatch.setattr(LabelFreeSelector, "fit", one_cluster)
    code, err = _select(inputs, tmp_path / "out", "--n-features", "4", "--n-clusters", "3")
    assert code == 0
    assert ("fsclust: warning: the clustering of all samples has 1 non-empty cluster(s), "
            "fewer than K = 3") in err


def test_help_documents_every_flag_and_the_selector_defaults(capsys):
    select = build_parser()._subparsers._group_actions[0].choices["select"]
    with pytest.raises(SystemExit):
        main(["select", "--help"])
    helptext = " ".join(capsys.readouterr().out.split())
    for action in select._actions:
        assert action.help and action.option_strings[-1] in helptext
    defaults = inspect.signature(LabelFreeSelector).parameters
    for flag, name in (("--criterion", "criterion"), ("--rule", "rule"),
                       ("--n-resamples", "n_resamples"), ("--subsample", "subsample")):
        shown = helptext.split(flag, 2)[-1]  # the option's own line, after the usage block
        assert f"(default: {defaults[name].default})" in shown.split(" --", 1)[0], flag


def test_a_method_that_rejects_the_subsample_size_names_the_flags(inputs, tmp_path):
    # LLC-fs's 30 neighbours do not fit in a subsample of 22 of the 45 samples
    code, err = _select(inputs, tmp_path / "out", "--method", "llcfs", "--n-clusters", "3",
                        "--subsample", "0.5", "--n-resamples", "2")
    assert code == 2 and err.count("\n") == 1 and err.startswith("fsclust: error: "), err
    assert "change it with --set n_neighbors=VALUE" in err
    assert "subsamples of 22 of the 45 samples" in err and "--subsample" in err
    assert not any(tmp_path.iterdir())


def test_the_help_names_every_criterion_and_rule_of_the_selector():
    from fsclust.selection import CRITERIA, RULES

    select = build_parser()._subparsers._group_actions[0].choices["select"]
    metavars = {action.option_strings[-1]: action.metavar for action in select._actions}
    assert metavars["--criterion"] == "|".join(CRITERIA)
    assert set(metavars["--rule"].split("|")) == set(RULES)
