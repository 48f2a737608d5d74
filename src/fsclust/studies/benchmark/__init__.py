"""The cross-dataset benchmark (config/experiments/benchmark.yaml): every method at its
defaults against random features and all features (docs/benchmark.md).

- :mod:`~fsclust.studies.benchmark.label_free`: the label-free jobs (m and K chosen without
  labels) and their tables;
- :mod:`~fsclust.studies.benchmark.report`: the statistics (Friedman, Nemenyi, Wilcoxon-Holm),
  the critical-difference diagrams and ``summary.md``.
"""
