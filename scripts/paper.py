"""Paper rules: call ``fsclust.papers.<paper>.<step>(inputs, outputs, **settings)``."""
import importlib

import _srcpath  # noqa: F401  (src/ on sys.path when fsclust is not installed)
from fsclust import steps

p = snakemake.params
with steps.logged(snakemake.log[0], snakemake.threads):
    step = getattr(importlib.import_module(f"fsclust.papers.{p.module}"), p.step)
    step(dict(snakemake.input.items()), dict(snakemake.output.items()), **p.settings)
