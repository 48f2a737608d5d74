"""Running one method imports that method: the packages' names are imported on first use."""

import json
import subprocess
import sys

import pytest

import fsclust.cluster
import fsclust.datasets
import fsclust.rankers


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
