"""The label-free selection study (config/experiments/selection.yaml, docs/selection.md): the
choice of m and K of :class:`fsclust.selection.LabelFreeSelector` scored against the labels.

- :mod:`~fsclust.studies.selection.step`: one dataset and method, chosen then scored;
- :mod:`~fsclust.studies.selection.report`: the regret tables, figures and summary.
"""
