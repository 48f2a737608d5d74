import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from fsclust import __version__
from fsclust.cli import main


@pytest.fixture
def expression(tmp_path):
    """A small expression-like table: 2 informative genes, 3 noise genes, 1 constant gene."""
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 20)
    informative = y[:, None] * 4.0 + rng.normal(scale=0.3, size=(40, 2))
    noise = rng.normal(size=(40, 3))
    X = np.hstack([noise[:, :1], informative[:, :1], noise[:, 1:], informative[:, 1:],
                   np.full((40, 1), 2.0)])
    df = pd.DataFrame(X, columns=["n1", "g1", "n2", "n3", "g2", "const"],
                      index=[f"s{i}" for i in range(40)])
    df.insert(0, "class", np.where(y == 1, "tumour", "normal"))
    path = tmp_path / "expr.tsv"
    df.to_csv(path, sep="\t", index_label="sample")
    return path


def test_rank_writes_feature_score_rank_sorted(expression, tmp_path):
    out = tmp_path / "ranking.tsv"
    code = main(["rank", "--method", "laplacian", "--input", str(expression), "--output",
                 str(out), "--label-column", "class", "--set", "n_neighbors=5"])
    assert code == 0
    table = pd.read_csv(out, sep="\t")
    assert list(table.columns) == ["feature", "score", "rank"]
    assert table["rank"].tolist() == list(range(1, 7))
    assert "class" not in set(table["feature"])
    assert set(table["feature"][:2]) == {"g1", "g2"}  # the cluster-carrying genes first
    assert table["feature"].iloc[-1] == "const"  # a constant gene is ranked last


def test_rank_is_byte_identical_for_the_same_seed(expression, tmp_path):
    paths = [tmp_path / "a.tsv", tmp_path / "b.tsv"]
    for p in paths:
        main(["rank", "--method", "laplacian", "--input", str(expression), "--output", str(p),
              "--label-column", "class", "--seed", "3"])
    assert paths[0].read_bytes() == paths[1].read_bytes()


def test_unknown_method_is_exit_2_listing_valid_methods(expression, tmp_path, capsys):
    code = main(["rank", "--method", "lapl", "--input", str(expression), "--output",
                 str(tmp_path / "x.tsv")])
    assert code == 2
    err = capsys.readouterr().err
    assert "unknown method 'lapl'" in err and "laplacian" in err and "variance" in err
    assert not (tmp_path / "x.tsv").exists()


def test_bad_set_syntax_is_reported(expression, tmp_path):
    with pytest.raises(SystemExit, match="PARAM=VALUE"):
        main(["rank", "--method", "variance", "--input", str(expression), "--output",
              str(tmp_path / "x.tsv"), "--set", "oops"])


def test_version_and_methods_from_the_installed_entry_point():
    out = subprocess.run([sys.executable, "-m", "fsclust.cli", "--version"], capture_output=True,
                         text=True, check=True)
    assert out.stdout.strip() == f"fsclust {__version__}"
    out = subprocess.run([sys.executable, "-m", "fsclust.cli", "methods"], capture_output=True,
                         text=True, check=True)
    assert "laplacian" in out.stdout and "ncut" in out.stdout


def test_datasets_lists_the_registry(capsys):
    assert main(["datasets"]) == 0
    out = capsys.readouterr().out
    for name in ("iris", "synthetic-blobs", "desouto-armstrong-2002-v2"):
        assert name in out
