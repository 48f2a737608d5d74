"""The HTML report as a reader sees it: the quick workflow, ``snakemake --report``, then the page
opened in headless Chromium (about a minute, most of it the workflow).

The page is browsed by a script added to a copy of the report: it clicks each category of the
menu and each of its subcategories, as a reader would, records the rows and captions the page
renders, and leaves the first figure on screen for the screenshot. A hook installed before the
report's own scripts records every console error and uncaught exception.
"""

import html
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from _workflow import copy_workflow  # noqa: E402

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.workflow

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")

# Runs before the report's scripts: keeps console errors and uncaught exceptions.
HOOK = """
window.__reportErrors = [];
window.addEventListener("error", (ev) => window.__reportErrors.push(
  "uncaught: " + (ev.message || String(ev.error))));
window.addEventListener("unhandledrejection", (ev) => window.__reportErrors.push(
  "unhandled rejection: " + String(ev.reason)));
const __consoleError = console.error;
console.error = function (...args) {
  window.__reportErrors.push("console.error: " + args.map(String).join(" "));
  __consoleError.apply(console, args);
};
"""

# Runs after the report's scripts: browses every category and subcategory through the menu.
PROBE = """
(async function () {
  const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const menuLinks = () => Array.from(document.querySelectorAll("a")).filter(
    (a) => a.querySelector("span"));
  const click = async (label) => {
    const link = menuLinks().find((a) => a.textContent.trim() === label);
    if (!link) return false;
    link.click();
    await pause(100);
    return true;
  };
  const out = { categories: {}, captions: {}, problems: [] };
  let firstFigure;
  try {
    await pause(300);
    const cats = Object.keys(categories);
    for (const cat of cats) {
      app.setView({ navbarMode: "menu" });
      await pause(100);
      // the menu names a lone category "Results"
      if (!(await click(cats.length === 1 ? "Results" : cat))) {
        out.problems.push("no menu entry for category " + cat);
        continue;
      }
      out.categories[cat] = {};
      const subs = Object.keys(categories[cat]);
      for (const sub of subs) {
        if (subs.length > 1) {
          app.setView({ navbarMode: "category", category: cat });
          await pause(100);
          if (!(await click(sub))) {
            out.problems.push("no menu entry for " + cat + " / " + sub);
            continue;
          }
        }
        out.categories[cat][sub] = Array.from(
          document.querySelectorAll("table tbody tr")).map((tr) => tr.textContent.trim());
        for (const path of categories[cat][sub]) {
          app.showResultInfo(path);
          await pause(100);
          out.captions[path] = document.body.innerText;
          if (!firstFigure && results[path].mime_type === "image/png") {
            firstFigure = { path: path, category: cat, subcategory: sub };
          }
        }
      }
    }
    if (firstFigure) {
      app.setView({ navbarMode: "resultinfo", resultPath: firstFigure.path, content: "img",
                    category: firstFigure.category, subcategory: firstFigure.subcategory,
                    contentPath: results[firstFigure.path].data_uri });
      await pause(300);
    }
  } catch (err) {
    out.problems.push(String((err && err.stack) || err));
  }
  out.errors = window.__reportErrors;
  const pre = document.createElement("pre");
  pre.id = "report-probe";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
"""


def _chromium():
    for name in CHROMIUM_NAMES:
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("no Chromium binary on PATH (tried " + ", ".join(CHROMIUM_NAMES)
                + "); on Debian: apt-get install -y chromium")


def _workdir(tmp_path):
    """A copy of the workflow (not data/ or results/), as in test_workflow.py."""
    work = tmp_path / "run"
    work.mkdir()
    copy_workflow(work)
    return work


def _snakemake(work, *args):
    cmd = [sys.executable, "-m", "snakemake", *args]
    proc = subprocess.run(cmd, cwd=work, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return proc


def _probe_copy(report, out):
    text = report.read_text()
    head, body = text.index("<head>") + len("<head>"), text.rindex("</body>")
    out.write_text(text[:head] + f"<script>{HOOK}</script>" + text[head:body]
                   + f"<script>{PROBE}</script>" + text[body:])
    return out


def _browse(chromium, page, *args):
    cmd = [chromium, "--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars",
           "--enable-logging=stderr", "--v=0", "--virtual-time-budget=30000",
           "--window-size=1400,1000", *args, page.as_uri()]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def report_page(tmp_path_factory):
    chromium = _chromium()
    work = _workdir(tmp_path_factory.mktemp("report"))
    _snakemake(work, "--cores", "2")
    _snakemake(work, "--report", "report.html")
    probe = _probe_copy(work / "report.html", work / "report-probe.html")
    proc = _browse(chromium, probe, "--dump-dom")
    assert proc.returncode == 0, proc.stderr[-4000:]
    found = re.search(r'<pre id="report-probe">(.*?)</pre>', proc.stdout, re.S)
    assert found, "the probe did not finish: " + proc.stderr[-2000:]
    return {"work": work, "chromium": chromium, "probe": probe, "stderr": proc.stderr,
            "seen": json.loads(html.unescape(found.group(1)))}


def test_report_loads_without_errors(report_page):
    seen = report_page["seen"]
    assert seen["errors"] == [] and seen["problems"] == []
    uncaught = [line for line in report_page["stderr"].splitlines()
                if ":CONSOLE" in line and "Uncaught" in line]
    assert uncaught == []


def test_report_lists_every_experiment_figure_and_table(report_page):
    work, seen = report_page["work"], report_page["seen"]
    config = yaml.safe_load((work / "config" / "config.yaml").read_text())
    for experiment in config["run"]:
        subcategories = seen["categories"][experiment]
        datasets = config["experiments"][experiment]["datasets"]
        # one subcategory per dataset, holding that dataset's figure
        for ds in datasets:
            assert subcategories[ds] == [ds]
            caption = seen["captions"][f"results/{experiment}/figures/{ds}.png"]
            assert f"dataset {ds} of experiment {experiment}" in " ".join(caption.split())
            assert "black dashed line" in caption
        assert set(subcategories) == {*datasets, "tables", "provenance"}
        assert sorted(subcategories["tables"]) == [
            f"results/{experiment}/paper_vs_ours.tsv", f"results/{experiment}/tables/best.tsv"]
        assert subcategories["provenance"] == [f"results/{experiment}/provenance.json"]


def test_report_screenshot(report_page, tmp_path):
    work = report_page["work"]
    shot = work / "results" / "test-artefacts" / "report.png"
    shot.parent.mkdir(parents=True, exist_ok=True)
    proc = _browse(report_page["chromium"], report_page["probe"], f"--screenshot={shot}")
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert shot.read_bytes()[:4] == b"\x89PNG" and shot.stat().st_size > 20_000
    shutil.copy(shot, tmp_path / "report.png")
