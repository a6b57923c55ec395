"""State shared while one statement of a Substrait plan is lowered.

Ids follow the shape of the SQL frontend's (``s<statement>.<kind>@<where>[~n]``) with the
relation path standing for the position in the text: ``s0.project@relations[0].root.input``.
Every target created while a relation is lowered is recorded under that relation's path, which
becomes its ingress origin.  Origins name the plan file (line 0: a plan has no lines).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from google.protobuf.message import Message

from ...catalog import Catalog
from ...ir import Field, IdAllocator, Origin, Relation, Uncertainty, field_id
from ...ir.ingress import IngressOrigin
from .extensions import Extensions
from .types import Shape

PROTOCOL = "substrait"


@dataclass(slots=True)
class _Ingress:
    kind: str
    anchor: int | None
    targets: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Record:
    """What expressions of a relation evaluate against: its input's fields (after emit), and
    the relation's anchor (for outer references by id)."""

    fields: tuple[Field, ...]
    anchor: int | None = None


class PlanContext:
    """What every statement of one plan shares: the plan, its extensions, the catalog."""

    __slots__ = ("plan", "extensions", "catalog", "file", "producer", "expressions_only")

    def __init__(self, plan: Message, catalog: Catalog | None, file: str | None,
                 expressions_only: str | None = None):
        self.plan = plan
        self.extensions = Extensions(plan)
        self.catalog = catalog
        self.file = file
        # Some producers write plans their own way (see specs/substrait.md, producer quirks).
        self.producer = plan.version.producer.lower() if plan.HasField("version") else ""
        # ``None``: a ProjectRel without an emit yields its input's fields, then its expressions
        # (the specification); otherwise it yields only its expressions, as DuckDB writes it,
        # and this is the ``uncertain`` entry that says so and why.
        self.expressions_only = expressions_only


class LoweringContext:
    """Ids, origins, ingress records and findings of one statement being lowered."""

    __slots__ = ("plan", "statement", "ids", "origin", "uncertain", "_ingress", "shared", "_sharing",
                 "substrait_types", "shapes")

    def __init__(self, plan: PlanContext, statement: int):
        self.plan = plan
        self.statement = statement
        self.ids = IdAllocator(f"s{statement}")
        self.origin = Origin(0, 0, 0, 0, statement, plan.file) if plan.file else None
        self.uncertain: list[Uncertainty] = []
        self._ingress: dict[str, _Ingress] = {}
        # ReferenceRel: Plan.relations[ordinal] lowered once per statement, then shared.
        self.shared: dict[int, Relation] = {}
        self._sharing: list[int] = []
        # Nested types of fields and expressions (RelRoot names list their parts depth first),
        # and the names of their parts (nested references read ``.city``, not field 1).
        self.substrait_types: dict[str, Message] = {}
        self.shapes: dict[str, Shape] = {}

    @property
    def extensions(self) -> Extensions:
        return self.plan.extensions

    # --- ids and ingress -----------------------------------------------------------------

    def enter(self, path: str, kind: str, anchor: int | None) -> None:
        """Targets created from now on under ``path`` came from the relation there."""
        self._ingress.setdefault(path, _Ingress(kind, anchor or None))

    def new_id(self, kind: str, path: str) -> str:
        target = self.ids.new(f"{kind}@{path}", None)
        self._record(path, target)
        return target

    def field(self, relation_id: str, index: int | str, name: str, type_: str | None, path: str,
              substrait_type: Message | None = None, shape: Shape | None = None, like: str | None = None) -> Field:
        """A new field of relation ``relation_id``.  ``like``: the id of the field or
        expression it copies, whose nested type and names it keeps."""
        created = Field(field_id(relation_id, index), name, type_, self.origin)
        self._record(path, created.id)
        if like is not None:
            substrait_type = substrait_type or self.substrait_types.get(like)
            shape = shape or self.shapes.get(like)
        self.remember(created.id, substrait_type, shape)
        return created

    def remember(self, target: str, substrait_type: Message | None, shape: Shape | None = None) -> None:
        """Keep a nested type (RelRoot names count its parts) and the names of its parts."""
        if substrait_type is not None and substrait_type.WhichOneof("kind") in ("struct", "list", "map"):
            self.substrait_types[target] = substrait_type
        if shape is not None:
            self.shapes[target] = shape

    def _record(self, path: str, target: str) -> None:
        entry = self._ingress.get(path)
        if entry is None:
            entry = self._ingress[path] = _Ingress("Rel", None)
        entry.targets.append(target)

    def ingress(self) -> tuple[IngressOrigin, ...]:
        return tuple(
            IngressOrigin(PROTOCOL, path, entry.kind, tuple(entry.targets), entry.anchor, self.plan.file)
            for path, entry in self._ingress.items() if entry.targets
        )

    # --- shared subtrees (ReferenceRel) ----------------------------------------------------

    def sharing(self, ordinal: int) -> bool:
        return ordinal in self._sharing

    def begin_shared(self, ordinal: int) -> None:
        self._sharing.append(ordinal)

    def end_shared(self, ordinal: int) -> None:
        self._sharing.remove(ordinal)

    # --- findings ----------------------------------------------------------------------------

    def uncertain_about(self, reason: str, field_name: str | None = None) -> None:
        if not any(u.reason == reason and u.field == field_name for u in self.uncertain):
            self.uncertain.append(Uncertainty(reason, field_name, self.origin))
