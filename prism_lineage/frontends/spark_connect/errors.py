"""Errors of the Spark Connect frontend (exit codes: see ``prism_lineage.errors``)."""

from __future__ import annotations

from ...errors import InvalidStatementError, ParseError, UsageError


class SparkConnectUnavailableError(UsageError):
    """The Spark Connect protobuf classes (the ``pyspark-client`` package) are missing (exit 2)."""


class SparkPlanDecodeError(ParseError):
    """The input is not a Spark Connect ``Plan`` (binary protobuf or its JSON form) (exit 4)."""


class InvalidSparkPlanError(InvalidStatementError):
    """A plan this frontend cannot read faithfully — a relation or expression it does not know,
    a column no input has, a table the schema does not declare … (exit 6).  The message names
    the relation's path in the plan (``root.project.input``), its kind and its ``plan_id``."""

    def __init__(self, path: str, node: str, problem: str, plan_id: int | None = None):
        where = f"{path} ({node}{f', plan_id {plan_id}' if plan_id is not None else ''})"
        super().__init__(f"Spark Connect plan at {where}: {problem}")
        self.path = path
        self.node = node
        self.problem = problem
        self.plan_id = plan_id
