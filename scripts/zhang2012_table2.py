"""Rule zhang2012_table2: the mean + sd informative subsets of every method, and PCA."""
import _srcpath  # noqa: F401  (src/ on sys.path when fsclust is not installed)
from fsclust import steps
from fsclust.report import zhang2012

p = snakemake.params
with steps.logged(snakemake.log[0]):
    data = dict(zip(p.datasets, snakemake.input.data))
    zhang2012.table2(data, p.rankings, p.methods, p.clusterer, p.seeds, snakemake.output.tsv,
                     snakemake.output.md, metrics=p.metrics)
