"""Errors of the Polars frontend (exit codes: see ``prism_lineage.errors``)."""

from __future__ import annotations

from ...errors import InvalidStatementError, UsageError


class PolarsUnavailableError(UsageError):
    """Polars is not installed, or is a version this frontend does not read (exit 2)."""


class InvalidPolarsPlanError(InvalidStatementError):
    """A plan this frontend cannot read faithfully: a node or expression kind it does not know,
    a column its input does not have … (exit 6).  The message names the node's path in the
    plan (``root.input_left``) and what it is (``Join``)."""

    def __init__(self, path: str, node: str, problem: str):
        super().__init__(f"Polars plan at {path} ({node}): {problem}")
        self.path = path
        self.node = node
        self.problem = problem
