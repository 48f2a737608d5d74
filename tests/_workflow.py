"""A copy of the workflow to run in isolation: the one definition, imported by the tests that
run Snakemake for real."""

import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: What a run needs; data/, results/ and .snakemake/ stay behind.
PARTS = ("Snakefile", "workflow", "scripts", "config", "envs", "src")


def copy_workflow(work):
    """Copy the workflow into the existing folder ``work``; return ``work``."""
    work = Path(work)
    for part in PARTS:
        src = REPO / part
        (shutil.copytree if src.is_dir() else shutil.copy)(src, work / part)
    return work
