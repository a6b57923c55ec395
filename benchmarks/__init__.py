"""Benchmarks: prism_lineage side by side with sqlglot and the lineage peers (issue 3).

* ``python -m benchmarks.run``: TPC-H and TPC-DS, every tool, a table, JSON and a chart;
* ``python -m benchmarks.scale``: a generated query family, time against size;
* ``python -m benchmarks.many_statements``: ``prism-lineage explain --jobs`` on a query log;
* ``python -m benchmarks.explain_tpcds``: the time of ``explain`` per TPC-DS query (and a profile).

See docs/performance.md for the protocol and the figures.
"""
