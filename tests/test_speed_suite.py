"""The benchmark suite's smoke run (``--quick``): it times, measures memory, fits exponents and
writes its tables and plots. Speed itself is never asserted here (see speed/README.md)."""

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def suite():
    spec = importlib.util.spec_from_file_location("bench_suite", REPO / "speed" / "suite.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow  # runs the speed suite
def test_quick_run_writes_every_table_and_plot(suite, tmp_path):
    timings, exponents, _ = suite.main(["--quick", "--out", str(tmp_path), "--methods",
                                        "variance", "laplacian", "uff", "--clusterers",
                                        "kmeans"])
    for name in ("suite_timings.tsv", "suite_exponents.tsv", "suite_peers.tsv",
                 "suite_loglog_n.png", "suite_loglog_d.png"):
        assert (tmp_path / name).stat().st_size > 0, name
    ok = timings[timings["status"] == "ok"]
    # every method on both axes, every size of the quick grids
    assert set(ok["method"]) == {"variance", "laplacian", "uff", "kmeans"}
    assert len(ok) == 4 * (len(suite.QUICK_N_GRID) + len(suite.QUICK_D_GRID))
    assert np.all((ok["min_s"] <= ok["median_s"]) & (ok["median_s"] <= ok["max_s"]))
    assert np.all(ok["peak_mb"] > 0) and np.all(ok["kernel_s"] > 0)
    np.testing.assert_allclose(ok["ratio_to_kernel"], ok["median_s"] / ok["kernel_s"])
    # the kernel's flop count is the one its formula gives at the case's size
    row = ok[(ok["method"] == "laplacian")].iloc[0]
    assert row["kernel"] == "X X^T" and row["kernel_flops"] == 2 * row["n"] ** 2 * row["d"]
    assert len(exponents) == 4 * 2
    assert all(math.isfinite(v) for v in exponents["fitted_exponent"])


def test_fitted_exponent_recovers_a_known_power(suite):
    import pandas as pd

    n = np.array([100, 200, 400])
    timings = pd.DataFrame({"kind": "ranker", "method": "laplacian", "axis": "n", "n": n,
                            "d": 50, "median_s": 3e-7 * n.astype(float) ** 2.0,
                            "status": "ok"})
    exponents = suite.fit_exponents(timings)
    fitted = exponents.loc[exponents["axis"] == "n", "fitted_exponent"].item()
    assert fitted == pytest.approx(2.0, abs=1e-9)
    assert exponents.loc[exponents["axis"] == "n", "expected_exponent"].item() == 2


def test_synthetic_data_are_seeded_and_shaped(suite):
    a, b = suite.synthetic(30, 40), suite.synthetic(30, 40)
    assert a.shape == (30, 40) and np.array_equal(a, b)
