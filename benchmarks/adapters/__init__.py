"""One module per tool measured.  Each module imports only the standard library at the top
(its tool is imported inside ``prepare``), so the peer worker can load it by path inside the
tool's own virtual environment.  A module declares:

* ``TOOL``: the name shown; ``DISTRIBUTION``: its package (for the version); ``MODULE``: the
  module whose presence means the tool is installed;
* ``VENV``: the folder name of its own virtual environment (under the venvs folder, see
  ``benchmarks/setup_peers.sh``), or ``None`` when it runs only in this process;
* ``MEASURES``: measure key → label, in the order shown;
* ``prepare(measure, schema, dialect, queries) -> (call, reset)``: ``call(sql)`` does the
  timed work on one query and raises when the tool fails on it; ``reset`` (or ``None``)
  runs before each call outside the timing.
"""

from __future__ import annotations

from . import (
    datahub_adapter,
    openlineage_adapter,
    prism_adapter,
    sqlglot_adapter,
    sqllineage_adapter,
)

# The order of the table: the sqlglot figures first (the floor), then the peers, then ours.
ADAPTERS = (sqlglot_adapter, datahub_adapter, sqllineage_adapter, openlineage_adapter, prism_adapter)
FLOOR = "sqlglot.qualify"
