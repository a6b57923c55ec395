"""The Spark Connect frontend: a Spark Connect ``Plan`` (what a PySpark Connect client sends to
a server) → the IR.  No JVM and no server: the plan's protobuf is read with the ``pyspark-client``
package's own Connect classes (the ``[spark]`` extra) and resolved against the schema::

    from prism_lineage.frontends.spark_connect import SparkConnectPlan
    plan = SparkConnectPlan.from_bytes(data, schema={"orders": {"order_id": "int", ...}})
    prism_lineage.explain(plan)

or ``prism-lineage explain --spark-connect plan.bin --schema schema.yaml``.  Reading in
``reading``, name resolution and lowering in ``lowering``; specs/spark-connect.md has the rules.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ...catalog import Catalog
from ...ir import Statement
from .errors import InvalidSparkPlanError, SparkConnectUnavailableError, SparkPlanDecodeError
from .reading import decode, proto, read_file

__all__ = ["InvalidSparkPlanError", "SparkConnectPlan", "SparkConnectUnavailableError", "SparkPlanDecodeError"]


class SparkConnectPlan:
    """A decoded Spark Connect plan, ready to be lowered (``to_statements``) and explained.

    ``schema`` declares the tables the plan reads (a Connect plan names its tables but does not
    carry their columns): a table it does not declare is refused, naming the read."""

    __slots__ = ("message", "file", "catalog", "functions")

    def __init__(self, message: Any, *, file: str | None = None,
                 schema: Mapping[str, Any] | Catalog | None = None, functions=None):
        self.message = message
        self.file = file
        self.catalog = schema if isinstance(schema, Catalog) or schema is None else Catalog.from_mapping(schema)
        self.functions = functions

    @classmethod
    def from_bytes(cls, data: bytes | str, *, name: str | None = None,
                   schema: Mapping[str, Any] | Catalog | None = None) -> "SparkConnectPlan":
        """From binary protobuf or its JSON form (bytes or text) held in memory."""
        return cls(decode(data, name or "the Spark Connect plan"), file=name, schema=schema)

    @classmethod
    def from_file(cls, path: str | Path, *, schema: Mapping[str, Any] | Catalog | None = None
                  ) -> "SparkConnectPlan":
        return cls(decode(read_file(path), str(path)), file=str(path), schema=schema)

    @classmethod
    def from_message(cls, plan: Any, *, name: str | None = None,
                     schema: Mapping[str, Any] | Catalog | None = None) -> "SparkConnectPlan":
        """From a ``pyspark.sql.connect.proto.Plan`` (or a ``Relation``, as the plan's root)."""
        module = proto()
        if isinstance(plan, module.Relation):
            plan = module.Plan(root=plan)
        if not isinstance(plan, module.Plan):
            from ...errors import UsageError

            raise UsageError(f"SparkConnectPlan.from_message takes a Spark Connect Plan or Relation, not "
                             f"{type(plan).__name__}")
        return cls(plan, file=name, schema=schema)

    def to_statements(self) -> list[Statement]:
        from .lowering import lower_plan

        return lower_plan(self.message, self.catalog, self.file, self.functions)

    def __repr__(self) -> str:
        return f"SparkConnectPlan({self.file or 'in memory'})"
