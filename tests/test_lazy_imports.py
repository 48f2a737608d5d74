"""Running one method imports that method: the packages' names are imported on first use."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

import fsclust.cluster
import fsclust.datasets
import fsclust.rankers

REPO = Path(__file__).resolve().parents[1]


def _modules_after(code):
    """The fsclust modules a fresh interpreter holds after running ``code``."""
    probe = (f"{code}\nimport sys, json\n"
             "print(json.dumps(sorted(m for m in sys.modules if m.startswith('fsclust'))))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True)
    return set(json.loads(out.stdout.splitlines()[-1]))


@pytest.mark.slow  # a new interpreter
def test_selecting_with_one_method_imports_no_other_method_nor_the_data_catalog():
    loaded = _modules_after(
        "import numpy as np, fsclust.api\n"
        "X = np.random.default_rng(0).standard_normal((20, 8))\n"
        "fsclust.api.select(X, 'laplacian', n_features=3, n_clusters=2)")
    rankers = {m for m in loaded if m.startswith("fsclust.rankers.")}
    assert rankers == {"fsclust.rankers.base", "fsclust.rankers.laplacian"}
    assert not loaded & {"fsclust.datasets.catalog", "fsclust.datasets.download",
                         "fsclust.cluster.ncut", "fsclust.report"}


@pytest.mark.parametrize("package", [fsclust.rankers, fsclust.cluster, fsclust.datasets])
def test_every_public_name_resolves_and_is_listed(package):
    for name in package.__all__:
        assert getattr(package, name) is not None
        assert name in dir(package)
    with pytest.raises(AttributeError, match="has no attribute 'not_a_name'"):
        package.not_a_name  # noqa: B018


def test_a_name_imported_from_the_package_is_the_module_s_own():
    from fsclust.rankers import MCFS
    from fsclust.rankers.mcfs import MCFS as own

    assert MCFS is own


@pytest.mark.slow  # a new interpreter
def test_fetching_and_preparing_a_mirror_file_imports_no_scikit_learn(tmp_path, mirror):
    # the workflow's download and prepare jobs, one per file and per dataset: scikit-learn's
    # import (with scipy.stats and pandas) was most of each job's CPU
    raw = tmp_path / "tomlins-2006_database.txt"
    code = ("from fsclust import steps\n"
            "with steps.logged({log!r}):\n"
            "    steps.download('desouto-tomlins-2006', {sheet!r}, {raw!r}, mirror={mirror!r})\n"
            "    steps.prepare('desouto-tomlins-2006', {sheet!r}, {out!r}, raw_path=[{raw!r}])\n"
            "import sys\n"
            "print('sklearn' in sys.modules)").format(
        log=str(tmp_path / "job.log"), sheet=str(REPO / "config" / "datasets.tsv"),
        raw=str(raw), mirror=str(mirror), out=str(tmp_path / "prepared.npz"))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert (tmp_path / "prepared.npz").is_file()
    assert out.stdout.split() == ["False"]
