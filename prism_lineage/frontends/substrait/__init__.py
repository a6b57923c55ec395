"""The Substrait frontend: Substrait ``Plan`` messages (binary protobuf or JSON) → the IR.

``SubstraitPlan`` is a plan source ``prism_lineage.explain`` accepts in place of SQL text::

    from prism_lineage.frontends.substrait import SubstraitPlan
    prism_lineage.explain(SubstraitPlan.from_file("plan.json"))

Reading (``decoding``, ``compat``), extension and function resolution (``extensions``),
types (``types``), expressions (``expressions``), relations (``relations``, ``joins``) and
statements (``statements``) each have their own module.  Nothing downstream knows the plan
came from Substrait, except through the ingress origins each statement carries.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from google.protobuf.message import Message

from ...catalog import Catalog
from ...ir import Statement
from ...guarded import run_guarded
from .decoding import decode_binary, decode_plan, read_plan_file
from .errors import InvalidPlanError, PlanDecodeError
from .statements import lower_plan

__all__ = ["InvalidPlanError", "PlanDecodeError", "SubstraitPlan", "lower_plan"]


class SubstraitPlan:
    """A decoded Substrait plan, ready to be lowered (``to_statements``) and explained.

    ``schema`` (optional) only spells names: a table the catalog declares is named as the
    catalog names it, so answers agree with those for SQL over the same schema; the plan's own
    base schemas decide which columns exist.
    """

    __slots__ = ("message", "file", "format", "catalog")

    def __init__(self, message: Message, *, file: str | None = None, format: str = "binary",
                 schema: Mapping[str, Any] | Catalog | None = None):
        self.message = message
        self.file = file
        self.format = format
        self.catalog = schema if isinstance(schema, Catalog) or schema is None else Catalog.from_mapping(schema)

    @classmethod
    def from_file(cls, path: str | Path, *, schema: Mapping[str, Any] | Catalog | None = None) -> "SubstraitPlan":
        message, format_ = read_plan_file(path)
        return cls(message, file=str(path), format=format_, schema=schema)

    @classmethod
    def from_bytes(cls, data: bytes | str, *, name: str | None = None,
                   schema: Mapping[str, Any] | Catalog | None = None) -> "SubstraitPlan":
        """From binary protobuf or JSON (bytes or text) held in memory."""
        message, format_ = decode_plan(data, source=name or "the Substrait plan")
        return cls(message, file=name, format=format_, schema=schema)

    @classmethod
    def from_message(cls, plan: Message, *, name: str | None = None,
                     schema: Mapping[str, Any] | Catalog | None = None) -> "SubstraitPlan":
        """From a ``substrait.plan_pb2.Plan`` built in Python (re-read through the reader's
        schema, which also knows the fields older producers write)."""
        return cls(decode_binary(plan.SerializeToString(), source=name or "the Substrait plan"), file=name,
                   schema=schema)

    @property
    def producer(self) -> str | None:
        version = self.message.version
        return version.producer or None if self.message.HasField("version") else None

    def to_statements(self) -> list[Statement]:
        return run_guarded(lower_plan, self.message, self.catalog, self.file)

    def __repr__(self) -> str:
        return f"SubstraitPlan({self.file or 'in memory'}, {self.format}, {len(self.message.relations)} relation(s))"
