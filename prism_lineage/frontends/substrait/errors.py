"""Errors of the Substrait frontend (exit codes: see ``prism_lineage.errors``)."""

from __future__ import annotations

from ...errors import InvalidStatementError, ParseError


class PlanDecodeError(ParseError):
    """The input is not a Substrait plan: neither binary protobuf nor its JSON form (exit 4)."""


class InvalidPlanError(InvalidStatementError):
    """The plan decodes but cannot be valid: a field index out of range, a missing input, a
    function reference nothing declares … (exit 6).  The message names the relation path."""

    def __init__(self, path: str, problem: str):
        super().__init__(f"invalid Substrait plan at {path}: {problem}")
        self.path = path
        self.problem = problem
