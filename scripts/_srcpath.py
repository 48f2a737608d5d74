"""Make ``src/`` importable when fsclust is not installed (e.g. under ``--sdm conda``).

Snakemake appends this directory to ``sys.path`` before running a rule script.
"""
import sys
from pathlib import Path

try:
    import fsclust  # noqa: F401
except ImportError:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
